//! Reference counts over the whole address space, kept as maximal runs.
//!
//! Every address has a signed count, 0 unless something changed it. The table
//! stores only the addresses whose count is not 0, as runs `[start, last]`
//! (inclusive, so the top of the address space is representable), ordered by
//! `start`. The representation is canonical:
//!   - runs never overlap;
//!   - no run has count 0 (absent means 0);
//!   - two runs that touch (`a.last + 1 == b.start`) never have the same count.
//!
//! So the runs with a given count are maximal. Counts may go negative: an
//! unbalanced decrement is recorded, as upstream's signed node counts record
//! it, and a later increment brings it back to 0 first.
//!
//! # Tombstones
//! Besides the runs, the table may hold entries of count 0, tombstones: a
//! single run that goes to 0 (the dofork undoing a registration) stays in
//! place with count 0 rather than being removed, so that neither that call
//! nor the next registration of the same range moves any entries. A
//! tombstone means exactly what absence means (count 0); it never touches a
//! run of the same count, so the runs stay maximal and canonical among
//! themselves. A general change removes the tombstones it covers; once
//! there are more than a quarter of the live runs (plus 64), all are swept
//! at once. [`RangeCounts::runs`] and [`RangeCounts::run_count`] leave them
//! out.
//!
//! # Layout: sorted blocks (a B+ tree of height two)
//! The runs live in blocks of at most [`BLOCK`] runs each, every block sorted
//! and the blocks in address order. The first start of every block is copied
//! into one flat array, `firsts`, and every eighth of those into `summary`
//! (one entry per cache line of `firsts`). Finding the run at an address is
//! a binary search of `summary` (about 110 entries, under 1 KiB, at 20,000
//! runs), then of one line of `firsts`, then of the block's starts (its four
//! cache lines prefetched together). Blocks and `firsts` are padded with
//! `usize::MAX`, so every search has a fixed depth and is made of
//! conditional moves: no branch depends on the address. Blocks sit in a slab
//! (stable ids), in address order through a list of ids. The neighbours of a
//! run, which decide merging, are the next slots of the same arrays.
//!
//! The calls that matter for speed change one run: a new registration over
//! untracked pages inserts one, a nested one changes a count in place, the
//! dofork undoing either removes one (leaves a tombstone) or changes it back.
//! [`RangeCounts::change`] recognises and does them with one lookup, which usually
//! skips the search: a hash table of hints remembers in which block slot
//! each run was last seen (blocks sit in a slab, so slots stay put), and the
//! hint is checked against that block; the change is made at the position
//! found, and the caller learns whether the range needs its madvise.
//! Nothing is allocated. Inserting or removing moves at
//! most a block's worth of entries; a full block splits in two, a block left
//! nearly empty merges with a neighbour. Everything else (partial overlaps,
//! several runs) takes the general path of [`RangeCounts::add`]: recompute
//! the runs of the affected stretch and splice them in.
//!
//! Upstream's red-black tree costs a pointer chase per level (about 15 at
//! 20,000 nodes) plus a malloc or free for each split and merge; a
//! `BTreeMap` costs two descents per range query. Measured figures are in
//! docs/benchmarks.md ("Fork ranges").

/// Runs per block (a power of two). 32 starts fill 4 cache lines; a block is
/// 832 bytes.
const BLOCK: usize = 32;

// Cache-line aligned, so that the 32 starts are exactly 4 lines.
#[repr(C, align(64))]
struct Block {
    /// Starts of the runs, ascending; `PAD` from `len` on.
    start: [usize; BLOCK],
    len: usize,
    /// `(last, count)` of each run: one cache line holds both halves of a
    /// run and of its neighbours.
    tail: [(usize, i32); BLOCK],
}

impl Block {
    fn new() -> Box<Block> {
        Box::new(Block { len: 0, start: [PAD; BLOCK], tail: [(0, 0); BLOCK] })
    }

    /// Takes out entry `i` (< len), the later ones moving down.
    #[inline]
    fn remove_one(&mut self, i: usize) {
        let len = self.len;
        self.start.copy_within(i + 1..len, i);
        self.tail.copy_within(i + 1..len, i);
        // One store: a `fill` of the vacated slots would be a memset call.
        self.start[len - 1] = PAD;
        self.len = len - 1;
    }

    /// Puts `run` in as entry `i` (<= len < BLOCK), the later ones moving up.
    #[inline]
    fn insert_one(&mut self, i: usize, run: (usize, usize, i32)) {
        let len = self.len;
        self.start.copy_within(i..len, i + 1);
        self.tail.copy_within(i..len, i + 1);
        self.set(i, run);
        self.len = len + 1;
    }

    /// Moves entries `from..self.len` to start at `to` (either direction;
    /// the caller then sets `len`). Starts vacated at the end become PAD.
    fn shift(&mut self, from: usize, to: usize) {
        let len = self.len;
        self.start.copy_within(from..len, to);
        self.tail.copy_within(from..len, to);
        if to < from {
            self.start[len - (from - to)..len].fill(PAD);
        }
    }

    fn set(&mut self, i: usize, (s, l, c): (usize, usize, i32)) {
        self.start[i] = s;
        self.tail[i] = (l, c);
    }
}

/// The blocks in address order, each living in a fixed slot (its id) of a
/// slab, so that an id stays valid while blocks around it come and go: the
/// hints of [`RangeCounts::locate`] name blocks by id. Indexing is by
/// position in address order.
struct Blocks {
    #[allow(clippy::vec_box)]
    slab: Vec<Box<Block>>,
    /// Slab ids in address order.
    order: Vec<u32>,
    /// Unused slab ids; their blocks are empty (len 0, all PAD).
    free: Vec<u32>,
    /// Position in `order` of each slab id in use (`order[at[id]] == id`),
    /// so that a hint, which names a block by id, gives its position.
    at: Vec<u32>,
}

impl Blocks {
    const fn new() -> Self {
        Blocks { slab: Vec::new(), order: Vec::new(), free: Vec::new(), at: Vec::new() }
    }

    /// Position of the block with slab id `id` (in use).
    #[inline(always)]
    fn position(&self, id: usize) -> usize {
        self.at[id] as usize
    }

    /// `at` for the blocks from position `b` on, after `order` changed there.
    /// A block is inserted or removed once per ~BLOCK/2 runs inserted or
    /// removed, and `order` moves as many entries anyway.
    fn reposition(&mut self, b: usize) {
        for (j, &id) in self.order.iter().enumerate().skip(b) {
            self.at[id as usize] = j as u32;
        }
    }

    fn len(&self) -> usize {
        self.order.len()
    }

    fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Slab id of the block at position `b`.
    fn id(&self, b: usize) -> u32 {
        self.order[b]
    }

    /// A new empty block at position `b`.
    fn insert_empty(&mut self, b: usize) {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.slab.push(Block::new());
                self.at.push(0);
                (self.slab.len() - 1) as u32
            }
        };
        self.order.insert(b, id);
        self.reposition(b);
    }

    /// Empties the block at position `b` and drops it from the order.
    fn remove(&mut self, b: usize) {
        let id = self.order.remove(b);
        let k = &mut self.slab[id as usize];
        k.len = 0;
        k.start.fill(PAD);
        self.free.push(id);
        self.reposition(b);
    }

    fn iter(&self) -> impl Iterator<Item = &Block> + '_ {
        self.order.iter().map(|&id| &*self.slab[id as usize])
    }
}

impl std::ops::Index<usize> for Blocks {
    type Output = Block;
    fn index(&self, b: usize) -> &Block {
        &self.slab[self.order[b] as usize]
    }
}

impl std::ops::IndexMut<usize> for Blocks {
    fn index_mut(&mut self, b: usize) -> &mut Block {
        &mut self.slab[self.order[b] as usize]
    }
}

/// Tombstones allowed beyond a quarter of the live runs before a sweep.
const TOMBSTONE_SLACK: usize = 64;

