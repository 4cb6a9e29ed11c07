/* ah_from_wc: ibv_init_ah_from_wc / ibv_create_ah_from_wc on rxe0 with
 * hand-made work completions and GRH areas (IB/RoCE v1 and RoCE v2 headers,
 * IPv4 and IPv6, multicast, unknown headers, addresses not in the GID
 * table). Prints the GID table, then for each case the return value, errno
 * on failure and every field of the resulting ibv_ah_attr, so that the run
 * on Debian's library and the run on ours can be compared line by line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/ip.h>
#include <infiniband/verbs.h>

static struct ibv_context *ctx;
static struct ibv_pd *pd;

static void gidstr(const union ibv_gid *g, char *buf)
{
	inet_ntop(AF_INET6, g->raw, buf, INET6_ADDRSTRLEN);
}

static void show(const char *name, int port, struct ibv_wc *wc, struct ibv_grh *grh)
{
	struct ibv_ah_attr a;
	char d[INET6_ADDRSTRLEN];
	int ret;

	memset(&a, 0xa5, sizeof(a));
	errno = 0;
	ret = ibv_init_ah_from_wc(ctx, port, wc, grh, &a);
	printf("%-28s ret %d", name, ret);
	if (ret)
		printf(" errno %d (%s)", errno, strerror(errno));
	gidstr(&a.grh.dgid, d);
	printf("\n    dgid %s flow 0x%x sgid_index %u hop %u tclass 0x%x dlid 0x%x sl %u path_bits %u rate %u global %u port %u\n",
	       d, a.grh.flow_label, a.grh.sgid_index, a.grh.hop_limit, a.grh.traffic_class,
	       a.dlid, a.sl, a.src_path_bits, a.static_rate, a.is_global, a.port_num);
	errno = 0;
	struct ibv_ah *ah = ibv_create_ah_from_wc(pd, wc, grh, port);
	printf("    create_ah_from_wc: %s", ah ? "AH" : "NULL");
	if (!ah)
		printf(" errno %d", errno);
	else
		printf(" destroy %d", ibv_destroy_ah(ah));
	printf("\n");
}

static void ipv6(struct ibv_grh *g, unsigned tclass, unsigned flow, int next, int hop,
		 const union ibv_gid *sgid, const union ibv_gid *dgid)
{
	memset(g, 0, sizeof(*g));
	g->version_tclass_flow = htonl(6u << 28 | tclass << 20 | flow);
	g->next_hdr = next;
	g->hop_limit = hop;
	g->sgid = *sgid;
	g->dgid = *dgid;
}

static unsigned short csum(const void *p)
{
	const unsigned char *b = p;
	unsigned sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += b[i] << 8 | b[i + 1];
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

static void ipv4(struct ibv_grh *g, unsigned char first, const char *src, const char *dst,
		 int tos, int ttl, int bad)
{
	struct iphdr *h = (struct iphdr *)((char *)g + 20);
	memset(g, 0, sizeof(*g));
	*(unsigned char *)g = first;
	h->version = 4;
	h->ihl = 5;
	h->tos = tos;
	h->tot_len = htons(60);
	h->ttl = ttl;
	h->protocol = 17;
	inet_pton(AF_INET, src, &h->saddr);
	inet_pton(AF_INET, dst, &h->daddr);
	h->check = 0;
	h->check = csum(h);
	if (bad)
		h->check ^= htons(1);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	union ibv_gid gid[8], ll = {}, mapped = {}, far, mc;
	struct ibv_wc wc = {};
	struct ibv_grh grh;
	int n = 0;

	if (!list || !list[0] || !(ctx = ibv_open_device(list[0])) || !(pd = ibv_alloc_pd(ctx))) {
		perror("setup");
		return 1;
	}
	for (int i = 0; i < 8; i++) {
		struct ibv_gid_entry e;
		char s[INET6_ADDRSTRLEN];
		if (ibv_query_gid(ctx, 1, i, &gid[i]))
			break;
		gidstr(&gid[i], s);
		printf("gid %d %s", i, s);
		if (!ibv_query_gid_ex(ctx, 1, i, &e, 0))
			printf(" type %u", e.gid_type);
		printf("\n");
		if (gid[i].raw[0] == 0xfe && !ll.raw[0])
			ll = gid[i];
		if (gid[i].raw[10] == 0xff && gid[i].raw[11] == 0xff)
			mapped = gid[i];
		n++;
	}
	printf("%d GIDs\n", n);
	inet_pton(AF_INET6, "fe80::1234", far.raw);
	inet_pton(AF_INET6, "ff02::1", mc.raw);

	wc.slid = 0x1234;
	wc.sl = 5;
	wc.dlid_path_bits = 3;

	ipv6(&grh, 0x12, 0xabcde, 0x1b, 9, &far, &ll);
	wc.wc_flags = 0;
	show("no_grh", 1, &wc, &grh);
	wc.wc_flags = IBV_WC_GRH;
	show("v6_next_ib", 1, &wc, &grh);
	ipv6(&grh, 0x80, 0x12345, 17, 64, &far, &ll);
	show("v6_udp_linklocal", 1, &wc, &grh);
	ipv6(&grh, 0x80, 0x12345, 17, 64, &far, &mapped);
	show("v6_udp_mapped", 1, &wc, &grh);
	ipv6(&grh, 0, 0, 17, 64, &far, &far);
	show("v6_udp_unknown_dgid", 1, &wc, &grh);
	ipv6(&grh, 0, 0, 17, 64, &far, &mc);
	show("v6_multicast", 1, &wc, &grh);
	ipv6(&grh, 0, 0, 6, 64, &far, &ll);
	show("v6_next_tcp", 1, &wc, &grh);
	ipv6(&grh, 0x80, 0x12345, 17, 64, &far, &ll);
	show("v6_udp_port2", 2, &wc, &grh);

	ipv4(&grh, 0, "10.0.2.99", "10.0.2.15", 0x28, 61, 0);
	show("v4", 1, &wc, &grh);
	ipv4(&grh, 0x60, "10.0.2.99", "10.0.2.15", 0x28, 61, 0);
	show("v4_nibble6_good_sum", 1, &wc, &grh);
	ipv4(&grh, 0x60, "10.0.2.99", "10.0.2.15", 0x28, 61, 1);
	show("v4_nibble6_bad_sum", 1, &wc, &grh);
	ipv4(&grh, 0, "10.0.2.99", "224.0.0.1", 0, 1, 0);
	show("v4_multicast", 1, &wc, &grh);
	ipv4(&grh, 0, "10.0.2.99", "10.0.2.16", 0, 1, 0);
	show("v4_unknown_daddr", 1, &wc, &grh);
	ipv4(&grh, 0x50, "10.0.2.99", "10.0.2.15", 0, 1, 0);
	((unsigned char *)&grh)[20] = 0x55;
	show("neither_version", 1, &wc, &grh);

	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
