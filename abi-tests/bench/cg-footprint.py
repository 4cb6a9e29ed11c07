#!/usr/bin/env python3
"""cg-footprint.py: how much distinct code a run executed, per object.

Reads callgrind output files written with
  --dump-instr=yes --dump-line=no --compress-pos=no --compress-strings=no
and prints, per object (ob=), the number of distinct instruction addresses
with a non-zero count, the 64-byte lines and the 4 KiB pages they fall in,
largest first; with --functions OBJ also the functions of objects whose name
contains OBJ. Under QEMU's TCG each distinct instruction must be translated
before it first runs in a process, so this is what a first call costs there.

  cg-footprint.py [--functions OBJ] [--top N] CALLGRIND.OUT...
"""
import collections
import os
import sys


def load(path):
    """{object: {function: set(addresses)}} of the instructions that ran."""
    seen = collections.defaultdict(lambda: collections.defaultdict(set))
    ob = fn = None
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = os.path.basename(line[3:].strip())
            elif line.startswith("fn="):
                fn = line[3:].strip()
            elif line.startswith("0x"):
                fields = line.split()
                if len(fields) >= 2 and int(fields[1]) > 0:
                    seen[ob][fn].add(int(fields[0], 16))
    return seen


def main(argv):
    want, top, files = None, 30, []
    while argv:
        a = argv.pop(0)
        if a == "--functions" and argv:
            want = argv.pop(0)
        elif a == "--top" and argv:
            top = int(argv.pop(0))
        elif a.startswith("-"):
            print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for path in files:
        seen = load(path)
        print(path)
        rows = []
        for ob, fns in seen.items():
            addrs = set().union(*fns.values())
            rows.append((len(addrs), len({a >> 6 for a in addrs}), len({a >> 12 for a in addrs}), ob))
        rows.sort(reverse=True)
        print("  %8s %7s %6s  object" % ("instrs", "lines", "pages"))
        for n, lines, pages, ob in rows:
            if n >= 50:
                print("  %8d %7d %6d  %s" % (n, lines, pages, ob))
        print("  %8d %7s %6s  all objects" % (sum(r[0] for r in rows), "", ""))
        if want:
            fns = collections.Counter()
            for ob, per_fn in seen.items():
                if want in ob:
                    for fn, addrs in per_fn.items():
                        fns[fn] += len(addrs)
            print("  functions of %s:" % want)
            for fn, n in fns.most_common(top):
                print("  %8d  %s" % (n, fn[:120]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
