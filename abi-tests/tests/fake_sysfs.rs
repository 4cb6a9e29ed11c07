//! Device discovery on fake sysfs trees: Debian's libibverbs.so.1 against ours.
//!
//! Without RDMA netlink in the kernel both libraries find devices by scanning
//! `$SYSFS_PATH/class/infiniband_verbs`, and both honour SYSFS_PATH. Each
//! scenario below builds a small fake tree (plus the `/dev/infiniband` nodes
//! the scan stat()s), runs the same program once with Debian's library and
//! once with ours (a copy of <workspace>/target/release/libibverbs.so.1 found
//! through LD_LIBRARY_PATH), and requires byte-identical stdout, stderr and
//! exit status. The programs are Debian's own tools (ibv_devices, ibv_devinfo,
//! the pingpong examples) and two C helpers compiled here with gcc against
//! Debian's headers: abi-tests/fake_sysfs/probe.c walks the device list
//! through both the IBVERBS_1.1 and the IBVERBS_1.0 entry points, and
//! abi-tests/fake_sysfs/fakeprov.c is a provider, loaded through
//! RDMAV_DRIVERS, that reports what the library hands to providers.
//!
//! The fake `/dev/infiniband` nodes use char major 60 (reserved for local and
//! experimental use: no driver answers an open(), so nothing real can ever be
//! reached) and names carrying this process's pid. They need root; without it
//! the test prints why and returns. Every run rebuilds its tree from scratch,
//! so steps that mutate the tree (hot-plug sequences) see the same start for
//! both libraries. Nothing outside the temp directory and the nodes created
//! here is touched (in particular not /etc).
//!
//! All scenarios run even when some differ; the report (shown on failure, or
//! always with --nocapture) lists which scenarios are the same and shows a
//! unified diff for each one that differs. FAKESYS_VERBOSE=1 also prints
//! Debian's outcome of every run.

use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Where upstream looks for uverbs char devices.
const CDEV_DIR: &str = "/dev/infiniband";
/// Char major of the fake uverbs nodes (see the module comment).
const FAKE_MAJOR: u32 = 60;
/// A hang guard for every program run (not a timing assertion).
const RUN_TIMEOUT_SECS: &str = "300";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lib {
    Debian,
    Ours,
}

// ---------------------------------------------------------------------------
// Fake trees
// ---------------------------------------------------------------------------

/// One fake sysfs tree and the /dev/infiniband nodes made for it; both are
/// removed on drop.
struct Tree {
    root: PathBuf,
    tag: String,
    nodes: Vec<PathBuf>,
}

impl Tree {
    fn create(root: &Path, tag: &str) -> Tree {
        let _ = fs::remove_dir_all(root);
        fs::create_dir_all(root).unwrap_or_else(|e| panic!("creating {}: {e}", root.display()));
        Tree { root: root.to_path_buf(), tag: tag.to_string(), nodes: Vec::new() }
    }

    fn root_str(&self) -> String {
        self.root.to_str().expect("temp paths are UTF-8").to_string()
    }

    /// Name of the k-th fake uverbs device (class directory and /dev node).
    fn uv(&self, k: u32) -> String {
        uv_name(&self.tag, k)
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn mkdir(&self, rel: &str) {
        let p = self.path(rel);
        fs::create_dir_all(&p).unwrap_or_else(|e| panic!("mkdir {}: {e}", p.display()));
    }

    /// Writes `content` verbatim (no newline added), creating parents.
    fn write(&self, rel: &str, content: &str) {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir {}: {e}", parent.display()));
        }
        fs::write(&p, content).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
    }

    /// A sysfs-style attribute: the value followed by a newline.
    fn attr(&self, rel: &str, value: &str) {
        self.write(rel, &format!("{value}\n"));
    }

    fn link(&self, target: &str, rel: &str) {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        symlink(target, &p).unwrap_or_else(|e| panic!("symlink {}: {e}", p.display()));
    }

