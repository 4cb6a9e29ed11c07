#!/usr/bin/env bash
# packages-vm.sh LIST_FILE: what `abi-tests/run-scenarios --packages DIR vm`
# runs in the VM in place of runner.sh: our packages, installed and removed
# again, each stage checked with the scenarios of LIST_FILE. The VM's / is a
# throw-away overlay, so installing there leaves the host as it was.
#
# Environment: everything runner.sh takes (run-scenarios passes it), and
#   SCEN_PACKAGES=DIR   DIR/ours/SUITE/*.deb (packaging/build-deb) and
#                       DIR/distro/SUITE/*.deb (the distribution's own
#                       packages, to put back), SUITE bookworm for this
#                       system, trixie and sid for those userlands
# Stages, each with its results in SCEN_OUT/STAGE/ and its checks in
# SCEN_OUT/packages.txt:
#   side-by-side  packaging/install --prefix /opt/rdma-core-rs, and the
#                 scenarios with the "ours" variant run through its
#                 rdma-core-rs-run wrapper, while the system's libraries
#                 stay Debian's (runner.sh's wrapper mode; Debian's
#                 reference can run live here)
#   installed     our .debs installed over the distribution's in / and in
#                 each userland; ldd, the dynamic linker's trace, dpkg -S
#                 and the diversions show ours; the scenarios run on the
#                 system's libraries (runner.sh's system mode, against
#                 the recorded references); a C program built with
#                 pkg-config against our -dev packages runs
#   restored      ours removed and the distribution's packages installed
#                 again; the same checks show Debian's, and the same
#                 scenarios pass on them
# Exit code 0 when every check and every scenario passed.
set -uo pipefail

