/*
 * dgram_xfer.h: what rs_dgram_xfer.c and rs_dgram_pair.c share: the
 * datagram pattern (a byte function of sequence number, size and offset,
 * with seq and size in the first 8 bytes when they fit), its check, address
 * parsing and comparison, a receive that waits at most 5 s, a bound
 * datagram rsocket and the list of sizes to test. PROG names the program
 * in error messages.
 */
#ifndef DGRAM_XFER_H
#define DGRAM_XFER_H
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <rdma/rsocket.h>

#ifndef PROG
#error "define PROG before including dgram_xfer.h"
#endif

#define MAXLEN 2040	/* a 2048-byte slot minus the 8-byte IPv4 ds header */

static inline unsigned char pat(uint32_t seq, uint32_t size, uint32_t i)
{
	return (unsigned char) (seq * 131u + i * 7u + size * 3u + 1u);
}

/* seq and size in the first 8 bytes when they fit, then the pattern. */
static inline void fill(unsigned char *b, uint32_t seq, uint32_t size)
{
	uint32_t i;

	for (i = 0; i < size; i++)
		b[i] = pat(seq, size, i);
	if (size >= 8) {
		memcpy(b, &seq, 4);
		memcpy(b + 4, &size, 4);
	}
}

static inline int check(const unsigned char *b, long len, uint32_t seq, uint32_t size)
{
	unsigned char want[MAXLEN];

	if (len != (long) size)
		return 0;
	fill(want, seq, size);
	return !memcmp(b, want, size);
}

/* ADDR:PORT as a socket address (IPv4 or IPv6); its length, 0 if invalid. */
static inline socklen_t parse(const char *addr, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *) ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) ss;

	memset(ss, 0, sizeof *ss);
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return sizeof *sin;
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return sizeof *sin6;
	}
	return 0;
}

/* Same family, port and address. */
static inline int same_addr(const struct sockaddr_storage *x, const struct sockaddr_storage *y)
{
	const struct sockaddr_in *a = (const void *) x, *b = (const void *) y;
	const struct sockaddr_in6 *a6 = (const void *) x, *b6 = (const void *) y;

	if (x->ss_family != y->ss_family)
		return 0;
	if (x->ss_family == AF_INET)
		return a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr;
	return a6->sin6_port == b6->sin6_port &&
	       !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof a6->sin6_addr);
}

static inline long recv_wait(int fd, unsigned char *b, struct sockaddr_storage *from)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	socklen_t fl = sizeof *from;
	int r = rpoll(&p, 1, 5000);

	if (r <= 0)
		return r == 0 ? -2 : -1;
	return rrecvfrom(fd, b, MAXLEN + 64, 0, (struct sockaddr *) from, &fl);
}

static inline int sock(const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = parse(addr, port, &ss);
	int fd;

	if (!len) {
		fprintf(stderr, PROG ": bad address %s\n", addr);
		exit(2);
	}
	fd = rsocket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("rsocket");
		exit(2);
	}
	if (rbind(fd, (struct sockaddr *) &ss, len)) {
		perror("rbind");
		exit(2);
	}
	return fd;
}

/* The sizes to test up to LIMIT: 1, 7, 8, 64, 100, 512 and 1000 where below
 * it, then LIMIT itself, into SIZES (room for 8); returns how many. */
static inline uint32_t test_sizes(uint32_t limit, uint32_t sizes[8])
{
	static const uint32_t base[] = { 1, 7, 8, 64, 100, 512, 1000 };
	uint32_t s, n = 0;

	for (s = 0; s < sizeof base / sizeof base[0]; s++)
		if (base[s] < limit)
			sizes[n++] = base[s];
	sizes[n++] = limit;
	return n;
}

#endif
