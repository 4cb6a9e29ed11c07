#!/usr/bin/env python3
"""cm-stepcpu.py: per-step CPU accounting from cm-stepcpu.so's snapshots.

  cm-stepcpu.py FILE...

Each FILE is the stderr of one cmtime client run with cm-stepcpu.so
preloaded. For each step (from the first call that opens it to the first
call of the next step; the last one ends at exit) it prints, in us: the
window's wall time, the CPU time of each of the client's threads (main
thread first, in thread-id order), the rest of the window (wall time minus
the threads': on a one-CPU VM, kernel workers, interrupts, the server and
idle time), and the sched_yield calls the program made.
"""
import sys


def load(path):
    """[(step, {"wall": ns, "tasks": {tid: ns}, "yields": n})]."""
    snaps, cur = [], None
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) < 3 or f[0] != "STEPCPU":
            continue
        name = f[1]
        if cur is None or cur[0] != name:
            cur = (name, {"tasks": {}})
            snaps.append(cur)
        s = cur[1]
        if f[2] == "wall":
            s["wall"] = int(f[3])
        elif f[2] == "task":
            s["tasks"][int(f[3])] = int(f[4])
        elif f[2] == "rusage":
            s["yields"] = int(f[10])
    return snaps


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip())
    for path in sys.argv[1:]:
        print(f"{path}:")
        print(f"  {'step':<16}{'wall':>10}{'main':>10}{'event':>10}{'rest':>10}{'yields':>8}")
        snaps = load(path)
        for (name, a), (_, b) in zip(snaps, snaps[1:]):
            tids = sorted(b["tasks"])
            d = [(b["tasks"][t] - a["tasks"].get(t, 0)) / 1e3 for t in tids]
            wall = (b["wall"] - a["wall"]) / 1e3
            step = name.removeprefix("rdma_")
            d += [0.0] * (2 - len(d))
            threads = "".join(f"{x:>10.1f}" for x in d)
            print(f"  {step:<16}{wall:>10.1f}{threads}{wall - sum(d):>10.1f}"
                  f"{b['yields'] - a['yields']:>8}")


if __name__ == "__main__":
    main()
