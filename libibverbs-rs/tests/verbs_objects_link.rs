//! Link-level checks of the PD/MR/CQ/QP verbs against the real world, with no
//! RDMA device:
//! - a C program compiled against Debian's <infiniband/verbs.h> and linked
//!   with our libibverbs.so binds each verb at upstream's symbol version, and
//!   at run time (eager binding) reaches our code: NULL arguments come back as
//!   EINVAL, where Debian's library would crash;
//! - Debian's providers, resolved against our library (`ldd -r`), find every
//!   one of these verbs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Our verbs and the version each must be bound at.
const VERBS: &[(&str, &str)] = &[
    ("ibv_alloc_pd", "IBVERBS_1.1"),
    ("ibv_dealloc_pd", "IBVERBS_1.1"),
    ("ibv_reg_mr", "IBVERBS_1.1"),
    ("ibv_dereg_mr", "IBVERBS_1.1"),
    ("ibv_create_cq", "IBVERBS_1.1"),
    ("ibv_destroy_cq", "IBVERBS_1.1"),
    ("ibv_qp_to_qp_ex", "IBVERBS_1.6"),
    ("ibv_reg_mr_iova", "IBVERBS_1.7"),
    ("ibv_reg_mr_iova2", "IBVERBS_1.8"),
];

const PROGRAM: &str = r#"
#include <errno.h>
#include <stdio.h>
#include <infiniband/verbs.h>

#define SHOW(name, failed) do { int f_ = (failed); int e_ = errno; printf("%s %d %d\n", name, f_, e_); errno = 0; } while (0)

int main(void)
{
	static char buf[64];
	errno = 0;
	SHOW("ibv_alloc_pd", ibv_alloc_pd(NULL) == NULL);
	SHOW("ibv_dealloc_pd", ibv_dealloc_pd(NULL) == EINVAL);
	/* The header's macro picks ibv_reg_mr for plain constant flags and
	   ibv_reg_mr_iova2 for optional ones; the parenthesised forms call the
	   functions themselves. */
	SHOW("ibv_reg_mr", ibv_reg_mr(NULL, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) == NULL);
	SHOW("ibv_reg_mr(relaxed)", ibv_reg_mr(NULL, buf, sizeof(buf), IBV_ACCESS_RELAXED_ORDERING) == NULL);
	SHOW("ibv_reg_mr_iova", (ibv_reg_mr_iova)(NULL, buf, sizeof(buf), 0x1000, IBV_ACCESS_LOCAL_WRITE) == NULL);
	SHOW("ibv_reg_mr_iova2", ibv_reg_mr_iova2(NULL, buf, sizeof(buf), 0x1000, IBV_ACCESS_LOCAL_WRITE) == NULL);
	SHOW("ibv_dereg_mr", ibv_dereg_mr(NULL) == EINVAL);
	SHOW("ibv_create_cq", ibv_create_cq(NULL, 1, NULL, NULL, 0) == NULL);
	SHOW("ibv_destroy_cq", ibv_destroy_cq(NULL) == EINVAL);
	SHOW("ibv_qp_to_qp_ex", ibv_qp_to_qp_ex(NULL) == NULL);
	return 0;
}
"#;

/// A directory holding our freshly built cdylib as both libibverbs.so (for
/// the linker) and libibverbs.so.1 (its SONAME, for the loader). Cargo builds
/// the cdylib next to this test in target/<profile>/deps.
fn ours_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(make_ours_dir).clone()
}

fn make_ours_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let built = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|d| d.join("libibverbs.so"))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no libibverbs.so near {}", exe.display()));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verbs_objects_link/lib");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["libibverbs.so", "libibverbs.so.1"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&built, &link).unwrap();
    }
    dir
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn c_program_binds_our_verbs_at_upstream_versions() {
    let lib = ours_dir();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verbs_objects_link");
    std::fs::create_dir_all(&tmp).unwrap();
    let src = tmp.join("prog.c");
    let prog = tmp.join("prog");
    std::fs::write(&src, PROGRAM).unwrap();
    run(Command::new("cc")
        .args(["-O2", "-Wall", "-Werror", "-o"])
        .arg(&prog)
        .arg(&src)
        .arg(format!("-L{}", lib.display()))
        .arg("-libverbs"));

    // Each verb is an undefined reference bound at its upstream version.
    let dynsyms = run(Command::new("objdump").arg("-T").arg(&prog));
    for (name, ver) in VERBS {
        let found = dynsyms.lines().any(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.len() >= 2 && t[t.len() - 1] == *name && t[t.len() - 2] == format!("({ver})") && l.contains("*UND*")
        });
        assert!(found, "{name}@{ver} not referenced by the program:\n{dynsyms}");
    }

    // Eager binding against our library: every reference resolves, and the
    // calls reach our argument checks.
    let out = run(Command::new(&prog).env("LD_LIBRARY_PATH", &lib).env("LD_BIND_NOW", "1"));
    let expect = [
        "ibv_alloc_pd 1 22",
        "ibv_dealloc_pd 1 22",
        "ibv_reg_mr 1 22",
        "ibv_reg_mr(relaxed) 1 22",
        "ibv_reg_mr_iova 1 22",
        "ibv_reg_mr_iova2 1 22",
        "ibv_dereg_mr 1 22",
        "ibv_create_cq 1 22",
        "ibv_destroy_cq 1 22",
        "ibv_qp_to_qp_ex 1 22",
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expect);
}

#[test]
fn debian_providers_find_these_verbs_in_ours() {
    let lib = ours_dir();
    // Debian's ibverbs-providers' own file list: other packages may put
    // providers of their own in the same directory.
    let dir = Path::new("/usr/lib/x86_64-linux-gnu/libibverbs");
    let Ok(listed) = Command::new("dpkg-query").args(["-L", "ibverbs-providers"]).output() else {
        eprintln!("skipped: no dpkg-query");
        return;
    };
    if !listed.status.success() {
        eprintln!("skipped: ibverbs-providers is not installed");
        return;
    }
    let mut checked = 0;
    for line in String::from_utf8_lossy(&listed.stdout).lines() {
        let p = Path::new(line);
        if p.parent() != Some(dir) || p.extension().and_then(|x| x.to_str()) != Some("so") {
            continue;
        }
        let out = Command::new("ldd").arg("-r").arg(p).env("LD_LIBRARY_PATH", &lib).output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let ours = lib.join("libibverbs.so.1");
        assert!(
            text.lines().any(|l| l.trim_start().starts_with("libibverbs.so.1 => ") && l.contains(&*ours.to_string_lossy())),
            "{} does not load our library:\n{text}",
            p.display()
        );
        for (name, _) in VERBS {
            let missing = format!("undefined symbol: {name},");
            assert!(!text.contains(&missing), "{} lacks {name}:\n{text}", p.display());
        }
        checked += 1;
    }
    assert!(checked > 0, "no providers in {}", dir.display());
}
