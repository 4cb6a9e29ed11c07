/* siw_bad_input: bad input to the siw provider's ops, each case in its own
 * child process; prints what each returned, or the signal that ended it.
 * Runs on siw0 without a connection (the QPs stay in RESET, so a doorbell
 * fails with ENOTCONN and a post that reached it returns -1). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_srq *srq;
static struct ibv_qp *qp, *srq_qp;
static struct ibv_mr *mr;
static char buf[1 << 16];

static void setup(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	for (int i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), "siw0"))
			ctx = ibv_open_device(l[i]);
	if (!ctx) { printf("no siw0\n"); exit(3); }
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 6, .max_recv_sge = 6,
			 .max_inline_data = 80 } };
	qp = ibv_create_qp(pd, &a);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 6 } };
	srq = ibv_create_srq(pd, &sa);
	a.srq = srq;
	srq_qp = ibv_create_qp(pd, &a);
	if (!pd || !cq || !mr || !qp || !srq || !srq_qp) { printf("setup failed: %s\n", strerror(errno)); exit(3); }
}

static struct ibv_sge sges[300];
static struct ibv_send_wr swr[2];
static struct ibv_recv_wr rwr[2];

static struct ibv_send_wr *send1(int opcode, int flags, struct ibv_sge *sgl, int n)
{
	memset(swr, 0, sizeof(swr));
	for (int i = 0; i < 300; i++)
		sges[i] = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	swr[0] = (struct ibv_send_wr){ .wr_id = 1, .opcode = opcode, .send_flags = flags,
				       .sg_list = sgl, .num_sge = n };
	return &swr[0];
}

static struct ibv_recv_wr *recv1(struct ibv_sge *sgl, int n)
{
	memset(rwr, 0, sizeof(rwr));
	for (int i = 0; i < 300; i++)
		sges[i] = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	rwr[0] = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = sgl, .num_sge = n };
	return &rwr[0];
}

#define BADIDX(b, arr) ((b) == NULL ? -1 : (int)((b) - (arr)))

static void report_send(struct ibv_qp *q, struct ibv_send_wr *w)
{
	struct ibv_send_wr *bad = (void *)1;
	errno = 0;
	int rv = ibv_post_send(q, w, &bad);
	printf("rv=%d errno=%d bad=%s%d\n", rv, rv ? errno : 0,
	       bad == (void *)1 ? "untouched" : "", bad == (void *)1 ? 0 : BADIDX(bad, swr));
}

static void report_recv(struct ibv_qp *q, struct ibv_srq *s, struct ibv_recv_wr *w)
{
	struct ibv_recv_wr *bad = (void *)1;
	errno = 0;
	int rv = q ? ibv_post_recv(q, w, &bad) : ibv_post_srq_recv(s, w, &bad);
	printf("rv=%d errno=%d bad=%s%d\n", rv, rv ? errno : 0,
	       bad == (void *)1 ? "untouched" : "", bad == (void *)1 ? 0 : BADIDX(bad, rwr));
}

/* Two flushed receive completions in the CQ: post two receives, move the QP
 * to the error state. */
static int make_cqes(void)
{
	struct ibv_recv_wr *w = recv1(sges, 1), *bad;
	rwr[1] = rwr[0];
	rwr[1].wr_id = 2;
	rwr[0].next = &rwr[1];
	if (ibv_post_recv(qp, w, &bad))
		return -1;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_ERR };
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE))
		return -2;
	usleep(100000);
	return 0;
}

