/*
 * Device-list probe for the fake-sysfs comparison test (tests/fake_sysfs.rs).
 *
 * Built at test time against Debian's headers and linked with -libverbs, then
 * run once with Debian's libibverbs.so.1 and once with ours; the two outputs
 * must be identical. It therefore never prints pointers, only facts derived
 * from them (names, GUIDs, whether two lists hold the same objects).
 *
 * Each argument is one step, executed in order:
 *   list      ibv_get_device_list(&n) (IBVERBS_1.1) and print every device
 *   listnull  same, with a NULL count pointer
 *   same      for each device of the newest list, its index in the previous
 *             list when it is the very same object, else -1
 *   guid      print ibv_get_device_guid() of the newest list's devices again
 *   first     print names and GUIDs of the first list's devices (they must
 *             stay valid while the list is held, even after hot-removal)
 *   open      ibv_open_device() on each device of the newest list
 *   v10       the IBVERBS_1.0 list: count, names and GUIDs through the 1.0
 *             entry points, whether each real_device is the object at the
 *             same index of the newest 1.1 list; then the 1.0 free
 *   sh:CMD    run CMD with system() (mutates the fake tree between steps)
 *   free      ibv_free_device_list() on every 1.1 list, oldest first
 *   nlcheck   report whether the kernel accepts an RDMA netlink socket (then
 *             the library ignores sysfs and fake trees are pointless)
 *   dlopen:P  dlopen(P, RTLD_NOW) and report "ok" or dlerror() (can a
 *             provider library be loaded into the libibverbs in use?)
 */
#define _GNU_SOURCE
#include <endian.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <infiniband/verbs.h>

/* The IBVERBS_1.0 entry points, bound by version on local names. The 1.0
 * list holds wrapper objects whose third pointer is the real device. */
struct probe_device_1_0 {
	void *obsolete_sysfs_dev;
	void *obsolete_sysfs_ibdev;
	struct ibv_device *real_device;
};

struct probe_device_1_0 **probe_get_device_list_1_0(int *num);
void probe_free_device_list_1_0(struct probe_device_1_0 **list);
const char *probe_get_device_name_1_0(struct probe_device_1_0 *device);
__be64 probe_get_device_guid_1_0(struct probe_device_1_0 *device);

__asm__(".symver probe_get_device_list_1_0, ibv_get_device_list@IBVERBS_1.0");
__asm__(".symver probe_free_device_list_1_0, ibv_free_device_list@IBVERBS_1.0");
__asm__(".symver probe_get_device_name_1_0, ibv_get_device_name@IBVERBS_1.0");
__asm__(".symver probe_get_device_guid_1_0, ibv_get_device_guid@IBVERBS_1.0");

#define MAX_LISTS 16

static struct ibv_device **lists[MAX_LISTS];
static int counts[MAX_LISTS];
static int nlists;

static const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "0";
	case ENOSYS: return "ENOSYS";
	case ENOMEM: return "ENOMEM";
	case EINVAL: return "EINVAL";
	case ENXIO: return "ENXIO";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case EACCES: return "EACCES";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static unsigned long long guid_of(struct ibv_device *dev)
{
	return (unsigned long long)be64toh(ibv_get_device_guid(dev));
}

static void print_device(int i, struct ibv_device *d)
{
	printf("  [%d] name=%s dev_name=%s\n", i, ibv_get_device_name(d),
	       d->dev_name);
	printf("      dev_path=%s\n", d->dev_path);
	printf("      ibdev_path=%s\n", d->ibdev_path);
	printf("      node_type=%d (%s) transport_type=%d guid=%016llx index=%d\n",
	       (int)d->node_type, ibv_node_type_str(d->node_type),
	       (int)d->transport_type, guid_of(d), ibv_get_device_index(d));
}

static void do_list(int with_count)
{
	struct ibv_device **l;
	int n = -12345, i;

	if (nlists == MAX_LISTS) {
		printf("too many lists\n");
		exit(99);
	}
	errno = 0;
	l = ibv_get_device_list(with_count ? &n : NULL);
	if (!l) {
		int e = errno;

		printf("list: NULL errno=%s (%s) n=%d\n", errname(e),
		       strerror(e), n);
		return;
	}
	if (!with_count)
		for (n = 0; l[n]; n++)
			;
	printf("list: n=%d\n", n);
	for (i = 0; i < n; i++)
		print_device(i, l[i]);
	if (l[n])
		printf("  list is not NULL-terminated at %d\n", n);
	lists[nlists] = l;
	counts[nlists] = n;
	nlists++;
}

