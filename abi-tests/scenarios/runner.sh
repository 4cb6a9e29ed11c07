#!/usr/bin/env bash
# runner.sh: run a list of scenarios, each once with Debian's libraries
# ("upstream") and once with ours ("ours"), and compare what they did.
#
#   abi-tests/scenarios/runner.sh LIST_FILE
#
# Called by abi-tests/run-scenarios (on the host, or inside the Soft-RoCE VM);
# you normally do not call it directly. LIST_FILE is a bash file that calls the
# scenario functions below (see vm.sh and host.sh). Environment:
#   SCEN_OUT            results directory (required): SCEN_OUT/<name>/...
#   RDMA_OURS_LIB_DIR   directory with our libibverbs.so.1 (required)
#   SCEN_PENDING=1      also run the scenarios marked --pending
#   SCEN_LONG=1         also run the scenarios marked --long
#   SCEN_ONLY="a b"     run only these scenarios
#   SCEN_SHOW=1         print every run's output, not only the differences
#   SCEN_TIER=ci|full   which pairings a `pair` runs (default full): the full
#                       tier runs every pairing of --combos; the CI tier runs
#                       the reference and ours:ours, and the mixed pairings
#                       only for the scenarios marked --mixed
#   SCEN_LIST=1         run nothing: print each scenario with the runs each
#                       tier makes of it (abi-tests/run-scenarios --list)
#   SCEN_REFS=DIR       references recorded by a full-tier run (see
#                       run-scenarios --record): in the CI tier, a compare or
#                       pair whose DIR/NAME/key matches uses the recorded
#                       reference instead of running Debian's libraries again;
#                       if ours then differs from it, the reference runs live
#                       and decides. SCEN_REF_FP is what the keys are made of
#                       besides the scenario's own words (run-scenarios sets
#                       both)
#   SCEN_KEYS=1         run nothing: print each scenario's name, kind and key
#   SCEN_CLAIMS=DIR     run only the scenarios whose DIR/NAME this run creates
#                       first (several VMs at once share DIR)
#   VM_PROGS=DIR        the C programs of abi-tests/vm-progs, built before
#                       (see vm-progs/cprog); passed on to every command
#   SCEN_USERLAND_DIR   where abi-tests/vm/build-userland keeps the other
#                       distributions' root filesystems (for --userland)
#   SCEN_UL_FP="SUITE=HASH ..."  what each userland's recorded references
#                       depend on (its packages), added to the keys of its
#                       scenarios
#   SCEN_PROVIDER=debian|ours   which providers the compared runs use (default
#                       debian; see "Provider mode" below)
#   RDMA_OURS_PROVIDER_DIR  (provider mode) the directory holding our
#                       providers, lib<NAME>-rs-rdmav34.so
#   SCEN_OURS_PROVIDERS="rxe siw"  (provider mode) the NAMEs of our providers
#
# Provider mode (SCEN_PROVIDER=ours; run-scenarios --provider ours). The
# reference stays Debian's libraries with Debian's C providers, and a
# recorded reference serves as in the default mode: no reference run ever
# has RDMAV_DRIVERS set, so it is the same run in both modes (same key). The
# runs compared with it use OUR providers, selected as a user selects them:
# RDMAV_DRIVERS=$RDMA_OURS_PROVIDER_DIR/librxe-rs:.../libsiw-rs (libibverbs
# appends -rdmav34.so). Two more variants:
#   upstream+prov       Debian's libibverbs with our providers
#   ours+prov           our libibverbs with our providers
# A compare runs both against the reference; a differs checks upstream+prov
# against the upstream expectations and ours+prov against ours'; a pair runs,
# in the full tier, upstream+prov and ours+prov on both sides, and each of
# them on one side against Debian's libraries and C provider on the other
# (upstream), both ways: six pairings (SCEN_PROVIDER_COMBOS overrides; a
# pair's own --combos applies to the default mode only). The CI tier runs
# only the scenarios named by `provider_ci` in the list file, the pairs in
# ours+prov:ours+prov alone (compares, differs and loads still run both
# +prov variants): it has to fit beside the default mode's CI tier. A loaded checks the
# +prov variants, with our provider in place of each Debian provider named
# by --provider. In another distribution's userland (--userland) the chroot
# sees the provider directory at its own path, and RDMAV_DRIVERS names it as
# outside: that distribution's libibverbs appends its own suffix (Debian 13's
# -rdmav34.so, sid's -rdmav65.so) and ours the suffix of the providers the
# userland installs (see the loader in docs/architecture.md), so either
# loads the file that names the userland's private ABI. A loaded there also
# proves that name: the +prov runs must have loaded our provider under the
# name of Debian's one (librxe-rs-rdmav65.so for sid's librxe-rdmav65.so)
# and bound only that ABI's IBVERBS_PRIVATE_NN names.
#
# System mode (SCEN_SYSTEM=ours or debian; run-scenarios --packages). The
# libraries under test are the ones installed on the system: ours from our
# Debian packages (ours), or the distribution's put back after them
# (debian). The "ours" variant then runs without LD_LIBRARY_PATH, as every
# program on such a system does. Debian's libraries are not there to run a
# reference live, so a compare or pair takes its reference from SCEN_REFS
# (recorded, whatever the tier) and fails without one, or where a run
# differs from it; pairs run ours:ours alone, and the other kinds are not
# run. Preflight checks which libibverbs1 package is installed: ours (its
# version has "+rs") or the distribution's.
#
# Wrapper mode (SCEN_WRAPPER=PROGRAM): the "ours" variant runs each command
# under PROGRAM instead (packaging's rdma-core-rs-run, which sets the
# variables that select our libraries from their private directory), and
# RDMA_OURS_LIB_DIR names that directory for preflight and the loaded checks.
#
# The two variants differ ONLY in LD_LIBRARY_PATH: "upstream" runs without it
# (the dynamic linker finds Debian's /usr/lib/x86_64-linux-gnu/libibverbs.so.1),
# "ours" runs with LD_LIBRARY_PATH=$RDMA_OURS_LIB_DIR. Both get the same clean
# environment (PATH, HOME, LC_ALL=C), so the outputs are comparable byte for
# byte. (Provider mode adds RDMAV_DRIVERS to that: see above.)
#
# Per scenario, SCEN_OUT/<name>/ holds each run's stdout, stderr and exit code
# (<run>.out, <run>.err, <run>.rc), `status` (PASS, FAIL or PENDING) and
# `report.txt` (what was compared and every difference). The exit code is 0
# when no scenario failed.
#
# Scenario functions. Commands are shell strings, run with `bash -c "exec CMD"`.
#
#   compare NAME [options] CMD
#       Run CMD in both variants; stdout, stderr and exit code must be equal.
#       --expect RE    a line of the reference run's stdout must match the
#                      extended regex RE (repeatable): shows that the program
#                      got as far as it should, so that two runs failing the
#                      same way early cannot pass
#
#   pair NAME [options] SERVER_CMD CLIENT_CMD
#       Client/server pair (ibv_rc_pingpong, rping, ...): start SERVER_CMD in
#       the background, wait until it is ready (--ready), run CLIENT_CMD, wait
#       for the server. The reference run uses Debian's libraries on both
#       sides; then ours:ours, ours:upstream and upstream:ours (server:client)
#       runs must match it (after --filter).
#       --ready CMD    poll CMD (every 0.1 s, up to --timeout) before starting
#                      the client; helpers: `tcp_listening PORT`,
#                      `cm_listening PORT` (an RDMA CM id listening on PORT)
#                      and `udp_bound PORT` (a UDP socket bound to PORT).
#                      Without it the client starts after 1 s.
#       --combos LIST  the server:client combinations to compare with the
#                      reference (default "ours:ours ours:upstream upstream:ours")
#       --mixed WHY    the CI tier runs the mixed pairings too (without it,
#                      only the full tier does); WHY names what the mixed
#                      pairings catch here that the others do not
#       --exits S:C    the exit codes the reference run must end with, server
#                      and client (default 0:0), for programs that end with
#                      an error under upstream's libraries too; write down why
#                      beside the scenario. The pairings must then match them
#                      as everything else
#       --expect SIDE:RE  a line of the reference run's SIDE (server or
#                      client) output, stdout or stderr after --filter, must
#                      match the extended regex RE (repeatable): with
#                      --exits, what shows that the programs got as far as
#                      they should before the error
#       --race RE      the tested programs have a race of their own that a
#                      run can lose whichever library it uses, and a lost run
#                      prints a line matching the extended regex RE on the
#                      client's or the server's stderr. Such a run is reported and run again,
#                      up to 3 tries per pairing (reference included); the
#                      last try is the one compared. Use it only for a race
#                      that is understood and written down beside the scenario.
#
#   loaded NAME [options] CMD
#       Prove which libraries a run really used, from the dynamic linker's own
#       trace (LD_DEBUG=libs,bindings): in the "ours" run, every --ours LIB was
#       loaded from $RDMA_OURS_LIB_DIR and Debian's copy was not; every
#       --provider PATH was loaded and its references to libibverbs symbols
#       were bound to our library. The "upstream" run must show Debian's
#       library and the providers, bound to it, and both runs must exit 0.
#       --ops DEVICE   also run abi-tests/vm-progs/provider_ops DEVICE in
#                      each run's environment: every data-path entry point of
#                      DEVICE's context (post_send, poll_cq, the ibv_wr_*
#                      builders, the extended CQ's polling) must be code of
#                      the run's provider (the first --provider, or ours in
#                      its place in provider mode), and the same entry points
#                      must resolve to the provider in every run as in
#                      Debian's reference
#       --alone        (provider mode) the runs with our providers must not
#                      have initialised Debian's --provider at all (see
#                      abi-tests/vm-progs/provider-alone); without it, that
#                      it was is reported, not failed: libibverbs loads every
#                      provider of /etc/libibverbs.d after RDMAV_DRIVERS'
#
#   differs NAME [options] CMD
#       A documented, deliberate difference from upstream (where ours does
#       better; see "Deliberate differences from upstream" in
#       docs/architecture.md): run CMD in both variants and check each run
#       against its own expectations instead of comparing them.
#       --rc VARIANT:N     the VARIANT run (upstream or ours) must exit with N
#                          (any: its exit code is recorded, not checked)
#                          (default 0 for both)
#       --has VARIANT:RE   a line of the VARIANT run's stdout or stderr (after
#                          --filter) must match the extended regex RE
#       --lacks VARIANT:RE no line of it may match RE
#       (--has and --lacks repeat.)
#
#   Options for all of them:
#       --userland SUITE  run every command in a chroot of another Debian
#                      userland (trixie, sid): the reference is that
#                      distribution's own libraries, and "ours" is ours with
#                      its programs and providers. The chroot gets /dev,
#                      /proc and /sys, and the repository, our libraries
#                      (and in provider mode our providers) and the results
#                      directory at their own paths; commands start in the
#                      same directory as outside.
#       --filter SED   sed script applied to stdout and stderr before comparing
#                      (for values that legitimately change: QPNs, timings)
#       --timeout S    per command (default 60)
#       --pending WHY  not expected to work yet (e.g. "needs XRC, which rxe lacks"): skipped and
#                      listed unless SCEN_PENDING=1
#       --long WHY     works, but takes too long for every run (CI): skipped
#                      and listed unless SCEN_LONG=1
set -uo pipefail

