/*
 * rs_api: the rsocket API on one connection to ourselves over rxe0
 * (10.0.2.15), or over the device holding ADDR, one line per call: return
 * value and errno. Run once with Debian's librdmacm and once with ours
 * (`compare`); the output must match.
 *
 * Covers: option defaults and set/get (SOL_SOCKET, IPPROTO_TCP, SOL_RDMA,
 * unknown options), rfcntl, nonblocking raccept (EAGAIN) and rconnect
 * (EINPROGRESS, completed through rpoll, SO_ERROR), SOL_RDMA after connect
 * (EINVAL), MSG_PEEK, MSG_DONTWAIT on an empty socket, rsendmsg/rwritev
 * gather, rrecvmsg/rreadv (first vector only), rsendto on a stream socket
 * (EISCONN), half close (SHUT_WR: the peer reads EOF and can still send
 * back), full shutdown (POLLHUP), rclose of an unknown descriptor.
 * Usage: rs_api [PORT [ADDR]]
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
#include <sys/uio.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <rdma/rsocket.h>

#include "rs_show.h"

static void opts(const char *who, int fd)
{
	struct linger l = { 7, 7 };
	socklen_t len = sizeof l;
	printf("%s SO_RCVBUF %d SO_SNDBUF %d\n", who, getint(fd, SOL_SOCKET, SO_RCVBUF),
	       getint(fd, SOL_SOCKET, SO_SNDBUF));
	printf("%s SQSIZE %d RQSIZE %d INLINE %d IOMAPSIZE %d\n", who,
	       getint(fd, SOL_RDMA, RDMA_SQSIZE), getint(fd, SOL_RDMA, RDMA_RQSIZE),
	       getint(fd, SOL_RDMA, RDMA_INLINE), getint(fd, SOL_RDMA, RDMA_IOMAPSIZE));
	printf("%s NODELAY %d KEEPALIVE %d REUSEADDR %d KEEPIDLE %d MAXSEG %d ERROR %d\n", who,
	       getint(fd, IPPROTO_TCP, TCP_NODELAY), getint(fd, SOL_SOCKET, SO_KEEPALIVE),
	       getint(fd, SOL_SOCKET, SO_REUSEADDR), getint(fd, IPPROTO_TCP, TCP_KEEPIDLE),
	       getint(fd, IPPROTO_TCP, TCP_MAXSEG), getint(fd, SOL_SOCKET, SO_ERROR));
	if (rgetsockopt(fd, SOL_SOCKET, SO_LINGER, &l, &len) == 0)
		printf("%s LINGER onoff %d linger %d len %u\n", who, l.l_onoff, l.l_linger, len);
	printf("%s F_GETFL %#x\n", who, rfcntl(fd, F_GETFL));
}

static int wait_for(int fd, short events, const char *what)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n, rounds = 0;
	do {
		p.revents = 0;
		n = rpoll(&p, 1, 1000);
	} while (n == 0 && ++rounds < 30);
	printf("rpoll %-33s ret %d revents %#x\n", what, n, p.revents);
	return p.revents;
}

int main(int argc, char **argv)
{
	const char *port = argc > 1 ? argv[1] : "7480";
	const char *addr = argc > 2 ? argv[2] : "10.0.2.15";
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(atoi(port)) };
	struct sockaddr_in name;
	socklen_t nlen;
	int lfd, cfd, sfd, one = 1, v;
	char buf[256];
	struct iovec iov[3];
	struct msghdr msg;

	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "rs_api: not an IPv4 address: %s\n", addr);
		return 2;
	}

	SHOW("rsocket(AF_UNIX)", rsocket(AF_UNIX, SOCK_STREAM, 0));
	SHOW("rsocket(SOCK_STREAM, IPPROTO_UDP)", rsocket(AF_INET, SOCK_STREAM, IPPROTO_UDP));
	lfd = rsocket(AF_INET, SOCK_STREAM, 0);
	printf("rsocket listener ok %d\n", lfd >= 0);
	opts("fresh", lfd);

	SHOW("rsetsockopt SO_REUSEADDR 1", rsetsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
	SHOW("rsetsockopt TCP_NODELAY 1", rsetsockopt(lfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
	v = 32;
	SHOW("rsetsockopt RDMA_INLINE 32", rsetsockopt(lfd, SOL_RDMA, RDMA_INLINE, &v, sizeof v));
	v = 100;
	SHOW("rsetsockopt RDMA_SQSIZE 100", rsetsockopt(lfd, SOL_RDMA, RDMA_SQSIZE, &v, sizeof v));
	v = 40000;
	SHOW("rsetsockopt SO_RCVBUF 40000", rsetsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v));
	v = 100;
	SHOW("rsetsockopt SO_SNDBUF 100", rsetsockopt(lfd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v));
	v = 0;
	SHOW("rsetsockopt TCP_KEEPIDLE 0", rsetsockopt(lfd, IPPROTO_TCP, TCP_KEEPIDLE, &v, sizeof v));
	v = 30;
	SHOW("rsetsockopt TCP_KEEPIDLE 30", rsetsockopt(lfd, IPPROTO_TCP, TCP_KEEPIDLE, &v, sizeof v));
	SHOW("rsetsockopt SO_BROADCAST", rsetsockopt(lfd, SOL_SOCKET, SO_BROADCAST, &one, sizeof one));
	SHOW("rsetsockopt level 12345", rsetsockopt(lfd, 12345, 1, &one, sizeof one));
	SHOW("rgetsockopt SO_TYPE", getint(lfd, SOL_SOCKET, SO_TYPE));
	opts("set", lfd);

	SHOW("rbind ADDR", rbind(lfd, (struct sockaddr *) &sin, sizeof sin));
	SHOW("rlisten", rlisten(lfd, 4));
	SHOW("rlisten again", rlisten(lfd, 4));
	nlen = sizeof name;
	SHOW("rgetsockname listener", rgetsockname(lfd, (struct sockaddr *) &name, &nlen));
	printf("listener name family %d port ok %d len %u\n", name.sin_family,
	       name.sin_port == sin.sin_port, nlen);
	/* the length alone (librspreload's connect fallback asks so) */
	nlen = 0;
	SHOW("rgetsockname NULL, length 0", rgetsockname(lfd, NULL, &nlen));
	printf("rgetsockname length-only len %u\n", nlen);
	SHOW("rfcntl listener O_NONBLOCK", rfcntl(lfd, F_SETFL, O_NONBLOCK));
	SHOW("raccept nothing pending", raccept(lfd, NULL, NULL));
	SHOW("rfcntl F_GETOWN", rfcntl(lfd, F_GETOWN));

	cfd = rsocket(AF_INET, SOCK_STREAM, 0);
	SHOW("rfcntl client O_NONBLOCK", rfcntl(cfd, F_SETFL, O_NONBLOCK));
	SHOW("rconnect nonblocking", rconnect(cfd, (struct sockaddr *) &sin, sizeof sin));
	wait_for(cfd, POLLOUT, "client connected");
	printf("client SO_ERROR %d\n", getint(cfd, SOL_SOCKET, SO_ERROR));
	wait_for(lfd, POLLIN, "listener has a connection");
	nlen = sizeof name;
	sfd = raccept(lfd, (struct sockaddr *) &name, &nlen);
	printf("raccept ok %d peer family %d addr %s len %u\n", sfd >= 0, name.sin_family,
	       inet_ntoa(name.sin_addr), nlen);
	opts("accepted", sfd);
	v = 64;
	SHOW("rsetsockopt RDMA_SQSIZE connected", rsetsockopt(sfd, SOL_RDMA, RDMA_SQSIZE, &v, sizeof v));
	SHOW("rfcntl client blocking", rfcntl(cfd, F_SETFL, 0));

	SHOW("rsend hello world", rsend(cfd, "hello world", 11, 0));
	wait_for(sfd, POLLIN, "server readable");
	memset(buf, 0, sizeof buf);
	SHOW("rrecv MSG_PEEK 5", rrecv(sfd, buf, 5, MSG_PEEK));
	printf("peeked '%s'\n", buf);
	memset(buf, 0, sizeof buf);
	SHOW("rrecv 100", rrecv(sfd, buf, 100, 0));
	printf("read '%s'\n", buf);
	SHOW("rrecv MSG_DONTWAIT empty", rrecv(sfd, buf, 100, MSG_DONTWAIT));
	SHOW("rsendto with address", rsendto(cfd, "x", 1, 0, (struct sockaddr *) &sin, sizeof sin));
	SHOW("rwrite 4", rwrite(cfd, "abcd", 4));
	{
		fd_set rf;
		struct timeval tv = { 5, 0 };
		FD_ZERO(&rf);
		FD_SET(sfd, &rf);
		SHOW("rselect server readable", rselect(sfd + 1, &rf, NULL, NULL, &tv));
		printf("rselect readable set %d\n", FD_ISSET(sfd, &rf) != 0);
	}
	memset(buf, 0, sizeof buf);
	SHOW("rread 2", rread(sfd, buf, 2));
	printf("rread '%s'\n", buf);
	memset(buf, 0, sizeof buf);
	memset(&name, 0, sizeof name);
	nlen = sizeof name;
	SHOW("rrecvfrom 10", rrecvfrom(sfd, buf, 10, 0, (struct sockaddr *) &name, &nlen));
	printf("rrecvfrom '%s' from family %d addr %s len %u\n", buf, name.sin_family,
	       inet_ntoa(name.sin_addr), nlen);
	nlen = sizeof name;
	SHOW("rgetpeername client", rgetpeername(cfd, (struct sockaddr *) &name, &nlen));
	printf("client peer family %d port ok %d len %u\n", name.sin_family,
	       name.sin_port == sin.sin_port, nlen);
	nlen = 0;
	SHOW("rgetpeername NULL, length 0", rgetpeername(cfd, NULL, &nlen));
	printf("rgetpeername length-only len %u\n", nlen);
	{
		/* riomap before any connection data allows it: the peer gave no
		 * iomap table (size 0), so a writable mapping has no slot. */
		static char area[4096];
		SHOW("riomap PROT_WRITE without peer table", riomap(sfd, area, sizeof area, PROT_WRITE, 0, 0));
		SHOW("riomap PROT_NONE local", riomap(sfd, area, sizeof area, PROT_NONE, 0, -1) == (off_t) area);
		SHOW("riomap bad prot", riomap(sfd, area, sizeof area, PROT_READ, 0, 0));
		SHOW("riounmap local", riounmap(sfd, area, sizeof area));
		SHOW("riounmap again", riounmap(sfd, area, sizeof area));
		SHOW("riowrite without mapping", (long) riowrite(cfd, "x", 1, 0, 0));
	}

	iov[0].iov_base = "gath"; iov[0].iov_len = 4;
	iov[1].iov_base = "er-"; iov[1].iov_len = 3;
	iov[2].iov_base = "write"; iov[2].iov_len = 5;
	memset(&msg, 0, sizeof msg);
	msg.msg_iov = iov;
	msg.msg_iovlen = 3;
	SHOW("rsendmsg 3 vectors", rsendmsg(cfd, &msg, 0));
	SHOW("rwritev 3 vectors", rwritev(cfd, iov, 3));
	memset(buf, 0, sizeof buf);
	iov[0].iov_base = buf; iov[0].iov_len = 12;
	iov[1].iov_base = buf + 100; iov[1].iov_len = 12;
	msg.msg_iov = iov;
	msg.msg_iovlen = 2;
	SHOW("rrecvmsg 2 vectors", rrecvmsg(sfd, &msg, MSG_WAITALL));
	printf("first vector '%s' second '%s'\n", buf, buf + 100);
	memset(buf, 0, sizeof buf);
	SHOW("rreadv 2 vectors", rreadv(sfd, iov, 2));
	printf("first vector '%s' second '%s'\n", buf, buf + 100);
	memset(&msg, 0, sizeof msg);
	msg.msg_control = buf;
	msg.msg_controllen = 8;
	SHOW("rsendmsg with control data", rsendmsg(cfd, &msg, 0));

	SHOW("rshutdown client SHUT_WR", rshutdown(cfd, SHUT_WR));
	wait_for(sfd, POLLIN, "server after peer SHUT_WR");
	SHOW("rrecv after peer SHUT_WR", rrecv(sfd, buf, 100, 0));
	SHOW("rsend server to half-closed peer", rsend(sfd, "bye", 3, 0));
	memset(buf, 0, sizeof buf);
	SHOW("rrecv client after own SHUT_WR", rrecv(cfd, buf, 100, 0));
	printf("client read '%s'\n", buf);
	SHOW("rshutdown server SHUT_RDWR", rshutdown(sfd, SHUT_RDWR));
	wait_for(cfd, POLLIN, "client after peer SHUT_RDWR");
	SHOW("rrecv client after peer SHUT_RDWR", rrecv(cfd, buf, 100, 0));

	SHOW("rclose server", rclose(sfd));
	SHOW("rclose client", rclose(cfd));
	SHOW("rclose listener", rclose(lfd));
	SHOW("rclose unknown (returns EBADF)", rclose(lfd));
	SHOW("rsend unknown", rsend(lfd, "x", 1, 0));
	SHOW("rgetsockopt unknown", getint(lfd, SOL_SOCKET, SO_ERROR));
	return 0;
}
