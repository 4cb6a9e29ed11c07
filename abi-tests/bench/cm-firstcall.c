/*
 * cm-firstcall: how long librdmacm's first calls take in a fresh process,
 * against the same calls made a second time. cmtime's create_id and
 * resolve_addr steps include a one-time cost (the first ADDR_RESOLVED event
 * opens the device); this separates it from the per-call cost.
 *
 *   cm-firstcall DST_ADDR
 *   cm-firstcall --loop N
 *   cm-firstcall --resolve N spin|join DST_ADDR
 *
 * Prints one line of microseconds (CLOCK_MONOTONIC): "channel" for
 * rdma_create_event_channel, then for two ids in turn "createN" for
 * rdma_create_id, "callN" for rdma_resolve_addr and "eventN" for the wait
 * in rdma_get_cm_event until its ADDR_RESOLVED (for N = 1, the event whose
 * processing opens the device). Exit 0 on success.
 *
 * With --loop N it does what cmtime's create_id step does instead: right
 * after the channel, N rdma_create_id calls in a row, each timed; it prints
 * "channel", "loop_total" (all N), "loop_first", "loop_min" and
 * "loop_median" (per call), then destroys the ids.
 *
 * With --resolve it does what cmtime's resolve_addr step does: N ids, an
 * event thread taking the events, the main thread issuing N
 * rdma_resolve_addr and then waiting for the N ADDR_RESOLVED (spinning in
 * sched_yield like cmtime, or blocked in pthread_join); it prints "issue"
 * (the N calls), "first_event" (step start to the first ADDR_RESOLVED, whose
 * processing opens the device), "all_events" (the step) and "first_faults"
 * (minor page faults of the event thread while it took the first event).
 *
 * With --gai it times what perftest's UD server does after its first CM id:
 * a passive AF_INET UDP rdma_getaddrinfo(NULL, "18515"), three times; it
 * prints "gai1", "gai2" and "gai3". glibc's own getaddrinfo runs once
 * before ("libc_warmup"), so that its first-call set-up is not in gai1.
 * Under TCG, gai1 is mostly QEMU translating the code the call runs for the
 * first time in the process (docs/benchmarks.md, cm-firstcall).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <rdma/rdma_cma.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* One id: create, resolve, wait for the event; times into t[0..2]. */
static void resolve_one(struct rdma_event_channel *ch, struct sockaddr_in *dst, double *t)
{
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	double t0 = now_us(), t1, t2;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	t1 = now_us();
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, 2000))
		die("rdma_resolve_addr");
	t2 = now_us();
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	t[2] = now_us() - t2;
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
		fprintf(stderr, "event %s\n", rdma_event_str(ev->event));
		exit(1);
	}
	rdma_ack_cm_event(ev);
	t[0] = t1 - t0;
	t[1] = t2 - t1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* cmtime's create_id step: n ids in a row on a fresh channel. */
static int create_loop(int n)
{
	struct rdma_cm_id **ids = calloc(n, sizeof(*ids));
	double *t = calloc(n, sizeof(*t));
	double t0, t1, total, first;

	if (!ids || !t)
		die("calloc");
	t0 = now_us();
	struct rdma_event_channel *ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	t1 = now_us();
	double start = t1;
	for (int i = 0; i < n; i++) {
		double s = now_us();
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP))
			die("rdma_create_id");
		t[i] = now_us() - s;
	}
	total = now_us() - start;
	first = t[0];
	qsort(t, n, sizeof(*t), cmp_double);
	printf("channel %.0f loop_total %.0f loop_first %.1f loop_min %.1f loop_median %.1f\n",
	       t1 - t0, total, first, t[0], t[n / 2]);
	for (int i = 0; i < n; i++)
		rdma_destroy_id(ids[i]);
	rdma_destroy_event_channel(ch);
	return 0;
}

/*
 * cmtime's resolve_addr step: n ids, an event thread taking the events (as
 * cmtime's process_events), the main thread issuing n rdma_resolve_addr and
 * then waiting for all n ADDR_RESOLVED, spinning in sched_yield as cmtime
 * does (spin) or blocked in pthread_join. The first event opens the device.
 */
static struct rdma_event_channel *rch;
static volatile int resolved;
static double step_start, first_event;
static long first_faults;

