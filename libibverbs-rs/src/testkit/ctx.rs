//! A context as a provider would get it from `_verbs_init_and_alloc_context`
//! (built by `context::init_context` on zeroed memory, command fd -1), for
//! the tests of the verbs that reach a provider through the context's ops.

use std::ffi::c_int;

use crate::abi::driver::*;
use crate::abi::verbs::*;

pub(crate) struct FakeCtx {
    vctx: Box<verbs_context>,
    pub(crate) dev: Box<verbs_device>,
}

impl FakeCtx {
    /// A context on a device whose `core_support` is as given.
    pub(crate) fn new(core_support: u64) -> Self {
        // SAFETY: both C structures are valid all-zero (NULL pointers,
        // None ops, zero counters).
        let (mut vctx, mut dev) = unsafe {
            (Box::<verbs_context>::new_zeroed().assume_init(), Box::<verbs_device>::new_zeroed().assume_init())
        };
        // The device list's reference: the context's own is taken and
        // dropped by init/uninit, so the device is never "released".
        dev.refcount = 1.into();
        dev.core_support = core_support;
        // SAFETY: zeroed verbs_context; fd -1 is owned by nobody (the
        // kernel probe on it fails with EBADF and uninit skips closing it).
        let rc = unsafe { crate::context::init_context(&mut *vctx, &mut dev.device, -1, 0) };
        assert_eq!(rc, 0);
        assert_eq!(dev.refcount.load(std::sync::atomic::Ordering::Relaxed), 2);
        FakeCtx { vctx, dev }
    }

    pub(crate) fn ctx(&mut self) -> *mut ibv_context {
        &mut self.vctx.context
    }

    /// Installs `ops` as a provider would, with verbs_set_ops.
    pub(crate) fn set_ops(&mut self, ops: &verbs_context_ops) {
        // SAFETY: our live context and a complete ops table.
        unsafe { crate::context::verbs_set_ops(&mut *self.vctx, ops) };
    }

    pub(crate) fn refcount(&self) -> c_int {
        self.dev.refcount.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for FakeCtx {
    fn drop(&mut self) {
        // SAFETY: the context built in new(), released once.
        unsafe { crate::context::verbs_uninit_context(&mut *self.vctx) };
        // Leave the device as a list entry would: not released.
        if !std::thread::panicking() {
            assert_eq!(self.refcount(), 1);
        }
    }
}

/// An ops table with every entry unset (the provider implements nothing).
pub(crate) fn no_ops() -> verbs_context_ops {
    // SAFETY: all-zero is every op None.
    unsafe { std::mem::zeroed() }
}
