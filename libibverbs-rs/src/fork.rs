//! Fork safety: `ibv_fork_init`, `ibv_dontfork_range`, `ibv_dofork_range`,
//! `ibv_is_fork_initialized` (upstream's memory.c, rdma-core 44.0).
//!
//! Registered memory must not be copied-on-write into a child after fork():
//! the parent's next write would move its pages away from the HCA. So every
//! registration marks its pages MADV_DONTFORK, and deregistration marks them
//! MADV_DOFORK again once no other registration covers them. Registrations
//! overlap freely, so each page carries a reference count:
//!   - dontfork adds 1 to every page of the range; pages going 0 -> 1 get
//!     MADV_DONTFORK;
//!   - dofork subtracts 1; pages going 1 -> 0 get MADV_DOFORK.
//!
//! Counts are signed, as upstream's are: an unbalanced dofork takes a page to
//! -1 without any madvise, and the next dontfork only brings it back to 0.
//!
//! # Data structure
//! [`pages::PageCounts`]: two bits per page (count 0, count 1, or another
//! count kept beside them), in chunks of 64 pages that are entries of a
//! small hash table, so that the state of a process's registrations, which
//! sit side by side, takes a few kilobytes and survives the cache pollution
//! of the madvise each non-nested call makes; see that module for why.
//! Upstream keeps a red-black tree of nodes that may or may not be merged;
//! the counts per page, and so the madvise calls, are the same. A call whose
//! pages all need the madvise (a fresh registration, the dofork undoing it)
//! or none of them (a nested one) is done with one pass over its bits, with
//! at most one madvise over the whole range, as upstream's loop would do it.
//! One mutex guards the table ([`lock`]: a futex mutex without atomic
//! operations while the process has one thread, as glibc's pthread mutex,
//! which upstream uses).
//!
//! # Semantics kept from upstream
//! - Nothing happens until `ibv_fork_init()`: dontfork/dofork return 0, but
//!   remember that they were called ("too late"), and `ibv_fork_init()` then
//!   fails with EINVAL forever. This holds for any arguments, NULL/0 included.
//! - `ibv_fork_init()` returns 0 when already initialised (before looking at
//!   "too late"); otherwise probes madvise on one page from posix_memalign
//!   (ENOSYS if MADV_DONTFORK or MADV_DOFORK fails, ENOMEM if the allocation
//!   does), and takes the page size from sysconf (its errno if that fails).
//!   Every call notes RDMAV_HUGEPAGES_SAFE (present, any value); once seen it
//!   stays on.
//! - v44 does not consult the kernel's copy-on-fork support in
//!   `ibv_fork_init()`: the ranges are tracked and madvise()d all the same.
//!   Only `ibv_is_fork_initialized()` asks, and answers IBV_FORK_UNNEEDED
//!   when the kernel copies pinned pages on fork, else ENABLED or DISABLED.
//! - Ranges: with init done, base NULL or size 0 is a no-op returning 0.
//!   Otherwise the range is widened to whole pages, where the page size is
//!   sysconf's, or with RDMAV_HUGEPAGES_SAFE the KernelPageSize of the
//!   mapping holding `base` in /proc/self/smaps (sysconf's if none holds it),
//!   which we ask the kernel for with the PROCMAP_QUERY ioctl where it has
//!   it (Linux 6.11+) instead of reading smaps: see [`pagesize`].
//!   A range whose end wraps past the top of the address space is a no-op
//!   returning 0.
//! - MADV_DOFORK never fails the call: if it fails on the range, it is retried
//!   page by page (errors ignored) and the count still drops.
//! - MADV_DONTFORK can fail (a hole in the range: ENOMEM; a VM_IO mapping:
//!   EINVAL). The call then returns -1 with errno from that madvise, after
//!   rolling back: see "Difference" below.
//!
//! # Difference from upstream (intentional)
//! Upstream v44's rollback is broken. After a failed MADV_DONTFORK it re-walks
//! the range up to the END of the failed node (after merging it with its equal
//! neighbours, often up to the top of the address space) and subtracts 1 from
//! pages that were never incremented, leaving them at -1, without madvise on
//! them. Afterwards registrations there no longer get MADV_DONTFORK (the first
//! dontfork only brings -1 to 0), and the pages the kernel did mark in the
//! failed call stay marked. Debian's library shows it (see the comparison
//! test). We do what upstream's rollback commit (32fd3d611, "make sure
//! VM_DONTCOPY removed") says it intends: the failed range and every range
//! already advised in this call get MADV_DOFORK again, no count changes, and
//! errno is the failed madvise's. The return value (-1) is upstream's.
//!
//! Allocation failure aborts in Rust, so upstream's -1/ENOMEM from a failed
//! node allocation has no counterpart.

