/*
 * rs_fault: fault cases of stream rsockets, one process per side (a `pair`
 * scenario: run with Debian's librdmacm and with ours, in every server:client
 * combination, the output must be the same).
 *
 *   rs_fault server CASE PORT      (listens on 10.0.2.15:PORT)
 *   rs_fault client CASE PORT
 *
 * CASE is one of
 *   kill_sender        the client's transfer runs in a child process that
 *                      is SIGKILLed mid-transfer; the server (receiver)
 *                      reports what its next calls return.
 *   kill_receiver      the server's connections live in a child process that
 *                      stops reading; the client (a nonblocking sender,
 *                      connected with a nonblocking rconnect) reports EAGAIN
 *                      on a second (control) connection, the child is
 *                      SIGKILLed, and the client reports what it sees.
 *   kill_receiver_ka   the same with a blocking rconnect and keepalive
 *                      (SO_KEEPALIVE, TCP_KEEPIDLE 1 s). Upstream watches the
 *                      CM events of accepted sockets and of nonblocking
 *                      connects only: after a blocking rconnect, a waiting
 *                      sender could learn of the dead peer only from a
 *                      failed write of its own, here the keepalive's; on
 *                      rxe that write neither completed nor failed within
 *                      120 s with Debian's library (the scenario is pending).
 *   slow_receiver      flow control: the client sends nonblocking until
 *                      EAGAIN while the server does not read, then resumes
 *                      (rpoll POLLOUT) once the server drains; then 8 MiB of
 *                      blocking rsend against small server reads.
 *   shut_wr, shut_rd, shut_rdwr, close
 *                      two connections, one after the other: on the first
 *                      the client acts, on the second the server (CASE:SIDE,
 *                      SIDE server or client, runs one of them). The acting
 *                      side sends 200000 bytes, then
 *                      calls rshutdown(SHUT_WR / SHUT_RD / SHUT_RDWR) or
 *                      rclose at once; the other side reads everything and
 *                      reports EOF, rpoll revents, rsend after the peer's
 *                      shutdown, SO_ERROR.
 *
 * Every line printed is deterministic: call, return value, errno name, byte
 * counts only where they are fixed by the test, and "pattern ok" for data
 * whose amount depends on timing. Data is a known byte pattern (a function
 * of the stream offset): the receiver checks every byte it got against it,
 * so a lost, duplicated or reordered byte shows as "pattern BAD".
 *
 * Blocking calls that upstream cannot wake on a hang-up (a killed peer sends
 * no rsocket message; upstream only learns it from the CM DISCONNECTED event,
 * which wakes rpoll but not a thread blocked in rrecv/rsend) are preceded by
 * rpoll, as a careful application would do.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/rsocket.h>

#define CHUNK 65536
#define SHUT_BYTES 200000
#define KILL_BYTES (1 << 20)

static const char *role;
static int port;

static const char *ename(int e)
{
	switch (e) {
	case 0: return "-";
	case EAGAIN: return "EAGAIN";
	case ECONNRESET: return "ECONNRESET";
	case EPIPE: return "EPIPE";
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case ENOTCONN: return "ENOTCONN";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINPROGRESS: return "EINPROGRESS";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EINTR: return "EINTR";
	case ENOMEM: return "ENOMEM";
	case ENODEV: return "ENODEV";
	default: {
		static char b[32];
		snprintf(b, sizeof b, "errno%d", e);
		return b;
	}
	}
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* ret and errno of a call, errno only when it failed. */
static void show(const char *what, long r, int e)
{
	say("%s ret %ld errno %s", what, r, r < 0 ? ename(e) : "-");
}

static const char *revname(short r)
{
	static char b[96];
	b[0] = 0;
	if (!r)
		return "0";
	if (r & POLLIN) strcat(b, "|IN");
	if (r & POLLOUT) strcat(b, "|OUT");
	if (r & POLLERR) strcat(b, "|ERR");
	if (r & POLLHUP) strcat(b, "|HUP");
	if (r & POLLNVAL) strcat(b, "|NVAL");
	if (r & ~(POLLIN | POLLOUT | POLLERR | POLLHUP | POLLNVAL))
		sprintf(b + strlen(b), "|%#x", r & ~(POLLIN | POLLOUT | POLLERR | POLLHUP | POLLNVAL));
	return b + 1;
}

