/*
 * madvise-misses.c: what a chain of dependent cache misses costs next to a
 * madvise, on this host. fork-bench's layout (N single-page DONTFORK
 * ranges among untouched pages, about 2N mappings), then in one process,
 * alternating rounds: K madvise(MADV_DOFORK) then K madvise(MADV_DONTFORK)
 * on random registered pages, either bare or each preceded by DEPTH
 * dependent loads (each address read from the previous line) in a buffer of
 * BUF KiB. This is the shape of a non-nested ibv_dofork_range: the lookup's
 * loads (hint slot, then block) come right after the previous call's
 * madvise has evicted much of the caches. Prints the medians of the bare
 * and the loaded rounds and of their per-round ratio.
 *
 *   cc -O2 -o madvise-misses abi-tests/bench/madvise-misses.c
 *   taskset -c 1 ./madvise-misses DEPTH [BUF_KIB] [N]      (HUGE=1: buffer on THP)
 *
 * STORE=before (or after): the loaded rounds also store to one more random
 * line of the buffer, whose address depends on the last load, before (or
 * after) the madvise: whether a store miss waits for the syscall as a load
 * miss does (the shape of a lookup that loads one line and writes another).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

enum { ROUNDS = 15, K = 2000 };

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp);
	return v[ROUNDS / 2];
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return fprintf(stderr, "usage: %s DEPTH [BUF_KIB] [N]\n", argv[0]), 2;
	int depth = atoi(argv[1]);
	size_t buf_size = (argc > 2 ? strtoul(argv[2], NULL, 0) : 1024) << 10;
	size_t n = argc > 3 ? strtoul(argv[3], NULL, 0) : 20000, lines = buf_size / 64;
	long ps = 4096;
	char *m = mmap(NULL, (2 * n + 1) * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char **live = malloc(n * sizeof(*live));
	uint64_t *buf;

	if (m == MAP_FAILED || !live || n < K || lines < 2)
		return fprintf(stderr, "setup failed\n"), 1;
	for (size_t i = 0; i < n; i++) {
		live[i] = m + (2 * i + 1) * ps;
		if (madvise(live[i], ps, MADV_DONTFORK))
			return perror("madvise"), 1;
	}
	if (getenv("HUGE")) {
		char *b = mmap(NULL, buf_size + (2 << 20), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			return perror("mmap"), 1;
		buf = (uint64_t *)(((uintptr_t)b + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
		madvise(buf, buf_size, MADV_HUGEPAGE);
	} else {
		buf = malloc(buf_size);
	}
	/* each line's first word: the index of another random line */
	for (size_t i = 0; i < lines; i++)
		buf[i * 8] = (rnd() % lines) * 8;

	double bare[2][ROUNDS], loaded[2][ROUNDS], ratio[2][ROUNDS];
	volatile uint64_t sink = 0;
	const char *store = getenv("STORE");
	int store_before = store && store[0] == 'b', store_after = store && store[0] == 'a';

	for (int r = 0; r < 2 * ROUNDS; r++) {
		int d = r & 1 ? depth : 0;

		for (size_t i = n - 1; i > 0; i--) {
			size_t j = rnd() % (i + 1);
			char *t = live[i];

			live[i] = live[j];
			live[j] = t;
		}
		double t[3];
		for (int phase = 0; phase < 2; phase++) {
			t[phase] = now_ns();
			for (size_t i = 0; i < K; i++) {
				uint64_t ix = ((uintptr_t)live[i] * 0x9e3779b97f4a7c15ull >> 20) % lines * 8;

				for (int l = 0; l < d; l++)
					ix = buf[ix];
				sink += ix;
				uint64_t *w = &buf[(ix / 8 * 7 + 3) % lines * 8 + 1];
				if (d && store_before)
					*w = i;
				madvise(live[i], ps, phase ? MADV_DONTFORK : MADV_DOFORK);
				if (d && store_after)
					*w = i;
			}
		}
		t[2] = now_ns();
		for (int phase = 0; phase < 2; phase++) {
			double v = (t[phase + 1] - t[phase]) / K;

			if (r & 1)
				loaded[phase][r / 2] = v;
			else
				bare[phase][r / 2] = v;
		}
	}
	for (int phase = 0; phase < 2; phase++)
		for (int r = 0; r < ROUNDS; r++)
			ratio[phase][r] = loaded[phase][r] / bare[phase][r];
	printf("depth %d%s buffer %zu KiB%s: dofork bare %.0f ns, loaded %.0f ns, ratio %.3f; "
	       "dontfork bare %.0f ns, loaded %.0f ns, ratio %.3f\n",
	       depth, store_before ? " +store before" : store_after ? " +store after" : "", buf_size >> 10, getenv("HUGE") ? " (THP)" : "",
	       median(bare[0]), median(loaded[0]), median(ratio[0]),
	       median(bare[1]), median(loaded[1]), median(ratio[1]));
	return 0;
}
