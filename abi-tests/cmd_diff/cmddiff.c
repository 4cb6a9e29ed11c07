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
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* The core-object helpers (driver.h restated; provider command structs as void *). */
struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};
struct verbs_cq { union { struct ibv_cq cq; struct ibv_cq_ex cq_ex; }; };
struct verbs_sysfs_dev {
	void *entry[2];
	void *provider_data;
	const void *match;
	unsigned int flags;
	char sysfs_name[64];
	dev_t sysfs_cdev;
	char ibdev_name[64];
	char ibdev_path[256];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};
struct verbs_device {
	struct ibv_device device;
	const void *ops;
	int refcount;
	void *entry[2];
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};
enum ibv_gid_type_sysfs { IBV_GID_TYPE_SYSFS_IB_ROCE_V1, IBV_GID_TYPE_SYSFS_ROCE_V2 };
/* cmd_ioctl.h's command buffer, for a provider's driver-attribute link. */
struct ibv_command_buffer {
	struct ibv_command_buffer *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	uint8_t uhw_in_idx, uhw_out_idx, uhw_in_headroom_dwords, uhw_out_headroom_dwords;
	uint8_t buffer_error : 1, fallback_require_ex : 1, fallback_ioctl_only : 1;
	struct ib_uverbs_ioctl_hdr hdr;
};

extern bool verbs_allow_disassociate_destroy;
int ibv_cmd_alloc_pd(struct ibv_context *, struct ibv_pd *, void *cmd, size_t,
		     struct ib_uverbs_alloc_pd_resp *, size_t);
int ibv_cmd_dealloc_pd(struct ibv_pd *);
int ibv_cmd_alloc_mw(struct ibv_pd *, enum ibv_mw_type, struct ibv_mw *, void *cmd, size_t,
		     struct ib_uverbs_alloc_mw_resp *, size_t);
int ibv_cmd_dealloc_mw(struct ibv_mw *);
int ibv_cmd_create_ah(struct ibv_pd *, struct ibv_ah *, struct ibv_ah_attr *,
		      struct ib_uverbs_create_ah_resp *, size_t);
int ibv_cmd_destroy_ah(struct ibv_ah *);
int ibv_cmd_attach_mcast(struct ibv_qp *, const union ibv_gid *, uint16_t);
int ibv_cmd_detach_mcast(struct ibv_qp *, const union ibv_gid *, uint16_t);
int ibv_cmd_reg_mr(struct ibv_pd *, void *, size_t, uint64_t, int, struct verbs_mr *, void *cmd,
		   size_t, struct ib_uverbs_reg_mr_resp *, size_t);
int ibv_cmd_dereg_mr(struct verbs_mr *);
int ibv_cmd_create_cq(struct ibv_context *, int, struct ibv_comp_channel *, int, struct ibv_cq *,
		      void *cmd, size_t, struct ib_uverbs_create_cq_resp *, size_t);
int ibv_cmd_create_cq_ex(struct ibv_context *, const struct ibv_cq_init_attr_ex *,
			 struct verbs_cq *, void *cmd, size_t, struct ib_uverbs_ex_create_cq_resp *,
			 size_t, uint32_t);
int ibv_cmd_req_notify_cq(struct ibv_cq *, int);
int ibv_cmd_resize_cq(struct ibv_cq *, int, void *cmd, size_t, struct ib_uverbs_resize_cq_resp *,
		      size_t);
int ibv_cmd_destroy_cq(struct ibv_cq *);
void verbs_init_cq(struct ibv_cq *, struct ibv_context *, struct ibv_comp_channel *, void *);
int ibv_cmd_create_qp(struct ibv_pd *, struct ibv_qp *, struct ibv_qp_init_attr *, void *cmd,
		      size_t, struct ib_uverbs_create_qp_resp *, size_t);
int ibv_cmd_create_qp_ex(struct ibv_context *, struct verbs_qp *, struct ibv_qp_init_attr_ex *,
			 void *cmd, size_t, struct ib_uverbs_create_qp_resp *, size_t);
int ibv_cmd_create_qp_ex2(struct ibv_context *, struct verbs_qp *, struct ibv_qp_init_attr_ex *,
			  void *cmd, size_t, struct ib_uverbs_ex_create_qp_resp *, size_t);
int ibv_cmd_modify_qp(struct ibv_qp *, struct ibv_qp_attr *, int, void *cmd, size_t);
int ibv_cmd_modify_qp_ex(struct ibv_qp *, struct ibv_qp_attr *, int, void *cmd, size_t,
			 struct ib_uverbs_ex_modify_qp_resp *, size_t);
int ibv_cmd_query_qp(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *,
		     void *cmd, size_t);
int ibv_cmd_destroy_qp(struct ibv_qp *);
int ibv_cmd_create_srq(struct ibv_pd *, struct ibv_srq *, struct ibv_srq_init_attr *, void *cmd,
		       size_t, struct ib_uverbs_create_srq_resp *, size_t);
int ibv_cmd_create_srq_ex(struct ibv_context *, struct verbs_srq *, struct ibv_srq_init_attr_ex *,
			  void *cmd, size_t, struct ib_uverbs_create_srq_resp *, size_t);
int ibv_cmd_modify_srq(struct ibv_srq *, struct ibv_srq_attr *, int, void *cmd, size_t);
int ibv_cmd_query_srq(struct ibv_srq *, struct ibv_srq_attr *, void *cmd, size_t);
int ibv_cmd_destroy_srq(struct ibv_srq *);
int ibv_cmd_get_context(struct verbs_context *, void *cmd, size_t,
			struct ib_uverbs_get_context_resp *, size_t);
int ibv_cmd_query_context(struct ibv_context *, struct ibv_command_buffer *);
int ibv_cmd_query_port(struct ibv_context *, uint8_t, struct ibv_port_attr *, void *cmd, size_t);
int ibv_cmd_query_device_any(struct ibv_context *, const struct ibv_query_device_ex_input *,
			     struct ibv_device_attr_ex *, size_t,
			     struct ib_uverbs_ex_query_device_resp *, size_t *);
int ibv_query_gid_type(struct ibv_context *, uint8_t, unsigned int, enum ibv_gid_type_sysfs *);

/* ---- output helpers ---- */

static bool mapped(uint64_t v)
{
	if (v < 0x10000)
		return false;
	return msync((void *)(uintptr_t)(v & ~(uint64_t)4095), 1, MS_ASYNC) == 0;
}

/*
 * Buffers a scenario names (note()): a pointer into one prints as
 * "name+offset" instead of PTR, so where a command points (the provider's
 * own response buffer, or a copy) is compared too.
 */
static struct { const char *name; uintptr_t base; size_t len; } notes[8];
static unsigned nnotes;

static void note(const char *name, const void *p, size_t len)
{
	if (nnotes < sizeof(notes) / sizeof(notes[0]))
		notes[nnotes++] = (typeof(notes[0])){ name, (uintptr_t)p, len };
}

/* Prints a mapped address: a noted buffer and offset, or PTR. */
static void print_ptr(uint64_t v)
{
	for (unsigned i = 0; i < nnotes; i++)
		if (v >= notes[i].base && v < notes[i].base + notes[i].len) {
			printf("%s+%llu", notes[i].name, (unsigned long long)(v - notes[i].base));
			return;
		}
	printf("PTR");
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
		if (k == 8 && mapped(w)) {
			printf(" ");
			print_ptr(w);
		} else {
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
		if (k == 8 && mapped(w)) {
			printf(" ");
			print_ptr(w);
		} else {
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
static bool ioctl_no_out;	/* ioctls succeed without writing any output */
static size_t resp_fill;	/* write(): bytes of the response filled (0: all) */
static uint32_t ex_resp_len;	/* response_length the ex QUERY_DEVICE reports (0: pattern) */
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
	{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, UVERBS_ATTR_CREATE_CQ_HANDLE, true },
	{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, UVERBS_ATTR_CREATE_CQ_RESP_CQE, false },
	{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, UVERBS_ATTR_UHW_OUT, false },
	{ UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, UVERBS_ATTR_DESTROY_CQ_RESP, false },
	{ UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, UVERBS_ATTR_CREATE_QP_HANDLE, true },
	{ UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, UVERBS_ATTR_CREATE_QP_RESP_CAP, false },
	{ UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, false },
	{ UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, UVERBS_ATTR_UHW_OUT, false },
	{ UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY, UVERBS_ATTR_DESTROY_QP_RESP, false },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_CREATE_SRQ_HANDLE, true },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, false },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, false },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, false },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, UVERBS_ATTR_UHW_OUT, false },
	{ UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY, UVERBS_ATTR_DESTROY_SRQ_RESP, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, UVERBS_ATTR_QUERY_PORT_RESP, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, UVERBS_ATTR_UHW_OUT, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, false },
	{ UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, false },
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
			print_ptr(a->data);
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
	for (unsigned i = 0; i < h->num_attrs && !ioctl_no_out; i++) {
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

		for (size_t i = 0; i < rlen / 4 && (!resp_fill || i < resp_fill / 4); i++)
			r[i] = 0x2000 + i;
		if (ex && cmd == IB_USER_VERBS_EX_CMD_QUERY_DEVICE && ex_resp_len && rlen >= 184)
			r[45] = ex_resp_len;
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
	pthread_mutex_init(&vctx->context.mutex, NULL);
	ioctl_ret = write_ret = 0;
	ioctl_no_out = false;
	resp_fill = 0;
	ex_resp_len = 0;
	return &vctx->context;
}

