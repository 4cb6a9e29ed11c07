//! Tests of fork safety (see the docs of `crate::fork`).
//!
//! - The range engine ([`advise_range`] on a private [`PageCounts`]) is
//!   driven with random dontfork/dofork sequences over a real mapping and
//!   checked after every step against a per-page count model, both the counts
//!   and the kernel's VM_DONTCOPY flag ("dc" in /proc/self/smaps VmFlags).
//! - [`child_concurrent_threads`] has threads call the exported functions
//!   at once on shared and private pages, then checks the sum of their
//!   changes against the counts and the kernel's flags.
//! - Tests that unmap pages, or that call ibv_fork_init() (process-global
//!   state), run alone in a child process: [`run_in_child`] re-executes this
//!   test binary on one `#[ignore]`d `child_*` test.
//! - [`matches_debian_library`] runs the scenarios of compare.c against
//!   Debian's libibverbs.so.1 and against our release build and compares.

use super::pagesize::smaps_header;
use super::*;
use crate::testkit::rng::XorShift;
use abi_tests::paths;
use rdma_util::ffi;
use std::path::{Path, PathBuf};
use std::process::Command;

fn sys_page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// `pages` read-write anonymous pages between two PROT_NONE guard pages, so
/// the kernel never merges them with a neighbouring mapping.
struct Region {
    base: usize,
    pages: usize,
    ps: usize,
}

impl Region {
    fn new(pages: usize) -> Region {
        let ps = sys_page_size();
        let len = (pages + 2) * ps;
        // SAFETY: a fresh anonymous mapping; no existing memory is affected.
        let m = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(m, libc::MAP_FAILED, "mmap");
        let m = m as usize;
        for guard in [m, m + (pages + 1) * ps] {
            // SAFETY: the guard pages belong to the mapping just made.
            assert_eq!(unsafe { libc::mprotect(guard as *mut c_void, ps, libc::PROT_NONE) }, 0);
        }
        Region { base: m + ps, pages, ps }
    }

    fn page(&self, i: usize) -> usize {
        self.base + i * self.ps
    }

    fn unmap_page(&self, i: usize) {
        assert!(i < self.pages);
        // SAFETY: the page belongs to this region and nothing references it.
        assert_eq!(unsafe { libc::munmap(self.page(i) as *mut c_void, self.ps) }, 0);
    }

    /// Per page: Some(VM_DONTCOPY) or None when unmapped.
    fn dontcopy(&self) -> Vec<Option<bool>> {
        let vmas = smaps_dontcopy();
        (0..self.pages)
            .map(|i| {
                let a = self.page(i);
                vmas.iter().find(|v| a >= v.0 && a < v.1).map(|v| v.2)
            })
            .collect()
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in new() (holes included).
        unsafe { libc::munmap((self.base - self.ps) as *mut c_void, (self.pages + 2) * self.ps) };
    }
}

/// Every mapping of this process as (start, end, has "dc" in VmFlags).
fn smaps_dontcopy() -> Vec<(usize, usize, bool)> {
    let text = std::fs::read("/proc/self/smaps").expect("read /proc/self/smaps");
    let mut out: Vec<(usize, usize, bool)> = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        if let Some((lo, hi)) = smaps_header(line) {
            out.push((lo, hi, false));
        } else if let Some(flags) = line.strip_prefix(b"VmFlags:") {
            let dc = flags.split(|&b| b == b' ').any(|t| t == b"dc");
            out.last_mut().expect("VmFlags before any mapping").2 = dc;
        }
    }
    out
}

/// Asserts that counts and kernel flags of every page agree with `model`
/// (None in `holes` marks unmapped pages). A page is VM_DONTCOPY exactly when
/// its count is at least 1.
fn check_state(region: &Region, counts: &PageCounts, model: &[i32], holes: &[usize], what: &str) {
    counts.assert_canonical();
    let dc = region.dontcopy();
    for i in 0..region.pages {
        let a = region.page(i);
        assert_eq!(counts.count_at(a), model[i], "{what}: count of page {i}");
        assert_eq!(counts.count_at(a + region.ps - 1), model[i], "{what}: count of page {i} end");
        let want = if holes.contains(&i) { None } else { Some(model[i] >= 1) };
        assert_eq!(dc[i], want, "{what}: dc of page {i} (count {})", model[i]);
    }
    // Nothing outside the region was counted.
    assert_eq!(counts.count_at(region.page(0) - 1), 0, "{what}: below the region");
    assert_eq!(counts.count_at(region.page(region.pages)), 0, "{what}: above the region");
}

/// One random operation over the region: an unaligned byte range covering
/// pages `first .. first + n` and whether it is a dontfork.
fn random_op(rng: &mut XorShift, region: &Region, max_pages: usize) -> (usize, usize, usize, usize, Advice) {
    let ps = region.ps as u64;
    let first = rng.below(region.pages as u64) as usize;
    let n = 1 + rng.below(max_pages.min(region.pages - first) as u64) as usize;
    let head = rng.below(ps) as usize; // offset of base in the first page
    let tail = if n == 1 {
        head + rng.below(ps - head as u64) as usize
    } else {
        rng.below(ps) as usize
    }; // offset of the last byte in the last page
    let base = region.page(first) + head;
    let size = region.page(first + n - 1) + tail + 1 - base;
    let advice = if rng.below(100) < 55 { Advice::DontFork } else { Advice::DoFork };
    (first, n, base, size, advice)
}

#[test]
fn page_range_rounds_like_upstream() {
    let ps = 0x1000;
    assert_eq!(page_range(0x5000, 1, ps), Some((0x5000, 0x5fff)));
    assert_eq!(page_range(0x5fff, 2, ps), Some((0x5000, 0x6fff)));
    assert_eq!(page_range(0x5001, 0x1000, ps), Some((0x5000, 0x6fff)));
    assert_eq!(page_range(0x5000, 0x2000, ps), Some((0x5000, 0x6fff)));
    assert_eq!(page_range(0x200000 + 5, 1, 0x200000), Some((0x200000, 0x3fffff)));
    // Ending exactly at the top of the address space is fine ...
    assert_eq!(page_range(usize::MAX - 0xfff, 0x1000, ps), Some((usize::MAX - 0xfff, usize::MAX)));
    // ... wrapping past it is a no-op.
    assert_eq!(page_range(0x5000, usize::MAX - 0x1000, ps), None);
    assert_eq!(page_range(0x7000, 0usize.wrapping_sub(0x2000), ps), None);
}

