//! Protection domains: ibv_alloc_pd / ibv_dealloc_pd (verbs.c).
//!
//! Both go straight to the provider through the context's full ops table;
//! the library's only own work is to point a new PD back at its context.

use std::ffi::c_int;
use std::ptr;

use crate::abi::verbs::*;
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export_versioned, symver};

/// Upstream's ibv_alloc_pd: the provider allocates, we set `pd->context`.
/// NULL (with the provider's errno) on failure.
///
/// # Safety
/// `context` is a live context of this library.
pub(crate) unsafe fn alloc_pd(context: *mut ibv_context) -> *mut ibv_pd {
    // SAFETY: the caller's live context of this library.
    let Some(f) = unsafe { ops_of(context) }.alloc_pd else {
        set_errno(libc::EOPNOTSUPP);
        return ptr::null_mut();
    };
    // SAFETY: provider op on the caller's live context.
    let pd = unsafe { f(context) };
    if !pd.is_null() {
        // SAFETY: the provider's new PD.
        unsafe { (*pd).context = context };
    }
    pd
}

/// Upstream's ibv_dealloc_pd: the provider's result (0 or an errno value).
///
/// # Safety
/// `pd` is a live PD whose `context` is set.
pub(crate) unsafe fn dealloc_pd(pd: *mut ibv_pd) -> c_int {
    // SAFETY: the caller's live PD.
    let context = unsafe { (*pd).context };
    // SAFETY: the context of the caller's live PD is a live context of this library.
    let Some(f) = unsafe { ops_of(context) }.dealloc_pd else { return libc::EOPNOTSUPP };
    // SAFETY: provider op on its own PD.
    unsafe { f(pd) }
}

export_versioned! {
    /// ibv_alloc_pd@@IBVERBS_1.1
    fn ibv_alloc_pd_v11(context: *mut ibv_context) -> *mut ibv_pd, on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: the caller's context (checked non-NULL).
        unsafe { alloc_pd(context) }
    }
}
symver!(default ibv_alloc_pd, "IBVERBS_1.1", ibv_alloc_pd_v11);

export_versioned! {
    /// ibv_dealloc_pd@@IBVERBS_1.1: 0 or an errno value.
    fn ibv_dealloc_pd_v11(pd: *mut ibv_pd) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!pd.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's PD.
        ensure!(!unsafe { (*pd).context }.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the caller's PD, with its context set.
        unsafe { dealloc_pd(pd) }
    }
}
symver!(default ibv_dealloc_pd, "IBVERBS_1.1", ibv_dealloc_pd_v11);

#[cfg(test)]
mod tests {
    use crate::testkit::ctx::{no_ops, FakeCtx};
    use super::*;
    use rdma_util::ffi::errno;
    use std::cell::RefCell;

