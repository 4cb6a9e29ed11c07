/*
 * rs_dgram: the datagram rsocket API (SOCK_DGRAM) call by call, one line
 * per call (return value and errno). Run once with Debian's librdmacm and
 * once with ours (`compare`); the output must match.
 *
 * Covers creation, options (defaults, set/get, what goes to the UDP socket,
 * SOL_RDMA before and after the endpoint exists), rfcntl, rbind,
 * rgetsockname/rgetpeername, a nonblocking receive on an empty socket,
 * rpoll, then an rsendto and an rconnect to PORT+1, and rclose.
 * With "nosend" the rsendto/rconnect part is left out: on Soft-RoCE
 * upstream's datagram rsockets cannot get a UD QP (they give each QP an
 * address handle for itself without a global route, which a RoCE port
 * refuses; the teardown leaves errno at ENOENT), while ours can (see
 * "Datagram rsockets on RoCE" in docs/architecture.md), so the `compare`
 * scenario runs "nosend" and the `differs` scenario rs_dgram_send runs the
 * whole.
 * Calls on which upstream dereferences unrelated fields of a datagram
 * socket (rsend with no destination, SO_KEEPALIVE, rlisten) are left out.
 * Usage: rs_dgram [PORT [nosend]]
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <rdma/rsocket.h>

#include "rs_show.h"

static void opts(const char *who, int fd)
{
	printf("%s SO_RCVBUF %d SO_SNDBUF %d\n", who, getint(fd, SOL_SOCKET, SO_RCVBUF),
	       getint(fd, SOL_SOCKET, SO_SNDBUF));
	printf("%s SQSIZE %d RQSIZE %d INLINE %d IOMAPSIZE %d\n", who,
	       getint(fd, SOL_RDMA, RDMA_SQSIZE), getint(fd, SOL_RDMA, RDMA_RQSIZE),
	       getint(fd, SOL_RDMA, RDMA_INLINE), getint(fd, SOL_RDMA, RDMA_IOMAPSIZE));
	printf("%s NODELAY %d REUSEADDR %d MAXSEG %d ERROR %d BROADCAST %d\n", who,
	       getint(fd, IPPROTO_TCP, TCP_NODELAY), getint(fd, SOL_SOCKET, SO_REUSEADDR),
	       getint(fd, IPPROTO_TCP, TCP_MAXSEG), getint(fd, SOL_SOCKET, SO_ERROR),
	       getint(fd, SOL_SOCKET, SO_BROADCAST));
	printf("%s F_GETFL %#x\n", who, rfcntl(fd, F_GETFL));
}

static void showaddr(const char *what, int fd, int peer)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	char s[64];
	int r;

	memset(&sin, 0, sizeof sin);
	errno = 0;
	r = peer ? rgetpeername(fd, (struct sockaddr *) &sin, &len) :
		   rgetsockname(fd, (struct sockaddr *) &sin, &len);
	if (r) {
		printf("%-40s ret %d errno %s\n", what, r, strerror(errno));
		return;
	}
	inet_ntop(AF_INET, &sin.sin_addr, s, sizeof s);
	printf("%-40s ret 0 len %u family %d %s:%s\n", what, len, sin.sin_family, s,
	       ntohs(sin.sin_port) ? "<port>" : "0");
}

int main(int argc, char **argv)
{
	int port = argc > 1 ? atoi(argv[1]) : 7175;
	struct sockaddr_in me, peer;
	struct pollfd pfd;
	char buf[64];
	int nosend = argc > 2 && !strcmp(argv[2], "nosend");
	int fd, v;

	setvbuf(stdout, NULL, _IONBF, 0);
	SHOW("rsocket(INET, DGRAM, TCP)", rsocket(AF_INET, SOCK_DGRAM, IPPROTO_TCP));
	SHOW("rsocket(UNIX, DGRAM, 0)", rsocket(AF_UNIX, SOCK_DGRAM, 0));
	fd = rsocket(AF_INET, SOCK_DGRAM, 0);
	printf("rsocket(INET, DGRAM, 0) %s\n", fd >= 0 ? "ok" : strerror(errno));
	if (fd < 0)
		return 1;
	opts("fresh", fd);
	showaddr("rgetsockname (unbound)", fd, 0);
	showaddr("rgetpeername (unconnected)", fd, 1);

	v = 1 << 19;
	SHOW("SO_SNDBUF 512K", rsetsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v));
	SHOW("SO_RCVBUF 512K", rsetsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v));
	v = 1;
	SHOW("SO_REUSEADDR 1", rsetsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &v, sizeof v));
	SHOW("SO_BROADCAST 1 (UDP only)", rsetsockopt(fd, SOL_SOCKET, SO_BROADCAST, &v, sizeof v));
	SHOW("TCP_NODELAY 1", rsetsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v));
	SHOW("SO_SNDBUF short", rsetsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, 2));
	v = 100;
	SHOW("RDMA_SQSIZE 100", rsetsockopt(fd, SOL_RDMA, RDMA_SQSIZE, &v, sizeof v));
	v = 50;
	SHOW("RDMA_RQSIZE 50", rsetsockopt(fd, SOL_RDMA, RDMA_RQSIZE, &v, sizeof v));
	v = 32;
	SHOW("RDMA_INLINE 32", rsetsockopt(fd, SOL_RDMA, RDMA_INLINE, &v, sizeof v));
	SHOW("SOL_RDMA unknown 99", rsetsockopt(fd, SOL_RDMA, 99, &v, sizeof v));
	SHOW("rgetsockopt SOL_SOCKET SO_TYPE", getint(fd, SOL_SOCKET, SO_TYPE));
	opts("set", fd);
	SHOW("F_SETFL O_NONBLOCK", rfcntl(fd, F_SETFL, O_NONBLOCK));
	SHOW("rfcntl F_GETFD (unsupported)", rfcntl(fd, F_GETFD));

	memset(&me, 0, sizeof me);
	me.sin_family = AF_INET;
	me.sin_port = htons(port);
	inet_pton(AF_INET, "10.0.2.15", &me.sin_addr);
	SHOW("rbind 10.0.2.15", rbind(fd, (struct sockaddr *) &me, sizeof me));
	SHOW("rbind again (EINVAL)", rbind(fd, (struct sockaddr *) &me, sizeof me));
	opts("bound", fd);
	v = 10;
	SHOW("RDMA_SQSIZE after bind", rsetsockopt(fd, SOL_RDMA, RDMA_SQSIZE, &v, sizeof v));
	showaddr("rgetsockname (bound)", fd, 0);

	SHOW("rrecvfrom empty, nonblocking", rrecvfrom(fd, buf, sizeof buf, 0, NULL, NULL));
	SHOW("rrecv MSG_DONTWAIT", rrecv(fd, buf, sizeof buf, MSG_DONTWAIT));
	pfd.fd = fd;
	pfd.events = POLLIN | POLLOUT;
	pfd.revents = 0;
	SHOW("rpoll IN|OUT 0 ms", rpoll(&pfd, 1, 0));
	printf("revents %#x\n", pfd.revents);
	pfd.events = POLLIN;
	pfd.revents = 0;
	SHOW("rpoll IN 100 ms", rpoll(&pfd, 1, 100));
	printf("revents %#x\n", pfd.revents);

	if (!nosend) {
		peer = me;
		peer.sin_port = htons(port + 1);
		SHOW("rsendto 10.0.2.15 PORT+1", rsendto(fd, "x", 1, 0, (struct sockaddr *) &peer, sizeof peer));
		SHOW("rconnect 10.0.2.15 PORT+1", rconnect(fd, (struct sockaddr *) &peer, sizeof peer));
		showaddr("rgetpeername (UDP connected)", fd, 1);
	}
	SHOW("rshutdown", rshutdown(fd, SHUT_RDWR));
	SHOW("rclose", rclose(fd));
	SHOW("rclose again (EBADF returned)", rclose(fd));
	return 0;
}
