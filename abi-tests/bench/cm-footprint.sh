#!/usr/bin/env bash
# cm-footprint.sh: the distinct code each library runs in cm-firstcall.c (a
# fresh process's first and second rdma_create_id, rdma_resolve_addr and
# ADDR_RESOLVED event, the first event opening the device), counted by
# callgrind inside ONE boot of the Soft-RoCE VM, once with Debian's
# librdmacm/libibverbs and once with ours. Under QEMU's TCG every distinct
# instruction is translated before it first runs in a process (translations
# are keyed by virtual address, so randomised mappings redo them in every
# process); this is why first calls cost far more in the VM than on hardware
# and why the code a path runs for the first time matters in the VM
# benchmarks (docs/benchmarks.md, cmtime). Deterministic: the
# counts do not depend on the host's load.
#
#   abi-tests/bench/cm-footprint.sh [--window FUNCTION] [--out DIR]
#
#   --window FUNCTION  count only inside FUNCTION and what it calls
#                      (callgrind --toggle-collect; default rdma_get_cm_event,
#                      "all" for the whole process)
#   --out DIR          results (default target/bench-footprint): DIR/bench.txt,
#                      DIR/cg.{upstream,ours}
# Environment: RDMA_OURS_LIB_DIR (default target/release).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

if [[ ${1:-} = --in-vm ]]; then
  exe=${BENCH_EXE:?} window=${BENCH_WINDOW:?}
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  toggle=()
  [[ $window = all ]] || toggle=(--collect-atstart=no "--toggle-collect=$window")
  say "cm-footprint: cm-firstcall under callgrind, window $window; ours: $ours"
  for lib in upstream ours; do
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    "${envv[@]}" valgrind --tool=callgrind --dump-instr=yes --dump-line=no \
      --compress-pos=no --compress-strings=no "${toggle[@]}" \
      "--callgrind-out-file=$VM_OUT/cg.$lib" "$exe" 10.0.2.15 > "$raw/run.$lib.txt" 2>&1 ||
      { say "FAILED: $lib (see $raw/run.$lib.txt)"; exit 1; }
    say "$lib: $(grep -v '^==' "$raw/run.$lib.txt")"
  done
  python3 "$here/cg-footprint.py" --functions libibverbs "$VM_OUT/cg.upstream" "$VM_OUT/cg.ours" | tee -a "$report"
  exit 0
fi

. "$here/vm-bench-host.sh"
window=rdma_get_cm_event out=$repo/target/bench-footprint
while [[ $# -gt 0 ]]; do
  case "$1" in
    --window) window=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '14,14p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
[[ $window =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "cm-footprint: --window wants a function name or all" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "cm-footprint: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
bench_libs cm-footprint libibverbs.so.1 librdmacm.so.1
mkdir -p "$out"
exe=$(cd "$out" && pwd)/cm-firstcall
cc -O2 -Wall -Werror -o "$exe" "$here/cm-firstcall.c" -lrdmacm -lpthread
bench_vm cm-footprint "$out" 1800 "$here/cm-footprint.sh" --env "BENCH_EXE=$exe" --env "BENCH_WINDOW=$window"
