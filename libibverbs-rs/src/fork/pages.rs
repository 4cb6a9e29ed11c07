//! Per-page reference counts for fork safety, kept as bitmaps.
//!
//! # Why bitmaps
//! A non-nested call (a count going 0 -> 1 or 1 -> 0) is dominated by its
//! madvise, and what the library adds to it is mostly cache misses: the
//! kernel's work on a process with tens of thousands of mappings evicts most
//! of L1 and L2, so whatever the bookkeeping reads next comes from L3 or
//! memory. Measured on the fork bench's layout (docs/architecture.md,
//! "Fork safety"): data under about 64 KiB survives a madvise; a
//! structure with an entry per range (a megabyte at 20,000 ranges) does not,
//! and cost two dependent misses per call.
//!
//! Here the state of the usual page, count 0 or 1, is one bit. Pages are
//! grouped in chunks of 64 (256 KiB of 4 KiB pages): a chunk is one 32-byte
//! entry of an open-addressed hash table keyed by chunk number, holding two
//! bits per page. A call on up to 64 pages within one chunk reads and
//! writes one entry, found without any other indirection. Registrations sit
//! side by side in a few mappings, so 20,000 single-page ranges spread over
//! 160 MiB (the fork bench's layout) take 640 entries: a 32 KiB table, which
//! stays cached across the madvise. Scattered ranges, no two in one 256 KiB,
//! cost one entry each (32 bytes, up to twice that with the table's slack),
//! about what a per-range structure costs, and one cache line per call.
//!
//! A range of N pages costs N / 64 table operations and entries, 0.5 to
//! 1.3 bytes per page with the table's slack: 1 GiB takes 4,096
//! entries. That is small next to pinning the same pages for an MR, but
//! more than upstream's red-black tree, which spends one node per range
//! (see docs/architecture.md, "Fork safety").
//!
//! # Representation
//! Each page has `one` and `exc` bits and an extra count `extra`:
//!   - `count = one + extra`;
//!   - `exc` is set exactly where `extra != 0`;
//!   - `one` set implies `extra >= 0`; `one` clear implies `extra <= 0`.
//!
//! So count 0 is `one = exc = 0` and count 1 is `one = 1, exc = 0`; every
//! other count (2 and up for nested registrations, below 0 after unbalanced
//! doforks) has `exc` set. A page *transitions* under a call, and needs the
//! madvise, exactly when `exc = 0` and `one` is the count the call advises
//! from (0 for a dontfork, 1 for a dofork): its bit flips. Every other page
//! keeps its bit and has `extra` changed.
//!
//! An entry keeps its pages' extra counts as one value shared by all of its
//! `exc` pages (what nesting over whole registrations gives: a chunk of
//! pages registered twice has the shared value 1), or, when they differ, in
//! an array of 64 counts on the side.
//!
//! Entries with no bit set are removed, so the table does not grow with
//! churn over the address space.

use rdma_util::fallible::NoMem;

/// What [`PageCounts::change`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// Done; no page of the range had the count advised from, so no madvise
    /// is due.
    Done,
    /// Done; every page of the range had the count advised from: the whole
    /// range needs the madvise. (To take the change back, add `-inc`.)
    Advise,
    /// Nothing done: some pages need the madvise and some do not. Use
    /// [`PageCounts::with_ranges_of_count`] and [`PageCounts::add`] (for
    /// which room is reserved).
    General,
    /// Nothing done: the memory to track the range is not there (ENOMEM).
    NoRoom,
}

/// log2 of the pages per chunk: one 64-bit word.
const CHUNK_SHIFT: u32 = 6;
const CHUNK_PAGES: usize = 1 << CHUNK_SHIFT;
/// The key of an empty slot (no chunk number comes near it).
const EMPTY: usize = usize::MAX;

/// A chunk: 64 consecutive pages, or an empty slot.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Entry {
    /// Chunk number (page number >> CHUNK_SHIFT), or EMPTY.
    key: usize,
    ones: u64,
    exc: u64,
    /// With `arr == 0`: the extra count of every `exc` page (0 iff none).
    extra: i32,
    /// 0, or 1 + the index in [`PageCounts::arrays`] of the pages' extra
    /// counts (0 exactly where `exc` is clear).
    arr: u32,
}

