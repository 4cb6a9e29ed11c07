//! rsetsockopt, rgetsockopt and rfcntl for stream rsockets.
//!
//! Options are remembered as bits of `so_opts` / `tcp_opts` / `ipv6_opts`
//! (bit = option number) as upstream, so rgetsockopt reports what was set.
//! SOL_RDMA options only apply before the socket starts connecting.

use core::ffi::{c_int, c_void};
use rdma_util::fallible::Shared;

use super::base::*;
use super::keepalive;
use super::proto::*;
use super::stream::*;
use crate::abi::cma::*;
use crate::abi::verbs::*;
use crate::id::Res;

use rdma_abi::rsocket::*;

fn last_err() -> c_int {
    let e = rdma_util::ffi::errno();
    if e == 0 {
        libc::EIO
    } else {
        e
    }
}

/// Reads an int option value (EFAULT for NULL, EINVAL when too short,
/// where upstream would read past the caller's buffer).
fn int_val(optval: *const c_void, optlen: libc::socklen_t) -> Res<c_int> {
    if optval.is_null() {
        return Err(libc::EFAULT);
    }
    if (optlen as usize) < core::mem::size_of::<c_int>() {
        return Err(libc::EINVAL);
    }
    // SAFETY: at least 4 readable bytes per the caller's length.
    Ok(unsafe { core::ptr::read_unaligned(optval.cast::<c_int>()) })
}

fn set_keepalive(rs: &Shared<Rsocket>, on: bool) -> Res<()> {
    let (has, time) = {
        let c = rs.st.lock();
        (c.base.opts & RS_OPT_KEEPALIVE != 0, c.keepalive_time)
    };
    if on == has {
        return Ok(());
    }
    if on {
        if time == 0 {
            rs.st.lock().keepalive_time = keepalive::default_time();
        }
        keepalive::add(rs)
    } else {
        keepalive::remove(rs);
        Ok(())
    }
}

