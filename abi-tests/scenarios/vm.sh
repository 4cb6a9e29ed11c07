# Scenarios run inside the Soft-RoCE VM (abi-tests/run-scenarios vm).
# Sourced by runner.sh; each line is one scenario, run with Debian's libraries
# and with ours (see runner.sh for compare / pair / loaded and their options).
# The VM has one device, rxe0, port 1 ACTIVE, on eth0 = 10.0.2.15.
#
# To add one: add a line. A scenario that cannot pass yet gets
# --pending "issue N": it is listed but not run (SCEN_PENDING=1 runs it), and
# its cargo test is ignored. Remove --pending once it passes.
# Scenario names become cargo test names (abi-tests/tests/vm_scenarios.rs):
# keep one call per line (a trailing backslash continues it).

# ---- device enumeration and queries (issue 2) -------------------------------
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

# Proof that the "ours" runs really use our libibverbs.so.1, which loads
# Debian's C provider for rxe and serves its IBVERBS_PRIVATE_34 calls.
loaded loads_ours_and_rxe_provider --ours libibverbs.so.1 \
  --provider /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so 'ibv_devinfo -d rxe0'

# ---- data path (not implemented yet) -------------------------------------------
# Values that change from run to run: queue pair numbers, packet sequence
# numbers, timings.
PINGPONG_FILTER='s/QPN 0x[0-9a-f]*/QPN <n>/g; s/PSN 0x[0-9a-f]*/PSN <n>/g; s/ in [0-9.]* seconds = [0-9.]* [a-zA-Z/]*/ in <t> seconds = <rate>/'
pair ibv_rc_pingpong --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_rc_pingpong -d rxe0 -g 1' 'ibv_rc_pingpong -d rxe0 -g 1 10.0.2.15'
pair ibv_ud_pingpong --ready 'tcp_listening 18515' --filter "$PINGPONG_FILTER" \
  'ibv_ud_pingpong -d rxe0 -g 1' 'ibv_ud_pingpong -d rxe0 -g 1 10.0.2.15'
# rping's client prints its DISCONNECT event only if its CM thread sees it
# before main() returns: a race in rping itself.
pair rping --pending "issue 4" --ready 'cm_listening 7174' --filter '/^client DISCONNECT EVENT/d' \
  'rping -s -a 10.0.2.15 -C 10 -v' 'rping -c -a 10.0.2.15 -C 10 -v'

# The IBVERBS_1.0 interface end to end: 1.0 PD/MR/CQ/QPs, the 1.0 modify and
# query verbs, and an RC loopback send/recv through the 1.0 context's ops.
compare compat10_probe 'abi-tests/vm-progs/run-c-probe compat10_probe'
