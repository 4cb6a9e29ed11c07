//! Tests of the comparison harness itself, on the host (no VM): it must call
//! two identical libraries identical, and it must catch a library that
//! behaves differently. Independent of the state of our own libibverbs.
use abi_tests::{paths, scenarios};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A directory (under the scratch directory, one per test, since tests run
/// in parallel) whose libibverbs.so.1 is a copy of Debian's.
fn debian_copy(name: &str) -> PathBuf {
    let dir = paths::scratch(&format!("selftest/{name}"));
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
    let r = run(&debian_copy("debian-copy"), "selftest/run-identical");
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

/// `pair --race`: a try whose client prints the race's line is reported,
/// kept as `.lostN` and run again; a third lost try, or any other failure,
/// still fails the scenario.
#[test]
fn a_lost_race_is_run_again_and_only_a_lost_race() {
    let out = paths::scratch("selftest/run-race");
    let scen = out.join("scenarios");
    let _ = std::fs::remove_dir_all(&scen);
    std::fs::create_dir_all(&scen).expect("create the results directory");
    let root = paths::repo_root();
    let output = Command::new("bash")
        .arg(root.join("abi-tests/scenarios/runner.sh"))
        .arg(root.join("abi-tests/selftest/race-list.sh"))
        .env("SCEN_OUT", &scen)
        .env("RDMA_OURS_LIB_DIR", debian_copy("debian-copy-race"))
        .env_remove("SCEN_ONLY")
        .output()
        .expect("run runner.sh");
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "two scenarios must fail:\n{log}"
    );
    let status =
        |name: &str| std::fs::read_to_string(scen.join(name).join("status")).unwrap_or_default();
    let report = |name: &str| {
        std::fs::read_to_string(scen.join(name).join("report.txt")).unwrap_or_default()
    };
    let exists = |name: &str, file: &str| scen.join(name).join(file).exists();

    // Lost once (by the reference, the first run): run again, then compared.
    assert_eq!(
        status("race_lost_once").trim(),
        "PASS",
        "{}",
        report("race_lost_once")
    );
    assert!(
        report("race_lost_once")
            .contains("server upstream / client upstream: try 1 lost the programs' own race"),
        "{}",
        report("race_lost_once")
    );
    assert!(exists(
        "race_lost_once",
        "upstream-upstream.lost1.client.err"
    ));
    assert!(!exists("race_lost_once", "ours-upstream.lost1.client.err"));

    // Lost every time: two retries per pairing, then the third try fails.
    assert_eq!(status("race_lost_always").trim(), "FAIL");
    let r = report("race_lost_always");
    for pairing in [
        "server upstream / client upstream",
        "server ours / client upstream",
    ] {
        for t in [1, 2] {
            assert!(
                r.contains(&format!("{pairing}: try {t} lost the programs' own race")),
                "{r}"
            );
        }
        assert!(!r.contains(&format!("{pairing}: try 3 lost")), "{r}");
    }
    assert!(exists("race_lost_always", "ours-upstream.lost2.client.err"));
    assert!(!exists(
        "race_lost_always",
        "ours-upstream.lost3.client.err"
    ));

    // Any other failure is not retried.
    assert_eq!(status("race_other_failure").trim(), "FAIL");
    assert!(
        !report("race_other_failure").contains("lost"),
        "{}",
        report("race_other_failure")
    );
    assert!(!exists(
        "race_other_failure",
        "upstream-upstream.lost1.client.err"
    ));
}

/// Runs runner.sh on abi-tests/selftest/tier-list.sh with `envs`; returns
/// the results directory and the runner's output (stdout, then stderr).
fn run_tier_list(out: &str, envs: &[(&str, &str)]) -> (PathBuf, String) {
    let scen = paths::scratch(out).join("scenarios");
    let _ = std::fs::remove_dir_all(&scen);
    std::fs::create_dir_all(&scen).expect("create the results directory");
    let root = paths::repo_root();
    let mut cmd = Command::new("bash");
    cmd.arg(root.join("abi-tests/scenarios/runner.sh"))
        .arg(root.join("abi-tests/selftest/tier-list.sh"))
        .env("SCEN_OUT", &scen)
        .env("RDMA_OURS_LIB_DIR", debian_copy(&format!("debian-copy-{out}").replace('/', "-")))
        .env_remove("SCEN_ONLY")
        .env_remove("SCEN_TIER")
        .env_remove("SCEN_CLAIMS")
        .env_remove("SCEN_LIST");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let output = cmd.output().expect("run runner.sh");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(0), "{log}");
    (scen, log)
}

