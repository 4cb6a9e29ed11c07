#!/usr/bin/env python3
"""Writes docs/compatibility.md: every symbol that the libibverbs.so.1 and
librdmacm.so.1 of the distributions we serve export (Debian 12, Debian 13,
sid), which of them exports it, whether ours exports it the same way, and how
it is tested.

Usage: tools/compat-matrix.py [OURS_DIR] > docs/compatibility.md
(OURS_DIR defaults to target/release; Debian 12's libraries are read from
/usr/lib/x86_64-linux-gnu, Debian 13's and sid's from the root filesystems of
abi-tests/vm/build-userland, ~/.cache/rdma-core-rs/userland/{trixie,sid}.)
The "tested how" column comes from docs/compat-tests.tsv (symbol<TAB>how);
symbols without an entry there are reported as untested.
"""
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ours_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target/release")
libdir = "usr/lib/x86_64-linux-gnu"
userlands = os.environ.get("RDMA_USERLAND_CACHE") or os.path.expanduser("~/.cache/rdma-core-rs/userland")
# (column title, directory of its libraries)
DISTROS = [
    ("Debian 12 (44)", "/" + libdir),
    ("Debian 13 (56.1)", os.path.join(userlands, "trixie", libdir)),
    ("sid (65.0)", os.path.join(userlands, "sid", libdir)),
]
# Version nodes not exported yet: reported as "pending", not missing.
PENDING = {
    "libibverbs.so.1": ("IBVERBS_1.15", "IBVERBS_1.16", "IBVERBS_1.17", "IBVERBS_1.18"),
}


def symbols(path):
    out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 6 or "*UND*" in line or "*ABS*" in line:
            continue
        name, ver = f[-1], f[-2]
        if not ver.strip("()").startswith(("IBVERBS", "RDMACM")):
            continue
        kind = "data" if " DO " in line else "function"
        default = not ver.startswith("(")
        syms[(name, ver.strip("()"))] = (kind, default)
    return syms


def tested():
    notes = {}
    path = os.path.join(root, "docs/compat-tests.tsv")
    if os.path.exists(path):
        for line in open(path):
            if line.strip() and not line.startswith("#"):
                name, how = line.rstrip("\n").split("\t", 1)
                notes[name] = how
    return notes


def natural(v):
    return [int(t) if t.isdigit() else t for t in __import__("re").split(r"(\d+)", v)]


def default_elsewhere(our, name, ver, t, o):
    """Theirs name@@ver is ours name@ver because ours has the name's default
    at another (newer) version: a name has one default version."""
    return t[0] == o[0] and t[1] and not o[1] and any(
        d for (n, v), (_, d) in our.items() if n == name and v != ver)


def section(soname, notes):
    dists = [(title, symbols(os.path.join(d, soname))) for title, d in DISTROS]
    our = symbols(os.path.join(ours_dir, soname))
    keys = set()
    for _, d in dists:
        keys |= set(d)
    rows = []
    counts = {title: [0, 0, 0] for title, _ in dists}  # same, pending, other
    for name, ver in sorted(keys, key=lambda k: (natural(k[1]), k[0])):
        theirs = [d.get((name, ver)) for _, d in dists]
        first = next(t for t in theirs if t)
        kind, default = first
        o = our.get((name, ver))
        if o is None:
            status = "pending" if ver in PENDING.get(soname, ()) else "missing"
        elif any(t and t != o and not default_elsewhere(our, name, ver, t, o) for t in theirs):
            status = "MISMATCH"
        else:
            status = "implemented"
        for (title, _), t in zip(dists, theirs):
            if t:
                counts[title][0 if status == "implemented" else 1 if status == "pending" else 2] += 1
        at = ("@@" if default else "@") + ver
        cols = " | ".join("yes" if t else "-" for t in theirs)
        how = notes.get(f"{name}@{ver}", notes.get(name, "")) if status == "implemented" else ""
        rows.append(f"| `{name}` | {at} | {kind} | {cols} | {status} | {how or ('not yet tested' if status == 'implemented' else '')} |")
    extra = sorted(set(our) - keys)
    print(f"## {soname}\n")
    for title, (same, pend, other) in counts.items():
        line = f"- {title}: {same} of {same + pend + other} versioned symbols exported as it does"
        if pend:
            line += f"; {pend} pending (version nodes {', '.join(PENDING[soname])})"
        if other:
            line += f"; {other} missing or mismatched"
        print(line + ".")
    print(f"- Exported by ours and by none of them: {len(extra)}.\n")
    print("| symbol | version | type | " + " | ".join(t for t, _ in dists) + " | ours | tested how |")
    print("|---|---|---|" + "---|" * len(dists) + "---|---|")
    print("\n".join(rows))
    if extra:
        print("\nExtra symbols (in none of the distributions' libraries):\n")
        for name, ver in extra:
            print(f"- `{name}` {ver}")
    print()


