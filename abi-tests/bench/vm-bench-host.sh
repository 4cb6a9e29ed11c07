# vm-bench-host.sh: the host half shared by the VM benchmarks (verbs-bench.sh,
# cmtime-bench.sh, rstream-bench.sh). Sourced, not run. Each bench parses its
# own options, then calls, in order:
#
#   bench_positive NAME OPTION VALUE    exits 2 unless VALUE is a positive integer
#   bench_libs NAME LIB...              sets $ours to the absolute directory of
#                                       our libraries (RDMA_OURS_LIB_DIR, else
#                                       $CARGO_TARGET_DIR or target/release) and
#                                       exits 2 when a LIB is not there
#   bench_vm NAME OUT TIMEOUT SCRIPT VM-RUN-ARGS...
#                                       renices to -15 as root (BENCH_NICE=0 to
#                                       disable), records the host load before and
#                                       after in OUT/host-load.txt, boots the VM
#                                       running "SCRIPT --in-vm" and exits with
#                                       its status; RDMA_OURS_LIB_DIR and the
#                                       accelerator's name are passed in for it
#
# Needs $repo (the repository's top) set by the caller.

bench_positive() {
  [[ $3 =~ ^[1-9][0-9]*$ ]] || { echo "$1: $2 wants a positive number" >&2; exit 2; }
}

bench_libs() {
  local name=$1 lib
  shift
  ours=${RDMA_OURS_LIB_DIR:-${CARGO_TARGET_DIR:-$repo/target}/release}
  for lib in "$@"; do
    if [[ ! -e $ours/$lib ]]; then
      echo "$name: $ours/$lib does not exist; build it first:" >&2
      echo "  cargo build --release -p libibverbs-rs -p librdmacm-rs" >&2
      exit 2
    fi
  done
  ours=$(cd "$ours" && pwd)
}

bench_vm() {
  local name=$1 out=$2 timeout=$3 script=$4 rc=0
  shift 4
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  # Other work on the host disturbs a TCG guest far more than either library
  # does: run the VM ahead of it.
  if [[ $EUID -eq 0 && ${BENCH_NICE:-1} != 0 ]]; then
    renice -n -15 -p $$ >/dev/null && echo "$name: running at nice -15 (BENCH_NICE=0 to disable)"
  fi
  # The VM's figures depend on what else the host runs: say how busy it was.
  echo "$name: host load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)" | tee "$out/host-load.txt"
  "$repo/abi-tests/vm/vm-run" --timeout "$timeout" --out "$out" \
    --env "RDMA_OURS_LIB_DIR=$ours" --env "RDMA_VM_ACCEL_NAME=${RDMA_VM_ACCEL:-tcg}" \
    "$@" "$script" --in-vm || rc=$?
  echo "$name: host load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/host-load.txt"
  echo "$name: report in $out/bench.txt"
  exit "$rc"
}
