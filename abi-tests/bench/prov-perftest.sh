#!/usr/bin/env bash
# prov-perftest.sh: perftest end to end on rxe0 with Debian's C provider and
# with ours, in ONE boot of the Soft-RoCE VM, interleaved: every repetition
# runs each test with both providers back to back (ABBA order: the first
# provider of one repetition is the second of the next, so a drift of the
# machine hits both alike). Tests: ib_send_lat and ib_write_lat (2-byte
# messages, typical latency), ib_write_bw with small (64-byte) and 64 KiB
# messages (average bandwidth). Prints every figure, per test and provider
# the median, best, worst and spread of the runs, and the ratios ours /
# Debian's with the range of the per-repetition ratios (the noise).
#
#   abi-tests/bench/prov-perftest.sh [--reps N] [--lib debian|ours] [--out DIR]
#
#   --reps N    repetitions (default 8)
#   --lib L     the libibverbs both providers run under (default debian:
#               Debian's; ours: ours, LD_LIBRARY_PATH), so that only the
#               provider differs between the two columns
#   --out DIR   results (default target/bench-provperf): DIR/bench.txt (the
#               report), DIR/raw/ (every run's output, raw/figures.tsv),
#               DIR/console.txt, DIR/host-load.txt
# Environment: RDMA_OURS_LIB_DIR (default target/release: our libibverbs),
# RDMA_OURS_PROVIDER_DIR (default: the same directory) holds our provider as
# librxe-rs-rdmav34.so, selected with RDMAV_DRIVERS=DIR/librxe-rs;
# BENCH_LAT_ARGS (default "-s 2 -n 5000"), BENCH_BW_SMALL_ARGS (default
# "-s 64 -n 20000"), BENCH_BW_LARGE_ARGS (default "-s 65536 -n 2000") are
# perftest arguments; RDMA_VM_ACCEL=kvm uses KVM when the machine has it.
#
# Server on vCPU 0, client on vCPU 1. In the summary "upstream" is Debian's
# C provider and "ours" is our provider. Under software emulation (TCG) the
# figures are far below hardware and move with the host's load (recorded in
# host-load.txt): read the ratios, and the per-repetition range as the noise
# within which "parity" holds; repeat when the spread is large.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

TESTS="ib_send_lat ib_write_lat ib_write_bw_small ib_write_bw_64k"

