//! The index from the descriptors a program sees to what they stand for.
//!
//! When the preload gives a program an rsocket, the number the program gets
//! is a real open descriptor (of /dev/null) that keeps the number taken; the
//! rsocket itself has its own number inside librdmacm. This table maps the
//! program's number (the "index") to the descriptor that does the work, with
//! its kind (rsocket or normal socket) and, in fork-support mode, how far the
//! switch to an rsocket has got. Numbers not in the table are used as they are.
//!
//! Like upstream, the table covers numbers 0..=65535; a socket whose index
//! would be larger cannot be recorded (ENOMEM).
//!
//! dup2 onto another number makes an alias entry that names the first
//! ("primary") entry; the primary counts its references (itself plus one per
//! alias), and the descriptor behind them is closed when the count reaches 0.
//!
//! Lookups run on every read and write of the program, from any thread, so
//! they are one atomic load, no lock. An entry is one 64-bit word (present
//! bit, kind, fork state, descriptor), plus the alias link and the count.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// Highest index the table holds (upstream's limit).
pub(crate) const MAX_INDEX: i32 = 65535;
const SLOTS: usize = MAX_INDEX as usize + 1;

/// What an index stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FdType {
    /// A kernel socket (fd is a real descriptor).
    Normal,
    /// An rsocket (fd is librdmacm's rsocket number).
    Rsocket,
}

/// Fork-support progress of a normal socket (RDMAV_FORK_SAFE): such sockets
/// start as kernel TCP sockets and move to rsockets at their first data call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ForkState {
    /// Nothing pending.
    Ready,
    /// Created in fork-support mode, neither listening nor connected yet.
    Fork,
    /// Listening: the connections it accepts will switch.
    Listen,
    /// Connected (active side): switches at the first data call.
    Active,
    /// Accepted (passive side): switches at the first data call.
    Passive,
}

/// One entry as a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) fd: i32,
    pub(crate) ty: FdType,
    pub(crate) state: ForkState,
}

const PRESENT: u64 = 1 << 63;

fn encode(e: Entry) -> u64 {
    let ty = match e.ty {
        FdType::Normal => 0u64,
        FdType::Rsocket => 1,
    };
    let st = match e.state {
        ForkState::Ready => 0u64,
        ForkState::Fork => 1,
        ForkState::Listen => 2,
        ForkState::Active => 3,
        ForkState::Passive => 4,
    };
    PRESENT | (ty << 32) | (st << 40) | u64::from(e.fd as u32)
}

fn decode(w: u64) -> Option<Entry> {
    if w & PRESENT == 0 {
        return None;
    }
    let ty = if (w >> 32) & 0xff == 1 { FdType::Rsocket } else { FdType::Normal };
    let state = match (w >> 40) & 0xff {
        1 => ForkState::Fork,
        2 => ForkState::Listen,
        3 => ForkState::Active,
        4 => ForkState::Passive,
        _ => ForkState::Ready,
    };
    Some(Entry { fd: w as u32 as i32, ty, state })
}

/// One index's entry.
pub(crate) struct Slot {
    word: AtomicU64,
    /// The primary index this alias was dup2()ed from, or -1.
    dupfd: AtomicI32,
    /// References to the descriptor behind a primary entry.
    refcnt: AtomicI32,
}

impl Slot {
    pub(crate) const fn new() -> Self {
        Slot { word: AtomicU64::new(0), dupfd: AtomicI32::new(-1), refcnt: AtomicI32::new(0) }
    }
}

impl Default for Slot {
    fn default() -> Self {
        Self::new()
    }
}

/// The process's table lives in a static (zero pages until touched).
pub(crate) static SLOTS_STATIC: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];

/// What closing an index has to do, decided by [`FdTable::close_plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClosePlan {
    /// Not ours: close the number itself.
    NotMapped,
    /// Other numbers still refer to the descriptor: release `index` (if any;
    /// a primary entry stays, holding its number, until the last alias goes).
    Keep { release: Option<i32> },
    /// The last reference: release these numbers (already out of the table)
    /// and close the descriptor behind them.
    Last { release: [Option<i32>; 2], fd: i32, ty: FdType },
}

pub(crate) struct FdTable {
    slots: &'static [Slot],
}

/// An index beyond the table, or (for [`FdTable::alias`]) a source with no
/// entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NoEntry;

/// The table of this process.
pub(crate) static TABLE: FdTable = FdTable { slots: &SLOTS_STATIC };

impl FdTable {
    /// A private table (for tests).
    #[cfg(test)]
    pub(crate) fn new_leaked() -> FdTable {
        let v: Vec<Slot> = (0..SLOTS).map(|_| Slot::new()).collect();
        FdTable { slots: v.leak() }
    }

    fn slot(&self, index: i32) -> Option<&Slot> {
        if (0..=MAX_INDEX).contains(&index) {
            self.slots.get(index as usize)
        } else {
            None
        }
    }