/* rpoll one rsocket; timeout_ms < 0 waits for ever (the scenario timeout
 * bounds it). Returns revents; prints when `what` is given. */
static short poll1(int fd, short events, int timeout_ms, const char *what)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;
	do {
		p.revents = 0;
		errno = 0;
		n = rpoll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (what)
		say("rpoll %s ret %d revents %s", what, n, revname(p.revents));
	return n < 0 ? -1 : p.revents;
}

static inline uint8_t pat(uint64_t off)
{
	return (uint8_t) (off * 131 + (off >> 9) * 7 + 3);
}

/* Stream offsets of what this process sent and received (one connection). */
static uint64_t soff, roff;
static int bad;

static void fill(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pat(soff + i);
}

static void check(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != pat(roff + i) && !bad) {
			bad = 1;
			say("pattern BAD at offset %llu", (unsigned long long) (roff + i));
		}
	roff += n;
}

/* Blocking send of n pattern bytes; returns 0 or the failing call's errno. */
static int send_n(int fd, size_t n, int flags)
{
	static uint8_t b[CHUNK];
	while (n) {
		size_t k = n < CHUNK ? n : CHUNK;
		fill(b, k);
		ssize_t r = rsend(fd, b, k, flags);
		if (r <= 0) {
			int e = errno;
			show("rsend (during transfer)", r, e);
			return e ? e : -1;
		}
		soff += r;
		n -= r;
	}
	return 0;
}

/* Blocking receive of exactly n pattern bytes (verified). */
static int recv_n(int fd, size_t n, size_t chunk)
{
	static uint8_t b[CHUNK];
	while (n) {
		size_t k = n < chunk ? n : chunk;
		ssize_t r = rrecv(fd, b, k, 0);
		if (r <= 0) {
			int e = errno;
			show("rrecv (during transfer)", r, e);
			return -1;
		}
		check(b, r);
		n -= r;
	}
	return 0;
}

/* Read until rrecv returns 0 or fails; with use_poll, rpoll(POLLIN) before
 * every call so that a hang-up seen only by the CM event cannot leave us
 * blocked. Prints the final rrecv; returns the revents of the last rpoll
 * (0 without use_poll). */
static short drain_to_eof(int fd, int use_poll)
{
	static uint8_t b[CHUNK];
	short rev = 0;
	ssize_t r;
	for (;;) {
		if (use_poll)
			rev = poll1(fd, POLLIN, -1, NULL);
		errno = 0;
		r = rrecv(fd, b, sizeof b, 0);
		if (r <= 0)
			break;
		check(b, r);
	}
	int e = errno;
	show("rrecv at the end", r, e);
	return rev;
}

/* SO_ERROR's value before rgetsockopt writes it. */
#define SO_UNSET (-12345)

static const char *soname(int v)
{
	return v == SO_UNSET ? "unset" : ename(v);
}

/* Prints SO_ERROR's value unless quiet_value; returns it (SO_UNSET if
 * rgetsockopt left it alone). */
static int sockerr_quiet(int fd, const char *what, int quiet_value)
{
	int v = SO_UNSET;
	socklen_t len = sizeof v;
	errno = 0;
	int r = rgetsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len);
	if (quiet_value)
		say("rgetsockopt SO_ERROR %s ret %d errno %s", what, r, r ? ename(errno) : "-");
	else
		say("rgetsockopt SO_ERROR %s ret %d errno %s value %s", what, r,
		    r ? ename(errno) : "-", soname(v));
	return v;
}

static void sockerr(int fd, const char *what)
{
	sockerr_quiet(fd, what, 0);
}

