//! Connection management: listen, get_request, connect, accept, reject,
//! notify, disconnect.
//!
//! Resource negotiation, as upstream: `RDMA_MAX_RESP_RES` /
//! `RDMA_MAX_INIT_DEPTH` (0xff) in the connection parameters mean "the
//! device's maximum" (on accept: the lesser of the requester's value and the
//! device's maximum); explicit values above the device's maxima are refused
//! with EINVAL for RDMA_PS_TCP ids. The accepting side moves its QP to RTR
//! and RTS before sending the reply; the connecting side does so when the
//! reply arrives (see `event::translate_event`).

use rdma_util::mem::zeroed;
use crate::abi::cma::*;
use crate::abi::ucma::*;
use crate::abi::verbs::*;
use crate::ucma::af_ib_support;
use crate::event::complete;
use crate::id::{ret_int, Id, Res};
use crate::qp::{modify_qp_err, modify_qp_rtr, modify_qp_rts, modify_qp_sqd};
use crate::ucma::write_cmd;
use core::ffi::{c_int, c_void};

/// The device's (max initiator depth, max responder resources); zeros for
/// an id not yet on a device (upstream would crash there).
fn dev_max(id: Id) -> (u8, u8) {
    let d = id.cma_dev();
    if d.is_null() {
        return (0, 0);
    }
    // SAFETY: the id holds a reference on its device entry.
    unsafe { ((*d).max_initiator_depth, (*d).max_responder_resources) }
}

/// `ucma_valid_param`.
fn valid_param(id: Id, param: Option<&rdma_conn_param>) -> Res<()> {
    if id.ps() != RDMA_PS_TCP {
        return Ok(());
    }
    let Some(param) = param else {
        return if id.qp().is_null() { Err(libc::EINVAL) } else { Ok(()) };
    };
    let (max_init, max_resp) = dev_max(id);
    if param.responder_resources != RDMA_MAX_RESP_RES && param.responder_resources > max_resp {
        return Err(libc::EINVAL);
    }
    if param.initiator_depth != RDMA_MAX_INIT_DEPTH && param.initiator_depth > max_init {
        return Err(libc::EINVAL);
    }
    Ok(())
}

/// The kernel form of the connection parameters: the id's negotiated
/// resources, stored private data (rdma_create_ep) followed by the caller's.
fn conn_param_to_kern(id: Id, src: Option<&rdma_conn_param>, qp_num: u32, srq: u8) -> rdma_ucm_conn_param {
    let mut dst: rdma_ucm_conn_param = zeroed();
    dst.qp_num = qp_num;
    dst.srq = srq;
    dst.responder_resources = id.responder_resources();
    dst.initiator_depth = id.initiator_depth();
    dst.valid = 1;
    id.with_connect(|connect| {
        if !connect.is_empty() {
            let n = connect.len().min(RDMA_MAX_PRIVATE_DATA);
            dst.private_data[..n].copy_from_slice(&connect[..n]);
            dst.private_data_len = connect.len() as u8;
        }
    });
    match src {
        Some(s) => {
            dst.flow_control = s.flow_control;
            dst.retry_count = s.retry_count;
            dst.rnr_retry_count = s.rnr_retry_count;
            if !s.private_data.is_null() && s.private_data_len != 0 {
                let off = usize::from(dst.private_data_len);
                let n = usize::from(s.private_data_len).min(RDMA_MAX_PRIVATE_DATA.saturating_sub(off));
                // SAFETY: the caller's private data is readable for its length.
                let data = unsafe { core::slice::from_raw_parts(s.private_data.cast::<u8>(), n) };
                dst.private_data[off..off + n].copy_from_slice(data);
                dst.private_data_len = dst.private_data_len.wrapping_add(s.private_data_len);
            }
        }
        None => {
            dst.retry_count = 7;
            dst.rnr_retry_count = 7;
        }
    }
    dst
}

/// The QP number and SRQ flag to announce: the id's QP's, else the
/// caller's.
fn qp_info(id: Id, param: Option<&rdma_conn_param>) -> (u32, u8) {
    let qp = id.qp();
    if !qp.is_null() {
        // SAFETY: the id's QP is live.
        return unsafe { ((*qp).qp_num, u8::from(!(*qp).srq.is_null())) };
    }
    param.map_or((0, 0), |p| (p.qp_num, p.srq))
}

/// `rdma_connect`.
pub(crate) fn connect(id: Id, param: Option<&rdma_conn_param>) -> Res<()> {
    valid_param(id, param)?;
    let (max_init, max_resp) = dev_max(id);
    id.set_initiator_depth(match param {
        Some(c) if c.initiator_depth != RDMA_MAX_INIT_DEPTH => c.initiator_depth,
        _ => max_init,
    });
    id.set_responder_resources(match param {
        Some(c) if c.responder_resources != RDMA_MAX_RESP_RES => c.responder_resources,
        _ => max_resp,
    });
    let (qp_num, srq) = qp_info(id, param);
    let body = rdma_ucm_connect {
        conn_param: conn_param_to_kern(id, param, qp_num, srq),
        id: id.handle(),
        reserved: 0,
        ece: rdma_ucm_ece { vendor_id: id.local_ece().vendor_id, attr_mod: id.local_ece().options },
    };
    write_cmd(id.fd(), RDMA_USER_CM_CMD_CONNECT, body)?;
    id.with_connect(|connect| *connect = Vec::new());
    complete(id)
}