use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::abi::verbs::{ibv_fork_status, IBV_FORK_DISABLED, IBV_FORK_ENABLED, IBV_FORK_UNNEEDED};
use rdma_util::ffi::{errno, set_errno};

pub(crate) mod lock;
pub(crate) mod pages;
pub(crate) mod pagesize;
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use pagesize::backing_page_size;
use lock::RawLock;
use lock_api::RawMutex as _;
use parking_lot::Mutex;
use pages::{Change, PageCounts};

/// The counts; meaningful once [`PAGE_SIZE`] is non-zero. See [`lock`] for
/// why this is not a parking_lot mutex.
static COUNTS: lock::Mutex<PageCounts> = lock::Mutex::const_new(RawLock::INIT, PageCounts::new());
/// sysconf(_SC_PAGESIZE), set by a successful ibv_fork_init(); 0 before.
/// Upstream's `mm_root != NULL` test is `PAGE_SIZE != 0` here.
static PAGE_SIZE: AtomicUsize = AtomicUsize::new(0);
/// dontfork/dofork was called before ibv_fork_init().
static TOO_LATE: AtomicBool = AtomicBool::new(false);
/// RDMAV_HUGEPAGES_SAFE was present at some ibv_fork_init() call.
static HUGE_PAGES: AtomicBool = AtomicBool::new(false);
/// Serialises ibv_fork_init() calls.
static INIT_LOCK: Mutex<()> = parking_lot::const_mutex(());

/// ibv_fork_init(): 0, or an errno value (EINVAL when dontfork/dofork ran
/// first, ENOSYS when madvise does not work, ENOMEM). Also called from
/// library init for RDMAV_FORK_SAFE / IBV_FORK_SAFE.
/// The first rdma-core release whose ibv_fork_init does nothing when the
/// kernel makes fork safe by itself.
const FORK_INIT_SKIPPED_SINCE: crate::provider_release::Release = (51, 0);

pub(crate) fn fork_init() -> c_int {
    let _serial = INIT_LOCK.lock();
    if crate::util::env_is_set(c"RDMAV_HUGEPAGES_SAFE") {
        HUGE_PAGES.store(true, Ordering::Relaxed);
    }
    if PAGE_SIZE.load(Ordering::Acquire) != 0 {
        return 0;
    }
    // From rdma-core 51 on, nothing is set up when the kernel copies pinned
    // pages on fork (so IBV_FORK_SAFE and the like are ignored there, and a
    // late call is not EINVAL). On a system of an older release (Debian 12:
    // 44) its library still sets up, and so do we.
    if crate::provider_release::system_release().is_some_and(|r| r >= FORK_INIT_SKIPPED_SINCE)
        && rdma_util::netlink::get_copy_on_fork()
    {
        return 0;
    }
    if TOO_LATE.load(Ordering::Relaxed) {
        return libc::EINVAL;
    }
    // SAFETY: sysconf has no preconditions.
    let ps = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if ps < 0 {
        return errno();
    }
    let ps = ps as usize;
    if let Err(e) = probe_madvise(ps) {
        return e;
    }
    PAGE_SIZE.store(ps, Ordering::Release);
    0
}

