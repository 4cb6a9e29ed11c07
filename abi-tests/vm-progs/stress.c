/*
 * stress: THREADS threads share one device context and together run CYCLES
 * create/use/destroy cycles of a PD, an MR, a CQ and an RC QP:
 *
 *   alloc PD -> reg MR -> create CQ -> create QP -> modify to INIT ->
 *   post a receive -> (every EVERY-th cycle of a thread: RTR, RTS
 *   connected to itself, post BURST sends and poll all their completions
 *   and those of the receives, checking the data arrived) -> destroy QP ->
 *   destroy CQ -> dereg MR -> dealloc PD
 *
 * With BURST above 1 the loopbacks exercise the provider's whole data path:
 * BURST - 1 more receives are posted as one chain, and every other loopback
 * of a thread uses the extended interfaces instead of the plain ones: the
 * QP is created with ibv_create_qp_ex and sends with one ibv_wr_start /
 * ibv_wr_send / ibv_wr_set_sge ... / ibv_wr_complete batch (instead of one
 * chain of ibv_post_send), and the CQ is created with ibv_create_cq_ex and
 * polled with ibv_start_poll / ibv_next_poll / ibv_end_poll (instead of
 * ibv_poll_cq).
 *
 * Meant to run under valgrind (abi-tests/vm-progs/run-stress), which then
 * reports leaks and memory errors of the library and the provider. Prints
 * one summary line and exits 0 when every verb succeeded, 1 otherwise (with
 * the first failures on stderr). The output does not depend on timing.
 *
 *   stress [CYCLES [THREADS [BURST [EVERY]]]]
 *       defaults: 10000 cycles, 8 threads, BURST 1, EVERY 25
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define MSG 64

static struct ibv_context *ctx;
static union ibv_gid gid1;
static int cycles_per_thread;
static int burst = 1, loop_every = 25;
static atomic_int failures;
static atomic_long loops_done, sends_done, wr_api_sends, cq_ex_polls;

struct worker {
	pthread_t tid;
	int id;
	int done;
	char *buf;	/* 2 * BURST * MSG bytes: send half, receive half */
};

static void fail(struct worker *w, int cycle, const char *what, int err)
{
	if (atomic_fetch_add(&failures, 1) < 20)
		fprintf(stderr, "thread %d cycle %d: %s failed: %s\n", w->id,
			cycle, what, strerror(err));
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = qp->qp_num,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = gid1, .sgid_index = 1, .hop_limit = 1 } },
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Every completion of a loopback polled, at most 60 s (valgrind on an
 * emulated CPU is slow); -1 on a failure. */
static int poll_all(struct worker *w, int cycle, struct ibv_cq *cq,
		    struct ibv_cq_ex *cqx, int want)
{
	struct timespec t0, t;
	struct ibv_wc wc[2];
	int got = 0, n, ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < want) {
		if (cqx) {
			struct ibv_poll_cq_attr pa = { 0 };

			ret = ibv_start_poll(cqx, &pa);
			if (ret && ret != ENOENT) {
				fail(w, cycle, "start_poll", ret);
				return -1;
			}
			while (!ret) {
				if (cqx->status != IBV_WC_SUCCESS) {
					fprintf(stderr, "thread %d cycle %d: completion %s\n", w->id,
						cycle, ibv_wc_status_str(cqx->status));
					ibv_end_poll(cqx);
					fail(w, cycle, "completion", EIO);
					return -1;
				}
				got++;
				atomic_fetch_add(&cq_ex_polls, 1);
				ret = ibv_next_poll(cqx);
				if (ret && ret != ENOENT) {
					ibv_end_poll(cqx);
					fail(w, cycle, "next_poll", ret);
					return -1;
				}
				if (ret == ENOENT)
					ibv_end_poll(cqx);
			}
		} else {
			n = ibv_poll_cq(cq, 2, wc);
			if (n < 0) {
				fail(w, cycle, "poll_cq", EIO);
				return -1;
			}
			for (int i = 0; i < n; i++) {
				if (wc[i].status != IBV_WC_SUCCESS) {
					fprintf(stderr, "thread %d cycle %d: completion %s\n", w->id,
						cycle, ibv_wc_status_str(wc[i].status));
					fail(w, cycle, "completion", EIO);
					return -1;
				}
			}
			got += n;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 60) {
			fail(w, cycle, "waiting for completions", ETIMEDOUT);
			return -1;
		}
	}
	return 0;
}

/* Send BURST messages of MSG bytes to ourselves (the first into the
 * receive the cycle posted, the others into BURST - 1 more) and wait for
 * every completion. With qpx, through one ibv_wr_* batch; with cqx, polled
 * through the extended CQ. */
