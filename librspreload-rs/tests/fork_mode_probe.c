/*
 * fork_mode_probe: the preload's descriptor index on a machine without RDMA.
 *
 * With RDMAV_FORK_SAFE=1 the preload gives every TCP socket a placeholder
 * number (a /dev/null descriptor) mapped to a kernel socket, and tries to
 * move the connection to rsockets at its first data call; without an RDMA
 * device that attempt fails and the socket stays a kernel socket. So every
 * call here must go through the index to the right kernel socket: bind,
 * listen, getsockname, accept, connect, read/write/send/recv, poll,
 * select, sendfile, fcntl, dup2 and close. The server speaks first (4 non-zero bytes), so the
 * connecting side's switch attempt sees "no rsocket offered" and stays.
 * One line per step; exit 0 when every step did what it should.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int bad;

static const char *kind(int fd)
{
	struct stat st;
	if (fstat(fd, &st))
		return "closed";
	return S_ISSOCK(st.st_mode) ? "kernel socket" : S_ISCHR(st.st_mode) ? "placeholder" : "other";
}

/* evaluates cond once, before printing the message (which may show values
 * the condition's calls set) */
#define CHECK(cond, ...) do { int ok_ = !!(cond); printf(__VA_ARGS__); \
	printf(": %s\n", ok_ ? "ok" : "WRONG"); if (!ok_) bad = 1; } while (0)

int main(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof sin;
	char buf[16];
	int one = 1, s, c, a, r;
	struct pollfd p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	printf("listening socket: %s\n", kind(s));
	CHECK(!setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one), "setsockopt");
	CHECK(!bind(s, (struct sockaddr *)&sin, sizeof sin) && !listen(s, 4), "bind and listen");
	CHECK(!getsockname(s, (struct sockaddr *)&sin, &len) && sin.sin_port, "getsockname gives the port");
	c = socket(AF_INET, SOCK_STREAM, 0);
	printf("connecting socket: %s\n", kind(c));
	CHECK(!connect(c, (struct sockaddr *)&sin, sizeof sin), "connect");
	a = accept(s, NULL, NULL);
	printf("accepted socket: %s\n", kind(a));

	CHECK(write(a, "HELO", 4) == 4, "server writes first");
	CHECK(read(c, buf, 4) == 4 && !memcmp(buf, "HELO", 4), "client reads it");
	CHECK(send(c, "ping", 4, 0) == 4, "client sends");
	CHECK(recv(a, buf, 4, 0) == 4 && !memcmp(buf, "ping", 4), "server receives");

	p = (struct pollfd){ .fd = c, .events = POLLIN };
	r = poll(&p, 1, 200);
	CHECK(r == 0, "poll with nothing to read times out (ret %d revents %#x)", r, p.revents);
	CHECK(write(a, "more", 4) == 4, "server writes again");
	p.revents = 0;
	r = poll(&p, 1, 5000);
	CHECK(r == 1 && p.revents == POLLIN, "poll sees the data (ret %d revents %#x)", r, p.revents);
	CHECK(read(c, buf, 4) == 4 && !memcmp(buf, "more", 4), "client reads it");

	{
		fd_set rd;
		struct timeval tv = { 0, 200000 };
		FD_ZERO(&rd);
		FD_SET(c, &rd);
		r = select(c + 1, &rd, NULL, NULL, &tv);
		CHECK(r == 0 && !FD_ISSET(c, &rd), "select with nothing to read times out (ret %d)", r);
		CHECK(write(a, "sel!", 4) == 4, "server writes again");
		FD_ZERO(&rd);
		FD_SET(c, &rd);
		tv = (struct timeval){ 5, 0 };
		r = select(c + 1, &rd, NULL, NULL, &tv);
		CHECK(r == 1 && FD_ISSET(c, &rd), "select sees the data (ret %d)", r);
		CHECK(recv(c, buf, 4, 0) == 4 && !memcmp(buf, "sel!", 4), "client receives it");
	}
	{
		char path[] = "/tmp/fork_mode_probe.XXXXXX";
		int f = mkstemp(path);
		off_t off = 2;
		unlink(path);
		CHECK(f >= 0 && write(f, "xxfile", 6) == 6, "a file to send");
		CHECK(sendfile(c, f, &off, 4) == 4 && off == 6, "sendfile 4 bytes from offset 2");
		CHECK(recv(a, buf, 4, MSG_WAITALL) == 4 && !memcmp(buf, "file", 4), "server receives them");
		close(f);
	}

	r = fcntl(a, F_GETFL);
	CHECK(r >= 0 && !(r & O_NONBLOCK), "fcntl F_GETFL: blocking");
	CHECK(!fcntl(a, F_SETFL, r | O_NONBLOCK), "fcntl F_SETFL O_NONBLOCK");
	errno = 0;
	CHECK(read(a, buf, 4) == -1 && errno == EAGAIN, "nonblocking read with nothing there: EAGAIN");

	CHECK(dup2(c, 100) == 100, "dup2 onto 100");
	CHECK(write(a, "dup!", 4) == 4, "server writes");
	CHECK(read(100, buf, 4) == 4 && !memcmp(buf, "dup!", 4), "read through the copy");
	CHECK(!close(c), "close the original");
	CHECK(write(100, "copy", 4) == 4, "write through the copy");
	for (int i = 0; i < 50; i++) {
		r = read(a, buf, 4);
		if (r != -1 || errno != EAGAIN)
			break;
		usleep(10000);
	}
	CHECK(r == 4 && !memcmp(buf, "copy", 4), "server gets it");
	CHECK(!close(100), "close the copy");
	for (int i = 0; i < 50; i++) {
		r = read(a, buf, 4);
		if (r != -1 || errno != EAGAIN)
			break;
		usleep(10000);
	}
	CHECK(r == 0, "server sees end of stream once the last number is closed (read %d)", r);
	CHECK(!close(a) && !close(s), "close server sockets");
	CHECK(!strcmp(kind(s), "closed") && !strcmp(kind(c), "closed") && !strcmp(kind(100), "closed"),
	      "all numbers released");
	return bad;
}
