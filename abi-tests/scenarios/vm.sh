# Scenarios run inside the Soft-RoCE VM (abi-tests/run-scenarios vm).
# Sourced by runner.sh; each line is one scenario, run with Debian's libraries
# and with ours (see runner.sh for compare / pair / loaded and their options).
# The VM has one device, rxe0, port 1 ACTIVE, on eth0 = 10.0.2.15; the iWARP
# scenarios at the end add siw0 (10.0.9.15) beside it.
#
# To add one: add a line. A scenario that cannot pass yet gets
# --pending "WHY": it is listed but not run (SCEN_PENDING=1 runs it), and
# its cargo test is ignored. Remove --pending once it passes.
# Scenario names become cargo test names (abi-tests/tests/vm_scenarios.rs):
# keep one call per line (a trailing backslash continues it).

# ---- our providers (run-scenarios --provider ours) -----------------------
# In provider mode (see runner.sh) the reference stays Debian's libraries
# with Debian's C providers, and every scenario here is run again with our
# rxe and siw providers selected through RDMAV_DRIVERS: Debian's libibverbs
# with them, ours with them, and, for the pairs, each of those against
# Debian's libraries and C provider on the other side. In Debian 13's and
# sid's userlands (the deb13_* and sid_* scenarios) "Debian's" is that
# distribution's, and our providers are loaded under its private ABI's name
# (-rdmav34.so, sid's -rdmav65.so). The full tier runs every scenario so.
# The CI tier runs only these, the pairs with ours on both sides (our
# libibverbs and providers), the others also on Debian's libibverbs with
# our providers: the provider's object verbs and its bad-input probe, each
# data-path shape once over rxe (RC with ibv_wr_* sends checked byte for
# byte, UD address vectors, SRQ, perftest's RDMA writes, the CM, stream
# rsockets, UCX, libfabric), the IBVERBS_1.0 data path, over siw the
# provider proof with its entry points, the CM and perftest, and in sid's
# userland the provider proof under private ABI 65 (opened as -rdmav65.so,
# bound to IBVERBS_PRIVATE_65) and an RC pingpong. Left to the full tier
# for the CI tier's time: the rxe proof under Debian 12's LD_DEBUG trace
# (about 200 s with every variant), Open MPI over UCX (about 180 s; UCX
# itself is in), and the second scenario of a family.
provider_ci \
  objects_probe provider_bad_input compat10_probe \
  ibv_rc_pingpong_new_send_check ibv_ud_pingpong ibv_srq_pingpong_q4 \
  ib_write_bw rping rstream_nonblock_verify ucx_perftest_tag_lat fi_pingpong_msg_1m \
  siw_loads_ours rping_siw ib_write_bw_siw \
  sid_loads_ours_and_rxe_provider sid_ibv_rc_pingpong

# ---- device enumeration and queries -------------------------------
compare ibv_devices 'ibv_devices'
compare ibv_devinfo 'ibv_devinfo'
compare ibv_devinfo_v 'ibv_devinfo -v'
compare ibv_devinfo_d_rxe0_i_1 'ibv_devinfo -d rxe0 -i 1'
compare ibv_devinfo_l 'ibv_devinfo -l'
# error paths: unknown device, port out of range
compare ibv_devinfo_unknown_device 'ibv_devinfo -d mlx5_0'
compare ibv_devinfo_bad_port 'ibv_devinfo -d rxe0 -i 2'

# Verbs ibv_devinfo does not reach: P_Key and extended GID queries, the async
# event fd, the IBVERBS_1.0 open/close, PD/MR/CQ through the provider.
compare query_probe 'abi-tests/vm-progs/run-c-probe query_probe'

# Object verbs around PDs and MRs: rereg (fork marks), dma-buf, imports, and
# the verbs.h inline verbs (TD, XRCD, WQ, flows, counters, DM, ...).
compare objects_probe 'abi-tests/vm-progs/run-c-probe objects_probe'

# ibv_init_ah_from_wc / ibv_create_ah_from_wc on hand-made IB, RoCE v1 and
# RoCE v2 (IPv4, IPv6) headers against rxe0's real GID table.
compare ah_from_wc 'abi-tests/vm-progs/run-c-probe ah_from_wc'

# ---- bad input and threads ------------------------------------------
# Over 200 invalid-argument cases, one line each (ret and errno); see the top
# of abi-tests/vm-progs/bad_input.c and docs/bad-input.md.
compare bad_input 'abi-tests/vm-progs/run-c-probe bad_input'
# The inputs on which Debian's library crashes: each case must crash it (in a
# child process) and must get a clear error (EINVAL) from ours.
compare bad_input_crashes 'abi-tests/vm-progs/run-c-probe bad_input_crashes'
# 8 threads, 10,000 create/use/destroy cycles of PD, MR, CQ and QP on one
# context, under valgrind: no errors and nothing definitely lost.
compare stress_valgrind --timeout 300 'abi-tests/vm-progs/run-stress 10000 8'
# The provider's data path under the same 8 threads and valgrind: every 4th
# cycle a loopback of 16 sends into 16 receives (posted as chains), every
# other one through an extended QP's ibv_wr_* batch and polled through an
# extended CQ (start/next/end_poll). Beside the create/destroy churn above,
# this is where a provider's queue handling runs (see the top of stress.c).
compare stress_valgrind_datapath --long "a minute under valgrind; the full tier runs it, with Debian's provider and with ours" --timeout 600 'abi-tests/vm-progs/run-stress 2000 8 16 4'
# Bad input to the provider's data path on rxe0: too many or no
# scatter/gather entries, inline data past the limit, request chains that
# loop, a stale CQ, the ibv_wr_* calls out of order, each in a child
# process, and whether the queue still works afterwards. Each line says
# whether the outcome is the one documented for the provider that served
# the run (Debian's C provider crashes on some; see the top of
# provider_bad_input.c and docs/bad-input.md).
compare provider_bad_input --timeout 300 'abi-tests/vm-progs/run-c-probe provider_bad_input rxe0'

# ---- allocation failure ------------------------------------------------
# The program runs once per allocation it makes, with that one allocation
# failing (abi-tests/vm-progs/alloc-sweep preloads failalloc.c), the peer
# of a client started afresh each time without the failing allocator.
# Ours must neither crash nor hang; Debian's library is run too and its
# counts kept (upstream.out; docs/faults.md), not compared: it crashes at
# some of them. The devinfo sweep covers discovery over netlink, the
# loader, Debian's rxe provider in our library, and every query.
ALLOC_CLEAN=(--has 'ours:^crashed: 0$' --has 'ours:^hung: 0$' --has 'upstream:^crashed: [0-9]+$' --has 'upstream:^hung: [0-9]+$')
differs alloc_fail_ibv_devinfo_v --timeout 3000 "${ALLOC_CLEAN[@]}" 'abi-tests/vm-progs/alloc-sweep -- ibv_devinfo -v'
differs alloc_fail_rc_pingpong --long "a client run per allocation, with a server each time" --timeout 7200 "${ALLOC_CLEAN[@]}" \
  'abi-tests/vm-progs/alloc-sweep --timeout 60 --server "ibv_rc_pingpong -d rxe0 -g 1 -n 5" --ready-tcp 18515 -- ibv_rc_pingpong -d rxe0 -g 1 -n 5 10.0.2.15'
differs alloc_fail_rping --long "a client run per allocation, with a server each time" --timeout 7200 "${ALLOC_CLEAN[@]}" \
  'abi-tests/vm-progs/alloc-sweep --timeout 60 --server "rping -s -a 10.0.2.15 -C 3" --ready-cm 7174 -- rping -c -a 10.0.2.15 -C 3'
differs alloc_fail_rstream --long "a client run per allocation, with a server each time" --timeout 7200 "${ALLOC_CLEAN[@]}" \
  'abi-tests/vm-progs/alloc-sweep --timeout 60 --server "rstream -b 10.0.2.15 -S 4096 -C 20" --ready-cm 7471 -- rstream -s 10.0.2.15 -S 4096 -C 20'
# rdma_client: rdma_getaddrinfo, rdma_create_ep (its PD, CQs and QP),
# rdma_connect and one message each way.
differs alloc_fail_rdma_client --long "a client run per allocation, with a server each time" --timeout 7200 "${ALLOC_CLEAN[@]}" \
  'abi-tests/vm-progs/alloc-sweep --timeout 60 --server "rdma_server" --ready-cm 7471 -- rdma_client -s 10.0.2.15'

# ---- resource limits -----------------------------------------------------
# A small RLIMIT_MEMLOCK against ibv_reg_mr, and a descriptor table used up
# against ibv_open_device, ibv_create_comp_channel, rdma_create_event_channel
# and rsocket(): the same errno as Debian's, each working again once the
# limit is lifted, no descriptor leaked, the device usable afterwards (see
# abi-tests/vm-progs/rs_limits.c). Run without CAP_IPC_LOCK, which would
# lift the memlock limit for root.
compare resource_limits 'setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock abi-tests/vm-progs/run-c-probe rs_limits rxe0'
# Objects until the kernel refuses one: rxe's maxima (about a million CQs,
# QPs and PDs) are past what the VM's memory holds, so the rdma cgroup
# controller sets the limit (4 device contexts, 40 objects on rxe0; see
# abi-tests/vm-progs/rdma-cgroup). Contexts, CQs, QPs, MRs and AHs: the
# count and errno of the refusal, every object freed, one created again,
# no descriptor or mapping left behind (abi-tests/vm-progs/exhaust.c).
compare object_exhaustion --timeout 300 'abi-tests/vm-progs/rdma-cgroup 4 40 abi-tests/vm-progs/run-c-probe exhaust'

# ---- signals ---------------------------------------------------------------
# A SIGALRM every millisecond, aimed at the thread that waits in
# rdma_get_cm_event, ibv_get_cq_event, raccept, rpoll and rrecv (and, under
# librspreload, accept, poll and recv), with the handler installed
# without SA_RESTART and with it: whether each wait returned EINTR must be
# as with Debian's libraries, and nothing may be lost (the CM event arrives,
# all 256 KiB arrive in order). See abi-tests/vm-progs/rs_signals.c.
# Without SA_RESTART, Debian's librdmacm 44 loses the rsockets connection
# under the signals (its raccept never returns, and the program's watchdog
# ends it after 30 s: "stuck in raccept"); its result is recorded, not
# compared. Ours must deliver everything.
differs signals_no_restart --timeout 180 --rc upstream:any \
  --has 'upstream:^rdma_get_cm_event: interrupted, then RDMA_CM_EVENT_ADDR_RESOLVED$' \
  --has 'ours:^rdma_get_cm_event: interrupted, then RDMA_CM_EVENT_ADDR_RESOLVED$' \
  --has 'ours:^ibv_get_cq_event: interrupted, then the event; the datagram received intact$' \
  --has 'ours:^raccept: interrupted, then a connection$' --has 'ours:^rpoll: interrupted, then input ready$' \
  --has 'ours:^rrecv: interrupted; 262144 of 262144 bytes, all in order$' \
  'abi-tests/vm-progs/run-c-probe rs_signals 10.0.2.15 7480'
compare signals_restart --long "the same with SA_RESTART" --timeout 180 'abi-tests/vm-progs/run-c-probe rs_signals 10.0.2.15 7481 restart'
# The same waits in a program that uses the socket calls, under each
# librspreload (on its own librdmacm: rspreload-run --cm ours): accept,
# poll and recv. Through its preload, Debian's library keeps the connection
# (its listen, unlike rlisten called directly, gets through), and the two
# print the same.
compare preload_signals_no_restart --long "the preload's waits under signals; the CI tier has the rsockets ones" --timeout 180 \
  'abi-tests/vm-progs/rspreload-run --cm ours rs_signals 10.0.2.15 7482 sockets'
compare preload_signals_restart --long "the preload's waits under signals; the CI tier has the rsockets ones" --timeout 180 \
  'abi-tests/vm-progs/rspreload-run --cm ours rs_signals 10.0.2.15 7483 restart sockets'

# ---- a hostile rsockets peer -----------------------------------------------
# rs_hostile speaks the rsockets protocol with plain verbs and sends an
# ordinary rsockets client (rs_victim, under valgrind) what a broken or
# hostile peer might; see abi-tests/vm-progs/hostile-peer. A data message
# announcing more bytes than the receive buffer holds: ours ends the
# connection with ECONNRESET after the good data, with no memory error
# (Debian's copies past its buffer; its result is recorded, not compared).
differs hostile_peer_oversize --timeout 300 --has 'ours:^client: read 5 bytes: hello$' \
  --has 'ours:^client: reads ended: ECONNRESET$' --has 'ours:^client: exit 0$' --lacks 'ours:^valgrind:' \
  --has 'upstream:^client: connected$' 'abi-tests/vm-progs/hostile-peer oversize 7490'
# Messages the protocol allows or ignores, in hostile numbers or order:
# every zero-length message the credits allow, unknown control codes and
# reserved opcodes, a SHUTDOWN inside the stream, data after a DISCONNECT.
# The client must see what Debian's sees.
compare hostile_peer_zeros --long "a hostile peer's other cases, under valgrind" --timeout 300 'abi-tests/vm-progs/hostile-peer zeros 7491'
compare hostile_peer_garbage --long "a hostile peer's other cases, under valgrind" --timeout 300 'abi-tests/vm-progs/hostile-peer garbage 7492'
compare hostile_peer_shutdown --long "a hostile peer's other cases, under valgrind" --timeout 300 'abi-tests/vm-progs/hostile-peer shutdown 7493'
compare hostile_peer_disconnect --long "a hostile peer's other cases, under valgrind" --timeout 300 'abi-tests/vm-progs/hostile-peer disconnect 7494'

