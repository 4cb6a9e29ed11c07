//! The libibverbs.so.1 functions librdmacm calls, and Rust versions of the
//! `static inline` helpers of `<infiniband/verbs.h>` it uses (those are not
//! exported symbols: like the C inlines they go through the context's ops).
//!
//! The imports bind at run time to whichever libibverbs.so.1 the process
//! has (ours with LD_LIBRARY_PATH=target/release, otherwise Debian's); the
//! symbol versions recorded at link time are upstream's.
#![allow(clippy::missing_safety_doc)]

use crate::abi::kern::{ib_uverbs_ah_attr, ib_uverbs_qp_attr};
use crate::abi::verbs::*;
use core::ffi::{c_char, c_int, c_void};
use core::mem::offset_of;

extern "C" {
    pub(crate) fn ibv_get_device_list(num_devices: *mut c_int) -> *mut *mut ibv_device;
    pub(crate) fn ibv_free_device_list(list: *mut *mut ibv_device);
    pub(crate) fn ibv_get_device_guid(device: *mut ibv_device) -> u64;
    pub(crate) fn ibv_get_device_index(device: *mut ibv_device) -> c_int;
    pub(crate) fn ibv_open_device(device: *mut ibv_device) -> *mut ibv_context;
    pub(crate) fn ibv_close_device(context: *mut ibv_context) -> c_int;
    pub(crate) fn ibv_query_device(context: *mut ibv_context, attr: *mut ibv_device_attr) -> c_int;
    /// The exported (compat-layout) port query; see [`query_port`].
    #[link_name = "ibv_query_port"]
    fn ibv_query_port_compat(
        context: *mut ibv_context,
        port_num: u8,
        port_attr: *mut _compat_ibv_port_attr,
    ) -> c_int;
    pub(crate) fn ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd;
    pub(crate) fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int;
    pub(crate) fn ibv_create_comp_channel(context: *mut ibv_context) -> *mut ibv_comp_channel;
    pub(crate) fn ibv_destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int;
    pub(crate) fn ibv_create_cq(
        context: *mut ibv_context,
        cqe: c_int,
        cq_context: *mut c_void,
        channel: *mut ibv_comp_channel,
        comp_vector: c_int,
    ) -> *mut ibv_cq;
    pub(crate) fn ibv_destroy_cq(cq: *mut ibv_cq) -> c_int;
    pub(crate) fn ibv_create_qp(pd: *mut ibv_pd, attr: *mut ibv_qp_init_attr) -> *mut ibv_qp;
    pub(crate) fn ibv_modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int;
    pub(crate) fn ibv_destroy_qp(qp: *mut ibv_qp) -> c_int;
    pub(crate) fn ibv_create_srq(pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> *mut ibv_srq;
    pub(crate) fn ibv_destroy_srq(srq: *mut ibv_srq) -> c_int;
    pub(crate) fn ibv_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;
    pub(crate) fn ibv_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int;
    pub(crate) fn ibv_get_pkey_index(context: *mut ibv_context, port_num: u8, pkey: u16) -> c_int;
    pub(crate) fn ibv_query_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int;
    pub(crate) fn ibv_set_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int;
    pub(crate) fn ibv_copy_path_rec_from_kern(dst: *mut ibv_sa_path_rec, src: *mut ib_user_path_rec);
    pub(crate) fn ibv_copy_qp_attr_from_kern(dst: *mut ibv_qp_attr, src: *mut ib_uverbs_qp_attr);
    pub(crate) fn ibv_copy_ah_attr_from_kern(dst: *mut ibv_ah_attr, src: *mut ib_uverbs_ah_attr);
    pub(crate) fn ibv_get_sysfs_path() -> *const c_char;
    /// The exported registration (what verbs.h's `ibv_reg_mr` macro calls
    /// for access flags without optional bits, as rsockets uses).
    pub(crate) fn ibv_reg_mr(pd: *mut ibv_pd, addr: *mut c_void, length: usize, access: c_int) -> *mut ibv_mr;
    pub(crate) fn ibv_dereg_mr(mr: *mut ibv_mr) -> c_int;
    // Used by datagram rsockets (address handles for UD sends).
    pub(crate) fn ibv_create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah;
    pub(crate) fn ibv_destroy_ah(ah: *mut ibv_ah) -> c_int;
    pub(crate) fn ibv_query_gid(context: *mut ibv_context, port_num: u8, index: c_int, gid: *mut ibv_gid) -> c_int;
    /// What verbs.h's inline `ibv_query_gid_ex` calls (entry size last).
    pub(crate) fn _ibv_query_gid_ex(context: *mut ibv_context, port_num: u32, gid_index: u32, entry: *mut ibv_gid_entry, flags: u32, entry_size: usize) -> c_int;
    pub(crate) fn ibv_get_cq_event(
        channel: *mut ibv_comp_channel,
        cq: *mut *mut ibv_cq,
        cq_context: *mut *mut c_void,
    ) -> c_int;
    pub(crate) fn ibv_ack_cq_events(cq: *mut ibv_cq, nevents: core::ffi::c_uint);
    pub(crate) fn ibv_read_sysfs_file(
        dir: *const c_char,
        file: *const c_char,
        buf: *mut c_char,
        size: usize,
    ) -> c_int;
}

/// `verbs_get_ctx`: the extended context around `ctx`, if it has one.
///
/// # Safety
/// `ctx` must point to a live context.
unsafe fn verbs_get_ctx(ctx: *mut ibv_context) -> *mut verbs_context {
    // SAFETY: the caller guarantees ctx is live.
    if unsafe { (*ctx).abi_compat } != __VERBS_ABI_IS_EXTENDED {
        return core::ptr::null_mut();
    }
    // SAFETY: an extended context is the trailing `context` member of a
    // verbs_context, so stepping back by that member's offset stays inside
    // the same allocation.
    unsafe {
        ctx.cast::<u8>()
            .sub(offset_of!(verbs_context, context))
            .cast::<verbs_context>()
    }
}

/// `verbs_get_ctx_op`: the extended context if the provider's copy is large
/// enough to hold the op at `op_offset` (from the start of verbs_context).
///
/// # Safety
/// `ctx` must point to a live context.
unsafe fn ctx_with_op(ctx: *mut ibv_context, op_offset: usize) -> Option<&'static verbs_context> {
    // SAFETY: forwarded contract.
    let v = unsafe { verbs_get_ctx(ctx) };
    if v.is_null() {
        return None;
    }
    // SAFETY: v is the live extended context of ctx.
    let v = unsafe { &*v };
    let needed = core::mem::size_of::<verbs_context>() - op_offset;
    (v.sz >= needed).then_some(v)
}

