//! Shared queues: memory a kernel driver lends user space through an mmap
//! of the context's command fd, at the offset (the key) and size the create
//! command's reply names.

use core::ffi::{c_int, c_void};
use core::ptr;

/// One mapping of a queue.
#[derive(Clone, Copy, Debug)]
pub struct Mapping {
    pub addr: *mut c_void,
    pub len: usize,
}

impl Mapping {
    /// No mapping.
    pub const NONE: Mapping = Mapping {
        addr: ptr::null_mut(),
        len: 0,
    };

    /// Maps `len` bytes of `cmd_fd` at `offset`, shared and writable.
    /// Err(errno) when the kernel refuses (or the size is 0).
    pub fn map(cmd_fd: c_int, offset: u64, len: usize) -> Result<Mapping, c_int> {
        if len == 0 {
            return Err(libc::EINVAL);
        }
        // SAFETY: a new mapping at an address the kernel chooses; nothing of
        // ours is replaced.
        let addr = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                cmd_fd,
                offset as libc::off_t,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(crate::errno());
        }
        Ok(Mapping { addr, len })
    }

    /// Whether this is a mapping at all.
    pub fn is_mapped(&self) -> bool {
        self.len != 0
    }

    /// Unmaps it (nothing for [`Mapping::NONE`]) and forgets it.
    ///
    /// # Safety
    /// Nothing uses the memory afterwards.
    pub unsafe fn unmap(&mut self) {
        if self.len != 0 {
            // SAFETY: a mapping made by map(), the caller's promise.
            unsafe { libc::munmap(self.addr, self.len) };
        }
        *self = Mapping::NONE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_a_file() {
        let f = std::fs::File::open("/proc/self/exe").unwrap();
        use std::os::fd::AsRawFd;
        // Writable shared mappings of a read-only file are refused: an errno, no crash.
        assert_eq!(
            Mapping::map(f.as_raw_fd(), 0, 4096).unwrap_err(),
            libc::EACCES
        );
        assert_eq!(Mapping::map(-1, 0, 4096).unwrap_err(), libc::EBADF);
        assert_eq!(Mapping::map(f.as_raw_fd(), 0, 0).unwrap_err(), libc::EINVAL);
        let mut m = Mapping::NONE;
        // SAFETY: unmapping nothing.
        unsafe { m.unmap() };
        assert!(!m.is_mapped());
    }
}