const VACANT: Entry = Entry { key: EMPTY, ones: 0, exc: 0, extra: 0, arr: 0 };

/// The extra counts of one chunk's pages, when they differ.
type Extras = [i32; CHUNK_PAGES];

/// Calls `f` with the index of every set bit of `bits`, lowest first.
#[inline(always)]
fn for_bits(mut bits: u64, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// Calls `f(key, mask)` for every chunk that the page range `[p0, p1]`
/// meets, in order, with the range's bits in it. `f` returns false to stop.
#[inline(always)]
fn for_chunks(p0: usize, p1: usize, mut f: impl FnMut(usize, u64) -> bool) {
    let (k0, k1) = (p0 >> CHUNK_SHIFT, p1 >> CHUNK_SHIFT);
    for key in k0..=k1 {
        let b0 = if key == k0 { p0 & 63 } else { 0 };
        let b1 = if key == k1 { p1 & 63 } else { 63 };
        if !f(key, (u64::MAX >> (63 - b1)) & (u64::MAX << b0)) {
            return;
        }
    }
}

/// The pages of `m` that transition under a call advising from `from`,
/// given their chunk's `ones` and `exc`.
#[inline(always)]
fn transitions(m: u64, ones: u64, exc: u64, from: i32) -> u64 {
    let sel = if from == 1 { ones } else { !ones };
    m & !exc & sel
}

/// The counts of every page; see the module docs.
pub(crate) struct PageCounts {
    /// log2 of the unit page size (sysconf's), 0 until first use.
    shift: u32,
    /// Open addressing with linear probing; empty or a power of two in
    /// size, at most 3/4 full.
    table: Vec<Entry>,
    /// Chunks held.
    len: usize,
    /// The most chunks the table holds before it must grow (3/4 of it).
    grow_at: usize,
    /// Whether one more chunk can have a per-page array without an
    /// allocation (a free place, or room in `arrays`).
    spare_array: bool,
    /// Per-page extra counts of the chunks that need them, and the free
    /// places among them.
    arrays: Vec<Extras>,
    free: Vec<u32>,
    /// Reused buffer for madvise targets.
    targets: Vec<(usize, usize)>,
}

impl Default for PageCounts {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for PageCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.runs()).finish()
    }
}

/// The count a call advises from: 0 for a dontfork (`inc` 1), 1 for a
/// dofork (`inc` -1).
fn from_of(inc: i32) -> i32 {
    debug_assert!(inc == 1 || inc == -1, "counts change by 1");
    (inc < 0) as i32
}

impl PageCounts {
    pub(crate) const fn new() -> Self {
        PageCounts { shift: 0, table: Vec::new(), len: 0, grow_at: 0, spare_array: false, arrays: Vec::new(), free: Vec::new(), targets: Vec::new() }
    }

    /// A table for pages of `ps` bytes (a power of two) instead of sysconf's.
    #[cfg(test)]
    pub(crate) fn with_page_size(ps: usize) -> Self {
        let mut c = Self::new();
        c.shift = ps.trailing_zeros();
        c
    }

    /// The unit page size is sysconf's, taken at first use. Every range
    /// given is whole pages of that size (or of a huge page, a multiple).
    #[inline(always)]
    fn pages(&mut self, start: usize, last: usize) -> (usize, usize) {
        if self.shift == 0 {
            self.shift = unit_shift();
        }
        let s = self.shift;
        debug_assert!(start <= last);
        debug_assert!(start.trailing_zeros() >= s && last.wrapping_add(1).trailing_zeros() >= s);
        (start >> s, last >> s)
    }

    /// `[p0, p1]` in pages as addresses `[start, last]`.
    fn addrs(&self, p0: usize, p1: usize) -> (usize, usize) {
        (p0 << self.shift, (p1 << self.shift) | ((1usize << self.shift) - 1))
    }

