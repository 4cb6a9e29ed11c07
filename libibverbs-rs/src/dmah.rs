//! DMA handles (IBVERBS_1.15): ibv_alloc_dmah / ibv_dealloc_dmah.
//!
//! A DMA handle carries placement hints (the CPU that will touch the memory,
//! a TPH steering tag) that memory registered with it through ibv_reg_mr_ex
//! passes to the device. Both verbs are the provider's alone: the library
//! neither fills in the new handle nor inspects it, it only dispatches through
//! the context's ops, whose default fails with EOPNOTSUPP.

use std::ffi::c_int;
use std::ptr;

use crate::abi::verbs65::*;
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export};

export! {
    /// ibv_alloc_dmah@@IBVERBS_1.15: the provider's new handle, or NULL with
    /// errno set (EOPNOTSUPP without provider support). The provider sets the
    /// handle's `context`.
    ///
    /// Upstream dereferences both arguments (the context to find its ops,
    /// the attributes in every provider that has the op); NULL for either is
    /// EINVAL here.
    fn ibv_alloc_dmah(context: *mut ibv_context, attr: *mut ibv_dmah_init_attr) -> *mut ibv_dmah,
        on_panic = ptr::null_mut();
    {
        ensure!(!context.is_null() && !attr.is_null(), libc::EINVAL, ptr::null_mut());
        // SAFETY: checked non-NULL; a context the application got from this library.
        let Some(f) = unsafe { ops_of(context) }.alloc_dmah else {
            set_errno(libc::EOPNOTSUPP);
            return ptr::null_mut();
        };
        // SAFETY: provider op with the caller's arguments.
        unsafe { f(context, attr) }
    }
}

