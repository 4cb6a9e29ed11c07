//! rsetsockopt, rgetsockopt and rfcntl for datagram rsockets: options
//! other than SOL_RDMA go to the UDP socket first, and every option is
//! remembered in the socket's record as upstream does.

use core::ffi::{c_int, c_void};

use rdma_abi::rsocket::{RDMA_INLINE, RDMA_IOMAPSIZE, RDMA_ROUTE, RDMA_RQSIZE, RDMA_SQSIZE, SOL_RDMA};

use super::sock::{sys, Dsock};
use crate::abi::verbs::*;
use crate::id::Res;
use crate::rsocket::base::RS_OPENING;
use crate::rsocket::proto::*;

fn int_val(optval: *const c_void, optlen: libc::socklen_t) -> Res<c_int> {
    if optval.is_null() {
        return Err(libc::EFAULT);
    }
    if (optlen as usize) < 4 {
        return Err(libc::EINVAL);
    }
    // SAFETY: at least 4 readable bytes.
    Ok(unsafe { core::ptr::read_unaligned(optval.cast::<c_int>()) })
}

/// `rsetsockopt`: anything but SOL_RDMA goes to the UDP socket first (its
/// error is returned), then is remembered as upstream does.
///
/// # Safety
/// `optval` holds `optlen` bytes.
pub(crate) unsafe fn setsockopt(d: &Dsock, level: c_int, optname: c_int, optval: *const c_void, optlen: libc::socklen_t) -> Res<()> {
    if level != SOL_RDMA {
        // SAFETY: forwarded to setsockopt(2), which validates the buffer.
        sys(unsafe { libc::setsockopt(d.udp, level, optname, optval, optlen) })?;
    }
    // Upstream's result starts as "not supported" but is overwritten by the
    // UDP socket's success: an option the UDP socket takes and rsockets do
    // not know succeeds (and clears its bit). SOL_RDMA keeps the default.
    let mut ret: Res<()> = if level != SOL_RDMA { Ok(()) } else { Err(libc::EOPNOTSUPP) };
    let mut on = false;
    let mut which = None;
    let mut c = d.st.lock();
    match level {
        libc::SOL_SOCKET => {
            which = Some(0);
            match optname {
                libc::SO_REUSEADDR | libc::SO_OOBINLINE => {
                    on = int_val(optval, optlen)? != 0;
                    ret = Ok(());
                }
                libc::SO_RCVBUF => {
                    let v = int_val(optval, optlen)? as u32;
                    if c.qps.is_empty() {
                        c.base.rbuf_size = v << 1;
                    }
                    ret = Ok(());
                }
                libc::SO_SNDBUF => {
                    let v = int_val(optval, optlen)? as u32;
                    if c.sbuf.is_none() {
                        c.base.sbuf_size = v << 1;
                    }
                    if c.base.sbuf_size < RS_SNDLOWAT {
                        c.base.sbuf_size = RS_SNDLOWAT << 1;
                    }
                    ret = Ok(());
                }
                libc::SO_LINGER => {
                    if (optlen as usize) < core::mem::size_of::<libc::linger>() {
                        return Err(libc::EINVAL);
                    }
                    // SAFETY: setsockopt(2) accepted a linger there.
                    let l = unsafe { core::ptr::read_unaligned(optval.cast::<libc::linger>()) };
                    on = l.l_onoff == 0;
                    ret = Ok(());
                }
                libc::SO_KEEPALIVE => {
                    // No connection to keep alive: remembered only.
                    on = int_val(optval, optlen)? != 0;
                    ret = Ok(());
                }
                _ => {}
            }
        }
        libc::IPPROTO_TCP => {
            // Only reached if the UDP socket accepted a TCP option.
            which = Some(1);
        }
        libc::IPPROTO_IPV6 => {
            which = Some(2);
            if optname == libc::IPV6_V6ONLY {
                on = int_val(optval, optlen)? != 0;
                ret = Ok(());
            }
        }
        SOL_RDMA => {
            if c.base.state >= RS_OPENING {
                return Err(libc::EINVAL);
            }
            let max = RS_QP_MAX_SIZE as u32;
            match optname {
                RDMA_SQSIZE => c.base.sq_size = (int_val(optval, optlen)? as u32).min(max) as u16,
                RDMA_RQSIZE => c.base.rq_size = (int_val(optval, optlen)? as u32).min(max) as u16,
                RDMA_INLINE => c.base.sq_inline = (int_val(optval, optlen)? as u32).min(max) as u16,
                RDMA_IOMAPSIZE => {
                    let v = int_val(optval, optlen)?;
                    c.base.target_iomap_size = scale_to_value(value_to_scale(v, 8) as u8 as i32, 8) as u16;
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
                }
                _ => return Err(libc::EOPNOTSUPP),
            }
            ret = Ok(());
        }
        _ => {}
    }
    if ret.is_ok() {
        let bit = 1u64.checked_shl(optname as u32).unwrap_or(0);
        let o = match which {
            Some(0) => Some(&mut c.base.so_opts),
            Some(1) => Some(&mut c.base.tcp_opts),
            Some(2) => Some(&mut c.base.ipv6_opts),
            _ => None,
        };
        if let Some(o) = o {
            if on {
                *o |= bit;
            } else {
                *o &= !bit;
            }
        }
    }
    ret
}

