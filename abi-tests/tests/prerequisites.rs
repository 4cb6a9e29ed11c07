//! The ABI tests compare the RELEASE build of our libraries
//! (target/release/libibverbs.so.1 and librdmacm.so.1) and do not build them
//! themselves: run `cargo build --release` before `cargo test`
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

fn release_build_exists(soname: &str) {
    let lib = paths::ours_lib(soname);
    assert_eq!(symbols::soname(&lib).as_deref(), Some(soname), "SONAME of {}", lib.display());
}

#[test]
fn libibverbs_release_build_exists() {
    release_build_exists("libibverbs.so.1");
}

#[test]
fn librdmacm_release_build_exists() {
    release_build_exists("librdmacm.so.1");
}

#[test]
fn libibverbs_release_build_is_current() {
    release_build_is_current("libibverbs.so.1", &["libibverbs-rs", "rdma-abi", "rdma-util"]);
}

#[test]
fn librdmacm_release_build_is_current() {
    // Its directory also holds the rspreload crate (below), which is not part
    // of librdmacm.so.1: only the crate's own files count, and the two crates
    // every library links in.
    release_build_is_current(
        "librdmacm.so.1",
        &[
            "librdmacm-rs/src",
            "librdmacm-rs/Cargo.toml",
            "librdmacm-rs/build.rs",
            "librdmacm-rs/librdmacm.map",
            "rdma-abi",
            "rdma-util",
        ],
    );
}

#[test]
fn librspreload_release_build_is_current() {
    release_build_is_current(
        "librspreload.so.1",
        &[
            "librspreload-rs/src",
            "librspreload-rs/Cargo.toml",
            "librspreload-rs/build.rs",
            "librspreload-rs/librspreload.map",
            "rdma-abi",
            "rdma-util",
        ],
    );
}

fn release_build_is_current(soname: &str, sources: &[&str]) {
    if paths::ours_overridden() {
        return; // RDMA_OURS_LIB_DIR: somebody else's build, not ours to judge.
    }
    let lib = paths::ours_lib(soname);
    let built = std::fs::metadata(std::fs::canonicalize(&lib).unwrap())
        .unwrap()
        .modified()
        .unwrap();
    let mut newest = (SystemTime::UNIX_EPOCH, String::new());
    for src in sources {
        let p = paths::repo_root().join(src);
        if p.is_dir() {
            newest_mtime(&p, &mut newest);
        } else if let Ok(m) = std::fs::metadata(&p).and_then(|m| m.modified()) {
            if m > newest.0 {
                newest = (m, p.display().to_string());
            }
        }
    }
    assert!(
        built >= newest.0,
        "{} is older than {}: the ABI tests would test stale code. Run:\n    \
         cargo build --release",
        lib.display(),
        newest.1
    );
}
