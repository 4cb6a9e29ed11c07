//! gen-headers: writes the C headers of include/ from the rdma-abi crate.
//!
//! ```text
//! cargo run -p gen-headers            # rewrite include/
//! cargo run -p gen-headers -- --check # fail if include/ differs from what it would write
//! ```
//!
//! Each header of [`manifest::HEADERS`] is either generated or copied:
//! - a generated header holds, in this order: its #includes, the hand-written
//!   `include/hand/<path>.head.h` if there is one, the integer `#define`s, the
//!   enums, forward declarations of its structs and unions, their
//!   definitions (a type before the types that embed it), the prototypes, and
//!   the hand-written `include/hand/<path>.tail.h` (inline functions and
//!   function-like macros);
//! - a hand-written header (`include/hand/<path>`) is copied with a banner.
//!
//! What is read from rdma-abi, and how its Rust conventions become C:
//! - `#[repr(C)]` structs and unions; a member whose type is named
//!   `<outer>_<member>` is written as an unnamed struct or union inline, and
//!   one documented as "C: anonymous" loses its name too (so C's
//!   `wc->imm_data` works);
//! - `pub type X = <integer>;` with constants of type `X` is `enum X`;
//!   other integer constants are `#define`s, or members of an unnamed enum
//!   where [`manifest::ANON_ENUMS`] says upstream has one;
//! - `pub type f = unsafe extern "C" fn(..)` in `rdma_abi::proto` is the
//!   prototype of `f`;
//! - fields documented "Big-endian" get the kernel's `__be16/32/64` types;
//! - a Rust keyword escaped with a trailing underscore (`type_`) loses it.
//!
//! The prototypes of the providers' private ABI (`rdma_abi::proto::driver`)
//! are written nowhere: rdma-core does not install `driver.h`. Every module
//! under `rdma-abi/src/proto/` is either in [`manifest::MODULES`] or in
//! [`manifest::NOT_SHIPPED`]; a run fails otherwise.
//!
//! Which header an item belongs to: the module's default of
//! [`manifest::MODULES`], or the last banner line `// <dir/name.h>` above it
//! in the source. Items under a banner naming a header we do not write (the
//! kernel uAPI's) are left out.

mod cdecl;
mod emit;
mod manifest;
mod model;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    if args.iter().any(|a| a != "--check") {
        eprintln!("usage: gen-headers [--check]");
        return ExitCode::from(2);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    match run(&root, check) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(n) => {
            eprintln!(
                "gen-headers: {n} header(s) in include/ differ from what rdma-abi and include/hand/ give; \
                 run `cargo run -p gen-headers` and commit the result"
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("gen-headers: {e}");
            ExitCode::from(2)
        }
    }
}

/// Writes (or, with `check`, compares) every header; returns how many differ.
fn run(root: &Path, check: bool) -> Result<usize, String> {
    proto_modules_decided(&root.join("rdma-abi/src"))?;
    let model = model::Model::load(&root.join("rdma-abi/src"))?;
    let hand = root.join("include/hand");
    let mut differ = 0;
    for h in manifest::HEADERS {
        let text = emit::header(&model, h, &hand)?;
        let out = root.join("include").join(h.path);
        let old = std::fs::read_to_string(&out).ok();
        if old.as_deref() == Some(text.as_str()) {
            continue;
        }
        if check {
            eprintln!("differs: include/{}", h.path);
            differ += 1;
        } else {
            if let Some(dir) = out.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            std::fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
            eprintln!("wrote include/{}", h.path);
        }
    }
    Ok(differ)
}

/// Every prototype module of rdma-abi (`src/proto/**.rs`) is either read
/// for a header ([`manifest::MODULES`]) or named as not shipped
/// ([`manifest::NOT_SHIPPED`]), never both: a new one cannot reach include/,
/// or stay out of it, without a decision in the manifest.
fn proto_modules_decided(src: &Path) -> Result<(), String> {
    fn rs_files(base: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
        let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for e in rd {
            let p = e.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if p.is_dir() {
                rs_files(base, &p, out)?;
            } else if p.extension().is_some_and(|x| x == "rs") {
                if let Ok(rel) = p.strip_prefix(base) {
                    out.push(rel.to_string_lossy().into_owned());
                }
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    rs_files(src, &src.join("proto"), &mut files)?;
    files.sort();
    let mut wrong = Vec::new();
    for f in &files {
        if f == "proto/mod.rs" {
            continue;
        }
        let shipped = manifest::MODULES.iter().any(|(m, _)| m == f);
        let private = manifest::NOT_SHIPPED.contains(&f.as_str());
        if shipped == private {
            wrong.push(format!("rdma-abi/src/{f}"));
        }
    }
    for f in manifest::NOT_SHIPPED {
        if !files.iter().any(|x| x == f) {
            wrong.push(format!("rdma-abi/src/{f} (missing)"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "list each prototype module in exactly one of manifest::MODULES and \
             manifest::NOT_SHIPPED: {}",
            wrong.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::manifest;

    /// include/ is what rdma-abi and include/hand/ give: a hand edit of a
    /// generated header, or a type changed without regenerating, fails here.
    #[test]
    fn include_matches_rdma_abi() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        assert_eq!(
            super::run(&root, true),
            Ok(0),
            "run `cargo run -p gen-headers` and commit include/"
        );
    }

    /// No header declares a function of the private ABI.
    #[test]
    fn private_prototypes_stay_out_of_include() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut names = Vec::new();
        for f in manifest::NOT_SHIPPED {
            let text = std::fs::read_to_string(root.join("rdma-abi/src").join(f)).expect("module");
            for line in text.lines() {
                if let Some(rest) = line.strip_prefix("pub type ") {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    names.push(name);
                }
            }
        }
        assert!(
            names.len() > 80,
            "found only {} private prototypes",
            names.len()
        );
        for h in manifest::HEADERS {
            let text = std::fs::read_to_string(root.join("include").join(h.path)).expect("header");
            for n in &names {
                assert!(
                    !text.contains(&format!("{n}(")),
                    "include/{} declares the private {n}",
                    h.path
                );
            }
        }
    }
}