/// Entries per block after a sweep of tombstones: 3/4 full.
const COMPACT_FILL: usize = BLOCK * 3 / 4;

/// Fills the unused start slots of a block and the unused tail of `firsts`,
/// so that searches run over whole fixed-size arrays: no loop bound depends on
/// a length, and nothing past the used part compares below an address (but
/// `usize::MAX` itself: the searches clamp their results to the used length).
const PAD: usize = usize::MAX;

/// The last index `j` of the ascending `v` with `v[j] <= x`, given that
/// `v[0] <= x`: a binary search of fixed depth, log2(N) steps, each a
/// conditional move rather than a branch (random addresses would mispredict
/// half of them). `N` is a power of two.
#[inline(always)]
fn last_le<const N: usize>(v: &[usize; N], x: usize) -> usize {
    let mut j = 0;
    let mut step = N / 2;
    while step > 0 {
        // (j + step) < N: j is a sum of distinct larger powers of two below N.
        j = std::hint::select_unpredictable(v[(j + step) & (N - 1)] <= x, j + step, j);
        step /= 2;
    }
    j
}

/// Asks for the cache lines of `k`'s starts before the search needs them, so
/// that they load in parallel rather than one after another as the binary
/// search reaches them.
#[inline(always)]
fn prefetch_starts(k: &Block) {
    #[cfg(target_arch = "x86_64")]
    for line in 0..BLOCK / 8 {
        let p = k.start[line * 8..].as_ptr();
        // SAFETY: a prefetch is only a hint; it never faults or changes
        // memory, and `p` points into `k` anyway. SSE is part of x86_64.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast()) };
    }
}

/// Entries of `firsts` per `summary` entry (one cache line's worth).
const SUMMARY_STEP: usize = 8;

/// Position of a run: block index and index inside the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    b: usize,
    i: usize,
}

/// A change found by [`RangeCounts::plan`], to carry out with
/// [`RangeCounts::apply`].
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    old: i32,
    action: Action,
}

impl Plan {
    /// The count every address of the range has now.
    pub fn old_count(&self) -> i32 {
        self.old
    }
}

#[derive(Clone, Copy, Debug)]
enum Action {
    /// The range is exactly the run at `pos`; its count becomes `new`.
    Whole { pos: Pos, new: i32 },
    /// The range meets no run; `prev` and `next` are the runs around it.
    Gap { prev: Option<Pos>, next: Option<Pos>, merge_prev: bool, merge_next: bool },
}

/// What [`RangeCounts::change`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Done; no address's count was `keep`, so no madvise is due.
    Done,
    /// Done; every address of the range had the count `keep`: the whole
    /// range needs the madvise. (To take the change back, add `-inc`.)
    Advise,
    /// Nothing done: a change of several runs or parts of runs. Use
    /// [`RangeCounts::with_ranges_of_count`] and [`RangeCounts::add`].
    General,
}

/// Signed counts per address (see the module docs).
pub struct RangeCounts {
    /// `firsts[b] == blocks[b].start[0]`; no block is empty. Padded with
    /// PAD to a whole number of lines (`SUMMARY_STEP` entries).
    firsts: Vec<usize>,
    /// `summary[j] == firsts[j * SUMMARY_STEP]`: one entry per cache line
    /// of `firsts`, so a search reads one line of `firsts`.
    summary: Vec<usize>,
    blocks: Blocks,
    /// Entries stored, tombstones included.
    total: usize,
    /// Tombstones among them: entries of count 0 (see [`Self::bury`]).
    dead: usize,
    /// Where the run starting at an address was last seen:
    /// `id << 5 | index` of its block, in a slot chosen by a hash of the
    /// start (see [`Self::hint_slot`]); `u32::MAX` for none. Only a hint: it
    /// is checked against the block before use, so stale or colliding
    /// entries cost a search, never a wrong answer. Empty or a power of two.
    hints: Vec<u32>,
    /// `log2(hints.len())` and `hints.len() - 1`, 0 while empty.
    hint_bits: u32,
    hint_mask: u64,
    /// Reused buffers, so that calls allocate nothing once warm.
    fresh: Vec<(usize, usize, i32)>,
    targets: Vec<(usize, usize)>,
}

impl Default for RangeCounts {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for RangeCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.runs()).finish()
    }
}

impl RangeCounts {
    pub const fn new() -> Self {
        RangeCounts {
            firsts: Vec::new(),
            summary: Vec::new(),
            blocks: Blocks::new(),
            total: 0,
            dead: 0,
            hints: Vec::new(),
            hint_bits: 0,
            hint_mask: 0,
            fresh: Vec::new(),
            targets: Vec::new(),
        }
    }

    fn run(&self, p: Pos) -> (usize, usize, i32) {
        let k = &self.blocks[p.b];
        (k.start[p.i], k.tail[p.i].0, k.tail[p.i].1)
    }

    fn next(&self, p: Pos) -> Option<Pos> {
        if p.i + 1 < self.blocks[p.b].len {
            Some(Pos { b: p.b, i: p.i + 1 })
        } else if p.b + 1 < self.blocks.len() {
            Some(Pos { b: p.b + 1, i: 0 })
        } else {
            None
        }
    }

    /// The last block starting at or below `addr`.
    #[inline(always)]
    fn last_block_le(&self, addr: usize) -> Option<usize> {
        // partition_point's search is branch-free too.
        let line = self.summary.partition_point(|&f| f <= addr).checked_sub(1)?;
        let lo = line * SUMMARY_STEP;
        let firsts: &[usize; SUMMARY_STEP] = self.firsts[lo..lo + SUMMARY_STEP].try_into().unwrap();
        // firsts[lo] == summary[line] <= addr.
        Some((lo + last_le(firsts, addr)).min(self.blocks.len() - 1))
    }

    fn set_first(&mut self, b: usize, start: usize) {
        self.firsts[b] = start;
        if b.is_multiple_of(SUMMARY_STEP) {
            self.summary[b / SUMMARY_STEP] = start;
        }
    }

    /// After a block is inserted or removed at `b`: the summary from there on.
    fn resummarise(&mut self, b: usize) {
        let from = b / SUMMARY_STEP;
        self.summary.truncate(from);
        let used = &self.firsts[..self.blocks.len()];
        self.summary.extend(used[(from * SUMMARY_STEP).min(used.len())..].iter().step_by(SUMMARY_STEP));
    }

    /// After `blocks` gained block `b`: its first start into `firsts`.
    fn insert_first(&mut self, b: usize, start: usize) {
        self.firsts.insert(b, start);
        self.repad_firsts();
        self.resummarise(b);
    }

    /// After `blocks` lost block `b`: out of `firsts` with it.
    fn remove_first(&mut self, b: usize) {
        self.firsts.remove(b);
        self.repad_firsts();
        self.resummarise(b);
    }

    /// `firsts` holds one entry per block, then PAD up to a whole line.
    fn repad_firsts(&mut self) {
        self.firsts.resize(self.blocks.len().div_ceil(SUMMARY_STEP) * SUMMARY_STEP, PAD);
    }

    /// The last run starting at or below `addr`.
    #[inline]
    fn floor(&self, addr: usize) -> Option<Pos> {
        let b = self.last_block_le(addr)?;
        let k = &self.blocks[b];
        prefetch_starts(k);
        // k.start[0] == firsts[b] <= addr.
        let i = last_le(&k.start, addr).min(k.len - 1);
        Some(Pos { b, i })
    }

    /// The run holding `addr`.
    fn holding(&self, addr: usize) -> Option<Pos> {
        self.floor(addr).filter(|&p| self.run(p).1 >= addr)
    }

