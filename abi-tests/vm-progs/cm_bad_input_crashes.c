/*
 * cm_bad_input_crashes: the invalid inputs on which Debian's librdmacm
 * crashes (NULL ids, channels and attribute pointers it dereferences without
 * a check, and calls on an id that has no device yet where it reads the
 * missing device). They are deliberate differences, listed in
 * docs/bad-input.md: our library returns a clear error instead.
 *
 * Each case runs in a child process. The program finds out which librdmacm
 * it is bound to and checks what that library is documented to do:
 *   Debian's librdmacm   the child is killed by a signal (SIGSEGV, ...);
 *   ours                 the call returns normally with a clear error: -1
 *                        and errno EINVAL for the int calls, NULL and errno
 *                        EINVAL for a pointer, 0 and errno EINVAL for the
 *                        port getters; a void call simply returns.
 * Each line is "case <name>: as documented" when that holds, so the output
 * is the same with both libraries (abi-tests/scenarios/vm.sh compares it);
 * otherwise the line says what happened instead.
 *
 * Four cases crash upstream inside Debian's libibverbs, which librdmacm
 * calls with a NULL object (marked V below: rdma_create_qp and
 * rdma_create_srq on an id without a device, rdma_destroy_qp and
 * rdma_destroy_srq on an id without a QP / SRQ). They are expected to crash
 * only when libibverbs is Debian's too; under our libibverbs the call must
 * come back with the clear error even from Debian's librdmacm. (Scenario runs
 * use either both of Debian's libraries or both of ours.) The crashes in the inline functions of
 * <rdma/rdma_verbs.h> (rdma_post_send(NULL, ...), ...) happen in the
 * application and no library can prevent them: they are not here.
 *
 * Needs rxe0 with 10.0.2.15, as in the test VM.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "crash_case.h"

#define SELF "10.0.2.15"

/* K_INT: -1/errno; K_PTR: NULL/errno; K_VOID: nothing; K_PORT: a port
 * number, whose clear error is 0 with errno EINVAL. */
enum kind { K_INT, K_PTR, K_VOID, K_PORT };

static struct rdma_event_channel *ch;
static int upstream;		/* Debian's librdmacm */
static int upstream_verbs;	/* Debian's libibverbs */
static int nbad;

static struct sockaddr_in in4(const char *ip, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

/* The setup of a case failed: a distinct exit status the parent reports. */
static void setup_failed(void)
{
	_exit(CRASH_CASE_SETUP_FAILED);
}

static struct rdma_cm_id *fresh(enum rdma_port_space ps)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, ps))
		setup_failed();
	return id;
}

static struct rdma_cm_id *route_resolved(void)
{
	struct rdma_cm_id *id;
	struct sockaddr_in src = in4(SELF, 0), dst = in4(SELF, 7991);

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) ||
	    rdma_resolve_route(id, 2000))
		setup_failed();
	return id;
}

static struct rdma_conn_param conn_param(void)
{
	struct rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1 };
	return p;
}

static struct ibv_qp_init_attr qp_attr(void)
{
	struct ibv_qp_init_attr a = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	return a;
}

/* Through volatiles: the compiler must not reason about these NULLs. */
static struct rdma_cm_id *volatile nid;
static struct rdma_event_channel *volatile nch;
static void *volatile nptr;

#define INT_CASE(name, expr)                                                  \
	static void name(struct outcome *o)                                   \
	{                                                                     \
		o->ret = (long)(expr);                                        \
		o->err = errno;                                               \
	}
#define PTR_CASE(name, expr)                                                  \
	static void name(struct outcome *o)                                   \
	{                                                                     \
		o->is_null = !(expr);                                         \
		o->err = errno;                                               \
	}
#define VOID_CASE(name, stmt)                                                 \
	static void name(struct outcome *o)                                   \
	{                                                                     \
		stmt;                                                         \
		o->err = errno;                                               \
	}

static struct sockaddr_in self_addr(void) { return in4(SELF, 0); }
static struct sockaddr_in mcast_addr(void) { return in4("239.1.1.7", 0); }