: "${SCEN_OUT:?SCEN_OUT must name the results directory}"
: "${RDMA_OURS_LIB_DIR:?RDMA_OURS_LIB_DIR must name the directory holding our libibverbs.so.1}"
OURS_DIR=$(cd "$RDMA_OURS_LIB_DIR" && pwd) || exit 2
SYS_LIBDIR=/usr/lib/x86_64-linux-gnu
CLEAN_ENV=(env -i "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
           "HOME=${HOME:-/root}" LC_ALL=C)
[[ -z ${VM_PROGS:-} ]] || CLEAN_ENV+=("VM_PROGS=$VM_PROGS")
REFS=${SCEN_REFS:-}
TIER=${SCEN_TIER:-full}
[[ $TIER = ci || $TIER = full ]] || { echo "runner: SCEN_TIER must be ci or full, not '$TIER'" >&2; exit 2; }

SYSTEM=${SCEN_SYSTEM:-}
[[ -z $SYSTEM || $SYSTEM = ours || $SYSTEM = debian ]] \
  || { echo "runner: SCEN_SYSTEM must be ours or debian, not '$SYSTEM'" >&2; exit 2; }

PROVIDER=${SCEN_PROVIDER:-debian}
[[ $PROVIDER = debian || $PROVIDER = ours ]] \
  || { echo "runner: SCEN_PROVIDER must be debian or ours, not '$PROVIDER'" >&2; exit 2; }
PROV_DIR= OURS_PROVIDERS=() PROV_DRIVERS=
if [[ $PROVIDER = ours ]]; then
  : "${RDMA_OURS_PROVIDER_DIR:?provider mode: RDMA_OURS_PROVIDER_DIR must name the directory of our providers}"
  PROV_DIR=$(cd "$RDMA_OURS_PROVIDER_DIR" && pwd) || exit 2
  read -ra OURS_PROVIDERS <<< "${SCEN_OURS_PROVIDERS:-rxe siw}"
  for p in "${OURS_PROVIDERS[@]}"; do PROV_DRIVERS+="${PROV_DRIVERS:+:}$PROV_DIR/lib$p-rs"; done
fi

# ours_provider NAME SUFFIX: the file of our provider NAME (rxe, siw) with
# SUFFIX (-rdmav34.so; sid's libibverbs asks for -rdmav65.so). The one place
# that knows how our providers' files are named.
ours_provider() { echo "$PROV_DIR/lib$1-rs$2"; }

# prov_path VARIANT PATH: the provider a run of VARIANT uses where the
# scenario names Debian's provider PATH: ours in its place in the +prov
# variants (when we have one of that NAME), else PATH.
prov_path() {
  local v=$1 p=$2 base name sfx
  if [[ $v == *+prov ]]; then
    base=${p##*/}
    if [[ $base =~ ^lib(.+)(-rdmav[0-9]+\.so)$ ]]; then
      name=${BASH_REMATCH[1]} sfx=${BASH_REMATCH[2]}
      [[ " ${OURS_PROVIDERS[*]} " == *" $name "* ]] && { ours_provider "$name" "$sfx"; return; }
    fi
  fi
  echo "$p"
}

# The scenarios the CI tier runs in provider mode, named by the list file
# with `provider_ci NAME...` (before the scenarios themselves).
declare -A PROV_CI=()
provider_ci() { local n; for n; do PROV_CI[$n]=1; done; }

n_pass=0; n_fail=0; n_pending=0; n_long=0; all_names=
summary=()

# ---- helpers usable in --ready ------------------------------------------------

tcp_listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
# A UDP socket bound to PORT (a datagram rsocket's server binds a real one).
udp_bound() { ss -Hlun "sport = :$1" 2>/dev/null | grep -q .; }
cm_listening() { rdma resource show cm_id 2>/dev/null | grep "state LISTEN.*src-addr [^ ]*:$1\b" > /dev/null; }
# mckey's UDP id has resolved the multicast GROUP (an IPv4 address).
mckey_resolved() { rdma resource show cm_id 2>/dev/null | grep "ps UDP .*comm mckey .*dst-addr ${1//./\\.}:" > /dev/null; }

# ---- internals ------------------------------------------------------------------

# set_env VARIANT: envv becomes the env(1) command line that selects the
# libraries of VARIANT.
# A variant is upstream or ours (the libraries), with +prov in provider mode
# (our providers through RDMAV_DRIVERS).
set_env() {
  case "${1%+prov}" in
    upstream) envv=("${CLEAN_ENV[@]}") ;;
    ours) envv=("${CLEAN_ENV[@]}")
          if [[ -n ${SCEN_WRAPPER:-} ]]; then envv+=("$SCEN_WRAPPER")
          elif [[ -z $SYSTEM ]]; then envv+=("LD_LIBRARY_PATH=$OURS_DIR"); fi ;;
    *) echo "runner: unknown variant $1" >&2; exit 2 ;;
  esac
  if [[ $1 == *+prov ]]; then
    [[ -n $PROV_DRIVERS ]] || { echo "runner: variant $1 outside provider mode" >&2; exit 2; }
    envv+=("RDMAV_DRIVERS=$PROV_DRIVERS")
  fi
  if [[ -n ${o_userland:-} ]]; then
    # chroot starts in /: back to this directory, then the command.
    envv=(chroot "$(userland_root "$o_userland")" "${envv[@]}"
          bash -c 'cd "$1" && shift && exec "$@"' chroot-cd "$PWD")
  fi
}

