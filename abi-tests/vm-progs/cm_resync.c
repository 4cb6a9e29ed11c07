/*
 * cm_resync: librdmacm's device lookup when the address has no RDMA device,
 * and when an RDMA device appears while the process runs (hot-plug).
 *
 * The process first initialises librdmacm while rxe0 (on eth0) is the only
 * RDMA device, then, step by step:
 *   bind_no_interface     bind to 10.9.9.9, which no interface holds;
 *   bind_no_rdma_device   a dummy netdev d0 gets 10.9.9.9/24: bind again
 *                         (d0 has no RDMA device under it);
 *   resolve_no_rdma_device  the same for rdma_resolve_addr to 10.9.9.9;
 *   rdma_link_add         `rdma link add rxe9 type rxe netdev d0`, then wait
 *                         until rxe9's port is ACTIVE with 10.9.9.9's GID;
 *   resolve_after_link_add  a new id resolves 10.9.9.9: the library meets
 *                         rxe9 for the first time in the address query of
 *                         the resolve path and must re-sync its list;
 *   bind_after_link_add   a new id binds 10.9.9.9 (the bind path's lookup);
 *   bind_failed_id_again  the id whose bind failed before binds again;
 *   get_devices           rdma_get_devices lists both devices;
 *   rdma_link_add_2 ...   a second device (rxe8 on a second dummy netdev d1
 *                         with 10.8.8.8) is added after the library already
 *                         re-synced once, and is looked up by bind first.
 * With the argument "nodev" it tests instead a process that starts while
 * the machine has NO RDMA device: rxe0 is deleted first, then
 *   channel_no_device     rdma_create_event_channel fails (ENODEV);
 *   get_devices_no_device rdma_get_devices: NULL, 0 devices;
 *   create_id_no_device   rdma_create_id fails (ENODEV);
 *   rdma_link_add         rxe0 is added back on eth0 (10.0.2.15);
 *   channel_after_link_add, get_devices, bind / resolve 10.0.2.15: rxe0 is
 *                         found without restarting the process.
 * rxe0 is restored even when a step fails; run this mode last in the VM (it
 * gives rxe0 a new device index).
 *
 * Each step prints one line "step <name>: ret=<r> errno=<e|-> [device=<d>]"
 * (errno only after a failure; the device an id ended up on). Nothing printed
 * changes from run to run (no GUIDs, ports or handles). Every line is checked
 * against the transcript upstream's librdmacm 44.0 produces (Debian 12, in the
 * VM, recorded in expect_* below): a line that differs is followed by
 * "  MISMATCH, expected: ..." and the exit status is 1. So the scenario fails
 * when either library does not behave as documented, and the comparison of
 * the two runs shows where.
 *
 * What Debian's librdmacm 44.0 does (recorded in the VM, see expect_*): the
 * binds and resolves without a device fail with the kernel's errno
 * (EADDRNOTAVAIL without an interface, ENODEV without an RDMA device), and
 * it finds every hot-plugged device here: its lookup by GUID and device
 * index re-reads ibv_get_device_list on a miss, in the bind, resolve and
 * rdma_get_devices paths alike, and a process whose first use failed for
 * lack of any device initialises on its next call. So both libraries must
 * print the same transcript, and it is checked line by line.
 *
 * The whole test runs in a child process; the parent, which never touches
 * librdmacm, removes rxe9/rxe8 and the dummy netdevs afterwards. (rxe cannot
 * take a device away from a process that has it open: `rdma link delete`
 * would wait for the child to close it.)
 *
 * Needs root, iproute2's `ip` and `rdma`, the dummy and rdma_rxe modules:
 * the Soft-RoCE VM (abi-tests/vm). Linked with -lrdmacm by run-c-probe.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stdarg.h>
#include <rdma/rdma_cma.h>

static int nfail;

/* What Debian's librdmacm 44.0 prints, run in the Soft-RoCE VM. */
static const char *const expect_hotplug[] = {
	"step init: ok",
	"step bind_no_interface: ret=-1 errno=99",
	"step add_dummy_netdev: ok",
	"step bind_no_rdma_device: ret=-1 errno=19",
	"step resolve_no_rdma_device: ret=-1 errno=19",
	"step rdma_link_add: ok",
	"step rxe9_ready: ok",
	"step resolve_after_link_add: ret=0 errno=- device=rxe9",
	"step bind_after_link_add: ret=0 errno=- device=rxe9",
	"step bind_failed_id_again: ret=0 errno=- device=rxe9",
	"step get_devices: list n=2 rxe0 rxe9",
	"step add_dummy_netdev_2: ok",
	"step rdma_link_add_2: ok",
	"step rxe8_ready: ok",
	"step bind_after_link_add_2: ret=0 errno=- device=rxe8",
	"step resolve_after_link_add_2: ret=0 errno=- device=rxe8",
	NULL
};
static const char *const expect_nodev[] = {
	"step channel_no_device: NULL errno=19",
	"step get_devices_no_device: NULL n=0",
	"step create_id_no_device: ret=-1 errno=19",
	"step rdma_link_add: ok",
	"step rxe0_ready: ok",
	"step channel_after_link_add: ok",
	"step get_devices: list n=1 rxe0",
	"step bind_after_link_add: ret=0 errno=- device=rxe0",
	"step resolve_after_link_add: ret=0 errno=- device=rxe0",
	NULL
};
static const char *const *expect;
static int nline;

