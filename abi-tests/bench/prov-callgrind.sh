#!/usr/bin/env bash
# prov-callgrind.sh: instructions per data-path call of Debian's C provider
# and of ours, counted by callgrind in ONE boot of the Soft-RoCE VM
# (prov-callgrind.c: N x post_recv, N x post_send, 2N x poll_cq with a
# completion, N x poll_cq on an empty CQ, N x an ibv_wr_start / wr_send /
# wr_set_sge / wr_complete sequence, 2N completions read through an extended
# CQ; each phase its own callgrind dump). Prints per call the instructions
# of the whole call (from the application's inline verb on) and those in
# the provider's object alone, per provider, and the ratios ours / Debian's.
#
#   abi-tests/bench/prov-callgrind.sh [--n N] [--variants "V..."] [--out DIR]
#
#   --n N         calls per phase (default 500)
#   --variants V  the runs, of: upstream (Debian's libibverbs and C
#                 provider: the reference, always run first), upstream+prov
#                 (Debian's libibverbs with our provider, through
#                 RDMAV_DRIVERS), ours+prov (our libibverbs with our
#                 provider); default "upstream+prov ours+prov"
#   --out DIR     results (default target/bench-provcg): DIR/bench.txt (the
#                 table), DIR/raw/ (each run's output, callgrind dumps,
#                 raw/ir.tsv)
# Environment: RDMA_OURS_LIB_DIR (default target/release: our libibverbs),
# RDMA_OURS_PROVIDER_DIR (default: the same directory) holds our provider
# as librxe-rs-rdmav34.so. Needs valgrind (and its callgrind.h) on the host;
# the VM sees the host's /.
#
# callgrind is deterministic: the counts repeat exactly but for the polls
# that found the CQ empty while the device was still completing (the
# "empty" column; the program waits a second before each poll phase, so it
# should be 0). The data path does not call into libibverbs: the inline
# verbs of <infiniband/verbs.h> jump into the provider through the context
# (ibv_post_send, ibv_poll_cq) or the extended QP and CQ (ibv_wr_*,
# ibv_start_poll); "all" also holds those few inline instructions and the
# libc the provider calls (the doorbell's write(), spin locks).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# ---- inside the VM ---------------------------------------------------------------
if [[ ${1:-} = --in-vm ]]; then
  n=${BENCH_N:?} exe=${BENCH_EXE:?} provdir=${RDMA_OURS_PROVIDER_DIR:?}
  read -ra variants <<< "${BENCH_VARIANTS:?}"
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  sysprov=$(readlink -f /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so)
  ourprov=$(readlink -f "$provdir/librxe-rs-rdmav34.so")
  say "prov-callgrind: $n calls per phase on rxe0, kernel $(uname -r), $(valgrind --version)"
  say "Debian's provider: $sysprov"
  say "ours: $ourprov (RDMAV_DRIVERS=$provdir/librxe-rs); our libibverbs: $ours"
  : > "$raw/ir.tsv"
  for v in upstream "${variants[@]}"; do
    envv=("${base_env[@]}")
    [[ ${v%+prov} = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    want=$sysprov
    if [[ $v == *+prov ]]; then envv+=("RDMAV_DRIVERS=$provdir/librxe-rs"); want=$ourprov; fi
    if ! "${envv[@]}" timeout 1200 valgrind --tool=callgrind --collect-atstart=no \
         "--callgrind-out-file=$raw/cg.$v.%p" "$exe" rxe0 "$n" > "$raw/$v.out" 2> "$raw/$v.err"; then
      say "FAILED: $v (see $raw/$v.err): $(tail -2 "$raw/$v.err")"; exit 1
    fi
    got=$(sed -n 's/^provider //p' "$raw/$v.out")
    [[ $got = "$want" ]] || { say "FAILED: $v: rxe0's post_send is in $got, not $want"; exit 1; }
    for f in "$raw"/cg."$v".*.*; do
      phase=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
      [[ -n $phase ]] || continue
      all=$(sed -n 's/^summary: //p' "$f")
      # The provider object's own instructions, read from the dump itself
      # (callgrind_annotate names the object only on some of a function's
      # lines): every cost line counts for the object of the last "ob=",
      # except the line after "calls=", which is a callee's inclusive cost.
      # Object names are compressed: "(N) name" the first time, "(N)" after.
      prov=$(awk -v o="$want" '
        function obj(s,   id, rest) {
          if (!match(s, /^\([0-9]+\)/)) return s
          id = substr(s, 2, RLENGTH - 2); rest = substr(s, RLENGTH + 1); sub(/^ /, "", rest)
          if (rest != "") name[id] = rest
          return name[id]
        }
        /^ob=/ { cur = obj(substr($0, 4)); next }
        /^cob=/ { obj(substr($0, 5)); next }
        /^calls=/ { skip = 1; next }
        /^[0-9+*-]/ { if (skip) { skip = 0; next } if (cur == o) s += $2; next }
        END { print s + 0 }' "$f")
      ops=$(awk -v p="$phase" '$1 == "phase" && $2 == p { print $4 }' "$raw/$v.out")
      empty=$(awk -v p="$phase" '$1 == "phase" && $2 == p { print $6 }' "$raw/$v.out")
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$phase" "$ops" "$empty" "$all" "$prov" >> "$raw/ir.tsv"
    done
  done
  say ""
  say "instructions per call (all: the whole call; prov: in the provider's object); ratio ours / Debian's"
  awk -F'\t' -v vs="${variants[*]}" '
    { k = $1 SUBSEP $2; ops[k] = $3; empty[k] = $4; all[k] = $5; prov[k] = $6
      if (!($2 in seen)) { seen[$2] = 1; order[++np] = $2 } }
    END {
      nv = split(vs, v, " ")
      printf "%-14s %6s %5s %9s %9s", "phase", "calls", "empty", "Deb all", "Deb prov"
      for (i = 1; i <= nv; i++) printf " | %-27s", v[i] " all, prov, ratio"
      printf "\n"
      for (p = 1; p <= np; p++) {
        ph = order[p]; u = "upstream" SUBSEP ph
        if (!(u in ops) || ops[u] == 0) continue
        ua = all[u] / ops[u]; up = prov[u] / ops[u]
        printf "%-14s %6d %5d %9.1f %9.1f", ph, ops[u], empty[u], ua, up
        for (i = 1; i <= nv; i++) {
          k = v[i] SUBSEP ph
          if (!(k in ops) || ops[k] == 0) { printf " | %-27s", "-"; continue }
          oa = all[k] / ops[k]; op = prov[k] / ops[k]
          printf " | %8.1f %8.1f %s", oa, op, (up > 0 ? sprintf("%8.3f", op / up) : "       -")
          if (empty[k] && ph != "poll_cq_empty") printf " (%d empty)", empty[k]
        }
        printf "\n"
      }
    }' "$raw/ir.tsv" | tee -a "$report"
  exit 0
fi

# ---- on the host: build, boot the VM and run the above inside ------------------------
. "$here/vm-bench-host.sh"
n=500 variants="upstream+prov ours+prov" out=$repo/target/bench-provcg
while [[ $# -gt 0 ]]; do
  case "$1" in
    --n) n=$2; shift 2 ;;
    --variants) variants=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '11,11p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive prov-callgrind --n "$n"
for v in $variants; do
  case $v in upstream+prov|ours+prov) ;; *) echo "prov-callgrind: unknown variant $v" >&2; exit 2 ;; esac
done
bench_libs prov-callgrind libibverbs.so.1
provdir=${RDMA_OURS_PROVIDER_DIR:-$ours}
[[ -e $provdir/librxe-rs-rdmav34.so ]] ||
  { echo "prov-callgrind: no $provdir/librxe-rs-rdmav34.so (RDMA_OURS_PROVIDER_DIR)" >&2; exit 2; }
provdir=$(cd "$provdir" && pwd)
[[ -f /usr/include/valgrind/callgrind.h ]] || { echo "prov-callgrind: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
mkdir -p "$out"
exe=$(cd "$out" && pwd)/prov-callgrind
# Built against Debian's headers and library: the calls measured are the
# provider's, reached through the inline verbs of either library's headers.
cc -O2 -g -Wall -Werror -o "$exe" "$here/prov-callgrind.c" -libverbs
bench_vm prov-callgrind "$out" 3600 "$here/prov-callgrind.sh" --env "BENCH_N=$n" \
  --env "BENCH_EXE=$exe" --env "BENCH_VARIANTS=$variants" --env "RDMA_OURS_PROVIDER_DIR=$provdir"