static void run(const char *name)
{
	if (!strcmp(name, "send_ok")) report_send(qp, send1(IBV_WR_SEND, 0, sges, 1));
	else if (!strcmp(name, "send_num_sge_7")) report_send(qp, send1(IBV_WR_SEND, 0, sges, 7));
	else if (!strcmp(name, "send_num_sge_262")) report_send(qp, send1(IBV_WR_SEND, 0, sges, 262));
	else if (!strcmp(name, "send_num_sge_-1")) report_send(qp, send1(IBV_WR_SEND, 0, sges, -1));
	else if (!strcmp(name, "send_null_sgl")) report_send(qp, send1(IBV_WR_SEND, 0, NULL, 1));
	else if (!strcmp(name, "send_inline_null_sgl")) report_send(qp, send1(IBV_WR_SEND, IBV_SEND_INLINE, NULL, 1));
	else if (!strcmp(name, "send_inline_81")) {
		struct ibv_send_wr *w = send1(IBV_WR_SEND, IBV_SEND_INLINE, sges, 2);
		sges[0].length = 40; sges[1].length = 41;
		report_send(qp, w);
	} else if (!strcmp(name, "send_inline_len_2g")) {
		struct ibv_send_wr *w = send1(IBV_WR_SEND, IBV_SEND_INLINE, sges, 1);
		sges[0].length = 0x80000000u;
		report_send(qp, w);
	} else if (!strcmp(name, "send_inline_null_addr")) {
		struct ibv_send_wr *w = send1(IBV_WR_SEND, IBV_SEND_INLINE, sges, 1);
		sges[0].addr = 0;
		report_send(qp, w);
	} else if (!strcmp(name, "send_opcode_12")) report_send(qp, send1(12, 0, sges, 1));
	else if (!strcmp(name, "send_opcode_15_atomic_write")) report_send(qp, send1(15, 0, sges, 1));
	else if (!strcmp(name, "send_opcode_100000")) report_send(qp, send1(100000, 0, sges, 1));
	else if (!strcmp(name, "send_opcode_fetch_add")) report_send(qp, send1(IBV_WR_ATOMIC_FETCH_AND_ADD, 0, sges, 1));
	else if (!strcmp(name, "send_good_then_bad")) {
		struct ibv_send_wr *w = send1(IBV_WR_SEND, 0, sges, 1);
		swr[1] = swr[0];
		swr[1].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		swr[0].next = &swr[1];
		report_send(qp, w);
	} else if (!strcmp(name, "send_loop_chain")) {
		struct ibv_send_wr *w = send1(IBV_WR_SEND, 0, sges, 1);
		swr[0].next = &swr[0];
		report_send(qp, w);
	} else if (!strcmp(name, "send_bad_wr_null")) {
		errno = 0;
		int rv = ibv_post_send(qp, send1(IBV_WR_SEND, 0, sges, 7), NULL);
		printf("rv=%d errno=%d\n", rv, rv ? errno : 0);
	} else if (!strcmp(name, "recv_ok")) report_recv(qp, NULL, recv1(sges, 1));
	else if (!strcmp(name, "recv_num_sge_0")) report_recv(qp, NULL, recv1(sges, 0));
	else if (!strcmp(name, "recv_num_sge_7")) report_recv(qp, NULL, recv1(sges, 7));
	else if (!strcmp(name, "recv_null_sgl")) report_recv(qp, NULL, recv1(NULL, 1));
	else if (!strcmp(name, "recv_loop_chain")) {
		struct ibv_recv_wr *w = recv1(sges, 1);
		rwr[0].next = &rwr[0];
		report_recv(qp, NULL, w);
	} else if (!strcmp(name, "recv_on_srq_qp")) report_recv(srq_qp, NULL, recv1(sges, 1));
	else if (!strcmp(name, "srq_recv_loop_chain")) {
		struct ibv_recv_wr *w = recv1(sges, 1);
		rwr[0].next = &rwr[0];
		report_recv(NULL, srq, w);
	} else if (!strcmp(name, "srq_recv_null_sgl")) report_recv(NULL, srq, recv1(NULL, 2));
	else if (!strcmp(name, "poll_flushed")) {
		int m = make_cqes();
		struct ibv_wc wc[4];
		memset(wc, 0, sizeof(wc));
		int n = ibv_poll_cq(cq, 4, wc);
		printf("setup=%d polled=%d", m, n);
		for (int i = 0; i < n && i < 4; i++)
			printf(" [id=%llu status=%d opcode=%d qp=%s]", (unsigned long long)wc[i].wr_id,
			       wc[i].status, wc[i].opcode, wc[i].qp_num == qp->qp_num ? "ok" : "other");
		printf("\n");
	} else if (!strcmp(name, "poll_negative_count")) {
		int m = make_cqes();
		struct { struct ibv_wc wc[1]; char canary[sizeof(struct ibv_wc)]; } s;
		memset(&s, 0x5a, sizeof(s));
		int n = ibv_poll_cq(cq, -1, s.wc);
		printf("setup=%d rv=%d canary=%s\n", m, n, s.canary[0] == 0x5a ? "intact" : "overwritten");
	} else if (!strcmp(name, "poll_null_wc")) {
		int m = make_cqes();
		int n = ibv_poll_cq(cq, 1, NULL);
		printf("setup=%d rv=%d\n", m, n);
	} else if (!strcmp(name, "destroy_busy_cq_then_poll")) {
		errno = 0;
		int d = ibv_destroy_cq(cq);
		int e = errno;
		struct ibv_wc wc[2];
		int n = ibv_poll_cq(cq, 2, wc);
		int a = ibv_req_notify_cq(cq, 0);
		printf("destroy=%d errno=%d poll=%d notify=%d\n", d, d ? e : 0, n, a);
	} else if (!strcmp(name, "notify")) {
		printf("notify0=%d notify1=%d\n", ibv_req_notify_cq(cq, 0), ibv_req_notify_cq(cq, 1));
	} else if (!strcmp(name, "qp_without_rq")) {
		struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = 0, .max_send_sge = 1, .max_recv_sge = 1 } };
		errno = 0;
		struct ibv_qp *q = ibv_create_qp(pd, &a);
		printf("qp=%s errno=%d\n", q ? "created" : "NULL", q ? 0 : errno);
	} else if (!strcmp(name, "teardown")) {
		int r1 = ibv_destroy_qp(srq_qp), r2 = ibv_destroy_qp(qp), r3 = ibv_destroy_srq(srq);
		int r4 = ibv_destroy_cq(cq), r5 = ibv_dereg_mr(mr), r6 = ibv_dealloc_pd(pd);
		int r7 = ibv_close_device(ctx);
		printf("%d %d %d %d %d %d %d\n", r1, r2, r3, r4, r5, r6, r7);
	} else {
		printf("unknown case\n");
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		printf("%-28s ", argv[i]);
		fflush(stdout);
		pid_t p = fork();
		if (p == 0) {
			alarm(20);
			setup();
			run(argv[i]);
			exit(0);
		}
		int st;
		waitpid(p, &st, 0);
		if (WIFSIGNALED(st))
			printf("killed by signal %d (%s)\n", WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (WEXITSTATUS(st))
			printf("(exit %d)\n", WEXITSTATUS(st));
	}
	return 0;
}
