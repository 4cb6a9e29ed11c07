/*
 * cm_getaddrinfo: calls rdma_getaddrinfo with a table of inputs and
 * prints every field of each result chain (or ret/errno), so that two
 * librdmacm.so.1 builds can be compared with diff.
 *
 *   cm_getaddrinfo             the resolver table (no ibacm needed), without
 *                              the one case known to differ (below)
 *   cm_getaddrinfo all         the resolver table with that case
 *   cm_getaddrinfo acm         the same process also plays ibacm: it listens
 *                              on /run/ibacm.sock, prints each request and
 *                              answers from a script. /run must be private
 *                              and writable: run it as
 *                              unshare -m sh -c 'mount -t tmpfs none /run; ...'
 *   cm_getaddrinfo acm-afib    as acm, only cases that have both a source and
 *                              a destination address or an AF_IB one (for a
 *                              kernel with AF_IB support, where upstream
 *                              builds an AF_IB result and would crash on a
 *                              missing source address)
 *
 * Build and run: abi-tests/vm-progs/run-c-probe cm_getaddrinfo [MODE]
 * (scenarios cm_getaddrinfo and cm_getaddrinfo_acm in abi-tests/scenarios/vm.sh)
 * Compare: run it once as is (Debian's library) and once with
 * LD_LIBRARY_PATH=target/release (ours), then diff. On a host without RDMA
 * Debian's rdma_getaddrinfo fails in ucma_init (-1, ENODEV) for every input,
 * so compare in the Soft-RoCE VM (abi-tests/vm/vm-run). Known difference:
 * "AF_IB numeric passive wildcard" - upstream converts the IPv4 wildcard by
 * reading it as a sockaddr_in6, past its 16 bytes (heap contents); we read
 * zeros there.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <infiniband/ib.h>
#include <infiniband/sa.h>
#include <rdma/rdma_cma.h>

#define RAI_ROUTEONLY 0x01000000

/* Whether to run the case where upstream reads past an address (see top). */
static int with_known_diffs;

static void hex(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		printf("%02x", b[i]);
}

static void print_addr(const char *name, const struct sockaddr *sa, socklen_t len)
{
	char text[INET6_ADDRSTRLEN];

	printf("  %s_len=%u", name, len);
	if (!sa) {
		printf(" %s=NULL\n", name);
		return;
	}
	printf(" %s=", name);
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *sin = (const void *) sa;
		inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text));
		printf("inet %s port %u", text, ntohs(sin->sin_port));
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *sin6 = (const void *) sa;
		inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text));
		printf("inet6 %s port %u flow %u scope %u", text, ntohs(sin6->sin6_port),
		       sin6->sin6_flowinfo, sin6->sin6_scope_id);
	} else if (sa->sa_family == AF_IB && len >= sizeof(struct sockaddr_ib)) {
		const struct sockaddr_ib *sib = (const void *) sa;
		inet_ntop(AF_INET6, &sib->sib_addr, text, sizeof(text));
		printf("ib %s pkey %#x flow %#x sid %#llx mask %#llx scope %llu", text,
		       be16toh(sib->sib_pkey), be32toh(sib->sib_flowinfo),
		       (unsigned long long) be64toh(sib->sib_sid),
		       (unsigned long long) be64toh(sib->sib_sid_mask),
		       (unsigned long long) sib->sib_scope_id);
	} else {
		printf("family %u", sa->sa_family);
	}
	printf(" bytes ");
	hex(sa, len);
	printf("\n");
}

static void print_blob(const char *name, const void *p, size_t len)
{
	printf("  %s_len=%zu %s=", name, len, name);
	if (!p) {
		printf("NULL\n");
		return;
	}
	printf("[");
	hex(p, len);
	printf("]\n");
}

