/*
 * rs_signals.c: blocking calls of the libraries under a signal every
 * millisecond (SIGALRM from a timer aimed at the main thread, which makes
 * every wait below; the handler only counts).
 *
 *   rs_signals ADDR PORT [restart]
 *
 * ADDR is a local address on an RDMA device (10.0.2.15 on rxe0). Without
 * "restart" the handler is installed without SA_RESTART, so a blocking
 * system call the library makes returns EINTR; with it, the kernel restarts
 * what it can. Each wait is retried on EINTR, as applications do, and each
 * line says how the waits ended and whether anything was lost:
 *
 * 1. rdma_get_cm_event, blocked until another thread resolves an address:
 *    the event (ADDR_RESOLVED) arrives, once.
 * 2. raccept, blocked until another thread connects (rsockets, loopback
 *    through the device).
 * 3. rpoll for input, blocked until the peer sends.
 * 4. rrecv of 256 KiB that the peer sends in 4 KiB pieces with pauses
 *    between them: every byte arrives, in order (a counter pattern).
 *
 * For each wait the line says whether it was interrupted (returned EINTR
 * at least once): upstream's behaviour, which ours must match. The line is
 * "interrupted" or "never interrupted", not a count: how many signals land
 * inside a wait is timing. A wait that has not ended after 30 s is
 * reported ("stuck in ...") and ends the program (exit 3): a hang.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#define XFER (256 * 1024)
#define PIECE 4096

static volatile sig_atomic_t ticks;
static struct sockaddr_in addr;
static const char *volatile waiting_in = "setup";
static volatile int progress;

/* Ends the program when one wait takes 30 s (this thread never gets the
 * signal: the timer is aimed at the main thread). */
static void *watchdog(void *arg)
{
	int last = -1, still = 0;

	(void)arg;
	for (;;) {
		sleep(1);
		if (progress != last) {
			last = progress;
			still = 0;
		} else if (++still == 30) {
			printf("stuck in %s for 30 s\n", waiting_in);
			fflush(stdout);
			_exit(3);
		}
	}
	return NULL;
}

