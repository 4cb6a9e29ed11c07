//! Queue pairs (verbs.c): ibv_create_qp, ibv_query_qp, ibv_modify_qp,
//! ibv_destroy_qp, ibv_qp_to_qp_ex, ibv_query_ece / ibv_set_ece,
//! ibv_query_qp_data_in_order, and the marshalling helper
//! ibv_copy_qp_attr_from_kern (marshall.c).
//!
//! In rdma-core 44 the library's create_qp does no setup of its own: the
//! provider fills the QP (for the kernel-backed providers, ibv_cmd_create_qp*
//! sets context, PD, CQs, SRQ, type, state and the event counters, cmd/qp.rs).
//! ibv_create_qp_ex, ibv_open_qp and friends are inline functions in verbs.h
//! that call ibv_create_qp or the verbs_context slots verbs_set_ops fills.
//!
//! Every provider QP is the head of a `struct verbs_qp`; a QP created through
//! ibv_create_qp_ex with the extended send API has VERBS_QP_EX in its
//! comp_mask and an ibv_qp_ex sharing its start.

use std::ffi::c_int;
use std::ptr;

use crate::abi::driver::*;
use crate::abi::kern::{ib_uverbs_ah_attr, ib_uverbs_qp_attr};
use crate::abi::verbs::*;
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export, export_versioned, symver};

/// Whether a QP pointer and its context can be used.
fn usable(qp: *mut ibv_qp) -> bool {
    // SAFETY: dereferenced only when non-NULL; the caller's QP.
    !qp.is_null() && !unsafe { (*qp).context }.is_null()
}

/// Upstream's ibv_create_qp: the provider's QP, or NULL with its errno.
///
/// # Safety
/// `pd` is a live PD with its context set; `attr` is the caller's.
pub(crate) unsafe fn create_qp(pd: *mut ibv_pd, attr: *mut ibv_qp_init_attr) -> *mut ibv_qp {
    // SAFETY: the caller's live PD, whose context is a live context of this library.
    let Some(f) = unsafe { ops_of((*pd).context) }.create_qp else {
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op with the caller's arguments.
    unsafe { f(pd, attr) }
}

/// Upstream's ibv_query_qp: on success with IBV_QP_STATE in the mask, the
/// reported state becomes `qp->state`.
///
/// # Safety
/// Live QP (context set); `attr` and `init_attr` writable.
pub(crate) unsafe fn query_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int, init_attr: *mut ibv_qp_init_attr) -> c_int {
    // SAFETY: the caller's live QP, whose context is a live context of this library.
    let Some(f) = unsafe { ops_of((*qp).context) }.query_qp else { return libc::EOPNOTSUPP };
    // SAFETY: provider op with the caller's arguments.
    let ret = unsafe { f(qp, attr, attr_mask, init_attr) };
    if ret != 0 {
        return ret;
    }
    if attr_mask as u32 & IBV_QP_STATE != 0 {
        // SAFETY: the caller's QP and attributes.
        unsafe { (*qp).state = (*attr).qp_state };
    }
    0
}

/// Upstream's ibv_modify_qp: as query, a successful transition with
/// IBV_QP_STATE in the mask is recorded in `qp->state`.
///
/// # Safety
/// Live QP (context set); `attr` readable.
pub(crate) unsafe fn modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int {
    // SAFETY: the caller's live QP, whose context is a live context of this library.
    let Some(f) = unsafe { ops_of((*qp).context) }.modify_qp else { return libc::EOPNOTSUPP };
    // SAFETY: provider op with the caller's arguments.
    let ret = unsafe { f(qp, attr, attr_mask) };
    if ret != 0 {
        return ret;
    }
    if attr_mask as u32 & IBV_QP_STATE != 0 {
        // SAFETY: the caller's QP and attributes.
        unsafe { (*qp).state = (*attr).qp_state };
    }
    0
}

/// Upstream's ibv_destroy_qp: the provider's result.
///
/// # Safety
/// Live QP (context set).
pub(crate) unsafe fn destroy_qp(qp: *mut ibv_qp) -> c_int {
    // SAFETY: the caller's live QP, whose context is a live context of this library.
    let Some(f) = unsafe { ops_of((*qp).context) }.destroy_qp else { return libc::EOPNOTSUPP };
    // SAFETY: provider op on its own QP.
    unsafe { f(qp) }
}

