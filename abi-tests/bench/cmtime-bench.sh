#!/usr/bin/env bash
# cmtime-bench.sh: connection setup and teardown with Debian's librdmacm vs
# ours, in ONE boot of the Soft-RoCE VM: cmtime (rdmacm-utils) with 200
# connections (-c 200), server and client both on Debian's libraries or both
# on ours, alternating (ABBA order, so a drift of the machine hits both
# alike), a few repetitions. cmtime's client times each step over all its
# connections: create id, resolve addr, resolve route, create qp, connect,
# disconnect, destroy. Prints every figure, per step the medians, best runs
# and the ratios ours / Debian's.
#
#   abi-tests/bench/cmtime-bench.sh [--reps N] [--conns N] [--cpus N] [--no-aslr] [--icount]
#                                    [--yields] [--client-env NAME=VALUE]... [--out DIR]
#
#   --reps N    repetitions per library (default 6)
#   --conns N   connections per cmtime run (default 200)
#   --cpus N    vCPUs of the VM (default 1). With two, each vCPU is a host
#               thread, and whichever the host's other work delays runs its
#               process at half speed: step times were bimodal and ratios
#               of medians mostly counted which library drew more slow runs
#               (docs/benchmarks.md, cmtime). With one, server and client
#               share it (they take turns anyway: cmtime's steps are
#               client-driven) and the spread is far smaller.
#   --no-aslr   run cmtime under `setarch -R` (no address space
#               randomisation). Under TCG, code runs only after QEMU has
#               translated it, and translations are keyed by virtual address:
#               with randomisation every process translates each library's
#               code again on first use, a cost real hardware does not have.
#               Without it, the second and later processes of a library reuse
#               the translations (docs/benchmarks.md, cmtime).
#   --icount    boot the VM with qemu's instruction counting (-icount
#               shift=0,sleep=off): the guest's clock advances 1 ns per
#               guest instruction executed, whatever the host is doing, and
#               the time qemu spends translating code does not count. Step
#               times become the guest's own work (kernel and both
#               processes), reproducible to a fraction of a percent between
#               repetitions. They are not real time: compare only ratios.
#               The first two or three repetitions of a boot run in a
#               slower state of the guest's kernel for both libraries.
#   --yields    preload cm-yields.so (built here) into each client, which
#               counts the sched_yield calls of cmtime's main thread per
#               step, and summarise them per library as the step times are.
#               cmtime's main thread spins on sched_yield while the event
#               thread completes a step; on one CPU, how long it spins
#               depends on the scheduler's view of both threads' past CPU
#               use, not only on the step's own work (docs/benchmarks.md,
#               cmtime).
#   --client-env NAME=VALUE
#               set NAME in both libraries' clients' environment (for
#               cm-yields.c's experiments: CM_BURN_STEP / CM_BURN_NS,
#               CM_MAIN_IDLE)
#   --out DIR   results (default target/bench-cm): DIR/bench.txt (the
#               report), DIR/raw/ (every run's output, raw/figures.tsv),
#               DIR/console.txt, DIR/host-load.txt
# Environment: RDMA_OURS_LIB_DIR (default target/release) holds our
# libibverbs.so.1 and librdmacm.so.1; RDMA_VM_ACCEL=kvm uses KVM when the
# machine has it.
#
# With two vCPUs the server is pinned to CPU 0 and the client to CPU 1. The
# VM gets a 2 GiB TCG translation buffer (RDMA_VM_TB_SIZE, unless already
# set): qemu's 1 GiB default filled within a minute of cmtime runs with
# randomised addresses, and each time it fills qemu flushes every
# translation, slowing whichever processes run next.
# cmtime's server never exits: it is stopped (SIGTERM) after its client, and
# the next server starts once the kernel has released the port. The figure
# per step is cmtime's "total ms" column (the wall time of the step for all
# connections). Under software emulation (TCG) absolute figures are far below
# real hardware and noisy, and the host's other load shows in them: compare
# the ratios, and repeat when the spread is large. Ratios above 1 mean ours
# is slower.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# ---- inside the VM ---------------------------------------------------------------
if [[ ${1:-} = --in-vm ]]; then
  reps=${BENCH_REPS:-6}
  conns=${BENCH_CONNS:-200}
  read -r -a wrap <<< "${BENCH_WRAP:-}"
  . "$here/vm-bench-guest.sh"
  bench_guest_init
  # Server on CPU 0, client on CPU 1; on a one-CPU VM (RDMA_VM_SMP=1) both
  # share CPU 0.
  ccpu=1; (( $(nproc) > 1 )) || ccpu=0
  # run_pair LIB PREFIX: cmtime server and client, both with LIB (upstream
  # or ours); outputs PREFIX.{server,client}.{out,err}, client exit code in
  # PREFIX.client.rc.
  run_pair() {
    local lib=$1 p=$2 envv rc
    envv=("${base_env[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    cmtime_server "$p.server.out" "$p.server.err" \
      "${envv[@]}" timeout 600 ${wrap[@]+"${wrap[@]}"} taskset -c 0 cmtime
    # The server's own pid (timeout forks it), for cm-yields' CPU figures
    # and the server's context switches below.
    local spid=
    if [[ -n ${BENCH_YIELDS:-} ]]; then
      spid=$(pgrep -P "$cmtime_spid" -x cmtime || true)
      envv+=("LD_PRELOAD=$BENCH_YIELDS" "CM_SERVER_PID=$spid")
    fi
    [[ -n ${BENCH_CLIENT_ENV:-} ]] && IFS='|' read -r -a cenv <<< "$BENCH_CLIENT_ENV" && envv+=("${cenv[@]}")
    rc=0
    "${envv[@]}" timeout 600 ${wrap[@]+"${wrap[@]}"} taskset -c "$ccpu" cmtime -s 10.0.2.15 -c "$conns" \
      > "$p.client.out" 2> "$p.client.err" < /dev/null || rc=$?
    echo "$rc" > "$p.client.rc"
    # The server's context switches over the whole run, all its threads
    # (it works only in the connect and disconnect steps).
    [[ -z ${BENCH_YIELDS:-} ]] || awk '/^voluntary_ctxt_switches/ { v += $2 } /^nonvoluntary_ctxt_switches/ { n += $2 }
        END { print "SERVER_CSW", v, n }' /proc/"$spid"/task/*/status >> "$p.client.err" 2>/dev/null || true
    cmtime_server_stop
  }

  # figures FILE: "step<TAB>total ms" for each row of cmtime's table (step
  # names with the blanks replaced by _), nothing when the table is missing.
  figures() {
    awk -F: '/^step +total ms/ { t = 1; next }
      t && NF == 2 { name = $1; sub(/ +$/, "", name); gsub(/ /, "_", name)
                     split($2, v, " "); if (v[1] ~ /^[0-9.]+$/) print name "\t" v[1] }' "$1"
  }

  : > "$raw/figures.tsv"
  say "cmtime-bench: $reps repetitions of cmtime -c $conns per library${wrap[*]:+, under ${wrap[*]}}"
  say "ours: $ours/librdmacm.so.1 and $ours/libibverbs.so.1"
  say "kernel $(uname -r), $(nproc) CPUs, accel ${RDMA_VM_ACCEL_NAME:-tcg}, TCG buffer ${BENCH_TB_SIZE:-default} MiB${BENCH_ICOUNT:+, icount shift=$BENCH_ICOUNT (1 ns = 1 guest instruction when 0)}"
  say ""
  for ((r = 1; r <= reps; r++)); do
    if ((r % 2)); then order=(upstream ours); else order=(ours upstream); fi
    for lib in "${order[@]}"; do
      p=$raw/cmtime.$lib.$r
      run_pair "$lib" "$p"
      f=$(figures "$p.client.out")
      if [[ $(cat "$p.client.rc") != 0 || -z $f ]]; then
        say "$(printf '%-4s %-9s FAILED (exit %s; see %s.*)' "$r" "$lib" "$(cat "$p.client.rc")" "$p")"
        continue
      fi
      while IFS=$'\t' read -r step v; do
        echo "$step $lib $r $v" >> "$raw/figures.tsv"
      done <<< "$f"
      # "YIELDS resolving route 37" -> "resolving_route ours 3 37"
      [[ -z ${BENCH_YIELDS:-} ]] || awk -v lib="$lib" -v r="$r" '$1 == "YIELDS" && $2 != "step" { n = $NF; $1 = ""; $NF = ""
          sub(/^ +/, ""); sub(/ +$/, ""); gsub(/ /, "_"); print $0, lib, r, n }' "$p.client.err" >> "$raw/yields.tsv"
      [[ -z ${BENCH_YIELDS:-} ]] || awk -v lib="$lib" -v r="$r" '$1 == "SERVER_CSW" {
          print "voluntary", lib, r, $2; print "involuntary", lib, r, $3 }' "$p.client.err" >> "$raw/server-csw.tsv"
      # "CPU resolving route M E S I" -> "resolving_route.main ours 3 M/1e6" and
      # .event, .server, .rest (I - M - E - S), in ms
      [[ -z ${BENCH_YIELDS:-} ]] || awk -v lib="$lib" -v r="$r" '$1 == "CPU" && $2 != "step" && $(NF-1) >= 0 {
          i = $NF; s = $(NF-1); e = $(NF-2); m = $(NF-3); $1 = ""; NF -= 4
          sub(/^ +/, ""); sub(/ +$/, ""); gsub(/ /, "_")
          printf "%s.main %s %s %.3f\n%s.event %s %s %.3f\n%s.server %s %s %.3f\n%s.rest %s %s %.3f\n",
            $0, lib, r, m / 1e6, $0, lib, r, e / 1e6, $0, lib, r, s / 1e6, $0, lib, r, (i - m - e - s) / 1e6 }' \
          "$p.client.err" >> "$raw/cpu.tsv"
      say "$(printf '%-4s %-9s %s' "$r" "$lib" "$(tr '\t\n' '= ' <<< "$f")")"
    done
  done

  # Per step: each library's median, best and worst total ms, and three
  # ratios ours / Debian's: of the medians, of the best runs (the least
  # disturbed by the host's other load) and the median of the per-repetition
  # ratios (each repetition runs both libraries back to back).
  say ""
  awk -f "$here/ab-summary.awk" "$raw/figures.tsv" | tee -a "$report"
  if [[ -n ${BENCH_YIELDS:-} ]]; then
    say ""
    say "sched_yield calls of cmtime's main thread per step:"
    awk -f "$here/ab-summary.awk" -v width=20 "$raw/yields.tsv" | tee -a "$report"
    if [[ -s $raw/server-csw.tsv ]]; then
      say ""
      say "context switches of the cmtime server over the whole run:"
      awk -f "$here/ab-summary.awk" -v width=20 "$raw/server-csw.tsv" | tee -a "$report"
    fi
    if [[ -s $raw/cpu.tsv ]]; then
      say ""
      say "CPU time per step (ms) between the headings: cmtime's main thread, the client's"
      say "other threads (event thread), the server process, and the rest of the guest:"
      awk -f "$here/ab-summary.awk" -v width=28 "$raw/cpu.tsv" | tee -a "$report"
    fi
  fi
  say ""
  say "units: ms for the whole step over all connections (cmtime \"total ms\"; lower is better);"
  say "a ratio above 1 means ours is slower"
  exit 0