# Proof that the "ours" runs really use our libibverbs.so.1, which loads
# Debian's C provider for rxe and serves its IBVERBS_PRIVATE_34 calls; and
# that the data-path entry points of rxe0's context (post_send, poll_cq,
# ibv_wr_*, the extended CQ's polling) are the provider's code (--ops). In
# provider mode: that our rxe provider is loaded and bound to the libibverbs
# of the run, and rxe0's entry points are ours. Debian's librxe is then
# loaded too, unused (libibverbs loads every provider of /etc/libibverbs.d
# after those of RDMAV_DRIVERS, which register first and match rxe0 first).
loaded loads_ours_and_rxe_provider --ours libibverbs.so.1 --ops rxe0 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so 'ibv_devinfo -d rxe0'
# The same with Debian's C providers for rxe and siw left out of
# /etc/libibverbs.d (in a private mount namespace, see provider-alone) when
# ours are selected: our rxe provider alone, and Debian's librxe not even
# loaded (--alone). Outside provider mode the wrapper changes nothing, so
# only the full tier runs it (40 s, most of it the trace of the wrapper).
loaded rxe_provider_alone --long "meaningful with our providers; the full tier runs it" --ours libibverbs.so.1 --ops rxe0 --alone \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so \
  'abi-tests/vm-progs/provider-alone rxe,siw ibv_devinfo -d rxe0'

# ---- data path: the example programs ----------------------------------
# Each pair runs server and client with Debian's libraries (the reference),
# then ours:ours, ours:upstream and upstream:ours; all must print the same.
# Values that change from run to run: queue pair numbers, packet sequence
# numbers, timings.
PINGPONG_FILTER='s/QPN 0x[0-9a-f]*/QPN <n>/g; s/PSN 0x[0-9a-f]*/PSN <n>/g; s/ in [0-9.]* seconds = [0-9.]* [a-zA-Z/]*/ in <t> seconds = <rate>/'
pair ibv_rc_pingpong --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_rc_pingpong -d rxe0 -g 1' 'ibv_rc_pingpong -d rxe0 -g 1 10.0.2.15'
# -e: sleep on completion events (completion channel, req_notify, get/ack_cq_event)
pair ibv_rc_pingpong_e --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_rc_pingpong -d rxe0 -g 1 -e' 'ibv_rc_pingpong -d rxe0 -g 1 -e 10.0.2.15'
pair ibv_rc_pingpong_s4096_n500 --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_rc_pingpong -d rxe0 -g 1 -s 4096 -n 500' 'ibv_rc_pingpong -d rxe0 -g 1 -s 4096 -n 500 10.0.2.15'
# -N: the ibv_wr_* send API through ibv_qp_ex; -c: every received buffer is checked
pair ibv_rc_pingpong_new_send_check --mixed "one library's ibv_wr_* sends, checked byte for byte by the other's receives" --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_rc_pingpong -d rxe0 -g 1 -N -c' 'ibv_rc_pingpong -d rxe0 -g 1 -N -c 10.0.2.15'
# -t: rxe has no completion timestamps (completion_timestamp_mask 0 in
# ibv_query_device_ex), so upstream refuses before any connection is made,
# on both sides: "The device isn't completion timestamp capable", exit 1.
compare ibv_rc_pingpong_t_server 'ibv_rc_pingpong -d rxe0 -g 1 -t'
compare ibv_rc_pingpong_t_client 'ibv_rc_pingpong -d rxe0 -g 1 -t 10.0.2.15'
# The other optional features rxe0 lacks on this kernel, each checked with
# ibv_query_device_ex before anything is set up: on-demand paging (-o),
# implicit ODP (-O) and device memory (-j).
compare ibv_rc_pingpong_odp_client 'ibv_rc_pingpong -d rxe0 -g 1 -o 10.0.2.15'
compare ibv_rc_pingpong_iodp_client 'ibv_rc_pingpong -d rxe0 -g 1 -O 10.0.2.15'
compare ibv_rc_pingpong_dm_client 'ibv_rc_pingpong -d rxe0 -g 1 -j 10.0.2.15'
pair ibv_uc_pingpong --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_uc_pingpong -d rxe0 -g 1' 'ibv_uc_pingpong -d rxe0 -g 1 10.0.2.15'
pair ibv_ud_pingpong --mixed "address handles one library builds for the other's QPN and GID" --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_ud_pingpong -d rxe0 -g 1' 'ibv_ud_pingpong -d rxe0 -g 1 10.0.2.15'
# -g 0: the port's link-local GID (fe80::, from eth0's MAC) instead of the
# IPv4-mapped one: the destination MAC comes from the GID itself.
pair ibv_rc_pingpong_gid0 --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_rc_pingpong -d rxe0 -g 0 -n 200' 'ibv_rc_pingpong -d rxe0 -g 0 -n 200 10.0.2.15'
pair ibv_ud_pingpong_gid0 --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_ud_pingpong -d rxe0 -g 0 -n 200' 'ibv_ud_pingpong -d rxe0 -g 0 -n 200 10.0.2.15'
pair ibv_srq_pingpong_q4 --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_srq_pingpong -d rxe0 -g 1 -q 4' 'ibv_srq_pingpong -d rxe0 -g 1 -q 4 10.0.2.15'
# rxe has no XRC: ibv_open_xrcd fails with EOPNOTSUPP and upstream prints
# "Couldn't Open the XRC Domain 95", exit 1, on both sides before connecting.
compare ibv_xsrq_pingpong_server 'ibv_xsrq_pingpong -d rxe0 -g 1'
compare ibv_xsrq_pingpong_client 'ibv_xsrq_pingpong -d rxe0 -g 1 10.0.2.15'
# The port events of taking eth0 down and up: IBV_EVENT_PORT_ERR, then
# IBV_EVENT_PORT_ACTIVE (see the script; it leaves rxe0 ACTIVE again).
compare ibv_asyncwatch_link_flap --timeout 90 'abi-tests/vm-progs/asyncwatch-flap eth0 rxe0'

# ---- perftest --------------------------------------------------------------
# RoCE needs a GID: -x 1 is rxe0's RoCE v2 GID ::ffff:10.0.2.15. The check is
# success and the shape of the output: the figures are filtered out, and so
# are the addresses and keys the kernel or ASLR hand out. The latency tests
# estimate the CPU clock and print a "Correlation coefficient r^2: ... < 0.9"
# warning when the estimate is noisy, which under emulation is a matter of luck.
# The bandwidth tests then also refuse to print their report ("Can't produce a
# report", exit 1) unless given -F (--CPU-freq), so they all get -F: it only
# lets the report through (its figures are filtered out anyway). Seen in CI on
# 2026-11-27 (6e0e421): Debian's ib_send_bw -R server, r^2 0.797.
PERFTEST_FILTER='s/QPN 0x[0-9a-f]*/QPN <n>/g; s/PSN 0x[0-9a-f]*/PSN <n>/g; s/RKey 0x[0-9a-f]*/RKey <n>/g; s/VAddr 0x[0-9a-f]*/VAddr <n>/g; s/^\( [0-9]\+ \+[0-9]\+\) .*/\1 <figures>/; /^Correlation coefficient r^2: [0-9.]* < 0\.9$/d'
pair ib_send_bw --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_bw -F -d rxe0 -x 1' 'ib_send_bw -F -d rxe0 -x 1 10.0.2.15'
# (-n 1000: its default of 5000 iterations is five times the others')
pair ib_write_bw --mixed "RDMA writes into memory the other library registered, with the key and address it sent" --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_write_bw -F -d rxe0 -x 1 -n 1000' 'ib_write_bw -F -d rxe0 -x 1 -n 1000 10.0.2.15'
pair ib_read_bw --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_read_bw -F -d rxe0 -x 1' 'ib_read_bw -F -d rxe0 -x 1 10.0.2.15'
pair ib_atomic_bw --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_atomic_bw -F -d rxe0 -x 1' 'ib_atomic_bw -F -d rxe0 -x 1 10.0.2.15'
pair ib_send_lat --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_lat -d rxe0 -x 1' 'ib_send_lat -d rxe0 -x 1 10.0.2.15'
pair ib_write_lat --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_write_lat -d rxe0 -x 1' 'ib_write_lat -d rxe0 -x 1 10.0.2.15'
pair ib_read_lat --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_read_lat -d rxe0 -x 1' 'ib_read_lat -d rxe0 -x 1 10.0.2.15'
# Other data-path shapes, each in all four pairings:
# - four QPs, each with its own MR (-q 4 --mr_per_qp);
# - completion events instead of polling (-e: a completion channel,
#   ibv_req_notify_cq and ibv_get_cq_event for every wait);
# - a shared receive queue (--use-srq: ibv_create_srq, ibv_post_srq_recv);
# - UC sends, UD send latency, and atomic latency.
# (On rxe perftest 4.5 posts with ibv_post_send, not the ibv_wr_* API, and
# uses no inline data, with either library: its header says so.)
pair ib_write_bw_q4_mr_per_qp --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_write_bw -F -d rxe0 -x 1 -n 500 -q 4 --mr_per_qp' 'ib_write_bw -F -d rxe0 -x 1 -n 500 -q 4 --mr_per_qp 10.0.2.15'
pair ib_send_bw_events --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_bw -F -d rxe0 -x 1 -n 500 -e' 'ib_send_bw -F -d rxe0 -x 1 -n 500 -e 10.0.2.15'
pair ib_send_bw_srq --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_bw -F -d rxe0 -x 1 -n 500 --use-srq' 'ib_send_bw -F -d rxe0 -x 1 -n 500 --use-srq 10.0.2.15'
pair ib_send_bw_uc --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_bw -F -d rxe0 -x 1 -n 500 -c UC' 'ib_send_bw -F -d rxe0 -x 1 -n 500 -c UC 10.0.2.15'
pair ib_send_lat_ud --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_lat -d rxe0 -x 1 -n 500 -c UD' 'ib_send_lat -d rxe0 -x 1 -n 500 -c UD 10.0.2.15'
pair ib_atomic_lat --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_atomic_lat -d rxe0 -x 1 -n 500' 'ib_atomic_lat -d rxe0 -x 1 -n 500 10.0.2.15'
# -R: the QPs are connected through the RDMA CM instead of perftest's TCP
# exchange, so librdmacm's route (RoCE v2 GID, GRH) and its QP transitions
# set up the data path. -c UD: the UD QPs get their address handles from the
# CM's UD event parameters (ah_attr converted from the kernel's).
# perftest 4.5 has a race of its own in -R. After the handshake on its
# control connection, the server only then creates, binds and listens on the
# id for the test QPs, while the client connects at once. A client that comes
# first is refused (RC: REJECTED with reason 8, invalid service ID; UD: SIDR
# status 1, no listener; iWARP: rdma_connect fails with ECONNREFUSED), and
# its retry path then crashes (139) or hangs. Under strace, or with the
# server's second rdma_listen delayed by a preload shim, both libraries lose
# it every time. Without them, in VM loops (server ours or Debian's, client
# Debian's): UD 7 of 94 with our server, 0 of 93 with Debian's (2026-11-27);
# RC ib_write_lat 2 of 60 with ours, 0 of 60 with Debian's (2026-11-27), and
# the CI run of 84c57f1 lost it once. The syscalls in the window are the same
# with either library; the time is not, under qemu's TCG: our server's first
# rdma_getaddrinfo runs about 420 more instructions that the process has not
# run before, and qemu translating them costs it 0.5-0.9 ms more
# (docs/benchmarks.md, cm-firstcall; under instruction counting the
# call takes 3 us against 2). So a lost run is run again (--race, up to 3
# tries, each reported), whichever library lost it.
PERFTEST_RACE_RC='^Event: RDMA_CM_EVENT_REJECTED; error: 8\.$'
PERFTEST_RACE_UD='^Event: RDMA_CM_EVENT_UNREACHABLE; error: 1\.$'
PERFTEST_RACE_IW='^ERRNO: Connection refused\.$'
pair ib_send_bw_rdma_cm --mixed "QPs connected by the two librdmacms' own CM exchange" --race "$PERFTEST_RACE_RC" --ready 'cm_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_bw -F -d rxe0 -R' 'ib_send_bw -F -d rxe0 -R 10.0.2.15'
pair ib_send_bw_ud_rdma_cm --race "$PERFTEST_RACE_UD" --ready 'cm_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_bw -F -d rxe0 -c UD -R' 'ib_send_bw -F -d rxe0 -c UD -R 10.0.2.15'
pair ib_write_lat_rdma_cm --race "$PERFTEST_RACE_RC" --ready 'cm_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_write_lat -d rxe0 -R' 'ib_write_lat -d rxe0 -R 10.0.2.15'
pair ib_read_bw_rdma_cm --race "$PERFTEST_RACE_RC" --ready 'cm_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_read_bw -F -d rxe0 -R' 'ib_read_bw -F -d rxe0 -R 10.0.2.15'

