/*
 * Exercises the verbs of the foundation issue that ibv_devinfo does not reach,
 * on every device, printing results and errno values so that a run with
 * Debian's libibverbs and one with ours can be compared line by line:
 * P_Key queries, the extended GID entry/table queries, the async event fd,
 * the IBVERBS_1.0 open/close, and PD/MR/CQ creation through the provider.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

/* The IBVERBS_1.0 entry points, bound by version. */
struct ibv_device_1_0;
struct ibv_context_1_0;
struct ibv_device_1_0 **list_v10(int *n) __asm__("ibv_get_device_list_v10_probe");
__asm__(".symver ibv_get_device_list_v10_probe, ibv_get_device_list@IBVERBS_1.0");
void free_v10(struct ibv_device_1_0 **l) __asm__("ibv_free_device_list_v10_probe");
__asm__(".symver ibv_free_device_list_v10_probe, ibv_free_device_list@IBVERBS_1.0");
struct ibv_context_1_0 *open_v10(struct ibv_device_1_0 *d) __asm__("ibv_open_device_v10_probe");
__asm__(".symver ibv_open_device_v10_probe, ibv_open_device@IBVERBS_1.0");
int close_v10(struct ibv_context_1_0 *c) __asm__("ibv_close_device_v10_probe");
__asm__(".symver ibv_close_device_v10_probe, ibv_close_device@IBVERBS_1.0");

static void gid_str(const union ibv_gid *g, char *buf)
{
	inet_ntop(AF_INET6, g->raw, buf, INET6_ADDRSTRLEN);
}

static void probe(struct ibv_context *ctx)
{
	char buf[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE];
	struct ibv_gid_entry ent, table[64];
	__be16 pkey;
	int i, ret;

	for (i = 0; i < 3; i++) {
		errno = 0;
		ret = ibv_query_pkey(ctx, 1, i, &pkey);
		printf("query_pkey(1,%d) = %d errno=%d pkey=0x%04x\n", i, ret,
		       ret ? errno : 0, ret ? 0 : ntohs(pkey));
	}
	errno = 0;
	ret = ibv_query_pkey(ctx, 9, 0, &pkey);
	printf("query_pkey(9,0) = %d errno=%d\n", ret, ret ? errno : 0);
	ret = ibv_get_pkey_index(ctx, 1, htons(0xffff));
	printf("get_pkey_index(1,0xffff) = %d\n", ret);
	ret = ibv_get_pkey_index(ctx, 1, htons(0x1234));
	printf("get_pkey_index(1,0x1234) = %d\n", ret);

	for (i = 0; i < 4; i++) {
		memset(&ent, 0xee, sizeof(ent));
		ret = ibv_query_gid_ex(ctx, 1, i, &ent, 0);
		if (ret) {
			printf("query_gid_ex(1,%d) = %d\n", i, ret);
			continue;
		}
		gid_str(&ent.gid, buf);
		if (!if_indextoname(ent.ndev_ifindex, ifname))
			strcpy(ifname, "-");
		printf("query_gid_ex(1,%d) = 0 gid=%s index=%u port=%u type=%u ndev=%s\n",
		       i, buf, ent.gid_index, ent.port_num, ent.gid_type, ifname);
	}
	ret = ibv_query_gid_ex(ctx, 1, 0, &ent, 1);
	printf("query_gid_ex(flags=1) = %d\n", ret);
	ret = ibv_query_gid_ex(ctx, 7, 0, &ent, 0);
	printf("query_gid_ex(port 7) = %d\n", ret);

	ssize_t n = ibv_query_gid_table(ctx, table, 64, 0);
	printf("query_gid_table(64) = %zd\n", n);
	for (i = 0; i < n; i++) {
		gid_str(&table[i].gid, buf);
		printf("  [%d] %s index=%u port=%u type=%u\n", i, buf,
		       table[i].gid_index, table[i].port_num, table[i].gid_type);
	}
	n = ibv_query_gid_table(ctx, table, 1, 0);
	printf("query_gid_table(1) = %zd\n", n);
	n = ibv_query_gid_table(ctx, table, 64, 1);
	printf("query_gid_table(flags=1) = %zd\n", n);

	/* No events are pending: a non-blocking read fails with EAGAIN. */
	struct ibv_async_event ev;
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	errno = 0;
	ret = ibv_get_async_event(ctx, &ev);
	printf("get_async_event(nonblocking) = %d errno=%d\n", ret, errno);

	/* Objects through the provider. */
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	printf("alloc_pd: %s\n", pd ? "ok" : strerror(errno));
	if (pd) {
		static char mem[1 << 16];
		struct ibv_mr *mr = ibv_reg_mr(pd, mem, sizeof(mem),
					       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
		printf("reg_mr: %s\n", mr ? "ok" : strerror(errno));
		if (mr) {
			printf("  mr addr ok=%d length=%zu pd ok=%d\n", mr->addr == mem,
			       mr->length, mr->pd == pd);
			printf("dereg_mr = %d\n", ibv_dereg_mr(mr));
		}
		errno = 0;
		mr = ibv_reg_mr(pd, mem, sizeof(mem), 0x40000000);
		printf("reg_mr(bad access): %s\n", mr ? "ok" : strerror(errno));
		if (mr)
			ibv_dereg_mr(mr);
		struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		printf("create_cq: %s\n", cq ? "ok" : strerror(errno));
		if (cq) {
			printf("  cqe>=16: %d context ok=%d\n", cq->cqe >= 16, cq->context == ctx);
			printf("destroy_cq = %d\n", ibv_destroy_cq(cq));
		}
		errno = 0;
		cq = ibv_create_cq(ctx, 1 << 30, NULL, NULL, 0);
		printf("create_cq(huge): %s\n", cq ? "ok" : strerror(errno));
		if (cq)
			ibv_destroy_cq(cq);
		printf("dealloc_pd = %d\n", ibv_dealloc_pd(pd));
	}
}

int main(void)
{
	struct ibv_device **list;
	int i, num;

	list = ibv_get_device_list(&num);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < num; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);

		printf("device %s: open %s\n", ibv_get_device_name(list[i]),
		       ctx ? "ok" : strerror(errno));
		if (!ctx)
			continue;
		probe(ctx);
		printf("close = %d\n", ibv_close_device(ctx));
	}
	ibv_free_device_list(list);

	/* IBVERBS_1.0: the wrapper list, open and close. */
	struct ibv_device_1_0 **l10 = list_v10(&num);
	printf("v1.0 list: %d devices\n", l10 ? num : -1);
	for (i = 0; l10 && i < num; i++) {
		struct ibv_context_1_0 *c10 = open_v10(l10[i]);

		printf("v1.0 open [%d]: %s\n", i, c10 ? "ok" : strerror(errno));
		if (c10)
			printf("v1.0 close = %d\n", close_v10(c10));
	}
	if (l10)
		free_v10(l10);
	return 0;
}