    /// Sets a fixed mtime (seconds since the epoch) on a tree path.
    fn set_mtime(&self, rel: &str, secs: u64) {
        let p = self.path(rel);
        let ok = Command::new("touch")
            .arg("-h")
            .arg("-d")
            .arg(format!("@{secs}"))
            .arg(&p)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "touch -d @{secs} {} failed", p.display());
    }

    /// `class/infiniband_verbs` with the global uverbs ABI file.
    fn verbs_class(&self, abi: Option<&str>) {
        self.mkdir("class/infiniband_verbs");
        if let Some(a) = abi {
            self.attr("class/infiniband_verbs/abi_version", a);
        }
    }

    /// A /dev/infiniband char node `name` with FAKE_MAJOR:minor.
    fn cdev(&mut self, name: &str, minor: u32) {
        let p = Path::new(CDEV_DIR).join(name);
        let _ = fs::remove_file(&p);
        let out = Command::new("mknod")
            .arg(&p)
            .arg("c")
            .arg(FAKE_MAJOR.to_string())
            .arg(minor.to_string())
            .output()
            .expect("running mknod");
        assert!(
            out.status.success(),
            "mknod {} c {FAKE_MAJOR} {minor} failed: {}",
            p.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        self.nodes.push(p);
    }

    /// The uverbs class directory `dir` (ibdev, dev and optionally the
    /// driver ABI file) without a /dev node.
    fn uverbs_dir(&self, dir: &str, ibdev: &str, minor: u32, abi: Option<&str>) {
        self.attr(&format!("{dir}/ibdev"), ibdev);
        self.attr(&format!("{dir}/dev"), &format!("{FAKE_MAJOR}:{minor}"));
        if let Some(a) = abi {
            self.attr(&format!("{dir}/abi_version"), a);
        }
    }

    /// uverbs device k bound to `ibdev`, with its /dev node.
    fn uverbs(&mut self, k: u32, ibdev: &str, abi: Option<&str>) {
        let name = self.uv(k);
        self.uverbs_dir(&format!("class/infiniband_verbs/{name}"), ibdev, k, abi);
        self.cdev(&name, k);
    }

    /// The `class/infiniband/<name>` directory with optional attributes.
    fn ibdev(&self, name: &str, node_type: Option<&str>, guid: Option<&str>) {
        self.mkdir(&format!("class/infiniband/{name}"));
        if let Some(t) = node_type {
            self.attr(&format!("class/infiniband/{name}/node_type"), t);
        }
        if let Some(g) = guid {
            self.attr(&format!("class/infiniband/{name}/node_guid"), g);
        }
    }

    /// A complete soft-RoCE device that Debian's rxe provider accepts.
    fn rxe(&mut self, k: u32, name: &str) {
        self.uverbs(k, name, Some("1"));
        self.ibdev(name, Some("1"), Some(&guid_text(k)));
    }

    /// The usual frame: verbs class with global ABI 6.
    fn frame(&self) {
        self.verbs_class(Some("6"));
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        for n in &self.nodes {
            let _ = fs::remove_file(n);
        }
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn uv_name(tag: &str, k: u32) -> String {
    format!("uverbs-fks{tag}-{k}")
}

/// A distinct, recognisable node GUID per device index.
fn guid_text(k: u32) -> String {
    format!("5054:00ff:fe12:{:04x}", 0x3456 + k)
}

// ---------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------

/// How SYSFS_PATH is set for a run.
#[derive(Clone)]
enum Sysfs {
    /// The tree root.
    Root,
    /// A literal value, with the placeholders of `subst`.
    Value(String),
    /// SYSFS_PATH unset (the real /sys).
    Unset,
}

#[derive(Clone)]
struct Run {
    /// Program and arguments. The program is "probe", or a name looked up in
    /// /usr/bin and friends; the arguments take the placeholders of `subst`.
    argv: Vec<String>,
    /// Extra environment (values take the placeholders of `subst`); every
    /// run starts from an empty environment plus PATH and SYSFS_PATH.
    env: Vec<(String, String)>,
    sysfs: Sysfs,
    /// Substrings Debian's stdout+stderr must contain: proves the tree
    /// exercises what the scenario claims (else the test harness is wrong).
    expect: Vec<String>,
    /// An allocation-failure sweep (abi-tests/vm-progs/alloc-sweep): not
    /// compared with Debian's, whose library crashes at some allocations;
    /// ours must report no crash and no hang, and Debian's count is noted.
    sweep: bool,
}

type Setup = Box<dyn Fn(&mut Tree)>;

struct Scenario {
    name: String,
    setup: Setup,
    /// Exact length of the tree root path (for the path-length limits).
    root_len: Option<usize>,
    runs: Vec<Run>,
}

impl Scenario {
    fn new(name: &str, setup: impl Fn(&mut Tree) + 'static) -> Scenario {
        Scenario { name: name.to_string(), setup: Box::new(setup), root_len: None, runs: Vec::new() }
    }

    fn root_len(mut self, n: usize) -> Self {
        self.root_len = Some(n);
        self
    }

    fn run_full(mut self, argv: &[&str], env: &[(&str, &str)], sysfs: Sysfs) -> Self {
        self.runs.push(Run {
            argv: argv.iter().map(|s| s.to_string()).collect(),
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            sysfs,
            expect: Vec::new(),
            sweep: false,
        });
        self
    }

    /// Marks the last run added as an allocation-failure sweep.
    fn sweep(mut self) -> Self {
        self.runs.last_mut().expect("sweep() after a run").sweep = true;
        self
    }

    fn run(self, argv: &[&str]) -> Self {
        self.run_full(argv, &[], Sysfs::Root)
    }

    fn run_env(self, argv: &[&str], env: &[(&str, &str)]) -> Self {
        self.run_full(argv, env, Sysfs::Root)
    }

    fn run_sysfs(self, argv: &[&str], sysfs: Sysfs) -> Self {
        self.run_full(argv, &[], sysfs)
    }

    /// Requires `needle` in Debian's output of the last run added.
    fn debian_says(mut self, needle: &str) -> Self {
        self.runs.last_mut().expect("debian_says() after a run").expect.push(needle.to_string());
        self
    }

    /// Requires `needle` in Debian's output of the first run described as
    /// `run` (describe_run's format: `VAR="value" program args`).
    fn debian_says_on(mut self, run: &str, needle: &str) -> Self {
        let r = self
            .runs
            .iter_mut()
            .find(|r| describe_run(r) == run)
            .unwrap_or_else(|| panic!("scenario {} has no run `{run}`", self.name));
        r.expect.push(needle.to_string());
        self
    }

    /// The runs every tree gets: both tools, the list-only mode and the probe.
    fn std_runs(self) -> Self {
        self.std_runs_env(&[])
    }

    fn std_runs_env(self, env: &[(&str, &str)]) -> Self {
        self.run_env(&["ibv_devices"], env)
            .run_env(&["ibv_devinfo"], env)
            .run_env(&["ibv_devinfo", "-l"], env)
            .run_env(&["probe", "list", "v10", "free"], env)
    }
}

fn scenarios() -> Vec<Scenario> {
    let mut v = Vec::new();

    // --- 1. no verbs class at all, and a class path that is not a directory.
    v.push(
        Scenario::new("01-no-verbs-class", |_t| {})
            .std_runs()
            .debian_says_on("ibv_devices", "Failed to get IB devices list: Function not implemented")
            .debian_says_on("ibv_devinfo", "Failed to get IB devices list: Function not implemented")
            .run(&["probe", "list", "listnull", "v10"])
            .debian_says("ENOSYS"),
    );
    v.push(Scenario::new("01b-verbs-class-is-a-file", |t| t.write("class/infiniband_verbs", "6\n")).std_runs());

    // --- 2. empty class directory, with and without the global ABI file; a
    // bad global ABI is not even read while there are no devices.
    v.push(
        Scenario::new("02-empty-verbs-class", |t| t.verbs_class(Some("6")))
            .std_runs()
            .debian_says_on("ibv_devinfo", "No IB devices found")
            .debian_says_on("ibv_devinfo -l", "0 HCAs found"),
    );
    v.push(Scenario::new("02b-empty-no-abi-file", |t| t.verbs_class(None)).std_runs());
    v.push(Scenario::new("02c-empty-abi-7", |t| t.verbs_class(Some("7"))).std_runs());
    v.push(
        Scenario::new("02d-only-dot-entries", |t| {
            t.frame();
            t.uverbs_dir("class/infiniband_verbs/.hidden", "rxe0", 0, Some("1"));
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        })
        .std_runs(),
    );

    // --- 3. one soft-RoCE device.
    v.push(
        Scenario::new("03-one-rxe", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .std_runs()
        .debian_says_on("ibv_devices", "rxe0")
        .debian_says_on("ibv_devices", "505400fffe123456")
        .debian_says_on("ibv_devinfo -l", "1 HCA found")
        .run(&["ibv_devinfo", "-d", "rxe0"])
        .debian_says("Failed to open device")
        .run(&["ibv_devinfo", "-d", "rxe0", "-i", "1"])
        .run(&["ibv_devinfo", "-v"])
        .run(&["ibv_devinfo", "-i", "0"])
        .run(&["probe", "listnull", "open", "free"])
        .debian_says("open [0] rxe0: NULL")
        .run(&["probe", "list", "list", "same", "v10", "free"]),
    );
    // The pingpong tools on a device that cannot be opened.
    v.push(
        Scenario::new("03c-pingpong-tools", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .run(&["ibv_rc_pingpong", "-d", "rxe0"])
        .run(&["ibv_rc_pingpong", "-d", "nosuch0"])
        .run(&["ibv_ud_pingpong"]),
    );
    v.push(
        Scenario::new("03b-one-rxe-realistic-symlinks", |t| {
            // The layout of a real sysfs: class entries are symlinks into
            // /sys/devices.
            t.frame();
            let uv = t.uv(0);
            let dev = "devices/virtual/infiniband/rxe0";
            t.mkdir(dev);
            t.attr(&format!("{dev}/node_type"), "1");
            t.attr(&format!("{dev}/node_guid"), &guid_text(0));
            t.uverbs_dir(&format!("devices/virtual/infiniband_verbs/{uv}"), "rxe0", 0, Some("1"));
            t.link("../../devices/virtual/infiniband/rxe0", "class/infiniband/rxe0");
            t.link(&format!("../../devices/virtual/infiniband_verbs/{uv}"), &format!("class/infiniband_verbs/{uv}"));
            t.cdev(&uv, 0);
        })
        .std_runs()
        .debian_says_on("ibv_devices", "rxe0"),
    );

    // --- 4. the global uverbs ABI (library supports 3..6).
    for (tag, val) in [
        ("7", "7"),
        ("2", "2"),
        ("3", "3"),
        ("5", "5"),
        ("minus1", "-1"),
        ("text", "abc"),
        ("leading-space", " 6"),
        ("trailing-junk", "6 junk"),
        ("hex", "0x6"),
    ] {
        let val = val.to_string();
        v.push(
            Scenario::new(&format!("04-global-abi-{tag}"), move |t| {
                t.verbs_class(Some(&val));
                t.rxe(0, "rxe0");
            })
            .std_runs()
            // A failed check still records the version: the next call succeeds.
            .run(&["probe", "list", "list", "free"]),
        );
    }
    v.push(
        Scenario::new("04-global-abi-7-message", |t| {
            t.verbs_class(Some("7"));
            t.rxe(0, "rxe0");
        })
        .run(&["ibv_devices"])
        .debian_says("libibverbs: Fatal: kernel ABI version 7 doesn't match library version 6.")
        .debian_says("Function not implemented"),
    );
    v.push(
        Scenario::new("04-global-abi-file-is-dir", |t| {
            t.verbs_class(None);
            t.mkdir("class/infiniband_verbs/abi_version");
            t.rxe(0, "rxe0");
        })
        .run(&["ibv_devices"])
        .run(&["probe", "list", "free"]),
    );
    v.push(
        Scenario::new("04b-global-abi-missing", |t| {
            t.verbs_class(None);
            t.rxe(0, "rxe0");
        })
        .std_runs()
        .run(&["probe", "list", "list", "free"]),
    );
    v.push(
        Scenario::new("04c-global-abi-fills-buffer", |t| {
            // 8 bytes with no newline fill upstream's buffer: unreadable.
            t.verbs_class(None);
            t.write("class/infiniband_verbs/abi_version", "00000006");
            t.rxe(0, "rxe0");
        })
        .std_runs(),
    );
    v.push(
        Scenario::new("04d-global-abi-7-bytes-and-newline", |t| {
            t.verbs_class(None);
            t.write("class/infiniband_verbs/abi_version", "0000006\n");
            t.rxe(0, "rxe0");
        })
        .std_runs(),
    );

    // --- 5. the driver ABI against the provider's range (rxe: 1..2).
    for (tag, val) in [
        ("3", Some("3")),
        ("0", Some("0")),
        ("2", Some("2")),
        ("missing", None),
        ("text", Some("abc")),
        ("minus1", Some("-1")),
        ("wraps-to-1", Some("4294967297")),
        ("empty", Some("")),
    ] {
        let val = val.map(str::to_string);
        let mut s = Scenario::new(&format!("05-driver-abi-{tag}"), move |t| {
            t.frame();
            t.uverbs(0, "rxe0", val.as_deref());
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        })
        .std_runs()
        .run(&["probe", "list", "list", "free"])
        .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "1")]);
        if tag == "3" {
            s = s.debian_says_on(
                "ibv_devices",
                "libibverbs: Warning: Driver rxe does not support the kernel ABI of 3 (supports 1 to 2) for device",
            );
        }
        v.push(s);
    }

    // --- 6. a device no provider matches.
    v.push(
        Scenario::new("06-unmatched-foo0", |t| {
            t.frame();
            t.uverbs(0, "foo0", Some("1"));
            t.ibdev("foo0", Some("1"), Some(&guid_text(0)));
        })
        .std_runs()
        .std_runs_env(&[("IBV_SHOW_WARNINGS", "1")])
        .debian_says_on(
            "IBV_SHOW_WARNINGS=\"1\" ibv_devices",
            "libibverbs: Warning: no userspace device-specific driver found for foo0",
        )
        .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "")])
        .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "0")])
        .run_env(&["probe", "list", "list", "free"], &[("IBV_SHOW_WARNINGS", "1")]),
    );

    // --- 7. several devices: list order, mixed with unmatched ones.
    v.push(
        Scenario::new("07-two-rxe", |t| {
            t.frame();
            t.rxe(0, "rxe0");
            t.rxe(1, "rxe1");
        })
        .std_runs()
        .debian_says_on("ibv_devinfo -l", "2 HCAs found")
        .run(&["ibv_devinfo", "-d", "rxe1"])
        .run(&["probe", "list", "list", "same", "v10", "free"]),
    );
    v.push(
        Scenario::new("07b-five-mixed", |t| {
            t.frame();
            t.rxe(0, "rxe0");
            t.uverbs(1, "foo0", Some("1"));
            t.ibdev("foo0", Some("1"), Some(&guid_text(1)));
            t.rxe(2, "rxe1");
            t.uverbs(3, "rxe2", Some("9"));
            t.ibdev("rxe2", Some("1"), Some(&guid_text(3)));
            t.rxe(4, "rxe_b");
        })
        .std_runs()
        .std_runs_env(&[("IBV_SHOW_WARNINGS", "1")])
        .run(&["probe", "list", "list", "same", "v10", "free"]),
    );

    v.push(
        Scenario::new("07c-forty-devices", |t| {
            t.frame();
            for k in 0..40u32 {
                if k % 7 == 3 {
                    let name = format!("foo{k}");
                    t.uverbs(k, &name, Some("1"));
                    t.ibdev(&name, Some("1"), Some(&guid_text(k)));
                } else {
                    t.rxe(k, &format!("rxe{k}"));
                }
            }
        })
        .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "1")])
        .run(&["ibv_devinfo", "-l"])
        .run(&["probe", "list", "v10", "free"]),
    );

    // --- 8. RDMAV_DRIVERS / IBV_DRIVERS (loaded only when a device is left
    // unclaimed, before the configuration's providers).
    let driver_envs: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("rdmav-nosuch", vec![("RDMAV_DRIVERS", "nosuch")]),
        ("ibv-nosuch", vec![("IBV_DRIVERS", "nosuch")]),
        ("both-rdmav-wins", vec![("RDMAV_DRIVERS", "nosuch_a"), ("IBV_DRIVERS", "nosuch_b")]),
        ("abs-missing", vec![("RDMAV_DRIVERS", "/nonexistent/dir/libfoo")]),
        ("abs-junk", vec![("RDMAV_DRIVERS", "{root}/junk/libjunk")]),
        ("abs-real-rxe", vec![("RDMAV_DRIVERS", "{providers}/librxe")]),
        ("separators-and-empties", vec![("RDMAV_DRIVERS", "rxe:;nosuch2:")]),
        ("empty", vec![("RDMAV_DRIVERS", "")]),
        ("relative-with-slash", vec![("RDMAV_DRIVERS", "sub/dir")]),
        ("real-name", vec![("RDMAV_DRIVERS", "rxe")]),
    ];
    for (tag, env) in driver_envs {
        let mut s = Scenario::new(&format!("08-drivers-{tag}"), |t| {
            t.frame();
            t.rxe(0, "rxe0");
            t.write("junk/libjunk-rdmav34.so", "this is not an ELF file\n");
        })
        .run_env(&["ibv_devices"], &env)
        .run_env(&["ibv_devinfo", "-l"], &env)
        .run_env(&["probe", "list", "list", "free"], &env);
        if tag == "rdmav-nosuch" {
            s = s.debian_says_on(
                "RDMAV_DRIVERS=\"nosuch\" ibv_devices",
                "libibverbs: Warning: couldn't load driver 'libnosuch-rdmav34.so': libnosuch-rdmav34.so: cannot open shared object file",
            );
        }
        if tag == "abs-missing" {
            s = s.debian_says_on(
                "RDMAV_DRIVERS=\"/nonexistent/dir/libfoo\" ibv_devices",
                "libibverbs: Warning: couldn't load driver '/nonexistent/dir/libfoo-rdmav34.so'",
            );
        }
        v.push(s);
    }
    v.push(
        Scenario::new("08b-drivers-env-but-no-devices", |t| t.frame())
            .run_env(&["ibv_devices"], &[("RDMAV_DRIVERS", "nosuch")]),
    );

    // --- 9. ibv_devinfo device selection and listing.
    v.push(
        Scenario::new("09-devinfo-missing-name", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .run(&["ibv_devinfo", "-d", "nosuch0"])
        .debian_says("IB device 'nosuch0' wasn't found")
        .run(&["ibv_devinfo", "-d", ""])
        .run(&["ibv_devinfo", "-d", "rxe"]),
    );
    v.push(
        Scenario::new("09b-devinfo-missing-name-empty", |t| t.frame())
            .run(&["ibv_devinfo", "-d", "rxe0"])
            .run(&["ibv_devinfo", "-l"]),
    );

    // --- 10. SYSFS_PATH spellings.
    v.push(
        Scenario::new("10-sysfs-path-spellings", |t| {
            t.frame();
            t.uverbs(0, "rxe0", Some("3")); // the warning shows ibdev_path
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
            t.rxe(1, "rxe1");
        })
        .run_sysfs(&["ibv_devices"], Sysfs::Value("{root}/".into()))
        .run_sysfs(&["ibv_devices"], Sysfs::Value("{root}///".into()))
        .run_sysfs(&["probe", "list", "free"], Sysfs::Value("{root}///".into()))
        .run_sysfs(&["probe", "list", "free"], Sysfs::Value("{root}/./".into()))
        .run_sysfs(&["probe", "list", "free"], Sysfs::Value("{root}//.//".into()))
        .run_sysfs(&["probe", "list", "free"], Sysfs::Value("{reldir}".into()))
        .run_sysfs(&["probe", "list", "free"], Sysfs::Value("{reldir}/".into()))
        .run_sysfs(&["ibv_devices"], Sysfs::Value("".into()))
        .run_sysfs(&["ibv_devices"], Sysfs::Value("/".into()))
        .run_sysfs(&["ibv_devices"], Sysfs::Value("//".into()))
        .run_sysfs(&["ibv_devices"], Sysfs::Value("{root}/nonexistent".into()))
        // Longer than upstream's 256-byte limit: cut to 256 bytes first, then
        // the trailing slashes go, so the tail never counts.
        .run_sysfs(&["probe", "list", "free"], Sysfs::Value(format!("{{root}}{}", "/".repeat(300))))
        .run_sysfs(&["probe", "list", "free"], Sysfs::Value(format!("{{root}}{}{}", "/".repeat(250), "x".repeat(50)))),
    );
    v.push(
        Scenario::new("10b-real-sys", |_t| {})
            .run_sysfs(&["ibv_devices"], Sysfs::Unset)
            .run_sysfs(&["probe", "list", "v10", "free"], Sysfs::Unset),
    );

    // --- 11. path length limits (256-byte buffers in upstream).
    // root 233: "<root>/class/infiniband_verbs" needs 256 bytes: ENOMEM.
    v.push(
        Scenario::new("11-root-len-233", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .root_len(233)
        .run(&["ibv_devices"])
        .debian_says("Cannot allocate memory")
        .run(&["probe", "list", "free"]),
    );
    // root 232: the class path fits, the device's dev_path does not: the
    // provider's device is dropped again.
    v.push(
        Scenario::new("11b-root-len-232", |t| {
            t.frame();
            t.rxe(0, "rxe0");
            t.rxe(1, "rxe10"); // 232 + "/class/infiniband/" + 5 = 255: fits
            t.rxe(2, "rxe100"); // 256: ibdev_path does not fit
        })
        .root_len(232)
        .run(&["ibv_devices"])
        .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "1")])
        .run(&["probe", "list", "free"]),
    );
    // root 200: everything fits.
    v.push(
        Scenario::new("11c-root-len-200", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .root_len(200)
        .run(&["ibv_devices"])
        .run(&["probe", "list", "free"]),
    );
    // The uverbs directory name limit (64 bytes with the NUL) and the ibdev
    // name limit (a 64-byte read).
    v.push(
        Scenario::new("11d-name-lengths", |t| {
            t.frame();
            let n63 = format!("rxe{}", "n".repeat(60));
            let n64 = format!("rxe{}", "m".repeat(61));
            t.uverbs(0, &n63, Some("1"));
            t.ibdev(&n63, Some("1"), Some(&guid_text(0)));
            t.uverbs(1, &n64, Some("1"));
            t.ibdev(&n64, Some("1"), Some(&guid_text(1)));
            // uverbs directory names of 63 and 64 bytes.
            for (k, len) in [(2u32, 63usize), (3, 64)] {
                let base = t.uv(k);
                let dir = format!("{base}{}", "d".repeat(len - base.len()));
                let ib = format!("rxe_dir{len}");
                t.uverbs_dir(&format!("class/infiniband_verbs/{dir}"), &ib, k, Some("1"));
                t.ibdev(&ib, Some("1"), Some(&guid_text(k)));
                t.cdev(&dir, k);
            }
        })
        .run(&["ibv_devices"])
        .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "1")])
        .run(&["probe", "list", "v10", "free"]),
    );

    // --- 12. node types and their transports.
    v.push(
        Scenario::new("12-node-types", |t| {
            t.frame();
            let types = [
                Some("1"),
                Some("2"),
                Some("3"),
                Some("4"),
                Some("5"),
                Some("6"),
                Some("7"),
                Some("0"),
                Some("8"),
                Some("abc"),
                Some("-1"),
                Some(""),
                None,
            ];
            for (k, nt) in types.iter().enumerate() {
                let name = format!("rxe_nt{k}");
                t.uverbs(k as u32, &name, Some("1"));
                t.ibdev(&name, *nt, Some(&guid_text(k as u32)));
            }
        })
        .run(&["ibv_devices"])
        .run(&["probe", "list", "free"]),
    );

    // --- 13. node GUID spellings (sscanf "%hx:%hx:%hx:%hx" into a 24-byte buffer).
    let guids: &[(&str, Option<&str>)] = &[
        ("plain", Some("5054:00ff:fe12:3456\n")),
        ("no-newline", Some("5054:00ff:fe12:3456")),
        ("missing", None),
        ("three-parts", Some("5054:00ff:fe12\n")),
        ("0x-prefixes", Some("0x5054:0xff:0XFE12:3456\n")),
        ("negative", Some("-1:0:0:1\n")),
        ("plus", Some("+5054:00ff:fe12:3456\n")),
        ("space-before-colon", Some("5054 :00ff:fe12:3456\n")),
        ("space-after-colon", Some("5054: 00ff:fe12:3456\n")),
        ("leading-space", Some(" 5054:00ff:fe12:3456\n")),
        ("overlong-part", Some("12345:0:0:1\n")),
        ("huge-part", Some("fffffffffffffffffffff:0:0:1\n")),
        ("trailing-junk", Some("5054:00ff:fe12:3456xyz\n")),
        ("five-parts", Some("1:2:3:4:5\n")),
        ("empty-part", Some("5054::fe12:3456\n")),
        ("fills-buffer", Some("0000:0000:0000:0000:0000\n")),
        ("23-bytes", Some("0000:0000:0000:0001:000\n")),
        ("uppercase", Some("ABCD:EF01:2345:6789\n")),
        // Not "empty" (a zero-byte node_guid file): upstream then parses its
        // uninitialised stack buffer, so its answer depends on what an earlier
        // call left there (seen: 0 on one run, the previous device's GUID on
        // the next). Ours reads no GUID (0).
    ];
    let guids: Vec<(String, Option<String>)> =
        guids.iter().map(|(a, b)| (a.to_string(), b.map(str::to_string))).collect();
    v.push(
        Scenario::new("13-guid-spellings", move |t| {
            t.frame();
            for (k, (_, g)) in guids.iter().enumerate() {
                let name = format!("rxe_g{k}");
                t.uverbs(k as u32, &name, Some("1"));
                t.ibdev(&name, Some("1"), None);
                if let Some(g) = g {
                    t.write(&format!("class/infiniband/{name}/node_guid"), g);
                }
            }
        })
        .run(&["ibv_devices"])
        .run(&["probe", "list", "v10", "free"]),
    );
    // The GUID is read once per device object and then cached.
    v.push(
        Scenario::new("13b-guid-cached", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .run(&[
            "probe",
            "list",
            "sh:echo 1111:2222:3333:4444 > {root}/class/infiniband/rxe0/node_guid",
            "guid",
            "list",
            "same",
            "guid",
            "v10",
            "free",
        ]),
    );

    // --- 14. malformed uverbs entries, one per scenario.
    type Bad = (&'static str, fn(&mut Tree));
    let bad: Vec<Bad> = vec![
        ("no-ibdev-file", |t| {
            let d = format!("class/infiniband_verbs/{}", t.uv(0));
            t.attr(&format!("{d}/dev"), "60:0");
            t.attr(&format!("{d}/abi_version"), "1");
            t.cdev(&t.uv(0), 0);
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        }),
        ("empty-ibdev-file", |t| {
            let d = format!("class/infiniband_verbs/{}", t.uv(0));
            t.write(&format!("{d}/ibdev"), "");
            t.attr(&format!("{d}/dev"), "60:0");
            t.attr(&format!("{d}/abi_version"), "1");
            t.cdev(&t.uv(0), 0);
            t.mkdir("class/infiniband");
        }),
        ("ibdev-no-newline", |t| {
            let d = format!("class/infiniband_verbs/{}", t.uv(0));
            t.write(&format!("{d}/ibdev"), "rxe0");
            t.attr(&format!("{d}/dev"), "60:0");
            t.attr(&format!("{d}/abi_version"), "1");
            t.cdev(&t.uv(0), 0);
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        }),
        ("no-dev-file", |t| {
            let d = format!("class/infiniband_verbs/{}", t.uv(0));
            t.attr(&format!("{d}/ibdev"), "rxe0");
            t.attr(&format!("{d}/abi_version"), "1");
            t.cdev(&t.uv(0), 0);
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        }),
        ("dev-no-colon", |t| bad_dev(t, "60\n")),
        ("dev-trailing-junk", |t| bad_dev(t, "60:0 junk\n")),
        ("dev-leading-space", |t| bad_dev(t, " 60:0\n")),
        ("dev-space-after-colon", |t| bad_dev(t, "60: 0\n")),
        ("dev-space-before-colon", |t| bad_dev(t, "60 :0\n")),
        ("dev-negative", |t| bad_dev(t, "-60:0\n")),
        ("dev-plus", |t| bad_dev(t, "+60:+0\n")),
        ("dev-hex", |t| bad_dev(t, "0x3c:0\n")),
        ("dev-empty", |t| bad_dev(t, "")),
        ("dev-overflow", |t| bad_dev(t, "99999999999:0\n")),
        ("no-ibdev-dir", |t| {
            t.uverbs(0, "rxe0", Some("1"));
        }),
        ("ibdev-dir-is-file", |t| {
            t.uverbs(0, "rxe0", Some("1"));
            t.write("class/infiniband/rxe0", "x\n");
        }),
        ("no-dev-node", |t| {
            t.uverbs_dir(&format!("class/infiniband_verbs/{}", t.uv(0)), "rxe0", 0, Some("1"));
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        }),
        ("dev-node-is-regular-file", |t| {
            let uv = t.uv(0);
            t.uverbs_dir(&format!("class/infiniband_verbs/{uv}"), "rxe0", 0, Some("1"));
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
            // A regular file at the /dev path: stat() succeeds.
            let p = Path::new(CDEV_DIR).join(&uv);
            fs::write(&p, b"").unwrap();
            t.nodes.push(p);
        }),
        ("uverbs-entry-is-file", |t| {
            t.write(&format!("class/infiniband_verbs/{}", t.uv(0)), "rxe0\n");
            t.cdev(&t.uv(0), 0);
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        }),
        ("ibdev-dangling-symlink", |t| {
            t.uverbs(0, "rxe0", Some("1"));
            t.link("../../devices/nowhere/rxe0", "class/infiniband/rxe0");
        }),
        ("uverbs-dangling-symlink", |t| {
            t.link("../../devices/nowhere/uverbs", &format!("class/infiniband_verbs/{}", t.uv(0)));
            t.cdev(&t.uv(0), 0);
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        }),
        ("dev-file-is-dir", |t| {
            let d = format!("class/infiniband_verbs/{}", t.uv(0));
            t.attr(&format!("{d}/ibdev"), "rxe0");
            t.mkdir(&format!("{d}/dev"));
            t.attr(&format!("{d}/abi_version"), "1");
            t.cdev(&t.uv(0), 0);
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        }),
        ("ibdev-name-64-bytes-with-newline", |t| {
            // 63 characters plus the newline: the longest accepted name.
            let name = format!("rxe{}", "q".repeat(60));
            t.uverbs(0, &name, Some("1"));
            t.ibdev(&name, Some("1"), Some(&guid_text(0)));
        }),
    ];
    for (tag, f) in bad {
        v.push(
            Scenario::new(&format!("14-bad-{tag}"), move |t| {
                t.frame();
                f(t);
                t.rxe(7, "rxe_ok"); // a good neighbour must survive
            })
            .run(&["ibv_devices"])
            .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "1")])
            .run(&["probe", "list", "free"]),
        );
    }

    // --- 15. matching by PCI modalias and provider order.
    let pci_cases: Vec<(&str, &str, &str, &str)> = vec![
        // (tag, ibdev name, modalias, driver abi)
        ("mthca", "mthca0", "pci:v000015B3d00005A44sv000015B3sd00005A44bc0Csc06i00", "1"),
        ("mthca-abi-2", "mthca0", "pci:v000015B3d00005A44sv000015B3sd00005A44bc0Csc06i00", "2"),
        ("mthca-lowercase-hex", "mthca0", "pci:v000015b3d00005a44sv000015B3sd00005A44bc0Csc06i00", "1"),
        ("mlx4", "mlx4_0", "pci:v000015B3d00001003sv000015B3sd00000006bc02sc00i00", "4"),
        ("mlx5", "mlx5_0", "pci:v000015B3d00001017sv000015B3sd00000020bc02sc00i00", "1"),
        ("unknown-pci", "weird0", "pci:v00001234d00005678sv00000000sd00000000bc02sc00i00", "1"),
        ("empty-modalias", "weird0", "", "1"),
        // Both rxe (by name) and mthca (by modalias) match: the provider
        // order decides, and the ABI value makes the loser visible.
        ("ambiguous-abi-0", "rxe0", "pci:v000015B3d00005A44sv000015B3sd00005A44bc0Csc06i00", "0"),
        ("ambiguous-abi-1", "rxe0", "pci:v000015B3d00005A44sv000015B3sd00005A44bc0Csc06i00", "1"),
        ("ambiguous-abi-2", "rxe0", "pci:v000015B3d00005A44sv000015B3sd00005A44bc0Csc06i00", "2"),
        ("ambiguous-abi-3", "rxe0", "pci:v000015B3d00005A44sv000015B3sd00005A44bc0Csc06i00", "3"),
    ];
    for (tag, name, modalias, abi) in pci_cases {
        let s = Scenario::new(&format!("15-pci-{tag}"), move |t| {
            t.frame();
            let uv = t.uv(0);
            let pci = "devices/pci0000:00/0000:00:03.0";
            t.attr(&format!("{pci}/modalias"), modalias);
            let dev = format!("{pci}/infiniband/{name}");
            t.mkdir(&dev);
            t.attr(&format!("{dev}/node_type"), "1");
            t.attr(&format!("{dev}/node_guid"), &guid_text(0));
            t.link("../../../0000:00:03.0", &format!("{dev}/device"));
            t.link(&format!("../../{dev}"), &format!("class/infiniband/{name}"));
            t.uverbs_dir(&format!("class/infiniband_verbs/{uv}"), name, 0, Some(abi));
            t.cdev(&uv, 0);
        })
        .std_runs()
        .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "1")]);
        v.push(match tag {
            "mthca" => s.debian_says_on("ibv_devices", "mthca0"),
            // mthca is offered the device before rxe.
            "ambiguous-abi-2" => s
                .debian_says_on("ibv_devices", "rxe0")
                .debian_says_on("ibv_devices", "Driver mthca does not support the kernel ABI of 2"),
            _ => s,
        });
    }
    v.push(
        Scenario::new("15b-name-matches-two-providers", |t| {
            // "siwNrxe0" matches both rdma_device:*Nsiw* and rdma_device:*Nrxe*.
            t.frame();
            for (k, abi) in [(0u32, "1"), (1, "2")] {
                let name = format!("siwNrxe{k}");
                t.uverbs(k, &name, Some(abi));
                t.ibdev(&name, Some("4"), Some(&guid_text(k)));
            }
        })
        .std_runs()
        .run_env(&["ibv_devices"], &[("IBV_SHOW_WARNINGS", "1")]),
    );
    v.push(
        Scenario::new("15c-siw", |t| {
            t.frame();
            t.uverbs(0, "siw0", Some("1"));
            t.ibdev("siw0", Some("4"), Some(&guid_text(0)));
            t.uverbs(1, "siw1", Some("2"));
            t.ibdev("siw1", Some("4"), Some(&guid_text(1)));
        })
        .std_runs(),
    );

    // --- 16. the list across calls: hot-plug, hot-removal, re-creation.
    v.push(
        Scenario::new("16-hot-remove", |t| {
            t.frame();
            t.rxe(0, "rxe0");
            t.rxe(1, "rxe1");
            t.rxe(2, "rxe2");
        })
        .run(&[
            "probe",
            "list",
            "sh:rm -rf {root}/class/infiniband_verbs/{uv:1}",
            "list",
            "same",
            "first",
            "v10",
            "sh:rm -rf {root}/class/infiniband_verbs/{uv:0} {root}/class/infiniband_verbs/{uv:2}",
            "list",
            "first",
            "free",
            "list",
            "free",
        ]),
    );
    v.push(
        Scenario::new("16b-hot-add", |t| {
            t.frame();
            t.rxe(0, "rxe0");
            // Device 1 is prepared outside the class directory.
            let uv1 = t.uv(1);
            t.uverbs_dir(&format!("staging/{uv1}"), "rxe1", 1, Some("1"));
            t.ibdev("rxe1", Some("1"), Some(&guid_text(1)));
            t.cdev(&uv1, 1);
            let uv2 = t.uv(2);
            t.uverbs_dir(&format!("staging/{uv2}"), "foo2", 2, Some("1"));
            t.ibdev("foo2", Some("1"), Some(&guid_text(2)));
            t.cdev(&uv2, 2);
        })
        .run_env(
            &[
                "probe",
                "list",
                "sh:mv {root}/staging/{uv:1} {root}/class/infiniband_verbs/",
                "list",
                "same",
                "sh:mv {root}/staging/{uv:2} {root}/class/infiniband_verbs/",
                "list",
                "same",
                "v10",
                "free",
            ],
            &[("IBV_SHOW_WARNINGS", "1")],
        ),
    );
    v.push(
        Scenario::new("16c-hot-add-to-empty", |t| {
            t.frame();
            let uv0 = t.uv(0);
            t.uverbs_dir(&format!("staging/{uv0}"), "rxe0", 0, Some("1"));
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
            t.cdev(&uv0, 0);
        })
        .run(&["probe", "list", "sh:mv {root}/staging/{uv:0} {root}/class/infiniband_verbs/", "list", "free"]),
    );
    v.push(
        Scenario::new("16d-recreated-device", |t| {
            // The ibdev directory's mtime identifies a device instance.
            t.frame();
            t.rxe(0, "rxe0");
            t.rxe(1, "rxe1");
            t.set_mtime("class/infiniband/rxe0", 1_000_000_000);
            t.set_mtime("class/infiniband/rxe1", 1_000_000_000);
        })
        .run(&[
            "probe",
            "list",
            "sh:touch -d @1000000000 {root}/class/infiniband/rxe0",
            "list",
            "same",
            "sh:touch -d @1000000001 {root}/class/infiniband/rxe1",
            "list",
            "same",
            "first",
            "free",
        ]),
    );
    v.push(
        Scenario::new("16e-abi-fixed-later", |t| {
            // An unclaimed device is offered to the providers again on the
            // next call; once its ABI is right it is claimed.
            t.frame();
            t.uverbs(0, "rxe0", Some("3"));
            t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
        })
        .run(&[
            "probe",
            "list",
            "sh:echo 1 > {root}/class/infiniband_verbs/{uv:0}/abi_version",
            "list",
            "list",
            "same",
            "free",
        ]),
    );
    v.push(
        Scenario::new("16f-global-abi-appears-later", |t| {
            t.verbs_class(None);
            t.rxe(0, "rxe0");
        })
        .run(&[
            "probe",
            "list",
            "sh:echo 6 > {root}/class/infiniband_verbs/abi_version",
            "list",
            "sh:echo 9 > {root}/class/infiniband_verbs/abi_version",
            "list",
            "free",
        ]),
    );
    v.push(
        Scenario::new("16g-class-disappears", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .run(&["probe", "list", "sh:rm -rf {root}/class/infiniband_verbs", "list", "first", "free"]),
    );

    // --- 17. a fake provider (abi-tests/fake_sysfs/fakeprov.c) loaded through
    // RDMAV_DRIVERS reports what the library hands to providers.
    let fp: &[(&str, &str)] = &[("RDMAV_DRIVERS", "{fakeprov}/libfakeprov")];
    v.push(
        Scenario::new("17-fakeprov-names", |t| {
            t.frame();
            let devs: &[(&str, &str)] = &[
                ("fk0", "1"),
                ("fkveto1", "1"),
                ("zforce2", "1"),
                ("fknomem3", "1"),
                ("nt4", "1"),
                ("rxe5", "1"),
                ("fk6", "9"),
                ("ntfk7", "1"),
                ("rxeforce8", "1"),
                ("ntnomem9", "1"),
            ];
            for (k, (name, abi)) in devs.iter().enumerate() {
                t.uverbs(k as u32, name, Some(abi));
                t.ibdev(name, Some("1"), Some(&guid_text(k as u32)));
            }
        })
        .run_env(&["ibv_devices"], fp)
        .debian_says("fakeprov: loaded")
        .debian_says("libibverbs: Fatal: couldn't allocate device for")
        .run_env(&["ibv_devices"], &[fp[0], ("IBV_SHOW_WARNINGS", "1")])
        .run_env(&["ibv_devinfo", "-l"], fp)
        .run_env(&["probe", "list", "list", "same", "v10", "free"], fp),
    );
    v.push(
        Scenario::new("17b-fakeprov-modalias", |t| {
            t.frame();
            let devs: &[(&str, Option<&str>)] = &[
                ("q0", Some("platform:fakeprov-x")),
                ("q1", Some("pci:v0000ABCDd00001234sv00000000sd00000000bc02sc00i00")),
                ("q2", Some("pci:v0000abcdd00001234sv00000000sd00000000bc02sc00i00")),
                ("q3", None),
                ("q4", Some("")),
                ("fk5", Some("platform:fakeprov-y")),
                ("q6", Some("pci:v0000ABCDd00001234")),
            ];
            for (k, (name, modalias)) in devs.iter().enumerate() {
                t.uverbs(k as u32, name, Some("2"));
                t.ibdev(name, Some("4"), Some(&guid_text(k as u32)));
                if let Some(m) = modalias {
                    t.attr(&format!("class/infiniband/{name}/device/modalias"), m);
                }
            }
        })
        .run_env(&["ibv_devices"], fp)
        .run_env(&["probe", "list", "list", "same", "free"], &[fp[0], ("IBV_SHOW_WARNINGS", "1")]),
    );
    v.push(
        Scenario::new("17c-fakeprov-hot-remove", |t| {
            t.frame();
            for k in 0..3u32 {
                let name = format!("fk{k}");
                t.uverbs(k, &name, Some("1"));
                t.ibdev(&name, Some("1"), Some(&guid_text(k)));
            }
        })
        .run_env(
            &[
                "probe",
                "list",
                "sh:rm -rf {root}/class/infiniband_verbs/{uv:1}",
                "list",
                "same",
                "v10",
                "free",
                "sh:rm -rf {root}/class/infiniband_verbs/{uv:0}",
                "list",
                "free",
                "list",
                "free",
            ],
            fp,
        )
        .debian_says("fakeprov: uninit_device"),
    );
    v.push(
        Scenario::new("17d-fakeprov-dev-path-overflow", |t| {
            t.frame();
            t.uverbs(0, "fk0", Some("1"));
            t.ibdev("fk0", Some("1"), Some(&guid_text(0)));
            t.uverbs(1, "nt1", Some("1"));
            t.ibdev("nt1", Some("1"), Some(&guid_text(1)));
        })
        .root_len(232)
        .run_env(&["ibv_devices"], &[fp[0], ("IBV_SHOW_WARNINGS", "1")])
        .run_env(&["probe", "list", "list", "free"], fp),
    );
    v.push(
        Scenario::new("17e-fakeprov-node-types", |t| {
            t.frame();
            for (k, nt) in ["0", "1", "2", "3", "4", "5", "6", "7", "8", "x"].iter().enumerate() {
                let name = format!("fk_nt{k}");
                t.uverbs(k as u32, &name, Some("3"));
                t.ibdev(&name, Some(nt), None);
            }
        })
        .run_env(&["probe", "list", "guid", "free"], fp),
    );

    // --- 18. environment knobs read at initialisation.
    v.push(
        Scenario::new("18-env-knobs", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .run_env(&["ibv_devices"], &[("RDMAV_FORK_SAFE", "1")])
        .run_env(&["ibv_devices"], &[("IBV_FORK_SAFE", "")])
        .run_env(&["ibv_devices"], &[("RDMAV_ALLOW_DISASSOC_DESTROY", "1")])
        .run_env(
            &["probe", "list", "free", "sh:ls {root}/verbs.log && cat {root}/verbs.log"],
            &[("VERBS_LOG_LEVEL", "9"), ("VERBS_LOG_FILE", "{root}/verbs.log")],
        )
        .run_env(&["probe", "list", "free", "sh:ls {root}/verbs.log"], &[("VERBS_LOG_FILE", "{root}/verbs.log")])
        .run_env(
            &["probe", "list", "free", "sh:ls {root}/verbs.log"],
            &[("VERBS_LOG_LEVEL", "0x3"), ("VERBS_LOG_FILE", "{root}/no/such/dir/verbs.log")],
        ),
    );
    // As an ordinary user: the RLIMIT_MEMLOCK warning (32768 bytes or less).
    let as_nobody = |limit: &str, prog: &str| {
        format!("ulimit -l {limit} && exec setpriv --reuid=65534 --regid=65534 --clear-groups {prog}")
    };
    v.push(
        Scenario::new("18b-non-root-memlock", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .run(&["sh", "-c", &as_nobody("16", "{bin:ibv_devices}")])
        .debian_says("libibverbs: Warning: RLIMIT_MEMLOCK is 16384 bytes.")
        .debian_says("rxe0")
        .run(&["sh", "-c", &as_nobody("32", "{bin:ibv_devices}")])
        .debian_says("RLIMIT_MEMLOCK is 32768 bytes")
        .run(&["sh", "-c", &as_nobody("33", "{bin:ibv_devices}")])
        .run(&["sh", "-c", &as_nobody("0", "{bin:ibv_devinfo} -l")])
        .run(&["sh", "-c", &as_nobody("64", "{bin:ibv_devices}")])
        .run(&["sh", "-c", &as_nobody("16", "{probe} list list free")]),
    );
    // Real uid differs from the effective uid (as under set-uid): SYSFS_PATH
    // and RDMAV_DRIVERS are ignored.
    v.push(
        Scenario::new("18c-ruid-not-euid", |t| {
            t.frame();
            t.rxe(0, "rxe0");
        })
        .run(&["sh", "-c", "exec setpriv --ruid=65534 {bin:ibv_devices}"])
        .run_env(&["sh", "-c", "exec setpriv --ruid=65534 {probe} list free"], &[("RDMAV_DRIVERS", "nosuch")])
        .run(&["sh", "-c", "exec setpriv --ruid=65534 --euid=65534 {bin:ibv_devices}"])
        .debian_says("rxe0"),
    );

    // --- 19. allocation failure: the program runs once per allocation it
    // makes, with that one allocation failing (abi-tests/vm-progs/
    // alloc-sweep, preloading failalloc.c), and no run may crash or hang:
    // discovery of two devices, the loader and a provider named through
    // RDMAV_DRIVERS, the device list, names and GUIDs. The number of
    // allocations differs between the libraries: it goes to stderr, which
    // a sweep does not compare, and into the report's SWEEP lines.
    let sweep = |prog: &'static [&'static str]| -> Vec<&'static str> {
        let mut v = vec!["alloc-sweep", "--counts", "/dev/stderr", "--"];
        v.extend_from_slice(prog);
        v
    };
    v.push(
        Scenario::new("19-allocation-failure-sweep", |t| {
            t.frame();
            t.rxe(0, "rxe0");
            t.uverbs(1, "fk1", Some("1"));
            t.ibdev("fk1", Some("1"), Some(&guid_text(1)));
        })
        .run(&sweep(&["{bin:ibv_devices}"]))
        .sweep()
        .debian_says("exit code with nothing failing: 0")
        .run_env(&sweep(&["{bin:ibv_devinfo}", "-v"]), fp)
        .sweep()
        .debian_says("exit code with nothing failing: 1")
        .run_env(&sweep(&["{probe}", "list", "list", "same", "v10", "free"]), fp)
        .sweep()
        .debian_says("exit code with nothing failing: 0"),
    );

    v
}

