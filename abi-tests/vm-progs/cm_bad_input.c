/*
 * cm_bad_input: feeds librdmacm's rdma_* calls invalid arguments and calls
 * made in the wrong state, and prints one line per case,
 * "case <name>: ret=<r> errno=<e|->", so that a run with Debian's librdmacm
 * and one with ours can be compared line by line (abi-tests/scenarios/vm.sh:
 * compare cm_bad_input ...).
 *
 *   ret    the return value: an integer (the rdma_* calls return 0 or -1),
 *          "obj"/"NULL" for a call that returns a pointer, the string for
 *          rdma_event_str, a port number for rdma_get_src/dst_port;
 *   errno  errno after a call that reported a failure (-1, NULL), "-" after
 *          a success: errno is unspecified then.
 *
 * Every case makes its own CM ids (and destroys them), so the cases do not
 * depend on each other. The ids are synchronous (NULL channel) where the
 * case needs a state reached through an event (bound, address or route
 * resolved, listening), so the calls complete inside the library as upstream
 * does it. Every case runs to completion with Debian's librdmacm on
 * Soft-RoCE (rxe0 on eth0, 10.0.2.15, as in the test VM); the inputs on which
 * upstream crashes are in cm_bad_input_crashes.c instead. Nothing printed
 * changes from run to run (no handles, ports the kernel picks, QPNs).
 * The case classes are described in docs/bad-input.md.
 *
 *   cm_bad_input          run every case in this process;
 *   cm_bad_input --fork   run each in a child and report a crash or hang
 *                         as such (to check new cases before adding them).
 * CM_BAD_INPUT_SELF=ADDR runs the same cases on the device holding ADDR
 * (the iWARP run: 10.0.9.15 on siw0).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

/* The address the cases bind to and resolve: 10.0.2.15 (rxe0), or the
 * environment's CM_BAD_INPUT_SELF (10.0.9.15 for siw0, abi-tests/vm-progs/siw-up). */
static const char *self_addr = "10.0.2.15";
#define SELF self_addr
#define PORT_LISTEN 7990
#define MCAST "239.1.1.7"

static const char *cur;		/* the running case's name */
static int ncases;
static struct rdma_event_channel *ch;	/* shared asynchronous channel */

/* ---- reporting ------------------------------------------------------------- */

static void report(const char *ret, int failed, int err)
{
	char e[16] = "-";

	if (failed)
		snprintf(e, sizeof(e), "%d", err);
	printf("case %s: ret=%s errno=%s\n", cur, ret, e);
	fflush(stdout);
}

/* An int-returning call: failure is any non-zero value. */
#define INT(expr)                                                              \
	do {                                                                   \
		char s_[32];                                                   \
		long r_;                                                       \
		errno = 0;                                                     \
		r_ = (long)(expr);                                             \
		int e_ = errno;                                                \
		snprintf(s_, sizeof(s_), "%ld", r_);                           \
		report(s_, r_ != 0, e_);                                       \
	} while (0)

/* A pointer-returning call: failure is NULL. FREE(p) releases a result. */
#define PTR(expr, FREE)                                                        \
	do {                                                                   \
		void *p_;                                                      \
		errno = 0;                                                     \
		p_ = (void *)(expr);                                           \
		int e_ = errno;                                                \
		report(p_ ? "obj" : "NULL", !p_, e_);                          \
		if (p_)                                                        \
			FREE(p_);                                              \
	} while (0)

/* ---- setup helpers: each exits the program if the setup itself fails ------ */

static void setup_failed(const char *what)
{
	printf("case %s: SETUP FAILED: %s: %s\n", cur, what, strerror(errno));
	exit(1);
}

static struct sockaddr_in in4(const char *ip, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

static struct sockaddr_in6 in6(const char *ip)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };

	inet_pton(AF_INET6, ip, &sin6.sin6_addr);
	return sin6;
}

/* A new id on the shared asynchronous channel. */
static struct rdma_cm_id *fresh(enum rdma_port_space ps)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, ps))
		setup_failed("rdma_create_id");
	return id;
}

