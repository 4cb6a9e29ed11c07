#!/usr/bin/env bash
# rs-callcost.sh: rs-callcost.c (the cost of one rsockets call on a connected
# stream socket, and 64-byte round trips) with Debian's librdmacm and with
# ours, in ONE boot of the Soft-RoCE VM, alternating ABBA. Prints every run's
# figures, per figure the medians and the ratio ours / Debian's.
#
#   abi-tests/bench/rs-callcost.sh [--reps N] [--idle N] [--pings N] [--size B] [--callgrind] [--out DIR]
#
#   --reps N     repetitions per library (default 6)
#   --idle N     rrecv(MSG_DONTWAIT) calls on an idle socket per run (20000)
#   --pings N    round trips per mode and run (default 2000)
#   --size B     bytes per round trip message (default 64, at most 65536)
#   --callgrind  instead of timing, one run per library under valgrind's
#                callgrind (small counts): instructions per call of rrecv,
#                rsend and what they call, from callgrind_annotate (needs
#                valgrind on the host; the VM sees the host's /)
#   --out DIR    results (default target/bench-rscall): DIR/bench.txt, DIR/raw/
# Environment: RDMA_OURS_LIB_DIR (default target/release) holds our
# libibverbs.so.1 and librdmacm.so.1.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# ---- inside the VM ---------------------------------------------------------------
if [[ ${1:-} = --in-vm ]]; then
  reps=${BENCH_REPS:?} idle=${BENCH_IDLE:?} pings=${BENCH_PINGS:?} size=${BENCH_SIZE:?} exe=${BENCH_EXE:?}
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  port=7490
  run() { # run LIB FILE [PREFIX...]
    local lib=$1 f=$2 envv
    shift 2
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    port=$((port + 1))
    "${envv[@]}" timeout 1200 "$@" "$exe" 10.0.2.15 "$port" "$idle" "$pings" "$size" > "$f" 2> "$f.err" < /dev/null ||
      { say "FAILED: $lib ($f): $(tail -3 "$f.err")"; return 1; }
    local want=/lib/x86_64-linux-gnu/librdmacm.so.1
    [[ $lib = ours ]] && want=$ours/librdmacm.so.1
    grep -q "^lib $want" "$f" || { say "FAILED: $f loaded $(grep ^lib "$f")"; return 1; }
  }
  if [[ ${BENCH_CALLGRIND:-0} = 1 ]]; then
    say "rs-callcost under callgrind: idle $idle, pings $pings, kernel $(uname -r)"
    for lib in upstream ours; do
      run "$lib" "$raw/$lib.txt" valgrind --tool=callgrind "--callgrind-out-file=$raw/cg.$lib.%p"
    done
    exit 0
  fi
  say "rs-callcost: $reps repetitions per library, idle $idle, pings $pings of $size bytes"
  say "ours: $ours/librdmacm.so.1 and $ours/libibverbs.so.1; kernel $(uname -r), $(nproc) CPUs"
  : > "$raw/figures.tsv"
  for ((r = 1; r <= reps; r++)); do
    if ((r % 2)); then order=(upstream ours); else order=(ours upstream); fi
    for lib in "${order[@]}"; do
      f=$raw/$lib.$r
      run "$lib" "$f" || continue
      awk -v lib="$lib" -v r="$r" '$1 != "lib" { print $1, lib, r, $2 }' "$f" >> "$raw/figures.tsv"
      say "$r $lib: $(grep -v ^lib "$f" | tr '\n' ' ')"
    done
  done
  say ""
  awk -f "$here/ab-summary.awk" -v higher="" -v order="idle_rrecv_ns spin_rtt_us spin_polls block_rtt_us" \
    -v width=14 "$raw/figures.tsv" | tee -a "$report"
  say ""
  say "all figures lower is better except spin_polls (EAGAIN calls per round trip: more means each"
  say "call is cheaper or the round trip longer); a ratio above 1 means ours costs more"
  exit 0
fi

# ---- on the host: build, boot the VM and run the above inside ------------------------
. "$here/vm-bench-host.sh"
reps=6 idle=20000 pings=2000 size=64 cg=0 out=$repo/target/bench-rscall
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --idle) idle=$2; shift 2 ;;
    --pings) pings=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --callgrind) cg=1; shift ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '7,7p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive rs-callcost --reps "$reps"
bench_positive rs-callcost --idle "$idle"
bench_positive rs-callcost --pings "$pings"
bench_positive rs-callcost --size "$size"
bench_libs rs-callcost libibverbs.so.1 librdmacm.so.1
mkdir -p "$out"
exe=$(cd "$out" && pwd)/rs-callcost
cc -O2 -g -Wall -Werror -o "$exe" "$here/rs-callcost.c" -lrdmacm
extra=()
[[ $cg = 1 ]] && extra+=(--env BENCH_CALLGRIND=1)
bench_vm rs-callcost "$out" 3600 "$here/rs-callcost.sh" --env "BENCH_REPS=$reps" \
  --env "BENCH_IDLE=$idle" --env "BENCH_PINGS=$pings" --env "BENCH_SIZE=$size" --env "BENCH_EXE=$exe" "${extra[@]}"
