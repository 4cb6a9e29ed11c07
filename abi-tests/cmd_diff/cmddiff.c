/*
 * Differential check of the ibv_cmd_* helpers (tests/cmd_diff.rs).
 *
 * Calls the IBVERBS_PRIVATE_34 command helpers the way a provider does, on a
 * fake verbs context whose command FD is answered by this program: ioctl()
 * and write() are defined here (the program is linked with -rdynamic, so
 * they take precedence over libc's for the library too). For every command
 * it prints what reached the "kernel" (the ioctl header and attributes, or
 * the write() bytes) and then what the helper returned and filled in. Run
 * once with Debian's libibverbs and once with ours; the outputs must be
 * identical.
 *
 * Addresses differ between runs, so every 64-bit value that is a mapped
 * address prints as PTR (and an ioctl input given by pointer prints the
 * bytes it points to). The fake kernel's answers are fixed patterns, so the
 * copy-back of results can be compared too.
 *
 * The provider-side structures of rdma-core 44's driver.h and kern-abi.h
 * are restated below (driver.h is not installed); only their layout
 * matters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl.h>

#define FAKE_FD 500
#define ASYNC_FD 77

/* ---- driver.h / kern-abi.h restated ---- */

struct verbs_xrcd { struct ibv_xrcd xrcd; uint32_t comp_mask; uint32_t handle; };
struct verbs_mr { struct ibv_mr ibv_mr; int mr_type; int access; };
struct verbs_qp {
	union { struct ibv_qp qp; struct ibv_qp_ex qp_ex; };
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};
struct verbs_flow_action { struct ibv_flow_action action; uint32_t handle; int type; };
struct verbs_dm { struct ibv_dm dm; uint32_t handle; };
struct verbs_counters { struct ibv_counters counters; uint32_t handle; };
struct ex_hdr { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_ex_cmd_hdr ex_hdr; };

struct ibv_command_buffer;
int ibv_cmd_create_flow(struct ibv_qp *, struct ibv_flow *, struct ibv_flow_attr *, void *, size_t);
int ibv_cmd_destroy_flow(struct ibv_flow *);
int ibv_cmd_create_flow_action_esp(struct ibv_context *, struct ibv_flow_action_esp_attr *,
				   struct verbs_flow_action *, struct ibv_command_buffer *);
int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *, struct ibv_flow_action_esp_attr *,
				   struct ibv_command_buffer *);
int ibv_cmd_destroy_flow_action(struct verbs_flow_action *);
int ibv_cmd_create_wq(struct ibv_context *, struct ibv_wq_init_attr *, struct ibv_wq *, void *cmd,
		      size_t, struct ib_uverbs_ex_create_wq_resp *, size_t);
int ibv_cmd_modify_wq(struct ibv_wq *, struct ibv_wq_attr *, void *cmd, size_t);
int ibv_cmd_destroy_wq(struct ibv_wq *);
int ibv_cmd_create_rwq_ind_table(struct ibv_context *, struct ibv_rwq_ind_table_init_attr *,
				 struct ibv_rwq_ind_table *,
				 struct ib_uverbs_ex_create_rwq_ind_table_resp *, size_t);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *);
int ibv_cmd_create_counters(struct ibv_context *, struct ibv_counters_init_attr *,
			    struct verbs_counters *, struct ibv_command_buffer *);
int ibv_cmd_destroy_counters(struct verbs_counters *);
int ibv_cmd_read_counters(struct verbs_counters *, uint64_t *, uint32_t, uint32_t,
			  struct ibv_command_buffer *);
int ibv_cmd_alloc_dm(struct ibv_context *, const struct ibv_alloc_dm_attr *, struct verbs_dm *,
		     struct ibv_command_buffer *);
int ibv_cmd_free_dm(struct verbs_dm *);
int ibv_cmd_reg_dm_mr(struct ibv_pd *, struct verbs_dm *, uint64_t, size_t, unsigned int,
		      struct verbs_mr *, struct ibv_command_buffer *);
int ibv_cmd_open_xrcd(struct ibv_context *, struct verbs_xrcd *, int, struct ibv_xrcd_init_attr *,
		      void *cmd, size_t, struct ib_uverbs_open_xrcd_resp *, size_t);
int ibv_cmd_close_xrcd(struct verbs_xrcd *);
int ibv_cmd_open_qp(struct ibv_context *, struct verbs_qp *, int, struct ibv_qp_open_attr *,
		    void *cmd, size_t, struct ib_uverbs_create_qp_resp *, size_t);
int ibv_cmd_poll_cq(struct ibv_cq *, int, struct ibv_wc *);
int ibv_cmd_post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);
int ibv_cmd_post_recv(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **);
int ibv_cmd_post_srq_recv(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **);
int ibv_cmd_rereg_mr(struct verbs_mr *, uint32_t, void *, size_t, uint64_t, int, struct ibv_pd *,
		     void *cmd, size_t, struct ib_uverbs_rereg_mr_resp *, size_t);
int ibv_cmd_query_mr(struct ibv_pd *, struct verbs_mr *, uint32_t);
int ibv_cmd_advise_mr(struct ibv_pd *, enum ibv_advise_mr_advice, uint32_t, struct ibv_sge *, uint32_t);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int, struct verbs_mr *);
int ibv_cmd_modify_cq(struct ibv_cq *, struct ibv_modify_cq_attr *, void *cmd, size_t);

/* ---- output helpers ---- */

static bool mapped(uint64_t v)
{
	if (v < 0x10000)
		return false;
	return msync((void *)(uintptr_t)(v & ~(uint64_t)4095), 1, MS_ASYNC) == 0;
}

static void hex(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

/* Bytes in 8-byte words; a word holding a mapped address prints as PTR. */
static void words(const char *tag, const void *p, size_t n)
{
	const uint8_t *b = p;

	printf("  %s (%zu):", tag, n);
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = 0;
		size_t k = n - i < 8 ? n - i : 8;

		memcpy(&w, b + i, k);
		if (k == 8 && mapped(w))
			printf(" PTR");
		else {
			printf(" ");
			hex(b + i, k);
		}
	}
	printf("\n");
}