static void do_same(void)
{
	int i, j;

	if (nlists < 2) {
		printf("same: need two lists\n");
		return;
	}
	printf("same:");
	for (i = 0; i < counts[nlists - 1]; i++) {
		int found = -1;

		for (j = 0; j < counts[nlists - 2]; j++)
			if (lists[nlists - 1][i] == lists[nlists - 2][j])
				found = j;
		printf(" %d", found);
	}
	printf("\n");
}

static void do_guid(void)
{
	int i;

	if (!nlists) {
		printf("guid: no list\n");
		return;
	}
	for (i = 0; i < counts[nlists - 1]; i++)
		printf("guid [%d] %s %016llx\n", i,
		       ibv_get_device_name(lists[nlists - 1][i]),
		       guid_of(lists[nlists - 1][i]));
}

static void do_first(void)
{
	int i;

	if (!nlists) {
		printf("first: no list\n");
		return;
	}
	for (i = 0; i < counts[0]; i++)
		printf("first [%d] %s %s %016llx\n", i,
		       ibv_get_device_name(lists[0][i]), lists[0][i]->dev_name,
		       guid_of(lists[0][i]));
}

static void do_open(void)
{
	int i;

	if (!nlists) {
		printf("open: no list\n");
		return;
	}
	for (i = 0; i < counts[nlists - 1]; i++) {
		struct ibv_context *ctx;

		errno = 0;
		ctx = ibv_open_device(lists[nlists - 1][i]);
		if (!ctx) {
			int e = errno;

			printf("open [%d] %s: NULL errno=%s\n", i,
			       ibv_get_device_name(lists[nlists - 1][i]),
			       errname(e));
		} else {
			printf("open [%d] %s: context, close=%d\n", i,
			       ibv_get_device_name(lists[nlists - 1][i]),
			       ibv_close_device(ctx));
		}
	}
}

static void do_v10(void)
{
	struct probe_device_1_0 **l;
	int n = -12345, i;

	errno = 0;
	l = probe_get_device_list_1_0(&n);
	if (!l) {
		int e = errno;

		printf("v10: NULL errno=%s n=%d\n", errname(e), n);
		return;
	}
	printf("v10: n=%d\n", n);
	for (i = 0; i < n; i++) {
		const char *rel = "no 1.1 list";

		if (nlists) {
			if (i < counts[nlists - 1] &&
			    l[i]->real_device == lists[nlists - 1][i])
				rel = "same object as 1.1 entry";
			else
				rel = "NOT the 1.1 entry";
		}
		printf("  [%d] name=%s guid=%016llx real_device: %s\n", i,
		       probe_get_device_name_1_0(l[i]),
		       (unsigned long long)be64toh(probe_get_device_guid_1_0(l[i])),
		       rel);
		if (strcmp(probe_get_device_name_1_0(l[i]),
			   ibv_get_device_name(l[i]->real_device)))
			printf("      1.0 name differs from the real device's\n");
	}
	if (l[n])
		printf("  1.0 list is not NULL-terminated at %d\n", n);
	probe_free_device_list_1_0(l);
	printf("v10: freed\n");
}

static void do_free(void)
{
	int i;

	for (i = 0; i < nlists; i++)
		ibv_free_device_list(lists[i]);
	printf("free: %d list(s)\n", nlists);
	nlists = 0;
}

static void do_nlcheck(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	int fd;

	/* NETLINK_RDMA is 20. */
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 20);
	if (fd < 0) {
		printf("rdma-netlink: no (%s)\n", errname(errno));
		return;
	}
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		printf("rdma-netlink: no (bind %s)\n", errname(errno));
		close(fd);
		return;
	}
	close(fd);
	printf("rdma-netlink: yes\n");
}

int main(int argc, char **argv)
{
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "list"))
			do_list(1);
		else if (!strcmp(a, "listnull"))
			do_list(0);
		else if (!strcmp(a, "same"))
			do_same();
		else if (!strcmp(a, "guid"))
			do_guid();
		else if (!strcmp(a, "first"))
			do_first();
		else if (!strcmp(a, "open"))
			do_open();
		else if (!strcmp(a, "v10"))
			do_v10();
		else if (!strcmp(a, "free"))
			do_free();
		else if (!strcmp(a, "nlcheck"))
			do_nlcheck();
		else if (!strncmp(a, "dlopen:", 7)) {
			if (dlopen(a + 7, RTLD_NOW))
				printf("dlopen: ok\n");
			else
				printf("dlopen: %s\n", dlerror());
		} else if (!strncmp(a, "sh:", 3))
			printf("sh: status %d\n", system(a + 3));
		else {
			fprintf(stderr, "probe: unknown step '%s'\n", a);
			return 2;
		}
	}
	return 0;
}
