//! QPs, SRQs and CQs created on an id, the QP state transitions the CM
//! drives (INIT on creation; RTR and RTS when a connection is accepted or a
//! reply arrives; ERR or SQD on disconnect), rdma_init_qp_attr, and ECE
//! (enhanced connection establishment) negotiation.
//!
//! Attribute values for each transition come from the kernel
//! (INIT_QP_ATTR), which knows the path, the remote QPN and the negotiated
//! resources. On ABI version 3 kernels INIT is set up locally (P_Key index,
//! port, access flags or Q_Key), as upstream does.

use rdma_util::mem::zeroed;
use crate::abi::cma::*;
use crate::abi::kern::ib_uverbs_qp_attr;
use crate::abi::ucma::*;
use crate::abi::verbs::*;
use rdma_util::ffi::errno;
use crate::id::{ret_int, Id, Res};
use crate::ucma::{uaddr, write_cmd, write_cmd_resp};
use crate::verbs as v;
use core::ffi::c_int;
use core::ptr::null_mut;

/// `rdma_seterrno`: a verbs return value as a step result.
fn check(ret: c_int) -> Res<()> {
    if ret != 0 {
        Err(ret)
    } else {
        Ok(())
    }
}

/// Zeroed QP attributes.
fn qp_attr() -> ibv_qp_attr {
    // SAFETY: all-zero is a valid ibv_qp_attr.
    unsafe { core::mem::zeroed() }
}

/// `rdma_init_qp_attr`: the kernel's attributes for moving the id's QP to
/// `attr.qp_state`.
fn init_qp_attr(id: Id, attr: &mut ibv_qp_attr, mask: &mut c_int) -> Res<()> {
    // SAFETY: all-zero is a valid response buffer.
    let mut resp: ib_uverbs_qp_attr = unsafe { core::mem::zeroed() };
    let body = rdma_ucm_init_qp_attr { response: uaddr(&mut resp), id: id.handle(), qp_state: attr.qp_state };
    write_cmd_resp(id.fd(), RDMA_USER_CM_CMD_INIT_QP_ATTR, body, &mut resp)?;
    // SAFETY: both arguments are valid attribute structs.
    unsafe { v::ibv_copy_qp_attr_from_kern(attr, &mut resp) };
    *mask = resp.qp_attr_mask as c_int;
    Ok(())
}

fn modify(qp: *mut ibv_qp, attr: &mut ibv_qp_attr, mask: c_int) -> c_int {
    // SAFETY: qp is the id's live QP; attr is valid.
    unsafe { v::ibv_modify_qp(qp, attr, mask) }
}

/// The link layer of the id's port (unspecified when unknown).
fn link_layer(id: Id) -> u8 {
    let dev = id.cma_dev();
    if dev.is_null() {
        return IBV_LINK_LAYER_UNSPECIFIED;
    }
    // SAFETY: the id holds a reference on its device entry.
    let ports = unsafe { &(*dev).port };
    usize::from(id.port_num())
        .checked_sub(1)
        .and_then(|i| ports.get(i).copied())
        .unwrap_or(IBV_LINK_LAYER_UNSPECIFIED)
}

/// INIT then RTR, with `resp_res` responder resources unless it's the
/// "device maximum" marker.
pub(crate) fn modify_qp_rtr(id: Id, resp_res: u8) -> Res<()> {
    let qp = id.qp();
    if qp.is_null() {
        return Ok(());
    }
    let mut attr = qp_attr();
    let mut mask = 0;
    attr.qp_state = IBV_QPS_INIT;
    init_qp_attr(id, &mut attr, &mut mask)?;
    check(modify(qp, &mut attr, mask))?;
    attr.qp_state = IBV_QPS_RTR;
    init_qp_attr(id, &mut attr, &mut mask)?;
    // Old rdma_ucm kernels set RoCE-only mask bits (21-23) for IB ports.
    if link_layer(id) == IBV_LINK_LAYER_INFINIBAND {
        mask &= (u32::MAX ^ 0xe0_0000) as c_int;
    }
    if resp_res != RDMA_MAX_RESP_RES {
        attr.max_dest_rd_atomic = resp_res;
    }
    check(modify(qp, &mut attr, mask))
}