/// `rgetsockopt` (from the socket's own record, as upstream; TCP_MAXSEG
/// is 2048 and RDMA_ROUTE has no paths: a datagram socket has no route).
///
/// # Safety
/// `optval` has room for the option, `optlen` is valid.
pub(crate) unsafe fn getsockopt(d: &Dsock, level: c_int, optname: c_int, optval: *mut c_void, optlen: *mut libc::socklen_t) -> Res<()> {
    let mut c = d.st.lock();
    let put = |v: c_int| {
        // SAFETY: the caller's buffer holds an int (contract).
        unsafe {
            core::ptr::write_unaligned(optval.cast::<c_int>(), v);
            *optlen = 4;
        }
    };
    let bit = |o: u64| c_int::from(o & 1u64.checked_shl(optname as u32).unwrap_or(0) != 0);
    match (level, optname) {
        (libc::SOL_SOCKET, libc::SO_REUSEADDR | libc::SO_KEEPALIVE | libc::SO_OOBINLINE) => put(bit(c.base.so_opts)),
        (libc::SOL_SOCKET, libc::SO_RCVBUF) => put(c.base.rbuf_size as c_int),
        (libc::SOL_SOCKET, libc::SO_SNDBUF) => put(c.base.sbuf_size as c_int),
        (libc::SOL_SOCKET, libc::SO_LINGER) => {
            let l = libc::linger { l_onoff: 1 - bit(c.base.so_opts), l_linger: 0 };
            // SAFETY: the caller's buffer holds a linger (contract).
            unsafe {
                core::ptr::write_unaligned(optval.cast::<libc::linger>(), l);
                *optlen = core::mem::size_of::<libc::linger>() as libc::socklen_t;
            }
        }
        (libc::SOL_SOCKET, libc::SO_ERROR) => {
            put(c.base.err);
            c.base.err = 0;
        }
        (libc::IPPROTO_TCP, libc::TCP_KEEPCNT | libc::TCP_KEEPINTVL) => {
            // SAFETY: as in put (upstream leaves optlen alone here).
            unsafe { core::ptr::write_unaligned(optval.cast::<c_int>(), 1) };
        }
        (libc::IPPROTO_TCP, libc::TCP_KEEPIDLE) => put(0),
        (libc::IPPROTO_TCP, libc::TCP_NODELAY) => put(bit(c.base.tcp_opts)),
        (libc::IPPROTO_TCP, libc::TCP_MAXSEG) => put(2048),
        (libc::IPPROTO_IPV6, libc::IPV6_V6ONLY) => put(bit(c.base.ipv6_opts)),
        (SOL_RDMA, RDMA_SQSIZE) => put(c.base.sq_size as c_int),
        (SOL_RDMA, RDMA_RQSIZE) => put(c.base.rq_size as c_int),
        (SOL_RDMA, RDMA_INLINE) => put(c.base.sq_inline as c_int),
        (SOL_RDMA, RDMA_IOMAPSIZE) => put(c.base.target_iomap_size as c_int),
        (SOL_RDMA, RDMA_ROUTE) => {
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
                if cap < core::mem::size_of::<ibv_path_data>() {
                    return Err(libc::EINVAL);
                }
                // SAFETY: valid optlen.
                unsafe { *optlen = 0 };
            }
        }
        _ => return Err(libc::EOPNOTSUPP),
    }
    Ok(())
}

/// `rfcntl`.
pub(crate) fn fcntl(d: &Dsock, cmd: c_int, arg: c_int) -> Res<c_int> {
    match cmd {
        libc::F_GETFL => Ok(d.st.lock().base.fd_flags),
        libc::F_SETFL => {
            let mut c = d.st.lock();
            if (c.base.fd_flags & libc::O_NONBLOCK) != (arg & libc::O_NONBLOCK) {
                d.set_nonblocking(&c, arg & libc::O_NONBLOCK != 0)?;
            }
            c.base.fd_flags = arg;
            Ok(0)
        }
        _ => Err(libc::EOPNOTSUPP),
    }
}