#[test]
fn random_sequences_match_model_and_kernel() {
    const PAGES: usize = 40;
    // (steps, steps with some count below 0, steps changing a kernel flag, highest count)
    let mut seen = (0, 0, 0, 0);
    for seed in 1..=8u64 {
        // Odd seeds: independent random dontforks and doforks, so counts also
        // go below 0. Even seeds: like registrations, every dofork undoes an
        // earlier dontfork of the same range.
        let balanced = seed % 2 == 0;
        let region = Region::new(PAGES);
        let ps = region.ps;
        let mut counts = PageCounts::new();
        let mut model = vec![0i32; PAGES];
        let mut live: Vec<(usize, usize, usize, usize)> = Vec::new();
        let mut rng = XorShift::new(seed);
        check_state(&region, &counts, &model, &[], "initial");
        for step in 0..150 {
            let (mut first, mut n, mut base, mut size, mut advice) = random_op(&mut rng, &region, 14);
            if balanced {
                if advice == Advice::DoFork && !live.is_empty() {
                    (first, n, base, size) = live.swap_remove(rng.below(live.len() as u64) as usize);
                } else {
                    advice = Advice::DontFork;
                    live.push((first, n, base, size));
                }
            }
            let (start, last) = page_range(base, size, ps).expect("in range");
            assert_eq!((start, last), (region.page(first), region.page(first + n) - 1));
            let before: Vec<bool> = model.iter().map(|&c| c >= 1).collect();
            assert_eq!(advise_range(&mut counts, start, last, advice, ps), 0, "seed {seed} step {step}");
            let inc = if advice == Advice::DontFork { 1 } else { -1 };
            for c in &mut model[first..first + n] {
                *c += inc;
            }
            let what = format!("seed {seed} step {step}: {advice:?} pages {first}..{}", first + n);
            check_state(&region, &counts, &model, &[], &what);
            seen.0 += 1;
            seen.1 += model.iter().any(|&c| c < 0) as usize;
            seen.2 += (model.iter().map(|&c| c >= 1).collect::<Vec<_>>() != before) as usize;
            seen.3 = seen.3.max(*model.iter().max().unwrap());
        }
        // Draining every count back to 0 leaves nothing marked and no runs.
        for (i, c) in model.clone().into_iter().enumerate() {
            let advice = if c > 0 { Advice::DoFork } else { Advice::DontFork };
            for _ in 0..c.abs() {
                let a = region.page(i);
                assert_eq!(advise_range(&mut counts, a, a + ps - 1, advice, ps), 0);
            }
        }
        check_state(&region, &counts, &[0; PAGES], &[], "drained");
        assert_eq!(counts.run_count(), 0);
        assert_eq!(counts.chunk_count(), 0);
    }
    eprintln!(
        "random sequences: {} steps, {} with some count below 0, {} changing kernel flags, highest count {}",
        seen.0, seen.1, seen.2, seen.3
    );
    // The walk must exercise both regimes and real overlap.
    assert!(seen.1 > 0 && seen.1 < seen.0 && seen.2 > seen.0 / 4 && seen.3 >= 3);
}

// ---- Tests run in a child process ---------------------------------------

const CHILD_ENV: &str = "IBVERBS_FORK_TEST_CHILD";

