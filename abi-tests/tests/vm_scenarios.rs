//! The Soft-RoCE VM scenarios (abi-tests/scenarios/vm.sh): upstream tools run
//! with Debian's libibverbs and with ours in ONE boot of the VM; each test
//! checks one scenario's verdict and shows its diff on failure.
//!
//! Ignored unless RDMA_VM_TESTS=1 (a boot plus the scenarios takes a minute or
//! more under software emulation); abi-tests/run-all-tests.sh and .ci/run set
//! it. Needs the release build: cargo build --release -p libibverbs-rs.
use abi_tests::{paths, scenarios};
use std::sync::LazyLock;

static RUN: LazyLock<scenarios::Run> =
    LazyLock::new(|| scenarios::run("vm", &[], &paths::scratch("vm")));

fn scenario(name: &str) {
    paths::ours_lib("libibverbs.so.1");
    RUN.assert_passed(name);
}

include!(concat!(env!("OUT_DIR"), "/vm_scenarios.rs"));