/* Print one line of the transcript and check it against the expected one. */
static void __attribute__((format(printf, 1, 2))) line(const char *fmt, ...)
{
	char buf[512];
	const char *want;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("%s\n", buf);
	want = expect[nline];
	if (want)
		nline++;
	if (!want || strcmp(buf, want)) {
		printf("  MISMATCH, expected: %s\n", want ? want : "(no more lines)");
		nfail++;
	}
	fflush(stdout);
}

static struct sockaddr_in addr4(const char *ip)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

static void report(const char *step, int ret, int err, struct rdma_cm_id *id)
{
	char e[16] = "-";

	if (ret)
		snprintf(e, sizeof(e), "%d", err);
	if (!ret && id)
		line("step %s: ret=%d errno=%s device=%s", step, ret, e,
		     id->verbs ? ibv_get_device_name(id->verbs->device) : "none");
	else
		line("step %s: ret=%d errno=%s", step, ret, e);
}

/* sh -c CMD; prints the step's line with the command's exit status. */
static void shell(const char *step, const char *cmd)
{
	int st = system(cmd);

	line("step %s: %s", step, st == 0 ? "ok" : "FAILED");
}

/* Wait (up to 30 s) until DEV's port 1 is ACTIVE and its GID table holds the
 * IPv4-mapped GID whose tail is GIDTAIL (e.g. "0a09:0909"). */
static void wait_ready(const char *step, const char *dev, const char *gidtail)
{
	char cmd[512];
	int i;

	snprintf(cmd, sizeof(cmd),
		 "grep -q ACTIVE /sys/class/infiniband/%s/ports/1/state 2>/dev/null && "
		 "cat /sys/class/infiniband/%s/ports/1/gids/* 2>/dev/null | grep -q 'ffff:%s$'",
		 dev, dev, gidtail);
	for (i = 0; i < 300; i++) {
		if (system(cmd) == 0) {
			line("step %s: ok", step);
			return;
		}
		usleep(100000);
	}
	line("step %s: FAILED (%s not ready)", step, dev);
}

static int bind_step(const char *step, struct rdma_cm_id **idp, const char *ip)
{
	struct sockaddr_in sin = addr4(ip);
	int ret, err;

	if (!*idp && rdma_create_id(NULL, idp, NULL, RDMA_PS_TCP)) {
		line("step %s: rdma_create_id failed, errno %d", step, errno);
		return -1;
	}
	errno = 0;
	ret = rdma_bind_addr(*idp, (struct sockaddr *)&sin);
	err = errno;
	report(step, ret, err, *idp);
	return ret;
}

static int resolve_step(const char *step, struct rdma_cm_id **idp, const char *ip)
{
	struct sockaddr_in sin = addr4(ip);
	int ret, err;

	if (!*idp && rdma_create_id(NULL, idp, NULL, RDMA_PS_TCP)) {
		line("step %s: rdma_create_id failed, errno %d", step, errno);
		return -1;
	}
	errno = 0;
	/* A synchronous id: the call waits for ADDR_RESOLVED / ADDR_ERROR. */
	ret = rdma_resolve_addr(*idp, NULL, (struct sockaddr *)&sin, 2000);
	err = errno;
	report(step, ret, err, *idp);
	return ret;
}

static void destroy(struct rdma_cm_id **idp)
{
	if (*idp)
		rdma_destroy_id(*idp);
	*idp = NULL;
}

/* The child's exit status: 1 if a line differed or some are missing. */
static int finish(void)
{
	if (expect[nline]) {
		printf("  MISMATCH, the transcript ends early; expected next: %s\n",
		       expect[nline]);
		nfail++;
	}
	return nfail ? 1 : 0;
}

/* "rdma_get_devices" as one line: NULL or the device names. */
static void get_devices(const char *step)
{
	struct ibv_context **devs;
	char names[256] = "";
	int i, n = -1;

	devs = rdma_get_devices(&n);
	for (i = 0; devs && devs[i]; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), " %s",
			 ibv_get_device_name(devs[i]->device));
	line("step %s: %s n=%d%s", step, devs ? "list" : "NULL", n, names);
	if (devs)
		rdma_free_devices(devs);
}

