//! Device memory. Allocating, freeing, copying and registering it are inline
//! functions of verbs.h that call the verbs_context slots, and importing it
//! is with the other imports (`import`); what the library itself exports
//! here is the dma-buf export of device memory (IBVERBS_1.16).

use std::ffi::c_int;

use crate::abi::verbs65::*;
use crate::ctx_priv::ops_of;
use rdma_util::ffi::set_errno;
use rdma_util::{ensure, export};

export! {
    /// ibv_dm_export_dmabuf_fd@@IBVERBS_1.16: a dma-buf file descriptor for
    /// the device memory, from the provider; -1 with errno set on failure
    /// (EOPNOTSUPP without provider support). A NULL DM, or one without its
    /// context, is -1 with errno EINVAL.
    fn ibv_dm_export_dmabuf_fd(dm: *mut ibv_dm) -> c_int, on_panic = -1;
    {
        ensure!(!dm.is_null(), libc::EINVAL, -1);
        // SAFETY: checked non-NULL; the caller's DM.
        let context = unsafe { (*dm).context };
        ensure!(!context.is_null(), libc::EINVAL, -1);
        // SAFETY: the DM's context is a live context of this library.
        let Some(f) = unsafe { ops_of(context) }.dm_export_dmabuf_fd else {
            set_errno(libc::EOPNOTSUPP);
            return -1;
        };
        // SAFETY: provider op on its own DM.
        unsafe { f(dm) }
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
    use std::ptr;

    thread_local! {
        static CALLS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    }

    unsafe extern "C" fn p_export(dm: *mut ibv_dm) -> c_int {
        CALLS.with(|c| c.borrow_mut().push(dm as usize));
        // SAFETY: the caller's DM.
        match unsafe { (*dm).comp_mask } {
            0 => 17,
            e => {
                set_errno(e as c_int);
                -1
            }
        }
    }

    /// A DM of `ctx` (all-zero otherwise).
    fn dm_of(ctx: *mut ibv_context) -> ibv_dm {
        // SAFETY: all-zero is a valid ibv_dm (NULL ops, zero handle).
        let mut dm: ibv_dm = unsafe { std::mem::zeroed() };
        dm.context = ctx;
        dm
    }

    #[test]
    fn dispatches_to_the_provider() {
        let mut c = FakeCtx::with_pabi(0, Pabi::P65);
        // SAFETY: all-zero is every op unset.
        let mut ops: driver65::verbs_context_ops = unsafe { std::mem::zeroed() };
        ops.dm_export_dmabuf_fd = Some(p_export);
        c.set_ops65(&ops);
        let mut dm = dm_of(c.ctx());
        // SAFETY: a DM of our fake context.
        assert_eq!(unsafe { ibv_dm_export_dmabuf_fd(&mut dm) }, 17);
        // The provider's failure and errno come back as they are.
        dm.comp_mask = libc::ENOMEM as u32;
        set_errno(0);
        // SAFETY: as above.
        assert_eq!(unsafe { ibv_dm_export_dmabuf_fd(&mut dm) }, -1);
        assert_eq!(errno(), libc::ENOMEM);
        CALLS.with(|c| assert_eq!(*c.borrow(), vec![&mut dm as *mut ibv_dm as usize; 2]));
    }

    #[test]
    fn without_the_op_it_is_eopnotsupp() {
        for pabi in [Pabi::P34, Pabi::P65] {
            let mut c = FakeCtx::with_pabi(0, pabi);
            let mut dm = dm_of(c.ctx());
            set_errno(0);
            // SAFETY: a DM of our fake context with the default ops.
            assert_eq!(unsafe { ibv_dm_export_dmabuf_fd(&mut dm) }, -1);
            assert_eq!(errno(), libc::EOPNOTSUPP, "{pabi:?}");
        }
    }

    #[test]
    fn null_arguments_are_einval() {
        let mut orphan = dm_of(ptr::null_mut());
        for dm in [ptr::null_mut(), &mut orphan as *mut ibv_dm] {
            set_errno(0);
            // SAFETY: rejected before use.
            assert_eq!(unsafe { ibv_dm_export_dmabuf_fd(dm) }, -1);
            assert_eq!(errno(), libc::EINVAL);
        }
    }
}
