/*
 * Fork safety end to end on rxe0 (run with and without RDMAV_FORK_SAFE=1).
 *
 * Registers one MR over three pages (page 0: source, pages 1 and 2:
 * destinations), connects two RC QPs of this process to each other, then
 * forks. The child writes to its own copy of the buffer: the inherited pages
 * if it has them (without fork safety), or, when the parent's registration
 * kept them out of the child (MADV_DONTFORK), fresh pages mapped at the same
 * address. While the child is alive, the parent writes new data into the
 * source page and moves it with an RDMA WRITE (to page 1) and a SEND/RECV
 * (to page 2); both must deliver exactly the parent's new bytes, and none of
 * the child's. Prints ibv_is_fork_initialized() before the library is
 * initialised, after, and at the end. Output has no addresses, keys or QP
 * numbers, so Debian's library and ours must print the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>

static long P;

static const char *status_name(enum ibv_fork_status s)
{
	switch (s) {
	case IBV_FORK_DISABLED: return "IBV_FORK_DISABLED";
	case IBV_FORK_ENABLED: return "IBV_FORK_ENABLED";
	case IBV_FORK_UNNEEDED: return "IBV_FORK_UNNEEDED";
	}
	return "unknown";
}

/* 1 if the mapping holding addr is VM_DONTCOPY ("dc"), 0 if not, -1 if none */
static int dontcopy(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[1024];
	int inside = 0, res = -1;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char *sp = strchr(line, ' '), *dash = strchr(line, '-');

		if (dash && sp && dash < sp && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (inside && !strncmp(line, "VmFlags:", 8)) {
			res = strstr(line, " dc") != NULL;
			break;
		}
	}
	if (f)
		fclose(f);
	return res;
}

static int to_rts(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return 1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return 2;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return 3;
	return 0;
}

/* Waits for n (at most 4) completions; prints them in wr_id order, as the
 * order in which a SEND and its RECV complete is not the test's business. */
static int poll_n(struct ibv_cq *cq, int n)
{
	struct ibv_wc wc[4], t;
	int got = 0, bad = 0;

	for (long i = 0; got < n && i < 50000000; i++) {
		int r = ibv_poll_cq(cq, 1, &wc[got]);

		if (r < 0)
			return -1;
		got += r;
	}
	for (int i = 0; i < got; i++)
		for (int j = i + 1; j < got; j++)
			if (wc[j].wr_id < wc[i].wr_id)
				t = wc[i], wc[i] = wc[j], wc[j] = t;
	for (int i = 0; i < got; i++) {
		printf("  completion wr_id=%llu status=%s opcode=%d\n", (unsigned long long)wc[i].wr_id,
		       ibv_wc_status_str(wc[i].status), wc[i].opcode);
		bad |= wc[i].status != IBV_WC_SUCCESS;
	}
	return got == n && !bad ? 0 : -1;
}