# ---- other distributions' userlands ----------------------------------------------

declare -A ul_ready=()

# userland_root SUITE: the root filesystem of SUITE.
userland_root() { echo "${SCEN_USERLAND_DIR:-$HOME/.cache/rdma-core-rs/userland}/$1"; }

# ul_real SUITE PATH: PATH inside SUITE's root with its symlinks resolved
# there, as a path inside.
ul_real() {
  local root r; root=$(userland_root "$1")
  r=$(readlink -f "$root$2") || { echo "$2"; return; }
  echo "${r#"$root"}"
}

# userland_up SUITE: mount what the chroot needs (once per runner), and check
# that its two variants resolve libibverbs.so.1 to its own and to ours.
userland_up() {
  local suite=$1 root d
  [[ -z ${ul_ready[$suite]:-} ]] || return 0
  root=$(userland_root "$suite")
  [[ -x $root/usr/bin/ibv_devinfo ]] \
    || { echo "runner: no $suite userland at $root (abi-tests/vm/build-userland $suite)" >&2; exit 2; }
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc" || exit 2
  mountpoint -q "$root/sys" || mount --rbind /sys "$root/sys" || exit 2
  mountpoint -q "$root/dev" || mount --rbind /dev "$root/dev" || exit 2
  mountpoint -q "$root/run" || mount -t tmpfs run "$root/run" || exit 2
  for d in "$PWD" "$OURS_DIR" "$SCEN_OUT" ${VM_PROGS:+"$VM_PROGS"} ${PROV_DIR:+"$PROV_DIR"}; do
    mkdir -p "$root$d"
    mountpoint -q "$root$d" || mount --bind "$d" "$root$d" || exit 2
  done
  ul_ready[$suite]=1
  o_userland=$suite preflight
}

# real_path PATH: PATH with symlinks resolved, in the scenario's userland.
real_path() {
  if [[ -n ${o_userland:-} ]]; then ul_real "$o_userland" "$1"; else readlink -f "$1"; fi
}

# run_cmd VARIANT TIMEOUT PREFIX CMD: run CMD in the foreground; PREFIX.out,
# PREFIX.err, PREFIX.rc.
run_cmd() {
  local variant=$1 t=$2 prefix=$3 cmd=$4 envv
  set_env "$variant"
  "${envv[@]}" timeout -k 5 "$t" bash -c "exec $cmd" \
    > "$prefix.out" 2> "$prefix.err" < /dev/null
  echo $? > "$prefix.rc"
}

# preflight: check that the two variants really resolve libibverbs.so.1 to
# different files, the distribution's and ours, before trusting any
# comparison: on this machine, or in the userland $o_userland.
preflight() {
  if [[ -n $SYSTEM ]]; then system_preflight; return; fi
  local tool envv v got want where=${o_userland:+$o_userland }
  if [[ -n ${o_userland:-} ]]; then tool=/usr/bin/ibv_devinfo
  else tool=$(command -v ibv_devinfo) || { echo "runner: ibv_devinfo is not installed" >&2; exit 2; }; fi
  for v in upstream ours; do
    set_env "$v"
    got=$("${envv[@]}" ldd "$tool" | sed -n 's/^[[:space:]]*libibverbs\.so\.1 => \([^ ]*\) .*/\1/p')
    if [[ $v = ours ]]; then want=$OURS_DIR/libibverbs.so.1; else want=$SYS_LIBDIR/libibverbs.so.1; fi
    if [[ -z $got || $(real_path "$got") != "$(real_path "$want")" ]]; then
      echo "runner: preflight: the ${where}$v variant resolves libibverbs.so.1 to '${got:-nothing}', not $want" >&2
      exit 2
    fi
    echo "runner: ${where}$v: libibverbs.so.1 => $got" >&2
  done
  [[ $PROVIDER = ours ]] || return 0
  # Provider mode: our providers are there under the name this userland's
  # libibverbs asks for, and both libraries load them without a word (a
  # provider that fails to load is only a warning on stderr, and the device
  # would quietly fall to Debian's C provider).
  local n f err sfx
  sfx=$(provider_suffix)
  for n in "${OURS_PROVIDERS[@]}"; do
    f=$(ours_provider "$n" "$sfx")
    [[ -f $f ]] || { echo "runner: preflight: our $n provider $f does not exist" >&2; exit 2; }
  done
  for v in upstream+prov ours+prov; do
    set_env "$v"
    err=$("${envv[@]}" ibv_devices 2>&1 > /dev/null)
    if [[ -n $err ]]; then
      echo "runner: preflight: ${where}$v (RDMAV_DRIVERS=$PROV_DRIVERS): ibv_devices printed on stderr:" >&2
      echo "$err" >&2
      exit 2
    fi
    echo "runner: ${where}$v: RDMAV_DRIVERS=$PROV_DRIVERS (lib<name>-rs$sfx)" >&2
  done
}

# system_preflight: in system mode, the libibverbs1 package installed on
# this machine, or in the userland $o_userland, is ours (SCEN_SYSTEM=ours)
# or the distribution's (debian), and a program resolves libibverbs.so.1 to
# the file of that package.
system_preflight() {
  local root=/ where=${o_userland:+$o_userland } ver file owner envv got
  [[ -z ${o_userland:-} ]] || root=$(userland_root "$o_userland")
  ver=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' libibverbs1 2>/dev/null) \
    || { echo "runner: preflight: ${where}has no libibverbs1 package" >&2; exit 2; }
  if [[ $SYSTEM = ours && $ver != *+rs* ]] || [[ $SYSTEM = debian && $ver = *+rs* ]]; then
    echo "runner: preflight: ${where}libibverbs1 $ver is installed, not the $SYSTEM package" >&2
    exit 2
  fi
  set_env ours
  got=$("${envv[@]}" ldd /usr/bin/ibv_devinfo | sed -n 's/^[[:space:]]*libibverbs\.so\.1 => \([^ ]*\) .*/\1/p')
  file=$(real_path "${got:-/nonexistent}")
  owner=$(dpkg-query --admindir="$root/var/lib/dpkg" -S "$file" 2>/dev/null | cut -d: -f1)
  if [[ $owner != libibverbs1 ]]; then
    echo "runner: preflight: ${where}ibv_devinfo resolves libibverbs.so.1 to '${got:-nothing}' ($file), not libibverbs1's file" >&2
    exit 2
  fi
  echo "runner: ${where}system mode: libibverbs1 $ver ($SYSTEM); libibverbs.so.1 => $got ($file)" >&2
}