# ---- librdmacm: the example programs -------------------------------------
# Each pair: Debian's librdmacm and libibverbs on both sides (the reference),
# then ours:ours, ours:upstream and upstream:ours. None of these programs
# prints a QPN, GID, port or handle; only rping's and cmtime's output needs a
# filter.
# rping's own teardown race: main() destroys the CM event channel while its
# cm_thread may still loop back into rdma_get_cm_event, which then fails with
# EBADF, and the thread ends the process after all pings were done
# ("rdma_get_cm_event: Bad file descriptor" on that side's stderr; the
# client then exits 255). Seen in provider mode with Debian's libraries and
# our providers, on siw0 (once on the client, once on the server) and on
# rxe0 (the client); the race is between two threads of rping, so every
# rping pair runs a lost try again.
RPING_RACE='^rdma_get_cm_event: Bad file descriptor$'
# rping's client prints its DISCONNECT event only if its CM thread sees it
# before main() returns: a race in rping itself.
pair rping --race "$RPING_RACE" --mixed "the CM handshake and private data between the two librdmacms, and RDMA reads and writes of the buffers each advertises" --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  'rping -s -a 10.0.2.15 -C 10 -v' 'rping -c -a 10.0.2.15 -C 10 -v'
# A persistent server (-P: a thread per connection, it never exits) serving
# two clients one after the other: cm-serve stops it once cm-clients has run
# both and the server has torn both connections down (see the scripts). The
# server prints "server DISCONNECT EVENT..." and "wait for RDMA_READ_ADV state
# 10" (DISCONNECTED) once per client.
pair rping_persistent --race "$RPING_RACE" --timeout 120 --ready 'cm_listening 7174' \
  --filter '/^client DISCONNECT EVENT/d' \
  'abi-tests/vm-progs/cm-serve rping_p rping -s -P -a 10.0.2.15 -C 10 -v' \
  'abi-tests/vm-progs/cm-clients rping_p 2 rping -c -a 10.0.2.15 -C 10 -v'
# -q: both sides create their QP themselves with ibv_create_qp (the id has
# no QP of librdmacm's) and move it through INIT, RTR and RTS with the
# attributes rdma_init_qp_attr gives: the server before rdma_accept, the
# client on RDMA_CM_EVENT_CONNECT_RESPONSE, then rdma_establish; each moves
# it to ERR by hand before rdma_disconnect. -V checks every ping's data,
# -S 1000 sizes it; the client binds its source address first (-I).
pair rping_own_qp --race "$RPING_RACE" --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  'rping -s -q -V -S 1000 -a 10.0.2.15 -C 10' 'rping -c -q -V -S 1000 -I 10.0.2.15 -a 10.0.2.15 -C 10'
# ucmatose: RC connections through rdma_getaddrinfo, data both ways, then
# disconnect; once with one connection, once with ten at the same time.
pair ucmatose --ready 'cm_listening 7471' \
  'ucmatose' 'ucmatose -s 10.0.2.15'
pair ucmatose_c10 --timeout 120 --ready 'cm_listening 7471' \
  'ucmatose -c 10' 'ucmatose -s 10.0.2.15 -c 10'
# -m: each connected id is moved to a new event channel (rdma_migrate_id)
# before the disconnect events arrive on it. -t / -a: rdma_set_option TOS
# and ACK_TIMEOUT on every id before it connects.
pair ucmatose_migrate --timeout 120 --ready 'cm_listening 7471' \
  'ucmatose -m -c 4' 'ucmatose -s 10.0.2.15 -m -c 4'
pair ucmatose_tos_ack_timeout --timeout 120 --ready 'cm_listening 7471' \
  'ucmatose -t 32 -a 16' 'ucmatose -s 10.0.2.15 -t 32 -a 16'
# udaddy: UDP port space, UD QPs, address handles from the CM's UD params.
pair udaddy --mixed "the UD parameters (QPN, Q_Key, address handle) one librdmacm hands the other" --ready 'cm_listening 7174' \
  'udaddy' 'udaddy -s 10.0.2.15'
# mckey: both join 239.1.1.1 (RoCE: mlid 0x0, dgid ::ffff:239.1.1.1); the
# receiver (the "server") posts its receives before it joins, the sender
# waits 3 s after its own join before it sends 10 messages. Ready once the
# receiver's UDP id has resolved the group address. Each pairing takes about
# 55 s, with either library: after the leave, the sender's next verbs ioctl
# but one (by mckey's order of calls, its QP's destroy) blocks for about 50 s
# in the kernel (strace -T in the VM, Debian's libraries, 2026-11-27).
pair mckey --ready 'mckey_resolved 239.1.1.1' \
  'mckey -m 239.1.1.1 -b 10.0.2.15' 'mckey -m 239.1.1.1 -b 10.0.2.15 -s'
# udaddy in the IPoIB port space (-p 0x2) instead of UDP: on a RoCE device
# the kernel fails the address resolution (RDMA_CM_EVENT_ADDR_ERROR, status
# -22) with either library, before any server is reached; the client exits
# with -22 as a status byte (234).
compare udaddy_ipoib_ps_client --timeout 60 'udaddy -s 10.0.2.15 -p 0x2'
# mckey -o: the sender joins as a send-only full member
# (rdma_join_multicast_ex with RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER), the
# receiver as a full member. -C 0: join, wait, leave, no messages. The data
# path is mckey's above; with messages each pairing would take 55 s more.
pair mckey_sendonly --ready 'mckey_resolved 239.1.1.2' \
  'mckey -m 239.1.1.2 -b 10.0.2.15 -C 0' 'mckey -m 239.1.1.2 -b 10.0.2.15 -s -o -C 0'
# rdma_server / rdma_client: rdma_create_ep, rdma_get_request, the
# rdma_verbs.h inline helpers (post_recv/send, get_recv/send_comp).
pair rdma_server --mixed "rdma_create_ep and rdma_get_request on one side against the other's connect" --ready 'cm_listening 7471' \
  'rdma_server' 'rdma_client -s 10.0.2.15'
# rdma_xserver / rdma_xclient in RC mode (rxe has no XRC): an SRQ created
# through rdma_create_srq.
pair rdma_xserver --ready 'cm_listening 7471' \
  'rdma_xserver' 'rdma_xclient -s 10.0.2.15'
# cmtime: 100 connections set up and torn down step by step. Its server never
# exits (cm-serve stops it) and prints nothing; the client prints the step
# names, then a table of timings, which the filter blanks out (the step names
# and the shape of the table stay).
CMTIME_FILTER='s/^\([a-z][a-z ]*\):\( *[0-9.]\+\)\{4\}$/\1: <timings>/'
pair cmtime_c100 --timeout 300 --ready 'cm_listening 7471' --filter "$CMTIME_FILTER" \
  'abi-tests/vm-progs/cm-serve cmtime cmtime' \
  'abi-tests/vm-progs/cm-clients cmtime 1 cmtime -s 10.0.2.15 -c 100'

# ---- librdmacm: devices, bad input ----------------------------------------
# rdma_getaddrinfo over a table of hints, flags, families, port spaces and
# AF_IB conversions, every field of each result printed (see the top of
# abi-tests/vm-progs/cm_getaddrinfo.c; the one case where upstream reads past
# an address is left out). The _acm variant also plays ibacm on a private
# /run/ibacm.sock and prints each request it gets (the VM's kernel has AF_IB,
# so upstream builds AF_IB results: the acm-afib table).
compare cm_getaddrinfo 'abi-tests/vm-progs/run-c-probe cm_getaddrinfo'
compare cm_getaddrinfo_acm 'unshare -m sh -c "mount -t tmpfs none /run && exec abi-tests/vm-progs/run-c-probe cm_getaddrinfo acm-afib"'
# rdma_bind_addr / rdma_resolve_addr to an address no interface holds
# (EADDRNOTAVAIL) and to one on a netdev without an RDMA device (ENODEV), then
# devices hot-plugged with `rdma link add` while the process runs must be
# found (the library re-syncs its device list on a lookup miss); see the top
# of abi-tests/vm-progs/cm_resync.c. It leaves the VM as it found it.
compare cm_resync --timeout 120 'abi-tests/vm-progs/run-c-probe cm_resync'
# Invalid arguments and calls in the wrong state, one line per case (ret and
# errno); see the top of abi-tests/vm-progs/cm_bad_input.c and
# docs/bad-input.md.
compare cm_bad_input 'abi-tests/vm-progs/run-c-probe cm_bad_input'
# pthread_cancel of threads blocked in ibv_get_cq_event, ibv_get_async_event,
# rdma_get_cm_event, a synchronous rdma_resolve_addr, raccept and rpoll (see
# the top of cm_cancel.c): each thread ends cancelled and the libraries work
# on, as with Debian's. (Ours aborted the process at the third case until
# the waits became cancellation points outside the panic guard: see
# ffi::cancellable in rdma-util/src/ffi.rs.)
compare cm_cancel --timeout 120 'abi-tests/vm-progs/run-c-probe cm_cancel'
# The inputs on which Debian's librdmacm crashes: each case must crash it (in a
# child process) and must get a clear error (EINVAL) from ours.
compare cm_bad_input_crashes 'abi-tests/vm-progs/run-c-probe cm_bad_input_crashes'

# The IBVERBS_1.0 interface end to end: 1.0 PD/MR/CQ/QPs, the 1.0 modify and
# query verbs, and an RC loopback send/recv through the 1.0 context's ops.
compare compat10_probe 'abi-tests/vm-progs/run-c-probe compat10_probe'

# ---- fork safety -------------------------------------------------------
# An MR on rxe0, a fork, the child writing to its own copy of the buffer, and
# the parent's RDMA WRITE and SEND/RECV on that MR afterwards: the bytes must
# be the parent's. With RDMAV_FORK_SAFE=1 the MR's pages are MADV_DONTFORK
# (the child does not inherit them); without it the kernel's copy-on-fork of
# pinned pages keeps the parent right. Also ibv_is_fork_initialized().
compare fork_traffic_fork_safe 'env RDMAV_FORK_SAFE=1 abi-tests/vm-progs/run-c-probe fork_traffic'
compare fork_traffic_plain 'abi-tests/vm-progs/run-c-probe fork_traffic'

# ---- pyverbs ------------------------------------------------------------
# Debian's python3-pyverbs lists rxe0, opens it and queries device (plain and
# extended), port 1, P_Key and GIDs, and makes a PD, CQ and RC QP: the same
# output on our libraries. The loaded check proves the ours run used our
# libibverbs and librdmacm (pyverbs.cmid) with Debian's rxe provider.
compare pyverbs_rxe0 'abi-tests/vm-progs/pyverbs_query.py'
loaded pyverbs_loads_ours --ours libibverbs.so.1 --ours librdmacm.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so 'abi-tests/vm-progs/pyverbs_query.py'
# LAST on purpose: deletes rxe0 and adds it back (with a new device index).
# A process started while the machine has no RDMA device (the library's first
# init fails with ENODEV) finds rxe0 once it is added; see cm_resync.c.
compare cm_resync_no_device_at_start --timeout 120 \
  'abi-tests/vm-progs/run-c-probe cm_resync nodev'
# Device removal under use: rxe0 deleted while a process holds an rdma_cm id
# bound to it, a QP, a PD and a second verbs context. The deletion waits
# (rxe cannot take a device from a process); the process gets
# RDMA_CM_EVENT_DEVICE_REMOVAL, destroys and closes everything, then finds
# rxe0 again once it is added back, without restarting. With and without
# RDMAV_ALLOW_DISASSOC_DESTROY. Also deletes and re-adds rxe0; see
# cm_removal.c.
compare cm_device_removal --timeout 180 'abi-tests/vm-progs/run-c-probe cm_removal'
compare cm_device_removal_disassoc --long "the same with RDMAV_ALLOW_DISASSOC_DESTROY" --timeout 180 'env RDMAV_ALLOW_DISASSOC_DESTROY=1 abi-tests/vm-progs/run-c-probe cm_removal'
# The same under traffic (abi-tests/vm-progs/removal-traffic): rxe0 deleted
# while a pair moves data, or eth0 down for 3 s and up again; how each
# program ends (exit, error exit, signal, hang) and whether it reports the
# removal or a failed completion must be as with Debian's libraries. The
# rdma_cm programs learn of the removal; the verbs-only ones are not told
# (the deletion waits until they end), and lose their connection when the
# netdev goes down.
compare removal_rping --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 'abi-tests/vm-progs/removal-traffic "rping -s -a 10.0.2.15 -C 1000000" -- rping -c -a 10.0.2.15 -C 1000000'
compare removal_rstream --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 'abi-tests/vm-progs/removal-traffic "rstream -b 10.0.2.15 -S 65536 -C 1000000" -- rstream -s 10.0.2.15 -S 65536 -C 1000000'
compare removal_ib_write_bw --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 'abi-tests/vm-progs/removal-traffic "ib_write_bw -d rxe0 -x 1 -D 8" -- ib_write_bw -d rxe0 -x 1 -D 8 10.0.2.15'
compare flap_rc_pingpong --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 'abi-tests/vm-progs/removal-traffic --flap "ibv_rc_pingpong -d rxe0 -g 1 -n 1000000" -- ibv_rc_pingpong -d rxe0 -g 1 -n 1000000 10.0.2.15'
compare flap_rping --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 'abi-tests/vm-progs/removal-traffic --flap "rping -s -a 10.0.2.15 -C 1000000" -- rping -c -a 10.0.2.15 -C 1000000'
compare removal_rc_pingpong --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 'abi-tests/vm-progs/removal-traffic "ibv_rc_pingpong -d rxe0 -g 1 -n 1000000" -- ibv_rc_pingpong -d rxe0 -g 1 -n 1000000 10.0.2.15'
compare flap_ib_write_bw --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 'abi-tests/vm-progs/removal-traffic --flap "ib_write_bw -d rxe0 -x 1 -D 8" -- ib_write_bw -d rxe0 -x 1 -D 8 10.0.2.15'
compare flap_rstream --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 'abi-tests/vm-progs/removal-traffic --flap "rstream -b 10.0.2.15 -S 65536 -C 1000000" -- rstream -s 10.0.2.15 -S 65536 -C 1000000'

