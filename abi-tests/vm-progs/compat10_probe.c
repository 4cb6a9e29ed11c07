/*
 * Drives a loopback RC exchange on the first device entirely through the
 * IBVERBS_1.0 interface: the 1.0 device list, context, PD, MR, CQ and QPs,
 * the 1.0 modify/query verbs, and the 1.0 context's data-path ops. Prints each
 * step's result (no addresses, keys or QP numbers, which differ per run), so
 * a run with Debian's libibverbs and one with ours compare line by line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

/* The 1.0 structures as binaries of that age saw them. */
struct c10_ctx;
struct c10_dev;
struct c10_pd { struct c10_ctx *context; uint32_t handle; void *real_pd; };
struct c10_mr { struct c10_ctx *context; struct c10_pd *pd; uint32_t handle, lkey, rkey; void *real_mr; };
struct c10_cq {
	struct c10_ctx *context; void *cq_context; uint32_t handle; int cqe;
	pthread_mutex_t mutex; pthread_cond_t cond;
	uint32_t comp_events_completed, async_events_completed; void *real_cq;
};
struct c10_srq;
struct c10_qp {
	struct c10_ctx *context; void *qp_context; struct c10_pd *pd;
	struct c10_cq *send_cq, *recv_cq; struct c10_srq *srq;
	uint32_t handle, qp_num; enum ibv_qp_state state; enum ibv_qp_type qp_type;
	pthread_mutex_t mutex; pthread_cond_t cond; uint32_t events_completed; void *real_qp;
};
struct c10_qp_init_attr {
	void *qp_context; struct c10_cq *send_cq, *recv_cq; struct c10_srq *srq;
	struct ibv_qp_cap cap; enum ibv_qp_type qp_type; int sq_sig_all;
};
struct c10_recv_wr { struct c10_recv_wr *next; uint64_t wr_id; struct ibv_sge *sg_list; int num_sge; };
struct c10_send_wr {
	struct c10_send_wr *next; uint64_t wr_id; struct ibv_sge *sg_list; int num_sge;
	enum ibv_wr_opcode opcode; int send_flags; uint32_t imm_data;
	union { uint64_t raw[4]; } wr;
};
typedef void (*fp)(void);
struct c10_ops {
	fp query_device, query_port, alloc_pd, dealloc_pd, reg_mr, dereg_mr, create_cq;
	int (*poll_cq)(struct c10_cq *, int, struct ibv_wc *);
	int (*req_notify_cq)(struct c10_cq *, int);
	fp cq_event, resize_cq, destroy_cq, create_srq, modify_srq, query_srq, destroy_srq;
	fp post_srq_recv;
	fp create_qp, query_qp, modify_qp, destroy_qp;
	int (*post_send)(struct c10_qp *, struct c10_send_wr *, struct c10_send_wr **);
	int (*post_recv)(struct c10_qp *, struct c10_recv_wr *, struct c10_recv_wr **);
	fp create_ah, destroy_ah, attach_mcast, detach_mcast;
};
struct c10_ctx { struct c10_dev *device; struct c10_ops ops; int cmd_fd, async_fd, num_comp_vectors; void *real_context; };