/// The inline `ibv_query_port` of verbs.h: the provider's extended op when
/// present, else the exported compat function on a zeroed struct.
///
/// # Safety
/// `ctx` must point to a live context.
pub(crate) unsafe fn query_port(ctx: *mut ibv_context, port: u8, attr: &mut ibv_port_attr) -> c_int {
    // SAFETY: forwarded contract.
    if let Some(v) = unsafe { ctx_with_op(ctx, offset_of!(verbs_context, query_port)) } {
        if let Some(op) = v.query_port {
            // SAFETY: provider op with its documented arguments.
            return unsafe { op(ctx, port, attr, core::mem::size_of::<ibv_port_attr>()) };
        }
    }
    // SAFETY: all-zero is a valid ibv_port_attr (integers only).
    *attr = unsafe { core::mem::zeroed() };
    // SAFETY: the compat struct is a prefix of ibv_port_attr, as in the C inline.
    unsafe { ibv_query_port_compat(ctx, port, (attr as *mut ibv_port_attr).cast()) }
}

/// The inline `ibv_create_qp_ex`.
///
/// # Safety
/// `ctx` must be live and `attr` valid.
pub(crate) unsafe fn create_qp_ex(ctx: *mut ibv_context, attr: *mut ibv_qp_init_attr_ex) -> *mut ibv_qp {
    // SAFETY: caller guarantees attr is valid.
    let a = unsafe { &mut *attr };
    if a.comp_mask == IBV_QP_INIT_ATTR_PD {
        // SAFETY: ibv_qp_init_attr is the leading part of ibv_qp_init_attr_ex.
        return unsafe { ibv_create_qp(a.pd, attr.cast()) };
    }
    // SAFETY: forwarded contract.
    match unsafe { ctx_with_op(ctx, offset_of!(verbs_context, create_qp_ex)) }.and_then(|v| v.create_qp_ex) {
        // SAFETY: provider op with its documented arguments.
        Some(op) => unsafe { op(ctx, attr) },
        None => {
            rdma_util::ffi::set_errno(libc::EOPNOTSUPP);
            core::ptr::null_mut()
        }
    }
}

