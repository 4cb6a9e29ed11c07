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

/* Both private ABIs we serve bind these with the same arguments: bound at
 * IBVERBS_PRIVATE_34 (rdma-core 34 to 56) and, as the default, at
 * IBVERBS_PRIVATE_65. The C names themselves stay local. */
#define PRIVATE_BOTH(name)                                                 \
	__attribute__((visibility("default"),                              \
		       symver(#name "@IBVERBS_PRIVATE_34"),                \
		       symver(#name "@@IBVERBS_PRIVATE_65")))

/* Implemented in Rust (src/log.rs, src/sysfs.rs); hidden by the version script. */
int rs_verbs_log_enabled(uint32_t level);
void rs_verbs_log_write(const char *msg, size_t len);
int rs_read_ibdev_sysfs_file(char *buf, size_t size, void *sysfs_dev,
			     const char *relpath);

/* Providers log through this. errno is preserved. The context is not read,
 * so the two private ABIs' different verbs_context layouts do not matter. */
PRIVATE_BOTH(__verbs_log) __attribute__((format(printf, 3, 4)))
void rs_c_verbs_log(void *ctx, uint32_t level, const char *fmt, ...)
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

/* Reads <ibdev_path>/<printf(fnfmt, ...)>. */
PRIVATE_BOTH(ibv_read_ibdev_sysfs_file) __attribute__((format(printf, 4, 5)))
int rs_c_read_ibdev_sysfs_file(char *buf, size_t size, void *sysfs_dev,
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
