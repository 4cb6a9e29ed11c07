/*
 * bad_input: feeds the verbs invalid arguments and prints, for each case, one
 * line "case <name>: ret=<r> errno=<e>[ <details>]", so that a run with
 * Debian's libibverbs and one with ours can be compared line by line
 * (abi-tests/scenarios/vm.sh: compare bad_input ...).
 *
 *   ret    the return value: an integer, a string for the *_str() helpers,
 *          "obj" for a pointer to a new object (which is destroyed again) or
 *          NULL.
 *   errno  errno after the call when the call reported a failure (NULL, a
 *          non-zero or negative return, as the verb defines failure), "-"
 *          when it succeeded: after a success errno is unspecified.
 *
 * Every case here runs to completion with Debian's library on Soft-RoCE
 * (rxe0); inputs on which upstream crashes are NOT here (they are listed in
 * docs/bad-input.md). The program needs rxe0 with its RoCE v2 GID
 * ::ffff:10.0.2.15 at index 1, as in the test VM; it prints nothing that
 * changes from run to run (no handles, keys or QP numbers).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* Exported by libibverbs (IBVERBS_1.1) but declared only in rdma-core's
 * driver.h, which is not installed. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

static int ncases;

static struct ibv_context *ctx;
static struct ibv_device *dev;
static struct ibv_device_attr dattr;
static struct ibv_port_attr pattr;
static struct ibv_pd *pd, *pd2;
static struct ibv_mr *mr;
static struct ibv_cq *cq;
static union ibv_gid gid1;
static char *buf;
static const size_t buf_len = 1 << 20;

/* ---- reporting ------------------------------------------------------------- */

static void report(const char *name, const char *ret, int failed, int err,
		   const char *extra)
{
	printf("case %s: ret=%s errno=", name, ret);
	if (failed)
		printf("%d", err);
	else
		printf("-");
	if (extra && *extra)
		printf(" %s", extra);
	printf("\n");
	fflush(stdout);
	ncases++;
}

static void report_long(const char *name, long r, int failed, int err,
			const char *extra)
{
	char s[32];

	snprintf(s, sizeof(s), "%ld", r);
	report(name, s, failed, err, extra);
}

/* An int-returning verb that fails with a non-zero value. */
#define CASE_INT(name, call)                                                  \
	do {                                                                  \
		errno = 0;                                                    \
		long r_ = (long)(call);                                       \
		int e_ = errno;                                               \
		report_long(name, r_, r_ != 0, e_, NULL);                     \
	} while (0)

/* Same, with details (a string computed after the call). */
#define CASE_INT_X(name, call, ...)                                           \
	do {                                                                  \
		char x_[256];                                                 \
		errno = 0;                                                    \
		long r_ = (long)(call);                                       \
		int e_ = errno;                                               \
		snprintf(x_, sizeof(x_), __VA_ARGS__);                        \
		report_long(name, r_, r_ != 0, e_, x_);                       \
	} while (0)

/* A verb that fails with a negative value (counts, indices). */
#define CASE_NEG(name, call)                                                  \
	do {                                                                  \
		errno = 0;                                                    \
		long r_ = (long)(call);                                       \
		int e_ = errno;                                               \
		report_long(name, r_, r_ < 0, e_, NULL);                      \
	} while (0)

/* A verb returning a new object or NULL; KILL(p) destroys what it made. */
#define CASE_PTR(name, T, call, KILL)                                         \
	do {                                                                  \
		errno = 0;                                                    \
		T *p_ = (call);                                               \
		int e_ = errno;                                               \
		report(name, p_ ? "obj" : "NULL", !p_, e_, NULL);             \
		if (p_)                                                       \
			KILL(p_);                                             \
	} while (0)

static void cleanup_failed(const char *what, int ret)
{
	printf("cleanup %s failed: %d errno=%d\n", what, ret, errno);
	fflush(stdout);
}

static void kill_pd(struct ibv_pd *p) { int r = ibv_dealloc_pd(p); if (r) cleanup_failed("pd", r); }
static void kill_mr(struct ibv_mr *m) { int r = ibv_dereg_mr(m); if (r) cleanup_failed("mr", r); }
static void kill_cq(struct ibv_cq *c) { int r = ibv_destroy_cq(c); if (r) cleanup_failed("cq", r); }
static void kill_cq_ex(struct ibv_cq_ex *c) { kill_cq(ibv_cq_ex_to_cq(c)); }
static void kill_qp(struct ibv_qp *q) { int r = ibv_destroy_qp(q); if (r) cleanup_failed("qp", r); }
static void kill_srq(struct ibv_srq *s) { int r = ibv_destroy_srq(s); if (r) cleanup_failed("srq", r); }
static void kill_ah(struct ibv_ah *a) { int r = ibv_destroy_ah(a); if (r) cleanup_failed("ah", r); }
static void kill_mw(struct ibv_mw *m) { int r = ibv_dealloc_mw(m); if (r) cleanup_failed("mw", r); }
static void kill_ctx(struct ibv_context *c) { int r = ibv_close_device(c); if (r) cleanup_failed("context", r); }
static void kill_td(struct ibv_td *t) { int r = ibv_dealloc_td(t); if (r) cleanup_failed("td", r); }
static void kill_flow(struct ibv_flow *f) { int r = ibv_destroy_flow(f); if (r) cleanup_failed("flow", r); }
static void kill_fa(struct ibv_flow_action *f) { int r = ibv_destroy_flow_action(f); if (r) cleanup_failed("flow action", r); }
static void kill_wq(struct ibv_wq *w) { int r = ibv_destroy_wq(w); if (r) cleanup_failed("wq", r); }
static void kill_rwq(struct ibv_rwq_ind_table *t) { int r = ibv_destroy_rwq_ind_table(t); if (r) cleanup_failed("rwq ind table", r); }
static void kill_counters(struct ibv_counters *c) { int r = ibv_destroy_counters(c); if (r) cleanup_failed("counters", r); }
static void kill_dm(struct ibv_dm *d) { int r = ibv_free_dm(d); if (r) cleanup_failed("dm", r); }
static void kill_xrcd(struct ibv_xrcd *x) { int r = ibv_close_xrcd(x); if (r) cleanup_failed("xrcd", r); }
static void kill_unimport_pd(struct ibv_pd *p) { ibv_unimport_pd(p); }
static void kill_unimport_mr(struct ibv_mr *m) { ibv_unimport_mr(m); }
static void kill_unimport_dm(struct ibv_dm *d) { ibv_unimport_dm(d); }

