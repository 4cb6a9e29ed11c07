//! DMA-buf heaps (rdma-core 65's `dmabuf_heap.c`, exported at
//! IBVERBS_PRIVATE_65 only): buffers allocated from a Linux DMA-buf heap
//! (`/dev/dma_heap/<name>`), mapped into the process and handed to the
//! device as a dma-buf file descriptor. Providers use them for memory a
//! confidential-computing guest shares with the device: the only heap
//! offered is `system_cc_shared`.
//!
//! A heap handle is the open heap device; each allocation is one
//! `DMA_HEAP_IOCTL_ALLOC` on it, which returns a new dma-buf FD, mapped
//! shared and read-write. The caller keeps the address, the size and the FD
//! and gives all three back to [`ibv_dmabuf_heap_free`].

use core::mem::size_of;
use core::ptr;
use std::ffi::CStr;

use libc::{c_int, c_ulong, c_void};
use rdma_abi::driver::pabi65::ibv_dmabuf_heap;
use rdma_util::ensure;
use rdma_util::ffi::set_errno;

/// The heap rdma-core 65 opens: system memory shared with the host of a
/// confidential-computing guest.
const CC_SHARED_HEAP: &CStr = c"/dev/dma_heap/system_cc_shared";

/// `struct dma_heap_allocation_data` of `<linux/dma-heap.h>` (24 bytes; `fd`
/// at 8, `fd_flags` at 12, `heap_flags` at 16): the allocation request, and
/// the new dma-buf FD in the answer.
#[repr(C)]
struct dma_heap_allocation_data {
    len: u64,
    fd: u32,
    fd_flags: u32,
    heap_flags: u64,
}

/// `DMA_HEAP_IOCTL_ALLOC`: `_IOWR('H', 0, struct dma_heap_allocation_data)`.
const DMA_HEAP_IOCTL_ALLOC: c_ulong =
    nix::request_code_readwrite!(b'H', 0, size_of::<dma_heap_allocation_data>()) as c_ulong;

/// The body of `struct ibv_dmabuf_heap` (opaque to C and in rdma-abi, whose
/// type the exports take): the open heap device. Allocated with calloc()
/// like upstream's, so a failed allocation is ENOMEM rather than an abort.
#[repr(C)]
struct Heap {
    heap_fd: c_int,
}

/// Opens the heap device at `path`: a new handle, or NULL with errno set
/// (open()'s, or ENOMEM).
fn heap_open(path: &CStr) -> *mut ibv_dmabuf_heap {
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        return ptr::null_mut();
    }
    // SAFETY: plain allocation of one handle.
    let heap = unsafe { libc::calloc(1, size_of::<Heap>()) }.cast::<Heap>();
    if heap.is_null() {
        // SAFETY: the descriptor opened above, owned here.
        unsafe { libc::close(fd) };
        set_errno(libc::ENOMEM);
        return ptr::null_mut();
    }
    // SAFETY: fresh allocation of the right size and alignment.
    unsafe { ptr::write(heap, Heap { heap_fd: fd }) };
    heap.cast()
}

/// Maps `size` bytes of the new dma-buf `fd` shared and read-write and
/// hands the FD to the caller in `*dmabuf_fd`. On failure the FD is closed
/// (the caller would have no other use for it), `*dmabuf_fd` is left alone
/// and NULL is returned with mmap()'s errno.
///
/// # Safety
/// `dmabuf_fd` is writable.
unsafe fn map_dmabuf(fd: c_int, size: usize, dmabuf_fd: *mut c_int) -> *mut c_void {
    // SAFETY: a new mapping chosen by the kernel; nothing is overwritten.
    let buf = unsafe {
        libc::mmap(ptr::null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0)
    };
    if buf == libc::MAP_FAILED {
        // SAFETY: the caller hands the descriptor over. A successful close()
        // leaves errno as mmap() set it.
        unsafe { libc::close(fd) };
        return ptr::null_mut();
    }
    // SAFETY: caller guarantee.
    unsafe { *dmabuf_fd = fd };
    buf
}

rdma_util::export! {
    /// Opens the confidential-computing shared heap. Returns a handle for
    /// [`ibv_dmabuf_heap_alloc`] (release it with
    /// [`ibv_dmabuf_heap_destroy`]), or NULL with errno set: ENOENT where the
    /// kernel offers no such heap.
    fn ibv_dmabuf_heap_cc_shared_init() -> *mut ibv_dmabuf_heap, on_panic = ptr::null_mut();
    {
        heap_open(CC_SHARED_HEAP)
    }
}

