/* Functional and bad-input checks of an rxe provider on rxe0 (GID index 1,
 * as in the test VM), in one process: two RC QPs connected to each other,
 * two UD QPs, an SRQ. Prints one line per check; run it with each provider
 * and compare the output (providers/rxe/vm/run).
 *
 *   rxe_check good   the verbs, data path and extended interfaces, used right
 *   rxe_check bad    bad input, each case in a child process of its own
 *                    (set up from scratch: a forked child may not ring the
 *                    parent's doorbells); a crash shows as "signal N"
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static char *buf;
#define BUFSZ 65536
static union ibv_gid gid;

static void die(const char *w) { printf("FATAL %s: %s\n", w, strerror(errno)); exit(1); }

static struct ibv_qp *mk_qp(struct ibv_cq *cq, enum ibv_qp_type t, struct ibv_srq *srq, int ex)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2, .max_recv_sge = 2, .max_inline_data = 64 },
		.qp_type = t, .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};
	if (ex) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = t == IBV_QPT_UD ? IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM :
			IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE |
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
			IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV;
	}
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);
	if (!qp) die("create_qp_ex");
	return qp;
}

static void rc_connect(struct ibv_qp *q, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE };
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) die("init");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR; a.path_mtu = IBV_MTU_1024; a.dest_qp_num = dqpn; a.rq_psn = 1;
	a.max_dest_rd_atomic = 4; a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1; a.ah_attr.grh.dgid = gid; a.ah_attr.grh.sgid_index = 1; a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) die("rtr");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS; a.timeout = 14; a.retry_cnt = 7; a.rnr_retry = 7; a.sq_psn = 1; a.max_rd_atomic = 4;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC)) die("rts");
}

static void ud_ready(struct ibv_qp *q)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111 };
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)) die("ud init");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE)) die("ud rtr");
	a.qp_state = IBV_QPS_RTS; a.sq_psn = 1;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) die("ud rts");
}

/* Polls one completion (up to 2 s) and prints it. */
static int poll1(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	for (int i = 0; i < 20000; i++) {
		int n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0) { printf("%s: poll error %d\n", what, n); return -1; }
		if (n == 1) {
			printf("%s: wc id=%llu status=%d opcode=%d len=%u imm=%x flags=%x\n", what,
			       (unsigned long long)wc.wr_id, wc.status, wc.opcode,
			       wc.opcode & IBV_WC_RECV ? wc.byte_len : 0,
			       wc.wc_flags & IBV_WC_WITH_IMM ? ntohl(wc.imm_data) : 0, wc.wc_flags & ~IBV_WC_GRH);
			return 0;
		}
		usleep(100);
	}
	printf("%s: no completion\n", what);
	return -1;
}

static void drain(struct ibv_cq *cq, int n, const char *what)
{
	for (int i = 0; i < n; i++) poll1(cq, what);
}

static void recv1(struct ibv_qp *q, uint64_t id, size_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_recv_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1 }, *bad;
	int r = ibv_post_recv(q, &w, &bad);
	if (r) printf("post_recv: %d\n", r);
}

static void setup(void);

/* Runs f in a child (after its own setup); prints what happened. */
static void sandbox(const char *name, int (*f)(void))
{
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		setup();
		errno = 0;
		int r = f();
		printf("BAD %s: ret=%d errno=%d\n", name, r, errno);
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(p, &st, 0);
	if (WIFSIGNALED(st)) printf("BAD %s: signal %d\n", name, WTERMSIG(st));
	fflush(stdout);
}

static struct ibv_cq *cq;
static struct ibv_qp *qa, *qb, *ua, *ub;
static struct ibv_ah *ah;
static struct ibv_srq *srq;

