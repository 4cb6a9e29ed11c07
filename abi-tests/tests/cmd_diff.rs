//! The `ibv_cmd_*` helpers providers call, Debian's libibverbs against ours.
//!
//! abi-tests/cmd_diff/cmddiff.c (compiled here with gcc against Debian's
//! headers, linked with -rdynamic) defines `ioctl()` and `write()` itself, so
//! the command FD of its fake verbs context is answered by a scripted
//! "kernel" inside the program. It drives the flow, flow action, WQ, RSS
//! table, counters, device memory, XRC, data-path, MR and CQ-moderation
//! helpers through success, fallback and error paths and prints every
//! command that reaches the kernel (ioctl header and attributes, or the
//! write() bytes) and what each helper returned and filled in. It runs once
//! with Debian's library and once with ours (LD_LIBRARY_PATH); the outputs
//! must be identical.
//!
//! Needs gcc, libibverbs-dev and the release build of our library
//! (`cargo build --release -p libibverbs-rs`). No device or root needed.
use abi_tests::paths;
use std::path::Path;
use std::process::Command;

fn run(bin: &Path, ours_dir: Option<&Path>) -> String {
    let mut cmd = Command::new(bin);
    cmd.env_clear().env("PATH", "/usr/bin:/bin");
    if let Some(dir) = ours_dir {
        cmd.env("LD_LIBRARY_PATH", dir);
    }
    let out = cmd.output().expect("running cmddiff");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && stdout.ends_with("done\n"),
        "cmddiff ({}) failed: {}\nstderr:\n{}\nstdout:\n{stdout}",
        if ours_dir.is_some() { "ours" } else { "Debian's" },
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The scenarios (`== name` blocks) whose text differs, each shown as the
/// two versions side by side.
fn differing_blocks(debian: &str, ours: &str) -> String {
    fn blocks(s: &str) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = Vec::new();
        for line in s.lines() {
            if let Some(name) = line.strip_prefix("== ") {
                v.push((name.to_string(), String::new()));
            } else if let Some(last) = v.last_mut() {
                last.1.push_str(line);
                last.1.push('\n');
            }
        }
        v
    }
    let (d, o) = (blocks(debian), blocks(ours));
    let mut report = String::new();
    if d.len() != o.len() {
        report.push_str(&format!("{} scenarios with Debian's library, {} with ours\n", d.len(), o.len()));
    }
    for ((dn, dt), (on, ot)) in d.iter().zip(o.iter()) {
        if dn != on || dt != ot {
            report.push_str(&format!("===== {dn}\n--- Debian's\n{dt}--- ours ({on})\n{ot}"));
        }
    }
    report
}

#[test]
fn cmd_helpers_debian_vs_ours() {
    paths::system_lib("libibverbs.so.1");
    let ours = paths::ours_lib("libibverbs.so.1");
    let ours_dir = ours.parent().unwrap();
    let bin = paths::scratch("cmd_diff").join("cmddiff");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("cmd_diff").join("cmddiff.c");
    let res = Command::new("gcc")
        .args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O1", "-rdynamic", "-o"])
        .arg(&bin)
        .arg(&src)
        .arg("-libverbs")
        .output()
        .expect("running gcc (install gcc and libibverbs-dev)");
    assert!(
        res.status.success(),
        "compiling {} failed:\n{}",
        src.display(),
        String::from_utf8_lossy(&res.stderr)
    );

    let debian = run(&bin, None);
    let mine = run(&bin, Some(ours_dir));
    let scenarios = debian.lines().filter(|l| l.starts_with("== ")).count();
    // The fake kernel must really have been reached (the interposition
    // works) and the scenarios all have run.
    assert!(debian.contains("  ioctl obj=") && debian.contains("  write cmd="), "no command reached the fake kernel:\n{debian}");
    assert!(scenarios >= 70, "only {scenarios} scenarios ran");
    if debian != mine {
        panic!("ibv_cmd_* helpers differ from Debian's:\n{}", differing_blocks(&debian, &mine));
    }
    eprintln!("cmd_diff: {scenarios} scenarios identical with Debian's libibverbs and ours");
}