static int loopback(struct worker *w, int cycle, struct ibv_qp *qp,
		    struct ibv_qp_ex *qpx, struct ibv_cq *cq, struct ibv_cq_ex *cqx,
		    struct ibv_mr *mr)
{
	struct ibv_sge sge[burst], rsge[burst];
	struct ibv_send_wr wr[burst], *bad;
	struct ibv_recv_wr rwr[burst], *rbad;
	char *rbuf = w->buf + burst * MSG;
	int n, ret;

	ret = to_rts(qp);
	if (ret) {
		fail(w, cycle, "modify_qp RTR/RTS", ret);
		return -1;
	}
	memset(rbuf, 0, burst * MSG);
	for (n = 0; n < burst * MSG; n++)
		w->buf[n] = (char)(w->id * 31 + cycle + n);
	if (burst > 1) {
		for (int i = 1; i < burst; i++) {
			rsge[i] = (struct ibv_sge){ .addr = (uintptr_t)rbuf + i * MSG,
						    .length = MSG, .lkey = mr->lkey };
			rwr[i] = (struct ibv_recv_wr){ .wr_id = 100 + i, .sg_list = &rsge[i],
						       .num_sge = 1,
						       .next = i + 1 < burst ? &rwr[i + 1] : NULL };
		}
		ret = ibv_post_recv(qp, &rwr[1], &rbad);
		if (ret) {
			fail(w, cycle, "post_recv chain", ret);
			return -1;
		}
	}
	if (qpx) {
		ibv_wr_start(qpx);
		for (int i = 0; i < burst; i++) {
			qpx->wr_id = 2 + i;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_send(qpx);
			ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)w->buf + i * MSG, MSG);
		}
		ret = ibv_wr_complete(qpx);
		if (ret) {
			fail(w, cycle, "wr_complete", ret);
			return -1;
		}
		atomic_fetch_add(&wr_api_sends, burst);
	} else {
		for (int i = 0; i < burst; i++) {
			sge[i] = (struct ibv_sge){ .addr = (uintptr_t)w->buf + i * MSG,
						   .length = MSG, .lkey = mr->lkey };
			wr[i] = (struct ibv_send_wr){ .wr_id = 2 + i, .sg_list = &sge[i],
						      .num_sge = 1, .opcode = IBV_WR_SEND,
						      .send_flags = IBV_SEND_SIGNALED,
						      .next = i + 1 < burst ? &wr[i + 1] : NULL };
		}
		ret = ibv_post_send(qp, wr, &bad);
		if (ret) {
			fail(w, cycle, "post_send", ret);
			return -1;
		}
	}
	if (poll_all(w, cycle, cq, cqx, 2 * burst))
		return -1;
	if (memcmp(w->buf, rbuf, burst * MSG)) {
		fail(w, cycle, "received data check", EIO);
		return -1;
	}
	atomic_fetch_add(&loops_done, 1);
	atomic_fetch_add(&sends_done, burst);
	return 0;
}