notes = tested()
print("# Compatibility matrix\n")
print("Generated by `tools/compat-matrix.py` from `objdump -T` of ours and of the libraries of")
print("every distribution we serve: Debian 12 (rdma-core 44), Debian 13 (56.1) and sid (65.0),")
print("one column each (\"yes\": that distribution's library exports the symbol at that version).")
print("One build of ours serves all three; a symbol only some of them have is expected there.")
print("A name has only one default version: the private names that Debian 12 and 13 export as")
print("`name@@IBVERBS_PRIVATE_34` are ours `name@IBVERBS_PRIVATE_34` beside `name@@IBVERBS_PRIVATE_65`,")
print("the same function for a provider's versioned reference; they count as exported as it does.")
print("The test notes are those of `docs/compat-tests.tsv`. Regenerate after a release build.")
print("\"VM: imported by TOOL\" means an upstream tool that links the symbol runs in the")
print("Soft-RoCE VM scenarios with our libraries in all pairings; the scenario names are in")
print("`abi-tests/scenarios/vm.sh`. \"All four pairings\" is the full tier")
print("(`abi-tests/run-all-tests.sh --full`); the CI tier runs Debian's reference and ours on both")
print("sides, and the mixes only for the scenarios marked `--mixed`")
print("(`abi-tests/run-scenarios --list vm`).\n")
print("Across the verbs and CM APIs as a whole, rdma-core v44.0's own Python test suite")
print("(`tests/`, run by `abi-tests/pyverbs-suite.sh` on Debian's pyverbs against rxe0; not in")
print("CI, because it needs rdma-core's source) gave the same outcome for each of its 273")
print("tests on our libraries as on Debian's (2026-11-26): 94 ok, including 8 rdmacm tests")
print("(sync and async connections, reads, writes, UDP, reject, multicast leave, an external")
print("QP); 176 skipped with the same reasons (mlx5, efa, ODP, device memory, XRC and others")
print("rxe lacks); and the same 3 errors on both: test_qp_ex_rc_atomic_write (rxe completes")
print("the ATOMIC_WRITE with a local QP operation error) and two multicast traffic tests")
print("whose processes the suite reports as stuck.\n")
print("C headers (`include/`, rdma-core 65's API): `abi-tests/headers/compare` checks them")
print("item by item against Debian 12's libibverbs-dev and librdmacm-dev (44) and sid's (65):")
print("290 structs and unions, 1855 fields by C name, 839 enum constants, 60 integer macros,")
print("161 prototypes and 121 inline functions, with 0 differences; the 45 items rdma-core")
print("changed between 44 and 65 are as 65 has them. `abi-tests/headers/inline-check` and")
print("`rdma-verbs-check` run every inline function of verbs.h, rdma_verbs.h, rdma_cma.h and")
print("ib.h against fakes, built with ours and with upstream's headers, and compare what each")
print("calls and returns. The C programs of `abi-tests` build against `include/` with Debian's")
print("-dev headers out of reach (`abi-tests/headers/build-against-ours`; the probes of")
print("rdma-core's private driver.h add that one header), and the VM scenarios run those builds.\n")
print("Packages (`docs/packaging.md`): `packaging/build-deb` checks each distribution's symbols")
print("file against ours with `dpkg-gensymbols -c1`, none missing (Debian 12: libibverbs1 adds")
print("118 symbols beyond it, librdmacm1 8; Debian 13: 116 and 8; sid: 74, the")
print("`IBVERBS_PRIVATE_34` names, and 0). `packaging/test-packages` installs the packages over")
print("each distribution's in the VM, runs the scenarios on them with no `LD_LIBRARY_PATH`, and")
print("puts the distribution's back. `packaging/build-rpm` checks that the RPM provides every")
print("SONAME and symbol version rpm finds in rdma-core 44's and 65's libraries.\n")
for soname in ("libibverbs.so.1", "librdmacm.so.1"):
    section(soname, notes)
