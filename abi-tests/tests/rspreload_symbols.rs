//! Our librspreload.so against Debian's <libdir>/rsocket/librspreload.so.1
//! (rdma-core 44): the same exported names (the 26 libc socket calls it
//! replaces, unversioned, FUNC GLOBAL DEFAULT) plus our four epoll calls
//! (upstream's preload only gained epoll after 44), nothing else exported, no
//! version definitions, and the same (absent) SONAME. Also: it must import
//! the rsocket family from librdmacm.so.1 at RDMACM_1.0, as Debian's does,
//! so that either librdmacm can serve it. Needs the release build:
//! cargo build --release -p librspreload-rs.
use abi_tests::paths;
use abi_tests::symbols;
use std::path::PathBuf;
use std::process::Command;

const DEBIAN: &str = "rsocket/librspreload.so.1";

fn ours() -> PathBuf {
    let p = paths::ours_lib_dir().join("librspreload.so.1");
    assert!(
        p.exists(),
        "{} does not exist; run first:\n    cargo build --release -p librspreload-rs",
        p.display()
    );
    p
}

/// The 26 names upstream's librspreload.map exports, and our four epoll
/// calls (beyond rdma-core 44: see librspreload-rs/src/epoll.rs).
const EXPORTS: &[&str] = &[
    "accept", "bind", "close", "connect", "dup2", "epoll_ctl", "epoll_pwait", "epoll_pwait2", "epoll_wait",
    "fcntl", "getpeername", "getsockname", "getsockopt", "listen", "poll", "read", "readv", "recv", "recvfrom",
    "recvmsg", "select", "send", "sendfile", "sendmsg", "sendto", "setsockopt", "shutdown", "socket", "write",
    "writev",
];

/// Ours only: the epoll path under the preload.
const BEYOND_44: &[&str] = &["epoll_ctl", "epoll_pwait", "epoll_pwait2", "epoll_wait"];

#[test]
fn exports_match_debian() {
    let up = symbols::dyn_syms(&paths::system_lib(DEBIAN));
    let us = symbols::dyn_syms(&ours());
    let mut c = symbols::compare(&up, &us);
    let extra: Vec<_> = c.extra.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(extra, BEYOND_44, "exports beyond Debian's");
    c.extra.clear();
    assert!(
        c.missing.is_empty() && c.is_compatible(),
        "librspreload exports differ from Debian's: missing {:?}, extra {:?}, mismatched {:?}",
        c.missing.iter().map(|s| s.versioned_name()).collect::<Vec<_>>(),
        c.extra.iter().map(|s| s.versioned_name()).collect::<Vec<_>>(),
        c.mismatched
    );
    let mut names: Vec<_> = us.iter().map(|s| s.name.as_str()).collect();
    names.sort();
    assert_eq!(names, EXPORTS, "our exported names");
    for s in &us {
        assert!(s.version.is_none(), "{} is versioned", s.versioned_name());
        assert_eq!((s.kind.as_str(), s.bind.as_str(), s.vis.as_str()), ("FUNC", "GLOBAL", "DEFAULT"), "{}", s.name);
    }
}

#[test]
fn no_soname_and_no_version_nodes_like_debian() {
    let up = paths::system_lib(DEBIAN);
    assert_eq!(symbols::soname(&ours()), symbols::soname(&up));
    assert_eq!(symbols::version_defs(&ours()), symbols::version_defs(&up));
}

/// `name@VERSION` of every undefined import from librdmacm's RDMACM_* nodes.
fn rdmacm_imports(path: &std::path::Path) -> Vec<String> {
    let out = Command::new("readelf").args(["--dyn-syms", "-W"]).arg(path).env("LC_ALL", "C").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut v: Vec<String> = text
        .lines()
        .filter(|l| l.contains(" UND ") && l.contains("@RDMACM_"))
        .filter_map(|l| l.split_whitespace().nth(7))
        .map(|s| s.split(" (").next().unwrap().to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn imports_rsockets_from_librdmacm_at_rdmacm_1_0() {
    let ours = rdmacm_imports(&ours());
    let up = rdmacm_imports(&paths::system_lib(DEBIAN));
    assert!(!ours.is_empty(), "no RDMACM_* imports read from our librspreload");
    for s in &ours {
        assert!(s.ends_with("@RDMACM_1.0"), "{s}");
    }
    // The same 23 rsocket calls as Debian's (riomap, riounmap, riowrite
    // and rselect are not used by the preload).
    assert_eq!(ours, up, "RDMACM_1.0 imports, ours vs Debian's");
    assert_eq!(ours.len(), 23);
}
