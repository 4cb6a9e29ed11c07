//! Links librspreload.so the way upstream builds it: a loadable module with
//! no SONAME (Debian's <libdir>/rsocket/librspreload.so.1 has none either),
//! the anonymous version script that exports only the socket calls it
//! replaces, and a dynamic dependency on librdmacm.so.1 for the rsocket
//! family, so that LD_LIBRARY_PATH decides whose librdmacm serves them.
//! Leaves the names Debian installs beside the built librspreload.so:
//! librspreload.so.1 and rsocket/librspreload.so.1.
use std::path::{Path, PathBuf};

fn link(target: &str, link: &Path) {
    if std::fs::read_link(link).is_err() {
        let _ = std::fs::remove_file(link);
        let _ = std::os::unix::fs::symlink(target, link);
    }
}

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let map = dir.join("librspreload.map");
    println!("cargo:rerun-if-changed={}", map.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,--no-undefined");
    // Debian's librdmacm.so (librdmacm-dev, in the target's multiarch
    // directory) carries the rsocket family at RDMACM_1.0; ours exports the
    // same versioned names.
    println!("cargo:rustc-link-search=native={}", rdma_build_support::system_lib_dir().display());
    println!("cargo:rustc-link-lib=dylib=rdmacm");

    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    if let Some(profile_dir) = out.ancestors().nth(3) {
        link("librspreload.so", &profile_dir.join("librspreload.so.1"));
        let sub = profile_dir.join("rsocket");
        if std::fs::create_dir_all(&sub).is_ok() {
            link("../librspreload.so", &sub.join("librspreload.so.1"));
        }
    }
}
