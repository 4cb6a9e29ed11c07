/* Fork-safety scenarios, run once against Debian's libibverbs.so.1 and once
 * against ours by the comparison test in tests.rs; it compares what they print.
 * Usage: compare SCENARIO. Lines starting with "diverge" are where the two
 * libraries are known to differ (upstream's broken rollback); the test checks
 * those separately. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* Exported at IBVERBS_1.1 but declared only in the providers' driver.h. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

#define PAGES 16
static long P;
static char *region;

/* 1 if the page holding addr is VM_DONTCOPY, 0 if not, -1 if unmapped. */
static int dontcopy(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[1024];
	int inside = 0, res = -1;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char *sp = strchr(line, ' '), *dash = strchr(line, '-');

		if (dash && sp && dash < sp &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (inside && !strncmp(line, "VmFlags:", 8)) {
			res = strstr(line, " dc") != NULL;
			break;
		}
	}
	if (f)
		fclose(f);
	return res;
}

static void show(const char *prefix, const char *what, int ret, int err)
{
	char map[PAGES + 1];

	for (int i = 0; i < PAGES; i++) {
		int d = dontcopy(region + i * P);
		map[i] = d < 0 ? '-' : '0' + d;
	}
	map[PAGES] = 0;
	printf("%s%-28s ret=%d errno=%d map=%s\n", prefix, what, ret, err, map);
}

