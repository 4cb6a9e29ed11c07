#!/usr/bin/env bash
# rs-pathcost.sh: instructions per rsend and per rrecv, Debian's librdmacm
# against ours, counted by valgrind's callgrind in the Soft-RoCE VM.
#
# rs-pathcost.c runs a paced ping-pong (each side sleeps before it receives),
# so every rrecv finds its message already completed and every rsend has
# credits: the calls take the same path every time and their counts do not
# depend on timing, unlike a spinning or blocking receiver's. Only rsend and
# rrecv (and what they call: the provider's post and poll included) are
# counted (--toggle-collect). Prints, per library and side, the calls and
# instructions per call.
#
#   abi-tests/bench/rs-pathcost.sh [--pings N] [--size B] [--out DIR]
#
#   --pings N   round trips (default 200)
#   --size B    bytes per message (default 64, at most 65536)
#   --out DIR   results (default target/bench-rspath): DIR/bench.txt, DIR/raw/
# Environment: RDMA_OURS_LIB_DIR (default target/release) holds our
# libibverbs.so.1 and librdmacm.so.1. Needs valgrind (installed by
# abi-tests/install-deps.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# ---- inside the VM ---------------------------------------------------------------
if [[ ${1:-} = --in-vm ]]; then
  pings=${BENCH_PINGS:?} size=${BENCH_SIZE:?} exe=${BENCH_EXE:?}
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  say "rs-pathcost: $pings paced round trips of $size bytes under callgrind, kernel $(uname -r)"
  say "ours: $ours/librdmacm.so.1"
  say ""
  say "$(printf '%-9s %-7s %-6s %7s %12s %10s' library side call calls instructions per-call)"
  port=7500
  for lib in upstream ours; do
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    port=$((port + 1))
    if ! "${envv[@]}" timeout 1200 valgrind --tool=callgrind --toggle-collect=rrecv --toggle-collect=rsend \
        "--callgrind-out-file=$raw/cg.$lib.%p" "$exe" 10.0.2.15 "$port" "$pings" "$size" \
        > "$raw/$lib.out" 2> "$raw/$lib.err" < /dev/null; then
      say "FAILED: $lib ($raw/$lib.*): $(tail -3 "$raw/$lib.err")"
      continue
    fi
    # The parent (client) is the lower pid: it forks the server.
    mapfile -t files < <(for f in "$raw"/cg."$lib".*; do echo "${f##*.} $f"; done | sort -n | cut -d' ' -f2-)
    for ((i = 0; i < ${#files[@]}; i++)); do
      side=client
      ((i > 0)) && side=server
      callgrind_annotate --inclusive=yes --tree=calling "${files[i]}" 2>/dev/null |
        awk -v lib="$lib" -v side="$side" '
          # "N (P%)  >   FILE:rrecv (Kx) [LIB]": a call into rrecv or rsend;
          # per function the largest (the calls from the program itself).
          $3 == ">" && ($0 ~ /:rrecv \(/ || $0 ~ /:rsend \(/) && match($0, /\([0-9,]+x\)/) {
            f = $0 ~ /:rrecv \(/ ? "rrecv" : "rsend"
            k = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", k)
            n = $1; gsub(",", "", n)
            if (n + 0 > N[f] + 0) { N[f] = n; K[f] = k }
          }
          END { for (f in N) printf "%-9s %-7s %-6s %7d %12d %10.1f\n", lib, side, f, K[f], N[f], N[f] / K[f] }'
    done | sort -k3,3 | tee -a "$report"
    say "$(grep retries "$raw/$lib.out" | tr '\n' ' ')"
  done
  say ""
  say "retries: rrecv calls that found nothing yet and were repeated (they are counted too)"
  exit 0
fi

# ---- on the host: build, boot the VM and run the above inside ------------------------
. "$here/vm-bench-host.sh"
pings=200 size=64 out=$repo/target/bench-rspath
while [[ $# -gt 0 ]]; do
  case "$1" in
    --pings) pings=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '13,13p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive rs-pathcost --pings "$pings"
bench_positive rs-pathcost --size "$size"
bench_libs rs-pathcost libibverbs.so.1 librdmacm.so.1
mkdir -p "$out"
exe=$(cd "$out" && pwd)/rs-pathcost
cc -O2 -g -Wall -Werror -o "$exe" "$here/rs-pathcost.c" -lrdmacm
bench_vm rs-pathcost "$out" 3600 "$here/rs-pathcost.sh" --env "BENCH_PINGS=$pings" \
  --env "BENCH_SIZE=$size" --env "BENCH_EXE=$exe"
