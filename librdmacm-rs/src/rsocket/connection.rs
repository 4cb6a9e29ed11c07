//! Stream connection setup and teardown: listen, the accept step run by
//! the listen service, the connect state machine (resolve address, resolve
//! route, connect, each possibly in progress on a nonblocking socket),
//! shutdown and the CM events of connected sockets.

use core::ffi::c_int;
use core::ptr::null_mut;
use rdma_util::fallible::Shared;

use super::base::*;
use super::proto::*;
use super::stream::*;
use super::svc::Svc;
use super::{index, wake};
use crate::abi::cma::*;
use crate::id::{Id, Res};
use crate::verbs as v;

/// The CM service of listening sockets: accepts their requests.
pub(crate) static LISTEN: Svc = Svc::new(accept_one);
/// The CM service of connecting and connected sockets: their CM events.
pub(crate) static CONNECT: Svc = Svc::new(handle_cm_event);

fn would_block(e: c_int) -> bool {
    e == libc::EAGAIN || e == libc::EWOULDBLOCK
}

/// Where the connection data starts in the private data.
fn conn_data_offset(rs: &Rsocket) -> usize {
    // SAFETY: reading the family of the id's source address storage.
    if c_int::from(unsafe { (*rs.cm().src_storage()).ss_family }) == AF_IB {
        IB_CONNECT_HDR_SIZE
    } else {
        0
    }
}

/// The connection data in the id's current event (request or reply).
fn event_conn_data(rs: &Rsocket, offset: usize) -> Option<RsConnData> {
    let ev = rs.cm().event();
    if ev.is_null() {
        return None;
    }
    // SAFETY: the id's current event is live until it is acked; conn
    // events carry connection parameters.
    let p = unsafe { (*ev).param.conn };
    if p.private_data.is_null() || (p.private_data_len as usize) < offset + 40 {
        return None;
    }
    // SAFETY: private_data holds private_data_len bytes.
    let b = unsafe { core::slice::from_raw_parts(p.private_data.cast::<u8>(), p.private_data_len as usize) };
    RsConnData::from_bytes(&b[offset..])
}

#[derive(Clone, Copy)]
enum Step {
    ResolveAddr,
    WaitAddr,
    ResolveRoute,
    WaitRoute,
    Connect,
    WaitConnect,
    Connected,
    WaitAccept,
}

