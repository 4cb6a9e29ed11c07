//! Shared helpers for the ABI tests in `abi-tests/tests/`.
//!
//! - [`paths`]: where our built libraries and Debian's reference libraries are.
//! - [`symbols`]: the dynamic symbol table of a shared library (`readelf`) and
//!   the comparison of ours with upstream's.
//! - [`scenarios`]: runs `abi-tests/run-scenarios` (upstream tools with
//!   Debian's library and with ours, on the host or in the Soft-RoCE VM) and
//!   reads its per-scenario verdicts.

pub mod paths {
    use std::path::{Path, PathBuf};

    /// Directory of Debian's libraries, the reference we compare against.
    pub const SYSTEM_LIB_DIR: &str = "/usr/lib/x86_64-linux-gnu";

    /// The workspace root.
    pub fn repo_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("abi-tests lives inside the workspace")
            .to_path_buf()
    }

    /// True when `RDMA_OURS_LIB_DIR` points the tests at some other build of
    /// "our" libraries (for example Debian's own, to test the harness).
    pub fn ours_overridden() -> bool {
        std::env::var_os("RDMA_OURS_LIB_DIR").is_some_and(|v| !v.is_empty())
    }

    /// Directory holding our built libraries (`libibverbs.so.1`,
    /// `librdmacm.so.1`, `librspreload.so`): `$RDMA_OURS_LIB_DIR`, else the
    /// release directory of the cargo target directory (`target/release`).
    /// The tests do not build them: run `cargo build --release` before
    /// `cargo test`.
    pub fn ours_lib_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("RDMA_OURS_LIB_DIR").filter(|v| !v.is_empty()) {
            return PathBuf::from(dir);
        }
        target_dir().join("release")
    }

    /// Cargo's target directory: `$CARGO_TARGET_DIR` (relative to the
    /// workspace root) or `target`.
    pub fn target_dir() -> PathBuf {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target"));
        repo_root().join(target)
    }

    /// Our build of `soname` (e.g. `libibverbs.so.1`); panics with the command
    /// that builds it when it is not there.
    pub fn ours_lib(soname: &str) -> PathBuf {
        let path = ours_lib_dir().join(soname);
        assert!(
            path.exists(),
            "{} does not exist. The comparisons with Debian's libraries use the \
             RELEASE build and do not build it themselves; run first:\n    cargo build --release",
            path.display()
        );
        path
    }

    /// Debian's `soname`, the reference.
    pub fn system_lib(soname: &str) -> PathBuf {
        let path = Path::new(SYSTEM_LIB_DIR).join(soname);
        assert!(
            path.exists(),
            "{} does not exist: install Debian's rdma-core libraries (abi-tests/install-deps.sh)",
            path.display()
        );
        path
    }

    /// The root filesystem of another Debian userland (`trixie`, `sid`),
    /// made by abi-tests/vm/build-userland: `$RDMA_USERLAND_CACHE/SUITE`,
    /// by default ~/.cache/rdma-core-rs/userland/SUITE. Panics with the
    /// command that makes it when it is not there.
    pub fn userland_root(suite: &str) -> PathBuf {
        let cache = std::env::var_os("RDMA_USERLAND_CACHE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|c| PathBuf::from(c).join("rdma-core-rs/userland")))
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/rdma-core-rs/userland")))
            .expect("HOME is set");
        let root = cache.join(suite);
        assert!(
            root.join("usr").is_dir(),
            "{} does not exist: make it with abi-tests/vm/build-userland {suite}",
            root.display()
        );
        root
    }

    /// `soname` of the userland `suite` (`trixie`, `sid`): that
    /// distribution's own library.
    pub fn userland_lib(suite: &str, soname: &str) -> PathBuf {
        let path = userland_root(suite).join(SYSTEM_LIB_DIR.trim_start_matches('/')).join(soname);
        assert!(path.exists(), "{} does not exist", path.display());
        path
    }

    /// Our libraries (libibverbs.so.1, librdmacm.so.1) copied into
    /// `/tmp/rdma-TAG-PID/ours` of the userland `suite`, for a process
    /// chroot'ed there; the directory is removed on drop.
    pub struct OursInUserland {
        /// The userland's root filesystem.
        pub root: PathBuf,
        /// The scratch directory as the chroot'ed process sees it, and on
        /// the host; our libraries are in its `ours`.
        pub inside: PathBuf,
        pub host: PathBuf,
    }

    impl OursInUserland {
        pub fn new(suite: &str, tag: &str) -> OursInUserland {
            let root = userland_root(suite);
            let inside = PathBuf::from(format!("/tmp/rdma-{tag}-{}", std::process::id()));
            let host = root.join(inside.strip_prefix("/").unwrap());
            let _ = std::fs::remove_dir_all(&host);
            std::fs::create_dir_all(host.join("ours")).expect("create the scratch directory in the userland");
            for so in ["libibverbs.so.1", "librdmacm.so.1"] {
                std::fs::copy(ours_lib(so), host.join("ours").join(so)).expect("copy our library into the userland");
            }
            OursInUserland { root, inside, host }
        }

        /// Our libraries' directory as the chroot'ed process sees it.
        pub fn ours_dir(&self) -> PathBuf {
            self.inside.join("ours")
        }
    }

    impl Drop for OursInUserland {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.host);
        }
    }

    /// Whether this process runs as root (chroot, mount, mknod).
    pub fn is_root() -> bool {
        // SAFETY: geteuid has no preconditions.
        unsafe { geteuid() == 0 }
    }

    extern "C" {
        fn geteuid() -> u32;
    }

    /// The files the installed Debian `packages` own (`dpkg-query -L`). Tests
    /// that compare what a package installs take it from here, not by reading
    /// a whole system directory, where other packages may have put files of
    /// their own. Panics, naming the install script, when one is missing.
    pub fn package_files(packages: &[&str]) -> Vec<PathBuf> {
        let out = std::process::Command::new("dpkg-query")
            .arg("-L")
            .args(packages)
            .output()
            .expect("run dpkg-query");
        assert!(
            out.status.success(),
            "dpkg-query -L {packages:?} failed (install them: abi-tests/install-deps.sh): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with('/'))
            .map(PathBuf::from)
            .collect()
    }

    /// Scratch directory for test outputs: `target/abi-tests/<what>`.
    pub fn scratch(what: &str) -> PathBuf {
        let dir = target_dir().join("abi-tests").join(what);
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        dir
    }
}

