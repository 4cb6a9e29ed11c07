/*
 * provider_ops DEVICE: which shared object each data-path entry point of
 * DEVICE's context lives in. Opens DEVICE, then prints one line per entry
 * point:
 *
 *   op NAME PATH        NAME's code is in the object PATH (dladdr, symlinks
 *                       resolved)
 *   op NAME none WHY    the entry point could not be had (WHY: the object
 *                       that would hold it could not be created, or the
 *                       pointer is NULL)
 *
 * The entry points: the legacy context ops the inline verbs of
 * <infiniband/verbs.h> jump through (ibv_post_send, ibv_post_recv,
 * ibv_post_srq_recv, ibv_poll_cq, ibv_req_notify_cq, and the memory window
 * ops), the ibv_wr_* builders of an extended QP (created with
 * IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE) and the polling functions
 * of an extended CQ. The scenario runner (abi-tests/scenarios/runner.sh,
 * `loaded --ops`) checks that every PATH is the provider the run should have
 * used: Debian's C provider, or ours when RDMAV_DRIVERS names it. The set of
 * NAMEs a provider resolves must be the same for Debian's provider and ours.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

static void where(const char *name, const void *fn, const char *why_missing)
{
	Dl_info info;
	char real[PATH_MAX];

	if (!fn) {
		printf("op %s none %s\n", name, why_missing ? why_missing : "NULL pointer");
		return;
	}
	if (!dladdr(fn, &info) || !info.dli_fname) {
		printf("op %s none dladdr found no object\n", name);
		return;
	}
	if (!realpath(info.dli_fname, real))
		snprintf(real, sizeof(real), "%s", info.dli_fname);
	printf("op %s %s\n", name, real);
}

#define OP(name, ptr, why) where(name, (const void *)(ptr), why)

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp = NULL;
	struct ibv_qp_ex *qpx = NULL;
	char why_qp[96] = "", why_cq[96] = "";
	int i, n;

	if (argc != 2) {
		fprintf(stderr, "usage: provider_ops DEVICE\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		printf("cannot open %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	if (!cq) {
		printf("setup failed: %s\n", strerror(errno));
		return 1;
	}

	OP("post_send", ctx->ops.post_send, NULL);
	OP("post_recv", ctx->ops.post_recv, NULL);
	OP("post_srq_recv", ctx->ops.post_srq_recv, NULL);
	OP("poll_cq", ctx->ops.poll_cq, NULL);
	OP("req_notify_cq", ctx->ops.req_notify_cq, NULL);
	OP("alloc_mw", ctx->ops.alloc_mw, NULL);
	OP("bind_mw", ctx->ops.bind_mw, NULL);
	OP("dealloc_mw", ctx->ops.dealloc_mw, NULL);

	{
		struct ibv_qp_init_attr_ex a = {
			.send_cq = cq, .recv_cq = cq, .pd = pd,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
				 .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
			.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE,
		};

		qp = ibv_create_qp_ex(ctx, &a);
		if (qp)
			qpx = ibv_qp_to_qp_ex(qp);
		if (!qpx)
			snprintf(why_qp, sizeof(why_qp), "no extended QP (%s)",
				 strerror(errno));
	}
	OP("wr_start", qpx ? (void *)qpx->wr_start : NULL, why_qp);
	OP("wr_send", qpx ? (void *)qpx->wr_send : NULL, why_qp);
	OP("wr_rdma_write", qpx ? (void *)qpx->wr_rdma_write : NULL, why_qp);
	OP("wr_set_sge", qpx ? (void *)qpx->wr_set_sge : NULL, why_qp);
	OP("wr_set_sge_list", qpx ? (void *)qpx->wr_set_sge_list : NULL, why_qp);
	OP("wr_set_inline_data", qpx ? (void *)qpx->wr_set_inline_data : NULL, why_qp);
	OP("wr_complete", qpx ? (void *)qpx->wr_complete : NULL, why_qp);
	OP("wr_abort", qpx ? (void *)qpx->wr_abort : NULL, why_qp);

	{
		struct ibv_cq_init_attr_ex a = {
			.cqe = 4,
			.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM,
		};

		cqx = ibv_create_cq_ex(ctx, &a);
		if (!cqx)
			snprintf(why_cq, sizeof(why_cq), "no extended CQ (%s)",
				 strerror(errno));
	}
	OP("cq_ex.start_poll", cqx ? (void *)cqx->start_poll : NULL, why_cq);
	OP("cq_ex.next_poll", cqx ? (void *)cqx->next_poll : NULL, why_cq);
	OP("cq_ex.end_poll", cqx ? (void *)cqx->end_poll : NULL, why_cq);
	OP("cq_ex.read_opcode", cqx ? (void *)cqx->read_opcode : NULL, why_cq);
	OP("cq_ex.read_byte_len", cqx ? (void *)cqx->read_byte_len : NULL, why_cq);

	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