/* A new synchronous id (its own channel, events handled inside the library). */
static struct rdma_cm_id *fresh_sync(enum rdma_port_space ps)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(NULL, &id, NULL, ps))
		setup_failed("rdma_create_id(NULL channel)");
	return id;
}

/* Bound to 10.0.2.15 (on rxe0), port PORT (0: the kernel picks one). */
static struct rdma_cm_id *bound(enum rdma_port_space ps, int port)
{
	struct rdma_cm_id *id = fresh_sync(ps);
	struct sockaddr_in sin = in4(SELF, port);

	if (rdma_bind_addr(id, (struct sockaddr *)&sin))
		setup_failed("rdma_bind_addr");
	return id;
}

/* Address resolved from 10.0.2.15 to DST (10.0.2.15 itself, over rxe0, or
 * a multicast group: the VM has no route for those, hence the source). */
static struct rdma_cm_id *addr_resolved(enum rdma_port_space ps, const char *dst)
{
	struct rdma_cm_id *id = fresh_sync(ps);
	struct sockaddr_in src = in4(SELF, 0), sin = in4(dst, 7991);

	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&sin, 2000))
		setup_failed("rdma_resolve_addr");
	return id;
}

static struct rdma_cm_id *route_resolved(enum rdma_port_space ps)
{
	struct rdma_cm_id *id = addr_resolved(ps, SELF);

	if (rdma_resolve_route(id, 2000))
		setup_failed("rdma_resolve_route");
	return id;
}

static struct rdma_cm_id *listening(void)
{
	struct rdma_cm_id *id = bound(RDMA_PS_TCP, PORT_LISTEN);

	if (rdma_listen(id, 4))
		setup_failed("rdma_listen");
	return id;
}

static struct ibv_qp_init_attr qp_attr(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};
	return a;
}

/* Route resolved, with a QP made by rdma_create_qp. */
static struct rdma_cm_id *with_qp(void)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct ibv_qp_init_attr a = qp_attr(IBV_QPT_RC);

	if (rdma_create_qp(id, NULL, &a))
		setup_failed("rdma_create_qp");
	return id;
}

static void destroy(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
	if (rdma_destroy_id(id))
		setup_failed("rdma_destroy_id");
}

static struct rdma_conn_param conn_param(void)
{
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	return p;
}

/* ---- the cases ----------------------------------------------------------- */

#define CASE(fn) static void fn(void)

/* event channel, events, devices, strings */
CASE(get_cm_event_event_null) { INT(rdma_get_cm_event(ch, NULL)); }
CASE(get_cm_event_nonblocking_empty)
{
	struct rdma_event_channel *c = rdma_create_event_channel();
	struct rdma_cm_event *ev;

	if (!c || fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK))
		setup_failed("non-blocking channel");
	INT(rdma_get_cm_event(c, &ev));
	rdma_destroy_event_channel(c);
}
CASE(ack_cm_event_null) { INT(rdma_ack_cm_event(NULL)); }
CASE(get_devices_num_null) { PTR(rdma_get_devices(NULL), rdma_free_devices); }
CASE(event_str_99) { errno = 0; report(rdma_event_str(99), 0, 0); }
CASE(event_str_minus_1) { errno = 0; report(rdma_event_str((enum rdma_cm_event_type)-1), 0, 0); }

/* rdma_create_id: port spaces */
#define CREATE_ID(ps)                                                          \
	do {                                                                   \
		struct rdma_cm_id *id = NULL;                                  \
		INT(rdma_create_id(ch, &id, NULL, (enum rdma_port_space)(ps))); \
		if (id)                                                        \
			rdma_destroy_id(id);                                   \
	} while (0)
CASE(create_id_ps_0) { CREATE_ID(0); }
CASE(create_id_ps_0x9999) { CREATE_ID(0x9999); }
CASE(create_id_ps_tcp_plus_1) { CREATE_ID(RDMA_PS_TCP + 1); }
CASE(create_id_ps_ib) { CREATE_ID(RDMA_PS_IB); }
CASE(create_id_ps_ipoib) { CREATE_ID(RDMA_PS_IPOIB); }
CASE(create_id_ps_udp_sync)
{
	struct rdma_cm_id *id = NULL;

	INT(rdma_create_id(NULL, &id, NULL, RDMA_PS_UDP));
	if (id)
		rdma_destroy_id(id);
}

