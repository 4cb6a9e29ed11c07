//! Links libibverbs.so.1 the way upstream does: SONAME libibverbs.so.1 and the
//! hand-kept version script (symbol versions IBVERBS_1.0 .. 1.18,
//! IBVERBS_PRIVATE_34 and IBVERBS_PRIVATE_65). Also builds the small C shim for the variadic exports
//! and leaves `libibverbs.so.1` beside the built `libibverbs.so`, so that
//! `LD_LIBRARY_PATH=target/release` swaps our library in for any binary.
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let map = dir.join("libibverbs.map");
    println!("cargo:rerun-if-changed={}", map.display());
    println!("cargo:rerun-if-changed=csrc/variadic.c");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map.display());
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libibverbs.so.1");
    // Providers resolve our symbols when they are dlopen()ed; bind ours eagerly
    // to our own definitions so an application's symbols cannot shadow them.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,now");

    cc::Build::new()
        .file("csrc/variadic.c")
        .flag("-fvisibility=hidden")
        .warnings(true)
        .extra_warnings(true)
        // Nothing in Rust calls these C functions, so the archive member would
        // be dropped by the linker without whole-archive.
        .link_lib_modifier("+whole-archive")
        .compile("ibverbs_variadic");

    // OUT_DIR is target/<profile>/build/<pkg>-<hash>/out: the profile
    // directory is three levels up. A relative symlink survives moving target/.
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    rdma_build_support::write_pkg_config("libibverbs", &dir, &out);
    if let Some(profile_dir) = out.ancestors().nth(3) {
        let link = profile_dir.join("libibverbs.so.1");
        if std::fs::read_link(&link).is_err() {
            let _ = std::fs::remove_file(&link);
            let _ = std::os::unix::fs::symlink("libibverbs.so", &link);
        }
    }
}
