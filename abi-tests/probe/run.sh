#!/bin/sh
# Measures the C layouts of libibverbs' mirrors and writes their layout files
# (compile-time assertions) under rdma-abi/src/layout/:
#
#   layout_probe.c  is compiled against the installed <infiniband/verbs.h>,
#                   <infiniband/tm_types.h>,
#                   <infiniband/sa.h> and <rdma/ib_user_sa.h>
#                   -> layout/verbs.rs;
#   driver_probe.c  against rdma-core v44.0's libibverbs/driver.h, which is not
#                   installed: set RDMA_CORE_SRC to an unpacked rdma-core v44.0
#                   (default /tmp/up). Its private includes (ccan/list.h,
#                   kern-abi.h, cmd_ioctl.h, config.h) are replaced by minimal
#                   stand-ins in a scratch directory; only list_node's layout
#                   (two pointers: next, prev) matters for the types measured
#                   -> layout/driver/pabi34_v44.rs;
#   kern_abi.c      against the same tree's kernel-headers/ (the uAPI headers
#                   rdma-core 44.0 builds with) -> layout/kern.rs; gen.py also
#                   checks that kern.rs holds the constants it prints.
# gen.py writes the first two probes from the Rust mirrors; kern_abi.c is
# written by hand. Nothing from upstream is copied into this repository.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
layout="$here/../../rdma-abi/src/layout"
src=${RDMA_CORE_SRC:-/tmp/up}
work=$(mktemp -d "${TMPDIR:-/tmp}/abi-probe.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 "$here/gen.py" probe

cc -std=gnu11 -Wall -Werror -o "$work/layout_probe" "$here/layout_probe.c"

mkdir -p "$work/inc/infiniband" "$work/inc/ccan"
cp "$src/libibverbs/driver.h" "$work/inc/infiniband/driver.h"
: > "$work/inc/config.h"
echo "#include <assert.h>" > "$work/inc/infiniband/kern-abi.h"
# driver.h's prototypes name the kernel command structs of kern-abi.h and
# cmd_ioctl.h; declaring the tags is all they need.
grep -o 'struct [a-z_0-9]* \*' "$work/inc/infiniband/driver.h" | sort -u |
	sed 's/ \*$/;/' >> "$work/inc/infiniband/kern-abi.h"
: > "$work/inc/infiniband/cmd_ioctl.h"
cat > "$work/inc/ccan/list.h" <<'EOH'
#include <stddef.h>
struct list_node { struct list_node *next, *prev; };
struct list_head { struct list_node n; };
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
EOH
cc -std=gnu11 -Wall -Werror -I"$work/inc" -o "$work/driver_probe" "$here/driver_probe.c"

cc -std=gnu11 -Wall -Werror -I"$src/kernel-headers" -o "$work/kern_abi" "$here/kern_abi.c"

"$work/layout_probe" > "$work/verbs.out"
"$work/driver_probe" > "$work/driver.out"
"$work/kern_abi" > "$work/kern.out"
python3 "$here/gen.py" assert verbs "$work/verbs.out"
python3 "$here/gen.py" assert driver "$work/driver.out"
python3 "$here/gen.py" records kern "$work/kern.out"
echo "layout files written from $(cat "$work/verbs.out" "$work/driver.out" "$work/kern.out" | wc -l) measurements"
rustfmt --edition 2021 "$layout/verbs.rs" "$layout/driver/pabi34_v44.rs" "$layout/kern.rs"
