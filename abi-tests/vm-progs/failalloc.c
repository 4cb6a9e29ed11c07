/*
 * failalloc.c: an LD_PRELOAD object that makes exactly one allocation of the
 * process fail, for the allocation-failure sweeps (abi-tests/vm-progs/
 * alloc-sweep).
 *
 * Every call of malloc, calloc, realloc (with a non-zero size),
 * reallocarray, posix_memalign, aligned_alloc, memalign, valloc and pvalloc
 * is counted, in whatever part of the process makes it: the program, libc,
 * the RDMA libraries, their providers. The call whose number is
 * $FAILALLOC_N (counting from 1) fails as the C library reports a failed
 * allocation: NULL (posix_memalign: ENOMEM) with errno ENOMEM. Every other
 * call is passed to glibc's own allocator.
 *
 *   FAILALLOC_N=N            the call to fail (unset or 0: none fails)
 *   FAILALLOC_COUNT=FILE     at exit, write the number of calls counted
 *   FAILALLOC_BACKTRACE=1    print the stack of the failed call on stderr
 *                            (for finding the allocation site of a crash;
 *                            addresses are library+offset, for addr2line)
 *
 * The calls that glibc's own unwinder set-up makes in this object's
 * constructor (see there) are not counted. The counter is one atomic, so a failure lands on a deterministic call as
 * long as the program's threads allocate in a deterministic order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static unsigned long fail_at;
static int want_backtrace;
static atomic_ulong calls;

static unsigned long env_number(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoul(v, NULL, 10) : 0;
}

__attribute__((constructor)) static void failalloc_init(void)
{
	void *warm[2];

	/* glibc loads libgcc_s, by its own dlopen, the first time it unwinds
	 * a stack: for backtrace(), and for pthread_exit and pthread_cancel
	 * (one cached handle serves all three). If that dlopen's allocation
	 * is the one that fails, glibc aborts ("libgcc_s.so.1 must be
	 * installed for pthread_exit to work") whatever the program or its
	 * libraries do. Load it now, before any call is counted, so that a
	 * sweep measures the program and its libraries, not that. */
	backtrace(warm, 2);
	atomic_store(&calls, 0);
	fail_at = env_number("FAILALLOC_N");
	want_backtrace = env_number("FAILALLOC_BACKTRACE") != 0;
}

__attribute__((destructor)) static void failalloc_fini(void)
{
	const char *path = getenv("FAILALLOC_COUNT");
	char line[32];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%lu\n", atomic_load(&calls));
	if (write(fd, line, n) != n)
		n = -1;
	close(fd);
}

/* Counts one call; true when this is the one to fail. */
static int fail_this(void)
{
	unsigned long n = atomic_fetch_add(&calls, 1) + 1;
	void *frames[64];
	int depth;

	if (!fail_at || n != fail_at)
		return 0;
	if (want_backtrace) {
		static const char head[] = "failalloc: this allocation fails:\n";

		if (write(2, head, sizeof(head) - 1) < 0)
			return 1;
		depth = backtrace(frames, 64);
		backtrace_symbols_fd(frames, depth, 2);
	}
	return 1;
}

void *malloc(size_t size)
{
	if (fail_this()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(size);
}

void *calloc(size_t nmemb, size_t size)
{
	if (fail_this()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(nmemb, size);
}

void *realloc(void *ptr, size_t size)
{
	/* realloc(p, 0) frees: not an allocation. */
	if (size && fail_this()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(ptr, size);
}

void *reallocarray(void *ptr, size_t nmemb, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(nmemb, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(ptr, total);
}

void *memalign(size_t align, size_t size)
{
	if (fail_this()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	return memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align % sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = memalign(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t size)
{
	return memalign(sysconf(_SC_PAGESIZE), size);
}

void *pvalloc(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);

	return memalign(page, (size + page - 1) & ~(size_t)(page - 1));
}
