/*
 * rs-pathcost: a paced 64-byte (or SIZE) ping-pong over a connected stream
 * rsocket, for counting the instructions of rsend and rrecv under callgrind
 * (rs-pathcost.sh). Each side sleeps before it receives, so that every
 * rrecv finds its data already completed and every rsend has credits: the
 * calls then take the same path every time, whatever the timing, and the
 * counts of the two libraries can be compared call for call.
 *
 *   rs-pathcost ADDR PORT PINGS [SIZE]
 *
 * Prints "ROLE retries N" per side (rrecv calls that still found nothing
 * and were repeated after another sleep; a few under valgrind).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <rdma/rsocket.h>

#define MAXMSG 65536
/* Long enough for the peer's reply to complete even under valgrind. */
#define PACE_US 15000

static size_t msg = 64;
static long retries;

static void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, strerror(errno));
	exit(1);
}

/* Sleeps, then receives msg bytes without waiting inside rrecv. */
static void get(int fd, unsigned char *buf)
{
	size_t got = 0;

	usleep(PACE_US);
	while (got < msg) {
		ssize_t n = rrecv(fd, buf + got, msg - got, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			retries++;
			usleep(PACE_US);
			continue;
		}
		if (n <= 0) {
			if (n == 0)
				errno = ECONNRESET;
			die("rrecv");
		}
		got += n;
	}
}

static void put(int fd, const unsigned char *buf)
{
	if (rsend(fd, buf, msg, 0) != (ssize_t)msg)
		die("rsend");
}

int main(int argc, char **argv)
{
	static unsigned char buf[MAXMSG];
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int one = 1, p[2], fd;
	long pings;
	char c;

	if (argc < 4) {
		fprintf(stderr, "usage: %s ADDR PORT PINGS [SIZE]\n", argv[0]);
		return 2;
	}
	sin.sin_port = htons(atoi(argv[2]));
	pings = atol(argv[3]);
	if (argc > 4)
		msg = strtoul(argv[4], NULL, 0);
	if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1 || pings < 1 || msg < 1 || msg > MAXMSG)
		return 2;
	if (pipe(p))
		die("pipe");
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		int lfd = rsocket(AF_INET, SOCK_STREAM, 0);

		if (lfd < 0)
			die("server rsocket");
		rsetsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (rbind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || rlisten(lfd, 1))
			die("rbind/rlisten");
		if (write(p[1], "r", 1) != 1)
			die("ready pipe");
		fd = raccept(lfd, NULL, NULL);
		if (fd < 0)
			die("raccept");
		rsetsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (long i = 0; i < pings; i++) {
			get(fd, buf);
			put(fd, buf);
		}
		/* The client's close. */
		if (rrecv(fd, buf, 1, 0) != 0)
			die("final rrecv");
		printf("server retries %ld\n", retries);
		rclose(fd);
		rclose(lfd);
		return 0;
	}
	if (read(p[0], &c, 1) != 1) {
		fprintf(stderr, "server did not start\n");
		return 1;
	}
	fd = rsocket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("rsocket");
	rsetsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (rconnect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		die("rconnect");
	memset(buf, 7, sizeof(buf));
	for (long i = 0; i < pings; i++) {
		put(fd, buf);
		get(fd, buf);
	}
	rclose(fd);
	int status;
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		die("server");
	printf("client retries %ld\n", retries);
	return 0;
}
