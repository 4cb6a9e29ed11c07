#!/usr/bin/env python3
"""Layout probe for the C mirrors in libibverbs-rs/src/abi/{verbs,driver}.rs.

  gen.py probe            writes layout_probe.c and driver_probe.c: C programs
                          that print, from the real C headers, the size and
                          alignment of every struct/union the Rust files define,
                          the offset of every field, the value of every
                          constant and the size/signedness of every enum type,
                          and that only compile if every C field has the type
                          (including function signatures) the Rust field has.
  gen.py assert OUT...    reads the probes' output and rewrites the block
                          between the BEGIN/END LAYOUT ASSERTIONS markers of
                          verbs.rs and driver.rs with compile-time assertions.

The field and constant lists come from the Rust sources, so a Rust name that
does not exist in C fails to compile in the probe, and a C field missing in
Rust shows up as a size or offset mismatch. run.sh does the whole round trip.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ABI = os.path.join(HERE, "..", "..", "libibverbs-rs", "src", "abi")
FILES = {"verbs": os.path.join(ABI, "verbs.rs"), "driver": os.path.join(ABI, "driver.rs")}

# Rust field names that differ from C: keywords (rule 3 of verbs.rs).
KEYWORD_FIELDS = {"type_": "type", "priv_": "priv", "match_": "match"}

# Rust names chosen for C's unnamed members (rule 2 of verbs.rs): the C member
# whose offset is the union's offset.
ANON_MEMBERS = {
    ("ibv_wc", "imm"): "imm_data",
    ("ibv_send_wr", "imm"): "imm_data",
    ("ibv_send_wr", "op"): "bind_mw",
    ("ibv_flow_spec", "u"): "hdr",
    ("verbs_qp", "base"): "qp",
    ("verbs_cq", "base"): "cq",
}

# Rust types for C's unnamed unions: C cannot name them, so they are measured
# through their members as seen from the enclosing C type.
ANON_UNIONS = {
    "ibv_wc_imm": "struct ibv_wc",
    "ibv_send_wr_imm": "struct ibv_send_wr",
    "ibv_send_wr_op": "struct ibv_send_wr",
    "ibv_flow_spec_u": "struct ibv_flow_spec",
    "verbs_qp_base": "struct verbs_qp",
    "verbs_cq_base": "struct verbs_cq",
}


def member_type(outer, path):
    return "__typeof__(((%s *)0)->%s)" % (outer, path)


# Rust types for C's anonymous types that sit in a named member (rule 1).
C_TYPE = {
    "ibv_gid_global": member_type("union ibv_gid", "global"),
    "ibv_odp_caps_per_transport_caps": member_type("struct ibv_odp_caps", "per_transport_caps"),
    "ibv_async_event_element": member_type("struct ibv_async_event", "element"),
    "ibv_send_wr_wr": member_type("struct ibv_send_wr", "wr"),
    "ibv_send_wr_wr_rdma": member_type("struct ibv_send_wr", "wr.rdma"),
    "ibv_send_wr_wr_atomic": member_type("struct ibv_send_wr", "wr.atomic"),
    "ibv_send_wr_wr_ud": member_type("struct ibv_send_wr", "wr.ud"),
    "ibv_send_wr_qp_type": member_type("struct ibv_send_wr", "qp_type"),
    "ibv_send_wr_qp_type_xrc": member_type("struct ibv_send_wr", "qp_type.xrc"),
    "ibv_send_wr_op_bind_mw": member_type("struct ibv_send_wr", "bind_mw"),
    "ibv_send_wr_op_tso": member_type("struct ibv_send_wr", "tso"),
    "ibv_ops_wr_tm": member_type("struct ibv_ops_wr", "tm"),
    "ibv_ops_wr_tm_add": member_type("struct ibv_ops_wr", "tm.add"),
    "ibv_flow_spec_u_hdr": member_type("struct ibv_flow_spec", "hdr"),
    "verbs_match_ent_u": member_type("struct verbs_match_ent", "u"),
    # Defined privately in upstream's verbs.c: ibv_port_attr without its last
    # field. Measured as that prefix of ibv_port_attr (see SIZE_EXPR).
    "_compat_ibv_port_attr": "struct ibv_port_attr",
}
SIZE_EXPR = {
    "_compat_ibv_port_attr": "offsetof(struct ibv_port_attr, port_cap_flags2)",
}

# Rust-only types (no C counterpart to measure).
SKIP_TYPES = {"verbs_ex_private"}
# Pointer-valued constants: Rust cannot compare pointers in const context, so
# they are checked by a generated unit test instead.
POINTER_CONSTS = {"__VERBS_ABI_IS_EXTENDED", "IBV_ALLOCATOR_USE_DEFAULT"}
INT_TYPES = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "c_int", "c_uint", "usize"}


def split_fields(body):
    """Splits a struct body into (name, type text) at top-level commas."""
    body = "\n".join(l for l in body.splitlines() if not l.strip().startswith("//"))
    body = body.replace("->", "\x00")  # keep '>' of arrows out of the depth count
    items, depth, cur = [], 0, ""
    for ch in body:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    out = []
    for it in items:
        it = " ".join(it.replace("\x00", "->").split())
        it = re.sub(r"([<(\[]) ", r"\1", it)
        it = re.sub(r" ([>)\]])", r"\1", it)
        it = re.sub(r",([>)\]])", r"\1", it)
        m = re.match(r"pub (\w+): (.*)$", it)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def parse(path, with_types=False):
    """Returns (types, consts, enums) in file order; with_types also returns
    the integer type aliases."""
    types, consts, enums, aliases = [], [], [], {}
    src = open(path).read()
    for m in re.finditer(r"^pub (struct|union) (\w+) \{\n(.*?)^\}", src, re.M | re.S):
        fields = split_fields(m.group(3))
        types.append((m.group(1), m.group(2), [f for f, _ in fields], dict(fields)))
    for line in src.splitlines():
        m = re.match(r"^pub const (\w+):", line)
        if m:
            consts.append(m.group(1))
            continue
        m = re.match(r"^pub type (\w+) = (\w+);", line)
        if m and m.group(2) in INT_TYPES:
            enums.append(m.group(1))
            aliases[m.group(1)] = m.group(2)
    if with_types:
        return types, consts, enums, aliases
    return [t[:3] for t in types], consts, enums


def c_field(rtype, rfield):
    return ANON_MEMBERS.get((rtype, rfield), KEYWORD_FIELDS.get(rfield, rfield))


PRIM = {
    "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
    "c_int": "int", "c_uint": "unsigned int", "c_char": "char", "c_void": "void",
    "usize": "size_t", "isize": "ssize_t", "bool": "_Bool",
    "AtomicI32": "_Atomic int",
    "pthread_mutex_t": "pthread_mutex_t", "pthread_cond_t": "pthread_cond_t",
    "timespec": "struct timespec", "dev_t": "dev_t",
}


class CType:
    """Translates a Rust field type into a C type name, so the probe can ask
    the compiler whether the C field has exactly that type."""

    def __init__(self, kinds, aliases):
        self.kinds = kinds  # Rust struct/union name -> "struct"/"union"
        self.aliases = aliases  # Rust integer alias -> its Rust integer type

    def __call__(self, t):
        t = t.strip()
        if t.startswith("Option<") and t.endswith(">"):
            return self.fn(t[len("Option<"):-1])
        if t.startswith("*mut "):
            return "__typeof__(%s) *" % self(t[5:])
        if t.startswith("*const "):
            return "const __typeof__(%s) *" % self(t[7:])
        m = re.match(r"^\[(.*); (\w+)\]$", t)
        if m:
            return "__typeof__(__typeof__(%s)[%s])" % (self(m.group(1)), m.group(2))
        t = re.sub(r"^(libc|core::ffi|core::sync::atomic)::", "", t)
        if t in PRIM:
            return PRIM[t]
        if t in self.aliases:
            return self(self.aliases[t])
        if t in C_TYPE and t not in SIZE_EXPR:
            return C_TYPE[t]
        if t in self.kinds:
            return "%s %s" % (self.kinds[t], t)
        raise SystemExit("gen.py: no C spelling for Rust type %r" % t)

    def fn(self, t):
        m = re.match(r'^unsafe extern "C" fn\((.*)\)(?: -> (.*))?$', t)
        if not m:
            raise SystemExit("gen.py: unexpected function type %r" % t)
        args = []
        depth, cur = 0, ""
        for ch in m.group(1).replace("->", "\x00"):
            if ch in "<([":
                depth += 1
            elif ch in ">)]":
                depth -= 1
            if ch == "," and depth == 0:
                args.append(cur)
                cur = ""
            else:
                cur += ch
        args.append(cur)
        args = [a.replace("\x00", "->").split(":", 1)[1] for a in args if a.strip()]
        ret = self(m.group(2)) if m.group(2) else "void"
        params = ", ".join("__typeof__(%s)" % self(a) for a in args) or "void"
        return "__typeof__(__typeof__(%s) (*)(%s))" % (ret, params)


PROLOGUE = """\
/* Generated by gen.py from libibverbs-rs/src/abi/%(name)s.rs: prints the C
 * layout of every type the Rust file mirrors and the value of every constant,
 * and compiles only if each C field has the Rust field's type. Regenerate
 * with gen.py; build and run with run.sh. */