/// True inside a process started by [`run_in_child`]. The `child_*` tests
/// return at once otherwise (e.g. under a plain `cargo test -- --ignored`),
/// as they would disturb the other tests' process.
fn in_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// Runs the `#[ignore]`d test `name` of this module alone in a new process of
/// this test binary, with `env` set, and asserts that it passed.
fn run_in_child(name: &str, env: &[(&str, &str)]) {
    let module = module_path!().split_once("::").expect("crate::path").1;
    let full = format!("{module}::{name}");
    let mut cmd = Command::new(std::env::current_exe().expect("current_exe"));
    cmd.args([full.as_str(), "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1");
    for var in ["RDMAV_FORK_SAFE", "IBV_FORK_SAFE", "RDMAV_HUGEPAGES_SAFE"] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child test {full} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // What the child reported (its own eprintln!s), for --nocapture runs.
    eprint!("{stderr}");
}

#[test]
fn failed_dontfork_rolls_back() {
    run_in_child("child_failed_dontfork_rolls_back", &[]);
}

#[test]
#[ignore = "run in a child process by failed_dontfork_rolls_back"]
fn child_failed_dontfork_rolls_back() {
    if !in_child() {
        return;
    }
    let region = Region::new(16);
    let ps = region.ps;
    let mut counts = PageCounts::new();
    let mut model = vec![0i32; 16];
    let range = |a: usize, b: usize| (region.page(a), region.page(b + 1) - 1);
    let apply = |counts: &mut PageCounts, (s, l): (usize, usize), advice| advise_range(counts, s, l, advice, ps);

    // Pages 2-4 at 1, page 3 at 2, page 12 at -1; page 10 becomes a hole.
    assert_eq!(apply(&mut counts, range(2, 4), Advice::DontFork), 0);
    assert_eq!(apply(&mut counts, range(3, 3), Advice::DontFork), 0);
    assert_eq!(apply(&mut counts, range(12, 12), Advice::DoFork), 0);
    model[2] = 1;
    model[3] = 2;
    model[4] = 1;
    model[12] = -1;
    region.unmap_page(10);
    let holes = [10];
    check_state(&region, &counts, &model, &holes, "prepared");

    // 0-15: 0-1, 5-11 and 13-15 are to go 0 -> 1. 0-1 succeeds first, then
    // 5-11 fails on the hole (the kernel marks 5-9 and 11 regardless).
    ffi::set_errno(0);
    assert_eq!(apply(&mut counts, range(0, 15), Advice::DontFork), -1);
    assert_eq!(ffi::errno(), libc::ENOMEM);
    check_state(&region, &counts, &model, &holes, "after the failed 0-15");

    // The hole alone, and a range starting on it.
    ffi::set_errno(0);
    assert_eq!(apply(&mut counts, range(10, 10), Advice::DontFork), -1);
    assert_eq!(ffi::errno(), libc::ENOMEM);
    assert_eq!(apply(&mut counts, range(10, 13), Advice::DontFork), -1);
    check_state(&region, &counts, &model, &holes, "after the failed 10 and 10-13");

    // 11-13 avoids the hole: 11 and 13 go 0 -> 1, 12 -1 -> 0 (no madvise).
    assert_eq!(apply(&mut counts, range(11, 13), Advice::DontFork), 0);
    for c in &mut model[11..=13] {
        *c += 1;
    }
    check_state(&region, &counts, &model, &holes, "11-13");

    // A dofork over the hole: only 11 goes 1 -> 0; 9 and the hole go to -1.
    assert_eq!(apply(&mut counts, range(9, 11), Advice::DoFork), 0);
    for c in &mut model[9..=11] {
        *c -= 1;
    }
    check_state(&region, &counts, &model, &holes, "dofork 9-11");
    // The hole is at -1 now: a dontfork over it takes it to 0 without
    // madvise and succeeds.
    assert_eq!(apply(&mut counts, range(8, 11), Advice::DontFork), 0);
    for c in &mut model[8..=11] {
        *c += 1;
    }
    check_state(&region, &counts, &model, &holes, "dontfork 8-11");
    // The second time 9-10 go 0 -> 1 and fail on the hole; 8 (1 -> 2) and
    // 11 (1 -> 2) stay as they were.
    assert_eq!(apply(&mut counts, range(8, 11), Advice::DontFork), -1);
    check_state(&region, &counts, &model, &holes, "second dontfork 8-11");

    // MADV_DOFORK failing on a range (a page unmapped after it was counted)
    // does not fail the call: the mapped pages are cleared page by page.
    let other = Region::new(4);
    let mut counts = PageCounts::new();
    let all = (other.page(0), other.page(4) - 1);
    assert_eq!(advise_range(&mut counts, all.0, all.1, Advice::DontFork, ps), 0);
    other.unmap_page(1);
    assert_eq!(other.dontcopy(), vec![Some(true), None, Some(true), Some(true)]);
    ffi::set_errno(0);
    assert_eq!(advise_range(&mut counts, all.0, all.1, Advice::DoFork, ps), 0);
    check_state(&other, &counts, &[0; 4], &[1], "dofork over a page unmapped since");
}

#[test]
fn random_sequences_with_holes() {
    run_in_child("child_random_sequences_with_holes", &[]);
}

#[test]
#[ignore = "run in a child process by random_sequences_with_holes"]
fn child_random_sequences_with_holes() {
    if !in_child() {
        return;
    }
    const PAGES: usize = 32;
    let (mut failures, mut steps) = (0, 0);
    for seed in 100..=105u64 {
        let region = Region::new(PAGES);
        let ps = region.ps;
        let mut rng = XorShift::new(seed);
        let holes: Vec<usize> = (0..2).map(|_| 1 + rng.below(PAGES as u64 - 2) as usize).collect();
        for &h in &holes {
            if region.dontcopy()[h].is_some() {
                region.unmap_page(h);
            }
        }
        let mut counts = PageCounts::new();
        let mut model = vec![0i32; PAGES];
        for step in 0..150 {
            let (first, n, base, size, advice) = random_op(&mut rng, &region, 12);
            let (start, last) = page_range(base, size, ps).expect("in range");
            // A dontfork fails exactly when a page it takes 0 -> 1 is unmapped.
            let fails = advice == Advice::DontFork && (first..first + n).any(|i| holes.contains(&i) && model[i] == 0);
            ffi::set_errno(0);
            let ret = advise_range(&mut counts, start, last, advice, ps);
            let what = format!("seed {seed} step {step}: {advice:?} pages {first}..{}", first + n);
            if fails {
                assert_eq!((ret, ffi::errno()), (-1, libc::ENOMEM), "{what}");
                failures += 1;
            } else {
                assert_eq!(ret, 0, "{what}");
                let inc = if advice == Advice::DontFork { 1 } else { -1 };
                for c in &mut model[first..first + n] {
                    *c += inc;
                }
            }
            check_state(&region, &counts, &model, &holes, &what);
            steps += 1;
        }
    }
    eprintln!("random sequences with holes: {steps} steps, {failures} failed dontforks rolled back");
    assert!(failures > 10, "the walk must hit the holes");
}

#[test]
fn registration_past_max_map_count_changes_nothing() {
    run_in_child("child_max_map_count", &[]);
}

#[test]
#[ignore = "run in a child process by registration_past_max_map_count_changes_nothing"]
fn child_max_map_count() {
    if !in_child() {
        return;
    }
    const PAGES: usize = 16;
    let region = Region::new(PAGES);
    let ps = region.ps;
    let mut counts = PageCounts::new();
    let mut model = vec![0i32; PAGES];
    let range = |a: usize, b: usize| (region.page(a), region.page(b + 1) - 1);
    let apply = |counts: &mut PageCounts, (s, l): (usize, usize), advice| advise_range(counts, s, l, advice, ps);
    assert_eq!(apply(&mut counts, range(2, 4), Advice::DontFork), 0);
    model[2..=4].fill(1);
    check_state(&region, &counts, &model, &[], "prepared");

    // Fill the mapping table up to vm.max_map_count: every other page of a
    // PROT_NONE reservation made readable splits it, until the kernel says
    // ENOMEM. (Lowering the sysctl instead would hit every process.)
    let room = 80_000usize;
    // SAFETY: a fresh reservation; no existing memory is affected.
    let filler = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            2 * room * ps,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    assert_ne!(filler, libc::MAP_FAILED);
    let mut made = 0;
    // SAFETY: each page lies inside the reservation made above.
    while made < room && unsafe { libc::mprotect(filler.byte_add((2 * made + 1) * ps), ps, libc::PROT_READ) } == 0 {
        made += 1;
    }
    assert!(made < room, "the reservation must hit the map count limit");
    assert_eq!(ffi::errno(), libc::ENOMEM);

    // A page inside the untracked stretch 5-15 needs two splits: madvise
    // fails with EAGAIN (the kernel's ENOMEM from the split, as madvise
    // reports it), as it does under upstream's library.
    let before: Vec<_> = counts.runs().collect();
    ffi::set_errno(0);
    assert_eq!(apply(&mut counts, range(8, 8), Advice::DontFork), -1);
    assert_eq!(ffi::errno(), libc::EAGAIN);
    assert_eq!(counts.runs().collect::<Vec<_>>(), before, "a failed registration changes no count");
    // Bookkeeping-only calls still work.
    assert_eq!(apply(&mut counts, range(2, 4), Advice::DontFork), 0);
    assert_eq!(apply(&mut counts, range(2, 4), Advice::DoFork), 0);
    assert_eq!(counts.runs().collect::<Vec<_>>(), before);

    // SAFETY: unmaps the reservation made above.
    unsafe { libc::munmap(filler, 2 * room * ps) };
    check_state(&region, &counts, &model, &[], "after the filler is gone");
    // Registrations above the failed one are protected as usual (upstream's
    // rollback left them at -1: see compare.c, scenario "mapcount").
    for (a, b) in [(13, 13), (8, 8), (0, 5)] {
        assert_eq!(apply(&mut counts, range(a, b), Advice::DontFork), 0);
        for c in &mut model[a..=b] {
            *c += 1;
        }
        check_state(&region, &counts, &model, &[], &format!("dontfork {a}-{b}"));
    }
    eprintln!("max_map_count reached after {made} splits; EAGAIN, counts unchanged");
}

#[test]
fn not_initialised_is_a_noop_and_makes_init_too_late() {
    run_in_child("child_not_initialised", &[]);
}

#[test]
#[ignore = "run in a child process by not_initialised_is_a_noop_and_makes_init_too_late"]
fn child_not_initialised() {
    if !in_child() {
        return;
    }
    let region = Region::new(4);
    let p1 = region.page(1) as *mut c_void;
    // SAFETY (all calls below): the exports take any pointer/size; they
    // only madvise page ranges, which never affects memory contents.
    unsafe {
        assert_eq!(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
        assert_eq!(ibv_dontfork_range(p1, region.ps), 0);
        assert_eq!(region.dontcopy()[1], Some(false), "no madvise before init");
        assert_eq!(ibv_dofork_range(p1, region.ps), 0);
        assert_eq!(ibv_fork_init(), libc::EINVAL);
        assert_eq!(ibv_fork_init(), libc::EINVAL);
        assert_eq!(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
        assert_eq!(dontfork_range(p1, region.ps), 0);
        assert_eq!(region.dontcopy()[1], Some(false));
    }
    assert_eq!(COUNTS.lock().run_count(), 0);
}

#[test]
fn too_late_even_for_null_or_empty_ranges() {
    run_in_child("child_too_late_null", &[]);
    run_in_child("child_too_late_empty_dofork", &[]);
    run_in_child("child_too_late_internal_api", &[]);
}

#[test]
#[ignore = "run in a child process by too_late_even_for_null_or_empty_ranges"]
fn child_too_late_null() {
    if !in_child() {
        return;
    }
    // SAFETY: as in child_not_initialised.
    unsafe {
        assert_eq!(ibv_dontfork_range(std::ptr::null_mut(), 0), 0);
        assert_eq!(ibv_fork_init(), libc::EINVAL);
    }
}

#[test]
#[ignore = "run in a child process by too_late_even_for_null_or_empty_ranges"]
fn child_too_late_empty_dofork() {
    if !in_child() {
        return;
    }
    let region = Region::new(1);
    // SAFETY: as in child_not_initialised.
    unsafe {
        assert_eq!(ibv_dofork_range(region.page(0) as *mut c_void, 0), 0);
        assert_eq!(ibv_fork_init(), libc::EINVAL);
    }
}

#[test]
#[ignore = "run in a child process by too_late_even_for_null_or_empty_ranges"]
fn child_too_late_internal_api() {
    if !in_child() {
        return;
    }
    let region = Region::new(1);
    assert_eq!(dofork_range(region.page(0) as *mut c_void, region.ps), 0);
    assert_eq!(fork_init(), libc::EINVAL);
}

#[test]
fn init_is_idempotent_and_enables_ranges() {
    run_in_child("child_init_enables_ranges", &[]);
}

#[test]
#[ignore = "run in a child process by init_is_idempotent_and_enables_ranges"]
fn child_init_enables_ranges() {
    if !in_child() {
        return;
    }
    let region = Region::new(8);
    let ps = region.ps;
    let pg = |i: usize| region.page(i) as *mut c_void;
    let marked = |r: &Region| -> String {
        r.dontcopy().iter().map(|d| if d.expect("mapped") { '1' } else { '0' }).collect()
    };
    // SAFETY: as in child_not_initialised.
    unsafe {
        assert_eq!(ibv_is_fork_initialized(), IBV_FORK_DISABLED);
        assert_eq!(ibv_fork_init(), 0);
        assert_eq!(ibv_is_fork_initialized(), IBV_FORK_ENABLED);
        assert_eq!(ibv_fork_init(), 0);
        assert_eq!(fork_init(), 0);
        assert_eq!(PAGE_SIZE.load(Ordering::Relaxed), ps);
        assert!(!HUGE_PAGES.load(Ordering::Relaxed));

        // NULL base or size 0: nothing.
        assert_eq!(ibv_dontfork_range(std::ptr::null_mut(), ps), 0);
        assert_eq!(ibv_dontfork_range(pg(1), 0), 0);
        assert_eq!(ibv_dofork_range(std::ptr::null_mut(), ps), 0);
        assert_eq!(COUNTS.lock().run_count(), 0);
        assert_eq!(marked(&region), "00000000");

        // Unaligned: one byte marks its page, two bytes across a boundary
        // mark both.
        assert_eq!(ibv_dontfork_range(pg(1).byte_add(7), 1), 0);
        assert_eq!(marked(&region), "01000000");
        assert_eq!(ibv_dontfork_range(pg(3).byte_sub(1), 2), 0);
        assert_eq!(marked(&region), "01110000");
        // The internal API is the same machinery.
        assert_eq!(dontfork_range(pg(2), 3 * ps), 0);
        assert_eq!(marked(&region), "01111000");
        assert_eq!(ibv_dofork_range(pg(1), 4 * ps), 0);
        assert_eq!(marked(&region), "00110000");
        assert_eq!(dofork_range(pg(2), 2 * ps), 0);
        assert_eq!(marked(&region), "00000000");
        assert_eq!(COUNTS.lock().run_count(), 0);
        // Unbalanced: page 1 goes to -1, and the next dontfork only brings
        // it back to 0, without marking it.
        assert_eq!(ibv_dofork_range(pg(1), 1), 0);
        assert_eq!(COUNTS.lock().count_at(pg(1) as usize), -1);
        assert_eq!(ibv_dontfork_range(pg(1), 1), 0);
        assert_eq!(marked(&region), "00000000");
        assert_eq!(COUNTS.lock().run_count(), 0);
        assert_eq!(ibv_dontfork_range(pg(1), 1), 0);
        assert_eq!(marked(&region), "01000000");
        assert_eq!(ibv_dofork_range(pg(1), 1), 0);
        // A range wrapping past the top of the address space: nothing.
        assert_eq!(ibv_dontfork_range(pg(2), 0usize.wrapping_sub(2 * ps)), 0);
        assert_eq!(COUNTS.lock().run_count(), 0);
        assert_eq!(marked(&region), "00000000");
    }
}

#[test]
fn concurrent_threads_match_the_model() {
    run_in_child("child_concurrent_threads", &[]);
}

#[test]
#[ignore = "run in a child process by concurrent_threads_match_the_model"]
fn child_concurrent_threads() {
    if !in_child() {
        return;
    }
    // Several threads call the exported functions at once, on pages they
    // share (overlapping ranges) and on pages of their own (disjoint
    // ranges). Counts add up whatever the interleaving, and after each call
    // a page is VM_DONTCOPY exactly when its count is at least 1, so the
    // end state is known without knowing the order: the sum of every
    // thread's changes, and "dc" exactly where that sum is at least 1.
    const THREADS: usize = 4;
    const SHARED: usize = 24; // pages 0..SHARED, used by every thread
    const OWN: usize = 6; // then OWN pages per thread
    const PAGES: usize = SHARED + THREADS * OWN;
    const STEPS: usize = 1500;
    assert_eq!(fork_init(), 0);
    let region = Region::new(PAGES);
    let ps = region.ps;
    let base = region.page(0);
    let barrier = std::sync::Barrier::new(THREADS);
    let deltas: Vec<Vec<i32>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let mut rng = XorShift::new(100 + t as u64);
                    let mut delta = vec![0i32; PAGES];
                    // Ranges this thread registered and has not released.
                    let mut live: Vec<(usize, usize)> = Vec::new();
                    let (mut shared_ops, mut own_ops) = (0, 0);
                    barrier.wait();
                    for step in 0..STEPS + STEPS / 2 {
                        // Mostly registrations and their release, as from
                        // ibv_reg_mr/ibv_dereg_mr; some unbalanced doforks.
                        // Then the registrations of shared pages are
                        // released, so that shared pages end up unmarked
                        // (at 0 or below) and private ones mostly marked.
                        let wind_down = step >= STEPS;
                        if wind_down && !live.iter().any(|&(first, _)| first < SHARED) {
                            break;
                        }
                        let (first, n, inc) = match rng.below(20) {
                            _ if wind_down => {
                                let at = live.iter().position(|&(first, _)| first < SHARED).expect("a shared one");
                                let (first, n) = live.swap_remove(at);
                                (first, n, -1)
                            }
                            1..=9 if !live.is_empty() => {
                                let (first, n) = live.swap_remove(rng.below(live.len() as u64) as usize);
                                (first, n, -1)
                            }
                            0 => {
                                let first = rng.below(PAGES as u64) as usize;
                                (first, 1, -1)
                            }
                            _ => {
                                let (lo, span) = if rng.below(2) == 0 {
                                    (0, SHARED)
                                } else {
                                    (SHARED + t * OWN, OWN)
                                };
                                let first = lo + rng.below(span as u64) as usize;
                                let n = 1 + rng.below((lo + span - first).min(4) as u64) as usize;
                                live.push((first, n));
                                (first, n, 1)
                            }
                        };
                        if first < SHARED {
                            shared_ops += 1;
                        } else {
                            own_ops += 1;
                        }
                        // An unaligned byte range covering exactly those pages.
                        let head = rng.below(ps as u64) as usize;
                        let addr = base + first * ps + head;
                        let size = n * ps - head - rng.below((ps - head) as u64) as usize;
                        let p = addr as *mut c_void;
                        // SAFETY: the exported functions only madvise the
                        // pages of `region`, which stays mapped throughout;
                        // they never dereference `p`.
                        let r = unsafe {
                            if inc == 1 {
                                ibv_dontfork_range(p, size)
                            } else {
                                ibv_dofork_range(p, size)
                            }
                        };
                        assert_eq!(r, 0, "thread {t}: {inc:+} pages {first}..{}", first + n);
                        for d in &mut delta[first..first + n] {
                            *d += inc;
                        }
                    }
                    assert!(shared_ops > STEPS / 4 && own_ops > STEPS / 4, "thread {t}: {shared_ops} shared, {own_ops} own");
                    delta
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker thread")).collect()
    });
    let mut model = vec![0i32; PAGES];
    for d in &deltas {
        for (m, x) in model.iter_mut().zip(d) {
            *m += x;
        }
    }
    let counts = COUNTS.lock();
    check_state(&region, &counts, &model, &[], "after the threads");
    drop(counts);
    eprintln!("concurrent threads: final counts {model:?}");
    // The end state is a real mix: pages held more than once, and pages
    // not held (at 0 or below).
    assert!(model.iter().any(|&c| c >= 2) && model.iter().any(|&c| c <= 0), "{model:?}");
    assert!(model[..SHARED].iter().all(|&c| c <= 0), "{model:?}");
    // Releasing what is held (and making up what went below 0) leaves
    // nothing marked and no runs.
    for (i, &c) in model.iter().enumerate() {
        for _ in 0..c.abs() {
            let p = region.page(i) as *mut c_void;
            let r = if c > 0 { dofork_range(p, ps) } else { dontfork_range(p, ps) };
            assert_eq!(r, 0);
        }
    }
    let counts = COUNTS.lock();
    check_state(&region, &counts, &[0; PAGES], &[], "drained");
    assert_eq!(counts.run_count(), 0);
}

#[test]
fn hugepages_safe_uses_the_backing_page_size() {
    // Both ways of finding the page size: PROCMAP_QUERY (where the kernel
    // has it) and the smaps fallback.
    run_in_child("child_hugepages_safe", &[("RDMAV_HUGEPAGES_SAFE", "1")]);
    run_in_child("child_hugepages_safe", &[("RDMAV_HUGEPAGES_SAFE", "1"), (SMAPS_ENV, "1")]);
}

/// Set in a child: use the smaps path even where PROCMAP_QUERY works.
const SMAPS_ENV: &str = "IBVERBS_FORK_TEST_SMAPS";

/// The kernel's (major, minor) version, from uname.
fn kernel_version() -> (u32, u32) {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").expect("osrelease");
    let mut parts = release.trim().split(|c: char| !c.is_ascii_digit());
    let major = parts.next().and_then(|p| p.parse().ok()).expect("major");
    let minor = parts.next().and_then(|p| p.parse().ok()).expect("minor");
    (major, minor)
}

/// A hugetlb mapping of one 2 MiB page, if the system has one to give.
fn hugetlb_page() -> Option<usize> {
    // SAFETY: a fresh anonymous mapping; no existing memory is affected.
    let m = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            2 << 20,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_HUGETLB,
            -1,
            0,
        )
    };
    (m != libc::MAP_FAILED).then_some(m as usize)
}