# ---- librspreload ----
# tcp_xfer (abi-tests/vm-progs/tcp_xfer.c) is an ordinary TCP program: 64 MiB
# from client to server in writes and reads of odd sizes, every byte checked,
# checksums compared both ways. rspreload-run (see its top) preloads Debian's
# librspreload in the "upstream" variant and ours in the "ours" variant, so
# the reference is Debian's preload on both sides, ours:ours is ours on both,
# and the mixed pairs one of each. With --cm debian (the default) both
# variants use Debian's librdmacm for the rsockets: only the preload differs.
# The client side also proves where the bytes went: the server's port is an
# RDMA CM listener and no kernel TCP socket, rxe0 sent at least 16384 packets
# during the transfer, and the kernel sent fewer than 100 TCP segments.
pair rspreload_tcp_xfer --mixed "Debian's preload on one side and ours on the other, on one rsockets connection" --timeout 300 --ready 'cm_listening 7777' \
  'abi-tests/vm-progs/rspreload-run tcp_xfer server 7777' \
  'abi-tests/vm-progs/rspreload-run --expect rdma --port 7777 tcp_xfer client 10.0.2.15 7777'
# preload_config selecting the program by a prefix of its name (the compiled
# tcp_xfer runs as /tmp/tcp_xfer.XXXXXX), with lower-case words: rsockets.
pair rspreload_config_selects --timeout 300 --ready 'cm_listening 7777' \
  "abi-tests/vm-progs/rspreload-run --config 'tcp_x inet stream tcp' tcp_xfer server 7777" \
  "abi-tests/vm-progs/rspreload-run --config 'tcp_x inet stream tcp' --expect rdma --port 7777 tcp_xfer client 10.0.2.15 7777"
# Fallbacks. preload_config naming other programs and other socket types
# (and a comment, and a line with an unknown word): tcp_xfer keeps kernel
# TCP sockets on both sides.
pair rspreload_config_excludes --timeout 300 --ready 'tcp_listening 7778' \
  "abi-tests/vm-progs/rspreload-run --config \$'# only these\nrstream * * *\n* INET DGRAM UDP\ntcp_xfer INET STREAM SCTP' tcp_xfer server 7778" \
  "abi-tests/vm-progs/rspreload-run --config \$'# only these\nrstream * * *\n* INET DGRAM UDP\ntcp_xfer INET STREAM SCTP' --expect tcp --port 7778 tcp_xfer client 10.0.2.15 7778"
# UNIX stream sockets: rsocket() refuses AF_UNIX and the preload falls back
# to the C library's socket; two independent runs (64 MiB and 8 MiB), each a
# receiver and a forked sender, as "server" and "client".
pair rspreload_unix_fallback --timeout 300 --ready 'true' \
  'abi-tests/vm-progs/rspreload-run tcp_xfer unix 64' \
  'abi-tests/vm-progs/rspreload-run tcp_xfer unix 8'
# The connect-time fallback: a plain kernel TCP server (no preload in either
# variant); the preloaded client's rsocket connect is refused (no RDMA CM
# listener on the port), so the preload swaps in a kernel TCP socket, with
# the options set so far, and connects that.
pair rspreload_connect_fallback --timeout 300 --ready 'tcp_listening 7780' \
  'abi-tests/vm-progs/rspreload-run --no-preload tcp_xfer server 7780' \
  'abi-tests/vm-progs/rspreload-run --expect tcp --port 7780 tcp_xfer client 10.0.2.15 7780'
# The same transfer on OUR librdmacm (ours:ours = our preload and our
# rsockets; the mixed pairs talk to Debian's preload on Debian's librdmacm).
pair rspreload_tcp_xfer_ours_cm --timeout 300 \
  --ready 'cm_listening 7777' \
  'abi-tests/vm-progs/rspreload-run --cm ours tcp_xfer server 7777' \
  'abi-tests/vm-progs/rspreload-run --cm ours --expect rdma --port 7777 tcp_xfer client 10.0.2.15 7777'
# The connect-time fallback on OUR librdmacm: the preload sizes the kernel
# socket it swaps in with rgetsockname(fd, NULL, &len) (len 0), which must
# answer with the length alone, as upstream's does.
pair rspreload_connect_fallback_ours_cm --timeout 300 --ready 'tcp_listening 7784' \
  'abi-tests/vm-progs/rspreload-run --no-preload tcp_xfer server 7784' \
  'abi-tests/vm-progs/rspreload-run --cm ours --expect tcp --port 7784 tcp_xfer client 10.0.2.15 7784'
# RDMAV_FORK_SAFE=1: the fork-support mode. Both sides start on kernel TCP
# (the server's port is a TCP listener); at the first read/write the accepted
# side opens an rsocket listener on the same port and says so with a 4-byte
# zero, the connecting side connects an rsocket to it, and the 64 MiB go
# over rxe0 with only the handshake on TCP.
pair rspreload_fork_support --timeout 300 --ready 'tcp_listening 7779' \
  'env RDMAV_FORK_SAFE=1 abi-tests/vm-progs/rspreload-run tcp_xfer server 7779' \
  'env RDMAV_FORK_SAFE=1 abi-tests/vm-progs/rspreload-run --expect fork --port 7779 tcp_xfer client 10.0.2.15 7779'
# Which socket() calls become rsockets, under 20 preload_config contents,
# program names and RS_SQ_SIZE / RS_RQ_SIZE / RS_INLINE values (read back
# with getsockopt(SOL_RDMA)); see abi-tests/vm-progs/rspreload_config_probe.c.
# A single program, run as a pair's "server" (against `true`) because a pair
# demands that the reference run, Debian's preload, exits 0.
pair rspreload_config_probe --timeout 300 --ready 'true' \
  'abi-tests/vm-progs/rspreload-run rspreload_config_probe' 'true'

# epoll under the preload (beyond upstream 44, whose librspreload leaves
# epoll to the C library: epoll_ctl on its placeholder descriptors fails).
# epoll_xfer (abi-tests/vm-progs/epoll_xfer.c) is an epoll event loop over
# nonblocking sockets: the server watches the listening socket, then the
# connection, plus an eventfd (a kernel descriptor in the same instance,
# signalled every 4 MiB); the client writes on EPOLLOUT and reads the
# receiver's report on EPOLLIN (with epoll_pwait). Every byte is checked.
# Both variants preload OUR librspreload (--preload ours): the reference
# runs it on Debian's librdmacm, ours:ours on ours, and the mixed pairs one
# of each. lt: one read or write per report (level-triggered: reports must
# repeat while data remains); et: EPOLLET, drained until EAGAIN; oneshot:
# EPOLLONESHOT, re-armed with EPOLL_CTL_MOD. The lt run also proves the
# bytes went over rxe0 (see rspreload-run --expect).
pair rspreload_epoll_lt --timeout 300 --ready 'cm_listening 7781' \
  'abi-tests/vm-progs/rspreload-run --preload ours --cm ours epoll_xfer server 7781 lt' \
  'abi-tests/vm-progs/rspreload-run --preload ours --cm ours --expect rdma --port 7781 epoll_xfer client 10.0.2.15 7781 lt'
pair rspreload_epoll_et --timeout 300 --ready 'cm_listening 7782' \
  'abi-tests/vm-progs/rspreload-run --preload ours --cm ours epoll_xfer server 7782 et 16' \
  'abi-tests/vm-progs/rspreload-run --preload ours --cm ours epoll_xfer client 10.0.2.15 7782 et 16'
pair rspreload_epoll_oneshot --timeout 300 --ready 'cm_listening 7783' \
  'abi-tests/vm-progs/rspreload-run --preload ours --cm ours epoll_xfer server 7783 oneshot 16' \
  'abi-tests/vm-progs/rspreload-run --preload ours --cm ours epoll_xfer client 10.0.2.15 7783 oneshot 16'
# An ordinary program under the preload whose threads block in read, recv,
# accept (an rsocket listener: raccept), poll (a pipe; the listener: rpoll),
# select and epoll_wait, and are cancelled (see the top of
# preload_cancel.c): each ends cancelled and the program goes on, as under
# Debian's preload. Ours aborted at accept until the preload made these
# calls outside its panic guard.
compare rspreload_cancel --timeout 120 'abi-tests/vm-progs/rspreload-run --cm ours preload_cancel 10.0.2.15 7484'

# ---- rsockets ----
# rstream over rsockets: Debian's rstream (rdmacm-utils) on both ends, with
# Debian's librdmacm as the reference, then ours:ours, ours:upstream and
# upstream:ours (the wire protocol must interoperate both ways). The server
# listens on an RDMA CM id (port 7471). Only the timing columns (seconds,
# Gb/sec, usec/xfer) are filtered: every result line must still be there,
# and a failed transfer prints an error and exits non-zero. The default run
# (100,000 64-byte round trips first) takes 2-3 minutes per pairing in the
# VM, more under load: hence the long timeout.
RSTREAM_FILTER='s/ *[0-9]\+\.[0-9]\+s *[0-9.]\+ *[0-9.]\+$/ <time> <rate> <usec>/'
pair rstream --timeout 600 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'rstream -b 10.0.2.15' 'rstream -s 10.0.2.15'
# -S all: every size from 64 B to 6 MiB, first as latency tests over one
# connection, then as bandwidth tests over a second one that rstream sets up
# for throughput (RDMA_INLINE 0, larger queues); every line of rstream's
# table (name, bytes, transfers, iterations, total bytes) must match. One
# run takes 7 to 13 minutes in the VM on a 2-CPU host (12.4 on 2026-11-28),
# a third of the CI tier's budget even with ours on both sides only: the full tier runs it in
# all four pairings, and the CI tier covers stream rsockets with the shorter
# scenarios around it (64-byte round trips and bandwidth, ring buffers that
# wrap, 64 MiB copies, keepalive, faults, siw's message mode).
pair rstream_all --long "7 to 13 minutes a pairing; the full tier runs all four" --timeout 1800 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'rstream -b 10.0.2.15 -S all' 'rstream -s 10.0.2.15 -S all'
# Nonblocking calls (-T n: MSG_DONTWAIT, retried on EAGAIN) with every byte
# verified (-T v), 500 transfers of 60000 bytes (not a multiple of the
# buffer halves, so transfers wrap around the ring buffers).
pair rstream_nonblock_verify --mixed "the rsockets wire protocol (credits, ring buffers that wrap) between the two librdmacms, every byte verified" --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'rstream -b 10.0.2.15 -T n -T v -S 60000 -C 500' 'rstream -s 10.0.2.15 -T n -T v -S 60000 -C 500'
# Asynchronous (-T a): every call waits in rpoll first; verified. Pending
# because Debian's library fails it on its own, intermittently: the server
# sends DISCONNECT right after its last data, and upstream's rpoll reports
# POLLIN|POLLHUP as soon as the DISCONNECT is processed, data still unread;
# rstream stops at any POLLHUP and exits 16. It is the CLIENT's library
# that decides: our rpoll holds the hang-up back until the data is read.
# Seen in three VM runs of that loop (abi-tests/vm-progs/rstream-repeat,
# same arguments, 17 runs per pairing): failures ours:ours 0/17,
# upstream:ours 0/17, ours:upstream 3/17, upstream:upstream 2/17
# (server:client). A scenario needs the reference
# (Debian on both sides) to pass, so this one cannot be relied on.
pair rstream_async_verify --pending "upstream race: Debian's client gets POLLHUP before its last data (see above)" --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'rstream -b 10.0.2.15 -T a -T v -S 10000 -C 2000' 'rstream -s 10.0.2.15 -T a -T v -S 10000 -C 2000'
# -T s: rstream over ordinary TCP sockets, linked to (and loading) our
# librdmacm: nothing of ours may get in the way.
pair rstream_sockets --timeout 180 --ready 'tcp_listening 7471' --filter "$RSTREAM_FILTER" \
  'rstream -b 10.0.2.15 -T s' 'rstream -s 10.0.2.15 -T s'
# rcopy of a 64 MiB random file; the client checks the copy's SHA-256.
# rcopy's server never exits: cm-serve stops it after the client is done.
RCOPY_FILTER='s/\([0-9]* bytes in\) [0-9.]* seconds = [0-9.]* Gb\/sec/\1 <t> seconds = <rate>/'
pair rcopy_64m --timeout 300 --ready 'cm_listening 7427' \
  --filter "$RCOPY_FILTER" \
  'abi-tests/vm-progs/cm-serve rs_rcopy rcopy' \
  'abi-tests/vm-progs/cm-clients rs_rcopy 1 abi-tests/vm-progs/rs_rcopy_check 10.0.2.15'