pub mod symbols {
    //! Dynamic symbols as `readelf --dyn-syms -W` shows them, and the
    //! comparison of our library with upstream's.
    use std::collections::{BTreeMap, BTreeSet};
    use std::fmt;
    use std::path::Path;
    use std::process::Command;

    /// One defined, exported symbol.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct DynSym {
        pub name: String,
        /// The version node, e.g. `IBVERBS_1.1`; None for an unversioned symbol.
        pub version: Option<String>,
        /// `name@@VERSION` (the default a new link binds to) rather than
        /// `name@VERSION` (kept for binaries linked against an older ABI).
        pub default: bool,
        /// FUNC, OBJECT, IFUNC, ...
        pub kind: String,
        /// GLOBAL or WEAK.
        pub bind: String,
        /// DEFAULT, PROTECTED, ...
        pub vis: String,
        pub size: u64,
    }

    impl DynSym {
        /// `name@@VERSION` / `name@VERSION` / `name`.
        pub fn versioned_name(&self) -> String {
            match &self.version {
                Some(v) if self.default => format!("{}@@{}", self.name, v),
                Some(v) => format!("{}@{}", self.name, v),
                None => self.name.clone(),
            }
        }
        fn key(&self) -> (String, Option<String>) {
            (self.name.clone(), self.version.clone())
        }
    }

    fn readelf(args: &[&str], path: &Path) -> String {
        let out = Command::new("readelf")
            .args(args)
            .arg(path)
            .env("LC_ALL", "C")
            .output()
            .expect("run readelf (install binutils)");
        assert!(
            out.status.success(),
            "readelf {:?} {} failed: {}",
            args,
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("readelf prints ASCII")
    }

    /// Parses `readelf --dyn-syms -W` output. Keeps symbols defined in the
    /// library; drops undefined imports (Ndx UND) and the version-definition
    /// pseudo symbols (ABS, size 0, named like a version node: `version_nodes`).
    pub fn parse_dyn_syms(text: &str, version_nodes: &BTreeSet<String>) -> Vec<DynSym> {
        let mut syms = Vec::new();
        for line in text.lines() {
            // "  12: 0000000000010c20    66 FUNC    GLOBAL DEFAULT   13 ibv_x@@IBVERBS_1.1"
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 8
                || !f[0].ends_with(':')
                || f[0].trim_end_matches(':').parse::<u32>().is_err()
            {
                continue;
            }
            let (size, kind, bind, vis, ndx, full) = (f[2], f[3], f[4], f[5], f[6], f[7]);
            if ndx == "UND" || bind == "LOCAL" {
                continue;
            }
            if ndx == "ABS" && version_nodes.contains(full) {
                continue;
            }
            let (name, version, default) = if let Some((n, v)) = full.split_once("@@") {
                (n, Some(v.to_string()), true)
            } else if let Some((n, v)) = full.split_once('@') {
                (n, Some(v.to_string()), false)
            } else {
                (full, None, true)
            };
            let size = if let Some(hex) = size.strip_prefix("0x") {
                u64::from_str_radix(hex, 16).unwrap_or(0)
            } else {
                size.parse().unwrap_or(0)
            };
            syms.push(DynSym {
                name: name.to_string(),
                version,
                default,
                kind: kind.to_string(),
                bind: bind.to_string(),
                vis: vis.to_string(),
                size,
            });
        }
        syms
    }

    /// A version definition: node name and the node it inherits from.
    #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub struct VersionDef {
        pub name: String,
        pub parent: Option<String>,
    }

    /// Parses the `.gnu.version_d` part of `readelf -V`. The BASE entry (the
    /// file's own name) is left out.
    pub fn parse_version_defs(text: &str) -> Vec<VersionDef> {
        let mut defs: Vec<VersionDef> = Vec::new();
        let mut in_section = false;
        let mut base = false;
        for line in text.lines() {
            if line.starts_with("Version definition section") {
                in_section = true;
                continue;
            }
            if !in_section {
                continue;
            }
            if line.starts_with("Version ") {
                break; // the next section (.gnu.version_r)
            }
            if let Some(pos) = line.find("Name: ") {
                base = line.contains("Flags: BASE");
                if !base {
                    defs.push(VersionDef {
                        name: line[pos + 6..].trim().to_string(),
                        parent: None,
                    });
                }
            } else if let Some(pos) = line.find("Parent 1: ") {
                if !base {
                    if let Some(last) = defs.last_mut() {
                        last.parent = Some(line[pos + 10..].trim().to_string());
                    }
                }
            }
        }
        defs
    }

    pub fn version_defs(path: &Path) -> Vec<VersionDef> {
        parse_version_defs(&readelf(&["-V", "-W"], path))
    }

    pub fn dyn_syms(path: &Path) -> Vec<DynSym> {
        let nodes = version_defs(path).into_iter().map(|d| d.name).collect();
        parse_dyn_syms(&readelf(&["--dyn-syms", "-W"], path), &nodes)
    }

    /// The DT_SONAME, if any.
    pub fn soname(path: &Path) -> Option<String> {
        let text = readelf(&["-d", "-W"], path);
        text.lines().find(|l| l.contains("(SONAME)")).and_then(|l| {
            let start = l.find('[')? + 1;
            let end = l.rfind(']')?;
            Some(l[start..end].to_string())
        })
    }

    /// How our symbol table differs from upstream's.
    #[derive(Debug, Default)]
    pub struct Comparison {
        /// Upstream exports these and we do not yet (not an error by itself).
        pub missing: Vec<DynSym>,
        /// We export these and upstream does not: always an error.
        pub extra: Vec<DynSym>,
        /// Both export name@version, but differently: always an error.
        pub mismatched: Vec<String>,
        /// Upstream's default `name@@V` that ours exports as `name@V`, because
        /// ours has `name@@W` for a newer node W (a name has one default
        /// version; when one library serves several releases, the newest
        /// release's is it). The same symbol otherwise; a versioned reference
        /// binds to either.
        pub default_elsewhere: Vec<String>,
        /// How many upstream symbols we export identically.
        pub matching: usize,
    }

    impl Comparison {
        pub fn is_compatible(&self) -> bool {
            self.extra.is_empty() && self.mismatched.is_empty()
        }
    }

    /// Compares name, version, @@ vs @, type, binding, visibility, and for
    /// data objects the size (a copy relocation copies exactly that much).
    pub fn compare(upstream: &[DynSym], ours: &[DynSym]) -> Comparison {
        let up: BTreeMap<_, _> = upstream.iter().map(|s| (s.key(), s)).collect();
        let us: BTreeMap<_, _> = ours.iter().map(|s| (s.key(), s)).collect();
        let mut c = Comparison::default();
        for (key, u) in &up {
            let Some(o) = us.get(key) else {
                c.missing.push((*u).clone());
                continue;
            };
            let mut diffs = Vec::new();
            let default_elsewhere = u.default
                && !o.default
                && ours.iter().any(|x| x.name == o.name && x.default && x.version != o.version);
            if u.default != o.default && !default_elsewhere {
                diffs.push(format!(
                    "upstream {} but ours {}",
                    u.versioned_name(),
                    o.versioned_name()
                ));
            }
            if u.kind != o.kind {
                diffs.push(format!("type: upstream {}, ours {}", u.kind, o.kind));
            }
            if u.bind != o.bind {
                diffs.push(format!("binding: upstream {}, ours {}", u.bind, o.bind));
            }
            if u.vis != o.vis {
                diffs.push(format!("visibility: upstream {}, ours {}", u.vis, o.vis));
            }
            if u.kind == "OBJECT" && u.size != o.size {
                diffs.push(format!("object size: upstream {}, ours {}", u.size, o.size));
            }
            if diffs.is_empty() && default_elsewhere {
                let newer = ours.iter().find(|x| x.name == o.name && x.default).map(|x| x.versioned_name());
                c.default_elsewhere
                    .push(format!("{} is ours {} ({})", u.versioned_name(), o.versioned_name(), newer.unwrap_or_default()));
            } else if diffs.is_empty() {
                c.matching += 1;
            } else {
                c.mismatched
                    .push(format!("{}: {}", u.versioned_name(), diffs.join("; ")));
            }
        }
        for (key, o) in &us {
            if !up.contains_key(key) {
                c.extra.push((*o).clone());
            }
        }
        c
    }

    /// Sort key in which IBVERBS_1.5 comes before IBVERBS_1.10.
    #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub enum NaturalPart {
        Number(u64),
        Text(String),
    }

    pub fn natural_key(s: &str) -> Vec<NaturalPart> {
        let mut parts = Vec::new();
        let mut rest = s;
        while let Some(c) = rest.chars().next() {
            let digit = c.is_ascii_digit();
            let end = rest
                .find(|ch: char| ch.is_ascii_digit() != digit)
                .unwrap_or(rest.len());
            let (run, tail) = rest.split_at(end);
            parts.push(match run.parse() {
                Ok(n) if digit => NaturalPart::Number(n),
                _ => NaturalPart::Text(run.to_string()),
            });
            rest = tail;
        }
        parts
    }

    /// Human-readable list, grouped by version node: "IBVERBS_1.1 (3): a, b, c".
    pub struct ByVersion<'a>(pub &'a [DynSym]);

    impl fmt::Display for ByVersion<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let mut groups: BTreeMap<Vec<NaturalPart>, (String, Vec<String>)> = BTreeMap::new();
            for s in self.0 {
                let node = s.version.clone().unwrap_or_else(|| "(unversioned)".into());
                let name = if s.default {
                    s.name.clone()
                } else {
                    format!("{} (@, compat)", s.name)
                };
                groups
                    .entry(natural_key(&node))
                    .or_insert_with(|| (node, Vec::new()))
                    .1
                    .push(name);
            }
            for (_, (node, names)) in groups {
                writeln!(f, "  {} ({}):", node, names.len())?;
                let mut line = String::from("   ");
                for n in names {
                    if line.len() + n.len() > 100 {
                        writeln!(f, "{line}")?;
                        line = String::from("   ");
                    }
                    line.push(' ');
                    line.push_str(&n);
                }
                writeln!(f, "{line}")?;
            }
            Ok(())
        }
    }
}

