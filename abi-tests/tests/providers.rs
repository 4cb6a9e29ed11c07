//! Every provider of each distribution we serve loads into our libibverbs
//! and registers, as it does into that distribution's own library: Debian
//! 12's on the host, Debian 13's in a chroot of the root filesystem that
//! abi-tests/vm/build-userland makes (the probe and our libraries are copied
//! into its /tmp, the fake sysfs tree and /dev nodes made inside it).
//!
//! 1. `every_provider_loads_into_ours`: abi-tests/providers/provider_load.c
//!    (built here against Debian's headers, linked with -libverbs) dlopen()s
//!    each provider with RTLD_NOW in a process whose libibverbs.so.1 is ours
//!    (LD_LIBRARY_PATH=target/release; the program prints the real path of
//!    the one libibverbs mapped, before and after the load). RTLD_NOW fails
//!    on any unresolved symbol or missing symbol version, so "ok" means every
//!    IBVERBS_* import of the provider binds to our library. The same run
//!    with Debian's library is the baseline.
//! 2. `every_provider_registers_with_ours`: a fake sysfs tree (SYSFS_PATH,
//!    as in tests/fake_sysfs.rs) holds one device per provider, of the kind
//!    that provider's match table claims (PCI ids in the modalias, or the
//!    device name). ibv_get_device_list() returns a device only when a
//!    provider that registered through verbs_register_driver_34 matched it
//!    and allocated it, so each expected device in the list proves its
//!    provider's registration with our library. Debian's library on the same
//!    tree must produce the same list and the same warnings
//!    (IBV_SHOW_WARNINGS=1).
//!
//! Needs root for the fake /dev/infiniband nodes (char major 60, reserved
//! for local use: nothing answers an open()) and for chroot; without root
//! test 2 and the Debian 13 tests say so and return.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use abi_tests::paths;

/// Where the providers are, inside each userland.
const PROVIDER_DIR: &str = "/usr/lib/x86_64-linux-gnu/libibverbs";
/// The distributions' libibverbs, inside each userland.
const LIBIBVERBS: &str = "/usr/lib/x86_64-linux-gnu/libibverbs.so.1";
const FAKE_MAJOR: u32 = 60;

/// How a fake device of each provider's kind is recognised: (provider, device
/// name, PCI modalias or "" for a name match, uverbs ABI version in the
/// provider's range). Facts from the providers' match tables in rdma-core
/// v44.0 (vendor/device ids) and their match_{min,max}_abi_version.
const MATCHABLE: &[(&str, &str, &str, &str)] = &[
    (
        "bnxt_re",
        "bnxt_re0",
        "pci:v000014E4d00001614sv000014E4sd00000000bc02sc00i00",
        "1",
    ),
    // T420-cr on PCI function 4 (0x4001 | 4 << 8).
    (
        "cxgb4",
        "cxgb4_0",
        "pci:v00001425d00004401sv00001425sd00000000bc02sc00i00",
        "1",
    ),
    (
        "efa",
        "efa_0",
        "pci:v00001D0Fd0000EFA0sv00001D0Fsd00000000bc02sc00i00",
        "1",
    ),
    (
        "erdma",
        "erdma_0",
        "pci:v00001DEDd0000107Fsv00001DEDsd00000000bc02sc00i00",
        "1",
    ),
    (
        "hfi1verbs",
        "hfi1_0",
        "pci:v00008086d000024F0sv00008086sd00000000bc0Csc06i00",
        "1",
    ),
    (
        "hns",
        "hns_0",
        "pci:v000019E5d0000A222sv000019E5sd00000000bc02sc00i00",
        "1",
    ),
    (
        "ipathverbs",
        "qib0",
        "pci:v00001077d00007322sv00001077sd00000000bc0Csc06i00",
        "1",
    ),
    (
        "irdma",
        "irdma0",
        "pci:v00008086d0000124Csv00008086sd00000000bc02sc00i00",
        "5",
    ),
    (
        "mlx4",
        "mlx4_0",
        "pci:v000015B3d00001003sv000015B3sd00000006bc02sc00i00",
        "4",
    ),
    (
        "mlx5",
        "mlx5_0",
        "pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00",
        "1",
    ),
    (
        "mthca",
        "mthca0",
        "pci:v000015B3d00005A44sv000015B3sd00005A44bc0Csc06i00",
        "1",
    ),
    (
        "ocrdma",
        "ocrdma0",
        "pci:v000010DFd0000E220sv000010DFsd00000000bc02sc00i00",
        "2",
    ),
    (
        "qedr",
        "qedr0",
        "pci:v00001077d00001629sv00001077sd00000000bc02sc00i00",
        "8",
    ),
    ("rxe", "rxe0", "", "1"),
    (
        "vmw_pvrdma",
        "vmw_pvrdma0",
        "pci:v000015ADd00000820sv000015ADsd00000000bc02sc00i00",
        "3",
    ),
];

