//! The backing page size of an address, for RDMAV_HUGEPAGES_SAFE.
//!
//! Upstream's answer is the `KernelPageSize` of the mapping holding the
//! address in /proc/self/smaps, which it re-reads from the top on every
//! call. The kernel builds smaps text by walking the page tables of every
//! mapping it prints, so the cost grows with the process's mappings:
//! milliseconds per call with a few thousand registrations.
//!
//! Kernels since 6.11 answer the same question directly: the PROCMAP_QUERY
//! ioctl on an open /proc/self/maps returns the mapping holding an address,
//! with `vma_page_size`, the same `vma_kernel_pagesize()` that smaps prints
//! as KernelPageSize (hugetlbfs and device-dax mappings report their huge
//! page size; everything else, transparent huge pages included, the base
//! page size). One ioctl costs about as much as a small syscall, whatever
//! the number of mappings. No caching: a mapping can be replaced at any
//! moment, and the kernel's answer is always current.
//!
//! The fd stays open between calls. After fork() the child inherits it, but
//! it still describes the PARENT's address space, so the child must open its
//! own. A page marked MADV_WIPEONFORK tells: the kernel hands the child that
//! page zero-filled, so a marker written there after opening is gone in any
//! child however it was created (fork, or clone without CLONE_VM).
//!
//! Where the ioctl is missing (older kernels: ENOTTY), refused (seccomp,
//! LSMs) or MADV_WIPEONFORK is missing (before 4.14), the fast path turns
//! itself off for good and every call reads smaps as upstream does.

use std::ffi::{c_int, c_ulong};
use std::io::BufRead;
#[cfg(test)]
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use rdma_util::ffi::errno;

/// The kernel's `struct procmap_query` (include/uapi/linux/fs.h, 6.11+).
#[repr(C)]
#[derive(Default)]
struct procmap_query {
    size: u64,
    query_flags: u64,
    query_addr: u64,
    vma_start: u64,
    vma_end: u64,
    vma_flags: u64,
    vma_page_size: u64,
    vma_offset: u64,
    inode: u64,
    dev_major: u32,
    dev_minor: u32,
    vma_name_size: u32,
    build_id_size: u32,
    vma_name_addr: u64,
    build_id_addr: u64,
}
const _: () = assert!(core::mem::size_of::<procmap_query>() == 104);
const _: () = assert!(core::mem::offset_of!(procmap_query, vma_page_size) == 48);
const _: () = assert!(core::mem::offset_of!(procmap_query, vma_name_addr) == 88);

/// `_IOWR('f', 17, struct procmap_query)`.
const PROCMAP_QUERY: c_ulong = (3 << 30) | (104 << 16) | ((b'f' as c_ulong) << 8) | 17;
const _: () = assert!(PROCMAP_QUERY == 0xc068_6611);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// Not tried yet, or tried and working.
    Usable,
    /// The kernel (or a policy) lacks something: smaps from now on.
    Off,
}

struct Query {
    state: State,
    /// Our /proc/self/maps, or -1.
    fd: c_int,
    /// A MADV_WIPEONFORK page; `*marker == 1` while `fd` is this process's.
    marker: *mut u64,
}

// SAFETY: the raw pointer is only used under the mutex, and the page it
// points to lives for the rest of the process.
unsafe impl Send for Query {}

static QUERY: Mutex<Query> = parking_lot::const_mutex(Query { state: State::Usable, fd: -1, marker: std::ptr::null_mut() });

/// Tests set this to exercise the smaps path on kernels with the ioctl.
#[cfg(test)]
pub(crate) static FORCE_SMAPS: AtomicBool = AtomicBool::new(false);

/// KernelPageSize of the mapping holding `addr`, None if no mapping holds it
/// or nothing can tell (the caller then uses sysconf's page size, as
/// upstream does).
pub(crate) fn backing_page_size(addr: usize) -> Option<usize> {
    #[cfg(test)]
    if FORCE_SMAPS.load(Ordering::Relaxed) {
        return smaps_page_size(addr);
    }
    match query_page_size(addr) {
        Ok(size) => size,
        Err(()) => smaps_page_size(addr),
    }
}