static void die(const char *what)
{
	printf("setup failed: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- QP helpers ------------------------------------------------------------- */

static struct ibv_qp *make_qp(enum ibv_qp_type type, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 1, .max_recv_sge = srq ? 0 : 1 },
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	if (!qp)
		die("create_qp");
	return qp;
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static void rtr_attr(struct ibv_qp *qp, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = qp->qp_num;	/* connected to itself */
	a->rq_psn = 0;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 12;
	a->ah_attr.is_global = 1;
	a->ah_attr.grh.dgid = gid1;
	a->ah_attr.grh.sgid_index = 1;
	a->ah_attr.grh.hop_limit = 1;
	a->ah_attr.port_num = 1;
	*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

static void rts_attr(struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->sq_psn = 0;
	a->max_rd_atomic = 1;
	*mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
}

/* An RC QP connected to itself, in RTS. */
static struct ibv_qp *make_rts_qp(void)
{
	struct ibv_qp *qp = make_qp(IBV_QPT_RC, NULL);
	struct ibv_qp_attr a;
	int mask;

	if (to_init(qp))
		die("modify_qp INIT");
	rtr_attr(qp, &a, &mask);
	if (ibv_modify_qp(qp, &a, mask))
		die("modify_qp RTR");
	rts_attr(&a, &mask);
	if (ibv_modify_qp(qp, &a, mask))
		die("modify_qp RTS");
	return qp;
}

/* ---- the cases ---------------------------------------------------------------- */

static void strings_and_rates(void)
{
	report("node_type_str_99", ibv_node_type_str(99), 0, 0, NULL);
	report("port_state_str_99", ibv_port_state_str(99), 0, 0, NULL);
	report("event_type_str_99", ibv_event_type_str(99), 0, 0, NULL);
	report("wc_status_str_99", ibv_wc_status_str(99), 0, 0, NULL);
	report("wc_status_str_neg", ibv_wc_status_str(-1), 0, 0, NULL);
	report_long("rate_to_mult_99", ibv_rate_to_mult(99), 0, 0, NULL);
	report_long("rate_to_mbps_99", ibv_rate_to_mbps(99), 0, 0, NULL);
	report_long("mult_to_ibv_rate_3", mult_to_ibv_rate(3), 0, 0, NULL);
	report_long("mbps_to_ibv_rate_1", mbps_to_ibv_rate(1), 0, 0, NULL);
}

static void device_queries(void)
{
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	struct ibv_port_attr pa;
	struct ibv_device_attr_ex ax;
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct ibv_gid_entry ent, table[64];
	struct ibv_values_ex values = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	union ibv_gid g;
	__be16 pkey;

	CASE_INT("query_port_0", ibv_query_port(ctx, 0, &pa));
	CASE_INT("query_port_2", ibv_query_port(ctx, 2, &pa));
	CASE_INT("query_port_255", ibv_query_port(ctx, 255, &pa));
	/* The library's query_port with a caller buffer shorter than
	 * struct ibv_port_attr (old applications): only that much is written. */
	memset(&pa, 0xab, sizeof(pa));
	CASE_INT_X("query_port_short_buffer", vctx->query_port(ctx, 1, &pa, 4),
		   "state=%d next_bytes_untouched=%d", (int)pa.state,
		   ((unsigned char *)&pa)[4] == 0xab);
	/* query_device_ex through the provider: short output, bad input mask */
	CASE_INT("query_device_ex_short_attr", vctx->query_device_ex(ctx, NULL, &ax, 8));
	CASE_INT("query_device_ex_input_mask", vctx->query_device_ex(ctx, &in, &ax, sizeof(ax)));

	CASE_INT("query_gid_port_0", ibv_query_gid(ctx, 0, 0, &g));
	CASE_INT("query_gid_port_2", ibv_query_gid(ctx, 2, 0, &g));
	CASE_INT("query_gid_index_neg", ibv_query_gid(ctx, 1, -1, &g));
	CASE_INT("query_gid_index_tbl_len", ibv_query_gid(ctx, 1, pattr.gid_tbl_len, &g));
	memset(&g, 0xee, sizeof(g));
	CASE_INT_X("query_gid_index_empty", ibv_query_gid(ctx, 1, 100, &g),
		   "gid_zeroed=%d", g.global.subnet_prefix == 0 && g.global.interface_id == 0);
	CASE_INT("query_pkey_port_2", ibv_query_pkey(ctx, 2, 0, &pkey));
	CASE_INT("query_pkey_index_tbl_len", ibv_query_pkey(ctx, 1, pattr.pkey_tbl_len, &pkey));
	CASE_INT("query_pkey_index_neg", ibv_query_pkey(ctx, 1, -1, &pkey));
	CASE_NEG("get_pkey_index_port_2", ibv_get_pkey_index(ctx, 2, htons(0xffff)));
	CASE_NEG("get_pkey_index_absent", ibv_get_pkey_index(ctx, 1, htons(0x1234)));

	CASE_INT("query_gid_ex_port_0", ibv_query_gid_ex(ctx, 0, 0, &ent, 0));
	CASE_INT("query_gid_ex_port_2", ibv_query_gid_ex(ctx, 2, 0, &ent, 0));
	CASE_INT("query_gid_ex_index_tbl_len", ibv_query_gid_ex(ctx, 1, pattr.gid_tbl_len, &ent, 0));
	CASE_INT("query_gid_ex_index_empty", ibv_query_gid_ex(ctx, 1, 100, &ent, 0));
	CASE_INT("query_gid_ex_flags_1", ibv_query_gid_ex(ctx, 1, 0, &ent, 1));
	CASE_INT("query_gid_ex_entry_size_8", _ibv_query_gid_ex(ctx, 1, 0, &ent, 0, 8));
	/* the kernel writes the entry: a NULL one is its EFAULT, no crash */
	CASE_INT("query_gid_ex_entry_null", ibv_query_gid_ex(ctx, 1, 0, NULL, 0));
	CASE_NEG("query_gid_table_0_entries", ibv_query_gid_table(ctx, table, 0, 0));
	CASE_NEG("query_gid_table_1_entry", ibv_query_gid_table(ctx, table, 1, 0));
	CASE_NEG("query_gid_table_flags_1", ibv_query_gid_table(ctx, table, 64, 1));
	CASE_NEG("query_gid_table_entry_size_8", _ibv_query_gid_table(ctx, table, 64, 0, 8));
	CASE_NEG("query_gid_table_entries_null", ibv_query_gid_table(ctx, NULL, 64, 0));

	CASE_INT("query_rt_values_ex", ibv_query_rt_values_ex(ctx, &values));

	/* No async event is pending: a non-blocking read fails with EAGAIN. */
	{
		struct ibv_async_event ev;
		int fl = fcntl(ctx->async_fd, F_GETFL);

		fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
		CASE_INT("get_async_event_none_pending", ibv_get_async_event(ctx, &ev));
		/* upstream reads the fd before it touches the event */
		CASE_INT("get_async_event_null_event_none_pending", ibv_get_async_event(ctx, NULL));
		fcntl(ctx->async_fd, F_SETFL, fl);
	}

	/* ibv_import_device: not a descriptor, not a uverbs device, and a
	 * uverbs device whose provider cannot import. */
	CASE_PTR("import_device_fd_neg", struct ibv_context, ibv_import_device(-1), kill_ctx);
	{
		int fd = open("/dev/null", O_RDWR);

		CASE_PTR("import_device_dev_null", struct ibv_context, ibv_import_device(fd), kill_ctx);
		close(fd);
	}
	{
		char path[128];
		int fd;

		snprintf(path, sizeof(path), "/dev/infiniband/%s", dev->dev_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			die("open uverbs device");
		CASE_PTR("import_device_rxe", struct ibv_context, ibv_import_device(fd), kill_ctx);
		close(fd);
	}
}

static void pd_and_mr(void)
{
	void *ro, *gone;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey };

	CASE_INT("dealloc_pd_with_mr", ibv_dealloc_pd(pd));

	CASE_PTR("reg_mr_length_0", struct ibv_mr, ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE), kill_mr);
	CASE_PTR("reg_mr_addr_null", struct ibv_mr, ibv_reg_mr(pd, NULL, 4096, IBV_ACCESS_LOCAL_WRITE), kill_mr);
	gone = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 1 << 16);
	CASE_PTR("reg_mr_unmapped", struct ibv_mr, ibv_reg_mr(pd, gone, 1 << 16, IBV_ACCESS_LOCAL_WRITE), kill_mr);
	ro = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CASE_PTR("reg_mr_readonly_local_write", struct ibv_mr, ibv_reg_mr(pd, ro, 1 << 16, IBV_ACCESS_LOCAL_WRITE), kill_mr);
	munmap(ro, 1 << 16);
	CASE_PTR("reg_mr_huge_length", struct ibv_mr, ibv_reg_mr(pd, buf, 1ULL << 40, IBV_ACCESS_LOCAL_WRITE), kill_mr);
	CASE_PTR("reg_mr_remote_write_without_local", struct ibv_mr, ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE), kill_mr);
	CASE_PTR("reg_mr_remote_atomic_without_local", struct ibv_mr, ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_ATOMIC), kill_mr);
	CASE_PTR("reg_mr_unknown_access_bit", struct ibv_mr, ibv_reg_mr(pd, buf, 4096, 1 << 30), kill_mr);
	/* A bit of IBV_ACCESS_OPTIONAL_RANGE: ignored when unsupported. */
	CASE_PTR("reg_mr_optional_access_bit", struct ibv_mr, ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | (1 << 25)), kill_mr);
	CASE_PTR("reg_mr_on_demand", struct ibv_mr, ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND), kill_mr);
	/* Implicit ODP is the whole address space: SIZE_MAX with an address is refused. */
	CASE_PTR("reg_mr_on_demand_size_max_with_addr", struct ibv_mr, ibv_reg_mr(pd, buf, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND), kill_mr);
	CASE_PTR("reg_mr_on_demand_implicit", struct ibv_mr, ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND), kill_mr);
	CASE_PTR("reg_mr_iova_page_offset_differs", struct ibv_mr, ibv_reg_mr_iova(pd, buf, 4096, 0x10000001, IBV_ACCESS_LOCAL_WRITE), kill_mr);
	CASE_PTR("reg_mr_iova2_bad_access", struct ibv_mr, ibv_reg_mr_iova2(pd, buf, 4096, 0x10000000, IBV_ACCESS_REMOTE_WRITE), kill_mr);
	CASE_PTR("reg_dmabuf_mr_fd_neg", struct ibv_mr, ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE), kill_mr);

	/* rereg: argument checks of the library, then the provider's missing op */
	CASE_INT("rereg_mr_unknown_flag", ibv_rereg_mr(mr, 1 << 7, NULL, NULL, 0, 0));
	CASE_INT("rereg_mr_translation_addr_null", ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 4096, 0));
	CASE_INT("rereg_mr_translation_length_0", ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf, 0, 0));
	CASE_INT("rereg_mr_access_without_flag", ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, IBV_ACCESS_LOCAL_WRITE));
	CASE_INT("rereg_mr_flags_0", ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0));
	CASE_INT("rereg_mr_change_pd_unsupported", ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0));
	CASE_INT("rereg_mr_translation_unsupported", ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf, 4096, 0));

	CASE_PTR("alloc_null_mr", struct ibv_mr, ibv_alloc_null_mr(pd), kill_mr);
	CASE_INT("advise_mr", ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1));
	CASE_PTR("import_pd_bogus_handle", struct ibv_pd, ibv_import_pd(ctx, 0x7fffffff), kill_unimport_pd);
	CASE_PTR("import_mr_bogus_handle", struct ibv_mr, ibv_import_mr(pd, 0x7fffffff), kill_unimport_mr);
	CASE_PTR("import_dm_bogus_handle", struct ibv_dm, ibv_import_dm(ctx, 0x7fffffff), kill_unimport_dm);

	CASE_PTR("alloc_mw_type_0", struct ibv_mw, ibv_alloc_mw(pd, 0), kill_mw);
	CASE_PTR("alloc_mw_type_3", struct ibv_mw, ibv_alloc_mw(pd, 3), kill_mw);

	/* Memory must have been registered before: too late to turn on fork
	 * protection. */
	CASE_INT("fork_init_after_reg_mr", ibv_fork_init());
	/* without ibv_fork_init() the ranges are not tracked at all */
	CASE_INT("dontfork_range_null", ibv_dontfork_range(NULL, 4096));
	CASE_INT("dofork_range_null", ibv_dofork_range(NULL, 4096));
	CASE_INT("dontfork_range_size_max", ibv_dontfork_range(buf, SIZE_MAX));
}

