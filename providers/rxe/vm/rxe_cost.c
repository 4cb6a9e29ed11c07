/* Instructions per data-path call of the rxe provider, for callgrind:
 * each measured call sits in a noinline function named m_*, so
 *   valgrind --tool=callgrind --toggle-collect='m_*' rxe_cost N
 * counts what verbs.h's inline wrapper and the provider execute for it
 * (callgrind_annotate --inclusive=yes; divide by the calls the program
 * prints). A loopback RC QP pair on rxe0 (GID index 1); every iteration
 * posts one receive and one signaled 64-byte send (alternately with
 * ibv_post_send and the ibv_wr_* interface), waits until both completions
 * are in the CQ, and polls them with one call (alternately ibv_poll_cq and
 * the cq_ex interface, which never calls next_poll on an empty CQ:
 * rdma-core 44's provider then moves the consumer index past the
 * producer); then one poll_cq and one start_poll on the empty CQ. */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static char *buf;
static union ibv_gid gid;
static struct ibv_cq *cq;
static struct ibv_cq_ex *cqx;
static struct ibv_qp *qa, *qb;

static void die(const char *w) { printf("FATAL %s: %s\n", w, strerror(errno)); exit(1); }

static struct ibv_qp *mk_qp(void)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC, .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, .pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);
	if (!qp) die("create_qp_ex");
	return qp;
}

static void rc_connect(struct ibv_qp *q, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE };
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) die("init");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR; a.path_mtu = IBV_MTU_1024; a.dest_qp_num = dqpn; a.rq_psn = 1;
	a.max_dest_rd_atomic = 1; a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1; a.ah_attr.grh.dgid = gid; a.ah_attr.grh.sgid_index = 1; a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) die("rtr");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS; a.timeout = 14; a.retry_cnt = 7; a.rnr_retry = 7; a.sq_psn = 1; a.max_rd_atomic = 1;
	if (ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC)) die("rts");
}

__attribute__((noinline)) int m_post_recv(struct ibv_qp *q, struct ibv_recv_wr *w)
{
	struct ibv_recv_wr *bad;
	return ibv_post_recv(q, w, &bad);
}
__attribute__((noinline)) int m_post_send(struct ibv_qp *q, struct ibv_send_wr *w)
{
	struct ibv_send_wr *bad;
	return ibv_post_send(q, w, &bad);
}
__attribute__((noinline)) int m_poll_cq(struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, 4, wc);
}
__attribute__((noinline)) int m_poll_cq_empty(struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, 4, wc);
}
__attribute__((noinline)) int m_wr_send(struct ibv_qp_ex *x, uint64_t id)
{
	ibv_wr_start(x);
	x->wr_id = id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 64);
	return ibv_wr_complete(x);
}
__attribute__((noinline)) int m_start_poll_empty(void)
{
	struct ibv_poll_cq_attr pa = {0};
	int r = ibv_start_poll(cqx, &pa);
	if (!r)
		ibv_end_poll(cqx);
	return r;
}

/* Two entries through the extended interface: start, next, end (no
 * next_poll on an empty CQ, which rdma-core 44's provider mishandles). */
__attribute__((noinline)) int m_cq_ex_poll2(void)
{
	struct ibv_poll_cq_attr pa = {0};
	if (ibv_start_poll(cqx, &pa))
		return 0;
	(void)ibv_wc_read_opcode(cqx);
	(void)ibv_wc_read_byte_len(cqx);
	int n = 1;
	if (!ibv_next_poll(cqx)) {
		(void)ibv_wc_read_opcode(cqx);
		(void)ibv_wc_read_byte_len(cqx);
		n++;
	}
	ibv_end_poll(cqx);
	return n;
}

/* Gives the kernel time to complete both requests. */
static void settle(void)
{
	usleep(5000);
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 1000;
	struct ibv_device **l = ibv_get_device_list(NULL);
	if (!l || !l[0]) die("devices");
	ctx = ibv_open_device(l[0]);
	if (!ctx) die("open");
	if (ibv_query_gid(ctx, 1, 1, &gid)) die("gid");
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, 65536);
	memset(buf, 0, 65536);
	mr = ibv_reg_mr(pd, buf, 65536, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!pd || !mr) die("pd/mr");
	struct ibv_cq_init_attr_ex ca = { .cqe = 256, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN };
	cqx = ibv_create_cq_ex(ctx, &ca);
	if (!cqx) die("cq");
	cq = ibv_cq_ex_to_cq(cqx);
	qa = mk_qp();
	qb = mk_qp();
	rc_connect(qa, qb->qp_num);
	rc_connect(qb, qa->qp_num);
	struct ibv_sge rs = { (uintptr_t)buf + 4096, 64, mr->lkey }, ss = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_recv_wr rw = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 };
	struct ibv_send_wr sw = { .wr_id = 2, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc[4];
	long got = 0, empty = 0, npoll = 0, nex = 0, gotpoll = 0, gotex = 0;
	for (int i = 0; i < iters; i++) {
		if (m_post_recv(qb, &rw)) die("post_recv");
		if (i % 2 == 0) {
			if (m_post_send(qa, &sw)) die("post_send");
		} else {
			if (m_wr_send(ibv_qp_to_qp_ex(qa), 3)) die("wr_send");
		}
		int n = 0;
		for (int t = 0; t < 1000 && n < 2; t++) {
			settle();
			if (i % 4 < 2) {
				int k = m_poll_cq(wc);
				npoll++;
				if (k < 0) die("poll");
				gotpoll += k;
				for (int j = 0; j < k; j++) if (wc[j].status) die("wc status");
				n += k;
			} else {
				int k = m_cq_ex_poll2();
				nex++;
				gotex += k;
				n += k;
			}
		}
		if (n != 2) die("completions");
		got += n;
		if (m_poll_cq_empty(wc) != 0) die("not empty");
		if (m_start_poll_empty() != ENOENT) die("start_poll not empty");
		empty++;
	}
	printf("calls: m_post_recv %d m_post_send %d m_wr_send %d m_poll_cq %ld (entries %ld) m_cq_ex_poll2 %ld (entries %ld) m_poll_cq_empty %ld m_start_poll_empty %ld\n",
	       iters, (iters + 1) / 2, iters / 2, npoll, gotpoll, nex, gotex, empty, empty);
	return 0;
}
