//! Struct layout conformance: every struct of the installed headers against our Rust definitions.
//!
//! The C side: a translation unit including every header that a `mirror`
//! line of abi-tests/layout/layout.list names is compiled with gcc and full
//! debug information; the DWARF (read with `readelf`) lists every struct and
//! union those headers define, with all members, anonymous ones included.
//! From that list a C probe is generated, compiled against the same headers
//! and run: it prints `sizeof`, `_Alignof` and, for every named field,
//! `offsetof`, `sizeof` and `_Alignof`. Every probe number is also checked
//! against the DWARF, so the two readings of the compiler vouch for each
//! other. The structs of rdma-core's private headers (driver.h, kern-abi.h,
//! cmd_ioctl.h: not installed) come from abi-tests/layout/private-facts.txt,
//! the same measurement made once against the v44.0 source
//! (`record_private_facts`).
//!
//! The Rust side: abi-tests/build.rs includes the mirror files as modules and
//! generates `rust_types()`, which reports `size_of`, `align_of`, and each
//! field's `offset_of!` and size.
//!
//! The comparison runs both ways: every C struct/union must have a Rust
//! mirror (same name, or a C macro alias of it) of the same size and
//! alignment whose fields sit at the same offsets with the same sizes, and
//! every Rust type and field must correspond to C. Exceptions are the
//! `c-only`, `rust-only` and `prefix` lines of layout.list, each with its
//! reason. Zero differences are required.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The size of a field, from a pointer to it (no value is read or made).
macro_rules! field_size {
    ($t:ty, $f:ident) => {{
        fn pointee_size<T>(_: *const T) -> usize {
            ::core::mem::size_of::<T>()
        }
        let u = ::core::mem::MaybeUninit::<$t>::uninit();
        let p = u.as_ptr();
        // SAFETY: addr_of! only computes the address of a field of the local
        // `u`; nothing is read, and no reference to uninitialized memory is made.
        pointee_size(unsafe { ::core::ptr::addr_of!((*p).$f) })
    }};
}

/// A Rust mirror type as Rust lays it out.
pub struct RustType {
    pub name: &'static str,
    pub kind: &'static str,
    pub file: &'static str,
    pub size: usize,
    pub align: usize,
    pub fields: Vec<RustField>,
}

pub struct RustField {
    pub name: &'static str,
    /// The field's type as written in the source.
    pub ty: &'static str,
    pub offset: usize,
    pub size: usize,
}

