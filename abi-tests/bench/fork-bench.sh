#!/usr/bin/env bash
# fork-bench.sh: ibv_dontfork_range / ibv_dofork_range of Debian's libibverbs
# vs ours, on this machine (no RDMA device needed), in the same run.
#
#   abi-tests/bench/fork-bench.sh [--reps N] [--cpu C] [--out DIR]
#
#   --reps N   repetitions per library and case (default 5), alternating
#              ABBA so that a drift of the machine hits both alike
#   --cpu C    pin every run to CPU C (default 1; "" for no pinning)
#   --out DIR  results (default target/bench): DIR/fork-bench.txt (report),
#              DIR/fork-raw/ (every run's output)
# Environment: RDMA_OURS_LIB_DIR (default target/release) holds our
# libibverbs.so.1; build it first: cargo build --release -p libibverbs-rs.
# FORK_BENCH_ORDER (floor, lib or alternate; default floor) says which of
# the floor's batch and the library's non-nested batch comes first in each
# round of fork-bench.c (alternate: the floor in even rounds, the library in
# odd ones).
# As root the script runs itself at nice -15 (BENCH_NICE=0 to disable), so
# that other work on a busy host preempts the runs less; the report says so.
#
# fork-bench.c is compiled once, linked with -libverbs; the "debian" runs have
# no LD_LIBRARY_PATH, the "ours" runs LD_LIBRARY_PATH=$RDMA_OURS_LIB_DIR.
# Cases: "plain 20000" (20,000 live single-page ranges), "huge 1000",
# "huge 4000" (RDMAV_HUGEPAGES_SAFE=1), and "sparse 20000" (as plain, with
# the ranges 4 MiB apart, so that no two share one of our 64-page bitmap
# chunks: our worst layout, reported without a goal). Figures are thread CPU
# time per call (CLOCK_THREAD_CPUTIME_ID), so time spent preempted by other processes is
# not counted; their cache pollution still is. Per library and figure the
# report gives the median over the repetitions (each itself a median over
# rounds) and the goals' ratios:
#   nested speedup   = debian nested / ours nested          (goal >= 5)
#   non-nested cost  = ours dontfork / ours floor_dontfork  (goal <= 1.10)
#                      (and the same for dofork), judged on the median of
#                      the per-run ratios (each run times both in
#                      alternating rounds of one process); the ratio of
#                      the medians is printed too
#   huge cost        = ours / ours floor at 4,000 ranges    (goal <= 2)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
reps=5 cpu=1 out=$repo/target/bench
while (($#)); do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--reps N] [--cpu C] [--out DIR]" >&2; exit 2 ;;
  esac
done
ours=$(cd "${RDMA_OURS_LIB_DIR:-$repo/target/release}" && pwd)
[[ -e $ours/libibverbs.so.1 ]] || { echo "no $ours/libibverbs.so.1: cargo build --release -p libibverbs-rs" >&2; exit 2; }
raw=$out/fork-raw
rm -rf "$raw"; mkdir -p "$raw"
exe=$out/fork-bench
cc -O2 -Wall -Werror -o "$exe" "$here/fork-bench.c" -libverbs
report=$out/fork-bench.txt
: > "$report"
say() { echo "$*" | tee -a "$report"; }

pin=()
[[ -n $cpu ]] && pin=(taskset -c "$cpu")
run() { # run LIB CASE N REP
  local lib=$1 mode=$2 n=$3 rep=$4 f
  f=$raw/$mode-$n.$lib.$rep
  local envv=(env -u LD_LIBRARY_PATH -u RDMAV_FORK_SAFE -u IBV_FORK_SAFE -u RDMAV_HUGEPAGES_SAFE)
  [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
  "${envv[@]}" "${pin[@]}" "$exe" "$mode" "$n" > "$f" 2> "$f.err" || { echo "failed: $lib $mode $n" >&2; cat "$f.err" >&2; exit 1; }
  grep -q "^lib .*$( [[ $lib = ours ]] && echo "$ours" || echo /lib/x86_64-linux-gnu)/libibverbs.so.1" "$f" ||
    { echo "run $f loaded the wrong library: $(grep ^lib "$f")" >&2; exit 1; }
}

nice_note="nice $(nice)"
if [[ $EUID -eq 0 && ${BENCH_NICE:-1} != 0 ]]; then
  renice -n -15 -p $$ >/dev/null && nice_note="nice $(nice) (renice as root; BENCH_NICE=0 to disable)"
fi
say "fork-bench: $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, pinned to CPU ${cpu:-none}, $reps repetitions, $nice_note"
say "ours: $ours/libibverbs.so.1; debian: /lib/x86_64-linux-gnu/libibverbs.so.1"
say "order in each round: ${FORK_BENCH_ORDER:-floor} first (FORK_BENCH_ORDER)"
say "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= reps; r++)); do
  if ((r % 2)); then order=(debian ours); else order=(ours debian); fi
  for c in "plain 20000" "huge 1000" "huge 4000" "sparse 20000"; do
    for lib in "${order[@]}"; do
      # shellcheck disable=SC2086
      run "$lib" $c "$r"
    done
  done
  echo "repetition $r/$reps done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
say "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$raw" "$reps" <<'EOF' | tee -a "$report"
import sys, statistics, glob, os
raw, reps = sys.argv[1], int(sys.argv[2])
def load(mode, n, lib):
    runs = []
    for f in sorted(glob.glob(f"{raw}/{mode}-{n}.{lib}.*")):
        if f.endswith(".err"):
            continue
        d = {}
        for line in open(f):
            k, _, v = line.strip().partition(" ")
            try:
                d[k] = float(v)
            except ValueError:
                pass
        runs.append(d)
    return runs
def med(runs, key):
    return statistics.median(r[key] for r in runs)
def per_run(runs, op):
    """The median over runs of each run's own ratio to its floor."""
    return statistics.median(r[op] / r["floor_" + op] for r in runs)
def spread(runs, key):
    v = [r[key] for r in runs]
    return f"{min(v):.0f}-{max(v):.0f}"
ok = True
def goal(name, value, cmp, target):
    global ok
    met = value >= target if cmp == ">=" else value <= target
    ok &= met
    print(f"  {name:<44} {value:8.3f}   goal {cmp} {target}   {'met' if met else 'NOT met'}")
for mode, n in (("plain", 20000), ("huge", 1000), ("huge", 4000), ("sparse", 20000)):
    deb, ours = load(mode, n, "debian"), load(mode, n, "ours")
    keys = ["floor_dofork", "floor_dontfork", "dofork", "dontfork"]
    if mode != "huge":
        keys += ["nested_dontfork", "nested_dofork"]
    print(f"\n{mode} {n} ranges: ns per call, median of {len(deb)}/{len(ours)} runs (min-max)")
    print(f"  {'':<16} {'debian':>12} {'':>14} {'ours':>12} {'':>14}")
    for k in keys:
        print(f"  {k:<16} {med(deb, k):12.1f} {spread(deb, k):>14} {med(ours, k):12.1f} {spread(ours, k):>14}")
    print("  ratios:")
    for op in ("dontfork", "dofork"):
        print(f"  {'debian ' + op + ' / debian floor':<44} {med(deb, op) / med(deb, 'floor_' + op):8.2f}")
    if mode == "plain":
        goal("nested dontfork: debian / ours", med(deb, "nested_dontfork") / med(ours, "nested_dontfork"), ">=", 5)
        goal("nested dofork: debian / ours", med(deb, "nested_dofork") / med(ours, "nested_dofork"), ">=", 5)
        # Each run times its floor and the library's calls in alternating
        # rounds of one process (same layout, same minute): the ratio within
        # a run is the precise figure, the medians of separate runs are not
        # (a run's floor moves by up to 30 % with the host). The goal is
        # judged on the median of the per-run ratios; the ratio of the
        # medians is printed beside it.
        for op in ("dontfork", "dofork"):
            print(f"  {'non-nested ' + op + ': ours / floor, of medians':<44} {med(ours, op) / med(ours, 'floor_' + op):8.2f}")
            goal(f"non-nested {op}: ours / floor, per run", per_run(ours, op), "<=", 1.10)
    elif mode == "sparse":
        # No goal: one bitmap chunk per range, the worst layout for ours,
        # shown for what it costs.
        for op in ("dontfork", "dofork"):
            print(f"  {'non-nested ' + op + ': ours / floor, per run':<44} {per_run(ours, op):8.3f}")
            print(f"  {'nested ' + op + ': debian / ours':<44} {med(deb, 'nested_' + op) / med(ours, 'nested_' + op):8.3f}")
    else:
        for op in ("dontfork", "dofork"):
            r = med(ours, op) / med(ours, "floor_" + op)
            if n == 4000:
                goal(f"hugepages {op}: ours / floor", r, "<=", 2)
            else:
                print(f"  {'hugepages ' + op + ': ours / floor':<44} {r:8.2f}")
            print(f"  {'hugepages ' + op + ': debian / ours':<44} {med(deb, op) / med(ours, op):8.0f}")
print("\nall goals met" if ok else "\nsome goals NOT met")
EOF
echo "report: $report"