/// Upstream's check that MADV_DONTFORK and MADV_DOFORK work: both on one
/// page-aligned heap page (widened to its backing page under
/// RDMAV_HUGEPAGES_SAFE). Err(ENOMEM) if no page, Err(ENOSYS) if madvise fails.
fn probe_madvise(ps: usize) -> Result<(), c_int> {
    let mut tmp: *mut c_void = std::ptr::null_mut();
    // SAFETY: tmp is a valid out-pointer; ps is a power of two and a multiple
    // of sizeof(void *), as posix_memalign requires.
    if unsafe { libc::posix_memalign(&mut tmp, ps, ps) } != 0 {
        return Err(libc::ENOMEM);
    }
    let (addr, len) = if HUGE_PAGES.load(Ordering::Relaxed) {
        let size = backing_page_size(tmp as usize).unwrap_or(ps);
        (tmp as usize & !(size - 1), size)
    } else {
        (tmp as usize, ps)
    };
    let failed = madvise(addr, len, libc::MADV_DONTFORK) != 0 || madvise(addr, len, libc::MADV_DOFORK) != 0;
    // SAFETY: tmp came from posix_memalign above and is freed once.
    unsafe { libc::free(tmp) };
    if failed {
        Err(libc::ENOSYS)
    } else {
        Ok(())
    }
}

/// ibv_is_fork_initialized().
pub(crate) fn fork_status() -> ibv_fork_status {
    status_given(rdma_util::netlink::get_copy_on_fork())
}

fn status_given(copy_on_fork: bool) -> ibv_fork_status {
    if copy_on_fork {
        IBV_FORK_UNNEEDED
    } else if PAGE_SIZE.load(Ordering::Acquire) != 0 {
        IBV_FORK_ENABLED
    } else {
        IBV_FORK_DISABLED
    }
}

/// ibv_dontfork_range(): 0, or -1 with errno set (MADV_DONTFORK failed; the
/// call then changed nothing). A no-op returning 0 before ibv_fork_init().
/// `base` is only used as an address, never dereferenced.
pub(crate) fn dontfork_range(base: *mut c_void, size: usize) -> c_int {
    range_op(base, size, Advice::DontFork)
}

