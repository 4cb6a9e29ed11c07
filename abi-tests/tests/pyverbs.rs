//! Debian's pyverbs (python3-pyverbs) imports on our libraries (the host
//! half; the VM half, with a device, is the pyverbs_rxe0 scenario): Debian
//! 12's on the host, and Debian 13's and sid's in a chroot of their root
//! filesystems (abi-tests/vm/build-userland), with our libraries copied into
//! its /tmp.
//!
//! The modules are Cython extensions linked against libibverbs.so.1,
//! librdmacm.so.1 and (mlx5dv) libmlx5.so.1. They run under Debian's
//! /usr/bin/python3 with LD_LIBRARY_PATH=target/release and LD_BIND_NOW=1,
//! so every function they import must resolve in our libraries at import
//! time, not at first call. The same process prints the libraries it mapped:
//! libibverbs and librdmacm must be ours, and the one libmlx5 (a provider
//! library linked against libibverbs) must then be bound to ours too.

use std::path::{Path, PathBuf};
use std::process::Command;

use abi_tests::paths;

/// Debian's interpreter: the python3-pyverbs modules are built for it (a
/// python3 earlier in PATH, e.g. pyenv's, has no pyverbs).
const PYTHON: &str = "/usr/bin/python3";

const MODULES: &[&str] = &[
    "pyverbs.device",
    "pyverbs.qp",
    "pyverbs.cmid",
    "pyverbs.providers.mlx5.mlx5dv",
];

/// Imports `modules` and prints every mapped libibverbs/librdmacm/libmlx5.
fn import(modules: &[&str], ours: bool) -> (bool, String) {
    assert!(
        Path::new(PYTHON).exists(),
        "{PYTHON} missing: install python3"
    );
    import_in(None, modules, ours.then(paths::ours_lib_dir))
}

/// [`import`] in the root filesystem `root` (chroot) if given, with our
/// libraries from `ours` (a path as the process sees it) if given.
fn import_in(root: Option<&Path>, modules: &[&str], ours: Option<PathBuf>) -> (bool, String) {
    let script = format!(
        "import {}\n\
         seen = set()\n\
         for line in open('/proc/self/maps'):\n\
         \x20   p = line.split()[-1]\n\
         \x20   if any(n in p for n in ('libibverbs.so', 'librdmacm.so', 'libmlx5.so')):\n\
         \x20       seen.add(p)\n\
         for p in sorted(seen):\n\
         \x20   print('mapped', p)\n",
        modules.join(", ")
    );
    let mut cmd = match root {
        None => Command::new(PYTHON),
        Some(r) => {
            // The script reads /proc/self/maps: a /proc in a mount
            // namespace of its own, gone with the process.
            let mut c = Command::new("unshare");
            c.args(["-m", "--propagation", "private", "sh", "-c",
                    r#"mount -t proc proc "$0/proc" && exec chroot "$0" "$@""#])
                .arg(r)
                .arg(PYTHON);
            c
        }
    };
    cmd.arg("-c")
        .arg(&script)
        .env("LD_BIND_NOW", "1")
        .env_remove("PYTHONPATH");
    if let Some(dir) = ours {
        cmd.env("LD_LIBRARY_PATH", dir);
    } else {
        cmd.env_remove("LD_LIBRARY_PATH");
    }
    let out = cmd.output().expect("run python3");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn real(p: &Path) -> String {
    std::fs::canonicalize(p).unwrap().display().to_string()
}

#[test]
fn pyverbs_imports_on_debian_libraries() {
    // The baseline: if this fails, python3-pyverbs is not installed
    // (abi-tests/install-deps.sh).
    let (ok, text) = import(MODULES, false);
    assert!(
        ok,
        "pyverbs does not import even with Debian's libraries:\n{text}"
    );
}

#[test]
fn pyverbs_imports_on_ours() {
    let ibverbs = real(&paths::ours_lib("libibverbs.so.1"));
    let rdmacm = real(&paths::ours_lib("librdmacm.so.1"));
    // Each module alone first, so a failure names the module.
    for m in MODULES {
        let (ok, text) = import(&[m], true);
        assert!(
            ok,
            "import {m} with LD_BIND_NOW=1 on our libraries failed:\n{text}"
        );
    }
    let (ok, text) = import(MODULES, true);
    assert!(ok, "importing {MODULES:?} together failed:\n{text}");
    let mapped: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("mapped "))
        .collect();
    assert!(
        mapped.contains(&ibverbs.as_str()),
        "our libibverbs is not mapped:\n{text}"
    );
    assert!(
        mapped.contains(&rdmacm.as_str()),
        "our librdmacm is not mapped:\n{text}"
    );
    let foreign: Vec<&&str> = mapped
        .iter()
        .filter(|p| {
            (p.contains("libibverbs.so") && **p != ibverbs)
                || (p.contains("librdmacm.so") && **p != rdmacm)
        })
        .collect();
    assert!(
        foreign.is_empty(),
        "Debian's libraries were mapped as well: {foreign:?}\n{text}"
    );
    assert!(
        mapped.iter().any(|p| p.contains("libmlx5.so")),
        "mlx5dv did not map libmlx5:\n{text}"
    );
}

/// Debian 13's or sid's pyverbs on their own libraries, then on ours: every
/// module imports with LD_BIND_NOW=1, and the process maps our libibverbs
/// and librdmacm and no other.
fn userland_imports_on_ours(suite: &str) {
    if !paths::is_root() {
        eprintln!("pyverbs in {suite}: not root, cannot chroot; skipped");
        return;
    }
    let staged = paths::OursInUserland::new(suite, "pyverbs");
    let (root, inside) = (staged.root.clone(), staged.ours_dir());
    let theirs = import_in(Some(&root), MODULES, None);
    let each: Vec<(String, (bool, String))> =
        MODULES.iter().map(|m| (m.to_string(), import_in(Some(&root), &[m], Some(inside.clone())))).collect();
    let all = import_in(Some(&root), MODULES, Some(inside.clone()));
    drop(staged);
    assert!(theirs.0, "{suite}'s pyverbs does not import on its own libraries:\n{}", theirs.1);
    for (m, (ok, text)) in &each {
        assert!(ok, "{suite}: import {m} with LD_BIND_NOW=1 on our libraries failed:\n{text}");
    }
    let (ok, text) = all;
    assert!(ok, "{suite}: importing {MODULES:?} together failed:\n{text}");
    let mapped: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("mapped ")).collect();
    for so in ["libibverbs.so.1", "librdmacm.so.1"] {
        let ours = inside.join(so);
        assert!(mapped.contains(&ours.to_str().unwrap()), "{suite}: our {so} is not mapped:\n{text}");
    }
    let foreign: Vec<&&str> = mapped
        .iter()
        .filter(|p| (p.contains("libibverbs.so") || p.contains("librdmacm.so")) && !p.starts_with(inside.to_str().unwrap()))
        .collect();
    assert!(foreign.is_empty(), "{suite}: its own libraries were mapped as well: {foreign:?}\n{text}");
    assert!(mapped.iter().any(|p| p.contains("libmlx5.so")), "{suite}: mlx5dv did not map libmlx5:\n{text}");
    eprintln!("{suite}: pyverbs imports {MODULES:?} on our libraries with LD_BIND_NOW=1");
}

#[test]
fn debian13_pyverbs_imports_on_ours() {
    userland_imports_on_ours("trixie");
}

#[test]
fn sid_pyverbs_imports_on_ours() {
    userland_imports_on_ours("sid");
}
