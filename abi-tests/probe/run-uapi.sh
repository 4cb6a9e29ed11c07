#!/bin/sh
# Measures the C layouts of the mirrors of the software providers' kernel
# ABI and writes their layout files (compile-time assertions) under
# rdma-abi/src/layout/:
#
#   rxe_probe_uapi.c  against <rdma/rdma_user_rxe.h> -> layout/rxe.rs;
#   siw_probe_uapi.c  against <rdma/siw-abi.h>       -> layout/siw.rs.
#
# Both are compiled against the installed kernel uAPI headers
# (linux-libc-dev, /usr/include/rdma), which the layout files record. When
# an unpacked rdma-core 65.0 is at RDMA_CORE_SRC65 (default /tmp/up65), the
# same probes are compiled against its kernel-headers/ too, and their output
# must be identical: the Rust mirrors then hold for both copies.
# Nothing from upstream is copied into this repository.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
layout="$here/../../rdma-abi/src/layout"
src65=${RDMA_CORE_SRC65:-/tmp/up65}
work=$(mktemp -d "${TMPDIR:-/tmp}/abi-probe-uapi.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 "$here/gen.py" probe rxe siw

for p in rxe siw; do
	cc -std=gnu11 -Wall -Werror -o "$work/$p" "$here/${p}_probe_uapi.c"
	"$work/$p" > "$work/$p.out"
	if [ -d "$src65/kernel-headers/rdma" ]; then
		cc -std=gnu11 -Wall -Werror -I"$src65/kernel-headers" \
			-o "$work/${p}65" "$here/${p}_probe_uapi.c"
		"$work/${p}65" > "$work/${p}65.txt"
		cmp -s "$work/$p.out" "$work/${p}65.txt" ||
			{ echo "$p: rdma-core 65's header measures differently" >&2;
			  diff "$work/$p.out" "$work/${p}65.txt" >&2; exit 1; }
	fi
	python3 "$here/gen.py" assert "$p" "$work/$p.out"
done
echo "layout files written from $(cat "$work"/*.out | wc -l) measurements"
rustfmt --edition 2021 "$layout/rxe.rs" "$layout/siw.rs"