/* rdma_bind_addr */
#define BIND(id, sa) INT(rdma_bind_addr(id, (struct sockaddr *)(sa)))
CASE(bind_addr_null) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); BIND(id, NULL); destroy(id); }
CASE(bind_family_unix)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = "/tmp/x" };

	BIND(id, &sun);
	destroy(id);
}
CASE(bind_family_unspec)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct sockaddr_in sin = in4(SELF, 0);

	sin.sin_family = AF_UNSPEC;
	BIND(id, &sin);
	destroy(id);
}
CASE(bind_no_interface_ipv4)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct sockaddr_in sin = in4("10.0.2.99", 0);

	BIND(id, &sin);
	destroy(id);
}
CASE(bind_no_interface_ipv6)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct sockaddr_in6 sin6 = in6("2001:db8::1");

	BIND(id, &sin6);
	destroy(id);
}
CASE(bind_twice)
{
	struct rdma_cm_id *id = bound(RDMA_PS_TCP, 0);
	struct sockaddr_in sin = in4(SELF, 0);

	BIND(id, &sin);
	destroy(id);
}
CASE(bind_port_in_use)
{
	struct rdma_cm_id *l = listening(), *id = fresh(RDMA_PS_TCP);
	struct sockaddr_in sin = in4(SELF, PORT_LISTEN);

	BIND(id, &sin);
	destroy(id);
	destroy(l);
}
CASE(bind_any_ipv4) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); struct sockaddr_in s = in4("0.0.0.0", 0); BIND(id, &s); destroy(id); }
CASE(bind_any_ipv6) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); struct sockaddr_in6 s = in6("::"); BIND(id, &s); destroy(id); }
CASE(bind_loopback) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); struct sockaddr_in s = in4("127.0.0.1", 0); BIND(id, &s); destroy(id); }
CASE(bind_ipv6_loopback) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); struct sockaddr_in6 s = in6("::1"); BIND(id, &s); destroy(id); }
CASE(bind_af_ib_zero)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_IB);
	struct sockaddr_ib sib = { .sib_family = AF_IB };

	BIND(id, &sib);
	destroy(id);
}
CASE(bind_on_listening)
{
	struct rdma_cm_id *l = listening();
	struct sockaddr_in sin = in4(SELF, 0);

	BIND(l, &sin);
	destroy(l);
}
CASE(bind_on_addr_resolved)
{
	struct rdma_cm_id *id = addr_resolved(RDMA_PS_TCP, SELF);
	struct sockaddr_in sin = in4(SELF, 0);

	BIND(id, &sin);
	destroy(id);
}

/* rdma_resolve_addr */
#define RESOLVE(id, src, dst) \
	INT(rdma_resolve_addr(id, (struct sockaddr *)(src), (struct sockaddr *)(dst), 2000))
CASE(resolve_addr_dst_null) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); RESOLVE(id, NULL, NULL); destroy(id); }
CASE(resolve_addr_dst_family_unix)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	RESOLVE(id, NULL, &sun);
	destroy(id);
}
CASE(resolve_addr_src_family_unix)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_in dst = in4(SELF, 7991);

	RESOLVE(id, &sun, &dst);
	destroy(id);
}
CASE(resolve_addr_family_mismatch)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct sockaddr_in src = in4(SELF, 0);
	struct sockaddr_in6 dst = in6("::1");

	RESOLVE(id, &src, &dst);
	destroy(id);
}
CASE(resolve_addr_twice)
{
	struct rdma_cm_id *id = addr_resolved(RDMA_PS_TCP, SELF);
	struct sockaddr_in dst = in4(SELF, 7991);

	RESOLVE(id, NULL, &dst);
	destroy(id);
}
CASE(resolve_addr_on_listening)
{
	struct rdma_cm_id *l = listening();
	struct sockaddr_in dst = in4(SELF, 7991);

	RESOLVE(l, NULL, &dst);
	destroy(l);
}
CASE(resolve_addr_src_no_interface)
{
	struct rdma_cm_id *id = fresh_sync(RDMA_PS_TCP);
	struct sockaddr_in src = in4("10.0.2.99", 0), dst = in4(SELF, 7991);

	RESOLVE(id, &src, &dst);
	destroy(id);
}
CASE(resolve_addr_to_any)
{
	struct rdma_cm_id *id = fresh_sync(RDMA_PS_TCP);
	struct sockaddr_in dst = in4("0.0.0.0", 7991);

	RESOLVE(id, NULL, &dst);
	destroy(id);
}

