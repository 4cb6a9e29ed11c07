/*
 * rs_show.h: what the rsocket API probes (rs_api.c, rs_dgram.c) print per
 * call: SHOW(what, expr) gives one line with the return value and errno;
 * getint() reads an int option, or -100 - errno if rgetsockopt fails.
 */
#ifndef RS_SHOW_H
#define RS_SHOW_H
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rdma/rsocket.h>

#define SHOW(what, expr) do { errno = 0; long r_ = (long)(expr); \
	printf("%-40s ret %ld errno %s\n", what, r_, r_ < 0 ? strerror(errno) : "-"); } while (0)

static inline int getint(int fd, int level, int name)
{
	int v = -12345;
	socklen_t len = sizeof v;
	int r = rgetsockopt(fd, level, name, &v, &len);
	if (r)
		return -100 - errno;
	return v;
}
#endif