static void run(const char *desc, const char *node, const char *service,
		const struct rdma_addrinfo *hints)
{
	struct rdma_addrinfo *res = NULL, *r;
	int ret, i = 0;

	printf("== %s (node %s, service %s, hints %s)\n", desc,
	       node ? node : "NULL", service ? service : "NULL", hints ? "yes" : "NULL");
	fflush(stdout);
	errno = 0;
	ret = rdma_getaddrinfo(node, service, hints, &res);
	if (ret) {
		printf("ret=%d errno=%d\n", ret, errno);
		fflush(stdout);
		return;
	}
	printf("ret=0\n");
	for (r = res; r; r = r->ai_next, i++) {
		printf(" [%d] flags=%#x family=%d qp_type=%d port_space=%#x\n", i,
		       r->ai_flags, r->ai_family, r->ai_qp_type, r->ai_port_space);
		print_addr("src", r->ai_src_addr, r->ai_src_len);
		print_addr("dst", r->ai_dst_addr, r->ai_dst_len);
		printf("  src_canonname=%s dst_canonname=%s\n",
		       r->ai_src_canonname ? r->ai_src_canonname : "NULL",
		       r->ai_dst_canonname ? r->ai_dst_canonname : "NULL");
		print_blob("route", r->ai_route, r->ai_route_len);
		print_blob("connect", r->ai_connect, r->ai_connect_len);
	}
	rdma_freeaddrinfo(res);
	fflush(stdout);
}

static struct rdma_addrinfo H(int flags, int family, int qp_type, int ps)
{
	struct rdma_addrinfo h;

	memset(&h, 0, sizeof(h));
	h.ai_flags = flags;
	h.ai_family = family;
	h.ai_qp_type = qp_type;
	h.ai_port_space = ps;
	return h;
}

static void resolver_table(void)
{
	struct rdma_addrinfo h;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	static const int qpts[] = { 0, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
				    IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV, IBV_QPT_RAW_PACKET };
	static const int pss[] = { 0, RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB, RDMA_PS_IPOIB };
	char desc[128];
	unsigned i, j;

	run("all NULL", NULL, NULL, NULL);
	run("numeric v4, NULL hints", "127.0.0.1", "7471", NULL);
	h = H(0, 0, 0, 0);
	run("numeric v4, zero hints", "127.0.0.1", "7471", &h);
	run("localhost, zero hints", "localhost", "7471", &h);
	run("localhost, NULL hints", "localhost", NULL, NULL);
	h = H(0, AF_INET6, 0, 0);
	run("localhost, AF_INET6", "localhost", "7471", &h);
	h = H(0, AF_INET, 0, 0);
	run("::1 with AF_INET", "::1", "7471", &h);
	run("service only, NULL hints", NULL, "7471", NULL);
	h = H(RAI_PASSIVE, 0, 0, 0);
	run("passive, service only", NULL, "7471", &h);
	h = H(RAI_PASSIVE, AF_INET6, 0, 0);
	run("passive v6 wildcard", NULL, "7471", &h);
	h = H(RAI_PASSIVE, 0, 0, 0);
	run("passive ::1", "::1", "7471", &h);
	h = H(RAI_NUMERICHOST, 0, 0, 0);
	run("numerichost with a name", "localhost", "7471", &h);
	run("unknown host", "no-such-host.invalid", "7471", NULL);
	run("unknown service", "127.0.0.1", "no-such-service-xyz", NULL);
	run("named service", "127.0.0.1", "ssh", NULL);
	h = H(0x400000, 0, 0, 0);
	run("unknown flag bits", "127.0.0.1", "1", &h);
	h = H(0, 12345, 0, 0);
	run("bad family", "127.0.0.1", "1", &h);
	h = H(RAI_NOROUTE, 0, 0, 0);
	run("noroute", "127.0.0.1", "7471", &h);

	for (i = 0; i < sizeof(qpts) / sizeof(qpts[0]); i++)
		for (j = 0; j < sizeof(pss) / sizeof(pss[0]); j++) {
			h = H(0, 0, qpts[i], pss[j]);
			snprintf(desc, sizeof(desc), "qp_type %d port_space %#x", qpts[i], pss[j]);
			run(desc, "127.0.0.1", "7471", &h);
		}

	/* AF_IB conversions */
	for (j = 0; j < sizeof(pss) / sizeof(pss[0]); j++) {
		h = H(RAI_FAMILY | RAI_NUMERICHOST, AF_IB, 0, pss[j]);
		snprintf(desc, sizeof(desc), "AF_IB numeric, port_space %#x", pss[j]);
		run(desc, "fe80::2:c903:a:1b2c", "7471", &h);
	}
	h = H(RAI_FAMILY | RAI_NUMERICHOST, AF_IB, IBV_QPT_UD, RDMA_PS_IB);
	run("AF_IB numeric, no service", "fe80::1", NULL, &h);
	run("AF_IB numeric, scope", "fe80::1%1", "65535", &h);
	h = H(RAI_FAMILY | RAI_NUMERICHOST | RAI_PASSIVE, AF_IB, 0, RDMA_PS_TCP);
	run("AF_IB numeric passive", "fe80::1", "18515", &h);
	if (with_known_diffs)
		run("AF_IB numeric passive wildcard", NULL, "18515", &h);
	h = H(RAI_FAMILY, AF_IB, 0, RDMA_PS_TCP);
	run("AF_IB without NUMERICHOST", "::1", "7471", &h);
	h = H(RAI_NUMERICHOST, AF_IB, 0, RDMA_PS_TCP);
	run("AF_IB without RAI_FAMILY", "::1", "7471", &h);
	h = H(RAI_FAMILY | RAI_NUMERICHOST, AF_IB, 0, RDMA_PS_TCP);
	run("AF_IB numeric, name", "localhost", "7471", &h);

	/* no node and no service: the hints are the result */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(4791);
	inet_pton(AF_INET, "10.0.2.15", &sin.sin_addr);
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(1);
	inet_pton(AF_INET6, "fe80::5", &sin6.sin6_addr);

	h = H(RAI_NOROUTE, AF_INET, IBV_QPT_UD, RDMA_PS_UDP);
	run("hints only, no addresses", NULL, NULL, &h);
	h.ai_dst_addr = (struct sockaddr *) &sin;
	h.ai_dst_len = sizeof(sin);
	run("hints only, dst", NULL, NULL, &h);
	h.ai_src_addr = (struct sockaddr *) &sin6;
	h.ai_src_len = sizeof(sin6);
	run("hints only, dst and src", NULL, NULL, &h);
	h = H(RAI_PASSIVE | 0x100, 77, 99, 1234);
	h.ai_src_addr = (struct sockaddr *) &sin;
	h.ai_src_len = sizeof(sin);
	run("hints only, passive src, odd values", NULL, NULL, &h);
	h = H(0, 0, 0, 0);
	h.ai_src_addr = (struct sockaddr *) &sin6;
	h.ai_src_len = sizeof(sin6);
	run("node with src hint", "127.0.0.1", "1", &h);
	h.ai_flags = RAI_PASSIVE;
	run("passive node with src hint", "127.0.0.1", "1", &h);
	h.ai_src_len = 3;
	run("node with short src hint", "127.0.0.1", "1", &h);
}

