//! Our libraries' dynamic symbol tables against those of every distribution
//! we serve: Debian 12 (rdma-core 44, the host's own), Debian 13 (56.1) and
//! sid (65.0), the last two from the root filesystems of
//! abi-tests/vm/build-userland.
//!
//! One library serves all three, so against each distribution:
//! - FAILS on a different SONAME;
//! - FAILS on any symbol of that distribution we do not export, unless its
//!   version node is listed as pending for it below; a pending node of which
//!   we export anything fails too, so the list cannot go stale;
//! - FAILS on any symbol both export differently: @@/@ (default/compat),
//!   type, binding, visibility or (for data) size; except that a name
//!   exported at two versions has only one default, the newest: the older
//!   distribution's `name@@IBVERBS_PRIVATE_34` is ours `name@IBVERBS_PRIVATE_34`
//!   beside `name@@IBVERBS_PRIVATE_65`, counted apart as "default elsewhere";
//! - takes a symbol we export that it lacks as expected only when another
//!   of the distributions exports it identically (a name an older or newer
//!   release added or dropped); any other extra symbol FAILS.
//!
//! Our version nodes are the union of the distributions' (each with the same
//! parent everywhere), less the pending ones. The counts are printed, and the
//! lists written to target/abi-tests/symbols/<soname>.<distribution>.txt.
//! Undefined imports and the version-node pseudo symbols are ignored. Needs
//! the release build (cargo build --release).
use abi_tests::paths;
use abi_tests::symbols::{self, ByVersion, DynSym, VersionDef};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// Prints past libtest's output capture, so the note shows in every run.
fn note(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

#[derive(Clone, Copy)]
struct Distro {
    /// Short name, used in file names.
    id: &'static str,
    title: &'static str,
    /// The build-userland suite; None for the host's own Debian 12.
    suite: Option<&'static str>,
}

const DISTROS: [Distro; 3] = [
    Distro { id: "debian12", title: "Debian 12 (rdma-core 44)", suite: None },
    Distro { id: "debian13", title: "Debian 13 (rdma-core 56.1)", suite: Some("trixie") },
    Distro { id: "sid", title: "sid (rdma-core 65.0)", suite: Some("sid") },
];

/// Version nodes of a distribution that we do not export yet: none now. A
/// library's node is listed while it is missing, as
/// `("libibverbs.so.1", "sid") => &["IBVERBS_1.15"]` in a match on
/// `(soname, d.id)`.
fn pending_nodes(_soname: &str, _d: &Distro) -> &'static [&'static str] {
    &[]
}

fn lib_of(d: &Distro, soname: &str) -> PathBuf {
    match d.suite {
        None => paths::system_lib(soname),
        Some(s) => paths::userland_lib(s, soname),
    }
}

fn check_soname(soname: &str) {
    let ours = symbols::soname(&paths::ours_lib(soname));
    for d in &DISTROS {
        assert_eq!(ours, symbols::soname(&lib_of(d, soname)), "SONAME against {}", d.title);
    }
}

fn check_version_nodes(soname: &str) {
    let ours = symbols::version_defs(&paths::ours_lib(soname));
    let mut want: Vec<VersionDef> = Vec::new();
    let mut errors = String::new();
    for d in &DISTROS {
        let defs = symbols::version_defs(&lib_of(d, soname));
        assert!(!defs.is_empty(), "{}'s {soname} has no version definitions?", d.title);
        for def in defs {
            if pending_nodes(soname, d).contains(&def.name.as_str()) {
                continue;
            }
            match want.iter().find(|w| w.name == def.name) {
                Some(w) if w.parent != def.parent => errors.push_str(&format!(
                    "{}: parent {:?} in {}, {:?} in an earlier distribution\n",
                    def.name, def.parent, d.title, w.parent
                )),
                Some(_) => {}
                None => want.push(def),
            }
        }
    }
    want.sort_by_key(|d| symbols::natural_key(&d.name));
    let mut ours_sorted = ours.clone();
    ours_sorted.sort_by_key(|d| symbols::natural_key(&d.name));
    let show = |defs: &[VersionDef]| {
        defs.iter()
            .map(|d| match &d.parent {
                Some(p) => format!("  {} (parent {p})\n", d.name),
                None => format!("  {}\n", d.name),
            })
            .collect::<String>()
    };
    assert!(errors.is_empty(), "the distributions disagree on {soname}'s version nodes:\n{errors}");
    assert!(
        ours_sorted == want,
        "version nodes of our {soname} are not the distributions' (less the pending ones).\nwanted:\n{}ours:\n{}",
        show(&want),
        show(&ours_sorted)
    );
    note(&format!("\n{soname}: {} version nodes, as the distributions define them\n", ours.len()));
}

