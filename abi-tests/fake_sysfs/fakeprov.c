/*
 * A fake verbs provider for the fake-sysfs comparison test
 * (tests/fake_sysfs.rs). Built at test time as libfakeprov-rdmav34.so and
 * loaded through RDMAV_DRIVERS=<dir>/libfakeprov, with Debian's library and
 * with ours; both runs must print the same.
 *
 * It reports every callback the library makes into a provider during device
 * discovery (match_device, alloc_device, uninit_device) together with the
 * verbs_sysfs_dev the library filled in, and lets device names steer it:
 *   ...veto...    match_device refuses the device even on a table match
 *   ...force...   match_device accepts the device without a table match
 *   ...nomem...   alloc_device fails (library prints "couldn't allocate")
 * Two providers are registered, in this order:
 *   fakeprov      ABI 1..5, a table with a name pattern ("fk"), a PCI id
 *                 (abcd:1234), a modalias pattern ("platform:fakeprov*") and a
 *                 driver id (never matched in sysfs mode)
 *   fakenotable   ABI 0..100, no table at all; its match_device alone decides
 *                 (accepts names starting with "nt")
 *
 * The structures below restate the layout of rdma-core 44's provider ABI
 * (IBVERBS_PRIVATE_34, driver.h); only the fields read here matter, but the
 * layout must be exact up to them.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <infiniband/verbs.h>

struct fp_list_node {
	struct fp_list_node *next, *prev;
};

enum {
	FP_MATCH_SENTINEL = 0,
	FP_MATCH_PCI = 1,
	FP_MATCH_MODALIAS = 2,
	FP_MATCH_DRIVER_ID = 3,
};

struct fp_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

struct fp_sysfs_dev {
	struct fp_list_node entry;
	void *provider_data;
	const struct fp_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct fp_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct fp_match_ent *match_table;
	const struct fp_device_ops **static_providers;
	bool (*match_device)(struct fp_sysfs_dev *sysfs_dev);
	void *(*alloc_context)(struct ibv_device *device, int cmd_fd,
			       void *private_data);
	void *(*import_context)(struct ibv_device *device, int cmd_fd);
	struct fp_device *(*alloc_device)(struct fp_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct fp_device *device);
};

struct fp_device {
	struct ibv_device device;
	const struct fp_device_ops *ops;
	int refcount; /* atomic_int */
	struct fp_list_node entry;
	struct fp_sysfs_dev *sysfs;
	uint64_t core_support;
};

void verbs_register_driver_34(const struct fp_device_ops *ops);

static const struct fp_match_ent fakeprov_table[] = {
	{ .driver_data = (void *)11, .u.driver_id = 99,
	  .kind = FP_MATCH_DRIVER_ID },
	{ .driver_data = (void *)12, .u.modalias = "rdma_device:*Nfk*",
	  .kind = FP_MATCH_MODALIAS },
	{ .driver_data = (void *)13, .vendor = 0xabcd, .device = 0x1234,
	  .kind = FP_MATCH_PCI },
	{ .driver_data = (void *)14, .u.modalias = "platform:fakeprov*",
	  .kind = FP_MATCH_MODALIAS },
	{},
};

static void report(const char *who, const char *what,
		   const struct fp_sysfs_dev *s)
{
	struct stat st;
	const char *tc = "no";

	if (!stat(s->ibdev_path, &st) &&
	    st.st_mtim.tv_sec == s->time_created.tv_sec &&
	    st.st_mtim.tv_nsec == s->time_created.tv_nsec)
		tc = "yes";
	printf("%s: %s %s\n", who, what, s->ibdev_name);
	printf("    sysfs_name=%s cdev=%u:%u ibdev_path=%s\n", s->sysfs_name,
	       major(s->sysfs_cdev), minor(s->sysfs_cdev), s->ibdev_path);
	printf("    match=%s%ld modalias='%s' flags=%#x node_guid=%#llx driver_id=%u\n",
	       s->match ? "entry " : "none ",
	       s->match ? (long)(s->match - fakeprov_table) : -1L, s->modalias,
	       s->flags, (unsigned long long)s->node_guid, s->driver_id);
	printf("    node_type=%d ibdev_idx=%d num_ports=%u abi_ver=%u provider_data=%s time_created=mtime:%s\n",
	       (int)s->node_type, s->ibdev_idx, s->num_ports, s->abi_ver,
	       s->provider_data ? "set" : "NULL", tc);
}

static bool fakeprov_match_device(struct fp_sysfs_dev *s)
{
	bool ok = s->match != NULL;

	if (strstr(s->ibdev_name, "veto"))
		ok = false;
	if (strstr(s->ibdev_name, "force"))
		ok = true;
	report("fakeprov", ok ? "match_device yes" : "match_device no", s);
	return ok;
}

static bool fakenotable_match_device(struct fp_sysfs_dev *s)
{
	bool ok = !strncmp(s->ibdev_name, "nt", 2);

	report("fakenotable", ok ? "match_device yes" : "match_device no", s);
	return ok;
}

static struct fp_device *fake_alloc_device(const char *who,
					   struct fp_sysfs_dev *s)
{
	struct fp_device *d;

	report(who, "alloc_device", s);
	if (strstr(s->ibdev_name, "nomem"))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (d)
		strcpy(d->device.name, "provider-set");
	return d;
}

static struct fp_device *fakeprov_alloc_device(struct fp_sysfs_dev *s)
{
	return fake_alloc_device("fakeprov", s);
}

static struct fp_device *fakenotable_alloc_device(struct fp_sysfs_dev *s)
{
	return fake_alloc_device("fakenotable", s);
}

static void fake_uninit_device(struct fp_device *d)
{
	/* The library may already have freed d->sysfs: use only the device. */
	printf("%s: uninit_device name=%s dev_name=%s sysfs=%s\n",
	       d->ops ? d->ops->name : "(no ops)", d->device.name,
	       d->device.dev_name, d->sysfs ? "set" : "NULL");
	free(d);
}

static const struct fp_device_ops fakeprov_ops = {
	.name = "fakeprov",
	.match_min_abi_version = 1,
	.match_max_abi_version = 5,
	.match_table = fakeprov_table,
	.match_device = fakeprov_match_device,
	.alloc_device = fakeprov_alloc_device,
	.uninit_device = fake_uninit_device,
};

static const struct fp_device_ops fakenotable_ops = {
	.name = "fakenotable",
	.match_min_abi_version = 0,
	.match_max_abi_version = 100,
	.match_device = fakenotable_match_device,
	.alloc_device = fakenotable_alloc_device,
	.uninit_device = fake_uninit_device,
};

static void __attribute__((constructor)) fakeprov_register(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("fakeprov: loaded\n");
	verbs_register_driver_34(&fakeprov_ops);
	verbs_register_driver_34(&fakenotable_ops);
}
