#!/bin/sh
# Measures the C layouts of librdmacm-rs/src/abi/{ucma,cma}.rs and rewrites
# the block between the "BEGIN PROBE ASSERTIONS" / "END PROBE ASSERTIONS"
# markers of each file with the assertions the probes print.
#   ucma_abi.c  <rdma/rdma_user_cm.h> (kernel ABI) and <rdma/rdma_cma_abi.h>
#   cma_abi.c   <rdma/rdma_cma.h> and <infiniband/ib.h>
set -eu
here=$(cd "$(dirname "$0")" && pwd)
abi="$here/../../librdmacm-rs/src/abi"
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmacm-probe.XXXXXX")
trap 'rm -rf "$work"' EXIT
for p in ucma cma; do
	cc -std=gnu11 -Wall -Werror -o "$work/$p" "$here/${p}_abi.c"
	"$work/$p" > "$work/$p.out"
	python3 - "$abi/$p.rs" "$work/$p.out" <<'EOP'
import sys
path, out = sys.argv[1], open(sys.argv[2]).read()
src = open(path).read()
b, e = "// BEGIN PROBE ASSERTIONS\n", "// END PROBE ASSERTIONS\n"
i, j = src.index(b) + len(b), src.index(e)
open(path, "w").write(src[:i] + out + src[j:])
EOP
	echo "$p.rs: $(wc -l < "$work/$p.out") assertion lines"
done
