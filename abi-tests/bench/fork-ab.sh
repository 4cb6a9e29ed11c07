#!/usr/bin/env bash
# fork-ab.sh: two builds of our libibverbs against each other on fork-bench's
# "plain 20000" case, in one session (the host's load moves every absolute
# figure; a before/after comparison needs both in the same run).
#
#   abi-tests/bench/fork-ab.sh BASE_LIB_DIR NEW_LIB_DIR [RUNS]
#
# Each run is `fork-bench plain 20000` with LD_LIBRARY_PATH=DIR, pinned to
# CPU 1, alternating ABBA (RUNS each, default 10); as root at nice -15. Prints
# per build the median over runs of each run's ratio to its own floor, and of
# the nested ns per call. Build fork-bench first (fork-bench.sh does, into
# target/bench/fork-bench).
set -euo pipefail
base=$(cd "$1" && pwd); new=$(cd "$2" && pwd); runs=${3:-10}
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
exe=$repo/target/bench/fork-bench
[[ -x $exe ]] || cc -O2 -Wall -Werror -o "$exe" "$here/fork-bench.c" -libverbs
[[ $EUID -eq 0 ]] && renice -n -15 -p $$ >/dev/null
out=$(mktemp -d)
for ((r = 1; r <= runs; r++)); do
  if ((r % 2)); then order=(base new); else order=(new base); fi
  for l in "${order[@]}"; do
    d=$base; [[ $l = new ]] && d=$new
    env -u RDMAV_FORK_SAFE -u IBV_FORK_SAFE -u RDMAV_HUGEPAGES_SAFE LD_LIBRARY_PATH="$d" \
      taskset -c 1 "$exe" plain 20000 > "$out/$l.$r"
    grep -q "^lib $d/libibverbs.so.1" "$out/$l.$r" || { echo "wrong library: $(grep ^lib "$out/$l.$r")" >&2; exit 1; }
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for l in base new; do
  cat "$out/$l".* | awk '/^floor_dofork/{fd=$2}/^floor_dontfork/{fn=$2}
    /^dofork/{print "dofork/floor", $2/fd}/^dontfork/{print "dontfork/floor", $2/fn}
    /^nested_dontfork/{print "nested_dontfork_ns", $2}/^nested_dofork/{print "nested_dofork_ns", $2}' > "$out/$l.r"
  for k in dofork/floor dontfork/floor nested_dontfork_ns nested_dofork_ns; do
    awk -v k="$k" '$1==k{print $2}' "$out/$l.r" | sort -g |
      awk -v l="$l" -v k="$k" '{a[NR]=$1} END{printf "%-5s %-20s median %.3f (n=%d, min %.3f, max %.3f)\n", l, k, a[int((NR+1)/2)], NR, a[1], a[NR]}'
  done
done
rm -rf "$out"