# ---- inside the VM ---------------------------------------------------------------
if [[ ${1:-} = --in-vm ]]; then
  reps=${BENCH_REPS:?} lib=${BENCH_LIB:?} provdir=${RDMA_OURS_PROVIDER_DIR:?}
  lat_args=${BENCH_LAT_ARGS:--s 2 -n 5000}
  bws_args=${BENCH_BW_SMALL_ARGS:--s 64 -n 20000}
  bwl_args=${BENCH_BW_LARGE_ARGS:--s 65536 -n 2000}
  . "$here/vm-bench-guest.sh"
  bench_guest_init

  # run_pair PROV TOOL ARGS PREFIX: server and client of TOOL with provider
  # PROV (debian or ours); outputs to PREFIX.{server,client}.{out,err}.
  run_pair() {
    local prov=$1 tool=$2 args=$3 p=$4 envv spid i
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    [[ $prov = ours ]] && envv+=("RDMAV_DRIVERS=$provdir/librxe-rs")
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

  # figure TOOL FILE: the client's figure: t_typical [usec] of the latency
  # tests, BW average [MB/s] of ib_write_bw; empty when missing or not a
  # number.
  figure() {
    local col
    case $1 in *_lat) col=5 ;; *) col=4 ;; esac
    awk -v c="$col" '/^ *#bytes/ { getline; v = $c } END {
        if (v ~ /^[0-9]+(\.[0-9]+)?$/ && v + 0 > 0) print v }' "$2"
  }

  # Which provider served rxe0 in each setting, before anything is timed.
  sysprov=$(readlink -f /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so)
  ourprov=$(readlink -f "$provdir/librxe-rs-rdmav34.so")
  say "prov-perftest: $reps repetitions, libibverbs: $lib; kernel $(uname -r), $(nproc) CPUs, accel ${RDMA_VM_ACCEL_NAME:-tcg}"
  say "upstream = Debian's C provider $sysprov"
  say "ours     = $ourprov (RDMAV_DRIVERS=$provdir/librxe-rs)"
  say "ib_send_lat/ib_write_lat $lat_args; ib_write_bw_small $bws_args; ib_write_bw_64k $bwl_args"
  for prov in debian ours; do
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    [[ $prov = ours ]] && envv+=("RDMAV_DRIVERS=$provdir/librxe-rs")
    # The object rxe0's post_send is in (vm-progs/provider_ops): with
    # RDMAV_DRIVERS both providers are loaded, and ours must have matched.
    want=$sysprov; [[ $prov = ours ]] && want=$ourprov
    got=$("${envv[@]}" "${BENCH_OPS:?}" rxe0 | sed -n 's/^op post_send //p')
    [[ $got = "$want" ]] || { say "FAILED: the $prov setting: rxe0's post_send is in '$got', not $want"; exit 1; }
  done
  say ""

  : > "$raw/figures.tsv"
  say "$(printf '%-4s %-18s %-9s %12s' rep test provider figure)"
  for ((r = 1; r <= reps; r++)); do
    if ((r % 2)); then order=(debian ours); else order=(ours debian); fi
    for test in $TESTS; do
      case $test in
        ib_send_lat) tool=ib_send_lat args=$lat_args ;;
        ib_write_lat) tool=ib_write_lat args=$lat_args ;;
        ib_write_bw_small) tool=ib_write_bw args="-F $bws_args" ;;
        ib_write_bw_64k) tool=ib_write_bw args="-F $bwl_args" ;;
      esac
      for prov in "${order[@]}"; do
        v=
        # The latency tests estimate the CPU clock first; under emulation
        # that estimate sometimes fails and the figures come out as inf.
        # Such a run (or a failed one) is repeated, at most twice.
        for try in 1 2 3; do
          p=$raw/$test.$prov.$r.$try
          run_pair "$prov" "$tool" "$args" "$p"
          v=$(figure "$tool" "$p.client.out")
          [[ -n $v ]] && break
        done
        if [[ -z $v ]]; then
          say "$(printf '%-4s %-18s %-9s %12s' "$r" "$test" "$prov" FAILED) (see $p.*)"
          continue
        fi
        label=ours; [[ $prov = debian ]] && label=upstream
        echo "$test $label $r $v" >> "$raw/figures.tsv"
        say "$(printf '%-4s %-18s %-9s %12s' "$r" "$test" "$prov" "$v")"
      done
    done
  done
  say ""
  say "upstream = Debian's C provider, ours = our provider (both under $lib's libibverbs)"
  awk -f "$here/ab-summary.awk" -v higher="ib_write_bw_small ib_write_bw_64k" -v order="$TESTS" \
    -v width=18 -v spread=1 "$raw/figures.tsv" | tee -a "$report"
  say ""
  say "units: latency usec (t_typical; lower is better), ib_write_bw MB/s (BW average; higher is better);"
  say "spread = (worst - best) / median of a provider's runs; parity holds when the ratios sit within"
  say "the per-repetition range, which is the noise of one back-to-back comparison"
  exit 0
fi

# ---- on the host: boot the VM and run the above inside ----------------------------
. "$here/vm-bench-host.sh"
reps=8; lib=debian; out=$repo/target/bench-provperf
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '12,12p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive prov-perftest --reps "$reps"
[[ $lib = debian || $lib = ours ]] || { echo "prov-perftest: --lib takes debian or ours" >&2; exit 2; }
bench_libs prov-perftest libibverbs.so.1
provdir=${RDMA_OURS_PROVIDER_DIR:-$ours}
[[ -e $provdir/librxe-rs-rdmav34.so ]] ||
  { echo "prov-perftest: no $provdir/librxe-rs-rdmav34.so (RDMA_OURS_PROVIDER_DIR)" >&2; exit 2; }
provdir=$(cd "$provdir" && pwd)
mkdir -p "$out"
ops=$(cd "$out" && pwd)/provider_ops
cc -O1 -Wall -Werror -o "$ops" "$repo/abi-tests/vm-progs/provider_ops.c" -libverbs
envs=(--env "BENCH_REPS=$reps" --env "BENCH_LIB=$lib" --env "RDMA_OURS_PROVIDER_DIR=$provdir"
      --env "BENCH_OPS=$ops")
for e in BENCH_LAT_ARGS BENCH_BW_SMALL_ARGS BENCH_BW_LARGE_ARGS; do
  [[ -z ${!e:-} ]] || envs+=(--env "$e=${!e}")
done
bench_vm prov-perftest "$out" 5400 "$here/prov-perftest.sh" "${envs[@]}"