static void begin(const char *name)
{
	nnotes = 0;
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

/* ---- PDs, MWs, AHs, multicast, MRs (write commands; ioctl destroys) ---- */

struct drv_alloc_pd { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_alloc_pd core; uint64_t drv[2]; };
struct drv_alloc_pd_resp { struct ib_uverbs_alloc_pd_resp core; uint32_t drv[3]; };
struct drv_alloc_mw { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_alloc_mw core; uint64_t drv; };
struct drv_alloc_mw_resp { struct ib_uverbs_alloc_mw_resp core; uint64_t drv; };
struct drv_create_ah_resp { struct ib_uverbs_create_ah_resp core; uint32_t drv[3]; };
struct drv_reg_mr { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_reg_mr core; uint64_t drv; };
struct drv_reg_mr_resp { struct ib_uverbs_reg_mr_resp core; uint32_t drv[3]; };

/* A destroy helper on the ioctl path, the write fallback, the kernel's EIO
 * (with and without verbs_allow_disassociate_destroy) and EINVAL. */
#define DESTROY_CASES(name, call)                                                      \
	do {                                                                           \
		begin(name " ioctl");                                                  \
		RET(call);                                                             \
		begin(name " EPROTONOSUPPORT, write");                                 \
		ioctl_ret = EPROTONOSUPPORT;                                           \
		RET(call);                                                             \
		begin(name " write remembered");                                       \
		ioctl_ret = 0;                                                         \
		RET(call);                                                             \
		begin(name " write EIO");                                              \
		write_ret = EIO;                                                       \
		RET(call);                                                             \
		begin(name " write EIO, disassociate allowed");                        \
		verbs_allow_disassociate_destroy = true;                               \
		RET(call);                                                             \
		verbs_allow_disassociate_destroy = false;                              \
		write_ret = 0;                                                         \
	} while (0)

#define DESTROY_IOCTL_ERRS(name, call)                                                 \
	do {                                                                           \
		begin(name " ioctl EINVAL");                                           \
		ioctl_ret = EINVAL;                                                    \
		RET(call);                                                             \
		begin(name " ioctl EIO, disassociate allowed");                        \
		ioctl_ret = EIO;                                                       \
		verbs_allow_disassociate_destroy = true;                               \
		RET(call);                                                             \
		verbs_allow_disassociate_destroy = false;                              \
		begin(name " ENOTTY, write");                                          \
		ioctl_ret = ENOTTY;                                                    \
		RET(call);                                                             \
		ioctl_ret = 0;                                                         \
	} while (0)

static void pd_mw_ah_mr(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_pd pd;
	struct drv_alloc_pd cmd;
	struct drv_alloc_pd_resp resp;

	memset(&pd, 0x5a, sizeof(pd));
	memset(&cmd, 0xee, sizeof(cmd));
	cmd.drv[0] = 0x1111;
	cmd.drv[1] = 0x2222;
	memset(&resp, 0xdd, sizeof(resp));
	begin("alloc_pd");
	note("resp", &resp, sizeof(resp));
	RET(ibv_cmd_alloc_pd(ctx, &pd, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	printf("  handle=%#x ctx=%d drv=%#x %#x %#x\n", pd.handle, pd.context == ctx, resp.drv[0],
	       resp.drv[1], resp.drv[2]);
	begin("alloc_pd no driver data");
	RET(ibv_cmd_alloc_pd(ctx, &pd, &cmd, sizeof(cmd.hdr) + sizeof(cmd.core), &resp.core,
			     sizeof(resp.core)));
	begin("alloc_pd write EINVAL");
	pd.handle = 0x77;
	write_ret = EINVAL;
	RET(ibv_cmd_alloc_pd(ctx, &pd, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	printf("  handle=%#x\n", pd.handle);
	write_ret = 0;

	pd.handle = 0x13;
	pd.context = ctx;
	DESTROY_CASES("dealloc_pd", ibv_cmd_dealloc_pd(&pd));
	ctx = new_ctx();
	pd.context = ctx;
	DESTROY_IOCTL_ERRS("dealloc_pd", ibv_cmd_dealloc_pd(&pd));

	/* memory windows */
	ctx = new_ctx();
	pd.context = ctx;
	struct ibv_mw mw;
	struct drv_alloc_mw mcmd;
	struct drv_alloc_mw_resp mresp = { .drv = 0 };

	memset(&mw, 0x5a, sizeof(mw));
	memset(&mcmd, 0xee, sizeof(mcmd));
	mcmd.drv = 0xabc;
	begin("alloc_mw type 2");
	note("resp", &mresp, sizeof(mresp));
	RET(ibv_cmd_alloc_mw(&pd, IBV_MW_TYPE_2, &mw, &mcmd, sizeof(mcmd), &mresp.core, sizeof(mresp)));
	printf("  handle=%#x rkey=%#x type=%u ctx=%d pd=%d drv=%#llx\n", mw.handle, mw.rkey, mw.type,
	       mw.context == ctx, mw.pd == &pd, (unsigned long long)mresp.drv);
	words("cmd after", &mcmd, sizeof(mcmd));
	begin("alloc_mw write ENOMEM");
	write_ret = ENOMEM;
	memset(&mw, 0x5a, sizeof(mw));
	RET(ibv_cmd_alloc_mw(&pd, IBV_MW_TYPE_1, &mw, &mcmd, sizeof(mcmd), &mresp.core, sizeof(mresp)));
	printf("  handle=%#x\n", mw.handle);
	write_ret = 0;

	mw.context = ctx;
	mw.handle = 0x44;
	DESTROY_CASES("dealloc_mw", ibv_cmd_dealloc_mw(&mw));
	ctx = new_ctx();
	mw.context = ctx;
	DESTROY_IOCTL_ERRS("dealloc_mw", ibv_cmd_dealloc_mw(&mw));

	/* address handles */
	ctx = new_ctx();
	pd.context = ctx;
	struct ibv_ah ah;
	struct drv_create_ah_resp aresp;
	struct ibv_ah_attr aa = { .grh = { .dgid = { .raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3,
							     4, 5, 6, 7, 8 } },
					   .flow_label = 0xabcde, .sgid_index = 3, .hop_limit = 64,
					   .traffic_class = 0x12 },
				  .dlid = 0x1234, .sl = 5, .src_path_bits = 1, .static_rate = 3,
				  .is_global = 1, .port_num = 2 };

	memset(&ah, 0x5a, sizeof(ah));
	memset(&aresp, 0xdd, sizeof(aresp));
	begin("create_ah");
	note("resp", &aresp, sizeof(aresp));
	RET(ibv_cmd_create_ah(&pd, &ah, &aa, &aresp.core, sizeof(aresp)));
	printf("  handle=%#x ctx=%d drv=%#x %#x\n", ah.handle, ah.context == ctx, aresp.drv[0],
	       aresp.drv[2]);
	begin("create_ah core response only");
	aa.is_global = 0;
	RET(ibv_cmd_create_ah(&pd, &ah, &aa, &aresp.core, sizeof(aresp.core)));
	begin("create_ah write EINVAL");
	write_ret = EINVAL;
	ah.handle = 0x99;
	RET(ibv_cmd_create_ah(&pd, &ah, &aa, &aresp.core, sizeof(aresp)));
	printf("  handle=%#x\n", ah.handle);
	write_ret = 0;

	ah.context = ctx;
	ah.handle = 0x55;
	DESTROY_CASES("destroy_ah", ibv_cmd_destroy_ah(&ah));
	ctx = new_ctx();
	ah.context = ctx;
	DESTROY_IOCTL_ERRS("destroy_ah", ibv_cmd_destroy_ah(&ah));

	/* multicast */
	struct ibv_qp qp = { .context = ctx, .handle = 0x66 };
	union ibv_gid gid = { .raw = { 0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } };

	begin("attach_mcast");
	RET(ibv_cmd_attach_mcast(&qp, &gid, 0xc001));
	begin("attach_mcast write EINVAL");
	write_ret = EINVAL;
	RET(ibv_cmd_attach_mcast(&qp, &gid, 0xc001));
	begin("attach_mcast write EIO, disassociate allowed");
	write_ret = EIO;
	verbs_allow_disassociate_destroy = true;
	RET(ibv_cmd_attach_mcast(&qp, &gid, 0));
	verbs_allow_disassociate_destroy = false;
	write_ret = 0;
	begin("detach_mcast");
	RET(ibv_cmd_detach_mcast(&qp, &gid, 0xc002));
	begin("detach_mcast write EINVAL");
	write_ret = EINVAL;
	RET(ibv_cmd_detach_mcast(&qp, &gid, 0xc002));
	begin("detach_mcast write EIO");
	write_ret = EIO;
	RET(ibv_cmd_detach_mcast(&qp, &gid, 0xc002));
	begin("detach_mcast write EIO, disassociate allowed");
	verbs_allow_disassociate_destroy = true;
	RET(ibv_cmd_detach_mcast(&qp, &gid, 0xc002));
	verbs_allow_disassociate_destroy = false;
	write_ret = 0;

	/* memory regions */
	struct verbs_mr mr;
	struct drv_reg_mr rcmd;
	struct drv_reg_mr_resp rresp;

	memset(&mr, 0x5a, sizeof(mr));
	memset(&rcmd, 0xee, sizeof(rcmd));
	rcmd.drv = 0xfeed;
	memset(&rresp, 0xdd, sizeof(rresp));
	pd.handle = 0x21;
	begin("reg_mr");
	note("resp", &rresp, sizeof(rresp));
	RET(ibv_cmd_reg_mr(&pd, (void *)0x7000, 0x3000, 0x9000,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, &mr, &rcmd, sizeof(rcmd),
			   &rresp.core, sizeof(rresp)));
	printf("  handle=%#x lkey=%#x rkey=%#x ctx=%d pd=%s addr=%s len=%#zx type=%d access=%#x"
	       " drv=%#x\n",
	       mr.ibv_mr.handle, mr.ibv_mr.lkey, mr.ibv_mr.rkey, mr.ibv_mr.context == ctx,
	       pv(mr.ibv_mr.pd), pv(mr.ibv_mr.addr), mr.ibv_mr.length, mr.mr_type, mr.access,
	       rresp.drv[0]);
	begin("reg_mr implicit ODP");
	RET(ibv_cmd_reg_mr(&pd, NULL, SIZE_MAX, 0, IBV_ACCESS_ON_DEMAND, &mr, &rcmd, sizeof(rcmd),
			   &rresp.core, sizeof(rresp)));
	begin("reg_mr ODP whole space with an address");
	RET(ibv_cmd_reg_mr(&pd, (void *)0x1000, SIZE_MAX, 0, IBV_ACCESS_ON_DEMAND, &mr, &rcmd,
			   sizeof(rcmd), &rresp.core, sizeof(rresp)));
	begin("reg_mr SIZE_MAX without ODP");
	RET(ibv_cmd_reg_mr(&pd, (void *)0x1000, SIZE_MAX, 0, 0, &mr, &rcmd, sizeof(rcmd),
			   &rresp.core, sizeof(rresp)));
	begin("reg_mr write EFAULT");
	memset(&mr, 0x5a, sizeof(mr));
	write_ret = EFAULT;
	RET(ibv_cmd_reg_mr(&pd, (void *)0x7000, 0x3000, 0x9000, 0, &mr, &rcmd, sizeof(rcmd),
			   &rresp.core, sizeof(rresp)));
	printf("  handle=%#x type=%d\n", mr.ibv_mr.handle, mr.mr_type);
	write_ret = 0;

	mr.ibv_mr.context = ctx;
	mr.ibv_mr.handle = 0x88;
	DESTROY_CASES("dereg_mr", ibv_cmd_dereg_mr(&mr));
	ctx = new_ctx();
	mr.ibv_mr.context = ctx;
	DESTROY_IOCTL_ERRS("dereg_mr", ibv_cmd_dereg_mr(&mr));
}

/* ---- CQs ---- */

struct drv_create_cq { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_create_cq core; uint64_t buf, db; };
struct drv_create_cq_resp { struct ib_uverbs_create_cq_resp core; uint32_t drv[2]; };
struct drv_create_cq_ex { struct ex_hdr hdr; struct ib_uverbs_ex_create_cq core; uint64_t buf, db; };
struct drv_create_cq_ex_resp { struct ib_uverbs_ex_create_cq_resp core; uint64_t drv; };
struct drv_resize_cq { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_resize_cq core; uint64_t buf; };
struct drv_resize_cq_resp { struct ib_uverbs_resize_cq_resp core; uint64_t drv; };

static void show_cq(const struct ibv_cq *cq, struct ibv_context *ctx)
{
	printf("  cq handle=%#x cqe=%#x ctx=%d\n", cq->handle, cq->cqe, cq->context == ctx);
}

static void cqs(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_comp_channel ch = { .context = ctx, .fd = 33, .refcnt = 0 };
	struct ibv_cq cq;
	struct drv_create_cq cmd;
	struct drv_create_cq_resp resp;

	memset(&cq, 0x5a, sizeof(cq));
	memset(&cmd, 0xee, sizeof(cmd));
	cmd.buf = 0xb0f;
	cmd.db = 0xdb;
	memset(&resp, 0xdd, sizeof(resp));
	begin("create_cq ioctl, channel");
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	note("cq", &cq, sizeof(cq));
	RET(ibv_cmd_create_cq(ctx, 255, &ch, 3, &cq, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_cq(&cq, ctx);
	words("resp after", &resp, sizeof(resp));
	begin("create_cq ioctl, no channel, no driver data");
	note("cq", &cq, sizeof(cq));
	RET(ibv_cmd_create_cq(ctx, 1, NULL, 0, &cq, &cmd, sizeof(cmd.hdr) + sizeof(cmd.core),
			      &resp.core, sizeof(resp.core)));
	show_cq(&cq, ctx);
	begin("create_cq ioctl EINVAL");
	memset(&cq, 0x5a, sizeof(cq));
	ioctl_ret = EINVAL;
	RET(ibv_cmd_create_cq(ctx, 255, &ch, 3, &cq, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_cq(&cq, ctx);
	begin("create_cq EPROTONOSUPPORT, write");
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	note("cq", &cq, sizeof(cq));
	ioctl_ret = EPROTONOSUPPORT;
	memset(&resp, 0xdd, sizeof(resp));
	RET(ibv_cmd_create_cq(ctx, 255, &ch, 3, &cq, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_cq(&cq, ctx);
	words("cmd after", &cmd, sizeof(cmd));
	words("resp after", &resp, sizeof(resp));
	begin("create_cq write remembered, no channel");
	note("cq", &cq, sizeof(cq));
	ioctl_ret = 0;
	RET(ibv_cmd_create_cq(ctx, 7, NULL, 1, &cq, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_cq(&cq, ctx);
	begin("create_cq write without driver data");
	note("cq", &cq, sizeof(cq));
	RET(ibv_cmd_create_cq(ctx, 7, NULL, 1, &cq, &cmd, sizeof(cmd.hdr) + sizeof(cmd.core),
			      &resp.core, sizeof(resp.core)));
	show_cq(&cq, ctx);
	begin("create_cq write EINVAL");
	memset(&cq, 0x5a, sizeof(cq));
	write_ret = EINVAL;
	RET(ibv_cmd_create_cq(ctx, 7, NULL, 1, &cq, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_cq(&cq, ctx);
	write_ret = 0;

	/* create_cq_ex */
	ctx = new_ctx();
	ch.context = ctx;
	struct verbs_cq vcq;
	struct drv_create_cq_ex xcmd;
	struct drv_create_cq_ex_resp xresp;
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .channel = &ch, .comp_vector = 2,
					  .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
					  .comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
					  .flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN };

	memset(&vcq, 0x5a, sizeof(vcq));
	memset(&xcmd, 0xee, sizeof(xcmd));
	xcmd.buf = 0xb1f;
	xcmd.db = 0xdc;
	memset(&xresp, 0xdd, sizeof(xresp));
	begin("create_cq_ex ioctl, timestamp + ignore overrun");
	note("cmd", &xcmd, sizeof(xcmd));
	note("resp", &xresp, sizeof(xresp));
	note("cq", &vcq, sizeof(vcq));
	RET(ibv_cmd_create_cq_ex(ctx, &ca, &vcq, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp), 0));
	show_cq(&vcq.cq, ctx);
	begin("create_cq_ex bad comp_mask");
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD << 1;
	RET(ibv_cmd_create_cq_ex(ctx, &ca, &vcq, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp), 0));
	begin("create_cq_ex EPROTONOSUPPORT, flags need write_ex");
	note("cmd", &xcmd, sizeof(xcmd));
	note("resp", &xresp, sizeof(xresp));
	note("cq", &vcq, sizeof(vcq));
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ioctl_ret = EPROTONOSUPPORT;
	RET(ibv_cmd_create_cq_ex(ctx, &ca, &vcq, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp), 0));
	show_cq(&vcq.cq, ctx);
	words("cmd after", &xcmd, sizeof(xcmd));
	words("resp after", &xresp, sizeof(xresp));
	begin("create_cq_ex timestamp only, TS_IGNORED_EX: plain write");
	note("cmd", &xcmd, sizeof(xcmd));
	note("resp", &xresp, sizeof(xresp));
	note("cq", &vcq, sizeof(vcq));
	ca.comp_mask = 0;
	ioctl_ret = 0;
	memset(&xresp, 0xdd, sizeof(xresp));
	RET(ibv_cmd_create_cq_ex(ctx, &ca, &vcq, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp), 1));
	show_cq(&vcq.cq, ctx);
	words("cmd after", &xcmd, sizeof(xcmd));
	words("resp after", &xresp, sizeof(xresp));
	begin("create_cq_ex timestamp only, without TS_IGNORED_EX: write_ex");
	note("cq", &vcq, sizeof(vcq));
	RET(ibv_cmd_create_cq_ex(ctx, &ca, &vcq, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp), 0));
	show_cq(&vcq.cq, ctx);
	begin("create_cq_ex no flags: plain write");
	note("cq", &vcq, sizeof(vcq));
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	RET(ibv_cmd_create_cq_ex(ctx, &ca, &vcq, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp), 0));
	show_cq(&vcq.cq, ctx);
	begin("create_cq_ex write_ex ENOMEM");
	ca.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	write_ret = ENOMEM;
	RET(ibv_cmd_create_cq_ex(ctx, &ca, &vcq, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp), 0));
	write_ret = 0;

	/* req_notify, resize */
	cq.context = ctx;
	cq.handle = 0x31;
	begin("req_notify_cq solicited");
	RET(ibv_cmd_req_notify_cq(&cq, 5));
	begin("req_notify_cq all");
	RET(ibv_cmd_req_notify_cq(&cq, 0));
	begin("req_notify_cq write EINVAL");
	write_ret = EINVAL;
	RET(ibv_cmd_req_notify_cq(&cq, 1));
	write_ret = 0;

	struct drv_resize_cq rcmd;
	struct drv_resize_cq_resp rresp;

	memset(&rcmd, 0xee, sizeof(rcmd));
	rcmd.buf = 0xbbb;
	memset(&rresp, 0xdd, sizeof(rresp));
	begin("resize_cq");
	note("resp", &rresp, sizeof(rresp));
	cq.cqe = 1;
	RET(ibv_cmd_resize_cq(&cq, 1024, &rcmd, sizeof(rcmd), &rresp.core, sizeof(rresp)));
	printf("  cqe=%#x drv=%#llx\n", cq.cqe, (unsigned long long)rresp.drv);
	begin("resize_cq write EINVAL");
	cq.cqe = 1;
	write_ret = EINVAL;
	RET(ibv_cmd_resize_cq(&cq, 1024, &rcmd, sizeof(rcmd), &rresp.core, sizeof(rresp)));
	printf("  cqe=%#x\n", cq.cqe);
	write_ret = 0;

	/* destroy: the helper waits until the events the kernel reports were acked */
	ctx = new_ctx();
	cq.context = ctx;
	cq.handle = 0x32;
	pthread_mutex_init(&cq.mutex, NULL);
	pthread_cond_init(&cq.cond, NULL);
	begin("destroy_cq ioctl");
	cq.comp_events_completed = 0x2010;
	cq.async_events_completed = 0x2011;
	RET(ibv_cmd_destroy_cq(&cq));
	begin("destroy_cq ioctl EINVAL");
	ioctl_ret = EINVAL;
	RET(ibv_cmd_destroy_cq(&cq));
	begin("destroy_cq ioctl EIO, disassociate allowed");
	ioctl_ret = EIO;
	verbs_allow_disassociate_destroy = true;
	RET(ibv_cmd_destroy_cq(&cq));
	verbs_allow_disassociate_destroy = false;
	begin("destroy_cq EPROTONOSUPPORT, write");
	ioctl_ret = EPROTONOSUPPORT;
	cq.comp_events_completed = 0x2000;
	cq.async_events_completed = 0x2001;
	RET(ibv_cmd_destroy_cq(&cq));
	begin("destroy_cq write EIO");
	write_ret = EIO;
	RET(ibv_cmd_destroy_cq(&cq));
	begin("destroy_cq write EIO, disassociate allowed");
	verbs_allow_disassociate_destroy = true;
	RET(ibv_cmd_destroy_cq(&cq));
	verbs_allow_disassociate_destroy = false;
	write_ret = 0;

	/* verbs_init_cq */
	struct ibv_cq icq;

	memset(&icq, 0x5a, sizeof(icq));
	ch.refcnt = 4;
	begin("verbs_init_cq with channel");
	verbs_init_cq(&icq, ctx, &ch, &ch);
	printf("  ctx=%d channel=%d cq_context=%d refcnt=%d comp=%u async=%u handle=%#x cqe=%#x\n",
	       icq.context == ctx, icq.channel == &ch, icq.cq_context == &ch, ch.refcnt,
	       icq.comp_events_completed, icq.async_events_completed, icq.handle, icq.cqe);
	begin("verbs_init_cq no channel");
	memset(&icq, 0x5a, sizeof(icq));
	verbs_init_cq(&icq, ctx, NULL, NULL);
	printf("  ctx=%d channel=%s cq_context=%s refcnt=%d comp=%u async=%u\n", icq.context == ctx,
	       pv(icq.channel), pv(icq.cq_context), ch.refcnt, icq.comp_events_completed,
	       icq.async_events_completed);
}

/* ---- QPs ---- */

struct drv_create_qp { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_create_qp core; uint64_t buf, db; };
struct drv_create_qp_resp { struct ib_uverbs_create_qp_resp core; uint32_t drv[2]; };
struct drv_create_qp_ex { struct ex_hdr hdr; struct ib_uverbs_ex_create_qp core; uint64_t buf, db; };
struct drv_create_qp_ex_resp { struct ib_uverbs_ex_create_qp_resp core; uint64_t drv; };
struct drv_modify_qp { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_modify_qp core; uint64_t drv; };
struct drv_modify_qp_ex { struct ex_hdr hdr; struct ib_uverbs_ex_modify_qp core; uint64_t drv; };
struct drv_modify_qp_ex_resp { struct ib_uverbs_ex_modify_qp_resp core; uint64_t drv; };
struct drv_query_qp { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_query_qp core; uint64_t drv; };

static void show_qp(const struct ibv_qp *qp, struct ibv_context *ctx)
{
	printf("  qp handle=%#x num=%#x state=%u type=%u ev=%u ctx=%d qpctx=%s pd=%s scq=%s rcq=%s"
	       " srq=%s\n",
	       qp->handle, qp->qp_num, qp->state, qp->qp_type, qp->events_completed,
	       qp->context == ctx, pv(qp->qp_context), pv(qp->pd), pv(qp->send_cq),
	       pv(qp->recv_cq), pv(qp->srq));
}

static void show_cap(const struct ibv_qp_cap *c)
{
	printf("  cap %#x %#x %#x %#x %#x\n", c->max_send_wr, c->max_recv_wr, c->max_send_sge,
	       c->max_recv_sge, c->max_inline_data);
}

/* The create_qp cases whose write path depends on the kernel's ABI version. */
static void create_qp_write(const char *tag)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_pd pd = { .context = ctx, .handle = 0x11 };
	struct ibv_cq scq = { .handle = 0x21 }, rcq = { .handle = 0x22 };
	struct ibv_srq srq = { .handle = 0x23 };
	struct ibv_qp qp;
	struct drv_create_qp cmd;
	struct drv_create_qp_resp resp;
	struct ibv_qp_init_attr ia = { .qp_context = &pd, .send_cq = &scq, .recv_cq = &rcq,
				       .srq = &srq, .cap = { 16, 32, 2, 3, 64 },
				       .qp_type = IBV_QPT_RC, .sq_sig_all = 1 };
	char name[96];

	memset(&qp, 0x5a, sizeof(qp));
	memset(&cmd, 0xee, sizeof(cmd));
	cmd.buf = 0x1b;
	cmd.db = 0x1d;
	memset(&resp, 0xdd, sizeof(resp));
	snprintf(name, sizeof(name), "create_qp EPROTONOSUPPORT, write (%s)", tag);
	begin(name);
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	note("qp", &qp, sizeof(qp));
	ioctl_ret = EPROTONOSUPPORT;
	RET(ibv_cmd_create_qp(&pd, &qp, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_qp(&qp, ctx);
	show_cap(&ia.cap);
	words("cmd after", &cmd, sizeof(cmd));
	words("resp after", &resp, sizeof(resp));
	ioctl_ret = 0;

	struct verbs_xrcd xrcd = { .handle = 0x77 };
	struct verbs_qp vqp;
	struct ibv_qp_init_attr_ex ie = { .qp_type = IBV_QPT_XRC_RECV, .cap = { 0, 0, 0, 0, 0 },
					  .comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = &xrcd.xrcd };

	memset(&vqp, 0x5a, sizeof(vqp));
	snprintf(name, sizeof(name), "create_qp_ex xrc recv, write (%s)", tag);
	begin(name);
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	note("qp", &vqp, sizeof(vqp));
	RET(ibv_cmd_create_qp_ex(ctx, &vqp, &ie, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_qp(&vqp.qp, ctx);
	printf("  mask=%#x xrcd=%d\n", vqp.comp_mask, vqp.xrcd == &xrcd);
	words("cmd after", &cmd, sizeof(cmd));

	snprintf(name, sizeof(name), "create_qp write EINVAL (%s)", tag);
	begin(name);
	memset(&qp, 0x5a, sizeof(qp));
	write_ret = EINVAL;
	RET(ibv_cmd_create_qp(&pd, &qp, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_qp(&qp, ctx);
	write_ret = 0;
}

static void qps(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_pd pd = { .context = ctx, .handle = 0x11 };
	struct ibv_cq scq = { .handle = 0x21 }, rcq = { .handle = 0x22 };
	struct ibv_srq srq = { .handle = 0x23 };
	struct ibv_qp qp;
	struct drv_create_qp cmd;
	struct drv_create_qp_resp resp;
	struct ibv_qp_init_attr ia = { .qp_context = &pd, .send_cq = &scq, .recv_cq = &rcq,
				       .srq = NULL, .cap = { 16, 32, 2, 3, 64 },
				       .qp_type = IBV_QPT_RC, .sq_sig_all = 0 };

	memset(&qp, 0x5a, sizeof(qp));
	memset(&cmd, 0xee, sizeof(cmd));
	cmd.buf = 0x1b;
	cmd.db = 0x1d;
	memset(&resp, 0xdd, sizeof(resp));
	begin("create_qp ioctl rc");
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	note("qp", &qp, sizeof(qp));
	RET(ibv_cmd_create_qp(&pd, &qp, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_qp(&qp, ctx);
	show_cap(&ia.cap);
	words("resp after", &resp, sizeof(resp));
	begin("create_qp ioctl ud, srq, sq_sig_all");
	note("qp", &qp, sizeof(qp));
	ia.qp_type = IBV_QPT_UD;
	ia.srq = &srq;
	ia.sq_sig_all = 1;
	ia.cap = (struct ibv_qp_cap){ 16, 32, 2, 3, 64 };
	RET(ibv_cmd_create_qp(&pd, &qp, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_qp(&qp, ctx);
	begin("create_qp ioctl, kernel writes no output");
	note("qp", &qp, sizeof(qp));
	ioctl_no_out = true;
	ia.cap = (struct ibv_qp_cap){ 16, 32, 2, 3, 64 };
	RET(ibv_cmd_create_qp(&pd, &qp, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_cap(&ia.cap);
	ioctl_no_out = false;
	begin("create_qp ioctl EINVAL");
	memset(&qp, 0x5a, sizeof(qp));
	ioctl_ret = EINVAL;
	RET(ibv_cmd_create_qp(&pd, &qp, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_qp(&qp, ctx);
	show_cap(&ia.cap);
	ioctl_ret = 0;
	begin("create_qp bad type");
	ia.qp_type = 0x77;
	RET(ibv_cmd_create_qp(&pd, &qp, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	ia.qp_type = IBV_QPT_RC;

	/* create_qp_ex */
	struct verbs_qp vqp;
	struct verbs_xrcd xrcd = { .handle = 0x77 };
	struct ibv_qp_init_attr_ex ie = { .qp_context = &ie, .send_cq = &scq, .recv_cq = &rcq,
					  .cap = { 8, 0, 1, 0, 32 }, .qp_type = IBV_QPT_XRC_SEND,
					  .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = &pd };

	memset(&vqp, 0x5a, sizeof(vqp));
	begin("create_qp_ex ioctl xrc send");
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	note("qp", &vqp, sizeof(vqp));
	RET(ibv_cmd_create_qp_ex(ctx, &vqp, &ie, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_qp(&vqp.qp, ctx);
	show_cap(&ie.cap);
	printf("  mask=%#x\n", vqp.comp_mask);
	begin("create_qp_ex ioctl xrc recv");
	note("qp", &vqp, sizeof(vqp));
	ie = (struct ibv_qp_init_attr_ex){ .qp_type = IBV_QPT_XRC_RECV,
					   .comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = &xrcd.xrcd };
	memset(&vqp, 0x5a, sizeof(vqp));
	RET(ibv_cmd_create_qp_ex(ctx, &vqp, &ie, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_qp(&vqp.qp, ctx);
	printf("  mask=%#x xrcd=%d\n", vqp.comp_mask, vqp.xrcd == &xrcd);
	begin("create_qp_ex xrc recv without xrcd");
	ie.comp_mask = 0;
	RET(ibv_cmd_create_qp_ex(ctx, &vqp, &ie, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	begin("create_qp_ex rc without pd");
	ie.qp_type = IBV_QPT_RC;
	RET(ibv_cmd_create_qp_ex(ctx, &vqp, &ie, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	begin("create_qp_ex create flags not allowed");
	ie.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	RET(ibv_cmd_create_qp_ex(ctx, &vqp, &ie, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));

	/* create_qp_ex2 */
	struct drv_create_qp_ex xcmd;
	struct drv_create_qp_ex_resp xresp;
	struct ibv_rwq_ind_table tbl = { .ind_tbl_handle = 0x99 };

	memset(&xcmd, 0xee, sizeof(xcmd));
	xcmd.buf = 0x2b;
	xcmd.db = 0x2d;
	memset(&xresp, 0xdd, sizeof(xresp));
	ie = (struct ibv_qp_init_attr_ex){ .qp_context = &ie, .send_cq = &scq, .recv_cq = &rcq,
					   .cap = { 8, 8, 1, 1, 0 }, .qp_type = IBV_QPT_RAW_PACKET,
					   .comp_mask = IBV_QP_INIT_ATTR_PD |
							IBV_QP_INIT_ATTR_CREATE_FLAGS,
					   .pd = &pd, .sq_sig_all = 1,
					   .create_flags = IBV_QP_CREATE_SCATTER_FCS |
							   IBV_QP_CREATE_SOURCE_QPN,
					   .source_qpn = 0x4321 };
	memset(&vqp, 0x5a, sizeof(vqp));
	begin("create_qp_ex2 ioctl scatter fcs + source qpn");
	note("cmd", &xcmd, sizeof(xcmd));
	note("resp", &xresp, sizeof(xresp));
	note("qp", &vqp, sizeof(vqp));
	RET(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp)));
	show_qp(&vqp.qp, ctx);
	show_cap(&ie.cap);
	begin("create_qp_ex2 EPROTONOSUPPORT, write_ex");
	note("cmd", &xcmd, sizeof(xcmd));
	note("resp", &xresp, sizeof(xresp));
	note("qp", &vqp, sizeof(vqp));
	ioctl_ret = EPROTONOSUPPORT;
	ie.cap = (struct ibv_qp_cap){ 8, 8, 1, 1, 0 };
	RET(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp)));
	show_qp(&vqp.qp, ctx);
	show_cap(&ie.cap);
	words("cmd after", &xcmd, sizeof(xcmd));
	words("resp after", &xresp, sizeof(xresp));
	ioctl_ret = 0;
	begin("create_qp_ex2 rss indirection table, write_ex");
	note("qp", &vqp, sizeof(vqp));
	ie = (struct ibv_qp_init_attr_ex){ .qp_type = IBV_QPT_RAW_PACKET,
					   .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
							IBV_QP_INIT_ATTR_RX_HASH,
					   .pd = &pd, .rwq_ind_tbl = &tbl };
	RET(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp)));
	show_qp(&vqp.qp, ctx);
	words("cmd after", &xcmd, sizeof(xcmd));
	begin("create_qp_ex2 rss with recv cq");
	ie.recv_cq = &rcq;
	RET(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp)));
	begin("create_qp_ex2 unsupported create flag");
	ie = (struct ibv_qp_init_attr_ex){ .qp_type = IBV_QPT_RC, .send_cq = &scq, .recv_cq = &rcq,
					   .comp_mask = IBV_QP_INIT_ATTR_PD |
							IBV_QP_INIT_ATTR_CREATE_FLAGS,
					   .pd = &pd, .create_flags = IBV_QP_CREATE_SCATTER_FCS << 20 };
	RET(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp)));
	begin("create_qp_ex2 unknown comp_mask");
	ie.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER << 8;
	RET(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp)));
	begin("create_qp_ex2 tso header, write remembered, ENOMEM");
	ie.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	ie.max_tso_header = 64;
	write_ret = ENOMEM;
	RET(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp)));
	write_ret = 0;
	begin("create_qp_ex2 ioctl ENOMEM");
	ctx = new_ctx();
	pd.context = ctx;
	ioctl_ret = ENOMEM;
	RET(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core, sizeof(xresp)));
	ioctl_ret = 0;

	create_qp_write("library not initialised");

	/* modify / query */
	ctx = new_ctx();
	qp.context = ctx;
	qp.handle = 0x45;
	qp.state = IBV_QPS_RESET;
	struct drv_modify_qp mcmd;
	struct ibv_qp_attr qa = {
		.qp_state = IBV_QPS_RTR, .cur_qp_state = IBV_QPS_INIT, .path_mtu = IBV_MTU_4096,
		.path_mig_state = IBV_MIG_ARMED, .qkey = 0x11111111, .rq_psn = 0x222222,
		.sq_psn = 0x333333, .dest_qp_num = 0x444444, .qp_access_flags = 7,
		.cap = { 1, 2, 3, 4, 5 },
		.ah_attr = { .grh = { .dgid = { .raw = { 0xfe, 0x80, [15] = 9 } }, .flow_label = 0x12345,
				      .sgid_index = 1, .hop_limit = 2, .traffic_class = 3 },
			     .dlid = 0x55, .sl = 6, .src_path_bits = 7, .static_rate = 8,
			     .is_global = 1, .port_num = 1 },
		.alt_ah_attr = { .grh = { .dgid = { .raw = { 0xfe, 0x80, [15] = 10 } },
					  .flow_label = 0x54321, .sgid_index = 4, .hop_limit = 5,
					  .traffic_class = 6 },
				 .dlid = 0x66, .sl = 2, .src_path_bits = 1, .static_rate = 3,
				 .is_global = 1, .port_num = 2 },
		.pkey_index = 9, .alt_pkey_index = 10, .en_sqd_async_notify = 1, .sq_draining = 1,
		.max_rd_atomic = 4, .max_dest_rd_atomic = 5, .min_rnr_timer = 12, .port_num = 1,
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 6, .alt_port_num = 2, .alt_timeout = 15,
		.rate_limit = 1000 };
	static const int masks[] = {
		IBV_QP_STATE,
		IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			IBV_QP_MAX_QP_RD_ATOMIC,
		IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_QKEY | IBV_QP_ALT_PATH |
			IBV_QP_PATH_MIG_STATE | IBV_QP_CAP,
		(IBV_QP_RATE_LIMIT << 1) - 1,
	};

	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "modify_qp mask %#x", masks[i]);
		begin(name);
		memset(&mcmd, 0xee, sizeof(mcmd));
		mcmd.drv = 0x1234;
		RET(ibv_cmd_modify_qp(&qp, &qa, masks[i], &mcmd, sizeof(mcmd)));
		printf("  state=%u\n", qp.state);
		words("cmd after", &mcmd, sizeof(mcmd));
	}
	begin("modify_qp all but rate limit, no driver data");
	memset(&mcmd, 0xee, sizeof(mcmd));
	RET(ibv_cmd_modify_qp(&qp, &qa, IBV_QP_RATE_LIMIT - 1, &mcmd,
			      sizeof(mcmd.hdr) + sizeof(mcmd.core)));
	begin("modify_qp write EINVAL");
	write_ret = EINVAL;
	RET(ibv_cmd_modify_qp(&qp, &qa, IBV_QP_STATE, &mcmd, sizeof(mcmd)));
	write_ret = 0;

	struct drv_modify_qp_ex xm;
	struct drv_modify_qp_ex_resp xmr;

	begin("modify_qp_ex rate limit");
	memset(&xm, 0xee, sizeof(xm));
	xm.drv = 0x4321;
	memset(&xmr, 0xdd, sizeof(xmr));
	note("resp", &xmr, sizeof(xmr));
	RET(ibv_cmd_modify_qp_ex(&qp, &qa, IBV_QP_STATE | IBV_QP_RATE_LIMIT | IBV_QP_AV, &xm,
				 sizeof(xm), &xmr.core, sizeof(xmr)));
	words("cmd after", &xm, sizeof(xm));
	words("resp after", &xmr, sizeof(xmr));
	begin("modify_qp_ex no rate limit, core only");
	memset(&xm, 0xee, sizeof(xm));
	note("resp", &xmr, sizeof(xmr));
	RET(ibv_cmd_modify_qp_ex(&qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN, &xm,
				 sizeof(xm.hdr) + sizeof(xm.core), &xmr.core, sizeof(xmr.core)));
	words("cmd after", &xm, sizeof(xm));
	begin("modify_qp_ex rate limit, command too short");
	RET(ibv_cmd_modify_qp_ex(&qp, &qa, IBV_QP_RATE_LIMIT, &xm,
				 sizeof(xm.hdr) + offsetof(struct ib_uverbs_ex_modify_qp, rate_limit),
				 &xmr.core, sizeof(xmr.core)));
	begin("modify_qp_ex write EINVAL");
	write_ret = EINVAL;
	RET(ibv_cmd_modify_qp_ex(&qp, &qa, IBV_QP_STATE, &xm, sizeof(xm), &xmr.core, sizeof(xmr)));
	write_ret = 0;

	struct drv_query_qp qcmd;
	struct ibv_qp_attr qattr;
	struct ibv_qp_init_attr qinit;

	qp.qp_context = &qa;
	qp.send_cq = &scq;
	qp.recv_cq = &rcq;
	qp.srq = &srq;
	qp.qp_type = IBV_QPT_UC;
	memset(&qcmd, 0xee, sizeof(qcmd));
	qcmd.drv = 0x5678;
	memset(&qattr, 0x5a, sizeof(qattr));
	memset(&qinit, 0x5a, sizeof(qinit));
	begin("query_qp");
	RET(ibv_cmd_query_qp(&qp, &qattr, IBV_QP_STATE | IBV_QP_AV, &qinit, &qcmd, sizeof(qcmd)));
	words("attr", &qattr, sizeof(qattr));
	printf("  init qpctx=%d scq=%d rcq=%d srq=%d type=%u sig=%d\n", qinit.qp_context == &qa,
	       qinit.send_cq == &scq, qinit.recv_cq == &rcq, qinit.srq == &srq, qinit.qp_type,
	       qinit.sq_sig_all);
	show_cap(&qinit.cap);
	words("cmd after", &qcmd, sizeof(qcmd));
	begin("query_qp rate limit");
	RET(ibv_cmd_query_qp(&qp, &qattr, IBV_QP_RATE_LIMIT, &qinit, &qcmd, sizeof(qcmd)));
	begin("query_qp write EINVAL");
	memset(&qattr, 0x5a, sizeof(qattr));
	write_ret = EINVAL;
	RET(ibv_cmd_query_qp(&qp, &qattr, IBV_QP_STATE, &qinit, &qcmd, sizeof(qcmd)));
	printf("  state=%u\n", qattr.qp_state);
	write_ret = 0;

	/* destroy */
	ctx = new_ctx();
	qp.context = ctx;
	pthread_mutex_init(&qp.mutex, NULL);
	pthread_cond_init(&qp.cond, NULL);
	begin("destroy_qp ioctl");
	qp.events_completed = 0x2010;
	RET(ibv_cmd_destroy_qp(&qp));
	begin("destroy_qp ioctl EBUSY");
	ioctl_ret = EBUSY;
	RET(ibv_cmd_destroy_qp(&qp));
	begin("destroy_qp ioctl EIO, disassociate allowed");
	ioctl_ret = EIO;
	verbs_allow_disassociate_destroy = true;
	RET(ibv_cmd_destroy_qp(&qp));
	verbs_allow_disassociate_destroy = false;
	begin("destroy_qp ENOTTY, write");
	ioctl_ret = ENOTTY;
	qp.events_completed = 0x2000;
	RET(ibv_cmd_destroy_qp(&qp));
	begin("destroy_qp write EIO");
	write_ret = EIO;
	RET(ibv_cmd_destroy_qp(&qp));
	write_ret = 0;
}

/* ---- SRQs ---- */

struct drv_create_srq { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_create_srq core; uint64_t buf, db; };
struct drv_create_xsrq { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_create_xsrq core; uint64_t buf, db; };
struct drv_create_srq_resp { struct ib_uverbs_create_srq_resp core; uint32_t drv[2]; };
struct drv_modify_srq { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_modify_srq core; uint64_t drv; };
struct drv_query_srq { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_query_srq core; uint64_t drv; };

static void show_srq(const struct ibv_srq *srq, struct ibv_context *ctx)
{
	printf("  srq handle=%#x ctx=%d srqctx=%s pd=%s ev=%u\n", srq->handle, srq->context == ctx,
	       pv(srq->srq_context), pv(srq->pd), srq->events_completed);
}

static void show_vsrq(const struct verbs_srq *v)
{
	printf("  vsrq type=%#x num=%#x xrcd=%s cq=%s\n", v->srq_type, v->srq_num, pv(v->xrcd),
	       pv(v->cq));
}

/* The create_srq cases whose write path depends on the kernel's ABI version. */
static void create_srq_write(const char *tag)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_pd pd = { .context = ctx, .handle = 0x11 };
	struct ibv_srq srq;
	struct drv_create_srq cmd;
	struct drv_create_srq_resp resp;
	struct ibv_srq_init_attr ia = { .srq_context = &pd, .attr = { 128, 4, 16 } };
	char name[96];

	memset(&srq, 0x5a, sizeof(srq));
	memset(&cmd, 0xee, sizeof(cmd));
	cmd.buf = 0x3b;
	cmd.db = 0x3d;
	memset(&resp, 0xdd, sizeof(resp));
	snprintf(name, sizeof(name), "create_srq EPROTONOSUPPORT, write (%s)", tag);
	begin(name);
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	note("srq", &srq, sizeof(srq));
	ioctl_ret = EPROTONOSUPPORT;
	RET(ibv_cmd_create_srq(&pd, &srq, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_srq(&srq, ctx);
	printf("  attr %#x %#x %#x\n", ia.attr.max_wr, ia.attr.max_sge, ia.attr.srq_limit);
	words("cmd after", &cmd, sizeof(cmd));
	words("resp after", &resp, sizeof(resp));
	ioctl_ret = 0;

	struct verbs_xrcd xrcd = { .handle = 0x71 };
	struct ibv_cq cq = { .handle = 0x72 };
	struct verbs_srq vs;
	struct drv_create_xsrq xcmd;
	struct ibv_srq_init_attr_ex ie = { .srq_context = &pd, .attr = { 64, 2, 8 },
					   .comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
							IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
					   .srq_type = IBV_SRQT_XRC, .pd = &pd, .xrcd = &xrcd.xrcd,
					   .cq = &cq };

	memset(&vs, 0x5a, sizeof(vs));
	memset(&xcmd, 0xee, sizeof(xcmd));
	xcmd.buf = 0x4b;
	xcmd.db = 0x4d;
	memset(&resp, 0xdd, sizeof(resp));
	snprintf(name, sizeof(name), "create_srq_ex xrc, write (%s)", tag);
	begin(name);
	note("cmd", &xcmd, sizeof(xcmd));
	note("resp", &resp, sizeof(resp));
	note("srq", &vs, sizeof(vs));
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	show_srq(&vs.srq, ctx);
	show_vsrq(&vs);
	printf("  attr %#x %#x %#x\n", ie.attr.max_wr, ie.attr.max_sge, ie.attr.srq_limit);
	words("cmd after", &xcmd, sizeof(xcmd));

	snprintf(name, sizeof(name), "create_srq_ex tm, write (%s)", tag);
	begin(name);
	note("srq", &vs, sizeof(vs));
	memset(&vs, 0x5a, sizeof(vs));
	ie.srq_type = IBV_SRQT_TM;
	ie.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ |
		       IBV_SRQ_INIT_ATTR_TM;
	ie.tm_cap.max_num_tags = 31;
	ie.tm_cap.max_ops = 7;
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	show_srq(&vs.srq, ctx);
	show_vsrq(&vs);
	words("cmd after", &xcmd, sizeof(xcmd));

	snprintf(name, sizeof(name), "create_srq_ex basic, write (%s)", tag);
	begin(name);
	note("srq", &vs, sizeof(vs));
	memset(&vs, 0x5a, sizeof(vs));
	ie.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	show_srq(&vs.srq, ctx);
	show_vsrq(&vs);

	snprintf(name, sizeof(name), "create_srq write ENOMEM (%s)", tag);
	begin(name);
	write_ret = ENOMEM;
	RET(ibv_cmd_create_srq(&pd, &srq, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	write_ret = 0;

	struct drv_modify_srq mcmd;
	struct ibv_srq_attr sa = { .max_wr = 0x100, .max_sge = 9, .srq_limit = 0x20 };

	srq.context = ctx;
	srq.handle = 0x61;
	memset(&mcmd, 0xee, sizeof(mcmd));
	mcmd.drv = 0x5151;
	snprintf(name, sizeof(name), "modify_srq (%s)", tag);
	begin(name);
	RET(ibv_cmd_modify_srq(&srq, &sa, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT, &mcmd, sizeof(mcmd)));
	words("cmd after", &mcmd, sizeof(mcmd));
}

static void srqs(void)
{
	struct ibv_context *ctx = new_ctx();
	struct ibv_pd pd = { .context = ctx, .handle = 0x11 };
	struct ibv_srq srq;
	struct drv_create_srq cmd;
	struct drv_create_srq_resp resp;
	struct ibv_srq_init_attr ia = { .srq_context = &pd, .attr = { 128, 4, 16 } };

	memset(&srq, 0x5a, sizeof(srq));
	memset(&cmd, 0xee, sizeof(cmd));
	cmd.buf = 0x3b;
	cmd.db = 0x3d;
	memset(&resp, 0xdd, sizeof(resp));
	begin("create_srq ioctl");
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	note("srq", &srq, sizeof(srq));
	RET(ibv_cmd_create_srq(&pd, &srq, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_srq(&srq, ctx);
	printf("  attr %#x %#x %#x\n", ia.attr.max_wr, ia.attr.max_sge, ia.attr.srq_limit);
	words("resp after", &resp, sizeof(resp));
	begin("create_srq ioctl EINVAL");
	memset(&srq, 0x5a, sizeof(srq));
	ioctl_ret = EINVAL;
	ia.attr = (struct ibv_srq_attr){ 128, 4, 16 };
	RET(ibv_cmd_create_srq(&pd, &srq, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	show_srq(&srq, ctx);
	printf("  attr %#x %#x %#x\n", ia.attr.max_wr, ia.attr.max_sge, ia.attr.srq_limit);
	ioctl_ret = 0;

	struct verbs_xrcd xrcd = { .handle = 0x71 };
	struct ibv_cq cq = { .handle = 0x72 };
	struct verbs_srq vs;
	struct drv_create_xsrq xcmd;
	struct ibv_srq_init_attr_ex ie = { .srq_context = &pd, .attr = { 64, 2, 8 },
					   .comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
							IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
					   .srq_type = IBV_SRQT_XRC, .pd = &pd, .xrcd = &xrcd.xrcd,
					   .cq = &cq };

	memset(&vs, 0x5a, sizeof(vs));
	memset(&xcmd, 0xee, sizeof(xcmd));
	xcmd.buf = 0x4b;
	xcmd.db = 0x4d;
	begin("create_srq_ex ioctl xrc");
	note("cmd", &xcmd, sizeof(xcmd));
	note("resp", &resp, sizeof(resp));
	note("srq", &vs, sizeof(vs));
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	show_srq(&vs.srq, ctx);
	show_vsrq(&vs);
	printf("  attr %#x %#x %#x\n", ie.attr.max_wr, ie.attr.max_sge, ie.attr.srq_limit);
	begin("create_srq_ex ioctl tm");
	note("srq", &vs, sizeof(vs));
	memset(&vs, 0x5a, sizeof(vs));
	ie.srq_type = IBV_SRQT_TM;
	ie.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ |
		       IBV_SRQ_INIT_ATTR_TM;
	ie.tm_cap.max_num_tags = 31;
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	show_srq(&vs.srq, ctx);
	show_vsrq(&vs);
	begin("create_srq_ex tm without tags");
	ie.tm_cap.max_num_tags = 0;
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	begin("create_srq_ex xrc without cq");
	ie.srq_type = IBV_SRQT_XRC;
	ie.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD;
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	begin("create_srq_ex without pd");
	ie.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	begin("create_srq_ex reserved mask");
	ie.comp_mask = IBV_SRQ_INIT_ATTR_RESERVED | IBV_SRQ_INIT_ATTR_PD;
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	begin("create_srq_ex basic without type mask");
	note("srq", &vs, sizeof(vs));
	memset(&vs, 0x5a, sizeof(vs));
	ie.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ;
	RET(ibv_cmd_create_srq_ex(ctx, &vs, &ie, &xcmd, sizeof(xcmd), &resp.core, sizeof(resp)));
	show_vsrq(&vs);

	create_srq_write("library not initialised");

	/* modify / query */
	ctx = new_ctx();
	srq.context = ctx;
	srq.handle = 0x61;
	struct drv_modify_srq mcmd;
	struct ibv_srq_attr sa = { .max_wr = 0x100, .max_sge = 9, .srq_limit = 0x20 };

	memset(&mcmd, 0xee, sizeof(mcmd));
	begin("modify_srq write EINVAL");
	write_ret = EINVAL;
	RET(ibv_cmd_modify_srq(&srq, &sa, IBV_SRQ_LIMIT, &mcmd, sizeof(mcmd)));
	write_ret = 0;

	struct drv_query_srq qcmd;

	memset(&qcmd, 0xee, sizeof(qcmd));
	qcmd.drv = 0x6161;
	memset(&sa, 0x5a, sizeof(sa));
	begin("query_srq");
	RET(ibv_cmd_query_srq(&srq, &sa, &qcmd, sizeof(qcmd)));
	printf("  attr %#x %#x %#x\n", sa.max_wr, sa.max_sge, sa.srq_limit);
	words("cmd after", &qcmd, sizeof(qcmd));
	begin("query_srq write EINVAL");
	memset(&sa, 0x5a, sizeof(sa));
	write_ret = EINVAL;
	RET(ibv_cmd_query_srq(&srq, &sa, &qcmd, sizeof(qcmd)));
	printf("  attr %#x %#x %#x\n", sa.max_wr, sa.max_sge, sa.srq_limit);
	write_ret = 0;

	/* destroy */
	pthread_mutex_init(&srq.mutex, NULL);
	pthread_cond_init(&srq.cond, NULL);
	begin("destroy_srq ioctl");
	srq.events_completed = 0x2010;
	RET(ibv_cmd_destroy_srq(&srq));
	begin("destroy_srq ioctl EINVAL");
	ioctl_ret = EINVAL;
	RET(ibv_cmd_destroy_srq(&srq));
	begin("destroy_srq EPROTONOSUPPORT, write");
	ioctl_ret = EPROTONOSUPPORT;
	srq.events_completed = 0x2000;
	RET(ibv_cmd_destroy_srq(&srq));
	begin("destroy_srq write EIO, disassociate allowed");
	write_ret = EIO;
	verbs_allow_disassociate_destroy = true;
	RET(ibv_cmd_destroy_srq(&srq));
	verbs_allow_disassociate_destroy = false;
	begin("destroy_srq write EIO");
	RET(ibv_cmd_destroy_srq(&srq));
	write_ret = 0;
}

/* ---- context and device queries ---- */

struct drv_get_context { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_get_context core; uint64_t drv[2]; };
struct drv_get_context_resp { struct ib_uverbs_get_context_resp core; uint64_t drv[3]; };
struct drv_query_port { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_query_port core; };

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static struct verbs_sysfs_dev fake_sysfs;
static struct verbs_device fake_vdev;

/* A context whose device is a verbs_device with a sysfs entry. */
static struct ibv_context *new_dev_ctx(void)
{
	struct ibv_context *ctx = new_ctx();

	memset(&fake_vdev, 0, sizeof(fake_vdev));
	memset(&fake_sysfs, 0, sizeof(fake_sysfs));
	fake_vdev.sysfs = &fake_sysfs;
	fake_vdev.core_support = 0x5a5a;
	ctx->device = &fake_vdev.device;
	return ctx;
}

static void show_port(const struct ibv_port_attr *p)
{
	words("port", p, sizeof(*p));
}

static void devices(void)
{
	struct ibv_context *ctx = new_dev_ctx();
	struct verbs_context *vc = vctx;
	struct drv_get_context cmd;
	struct drv_get_context_resp resp;

	memset(&cmd, 0xee, sizeof(cmd));
	cmd.drv[0] = 0x71;
	cmd.drv[1] = 0x72;
	memset(&resp, 0xdd, sizeof(resp));
	ctx->num_comp_vectors = -1;
	ctx->async_fd = -1;
	begin("get_context ioctl");
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	RET(ibv_cmd_get_context(vc, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	printf("  num_comp_vectors=%#x async_fd=%d core_support=%#llx\n", ctx->num_comp_vectors,
	       ctx->async_fd, (unsigned long long)fake_vdev.core_support);
	words("resp after", &resp, sizeof(resp));
	begin("get_context ioctl EINVAL");
	ioctl_ret = EINVAL;
	RET(ibv_cmd_get_context(vc, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	begin("get_context EPROTONOSUPPORT, write");
	note("cmd", &cmd, sizeof(cmd));
	note("resp", &resp, sizeof(resp));
	ioctl_ret = EPROTONOSUPPORT;
	fake_vdev.core_support = 0x5a5a;
	memset(&resp, 0xdd, sizeof(resp));
	RET(ibv_cmd_get_context(vc, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	printf("  num_comp_vectors=%#x async_fd=%#x core_support=%#llx\n", ctx->num_comp_vectors,
	       ctx->async_fd, (unsigned long long)fake_vdev.core_support);
	words("cmd after", &cmd, sizeof(cmd));
	words("resp after", &resp, sizeof(resp));
	begin("get_context write without driver data");
	ctx->async_fd = ASYNC_FD;
	RET(ibv_cmd_get_context(vc, &cmd, sizeof(cmd.hdr) + sizeof(cmd.core), &resp.core,
				sizeof(resp.core)));
	printf("  num_comp_vectors=%#x async_fd=%#x\n", ctx->num_comp_vectors, ctx->async_fd);
	begin("get_context write EINVAL");
	ctx->async_fd = ASYNC_FD;
	ctx->num_comp_vectors = 1;
	write_ret = EINVAL;
	RET(ibv_cmd_get_context(vc, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
	printf("  num_comp_vectors=%#x async_fd=%d\n", ctx->num_comp_vectors, ctx->async_fd);
	write_ret = 0;

	/* query_context, with and without a provider's driver attributes */
	ctx = new_dev_ctx();
	begin("query_context");
	RET(ibv_cmd_query_context(ctx, NULL));
	printf("  num_comp_vectors=%#x core_support=%#llx\n", ctx->num_comp_vectors,
	       (unsigned long long)fake_vdev.core_support);

	uint64_t link_storage[16] = { 0 };
	struct ibv_command_buffer *link = (void *)link_storage;
	uint64_t dv_out = 0;

	link->hdr.object_id = UVERBS_OBJECT_DEVICE;
	link->hdr.method_id = UVERBS_METHOD_QUERY_CONTEXT;
	link->uhw_in_idx = link->uhw_out_idx = 0xff;
	link->hdr.attrs[0] = (struct ib_uverbs_attr){ .attr_id = 0x1000 | 5, .len = 8,
						      .flags = UVERBS_ATTR_F_MANDATORY,
						      .data = (uintptr_t)&dv_out };
	link->next_attr = &link->hdr.attrs[1];
	link->last_attr = &link->hdr.attrs[2];
	begin("query_context with a driver attribute");
	RET(ibv_cmd_query_context(ctx, link));
	printf("  link next_attr=%ld\n", (long)(link->next_attr - link->hdr.attrs));
	begin("query_context ioctl EOPNOTSUPP");
	ctx->num_comp_vectors = 3;
	fake_vdev.core_support = 0x77;
	ioctl_ret = EOPNOTSUPP;
	RET(ibv_cmd_query_context(ctx, NULL));
	printf("  num_comp_vectors=%#x core_support=%#llx\n", ctx->num_comp_vectors,
	       (unsigned long long)fake_vdev.core_support);
	ioctl_ret = 0;

	/* query_port */
	struct drv_query_port pcmd;
	struct ibv_port_attr pa;

	memset(&pcmd, 0xee, sizeof(pcmd));
	memset(&pa, 0x5a, sizeof(pa));
	begin("query_port ioctl");
	RET(ibv_cmd_query_port(ctx, 1, &pa, &pcmd, sizeof(pcmd)));
	show_port(&pa);
	words("cmd after", &pcmd, sizeof(pcmd));
	begin("query_port ioctl EINVAL");
	memset(&pa, 0x5a, sizeof(pa));
	ioctl_ret = EINVAL;
	RET(ibv_cmd_query_port(ctx, 2, &pa, &pcmd, sizeof(pcmd)));
	show_port(&pa);
	begin("query_port ENOTTY, write");
	memset(&pa, 0x5a, sizeof(pa));
	ioctl_ret = ENOTTY;
	RET(ibv_cmd_query_port(ctx, 2, &pa, &pcmd, sizeof(pcmd)));
	show_port(&pa);
	words("cmd after", &pcmd, sizeof(pcmd));
	begin("query_port write, short response");
	memset(&pa, 0x5a, sizeof(pa));
	resp_fill = 12;
	RET(ibv_cmd_query_port(ctx, 1, &pa, &pcmd, sizeof(pcmd)));
	show_port(&pa);
	resp_fill = 0;
	begin("query_port write EINVAL");
	memset(&pa, 0x5a, sizeof(pa));
	write_ret = EINVAL;
	RET(ibv_cmd_query_port(ctx, 3, &pa, &pcmd, sizeof(pcmd)));
	show_port(&pa);
	write_ret = 0;

	/* query_device_any */
	ctx = new_dev_ctx();
	struct ibv_device_attr_ex da;
	struct { struct ib_uverbs_ex_query_device_resp core; uint64_t drv[2]; } dr;
	size_t drs;
	struct ibv_query_device_ex_input in = { 0 };
	static const uint32_t lens[] = { 0, 176 + 8, 200, 232, 248, 256, 272, 304 };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char name[80];

		snprintf(name, sizeof(name), "query_device_any ex, response_length %u", lens[i]);
		begin(name);
		note("resp", &dr, sizeof(dr));
		memset(&da, 0x5a, sizeof(da));
		memset(&dr, 0xdd, sizeof(dr));
		drs = sizeof(dr);
		ex_resp_len = lens[i];
		fake_sysfs.num_ports = i & 1 ? 0 : 3;
		RET(ibv_cmd_query_device_any(ctx, &in, &da, sizeof(da), &dr.core, &drs));
		printf("  resp_size=%zu\n", drs);
		words("attr", &da, sizeof(da));
		words("resp after", &dr, sizeof(dr));
	}
	ex_resp_len = 0;
	begin("query_device_any ex, no resp buffer, attr up to xrc_odp_caps");
	memset(&da, 0x5a, sizeof(da));
	ex_resp_len = 240;
	RET(ibv_cmd_query_device_any(ctx, NULL, &da,
				     offsetof(struct ibv_device_attr_ex, phys_port_cnt_ex), NULL,
				     NULL));
	words("attr", &da, sizeof(da));
	ex_resp_len = 0;
	begin("query_device_any orig only");
	note("resp", &dr, sizeof(dr));
	memset(&da, 0x5a, sizeof(da));
	memset(&dr, 0xdd, sizeof(dr));
	drs = sizeof(dr);
	RET(ibv_cmd_query_device_any(ctx, NULL, &da, sizeof(da.orig_attr), &dr.core, &drs));
	printf("  resp_size=%zu\n", drs);
	words("attr", &da, sizeof(da));
	begin("query_device_any ex EOPNOTSUPP, falls back");
	note("resp", &dr, sizeof(dr));
	memset(&da, 0x5a, sizeof(da));
	drs = sizeof(dr);
	write_ret = EOPNOTSUPP;
	RET(ibv_cmd_query_device_any(ctx, NULL, &da, sizeof(da), &dr.core, &drs));
	write_ret = 0;
	begin("query_device_any ex EINVAL");
	memset(&da, 0x5a, sizeof(da));
	write_ret = EINVAL;
	RET(ibv_cmd_query_device_any(ctx, NULL, &da, sizeof(da), &dr.core, &drs));
	printf("  attr first word %#llx\n", (unsigned long long)da.orig_attr.node_guid);
	write_ret = 0;
	begin("query_device_any input comp_mask");
	in.comp_mask = 1;
	RET(ibv_cmd_query_device_any(ctx, &in, &da, sizeof(da), &dr.core, &drs));
	begin("query_device_any attr too small");
	RET(ibv_cmd_query_device_any(ctx, NULL, &da, sizeof(da.orig_attr) - 8, &dr.core, &drs));

	/* ibv_query_gid_type on the ioctl path */
	enum ibv_gid_type_sysfs gt = 77;

	begin("query_gid_type ioctl");
	RET(ibv_query_gid_type(ctx, 1, 3, &gt));
	printf("  type=%d\n", gt);
	begin("query_gid_type ioctl, IB entry");
	ioctl_no_out = true;
	gt = 77;
	RET(ibv_query_gid_type(ctx, 1, 0, &gt));
	printf("  type=%d\n", gt);
	ioctl_no_out = false;
	begin("query_gid_type ioctl ENODATA");
	gt = 77;
	ioctl_ret = ENODATA;
	RET(ibv_query_gid_type(ctx, 1, 9, &gt));
	printf("  type=%d\n", gt);
	begin("query_gid_type ioctl EINVAL");
	gt = 77;
	ioctl_ret = EINVAL;
	RET(ibv_query_gid_type(ctx, 1, 9, &gt));
	printf("  type=%d\n", gt);
	ioctl_ret = 0;

	/* ... and its sysfs fallback (types the kernel names; entries that are
	 * RoCE v1 would need ibv_query_port, which the fake context lacks). */
	char dir[] = "/tmp/cmddiff-gid-XXXXXX";
	char path[300];
	static const char *const types[] = { "RoCE v2\n", "bogus\n" };

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/ports", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/ports/1", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/ports/1/gid_attrs", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/ports/1/gid_attrs/types", dir);
	mkdir(path, 0755);
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/ports/1/gid_attrs/types/%d", dir, i);
		f = fopen(path, "w");
		if (f) {
			fputs(types[i], f);
			fclose(f);
		}
	}
	snprintf(fake_sysfs.ibdev_path, sizeof(fake_sysfs.ibdev_path), "%s", dir);
	for (int i = 0; i < 3; i++) {
		char name[64];

		snprintf(name, sizeof(name), "query_gid_type EPROTONOSUPPORT, sysfs index %d", i);
		begin(name);
		ioctl_ret = EPROTONOSUPPORT;
		gt = 77;
		RET(ibv_query_gid_type(ctx, 1, i, &gt));
		printf("  type=%d\n", gt);
	}
	ioctl_ret = 0;
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/*
 * Makes the library read the kernel's uverbs ABI version (6) from a fake
 * sysfs tree, as it does when it first lists devices. Prints the version's
 * source so a machine whose netlink answers (and leaves it unset) is seen.
 */
static bool init_abi6(void)
{
	char dir[] = "/tmp/cmddiff-sysfs-XXXXXX";
	char path[256];
	int num = 0;
	FILE *f;

	if (!mkdtemp(dir))
		return false;
	static const char *const dirs[] = { "/class", "/class/infiniband_verbs",
					    "/class/infiniband_verbs/uverbs0", "/class/infiniband",
					    "/class/infiniband/fake0" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, dirs[i]);
		mkdir(path, 0755);
	}
	static const char *const files[][2] = {
		{ "/class/infiniband_verbs/abi_version", "6\n" },
		{ "/class/infiniband_verbs/uverbs0/abi_version", "6\n" },
		{ "/class/infiniband_verbs/uverbs0/ibdev", "fake0\n" },
		{ "/class/infiniband_verbs/uverbs0/dev", "231:192\n" },
		{ "/class/infiniband/fake0/node_type", "1: CA\n" },
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, files[i][0]);
		f = fopen(path, "w");
		if (!f)
			return false;
		fputs(files[i][1], f);
		fclose(f);
	}
	setenv("SYSFS_PATH", dir, 1);
	struct ibv_device **l = ibv_get_device_list(&num);

	if (l)
		ibv_free_device_list(l);
	printf("devices=%d\n", num);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return true;
}

int main(int argc, char **argv)
{
	int nul = open("/", O_RDONLY | O_DIRECTORY);

	/* A real descriptor at FAKE_FD, in case anything else touches it. */
	if (nul < 0 || dup2(nul, FAKE_FD) != FAKE_FD)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A helper that waits for events the fake kernel did not report
	 * would hang: fail instead. */
	alarm(60);
	if (argc > 1 && !strcmp(argv[1], "abi6")) {
		/* Run in a namespace with a fake /dev/infiniband/uverbs0 (see
		 * tests/cmd_diff.rs): the write paths that depend on the ABI. */
		if (!init_abi6())
			return 3;
		create_qp_write("abi 6");
		create_srq_write("abi 6");
		printf("done\n");
		return 0;
	}
	flows();
	flow_actions();
	wqs();
	rwq_ind();
	counters_dm();
	xrc();
	data_path();
	mrs_cq();
	pd_mw_ah_mr();
	cqs();
	qps();
	srqs();
	devices();
	printf("done\n");
	return 0;
}
