/*
 * prov-callgrind DEVICE N: the data-path calls of one provider, for
 * callgrind (abi-tests/bench/prov-callgrind.sh runs it in the VM). Opens
 * DEVICE (rxe0), connects an RC QP to itself, and runs each phase below in
 * its own measured region: callgrind collects nothing outside them
 * (--collect-atstart=no and CALLGRIND_TOGGLE_COLLECT around each) and
 * writes one dump per phase (CALLGRIND_DUMP_STATS_AT with the phase's name),
 * so each dump holds exactly the instructions of that phase's N calls.
 *
 *   post_recv       N x ibv_post_recv, one receive of 64 bytes each
 *   post_send       N x ibv_post_send, one signalled 64-byte SEND each
 *                   (each ends with the provider's doorbell)
 *   poll_cq         2N x ibv_poll_cq(cq, 1, &wc), each returning one
 *                   completion (the sends' and the receives')
 *   poll_cq_empty   N x ibv_poll_cq on the empty CQ
 *   wr_send         N x (ibv_wr_start, ibv_wr_send, ibv_wr_set_sge,
 *                   ibv_wr_complete) on an extended QP: one SEND each
 *   cq_ex_poll      2N completions of an extended CQ, read in one
 *                   ibv_start_poll / ibv_next_poll ... / ibv_end_poll pass
 *                   (wr_id, status, opcode and byte_len of each)
 *
 * Between the phases (not measured) it waits for the device to complete
 * what was posted. Prints "phase NAME ops K empty E" per phase (E: polls in
 * the phase that found nothing, which should be 0 but for poll_cq_empty)
 * and "provider PATH", the object ctx->ops.post_send is in. Exits 1 on any
 * failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <valgrind/callgrind.h>

#define MSG 64

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static char *buf;
static union ibv_gid gid;
static int n;

static void die(const char *what, int err)
{
	fprintf(stderr, "prov-callgrind: %s: %s\n", what, strerror(err));
	exit(1);
}

static void to_rts(struct ibv_qp *q)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS);
	if (ret)
		die("modify_qp INIT", ret);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = q->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	ret = ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		die("modify_qp RTR", ret);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ret = ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		die("modify_qp RTS", ret);
}

static struct ibv_qp *make_qp(struct ibv_cq *cq, int ex)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .pd = pd,
		.cap = { .max_send_wr = n, .max_recv_wr = n, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	struct ibv_qp *q;

	if (ex) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	}
	q = ibv_create_qp_ex(ctx, &a);
	if (!q)
		die("create_qp", errno);
	to_rts(q);
	return q;
}

/* The device works on its own: give it time to complete what was posted
 * (the instructions of the polls that follow do not depend on it, but
 * polls that find nothing would add theirs). */
static void settle(void)
{
	struct timespec ts = { 1, 0 };

	nanosleep(&ts, NULL);
}

static void report(const char *phase, long ops, long empty)
{
	printf("phase %s ops %ld empty %ld\n", phase, ops, empty);
}

