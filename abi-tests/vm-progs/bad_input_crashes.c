/*
 * bad_input_crashes: the invalid inputs on which Debian's libibverbs crashes
 * (NULL objects and attribute pointers that it dereferences without a
 * check). They are deliberate differences, listed in docs/bad-input.md: our
 * library returns a clear error instead.
 *
 * Each case runs in a child process. The program finds out which library it
 * is bound to and checks what that library is documented to do:
 *   Debian's libibverbs   the child is killed by a signal (SIGSEGV, ...);
 *                         ibv_get_device_name(NULL) alone returns a bogus
 *                         pointer instead (see K_NAME);
 *   ours                  the call returns normally with a clear error:
 *                         NULL and errno EINVAL for a verb that returns a
 *                         pointer; EINVAL, -EINVAL, or -1 with errno EINVAL
 *                         for one that returns an int (in the verb's own
 *                         convention); a void verb simply returns.
 * Each line is "case <name>: as documented" when that holds, so the output
 * is the same with both libraries (abi-tests/scenarios/vm.sh compares it);
 * otherwise the line says what happened instead.
 *
 * Only verbs exported by libibverbs are here: a crash in an inline function
 * of <infiniband/verbs.h> (ibv_post_send(NULL, ...), ...) happens in the
 * application and no library can prevent it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "crash_case.h"

/* Exported by libibverbs but declared only in rdma-core's internal headers
 * (driver.h, marshall.h), which Debian does not install. The structures are
 * only passed through here, so void pointers do. */
int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
				struct ibv_ah_attr *attr, uint8_t eth_mac[6],
				uint16_t *vid);
void ibv_copy_ah_attr_from_kern(void *dst, void *src);
void ibv_copy_qp_attr_from_kern(void *dst, void *src);
void ibv_copy_path_rec_from_kern(void *dst, void *src);
void ibv_copy_path_rec_to_kern(void *dst, void *src);

/*
 * K_PTR, K_INT, K_VOID: the verb returns a pointer, an int, nothing.
 * K_ZERO: an integer verb with no error value, whose safe answer is 0
 * (ibv_get_device_guid: no GUID; ibv_query_qp_data_in_order: no in-order
 * guarantee); with errno EINVAL.
 * K_NAME: ibv_get_device_name(NULL), on which Debian's library does not
 * crash but returns the address of the name field of a device at address 0,
 * a pointer that crashes whoever reads it.
 */
enum kind { K_PTR, K_INT, K_VOID, K_ZERO, K_NAME };

static struct ibv_device **list;
static struct ibv_device *dev;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_comp_channel *ch;
static struct ibv_qp *qp;
static struct ibv_srq *srq;
static struct ibv_mr *mr;
static char buf[4096];
static int upstream;
static int nbad;

static struct ibv_qp_init_attr qp_attr(void)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	return a;
}

/* Each case is a function that makes one call and records its result. */
#define PTR_CASE(name, expr)                                                  \
	static void name(struct outcome *o)                                   \
	{                                                                     \
		const void *p = (const void *)(expr);                         \
		o->err = errno;                                               \
		o->is_null = !p;                                              \
		o->ptr = (uintptr_t)p;                                        \
	}
#define INT_CASE(name, expr)                                                  \
	static void name(struct outcome *o)                                   \
	{                                                                     \
		o->ret = (long)(expr);                                        \
		o->err = errno;                                               \
	}
#define VOID_CASE(name, stmt)                                                 \
	static void name(struct outcome *o)                                   \
	{                                                                     \
		stmt;                                                         \
		o->err = errno;                                               \
	}

/* device and context */
PTR_CASE(get_device_name_null, ibv_get_device_name(NULL))
INT_CASE(get_device_guid_null, ibv_get_device_guid(NULL))
INT_CASE(get_device_index_null, ibv_get_device_index(NULL))
VOID_CASE(free_device_list_null, ibv_free_device_list(NULL))
PTR_CASE(open_device_null, ibv_open_device(NULL))
INT_CASE(close_device_null, ibv_close_device(NULL))
INT_CASE(query_device_ctx_null, ({ struct ibv_device_attr a; ibv_query_device(NULL, &a); }))
INT_CASE(query_device_attr_null, ibv_query_device(ctx, NULL))
/* through a volatile: the compiler must not reason about this NULL */
static struct ibv_port_attr *volatile null_port_attr;
INT_CASE(query_port_attr_null, ibv_query_port(ctx, 1, null_port_attr))
INT_CASE(query_gid_ctx_null, ({ union ibv_gid g; ibv_query_gid(NULL, 1, 0, &g); }))
INT_CASE(query_gid_gid_null, ibv_query_gid(ctx, 1, 0, NULL))
INT_CASE(query_pkey_ctx_null, ({ __be16 k; ibv_query_pkey(NULL, 1, 0, &k); }))
INT_CASE(query_pkey_pkey_null, ibv_query_pkey(ctx, 1, 0, NULL))
INT_CASE(get_pkey_index_ctx_null, ibv_get_pkey_index(NULL, 1, 0xffff))
INT_CASE(get_async_event_ctx_null, ({ struct ibv_async_event e; ibv_get_async_event(NULL, &e); }))
VOID_CASE(ack_async_event_null, ibv_ack_async_event(NULL))

