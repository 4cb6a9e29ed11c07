//! Leaves `librxe-rs-rdmav34.so` and `librxe-rs-rdmav65.so` beside the
//! built `librxe_provider.so` in target/<profile>/, so that
//! `RDMAV_DRIVERS=$PWD/target/release/librxe-rs` selects this provider
//! (libibverbs appends `-rdmav<NN>.so`, NN its private ABI, to a path).
//! The provider takes its private ABI from the name it was loaded under.
//! Linked with `-z now`, and without a SONAME, as upstream's providers
//! are; it has no link-time reference to libibverbs at all.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,now");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    // OUT_DIR is target/<profile>/build/<pkg>-<hash>/out: the profile
    // directory is three levels up. Relative symlinks survive moving target/.
    if let Some(profile_dir) = out.ancestors().nth(3) {
        for abi in ["34", "65"] {
            let link = profile_dir.join(format!("librxe-rs-rdmav{abi}.so"));
            if std::fs::read_link(&link).is_err() {
                let _ = std::fs::remove_file(&link);
                let _ = std::os::unix::fs::symlink("librxe_provider.so", &link);
            }
        }
    }
}