static void fill(char *p, const char *tag)
{
	for (long i = 0; i < P; i++)
		p[i] = tag[i % strlen(tag)];
}

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qa, *qb;
	struct ibv_qp_init_attr init;
	union ibv_gid gid;
	char *buf, expect[64];
	int n, to_child[2], from_child[2];
	pid_t pid;
	char c;

	P = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("RDMAV_FORK_SAFE=%s\n", getenv("RDMAV_FORK_SAFE") ? getenv("RDMAV_FORK_SAFE") : "(unset)");
	printf("fork status before init: %s\n", status_name(ibv_is_fork_initialized()));
	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		printf("no device\n");
		return 1;
	}
	printf("fork status after init: %s\n", status_name(ibv_is_fork_initialized()));
	ctx = ibv_open_device(list[0]);
	if (!ctx || ibv_query_gid(ctx, 1, 1, &gid)) {
		printf("open/query_gid failed\n");
		return 1;
	}
	buf = mmap(NULL, 3 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	memset(buf, 0, 3 * P);
	printf("buffer dontfork before reg_mr: %d\n", dontcopy(buf));
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, 3 * P, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	printf("pd %s, mr %s, cq %s\n", pd ? "ok" : "NULL", mr ? "ok" : "NULL", cq ? "ok" : "NULL");
	if (!pd || !mr || !cq)
		return 1;
	printf("buffer dontfork after reg_mr: %d\n", dontcopy(buf));
	memset(&init, 0, sizeof(init));
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 4;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.qp_type = IBV_QPT_RC;
	qa = ibv_create_qp(pd, &init);
	qb = ibv_create_qp(pd, &init);
	if (!qa || !qb || to_rts(qa, qb->qp_num, &gid) || to_rts(qb, qa->qp_num, &gid)) {
		printf("QP setup failed\n");
		return 1;
	}
	printf("loopback RC QPs ready\n");
	fill(buf, "before-fork.");

	if (pipe(to_child) || pipe(from_child))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		unsigned char vec[3];
		int inherited = !mincore(buf, 3 * P, vec);

		if (!inherited &&
		    mmap(buf, 3 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			_exit(3);
		memset(buf, 'C', 3 * P);
		printf("child: buffer inherited: %s; wrote its own copy\n", inherited ? "yes" : "no");
		if (write(from_child[1], "w", 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(4);
		/* the parent's traffic must not have touched our copy */
		for (long i = 0; i < 3 * P; i++)
			if (buf[i] != 'C')
				_exit(5);
		_exit(0);
	}
	if (read(from_child[0], &c, 1) != 1)
		return 1;

	/* The parent writes after the fork, while the child lives: without
	 * protection on an old kernel this is where the parent's page moves
	 * away from the one the HCA uses. */
	fill(buf, "parent-after-fork.");
	memset(buf + P, 0, 2 * P);

	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = P, .lkey = mr->lkey };
	struct ibv_send_wr wr, *bad_wr;
	struct ibv_recv_wr rwr, *bad_rwr;
	struct ibv_sge rsge = { .addr = (uintptr_t)(buf + 2 * P), .length = P, .lkey = mr->lkey };

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)(buf + P);
	wr.wr.rdma.rkey = mr->rkey;
	printf("parent: RDMA WRITE page 0 -> page 1: post %d\n", ibv_post_send(qa, &wr, &bad_wr));
	if (poll_n(cq, 1))
		printf("parent: RDMA WRITE failed\n");
	printf("parent: page 1 %s\n", memcmp(buf + P, buf, P) ? "DIFFERS from the source" : "holds the parent's new bytes");

	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 3;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	printf("parent: post_recv page 2: %d\n", ibv_post_recv(qb, &rwr, &bad_rwr));
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND;
	printf("parent: SEND page 0: post %d\n", ibv_post_send(qa, &wr, &bad_wr));
	if (poll_n(cq, 2))
		printf("parent: SEND/RECV failed\n");
	printf("parent: page 2 %s\n", memcmp(buf + 2 * P, buf, P) ? "DIFFERS from the source" : "holds the parent's new bytes");
	snprintf(expect, sizeof(expect), "%.18s", buf + P);
	printf("parent: page 1 starts with \"%s\"\n", expect);

	if (write(to_child[1], "d", 1) != 1)
		return 1;
	int st = 0;
	waitpid(pid, &st, 0);
	printf("child exit: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	printf("fork status at the end: %s\n", status_name(ibv_is_fork_initialized()));

	printf("destroy_qp %d %d\n", ibv_destroy_qp(qa), ibv_destroy_qp(qb));
	printf("destroy_cq %d\n", ibv_destroy_cq(cq));
	printf("dereg_mr %d\n", ibv_dereg_mr(mr));
	printf("buffer dontfork after dereg_mr: %d\n", dontcopy(buf));
	printf("dealloc_pd %d\n", ibv_dealloc_pd(pd));
	printf("close_device %d\n", ibv_close_device(ctx));
	ibv_free_device_list(list);
	return 0;
}