static struct ibv_sge many[64];
static void fill_many(void)
{
	for (int i = 0; i < 64; i++) { many[i].addr = (uintptr_t)buf; many[i].length = 8; many[i].lkey = mr->lkey; }
}
static int bad_num_sge(void)
{
	fill_many();
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = many, .num_sge = 64, .opcode = IBV_WR_SEND }, *bad = NULL;
	int r = ibv_post_send(qa, &w, &bad);
	printf("  bad_wr==&w: %d\n", bad == &w);
	return r;
}
static int bad_null_sgl(void)
{
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = NULL, .num_sge = 1, .opcode = IBV_WR_SEND }, *bad = NULL;
	return ibv_post_send(qa, &w, &bad);
}
static int bad_neg_sge(void)
{
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = NULL, .num_sge = -1, .opcode = IBV_WR_SEND }, *bad = NULL;
	return ibv_post_send(qa, &w, &bad);
}
static int bad_loop_send(void)
{
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE }, *bad = NULL;
	w.wr.rdma.remote_addr = (uintptr_t)buf + 1024; w.wr.rdma.rkey = mr->rkey;
	w.next = &w;
	int r = ibv_post_send(qa, &w, &bad);
	printf("  bad_wr==&w: %d\n", bad == &w);
	return r;
}
static int bad_loop_recv(void)
{
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_recv_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1 }, *bad = NULL;
	w.next = &w;
	int r = ibv_post_recv(qb, &w, &bad);
	printf("  bad_wr==&w: %d\n", bad == &w);
	return r;
}
static int bad_recv_num_sge(void)
{
	struct ibv_sge s[3] = {{ (uintptr_t)buf, 8, mr->lkey }, { (uintptr_t)buf, 8, mr->lkey }, { (uintptr_t)buf, 8, mr->lkey }};
	struct ibv_recv_wr w = { .wr_id = 1, .sg_list = s, .num_sge = 3 }, *bad = NULL;
	return ibv_post_recv(qb, &w, &bad);
}
static int bad_recv_null_sgl(void)
{
	struct ibv_recv_wr w = { .wr_id = 1, .sg_list = NULL, .num_sge = 2 }, *bad = NULL;
	return ibv_post_recv(qb, &w, &bad);
}
static int bad_poll_destroyed(void)
{
	struct ibv_cq *c = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!c) die("cq");
	if (ibv_destroy_cq(c)) die("destroy cq");
	struct ibv_wc wc;
	return ibv_poll_cq(c, 1, &wc);
}
static int bad_send_destroyed(void)
{
	struct ibv_qp *q = mk_qp(cq, IBV_QPT_RC, NULL, 0);
	if (ibv_destroy_qp(q)) die("destroy qp");
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND }, *bad = NULL;
	return ibv_post_send(q, &w, &bad);
}
static int bad_srq_destroyed(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 2 } };
	struct ibv_srq *q = ibv_create_srq(pd, &sa);
	if (!q || ibv_destroy_srq(q)) die("srq");
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_recv_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1 }, *bad = NULL;
	return ibv_post_srq_recv(q, &w, &bad);
}
static int bad_recv_destroyed(void)
{
	struct ibv_qp *q = mk_qp(cq, IBV_QPT_RC, NULL, 0);
	if (ibv_destroy_qp(q)) die("destroy qp");
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_recv_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1 }, *bad = NULL;
	return ibv_post_recv(q, &w, &bad);
}
static int bad_wr_destroyed(void)
{
	struct ibv_qp *q = mk_qp(cq, IBV_QPT_RC, NULL, 1);
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(q);
	if (ibv_destroy_qp(q)) die("destroy qp");
	ibv_wr_start(x);
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	return ibv_wr_complete(x);
}
static int bad_ud_null_ah(void)
{
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND }, *bad = NULL;
	w.wr.ud.ah = NULL; w.wr.ud.remote_qpn = ub->qp_num; w.wr.ud.remote_qkey = 0x11111111;
	return ibv_post_send(ua, &w, &bad);
}
static int bad_setter_first(void)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qa);
	ibv_wr_start(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	return ibv_wr_complete(x);
}
static int bad_complete_unstarted(void)
{
	return ibv_wr_complete(ibv_qp_to_qp_ex(qa));
}
static int bad_sge_list_long(void)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qa);
	fill_many();
	ibv_wr_start(x);
	x->wr_id = 5;
	ibv_wr_rdma_write(x, mr->rkey, (uintptr_t)buf + 1024);
	ibv_wr_set_sge_list(x, 64, many);
	return ibv_wr_complete(x);
}
static int bad_inline_long(void)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qa);
	ibv_wr_start(x);
	ibv_wr_rdma_write(x, mr->rkey, (uintptr_t)buf + 1024);
	ibv_wr_set_inline_data(x, buf, 4096);
	return ibv_wr_complete(x);
}
static int bad_wr_overflow(void)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qa);
	ibv_wr_start(x);
	for (int i = 0; i < 100; i++) {
		x->wr_id = i;
		ibv_wr_rdma_write(x, mr->rkey, (uintptr_t)buf + 1024);
		ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	}
	return ibv_wr_complete(x);
}
static int bad_inline_send_long(void)
{
	struct ibv_sge s = { (uintptr_t)buf, 4096, mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE }, *bad = NULL;
	return ibv_post_send(qa, &w, &bad);
}
static int bad_srq_null_bad(void)
{
	struct ibv_sge s[3] = {{ (uintptr_t)buf, 8, mr->lkey }, { (uintptr_t)buf, 8, mr->lkey }, { (uintptr_t)buf, 8, mr->lkey }};
	struct ibv_recv_wr w = { .wr_id = 1, .sg_list = s, .num_sge = 3 };
	return ibv_post_srq_recv(srq, &w, NULL);
}
static int bad_srq_loop(void)
{
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_recv_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1 }, *bad = NULL;
	w.next = &w;
	int r = ibv_post_srq_recv(srq, &w, &bad);
	printf("  bad_wr==&w: %d\n", bad == &w);
	return r;
}
static int bad_poll_null_wc(void)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qa);
	ibv_wr_start(x);
	x->wr_id = 9; x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, mr->rkey, (uintptr_t)buf + 1024);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 8);
	ibv_wr_complete(x);
	usleep(200000);
	return ibv_poll_cq(cq, 1, NULL);
}
static int bad_poll_neg(void)
{
	struct ibv_wc wc;
	return ibv_poll_cq(cq, -5, &wc);
}
static int bad_bad_wr_null(void)
{
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
	return ibv_post_send(qa, &w, NULL);
}
static int bad_atomic_unaligned(void)
{
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD }, *bad = NULL;
	w.wr.atomic.remote_addr = (uintptr_t)buf + 1028; w.wr.atomic.rkey = mr->rkey; w.wr.atomic.compare_add = 1;
	return ibv_post_send(qa, &w, &bad);
}
static int bad_cq_ex_flags(void)
{
	struct ibv_cq_init_attr_ex a = { .cqe = 16, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
	struct ibv_cq_ex *c = ibv_create_cq_ex(ctx, &a);
	return c ? 0 : -1;
}
static int bad_ud_rdma_write(void)
{
	struct ibv_sge s = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE }, *bad = NULL;
	w.wr.rdma.remote_addr = (uintptr_t)buf; w.wr.rdma.rkey = mr->rkey;
	return ibv_post_send(ua, &w, &bad);
}

