/*
 * rs_signals.c: blocking calls of the libraries under a signal every
 * millisecond (SIGALRM from a timer aimed at the main thread, which makes
 * every wait below; the handler only counts).
 *
 *   rs_signals ADDR PORT [restart] [sockets]
 *
 * ADDR is a local address on an RDMA device (10.0.2.15 on rxe0). Without
 * "restart" the handler is installed without SA_RESTART, so a blocking
 * system call the library makes returns EINTR; with it, the kernel restarts
 * what it can. Each wait is retried on EINTR, as applications do, and each
 * line says how the waits ended and whether anything was lost:
 *
 * 1. rdma_get_cm_event, blocked until another thread resolves an address:
 *    the event (ADDR_RESOLVED) arrives, once.
 * 2. ibv_get_cq_event, blocked until another thread sends a UD datagram
 *    to a QP of the same CQ (through the device to itself): the event
 *    arrives and the receive completes.
 * 3. raccept, blocked until another thread connects (rsockets, loopback
 *    through the device).
 * 4. rpoll for input, blocked until the peer sends.
 * 5. rrecv of 256 KiB that the peer sends in 4 KiB pieces with pauses
 *    between them: every byte arrives, in order (a counter pattern).
 *
 * With "sockets", only 3-5, through the socket calls (socket, accept,
 * poll, recv, ...) instead of the r* calls: for a run under librspreload,
 * whose accept and recv are then the waits.
 *
 * For each wait the line says whether it was interrupted (returned EINTR
 * at least once): upstream's behaviour, which ours must match. The line is
 * "interrupted" or "never interrupted", not a count: how many signals land
 * inside a wait is timing. A wait that has not ended after 30 s is
 * reported ("stuck in ...") and ends the program (exit 3): a hang.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#define XFER (256 * 1024)
#define PIECE 4096

static volatile sig_atomic_t ticks;
static struct sockaddr_in addr;
static const char *volatile waiting_in = "setup";
static volatile int progress;

/* The socket calls the rsockets cases make: rsockets' own, or the plain
 * ones (which a preloaded librspreload takes over). */
struct api {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*accept)(int, struct sockaddr *, socklen_t *);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*recv)(int, void *, size_t, int);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*close)(int);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	const char *prefix;
};

static const struct api rs_api = { rsocket, rbind, rlisten, raccept, rconnect, rsend, rrecv,
				   rpoll, rclose, rsetsockopt, "r" };
static const struct api plain_api = { socket, bind, listen, accept, connect, send, recv,
				      poll, close, setsockopt, "" };
static const struct api *api = &rs_api;

/* "raccept" or "accept", as the mode calls it. */
static const char *call(const char *name)
{
	static char buf[4][32];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s%s", api->prefix, name);
	return b;
}

/* Ends the program when one wait takes 30 s (this thread never gets the
 * signal: the timer is aimed at the main thread). */
static void *watchdog(void *arg)
{
	int last = -1, still = 0;

	(void)arg;
	for (;;) {
		sleep(1);
		if (progress != last) {
			last = progress;
			still = 0;
		} else if (++still == 30) {
			printf("stuck in %s for 30 s\n", waiting_in);
			fflush(stdout);
			_exit(3);
		}
	}
	return NULL;
}