/// Providers whose match table has only a kernel driver id: upstream (and
/// we) learn a device's driver id from RDMA netlink, which this host's
/// kernel lacks, so no sysfs tree can make them match. Their loading is
/// still checked by test 1.
const DRIVER_ID_ONLY: &[(&str, &str)] = &[
    ("ionic", "VERBS_DRIVER_ID(RDMA_DRIVER_IONIC) only (rdma-core 65)"),
    ("mana", "VERBS_DRIVER_ID(RDMA_DRIVER_MANA) only"),
    ("siw", "VERBS_DRIVER_ID(RDMA_DRIVER_SIW) only"),
];

/// Where a test runs its probe: the host (Debian 12), or a chroot of
/// another distribution's root filesystem.
struct Userland {
    title: &'static str,
    /// None: the host itself.
    root: Option<PathBuf>,
    /// Our libraries' directory as the probe sees it.
    ours_dir: PathBuf,
    /// Scratch space as the probe sees it, and on the host.
    scratch_inside: PathBuf,
    scratch_host: PathBuf,
    /// Our libraries copied into the userland, removed with it.
    _staged: Option<paths::OursInUserland>,
}

impl Userland {
    fn host() -> Userland {
        let scratch = paths::scratch("providers");
        Userland {
            title: "Debian 12",
            root: None,
            ours_dir: paths::ours_lib_dir(),
            scratch_inside: scratch.clone(),
            scratch_host: scratch,
            _staged: None,
        }
    }

    /// The userland of `suite`, with our libraries copied into its /tmp
    /// (under `tag`: tests run in parallel).
    fn chroot(title: &'static str, suite: &str, tag: &str) -> Userland {
        let staged = paths::OursInUserland::new(suite, &format!("providers-{tag}"));
        Userland {
            title,
            root: Some(staged.root.clone()),
            ours_dir: staged.ours_dir(),
            scratch_inside: staged.inside.clone(),
            scratch_host: staged.host.clone(),
            _staged: Some(staged),
        }
    }

    /// The host's path of a path inside.
    fn host_path(&self, inside: &Path) -> PathBuf {
        match &self.root {
            None => inside.to_path_buf(),
            Some(r) => r.join(inside.strip_prefix("/").unwrap_or(inside)),
        }
    }

    /// The real path, inside, of a path inside.
    fn real_path(&self, inside: &Path) -> PathBuf {
        match &self.root {
            None => fs::canonicalize(inside).unwrap(),
            Some(r) => {
                // Resolve link by link within the root.
                let mut p = inside.to_path_buf();
                for _ in 0..16 {
                    match fs::read_link(r.join(p.strip_prefix("/").unwrap())) {
                        Ok(t) => p = p.parent().unwrap().join(t),
                        Err(_) => break,
                    }
                }
                p.components().fold(PathBuf::new(), |mut acc, c| {
                    match c {
                        std::path::Component::ParentDir => {
                            acc.pop();
                        }
                        c => acc.push(c),
                    }
                    acc
                })
            }
        }
    }

