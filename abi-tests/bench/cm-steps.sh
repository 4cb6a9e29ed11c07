#!/usr/bin/env bash
# cm-steps.sh: what each of cmtime's steps executes, with Debian's librdmacm
# and libibverbs and with ours, counted by callgrind inside ONE boot of the
# Soft-RoCE VM: a cmtime server, and `cmtime -s 10.0.2.15 -c N` under
# callgrind with cm-stepshim.so preloaded, which has callgrind dump its
# counters at the start of each step (see cm-stepshim.c). Per step and
# library: instructions, calls, distinct instructions, and those run for the
# first time in the process (under QEMU's TCG each of those is translated
# before it runs, in every process when addresses are randomised). With
# --diff STEP also the functions' own instruction counts in that step.
# Deterministic apart from the spinning of cmtime's main thread
# (sched_yield) while it waits for events.
#
#   abi-tests/bench/cm-steps.sh [--conns N] [--diff STEP] [--out DIR]
#
#   --conns N    connections (default 200)
#   --diff STEP  also list the top functions of STEP (create_id,
#                resolve_addr, resolve_route, create_qp, connect,
#                disconnect, destroy) for both libraries
#   --out DIR    results (default target/bench-steps): DIR/bench.txt,
#                DIR/{upstream,ours}/cg* (callgrind's dumps)
# Environment: RDMA_OURS_LIB_DIR (default target/release). Needs valgrind
# and valgrind's headers (valgrind package) on the host.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

if [[ ${1:-} = --in-vm ]]; then
  shim=${BENCH_SHIM:?} conns=${BENCH_CONNS:?}
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  say "cm-steps: cmtime -c $conns under callgrind, a dump per step; ours: $ours"
  for lib in upstream ours; do
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    cmtime_server "$raw/server.$lib.txt" "" "${envv[@]}" cmtime
    rm -rf "${VM_OUT:?}/$lib"; mkdir -p "$VM_OUT/$lib"
    "${envv[@]}" LD_PRELOAD="$shim" valgrind --tool=callgrind --dump-instr=yes --dump-line=no \
      --compress-pos=no --compress-strings=no "--callgrind-out-file=$VM_OUT/$lib/cg" \
      cmtime -s 10.0.2.15 -c "$conns" > "$raw/client.$lib.txt" 2>&1 ||
      { say "FAILED: $lib (see $raw/client.$lib.txt)"; cmtime_server_stop; exit 1; }
    cmtime_server_stop
  done
  python3 "$here/cg-steps.py" ${BENCH_DIFF:+--diff "$BENCH_DIFF"} "$VM_OUT" | tee -a "$report"
  exit 0
fi

. "$here/vm-bench-host.sh"
conns=200 diff= out=$repo/target/bench-steps
while [[ $# -gt 0 ]]; do
  case "$1" in
    --conns) conns=$2; shift 2 ;;
    --diff) diff=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '14,14p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive cm-steps --conns "$conns"
case $diff in ''|create_id|resolve_addr|resolve_route|create_qp|connect|disconnect|destroy) ;;
  *) echo "cm-steps: --diff wants a step name" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null && [[ -e /usr/include/valgrind/callgrind.h ]] ||
  { echo "cm-steps: needs valgrind and its headers (apt-get install valgrind)" >&2; exit 2; }
bench_libs cm-steps libibverbs.so.1 librdmacm.so.1
mkdir -p "$out"
shim=$(cd "$out" && pwd)/cm-stepshim.so
cc -O2 -Wall -Werror -shared -fPIC -o "$shim" "$here/cm-stepshim.c" -ldl
export RDMA_VM_SMP=${RDMA_VM_SMP:-1}
bench_vm cm-steps "$out" 1800 "$here/cm-steps.sh" --env "BENCH_SHIM=$shim" --env "BENCH_CONNS=$conns" --env "BENCH_DIFF=$diff"