/// RTS, with `init_depth` outstanding reads unless it's the maximum marker.
pub(crate) fn modify_qp_rts(id: Id, init_depth: u8) -> Res<()> {
    let qp = id.qp();
    if qp.is_null() {
        return Ok(());
    }
    let mut attr = qp_attr();
    let mut mask = 0;
    attr.qp_state = IBV_QPS_RTS;
    init_qp_attr(id, &mut attr, &mut mask)?;
    if init_depth != RDMA_MAX_INIT_DEPTH {
        attr.max_rd_atomic = init_depth;
    }
    check(modify(qp, &mut attr, mask))
}

fn modify_state(id: Id, state: ibv_qp_state) -> Res<()> {
    let qp = id.qp();
    if qp.is_null() {
        return Ok(());
    }
    let mut attr = qp_attr();
    attr.qp_state = state;
    check(modify(qp, &mut attr, IBV_QP_STATE as c_int))
}

pub(crate) fn modify_qp_sqd(id: Id) -> Res<()> {
    modify_state(id, IBV_QPS_SQD)
}

pub(crate) fn modify_qp_err(id: Id) -> Res<()> {
    modify_state(id, IBV_QPS_ERR)
}

/// INIT set up locally (ABI 3): P_Key index of the id's P_Key and port.
fn init_qp3(id: Id, qp: *mut ibv_qp, attr: &mut ibv_qp_attr) -> Res<c_int> {
    // SAFETY: the device's context is open while the id references it.
    let idx = unsafe { v::ibv_get_pkey_index((*id.cma_dev()).verbs, id.port_num(), id.pkey()) };
    if idx < 0 {
        return Err(libc::EINVAL);
    }
    let _ = qp;
    attr.pkey_index = idx as u16;
    attr.port_num = id.port_num();
    attr.qp_state = IBV_QPS_INIT;
    Ok((IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT) as c_int)
}

/// Moves a new connected QP to INIT.
fn init_conn_qp(id: Id, qp: *mut ibv_qp) -> Res<()> {
    let mut attr = qp_attr();
    if crate::ucma::abi_ver() == 3 {
        let mask = init_qp3(id, qp, &mut attr)?;
        attr.qp_access_flags = 0;
        return check(modify(qp, &mut attr, mask | IBV_QP_ACCESS_FLAGS as c_int));
    }
    let mut mask = 0;
    attr.qp_state = IBV_QPS_INIT;
    init_qp_attr(id, &mut attr, &mut mask)?;
    check(modify(qp, &mut attr, mask))
}

/// Moves a new UD QP through INIT and RTR to RTS (send PSN 0).
fn init_ud_qp(id: Id, qp: *mut ibv_qp) -> Res<()> {
    let mut attr = qp_attr();
    if crate::ucma::abi_ver() == 3 {
        let mask = init_qp3(id, qp, &mut attr)?;
        attr.qkey = RDMA_UDP_QKEY;
        check(modify(qp, &mut attr, mask | IBV_QP_QKEY as c_int))?;
    } else {
        let mut mask = 0;
        attr.qp_state = IBV_QPS_INIT;
        init_qp_attr(id, &mut attr, &mut mask)?;
        check(modify(qp, &mut attr, mask))?;
    }
    attr.qp_state = IBV_QPS_RTR;
    check(modify(qp, &mut attr, IBV_QP_STATE as c_int))?;
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = 0;
    check(modify(qp, &mut attr, (IBV_QP_STATE | IBV_QP_SQ_PSN) as c_int))
}

/// Destroys the CQs and completion channels the CM created for the id.
fn destroy_cqs(id: Id) {
    if id.qp_type() == IBV_QPT_XRC_RECV && !id.srq().is_null() {
        return;
    }
    // SAFETY: these objects were created by create_cqs and are destroyed
    // once (pointers cleared).
    unsafe {
        let recv_cq = id.recv_cq();
        if !recv_cq.is_null() {
            v::ibv_destroy_cq(recv_cq);
            let send_cq = id.send_cq();
            if !send_cq.is_null() && send_cq != recv_cq {
                v::ibv_destroy_cq(send_cq);
                id.set_send_cq(null_mut());
            }
            id.set_recv_cq(null_mut());
        }
        let recv_ch = id.recv_cq_channel();
        if !recv_ch.is_null() {
            v::ibv_destroy_comp_channel(recv_ch);
            let send_ch = id.send_cq_channel();
            if !send_ch.is_null() && send_ch != recv_ch {
                v::ibv_destroy_comp_channel(send_ch);
                id.set_send_cq_channel(null_mut());
            }
            id.set_recv_cq_channel(null_mut());
        }
    }
}

