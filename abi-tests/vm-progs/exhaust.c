/*
 * exhaust.c: verbs objects created until the kernel refuses one, all freed,
 * and created again.
 *
 *   exhaust
 *
 * Run it under a limit the kernel enforces (abi-tests/vm-progs/rdma-cgroup
 * puts it in an rdma cgroup with a small rdma.max): rxe's own maxima (a
 * million CQs, QPs and PDs) are far beyond what the VM's memory holds. For
 * each kind of object, on the first device:
 *
 *   - device contexts (ibv_open_device), until one is refused;
 *   - CQs, QPs (RC, on one CQ), MRs (4 KiB each) and AHs (to our own GID
 *     1), each in a fresh context with one PD, until one is refused.
 *
 * One line per kind: how many were created, the errno of the refusal; then
 * whether one more could be created after all were freed, and whether the
 * process holds the same descriptors and memory mappings as before the
 * kind's context was opened (nothing leaked). A refusal that has not come
 * after 100000 objects ends the kind ("no refusal").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define CAP 100000

static struct ibv_device *dev;
static char page[4096] __attribute__((aligned(4096)));

/* Entries of /proc/self/fd (the count includes the directory's own fd,
 * the same every time) or lines of /proc/self/maps. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

enum kind { CQ, QP, MR, AH };
static const char *names[] = { "CQs", "QPs", "MRs", "AHs" };

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_ah_attr ah;
};

static void *create(struct env *e, enum kind k)
{
	struct ibv_qp_init_attr qa;

	switch (k) {
	case CQ:
		return ibv_create_cq(e->ctx, 1, NULL, NULL, 0);
	case QP:
		memset(&qa, 0, sizeof(qa));
		qa.send_cq = qa.recv_cq = e->cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = qa.cap.max_recv_wr = 1;
		qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
		return ibv_create_qp(e->pd, &qa);
	case MR:
		return ibv_reg_mr(e->pd, page, sizeof(page), IBV_ACCESS_LOCAL_WRITE);
	case AH:
		return ibv_create_ah(e->pd, &e->ah);
	}
	return NULL;
}

static int destroy(enum kind k, void *o)
{
	switch (k) {
	case CQ:
		return ibv_destroy_cq(o);
	case QP:
		return ibv_destroy_qp(o);
	case MR:
		return ibv_dereg_mr(o);
	case AH:
		return ibv_destroy_ah(o);
	}
	return EINVAL;
}

static void objects(enum kind k, void **objs)
{
	int fds0 = count_fds(), maps0 = count_maps(), n = 0, err = 0, bad = 0;
	struct env e = { 0 };
	union ibv_gid gid;
	void *again;

	e.ctx = ibv_open_device(dev);
	if (!e.ctx || !(e.pd = ibv_alloc_pd(e.ctx)) || !(e.cq = ibv_create_cq(e.ctx, 2, NULL, NULL, 0)) ||
	    ibv_query_gid(e.ctx, 1, 1, &gid)) {
		printf("%s: setup failed: %s\n", names[k], strerrorname_np(errno));
		return;
	}
	e.ah.is_global = 1;
	e.ah.grh.dgid = gid;
	e.ah.grh.sgid_index = 1;
	e.ah.grh.hop_limit = 1;
	e.ah.port_num = 1;
	while (n < CAP) {
		errno = 0;
		objs[n] = create(&e, k);
		if (!objs[n]) {
			err = errno;
			break;
		}
		n++;
	}
	if (n == CAP)
		printf("%s: no refusal after %d\n", names[k], CAP);
	else
		printf("%s: %d created, then refused with %s\n", names[k], n,
		       err ? strerrorname_np(err) : "errno 0");
	while (n > 0)
		bad += destroy(k, objs[--n]) != 0;
	again = create(&e, k);
	printf("%s: every one freed%s; one more after that: %s\n", names[k],
	       bad ? " (some destroys FAILED)" : "", again ? "created" : strerrorname_np(errno));
	if (again)
		destroy(k, again);
	ibv_destroy_cq(e.cq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	printf("%s: descriptors %s, mappings %s\n", names[k],
	       count_fds() == fds0 ? "as before" : "NOT as before",
	       count_maps() == maps0 ? "as before" : "NOT as before");
}

static void contexts(void **objs)
{
	int fds0 = count_fds(), maps0 = count_maps(), n = 0, err = 0;
	struct ibv_context *again;

	while (n < CAP) {
		errno = 0;
		objs[n] = ibv_open_device(dev);
		if (!objs[n]) {
			err = errno;
			break;
		}
		n++;
	}
	printf("contexts: %d opened, then refused with %s\n", n, err ? strerrorname_np(err) : "errno 0");
	while (n > 0)
		ibv_close_device(objs[--n]);
	again = ibv_open_device(dev);
	printf("contexts: every one closed; one more after that: %s\n", again ? "opened" : strerrorname_np(errno));
	if (again)
		ibv_close_device(again);
	printf("contexts: descriptors %s, mappings %s\n",
	       count_fds() == fds0 ? "as before" : "NOT as before",
	       count_maps() == maps0 ? "as before" : "NOT as before");
}

int main(void)
{
	struct ibv_device **list;
	void **objs = calloc(CAP, sizeof(*objs));

	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(NULL);
	if (!objs || !list || !list[0]) {
		printf("no device\n");
		return 1;
	}
	dev = list[0];
	contexts(objs);
	for (enum kind k = CQ; k <= AH; k++)
		objects(k, objs);
	ibv_free_device_list(list);
	free(objs);
	return 0;
}