/* ---- fake ibacm ---- */

struct acm_hdr_p {
	uint8_t version, opcode, status, data[3];
	uint16_t length;
	uint64_t tid;
};

struct acm_ep_p {
	uint32_t flags;
	uint16_t type, reserved;
	union {
		uint8_t addr[64];
		struct ibv_path_record path;
	} info;
};

struct acm_msg_p {
	struct acm_hdr_p hdr;
	struct acm_ep_p ep[8];
};

/* The reply the server sends next; `len` bytes of `msg` (0: echo length). */
static struct acm_msg_p reply;
static int reply_len;
static int listen_fd;

static void *server(void *arg)
{
	struct acm_msg_p req;
	int fd, n;

	(void) arg;
	fd = accept(listen_fd, NULL, NULL);
	if (fd < 0)
		return NULL;
	for (;;) {
		n = recv(fd, &req, sizeof(req), 0);
		if (n <= 0)
			break;
		printf("  ibacm got %d bytes: ", n);
		hex(&req, n);
		printf("\n");
		fflush(stdout);
		send(fd, &reply, reply_len, 0);
	}
	close(fd);
	return NULL;
}

static void set_path(struct acm_ep_p *e, uint8_t seed)
{
	memset(e, 0, sizeof(*e));
	e->type = 0x10;
	e->flags = 0x2a;
	e->reserved = 0x7777;
	e->info.path.service_id = htobe64(0x1060000ULL + seed);
	memset(&e->info.path.dgid, 0xd0 + seed, 16);
	memset(&e->info.path.sgid, 0x50 + seed, 16);
	e->info.path.dlid = htobe16(0x10 + seed);
	e->info.path.slid = htobe16(0x20 + seed);
	e->info.path.flowlabel_hoplimit = htobe32(0x12345640 + seed);
	e->info.path.tclass = seed;
	e->info.path.pkey = htobe16(0x8001);
	e->info.path.mtu = 0x84;
}

