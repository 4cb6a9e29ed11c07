//! Leaves `libsiw-rs-rdmav34.so` and `libsiw-rs-rdmav65.so` beside the built
//! `libsiw_provider.so` (target/<profile>/), so that
//! `RDMAV_DRIVERS=<that dir>/libsiw-rs` makes libibverbs load it: the
//! library appends `-rdmav<its private ABI>.so` to a driver path, and the
//! provider speaks the ABI its file name says.
use std::path::PathBuf;

fn main() {
    // OUT_DIR is target/<profile>/build/<pkg>-<hash>/out: the profile
    // directory is three levels up. Relative links survive moving target/.
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let Some(profile_dir) = out.ancestors().nth(3) else {
        return;
    };
    for abi in ["34", "65"] {
        let link = profile_dir.join(format!("libsiw-rs-rdmav{abi}.so"));
        if std::fs::read_link(&link).is_err() {
            let _ = std::fs::remove_file(&link);
            let _ = std::os::unix::fs::symlink("libsiw_provider.so", &link);
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