#[test]
fn page_size_query_agrees_with_smaps() {
    let region = Region::new(3);
    // A file mapping, a PROT_NONE page, the stack, the heap, code, the vdso,
    // nothing at all, and a hugetlb page where there is one.
    let file = std::fs::File::open(std::env::current_exe().expect("exe")).expect("open exe");
    // SAFETY: a fresh read-only private mapping of a file we hold open.
    let fm = unsafe {
        libc::mmap(std::ptr::null_mut(), 8192, libc::PROT_READ, libc::MAP_PRIVATE, std::os::fd::AsRawFd::as_raw_fd(&file), 0)
    };
    assert_ne!(fm, libc::MAP_FAILED);
    let stack = 0u64;
    let heap = Box::new(0u64);
    // SAFETY: getauxval has no preconditions.
    let vdso = unsafe { libc::getauxval(libc::AT_SYSINFO_EHDR) } as usize;
    let huge = hugetlb_page();
    let mut addrs = vec![
        region.page(0),
        region.page(1) + 100,
        region.page(0) - 1, // the guard page
        fm as usize + 5000,
        &stack as *const u64 as usize,
        &*heap as *const u64 as usize,
        page_size_query_agrees_with_smaps as *const () as usize,
        vdso,
        0,
        1 << 46,
    ];
    if let Some(h) = huge {
        addrs.push(h + 123_456);
    }
    let fast = pagesize::query_page_size(region.page(0));
    if kernel_version() >= (6, 11) {
        assert!(fast.is_ok(), "PROCMAP_QUERY must work on this kernel (6.11+)");
    }
    for &a in &addrs {
        let smaps = pagesize::smaps_page_size(a);
        match pagesize::query_page_size(a) {
            Ok(q) => assert_eq!(q, smaps, "address {a:#x}"),
            Err(()) => eprintln!("no PROCMAP_QUERY on this kernel: smaps only"),
        }
        assert_eq!(backing_page_size(a), smaps, "address {a:#x}");
    }
    assert_eq!(backing_page_size(region.page(0)), Some(region.ps));
    assert_eq!(backing_page_size(0), None);
    match huge {
        Some(h) => {
            assert_eq!(backing_page_size(h), Some(2 << 20));
            // SAFETY: unmaps the hugetlb mapping made above.
            unsafe { libc::munmap(h as *mut c_void, 2 << 20) };
        }
        None => eprintln!("no hugetlb pages on this system: hugetlb case not run"),
    }
    // SAFETY: unmaps the file mapping made above.
    unsafe { libc::munmap(fm, 8192) };
    eprintln!("page sizes agree at {} addresses (query {})", addrs.len(), if fast.is_ok() { "available" } else { "unavailable" });
}