# riostream: riomap on each side, data placed with riowrite straight into
# the peer's mapping (the iomap table exchanged over the connection),
# verified (-T v); then the default latency and bandwidth runs.
pair riostream_verify --mixed "the iomap exchange, and riowrite into a mapping the other library made" --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'riostream -b 10.0.2.15 -T v -S 60000 -C 100 -I 10' 'riostream -s 10.0.2.15 -T v -S 60000 -C 100 -I 10'
pair riostream --timeout 600 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'riostream -b 10.0.2.15' 'riostream -s 10.0.2.15'
# The rsocket API call by call on one connection to ourselves (see the top
# of rs_api.c): the same return values, errno and data with both libraries.
compare rs_api --timeout 120 'abi-tests/vm-progs/rs_probe rs_api 7480'
# Stream rsockets addressed with AF_IB (see the top of rs_afib.c): creation,
# bind (a short address; the wildcard GID with a service id), the names
# reported, listen, and the connect to rxe0's GID, with the same results as
# Debian's: rxe takes the AF_IB bind and listen, and its RoCE route
# resolution refuses an AF_IB destination (ENODEV) with either library.
compare rs_afib --timeout 120 'abi-tests/vm-progs/rs_probe rs_afib 7482'
# Keepalive (-k 1: SO_KEEPALIVE and TCP_KEEPIDLE 1 s, read back and printed
# by rstream) during a 300 x 100000-byte transfer.
pair rstream_keepalive --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'rstream -b 10.0.2.15 -k 1 -S 100000 -C 300' 'rstream -s 10.0.2.15 -k 1 -S 100000 -C 300'

# ---- datagram rsockets ----
# udpong (rdmacm-utils) over datagram rsockets: the server binds a
# datagram rsocket (and with it a real UDP socket) on port 7174, the client
# logs in, then runs latency and bandwidth tests over UD QPs, the first
# datagrams over UDP until the address handles exist. udpong's server
# never exits: udp-serve stops it once udp-client is done.
#
# Upstream's datagram rsockets cannot get a QP on a RoCE port by
# themselves. Each UD QP gets an address handle for itself made from the
# port's LID alone, with no global route; a RoCE port refuses that
# (ibv_create_ah: EINVAL), the QP is torn down and rconnect fails with the
# errno the teardown left, ENOENT (epoll_ctl DEL of a channel never added;
# seen with strace in the VM). Debian's udpong client prints
# "rconnect: No such file or directory" and exits 255 (udpong_rxe below).
# Ours gives that handle a global route (see "Datagram rsockets on RoCE" in
# docs/architecture.md).
#
# So that ours can still be paired with upstream's datagram rsockets, every
# side of these pairs runs under abi-tests/vm-progs/grh-shim: a preloaded
# ibv_create_ah that gives a handle without a global route on an Ethernet
# port the one ours uses (the own RoCE GID, hop limit 64) and passes
# everything else on. It touches no datagram, header or QPN exchange, and
# with our librdmacm it changes nothing (grh_shim_counts shows both). The
# reference run is then Debian's libraries on both sides, as for every
# pair, and ours must match it in all three other pairings. The client
# runs under rxe-count --min: the datagrams must have gone over rxe0, not
# only over UDP.
# Filter: timing columns everywhere; on the lines of tests without echo
# (bandwidth "_bw" and custom runs) also the transfer and byte counts, which
# are what the server received: datagrams may be dropped, as with UDP.
UDPONG_FILTER='/_lat /s/ *[0-9]\+\.[0-9]\+s *[0-9.]\+ *[0-9.]\+$/ <time> <rate> <usec>/; /_lat /!s/^\([^ ]\+ \+[^ ]\+ \+\)[^ ]\+ \+[^ ]\+ \+[0-9]\+\.[0-9]\+s .*$/\1<xfers> <bytes> <time> <rate> <usec>/'
GRH=abi-tests/vm-progs/grh-shim
# A custom run without echo: 1000-byte datagrams (udpong's default run, 18
# tests and about 1.8 million datagrams, does not fit in the VM; see
# udpong_ours_* below).
pair udpong --timeout 300 --ready 'udp_bound 7174' --filter "$UDPONG_FILTER" \
  "abi-tests/vm-progs/udp-serve udpong $GRH udpong -b 10.0.2.15" \
  "abi-tests/vm-progs/udp-client udpong abi-tests/vm-progs/rxe-count --min 150 $GRH udpong -s 10.0.2.15 -S 1000 -C 200"
# Several sizes, echoed: the smallest udpong allows (16), 512, and 1016, the
# largest payload a 1024-byte RoCE MTU carries with the 8-byte header (a
# larger one is a documented difference: udpong_ours_sizes).
pair udpong_sizes --timeout 300 --ready 'udp_bound 7174' --filter "$UDPONG_FILTER" \
  "abi-tests/vm-progs/udp-serve udpong $GRH udpong -b 10.0.2.15 -T e" \
  "abi-tests/vm-progs/udp-client udpong abi-tests/vm-progs/rxe-count --min 1000 $GRH bash -c 'udpong -s 10.0.2.15 -T e -S 16 -C 200 && udpong -s 10.0.2.15 -T e -S 512 -C 200 && udpong -s 10.0.2.15 -T e -S 1016 -C 200'"
# -T e: the server echoes every datagram, the client waits for each echo;
# with -T a -T b (rpoll before each blocking call) as well.
pair udpong_echo --timeout 300 --ready 'udp_bound 7174' --filter "$UDPONG_FILTER" \
  "abi-tests/vm-progs/udp-serve udpong $GRH udpong -b 10.0.2.15 -T e" \
  "abi-tests/vm-progs/udp-client udpong abi-tests/vm-progs/rxe-count --min 900 $GRH udpong -s 10.0.2.15 -T e -S 1000 -C 500"
pair udpong_echo_async --timeout 300 --ready 'udp_bound 7174' --filter "$UDPONG_FILTER" \
  "abi-tests/vm-progs/udp-serve udpong $GRH udpong -b 10.0.2.15 -T e" \
  "abi-tests/vm-progs/udp-client udpong abi-tests/vm-progs/rxe-count --min 500 $GRH udpong -s 10.0.2.15 -T a -T b -T e -S 500 -C 300"
# Every byte checked across the pairing (see the top of rs_dgram_pair.c):
# 100 datagrams of each size 1..1016 from client to server and back, the
# server checking each one it can (8 bytes or more) and the source address
# of each, the client each echo and its source; then STOP.
pair rs_dgram_pair --mixed "the datagram rsockets header and address exchange, every byte and source checked" --timeout 300 --ready 'udp_bound 7178' \
  "$GRH abi-tests/vm-progs/rs_probe rs_dgram_pair server 10.0.2.15 7178" \
  "abi-tests/vm-progs/rxe-count --min 1600 $GRH abi-tests/vm-progs/rs_probe rs_dgram_pair client 10.0.2.15 7178"
# The shim acts on upstream's librdmacm only: with Debian's libraries it
# gave at least the server's QP its own address handle a global route (the
# client's report, at exit), with ours it changed no request.
differs grh_shim_counts --timeout 120 \
  --has 'upstream:^grh_shim: [1-9][0-9]* address handles given a global route$' --has 'upstream:^grh_shim: the last one to GID ::ffff:10\.0\.2\.15$' \
  --has 'upstream:^client exit status: 0$' \
  --has 'ours:^grh_shim: 0 address handles given a global route$' --lacks 'ours:the last one to GID' --has 'ours:^client exit status: 0$' \
  "abi-tests/vm-progs/udp-both 7174 \"$GRH udpong -b 10.0.2.15 -T e\" \"env GRH_SHIM_REPORT=1 $GRH udpong -s 10.0.2.15 -T e -S 100 -C 50\""
# -T s: udpong over ordinary UDP sockets, linked to (and loading) our
# librdmacm in all four pairings: nothing of ours may get in the way. A
# short custom run: the default one (all sizes, 100,000 transfers each)
# did not finish in 300 s in the loaded VM, with Debian's libraries either.
pair udpong_sockets --timeout 300 --ready 'udp_bound 7174' --filter "$UDPONG_FILTER" \
  'abi-tests/vm-progs/udp-serve udpong udpong -b 10.0.2.15 -T s' \
  'abi-tests/vm-progs/udp-client udpong udpong -s 10.0.2.15 -T s -S 1000 -C 500'
# udpong's server and client in one run with the same libraries (udp-both),
# Debian's vs ours: a documented difference (`differs`). With Debian's the
# client prints "rconnect: No such file or directory" and exits 255, and the
# server prints nothing (no datagram reached it), as before; with ours the
# client logs in, runs the test (its line in udpong's table) and exits 0.
UDPONG_RXE_DEBIAN=(--rc upstream:0 --has 'upstream:^rconnect: No such file or directory$'
  --has 'upstream:^client exit status: 255$' --lacks 'upstream:client login')
differs udpong_rxe --timeout 120 "${UDPONG_RXE_DEBIAN[@]}" \
  --has 'ours:^client exit status: 0$' --has 'ours:^client login from 10\.0\.2\.15$' \
  --has 'ours:^custom +1000 +[1-9][0-9.]*k? +[1-9]' --lacks 'ours:rconnect|rsend|rrecv' \
  'abi-tests/vm-progs/udp-both 7174 "udpong -b 10.0.2.15" "udpong -s 10.0.2.15 -S 1000 -C 200"'
differs udpong_rxe_echo --timeout 120 "${UDPONG_RXE_DEBIAN[@]}" \
  --has 'ours:^client exit status: 0$' --has 'ours:^client login from 10\.0\.2\.15$' \
  --has 'ours:^custom +1000 +200 +195k ' --lacks 'ours:rconnect|rsend|rrecv' \
  'abi-tests/vm-progs/udp-both 7174 "udpong -b 10.0.2.15 -T e" "udpong -s 10.0.2.15 -T e -C 100"'
# The datagram rsocket API call by call (see the top of rs_dgram.c):
# options, rbind, names, an empty receive, rpoll and rclose, same output as
# Debian's ("nosend"); then the same with an rsendto and rconnect, which
# fail with Debian's library on RoCE (ENOENT) and work with ours.
compare rs_dgram --timeout 120 'abi-tests/vm-progs/rs_probe rs_dgram 7175 nosend'
differs rs_dgram_send --timeout 120 \
  --has 'upstream:^rsendto 10\.0\.2\.15 PORT\+1 +ret -1 errno No such file or directory$' \
  --has 'upstream:^rconnect 10\.0\.2\.15 PORT\+1 +ret -1 errno No such file or directory$' \
  --has 'ours:^rsendto 10\.0\.2\.15 PORT\+1 +ret 1 errno -$' \
  --has 'ours:^rconnect 10\.0\.2\.15 PORT\+1 +ret 0 errno -$' \
  --has 'ours:^rclose +ret 0 errno -$' \
  'abi-tests/vm-progs/rs_probe rs_dgram 7175'

# ---- rsocket faults ----
# abi-tests/vm-progs/rs_fault.c (built in the VM by rs_probe): one line per
# call (return value, errno name) and "pattern ok/BAD" for every byte the
# receiver got, checked against the sender's known pattern; in all four
# pairings the output must be the reference's (Debian's library on both
# ends). Byte counts are printed only where the test fixes them.
# The sender is SIGKILLed mid-transfer (a child of the client, after the
# server acknowledged its first MiB): the server reads to EOF (rrecv 0) and
# everything it got matches the pattern. How it learns of the death is a
# race inside the server's library, Debian's as ours: the CM disconnect
# (rpoll POLLIN|POLLHUP, SO_ERROR 0) or a credit update of its own refused
# by the dying peer (POLLIN|POLLERR, SO_ERROR EIO); see rs_fault.c. The
# probe prints one line if the three observations agree on either, the raw
# values if not; the filter evens out which one it was (the .err files keep
# it).
pair rs_fault_kill_sender --mixed "a peer on the other library killed mid-transfer: what the survivor's rsocket reports" --timeout 90 --ready 'cm_listening 7490' \
  --filter 's/^kill_sender: the server learnt of the death from .*/kill_sender: the server learnt of the death (either way)/' \
  'abi-tests/vm-progs/rs_probe rs_fault server kill_sender 7490' \
  'abi-tests/vm-progs/rs_probe rs_fault client kill_sender 7490'
# The receiver (a child of the server) stops reading; the client sends
# with MSG_DONTWAIT until EAGAIN, says so on a second connection, and the
# server kills the child; the client's rpoll POLLOUT wakes with POLLHUP (the
# CM DISCONNECTED event), rsend gives ECONNRESET, rrecv 0, SO_ERROR 0. The
# client connects nonblocking: upstream watches the CM events of accepted
# sockets and of nonblocking connects only. The control connection is not
# rclosed: it was connected blocking, so neither library knows its peer
# died, and rclose then waits for ever for its DISCONNECT message (seen with
# Debian's library and ours alike: on rxe, a write to the dead QP neither
# completes nor fails).
pair rs_fault_kill_receiver --timeout 90 --ready 'cm_listening 7491' \
  'abi-tests/vm-progs/rs_probe rs_fault server kill_receiver 7491' \
  'abi-tests/vm-progs/rs_probe rs_fault client kill_receiver 7491'
