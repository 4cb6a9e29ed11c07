//! A table from descriptor numbers to handles, the shape of rdma-core's
//! "indexer": slot `fd` holds the handle registered under `fd`.
//!
//! The table is a plain type with no instance of its own: each library
//! keeps the statics it needs (this crate holds no global state).
//!
//! - Slots are a vector that grows to exactly `fd + 1` entries when a
//!   larger number is registered and never shrinks.
//! - A read-write lock guards the slots: lookups share it, registering and
//!   removing take it alone.
//! - The count of filled slots is kept beside the lock (changed under the
//!   write lock), so a caller on a path that usually finds the table empty
//!   can skip the lock with [`FdTable::get_if_any`].
//! - Negative numbers are never registered and never found.

use core::ffi::c_int;
use core::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::RwLock;

/// Descriptor number -> handle (typically an `Arc` of the object).
pub struct FdTable<T> {
    slots: RwLock<Vec<Option<T>>>,
    /// Filled slots.
    live: AtomicUsize,
}

impl<T> FdTable<T> {
    /// An empty table (for a static).
    pub const fn new() -> Self {
        FdTable { slots: RwLock::new(Vec::new()), live: AtomicUsize::new(0) }
    }

    /// Registers `v` under `fd`, replacing what was there (dropped after
    /// the lock is released). `v` comes back as the error when `fd` is
    /// negative or the table cannot grow to hold it (no memory).
    pub fn insert(&self, fd: c_int, v: T) -> Result<(), T> {
        let Ok(i) = usize::try_from(fd) else { return Err(v) };
        let mut t = self.slots.write();
        if t.len() <= i {
            let more = i + 1 - t.len();
            if t.try_reserve_exact(more).is_err() {
                return Err(v);
            }
            t.resize_with(i + 1, || None);
        }
        let old = t[i].replace(v);
        if old.is_none() {
            self.live.fetch_add(1, Ordering::Release);
        }
        drop(t);
        drop(old);
        Ok(())
    }

    /// Unregisters `fd`, returning what was there.
    pub fn remove(&self, fd: c_int) -> Option<T> {
        let i = usize::try_from(fd).ok()?;
        let mut t = self.slots.write();
        let v = t.get_mut(i).and_then(Option::take);
        if v.is_some() {
            self.live.fetch_sub(1, Ordering::Release);
        }
        v
    }

    /// Whether something is registered under `fd` (no clone of the handle).
    pub fn contains(&self, fd: c_int) -> bool {
        usize::try_from(fd).is_ok_and(|i| self.slots.read().get(i).is_some_and(Option::is_some))
    }

    /// Whether nothing is registered: one atomic load, no lock.
    pub fn is_empty(&self) -> bool {
        self.live.load(Ordering::Acquire) == 0
    }
}

impl<T: Clone> FdTable<T> {
    /// A clone of the handle registered under `fd` (under the read lock).
    pub fn get(&self, fd: c_int) -> Option<T> {
        let i = usize::try_from(fd).ok()?;
        self.slots.read().get(i).and_then(Clone::clone)
    }

    /// As [`FdTable::get`], but answers None without taking the lock while
    /// the table is empty.
    pub fn get_if_any(&self, fd: c_int) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        self.get(fd)
    }
}

impl<T> Default for FdTable<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn insert_lookup_remove() {
        let t: FdTable<Arc<u32>> = FdTable::new();
        assert!(t.is_empty());
        assert_eq!(t.get_if_any(3), None);
        assert!(t.insert(3, Arc::new(30)).is_ok());
        assert!(!t.is_empty());
        assert_eq!(t.get(3).as_deref(), Some(&30));
        assert_eq!(t.get_if_any(3).as_deref(), Some(&30));
        assert!(t.contains(3));
        assert!(!t.contains(2) && !t.contains(4) && !t.contains(1000));
        assert_eq!(t.get(2), None);
        assert_eq!(t.remove(3).as_deref(), Some(&30));
        assert_eq!(t.remove(3), None);
        assert!(t.is_empty());
        assert_eq!(t.get(3), None);
    }

    #[test]
    fn negative_numbers_are_refused() {
        let t: FdTable<u8> = FdTable::new();
        assert_eq!(t.insert(-1, 1), Err(1));
        assert!(t.is_empty());
        assert_eq!(t.get(-1), None);
        assert!(!t.contains(-1));
        assert_eq!(t.remove(-1), None);
    }

    #[test]
    fn slots_grow_to_the_largest_number_and_stay() {
        let t: FdTable<u8> = FdTable::new();
        t.insert(5, 1).unwrap();
        assert_eq!(t.slots.read().len(), 6);
        t.insert(2, 2).unwrap();
        assert_eq!(t.slots.read().len(), 6);
        t.remove(5);
        assert_eq!(t.slots.read().len(), 6, "never shrinks");
    }

    #[test]
    fn replacing_keeps_the_count() {
        let t: FdTable<u8> = FdTable::new();
        t.insert(1, 1).unwrap();
        t.insert(1, 2).unwrap();
        assert_eq!(t.get(1), Some(2));
        assert_eq!(t.remove(1), Some(2));
        assert!(t.is_empty(), "one entry, counted once");
    }

    #[test]
    fn a_held_handle_outlives_its_removal() {
        let t: FdTable<Arc<u32>> = FdTable::new();
        t.insert(0, Arc::new(7)).unwrap();
        let held = t.get(0).unwrap();
        drop(t.remove(0));
        assert_eq!(*held, 7);
        assert_eq!(Arc::strong_count(&held), 1);
    }
}
