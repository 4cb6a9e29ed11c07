//! The control-path ops: objects made by a uverbs command, whose queues
//! the kernel then lends us through an mmap of the command fd (the create
//! command's reply names each queue's key and size).
//!
//! Each op does what upstream's does, with the same results, errno values
//! and log lines. Where upstream's order of teardown can leave a live
//! object without its queue (it unmaps a CQ's or QP's ring before the
//! destroy command, which may fail, e.g. with EBUSY for a CQ still in use),
//! the command goes first here and the ring is unmapped only once the
//! object is gone.

use core::ffi::{c_int, c_void};
use core::ptr::{self, addr_of_mut};

use rdma_abi::driver::pabi34_v44::verbs_mr;
use rdma_abi::driver::pabi65;
use rdma_abi::kern::*;
use rdma_abi::siw::*;
use rdma_abi::siw_abi::*;
use rdma_abi::verbs::*;
use rdma_abi::verbs_v65;
use rdma_provider::context::{self, NO_OPS};
use rdma_provider::queue::Mapping;
use rdma_provider::{mem, op, verbs};
use rdma_util::mem::zeroed;

use crate::cq::CompQueue;
use crate::log::siw_err;
use crate::rq::RecvQueue;
use crate::sq::SendQueue;

/// A QP: the library's `ibv_qp` first (the pointer C sees), then ours.
#[repr(C)]
pub(crate) struct SiwQp {
    pub base: ibv_qp,
    /// The kernel's QP id (for log lines).
    pub id: u32,
    pub sq: SendQueue,
    /// The QP's own receive ring; none (zeroed) when it receives through
    /// an SRQ.
    pub rq: RecvQueue,
    sq_map: Mapping,
    rq_map: Mapping,
}

/// A CQ.
#[repr(C)]
pub(crate) struct SiwCq {
    pub base: ibv_cq,
    /// The kernel's CQ id (for log lines).
    pub id: u32,
    pub cq: CompQueue,
    map: Mapping,
}

/// An SRQ.
#[repr(C)]
pub(crate) struct SiwSrq {
    pub base: ibv_srq,
    pub rq: RecvQueue,
    map: Mapping,
}

/// The ops of a siw context (rdma-core 65's layout; `rdma-provider` hands
/// 34 its part).
pub(crate) static CONTEXT_OPS: pabi65::verbs_context_ops = pabi65::verbs_context_ops {
    alloc_pd: Some(siw_alloc_pd),
    async_event: Some(siw_async_event),
    create_cq: Some(siw_create_cq),
    create_qp: Some(siw_create_qp),
    create_srq: Some(siw_create_srq),
    dealloc_pd: Some(siw_free_pd),
    dereg_mr: Some(siw_dereg_mr),
    destroy_cq: Some(siw_destroy_cq),
    destroy_qp: Some(siw_destroy_qp),
    destroy_srq: Some(siw_destroy_srq),
    free_context: Some(siw_free_context),
    modify_qp: Some(siw_modify_qp),
    modify_srq: Some(siw_modify_srq),
    poll_cq: Some(crate::datapath::siw_poll_cq),
    post_recv: Some(crate::datapath::siw_post_recv),
    post_send: Some(crate::datapath::siw_post_send),
    post_srq_recv: Some(crate::datapath::siw_post_srq_recv),
    query_device_ex: Some(siw_query_device),
    query_port: Some(siw_query_port),
    query_qp: Some(siw_query_qp),
    reg_mr: Some(siw_reg_mr),
    req_notify_cq: Some(crate::datapath::siw_notify_cq),
    ..NO_OPS
};

op! {
    fn siw_free_context(ctx: *mut ibv_context);
    {
        // SAFETY: one of our contexts, which the library is closing.
        unsafe { context::free_context(crate::frame_of(ctx)) }
    }
}

