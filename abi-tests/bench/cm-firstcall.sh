#!/usr/bin/env bash
# cm-firstcall.sh: cm-firstcall.c (the first and second rdma_create_id,
# rdma_resolve_addr and ADDR_RESOLVED event of a fresh process) with Debian's
# librdmacm and with ours, alternating, in ONE boot of the Soft-RoCE VM.
# Prints every run and, per figure, the medians and the ratio ours / Debian's.
#
#   abi-tests/bench/cm-firstcall.sh [--reps N] [--loop N | --resolve N spin|join | --gai] [--no-aslr] [--out DIR]
#
#   --reps N   processes per library (default 10)
#   --loop N   time cmtime's create_id step instead: N rdma_create_id calls
#              in a row right after the channel (cm-firstcall --loop N)
#   --resolve N spin|join
#              time cmtime's resolve_addr step instead: N ids, an event
#              thread, N rdma_resolve_addr, then a wait for the N events
#              spinning in sched_yield (as cmtime) or in pthread_join
#   --gai      time a passive UDP rdma_getaddrinfo three times in a fresh
#              process (what perftest's UD server does), after one glibc
#              getaddrinfo
#   --no-aslr  run every process under `setarch -R` (no address space
#              randomisation), so that QEMU's translated code for the
#              libraries can be reused by the next process of that library
#   --out DIR  results (default target/bench-cmfirst): DIR/bench.txt, DIR/raw/
# Environment: RDMA_OURS_LIB_DIR (default target/release) holds our
# libibverbs.so.1 and librdmacm.so.1.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

if [[ ${1:-} = --in-vm ]]; then
  reps=${BENCH_REPS:?} exe=${BENCH_EXE:?}
  read -r -a args <<< "${BENCH_ARGS:-10.0.2.15}"
  read -r -a wrap <<< "${BENCH_WRAP:-}"
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  say "cm-firstcall ${args[*]}: $reps processes per library; ours: $ours; kernel $(uname -r)${wrap[*]:+; under ${wrap[*]}}"
  : > "$raw/figures.tsv"
  for ((r = 1; r <= reps; r++)); do
    if ((r % 2)); then order=(upstream ours); else order=(ours upstream); fi
    for lib in "${order[@]}"; do
      envv=("${base_env[@]}")
      [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
      line=$("${envv[@]}" ${wrap[@]+"${wrap[@]}"} "$exe" "${args[@]}") || { say "FAILED: $lib run $r"; continue; }
      say "$r $lib: $line"
      awk -v lib="$lib" -v r="$r" '{ for (i = 1; i < NF; i += 2) print $i, lib, r, $(i + 1) }' <<< "$line" >> "$raw/figures.tsv"
    done
  done
  say ""
  awk -f "$here/ab-summary.awk" -v higher="" -v width=10 "$raw/figures.tsv" | tee -a "$report"
  say ""
  say "microseconds per call (lower is better); a ratio above 1 means ours is slower"
  exit 0
fi

. "$here/vm-bench-host.sh"
reps=10 loop=0 resolve=0 gai=0 mode= wrap= out=$repo/target/bench-cmfirst
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --loop) loop=$2; shift 2 ;;
    --resolve) resolve=$2; mode=$3; shift 3 ;;
    --gai) gai=1; shift ;;
    --no-aslr) wrap="setarch $(uname -m) -R"; shift ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '7,7p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive cm-firstcall --reps "$reps"
[[ $loop = 0 || $resolve = 0 ]] || { echo "cm-firstcall: --loop and --resolve exclude each other" >&2; exit 2; }
[[ $loop = 0 ]] || bench_positive cm-firstcall --loop "$loop"
[[ $resolve = 0 ]] || bench_positive cm-firstcall --resolve "$resolve"
[[ $resolve = 0 || $mode = spin || $mode = join ]] || { echo "cm-firstcall: --resolve N wants spin or join" >&2; exit 2; }
bargs=10.0.2.15
[[ $loop = 0 ]] || bargs="--loop $loop"
[[ $resolve = 0 ]] || bargs="--resolve $resolve $mode 10.0.2.15"
[[ $gai = 0 ]] || { [[ $loop = 0 && $resolve = 0 ]] || { echo "cm-firstcall: --gai excludes --loop and --resolve" >&2; exit 2; }; bargs=--gai; }
bench_libs cm-firstcall libibverbs.so.1 librdmacm.so.1
mkdir -p "$out"
exe=$(cd "$out" && pwd)/cm-firstcall
cc -O2 -Wall -Werror -o "$exe" "$here/cm-firstcall.c" -lrdmacm -lpthread
bench_vm cm-firstcall "$out" 1800 "$here/cm-firstcall.sh" --env "BENCH_REPS=$reps" --env "BENCH_EXE=$exe" --env "BENCH_ARGS=$bargs" --env "BENCH_WRAP=$wrap"
