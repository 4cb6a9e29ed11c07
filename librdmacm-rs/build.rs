//! Links librdmacm.so.1 the way upstream does: SONAME librdmacm.so.1, the
//! hand-kept version script (RDMACM_1.0 .. 1.3), and a dynamic dependency on
//! libibverbs.so.1, so that a process has exactly one libibverbs: with our
//! target directory in LD_LIBRARY_PATH that is ours, otherwise the system's.
//! Leaves `librdmacm.so.1` beside the built `librdmacm.so`.
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let map = dir.join("librdmacm.map");
    println!("cargo:rerun-if-changed={}", map.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librdmacm.so.1");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,now");
    // Link against Debian's libibverbs.so (libibverbs-dev), in the target's
    // multiarch directory. Our libibverbs exports the same versioned symbols,
    // so the references recorded here (e.g. ibv_get_device_list@IBVERBS_1.1)
    // bind to ours at run time.
    println!("cargo:rustc-link-search=native={}", rdma_build_support::system_lib_dir().display());
    println!("cargo:rustc-link-lib=dylib=ibverbs");

    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    rdma_build_support::write_pkg_config("librdmacm", &dir, &out);
    if let Some(profile_dir) = out.ancestors().nth(3) {
        let link = profile_dir.join("librdmacm.so.1");
        if std::fs::read_link(&link).is_err() {
            let _ = std::fs::remove_file(&link);
            let _ = std::os::unix::fs::symlink("librdmacm.so", &link);
        }
    }
}