    /// The files a package of this userland owns (its dpkg database).
    fn package_files(&self, package: &str) -> Vec<PathBuf> {
        let Some(root) = &self.root else {
            return paths::package_files(&[package]);
        };
        let out = Command::new("dpkg-query")
            .arg(format!("--admindir={}", root.join("var/lib/dpkg").display()))
            .args(["-L", package])
            .output()
            .expect("run dpkg-query");
        assert!(out.status.success(), "dpkg-query -L {package} in {}", root.display());
        String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.starts_with('/')).map(PathBuf::from).collect()
    }

}

/// The providers the userland's ibverbs-providers installs (its file list,
/// not a listing of PROVIDER_DIR, where other packages may add providers of
/// their own), then the direct-verbs libraries that some of them are
/// symlinks to (by SONAME), as paths inside the userland.
fn providers(u: &Userland) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = u
        .package_files("ibverbs-providers")
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            p.parent() == Some(Path::new(PROVIDER_DIR)) && n.starts_with("lib") && provider_suffix(&n).is_some()
        })
        .collect();
    v.sort();
    v.dedup();
    assert!(!v.is_empty(), "{}'s ibverbs-providers lists no provider in {PROVIDER_DIR}", u.title);
    let mut libs = Vec::new();
    for p in &v {
        // libmlx5-rdmav34.so -> ../libmlx5.so.1.25.56.1: the library is
        // also loaded by its SONAME, libmlx5.so.1.
        if let Ok(t) = fs::read_link(u.host_path(p)) {
            let n = t.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(i) = n.find(".so.") {
                let soname = format!("{}.so.{}", &n[..i], n[i + 4..].split('.').next().unwrap());
                libs.push(Path::new(LIBIBVERBS).with_file_name(soname));
            }
        }
    }
    for l in &libs {
        assert!(u.host_path(l).exists(), "{} in {}", l.display(), u.title);
    }
    v.extend(libs);
    v
}

/// The `-rdmavNN.so` suffix of a provider file name (NN: the private ABI it
/// was built for, 34 or 65).
fn provider_suffix(name: &str) -> Option<&str> {
    let i = name.rfind("-rdmav")?;
    let tail = &name[i..];
    let digits = tail.strip_prefix("-rdmav")?.strip_suffix(".so")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(tail)
}

fn short_name(p: &Path) -> String {
    let n = p.file_name().unwrap().to_string_lossy();
    let n = n.trim_start_matches("lib");
    match provider_suffix(n) {
        Some(sfx) => n[..n.len() - sfx.len()].to_string(),
        None => n.to_string(),
    }
}