static int child_hotplug(void)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL, *failed = NULL;

	/* librdmacm's first use: its device list is {rxe0}. */
	ch = rdma_create_event_channel();
	if (!ch) {
		line("step init: rdma_create_event_channel failed, errno %d", errno);
		return finish();
	}
	line("step init: ok");

	bind_step("bind_no_interface", &id, "10.9.9.9");
	destroy(&id);

	shell("add_dummy_netdev",
	      "ip link add d0 type dummy && ip addr add 10.9.9.9/24 dev d0 && ip link set d0 up");
	bind_step("bind_no_rdma_device", &failed, "10.9.9.9");
	resolve_step("resolve_no_rdma_device", &id, "10.9.9.9");
	destroy(&id);

	shell("rdma_link_add", "rdma link add rxe9 type rxe netdev d0");
	wait_ready("rxe9_ready", "rxe9", "0a09:0909");
	resolve_step("resolve_after_link_add", &id, "10.9.9.9");
	destroy(&id);
	bind_step("bind_after_link_add", &id, "10.9.9.9");
	destroy(&id);
	bind_step("bind_failed_id_again", &failed, "10.9.9.9");
	destroy(&failed);

	get_devices("get_devices");

	/* A second device, after the library's list was re-synced once
	 * already: this time the bind path meets it first. */
	shell("add_dummy_netdev_2",
	      "ip link add d1 type dummy && ip addr add 10.8.8.8/24 dev d1 && ip link set d1 up");
	shell("rdma_link_add_2", "rdma link add rxe8 type rxe netdev d1");
	wait_ready("rxe8_ready", "rxe8", "0a08:0808");
	bind_step("bind_after_link_add_2", &id, "10.8.8.8");
	destroy(&id);
	resolve_step("resolve_after_link_add_2", &id, "10.8.8.8");
	destroy(&id);

	rdma_destroy_event_channel(ch);
	return finish();
}

/* The process starts while there is no RDMA device (the parent deleted
 * rxe0); then rxe0 comes back. */
static int child_nodev(void)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	int ret;

	errno = 0;
	ch = rdma_create_event_channel();
	if (ch)
		line("step channel_no_device: ok");
	else
		line("step channel_no_device: NULL errno=%d", errno);
	if (ch)
		rdma_destroy_event_channel(ch);
	get_devices("get_devices_no_device");
	errno = 0;
	ret = rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP);
	report("create_id_no_device", ret, errno, NULL);
	if (!ret)
		destroy(&id);

	shell("rdma_link_add", "rdma link add rxe0 type rxe netdev eth0");
	wait_ready("rxe0_ready", "rxe0", "0a00:020f");
	errno = 0;
	ch = rdma_create_event_channel();
	if (ch)
		line("step channel_after_link_add: ok");
	else
		line("step channel_after_link_add: NULL errno=%d", errno);
	get_devices("get_devices");
	bind_step("bind_after_link_add", &id, "10.0.2.15");
	destroy(&id);
	resolve_step("resolve_after_link_add", &id, "10.0.2.15");
	destroy(&id);
	if (ch)
		rdma_destroy_event_channel(ch);
	return finish();
}

/* rxe0 as the VM's /init leaves it: port ACTIVE, the IPv4 GID and the
 * link-local one in its table. */
static int rxe0_ready(void)
{
	return !system("grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null && "
		       "g=$(cat /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null) && "
		       "echo \"$g\" | grep -q 'ffff:0a00:020f$' && echo \"$g\" | grep -q '^fe80:'");
}

int main(int argc, char **argv)
{
	int nodev = argc > 1 && !strcmp(argv[1], "nodev");
	int st, rc, i;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	expect = nodev ? expect_nodev : expect_hotplug;
	if (nodev) {
		if (system("rdma link delete rxe0")) {
			printf("cannot delete rxe0\n");
			return 1;
		}
		for (i = 0; i < 300 && !access("/sys/class/infiniband/rxe0", F_OK); i++)
			usleep(100000);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0)
		_exit(nodev ? child_nodev() : child_hotplug());
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	/* Leave the VM as it was: the next run (the other library) starts from
	 * the same state. */
	if (nodev) {
		if (access("/sys/class/infiniband/rxe0", F_OK) &&
		    system("rdma link add rxe0 type rxe netdev eth0"))
			rc = 1;
		for (i = 0; i < 300 && !rxe0_ready(); i++)
			usleep(100000);
		if (!rxe0_ready()) {
			printf("rxe0 was not restored\n");
			rc = 1;
		}
	} else if (system("rdma link delete rxe9 2>/dev/null; rdma link delete rxe8 2>/dev/null; "
			  "ip link del d0 2>/dev/null; ip link del d1 2>/dev/null; true")) {
		rc = 1;
	}
	printf("exit %d\n", rc);
	return rc;
}