export! {
    /// ibv_dealloc_dmah@@IBVERBS_1.15: the provider's result, 0 or an errno
    /// value (EOPNOTSUPP without provider support); the handle is gone only
    /// on 0. A NULL handle, or one without its context, is EINVAL.
    fn ibv_dealloc_dmah(dmah: *mut ibv_dmah) -> c_int, on_panic = libc::EIO;
    {
        ensure!(!dmah.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: checked non-NULL; the caller's handle.
        let context = unsafe { (*dmah).context };
        ensure!(!context.is_null(), libc::EINVAL, libc::EINVAL);
        // SAFETY: the handle's context is a live context of this library.
        let Some(f) = unsafe { ops_of(context) }.dealloc_dmah else { return libc::EOPNOTSUPP };
        // SAFETY: provider op on its own handle.
        unsafe { f(dmah) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::driver65;
    use crate::pabi::Pabi;
    use crate::testkit::ctx::FakeCtx;
    use rdma_util::ffi::errno;
    use std::cell::RefCell;

    #[derive(Default)]
    struct Script {
        /// (context, comp_mask, cpu_id, ph, tph_mem_type) of each alloc_dmah.
        allocs: Vec<(usize, u32, u32, u8, u8)>,
        deallocs: Vec<usize>,
        /// alloc_dmah fails with this errno when set.
        fail: Option<c_int>,
        dealloc_ret: c_int,
    }

    thread_local! {
        static S: RefCell<Script> = RefCell::new(Script::default());
    }

    unsafe extern "C" fn p_alloc(context: *mut ibv_context, attr: *mut ibv_dmah_init_attr) -> *mut ibv_dmah {
        // SAFETY: the caller's attributes.
        let a = unsafe { &*attr };
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.allocs.push((context as usize, a.comp_mask, a.cpu_id, a.ph, a.tph_mem_type));
            if let Some(e) = s.fail {
                set_errno(e);
                return ptr::null_mut();
            }
            Box::into_raw(Box::new(ibv_dmah { context }))
        })
    }

    unsafe extern "C" fn p_dealloc(dmah: *mut ibv_dmah) -> c_int {
        S.with(|s| {
            let mut s = s.borrow_mut();
            s.deallocs.push(dmah as usize);
            if s.dealloc_ret == 0 {
                // SAFETY: made by p_alloc.
                drop(unsafe { Box::from_raw(dmah) });
            }
            s.dealloc_ret
        })
    }

    fn provider() -> FakeCtx {
        S.with(|s| *s.borrow_mut() = Script::default());
        let mut c = FakeCtx::with_pabi(0, Pabi::P65);
        // SAFETY: all-zero is every op unset.
        let mut ops: driver65::verbs_context_ops = unsafe { std::mem::zeroed() };
        ops.alloc_dmah = Some(p_alloc);
        ops.dealloc_dmah = Some(p_dealloc);
        c.set_ops65(&ops);
        c
    }

    fn attr() -> ibv_dmah_init_attr {
        ibv_dmah_init_attr {
            comp_mask: IBV_DMAH_INIT_ATTR_MASK_CPU_ID | IBV_DMAH_INIT_ATTR_MASK_PH,
            cpu_id: 3,
            ph: 2,
            tph_mem_type: IBV_TPH_MEM_TYPE_PM as u8,
        }
    }

    #[test]
    fn alloc_and_dealloc_reach_the_provider() {
        let mut c = provider();
        let ctx = c.ctx();
        let mut a = attr();
        // SAFETY: our live fake context and local attributes.
        let d = unsafe { ibv_alloc_dmah(ctx, &mut a) };
        assert!(!d.is_null());
        // SAFETY: the provider's handle.
        assert_eq!(unsafe { (*d).context }, ctx);
        S.with(|s| assert_eq!(s.borrow().allocs, vec![(ctx as usize, 3, 3, 2, 1)]));

        S.with(|s| s.borrow_mut().dealloc_ret = libc::EBUSY);
        // SAFETY: the live handle (kept by the provider on EBUSY).
        assert_eq!(unsafe { ibv_dealloc_dmah(d) }, libc::EBUSY);
        S.with(|s| s.borrow_mut().dealloc_ret = 0);
        // SAFETY: still live.
        assert_eq!(unsafe { ibv_dealloc_dmah(d) }, 0);
        S.with(|s| assert_eq!(s.borrow().deallocs, vec![d as usize, d as usize]));
    }

    #[test]
    fn provider_failure_keeps_its_errno() {
        let mut c = provider();
        S.with(|s| s.borrow_mut().fail = Some(libc::EINVAL));
        let mut a = attr();
        set_errno(0);
        // SAFETY: our live fake context and local attributes.
        assert!(unsafe { ibv_alloc_dmah(c.ctx(), &mut a) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        S.with(|s| assert_eq!(s.borrow().allocs.len(), 1));
    }

    #[test]
    fn without_the_op_it_is_eopnotsupp() {
        // Both a provider of the older private ABI (which cannot have the
        // op) and one of 65 that leaves it unset.
        for pabi in [Pabi::P34, Pabi::P65] {
            let mut c = FakeCtx::with_pabi(0, pabi);
            let mut a = attr();
            set_errno(0);
            // SAFETY: our live fake context with the default ops.
            assert!(unsafe { ibv_alloc_dmah(c.ctx(), &mut a) }.is_null());
            assert_eq!(errno(), libc::EOPNOTSUPP, "{pabi:?}");
            let mut d = ibv_dmah { context: c.ctx() };
            set_errno(0);
            // SAFETY: a handle on that context; the default op ignores it.
            assert_eq!(unsafe { ibv_dealloc_dmah(&mut d) }, libc::EOPNOTSUPP, "{pabi:?}");
            assert_eq!(errno(), 0, "the op's result is returned, errno left alone");
        }
    }

    #[test]
    fn null_arguments_are_einval() {
        let mut c = provider();
        let mut a = attr();
        for (ctx, at) in [(ptr::null_mut(), &mut a as *mut _), (c.ctx(), ptr::null_mut())] {
            set_errno(0);
            // SAFETY: NULL is rejected before use.
            assert!(unsafe { ibv_alloc_dmah(ctx, at) }.is_null());
            assert_eq!(errno(), libc::EINVAL);
        }
        let mut orphan = ibv_dmah { context: ptr::null_mut() };
        for d in [ptr::null_mut(), &mut orphan as *mut ibv_dmah] {
            set_errno(0);
            // SAFETY: rejected before use.
            assert_eq!(unsafe { ibv_dealloc_dmah(d) }, libc::EINVAL);
            assert_eq!(errno(), libc::EINVAL);
        }
        S.with(|s| assert!(s.borrow().allocs.is_empty() && s.borrow().deallocs.is_empty()));
    }
}
