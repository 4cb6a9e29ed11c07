# vm-bench-guest.sh: the in-VM half shared by the VM benchmarks (verbs-bench.sh,
# cmtime-bench.sh, rstream-bench.sh, rs-callcost.sh, cm-firstcall.sh). Sourced,
# not run, by each bench's "--in-vm" branch; the VM sees the host's files.
#
#   bench_guest_init   sets ours (RDMA_OURS_LIB_DIR, required), raw ($VM_OUT/raw,
#                      emptied), report ($VM_OUT/bench.txt, emptied) and base_env
#                      (a clean environment to run the tools under)
#   say TEXT...        prints TEXT and appends it to the report
#   cm_listening PORT  true while a CM id listens on PORT
#   cm_port_busy PORT  true while any CM id holds PORT
#   cmtime_server OUT ERR CMD...
#                      waits (up to 30 s) until no CM id holds cmtime's port
#                      7471, starts CMD (a cmtime server) in the background with
#                      stdout to OUT and stderr to ERR (to OUT when ERR is
#                      empty), then waits (up to 60 s) until it listens or has
#                      exited; its pid is $cmtime_spid
#   cmtime_server_stop stops that server (SIGTERM; it never exits by itself)
#                      and reaps it

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

cm_listening() { rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN.*src-addr [^ ]*:$1 "; }
cm_port_busy() { rdma resource show cm_id 2>/dev/null | grep -q "src-addr [^ ]*:$1 "; }

cmtime_server() {
  local out=$1 err=$2 i
  shift 2
  for ((i = 0; i < 300; i++)); do
    cm_port_busy 7471 || break
    sleep 0.1
  done
  if [[ -n $err ]]; then
    "$@" > "$out" 2> "$err" < /dev/null &
  else
    "$@" > "$out" 2>&1 < /dev/null &
  fi
  cmtime_spid=$!
  for ((i = 0; i < 600; i++)); do
    cm_listening 7471 && break
    kill -0 "$cmtime_spid" 2>/dev/null || break
    sleep 0.1
  done
}

cmtime_server_stop() {
  kill -TERM "$cmtime_spid" 2>/dev/null || true
  wait "$cmtime_spid" 2>/dev/null || true
}