/// A uverbs entry for rxe0 whose `dev` file holds `content`.
fn bad_dev(t: &mut Tree, content: &str) {
    let d = format!("class/infiniband_verbs/{}", t.uv(0));
    t.attr(&format!("{d}/ibdev"), "rxe0");
    t.write(&format!("{d}/dev"), content);
    t.attr(&format!("{d}/abi_version"), "1");
    t.cdev(&t.uv(0), 0);
    t.ibdev("rxe0", Some("1"), Some(&guid_text(0)));
}

// ---------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------

struct Ctx {
    ours_dir: PathBuf,
    probe: PathBuf,
    /// Directory holding libfakeprov-rdmav34.so.
    fakeprov_dir: PathBuf,
    /// Debian's provider directory, /usr/lib/<multiarch>/libibverbs.
    provider_dir: PathBuf,
    base: PathBuf,
    tag: String,
}

#[derive(PartialEq, Eq)]
struct Outcome {
    stdout: String,
    stderr: String,
    status: String,
}

fn status_text(out: &Output) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (out.status.code(), out.status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => "unknown status".to_string(),
    }
}

fn find_program(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// The tree root of scenario `idx`, optionally padded to an exact length.
fn scenario_root(ctx: &Ctx, idx: usize, len: Option<usize>) -> PathBuf {
    let mut s = ctx.base.join(format!("s{idx:02}")).to_str().unwrap().to_string();
    if let Some(n) = len {
        assert!(s.len() + 2 <= n, "root {s} is already longer than {n}");
        while s.len() < n {
            let room = n - s.len();
            if room == 1 {
                s.push('x');
                break;
            }
            s.push('/');
            s.push_str(&"p".repeat((room - 1).min(200)));
        }
        assert_eq!(s.len(), n);
    }
    PathBuf::from(s)
}

/// Expands the placeholders of arguments and environment values:
/// `{root}` the tree root, `{reldir}` its last component (runs start in the
/// root's parent directory), `{uv:K}` the name of uverbs device K, `{probe}`
/// the probe binary, `{fakeprov}` the fake provider's directory,
/// `{providers}` Debian's provider directory and
/// `{bin:NAME}` the absolute path of a system program.
fn subst(ctx: &Ctx, text: &str, tree: &Tree, reldir: &str) -> String {
    let mut s = text
        .replace("{root}", &tree.root_str())
        .replace("{reldir}", reldir)
        .replace("{fakeprov}", ctx.fakeprov_dir.to_str().unwrap())
        .replace("{probe}", ctx.probe.to_str().unwrap())
        .replace("{providers}", ctx.provider_dir.to_str().unwrap());
    while let Some(start) = s.find("{bin:") {
        let end = start + s[start..].find('}').expect("unterminated {bin:");
        let name = &s[start + 5..end];
        let path = find_program(name).unwrap_or_else(|| panic!("{name} not found"));
        s.replace_range(start..=end, path.to_str().unwrap());
    }
    while let Some(start) = s.find("{uv:") {
        let end = start + s[start..].find('}').expect("unterminated {uv:");
        let k: u32 = s[start + 4..end].parse().expect("{uv:K} index");
        s.replace_range(start..=end, &tree.uv(k));
    }
    s
}

fn run_once(ctx: &Ctx, sc: &Scenario, idx: usize, run: &Run, lib: Lib) -> Outcome {
    let root = scenario_root(ctx, idx, sc.root_len);
    let mut tree = Tree::create(&root, &ctx.tag);
    (sc.setup)(&mut tree);
    if run.argv.iter().any(|a| a.contains("setpriv")) {
        make_world_readable(&root);
    }
    let parent = root.parent().unwrap().to_path_buf();
    let reldir = root.file_name().unwrap().to_str().unwrap().to_string();

    let prog = match run.argv[0].as_str() {
        "probe" => ctx.probe.clone(),
        "alloc-sweep" => workspace_root().join("abi-tests/vm-progs/alloc-sweep"),
        p => find_program(p).unwrap_or_else(|| panic!("{p} not found: install ibverbs-utils")),
    };
    let mut cmd = Command::new("timeout");
    cmd.arg("--kill-after=10").arg(RUN_TIMEOUT_SECS).arg(&prog);
    for a in &run.argv[1..] {
        cmd.arg(subst(ctx, a, &tree, &reldir));
    }
    cmd.env_clear().env("PATH", "/usr/bin:/bin:/usr/sbin:/sbin").current_dir(&parent);
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        // alloc-sweep builds its preload object through our .pc files.
        cmd.env("CARGO_TARGET_DIR", t);
    }
    match &run.sysfs {
        Sysfs::Root => {
            cmd.env("SYSFS_PATH", &root);
        }
        Sysfs::Value(v) => {
            cmd.env("SYSFS_PATH", subst(ctx, v, &tree, &reldir));
        }
        Sysfs::Unset => {}
    }
    for (k, v) in &run.env {
        cmd.env(k, subst(ctx, v, &tree, &reldir));
    }
    if lib == Lib::Ours {
        cmd.env("LD_LIBRARY_PATH", &ctx.ours_dir);
    }
    let out = cmd.stdin(Stdio::null()).output().unwrap_or_else(|e| panic!("running {}: {e}", prog.display()));
    drop(tree);
    Outcome {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: status_text(&out),
    }
}

