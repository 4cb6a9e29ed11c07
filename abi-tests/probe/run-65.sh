#!/bin/sh
# Measures the C layouts of the rdma-core 65 mirrors and writes their layout
# files (compile-time assertions) under rdma-abi/src/layout/:
#
#   layout_probe_v65.c    against rdma-core 65's public headers
#                         (libibverbs/verbs.h and the other headers the
#                         library installs under infiniband/)
#                         -> layout/verbs_v65.rs;
#   driver_probe_pabi65.c against rdma-core 65's libibverbs/driver.h
#                         -> layout/driver/pabi65.rs;
#   cma_abi_probe_v65.c   against 65's <rdma/rdma_cma_abi.h>
#                         -> layout/cma_abi.rs;
#   opcode_probe_v65.c    against 65's <infiniband/opcode.h>
#                         -> layout/opcode.rs;
#   rsocket_probe_v65.c   against 65's <rdma/rsocket.h> -> layout/rsocket.rs.
#
# None of these headers is installed here (the system has rdma-core 44's), so
# every probe here is compiled against an unpacked rdma-core 65.0 source tree:
# set RDMA_CORE_SRC65 (default /tmp/up65). Its public headers are copied
# into a scratch include directory laid out as the installed ones are, its
# kernel-headers/ (the uAPI it builds with) come before the system's, and
# driver.h's private includes get the same minimal stand-ins as run.sh's.
# Nothing from upstream is copied into this repository.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
layout="$here/../../rdma-abi/src/layout"
src=${RDMA_CORE_SRC65:-/tmp/up65}
work=$(mktemp -d "${TMPDIR:-/tmp}/abi-probe65.XXXXXX")
trap 'rm -rf "$work"' EXIT

python3 "$here/gen.py" probe verbs_v65 driver_pabi65 cma_abi opcode rsocket

inc="$work/inc"
mkdir -p "$inc/infiniband" "$inc/ccan"
for h in verbs.h verbs_api.h tm_types.h sa.h sa-kern-abi.h arch.h opcode.h driver.h; do
	cp "$src/libibverbs/$h" "$inc/infiniband/$h"
done
# The build publishes this uAPI header under infiniband/ too.
cp "$src/kernel-headers/rdma/ib_user_ioctl_verbs.h" "$inc/infiniband/"
# librdmacm's public headers, where librdmacm-dev installs them.
mkdir -p "$inc/rdma"
for h in rdma_cma.h rdma_cma_abi.h rdma_verbs.h rsocket.h; do
	cp "$src/librdmacm/$h" "$inc/rdma/$h"
done
cp "$src/librdmacm/ib.h" "$inc/infiniband/ib.h"
# Guard against measuring the installed (older) headers by mistake.
grep -q 'struct ibv_comp_cntr {' "$inc/infiniband/verbs.h" ||
	{ echo "$src is not rdma-core 65" >&2; exit 1; }
cflags="-std=gnu11 -Wall -Werror -I$inc -I$src/kernel-headers"

# Stand-ins for driver.h's private includes. Besides the struct tags of its
# prototypes, 65's driver.h has an inline helper that sets a bit of the
# command buffer and adds an attribute to it: the stand-in gives it just
# that bit and a no-op for the attribute.
: > "$inc/config.h"
echo "#include <assert.h>" > "$inc/infiniband/kern-abi.h"
grep -o 'struct [a-z_0-9]* \*' "$inc/infiniband/driver.h" | sort -u |
	sed 's/ \*$/;/' >> "$inc/infiniband/kern-abi.h"
cat > "$inc/infiniband/cmd_ioctl.h" <<'EOH'
#pragma once
struct ibv_command_buffer { unsigned int fallback_ioctl_only : 1; };
#define fill_attr_in_ptr(cmdb, attr_id, ptr) ((void)(cmdb), (void)(attr_id), (void)(ptr))
EOH
cat > "$inc/ccan/list.h" <<'EOH'
#include <stddef.h>
struct list_node { struct list_node *next, *prev; };
struct list_head { struct list_node n; };
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
EOH

# shellcheck disable=SC2086
cc $cflags -o "$work/layout_probe_v65" "$here/layout_probe_v65.c"
# shellcheck disable=SC2086
cc $cflags -o "$work/driver_probe_pabi65" "$here/driver_probe_pabi65.c"

for p in cma_abi opcode rsocket; do
	# shellcheck disable=SC2086
	cc $cflags -o "$work/$p" "$here/${p}_probe_v65.c"
done

"$work/layout_probe_v65" > "$work/verbs.out"
"$work/driver_probe_pabi65" > "$work/driver.out"
python3 "$here/gen.py" assert verbs_v65 "$work/verbs.out"
python3 "$here/gen.py" assert driver_pabi65 "$work/driver.out"
for p in cma_abi opcode rsocket; do
	"$work/$p" > "$work/$p.out"
	python3 "$here/gen.py" assert "$p" "$work/$p.out"
done
echo "layout files written from $(cat "$work"/*.out | wc -l) measurements"
rustfmt --edition 2021 "$layout/verbs_v65.rs" "$layout/driver/pabi65.rs" \
	"$layout/cma_abi.rs" "$layout/opcode.rs" "$layout/rsocket.rs"