/// Creates a CQ (with its own completion channel) of each non-zero size.
fn create_cqs(id: Id, send_size: u32, recv_size: u32) -> Res<()> {
    let r = (|| {
        // SAFETY: id.verbs() is the id's open context; the CQ context is the
        // id. Each result is stored on the id before it is checked, so
        // destroy_cqs finds what was created.
        unsafe {
            if recv_size != 0 {
                let ch = v::ibv_create_comp_channel(id.verbs());
                id.set_recv_cq_channel(ch);
                if ch.is_null() {
                    return Err(errno());
                }
                let cq = v::ibv_create_cq(id.verbs(), recv_size as c_int, id.cm().cast(), ch, 0);
                id.set_recv_cq(cq);
                if cq.is_null() {
                    return Err(errno());
                }
            }
            if send_size != 0 {
                let ch = v::ibv_create_comp_channel(id.verbs());
                id.set_send_cq_channel(ch);
                if ch.is_null() {
                    return Err(errno());
                }
                let cq = v::ibv_create_cq(id.verbs(), send_size as c_int, id.cm().cast(), ch, 0);
                id.set_send_cq(cq);
                if cq.is_null() {
                    return Err(errno());
                }
            }
        }
        Ok(())
    })();
    if r.is_err() {
        destroy_cqs(id);
    }
    r
}

/// `rdma_create_srq_ex`.
pub(crate) fn create_srq_ex(id: Id, attr: &mut ibv_srq_init_attr_ex) -> Res<()> {
    if attr.comp_mask & IBV_SRQ_INIT_ATTR_TYPE == 0 {
        return Err(libc::EINVAL);
    }
    if attr.comp_mask & IBV_SRQ_INIT_ATTR_PD == 0 || attr.pd.is_null() {
        attr.pd = id.pd();
        attr.comp_mask |= IBV_SRQ_INIT_ATTR_PD;
    }
    if attr.srq_type == IBV_SRQT_XRC {
        if attr.comp_mask & IBV_SRQ_INIT_ATTR_XRCD == 0 || attr.xrcd.is_null() {
            // SAFETY: the id's device entry, kept live by the id's reference
            // (an SRQ needs a bound id, as upstream's ucma_get_xrcd assumes).
            attr.xrcd = unsafe { crate::devices::get_xrcd(id.cma_dev()) };
            if attr.xrcd.is_null() {
                return Err(errno());
            }
        }
        if attr.comp_mask & IBV_SRQ_INIT_ATTR_CQ == 0 || attr.cq.is_null() {
            create_cqs(id, 0, attr.attr.max_wr)?;
            attr.cq = id.recv_cq();
        }
        attr.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
    }
    // SAFETY: the id's context is open; attr is valid.
    let srq = unsafe { v::create_srq_ex(id.verbs(), attr) };
    if srq.is_null() {
        let e = errno();
        destroy_cqs(id);
        return Err(e);
    }
    if id.pd().is_null() {
        id.set_pd(attr.pd);
    }
    id.set_srq(srq);
    Ok(())
}

/// `rdma_create_srq`: a basic SRQ (XRC for XRC_RECV ids).
fn create_srq(id: Id, pd: *mut ibv_pd, attr: &mut ibv_srq_init_attr) -> Res<()> {
    // SAFETY: all-zero is a valid ibv_srq_init_attr_ex.
    let mut ex: ibv_srq_init_attr_ex = unsafe { core::mem::zeroed() };
    ex.srq_context = attr.srq_context;
    ex.attr = attr.attr;
    ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
    ex.srq_type = if id.qp_type() == IBV_QPT_XRC_RECV { IBV_SRQT_XRC } else { IBV_SRQT_BASIC };
    ex.pd = pd;
    let r = create_srq_ex(id, &mut ex);
    attr.srq_context = ex.srq_context;
    attr.attr = ex.attr;
    r
}

/// `rdma_destroy_srq`.
pub(crate) fn destroy_srq(id: Id) {
    // SAFETY: the id's SRQ, destroyed once.
    unsafe { v::ibv_destroy_srq(id.srq()) };
    id.set_srq(null_mut());
    destroy_cqs(id);
}