/// chmod -R a+rX: the runs as an ordinary user must read what root built,
/// whatever the umask.
fn make_world_readable(path: &Path) {
    let ok = Command::new("chmod").arg("-R").arg("a+rX").arg(path).status().map(|s| s.success()).unwrap_or(false);
    assert!(ok, "chmod -R a+rX {} failed", path.display());
}

fn describe_run(run: &Run) -> String {
    let mut s = String::new();
    for (k, v) in &run.env {
        let _ = write!(s, "{k}={v:?} ");
    }
    match &run.sysfs {
        Sysfs::Root => {}
        Sysfs::Value(v) if v.len() > 60 => {
            let _ = write!(s, "SYSFS_PATH=<{} bytes> ", v.len());
        }
        Sysfs::Value(v) => {
            let _ = write!(s, "SYSFS_PATH={v:?} ");
        }
        Sysfs::Unset => s.push_str("SYSFS_PATH unset "),
    }
    s.push_str(&run.argv.join(" "));
    s
}

fn render(o: &Outcome) -> String {
    format!("--- stdout ---\n{}--- stderr ---\n{}--- status ---\n{}\n", o.stdout, o.stderr, o.status)
}

/// A unified diff of the two outcomes (diff -u, or both texts in full).
fn diff(ctx: &Ctx, a: &Outcome, b: &Outcome) -> String {
    let da = ctx.base.join("diff-debian.txt");
    let db = ctx.base.join("diff-ours.txt");
    fs::write(&da, render(a)).unwrap();
    fs::write(&db, render(b)).unwrap();
    let out = Command::new("diff").arg("-u").arg("--label=debian").arg("--label=ours").arg(&da).arg(&db).output();
    let _ = fs::remove_file(&da);
    let _ = fs::remove_file(&db);
    match out {
        Ok(o) if !o.stdout.is_empty() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => format!("debian:\n{}ours:\n{}", render(a), render(b)),
    }
}