static void script(int status, int nep, const char *kinds)
{
	int i;

	memset(&reply, 0, sizeof(reply));
	reply.hdr.version = 1;
	reply.hdr.opcode = 0x81;
	reply.hdr.status = status;
	for (i = 0; i < nep; i++) {
		switch (kinds[i]) {
		case 'P':
			set_path(&reply.ep[i], i);
			break;
		case '4': /* source IPv4 */
			reply.ep[i].type = 2;
			reply.ep[i].flags = 1;
			inet_pton(AF_INET, "10.9.8.7", reply.ep[i].info.addr);
			break;
		case 'd': /* destination IPv4: not a source */
			reply.ep[i].type = 2;
			reply.ep[i].flags = 2;
			inet_pton(AF_INET, "10.1.1.1", reply.ep[i].info.addr);
			break;
		case '6':
			reply.ep[i].type = 3;
			reply.ep[i].flags = 1;
			inet_pton(AF_INET6, "fd00::77", reply.ep[i].info.addr);
			break;
		case 'n': /* name entry */
			reply.ep[i].type = 1;
			reply.ep[i].flags = 1;
			strcpy((char *) reply.ep[i].info.addr, "host");
			break;
		}
	}
	reply.hdr.length = 16 + 72 * nep;
	reply_len = reply.hdr.length;
}

static void start_server(void)
{
	struct sockaddr_un sun;
	pthread_t t;

	listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, "/run/ibacm.sock");
	unlink(sun.sun_path);
	if (bind(listen_fd, (struct sockaddr *) &sun, sizeof(sun)) || listen(listen_fd, 1)) {
		perror("fake ibacm");
		exit(1);
	}
	pthread_create(&t, NULL, server, NULL);
}

static void acm_table(void)
{
	struct rdma_addrinfo h;
	struct ibv_path_data pd;
	struct sockaddr_in6 sin6;

	start_server();
	script(0, 2, "PP");
	run("acm: two paths", "127.0.0.1", "7471", NULL);
	script(0, 3, "4PP");
	run("acm: source v4 and two paths", "127.0.0.1", "7471", NULL);
	script(0, 3, "P4P");
	run("acm: path, source, path", "127.0.0.1", "7471", NULL);
	script(0, 4, "dn6P");
	run("acm: dest, name, source v6, path", "::1", "7471", NULL);
	script(0, 0, "");
	run("acm: no entries", "127.0.0.1", "7471", NULL);
	script(3, 2, "PP");
	run("acm: error status", "127.0.0.1", "7471", NULL);
	script(0, 1, "P");
	reply_len = 50;
	run("acm: short read", "127.0.0.1", "7471", NULL);
	script(0, 1, "P");
	reply.hdr.length = 16;
	run("acm: length mismatch", "127.0.0.1", "7471", NULL);
	script(0, 1, "P");
	reply_len = 8;
	reply.hdr.length = 8;
	run("acm: tiny reply", "127.0.0.1", "7471", NULL);
	script(0, 1, "P");
	reply_len = 16 + 72 + 20;
	reply.hdr.length = reply_len;
	run("acm: trailing partial entry", "127.0.0.1", "7471", NULL);
	script(0, 8, "PPPPPPPP");
	run("acm: eight paths", "127.0.0.1", "7471", NULL);

	script(0, 1, "P");
	h = H(RAI_NUMERICHOST, 0, IBV_QPT_UD, RDMA_PS_UDP);
	run("acm: numerichost (nodelay)", "127.0.0.1", "7471", &h);
	h = H(RAI_NOROUTE, 0, 0, 0);
	run("acm: noroute (nodelay)", "::1", "7471", &h);
	h = H(RAI_ROUTEONLY, 0, 0, 0);
	run("acm: routeonly", "127.0.0.1", "7471", &h);
	h = H(RAI_PASSIVE, 0, 0, 0);
	run("acm: passive (no request)", "127.0.0.1", "7471", &h);

	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "fd00::1", &sin6.sin6_addr);
	h = H(0, 0, 0, 0);
	h.ai_src_addr = (struct sockaddr *) &sin6;
	h.ai_src_len = sizeof(sin6);
	script(0, 2, "4P");
	run("acm: src hint v6, reply source ignored", "127.0.0.1", "7471", &h);

	h = H(RAI_FAMILY | RAI_NUMERICHOST, AF_IB, 0, RDMA_PS_IB);
	script(0, 1, "P");
	run("acm: AF_IB dst", "fe80::1:2:3:4", "99", &h);

	memset(&pd, 0, sizeof(pd));
	pd.flags = 0x12;
	pd.path.service_id = htobe64(0xabcdef);
	memset(&pd.path.dgid, 0xaa, 16);
	memset(&pd.path.sgid, 0xbb, 16);
	pd.path.dlid = htobe16(3);
	pd.path.pkey = htobe16(0xffff);
	h.ai_route = &pd;
	h.ai_route_len = sizeof(pd);
	run("acm: AF_IB dst, route hint as path data", "fe80::1:2:3:4", "99", &h);
	h.ai_route = &pd.path;
	h.ai_route_len = sizeof(pd.path);
	run("acm: AF_IB dst, route hint as path record", "fe80::1:2:3:4", "99", &h);
	h = H(0, AF_INET, 0, 0);
	h.ai_route = &pd.path;
	h.ai_route_len = sizeof(pd.path);
	run("acm: v4 with route hint", "127.0.0.1", "7471", &h);
	h.ai_route_len = 5;
	run("acm: v4 with odd route_len", "127.0.0.1", "7471", &h);
	h = H(0, 0, 0, 0);
	h.ai_dst_addr = (struct sockaddr *) &sin6;
	h.ai_dst_len = sizeof(sin6);
	run("acm: hints only, dst v6", NULL, NULL, &h);
}