/// The server:client pairings a pair scenario ran, from its result files.
fn pairings_run(scen: &Path, name: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(scen.join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".client.rc").map(str::to_owned)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_ci_tier_runs_mixed_pairings_only_where_a_scenario_asks() {
    let all = ["ours-ours", "ours-upstream", "upstream-ours", "upstream-upstream"];
    let (scen, log) = run_tier_list("selftest/tier-ci", &[("SCEN_TIER", "ci")]);
    assert_eq!(pairings_run(&scen, "tier_plain"), ["ours-ours", "upstream-upstream"], "{log}");
    assert_eq!(pairings_run(&scen, "tier_mixed"), all, "{log}");
    let (scen, log) = run_tier_list("selftest/tier-full", &[("SCEN_TIER", "full")]);
    assert_eq!(pairings_run(&scen, "tier_plain"), all, "{log}");
    assert_eq!(pairings_run(&scen, "tier_mixed"), all, "{log}");
    for name in ["tier_plain", "tier_mixed", "tier_compare"] {
        let st = std::fs::read_to_string(scen.join(name).join("status")).unwrap_or_default();
        assert_eq!(st.trim(), "PASS", "{name}: {log}");
    }
}

#[test]
fn the_list_names_each_tiers_runs_and_why() {
    let (_, log) = run_tier_list("selftest/tier-list", &[("SCEN_LIST", "1")]);
    let rows: Vec<&str> = log.lines().collect();
    assert_eq!(
        rows,
        [
            "scenario\tkind\tCI tier runs\tfull tier runs\twhy",
            "tier_plain\tpair\tupstream:upstream ours:ours\tupstream:upstream ours:ours ours:upstream upstream:ours\t",
            "tier_mixed\tpair\tupstream:upstream ours:ours ours:upstream upstream:ours\tupstream:upstream ours:ours ours:upstream upstream:ours\tmixed in CI: what mixing catches",
            "tier_compare\tcompare\tupstream ours\tupstream ours\t",
        ],
        "{log}"
    );
}

#[test]
fn a_claimed_scenario_is_left_to_the_vm_that_claimed_it() {
    let claims = paths::scratch("selftest/tier-claims-dir");
    let _ = std::fs::remove_dir_all(&claims);
    std::fs::create_dir_all(claims.join("tier_plain")).expect("claim tier_plain");
    let claims = claims.to_string_lossy().into_owned();
    let (scen, log) = run_tier_list("selftest/tier-claims", &[("SCEN_CLAIMS", &claims)]);
    assert!(!scen.join("tier_plain").exists(), "a claimed scenario ran:\n{log}");
    for name in ["tier_mixed", "tier_compare"] {
        assert!(Path::new(&claims).join(name).is_dir(), "{name} was not claimed:\n{log}");
        let st = std::fs::read_to_string(scen.join(name).join("status")).unwrap_or_default();
        assert_eq!(st.trim(), "PASS", "{name}: {log}");
    }
}

/// Copies the reference files (and key) of `name` from a results directory
/// into a references directory, as `run-scenarios --record` does.
fn record(scen: &Path, refs: &Path, name: &str) {
    let dst = refs.join(name);
    std::fs::create_dir_all(&dst).expect("create the reference directory");
    for e in std::fs::read_dir(scen.join(name)).expect("results of the scenario") {
        let n = e.expect("entry").file_name().to_string_lossy().into_owned();
        let is_ref = n == "key"
            || ["upstream.", "upstream-upstream."]
                .iter()
                .any(|p| n.starts_with(p) && !n.ends_with(".filtered") && !n.ends_with(".seconds"));
        if is_ref {
            std::fs::copy(scen.join(name).join(&n), dst.join(&n)).expect("copy a reference file");
        }
    }
}

fn reference_of(scen: &Path, name: &str) -> String {
    std::fs::read_to_string(scen.join(name).join("reference")).unwrap_or_default().trim().to_string()
}

#[test]
fn a_recorded_reference_serves_only_the_same_scenario_and_a_mismatch_runs_it_live() {
    let refs = paths::scratch("selftest/tier-refs-dir");
    let _ = std::fs::remove_dir_all(&refs);
    let (scen, log) =
        run_tier_list("selftest/tier-refs-1", &[("SCEN_TIER", "ci"), ("SCEN_REF_FP", "fp-one")]);
    assert_eq!(reference_of(&scen, "tier_plain"), "live", "{log}");
    record(&scen, &refs, "tier_plain");
    record(&scen, &refs, "tier_compare");
    let refs_s = refs.to_string_lossy().into_owned();

    // Same fingerprint: the recorded references serve, and both pass.
    let env = [("SCEN_TIER", "ci"), ("SCEN_REF_FP", "fp-one"), ("SCEN_REFS", refs_s.as_str())];
    let (scen, log) = run_tier_list("selftest/tier-refs-2", &env);
    for name in ["tier_plain", "tier_compare"] {
        assert_eq!(reference_of(&scen, name), "recorded", "{name}: {log}");
    }
    assert_eq!(reference_of(&scen, "tier_mixed"), "live", "{log}");
    // The full tier never uses them.
    let full = [("SCEN_TIER", "full"), ("SCEN_REF_FP", "fp-one"), ("SCEN_REFS", refs_s.as_str())];
    let (scen, log) = run_tier_list("selftest/tier-refs-3", &full);
    assert_eq!(reference_of(&scen, "tier_plain"), "live", "{log}");
    // Another fingerprint (other packages, kernel or vm-progs): not used.
    let other = [("SCEN_TIER", "ci"), ("SCEN_REF_FP", "fp-two"), ("SCEN_REFS", refs_s.as_str())];
    let (scen, log) = run_tier_list("selftest/tier-refs-4", &other);
    assert_eq!(reference_of(&scen, "tier_plain"), "live", "{log}");
    // A recorded reference ours does not match: Debian's run live decides.
    let out = refs.join("tier_plain/upstream-upstream.client.out");
    std::fs::write(&out, "not what the client prints\n").expect("tamper with the reference");
    let (scen, log) = run_tier_list("selftest/tier-refs-5", &env);
    assert_eq!(reference_of(&scen, "tier_plain"), "live", "{log}");
    let st = std::fs::read_to_string(scen.join("tier_plain/status")).unwrap_or_default();
    assert_eq!(st.trim(), "PASS", "{log}");
    assert_eq!(reference_of(&scen, "tier_compare"), "recorded", "{log}");
}
