/*
 * epoll_xfer: an ordinary epoll event-loop TCP program (nonblocking sockets
 * driven by epoll_wait / epoll_pwait), for testing the epoll path of our
 * librspreload: under the preload its sockets are rsockets, which the
 * kernel's epoll cannot watch.
 *
 *   epoll_xfer server PORT MODE [MIB]       receive MIB MiB (default 64)
 *   epoll_xfer client HOST PORT MODE [MIB]  send them
 *
 * MODE is the epoll flavour for the sockets: lt (level-triggered: one read
 * or write per reported event, so readiness must be reported again while
 * data remains), et (EPOLLET: read or write until EAGAIN, as edge-triggered
 * programs must), oneshot (EPOLLONESHOT: drain, then EPOLL_CTL_MOD to
 * re-arm).
 *
 * The server's epoll instance also watches an eventfd, a kernel descriptor,
 * which the server itself signals after every 4 MiB received: the reports
 * of kernel descriptors and rsockets must come out of the same instance.
 * It watches the listening socket first (a connection shows as EPOLLIN),
 * then removes it (EPOLL_CTL_DEL) and watches the connection. The bytes are
 * xfer_stream.h's pattern, checked byte by byte; at the end the server sends
 * back its byte count and checksum, which the client compares with its own.
 * Each side prints deterministic lines only and exits 0 if all matched.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xfer_stream.h"

enum { TAG_LISTEN = 1, TAG_CONN = 2, TAG_EVENTFD = 3 };
#define KICK_EVERY (4u << 20)

static uint32_t mode_flags;
static int mode_lt;

static int set_mode(const char *m)
{
	if (!strcmp(m, "lt"))
		mode_lt = 1;
	else if (!strcmp(m, "et"))
		mode_flags = EPOLLET;
	else if (!strcmp(m, "oneshot"))
		mode_flags = EPOLLONESHOT;
	else
		return -1;
	return 0;
}

static int nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int watch(int ep, int op, int fd, uint32_t events, uint64_t tag)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };
	if (epoll_ctl(ep, op, fd, &ev)) {
		fprintf(stderr, "epoll_ctl(op %d, fd %d): %s\n", op, fd, strerror(errno));
		return -1;
	}
	return 0;
}

/* One wait; 0 events within 60 s is a failure (nothing may stall). */
static int wait_events(int ep, struct epoll_event *evs, int max, int use_pwait)
{
	int n;

	do {
		if (use_pwait) {
			sigset_t mask;
			sigemptyset(&mask);
			n = epoll_pwait(ep, evs, max, 60000, &mask);
		} else {
			n = epoll_wait(ep, evs, max, 60000);
		}
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		perror("epoll_wait");
	else if (n == 0)
		fprintf(stderr, "epoll_wait: nothing for 60 s\n");
	return n > 0 ? n : -1;
}

static int server(int port, uint64_t total)
{
	static unsigned char buf[256 * 1024], expect[256 * 1024];
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct epoll_event evs[4];
	uint64_t pos = 0, h = FNV_INIT, kicks = 0, kicks_seen = 0, next_kick = KICK_EVERY;
	uint64_t report[2];
	int one = 1, lfd, fd = -1, ep, efd, done = 0, eof = 0;
	size_t rep_off = 0;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(lfd, (struct sockaddr *)&sin, sizeof sin) || listen(lfd, 1) || nonblock(lfd)) {
		perror("server: socket/bind/listen");
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	efd = eventfd(0, EFD_NONBLOCK);
	if (ep < 0 || efd < 0) {
		perror("epoll_create1/eventfd");
		return 1;
	}
	if (watch(ep, EPOLL_CTL_ADD, lfd, EPOLLIN, TAG_LISTEN) ||
	    watch(ep, EPOLL_CTL_ADD, efd, EPOLLIN, TAG_EVENTFD))
		return 1;
	/* the same socket twice: EEXIST, as the kernel says */
	if (!epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &(struct epoll_event){ .events = EPOLLIN }) || errno != EEXIST) {
		fprintf(stderr, "server: second EPOLL_CTL_ADD: expected EEXIST\n");
		return 1;
	}

	while (!eof) {
		int n = wait_events(ep, evs, 4, 0);
		if (n < 0)
			return 1;
		for (int i = 0; i < n; i++) {
			uint64_t tag = evs[i].data.u64;

			if (tag == TAG_EVENTFD) {
				uint64_t v;
				if (read(efd, &v, sizeof v) == sizeof v)
					kicks_seen += v;
				continue;
			}
			if (tag == TAG_LISTEN) {
				if (fd >= 0) {
					fprintf(stderr, "server: listener reported after EPOLL_CTL_DEL\n");
					return 1;
				}
				fd = accept(lfd, NULL, NULL);
				if (fd < 0 || nonblock(fd) ||
				    watch(ep, EPOLL_CTL_DEL, lfd, 0, 0) ||
				    watch(ep, EPOLL_CTL_ADD, fd, EPOLLIN | mode_flags, TAG_CONN)) {
					perror("server: accept");
					return 1;
				}
				continue;
			}
			if (tag != TAG_CONN || !(evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
				fprintf(stderr, "server: unexpected event %#x tag %" PRIu64 "\n", evs[i].events, tag);
				return 1;
			}
			for (;;) {
				size_t want = done ? 1 : sizeof buf;
				ssize_t r;

				if (!done && want > total - pos)
					want = total - pos;
				r = read(fd, buf, want);
				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0 && errno == EAGAIN)
					break;
				if (r < 0) {
					perror("server: read");
					return 1;
				}
				if (r == 0) {
					if (!done) {
						fprintf(stderr, "server: end of stream after %" PRIu64 " bytes\n", pos);
						return 1;
					}
					eof = 1;
					break;
				}
				if (done) {
					fprintf(stderr, "server: data after the transfer\n");
					return 1;
				}
				fill(expect, pos, r);
				if (memcmp(buf, expect, r)) {
					printf("server: CORRUPT data at offset %" PRIu64 "\n", pos);
					return 1;
				}
				h = fnv(h, buf, r);
				pos += r;
				if (pos >= next_kick) {
					uint64_t one64 = 1;
					if (write(efd, &one64, sizeof one64) == sizeof one64)
						kicks++;
					next_kick += KICK_EVERY;
				}
				if (pos == total) {
					done = 1;
					report[0] = pos;
					report[1] = h;
					/* 16 bytes into an empty send buffer */
					while (rep_off < sizeof report) {
						ssize_t w = write(fd, (char *)report + rep_off, sizeof report - rep_off);
						if (w < 0 && (errno == EAGAIN || errno == EINTR))
							continue;
						if (w <= 0) {
							perror("server: write report");
							return 1;
						}
						rep_off += w;
					}
				}
				if (mode_lt)
					break;
			}
			if (mode_flags == EPOLLONESHOT && !eof &&
			    watch(ep, EPOLL_CTL_MOD, fd, EPOLLIN | EPOLLONESHOT, TAG_CONN))
				return 1;
		}
	}
	/* every kick was signalled before the report went out, and the client
	 * closes only after reading the report: each must have been reported
	 * by the time the end of the stream is */
	printf("server: received %" PRIu64 " bytes, pattern ok, checksum %016" PRIx64 "\n", pos, h);
	printf("server: eventfd signalled %" PRIu64 " times, epoll reported %s\n", kicks,
	       kicks_seen == kicks ? "all of them" : "a different count");
	if (close(fd) || close(lfd) || close(ep) || close(efd)) {
		perror("server: close");
		return 1;
	}
	return kicks_seen == kicks ? 0 : 1;
}

