//! Our libraries' dynamic symbol tables against Debian's (rdma-core 44).
//!
//! FAILS on: a different SONAME; different version nodes or node parents; any
//! symbol we export that upstream does not (name@version); any symbol both
//! export with a different @@/@ (default/compat) binding, type (FUNC/OBJECT),
//! binding, visibility or (for data) size.
//! also FAILS on any upstream symbol we do not export, except the names a
//! test explicitly allows to be missing (the rsocket family of librdmacm
//! until the rsockets issue lands); an allowed name that is no longer
//! missing fails too, so the list cannot go stale. The missing list is
//! written to target/abi-tests/symbols/<soname>.missing.txt.
//! Undefined imports and the version-node pseudo symbols (IBVERBS_1.x, ABS)
//! are ignored. Needs the release build: cargo build --release -p libibverbs-rs.
use abi_tests::paths;
use abi_tests::symbols::{self, ByVersion};
use std::io::Write;

/// Prints past libtest's output capture, so the note shows in every run.
fn note(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

fn check_soname(soname: &str) {
    let up = paths::system_lib(soname);
    let ours = paths::ours_lib(soname);
    assert_eq!(
        symbols::soname(&ours),
        symbols::soname(&up),
        "SONAME of {}",
        ours.display()
    );
}

fn check_version_nodes(soname: &str) {
    let up = symbols::version_defs(&paths::system_lib(soname));
    let ours = symbols::version_defs(&paths::ours_lib(soname));
    assert!(
        !up.is_empty(),
        "Debian's {soname} has no version definitions?"
    );
    let show = |defs: &[symbols::VersionDef]| {
        defs.iter()
            .map(|d| match &d.parent {
                Some(p) => format!("  {} (parent {p})\n", d.name),
                None => format!("  {}\n", d.name),
            })
            .collect::<String>()
    };
    assert!(
        ours == up,
        "version nodes of our {soname} differ from Debian's.\nDebian's:\n{}ours:\n{}",
        show(&up),
        show(&ours)
    );
}

fn check_symbols(soname: &str, allowed_missing: &[&str]) {
    let up_path = paths::system_lib(soname);
    let ours_path = paths::ours_lib(soname);
    let up = symbols::dyn_syms(&up_path);
    let ours = symbols::dyn_syms(&ours_path);
    assert!(!up.is_empty(), "no symbols read from {}", up_path.display());
    let c = symbols::compare(&up, &ours);

    let missing = format!("{}", ByVersion(&c.missing));
    let file = paths::scratch("symbols").join(format!("{soname}.missing.txt"));
    let _ = std::fs::write(&file, &missing);
    if c.missing.is_empty() {
        note(&format!(
            "\n{soname}: all {} upstream symbols exported\n",
            up.len()
        ));
    } else {
        note(&format!(
            "\n{soname}: {} of {} upstream symbols exported; {} still missing (a failure unless the test allows them; \
             list in {}):\n{missing}",
            c.matching + c.mismatched.len(),
            up.len(),
            c.missing.len(),
            file.display()
        ));
    }

    let mut errors = String::new();
    let unexpected: Vec<_> = c.missing.iter().filter(|m| !allowed_missing.contains(&m.name.as_str())).collect();
    if !unexpected.is_empty() {
        errors.push_str(&format!(
            "{} upstream symbol(s) not exported by ours: {}\n",
            unexpected.len(),
            unexpected.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(" ")
        ));
    }
    let stale: Vec<_> = allowed_missing.iter().filter(|n| !c.missing.iter().any(|m| m.name == **n)).collect();
    if !stale.is_empty() {
        errors.push_str(&format!("allowed to be missing but exported (or unknown upstream): {stale:?}\n"));
    }
    if !c.extra.is_empty() {
        errors.push_str(&format!(
            "{} symbol(s) exported by ours but not by upstream:\n{}",
            c.extra.len(),
            ByVersion(&c.extra)
        ));
    }
    for m in &c.mismatched {
        errors.push_str(&format!("mismatch: {m}\n"));
    }
    assert!(
        c.is_compatible() && unexpected.is_empty() && stale.is_empty(),
        "our {} is not ABI-compatible with {}:\n{errors}",
        ours_path.display(),
        up_path.display()
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
fn libibverbs_symbols() {
    check_symbols("libibverbs.so.1", &[]);
}

/// Names of the rsocket family (RDMACM_1.0) not exported yet: none, the
/// whole family is (src/rsocket/).
const RSOCKETS_PENDING: &[&str] = &[];

#[test]
fn librdmacm_soname() {
    check_soname("librdmacm.so.1");
}

#[test]
fn librdmacm_version_nodes() {
    check_version_nodes("librdmacm.so.1");
}

#[test]
fn librdmacm_symbols() {
    check_symbols("librdmacm.so.1", RSOCKETS_PENDING);
}
