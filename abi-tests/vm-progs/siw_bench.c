/* siw_bench OP N: N calls of one data-path op on siw0, without a peer, for
 * instruction counting (run it under callgrind with two values of N; the
 * difference divided by the difference of N is the cost of one call).
 *   send         ibv_post_send of one SEND (1 SGE, signalled): the QP stays
 *                in RESET, so the kernel never takes an SQE and only the
 *                first post rings the doorbell
 *   send_inline  the same with 64 bytes inline
 *   recv         ibv_post_recv of one receive (1 SGE)
 *   poll_empty   ibv_poll_cq(cq, 1, wc) on an empty CQ
 *   poll_one     N flushed receive completions, polled one by one (the
 *                count includes posting the N receives)
 *   notify       ibv_req_notify_cq(cq, 0)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

static char buf[4096];

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *op = argv[1];
	int n = atoi(argv[2]);
	struct ibv_context *ctx = NULL;
	struct ibv_device **l = ibv_get_device_list(NULL);
	for (int i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), "siw0"))
			ctx = ibv_open_device(l[i]);
	if (!ctx)
		return 3;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 8192, NULL, NULL, 0);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4096, .max_recv_wr = 4096, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 64 } };
	struct ibv_qp *qp = ibv_create_qp(pd, &a);
	if (!pd || !cq || !mr || !qp)
		return 4;
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_wc wc;
	long sum = 0;
	if (!strcmp(op, "send") || !strcmp(op, "send_inline")) {
		if (op[4])
			swr.send_flags |= IBV_SEND_INLINE;
		for (int i = 0; i < n; i++)
			sum += ibv_post_send(qp, &swr, &sbad);
	} else if (!strcmp(op, "recv")) {
		for (int i = 0; i < n; i++)
			sum += ibv_post_recv(qp, &rwr, &rbad);
	} else if (!strcmp(op, "poll_empty")) {
		for (int i = 0; i < n; i++)
			sum += ibv_poll_cq(cq, 1, &wc);
	} else if (!strcmp(op, "poll_one")) {
		for (int i = 0; i < n; i++)
			sum += ibv_post_recv(qp, &rwr, &rbad);
		struct ibv_qp_attr at = { .qp_state = IBV_QPS_ERR };
		ibv_modify_qp(qp, &at, IBV_QP_STATE);
		int got = 0;
		for (int tries = 0; got < n && tries < 1000000; tries++)
			got += ibv_poll_cq(cq, 1, &wc);
		sum = got;
	} else if (!strcmp(op, "notify")) {
		for (int i = 0; i < n; i++)
			sum += ibv_req_notify_cq(cq, 0);
	} else {
		return 2;
	}
	printf("%s %d: sum %ld\n", op, n, sum);
	return 0;
}
