//! A context as a provider would get it from `_verbs_init_and_alloc_context`
//! (built by `context::init_context` on zeroed memory, command fd -1), for
//! the tests of the verbs that reach a provider through the context's ops.
//! Either private ABI's layout: the memory is always large enough for 65's.

use std::ffi::c_int;

use crate::abi::driver::*;
use crate::abi::verbs::*;
use crate::abi::{driver65, verbs65};
use crate::pabi::Pabi;

pub(crate) struct FakeCtx {
    mem: Box<verbs65::verbs_context>,
    /// The 44 view of `mem`.
    vctx: *mut verbs_context,
    pub(crate) dev: Box<verbs_device>,
}

impl FakeCtx {
    /// A context of a PABI 34 provider on a device whose `core_support` is
    /// as given.
    pub(crate) fn new(core_support: u64) -> Self {
        Self::with_pabi(core_support, Pabi::P34)
    }

    /// A context of a provider of the given private ABI.
    pub(crate) fn with_pabi(core_support: u64, pabi: Pabi) -> Self {
        // SAFETY: both C structures are valid all-zero (NULL pointers,
        // None ops, zero counters).
        let (mut mem, mut dev) = unsafe {
            (Box::<verbs65::verbs_context>::new_zeroed().assume_init(), Box::<verbs_device>::new_zeroed().assume_init())
        };
        let start: *mut verbs65::verbs_context = &mut *mem;
        let vctx = crate::pabi::v44_of(start.cast(), pabi);
        // The device list's reference: the context's own is taken and
        // dropped by init/uninit, so the device is never "released".
        dev.refcount = 1.into();
        dev.core_support = core_support;
        // SAFETY: zeroed verbs_context; fd -1 is owned by nobody (the
        // kernel probe on it fails with EBADF and uninit skips closing it).
        let rc = unsafe { crate::context::init_context(vctx, &mut dev.device, -1, 0, pabi) };
        assert_eq!(rc, 0);
        assert_eq!(dev.refcount.load(std::sync::atomic::Ordering::Relaxed), 2);
        FakeCtx { mem, vctx, dev }
    }

    pub(crate) fn ctx(&mut self) -> *mut ibv_context {
        // SAFETY: vctx points into self.mem, alive as long as self.
        unsafe { &mut (*self.vctx).context }
    }

    /// The whole context in 65's layout (meaningful for a 65 context).
    pub(crate) fn v65(&mut self) -> &mut verbs65::verbs_context {
        &mut self.mem
    }

    /// The 44 view of the context.
    pub(crate) fn vctx(&mut self) -> *mut verbs_context {
        self.vctx
    }

    /// Installs a PABI 34 `ops` table as a provider would, with verbs_set_ops.
    pub(crate) fn set_ops(&mut self, ops: &verbs_context_ops) {
        // SAFETY: our live context and a complete ops table.
        unsafe { crate::context::verbs_set_ops(self.vctx, ops) };
    }

    /// Installs a PABI 65 `ops` table (the table of a 65 provider, or the
    /// library's dummies) without going through the 34 conversion.
    pub(crate) fn set_ops65(&mut self, ops: &driver65::verbs_context_ops) {
        // SAFETY: our live context, not handed out; a complete ops table.
        unsafe { crate::context::install_ops(self.vctx, ops) };
    }

    pub(crate) fn refcount(&self) -> c_int {
        self.dev.refcount.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for FakeCtx {
    fn drop(&mut self) {
        // SAFETY: the context built in new(), released once.
        unsafe { crate::context::uninit_context(self.vctx) };
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