list=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
: "${SCEN_PACKAGES:?SCEN_PACKAGES must name the packages directory}"
: "${SCEN_OUT:?SCEN_OUT must name the results directory}"
pk=$SCEN_PACKAGES
base_out=$SCEN_OUT
mkdir -p "$base_out"
log=$base_out/packages.txt
: > "$log"
fails=0
say() { printf '%s\n' "$*" | tee -a "$log" >&2; }
ok() { say "ok: $*"; }
bad() { say "FAIL: $*"; fails=$((fails + 1)); }
ulroot() { echo "${SCEN_USERLAND_DIR:-$HOME/.cache/rdma-core-rs/userland}/$1"; }
suites=(bookworm)
for s in trixie sid; do [[ -d $pk/ours/$s && -d $(ulroot "$s") ]] && suites+=("$s"); done
# on SUITE CMD...: CMD on this system (bookworm) or chrooted in the userland.
on() { local s=$1; shift; if [[ $s = bookworm ]]; then "$@"; else chroot "$(ulroot "$s")" "$@"; fi; }
# debs SUITE KIND: the package files, as paths inside SUITE's root.
debs() {
  local s=$1 k=$2 d
  if [[ $s = bookworm ]]; then ls "$pk/$k/$s"/*.deb; return; fi
  d=$(ulroot "$s")/tmp/packages-$k
  rm -rf "$d"; mkdir -p "$d"; cp "$pk/$k/$s"/*.deb "$d/"
  ls "$d"/*.deb | sed "s|^$(ulroot "$s")||"
}

# scenarios STAGE ENV...: runner.sh over LIST_FILE with ENV, results in
# SCEN_OUT/STAGE.
scenarios() {
  local stage=$1; shift
  say "--- $stage: scenarios"
  if env "$@" SCEN_OUT="$base_out/$stage" bash "$here/runner.sh" "$list"; then
    ok "$stage: $(tail -1 "$base_out/$stage/summary.txt")"
  else
    bad "$stage: $(tail -1 "$base_out/$stage/summary.txt" 2>/dev/null || echo 'runner.sh failed')"
  fi
}

label() { if [[ $1 = ours ]]; then echo ours; else echo "the distribution's"; fi; }
# version_is WHOSE VERSION: VERSION is of our packages (ours: it has "+rs")
# or of the distribution's (debian: a version without it).
version_is() { if [[ $1 = ours ]]; then [[ $2 = *+rs* ]]; else [[ -n $2 && $2 != *+rs* ]]; fi; }

# proofs SUITE WHOSE: which libraries and providers the system of SUITE has
# now (ours or debian), seen as a program sees them.
proofs() {
  local s=$1 whose=$2 v got real owner ver prog t f div
  v=$(on "$s" dpkg-query -W -f='${Version}' libibverbs1)
  if version_is "$whose" "$v"; then
    ok "$s: libibverbs1 $v installed"
  else bad "$s: libibverbs1 $v installed, not $(label "$whose")"; fi
  for lib in libibverbs.so.1 librdmacm.so.1; do
    prog=/usr/bin/ibv_devinfo
    [[ $lib = libibverbs.so.1 ]] || prog=/usr/bin/rping
    got=$(on "$s" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin ldd "$prog" | sed -n "s/^[[:space:]]*${lib//./\\.} => \\([^ ]*\\) .*/\\1/p")
    real=$(on "$s" readlink -f "$got")
    owner=$(on "$s" dpkg-query -S "$real" 2>/dev/null)
    ver=$(on "$s" dpkg-query -W -f='${Version}' "${owner%%:*}" 2>/dev/null)
    say "$s: ldd $prog: $lib => $got -> $real ($owner $ver)"
    if [[ $got = /lib/x86_64-linux-gnu/$lib || $got = /usr/lib/x86_64-linux-gnu/$lib ]] && version_is "$whose" "$ver"; then
      ok "$s: $lib is $(label "$whose"), from the system's library path"
    else bad "$s: $lib is not $(label "$whose")"; fi
  done
  # The dynamic linker's own account: what ibv_devinfo initialised, and the
  # rxe provider libibverbs opened for rxe0.
  t=$(on "$s" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LD_DEBUG=libs ibv_devinfo -d rxe0 2>&1 > /dev/null \
        | sed -n 's/^ *[0-9]*:[[:space:]]*calling init: //p' | grep -E '/libibverbs\.so|/librxe-' || true)
  say "$s: LD_DEBUG=libs ibv_devinfo -d rxe0, initialised:"
  sed 's/^/  | /' <<< "$t" | tee -a "$log" >&2
  for f in $t; do
    [[ $f = *librxe-rdmav* ]] || continue
    # Ours is the file ibverbs-providers-rs put there in place of the
    # diverted C provider; Debian's is ibverbs-providers' own, undiverted.
    div=$(on "$s" dpkg-divert --listpackage "$f")
    if [[ $whose = ours ]]; then
      if [[ $div = ibverbs-providers-rs ]] && on "$s" dpkg --verify ibverbs-providers-rs >> "$log" 2>&1; then
        ok "$s: rxe0's provider $f is ours (diverted by ibverbs-providers-rs, whose files verify)"
      else bad "$s: rxe0's provider $f is not ours (diversion: '${div}')"; fi
    else
      if [[ -z $div ]] && on "$s" dpkg --verify ibverbs-providers >> "$log" 2>&1; then
        ok "$s: rxe0's provider $f is Debian's (no diversion; ibverbs-providers' files verify)"
      else bad "$s: rxe0's provider $f is not Debian's (diversion: '${div}')"; fi
    fi
  done
  [[ $t = *librxe-rdmav* ]] || bad "$s: no rxe provider in the trace"
  say "$s: diversions: $(on "$s" dpkg-divert --list '*-rdmav*' 2>/dev/null | tr '\n' ';')"
}

# The userlands' chroots see the VM's devices and sysfs, as runner.sh's do.
for s in "${suites[@]:1}"; do
  r=$(ulroot "$s")
  mountpoint -q "$r/proc" || mount -t proc proc "$r/proc"
  mountpoint -q "$r/sys" || mount --rbind /sys "$r/sys"
  mountpoint -q "$r/dev" || mount --rbind /dev "$r/dev"
  mountpoint -q "$r/run" || mount -t tmpfs run "$r/run"
done

# man-db's trigger rebuilds its index when packages with manual pages come
# or go (the distribution's -dev packages have them): minutes under
# software emulation, for nothing these tests read.
rm -f /var/lib/man-db/auto-update