static int verbose;

static struct ibv_cq_ex *cqx;

static void setup(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	if (!l || !l[0]) die("devices");
	ctx = ibv_open_device(l[0]);
	if (!ctx) die("open");
	struct ibv_device_attr_ex dx;
	if (ibv_query_device_ex(ctx, NULL, &dx)) die("query_device_ex");
	if (verbose) printf("device: fw_ver=%s max_qp_wr=%d max_sge=%d max_cqe=%d max_srq=%d max_mw=%d\n", dx.orig_attr.fw_ver,
	       dx.orig_attr.max_qp_wr, dx.orig_attr.max_sge, dx.orig_attr.max_cqe, dx.orig_attr.max_srq, dx.orig_attr.max_mw);
	struct ibv_port_attr pa;
	if (ibv_query_port(ctx, 1, &pa)) die("query_port");
	if (verbose) printf("port: state=%d mtu=%d gids=%d link=%d\n", pa.state, pa.active_mtu, pa.gid_tbl_len, pa.link_layer);
	if (ibv_query_gid(ctx, 1, 1, &gid)) die("gid");
	pd = ibv_alloc_pd(ctx);
	if (!pd) die("pd");
	buf = aligned_alloc(4096, BUFSZ);
	memset(buf, 0, BUFSZ);
	mr = ibv_reg_mr(pd, buf, BUFSZ, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	if (!mr) die("mr");
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS };
	cqx = ibv_create_cq_ex(ctx, &ca);
	if (!cqx) die("cq_ex");
	cq = ibv_cq_ex_to_cq(cqx);
	qa = mk_qp(cq, IBV_QPT_RC, NULL, 1);
	qb = mk_qp(cq, IBV_QPT_RC, NULL, 1);
	rc_connect(qa, qb->qp_num);
	rc_connect(qb, qa->qp_num);
	ua = mk_qp(cq, IBV_QPT_UD, NULL, 1);
	ub = mk_qp(cq, IBV_QPT_UD, NULL, 1);
	ud_ready(ua);
	ud_ready(ub);
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	aa.grh.dgid = gid; aa.grh.sgid_index = 1; aa.grh.hop_limit = 1;
	ah = ibv_create_ah(pd, &aa);
	if (!ah) die("ah");
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 2 } };
	srq = ibv_create_srq(pd, &sa);
	if (!srq) die("srq");

}

