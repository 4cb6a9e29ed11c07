#!/usr/bin/env python3
"""Layout probes for the C mirrors of rdma-abi, and the layout files they feed.

  gen.py probe [NAME...]    writes the probes of MIRRORS (all, or those
                            named: layout_probe.c, driver_probe.c, ...): C
                            programs that print, from the real C headers, the
                            size and alignment of every struct/union the Rust
                            mirror files (MIRRORS) define, the offset of every
                            field, the value of every constant and the
                            size/signedness of every enum type, and that only
                            compile if every C field has the type (including
                            function signatures) the Rust field has.
  gen.py assert NAME OUT    reads that probe's output for the mirror NAME of
                            MIRRORS and writes its layout file under
                            rdma-abi/src/layout/ (compile-time assertions).
  gen.py records NAME OUT   the same for the hand-written probes (RECORDS:
                            kern_abi.c, ucma_abi.c, cma_abi.c), whose output
                            lists the facts to assert in order.

The field and constant lists of MIRRORS come from the Rust sources, so a Rust
name that does not exist in C fails to compile in the probe, and a C field
missing in Rust shows up as a size or offset mismatch. A mirror that
re-exports another (`pub use crate::verbs::*;` in verbs_v65.rs) is measured
as everything it provides: the re-exported types and constants that it does
not redefine, then its own; so a type it re-uses must still have the same
layout in its release's headers. run.sh, run-65.sh and run-rdmacm.sh do the
whole round trip. Every layout file is written whole; none of them is edited
by hand.

The probes print one fact a line:
  S TYPE SIZE ALIGN         size and alignment of TYPE
  F TYPE FIELD OFFSET       offset of a field of the latest S of TYPE
  M TYPE FIELD SIZE ALIGN OFFSET
                            a member of a union C cannot name (gen.py probe);
                            a flexible array member has size 0
  Z TYPE SIZE               size alone (TYPE may be generic: ucma_cmd<..>)
  E ENUM SIZE SIGNED        size and signedness of a C enum type
  C NAME VALUE              value of a constant
  P NAME VALUE              value of a pointer constant (a unit test)
  Q NAME TEXT               text of a string constant
  # TEXT                    a comment for the layout file
  pub ...                   a Rust definition the mirror must hold verbatim
                            (kern_abi.c's constants and enum aliases)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
ABI = "rdma-abi/src"
LAYOUT = ABI + "/layout"

# The mirrors gen.py writes a probe for: name -> (Rust mirror file, probe,
# headers the probe includes). The layout file of each is LAYOUT/<mirror
# file>: rdma-abi/src/driver/pabi34_v44.rs gets
# rdma-abi/src/layout/driver/pabi34_v44.rs. A further release's layout is one
# more entry here, with a probe of its own compiled against that release's
# source, as rdma-core 65's verbs.h and driver.h are (run-65.sh).
MIRRORS = {
    "verbs": (ABI + "/verbs.rs", "layout_probe.c",
              ["infiniband/verbs.h", "infiniband/sa.h", "infiniband/tm_types.h", "rdma/ib_user_sa.h"]),
    "driver": (ABI + "/driver/pabi34_v44.rs", "driver_probe.c", ["infiniband/driver.h"]),
    "verbs_v65": (ABI + "/verbs_v65.rs", "layout_probe_v65.c",
                  ["infiniband/verbs.h", "infiniband/sa.h", "infiniband/tm_types.h", "rdma/ib_user_sa.h"]),
    "driver_pabi65": (ABI + "/driver/pabi65.rs", "driver_probe_pabi65.c", ["infiniband/driver.h"]),
    "cma_abi": (ABI + "/cma_abi.rs", "cma_abi_probe_v65.c", ["rdma/rdma_cma_abi.h"]),
    "opcode": (ABI + "/opcode.rs", "opcode_probe_v65.c", ["infiniband/opcode.h"]),
    "rsocket": (ABI + "/rsocket.rs", "rsocket_probe_v65.c", ["rdma/rsocket.h"]),
    "rxe": (ABI + "/rxe.rs", "rxe_probe_uapi.c", ["rdma/rdma_user_rxe.h"]),
    "siw": (ABI + "/siw.rs", "siw_probe_uapi.c", ["rdma/siw-abi.h"]),
}
FILES = {name: os.path.join(ROOT, m[0]) for name, m in MIRRORS.items()}
# The script that compiles each probe against its release's headers (the
# layout file names it); run.sh unless listed.
SCRIPTS = {"verbs_v65": "run-65.sh", "driver_pabi65": "run-65.sh", "cma_abi": "run-65.sh",
           "opcode": "run-65.sh", "rsocket": "run-65.sh",
           "rxe": "run-uapi.sh", "siw": "run-uapi.sh"}

# The mirrors whose hand-written probe prints the facts in order: name ->
# (Rust mirror file, probe, the script that runs it).
RECORDS = {
    "kern": (ABI + "/kern.rs", "kern_abi.c", "run.sh"),
    "ucma": (ABI + "/ucma.rs", "ucma_abi.c", "run-rdmacm.sh"),
    "cma": (ABI + "/cma.rs", "cma_abi.c", "run-rdmacm.sh"),
}

# Rust field names that differ from C: keywords (rule 3 of verbs.rs).
KEYWORD_FIELDS = {"type_": "type", "priv_": "priv", "match_": "match", "in_": "in"}

# Rust names chosen for C's unnamed members (rule 2 of verbs.rs): the C member
# whose offset is the union's offset.
ANON_MEMBERS = {
    ("ibv_wc", "imm"): "imm_data",
    ("ibv_send_wr", "imm"): "imm_data",
    ("ibv_send_wr", "op"): "bind_mw",
    ("ibv_flow_spec", "u"): "hdr",
    ("verbs_qp", "base"): "qp",
    ("verbs_cq", "base"): "cq",
    ("verbs_create_cq_prov_attr_buffer", "mem"): "ptr",
    ("rxe_dma_info", "data"): "inline_data",
    ("siw_sqe", "addr"): "raddr",
    ("siw_sqe", "sgl"): "sge",
    ("siw_cqe", "imm"): "imm_data",
    ("siw_cqe", "qp"): "base_qp",
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
    "rxe_dma_info_data": "struct rxe_dma_info",
    "siw_sqe_addr": "struct siw_sqe",
    "siw_sqe_sgl": "struct siw_sqe",
    "siw_cqe_imm": "struct siw_cqe",
    "siw_cqe_qp": "struct siw_cqe",
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
    "verbs_create_cq_prov_attr_buffer": member_type("struct verbs_create_cq_prov_attr", "buffer"),
    "verbs_create_cq_prov_attr_buffer_mem_dmabuf":
        member_type("struct verbs_create_cq_prov_attr", "buffer.dmabuf"),
    "ucma_abi_event_resp_param": member_type("struct ucma_abi_event_resp", "param"),
    "ucma_abi_write_cm_event_param": member_type("struct ucma_abi_write_cm_event", "param"),
    "rxe_gid_global": member_type("union rxe_gid", "global"),
    # One anonymous union declares both members; Rust aliases the second.
    "rxe_av_sgid_addr": member_type("struct rxe_av", "sgid_addr"),
    "rxe_av_dgid_addr": member_type("struct rxe_av", "dgid_addr"),
    "rxe_send_wr_ex": member_type("struct rxe_send_wr", "ex"),
    "rxe_send_wr_wr": member_type("struct rxe_send_wr", "wr"),
    "rxe_send_wr_wr_rdma": member_type("struct rxe_send_wr", "wr.rdma"),
    "rxe_send_wr_wr_atomic": member_type("struct rxe_send_wr", "wr.atomic"),
    "rxe_send_wr_wr_ud": member_type("struct rxe_send_wr", "wr.ud"),
    "rxe_send_wr_wr_mw": member_type("struct rxe_send_wr", "wr.mw"),
}
# An unnamed union inside an anonymous struct: measured from that struct.
ANON_UNIONS["verbs_create_cq_prov_attr_buffer_mem"] = C_TYPE["verbs_create_cq_prov_attr_buffer"]
SIZE_EXPR = {
    "_compat_ibv_port_attr": "offsetof(struct ibv_port_attr, port_cap_flags2)",
}

# Rust-only types (no C counterpart to measure).
# siw.rs's ib_qp stands for the kernel's QP object, which is incomplete in C;
# driver/pabi65.rs's ibv_dmabuf_heap is the heap handle dmabuf_heap.h only
# declares.
SKIP_TYPES = {"verbs_ex_private", "ib_qp", "ibv_dmabuf_heap"}
# Pointer-valued constants: Rust cannot compare pointers in const context, so
# they are checked by a generated unit test instead.
POINTER_CONSTS = {"__VERBS_ABI_IS_EXTENDED", "IBV_ALLOCATOR_USE_DEFAULT"}
# String constants (&str in Rust): their text is printed and compared at
# compile time.
STRING_CONSTS = {"SIW_NODE_DESC_COMMON"}
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
        # <linux/types.h>'s names (__be64) are typedefs, not enums.
        if m and m.group(2) in INT_TYPES and not m.group(1).startswith("__"):
            enums.append(m.group(1))
            aliases[m.group(1)] = m.group(2)
    if with_types:
        return types, consts, enums, aliases
    return [t[:3] for t in types], consts, enums


def reexports(path):
    """The Rust files whose items the mirror at path re-exports whole
    (`pub use crate::a::b::*;` or `pub use super::b::*;`), in file order."""
    out = []
    src = open(path).read()
    for m in re.finditer(r"^pub use (crate|super)::([\w:]+)::\*;", src, re.M):
        base = os.path.join(ROOT, ABI) if m.group(1) == "crate" else os.path.dirname(path)
        out.append(os.path.join(base, *m.group(2).split("::")) + ".rs")
    return out


def provided(path):
    """What the mirror at path provides, as parse(path, with_types=True)
    gives it, plus the reused items: first those of each re-exported file
    that path does not redefine (in that file's order), then path's own.
    Also returns where each file's types start: [(index, file)]."""
    types, consts, enums, aliases = parse(path, with_types=True)
    own = set(t[1] for t in types) | set(consts) | set(enums)
    rtypes, rconsts, renums, starts = [], [], [], []
    for base in reexports(path):
        btypes, bconsts, benums, baliases = provided(base)[:4]
        starts.append((len(rtypes), base))
        rtypes += [t for t in btypes if t[1] not in own]
        rconsts += [c for c in bconsts if c not in own]
        renums += [e for e in benums if e not in own]
        aliases = dict(baliases, **aliases)
    if starts:
        starts.append((len(rtypes), path))
    return rtypes + types, rconsts + consts, renums + enums, aliases, starts


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
    "sockaddr_in": "struct sockaddr_in", "sockaddr_in6": "struct sockaddr_in6", "sockaddr_storage": "struct sockaddr_storage",
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
        m = re.match(r"^\[(.*); (\w+)(?: as usize)?\]$", t)
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
/* Generated by gen.py from %(name)s: prints the C
 * layout of every type the Rust file mirrors and the value of every constant,
 * and compiles only if each C field has the Rust field's type. Regenerate
 * with gen.py; build and run with %(script)s. */
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
/* The same for a flexible array member, which sizeof cannot measure: size
 * 0, the alignment of its elements. */
#define MF(rname, rfield, outer, first, cfield) \\
	printf("M %%s %%s 0 %%zu %%zu\\n", rname, rfield, \\
	       (size_t)_Alignof(__typeof__(((outer *)0)->cfield[0])), \\
	       offsetof(outer, cfield) - offsetof(outer, first))
#define C(name) printf("C %%s %%lld\\n", #name, (long long)(name))
#define P(name) printf("P %%s %%llu\\n", #name, (unsigned long long)(uintptr_t)(name))
#define Q(name) printf("Q %%s %%s\\n", #name, name)
#define E(name) \\
	printf("E %%s %%zu %%d\\n", #name, sizeof(enum name), (enum name)-1 < 0)

int main(void)
{
"""


def type_check(rtype, f, ctype, cf, want):
    """The probe line that requires C's field cf of ctype to have type want."""
    if want == "uint64_t" or re.match(r"__typeof__\(__typeof__\(uint64_t\)\[\w+\]\)$", want):
        # __be64/__u64 are unsigned long long, uint64_t is unsigned
        # long: the same 64-bit type to the ABI, distinct to C
        # (arrays of them too).
        return '\tT2("%s.%s", %s, %s, %s, %s);\n' % (rtype, f, ctype, cf, want, want.replace("uint64_t", "__u64"))
    return '\tT("%s.%s", %s, %s, %s);\n' % (rtype, f, ctype, cf, want)


def gen_probe(name):
    includes = MIRRORS[name][2]
    types, consts, enums, aliases = provided(FILES[name])[:4]
    kinds = {}
    for path in list(FILES.values()) + [os.path.join(ROOT, r[0]) for r in RECORDS.values()]:
        for kind, rtype, _, _ in parse(path, with_types=True)[0]:
            kinds[rtype] = kind
        aliases.update(parse(path, with_types=True)[3])
    ctype_of = CType(kinds, aliases)
    out = [PROLOGUE % {"name": MIRRORS[name][0], "script": SCRIPTS.get(name, "run.sh"), "includes": "\n".join("#include <%s>" % i for i in includes)}]
    for kind, rtype, fields, ftypes in types:
        if rtype in SKIP_TYPES:
            continue
        if rtype in ANON_UNIONS:
            outer = ANON_UNIONS[rtype]
            first = fields[0]
            for f in fields:
                macro = "MF" if re.match(r"^\[.*; 0\]$", ftypes[f]) else "M"
                out.append('\t%s("%s", "%s", %s, %s, %s);\n' % (macro, rtype, f, outer, first, f))
                out.append(type_check(rtype, f, outer, f, ctype_of(ftypes[f])))
            continue
        ctype = C_TYPE.get(rtype, "%s %s" % (kind, rtype))
        out.append('\tS("%s", %s, %s);\n' % (rtype, ctype, SIZE_EXPR.get(rtype, "sizeof(%s)" % ctype)))
        for f in fields:
            cf = c_field(rtype, f)
            out.append('\tF("%s", "%s", %s, %s);\n' % (rtype, f, ctype, cf))
            if ftypes[f] in ANON_UNIONS:
                continue
            out.append(type_check(rtype, f, ctype, cf, ctype_of(ftypes[f])))
    for c in consts:
        out.append("\t%s(%s);\n" % ("P" if c in POINTER_CONSTS else "Q" if c in STRING_CONSTS else "C", c))
    for e in enums:
        out.append("\tE(%s);\n" % e)
    out.append("\treturn 0;\n}\n")
    with open(os.path.join(HERE, MIRRORS[name][1]), "w") as fh:
        fh.write("".join(out))


def read_facts(path):
    """The probe's output lines, split into words ("pub" lines kept whole)."""
    facts = []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("pub "):
            facts.append(("pub", line))
        elif line.startswith("# "):
            facts.append(("#", line[2:]))
        elif line.strip():
            facts.append(tuple(line.split()))
    return facts


def render(mirror, probe, script, items, consts, pointers=(), strings=()):
    """The text of a layout file. items: ("layout", TYPE, SIZE, ALIGN,
    [(FIELD, OFFSET)]), ("size", TYPE, SIZE), ("enum", TYPE, SIZE, SIGNED)
    or ("comment", TEXT), in file order; consts: [(NAME, VALUE)];
    pointers: [(NAME, VALUE)], checked by a unit test; strings: [(NAME,
    TEXT)]."""
    module = mirror[len(ABI) + 1:-len(".rs")].replace("/", "::")
    out = [
        "//! The layout of `%s` as the C headers give it: every number below\n" % mirror,
        "//! was printed by `abi-tests/probe/%s`.\n" % probe,
        "//!\n",
        "//! Generated by `abi-tests/probe/gen.py` (run `abi-tests/probe/%s`);\n" % script,
        "//! do not edit.\n",
        "\n",
        "use crate::%s::*;\n\n" % module,
    ]
    for it in items:
        if it[0] == "comment":
            out.append("// %s\n" % it[1])
        elif it[0] == "layout":
            _, ty, size, align, fields = it
            out.append("crate::assert_layout!(%s, size = %d, align = %d" % (ty, size, align))
            out.extend(",\n    %s = %d" % f for f in fields)
            out.append(");\n")
        elif it[0] == "size":
            out.append("crate::assert_layout!(%s, size = %d);\n" % (it[1], it[2]))
        elif it[0] == "enum":
            out.append("crate::assert_layout!(%s, size = %d, signed = %s);\n"
                       % (it[1], it[2], "true" if it[3] else "false"))
    if consts:
        out.append("crate::assert_consts!(\n")
        out.extend("    %s = %d,\n" % c for c in consts)
        out.append(");\n")
    for name, text in strings:
        out.append("crate::assert_str!(%s = \"%s\");\n"
                   % (name, text.replace("\\", "\\\\").replace('"', '\\"')))
    if pointers:
        # Pointer values cannot be compared in const context: a unit test.
        out.append("\n#[cfg(test)]\n#[test]\nfn pointer_constants_match_c() {\n")
        out.extend("    assert_eq!(%s as usize, %d);\n" % p for p in pointers)
        out.append("}\n")
    return "".join(out)


def write_layout(mirror, text):
    path = os.path.join(ROOT, LAYOUT, mirror[len(ABI) + 1:])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    print("wrote %s" % os.path.relpath(path, ROOT))


def gen_asserts(name, output):
    """The layout file of MIRRORS[name], in the order of the Rust file."""
    sizes, fields, consts, enums, members, pointers, strings = {}, {}, {}, {}, {}, {}, {}
    for p in read_facts(output):
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
        elif p[0] == "Q":
            strings[p[1]] = " ".join(p[2:])
        elif p[0] == "E":
            enums[p[1]] = (int(p[2]), p[3] == "1")
        else:
            sys.exit("gen.py: unexpected line in %s: %r" % (output, p))
    # A union's size is its largest member rounded up to its alignment.
    for rtype, ms in members.items():
        align = max(m[2] for m in ms)
        size = max(m[1] for m in ms)
        size = (size + align - 1) // align * align
        sizes[rtype] = (size, align)
        fields[rtype] = [(m[0], m[3]) for m in ms]

    types, cnames, enames, _, starts = provided(FILES[name])
    starts = dict(starts)
    items = []
    for i, (_, rtype, rfields, _) in enumerate(types):
        if i in starts:
            rel = os.path.relpath(starts[i], ROOT)
            items.append(("comment", "Types defined by %s." % rel if rel == MIRRORS[name][0] else
                          "Types re-exported unchanged from %s, measured against this release's headers." % rel))
        if rtype in SKIP_TYPES:
            continue
        size, align = sizes[rtype]
        got = dict(fields.get(rtype, []))
        missing = [f for f in rfields if f not in got]
        if missing:
            sys.exit("no C offsets for %s.%s" % (rtype, missing))
        items.append(("layout", rtype, size, align, [(f, got[f]) for f in rfields]))
    for e in enames:
        items.append(("enum", e) + enums[e])
    mirror, probe, _ = MIRRORS[name]
    write_layout(mirror, render(
        mirror, probe, SCRIPTS.get(name, "run.sh"), items,
        [(c, consts[c]) for c in cnames if c not in POINTER_CONSTS | STRING_CONSTS],
        [(c, pointers[c]) for c in cnames if c in POINTER_CONSTS],
        [(c, strings[c]) for c in cnames if c in STRING_CONSTS]))


def gen_records(name, output):
    """The layout file of RECORDS[name], in the order of the probe's output.
    Its "pub" lines must stand verbatim in the Rust mirror."""
    mirror, probe, script = RECORDS[name]
    src = open(os.path.join(ROOT, mirror)).read()
    defined = set(" ".join(l.split()) for l in re.findall(r"^pub (?:const|type) [^;]*;", src, re.M | re.S))
    items, consts, last, wrong = [], [], {}, []
    for p in read_facts(output):
        if p[0] == "pub":
            if " ".join(p[1].split()) not in defined:
                wrong.append(p[1])
        elif p[0] == "#":
            items.append(("comment", p[1]))
        elif p[0] == "S":
            last[p[1]] = ("layout", p[1], int(p[2]), int(p[3]), [])
            items.append(last[p[1]])
        elif p[0] == "F":
            last[p[1]][4].append((p[2], int(p[3])))
        elif p[0] == "Z":
            items.append(("size", p[1], int(p[2])))
        elif p[0] == "C":
            consts.append((p[1], int(p[2])))
        else:
            sys.exit("gen.py: unexpected line in %s: %r" % (output, p))
    if wrong:
        sys.exit("gen.py: %s lacks these definitions %s prints:\n  %s"
                 % (mirror, probe, "\n  ".join(wrong)))
    write_layout(mirror, render(mirror, probe, script, items, consts))


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        for name in sys.argv[2:] or MIRRORS:
            gen_probe(name)
    elif sys.argv[1:2] == ["assert"] and len(sys.argv) == 4 and sys.argv[2] in MIRRORS:
        gen_asserts(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["records"] and len(sys.argv) == 4 and sys.argv[2] in RECORDS:
        gen_records(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
