/*
 * cm-stepcpu.c: an LD_PRELOAD shim for cmtime's client that records, at the
 * first call the program (not a library) makes to each rdma_* function that
 * opens one of cmtime's steps, and at exit:
 *   - CLOCK_MONOTONIC;
 *   - the CPU time of each of the process's threads (the kernel's
 *     per-thread scheduler clock, read with clock_gettime on the thread's
 *     CPU-time clock id, which brings a running thread's count up to date;
 *     the threads are listed from /proc/self/task);
 *   - the process's page faults and context switches (getrusage);
 *   - how many times the program has called sched_yield (cmtime's main
 *     thread spins on it while it waits for events).
 * Lines go to stderr, prefixed "STEPCPU". cm-stepcpu.py turns the snapshots
 * into per-step differences: which thread ran how long, and how much of the
 * window went to everything else (kernel workers, interrupts, the server,
 * idle time). Meant for a one-CPU VM booted with RDMA_VM_ICOUNT=0, where
 * all of these count guest instructions.
 *
 *   cc -O2 -shared -fPIC -o cm-stepcpu.so cm-stepcpu.c -ldl
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cm-yieldcount.h"

static void snapshot(const char *name)
{
	struct timespec ts;
	struct rusage ru;
	struct dirent *e;
	DIR *d;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "STEPCPU %s wall %lld\n", name, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	d = opendir("/proc/self/task");
	while (d && (e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		/* The kernel's CPU-time clock of thread tid, scheduler flavour
		 * (include/linux/posix-timers.h: per-thread bit 4, CPUCLOCK_SCHED 2). */
		clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 4 | 2);

		if (tid <= 0 || clock_gettime(clk, &ts))
			continue;
		fprintf(stderr, "STEPCPU %s task %d %lld\n", name, tid,
			(long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	}
	if (d)
		closedir(d);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "STEPCPU %s rusage minflt %ld vcsw %ld ivcsw %ld yields %ld\n", name,
		ru.ru_minflt, ru.ru_nvcsw, ru.ru_nivcsw, __atomic_load_n(&yields, __ATOMIC_RELAXED));
}

__attribute__((destructor)) static void at_exit(void)
{
	snapshot("exit");
}

static void step_hook(const char *name)
{
	snapshot(name + strlen("before "));
}

#include "cm-stepwrap.h"