rdma_util::export! {
    /// Closes the heap device and frees the handle. Buffers already
    /// allocated stay valid.
    fn ibv_dmabuf_heap_destroy(heap: *mut ibv_dmabuf_heap) -> (), on_panic = ();
    {
        ensure!(!heap.is_null(), libc::EINVAL);
        // SAFETY: a handle from ibv_dmabuf_heap_cc_shared_init (calloc'd),
        // released once by its owner.
        unsafe {
            libc::close((*heap.cast::<Heap>()).heap_fd);
            libc::free(heap.cast());
        }
    }
}

rdma_util::export! {
    /// Allocates `size` bytes from the heap and maps them. Returns the
    /// address and stores the buffer's dma-buf FD in `*dmabuf_fd`; or returns
    /// NULL with errno set (the heap's refusal, or mmap()'s) and leaves
    /// `*dmabuf_fd` alone.
    fn ibv_dmabuf_heap_alloc(heap: *mut ibv_dmabuf_heap, size: usize, dmabuf_fd: *mut c_int)
        -> *mut c_void, on_panic = ptr::null_mut();
    {
        ensure!(!heap.is_null() && !dmabuf_fd.is_null(), libc::EINVAL, ptr::null_mut());
        let mut req = dma_heap_allocation_data {
            len: size as u64,
            fd: 0,
            fd_flags: (libc::O_RDWR | libc::O_CLOEXEC) as u32,
            heap_flags: 0,
        };
        // SAFETY: a live heap handle; the request is the struct the ioctl
        // number encodes.
        if unsafe { libc::ioctl((*heap.cast::<Heap>()).heap_fd, DMA_HEAP_IOCTL_ALLOC, &mut req) } < 0 {
            return ptr::null_mut();
        }
        // SAFETY: checked non-NULL; the caller's slot for the FD.
        unsafe { map_dmabuf(req.fd as c_int, size, dmabuf_fd) }
    }
}