// ---------------------------------------------------------------------------
// Preconditions
// ---------------------------------------------------------------------------

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("abi-tests lives in the workspace").to_path_buf()
}

fn is_root() -> bool {
    let status = fs::read_to_string("/proc/self/status").expect("reading /proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1).map(|e| e == "0"))
        .unwrap_or(false)
}

/// Compiles abi-tests/fake_sysfs/<src> with gcc against Debian's headers
/// and -libverbs into `out`.
fn compile_c(src: &str, out: &Path, extra: &[&str]) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fake_sysfs").join(src);
    let res = Command::new("gcc")
        .args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(&src)
        .arg("-libverbs")
        .output()
        .expect("running gcc (install gcc and libibverbs-dev)");
    assert!(res.status.success(), "compiling {} failed:\n{}", src.display(), String::from_utf8_lossy(&res.stderr));
}

/// Debian's provider directory: /usr/lib/<gcc -print-multiarch>/libibverbs.
fn provider_dir() -> PathBuf {
    let out = Command::new("gcc").arg("-print-multiarch").output().expect("running gcc -print-multiarch");
    let triplet = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(!triplet.is_empty(), "gcc -print-multiarch printed nothing");
    Path::new("/usr/lib").join(triplet).join("libibverbs")
}

/// The probe must import the 1.0 and the 1.1 versions of the four calls.
fn check_probe_imports(probe: &Path) {
    let out = Command::new("objdump").arg("-T").arg(probe).output().expect("running objdump (binutils)");
    assert!(out.status.success(), "objdump -T failed");
    let text = String::from_utf8_lossy(&out.stdout);
    for f in ["ibv_get_device_list", "ibv_free_device_list", "ibv_get_device_name", "ibv_get_device_guid"] {
        for ver in ["IBVERBS_1.0", "IBVERBS_1.1"] {
            let found = text.lines().any(|l| {
                l.contains("*UND*") && l.contains(&format!("({ver})")) && l.split_whitespace().last() == Some(f)
            });
            assert!(found, "the probe does not import {f}@{ver}; objdump -T says:\n{text}");
        }
    }
}

