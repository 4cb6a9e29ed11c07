/*
 * cancel_case.h: the one step of the cancellation probes (cm_cancel.c,
 * preload_cancel.c). cancel_case(NAME, FN) starts a thread running FN
 * (which blocks in the call under test and returns (void *)1 if that call
 * ever returns), cancels it after 300 ms, joins it and prints how it ended:
 * "cancelled" (PTHREAD_CANCELED), "returned" or "failed".
 */
#ifndef CANCEL_CASE_H
#define CANCEL_CASE_H
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static inline void cancel_case(const char *name, void *(*fn)(void *))
{
	pthread_t t;
	void *ret;
	pthread_create(&t, NULL, fn, NULL);
	usleep(300000);
	int r = pthread_cancel(t);
	int j = pthread_join(t, &ret);
	printf("%-22s cancel %d join %d thread %s\n", name, r, j,
	       ret == PTHREAD_CANCELED ? "cancelled" : ret == (void *)1 ? "returned" : "failed");
}
#endif
