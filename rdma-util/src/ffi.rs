//! The FFI edge: the one pattern every exported function follows.
//!
//! Each library that uses these macros defines, at its crate root,
//! `pub(crate) const LIB_NAME: &str`: the macros name it as `crate::LIB_NAME`,
//! which resolves in the crate that invokes them, so a panic report says
//! which library failed.
//!
//! Each export is written with [`export!`] (or [`export_versioned!`] for names
//! that exist at two symbol versions). The macro produces an `extern "C"`
//! function whose body
//!   1. runs inside [`guard`], so a panic in our code becomes an error return
//!      with `errno = EIO` instead of unwinding into C (undefined behaviour) or
//!      aborting the application;
//!   2. checks its pointer arguments with [`ensure!`] before touching them,
//!      returning the documented error value with errno set;
//!   3. calls into a safe module that does the real work.
//!
//! errno is the C library's thread-local errno; [`set_errno`] and [`errno`]
//! read and write it directly.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Sets the calling thread's C `errno`.
pub fn set_errno(e: i32) {
    // SAFETY: __errno_location always returns a valid pointer to this thread's errno.
    unsafe { *libc::__errno_location() = e };
}

/// Reads the calling thread's C `errno`.
pub fn errno() -> i32 {
    // SAFETY: as in set_errno.
    unsafe { *libc::__errno_location() }
}

/// Runs `f` and puts errno back as it was: for work that upstream does not
/// do at that point (realpath(3), say, leaves EINVAL behind even when it
/// succeeds), so that the caller sees upstream's errno.
pub fn errno_kept<R>(f: impl FnOnce() -> R) -> R {
    let e = errno();
    let r = f();
    set_errno(e);
    r
}

/// Runs `f`; if it panics, reports `lib` and the function name on stderr,
/// sets errno to EIO and returns `on_panic`.
///
/// Always inlined into the export: as a separate call it cost each exported
/// function 14 to 44 instructions (moving the closure's captures), which is
/// a tenth of a cheap ibv_cmd_* helper. The panic path stays out of line.
#[inline(always)]
pub fn guard<R>(lib: &'static str, name: &'static str, on_panic: R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            report_panic(lib, name);
            on_panic
        }
    }
}

#[cold]
#[inline(never)]
fn report_panic(lib: &'static str, name: &'static str) {
    eprintln!("{lib}: internal error in {name}; returning an error (EIO)");
    set_errno(libc::EIO);
}

/// Blocking calls that POSIX thread cancellation may end.
///
/// glibc ends a cancelled thread that waits in one of its cancellation
/// points (read, write, poll, ...) by unwinding the thread's stack (a
/// "forced unwind"). Upstream's C frames let that through, so an application
/// can stop a thread blocked in, say, rdma_get_cm_event with pthread_cancel
/// (rping cancels its CQ thread that way). In Rust the unwind must not meet
/// a frame that could not unwind (an `extern "C"` function, or a call
/// declared as one: the process aborts) or a `catch_unwind` (which aborts on
/// any unwind that is not a Rust panic), and it should meet no pending
/// destructor either. So:
/// - inside our code, which runs under [`guard`], the system calls that
///   may block are made so that they are not cancellation points (the
///   rdma_cm command channel writes with `syscall(SYS_write)`, see
///   librdmacm's ucma.rs);
/// - the waits an application may cancel, such as the write that fetches
///   the next CM event, are made through these declarations (which allow an
///   unwind) directly in the exported function, outside its guarded parts,
///   with nothing live that has a destructor. Those exports are
///   `extern "C-unwind"`, so the unwind continues into the caller.
pub mod cancellable {
    use core::ffi::{c_int, c_void};

    extern "C-unwind" {
        /// libc's `write`, which may unwind the thread when it is cancelled.
        #[link_name = "write"]
        pub fn write_cancellable(fd: c_int, buf: *const c_void, count: usize) -> isize;
        /// libc's `read`, likewise.
        #[link_name = "read"]
        pub fn read_cancellable(fd: c_int, buf: *mut c_void, count: usize) -> isize;
        /// libc's `poll`, likewise.
        #[link_name = "poll"]
        pub fn poll_cancellable(fds: *mut libc::pollfd, nfds: libc::nfds_t, timeout: c_int) -> c_int;
    }
}

extern "C" {
    // POSIX; not in the libc crate. Not a cancellation point itself.
    fn pthread_setcancelstate(state: core::ffi::c_int, oldstate: *mut core::ffi::c_int) -> core::ffi::c_int;
}

/// glibc's PTHREAD_CANCEL_DISABLE (PTHREAD_CANCEL_ENABLE is 0).
const PTHREAD_CANCEL_DISABLE: core::ffi::c_int = 1;

/// Holds thread cancellation off while alive: for waits deep inside our
/// code, under `guard`, where a cancellation must not unwind (see
/// [`cancellable`]). A cancel requested meanwhile takes effect at the
/// thread's next cancellation point after the wait.
pub struct NoCancel(core::ffi::c_int);

impl NoCancel {
    pub fn new() -> NoCancel {
        let mut old = 0;
        // SAFETY: sets the calling thread's own state; old is a local.
        unsafe { pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &mut old) };
        NoCancel(old)
    }
}

