//! rdma-abi's items, read with syn: structs and unions, type aliases,
//! constants (with their values) and prototypes, each tagged with its header.

use std::collections::HashMap;
use std::path::Path;

use syn::spanned::Spanned;
use syn::{Attribute, Expr, Fields, Item, Lit, Type};

use crate::manifest;

pub struct Field {
    pub name: String,
    pub ty: Type,
    pub doc: String,
}

pub struct Record {
    pub is_union: bool,
    pub fields: Vec<Field>,
    pub doc: String,
    pub packed: bool,
    pub align: Option<u64>,
}

#[allow(clippy::large_enum_variant)] // a few thousand items, read once
pub enum Kind {
    Record(Record),
    /// `pub type X = T;` (an integer type for enums, a `fn` type in proto).
    Alias(Type),
    Const {
        ty: Type,
        expr: Expr,
    },
}

pub struct RItem {
    pub name: String,
    pub kind: Kind,
    pub doc: String,
    /// The header it belongs to; `None`: a header we do not write.
    pub header: Option<String>,
    /// The module it comes from (proto modules give prototypes).
    pub module: &'static str,
    /// Its integers are spelled the kernel's way (`__u32`).
    pub kernel: bool,
}

pub struct Model {
    /// In reading order; a later item of the same name replaces an earlier one.
    pub items: Vec<RItem>,
    by_name: HashMap<String, usize>,
}

fn doc_of(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for a in attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let Expr::Lit(l) = &nv.value {
                if let Lit::Str(s) = &l.lit {
                    lines.push(s.value().trim().to_string());
                }
            }
        }
    }
    lines.join("\n").trim().to_string()
}

/// `#[repr(C, packed)]`, `#[repr(C, align(N))]`.
fn repr_of(attrs: &[Attribute]) -> (bool, bool, Option<u64>) {
    let (mut c, mut packed, mut align) = (false, false, None);
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = a.parse_nested_meta(|m| {
            if m.path.is_ident("C") {
                c = true;
            } else if m.path.is_ident("packed") {
                packed = true;
            } else if m.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in m.input);
                let lit: syn::LitInt = content.parse()?;
                align = lit.base10_parse().ok();
            }
            Ok(())
        });
    }
    (c, packed, align)
}

/// The header named by a banner line `// <dir/name.h>`.
fn banner(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("// <")?;
    let end = rest.find('>')?;
    let name = &rest[..end];
    name.ends_with(".h").then_some(name)
}

impl Model {
    pub fn load(src: &Path) -> Result<Model, String> {
        let mut m = Model {
            items: Vec::new(),
            by_name: HashMap::new(),
        };
        for (file, default) in manifest::MODULES {
            let path = src.join(file);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            // Banner lines, by line number (1-based, as spans count).
            let banners: Vec<(usize, &str)> = text
                .lines()
                .enumerate()
                .filter_map(|(i, l)| banner(l).map(|h| (i + 1, h)))
                .collect();
            let header_at = |line: usize| -> Option<String> {
                match banners.iter().rev().find(|(l, _)| *l < line) {
                    Some((_, h)) => manifest::HEADERS
                        .iter()
                        .any(|hd| hd.path == *h)
                        .then(|| h.to_string()),
                    None => default.map(str::to_string),
                }
            };
            for item in &ast.items {
                let line = item.span().start().line;
                let (name, kind, doc) = match item {
                    Item::Struct(s) => {
                        let (c, packed, align) = repr_of(&s.attrs);
                        if !c {
                            continue;
                        }
                        let Fields::Named(named) = &s.fields else {
                            continue;
                        };
                        let fields = named
                            .named
                            .iter()
                            .map(|f| Field {
                                name: f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                                ty: f.ty.clone(),
                                doc: doc_of(&f.attrs),
                            })
                            .collect();
                        let doc = doc_of(&s.attrs);
                        let rec = Record {
                            is_union: false,
                            fields,
                            doc: doc.clone(),
                            packed,
                            align,
                        };
                        (s.ident.to_string(), Kind::Record(rec), doc)
                    }
                    Item::Union(u) => {
                        let (c, packed, align) = repr_of(&u.attrs);
                        if !c {
                            continue;
                        }
                        let fields = u
                            .fields
                            .named
                            .iter()
                            .map(|f| Field {
                                name: f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                                ty: f.ty.clone(),
                                doc: doc_of(&f.attrs),
                            })
                            .collect();
                        let doc = doc_of(&u.attrs);
                        let rec = Record {
                            is_union: true,
                            fields,
                            doc: doc.clone(),
                            packed,
                            align,
                        };
                        (u.ident.to_string(), Kind::Record(rec), doc)
                    }
                    Item::Type(t) => (
                        t.ident.to_string(),
                        Kind::Alias((*t.ty).clone()),
                        doc_of(&t.attrs),
                    ),
                    Item::Const(c) => (
                        c.ident.to_string(),
                        Kind::Const {
                            ty: (*c.ty).clone(),
                            expr: (*c.expr).clone(),
                        },
                        doc_of(&c.attrs),
                    ),
                    _ => continue,
                };
                let header = header_at(line);
                let kernel = manifest::KERNEL_MODULES.contains(file)
                    || header
                        .as_deref()
                        .is_some_and(|h| manifest::KERNEL_HEADERS.contains(&h));
                let it = RItem {
                    name: name.clone(),
                    kind,
                    doc,
                    header,
                    module: file,
                    kernel,
                };
                match m.by_name.get(&name) {
                    // A later module's definition replaces the earlier one in place.
                    Some(&i) => m.items[i] = it,
                    None => {
                        m.by_name.insert(name, m.items.len());
                        m.items.push(it);
                    }
                }
            }
        }
        // Items placed by name, and the constants of enums placed so.
        for (name, h) in manifest::ITEM_HEADERS {
            let i = *m
                .by_name
                .get(*name)
                .ok_or_else(|| format!("ITEM_HEADERS: no item {name}"))?;
            m.items[i].header = Some(h.to_string());
        }
        for i in 0..m.items.len() {
            if let Kind::Const { ty, .. } = &m.items[i].kind {
                let t = last_ident(ty).unwrap_or_default();
                if let Some((_, h)) = manifest::ITEM_HEADERS.iter().find(|(n, _)| *n == t) {
                    m.items[i].header = Some(h.to_string());
                }
            }
        }
        Ok(m)
    }

