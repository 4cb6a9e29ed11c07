/*
 * tcp_xfer: an ordinary TCP program (plain socket/bind/listen/accept/connect,
 * read/write/close, poll) for testing librspreload, which must move its
 * traffic onto rsockets without it knowing.
 *
 *   tcp_xfer server PORT [MIB]        accept one connection, receive MIB MiB
 *   tcp_xfer client HOST PORT [MIB]   connect, send MIB MiB (default 64)
 *   tcp_xfer unix [MIB]               the same through a UNIX stream socket
 *                                     (socket/bind/listen/accept/connect on
 *                                     an abstract address; a child sends)
 *
 * The sender writes a deterministic byte stream (a 64-bit LCG per 8-byte
 * word, position-dependent) in writes of varying length; the receiver checks
 * every byte against the same stream, reading with varying lengths, and
 * computes an FNV-1a checksum. At the end the receiver sends its byte count
 * and checksum back; the sender compares them with its own. Each side prints
 * one deterministic line and exits 0 only if everything matched.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xfer_stream.h"


static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			perror("write");
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	while (len) {
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("read");
			return -1;
		}
		if (n == 0) {
			fprintf(stderr, "read: unexpected end of stream\n");
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Sends `total` bytes of the stream, then checks the receiver's report. */
static int do_send(int fd, uint64_t total, const char *who, int quiet)
{
	static unsigned char buf[256 * 1024];
	uint64_t pos = 0, h = FNV_INIT, report[2];
	unsigned step = 0;

	while (pos < total) {
		/* lengths from 1 byte to 256 KiB, not aligned to anything */
		size_t len = (size_t[]){ 65536, 1, 4093, 262144, 100, 131071, 7, 32768 }[step++ % 8];
		if (len > total - pos)
			len = total - pos;
		fill(buf, pos, len);
		h = fnv(h, buf, len);
		if (write_all(fd, buf, len))
			return 1;
		pos += len;
	}
	if (read_all(fd, report, sizeof report))
		return 1;
	if (report[0] != total || report[1] != h) {
		printf("%s: MISMATCH: sent %" PRIu64 " bytes checksum %016" PRIx64
		       ", receiver reports %" PRIu64 " bytes checksum %016" PRIx64 "\n",
		       who, total, h, report[0], report[1]);
		return 1;
	}
	if (!quiet)
		printf("%s: sent %" PRIu64 " bytes, checksum %016" PRIx64 ", receiver agrees\n", who, total, h);
	return 0;
}

/* Receives `total` bytes, checking each against the stream, then reports. */
static int do_recv(int fd, uint64_t total, const char *who)
{
	static unsigned char buf[200 * 1024], expect[200 * 1024];
	uint64_t pos = 0, h = FNV_INIT, report[2];
	unsigned step = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (pos < total) {
		size_t want = (size_t[]){ 200 * 1024, 3, 65536, 999, 8192 }[step++ % 5];
		ssize_t n;

		if (want > total - pos)
			want = total - pos;
		/* every so often wait in poll() first, as event loops do */
		if (step % 16 == 0) {
			int r = poll(&pfd, 1, 60000);
			if (r != 1 || !(pfd.revents & POLLIN)) {
				fprintf(stderr, "poll: ret %d revents %#x\n", r, pfd.revents);
				return 1;
			}
		}
		n = read(fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("read");
			return 1;
		}
		if (n == 0) {
			fprintf(stderr, "%s: end of stream after %" PRIu64 " bytes\n", who, pos);
			return 1;
		}
		fill(expect, pos, n);
		if (memcmp(buf, expect, n)) {
			ssize_t i = 0;
			while (buf[i] == expect[i])
				i++;
			printf("%s: CORRUPT byte at offset %" PRIu64 "\n", who, pos + i);
			return 1;
		}
		h = fnv(h, buf, n);
		pos += n;
	}
	report[0] = pos;
	report[1] = h;
	if (write_all(fd, report, sizeof report))
		return 1;
	printf("%s: received %" PRIu64 " bytes, pattern ok, checksum %016" PRIx64 "\n", who, pos, h);
	return 0;
}

static int server(int port, uint64_t total)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, lfd, fd, ret;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0) {
		perror("socket");
		return 1;
	}
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one))
		perror("setsockopt SO_REUSEADDR");
	if (bind(lfd, (struct sockaddr *)&sin, sizeof sin) || listen(lfd, 1)) {
		perror("bind/listen");
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("accept");
		return 1;
	}
	ret = do_recv(fd, total, "server");
	/* wait for the client to close, so it has read the report */
	if (!ret) {
		char c;
		if (read(fd, &c, 1) != 0)
			fprintf(stderr, "server: expected end of stream\n");
	}
	if (close(fd) || close(lfd)) {
		perror("close");
		ret = 1;
	}
	return ret;
}

static int client(const char *host, int port, uint64_t total)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd, ret;

	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", host);
		return 2;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one))
		perror("setsockopt TCP_NODELAY");
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin)) {
		perror("connect");
		return 1;
	}
	ret = do_send(fd, total, "client", 0);
	if (close(fd)) {
		perror("close");
		ret = 1;
	}
	return ret;
}

static int unix_pair(uint64_t total)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len;
	int lfd, fd, status, ret;
	pid_t pid;

	/* abstract address: no file, nothing to clean up */
	snprintf(sun.sun_path + 1, sizeof sun.sun_path - 1, "tcp_xfer.%d", (int)getpid());
	len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sun.sun_path + 1);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sun, len) || listen(lfd, 1)) {
		perror("unix socket/bind/listen");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(lfd);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sun, len)) {
			perror("unix connect");
			_exit(1);
		}
		/* quiet: the parent reports, so the output has one order */
		ret = do_send(fd, total, "unix sender", 1);
		fflush(stdout);
		close(fd);
		_exit(ret);
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("accept");
		return 1;
	}
	ret = do_recv(fd, total, "unix receiver");
	fflush(stdout);
	close(fd);
	close(lfd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("unix sender: failed\n");
		return 1;
	}
	printf("unix sender: receiver agrees\n");
	return ret;
}

int main(int argc, char **argv)
{
	uint64_t mib = 64;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "server")) {
		if (argc > 3)
			mib = strtoull(argv[3], NULL, 0);
		return server(atoi(argv[2]), mib << 20);
	}
	if (argc >= 4 && !strcmp(argv[1], "client")) {
		if (argc > 4)
			mib = strtoull(argv[4], NULL, 0);
		return client(argv[2], atoi(argv[3]), mib << 20);
	}
	if (argc >= 2 && !strcmp(argv[1], "unix")) {
		if (argc > 2)
			mib = strtoull(argv[2], NULL, 0);
		return unix_pair(mib << 20);
	}
	fprintf(stderr, "usage: tcp_xfer server PORT [MIB] | client HOST PORT [MIB] | unix [MIB]\n");
	return 2;
}