fn check_symbols(soname: &str, d: &Distro) {
    let theirs_path = lib_of(d, soname);
    let ours_path = paths::ours_lib(soname);
    let theirs = symbols::dyn_syms(&theirs_path);
    let ours = symbols::dyn_syms(&ours_path);
    assert!(!theirs.is_empty(), "no symbols read from {}", theirs_path.display());
    let c = symbols::compare(&theirs, &ours);

    // Every other distribution's symbols, by name@version: where an extra one
    // is expected from.
    let mut elsewhere: BTreeMap<String, (DynSym, &'static str)> = BTreeMap::new();
    for o in DISTROS.iter().filter(|o| o.id != d.id) {
        for s in symbols::dyn_syms(&lib_of(o, soname)) {
            elsewhere.entry(format!("{}@{:?}", s.name, s.version)).or_insert((s, o.title));
        }
    }
    let key = |s: &DynSym| format!("{}@{:?}", s.name, s.version);
    let (expected_extra, unexpected_extra): (Vec<_>, Vec<_>) = c.extra.iter().cloned().partition(|s| {
        elsewhere.get(&key(s)).is_some_and(|(o, _)| {
            let c = symbols::compare(std::slice::from_ref(o), &ours);
            c.matching + c.default_elsewhere.len() == 1
        })
    });

    let pending = pending_nodes(soname, d);
    let is_pending = |s: &DynSym| s.version.as_deref().is_some_and(|v| pending.contains(&v));
    let (pending_missing, missing): (Vec<_>, Vec<_>) = c.missing.iter().cloned().partition(is_pending);
    let stale: Vec<_> = ours.iter().filter(|s| is_pending(s)).collect();

    let report = format!(
        "{soname} against {}: {} of its {} symbols exported identically, {} more with their default version at a newer node; \
         missing {} ({} in pending nodes {pending:?}); mismatched {}; extra {} ({} expected: in another distribution)\n",
        d.title,
        c.matching,
        theirs.len(),
        c.default_elsewhere.len(),
        c.missing.len(),
        pending_missing.len(),
        c.mismatched.len(),
        c.extra.len(),
        expected_extra.len(),
    );
    let file = paths::scratch("symbols").join(format!("{soname}.{}.txt", d.id));
    let _ = std::fs::write(
        &file,
        format!(
            "{report}\nmissing:\n{}\nextra, expected:\n{}\nextra, unexpected:\n{}\nmismatched:\n{}\ndefault version elsewhere:\n{}\n",
            ByVersion(&c.missing),
            ByVersion(&expected_extra),
            ByVersion(&unexpected_extra),
            c.mismatched.join("\n"),
            c.default_elsewhere.join("\n")
        ),
    );
    note(&format!("\n{report}"));

    let mut errors = String::new();
    if !missing.is_empty() {
        errors.push_str(&format!("{} symbol(s) not exported by ours:\n{}", missing.len(), ByVersion(&missing)));
    }
    if !stale.is_empty() {
        errors.push_str(&format!(
            "pending nodes that we export from (remove them from pending_nodes): {:?}\n",
            stale.iter().map(|s| s.versioned_name()).collect::<Vec<_>>()
        ));
    }
    if !unexpected_extra.is_empty() {
        errors.push_str(&format!(
            "{} symbol(s) exported by ours and by none of the distributions:\n{}",
            unexpected_extra.len(),
            ByVersion(&unexpected_extra)
        ));
    }
    for m in &c.mismatched {
        errors.push_str(&format!("mismatch: {m}\n"));
    }
    assert!(
        errors.is_empty(),
        "our {} is not a drop-in for {}'s {}:\n{errors}(lists in {})",
        ours_path.display(),
        d.title,
        theirs_path.display(),
        file.display()
    );
}

#[test]
fn libibverbs_soname() {
    check_soname("libibverbs.so.1");
}

#[test]
fn libibverbs_version_nodes() {
    check_version_nodes("libibverbs.so.1");
}

#[test]
fn libibverbs_symbols_debian12() {
    check_symbols("libibverbs.so.1", &DISTROS[0]);
}

#[test]
fn libibverbs_symbols_debian13() {
    check_symbols("libibverbs.so.1", &DISTROS[1]);
}

#[test]
fn libibverbs_symbols_sid() {
    check_symbols("libibverbs.so.1", &DISTROS[2]);
}

#[test]
fn librdmacm_soname() {
    check_soname("librdmacm.so.1");
}

#[test]
fn librdmacm_version_nodes() {
    check_version_nodes("librdmacm.so.1");
}

#[test]
fn librdmacm_symbols_debian12() {
    check_symbols("librdmacm.so.1", &DISTROS[0]);
}

#[test]
fn librdmacm_symbols_debian13() {
    check_symbols("librdmacm.so.1", &DISTROS[1]);
}

#[test]
fn librdmacm_symbols_sid() {
    check_symbols("librdmacm.so.1", &DISTROS[2]);
}
