/*
 * grh_shim.so: an LD_PRELOAD test shim that lets upstream's datagram
 * rsockets run on the VM's RoCE port, so that our datagram rsockets can be
 * paired with upstream's (wire compatibility for SOCK_DGRAM).
 *
 * Why: upstream v44 gives each datagram rsocket's UD QP an address handle
 * for itself built from the port's LID alone, without a global route (and
 * the handle for a resolved peer gets one only when the route reports more
 * than one hop). A RoCE port addresses everything by GID, so the kernel
 * refuses such a handle with EINVAL and upstream's datagram rsockets get no
 * QP there (docs/architecture.md, "Datagram rsockets on RoCE").
 *
 * What it changes: ibv_create_ah only, and only a request without a global
 * route on a port whose link layer is Ethernet. That request gets a global
 * route to the port's first IPv4-mapped GID (the RoCE address of an IPv4
 * netdev address; else GID index 0), hop limit 64: the attributes our
 * librdmacm uses there. With GRH_SHIM_GID=ADDR (an IPv6 or IPv4 address)
 * the route goes to the GID entry holding that address instead, for the
 * IPv6 scenarios (fd00::15); if no entry holds it, the request is passed on
 * unchanged and fails as it would without the shim. In the single-host VM
 * every datagram rsocket lives on the one address, so that GID is the right
 * destination for both kinds of handle. Every other request, and every other call, is passed on as it is;
 * our librdmacm never asks for a handle without a global route on RoCE, so
 * the shim changes nothing for ours. Nothing on the wire changes either: the
 * datagram header, the UDP header and the QPN exchange are the library's.
 *
 * Each changed request is counted; at exit the count goes to stderr as
 * "grh_shim: N address handles given a global route" when GRH_SHIM_REPORT
 * is set, followed (when N > 0) by "grh_shim: the last one to GID G", so
 * that a scenario can show whether and where the shim routed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

static int changed;
static union ibv_gid last_gid;	/* the destination GID of the last change */

static struct ibv_ah *(*real_create_ah(void))(struct ibv_pd *, struct ibv_ah_attr *)
{
	static struct ibv_ah *(*fn)(struct ibv_pd *, struct ibv_ah_attr *);

	if (!fn)
		fn = (struct ibv_ah *(*)(struct ibv_pd *, struct ibv_ah_attr *))
			dlsym(RTLD_NEXT, "ibv_create_ah");
	return fn;
}

static int ipv4_mapped(const union ibv_gid *g)
{
	static const unsigned char prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

/*
 * The GID that GRH_SHIM_GID names, as a RoCE GID (an IPv4 address becomes
 * its IPv4-mapped form). 0 when unset, -1 when it is not an address.
 */
static int wanted_gid(union ibv_gid *want)
{
	const char *s = getenv("GRH_SHIM_GID");

	if (!s || !*s)
		return 0;
	memset(want, 0, sizeof(*want));
	if (inet_pton(AF_INET6, s, want->raw) == 1)
		return 1;
	if (inet_pton(AF_INET, s, want->raw + 12) == 1) {
		want->raw[10] = want->raw[11] = 0xff;
		return 1;
	}
	fprintf(stderr, "grh_shim: GRH_SHIM_GID=%s is not an address\n", s);
	return -1;
}

/*
 * The GID index to route through: the entry GRH_SHIM_GID names when it is
 * set (-1 when none holds it), else the first IPv4-mapped entry, else 0.
 */
static int pick_gid(struct ibv_context *ctx, uint8_t port, int tbl_len, union ibv_gid *out)
{
	union ibv_gid g, want;
	int i, named = wanted_gid(&want);

	if (named < 0)
		return -1;
	for (i = 0; i < tbl_len; i++) {
		if (ibv_query_gid(ctx, port, i, &g))
			break;
		if (named ? !memcmp(g.raw, want.raw, sizeof(g.raw)) : ipv4_mapped(&g)) {
			*out = g;
			return i;
		}
	}
	if (named)
		return -1;
	if (ibv_query_gid(ctx, port, 0, out))
		return -1;
	return 0;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *(*fn)(struct ibv_pd *, struct ibv_ah_attr *) = real_create_ah();
	struct ibv_port_attr pattr;
	struct ibv_ah_attr mine;
	union ibv_gid gid;
	int idx;

	if (!fn) {
		fprintf(stderr, "grh_shim: ibv_create_ah not found\n");
		abort();
	}
	if (!pd || !attr || attr->is_global ||
	    ibv_query_port(pd->context, attr->port_num, &pattr) ||
	    pattr.link_layer != IBV_LINK_LAYER_ETHERNET)
		return fn(pd, attr);
	idx = pick_gid(pd->context, attr->port_num, pattr.gid_tbl_len, &gid);
	if (idx < 0)
		return fn(pd, attr);
	mine = *attr;
	mine.is_global = 1;
	mine.grh.dgid = gid;
	mine.grh.sgid_index = (uint8_t)idx;
	mine.grh.hop_limit = 64;
	last_gid = gid;
	__atomic_add_fetch(&changed, 1, __ATOMIC_RELAXED);
	return fn(pd, &mine);
}

static void __attribute__((destructor)) report(void)
{
	int n = __atomic_load_n(&changed, __ATOMIC_RELAXED);
	char text[INET6_ADDRSTRLEN];

	if (!getenv("GRH_SHIM_REPORT"))
		return;
	fprintf(stderr, "grh_shim: %d address handles given a global route\n", n);
	if (n && inet_ntop(AF_INET6, last_gid.raw, text, sizeof(text)))
		fprintf(stderr, "grh_shim: the last one to GID %s\n", text);
}