#[test]
fn page_size_query_reopens_after_fork() {
    run_in_child("child_query_after_fork", &[]);
}

#[test]
#[ignore = "run in a child process by page_size_query_reopens_after_fork"]
fn child_query_after_fork() {
    if !in_child() {
        return;
    }
    let region = Region::new(2);
    let a = region.page(0);
    let Ok(Some(ps)) = pagesize::query_page_size(a) else {
        eprintln!("no PROCMAP_QUERY on this kernel: nothing to test");
        return;
    };
    assert_eq!(ps, region.ps);
    // SAFETY: the child only makes syscalls and calls our query function,
    // which takes a lock no other thread of this single-test process holds.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        // The page exists in the parent only now: an fd inherited from the
        // parent would still find it.
        region.unmap_page(0);
        let ok = pagesize::query_page_size(a) == Ok(None) && pagesize::smaps_page_size(a).is_none();
        // SAFETY: ends the forked child without running the parent's exit code.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: waits for the child forked above.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child saw the parent's mappings");
    // The parent's own fd still works.
    assert_eq!(pagesize::query_page_size(a), Ok(Some(region.ps)));
}

#[test]
#[ignore = "run in a child process by hugepages_safe_uses_the_backing_page_size"]
fn child_hugepages_safe() {
    if !in_child() {
        return;
    }
    if std::env::var_os(SMAPS_ENV).is_some() {
        pagesize::FORCE_SMAPS.store(true, Ordering::Relaxed);
        eprintln!("page sizes from smaps");
    }
    let region = Region::new(4);
    let ps = region.ps;
    assert_eq!(backing_page_size(region.page(2)), Some(ps));
    assert_eq!(backing_page_size(0), None, "nothing is mapped at 0");
    assert_eq!(fork_init(), 0);
    assert!(HUGE_PAGES.load(Ordering::Relaxed));
    assert_eq!(dontfork_range((region.page(1) + 5) as *mut c_void, ps), 0);
    assert_eq!(
        region.dontcopy(),
        vec![Some(false), Some(true), Some(true), Some(false)],
        "normal pages round to the base page size"
    );
    assert_eq!(dofork_range(region.page(1) as *mut c_void, 2 * ps), 0);
    assert_eq!(COUNTS.lock().run_count(), 0);

    // A hugetlb page, if the system has any to give.
    const HUGE: usize = 2 << 20;
    let Some(m) = hugetlb_page() else {
        eprintln!("no hugetlb pages on this system: hugetlb part not run");
        return;
    };
    assert_eq!(backing_page_size(m + 12345), Some(HUGE));
    assert_eq!(dontfork_range((m + 12345) as *mut c_void, 1), 0);
    {
        let counts = COUNTS.lock();
        assert_eq!(counts.runs().collect::<Vec<_>>(), vec![(m, m + HUGE - 1, 1)]);
    }
    let dc = smaps_dontcopy().into_iter().find(|v| v.0 == m).expect("hugetlb vma");
    assert_eq!(dc, (m, m + HUGE, true));
    assert_eq!(dofork_range((m + HUGE - 1) as *mut c_void, 1), 0);
    assert_eq!(COUNTS.lock().run_count(), 0);
    // SAFETY: unmaps the mapping made above.
    unsafe { libc::munmap(m as *mut c_void, HUGE) };
}