static void memory_windows(void)
{
	struct ibv_qp *qp = make_qp(IBV_QPT_RC, NULL);	/* stays in RESET */
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	struct ibv_mw_bind bind = {
		.wr_id = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = (uintptr_t)buf, .length = 4096,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
	};

	if (!mw)
		die("alloc_mw");
	CASE_INT("bind_mw_qp_in_reset", ibv_bind_mw(qp, mw, &bind));
	bind.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
	CASE_INT("bind_mw_zero_based", ibv_bind_mw(qp, mw, &bind));
	kill_mw(mw);
	kill_qp(qp);
}

static void completion_queues(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *ccq;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int fl;

	if (!ch)
		die("create_comp_channel");
	CASE_PTR("create_cq_cqe_0", struct ibv_cq, ibv_create_cq(ctx, 0, NULL, NULL, 0), kill_cq);
	CASE_PTR("create_cq_cqe_neg", struct ibv_cq, ibv_create_cq(ctx, -1, NULL, NULL, 0), kill_cq);
	CASE_PTR("create_cq_cqe_max_plus_1", struct ibv_cq, ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0), kill_cq);
	CASE_PTR("create_cq_cqe_int_max", struct ibv_cq, ibv_create_cq(ctx, 0x7fffffff, NULL, NULL, 0), kill_cq);
	CASE_PTR("create_cq_vector_1000", struct ibv_cq, ibv_create_cq(ctx, 16, NULL, NULL, 1000), kill_cq);
	CASE_PTR("create_cq_vector_neg", struct ibv_cq, ibv_create_cq(ctx, 16, NULL, ch, -1), kill_cq);
	{
		struct ibv_cq_init_attr_ex a = { .cqe = 16,
			.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };

		CASE_PTR("create_cq_ex_wc_timestamp", struct ibv_cq_ex, ibv_create_cq_ex(ctx, &a), kill_cq_ex);
		a.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
		a.comp_mask = 1 << 7;
		CASE_PTR("create_cq_ex_comp_mask_unknown", struct ibv_cq_ex, ibv_create_cq_ex(ctx, &a), kill_cq_ex);
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		a.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
		CASE_PTR("create_cq_ex_ignore_overrun", struct ibv_cq_ex, ibv_create_cq_ex(ctx, &a), kill_cq_ex);
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		a.flags = 1 << 5;
		CASE_PTR("create_cq_ex_unknown_flag", struct ibv_cq_ex, ibv_create_cq_ex(ctx, &a), kill_cq_ex);
		a.comp_mask = 0;
		a.flags = 0;
		a.cqe = 0;
		CASE_PTR("create_cq_ex_cqe_0", struct ibv_cq_ex, ibv_create_cq_ex(ctx, &a), kill_cq_ex);
		a.cqe = 16;
		a.comp_vector = 1000;
		CASE_PTR("create_cq_ex_vector_1000", struct ibv_cq_ex, ibv_create_cq_ex(ctx, &a), kill_cq_ex);
	}

	ccq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	if (!ccq)
		die("create_cq with channel");
	CASE_INT("resize_cq_0", ibv_resize_cq(ccq, 0));
	CASE_INT("resize_cq_neg", ibv_resize_cq(ccq, -5));
	CASE_INT("resize_cq_max_plus_1", ibv_resize_cq(ccq, dattr.max_cqe + 1));
	CASE_INT("destroy_comp_channel_with_cq", ibv_destroy_comp_channel(ch));
	fl = fcntl(ch->fd, F_GETFL);
	fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK);
	CASE_INT("get_cq_event_none_pending", ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	/* upstream reads the fd before it stores anything */
	CASE_INT("get_cq_event_null_outputs_none_pending", ibv_get_cq_event(ch, NULL, NULL));
	fcntl(ch->fd, F_SETFL, fl);
	{
		struct ibv_modify_cq_attr m = {
			.attr_mask = IBV_CQ_ATTR_MODERATE,
			.moderate = { .cq_count = 4, .cq_period = 10 },
		};

		CASE_INT("modify_cq_unsupported", ibv_modify_cq(ccq, &m));
	}
	{
		struct ibv_wc wc;

		CASE_NEG("poll_cq_num_entries_neg", ibv_poll_cq(ccq, -1, &wc));
		CASE_NEG("poll_cq_num_entries_0", ibv_poll_cq(ccq, 0, &wc));
	}
	kill_cq(ccq);
	CASE_INT("destroy_comp_channel_after_cq", ibv_destroy_comp_channel(ch));
}