    #[inline(always)]
    fn home(&self, key: usize) -> usize {
        let bits = self.table.len().trailing_zeros();
        ((key as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
    }

    /// The slot of chunk `key`, if it has one.
    #[inline(always)]
    fn find(&self, key: usize) -> Option<usize> {
        if self.table.is_empty() {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut i = self.home(key);
        loop {
            let k = self.table[i].key;
            if k == key {
                return Some(i);
            }
            if k == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// `[ones, exc]` of chunk `key` (0 if it has none).
    #[inline(always)]
    fn bits(&self, key: usize) -> (u64, u64) {
        self.find(key).map_or((0, 0), |i| (self.table[i].ones, self.table[i].exc))
    }

    /// The slot of chunk `key`, made empty if it had none.
    #[inline(always)]
    fn find_or_insert(&mut self, key: usize) -> usize {
        match self.find(key) {
            Some(i) => i,
            None => self.insert(key),
        }
    }

    #[cold]
    fn insert(&mut self, key: usize) -> usize {
        if 4 * (self.len + 1) > 3 * self.table.len() {
            // change() makes room before it inserts (see `room_for`), so
            // this growth is for direct callers (the tests) only.
            if self.grow_to(self.len + 1).is_err() {
                panic!("fork page counts: no room reserved for a new chunk");
            }
        }
        let i = self.vacancy(key);
        self.table[i] = Entry { key, ..VACANT };
        self.len += 1;
        i
    }

    /// A table of at least 64 slots holding `need` chunks at most 3/4 full,
    /// the chunks held moved over; NoMem (and the table as it was) when the
    /// memory is not there.
    #[cold]
    fn grow_to(&mut self, need: usize) -> Result<(), NoMem> {
        let mut n = self.table.len().max(64);
        while need.checked_mul(4).ok_or(NoMem)? > 3 * n {
            n = n.checked_mul(2).ok_or(NoMem)?;
        }
        if n == self.table.len() {
            return Ok(());
        }
        let fresh = rdma_util::fallible::vec_filled(VACANT, n)?;
        let old = std::mem::replace(&mut self.table, fresh);
        self.grow_at = 3 * n / 4;
        for e in old.into_iter().filter(|e| e.key != EMPTY) {
            let i = self.vacancy(e.key);
            self.table[i] = e;
        }
        Ok(())
    }

    /// Room for a change over `chunks` chunks: a slot for each, and a
    /// per-page array for each should they all need one, so that the change
    /// cannot allocate. Reserved array room is only address space until
    /// used. NoMem (nothing changed) when the room cannot be had.
    #[inline(always)]
    fn room_for(&mut self, chunks: usize) -> Result<(), NoMem> {
        if self.len + chunks <= self.grow_at && self.array_room() >= chunks {
            return Ok(());
        }
        self.make_room(chunks)
    }

    #[cold]
    fn make_room(&mut self, chunks: usize) -> Result<(), NoMem> {
        self.grow_to(self.len.checked_add(chunks).ok_or(NoMem)?)?;
        if self.array_room() < chunks {
            self.arrays.try_reserve(chunks.saturating_sub(self.free.len())).map_err(|_| NoMem)?;
            // Every free place is an array's index: room for all of them.
            let cap = self.arrays.capacity();
            self.free.try_reserve(cap - self.free.len()).map_err(|_| NoMem)?;
        }
        self.note_spare_array();
        Ok(())
    }

    /// How many chunks can get a per-page array without an allocation.
    fn array_room(&self) -> usize {
        self.free.len() + (self.arrays.capacity() - self.arrays.len())
    }

    fn note_spare_array(&mut self) {
        self.spare_array = self.array_room() > 0;
    }

    /// The first empty slot on `key`'s probe sequence.
    fn vacancy(&self, key: usize) -> usize {
        let mask = self.table.len() - 1;
        let mut i = self.home(key);
        while self.table[i].key != EMPTY {
            i = (i + 1) & mask;
        }
        i
    }

    /// Drops the chunk in slot `i` if no bit of it is set.
    #[inline(always)]
    fn prune(&mut self, i: usize) {
        let e = &self.table[i];
        if e.ones | e.exc == 0 {
            self.remove(i);
        }
    }

    /// Drops the chunk in slot `i`, which has no bit set.
    #[cold]
    fn remove(&mut self, mut i: usize) {
        debug_assert!(self.table[i].extra == 0 && self.table[i].arr == 0);
        let mask = self.table.len() - 1;
        // Backward-shift deletion keeps every probe sequence unbroken.
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let e = self.table[j];
            if e.key == EMPTY {
                break;
            }
            let h = self.home(e.key);
            // The entry at j stays unless its home lies cyclically outside
            // (i, j].
            let stays = if i <= j { i < h && h <= j } else { i < h || h <= j };
            if !stays {
                self.table[i] = e;
                i = j;
            }
        }
        self.table[i] = VACANT;
        self.len -= 1;
    }

    /// Adds `inc` to the extra count of the pages `n` of the chunk in slot
    /// `i` (none of them transitions) and keeps their `exc` bits.
    #[inline(always)]
    fn add_extra(&mut self, i: usize, n: u64, inc: i32) {
        let e = &mut self.table[i];
        if n == 0 {
            return;
        }
        let (zero_in, old_in, exc_out) = (n & !e.exc, n & e.exc, e.exc & !n);
        if e.arr == 0 {
            if e.exc == 0 {
                // No page had an extra count: all of `n` get `inc`.
                e.exc = n;
                e.extra = inc;
                return;
            }
            let v = e.extra;
            let new = v + inc;
            if zero_in == 0 && new == 0 {
                // All of `n` had v and go to 0; the other exc pages keep v.
                e.exc &= !n;
                if e.exc == 0 {
                    e.extra = 0;
                }
                return;
            }
            if zero_in == 0 && exc_out == 0 {
                // Every exc page is in `n`: all go from v to new.
                e.extra = new;
                return;
            }
            if old_in == 0 && inc == v {
                // All of `n` go from 0 to v, as the others are.
                e.exc |= n;
                return;
            }
            self.spread(i);
        }
        let e = &mut self.table[i];
        let a = &mut self.arrays[e.arr as usize - 1];
        for_bits(n, |b| {
            a[b] += inc;
            if a[b] != 0 {
                e.exc |= 1 << b;
            } else {
                e.exc &= !(1 << b);
            }
        });
        if e.exc == 0 {
            self.free.push(e.arr - 1);
            e.arr = 0;
            self.spare_array = true;
        }
    }

    /// Gives the chunk in slot `i`, whose exc pages share one extra count,
    /// an array of per-page counts instead.
    #[cold]
    fn spread(&mut self, i: usize) {
        let (exc, v) = (self.table[i].exc, self.table[i].extra);
        let mut a = [0i32; CHUNK_PAGES];
        for_bits(exc, |b| a[b] = v);
        let at = match self.free.pop() {
            Some(at) => {
                self.arrays[at as usize] = a;
                at
            }
            None => {
                self.arrays.push(a);
                self.arrays.len() as u32 - 1
            }
        };
        let e = &mut self.table[i];
        e.arr = at + 1;
        e.extra = 0;
        self.note_spare_array();
    }

    /// Whether some page of `[p0, p1]` transitions under a call advising
    /// from `from`, and whether all do.
    #[inline(always)]
    fn classify(&self, p0: usize, p1: usize, from: i32) -> (bool, bool) {
        let (mut any, mut all) = (false, true);
        for_chunks(p0, p1, |key, m| {
            let (ones, exc) = self.bits(key);
            let t = transitions(m, ones, exc, from);
            any |= t != 0;
            all &= t == m;
            all || !any
        });
        (any, all)
    }

    /// Adds `inc` (1 or -1) over `[start, last]` when the range needs the
    /// madvise on all of it or on none of it (see [`Change`]). `keep` is the
    /// count advised from: 0 for a dontfork, 1 for a dofork.
    #[inline]
    pub(crate) fn change(&mut self, start: usize, last: usize, inc: i32, keep: i32) -> Change {
        debug_assert_eq!(keep, from_of(inc));
        let (p0, p1) = self.pages(start, last);
        // Room first, so that nothing below allocates (nor the `add` that
        // follows a General answer); in the one-chunk case only what its
        // branch can use, checked where it is cheapest.
        if p0 >> CHUNK_SHIFT == p1 >> CHUNK_SHIFT {
            // One chunk (every registration of up to 256 KiB that does not
            // cross a 256 KiB boundary), spelt out.
            let key = p0 >> CHUNK_SHIFT;
            let m = (u64::MAX >> (63 - (p1 & 63))) & (u64::MAX << (p0 & 63));
            let found = self.find(key);
            let (ones, exc) = found.map_or((0, 0), |i| (self.table[i].ones, self.table[i].exc));
            let t = transitions(m, ones, exc, keep);
            if found.is_none() && self.len >= self.grow_at && self.make_room(1).is_err() {
                return Change::NoRoom;
            }
            return if t == m {
                // Bits flip: no per-page array can be needed.
                let i = found.unwrap_or_else(|| self.insert(key));
                self.table[i].ones ^= m;
                if inc < 0 {
                    self.prune(i);
                }
                Change::Advise
            } else if t == 0 {
                // Extra counts change: the chunk may need an array.
                if !self.spare_array && self.make_room(1).is_err() {
                    return Change::NoRoom;
                }
                let i = found.unwrap_or_else(|| self.insert(key));
                self.add_extra(i, m, inc);
                self.prune(i);
                Change::Done
            } else if self.room_for(1).is_err() {
                Change::NoRoom
            } else {
                Change::General
            };
        }
        if self.room_for((p1 >> CHUNK_SHIFT) - (p0 >> CHUNK_SHIFT) + 1).is_err() {
            return Change::NoRoom;
        }
        let (any, all) = self.classify(p0, p1, keep);
        if all {
            for_chunks(p0, p1, |key, m| {
                let i = self.find_or_insert(key);
                self.table[i].ones ^= m;
                self.prune(i);
                true
            });
            Change::Advise
        } else if !any {
            for_chunks(p0, p1, |key, m| {
                let i = self.find_or_insert(key);
                self.add_extra(i, m, inc);
                self.prune(i);
                true
            });
            Change::Done
        } else {
            Change::General
        }
    }

    /// Calls `f` with the maximal sub-ranges of `[start, last]` whose count
    /// is `value` (0 or 1), in ascending order, without allocating once warm
    /// (NoMem, before `f` is called, when the list cannot be had).
    pub(crate) fn with_ranges_of_count<R>(
        &mut self,
        start: usize,
        last: usize,
        value: i32,
        f: impl FnOnce(&mut Self, &[(usize, usize)]) -> R,
    ) -> Result<R, NoMem> {
        let (p0, p1) = self.pages(start, last);
        let mut runs = std::mem::take(&mut self.targets);
        runs.clear();
        let mut room = Ok(());
        for_chunks(p0, p1, |key, m| {
            let (ones, exc) = self.bits(key);
            room = push_runs(&mut runs, key << CHUNK_SHIFT, transitions(m, ones, exc, value));
            room.is_ok()
        });
        if room.is_err() {
            self.targets = runs;
            return Err(NoMem);
        }
        for r in runs.iter_mut() {
            *r = self.addrs(r.0, r.1);
        }
        let out = f(self, &runs);
        self.targets = runs;
        Ok(out)
    }

    /// Adds `inc` (1 or -1) to the count of every page in `[start, last]`.
    pub(crate) fn add(&mut self, start: usize, last: usize, inc: i32) {
        let from = from_of(inc);
        let (p0, p1) = self.pages(start, last);
        for_chunks(p0, p1, |key, m| {
            let i = self.find_or_insert(key);
            let e = &mut self.table[i];
            let t = transitions(m, e.ones, e.exc, from);
            e.ones ^= t;
            self.add_extra(i, m & !t, inc);
            self.prune(i);
            true
        });
    }

    /// The count of the page holding `addr`.
    #[cfg(test)]
    pub(crate) fn count_at(&self, addr: usize) -> i32 {
        let sh = if self.shift == 0 { unit_shift() } else { self.shift };
        let p = addr >> sh;
        match self.find(p >> CHUNK_SHIFT) {
            Some(i) => self.count_in(&self.table[i], p & (CHUNK_PAGES - 1)),
            None => 0,
        }
    }

    /// The count of page `b` of chunk `e`.
    fn count_in(&self, e: &Entry, b: usize) -> i32 {
        let one = (e.ones >> b & 1) as i32;
        if e.exc >> b & 1 == 0 {
            one
        } else if e.arr == 0 {
            one + e.extra
        } else {
            one + self.arrays[e.arr as usize - 1][b]
        }
    }

    /// The maximal runs of equal non-zero count, as `(start, last, count)`
    /// in address order.
    pub(crate) fn runs(&self) -> impl Iterator<Item = (usize, usize, i32)> + '_ {
        let sh = self.shift;
        let mut order: Vec<&Entry> = self.table.iter().filter(|e| e.key != EMPTY).collect();
        order.sort_unstable_by_key(|e| e.key);
        let mut out: Vec<(usize, usize, i32)> = Vec::new();
        for e in order {
            for b in 0..CHUNK_PAGES {
                let count = self.count_in(e, b);
                if count == 0 {
                    continue;
                }
                let p = (e.key << CHUNK_SHIFT) + b;
                let (s, l) = (p << sh, (p << sh) | ((1usize << sh) - 1));
                match out.last_mut() {
                    Some(r) if r.1.wrapping_add(1) == s && r.2 == count => r.1 = l,
                    _ => out.push((s, l, count)),
                }
            }
        }
        out.into_iter()
    }

    /// Number of maximal runs of equal non-zero count.
    #[cfg(test)]
    pub(crate) fn run_count(&self) -> usize {
        self.runs().count()
    }

    /// Number of chunks held (empty ones are dropped).
    #[cfg(test)]
    pub(crate) fn chunk_count(&self) -> usize {
        self.len
    }

    /// Panics unless the invariants of the module docs hold.
    #[cfg(test)]
    pub(crate) fn assert_canonical(&self) {
        let n = self.table.len();
        assert!(n == 0 || n.is_power_of_two(), "table size");
        assert!(4 * self.len <= 3 * n, "load factor");
        let held: Vec<&Entry> = self.table.iter().filter(|e| e.key != EMPTY).collect();
        assert_eq!(held.len(), self.len, "chunk count");
        let mut arrays_used = 0;
        for e in held {
            assert!(e.ones | e.exc != 0, "empty chunk {:#x} kept", e.key);
            assert!(self.find(e.key).is_some_and(|i| std::ptr::eq(&self.table[i], e)), "chunk {:#x} not found", e.key);
            if e.arr == 0 {
                assert_eq!(e.exc == 0, e.extra == 0, "chunk {:#x}: shared extra {} with exc {:#x}", e.key, e.extra, e.exc);
            } else {
                arrays_used += 1;
                assert!(e.exc != 0 && e.extra == 0, "chunk {:#x}: array without exc pages", e.key);
                assert!(!self.free.contains(&(e.arr - 1)), "chunk {:#x}: array on the free list", e.key);
            }
            for b in 0..CHUNK_PAGES {
                let one = e.ones >> b & 1 == 1;
                let exc = e.exc >> b & 1 == 1;
                let x = self.count_in(e, b) - one as i32;
                if e.arr != 0 {
                    assert_eq!(self.arrays[e.arr as usize - 1][b], x, "chunk {:#x} page {b}: stale extra", e.key);
                }
                assert_eq!(exc, x != 0, "chunk {:#x} page {b}: exc bit (extra {x})", e.key);
                assert!(if one { x >= 0 } else { x <= 0 }, "chunk {:#x} page {b}: one {one}, extra {x}", e.key);
            }
        }
        assert_eq!(arrays_used + self.free.len(), self.arrays.len(), "arrays in use or free");
    }
}

/// Appends the set bits of `bits`, page `base` for bit 0, to `out` as
/// maximal page runs, extending its last run where they touch.
#[inline(always)]
fn push_runs(out: &mut Vec<(usize, usize)>, base: usize, mut bits: u64) -> Result<(), NoMem> {
    while bits != 0 {
        let b = bits.trailing_zeros();
        let len = (!(bits >> b)).trailing_zeros();
        let (s, l) = (base + b as usize, base + (b + len) as usize - 1);
        match out.last_mut() {
            Some(r) if r.1 + 1 == s => r.1 = l,
            _ => rdma_util::fallible::push(out, (s, l))?,
        }
        bits &= if b + len >= 64 { 0 } else { u64::MAX << (b + len) };
    }
    Ok(())
}

/// log2 of sysconf's page size (4 KiB if sysconf fails).
fn unit_shift() -> u32 {
    // SAFETY: sysconf has no preconditions.
    let ps = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if ps > 0 && (ps as usize).is_power_of_two() {
        (ps as usize).trailing_zeros()
    } else {
        12
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::rng::XorShift;

    const PS: usize = 0x1000;

    /// Room that cannot be had (the whole address space: a table of 2^47
    /// slots) is NoRoom, leaves the counts as they were, and the next
    /// ordinary change still works.
    #[test]
    fn a_change_without_the_memory_changes_nothing() {
        let mut c = PageCounts::with_page_size(4096);
        assert_eq!(c.change(0x10000, 0x1ffff, 1, 0), Change::Advise);
        let slots = c.table.len();
        assert_eq!(c.change(0, usize::MAX, 1, 0), Change::NoRoom);
        assert_eq!(c.table.len(), slots);
        assert_eq!(c.count_at(0x10000), 1);
        assert_eq!(c.change(0x40000, 0x40fff, 1, 0), Change::Advise);
        c.assert_canonical();
    }

    /// Random ±1 changes over a few chunks' worth of pages (runs that cross
    /// words and chunks), through change() or add() as advise_range would
    /// call them, against a per-page model.
    #[test]
    fn random_changes_match_a_model() {
        const PAGES: usize = 1300; // a bit over two chunks and a half
        let base = 0x7f00_0000_0000usize + 300 * PS; // not chunk-aligned
        for seed in 1..=6u64 {
            let mut rng = XorShift::new(seed);
            let mut c = PageCounts::with_page_size(PS);
            let mut model = vec![0i32; PAGES];
            for step in 0..3000 {
                let first = rng.below(PAGES as u64) as usize;
                let max = if rng.below(4) == 0 { 700 } else { 3 };
                let n = 1 + rng.below(((PAGES - first) as u64).min(max)) as usize;
                let inc = if rng.below(100) < 52 { 1 } else { -1 };
                let (s, l) = (base + first * PS, base + (first + n) * PS - 1);
                let from = from_of(inc);
                let want: Vec<(usize, usize)> = {
                    let mut v: Vec<(usize, usize)> = Vec::new();
                    for (i, &count) in model.iter().enumerate().skip(first).take(n) {
                        if count == from {
                            let a = base + i * PS;
                            match v.last_mut() {
                                Some(r) if r.1 + 1 == a => r.1 = a + PS - 1,
                                _ => v.push((a, a + PS - 1)),
                            }
                        }
                    }
                    v
                };
                let expect = if want.is_empty() {
                    Change::Done
                } else if want == [(s, l)] {
                    Change::Advise
                } else {
                    Change::General
                };
                let got = if rng.below(3) == 0 {
                    // The general path alone.
                    c.with_ranges_of_count(s, l, from, |c, t| {
                        assert_eq!(t, &want[..], "seed {seed} step {step}: targets");
                        c.add(s, l, inc);
                    })
                    .unwrap();
                    None
                } else {
                    let ch = c.change(s, l, inc, from);
                    assert_eq!(ch, expect, "seed {seed} step {step}");
                    if ch == Change::General {
                        c.with_ranges_of_count(s, l, from, |c, t| {
                            assert_eq!(t, &want[..]);
                            c.add(s, l, inc);
                        })
                        .unwrap();
                    }
                    Some(ch)
                };
                model[first..first + n].iter_mut().for_each(|m| *m += inc);
                // An Advise is sometimes taken back, as a failed madvise does.
                if got == Some(Change::Advise) && rng.below(5) == 0 {
                    c.add(s, l, -inc);
                    model[first..first + n].iter_mut().for_each(|m| *m -= inc);
                }
                if step % 50 == 0 || n > 3 {
                    c.assert_canonical();
                    for (i, &m) in model.iter().enumerate() {
                        assert_eq!(c.count_at(base + i * PS + 5), m, "seed {seed} step {step} page {i}");
                    }
                }
            }
            // Drain to zero: nothing left, no chunk kept.
            for (i, &m) in model.iter().enumerate() {
                let a = base + i * PS;
                for _ in 0..m.abs() {
                    c.add(a, a + PS - 1, -m.signum());
                }
            }
            c.assert_canonical();
            assert_eq!(c.run_count(), 0);
            assert_eq!(c.chunk_count(), 0, "seed {seed}: empty chunks dropped");
        }
    }

    #[test]
    fn table_grows_and_shrinks_over_scattered_chunks() {
        // One page in each of 5,000 chunks spread over the address space
        // (probe chains, growth, backward-shift deletion in any order).
        let mut rng = XorShift::new(9);
        let mut c = PageCounts::with_page_size(PS);
        let mut pages: Vec<usize> = (0..5000).map(|i| (i * 7919 + 13) << (CHUNK_SHIFT + 12) | (i % 64) << 12).collect();
        for &a in &pages {
            assert_eq!(c.change(a, a + PS - 1, 1, 0), Change::Advise);
        }
        assert_eq!(c.chunk_count(), 5000);
        c.assert_canonical();
        for i in (1..pages.len()).rev() {
            pages.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for (n, &a) in pages.iter().enumerate() {
            assert_eq!(c.count_at(a), 1);
            assert_eq!(c.change(a, a + PS - 1, -1, 1), Change::Advise);
            assert_eq!(c.count_at(a), 0);
            if n % 997 == 0 {
                c.assert_canonical();
            }
        }
        assert_eq!(c.chunk_count(), 0);
        c.assert_canonical();
    }

    #[test]
    fn deletion_across_the_end_of_the_table() {
        // Probe chains that wrap from the last slots to the first, emptied
        // in an order that shifts entries back across the end.
        let mut c = PageCounts::with_page_size(PS);
        let a = |key: usize| key << (CHUNK_SHIFT + 12);
        assert_eq!(c.change(a(1), a(1) + PS - 1, 1, 0), Change::Advise);
        let n = c.table.len();
        let near_end: Vec<usize> = (2..).filter(|&k| c.home(k) >= n - 2).take(5).collect();
        let at_start: Vec<usize> = (2..).filter(|&k| c.home(k) == 0).take(2).collect();
        let keys: Vec<usize> = near_end.iter().chain(&at_start).copied().collect();
        for &k in &keys {
            assert_eq!(c.change(a(k), a(k) + PS - 1, 1, 0), Change::Advise);
        }
        assert_eq!(c.table.len(), n, "no growth");
        assert!(c.table[0].key != EMPTY && c.table[1].key != EMPTY, "the chains wrap");
        c.assert_canonical();
        for (done, &k) in keys.iter().enumerate() {
            assert_eq!(c.change(a(k), a(k) + PS - 1, -1, 1), Change::Advise);
            c.assert_canonical();
            for &other in &keys[done + 1..] {
                assert_eq!(c.count_at(a(other)), 1, "chunk {other:#x} after removing {k:#x}");
            }
        }
        assert_eq!(c.chunk_count(), 1);
    }

    #[test]
    fn top_of_the_address_space() {
        let mut c = PageCounts::with_page_size(PS);
        let (s, l) = (usize::MAX - 4 * PS + 1, usize::MAX);
        assert_eq!(c.change(s, l, 1, 0), Change::Advise);
        assert_eq!(c.change(s + PS, l, 1, 0), Change::Done);
        assert_eq!(c.runs().collect::<Vec<_>>(), vec![(s, s + PS - 1, 1), (s + PS, l, 2)]);
        c.add(s, l, -1);
        c.add(s, l, -1);
        assert_eq!(c.runs().collect::<Vec<_>>(), vec![(s, s + PS - 1, -1)]);
        c.assert_canonical();
    }
}