/// Builds the probe as `name` (one per test: tests run in parallel) into
/// the userland's scratch space; returns its path inside.
fn build_probe(u: &Userland, name: &str) -> PathBuf {
    let exe = u.scratch_host.join(name);
    let src = paths::repo_root().join("abi-tests/providers/provider_load.c");
    let out = Command::new("gcc")
        .args(["-std=gnu11", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .args(["-rdynamic", "-libverbs", "-ldl"])
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "gcc {}: {}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    u.scratch_inside.join(name)
}

/// Runs the probe with `steps`; `ours` puts our library first.
fn run(u: &Userland, exe: &Path, steps: &[String], ours: bool, env: &[(&str, &str)]) -> Output {
    let mut cmd = match &u.root {
        None => Command::new(exe),
        Some(r) => {
            let mut c = Command::new("chroot");
            c.arg(r).arg(exe);
            c
        }
    };
    cmd.args(steps)
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("LC_ALL", "C");
    if ours {
        cmd.env("LD_LIBRARY_PATH", &u.ours_dir);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run provider_load")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}exit {:?}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
        o.status.code()
    )
}

fn providers_load_into_ours_and_register(u: &Userland) {
    let ours_lib = u.real_path(&u.ours_dir.join("libibverbs.so.1"));
    let debian_lib = u.real_path(Path::new(LIBIBVERBS));
    let exe = build_probe(u, "provider_load_1");
    let mut failures = Vec::new();
    let all = providers(u);
    assert!(
        all.len() >= 21,
        "expected {}'s 17 providers and at least 4 provider libraries: {all:?}",
        u.title
    );
    for p in &all {
        let steps = vec!["whose".to_string(), format!("load:{}", p.display())];
        // The probe's own verbs_register_driver_34 prints "register NAME"
        // for each registration the provider's constructor makes.
        let mut registered: Vec<Vec<String>> = Vec::new();
        for (ours, lib) in [(true, &ours_lib), (false, &debian_lib)] {
            let o = run(u, &exe, &steps, ours, &[]);
            let out = String::from_utf8_lossy(&o.stdout);
            let want_lib = format!("libibverbs: {}\n", lib.display());
            let want_load = format!("load {}: ok\n", p.display());
            // "whose" before and after the load: our library both times.
            registered.push(out.lines().filter(|l| l.starts_with("register ")).map(str::to_string).collect());
            let ok = o.status.success()
                && out.matches(&want_lib).count() == 2
                && out.contains(&want_load);
            if !ok {
                failures.push(format!(
                    "{} with {} library:\n{}",
                    p.display(),
                    if ours { "our" } else { "the distribution's" },
                    text(&o)
                ));
            }
        }
        if registered[0].len() != 1 || registered[0] != registered[1] {
            failures.push(format!(
                "{}: registrations with our library {:?}, with the distribution's {:?} (want one, the same)",
                p.display(),
                registered[0],
                registered[1]
            ));
        }
    }
    eprintln!("{}: {} providers and provider libraries loaded RTLD_NOW into ours and registered", u.title, all.len());
    assert!(
        failures.is_empty(),
        "{}: provider loading failed:\n{}",
        u.title,
        failures.join("\n")
    );
}

#[test]
fn every_provider_loads_into_ours_and_registers() {
    providers_load_into_ours_and_register(&Userland::host());
}

#[test]
fn every_sid_provider_loads_into_ours_and_registers() {
    if !paths::is_root() {
        eprintln!("every_sid_provider_loads_into_ours_and_registers: not root, cannot chroot; skipped");
        return;
    }
    providers_load_into_ours_and_register(&Userland::chroot("sid", "sid", "load"));
}

#[test]
fn every_debian13_provider_loads_into_ours_and_registers() {
    if !paths::is_root() {
        eprintln!("every_debian13_provider_loads_into_ours_and_registers: not root, cannot chroot; skipped");
        return;
    }
    providers_load_into_ours_and_register(&Userland::chroot("Debian 13", "trixie", "load"));
}

/// One fake sysfs tree and its /dev/infiniband nodes, removed on drop.
struct Tree {
    root: PathBuf,
    /// The host's path of the userland's /dev/infiniband.
    dev_dir: PathBuf,
    nodes: Vec<PathBuf>,
}

impl Drop for Tree {
    fn drop(&mut self) {
        for n in &self.nodes {
            let _ = fs::remove_file(n);
        }
        let _ = fs::remove_dir_all(&self.root);
    }
}

impl Tree {
    fn attr(&self, rel: &str, value: &str) {
        let p = self.root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, format!("{value}\n")).unwrap();
    }

    fn link(&self, target: &str, rel: &str) {
        let p = self.root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        symlink(target, &p).unwrap();
    }

    /// Device k: its ib device directory (under a PCI function with
    /// `modalias`, or a plain class directory for a name match), a uverbs
    /// class entry with the driver ABI `abi`, and the /dev node.
    fn device(&mut self, k: u32, name: &str, modalias: &str, abi: &str) {
        let guid = format!("0002:c903:00{k:02x}:0001");
        if modalias.is_empty() {
            self.attr(&format!("class/infiniband/{name}/node_type"), "1");
            self.attr(&format!("class/infiniband/{name}/node_guid"), &guid);
        } else {
            let pci = format!("devices/pci0000:00/0000:00:{k:02x}.0");
            self.attr(&format!("{pci}/modalias"), modalias);
            let dev = format!("{pci}/infiniband/{name}");
            self.attr(&format!("{dev}/node_type"), "1");
            self.attr(&format!("{dev}/node_guid"), &guid);
            self.link(
                &format!("../../../0000:00:{k:02x}.0"),
                &format!("{dev}/device"),
            );
            self.link(&format!("../../{dev}"), &format!("class/infiniband/{name}"));
        }
        let uv = format!("uverbs-prov{}-{k}", std::process::id());
        self.attr(&format!("class/infiniband_verbs/{uv}/ibdev"), name);
        self.attr(
            &format!("class/infiniband_verbs/{uv}/dev"),
            &format!("{FAKE_MAJOR}:{k}"),
        );
        self.attr(&format!("class/infiniband_verbs/{uv}/abi_version"), abi);
        let node = self.dev_dir.join(&uv);
        let _ = fs::remove_file(&node);
        let st = Command::new("mknod")
            .arg(&node)
            .args(["c", &FAKE_MAJOR.to_string(), &k.to_string()])
            .status()
            .expect("run mknod");
        assert!(st.success(), "mknod {}", node.display());
        self.nodes.push(node);
    }
}

fn providers_register_with_ours(u: &Userland) {
    // Every installed provider is classified, so a new one cannot be missed.
    let names: Vec<String> = providers(u)
        .iter()
        .filter(|p| p.starts_with(PROVIDER_DIR))
        .map(|p| short_name(p))
        .collect();
    for n in &names {
        assert!(
            MATCHABLE.iter().any(|m| m.0 == n) || DRIVER_ID_ONLY.iter().any(|m| m.0 == n),
            "{}'s provider {n} is in neither MATCHABLE nor DRIVER_ID_ONLY: add how its devices are matched",
            u.title
        );
    }
    let dev_dir = u.host_path(Path::new("/dev/infiniband"));
    fs::create_dir_all(&dev_dir).unwrap();
    let root_inside = u.scratch_inside.join("sysfs");
    let root = u.host_path(&root_inside);
    let _ = fs::remove_dir_all(&root);
    let mut tree = Tree {
        root: root.clone(),
        dev_dir,
        nodes: Vec::new(),
    };
    tree.attr("class/infiniband_verbs/abi_version", "6");
    for (k, (_, name, modalias, abi)) in MATCHABLE.iter().enumerate() {
        tree.device(k as u32, name, modalias, abi);
    }
    let exe = build_probe(u, "provider_load_2");
    let sysfs = root_inside.to_str().unwrap().to_string();
    let env = [("SYSFS_PATH", sysfs.as_str()), ("IBV_SHOW_WARNINGS", "1")];
    let steps = vec!["whose".to_string(), "list".to_string()];
    let ours = run(u, &exe, &steps, true, &env);
    let debian = run(u, &exe, &steps, false, &env);
    drop(tree);
    let ours_text = text(&ours);
    let missing: Vec<&str> = MATCHABLE
        .iter()
        .filter(|(_, name, _, _)| !ours_text.contains(&format!("device {name} ")))
        .map(|m| m.0)
        .collect();
    assert!(
        missing.is_empty(),
        "{}: with our library no device was matched for providers {missing:?}:\n{ours_text}",
        u.title
    );
    // Same devices, same order, same warnings as the distribution's library
    // (only the "whose" line differs).
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("libibverbs: /"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        strip(&ours_text),
        strip(&text(&debian)),
        "{}: our device list differs from the distribution's library on the same tree",
        u.title
    );
    eprintln!("{}: {} fake devices matched by their providers, as with the distribution's library", u.title, MATCHABLE.len());
}

#[test]
fn every_provider_registers_with_ours() {
    if !paths::is_root() {
        eprintln!("every_provider_registers_with_ours: not root, cannot create /dev/infiniband nodes; skipped");
        return;
    }
    providers_register_with_ours(&Userland::host());
}

#[test]
fn every_debian13_provider_registers_with_ours() {
    if !paths::is_root() {
        eprintln!("every_debian13_provider_registers_with_ours: not root, cannot chroot; skipped");
        return;
    }
    providers_register_with_ours(&Userland::chroot("Debian 13", "trixie", "register"));
}

#[test]
fn every_sid_provider_registers_with_ours() {
    if !paths::is_root() {
        eprintln!("every_sid_provider_registers_with_ours: not root, cannot chroot; skipped");
        return;
    }
    providers_register_with_ours(&Userland::chroot("sid", "sid", "register"));
}
