/*
 * cm_removal: an RDMA device deleted while a process uses it, and added
 * back while the process still runs.
 *
 * Two child processes use the libraries: one binds an rdma_cm id to
 * 10.0.2.15 (rxe0) and creates a PD, CQ and RC QP on it; the other, verbs
 * only, holds a context and CQ on rxe0. Then, step by step:
 *   delete_started    the parent starts `rdma link delete rxe0`. rxe cannot
 *                     take a device from a process that has it open: the
 *                     kernel's rdma_cm first tells every id on the device
 *                     (RDMA_CM_EVENT_DEVICE_REMOVAL), and the deletion
 *                     waits until every process has let go;
 *   event             the event the rdma_cm process's channel delivers;
 *   destroy_qp ... destroy_channel
 *                     each result, as an application reacting to the event
 *                     does; that process then exits (librdmacm keeps the
 *                     device open for its ids as long as the process lives,
 *                     upstream's as ours);
 *   verbs_destroy_cq, verbs_close_device
 *                     the verbs process lets go (rxe tells it nothing);
 *   deleted           the deletion finished (rxe0 gone from sysfs);
 *   readded           the parent adds rxe0 back on eth0 and waits until its
 *                     port is ACTIVE with its GIDs;
 *   found_again, open_again, query_again
 *                     the verbs process, still running, lists the devices,
 *                     finds rxe0 again and uses it.
 * With RDMAV_ALLOW_DISASSOC_DESTROY set (the scenario runs both ways) the
 * destroys must succeed as well.
 *
 * Each step prints "step NAME: RESULT" with nothing that changes from run to
 * run, so Debian's libraries and ours must print the same transcript. A step
 * that does not finish within 30 s ends the run (the parent kills the child
 * and restores rxe0): a hang is a failure, not a stuck VM.
 *
 * Needs root, iproute2's `rdma`, rdma_rxe: the Soft-RoCE VM. rxe0 is
 * restored even when a step fails. Linked with -lrdmacm by run-c-probe.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static int to_parent[2], to_child[2], to_verbs[2];

static void step(const char *name, int ret)
{
	if (ret)
		printf("step %s: ret=%d errno=%s\n", name, ret, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
	else
		printf("step %s: ok\n", name);
}

static void tell(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(3);
}

static char hear(int fd, int secs)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c = 0;

	if (poll(&p, 1, secs * 1000) != 1 || read(fd, &c, 1) != 1)
		return 0;
	return c;
}

static struct sockaddr_in rxe0_addr(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	inet_pton(AF_INET, "10.0.2.15", &a.sin_addr);
	return a;
}

/* The rdma_cm process: an id bound to rxe0 with a PD, CQ and QP, told of
 * the removal, letting go of everything. It exits afterwards: librdmacm
 * keeps the device open for its ids' sake as long as the process lives
 * (upstream's as ours), and the deletion waits for that. */
