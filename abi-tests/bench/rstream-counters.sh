#!/usr/bin/env bash
# rstream-counters.sh: what one rstream run puts on the wire with Debian's
# librdmacm and with ours, from Soft-RoCE's own counters
# (/sys/class/infiniband/rxe0/ports/1/hw_counters, read before and after each
# run in one VM boot). Unlike timings under TCG these counts do not depend on
# the host's load: rdma_recvs is the number of messages received (every
# rsocket data, credit or control message is one write-with-immediate and
# takes one receive), sent_pkts the packets including ACKs, and
# completer_retry_err / duplicate_request count retransmissions.
#
#   abi-tests/bench/rstream-counters.sh [--out DIR] [SIZE:COUNT ...]
#
# Each SIZE:COUNT runs `rstream -S SIZE -C COUNT` (server and client on the
# same library; default 4096:2000 65536:500 1048576:50). Output:
# DIR/counters.txt (default target/bench-rs-counters). Our libraries come from
# RDMA_OURS_LIB_DIR (default target/release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

if [[ ${1:-} = --in-vm ]]; then
  shift
  ours=${RDMA_OURS_LIB_DIR:?}
  . "$here/vm-bench-guest.sh"   # cm_listening, cm_port_busy
  report=$VM_OUT/counters.txt
  : > "$report"
  counters() {
    local f
    for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do echo "$(basename "$f") $(cat "$f")"; done
  }
  cd /tmp
  for spec in ${BENCH_SPECS:?}; do
    size=${spec%%:*} count=${spec##*:}
    for lib in upstream ours; do
      e=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C)
      [[ $lib = ours ]] && e+=("LD_LIBRARY_PATH=$ours")
      for ((i = 0; i < 300; i++)); do cm_port_busy 7471 || break; sleep 0.1; done
      counters > /tmp/c0
      "${e[@]}" taskset -c 0 rstream -b 10.0.2.15 -S "$size" -C "$count" > /tmp/s.out 2>&1 &
      spid=$!
      for ((i = 0; i < 600; i++)); do cm_listening 7471 && break; kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
      rc=0
      "${e[@]}" taskset -c 1 rstream -s 10.0.2.15 -S "$size" -C "$count" > /tmp/c.out 2>&1 || rc=$?
      wait "$spid" || rc=$?
      counters > /tmp/c1
      diff=$(join /tmp/c0 /tmp/c1 | awk '$3 != $2 { printf "%s %d  ", $1, $3 - $2 }')
      printf '%-9s -S %-8s -C %-5s rc %s  %s| %s\n' "$lib" "$size" "$count" "$rc" "$diff" \
        "$(awk '$1 == "custom" { print $8 " usec/xfer" }' /tmp/c.out)" | tee -a "$report"
    done
  done
  exit 0
fi

out=$repo/target/bench-rs-counters; specs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *:*) specs+=("$1"); shift ;;
    *) sed -n '11,11p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
[[ ${#specs[@]} -gt 0 ]] || specs=(4096:2000 65536:500 1048576:50)
ours=${RDMA_OURS_LIB_DIR:-${CARGO_TARGET_DIR:-$repo/target}/release}
ours=$(cd "$ours" && pwd)
mkdir -p "$out"; out=$(cd "$out" && pwd)
"$repo/abi-tests/vm/vm-run" --timeout 3600 --out "$out" --env "BENCH_SPECS=${specs[*]}" \
  --env "RDMA_OURS_LIB_DIR=$ours" "$here/rstream-counters.sh" --in-vm
