//! Host-side scenarios (abi-tests/scenarios/host.sh): on this machine, which
//! has no RDMA device, upstream tools must print and return exactly the same
//! with Debian's libibverbs and with ours. Needs the release build:
//! cargo build --release -p libibverbs-rs.
use abi_tests::{paths, scenarios};
use std::sync::LazyLock;

static RUN: LazyLock<scenarios::Run> =
    LazyLock::new(|| scenarios::run("host", &[], &paths::scratch("host")));

fn scenario(name: &str) {
    paths::ours_lib("libibverbs.so.1");
    RUN.assert_passed(name);
}

include!(concat!(env!("OUT_DIR"), "/host_scenarios.rs"));
