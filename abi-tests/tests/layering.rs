//! The crate and module layering that docs/architecture.md describes, checked
//! on the sources:
//! - no `#[path]` or `include!` reaches outside its own crate (crates share
//!   code by depending on rdma-abi and rdma-util, not by compiling each
//!   other's files);
//! - rdma-abi holds types only: libc is its one dependency, and it has no
//!   exported symbol, no static, no extern block;
//! - rdma-util, linked into every library, exports no symbol and holds no
//!   global state;
//! - inside each library the modules form no import circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use abi_tests::paths::repo_root;

/// The tracked .rs files under `dir` (relative to the repository root).
fn rust_files(dir: &str) -> Vec<PathBuf> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo_root())
        .args(["ls-files", "--", &format!("{dir}/*.rs")])
        .output()
        .expect("git ls-files");
    assert!(out.status.success(), "git ls-files failed");
    String::from_utf8(out.stdout).unwrap().lines().map(PathBuf::from).collect()
}

fn read(rel: &Path) -> String {
    std::fs::read_to_string(repo_root().join(rel)).unwrap_or_else(|e| panic!("{}: {e}", rel.display()))
}

/// The source with comments removed (line comments, doc comments, block
/// comments), so words in prose do not count as code.
fn code_of(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        if in_str {
            if b[i] == b'\\' && i + 1 < b.len() {
                out.push(b[i] as char);
                out.push(b[i + 1] as char);
                i += 2;
                continue;
            }
            if b[i] == b'"' {
                in_str = false;
            }
            out.push(b[i] as char);
            i += 1;
        } else if b[i] == b'"' && !(i > 0 && b[i - 1] == b'\'') {
            in_str = true;
            out.push('"');
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// `code` without its `#[cfg(test)]` items (test modules and test-only
/// functions): tests may reach anywhere to set up a case.
fn without_tests(code: &str) -> String {
    without_items(code, "#[cfg(test)]")
}

/// `code` without the items that start with `marker`.
fn without_items(code: &str, marker: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(marker) {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        // The item ends at the end of its first balanced {...}, or at a ';'
        // that comes before any '{' (`mod tests;`, a `use`).
        let open = after.find('{');
        let semi = after.find(';');
        let end = match (open, semi) {
            (Some(o), Some(s)) if s < o => s + 1,
            (Some(o), _) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (k, c) in after[o..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = o + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, Some(s)) => s + 1,
            (None, None) => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The directory of the crate (the nearest Cargo.toml above `file`).
fn crate_dir_of(file: &Path) -> PathBuf {
    let root = repo_root();
    let mut dir = root.join(file).parent().unwrap().to_path_buf();
    loop {
        if dir.join("Cargo.toml").exists() && dir != root {
            return dir;
        }
        assert!(dir.pop() && dir.starts_with(&root), "{} belongs to no crate", file.display());
    }
}

/// Resolves `.` and `..` without touching the file system.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The `#[path = "..."]` attributes and `include!("...")` calls of `code`
/// whose file lies outside `crate_dir`. (An `include!` of a generated file,
/// `include!(concat!(env!("OUT_DIR"), ...))`, names no literal path.)
fn paths_leaving_crate(file: &Path, code: &str, crate_dir: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    let uses = code.match_indices("#[path").chain(code.match_indices("include!(\"")).chain(code.match_indices("include_str!(\""));
    for (at, _) in uses {
        let attr = &code[at..];
        let Some(q1) = attr.find('"') else { continue };
        let Some(len) = attr[q1 + 1..].find('"') else { continue };
        let target = &attr[q1 + 1..q1 + 1 + len];
        // Also inside a string literal: a build script that writes a
        // #[path] into generated code shares a file all the same.
        let resolved = normalise(&repo_root().join(file).parent().unwrap().join(target));
        if !resolved.starts_with(crate_dir) {
            bad.push(format!("{}: {target:?} leaves {}", file.display(), crate_dir.display()));
        }
    }
    bad
}

#[test]
fn no_path_or_include_leaves_its_crate() {
    let mut bad = Vec::new();
    for f in rust_files(".") {
        let code = code_of(&read(&f));
        bad.extend(paths_leaving_crate(&f, &code, &crate_dir_of(&f)));
    }
    assert!(bad.is_empty(), "#[path] attributes or include!s that reach outside their crate:\n{}", bad.join("\n"));
}

#[test]
fn the_path_check_sees_a_path_into_another_crate() {
    let f = Path::new("librdmacm-rs/src/lib.rs");
    let crate_dir = repo_root().join("librdmacm-rs");
    // Spelled in pieces, so that this file's own source holds no such line.
    let (path, include) = (concat!("#[pa", "th"), concat!("inclu", "de!("));
    let code = format!(
        "{path} = \"../../libibverbs-rs/src/ffi.rs\"]\npub mod ffi;\n{path} = \"own/x.rs\"]\nmod x;\n{include}\"../../tools/m.rs\");\n{include}concat!(env!(\"OUT_DIR\"), \"/g.rs\"));\n"
    );
    let code = code.as_str();
    let bad = paths_leaving_crate(f, code, &crate_dir);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad[0].contains("libibverbs-rs/src/ffi.rs"));
    assert!(bad[1].contains("tools/m.rs"));
}

/// The names under `[dependencies]` of a Cargo.toml.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut deps = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == "[dependencies]";
            continue;
        }
        if inside && !t.is_empty() && !t.starts_with('#') {
            let name = t.split(['=', '.', ' ']).next().unwrap().trim();
            deps.push(name.to_string());
        }
    }
    deps
}

/// Items that give a crate exported symbols or global state. The bodies of
/// macro_rules! do not count: they are expanded in the crate that invokes
/// them.
const STATEFUL: &[&str] = &["#[no_mangle]", "#[export_name", "static ", "static mut ", "thread_local!"];
/// Imported C functions: behaviour, which the types crate has none of.
const IMPORTS: &[&str] = &["extern \"C\" {", "extern \"C-unwind\" {", "extern {"];

/// The lines of `code` outside tests and macro_rules! bodies that hold one
/// of `words`.
fn lines_holding(code: &str, words: &[&str]) -> Vec<String> {
    let code = without_items(&without_tests(&code_of(code)), "macro_rules!");
    code.lines()
        .filter(|line| {
            let t = line.trim_start();
            words.iter().any(|w| t.starts_with(w) || t.contains(&format!(" {w}")))
        })
        .map(|l| l.trim().to_string())
        .collect()
}

fn lines_holding_in(dir: &str, words: &[&str]) -> Vec<String> {
    let mut hits = Vec::new();
    for f in rust_files(dir) {
        for line in lines_holding(&read(&f), words) {
            hits.push(format!("{}: {line}", f.display()));
        }
    }
    hits
}

#[test]
fn the_state_check_sees_statics_and_exports() {
    let code = "pub fn f(s: &'static str) {}\n// static in a comment\npub static X: u8 = 0;\n#[no_mangle]\npub extern \"C\" fn g() {}\nmacro_rules! m { () => { #[no_mangle] pub extern \"C\" fn h() {} } }\n#[cfg(test)]\nmod tests { static Y: u8 = 1; }\n";
    assert_eq!(lines_holding(code, STATEFUL), ["pub static X: u8 = 0;", "#[no_mangle]"]);
    assert_eq!(lines_holding("extern \"C\" {\n    fn f();\n}\n", IMPORTS), ["extern \"C\" {"]);
}

#[test]
fn the_types_crate_holds_types_only() {
    let manifest = read(Path::new("rdma-abi/Cargo.toml"));
    assert_eq!(dependencies(&manifest), ["libc"], "rdma-abi may depend on libc only");
    let hits = lines_holding_in("rdma-abi/src", &[STATEFUL, IMPORTS].concat());
    assert!(hits.is_empty(), "rdma-abi holds something other than types and constants:\n{}", hits.join("\n"));
}

#[test]
fn the_helpers_crate_exports_nothing_and_holds_no_global_state() {
    let hits = lines_holding_in("rdma-util/src", STATEFUL);
    assert!(hits.is_empty(), "rdma-util exports a symbol or holds global state:\n{}", hits.join("\n"));
}

/// Module path of a source file relative to its crate's src/ (`cmd/qp.rs` ->
/// `cmd::qp`, `rsocket/mod.rs` -> `rsocket`, `lib.rs` -> ``).
fn module_of(src_rel: &Path) -> String {
    let mut parts: Vec<String> = src_rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts.join("::")
}

/// The `crate::a::b...` and `super::...` paths that `code`, in module `me`,
/// names, each cut to the longest known module path.
fn references(me: &str, code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut push = |path: Vec<String>| {
        let mut p = path;
        while !p.is_empty() {
            let cand = p.join("::");
            if modules.contains(&cand) {
                found.insert(cand);
                return;
            }
            p.pop();
        }
    };
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    // A path that starts at `start` in `code`: idents separated by `::`,
    // with `{a, b::c}` groups expanded one level.
    fn expand(code: &str, ident: &dyn Fn(&str) -> String) -> Vec<Vec<String>> {
        let mut segs = Vec::new();
        let mut rest = code;
        loop {
            if let Some(r) = rest.strip_prefix('{') {
                    // a group: each member extends the prefix
                    let mut depth = 1;
                    let mut end = 0;
                    for (k, c) in r.char_indices() {
                        match c {
                            '{' => depth += 1,
                            '}' => {
                                depth -= 1;
                                if depth == 0 {
                                    end = k;
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    let inner = &r[..end];
                    let mut out = Vec::new();
                    let mut d = 0;
                    let mut start = 0;
                    let bytes: Vec<char> = inner.chars().collect();
                    let mut members = Vec::new();
                    for (k, c) in bytes.iter().enumerate() {
                        match c {
                            '{' => d += 1,
                            '}' => d -= 1,
                            ',' if d == 0 => {
                                members.push(bytes[start..k].iter().collect::<String>());
                                start = k + 1;
                            }
                            _ => {}
                        }
                    }
                    members.push(bytes[start..].iter().collect::<String>());
                    for m in members {
                        for tail in expand(m.trim(), ident) {
                            let mut p = segs.clone();
                            p.extend(tail);
                            out.push(p);
                        }
                    }
                    return out;
            }
            let id = ident(rest);
            if id.is_empty() {
                break;
            }
            segs.push(id.clone());
            rest = &rest[id.len()..];
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => break,
            }
        }
        vec![segs]
    }
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && (code.as_bytes()[at - 1] == b'$' || code.as_bytes()[at - 1].is_ascii_alphanumeric() || code.as_bytes()[at - 1] == b'_') {
            continue;
        }
        for p in expand(&code[at + 7..], &ident) {
            push(p);
        }
    }
    for (at, _) in code.match_indices("super::") {
        if at > 0 && (code.as_bytes()[at - 1] == b':' || code.as_bytes()[at - 1].is_ascii_alphanumeric() || code.as_bytes()[at - 1] == b'_') {
            continue;
        }
        let mut base: Vec<String> = if me.is_empty() { Vec::new() } else { me.split("::").map(String::from).collect() };
        let mut rest = &code[at..];
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        for tail in expand(rest, &ident) {
            let mut p = base.clone();
            p.extend(tail);
            push(p);
        }
    }
    found.remove(me);
    found
}

/// Whether `a` is `b` or one of its ancestors or descendants: a parent
/// module declares and re-exports its children, which is not a circle.
fn related(a: &str, b: &str) -> bool {
    a.is_empty() || b.is_empty() || a == b || b.starts_with(&format!("{a}::")) || a.starts_with(&format!("{b}::"))
}

/// Strongly connected components of more than one module (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        if let Some(ws) = t.g.get(v) {
            for w in ws {
                let w = w.as_str();
                if !t.index.contains_key(w) {
                    visit(t, w);
                    let l = t.low[w].min(t.low[v]);
                    t.low.insert(v, l);
                } else if t.on.contains(w) {
                    let l = t.index[w].min(t.low[v]);
                    t.low.insert(v, l);
                }
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T { g: graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), next: 0, out: Vec::new() };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

/// The import graph of a crate's non-test code: module -> modules it names.
fn import_graph(src_dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let files = rust_files(src_dir);
    let rel = |f: &PathBuf| f.strip_prefix(src_dir).unwrap().to_path_buf();
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&rel(f))).collect();
    let mut graph = BTreeMap::new();
    for f in &files {
        let me = module_of(&rel(f));
        let code = without_tests(&code_of(&read(f)));
        let refs: BTreeSet<String> = references(&me, &code, &modules).into_iter().filter(|m| !related(&me, m)).collect();
        graph.insert(me, refs);
    }
    graph
}

fn show(c: &[Vec<String>], graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    c.iter()
        .map(|comp| {
            let edges: Vec<String> = comp
                .iter()
                .map(|m| {
                    let to: Vec<&str> = graph[m].iter().filter(|t| comp.contains(t)).map(String::as_str).collect();
                    format!("  {m} -> {}", to.join(", "))
                })
                .collect();
            format!("circle of {} modules:\n{}", comp.len(), edges.join("\n"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The layer of each module in an acyclic graph: 0 for a module that
/// imports no other, else one more than the highest module it imports.
fn layers(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<usize, Vec<String>> {
    fn layer_of(m: &str, graph: &BTreeMap<String, BTreeSet<String>>, memo: &mut BTreeMap<String, usize>) -> usize {
        if let Some(&l) = memo.get(m) {
            return l;
        }
        let l = graph.get(m).map_or(0, |to| to.iter().map(|t| layer_of(t, graph, memo) + 1).max().unwrap_or(0));
        memo.insert(m.to_string(), l);
        l
    }
    let mut memo = BTreeMap::new();
    let mut out: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for m in graph.keys().filter(|m| !m.is_empty()) {
        out.entry(layer_of(m, graph, &mut memo)).or_default().push(m.clone());
    }
    out
}

fn assert_no_circles(src_dir: &str) {
    let graph = import_graph(src_dir);
    assert!(graph.len() > 3, "{src_dir}: found only {} modules", graph.len());
    let c = circles(&graph);
    assert!(c.is_empty(), "{src_dir}: modules that import each other in a circle:\n{}", show(&c, &graph));
    // The layers, for docs/architecture.md (cargo test --test layering -- --nocapture).
    let mut text = format!("{src_dir}, lowest layer first:\n");
    for (l, ms) in layers(&graph) {
        text.push_str(&format!("  {l}: {}\n", ms.join(" ")));
    }
    eprint!("{text}");
}

#[test]
fn libibverbs_modules_form_no_import_circle() {
    assert_no_circles("libibverbs-rs/src");
}

#[test]
fn librdmacm_modules_form_no_import_circle() {
    assert_no_circles("librdmacm-rs/src");
}

#[test]
fn librspreload_modules_form_no_import_circle() {
    assert_no_circles("librspreload-rs/src");
}

#[test]
fn the_circle_check_sees_a_circle() {
    let modules: BTreeSet<String> = ["a", "b", "c", "d", "d::e"].iter().map(|s| s.to_string()).collect();
    let code_a = "use crate::{b::f, c};\nfn g() { crate::d::e::h(); }\n#[cfg(test)]\nmod tests { use crate::c::x; }";
    let code_b = "use super::a::*;";
    let code_c = "fn k() {}";
    let code_e = "use super::super::c;";
    let mut graph = BTreeMap::new();
    for (me, code) in [("a", code_a), ("b", code_b), ("c", code_c), ("d::e", code_e)] {
        let refs: BTreeSet<String> = references(me, &without_tests(&code_of(code)), &modules).into_iter().filter(|m| !related(me, m)).collect();
        graph.insert(me.to_string(), refs);
    }
    assert_eq!(graph["a"], ["b", "c", "d::e"].iter().map(|s| s.to_string()).collect());
    assert_eq!(graph["d::e"], ["c"].iter().map(|s| s.to_string()).collect());
    let c = circles(&graph);
    assert_eq!(c, vec![vec!["a".to_string(), "b".to_string()]], "{}", show(&c, &graph));
}