include!(concat!(env!("OUT_DIR"), "/rust_layout.rs"));

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scratch(what: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"));
    let dir = repo_root().join(target).join("abi-tests/layout").join(what);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------------------
// layout.list

#[derive(Default)]
struct List {
    /// (Rust file, headers) of `mirror` lines.
    mirrors: Vec<(String, Vec<String>)>,
    /// Headers of `pending` lines.
    pending_headers: Vec<String>,
    not_ours: BTreeMap<String, String>,
    c_only: BTreeMap<String, String>,
    rust_only: BTreeMap<String, String>,
    /// Rust type -> (C tag, first C field left out).
    prefix: BTreeMap<String, (String, String)>,
}

impl List {
    fn load() -> List {
        let path = repo_root().join("abi-tests/layout/layout.list");
        List::parse(&std::fs::read_to_string(&path).unwrap())
    }

    fn parse(text: &str) -> List {
        let mut l = List::default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let w: Vec<&str> = line.split_whitespace().collect();
            let why = |n: usize| {
                let r = w[n..].join(" ");
                assert!(!r.is_empty(), "layout.list: no reason given: {line}");
                r
            };
            match w[0] {
                "mirror" => l.mirrors.push((
                    w[1].to_string(),
                    w[2..].iter().map(|s| s.to_string()).collect(),
                )),
                "pending" => {
                    let end = w.iter().position(|x| *x == "--").unwrap_or(w.len());
                    assert!(end < w.len(), "layout.list: pending without -- WHY: {line}");
                    l.pending_headers
                        .extend(w[2..end].iter().map(|s| s.to_string()));
                }
                "not-ours" => {
                    l.not_ours.insert(w[1].to_string(), why(2));
                }
                "c-only" => {
                    l.c_only.insert(w[1].to_string(), why(2));
                }
                "rust-only" => {
                    l.rust_only.insert(w[1].to_string(), why(2));
                }
                "prefix" => {
                    why(4);
                    l.prefix
                        .insert(w[1].to_string(), (w[2].to_string(), w[3].to_string()));
                }
                other => panic!("layout.list: unknown keyword {other:?}: {line}"),
            }
        }
        l
    }

    fn headers(&self, private: bool) -> Vec<String> {
        let mut out = Vec::new();
        for (_, hs) in &self.mirrors {
            for h in hs {
                match (h.strip_prefix("private:"), private) {
                    (Some(p), true) => out.push(p.to_string()),
                    (None, false) => out.push(h.clone()),
                    _ => {}
                }
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------
// The C side

/// How a member's type is seen: a named struct/union, an anonymous one (a key
/// into [`CLayout::types`]), or anything else.
#[derive(Clone, Debug, PartialEq)]
enum TyRef {
    Other,
    Tag(String),
    Anon(String),
}

#[derive(Clone, Debug)]
struct CMember {
    /// None for an anonymous struct/union member.
    name: Option<String>,
    /// Byte offset within the containing type (for a bit-field: of the byte
    /// holding its first bit).
    offset: u64,
    size: u64,
    align: u64,
    /// (bit offset within the containing type, width) of a bit-field.
    bits: Option<(u64, u64)>,
    ty: TyRef,
}

#[derive(Clone, Debug)]
struct CType {
    kind: String,
    size: u64,
    align: u64,
    /// The header that defines it (`infiniband/verbs.h`); for anonymous types
    /// the header of the enclosing tag.
    header: String,
    members: Vec<CMember>,
}

/// Named tags by name; anonymous types by a key naming where they sit
/// (`ibv_send_wr.wr`, `ibv_wc.<anon+40>`).
#[derive(Default)]
struct CLayout {
    types: BTreeMap<String, CType>,
    /// Tags (not anonymous types) in the order measured.
    tags: Vec<String>,
    /// `#define ALIAS TAG` of the headers (e.g. ibv_flow_action_esp).
    aliases: BTreeMap<String, String>,
}

impl CLayout {
    fn serialize(&self) -> String {
        let mut s = String::new();
        for (key, t) in &self.types {
            writeln!(
                s,
                "type {key} {} {} {} {}",
                t.kind, t.size, t.align, t.header
            )
            .unwrap();
            for m in &t.members {
                let ty = match &m.ty {
                    TyRef::Other => "-".to_string(),
                    TyRef::Tag(t) => format!("tag:{t}"),
                    TyRef::Anon(k) => format!("anon:{k}"),
                };
                write!(
                    s,
                    "  member {} {} {} {} {ty}",
                    m.name.as_deref().unwrap_or("-"),
                    m.offset,
                    m.size,
                    m.align
                )
                .unwrap();
                if let Some((bo, bs)) = m.bits {
                    write!(s, " bits {bo} {bs}").unwrap();
                }
                s.push('\n');
            }
        }
        s
    }

    fn deserialize(text: &str) -> CLayout {
        let mut l = CLayout::default();
        let mut cur: Option<String> = None;
        for line in text.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            match w.first() {
                Some(&"type") => {
                    let key = w[1].to_string();
                    l.types.insert(
                        key.clone(),
                        CType {
                            kind: w[2].to_string(),
                            size: w[3].parse().unwrap(),
                            align: w[4].parse().unwrap(),
                            header: w[5].to_string(),
                            members: Vec::new(),
                        },
                    );
                    if !key.contains('.') {
                        l.tags.push(key.clone());
                    }
                    cur = Some(key);
                }
                Some(&"member") => {
                    let ty = match w[5] {
                        "-" => TyRef::Other,
                        t if t.starts_with("tag:") => TyRef::Tag(t[4..].to_string()),
                        t if t.starts_with("anon:") => TyRef::Anon(t[5..].to_string()),
                        t => panic!("facts: bad member type {t}"),
                    };
                    let bits = (w.get(6) == Some(&"bits"))
                        .then(|| (w[7].parse().unwrap(), w[8].parse().unwrap()));
                    let m = CMember {
                        name: (w[1] != "-").then(|| w[1].to_string()),
                        offset: w[2].parse().unwrap(),
                        size: w[3].parse().unwrap(),
                        align: w[4].parse().unwrap(),
                        bits,
                        ty,
                    };
                    l.types
                        .get_mut(cur.as_ref().expect("member before type"))
                        .unwrap()
                        .members
                        .push(m);
                }
                _ => {}
            }
        }
        l
    }
}

/// One DWARF debugging information entry, as `readelf --debug-dump=info`
/// prints it.
#[derive(Default, Debug)]
struct Die {
    tag: String,
    attrs: BTreeMap<String, String>,
    children: Vec<u64>,
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .env("LC_ALL", "C")
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The value of an attribute, without readelf's "(indirect string, offset:
/// 0x..): " prefix.
fn attr_value(v: &str) -> &str {
    let v = v.trim();
    if v.starts_with('(') {
        if let Some(i) = v.find("): ") {
            return v[i + 3..].trim();
        }
    }
    v
}

fn parse_dies(text: &str) -> BTreeMap<u64, Die> {
    let mut dies: BTreeMap<u64, Die> = BTreeMap::new();
    let mut stack: Vec<u64> = Vec::new();
    let mut cur: Option<u64> = None;
    for line in text.lines() {
        let t = line.trim_start();
        // " <1><2cb>: Abbrev Number: 32 (DW_TAG_structure_type)"
        if let Some(rest) = t.strip_prefix('<') {
            if let Some((depth, rest)) = rest.split_once("><") {
                if let (Ok(depth), Some((off, rest))) =
                    (depth.parse::<usize>(), rest.split_once(">: "))
                {
                    if !rest.starts_with("Abbrev Number:") {
                        continue;
                    }
                    let Some(open) = rest.find("(DW_TAG_") else {
                        cur = None; // a null entry closing a list of children
                        continue;
                    };
                    let tag = rest[open + 1..rest.len() - 1].to_string();
                    let off = u64::from_str_radix(off, 16).unwrap();
                    stack.truncate(depth);
                    if let Some(parent) = stack.last() {
                        dies.get_mut(parent).unwrap().children.push(off);
                    }
                    stack.push(off);
                    dies.insert(
                        off,
                        Die {
                            tag,
                            ..Die::default()
                        },
                    );
                    cur = Some(off);
                    continue;
                }
            }
            // "    <2cc>   DW_AT_byte_size   : 1"
            if let (Some(c), Some(i)) = (cur, t.find("DW_AT_")) {
                let attr = &t[i..];
                if let Some((name, value)) = attr.split_once(':') {
                    dies.get_mut(&c)
                        .unwrap()
                        .attrs
                        .insert(name.trim().to_string(), attr_value(value).to_string());
                }
            }
        }
    }
    dies
}

/// DWARF 5 file table: file index -> "dir/name" with dir's last component
/// (`infiniband/verbs.h`, `rdma/ib_user_verbs.h`).
fn parse_files(text: &str) -> BTreeMap<u64, String> {
    let (mut dirs, mut files) = (BTreeMap::new(), BTreeMap::new());
    let mut section = 0;
    for line in text.lines() {
        if line.contains("The Directory Table") {
            section = 1;
            continue;
        }
        if line.contains("The File Name Table") {
            section = 2;
            continue;
        }
        if line.contains("Line Number Statements") {
            break;
        }
        let cols: Vec<&str> = line.trim().split('\t').collect();
        let Ok(idx) = cols[0].parse::<u64>() else {
            continue;
        };
        // "0<TAB>(line_strp)<TAB>(offset: 0xf): /usr/include" (dirs) and
        // "3<TAB>(udata)<TAB>3<TAB>(line_strp)<TAB>(offset: 0x..): types.h"
        // (files, with -W); without -W the form columns are left out.
        let name = attr_value(cols[cols.len() - 1]).to_string();
        match section {
            1 => {
                let last = name.rsplit('/').next().unwrap_or(&name).to_string();
                dirs.insert(idx, last);
            }
            2 => {
                let dir: u64 = cols[1..cols.len() - 1]
                    .iter()
                    .find_map(|c| c.trim().parse().ok())
                    .expect("file entry without directory index");
                files.insert(idx, (dir, name));
            }
            _ => {}
        }
    }
    files
        .into_iter()
        .map(|(i, (d, n))| {
            (
                i,
                format!("{}/{n}", dirs.get(&d).cloned().unwrap_or_default()),
            )
        })
        .collect()
}

fn num(die: &Die, attr: &str) -> Option<u64> {
    die.attrs.get(attr).and_then(|v| v.parse().ok())
}

/// Follows typedefs and qualifiers to the type itself.
fn strip(dies: &BTreeMap<u64, Die>, mut off: u64) -> u64 {
    loop {
        let d = &dies[&off];
        match d.tag.as_str() {
            "DW_TAG_typedef"
            | "DW_TAG_const_type"
            | "DW_TAG_volatile_type"
            | "DW_TAG_atomic_type"
            | "DW_TAG_restrict_type" => match d.attrs.get("DW_AT_type") {
                Some(t) => off = type_ref(t),
                None => return off,
            },
            _ => return off,
        }
    }
}

/// The anonymous struct/union a member's type is, if it is one written in
/// place. A typedef of an anonymous union (glibc's pthread_mutex_t) has a
/// name: it is not followed.
fn anon_aggregate(dies: &BTreeMap<u64, Die>, mut off: u64) -> Option<u64> {
    loop {
        let d = &dies[&off];
        match d.tag.as_str() {
            "DW_TAG_const_type" | "DW_TAG_volatile_type" | "DW_TAG_atomic_type" => {
                off = type_ref(d.attrs.get("DW_AT_type")?);
            }
            _ => return (is_aggregate(d) && !d.attrs.contains_key("DW_AT_name")).then_some(off),
        }
    }
}

fn type_ref(v: &str) -> u64 {
    u64::from_str_radix(v.trim_start_matches("<0x").trim_end_matches('>'), 16).unwrap()
}

fn is_aggregate(d: &Die) -> bool {
    d.tag == "DW_TAG_structure_type" || d.tag == "DW_TAG_union_type"
}

/// A flexible array member: an array whose subrange has no bound.
fn is_flexible(dies: &BTreeMap<u64, Die>, off: u64) -> bool {
    let d = &dies[&off];
    d.tag == "DW_TAG_array_type"
        && d.children.iter().any(|c| {
            let s = &dies[c];
            s.tag == "DW_TAG_subrange_type"
                && !s.attrs.contains_key("DW_AT_upper_bound")
                && !s.attrs.contains_key("DW_AT_count")
        })
}

fn members(dies: &BTreeMap<u64, Die>, off: u64) -> Vec<&Die> {
    dies[&off]
        .children
        .iter()
        .map(|c| &dies[c])
        .filter(|d| d.tag == "DW_TAG_member")
        .collect()
}

/// Writes the probe's statements for the members of the aggregate at `off`,
/// reached from `struct TAG` by the C member path `prefix`.
fn probe_members(
    dies: &BTreeMap<u64, Die>,
    off: u64,
    ctype: &str,
    tag: &str,
    prefix: &str,
    out: &mut String,
) {
    for m in members(dies, off) {
        let ty = strip(dies, type_ref(&m.attrs["DW_AT_type"]));
        let name = m.attrs.get("DW_AT_name");
        if m.attrs.contains_key("DW_AT_bit_size") {
            continue; // no offsetof/sizeof for bit-fields: DWARF's numbers
        }
        let path = match name {
            Some(n) if prefix.is_empty() => n.clone(),
            Some(n) => format!("{prefix}.{n}"),
            None => prefix.to_string(),
        };
        if name.is_some() {
            let place = format!("((({ctype} *)0)->{path})");
            let (size, align) = if is_flexible(dies, ty) {
                ("0".to_string(), format!("_Alignof(__typeof__({place}[0]))"))
            } else {
                (
                    format!("sizeof{place}"),
                    format!("_Alignof(__typeof__{place})"),
                )
            };
            writeln!(
                out,
                "\tprintf(\"F {tag} {path} %zu %zu %zu\\n\", (size_t)offsetof({ctype}, {path}), (size_t){size}, (size_t){align});"
            )
            .unwrap();
        }
        if let Some(a) = anon_aggregate(dies, type_ref(&m.attrs["DW_AT_type"])) {
            probe_members(dies, a, ctype, tag, &path, out);
        }
    }
}

struct Measure<'a> {
    dies: &'a BTreeMap<u64, Die>,
    /// (tag, path) -> (absolute offset, size, align), from the probe.
    probe: &'a BTreeMap<(String, String), (u64, u64, u64)>,
    layout: &'a mut CLayout,
}

impl Measure<'_> {
    /// Builds the CType of the aggregate DIE `off` under `key`, `abs` bytes
    /// into `tag` (DWARF's count, checked against the probe's offsets).
    fn build(
        &mut self,
        off: u64,
        key: &str,
        tag: &str,
        prefix: &str,
        abs: u64,
        header: &str,
    ) -> (u64, u64) {
        let die = &self.dies[&off];
        let kind = if die.tag == "DW_TAG_union_type" {
            "union"
        } else {
            "struct"
        };
        let size = num(die, "DW_AT_byte_size").unwrap_or(0);
        let mut out = Vec::new();
        for m in members(self.dies, off) {
            let rel = num(m, "DW_AT_data_member_location").unwrap_or(0);
            let ty = strip(self.dies, type_ref(&m.attrs["DW_AT_type"]));
            let tdie = &self.dies[&ty];
            let name = m.attrs.get("DW_AT_name").cloned();
            if let Some(bits) = num(m, "DW_AT_bit_size") {
                let bo = num(m, "DW_AT_data_bit_offset")
                    .expect("bit-field without DW_AT_data_bit_offset");
                let unit = num(tdie, "DW_AT_byte_size").unwrap_or(1);
                out.push(CMember {
                    name,
                    offset: bo / 8,
                    size: (bo % 8 + bits).div_ceil(8),
                    align: unit,
                    bits: Some((bo, bits)),
                    ty: TyRef::Other,
                });
                continue;
            }
            let path = match &name {
                Some(n) if prefix.is_empty() => n.clone(),
                Some(n) => format!("{prefix}.{n}"),
                None => prefix.to_string(),
            };
            let anon = anon_aggregate(self.dies, type_ref(&m.attrs["DW_AT_type"]));
            let tyref = if let Some(ty) = anon {
                let sub = match &name {
                    Some(n) => format!("{key}.{n}"),
                    None => format!("{key}.<anon+{rel}>"),
                };
                let (_, a) = self.build(ty, &sub, tag, &path, abs + rel, header);
                if name.is_none() {
                    out.push(CMember {
                        name: None,
                        offset: rel,
                        size: num(tdie, "DW_AT_byte_size").unwrap_or(0),
                        align: a,
                        bits: None,
                        ty: TyRef::Anon(sub),
                    });
                    continue;
                }
                TyRef::Anon(sub)
            } else if is_aggregate(tdie) && tdie.attrs.contains_key("DW_AT_name") {
                TyRef::Tag(tdie.attrs["DW_AT_name"].clone())
            } else {
                TyRef::Other
            };
            let &(poff, psize, palign) = self
                .probe
                .get(&(tag.to_string(), path.clone()))
                .unwrap_or_else(|| panic!("the probe printed nothing for {tag}.{path}"));
            assert_eq!(
                poff,
                abs + rel,
                "{tag}.{path}: offsetof says {poff}, DWARF {} (the DWARF reading is wrong)",
                abs + rel
            );
            out.push(CMember {
                name,
                offset: rel,
                size: psize,
                align: palign,
                bits: None,
                ty: tyref,
            });
        }
        let align = out.iter().map(|m| m.align).max().unwrap_or(1);
        self.layout.types.insert(
            key.to_string(),
            CType {
                kind: kind.to_string(),
                size,
                align,
                header: header.to_string(),
                members: out,
            },
        );
        (size, align)
    }
}

/// Compiles `tu` (a list of #include lines) with `cflags`, reads the DWARF,
/// and measures every struct/union tag defined in one of `headers`.
fn measure(dir: &Path, includes: &[String], cflags: &[String], headers: &[String]) -> CLayout {
    let tu = dir.join("tu.c");
    let mut src = String::new();
    for h in includes {
        writeln!(src, "#include <{h}>").unwrap();
    }
    std::fs::write(&tu, &src).unwrap();
    let obj = dir.join("tu.o");
    run(Command::new("gcc")
        .args([
            "-std=gnu11",
            "-w",
            "-g",
            "-gdwarf-5",
            "-fno-eliminate-unused-debug-types",
            "-c",
        ])
        .args(cflags)
        .arg(&tu)
        .arg("-o")
        .arg(&obj));
    let dies = parse_dies(&run(Command::new("readelf")
        .arg("--debug-dump=info")
        .arg(&obj)));
    let files = parse_files(&run(Command::new("readelf")
        .arg("--debug-dump=line")
        .arg(&obj)));
    assert!(
        !dies.is_empty() && !files.is_empty(),
        "no DWARF read from {}",
        obj.display()
    );

    // Tags defined (not just declared) in the headers in scope.
    let mut tags: Vec<(String, u64, String)> = Vec::new();
    for (off, d) in &dies {
        if !is_aggregate(d) || d.attrs.contains_key("DW_AT_declaration") {
            continue;
        }
        let (Some(name), Some(file)) = (d.attrs.get("DW_AT_name"), num(d, "DW_AT_decl_file"))
        else {
            continue;
        };
        let header = files.get(&file).cloned().unwrap_or_default();
        if headers.contains(&header) {
            tags.push((name.clone(), *off, header));
        }
    }
    assert!(!tags.is_empty(), "no struct found in {headers:?}");

    // The probe.
    let mut probe = String::from("#include <stddef.h>\n#include <stdio.h>\n");
    probe.push_str(&src);
    probe.push_str("int main(void)\n{\n");
    for (name, off, _) in &tags {
        let kind = if dies[off].tag == "DW_TAG_union_type" {
            "union"
        } else {
            "struct"
        };
        let ctype = format!("{kind} {name}");
        writeln!(
            probe,
            "\tprintf(\"S {name} %zu %zu\\n\", sizeof({ctype}), (size_t)_Alignof({ctype}));"
        )
        .unwrap();
        probe_members(&dies, *off, &ctype, name, "", &mut probe);
    }
    probe.push_str("\treturn 0;\n}\n");
    let probe_c = dir.join("probe.c");
    std::fs::write(&probe_c, &probe).unwrap();
    let exe = dir.join("probe");
    run(Command::new("gcc")
        .args(["-std=gnu11", "-w"])
        .args(cflags)
        .arg(&probe_c)
        .arg("-o")
        .arg(&exe));
    let printed = run(&mut Command::new(&exe));
    let mut sizes = BTreeMap::new();
    let mut fields = BTreeMap::new();
    for line in printed.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w[0] {
            "S" => {
                sizes.insert(
                    w[1].to_string(),
                    (w[2].parse::<u64>().unwrap(), w[3].parse::<u64>().unwrap()),
                );
            }
            "F" => {
                fields.insert(
                    (w[1].to_string(), w[2].to_string()),
                    (
                        w[3].parse().unwrap(),
                        w[4].parse().unwrap(),
                        w[5].parse().unwrap(),
                    ),
                );
            }
            _ => panic!("probe printed {line:?}"),
        }
    }

    let mut layout = CLayout::default();
    for (name, off, header) in &tags {
        let mut m = Measure {
            dies: &dies,
            probe: &fields,
            layout: &mut layout,
        };
        let (dsize, _) = m.build(*off, name, name, "", 0, header);
        let (size, align) = sizes[name];
        assert_eq!(size, dsize, "{name}: sizeof {size}, DWARF {dsize}");
        let t = layout.types.get_mut(name).unwrap();
        t.align = align;
        layout.tags.push(name.clone());
    }

    // Macro aliases of tags (`#define ibv_flow_action_esp ib_uverbs_flow_action_esp`).
    let macros = run(Command::new("gcc")
        .args(["-std=gnu11", "-w", "-dM", "-E"])
        .args(cflags)
        .arg(&tu));
    // The target may be measured in another translation unit: keep every
    // macro naming a struct/union the compiler saw.
    let aggregates: BTreeSet<&String> = dies
        .values()
        .filter(|d| is_aggregate(d))
        .filter_map(|d| d.attrs.get("DW_AT_name"))
        .collect();
    for line in macros.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() == 3 && w[0] == "#define" && aggregates.contains(&w[2].to_string()) {
            layout.aliases.insert(w[1].to_string(), w[2].to_string());
        }
    }
    layout
}