static void try_send(int fd, size_t n, int flags, const char *what)
{
	static uint8_t b[1000];
	fill(b, n);
	errno = 0;
	ssize_t r = rsend(fd, b, n, flags);
	int e = errno;
	if (r > 0)
		soff += r;
	show(what, r, e);
}

static void try_recv(int fd, int flags, const char *what)
{
	uint8_t b[1000];
	errno = 0;
	ssize_t r = rrecv(fd, b, sizeof b, flags);
	int e = errno;
	if (r > 0)
		check(b, r);
	show(what, r, e);
}

static void verdict(const char *what)
{
	say("%s: %llu bytes received in total, pattern %s", what,
	    (unsigned long long) roff, bad ? "BAD" : "ok");
}

static void verdict_anycount(const char *what)
{
	say("%s: pattern %s", what, bad ? "BAD" : "ok");
}

static struct sockaddr_in addr(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	inet_pton(AF_INET, "10.0.2.15", &sin.sin_addr);
	return sin;
}

static int listener(void)
{
	struct sockaddr_in sin = addr();
	int one = 1;
	int lfd = rsocket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0) { show("rsocket", lfd, errno); exit(1); }
	rsetsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (rbind(lfd, (struct sockaddr *) &sin, sizeof sin) || rlisten(lfd, 4)) {
		show("rbind/rlisten", -1, errno);
		exit(1);
	}
	return lfd;
}

static int accept1(int lfd)
{
	int fd = raccept(lfd, NULL, NULL);
	if (fd < 0) { show("raccept", fd, errno); exit(1); }
	say("raccept ok");
	return fd;
}

static int connect1(void)
{
	struct sockaddr_in sin = addr();
	int fd = rsocket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) { show("rsocket", fd, errno); exit(1); }
	if (rconnect(fd, (struct sockaddr *) &sin, sizeof sin)) {
		show("rconnect", -1, errno);
		exit(1);
	}
	say("rconnect ok");
	return fd;
}

/* Nonblocking rconnect (EINPROGRESS, completed through rpoll), then back
 * to blocking: upstream then watches the socket's CM events (as for an
 * accepted socket), so it learns of a peer's disconnect. */
static int connect_nb(void)
{
	struct sockaddr_in sin = addr();
	int fd = rsocket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) { show("rsocket", fd, errno); exit(1); }
	rfcntl(fd, F_SETFL, O_NONBLOCK);
	errno = 0;
	int r = rconnect(fd, (struct sockaddr *) &sin, sizeof sin);
	show("rconnect nonblocking", r, errno);
	poll1(fd, POLLOUT, -1, "POLLOUT connected");
	sockerr(fd, "after connect");
	show("rfcntl blocking", rfcntl(fd, F_SETFL, 0), errno);
	return fd;
}

static void reap(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		say("child killed by signal %d", WTERMSIG(st));
	else
		say("child exited with %d", WEXITSTATUS(st));
}

/* ---- kill_sender ---------------------------------------------------------- */