/// `"%d.%d.%d"` of the three 16-bit parts of `fw`, NUL-terminated, into
/// `out` (upstream's snprintf; the text always fits in 64 bytes).
fn format_fw_ver(fw: u64, out: &mut [core::ffi::c_char; 64]) {
    let mut n = 0;
    for (i, shift) in [32u32, 16, 0].into_iter().enumerate() {
        if i > 0 {
            out[n] = b'.' as core::ffi::c_char;
            n += 1;
        }
        let part = (fw >> shift) & 0xffff;
        let mut digits = [0u8; 5];
        let mut len = 0;
        let mut x = part;
        loop {
            digits[len] = b'0' + (x % 10) as u8;
            len += 1;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        for d in digits[..len].iter().rev() {
            out[n] = *d as core::ffi::c_char;
            n += 1;
        }
    }
    out[n] = 0;
}

op! {
    /// The generic query, with the firmware version as siw spells it.
    fn siw_query_device(
        context: *mut ibv_context,
        input: *const ibv_query_device_ex_input,
        attr: *mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> c_int, on_panic = libc::EIO;
    {
        let mut resp: ib_uverbs_ex_query_device_resp = Default::default();
        let mut resp_size = size_of::<ib_uverbs_ex_query_device_resp>();
        // SAFETY: the caller's arguments; our response buffer and its size.
        let rv = unsafe {
            (verbs().cmd_query_device_any)(context, input, attr, attr_size, &mut resp, &mut resp_size)
        };
        if rv != 0 {
            return rv;
        }
        // SAFETY: the query succeeded, so attr holds at least orig_attr.
        format_fw_ver(resp.base.fw_ver, unsafe { &mut (*attr).orig_attr.fw_ver });
        0
    }
}

op! {
    fn siw_query_port(ctx: *mut ibv_context, port: u8, attr: *mut verbs_v65::ibv_port_attr) -> c_int,
        on_panic = libc::EIO;
    {
        let mut cmd: ibv_query_port = Default::default();
        // SAFETY: the caller's arguments (the attributes of the size this
        // ABI's library asked for); a local command.
        unsafe { verbs().cmd_query_port(ctx, port, attr, &mut cmd, size_of::<ibv_query_port>()) }
    }
}

op! {
    fn siw_query_qp(
        qp: *mut ibv_qp,
        attr: *mut ibv_qp_attr,
        attr_mask: c_int,
        init_attr: *mut ibv_qp_init_attr,
    ) -> c_int, on_panic = libc::EIO;
    {
        let mut cmd: ibv_query_qp = Default::default();
        // SAFETY: the caller's arguments; a local command.
        unsafe { (verbs().cmd_query_qp)(qp, attr, attr_mask, init_attr, &mut cmd, size_of::<ibv_query_qp>()) }
    }
}

op! {
    fn siw_alloc_pd(ctx: *mut ibv_context) -> *mut ibv_pd, on_panic = ptr::null_mut();
    {
        let pd = mem::calloc::<ibv_pd>();
        if pd.is_null() {
            return ptr::null_mut();
        }
        let mut cmd: ibv_alloc_pd = Default::default();
        let mut resp: ib_uverbs_alloc_pd_resp = Default::default();
        // SAFETY: a fresh PD; local command buffers.
        let rv = unsafe {
            (verbs().cmd_alloc_pd)(
                ctx,
                pd,
                &mut cmd,
                size_of::<ibv_alloc_pd>(),
                &mut resp,
                size_of::<ib_uverbs_alloc_pd_resp>(),
            )
        };
        if rv != 0 {
            // SAFETY: ours, unused.
            unsafe { mem::free(pd) };
            return ptr::null_mut();
        }
        pd
    }
}

op! {
    fn siw_free_pd(pd: *mut ibv_pd) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our PDs.
        let rv = unsafe { (verbs().cmd_dealloc_pd)(pd) };
        if rv != 0 {
            return rv;
        }
        // SAFETY: gone in the kernel; ours to free.
        unsafe { mem::free(pd) };
        0
    }
}

op! {
    fn siw_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, len: usize, hca_va: u64, access: c_int) -> *mut ibv_mr,
        on_panic = ptr::null_mut();
    {
        let mr = mem::calloc::<verbs_mr>();
        if mr.is_null() {
            return ptr::null_mut();
        }
        let mut cmd: siw_cmd_reg_mr = zeroed();
        let mut resp: siw_cmd_reg_mr_resp = zeroed();
        // SAFETY: a fresh MR; local command buffers of the sizes passed.
        let rv = unsafe {
            (verbs().cmd_reg_mr)(
                pd,
                addr,
                len,
                hca_va,
                access,
                mr,
                &mut cmd.ibv_cmd,
                size_of::<siw_cmd_reg_mr>(),
                &mut resp.ibv_resp,
                size_of::<siw_cmd_reg_mr_resp>(),
            )
        };
        if rv != 0 {
            // SAFETY: ours, unused.
            unsafe { mem::free(mr) };
            return ptr::null_mut();
        }
        // SAFETY: ibv_mr is the first member.
        unsafe { addr_of_mut!((*mr).ibv_mr) }
    }
}

