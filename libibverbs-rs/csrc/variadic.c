/*
 * The two C-variadic exports of libibverbs. Stable Rust cannot define a
 * variadic function, so these shims format their arguments with the C library
 * and hand the finished string to Rust, where the real work happens.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

/* Implemented in Rust (src/log.rs, src/sysfs.rs); hidden by the version script. */
int rs_verbs_log_enabled(uint32_t level);
void rs_verbs_log_write(const char *msg, size_t len);
int rs_read_ibdev_sysfs_file(char *buf, size_t size, void *sysfs_dev,
			     const char *relpath);

/* IBVERBS_PRIVATE_34: providers log through this. errno is preserved. */
EXPORT __attribute__((format(printf, 3, 4)))
void __verbs_log(void *ctx, uint32_t level, const char *fmt, ...)
{
	int saved = errno;
	char *msg = NULL;
	va_list ap;
	int n;

	(void)ctx;
	if (!fmt || !rs_verbs_log_enabled(level))
		goto out;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		rs_verbs_log_write(msg, (size_t)n);
		free(msg);
	}
out:
	errno = saved;
}

/* IBVERBS_PRIVATE_34: read <ibdev_path>/<printf(fnfmt, ...)>. */
EXPORT __attribute__((format(printf, 4, 5)))
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, void *sysfs_dev,
			      const char *fnfmt, ...)
{
	char *path = NULL;
	va_list ap;
	int res;

	if (!sysfs_dev || !fnfmt) {
		errno = EINVAL;
		return -1;
	}
	va_start(ap, fnfmt);
	res = vasprintf(&path, fnfmt, ap);
	va_end(ap);
	if (res < 0)
		return -1;
	res = rs_read_ibdev_sysfs_file(buf, size, sysfs_dev, path);
	free(path);
	return res;
}