/// `rdma_listen`.
pub(crate) fn listen(id: Id, backlog: c_int) -> Res<()> {
    let body = rdma_ucm_listen { id: id.handle(), backlog: backlog as u32 };
    write_cmd(id.fd(), RDMA_USER_CM_CMD_LISTEN, body)?;
    if af_ib_support() {
        crate::addr::query_addr(id)
    } else {
        crate::addr::query_route(id)
    }
}

/// `rdma_get_request`: the next connection request of a synchronous
/// listening id, with a QP created when the endpoint asked for one. (The
/// export waits in its own frame, see [`get_request_begin`].)
pub(crate) fn get_request(listen: Id) -> Res<Id> {
    let w = get_request_begin(listen)?;
    // SAFETY: fresh from get_request_begin.
    let event = unsafe { crate::event::get_cm_event_with(w) }?;
    // SAFETY: the event just returned.
    unsafe { get_request_finish(listen, event) }
}

/// The checks of rdma_get_request before its wait, and the wait's start.
fn get_request_begin(listen: Id) -> Res<crate::event::EventWait> {
    if !listen.sync() {
        return Err(libc::EINVAL);
    }
    crate::id::ack_held_event(listen);
    // SAFETY: a synchronous id's private channel lives as long as the id.
    unsafe { crate::event::EventWait::new(listen.channel()) }
}

/// rdma_get_request after its wait returned `event`.
///
/// # Safety
/// `event` is the live event the wait on `listen`'s channel returned.
unsafe fn get_request_finish(listen: Id, event: *mut rdma_cm_event) -> Res<Id> {
    // SAFETY: just returned by the wait.
    let ev = unsafe { &*event };
    let r = (|| {
        if ev.event == RDMA_CM_EVENT_REJECTED {
            return Err(libc::ECONNREFUSED);
        }
        if ev.status != 0 {
            return Err(-ev.status);
        }
        if ev.event != RDMA_CM_EVENT_CONNECT_REQUEST {
            return Err(libc::EINVAL);
        }
        if let Some(mut attr) = listen.with_qp_init_attr(|init| init.as_deref().copied()) {
            crate::qp::create_qp(Id::from_cm(ev.id), listen.pd(), &mut attr)?;
        }
        Ok(())
    })();
    match r {
        Ok(()) => {
            let new = Id::from_cm(ev.id);
            new.set_event(event);
            Ok(new)
        }
        Err(e) => {
            listen.set_event(event);
            Err(e)
        }
    }
}

/// `rdma_accept`.
pub(crate) fn accept(id: Id, param: Option<&rdma_conn_param>) -> Res<()> {
    let (qp_num, srq) = qp_info(id, param);
    valid_param(id, param)?;
    let (max_init, max_resp) = dev_max(id);
    id.set_initiator_depth(match param {
        Some(c) if c.initiator_depth != RDMA_MAX_INIT_DEPTH => c.initiator_depth,
        _ => id.initiator_depth().min(max_init),
    });
    id.set_responder_resources(match param {
        Some(c) if c.responder_resources != RDMA_MAX_RESP_RES => c.responder_resources,
        _ => id.responder_resources().min(max_resp),
    });
    if !id.is_ud() {
        modify_qp_rtr(id, id.responder_resources())?;
        modify_qp_rts(id, id.initiator_depth())?;
    }
    let body = rdma_ucm_accept {
        uid: id.0 as u64,
        conn_param: conn_param_to_kern(id, param, qp_num, srq),
        id: id.handle(),
        reserved: 0,
        // A reply answers with the vendor id it received.
        ece: rdma_ucm_ece { vendor_id: id.remote_ece().vendor_id, attr_mod: id.local_ece().options },
    };
    if let Err(e) = write_cmd(id.fd(), RDMA_USER_CM_CMD_ACCEPT, body) {
        let _ = modify_qp_err(id);
        return Err(e);
    }
    if id.is_ud() {
        return Ok(());
    }
    complete(id)
}

/// REJECT with private data and an IBTA reject reason (0: let the kernel
/// choose).
pub(crate) fn reject(id: Id, private_data: *const c_void, len: u8, reason: u8) -> Res<()> {
    let mut body: rdma_ucm_reject = zeroed();
    body.id = id.handle();
    if !private_data.is_null() && len != 0 {
        // SAFETY: the caller's private data is readable for len bytes.
        let d = unsafe { core::slice::from_raw_parts(private_data.cast::<u8>(), usize::from(len)) };
        body.private_data[..d.len()].copy_from_slice(d);
        body.private_data_len = len;
    }
    body.reason = reason;
    write_cmd(id.fd(), RDMA_USER_CM_CMD_REJECT, body)
}