export_versioned! {
    /// ibv_create_qp@@IBVERBS_1.1
    fn ibv_create_qp_v11(pd: *mut ibv_pd, qp_init_attr: *mut ibv_qp_init_attr) -> *mut ibv_qp,
        on_panic = ptr::null_mut();
    {
        // SAFETY: dereferenced only when non-NULL.
        ensure!(!pd.is_null() && !unsafe { (*pd).context }.is_null() && !qp_init_attr.is_null(),
                libc::EINVAL, ptr::null_mut());
        // SAFETY: checked above.
        unsafe { create_qp(pd, qp_init_attr) }
    }
}
symver!(default ibv_create_qp, "IBVERBS_1.1", ibv_create_qp_v11);

export_versioned! {
    /// ibv_query_qp@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_query_qp_v11(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int,
                        init_attr: *mut ibv_qp_init_attr) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(qp) && !attr.is_null() && !init_attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above.
        unsafe { query_qp(qp, attr, attr_mask, init_attr) }
    }
}
symver!(default ibv_query_qp, "IBVERBS_1.1", ibv_query_qp_v11);

export_versioned! {
    /// ibv_modify_qp@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_modify_qp_v11(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, attr_mask: c_int) -> c_int,
        on_panic = libc::EIO;
    {
        ensure!(usable(qp) && !attr.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above.
        unsafe { modify_qp(qp, attr, attr_mask) }
    }
}
symver!(default ibv_modify_qp, "IBVERBS_1.1", ibv_modify_qp_v11);

export_versioned! {
    /// ibv_destroy_qp@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_destroy_qp_v11(qp: *mut ibv_qp) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(qp), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above.
        unsafe { destroy_qp(qp) }
    }
}
symver!(default ibv_destroy_qp, "IBVERBS_1.1", ibv_destroy_qp_v11);

export! {
    /// ibv_set_ece@@IBVERBS_1.10: EOPNOTSUPP (returned and in errno) for a
    /// zero vendor id, otherwise the provider's result.
    fn ibv_set_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!ece.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's ECE.
        if unsafe { (*ece).vendor_id } == 0 {
            set_errno(libc::EOPNOTSUPP);
            return libc::EOPNOTSUPP;
        }
        ensure!(usable(qp), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the application's QP, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*qp).context) }.set_ece else { return libc::EOPNOTSUPP };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(qp, ece) }
    }
}

export! {
    /// ibv_query_ece@@IBVERBS_1.10: the provider's result.
    fn ibv_query_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int, on_panic = libc::EIO;
    {
        ensure!(usable(qp), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked above; the application's QP, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*qp).context) }.query_ece else { return libc::EOPNOTSUPP };
        if ece.is_null() {
            // Upstream hands the NULL to the op: the default op (rxe and every
            // provider without ECE) fails with EOPNOTSUPP without touching it,
            // a real op writes through it and crashes. Ours lets the op write
            // into scratch space instead: its failure is returned as is, its
            // success becomes EINVAL, since the caller has nowhere to receive
            // the result. (Comparing `f` with the default op's address is not
            // reliable: the compiler merges identical functions.)
            let mut scratch = ibv_ece { vendor_id: 0, options: 0, comp_mask: 0 };
            // SAFETY: provider op with the caller's QP and a local ECE.
            let ret = unsafe { f(qp, &mut scratch) };
            if ret == 0 {
                set_errno(libc::EINVAL);
                return libc::EINVAL;
            }
            return ret;
        }
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(qp, ece) }
    }
}