# The same after a BLOCKING rconnect, with SO_KEEPALIVE and TCP_KEEPIDLE 1:
# Debian's library never reports the dead peer (the client sat in rpoll
# until the 120 s timeout): the CM DISCONNECTED event is not watched for
# that socket and the keepalive writes to the dead QP did not fail within
# that time on rxe. Ours takes the same path (it sat in rpoll too, in the
# one run seen); without a reference there is nothing to compare.
pair rs_fault_kill_receiver_ka --pending "Debian's library hangs: a blocking-connected rsocket never learns the peer was killed" --timeout 120 --ready 'cm_listening 7492' \
  'abi-tests/vm-progs/rs_probe rs_fault server kill_receiver_ka 7492' \
  'abi-tests/vm-progs/rs_probe rs_fault client kill_receiver_ka 7492'
# Flow control: the server reads nothing until told (over a second
# connection) that the nonblocking client got EAGAIN; rpoll POLLOUT with
# timeout 0 reports nothing while blocked and POLLOUT once the server
# drained; then 8 MiB of blocking rsend against 4096-byte reads. The server
# reads exactly what the client reported as sent, every byte checked.
pair rs_fault_slow_receiver --timeout 120 --ready 'cm_listening 7493' \
  'abi-tests/vm-progs/rs_probe rs_fault server slow_receiver 7493' \
  'abi-tests/vm-progs/rs_probe rs_fault client slow_receiver 7493'
# rshutdown / rclose right after 200000 bytes, by the client or by the
# server (CASE:SIDE, one connection per scenario): the other side reads all
# 200000 bytes, then EOF, and reports rpoll revents, SO_ERROR and rsend
# after the peer's shutdown. SHUT_WR is a half close (the actor still reads
# 100000 bytes back); SHUT_RD sends nothing (the actor's rrecv returns 0, it
# still sends, then its SHUT_WR disconnects); SHUT_RDWR and rclose
# disconnect (the survivor's rsend still succeeds while credits last, as
# upstream's). One connection each because, with two in a row on one
# listener, the REFERENCE (Debian's library on both ends) failed once in
# three VM runs: the client's second rconnect got ECONNREFUSED and the
# server sat in raccept until the timeout.
pair rs_fault_shut_wr_by_client --timeout 90 --ready 'cm_listening 7500' \
  'abi-tests/vm-progs/rs_probe rs_fault server shut_wr:client 7500' \
  'abi-tests/vm-progs/rs_probe rs_fault client shut_wr:client 7500'
pair rs_fault_shut_wr_by_server --timeout 90 --ready 'cm_listening 7501' \
  'abi-tests/vm-progs/rs_probe rs_fault server shut_wr:server 7501' \
  'abi-tests/vm-progs/rs_probe rs_fault client shut_wr:server 7501'
pair rs_fault_shut_rd_by_client --timeout 90 --ready 'cm_listening 7502' \
  'abi-tests/vm-progs/rs_probe rs_fault server shut_rd:client 7502' \
  'abi-tests/vm-progs/rs_probe rs_fault client shut_rd:client 7502'
pair rs_fault_shut_rd_by_server --timeout 90 --ready 'cm_listening 7503' \
  'abi-tests/vm-progs/rs_probe rs_fault server shut_rd:server 7503' \
  'abi-tests/vm-progs/rs_probe rs_fault client shut_rd:server 7503'
pair rs_fault_shut_rdwr_by_client --timeout 90 --ready 'cm_listening 7504' \
  'abi-tests/vm-progs/rs_probe rs_fault server shut_rdwr:client 7504' \
  'abi-tests/vm-progs/rs_probe rs_fault client shut_rdwr:client 7504'
pair rs_fault_shut_rdwr_by_server --timeout 90 --ready 'cm_listening 7505' \
  'abi-tests/vm-progs/rs_probe rs_fault server shut_rdwr:server 7505' \
  'abi-tests/vm-progs/rs_probe rs_fault client shut_rdwr:server 7505'
pair rs_fault_close_by_client --timeout 90 --ready 'cm_listening 7506' \
  'abi-tests/vm-progs/rs_probe rs_fault server close:client 7506' \
  'abi-tests/vm-progs/rs_probe rs_fault client close:client 7506'
pair rs_fault_close_by_server --timeout 90 --ready 'cm_listening 7507' \
  'abi-tests/vm-progs/rs_probe rs_fault server close:server 7507' \
  'abi-tests/vm-progs/rs_probe rs_fault client close:server 7507'

# ---- datagram rsockets on RoCE ----
# Ours gives the UD QP's address handles a global route on a RoCE port, where
# upstream's cannot get a QP at all (see "Datagram rsockets on RoCE" in
# docs/architecture.md), and refuses datagrams above the port MTU
# (1024 on rxe over eth0: 1016 bytes of payload after the 8-byte IPv4 ds
# header) with EMSGSIZE, because a larger UD send broke the QP. These run
# server and client both on ours (`differs`: the Debian run must still fail
# as documented); a Debian side cannot run on RoCE without grh-shim (the
# mixed pairings are the shimmed pairs in the datagram section above).
#
# rs_dgram_xfer: two datagram rsockets in one process, every datagram
# checked (length, sequence number, every byte against a pattern): 100 of
# each size 1..1016 there and back, 50 bursts of 16 mixed sizes without
# waiting (nothing missing, duplicated, corrupted or out of order), 1017
# bytes refused with EMSGSIZE and the socket still working afterwards. The
# rxe port counters must show the datagrams went over the device.
# dgram_xfer_expect LIMIT: the expectations of an rs_dgram_xfer run (100
# echoes per size, 50 bursts) whose largest payload is LIMIT, into
# DGRAM_XFER_EXPECT; used here and for IPv6 below.
dgram_xfer_expect() {
  DGRAM_XFER_EXPECT=(--rc upstream:1
    --has 'upstream:^rsendto size 1: No such file or directory$'
    --has "ours:^echo size $1: sent 100 received ok 100 lost 0 corrupted 0 wrong-source 0; echoes ok 100 lost 0 corrupted 0\$"
    --has 'ours:^echo size +1: sent 100 received ok 100 lost 0 '
    --has 'ours:^bursts of 16: sent 800 received 800 missing 0 duplicated 0 corrupted 0 out-of-order 0$'
    --has "ours:^rsendto $(($1 + 1)) bytes \\(limit \\+ 1\\): ret -1 errno Message too long\$"
    --has "ours:^then $1 bytes there and back: ok\$" --has 'ours:^result: ok$'
    --has 'ours:^rxe0 packets: sent [0-9]{4,} received [0-9]{4,}$')
}
dgram_xfer_expect 1016
differs rs_dgram_xfer --timeout 300 "${DGRAM_XFER_EXPECT[@]}" \
  'abi-tests/vm-progs/rxe-count abi-tests/vm-progs/rs_probe rs_dgram_xfer 10.0.2.15 7190 100 50 1016'
# udpong, server and client on ours: echo (-T e), the sizes of udpong_sizes
# that fit (16, 1016) and one that does not (1024: "rsend: Message too
# long", udpong carries on), and async (rpoll) blocking calls. udpong's
# default run (18 tests, ~1.8 million datagrams) does not fit in the VM:
# measured 64_lat..256_lat in 366 s with ours, each size slower than the one
# before (udpong resends after 1 ms without an echo, and every late echo it
# discards triggers another send, so the backlog grows under emulation).
differs udpong_ours_echo --timeout 200 "${UDPONG_RXE_DEBIAN[@]}" \
  --has 'ours:^client exit status: 0$' --has 'ours:^custom +1000 +1k +976k ' --lacks 'ours:rconnect|rsend|rrecv' \
  'abi-tests/vm-progs/udp-both 7174 "udpong -b 10.0.2.15 -T e" "udpong -s 10.0.2.15 -T e -S 1000 -C 500"'
differs udpong_ours_sizes --timeout 200 "${UDPONG_RXE_DEBIAN[@]}" \
  --has 'ours:^custom +16 +[1-9][0-9.]*k? +[1-9][0-9.]*k? ' --has 'ours:^custom +1016 +[1-9][0-9.]*k? +[1-9][0-9.]*k? ' \
  --has 'ours:^rsend: Message too long$' --has 'ours:^client exit status: 0$' --lacks 'ours:rconnect|rrecv' \
  'abi-tests/vm-progs/udp-both 7174 "udpong -b 10.0.2.15" "bash -c \"udpong -s 10.0.2.15 -S 16 -C 200 && udpong -s 10.0.2.15 -S 1016 -C 200 && udpong -s 10.0.2.15 -S 1024 -C 200\""'
differs udpong_ours_async --timeout 200 "${UDPONG_RXE_DEBIAN[@]}" \
  --has 'ours:^client exit status: 0$' --has 'ours:^custom +500 +600 +292k ' --lacks 'ours:rconnect|rsend|rrecv' \
  'abi-tests/vm-progs/udp-both 7174 "udpong -b 10.0.2.15 -T e" "udpong -s 10.0.2.15 -T a -T b -T e -S 500 -C 300"'

# ---- rsockets over IPv6 ----
# eth0 gets fd00::15/64 (abi-tests/vm-progs/ipv6-up, which waits for its
# RoCE v2 GID on rxe0), so these come last: the address stays for the rest of
# the boot. A stream rsocket over IPv6 in all four pairings, every byte
# verified (-T v).
V6UP=abi-tests/vm-progs/ipv6-up
pair rstream_ipv6 --timeout 300 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  "$V6UP rstream -b fd00::15 -T v -S 60000 -C 200" \
  "$V6UP rstream -s fd00::15 -T v -S 60000 -C 200"
# The connection manager's tools over IPv6: address and route resolution to
# the fd00::15 RoCE v2 GID, RC connections (rping, ucmatose through
# rdma_getaddrinfo, rdma_server/rdma_client) and UD ones (udaddy: address
# handles with an IPv6 GRH from the CM's UD parameters).
pair rping_ipv6 --race "$RPING_RACE" --timeout 120 --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  "$V6UP rping -s -a fd00::15 -C 10 -v" \
  "$V6UP rping -c -a fd00::15 -C 10 -v"
# The server bound to the IPv6 wildcard (::0, rping's own hint for it).
pair rping_ipv6_any --race "$RPING_RACE" --timeout 120 --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  "$V6UP rping -s -a ::0 -C 10 -v" \
  "$V6UP rping -c -a fd00::15 -C 10 -v"
pair ucmatose_ipv6 --timeout 120 --ready 'cm_listening 7471' \
  "$V6UP ucmatose -b fd00::15 -c 4" \
  "$V6UP ucmatose -s fd00::15 -c 4"
pair udaddy_ipv6 --timeout 120 --ready 'cm_listening 7174' \
  "$V6UP udaddy -b fd00::15" \
  "$V6UP udaddy -s fd00::15"
pair rdma_server_ipv6 --timeout 120 --ready 'cm_listening 7471' \
  "$V6UP rdma_server -s fd00::15" \
  "$V6UP rdma_client -s fd00::15"
# mckey joining an IPv6 multicast group: this kernel's rxe refuses the join
# (rdma_join_multicast_ex fails with ENOTSUPP, 524, "Unknown error 524"), and
# the leave that follows with EADDRNOTAVAIL, with either library.
compare mckey_ipv6_join_refused --timeout 60 "$V6UP mckey -m ff0e::101 -b fd00::15 -s"
# Datagram rsockets over IPv6. The IPv6 ds header is 24 bytes, so 1000
# bytes is the largest payload on a 1024-byte MTU. Paired with upstream's
# through grh-shim, which GRH_SHIM_GID=fd00::15 makes route upstream's
# address handles to the port's fd00::15 GID (by default it picks the IPv4
# one): every byte and source address checked, as rs_dgram_pair above, in
# all four pairings; then udpong with echo.
GRH6="env GRH_SHIM_GID=fd00::15 $GRH"
pair rs_dgram_pair_ipv6 --mixed "the IPv6 datagram header between the two librdmacms" --timeout 300 --ready 'udp_bound 7179' \
  "$V6UP $GRH6 abi-tests/vm-progs/rs_probe rs_dgram_pair server fd00::15 7179" \
  "$V6UP abi-tests/vm-progs/rxe-count --min 1400 $GRH6 abi-tests/vm-progs/rs_probe rs_dgram_pair client fd00::15 7179 100 1000"
pair udpong_echo_ipv6 --timeout 300 --ready 'udp_bound 7174' --filter "$UDPONG_FILTER" \
  "$V6UP abi-tests/vm-progs/udp-serve udpong $GRH6 udpong -b fd00::15 -T e" \
  "$V6UP abi-tests/vm-progs/udp-client udpong abi-tests/vm-progs/rxe-count --min 500 $GRH6 udpong -s fd00::15 -T e -S 900 -C 300"