/// Records the new QP's ECE and, for a QP answering a request, applies the
/// peer's options (or clears them when the vendors differ).
fn init_ece(id: Id, qp: *mut ibv_qp) -> Res<()> {
    let mut ece = ibv_ece { vendor_id: 0, options: 0, comp_mask: 0 };
    // SAFETY: qp is live; ece is a valid out-buffer.
    let ret = unsafe { v::ibv_query_ece(qp, &mut ece) };
    if ret != 0 && ret != libc::EOPNOTSUPP {
        return Err(ret);
    }
    id.set_local_ece(ibv_ece { vendor_id: ece.vendor_id, options: ece.options, ..id.local_ece() });
    let (local, remote) = (id.local_ece(), id.remote_ece());
    if remote.vendor_id == 0 {
        return Ok(());
    }
    if remote.vendor_id != local.vendor_id {
        ece.vendor_id = local.vendor_id;
        ece.options = 0;
    } else {
        ece.vendor_id = remote.vendor_id;
        ece.options = remote.options;
    }
    // SAFETY: as above.
    let ret = unsafe { v::ibv_set_ece(qp, &mut ece) };
    if ret != 0 && ret != libc::EOPNOTSUPP {
        return Err(ret);
    }
    Ok(())
}

/// After INIT of a QP answering a request: the options the provider kept.
fn refresh_local_ece(id: Id, qp: *mut ibv_qp) -> Res<()> {
    if id.remote_ece().vendor_id == 0 {
        return Ok(());
    }
    let mut ece = ibv_ece { vendor_id: 0, options: 0, comp_mask: 0 };
    // SAFETY: qp is live.
    let ret = unsafe { v::ibv_query_ece(qp, &mut ece) };
    if ret != 0 && ret != libc::EOPNOTSUPP {
        return Err(ret);
    }
    id.set_local_ece(ibv_ece { options: ece.options, ..id.local_ece() });
    Ok(())
}

/// `rdma_create_qp_ex`.
pub(crate) fn create_qp_ex(id: Id, attr: &mut ibv_qp_init_attr_ex) -> Res<()> {
    if !id.qp().is_null() {
        return Err(libc::EINVAL);
    }
    if attr.comp_mask & IBV_QP_INIT_ATTR_PD == 0 || attr.pd.is_null() {
        attr.comp_mask |= IBV_QP_INIT_ATTR_PD;
        attr.pd = id.pd();
    } else {
        // SAFETY: a non-null PD passed by the application is live.
        if id.verbs() != unsafe { (*attr.pd).context } {
            return Err(libc::EINVAL);
        }
    }
    let (recv_cq, send_cq) = (id.recv_cq(), id.send_cq());
    if (!recv_cq.is_null() && !attr.recv_cq.is_null() && recv_cq != attr.recv_cq)
        || (!send_cq.is_null() && !attr.send_cq.is_null() && send_cq != attr.send_cq)
    {
        return Err(libc::EINVAL);
    }
    if id.qp_type() == IBV_QPT_XRC_RECV && (attr.comp_mask & IBV_QP_INIT_ATTR_XRCD == 0 || attr.xrcd.is_null()) {
        // SAFETY: the id's device entry, kept live by the id's reference
        // (a QP needs a bound id, as upstream's ucma_get_xrcd assumes).
        attr.xrcd = unsafe { crate::devices::get_xrcd(id.cma_dev()) };
        if attr.xrcd.is_null() {
            return Err(errno());
        }
        attr.comp_mask |= IBV_QP_INIT_ATTR_XRCD;
    }
    let send = if !attr.send_cq.is_null() || !id.send_cq().is_null() { 0 } else { attr.cap.max_send_wr };
    let recv = if !attr.recv_cq.is_null() || !id.recv_cq().is_null() { 0 } else { attr.cap.max_recv_wr };
    create_cqs(id, send, recv)?;
    // The CQs just created (if any) are read back from the id.
    if attr.send_cq.is_null() {
        attr.send_cq = id.send_cq();
    }
    if attr.recv_cq.is_null() {
        attr.recv_cq = id.recv_cq();
    }
    let srq = id.srq();
    if !srq.is_null() && attr.srq.is_null() {
        attr.srq = srq;
    }
    // SAFETY: the id's context is open; attr is valid.
    let qp = unsafe { v::create_qp_ex(id.verbs(), attr) };
    if qp.is_null() {
        let e = errno();
        destroy_cqs(id);
        return Err(e);
    }
    let r = init_ece(id, qp)
        .and_then(|()| if id.is_ud() { init_ud_qp(id, qp) } else { init_conn_qp(id, qp) })
        .and_then(|()| refresh_local_ece(id, qp));
    if let Err(e) = r {
        // SAFETY: the QP we just created.
        unsafe { v::ibv_destroy_qp(qp) };
        destroy_cqs(id);
        return Err(e);
    }
    // SAFETY: qp is live.
    id.set_pd(unsafe { (*qp).pd });
    id.set_qp(qp);
    Ok(())
}