static int client(const char *host, int port, uint64_t total)
{
	static unsigned char buf[256 * 1024];
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct epoll_event evs[2];
	uint64_t pos = 0, h = FNV_INIT, report[2];
	size_t got = 0, pend_off = 0, pend_len = 0;
	unsigned step = 0;
	int fd, ep;

	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", host);
		return 2;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof sin) || nonblock(fd)) {
		perror("client: socket/connect");
		return 1;
	}
	ep = epoll_create1(0);
	if (ep < 0 || watch(ep, EPOLL_CTL_ADD, fd, EPOLLOUT | mode_flags, TAG_CONN))
		return 1;
	/* unknown descriptors: ENOENT for MOD and DEL, as the kernel says */
	if (!epoll_ctl(ep, EPOLL_CTL_DEL, 0, NULL) || (errno != ENOENT && errno != EPERM)) {
		fprintf(stderr, "client: EPOLL_CTL_DEL of stdin: unexpected success or errno\n");
		return 1;
	}
	while (pos < total || pend_off < pend_len) {
		int n = wait_events(ep, evs, 2, 1);
		if (n < 0)
			return 1;
		if (evs[0].data.u64 != TAG_CONN || !(evs[0].events & EPOLLOUT)) {
			fprintf(stderr, "client: unexpected event %#x\n", evs[0].events);
			return 1;
		}
		for (;;) {
			ssize_t w;

			if (pend_off == pend_len) {
				/* lengths from 1 byte to 256 KiB, not aligned to anything */
				size_t len = (size_t[]){ 65536, 1, 4093, 262144, 100, 131071, 7, 32768 }[step++ % 8];
				if (pos >= total)
					break;
				if (len > total - pos)
					len = total - pos;
				fill(buf, pos, len);
				h = fnv(h, buf, len);
				pos += len;
				pend_off = 0;
				pend_len = len;
			}
			w = write(fd, buf + pend_off, pend_len - pend_off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EAGAIN)
				break;
			if (w <= 0) {
				perror("client: write");
				return 1;
			}
			pend_off += w;
			if (mode_lt)
				break;
		}
		if (mode_flags == EPOLLONESHOT && (pos < total || pend_off < pend_len) &&
		    watch(ep, EPOLL_CTL_MOD, fd, EPOLLOUT | EPOLLONESHOT, TAG_CONN))
			return 1;
	}
	if (watch(ep, EPOLL_CTL_MOD, fd, EPOLLIN | mode_flags, TAG_CONN))
		return 1;
	while (got < sizeof report) {
		if (wait_events(ep, evs, 2, 0) < 0)
			return 1;
		for (;;) {
			ssize_t r = read(fd, (char *)report + got, sizeof report - got);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (r <= 0) {
				fprintf(stderr, "client: reading the report: %s\n", r ? strerror(errno) : "end of stream");
				return 1;
			}
			got += r;
			if (got == sizeof report)
				break;
		}
		if (mode_flags == EPOLLONESHOT && got < sizeof report &&
		    watch(ep, EPOLL_CTL_MOD, fd, EPOLLIN | EPOLLONESHOT, TAG_CONN))
			return 1;
	}
	if (report[0] != total || report[1] != h) {
		printf("client: MISMATCH: sent %" PRIu64 " bytes checksum %016" PRIx64
		       ", receiver reports %" PRIu64 " bytes checksum %016" PRIx64 "\n",
		       total, h, report[0], report[1]);
		return 1;
	}
	printf("client: sent %" PRIu64 " bytes, checksum %016" PRIx64 ", receiver agrees\n", total, h);
	if (close(fd) || close(ep)) {
		perror("client: close");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t mib = 64;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "server") && !set_mode(argv[3])) {
		if (argc > 4)
			mib = strtoull(argv[4], NULL, 0);
		return server(atoi(argv[2]), mib << 20);
	}
	if (argc >= 5 && !strcmp(argv[1], "client") && !set_mode(argv[4])) {
		if (argc > 5)
			mib = strtoull(argv[5], NULL, 0);
		return client(argv[2], atoi(argv[3]), mib << 20);
	}
	fprintf(stderr, "usage: epoll_xfer server PORT lt|et|oneshot [MIB] | client HOST PORT lt|et|oneshot [MIB]\n");
	return 2;
}
