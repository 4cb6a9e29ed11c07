/*
 * rs_dgram_xfer: datagram rsockets moving checked bytes, in one process.
 *
 * Two datagram rsockets on ADDR: B bound to PORT, A bound to PORT+1.
 * 1. Echo: for each size, COUNT datagrams A -> B, one at a time; B checks
 *    each (length, seq, every byte against a pattern of seq and size) and
 *    sends it back to the address rrecvfrom reported; A checks the echo.
 * 2. Bursts: BURSTS times, A sends 16 datagrams of mixed sizes without
 *    waiting; B takes what arrives (5 s without one ends the burst) and
 *    counts each seq once: missing, duplicated, corrupted (bad bytes or
 *    length, or a seq not of this burst), out of order.
 * 3. Limit: a datagram of LIMIT+1 bytes must be refused with EMSGSIZE, and
 *    one of LIMIT bytes must still make the round trip afterwards.
 * LIMIT (default 2040, a 2048-byte slot minus the 8-byte IPv4 ds header) is
 * the largest payload: on RoCE the port's MTU minus that header (1016 on a
 * 1500-byte Ethernet, MTU 1024). Sizes: 1, 7, 8, 64, 100, 512, 1000 (those
 * not above LIMIT) and LIMIT; burst sizes spread over 8..LIMIT.
 * ADDR may be IPv4 or IPv6 (the IPv6 ds header is 24 bytes: LIMIT 1000 on
 * a 1024-byte MTU).
 * Every datagram is checked. One summary line per size and for the bursts,
 * then "result: ok" (exit 0) when nothing was lost, duplicated, corrupted or
 * reordered, else "result: BAD" (exit 1). rpoll waits up to 5 s per datagram
 * (a lost one), so a run never hangs.
 * Usage: rs_dgram_xfer ADDR PORT [COUNT [BURSTS [LIMIT]]]
 */
#define PROG "rs_dgram_xfer"
#include "dgram_xfer.h"

#define BURST 16

int main(int argc, char **argv)
{
	uint32_t sizes[8], limit, nsizes;
	unsigned char buf[MAXLEN + 64], rb[MAXLEN + 64];
	struct sockaddr_storage bsin, from, asin;
	socklen_t al = sizeof asin, blen;
	int count, bursts, a, b, bad = 0, s, k, n;
	uint32_t seq = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: rs_dgram_xfer ADDR PORT [COUNT [BURSTS]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	count = argc > 3 ? atoi(argv[3]) : 100;
	bursts = argc > 4 ? atoi(argv[4]) : 50;
	limit = argc > 5 ? (uint32_t) atoi(argv[5]) : MAXLEN;
	if (limit < 8 || limit > MAXLEN) {
		fprintf(stderr, "LIMIT must be 8..%d\n", MAXLEN);
		return 2;
	}
	nsizes = test_sizes(limit, sizes);
	b = sock(argv[1], atoi(argv[2]));
	a = sock(argv[1], atoi(argv[2]) + 1);
	blen = parse(argv[1], atoi(argv[2]), &bsin);
	rgetsockname(a, (struct sockaddr *) &asin, &al);

	for (s = 0; s < (int) nsizes; s++) {
		uint32_t size = sizes[s];
		int ok = 0, lost = 0, corrupt = 0, echo_ok = 0, echo_lost = 0, echo_bad = 0, wrong_src = 0;

		for (k = 0; k < count; k++, seq++) {
			long r;

			fill(buf, seq, size);
			if (rsendto(a, buf, size, 0, (struct sockaddr *) &bsin, blen) != (ssize_t) size) {
				printf("rsendto size %u: %s\nresult: BAD\n", size, strerror(errno));
				return 1;
			}
			r = recv_wait(b, rb, &from);
			if (r < 0) {
				lost++;
				continue;
			}
			if (!check(rb, r, seq, size)) {
				corrupt++;
				continue;
			}
			ok++;
			if (!same_addr(&from, &asin))
				wrong_src++;
			if (rsendto(b, rb, r, 0, (struct sockaddr *) &from, blen) != r) {
				printf("echo rsendto size %u: %s\nresult: BAD\n", size, strerror(errno));
				return 1;
			}
			r = recv_wait(a, rb, &from);
			if (r < 0)
				echo_lost++;
			else if (!check(rb, r, seq, size))
				echo_bad++;
			else
				echo_ok++;
		}
		printf("echo size %4u: sent %d received ok %d lost %d corrupted %d wrong-source %d; echoes ok %d lost %d corrupted %d\n",
		       size, count, ok, lost, corrupt, wrong_src, echo_ok, echo_lost, echo_bad);
		if (ok != count || echo_ok != count || wrong_src)
			bad = 1;
	}

	{
		long missing = 0, dup = 0, corrupt = 0, reorder = 0, got_total = 0, sent = 0;

		for (k = 0; k < bursts; k++) {
			unsigned char seen[BURST] = { 0 };
			uint32_t first = seq, last_seq = 0;
			int got = 0, any = 0;

			for (n = 0; n < BURST; n++, seq++) {
				uint32_t size = 8 + (n * 127u) % (limit - 7);

				fill(buf, seq, size);
				if (rsendto(a, buf, size, 0, (struct sockaddr *) &bsin, blen) != (ssize_t) size) {
					printf("burst rsendto: %s\nresult: BAD\n", strerror(errno));
					return 1;
				}
				sent++;
			}
			while (got < BURST) {
				uint32_t rs, rsize;
				long r = recv_wait(b, rb, &from);

				if (r < 0)
					break;
				if (r < 8) {
					corrupt++;
					continue;
				}
				memcpy(&rs, rb, 4);
				memcpy(&rsize, rb + 4, 4);
				if (rs < first || rs >= first + BURST || !check(rb, r, rs, rsize)) {
					corrupt++;
					continue;
				}
				if (seen[rs - first]++) {
					dup++;
					continue;
				}
				if (any && rs < last_seq)
					reorder++;
				any = 1;
				last_seq = rs;
				got++;
			}
			got_total += got;
			missing += BURST - got;
		}
		printf("bursts of %d: sent %ld received %ld missing %ld duplicated %ld corrupted %ld out-of-order %ld\n",
		       BURST, sent, got_total, missing, dup, corrupt, reorder);
		if (missing || dup || corrupt || reorder)
			bad = 1;
	}
	{
		long r;
		int ok = 0;

		fill(buf, seq, limit + 1);
		errno = 0;
		r = rsendto(a, buf, limit + 1, 0, (struct sockaddr *) &bsin, blen);
		printf("rsendto %u bytes (limit + 1): ret %ld errno %s\n", limit + 1, r,
		       r < 0 ? strerror(errno) : "-");
		if (r >= 0 || errno != EMSGSIZE)
			bad = 1;
		fill(buf, seq, limit);
		if (rsendto(a, buf, limit, 0, (struct sockaddr *) &bsin, blen) == (ssize_t) limit) {
			r = recv_wait(b, rb, &from);
			if (r >= 0 && check(rb, r, seq, limit) &&
			    rsendto(b, rb, r, 0, (struct sockaddr *) &from, blen) == r) {
				r = recv_wait(a, rb, &from);
				ok = r >= 0 && check(rb, r, seq, limit);
			}
		}
		printf("then %u bytes there and back: %s\n", limit, ok ? "ok" : "FAILED");
		if (!ok)
			bad = 1;
	}
	rclose(a);
	rclose(b);
	printf("result: %s\n", bad ? "BAD" : "ok");
	return bad;
}