pub mod scenarios {
    //! Runs `abi-tests/run-scenarios` once per mode and per test binary, and
    //! gives each test its scenario's verdict.
    use crate::paths;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// The outcome of one `run-scenarios` invocation.
    pub struct Run {
        pub out: PathBuf,
        pub log: String,
        pub exit: Option<i32>,
    }

    /// Runs `abi-tests/run-scenarios <args> --out <out> <mode>`; its output is
    /// kept in `out/run.log` (and returned) rather than mixed into the test
    /// output.
    pub fn run(mode: &str, extra: &[&str], out: &Path) -> Run {
        run_with(mode, &paths::ours_lib_dir(), extra, out)
    }

    /// [`run`] with "ours" taken from `ours_dir`.
    pub fn run_with(mode: &str, ours_dir: &Path, extra: &[&str], out: &Path) -> Run {
        let script = paths::repo_root().join("abi-tests/run-scenarios");
        // Results of an earlier run must never be mistaken for this one's.
        let _ = std::fs::remove_dir_all(out.join("scenarios"));
        let mut cmd = Command::new(&script);
        cmd.current_dir(paths::repo_root());
        cmd.args(extra);
        if std::env::var("RDMA_SCENARIOS_PENDING").as_deref() == Ok("1") {
            cmd.arg("--pending");
        }
        if std::env::var("RDMA_SCENARIOS_LONG").as_deref() == Ok("1") {
            cmd.arg("--long");
        }
        // The tier (ci or full: which pairings a client/server scenario runs)
        // and, in the VM, how many VMs share the scenarios.
        if let Some(tier) = std::env::var("RDMA_SCENARIOS_TIER").ok().filter(|t| !t.is_empty()) {
            cmd.arg("--tier").arg(tier);
        }
        if mode == "vm" {
            if let Some(jobs) = std::env::var("RDMA_VM_JOBS").ok().filter(|j| !j.is_empty()) {
                cmd.arg("--jobs").arg(jobs);
            }
        }
        cmd.arg("--out").arg(out).arg(mode);
        cmd.env("RDMA_OURS_LIB_DIR", ours_dir);
        let output = cmd
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", script.display()));
        let mut log = String::from_utf8_lossy(&output.stdout).into_owned();
        log.push_str(&String::from_utf8_lossy(&output.stderr));
        let _ = std::fs::write(out.join("run.log"), &log);
        Run {
            out: out.to_path_buf(),
            log,
            exit: output.status.code(),
        }
    }

