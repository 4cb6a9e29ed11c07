#!/usr/bin/env bash
# verbs-bench.sh: the data path of Debian's libibverbs vs ours, in ONE boot of
# the Soft-RoCE VM: ib_write_bw (bandwidth) and ib_send_lat (typical latency),
# each run with Debian's library on both sides and with ours on both sides,
# alternating (ABBA order, so a drift of the machine hits both alike), a few
# repetitions each. Prints every figure, the medians and the ratios.
#
#   abi-tests/bench/verbs-bench.sh [--reps N] [--out DIR]
#
#   --reps N    repetitions per library and test (default 10)
#   --out DIR   results (default target/bench): DIR/bench.txt (the report),
#               DIR/raw/ (every run's output, raw/figures.tsv), DIR/console.txt,
#               DIR/host-load.txt
# Environment: RDMA_OURS_LIB_DIR (default target/release) holds our
# libibverbs.so.1; BENCH_BW_ARGS (default "-s 65536 -n 5000") and
# BENCH_LAT_ARGS (default "-s 2 -n 20000") are extra perftest arguments;
# RDMA_VM_ACCEL=kvm uses KVM when the machine has it.
#
# Both processes of a pair are pinned, server to CPU 0 and client to CPU 1 of
# the VM's two. Under software emulation (TCG) the absolute figures are far
# below real hardware and noisy, and the machine's other load shows in them:
# compare the ratios, and repeat when the spread is large. Three ratios are
# printed: of the medians, of the best runs (least disturbed by other load)
# and the median of the per-repetition ratios (both libraries back to back).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# ---- inside the VM ---------------------------------------------------------------
if [[ ${1:-} = --in-vm ]]; then
  reps=${BENCH_REPS:-10}
  bw_args=${BENCH_BW_ARGS:--s 65536 -n 5000}
  lat_args=${BENCH_LAT_ARGS:--s 2 -n 20000}
  . "$here/vm-bench-guest.sh"
  bench_guest_init

  # run_pair LIB TOOL ARGS PREFIX: server and client of TOOL, both with LIB
  # (upstream or ours); their outputs go to PREFIX.{server,client}.{out,err}.
  run_pair() {
    local lib=$1 tool=$2 args=$3 p=$4 envv spid i
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    # shellcheck disable=SC2086
    "${envv[@]}" timeout 300 taskset -c 0 "$tool" -d rxe0 -x 1 $args \
      > "$p.server.out" 2> "$p.server.err" < /dev/null &
    spid=$!
    for ((i = 0; i < 600; i++)); do
      ss -Hltn 'sport = :18515' | grep -q . && break
      kill -0 "$spid" 2>/dev/null || break
      sleep 0.1
    done
    # shellcheck disable=SC2086
    "${envv[@]}" timeout 300 taskset -c 1 "$tool" -d rxe0 -x 1 $args 10.0.2.15 \
      > "$p.client.out" 2> "$p.client.err" < /dev/null || true
    wait "$spid" || true
  }

  # figure TOOL FILE: the client's figure: BW average [MB/s] of ib_write_bw,
  # t_typical [usec] of ib_send_lat; empty when missing or not a number.
  figure() {
    local col
    case $1 in ib_write_bw) col=4 ;; ib_send_lat) col=5 ;; esac
    awk -v c="$col" '/^ *#bytes/ { getline; v = $c } END {
        if (v ~ /^[0-9]+(\.[0-9]+)?$/ && v + 0 > 0) print v }' "$2"
  }

  : > "$raw/figures.tsv"
  say "verbs-bench: $reps repetitions; ib_write_bw $bw_args; ib_send_lat $lat_args"
  say "ours: $ours/libibverbs.so.1"
  say "kernel $(uname -r), $(nproc) CPUs, accel ${RDMA_VM_ACCEL_NAME:-tcg}"
  say ""
  say "$(printf '%-4s %-12s %-9s %12s' rep test library figure)"
  for ((r = 1; r <= reps; r++)); do
    if ((r % 2)); then order=(upstream ours); else order=(ours upstream); fi
    for tool in ib_write_bw ib_send_lat; do
      [[ $tool = ib_write_bw ]] && args=$bw_args || args=$lat_args
      for lib in "${order[@]}"; do
        v=
        # The latency tests estimate the CPU clock first; under emulation
        # that estimate sometimes fails and the figures come out as inf.
        # Such a run (or a failed one) is repeated, at most twice.
        for try in 1 2 3; do
          p=$raw/$tool.$lib.$r.$try
          run_pair "$lib" "$tool" "$args" "$p"
          v=$(figure "$tool" "$p.client.out")
          [[ -n $v ]] && break
        done
        if [[ -z $v ]]; then
          say "$(printf '%-4s %-12s %-9s %12s' "$r" "$tool" "$lib" FAILED) (see $p.*)"
          continue
        fi
        echo "$tool $lib $r $v" >> "$raw/figures.tsv"
        say "$(printf '%-4s %-12s %-9s %12s' "$r" "$tool" "$lib" "$v")"
      done
    done
  done

  # Per test: each library's median, best and worst, and three ratios ours /
  # Debian's: of the medians, of the best runs (the least disturbed by the
  # machine's other load) and the median of the per-repetition ratios (each
  # repetition runs both libraries back to back).
  say ""
  awk -f "$here/ab-summary.awk" -v higher=ib_write_bw -v order="ib_write_bw ib_send_lat" -v width=12 \
    "$raw/figures.tsv" | tee -a "$report"
  say ""
  say "units: ib_write_bw MB/s (BW average; higher is better), ib_send_lat usec (t_typical; lower is better);"
  say "ib_write_bw below 1 or ib_send_lat above 1 means ours is slower"
  exit 0
fi

# ---- on the host: boot the VM and run the above inside ----------------------------
. "$here/vm-bench-host.sh"
reps=10; out=$repo/target/bench
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '8,9p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive verbs-bench --reps "$reps"
bench_libs verbs-bench libibverbs.so.1
envs=(--env "BENCH_REPS=$reps")
[[ -z ${BENCH_BW_ARGS:-} ]] || envs+=(--env "BENCH_BW_ARGS=$BENCH_BW_ARGS")
[[ -z ${BENCH_LAT_ARGS:-} ]] || envs+=(--env "BENCH_LAT_ARGS=$BENCH_LAT_ARGS")
bench_vm verbs-bench "$out" 3600 "$here/verbs-bench.sh" "${envs[@]}"