static void waiting(const char *what)
{
	waiting_in = what;
	progress++;
}

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static void pause_ms(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

static const char *said(int interrupted)
{
	return interrupted ? "interrupted" : "never interrupted";
}

/* 1. rdma_get_cm_event */
static struct rdma_cm_id *resolve_id;

static void *resolve_later(void *arg)
{
	struct sockaddr_in dst = addr;

	(void)arg;
	pause_ms(200);
	dst.sin_port = 0;
	if (rdma_resolve_addr(resolve_id, NULL, (struct sockaddr *)&dst, 2000))
		fprintf(stderr, "rdma_resolve_addr: %s\n", strerror(errno));
	return NULL;
}

static void cm_event_case(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	int intr = 0, ret;
	pthread_t t;

	if (!ch || rdma_create_id(ch, &resolve_id, NULL, RDMA_PS_TCP)) {
		printf("rdma_get_cm_event: setup failed: %s\n", strerror(errno));
		return;
	}
	pthread_create(&t, NULL, resolve_later, NULL);
	waiting("rdma_get_cm_event");
	while ((ret = rdma_get_cm_event(ch, &ev)) && errno == EINTR)
		intr = 1;
	if (ret) {
		printf("rdma_get_cm_event: failed: %s\n", strerrorname_np(errno));
	} else {
		printf("rdma_get_cm_event: %s, then %s\n", said(intr), rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
	waiting("pthread_join of the resolving thread");
	pthread_join(t, NULL);
	waiting("rdma_destroy_id");
	rdma_destroy_id(resolve_id);
	waiting("rdma_destroy_event_channel");
	rdma_destroy_event_channel(ch);
}

/* 2. ibv_get_cq_event: a UD QP on the first device sends to itself. */
struct ud {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	char buf[40 + 64];
};

static int ud_setup(struct ud *u)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr ia = { 0 };
	struct ibv_qp_attr qa = { 0 };
	struct ibv_ah_attr aa = { 0 };
	struct ibv_recv_wr rwr = { 0 }, *bad_r;
	struct ibv_sge sge;
	union ibv_gid gid;

	if (!list || !list[0] || !(u->ctx = ibv_open_device(list[0])))
		return -1;
	ibv_free_device_list(list);
	if (!(u->pd = ibv_alloc_pd(u->ctx)) || !(u->ch = ibv_create_comp_channel(u->ctx)) ||
	    !(u->cq = ibv_create_cq(u->ctx, 4, NULL, u->ch, 0)) ||
	    !(u->mr = ibv_reg_mr(u->pd, u->buf, sizeof(u->buf), IBV_ACCESS_LOCAL_WRITE)))
		return -1;
	ia.send_cq = ia.recv_cq = u->cq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	if (!(u->qp = ibv_create_qp(u->pd, &ia)))
		return -1;
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	qa.qkey = 0x11111111;
	if (ibv_modify_qp(u->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(u->qp, &qa, IBV_QP_STATE))
		return -1;
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 0;
	if (ibv_modify_qp(u->qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -1;
	/* RoCE: a global route to our own GID 1 (the IPv4 one). */
	if (ibv_query_gid(u->ctx, 1, 1, &gid))
		return -1;
	aa.is_global = 1;
	aa.grh.dgid = gid;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 1;
	aa.port_num = 1;
	if (!(u->ah = ibv_create_ah(u->pd, &aa)))
		return -1;
	sge.addr = (uintptr_t)u->buf;
	sge.length = sizeof(u->buf);
	sge.lkey = u->mr->lkey;
	rwr.wr_id = 2;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	if (ibv_post_recv(u->qp, &rwr, &bad_r) || ibv_req_notify_cq(u->cq, 0))
		return -1;
	return 0;
}

static void *send_later(void *arg)
{
	struct ud *u = arg;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;

	pause_ms(200);
	memcpy(u->buf + 40, "datagram", 9);
	sge.addr = (uintptr_t)(u->buf + 40);
	sge.length = 9;
	sge.lkey = u->mr->lkey;
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = u->ah;
	wr.wr.ud.remote_qpn = u->qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	if (ibv_post_send(u->qp, &wr, &bad))
		fprintf(stderr, "ibv_post_send: %s\n", strerror(errno));
	return NULL;
}

static void cq_event_case(void)
{
	struct ud u = { 0 };
	struct ibv_cq *ev_cq;
	struct ibv_wc wc[2];
	void *ev_ctx;
	int intr = 0, ret, n, got_recv = 0, polls = 0;
	pthread_t t;

	waiting("ibv_open_device and the UD QP");
	if (ud_setup(&u)) {
		printf("ibv_get_cq_event: setup failed: %s\n", strerror(errno));
		return;
	}
	pthread_create(&t, NULL, send_later, &u);
	waiting("ibv_get_cq_event");
	while ((ret = ibv_get_cq_event(u.ch, &ev_cq, &ev_ctx)) && errno == EINTR)
		intr = 1;
	if (ret) {
		printf("ibv_get_cq_event: failed: %s\n", strerrorname_np(errno));
	} else {
		ibv_ack_cq_events(ev_cq, 1);
		/* The event may come for the send's completion first; the
		 * receive follows. */
		waiting("ibv_poll_cq");
		while (!got_recv && polls++ < 2000) {
			n = ibv_poll_cq(u.cq, 2, wc);
			for (int i = 0; i < n; i++)
				if (wc[i].wr_id == 2 && wc[i].status == IBV_WC_SUCCESS &&
				    !memcmp(u.buf + 40, "datagram", 9))
					got_recv = 1;
			if (!got_recv)
				pause_ms(1);
		}
		printf("ibv_get_cq_event: %s, then the event; the datagram %s\n", said(intr),
		       got_recv ? "received intact" : "not received");
	}
	pthread_join(t, NULL);
	waiting("destroying the UD QP");
	ibv_destroy_ah(u.ah);
	ibv_destroy_qp(u.qp);
	ibv_dereg_mr(u.mr);
	ibv_destroy_cq(u.cq);
	ibv_destroy_comp_channel(u.ch);
	ibv_dealloc_pd(u.pd);
	ibv_close_device(u.ctx);
}

/* 3-5. rsockets (or the socket calls) */
static void *connect_and_send(void *arg)
{
	unsigned char buf[PIECE];
	int s, i, off = 0, n;

	(void)arg;
	pause_ms(200);
	s = api->socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || api->connect(s, (struct sockaddr *)&addr, sizeof(addr))) {
		fprintf(stderr, "%s: %s\n", call("connect"), strerror(errno));
		return NULL;
	}
	/* Case 3 waits for the first byte; case 4 for the rest. */
	pause_ms(200);
	while (off < XFER) {
		for (i = 0; i < PIECE; i++)
			buf[i] = (unsigned char)((off + i) * 7 + 3);
		n = api->send(s, buf, PIECE, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: %s\n", call("send"), strerror(errno));
			break;
		}
		off += n;
		if ((off / PIECE) % 8 == 0)
			pause_ms(20);
	}
	/* The receiver closes first. */
	pause_ms(500);
	api->close(s);
	return NULL;
}

static void rsocket_cases(void)
{
	int l, c = -1, intr, ret, got = 0, bad = 0, i;
	unsigned char buf[PIECE * 2];
	struct pollfd pfd;
	pthread_t t;
	int one = 1;

	waiting(call("socket"));
	l = api->socket(AF_INET, SOCK_STREAM, 0);
	api->setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	waiting(call("bind"));
	if (l < 0 || api->bind(l, (struct sockaddr *)&addr, sizeof(addr)) ||
	    (waiting(call("listen")), api->listen(l, 1))) {
		printf("%s: setup failed: %s\n", call("socket"), strerror(errno));
		return;
	}
	pthread_create(&t, NULL, connect_and_send, NULL);

	intr = 0;
	waiting(call("accept"));
	while ((c = api->accept(l, NULL, NULL)) < 0 && errno == EINTR)
		intr = 1;
	if (c < 0)
		printf("%s: failed: %s\n", call("accept"), strerrorname_np(errno));
	else
		printf("%s: %s, then a connection\n", call("accept"), said(intr));

	if (c >= 0) {
		intr = 0;
		pfd.fd = c;
		pfd.events = POLLIN;
		waiting(call("poll"));
		while ((ret = api->poll(&pfd, 1, -1)) < 0 && errno == EINTR)
			intr = 1;
		printf("%s: %s, then %s\n", call("poll"), said(intr),
		       ret == 1 && (pfd.revents & POLLIN) ? "input ready" : "something else");

		intr = 0;
		waiting(call("recv"));
		while (got < XFER) {
			ret = api->recv(c, buf, sizeof(buf), 0);
			progress++;
			if (ret < 0 && errno == EINTR) {
				intr = 1;
				continue;
			}
			if (ret <= 0)
				break;
			for (i = 0; i < ret; i++)
				if (buf[i] != (unsigned char)((got + i) * 7 + 3))
					bad++;
			got += ret;
		}
		printf("%s: %s; %d of %d bytes, %s\n", call("recv"), said(intr), got, XFER,
		       bad ? "some wrong" : "all in order");
		api->close(c);
	}
	pthread_join(t, NULL);
	api->close(l);
}

int main(int argc, char **argv)
{
	struct itimerspec it = { { 0, 1000000 }, { 0, 1000000 } };
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };
	struct sigevent sev;
	struct sigaction sa;
	timer_t timer;
	int restart = 0, sockets = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: rs_signals ADDR PORT [restart] [sockets]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "restart"))
			restart = 1;
		else if (!strcmp(argv[i], "sockets"))
			sockets = 1;
	}
	if (sockets)
		api = &plain_api;
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons(atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", argv[1]);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	printf("SIGALRM every millisecond, %s\n", sa.sa_flags ? "SA_RESTART" : "no SA_RESTART");
	{
		pthread_t w;
		sigset_t all, old;

		/* The watchdog and the helpers never take SIGALRM. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		pthread_create(&w, NULL, watchdog, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	/* Aimed at this thread: a process-wide signal could land on any
	 * thread, the library's own included. */
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) || timer_settime(timer, 0, &it, NULL)) {
		fprintf(stderr, "timer: %s\n", strerror(errno));
		return 1;
	}

	if (!sockets) {
		cm_event_case();
		cq_event_case();
	}
	rsocket_cases();

	timer_settime(timer, 0, &off, NULL);
	timer_delete(timer);
	printf("signals delivered: %s\n", ticks > 100 ? "many" : "few");
	return 0;
}
