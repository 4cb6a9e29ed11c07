//! The descriptor index with real kernel sockets, on a host without RDMA.
//!
//! RDMAV_FORK_SAFE=1 makes the preload hand out placeholder numbers mapped
//! to kernel TCP sockets (fork-support mode; with no RDMA device the switch
//! to rsockets fails and they stay kernel sockets), so
//! tests/fork_mode_probe.c exercises every export's mapping, poll, fcntl,
//! dup2 and close through the index. Run under our librspreload it must
//! pass every step; under Debian's it differs in exactly the two places
//! where ours deliberately does not copy upstream (see src/lib.rs).
use abi_tests::paths;
use std::path::{Path, PathBuf};
use std::process::Command;

fn probe() -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fork_mode_probe.c");
    let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fork_mode_probe");
    let st = Command::new("cc").args(["-O2", "-Wall", "-o"]).arg(&bin).arg(&src).status().expect("run cc");
    assert!(st.success(), "cc failed");
    bin
}

fn run(preload: &Path, bin: &Path) -> (i32, String) {
    let out = Command::new(bin)
        .env("LD_PRELOAD", preload)
        .env("RDMAV_FORK_SAFE", "1")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn index_maps_every_call_to_the_kernel_socket() {
    let bin = probe();
    // The release build the ABI tests use (`cargo test` does not build a
    // cdylib-only library), or $RDMA_OURS_LIB_DIR's.
    let (rc, ours) = run(&paths::ours_lib("librspreload.so"), &bin);
    assert_eq!(rc, 0, "probe failed under our preload:\n{ours}");
    assert_eq!(ours.matches(": placeholder").count(), 3, "the sockets must be placeholders:\n{ours}");
    assert!(!ours.contains("WRONG"), "{ours}");

    let debian = Path::new(paths::SYSTEM_LIB_DIR).join("rsocket/librspreload.so.1");
    if !debian.exists() {
        eprintln!("Debian's librspreload is not installed: comparison skipped");
        return;
    }
    let (drc, theirs) = run(&debian, &bin);
    assert_eq!(drc, 1, "Debian's preload:\n{theirs}");
    let diff: Vec<(&str, &str)> = theirs.lines().zip(ours.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(theirs.lines().count(), ours.lines().count(), "Debian's:\n{theirs}\nours:\n{ours}");
    assert_eq!(
        diff,
        vec![
            // Upstream polls the /dev/null placeholder, which is always ready.
            (
                "poll with nothing to read times out (ret 1 revents 0x1): WRONG",
                "poll with nothing to read times out (ret 0 revents 0): ok"
            ),
            // Upstream closes the kernel socket behind a dup2 copy twice.
            ("close the copy: WRONG", "close the copy: ok"),
        ],
        "Debian's:\n{theirs}\nours:\n{ours}"
    );
}
