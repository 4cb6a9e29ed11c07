//! Provider logging: VERBS_LOG_LEVEL and VERBS_LOG_FILE, and the Rust half of
//! `__verbs_log` (the variadic entry point itself is in csrc/variadic.c); also
//! the prefix of the library's own warnings, shared by device discovery, the
//! loader and init.
//!
//! As upstream's release builds: the level comes from VERBS_LOG_LEVEL (parsed
//! like strtol with base 0); logging is only active when VERBS_LOG_FILE names
//! a file that can be opened for appending, otherwise the level drops to 0.

use parking_lot::Mutex;
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::util::{env_bytes, strtol};

/// Prefix of the warnings this library prints (upstream's PFX).
pub(crate) const PFX: &str = "libibverbs: ";

pub(crate) const VERBS_LOG_LEVEL_NONE: u32 = 0;

static LEVEL: AtomicU32 = AtomicU32::new(VERBS_LOG_LEVEL_NONE);
static FILE: Mutex<Option<File>> = Mutex::new(None);

/// Reads the environment once, from library init.
pub(crate) fn init_from_env() {
    let level = env_bytes(c"VERBS_LOG_LEVEL").map(|v| strtol(&v, 0) as u32).unwrap_or(0);
    LEVEL.store(level, Ordering::Relaxed);
    if level == VERBS_LOG_LEVEL_NONE {
        return;
    }
    let opened = env_bytes(c"VERBS_LOG_FILE").and_then(|path| {
        use std::os::fd::FromRawFd;
        let p = rdma_util::fallible::path(&[&path])?;
        // fopen(path, "aw+") in glibc is O_RDWR|O_CREAT|O_APPEND, mode 0666.
        // No O_CLOEXEC: fopen without "e" sets none, so an exec'd child keeps it.
        let flags = libc::O_RDWR | libc::O_CREAT | libc::O_APPEND;
        // SAFETY: p is NUL-terminated; the descriptor returned is ours.
        let fd = unsafe { libc::open(p.c_str()?.as_ptr(), flags, 0o666) };
        // SAFETY: a fresh descriptor, owned by the File from here on.
        (fd >= 0).then(|| unsafe { File::from_raw_fd(fd) })
    });
    match opened {
        Some(f) => *FILE.lock() = Some(f),
        None => LEVEL.store(VERBS_LOG_LEVEL_NONE, Ordering::Relaxed),
    }
}

pub(crate) fn enabled(level: u32) -> bool {
    level <= LEVEL.load(Ordering::Relaxed) && LEVEL.load(Ordering::Relaxed) != VERBS_LOG_LEVEL_NONE
}

pub(crate) fn write(msg: &[u8]) {
    if let Some(f) = FILE.lock().as_mut() {
        let _ = f.write_all(msg);
    }
}

/// Called by the C shim: is a message at `level` logged?
#[no_mangle]
pub(crate) extern "C" fn rs_verbs_log_enabled(level: u32) -> libc::c_int {
    rdma_util::ffi::guard(crate::LIB_NAME, "__verbs_log", 0, || enabled(level) as libc::c_int)
}

/// Called by the C shim with the formatted message.
///
/// # Safety
/// `msg` points to `len` readable bytes.
#[no_mangle]
pub(crate) unsafe extern "C" fn rs_verbs_log_write(msg: *const libc::c_char, len: usize) {
    if msg.is_null() {
        return;
    }
    // SAFETY: the shim passes vasprintf's buffer and its length.
    let bytes = unsafe { std::slice::from_raw_parts(msg.cast::<u8>(), len) };
    rdma_util::ffi::guard(crate::LIB_NAME, "__verbs_log", (), || write(bytes))
}