static int kill_sender_server(void)
{
	int lfd = listener();
	int fd = accept1(lfd);
	if (recv_n(fd, KILL_BYTES, CHUNK))
		return 1;
	verdict("first MiB");
	try_send(fd, 1, 0, "rsend ack");
	/* The sender is killed while it keeps sending: read what comes. */
	short before = drain_to_eof(fd, 1);
	verdict_anycount("everything received");
	short after = poll1(fd, POLLIN | POLLOUT, 0, NULL);
	try_recv(fd, 0, "rrecv again");
	try_recv(fd, MSG_DONTWAIT, "rrecv MSG_DONTWAIT");
	int soerr = sockerr_quiet(fd, "after EOF", 1);
	/* How the death shows is a race, in upstream's library as in ours.
	 * Two things can tell the server: the CM disconnect (the killed
	 * process's rdma_cm file has the lower descriptor with either
	 * library, so it is closed first and the kernel sends a DREQ), and a
	 * failed completion of one of the server's own writes. The kernel
	 * destroys a closed verbs file's objects newest first, so the peer's
	 * memory registrations go before its QP, and a credit update landing
	 * in between is most likely what fails. Whichever the socket
	 * processes first decides, and sticks: the disconnect gives POLLHUP
	 * and SO_ERROR 0, the failed completion (upstream's only source of
	 * this EIO while connected) POLLERR and SO_ERROR EIO. Either is
	 * upstream's behaviour: Debian's server printed the second once in a
	 * CI run, with our client, after many runs of the first. A mixture of
	 * the two, or anything else, is not. The outcome goes to stderr,
	 * which the scenario's filter evens out. */
	const char *how = NULL;
	if (before == (POLLIN | POLLHUP) && after == (POLLIN | POLLOUT | POLLHUP) && soerr == 0)
		how = "the CM disconnect";
	else if (before == (POLLIN | POLLERR) && after == (POLLIN | POLLOUT | POLLERR) && soerr == EIO)
		how = "a failed completion";
	if (how) {
		say("the end seen consistently: IN|HUP, IN|OUT|HUP and SO_ERROR 0, "
		    "or IN|ERR, IN|OUT|ERR and SO_ERROR EIO");
		fprintf(stderr, "kill_sender: the server learnt of the death from %s\n", how);
	} else {
		say("the end seen INCONSISTENTLY:");
		say("rpoll POLLIN before the last rrecv revents %s", revname(before));
		say("rpoll POLLIN|POLLOUT after EOF revents %s", revname(after));
		say("SO_ERROR after EOF value %s", soname(soerr));
	}
	show("rclose", rclose(fd), errno);
	show("rclose listener", rclose(lfd), errno);
	return 0;
}

static int kill_sender_client(void)
{
	int p[2];
	char c;
	if (pipe(p)) return 1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		int fd = connect1();
		if (send_n(fd, KILL_BYTES, 0))
			_exit(1);
		say("child: sent 1 MiB");
		uint8_t a;
		ssize_t r = rrecv(fd, &a, 1, 0);
		show("child: rrecv ack", r, errno);
		/* From here on nothing is printed: the parent kills us at an
		 * arbitrary point of the transfer. */
		if (write(p[1], "k", 1) != 1) _exit(1);
		for (;;)
			if (send_n(fd, CHUNK, 0)) _exit(1);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) { say("child died early"); }
	kill(pid, SIGKILL);
	reap(pid);
	return 0;
}

/* ---- kill_receiver -------------------------------------------------------- */

static int kill_receiver_server(void)
{
	int p[2];
	char c;
	if (pipe(p)) return 1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		int lfd = listener();
		int fd = accept1(lfd);		/* data */
		int cfd = accept1(lfd);		/* control */
		if (recv_n(fd, KILL_BYTES, CHUNK))
			_exit(1);
		verdict("child: first MiB");
		try_send(fd, 1, 0, "child: rsend ack");
		/* Stop reading: the sender fills our buffer and gets EAGAIN;
		 * it tells us so on the control connection, then waits in
		 * rpoll for POLLOUT while we are killed. */
		uint8_t b;
		ssize_t r = rrecv(cfd, &b, 1, 0);
		show("child: rrecv control", r, errno);
		if (write(p[1], "k", 1) != 1) _exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) { say("child died early"); }
	kill(pid, SIGKILL);
	reap(pid);
	return 0;
}