/* rdma_resolve_route */
CASE(resolve_route_on_bound)
{
	struct rdma_cm_id *id = bound(RDMA_PS_TCP, 0);

	INT(rdma_resolve_route(id, 2000));
	destroy(id);
}
CASE(resolve_route_twice)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);

	INT(rdma_resolve_route(id, 2000));
	destroy(id);
}
CASE(resolve_route_on_listening)
{
	struct rdma_cm_id *l = listening();

	INT(rdma_resolve_route(l, 2000));
	destroy(l);
}

/* rdma_listen */
CASE(listen_before_bind) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_listen(id, 1)); destroy(id); }
CASE(listen_twice) { struct rdma_cm_id *l = listening(); INT(rdma_listen(l, 1)); destroy(l); }
CASE(listen_on_addr_resolved)
{
	struct rdma_cm_id *id = addr_resolved(RDMA_PS_TCP, SELF);

	INT(rdma_listen(id, 1));
	destroy(id);
}
CASE(listen_backlog_negative) { struct rdma_cm_id *id = bound(RDMA_PS_TCP, 0); INT(rdma_listen(id, -5)); destroy(id); }
CASE(listen_udp) { struct rdma_cm_id *id = bound(RDMA_PS_UDP, 0); INT(rdma_listen(id, 1)); destroy(id); }

/* rdma_connect */
CASE(connect_before_resolve_no_param) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_connect(id, NULL)); destroy(id); }
CASE(connect_on_addr_resolved)
{
	struct rdma_cm_id *id = addr_resolved(RDMA_PS_TCP, SELF);
	struct rdma_conn_param p = conn_param();

	INT(rdma_connect(id, &p));
	destroy(id);
}
CASE(connect_no_qp_no_param)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);

	INT(rdma_connect(id, NULL));
	destroy(id);
}
CASE(connect_responder_resources_too_big)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct rdma_conn_param p = conn_param();

	p.responder_resources = 200;
	INT(rdma_connect(id, &p));
	destroy(id);
}
CASE(connect_initiator_depth_too_big)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct rdma_conn_param p = conn_param();

	p.initiator_depth = 200;
	INT(rdma_connect(id, &p));
	destroy(id);
}
CASE(connect_on_listening)
{
	struct rdma_cm_id *l = listening();
	struct rdma_conn_param p = conn_param();

	INT(rdma_connect(l, &p));
	destroy(l);
}

/* rdma_accept, rdma_reject, rdma_establish, rdma_notify, rdma_disconnect */
CASE(accept_on_active_id)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct rdma_conn_param p = conn_param();

	INT(rdma_accept(id, &p));
	destroy(id);
}
CASE(accept_on_listening)
{
	struct rdma_cm_id *l = listening();
	struct rdma_conn_param p = conn_param();

	INT(rdma_accept(l, &p));
	destroy(l);
}
CASE(accept_with_qp_on_active_id)
{
	struct rdma_cm_id *id = with_qp();

	INT(rdma_accept(id, NULL));
	destroy(id);
}
CASE(reject_on_fresh) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_reject(id, NULL, 0)); destroy(id); }
CASE(reject_on_active_id)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	char pd[8] = "reject";

	INT(rdma_reject(id, pd, sizeof(pd)));
	destroy(id);
}
CASE(reject_ece_on_fresh) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_reject_ece(id, NULL, 0)); destroy(id); }
CASE(establish_with_qp) { struct rdma_cm_id *id = with_qp(); INT(rdma_establish(id)); destroy(id); }
CASE(establish_on_fresh) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_establish(id)); destroy(id); }
CASE(notify_on_fresh) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_notify(id, IBV_EVENT_COMM_EST)); destroy(id); }
CASE(notify_on_route_resolved)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);

	INT(rdma_notify(id, IBV_EVENT_COMM_EST));
	destroy(id);
}
CASE(disconnect_on_fresh) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_disconnect(id)); destroy(id); }
CASE(disconnect_on_route_resolved)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);

	INT(rdma_disconnect(id));
	destroy(id);
}
CASE(disconnect_with_qp_not_connected) { struct rdma_cm_id *id = with_qp(); INT(rdma_disconnect(id)); destroy(id); }

