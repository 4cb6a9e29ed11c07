#!/usr/bin/env bash
# run-all-tests.sh: every test: unit tests, ABI tests (symbols, host-side
# comparisons, harness self-test) and the Soft-RoCE VM scenarios.
#
#   abi-tests/run-all-tests.sh [extra cargo test arguments]
#
# Builds the release libraries first (the ABI tests compare
# target/release/libibverbs.so.1 and librdmacm.so.1 and do not build them
# themselves), then runs
# `RDMA_VM_TESTS=1 cargo test --workspace --no-fail-fast`, so its summary lines
# end the output. RDMA_SCENARIOS_PENDING=1 also runs the pending scenarios,
# RDMA_SCENARIOS_LONG=1 the long ones (too long for CI).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
[[ -d $HOME/.cargo/bin ]] && PATH=$HOME/.cargo/bin:$PATH

"$here/install-deps.sh"
cargo build --release
RDMA_VM_TESTS=1 cargo test --workspace --no-fail-fast "$@"