rdma_util::export! {
    /// Releases a buffer of [`ibv_dmabuf_heap_alloc`]: unmaps `size` bytes at
    /// `buf` and closes `dmabuf_fd`.
    fn ibv_dmabuf_heap_free(buf: *mut c_void, size: usize, dmabuf_fd: c_int) -> (), on_panic = ();
    {
        // SAFETY: the caller gives back a mapping and FD it got from
        // ibv_dmabuf_heap_alloc and no longer uses.
        unsafe {
            libc::munmap(buf, size);
            libc::close(dmabuf_fd);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::offset_of;
    use rdma_util::ffi::errno;

    #[test]
    fn allocation_request_matches_the_uapi() {
        // Numbers from <linux/dma-heap.h>, printed once by gcc.
        assert_eq!(size_of::<dma_heap_allocation_data>(), 24);
        assert_eq!(
            (
                offset_of!(dma_heap_allocation_data, fd),
                offset_of!(dma_heap_allocation_data, fd_flags),
                offset_of!(dma_heap_allocation_data, heap_flags)
            ),
            (8, 12, 16)
        );
        assert_eq!(DMA_HEAP_IOCTL_ALLOC, 0xc018_4800);
    }

    #[test]
    fn cc_shared_init_opens_that_heap_or_says_why_not() {
        let direct = std::fs::OpenOptions::new().read(true).write(true).open("/dev/dma_heap/system_cc_shared");
        set_errno(0);
        // SAFETY: no arguments.
        let heap = unsafe { ibv_dmabuf_heap_cc_shared_init() };
        match direct {
            Ok(_) => {
                assert!(!heap.is_null());
                // SAFETY: the handle just made.
                unsafe { ibv_dmabuf_heap_destroy(heap) };
            }
            Err(e) => {
                assert!(heap.is_null());
                assert_eq!(Some(errno()), e.raw_os_error());
            }
        }
    }

    #[test]
    fn heap_open_failures_and_an_alloc_the_device_refuses() {
        set_errno(0);
        assert!(heap_open(c"/nonexistent/dma_heap/x").is_null());
        assert_eq!(errno(), libc::ENOENT);

        // /dev/null stands in for a heap device that knows no such ioctl.
        let heap = heap_open(c"/dev/null");
        assert!(!heap.is_null());
        let mut fd = -7;
        // SAFETY: a live handle and FD slot.
        let buf = unsafe { ibv_dmabuf_heap_alloc(heap, 4096, &mut fd) };
        assert!(buf.is_null());
        assert_eq!((errno(), fd), (libc::ENOTTY, -7));
        set_errno(0);
        // SAFETY: NULL arguments are refused before use.
        assert!(unsafe { ibv_dmabuf_heap_alloc(heap, 4096, ptr::null_mut()) }.is_null());
        assert_eq!(errno(), libc::EINVAL);
        // SAFETY: the handle made above, released once.
        unsafe { ibv_dmabuf_heap_destroy(heap) };
    }

    /// A pipe: closing the write end (`.1`) shows as end of file on the read
    /// end (`.0`), even if the number is reused meanwhile.
    fn pipe() -> (c_int, c_int) {
        let mut p = [0; 2];
        // SAFETY: room for the two descriptors.
        assert_eq!(unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) }, 0);
        (p[0], p[1])
    }

    fn write_end_closed(read_end: c_int) -> bool {
        let mut b = [0u8; 1];
        // SAFETY: reads at most one byte into b.
        unsafe { libc::read(read_end, b.as_mut_ptr().cast(), 1) == 0 }
    }

    #[test]
    fn map_then_free_a_buffer() {
        // A memfd stands in for the heap's dma-buf: both map shared.
        // SAFETY: a NUL-terminated name.
        let memfd = unsafe { libc::memfd_create(c"dmabuf-heap-test".as_ptr(), libc::MFD_CLOEXEC) };
        assert!(memfd >= 0);
        // SAFETY: our memfd.
        assert_eq!(unsafe { libc::ftruncate(memfd, 8192) }, 0);
        let mut fd = -1;
        // SAFETY: fd is writable.
        let buf = unsafe { map_dmabuf(memfd, 8192, &mut fd) };
        assert!(!buf.is_null());
        assert_eq!(fd, memfd);
        // SAFETY: 8192 mapped, writable bytes.
        unsafe { ptr::write_bytes(buf.cast::<u8>(), 0x5a, 8192) };
        let mut back = [0u8; 4];
        // SAFETY: the memfd holds the bytes written through the mapping.
        assert_eq!(unsafe { libc::pread(memfd, back.as_mut_ptr().cast(), 4, 4096) }, 4);
        assert_eq!(back, [0x5a; 4]);

        // Freeing unmaps and closes the FD it is given; checked in a child,
        // where no other thread can map the freed range or open a file
        // under the freed number again.
        let (r, w) = pipe();
        // SAFETY: the child only makes system calls before _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork");
        if pid == 0 {
            let mut vec = [0u8; 2];
            // SAFETY: buf and w are the child's copies, given up here.
            let ok = unsafe {
                ibv_dmabuf_heap_free(buf, 8192, w);
                libc::mincore(buf, 8192, vec.as_mut_ptr()) == -1
                    && errno() == libc::ENOMEM
                    && libc::fcntl(w, libc::F_GETFD) == -1
                    && errno() == libc::EBADF
            };
            // SAFETY: ends the forked child without running the parent's exit code.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: waits for the child forked above.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "buffer not released");
        // SAFETY: the parent's own copies, released once.
        unsafe {
            ibv_dmabuf_heap_free(buf, 8192, w);
            libc::close(memfd);
        }
        // The child's copy is gone with it: the parent's was the last.
        assert!(write_end_closed(r));
        // SAFETY: our read end.
        unsafe { libc::close(r) };
    }

    #[test]
    fn a_failed_mapping_closes_the_fd() {
        // A write-only FD cannot be mapped read-write (EACCES): the pipe's
        // write end is closed all the same, with mmap()'s errno kept.
        let (r, w) = pipe();
        set_errno(0);
        let mut fd = -7;
        // SAFETY: fd is writable.
        assert!(unsafe { map_dmabuf(w, 4096, &mut fd) }.is_null());
        assert_eq!((errno(), fd), (libc::EACCES, -7));
        assert!(write_end_closed(r));
        // SAFETY: our read end.
        unsafe { libc::close(r) };
    }
}