/// Drives the connection one step further (all the way when blocking).
/// In progress on a nonblocking socket: Err(EINPROGRESS).
pub(crate) fn do_connect(rs: &Rsocket) -> Res<()> {
    let _s = rs.slock.lock();
    let id = rs.cm_id;
    let state = rs.st.lock().base.state;
    let mut step = match state {
        RS_INIT | RS_BOUND => Step::ResolveAddr,
        RS_RESOLVING_ADDR => Step::WaitAddr,
        RS_RESOLVING_ROUTE => Step::WaitRoute,
        RS_CONNECTING => Step::WaitConnect,
        RS_ACCEPTING => Step::WaitAccept,
        RS_CONNECT_ERROR | RS_DISCONNECTED | RS_ERROR => return Err(libc::ENOTCONN),
        s => return if s & RS_CONNECTED != 0 { Ok(()) } else { Err(libc::EINVAL) },
    };
    let set_state = |s: u32| rs.st.lock().base.state = s;
    let next_timeout = || {
        let mut c = rs.st.lock();
        let to = 1000 << c.retries.min(20);
        c.retries += 1;
        to
    };
    let r: Res<()> = loop {
        match step {
            Step::ResolveAddr => {
                let to = next_timeout();
                // SAFETY: our id; the destination was stored by rconnect.
                let r = cm_ret(unsafe {
                    let dst = core::ptr::addr_of_mut!((*id).route.addr.dst.dst_addr);
                    crate::resolve::rdma_resolve_addr(id, null_mut(), dst, to)
                });
                match r {
                    Ok(()) => step = Step::ResolveRoute,
                    Err(e) => {
                        if would_block(e) {
                            set_state(RS_RESOLVING_ADDR);
                        }
                        break Err(e);
                    }
                }
            }
            Step::WaitAddr => match crate::event::complete(Id::from_cm(id)) {
                Err(libc::ETIMEDOUT) if rs.st.lock().retries <= RS_CONN_RETRIES => step = Step::ResolveAddr,
                Err(e) => break Err(e),
                Ok(()) => {
                    rs.st.lock().retries = 0;
                    step = Step::ResolveRoute;
                }
            },
            Step::ResolveRoute => {
                let to = next_timeout();
                let route = rs.st.lock().base.optval.take();
                if let Some(mut path) = route {
                    // SAFETY: our id and the caller's path records.
                    let r = cm_ret(unsafe {
                        crate::options::rdma_set_option(
                            id,
                            RDMA_OPTION_IB,
                            RDMA_OPTION_IB_PATH,
                            path.as_mut_ptr().cast(),
                            path.len(),
                        )
                    });
                    match r {
                        Ok(()) => {
                            set_state(RS_RESOLVING_ROUTE);
                            step = Step::WaitRoute;
                        }
                        Err(e) => {
                            if would_block(e) {
                                set_state(RS_RESOLVING_ROUTE);
                            }
                            break Err(e);
                        }
                    }
                } else {
                    // SAFETY: our id.
                    match cm_ret(unsafe { crate::resolve::rdma_resolve_route(id, to) }) {
                        Ok(()) => step = Step::Connect,
                        Err(e) => {
                            if would_block(e) {
                                set_state(RS_RESOLVING_ROUTE);
                            }
                            break Err(e);
                        }
                    }
                }
            }
            Step::WaitRoute => match crate::event::complete(Id::from_cm(id)) {
                Err(libc::ETIMEDOUT) if rs.st.lock().retries <= RS_CONN_RETRIES => step = Step::ResolveRoute,
                Err(e) => break Err(e),
                Ok(()) => step = Step::Connect,
            },
            Step::Connect => {
                let off = conn_data_offset(rs);
                let (data, msg_send) = {
                    let mut c = rs.st.lock();
                    // SAFETY: the socket's id, resolved onto a device.
                    if let Err(e) = unsafe { c.create_ep(id) } {
                        break Err(e);
                    }
                    c.retries = 0;
                    (c.format_conn_data().to_bytes(), c.base.opts & RS_OPT_MSG_SEND != 0)
                };
                let mut pdata = [0u8; IB_CONNECT_HDR_SIZE + 40];
                pdata[off..off + 40].copy_from_slice(&data);
                // SAFETY: all-zero is a valid rdma_conn_param.
                let mut param: rdma_conn_param = unsafe { core::mem::zeroed() };
                param.private_data = pdata.as_ptr().cast();
                param.private_data_len = (off + 40) as u8;
                param.flow_control = 1;
                param.retry_count = 7;
                param.rnr_retry_count = 7;
                if msg_send {
                    // iWARP may issue an RDMA READ while connecting.
                    param.initiator_depth = 1;
                }
                // SAFETY: our id and parameters that outlive the call.
                match cm_ret(unsafe { crate::conn::rdma_connect(id, &mut param) }) {
                    Ok(()) => step = Step::Connected,
                    Err(e) => {
                        if would_block(e) {
                            set_state(RS_CONNECTING);
                        }
                        break Err(e);
                    }
                }
            }
            Step::WaitConnect => match crate::event::complete(Id::from_cm(id)) {
                Err(e) => break Err(e),
                Ok(()) => step = Step::Connected,
            },
            Step::Connected => {
                let Some(cresp) = event_conn_data(rs, 0).filter(|c| c.version == 1) else {
                    break Err(libc::EOPNOTSUPP);
                };
                let mut c = rs.st.lock();
                c.save_conn_data(&cresp);
                c.base.state = RS_CONNECT_RDWR;
                break Ok(());
            }
            Step::WaitAccept => {
                if rs.st.lock().base.fd_flags & libc::O_NONBLOCK == 0 {
                    let _ = set_nonblock(rs.cm_fd(), true);
                }
                match crate::event::complete(Id::from_cm(id)) {
                    Err(e) => break Err(e),
                    Ok(()) => {
                        set_state(RS_CONNECT_RDWR);
                        break Ok(());
                    }
                }
            }
        }
    };
    match r {
        Err(e) if would_block(e) => Err(libc::EINPROGRESS),
        Err(e) => {
            let mut c = rs.st.lock();
            c.base.state = RS_CONNECT_ERROR;
            c.base.err = e;
            Err(e)
        }
        Ok(()) => Ok(()),
    }
}