/* PD and MR */
PTR_CASE(alloc_pd_ctx_null, ibv_alloc_pd(NULL))
INT_CASE(dealloc_pd_null, ibv_dealloc_pd(NULL))
PTR_CASE(reg_mr_pd_null, ibv_reg_mr(NULL, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE))
PTR_CASE(reg_mr_iova2_pd_null, ibv_reg_mr_iova2(NULL, buf, sizeof(buf), 0, IBV_ACCESS_LOCAL_WRITE))
PTR_CASE(reg_dmabuf_mr_pd_null, ibv_reg_dmabuf_mr(NULL, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE))
INT_CASE(dereg_mr_null, ibv_dereg_mr(NULL))
INT_CASE(rereg_mr_null, ibv_rereg_mr(NULL, IBV_REREG_MR_CHANGE_PD, pd, NULL, 0, 0))
PTR_CASE(import_pd_ctx_null, ibv_import_pd(NULL, 1))
VOID_CASE(unimport_pd_null, ibv_unimport_pd(NULL))
PTR_CASE(import_mr_pd_null, ibv_import_mr(NULL, 1))
VOID_CASE(unimport_mr_null, ibv_unimport_mr(NULL))

/* CQ and completion channel */
PTR_CASE(create_cq_ctx_null, ibv_create_cq(NULL, 16, NULL, NULL, 0))
INT_CASE(destroy_cq_null, ibv_destroy_cq(NULL))
INT_CASE(resize_cq_null, ibv_resize_cq(NULL, 16))
PTR_CASE(create_comp_channel_ctx_null, ibv_create_comp_channel(NULL))
INT_CASE(destroy_comp_channel_null, ibv_destroy_comp_channel(NULL))
INT_CASE(get_cq_event_channel_null, ({ struct ibv_cq *c; void *x; ibv_get_cq_event(NULL, &c, &x); }))
VOID_CASE(ack_cq_events_null, ibv_ack_cq_events(NULL, 1))

/* QP */
PTR_CASE(create_qp_pd_null, ({ struct ibv_qp_init_attr a = qp_attr(); ibv_create_qp(NULL, &a); }))
PTR_CASE(create_qp_attr_null, ibv_create_qp(pd, NULL))
PTR_CASE(create_qp_send_cq_null, ({ struct ibv_qp_init_attr a = qp_attr(); a.send_cq = NULL; ibv_create_qp(pd, &a); }))
PTR_CASE(create_qp_recv_cq_null, ({ struct ibv_qp_init_attr a = qp_attr(); a.recv_cq = NULL; ibv_create_qp(pd, &a); }))
INT_CASE(destroy_qp_null, ibv_destroy_qp(NULL))
INT_CASE(modify_qp_qp_null, ({ struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT }; ibv_modify_qp(NULL, &a, IBV_QP_STATE); }))
INT_CASE(modify_qp_attr_null, ibv_modify_qp(qp, NULL, IBV_QP_STATE))
INT_CASE(query_qp_qp_null, ({ struct ibv_qp_attr a; struct ibv_qp_init_attr i; ibv_query_qp(NULL, &a, IBV_QP_STATE, &i); }))
INT_CASE(query_qp_attr_null, ({ struct ibv_qp_init_attr i; ibv_query_qp(qp, NULL, IBV_QP_STATE, &i); }))
INT_CASE(query_qp_init_attr_null, ({ struct ibv_qp_attr a; ibv_query_qp(qp, &a, IBV_QP_STATE, NULL); }))
PTR_CASE(qp_to_qp_ex_null, ibv_qp_to_qp_ex(NULL))
INT_CASE(query_ece_qp_null, ({ struct ibv_ece e; ibv_query_ece(NULL, &e); }))
INT_CASE(set_ece_ece_null, ibv_set_ece(qp, NULL))
INT_CASE(query_qp_data_in_order_null, ibv_query_qp_data_in_order(NULL, IBV_WR_SEND, 0))