/* rdma_init_qp_attr */
CASE(init_qp_attr_on_fresh)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
	int mask;

	INT(rdma_init_qp_attr(id, &a, &mask));
	destroy(id);
}
CASE(init_qp_attr_state_99)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct ibv_qp_attr a = { .qp_state = 99 };
	int mask;

	INT(rdma_init_qp_attr(id, &a, &mask));
	destroy(id);
}
CASE(init_qp_attr_rtr_before_connect)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask;

	INT(rdma_init_qp_attr(id, &a, &mask));
	destroy(id);
}

/* rdma_set_option */
static uint8_t u8val = 1;
static int intval = 1;
#define SETOPT(id, lvl, name, val, len) INT(rdma_set_option(id, lvl, name, val, len))
CASE(set_option_level_99) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, 99, 0, &u8val, 1); destroy(id); }
CASE(set_option_optname_99) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, RDMA_OPTION_ID, 99, &intval, sizeof(int)); destroy(id); }
CASE(set_option_ib_optname_99) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, RDMA_OPTION_IB, 99, &intval, sizeof(int)); destroy(id); }
CASE(set_option_tos_ok) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &u8val, 1); destroy(id); }
CASE(set_option_tos_optlen_4) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &intval, 4); destroy(id); }
CASE(set_option_tos_optval_null) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, NULL, 1); destroy(id); }
CASE(set_option_tos_optlen_0) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, NULL, 0); destroy(id); }
CASE(set_option_reuseaddr_optlen_1) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &u8val, 1); destroy(id); }
CASE(set_option_reuseaddr_after_bind) { struct rdma_cm_id *id = bound(RDMA_PS_TCP, 0); SETOPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &intval, sizeof(int)); destroy(id); }
CASE(set_option_afonly_after_bind) { struct rdma_cm_id *id = bound(RDMA_PS_TCP, 0); SETOPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &intval, sizeof(int)); destroy(id); }
CASE(set_option_ack_timeout_optlen_4) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); SETOPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &intval, 4); destroy(id); }
CASE(set_option_ib_path_bad_len)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	char buf[100] = { 0 };

	SETOPT(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, buf, 7);
	destroy(id);
}
CASE(set_option_ib_path_on_fresh)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_TCP);
	struct ibv_path_data path = { 0 };

	SETOPT(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, &path, sizeof(path));
	destroy(id);
}

/* multicast */
CASE(join_addr_null) { struct rdma_cm_id *id = fresh(RDMA_PS_UDP); INT(rdma_join_multicast(id, NULL, NULL)); destroy(id); }
CASE(join_family_unix)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_UDP);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	INT(rdma_join_multicast(id, (struct sockaddr *)&sun, NULL));
	destroy(id);
}
CASE(join_on_fresh)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_UDP);
	struct sockaddr_in mc = in4(MCAST, 0);

	INT(rdma_join_multicast(id, (struct sockaddr *)&mc, NULL));
	destroy(id);
}
CASE(join_on_tcp_id)
{
	struct rdma_cm_id *id = addr_resolved(RDMA_PS_TCP, MCAST);
	struct sockaddr_in mc = in4(MCAST, 0);

	INT(rdma_join_multicast(id, (struct sockaddr *)&mc, NULL));
	destroy(id);
}
CASE(join_unicast_address)
{
	struct rdma_cm_id *id = addr_resolved(RDMA_PS_UDP, SELF);
	struct sockaddr_in uc = in4(SELF, 0);

	INT(rdma_join_multicast(id, (struct sockaddr *)&uc, NULL));
	destroy(id);
}
CASE(leave_never_joined)
{
	struct rdma_cm_id *id = fresh(RDMA_PS_UDP);
	struct sockaddr_in mc = in4(MCAST, 0);

	INT(rdma_leave_multicast(id, (struct sockaddr *)&mc));
	destroy(id);
}
CASE(leave_addr_null) { struct rdma_cm_id *id = fresh(RDMA_PS_UDP); INT(rdma_leave_multicast(id, NULL)); destroy(id); }
/* Wait for the next event on C, which must be TYPE, and ack it. */
static void expect_event(struct rdma_event_channel *c, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(c, &ev))
		setup_failed("rdma_get_cm_event");
	if (ev->event != type || ev->status) {
		errno = 0;
		printf("case %s: SETUP FAILED: event %s status %d, wanted %s\n", cur,
		       rdma_event_str(ev->event), ev->status, rdma_event_str(type));
		exit(1);
	}
	rdma_ack_cm_event(ev);
}

