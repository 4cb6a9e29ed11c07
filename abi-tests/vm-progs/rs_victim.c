/*
 * rs_victim: an ordinary rsockets client of abi-tests/vm-progs/rs_hostile.c.
 * It connects, then reads until the stream ends or fails, printing what it
 * got; then tries one send. Every line is what an application sees: the
 * bytes received (printable, at most 32 shown per read), and how the reads
 * and the send ended (the errno's name).
 *
 *   rs_victim ADDR PORT
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rsocket.h>

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char buf[4096], shown[33];
	int s, n, i, total = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3) {
		fprintf(stderr, "usage: rs_victim ADDR PORT\n");
		return 2;
	}
	a.sin_port = htons(atoi(argv[2]));
	inet_pton(AF_INET, argv[1], &a.sin_addr);
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || rconnect(s, (struct sockaddr *)&a, sizeof(a))) {
		printf("connect: %s\n", strerrorname_np(errno));
		return 1;
	}
	printf("connected\n");
	for (;;) {
		n = rrecv(s, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < n && i < 32; i++)
			shown[i] = isprint((unsigned char)buf[i]) ? buf[i] : '.';
		shown[i] = 0;
		printf("read %d bytes: %s\n", n, shown);
		total += n;
		if (total > (1 << 20))
			break;
	}
	if (n == 0)
		printf("reads ended: end of stream\n");
	else if (n < 0)
		printf("reads ended: %s\n", strerrorname_np(errno));
	else
		printf("reads ended: more than 1 MiB arrived\n");
	n = rsend(s, "bye", 3, 0);
	printf("send: %s\n", n == 3 ? "ok" : n < 0 ? strerrorname_np(errno) : "short");
	rclose(s);
	return 0;
}
