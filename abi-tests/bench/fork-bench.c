/*
 * fork-bench: cost per call of ibv_dontfork_range / ibv_dofork_range with
 * many live single-page ranges, next to the bare madvise() they wrap.
 *
 *   fork-bench plain N [ROUNDS]   N live ranges, no RDMAV_HUGEPAGES_SAFE
 *   fork-bench huge N [ROUNDS]    the same with RDMAV_HUGEPAGES_SAFE=1 (set
 *                                 here once the N ranges are registered,
 *                                 then ibv_fork_init() again to take it)
 *   fork-bench sparse N [ROUNDS]  as plain, but the ranges 4 MiB apart
 *                                 instead of 8 KiB, so no two share one of
 *                                 our library's 64-page (256 KiB) bitmap
 *                                 chunks: its worst layout
 *
 * Built once, linked with -libverbs; the library it measures is whichever
 * libibverbs.so.1 the dynamic linker picks (LD_LIBRARY_PATH). fork-bench.sh
 * runs it against Debian's library and ours and computes the ratios.
 *
 * Layout: 2N+1 pages of one anonymous mapping (never touched, so no memory
 * is used), whose odd pages 1, 3, ..., 2N-1 are registered (count 1) in
 * random order, so there are N separate ranges and about 2N+1 kernel VMAs,
 * as N separate single-page registrations give. Sparse mode: 1024 N + 1
 * pages, of which pages 1, 1025, 2049, ... are registered. Measured, in rounds that
 * alternate so drift hits all alike, each as a batch between two clock reads
 * (no timer inside the batch):
 *   floor_dofork / floor_dontfork: madvise(MADV_DOFORK) on K random live
 *       pages, then madvise(MADV_DONTFORK) on the same pages: the syscalls
 *       the library makes for a non-nested call, on the same VMA layout;
 *   dofork / dontfork: ibv_dofork_range (count 1 -> 0, one madvise) on K
 *       random live pages, then ibv_dontfork_range on them (0 -> 1);
 *   nested_dontfork / nested_dofork (plain mode only): ibv_dontfork_range on
 *       every live page in random order (1 -> 2, bookkeeping only), then
 *       ibv_dofork_range on every one in another random order (2 -> 1).
 * Each line printed is "NAME ns_per_call" (the median over the rounds), plus
 * "lib PATH" naming the library really loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* Exported at IBVERBS_1.1, declared only in rdma-core's driver.h. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void shuffle(char **v, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1);
		char *t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void check(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, "%s failed: ret %d errno %d (%s)\n", what, ret,
			errno, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "plain") && strcmp(argv[1], "huge") &&
			 strcmp(argv[1], "sparse"))) {
		fprintf(stderr, "usage: %s plain|huge|sparse N [ROUNDS]\n", argv[0]);
		return 2;
	}
	int huge = !strcmp(argv[1], "huge");
	/* Pages from one registered page to the next. */
	size_t stride = !strcmp(argv[1], "sparse") ? 1024 : 2;
	size_t n = strtoul(argv[2], NULL, 0);
	int rounds = argc > 3 ? atoi(argv[3]) : 7;
	long ps = sysconf(_SC_PAGESIZE);
	Dl_info info;

	if (n < 2 || rounds < 1)
		return 2;
	unsetenv("RDMAV_HUGEPAGES_SAFE");
	if (dladdr((void *)ibv_dontfork_range, &info) && info.dli_fname)
		printf("lib %s\n", info.dli_fname);
	check(ibv_fork_init(), "ibv_fork_init");

	char *m = mmap(NULL, (stride * n + 1) * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	char **live = malloc(n * sizeof(*live));
	for (size_t i = 0; i < n; i++)
		live[i] = m + (stride * i + 1) * ps;
	shuffle(live, n);
	for (size_t i = 0; i < n; i++)
		check(ibv_dontfork_range(live[i], ps), "initial ibv_dontfork_range");
	/* Both libraries look at RDMAV_HUGEPAGES_SAFE in every ibv_fork_init()
	 * call, and once seen it stays on: switching it on only now spares
	 * the setup upstream's smaps read per registration (tens of seconds
	 * for 4,000), and every measured call runs under it. */
	if (huge) {
		setenv("RDMAV_HUGEPAGES_SAFE", "1", 1);
		check(ibv_fork_init(), "second ibv_fork_init");
	}

	/* K pages per non-nested batch: enough to be well above the clock's
	 * resolution, few enough to keep the live count near N. Under
	 * RDMAV_HUGEPAGES_SAFE upstream takes milliseconds per call. */
	size_t k = huge ? (n >= 4000 ? 40 : 100) : (n / 10 < 2000 ? n / 10 : 2000);
	if (k < 1)
		k = 1;
	double *v[6];
	for (int i = 0; i < 6; i++)
		v[i] = calloc(rounds, sizeof(double));
	double t0, t1, t2;

	/* FORK_BENCH_ORDER: which of the floor and the library's non-nested
	 * batches comes first in a round: "floor" (the default), "lib", or
	 * "alternate" (the floor first in even rounds, the library in odd). */
	const char *order = getenv("FORK_BENCH_ORDER");
	int lib_first_mask = 0;	/* bit 0: odd rounds, bit 1: even rounds */

	if (order && !strcmp(order, "lib"))
		lib_first_mask = 3;
	else if (order && !strcmp(order, "alternate"))
		lib_first_mask = 1;
	else if (order && *order && strcmp(order, "floor")) {
		fprintf(stderr, "FORK_BENCH_ORDER must be floor, lib or alternate\n");
		return 2;
	}
	printf("order %s\n", lib_first_mask == 3 ? "lib" : lib_first_mask ? "alternate" : "floor");

	for (int r = 0; r < rounds; r++) {
		int lib_first = lib_first_mask & (r % 2 ? 1 : 2);

		for (int pass = 0; pass < 2; pass++) {
			if ((pass == 0) == !lib_first) {
				/* the floor: the same syscalls, without the library */
				shuffle(live, n);
				t0 = now_ns();
				for (size_t i = 0; i < k; i++)
					check(madvise(live[i], ps, MADV_DOFORK), "madvise(MADV_DOFORK)");
				t1 = now_ns();
				for (size_t i = 0; i < k; i++)
					check(madvise(live[i], ps, MADV_DONTFORK), "madvise(MADV_DONTFORK)");
				t2 = now_ns();
				v[0][r] = (t1 - t0) / k;
				v[1][r] = (t2 - t1) / k;
			} else {
				/* non-nested: 1 -> 0 -> 1 */
				shuffle(live, n);
				t0 = now_ns();
				for (size_t i = 0; i < k; i++)
					check(ibv_dofork_range(live[i], ps), "ibv_dofork_range");
				t1 = now_ns();
				for (size_t i = 0; i < k; i++)
					check(ibv_dontfork_range(live[i], ps), "ibv_dontfork_range");
				t2 = now_ns();
				v[2][r] = (t1 - t0) / k;
				v[3][r] = (t2 - t1) / k;
			}
		}

		if (huge)
			continue;
		/* nested: 1 -> 2 over all, then 2 -> 1 over all */
		shuffle(live, n);
		t0 = now_ns();
		for (size_t i = 0; i < n; i++)
			check(ibv_dontfork_range(live[i], ps), "nested ibv_dontfork_range");
		t1 = now_ns();
		shuffle(live, n);
		t2 = now_ns();
		for (size_t i = 0; i < n; i++)
			check(ibv_dofork_range(live[i], ps), "nested ibv_dofork_range");
		v[4][r] = (t1 - t0) / n;
		v[5][r] = (now_ns() - t2) / n;
	}

	printf("mode %s\nranges %zu\nrounds %d\nbatch %zu\n", argv[1], n, rounds, k);
	printf("floor_dofork %.1f\n", median(v[0], rounds));
	printf("floor_dontfork %.1f\n", median(v[1], rounds));
	printf("dofork %.1f\n", median(v[2], rounds));
	printf("dontfork %.1f\n", median(v[3], rounds));
	if (!huge) {
		printf("nested_dontfork %.1f\n", median(v[4], rounds));
		printf("nested_dofork %.1f\n", median(v[5], rounds));
	}
	return 0;
}
