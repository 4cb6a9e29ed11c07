//! The ABI tests compare the RELEASE build of our libraries
//! (target/release/libibverbs.so.1) and do not build it themselves: run
//! `cargo build --release -p libibverbs-rs` before `cargo test`
//! (abi-tests/run-all-tests.sh and .ci/run do). This test says so clearly
//! when the library is missing or older than its sources.
use abi_tests::{paths, symbols};
use std::path::Path;
use std::time::SystemTime;

fn newest_mtime(dir: &Path, newest: &mut (SystemTime, String)) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let entry = entry.unwrap();
        let path = entry.path();
        let meta = entry.metadata().unwrap();
        if meta.is_dir() {
            newest_mtime(&path, newest);
        } else if let Ok(m) = meta.modified() {
            if m > newest.0 {
                *newest = (m, path.display().to_string());
            }
        }
    }
}

#[test]
fn libibverbs_release_build_exists() {
    let lib = paths::ours_lib("libibverbs.so.1");
    assert_eq!(
        symbols::soname(&lib).as_deref(),
        Some("libibverbs.so.1"),
        "SONAME of {}",
        lib.display()
    );
}

#[test]
fn libibverbs_release_build_is_current() {
    if paths::ours_overridden() {
        return; // RDMA_OURS_LIB_DIR: somebody else's build, not ours to judge.
    }
    let lib = paths::ours_lib("libibverbs.so.1");
    let built = std::fs::metadata(std::fs::canonicalize(&lib).unwrap())
        .unwrap()
        .modified()
        .unwrap();
    let mut newest = (SystemTime::UNIX_EPOCH, String::new());
    newest_mtime(&paths::repo_root().join("libibverbs-rs"), &mut newest);
    assert!(
        built >= newest.0,
        "{} is older than {}: the ABI tests would test stale code. Run:\n    \
         cargo build --release -p libibverbs-rs",
        lib.display(),
        newest.1
    );
}