static int cm_child(void)
{
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct sockaddr_in a = rxe0_addr();
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_pd *pd;

	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(id, (struct sockaddr *)&a)) {
		printf("setup failed: %s\n", strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (!cq || rdma_create_qp(id, pd, &qa)) {
		printf("setup failed: %s\n", strerror(errno));
		return 1;
	}
	printf("step cm_setup: ok\n");
	tell(to_parent[1], 'd');
	if (hear(to_child[0], 30) != 's')
		return 1;
	printf("step delete_started: ok\n");

	if (rdma_get_cm_event(ch, &ev)) {
		step("event", -1);
		return 1;
	}
	printf("step event: %s on %s\n", rdma_event_str(ev->event), ev->id == id ? "the bound id" : "another id");
	rdma_ack_cm_event(ev);
	rdma_destroy_qp(id);
	printf("step destroy_qp: done\n");
	step("destroy_cq", ibv_destroy_cq(cq));
	step("dealloc_pd", ibv_dealloc_pd(pd));
	step("destroy_id", rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
	printf("step destroy_channel: done\n");
	return 0;
}

/* The verbs-only process: a context and CQ on rxe0 held across the
 * deletion (rxe tells it nothing; the deletion waits until it closes), then,
 * in the same process, rxe0 found and opened again once it is back. */
static int verbs_child(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL, *c2 = NULL;
	struct ibv_device_attr attr;
	struct ibv_cq *cq;
	int i, n, found = 0;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "rxe0"))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	cq = ctx ? ibv_create_cq(ctx, 8, NULL, NULL, 0) : NULL;
	if (!cq) {
		printf("setup failed: %s\n", strerror(errno));
		return 1;
	}
	tell(to_parent[1], 'v');
	if (hear(to_verbs[0], 60) != 'x')
		return 1;
	step("verbs_destroy_cq", ibv_destroy_cq(cq));
	step("verbs_close_device", ibv_close_device(ctx));
	tell(to_parent[1], 'c');
	if (hear(to_verbs[0], 60) != 'r')
		return 1;
	printf("step deleted: ok\nstep readded: ok\n");
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "rxe0")) {
			found = 1;
			c2 = ibv_open_device(list[i]);
		}
	ibv_free_device_list(list);
	printf("step found_again: %s\n", found ? "rxe0" : "not found");
	step("open_again", c2 ? 0 : -1);
	if (c2) {
		step("query_again", ibv_query_device(c2, &attr));
		step("close_again", ibv_close_device(c2));
	}
	return 0;
}

/* rxe0 as the VM's /init leaves it: port ACTIVE, the IPv4 GID and the
 * link-local one in its table. */
static int rxe0_ready(void)
{
	return !system("grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null && "
		       "g=$(cat /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null) && "
		       "echo \"$g\" | grep -q 'ffff:0a00:020f$' && echo \"$g\" | grep -q '^fe80:'");
}

static int wait_until(int (*cond)(void), int secs)
{
	int i;

	for (i = 0; i < secs * 10; i++) {
		if (cond())
			return 1;
		usleep(100000);
	}
	return 0;
}

static int rxe0_gone(void)
{
	return access("/sys/class/infiniband/rxe0", F_OK) != 0;
}

static int reap(pid_t pid, int secs)
{
	int st, i;

	for (i = 0; i < secs * 10; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(100000);
	}
	printf("a child hung: killed\n");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 1;
}

int main(void)
{
	pid_t cm, verbs, del = -1;
	int rc = 0, dst;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(to_parent) || pipe(to_child) || pipe(to_verbs)) {
		perror("pipe");
		return 1;
	}
	verbs = fork();
	if (verbs == 0)
		_exit(verbs_child());
	if (hear(to_parent[0], 30) != 'v') {
		printf("the verbs process did not start\n");
		rc = 1;
	}
	cm = fork();
	if (cm == 0)
		_exit(cm_child());
	if (!rc && hear(to_parent[0], 30) == 'd') {
		del = fork();
		if (del == 0) {
			execlp("rdma", "rdma", "link", "delete", "rxe0", (char *)NULL);
			_exit(127);
		}
		tell(to_child[1], 's');
		rc |= reap(cm, 30);
		cm = -1;
		tell(to_verbs[1], 'x');
		if (hear(to_parent[0], 30) == 'c' && waitpid(del, &dst, 0) == del && WIFEXITED(dst) &&
		    !WEXITSTATUS(dst) && wait_until(rxe0_gone, 30)) {
			del = -1;
			if (!system("rdma link add rxe0 type rxe netdev eth0") && wait_until(rxe0_ready, 30))
				tell(to_verbs[1], 'r');
			else
				printf("rxe0 could not be added back\n");
		} else {
			printf("the deletion did not finish\n");
		}
	}
	if (cm > 0)
		rc |= reap(cm, 30);
	rc |= reap(verbs, 30);
	if (del > 0)
		waitpid(del, &dst, 0);
	/* Leave the VM as it was: the next run (the other library) starts
	 * from the same state. */
	if (rxe0_gone() && system("rdma link add rxe0 type rxe netdev eth0"))
		rc = 1;
	if (!wait_until(rxe0_ready, 30)) {
		printf("rxe0 was not restored\n");
		rc = 1;
	}
	printf("exit %d\n", rc);
	return rc;
}