%(includes)s
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define S(rname, ctype, size) \\
	printf("S %%s %%zu %%zu\\n", rname, (size_t)(size), (size_t)_Alignof(ctype))
#define F(rname, rfield, ctype, cfield) \\
	printf("F %%s %%s %%zu\\n", rname, rfield, (size_t)offsetof(ctype, cfield))
/* A member of a union C cannot name: its size, alignment and offset relative
 * to the union's first member. */
#define M(rname, rfield, outer, first, cfield) \\
	printf("M %%s %%s %%zu %%zu %%zu\\n", rname, rfield, \\
	       sizeof(((outer *)0)->cfield), \\
	       (size_t)_Alignof(__typeof__(((outer *)0)->cfield)), \\
	       offsetof(outer, cfield) - offsetof(outer, first))
/* The C field has exactly the type the Rust mirror declares (same integer
 * width and signedness, same pointee qualifiers, same function signature). */
#define T(what, ctype, cfield, rtype) \\
	_Static_assert(__builtin_types_compatible_p( \\
		__typeof__(((ctype *)0)->cfield), rtype), what)
#define T2(what, ctype, cfield, rtype1, rtype2) \\
	_Static_assert(__builtin_types_compatible_p( \\
		__typeof__(((ctype *)0)->cfield), rtype1) || \\
		__builtin_types_compatible_p( \\
		__typeof__(((ctype *)0)->cfield), rtype2), what)
