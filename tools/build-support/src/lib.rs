//! Helpers for the build scripts (a build-dependency, never linked into a
//! library): the Debian library directory of the target being built, for the
//! crates that link against Debian's shared libraries (librdmacm-rs links
//! libibverbs.so, librspreload-rs links librdmacm.so).

/// Debian's multiarch tuple for the target (`x86_64-linux-gnu`), from the
/// target cargo describes to build scripts; None when the target is not a
/// GNU/Linux one we know.
pub fn target_multiarch() -> Option<String> {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return None;
    }
    let little = var("CARGO_CFG_TARGET_ENDIAN") == "little";
    let target = var("TARGET");
    let tuple = match var("CARGO_CFG_TARGET_ARCH").as_str() {
        "x86_64" if var("CARGO_CFG_TARGET_POINTER_WIDTH") == "32" => "x86_64-linux-gnux32",
        "x86_64" => "x86_64-linux-gnu",
        "x86" => "i386-linux-gnu",
        "aarch64" => "aarch64-linux-gnu",
        "arm" if target.ends_with("eabihf") => "arm-linux-gnueabihf",
        "arm" => "arm-linux-gnueabi",
        "powerpc64" if little => "powerpc64le-linux-gnu",
        "powerpc64" => "powerpc64-linux-gnu",
        "powerpc" => "powerpc-linux-gnu",
        "riscv64" => "riscv64-linux-gnu",
        "s390x" => "s390x-linux-gnu",
        "loongarch64" => "loongarch64-linux-gnu",
        "mips64" if little => "mips64el-linux-gnuabi64",
        "mips64" => "mips64-linux-gnuabi64",
        "mips" if little => "mipsel-linux-gnu",
        "mips" => "mips-linux-gnu",
        "sparc64" => "sparc64-linux-gnu",
        _ => return host_cc_multiarch(&target),
    };
    Some(tuple.to_string())
}

/// For a target not in the table: what the C compiler says
/// (`cc -print-multiarch`), but only when building for the machine itself,
/// whose compiler describes it.
fn host_cc_multiarch(target: &str) -> Option<String> {
    if std::env::var("HOST").ok().as_deref() != Some(target) {
        return None;
    }
    println!("cargo:rerun-if-env-changed=CC");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = std::process::Command::new(cc).arg("-print-multiarch").output().ok()?;
    let tuple = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !tuple.is_empty()).then_some(tuple)
}

/// `/usr/lib/<tuple>` when it exists, else `/usr/lib` (non-multiarch
/// systems keep their libraries there).
pub fn system_lib_dir() -> std::path::PathBuf {
    let usr_lib = std::path::Path::new("/usr/lib");
    target_multiarch()
        .map(|t| usr_lib.join(t))
        .filter(|d| d.is_dir())
        .unwrap_or_else(|| usr_lib.to_path_buf())
}

/// Writes `<profile dir>/pkgconfig/<name>.pc` from `include/pkgconfig/<name>.pc.in`,
/// with `libdir` the profile directory (where the library is built) and
/// `includedir` the repository's include/: `PKG_CONFIG_PATH=target/release/pkgconfig`
/// then builds a C program against this tree alone. `manifest_dir` is the
/// calling crate's directory (one level below the workspace root), `out_dir`
/// its OUT_DIR (target/<profile>/build/<pkg>-<hash>/out).
pub fn write_pkg_config(name: &str, manifest_dir: &std::path::Path, out_dir: &std::path::Path) {
    let root = manifest_dir.parent().unwrap_or(manifest_dir);
    let template = root.join("include/pkgconfig").join(format!("{name}.pc.in"));
    println!("cargo:rerun-if-changed={}", template.display());
    let Some(profile_dir) = out_dir.ancestors().nth(3) else { return };
    let Ok(text) = std::fs::read_to_string(&template) else {
        println!("cargo:warning=no {}: {name}.pc not written", template.display());
        return;
    };
    let abs = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let text = text
        .replace("@libdir@", &abs(profile_dir).display().to_string())
        .replace("@includedir@", &abs(&root.join("include")).display().to_string());
    let dir = profile_dir.join("pkgconfig");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{name}.pc"));
    // Rewritten only when it changes, so its mtime means something.
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        if let Err(e) = std::fs::write(&path, text) {
            println!("cargo:warning={}: {e}", path.display());
        }
    }
}