/// The installed headers' structs, measured now: one translation unit per
/// mirror line (some headers cannot share one: rdma_cma.h and
/// rdma_user_cm.h both define RDMA_PS_*).
fn measure_public(list: &List) -> CLayout {
    let mut all = CLayout::default();
    for (i, (_, hs)) in list.mirrors.iter().enumerate() {
        let headers: Vec<String> = hs
            .iter()
            .filter(|h| !h.starts_with("private:"))
            .cloned()
            .collect();
        if headers.is_empty() {
            continue;
        }
        let l = measure(&scratch(&format!("public-{i}")), &headers, &[], &headers);
        for tag in l.tags {
            if !all.types.contains_key(&tag) {
                all.tags.push(tag);
            }
        }
        for (k, t) in l.types {
            all.types.entry(k).or_insert(t);
        }
        all.aliases.extend(l.aliases);
    }
    all
}

fn facts_path() -> PathBuf {
    repo_root().join("abi-tests/layout/private-facts.txt")
}

// ---------------------------------------------------------------------------
// The comparison

fn rust_field_type_name(ty: &str) -> Option<&str> {
    let mut t = ty.trim();
    while let Some(inner) = t.strip_prefix('[') {
        t = inner.split(';').next().unwrap().trim();
    }
    let t = t.rsplit("::").next().unwrap();
    t.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then_some(t)
}

