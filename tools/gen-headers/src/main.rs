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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

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
}