static int kill_receiver_client(int keepalive)
{
	static uint8_t b[CHUNK];
	int fd;
	if (keepalive) {
		int one = 1;
		fd = connect1();
		show("rsetsockopt SO_KEEPALIVE 1", rsetsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one), errno);
		show("rsetsockopt TCP_KEEPIDLE 1", rsetsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &one, sizeof one), errno);
	} else {
		fd = connect_nb();
	}
	int cfd = connect1();	/* control */
	if (send_n(fd, KILL_BYTES, 0))
		return 1;
	say("sent 1 MiB");
	uint8_t a;
	ssize_t r = rrecv(fd, &a, 1, 0);
	show("rrecv ack", r, errno);
	/* Nonblocking sends until the receiver's buffer is full (it no longer
	 * reads), then wait in rpoll for POLLOUT: the peer gets killed. */
	int eagain = 0;
	short rev = 0;
	for (;;) {
		fill(b, sizeof b);
		errno = 0;
		r = rsend(fd, b, sizeof b, MSG_DONTWAIT);
		if (r > 0) {
			soff += r;
			continue;
		}
		if (r < 0 && errno == EAGAIN) {
			if (!eagain++) {
				say("rsend MSG_DONTWAIT: EAGAIN (receiver stopped reading)");
				/* Now the receiver may be killed. */
				show("rsend control", rsend(cfd, "b", 1, 0), errno);
			}
			rev = poll1(fd, POLLOUT, -1, NULL);
			if (rev & (POLLHUP | POLLERR | POLLNVAL))
				break;
			continue;
		}
		break;
	}
	if (rev & (POLLHUP | POLLERR | POLLNVAL))
		say("rpoll POLLOUT after the receiver was killed revents %s", revname(rev));
	else
		show("rsend MSG_DONTWAIT stopped", r, errno);
	try_send(fd, 100, MSG_DONTWAIT, "rsend MSG_DONTWAIT after hang-up");
	try_send(fd, 100, 0, "rsend after hang-up");
	try_recv(fd, 0, "rrecv after hang-up");
	poll1(fd, POLLIN | POLLOUT, 0, "POLLIN|POLLOUT after hang-up");
	sockerr(fd, "after hang-up");
	show("rclose", rclose(fd), errno);
	/* The control connection is left to exit(): it was connected
	 * blocking, so neither library knows its peer is dead, and rclose
	 * would wait for ever for its DISCONNECT message to complete (the
	 * write to the dead QP neither completes nor fails on rxe). */
	return 0;
}

/* ---- slow_receiver -------------------------------------------------------- */

#define SLOW_MORE (8u << 20)

static int slow_receiver_server(void)
{
	int lfd = listener();
	int dfd = accept1(lfd);	/* data */
	int cfd = accept1(lfd);	/* control */
	uint64_t total;
	uint8_t tmp[8];
	/* Do not read until the sender says it was blocked. */
	ssize_t r = rrecv(cfd, tmp, 8, MSG_WAITALL);
	if (r != 8) { show("rrecv control", r, errno); return 1; }
	memcpy(&total, tmp, 8);
	say("control: sender was blocked");
	if (recv_n(dfd, total, CHUNK))
		return 1;
	verdict_anycount("data up to the first EAGAIN");
	uint64_t before = roff;
	/* Now small reads: the blocking sender waits for credits often. */
	if (recv_n(dfd, SLOW_MORE, 4096))
		return 1;
	say("then %llu bytes in 4096-byte reads, pattern %s",
	    (unsigned long long) (roff - before), bad ? "BAD" : "ok");
	try_send(cfd, 1, 0, "rsend done (control)");
	drain_to_eof(dfd, 0);
	verdict_anycount("everything received");
	show("rclose data", rclose(dfd), errno);
	show("rclose control", rclose(cfd), errno);
	show("rclose listener", rclose(lfd), errno);
	return 0;
}