    /// The entry of `index`, if it has one.
    #[inline]
    pub(crate) fn get(&self, index: i32) -> Option<Entry> {
        decode(self.slot(index)?.word.load(Ordering::Acquire))
    }

    /// The descriptor to use for `index`: its entry's, or the number itself.
    #[inline]
    pub(crate) fn getd(&self, index: i32) -> i32 {
        self.get(index).map_or(index, |e| e.fd)
    }

    /// Records a new primary entry (one reference). Err when `index` is
    /// beyond the table.
    pub(crate) fn insert(&self, index: i32, e: Entry) -> Result<(), NoEntry> {
        self.insert_with(index, e, -1, 1)
    }

    fn insert_with(&self, index: i32, e: Entry, dupfd: i32, refcnt: i32) -> Result<(), NoEntry> {
        let s = self.slot(index).ok_or(NoEntry)?;
        s.dupfd.store(dupfd, Ordering::Relaxed);
        s.refcnt.store(refcnt, Ordering::Relaxed);
        s.word.store(encode(e), Ordering::Release);
        Ok(())
    }

    /// Changes what an existing entry stands for (keeps its links).
    pub(crate) fn store(&self, index: i32, fd: i32, ty: FdType, state: ForkState) {
        if let Some(s) = self.slot(index) {
            s.word.store(encode(Entry { fd, ty, state }), Ordering::Release);
        }
    }

    /// Removes `index`'s entry; returns what it was.
    pub(crate) fn remove(&self, index: i32) -> Option<Entry> {
        decode(self.slot(index)?.word.swap(0, Ordering::AcqRel))
    }

    /// References to the descriptor behind `index` (0 when it has no entry).
    pub(crate) fn refcnt(&self, index: i32) -> i32 {
        match self.slot(index) {
            Some(s) if self.get(index).is_some() => s.refcnt.load(Ordering::Acquire),
            _ => 0,
        }
    }

    /// The primary entry `index` is an alias of, or -1.
    pub(crate) fn dupfd(&self, index: i32) -> i32 {
        self.slot(index).map_or(-1, |s| s.dupfd.load(Ordering::Acquire))
    }

    /// Makes `new` an alias of `old` (after dup2(old, new) succeeded): same
    /// descriptor and kind, no fork state, one more reference on the primary.
    /// Err when `new` is beyond the table or `old` has no entry.
    pub(crate) fn alias(&self, old: i32, new: i32) -> Result<(), NoEntry> {
        let e = self.get(old).ok_or(NoEntry)?;
        let primary = match self.dupfd(old) {
            -1 => old,
            p => p,
        };
        self.slot(new).ok_or(NoEntry)?;
        let ps = self.slot(primary).ok_or(NoEntry)?;
        ps.refcnt.fetch_add(1, Ordering::AcqRel);
        let entry = Entry { fd: e.fd, ty: e.ty, state: ForkState::Ready };
        self.insert_with(new, entry, primary, 1).inspect_err(|_| {
            ps.refcnt.fetch_sub(1, Ordering::AcqRel);
        })
    }