/* NULL objects */
INT_CASE(create_id_id_null, rdma_create_id(ch, nptr, NULL, RDMA_PS_TCP))
INT_CASE(destroy_id_null, rdma_destroy_id(nid))
VOID_CASE(destroy_event_channel_null, rdma_destroy_event_channel(nch))
INT_CASE(get_cm_event_channel_null, ({ struct rdma_cm_event *e; rdma_get_cm_event(nch, &e); }))
VOID_CASE(free_devices_null, rdma_free_devices(nptr))
INT_CASE(bind_addr_id_null, ({ struct sockaddr_in s = self_addr(); rdma_bind_addr(nid, (struct sockaddr *)&s); }))
INT_CASE(resolve_addr_id_null, ({ struct sockaddr_in s = self_addr(); rdma_resolve_addr(nid, NULL, (struct sockaddr *)&s, 2000); }))
INT_CASE(resolve_route_id_null, rdma_resolve_route(nid, 2000))
INT_CASE(listen_id_null, rdma_listen(nid, 1))
INT_CASE(connect_id_null, ({ struct rdma_conn_param p = conn_param(); rdma_connect(nid, &p); }))
INT_CASE(accept_id_null, ({ struct rdma_conn_param p = conn_param(); rdma_accept(nid, &p); }))
INT_CASE(reject_id_null, rdma_reject(nid, NULL, 0))
INT_CASE(notify_id_null, rdma_notify(nid, IBV_EVENT_COMM_EST))
INT_CASE(disconnect_id_null, rdma_disconnect(nid))
INT_CASE(establish_id_null, rdma_establish(nid))
INT_CASE(init_qp_attr_id_null, ({ struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT }; int m; rdma_init_qp_attr(nid, &a, &m); }))
INT_CASE(set_option_id_null, ({ uint8_t tos = 1; rdma_set_option(nid, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1); }))
INT_CASE(join_multicast_id_null, ({ struct sockaddr_in s = mcast_addr(); rdma_join_multicast(nid, (struct sockaddr *)&s, NULL); }))
INT_CASE(leave_multicast_id_null, ({ struct sockaddr_in s = mcast_addr(); rdma_leave_multicast(nid, (struct sockaddr *)&s); }))
INT_CASE(join_multicast_ex_attr_null, rdma_join_multicast_ex(fresh(RDMA_PS_UDP), nptr, NULL))
INT_CASE(get_src_port_id_null, rdma_get_src_port(nid))
INT_CASE(get_dst_port_id_null, rdma_get_dst_port(nid))
INT_CASE(migrate_id_null, rdma_migrate_id(nid, ch))
INT_CASE(get_request_listen_null, ({ struct rdma_cm_id *r; rdma_get_request(nid, &r); }))
INT_CASE(create_qp_id_null, ({ struct ibv_qp_init_attr a = qp_attr(); rdma_create_qp(nid, NULL, &a); }))
VOID_CASE(destroy_qp_id_null, rdma_destroy_qp(nid))
INT_CASE(create_ep_res_null, ({ struct rdma_cm_id *id; rdma_create_ep(&id, nptr, NULL, NULL); }))
VOID_CASE(destroy_ep_null, rdma_destroy_ep(nid))

/* NULL attributes on a valid id */
INT_CASE(init_qp_attr_attr_null, ({ int m; rdma_init_qp_attr(route_resolved(), nptr, &m); }))
INT_CASE(create_qp_attr_null, rdma_create_qp(route_resolved(), NULL, nptr))
INT_CASE(create_qp_ex_attr_null, rdma_create_qp_ex(route_resolved(), nptr))
INT_CASE(create_srq_attr_null, rdma_create_srq(route_resolved(), NULL, nptr))
INT_CASE(accept_param_null_no_qp, rdma_accept(route_resolved(), NULL))

/* an id that has no device yet (no bind, no resolve): upstream reads it */
INT_CASE(resolve_route_on_fresh, rdma_resolve_route(fresh(RDMA_PS_TCP), 2000))
INT_CASE(connect_with_param_before_resolve, ({ struct rdma_conn_param p = conn_param(); rdma_connect(fresh(RDMA_PS_TCP), &p); }))
INT_CASE(connect_udp_before_resolve, rdma_connect(fresh(RDMA_PS_UDP), NULL))
INT_CASE(accept_with_param_on_fresh, ({ struct rdma_conn_param p = conn_param(); rdma_accept(fresh(RDMA_PS_TCP), &p); }))
INT_CASE(create_qp_on_fresh, ({ struct ibv_qp_init_attr a = qp_attr(); rdma_create_qp(fresh(RDMA_PS_TCP), NULL, &a); }))
INT_CASE(create_srq_on_fresh, ({ struct ibv_srq_init_attr a = { .attr = { .max_wr = 4, .max_sge = 1 } }; rdma_create_srq(fresh(RDMA_PS_TCP), NULL, &a); }))

/* no QP / SRQ to destroy: upstream passes NULL to ibv_destroy_qp/srq */
VOID_CASE(destroy_qp_without_qp, rdma_destroy_qp(route_resolved()))
VOID_CASE(destroy_srq_without_srq, rdma_destroy_srq(route_resolved()))

