#!/usr/bin/env bash
# pyverbs-suite.sh: rdma-core's own Python test suite (tests/ of the rdma-core
# v44.0 source, run by its run_tests.py on Debian's python3-pyverbs) against
# rxe0 in ONE boot of the Soft-RoCE VM, once on Debian's libibverbs and
# librdmacm and once on ours. Compares the outcome of every test (ok, FAIL,
# ERROR, skipped and the skip reason) and exits 1 on any difference, when the
# "ours" run did not load our libraries, or when fewer than 200 tests ran.
#
#   abi-tests/pyverbs-suite.sh [--src DIR] [--out DIR]
#
#   --src DIR   an unpacked rdma-core v44.0 source tree (default
#               $RDMA_CORE_SRC, else /tmp/up), e.g.
#                 git -C RDMA_CORE_GIT archive v44.0 | tar -x -C /tmp/up
#               Its tests/ is copied to OUT and run from there; nothing of it
#               is kept in this repository.
#   --out DIR   results (default target/pyverbs-suite): DIR/report.txt (the
#               comparison), DIR/raw/{upstream,ours}.txt (run_tests.py -v),
#               DIR/console.txt
# Environment: RDMA_OURS_LIB_DIR (default $CARGO_TARGET_DIR/release or
# target/release).
#
# Not part of run-all-tests.sh: CI has no copy of rdma-core's source (neither
# GitHub nor Debian's orig tarball is reachable from it). The VM gets 64 huge
# pages of 2 MiB so that the huge-page MR tests run instead of skipping, and
# the copy of the suite is told that rxe0's netdev is eth0, which rxe's sysfs
# entry does not show, so that its rdmacm tests run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

