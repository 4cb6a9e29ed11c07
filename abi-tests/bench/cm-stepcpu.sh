#!/usr/bin/env bash
# cm-stepcpu.sh: where the time of each of cmtime's steps goes, with Debian's
# librdmacm and libibverbs and with ours, in ONE boot of a one-CPU Soft-RoCE
# VM under instruction counting (RDMA_VM_ICOUNT=0: 1 ns of guest time per
# guest instruction). The cmtime client runs with cm-stepcpu.so preloaded,
# which snapshots at each step's first call the clock and the CPU time of
# each of the client's threads; cm-stepcpu.py prints per step: wall time,
# the client's main and event threads, the rest (kernel workers, interrupts,
# the server, idle time) and the sched_yield calls.
# The snapshots themselves take some time in the main thread, so the step
# totals here differ from cmtime-bench.sh's; compare libraries within one
# report.
#
#   abi-tests/bench/cm-stepcpu.sh [--reps N] [--conns N] [--out DIR]
#
#   --reps N     runs per library, alternating (default 4; the first run or
#                two of a boot are slower for both)
#   --conns N    connections (default 200)
#   --out DIR    results (default target/bench-stepcpu): DIR/bench.txt,
#                DIR/raw/client.LIB.N.txt
# Environment: RDMA_OURS_LIB_DIR (default target/release).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

if [[ ${1:-} = --in-vm ]]; then
  shim=${BENCH_SHIM:?} conns=${BENCH_CONNS:?} reps=${BENCH_REPS:?}
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  say "cm-stepcpu: cmtime -c $conns, $reps runs per library; ours: $ours"
  say "kernel $(uname -r), $(nproc) CPU(s)"
  files=()
  for ((r = 1; r <= reps; r++)); do
    if ((r % 2)); then order=(upstream ours); else order=(ours upstream); fi
    for lib in "${order[@]}"; do
      envv=("${base_env[@]}")
      [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
      cmtime_server "/tmp/server.$lib.$r.txt" "" "${envv[@]}" cmtime
      # The client writes to the guest's tmpfs: a write to $VM_OUT (the
      # host's disk through 9p) waits for the host, and that wait would
      # count in the step it falls in.
      f=$raw/client.$lib.$r.txt
      rc=0
      "${envv[@]}" LD_PRELOAD="$shim" cmtime -s 10.0.2.15 -c "$conns" > /tmp/client.txt 2>&1 || rc=$?
      cp /tmp/client.txt "$f"
      ((rc == 0)) || { say "FAILED: $lib run $r (see $f)"; cmtime_server_stop; exit 1; }
      files+=("$f")
      cmtime_server_stop
    done
  done
  say "figures in us of guest time (instructions / 1000); threads: main, event"
  python3 "$here/cm-stepcpu.py" "${files[@]}" | sed "s|$raw/||" | tee -a "$report"
  exit 0
fi

. "$here/vm-bench-host.sh"
conns=200 reps=4 out=$repo/target/bench-stepcpu
while [[ $# -gt 0 ]]; do
  case "$1" in
    --conns) conns=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '14,14p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive cm-stepcpu --conns "$conns"
bench_positive cm-stepcpu --reps "$reps"
bench_libs cm-stepcpu libibverbs.so.1 librdmacm.so.1
mkdir -p "$out"
shim=$(cd "$out" && pwd)/cm-stepcpu.so
cc -O2 -Wall -Werror -shared -fPIC -o "$shim" "$here/cm-stepcpu.c" -ldl
export RDMA_VM_SMP=1 RDMA_VM_ICOUNT=0
bench_vm cm-stepcpu "$out" 1800 "$here/cm-stepcpu.sh" --env "BENCH_SHIM=$shim" \
  --env "BENCH_CONNS=$conns" --env "BENCH_REPS=$reps"
