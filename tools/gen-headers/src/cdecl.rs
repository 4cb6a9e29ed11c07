//! Rust types as C declarations: `decl(&ty, "name")` gives `struct ibv_mr *name`,
//! `int (*name)(struct ibv_qp *qp)`, `uint8_t name[16]` ...

use syn::{BareFnArg, ReturnType, Type};

use crate::model::{int_width, last_ident, Kind, Model};

/// Context for naming types: the model, and where a field's documentation
/// asks for a big-endian type.
pub struct Namer<'a> {
    pub model: &'a Model,
    /// Array lengths written by name when the constant is visible.
    pub visible: &'a dyn Fn(&str) -> bool,
    /// Integers as the kernel uAPI spells them (`__u32`, `__s32`).
    pub kernel: bool,
}

/// C's name for a Rust path type (no declarator).
fn base_name(n: &Namer, ty: &Type, big_endian: bool) -> Result<String, String> {
    let id = last_ident(ty).ok_or_else(|| format!("not a path type: {ty:?}"))?;
    if big_endian {
        if let Some((bits, false)) = int_width(ty) {
            if bits > 8 {
                return Ok(format!("__be{bits}"));
            }
        }
    }
    if n.kernel {
        if let Some((bits, signed)) =
            int_width(ty).filter(|_| id.starts_with(['u', 'i']) && id.len() <= 3)
        {
            return Ok(format!("__{}{bits}", if signed { 's' } else { 'u' }));
        }
    }
    // <linux/types.h>'s names, where rdma-abi uses them.
    if id.starts_with("__be") || id.starts_with("__le") {
        return Ok(id);
    }
    let prim = match id.as_str() {
        "u8" => "uint8_t",
        "u16" => "uint16_t",
        "u32" => "uint32_t",
        "u64" => "uint64_t",
        "i8" => "int8_t",
        "i16" => "int16_t",
        "i32" => "int32_t",
        "i64" => "int64_t",
        "usize" | "size_t" => "size_t",
        "isize" | "ssize_t" => "ssize_t",
        "c_int" => "int",
        "c_uint" => "unsigned int",
        "c_char" => "char",
        "c_schar" => "signed char",
        "c_uchar" => "unsigned char",
        "c_short" => "short",
        "c_ushort" => "unsigned short",
        "c_long" => "long",
        "c_ulong" => "unsigned long",
        "c_longlong" => "long long",
        "c_ulonglong" => "unsigned long long",
        "c_void" => "void",
        "bool" => "bool",
        // libc's types that C spells with `struct`, and those it does not.
        "timespec" | "timeval" | "sockaddr" | "sockaddr_in" | "sockaddr_in6"
        | "sockaddr_storage" | "msghdr" | "iovec" | "pollfd" | "epoll_event" | "addrinfo" => {
            return Ok(format!("struct {id}"))
        }
        "pthread_mutex_t" | "pthread_cond_t" | "socklen_t" | "off_t" | "nfds_t" | "fd_set"
        | "sa_family_t" | "in_port_t" | "pid_t" => return Ok(id),
        _ => "",
    };
    if !prim.is_empty() {
        return Ok(prim.to_string());
    }
    match n.model.get(&id).map(|i| &i.kind) {
        Some(Kind::Record(r)) => Ok(format!(
            "{} {id}",
            if r.is_union { "union" } else { "struct" }
        )),
        Some(Kind::Alias(_)) if n.model.is_enum(&id) => Ok(format!("enum {id}")),
        Some(Kind::Alias(t)) => base_name(n, t, big_endian),
        _ if crate::manifest::OPAQUE.iter().any(|(_, s)| *s == id) => Ok(format!("struct {id}")),
        _ => Err(format!("unknown type {id}")),
    }
}

/// An array length: the constant's name when C can see it, else its value.
fn array_len(n: &Namer, e: &syn::Expr) -> Result<String, String> {
    if let syn::Expr::Path(p) = e {
        if let Some(id) = p.path.segments.last().map(|s| s.ident.to_string()) {
            if (n.visible)(&id) {
                return Ok(id);
            }
        }
    }
    Ok(n.model.eval(e)?.to_string())
}

