#!/usr/bin/env bash
# rstream-ceiling.sh: how much faster ANY rsockets library could make
# rstream's bulk transfers over Soft-RoCE, and how much of that ours takes.
#
# Over rxe0 on one host the sending process's vCPU does all of Soft-RoCE's
# packet work (segmenting, ICRC, the loopback, the receiving side's checks and
# copies), inside the post_send doorbell. While one side sends, its vCPU is
# therefore split between the kernel (the same work for any library sending
# the same bytes in the same messages) and user space (the library's copy
# into its send buffer, its calls, rstream's loop). The kernel's share K of
# the sender's time, times the time per transfer, is the kernel's time per
# transfer. A library can lower that only by sending fewer messages (ours
# sends larger RDMA writes than upstream), not below the per-packet work.
# So no library can beat Debian's by more than Debian's time over the
# kernel time of the leaner of the two libraries: the "ceiling" printed
# per size, reached only if user space cost nothing.
#
# In ONE boot of the Soft-RoCE VM (two vCPUs), per size and library: rstream's
# server on CPU 0, its client on CPU 1, a bandwidth run (-S SIZE -C COUNT,
# which sends COUNT transfers one way, then the other) under a system-wide
# `perf record -e cpu-clock`. The samples are cut into 100 ms windows; a
# window counts as a send phase of the CPU whose kernel share is at least 50%
# while the other CPU's is at most 25%. K is the kernel share of the sending
# CPU over all such windows.
#
#   abi-tests/bench/rstream-ceiling.sh [--sizes "65536:3000 1048576:200"] [--reps N] [--out DIR]
#
#   --sizes L   SIZE:COUNT pairs (default "65536:3000 1048576:200")
#   --reps N    runs per size and library, alternating ABBA (default 3)
#   --out DIR   results (default target/bench-rs-ceiling): DIR/bench.txt (the
#               report), DIR/raw/ (outputs and perf data)
# Environment: RDMA_OURS_LIB_DIR (default target/release) holds our
# libibverbs.so.1 and librdmacm.so.1. Needs perf (Debian's linux-perf; it is
# installed when missing).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# ---- inside the VM ---------------------------------------------------------------
if [[ ${1:-} = --in-vm ]]; then
  read -r -a sizes <<< "${BENCH_SIZES:?}"
  . "$here/vm-bench-guest.sh"
  bench_guest_init

  # phases FILE: from `perf script -F cpu,time,ip,comm` output, prints
  # "K windows" (K the sending CPU's kernel share over the send windows).
  phases() {
    awk '$1 == "rstream" {
           cpu = $2; b = int($3 / 0.1); n[b, cpu]++; if ($4 ~ /^ffff/) k[b, cpu]++
           if (!(b in seen)) { seen[b] = 1; order[++m] = b }
         }
         END {
           for (i = 1; i <= m; i++) {
             b = order[i]; n0 = n[b, "[000]"]; n1 = n[b, "[001]"]
             if (n0 < 20 || n1 < 20) continue
             s0 = k[b, "[000]"] / n0; s1 = k[b, "[001]"] / n1
             if (s0 >= 0.5 && s1 <= 0.25) { ks += k[b, "[000]"]; ns += n0; w++ }
             else if (s1 >= 0.5 && s0 <= 0.25) { ks += k[b, "[001]"]; ns += n1; w++ }
           }
           if (ns == 0) print "0 0"; else printf "%.4f %d\n", ks / ns, w
         }' "$1"
  }

  reps=${BENCH_REPS:?}
  say "rstream-ceiling: bulk rstream runs under perf, kernel share of the sending vCPU; $reps repetitions, ABBA"
  say "ours: $ours/librdmacm.so.1; kernel $(uname -r), $(nproc) CPUs"
  say ""
  say "$(printf '%-9s %-4s %-9s %12s %8s %8s %12s' size rep library usec/xfer K windows kernel-usec)"
  : > "$raw/runs.tsv"
  for sc in "${sizes[@]}"; do
    size=${sc%%:*} count=${sc##*:}
    for ((r = 1; r <= reps; r++)); do
      if ((r % 2)); then order=(upstream ours); else order=(ours upstream); fi
      for lib in "${order[@]}"; do
        envv=("${base_env[@]}")
        [[ $lib = ours ]] && envv+=("LD_LIBRARY_PATH=$ours")
        p=$raw/$lib.$size.$r
        for ((i = 0; i < 300; i++)); do cm_port_busy 7471 || break; sleep 0.1; done
        "${envv[@]}" timeout 1200 taskset -c 0 rstream -b 10.0.2.15 -S "$size" -C "$count" \
          > "$p.server.out" 2>&1 < /dev/null &
        spid=$!
        for ((i = 0; i < 600; i++)); do cm_listening 7471 && break; kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
        rc=0
        perf record -q -a -F 1000 -e cpu-clock -o "$p.perf" -- \
          "${envv[@]}" timeout 1200 taskset -c 1 rstream -s 10.0.2.15 -S "$size" -C "$count" \
          > "$p.client.out" 2> "$p.client.err" < /dev/null || rc=$?
        wait "$spid" || rc=$?
        u=$(awk '$1 == "custom" { print $8 }' "$p.client.out")
        if [[ $rc != 0 || -z $u ]]; then
          say "$(printf '%-9s %-4s %-9s FAILED (exit %s; see %s.*)' "$size" "$r" "$lib" "$rc" "$p")"
          continue
        fi
        perf script -i "$p.perf" -F cpu,time,ip,comm 2>/dev/null > "$p.samples"
        rm -f "$p.perf"
        read -r k w < <(phases "$p.samples")
        ku=$(awk -v k="$k" -v u="$u" 'BEGIN { printf "%.2f", k * u }')
        printf '%s\t%s\t%s\t%s\t%s\n' "$size" "$lib" "$u" "$k" "$ku" >> "$raw/runs.tsv"
        say "$(printf '%-9s %-4s %-9s %12s %8s %8s %12s' "$size" "$r" "$lib" "$u" "$k" "$w" "$ku")"
      done
    done
  done
  say ""
  # Per size: medians per library; the speed ratio; and the most any library
  # could reach: Debian's time over the smaller of the two median kernel times
  # (user space costing nothing, kernel work as small as the leaner library's).
  awk -F'\t' 'function med(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      { if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1 }
        c = ++n[$1, $2]; U[$1, $2, c] = $3; K[$1, $2, c] = $4; KU[$1, $2, c] = $5 }
      END {
        printf "%-9s %12s %12s %8s %8s %12s %12s %10s %10s %8s %8s\n", "size", "Debian usec", "ours usec", "K Deb", "K ours", "kern Deb", "kern ours", "user Deb", "user ours", "speed", "ceiling"
        for (i = 1; i <= m; i++) {
          s = order[i]
          for (l = 0; l < 2; l++) {
            lib = l ? "ours" : "upstream"; c = n[s, lib]
            for (j = 1; j <= c; j++) { u[j] = U[s, lib, j]; k[j] = K[s, lib, j]; ku[j] = KU[s, lib, j]; uu[j] = U[s, lib, j] - KU[s, lib, j] }
            mu[l] = med(u, c); mk[l] = med(k, c); mku[l] = med(ku, c); muu[l] = med(uu, c)
          }
          kmin = mku[0] < mku[1] ? mku[0] : mku[1]
          printf "%-9s %12.2f %12.2f %8.4f %8.4f %12.2f %12.2f %10.2f %10.2f %8.3f %8.3f\n", s, mu[0], mu[1], mk[0], mk[1], mku[0], mku[1], muu[0], muu[1], mu[0] / mu[1], mu[0] / kmin
        }
      }' "$raw/runs.tsv" | tee -a "$report"
  say ""
  say "usec: rstream's usec/xfer (lower is better); K: kernel share of the sending vCPU in its send windows;"
  say "kern: K x usec, the kernel's time per transfer; user: usec - kern, the rest (library, rstream, waits);"
  say "speed: Debian's usec / ours;"
  say "ceiling: Debian's usec / the smaller kern, the speed-up over Debian's a library could reach at most"
  say "if its user space cost nothing and its kernel work were that of the leaner of the two"
  exit 0
fi

# ---- on the host: boot the VM and run the above inside ----------------------------
. "$here/vm-bench-host.sh"
sizes="65536:3000 1048576:200"; reps=3; out=$repo/target/bench-rs-ceiling
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) sed -n '23,23p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
for sc in $sizes; do
  [[ $sc =~ ^[1-9][0-9]*:[1-9][0-9]*$ ]] || { echo "rstream-ceiling: --sizes wants SIZE:COUNT pairs" >&2; exit 2; }
done
command -v perf >/dev/null || "$repo/abi-tests/install-deps.sh" --pkgs linux-perf
bench_positive rstream-ceiling --reps "$reps"
bench_libs rstream-ceiling libibverbs.so.1 librdmacm.so.1
bench_vm rstream-ceiling "$out" 3600 "$here/rstream-ceiling.sh" --env "BENCH_SIZES=$sizes" --env "BENCH_REPS=$reps"