    /// The first run that ends at or above `addr`.
    fn first_reaching(&self, addr: usize) -> Option<Pos> {
        match self.floor(addr) {
            Some(p) if self.run(p).1 >= addr => Some(p),
            Some(p) => self.next(p),
            None => (!self.blocks.is_empty()).then_some(Pos { b: 0, i: 0 }),
        }
    }

    /// The count of one address.
    pub fn count_at(&self, addr: usize) -> i32 {
        self.holding(addr).map_or(0, |p| self.run(p).2)
    }

    /// Number of stored runs (the non-zero ones; tombstones not counted).
    pub fn run_count(&self) -> usize {
        self.total - self.dead
    }

    /// Number of tombstones (count-0 entries) stored.
    pub fn tombstone_count(&self) -> usize {
        self.dead
    }

    /// Calls `f` on `[start, last]` cut into consecutive pieces of equal
    /// count, the gaps between runs included as count 0. `start <= last`.
    fn for_each_piece(&self, start: usize, last: usize, mut f: impl FnMut(usize, usize, i32)) {
        debug_assert!(start <= last);
        let mut p = self.first_reaching(start);
        let mut next = start; // first address not yet covered by a piece
        while let Some(q) = p {
            let (s, l, c) = self.run(q);
            if s > last {
                break;
            }
            let s = s.max(start);
            if s > next {
                f(next, s - 1, 0);
            }
            let l = l.min(last);
            f(s, l, c);
            if l == last {
                return;
            }
            next = l + 1;
            p = self.next(q);
        }
        f(next, last, 0);
    }

    /// The maximal sub-ranges of `[start, last]` whose count is `value`, in
    /// ascending order, into `out` (cleared first). `start <= last`.
    fn ranges_with_count_into(&self, start: usize, last: usize, value: i32, out: &mut Vec<(usize, usize)>) {
        out.clear();
        self.for_each_piece(start, last, |s, l, c| {
            if c != value {
                return;
            }
            match out.last_mut() {
                Some(prev) if prev.1.wrapping_add(1) == s => prev.1 = l,
                _ => out.push((s, l)),
            }
        });
    }

