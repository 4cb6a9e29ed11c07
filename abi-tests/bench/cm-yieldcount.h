/*
 * cm-yieldcount.h: the sched_yield counter shared by cmtime's LD_PRELOAD
 * shims (cm-stepcpu.c, cm-yields.c). cmtime's main thread spins on
 * sched_yield while its event thread completes a step; every call made in
 * the process passes through here and adds one to `yields` (read it with
 * __atomic_load_n) before the real sched_yield runs.
 */
#include <dlfcn.h>

static long yields;

int sched_yield(void)
{
	static int (*real)(void);

	if (!real)
		real = (int (*)(void))dlsym(RTLD_NEXT, "sched_yield");
	__atomic_add_fetch(&yields, 1, __ATOMIC_RELAXED);
	return real();
}