/* A double leave: the second finds nothing to leave. On an asynchronous id
 * whose join event was acked: on a synchronous id upstream's leave waits
 * forever for the join event it keeps unacked in id->event (see
 * docs/bad-input.md). */
CASE(leave_twice)
{
	struct rdma_event_channel *c = rdma_create_event_channel();
	struct rdma_cm_id *id;
	struct sockaddr_in src = in4(SELF, 0), mc = in4(MCAST, 0);

	if (!c || rdma_create_id(c, &id, NULL, RDMA_PS_UDP))
		setup_failed("an asynchronous UDP id");
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&mc, 2000))
		setup_failed("rdma_resolve_addr");
	expect_event(c, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_join_multicast(id, (struct sockaddr *)&mc, NULL))
		setup_failed("rdma_join_multicast");
	expect_event(c, RDMA_CM_EVENT_MULTICAST_JOIN);
	if (rdma_leave_multicast(id, (struct sockaddr *)&mc))
		setup_failed("the first rdma_leave_multicast");
	INT(rdma_leave_multicast(id, (struct sockaddr *)&mc));
	destroy(id);
	rdma_destroy_event_channel(c);
}
#define JOIN_EX(mask, flags, has_addr)                                           \
	do {                                                                   \
		struct rdma_cm_id *id = fresh(RDMA_PS_UDP);                    \
		struct sockaddr_in mc = in4(MCAST, 0);                         \
		struct rdma_cm_join_mc_attr_ex a = {                           \
			.comp_mask = (mask), .join_flags = (flags),            \
			.addr = (has_addr) ? (struct sockaddr *)&mc : NULL,    \
		};                                                             \
		INT(rdma_join_multicast_ex(id, &a, NULL));                     \
		destroy(id);                                                   \
	} while (0)
CASE(join_ex_comp_mask_reserved) { JOIN_EX(RDMA_CM_JOIN_MC_ATTR_RESERVED | 3, 0, 1); }
CASE(join_ex_no_address_bit) { JOIN_EX(RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS, 0, 1); }
CASE(join_ex_no_flags_bit) { JOIN_EX(RDMA_CM_JOIN_MC_ATTR_ADDRESS, 0, 1); }
CASE(join_ex_flags_reserved) { JOIN_EX(3, RDMA_MC_JOIN_FLAG_RESERVED, 1); }
CASE(join_ex_addr_null) { JOIN_EX(3, 0, 0); }

/* QP and SRQ helpers */
CASE(create_qp_twice)
{
	struct rdma_cm_id *id = with_qp();
	struct ibv_qp_init_attr a = qp_attr(IBV_QPT_RC);

	INT(rdma_create_qp(id, NULL, &a));
	destroy(id);
}
CASE(create_qp_pd_of_other_context)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct ibv_qp_init_attr a = qp_attr(IBV_QPT_RC);
	struct ibv_context *ctx = ibv_open_device(id->verbs->device);
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;

	if (!pd)
		setup_failed("a PD on a second context");
	INT(rdma_create_qp(id, pd, &a));
	destroy(id);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}
