//! Source compatibility of our C headers (include/) with Debian's, checked by
//! abi-tests/headers/compare (see the top of that script for what it compares).
//!
//! - `compare_selftest`: the comparator itself, on a copy of Debian 12's
//!   headers: the copy must compare clean, and deliberate breaks in it (a
//!   padding member, an enumerator, a macro, a prototype) must be reported.
//! - `ours_match_debian_headers`: include/ against Debian 12's headers
//!   (/usr/include, libibverbs-dev 44) and, when the sid set is cached or can
//!   be fetched (abi-tests/headers/fetch-sid-headers), against sid's
//!   (rdma-core 65) with `--newer sid`: what rdma-core changed between the
//!   two releases must be as in 65, everything else as in 44.
//!
//! - `rdma_verbs_inlines_behave_as_upstream`: the inline functions of
//!   rdma_verbs.h, rdma_cma.h and ib.h, call by call (rdma-verbs-check).
//! - `verbs_inline_functions_behave_as_rdma_cores`: the code our verbs.h
//!   compiles into applications (its static inline functions and macros,
//!   include/hand/infiniband/verbs.tail.h) against rdma-core's.
//!   abi-tests/headers/inline-check builds headers/inline_check.c against a
//!   reference header set and against ours, as C and C++, at -O0 and -O2, and
//!   diffs what the programs print: for every inline function and macro, on
//!   fake objects whose entry points are mocks, which entry point or library
//!   function was called with which arguments, what came back and what errno
//!   was left. Ours may not draw more diagnostics than the reference under
//!   strict settings (C99/C11 -pedantic, C++98, C++ -pedantic, -Wconversion).
//!
//! Needs gcc, g++, python3-pyelftools, libibverbs-dev and librdmacm-dev
//! (abi-tests/install-deps.sh).
use abi_tests::paths;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Debian 12's header set: /usr/include, as libibverbs-dev installs it.
const DEB12: &str = "/usr/include";

fn script(name: &str) -> PathBuf {
    let path = paths::repo_root().join("abi-tests/headers").join(name);
    assert!(path.exists(), "{} is missing", path.display());
    path
}

/// The comparator, after checking what it needs, so that a missing package
/// is named rather than found out from a Python traceback.
fn compare_tool() -> Command {
    for (path, package) in [
        ("/usr/bin/python3", "python3"),
        (
            "/usr/lib/python3/dist-packages/elftools",
            "python3-pyelftools",
        ),
        ("/usr/include/infiniband/verbs.h", "libibverbs-dev"),
        ("/usr/include/rdma/rdma_cma.h", "librdmacm-dev"),
    ] {
        assert!(
            Path::new(path).exists(),
            "{path} is missing: install {package} (abi-tests/install-deps.sh)"
        );
    }
    Command::new(script("compare"))
}

fn output_of(what: &str, cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("running {what}: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "exit: {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn compare_selftest() {
    let out = output_of("compare --selftest", compare_tool().arg("--selftest"));
    assert!(
        out.status.success(),
        "compare --selftest failed:\n{}",
        text(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("selftest: ok:"),
        "compare --selftest did not report success:\n{}",
        text(&out)
    );
    println!("{stdout}");
}

/// sid's header set: (include directory, extra gcc flags), or None when it
/// is neither cached nor fetchable (said on stderr).
fn sid_headers() -> Option<(String, String)> {
    let out = output_of(
        "fetch-sid-headers",
        &mut Command::new(script("fetch-sid-headers")),
    );
    if !out.status.success() {
        eprintln!(
            "the sid header set is not available; comparing with Debian 12's only:\n{}",
            text(&out)
        );
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

#[test]
fn ours_match_debian_headers() {
    let include = paths::repo_root().join("include");
    let json = paths::scratch("headers").join("compare.json");
    let mut cmd = compare_tool();
    cmd.arg("--ref").arg(format!("deb12={DEB12}"));
    if let Some((dir, flags)) = sid_headers() {
        cmd.arg("--ref").arg(format!("sid={dir}"));
        if !flags.is_empty() {
            cmd.arg("--cflags").arg(format!("sid={flags}"));
        }
        cmd.args(["--newer", "sid"]);
    }
    cmd.arg("--ours").arg(&include).arg("--json").arg(&json);
    let out = output_of("compare", &mut cmd);
    assert!(
        out.status.success(),
        "our headers ({}) differ from Debian's (whole result: {}):\n{}",
        include.display(),
        json.display(),
        text(&out)
    );
    println!("{}", String::from_utf8_lossy(&out.stdout));
}

/// The inline functions of our rdma_verbs.h, rdma_cma.h and ib.h behave as
/// Debian 12's and sid's: abi-tests/headers/rdma-verbs-check builds one
/// program (everything the inlines call is mocked) as C and C++ against each
/// header set and diffs what each build prints, call by call.
#[test]
fn rdma_verbs_inlines_behave_as_upstream() {
    let mut cmd = Command::new(script("rdma-verbs-check"));
    cmd.arg(DEB12);
    if let Some((dir, _)) = sid_headers() {
        cmd.arg(dir);
    }
    let out = output_of("rdma-verbs-check", &mut cmd);
    assert!(out.status.success(), "rdma-verbs-check found a difference:\n{}", text(&out));
    println!("{}", String::from_utf8_lossy(&out.stdout));
}

/// Runs inline-check with our include/ against one reference root.
fn inline_check(reference: &str, cflags: &str) {
    let out = output_of(
        "inline-check",
        Command::new(script("inline-check"))
            .arg("--ours")
            .arg(paths::repo_root().join("include"))
            .args(["--cflags", cflags, reference]),
    );
    assert!(out.status.success(), "inline-check against {reference} failed:\n{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The comparison must really have run its programs.
    assert!(stdout.contains(" lines identical"), "no program output was compared:\n{stdout}");
    println!("{stdout}");
}

#[test]
fn verbs_inline_functions_behave_as_rdma_cores() {
    assert!(
        paths::repo_root().join("include/infiniband/verbs.h").exists(),
        "include/infiniband/verbs.h does not exist: run `cargo run -p gen-headers`"
    );
    assert!(
        Path::new("/usr/include/infiniband/verbs.h").exists(),
        "Debian's headers are missing: install libibverbs-dev (abi-tests/install-deps.sh)"
    );
    inline_check(DEB12, "");
    if let Some((sid, flags)) = sid_headers() {
        inline_check(&sid, &flags);
    }
}