#define C(name) printf("C %%s %%lld\\n", #name, (long long)(name))
#define P(name) printf("P %%s %%llu\\n", #name, (unsigned long long)(uintptr_t)(name))
#define E(name) \\
	printf("E %%s %%zu %%d\\n", #name, sizeof(enum name), (enum name)-1 < 0)

int main(void)
{
"""


def gen_probe(name, includes):
    types, consts, enums, aliases = parse(FILES[name], with_types=True)
    kinds = {}
    for path in FILES.values():
        for kind, rtype, _, _ in parse(path, with_types=True)[0]:
            kinds[rtype] = kind
        aliases.update(parse(path, with_types=True)[3])
    ctype_of = CType(kinds, aliases)
    out = [PROLOGUE % {"name": name, "includes": "\n".join("#include <%s>" % i for i in includes)}]
    for kind, rtype, fields, ftypes in types:
        if rtype in SKIP_TYPES:
            continue
        if rtype in ANON_UNIONS:
            outer = ANON_UNIONS[rtype]
            first = fields[0]
            for f in fields:
                out.append('\tM("%s", "%s", %s, %s, %s);\n' % (rtype, f, outer, first, f))
                out.append('\tT("%s.%s", %s, %s, %s);\n' % (rtype, f, outer, f, ctype_of(ftypes[f])))
            continue
        ctype = C_TYPE.get(rtype, "%s %s" % (kind, rtype))
        out.append('\tS("%s", %s, %s);\n' % (rtype, ctype, SIZE_EXPR.get(rtype, "sizeof(%s)" % ctype)))
        for f in fields:
            cf = c_field(rtype, f)
            out.append('\tF("%s", "%s", %s, %s);\n' % (rtype, f, ctype, cf))
            if ftypes[f] in ANON_UNIONS:
                continue
            want = ctype_of(ftypes[f])
            if want == "uint64_t":
                # __be64/__u64 are unsigned long long, uint64_t is unsigned
                # long: the same 64-bit type to the ABI, distinct to C.
                out.append('\tT2("%s.%s", %s, %s, uint64_t, __u64);\n' % (rtype, f, ctype, cf))
            else:
                out.append('\tT("%s.%s", %s, %s, %s);\n' % (rtype, f, ctype, cf, want))
    for c in consts:
        out.append("\t%s(%s);\n" % ("P" if c in POINTER_CONSTS else "C", c))
    for e in enums:
        out.append("\tE(%s);\n" % e)
    out.append("\treturn 0;\n}\n")
    with open(os.path.join(HERE, "%s_probe.c" % ("layout" if name == "verbs" else name)), "w") as fh:
        fh.write("".join(out))


def gen_asserts(outputs):
    sizes, fields, consts, enums, members, pointers = {}, {}, {}, {}, {}, {}
    for path in outputs:
        for line in open(path):
            p = line.split()
            if p[0] == "S":
                sizes[p[1]] = (int(p[2]), int(p[3]))
            elif p[0] == "F":
                fields.setdefault(p[1], []).append((p[2], int(p[3])))
            elif p[0] == "M":
                members.setdefault(p[1], []).append((p[2], int(p[3]), int(p[4]), int(p[5])))
            elif p[0] == "C":
                consts[p[1]] = int(p[2])
            elif p[0] == "P":
                pointers[p[1]] = int(p[2])
            elif p[0] == "E":
                enums[p[1]] = (int(p[2]), p[3] == "1")
    # A union's size is its largest member rounded up to its alignment.
    for rtype, ms in members.items():
        align = max(m[2] for m in ms)
        size = max(m[1] for m in ms)
        size = (size + align - 1) // align * align
        sizes[rtype] = (size, align)
        fields[rtype] = [(m[0], m[3]) for m in ms]

    for name, path in FILES.items():
        types, cnames, enames = parse(path)
        block = ["// BEGIN LAYOUT ASSERTIONS (generated by abi-tests/probe/gen.py from the C probe)\n"]
        for _, rtype, rfields in types:
            if rtype in SKIP_TYPES:
                continue
            size, align = sizes[rtype]
            got = dict(fields.get(rtype, []))
            missing = [f for f in rfields if f not in got]
            if missing:
                sys.exit("no C offsets for %s.%s" % (rtype, missing))
            block.append("crate::assert_layout!(%s, size = %d, align = %d" % (rtype, size, align))
            for f in rfields:
                block.append(",\n    %s = %d" % (f, got[f]))
            block.append(");\n")
        vals = [(c, consts[c]) for c in cnames if c not in POINTER_CONSTS]
        if vals:
            block.append("crate::assert_consts!(\n")
            for c, v in vals:
                block.append("    %s = %d,\n" % (c, v))
            block.append(");\n")
        for e in enames:
            size, signed = enums[e]
            # A signed type's MIN is negative, an unsigned type's is 0.
            block.append(
                "const _: () = assert!(core::mem::size_of::<%s>() == %d && %s::MIN %s 0);\n"
                % (e, size, e, "!=" if signed else "=="))
        ptrs = [c for c in cnames if c in POINTER_CONSTS]
        if ptrs:
            # Pointer values cannot be compared in const context: a unit test.
            block.append("#[cfg(test)]\n#[test]\nfn pointer_constants_match_c() {\n")
            for c in ptrs:
                block.append("    assert_eq!(%s as usize, %d);\n" % (c, pointers[c]))
            block.append("}\n")
        block.append("// END LAYOUT ASSERTIONS\n")
        src = open(path).read()
        a = src.index("// BEGIN LAYOUT ASSERTIONS")
        b = src.index("// END LAYOUT ASSERTIONS\n") + len("// END LAYOUT ASSERTIONS\n")
        with open(path, "w") as fh:
            fh.write(src[:a] + "".join(block) + src[b:])


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        gen_probe("verbs", ["infiniband/verbs.h", "infiniband/sa.h", "infiniband/tm_types.h", "rdma/ib_user_sa.h"])
        gen_probe("driver", ["infiniband/driver.h"])
    elif sys.argv[1:2] == ["assert"]:
        gen_asserts(sys.argv[2:])
    else:
        sys.exit(__doc__)
