//! Upstream's error messages, word for word.
//!
//! rdma-core's `verbs_err(ctx, fmt, ...)` prints, through the library's
//! `__verbs_log` (only when VERBS_LOG_LEVEL asks for errors),
//! `"<device>: <function>:<line>: "` followed by the message, and keeps
//! errno. The function names and line numbers are those of siw.c (the same
//! in rdma-core 44 and 65), so that a log reads the same with either
//! provider; [`siw_err!`] passes upstream's own format and arguments to
//! `__verbs_log`.

use core::ffi::c_char;

use rdma_abi::driver::pabi34_v44::VERBS_LOG_ERR;
use rdma_abi::verbs::ibv_context;
use rdma_provider::context::ContextFrame;
use rdma_provider::verbs::VerbsLog;

use crate::SiwContext;

/// Calls `f` with the library's `__verbs_log` for the context of `ctx`
/// ([`VerbsLog`], to call with `rdma_provider::verbs_log!`) and its device
/// name, keeping errno.
///
/// # Safety
/// `ctx` is the live `ibv_context` of a context of this provider.
#[cold]
#[inline(never)]
pub(crate) unsafe fn with_log(ctx: *mut ibv_context, f: impl FnOnce(VerbsLog, *const c_char)) {
    let Some(v) = rdma_provider::verbs::try_verbs() else {
        return;
    };
    if ctx.is_null() {
        return;
    }
    let saved = rdma_provider::errno();
    // SAFETY: the caller's promise: a frame of ours.
    let frame = unsafe { ContextFrame::<SiwContext>::from_ibv(ctx) };
    let vctx = ContextFrame::vctx(frame, v.pabi);
    // SAFETY: a live context has its device, whose name is a C string.
    let dev = unsafe { (*(*ctx).device).name.as_ptr() };
    f(v.log(vctx), dev);
    rdma_provider::set_errno(saved);
}

/// The error level of `__verbs_log`.
pub(crate) const ERR: u32 = VERBS_LOG_ERR;

/// `siw_err!(ctx, "function", line, "format" $(, arg)*)`: upstream's
/// `verbs_err(verbs_get_ctx(ctx), "format", args)` at that place of siw.c.
/// The arguments must be what C's varargs take (`c_int`, `u32`, pointers).
macro_rules! siw_err {
    ($ctx:expr, $func:literal, $line:literal, $fmt:literal $(, $arg:expr)* $(,)?) => {
        // SAFETY: $ctx is a context of ours (every caller passes the
        // context of one of our objects); the format's conversions match
        // the arguments, as in upstream's call.
        unsafe {
            $crate::log::with_log($ctx, |log, dev| {
                rdma_provider::verbs_log!(
                    log,
                    $crate::log::ERR,
                    concat!("%s: %s:%d: ", $fmt, "\0").as_ptr().cast::<core::ffi::c_char>(),
                    dev,
                    concat!($func, "\0").as_ptr().cast::<core::ffi::c_char>(),
                    $line as core::ffi::c_int
                    $(, $arg)*
                )
            })
        }
    };
}
pub(crate) use siw_err;