    impl Run {
        fn file(&self, name: &str, file: &str) -> Option<String> {
            std::fs::read_to_string(self.out.join("scenarios").join(name).join(file)).ok()
        }

        /// PASS, FAIL, PENDING, LONG, or None when the scenario did not run at all.
        pub fn status(&self, name: &str) -> Option<String> {
            self.file(name, "status").map(|s| s.trim().to_string())
        }

        pub fn report(&self, name: &str) -> String {
            self.file(name, "report.txt").unwrap_or_default()
        }

        fn log_tail(&self) -> String {
            let lines: Vec<&str> = self.log.lines().collect();
            lines[lines.len().saturating_sub(40)..].join("\n")
        }

        /// Panics, with the scenario's report (the diffs), unless it passed.
        pub fn assert_passed(&self, name: &str) {
            match self.status(name).as_deref() {
                Some("PASS") => {}
                Some("FAIL") => panic!(
                    "scenario {name}: Debian's library and ours behave differently\n{}\n\
                     (all files: {})",
                    self.report(name),
                    self.out.join("scenarios").join(name).display()
                ),
                Some("PENDING") => panic!(
                    "scenario {name} is marked pending and was not run; \
                     set RDMA_SCENARIOS_PENDING=1 to run it\n{}",
                    self.report(name)
                ),
                Some("LONG") => panic!(
                    "scenario {name} is marked long and was not run; \
                     set RDMA_SCENARIOS_LONG=1 to run it\n{}",
                    self.report(name)
                ),
                other => panic!(
                    "scenario {name} did not run (status {other:?}; run-scenarios exit {:?}). \
                     Last lines of {}:\n{}",
                    self.exit,
                    self.out.join("run.log").display(),
                    self.log_tail()
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::symbols::*;
    use std::collections::BTreeSet;

    const DYNSYM: &str = "
Symbol table '.dynsym' contains 6 entries:
   Num:    Value          Size Type    Bind   Vis      Ndx Name
     0: 0000000000000000     0 NOTYPE  LOCAL  DEFAULT  UND 
     1: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND stderr@GLIBC_2.2.5 (15)
   146: 0000000000010dd0   165 FUNC    GLOBAL DEFAULT   13 ibv_ack_async_event@IBVERBS_1.0
   147: 0000000000010de0   100 FUNC    GLOBAL DEFAULT   13 ibv_ack_async_event@@IBVERBS_1.1
   155: 0000000000020281     1 OBJECT  GLOBAL DEFAULT   24 verbs_allow_disassociate_destroy@@IBVERBS_PRIVATE_34
   272: 0000000000000000     0 OBJECT  GLOBAL DEFAULT  ABS IBVERBS_1.0
";

    fn nodes() -> BTreeSet<String> {
        ["IBVERBS_1.0", "IBVERBS_1.1", "IBVERBS_PRIVATE_34"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn parses_defined_versioned_symbols_only() {
        let syms = parse_dyn_syms(DYNSYM, &nodes());
        let names: Vec<String> = syms.iter().map(|s| s.versioned_name()).collect();
        assert_eq!(
            names,
            [
                "ibv_ack_async_event@IBVERBS_1.0",
                "ibv_ack_async_event@@IBVERBS_1.1",
                "verbs_allow_disassociate_destroy@@IBVERBS_PRIVATE_34"
            ]
        );
        assert_eq!(syms[2].kind, "OBJECT");
        assert_eq!(syms[2].size, 1);
        assert!(!syms[0].default && syms[1].default);
    }

    #[test]
    fn comparison_classifies_missing_extra_and_mismatched() {
        let up = parse_dyn_syms(DYNSYM, &nodes());
        let mut ours = up.clone();
        ours.remove(0); // missing: ibv_ack_async_event@IBVERBS_1.0
        ours[0].default = false; // @@IBVERBS_1.1 exported as @IBVERBS_1.1
        ours[1].size = 4; // object of another size
        let mut extra = ours[0].clone();
        extra.name = "ibv_not_upstream".into();
        ours.push(extra);
        let c = compare(&up, &ours);
        assert_eq!(c.missing.len(), 1);
        assert_eq!(
            c.missing[0].versioned_name(),
            "ibv_ack_async_event@IBVERBS_1.0"
        );
        assert_eq!(c.extra.len(), 1);
        assert_eq!(c.extra[0].name, "ibv_not_upstream");
        assert_eq!(c.mismatched.len(), 2, "{:?}", c.mismatched);
        assert!(c.mismatched[0].contains("ibv_ack_async_event@@IBVERBS_1.1"));
        assert!(c.mismatched[1].contains("object size: upstream 1, ours 4"));
        assert!(!c.is_compatible());
        assert_eq!(c.matching, 0);
    }

    #[test]
    fn identical_tables_are_compatible() {
        let up = parse_dyn_syms(DYNSYM, &nodes());
        let c = compare(&up, &up);
        assert!(c.is_compatible() && c.missing.is_empty());
        assert_eq!(c.matching, 3);
    }

    #[test]
    fn version_nodes_sort_numerically() {
        let mut v = vec![
            "IBVERBS_PRIVATE_34",
            "IBVERBS_1.10",
            "IBVERBS_1.5",
            "IBVERBS_1.1",
        ];
        v.sort_by_key(|s| natural_key(s));
        assert_eq!(
            v,
            [
                "IBVERBS_1.1",
                "IBVERBS_1.5",
                "IBVERBS_1.10",
                "IBVERBS_PRIVATE_34"
            ]
        );
    }

    #[test]
    fn parses_version_definitions_with_parents() {
        let text = "
Version definition section '.gnu.version_d' contains 3 entries:
 Addr: 0x0000000000003e30  Offset: 0x00003e30  Link: 4 (.dynstr)
  000000: Rev: 1  Flags: BASE  Index: 1  Cnt: 1  Name: libibverbs.so.1
  0x001c: Rev: 1  Flags: none  Index: 2  Cnt: 1  Name: IBVERBS_1.0
  0x0038: Rev: 1  Flags: none  Index: 3  Cnt: 2  Name: IBVERBS_1.1
  0x0054: Parent 1: IBVERBS_1.0

Version needs section '.gnu.version_r' contains 1 entry:
  0x0010:   Name: GLIBC_2.2.5  Flags: none  Version: 15
";
        let defs = parse_version_defs(text);
        assert_eq!(
            defs,
            [
                VersionDef {
                    name: "IBVERBS_1.0".into(),
                    parent: None
                },
                VersionDef {
                    name: "IBVERBS_1.1".into(),
                    parent: Some("IBVERBS_1.0".into())
                },
            ]
        );
    }
}
