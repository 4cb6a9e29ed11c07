#!/usr/bin/env bash
# pyverbs-suite.sh: rdma-core's own Python test suite (tests/ of the rdma-core
# v44.0 source, run by its run_tests.py on Debian's python3-pyverbs) against
# rxe0 in ONE boot of the Soft-RoCE VM, once on Debian's libibverbs and
# librdmacm and once on ours. Compares the outcome of every test (ok, FAIL,
# ERROR, skipped and the skip reason) and exits 1 on any difference, when the
# "ours" run did not load our libraries, or when fewer than 200 tests ran.
#
#   abi-tests/pyverbs-suite.sh [--src DIR] [--out DIR] [--provider ours]
#
#   --src DIR   an unpacked rdma-core v44.0 source tree (default
#               $RDMA_CORE_SRC, else /tmp/up), e.g.
#                 git -C RDMA_CORE_GIT archive v44.0 | tar -x -C /tmp/up
#               Its tests/ is copied to OUT and run from there; nothing of it
#               is kept in this repository.
#   --out DIR   results (default target/pyverbs-suite): DIR/report.txt (the
#               comparison), DIR/raw/RUN.txt (run_tests.py -v), DIR/console.txt
#   --provider ours
#               the suite with OUR rxe provider (RDMAV_DRIVERS=PROVDIR/librxe-rs):
#               three runs in the one boot, Debian's libraries with Debian's
#               C provider (the reference), Debian's libibverbs with our
#               provider (upstream+prov) and ours with it (ours+prov); each
#               must have the reference's outcome for every test, and
#               rxe0's post_send must be in our provider in the +prov runs
#               (vm-progs/provider_ops, built here against Debian's headers)
# Environment: RDMA_OURS_LIB_DIR (default $CARGO_TARGET_DIR/release or
# target/release); RDMA_OURS_PROVIDER_DIR (default: the same) holds our
# provider as librxe-rs-rdmav34.so.
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
  read -ra runs <<< "${SUITE_RUNS:-upstream ours}"
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
  for lib in "${runs[@]}"; do
    envv=("${base[@]}")
    [[ ${lib%+prov} = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
    [[ $lib == *+prov ]] && envv+=("RDMAV_DRIVERS=${RDMA_OURS_PROVIDER_DIR:?}/librxe-rs")
    # Which libibverbs and librdmacm pyverbs loads in this environment, and
    # which rxe providers once a device list was made.
    "${envv[@]}" /usr/bin/python3 -c '
import pyverbs.device, pyverbs.cmid
pyverbs.device.get_device_list()
for l in open("/proc/self/maps"):
    p = l.split()[-1]
    if "/libibverbs.so" in p or "/librdmacm.so" in p or "rxe" in p:
        print("loaded", p)' | sort -u > "$raw/$lib.loaded"
    # Which provider serves rxe0 (with RDMAV_DRIVERS, Debian's librxe is
    # loaded too, from /etc/libibverbs.d, and unused).
    [[ -z ${SUITE_OPS:-} ]] || "${envv[@]}" "$SUITE_OPS" rxe0 | sed -n 's/^op post_send /post_send in /p' >> "$raw/$lib.loaded"
    start=$(date +%s)
    rc=0
    (cd "$suite/tests" && timeout 1800 "${envv[@]}" /usr/bin/python3 run_tests.py -v --dev rxe0) \
      > "$raw/$lib.txt" 2>&1 || rc=$?
    echo "$lib: exit $rc after $(( $(date +%s) - start )) s; $(grep -E '^(Ran|OK|FAILED)' "$raw/$lib.txt" | tr '\n' ' ')"
    echo "$rc" > "$raw/$lib.rc"
  done
  exit 0
fi

src=${RDMA_CORE_SRC:-/tmp/up} out=$repo/target/pyverbs-suite provider=debian
while [[ $# -gt 0 ]]; do
  case "$1" in
    --src) src=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --provider) provider=$2; shift 2 ;;
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
runs=(upstream ours) vm_env=()
case $provider in
  debian) ;;
  ours)
    provdir=${RDMA_OURS_PROVIDER_DIR:-$ours}
    [[ -e $provdir/librxe-rs-rdmav34.so ]] ||
      { echo "pyverbs-suite: no $provdir/librxe-rs-rdmav34.so (RDMA_OURS_PROVIDER_DIR)" >&2; exit 2; }
    provdir=$(cd "$provdir" && pwd)
    runs=(upstream upstream+prov ours+prov)
    cc -O1 -Wall -Werror -o "$out/provider_ops" "$repo/abi-tests/vm-progs/provider_ops.c" -libverbs
    vm_env=(--env "RDMA_OURS_PROVIDER_DIR=$provdir" --env "SUITE_OPS=$out/provider_ops") ;;
  *) echo "pyverbs-suite: --provider takes debian or ours" >&2; exit 2 ;;
