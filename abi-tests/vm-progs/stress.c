/*
 * stress: THREADS threads share one device context and together run CYCLES
 * create/use/destroy cycles of a PD, an MR, a CQ and an RC QP:
 *
 *   alloc PD -> reg MR -> create CQ -> create QP -> modify to INIT ->
 *   post a receive -> (every LOOP_EVERY-th cycle of a thread: RTR, RTS
 *   connected to itself, post a send and poll both completions, checking
 *   the data arrived) -> destroy QP -> destroy CQ -> dereg MR -> dealloc PD
 *
 * Meant to run under valgrind (abi-tests/vm-progs/run-stress), which then
 * reports leaks and memory errors of the library and the provider. Prints
 * one summary line and exits 0 when every verb succeeded, 1 otherwise (with
 * the first failures on stderr). The output does not depend on timing.
 *
 *   stress [CYCLES [THREADS]]     defaults: 10000 cycles, 8 threads
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

#define LOOP_EVERY 25
#define MSG 64

static struct ibv_context *ctx;
static union ibv_gid gid1;
static int cycles_per_thread;
static atomic_int failures;
static atomic_long loops_done;

struct worker {
	pthread_t tid;
	int id;
	int done;
	char *buf;	/* 2 * MSG bytes: send half, receive half */
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

/* Send MSG bytes to ourselves and wait for both completions (at most 60 s:
 * valgrind on an emulated CPU is slow). */
static int loopback(struct worker *w, int cycle, struct ibv_qp *qp,
		    struct ibv_cq *cq, struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)w->buf, .length = MSG, .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc[2];
	struct timespec t0, t;
	int got = 0, n, ret;

	ret = to_rts(qp);
	if (ret) {
		fail(w, cycle, "modify_qp RTR/RTS", ret);
		return -1;
	}
	memset(w->buf + MSG, 0, MSG);
	for (n = 0; n < MSG; n++)
		w->buf[n] = (char)(w->id * 31 + cycle + n);
	ret = ibv_post_send(qp, &wr, &bad);
	if (ret) {
		fail(w, cycle, "post_send", ret);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < 2) {
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
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 60) {
			fail(w, cycle, "waiting for completions", ETIMEDOUT);
			return -1;
		}
	}
	if (memcmp(w->buf, w->buf + MSG, MSG)) {
		fail(w, cycle, "received data check", EIO);
		return -1;
	}
	atomic_fetch_add(&loops_done, 1);
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
		int ret;

		pd = ibv_alloc_pd(ctx);
		if (!pd) {
			fail(w, c, "alloc_pd", errno);
			continue;
		}
		mr = ibv_reg_mr(pd, w->buf, 2 * MSG, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
		if (!mr) {
			fail(w, c, "reg_mr", errno);
			goto pd;
		}
		cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
		if (!cq) {
			fail(w, c, "create_cq", errno);
			goto mr;
		}
		{
			struct ibv_qp_init_attr a = {
				.send_cq = cq, .recv_cq = cq,
				.cap = { .max_send_wr = 2, .max_recv_wr = 2,
					 .max_send_sge = 1, .max_recv_sge = 1 },
				.qp_type = IBV_QPT_RC,
			};

			qp = ibv_create_qp(pd, &a);
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
			struct ibv_sge sge = { .addr = (uintptr_t)w->buf + MSG,
					       .length = MSG, .lkey = mr->lkey };
			struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
			struct ibv_recv_wr *bad;

			ret = ibv_post_recv(qp, &rwr, &bad);
			if (ret) {
				fail(w, c, "post_recv", ret);
				goto qp;
			}
		}
		if (c % LOOP_EVERY == 0)
			loopback(w, c, qp, cq, mr);
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

	if (cycles <= 0 || nthreads <= 0 || cycles % nthreads) {
		fprintf(stderr, "usage: stress [CYCLES [THREADS]] (CYCLES a multiple of THREADS)\n");
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
		w[i].buf = calloc(1, 2 * MSG);
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
	printf("stress: %d threads, %ld cycles of PD+MR+CQ+QP, %ld loopback sends, "
	       "%d failures, close_device=%d\n", nthreads, total,
	       (long)atomic_load(&loops_done), atomic_load(&failures), ret);
	return atomic_load(&failures) || ret ? 1 : 0;
}