/* Minor page faults of the calling thread so far. */
static long thread_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}
static int want;

static void *event_thread(void *arg)
{
	struct rdma_cm_event *ev;

	(void) arg;
	while (resolved < want) {
		long f0 = thread_minflt();

		if (rdma_get_cm_event(rch, &ev))
			die("rdma_get_cm_event");
		if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
			fprintf(stderr, "event %s\n", rdma_event_str(ev->event));
			exit(1);
		}
		if (!resolved) {
			first_event = now_us() - step_start;
			first_faults = thread_minflt() - f0;
		}
		rdma_ack_cm_event(ev);
		__atomic_add_fetch(&resolved, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static int resolve_step(int n, int spin, struct sockaddr_in *dst)
{
	struct rdma_cm_id **ids = calloc(n, sizeof(*ids));
	pthread_t th;
	double issued, total;

	if (!ids)
		die("calloc");
	rch = rdma_create_event_channel();
	if (!rch)
		die("rdma_create_event_channel");
	for (int i = 0; i < n; i++)
		if (rdma_create_id(rch, &ids[i], NULL, RDMA_PS_TCP))
			die("rdma_create_id");
	want = n;
	if (pthread_create(&th, NULL, event_thread, NULL))
		die("pthread_create");
	step_start = now_us();
	for (int i = 0; i < n; i++)
		if (rdma_resolve_addr(ids[i], NULL, (struct sockaddr *)dst, 2000))
			die("rdma_resolve_addr");
	issued = now_us() - step_start;
	if (spin)
		while (__atomic_load_n(&resolved, __ATOMIC_SEQ_CST) < n)
			sched_yield();
	pthread_join(th, NULL);
	total = now_us() - step_start;
	printf("issue %.0f first_event %.0f all_events %.0f first_faults %ld\n", issued, first_event,
	       total, first_faults);
	return 0;
}

/* perftest's UD server: passive UDP rdma_getaddrinfo after a CM id exists. */
static int gai_first(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;
	struct addrinfo h0 = { .ai_flags = AI_PASSIVE, .ai_family = AF_INET }, *r0;
	double t0, warm, g[3];

	if (!ch)
		die("rdma_create_event_channel");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		die("rdma_create_id");
	t0 = now_us();
	if (getaddrinfo(NULL, "18516", &h0, &r0) == 0)
		freeaddrinfo(r0);
	warm = now_us() - t0;
	for (int i = 0; i < 3; i++) {
		struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_family = AF_INET,
					       .ai_qp_type = IBV_QPT_UD, .ai_port_space = RDMA_PS_UDP };
		struct rdma_addrinfo *res;

		t0 = now_us();
		if (rdma_getaddrinfo(NULL, "18515", &hints, &res))
			die("rdma_getaddrinfo");
		g[i] = now_us() - t0;
		rdma_freeaddrinfo(res);
	}
	printf("libc_warmup %.0f gai1 %.0f gai2 %.0f gai3 %.0f\n", warm, g[0], g[1], g[2]);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	double t0, t1, a[3], b[3];

	if (argc == 2 && !strcmp(argv[1], "--gai"))
		return gai_first();
	if (argc == 3 && !strcmp(argv[1], "--loop") && atoi(argv[2]) > 0)
		return create_loop(atoi(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "--resolve") && atoi(argv[2]) > 0 &&
	    (!strcmp(argv[3], "spin") || !strcmp(argv[3], "join")) &&
	    inet_pton(AF_INET, argv[4], &dst.sin_addr) == 1)
		return resolve_step(atoi(argv[2]), !strcmp(argv[3], "spin"), &dst);
	if (argc != 2 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: %s DST_ADDR | --loop N | --resolve N spin|join DST_ADDR | --gai\n", argv[0]);
		return 2;
	}
	t0 = now_us();
	struct rdma_event_channel *ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	t1 = now_us();
	resolve_one(ch, &dst, a);
	resolve_one(ch, &dst, b);
	printf("channel %.0f create1 %.0f call1 %.0f event1 %.0f create2 %.0f call2 %.0f event2 %.0f\n",
	       t1 - t0, a[0], a[1], a[2], b[0], b[1], b[2]);
	return 0;
}