esac
rm -rf "$out/suite"; mkdir -p "$out/suite"
cp -r "$src/tests" "$out/suite/tests"
# The one change to the copy (see --in-vm): where it finds the device's netdev.
grep -q "'/sys/class/infiniband/{}/device/net/'" "$out/suite/tests/base.py" ||
  { echo "pyverbs-suite: tests/base.py has no netdev path to redirect" >&2; exit 2; }
sed -i "s|'/sys/class/infiniband/{}/device/net/'|'/run/pyverbs-suite-net/'|" "$out/suite/tests/base.py"

"$repo/abi-tests/vm/vm-run" --timeout $((1500 * ${#runs[@]})) --out "$out" --env "RDMA_OURS_LIB_DIR=$ours" \
  --env "SUITE_DIR=$out/suite" --env "SUITE_RUNS=${runs[*]}" "${vm_env[@]}" "$0" --in-vm

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
  echo "rdma-core v44.0 tests/ (run_tests.py -v --dev rxe0): Debian's libraries and C provider vs ${runs[*]:1}"
  for lib in "${runs[@]}"; do
    outcomes "$out/raw/$lib.txt" > "$out/raw/$lib.outcomes"
    printf '%-13s %4d tests: %4d ok, %4d skipped, %d FAIL, %d ERROR (exit %s)\n' "$lib" \
      "$(wc -l < "$out/raw/$lib.outcomes")" \
      "$(grep -c '| ok$' "$out/raw/$lib.outcomes" || true)" \
      "$(grep -c '| skipped' "$out/raw/$lib.outcomes" || true)" \
      "$(grep -c '| FAIL' "$out/raw/$lib.outcomes" || true)" \
      "$(grep -c '| ERROR' "$out/raw/$lib.outcomes" || true)" \
      "$(cat "$out/raw/$lib.rc")"
  done
  for lib in "${runs[@]:1}"; do echo "$lib loaded:"; sed 's/^/  /' "$out/raw/$lib.loaded"; done
} > "$report"
status=0
for lib in "${runs[@]:1}"; do
  if ! diff "$out/raw/upstream.outcomes" "$out/raw/$lib.outcomes" > "$out/raw/diff.$lib.txt"; then
    { echo "DIFFERENT outcomes (< Debian's, > $lib):"; cat "$out/raw/diff.$lib.txt"; } >> "$report"
    status=1
  else
    echo "$lib: same outcome for every test as Debian's" >> "$report"
  fi
  # /proc/self/maps names the file the soname link points to.
  if [[ ${lib%+prov} = ours ]]; then
    if ! grep -q "^loaded $ours/libibverbs\.so" "$out/raw/$lib.loaded" ||
       ! grep -q "^loaded $ours/librdmacm\.so" "$out/raw/$lib.loaded" ||
       grep -q "^loaded /usr/lib/x86_64-linux-gnu/lib\(ibverbs\|rdmacm\)\.so" "$out/raw/$lib.loaded"; then
      echo "FAIL: the $lib run did not load $ours/libibverbs.so.1 and librdmacm.so.1" >> "$report"
      status=1
    fi
  fi
  if [[ $lib == *+prov ]] && ! grep -qx "post_send in $(readlink -f "$provdir/librxe-rs-rdmav34.so")" "$out/raw/$lib.loaded"; then
    echo "FAIL: in the $lib run rxe0 was not served by $provdir/librxe-rs-rdmav34.so" >> "$report"
    status=1
  fi
  if (( $(wc -l < "$out/raw/$lib.outcomes") < 200 )); then
    echo "FAIL: fewer than 200 tests ran ($lib)" >> "$report"
    status=1
  fi
done
cat "$report"
exit "$status"