#define OP(prefix, call)                                                       \
	do {                                                                   \
		errno = 0;                                                     \
		int r_ = (call);                                               \
		int e_ = r_ ? errno : 0;                                       \
		show(prefix, #call, r_, e_);                                   \
	} while (0)

#define PG(n) (region + (n) * P)

static void map_region(void)
{
	/* guard pages on both sides keep the kernel from merging our mapping
	 * with a neighbour */
	char *m = mmap(NULL, (PAGES + 2) * P, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	mprotect(m, P, PROT_NONE);
	mprotect(m + (PAGES + 1) * P, P, PROT_NONE);
	region = m + P;
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	P = sysconf(_SC_PAGESIZE);
	map_region();
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(s, "noinit")) {
		printf("status %d\n", ibv_is_fork_initialized());
		OP("", ibv_dontfork_range(PG(1), P));
		OP("", ibv_dofork_range(PG(1), P));
		printf("init %d\n", ibv_fork_init());
		printf("init %d\n", ibv_fork_init());
		printf("status %d\n", ibv_is_fork_initialized());
		OP("", ibv_dontfork_range(PG(1), P));
	} else if (!strcmp(s, "noinit-null")) {
		OP("", ibv_dontfork_range(NULL, 0));
		printf("init %d\n", ibv_fork_init());
	} else if (!strcmp(s, "noinit-dofork-zero")) {
		OP("", ibv_dofork_range(PG(1), 0));
		printf("init %d\n", ibv_fork_init());
	} else if (!strcmp(s, "double")) {
		printf("status %d\n", ibv_is_fork_initialized());
		printf("init %d\n", ibv_fork_init());
		printf("status %d\n", ibv_is_fork_initialized());
		printf("init %d\n", ibv_fork_init());
		printf("status %d\n", ibv_is_fork_initialized());
		OP("", ibv_dontfork_range(PG(0), P));
		printf("init %d\n", ibv_fork_init());
		OP("", ibv_dofork_range(PG(0), P));
	} else if (!strcmp(s, "ranges")) {
		printf("init %d\n", ibv_fork_init());
		OP("", ibv_dontfork_range(PG(2), (size_t)0 - 2 * P));
		OP("", ibv_dontfork_range(NULL, P));
		OP("", ibv_dontfork_range(PG(1), 0));
		OP("", ibv_dontfork_range(PG(1) + 1, 1));
		OP("", ibv_dontfork_range(PG(3) - 1, 2));
		OP("", ibv_dontfork_range(PG(1), 4 * P));
		OP("", ibv_dontfork_range(PG(5), 2 * P));
		OP("", ibv_dontfork_range(PG(0) + 7, 9 * P));
		OP("", ibv_dofork_range(PG(1), 4 * P));
		OP("", ibv_dofork_range(PG(1) + 1, 1));
		OP("", ibv_dofork_range(PG(0) + 7, 9 * P));
		OP("", ibv_dofork_range(PG(2), 2 * P));
		OP("", ibv_dofork_range(PG(5), P));
		OP("", ibv_dofork_range(PG(6), P));
		OP("", ibv_dofork_range(NULL, P));
		/* unbalanced: page 12 goes to -1 and back */
		OP("", ibv_dofork_range(PG(12), P));
		OP("", ibv_dontfork_range(PG(11), 3 * P));
		OP("", ibv_dontfork_range(PG(12), P));
		OP("", ibv_dofork_range(PG(11), 3 * P));
		OP("", ibv_dofork_range(PG(12), P));
		/* nested and adjacent */
		OP("", ibv_dontfork_range(PG(8), 8 * P));
		OP("", ibv_dontfork_range(PG(10), 2 * P));
		OP("", ibv_dontfork_range(PG(12), 2 * P));
		OP("", ibv_dofork_range(PG(8), 8 * P));
		OP("", ibv_dofork_range(PG(12), 2 * P));
		OP("", ibv_dofork_range(PG(10), 2 * P));
		printf("status %d\n", ibv_is_fork_initialized());
	} else if (!strcmp(s, "hole")) {
		printf("init %d\n", ibv_fork_init());
		munmap(PG(10), P);
		OP("", ibv_dontfork_range(PG(2), 3 * P));
		/* pages 0-1 go 0 -> 1, 2-4 1 -> 2, then 5-15 fails at page 10.
		 * Upstream rolls back 0-4 but takes 5 .. top of the address space
		 * to -1 and leaves 5-9 and 11-15 marked. */
		OP("diverge ", ibv_dontfork_range(PG(0), PAGES * P));
		OP("diverge ", ibv_dontfork_range(PG(14), P));
		OP("diverge ", ibv_dofork_range(PG(14), P));
		OP("diverge ", ibv_dofork_range(PG(6), P));
		OP("diverge ", ibv_dontfork_range(PG(10), P));
		OP("diverge ", ibv_dofork_range(PG(2), 3 * P));
	} else if (!strcmp(s, "hole-later")) {
		printf("init %d\n", ibv_fork_init());
		munmap(PG(10), P);
		OP("", ibv_dontfork_range(PG(2), 3 * P));
		OP("", ibv_dofork_range(PG(12), P));
		/* the failing stretch is 5-11: page 12 (count -1) bounds it */
		OP("diverge ", ibv_dontfork_range(PG(0), PAGES * P));
		OP("diverge ", ibv_dontfork_range(PG(14), P));
		OP("diverge ", ibv_dontfork_range(PG(7), P));
		OP("diverge ", ibv_dofork_range(PG(7), P));
		OP("diverge ", ibv_dofork_range(PG(14), P));
		OP("diverge ", ibv_dofork_range(PG(2), 3 * P));
	} else if (!strcmp(s, "dofork-hole")) {
		printf("init %d\n", ibv_fork_init());
		OP("", ibv_dontfork_range(PG(8), 4 * P));
		munmap(PG(10), P);
		OP("", ibv_dofork_range(PG(8), 4 * P));
		OP("", ibv_dofork_range(PG(10), P));
		OP("", ibv_dontfork_range(PG(8), 2 * P));
	} else if (!strcmp(s, "random")) {
		uint64_t x = 88172645463325252ull;

		printf("init %d\n", ibv_fork_init());
		for (int step = 0; step < 400; step++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int first = x % PAGES, n = 1 + (x >> 8) % (PAGES - first);
			long head = (x >> 16) % P, tail = (x >> 32) % P;
			int dont = (x >> 48) % 100 < 55;
			char *base = PG(first) + head;
			char what[64];

			if (n == 1 && tail < head)
				tail = head;
			size_t size = PG(first + n - 1) + tail + 1 - base;
			errno = 0;
			int r = dont ? ibv_dontfork_range(base, size) :
				       ibv_dofork_range(base, size);
			snprintf(what, sizeof(what), "%s %d+%ld %zu",
				 dont ? "dontfork" : "dofork", first, head, size);
			show("", what, r, r ? errno : 0);
		}
	} else if (!strcmp(s, "mapcount")) {
		/* Past vm.max_map_count: a registration that must split a
		 * mapping fails in madvise. Fill the mapping table with a big
		 * PROT_NONE reservation whose every other page is made
		 * readable, until the kernel refuses. The map is only shown
		 * once the filler is gone (smaps is slow with 65,000 VMAs). */
		size_t room = 80000, made = 0;
		char *f;
		int r, e;

		printf("init %d\n", ibv_fork_init());
		OP("", ibv_dontfork_range(PG(2), 3 * P));
		f = mmap(NULL, 2 * room * P, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (f == MAP_FAILED) {
			perror("mmap filler");
			return 2;
		}
		while (made < room && !mprotect(f + (2 * made + 1) * P, P, PROT_READ))
			made++;
		printf("filler stopped by errno %d\n", made < room ? errno : 0);
#define BARE(call)                                                             \
	do {                                                                   \
		errno = 0;                                                     \
		r = (call);                                                    \
		e = r ? errno : 0;                                             \
		printf("%-36s ret=%d errno=%d\n", #call, r, e);                \
	} while (0)
		/* a page inside the untracked stretch 5-15: two splits */
		BARE(ibv_dontfork_range(PG(8), P));
		/* nested on 2-4: no madvise, works */
		BARE(ibv_dontfork_range(PG(2), 3 * P));
		BARE(ibv_dofork_range(PG(2), 3 * P));
		munmap(f, 2 * room * P);
		/* Upstream's rollback of the failed call took every page from 8
		 * up to -1: these registrations are not protected there. */
		OP("diverge ", ibv_dontfork_range(PG(13), P));
		OP("diverge ", ibv_dontfork_range(PG(8), P));
		OP("diverge ", ibv_dontfork_range(PG(0), 6 * P));
		OP("diverge ", ibv_dofork_range(PG(0), 6 * P));
		OP("diverge ", ibv_dofork_range(PG(8), P));
		OP("diverge ", ibv_dofork_range(PG(13), P));
		OP("", ibv_dofork_range(PG(2), 3 * P));
	} else if (!strcmp(s, "huge")) {
		printf("init %d\n", ibv_fork_init());
		OP("", ibv_dontfork_range(PG(3) + 5, P));
		OP("", ibv_dofork_range(PG(3), 1));
		OP("", ibv_dofork_range(PG(4), 1));
		printf("status %d\n", ibv_is_fork_initialized());
	} else if (!strcmp(s, "env")) {
		int n = -1;
		struct ibv_device **l = ibv_get_device_list(&n);

		printf("list %s\n", l ? "ok" : "NULL");
		if (l)
			ibv_free_device_list(l);
		printf("status %d\n", ibv_is_fork_initialized());
	} else if (!strcmp(s, "env-late")) {
		int n = -1;
		struct ibv_device **l;

		OP("", ibv_dontfork_range(PG(0), P));
		l = ibv_get_device_list(&n);
		printf("list %s\n", l ? "ok" : "NULL");
		if (l)
			ibv_free_device_list(l);
		printf("status %d\n", ibv_is_fork_initialized());
	} else {
		fprintf(stderr, "unknown scenario '%s'\n", s);
		return 2;
	}
	return 0;
}
