/*
 * cm-stepshim.c: an LD_PRELOAD shim for cmtime under callgrind. At the
 * first call a program (not a library) makes to each rdma_* function that
 * opens one of cmtime's steps, it has callgrind dump its counters and start
 * afresh, so that each dump holds one step: dump 1 is the start-up, 2 the
 * create_id step, 3 resolve_addr, 4 resolve_route, 5 create_qp, 6 connect,
 * 7 disconnect, and the final one destroy and exit. Calls from inside
 * librdmacm are ignored (upstream's own AF_IB probe calls rdma_create_id,
 * rdma_bind_addr and rdma_destroy_id through the PLT).
 *
 *   cc -O2 -shared -fPIC -o cm-stepshim.so cm-stepshim.c -ldl
 */
#define _GNU_SOURCE
#include <valgrind/callgrind.h>

static void step_hook(const char *name)
{
	CALLGRIND_DUMP_STATS_AT(name);
}

#include "cm-stepwrap.h"