static void good(void)
{
	{
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qa);
		/* RDMA write with immediate, read, atomics through ibv_wr_*. */
		recv1(qb, 102, 0, 0);
		strcpy(buf + 100, "written");
		ibv_wr_start(x);
		x->wr_id = 3; x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write_imm(x, mr->rkey, (uintptr_t)buf + 4096, htonl(7));
		ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf + 100, 8);
		x->wr_id = 4;
		ibv_wr_rdma_read(x, mr->rkey, (uintptr_t)buf + 4096);
		ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf + 8192, 8);
		*(uint64_t *)(buf + 12288) = 40;
		x->wr_id = 5;
		ibv_wr_atomic_fetch_add(x, mr->rkey, (uintptr_t)buf + 12288, 2);
		ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf + 12296, 8);
		x->wr_id = 6;
		ibv_wr_atomic_cmp_swp(x, mr->rkey, (uintptr_t)buf + 12288, 42, 99);
		ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf + 12304, 8);
		printf("wr_complete: %d\n", ibv_wr_complete(x));
		drain(cq, 5, "rdma");
		printf("read back=%s fetched=%llu swapped_old=%llu now=%llu\n", buf + 8192,
		       (unsigned long long)*(uint64_t *)(buf + 12296), (unsigned long long)*(uint64_t *)(buf + 12304),
		       (unsigned long long)*(uint64_t *)(buf + 12288));

		/* Legacy post_send chain of three, one signaled. */
		struct ibv_sge s1 = { (uintptr_t)buf, 16, mr->lkey };
		struct ibv_send_wr w[3], *bad;
		memset(w, 0, sizeof w);
		for (int i = 0; i < 3; i++) {
			w[i].wr_id = 10 + i; w[i].sg_list = &s1; w[i].num_sge = 1; w[i].opcode = IBV_WR_RDMA_WRITE;
			w[i].wr.rdma.remote_addr = (uintptr_t)buf + 16384 + 16 * i; w[i].wr.rdma.rkey = mr->rkey;
			w[i].next = i < 2 ? &w[i + 1] : NULL;
		}
		w[2].send_flags = IBV_SEND_SIGNALED;
		printf("post_send chain: %d\n", ibv_post_send(qa, w, &bad));
		drain(cq, 1, "chain");
		printf("chain data=%s\n", buf + 16384 + 32);

		/* UD: post_send with an AH, and ibv_wr_set_ud_addr. */
		struct ibv_sge us = { (uintptr_t)buf + 20000, 64 + 40, mr->lkey };
		struct ibv_recv_wr ur = { .wr_id = 200, .sg_list = &us, .num_sge = 1 }, *rbad;
		ibv_post_recv(ub, &ur, &rbad);
		us.addr += 200;
		ur.wr_id = 201;
		ibv_post_recv(ub, &ur, &rbad);
		struct ibv_sge s2 = { (uintptr_t)buf, 32, mr->lkey };
		struct ibv_send_wr uw = { .wr_id = 20, .sg_list = &s2, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
					  .send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(0x55) };
		uw.wr.ud.ah = ah; uw.wr.ud.remote_qpn = ub->qp_num; uw.wr.ud.remote_qkey = 0x11111111;
		printf("ud post_send: %d\n", ibv_post_send(ua, &uw, &bad));
		struct ibv_qp_ex *ux = ibv_qp_to_qp_ex(ua);
		ibv_wr_start(ux);
		ux->wr_id = 21; ux->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(ux);
		ibv_wr_set_ud_addr(ux, ah, ub->qp_num, 0x11111111);
		ibv_wr_set_sge(ux, mr->lkey, (uintptr_t)buf, 16);
		printf("ud wr_complete: %d\n", ibv_wr_complete(ux));
		drain(cq, 4, "ud");

		/* SRQ: resize, query, post, receive through a QP on it. */
		struct ibv_srq_attr sq = { .max_wr = 32 };
		printf("modify_srq: %d\n", ibv_modify_srq(srq, &sq, IBV_SRQ_MAX_WR));
		memset(&sq, 0, sizeof sq);
		int rq = ibv_query_srq(srq, &sq);
		printf("query_srq: %d max_wr>=32: %d max_sge=%u\n", rq, sq.max_wr >= 32, sq.max_sge);
		struct ibv_qp *qc = mk_qp(cq, IBV_QPT_RC, srq, 0), *qd = mk_qp(cq, IBV_QPT_RC, NULL, 0);
		rc_connect(qc, qd->qp_num);
		rc_connect(qd, qc->qp_num);
		struct ibv_sge rs = { (uintptr_t)buf + 30000, 64, mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 300, .sg_list = &rs, .num_sge = 1 };
		printf("post_srq_recv: %d\n", ibv_post_srq_recv(srq, &rw, &rbad));
		struct ibv_send_wr sw = { .wr_id = 30, .sg_list = &s1, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
		printf("post_send to srq: %d\n", ibv_post_send(qd, &sw, &bad));
		drain(cq, 2, "srq");
		printf("post_recv on srq qp: %d\n", ibv_post_recv(qc, &rw, &rbad));

		/* Memory window type 1 bound with ibv_bind_mw. */
		struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		printf("alloc_mw: %s\n", mw ? "ok" : strerror(errno));
		if (mw) {
			uint32_t k0 = mw->rkey;
			struct ibv_mw_bind mb = { .wr_id = 40, .send_flags = IBV_SEND_SIGNALED,
				.bind_info = { .mr = mr, .addr = (uintptr_t)buf, .length = 4096, .mw_access_flags = IBV_ACCESS_REMOTE_WRITE } };
			int r2 = ibv_bind_mw(qa, mw, &mb);
			printf("bind_mw: %d rkey+1: %d\n", r2, mw->rkey == ((k0 & ~0xffu) | ((k0 + 1) & 0xff)));
			drain(cq, 1, "bind");
			mb.bind_info.mw_access_flags = IBV_ACCESS_ZERO_BASED;
			errno = 0;
			printf("bind_mw zero-based: %d errno=%d\n", ibv_bind_mw(qa, mw, &mb), errno);
			printf("dealloc_mw: %d\n", ibv_dealloc_mw(mw));
		}
		/* Resize the CQ, then use it. */
		int rr = ibv_resize_cq(cq, 128);
		printf("resize_cq: %d cqe>=128: %d\n", rr, cq->cqe >= 128);
		printf("post_send after resize: %d\n", ibv_post_send(qa, &w[2], &bad));
		drain(cq, 1, "resized");
		/* Notification request and a plain CQ. */
		struct ibv_cq *pc = ibv_create_cq(ctx, 8, NULL, NULL, 0);
		if (pc) {
			int rn = ibv_req_notify_cq(pc, 0);
			printf("create_cq: ok req_notify: %d", rn);
			printf(" destroy: %d\n", ibv_destroy_cq(pc));
		}
		struct ibv_qp_attr qat; struct ibv_qp_init_attr qia;
		int rqq = ibv_query_qp(qa, &qat, IBV_QP_STATE, &qia);
		printf("query_qp: %d state=%d\n", rqq, qat.qp_state);
		printf("destroy qc/qd: %d %d\n", ibv_destroy_qp(qc), ibv_destroy_qp(qd));
		/* QP in RESET takes no receives. */
		struct ibv_qp *qr = mk_qp(cq, IBV_QPT_RC, NULL, 0);
		printf("post_recv in RESET: %d\n", ibv_post_recv(qr, &rw, &rbad));
		ibv_destroy_qp(qr);
		/* rdma-core 65's ops a 44 provider lacks. */
		struct ibv_qp_init_attr_ex fa = { .send_cq = cq, .recv_cq = cq, .cap = { 4, 4, 1, 1, 0 }, .qp_type = IBV_QPT_RC,
			.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, .pd = pd, .send_ops_flags = 1 << 14 /* FLUSH */ };
		errno = 0;
		struct ibv_qp *fq = ibv_create_qp_ex(ctx, &fa);
		printf("create_qp_ex with FLUSH: %s errno=%d\n", fq ? "ok" : "fail", errno);
		if (fq) ibv_destroy_qp(fq);
		/* ibv_wr_* sends (inline, SGE list) received on qb, polled with the cq_ex
		 * interface; then one ibv_poll_cq on the empty CQ. Last: rdma-core 44's
		 * next_poll moves the consumer index past the producer. */
		recv1(qb, 100, 2048, 256);
		recv1(qb, 101, 2304, 256);
		strcpy(buf, "hello rxe");
		ibv_wr_start(x);
		x->wr_id = 1; x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ibv_wr_send_imm(x, htonl(0xabcd));
		ibv_wr_set_inline_data(x, buf, 10);
		x->wr_id = 2; x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(x);
		struct ibv_sge sl[2] = {{ (uintptr_t)buf, 6, mr->lkey }, { (uintptr_t)buf + 6, 4, mr->lkey }};
		ibv_wr_set_sge_list(x, 2, sl);
		printf("wr_complete: %d\n", ibv_wr_complete(x));
		usleep(300000);
		struct ibv_poll_cq_attr pa2 = {0};
		int n = 0, r = ibv_start_poll(cqx, &pa2);
		while (r == 0) {
			printf("cq_ex: id=%llu status=%d opcode=%d", (unsigned long long)cqx->wr_id, cqx->status, ibv_wc_read_opcode(cqx));
			if (ibv_wc_read_opcode(cqx) & IBV_WC_RECV)
				printf(" len=%u qp=%s flags=%x imm=%x", ibv_wc_read_byte_len(cqx),
				       ibv_wc_read_qp_num(cqx) == qb->qp_num ? "qb" : "?", ibv_wc_read_wc_flags(cqx) & ~IBV_WC_GRH,
				       ibv_wc_read_wc_flags(cqx) & IBV_WC_WITH_IMM ? ntohl(ibv_wc_read_imm_data(cqx)) : 0);
			printf("\n");
			n++;
			r = ibv_next_poll(cqx);
		}
		if (n) ibv_end_poll(cqx);
		printf("cq_ex polled %d, last=%d; data=%s|%s\n", n, r, buf + 2048, buf + 2304);

		struct ibv_wc ew;
		int en = ibv_poll_cq(cq, 1, &ew);
		printf("poll_cq after cq_ex: %d%s\n", en, en > 0 ? " (an entry the kernel never wrote)" : "");
	}

}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "good")) {
		verbose = 1;
		setup();
		good();
	} else {
		sandbox("post_send num_sge > max_sge", bad_num_sge);
		sandbox("post_send NULL sg_list", bad_null_sgl);
		sandbox("post_send num_sge < 0", bad_neg_sge);
		sandbox("post_send looping chain", bad_loop_send);
		sandbox("post_send bad_wr NULL", bad_bad_wr_null);
		sandbox("post_send inline > max_inline", bad_inline_send_long);
		sandbox("post_send unaligned atomic", bad_atomic_unaligned);
		sandbox("post_send UD without AH", bad_ud_null_ah);
		sandbox("post_send RDMA WRITE on UD", bad_ud_rdma_write);
		sandbox("post_send destroyed QP", bad_send_destroyed);
		sandbox("post_recv destroyed QP", bad_recv_destroyed);
		sandbox("post_srq_recv destroyed SRQ", bad_srq_destroyed);
		sandbox("ibv_wr_* on a destroyed QP", bad_wr_destroyed);
		sandbox("post_recv num_sge > max_sge", bad_recv_num_sge);
		sandbox("post_recv NULL sg_list", bad_recv_null_sgl);
		sandbox("post_recv looping chain", bad_loop_recv);
		sandbox("post_srq_recv error, bad_wr NULL", bad_srq_null_bad);
		sandbox("post_srq_recv looping chain", bad_srq_loop);
		sandbox("poll_cq destroyed CQ", bad_poll_destroyed);
		sandbox("poll_cq wc NULL", bad_poll_null_wc);
		sandbox("poll_cq ne < 0", bad_poll_neg);
		sandbox("wr_set_sge before a builder", bad_setter_first);
		sandbox("wr_complete without wr_start", bad_complete_unstarted);
		sandbox("wr_set_sge_list num_sge > max_sge", bad_sge_list_long);
		sandbox("wr_set_inline_data > max_inline", bad_inline_long);
		sandbox("wr_* past a full queue", bad_wr_overflow);
		sandbox("create_cq_ex unsupported wc_flags", bad_cq_ex_flags);
	}
	printf("done\n");
	return 0;
}
