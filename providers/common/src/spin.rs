//! A spin lock for the data path: the critical sections are a few stores
//! into a shared queue, as under upstream's pthread spin locks. Zeroed
//! memory is an unlocked lock, so it lives in calloc'ed objects as is.

use core::sync::atomic::{AtomicU32, Ordering};

#[repr(transparent)]
#[derive(Default)]
pub struct SpinLock(AtomicU32);

impl SpinLock {
    pub const fn new() -> SpinLock {
        SpinLock(AtomicU32::new(0))
    }

    /// Takes the lock, spinning while another thread holds it. Wholly
    /// inline: a call to an out-of-line slow path would make every
    /// caller save registers and keep an unwinding landing pad for it.
    #[inline(always)]
    pub fn lock(&self) {
        if self
            .0
            .compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            cold();
            loop {
                while self.0.load(Ordering::Relaxed) != 0 {
                    core::hint::spin_loop();
                }
                if self
                    .0
                    .compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    return;
                }
            }
        }
    }

    /// Lets the lock go. Only its holder calls this.
    #[inline(always)]
    pub fn unlock(&self) {
        self.0.store(0, Ordering::Release);
    }

    /// Runs `f` under the lock.
    #[inline(always)]
    pub fn with<R>(&self, f: impl FnOnce() -> R) -> R {
        self.lock();
        struct Unlock<'a>(&'a SpinLock);
        impl Drop for Unlock<'_> {
            #[inline(always)]
            fn drop(&mut self) {
                self.0.unlock()
            }
        }
        let _u = Unlock(self);
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_under_contention() {
        static L: SpinLock = SpinLock::new();
        static mut N: u64 = 0;
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    for _ in 0..100_000 {
                        // SAFETY: N is only touched under L.
                        L.with(|| unsafe { N += 1 });
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // SAFETY: all writers joined.
        assert_eq!(unsafe { N }, 400_000);
    }
}

/// Marks the branch that calls it as the unlikely one (the contended lock),
/// so that the uncontended path is laid out straight.
#[cold]
#[inline(always)]
fn cold() {}
