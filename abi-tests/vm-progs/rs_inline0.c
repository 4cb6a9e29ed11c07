/*
 * rs_inline0: a stream rsocket asking for no inline data (RDMA_INLINE 0, as
 * rstream's bandwidth tests do) connects to a listener of this process at
 * ADDR. On iWARP (rsockets' message mode sends each control message as an
 * inline SEND, so it needs at least 4 inline bytes) the device grants what
 * was asked and the blocking connect must fail as upstream's does, before
 * the listener is contacted (nothing here accepts: where the connect goes
 * ahead, it blocks until the scenario's timeout). One line per step: return
 * value and errno, then SO_ERROR.
 * Usage: rs_inline0 ADDR PORT
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <rdma/rsocket.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len;
	int lfd, fd, ret, v = 0, err = -1;

	if (argc != 3 || inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: rs_inline0 ADDR PORT\n");
		return 2;
	}
	sin.sin_port = htons(atoi(argv[2]));
	lfd = rsocket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || rbind(lfd, (struct sockaddr *) &sin, sizeof sin) || rlisten(lfd, 1)) {
		printf("listener setup failed: %s\n", strerror(errno));
		return 1;
	}
	fd = rsocket(AF_INET, SOCK_STREAM, 0);
	ret = rsetsockopt(fd, SOL_RDMA, RDMA_INLINE, &v, sizeof v);
	printf("rsetsockopt RDMA_INLINE 0: ret %d errno %d\n", ret, ret ? errno : 0);
	errno = 0;
	ret = rconnect(fd, (struct sockaddr *) &sin, sizeof sin);
	printf("rconnect: ret %d errno %d (%s)\n", ret, ret ? errno : 0, ret ? strerror(errno) : "-");
	len = sizeof err;
	ret = rgetsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	printf("SO_ERROR: ret %d value %d\n", ret, err);
	rclose(fd);
	rclose(lfd);
	return 0;
}
