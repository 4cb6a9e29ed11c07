//! sysfs access: the sysfs root (SYSFS_PATH), and reading small attribute
//! files with upstream's exact rules (trailing newline stripped, a value that
//! fills the whole buffer without a newline is an error).

use std::ffi::{c_char, c_int};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::OnceLock;

use crate::abi::driver::verbs_sysfs_dev;
use crate::util::{cstr_arg, cstr_field, env_bytes, not_setuid};
use rdma_util::fallible::{path, FixedBuf};
use rdma_util::{ensure, export};

/// Upper bound on the sysfs root's length, as IBV_SYSFS_PATH_MAX.
const SYSFS_PATH_MAX: usize = 256;

static SYSFS_PATH: OnceLock<FixedBuf<{ SYSFS_PATH_MAX + 1 }>> = OnceLock::new();

/// The sysfs root: $SYSFS_PATH (only when not set-uid; at most 256 bytes;
/// trailing slashes removed), else "/sys". Computed once; always
/// NUL-terminated.
pub(crate) fn sysfs_path() -> &'static FixedBuf<{ SYSFS_PATH_MAX + 1 }> {
    SYSFS_PATH.get_or_init(|| {
        let env = if not_setuid() { env_bytes(c"SYSFS_PATH") } else { None };
        let mut v: &[u8] = env.as_deref().unwrap_or(b"/sys");
        v = &v[..v.len().min(SYSFS_PATH_MAX)];
        while let [rest @ .., b'/'] = v {
            v = rest;
        }
        FixedBuf::of(&[v]).expect("at most SYSFS_PATH_MAX bytes")
    })
}

pub(crate) fn sysfs_root() -> &'static [u8] {
    sysfs_path().as_bytes()
}

/// Reads `file` relative to `dir` (a directory fd, or AT_FDCWD) into `buf`.
/// Returns the length read (newline removed, NUL added when room) or -1.
pub(crate) fn read_file_at(dir: Option<BorrowedFd<'_>>, file: &[u8], buf: &mut [u8]) -> isize {
    let Some(p) = path(&[file]) else { return -1 };
    let Some(path) = p.c_str() else { return -1 };
    let dirfd = dir.map(|d| d.as_raw_fd()).unwrap_or(libc::AT_FDCWD);
    // SAFETY: path is NUL-terminated; openat has no other preconditions.
    let fd = unsafe { libc::openat(dirfd, path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return -1;
    }
    // SAFETY: buf is a valid writable buffer of buf.len() bytes; fd is ours.
    let mut len = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    let saved = rdma_util::ffi::errno();
    // SAFETY: fd was opened above and is closed once.
    unsafe { libc::close(fd) };
    rdma_util::ffi::set_errno(saved);
    if len > 0 {
        let n = len as usize;
        if buf[n - 1] == b'\n' {
            len -= 1;
            buf[n - 1] = 0;
        } else if n < buf.len() {
            buf[n] = 0;
        } else {
            // No room for a terminator: the value would be truncated.
            return -1;
        }
    }
    len
}

/// Reads `<dir>/<file>`.
pub(crate) fn read_file(dir: &[u8], file: &[u8], buf: &mut [u8]) -> isize {
    match path(&[dir, b"/", file]) {
        Some(p) => read_file_at(None, p.as_bytes(), buf),
        None => -1,
    }
}

/// Reads `<ibdev_path>/<relpath>` of a device.
pub(crate) fn read_ibdev_file(dev: &verbs_sysfs_dev, relpath: &[u8], buf: &mut [u8]) -> isize {
    read_file(cstr_field(&dev.ibdev_path), relpath, buf)
}

export! {
    /// IBVERBS_1.0: the sysfs root, "/sys" unless SYSFS_PATH overrides it.
    fn ibv_get_sysfs_path() -> *const c_char, on_panic = std::ptr::null();
    {
        sysfs_path().as_c_ptr()
    }
}

export! {
    /// IBVERBS_1.0: reads `dir/file` into `buf`; returns bytes read or -1.
    fn ibv_read_sysfs_file(dir: *const c_char, file: *const c_char, buf: *mut c_char, size: usize) -> c_int, on_panic = -1;
    {
        // SAFETY: the caller passes NUL-terminated strings (NULL is rejected).
        let (Some(dir), Some(file)) = (unsafe { cstr_arg(dir) }, unsafe { cstr_arg(file) }) else {
            rdma_util::ffi::set_errno(libc::EINVAL);
            return -1;
        };
        ensure!(!buf.is_null() || size == 0, libc::EINVAL, -1);
        let out: &mut [u8] = if size == 0 {
            &mut []
        } else {
            // SAFETY: the caller provides `size` writable bytes at `buf`.
            unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), size) }
        };
        read_file(dir, file, out) as c_int
    }
}

/// The Rust half of ibv_read_ibdev_sysfs_file (csrc/variadic.c formats the
/// relative path).
///
/// # Safety
/// `buf` has `size` writable bytes, `dev` points to a verbs_sysfs_dev and
/// `relpath` is NUL-terminated.
#[no_mangle]
pub(crate) unsafe extern "C" fn rs_read_ibdev_sysfs_file(
    buf: *mut c_char,
    size: usize,
    dev: *mut verbs_sysfs_dev,
    relpath: *const c_char,
) -> c_int {
    rdma_util::ffi::guard(crate::LIB_NAME, "ibv_read_ibdev_sysfs_file", -1, || {
        ensure!(!dev.is_null() && (!buf.is_null() || size == 0), libc::EINVAL, -1);
        // SAFETY: checked non-NULL; the shim passes vasprintf's string.
        let Some(rel) = (unsafe { cstr_arg(relpath) }) else { return -1 };
        // SAFETY: providers and our own code pass a live verbs_sysfs_dev.
        let dev = unsafe { &*dev };
        let out: &mut [u8] = if size == 0 {
            &mut []
        } else {
            // SAFETY: the caller provides `size` writable bytes.
            unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), size) }
        };
        read_ibdev_file(dev, rel, out) as c_int
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_rules() {
        let dir = std::env::temp_dir().join(format!("ibv-sysfs-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a"), b"6\n").unwrap();
        std::fs::write(dir.join("b"), b"12345678").unwrap();
        let d = dir.as_os_str().as_encoded_bytes();
        let mut buf = [0xffu8; 8];
        assert_eq!(read_file(d, b"a", &mut buf), 1);
        assert_eq!(&buf[..2], b"6\0");
        // Exactly fills the buffer with no newline: an error, as upstream.
        assert_eq!(read_file(d, b"b", &mut buf), -1);
        let mut big = [0u8; 16];
        assert_eq!(read_file(d, b"b", &mut big), 8);
        assert_eq!(read_file(d, b"missing", &mut big), -1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