if [[ ${1:-} = --in-vm ]]; then
  ours=${RDMA_OURS_LIB_DIR:?}
  suite=${SUITE_DIR:?}
  raw=$VM_OUT/raw
  rm -rf "$raw"; mkdir -p "$raw"
  echo 64 > /proc/sys/vm/nr_hugepages
  # rxe0 has no device/net/ directory in sysfs, where the suite looks for the
  # netdev (and its address) that its rdmacm tests need; the copy of the
  # suite looks in this directory instead, which names eth0.
  mkdir -p /run/pyverbs-suite-net/eth0
  echo "huge pages: $(cat /proc/sys/vm/nr_hugepages)"
  # The copy under OUT is the VM's read-only host view; keep Python from
  # writing bytecode next to it.
  base=(env -i "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" HOME=/root
        LC_ALL=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 "PYTHONPATH=$suite/tests")
  for lib in upstream ours; do
    envv=("${base[@]}")
    [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    # Which libibverbs and librdmacm pyverbs loads in this environment.
    "${envv[@]}" /usr/bin/python3 -c '
import pyverbs.device, pyverbs.cmid
for l in open("/proc/self/maps"):
    p = l.split()[-1]
    if "/libibverbs.so" in p or "/librdmacm.so" in p:
        print("loaded", p)' | sort -u > "$raw/$lib.loaded"
    start=$(date +%s)
    rc=0
    (cd "$suite/tests" && timeout 1800 "${envv[@]}" /usr/bin/python3 run_tests.py -v --dev rxe0) \
      > "$raw/$lib.txt" 2>&1 || rc=$?
    echo "$lib: exit $rc after $(( $(date +%s) - start )) s; $(grep -E '^(Ran|OK|FAILED)' "$raw/$lib.txt" | tr '\n' ' ')"
    echo "$rc" > "$raw/$lib.rc"
  done
  exit 0
fi

src=${RDMA_CORE_SRC:-/tmp/up} out=$repo/target/pyverbs-suite
while [[ $# -gt 0 ]]; do
  case "$1" in
    --src) src=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '9,9p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
if [[ ! -f $src/tests/run_tests.py ]] || ! grep -q 'set(PACKAGE_VERSION "44.0")' "$src/CMakeLists.txt" 2>/dev/null; then
  echo "pyverbs-suite: $src is not an unpacked rdma-core v44.0 tree (see --help)" >&2
  exit 2
fi
[[ -e /usr/lib/python3/dist-packages/pyverbs/device.cpython-311-x86_64-linux-gnu.so ]] ||
  { echo "pyverbs-suite: needs Debian's python3-pyverbs" >&2; exit 2; }
# bench_libs (shared with the VM benchmarks) sets $ours, or exits 2.
. "$repo/abi-tests/bench/vm-bench-host.sh"
bench_libs pyverbs-suite libibverbs.so.1 librdmacm.so.1
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/suite"; mkdir -p "$out/suite"
cp -r "$src/tests" "$out/suite/tests"
# The one change to the copy (see --in-vm): where it finds the device's netdev.
grep -q "'/sys/class/infiniband/{}/device/net/'" "$out/suite/tests/base.py" ||
  { echo "pyverbs-suite: tests/base.py has no netdev path to redirect" >&2; exit 2; }
sed -i "s|'/sys/class/infiniband/{}/device/net/'|'/run/pyverbs-suite-net/'|" "$out/suite/tests/base.py"

"$repo/abi-tests/vm/vm-run" --timeout 3000 --out "$out" --env "RDMA_OURS_LIB_DIR=$ours" \
  --env "SUITE_DIR=$out/suite" "$0" --in-vm

# One line per test: "<test id> | <outcome>". unittest -v prints the outcome
# after " ... " on the test's line, or on a later line when the test printed
# something first.
outcomes() {
  awk '
    function outcome(t) { return t ~ /^(ok|FAIL|ERROR|skipped|expected failure|unexpected success)/ }
    / \.\.\. / { split($0, a, / \.\.\. /); id = a[1]
                 if (outcome(a[2])) { print id " | " a[2]; id = "" }; next }
    id != "" && outcome($0) { print id " | " $0; id = "" }
  ' "$1" | sort
}
report=$out/report.txt
{
  echo "rdma-core v44.0 tests/ (run_tests.py -v --dev rxe0), Debian's libraries vs ours"
  for lib in upstream ours; do
    outcomes "$out/raw/$lib.txt" > "$out/raw/$lib.outcomes"
    printf '%-9s %4d tests: %4d ok, %4d skipped, %d FAIL, %d ERROR (exit %s)\n' "$lib" \
      "$(wc -l < "$out/raw/$lib.outcomes")" \
      "$(grep -c '| ok$' "$out/raw/$lib.outcomes" || true)" \
      "$(grep -c '| skipped' "$out/raw/$lib.outcomes" || true)" \
      "$(grep -c '| FAIL' "$out/raw/$lib.outcomes" || true)" \
      "$(grep -c '| ERROR' "$out/raw/$lib.outcomes" || true)" \
      "$(cat "$out/raw/$lib.rc")"
  done
  echo "ours loaded:"; sed 's/^/  /' "$out/raw/ours.loaded"
} > "$report"
status=0
if ! diff "$out/raw/upstream.outcomes" "$out/raw/ours.outcomes" > "$out/raw/diff.txt"; then
  { echo "DIFFERENT outcomes (< Debian's, > ours):"; cat "$out/raw/diff.txt"; } >> "$report"
  status=1
else
  echo "same outcome for every test" >> "$report"
fi
# /proc/self/maps names the file the soname link points to.
if ! grep -q "^loaded $ours/libibverbs\.so" "$out/raw/ours.loaded" ||
   ! grep -q "^loaded $ours/librdmacm\.so" "$out/raw/ours.loaded" ||
   grep -q "^loaded /usr/lib/" "$out/raw/ours.loaded"; then
  echo "FAIL: the ours run did not load $ours/libibverbs.so.1 and librdmacm.so.1" >> "$report"
  status=1
fi
if (( $(wc -l < "$out/raw/ours.outcomes") < 200 )); then
  echo "FAIL: fewer than 200 tests ran" >> "$report"
  status=1
fi
cat "$report"
exit "$status"
