//! Turns the scenario lists (abi-tests/scenarios/{host,vm}.sh) into one
//! `#[test]` per scenario, so `cargo test` reports each scenario by name and a
//! new scenario needs only its line in the list.
//!
//! VM scenarios are `#[ignore]`d unless RDMA_VM_TESTS=1 when the tests are
//! built (booting the VM takes a minute or more); scenarios marked
//! `--pending "issue N"` are ignored unless RDMA_SCENARIOS_PENDING=1, and
//! those marked `--long WHY` (too long for CI) unless RDMA_SCENARIOS_LONG=1.
//!
//! It also writes `rust_layout.rs` for tests/layout.rs: the Rust ABI mirror
//! files named by `mirror` lines of abi-tests/layout/layout.list, included as
//! modules, and a function returning the size, alignment and every field's
//! offset and size of every struct and union they define, as Rust computes
//! them (`size_of`, `align_of`, `offset_of!`).
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Splits a shell command line into words (quotes and backslashes as bash
/// reads them; no expansions). Enough for the scenario lists.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

struct Scenario {
    name: String,
    pending: Option<String>,
    long: Option<String>,
}

fn scenarios(list: &str) -> Vec<Scenario> {
    // Join backslash-continued lines first.
    let joined = list.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let words = shell_words(line);
        if words.len() < 2 || !matches!(words[0].as_str(), "compare" | "pair" | "loaded" | "differs") {
            continue;
        }
        let pending = words
            .windows(2)
            .find(|w| w[0] == "--pending")
            .map(|w| w[1].clone());
        let long = words.windows(2).find(|w| w[0] == "--long").map(|w| w[1].clone());
        out.push(Scenario {
            name: words[1].clone(),
            pending,
            long,
        });
    }
    out
}

fn test_fn_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, "s_");
    }
    s
}

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    layout::generate(&dir, &out);
    println!("cargo:rerun-if-env-changed=RDMA_VM_TESTS");
    println!("cargo:rerun-if-env-changed=RDMA_SCENARIOS_PENDING");
    println!("cargo:rerun-if-env-changed=RDMA_SCENARIOS_LONG");
    let vm_enabled = std::env::var("RDMA_VM_TESTS").as_deref() == Ok("1");
    let pending_enabled = std::env::var("RDMA_SCENARIOS_PENDING").as_deref() == Ok("1");
    let long_enabled = std::env::var("RDMA_SCENARIOS_LONG").as_deref() == Ok("1");

    for mode in ["host", "vm"] {
        let list = dir.join("scenarios").join(format!("{mode}.sh"));
        println!("cargo:rerun-if-changed={}", list.display());
        let text =
            std::fs::read_to_string(&list).unwrap_or_else(|e| panic!("{}: {e}", list.display()));
        let mut code = String::new();
        for s in scenarios(&text) {
            let ignore = if let Some(why) = s.pending.as_ref().filter(|_| !pending_enabled) {
                Some(format!("pending ({why}); RDMA_SCENARIOS_PENDING=1 runs it"))
            } else if let Some(why) = s.long.as_ref().filter(|_| !long_enabled) {
                Some(format!("long ({why}); RDMA_SCENARIOS_LONG=1 runs it"))
            } else if mode == "vm" && !vm_enabled {
                Some("boots the Soft-RoCE VM; RDMA_VM_TESTS=1 runs it".to_string())
            } else {
                None
            };
            writeln!(
                code,
                "/// Scenario `{}` of abi-tests/scenarios/{mode}.sh.",
                s.name
            )
            .unwrap();
            writeln!(code, "#[test]").unwrap();
            if let Some(why) = ignore {
                writeln!(code, "#[ignore = {why:?}]").unwrap();
            }
            writeln!(
                code,
                "fn {}() {{ scenario({:?}); }}\n",
                test_fn_name(&s.name),
                s.name
            )
            .unwrap();
        }
        std::fs::write(out.join(format!("{mode}_scenarios.rs")), code).unwrap();
    }
}

/// The Rust half of the layout conformance test (tests/layout.rs).
mod layout {
    use super::*;

    /// One struct or union of a mirror file: name, "struct"/"union", and its
    /// fields as (name, Rust type text).
    pub struct RustType {
        pub name: String,
        pub kind: &'static str,
        pub fields: Vec<(String, String)>,
    }