/// The libibverbs.so.1 the dynamic loader picks for `prog` under `lib`.
fn resolved_lib(ctx: &Ctx, prog: &Path, lib: Lib) -> String {
    let mut cmd = Command::new(prog);
    cmd.env_clear().env("LD_TRACE_LOADED_OBJECTS", "1");
    if lib == Lib::Ours {
        cmd.env("LD_LIBRARY_PATH", &ctx.ours_dir);
    }
    let out = cmd.output().expect("tracing loaded objects");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find(|l| l.trim_start().starts_with("libibverbs.so.1 "))
        .and_then(|l| l.split("=>").nth(1))
        .map(|r| r.split_whitespace().next().unwrap_or("").to_string())
        .unwrap_or_else(|| panic!("{} does not load libibverbs.so.1:\n{text}", prog.display()))
}

#[test]
fn fake_sysfs_debian_vs_ours() {
    let ours_dir = workspace_root().join("target/release");
    let ours_lib = ours_dir.join("libibverbs.so.1");
    assert!(ours_lib.exists(), "{} is missing: run `cargo build --release` in the workspace first", ours_lib.display());
    if !is_root() {
        println!("SKIPPED fake_sysfs_debian_vs_ours: not running as root; the scenarios need mknod in {CDEV_DIR}");
        return;
    }
    for p in ["ibv_devices", "ibv_devinfo", "ibv_rc_pingpong", "ibv_ud_pingpong"] {
        assert!(find_program(p).is_some(), "{p} not found: install Debian's ibverbs-utils");
    }
    for p in ["gcc", "objdump", "mknod", "timeout", "touch", "diff", "chmod", "setpriv", "sh"] {
        assert!(find_program(p).is_some(), "{p} not found in /usr/bin or /bin");
    }

    let tag = std::process::id().to_string();
    let base = std::env::temp_dir().join(format!("fakesys-{tag}"));
    let _ = fs::remove_dir_all(&base);
    fs::create_dir_all(&base).unwrap();
    struct Cleanup(PathBuf, bool);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
            if self.1 {
                // Only removed when we created it and it is empty again.
                let _ = fs::remove_dir(CDEV_DIR);
            }
        }
    }
    let made_cdev_dir = !Path::new(CDEV_DIR).exists();
    if made_cdev_dir {
        fs::create_dir_all(CDEV_DIR).unwrap();
    }
    let _cleanup = Cleanup(base.clone(), made_cdev_dir);

    // Programs run as an ordinary user too, so the library, the probe and the
    // fake provider are copied to a world-readable directory. (If that user
    // could not read our library, the loader would silently fall back to
    // Debian's and the comparison would prove nothing.)
    let bin_dir = base.join("bin");
    fs::create_dir_all(&bin_dir).unwrap();
    let ours_dir = base.join("ours");
    fs::create_dir_all(&ours_dir).unwrap();
    fs::copy(&ours_lib, ours_dir.join("libibverbs.so.1")).expect("copying our libibverbs.so.1");
    let ours_lib = ours_dir.join("libibverbs.so.1");
    let probe = bin_dir.join("fake_sysfs_probe");
    compile_c("probe.c", &probe, &[]);
    check_probe_imports(&probe);
    compile_c("fakeprov.c", &bin_dir.join("libfakeprov-rdmav34.so"), &["-shared", "-fPIC"]);
    make_world_readable(&base);
    let ctx = Ctx {
        ours_dir: ours_dir.clone(),
        probe: probe.clone(),
        fakeprov_dir: bin_dir,
        provider_dir: provider_dir(),
        base,
        tag,
    };

    // Each program must really load Debian's library in one run and ours in
    // the other, or the comparison proves nothing.
    let ours_canon = fs::canonicalize(&ours_lib).unwrap();
    for prog in [
        find_program("ibv_devices").unwrap(),
        find_program("ibv_devinfo").unwrap(),
        find_program("ibv_rc_pingpong").unwrap(),
        find_program("ibv_ud_pingpong").unwrap(),
        probe.clone(),
    ] {
        let deb = resolved_lib(&ctx, &prog, Lib::Debian);
        let our = resolved_lib(&ctx, &prog, Lib::Ours);
        assert_eq!(
            fs::canonicalize(&our).ok().as_ref(),
            Some(&ours_canon),
            "{} resolves libibverbs.so.1 to {our}, not to ours",
            prog.display()
        );
        assert!(
            !Path::new(&deb).starts_with(&ours_dir),
            "{} resolves Debian's libibverbs.so.1 to {deb}",
            prog.display()
        );
    }

    // With RDMA netlink the libraries never look at SYSFS_PATH's class
    // directory: the fake trees would prove nothing.
    let nl = Command::new(&probe).arg("nlcheck").env_clear().output().unwrap();
    let nl = String::from_utf8_lossy(&nl.stdout).into_owned();
    if nl.contains("rdma-netlink: yes") {
        println!(
            "SKIPPED fake_sysfs_debian_vs_ours: this kernel answers RDMA netlink, so device \
             discovery ignores sysfs and fake trees cannot be tested here"
        );
        return;
    }

    // Debian's providers must load into our library, or every scenario that
    // needs one differs for that single reason: say so up front.
    let mut notes = Vec::new();
    let rxe = ctx.provider_dir.join("librxe-rdmav34.so");
    assert!(rxe.exists(), "{} is missing: install Debian's ibverbs-providers", rxe.display());
    {
        let out = Command::new(&probe)
            .arg(format!("dlopen:{}", rxe.display()))
            .env_clear()
            .env("LD_LIBRARY_PATH", &ctx.ours_dir)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if !text.contains("dlopen: ok") {
            notes.push(format!(
                "NOTE: Debian's rxe provider cannot be loaded into our library ({}); every scenario \
                 that needs a provider differs for that reason",
                text.trim()
            ));
        }
    }

    let all = scenarios();
    let mut same: Vec<String> = Vec::new();
    let mut differs: Vec<(String, String)> = Vec::new();
    let mut harness_errors: Vec<String> = Vec::new();
    let mut runs = 0;
    // FAKESYS_VERBOSE=1 prints Debian's outcome of every run (to review what
    // the scenarios exercise; use with --nocapture).
    let verbose = std::env::var_os("FAKESYS_VERBOSE").is_some();
    // Scenarios whose programs need symbols a later issue adds; run them
    // with FAKESYS_PENDING=1.
    const PENDING: &[(&str, &str)] = &[];
    let run_pending = std::env::var_os("FAKESYS_PENDING").is_some();
    for (idx, sc) in all.iter().enumerate() {
        if let Some((_, why)) = PENDING.iter().find(|(n, _)| *n == sc.name) {
            if !run_pending {
                println!("PENDING {} ({why})", sc.name);
                continue;
            }
        }
        let mut sc_diffs = Vec::new();
        for run in &sc.runs {
            runs += 1;
            let deb = run_once(&ctx, sc, idx, run, Lib::Debian);
            let our = run_once(&ctx, sc, idx, run, Lib::Ours);
            let both = format!("{}{}", deb.stdout, deb.stderr);
            for e in &run.expect {
                if !both.contains(e.as_str()) {
                    harness_errors.push(format!(
                        "[{}] `{}`: Debian's output lacks {e:?}:\n{}",
                        sc.name,
                        describe_run(run),
                        render(&deb)
                    ));
                }
            }
            if verbose {
                println!("----- [{}] $ {}\n{}", sc.name, describe_run(run), render(&deb));
            }
            if run.sweep {
                let tally = |o: &Outcome| {
                    o.stderr
                        .lines()
                        .chain(o.stdout.lines())
                        .filter(|l| l.starts_with("allocations: ") || l.starts_with("crashed: ") || l.starts_with("hung: "))
                        .take(3)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                notes.push(format!("SWEEP [{}] `{}`: Debian's library {}; ours {}", sc.name, describe_run(run), tally(&deb), tally(&our)));
                let clean = our.stdout.contains("\ncrashed: 0\nhung: 0\n") && our.status == "exit 0";
                if !clean {
                    sc_diffs.push(format!("  $ {}\nours crashed or hung:\n{}", describe_run(run), render(&our)));
                }
                continue;
            }
            if deb != our {
                sc_diffs.push(format!("  $ {}\n{}", describe_run(run), diff(&ctx, &deb, &our)));
            }
        }
        if sc_diffs.is_empty() {
            same.push(sc.name.clone());
        } else {
            differs.push((sc.name.clone(), sc_diffs.join("\n")));
        }
    }

    println!("fake sysfs: {} scenarios, {runs} program runs per library", all.len());
    for n in &notes {
        println!("{n}");
    }
    for s in &same {
        println!("SAME    {s}");
    }
    for (s, _) in &differs {
        println!("DIFFERS {s}");
    }
    for (s, d) in &differs {
        println!("\n===== {s}: Debian (-) vs ours (+) =====\n{d}");
    }
    for e in &harness_errors {
        println!("\nHARNESS: {e}");
    }
    assert!(harness_errors.is_empty(), "{} fake-tree expectations failed (see above)", harness_errors.len());
    assert!(
        differs.is_empty(),
        "{} of {} scenarios differ between Debian's libibverbs and ours: {}",
        differs.len(),
        all.len(),
        differs.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>().join(", ")
    );
}