    /// Drops one reference on primary `p`; Some(entry) when it was the last
    /// (the entry is then removed).
    fn unref_primary(&self, p: i32) -> Option<Entry> {
        let s = self.slot(p)?;
        if s.refcnt.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.remove(p)
        } else {
            None
        }
    }

    /// Takes `index` out as close() does and says what to release.
    pub(crate) fn close_plan(&self, index: i32) -> ClosePlan {
        if self.get(index).is_none() {
            return ClosePlan::NotMapped;
        }
        let dup = self.dupfd(index);
        if dup != -1 {
            // An alias: its own number goes now; the descriptor goes with the
            // last reference, and so does the primary's held number.
            self.remove(index);
            match self.unref_primary(dup) {
                Some(pe) => ClosePlan::Last { release: [Some(index), Some(dup)], fd: pe.fd, ty: pe.ty },
                None => ClosePlan::Keep { release: Some(index) },
            }
        } else {
            let e = self.get(index).expect("checked above");
            match self.unref_primary(index) {
                Some(_) => ClosePlan::Last { release: [Some(index), None], fd: e.fd, ty: e.ty },
                None => ClosePlan::Keep { release: None },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rs(fd: i32) -> Entry {
        Entry { fd, ty: FdType::Rsocket, state: ForkState::Ready }
    }

    #[test]
    fn entries_round_trip_every_kind_and_state() {
        let t = FdTable::new_leaked();
        for (i, ty) in [FdType::Normal, FdType::Rsocket].into_iter().enumerate() {
            for (j, state) in [ForkState::Ready, ForkState::Fork, ForkState::Listen, ForkState::Active, ForkState::Passive]
                .into_iter()
                .enumerate()
            {
                let idx = (i * 10 + j) as i32;
                let e = Entry { fd: 1000 + idx, ty, state };
                t.insert(idx, e).unwrap();
                assert_eq!(t.get(idx), Some(e));
            }
        }
        // fd values need all 32 bits, sign included.
        t.insert(40, rs(i32::MAX)).unwrap();
        assert_eq!(t.get(40).unwrap().fd, i32::MAX);
        t.insert(41, rs(-1)).unwrap();
        assert_eq!(t.get(41).unwrap().fd, -1);
    }

    #[test]
    fn unknown_and_out_of_range_indexes_map_to_themselves() {
        let t = FdTable::new_leaked();
        assert_eq!(t.get(5), None);
        assert_eq!(t.getd(5), 5);
        assert_eq!(t.getd(-1), -1);
        assert_eq!(t.getd(i32::MIN), i32::MIN);
        assert_eq!(t.getd(MAX_INDEX + 1), MAX_INDEX + 1);
        assert!(t.insert(MAX_INDEX + 1, rs(3)).is_err());
        assert!(t.insert(-1, rs(3)).is_err());
        t.insert(MAX_INDEX, rs(3)).unwrap();
        assert_eq!(t.getd(MAX_INDEX), 3);
    }

    #[test]
    fn store_changes_kind_and_state_in_place() {
        let t = FdTable::new_leaked();
        t.insert(7, Entry { fd: 9, ty: FdType::Normal, state: ForkState::Fork }).unwrap();
        t.store(7, 9, FdType::Normal, ForkState::Active);
        assert_eq!(t.get(7).unwrap().state, ForkState::Active);
        t.store(7, 12, FdType::Rsocket, ForkState::Ready);
        assert_eq!(t.get(7), Some(rs(12)));
        assert_eq!(t.refcnt(7), 1);
    }

    #[test]
    fn close_of_a_plain_entry_releases_it() {
        let t = FdTable::new_leaked();
        t.insert(5, rs(77)).unwrap();
        assert_eq!(t.close_plan(5), ClosePlan::Last { release: [Some(5), None], fd: 77, ty: FdType::Rsocket });
        assert_eq!(t.get(5), None);
        assert_eq!(t.close_plan(5), ClosePlan::NotMapped);
    }

    #[test]
    fn dup2_aliases_share_the_descriptor_until_the_last_close_alias_first() {
        let t = FdTable::new_leaked();
        t.insert(5, rs(77)).unwrap();
        t.alias(5, 1).unwrap();
        assert_eq!(t.get(1), Some(rs(77)));
        assert_eq!(t.refcnt(5), 2);
        assert_eq!(t.dupfd(1), 5);
        // An alias of an alias names the primary.
        t.alias(1, 2).unwrap();
        assert_eq!(t.dupfd(2), 5);
        assert_eq!(t.refcnt(5), 3);
        assert_eq!(t.close_plan(1), ClosePlan::Keep { release: Some(1) });
        assert_eq!(t.get(1), None);
        assert_eq!(t.close_plan(2), ClosePlan::Keep { release: Some(2) });
        assert_eq!(t.close_plan(5), ClosePlan::Last { release: [Some(5), None], fd: 77, ty: FdType::Rsocket });
    }

    #[test]
    fn closing_the_primary_first_keeps_its_number_until_the_alias_goes() {
        let t = FdTable::new_leaked();
        t.insert(5, rs(77)).unwrap();
        t.alias(5, 0).unwrap();
        assert_eq!(t.close_plan(5), ClosePlan::Keep { release: None });
        // The primary still holds its entry (and number) for the alias.
        assert_eq!(t.get(5), Some(rs(77)));
        assert_eq!(t.get(0), Some(rs(77)));
        assert_eq!(
            t.close_plan(0),
            ClosePlan::Last { release: [Some(0), Some(5)], fd: 77, ty: FdType::Rsocket }
        );
        assert_eq!(t.get(5), None);
        assert_eq!(t.get(0), None);
    }

    #[test]
    fn alias_needs_a_mapped_source_and_room() {
        let t = FdTable::new_leaked();
        assert!(t.alias(3, 4).is_err());
        t.insert(3, rs(8)).unwrap();
        assert!(t.alias(3, MAX_INDEX + 1).is_err());
        assert_eq!(t.refcnt(3), 1, "a failed alias must not keep a reference");
    }

    #[test]
    fn lookups_from_many_threads_see_whole_entries() {
        // One writer flips an entry between two complete values; readers must
        // only ever see one of them (or none), never a mix.
        let t: &'static FdTable = Box::leak(Box::new(FdTable::new_leaked()));
        let a = Entry { fd: 0x1111, ty: FdType::Normal, state: ForkState::Active };
        let b = Entry { fd: 0x2222, ty: FdType::Rsocket, state: ForkState::Ready };
        t.insert(9, a).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut seen = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        let e = t.get(9);
                        assert!(e == Some(a) || e == Some(b), "torn entry {e:?}");
                        seen += 1;
                    }
                    seen
                })
            })
            .collect();
        for i in 0..200_000 {
            let e = if i % 2 == 0 { b } else { a };
            t.store(9, e.fd, e.ty, e.state);
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().unwrap();
        }
    }
}