op! {
    fn siw_dereg_mr(mr: *mut verbs_mr) -> c_int, on_panic = libc::EIO;
    {
        // SAFETY: one of our MRs.
        let rv = unsafe { (verbs().cmd_dereg_mr)(mr) };
        if rv != 0 {
            return rv;
        }
        // SAFETY: gone in the kernel; ours to free.
        unsafe { mem::free(mr) };
        0
    }
}

/// Maps a ring for an object being created; on failure errno is the
/// mapping's error (mmap's, or EINVAL for an empty ring, as mmap answers a
/// zero length).
fn map_ring(fd: c_int, key: u64, len: usize) -> Option<Mapping> {
    match Mapping::map(fd, key, len) {
        Ok(m) => Some(m),
        Err(e) => {
            rdma_provider::set_errno(e);
            None
        }
    }
}

op! {
    fn siw_create_cq(ctx: *mut ibv_context, num_cqe: c_int, channel: *mut ibv_comp_channel, comp_vector: c_int)
        -> *mut ibv_cq, on_panic = ptr::null_mut();
    {
        let cq = mem::calloc::<SiwCq>();
        if cq.is_null() {
            return ptr::null_mut();
        }
        let v = verbs();
        let mut cmd: ibv_create_cq = Default::default();
        let mut resp: siw_cmd_create_cq_resp = zeroed();
        // SAFETY: a fresh CQ; local command buffers of the sizes passed.
        let rv = unsafe {
            (v.cmd_create_cq)(
                ctx,
                num_cqe,
                channel,
                comp_vector,
                addr_of_mut!((*cq).base),
                &mut cmd,
                size_of::<ibv_create_cq>(),
                &mut resp.ibv_resp,
                size_of::<siw_cmd_create_cq_resp>(),
            )
        };
        if rv != 0 {
            siw_err!(ctx, "siw_create_cq", 152, "libsiw: CQ creation failed: %d\n", rv);
            // SAFETY: ours, unused.
            unsafe { mem::free(cq) };
            return ptr::null_mut();
        }
        let r = resp.drv_payload;
        if r.cq_key == SIW_INVAL_UOBJ_KEY as u64 {
            siw_err!(ctx, "siw_create_cq", 158, "libsiw: prepare CQ mapping failed\n");
        } else if !r.num_cqe.is_power_of_two() {
            // The kernel sizes CQs to powers of two; anything else would
            // not index as its producer does.
            rdma_provider::set_errno(libc::EINVAL);
        } else {
            // SAFETY: ctx is a live context.
            let fd = unsafe { (*ctx).cmd_fd };
            let len = r.num_cqe as usize * size_of::<siw_cqe>() + size_of::<siw_cq_ctrl>();
            if let Some(m) = map_ring(fd, r.cq_key, len) {
                // SAFETY: the fresh CQ; the mapping holds num_cqe CQEs and the
                // control word.
                unsafe {
                    (*cq).id = r.cq_id;
                    (*cq).map = m;
                    (*cq).cq.init(m.addr.cast(), r.num_cqe);
                    return addr_of_mut!((*cq).base);
                }
            }
            siw_err!(ctx, "siw_create_cq", 173, "libsiw: CQ mapping failed: %d", rdma_provider::errno());
        }
        // SAFETY: the CQ the kernel made; then ours to free.
        unsafe {
            (v.cmd_destroy_cq)(addr_of_mut!((*cq).base));
            mem::free(cq);
        }
        ptr::null_mut()
    }
}