/// ibv_dofork_range(): 0 (MADV_DOFORK failures are absorbed as upstream
/// absorbs them). A no-op returning 0 before ibv_fork_init().
pub(crate) fn dofork_range(base: *mut c_void, size: usize) -> c_int {
    range_op(base, size, Advice::DoFork)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Advice {
    DontFork,
    DoFork,
}

fn range_op(base: *mut c_void, size: usize, advice: Advice) -> c_int {
    let ps = PAGE_SIZE.load(Ordering::Acquire);
    if ps == 0 {
        TOO_LATE.store(true, Ordering::Relaxed);
        return 0;
    }
    let base = base as usize;
    if base == 0 || size == 0 {
        return 0;
    }
    let range_ps = if HUGE_PAGES.load(Ordering::Relaxed) {
        backing_page_size(base).unwrap_or(ps)
    } else {
        ps
    };
    let Some((start, last)) = page_range(base, size, range_ps) else {
        return 0;
    };
    advise_range(&mut COUNTS.lock(), start, last, advice, range_ps)
}

/// `[base, base + size)` widened to whole pages of `ps` bytes, as an inclusive
/// `[start, last]`, computed as upstream computes it (modulo 2^64). None when
/// the end wraps below the start. `size > 0`.
fn page_range(base: usize, size: usize, ps: usize) -> Option<(usize, usize)> {
    let start = base & !(ps - 1);
    let last = (base.wrapping_add(size).wrapping_add(ps - 1) & !(ps - 1)).wrapping_sub(1);
    (last >= start).then_some((start, last))
}

impl Advice {
    /// What the call adds to each page's count, and the count from which
    /// that change needs the madvise.
    fn step(self) -> (i32, i32) {
        match self {
            Advice::DontFork => (1, 0),
            Advice::DoFork => (-1, 1),
        }
    }
}

/// Applies one dontfork/dofork to `counts` and the kernel: see the module docs.
#[inline]
fn advise_range(counts: &mut PageCounts, start: usize, last: usize, advice: Advice, ps: usize) -> c_int {
    let (inc, from) = advice.step();
    // The common cases (a fresh registration over untracked pages, a nested
    // one, the dofork undoing either) need the madvise on all of the range
    // or on none of it, and are done in one pass over its bits. The counts
    // change first: the madvise then comes last, so the kernel's cache
    // pollution does not fall between the lookup and the change.
    match counts.change(start, last, inc, from) {
        Change::Done => return 0,
        Change::Advise => {
            if do_madvise(start, last, advice, ps) != 0 {
                // Only MADV_DONTFORK gets here; undo what it may have done,
                // and take the counts back (every page of the range went
                // from 0 to 1, so adding -inc takes each back to 0).
                let err = errno();
                do_madvise(start, last, Advice::DoFork, ps);
                counts.add(start, last, -inc);
                set_errno(err);
                return -1;
            }
            return 0;
        }
        // Short of memory for the counts the call fails before the kernel
        // is asked anything (upstream's range tree fails its malloc with
        // ENOMEM there too).
        Change::NoRoom => {
            set_errno(libc::ENOMEM);
            return -1;
        }
        Change::General => {}
    }
    let done = counts.with_ranges_of_count(start, last, from, |counts, targets| {
        for (i, &(s, l)) in targets.iter().enumerate() {
            if do_madvise(s, l, advice, ps) != 0 {
                // Only MADV_DONTFORK gets here. Undo what this call did to
                // the kernel, the failed (possibly partly applied) range
                // included.
                let err = errno();
                for &(s, l) in targets[..=i].iter().rev() {
                    do_madvise(s, l, Advice::DoFork, ps);
                }
                set_errno(err);
                return -1;
            }
        }
        counts.add(start, last, inc);
        0
    });
    done.unwrap_or_else(|_| {
        set_errno(libc::ENOMEM);
        -1
    })
}

/// madvise over `[s, l]`. A failed MADV_DOFORK is retried page by page with
/// errors ignored and reported as success, as upstream does.
fn do_madvise(s: usize, l: usize, advice: Advice, ps: usize) -> c_int {
    let len = l.wrapping_sub(s).wrapping_add(1);
    match advice {
        Advice::DontFork => madvise(s, len, libc::MADV_DONTFORK),
        Advice::DoFork => {
            if madvise(s, len, libc::MADV_DOFORK) != 0 && len > ps {
                let mut p = s;
                while p <= l {
                    madvise(p, ps, libc::MADV_DOFORK);
                    match p.checked_add(ps) {
                        Some(n) => p = n,
                        None => break,
                    }
                }
            }
            0
        }
    }
}

fn madvise(addr: usize, len: usize, advice: c_int) -> c_int {
    // SAFETY: MADV_DONTFORK/MADV_DOFORK only change whether a mapping is
    // copied into a child on fork(); they never touch the pages' contents or
    // this process's view of them, whatever the address range.
    unsafe { libc::madvise(addr as *mut c_void, len, advice) }
}

rdma_util::export! {
    /// Enables fork safety for memory registered from now on; 0 or an errno
    /// value (see the module docs).
    fn ibv_fork_init() -> c_int, on_panic = libc::EIO;
    {
        fork_init()
    }
}

rdma_util::export! {
    /// Marks `[base, base + size)` (whole pages) not to be inherited by fork
    /// children, counting overlapping calls; 0, or -1 with errno set.
    fn ibv_dontfork_range(base: *mut c_void, size: usize) -> c_int, on_panic = -1;
    {
        dontfork_range(base, size)
    }
}

rdma_util::export! {
    /// Undoes one ibv_dontfork_range() over `[base, base + size)`; returns 0.
    fn ibv_dofork_range(base: *mut c_void, size: usize) -> c_int, on_panic = -1;
    {
        dofork_range(base, size)
    }
}

rdma_util::export! {
    /// IBV_FORK_UNNEEDED when the kernel copies pinned pages on fork, else
    /// IBV_FORK_ENABLED after a successful ibv_fork_init(), else
    /// IBV_FORK_DISABLED.
    fn ibv_is_fork_initialized() -> ibv_fork_status, on_panic = IBV_FORK_DISABLED;
    {
        fork_status()
    }
}
