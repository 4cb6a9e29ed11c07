/*
 * rs_dgram_pair: datagram rsockets moving checked bytes between two
 * processes, so that each side can run on a different librdmacm (a `pair`
 * scenario: ours against upstream's, both ways).
 *
 *   rs_dgram_pair server ADDR PORT
 *   rs_dgram_pair client ADDR PORT [COUNT [LIMIT]]
 *
 * The server binds a datagram rsocket to ADDR:PORT, the client one to
 * ADDR:PORT+1. For each size (1, 7, 8, 64, 100, 512, 1000 where below
 * LIMIT, then LIMIT; default COUNT 100, LIMIT 1016, the largest IPv4 payload
 * on a 1024-byte RoCE MTU) the client sends COUNT datagrams one at a time,
 * each filled with dgram_xfer.h's pattern; the server checks each one of 8
 * bytes or more (length, seq and every byte), counts the ones that come
 * from another address than the client's, and sends it back to the address
 * rrecvfrom reported; the client checks every echo (length, every byte, and
 * that it comes from the server's address). A 4-byte "STOP" ends the
 * server, which echoes it and prints its counts.
 *
 * Output: one line per size from the client, then "result: ok" (exit 0) or
 * "result: BAD" (exit 1); the server's one summary line and its own result.
 * Nothing in it depends on timing, so both sides print the same with either
 * library as long as nothing is lost. A receive waits at most 5 s, and the
 * server gives up after 60 s without a datagram, so a run never hangs.
 */
#define PROG "rs_dgram_pair"
#include "dgram_xfer.h"

static const char stop[4] = { 'S', 'T', 'O', 'P' };

static int server(const char *addr, int port)
{
	struct sockaddr_storage client, from;
	unsigned char rb[MAXLEN + 64];
	long got = 0, checked = 0, corrupt = 0, shortd = 0, wrong_src = 0, disorder = 0;
	uint32_t last_seq = 0;
	int b = sock(addr, port), idle = 0, any = 0, bad;
	socklen_t clen = parse(addr, port + 1, &client);

	for (;;) {
		long r = recv_wait(b, rb, &from);

		if (r == -2 && ++idle < 12)
			continue;
		if (r < 0) {
			printf("server: %s after %ld datagrams\nresult: BAD\n",
			       r == -2 ? "nothing for 60 s" : strerror(errno), got);
			return 1;
		}
		idle = 0;
		if (!same_addr(&from, &client))
			wrong_src++;
		if (r == sizeof stop && !memcmp(rb, stop, sizeof stop)) {
			if (rsendto(b, rb, r, 0, (struct sockaddr *) &from, clen) != r)
				printf("server: echo of STOP: %s\n", strerror(errno));
			break;
		}
		got++;
		if (r < 8) {
			shortd++;
		} else {
			uint32_t seq, size;

			memcpy(&seq, rb, 4);
			memcpy(&size, rb + 4, 4);
			if (!check(rb, r, seq, size)) {
				corrupt++;
			} else {
				checked++;
				if (any && seq <= last_seq)
					disorder++;
				any = 1;
				last_seq = seq;
			}
		}
		if (rsendto(b, rb, r, 0, (struct sockaddr *) &from, clen) != r) {
			printf("server: echo rsendto of %ld bytes: %s\nresult: BAD\n", r, strerror(errno));
			return 1;
		}
	}
	printf("server: received %ld datagrams: %ld checked ok, %ld corrupted, %ld too short to check; "
	       "out of order %ld; from another address %ld\n",
	       got, checked, corrupt, shortd, disorder, wrong_src);
	bad = corrupt || disorder || wrong_src;
	printf("result: %s\n", bad ? "BAD" : "ok");
	rclose(b);
	return bad;
}

static int client(const char *addr, int port, int count, uint32_t limit)
{
	unsigned char buf[MAXLEN + 64], rb[MAXLEN + 64];
	struct sockaddr_storage srv, from;
	socklen_t slen = parse(addr, port, &srv);
	uint32_t sizes[8], nsizes, seq = 0;
	int a = sock(addr, port + 1), bad = 0, s, k;
	long r;

	nsizes = test_sizes(limit, sizes);
	for (s = 0; s < (int) nsizes; s++) {
		uint32_t size = sizes[s];
		int ok = 0, lost = 0, corrupt = 0, wrong_src = 0;

		for (k = 0; k < count; k++, seq++) {
			fill(buf, seq, size);
			if (rsendto(a, buf, size, 0, (struct sockaddr *) &srv, slen) != (ssize_t) size) {
				printf("rsendto size %u: %s\nresult: BAD\n", size, strerror(errno));
				return 1;
			}
			r = recv_wait(a, rb, &from);
			if (r < 0) {
				lost++;
				continue;
			}
			if (!same_addr(&from, &srv))
				wrong_src++;
			if (check(rb, r, seq, size))
				ok++;
			else
				corrupt++;
		}
		printf("size %4u: sent %d echoed ok %d lost %d corrupted %d from another address %d\n",
		       size, count, ok, lost, corrupt, wrong_src);
		if (ok != count || wrong_src)
			bad = 1;
	}
	if (rsendto(a, stop, sizeof stop, 0, (struct sockaddr *) &srv, slen) != sizeof stop) {
		printf("rsendto STOP: %s\n", strerror(errno));
		bad = 1;
	} else {
		r = recv_wait(a, rb, &from);
		printf("STOP echoed: %s\n",
		       r == sizeof stop && !memcmp(rb, stop, sizeof stop) ? "yes" : "no");
		if (r != sizeof stop)
			bad = 1;
	}
	rclose(a);
	printf("result: %s\n", bad ? "BAD" : "ok");
	return bad;
}

int main(int argc, char **argv)
{
	int count, port;
	uint32_t limit;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "server")) {
		port = atoi(argv[3]);
		return server(argv[2], port);
	}
	if (argc >= 4 && !strcmp(argv[1], "client")) {
		port = atoi(argv[3]);
		count = argc > 4 ? atoi(argv[4]) : 100;
		limit = argc > 5 ? (uint32_t) atoi(argv[5]) : 1016;
		if (count < 1 || limit < 8 || limit > MAXLEN) {
			fprintf(stderr, "COUNT must be at least 1 and LIMIT 8..%d\n", MAXLEN);
			return 2;
		}
		return client(argv[2], port, count, limit);
	}
	fprintf(stderr, "usage: rs_dgram_pair server ADDR PORT\n"
			"       rs_dgram_pair client ADDR PORT [COUNT [LIMIT]]\n");
	return 2;
}