/// `rlisten`.
pub(crate) fn listen(rs: &Shared<Rsocket>, backlog: c_int) -> Res<()> {
    if rs.st.lock().base.state == RS_LISTENING {
        return Ok(());
    }
    // SAFETY: our id.
    cm_ret(unsafe { crate::conn::rdma_listen(rs.cm_id, backlog) })?;
    let mut sv = [-1; 2];
    // SAFETY: a two-int array for socketpair.
    if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0, sv.as_mut_ptr()) } != 0 {
        return Err(last_err());
    }
    let nonblock = {
        let mut c = rs.st.lock();
        c.accept_queue = sv;
        c.base.fd_flags & libc::O_NONBLOCK != 0
    };
    if nonblock {
        set_nonblock(sv[0], true)?;
    }
    set_nonblock(rs.cm_fd(), true)?;
    LISTEN.add(rs)?;
    rs.st.lock().base.state = RS_LISTENING;
    Ok(())
}

/// Accepts one pending request on a listening socket (run by the listen
/// service when the CM channel is readable): the new socket, connected
/// (or still accepting), is queued for raccept. Failures reject the
/// request.
fn accept_one(l: &Rsocket) {
    // The library's own wait (not a cancellation point), not the export's.
    let new_id = match crate::conn::get_request(Id::from_cm(l.cm_id)) {
        Ok(id) => id.cm(),
        Err(e) => {
            rdma_util::ffi::set_errno(e);
            return;
        }
    };
    let conn = Conn::new(Some(&l.st.lock()));
    let nrs = match Rsocket::new(new_id, conn) {
        Ok(nrs) => nrs,
        Err(e) => {
            // The id is gone with the socket that could not be made; the
            // kernel rejects a request whose id is destroyed.
            rdma_util::ffi::set_errno(e);
            return;
        }
    };
    let reject = |nrs: Shared<Rsocket>| {
        // SAFETY: the request's id, not yet accepted.
        unsafe { crate::conn::rdma_reject(new_id, core::ptr::null(), 0) };
        drop(nrs);
    };
    let off = conn_data_offset(l);
    let Some(creq) = event_conn_data(&nrs, off).filter(|c| c.version == 1) else {
        return reject(nrs);
    };
    let cresp = {
        let mut c = nrs.st.lock();
        // SAFETY: the request's id, on the listener's device.
        if unsafe { c.create_ep(new_id) }.is_err() {
            drop(c);
            return reject(nrs);
        }
        c.save_conn_data(&creq);
        c.format_conn_data().to_bytes()
    };
    // SAFETY: the request event is live (held by the id).
    let mut param = unsafe { (*nrs.cm().event()).param.conn };
    param.private_data = cresp.as_ptr().cast();
    param.private_data_len = cresp.len() as u8;
    // SAFETY: the request's id and parameters that outlive the call.
    let r = cm_ret(unsafe { crate::conn::rdma_accept(new_id, &mut param) });
    match r {
        Ok(()) => nrs.st.lock().base.state = RS_CONNECT_RDWR,
        Err(e) if would_block(e) => nrs.st.lock().base.state = RS_ACCEPTING,
        Err(_) => return reject(nrs),
    }
    let fd = nrs.cm_fd();
    if index::insert(fd, nrs.clone()).is_err() {
        return reject(nrs);
    }
    let q = l.st.lock().accept_queue[1];
    // SAFETY: writing a local int to our socketpair.
    let n = unsafe { libc::write(q, (&fd as *const c_int).cast(), 4) };
    if n != 4 {
        if let Some(nrs) = index::remove(fd) {
            reject(nrs);
        }
    }
}

