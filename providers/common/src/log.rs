//! The library's log (`__verbs_log`, VERBS_LOG_LEVEL / VERBS_LOG_FILE), as
//! upstream providers' `verbs_err` writes to it.

use core::ffi::CStr;

use rdma_abi::driver::pabi34_v44::VERBS_LOG_ERR;
use rdma_abi::verbs::{ibv_context, verbs_context};

use crate::context::IBV_CONTEXT_OFFSET;

/// Logs `msg` at error level for `ctx`, as "<device>: <func>: <msg>"; the
/// library prints it only when VERBS_LOG_LEVEL asks for errors. errno is
/// kept.
///
/// # Safety
/// `ctx` is the live `ibv_context` of a context of this provider
/// ([`crate::context::ContextFrame`]).
#[cold]
pub unsafe fn verbs_err(ctx: *mut ibv_context, func: &CStr, msg: &CStr) {
    let Some(v) = crate::verbs::try_verbs() else {
        return;
    };
    let saved = crate::errno();
    let frame: *mut crate::context::ContextFrame<()> =
        ctx.wrapping_byte_sub(IBV_CONTEXT_OFFSET).cast();
    let vctx: *mut verbs_context = crate::context::ContextFrame::vctx(frame, v.pabi);
    // SAFETY: a live context: its device and name are the library's.
    let dev = unsafe { (*(*ctx).device).name.as_ptr() };
    // SAFETY: a printf format with three C strings.
    unsafe {
        crate::verbs_log!(
            v.log(vctx),
            VERBS_LOG_ERR,
            c"%s: %s: %s\n".as_ptr(),
            dev,
            func.as_ptr(),
            msg.as_ptr(),
        )
    };
    crate::set_errno(saved);
}