static void waiting(const char *what)
{
	waiting_in = what;
	progress++;
}

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static void pause_ms(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

static const char *said(int interrupted)
{
	return interrupted ? "interrupted" : "never interrupted";
}

/* 1. rdma_get_cm_event */
static struct rdma_cm_id *resolve_id;

static void *resolve_later(void *arg)
{
	struct sockaddr_in dst = addr;

	(void)arg;
	pause_ms(200);
	dst.sin_port = 0;
	if (rdma_resolve_addr(resolve_id, NULL, (struct sockaddr *)&dst, 2000))
		fprintf(stderr, "rdma_resolve_addr: %s\n", strerror(errno));
	return NULL;
}

static void cm_event_case(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	int intr = 0, ret;
	pthread_t t;

	if (!ch || rdma_create_id(ch, &resolve_id, NULL, RDMA_PS_TCP)) {
		printf("rdma_get_cm_event: setup failed: %s\n", strerror(errno));
		return;
	}
	pthread_create(&t, NULL, resolve_later, NULL);
	waiting("rdma_get_cm_event");
	while ((ret = rdma_get_cm_event(ch, &ev)) && errno == EINTR)
		intr = 1;
	if (ret) {
		printf("rdma_get_cm_event: failed: %s\n", strerrorname_np(errno));
	} else {
		printf("rdma_get_cm_event: %s, then %s\n", said(intr), rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
	waiting("pthread_join of the resolving thread");
	pthread_join(t, NULL);
	waiting("rdma_destroy_id");
	rdma_destroy_id(resolve_id);
	waiting("rdma_destroy_event_channel");
	rdma_destroy_event_channel(ch);
}

/* 2-4. rsockets */
static void *connect_and_send(void *arg)
{
	unsigned char buf[PIECE];
	int s, i, off = 0, n;

	(void)arg;
	pause_ms(200);
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || rconnect(s, (struct sockaddr *)&addr, sizeof(addr))) {
		fprintf(stderr, "rconnect: %s\n", strerror(errno));
		return NULL;
	}
	/* Case 3 waits for the first byte; case 4 for the rest. */
	pause_ms(200);
	while (off < XFER) {
		for (i = 0; i < PIECE; i++)
			buf[i] = (unsigned char)((off + i) * 7 + 3);
		n = rsend(s, buf, PIECE, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "rsend: %s\n", strerror(errno));
			break;
		}
		off += n;
		if ((off / PIECE) % 8 == 0)
			pause_ms(20);
	}
	/* The receiver closes first. */
	pause_ms(500);
	rclose(s);
	return NULL;
}

static void rsocket_cases(void)
{
	int l, c = -1, intr, ret, got = 0, bad = 0, i;
	unsigned char buf[PIECE * 2];
	struct pollfd pfd;
	pthread_t t;
	int one = 1;

	waiting("rsocket");
	l = rsocket(AF_INET, SOCK_STREAM, 0);
	rsetsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	waiting("rbind");
	if (l < 0 || rbind(l, (struct sockaddr *)&addr, sizeof(addr)) || (waiting("rlisten"), rlisten(l, 1))) {
		printf("rsockets: setup failed: %s\n", strerror(errno));
		return;
	}
	pthread_create(&t, NULL, connect_and_send, NULL);

	intr = 0;
	waiting("raccept");
	while ((c = raccept(l, NULL, NULL)) < 0 && errno == EINTR)
		intr = 1;
	if (c < 0)
		printf("raccept: failed: %s\n", strerrorname_np(errno));
	else
		printf("raccept: %s, then a connection\n", said(intr));

	if (c >= 0) {
		intr = 0;
		pfd.fd = c;
		pfd.events = POLLIN;
		waiting("rpoll");
		while ((ret = rpoll(&pfd, 1, -1)) < 0 && errno == EINTR)
			intr = 1;
		printf("rpoll: %s, then %s\n", said(intr),
		       ret == 1 && (pfd.revents & POLLIN) ? "input ready" : "something else");

		intr = 0;
		waiting("rrecv");
		while (got < XFER) {
			ret = rrecv(c, buf, sizeof(buf), 0);
			progress++;
			if (ret < 0 && errno == EINTR) {
				intr = 1;
				continue;
			}
			if (ret <= 0)
				break;
			for (i = 0; i < ret; i++)
				if (buf[i] != (unsigned char)((got + i) * 7 + 3))
					bad++;
			got += ret;
		}
		printf("rrecv: %s; %d of %d bytes, %s\n", said(intr), got, XFER,
		       bad ? "some wrong" : "all in order");
		rclose(c);
	}
	pthread_join(t, NULL);
	rclose(l);
}

int main(int argc, char **argv)
{
	struct itimerspec it = { { 0, 1000000 }, { 0, 1000000 } };
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };
	struct sigevent sev;
	struct sigaction sa;
	timer_t timer;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: rs_signals ADDR PORT [restart]\n");
		return 2;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons(atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", argv[1]);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = argc > 3 && !strcmp(argv[3], "restart") ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	printf("SIGALRM every millisecond, %s\n", sa.sa_flags ? "SA_RESTART" : "no SA_RESTART");
	{
		pthread_t w;
		sigset_t all, old;

		/* The watchdog and the helpers never take SIGALRM. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		pthread_create(&w, NULL, watchdog, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	/* Aimed at this thread: a process-wide signal could land on any
	 * thread, the library's own included. */
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) || timer_settime(timer, 0, &it, NULL)) {
		fprintf(stderr, "timer: %s\n", strerror(errno));
		return 1;
	}

	cm_event_case();
	rsocket_cases();

	timer_settime(timer, 0, &off, NULL);
	timer_delete(timer);
	printf("signals delivered: %s\n", ticks > 100 ? "many" : "few");
	return 0;
}
