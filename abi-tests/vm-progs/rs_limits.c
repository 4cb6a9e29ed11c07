/*
 * rs_limits.c: the libraries against the process's resource limits.
 *
 *   rs_limits DEVICE
 *
 * Each case prints one line: what was tried and how it ended (ok, or the
 * errno's name). The lines must be the same with Debian's libraries and
 * with ours (the scenario compares them).
 *
 * 1. RLIMIT_MEMLOCK of 64 KiB: registering 1 MiB fails (the kernel's
 *    pinning refuses it), 4 KiB still registers; with the old limit back
 *    1 MiB registers. CAP_IPC_LOCK lifts the limit, so the scenario runs
 *    this program without it (setpriv).
 * 2. RLIMIT_NOFILE with every descriptor used up: ibv_open_device,
 *    ibv_create_comp_channel, rdma_create_event_channel and rsocket() fail
 *    with the kernel's EMFILE; once descriptors are free again each works.
 * 3. Afterwards the process holds exactly the descriptors it held before
 *    (nothing leaked on the failed paths), and the device still works
 *    (a PD, a CQ and an RC QP are made and destroyed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

static void say(const char *what, int ok, int err)
{
	printf("%s: %s\n", what, ok ? "ok" : strerrorname_np(err) ? strerrorname_np(err) : "?");
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

static struct ibv_device *find(const char *name, struct ibv_device ***list)
{
	int i, n;

	*list = ibv_get_device_list(&n);
	for (i = 0; *list && i < n; i++)
		if (!strcmp(ibv_get_device_name((*list)[i]), name))
			return (*list)[i];
	return NULL;
}

static void memlock_cases(struct ibv_pd *pd)
{
	size_t big = 1 << 20;
	struct rlimit old, small;
	struct ibv_mr *mr;
	void *buf;

	if (posix_memalign(&buf, 4096, big))
		return;
	memset(buf, 1, big);
	getrlimit(RLIMIT_MEMLOCK, &old);
	small = old;
	small.rlim_cur = 64 * 1024;
	setrlimit(RLIMIT_MEMLOCK, &small);
	mr = ibv_reg_mr(pd, buf, big, IBV_ACCESS_LOCAL_WRITE);
	say("reg_mr 1 MiB under a 64 KiB RLIMIT_MEMLOCK", mr != NULL, errno);
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	say("reg_mr 4 KiB under it", mr != NULL, errno);
	if (mr)
		ibv_dereg_mr(mr);
	setrlimit(RLIMIT_MEMLOCK, &old);
	mr = ibv_reg_mr(pd, buf, big, IBV_ACCESS_LOCAL_WRITE);
	say("reg_mr 1 MiB with the limit restored", mr != NULL, errno);
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
}

static void nofile_cases(struct ibv_device *dev, struct ibv_context *ctx)
{
	int fillers[4096], nfill = 0, i, fd, s;
	struct ibv_comp_channel *cc;
	struct rdma_event_channel *ch;
	struct ibv_context *c2;
	struct rlimit old, lim;

	getrlimit(RLIMIT_NOFILE, &old);
	lim = old;
	lim.rlim_cur = count_fds() + 16;
	setrlimit(RLIMIT_NOFILE, &lim);
	while (nfill < 4096 && (fd = open("/dev/null", O_RDONLY)) >= 0)
		fillers[nfill++] = fd;
	say("filling the descriptor table", errno == EMFILE, errno);

	c2 = ibv_open_device(dev);
	say("ibv_open_device with no descriptor left", c2 != NULL, errno);
	if (c2)
		ibv_close_device(c2);
	cc = ibv_create_comp_channel(ctx);
	say("ibv_create_comp_channel with no descriptor left", cc != NULL, errno);
	if (cc)
		ibv_destroy_comp_channel(cc);
	ch = rdma_create_event_channel();
	say("rdma_create_event_channel with no descriptor left", ch != NULL, errno);
	if (ch)
		rdma_destroy_event_channel(ch);
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	say("rsocket with no descriptor left", s >= 0, errno);
	if (s >= 0)
		rclose(s);

	for (i = 0; i < nfill; i++)
		close(fillers[i]);
	setrlimit(RLIMIT_NOFILE, &old);

	c2 = ibv_open_device(dev);
	say("ibv_open_device afterwards", c2 != NULL, errno);
	if (c2)
		ibv_close_device(c2);
	cc = ibv_create_comp_channel(ctx);
	say("ibv_create_comp_channel afterwards", cc != NULL, errno);
	if (cc)
		ibv_destroy_comp_channel(cc);
	ch = rdma_create_event_channel();
	say("rdma_create_event_channel afterwards", ch != NULL, errno);
	if (ch)
		rdma_destroy_event_channel(ch);
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	say("rsocket afterwards", s >= 0, errno);
	if (s >= 0)
		rclose(s);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qa = { 0 };
	struct ibv_device **list, *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int before, after;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: rs_limits DEVICE\n");
		return 2;
	}
	dev = find(argv[1], &list);
	if (!dev) {
		fprintf(stderr, "no device %s\n", argv[1]);
		return 1;
	}
	ctx = ibv_open_device(dev);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!pd) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	/* The first rsocket reads the library's configuration once; do that
	 * before counting, so that it is not counted as a leak. */
	before = rsocket(AF_INET, SOCK_STREAM, 0);
	if (before >= 0)
		rclose(before);
	before = count_fds();

	memlock_cases(pd);
	nofile_cases(dev, ctx);

	after = count_fds();
	if (after == before)
		printf("descriptors afterwards: as many as before\n");
	else
		printf("descriptors afterwards: %d, before: %d\n", after, before);

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	say("create_cq afterwards", cq != NULL, errno);
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qp = cq ? ibv_create_qp(pd, &qa) : NULL;
	say("create_qp afterwards", qp != NULL, errno);
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