struct bad_case {
	const char *name;
	enum kind kind;
	void (*fn)(struct outcome *o);
	int in_verbs;	/* upstream's crash is in libibverbs */
};

#define C(name, kind) { #name, kind, name, 0 }
#define V(name, kind) { #name, kind, name, 1 }
static const struct bad_case cases[] = {
	C(create_id_id_null, K_INT),
	C(destroy_id_null, K_INT),
	C(destroy_event_channel_null, K_VOID),
	C(get_cm_event_channel_null, K_INT),
	C(free_devices_null, K_VOID),
	C(bind_addr_id_null, K_INT),
	C(resolve_addr_id_null, K_INT),
	C(resolve_route_id_null, K_INT),
	C(listen_id_null, K_INT),
	C(connect_id_null, K_INT),
	C(accept_id_null, K_INT),
	C(reject_id_null, K_INT),
	C(notify_id_null, K_INT),
	C(disconnect_id_null, K_INT),
	C(establish_id_null, K_INT),
	C(init_qp_attr_id_null, K_INT),
	C(set_option_id_null, K_INT),
	C(join_multicast_id_null, K_INT),
	C(leave_multicast_id_null, K_INT),
	C(join_multicast_ex_attr_null, K_INT),
	C(get_src_port_id_null, K_PORT),
	C(get_dst_port_id_null, K_PORT),
	C(migrate_id_null, K_INT),
	C(get_request_listen_null, K_INT),
	C(create_qp_id_null, K_INT),
	C(destroy_qp_id_null, K_VOID),
	C(create_ep_res_null, K_INT),
	C(destroy_ep_null, K_VOID),
	C(init_qp_attr_attr_null, K_INT),
	C(create_qp_attr_null, K_INT),
	C(create_qp_ex_attr_null, K_INT),
	C(create_srq_attr_null, K_INT),
	C(accept_param_null_no_qp, K_INT),
	C(resolve_route_on_fresh, K_INT),
	C(connect_with_param_before_resolve, K_INT),
	C(connect_udp_before_resolve, K_INT),
	C(accept_with_param_on_fresh, K_INT),
	V(create_qp_on_fresh, K_INT),
	V(create_srq_on_fresh, K_INT),
	V(destroy_qp_without_qp, K_VOID),
	V(destroy_srq_without_srq, K_VOID),
};

/* Is the result the clear error documented for our library? */
static int clear_error(enum kind kind, const struct outcome *o)
{
	switch (kind) {
	case K_INT:
		return o->ret == -1 && o->err == EINVAL;
	case K_PTR:
		return o->is_null && o->err == EINVAL;
	case K_PORT:
		return o->ret == 0 && o->err == EINVAL;
	case K_VOID:
		return 1;
	}
	return 0;
}

/* The child's own channel: the kernel refuses (EACCES) commands written
 * to an rdma_cm file another process opened. */
static void child_setup(void)
{
	ch = rdma_create_event_channel();
	if (!ch)
		setup_failed();
}

static void run_case(const struct bad_case *c)
{
	struct outcome o = { 0 };
	struct child_result r = run_in_child(child_setup, c->fn, &o);
	char got[128];
	int ok, crashes;

	describe_child(got, sizeof(got), &r, &o, c->kind == K_PTR, c->kind == K_VOID);
	crashes = upstream && (!c->in_verbs || upstream_verbs);
	if (crashes)
		ok = child_crashed(&r);
	else
		ok = child_returned(&r) && clear_error(c->kind, &o);
	if (ok) {
		printf("case %s: as documented\n", c->name);
	} else {
		printf("case %s: NOT as documented: %s; documented: %s\n", c->name, got,
		       crashes ? "Debian's library crashes" :
		       c->kind == K_VOID ? "returns" : "a clear error (EINVAL)");
		nbad++;
	}
}

int main(void)
{
	size_t i, n = sizeof(cases) / sizeof(cases[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	upstream = bound_to((void *)rdma_create_id, "/usr/lib/x86_64-linux-gnu/librdmacm.so.1");
	upstream_verbs = bound_to((void *)ibv_get_device_list,
				  "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
	if (upstream < 0 || upstream_verbs < 0) {
		printf("cannot tell which librdmacm and libibverbs are in use\n");
		return 1;
	}

	/* The parent never uses librdmacm: a child could not use what it
	 * opened (see run_case), and must start from a clean library state. */
	for (i = 0; i < n; i++)
		run_case(&cases[i]);
	printf("%zu cases, %d not as documented\n", n, nbad);
	return nbad ? 1 : 0;
}
