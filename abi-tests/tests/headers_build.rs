//! Every C program of abi-tests builds against our headers (include/) and
//! our libraries (target/release) alone: abi-tests/headers/build-against-ours
//! builds them in a private mount namespace in which Debian's rdma-core
//! headers, -dev libraries and .pc files are hidden, checks from each
//! compile's `-H` list that every infiniband/* and rdma/{rdma_cma,
//! rdma_cma_abi,rdma_verbs,rsocket}.h header read came from include/ and from
//! the linker's trace that libibverbs.so / librdmacm.so came from
//! target/release, and that no program binds a symbol version Debian's
//! libraries lack (the VM scenarios run the same binaries on both). Its
//! summary is printed.
//!
//! Needs the release build (`cargo build --release`, which also writes
//! target/release/pkgconfig/{libibverbs,librdmacm}.pc), gcc, pkg-config,
//! readelf, and root (or unprivileged user namespaces) for `unshare -m`.
//! Nothing here is skipped: a missing tool or privilege fails the test, with
//! the script's message. The programs that need rdma-core's uninstalled
//! headers (probe/driver_probe*, probe/kern_abi) are built only when
//! RDMA_CORE_SRC / RDMA_CORE_SRC65 (default /tmp/up, /tmp/up65) hold
//! rdma-core v44.0 / 65.0; the summary lists them as skipped otherwise.
use abi_tests::paths;
use std::process::Command;

#[test]
fn c_programs_build_against_our_headers() {
    let release = paths::target_dir().join("release");
    for f in ["libibverbs.so", "librdmacm.so", "pkgconfig/libibverbs.pc", "pkgconfig/librdmacm.pc"] {
        let p = release.join(f);
        assert!(
            p.exists(),
            "{} does not exist. The C programs are built against the RELEASE build and its .pc \
             files, which this test does not build; run first:\n    cargo build --release",
            p.display()
        );
    }
    let script = paths::repo_root().join("abi-tests/headers/build-against-ours");
    let out = paths::scratch("build-against-ours");
    let res = Command::new(&script)
        .arg("--out")
        .arg(&out)
        .env("RDMA_PKG_CONFIG_PATH", release.join("pkgconfig"))
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&res.stdout);
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(
        res.status.success(),
        "build-against-ours failed ({}); its logs are in {}\n{stdout}\nstderr:\n{stderr}",
        res.status,
        out.display()
    );
    // A success must mean something: the closing line names the programs
    // built and no read of Debian's headers.
    let last = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("build-against-ours: "))
        .unwrap_or_else(|| panic!("build-against-ours printed no summary line:\n{stdout}\nstderr:\n{stderr}"));
    let count = |what: &str| -> usize {
        let at = last.find(what).unwrap_or_else(|| panic!("no \"{what}\" in the summary line: {last}"));
        last[..at]
            .rsplit(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no count before \"{what}\" in the summary line: {last}"))
    };
    assert_eq!(count(" failed"), 0, "{last}");
    assert_eq!(count(" of Debian's rdma-core"), 0, "{last}");
    assert!(count(" built") > 0 && count(" of include/") > 0, "nothing was built from include/: {last}");
    println!("{stdout}");
}