/// `rsetsockopt` (stream).
pub(crate) fn setsockopt(rs: &Shared<Rsocket>, level: c_int, optname: c_int, optval: *const c_void, optlen: libc::socklen_t) -> Res<()> {
    let mut ret: Res<()> = Err(libc::EOPNOTSUPP);
    let mut opt_on = false;
    let mut which: Option<u8> = None; // 0 so, 1 tcp, 2 ipv6
    match level {
        libc::SOL_SOCKET => {
            which = Some(0);
            match optname {
                libc::SO_REUSEADDR => {
                    let v = int_val(optval, optlen)?;
                    // SAFETY: our id; the value was checked readable.
                    let r = unsafe {
                        crate::options::rdma_set_option(rs.cm_id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, optval as *mut c_void, optlen as usize)
                    };
                    ret = if r == 0 {
                        Ok(())
                    } else {
                        let e = last_err();
                        let state = rs.st.lock().base.state;
                        let verbs = rs.cm().verbs();
                        // SAFETY: a bound id's context and device are live.
                        let ib = !verbs.is_null() && unsafe { (*(*verbs).device).transport_type } == IBV_TRANSPORT_IB;
                        if e == libc::ENOSYS || (state != RS_INIT && ib) {
                            Ok(())
                        } else {
                            Err(e)
                        }
                    };
                    opt_on = v != 0;
                }
                libc::SO_RCVBUF => {
                    let v = int_val(optval, optlen)? as u32;
                    let mut c = rs.st.lock();
                    if c.bufs.is_none() {
                        c.base.rbuf_size = v << 1;
                    }
                    ret = Ok(());
                }
                libc::SO_SNDBUF => {
                    let v = int_val(optval, optlen)? as u32;
                    let mut c = rs.st.lock();
                    if c.bufs.is_none() {
                        c.base.sbuf_size = v << 1;
                    }
                    if c.base.sbuf_size < RS_SNDLOWAT {
                        c.base.sbuf_size = RS_SNDLOWAT << 1;
                    }
                    ret = Ok(());
                }
                libc::SO_LINGER => {
                    if optval.is_null() {
                        return Err(libc::EFAULT);
                    }
                    if (optlen as usize) < core::mem::size_of::<libc::linger>() {
                        return Err(libc::EINVAL);
                    }
                    // SAFETY: a readable linger per the checks above.
                    let l = unsafe { core::ptr::read_unaligned(optval.cast::<libc::linger>()) };
                    // Stored inverted: the default (bit clear) means on.
                    opt_on = l.l_onoff == 0;
                    ret = Ok(());
                }
                libc::SO_KEEPALIVE => {
                    let v = int_val(optval, optlen)?;
                    ret = set_keepalive(rs, v != 0);
                    opt_on = rs.st.lock().base.opts & RS_OPT_KEEPALIVE != 0;
                }
                libc::SO_OOBINLINE => {
                    opt_on = int_val(optval, optlen)? != 0;
                    ret = Ok(());
                }
                _ => {}
            }
        }
        libc::IPPROTO_TCP => {
            which = Some(1);
            match optname {
                libc::TCP_KEEPCNT | libc::TCP_KEEPINTVL => ret = Ok(()),
                libc::TCP_KEEPIDLE => {
                    let v = int_val(optval, optlen)?;
                    if v <= 0 {
                        ret = Err(libc::EINVAL);
                    } else {
                        let on = {
                            let mut c = rs.st.lock();
                            c.keepalive_time = v as u32;
                            c.base.opts & RS_OPT_KEEPALIVE != 0
                        };
                        ret = if on { keepalive::modify(rs) } else { Ok(()) };
                    }
                }
                libc::TCP_NODELAY => {
                    opt_on = int_val(optval, optlen)? != 0;
                    ret = Ok(());
                }
                libc::TCP_MAXSEG => ret = Ok(()),
                _ => {}
            }
        }
        libc::IPPROTO_IPV6 => {
            which = Some(2);
            if optname == libc::IPV6_V6ONLY {
                let v = int_val(optval, optlen)?;
                // SAFETY: our id; the value was checked readable.
                let r = unsafe {
                    crate::options::rdma_set_option(rs.cm_id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, optval as *mut c_void, optlen as usize)
                };
                ret = if r == 0 { Ok(()) } else { Err(last_err()) };
                opt_on = v != 0;
            }
        }
        SOL_RDMA => {
            let mut c = rs.st.lock();
            if c.base.state >= RS_OPENING {
                return Err(libc::EINVAL);
            }
            match optname {
                RDMA_SQSIZE => {
                    c.base.sq_size = (int_val(optval, optlen)? as u32).min(RS_QP_MAX_SIZE as u32) as u16;
                    ret = Ok(());
                }
                RDMA_RQSIZE => {
                    c.base.rq_size = (int_val(optval, optlen)? as u32).min(RS_QP_MAX_SIZE as u32) as u16;
                    ret = Ok(());
                }
                RDMA_INLINE => {
                    c.base.sq_inline = (int_val(optval, optlen)? as u32).min(RS_QP_MAX_SIZE as u32) as u16;
                    ret = Ok(());
                }
                RDMA_IOMAPSIZE => {
                    let v = int_val(optval, optlen)?;
                    c.base.target_iomap_size = scale_to_value(value_to_scale(v, 8) as u8 as i32, 8) as u16;
                    ret = Ok(());
                }
                RDMA_ROUTE => {
                    if optval.is_null() && optlen != 0 {
                        return Err(libc::EFAULT);
                    }
                    // Upstream's malloc of optlen bytes: ENOMEM when it fails.
                    let mut v = rdma_util::fallible::vec_filled(0u8, optlen as usize).map_err(|_| libc::ENOMEM)?;
                    if optlen != 0 {
                        // SAFETY: optlen readable bytes from the caller.
                        unsafe { core::ptr::copy_nonoverlapping(optval.cast::<u8>(), v.as_mut_ptr(), optlen as usize) };
                    }
                    c.base.optval = Some(v);
                    ret = Ok(());
                }
                _ => {}
            }
        }
        _ => {}
    }
    if ret.is_ok() {
        if let Some(w) = which {
            let mut c = rs.st.lock();
            let bit = 1u64.checked_shl(optname as u32).unwrap_or(0);
            let opts = match w {
                0 => &mut c.base.so_opts,
                1 => &mut c.base.tcp_opts,
                _ => &mut c.base.ipv6_opts,
            };
            if opt_on {
                *opts |= bit;
            } else {
                *opts &= !bit;
            }
        }
    }
    ret
}

fn bit(opts: u64, n: c_int) -> c_int {
    c_int::from(opts & 1u64.checked_shl(n as u32).unwrap_or(0) != 0)
}

/// IB path record -> the path-data form RDMA_ROUTE reports.
fn convert_sa_path(p: &ibv_sa_path_rec) -> ibv_path_data {
    // SAFETY: all-zero is a valid path data record.
    let mut d: ibv_path_data = unsafe { core::mem::zeroed() };
    d.path.dgid = p.dgid;
    d.path.sgid = p.sgid;
    d.path.dlid = p.dlid;
    d.path.slid = p.slid;
    let fl_hop = u32::from_be(p.flow_label) << 8;
    d.path.flowlabel_hoplimit = (fl_hop | p.hop_limit as u32).to_be();
    d.path.tclass = p.traffic_class;
    d.path.reversible_numpath = ((p.reversible << 7) | 1) as u8;
    d.path.pkey = p.pkey;
    d.path.qosclass_sl = (p.sl as u16).to_be();
    d.path.mtu = p.mtu | 2 << 6;
    d.path.rate = p.rate | 2 << 6;
    d.path.packetlifetime = p.packet_life_time | 2 << 6;
    d.flags = p.preference as u32;
    d
}