impl Default for NoCancel {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for NoCancel {
    fn drop(&mut self) {
        let mut old = 0;
        // SAFETY: restores the state saved in new().
        unsafe { pthread_setcancelstate(self.0, &mut old) };
    }
}

/// Saves errno across a block, as upstream does around logging.
pub struct ErrnoGuard(i32);
impl ErrnoGuard {
    pub fn new() -> Self {
        ErrnoGuard(errno())
    }
}
impl Default for ErrnoGuard {
    fn default() -> Self {
        Self::new()
    }
}
impl Drop for ErrnoGuard {
    fn drop(&mut self) {
        set_errno(self.0)
    }
}

/// `ensure!(cond, ERRNO, retval)`: if `cond` is false, set errno and return
/// `retval`. In a function returning `()`, `ensure!(cond, ERRNO)` does the same
/// with a plain `return;`.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $errno:expr) => {
        if !$cond {
            $crate::ffi::set_errno($errno);
            return;
        }
    };
    ($cond:expr, $errno:expr, $ret:expr) => {
        if !$cond {
            $crate::ffi::set_errno($errno);
            return $ret;
        }
    };
}

/// Defines one exported C function with the uniform guard.
///
/// ```ignore
/// export! {
///     /// docs
///     fn ibv_get_device_name(device: *mut ibv_device) -> *const c_char, on_panic = ptr::null();
///     { ... }
/// }
/// ```
#[macro_export]
// `crate::LIB_NAME` on purpose: the invoking library's name (see the module docs).
#[allow(clippy::crate_in_macro_def)]
macro_rules! export {
    (
        $(#[$meta:meta])*
        fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty, on_panic = $fail:expr;
        $body:block
    ) => {
        $(#[$meta])*
        #[no_mangle]
        #[allow(clippy::missing_safety_doc)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            $crate::ffi::guard(crate::LIB_NAME, stringify!($name), $fail, move || -> $ret { $body })
        }
    };
}

/// Like [`export!`] but without `#[no_mangle]`: the function keeps a Rust
/// (mangled, hidden) name and is bound to a versioned public name with
/// [`symver!`]. Used for the names upstream exports twice (`@IBVERBS_1.0` and
/// `@@IBVERBS_1.1`).
#[macro_export]
// `crate::LIB_NAME` on purpose, as in export!.
#[allow(clippy::crate_in_macro_def)]
macro_rules! export_versioned {
    (
        $(#[$meta:meta])*
        fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty, on_panic = $fail:expr;
        $body:block
    ) => {
        $(#[$meta])*
        #[allow(clippy::missing_safety_doc)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            $crate::ffi::guard(crate::LIB_NAME, stringify!($name), $fail, move || -> $ret { $body })
        }
    };
}

/// Binds a Rust function to `public@@VERSION` (default) or `public@VERSION`
/// (compat).
///
/// The versioned name is a two-instruction stub that jumps to the Rust
/// function: `.symver` needs a symbol defined in the same object, and the
/// Rust function may live in another codegen unit. The stub's own local name
/// never reaches the dynamic symbol table (`local: *` in the version script).
///
/// `symver!(default ibv_get_device_list, "IBVERBS_1.1", get_device_list);`
/// `symver!(compat  ibv_get_device_list, "IBVERBS_1.0", get_device_list_1_0);`
#[macro_export]
macro_rules! symver {
    (default $public:ident, $ver:literal, $func:path) => {
        $crate::symver!(@stub $public, concat!(stringify!($public), "_default_alias"), "@@", $ver, $func);
    };
    (compat $public:ident, $ver:literal, $func:path) => {
        $crate::symver!(@stub $public, concat!(stringify!($public), "_compat_alias"), "@", $ver, $func);
    };
    (@stub $public:ident, $alias:expr, $at:literal, $ver:literal, $func:path) => {
        #[cfg(target_arch = "x86_64")]
        ::std::arch::global_asm!(
            ".pushsection .text",
            ".p2align 4",
            concat!(".globl ", $alias),
            concat!(".type ", $alias, ", @function"),
            concat!($alias, ":"),
            "jmp {f}",
            concat!(".size ", $alias, ", . - ", $alias),
            concat!(".symver ", $alias, ", ", stringify!($public), $at, $ver),
            ".popsection",
            f = sym $func,
        );
        #[cfg(target_arch = "aarch64")]
        ::std::arch::global_asm!(
            ".pushsection .text",
            ".p2align 4",
            concat!(".globl ", $alias),
            concat!(".type ", $alias, ", %function"),
            concat!($alias, ":"),
            "b {f}",
            concat!(".size ", $alias, ", . - ", $alias),
            concat!(".symver ", $alias, ", ", stringify!($public), $at, $ver),
            ".popsection",
            f = sym $func,
        );
    };
}

#[cfg(test)]
mod guard_tests {
    use super::*;

    #[test]
    fn guard_passes_results_through_and_turns_panics_into_eio() {
        set_errno(0);
        assert_eq!(guard("test", "t", -1, || 7), 7);
        assert_eq!(errno(), 0);
        let r = guard("test", "t", -1, || -> i32 { panic!("deliberate test panic") });
        assert_eq!(r, -1);
        assert_eq!(errno(), libc::EIO);
    }
}
