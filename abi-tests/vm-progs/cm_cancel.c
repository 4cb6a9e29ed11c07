/*
 * cm_cancel: pthread_cancel of a thread blocked in a library call, as
 * applications do to stop their event threads (rping cancels its CQ thread
 * when an accept fails). With upstream's libraries the blocking read or
 * write inside the call is a cancellation point: the thread ends with
 * PTHREAD_CANCELED and the process goes on. Each case prints whether the
 * thread was cancelled, then the process uses the library again (new CQ
 * event, new CM id and event) to show it still works.
 *
 * Cases: ibv_get_cq_event, ibv_get_async_event, rdma_get_cm_event,
 * a synchronous rdma_resolve_addr (no event channel: the call waits for
 * its own event) to an address nobody answers, raccept on a listening
 * rsocket, and rpoll on it.
 * Usage: cm_cancel [ADDR] (an address of the rxe device, default 10.0.2.15)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "cancel_case.h"

static struct ibv_context *ctx;
static struct ibv_comp_channel *chan;
static struct ibv_cq *cq;
static struct rdma_event_channel *ech;
static int lfd = -1;
static struct sockaddr_in self;

static void *cq_wait(void *a)
{
	struct ibv_cq *c;
	void *cc;
	(void)a;
	ibv_get_cq_event(chan, &c, &cc);
	return (void *)1;
}

static void *async_wait(void *a)
{
	struct ibv_async_event ev;
	(void)a;
	ibv_get_async_event(ctx, &ev);
	return (void *)1;
}

static void *cm_wait(void *a)
{
	struct rdma_cm_event *ev;
	(void)a;
	rdma_get_cm_event(ech, &ev);
	return (void *)1;
}

static void *sync_resolve(void *a)
{
	struct rdma_cm_id *id;
	struct sockaddr_in dst = { .sin_family = AF_INET };
	(void)a;
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return (void *)2;
	/* The id stays behind: a cancelled thread does not clean up. */
	inet_pton(AF_INET, "10.0.2.99", &dst.sin_addr);
	rdma_resolve_addr(id, (struct sockaddr *)&self, (struct sockaddr *)&dst, 20000);
	return (void *)1;
}

static void *accept_wait(void *a)
{
	(void)a;
	raccept(lfd, NULL, NULL);
	return (void *)1;
}

static void *poll_wait(void *a)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	(void)a;
	rpoll(&p, 1, -1);
	return (void *)1;
}

int main(int argc, char **argv)
{
	int n;
	setvbuf(stdout, NULL, _IOLBF, 0);
	self.sin_family = AF_INET;
	inet_pton(AF_INET, argc > 1 ? argv[1] : "10.0.2.15", &self.sin_addr);

	struct ibv_device **l = ibv_get_device_list(&n);
	if (!l || !n) {
		printf("no device\n");
		return 1;
	}
	ctx = ibv_open_device(l[0]);
	chan = ibv_create_comp_channel(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, chan, 0);
	ech = rdma_create_event_channel();
	if (!ctx || !chan || !cq || !ech) {
		printf("setup failed\n");
		return 1;
	}
	ibv_req_notify_cq(cq, 0);

	cancel_case("ibv_get_cq_event", cq_wait);
	cancel_case("ibv_get_async_event", async_wait);
	cancel_case("rdma_get_cm_event", cm_wait);
	cancel_case("sync rdma_resolve_addr", sync_resolve);

	lfd = rsocket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in la = self;
	la.sin_port = htons(7483);
	if (lfd < 0 || rbind(lfd, (struct sockaddr *)&la, sizeof(la)) || rlisten(lfd, 2)) {
		printf("rsocket listen failed: %s\n", strerror(errno));
		return 1;
	}
	cancel_case("raccept", accept_wait);
	cancel_case("rpoll", poll_wait);

	/* The libraries still work after the cancellations. */
	struct ibv_cq *cq2 = ibv_create_cq(ctx, 4, NULL, chan, 0);
	printf("after: ibv_create_cq %s\n", cq2 ? "ok" : "failed");
	struct rdma_cm_id *id;
	int r = rdma_create_id(ech, &id, NULL, RDMA_PS_TCP);
	printf("after: rdma_create_id %d\n", r);
	if (!r) {
		struct sockaddr_in dst = self;
		r = rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000);
		struct rdma_cm_event *ev = NULL;
		if (!r)
			r = rdma_get_cm_event(ech, &ev);
		printf("after: resolve_addr %d event %s\n", r, ev ? rdma_event_str(ev->event) : "-");
		if (ev)
			rdma_ack_cm_event(ev);
		printf("after: rdma_destroy_id %d\n", rdma_destroy_id(id));
	}
	printf("after: rclose listener %d\n", rclose(lfd));
	if (cq2)
		ibv_destroy_cq(cq2);
	printf("done\n");
	return 0;
}
