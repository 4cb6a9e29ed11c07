//! The `ibv_cmd_*` helpers providers call, Debian's libibverbs against ours.
//!
//! abi-tests/cmd_diff/cmddiff.c (compiled here with gcc against Debian's
//! headers, linked with -rdynamic) defines `ioctl()` and `write()` itself, so
//! the command FD of its fake verbs context is answered by a scripted
//! "kernel" inside the program. It drives every IBVERBS_PRIVATE_34 command
//! helper (PD, MW, AH, multicast, MR, CQ, QP, SRQ, context, port and device
//! queries, flows, flow actions, WQs, RSS tables, counters, device memory,
//! XRC, the data path, CQ moderation) plus verbs_init_cq and
//! ibv_query_gid_type, with provider-sized command and response structs,
//! through the ioctl path, the write()/ex-write fallbacks the kernel's
//! EPROTONOSUPPORT / ENOTTY select, and kernel errors, and prints every
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

/// Shell step run inside `unshare -rm` for the ABI-6 phase: a private /dev
/// holding /dev/infiniband/uverbs0 (the library only stat()s it), so the
/// fake sysfs tree the program writes lists one uverbs device and the
/// library reads the kernel's ABI version from it, as on a real system.
const ABI6_WRAP: &str =
    "mount -t tmpfs none /dev && mkdir /dev/infiniband && : > /dev/infiniband/uverbs0 && exec \"$0\" abi6";

fn run(bin: &Path, ours_dir: Option<&Path>, abi6: bool) -> String {
    let mut cmd = if abi6 {
        let mut c = Command::new("unshare");
        c.args(["-rm", "sh", "-c", ABI6_WRAP]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.env_clear().env("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
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

    let debian = run(&bin, None, false);
    let mine = run(&bin, Some(ours_dir), false);
    let scenarios = debian.lines().filter(|l| l.starts_with("== ")).count();
    // The fake kernel must really have been reached (the interposition
    // works) and the scenarios all have run.
    assert!(debian.contains("  ioctl obj=") && debian.contains("  write cmd="), "no command reached the fake kernel:\n{debian}");
    assert!(scenarios >= 240, "only {scenarios} scenarios ran");
    if debian != mine {
        panic!("ibv_cmd_* helpers differ from Debian's:\n{}", differing_blocks(&debian, &mine));
    }
    eprintln!("cmd_diff: {scenarios} scenarios identical with Debian's libibverbs and ours");
}

/// The write fallbacks of create_qp / create_srq depend on the kernel's
/// uverbs ABI version, which the library learns when it first lists devices;
/// the main run has none (the legacy v3 / v5 commands). This phase lets both
/// libraries read version 6 from a fake sysfs tree and repeats those cases.
/// Needs unprivileged user and mount namespaces (`unshare -rm`).
#[test]
fn cmd_helpers_abi6_debian_vs_ours() {
    paths::system_lib("libibverbs.so.1");
    let ours = paths::ours_lib("libibverbs.so.1");
    let ours_dir = ours.parent().unwrap();
    let ok = Command::new("unshare").args(["-rm", "true"]).status().map(|s| s.success());
    if ok.ok() != Some(true) {
        eprintln!("cmd_diff abi6: SKIPPED, `unshare -rm` is not available here");
        return;
    }
    let bin = paths::scratch("cmd_diff_abi6").join("cmddiff");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("cmd_diff").join("cmddiff.c");
    let res = Command::new("gcc")
        .args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O1", "-rdynamic", "-o"])
        .arg(&bin)
        .arg(&src)
        .arg("-libverbs")
        .output()
        .expect("running gcc (install gcc and libibverbs-dev)");
    assert!(res.status.success(), "compiling failed:\n{}", String::from_utf8_lossy(&res.stderr));

    let debian = run(&bin, None, true);
    let mine = run(&bin, Some(ours_dir), true);
    // Debian's library really took the ABI-6 paths: the full create_qp
    // response (32 bytes core + 8 driver), not the v3 one (8 + 8).
    assert!(
        debian.contains("write cmd=0x18 in=20 out=10"),
        "Debian's library did not pick up ABI version 6:\n{debian}"
    );
    if debian != mine {
        panic!("ibv_cmd_* helpers (ABI 6) differ from Debian's:\n{}", differing_blocks(&debian, &mine));
    }
    let scenarios = debian.lines().filter(|l| l.starts_with("== ")).count();
    eprintln!("cmd_diff abi6: {scenarios} scenarios identical with Debian's libibverbs and ours");
}
