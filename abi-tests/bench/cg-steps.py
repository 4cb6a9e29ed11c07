#!/usr/bin/env python3
"""cg-steps.py: cm-steps.sh's report from callgrind's per-step dumps.

  cg-steps.py [--diff STEP] [--first STEP] DIR

DIR holds upstream/ and ours/, each with callgrind's dumps cg.1 ... cg.7 and
cg (written with --dump-instr=yes --compress-strings=no --compress-pos=no).
Per step and library it prints the instructions executed, the calls made,
the distinct instructions and those run for the first time in the process,
then per step the ratio ours / Debian's of instructions and of first-run
instructions. With --diff STEP, the 25 functions with the most instructions
of their own in STEP, for each library. With --first STEP, the 40
functions with the most instructions run for the first time in the process
in STEP, for each library (what QEMU's TCG must translate there).
"""
import collections
import os
import sys

STEPS = ["start-up", "create_id", "resolve_addr", "resolve_route",
         "create_qp", "connect", "disconnect", "destroy"]


def load(path):
    """(instructions, calls, {object: {address: fn}}, {(object, fn): own})."""
    addrs = collections.defaultdict(dict)
    own = collections.Counter()
    ins = calls = 0
    ob = fn = None
    after_call = False
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = os.path.basename(line[3:].strip())
            elif line.startswith("fn="):
                fn = line[3:].strip()
            elif line.startswith("calls="):
                calls += int(line[6:].split()[0])
                after_call = True
            elif line.startswith("0x"):
                if after_call:  # the call's inclusive cost, not our own
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) >= 2 and int(fields[1]) > 0:
                    n = int(fields[1])
                    ins += n
                    addrs[ob][fields[0]] = fn
                    own[(ob, fn)] += n
    return ins, calls, addrs, own


def main():
    args = sys.argv[1:]
    diff = first = None
    while len(args) >= 2 and args[0] in ("--diff", "--first"):
        if args[0] == "--diff":
            diff = args[1]
        else:
            first = args[1]
        args = args[2:]
    if len(args) != 1 or any(s and s not in STEPS[1:] for s in (diff, first)):
        sys.exit(__doc__)
    top = args[0]
    table = {}
    owns = {}
    firsts = {}
    for lib in ("upstream", "ours"):
        d = os.path.join(top, lib)
        files = [os.path.join(d, "cg.%d" % i) for i in range(1, 8)] + [os.path.join(d, "cg")]
        seen = collections.defaultdict(set)
        print("%s:\n  %-14s %10s %8s %9s %9s" % (lib, "step", "instrs", "calls", "distinct", "first-run"))
        for step, path in zip(STEPS, files):
            ins, calls, addrs, own = load(path)
            distinct = sum(len(a) for a in addrs.values())
            fresh = {o: a.keys() - seen[o] for o, a in addrs.items()}
            new = sum(len(f) for f in fresh.values())
            if step == first:
                firsts[lib] = collections.Counter(
                    (o, addrs[o][x]) for o, f in fresh.items() for x in f)
            for o, f in fresh.items():
                seen[o] |= f
            table[(lib, step)] = (ins, new)
            owns[(lib, step)] = own
            print("  %-14s %10d %8d %9d %9d" % (step, ins, calls, distinct, new))
    print("ours / Debian's:\n  %-14s %8s %10s" % ("step", "instrs", "first-run"))
    for step in STEPS[1:]:
        (ui, un), (oi, on) = table[("upstream", step)], table[("ours", step)]
        print("  %-14s %8.3f %10.3f" % (step, oi / ui if ui else 0, on / un if un else 0))
    print("(the last step's dump also holds the process's exit; cmtime's main "
          "thread spins in sched_yield while it waits, which varies)")
    if diff:
        for lib in ("upstream", "ours"):
            print("%s, %s: own instructions by function" % (lib, diff))
            for (o, fn), n in owns[(lib, diff)].most_common(int(os.environ.get("CG_TOP", "25"))):
                print("  %9d  %-24s %s" % (n, o[:24], fn[:80]))
    if first:
        for lib in ("upstream", "ours"):
            print("%s, %s: first-run instructions by function" % (lib, first))
            # Ties by name: the counter was filled from sets, in hash order.
            ranked = sorted(firsts[lib].items(), key=lambda kv: (-kv[1], kv[0]))
            for (o, fn), n in ranked[:int(os.environ.get("CG_TOP", "40"))]:
                print("  %6d  %-24s %s" % (n, o[:24], fn[:80]))


if __name__ == "__main__":
    main()