# Where the shim routed upstream's handles: to the IPv6 GID (IPv4-mapped
# text would read ::ffff:10.0.2.15); with ours it changes nothing.
differs grh_shim_counts_ipv6 --timeout 120 \
  --has 'upstream:^grh_shim: [1-9][0-9]* address handles given a global route$' --has 'upstream:^grh_shim: the last one to GID fd00::15$' \
  --has 'upstream:^client exit status: 0$' \
  --has 'ours:^grh_shim: 0 address handles given a global route$' --lacks 'ours:the last one to GID' --has 'ours:^client exit status: 0$' \
  "$V6UP abi-tests/vm-progs/udp-both 7174 \"$GRH6 udpong -b fd00::15 -T e\" \"env GRH_SHIM_REPORT=1 $GRH6 udpong -s fd00::15 -T e -S 100 -C 50\""
# Ours alone, many datagrams in flight at once (rs_dgram_xfer).
dgram_xfer_expect 1000
differs rs_dgram_xfer_ipv6 --timeout 300 "${DGRAM_XFER_EXPECT[@]}" \
  "$V6UP abi-tests/vm-progs/rxe-count abi-tests/vm-progs/rs_probe rs_dgram_xfer fd00::15 7190 100 50 1000"
differs udpong_ours_ipv6 --timeout 200 "${UDPONG_RXE_DEBIAN[@]}" \
  --has 'ours:^client exit status: 0$' --has 'ours:^custom +900 +600 +527k ' --has 'ours:^client login from fd00::15$' --lacks 'ours:rconnect|rsend|rrecv' \
  "$V6UP abi-tests/vm-progs/udp-both 7174 \"udpong -b fd00::15 -T e\" \"udpong -s fd00::15 -T e -S 900 -C 300\""

# ---- UCX, the transport under Open MPI and others ----
# Debian's UCX 1.13 (ucx-utils, libucx0) dlopen()s its ib and rdmacm modules,
# which link libibverbs.so.1 and librdmacm.so.1: ucx_info -d (every transport
# and device with its capabilities, from the device, port and GID queries)
# must print the same, and ucx_perftest must run in every pairing: tag-matched
# sends (rc_verbs send/receive) and RDMA writes (put) over rc_verbs, with
# ud_verbs for UCX's connection setup. (RDMA reads and atomics also pass, but
# are left to perftest's scenarios to keep CI's VM run short.) GID 0
# (the link-local RoCE v2 entry): with GID 1 (IPv4-mapped) UCX's UD wireup
# times out on rxe with Debian's libraries as with ours.
compare ucx_info_d 'ucx_info -d'
loaded ucx_loads_ours --ours libibverbs.so.1 --ours librdmacm.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so 'ucx_info -d'
UCX_ENV='env UCX_NET_DEVICES=rxe0:1 UCX_TLS=rc_verbs,ud_verbs,self UCX_IB_GID_INDEX=0'
UCX_FILTER='/^ *[0-9]\+ /d; /^\[thread [0-9]*\] /d; s/^\(Final: *[0-9]\+\) .*/\1 <figures>/; s/^Accepted connection from .*/Accepted connection from <peer>/'
pair ucx_perftest_tag_lat --mixed "UCX's wire-up over UD and its rc_verbs traffic between a process on each library" --timeout 120 --ready 'tcp_listening 13337' --filter "$UCX_FILTER" \
  "$UCX_ENV ucx_perftest -p 13337" "$UCX_ENV ucx_perftest 10.0.2.15 -p 13337 -t tag_lat -n 200"
pair ucx_perftest_put_bw --timeout 120 --ready 'tcp_listening 13337' --filter "$UCX_FILTER" \
  "$UCX_ENV ucx_perftest -p 13337" "$UCX_ENV ucx_perftest 10.0.2.15 -p 13337 -t ucp_put_bw -s 1048576 -n 10"
# UCX's RDMA writes while rxe0 is deleted, or eth0 goes down and up (see
# the device-removal scenarios and abi-tests/vm-progs/removal-traffic).
compare removal_ucx_put_bw --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 \
  "abi-tests/vm-progs/removal-traffic --wait-tcp 13338 \"$UCX_ENV ucx_perftest -p 13338\" -- $UCX_ENV ucx_perftest 10.0.2.15 -p 13338 -t ucp_put_bw -s 1048576 -n 1000000"
compare flap_ucx_put_bw --long "a transfer interrupted on purpose, up to 90 s a side" --timeout 400 \
  "abi-tests/vm-progs/removal-traffic --flap --wait-tcp 13339 \"$UCX_ENV ucx_perftest -p 13339\" -- $UCX_ENV ucx_perftest 10.0.2.15 -p 13339 -t ucp_put_bw -s 1048576 -n 1000000"

# ---- Open MPI over UCX ----
# Debian's Open MPI 4.1 (openmpi-bin, with mpi4py) runs two ranks whose only
# transport to each other is UCX's rc_verbs (no shared memory): 1 B to 4 MiB
# echoed and checked byte for byte, then an allreduce (vm-progs/mpi_pingpong.py).
# The loaded check traces every process mpirun starts. "--mca plm isolated"
# starts the ranks without ssh, which a fresh machine may not have (mpirun
# refuses to start without an rsh agent otherwise, even for local ranks).
MPIRUN='mpirun --allow-run-as-root --oversubscribe -np 2 --mca plm isolated --mca pml ucx --mca btl self -x UCX_NET_DEVICES=rxe0:1 -x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0'
compare mpi_ucx_pingpong --timeout 300 "$MPIRUN python3 abi-tests/vm-progs/mpi_pingpong.py"
loaded mpi_loads_ours --timeout 300 --ours libibverbs.so.1 --ours librdmacm.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so "$MPIRUN python3 abi-tests/vm-progs/mpi_pingpong.py"
# Mixed ranks: rank 0 on the variant's libraries, rank 1 on Debian's in both
# variants (its LD_LIBRARY_PATH removed), so in the "ours" run the echoes
# cross from our libibverbs to Debian's and back through UCX's rc_verbs.
# Each of mpirun's two program contexts gets the UCX settings through env:
# mpirun's -x reaches only the first.
UCX_VARS='UCX_NET_DEVICES=rxe0:1 UCX_TLS=rc_verbs,ud_verbs,self UCX_IB_GID_INDEX=0'
MPIRUN_MPMD='mpirun --allow-run-as-root --oversubscribe --mca plm isolated --mca pml ucx --mca btl self'
compare mpi_ucx_pingpong_mixed_ranks --timeout 300 \
  "$MPIRUN_MPMD -np 1 env $UCX_VARS python3 abi-tests/vm-progs/mpi_pingpong.py : -np 1 env -u LD_LIBRARY_PATH $UCX_VARS python3 abi-tests/vm-progs/mpi_pingpong.py"

# ---- libfabric's verbs provider ----
# Debian's libfabric 1.17 (libfabric-bin) is the other common path for MPI
# (MPICH and Intel MPI over OFI). Its verbs provider opens the device through
# libibverbs and connects MSG endpoints with librdmacm. fi_info lists the same
# endpoints; fi_pingpong moves 1 MiB messages with its data checks (-c) on
# (64 B and 64 KiB pass too; left out to keep CI's VM run short). (Its RDM endpoints, verbs;ofi_rxm, fail to connect on rxe
# with Debian's libraries as with ours.)
compare fi_info_verbs 'fi_info -p verbs'
FI_FILTER='s/^\([0-9.]*[km]\{0,1\} \+[0-9]\+ \+=[0-9]\+ \+[0-9.]*[kmg]\{0,1\}\) .*/\1 <figures>/'
pair fi_pingpong_msg_1m --mixed "libfabric's verbs MSG endpoints connecting across the libraries, data checked" --timeout 120 --ready 'tcp_listening 47592' --filter "$FI_FILTER" \
  'fi_pingpong -p verbs -e msg -c -I 20 -S 1048576' 'fi_pingpong -p verbs -e msg -c -I 20 -S 1048576 10.0.2.15'
loaded fi_loads_ours --ours libibverbs.so.1 --ours librdmacm.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so 'fi_info -p verbs'

# ---- other distributions: Debian 13 (rdma-core 56.1) and sid (65.0) ----------
# The same programs, from another Debian's own packages, in a chroot of its
# root filesystem (abi-tests/vm/build-userland) on this VM's kernel and
# devices: the reference is that distribution's libibverbs, librdmacm and
# providers; "ours" is our libraries with its programs and its providers
# (Debian 13's still bind IBVERBS_PRIVATE_34, with the names rdma-core 49 and
# 53 added to it, and call ibv_cmd_reg_dmabuf_mr with rdma-core 54's extra
# argument). Every pairing as above; the filters are the Debian 12 ones.
# In provider mode the chroot also sees our providers' directory, and the
# +prov runs load them under this userland's name (see runner.sh).
UL13='--userland trixie'
compare deb13_ibv_devices $UL13 'ibv_devices'
compare deb13_ibv_devinfo_v $UL13 'ibv_devinfo -v'
loaded deb13_loads_ours_and_rxe_provider $UL13 --ours libibverbs.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so 'ibv_devinfo -d rxe0'
pair deb13_ibv_rc_pingpong $UL13 --mixed "Debian 13's rxe provider on ours against its own library" --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_rc_pingpong -d rxe0 -g 1' 'ibv_rc_pingpong -d rxe0 -g 1 10.0.2.15'
pair deb13_ibv_ud_pingpong $UL13 --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_ud_pingpong -d rxe0 -g 1' 'ibv_ud_pingpong -d rxe0 -g 1 10.0.2.15'
pair deb13_ibv_srq_pingpong_q4 $UL13 --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_srq_pingpong -d rxe0 -g 1 -q 4' 'ibv_srq_pingpong -d rxe0 -g 1 -q 4 10.0.2.15'
pair deb13_ib_write_bw $UL13 --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_write_bw -F -d rxe0 -x 1 -n 1000' 'ib_write_bw -F -d rxe0 -x 1 -n 1000 10.0.2.15'
pair deb13_ib_send_lat $UL13 --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_lat -d rxe0 -x 1' 'ib_send_lat -d rxe0 -x 1 10.0.2.15'
pair deb13_rping --race "$RPING_RACE" $UL13 --mixed "Debian 13's librdmacm against ours, CM handshake and RDMA" --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  'rping -s -a 10.0.2.15 -C 10 -v' 'rping -c -a 10.0.2.15 -C 10 -v'
pair deb13_ucmatose $UL13 --ready 'cm_listening 7471' \
  'ucmatose' 'ucmatose -s 10.0.2.15'
pair deb13_rstream $UL13 --long "2-3 minutes a pairing; the CI tier has rsockets from Debian 13 in deb13_rstream_siw_verify" --timeout 600 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'rstream -b 10.0.2.15' 'rstream -s 10.0.2.15'
# cmtime was rewritten in rdma-core 55: server and client synchronise over a
# TCP connection of their own, the server exits by itself, both print a
# table of six figures a step, and after the test with QPs comes one without
# (connections made with QP numbers from 1000 and no QP behind them). On rxe
# that second test fails with Debian 13's libraries as with ours, in every
# pairing, and both sides exit 1: the server's CM rejects the requests as
# stale connections (RDMA_CM_EVENT_REJECTED, error 10 on the server), and the
# reason the client is told varies from run to run with either library. In
# 20 client runs (5 VM boots, all four pairings, 2026-11-28) it was 28
# (consumer reject) 15 times, 8 (invalid service ID) 3 times and 10 twice;
# with Debian 13's libraries on both sides 28, 28, 28, 8 and 10. So those
# three values are one to the filter; any other still differs.
CMTIME56_FILTER='s/^\([a-z][a-z ]*[a-z]\)\( \+[0-9]\+\)\{6\}$/\1 <timings>/; s/^\(event: RDMA_CM_EVENT_REJECTED, error:\) \(8\|10\|28\)$/\1 <8, 10 or 28>/'
# This cmtime also binds a TCP socket to its port for a side channel. With
# siw0 up, both sides exited 1 without a word, with either library (CI run
# of dd79d8d, and again on port 7495 in a VM where siw-up had run; without
# siw0 it runs): the RDMA CM listen on the wildcard address then also makes
# siw's iw_cm listen on that TCP port, which leaves the side channel unable
# to bind it. So this block runs before the iWARP section.
pair deb13_cmtime_c100 $UL13 --exits 1:1 --expect 'server:^Accept \(100\) QPs test$' \
  --expect 'client:^Connect \(100\) QPs test$' --expect 'client:^destroy qp <timings>$' --timeout 300 --ready 'cm_listening 7495' --filter "$CMTIME56_FILTER" \
  'abi-tests/vm-progs/cm-serve deb13_cmtime cmtime -p 7495' \
  'abi-tests/vm-progs/cm-clients deb13_cmtime 1 cmtime -s 10.0.2.15 -p 7495 -c 100'
# Fork safety as rdma-core 51 and later do it: with the kernel copying pinned
# pages on fork, ibv_fork_init (here through RDMAV_FORK_SAFE=1) sets nothing
# up, so reg_mr leaves the buffer inheritable (Debian 12's 44 marks it
# MADV_DONTFORK; see fork_traffic_fork_safe). One library does either, by the
# release of the installed providers.
compare deb13_fork_traffic_fork_safe $UL13 'env RDMAV_FORK_SAFE=1 abi-tests/vm-progs/run-c-probe fork_traffic'
# Debian 13's python3-pyverbs on our libraries.
compare deb13_pyverbs_rxe0 $UL13 'abi-tests/vm-progs/pyverbs_query.py'
loaded deb13_pyverbs_loads_ours $UL13 --long "about 90 s (python3.13 under the dynamic linker's binding trace); the CI tier has deb13_pyverbs_rxe0 and the rxe provider proof" --ours libibverbs.so.1 --ours librdmacm.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so 'abi-tests/vm-progs/pyverbs_query.py'