op! {
    fn siw_destroy_cq(base: *mut ibv_cq) -> c_int, on_panic = libc::EIO;
    {
        let cq = base as *mut SiwCq;
        // SAFETY: one of our CQs.
        let rv = unsafe { (verbs().cmd_destroy_cq)(base) };
        if rv != 0 {
            return rv;
        }
        // SAFETY: gone in the kernel: forget and unmap the ring, free ours.
        unsafe {
            (*cq).cq.retire();
            (*cq).map.unmap();
            mem::free(cq);
        }
        0
    }
}

op! {
    fn siw_create_srq(pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> *mut ibv_srq, on_panic = ptr::null_mut();
    {
        let srq = mem::calloc::<SiwSrq>();
        if srq.is_null() {
            return ptr::null_mut();
        }
        let v = verbs();
        // SAFETY: a live PD.
        let ctx = unsafe { (*pd).context };
        let mut cmd: ibv_create_srq = Default::default();
        let mut resp: siw_cmd_create_srq_resp = zeroed();
        // SAFETY: a fresh SRQ; local command buffers.
        let rv = unsafe {
            (v.cmd_create_srq)(
                pd,
                addr_of_mut!((*srq).base),
                attr,
                &mut cmd,
                size_of::<ibv_create_srq>(),
                &mut resp.ibv_resp,
                size_of::<siw_cmd_create_srq_resp>(),
            )
        };
        if rv != 0 {
            siw_err!(ctx, "siw_create_srq", 227, "libsiw: creating SRQ failed\n");
            // SAFETY: ours, unused.
            unsafe { mem::free(srq) };
            return ptr::null_mut();
        }
        let r = resp.drv_payload;
        if r.srq_key == SIW_INVAL_UOBJ_KEY as u64 {
            siw_err!(ctx, "siw_create_srq", 233, "libsiw: prepare SRQ mapping failed\n");
        } else if !r.num_rqe.is_power_of_two() {
            rdma_provider::set_errno(libc::EINVAL);
        } else {
            // SAFETY: ctx is live.
            let fd = unsafe { (*ctx).cmd_fd };
            if let Some(m) = map_ring(fd, r.srq_key, r.num_rqe as usize * size_of::<siw_rqe>()) {
                // SAFETY: the fresh SRQ and its ring of num_rqe RQEs.
                unsafe {
                    (*srq).map = m;
                    (*srq).rq.init(m.addr.cast(), r.num_rqe);
                    return addr_of_mut!((*srq).base);
                }
            }
            siw_err!(ctx, "siw_create_srq", 245, "libsiw: SRQ mapping failed: %d", rdma_provider::errno());
        }
        // SAFETY: the SRQ the kernel made; then ours to free.
        unsafe {
            (v.cmd_destroy_srq)(addr_of_mut!((*srq).base));
            mem::free(srq);
        }
        ptr::null_mut()
    }
}

op! {
    fn siw_modify_srq(base: *mut ibv_srq, attr: *mut ibv_srq_attr, attr_mask: c_int) -> c_int, on_panic = libc::EIO;
    {
        let srq = base as *mut SiwSrq;
        let mut cmd: ibv_modify_srq = Default::default();
        // SAFETY: one of our SRQs; its lock is held around the command, as
        // upstream holds it.
        unsafe {
            (*srq).rq.lock().with(|| {
                (verbs().cmd_modify_srq)(base, attr, attr_mask, &mut cmd, size_of::<ibv_modify_srq>())
            })
        }
    }
}

op! {
    fn siw_destroy_srq(base: *mut ibv_srq) -> c_int, on_panic = libc::EIO;
    {
        let srq = base as *mut SiwSrq;
        // SAFETY: one of our SRQs.
        let rv = unsafe { (verbs().cmd_destroy_srq)(base) };
        if rv != 0 {
            return rv;
        }
        // SAFETY: gone in the kernel.
        unsafe {
            (*srq).rq.retire();
            (*srq).map.unmap();
            mem::free(srq);
        }
        0
    }
}

op! {
    fn siw_create_qp(pd: *mut ibv_pd, attr: *mut ibv_qp_init_attr) -> *mut ibv_qp, on_panic = ptr::null_mut();
    {
        let qp = mem::calloc::<SiwQp>();
        if qp.is_null() {
            return ptr::null_mut();
        }
        let v = verbs();
        // SAFETY: a live PD.
        let ctx = unsafe { (*pd).context };
        let mut cmd: ibv_create_qp = Default::default();
        let mut resp: siw_cmd_create_qp_resp = zeroed();
        // SAFETY: a fresh QP; local command buffers.
        let rv = unsafe {
            (v.cmd_create_qp)(
                pd,
                addr_of_mut!((*qp).base),
                attr,
                &mut cmd,
                size_of::<ibv_create_qp>(),
                &mut resp.ibv_resp,
                size_of::<siw_cmd_create_qp_resp>(),
            )
        };
        if rv != 0 {
            siw_err!(ctx, "siw_create_qp", 313, "libsiw: QP creation failed\n");
            // SAFETY: ours, unused.
            unsafe { mem::free(qp) };
            return ptr::null_mut();
        }
        // SAFETY: the fresh QP, ours alone until returned.
        if unsafe { setup_qp(qp, ctx, attr, &resp.drv_payload) } {
            // SAFETY: as above.
            return unsafe { addr_of_mut!((*qp).base) };
        }
        // SAFETY: the QP the kernel made; then its rings and ours.
        unsafe {
            (v.cmd_destroy_qp)(addr_of_mut!((*qp).base));
            (*qp).sq_map.unmap();
            (*qp).rq_map.unmap();
            mem::free(qp);
        }
        ptr::null_mut()
    }
}

/// Maps a new QP's rings and sets up its queues; false (logged as
/// upstream logs) if that fails.
///
/// # Safety
/// `qp` is a created QP not yet handed out; `ctx` its context; `attr` the
/// caller's init attributes.
unsafe fn setup_qp(
    qp: *mut SiwQp,
    ctx: *mut ibv_context,
    attr: *const ibv_qp_init_attr,
    r: &siw_uresp_create_qp,
) -> bool {
    if r.sq_key == SIW_INVAL_UOBJ_KEY as u64 || r.rq_key == SIW_INVAL_UOBJ_KEY as u64 {
        siw_err!(
            ctx,
            "siw_create_qp",
            320,
            "libsiw: prepare QP mapping failed\n"
        );
        return false;
    }
    // SAFETY: the caller's attributes.
    let (srq, sig_all) = unsafe { ((*attr).srq, (*attr).sq_sig_all != 0) };
    if !r.num_sqe.is_power_of_two()
        || (srq.is_null() && r.num_rqe != 0 && !r.num_rqe.is_power_of_two())
    {
        rdma_provider::set_errno(libc::EINVAL);
        return false;
    }
    // SAFETY: ctx is live.
    let fd = unsafe { (*ctx).cmd_fd };
    let Some(sq) = map_ring(fd, r.sq_key, r.num_sqe as usize * size_of::<siw_sqe>()) else {
        siw_err!(
            ctx,
            "siw_create_qp",
            347,
            "libsiw: SQ mapping failed: %d",
            rdma_provider::errno()
        );
        return false;
    };
    // SAFETY: the caller's fresh QP, ours alone.
    unsafe {
        (*qp).id = r.qp_id;
        (*qp).sq_map = sq;
    }
    if srq.is_null() {
        let Some(rq) = map_ring(fd, r.rq_key, r.num_rqe as usize * size_of::<siw_rqe>()) else {
            siw_err!(
                ctx,
                "siw_create_qp",
                362,
                "libsiw: RQ mapping failed: %d\n",
                r.num_rqe
            );
            return false;
        };
        // SAFETY: as above; the ring holds num_rqe RQEs.
        unsafe {
            (*qp).rq_map = rq;
            (*qp).rq.init(rq.addr.cast(), r.num_rqe);
        }
    }
    // SAFETY: as above; the ring holds num_sqe SQEs.
    unsafe {
        let handle = (*qp).base.handle;
        (*qp)
            .sq
            .init(sq.addr.cast(), r.num_sqe, sig_all, fd, handle);
    }
    true
}

op! {
    /// Holds both queue locks around the command, as upstream does: no post
    /// overlaps a state change.
    fn siw_modify_qp(base: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int, on_panic = libc::EIO;
    {
        let qp = base as *mut SiwQp;
        let mut cmd: ibv_modify_qp = Default::default();
        // SAFETY: one of our QPs; a local command.
        unsafe {
            (*qp).sq.lock().with(|| {
                (*qp).rq.lock().with(|| {
                    (verbs().cmd_modify_qp)(base, attr, attr_mask, &mut cmd, size_of::<ibv_modify_qp>())
                })
            })
        }
    }
}

op! {
    fn siw_destroy_qp(base: *mut ibv_qp) -> c_int, on_panic = libc::EIO;
    {
        let qp = base as *mut SiwQp;
        // SAFETY: one of our QPs.
        let rv = unsafe { (verbs().cmd_destroy_qp)(base) };
        if rv != 0 {
            return rv;
        }
        // SAFETY: gone in the kernel.
        unsafe {
            (*qp).sq.retire();
            (*qp).rq.retire();
            (*qp).sq_map.unmap();
            (*qp).rq_map.unmap();
            mem::free(qp);
        }
        0
    }
}

op! {
    /// Logs the error events, as upstream does.
    fn siw_async_event(ctx: *mut ibv_context, event: *mut ibv_async_event);
    {
        // SAFETY: the library's event, whose element is one of our objects
        // for the event types read here.
        let (kind, el) = unsafe { ((*event).event_type, (*event).element) };
        // SAFETY: as above.
        let qp_id = || unsafe { (*(el.qp as *mut SiwQp)).id };
        match kind {
            IBV_EVENT_CQ_ERR => {
                // SAFETY: as above.
                let id = unsafe { (*(el.cq as *mut SiwCq)).id };
                siw_err!(ctx, "siw_async_event", 440, "libsiw: CQ[%d] event: error\n", id);
            }
            IBV_EVENT_QP_FATAL => {
                siw_err!(ctx, "siw_async_event", 445, "libsiw: QP[%d] event: fatal error\n", qp_id());
            }
            IBV_EVENT_QP_REQ_ERR => {
                siw_err!(ctx, "siw_async_event", 451, "libsiw: QP[%d] event: request error\n", qp_id());
            }
            IBV_EVENT_QP_ACCESS_ERR => {
                siw_err!(ctx, "siw_async_event", 457, "libsiw: QP[%d] event: access error\n", qp_id());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::format_fw_ver;

    #[test]
    fn firmware_version_as_snprintf() {
        let mut out = [0x55 as core::ffi::c_char; 64];
        format_fw_ver(0x0001_0002_0003, &mut out);
        // SAFETY: NUL-terminated by format_fw_ver.
        let s = unsafe { core::ffi::CStr::from_ptr(out.as_ptr()) };
        assert_eq!(s.to_bytes(), b"1.2.3");
        format_fw_ver(u64::MAX, &mut out);
        // SAFETY: as above.
        let s = unsafe { core::ffi::CStr::from_ptr(out.as_ptr()) };
        assert_eq!(s.to_bytes(), b"65535.65535.65535");
        format_fw_ver(0, &mut out);
        // SAFETY: as above.
        let s = unsafe { core::ffi::CStr::from_ptr(out.as_ptr()) };
        assert_eq!(s.to_bytes(), b"0.0.0");
    }
}