struct Compare<'a> {
    c: &'a CLayout,
    rust: BTreeMap<&'a str, Vec<&'a RustType>>,
    diffs: Vec<String>,
    /// Rust types compared with some C type.
    seen: BTreeSet<String>,
    /// C types (keys) compared with some Rust type.
    c_seen: BTreeSet<String>,
}

/// Names a C member makes reachable (through anonymous members too).
fn c_names(c: &CLayout, t: &CType) -> Vec<String> {
    let mut out = Vec::new();
    for m in &t.members {
        match (&m.name, &m.ty) {
            (Some(n), _) => out.push(n.clone()),
            (None, TyRef::Anon(k)) => out.extend(c_names(c, &c.types[k])),
            _ => {}
        }
    }
    out
}

impl<'a> Compare<'a> {
    fn new(c: &'a CLayout, rust: &'a [RustType]) -> Self {
        let mut map: BTreeMap<&str, Vec<&RustType>> = BTreeMap::new();
        for r in rust {
            map.entry(r.name).or_default().push(r);
        }
        Compare {
            c,
            rust: map,
            diffs: Vec::new(),
            seen: BTreeSet::new(),
            c_seen: BTreeSet::new(),
        }
    }

    fn find_field<'r>(rt: &'r RustType, cname: &str) -> Option<(usize, &'r RustField)> {
        let alt = format!("{cname}_");
        rt.fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == cname)
            .or_else(|| rt.fields.iter().enumerate().find(|(_, f)| f.name == alt))
    }

    /// Compares C type `ckey` (optionally cut before `cut`) with every Rust
    /// type named `rname`.
    fn compare_type(&mut self, ckey: &str, rname: &str, cut: Option<&str>) {
        let c = self.c;
        let mut ct = c.types[ckey].clone();
        if let Some(cut) = cut {
            let i = ct
                .members
                .iter()
                .position(|m| m.name.as_deref() == Some(cut))
                .unwrap_or_else(|| panic!("prefix: {ckey} has no field {cut}"));
            ct.size = ct.members[i].offset;
            ct.members.truncate(i);
        }
        self.c_seen.insert(ckey.to_string());
        // A C struct whose only member is an anonymous union has the union's
        // layout and access syntax: Rust may mirror it as that union.
        if ct.kind == "struct" && ct.members.len() == 1 && ct.members[0].name.is_none() {
            if let TyRef::Anon(k) = &ct.members[0].ty {
                let inner = &c.types[k];
                let rust_union = self
                    .rust
                    .get(rname)
                    .is_some_and(|r| r.iter().all(|r| r.kind == "union"));
                if inner.kind == "union"
                    && rust_union
                    && inner.size == ct.size
                    && inner.align == ct.align
                {
                    return self.compare_type(&k.clone(), rname, None);
                }
            }
        }
        let Some(rts) = self.rust.get(rname).cloned() else {
            self.diffs.push(format!(
                "C {} {ckey} ({}) has no Rust mirror (expected Rust type {rname})",
                ct.kind, ct.header
            ));
            return;
        };
        for rt in rts {
            self.seen.insert(rname.to_string());
            let label = format!("{rname} ({})", rt.file);
            if ct.kind != rt.kind {
                self.diffs.push(format!(
                    "{label}: C {ckey} is a {}, Rust a {}",
                    ct.kind, rt.kind
                ));
            }
            if (ct.size, ct.align) != (rt.size as u64, rt.align as u64) {
                self.diffs.push(format!(
                    "{label}: size/align C {}/{} (of {ckey}), Rust {}/{}",
                    ct.size, ct.align, rt.size, rt.align
                ));
            }
            let mut used = vec![false; rt.fields.len()];
            self.compare_members(&ct, ckey, 0, rt, &mut used, &label, false);
            for (i, f) in rt.fields.iter().enumerate() {
                if !used[i] {
                    self.diffs.push(format!(
                        "{label}: Rust field {} (offset {}, size {}) has no C counterpart in {ckey}",
                        f.name, f.offset, f.size
                    ));
                }
            }
        }
    }

    /// Compares the members of C type `ct`, which starts `base` bytes into
    /// Rust type `rt`. `optional`: `ct` is an anonymous union Rust
    /// flattens to the members it keeps; the others are aliases of the same
    /// bytes and need no mirror. Returns whether some member was matched.
    #[allow(clippy::too_many_arguments)]
    fn compare_members(
        &mut self,
        ct: &CType,
        ckey: &str,
        base: u64,
        rt: &RustType,
        used: &mut [bool],
        label: &str,
        optional: bool,
    ) -> bool {
        let c = self.c;
        let mut matched_any = false;
        for m in &ct.members {
            let off = base + m.offset;
            let cname = m.name.as_deref().unwrap_or("<anonymous>");
            if let Some((bo, bs)) = m.bits {
                // Rust keeps bit-fields in an integer field covering them.
                match rt.fields.iter().position(|f| {
                    f.offset as u64 <= off && off + m.size <= (f.offset + f.size) as u64
                }) {
                    Some(i) => {
                        used[i] = true;
                        matched_any = true;
                    }
                    None if optional => {}
                    None => self.diffs.push(format!(
                        "{label}: no Rust field holds C bit-field {ckey}.{cname} (bits {bo}..{})",
                        bo + bs
                    )),
                }
                continue;
            }
            match (&m.name, &m.ty) {
                (Some(n), ty) => {
                    let Some((i, f)) = Self::find_field(rt, n) else {
                        if !optional {
                            self.diffs.push(format!(
                                "{label}: C field {ckey}.{n} (offset {off}, size {}) is missing in Rust",
                                m.size
                            ));
                        }
                        continue;
                    };
                    used[i] = true;
                    matched_any = true;
                    if (f.offset as u64, f.size as u64) != (off, m.size) {
                        self.diffs.push(format!(
                            "{label}: field {}: offset/size C {off}/{} (of {ckey}.{n}), Rust {}/{}",
                            f.name, m.size, f.offset, f.size
                        ));
                    }
                    match ty {
                        TyRef::Anon(k) => match rust_field_type_name(f.ty) {
                            Some(rn) => self.compare_type(k, rn, None),
                            None => self.diffs.push(format!(
                                "{label}: field {} mirrors anonymous C type {k} with {}",
                                f.name, f.ty
                            )),
                        },
                        TyRef::Tag(t) => {
                            let rn = rust_field_type_name(f.ty);
                            let ok = rn.is_some_and(|rn| {
                                rn == t || c.aliases.get(rn).is_some_and(|a| a == t)
                            });
                            if !ok {
                                self.diffs.push(format!(
                                    "{label}: field {} is {} in Rust, struct/union {t} in C",
                                    f.name, f.ty
                                ));
                            }
                        }
                        TyRef::Other => {}
                    }
                }
                (None, TyRef::Anon(k)) => {
                    let anon = &c.types[k];
                    let names = c_names(c, anon);
                    if names.iter().any(|n| Self::find_field(rt, n).is_some()) {
                        // Flattened into the Rust type: an anonymous union
                        // needs one kept member covering all of it.
                        let union = anon.kind == "union";
                        self.c_seen.insert(k.clone());
                        let before: Vec<bool> = used.to_vec();
                        let ok =
                            self.compare_members(anon, k, off, rt, used, label, union || optional);
                        if union {
                            let covers = rt.fields.iter().enumerate().any(|(i, f)| {
                                used[i]
                                    && !before[i]
                                    && f.offset as u64 == off
                                    && f.size as u64 == anon.size
                            });
                            if !(optional || ok && covers) {
                                self.diffs.push(format!(
                                    "{label}: no Rust field covers all {} bytes of C's anonymous union {k}",
                                    anon.size
                                ));
                            }
                        }
                        matched_any |= ok;
                        continue;
                    }
                    // Mirrored as a named Rust field of its own type.
                    let hit = rt.fields.iter().enumerate().find(|(i, f)| {
                        !used[*i]
                            && f.offset as u64 == off
                            && rust_field_type_name(f.ty)
                                .and_then(|rn| self.rust.get(rn))
                                .is_some_and(|rs| {
                                    rs.iter().any(|r| {
                                        r.fields.iter().any(|g| {
                                            names
                                                .iter()
                                                .any(|n| g.name == n || g.name == format!("{n}_"))
                                        })
                                    })
                                })
                    });
                    match hit {
                        Some((i, f)) => {
                            used[i] = true;
                            matched_any = true;
                            if f.size as u64 != anon.size {
                                self.diffs.push(format!(
                                    "{label}: field {} has size {}, C's anonymous {} {k} {}",
                                    f.name, f.size, anon.kind, anon.size
                                ));
                            }
                            let rn = rust_field_type_name(f.ty).unwrap().to_string();
                            self.compare_type(k, &rn, None);
                        }
                        None if optional => {}
                        None => self.diffs.push(format!(
                            "{label}: C's anonymous {} {k} (offset {off}, members {names:?}) has no Rust counterpart",
                            anon.kind
                        )),
                    }
                }
                (None, _) => panic!("{ckey}: unnamed member that is not a struct/union"),
            }
        }
        matched_any
    }
}