# provider_suffix: the suffix the providers of this machine, or of the
# userland $o_userland, are installed with (-rdmav65.so where there is one,
# as sid's; else -rdmav34.so): the one its libibverbs appends to the paths
# in RDMAV_DRIVERS, and the one ours tries first.
provider_suffix() {
  local root= f
  [[ -z ${o_userland:-} ]] || root=$(userland_root "$o_userland")
  for f in "$root$SYS_LIBDIR"/libibverbs/*-rdmav65.so; do
    [[ -e $f ]] && { echo -rdmav65.so; return; }
  done
  echo -rdmav34.so
}

# Parse the options shared by every scenario kind into the o_* variables;
# sets `rest` to the remaining positional arguments.
parse_opts() {
  o_filter=; o_timeout=60; o_pending=; o_long=; o_ready=; o_race=; o_mixed=; o_userland=; o_exits=0:0
  o_ops=; o_alone=
  o_combos="ours:ours ours:upstream upstream:ours"
  o_ours=(); o_provider=(); o_rc=(); o_has=(); o_lacks=(); o_expect=()
  rest=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --filter) o_filter=$2; shift 2 ;;
      --timeout) o_timeout=$2; shift 2 ;;
      --pending) o_pending=$2; shift 2 ;;
      --long) o_long=$2; shift 2 ;;
      --ready) o_ready=$2; shift 2 ;;
      --combos) o_combos=$2; shift 2 ;;
      --race) o_race=$2; shift 2 ;;
      --mixed) o_mixed=$2; shift 2 ;;
      --userland) o_userland=$2; shift 2 ;;
      --exits) o_exits=$2; shift 2 ;;
      --expect) o_expect+=("$2"); shift 2 ;;
      --ours) o_ours+=("$2"); shift 2 ;;
      --provider) o_provider+=("$2"); shift 2 ;;
      --ops) o_ops=$2; shift 2 ;;
      --alone) o_alone=1; shift ;;
      --rc) o_rc+=("$2"); shift 2 ;;
      --has) o_has+=("$2"); shift 2 ;;
      --lacks) o_lacks+=("$2"); shift 2 ;;
      --) shift; rest+=("$@"); break ;;
      -*) echo "runner: unknown option $1" >&2; return 2 ;;
      *) rest+=("$1"); shift ;;
    esac
  done
}

# skip NAME STATUS WHY: records a scenario not run because it is marked
# --pending (STATUS PENDING, run with SCEN_PENDING=1) or --long (LONG,
# SCEN_LONG=1).
skip() {
  local name=$1 st=$2 why=$3 lower=${2,,}
  echo "$st" > "$dir/status"
  echo "$lower ($why): not run (SCEN_$st=1 runs it)" > "$dir/report.txt"
  summary+=("$(printf '%-8s %s (%s)' "$st" "$name" "$why")")
}

# tier_combos TIER: the server:client pairings (besides the reference) a
# `pair` runs in TIER.
tier_combos() {
  if [[ -n $SYSTEM ]]; then echo ours:ours; return; fi
  if [[ $PROVIDER = ours ]]; then
    if [[ -n ${SCEN_PROVIDER_COMBOS:-} ]]; then echo "$SCEN_PROVIDER_COMBOS"
    elif [[ $1 = full ]]; then
      echo "upstream+prov:upstream+prov ours+prov:ours+prov ours+prov:upstream upstream:ours+prov upstream+prov:upstream upstream:upstream+prov"
    else
      echo "ours+prov:ours+prov"
    fi
    return
  fi
  if [[ $1 = full || -n $o_mixed || " $o_combos " != *" ours:ours "* ]]; then
    echo "$o_combos"
  else
    echo ours:ours
  fi
}

# run_variants: the variants a compare, differs or loaded runs besides (or,
# for differs and loaded, as) the reference: "upstream ours", or in
# provider mode "upstream+prov ours+prov" (the first plays upstream's part).
run_variants() {
  if [[ $PROVIDER = ours ]]; then echo "upstream+prov ours+prov"; else echo "upstream ours"; fi
}

# describe_variant V: how a variant's run is labelled in reports.
describe_variant() {
  case $1 in
    upstream) echo "with Debian's libraries" ;;
    ours) if [[ -n $SYSTEM ]]; then echo "with the system's libraries ($SYSTEM packages)"
          elif [[ -n ${SCEN_WRAPPER:-} ]]; then echo "with ours through $SCEN_WRAPPER"
          else echo "with ours (LD_LIBRARY_PATH=$OURS_DIR)"; fi ;;
    upstream+prov) echo "with Debian's libraries and our providers (RDMAV_DRIVERS=$PROV_DRIVERS)" ;;
    ours+prov) echo "with our libraries (LD_LIBRARY_PATH=$OURS_DIR) and our providers (RDMAV_DRIVERS=$PROV_DRIVERS)" ;;
  esac
}

# ---- recorded references ------------------------------------------------------
# Debian's reference cannot change while Debian's packages, the VM's kernel,
# the programs in abi-tests/vm-progs and the headers they are compiled against
# (include/) stay the same (SCEN_REF_FP sums them up)
# and the scenario's words do not change (its kind, name, options, commands).
# A scenario's key is made of both.

# scen_key KIND NAME ARGS...: the scenario's key, in $key (empty without
# SCEN_REF_FP).
scen_key() {
  key=
  [[ -n ${SCEN_REF_FP:-} ]] || return 0
  local ul= e
  if [[ -n $o_userland ]]; then
    for e in ${SCEN_UL_FP:-}; do [[ ${e%%=*} != "$o_userland" ]] || ul=${e#*=}; done
    [[ -n $ul ]] || return 0
  fi
  if [[ -n $ul ]]; then
    key=$(printf '%s\0' "$SCEN_REF_FP" "$ul" "$@" | sha256sum)
  else
    key=$(printf '%s\0' "$SCEN_REF_FP" "$@" | sha256sum)
  fi
  key=${key%% *}
}

# has_recorded NAME: REFS holds a reference for scenario NAME with key $key.
has_recorded() {
  local k=
  [[ -n $REFS && -n $key && -f $REFS/$1/key ]] || return 1
  read -r k < "$REFS/$1/key" || return 1
  [[ $k = "$key" ]]
}

# use_recorded NAME PREFIX SUFFIX...: in the CI tier, copy the recorded
# reference of NAME (its files <basename PREFIX>.SUFFIX) to PREFIX.SUFFIX.
# Returns 1 when there is none to use.
use_recorded() {
  local name=$1 base=${2##*/} sfx files=()
  [[ $TIER = ci || -n $SYSTEM ]] && has_recorded "$name" || return 1
  shift 2
  for sfx; do
    [[ -f $REFS/$name/$base.$sfx ]] || return 1
    files+=("$REFS/$name/$base.$sfx")
  done
  cp "${files[@]}" "$dir/"
}

# list_entry NAME KIND: SCEN_LIST's line for a scenario: what each tier runs.
list_entry() {
  local name=$1 kind=$2 ci full why=
  local rec=
  if [[ $kind = pair || $kind = compare ]] && has_recorded "$name"; then rec=" (recorded)"; fi
  case $kind in
    pair) ci="upstream:upstream$rec $(tier_combos ci)"; full="upstream:upstream $(tier_combos full)"
          [[ -z $o_mixed || $PROVIDER = ours ]] || why="mixed in CI: $o_mixed" ;;
    compare) local cv=ours; [[ $PROVIDER = debian ]] || cv=$(run_variants)
             ci="upstream$rec $cv"; full="upstream $cv" ;;
    *) ci=$(run_variants); full=$ci ;;
  esac
  if [[ -n $o_pending ]]; then ci=-; full=-; why="pending: $o_pending"
  elif [[ -n $o_long ]]; then ci=-; why="long: $o_long"
  elif [[ $PROVIDER = ours && -z ${PROV_CI[$name]:-} ]]; then ci=-; why="provider mode: full tier only"; fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$ci" "$full" "$why"
}

