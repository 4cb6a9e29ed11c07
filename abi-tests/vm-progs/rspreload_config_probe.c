/*
 * rspreload_config_probe: which socket() calls a librspreload turns into
 * rsockets, under a table of /etc/rdma/rsocket/preload_config contents,
 * program names and RS_* environment settings. Run it under LD_PRELOAD of
 * the preload to test (abi-tests/vm-progs/rspreload-run does that).
 *
 * For each case the probe writes the config file (or removes it), then runs
 * itself again through /proc/self/exe with the case's program name as
 * argv[0] (the preload reads its settings once per process, and matches
 * rules against that name). The child calls socket() for a list of
 * domain/type/protocol triples and prints, for each, what it got: an
 * rsocket (the preload hands out a /dev/null descriptor as the program's
 * number for an rsocket, so fstat() shows a character device), a kernel
 * socket (S_IFSOCK), or the error. For rsockets it also prints the rsocket
 * queue sizes and inline size read back with getsockopt(SOL_RDMA, ...),
 * which show the RS_SQ_SIZE / RS_RQ_SIZE / RS_INLINE settings.
 * The config file is removed at the end. Datagram rsockets are left open
 * (see child()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#ifndef AF_IB
#define AF_IB 27
#endif
#define SOL_RDMA 0x10000
#define RDMA_SQSIZE 0
#define RDMA_RQSIZE 1
#define RDMA_INLINE 2

#define CONFIG "/etc/rdma/rsocket/preload_config"

static const struct {
	const char *name;
	int domain, type, protocol;
} calls[] = {
	{ "INET STREAM 0", AF_INET, SOCK_STREAM, 0 },
	{ "INET STREAM TCP", AF_INET, SOCK_STREAM, IPPROTO_TCP },
	{ "INET6 STREAM 0", AF_INET6, SOCK_STREAM, 0 },
	{ "INET DGRAM 0", AF_INET, SOCK_DGRAM, 0 },
	{ "INET6 DGRAM UDP", AF_INET6, SOCK_DGRAM, IPPROTO_UDP },
	{ "INET STREAM|CLOEXEC 0", AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0 },
	{ "INET STREAM UDP", AF_INET, SOCK_STREAM, IPPROTO_UDP },
	{ "UNIX STREAM 0", AF_UNIX, SOCK_STREAM, 0 },
};

static const struct {
	const char *config; /* NULL: no file */
	const char *argv0;
	const char *env;    /* "NAME=VALUE" or NULL */
} cases[] = {
	{ NULL, "probe", NULL },
	{ NULL, "probe", "RS_SQ_SIZE=100" },
	{ NULL, "probe", "RS_RQ_SIZE=48" },
	{ NULL, "probe", "RS_INLINE=32" },
	{ "", "probe", NULL },
	{ "# only a comment\nnot enough words\nx UNIX STREAM TCP\ny INET RAW TCP\n", "probe", NULL },
	{ "tcp_x inet stream tcp\n", "tcp_xfer", NULL },
	{ "tcp_x inet stream tcp\n", "TCP_X", NULL },
	{ "tcp_x inet stream tcp\n", "tcp", NULL },
	{ "tcp_x inet stream tcp\n", "xtcp_x", NULL },
	{ "* INET DGRAM UDP\n", "probe", NULL },
	{ "* * STREAM *\n", "probe", NULL },
	{ "* INET6 * *\n", "probe", NULL },
	{ "probe AF_INET SOCK_STREAM IPPROTO_TCP\nprobe PF_INET6 sock_dgram ipproto_udp\n", "probe", NULL },
	{ "other * * *\n*\tINET\tSTREAM\tTCP   trailing words\n", "probe", NULL },
	{ " #not a comment INET STREAM TCP\n", "#not", NULL },
	{ "                                                                                                              "
	  "probe INET STREAM TCP\n* INET6 * *\n", "probe", NULL },
	/* a 63-byte program word, then the domain with no space between */
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "INET STREAM TCP\n",
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaax", NULL },
	/* a 64-byte program word: its last byte becomes the domain word */
	{ "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	  " INET STREAM TCP\n",
	  "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", NULL },
	{ "* IB * *\n", "probe", NULL },
};

static int child(void)
{
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		struct stat st;
		int s, v[3];

		errno = 0;
		s = socket(calls[i].domain, calls[i].type, calls[i].protocol);
		printf("  %-22s ", calls[i].name);
		if (s < 0) {
			printf("error %s\n", strerrorname_np(errno));
			continue;
		}
		if (fstat(s, &st)) {
			printf("fstat error %s\n", strerrorname_np(errno));
		} else if (S_ISSOCK(st.st_mode)) {
			printf("kernel socket\n");
		} else if (S_ISCHR(st.st_mode)) {
			int opts[3] = { RDMA_SQSIZE, RDMA_RQSIZE, RDMA_INLINE };
			printf("rsocket");
			for (int k = 0; k < 3; k++) {
				socklen_t len = sizeof v[k];
				if (getsockopt(s, SOL_RDMA, opts[k], &v[k], &len))
					printf(" %s:error %s", k == 0 ? "sq" : k == 1 ? "rq" : "inline",
					       strerrorname_np(errno));
				else
					printf(" %s=%d", k == 0 ? "sq" : k == 1 ? "rq" : "inline", v[k]);
			}
			printf("\n");
		} else {
			printf("other (mode %o)\n", st.st_mode & S_IFMT);
		}
		/* Debian's rclose() of a datagram rsocket that never sent waits
		 * for send completions forever (epoll_wait in ds_shutdown's
		 * completion loop): datagram sockets stay open until exit. */
		if (calls[i].type == SOCK_DGRAM && S_ISCHR(st.st_mode))
			continue;
		if (close(s))
			printf("  close: error %s\n", strerrorname_np(errno));
	}
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "child"))
		return child();

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		pid_t pid;
		int status;

		unlink(CONFIG);
		if (cases[c].config) {
			FILE *f;
			mkdir("/etc/rdma", 0755);
			mkdir("/etc/rdma/rsocket", 0755);
			f = fopen(CONFIG, "w");
			if (!f || fputs(cases[c].config, f) < 0 || fclose(f)) {
				perror(CONFIG);
				return 1;
			}
		}
		printf("case %zu: program %s, env %s, config %s\n", c, cases[c].argv0,
		       cases[c].env ? cases[c].env : "-", cases[c].config ? "" : "(none)");
		if (cases[c].config) {
			for (const char *p = cases[c].config; *p;) {
				const char *nl = strchr(p, '\n');
				int n = nl ? (int)(nl - p) : (int)strlen(p);
				printf("  | %.*s\n", n, p);
				p += n + (nl ? 1 : 0);
			}
		}
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			char *args[] = { (char *)cases[c].argv0, "child", NULL };
			if (cases[c].env)
				putenv((char *)cases[c].env);
			execv("/proc/self/exe", args);
			perror("execv");
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("  child failed (status %#x)\n", status);
			bad = 1;
		}
	}
	unlink(CONFIG);
	return bad;
}
