//! The code our `<infiniband/verbs.h>` compiles into applications (its
//! static inline functions and macros, written by hand in
//! include/hand/infiniband/verbs.tail.h) against rdma-core's.
//!
//! abi-tests/headers/inline-check builds abi-tests/headers/inline_check.c
//! against a reference header set and against our include/, as C and C++,
//! at -O0 and -O2, and diffs what the programs print: for every inline
//! function and macro, on fake contexts and objects whose entry points are
//! mocks, which entry point or library function was called with which
//! arguments, what came back and what errno was left. It also checks that
//! ours compiles with no more diagnostics than the reference under strict
//! settings (C99/C11 -pedantic, C++98, C++ -pedantic, -Wconversion, ...).
//!
//! The references: Debian 12's installed headers (rdma-core 44, compared at
//! the 44 API level), and sid's (rdma-core 65) from
//! abi-tests/headers/fetch-sid-headers when it can provide them.
//!
//! Needs gcc, g++ and libibverbs-dev. No library build, device or root.
use abi_tests::paths::repo_root;
use std::path::Path;
use std::process::{Command, Output};

fn text(out: &Output) -> String {
    format!("{}\nstderr:\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// sid's header set: (include directory, extra compiler flags), or None when
/// fetch-sid-headers can neither find nor fetch it (said on stderr).
fn sid_headers() -> Option<(String, String)> {
    let out = Command::new(repo_root().join("abi-tests/headers/fetch-sid-headers"))
        .output()
        .expect("running abi-tests/headers/fetch-sid-headers");
    if !out.status.success() {
        eprintln!("the sid header set is not available; comparing with Debian 12's only:\n{}", text(&out));
        return None;
    }
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = stdout.lines();
    let dir = lines.next().unwrap_or_default().to_string();
    let flags = lines.next().unwrap_or_default().trim().to_string();
    assert!(
        Path::new(&dir).join("infiniband/verbs.h").exists(),
        "fetch-sid-headers printed {dir:?}, which holds no infiniband/verbs.h"
    );
    Some((dir, flags))
}

/// Runs inline-check with our include/ against one reference root.
fn inline_check(reference: &str, cflags: &str) {
    let root = repo_root();
    let out = Command::new(root.join("abi-tests/headers/inline-check"))
        .arg("--ours")
        .arg(root.join("include"))
        .args(["--cflags", cflags, reference])
        .output()
        .expect("running abi-tests/headers/inline-check");
    assert!(out.status.success(), "inline-check against {reference} failed ({}):\n{}", out.status, text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The comparison must really have run its programs.
    assert!(stdout.contains(" lines identical"), "no program output was compared:\n{stdout}");
    println!("{stdout}");
}

#[test]
fn verbs_inline_functions_behave_as_rdma_cores() {
    assert!(
        repo_root().join("include/infiniband/verbs.h").exists(),
        "include/infiniband/verbs.h does not exist: run `cargo run -p gen-headers`"
    );
    assert!(
        Path::new("/usr/include/infiniband/verbs.h").exists(),
        "Debian's headers are missing: install libibverbs-dev (abi-tests/install-deps.sh)"
    );
    inline_check("/usr/include", "");
    if let Some((sid, flags)) = sid_headers() {
        inline_check(&sid, &flags);
    }
}