/* As words(), on the current line. */
static void words_inline(const void *p, size_t n)
{
	const uint8_t *b = p;

	printf(" ->");
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = 0;
		size_t k = n - i < 8 ? n - i : 8;

		memcpy(&w, b + i, k);
		if (k == 8 && mapped(w))
			printf(" PTR");
		else {
			printf(" ");
			hex(b + i, k);
		}
	}
}

static const char *pv(const void *p)
{
	return p ? (mapped((uintptr_t)p) ? "PTR" : "BADPTR") : "NULL";
}

/* ---- the fake kernel ---- */

static bool post_qp_ud;

/*
 * A POST_* command with the bytes upstream never writes (it builds the
 * command in uninitialised stack memory) shown as "xx": the reserved word of
 * each receive request, and in each send request the part of the remote
 * union (from byte 24) that the opcode (or a UD QP) does not use.
 */
static void post_words(const void *buf, size_t n, bool send)
{
	uint8_t *copy = malloc(n);
	bool *mask = calloc(n, sizeof(bool));
	uint32_t wr_count, wqe;

	memcpy(copy, buf, n);
	memcpy(&wr_count, copy + 20, 4);
	memcpy(&wqe, copy + 28, 4);
	for (uint32_t i = 0; i < wr_count && 32 + (i + 1) * wqe <= n; i++) {
		uint8_t *w = copy + 32 + i * wqe;
		size_t used = 24;

		if (send) {
			uint32_t op;

			memcpy(&op, w + 12, 4);
			if (post_qp_ud)
				used = 36;
			else if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM ||
				 op == IBV_WR_RDMA_READ)
				used = 36;
			else if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD)
				used = 52;
		} else {
			used = 12;
		}
		for (size_t k = used; k < wqe; k++)
			mask[w - copy + k] = true;
	}
	printf("  bytes (%zu):", n);
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = 0;
		size_t k = n - i < 8 ? n - i : 8;
		bool any = false;

		for (size_t j = 0; j < k; j++)
			any |= mask[i + j];
		memcpy(&v, copy + i, k);
		if (!any && k == 8 && mapped(v)) {
			printf(" PTR");
			continue;
		}
		printf(" ");
		for (size_t j = 0; j < k; j++) {
			if (mask[i + j])
				printf("xx");
			else
				printf("%02x", copy[i + j]);
		}
	}
	printf("\n");
	free(copy);
	free(mask);
}

static int ioctl_ret;	/* errno value the next ioctls fail with */
static int write_ret;	/* errno value the next writes fail with */
static uint32_t post_bad;	/* bad_wr index POST_* answers with */
static unsigned poll_count;	/* completions POLL_CQ reports */

/* Attributes the fake kernel writes (outputs) per object/method. */
struct out_rule { uint16_t obj, meth, attr; bool obj_handle; };
static const struct out_rule out_rules[] = {
	{ UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_ESP_CREATE, 0, true },
	{ UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE, 0, true },
	{ UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ, UVERBS_ATTR_READ_COUNTERS_BUFF, false },
	{ UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 0, true },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 0, true },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, UVERBS_ATTR_REG_DM_MR_RESP_LKEY, false },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, UVERBS_ATTR_REG_DM_MR_RESP_RKEY, false },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, UVERBS_ATTR_QUERY_MR_RESP_LKEY, false },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, UVERBS_ATTR_QUERY_MR_RESP_RKEY, false },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, UVERBS_ATTR_QUERY_MR_RESP_LENGTH, false },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, 0, true },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, false },
	{ UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, false },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, 0, true },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, false },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, false },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, false },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, UVERBS_ATTR_UHW_OUT, false },
	{ UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY, UVERBS_ATTR_DESTROY_WQ_RESP, false },
};

static const struct out_rule *out_rule(uint16_t obj, uint16_t meth, uint16_t attr)
{
	for (size_t i = 0; i < sizeof(out_rules) / sizeof(out_rules[0]); i++)
		if (out_rules[i].obj == obj && out_rules[i].meth == meth && out_rules[i].attr == attr)
			return &out_rules[i];
	return NULL;
}