static void create_qps(void)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp *qp;

#define BASE_ATTR()                                                            \
	do {                                                                   \
		memset(&a, 0, sizeof(a));                                      \
		a.send_cq = cq;                                                \
		a.recv_cq = cq;                                                \
		a.cap.max_send_wr = 16;                                        \
		a.cap.max_recv_wr = 16;                                        \
		a.cap.max_send_sge = 1;                                        \
		a.cap.max_recv_sge = 1;                                        \
		a.qp_type = IBV_QPT_RC;                                        \
	} while (0)

	BASE_ATTR(); a.qp_type = 99;
	CASE_PTR("create_qp_type_99", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.qp_type = IBV_QPT_XRC_RECV;
	CASE_PTR("create_qp_xrc_recv_without_xrcd", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.qp_type = IBV_QPT_XRC_SEND;
	CASE_PTR("create_qp_xrc_send", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.qp_type = IBV_QPT_RAW_PACKET;
	CASE_PTR("create_qp_raw_packet", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.cap.max_send_wr = dattr.max_qp_wr + 1;
	CASE_PTR("create_qp_send_wr_max_plus_1", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.cap.max_recv_wr = dattr.max_qp_wr + 1;
	CASE_PTR("create_qp_recv_wr_max_plus_1", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.cap.max_send_sge = dattr.max_sge + 1;
	CASE_PTR("create_qp_send_sge_max_plus_1", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.cap.max_recv_sge = dattr.max_sge + 1;
	CASE_PTR("create_qp_recv_sge_max_plus_1", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.cap.max_inline_data = 1 << 20;
	CASE_PTR("create_qp_inline_1M", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.cap.max_send_wr = 0; a.cap.max_recv_wr = 0;
	a.cap.max_send_sge = 0; a.cap.max_recv_sge = 0;
	CASE_PTR("create_qp_all_caps_0", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);
	BASE_ATTR(); a.qp_type = IBV_QPT_UD; a.cap.max_send_wr = dattr.max_qp_wr + 1;
	CASE_PTR("create_qp_ud_send_wr_max_plus_1", struct ibv_qp, ibv_create_qp(pd, &a), kill_qp);

#define BASE_EX()                                                              \
	do {                                                                   \
		memset(&ax, 0, sizeof(ax));                                    \
		ax.send_cq = cq;                                               \
		ax.recv_cq = cq;                                               \
		ax.cap.max_send_wr = 16;                                       \
		ax.cap.max_recv_wr = 16;                                       \
		ax.cap.max_send_sge = 1;                                       \
		ax.cap.max_recv_sge = 1;                                       \
		ax.qp_type = IBV_QPT_RC;                                       \
		ax.pd = pd;                                                    \
		ax.comp_mask = IBV_QP_INIT_ATTR_PD;                            \
	} while (0)

	BASE_EX(); ax.comp_mask |= 1 << 20;
	CASE_PTR("create_qp_ex_comp_mask_unknown", struct ibv_qp, ibv_create_qp_ex(ctx, &ax), kill_qp);
	BASE_EX(); ax.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ax.send_ops_flags = IBV_QP_EX_WITH_TSO;
	CASE_PTR("create_qp_ex_send_ops_tso", struct ibv_qp, ibv_create_qp_ex(ctx, &ax), kill_qp);
	BASE_EX(); ax.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS; ax.qp_type = IBV_QPT_UD;
	ax.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	CASE_PTR("create_qp_ex_ud_send_ops_rdma_write", struct ibv_qp, ibv_create_qp_ex(ctx, &ax), kill_qp);
	BASE_EX(); ax.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ax.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	CASE_PTR("create_qp_ex_create_flags_unsupported", struct ibv_qp, ibv_create_qp_ex(ctx, &ax), kill_qp);
	BASE_EX(); ax.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ax.send_ops_flags = IBV_QP_EX_WITH_SEND;
	CASE_PTR("create_qp_ex_without_pd", struct ibv_qp, ibv_create_qp_ex(ctx, &ax), kill_qp);
	BASE_EX(); ax.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS; ax.qp_type = 99;
	ax.send_ops_flags = IBV_QP_EX_WITH_SEND;
	CASE_PTR("create_qp_ex_type_99", struct ibv_qp, ibv_create_qp_ex(ctx, &ax), kill_qp);
	BASE_EX(); ax.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ax.send_ops_flags = IBV_QP_EX_WITH_SEND; ax.cap.max_send_wr = dattr.max_qp_wr + 1;
	CASE_PTR("create_qp_ex_send_wr_max_plus_1", struct ibv_qp, ibv_create_qp_ex(ctx, &ax), kill_qp);

	/* ibv_qp_to_qp_ex on a QP made by ibv_create_qp: no extended ops */
	qp = make_qp(IBV_QPT_RC, NULL);
	{
		errno = 0;
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

		report("qp_to_qp_ex_legacy_qp", x ? "obj" : "NULL", 0, 0, NULL);
	}
	kill_qp(qp);
}

static void modify_and_query_qps(void)
{
	struct ibv_qp *qp = make_qp(IBV_QPT_RC, NULL);	/* RESET */
	struct ibv_qp *iqp = make_qp(IBV_QPT_RC, NULL);	/* INIT */
	struct ibv_qp *rqp = make_rts_qp();
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int mask;

	if (to_init(iqp))
		die("modify_qp INIT");

	rtr_attr(qp, &a, &mask);
	CASE_INT("modify_qp_reset_to_rtr", ibv_modify_qp(qp, &a, mask));
	rts_attr(&a, &mask);
	CASE_INT("modify_qp_reset_to_rts", ibv_modify_qp(qp, &a, mask));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CASE_INT("modify_qp_init_without_port", ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS));
	a.port_num = 0;
	CASE_INT("modify_qp_init_port_0", ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	a.port_num = 2;
	CASE_INT("modify_qp_init_port_2", ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	memset(&a, 0, sizeof(a));
	a.qp_state = 99;
	CASE_INT("modify_qp_state_99", ibv_modify_qp(qp, &a, IBV_QP_STATE));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	CASE_INT_X("modify_qp_reset_to_err", ibv_modify_qp(qp, &a, IBV_QP_STATE), "qp_state=%d", (int)qp->state);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	CASE_INT_X("modify_qp_err_to_reset", ibv_modify_qp(qp, &a, IBV_QP_STATE), "qp_state=%d", (int)qp->state);
	/* rxe does not check these two: the QP goes to INIT (and back) */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 1000;
	CASE_INT_X("modify_qp_init_pkey_index_1000", ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), "qp_state=%d", (int)qp->state);
	a.qp_state = IBV_QPS_RESET;
	CASE_INT_X("modify_qp_init_to_reset", ibv_modify_qp(qp, &a, IBV_QP_STATE), "qp_state=%d", (int)qp->state);
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.qp_access_flags = 1 << 20;
	CASE_INT("modify_qp_init_access_unknown", ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	a.qp_state = IBV_QPS_RESET;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("modify_qp RESET");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.cur_qp_state = IBV_QPS_RTS;
	a.port_num = 1;
	CASE_INT("modify_qp_cur_state_wrong", ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.rate_limit = 100;
	CASE_INT("modify_qp_rate_limit_mask", ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_RATE_LIMIT));
	CASE_INT("modify_qp_mask_bit_30", ibv_modify_qp(qp, &a, IBV_QP_STATE | (1 << 30)));
	CASE_INT("modify_qp_mask_0", ibv_modify_qp(qp, &a, 0));

	rts_attr(&a, &mask);
	CASE_INT("modify_qp_init_to_rts", ibv_modify_qp(iqp, &a, mask));
	rtr_attr(iqp, &a, &mask);
	a.ah_attr.grh.sgid_index = 255;
	CASE_INT("modify_qp_rtr_sgid_index_255", ibv_modify_qp(iqp, &a, mask));
	rtr_attr(iqp, &a, &mask);
	a.ah_attr.grh.sgid_index = 100;	/* inside the table, empty */
	CASE_INT("modify_qp_rtr_sgid_index_empty", ibv_modify_qp(iqp, &a, mask));
	rtr_attr(iqp, &a, &mask);
	a.ah_attr.is_global = 0;
	CASE_INT("modify_qp_rtr_without_grh", ibv_modify_qp(iqp, &a, mask));
	rtr_attr(iqp, &a, &mask);
	a.ah_attr.port_num = 2;
	CASE_INT("modify_qp_rtr_ah_port_2", ibv_modify_qp(iqp, &a, mask));
	rtr_attr(iqp, &a, &mask);
	a.path_mtu = 9;
	CASE_INT("modify_qp_rtr_path_mtu_9", ibv_modify_qp(iqp, &a, mask));
	rtr_attr(iqp, &a, &mask);
	a.max_dest_rd_atomic = 255;
	CASE_INT("modify_qp_rtr_max_dest_rd_atomic_255", ibv_modify_qp(iqp, &a, mask));
	rtr_attr(iqp, &a, &mask);
	CASE_INT("modify_qp_rtr_missing_dest_qpn", ibv_modify_qp(iqp, &a, mask & ~IBV_QP_DEST_QPN));
	/* rxe accepts path MTU 0 (the QP goes to RTR): last on this QP */
	rtr_attr(iqp, &a, &mask);
	a.path_mtu = 0;
	CASE_INT_X("modify_qp_rtr_path_mtu_0", ibv_modify_qp(iqp, &a, mask), "qp_state=%d", (int)iqp->state);

	memset(&a, 0, sizeof(a));
	rtr_attr(rqp, &a, &mask);
	CASE_INT("modify_qp_rts_to_rtr", ibv_modify_qp(rqp, &a, mask));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	CASE_INT("modify_qp_rts_to_init", ibv_modify_qp(rqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	rts_attr(&a, &mask);
	a.max_rd_atomic = 255;
	CASE_INT("modify_qp_rts_max_rd_atomic_255", ibv_modify_qp(rqp, &a, IBV_QP_MAX_QP_RD_ATOMIC));

	CASE_INT("query_qp_rate_limit_mask", ibv_query_qp(rqp, &a, IBV_QP_RATE_LIMIT, &ia));
	CASE_INT("query_qp_mask_bit_30", ibv_query_qp(rqp, &a, 1 << 30, &ia));
	memset(&a, 0, sizeof(a));
	CASE_INT_X("query_qp_mask_0", ibv_query_qp(rqp, &a, 0, &ia), "qp_state=%d", (int)a.qp_state);

	{
		struct ibv_ece ece = { 0 };

		CASE_INT("query_ece_unsupported", ibv_query_ece(rqp, &ece));
		/* rxe has no query_ece: the default op fails before using it */
		CASE_INT("query_ece_null_unsupported", ibv_query_ece(rqp, NULL));
		CASE_INT("set_ece_vendor_0", ibv_set_ece(rqp, &ece));
		ece.vendor_id = 0x15b3;
		CASE_INT("set_ece_unsupported", ibv_set_ece(rqp, &ece));
	}
	CASE_INT("query_qp_data_in_order", ibv_query_qp_data_in_order(rqp, IBV_WR_RDMA_WRITE, 0));
	CASE_INT("query_qp_data_in_order_flags", ibv_query_qp_data_in_order(rqp, IBV_WR_RDMA_WRITE, 0xff));
	{
		struct ibv_qp_rate_limit_attr rl = { .rate_limit = 1000 };

		CASE_INT("modify_qp_rate_limit_unsupported", ibv_modify_qp_rate_limit(rqp, &rl));
	}
	{
		struct ibv_qp_open_attr oa = {
			.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE,
			.qp_num = rqp->qp_num,
			.qp_type = IBV_QPT_RC,
		};

		CASE_PTR("open_qp_unsupported", struct ibv_qp, ibv_open_qp(ctx, &oa), kill_qp);
	}

	kill_qp(rqp);
	kill_qp(iqp);
	kill_qp(qp);
}

static void post_work_requests(void)
{
	struct ibv_qp *reset_qp = make_qp(IBV_QPT_RC, NULL);
	struct ibv_qp *rqp = make_rts_qp();
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey },
		{ .addr = (uintptr_t)buf + 64, .length = 64, .lkey = mr->lkey },
	};
	struct ibv_sge big = { .addr = (uintptr_t)buf, .length = 4096, .lkey = mr->lkey };
	struct ibv_sge eight = { .addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey };
	struct ibv_send_wr wr, *bad;
	struct ibv_recv_wr rwr, *rbad;

#define SEND_WR(op, list, n, flags)                                            \
	do {                                                                   \
		memset(&wr, 0, sizeof(wr));                                    \
		wr.wr_id = 7;                                                  \
		wr.opcode = (op);                                              \
		wr.sg_list = (list);                                           \
		wr.num_sge = (n);                                              \
		wr.send_flags = (flags);                                       \
		bad = (void *)1;                                               \
	} while (0)
#define BAD_WR(b, w) ((b) == (void *)1 ? "untouched" : (b) == NULL ? "NULL" : (b) == (w) ? "the_wr" : "other")

	SEND_WR(IBV_WR_SEND, sge, 1, 0);
	CASE_INT("post_send_wr_null", ibv_post_send(rqp, NULL, &bad));
	CASE_INT("post_send_bad_wr_null", ibv_post_send(rqp, &wr, NULL));
	SEND_WR(IBV_WR_SEND, sge, 2, 0);
	CASE_INT_X("post_send_too_many_sge", ibv_post_send(rqp, &wr, &bad), "bad_wr=%s", BAD_WR(bad, &wr));
	SEND_WR(IBV_WR_SEND, &big, 1, IBV_SEND_INLINE);
	CASE_INT_X("post_send_inline_too_long", ibv_post_send(rqp, &wr, &bad), "bad_wr=%s", BAD_WR(bad, &wr));
	SEND_WR(IBV_WR_ATOMIC_FETCH_AND_ADD, &eight, 1, 0);
	wr.wr.atomic.remote_addr = (uintptr_t)buf + 3;
	wr.wr.atomic.rkey = mr->rkey;
	CASE_INT_X("post_send_atomic_misaligned", ibv_post_send(rqp, &wr, &bad), "bad_wr=%s", BAD_WR(bad, &wr));
	SEND_WR(IBV_WR_ATOMIC_CMP_AND_SWP, sge, 1, 0);
	sge[0].length = 4;
	wr.wr.atomic.remote_addr = (uintptr_t)buf;
	wr.wr.atomic.rkey = mr->rkey;
	CASE_INT_X("post_send_atomic_short", ibv_post_send(rqp, &wr, &bad), "bad_wr=%s", BAD_WR(bad, &wr));
	sge[0].length = 64;
	SEND_WR(IBV_WR_BIND_MW, sge, 1, 0);
	CASE_INT_X("post_send_bind_mw_with_sge", ibv_post_send(rqp, &wr, &bad), "bad_wr=%s", BAD_WR(bad, &wr));
	SEND_WR(IBV_WR_SEND, sge, 1, 0);
	CASE_INT_X("post_send_qp_in_reset", ibv_post_send(reset_qp, &wr, &bad), "bad_wr=%s", BAD_WR(bad, &wr));

	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 9;
	rwr.sg_list = sge;
	rwr.num_sge = 1;
	rbad = (void *)1;
	CASE_INT("post_recv_wr_null", ibv_post_recv(rqp, NULL, &rbad));
	CASE_INT("post_recv_bad_wr_null", ibv_post_recv(rqp, &rwr, NULL));
	rwr.num_sge = 2;
	rbad = (void *)1;
	CASE_INT_X("post_recv_too_many_sge", ibv_post_recv(rqp, &rwr, &rbad), "bad_wr=%s", BAD_WR(rbad, &rwr));
	rwr.num_sge = 1;
	rbad = (void *)1;
	/* ibv_modify_qp keeps qp->state, which the provider checks here */
	CASE_INT_X("post_recv_qp_in_reset", ibv_post_recv(reset_qp, &rwr, &rbad), "bad_wr=%s", BAD_WR(rbad, &rwr));

	kill_qp(rqp);
	kill_qp(reset_qp);
}

static void shared_receive_queues(void)
{
	struct ibv_srq_init_attr sa;
	struct ibv_srq_init_attr_ex sx;
	struct ibv_srq *srq;
	struct ibv_srq_attr attr;
	struct ibv_qp *qp;
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey },
		{ .addr = (uintptr_t)buf + 64, .length = 64, .lkey = mr->lkey },
	};
	struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = sge, .num_sge = 2 }, *rbad;
	uint32_t num;

#define SRQ_ATTR(wr, sge_n, limit)                                             \
	do {                                                                   \
		memset(&sa, 0, sizeof(sa));                                    \
		sa.attr.max_wr = (wr);                                         \
		sa.attr.max_sge = (sge_n);                                     \
		sa.attr.srq_limit = (limit);                                   \
	} while (0)

	SRQ_ATTR(0, 1, 0);
	CASE_PTR("create_srq_max_wr_0", struct ibv_srq, ibv_create_srq(pd, &sa), kill_srq);
	SRQ_ATTR(dattr.max_srq_wr + 1, 1, 0);
	CASE_PTR("create_srq_max_wr_max_plus_1", struct ibv_srq, ibv_create_srq(pd, &sa), kill_srq);
	SRQ_ATTR(16, dattr.max_srq_sge + 1, 0);
	CASE_PTR("create_srq_max_sge_max_plus_1", struct ibv_srq, ibv_create_srq(pd, &sa), kill_srq);
	SRQ_ATTR(16, 0, 0);
	CASE_PTR("create_srq_max_sge_0", struct ibv_srq, ibv_create_srq(pd, &sa), kill_srq);
	SRQ_ATTR(16, 1, 100);
	CASE_PTR("create_srq_limit_above_max_wr", struct ibv_srq, ibv_create_srq(pd, &sa), kill_srq);

	memset(&sx, 0, sizeof(sx));
	sx.attr.max_wr = 16;
	sx.attr.max_sge = 1;
	sx.pd = pd;
	sx.comp_mask = IBV_SRQ_INIT_ATTR_PD | (1 << 10);
	CASE_PTR("create_srq_ex_comp_mask_unknown", struct ibv_srq, ibv_create_srq_ex(ctx, &sx), kill_srq);
	sx.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	sx.srq_type = IBV_SRQT_BASIC;
	CASE_PTR("create_srq_ex_without_pd", struct ibv_srq, ibv_create_srq_ex(ctx, &sx), kill_srq);
	sx.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
	sx.srq_type = IBV_SRQT_XRC;
	CASE_PTR("create_srq_ex_xrc_without_xrcd", struct ibv_srq, ibv_create_srq_ex(ctx, &sx), kill_srq);
	sx.srq_type = IBV_SRQT_TM;
	CASE_PTR("create_srq_ex_tm_without_cq", struct ibv_srq, ibv_create_srq_ex(ctx, &sx), kill_srq);
	sx.srq_type = 7;
	CASE_PTR("create_srq_ex_type_7", struct ibv_srq, ibv_create_srq_ex(ctx, &sx), kill_srq);

	SRQ_ATTR(16, 1, 0);
	srq = ibv_create_srq(pd, &sa);
	if (!srq)
		die("create_srq");
	memset(&attr, 0, sizeof(attr));
	attr.srq_limit = 1000;
	CASE_INT("modify_srq_limit_above_max_wr", ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	attr.max_wr = dattr.max_srq_wr + 1;
	CASE_INT("modify_srq_max_wr_max_plus_1", ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
	attr.max_wr = 0;
	CASE_INT("modify_srq_max_wr_0", ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
	attr.srq_limit = 1;
	CASE_INT("modify_srq_mask_unknown", ibv_modify_srq(srq, &attr, 1 << 5));
	CASE_INT("modify_srq_mask_0", ibv_modify_srq(srq, &attr, 0));
	CASE_INT("get_srq_num_basic_srq", ibv_get_srq_num(srq, &num));
	rbad = (void *)1;
	CASE_INT_X("post_srq_recv_too_many_sge", ibv_post_srq_recv(srq, &rwr, &rbad), "bad_wr=%s", BAD_WR(rbad, &rwr));
	rbad = (void *)1;
	CASE_INT_X("post_srq_recv_wr_null", ibv_post_srq_recv(srq, NULL, &rbad), "bad_wr=%s", BAD_WR(rbad, &rwr));

	qp = make_qp(IBV_QPT_RC, srq);
	rwr.num_sge = 1;
	rbad = (void *)1;
	CASE_INT_X("post_recv_qp_with_srq", ibv_post_recv(qp, &rwr, &rbad), "bad_wr=%s", BAD_WR(rbad, &rwr));
	CASE_INT("destroy_srq_with_qp", ibv_destroy_srq(srq));
	kill_qp(qp);
	kill_srq(srq);
}

static void address_handles(void)
{
	struct ibv_ah_attr a;
	struct ibv_wc wc;
	struct ibv_grh grh;
	struct iphdr *ip = (struct iphdr *)((char *)&grh + 20);

#define AH_ATTR()                                                              \
	do {                                                                   \
		memset(&a, 0, sizeof(a));                                      \
		a.is_global = 1;                                               \
		a.grh.dgid = gid1;                                             \
		a.grh.sgid_index = 1;                                          \
		a.grh.hop_limit = 64;                                          \
		a.port_num = 1;                                                \
	} while (0)

	AH_ATTR(); a.port_num = 0;
	CASE_PTR("create_ah_port_0", struct ibv_ah, ibv_create_ah(pd, &a), kill_ah);
	AH_ATTR(); a.port_num = 2;
	CASE_PTR("create_ah_port_2", struct ibv_ah, ibv_create_ah(pd, &a), kill_ah);
	AH_ATTR(); a.is_global = 0;
	CASE_PTR("create_ah_without_grh", struct ibv_ah, ibv_create_ah(pd, &a), kill_ah);
	AH_ATTR(); a.grh.sgid_index = 255;
	CASE_PTR("create_ah_sgid_index_255", struct ibv_ah, ibv_create_ah(pd, &a), kill_ah);
	AH_ATTR(); a.grh.sgid_index = 100;
	CASE_PTR("create_ah_sgid_index_empty", struct ibv_ah, ibv_create_ah(pd, &a), kill_ah);
	AH_ATTR(); a.static_rate = 99;
	CASE_PTR("create_ah_static_rate_99", struct ibv_ah, ibv_create_ah(pd, &a), kill_ah);

	/* ibv_init_ah_from_wc parses the GRH (or the IPv4 header in its last 20
	 * bytes) itself and looks the address up in the GID table. */
#define WC_GRH(flags)                                                          \
	do {                                                                   \
		memset(&wc, 0, sizeof(wc));                                    \
		memset(&grh, 0, sizeof(grh));                                  \
		memset(&a, 0x5a, sizeof(a));                                   \
		wc.slid = 0x1234;                                              \
		wc.sl = 3;                                                     \
		wc.dlid_path_bits = 1;                                         \
		wc.wc_flags = (flags);                                         \
	} while (0)
#define AH_FIELDS()                                                            \
	"is_global=%d dlid=0x%x sl=%d path_bits=%d port=%d sgid_index=%d hop_limit=%d flow_label=0x%x",  \
	a.is_global, a.dlid, a.sl, a.src_path_bits, a.port_num, a.grh.sgid_index, \
	a.grh.hop_limit, a.grh.flow_label

	WC_GRH(0);
	grh.version_tclass_flow = htobe32(0x12345);
	CASE_INT_X("init_ah_from_wc_without_grh", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a), AH_FIELDS());
	WC_GRH(IBV_WC_GRH);
	CASE_INT("init_ah_from_wc_grh_version_0", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a));
	WC_GRH(IBV_WC_GRH);
	ip->version = 4; ip->ihl = 5; ip->ttl = 9; ip->tos = 0x20; ip->protocol = IPPROTO_UDP;
	ip->saddr = inet_addr("10.0.2.15");
	ip->daddr = inet_addr("224.0.0.1");
	CASE_INT("init_ah_from_wc_ipv4_multicast", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a));
	ip->daddr = inet_addr("10.9.9.9");
	CASE_INT("init_ah_from_wc_ipv4_unknown_address", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a));
	ip->daddr = inet_addr("10.0.2.15");
	CASE_INT_X("init_ah_from_wc_ipv4_own_address", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a), AH_FIELDS());
	CASE_INT("init_ah_from_wc_ipv4_port_2", ibv_init_ah_from_wc(ctx, 2, &wc, &grh, &a));
	WC_GRH(IBV_WC_GRH);
	grh.version_tclass_flow = htobe32(6u << 28 | 0x7 << 20 | 0xabcde);
	grh.next_hdr = IPPROTO_UDP;
	grh.hop_limit = 5;
	inet_pton(AF_INET6, "2001:db8::1", grh.sgid.raw);
	inet_pton(AF_INET6, "ff02::1", grh.dgid.raw);
	CASE_INT("init_ah_from_wc_ipv6_multicast", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a));
	inet_pton(AF_INET6, "2001:db8::99", grh.dgid.raw);
	CASE_INT("init_ah_from_wc_ipv6_unknown_gid", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a));
	grh.dgid = gid1;
	grh.next_hdr = 0x99;
	CASE_INT("init_ah_from_wc_ipv6_next_header_0x99", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a));
	grh.next_hdr = 0x1b;	/* RoCE v1: there is no v1 GID ::ffff:10.0.2.15 */
	CASE_INT("init_ah_from_wc_ipv6_roce_v1_gid_absent", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a));
	grh.next_hdr = IPPROTO_UDP;
	CASE_INT_X("init_ah_from_wc_ipv6_own_gid", ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a), AH_FIELDS());
	WC_GRH(IBV_WC_GRH);
	CASE_PTR("create_ah_from_wc_grh_version_0", struct ibv_ah, ibv_create_ah_from_wc(pd, &wc, &grh, 1), kill_ah);
}