/// `rgetsockopt` (stream).
///
/// # Safety
/// `optval` must have room for the option, `optlen` be valid.
pub(crate) unsafe fn getsockopt(rs: &Rsocket, level: c_int, optname: c_int, optval: *mut c_void, optlen: *mut libc::socklen_t) -> Res<()> {
    let mut c = rs.st.lock();
    let put = |v: c_int| {
        // SAFETY: the caller's buffer holds an int (contract).
        unsafe {
            core::ptr::write_unaligned(optval.cast::<c_int>(), v);
            *optlen = 4;
        }
    };
    match level {
        libc::SOL_SOCKET => match optname {
            libc::SO_REUSEADDR | libc::SO_KEEPALIVE | libc::SO_OOBINLINE => put(bit(c.base.so_opts, optname)),
            libc::SO_RCVBUF => put(c.base.rbuf_size as c_int),
            libc::SO_SNDBUF => put(c.base.sbuf_size as c_int),
            libc::SO_LINGER => {
                let l = libc::linger { l_onoff: 1 - bit(c.base.so_opts, optname), l_linger: 0 };
                // SAFETY: the caller's buffer holds a linger (contract).
                unsafe {
                    core::ptr::write_unaligned(optval.cast::<libc::linger>(), l);
                    *optlen = core::mem::size_of::<libc::linger>() as libc::socklen_t;
                }
            }
            libc::SO_ERROR => {
                put(c.base.err);
                c.base.err = 0;
            }
            _ => return Err(libc::EOPNOTSUPP),
        },
        libc::IPPROTO_TCP => match optname {
            libc::TCP_KEEPCNT | libc::TCP_KEEPINTVL => {
                // SAFETY: as in put (upstream leaves optlen alone here).
                unsafe { core::ptr::write_unaligned(optval.cast::<c_int>(), 1) };
            }
            libc::TCP_KEEPIDLE => put(c.keepalive_time as c_int),
            libc::TCP_NODELAY => put(bit(c.base.tcp_opts, optname)),
            libc::TCP_MAXSEG => {
                let (num_paths, path_rec) = (rs.cm().num_paths(), rs.cm().path_rec());
                let v = if num_paths != 0 && !path_rec.is_null() {
                    // SAFETY: the route's first path record.
                    1 << (7 + unsafe { (*path_rec).mtu } as u32)
                } else {
                    2048
                };
                put(v);
            }
            _ => return Err(libc::EOPNOTSUPP),
        },
        libc::IPPROTO_IPV6 => match optname {
            libc::IPV6_V6ONLY => put(bit(c.base.ipv6_opts, optname)),
            _ => return Err(libc::EOPNOTSUPP),
        },
        SOL_RDMA => match optname {
            RDMA_SQSIZE => put(c.base.sq_size as c_int),
            RDMA_RQSIZE => put(c.base.rq_size as c_int),
            RDMA_INLINE => put(c.base.sq_inline as c_int),
            RDMA_IOMAPSIZE => put(c.base.target_iomap_size as c_int),
            RDMA_ROUTE => {
                // SAFETY: valid optlen (contract).
                let cap = unsafe { *optlen } as usize;
                if let Some(v) = &c.base.optval {
                    if cap < v.len() {
                        return Err(libc::EINVAL);
                    }
                    // SAFETY: the caller's buffer holds cap >= len bytes.
                    unsafe {
                        core::ptr::copy_nonoverlapping(v.as_ptr(), optval.cast::<u8>(), v.len());
                        *optlen = v.len() as libc::socklen_t;
                    }
                } else {
                    let sz = core::mem::size_of::<ibv_path_data>();
                    if cap < sz {
                        return Err(libc::EINVAL);
                    }
                    let (num_paths, path_rec) = (rs.cm().num_paths(), rs.cm().path_rec());
                    let mut len = 0usize;
                    let mut n = 0;
                    while len + sz <= cap && n < num_paths && !path_rec.is_null() {
                        // SAFETY: num_paths records; room checked above.
                        unsafe {
                            let d = convert_sa_path(&*path_rec.add(n as usize));
                            core::ptr::write_unaligned(optval.cast::<u8>().add(len).cast::<ibv_path_data>(), d);
                        }
                        len += sz;
                        n += 1;
                    }
                    // SAFETY: valid optlen.
                    unsafe { *optlen = len as libc::socklen_t };
                }
            }
            _ => return Err(libc::EOPNOTSUPP),
        },
        _ => return Err(libc::EOPNOTSUPP),
    }
    Ok(())
}

/// `rfcntl`: F_GETFL and F_SETFL only.
pub(crate) fn fcntl(rs: &Rsocket, cmd: c_int, arg: c_int) -> Res<c_int> {
    match cmd {
        libc::F_GETFL => Ok(rs.st.lock().base.fd_flags),
        libc::F_SETFL => {
            let mut c = rs.st.lock();
            if (c.base.fd_flags & libc::O_NONBLOCK) != (arg & libc::O_NONBLOCK) {
                rs.set_nonblocking(&c, arg & libc::O_NONBLOCK)?;
            }
            c.base.fd_flags = arg;
            Ok(0)
        }
        _ => Err(libc::EOPNOTSUPP),
    }
}