/// A CM event on a socket watched by the connect service.
fn handle_cm_event(rs: &Rsocket) {
    let opening = rs.st.lock().base.state & RS_OPENING != 0;
    if opening {
        let _ = do_connect(rs);
    } else if crate::event::complete(Id::from_cm(rs.cm_id)).is_ok() {
        let ev = rs.cm().event();
        let mut c = rs.st.lock();
        // SAFETY: the event just received is live.
        if !ev.is_null() && c.base.state & RS_CONNECTED != 0 && unsafe { (*ev).event } == RDMA_CM_EVENT_DISCONNECTED {
            c.base.state = RS_DISCONNECTED;
        }
    }
    if rs.st.lock().base.state & RS_OPENING == 0 {
        wake::signal();
    }
}

/// `rshutdown` for stream sockets.
pub(crate) fn shutdown(rs: &Rsocket, how: c_int) -> Res<()> {
    if rs.st.lock().base.opts & RS_OPT_KEEPALIVE != 0 {
        super::keepalive::remove(rs);
    }
    let fd_flags = rs.st.lock().base.fd_flags;
    if fd_flags & libc::O_NONBLOCK != 0 {
        let c = rs.st.lock();
        let _ = rs.set_nonblocking(&c, 0);
    }
    let mut ret = Ok(());
    'out: {
        let mut c = rs.st.lock();
        if c.base.state & RS_CONNECTED != 0 {
            let ctrl = if how == libc::SHUT_RDWR {
                c.base.state &= !(RS_READABLE | RS_WRITABLE);
                RS_CTRL_DISCONNECT
            } else if how == libc::SHUT_WR {
                c.base.state &= !RS_WRITABLE;
                if c.base.state & RS_READABLE != 0 {
                    RS_CTRL_SHUTDOWN
                } else {
                    RS_CTRL_DISCONNECT
                }
            } else {
                c.base.state &= !RS_READABLE;
                if c.base.state & RS_WRITABLE != 0 {
                    break 'out;
                }
                RS_CTRL_DISCONNECT
            };
            if !c.ctrl_avail() {
                drop(c);
                ret = rs.process_cq(false, t_conn_can_send_ctrl);
                if ret.is_err() {
                    break 'out;
                }
                c = rs.st.lock();
            }
            if c.base.state & RS_CONNECTED != 0 && c.ctrl_avail() {
                c.ctrl_seqno = c.ctrl_seqno.wrapping_add(1);
                ret = c.post_msg(msg_set(RS_OP_CTRL, ctrl));
            }
        }
        let connected = c.base.state & RS_CONNECTED != 0;
        drop(c);
        if connected {
            let _ = rs.process_cq(false, t_conn_all_sends_done);
        }
    }
    let c = rs.st.lock();
    if c.base.fd_flags & libc::O_NONBLOCK != 0 && c.base.state & RS_CONNECTED != 0 {
        let _ = rs.set_nonblocking(&c, c.base.fd_flags);
    }
    if c.base.state & RS_DISCONNECTED != 0 && !c.cq.is_null() {
        // Flush the receives so that a sleeping rpoll wakes up.
        // SAFETY: our live CQ.
        unsafe { v::req_notify_cq(c.cq, 0) };
        let _ = crate::conn::shutdown(Id::from_cm(rs.cm_id));
    }
    ret
}