/// The PROCMAP_QUERY answer for `addr`: Ok(None) when no mapping holds it,
/// Err(()) when the fast path is not available.
pub(crate) fn query_page_size(addr: usize) -> Result<Option<usize>, ()> {
    let mut q = QUERY.lock();
    if q.state == State::Off {
        return Err(());
    }
    // SAFETY: marker, when set, points to our own page, never unmapped.
    if q.fd >= 0 && unsafe { q.marker.read_volatile() } != 1 {
        // A child of the process that opened the fd: that fd describes the
        // parent's mappings. Drop our copy of it.
        // SAFETY: closes the fd this module opened (inherited copy).
        unsafe { libc::close(q.fd) };
        q.fd = -1;
    }
    if q.fd < 0 {
        if q.marker.is_null() {
            match wipe_on_fork_page() {
                Some(p) => q.marker = p,
                None => {
                    q.state = State::Off;
                    return Err(());
                }
            }
        }
        // SAFETY: a NUL-terminated path and plain flags.
        let fd = unsafe { libc::open(c"/proc/self/maps".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        if fd < 0 {
            // No /proc: smaps cannot be read either; let that path say so.
            return Err(());
        }
        q.fd = fd;
        // SAFETY: marker points to our own writable page.
        unsafe { q.marker.write_volatile(1) };
    }
    let mut pq = procmap_query {
        size: core::mem::size_of::<procmap_query>() as u64,
        query_addr: addr as u64,
        ..Default::default()
    };
    // SAFETY: PROCMAP_QUERY reads and writes one procmap_query, whose size
    // field says how large ours is; no name or build id buffers are given.
    let r = unsafe { libc::ioctl(q.fd, PROCMAP_QUERY as _, &mut pq as *mut procmap_query) };
    if r == 0 {
        return Ok(Some(pq.vma_page_size as usize));
    }
    match errno() {
        libc::ENOENT => Ok(None),
        _ => {
            // ENOTTY before 6.11; anything else (EPERM from a policy, ...)
            // also means: use smaps.
            // SAFETY: closes the fd opened above.
            unsafe { libc::close(q.fd) };
            q.fd = -1;
            q.state = State::Off;
            Err(())
        }
    }
}

/// One private page marked MADV_WIPEONFORK, or None if the kernel cannot.
fn wipe_on_fork_page() -> Option<*mut u64> {
    // SAFETY: sysconf has no preconditions.
    let ps = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    // SAFETY: a fresh anonymous mapping; no existing memory is affected.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            ps,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: p is the page just mapped.
    if unsafe { libc::madvise(p, ps, libc::MADV_WIPEONFORK) } != 0 {
        // SAFETY: unmaps the page just mapped.
        unsafe { libc::munmap(p, ps) };
        return None;
    }
    Some(p as *mut u64)
}

/// KernelPageSize of the mapping holding `addr`, from /proc/self/smaps; None
/// if no mapping holds it or the file cannot be read. Upstream reads
/// /proc/<getpid()>/smaps, the same file wherever /proc is this process's.
pub(crate) fn smaps_page_size(addr: usize) -> Option<usize> {
    let file = std::fs::File::open("/proc/self/smaps").ok()?;
    let mut lines = std::io::BufReader::with_capacity(64 << 10, file).split(b'\n');
    for line in lines.by_ref() {
        let line = line.ok()?;
        if let Some((lo, hi)) = smaps_header(&line) {
            if addr >= lo && addr < hi {
                break;
            }
        }
    }
    // Upstream takes the first KernelPageSize line after the header (there is
    // one per mapping), in kB.
    for line in lines {
        let line = line.ok()?;
        if let Some(rest) = line.strip_prefix(b"KernelPageSize:") {
            let text = std::str::from_utf8(rest).ok()?;
            if let Some(kb) = text.split_whitespace().next().and_then(|t| t.parse::<usize>().ok()) {
                return Some(kb * 1024);
            }
        }
    }
    None
}

/// `(start, end)` of a smaps mapping header line ("7f00-7f10 rw-p ...").
pub(crate) fn smaps_header(line: &[u8]) -> Option<(usize, usize)> {
    let first = line.split(|&b| b == b' ').next()?;
    let text = std::str::from_utf8(first).ok()?;
    let (lo, hi) = text.split_once('-')?;
    Some((usize::from_str_radix(lo, 16).ok()?, usize::from_str_radix(hi, 16).ok()?))
}
