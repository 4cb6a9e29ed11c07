//! The lock around the range table: a futex mutex that, like glibc's own
//! `pthread_mutex_lock` since 2.35, skips the atomic read-modify-write
//! operations while the process has a single thread.
//!
//! Why not `parking_lot::Mutex`: its lock and unlock are one `lock cmpxchg`
//! each, about 7 ns apiece on this project's test machine, and a nested
//! ibv_dontfork_range (a count going 1 -> 2, no syscall) is only some tens of
//! ns of work in all. Upstream's library takes a default pthread mutex, which
//! glibc takes and releases with plain loads and stores in single-threaded
//! processes; without the same trick we would pay ~14 ns per call that
//! upstream does not.
//!
//! The single-threaded test is glibc's `__libc_single_threaded` (glibc 2.32+),
//! the flag glibc's own mutexes and malloc rely on: true means no other thread
//! exists, so no other thread can be looking at the lock word. It turns false
//! in `pthread_create` before the new thread runs. So:
//!   - lock: if single-threaded and the word is 0, store 1 (plain store);
//!     otherwise the usual compare-and-swap, then futex wait.
//!   - unlock: if single-threaded and the word is 1 (no waiter recorded),
//!     store 0; otherwise swap in 0 and wake a waiter if one was recorded.
//!     The flag is read again at unlock, so a thread created while the lock
//!     was held (from a signal handler, say) is woken properly.
//!
//! A call from a signal handler that interrupted a locked section finds the
//! word at 1 and waits forever, as it would with upstream's mutex: the table
//! is never entered twice.
//!
//! States of the word: 0 free, 1 locked, 2 locked and a thread may be waiting
//! (the classic three-state futex mutex).

use std::sync::atomic::{AtomicU32, Ordering};

/// The raw lock; use it through [`Mutex`].
pub(crate) struct RawLock {
    state: AtomicU32,
}

/// A mutex over `T` with [`RawLock`].
pub(crate) type Mutex<T> = lock_api::Mutex<RawLock, T>;

const FREE: u32 = 0;
const LOCKED: u32 = 1;
const CONTENDED: u32 = 2;

#[cfg(target_env = "gnu")]
mod single {
    use std::sync::atomic::{AtomicU8, Ordering};

    extern "C" {
        /// glibc's `char __libc_single_threaded` (GLIBC_2.32), written by
        /// glibc when the process creates its second thread. AtomicU8 has the
        /// layout of `char` and lets glibc change it behind our back.
        static __libc_single_threaded: AtomicU8;
    }

    #[inline(always)]
    pub(crate) fn threaded() -> bool {
        // SAFETY: the symbol is glibc's, always defined and one byte long;
        // reading it atomically is how it may be read while glibc writes it.
        unsafe { __libc_single_threaded.load(Ordering::Relaxed) == 0 }
    }
}

#[cfg(not(target_env = "gnu"))]
mod single {
    #[inline(always)]
    pub(crate) fn threaded() -> bool {
        true
    }
}

impl RawLock {
    #[cold]
    fn lock_slow(&self) {
        // A few rounds of spinning first: the holder is usually done within
        // a microsecond or two (one madvise).
        for _ in 0..40 {
            if self.state.load(Ordering::Relaxed) == FREE
                && self.state.compare_exchange_weak(FREE, LOCKED, Ordering::Acquire, Ordering::Relaxed).is_ok()
            {
                return;
            }
            std::hint::spin_loop();
        }
        // From here on, whoever holds it must wake us: take it as CONTENDED.
        while self.state.swap(CONTENDED, Ordering::Acquire) != FREE {
            futex_wait(&self.state, CONTENDED);
        }
    }

    #[cold]
    fn wake_one(&self) {
        futex_wake(&self.state);
    }
}

// SAFETY: the lock grants exclusive access: `lock` returns only once this
// thread moved the word from FREE to LOCKED/CONTENDED (an atomic
// compare-and-swap or swap, or a plain store while no other thread exists and
// so none can race), and `unlock` gives it back with release ordering (or a
// plain store, again only while no other thread exists).
unsafe impl lock_api::RawMutex for RawLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: RawLock = RawLock { state: AtomicU32::new(FREE) };
    type GuardMarker = lock_api::GuardNoSend;

    #[inline]
    fn lock(&self) {
        if !single::threaded() && self.state.load(Ordering::Relaxed) == FREE {
            // No other thread exists: nobody can change the word between
            // this load and this store.
            self.state.store(LOCKED, Ordering::Relaxed);
            return;
        }
        if self.state.compare_exchange(FREE, LOCKED, Ordering::Acquire, Ordering::Relaxed).is_err() {
            self.lock_slow();
        }
    }

    #[inline]
    fn try_lock(&self) -> bool {
        self.state.compare_exchange(FREE, LOCKED, Ordering::Acquire, Ordering::Relaxed).is_ok()
    }

    #[inline]
    unsafe fn unlock(&self) {
        if !single::threaded() && self.state.load(Ordering::Relaxed) == LOCKED {
            // Still the only thread, so there is no waiter to wake and no
            // other thread to publish our writes to.
            self.state.store(FREE, Ordering::Release);
            return;
        }
        if self.state.swap(FREE, Ordering::Release) == CONTENDED {
            self.wake_one();
        }
    }

    #[inline]
    fn is_locked(&self) -> bool {
        self.state.load(Ordering::Relaxed) != FREE
    }
}

fn futex_wait(word: &AtomicU32, expected: u32) {
    // SAFETY: FUTEX_WAIT only reads the u32 at the given address, which is a
    // live AtomicU32; it returns at once if the value is not `expected`.
    // Interruptions and spurious wakeups are handled by the caller's loop.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE only uses the address as a key to find waiters.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lock_api::RawMutex as _;

    #[test]
    fn excludes_across_threads() {
        // A counter updated with a non-atomic read-modify-write under the
        // lock: lost updates would show if two threads were ever inside.
        static M: Mutex<u64> = Mutex::const_new(RawLock::INIT, 0);
        const THREADS: u64 = 4;
        const ROUNDS: u64 = 50_000;
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                std::thread::spawn(|| {
                    for _ in 0..ROUNDS {
                        let mut g = M.lock();
                        let v = *g;
                        std::hint::black_box(&v);
                        *g = v + 1;
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(*M.lock(), THREADS * ROUNDS);
        assert!(!M.is_locked());
    }

    #[test]
    fn try_lock_sees_a_held_lock() {
        let m: Mutex<()> = Mutex::new(());
        let g = m.lock();
        assert!(m.try_lock().is_none());
        drop(g);
        assert!(m.try_lock().is_some());
    }

    #[test]
    fn waiter_is_woken() {
        // One thread holds the lock long enough that the other must sleep
        // in the futex; it must still get in once the holder lets go.
        static M: Mutex<Vec<u32>> = Mutex::const_new(RawLock::INIT, Vec::new());
        let g = M.lock();
        let t = std::thread::spawn(|| M.lock().push(2));
        // It marks the word CONTENDED once it stops spinning, before it
        // sleeps in the futex.
        while unsafe_state(&M) != CONTENDED {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        drop(g);
        t.join().unwrap();
        assert_eq!(*M.lock(), vec![2]);
        assert_eq!(unsafe_state(&M), FREE);
    }

    fn unsafe_state<T>(m: &Mutex<T>) -> u32 {
        // SAFETY: only reads the word atomically.
        unsafe { m.raw() }.state.load(Ordering::Relaxed)
    }
}