/* SRQ */
PTR_CASE(create_srq_pd_null, ({ struct ibv_srq_init_attr a = { .attr = { .max_wr = 4, .max_sge = 1 } }; ibv_create_srq(NULL, &a); }))
PTR_CASE(create_srq_attr_null, ibv_create_srq(pd, NULL))
INT_CASE(modify_srq_attr_null, ibv_modify_srq(srq, NULL, IBV_SRQ_LIMIT))
INT_CASE(query_srq_attr_null, ibv_query_srq(srq, NULL))
INT_CASE(destroy_srq_null, ibv_destroy_srq(NULL))

/* AH, multicast, address helpers */
PTR_CASE(create_ah_pd_null, ({ struct ibv_ah_attr a = { .port_num = 1 }; ibv_create_ah(NULL, &a); }))
PTR_CASE(create_ah_attr_null, ibv_create_ah(pd, NULL))
INT_CASE(destroy_ah_null, ibv_destroy_ah(NULL))
INT_CASE(init_ah_from_wc_wc_null, ({ struct ibv_grh g = { 0 }; struct ibv_ah_attr a; ibv_init_ah_from_wc(ctx, 1, NULL, &g, &a); }))
INT_CASE(init_ah_from_wc_grh_null, ({ struct ibv_wc w = { 0 }; struct ibv_ah_attr a; ibv_init_ah_from_wc(ctx, 1, &w, NULL, &a); }))
INT_CASE(init_ah_from_wc_ah_attr_null, ({ struct ibv_wc w = { 0 }; struct ibv_grh g = { 0 }; ibv_init_ah_from_wc(ctx, 1, &w, &g, NULL); }))
PTR_CASE(create_ah_from_wc_pd_null, ({ struct ibv_wc w = { 0 }; struct ibv_grh g = { 0 }; ibv_create_ah_from_wc(NULL, &w, &g, 1); }))
INT_CASE(attach_mcast_gid_null, ibv_attach_mcast(qp, NULL, 0))
INT_CASE(detach_mcast_gid_null, ibv_detach_mcast(qp, NULL, 0))
INT_CASE(resolve_eth_l2_from_gid_attr_null, ({ uint8_t mac[6]; uint16_t vid; ibv_resolve_eth_l2_from_gid(ctx, NULL, mac, &vid); }))
VOID_CASE(copy_ah_attr_from_kern_null, ibv_copy_ah_attr_from_kern(NULL, NULL))
VOID_CASE(copy_qp_attr_from_kern_null, ibv_copy_qp_attr_from_kern(NULL, NULL))
VOID_CASE(copy_path_rec_from_kern_null, ibv_copy_path_rec_from_kern(NULL, NULL))
VOID_CASE(copy_path_rec_to_kern_null, ibv_copy_path_rec_to_kern(NULL, NULL))

struct bad_case {
	const char *name;
	enum kind kind;
	void (*fn)(struct outcome *o);
};

