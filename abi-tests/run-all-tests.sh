#!/usr/bin/env bash
# run-all-tests.sh: every test, in two tiers.
#
#   abi-tests/run-all-tests.sh [--full] [extra cargo test arguments]
#
# The CI tier (the default; .ci/run runs it):
#   - the unit tests, ABI checks (symbols, layouts, providers, command
#     encodings) and host-side comparisons: `cargo test --workspace`;
#   - in the Soft-RoCE VM, every scenario of abi-tests/scenarios/vm.sh with
#     ours on both sides against Debian's reference (recorded by a full-tier
#     run where it still applies, else run live), and the mixed pairings
#     (ours with Debian's, each way) for the scenarios marked --mixed
#     (`abi-tests/run-scenarios --list vm` shows which);
#   - once our providers are in the tree (providers/rxe, providers/siw), the
#     VM scenarios again with them (`run-scenarios --provider ours`): in the
#     CI tier the subset vm.sh names with provider_ci, in the full tier all;
#   - our Debian packages (packaging/test-packages): lintian, then in the VM
#     the side-by-side install, ours installed over Debian's and Debian's
#     put back, each stage with scenarios (the same in both tiers).
# --full: the full tier: the same, with every pairing of every scenario in
# the VM, the reference always live, and the scenarios marked --long. Run it
# before an issue that changes library code is resolved; its results
# (target/abi-tests/vm) can then be recorded for the CI tier with
# `abi-tests/run-scenarios --record target/abi-tests/vm vm`.
#
# Phases, each timed: install the Debian packages (abi-tests/install-deps.sh),
# build the VM image (abi-tests/vm/build-image), make the Debian 13 and sid
# root filesystems (abi-tests/vm/build-userland), build the release libraries
# (the ABI tests compare target/release and do not build it themselves), the
# host tests, the VM tier. The output ends with each phase's wall time and a
# line adding up cargo's test counts. RDMA_VM_JOBS=N boots N VMs at once for
# the scenarios (default 1: on a 2-core host a second VM only slows both, see
# run-scenarios --jobs); RDMA_SCENARIOS_PENDING=1 also runs the pending
# scenarios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
[[ -d $HOME/.cargo/bin ]] && PATH=$HOME/.cargo/bin:$PATH

tier=ci
if [[ ${1:-} = --full ]]; then tier=full; shift; fi
export RDMA_SCENARIOS_TIER=$tier RDMA_VM_JOBS=${RDMA_VM_JOBS:-1}
# The full tier's one VM boot takes about 100 minutes on a 2-core host, past
# run-scenarios' default limit of 4800 s.
[[ $tier = full ]] && export RDMA_SCENARIOS_LONG=1 RDMA_VM_TIMEOUT=${RDMA_VM_TIMEOUT:-9000}

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
phases=(); failed=0
# phase NAME CMD...: run CMD, note its wall time; a failure is remembered
# (later phases still run where they can) and makes the exit code 1.
phase() {
  local name=$1 t0=$SECONDS rc=0
  shift
  echo "== $name" >&2
  "$@" || rc=$?
  phases+=("$(printf '%-22s %5d s%s' "$name" $((SECONDS - t0)) "$([[ $rc = 0 ]] || echo "  (FAILED, exit $rc)")")")
  [[ $rc = 0 ]] || failed=1
  return "$rc"
}
# cargo test with its output kept, for the counts at the end.
ctest() {
  local log=$logs/$1.log
  shift
  cargo test "$@" 2>&1 | tee "$log"
}

total0=$SECONDS
phase "install packages" "$here/install-deps.sh" || exit 1
phase "VM image" "$here/vm/build-image" > /dev/null || exit 1
phase "userlands" "$here/vm/build-userland" trixie sid > /dev/null || exit 1
phase "release build" cargo build --release || exit 1
# Built without RDMA_VM_TESTS, the VM scenarios' tests are ignored here...
phase "host tests" ctest host --workspace --no-fail-fast "$@" || true
# ...and run on their own, with the tier's pairings.
vm_tier() { RDMA_VM_TESTS=1 ctest vm -p abi-tests --test vm_scenarios --no-fail-fast "$@"; }
phase "VM tier ($tier)" vm_tier "$@" || true
# Our providers, those that are in the tree (the release build made them).
provs=()
for p in rxe siw; do [[ ! -f providers/$p/Cargo.toml ]] || provs+=("$p"); done
if [[ ${#provs[@]} -gt 0 ]]; then
  prov_tier() {
    local args=(--provider ours --tier "$tier" --out target/abi-tests/vm-provider)
    [[ $tier = ci ]] || args+=(--long)
    RDMA_OURS_PROVIDERS="${provs[*]}" abi-tests/run-scenarios "${args[@]}" vm
  }
  phase "VM providers ($tier)" prov_tier || true
  # Its counts join cargo's in the total below.
  awk '/^[0-9]+ passed, [0-9]+ failed/ { printf "test result: scenarios. %d passed; %d failed; 0 ignored\n", $1, $3 }' \
    target/abi-tests/vm-provider/scenarios/summary.txt > "$logs/vm-provider.log" 2>/dev/null || true
fi
# Our Debian packages: built from the release build, checked with lintian,
# then installed over Debian's in the VM, used, and removed again, with
# scenarios at each stage (packaging/test-packages; docs/packaging.md).
# The CI tier checks every stage with a few scenarios (the full tier with
# test-packages' whole list): Debian 12's pingpong, rping, the rspreload
# transfer, UCX and pyverbs, and Debian 13's and sid's pingpong.
pk_args=(--no-build --out target/abi-tests/vm-packages)
[[ $tier = full ]] || for n in ibv_rc_pingpong rping rspreload_tcp_xfer ucx_perftest_tag_lat pyverbs_rxe0 \
                           deb13_ibv_rc_pingpong sid_ibv_rc_pingpong; do pk_args+=(--only "$n"); done
phase "VM packages" packaging/test-packages "${pk_args[@]}" || true
# Its checks and each stage's scenarios join cargo's counts below.
pk=target/abi-tests/vm-packages/scenarios
{ awk '/^ok: /{p++} /^FAIL: /{f++} END { printf "test result: package checks. %d passed; %d failed; 0 ignored\n", p, f }' \
    "$pk/packages.txt"
  cat "$pk"/*/summary.txt | awk '/^[0-9]+ passed, [0-9]+ failed/ { printf "test result: package scenarios. %d passed; %d failed; 0 ignored\n", $1, $3 }'
} > "$logs/vm-packages.log" 2>/dev/null || true
phases+=("$(printf '%-22s %5d s' total $((SECONDS - total0)))")

echo
echo "wall time per phase ($tier tier):"
printf '  %s\n' "${phases[@]}"
# cargo's "test result: ok. N passed; N failed; N ignored; ..." lines, added up.
cat "$logs"/*.log | awk '/^test result: / { p += $4; f += $6; i += $8 }
  END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, i }'
exit "$failed"
