/*
 * cm-yields.c: an LD_PRELOAD shim for cmtime's client that counts, per step,
 * the sched_yield calls of cmtime's main thread, which spins on sched_yield
 * while it waits for the event thread to complete a step. It adds almost
 * nothing to the process: a counter increment per sched_yield, and a
 * getrusage call at each step's heading, which cmtime prints with puts after
 * the previous step's clock stopped and before this step's starts (so no
 * step is charged for it). Nothing wraps the rdma_* calls, so the main
 * thread's CPU time, and with it the scheduler's choices, stay as they are
 * without the shim.
 *
 * At exit it prints to stderr two lines per step seen:
 *     YIELDS <heading> <count>
 *     CSW <heading> <voluntary> <involuntary> <minor faults>
 * the second being the process's context switches and page faults in the
 * step, from getrusage at the headings (the last step's run to the exit),
 * and one more line per step:
 *     CPU <heading> <main> <others> <server> <interval>
 * in ns: the CPU time of cmtime's main thread, of the client's other
 * threads (its event thread), of the server process when CM_SERVER_PID
 * names it, and the interval between the two headings (CLOCK_MONOTONIC).
 * Under icount each is guest instructions, so the interval less the three
 * is the rest of the guest (kernel workers, softirqs, idle jumps). The
 * clocks are read with three syscalls at each heading, outside every step.
 *
 * Experiment: with CM_BURN_STEP=<heading> (e.g. "resolving route") and
 * CM_BURN_NS=<n>, the main thread busy-waits n ns of CLOCK_MONOTONIC in the
 * puts of that heading, that is after the previous step's clock stopped and
 * before this step's started: outside every step's window. Under icount
 * (1 ns per guest instruction) that is n instructions of main-thread CPU
 * time that no step is charged for.
 *
 * Experiment: with CM_MAIN_IDLE=1, the main thread switches itself to
 * SCHED_IDLE at the "resolving address" heading (the event thread exists by
 * then and keeps the normal policy). Its busy-wait then runs only when no
 * other thread of the VM (the event thread, the server, kernel workers) can
 * run, so it no longer takes a share of the CPU from the work it waits for.
 *
 * Why: on one CPU, a sched_yield only hands the CPU to the runnable event
 * thread when the scheduler finds that thread's virtual runtime close enough
 * to the main thread's (CFS picks the yielding task again otherwise), so a
 * main thread that used less CPU earlier spins longer. See
 * docs/benchmarks.md, cmtime.
 *
 *   cc -O2 -shared -fPIC -o cm-yields.so cm-yields.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "cm-yieldcount.h"

#define MAX_STEPS 16

static int nsteps;
static const char *heading[MAX_STEPS];
static long at[MAX_STEPS];
static struct rusage ru_at[MAX_STEPS + 1];
/* main thread, whole client process, server process, monotonic */
static long long cpu_at[MAX_STEPS + 1][4];

static long long ns_of(clockid_t c)
{
	struct timespec t;

	if (clock_gettime(c, &t))
		return -1;
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void cpu_snapshot(long long *v)
{
	static clockid_t server;
	static int looked;

	if (!looked) {
		const char *pid = getenv("CM_SERVER_PID");

		looked = 1;
		if (!pid || clock_getcpuclockid(atoi(pid), &server))
			server = (clockid_t)-1;
	}
	v[0] = ns_of(CLOCK_THREAD_CPUTIME_ID);
	v[1] = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	v[2] = server == (clockid_t)-1 ? -1 : ns_of(server);
	v[3] = ns_of(CLOCK_MONOTONIC);
}

int puts(const char *s)
{
	static int (*real)(const char *);

	if (!real)
		real = (int (*)(const char *))dlsym(RTLD_NEXT, "puts");
	const char *burn = getenv("CM_BURN_STEP");

	if (burn && !strcmp(burn, s)) {
		const char *ns = getenv("CM_BURN_NS");
		long long n = ns ? atoll(ns) : 0, end;
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		end = t.tv_sec * 1000000000LL + t.tv_nsec + n;
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while (t.tv_sec * 1000000000LL + t.tv_nsec < end);
	}
	if (!strcmp(s, "resolving address") && getenv("CM_MAIN_IDLE")) {
		struct sched_param p = { .sched_priority = 0 };

		if (sched_setscheduler(0, SCHED_IDLE, &p))
			perror("cm-yields: sched_setscheduler(SCHED_IDLE)");
	}
	if (nsteps < MAX_STEPS) {
		heading[nsteps] = s;
		getrusage(RUSAGE_SELF, &ru_at[nsteps]);
		cpu_snapshot(cpu_at[nsteps]);
		at[nsteps++] = __atomic_load_n(&yields, __ATOMIC_RELAXED);
	}
	return real(s);
}

__attribute__((destructor)) static void report(void)
{
	long end = __atomic_load_n(&yields, __ATOMIC_RELAXED);

	getrusage(RUSAGE_SELF, &ru_at[nsteps]);
	cpu_snapshot(cpu_at[nsteps]);
	for (int i = 0; i < nsteps; i++) {
		long long *a = cpu_at[i], *b = cpu_at[i + 1];
		long long main_ns = b[0] - a[0], proc_ns = b[1] - a[1];

		fprintf(stderr, "CPU %s %lld %lld %lld %lld\n", heading[i], main_ns,
			proc_ns - main_ns, a[2] < 0 || b[2] < 0 ? -1 : b[2] - a[2],
			b[3] - a[3]);
		fprintf(stderr, "YIELDS %s %ld\n", heading[i],
			(i + 1 < nsteps ? at[i + 1] : end) - at[i]);
		fprintf(stderr, "CSW %s %ld %ld %ld\n", heading[i],
			ru_at[i + 1].ru_nvcsw - ru_at[i].ru_nvcsw,
			ru_at[i + 1].ru_nivcsw - ru_at[i].ru_nivcsw,
			ru_at[i + 1].ru_minflt - ru_at[i].ru_minflt);
	}
}