    pub fn get(&self, name: &str) -> Option<&RItem> {
        self.by_name.get(name).map(|&i| &self.items[i])
    }

    pub fn record(&self, name: &str) -> Option<&Record> {
        match &self.get(name)?.kind {
            Kind::Record(r) => Some(r),
            _ => None,
        }
    }

    /// An alias standing for a C enum: an integer alias some constant has as
    /// its type.
    pub fn is_enum(&self, name: &str) -> bool {
        match self.get(name) {
            Some(RItem { kind: Kind::Alias(t), .. }) => {
                int_width(t).is_some()
                    && self.items.iter().any(|i| matches!(&i.kind, Kind::Const { ty, .. } if last_ident(ty).as_deref() == Some(name)))
            }
            _ => false,
        }
    }

    /// A constant's value.
    pub fn eval_const(&self, name: &str) -> Result<i128, String> {
        match self.get(name).map(|i| &i.kind) {
            Some(Kind::Const { ty, expr }) => {
                let v = self.eval(expr)?;
                Ok(self.wrap(ty, v))
            }
            _ => Err(format!("unknown constant {name}")),
        }
    }

    /// Wraps `v` to the width and signedness of `ty` (an integer or an alias of one).
    pub fn wrap(&self, ty: &Type, v: i128) -> i128 {
        match self.int_of(ty) {
            Some((bits, signed)) => {
                let m = v & ((1i128 << bits) - 1);
                if signed && m >= 1i128 << (bits - 1) {
                    m - (1i128 << bits)
                } else {
                    m
                }
            }
            None => v,
        }
    }

    /// Width and signedness of an integer type, through aliases.
    pub fn int_of(&self, ty: &Type) -> Option<(u32, bool)> {
        if let Some(w) = int_width(ty) {
            return Some(w);
        }
        let n = last_ident(ty)?;
        match &self.get(&n)?.kind {
            Kind::Alias(t) => self.int_of(t),
            _ => None,
        }
    }

    pub fn eval(&self, e: &Expr) -> Result<i128, String> {
        Ok(match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(i) => i.base10_parse::<i128>().map_err(|e| e.to_string())?,
                Lit::Bool(b) => b.value as i128,
                other => return Err(format!("literal {other:?}")),
            },
            Expr::Paren(p) => self.eval(&p.expr)?,
            Expr::Group(g) => self.eval(&g.expr)?,
            Expr::Cast(c) => self.wrap(&c.ty, self.eval(&c.expr)?),
            Expr::Unary(u) => {
                let v = self.eval(&u.expr)?;
                match u.op {
                    syn::UnOp::Neg(_) => -v,
                    syn::UnOp::Not(_) => !v,
                    _ => return Err("unary operator".into()),
                }
            }
            Expr::Binary(b) => {
                let (l, r) = (self.eval(&b.left)?, self.eval(&b.right)?);
                use syn::BinOp::*;
                match b.op {
                    Add(_) => l + r,
                    Sub(_) => l - r,
                    Mul(_) => l * r,
                    Div(_) => l / r,
                    Shl(_) => l << r,
                    Shr(_) => l >> r,
                    BitOr(_) => l | r,
                    BitAnd(_) => l & r,
                    BitXor(_) => l ^ r,
                    _ => return Err("binary operator".into()),
                }
            }
            Expr::Path(p) => {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let last = segs.last().cloned().unwrap_or_default();
                if segs.len() >= 2 && (last == "MAX" || last == "MIN") {
                    let ty: Type =
                        syn::parse_str(&segs[segs.len() - 2]).map_err(|e| e.to_string())?;
                    let (bits, signed) = self.int_of(&ty).ok_or("MAX of a non-integer")?;
                    return Ok(match (last.as_str(), signed) {
                        ("MAX", true) => (1i128 << (bits - 1)) - 1,
                        ("MAX", false) => (1i128 << bits) - 1,
                        ("MIN", true) => -(1i128 << (bits - 1)),
                        _ => 0,
                    });
                }
                self.eval_const(&last)?
            }
            other => return Err(format!("cannot evaluate {}", quote_expr(other))),
        })
    }
}

fn quote_expr(e: &Expr) -> String {
    format!("{:?}", e).chars().take(120).collect()
}

/// The last path segment of a path type.
pub fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Group(g) => last_ident(&g.elem),
        Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

/// Width and signedness of a primitive integer type.
pub fn int_width(ty: &Type) -> Option<(u32, bool)> {
    Some(match last_ident(ty)?.as_str() {
        "u8" | "c_uchar" => (8, false),
        "i8" | "c_char" | "c_schar" => (8, true),
        "u16" | "c_ushort" => (16, false),
        "i16" | "c_short" => (16, true),
        "u32" | "c_uint" => (32, false),
        "i32" | "c_int" => (32, true),
        "u64" | "c_ulong" | "c_ulonglong" | "usize" | "size_t" => (64, false),
        "i64" | "c_long" | "c_longlong" | "isize" | "ssize_t" => (64, true),
        _ => return None,
    })
}
