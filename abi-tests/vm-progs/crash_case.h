/*
 * crash_case.h: the child-process runner shared by bad_input_crashes.c and
 * cm_bad_input_crashes.c. A case is a function that makes one call and
 * records what it returned in a struct outcome; it runs in a forked child so
 * that a crash (Debian's library, by design of those tests) ends only the
 * child. The parent learns the outcome through a pipe and the child's status
 * through waitpid.
 */
#ifndef CRASH_CASE_H
#define CRASH_CASE_H

#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct outcome {
	long ret;
	int is_null;
	uintptr_t ptr;
	int err;
};

/* What the child did: its wait status and whether a whole outcome came back. */
struct child_result {
	int status;
	int complete;
};

/* Exit code a child's per-case setup uses to say it failed. */
#define CRASH_CASE_SETUP_FAILED 4

/*
 * Runs setup (if any) and then fn in a child with a 20 s alarm (a hang shows
 * as SIGALRM) and errno cleared just before fn. Exits the program if the
 * harness itself (pipe, fork, waitpid) fails.
 */
static struct child_result run_in_child(void (*setup)(void), void (*fn)(struct outcome *),
					struct outcome *o)
{
	struct child_result r = { 0 };
	int pfd[2];
	pid_t pid;

	if (pipe(pfd)) {
		perror("pipe");
		exit(1);
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		close(pfd[0]);
		alarm(20);
		if (setup)
			setup();
		errno = 0;
		fn(o);
		if (write(pfd[1], o, sizeof(*o)) != sizeof(*o))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	r.complete = read(pfd[0], o, sizeof(*o)) == sizeof(*o);
	close(pfd[0]);
	if (waitpid(pid, &r.status, 0) != pid) {
		perror("waitpid");
		exit(1);
	}
	return r;
}

/* Did the child crash (a signal other than the hang alarm)? */
static int child_crashed(const struct child_result *r)
{
	return WIFSIGNALED(r->status) && WTERMSIG(r->status) != SIGALRM;
}

/* Did the child return normally with a whole outcome? */
static int child_returned(const struct child_result *r)
{
	return !WIFSIGNALED(r->status) && r->complete && !WEXITSTATUS(r->status);
}

/* How the result reads in a failure line; kind_ptr / kind_void say whether
 * the call returns a pointer or nothing (else an integer). */
static void describe_child(char *got, size_t len, const struct child_result *r,
			   const struct outcome *o, int kind_ptr, int kind_void)
{
	if (WIFSIGNALED(r->status))
		snprintf(got, len, "killed by signal %d (%s)", WTERMSIG(r->status),
			 strsignal(WTERMSIG(r->status)));
	else if (WEXITSTATUS(r->status) == CRASH_CASE_SETUP_FAILED)
		snprintf(got, len, "the case's setup failed");
	else if (!r->complete || WEXITSTATUS(r->status))
		snprintf(got, len, "the child failed (exit %d)", WEXITSTATUS(r->status));
	else if (kind_ptr)
		snprintf(got, len, "returned %s (%#lx), errno %d",
			 o->is_null ? "NULL" : "a pointer", (unsigned long)o->ptr, o->err);
	else if (kind_void)
		snprintf(got, len, "returned, errno %d", o->err);
	else
		snprintf(got, len, "returned %ld, errno %d", o->ret, o->err);
}

/*
 * Is sym defined by the library at debian_path (Debian's own), rather than
 * ours? 1 yes, 0 no, -1 cannot tell (the caller reports that and stops).
 */
static int bound_to(void *sym, const char *debian_path)
{
	Dl_info info;
	char real[PATH_MAX], deb[PATH_MAX];

	if (!dladdr(sym, &info) || !realpath(info.dli_fname, real) ||
	    !realpath(debian_path, deb))
		return -1;
	return !strcmp(real, deb);
}

#endif
