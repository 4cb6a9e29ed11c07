#!/bin/sh
# Measures the C layouts our Rust mirrors must match and rewrites the
# compile-time assertions in libibverbs-rs/src/abi/{verbs,driver}.rs.
#
#   layout_probe.c  is compiled against the installed <infiniband/verbs.h>,
#                   <infiniband/tm_types.h>,
#                   <infiniband/sa.h> and <rdma/ib_user_sa.h>;
#   driver_probe.c  against rdma-core v44.0's libibverbs/driver.h, which is not
#                   installed: set RDMA_CORE_SRC to an unpacked rdma-core v44.0
#                   (default /tmp/up). Its private includes (ccan/list.h,
#                   kern-abi.h, cmd_ioctl.h, config.h) are replaced by minimal
#                   stand-ins in a scratch directory; only list_node's layout
#                   (two pointers: next, prev) matters for the types measured.
# Nothing from upstream is copied into this repository.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
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

"$work/layout_probe" > "$work/verbs.out"
"$work/driver_probe" > "$work/driver.out"
python3 "$here/gen.py" assert "$work/verbs.out" "$work/driver.out"
echo "assertions updated from $(wc -l < "$work/verbs.out") + $(wc -l < "$work/driver.out") measurements"
rustfmt --edition 2021 "$here/../../libibverbs-rs/src/abi/verbs.rs" "$here/../../libibverbs-rs/src/abi/driver.rs"