/// `rdma_create_qp`: the basic attributes, with `pd` or the id's PD.
pub(crate) fn create_qp(id: Id, pd: *mut ibv_pd, init: &mut ibv_qp_init_attr) -> Res<()> {
    // SAFETY: all-zero is a valid ibv_qp_init_attr_ex.
    let mut ex: ibv_qp_init_attr_ex = unsafe { core::mem::zeroed() };
    ex.qp_context = init.qp_context;
    ex.send_cq = init.send_cq;
    ex.recv_cq = init.recv_cq;
    ex.srq = init.srq;
    ex.cap = init.cap;
    ex.qp_type = init.qp_type;
    ex.sq_sig_all = init.sq_sig_all;
    ex.comp_mask = IBV_QP_INIT_ATTR_PD;
    ex.pd = if pd.is_null() { id.pd() } else { pd };
    let r = create_qp_ex(id, &mut ex);
    init.qp_context = ex.qp_context;
    init.send_cq = ex.send_cq;
    init.recv_cq = ex.recv_cq;
    init.srq = ex.srq;
    init.cap = ex.cap;
    init.qp_type = ex.qp_type;
    init.sq_sig_all = ex.sq_sig_all;
    r
}

/// `rdma_destroy_qp`.
pub(crate) fn destroy_qp(id: Id) {
    // SAFETY: the id's QP, destroyed once.
    unsafe { v::ibv_destroy_qp(id.qp()) };
    id.set_qp(null_mut());
    destroy_cqs(id);
}

/// The active side's reply handling: RTR and RTS with the device's
/// maxima, then ACCEPT (the kernel sends the RTU). On failure the QP goes
/// to ERR.
fn process_conn_resp(id: Id) -> Res<()> {
    let r = (|| {
        modify_qp_rtr(id, RDMA_MAX_RESP_RES)?;
        modify_qp_rts(id, RDMA_MAX_INIT_DEPTH)?;
        let mut body: rdma_ucm_accept = zeroed();
        body.id = id.handle();
        write_cmd(id.fd(), RDMA_USER_CM_CMD_ACCEPT, body)
    })();
    if r.is_err() {
        let _ = modify_qp_err(id);
    }
    r
}

/// The reply handling with ECE: applies the peer's answer, then
/// [`process_conn_resp`]. Returns the event status upstream reports: 0, -1
/// with errno, or a positive provider error.
pub(crate) fn process_conn_resp_ece(id: Id, ece: &rdma_ucm_ece) -> c_int {
    let mut e = ibv_ece { vendor_id: ece.vendor_id, options: ece.attr_mod, comp_mask: 0 };
    if ece.vendor_id == 0 {
        // Peer (or kernel) without ECE: clear the options.
        e.vendor_id = id.local_ece().vendor_id;
        e.options = 0;
    } else if ece.vendor_id != id.local_ece().vendor_id {
        let _ = modify_qp_err(id);
        return ret_int(Err(libc::EINVAL));
    }
    id.set_remote_ece(ibv_ece { vendor_id: ece.vendor_id, ..id.remote_ece() });
    // SAFETY: the id's QP is live.
    let ret = unsafe { v::ibv_set_ece(id.qp(), &mut e) };
    if ret != 0 && ret != libc::EOPNOTSUPP {
        return ret;
    }
    if let Err(err) = process_conn_resp(id) {
        return ret_int(Err(err));
    }
    // SAFETY: as above.
    let ret = unsafe { v::ibv_query_ece(id.qp(), &mut e) };
    if ret != 0 && ret != libc::EOPNOTSUPP {
        let _ = modify_qp_err(id);
        return ret;
    }
    let options = if ret == libc::EOPNOTSUPP { 0 } else { e.options };
    id.set_local_ece(ibv_ece { options, ..id.local_ece() });
    0
}

// ---------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------