static void multicast(void)
{
	struct ibv_qp *ud = make_qp(IBV_QPT_UD, NULL);
	struct ibv_qp *rc = make_qp(IBV_QPT_RC, NULL);
	union ibv_gid mgid, other;

	inet_pton(AF_INET6, "ff0e::ffff:e000:1234", mgid.raw);
	inet_pton(AF_INET6, "ff0e::ffff:e000:1235", other.raw);
	CASE_INT("attach_mcast_rc_qp", ibv_attach_mcast(rc, &mgid, 0));
	CASE_INT("attach_mcast_unicast_gid", ibv_attach_mcast(ud, &gid1, 0));
	CASE_INT("attach_mcast", ibv_attach_mcast(ud, &mgid, 0));
	CASE_INT("attach_mcast_again", ibv_attach_mcast(ud, &mgid, 0));
	CASE_INT("detach_mcast_never_attached", ibv_detach_mcast(ud, &other, 0));
	CASE_INT("detach_mcast_rc_qp", ibv_detach_mcast(rc, &mgid, 0));
	CASE_INT("detach_mcast", ibv_detach_mcast(ud, &mgid, 0));
	CASE_INT("detach_mcast_again", ibv_detach_mcast(ud, &mgid, 0));
	kill_qp(rc);
	kill_qp(ud);
}