# ---- side by side ------------------------------------------------------------
say "=== side-by-side"
opt=/opt/rdma-core-rs
if "$repo/packaging/install" --prefix "$opt" --from "$RDMA_OURS_LIB_DIR" >> "$log" 2>&1; then
  ok "packaging/install --prefix $opt"
  proofs bookworm debian
  got=$("$opt/bin/rdma-core-rs-run" ldd /usr/bin/ibv_rc_pingpong | sed -n 's/^[[:space:]]*libibverbs\.so\.1 => \([^ ]*\) .*/\1/p')
  [[ $got = $opt/lib/libibverbs.so.1 ]] && ok "rdma-core-rs-run ibv_rc_pingpong: libibverbs.so.1 => $got" \
    || bad "rdma-core-rs-run ibv_rc_pingpong: libibverbs.so.1 => '$got'"
  scenarios side-by-side SCEN_WRAPPER="$opt/bin/rdma-core-rs-run" RDMA_OURS_LIB_DIR="$opt/lib" \
    SCEN_ONLY="${SCEN_SIDE_BY_SIDE:-ibv_rc_pingpong rping}"
else
  bad "packaging/install --prefix $opt (see above)"
fi

# ---- installed -----------------------------------------------------------------
say "=== installed"
declare -A had=()
for s in "${suites[@]}"; do
  # What of ours the suite had before: restored from the distribution's
  # packages afterwards; the rest (the -dev packages where the userland had
  # none) is removed again.
  had[$s]=$(on "$s" dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' libibverbs1 'librdmacm1*' libibverbs-dev librdmacm-dev 2>/dev/null | awk '$1 == "ii" { print $2 }' | tr '\n' ' ')
  say "$s: the distribution's packages installed: ${had[$s]}"
  # dpkg -i, as apt install ./*.deb would, with nothing to download: every
  # dependency is there already.
  if on "$s" dpkg -i $(debs "$s" ours) >> "$log" 2>&1; then ok "$s: dpkg -i our packages"
  else bad "$s: dpkg -i our packages (see $log)"; continue; fi
  say "$s: $(on "$s" dpkg-query -W -f='${Package} ${Version}; ' libibverbs1 'librdmacm1*' libibverbs-dev librdmacm-dev ibverbs-providers-rs 2>/dev/null)"
  proofs "$s" ours
done
scenarios installed SCEN_SYSTEM=ours
# A C program against the installed -dev packages: compiled and linked with
# pkg-config's flags only.
cprog=$repo/packaging/tests/pkgconfig_probe.c
flags=$(pkg-config --cflags --libs libibverbs librdmacm 2>&1) || bad "pkg-config --cflags --libs libibverbs librdmacm: $flags"
say "pkg-config --cflags --libs libibverbs librdmacm: $flags"
if gcc -Wall -Werror -o /tmp/pkgconfig_probe "$cprog" $flags >> "$log" 2>&1; then
  ok "gcc $(basename "$cprog") \$(pkg-config ...)"
  say "ldd /tmp/pkgconfig_probe: $(ldd /tmp/pkgconfig_probe | grep -E 'libibverbs|librdmacm' | sed 's/ (0x.*//' | tr -s '\t\n' '  ')"
  if out=$(/tmp/pkgconfig_probe 2>&1); then ok "pkgconfig_probe ran: $out"
  else bad "pkgconfig_probe failed: $out"; fi
else
  bad "gcc $(basename "$cprog") against the installed -dev packages (see $log)"
fi

# ---- restored ------------------------------------------------------------------
say "=== restored"
for s in "${suites[@]}"; do
  if on "$s" dpkg -r ibverbs-providers-rs >> "$log" 2>&1; then ok "$s: dpkg -r ibverbs-providers-rs"
  else bad "$s: dpkg -r ibverbs-providers-rs"; fi
  if [[ -n $(on "$s" dpkg-divert --list '*-rdmav*') ]]; then bad "$s: a diversion is left: $(on "$s" dpkg-divert --list)"
  else ok "$s: no diversion left"; fi
  for p in librdmacm-dev libibverbs-dev; do   # librdmacm-dev depends on libibverbs-dev
    [[ " ${had[$s]} " = *" $p "* ]] && continue
    if on "$s" dpkg -r "$p" >> "$log" 2>&1; then ok "$s: dpkg -r $p (not installed before ours)"
    else bad "$s: dpkg -r $p"; fi
  done
  if on "$s" dpkg -i $(debs "$s" distro) >> "$log" 2>&1; then ok "$s: dpkg -i the distribution's packages"
  else bad "$s: dpkg -i the distribution's packages (see $log)"; continue; fi
  on "$s" dpkg --audit >> "$log" 2>&1 && ok "$s: dpkg --audit clean" || bad "$s: dpkg --audit"
  proofs "$s" debian
done
scenarios restored SCEN_SYSTEM=debian

say "=== packages: $fails failed check(s)"
[[ $fails = 0 ]]