rdma_util::export! {
    /// Asks the kernel for the attributes of the id's QP's next state.
    fn rdma_init_qp_attr(id: *mut rdma_cm_id, qp_attr: *mut ibv_qp_attr, qp_attr_mask: *mut c_int) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !qp_attr.is_null() && !qp_attr_mask.is_null(), libc::EINVAL, -1);
        // SAFETY: non-null pointers from the caller to valid objects.
        ret_int(unsafe { init_qp_attr(Id::from_cm(id), &mut *qp_attr, &mut *qp_attr_mask) })
    }
}

rdma_util::export! {
    /// Creates the id's QP (and CQs it lacks) and moves it to INIT (UD: RTS).
    fn rdma_create_qp(id: *mut rdma_cm_id, pd: *mut ibv_pd, qp_init_attr: *mut ibv_qp_init_attr) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !qp_init_attr.is_null(), libc::EINVAL, -1);
        // SAFETY: non-null attribute struct from the caller.
        ret_int(create_qp(Id::from_cm(id), pd, unsafe { &mut *qp_init_attr }))
    }
}

rdma_util::export! {
    /// Extended-attribute form of rdma_create_qp.
    fn rdma_create_qp_ex(id: *mut rdma_cm_id, qp_init_attr: *mut ibv_qp_init_attr_ex) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !qp_init_attr.is_null(), libc::EINVAL, -1);
        // SAFETY: non-null attribute struct from the caller.
        ret_int(create_qp_ex(Id::from_cm(id), unsafe { &mut *qp_init_attr }))
    }
}

rdma_util::export! {
    /// Destroys the id's QP and the CQs the CM created for it.
    fn rdma_destroy_qp(id: *mut rdma_cm_id) -> (), on_panic = ();
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL);
        destroy_qp(Id::from_cm(id))
    }
}

rdma_util::export! {
    /// Creates an SRQ on the id.
    fn rdma_create_srq(id: *mut rdma_cm_id, pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !attr.is_null(), libc::EINVAL, -1);
        // SAFETY: non-null attribute struct from the caller.
        ret_int(create_srq(Id::from_cm(id), pd, unsafe { &mut *attr }))
    }
}

rdma_util::export! {
    /// Extended-attribute form of rdma_create_srq.
    fn rdma_create_srq_ex(id: *mut rdma_cm_id, attr: *mut ibv_srq_init_attr_ex) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !attr.is_null(), libc::EINVAL, -1);
        // SAFETY: non-null attribute struct from the caller.
        ret_int(create_srq_ex(Id::from_cm(id), unsafe { &mut *attr }))
    }
}

rdma_util::export! {
    /// Destroys the id's SRQ.
    fn rdma_destroy_srq(id: *mut rdma_cm_id) -> (), on_panic = ();
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL);
        destroy_srq(Id::from_cm(id))
    }
}

rdma_util::export! {
    /// Completes a connection whose reply the application handled itself
    /// (no QP on the id): sends the RTU.
    fn rdma_establish(id: *mut rdma_cm_id) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        let id = Id::from_cm(id);
        rdma_util::ensure!(id.qp().is_null(), libc::EINVAL, -1);
        ret_int(process_conn_resp(id))
    }
}

rdma_util::export! {
    /// Sets the ECE options to offer (ids without a QP only).
    fn rdma_set_local_ece(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !ece.is_null(), libc::EINVAL, -1);
        let id = Id::from_cm(id);
        // SAFETY: non-null ECE from the caller.
        let e = unsafe { &*ece };
        rdma_util::ensure!(id.qp().is_null() && e.vendor_id != 0 && e.comp_mask == 0, libc::EINVAL, -1);
        id.set_local_ece(ibv_ece { vendor_id: e.vendor_id, options: e.options, ..id.local_ece() });
        0
    }
}

rdma_util::export! {
    /// The peer's ECE options (ids without a QP only).
    fn rdma_get_remote_ece(id: *mut rdma_cm_id, ece: *mut ibv_ece) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(!id.is_null() && !ece.is_null(), libc::EINVAL, -1);
        let id = Id::from_cm(id);
        rdma_util::ensure!(id.qp().is_null(), libc::EINVAL, -1);
        let remote = id.remote_ece();
        // SAFETY: non-null ECE from the caller.
        let e = unsafe { &mut *ece };
        e.vendor_id = remote.vendor_id;
        e.options = remote.options;
        e.comp_mask = 0;
        0
    }
}