/* Verbs rxe does not implement: each must fail the way upstream's default
 * ops do. */
static void unsupported_on_rxe(void)
{
	struct ibv_qp *qp = make_qp(IBV_QPT_UD, NULL);

	{
		struct ibv_td_init_attr a = { 0 };

		CASE_PTR("alloc_td", struct ibv_td, ibv_alloc_td(ctx, &a), kill_td);
		a.comp_mask = 1;
		CASE_PTR("alloc_td_comp_mask_1", struct ibv_td, ibv_alloc_td(ctx, &a), kill_td);
	}
	{
		struct ibv_parent_domain_init_attr a = { .pd = pd };

		CASE_PTR("alloc_parent_domain", struct ibv_pd, ibv_alloc_parent_domain(ctx, &a), kill_pd);
	}
	{
		struct ibv_flow_attr fa = { .size = sizeof(fa), .type = IBV_FLOW_ATTR_NORMAL, .port = 1 };

		CASE_PTR("create_flow", struct ibv_flow, ibv_create_flow(qp, &fa), kill_flow);
	}
	{
		struct ibv_flow_action_esp_attr ea = { 0 };

		CASE_PTR("create_flow_action_esp", struct ibv_flow_action, ibv_create_flow_action_esp(ctx, &ea), kill_fa);
	}
	{
		struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = 16, .max_sge = 1, .pd = pd, .cq = cq };

		CASE_PTR("create_wq", struct ibv_wq, ibv_create_wq(ctx, &wa), kill_wq);
	}
	{
		struct ibv_rwq_ind_table_init_attr ia = { .log_ind_tbl_size = 0, .ind_tbl = NULL };

		CASE_PTR("create_rwq_ind_table", struct ibv_rwq_ind_table, ibv_create_rwq_ind_table(ctx, &ia), kill_rwq);
	}
	{
		struct ibv_counters_init_attr ca = { 0 };

		CASE_PTR("create_counters", struct ibv_counters, ibv_create_counters(ctx, &ca), kill_counters);
	}
	{
		struct ibv_alloc_dm_attr da = { .length = 4096 };

		CASE_PTR("alloc_dm", struct ibv_dm, ibv_alloc_dm(ctx, &da), kill_dm);
	}
	{
		struct ibv_xrcd_init_attr xa = {
			.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
			.fd = -1,
			.oflags = O_CREAT,
		};

		CASE_PTR("open_xrcd", struct ibv_xrcd, ibv_open_xrcd(ctx, &xa), kill_xrcd);
		xa.comp_mask = 1 << 5;
		CASE_PTR("open_xrcd_comp_mask_unknown", struct ibv_xrcd, ibv_open_xrcd(ctx, &xa), kill_xrcd);
	}
	kill_qp(qp);
}

