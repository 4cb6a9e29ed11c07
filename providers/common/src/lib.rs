//! The provider-side glue every Rust provider of this project shares.
//!
//! A provider is a `cdylib` that libibverbs dlopen()s; it must work under
//! Debian 12's C libibverbs (private ABI IBVERBS_PRIVATE_34 only), sid's
//! (IBVERBS_PRIVATE_65 only) and ours (both). So it has no link-time
//! reference to libibverbs at all: its constructor finds the library that
//! is loading it (`dlopen(NOLOAD)`), picks the private ABI ([`pabi`]) from
//! the file name it was loaded under, resolves every library function it
//! calls with `dlvsym` into one table ([`verbs`]) and registers
//! ([`register`]).
//!
//! - [`pabi`]: which private ABI (34 or 65), and how to tell;
//! - [`verbs`]: the table of libibverbs functions, resolved once, each
//!   typed with its prototype in `rdma_abi::proto::driver` (the types
//!   libibverbs-rs checks its exports against); the functions whose
//!   prototype differs between the ABIs get one method each that hides the
//!   difference, and `__verbs_log` is called with [`verbs_log!`];
//! - [`register`]: the device ops and match tables as statics, and the
//!   registration a provider's constructor runs ([`provider_constructor!`]);
//! - [`context`]: a context whose provider part sits at a fixed offset
//!   from its `ibv_context` under either ABI, its allocation and release,
//!   and the ops table (written with rdma-core 65's layout, converted for 34);
//! - [`mem`]: objects allocated with calloc/free, as C callers expect;
//! - [`queue`]: mapping the queues a kernel driver shares through the
//!   command fd;
//! - [`spin`]: a spin lock for the data path;
//! - [`doorbell`]: the empty POST_SEND command that wakes a kernel QP;
//! - [`log`]: `verbs_err` through the library's `__verbs_log`;
//! - [`op!`]: an op entry point wrapped in the FFI guard.
//!
//! Like rdma-util, nothing here is exported from the provider; the one
//! global is the function table, set once by the constructor.
#![allow(non_camel_case_types)]

pub mod context;
pub mod doorbell;
pub mod log;
pub mod mem;
pub mod pabi;
pub mod queue;
pub mod register;
pub mod spin;
pub mod verbs;

pub use pabi::Pabi;
pub use rdma_util::ffi::guard;

/// Sets the calling thread's C `errno`. Inlined: a call into another crate
/// would make every op that sets errno keep an unwinding landing pad.
#[inline(always)]
pub fn set_errno(e: i32) {
    // SAFETY: __errno_location returns this thread's errno.
    unsafe { *libc::__errno_location() = e };
}

/// Sets errno to `e` and returns `ret`: for error returns, kept out of
/// line so the ops' fast paths stay free of calls.
#[cold]
#[inline(never)]
pub fn fail<R>(e: i32, ret: R) -> R {
    set_errno(e);
    ret
}

/// Reads the calling thread's C `errno`.
#[inline(always)]
pub fn errno() -> i32 {
    // SAFETY: as in set_errno.
    unsafe { *libc::__errno_location() }
}
pub use verbs::verbs;

/// Defines one op entry point: an `unsafe extern "C" fn` (not exported;
/// libibverbs reaches it through the ops table) whose body runs inside the
/// FFI guard, so a panic becomes `on_panic` with errno EIO instead of an
/// unwind into C. The invoking crate defines `LIB_NAME` at its root, which
/// the panic report names.
///
/// ```ignore
/// rdma_provider::op! {
///     fn rxe_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd, on_panic = ptr::null_mut();
///     { ... }
/// }
/// ```
#[macro_export]
// `crate::LIB_NAME` on purpose: the invoking provider's name.
#[allow(clippy::crate_in_macro_def)]
macro_rules! op {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty, on_panic = $fail:expr;
        $body:block
    ) => {
        $(#[$meta])*
        #[allow(clippy::missing_safety_doc)]
        $vis unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            $crate::guard(crate::LIB_NAME, stringify!($name), $fail, move || -> $ret { $body })
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? );
        $body:block
    ) => {
        $(#[$meta])*
        #[allow(clippy::missing_safety_doc)]
        $vis unsafe extern "C" fn $name($($arg: $ty),*) {
            $crate::guard(crate::LIB_NAME, stringify!($name), (), move || $body)
        }
    };
}