    /// Removes `//` comments (none of the mirror files has `//` inside a
    /// string literal in a type definition).
    fn strip_comments(body: &str) -> String {
        body.lines()
            .map(|l| match l.find("//") {
                Some(i) => &l[..i],
                None => l,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Splits a struct body into `pub name: Type` items at top-level commas
    /// (commas inside `<..>`, `(..)`, `[..]` belong to the type).
    pub fn split_fields(body: &str) -> Vec<(String, String)> {
        let body = strip_comments(body).replace("->", "\u{0}");
        let mut items = Vec::new();
        let (mut depth, mut cur) = (0i32, String::new());
        for ch in body.chars() {
            match ch {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => depth -= 1,
                _ => {}
            }
            if ch == ',' && depth == 0 {
                items.push(std::mem::take(&mut cur));
            } else {
                cur.push(ch);
            }
        }
        items.push(cur);
        let mut out = Vec::new();
        for it in items {
            let it = it.replace('\u{0}', "->");
            let it = it.split_whitespace().collect::<Vec<_>>().join(" ");
            // Attributes on a field (#[doc], #[cfg]) are not used in the
            // mirrors; a leading `pub` starts every field.
            let Some(rest) = it.strip_prefix("pub ") else {
                continue;
            };
            let Some((name, ty)) = rest.split_once(':') else {
                continue;
            };
            out.push((name.trim().to_string(), ty.trim().to_string()));
        }
        out
    }

    /// Every `pub struct NAME { .. }` / `pub union NAME { .. }` at the start
    /// of a line, plus the command wrappers kern.rs defines through its
    /// `write_cmd!` / `ex_write_cmd!` macros (a header then `core_payload`).
    pub fn parse(src: &str) -> Vec<RustType> {
        let mut types = Vec::new();
        for (at, _) in src.match_indices("\npub ") {
            let line_rest = &src[at + 5..];
            let (kind, tail) = if let Some(t) = line_rest.strip_prefix("struct ") {
                ("struct", t)
            } else if let Some(t) = line_rest.strip_prefix("union ") {
                ("union", t)
            } else {
                continue;
            };
            let name: String = tail
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let after = tail[name.len()..].trim_start();
            if !after.starts_with('{') {
                // A tuple, unit or generic struct (ucma.rs's ucma_cmd<T>): not
                // a C mirror; the layout test cannot name it anyway.
                continue;
            }
            // The body ends at the first "}" that starts a line, or right
            // away for `{}`.
            let body = if after.starts_with("{}") {
                ""
            } else {
                let b = &after[1..];
                let end = b.find("\n}").expect("struct body ends with a line \"}\"");
                &b[..end]
            };
            types.push(RustType {
                name,
                kind,
                fields: split_fields(body),
            });
        }
        for (mac, hdr) in [
            ("\nwrite_cmd!(", "ib_uverbs_cmd_hdr"),
            ("\nex_write_cmd!(", "ex_hdr"),
        ] {
            for (i, _) in src.match_indices(mac) {
                let args = &src[i + mac.len()..];
                let args = &args[..args.find(");").expect("macro call ends with );")];
                let args: Vec<String> = strip_comments(args)
                    .split(',')
                    .map(|a| a.trim().to_string())
                    .collect();
                types.push(RustType {
                    name: args[0].clone(),
                    kind: "struct",
                    fields: vec![
                        ("hdr".to_string(), hdr.to_string()),
                        ("core_payload".to_string(), args[2].clone()),
                    ],
                });
            }
        }
        types
    }

    /// The `mirror` lines of layout.list: Rust files, relative to the
    /// workspace root.
    pub fn mirror_files(list: &str) -> Vec<String> {
        list.lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some("mirror")).then(|| w.next().unwrap().to_string())
            })
            .collect()
    }

    pub fn generate(dir: &Path, out: &Path) {
        let root = dir.parent().unwrap();
        let list_path = dir.join("layout/layout.list");
        println!("cargo:rerun-if-changed={}", list_path.display());
        let list = std::fs::read_to_string(&list_path)
            .unwrap_or_else(|e| panic!("{}: {e}", list_path.display()));
        // The mirrors are the rdma-abi crate's modules: a file
        // rdma-abi/src/driver/pabi34_v44.rs is the module driver::pabi34_v44.
        let mut code = String::new();
        writeln!(
            code,
            "// Generated by abi-tests/build.rs from abi-tests/layout/layout.list.\n\
             use rdma_abi as abi;\n"
        )
        .unwrap();
        let mut all = Vec::new();
        for file in mirror_files(&list) {
            let path = root.join(&file);
            println!("cargo:rerun-if-changed={}", path.display());
            let src = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("layout.list names {file}: {e}"));
            let module = file
                .strip_prefix("rdma-abi/src/")
                .and_then(|m| m.strip_suffix(".rs"))
                .unwrap_or_else(|| panic!("layout.list: {file} is not a file of rdma-abi/src"))
                .replace('/', "::");
            for t in parse(&src) {
                all.push((file.clone(), module.clone(), t));
            }
        }
        code.push_str(
            "/// Size, alignment and fields of every Rust mirror type, as Rust lays them out.\n\
             pub fn rust_types() -> Vec<RustType> {\n    vec![\n",
        );
        for (file, module, t) in &all {
            let ty = format!("abi::{module}::{}", t.name);
            writeln!(
                code,
                "        RustType {{ name: {:?}, kind: {:?}, file: {:?}, size: ::core::mem::size_of::<{ty}>(), \
                 align: ::core::mem::align_of::<{ty}>(), fields: vec![",
                t.name, t.kind, file
            )
            .unwrap();
            for (f, fty) in &t.fields {
                writeln!(
                    code,
                    "            RustField {{ name: {f:?}, ty: {fty:?}, offset: ::core::mem::offset_of!({ty}, {f}), \
                     size: field_size!({ty}, {f}) }},"
                )
                .unwrap();
            }
            code.push_str("        ]},\n");
        }
        code.push_str("    ]\n}\n");
        std::fs::write(out.join("rust_layout.rs"), code).unwrap();
    }
}