# begin NAME KIND ARGS...: common start of a scenario (ARGS: its words after
# the name); sets dir and key. Returns 1 when the scenario is skipped (not
# selected, pending, or SCEN_LIST or SCEN_KEYS).
begin() {
  local name=$1 kind=$2
  shift 2
  [[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "runner: bad scenario name '$name'" >&2; exit 2; }
  [[ $all_names != *" $name "* ]] || { echo "runner: scenario '$name' is defined twice" >&2; exit 2; }
  all_names+=" $name "
  if [[ -n ${SCEN_ONLY:-} && " $SCEN_ONLY " != *" $name "* ]]; then return 1; fi
  scen_key "$kind" "$name" "$@"
  if [[ ${SCEN_LIST:-0} = 1 ]]; then list_entry "$name" "$kind"; return 1; fi
  if [[ ${SCEN_KEYS:-0} = 1 ]]; then printf '%s\t%s\t%s\n' "$name" "$kind" "$key"; return 1; fi
  if [[ $PROVIDER = ours ]]; then
    # Provider mode's CI tier: only the scenarios named by provider_ci
    # (--only names any).
    if [[ $TIER = ci && -z ${SCEN_ONLY:-} && -z ${PROV_CI[$name]:-} ]]; then return 1; fi
  fi
  if [[ -n $SYSTEM && $kind != compare && $kind != pair ]]; then
    echo "=== $name: a $kind, not run in system mode" >&2; return 1
  fi
  # Several VMs at once (run-scenarios --jobs): the first to create the
  # scenario's claim runs it; the others pass it by.
  if [[ -n ${SCEN_CLAIMS:-} ]] && ! mkdir "$SCEN_CLAIMS/$name" 2>/dev/null; then return 1; fi
  dir=$SCEN_OUT/$name
  rm -rf "$dir"; mkdir -p "$dir"
  : > "$dir/report.txt"
  if [[ -n $o_pending && ${SCEN_PENDING:-0} != 1 ]]; then
    skip "$name" PENDING "$o_pending"; n_pending=$((n_pending + 1)); return 1
  fi
  if [[ -n $o_long && ${SCEN_LONG:-0} != 1 ]]; then
    skip "$name" LONG "$o_long"; n_long=$((n_long + 1)); return 1
  fi
  [[ -z $key ]] || echo "$key" > "$dir/key"
  [[ -z $o_userland ]] || userland_up "$o_userland"
  echo "=== $name" >&2
  t_begin=$EPOCHREALTIME
  return 0
}

# Under qemu's software emulation every program started costs tens of
# milliseconds, so the runner's own bookkeeping uses bash alone where it can.

# elapsed SINCE: seconds since the $EPOCHREALTIME value SINCE, to 0.1 s.
elapsed() {
  local us=$(( ${EPOCHREALTIME/./} - ${1/./} ))
  printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}

# rc_of PREFIX: the exit code a run recorded in PREFIX.rc, in $rc.
rc_of() { rc=; read -r rc < "$1.rc" || true; }

# nap SECONDS: sleep without starting a program (a read that times out on a
# pipe nobody writes to).
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }

report() { printf '%s\n' "$*" >> "$dir/report.txt"; }

# finish NAME OK: record the verdict and print the report.
finish() {
  local name=$1 ok=$2 st=PASS secs
  [[ $ok = 1 ]] || st=FAIL
  secs=$(elapsed "$t_begin")
  echo "$secs" > "$dir/seconds"
  report "wall time: $secs s"
  [[ -z $o_pending ]] || report "(marked pending: $o_pending)"
  echo "$st" > "$dir/status"
  if [[ $st = PASS ]]; then n_pass=$((n_pass + 1)); else n_fail=$((n_fail + 1)); fi
  summary+=("$(printf '%-8s %s (%s s)' "$st" "$name" "$secs")")
  if [[ $st = FAIL || ${SCEN_SHOW:-0} = 1 ]]; then sed 's/^/    /' "$dir/report.txt" >&2; fi
  echo "--- $st $name" >&2
}

# no_live_reference: in system mode, a scenario without a recorded
# reference fails (returns 0: the caller stops); else returns 1.
no_live_reference() {
  [[ -n $SYSTEM ]] || return 1
  report "system mode: no recorded reference (abi-tests/scenarios/reference/vm) with this scenario's key, and Debian's libraries are not installed to run one"
  finish "$name" 0
}

# show_run PREFIX LABEL: a run's output, for SCEN_SHOW and for failures.
show_run() {
  local p=$1 label=$2
  local rc; rc_of "$p"
  report "--- $label: exit code $rc"
  if [[ -s $p.out ]]; then report "stdout:"; sed 's/^/  | /' "$p.out" >> "$dir/report.txt"; fi
  if [[ -s $p.err ]]; then report "stderr:"; sed 's/^/  | /' "$p.err" >> "$dir/report.txt"; fi
}

# filtered FILE: the path of FILE after --filter (made once per file and
# kept as FILE.filtered: the reference is compared with every pairing), in
# $fpath.
filtered() {
  fpath=$1
  [[ -n $o_filter ]] || return 0
  fpath=$1.filtered
  [[ -e $fpath ]] || sed -e "$o_filter" "$1" > "$fpath"
}

# same REF OTHER [LABEL]: compare two runs' (filtered) outputs and exit
# codes; with LABEL, writes unified diffs into the report. Returns 0 when they
# are equal.
same() {
  local ref=$1 oth=$2 label=${3:-} equal=1 s a b fpath rc rc_ref
  for s in out err; do
    filtered "$ref.$s"; a=$fpath
    filtered "$oth.$s"; b=$fpath
    if ! cmp -s "$a" "$b"; then
      equal=0
      [[ -n $label ]] || return 1
      report "DIFFERENT std$s ($label):"
      diff -u --label "$(basename "$ref").$s" --label "$(basename "$oth").$s" \
        "$a" "$b" >> "$dir/report.txt"
    fi
  done
  rc_of "$ref"; rc_ref=$rc; rc_of "$oth"
  if [[ $rc_ref != "$rc" ]]; then
    equal=0
    [[ -n $label ]] || return 1
    report "DIFFERENT exit code ($label): ${ref##*/} $rc_ref, ${oth##*/} $rc"
  fi
  [[ $equal = 1 ]]
}

# ---- scenario kinds -------------------------------------------------------------

