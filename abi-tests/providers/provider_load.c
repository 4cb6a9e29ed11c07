/*
 * Provider loading probe for abi-tests/tests/providers.rs.
 *
 * Linked with -libverbs against Debian's headers; run with
 * LD_LIBRARY_PATH=target/release so the libibverbs.so.1 in the process is
 * ours (or without, for Debian's). Arguments are steps, run in order:
 *
 *   whose        print the real path of the one libibverbs.so.1 mapped in
 *                the process (dl_iterate_phdr: more than one is an error)
 *   load:PATH    dlopen(PATH, RTLD_NOW | RTLD_GLOBAL): every undefined
 *                symbol and symbol version must resolve now; prints "ok" or
 *                dlerror(), then "whose" again (a provider must not drag in
 *                a second libibverbs)
 *   list         ibv_get_device_list(): one line per device with its name,
 *                node type and transport (devices exist only when a
 *                registered provider matched and allocated them)
 *
 * Registration: this program defines verbs_register_driver_34 and _65
 * itself (it is linked with -rdynamic, so a provider's constructor binds to
 * these definitions first). Each prints "register NAME" with the name of
 * the provider's verbs_device_ops and hands the call on to the library's
 * own (dlvsym RTLD_NEXT, version IBVERBS_PRIVATE_34 or _65; both private
 * ABIs keep the name first in verbs_device_ops). That shows the constructor
 * really registered, also for providers whose devices cannot be faked
 * (siw and mana match by kernel driver id only).
 *
 * Exit status 1 if a load failed or a second libibverbs appeared.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

struct found {
	int count;
	char path[PATH_MAX];
};

/* The first member of rdma-core 44's struct verbs_device_ops (driver.h). */
struct ops_head {
	const char *name;
};

static void hand_on(const struct ops_head *ops, const char *fn, const char *version)
{
	void (*real)(const struct ops_head *) =
		(void (*)(const struct ops_head *))dlvsym(RTLD_NEXT, fn, version);

	printf("register %s\n", ops && ops->name ? ops->name : "(null)");
	if (!real) {
		printf("register: no %s@%s to hand on to\n", fn, version);
		exit(1);
	}
	real(ops);
}

void verbs_register_driver_34(const struct ops_head *ops);
void verbs_register_driver_34(const struct ops_head *ops)
{
	hand_on(ops, "verbs_register_driver_34", "IBVERBS_PRIVATE_34");
}

void verbs_register_driver_65(const struct ops_head *ops);
void verbs_register_driver_65(const struct ops_head *ops)
{
	hand_on(ops, "verbs_register_driver_65", "IBVERBS_PRIVATE_65");
}

static int find_ibverbs(struct dl_phdr_info *info, size_t size, void *data)
{
	struct found *f = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, "libibverbs.so", 13) != 0)
		return 0;
	f->count++;
	if (!realpath(info->dlpi_name, f->path))
		snprintf(f->path, sizeof(f->path), "%s", info->dlpi_name);
	return 0;
}

static int whose(void)
{
	struct found f = { 0 };

	dl_iterate_phdr(find_ibverbs, &f);
	if (f.count != 1) {
		printf("libibverbs: %d copies mapped\n", f.count);
		return 1;
	}
	printf("libibverbs: %s\n", f.path);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "whose") == 0) {
			status |= whose();
		} else if (strncmp(a, "load:", 5) == 0) {
			void *h = dlopen(a + 5, RTLD_NOW | RTLD_GLOBAL);

			if (h) {
				printf("load %s: ok\n", a + 5);
			} else {
				printf("load %s: %s\n", a + 5, dlerror());
				status = 1;
			}
			status |= whose();
		} else if (strcmp(a, "list") == 0) {
			int n = -1;
			struct ibv_device **l = ibv_get_device_list(&n);

			if (!l) {
				printf("list: NULL (%m)\n");
				continue;
			}
			printf("list: %d\n", n);
			for (int k = 0; k < n; k++)
				printf("device %s node %s transport %d\n",
				       ibv_get_device_name(l[k]),
				       ibv_node_type_str(l[k]->node_type),
				       (int)l[k]->transport_type);
			ibv_free_device_list(l);
		} else {
			fprintf(stderr, "unknown step %s\n", a);
			return 2;
		}
	}
	return status;
}