    /// The maximal sub-ranges of `[start, last]` whose count is `value`, in
    /// ascending order. `start <= last`.
    pub fn ranges_with_count(&self, start: usize, last: usize, value: i32) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        self.ranges_with_count_into(start, last, value, &mut out);
        out
    }

    /// Calls `f` with the maximal sub-ranges of `[start, last]` whose count
    /// is `value` (see [`Self::ranges_with_count`]), without allocating once
    /// warm. `f` gets the list and `self` back, to change the counts.
    pub fn with_ranges_of_count<R>(
        &mut self,
        start: usize,
        last: usize,
        value: i32,
        f: impl FnOnce(&mut Self, &[(usize, usize)]) -> R,
    ) -> R {
        let mut targets = std::mem::take(&mut self.targets);
        self.ranges_with_count_into(start, last, value, &mut targets);
        let r = f(self, &targets);
        self.targets = targets;
        r
    }

    /// Adds `inc` over `[start, last]` (`start <= last`, `inc != 0`) when
    /// that changes one run (see [`Self::plan`]), found with one lookup, and
    /// says whether the range had the count `keep` (and so needs a madvise):
    /// see [`Change`]. The caller does the madvise after this, so that the
    /// kernel's work, which evicts much of the caches, comes after all of
    /// the bookkeeping rather than between the lookup and the change.
    #[inline]
    pub fn change(&mut self, start: usize, last: usize, inc: i32, keep: i32) -> Change {
        let p = self.locate(start);
        // A range that is exactly a stored entry (run or tombstone) inside
        // its block, spelt out: [`Self::plan_at`] + [`Self::apply`] in short.
        // These are the calls that matter for speed: the nested ones (count
        // 1 <-> 2, bookkeeping only) and the non-nested ones on a range seen
        // before (1 -> 0 buries the run, 0 -> 1 revives the tombstone),
        // whose bookkeeping runs right after a madvise has evicted much of
        // the caches, so the fewer instructions and lines it touches the
        // better. A count changes in place unless it would merge with a
        // touching neighbour; a count of 0 needs no such check (tombstones
        // never merge).
        // Unused slots hold PAD: a next start other than PAD is an entry in
        // use (no look at `len`, which sits on another cache line).
        if let Some((i, id)) = p {
            let k = &*self.blocks.slab[id];
            if i > 0 && i + 1 < BLOCK && k.start[i + 1] != PAD {
                let (l, c) = k.tail[i];
                let new = c + inc;
                if k.start[i] == start && l == last {
                    if new != 0 {
                        let (pl, pc) = k.tail[i - 1];
                        let (ns, nc) = (k.start[i + 1], k.tail[i + 1].1);
                        if (pl.wrapping_add(1) == start && pc == new) || (last.wrapping_add(1) == ns && nc == new) {
                            return Change::General;
                        }
                        self.blocks.slab[id].tail[i].1 = new;
                        // A tombstone brought back to life.
                        self.dead -= (c == 0) as usize;
                    } else {
                        self.blocks.slab[id].tail[i].1 = 0;
                        self.note_burial();
                    }
                    return if c == keep { Change::Advise } else { Change::Done };
                }
            }
        }
        let p = p.map(|(i, id)| (Pos { b: self.blocks.position(id), i }, id));
        match self.plan_at(p, start, last, inc) {
            None => Change::General,
            Some(plan) => {
                self.apply(plan, start, last, inc);
                if plan.old == keep {
                    Change::Advise
                } else {
                    Change::Done
                }
            }
        }
    }

    /// The last run starting at or below `start` (as [`Self::floor`]), and
    /// the slab id of its block, found
    /// first where the hint table says the run starting at `start` was last
    /// seen: one hashed load, then that block. A full search takes
    /// log2(runs) dependent steps. The hinted block decides when it holds
    /// the run starting at `start` at the hinted index, or when its first
    /// run starts at or below `start` and the next block's above it (then a
    /// search of that block finds the answer). A stale or colliding hint, or
    /// none, falls back to the full search, which records a new hint when a
    /// run starts at `start`.
    #[inline]
    fn locate(&mut self, start: usize) -> Option<(usize, usize)> {
        let slot = self.hint_slot(start);
        let hint = self.hints.get(slot).copied().unwrap_or(u32::MAX);
        let (id, hi) = ((hint >> 5) as usize, (hint & 31) as usize);
        if let Some(k) = self.blocks.slab.get(id) {
            let k = &**k;
            // Unused slots hold PAD, which no page-aligned start equals
            // (the test of `start` is for the unit tests' odd addresses).
            if k.start[hi] == start && start != PAD {
                return Some((hi, id));
            }
            // The run was removed from there (a dofork undoing a
            // registration) and the same range comes back: the gap is still
            // between the runs at hi - 1 and hi of this block.
            if 0 < hi && hi < k.len && k.start[hi - 1] < start && start < k.start[hi] {
                return Some((hi - 1, id));
            }
            // The run moved, or went: its block, or the one before or
            // after it (a removed first run, a split) usually holds the
            // answer. `position` of a freed id is stale, but only a guess.
            if let Some(b) = self.block_around(self.blocks.position(id), start) {
                let id = self.blocks.id(b) as usize;
                let k = &*self.blocks.slab[id];
                prefetch_starts(k);
                // k.start[0] == firsts[b] <= start.
                let i = last_le(&k.start, start).min(k.len - 1);
                if k.start[i] == start {
                    self.hints[slot] = (id as u32) << 5 | i as u32;
                }
                return Some((i, id));
            }
        }
        self.locate_searched(start)
    }

    /// The block holding the last run that starts at or below `addr`, if it
    /// is block `b` or a neighbour of it; None otherwise (or if none is).
    #[inline(always)]
    fn block_around(&self, b: usize, addr: usize) -> Option<usize> {
        // Past the used part, `firsts` holds PAD (or ends).
        let first = |j: usize| self.firsts.get(j).copied().unwrap_or(PAD);
        let b = if addr < first(b) {
            b.checked_sub(1)?
        } else if first(b + 1) <= addr {
            b + 1
        } else {
            b
        };
        // Block b holds it iff its first run starts at or below `addr` and
        // the next block's above.
        (b < self.blocks.len() && first(b) <= addr && addr < first(b + 1)).then_some(b)
    }

    /// [`Self::locate`] by a full search.
    #[inline(never)]
    fn locate_searched(&mut self, start: usize) -> Option<(usize, usize)> {
        let p = self.floor(start)?;
        if self.blocks[p.b].start[p.i] == start {
            self.note_hint(start, p);
        }
        Some((p.i, self.blocks.id(p.b) as usize))
    }

    /// Records that the run starting at `start` is at `p`.
    #[inline]
    fn note_hint(&mut self, start: usize, p: Pos) {
        if self.hints.len() < 2 * self.total {
            self.grow_hints();
        }
        let slot = self.hint_slot(start);
        let id = self.blocks.id(p.b);
        if let Some(h) = self.hints.get_mut(slot) {
            *h = id << 5 | p.i as u32;
        }
    }

    /// The hint table's slot for a run starting at `start`: its 4 KiB page
    /// number with the bits above the table's size folded onto the lower
    /// ones by xor. Live ranges cluster (buffers side by side, in a few
    /// mappings): any window of as many pages as the table has slots maps
    /// one to one, and so do ranges at power-of-two strides (each window's
    /// xor differs). A multiplicative hash would scatter them at random
    /// instead, colliding for a quarter of the runs at two slots per run,
    /// each collision a full search. Out of range while the table is empty.
    #[inline(always)]
    fn hint_slot(&self, start: usize) -> usize {
        let x = start as u64 >> 12;
        ((x ^ (x >> self.hint_bits)) & self.hint_mask) as usize
    }

    /// Resizes the hint table to at least twice the number of runs and
    /// records where every run is (amortised over the runs added since the
    /// last growth).
    #[cold]
    fn grow_hints(&mut self) {
        const MAX: usize = 1 << 22;
        let n = (2 * self.total).next_power_of_two().clamp(256, MAX);
        if n <= self.hints.len() {
            return;
        }
        self.hints = vec![u32::MAX; n];
        self.hint_bits = n.trailing_zeros();
        self.hint_mask = n as u64 - 1;
        self.record_hints();
    }

    /// Records in the hint table where every entry is now.
    fn record_hints(&mut self) {
        if self.hints.is_empty() {
            return;
        }
        for &id in &self.blocks.order {
            let k = &self.blocks.slab[id as usize];
            for (i, &start) in k.start[..k.len].iter().enumerate() {
                let slot = self.hint_slot(start);
                self.hints[slot] = id << 5 | i as u32;
            }
        }
    }

    /// Looks whether adding `inc` over `[start, last]` is one of the cases
    /// that change one run in place, found with a single search:
    ///   - `[start, last]` is exactly a stored run: its count changes, or it
    ///     goes when that reaches 0 (a nested call, or the dofork undoing a
    ///     single registration);
    ///   - no stored run meets `[start, last]`: it becomes a run of count
    ///     `inc`, merged with a run it touches that has that count (a fresh
    ///     registration).
    ///
    /// None for everything else (partial overlaps, several runs, a count
    /// change that would merge with a neighbour): use [`Self::add`]. The
    /// plan stays valid until `self` changes.
    pub fn plan(&self, start: usize, last: usize, inc: i32) -> Option<Plan> {
        let p = self.floor(start).map(|p| (p, self.blocks.id(p.b) as usize));
        self.plan_at(p, start, last, inc)
    }

    /// [`Self::plan`], given `p`, the last run starting at or below `start`,
    /// and the slab id of its block.
    #[inline]
    fn plan_at(&self, p: Option<(Pos, usize)>, start: usize, last: usize, inc: i32) -> Option<Plan> {
        debug_assert!(start <= last && inc != 0);
        let p0 = p.map(|(p, _)| p);
        let next = match p {
            Some((p, id)) => {
                let k = &*self.blocks.slab[id];
                let (s, (l, c)) = (k.start[p.i], k.tail[p.i]);
                if l >= start {
                    // A run meets the range: it must be exactly the range.
                    if s != start || l != last {
                        return None;
                    }
                    let new = c + inc;
                    if new != 0 {
                        // A touching neighbour with the new count would
                        // have to merge. Neighbours are usually in the block.
                        let prev = if p.i > 0 {
                            Some(k.tail[p.i - 1])
                        } else if p.b > 0 {
                            let pk = &self.blocks[p.b - 1];
                            Some(pk.tail[pk.len - 1])
                        } else {
                            None
                        };
                        if prev.is_some_and(|(pl, pc)| pc == new && pl.wrapping_add(1) == s) {
                            return None;
                        }
                        let next = if p.i + 1 < k.len {
                            Some((k.start[p.i + 1], k.tail[p.i + 1].1))
                        } else if p.b + 1 < self.blocks.len() {
                            let nk = &self.blocks[p.b + 1];
                            Some((nk.start[0], nk.tail[0].1))
                        } else {
                            None
                        };
                        if next.is_some_and(|(ns, nc)| nc == new && l.wrapping_add(1) == ns) {
                            return None;
                        }
                    }
                    return Some(Plan { old: c, action: Action::Whole { pos: p, new } });
                }
                self.next(p)
            }
            None => (!self.blocks.is_empty()).then_some(Pos { b: 0, i: 0 }),
        };
        // `p` (if any) ends below `start`; `next` (if any) starts above it.
        let next_run = next.map(|q| self.run(q));
        if next_run.is_some_and(|(qs, _, _)| qs <= last) {
            return None;
        }
        // All of [start, last] is at 0.
        let merge_prev = p.is_some_and(|(p, id)| {
            let (pl, pc) = self.blocks.slab[id].tail[p.i];
            pc == inc && pl.wrapping_add(1) == start
        });
        let merge_next = next_run.is_some_and(|(qs, _, qc)| qc == inc && last.wrapping_add(1) == qs);
        Some(Plan { old: 0, action: Action::Gap { prev: p0, next, merge_prev, merge_next } })
    }

    /// Carries out a [`Plan`] made by [`Self::plan`] for the same
    /// arguments, with `self` unchanged since.
    pub fn apply(&mut self, plan: Plan, start: usize, last: usize, inc: i32) {
        match plan.action {
            Action::Whole { pos, new: 0 } => self.bury(pos),
            Action::Whole { pos, new } => {
                self.blocks[pos.b].tail[pos.i].1 = new;
                // A tombstone reused: the same range registered again.
                self.dead -= (plan.old == 0) as usize;
            }
            Action::Gap { prev, next, merge_prev, merge_next } => match (prev, next) {
                (Some(p), Some(q)) if merge_prev && merge_next => {
                    self.blocks[p.b].tail[p.i].0 = self.run(q).1;
                    self.remove_at(q);
                }
                (Some(p), _) if merge_prev => self.blocks[p.b].tail[p.i].0 = last,
                (_, Some(q)) if merge_next => {
                    // Moving the start down keeps the order: the run
                    // before ends below `start`.
                    self.blocks[q.b].start[q.i] = start;
                    if q.i == 0 {
                        self.set_first(q.b, start);
                    }
                    self.note_hint(start, q);
                }
                _ => {
                    let at = match prev {
                        Some(p) => Pos { b: p.b, i: p.i + 1 },
                        None => Pos { b: 0, i: 0 },
                    };
                    let p = self.insert_at(at, (start, last, inc));
                    // Where its dofork will look for it.
                    self.note_hint(start, p);
                }
            },
        }
    }

    /// Adds `inc` to the count of every address in `[start, last]`
    /// (`start <= last`), keeping the representation canonical.
    pub fn add(&mut self, start: usize, last: usize, inc: i32) {
        debug_assert!(start <= last);
        if inc == 0 {
            return;
        }
        if let Some(plan) = self.plan(start, last, inc) {
            self.apply(plan, start, last, inc);
            return;
        }
        // Widen to whole runs on both sides, including a run that merely
        // touches the range: those are the only runs whose boundaries can
        // change. `lo` and `hi` are then never strictly inside a run, so the
        // runs meeting [lo, hi] are exactly those starting in it.
        let lo = match start.checked_sub(1).and_then(|b| self.holding(b)) {
            Some(p) => self.run(p).0,
            None => start,
        };
        let hi = match last.checked_add(1).and_then(|a| self.holding(a)) {
            Some(p) => self.run(p).1,
            None => last,
        };

        let mut fresh = std::mem::take(&mut self.fresh);
        fresh.clear();
        let mut push = |s: usize, l: usize, count: i32| {
            if count == 0 {
                return;
            }
            if let Some(prev) = fresh.last_mut() {
                if prev.1.wrapping_add(1) == s && prev.2 == count {
                    prev.1 = l;
                    return;
                }
            }
            fresh.push((s, l, count));
        };
        self.for_each_piece(lo, hi, |s, l, c| {
            if s < start {
                push(s, l.min(start - 1), c);
            }
            let (is, il) = (s.max(start), l.min(last));
            if is <= il {
                push(is, il, c + inc);
            }
            if l > last {
                push(last + 1, l, c);
            }
        });

        self.remove_starting_in(lo, hi);
        for &run in &fresh {
            self.insert(run);
        }
        self.fresh = fresh;
    }

    /// Inserts a run that overlaps none stored.
    fn insert(&mut self, run: (usize, usize, i32)) {
        let at = match self.floor(run.0) {
            Some(p) => Pos { b: p.b, i: p.i + 1 },
            None => Pos { b: 0, i: 0 },
        };
        self.insert_at(at, run);
    }

    /// Inserts a run at position `at`, which must keep the order (`at.i` may
    /// be the length of block `at.b`; `at` is (0, 0) in an empty table).
    /// Returns where the run went (a full block splits first).
    fn insert_at(&mut self, at: Pos, run: (usize, usize, i32)) -> Pos {
        let Pos { mut b, mut i } = at;
        if self.blocks.is_empty() {
            self.blocks.insert_empty(0);
            self.insert_first(0, run.0);
        }
        if self.blocks[b].len == BLOCK {
            let half = BLOCK / 2;
            self.blocks.insert_empty(b + 1);
            let (lo_id, up_id) = (self.blocks.id(b) as usize, self.blocks.id(b + 1) as usize);
            let (lower, upper) = if lo_id < up_id {
                let (l, u) = self.blocks.slab.split_at_mut(up_id);
                (&mut l[lo_id], &mut u[0])
            } else {
                let (u, l) = self.blocks.slab.split_at_mut(lo_id);
                (&mut l[0], &mut u[up_id])
            };
            upper.start[..BLOCK - half].copy_from_slice(&lower.start[half..]);
            upper.tail[..BLOCK - half].copy_from_slice(&lower.tail[half..]);
            upper.len = BLOCK - half;
            lower.len = half;
            lower.start[half..].fill(PAD);
            let first = upper.start[0];
            self.insert_first(b + 1, first);
            if i > half {
                b += 1;
                i -= half;
            }
        }
        self.blocks[b].insert_one(i, run);
        if i == 0 {
            self.set_first(b, run.0);
        }
        self.total += 1;
        Pos { b, i }
    }

    /// Takes the run at `p` to count 0 by leaving it in place as a
    /// tombstone, rather than removing it: no entries move, and a later
    /// registration of the same range (a buffer registered again, or the
    /// dontfork of a rolled-back dofork) finds it through its hint and only
    /// changes its count. Tombstones are bounded: once there are more than
    /// a quarter of the live runs (plus [`TOMBSTONE_SLACK`]), all of them are
    /// swept at once ([`Self::compact`]), so a sweep of n entries comes at
    /// most once per n/5 burials.
    fn bury(&mut self, p: Pos) {
        self.blocks[p.b].tail[p.i].1 = 0;
        self.note_burial();
    }

    /// Counts a tombstone just made, and sweeps them all when there are too
    /// many (see [`Self::bury`]).
    #[inline]
    fn note_burial(&mut self) {
        self.dead += 1;
        if self.dead > (self.total - self.dead) / 4 + TOMBSTONE_SLACK {
            self.compact();
        }
    }

    /// Drops every tombstone and repacks the live runs, [`COMPACT_FILL`] to a
    /// block, so that fresh insertions rarely split a block right away.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        let mut live = std::mem::take(&mut self.fresh);
        live.clear();
        live.extend(self.entries().filter(|r| r.2 != 0));
        let bs = &mut self.blocks;
        for id in bs.order.drain(..) {
            let k = &mut bs.slab[id as usize];
            k.len = 0;
            k.start.fill(PAD);
            bs.free.push(id);
        }
        self.firsts.clear();
        for chunk in live.chunks(COMPACT_FILL) {
            let id = bs.free.pop().unwrap_or_else(|| {
                bs.slab.push(Block::new());
                bs.at.push(0);
                (bs.slab.len() - 1) as u32
            });
            let k = &mut bs.slab[id as usize];
            for (i, &run) in chunk.iter().enumerate() {
                k.set(i, run);
            }
            k.len = chunk.len();
            bs.order.push(id);
            self.firsts.push(chunk[0].0);
        }
        bs.reposition(0);
        self.total = live.len();
        self.dead = 0;
        self.repad_firsts();
        self.resummarise(0);
        self.fresh = live;
        self.record_hints();
    }

    /// Removes the run at `p`.
    fn remove_at(&mut self, p: Pos) {
        let k = &mut self.blocks[p.b];
        k.remove_one(p.i);
        let len = k.len;
        self.total -= 1;
        if len == 0 {
            self.blocks.remove(p.b);
            self.remove_first(p.b);
        } else if p.i == 0 {
            let first = k.start[0];
            self.set_first(p.b, first);
        }
        // Both merges below pair this block with a neighbour: neither can
        // fit in half a block while this one alone is fuller than that.
        if len > BLOCK / 2 {
            return;
        }
        let b = p.b.min(self.blocks.len().saturating_sub(1));
        self.merge_if_small(b);
        if b > 0 {
            self.merge_if_small(b - 1);
        }
    }

    /// Removes every run whose start lies in `[lo, hi]`.
    fn remove_starting_in(&mut self, lo: usize, hi: usize) {
        // The first run starting at or above lo.
        let first = match self.floor(lo) {
            Some(p) if self.run(p).0 == lo => Some(p),
            Some(p) => self.next(p),
            None => (!self.blocks.is_empty()).then_some(Pos { b: 0, i: 0 }),
        };
        let Some(mut p) = first else { return };
        loop {
            let k = &mut self.blocks[p.b];
            let len = k.len;
            let j = p.i + k.start[p.i..len].partition_point(|&s| s <= hi);
            if j == p.i {
                break;
            }
            self.dead -= k.tail[p.i..j].iter().filter(|t| t.1 == 0).count();
            k.shift(j, p.i);
            k.len -= j - p.i;
            self.total -= j - p.i;
            if k.len == 0 {
                self.blocks.remove(p.b);
                self.remove_first(p.b);
                if p.b == self.blocks.len() {
                    break;
                }
                p.i = 0;
                continue;
            }
            if p.i == 0 {
                let first = k.start[0];
            self.set_first(p.b, first);
            }
            if j < len || p.b + 1 == self.blocks.len() {
                break;
            }
            p = Pos { b: p.b + 1, i: 0 };
        }
        // The blocks that shrank are p.b and the one before it.
        let b = p.b.min(self.blocks.len().saturating_sub(1));
        self.merge_if_small(b);
        if b > 0 {
            self.merge_if_small(b - 1);
        }
    }

    /// Moves block `b + 1` into block `b` when both fit in half a block.
    fn merge_if_small(&mut self, b: usize) {
        if b + 1 >= self.blocks.len() || self.blocks[b].len + self.blocks[b + 1].len > BLOCK / 2 {
            return;
        }
        let upper = &self.blocks[b + 1];
        let n = upper.len;
        let (starts, tails) = (upper.start, upper.tail);
        let k = &mut self.blocks[b];
        let at = k.len;
        k.start[at..at + n].copy_from_slice(&starts[..n]);
        k.tail[at..at + n].copy_from_slice(&tails[..n]);
        k.len += n;
        self.blocks.remove(b + 1);
        self.remove_first(b + 1);
    }

    /// All runs as `(start, last, count)`, ascending (for tests and checks);
    /// tombstones left out.
    pub fn runs(&self) -> impl Iterator<Item = (usize, usize, i32)> + '_ {
        self.entries().filter(|r| r.2 != 0)
    }

    /// All entries, tombstones (count 0) included, ascending.
    fn entries(&self) -> impl Iterator<Item = (usize, usize, i32)> + '_ {
        self.blocks.iter().flat_map(|k| (0..k.len).map(move |i| (k.start[i], k.tail[i].0, k.tail[i].1)))
    }

    /// Panics unless the representation is canonical (see the module docs)
    /// and the blocks are consistent.
    pub fn assert_canonical(&self) {
        let nb = self.blocks.len();
        assert_eq!(self.firsts.len(), nb.div_ceil(SUMMARY_STEP) * SUMMARY_STEP, "one first per block, padded");
        assert!(self.firsts[nb..].iter().all(|&f| f == PAD), "padding of firsts");
        let summary: Vec<usize> = self.firsts[..nb].iter().copied().step_by(SUMMARY_STEP).collect();
        assert_eq!(self.summary, summary, "summary of firsts");
        for (b, &id) in self.blocks.order.iter().enumerate() {
            assert_eq!(self.blocks.position(id as usize), b, "position of block id {id}");
        }
        let mut n = 0;
        for (b, k) in self.blocks.iter().enumerate() {
            assert!(k.len > 0 && k.len <= BLOCK, "block {b} holds {} runs", k.len);
            assert_eq!(self.firsts[b], k.start[0], "first start of block {b}");
            assert!(k.start[k.len..].iter().all(|&s| s == PAD), "padding of block {b}");
            n += k.len;
        }
        assert_eq!(n, self.total, "entry total");
        assert_eq!(self.entries().filter(|r| r.2 == 0).count(), self.dead, "tombstone total");
        let mut prev: Option<(usize, usize, i32)> = None;
        for (s, l, c) in self.entries() {
            assert!(s <= l, "entry {s:#x}..={l:#x} is inverted");
            if let Some((_, pl, pc)) = prev {
                assert!(pl < s, "entries overlap at {s:#x}");
                assert!(!(pl + 1 == s && pc == c && c != 0), "touching runs with equal count {c} at {s:#x}");
            }
            prev = Some((s, l, c));
        }
    }

    /// Number of blocks (for tests).
    #[cfg(test)]
    fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// Number of entries, tombstones included (for tests).
    #[cfg(test)]
    fn entry_count(&self) -> usize {
        self.total
    }

    /// Whether a tombstone meets `[start, last]` (for tests).
    #[cfg(test)]
    fn meets_tombstone(&self, start: usize, last: usize) -> bool {
        let mut p = self.first_reaching(start);
        while let Some(q) = p {
            let (s, _, c) = self.run(q);
            if s > last {
                return false;
            }
            if c == 0 {
                return true;
            }
            p = self.next(q);
        }
        false
    }

    /// Whether `[start, last]` is exactly a tombstone (for tests).
    #[cfg(test)]
    fn is_tombstone(&self, start: usize, last: usize) -> bool {
        self.holding(start).is_some_and(|p| self.run(p) == (start, last, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fork::tests::XorShift;

    /// Checks `counts` against a per-unit model where unit i covers addresses
    /// [base + i*unit, base + (i+1)*unit), everything else being 0.
    fn check(counts: &RangeCounts, model: &[i32], base: usize, unit: usize) {
        counts.assert_canonical();
        for (i, &m) in model.iter().enumerate() {
            let a = base + i * unit;
            assert_eq!(counts.count_at(a), m, "unit {i} first byte");
            assert_eq!(counts.count_at(a + unit - 1), m, "unit {i} last byte");
        }
        assert_eq!(counts.count_at(base - 1), 0);
        assert_eq!(counts.count_at(base + model.len() * unit), 0);
        // The runs are exactly the maximal equal-count stretches of the model.
        let mut expect = Vec::new();
        let mut i = 0;
        while i < model.len() {
            let mut j = i;
            while j + 1 < model.len() && model[j + 1] == model[i] {
                j += 1;
            }
            if model[i] != 0 {
                expect.push((base + i * unit, base + (j + 1) * unit - 1, model[i]));
            }
            i = j + 1;
        }
        assert_eq!(counts.runs().collect::<Vec<_>>(), expect);
    }

    #[test]
    fn random_adds_match_a_per_unit_model() {
        const UNITS: usize = 48;
        let (base, unit) = (0x7000_0000usize, 0x1000usize);
        for seed in 1..=40u64 {
            let mut rng = XorShift::new(seed);
            let mut counts = RangeCounts::new();
            let mut model = [0i32; UNITS];
            for _ in 0..300 {
                let a = rng.below(UNITS as u64) as usize;
                let b = a + rng.below((UNITS - a) as u64) as usize;
                // Mostly balanced traffic, some excursions below 0.
                let inc = match rng.below(10) {
                    0..=4 => 1,
                    5..=8 => -1,
                    _ => 2,
                };
                counts.add(base + a * unit, base + (b + 1) * unit - 1, inc);
                for m in &mut model[a..=b] {
                    *m += inc;
                }
                check(&counts, &model, base, unit);
                // ranges_with_count agrees with the model for 0 and 1.
                let (qa, qb) = (rng.below(UNITS as u64) as usize, UNITS - 1);
                for v in [0, 1] {
                    let got = counts.ranges_with_count(base + qa * unit, base + (qb + 1) * unit - 1, v);
                    let mut want: Vec<(usize, usize)> = Vec::new();
                    for (i, &m) in model.iter().enumerate().take(qb + 1).skip(qa) {
                        if m != v {
                            continue;
                        }
                        let (s, l) = (base + i * unit, base + (i + 1) * unit - 1);
                        match want.last_mut() {
                            Some(p) if p.1 + 1 == s => p.1 = l,
                            _ => want.push((s, l)),
                        }
                    }
                    assert_eq!(got, want, "seed {seed}, value {v}");
                }
            }
        }
    }

    fn shuffle<T>(v: &mut [T], rng: &mut XorShift) {
        for i in (1..v.len()).rev() {
            v.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }

    #[test]
    fn thousands_of_runs_split_and_merge_blocks() {
        const UNITS: usize = 4000;
        let (base, unit) = (0x1000_0000usize, 0x1000usize);
        let addr = |u: usize| base + u * unit;
        let mut rng = XorShift::new(7);
        let mut counts = RangeCounts::new();
        let mut model = vec![0i32; UNITS];
        let apply = |counts: &mut RangeCounts, model: &mut [i32], a: usize, b: usize, inc: i32| {
            counts.add(addr(a), addr(b + 1) - 1, inc);
            for m in &mut model[a..=b] {
                *m += inc;
            }
        };

        // Every other unit to 1, in random order: 2000 separate runs.
        let mut even: Vec<usize> = (0..UNITS / 2).map(|i| 2 * i).collect();
        shuffle(&mut even, &mut rng);
        for (k, &u) in even.iter().enumerate() {
            apply(&mut counts, &mut model, u, u, 1);
            if k % 101 == 0 {
                check(&counts, &model, base, unit);
            }
        }
        check(&counts, &model, base, unit);
        assert_eq!(counts.run_count(), UNITS / 2);
        let full = counts.block_count();
        assert!(full > UNITS / 2 / BLOCK, "{full} blocks");

        // Nested and unbalanced traffic on those runs and around them.
        for step in 0..6000 {
            let a = rng.below(UNITS as u64) as usize;
            let b = (a + rng.below(4) as usize).min(UNITS - 1);
            let inc = if rng.below(2) == 0 { 1 } else { -1 };
            apply(&mut counts, &mut model, a, b, inc);
            if step % 97 == 0 {
                check(&counts, &model, base, unit);
            }
        }
        check(&counts, &model, base, unit);

        // Drain unit by unit in random order: blocks empty and merge.
        let mut all: Vec<usize> = (0..UNITS).collect();
        shuffle(&mut all, &mut rng);
        for (k, &u) in all.iter().enumerate() {
            while model[u] != 0 {
                let inc = -model[u].signum();
                apply(&mut counts, &mut model, u, u, inc);
            }
            if k % 200 == 0 {
                check(&counts, &model, base, unit);
                // Merging keeps the blocks from thinning out (tombstones
                // are entries like runs until swept).
                assert!(
                    counts.block_count() <= counts.entry_count() / 4 + 1,
                    "{} blocks for {} entries",
                    counts.block_count(),
                    counts.entry_count()
                );
                // Sweeps keep the tombstones bounded.
                assert!(counts.tombstone_count() <= counts.entry_count() / 5 + TOMBSTONE_SLACK + 1);
            }
        }
        check(&counts, &model, base, unit);
        // What is left are at most TOMBSTONE_SLACK tombstones.
        assert_eq!(counts.run_count(), 0);
        assert!(counts.tombstone_count() <= TOMBSTONE_SLACK, "{} tombstones", counts.tombstone_count());
        assert!(counts.block_count() <= TOMBSTONE_SLACK / 4 + 1, "{} blocks", counts.block_count());
    }

    #[test]
    fn change_agrees_with_the_model_through_stale_hints() {
        // Thousands of runs, so blocks split and merge and hints go stale;
        // one-run changes (exact runs, gaps) mixed with general changes.
        const UNITS: usize = 6000;
        let (base, unit) = (0x4000_0000usize, 0x1000usize);
        let addr = |u: usize| base + u * unit;
        let mut rng = XorShift::new(11);
        let mut counts = RangeCounts::new();
        let mut model = vec![0i32; UNITS];
        let (mut done, mut advised, mut general, mut reused) = (0, 0, 0, 0);
        for u in (0..UNITS).step_by(2) {
            counts.add(addr(u), addr(u + 1) - 1, 1);
            model[u] += 1;
        }
        for step in 0..60_000 {
            let inc = if rng.below(2) == 0 { 1 } else { -1 };
            if rng.below(4) == 0 {
                // A general change: units (dis)appear, blocks split and merge.
                let a = rng.below(UNITS as u64) as usize;
                let b = (a + rng.below(3) as usize).min(UNITS - 1);
                counts.add(addr(a), addr(b + 1) - 1, inc);
                model[a..=b].iter_mut().for_each(|m| *m += inc);
                continue;
            }
            // Usually a stored run exactly, else one or two units that may
            // be a gap, a run, or parts of runs.
            let (a, b) = if rng.below(2) != 0 && counts.run_count() > 0 {
                let (s, l, _) = counts.runs().nth(rng.below(counts.run_count() as u64) as usize).unwrap();
                ((s - base) / unit, (l + 1 - base) / unit - 1)
            } else {
                let a = rng.below(UNITS as u64) as usize;
                (a, (a + rng.below(2) as usize).min(UNITS - 1))
            };
            let keep = if inc == 1 { 0 } else { 1 };
            let c = model[a];
            let new = c + inc;
            let same = model[a..=b].iter().all(|&m| m == c);
            let touches = |v: i32| (a > 0 && model[a - 1] == v) || (b + 1 < UNITS && model[b + 1] == v);
            // One run exactly (whose new count merges with nothing), or all 0.
            let one_run = same && (c == 0 || (!touches(c) && (new == 0 || !touches(new))));
            // A count-0 stretch that is partly a tombstone, or a tombstone
            // whose new count merges with a neighbour, is a general change.
            let meets_tomb = counts.meets_tombstone(addr(a), addr(b + 1) - 1);
            let reuse = counts.is_tombstone(addr(a), addr(b + 1) - 1);
            let got = counts.change(addr(a), addr(b + 1) - 1, inc, keep);
            let what = format!("step {step}: units {a}..={b} count {c} inc {inc}: {got:?}");
            match got {
                Change::General => {
                    assert!(!one_run || meets_tomb, "{what}");
                    general += 1;
                }
                Change::Done => {
                    assert!(one_run && c != keep, "{what}");
                    model[a..=b].iter_mut().for_each(|m| *m += inc);
                    done += 1;
                }
                Change::Advise => {
                    assert!(one_run && c == keep, "{what}");
                    reused += reuse as usize;
                    // Taken back, as after a failed madvise: nothing changed.
                    if rng.below(8) == 0 {
                        counts.add(addr(a), addr(b + 1) - 1, -inc);
                    } else {
                        model[a..=b].iter_mut().for_each(|m| *m += inc);
                    }
                    advised += 1;
                }
            }
            if step % 2000 == 0 {
                check(&counts, &model, base, unit);
            }
        }
        check(&counts, &model, base, unit);
        // Every outcome was exercised, and blocks came and went.
        assert!(
            done > 5_000 && advised > 5_000 && general > 1_000 && reused > 200,
            "{done} done, {advised} advised, {general} general, {reused} tombstones reused"
        );
        assert!(counts.blocks.free.len() + counts.block_count() == counts.blocks.slab.len());
        for (b, &id) in counts.blocks.order.iter().enumerate() {
            assert_eq!(counts.blocks.position(id as usize), b, "position of block {id}");
        }
    }

    #[test]
    fn tombstones_are_reused_swept_and_never_counted() {
        let (base, unit) = (0x2000_0000usize, 0x1000usize);
        let addr = |u: usize| base + u * unit;
        const N: usize = 4000;
        let mut counts = RangeCounts::new();
        let mut model = vec![0i32; 2 * N + 1];
        let mut rng = XorShift::new(5);
        let mut odd: Vec<usize> = (0..N).map(|i| 2 * i + 1).collect();
        shuffle(&mut odd, &mut rng);
        for &u in &odd {
            assert_eq!(counts.change(addr(u), addr(u + 1) - 1, 1, 0), Change::Advise);
            model[u] = 1;
        }
        check(&counts, &model, base, unit);
        let entries = counts.entry_count();

        // 1 -> 0 leaves a tombstone in place; 0 -> 1 of the same range
        // reuses it: nothing moves, the entries stay the same.
        let some = &odd[..N / 8];
        for &u in some {
            assert_eq!(counts.change(addr(u), addr(u + 1) - 1, -1, 1), Change::Advise);
            model[u] = 0;
            assert!(counts.is_tombstone(addr(u), addr(u + 1) - 1));
        }
        check(&counts, &model, base, unit);
        assert_eq!((counts.entry_count(), counts.tombstone_count()), (entries, N / 8));
        assert_eq!(counts.count_at(addr(some[0])), 0);
        assert_eq!(counts.ranges_with_count(addr(0), addr(4) - 1, 0).len(), 2 - (model[1] == 0) as usize);
        for &u in some {
            assert_eq!(counts.change(addr(u), addr(u + 1) - 1, 1, 0), Change::Advise);
            model[u] = 1;
        }
        check(&counts, &model, base, unit);
        assert_eq!((counts.entry_count(), counts.tombstone_count()), (entries, 0));

        // A dofork of a tombstone (unbalanced): a live run of -1 in place,
        // and back.
        let u = some[0];
        counts.change(addr(u), addr(u + 1) - 1, -1, 1);
        assert_eq!(counts.change(addr(u), addr(u + 1) - 1, -1, 1), Change::Done);
        assert_eq!((counts.count_at(addr(u)), counts.tombstone_count()), (-1, 0));
        assert_eq!(counts.change(addr(u), addr(u + 1) - 1, 1, 0), Change::Done);
        assert_eq!(counts.change(addr(u), addr(u + 1) - 1, 1, 0), Change::Advise);
        check(&counts, &model, base, unit);

        // Stale tombstones: a tombstone next to a fresh range of another
        // size, and general changes over tombstones, sweep them (or merge
        // across them) with the counts exact.
        let t = some[1];
        counts.change(addr(t), addr(t + 1) - 1, -1, 1);
        model[t] = 0;
        counts.add(addr(t - 1), addr(t + 2) - 1, 1);
        model[t - 1..t + 2].iter_mut().for_each(|m| *m += 1);
        check(&counts, &model, base, unit);
        assert!(!counts.meets_tombstone(addr(t - 1), addr(t + 2) - 1));
        counts.add(addr(t - 1), addr(t + 2) - 1, -1);
        model[t - 1..t + 2].iter_mut().for_each(|m| *m -= 1);
        check(&counts, &model, base, unit);

        // Unregistering everything sweeps once the tombstones outnumber a
        // quarter of the live runs: they stay bounded all the way down.
        let mut most_dead = 0;
        for &u in &odd {
            if model[u] == 1 {
                counts.change(addr(u), addr(u + 1) - 1, -1, 1);
                model[u] = 0;
            }
            let (dead, live) = (counts.tombstone_count(), counts.run_count());
            assert!(dead <= live / 4 + TOMBSTONE_SLACK, "{dead} tombstones for {live} runs");
            most_dead = most_dead.max(dead);
        }
        check(&counts, &model, base, unit);
        assert!(most_dead > N / 5, "sweeps came too early: at most {most_dead} tombstones");
        assert!(counts.tombstone_count() <= TOMBSTONE_SLACK);
        // Registering at new places (buffers that moved) leaves the old
        // tombstones stale; they are swept all the same.
        for &u in &odd {
            let v = u - 1; // the even units, never registered before
            counts.change(addr(v), addr(v + 1) - 1, 1, 0);
            model[v] = 1;
            counts.change(addr(v), addr(v + 1) - 1, -1, 1);
            model[v] = 0;
            assert!(counts.tombstone_count() <= counts.run_count() / 4 + TOMBSTONE_SLACK);
        }
        check(&counts, &model, base, unit);
        assert_eq!(counts.run_count(), 0);
    }

    #[test]
    fn plans_cover_one_run_changes_only() {
        let mut c = RangeCounts::new();
        let apply = |c: &mut RangeCounts, s: usize, l: usize, inc: i32, old: i32| {
            let plan = c.plan(s, l, inc).expect("a one-run change");
            assert_eq!(plan.old_count(), old);
            c.apply(plan, s, l, inc);
            c.assert_canonical();
        };
        // Gaps: new runs.
        apply(&mut c, 0x1000, 0x1fff, 1, 0);
        apply(&mut c, 0x3000, 0x3fff, 2, 0);
        // Exactly a run: in place.
        apply(&mut c, 0x1000, 0x1fff, 1, 1);
        assert_eq!(c.runs().collect::<Vec<_>>(), vec![(0x1000, 0x1fff, 2), (0x3000, 0x3fff, 2)]);
        // Partial overlaps and several runs are not one-run changes.
        for (s, l) in [(0x1000, 0x17ff), (0x1800, 0x1fff), (0x0, 0x1fff), (0x1000, 0x2fff), (0x1000, 0x3fff)] {
            assert!(c.plan(s, l, 1).is_none(), "{s:#x}..={l:#x}");
        }
        // A gap between two runs of another count: no merge.
        apply(&mut c, 0x2000, 0x2fff, 1, 0);
        assert_eq!(c.run_count(), 3);
        // Now it would become equal to both neighbours: not in place.
        assert!(c.plan(0x2000, 0x2fff, 1).is_none());
        c.add(0x2000, 0x2fff, 1);
        assert_eq!(c.runs().collect::<Vec<_>>(), vec![(0x1000, 0x3fff, 2)]);
        // Gaps merging with the run before, after, or both.
        apply(&mut c, 0x5000, 0x5fff, 1, 0);
        apply(&mut c, 0x7000, 0x7fff, 1, 0);
        apply(&mut c, 0x6000, 0x6fff, 1, 0);
        apply(&mut c, 0x8000, 0x8fff, 1, 0);
        apply(&mut c, 0x4000, 0x4fff, 1, 0);
        assert_eq!(c.runs().collect::<Vec<_>>(), vec![(0x1000, 0x3fff, 2), (0x4000, 0x8fff, 1)]);
        // A run going to 0 goes.
        apply(&mut c, 0xa000, 0xafff, -1, 0);
        apply(&mut c, 0xa000, 0xafff, 1, -1);
        apply(&mut c, 0x1000, 0x3fff, -2, 2);
        assert_eq!(c.runs().collect::<Vec<_>>(), vec![(0x4000, 0x8fff, 1)]);
        // At the edges of the address space.
        apply(&mut c, usize::MAX - 0xfff, usize::MAX, 1, 0);
        apply(&mut c, 0, 0xfff, 1, 0);
        apply(&mut c, usize::MAX - 0xfff, usize::MAX, 1, 1);
        assert_eq!(c.count_at(usize::MAX), 2);
        assert_eq!(c.count_at(0), 1);
    }

    #[test]
    fn balanced_traffic_leaves_nothing() {
        let mut c = RangeCounts::new();
        c.add(0x1000, 0x4fff, 1);
        c.add(0x3000, 0x8fff, 1);
        c.add(0x5000, 0x5fff, 1);
        // The two count-2 stretches touch, so they are one run.
        assert_eq!(
            c.runs().collect::<Vec<_>>(),
            vec![(0x1000, 0x2fff, 1), (0x3000, 0x5fff, 2), (0x6000, 0x8fff, 1)]
        );
        c.add(0x3000, 0x8fff, -1);
        c.add(0x1000, 0x4fff, -1);
        c.add(0x5000, 0x5fff, -1);
        assert_eq!(c.run_count(), 0);
    }

    #[test]
    fn edges_of_the_address_space() {
        let mut c = RangeCounts::new();
        c.add(0, usize::MAX, 1);
        assert_eq!(c.runs().collect::<Vec<_>>(), vec![(0, usize::MAX, 1)]);
        c.add(usize::MAX - 0xfff, usize::MAX, 1);
        c.add(0, 0xfff, -1);
        c.assert_canonical();
        assert_eq!(
            c.runs().collect::<Vec<_>>(),
            vec![(0x1000, usize::MAX - 0x1000, 1), (usize::MAX - 0xfff, usize::MAX, 2)]
        );
        assert_eq!(c.count_at(0), 0);
        assert_eq!(c.count_at(usize::MAX), 2);
        assert_eq!(c.ranges_with_count(0, usize::MAX, 0), vec![(0, 0xfff)]);
        assert_eq!(c.ranges_with_count(0, usize::MAX, 2), vec![(usize::MAX - 0xfff, usize::MAX)]);
        c.add(0x1000, usize::MAX, -1);
        c.add(usize::MAX - 0xfff, usize::MAX, -1);
        assert_eq!(c.run_count(), 0);
        assert_eq!(c.ranges_with_count(0, usize::MAX, 0), vec![(0, usize::MAX)]);
    }
}