/// IBTA's reject reason "vendor option not supported".
const CM_REJ_VENDOR_OPTION_NOT_SUPPORTED: u8 = 35;

/// `rdma_notify`.
fn notify(id: Id, event: ibv_event_type) -> Res<()> {
    write_cmd(id.fd(), RDMA_USER_CM_CMD_NOTIFY, rdma_ucm_notify { id: id.handle(), event })
}

/// Stops the QP before a disconnect: ERR on IB/RoCE, SQD on iWARP.
pub(crate) fn shutdown(id: Id) -> Res<()> {
    match id.transport() {
        Some(IBV_TRANSPORT_IB) => modify_qp_err(id),
        Some(IBV_TRANSPORT_IWARP) => modify_qp_sqd(id),
        _ => Err(libc::EINVAL),
    }
}

/// `rdma_disconnect`.
pub(crate) fn disconnect(id: Id) -> Res<()> {
    shutdown(id)?;
    write_cmd(id.fd(), RDMA_USER_CM_CMD_DISCONNECT, rdma_ucm_disconnect { id: id.handle() })?;
    complete(id)
}

/// The caller's optional connection parameters.
fn param<'a>(p: *mut rdma_conn_param) -> Option<&'a rdma_conn_param> {
    // SAFETY: a non-null pointer from the caller points to valid parameters.
    unsafe { p.as_ref() }
}

// ---------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------

crate::event::export_sync! {
    /// Starts a connection to the resolved destination.
    fn rdma_connect(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int;
    {
        if id.is_null() {
            return Err(libc::EINVAL);
        }
        connect(Id::from_cm(id), param(conn_param))
    }
}

rdma_util::export! {
    /// Listens for connection requests on the bound address.
    fn rdma_listen(id: *mut rdma_cm_id, backlog: c_int) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        ret_int(listen(Id::from_cm(id), backlog))
    }
}

/// Waits for the next connection request of a synchronous listener.
///
/// Not written with `export!`: its wait is a cancellation point, as
/// upstream's (see `ffi::cancellable` and rdma_get_cm_event).
///
/// # Safety
/// As rdma_get_request(3): `listen` is a live id.
#[no_mangle]
pub unsafe extern "C-unwind" fn rdma_get_request(listen: *mut rdma_cm_id, id: *mut *mut rdma_cm_id) -> c_int {
    const NAME: &str = "rdma_get_request";
    let begin = rdma_util::ffi::guard(crate::LIB_NAME, NAME, Err(libc::EIO), || {
        if listen.is_null() || id.is_null() {
            return Err(libc::EINVAL);
        }
        get_request_begin(Id::from_cm(listen))
    });
    let w = match begin {
        Ok(w) => w,
        Err(e) => return ret_int(Err(e)),
    };
    // SAFETY: w is fresh; this frame holds nothing with a destructor.
    let event = match unsafe { crate::event::wait_event_cancellable(NAME, w) } {
        Ok(ev) => ev,
        Err(e) => return ret_int(Err(e)),
    };
    // SAFETY: the event the wait returned.
    match rdma_util::ffi::guard(crate::LIB_NAME, NAME, Err(libc::EIO), || unsafe { get_request_finish(Id::from_cm(listen), event) }) {
        Ok(n) => {
            // SAFETY: id is a non-null out-pointer (checked above).
            unsafe { *id = n.cm() };
            0
        }
        Err(e) => ret_int(Err(e)),
    }
}

crate::event::export_sync! {
    /// Accepts a connection request.
    fn rdma_accept(id: *mut rdma_cm_id, conn_param: *mut rdma_conn_param) -> c_int;
    {
        if id.is_null() {
            return Err(libc::EINVAL);
        }
        accept(Id::from_cm(id), param(conn_param))
    }
}

rdma_util::export! {
    /// Rejects a connection request.
    fn rdma_reject(id: *mut rdma_cm_id, private_data: *const c_void, private_data_len: u8) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        ret_int(reject(Id::from_cm(id), private_data, private_data_len, 0))
    }
}

rdma_util::export! {
    /// Rejects a connection request because of unsupported ECE options.
    fn rdma_reject_ece(id: *mut rdma_cm_id, private_data: *const c_void, private_data_len: u8) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        ret_int(reject(Id::from_cm(id), private_data, private_data_len, CM_REJ_VENDOR_OPTION_NOT_SUPPORTED))
    }
}

rdma_util::export! {
    /// Tells the CM about a QP event (e.g. communication established).
    fn rdma_notify(id: *mut rdma_cm_id, event: ibv_event_type) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        ret_int(notify(Id::from_cm(id), event))
    }
}

crate::event::export_sync! {
    /// Disconnects (after flushing the QP).
    fn rdma_disconnect(id: *mut rdma_cm_id) -> c_int;
    {
        if id.is_null() {
            return Err(libc::EINVAL);
        }
        disconnect(Id::from_cm(id))
    }
}
