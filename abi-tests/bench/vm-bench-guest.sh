# vm-bench-guest.sh: the in-VM half shared by the VM benchmarks (verbs-bench.sh,
# cmtime-bench.sh, rstream-bench.sh, rs-callcost.sh, cm-firstcall.sh). Sourced,
# not run, by each bench's "--in-vm" branch; the VM sees the host's files.
#
#   bench_guest_init   sets ours (RDMA_OURS_LIB_DIR, required), raw ($VM_OUT/raw,
#                      emptied), report ($VM_OUT/bench.txt, emptied) and base_env
#                      (a clean environment to run the tools under)
#   say TEXT...        prints TEXT and appends it to the report

bench_guest_init() {
  ours=${RDMA_OURS_LIB_DIR:?}
  raw=$VM_OUT/raw
  rm -rf "$raw"; mkdir -p "$raw"
  report=$VM_OUT/bench.txt
  : > "$report"
  base_env=(env -i "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
            "HOME=/root" LC_ALL=C)
}

say() { echo "$*" | tee -a "$report"; }
