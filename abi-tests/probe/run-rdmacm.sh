#!/bin/sh
# Measures the C layouts of rdma-abi/src/{ucma,cma}.rs and writes their
# layout files, rdma-abi/src/layout/{ucma,cma}.rs, from what the probes print
# (gen.py records).
#   ucma_abi.c  <rdma/rdma_user_cm.h> (kernel ABI) and <rdma/rdma_cma_abi.h>
#   cma_abi.c   <rdma/rdma_cma.h> and <infiniband/ib.h>
set -eu
here=$(cd "$(dirname "$0")" && pwd)
layout="$here/../../rdma-abi/src/layout"
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmacm-probe.XXXXXX")
trap 'rm -rf "$work"' EXIT
for p in ucma cma; do
	cc -std=gnu11 -Wall -Werror -o "$work/$p" "$here/${p}_abi.c"
	"$work/$p" > "$work/$p.out"
	python3 "$here/gen.py" records "$p" "$work/$p.out"
	echo "$p: $(wc -l < "$work/$p.out") measurements"
done
rustfmt --edition 2021 "$layout/ucma.rs" "$layout/cma.rs"