export! {
    /// ibv_query_qp_data_in_order@@IBVERBS_1.14, as rdma-core 65 answers:
    /// with IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS the provider's capability
    /// bits (whole-message order implying 128-byte order), else 1 or 0 for
    /// whole-message order; 0 for unknown flags, and on other CPUs than x86
    /// unless IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY asks about the device
    /// alone. The result has no error value: a NULL QP gives 0 with errno
    /// EINVAL.
    fn ibv_query_qp_data_in_order(qp: *mut ibv_qp, op: ibv_wr_opcode, flags: u32) -> c_int, on_panic = 0;
    {
        use crate::abi::verbs65::{
            IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES as ALIGNED_128, IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY as DEVICE_ONLY,
            IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS as RETURN_CAPS, IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG as WHOLE_MSG,
        };
        // rdma-core 65's rules. With rdma-core 44's providers (flags other
        // than 0 answered 0, else 0 or 1) they give 44's answers too.
        if flags & !(RETURN_CAPS | DEVICE_ONLY) != 0 {
            return 0;
        }
        // Only x86 is known to deliver in order, unless the caller asks
        // about the device alone.
        if !cfg!(any(target_arch = "x86", target_arch = "x86_64")) && flags & DEVICE_ONLY == 0 {
            return 0;
        }
        ensure!(usable(qp), libc::EINVAL, 0);
        // SAFETY: checked above; the application's QP, whose context is a live context of this library.
        let Some(f) = unsafe { ops_of((*qp).context) }.query_qp_data_in_order else { return 0 };
        // SAFETY: provider op with the caller's arguments.
        let mut caps = unsafe { f(qp, op, flags) } as u32;
        if caps & WHOLE_MSG != 0 {
            caps |= ALIGNED_128;
        }
        if flags & RETURN_CAPS != 0 {
            caps as c_int
        } else {
            (caps & WHOLE_MSG != 0) as c_int
        }
    }
}

/// Upstream's ibv_copy_ah_attr_from_kern, field by field (the kernel's
/// reserved byte is not copied).
pub(crate) fn copy_ah_attr_from_kern(dst: &mut ibv_ah_attr, src: &ib_uverbs_ah_attr) {
    dst.grh.dgid.raw = src.grh.dgid;
    dst.grh.flow_label = src.grh.flow_label;
    dst.grh.sgid_index = src.grh.sgid_index;
    dst.grh.hop_limit = src.grh.hop_limit;
    dst.grh.traffic_class = src.grh.traffic_class;
    dst.dlid = src.dlid;
    dst.sl = src.sl;
    dst.src_path_bits = src.src_path_bits;
    dst.static_rate = src.static_rate;
    dst.is_global = src.is_global;
    dst.port_num = src.port_num;
}

/// Upstream's ibv_copy_qp_attr_from_kern: every field but `qp_state` and
/// `rate_limit` (which upstream leaves as they were).
pub(crate) fn copy_qp_attr_from_kern(dst: &mut ibv_qp_attr, src: &ib_uverbs_qp_attr) {
    dst.cur_qp_state = src.cur_qp_state;
    dst.path_mtu = src.path_mtu;
    dst.path_mig_state = src.path_mig_state;
    dst.qkey = src.qkey;
    dst.rq_psn = src.rq_psn;
    dst.sq_psn = src.sq_psn;
    dst.dest_qp_num = src.dest_qp_num;
    dst.qp_access_flags = src.qp_access_flags;
    dst.cap.max_send_wr = src.max_send_wr;
    dst.cap.max_recv_wr = src.max_recv_wr;
    dst.cap.max_send_sge = src.max_send_sge;
    dst.cap.max_recv_sge = src.max_recv_sge;
    dst.cap.max_inline_data = src.max_inline_data;
    copy_ah_attr_from_kern(&mut dst.ah_attr, &src.ah_attr);
    copy_ah_attr_from_kern(&mut dst.alt_ah_attr, &src.alt_ah_attr);
    dst.pkey_index = src.pkey_index;
    dst.alt_pkey_index = src.alt_pkey_index;
    dst.en_sqd_async_notify = src.en_sqd_async_notify;
    dst.sq_draining = src.sq_draining;
    dst.max_rd_atomic = src.max_rd_atomic;
    dst.max_dest_rd_atomic = src.max_dest_rd_atomic;
    dst.min_rnr_timer = src.min_rnr_timer;
    dst.port_num = src.port_num;
    dst.timeout = src.timeout;
    dst.retry_cnt = src.retry_cnt;
    dst.rnr_retry = src.rnr_retry;
    dst.alt_port_num = src.alt_port_num;
    dst.alt_timeout = src.alt_timeout;
}

