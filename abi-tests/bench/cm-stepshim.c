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
#include <dlfcn.h>
#include <string.h>
#include <rdma/rdma_cma.h>
#include <valgrind/callgrind.h>

static int seen[7];

static void step_starts(int i, const char *name, void *caller)
{
	Dl_info info;

	if (dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "librdmacm"))
		return;
	if (!__atomic_exchange_n(&seen[i], 1, __ATOMIC_SEQ_CST))
		CALLGRIND_DUMP_STATS_AT(name);
}

#define WRAP(idx, ret, fn, params, args)                                   \
	ret fn params                                                      \
	{                                                                  \
		static ret(*real) params;                                  \
		if (!real)                                                 \
			real = (ret(*) params)dlsym(RTLD_NEXT, #fn);       \
		step_starts(idx, "before " #fn, __builtin_return_address(0)); \
		return real args;                                          \
	}

WRAP(0, int, rdma_create_id,
     (struct rdma_event_channel *c, struct rdma_cm_id **id, void *ctx, enum rdma_port_space ps),
     (c, id, ctx, ps))
WRAP(1, int, rdma_resolve_addr,
     (struct rdma_cm_id *id, struct sockaddr *s, struct sockaddr *d, int t), (id, s, d, t))
WRAP(2, int, rdma_resolve_route, (struct rdma_cm_id *id, int t), (id, t))
WRAP(3, int, rdma_create_qp,
     (struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *a), (id, pd, a))
WRAP(4, int, rdma_connect, (struct rdma_cm_id *id, struct rdma_conn_param *p), (id, p))
WRAP(5, int, rdma_disconnect, (struct rdma_cm_id *id), (id))
WRAP(6, int, rdma_destroy_id, (struct rdma_cm_id *id), (id))
