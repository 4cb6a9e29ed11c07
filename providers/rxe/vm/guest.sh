#!/bin/bash
# Runs inside the Soft-RoCE VM (providers/rxe/vm/run starts it): the checks
# of our rxe provider against Debian's C provider. Environment: T (the
# cargo profile directory holding librxe-rs-rdmav34.so and our
# libibverbs.so.1), BIN (the checks' programs), VM_OUT.
#
#   guest.sh pairs | check | cost | stress | sid ...
set -u
D="env RDMAV_DRIVERS=$T/librxe-rs"
O="env RDMAV_DRIVERS=$T/librxe-rs LD_LIBRARY_PATH=$T"
C="env"
cd "$VM_OUT"

# pair NAME SERVER-ENV CLIENT-ENV SERVER CLIENT [CHROOT]
pair() {
  local name=$1 se=$2 ce=$3 srv=$4 cli=$5 ch=${6:-}
  timeout 60 $ch $se $srv > srv.txt 2>&1 & local s=$!
  if [[ $srv == rping* ]]; then sleep 3; else sleep 4; fi
  timeout 60 $ch $ce $cli > cli.txt 2>&1; local c=$?
  wait $s; local sr=$?
  echo "RESULT $name server=$sr client=$c"
  [[ $sr = 0 && $c = 0 ]] || { sed 's/^/  S: /' srv.txt; sed 's/^/  C: /' cli.txt; }
}

# suite MODE SERVER-ENV CLIENT-ENV [CHROOT]
suite() {
  local m=$1 se=$2 ce=$3 ch=${4:-}
  echo "##### $m"
  echo "server side:"; $ch $se "$BIN/which_provider" | grep -v 'maps: /usr/lib/x86_64-linux-gnu/libibverbs/'
  echo "client side:"; $ch $ce "$BIN/which_provider" | grep -v 'maps: /usr/lib/x86_64-linux-gnu/libibverbs/'
  pair $m.rc "$se" "$ce" 'ibv_rc_pingpong -d rxe0 -g 1' 'ibv_rc_pingpong -d rxe0 -g 1 10.0.2.15' "$ch"
  pair $m.rc_e "$se" "$ce" 'ibv_rc_pingpong -d rxe0 -g 1 -e' 'ibv_rc_pingpong -d rxe0 -g 1 -e 10.0.2.15' "$ch"
  pair $m.rc_N_c "$se" "$ce" 'ibv_rc_pingpong -d rxe0 -g 1 -N -c' 'ibv_rc_pingpong -d rxe0 -g 1 -N -c 10.0.2.15' "$ch"
  pair $m.rc_s4096 "$se" "$ce" 'ibv_rc_pingpong -d rxe0 -g 1 -s 4096 -n 500' 'ibv_rc_pingpong -d rxe0 -g 1 -s 4096 -n 500 10.0.2.15' "$ch"
  pair $m.ud "$se" "$ce" 'ibv_ud_pingpong -d rxe0 -g 1' 'ibv_ud_pingpong -d rxe0 -g 1 10.0.2.15' "$ch"
  pair $m.srq "$se" "$ce" 'ibv_srq_pingpong -d rxe0 -g 1' 'ibv_srq_pingpong -d rxe0 -g 1 10.0.2.15' "$ch"
  pair $m.write_bw "$se" "$ce" 'ib_write_bw -d rxe0 -x 1 -n 200' 'ib_write_bw -d rxe0 -x 1 -n 200 10.0.2.15' "$ch"
  pair $m.send_lat "$se" "$ce" 'ib_send_lat -d rxe0 -x 1 -n 200' 'ib_send_lat -d rxe0 -x 1 -n 200 10.0.2.15' "$ch"
  pair $m.read_lat "$se" "$ce" 'ib_read_lat -d rxe0 -x 1 -n 200' 'ib_read_lat -d rxe0 -x 1 -n 200 10.0.2.15' "$ch"
  pair $m.atomic_lat "$se" "$ce" 'ib_atomic_lat -d rxe0 -x 1 -n 200' 'ib_atomic_lat -d rxe0 -x 1 -n 200 10.0.2.15' "$ch"
  pair $m.rping "$se" "$ce" 'rping -s -a 10.0.2.15 -C 10 -v' 'rping -c -a 10.0.2.15 -C 10 -v' "$ch"
}

# check [CHROOT]: rxe_check with Debian's provider and ours, compared.
check() {
  local ch=${1:-} p=${1:+sid-}
  for mode in good bad; do
    timeout 300 $ch "$BIN/rxe_check" $mode > ${p}$mode-c.txt 2>&1
    timeout 300 $ch $D "$BIN/rxe_check" $mode > ${p}$mode-rs.txt 2>&1
    timeout 300 $ch $O "$BIN/rxe_check" $mode > ${p}$mode-rs-ours.txt 2>&1
    echo "##### rxe_check $mode${ch:+ (sid)}: the C provider, then ours where it differs"
    diff ${p}$mode-c.txt ${p}$mode-rs.txt
    diff -q ${p}$mode-rs.txt ${p}$mode-rs-ours.txt && echo "(ours the same under our libibverbs)"
  done
}

cost() {
  local v e
  for v in c rs; do
    case $v in c) e=$C ;; rs) e=$D ;; esac
    $e valgrind --tool=callgrind --toggle-collect='m_*' --callgrind-out-file=cg-$v.out "$BIN/rxe_cost" 300 > cost-$v.txt 2> cg-$v.log
    echo "##### instructions ($v): $(cat cost-$v.txt)"
    callgrind_annotate --inclusive=yes cg-$v.out 2>/dev/null | grep -E 'rxe_cost.c:m_' | sed 's/^/  /'
  done
}

stress() {
  local v e
  for v in c rs rs-ours; do
    case $v in c) e=$C ;; rs) e=$D ;; rs-ours) e=$O ;; esac
    echo "##### stress under valgrind ($v)"
    $e VM_PROGS="$BIN" timeout 900 "$REPO/abi-tests/vm-progs/run-stress" 10000 8 2>&1 | tail -40
  done
}

sid() {
  local root=$HOME/.cache/rdma-core-rs/userland/sid d
  [[ -x $root/usr/bin/ibv_devinfo ]] || { echo "no sid userland (abi-tests/vm/build-userland sid)"; return; }
  mount -t proc proc "$root/proc"; mount --rbind /sys "$root/sys"; mount --rbind /dev "$root/dev"
  mount -t tmpfs run "$root/run"
  for d in "$T" "$BIN" "$VM_OUT"; do mkdir -p "$root$d"; mount --bind "$d" "$root$d"; done
  chroot "$root" dpkg-query -W libibverbs1
  suite sid.dd "$D" "$D" "chroot $root"
  suite sid.oo "$O" "$O" "chroot $root"
  suite sid.mix "$D" "$C" "chroot $root"
  check "chroot $root"
}

for part in "$@"; do
  case $part in
    pairs) suite dd "$D" "$D"; suite oo "$O" "$O"; suite mix1 "$D" "$C"; suite mix2 "$C" "$O" ;;
    check) check ;;
    cost) cost ;;
    stress) stress ;;
    sid) sid ;;
  esac
done
