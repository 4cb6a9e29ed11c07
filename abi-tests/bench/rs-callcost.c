/*
 * rs-callcost: what one rsockets call costs, on a connected stream rsocket,
 * for whichever librdmacm.so.1 the dynamic linker picks. Small transfers
 * are where rstream shows ours slower; this takes them apart.
 *
 *   rs-callcost ADDR PORT [IDLE [PINGS [SIZE]]]
 *
 * The process forks: the child listens on ADDR:PORT and echoes, the parent
 * connects and measures (CLOCK_MONOTONIC, one batch between two clock
 * reads, no timer inside):
 *   idle_rrecv_ns   rrecv(MSG_DONTWAIT) on a socket with nothing to read
 *                   (EAGAIN), IDLE calls (default 20000): the pure cost of a
 *                   call that polls the completion queue and finds nothing,
 *                   which is what a spinning receiver repeats;
 *   spin_rtt_us     PINGS (default 2000) round trips of SIZE bytes (default
 *                   64, at most 65536): rsend, then rrecv(MSG_DONTWAIT)
 *                   until the SIZE bytes are back
 *                   (the echo side does the same), as rstream's default
 *                   mode does;
 *   spin_polls      the EAGAIN rrecv calls per round trip in that loop;
 *   block_rtt_us    PINGS round trips of SIZE bytes with blocking calls.
 * Every echoed byte is checked. Prints "lib PATH" (the library really
 * loaded) and "NAME value" lines; exit 0 on success.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rsocket.h>

#define MAXMSG 65536
static size_t msg = 64;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(1);
}

/* Sends all of buf (blocking socket). */
static void send_all(int fd, const unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t n = rsend(fd, buf, len, 0);

		if (n <= 0)
			die("rsend");
		buf += n;
		len -= n;
	}
}

/* Receives exactly len bytes, spinning on MSG_DONTWAIT when spin; returns
 * the number of EAGAIN calls. */
static long recv_all(int fd, unsigned char *buf, size_t len, int spin)
{
	long polls = 0;

	while (len) {
		ssize_t n = rrecv(fd, buf, len, spin ? MSG_DONTWAIT : 0);

		if (n < 0 && spin && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			polls++;
			continue;
		}
		if (n <= 0) {
			if (n == 0)
				errno = ECONNRESET;
			die("rrecv");
		}
		buf += n;
		len -= n;
	}
	return polls;
}

/* Each side spins on its own CPU when there are two (ignored otherwise). */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void serve(struct sockaddr_in *sin, long pings, int ready)
{
	int lfd = rsocket(AF_INET, SOCK_STREAM, 0), fd, one = 1;
	static unsigned char buf[MAXMSG];

	if (lfd < 0)
		die("server rsocket");
	rsetsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (rbind(lfd, (struct sockaddr *)sin, sizeof(*sin)))
		die("rbind");
	if (rlisten(lfd, 1))
		die("rlisten");
	if (write(ready, "r", 1) != 1)
		die("ready pipe");
	fd = raccept(lfd, NULL, NULL);
	if (fd < 0)
		die("raccept");
	rsetsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (int spin = 1; spin >= 0; spin--) {
		for (long i = 0; i < pings; i++) {
			recv_all(fd, buf, msg, spin);
			send_all(fd, buf, msg);
		}
	}
	/* Wait for the client's close (rrecv returns 0). */
	if (rrecv(fd, buf, 1, 0) != 0)
		die("final rrecv");
	rclose(fd);
	rclose(lfd);
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s ADDR PORT [IDLE [PINGS [SIZE]]]\n", argv[0]);
		return 2;
	}
	long idle = argc > 3 ? atol(argv[3]) : 20000;
	long pings = argc > 4 ? atol(argv[4]) : 2000;
	if (argc > 5)
		msg = strtoul(argv[5], NULL, 0);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[2])) };
	Dl_info info;
	int p[2], one = 1;
	char c;

	if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1 || idle < 1 || pings < 1 || msg < 1 || msg > MAXMSG)
		return 2;
	if (dladdr((void *)rrecv, &info) && info.dli_fname)
		printf("lib %s\n", info.dli_fname);
	fflush(stdout);
	if (pipe(p))
		die("pipe");
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(p[0]);
		pin(0);
		serve(&sin, pings, p[1]);
	}
	close(p[1]);
	pin(1);
	if (read(p[0], &c, 1) != 1) {
		fprintf(stderr, "server did not start\n");
		return 1;
	}

	int fd = rsocket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("rsocket");
	rsetsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (rconnect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		die("rconnect");

	static unsigned char out[MAXMSG], in[MAXMSG];
	double t0, t1;

	t0 = now_ns();
	for (long i = 0; i < idle; i++) {
		if (rrecv(fd, in, msg, MSG_DONTWAIT) != -1 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
			fprintf(stderr, "idle rrecv: expected EAGAIN, got errno %d\n", errno);
			return 1;
		}
	}
	t1 = now_ns();
	printf("idle_rrecv_ns %.1f\n", (t1 - t0) / idle);

	for (int spin = 1; spin >= 0; spin--) {
		long polls = 0;

		t0 = now_ns();
		for (long i = 0; i < pings; i++) {
			for (size_t j = 0; j < msg; j++)
				out[j] = (unsigned char)(i * 131 + j * 7 + spin);
			send_all(fd, out, msg);
			polls += recv_all(fd, in, msg, spin);
			if (memcmp(in, out, msg)) {
				fprintf(stderr, "round trip %ld: echoed bytes differ\n", i);
				return 1;
			}
		}
		t1 = now_ns();
		if (spin) {
			printf("spin_rtt_us %.2f\n", (t1 - t0) / pings / 1e3);
			printf("spin_polls %.1f\n", (double)polls / pings);
		} else {
			printf("block_rtt_us %.2f\n", (t1 - t0) / pings / 1e3);
		}
	}
	rclose(fd);
	int st;
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "server failed (status %#x)\n", st);
		return 1;
	}
	return 0;
}