    #[derive(Default)]
    struct Script {
        /// alloc_pd fails with this errno when set.
        fail_alloc: Option<c_int>,
        /// dealloc_pd's return value.
        dealloc_ret: c_int,
        /// Contexts alloc_pd was called with; PDs dealloc_pd was called with.
        alloc_calls: Vec<*mut ibv_context>,
        dealloc_calls: Vec<*mut ibv_pd>,
    }

    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }

    unsafe extern "C" fn fake_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd {
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.alloc_calls.push(context);
            if let Some(e) = s.fail_alloc {
                set_errno(e);
                return ptr::null_mut();
            }
            // The provider leaves `context` to the library (a marker value
            // shows whether the library overwrote it).
            Box::into_raw(Box::new(ibv_pd { context: ptr::dangling_mut(), handle: 77 }))
        })
    }

    unsafe extern "C" fn fake_dealloc_pd(pd: *mut ibv_pd) -> c_int {
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.dealloc_calls.push(pd);
            if s.dealloc_ret == 0 {
                // SAFETY: created by fake_alloc_pd.
                drop(unsafe { Box::from_raw(pd) });
            }
            s.dealloc_ret
        })
    }

    fn provider() -> FakeCtx {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::new(0);
        let mut ops = no_ops();
        ops.alloc_pd = Some(fake_alloc_pd);
        ops.dealloc_pd = Some(fake_dealloc_pd);
        c.set_ops(&ops);
        c
    }

    #[test]
    fn alloc_sets_context_and_dealloc_dispatches() {
        let mut c = provider();
        let ctx = c.ctx();
        // SAFETY: our live fake context.
        let pd = unsafe { ibv_alloc_pd_v11(ctx) };
        assert!(!pd.is_null());
        // SAFETY: the fake provider's PD.
        let p = unsafe { &*pd };
        assert_eq!((p.context, p.handle), (ctx, 77));
        S.with(|s| assert_eq!(s.borrow().alloc_calls, vec![ctx]));
        // SAFETY: the PD just allocated.
        assert_eq!(unsafe { ibv_dealloc_pd_v11(pd) }, 0);
        S.with(|s| assert_eq!(s.borrow().dealloc_calls, vec![pd]));
    }

    #[test]
    fn provider_errors_pass_through() {
        let mut c = provider();
        S.with(|s| s.borrow_mut().fail_alloc = Some(libc::ENOMEM));
        set_errno(0);
        // SAFETY: our live fake context.
        assert!(unsafe { ibv_alloc_pd_v11(c.ctx()) }.is_null());
        assert_eq!(errno(), libc::ENOMEM);

        S.with(|s| *s.borrow_mut() = Script { dealloc_ret: libc::EBUSY, ..Default::default() });
        // SAFETY: our live fake context.
        let pd = unsafe { ibv_alloc_pd_v11(c.ctx()) };
        // SAFETY: the PD just allocated; the provider keeps it on EBUSY.
        assert_eq!(unsafe { ibv_dealloc_pd_v11(pd) }, libc::EBUSY);
        S.with(|s| s.borrow_mut().dealloc_ret = 0);
        // SAFETY: still live.
        assert_eq!(unsafe { ibv_dealloc_pd_v11(pd) }, 0);
    }

    #[test]
    fn unimplemented_ops_are_eopnotsupp() {
        let mut c = FakeCtx::new(0);
        set_errno(0);
        // SAFETY: our live fake context with the dummy ops only.
        assert!(unsafe { ibv_alloc_pd_v11(c.ctx()) }.is_null());
        assert_eq!(errno(), libc::EOPNOTSUPP);
        let mut pd = ibv_pd { context: c.ctx(), handle: 0 };
        // SAFETY: a PD on that context.
        assert_eq!(unsafe { ibv_dealloc_pd_v11(&mut pd) }, libc::EOPNOTSUPP);
    }

    #[test]
    fn null_arguments_are_einval() {
        set_errno(0);
        // SAFETY: NULL is rejected before use.
        assert!(unsafe { ibv_alloc_pd_v11(ptr::null_mut()) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_dealloc_pd_v11(ptr::null_mut()) }, libc::EINVAL);
        let mut pd = ibv_pd { context: ptr::null_mut(), handle: 0 };
        // SAFETY: a PD without a context is rejected before use.
        assert_eq!(unsafe { ibv_dealloc_pd_v11(&mut pd) }, libc::EINVAL);
    }

    unsafe extern "C" fn fake_alloc_td(_: *mut ibv_context, _: *mut ibv_td_init_attr) -> *mut ibv_td {
        ptr::null_mut()
    }

    /// The verbs.h inline verbs (TD, parent domain, XRCD, WQ, indirection
    /// table, flows, flow actions, counters, DM, null MR, advise MR) reach
    /// the provider through the public verbs_context slots. As upstream,
    /// every slot holds a dummy op (EOPNOTSUPP) until the provider sets its
    /// own, and the context's size covers them all (verbs_get_ctx_op).
    #[test]
    fn inline_verb_slots_follow_the_provider() {
        let mut c = FakeCtx::new(0);
        let v = crate::ctx_priv::verbs_ctx(c.ctx());
        macro_rules! slots { ($v:expr) => {{
            // SAFETY: our live verbs context.
            let v = unsafe { &*$v };
            [v.alloc_td.is_some(), v.dealloc_td.is_some(), v.alloc_parent_domain.is_some(),
             v.open_xrcd.is_some(), v.close_xrcd.is_some(), v.create_wq.is_some(), v.modify_wq.is_some(),
             v.destroy_wq.is_some(), v.create_rwq_ind_table.is_some(), v.destroy_rwq_ind_table.is_some(),
             v.ibv_create_flow.is_some(), v.ibv_destroy_flow.is_some(), v.create_flow_action_esp.is_some(),
             v.modify_flow_action_esp.is_some(), v.destroy_flow_action.is_some(), v.create_counters.is_some(),
             v.destroy_counters.is_some(), v.attach_counters_point_flow.is_some(), v.read_counters.is_some(),
             v.alloc_dm.is_some(), v.free_dm.is_some(), v.reg_dm_mr.is_some(), v.alloc_null_mr.is_some(),
             v.advise_mr.is_some()]
        }}}
        assert_eq!(slots!(v), [true; 24]);
        // SAFETY: as above.
        assert_eq!(unsafe { (*v).sz }, std::mem::size_of::<crate::abi::verbs::verbs_context>());
        // SAFETY: the dummy ops touch none of their arguments.
        unsafe {
            let vc = &*v;
            set_errno(0);
            assert!(vc.alloc_td.unwrap()(c.ctx(), ptr::null_mut()).is_null());
            assert_eq!(errno(), libc::EOPNOTSUPP);
            set_errno(0);
            assert!(vc.alloc_null_mr.unwrap()(ptr::null_mut()).is_null());
            assert_eq!(errno(), libc::EOPNOTSUPP);
            assert_eq!(vc.dealloc_td.unwrap()(ptr::null_mut()), libc::EOPNOTSUPP);
            assert_eq!(vc.destroy_wq.unwrap()(ptr::null_mut()), libc::EOPNOTSUPP);
            assert_eq!(vc.close_xrcd.unwrap()(ptr::null_mut()), libc::EOPNOTSUPP);
            assert_eq!(vc.free_dm.unwrap()(ptr::null_mut()), libc::EOPNOTSUPP);
            assert_eq!(vc.destroy_counters.unwrap()(ptr::null_mut()), libc::EOPNOTSUPP);
            assert_eq!(vc.ibv_destroy_flow.unwrap()(ptr::null_mut()), libc::EOPNOTSUPP);
        }
        let mut ops = no_ops();
        ops.alloc_td = Some(fake_alloc_td);
        c.set_ops(&ops);
        // SAFETY: as above.
        assert_eq!(unsafe { (*v).alloc_td }.map(|f| f as usize), Some(fake_alloc_td as *const () as usize));
        // SAFETY: FakeCtx's live context, not borrowed mutably anywhere.
        assert_eq!(unsafe { ops_of(c.ctx()) }.alloc_td.map(|f| f as usize), Some(fake_alloc_td as *const () as usize));
    }
}