/// The declaration of `d` (a declarator: a name, or `*name`, ...) with type `ty`.
pub fn decl(n: &Namer, ty: &Type, d: &str, big_endian: bool) -> Result<String, String> {
    decl_q(n, ty, d, false, big_endian)
}

fn decl_q(n: &Namer, ty: &Type, d: &str, konst: bool, be: bool) -> Result<String, String> {
    match ty {
        Type::Paren(p) => decl_q(n, &p.elem, d, konst, be),
        Type::Group(g) => decl_q(n, &g.elem, d, konst, be),
        Type::Ptr(p) => {
            let inner_const = p.const_token.is_some();
            let d2 = format!("*{}{}", if konst { "const " } else { "" }, d);
            decl_q(n, &p.elem, &d2, inner_const, be)
        }
        Type::Array(a) => {
            let len = array_len(n, &a.len)?;
            let d2 = if d.starts_with('*') {
                format!("({d})[{len}]")
            } else {
                format!("{d}[{len}]")
            };
            decl_q(n, &a.elem, &d2, konst, be)
        }
        Type::BareFn(f) => {
            let args = params(n, f.inputs.iter(), f.variadic.is_some())?;
            let d2 = format!("(*{}{})({args})", if konst { "const " } else { "" }, d);
            match &f.output {
                ReturnType::Default => Ok(format!("void {d2}")),
                ReturnType::Type(_, t) => decl_q(n, t, &d2, false, false),
            }
        }
        Type::Path(p) => {
            let last = p.path.segments.last().ok_or("empty path")?;
            if last.ident == "Option" {
                // Option<fn(..)>: a nullable function pointer.
                if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                    if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                        return decl_q(n, t, d, konst, be);
                    }
                }
                return Err("Option without a type".into());
            }
            let base = base_name(n, ty, be)?;
            let sep = if d.is_empty() || d.starts_with('*') && base.ends_with('*') {
                ""
            } else {
                " "
            };
            Ok(format!(
                "{}{base}{sep}{d}",
                if konst { "const " } else { "" }
            ))
        }
        Type::Tuple(t) if t.elems.is_empty() => Ok(format!("void {d}")),
        other => Err(format!("unsupported type {other:?}")),
    }
}

/// A C parameter list.
pub fn params<'a>(
    n: &Namer,
    args: impl Iterator<Item = &'a BareFnArg>,
    variadic: bool,
) -> Result<String, String> {
    let mut out = Vec::new();
    for a in args {
        let name = a
            .name
            .as_ref()
            .map(|(i, _)| c_ident(&i.to_string()))
            .unwrap_or_default();
        let name = if name == "_" { String::new() } else { name };
        out.push(decl(n, &a.ty, &name, false)?.trim_end().to_string());
    }
    if variadic {
        out.push("...".into());
    }
    if out.is_empty() {
        out.push("void".into());
    }
    Ok(out.join(", "))
}

/// A Rust identifier as C spells it: keywords lose their escape.
pub fn c_ident(s: &str) -> String {
    let s = s.strip_prefix("r#").unwrap_or(s);
    match s.strip_suffix('_') {
        Some(k)
            if matches!(
                k,
                "type"
                    | "priv"
                    | "match"
                    | "ref"
                    | "mod"
                    | "fn"
                    | "impl"
                    | "loop"
                    | "move"
                    | "self"
                    | "use"
                    | "where"
                    | "in"
                    | "box"
                    | "final"
                    | "override"
                    | "macro"
                    | "crate"
                    | "struct"
                    | "enum"
                    | "union"
                    | "const"
                    | "static"
                    | "mut"
                    | "as"
                    | "dyn"
                    | "async"
                    | "await"
                    | "trait"
                    | "pub"
                    | "let"
                    | "yield"
            ) =>
        {
            k.to_string()
        }
        _ => s.to_string(),
    }
}
