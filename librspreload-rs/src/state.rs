//! Process-wide settings, read once on first use: the RS_* and
//! RDMAV_FORK_SAFE environment variables and the preload_config rules.
//!
//! The first export a program calls runs [`init`]. It reads the config file
//! with raw system calls, never through the read/close this library
//! replaces, and a thread that re-enters an export while initialising (say,
//! from an allocator hook) goes on without waiting for itself.

use crate::config::{self, Rule};
use std::cell::Cell;
use std::ffi::CStr;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// RS_SQ_SIZE, RS_RQ_SIZE, RS_INLINE: rsocket options set on each new
/// rsocket (0: leave librdmacm's default).
pub(crate) static SQ_SIZE: AtomicI32 = AtomicI32::new(0);
pub(crate) static RQ_SIZE: AtomicI32 = AtomicI32::new(0);
pub(crate) static SQ_INLINE: AtomicI32 = AtomicI32::new(0);
/// RDMAV_FORK_SAFE: nonzero selects the fork-support mode for TCP sockets.
pub(crate) static FORK_SUPPORT: AtomicI32 = AtomicI32::new(0);

static RULES: OnceLock<Vec<Rule>> = OnceLock::new();

thread_local! {
    static INITIALISING: Cell<bool> = const { Cell::new(false) };
}

/// Reads the settings once. Cheap after the first call.
#[inline]
pub(crate) fn init() {
    if RULES.get().is_none() {
        init_slow();
    }
}

#[cold]
fn init_slow() {
    if INITIALISING.get() {
        return;
    }
    INITIALISING.set(true);
    RULES.get_or_init(|| {
        read_env();
        config::parse(&read_config_file(config::CONFIG_PATH))
    });
    INITIALISING.set(false);
}

fn env_int(name: &CStr) -> Option<i32> {
    // SAFETY: getenv with a NUL-terminated name; the result, if not NULL, is
    // a NUL-terminated string that stays valid while the environment is not
    // changed (we copy it out at once).
    let v = unsafe { libc::getenv(name.as_ptr()) };
    if v.is_null() {
        return None;
    }
    // SAFETY: v is a NUL-terminated string (see above).
    Some(config::atoi(unsafe { CStr::from_ptr(v) }.to_bytes()))
}

fn read_env() {
    if let Some(v) = env_int(c"RS_SQ_SIZE") {
        SQ_SIZE.store(v, Ordering::Relaxed);
    }
    if let Some(v) = env_int(c"RS_RQ_SIZE") {
        RQ_SIZE.store(v, Ordering::Relaxed);
    }
    if let Some(v) = env_int(c"RS_INLINE") {
        SQ_INLINE.store(v, Ordering::Relaxed);
    }
    if let Some(v) = env_int(c"RDMAV_FORK_SAFE") {
        FORK_SUPPORT.store(v, Ordering::Relaxed);
    }
}

/// The file's bytes (empty when it cannot be read), by raw system calls.
fn read_config_file(path: &CStr) -> Vec<u8> {
    let mut data = Vec::new();
    // SAFETY: openat(2) of a NUL-terminated path.
    let fd = unsafe { libc::syscall(libc::SYS_openat, libc::AT_FDCWD, path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return data;
    }
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: read(2) into a stack buffer of the length given.
        let n = unsafe { libc::syscall(libc::SYS_read, fd, buf.as_mut_ptr(), buf.len()) };
        if n < 0 && rdma_util::ffi::errno() == libc::EINTR {
            continue;
        }
        if n <= 0 || data.len() > (1 << 20) {
            break;
        }
        // Short of memory: the rules read so far, as upstream's reader
        // stops at its first failed allocation.
        if rdma_util::fallible::extend(&mut data, &buf[..n as usize]).is_err() {
            break;
        }
    }
    // SAFETY: close(2) of the descriptor opened above.
    unsafe { libc::syscall(libc::SYS_close, fd) };
    data
}

extern "C" {
    /// glibc's short program name (argv[0] after its last '/').
    static program_invocation_short_name: *const libc::c_char;
}

/// Whether this socket() call is one to try on rsockets.
pub(crate) fn intercept(domain: i32, ty: i32, protocol: i32) -> bool {
    let rules = match RULES.get() {
        Some(r) => r.as_slice(),
        None => &[],
    };
    if rules.is_empty() {
        return true;
    }
    // SAFETY: glibc sets this pointer before any code runs and never frees it.
    let name = unsafe { program_invocation_short_name };
    let prog: &[u8] = if name.is_null() {
        b""
    } else {
        // SAFETY: a NUL-terminated string (see above).
        unsafe { CStr::from_ptr(name) }.to_bytes()
    };
    config::intercept(rules, prog, domain, ty, protocol)
}

pub(crate) fn fork_support() -> bool {
    FORK_SUPPORT.load(Ordering::Relaxed) != 0
}