/// Everything the comparison reports, given both sides and the list.
fn differences(c: &CLayout, rust: &[RustType], list: &List) -> (Vec<String>, usize) {
    let mut cmp = Compare::new(c, rust);
    let mut notes = Vec::new();
    for tag in &c.tags {
        if let Some(why) = list.c_only.get(tag) {
            if cmp.rust.contains_key(tag.as_str()) {
                notes.push(format!(
                    "c-only {tag} ({why}), but Rust mirrors it: drop the c-only line"
                ));
            }
            continue;
        }
        cmp.compare_type(tag, tag, None);
    }
    // Rust names for C macro aliases of tags.
    for (alias, tag) in &c.aliases {
        if cmp.rust.contains_key(alias.as_str())
            && !c.types.contains_key(alias)
            && c.types.contains_key(tag)
        {
            cmp.compare_type(tag, alias, None);
        }
    }
    for (rtype, (tag, field)) in &list.prefix {
        match c.types.get(tag) {
            Some(_) => cmp.compare_type(tag, rtype, Some(field)),
            None => notes.push(format!("prefix {rtype}: no C type {tag}")),
        }
    }
    for tag in list.c_only.keys() {
        if !c.types.contains_key(tag) {
            notes.push(format!(
                "c-only {tag}: no such C struct in the mirrored headers"
            ));
        }
    }
    for (name, rts) in &cmp.rust {
        if cmp.seen.contains(*name) {
            if list.rust_only.contains_key(*name) {
                notes.push(format!(
                    "rust-only {name}, but it mirrors a C type: drop the rust-only line"
                ));
            }
            continue;
        }
        if list.rust_only.contains_key(*name) {
            continue;
        }
        for r in rts {
            notes.push(format!(
                "Rust {} {name} ({}) mirrors no C struct/union of the mirrored headers",
                r.kind, r.file
            ));
        }
    }
    for name in list.rust_only.keys() {
        if !cmp.rust.contains_key(name.as_str()) {
            notes.push(format!("rust-only {name}: no such Rust type"));
        }
    }
    let compared = cmp.c_seen.len();
    let mut all = cmp.diffs;
    all.extend(notes);
    all.sort();
    all.dedup();
    (all, compared)
}

