#!/usr/bin/env bash
# rstream-bench.sh: rsockets throughput and latency with Debian's librdmacm vs
# ours, in ONE boot of the Soft-RoCE VM: rstream (rdmacm-utils) server and
# client both on Debian's libraries or both on ours, alternating (ABBA order,
# so a drift of the machine hits both alike), a few repetitions. rstream runs
# a latency test (ping-pong of one transfer) and then a bandwidth test (many
# transfers each way) per size. Prints every figure, per test the medians,
# best runs and the ratios ours / Debian's.
#
#   abi-tests/bench/rstream-bench.sh [--reps N] [--args "RSTREAM ARGS"] [--siw] [--icount] [--out DIR]
#
#   --reps N    repetitions per library (default 2)
#   --args A    rstream's test options, given to server and client alike;
#               several sets separated by ";" run one after the other
#               (default "-S all": every size from 64 B to 6 MiB; "" gives
#               rstream's four default sizes, a quick check; a custom size
#               such as "-S 256 -C 1 -I 20000" (latency) or "-S 256 -C 20000"
#               (bandwidth) is reported as 256_lat or 256_bw)
#   --siw       run over iWARP: siw0, the soft-iWARP device that
#               abi-tests/vm-progs/siw-up adds on 10.0.9.15 (rsockets then
#               runs in its message mode, every control message a SEND),
#               instead of rxe0 on 10.0.2.15
#   --icount    one vCPU with qemu's instruction counting: the guest's clock
#               counts executed instructions (1 ns each), so the figures are
#               the guest's own work and nearly free of the host's load. Both
#               peers then share the one vCPU: give blocking tests (-T b),
#               e.g. --args "-T b -S 64 -C 1 -I 2000"; spinning ones wait for
#               each other's time slices
#   --out DIR   results (default target/bench-rs): DIR/bench.txt (the
#               report), DIR/raw/ (every run's output, raw/figures.tsv),
#               DIR/console.txt, DIR/host-load.txt
# Environment: RDMA_OURS_LIB_DIR (default target/release) holds our
# libibverbs.so.1 and librdmacm.so.1; RDMA_VM_ACCEL=kvm uses KVM when the
# machine has it.
#
# The server is pinned to CPU 0 and the client to CPU 1 of the VM's two (with
# --icount both run on the only one). The
# figures are the client's: for the *_bw tests MB/s computed from the size
# and usec/xfer (higher is better), for the *_lat tests usec/xfer (lower is
# better). Under software emulation
# (TCG) absolute figures are far below real hardware and the host's other
# load shows in them: compare the ratios, and repeat when the spread is large.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# ---- inside the VM ---------------------------------------------------------------
if [[ ${1:-} = --in-vm ]]; then
  reps=${BENCH_REPS:-2}
  IFS=';' read -r -a sets <<< "${BENCH_ARGS-"-S all"}"
  [[ ${#sets[@]} -gt 0 ]] || sets=("")
  addr=10.0.2.15 dev=rxe0
  if [[ ${BENCH_SIW:-0} = 1 ]]; then
    addr=10.0.9.15 dev=siw0
    "$here/../vm-progs/siw-up" true || exit 1
  fi
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  pin0=(taskset -c 0) pin1=(taskset -c 1)
  if [[ $(nproc) = 1 ]]; then pin0=() pin1=(); fi

  # run_pair LIB PREFIX: rstream server and client, both with LIB (upstream
  # or ours); outputs PREFIX.{server,client}.{out,err}, exit codes in
  # PREFIX.{server,client}.rc.
  run_pair() {
    local lib=$1 p=$2 envv spid i rc
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    for ((i = 0; i < 300; i++)); do cm_port_busy 7471 || break; sleep 0.1; done
    "${envv[@]}" timeout 3000 "${pin0[@]}" rstream -b "$addr" "${args[@]}" \
      > "$p.server.out" 2> "$p.server.err" < /dev/null &
    spid=$!
    for ((i = 0; i < 600; i++)); do
      cm_listening 7471 && break
      kill -0 "$spid" 2>/dev/null || break
      sleep 0.1
    done
    rc=0
    "${envv[@]}" timeout 3000 "${pin1[@]}" rstream -s "$addr" "${args[@]}" \
      > "$p.client.out" 2> "$p.client.err" < /dev/null || rc=$?
    echo "$rc" > "$p.client.rc"
    rc=0
    wait "$spid" || rc=$?
    echo "$rc" > "$p.server.rc"
  }

  # figures FILE: "test<TAB>value" per row of rstream's table: for the
  # bandwidth tests MB/s (10^6 bytes per second, from the transfer size and
  # usec/xfer: rstream's own Gb/sec column has two decimals, too few under
  # emulation), for the latency tests usec/xfer.
  figures() {
    awk 'function bytes(s,   m) {
           m = 1
           if (s ~ /k$/) m = 1024; else if (s ~ /m$/) m = 1048576; else if (s ~ /g$/) m = 1073741824
           sub(/[kmg]$/, "", s)
           return s * m
         }
      $1 == "name" && $2 == "bytes" { t = 1; next }
      # A custom size (-S N) prints its test as "custom": one transfer per
      # iteration is a latency test, more is a bandwidth test.
      t && NF == 8 && $1 == "custom" { $1 = $2 ($3 == "1" ? "_lat" : "_bw") }
      t && NF == 8 && $1 ~ /_lat$/ { print $1 "\t" $8 }
      t && NF == 8 && $1 ~ /_bw$/ && $8 > 0 { printf "%s\t%.3f\n", $1, bytes($2) / $8 }' "$1"
  }

  : > "$raw/figures.tsv"
  say "rstream-bench: $reps repetitions per library of rstream $(IFS=';'; echo "${sets[*]}")"
  say "ours: $ours/librdmacm.so.1 and $ours/libibverbs.so.1"
  say "kernel $(uname -r), $(nproc) CPUs, accel ${RDMA_VM_ACCEL_NAME:-tcg}, device $dev ($addr)"
  say ""
  tests=""
  for ((s = 0; s < ${#sets[@]}; s++)); do
    read -r -a args <<< "${sets[s]}"
    set_tests=""
    for ((r = 1; r <= reps; r++)); do
      if ((r % 2)); then order=(upstream ours); else order=(ours upstream); fi
      for lib in "${order[@]}"; do
        p=$raw/rstream.$s.$lib.$r
        run_pair "$lib" "$p"
        f=$(figures "$p.client.out")
        if [[ $(cat "$p.client.rc") != 0 || $(cat "$p.server.rc") != 0 || -z $f ]]; then
          say "$(printf '%-4s %-9s FAILED (client exit %s, server exit %s; see %s.*)' "$r" "$lib" \
            "$(cat "$p.client.rc")" "$(cat "$p.server.rc")" "$p")"
          continue
        fi
        while IFS=$'\t' read -r t v; do
          echo "$t $lib $r $v" >> "$raw/figures.tsv"
        done <<< "$f"
        [[ -n $set_tests ]] || set_tests=$(cut -f1 <<< "$f" | tr '\n' ' ')
        say "$(printf '%-4s %-9s %s tests (%s)' "$r" "$lib" "$(wc -l <<< "$f")" "${args[*]}")"
      done
    done
    tests+=$set_tests
  done

  say ""
  bw=$(tr ' ' '\n' <<< "$tests" | grep '_bw$' | tr '\n' ' ' || true)
  awk -f "$here/ab-summary.awk" -v higher="$bw" -v order="$tests" -v width=10 \
    "$raw/figures.tsv" | tee -a "$report"
  say ""
  say "units: *_bw MB/s (10^6 bytes/s per direction; higher is better), *_lat usec per transfer (lower is better);"
  say "a *_bw ratio below 1 or a *_lat ratio above 1 means ours is slower"
  exit 0
fi

# ---- on the host: boot the VM and run the above inside ----------------------------
. "$here/vm-bench-host.sh"
reps=2; args="-S all"; siw=0; icount=0; out=$repo/target/bench-rs
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --args) args=$2; shift 2 ;;
    --siw) siw=1; shift ;;
    --icount) icount=1; shift ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '10,10p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive rstream-bench --reps "$reps"
bench_libs rstream-bench libibverbs.so.1 librdmacm.so.1
if [[ $icount = 1 ]]; then
  export RDMA_VM_SMP=1 RDMA_VM_ICOUNT=0
fi
bench_vm rstream-bench "$out" 7200 "$here/rstream-bench.sh" --env "BENCH_REPS=$reps" --env "BENCH_ARGS=$args" --env "BENCH_SIW=$siw"