# sid (rdma-core 65): its providers bind IBVERBS_PRIVATE_65 (verbs_context
# grown at its front, 93 ops, a larger verbs_qp) and its programs
# IBVERBS_1.15-1.18; the same library serves them. The CI tier has a core
# set (device listing, the rxe provider proof, RC pingpong, ib_write_bw,
# rping and pyverbs); the rest runs in the full tier.
ULSID='--userland sid'
SID_LONG="sid's full set runs in the full tier; the CI tier has its core set"
compare sid_ibv_devices $ULSID 'ibv_devices'
compare sid_ibv_devinfo_v $ULSID 'ibv_devinfo -v'
loaded sid_loads_ours_and_rxe_provider $ULSID --ours libibverbs.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav65.so 'ibv_devinfo -d rxe0'
pair sid_ibv_rc_pingpong $ULSID --mixed "sid's rxe provider (IBVERBS_PRIVATE_65) on ours against its own library" --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_rc_pingpong -d rxe0 -g 1' 'ibv_rc_pingpong -d rxe0 -g 1 10.0.2.15'
pair sid_ibv_ud_pingpong $ULSID --long "$SID_LONG" --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_ud_pingpong -d rxe0 -g 1' 'ibv_ud_pingpong -d rxe0 -g 1 10.0.2.15'
pair sid_ibv_srq_pingpong_q4 $ULSID --long "$SID_LONG" --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_srq_pingpong -d rxe0 -g 1 -q 4' 'ibv_srq_pingpong -d rxe0 -g 1 -q 4 10.0.2.15'
pair sid_ib_write_bw $ULSID --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_write_bw -F -d rxe0 -x 1 -n 1000' 'ib_write_bw -F -d rxe0 -x 1 -n 1000 10.0.2.15'
pair sid_ib_send_lat $ULSID --long "$SID_LONG" --ready 'tcp_listening 18515' --filter "$PERFTEST_FILTER" \
  'ib_send_lat -d rxe0 -x 1' 'ib_send_lat -d rxe0 -x 1 10.0.2.15'
pair sid_rping --race "$RPING_RACE" $ULSID --mixed "sid's librdmacm against ours, CM handshake and RDMA" --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  'rping -s -a 10.0.2.15 -C 10 -v' 'rping -c -a 10.0.2.15 -C 10 -v'
pair sid_ucmatose $ULSID --long "$SID_LONG" --ready 'cm_listening 7471' \
  'ucmatose' 'ucmatose -s 10.0.2.15'
pair sid_rstream $ULSID --long "$SID_LONG" --timeout 600 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  'rstream -b 10.0.2.15' 'rstream -s 10.0.2.15'
# rdma-core 65's cmtime takes its peers' addresses from a controller (-C,
# the first process to bind the out-of-band port becomes it) and binds with
# -b; the RDMA CM listens on an ephemeral port, so readiness is the
# out-of-band TCP port. The rest is as Debian 13's: the test without QPs is
# rejected with either library, both sides exit 1.
pair sid_cmtime_c100 $ULSID --long "$SID_LONG" --exits 1:1 --expect 'server:^Accept \(100\) QPs test$' \
  --expect 'client:^Connect \(100\) QPs test$' --expect 'client:^destroy qp <timings>$' --timeout 300 --ready 'tcp_listening 7495' --filter "$CMTIME56_FILTER" \
  'abi-tests/vm-progs/cm-serve sid_cmtime cmtime -b 10.0.2.15 -C 10.0.2.15 -p 7495 -L' \
  'abi-tests/vm-progs/cm-clients sid_cmtime 1 cmtime -b 10.0.2.15 -C 10.0.2.15 -p 7495 -c 100'
compare sid_fork_traffic_fork_safe $ULSID 'env RDMAV_FORK_SAFE=1 abi-tests/vm-progs/run-c-probe fork_traffic'
# sid's python3-pyverbs on our libraries. Its pyverbs (65) has no
# pyverbs.enums: the enums are classes in pyverbs.libibverbs_enums. The
# command gives pyverbs_query.py the flat names it imports (here, in the
# scenario's words, so that the recorded reference's key covers it), and
# --expect checks that the script got to its last line.
SID_PYVERBS_QUERY='python3 -c "import runpy, sys, types, pyverbs, pyverbs.libibverbs_enums as E; m = types.ModuleType(\"pyverbs.enums\"); [setattr(m, k, v) for c in vars(E).values() if isinstance(c, type) and hasattr(c, \"__members__\") for k, v in c.__members__.items()]; sys.modules[\"pyverbs.enums\"] = pyverbs.enums = m; sys.argv = [\"abi-tests/vm-progs/pyverbs_query.py\"]; runpy.run_path(sys.argv[0], run_name=\"__main__\")"'
compare sid_pyverbs_rxe0 $ULSID --expect '^qp type: 2 state: 0$' --expect "^libraries: .*'librxe-rdmav65'" "$SID_PYVERBS_QUERY"
loaded sid_pyverbs_loads_ours $ULSID --long "about 90 s (python under the dynamic linker's binding trace); the CI tier has sid_pyverbs_rxe0 and the rxe provider proof" --ours libibverbs.so.1 --ours librdmacm.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav65.so "$SID_PYVERBS_QUERY"

# ---- iWARP: soft-iWARP (siw0) -------------------------------------------------------
# The same tools over an iWARP device: abi-tests/vm-progs/siw-up (see its
# top) adds siw0 on its own netdev, siwd0 = 10.0.9.15, and rxe0 stays as it
# was. iWARP connects through the kernel's iw_cm (a TCP handshake), and its
# QPs have no write-with-immediate: rsockets switches to its message mode
# (RS_OPT_MSG_SEND, every control message a SEND), which rxe never exercises.
# iWARP has no UD QPs, so udaddy, mckey and datagram rsockets must fail as
# upstream does: "unable to create QP: Operation not supported" and
# "rconnect: Operation not supported".
SIW=abi-tests/vm-progs/siw-up
compare ibv_devinfo_v_siw0 "$SIW ibv_devinfo -v -d siw0"
loaded siw_loads_ours --ours libibverbs.so.1 --ops siw0 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so "$SIW ibv_devinfo -d siw0"
# As rxe_provider_alone: our siw provider alone, in provider mode.
loaded siw_provider_alone --long "meaningful with our providers; the full tier runs it" --ours libibverbs.so.1 --ops siw0 --alone \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so \
  "$SIW abi-tests/vm-progs/provider-alone rxe,siw ibv_devinfo -d siw0"
pair rping_siw --mixed "iWARP's connection setup (iw_cm) between the two librdmacms" --race "$RPING_RACE" --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  "$SIW rping -s -a 10.0.9.15 -C 10 -v" "$SIW rping -c -a 10.0.9.15 -C 10 -v"
pair ucmatose_c10_siw --timeout 120 --ready 'cm_listening 7471' \
  "$SIW ucmatose -b 10.0.9.15 -c 10" "$SIW ucmatose -s 10.0.9.15 -c 10"
pair rdma_server_siw --ready 'cm_listening 7471' \
  "$SIW rdma_server -s 10.0.9.15" "$SIW rdma_client -s 10.0.9.15"
pair rdma_xserver_siw --ready 'cm_listening 7471' \
  "$SIW rdma_xserver" "$SIW rdma_xclient -s 10.0.9.15"
pair cmtime_c50_siw --timeout 300 --ready 'cm_listening 7471' --filter "$CMTIME_FILTER" \
  "abi-tests/vm-progs/cm-serve cmtime_siw $SIW cmtime -b 10.0.9.15" \
  "abi-tests/vm-progs/cm-clients cmtime_siw 1 $SIW cmtime -s 10.0.9.15 -c 50"
compare udaddy_siw_client "$SIW udaddy -s 10.0.9.15"
compare mckey_siw_sender "$SIW mckey -m 239.1.1.1 -b 10.0.9.15 -s"
compare udpong_siw_client "$SIW udpong -s 10.0.9.15 -C 10"
# Stream rsockets in message mode, every byte verified: transfers that wrap
# the ring buffers, nonblocking calls, and 1 MB transfers.
pair rstream_siw_verify --mixed "rsockets' message mode (iWARP) between the two librdmacms, every byte verified" --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  "$SIW rstream -b 10.0.9.15 -T v -S 60000 -C 500" "$SIW rstream -s 10.0.9.15 -T v -S 60000 -C 500"
pair rstream_siw_nonblock_verify --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  "$SIW rstream -b 10.0.9.15 -T n -T v -S 60000 -C 500" "$SIW rstream -s 10.0.9.15 -T n -T v -S 60000 -C 500"
pair rstream_siw_1m_verify --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  "$SIW rstream -b 10.0.9.15 -T v -S 1000000 -C 20" "$SIW rstream -s 10.0.9.15 -T v -S 1000000 -C 20"
pair riostream_siw_verify --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  "$SIW riostream -b 10.0.9.15 -T v -S 60000 -C 100 -I 10" "$SIW riostream -s 10.0.9.15 -T v -S 60000 -C 100 -I 10"
pair rcopy_64m_siw --timeout 300 --ready 'cm_listening 7427' \
  --filter "$RCOPY_FILTER" \
  "abi-tests/vm-progs/cm-serve rs_rcopy_siw $SIW rcopy" \
  "abi-tests/vm-progs/cm-clients rs_rcopy_siw 1 $SIW abi-tests/vm-progs/rs_rcopy_check 10.0.9.15"
# The rsocket API probe (rs_api, as over rxe0 above) on siw0: options,
# nonblocking accept and connect, MSG_PEEK, gather/scatter, half close and
# shutdown, all in message mode.
compare rs_api_siw --timeout 120 "$SIW abi-tests/vm-progs/rs_probe rs_api 7481 10.0.9.15"
# The CM bad-input cases (cm_bad_input, as over rxe0 above) with every id
# bound to and resolved on siw0: wrong states, UD and multicast calls and
# options on an iWARP device. Each case in its own process (--fork): the
# multicast cases' setup fails on iWARP (rdma_join_multicast: ENOSYS, with
# either library), which ends only that case.
compare cm_bad_input_siw --timeout 300 "$SIW env CM_BAD_INPUT_SELF=10.0.9.15 abi-tests/vm-progs/run-c-probe cm_bad_input --fork"
# perftest over iWARP: -R connects the QPs through the RDMA CM (an iWARP QP
# cannot be connected by hand as over RoCE), then RDMA writes, reads and
# sends, as the rxe0 runs above.
pair ib_write_bw_siw --race "$PERFTEST_RACE_IW" --ready 'cm_listening 18515' --filter "$PERFTEST_FILTER" \
  "$SIW ib_write_bw -F -d siw0 -R -n 1000" "$SIW ib_write_bw -F -d siw0 -R -n 1000 10.0.9.15"
pair ib_read_bw_siw --race "$PERFTEST_RACE_IW" --ready 'cm_listening 18515' --filter "$PERFTEST_FILTER" \
  "$SIW ib_read_bw -F -d siw0 -R" "$SIW ib_read_bw -F -d siw0 -R 10.0.9.15"
pair ib_send_lat_siw --race "$PERFTEST_RACE_IW" --ready 'cm_listening 18515' --filter "$PERFTEST_FILTER" \
  "$SIW ib_send_lat -d siw0 -R" "$SIW ib_send_lat -d siw0 -R 10.0.9.15"
# Message mode needs inline sends of at least the 4-byte message: a socket
# set to RDMA_INLINE 0 (as rstream's bandwidth tests set it) gets no inline
# data from siw, and its blocking rconnect must fail with EOPNOTSUPP, as
# upstream's does, before the peer is contacted (abi-tests/vm-progs/
# rs_inline0.c). This is why `rstream -S all` cannot run its bandwidth tests
# over iWARP with either library.
compare rs_inline0_siw --timeout 120 "$SIW abi-tests/vm-progs/rs_probe rs_inline0 10.0.9.15 7482"

# ---- Debian 13 over iWARP: its libsiw provider on siw0 (see above) ----
compare deb13_ibv_devinfo_v_siw0 $UL13 "$SIW ibv_devinfo -v -d siw0"
# The first run adds siw0, every program of siw-up traced: 34 s to over 60
# on a host shared with two other VMs, hence --timeout 120.
loaded deb13_siw_loads_ours $UL13 --long "about 40 s; the CI tier has the rxe provider proof and the siw data path" --timeout 120 --ours libibverbs.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so "$SIW ibv_devinfo -d siw0"
pair deb13_rping_siw --race "$RPING_RACE" $UL13 --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  "$SIW rping -s -a 10.0.9.15 -C 10 -v" "$SIW rping -c -a 10.0.9.15 -C 10 -v"
pair deb13_rstream_siw_verify $UL13 --timeout 180 --ready 'cm_listening 7471' --filter "$RSTREAM_FILTER" \
  "$SIW rstream -b 10.0.9.15 -T v -S 60000 -C 500" "$SIW rstream -s 10.0.9.15 -T v -S 60000 -C 500"