fn report(diffs: &[String]) -> String {
    diffs.iter().map(|d| format!("  {d}\n")).collect()
}

// ---------------------------------------------------------------------------
// Tests

#[test]
fn every_struct_and_field_matches_c() {
    let list = List::load();
    let mut c = measure_public(&list);
    let facts = std::fs::read_to_string(facts_path()).expect("abi-tests/layout/private-facts.txt");
    let private = CLayout::deserialize(&facts);
    let private_headers = list.headers(true);
    for tag in &private.tags {
        let h = &private.types[tag].header;
        assert!(
            private_headers.contains(h),
            "private-facts.txt has {tag} from {h}, which no mirror line names: re-record it"
        );
    }
    for h in &private_headers {
        assert!(
            private.tags.iter().any(|t| &private.types[t].header == h),
            "private-facts.txt has nothing from {h}: re-record it (record_private_facts)"
        );
    }
    c.tags.extend(private.tags.iter().cloned());
    c.types.extend(private.types);
    let rust = rust_types();
    let (diffs, compared) = differences(&c, &rust, &list);
    let fields: usize = rust.iter().map(|r| r.fields.len()).sum();
    eprintln!(
        "layout: {} C tags ({} with anonymous parts: {compared} C types) against {} Rust types / {fields} fields",
        c.tags.len(),
        c.types.len(),
        rust.len()
    );
    assert!(
        diffs.is_empty(),
        "{} layout differences between the C headers and our Rust mirrors:\n{}",
        diffs.len(),
        report(&diffs)
    );
}

