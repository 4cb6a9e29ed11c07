#!/usr/bin/env python3
"""Layout probe for the C mirrors in libibverbs-rs/src/abi/{verbs,driver}.rs.

  gen.py probe            writes layout_probe.c and driver_probe.c: C programs
                          that print, from the real C headers, the size and
                          alignment of every struct/union the Rust files define,
                          the offset of every field, the value of every
                          constant and the size/signedness of every enum type.
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
# Pointer-valued constants: checked in C only (Rust cannot compare pointers
# in const context); the probe prints them for the record.
POINTER_CONSTS = {"__VERBS_ABI_IS_EXTENDED", "IBV_ALLOCATOR_USE_DEFAULT"}
INT_TYPES = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "c_int", "c_uint", "usize"}


def parse(path):
    """Returns (types, consts, enums) in file order."""
    types, consts, enums = [], [], []
    cur = None
    for line in open(path):
        m = re.match(r"^pub (struct|union) (\w+) \{", line)
        if m:
            cur = (m.group(1), m.group(2), [])
            continue
        if cur is not None:
            if line.startswith("}"):
                types.append(cur)
                cur = None
                continue
            f = re.match(r"^    pub (\w+):", line)
            if f:
                cur[2].append(f.group(1))
            continue
        m = re.match(r"^pub const (\w+):", line)
        if m:
            consts.append(m.group(1))
            continue
        m = re.match(r"^pub type (\w+) = (\w+);", line)
        if m and m.group(2) in INT_TYPES:
            enums.append(m.group(1))
    return types, consts, enums


def c_field(rtype, rfield):
    return ANON_MEMBERS.get((rtype, rfield), KEYWORD_FIELDS.get(rfield, rfield))


PROLOGUE = """\
/* Generated by gen.py from libibverbs-rs/src/abi/%(name)s.rs: prints the C
 * layout of every type the Rust file mirrors. Regenerate with gen.py; build
 * and run with run.sh. */
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
#define C(name) printf("C %%s %%lld\\n", #name, (long long)(name))
#define P(name) printf("P %%s %%llu\\n", #name, (unsigned long long)(uintptr_t)(name))
#define E(name) \\
	printf("E %%s %%zu %%d\\n", #name, sizeof(enum name), (enum name)-1 < 0)

int main(void)
{
"""


def gen_probe(name, includes):
    types, consts, enums = parse(FILES[name])
    out = [PROLOGUE % {"name": name, "includes": "\n".join("#include <%s>" % i for i in includes)}]
    for kind, rtype, fields in types:
        if rtype in SKIP_TYPES:
            continue
        if rtype in ANON_UNIONS:
            outer = ANON_UNIONS[rtype]
            first = fields[0]
            for f in fields:
                out.append('\tM("%s", "%s", %s, %s, %s);\n' % (rtype, f, outer, first, f))
            continue
        ctype = C_TYPE.get(rtype, "%s %s" % (kind, rtype))
        out.append('\tS("%s", %s, %s);\n' % (rtype, ctype, SIZE_EXPR.get(rtype, "sizeof(%s)" % ctype)))
        for f in fields:
            out.append('\tF("%s", "%s", %s, %s);\n' % (rtype, f, ctype, c_field(rtype, f)))
    for c in consts:
        out.append("\t%s(%s);\n" % ("P" if c in POINTER_CONSTS else "C", c))
    for e in enums:
        out.append("\tE(%s);\n" % e)
    out.append("\treturn 0;\n}\n")
    with open(os.path.join(HERE, "%s_probe.c" % ("layout" if name == "verbs" else name)), "w") as fh:
        fh.write("".join(out))


def gen_asserts(outputs):
    sizes, fields, consts, enums, members = {}, {}, {}, {}, {}
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
            block.append(
                "const _: () = assert!(core::mem::size_of::<%s>() == %d && (%s::MIN != 0) == %s);\n"
                % (e, size, e, "true" if signed else "false"))
        block.append("// END LAYOUT ASSERTIONS\n")
        src = open(path).read()
        a = src.index("// BEGIN LAYOUT ASSERTIONS")
        b = src.index("// END LAYOUT ASSERTIONS\n") + len("// END LAYOUT ASSERTIONS\n")
        with open(path, "w") as fh:
            fh.write(src[:a] + "".join(block) + src[b:])


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        gen_probe("verbs", ["infiniband/verbs.h", "infiniband/sa.h", "rdma/ib_user_sa.h"])
        gen_probe("driver", ["infiniband/driver.h"])
    elif sys.argv[1:2] == ["assert"]:
        gen_asserts(sys.argv[2:])
    else:
        sys.exit(__doc__)