/* The value the fake kernel writes for output attribute `attr`. */
static void out_fill(uint8_t *dst, size_t len, uint16_t attr)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = (i % 4 == 1) ? 0x20 : (i % 4 == 0 ? (uint8_t)(0x10 * (attr & 0xf) + i / 4) : 0);
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != FAKE_FD || req != RDMA_VERBS_IOCTL)
		return syscall(SYS_ioctl, fd, req, arg);

	struct ib_uverbs_ioctl_hdr *h = arg;
	printf("  ioctl obj=%u meth=%u num=%u length=%u driver=%u r1=%llu r2=%u\n", h->object_id,
	       h->method_id, h->num_attrs, h->length, h->driver_id,
	       (unsigned long long)h->reserved1, h->reserved2);
	for (unsigned i = 0; i < h->num_attrs; i++) {
		struct ib_uverbs_attr *a = &h->attrs[i];
		const struct out_rule *r = out_rule(h->object_id, h->method_id, a->attr_id);

		printf("    attr id=%#x len=%u flags=%#x attr_data=%#x data=", a->attr_id, a->len,
		       a->flags, *(uint16_t *)&a->attr_data);
		if (mapped(a->data)) {
			printf("PTR");
			if (a->len > 8 && !r)
				words_inline((void *)(uintptr_t)a->data, a->len);
		} else {
			printf("%#llx", (unsigned long long)a->data);
		}
		printf("%s\n", r ? " (out)" : "");
	}
	if (ioctl_ret) {
		printf("  -> ioctl fails %d\n", ioctl_ret);
		errno = ioctl_ret;
		return -1;
	}
	for (unsigned i = 0; i < h->num_attrs; i++) {
		struct ib_uverbs_attr *a = &h->attrs[i];
		const struct out_rule *r = out_rule(h->object_id, h->method_id, a->attr_id);

		if (!r)
			continue;
		if (r->obj_handle)
			a->data = 0x500 + h->object_id;
		else
			out_fill((uint8_t *)(uintptr_t)a->data, a->len, a->attr_id);
		a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	}
	return 0;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (fd != FAKE_FD)
		return syscall(SYS_write, fd, buf, n);

	const struct ib_uverbs_cmd_hdr *h = buf;
	bool ex = h->command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	uint32_t cmd = h->command & ~IB_USER_VERBS_CMD_FLAG_EXTENDED;
	uint64_t resp = 0;
	size_t rlen = 0;

	printf("  write cmd=%#x in=%u out=%u\n", h->command, h->in_words, h->out_words);
	if (!ex && (cmd == IB_USER_VERBS_CMD_POST_SEND || cmd == IB_USER_VERBS_CMD_POST_RECV ||
		    cmd == IB_USER_VERBS_CMD_POST_SRQ_RECV)) {
		post_words(buf, n, cmd == IB_USER_VERBS_CMD_POST_SEND);
	} else {
		words("bytes", buf, n);
	}
	if (n >= 16)
		memcpy(&resp, (const uint8_t *)buf + 8, 8);
	if (ex) {
		const struct ex_hdr *e = buf;

		rlen = (h->out_words + e->ex_hdr.provider_out_words) * 8;
	} else {
		rlen = h->out_words * 4;
	}
	if (resp && rlen) {
		uint32_t *r = (uint32_t *)(uintptr_t)resp;

		for (size_t i = 0; i < rlen / 4; i++)
			r[i] = 0x2000 + i;
		if (!ex && cmd == IB_USER_VERBS_CMD_POLL_CQ) {
			r[0] = poll_count < (rlen - 8) / 48 ? poll_count : (rlen - 8) / 48;
			r[1] = 0;
		}
		if (!ex && (cmd == IB_USER_VERBS_CMD_POST_SEND || cmd == IB_USER_VERBS_CMD_POST_RECV ||
			    cmd == IB_USER_VERBS_CMD_POST_SRQ_RECV))
			r[0] = post_bad;
		if (ex && cmd == IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL) {
			r[0] = 0;
			r[1] = 16;
		}
	}
	if (write_ret) {
		printf("  -> write fails %d\n", write_ret);
		errno = write_ret;
		return -1;
	}
	return n;
}

/* ---- the fake context ---- */

static struct verbs_context *vctx;

static struct ibv_context *new_ctx(void)
{
	vctx = calloc(1, sizeof(*vctx));
	vctx->priv = calloc(1, 4096);
	vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx->context.cmd_fd = FAKE_FD;
	vctx->context.async_fd = ASYNC_FD;
	ioctl_ret = write_ret = 0;
	return &vctx->context;
}

static void begin(const char *name)
{
	printf("== %s\n", name);
	fflush(stdout);
}

/* Clears the stack below us, so a helper's uninitialised locals read 0 in
 * both libraries. */
static void __attribute__((noinline)) zero_stack(void)
{
	volatile uint8_t pad[32768];

	memset((void *)pad, 0, sizeof(pad));
}

#define RET(call)                                                                       \
	do {                                                                            \
		zero_stack();                                                           \
		errno = 0;                                                              \
		int _r = (call);                                                        \
		printf("  ret=%d errno=%d\n", _r, errno);                               \
	} while (0)

/* ---- flows ---- */

static size_t put(uint8_t *buf, size_t off, const void *spec, size_t size)
{
	memcpy(buf + off, spec, size);
	return off + size;
}