/// The Debian packages whose headers layout.list accounts for: the two -dev
/// packages of the libraries we replace, and the kernel uAPI headers they
/// include. Other packages (ibacm's infiniband/acm.h, say) may install headers
/// in the same directories on an RDMA machine; they are not ours to compare.
const HEADER_PACKAGES: [&str; 3] = ["libibverbs-dev", "librdmacm-dev", "linux-libc-dev"];

/// Every header that HEADER_PACKAGES install under /usr/include/infiniband
/// and /usr/include/rdma is accounted for in layout.list, and every header
/// the list names is installed by one of them.
#[test]
fn every_installed_header_is_accounted_for() {
    let list = List::load();
    let mut named: BTreeSet<String> = list.headers(false).into_iter().collect();
    named.extend(
        list.pending_headers
            .iter()
            .filter(|h| !h.starts_with("private:"))
            .cloned(),
    );
    named.extend(list.not_ours.keys().cloned());
    let installed: BTreeSet<String> = abi_tests::paths::package_files(&HEADER_PACKAGES)
        .iter()
        .filter_map(|p| p.strip_prefix("/usr/include").ok())
        .map(|r| r.to_string_lossy().into_owned())
        .filter(|r| (r.starts_with("infiniband/") || r.starts_with("rdma/")) && r.ends_with(".h"))
        .collect();
    assert!(
        installed.contains("infiniband/verbs.h") && installed.contains("rdma/rdma_cma.h"),
        "the package file lists name neither verbs.h nor rdma_cma.h: {installed:?}"
    );
    let unlisted: Vec<_> = installed.difference(&named).collect();
    let stale: Vec<_> = named.difference(&installed).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "layout.list: installed by {HEADER_PACKAGES:?} but not named (add a mirror/pending/not-ours line): \
         {unlisted:?}; named but not installed by them: {stale:?}"
    );
}