#define C(name, kind) { #name, kind, name }
static const struct bad_case cases[] = {
	C(get_device_name_null, K_NAME),
	C(get_device_guid_null, K_ZERO),
	C(get_device_index_null, K_INT),
	C(free_device_list_null, K_VOID),
	C(open_device_null, K_PTR),
	C(close_device_null, K_INT),
	C(query_device_ctx_null, K_INT),
	C(query_device_attr_null, K_INT),
	C(query_port_attr_null, K_INT),
	C(query_gid_ctx_null, K_INT),
	C(query_gid_gid_null, K_INT),
	C(query_pkey_ctx_null, K_INT),
	C(query_pkey_pkey_null, K_INT),
	C(get_pkey_index_ctx_null, K_INT),
	C(get_async_event_ctx_null, K_INT),
	C(ack_async_event_null, K_VOID),
	C(alloc_pd_ctx_null, K_PTR),
	C(dealloc_pd_null, K_INT),
	C(reg_mr_pd_null, K_PTR),
	C(reg_mr_iova2_pd_null, K_PTR),
	C(reg_dmabuf_mr_pd_null, K_PTR),
	C(dereg_mr_null, K_INT),
	C(rereg_mr_null, K_INT),
	C(import_pd_ctx_null, K_PTR),
	C(unimport_pd_null, K_VOID),
	C(import_mr_pd_null, K_PTR),
	C(unimport_mr_null, K_VOID),
	C(create_cq_ctx_null, K_PTR),
	C(destroy_cq_null, K_INT),
	C(resize_cq_null, K_INT),
	C(create_comp_channel_ctx_null, K_PTR),
	C(destroy_comp_channel_null, K_INT),
	C(get_cq_event_channel_null, K_INT),
	C(ack_cq_events_null, K_VOID),
	C(create_qp_pd_null, K_PTR),
	C(create_qp_attr_null, K_PTR),
	C(create_qp_send_cq_null, K_PTR),
	C(create_qp_recv_cq_null, K_PTR),
	C(destroy_qp_null, K_INT),
	C(modify_qp_qp_null, K_INT),
	C(modify_qp_attr_null, K_INT),
	C(query_qp_qp_null, K_INT),
	C(query_qp_attr_null, K_INT),
	C(query_qp_init_attr_null, K_INT),
	C(qp_to_qp_ex_null, K_PTR),
	C(query_ece_qp_null, K_INT),
	C(set_ece_ece_null, K_INT),
	C(query_qp_data_in_order_null, K_ZERO),
	C(create_srq_pd_null, K_PTR),
	C(create_srq_attr_null, K_PTR),
	C(modify_srq_attr_null, K_INT),
	C(query_srq_attr_null, K_INT),
	C(destroy_srq_null, K_INT),
	C(create_ah_pd_null, K_PTR),
	C(create_ah_attr_null, K_PTR),
	C(destroy_ah_null, K_INT),
	C(init_ah_from_wc_wc_null, K_INT),
	C(init_ah_from_wc_grh_null, K_INT),
	C(init_ah_from_wc_ah_attr_null, K_INT),
	C(create_ah_from_wc_pd_null, K_PTR),
	C(attach_mcast_gid_null, K_INT),
	C(detach_mcast_gid_null, K_INT),
	C(resolve_eth_l2_from_gid_attr_null, K_INT),
	C(copy_ah_attr_from_kern_null, K_VOID),
	C(copy_qp_attr_from_kern_null, K_VOID),
	C(copy_path_rec_from_kern_null, K_VOID),
	C(copy_path_rec_to_kern_null, K_VOID),
};

/* Is the result the clear error documented for our library? */
static int clear_error(enum kind kind, const struct outcome *o)
{
	switch (kind) {
	case K_PTR:
	case K_NAME:
		return o->is_null && o->err == EINVAL;
	case K_INT:
		return o->ret == EINVAL || o->ret == -EINVAL ||
		       (o->ret != 0 && o->err == EINVAL);
	case K_ZERO:
		return o->ret == 0 && o->err == EINVAL;
	case K_VOID:
		return 1;
	}
	return 0;
}

static void run_case(const struct bad_case *c)
{
	struct outcome o = { 0 };
	struct child_result r = run_in_child(NULL, c->fn, &o);
	char got[128];
	int ok;

	describe_child(got, sizeof(got), &r, &o, c->kind == K_PTR || c->kind == K_NAME,
		       c->kind == K_VOID);
	if (upstream && c->kind == K_NAME)
		ok = !WIFSIGNALED(r.status) && r.complete &&
		     o.ptr == offsetof(struct ibv_device, name);
	else if (upstream)
		ok = child_crashed(&r);
	else
		ok = child_returned(&r) && clear_error(c->kind, &o);
	if (ok) {
		printf("case %s: as documented\n", c->name);
	} else {
		printf("case %s: NOT as documented: %s; documented: %s\n", c->name, got,
		       upstream && c->kind == K_NAME ? "Debian's library returns a bogus pointer" :
		       upstream ? "Debian's library crashes" :
		       c->kind == K_VOID ? "returns" : "a clear error (EINVAL)");
		nbad++;
	}
}

int main(void)
{
	struct ibv_qp_init_attr qa;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	size_t i;
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	upstream = bound_to((void *)ibv_get_device_list, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
	if (upstream < 0) {
		printf("cannot tell which libibverbs is in use\n");
		return 1;
	}

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < (size_t)n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "rxe0"))
			dev = list[i];
	if (!dev) {
		printf("setup failed: no rxe0\n");
		return 1;
	}
	ctx = ibv_open_device(dev);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	ch = ctx ? ibv_create_comp_channel(ctx) : NULL;
	cq = ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
	qa = qp_attr();
	qp = cq ? ibv_create_qp(pd, &qa) : NULL;
	srq = qp ? ibv_create_srq(pd, &sa) : NULL;
	if (!srq) {
		printf("setup failed: %s\n", strerror(errno));
		return 1;
	}

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);

	ibv_destroy_srq(srq);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_destroy_comp_channel(ch);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("%zu cases, %d not as documented\n", sizeof(cases) / sizeof(cases[0]), nbad);
	return nbad ? 1 : 0;
}