/* Posts n receives (not measured) for the sends of the next phase. */
static void post_recvs(struct ibv_qp *q)
{
	for (int i = 0; i < n; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf + MSG, .length = MSG,
				       .lkey = mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;
		int ret = ibv_post_recv(q, &wr, &bad);

		if (ret)
			die("post_recv", ret);
	}
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp, *qpx_qp;
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc;
	Dl_info info;
	char real[PATH_MAX];
	long got, empty, i;
	int num, ret;

	if (argc != 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: prov-callgrind DEVICE N\n");
		return 2;
	}
	list = ibv_get_device_list(&num);
	for (i = 0; list && i < num; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("open device", errno ? errno : ENODEV);
	if (dladdr((void *)ctx->ops.post_send, &info) && info.dli_fname &&
	    realpath(info.dli_fname, real))
		printf("provider %s\n", real);
	ret = ibv_query_gid(ctx, 1, 1, &gid);
	if (ret)
		die("query_gid", errno);
	buf = calloc(1, 2 * MSG);
	pd = buf ? ibv_alloc_pd(ctx) : NULL;
	mr = pd ? ibv_reg_mr(pd, buf, 2 * MSG, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	cq = mr ? ibv_create_cq(ctx, 2 * n + 1, NULL, NULL, 0) : NULL;
	if (!cq)
		die("PD, MR or CQ", errno);
	qp = make_qp(cq, 0);

	/* post_recv */
	{
		struct ibv_sge sge = { .addr = (uintptr_t)buf + MSG, .length = MSG,
				       .lkey = mr->lkey };
		struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

		CALLGRIND_TOGGLE_COLLECT;
		for (i = 0; i < n; i++) {
			wr.wr_id = i;
			ret = ibv_post_recv(qp, &wr, &bad);
			if (ret)
				break;
		}
		CALLGRIND_TOGGLE_COLLECT;
		CALLGRIND_DUMP_STATS_AT("post_recv");
		if (ret)
			die("post_recv", ret);
		report("post_recv", n, 0);
	}

	/* post_send */
	{
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = MSG, .lkey = mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		CALLGRIND_TOGGLE_COLLECT;
		for (i = 0; i < n; i++) {
			wr.wr_id = i;
			ret = ibv_post_send(qp, &wr, &bad);
			if (ret)
				break;
		}
		CALLGRIND_TOGGLE_COLLECT;
		CALLGRIND_DUMP_STATS_AT("post_send");
		if (ret)
			die("post_send", ret);
		report("post_send", n, 0);
	}
	settle();

	/* poll_cq: 2n completions, one per call */
	got = empty = 0;
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; got < 2 * n && i < 1000L * n; i++) {
		ret = ibv_poll_cq(cq, 1, &wc);
		if (ret < 0 || (ret == 1 && wc.status != IBV_WC_SUCCESS))
			break;
		if (ret)
			got++;
		else
			empty++;
	}
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("poll_cq");
	if (got < 2 * n)
		die("poll_cq", ret < 0 ? EIO : ret ? EPROTO : ETIMEDOUT);
	report("poll_cq", got, empty);

	/* poll_cq_empty */
	empty = 0;
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < n; i++)
		if (ibv_poll_cq(cq, 1, &wc) == 0)
			empty++;
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("poll_cq_empty");
	report("poll_cq_empty", n, empty);

	/* wr_send, on an extended QP whose CQ is an extended one */
	{
		struct ibv_cq_init_attr_ex a = {
			.cqe = 2 * n + 1,
			.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
		};

		cqx = ibv_create_cq_ex(ctx, &a);
		if (!cqx)
			die("create_cq_ex", errno);
	}
	qpx_qp = make_qp(ibv_cq_ex_to_cq(cqx), 1);
	qpx = ibv_qp_to_qp_ex(qpx_qp);
	if (!qpx)
		die("qp_to_qp_ex", EINVAL);
	post_recvs(qpx_qp);
	CALLGRIND_TOGGLE_COLLECT;
	for (i = 0; i < n; i++) {
		ibv_wr_start(qpx);
		qpx->wr_id = i;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, MSG);
		ret = ibv_wr_complete(qpx);
		if (ret)
			break;
	}
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("wr_send");
	if (ret)
		die("wr_complete", ret);
	report("wr_send", n, 0);
	settle();

	/* cq_ex_poll: one pass over all 2n completions */
	{
		struct ibv_poll_cq_attr pa = { 0 };
		uint64_t sum = 0;

		got = empty = 0;
		CALLGRIND_TOGGLE_COLLECT;
		for (i = 0; got < 2 * n && i < 1000L * n; i++) {
			ret = ibv_start_poll(cqx, &pa);
			if (ret == ENOENT) {
				empty++;
				continue;
			}
			if (ret)
				break;
			do {
				if (cqx->status != IBV_WC_SUCCESS) {
					ret = EPROTO;
					break;
				}
				sum += cqx->wr_id + ibv_wc_read_opcode(cqx) +
				       ibv_wc_read_byte_len(cqx);
				got++;
			} while ((ret = ibv_next_poll(cqx)) == 0);
			ibv_end_poll(cqx);
			if (ret != ENOENT)
				break;
		}
		CALLGRIND_TOGGLE_COLLECT;
		CALLGRIND_DUMP_STATS_AT("cq_ex_poll");
		if (got < 2 * n)
			die("cq_ex polling", ret ? ret : ETIMEDOUT);
		report("cq_ex_poll", got, empty);
		if (sum == 1)
			printf("(%lu)\n", (unsigned long)sum);
	}

	ibv_destroy_qp(qpx_qp);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
