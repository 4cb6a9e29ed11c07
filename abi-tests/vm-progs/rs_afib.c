/*
 * rs_afib: stream rsockets addressed with AF_IB (struct sockaddr_ib) over
 * rxe0, one line per call: return value and errno, and the family and
 * length of each address rgetsockname / rgetpeername report. Run once with
 * Debian's librdmacm and once with ours (`compare`); the output must match.
 *
 * A RoCE port has the AF_IB capability, so the kernel takes an AF_IB bind
 * and listen on rxe. The peer is named by rxe0's GID of ADDR (an
 * IPv4-mapped GID, which rxe keeps for the netdev's IPv4 address), and the
 * port rides in the service id (RDMA_IB_IP_PS_TCP | port), as upstream's
 * rdma_getaddrinfo builds it. Then one message each way when rconnect
 * succeeds. Usage: rs_afib [PORT [ADDR]]
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "rs_show.h"

static int port = 7482;
static struct sockaddr_ib dst;

static void fill_sib(struct sockaddr_ib *sib, const struct in_addr *ip)
{
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	sib->sib_pkey = htobe16(0xffff);
	sib->sib_sid = htobe64(RDMA_IB_IP_PS_TCP | (uint64_t)port);
	sib->sib_sid_mask = htobe64(RDMA_IB_IP_PS_MASK | RDMA_IB_IP_PORT_MASK);
	if (ip) {
		/* ::ffff:a.b.c.d */
		sib->sib_addr.sib_raw[10] = 0xff;
		sib->sib_addr.sib_raw[11] = 0xff;
		memcpy(&sib->sib_addr.sib_raw[12], ip, 4);
	}
}

static void show_name(const char *what, int fd, int peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	memset(&ss, 0, sizeof(ss));
	errno = 0;
	int r = peer ? rgetpeername(fd, (struct sockaddr *)&ss, &len)
		     : rgetsockname(fd, (struct sockaddr *)&ss, &len);
	printf("%-40s ret %d errno %s family %d len %u", what, r, r ? strerror(errno) : "-",
	       ss.ss_family, len);
	if (!r && ss.ss_family == AF_IB) {
		struct sockaddr_ib *sib = (struct sockaddr_ib *)&ss;
		printf(" sid %#llx", (unsigned long long)be64toh(sib->sib_sid));
	}
	printf("\n");
}

/* One line for a call that returns a descriptor (kept in *fd). */
#define SHOWFD(what, fd, expr) do { errno = 0; fd = (expr); \
	printf("%-40s ret %s errno %s\n", what, fd < 0 ? "-1" : "fd", fd < 0 ? strerror(errno) : "-"); } while (0)

static int lfd = -1;
static int accepted_ok;

static void *server(void *arg)
{
	(void)arg;
	int fd = raccept(lfd, NULL, NULL);
	if (fd < 0) {
		printf("server: raccept ret %d errno %s\n", fd, strerror(errno));
		return NULL;
	}
	char buf[64];
	ssize_t n = rrecv(fd, buf, sizeof(buf), 0);
	if (n > 0)
		n = rsend(fd, buf, n, 0);
	accepted_ok = n > 0;
	/* Wait for the client's close before closing. */
	rrecv(fd, buf, sizeof(buf), 0);
	rclose(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct in_addr ip = { 0 };
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		port = atoi(argv[1]);
	inet_pton(AF_INET, argc > 2 ? argv[2] : "10.0.2.15", &ip);

	/* Creation: AF_IB stream is accepted; bad types still fail. */
	SHOW("rsocket AF_IB SOCK_RAW", rsocket(AF_IB, SOCK_RAW, 0));
	SHOWFD("rsocket AF_IB SOCK_STREAM (listener)", lfd, rsocket(AF_IB, SOCK_STREAM, 0));
	if (lfd < 0)
		return 1;
	show_name("rgetsockname before bind", lfd, 0);

	/* A too-short address is refused by the kernel's checks. */
	struct sockaddr_ib any;
	fill_sib(&any, NULL);
	SHOW("rbind AF_IB short length", rbind(lfd, (struct sockaddr *)&any, sizeof(struct sockaddr_in6)));
	SHOW("rbind AF_IB wildcard GID, sid port", rbind(lfd, (struct sockaddr *)&any, sizeof(any)));
	show_name("rgetsockname after bind", lfd, 0);
	SHOW("rlisten", rlisten(lfd, 4));
	show_name("rgetpeername on listener", lfd, 1);

	pthread_t t;
	pthread_create(&t, NULL, server, NULL);

	int cfd, r;
	SHOWFD("rsocket AF_IB SOCK_STREAM (client)", cfd, rsocket(AF_IB, SOCK_STREAM, 0));
	fill_sib(&dst, &ip);
	SHOW("rconnect to the GID of ADDR", r = rconnect(cfd, (struct sockaddr *)&dst, sizeof(dst)));
	if (r == 0) {
		show_name("client rgetsockname", cfd, 0);
		show_name("client rgetpeername", cfd, 1);
		char out[] = "hello over AF_IB", in[64] = "";
		SHOW("rsend", rsend(cfd, out, sizeof(out), 0));
		ssize_t n = rrecv(cfd, in, sizeof(in), 0);
		printf("%-40s ret %zd data %s\n", "rrecv echo", n, n > 0 && !memcmp(in, out, sizeof(out)) ? "match" : "MISMATCH");
		SHOW("rclose client", rclose(cfd));
		pthread_join(t, NULL);
		printf("server echoed: %s\n", accepted_ok ? "yes" : "no");
	} else {
		/* Unblock the server's raccept: closing the listener. */
		SHOW("rclose client", rclose(cfd));
		SHOW("rshutdown listener", rshutdown(lfd, SHUT_RDWR));
		pthread_cancel(t);
		pthread_join(t, NULL);
	}
	SHOW("rclose listener", rclose(lfd));
	return 0;
}
