/*
 * cm-stepwrap.h: the step detection shared by cmtime's LD_PRELOAD shims
 * (cm-stepshim.c, cm-stepcpu.c). Each rdma_* function that opens one of
 * cmtime's steps is wrapped; at the first call a program (not a library)
 * makes to it, the including file's
 *     static void step_hook(const char *name);
 * runs with name "before rdma_...", then the real function. Calls from
 * inside librdmacm are ignored (upstream's own AF_IB probe calls
 * rdma_create_id, rdma_bind_addr and rdma_destroy_id through the PLT).
 * Steps, in cmtime's order: create_id, resolve_addr, resolve_route,
 * create_qp, connect, disconnect, destroy.
 */
#include <dlfcn.h>
#include <string.h>
#include <rdma/rdma_cma.h>

static void step_hook(const char *name);

static int step_seen[7];

static void step_starts(int i, const char *name, void *caller)
{
	Dl_info info;

	if (dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "librdmacm"))
		return;
	if (!__atomic_exchange_n(&step_seen[i], 1, __ATOMIC_SEQ_CST))
		step_hook(name);
}

#define STEP_WRAP(idx, ret, fn, params, args)                              \
	ret fn params                                                      \
	{                                                                  \
		static ret(*real) params;                                  \
		if (!real)                                                 \
			real = (ret(*) params)dlsym(RTLD_NEXT, #fn);       \
		step_starts(idx, "before " #fn, __builtin_return_address(0)); \
		return real args;                                          \
	}

STEP_WRAP(0, int, rdma_create_id,
	  (struct rdma_event_channel *c, struct rdma_cm_id **id, void *ctx, enum rdma_port_space ps),
	  (c, id, ctx, ps))
STEP_WRAP(1, int, rdma_resolve_addr,
	  (struct rdma_cm_id *id, struct sockaddr *s, struct sockaddr *d, int t), (id, s, d, t))
STEP_WRAP(2, int, rdma_resolve_route, (struct rdma_cm_id *id, int t), (id, t))
STEP_WRAP(3, int, rdma_create_qp,
	  (struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *a), (id, pd, a))
STEP_WRAP(4, int, rdma_connect, (struct rdma_cm_id *id, struct rdma_conn_param *p), (id, p))
STEP_WRAP(5, int, rdma_disconnect, (struct rdma_cm_id *id), (id))
STEP_WRAP(6, int, rdma_destroy_id, (struct rdma_cm_id *id), (id))