static void objects_in_use(void)
{
	struct ibv_cq *ucq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr a = {
		.send_cq = NULL, .recv_cq = NULL,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp;
	struct ibv_context *c2;
	struct ibv_pd *p2;

	if (!ucq)
		die("create_cq");
	a.send_cq = a.recv_cq = ucq;
	qp = ibv_create_qp(pd, &a);
	if (!qp)
		die("create_qp");
	CASE_INT("destroy_cq_with_qp", ibv_destroy_cq(ucq));
	CASE_INT("dealloc_pd_with_qp", ibv_dealloc_pd(pd));
	kill_qp(qp);
	CASE_INT("destroy_cq_after_qp", ibv_destroy_cq(ucq));

	/* Closing a context that still has objects: the kernel cleans up. */
	c2 = ibv_open_device(dev);
	if (!c2)
		die("open_device");
	p2 = ibv_alloc_pd(c2);
	if (!p2)
		die("alloc_pd");
	CASE_INT("close_device_with_pd", ibv_close_device(c2));
}

int main(void)
{
	struct ibv_device **list;
	int i, n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&n);
	if (!list)
		die("get_device_list");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "rxe0"))
			dev = list[i];
	if (!dev) {
		printf("setup failed: no rxe0\n");
		return 1;
	}
	ctx = ibv_open_device(dev);
	if (!ctx)
		die("open_device");
	if (ibv_query_device(ctx, &dattr) || ibv_query_port(ctx, 1, &pattr) ||
	    ibv_query_gid(ctx, 1, 1, &gid1))
		die("query");
	buf = mmap(NULL, buf_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	memset(buf, 0, buf_len);
	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	if (!pd || !pd2)
		die("alloc_pd");
	mr = ibv_reg_mr(pd, buf, buf_len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	if (!mr)
		die("reg_mr");
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!cq)
		die("create_cq");

	strings_and_rates();
	device_queries();
	pd_and_mr();
	memory_windows();
	completion_queues();
	create_qps();
	modify_and_query_qps();
	post_work_requests();
	shared_receive_queues();
	address_handles();
	multicast();
	unsupported_on_rxe();
	objects_in_use();

	kill_cq(cq);
	kill_mr(mr);
	kill_pd(pd2);
	kill_pd(pd);
	printf("close_device = %d\n", ibv_close_device(ctx));
	ibv_free_device_list(list);
	printf("%d cases\n", ncases);
	return 0;
}