CASE(create_qp_type_ud_on_tcp_id)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct ibv_qp_init_attr a = qp_attr(IBV_QPT_UD);

	INT(rdma_create_qp(id, NULL, &a));
	destroy(id);
}
CASE(create_qp_cap_too_big)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct ibv_qp_init_attr a = qp_attr(IBV_QPT_RC);

	a.cap.max_send_wr = 1 << 30;
	INT(rdma_create_qp(id, NULL, &a));
	destroy(id);
}
CASE(create_srq_ex_no_type_bit)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct ibv_srq_init_attr_ex a = { .attr = { .max_wr = 4, .max_sge = 1 } };

	INT(rdma_create_srq_ex(id, &a));
	destroy(id);
}
CASE(create_srq_ex_xrc)
{
	struct rdma_cm_id *id = route_resolved(RDMA_PS_TCP);
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE, .srq_type = IBV_SRQT_XRC,
	};

	INT(rdma_create_srq_ex(id, &a));
	if (id->srq)
		rdma_destroy_srq(id);
	destroy(id);
}

/* ports, ECE, migrate, get_request */
CASE(get_src_port_fresh) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_get_src_port(id)); destroy(id); }
CASE(get_dst_port_fresh) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_get_dst_port(id)); destroy(id); }
CASE(get_dst_port_resolved)
{
	struct rdma_cm_id *id = addr_resolved(RDMA_PS_TCP, SELF);
	char port[16];

	snprintf(port, sizeof(port), "%d", ntohs(rdma_get_dst_port(id)));
	report(port, 0, 0);
	destroy(id);
}
CASE(set_local_ece_id_null) { struct ibv_ece e = { .vendor_id = 1 }; INT(rdma_set_local_ece(NULL, &e)); }
CASE(set_local_ece_ece_null) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_set_local_ece(id, NULL)); destroy(id); }
CASE(set_local_ece_vendor_0) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); struct ibv_ece e = { 0 }; INT(rdma_set_local_ece(id, &e)); destroy(id); }
CASE(set_local_ece_comp_mask) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); struct ibv_ece e = { .vendor_id = 1, .comp_mask = 1 }; INT(rdma_set_local_ece(id, &e)); destroy(id); }
CASE(set_local_ece_with_qp) { struct rdma_cm_id *id = with_qp(); struct ibv_ece e = { .vendor_id = 1 }; INT(rdma_set_local_ece(id, &e)); destroy(id); }
CASE(get_remote_ece_id_null) { struct ibv_ece e; INT(rdma_get_remote_ece(NULL, &e)); }
CASE(get_remote_ece_ece_null) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); INT(rdma_get_remote_ece(id, NULL)); destroy(id); }
CASE(get_remote_ece_with_qp) { struct rdma_cm_id *id = with_qp(); struct ibv_ece e; INT(rdma_get_remote_ece(id, &e)); destroy(id); }
CASE(migrate_sync_id_to_null) { struct rdma_cm_id *id = fresh_sync(RDMA_PS_TCP); INT(rdma_migrate_id(id, NULL)); destroy(id); }
CASE(get_request_on_async_id) { struct rdma_cm_id *id = fresh(RDMA_PS_TCP); struct rdma_cm_id *r; INT(rdma_get_request(id, &r)); destroy(id); }