static void flows(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_qp qp = { .context = ctx, .handle = 0x21 };
	struct ibv_flow flow = { 0 };
	struct verbs_flow_action act = { .handle = 0x4d };
	struct verbs_counters cnt = { .handle = 0x99 };
	uint64_t storage[256] = { 0 };
	uint8_t *buf = (uint8_t *)storage;
	struct ibv_flow_attr *attr = (void *)buf;
	size_t off = sizeof(*attr);
	uint8_t ucmd[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

	struct ibv_flow_spec_eth eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(eth),
		.val = { .dst_mac = { 1, 2, 3, 4, 5, 6 }, .ether_type = 0x0008, .vlan_tag = 0x1234 },
		.mask = { .dst_mac = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, .ether_type = 0xffff } };
	struct ibv_flow_spec_ipv4 ip4 = { .type = IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER,
		.size = sizeof(ip4), .val = { 0x0100000a, 0x0200000a }, .mask = { ~0u, 0 } };
	struct ibv_flow_spec_ipv4_ext ip4x = { .type = IBV_FLOW_SPEC_IPV4_EXT, .size = sizeof(ip4x),
		.val = { .src_ip = 5, .dst_ip = 6, .proto = 17, .tos = 3, .ttl = 9, .flags = 2 },
		.mask = { .src_ip = ~0u, .proto = 0xff, .flags = 0xff } };
	struct ibv_flow_spec_ipv6 ip6 = { .type = IBV_FLOW_SPEC_IPV6 | IBV_FLOW_SPEC_INNER,
		.size = sizeof(ip6), .val = { .src_ip = { 0xfe, 0x80 }, .flow_label = 7, .next_hdr = 6,
		.traffic_class = 1, .hop_limit = 64 }, .mask = { .flow_label = 0xfffff, .hop_limit = 0xff } };
	struct ibv_flow_spec_tcp_udp tcp = { .type = IBV_FLOW_SPEC_TCP, .size = sizeof(tcp),
		.val = { 0x5000, 0x1000 }, .mask = { 0xffff, 0 } };
	struct ibv_flow_spec_tcp_udp udp = { .type = IBV_FLOW_SPEC_UDP | IBV_FLOW_SPEC_INNER,
		.size = sizeof(udp), .val = { 0xb712, 0 }, .mask = { 0xffff, 0 } };
	struct ibv_flow_spec_tunnel vx = { .type = IBV_FLOW_SPEC_VXLAN_TUNNEL, .size = sizeof(vx),
		.val = { 0x123456 }, .mask = { 0xffffff } };
	struct ibv_flow_spec_gre gre = { .type = IBV_FLOW_SPEC_GRE, .size = sizeof(gre),
		.val = { 1, 0x6558, 9 }, .mask = { 0xffff, 0xffff, ~0u } };
	struct ibv_flow_spec_mpls mpls = { .type = IBV_FLOW_SPEC_MPLS | IBV_FLOW_SPEC_INNER,
		.size = sizeof(mpls), .val = { 0x1234 }, .mask = { 0xfffff } };
	struct ibv_flow_spec_esp esp = { .type = IBV_FLOW_SPEC_ESP, .size = sizeof(esp),
		.val = { 0x11, 0x22 }, .mask = { ~0u, 0 } };
	struct ibv_flow_spec_action_tag tag = { .type = IBV_FLOW_SPEC_ACTION_TAG,
		.size = sizeof(tag), .tag_id = 0x77 };
	struct ibv_flow_spec_action_drop drop = { .type = IBV_FLOW_SPEC_ACTION_DROP,
		.size = sizeof(drop) };
	struct ibv_flow_spec_action_handle ah = { .type = IBV_FLOW_SPEC_ACTION_HANDLE,
		.size = sizeof(ah), .action = &act.action };
	struct ibv_flow_spec_counter_action ca = { .type = IBV_FLOW_SPEC_ACTION_COUNT,
		.size = sizeof(ca), .counters = &cnt.counters };

	off = put(buf, off, &eth, sizeof(eth));
	off = put(buf, off, &ip4, sizeof(ip4));
	off = put(buf, off, &ip4x, sizeof(ip4x));
	off = put(buf, off, &ip6, sizeof(ip6));
	off = put(buf, off, &tcp, sizeof(tcp));
	off = put(buf, off, &udp, sizeof(udp));
	off = put(buf, off, &vx, sizeof(vx));
	off = put(buf, off, &gre, sizeof(gre));
	off = put(buf, off, &mpls, sizeof(mpls));
	off = put(buf, off, &esp, sizeof(esp));
	off = put(buf, off, &tag, sizeof(tag));
	off = put(buf, off, &drop, sizeof(drop));
	off = put(buf, off, &ah, sizeof(ah));
	off = put(buf, off, &ca, sizeof(ca));
	*attr = (struct ibv_flow_attr){ .type = IBV_FLOW_ATTR_NORMAL, .size = off, .priority = 2,
					.num_of_specs = 14, .port = 1, .flags = 0 };

	begin("create_flow all specs + ucmd");
	RET(ibv_cmd_create_flow(&qp, &flow, attr, ucmd, sizeof(ucmd)));
	printf("  flow handle=%#x context=%s\n", flow.handle, flow.context == ctx ? "ctx" : pv(flow.context));

	begin("create_flow no ucmd, write fails");
	write_ret = EINVAL;
	attr->num_of_specs = 2;
	flow.handle = 0;
	RET(ibv_cmd_create_flow(&qp, &flow, attr, NULL, 0));
	printf("  flow handle=%#x\n", flow.handle);
	write_ret = 0;

	/* Malformed specs. */
	struct { const char *name; uint32_t type; uint16_t size; int mask_byte; } bad[] = {
		{ "ipv6 mask past the kernel's fields", IBV_FLOW_SPEC_IPV6, sizeof(ip6), 39 },
		{ "ipv6 too short", IBV_FLOW_SPEC_IPV6, 8 + 2 * 38, -1 },
		{ "ipv4_ext longer, zero tail", IBV_FLOW_SPEC_IPV4_EXT, 8 + 2 * 20, -1 },
		{ "ipv4_ext longer, set tail", IBV_FLOW_SPEC_IPV4_EXT, 8 + 2 * 20, 14 },
		{ "tunnel longer, set tail", IBV_FLOW_SPEC_VXLAN_TUNNEL, 8 + 2 * 8, 5 },
		{ "inner gre", IBV_FLOW_SPEC_GRE | IBV_FLOW_SPEC_INNER, sizeof(gre), -1 },
		{ "inner vxlan", IBV_FLOW_SPEC_VXLAN_TUNNEL | IBV_FLOW_SPEC_INNER, sizeof(vx), -1 },
		{ "inner tag", IBV_FLOW_SPEC_ACTION_TAG | IBV_FLOW_SPEC_INNER, sizeof(tag), -1 },
		{ "unknown", 0x7777, 16, -1 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t spec[128] = { 0 };
		uint16_t fsz = (bad[i].size - 8) / 2;

		memcpy(spec, &bad[i].type, 4);
		memcpy(spec + 4, &bad[i].size, 2);
		for (int k = 0; k < 6 && k < fsz; k++)
			spec[8 + k] = 0x30 + k;
		if (bad[i].mask_byte >= 0)
			spec[8 + fsz + bad[i].mask_byte] = 1;
		memset(storage, 0, sizeof(storage));
		*attr = (struct ibv_flow_attr){ .num_of_specs = 1, .port = 1 };
		memcpy(buf + sizeof(*attr), spec, bad[i].size);
		begin(bad[i].name);
		RET(ibv_cmd_create_flow(&qp, &flow, attr, NULL, 0));
	}

	begin("destroy_flow ioctl");
	flow.context = ctx;
	flow.handle = 0x3c;
	RET(ibv_cmd_destroy_flow(&flow));
	begin("destroy_flow fallback");
	ioctl_ret = EPROTONOSUPPORT;
	RET(ibv_cmd_destroy_flow(&flow));
	begin("destroy_flow known unsupported, write EIO");
	ioctl_ret = 0;
	write_ret = EIO;
	RET(ibv_cmd_destroy_flow(&flow));
}

/* ---- flow actions ---- */

static void flow_actions(void)
{
	struct ibv_context *ctx = new_ctx();
	struct verbs_flow_action act = { 0 };
	struct ibv_flow_action_esp_keymat_aes_gcm km = { .iv = 0x1122334455667788ull, .salt = 5,
		.icv_len = 16, .key_len = 32, .aes_key = { 1, 2, 3, 4, 5, 6, 7, 8 } };
	struct ibv_flow_action_esp_replay_bmp rp = { .size = 64 };
	struct ibv_flow_ipv4_filter f4 = { 1, 2 };
	struct ibv_flow_action_esp_encap enc = { .val_ptr = &f4, .len = sizeof(f4),
						 .type = IBV_FLOW_SPEC_IPV4 };
	struct ibv_flow_action_esp esp = { .spi = 0x1234, .seq = 1, .tfc_pad = 2,
					   .flags = IBV_FLOW_ACTION_ESP_FLAGS_FULL_OFFLOAD,
					   .hard_limit_pkts = 1000 };
	struct ibv_flow_action_esp_attr attr = { .esp_attr = &esp,
		.keymat_proto = IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM, .keymat_len = sizeof(km),
		.keymat_ptr = &km, .replay_proto = IBV_FLOW_ACTION_ESP_REPLAY_BMP,
		.replay_len = sizeof(rp), .replay_ptr = &rp, .esp_encap = &enc,
		.comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN, .esn = 0xabcd };

	begin("create_flow_action_esp");
	RET(ibv_cmd_create_flow_action_esp(ctx, &attr, &act, NULL));
	printf("  action handle=%#x type=%d ctx=%d\n", act.handle, act.type, act.action.context == ctx);
	begin("modify_flow_action_esp (no ESN, no encap)");
	attr.comp_mask = 0;
	attr.esp_encap = NULL;
	RET(ibv_cmd_modify_flow_action_esp(&act, &attr, NULL));
	begin("destroy_flow_action");
	RET(ibv_cmd_destroy_flow_action(&act));
	begin("create_flow_action_esp fails");
	ioctl_ret = EPROTONOSUPPORT;
	RET(ibv_cmd_create_flow_action_esp(ctx, &attr, &act, NULL));
	begin("destroy_flow_action EIO");
	ioctl_ret = EIO;
	RET(ibv_cmd_destroy_flow_action(&act));
}

/* ---- work queues ---- */

struct drv_create_wq { struct ex_hdr hdr; struct ib_uverbs_ex_create_wq core; uint64_t drv[2]; };
struct drv_create_wq_resp { struct ib_uverbs_ex_create_wq_resp core; uint64_t drv; };
struct drv_modify_wq { struct ex_hdr hdr; struct ib_uverbs_ex_modify_wq core; uint64_t drv; };

static void wqs(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_pd pd = { .context = ctx, .handle = 0x11 };
	struct ibv_cq cq = { .context = ctx, .handle = 0x22 };
	struct ibv_wq wq = { 0 };
	struct ibv_wq_init_attr init = { .wq_type = IBV_WQT_RQ, .max_wr = 64, .max_sge = 2,
		.pd = &pd, .cq = &cq, .comp_mask = IBV_WQ_INIT_ATTR_FLAGS,
		.create_flags = IBV_WQ_FLAGS_SCATTER_FCS };
	struct drv_create_wq cmd = { .drv = { 0xa, 0xb } };
	struct drv_create_wq_resp resp = { 0 };

	pthread_mutex_init(&wq.mutex, NULL);
	pthread_cond_init(&wq.cond, NULL);

	begin("create_wq ioctl");
	RET(ibv_cmd_create_wq(ctx, &init, &wq, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	printf("  wq handle=%#x num=%#x max_wr=%#x max_sge=%#x type=%u pd=%d cq=%d drv=%#llx\n",
	       wq.handle, wq.wq_num, init.max_wr, init.max_sge, wq.wq_type, wq.pd == &pd,
	       wq.cq == &cq, (unsigned long long)resp.drv);

	begin("create_wq fallback to write in place (flags without mask bit)");
	init.comp_mask = 0;
	init.max_wr = 64;
	ioctl_ret = ENOTTY;
	memset(&resp, 0, sizeof(resp));
	RET(ibv_cmd_create_wq(ctx, &init, &wq, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	printf("  wq handle=%#x num=%#x max_wr=%#x max_sge=%#x drv=%#llx\n", wq.handle, wq.wq_num,
	       init.max_wr, init.max_sge, (unsigned long long)resp.drv);
	words("cmd after", &cmd, sizeof(cmd));

	begin("create_wq write without provider data");
	RET(ibv_cmd_create_wq(ctx, &init, &wq, NULL, 0, NULL, 0));

	begin("create_wq reserved flag");
	init.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
	init.create_flags = IBV_WQ_FLAGS_RESERVED;
	RET(ibv_cmd_create_wq(ctx, &init, &wq, NULL, 0, NULL, 0));
	begin("create_wq reserved mask");
	init.comp_mask = IBV_WQ_INIT_ATTR_RESERVED;
	RET(ibv_cmd_create_wq(ctx, &init, &wq, NULL, 0, NULL, 0));

	struct drv_modify_wq mcmd = { .drv = 0x99 };
	struct ibv_wq_attr wattr = { .attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_FLAGS,
		.wq_state = IBV_WQS_RDY, .curr_wq_state = IBV_WQS_RESET, .flags = 1, .flags_mask = 3 };

	memset(&mcmd.hdr, 0xee, sizeof(mcmd.hdr));
	begin("modify_wq");
	wq.context = ctx;
	wq.handle = 0x19;
	RET(ibv_cmd_modify_wq(&wq, &wattr, &mcmd, sizeof(mcmd)));
	printf("  state=%u\n", wq.state);
	begin("modify_wq bad flags");
	wattr.flags_mask = IBV_WQ_FLAGS_RESERVED;
	RET(ibv_cmd_modify_wq(&wq, &wattr, &mcmd, sizeof(mcmd)));
	begin("modify_wq bad mask");
	wattr.attr_mask = IBV_WQ_ATTR_RESERVED;
	RET(ibv_cmd_modify_wq(&wq, &wattr, &mcmd, sizeof(mcmd)));

	ctx = new_ctx();
	wq.context = ctx;
	begin("destroy_wq ioctl");
	wq.events_completed = 0x2010;	/* what out_fill writes for attr 1 */
	RET(ibv_cmd_destroy_wq(&wq));
	begin("destroy_wq write");
	ioctl_ret = ENOTTY;
	wq.events_completed = 0x2002;	/* word 2 of the write response */
	RET(ibv_cmd_destroy_wq(&wq));
}

/* ---- RSS indirection tables ---- */

static void rwq_ind(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_wq w[4] = { { .handle = 0x100 }, { .handle = 0x101 }, { .handle = 0x102 },
			       { .handle = 0x103 } };
	struct ibv_wq *tbl[4] = { &w[0], &w[1], &w[2], &w[3] };
	struct ibv_rwq_ind_table_init_attr init = { .log_ind_tbl_size = 2, .ind_tbl = tbl };
	struct ibv_rwq_ind_table t = { 0 };
	struct { struct ib_uverbs_ex_create_rwq_ind_table_resp core; uint64_t drv; } resp = { 0 };

	begin("create_rwq_ind_table 4");
	RET(ibv_cmd_create_rwq_ind_table(ctx, &init, &t, &resp.core, sizeof(resp)));
	printf("  handle=%#x num=%#x ctx=%d drv=%#llx\n", t.ind_tbl_handle, t.ind_tbl_num,
	       t.context == ctx, (unsigned long long)resp.drv);
	begin("create_rwq_ind_table 1 (padded)");
	init.log_ind_tbl_size = 0;
	RET(ibv_cmd_create_rwq_ind_table(ctx, &init, &t, &resp.core, sizeof(resp.core)));
	begin("create_rwq_ind_table 2, write fails");
	init.log_ind_tbl_size = 1;
	write_ret = ENOSYS;
	RET(ibv_cmd_create_rwq_ind_table(ctx, &init, &t, &resp.core, sizeof(resp.core)));
	write_ret = 0;
	begin("create_rwq_ind_table reserved mask");
	init.comp_mask = IBV_CREATE_IND_TABLE_RESERVED;
	RET(ibv_cmd_create_rwq_ind_table(ctx, &init, &t, &resp.core, sizeof(resp.core)));
	begin("destroy_rwq_ind_table ioctl");
	t.ind_tbl_handle = 0x12;
	RET(ibv_cmd_destroy_rwq_ind_table(&t));
	begin("destroy_rwq_ind_table fallback");
	ioctl_ret = EPROTONOSUPPORT;
	RET(ibv_cmd_destroy_rwq_ind_table(&t));
}

/* ---- counters, device memory ---- */

static void counters_dm(void)
{
	struct ibv_context *ctx = new_ctx();
	struct verbs_counters c = { 0 };
	struct ibv_counters_init_attr ci = { 0 };
	uint64_t vals[3] = { 0 };

	begin("create_counters");
	RET(ibv_cmd_create_counters(ctx, &ci, &c, NULL));
	printf("  handle=%#x ctx=%d\n", c.handle, c.counters.context == ctx);
	begin("read_counters");
	RET(ibv_cmd_read_counters(&c, vals, 3, 1, NULL));
	printf("  vals=%#llx %#llx %#llx\n", (unsigned long long)vals[0],
	       (unsigned long long)vals[1], (unsigned long long)vals[2]);
	begin("read_counters too many");
	RET(ibv_cmd_read_counters(&c, vals, 9000, 0, NULL));
	begin("destroy_counters");
	RET(ibv_cmd_destroy_counters(&c));
	begin("create_counters bad mask");
	ci.comp_mask = 1;
	RET(ibv_cmd_create_counters(ctx, &ci, &c, NULL));

	struct ibv_pd pd = { .context = ctx, .handle = 2 };
	struct verbs_dm dm = { 0 };
	struct verbs_mr mr = { .ibv_mr = { .addr = (void *)0x1234 }, .access = 99 };
	struct ibv_alloc_dm_attr da = { .length = 0x10000, .log_align_req = 6 };

	begin("alloc_dm");
	RET(ibv_cmd_alloc_dm(ctx, &da, &dm, NULL));
	printf("  handle=%#x dm.handle=%#x mask=%#x ctx=%d\n", dm.handle, dm.dm.handle,
	       dm.dm.comp_mask, dm.dm.context == ctx);
	begin("reg_dm_mr");
	RET(ibv_cmd_reg_dm_mr(&pd, &dm, 0x40, 4096, IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE,
			      &mr, NULL));
	printf("  mr handle=%#x lkey=%#x rkey=%#x len=%zu addr=%s pd=%d type=%d access=%d\n",
	       mr.ibv_mr.handle, mr.ibv_mr.lkey, mr.ibv_mr.rkey, mr.ibv_mr.length,
	       pv(mr.ibv_mr.addr), mr.ibv_mr.pd == &pd, mr.mr_type, mr.access);
	begin("reg_dm_mr not zero based");
	RET(ibv_cmd_reg_dm_mr(&pd, &dm, 0, 64, IBV_ACCESS_LOCAL_WRITE, &mr, NULL));
	begin("free_dm");
	RET(ibv_cmd_free_dm(&dm));
	begin("alloc_dm fails");
	ioctl_ret = ENOMEM;
	RET(ibv_cmd_alloc_dm(ctx, &da, &dm, NULL));
}

/* ---- XRC ---- */

struct drv_open_xrcd { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_open_xrcd core; uint64_t drv; };
struct drv_open_qp { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_open_qp core; uint64_t drv; };

static void xrc(void)
{
	struct ibv_context *ctx = new_ctx();
	struct verbs_xrcd x = { .comp_mask = 0xff };
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
					 .fd = 9, .oflags = 0100 };
	struct drv_open_xrcd cmd = { .drv = 0x5a };
	struct { struct ib_uverbs_open_xrcd_resp core; uint32_t drv; } resp = { { 0 }, 0 };

	begin("open_xrcd");
	RET(ibv_cmd_open_xrcd(ctx, &x, sizeof(x), &xa, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	printf("  handle=%#x mask=%#x ctx=%d drv=%#x\n", x.handle, x.comp_mask, x.xrcd.context == ctx,
	       resp.drv);
	begin("open_xrcd short struct");
	x.handle = 0;
	RET(ibv_cmd_open_xrcd(ctx, &x, offsetof(struct verbs_xrcd, handle), &xa, &cmd, sizeof(cmd),
			      &resp.core, sizeof(resp.core)));
	printf("  handle=%#x mask=%#x\n", x.handle, x.comp_mask);
	begin("open_xrcd missing oflags");
	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD;
	RET(ibv_cmd_open_xrcd(ctx, &x, sizeof(x), &xa, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	begin("open_xrcd reserved");
	xa.comp_mask = IBV_XRCD_INIT_ATTR_RESERVED | 3;
	RET(ibv_cmd_open_xrcd(ctx, &x, sizeof(x), &xa, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));

	struct verbs_qp qp;
	struct drv_open_qp qcmd = { .drv = 0x66 };
	struct ib_uverbs_create_qp_resp qresp = { 0 };
	struct ibv_qp_open_attr qa = { .comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
				       IBV_QP_OPEN_ATTR_TYPE, .qp_num = 0x123, .xrcd = &x.xrcd,
				       .qp_context = &qa, .qp_type = IBV_QPT_XRC_RECV };

	memset(&qp, 0x5a, sizeof(qp));
	x.handle = 0x44;
	begin("open_qp");
	RET(ibv_cmd_open_qp(ctx, &qp, sizeof(qp), &qa, &qcmd, sizeof(qcmd), &qresp, sizeof(qresp)));
	printf("  handle=%#x ctx=%d qpctx=%d pd=%s scq=%s rcq=%s srq=%s num=%#x type=%u state=%u ev=%u"
	       " mask=%#x xrcd=%d\n",
	       qp.qp.handle, qp.qp.context == ctx, qp.qp.qp_context == &qa, pv(qp.qp.pd),
	       pv(qp.qp.send_cq), pv(qp.qp.recv_cq), pv(qp.qp.srq), qp.qp.qp_num, qp.qp.qp_type,
	       qp.qp.state, qp.qp.events_completed, qp.comp_mask, qp.xrcd == &x);
	begin("open_qp short struct");
	memset(&qp, 0x5a, sizeof(qp));
	RET(ibv_cmd_open_qp(ctx, &qp, offsetof(struct verbs_qp, xrcd), &qa, &qcmd, sizeof(qcmd),
			    &qresp, sizeof(qresp)));
	printf("  mask=%#x\n", qp.comp_mask);
	begin("open_qp missing type");
	qa.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM;
	RET(ibv_cmd_open_qp(ctx, &qp, sizeof(qp), &qa, &qcmd, sizeof(qcmd), &qresp, sizeof(qresp)));
	begin("open_qp reserved");
	qa.comp_mask = IBV_QP_OPEN_ATTR_RESERVED;
	RET(ibv_cmd_open_qp(ctx, &qp, sizeof(qp), &qa, &qcmd, sizeof(qcmd), &qresp, sizeof(qresp)));

	begin("close_xrcd ioctl");
	RET(ibv_cmd_close_xrcd(&x));
	begin("close_xrcd fallback");
	ioctl_ret = ENOTTY;
	RET(ibv_cmd_close_xrcd(&x));
}

/* ---- data path ---- */

static void data_path(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_cq cq = { .context = ctx, .handle = 0x12 };
	struct ibv_wc wc[4];

	memset(wc, 0x77, sizeof(wc));
	begin("poll_cq 4 -> 2");
	poll_count = 2;
	RET(ibv_cmd_poll_cq(&cq, 4, wc));
	words("wc", wc, sizeof(wc));
	begin("poll_cq 0");
	RET(ibv_cmd_poll_cq(&cq, 0, wc));
	begin("poll_cq write fails");
	write_ret = EINVAL;
	RET(ibv_cmd_poll_cq(&cq, 1, wc));
	write_ret = 0;

	struct ibv_ah ah = { .handle = 0x41 };
	struct ibv_qp qp = { .context = ctx, .handle = 0x31, .qp_type = IBV_QPT_RC };
	struct ibv_sge sge[3] = { { 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 30, 3 } };
	struct ibv_send_wr sw[4];
	struct ibv_send_wr *bad = NULL;

	memset(sw, 0, sizeof(sw));
	sw[0] = (struct ibv_send_wr){ .wr_id = 1, .next = &sw[1], .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
		.imm_data = 0x01020304, .wr.rdma = { 0xaaaa, 0xbb } };
	sw[1] = (struct ibv_send_wr){ .wr_id = 2, .next = &sw[2], .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.wr.atomic = { 0xcc, 5, 6, 0xdd } };
	sw[2] = (struct ibv_send_wr){ .wr_id = 3, .next = &sw[3], .sg_list = &sge[2], .num_sge = 1,
		.opcode = IBV_WR_SEND, .wr.ud = { &ah, 0x99, 0x1111 } };
	sw[3] = (struct ibv_send_wr){ .wr_id = 4, .opcode = IBV_WR_RDMA_READ,
		.wr.rdma = { 0xeeee, 0xff } };

	begin("post_send rc");
	post_bad = 0;
	RET(ibv_cmd_post_send(&qp, sw, &bad));
	printf("  bad=%ld\n", bad ? (long)(bad - sw) : -1L);
	begin("post_send rc, kernel stops at 3");
	post_bad = 3;
	write_ret = ENOMEM;
	RET(ibv_cmd_post_send(&qp, sw, &bad));
	printf("  bad=%ld\n", bad ? (long)(bad - sw) : -1L);
	begin("post_send rc, fails before any");
	post_bad = 0;
	bad = NULL;
	write_ret = EINVAL;
	RET(ibv_cmd_post_send(&qp, sw, &bad));
	printf("  bad=%ld\n", bad ? (long)(bad - sw) : -1L);
	write_ret = 0;

	struct ibv_ah ah2 = { .handle = 0x42 };

	sw[0].wr.ud = sw[2].wr.ud;
	sw[1].wr.ud = (typeof(sw[1].wr.ud)){ &ah2, 0x98, 0x2222 };
	sw[3].wr.ud = sw[2].wr.ud;
	qp.qp_type = IBV_QPT_UD;
	post_qp_ud = true;
	begin("post_send ud");
	bad = NULL;
	RET(ibv_cmd_post_send(&qp, sw, &bad));
	printf("  bad=%ld\n", bad ? (long)(bad - sw) : -1L);

	struct ibv_srq srq = { .context = ctx, .handle = 0x61 };
	struct ibv_recv_wr rw[3] = {
		{ .wr_id = 0xa, .next = &rw[1], .sg_list = sge, .num_sge = 2 },
		{ .wr_id = 0xb, .next = &rw[2] },
		{ .wr_id = 0xc, .sg_list = &sge[2], .num_sge = 1 },
	};
	struct ibv_recv_wr *rbad = NULL;

	begin("post_recv");
	qp.qp_type = IBV_QPT_RC;
	post_qp_ud = false;
	RET(ibv_cmd_post_recv(&qp, rw, &rbad));
	printf("  bad=%ld\n", rbad ? (long)(rbad - rw) : -1L);
	begin("post_recv kernel stops at 2");
	post_bad = 2;
	write_ret = ENOMEM;
	RET(ibv_cmd_post_recv(&qp, rw, &rbad));
	printf("  bad=%ld\n", rbad ? (long)(rbad - rw) : -1L);
	write_ret = 0;
	post_bad = 0;
	rbad = NULL;
	begin("post_srq_recv");
	RET(ibv_cmd_post_srq_recv(&srq, rw, &rbad));
	printf("  bad=%ld\n", rbad ? (long)(rbad - rw) : -1L);
	begin("post_srq_recv kernel stops at 1");
	post_bad = 1;
	write_ret = EAGAIN;
	RET(ibv_cmd_post_srq_recv(&srq, rw, &rbad));
	printf("  bad=%ld\n", rbad ? (long)(rbad - rw) : -1L);
	write_ret = 0;
	post_bad = 0;
}

/* ---- MRs, CQ moderation ---- */

struct drv_rereg { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_rereg_mr core; uint64_t drv; };
struct drv_modify_cq { struct ex_hdr hdr; struct ib_uverbs_ex_modify_cq core; uint64_t drv; };

static void mrs_cq(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_context *ctx2 = &((struct verbs_context *)calloc(1, sizeof(struct verbs_context)))->context;
	struct ibv_pd pd = { .context = ctx2, .handle = 0x20 };
	struct verbs_mr mr = { .ibv_mr = { .context = ctx, .handle = 0x10 } };
	struct drv_rereg cmd = { .drv = 0x77 };
	struct { struct ib_uverbs_rereg_mr_resp core; uint64_t drv; } resp = { { 0 }, 0 };

	begin("rereg_mr change pd");
	RET(ibv_cmd_rereg_mr(&mr, IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_PD,
			     (void *)0x5000, 0x2000, 0x5000, 7, &pd, &cmd, sizeof(cmd), &resp.core,
			     sizeof(resp)));
	printf("  lkey=%#x rkey=%#x ctx2=%d drv=%#llx\n", mr.ibv_mr.lkey, mr.ibv_mr.rkey,
	       mr.ibv_mr.context == ctx2, (unsigned long long)resp.drv);
	begin("rereg_mr access only");
	mr.ibv_mr.context = ctx;
	RET(ibv_cmd_rereg_mr(&mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, 0, 0, 1, &pd, &cmd,
			     sizeof(cmd.hdr) + sizeof(cmd.core), &resp.core, sizeof(resp.core)));
	printf("  ctx=%d\n", mr.ibv_mr.context == ctx);

	pd.context = ctx;
	struct verbs_mr q = { .ibv_mr = { .addr = (void *)0x99 } };

	begin("query_mr");
	RET(ibv_cmd_query_mr(&pd, &q, 0x31));
	printf("  handle=%#x lkey=%#x rkey=%#x len=%#zx addr=%s pd=%d ctx=%d type=%d\n",
	       q.ibv_mr.handle, q.ibv_mr.lkey, q.ibv_mr.rkey, q.ibv_mr.length, pv(q.ibv_mr.addr),
	       q.ibv_mr.pd == &pd, q.ibv_mr.context == ctx, q.mr_type);

	struct ibv_sge sg[2] = { { 0x1000, 64, 1 }, { 0x2000, 128, 2 } };

	begin("advise_mr 2");
	RET(ibv_cmd_advise_mr(&pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH, sg, 2));
	begin("advise_mr 0");
	RET(ibv_cmd_advise_mr(&pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, sg, 0));
	begin("advise_mr too many");
	RET(ibv_cmd_advise_mr(&pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, sg, 5000));

	struct verbs_mr dmr = { 0 };

	begin("reg_dmabuf_mr");
	RET(ibv_cmd_reg_dmabuf_mr(&pd, 0x3000, 0x10000, 0x7f000000, 12, 3, &dmr));
	printf("  handle=%#x lkey=%#x rkey=%#x len=%#zx addr=%p pd=%d ctx=%d type=%d\n",
	       dmr.ibv_mr.handle, dmr.ibv_mr.lkey, dmr.ibv_mr.rkey, dmr.ibv_mr.length,
	       dmr.ibv_mr.addr, dmr.ibv_mr.pd == &pd, dmr.ibv_mr.context == ctx, dmr.mr_type);
	begin("reg_dmabuf_mr fails");
	ioctl_ret = EBADF;
	RET(ibv_cmd_reg_dmabuf_mr(&pd, 0, 1, 0, -1, 0, &dmr));
	ioctl_ret = 0;

	struct ibv_cq cq = { .context = ctx, .handle = 0x17 };
	struct ibv_modify_cq_attr ma = { .attr_mask = IBV_CQ_ATTR_MODERATE,
					 .moderate = { .cq_count = 16, .cq_period = 100 } };
	struct drv_modify_cq mc = { .core = { .reserved = 0xffff }, .drv = 0x42 };

	begin("modify_cq");
	RET(ibv_cmd_modify_cq(&cq, &ma, &mc, sizeof(mc)));
	begin("modify_cq reserved");
	ma.attr_mask = IBV_CQ_ATTR_RESERVED;
	RET(ibv_cmd_modify_cq(&cq, &ma, &mc, sizeof(mc)));
}

int main(void)
{
	int nul = open("/dev/null", 0);

	/* A real descriptor at FAKE_FD, in case anything else touches it. */
	if (nul < 0 || dup2(nul, FAKE_FD) != FAKE_FD)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	flows();
	flow_actions();
	wqs();
	rwq_ind();
	counters_dm();
	xrc();
	data_path();
	mrs_cq();
	printf("done\n");
	return 0;
}
