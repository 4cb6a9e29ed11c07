//! Tests of the comparison harness itself, on the host (no VM): it must call
//! two identical libraries identical, and it must catch a library that
//! behaves differently. Independent of the state of our own libibverbs.
use abi_tests::{paths, scenarios};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A directory whose libibverbs.so.1 is a copy of Debian's.
fn debian_copy() -> PathBuf {
    let dir = paths::scratch("selftest/debian-copy");
    std::fs::copy(
        paths::system_lib("libibverbs.so.1"),
        dir.join("libibverbs.so.1"),
    )
    .expect("copy Debian's libibverbs.so.1");
    dir
}

/// A directory whose libibverbs.so.1 is abi-tests/selftest/eperm-shim.c.
fn eperm_shim() -> PathBuf {
    let src = paths::repo_root().join("abi-tests/selftest");
    let dir = paths::scratch("selftest/eperm-shim");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-Wl,-soname,libibverbs.so.1"])
        .arg(format!(
            "-Wl,--version-script={}",
            src.join("eperm-shim.map").display()
        ))
        .arg("-o")
        .arg(dir.join("libibverbs.so.1"))
        .arg(src.join("eperm-shim.c"))
        .status()
        .expect("run cc");
    assert!(status.success(), "building the EPERM shim failed");
    dir
}

fn run(ours: &Path, out: &str) -> scenarios::Run {
    scenarios::run_with("host", ours, &[], &paths::scratch(out))
}

#[test]
fn identical_libraries_compare_equal() {
    let r = run(&debian_copy(), "selftest/run-identical");
    assert_eq!(r.exit, Some(0), "run-scenarios failed:\n{}", r.log);
    for name in ["ibv_devices", "ibv_devinfo"] {
        r.assert_passed(name);
    }
    // The "ours" runs really used the copy: the runner's preflight says so.
    assert!(
        r.log.contains("ours: libibverbs.so.1 => ")
            && r.log.contains("selftest/debian-copy/libibverbs.so.1"),
        "preflight did not report the copy:\n{}",
        r.log
    );
}

#[test]
fn a_different_errno_is_caught_and_diffed() {
    let r = run(&eperm_shim(), "selftest/run-eperm");
    assert_eq!(r.exit, Some(1), "run-scenarios should fail:\n{}", r.log);
    assert_eq!(r.status("ibv_devices").as_deref(), Some("FAIL"));
    let report = r.report("ibv_devices");
    assert!(report.contains("DIFFERENT stderr"), "{report}");
    assert!(
        report.contains("+Failed to get IB devices list: Operation not permitted"),
        "the diff should show the shim's line:\n{report}"
    );
    // ibv_devinfo needs symbol versions the shim lacks: the dynamic linker
    // refuses to start it, with another message and exit code.
    assert_eq!(r.status("ibv_devinfo").as_deref(), Some("FAIL"));
    assert!(
        r.report("ibv_devinfo").contains("DIFFERENT exit code"),
        "{}",
        r.report("ibv_devinfo")
    );
}

#[test]
fn a_directory_without_the_library_is_refused() {
    let empty = paths::scratch("selftest/empty");
    let _ = std::fs::remove_file(empty.join("libibverbs.so.1"));
    let r = run(&empty, "selftest/run-empty");
    assert_eq!(r.exit, Some(2), "{}", r.log);
    assert!(
        r.log.contains("does not exist; build it first"),
        "{}",
        r.log
    );
}