/// The inline `ibv_create_srq_ex`.
///
/// # Safety
/// `ctx` must be live and `attr` valid.
pub(crate) unsafe fn create_srq_ex(ctx: *mut ibv_context, attr: *mut ibv_srq_init_attr_ex) -> *mut ibv_srq {
    // SAFETY: caller guarantees attr is valid.
    let a = unsafe { &mut *attr };
    let mask = a.comp_mask;
    if mask & !(IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE) == 0
        && mask & IBV_SRQ_INIT_ATTR_PD != 0
        && (mask & IBV_SRQ_INIT_ATTR_TYPE == 0 || a.srq_type == IBV_SRQT_BASIC)
    {
        // SAFETY: ibv_srq_init_attr is the leading part of the _ex struct.
        return unsafe { ibv_create_srq(a.pd, attr.cast()) };
    }
    // SAFETY: forwarded contract.
    match unsafe { ctx_with_op(ctx, offset_of!(verbs_context, create_srq_ex)) }.and_then(|v| v.create_srq_ex) {
        // SAFETY: provider op with its documented arguments.
        Some(op) => unsafe { op(ctx, attr) },
        None => {
            rdma_util::ffi::set_errno(libc::EOPNOTSUPP);
            core::ptr::null_mut()
        }
    }
}

/// The inline `ibv_open_xrcd`.
///
/// # Safety
/// `ctx` must be live.
pub(crate) unsafe fn open_xrcd(ctx: *mut ibv_context, attr: &mut ibv_xrcd_init_attr) -> *mut ibv_xrcd {
    // SAFETY: forwarded contract.
    match unsafe { ctx_with_op(ctx, offset_of!(verbs_context, open_xrcd)) }.and_then(|v| v.open_xrcd) {
        // SAFETY: provider op with its documented arguments.
        Some(op) => unsafe { op(ctx, attr) },
        None => {
            rdma_util::ffi::set_errno(libc::EOPNOTSUPP);
            core::ptr::null_mut()
        }
    }
}

/// The inline `ibv_close_xrcd` (which, like the C, assumes the op exists
/// since the xrcd was opened through it).
///
/// # Safety
/// `xrcd` must be live.
pub(crate) unsafe fn close_xrcd(xrcd: *mut ibv_xrcd) -> c_int {
    // SAFETY: a live xrcd's context is live.
    let v = unsafe { verbs_get_ctx((*xrcd).context) };
    // SAFETY: xrcds only exist on extended contexts; v is live.
    match (!v.is_null()).then(|| unsafe { (*v).close_xrcd }).flatten() {
        // SAFETY: provider op with its documented arguments.
        Some(op) => unsafe { op(xrcd) },
        None => libc::EOPNOTSUPP,
    }
}

/// The inline `ibv_post_send`: the context's op.
///
/// # Safety
/// `qp` must be live and `wr` a valid chain.
#[inline]
pub(crate) unsafe fn post_send(qp: *mut ibv_qp, wr: *mut ibv_send_wr, bad: *mut *mut ibv_send_wr) -> c_int {
    // SAFETY: a live QP's context is live; its ops were set by the provider.
    match unsafe { (*(*qp).context).ops.post_send } {
        // SAFETY: provider op with its documented arguments.
        Some(op) => unsafe { op(qp, wr, bad) },
        None => libc::EOPNOTSUPP,
    }
}

/// The inline `ibv_post_recv`: the context's op.
///
/// # Safety
/// `qp` must be live and `wr` a valid chain.
#[inline]
pub(crate) unsafe fn post_recv(qp: *mut ibv_qp, wr: *mut ibv_recv_wr, bad: *mut *mut ibv_recv_wr) -> c_int {
    // SAFETY: as in post_send.
    match unsafe { (*(*qp).context).ops.post_recv } {
        // SAFETY: provider op with its documented arguments.
        Some(op) => unsafe { op(qp, wr, bad) },
        None => libc::EOPNOTSUPP,
    }
}

/// The inline `ibv_poll_cq`.
///
/// # Safety
/// `cq` must be live and `wc` hold `n` entries.
#[inline]
pub(crate) unsafe fn poll_cq(cq: *mut ibv_cq, n: c_int, wc: *mut ibv_wc) -> c_int {
    // SAFETY: a live CQ's context is live.
    match unsafe { (*(*cq).context).ops.poll_cq } {
        // SAFETY: provider op with its documented arguments.
        Some(op) => unsafe { op(cq, n, wc) },
        None => -1,
    }
}

/// The inline `ibv_req_notify_cq`.
///
/// # Safety
/// `cq` must be live.
#[inline]
pub(crate) unsafe fn req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    // SAFETY: a live CQ's context is live.
    match unsafe { (*(*cq).context).ops.req_notify_cq } {
        // SAFETY: provider op with its documented arguments.
        Some(op) => unsafe { op(cq, solicited_only) },
        None => libc::EOPNOTSUPP,
    }
}