static void *run(void *arg)
{
	struct worker *w = arg;

	for (int c = 0; c < cycles_per_thread; c++) {
		struct ibv_pd *pd;
		struct ibv_mr *mr;
		struct ibv_cq *cq;
		struct ibv_qp *qp;
		struct ibv_cq_ex *cqx;
		struct ibv_qp_ex *qpx;
		int ret, ext;

		pd = ibv_alloc_pd(ctx);
		if (!pd) {
			fail(w, c, "alloc_pd", errno);
			continue;
		}
		/* With BURST above 1, every other loopback of a thread on
		 * the extended interfaces. */
		ext = burst > 1 && c % loop_every == 0 && (c / loop_every) % 2;
		cqx = NULL;
		qpx = NULL;
		mr = ibv_reg_mr(pd, w->buf, 2 * burst * MSG, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
		if (!mr) {
			fail(w, c, "reg_mr", errno);
			goto pd;
		}
		if (ext) {
			struct ibv_cq_init_attr_ex a = {
				.cqe = 2 * burst + 2,
				.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
			};

			cqx = ibv_create_cq_ex(ctx, &a);
			cq = cqx ? ibv_cq_ex_to_cq(cqx) : NULL;
		} else {
			cq = ibv_create_cq(ctx, burst > 1 ? 2 * burst + 2 : 4, NULL, NULL, 0);
		}
		if (!cq) {
			fail(w, c, "create_cq", errno);
			goto mr;
		}
		{
			struct ibv_qp_init_attr_ex a = {
				.send_cq = cq, .recv_cq = cq, .pd = pd,
				.cap = { .max_send_wr = burst > 1 ? burst : 2,
					 .max_recv_wr = burst > 1 ? burst : 2,
					 .max_send_sge = 1, .max_recv_sge = 1 },
				.qp_type = IBV_QPT_RC,
				.comp_mask = IBV_QP_INIT_ATTR_PD,
			};

			if (ext) {
				a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
				a.send_ops_flags = IBV_QP_EX_WITH_SEND;
				qp = ibv_create_qp_ex(ctx, &a);
				qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
				if (qp && !qpx) {
					fail(w, c, "qp_to_qp_ex", EINVAL);
					ibv_destroy_qp(qp);
					qp = NULL;
				}
			} else {
				struct ibv_qp_init_attr b = {
					.send_cq = cq, .recv_cq = cq, .cap = a.cap,
					.qp_type = IBV_QPT_RC,
				};

				qp = ibv_create_qp(pd, &b);
			}
		}
		if (!qp) {
			fail(w, c, "create_qp", errno);
			goto cq;
		}
		ret = to_init(qp);
		if (ret) {
			fail(w, c, "modify_qp INIT", ret);
			goto qp;
		}
		{
			struct ibv_sge sge = { .addr = (uintptr_t)w->buf + burst * MSG,
					       .length = MSG, .lkey = mr->lkey };
			struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
			struct ibv_recv_wr *bad;

			ret = ibv_post_recv(qp, &rwr, &bad);
			if (ret) {
				fail(w, c, "post_recv", ret);
				goto qp;
			}
		}
		if (c % loop_every == 0)
			loopback(w, c, qp, qpx, cq, cqx, mr);
qp:
		ret = ibv_destroy_qp(qp);
		if (ret)
			fail(w, c, "destroy_qp", ret);
cq:
		ret = ibv_destroy_cq(cq);
		if (ret)
			fail(w, c, "destroy_cq", ret);
mr:
		ret = ibv_dereg_mr(mr);
		if (ret)
			fail(w, c, "dereg_mr", ret);
pd:
		ret = ibv_dealloc_pd(pd);
		if (ret)
			fail(w, c, "dealloc_pd", ret);
		w->done++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int cycles = argc > 1 ? atoi(argv[1]) : 10000;
	int nthreads = argc > 2 ? atoi(argv[2]) : 8;
	struct ibv_device **list;
	struct worker *w;
	long total = 0;
	int i, n, ret;

	if (argc > 3)
		burst = atoi(argv[3]);
	if (argc > 4)
		loop_every = atoi(argv[4]);
	if (cycles <= 0 || nthreads <= 0 || cycles % nthreads || burst <= 0 || burst > 256 ||
	    loop_every <= 0) {
		fprintf(stderr, "usage: stress [CYCLES [THREADS [BURST [EVERY]]]] (CYCLES a multiple of "
			"THREADS, BURST 1 to 256)\n");
		return 2;
	}
	cycles_per_thread = cycles / nthreads;
	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		fprintf(stderr, "no RDMA device\n");
		return 1;
	}
	ctx = ibv_open_device(list[0]);
	if (!ctx) {
		perror("ibv_open_device");
		return 1;
	}
	if (ibv_query_gid(ctx, 1, 1, &gid1)) {
		perror("ibv_query_gid");
		return 1;
	}
	w = calloc(nthreads, sizeof(*w));
	for (i = 0; i < nthreads; i++) {
		w[i].id = i;
		w[i].buf = calloc(1, 2 * burst * MSG);
		ret = pthread_create(&w[i].tid, NULL, run, &w[i]);
		if (ret) {
			fprintf(stderr, "pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		total += w[i].done;
		free(w[i].buf);
	}
	free(w);
	ret = ibv_close_device(ctx);
	ibv_free_device_list(list);
	if (burst > 1)
		printf("stress: %d threads, %ld cycles of PD+MR+CQ+QP, %ld loopbacks of %d sends "
		       "(%ld sends, %ld of them through ibv_wr_*; %ld completions polled through "
		       "ibv_cq_ex), %d failures, close_device=%d\n", nthreads, total,
		       (long)atomic_load(&loops_done), burst, (long)atomic_load(&sends_done),
		       (long)atomic_load(&wr_api_sends), (long)atomic_load(&cq_ex_polls),
		       atomic_load(&failures), ret);
	else
		printf("stress: %d threads, %ld cycles of PD+MR+CQ+QP, %ld loopback sends, "
		       "%d failures, close_device=%d\n", nthreads, total,
		       (long)atomic_load(&loops_done), atomic_load(&failures), ret);
	return atomic_load(&failures) || ret ? 1 : 0;
}
