//! Opening the RDMA character devices (/dev/infiniband/uverbsN, later
//! rdma_cm), including upstream's fallback for the module-autoload race: if
//! the node is not where expected, wait up to 5 s for udev's /dev/char/M:m
//! link to appear.

use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

pub const RDMA_CDEV_DIR: &str = "/dev/infiniband";

/// Longest device node path [`open_cdev`] builds, NUL included.
const PATH_MAX_CDEV: usize = 128;

/// `dir` + `/` + `name` + NUL in `buf`, without the heap or the formatting
/// machinery: this runs on the first event of every process (the device
/// open), where each first-executed instruction costs (a cold i-cache on
/// hardware; a translation under QEMU's TCG, measured in docs/architecture.md,
/// "Concept modules"). None if it does not fit or `name` holds a NUL.
fn join_path<'a>(buf: &'a mut [u8; PATH_MAX_CDEV], dir: &[u8], name: &[u8]) -> Option<&'a CStr> {
    let len = dir.len() + 1 + name.len();
    if len >= buf.len() || dir.contains(&0) || name.contains(&0) {
        return None;
    }
    buf[..dir.len()].copy_from_slice(dir);
    buf[dir.len()] = b'/';
    buf[dir.len() + 1..len].copy_from_slice(name);
    buf[len] = 0;
    // SAFETY: buf[..=len] ends in the NUL just written and holds no other
    // (dir and name were checked above).
    Some(unsafe { CStr::from_bytes_with_nul_unchecked(&buf[..=len]) })
}

/// Opens `path` read-write and checks it is the expected char device
/// (`cdev == 0` accepts any char device).
fn open_checked(path: &CStr, cdev: libc::dev_t) -> Option<OwnedFd> {
    // SAFETY: path is NUL-terminated.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: fd is a fresh descriptor we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: st is a valid out-buffer for fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fd is open.
    let ok = unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0
        && (st.st_mode & libc::S_IFMT) == libc::S_IFCHR
        && (cdev == 0 || st.st_rdev == cdev);
    ok.then_some(fd)
}

/// Waits (inotify on /dev/char, 5 s timer) for /dev/char/MAJ:MIN.
fn open_robust(cdev: libc::dev_t) -> Option<OwnedFd> {
    let path = crate::fixed_format!(64; "/dev/char/{}:{}", libc::major(cdev), libc::minor(cdev))?;
    let path = path.c_str()?;
    // SAFETY: plain syscall wrappers; returned fds are owned below.
    let ifd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK) };
    if ifd < 0 {
        return None;
    }
    // SAFETY: fresh fd.
    let ifd = unsafe { OwnedFd::from_raw_fd(ifd) };
    // SAFETY: NUL-terminated literal path.
    if unsafe { libc::inotify_add_watch(ifd.as_raw_fd(), c"/dev/char/".as_ptr(), libc::IN_CREATE) } < 0 {
        return None;
    }
    // SAFETY: plain syscall.
    let tfd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) };
    if tfd < 0 {
        return None;
    }
    // SAFETY: fresh fd.
    let tfd = unsafe { OwnedFd::from_raw_fd(tfd) };
    let ts = libc::itimerspec {
        it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
        it_value: libc::timespec { tv_sec: 5, tv_nsec: 0 },
    };
    // SAFETY: ts is a valid itimerspec.
    if unsafe { libc::timerfd_settime(tfd.as_raw_fd(), 0, &ts, std::ptr::null_mut()) } < 0 {
        return None;
    }
    if let Some(fd) = open_checked(path, cdev) {
        return Some(fd);
    }
    let raw: [RawFd; 2] = [ifd.as_raw_fd(), tfd.as_raw_fd()];
    loop {
        let mut fds = [
            libc::pollfd { fd: raw[0], events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: raw[1], events: libc::POLLIN, revents: 0 },
        ];
        // SAFETY: fds is a valid array of two pollfds.
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) } <= 0 {
            return None;
        }
        if let Some(fd) = open_checked(path, cdev) {
            return Some(fd);
        }
        if fds[0].revents != 0 {
            let mut buf = [0u8; 512];
            // SAFETY: buf is writable for its length.
            if unsafe { libc::read(raw[0], buf.as_mut_ptr().cast(), buf.len()) } < 0 {
                return None;
            }
        }
        if fds[1].revents != 0 {
            return None;
        }
    }
}

/// Opens /dev/infiniband/<name>, checking it is `cdev`.
pub fn open_cdev(name: &[u8], cdev: libc::dev_t) -> Option<OwnedFd> {
    let mut buf = [0u8; PATH_MAX_CDEV];
    let Some(path) = join_path(&mut buf, RDMA_CDEV_DIR.as_bytes(), name) else {
        // Upstream's snprintf would truncate into a path that cannot exist.
        crate::ffi::set_errno(libc::ENOENT);
        return None;
    };
    match open_checked(path, cdev) {
        Some(fd) => Some(fd),
        None if cdev != 0 => open_robust(cdev),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_paths_are_joined_on_the_stack_and_bad_names_refused() {
        let mut buf = [0u8; PATH_MAX_CDEV];
        let p = join_path(&mut buf, RDMA_CDEV_DIR.as_bytes(), b"uverbs0").unwrap();
        assert_eq!(p.to_bytes(), b"/dev/infiniband/uverbs0");
        let mut buf = [0u8; PATH_MAX_CDEV];
        assert!(join_path(&mut buf, RDMA_CDEV_DIR.as_bytes(), b"uv\0erbs0").is_none());
        // The longest name that fits, and one byte more.
        let fits = vec![b'x'; PATH_MAX_CDEV - RDMA_CDEV_DIR.len() - 2];
        let mut buf = [0u8; PATH_MAX_CDEV];
        assert_eq!(join_path(&mut buf, RDMA_CDEV_DIR.as_bytes(), &fits).unwrap().to_bytes().len(), PATH_MAX_CDEV - 1);
        let long = vec![b'x'; fits.len() + 1];
        let mut buf = [0u8; PATH_MAX_CDEV];
        assert!(join_path(&mut buf, RDMA_CDEV_DIR.as_bytes(), &long).is_none());
        // A name that cannot be joined is not opened; errno says why.
        crate::ffi::set_errno(0);
        assert!(open_cdev(&long, 0).is_none());
        assert_eq!(crate::ffi::errno(), libc::ENOENT);
    }
}
