/*
 * preload_cancel: an ordinary program (no RDMA in it) whose threads block
 * in socket and file calls and are stopped with pthread_cancel, meant to
 * run under LD_PRELOAD of a librspreload. The blocking call is a
 * cancellation point in the C library, and with upstream's preload (C
 * wrappers) the thread ends with PTHREAD_CANCELED; the process goes on.
 * One line per case, then the process uses a pipe and closes everything.
 *
 * Cases: read on a pipe, recv on an AF_UNIX socketpair (both stay kernel
 * descriptors under the preload), accept on a TCP listener (an rsocket
 * under the preload: raccept), poll on the pipe and on the listener
 * (rpoll), select on the pipe, epoll_wait on an epoll set holding the pipe.
 * Usage: preload_cancel [ADDR [PORT]] (default 10.0.2.15 7484)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cancel_case.h"

static int pfd[2], sp[2], lfd = -1, epfd = -1;

static void *t_read(void *a)
{
	char c;
	(void)a;
	read(pfd[0], &c, 1);
	return (void *)1;
}

static void *t_recv(void *a)
{
	char c;
	(void)a;
	recv(sp[0], &c, 1, 0);
	return (void *)1;
}

static void *t_accept(void *a)
{
	(void)a;
	accept(lfd, NULL, NULL);
	return (void *)1;
}

static void *t_poll_pipe(void *a)
{
	struct pollfd p = { .fd = pfd[0], .events = POLLIN };
	(void)a;
	poll(&p, 1, -1);
	return (void *)1;
}

static void *t_poll_listener(void *a)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	(void)a;
	poll(&p, 1, -1);
	return (void *)1;
}

static void *t_select(void *a)
{
	fd_set r;
	(void)a;
	FD_ZERO(&r);
	FD_SET(pfd[0], &r);
	select(pfd[0] + 1, &r, NULL, NULL, NULL);
	return (void *)1;
}

static void *t_epoll(void *a)
{
	struct epoll_event ev;
	(void)a;
	epoll_wait(epfd, &ev, 1, -1);
	return (void *)1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	setvbuf(stdout, NULL, _IOLBF, 0);
	inet_pton(AF_INET, argc > 1 ? argv[1] : "10.0.2.15", &sin.sin_addr);
	sin.sin_port = htons(argc > 2 ? atoi(argv[2]) : 7484);

	if (pipe(pfd) || socketpair(AF_UNIX, SOCK_STREAM, 0, sp)) {
		perror("pipe/socketpair");
		return 1;
	}
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 2)) {
		perror("listener");
		return 1;
	}
	epfd = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = pfd[0] };
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, pfd[0], &ev)) {
		perror("epoll");
		return 1;
	}

	cancel_case("read", t_read);
	cancel_case("recv", t_recv);
	cancel_case("accept", t_accept);
	cancel_case("poll pipe", t_poll_pipe);
	cancel_case("poll listener", t_poll_listener);
	cancel_case("select", t_select);
	cancel_case("epoll_wait", t_epoll);

	/* Still working afterwards. */
	char c = 'x', d = 0;
	ssize_t w = write(pfd[1], &c, 1);
	ssize_t r = read(pfd[0], &d, 1);
	printf("after: write %zd read %zd byte %s\n", w, r, d == 'x' ? "ok" : "wrong");
	printf("after: close %d %d %d %d %d %d\n", close(epfd), close(lfd), close(sp[0]), close(sp[1]),
	       close(pfd[0]), close(pfd[1]));
	printf("done\n");
	return 0;
}