fi

# ---- on the host: boot the VM and run the above inside ----------------------------
. "$here/vm-bench-host.sh"
reps=6; conns=200; wrap=; cpus=1; yields=; cenv=; out=$repo/target/bench-cm
while [[ $# -gt 0 ]]; do
  case "$1" in
    --reps|--conns|--cpus|--client-env|--out)
      [[ $# -ge 2 ]] || { echo "cmtime-bench: $1 wants a value" >&2; exit 2; } ;;&
    --reps) reps=$2; shift 2 ;;
    --conns) conns=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --no-aslr) wrap="setarch $(uname -m) -R"; shift ;;
    --icount) export RDMA_VM_ICOUNT=0; shift ;;
    --yields) yields=1; shift ;;
    --client-env) [[ $2 == [A-Za-z_]*=* && $2 != *'|'* ]] || { echo "cmtime-bench: --client-env wants NAME=VALUE (no '|')" >&2; exit 2; }
                  cenv+="${cenv:+|}$2"; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,69p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '11,12p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
bench_positive cmtime-bench --reps "$reps"
bench_positive cmtime-bench --conns "$conns"
bench_positive cmtime-bench --cpus "$cpus"
export RDMA_VM_SMP=$cpus RDMA_VM_TB_SIZE=${RDMA_VM_TB_SIZE:-2048}
bench_libs cmtime-bench libibverbs.so.1 librdmacm.so.1
shim=
if [[ -n $yields ]]; then
  mkdir -p "$out"
  shim=$(cd "$out" && pwd)/cm-yields.so
  cc -O2 -Wall -Werror -shared -fPIC -o "$shim" "$here/cm-yields.c" -ldl
fi
bench_vm cmtime-bench "$out" 3600 "$here/cmtime-bench.sh" --env "BENCH_REPS=$reps" --env "BENCH_CONNS=$conns" --env "BENCH_WRAP=$wrap" --env "BENCH_TB_SIZE=$RDMA_VM_TB_SIZE" --env "BENCH_ICOUNT=${RDMA_VM_ICOUNT:-}" --env "BENCH_YIELDS=$shim" --env "BENCH_CLIENT_ENV=$cenv"