compare() {
  local name=$1; shift
  parse_opts "$@" || exit 2
  [[ ${#rest[@]} -eq 1 ]] || { echo "runner: compare $name: give exactly one command" >&2; exit 2; }
  begin "$name" compare "$@" || return 0
  local cmd=${rest[0]} ok=1 rc ref=live v variants
  read -ra variants <<< "$(run_variants)"
  [[ $PROVIDER = ours ]] || variants=(ours)
  echo "$cmd" > "$dir/cmd"
  report "command: $cmd"
  use_recorded "$name" "$dir/upstream" out err rc && ref=recorded \
    || { no_live_reference && return 0; run_cmd upstream "$o_timeout" "$dir/upstream" "$cmd"; }
  for v in "${variants[@]}"; do run_cmd "$v" "$o_timeout" "$dir/$v" "$cmd"; done
  if [[ $ref = recorded && -z $SYSTEM ]]; then
    for v in "${variants[@]}"; do same "$dir/upstream" "$dir/$v" || ref=stale; done
    if [[ $ref = stale ]]; then
      report "a run differs from the recorded reference: Debian's libraries run now, and decide"
      rm -f "$dir"/upstream.*
      run_cmd upstream "$o_timeout" "$dir/upstream" "$cmd"; ref=live
    fi
  fi
  echo "$ref" > "$dir/reference"
  report "reference: $ref"
  # 126/127: the shell could not run the command at all (not found, not
  # executable). Two such runs are "equal" but test nothing.
  rc_of "$dir/upstream"
  case $rc in
    126|127) ok=0; report "the command could not be run (exit code $rc): a broken scenario, not a result" ;;
  esac
  for v in "${variants[@]}"; do
    if same "$dir/upstream" "$dir/$v" "Debian's library vs $v" && [[ $ok = 1 ]]; then
      report "same stdout, stderr and exit code ($rc) with Debian's library and $v"
    else
      ok=0
    fi
  done
  local e
  for e in "${o_expect[@]}"; do
    if grep -Eq -- "$e" "$dir/upstream.out"; then report "ok: the reference printed a line matching /$e/"
    else ok=0; report "FAIL: the reference printed no line matching /$e/"; fi
  done
  if [[ $ok = 0 || ${SCEN_SHOW:-0} = 1 ]]; then
    show_run "$dir/upstream" "with Debian's libibverbs ($ref)"
    for v in "${variants[@]}"; do show_run "$dir/$v" "$(describe_variant "$v")"; done
  fi
  finish "$name" "$ok"
}

differs() {
  local name=$1; shift
  parse_opts "$@" || exit 2
  [[ ${#rest[@]} -eq 1 ]] || { echo "runner: differs $name: give exactly one command" >&2; exit 2; }
  [[ ${#o_has[@]} -gt 0 ]] || { echo "runner: differs $name: give at least one --has" >&2; exit 2; }
  begin "$name" differs "$@" || return 0
  local cmd=${rest[0]} v ok=1 e want got all rc run variants
  declare -A rc_want=([upstream]=0 [ours]=0)
  for e in "${o_rc[@]}"; do rc_want[${e%%:*}]=${e#*:}; done
  echo "$cmd" > "$dir/cmd"
  report "command: $cmd"
  # v is the role (upstream or ours) the expectations name; in provider mode
  # the run playing it is v+prov.
  read -ra variants <<< "$(run_variants)"
  for run in "${variants[@]}"; do
    v=${run%+prov}
    [[ $run = "$v" ]] || report "the $v expectations apply to the $run run"
    run_cmd "$run" "$o_timeout" "$dir/$v" "$cmd"
    all=$dir/$v.all
    cat "$dir/$v.out" "$dir/$v.err" > "$all"
    if [[ -n $o_filter ]]; then sed -e "$o_filter" "$all" > "$all.f"; mv "$all.f" "$all"; fi
    rc_of "$dir/$v"; got=$rc; want=${rc_want[$v]}
    if [[ $want = any ]]; then report "$v run exit code $got (any is accepted)"
    elif [[ $got = "$want" ]]; then report "ok: $v run exit code $got"
    else ok=0; report "FAIL: $v run exit code $got, expected $want"; fi
    for e in "${o_has[@]}"; do
      [[ ${e%%:*} = "$v" ]] || continue
      if grep -Eq -- "${e#*:}" "$all"; then report "ok: $v run has /${e#*:}/"
      else ok=0; report "FAIL: $v run has no line matching /${e#*:}/"; fi
    done
    for e in "${o_lacks[@]}"; do
      [[ ${e%%:*} = "$v" ]] || continue
      if grep -Eq -- "${e#*:}" "$all"; then ok=0; report "FAIL: $v run has a line matching /${e#*:}/"
      else report "ok: $v run lacks /${e#*:}/"; fi
    done
  done
  if [[ $ok = 0 || ${SCEN_SHOW:-0} = 1 ]]; then
    show_run "$dir/upstream" "$(describe_variant "${variants[0]}")"
    show_run "$dir/ours" "$(describe_variant "${variants[1]}")"
  fi
  finish "$name" "$ok"
}

# run_pair SERVER_VARIANT CLIENT_VARIANT PREFIX: one server/client run; files
# PREFIX.server.{out,err,rc} and PREFIX.client.{...}. With --race, a run whose
# client or server stderr matches the race's regex is kept as PREFIX.lostN.* and run
# again, up to 3 tries.
run_pair() {
  local sv=$1 cv=$2 p=$3 try f t0=$EPOCHREALTIME
  for try in 1 2 3; do
    run_pair_once "$sv" "$cv" "$p"
    elapsed "$t0" > "$p.seconds"
    [[ -n $o_race && $try -lt 3 ]] || return 0
    grep -Eq -- "$o_race" "$p.client.err" "$p.server.err" || return 0
    local rc rc_s; rc_of "$p.server"; rc_s=$rc; rc_of "$p.client"
    report "server $sv / client $cv: try $try lost the programs' own race (a stderr matched /$o_race/; exit codes: server $rc_s, client $rc); run again"
    echo "    server $sv / client $cv: try $try lost the programs' own race; run again" >&2
    for f in "$p".server.* "$p".client.*; do mv "$f" "$p.lost$try.${f#"$p."}"; done
    nap 1
  done
}

run_pair_once() {
  local sv=$1 cv=$2 p=$3 envv spid waited=0
  set_env "$sv"
  "${envv[@]}" timeout -k 5 "$o_timeout" bash -c "exec ${rest[0]}" \
    > "$p.server.out" 2> "$p.server.err" < /dev/null &
  spid=$!
  if [[ -n $o_ready ]]; then
    until eval "$o_ready"; do
      if ! kill -0 "$spid" 2>/dev/null; then break; fi
      if [[ $waited -ge $((o_timeout * 10)) ]]; then break; fi
      nap 0.1; waited=$((waited + 1))
    done
  else
    nap 1
  fi
  run_cmd "$cv" "$o_timeout" "$p.client" "${rest[1]}"
  # A client that failed may leave the server waiting for a peer forever:
  # give it a few seconds, then stop it.
  local rc; rc_of "$p.client"
  if [[ $rc != 0 ]]; then
    ( sleep 5; kill "$spid" 2>/dev/null ) & local killer=$!
    wait "$spid"; echo $? > "$p.server.rc"
    kill "$killer" 2>/dev/null; wait "$killer" 2>/dev/null
  else
    wait "$spid"; echo $? > "$p.server.rc"
  fi
}

pair() {
  local name=$1; shift
  parse_opts "$@" || exit 2
  [[ ${#rest[@]} -eq 2 ]] || { echo "runner: pair $name: give a server and a client command" >&2; exit 2; }
  begin "$name" pair "$@" || return 0
  local ok=1 combo combos sv cv p side rc ref=live
  local ref_files=(server.out server.err server.rc client.out client.err client.rc)
  printf 'server: %s\nclient: %s\n' "${rest[0]}" "${rest[1]}" > "$dir/cmd"
  report "server: ${rest[0]}"
  report "client: ${rest[1]}"
  [[ -z $o_filter ]] || report "filter: $o_filter"
  combos=$(tier_combos "$TIER")
  report "pairings ($TIER tier): upstream:upstream (the reference) $combos"
  use_recorded "$name" "$dir/upstream-upstream" "${ref_files[@]}" && ref=recorded \
    || { no_live_reference && return 0; run_pair upstream upstream "$dir/upstream-upstream"; }
  for combo in $combos; do
    sv=${combo%%:*}; cv=${combo#*:}
    run_pair "$sv" "$cv" "$dir/$sv-$cv"
  done
  if [[ $ref = recorded && -z $SYSTEM ]]; then
    for combo in $combos; do
      for side in server client; do
        same "$dir/upstream-upstream.$side" "$dir/${combo/:/-}.$side" || ref=stale
      done
    done
    if [[ $ref = stale ]]; then
      report "a pairing differs from the recorded reference: Debian's libraries run now on both sides, and decide"
      rm -f "$dir"/upstream-upstream.*
      run_pair upstream upstream "$dir/upstream-upstream"; ref=live
    fi
  fi
  echo "$ref" > "$dir/reference"
  report "reference: $ref"
  local want_rc
  for side in server client; do
    rc_of "$dir/upstream-upstream.$side"
    if [[ $side = server ]]; then want_rc=${o_exits%%:*}; else want_rc=${o_exits#*:}; fi
    [[ $rc = "$want_rc" ]] \
      || { ok=0; report "the reference run (Debian's libraries on both sides) failed: $side exit code $rc, not $want_rc"; }
  done
  local e fo fe
  for e in "${o_expect[@]}"; do
    side=${e%%:*}
    filtered "$dir/upstream-upstream.$side.out"; fo=$fpath
    filtered "$dir/upstream-upstream.$side.err"; fe=$fpath
    if cat "$fo" "$fe" | grep -Eq -- "${e#*:}"; then
      report "ok: the reference's $side printed a line matching /${e#*:}/"
    else
      ok=0; report "FAIL: the reference's $side printed no line matching /${e#*:}/"
    fi
  done
  for combo in $combos; do
    sv=${combo%%:*}; cv=${combo#*:}; p=$dir/$sv-$cv
    for side in server client; do
      if same "$dir/upstream-upstream.$side" "$p.$side" "$side, server $sv / client $cv"; then
        report "$side with server $sv / client $cv: same as the reference"
      else
        ok=0
      fi
    done
  done
  if [[ $ok = 0 || ${SCEN_SHOW:-0} = 1 ]]; then
    for combo in upstream:upstream $combos; do
      sv=${combo%%:*}; cv=${combo#*:}
      for side in server client; do
        show_run "$dir/$sv-$cv.$side" "$side (server $sv, client $cv)"
      done
    done
  fi
  finish "$name" "$ok"
}

# init_libs LDDEBUG_FILE: the libraries the dynamic linker initialised, with
# symlinks resolved, one a line.
init_libs() {
  sed -n 's/^ *[0-9]*:[[:space:]]*calling init: //p' "$1" | while read -r f; do
    real_path "$f"
  done
}

# init_names LDDEBUG_FILE: the libraries the dynamic linker initialised, by
# the names they were opened under (symlinks not resolved), one a line.
init_names() { sed -n 's/^ *[0-9]*:[[:space:]]*calling init: //p' "$1"; }

# bindings_from LIBPATH < TRACE: the symbol bindings made for LIBPATH (any
# path that resolves to it), as "from|to|symbol|version" with both paths
# resolved.
bindings_from() {
  local want=$1 from to sym ver
  declare -A real=()
  sed -n 's/^ *[0-9]*:[[:space:]]*binding file \(.*\) \[[0-9]*\] to \(.*\) \[[0-9]*\]: normal symbol `\(.*\)'"'"' \[\(.*\)\]$/\1|\2|\3|\4/p' \
    | while IFS='|' read -r from to sym ver; do
        [[ -n ${real[$from]:-} ]] || real[$from]=$(real_path "$from")
        [[ ${real[$from]} == "$want" ]] || continue
        [[ -n ${real[$to]:-} ]] || real[$to]=$(real_path "$to")
        echo "${real[$from]}|${real[$to]}|$sym|$ver"
      done
}

# ctor_lookups NAME < TRACE: the libibverbs symbols looked up while the
# constructor of the library opened as NAME ran (from its "calling init:"
# line to the next one of that process), as bindings_from prints them. Our
# providers have no link-time reference to libibverbs: their constructor
# resolves what they call with dlvsym on libibverbs' handle, which the
# trace shows as "binding file <libibverbs> to <libibverbs>", so only such
# lines are taken.
ctor_lookups() {
  local want=$1 from to sym ver
  declare -A real=()
  awk -v want="$want" '
      /calling init: / { n = $0; sub(/^.*calling init: /, "", n); pid = $1; seg = (n == want); next }
      /calling fini: / { seg = 0 }
      seg && $1 != pid { seg = 0 }
      seg { print }' \
    | sed -n 's/^ *[0-9]*:[[:space:]]*binding file \(.*\) \[[0-9]*\] to \(.*\) \[[0-9]*\]: normal symbol `\(.*\)'"'"' \[\(.*\)\]$/\1|\2|\3|\4/p' \
    | while IFS='|' read -r from to sym ver; do
        [[ $from == "$to" ]] || continue
        [[ -n ${real[$to]:-} ]] || real[$to]=$(real_path "$to")
        echo "${real[$to]}|${real[$to]}|$sym|$ver"
      done
}

loaded() {
  local name=$1; shift
  parse_opts "$@" || exit 2
  [[ ${#rest[@]} -eq 1 ]] || { echo "runner: loaded $name: give exactly one command" >&2; exit 2; }
  [[ -z $o_ops || ${#o_provider[@]} -gt 0 ]] || { echo "runner: loaded $name: --ops needs a --provider" >&2; exit 2; }
  begin "$name" loaded "$@" || return 0
  local cmd=${rest[0]} v ok=1 lib want prov provreal provname pabi variants uv ov libreal sysprov what
  read -ra variants <<< "$(run_variants)"
  uv=${variants[0]} ov=${variants[1]}
  local oursreal; oursreal=$(real_path "$OURS_DIR/libibverbs.so.1")
  local sysreal; sysreal=$(real_path "$SYS_LIBDIR/libibverbs.so.1")
  echo "$cmd" > "$dir/cmd"
  report "command: $cmd (LD_DEBUG=libs,bindings)"
  for v in "${variants[@]}"; do
    rm -f "$dir/$v.lddebug".*
    # Only the command itself is traced: env sets LD_DEBUG and exec()s it.
    run_cmd "$v" "$o_timeout" "$dir/$v" "env LD_DEBUG=libs,bindings LD_DEBUG_OUTPUT=$dir/$v.lddebug $cmd"
    # The trace file is named after the process id.
    cat "$dir/$v.lddebug".* > "$dir/$v.trace" 2>/dev/null || : > "$dir/$v.trace"
    rm -f "$dir/$v.lddebug".*
    init_libs "$dir/$v.trace" > "$dir/$v.libs"
    report "--- $v run ($(describe_variant "$v")): exit code $(cat "$dir/$v.rc"); libraries initialised:"
    sed 's/^/  | /' "$dir/$v.libs" >> "$dir/report.txt"
    if [[ $(cat "$dir/$v.rc") != 0 ]]; then
      ok=0; report "FAIL: the $v run exited with $(cat "$dir/$v.rc")"
      [[ -s $dir/$v.err ]] && sed 's/^/  stderr| /' "$dir/$v.err" >> "$dir/report.txt"
    fi
  done
  for lib in "${o_ours[@]}"; do
    want=$(real_path "$OURS_DIR/$lib")
    if grep -qxF "$want" "$dir/$ov.libs"; then
      report "ok: $ov run loaded our $lib ($want)"
    else
      ok=0; report "FAIL: $ov run did not load $want"
    fi
    if grep -qxF "$(real_path "$SYS_LIBDIR/$lib")" "$dir/$ov.libs"; then
      ok=0; report "FAIL: $ov run loaded the distribution's $lib too"
    fi
    if grep -qxF "$(real_path "$SYS_LIBDIR/$lib")" "$dir/$uv.libs"; then
      report "ok: $uv run loaded the distribution's $lib"
    else
      ok=0; report "FAIL: $uv run did not load the distribution's $lib"
    fi
  done
  for prov in "${o_provider[@]}"; do
    sysprov=$(real_path "$prov")
    for v in "${variants[@]}"; do
      provname=$(prov_path "$v" "$prov")
      provreal=$(real_path "$provname")
      if grep -qxF "$provreal" "$dir/$v.libs"; then
        report "ok: $v run loaded the provider $provreal"
      else
        ok=0; report "FAIL: $v run did not load the provider $provreal"
      fi
      if [[ $v == *+prov && $provname != "$provreal" ]]; then
        # Our providers are one file under two names, and take their
        # private ABI from the name they were opened under.
        # grep reads to the end (no -q): with pipefail, a grep that quits at
        # the first match kills sed with SIGPIPE on a large trace (mpirun's
        # runs), and the pipeline fails although the name is there.
        if init_names "$dir/$v.trace" | grep -xF "$provname" > /dev/null; then
          report "ok: $v run opened it as $provname"
        else
          ok=0; report "FAIL: $v run did not open it as $provname"
        fi
      fi
      if [[ $provreal != "$sysprov" ]]; then
        # Our provider in place of Debian's: was Debian's loaded as well?
        if ! grep -qxF "$sysprov" "$dir/$v.libs"; then
          report "ok: $v run did not load Debian's $sysprov"
        elif [[ -n $o_alone ]]; then
          ok=0; report "FAIL: $v run loaded Debian's $sysprov too (--alone)"
        else
          report "note: $v run also loaded Debian's $sysprov (named in /etc/libibverbs.d, loaded after RDMAV_DRIVERS' providers and registered after them: ours matches the device first${o_ops:+; see the entry points below})"
        fi
      fi
      # Which library did the provider's libibverbs references bind to? The
      # trace says "binding file <provider> [0] to <library> [0]: normal symbol
      # `ibv_cmd_...' [IBVERBS_PRIVATE_34]".
      if [[ ${v%+prov} = ours ]]; then libreal=$oursreal; else libreal=$sysreal; fi
      bindings_from "$provreal" < "$dir/$v.trace" | grep '|IBVERBS_' > "$dir/$v.provider-bindings" || true
      what="no binding from $provreal to an IBVERBS_* symbol in the trace"
      if [[ $provreal != "$sysprov" ]]; then
        # Our providers have no link-time reference to libibverbs: they take
        # its private functions with dlvsym at run time (one file serves
        # private ABI 34 and 65). A link-time IBVERBS_* reference would keep
        # them out of a library without that version, so there must be none.
        if [[ -s $dir/$v.provider-bindings ]]; then
          ok=0; report "FAIL: $v run: $provreal has link-time IBVERBS_* references (symbol|library|version):"
          cut -d'|' -f1 --complement "$dir/$v.provider-bindings" | head -5 | sed 's/^/  | /' >> "$dir/report.txt"
        else
          report "ok: $v run: $provreal has no link-time IBVERBS_* reference (it resolves libibverbs' functions at run time)"
        fi
        # What its constructor looked up instead (see ctor_lookups) is
        # checked below as a C provider's bindings are; the entry points
        # (--ops) show which library serves its calls.
        ctor_lookups "$provname" < "$dir/$v.trace" | grep '|IBVERBS_' > "$dir/$v.provider-bindings" || true
        what="no IBVERBS_* symbol looked up in libibverbs while the constructor of $provname ran"
      fi
      if [[ ! -s $dir/$v.provider-bindings ]]; then
        ok=0; report "FAIL: $v run: $what"
      elif grep -vqF "|$libreal|" "$dir/$v.provider-bindings"; then
        ok=0; report "FAIL: $v run: $provreal bound IBVERBS_* symbols to another library than $libreal (symbol|library|version):"
        grep -vF "|$libreal|" "$dir/$v.provider-bindings" | cut -d'|' -f1 --complement | head -5 \
          | sed 's/^/  | /' >> "$dir/report.txt"
      else
        report "ok: $v run: all $(wc -l < "$dir/$v.provider-bindings") IBVERBS_* references of $provreal were bound to $libreal, e.g. (symbol|library|version):"
        cut -d'|' -f1 --complement "$dir/$v.provider-bindings" | head -3 | sed 's/^/  | /' >> "$dir/report.txt"
      fi
      # Our provider speaks the private ABI its name asks for, and only it
      # (librxe-rs-rdmav65.so: IBVERBS_PRIVATE_65).
      if [[ $provreal != "$sysprov" && $provname =~ -rdmav([0-9]+)\.so$ ]]; then
        pabi=IBVERBS_PRIVATE_${BASH_REMATCH[1]}
        if ! grep -q '|IBVERBS_PRIVATE_[^|]*$' "$dir/$v.provider-bindings"; then
          ok=0; report "FAIL: $v run: $provreal bound no IBVERBS_PRIVATE_* name"
        elif grep '|IBVERBS_PRIVATE_[^|]*$' "$dir/$v.provider-bindings" | grep -vF "|$pabi" > /dev/null; then
          ok=0; report "FAIL: $v run: $provreal, opened as ${provname##*/}, bound other private ABIs than $pabi:"
          grep '|IBVERBS_PRIVATE_[^|]*$' "$dir/$v.provider-bindings" | grep -vF "|$pabi" \
            | cut -d'|' -f1 --complement | head -5 | sed 's/^/  | /' >> "$dir/report.txt"
        else
          report "ok: $v run: its $(grep -c "|$pabi\$" "$dir/$v.provider-bindings") private references are all $pabi (the ABI ${provname##*/} names)"
        fi
      fi
    done
  done
  [[ -z $o_ops ]] || check_ops "$o_ops" "${o_provider[0]}" "${variants[@]}" || ok=0
  finish "$name" "$ok"
}

# check_ops DEVICE PROVIDER VARIANT...: for loaded --ops. Runs provider_ops
# DEVICE with Debian's libraries (the reference) and in each VARIANT; in
# each, every entry point must be in that run's provider (PROVIDER, or ours
# in its place) or, for an op the provider leaves to the library, in that
# run's libibverbs; written as <provider> and <libibverbs>, every run must
# then print what the reference printed. Returns 1 on a failure.
check_ops() {
  local dev=$1 prov=$2 v provreal libreal ok=0 f runs=(upstream)
  shift 2
  for v; do [[ $v = upstream ]] || runs+=("$v"); done
  for v in "${runs[@]}"; do
    run_cmd "$v" "$o_timeout" "$dir/ops.$v" "abi-tests/vm-progs/run-c-probe provider_ops $dev"
    provreal=$(real_path "$(prov_path "$v" "$prov")")
    if [[ ${v%+prov} = ours ]]; then libreal=$(real_path "$OURS_DIR/libibverbs.so.1")
    else libreal=$(real_path "$SYS_LIBDIR/libibverbs.so.1"); fi
    f=$dir/ops.$v.out
    # Exact paths only: a path that is neither stays as it is, and differs.
    awk -v p="$provreal" -v l="$libreal" '$1 == "op" && $3 == p { $3 = "<provider>" }
        $1 == "op" && $3 == l { $3 = "<libibverbs>" } { print }' "$f" > "$f.norm"
    rc_of "$dir/ops.$v"
    if [[ $rc != 0 ]]; then
      ok=1; report "FAIL: provider_ops $dev in the $v run exited with $rc"
      sed 's/^/  | /' "$dir/ops.$v.out" "$dir/ops.$v.err" >> "$dir/report.txt"
      continue
    fi
    report "entry points of $dev in the $v run ($provreal = <provider>, $libreal = <libibverbs>):"
    sed 's/^/  | /' "$f.norm" >> "$dir/report.txt"
    if ! grep -q '^op post_send <provider>$' "$f.norm" || ! grep -q '^op poll_cq <provider>$' "$f.norm"; then
      ok=1; report "FAIL: $v run: post_send and poll_cq of $dev are not in $provreal"
    fi
  done
  for v in "${runs[@]:1}"; do
    if cmp -s "$dir/ops.upstream.out.norm" "$dir/ops.$v.out.norm"; then
      report "ok: $v run: every entry point is where the reference has it (its own provider, or its libibverbs)"
    else
      ok=1; report "FAIL: $v run: the entry points are not where the reference has them:"
      diff -u --label ops.upstream --label "ops.$v" "$dir/ops.upstream.out.norm" "$dir/ops.$v.out.norm" >> "$dir/report.txt"
    fi
  done
  return "$ok"
}

# ---- main -----------------------------------------------------------------------

[[ $# -eq 1 && -f $1 ]] || { echo "usage: SCEN_OUT=DIR RDMA_OURS_LIB_DIR=DIR $0 LIST_FILE" >&2; exit 2; }
if [[ ${SCEN_LIST:-0} = 1 || ${SCEN_KEYS:-0} = 1 ]]; then
  [[ ${SCEN_LIST:-0} != 1 ]] || printf 'scenario\tkind\tCI tier runs\tfull tier runs\twhy\n'
  # shellcheck source=/dev/null
  source "$1"
  exit 0
fi
mkdir -p "$SCEN_OUT"
[[ -z ${SCEN_REF_FP:-} ]] || echo "$SCEN_REF_FP" > "$SCEN_OUT/fingerprint"
preflight
# shellcheck source=/dev/null
source "$1"
for n in ${SCEN_ONLY:-} "${!PROV_CI[@]}"; do
  [[ $all_names == *" $n "* ]] || { echo "runner: no scenario named '$n' in $1" >&2; n_fail=$((n_fail + 1)); }
done

{
  [[ ${#summary[@]} -eq 0 ]] || printf '%s\n' "${summary[@]}"
  echo "$n_pass passed, $n_fail failed, $n_pending pending, $n_long long (not run)"
} | tee "$SCEN_OUT/summary.txt" >&2
[[ $n_fail -eq 0 ]]