/// The private facts file is what the recorder would write from rdma-core
/// v44.0: checks the recording is in the current format and complete for
/// the Rust files (each private C tag once).
#[test]
fn private_facts_parse_back_identically() {
    let text = std::fs::read_to_string(facts_path()).unwrap();
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let l = CLayout::deserialize(&text);
    assert!(l.tags.len() > 20, "too few private types recorded");
    assert_eq!(
        l.serialize(),
        body,
        "private-facts.txt is not in the recorder's format"
    );
}

/// Re-measures the private structs from an rdma-core v44.0 source tree and
/// rewrites abi-tests/layout/private-facts.txt. Needs RDMA_CORE_SRC (a full
/// tree, e.g. `git -C rdma-core archive v44.0 | tar -x -C DIR`):
///     RDMA_CORE_SRC=DIR cargo test -p abi-tests --test layout record_private_facts -- --ignored
#[test]
#[ignore = "records the facts file from RDMA_CORE_SRC (rdma-core v44.0 source)"]
fn record_private_facts() {
    let src = PathBuf::from(std::env::var("RDMA_CORE_SRC").expect("set RDMA_CORE_SRC"));
    let dir = scratch("private");
    let inc = dir.join("inc");
    std::fs::create_dir_all(inc.join("infiniband")).unwrap();
    std::fs::create_dir_all(inc.join("kernel-abi")).unwrap();
    // The upstream build copies these into include/infiniband and generates
    // kernel-abi/ib_user_verbs.h and config.h; nothing here is copied into
    // the repository.
    for h in ["driver.h", "kern-abi.h", "cmd_ioctl.h"] {
        std::os::unix::fs::symlink(
            src.join("libibverbs").join(h),
            inc.join("infiniband").join(h),
        )
        .unwrap();
    }
    std::fs::write(inc.join("config.h"), "").unwrap();
    run(Command::new("python3")
        .arg(src.join("buildlib/make_abi_structs.py"))
        .arg(src.join("kernel-headers/rdma/ib_user_verbs.h"))
        .arg(inc.join("kernel-abi/ib_user_verbs.h")));
    let list = List::load();
    let headers = list.headers(true);
    let cflags = vec![
        format!("-I{}", inc.display()),
        format!("-I{}", src.join("kernel-headers").display()),
        format!("-I{}", src.display()),
    ];
    let includes: Vec<String> = headers.clone();
    let l = measure(&dir, &includes, &cflags, &headers);
    let mut out = String::from(
        "# Layouts of rdma-core v44.0's private headers (not installed by Debian),\n\
         # measured by record_private_facts in abi-tests/tests/layout.rs (DWARF and\n\
         # offsetof of the v44.0 source, kernel-headers/ as upstream builds with).\n\
         # Numbers only: type KEY KIND SIZE ALIGN HEADER, then member NAME OFFSET\n\
         # SIZE ALIGN TYPE [bits BITOFFSET WIDTH]. Do not edit; re-record.\n",
    );
    out.push_str(&l.serialize());
    std::fs::write(facts_path(), out).unwrap();
    eprintln!("recorded {} private tags", l.tags.len());
}

/// The comparison itself finds what it must: a wrong offset, a missing C
/// field, an extra Rust field, a wrong size, a C type without mirror.
#[test]
fn comparison_reports_each_kind_of_difference() {
    let c = CLayout::deserialize(
        "type s struct 16 8 x.h\n  member a 0 4 4 -\n  member b 8 8 8 -\n\
         type t struct 8 8 x.h\n  member - 0 8 8 anon:t.<anon+0>\n\
         type t.<anon+0> union 8 8 x.h\n  member p 0 8 8 -\n  member q 0 4 4 -\n\
         type lonely struct 4 4 x.h\n  member z 0 4 4 -\n",
    );
    let mut c = c;
    c.tags = vec!["s".into(), "t".into(), "lonely".into()];
    let f = |name, offset, size| RustField {
        name,
        ty: "u64",
        offset,
        size,
    };
    let good_s = RustType {
        name: "s",
        kind: "struct",
        file: "x.rs",
        size: 16,
        align: 8,
        fields: vec![f("a", 0, 4), f("b", 8, 8)],
    };
    let good_t = RustType {
        name: "t",
        kind: "struct",
        file: "x.rs",
        size: 8,
        align: 8,
        fields: vec![f("p", 0, 8)],
    };
    let lonely = RustType {
        name: "lonely",
        kind: "struct",
        file: "x.rs",
        size: 4,
        align: 4,
        fields: vec![f("z", 0, 4)],
    };
    let list = List::default();
    let (d, _) = differences(&c, &[good_s, good_t, lonely], &list);
    assert!(d.is_empty(), "{d:?}");

    let bad_s = RustType {
        name: "s",
        kind: "struct",
        file: "x.rs",
        size: 16,
        align: 8,
        fields: vec![f("a", 4, 4), f("c", 8, 8)],
    };
    let bad_t = RustType {
        name: "t",
        kind: "struct",
        file: "x.rs",
        size: 8,
        align: 8,
        fields: vec![f("q", 0, 4)],
    };
    let extra = RustType {
        name: "invented",
        kind: "struct",
        file: "x.rs",
        size: 1,
        align: 1,
        fields: vec![],
    };
    let (d, _) = differences(&c, &[bad_s, bad_t, extra], &list);
    let text = d.join("\n");
    for want in [
        "field a: offset/size C 0/4 (of s.a), Rust 4/4",
        "C field s.b (offset 8, size 8) is missing in Rust",
        "Rust field c (offset 8, size 8) has no C counterpart in s",
        "no Rust field covers all 8 bytes",
        "C struct lonely (x.h) has no Rust mirror",
        "Rust struct invented (x.rs) mirrors no C struct/union",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
}