static int slow_receiver_client(void)
{
	static uint8_t b[CHUNK];
	int dfd = connect1();
	int cfd = connect1();
	ssize_t r;
	int e;
	show("rfcntl O_NONBLOCK", rfcntl(dfd, F_SETFL, O_NONBLOCK), errno);
	for (;;) {
		fill(b, sizeof b);
		errno = 0;
		r = rsend(dfd, b, sizeof b, 0);
		if (r <= 0)
			break;
		soff += r;
	}
	e = errno;
	show("rsend nonblocking until blocked", r, e);
	say("sent before blocking: %s", soff > 0 ? "some" : "none");
	poll1(dfd, POLLOUT, 0, "POLLOUT while blocked (timeout 0)");
	try_send(dfd, 100, 0, "rsend again while blocked");
	try_send(dfd, 100, MSG_DONTWAIT, "rsend MSG_DONTWAIT while blocked");
	sockerr(dfd, "while blocked");
	uint64_t total = soff;
	r = rsend(cfd, &total, 8, 0);
	show("rsend control", r, errno);
	/* Resumes once the receiver drained it. */
	poll1(dfd, POLLOUT, -1, "POLLOUT after the receiver drained");
	show("rfcntl blocking", rfcntl(dfd, F_SETFL, 0), errno);
	if (send_n(dfd, SLOW_MORE, 0))
		return 1;
	say("blocking rsend of %u bytes done", SLOW_MORE);
	uint8_t a;
	r = rrecv(cfd, &a, 1, 0);
	show("rrecv done (control)", r, errno);
	show("rclose data", rclose(dfd), errno);
	show("rclose control", rclose(cfd), errno);
	return 0;
}

/* ---- shutdown / close ----------------------------------------------------- */

enum how { H_WR, H_RD, H_RDWR, H_CLOSE };

static int do_action(int fd, enum how h)
{
	int r;
	errno = 0;
	switch (h) {
	case H_WR: r = rshutdown(fd, SHUT_WR); show("rshutdown SHUT_WR", r, errno); break;
	case H_RD: r = rshutdown(fd, SHUT_RD); show("rshutdown SHUT_RD", r, errno); break;
	case H_RDWR: r = rshutdown(fd, SHUT_RDWR); show("rshutdown SHUT_RDWR", r, errno); break;
	default: r = rclose(fd); show("rclose", r, errno); break;
	}
	return r;
}

static int shut_actor(int fd, enum how h)
{
	if (send_n(fd, SHUT_BYTES, 0))
		return 1;
	say("rsend %d bytes ok", SHUT_BYTES);
	do_action(fd, h);
	switch (h) {
	case H_WR:
		/* Half close: we still read what the peer sends, to its EOF. */
		drain_to_eof(fd, 0);
		verdict("from the peer");
		try_send(fd, 10, MSG_DONTWAIT, "rsend after SHUT_WR and the peer's EOF");
		poll1(fd, POLLIN, 0, "POLLIN after both shut");
		break;
	case H_RD:
		try_recv(fd, MSG_DONTWAIT, "rrecv MSG_DONTWAIT after SHUT_RD");
		try_recv(fd, 0, "rrecv after SHUT_RD");
		/* Still writable: a marker tells the peer we are past SHUT_RD. */
		try_send(fd, 1, 0, "rsend after SHUT_RD");
		show("rshutdown SHUT_WR after SHUT_RD", rshutdown(fd, SHUT_WR), errno);
		try_recv(fd, MSG_DONTWAIT, "rrecv after SHUT_RD+SHUT_WR");
		break;
	case H_RDWR:
		try_recv(fd, MSG_DONTWAIT, "rrecv MSG_DONTWAIT after SHUT_RDWR");
		try_recv(fd, 0, "rrecv after SHUT_RDWR");
		poll1(fd, POLLIN | POLLOUT, 0, "POLLIN|POLLOUT after SHUT_RDWR");
		sockerr(fd, "after SHUT_RDWR");
		show("rshutdown SHUT_RDWR again", rshutdown(fd, SHUT_RDWR), errno);
		break;
	case H_CLOSE:
		try_recv(fd, MSG_DONTWAIT, "rrecv after rclose");
		try_send(fd, 10, 0, "rsend after rclose");
		poll1(fd, POLLIN, 0, "POLLIN after rclose");
		show("rclose again", rclose(fd), errno);
		return 0;
	}
	show("rclose", rclose(fd), errno);
	return 0;
}

