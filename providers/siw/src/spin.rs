//! The queues' lock: a test-and-set spin lock kept inline.
//!
//! Upstream serialises each queue with a `pthread_spinlock_t`; the critical
//! sections are a few dozen stores into the shared ring (and, for the SQ,
//! at most one doorbell system call), so a spin lock fits. This one is an
//! atomic byte taken with one `xchg`, without a call into the C library.

use core::hint::spin_loop;
use core::sync::atomic::{AtomicBool, Ordering};

/// A spin lock over no data: the queue state it protects sits beside it.
#[repr(C)]
#[derive(Default)]
pub struct SpinLock(AtomicBool);

/// Holds a [`SpinLock`] until dropped.
pub struct SpinGuard<'a>(&'a SpinLock);

impl SpinLock {
    /// Takes the lock, spinning while another thread holds it.
    #[inline(always)]
    pub fn lock(&self) -> SpinGuard<'_> {
        while self.0.swap(true, Ordering::Acquire) {
            // Wait on a plain load, so waiters do not bounce the cache line.
            while self.0.load(Ordering::Relaxed) {
                spin_loop();
            }
        }
        SpinGuard(self)
    }

    /// Takes the lock if it is free.
    #[inline]
    pub fn try_lock(&self) -> Option<SpinGuard<'_>> {
        if self.0.swap(true, Ordering::Acquire) {
            None
        } else {
            Some(SpinGuard(self))
        }
    }
}

impl Drop for SpinGuard<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0 .0.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_excludes_and_releases() {
        let l = SpinLock::default();
        let g = l.lock();
        assert!(l.try_lock().is_none());
        drop(g);
        assert!(l.try_lock().is_some());
        // The guard of try_lock released the lock again.
        let _g = l.lock();
    }

    #[test]
    fn counts_under_contention() {
        use std::sync::Arc;
        struct Shared {
            lock: SpinLock,
            n: core::cell::UnsafeCell<u64>,
        }
        // SAFETY: n is only touched with the lock held.
        unsafe impl Sync for Shared {}
        let s = Arc::new(Shared {
            lock: SpinLock::default(),
            n: 0.into(),
        });
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let s = s.clone();
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        let _g = s.lock.lock();
                        // SAFETY: the lock is held.
                        unsafe { *s.n.get() += 1 };
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // SAFETY: every thread has finished.
        assert_eq!(unsafe { *s.n.get() }, 40_000);
    }
}
