//! Our private data of a context (upstream's verbs_ex_private) and the ops
//! table in it, which every verb goes through. A leaf below `context`, which
//! sets the data up, so that the verbs and queries reach a context's ops
//! without importing the module that opens contexts.

use std::mem::offset_of;

use crate::abi::driver65;
use crate::abi::verbs::*;

/// Our per-context private data (upstream's struct verbs_ex_private), reached
/// through verbs_context.priv. The command channel reads its state through
/// the same pointer, so that state must come first.
#[repr(C)]
pub(crate) struct ContextPriv {
    /// Driver id, whether write() commands travel over the ioctl path, whether
    /// the context was imported, and which ioctl methods the kernel lacks.
    pub(crate) cmd: crate::cmd::CmdCtxState,
    /// The complete ops table: the provider's ops over the dummy ones. It
    /// has every op of the newest private ABI; a provider of an older one
    /// leaves the newer ops at their dummies.
    pub(crate) ops: driver65::verbs_context_ops,
}
const _: () = assert!(offset_of!(ContextPriv, cmd) == 0);

/// The verbs_context that contains a public ibv_context.
///
/// Pure address arithmetic: nothing is read, and `wrapping_sub` has no
/// in-bounds precondition, so this is safe for any pointer. The result is a
/// valid verbs_context only when `ctx` is the `context` member of one, as every
/// context we hand out is (abi_compat == __VERBS_ABI_IS_EXTENDED); callers
/// that dereference it rely on that.
pub(crate) fn verbs_ctx(ctx: *mut ibv_context) -> *mut verbs_context {
    ctx.cast::<u8>().wrapping_sub(offset_of!(verbs_context, context)).cast::<verbs_context>()
}

/// Our private data of a context, shared: what every verb reads.
///
/// # Safety
/// `ctx` is a live context set up by this library's
/// [`init_context`](crate::context::init_context) (opened with
/// ibv_open_device, imported, or allocated by a provider through
/// _verbs_init_and_alloc_context) and not yet passed to verbs_uninit_context.
/// The returned reference must not outlive the context, and no `&mut` to the
/// same ContextPriv (from [`priv_mut`], or verbs_set_ops writing the ops) may
/// be live at the same time. Both are used only while a context is being
/// created, so once the application has the context, liveness is all a caller
/// has to show.
pub(crate) unsafe fn priv_of<'a>(ctx: *mut ibv_context) -> &'a ContextPriv {
    // SAFETY: by the contract, ctx is the context member of a verbs_context
    // whose priv init_context set to a live ContextPriv, freed only by
    // verbs_uninit_context, and nobody holds a &mut to it.
    unsafe { &*(*verbs_ctx(ctx)).priv_.cast::<ContextPriv>() }
}

/// Our private data of a context, exclusive: only for setting it up.
///
/// # Safety
/// As [`priv_of`], and moreover no other reference to the same ContextPriv
/// (from [`priv_of`], [`ops_of`] or `cmd::cmd_state`) is live while the
/// returned one is: in practice, the caller is creating the context and has not
/// handed it out yet.
pub(crate) unsafe fn priv_mut<'a>(ctx: *mut ibv_context) -> &'a mut ContextPriv {
    // SAFETY: as in priv_of; exclusivity is the caller's contract.
    unsafe { &mut *(*verbs_ctx(ctx)).priv_.cast::<ContextPriv>() }
}

/// The full ops table of a context (never NULL entries).
///
/// # Safety
/// The contract of [`priv_of`]: `ctx` is a live context of this library, the
/// reference does not outlive it, and no `&mut` to its ContextPriv is live.
pub(crate) unsafe fn ops_of<'a>(ctx: *mut ibv_context) -> &'a driver65::verbs_context_ops {
    // SAFETY: forwarded caller contract.
    unsafe { &priv_of(ctx).ops }
}