struct cm_case {
	const char *name;
	void (*fn)(void);
};
#define C(fn) { #fn, fn }
static const struct cm_case cases[] = {
	C(get_cm_event_event_null), C(get_cm_event_nonblocking_empty), C(ack_cm_event_null),
	C(get_devices_num_null), C(event_str_99), C(event_str_minus_1),
	C(create_id_ps_0), C(create_id_ps_0x9999), C(create_id_ps_tcp_plus_1),
	C(create_id_ps_ib), C(create_id_ps_ipoib), C(create_id_ps_udp_sync),
	C(bind_addr_null), C(bind_family_unix), C(bind_family_unspec),
	C(bind_no_interface_ipv4), C(bind_no_interface_ipv6), C(bind_twice),
	C(bind_port_in_use), C(bind_any_ipv4), C(bind_any_ipv6), C(bind_loopback),
	C(bind_ipv6_loopback), C(bind_af_ib_zero), C(bind_on_listening),
	C(bind_on_addr_resolved),
	C(resolve_addr_dst_null), C(resolve_addr_dst_family_unix),
	C(resolve_addr_src_family_unix), C(resolve_addr_family_mismatch),
	C(resolve_addr_twice), C(resolve_addr_on_listening),
	C(resolve_addr_src_no_interface), C(resolve_addr_to_any),
	C(resolve_route_on_bound), C(resolve_route_twice), C(resolve_route_on_listening),
	C(listen_before_bind), C(listen_twice), C(listen_on_addr_resolved),
	C(listen_backlog_negative), C(listen_udp),
	C(connect_before_resolve_no_param), C(connect_on_addr_resolved),
	C(connect_no_qp_no_param), C(connect_responder_resources_too_big),
	C(connect_initiator_depth_too_big), C(connect_on_listening),
	C(accept_on_active_id), C(accept_on_listening), C(accept_with_qp_on_active_id),
	C(reject_on_fresh), C(reject_on_active_id), C(reject_ece_on_fresh),
	C(establish_with_qp), C(establish_on_fresh), C(notify_on_fresh),
	C(notify_on_route_resolved), C(disconnect_on_fresh), C(disconnect_on_route_resolved),
	C(disconnect_with_qp_not_connected),
	C(init_qp_attr_on_fresh), C(init_qp_attr_state_99), C(init_qp_attr_rtr_before_connect),
	C(set_option_level_99), C(set_option_optname_99), C(set_option_ib_optname_99),
	C(set_option_tos_ok), C(set_option_tos_optlen_4), C(set_option_tos_optval_null),
	C(set_option_tos_optlen_0), C(set_option_reuseaddr_optlen_1),
	C(set_option_reuseaddr_after_bind), C(set_option_afonly_after_bind),
	C(set_option_ack_timeout_optlen_4), C(set_option_ib_path_bad_len),
	C(set_option_ib_path_on_fresh),
	C(join_addr_null), C(join_family_unix), C(join_on_fresh), C(join_on_tcp_id),
	C(join_unicast_address), C(leave_never_joined), C(leave_addr_null), C(leave_twice),
	C(join_ex_comp_mask_reserved), C(join_ex_no_address_bit), C(join_ex_no_flags_bit),
	C(join_ex_flags_reserved), C(join_ex_addr_null),
	C(create_qp_twice), C(create_qp_pd_of_other_context), C(create_qp_type_ud_on_tcp_id),
	C(create_qp_cap_too_big), C(create_srq_ex_no_type_bit), C(create_srq_ex_xrc),
	C(get_src_port_fresh), C(get_dst_port_fresh), C(get_dst_port_resolved),
	C(set_local_ece_id_null), C(set_local_ece_ece_null), C(set_local_ece_vendor_0),
	C(set_local_ece_comp_mask), C(set_local_ece_with_qp),
	C(get_remote_ece_id_null), C(get_remote_ece_ece_null), C(get_remote_ece_with_qp),
	C(migrate_sync_id_to_null), C(get_request_on_async_id),
};

int main(int argc, char **argv)
{
	int forking = argc > 1 && !strcmp(argv[1], "--fork");
	size_t i, n = sizeof(cases) / sizeof(cases[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("CM_BAD_INPUT_SELF"))
		self_addr = getenv("CM_BAD_INPUT_SELF");
	/* With --fork the parent must not touch librdmacm: the kernel refuses
	 * (EACCES) commands written to an rdma_cm or uverbs file that another
	 * process (with other credentials) opened, so every child opens its
	 * own. */
	if (!forking) {
		ch = rdma_create_event_channel();
		if (!ch) {
			printf("setup failed: rdma_create_event_channel: %s\n", strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		cur = cases[i].name;
		if (!forking) {
			cases[i].fn();
		} else {
			int st;
			pid_t pid = fork();

			if (pid == 0) {
				alarm(20);
				ch = rdma_create_event_channel();
				if (!ch)
					setup_failed("rdma_create_event_channel");
				cases[i].fn();
				_exit(0);
			}
			waitpid(pid, &st, 0);
			if (WIFSIGNALED(st))
				printf("case %s: KILLED by signal %d (%s)\n", cur,
				       WTERMSIG(st), strsignal(WTERMSIG(st)));
		}
		ncases++;
	}
	if (ch)
		rdma_destroy_event_channel(ch);
	printf("%d cases\n", ncases);
	return 0;
}
