//! Reference counts over the whole address space, kept as maximal runs.
//!
//! Every address has a signed count, 0 unless something changed it. The map
//! stores only the addresses whose count is not 0, as runs `[start, last]`
//! (inclusive, so the top of the address space is representable) keyed by
//! `start`. The representation is canonical:
//!   - runs never overlap;
//!   - no run has count 0 (absent means 0);
//!   - two runs that touch (`a.last + 1 == b.start`) never have the same count.
//!
//! So the runs with a given count are maximal, and [`RangeCounts::add`] costs
//! O((k + 1) log n) for a range meeting k runs. Counts may go negative: an
//! unbalanced decrement is recorded, as upstream's signed node counts record
//! it, and a later increment brings it back to 0 first.

use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    last: usize,
    count: i32,
}

/// Signed counts per address (see the module docs).
#[derive(Debug, Default)]
pub struct RangeCounts {
    runs: BTreeMap<usize, Run>,
}

impl RangeCounts {
    pub const fn new() -> Self {
        RangeCounts { runs: BTreeMap::new() }
    }

    /// The count of one address.
    pub fn count_at(&self, addr: usize) -> i32 {
        match self.runs.range(..=addr).next_back() {
            Some((_, r)) if r.last >= addr => r.count,
            _ => 0,
        }
    }

    /// Number of stored runs (the non-zero ones).
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// `[start, last]` cut into consecutive pieces of equal count, the gaps
    /// between runs included as count 0. `start <= last`.
    fn pieces(&self, start: usize, last: usize) -> Vec<(usize, usize, i32)> {
        debug_assert!(start <= last);
        let mut out = Vec::new();
        // The first run that can meet the range is the one holding `start`, if
        // any; every later one starts inside the range.
        let from = match self.runs.range(..=start).next_back() {
            Some((&s, r)) if r.last >= start => s,
            _ => start,
        };
        let mut next = start; // first address not yet covered by a piece
        for (&s, r) in self.runs.range(from..=last) {
            let s = s.max(start);
            if s > next {
                out.push((next, s - 1, 0));
            }
            let l = r.last.min(last);
            out.push((s, l, r.count));
            if l == last {
                return out;
            }
            next = l + 1;
        }
        out.push((next, last, 0));
        out
    }

    /// The maximal sub-ranges of `[start, last]` whose count is `value`, in
    /// ascending order. `start <= last`.
    pub fn ranges_with_count(&self, start: usize, last: usize, value: i32) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (s, l, c) in self.pieces(start, last) {
            if c != value {
                continue;
            }
            match out.last_mut() {
                Some(prev) if prev.1.wrapping_add(1) == s => prev.1 = l,
                _ => out.push((s, l)),
            }
        }
        out
    }

    /// Adds `inc` to the count of every address in `[start, last]`
    /// (`start <= last`), keeping the representation canonical.
    pub fn add(&mut self, start: usize, last: usize, inc: i32) {
        debug_assert!(start <= last);
        if inc == 0 {
            return;
        }
        // Widen to whole runs on both sides, including a run that merely
        // touches the range: those are the only runs whose boundaries can
        // change. `lo` and `hi` are then never strictly inside a run.
        let lo = match start.checked_sub(1) {
            Some(before) => match self.runs.range(..=before).next_back() {
                Some((&s, r)) if r.last >= before => s,
                _ => start,
            },
            None => start,
        };
        let hi = match last.checked_add(1) {
            Some(after) => match self.runs.range(..=after).next_back() {
                Some((_, r)) if r.last >= after => r.last,
                _ => last,
            },
            None => last,
        };

        let mut fresh: Vec<(usize, Run)> = Vec::new();
        let mut push = |s: usize, l: usize, count: i32| {
            if count == 0 {
                return;
            }
            if let Some((_, prev)) = fresh.last_mut() {
                if prev.last.wrapping_add(1) == s && prev.count == count {
                    prev.last = l;
                    return;
                }
            }
            fresh.push((s, Run { last: l, count }));
        };
        for (s, l, c) in self.pieces(lo, hi) {
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
        }

        let old: Vec<usize> = self.runs.range(lo..=hi).map(|(&s, _)| s).collect();
        for s in old {
            self.runs.remove(&s);
        }
        self.runs.extend(fresh);
    }

    /// All runs as `(start, last, count)`, ascending (for tests and checks).
    pub fn runs(&self) -> impl Iterator<Item = (usize, usize, i32)> + '_ {
        self.runs.iter().map(|(&s, r)| (s, r.last, r.count))
    }

    /// Panics unless the representation is canonical (see the module docs).
    pub fn assert_canonical(&self) {
        let mut prev: Option<(usize, usize, i32)> = None;
        for (s, l, c) in self.runs() {
            assert!(s <= l, "run {s:#x}..={l:#x} is inverted");
            assert_ne!(c, 0, "run {s:#x}..={l:#x} has count 0");
            if let Some((_, pl, pc)) = prev {
                assert!(pl < s, "runs overlap at {s:#x}");
                assert!(
                    !(pl + 1 == s && pc == c),
                    "touching runs with equal count {c} at {s:#x}"
                );
            }
            prev = Some((s, l, c));
        }
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