#define V10(ret, name, local, args) \
	ret local args __asm__(#local "_v10probe"); \
	__asm__(".symver " #local "_v10probe, " #name "@IBVERBS_1.0");
V10(struct c10_dev **, ibv_get_device_list, get_list, (int *))
V10(void, ibv_free_device_list, free_list, (struct c10_dev **))
V10(const char *, ibv_get_device_name, dev_name, (struct c10_dev *))
V10(struct c10_ctx *, ibv_open_device, open_dev, (struct c10_dev *))
V10(int, ibv_close_device, close_dev, (struct c10_ctx *))
V10(int, ibv_query_device, query_dev, (struct c10_ctx *, struct ibv_device_attr *))
V10(int, ibv_query_port, query_port10, (struct c10_ctx *, uint8_t, struct ibv_port_attr *))
V10(int, ibv_query_gid, query_gid10, (struct c10_ctx *, uint8_t, int, union ibv_gid *))
V10(int, ibv_query_pkey, query_pkey10, (struct c10_ctx *, uint8_t, int, uint16_t *))
V10(struct c10_pd *, ibv_alloc_pd, alloc_pd10, (struct c10_ctx *))
V10(int, ibv_dealloc_pd, dealloc_pd10, (struct c10_pd *))
V10(struct c10_mr *, ibv_reg_mr, reg_mr10, (struct c10_pd *, void *, size_t, int))
V10(int, ibv_dereg_mr, dereg_mr10, (struct c10_mr *))
V10(struct c10_cq *, ibv_create_cq, create_cq10, (struct c10_ctx *, int, void *, struct ibv_comp_channel *, int))
V10(int, ibv_destroy_cq, destroy_cq10, (struct c10_cq *))
V10(struct c10_qp *, ibv_create_qp, create_qp10, (struct c10_pd *, struct c10_qp_init_attr *))
V10(int, ibv_modify_qp, modify_qp10, (struct c10_qp *, struct ibv_qp_attr *, int))
V10(int, ibv_query_qp, query_qp10, (struct c10_qp *, struct ibv_qp_attr *, int, struct c10_qp_init_attr *))
V10(int, ibv_destroy_qp, destroy_qp10, (struct c10_qp *))

static int to_rts(struct c10_qp *qp, uint32_t dqpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	ret = modify_qp10(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	printf("modify_qp INIT = %d\n", ret);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	ret = modify_qp10(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	printf("modify_qp RTR = %d\n", ret);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	ret = modify_qp10(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	printf("modify_qp RTS = %d\n", ret);
	return ret;
}

static int poll_one(struct c10_ctx *ctx, struct c10_cq *cq, struct ibv_wc *wc)
{
	int i, n;

	for (i = 0; i < 2000000; i++) {
		n = ctx->ops.poll_cq(cq, 1, wc);
		if (n)
			return n;
	}
	return 0;
}

int main(void)
{
	struct c10_dev **list;
	struct c10_ctx *ctx;
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct c10_qp_init_attr init;
	union ibv_gid gid;
	uint16_t pkey;
	struct c10_pd *pd;
	struct c10_mr *mr;
	struct c10_cq *cq;
	struct c10_qp *qa, *qb;
	static char buf[2][64];
	struct ibv_sge ssge, rsge;
	struct c10_send_wr swr, *sbad = NULL;
	struct c10_recv_wr rwr, *rbad = NULL;
	struct ibv_wc wc;
	int n, ret;

	list = get_list(&n);
	printf("get_device_list@1.0: %s n=%d\n", list ? "ok" : "NULL", list ? n : 0);
	if (!list || n < 1)
		return 1;
	printf("device: %s\n", dev_name(list[0]));
	ctx = open_dev(list[0]);
	printf("open_device@1.0: %s\n", ctx ? "ok" : "NULL");
	if (!ctx)
		return 1;
	ret = query_dev(ctx, &dattr);
	printf("query_device = %d phys_port_cnt=%d\n", ret, dattr.phys_port_cnt);
	ret = query_port10(ctx, 1, &pattr);
	printf("query_port = %d state=%d link_layer=%d\n", ret, pattr.state, pattr.link_layer);
	ret = query_gid10(ctx, 1, 1, &gid);
	printf("query_gid(1,1) = %d\n", ret);
	ret = query_pkey10(ctx, 1, 0, &pkey);
	printf("query_pkey(1,0) = %d pkey=0x%04x\n", ret, ret ? 0 : __builtin_bswap16(pkey));

	pd = alloc_pd10(ctx);
	printf("alloc_pd: %s context_ok=%d\n", pd ? "ok" : "NULL", pd && pd->context == ctx);
	mr = reg_mr10(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	printf("reg_mr: %s pd_ok=%d\n", mr ? "ok" : "NULL", mr && mr->pd == pd);
	cq = create_cq10(ctx, 16, (void *)0x1234, NULL, 0);
	printf("create_cq: %s cqe=%d cq_context_ok=%d\n", cq ? "ok" : "NULL", cq ? cq->cqe : 0,
	       cq && cq->cq_context == (void *)0x1234);
	if (!pd || !mr || !cq)
		return 1;

	memset(&init, 0, sizeof(init));
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 4;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.qp_type = IBV_QPT_RC;
	qa = create_qp10(pd, &init);
	qb = create_qp10(pd, &init);
	printf("create_qp x2: %s %s\n", qa ? "ok" : "NULL", qb ? "ok" : "NULL");
	if (!qa || !qb)
		return 1;
	printf("qp fields: pd_ok=%d cq_ok=%d type=%d\n", qa->pd == pd,
	       qa->send_cq == cq && qa->recv_cq == cq, qa->qp_type);

	if (!to_rts(qa, qb->qp_num, &gid) && !to_rts(qb, qa->qp_num, &gid)) {
		/* No ibv_query_qp@1.0: upstream's dereferences the SRQ of a QP
		 * without one and crashes. */
		strcpy(buf[0], "hello through IBVERBS_1.0");
		memset(buf[1], 0, sizeof(buf[1]));
		rsge.addr = (uintptr_t)buf[1];
		rsge.length = sizeof(buf[1]);
		rsge.lkey = mr->lkey;
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 2;
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		ret = ctx->ops.post_recv(qb, &rwr, &rbad);
		printf("post_recv = %d\n", ret);

		ssge.addr = (uintptr_t)buf[0];
		ssge.length = strlen(buf[0]) + 1;
		ssge.lkey = mr->lkey;
		memset(&swr, 0, sizeof(swr));
		swr.wr_id = 1;
		swr.sg_list = &ssge;
		swr.num_sge = 1;
		swr.opcode = IBV_WR_SEND;
		swr.send_flags = IBV_SEND_SIGNALED;
		ret = ctx->ops.post_send(qa, &swr, &sbad);
		printf("post_send = %d\n", ret);

		for (n = 0; n < 2; n++) {
			ret = poll_one(ctx, cq, &wc);
			printf("poll_cq = %d wr_id=%llu status=%d opcode=%d\n", ret,
			       ret > 0 ? (unsigned long long)wc.wr_id : 0ULL, ret > 0 ? wc.status : -1,
			       ret > 0 ? wc.opcode : -1);
		}
		printf("received: \"%s\" match=%d\n", buf[1], !strcmp(buf[0], buf[1]));
	}

	printf("destroy_qp = %d %d\n", destroy_qp10(qa), destroy_qp10(qb));
	printf("destroy_cq = %d\n", destroy_cq10(cq));
	printf("dereg_mr = %d\n", dereg_mr10(mr));
	printf("dealloc_pd = %d\n", dealloc_pd10(pd));
	printf("close_device = %d\n", close_dev(ctx));
	free_list(list);
	printf("done\n");
	return 0;
}