static int shut_peer(int fd, enum how h)
{
	if (h == H_RD) {
		/* The actor's SHUT_RD sends nothing: read its data and marker. */
		if (recv_n(fd, SHUT_BYTES + 1, CHUNK))
			return 1;
		verdict("data and marker");
		/* The peer's SHUT_WR (after SHUT_RD) disconnects: EOF. */
		drain_to_eof(fd, 0);
		verdict("everything");
		poll1(fd, POLLIN, -1, "POLLIN after peer SHUT_RD+SHUT_WR");
		sockerr(fd, "after peer SHUT_RD+SHUT_WR");
		show("rclose", rclose(fd), errno);
		return 0;
	}
	drain_to_eof(fd, 0);
	verdict("from the peer");
	if (h == H_WR) {
		poll1(fd, POLLIN | POLLOUT, 0, "POLLIN|POLLOUT after peer SHUT_WR");
		try_recv(fd, MSG_DONTWAIT, "rrecv MSG_DONTWAIT after EOF");
		sockerr(fd, "after peer SHUT_WR");
		/* Half close: we can still send; the peer reads it. */
		if (send_n(fd, 100000, 0))
			return 1;
		say("rsend 100000 bytes after peer SHUT_WR ok");
		show("rshutdown SHUT_WR", rshutdown(fd, SHUT_WR), errno);
		show("rclose", rclose(fd), errno);
		return 0;
	}
	poll1(fd, POLLIN, -1, "POLLIN after peer hang-up");
	poll1(fd, POLLIN | POLLOUT, 0, "POLLIN|POLLOUT after peer hang-up");
	try_recv(fd, MSG_DONTWAIT, "rrecv MSG_DONTWAIT after EOF");
	sockerr(fd, "after peer hang-up");
	try_send(fd, 100, MSG_DONTWAIT, "rsend MSG_DONTWAIT after peer hang-up");
	show("rshutdown SHUT_RDWR", rshutdown(fd, SHUT_RDWR), errno);
	show("rclose", rclose(fd), errno);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: rs_fault server|client CASE PORT\n");
		return 2;
	}
	role = argv[1];
	port = atoi(argv[3]);
	int server = !strcmp(role, "server");
	const char *c = argv[2];
	signal(SIGPIPE, SIG_IGN);

	if (!strcmp(c, "kill_sender"))
		return server ? kill_sender_server() : kill_sender_client();
	if (!strcmp(c, "kill_receiver"))
		return server ? kill_receiver_server() : kill_receiver_client(0);
	if (!strcmp(c, "kill_receiver_ka"))
		return server ? kill_receiver_server() : kill_receiver_client(1);
	if (!strcmp(c, "slow_receiver"))
		return server ? slow_receiver_server() : slow_receiver_client();

	static const char *hows[] = { "shut_wr", "shut_rd", "shut_rdwr", "close" };
	const char *colon = strchr(c, ':');
	size_t hl = colon ? (size_t) (colon - c) : strlen(c);
	for (int h = 0; h < 4; h++) {
		if (strlen(hows[h]) != hl || strncmp(c, hows[h], hl))
			continue;
		/* CASE:SIDE: one connection, SIDE acts; plain CASE: two
		 * connections one after the other, the client acts on the
		 * first, the server on the second (so that no descriptor is
		 * opened while an actor checks its closed one). */
		int sides[2] = { 0, 1 }, nsides = 2;
		if (colon) {
			nsides = 1;
			sides[0] = !strcmp(colon + 1, "server");
			if (!sides[0] && strcmp(colon + 1, "client"))
				goto bad;
		}
		int lfd = server ? listener() : -1, ret = 0;
		for (int i = 0; i < nsides && !ret; i++) {
			int fd = server ? accept1(lfd) : connect1();
			say("-- the %s calls %s", sides[i] ? "server" : "client", hows[h]);
			soff = roff = 0;
			bad = 0;
			ret = (server == sides[i]) ? shut_actor(fd, h) : shut_peer(fd, h);
		}
		if (lfd >= 0)
			show("rclose listener", rclose(lfd), errno);
		return ret;
	}
bad:
	fprintf(stderr, "rs_fault: unknown case %s\n", c);
	return 2;
}
