//! The data-path op entry points: each finds our object behind the C
//! pointer (it is the object's first member) and hands over to the ring
//! code of [`crate::sq`], [`crate::rq`] and [`crate::cq`]. Log lines are
//! written only on the cold paths, as upstream's.
//!
//! A null `bad_wr` (upstream would write through it) is tolerated: the
//! bad request is then simply not reported.

use core::ffi::c_int;

use rdma_abi::siw::SIW_MAX_INLINE;
use rdma_abi::verbs::*;
use rdma_provider::op;

use crate::log::siw_err;
use crate::rq::RqFault;
use crate::sq::SqFault;
use crate::verbs_ops::{SiwCq, SiwQp, SiwSrq};

/// What a panic in a data-path op returns: siw's data path reports errors
/// as negative errno values.
const PANICKED: c_int = -libc::EIO;

op! {
    pub(crate) fn siw_post_send(qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad_wr: *mut *mut ibv_send_wr) -> c_int,
        on_panic = PANICKED;
    {
        let q = qp as *mut SiwQp;
        // SAFETY: one of our QPs; the chain is the caller's.
        unsafe { (*q).sq.post(wr, bad_wr, |f| send_fault(q, f)) }
    }
}

/// Upstream's log line for a refused send request.
#[cold]
#[inline(never)]
fn send_fault(q: *mut SiwQp, f: SqFault) {
    // SAFETY: a live QP of ours.
    let (ctx, id) = unsafe { ((*q).base.context, (*q).id) };
    match f {
        SqFault::Opcode(op) => siw_err!(
            ctx,
            "push_send_wqe",
            534,
            "libsiw: opcode %d unsupported\n",
            op
        ),
        SqFault::Inline(bytes) => {
            siw_err!(
                ctx,
                "push_send_wqe",
                549,
                "libsiw: inline data: %d:%d\n",
                bytes,
                SIW_MAX_INLINE as c_int
            )
        }
        SqFault::Full(idx) => siw_err!(
            ctx,
            "siw_post_send",
            607,
            "libsiw: QP[%d]: SQ overflow, idx %d\n",
            id,
            idx
        ),
        SqFault::Sgl => {}
    }
}

op! {
    pub(crate) fn siw_post_recv(qp: *mut ibv_qp, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr) -> c_int,
        on_panic = PANICKED;
    {
        let q = qp as *mut SiwQp;
        // SAFETY: one of our QPs; the chain is the caller's.
        unsafe { (*q).rq.post(wr, bad_wr, |f| recv_fault(q, f)) }
    }
}

#[cold]
#[inline(never)]
fn recv_fault(q: *mut SiwQp, f: RqFault) {
    if let RqFault::Full(idx) = f {
        // SAFETY: a live QP of ours.
        let (ctx, id) = unsafe { ((*q).base.context, (*q).id) };
        siw_err!(
            ctx,
            "siw_post_recv",
            694,
            "libsiw: QP[%d]: RQ overflow, idx %d\n",
            id,
            idx
        );
    }
}

op! {
    pub(crate) fn siw_post_srq_recv(srq: *mut ibv_srq, wr: *mut ibv_recv_wr, bad_wr: *mut *mut ibv_recv_wr) -> c_int,
        on_panic = PANICKED;
    {
        let s = srq as *mut SiwSrq;
        // SAFETY: one of our SRQs; the chain is the caller's.
        unsafe { (*s).rq.post(wr, bad_wr, |f| srq_fault(s, f)) }
    }
}

#[cold]
#[inline(never)]
fn srq_fault(s: *mut SiwSrq, f: RqFault) {
    if let RqFault::Full(_) = f {
        // SAFETY: a live SRQ of ours.
        let ctx = unsafe { (*s).base.context };
        siw_err!(
            ctx,
            "siw_post_srq_recv",
            735,
            "libsiw: SRQ[%p]: SRQ overflow\n",
            s
        );
    }
}

op! {
    pub(crate) fn siw_poll_cq(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int, on_panic = PANICKED;
    {
        // SAFETY: one of our CQs; wc has room for num_entries (the caller's).
        unsafe { (*(cq as *mut SiwCq)).cq.poll(num_entries, wc) }
    }
}

op! {
    /// Arms the CQ through the shared control word: no system call.
    pub(crate) fn siw_notify_cq(cq: *mut ibv_cq, solicited: c_int) -> c_int, on_panic = PANICKED;
    {
        // SAFETY: one of our CQs.
        unsafe { (*(cq as *mut SiwCq)).cq.arm(solicited) }
    }
}