#[test]
fn status_reports_unneeded_on_copy_on_fork_kernels() {
    run_in_child("child_status", &[]);
}

#[test]
#[ignore = "run in a child process by status_reports_unneeded_on_copy_on_fork_kernels"]
fn child_status() {
    if !in_child() {
        return;
    }
    assert_eq!(status_given(false), IBV_FORK_DISABLED);
    assert_eq!(status_given(true), IBV_FORK_UNNEEDED);
    // v44: init still builds the tree on such kernels; the status says
    // UNNEEDED regardless of it.
    assert_eq!(fork_init(), 0);
    assert_eq!(status_given(false), IBV_FORK_ENABLED);
    assert_eq!(status_given(true), IBV_FORK_UNNEEDED);
    let region = Region::new(1);
    assert_eq!(dontfork_range(region.page(0) as *mut c_void, 1), 0);
    assert_eq!(region.dontcopy(), vec![Some(true)]);
}

// ---- Comparison with Debian's library -----------------------------------

/// Builds compare.c against Debian's headers and library.
fn build_compare(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/fork/compare.c");
    let exe = dir.join("compare");
    let out = Command::new("gcc")
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg("-libverbs")
        .output()
        .expect("run gcc (install gcc and libibverbs-dev)");
    assert!(out.status.success(), "gcc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// Runs one scenario; `lib_dir` None means Debian's library.
fn run_compare(exe: &Path, scenario: &str, env: &[(&str, &str)], lib_dir: Option<&Path>) -> (String, String) {
    let mut cmd = Command::new(exe);
    cmd.arg(scenario);
    // cargo test puts target/<profile> (which holds a libibverbs.so.1) on
    // LD_LIBRARY_PATH: clear it, and all fork settings, then set ours.
    for var in ["LD_LIBRARY_PATH", "RDMAV_FORK_SAFE", "IBV_FORK_SAFE", "RDMAV_HUGEPAGES_SAFE", "LD_PRELOAD"] {
        cmd.env_remove(var);
    }
    if let Some(dir) = lib_dir {
        cmd.env("LD_LIBRARY_PATH", dir);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("run compare");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "compare {scenario} ({lib_dir:?}) failed:\n{stdout}\n{stderr}");
    (stdout, stderr)
}

fn split_diverging(out: &str) -> (Vec<&str>, Vec<&str>) {
    out.lines().partition(|l| !l.starts_with("diverge "))
}

#[test]
fn matches_debian_library() {
    // The release build (or $RDMA_OURS_LIB_DIR), found as every comparison
    // with Debian's library finds it.
    let ours = paths::ours_lib("libibverbs.so.1").parent().expect("a directory").to_path_buf();
    let dir = std::env::temp_dir().join(format!("ibverbs-fork-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let exe = build_compare(&dir);

    // Check that the two runs really load different libraries.
    let which = |lib: Option<&Path>| {
        let mut cmd = Command::new("ldd");
        cmd.arg(&exe).env_remove("LD_LIBRARY_PATH");
        if let Some(d) = lib {
            cmd.env("LD_LIBRARY_PATH", d);
        }
        let out = String::from_utf8_lossy(&cmd.output().expect("ldd").stdout).into_owned();
        out.lines().find(|l| l.contains("libibverbs.so.1")).unwrap_or("").to_string()
    };
    // ldd names Debian's library through /lib or /usr/lib: match the rest.
    let multiarch = Path::new(paths::SYSTEM_LIB_DIR).file_name().expect("a multiarch directory");
    let debian = Path::new(multiarch).join("libibverbs.so.1");
    assert!(which(None).contains(&*debian.to_string_lossy()), "Debian run: {}", which(None));
    assert!(which(Some(&ours)).contains(&*ours.to_string_lossy()), "our run: {}", which(Some(&ours)));

    let scenarios: &[(&str, &[(&str, &str)])] = &[
        ("noinit", &[]),
        ("noinit-null", &[]),
        ("noinit-dofork-zero", &[]),
        ("double", &[]),
        ("ranges", &[]),
        ("hole", &[]),
        ("hole-later", &[]),
        ("dofork-hole", &[]),
        ("random", &[]),
        ("mapcount", &[]),
        ("huge", &[]),
        ("huge", &[("RDMAV_HUGEPAGES_SAFE", "1")]),
        ("env", &[]),
        ("env", &[("RDMAV_FORK_SAFE", "1")]),
        ("env", &[("IBV_FORK_SAFE", "1")]),
        ("env", &[("RDMAV_FORK_SAFE", "0")]),
        ("env-late", &[("RDMAV_FORK_SAFE", "1")]),
    ];
    let mut lines = 0;
    for &(scenario, env) in scenarios {
        let (deb_out, deb_err) = run_compare(&exe, scenario, env, None);
        let (our_out, our_err) = run_compare(&exe, scenario, env, Some(&ours));
        let (deb_same, deb_div) = split_diverging(&deb_out);
        let (our_same, our_div) = split_diverging(&our_out);
        assert_eq!(our_same, deb_same, "scenario {scenario} {env:?}: stdout differs");
        assert_eq!(our_err, deb_err, "scenario {scenario} {env:?}: stderr differs");
        let (want_deb, want_ours) = expected_divergence(scenario);
        assert_eq!(deb_div, want_deb, "scenario {scenario}: Debian's library changed its rollback");
        assert_eq!(our_div, want_ours, "scenario {scenario}: our rollback");
        lines += deb_same.len() + deb_div.len();
    }
    eprintln!("compared {} scenario runs, {lines} lines of output", scenarios.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The "diverge" lines of a scenario: (Debian's library, ours). Upstream's
/// rollback leaves pages marked and counts at -1 (see the module docs of
/// `crate::fork`); ours leaves everything as before the failed call.
fn expected_divergence(scenario: &str) -> (Vec<&'static str>, Vec<&'static str>) {
    match scenario {
        "hole" => (
            vec![
                "diverge ibv_dontfork_range(PG(0), PAGES * P) ret=-1 errno=12 map=0011111111-11111",
                "diverge ibv_dontfork_range(PG(14), P) ret=0 errno=0 map=0011111111-11111",
                "diverge ibv_dofork_range(PG(14), P)  ret=0 errno=0 map=0011111111-11111",
                "diverge ibv_dofork_range(PG(6), P)   ret=0 errno=0 map=0011111111-11111",
                "diverge ibv_dontfork_range(PG(10), P) ret=0 errno=0 map=0011111111-11111",
                "diverge ibv_dofork_range(PG(2), 3 * P) ret=0 errno=0 map=0000011111-11111",
            ],
            vec![
                "diverge ibv_dontfork_range(PG(0), PAGES * P) ret=-1 errno=12 map=0011100000-00000",
                "diverge ibv_dontfork_range(PG(14), P) ret=0 errno=0 map=0011100000-00010",
                "diverge ibv_dofork_range(PG(14), P)  ret=0 errno=0 map=0011100000-00000",
                "diverge ibv_dofork_range(PG(6), P)   ret=0 errno=0 map=0011100000-00000",
                "diverge ibv_dontfork_range(PG(10), P) ret=-1 errno=12 map=0011100000-00000",
                "diverge ibv_dofork_range(PG(2), 3 * P) ret=0 errno=0 map=0000000000-00000",
            ],
        ),
        "hole-later" => (
            vec![
                "diverge ibv_dontfork_range(PG(0), PAGES * P) ret=-1 errno=12 map=0011111111-10000",
                "diverge ibv_dontfork_range(PG(14), P) ret=0 errno=0 map=0011111111-10010",
                "diverge ibv_dontfork_range(PG(7), P) ret=0 errno=0 map=0011111111-10010",
                "diverge ibv_dofork_range(PG(7), P)   ret=0 errno=0 map=0011111111-10010",
                "diverge ibv_dofork_range(PG(14), P)  ret=0 errno=0 map=0011111111-10000",
                "diverge ibv_dofork_range(PG(2), 3 * P) ret=0 errno=0 map=0000011111-10000",
            ],
            vec![
                "diverge ibv_dontfork_range(PG(0), PAGES * P) ret=-1 errno=12 map=0011100000-00000",
                "diverge ibv_dontfork_range(PG(14), P) ret=0 errno=0 map=0011100000-00010",
                "diverge ibv_dontfork_range(PG(7), P) ret=0 errno=0 map=0011100100-00010",
                "diverge ibv_dofork_range(PG(7), P)   ret=0 errno=0 map=0011100000-00010",
                "diverge ibv_dofork_range(PG(14), P)  ret=0 errno=0 map=0011100000-00000",
                "diverge ibv_dofork_range(PG(2), 3 * P) ret=0 errno=0 map=0000000000-00000",
            ],
        ),
        "mapcount" => (
            vec![
                "diverge ibv_dontfork_range(PG(13), P) ret=0 errno=0 map=0011100000000000",
                "diverge ibv_dontfork_range(PG(8), P) ret=0 errno=0 map=0011100000000000",
                "diverge ibv_dontfork_range(PG(0), 6 * P) ret=0 errno=0 map=1111110000000000",
                "diverge ibv_dofork_range(PG(0), 6 * P) ret=0 errno=0 map=0011100000000000",
                "diverge ibv_dofork_range(PG(8), P)   ret=0 errno=0 map=0011100000000000",
                "diverge ibv_dofork_range(PG(13), P)  ret=0 errno=0 map=0011100000000000",
            ],
            vec![
                "diverge ibv_dontfork_range(PG(13), P) ret=0 errno=0 map=0011100000000100",
                "diverge ibv_dontfork_range(PG(8), P) ret=0 errno=0 map=0011100010000100",
                "diverge ibv_dontfork_range(PG(0), 6 * P) ret=0 errno=0 map=1111110010000100",
                "diverge ibv_dofork_range(PG(0), 6 * P) ret=0 errno=0 map=0011100010000100",
                "diverge ibv_dofork_range(PG(8), P)   ret=0 errno=0 map=0011100000000100",
                "diverge ibv_dofork_range(PG(13), P)  ret=0 errno=0 map=0011100000000000",
            ],
        ),
        _ => (vec![], vec![]),
    }
}