export! {
    /// ibv_copy_qp_attr_from_kern@@IBVERBS_1.0 (private to rdma-core's
    /// libraries, kept for them).
    fn ibv_copy_qp_attr_from_kern(dst: *mut ibv_qp_attr, src: *mut ib_uverbs_qp_attr) -> (), on_panic = ();
    {
        ensure!(!dst.is_null() && !src.is_null(), libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's kernel-format attributes,
        // copied first.
        let s = unsafe { *src };
        // SAFETY: as above.
        copy_qp_attr_from_kern(unsafe { &mut *dst }, &s)
    }
}

/// Upstream's ibv_qp_to_qp_ex: the extended QP, or NULL (errno untouched,
/// as upstream) for a QP that was not created extended.
///
/// # Safety
/// `qp` is the head of a provider's verbs_qp.
pub(crate) unsafe fn qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex {
    let vqp = qp.cast::<verbs_qp>();
    // SAFETY: providers allocate every QP as a verbs_qp (driver.h ABI) of
    // their release, and the QP's context is a live one of this library.
    let (comp_mask, _) = crate::pabi::vqp_tail(vqp, unsafe { crate::cmd::pabi_of((*qp).context) });
    // SAFETY: as above.
    if unsafe { *comp_mask } & VERBS_QP_EX != 0 {
        // SAFETY: as above; taking the address of the union member only.
        unsafe { ptr::addr_of_mut!((*vqp).base.qp_ex) }
    } else {
        ptr::null_mut()
    }
}

export! {
    /// ibv_qp_to_qp_ex@@IBVERBS_1.6
    fn ibv_qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex, on_panic = ptr::null_mut();
    {
        ensure!(!qp.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's QP (checked non-NULL).
        unsafe { qp_to_qp_ex(qp) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_util::ffi::{errno, set_errno};

    use crate::abi::driver65;
    use crate::pabi::Pabi;
    use crate::testkit::ctx::FakeCtx;

    /// A QP of `ctx` in the verbs_qp layout of `pabi` (65's is the larger),
    /// with `comp_mask` where that layout has it.
    fn vqp(ctx: *mut ibv_context, pabi: Pabi, comp_mask: u32) -> Box<driver65::verbs_qp> {
        // SAFETY: all-zero is a valid verbs_qp of either layout.
        let mut q: Box<driver65::verbs_qp> = Box::new(unsafe { std::mem::zeroed() });
        q.base.qp.context = ctx;
        let p: *mut driver65::verbs_qp = &mut *q;
        let (m, _) = crate::pabi::vqp_tail(p.cast(), pabi);
        // SAFETY: inside the box for either layout.
        unsafe { *m = comp_mask };
        q
    }

    #[test]
    fn extended_qp_converts() {
        for pabi in [Pabi::P34, Pabi::P65] {
            let mut c = FakeCtx::with_pabi(0, pabi);
            for mask in [VERBS_QP_EX, VERBS_QP_EX | VERBS_QP_XRCD] {
                let mut q = vqp(c.ctx(), pabi, mask);
                let base: *mut driver65::verbs_qp = &mut *q;
                // SAFETY: a verbs_qp-headed QP of a live context.
                let ex = unsafe { ibv_qp_to_qp_ex(base.cast()) };
                // The extended QP starts with the plain one (qp_base).
                assert_eq!(ex as usize, base as usize, "{pabi:?}");
            }
        }
    }

    #[test]
    fn the_mask_is_read_where_the_providers_layout_has_it() {
        // A 65 provider's VERBS_QP_EX is 8 bytes further on: read at 44's
        // place it would be missed, and the other way round.
        let mut c65 = FakeCtx::with_pabi(0, Pabi::P65);
        let mut q = vqp(c65.ctx(), Pabi::P65, VERBS_QP_EX);
        let p: *mut driver65::verbs_qp = &mut *q;
        // SAFETY: a verbs_qp-headed QP of a live context.
        assert!(!unsafe { ibv_qp_to_qp_ex(p.cast()) }.is_null());
        let mut c34 = FakeCtx::with_pabi(0, Pabi::P34);
        let mut q = vqp(c34.ctx(), Pabi::P65, VERBS_QP_EX);
        let p: *mut driver65::verbs_qp = &mut *q;
        // SAFETY: as above.
        assert!(unsafe { ibv_qp_to_qp_ex(p.cast()) }.is_null());
    }

    #[test]
    fn plain_qp_gives_null_and_keeps_errno() {
        for pabi in [Pabi::P34, Pabi::P65] {
            let mut c = FakeCtx::with_pabi(0, pabi);
            for mask in [0, VERBS_QP_XRCD] {
                let mut q = vqp(c.ctx(), pabi, mask);
                set_errno(12345);
                // SAFETY: a verbs_qp-headed QP of a live context.
                assert!(unsafe { ibv_qp_to_qp_ex((&mut *q as *mut driver65::verbs_qp).cast()) }.is_null());
                assert_eq!(errno(), 12345);
            }
        }
    }

    #[test]
    fn null_is_einval() {
        set_errno(0);
        // SAFETY: NULL is rejected before use.
        assert!(unsafe { ibv_qp_to_qp_ex(ptr::null_mut()) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
    }
}

#[cfg(test)]
mod verb_tests {
    use super::*;
    use rdma_util::ffi::errno;
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use rdma_util::mem::zeroed_unchecked;
    use std::cell::RefCell;

    #[derive(Default)]
    struct Script {
        calls: Vec<String>,
        /// Return value of modify/query.
        ret: c_int,
    }
    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }
    fn log(s: String) {
        S.with(|c| c.borrow_mut().calls.push(s));
    }
    fn ret() -> c_int {
        S.with(|c| c.borrow().ret)
    }

    unsafe extern "C" fn p_create(pd: *mut ibv_pd, attr: *mut ibv_qp_init_attr) -> *mut ibv_qp {
        // SAFETY: the caller's attributes.
        log(format!("create {:x} {}", pd as usize, unsafe { (*attr).qp_type }));
        // SAFETY: all-zero is a valid verbs_qp.
        let mut q: Box<verbs_qp> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: the provider's own QP, as ibv_cmd_create_qp fills it.
        unsafe {
            q.base.qp.context = (*pd).context;
            q.base.qp.pd = pd;
            q.base.qp.qp_num = 0x11;
            q.base.qp.state = IBV_QPS_RESET;
        }
        Box::into_raw(q).cast()
    }
    unsafe extern "C" fn p_modify(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, mask: c_int) -> c_int {
        // SAFETY: the caller's attributes.
        log(format!("modify {:x} {} {mask:#x}", qp as usize, unsafe { (*attr).qp_state }));
        ret()
    }
    unsafe extern "C" fn p_query(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, mask: c_int, init: *mut ibv_qp_init_attr) -> c_int {
        log(format!("query {:x} {mask:#x} {}", qp as usize, !init.is_null()));
        // SAFETY: the caller's attributes.
        unsafe { (*attr).qp_state = IBV_QPS_RTS };
        ret()
    }
    unsafe extern "C" fn p_destroy(qp: *mut ibv_qp) -> c_int {
        log(format!("destroy {:x}", qp as usize));
        // SAFETY: created by p_create.
        drop(unsafe { Box::from_raw(qp.cast::<verbs_qp>()) });
        0
    }
    unsafe extern "C" fn p_set_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
        // SAFETY: the caller's ECE.
        log(format!("set_ece {:x} {:#x}", qp as usize, unsafe { (*ece).vendor_id }));
        0
    }
    unsafe extern "C" fn p_query_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
        log(format!("query_ece {:x}", qp as usize));
        // SAFETY: the caller's ECE.
        unsafe { (*ece).options = 7 };
        0
    }
    unsafe extern "C" fn p_in_order(qp: *mut ibv_qp, op: ibv_wr_opcode, flags: u32) -> c_int {
        log(format!("in_order {:x} {op} {flags}", qp as usize));
        IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG as c_int
    }

    /// verbs.h's IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG (not in abi/verbs.rs).
    const IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG: u32 = 1 << 0;

    fn provider() -> FakeCtx {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.create_qp = Some(p_create);
        ops.modify_qp = Some(p_modify);
        ops.query_qp = Some(p_query);
        ops.destroy_qp = Some(p_destroy);
        ops.set_ece = Some(p_set_ece);
        ops.query_ece = Some(p_query_ece);
        ops.query_qp_data_in_order = Some(p_in_order);
        c.set_ops(&ops);
        c
    }


    #[test]
    fn query_ece_with_null_output_gets_the_default_ops_eopnotsupp() {
        let mut c = FakeCtx::new(0);
        c.set_ops65(&crate::dummy_ops::DUMMY_OPS);
        // SAFETY: all-zero is a valid ibv_qp, a plain C struct.
        let mut qp: ibv_qp = unsafe { zeroed_unchecked() };
        qp.context = c.ctx();
        set_errno(0);
        // SAFETY: a QP of our fake context; NULL output on purpose.
        assert_eq!(unsafe { ibv_query_ece(&mut qp, ptr::null_mut()) }, libc::EOPNOTSUPP);
        assert_eq!(errno(), 0, "upstream leaves errno alone here");
    }

    #[test]
    fn verbs_dispatch_and_track_the_state() {
        let mut c = provider();
        let mut pd = ibv_pd { context: c.ctx(), handle: 1 };
        // SAFETY: all-zero is a valid ibv_qp_init_attr, a plain C struct.
        let mut init: ibv_qp_init_attr = unsafe { zeroed_unchecked() };
        init.qp_type = IBV_QPT_RC;
        // SAFETY: our live PD.
        let qp = unsafe { ibv_create_qp_v11(&mut pd, &mut init) };
        assert!(!qp.is_null());
        let q = qp as usize;
        // SAFETY: all-zero is a valid ibv_qp_attr, a plain C struct.
        let mut attr: ibv_qp_attr = unsafe { zeroed_unchecked() };
        attr.qp_state = IBV_QPS_INIT;
        // SAFETY: live QP and locals throughout.
        unsafe {
            // Without IBV_QP_STATE the state is not touched.
            assert_eq!(ibv_modify_qp_v11(qp, &mut attr, IBV_QP_PKEY_INDEX as c_int), 0);
            assert_eq!((*qp).state, IBV_QPS_RESET);
            assert_eq!(ibv_modify_qp_v11(qp, &mut attr, (IBV_QP_STATE | IBV_QP_PORT) as c_int), 0);
            assert_eq!((*qp).state, IBV_QPS_INIT);
            // A failed transition leaves it.
            S.with(|s| s.borrow_mut().ret = libc::EINVAL);
            attr.qp_state = IBV_QPS_RTR;
            assert_eq!(ibv_modify_qp_v11(qp, &mut attr, IBV_QP_STATE as c_int), libc::EINVAL);
            assert_eq!((*qp).state, IBV_QPS_INIT);
            // Query: the reported state is recorded, only on success and
            // only when asked for.
            assert_eq!(ibv_query_qp_v11(qp, &mut attr, IBV_QP_STATE as c_int, &mut init), libc::EINVAL);
            assert_eq!((*qp).state, IBV_QPS_INIT);
            S.with(|s| s.borrow_mut().ret = 0);
            assert_eq!(ibv_query_qp_v11(qp, &mut attr, IBV_QP_CAP as c_int, &mut init), 0);
            assert_eq!((*qp).state, IBV_QPS_INIT);
            assert_eq!(ibv_query_qp_v11(qp, &mut attr, IBV_QP_STATE as c_int, &mut init), 0);
            assert_eq!((*qp).state, IBV_QPS_RTS);

            let mut ece = ibv_ece { vendor_id: 0x2c9, options: 0, comp_mask: 0 };
            assert_eq!(ibv_set_ece(qp, &mut ece), 0);
            assert_eq!(ibv_query_ece(qp, &mut ece), 0);
            assert_eq!(ece.options, 7);
            // NULL output: the provider's op succeeds into scratch space,
            // the caller gets EINVAL.
            set_errno(0);
            assert_eq!(ibv_query_ece(qp, ptr::null_mut()), libc::EINVAL);
            assert_eq!(errno(), libc::EINVAL);
            // A zero vendor id never reaches the provider.
            ece.vendor_id = 0;
            set_errno(0);
            assert_eq!(ibv_set_ece(qp, &mut ece), libc::EOPNOTSUPP);
            assert_eq!(errno(), libc::EOPNOTSUPP);
            // rdma-core 65's rules: whole-message order implies 128-byte
            // order; the capability bits only when asked for, else 0 or 1;
            // flags it does not know answer 0 without asking the provider.
            assert_eq!(ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_WRITE, 1), 3);
            assert_eq!(ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_WRITE, 0), 1);
            assert_eq!(ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_WRITE, 4), 0);
            assert_eq!(ibv_destroy_qp_v11(qp), 0);
        }
        let pdp = &mut pd as *mut ibv_pd as usize;
        S.with(|s| {
            assert_eq!(
                s.borrow().calls,
                vec![
                    format!("create {pdp:x} {IBV_QPT_RC}"),
                    format!("modify {q:x} 1 {:#x}", IBV_QP_PKEY_INDEX),
                    format!("modify {q:x} 1 {:#x}", IBV_QP_STATE | IBV_QP_PORT),
                    format!("modify {q:x} 2 {:#x}", IBV_QP_STATE),
                    format!("query {q:x} {:#x} true", IBV_QP_STATE),
                    format!("query {q:x} {:#x} true", IBV_QP_CAP),
                    format!("query {q:x} {:#x} true", IBV_QP_STATE),
                    format!("set_ece {q:x} 0x2c9"),
                    format!("query_ece {q:x}"),
                    format!("query_ece {q:x}"),
                    format!("in_order {q:x} {IBV_WR_RDMA_WRITE} 1"),
                    format!("in_order {q:x} {IBV_WR_RDMA_WRITE} 0"),
                    format!("destroy {q:x}"),
                ]
            )
        });
    }

    #[test]
    fn dummy_ops_and_bad_input() {
        let mut c = FakeCtx::new(0);
        let mut pd = ibv_pd { context: c.ctx(), handle: 1 };
        // SAFETY: all-zero is a valid ibv_qp_init_attr, a plain C struct.
        let mut init: ibv_qp_init_attr = unsafe { zeroed_unchecked() };
        // SAFETY: all-zero is a valid ibv_qp_attr, a plain C struct.
        let mut attr: ibv_qp_attr = unsafe { zeroed_unchecked() };
        let mut ece = ibv_ece { vendor_id: 1, options: 0, comp_mask: 0 };
        // SAFETY: all-zero is a valid ibv_qp, a plain C struct.
        let mut qp: ibv_qp = unsafe { zeroed_unchecked() };
        qp.context = c.ctx();
        qp.state = IBV_QPS_RESET;
        attr.qp_state = IBV_QPS_INIT;
        // SAFETY: the dummy ops touch none of their arguments; NULLs are
        // rejected before use.
        unsafe {
            set_errno(0);
            assert!(ibv_create_qp_v11(&mut pd, &mut init).is_null());
            assert_eq!(errno(), libc::EOPNOTSUPP);
            assert_eq!(ibv_modify_qp_v11(&mut qp, &mut attr, IBV_QP_STATE as c_int), libc::EOPNOTSUPP);
            assert_eq!(qp.state, IBV_QPS_RESET);
            assert_eq!(ibv_query_qp_v11(&mut qp, &mut attr, IBV_QP_STATE as c_int, &mut init), libc::EOPNOTSUPP);
            assert_eq!(ibv_destroy_qp_v11(&mut qp), libc::EOPNOTSUPP);
            assert_eq!(ibv_set_ece(&mut qp, &mut ece), libc::EOPNOTSUPP);
            assert_eq!(ibv_query_ece(&mut qp, &mut ece), libc::EOPNOTSUPP);
            assert_eq!(ibv_query_qp_data_in_order(&mut qp, IBV_WR_SEND, 0), 0);

            set_errno(0);
            assert!(ibv_create_qp_v11(ptr::null_mut(), &mut init).is_null());
            assert_eq!(errno(), libc::EINVAL);
            assert!(ibv_create_qp_v11(&mut pd, ptr::null_mut()).is_null());
            assert_eq!(ibv_modify_qp_v11(ptr::null_mut(), &mut attr, 0), libc::EINVAL);
            assert_eq!(ibv_modify_qp_v11(&mut qp, ptr::null_mut(), 0), libc::EINVAL);
            assert_eq!(ibv_query_qp_v11(&mut qp, &mut attr, 0, ptr::null_mut()), libc::EINVAL);
            assert_eq!(ibv_destroy_qp_v11(ptr::null_mut()), libc::EINVAL);
            assert_eq!(ibv_set_ece(&mut qp, ptr::null_mut()), libc::EINVAL);
            assert_eq!(ibv_query_ece(ptr::null_mut(), &mut ece), libc::EINVAL);
            set_errno(0);
            assert_eq!(ibv_query_qp_data_in_order(ptr::null_mut(), IBV_WR_SEND, 0), 0);
            assert_eq!(errno(), libc::EINVAL);
            qp.context = ptr::null_mut();
            assert_eq!(ibv_destroy_qp_v11(&mut qp), libc::EINVAL);
        }
    }

    #[test]
    fn copy_qp_attr_from_kern_copies_every_field_but_state() {
        let mut k = ib_uverbs_qp_attr {
            qp_state: 3, cur_qp_state: 2, path_mtu: 5, path_mig_state: 1, qkey: 0x1111_2222,
            rq_psn: 0x33, sq_psn: 0x44, dest_qp_num: 0x55, qp_access_flags: 7,
            max_send_wr: 10, max_recv_wr: 11, max_send_sge: 12, max_recv_sge: 13, max_inline_data: 14,
            pkey_index: 15, alt_pkey_index: 16, en_sqd_async_notify: 1, sq_draining: 1,
            max_rd_atomic: 17, max_dest_rd_atomic: 18, min_rnr_timer: 19, port_num: 1, timeout: 20,
            retry_cnt: 6, rnr_retry: 7, alt_port_num: 2, alt_timeout: 21, ..Default::default()
        };
        k.ah_attr.grh.dgid = [9; 16];
        k.ah_attr.grh.flow_label = 0xabcde;
        k.ah_attr.grh.sgid_index = 3;
        k.ah_attr.grh.hop_limit = 64;
        k.ah_attr.grh.traffic_class = 0x20;
        k.ah_attr.dlid = 0x1234;
        k.ah_attr.sl = 4;
        k.ah_attr.src_path_bits = 1;
        k.ah_attr.static_rate = 3;
        k.ah_attr.is_global = 1;
        k.ah_attr.port_num = 1;
        k.alt_ah_attr.dlid = 0x4321;
        k.alt_ah_attr.port_num = 2;
        // SAFETY: all-zero is a valid ibv_qp_attr, a plain C struct.
        let mut d: ibv_qp_attr = unsafe { zeroed_unchecked() };
        d.qp_state = 99;
        d.rate_limit = 98;
        // SAFETY: our locals.
        unsafe { ibv_copy_qp_attr_from_kern(&mut d, &mut k) };
        assert_eq!((d.qp_state, d.rate_limit), (99, 98), "not copied by upstream either");
        assert_eq!((d.cur_qp_state, d.path_mtu, d.path_mig_state, d.qkey), (2, 5, 1, 0x1111_2222));
        assert_eq!((d.rq_psn, d.sq_psn, d.dest_qp_num, d.qp_access_flags), (0x33, 0x44, 0x55, 7));
        let cap = d.cap;
        assert_eq!((cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge, cap.max_recv_sge, cap.max_inline_data),
                   (10, 11, 12, 13, 14));
        assert_eq!((d.pkey_index, d.alt_pkey_index, d.en_sqd_async_notify, d.sq_draining), (15, 16, 1, 1));
        assert_eq!((d.max_rd_atomic, d.max_dest_rd_atomic, d.min_rnr_timer, d.port_num, d.timeout), (17, 18, 19, 1, 20));
        assert_eq!((d.retry_cnt, d.rnr_retry, d.alt_port_num, d.alt_timeout), (6, 7, 2, 21));
        let a = d.ah_attr;
        // SAFETY: reading the byte view of the GID.
        assert_eq!(unsafe { a.grh.dgid.raw }, [9; 16]);
        assert_eq!((a.grh.flow_label, a.grh.sgid_index, a.grh.hop_limit, a.grh.traffic_class), (0xabcde, 3, 64, 0x20));
        assert_eq!((a.dlid, a.sl, a.src_path_bits, a.static_rate, a.is_global, a.port_num), (0x1234, 4, 1, 3, 1, 1));
        assert_eq!((d.alt_ah_attr.dlid, d.alt_ah_attr.port_num), (0x4321, 2));
        // SAFETY: NULL is rejected.
        unsafe { ibv_copy_qp_attr_from_kern(ptr::null_mut(), &mut k) };
    }
}