static void acm_afib_table(void)
{
	struct rdma_addrinfo h;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;

	start_server();
	script(0, 3, "4PP");
	run("afib: source v4 from ibacm", "127.0.0.1", "7471", NULL);
	script(0, 2, "6P");
	run("afib: source v6 from ibacm", "::1", "18515", NULL);
	script(0, 3, "P4P");
	run("afib: path, source, path", "127.0.0.1", "1", NULL);
	script(0, 1, "4");
	run("afib: source but no path", "127.0.0.1", "1", NULL);
	script(0, 2, "4P");
	h = H(RAI_ROUTEONLY, 0, 0, 0);
	run("afib: routeonly", "127.0.0.1", "7471", &h);

	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(4000);
	inet_pton(AF_INET6, "fd00::1", &sin6.sin6_addr);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(5000);
	inet_pton(AF_INET, "10.0.0.5", &sin.sin_addr);

	h = H(0, 0, IBV_QPT_UD, RDMA_PS_UDP);
	h.ai_src_addr = (struct sockaddr *) &sin;
	h.ai_src_len = sizeof(sin);
	script(0, 1, "P");
	run("afib: src hint v4 with port", "127.0.0.2", "9", &h);
	h.ai_src_addr = (struct sockaddr *) &sin6;
	h.ai_src_len = sizeof(sin6);
	run("afib: src hint v6, dst v4", "127.0.0.2", "9", &h);
	h = H(0, AF_INET6, IBV_QPT_RC, RDMA_PS_IB);
	h.ai_dst_addr = (struct sockaddr *) &sin6;
	h.ai_dst_len = sizeof(sin6);
	h.ai_src_addr = (struct sockaddr *) &sin;
	h.ai_src_len = sizeof(sin);
	run("afib: hints only, v6 dst, v4 src", NULL, NULL, &h);

	h = H(RAI_FAMILY | RAI_NUMERICHOST, AF_IB, 0, RDMA_PS_IB);
	script(0, 2, "PP");
	run("afib: AF_IB dst", "fe80::1:2:3:4", "99", &h);
	h = H(RAI_FAMILY | RAI_NUMERICHOST, AF_IB, IBV_QPT_UD, 0);
	run("afib: AF_IB dst, port space from the socket", "fe80::9", NULL, &h);
}

int main(int argc, char **argv)
{
	with_known_diffs = argc > 1 && !strcmp(argv[1], "all");
	if (argc > 1 && !strcmp(argv[1], "acm-afib"))
		acm_afib_table();
	else if (argc > 1 && !strcmp(argv[1], "acm"))
		acm_table();
	else
		resolver_table();
	return 0;
}
