/*
 * Behavioural check of the code <infiniband/verbs.h> compiles into the
 * application: its static inline functions and its macros.
 *
 * The program is compiled once against a reference header set (rdma-core's)
 * and once against ours, as C and as C++, and run; abi-tests/headers/
 * inline-check diffs the outputs, which must be identical line for line.
 *
 * Nothing here talks to a device. The objects the inline functions work on
 * (a struct verbs_context with its embedded ibv_context, PDs, QPs, CQs, an
 * extended QP and CQ, ...) are built in memory, and every entry point they
 * can reach is a mock that prints which entry point it is and the arguments
 * it got. The library functions the inline functions call (ibv_query_port,
 * ibv_query_device, _ibv_query_gid_ex, ibv_reg_mr_iova2, ibv_create_srq,
 * ...) are defined in this program too, as the same kind of mock: the
 * program is not linked with libibverbs, so each fallback path is followed
 * to the library call it ends in, and a header calling anything else fails
 * to link.
 *
 * Each function that looks up an entry point of struct verbs_context runs
 * in five set-ups: the entry point provided; set to NULL; the provider's sz
 * one byte short of reaching it; sz just reaching it; the context not
 * marked as extended. Each call prints its result and errno (errno is set
 * to a sentinel before the call, so "errno untouched" is visible).
 *
 * Addresses differ between builds, so pointers print as the names of the
 * objects they point into. Sizes of structs that grew between releases
 * print as "sizeof(struct ...)" when they are that size.
 *
 * INLINE_CHECK_API (44 or 65) says which rdma-core release's API the
 * reference header set has: the checks of what 65 added (ibv_wr_flush,
 * ibv_query_comp_cntr_caps, a twentieth static provider slot) are compiled
 * only for 65. The runner sets it for both builds of a pair.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Static linking of providers: the header then refers to the providers'
 * verbs_provider_<name> objects. Their type is opaque in verbs.h; a
 * complete one is given here so that this program can define them.
 */
struct verbs_device_ops {
	int unused;
};
#define RDMA_STATIC_PROVIDERS mlx5, rxe

#include <infiniband/verbs.h>

#ifndef INLINE_CHECK_API
#error "define INLINE_CHECK_API to 44 or 65"
#endif

/* ---------------------------------------------------------------- output */

#define ERRNO_SENTINEL 7777

static const char *errno_name(int e)
{
	static char buf[32];

	switch (e) {
	case ERRNO_SENTINEL:
		return "untouched";
	case 0:
		return "0";
	case EINVAL:
		return "EINVAL";
	case EPERM:
		return "EPERM";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENOSYS:
		return "ENOSYS";
	case ENOMEM:
		return "ENOMEM";
	}
	snprintf(buf, sizeof(buf), "%d", e);
	return buf;
}

/* Named objects, so that pointers print the same in every build. */
struct named {
	const void *p;
	size_t size;
	const char *name;
};
static struct named names[128];
static int n_names;

static void reg(const void *p, size_t size, const char *name)
{
	if (n_names == (int)(sizeof(names) / sizeof(names[0]))) {
		fprintf(stderr, "too many named objects\n");
		exit(2);
	}
	names[n_names].p = p;
	names[n_names].size = size;
	names[n_names].name = name;
	n_names++;
}

static const char *pn(const void *p)
{
	static char bufs[8][96];
	static int next;
	char *buf;
	int i;

	if (p == NULL)
		return "NULL";
	for (i = 0; i < n_names; i++)
		if (names[i].p == p)
			return names[i].name;
	buf = bufs[next++ % 8];
	for (i = 0; i < n_names; i++) {
		const char *start = (const char *)names[i].p;
		const char *q = (const char *)p;

		if (q > start && q < start + names[i].size) {
			snprintf(buf, sizeof(bufs[0]), "%s+%zu", names[i].name,
				 (size_t)(q - start));
			return buf;
		}
	}
	snprintf(buf, sizeof(bufs[0]), "unnamed(%#" PRIxPTR ")",
		 (uintptr_t)p);
	return buf;
}

/* A size argument: symbolic when it is the size of the struct expected. */
static const char *size_desc(size_t got, size_t expect, const char *tname)
{
	static char bufs[4][128];
	static int next;
	char *buf = bufs[next++ % 4];

	if (got == expect)
		snprintf(buf, sizeof(bufs[0]), "sizeof(%s)", tname);
	else
		snprintf(buf, sizeof(bufs[0]), "%zu (sizeof(%s) is %zu)", got,
			 tname, expect);
	return buf;
}

/* A mock was called: one indented line. errno is preserved. */
static void called(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	fputs("  call ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	errno = saved;
}

static void heading(const char *fmt, ...)
{
	va_list ap;

	fputs("== ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#define RESULT_INT(expr)                                                       \
	do {                                                                   \
		long long r_;                                                  \
		int e_;                                                        \
		errno = ERRNO_SENTINEL;                                        \
		r_ = (long long)(expr);                                        \
		e_ = errno;                                                    \
		printf("  result %lld, errno %s\n", r_, errno_name(e_));       \
	} while (0)

#define RESULT_HEX(expr)                                                       \
	do {                                                                   \
		unsigned long long r_;                                         \
		int e_;                                                        \
		errno = ERRNO_SENTINEL;                                        \
		r_ = (unsigned long long)(expr);                               \
		e_ = errno;                                                    \
		printf("  result %#llx, errno %s\n", r_, errno_name(e_));      \
	} while (0)

#define RESULT_PTR(expr)                                                       \
	do {                                                                   \
		const void *r_;                                                \
		int e_;                                                        \
		errno = ERRNO_SENTINEL;                                        \
		r_ = (expr);                                                   \
		e_ = errno;                                                    \
		printf("  result %s, errno %s\n", pn(r_), errno_name(e_));     \
	} while (0)

#define RESULT_VOID(expr)                                                      \
	do {                                                                   \
		int e_;                                                        \
		errno = ERRNO_SENTINEL;                                        \
		expr;                                                          \
		e_ = errno;                                                    \
		printf("  done, errno %s\n", errno_name(e_));                  \
	} while (0)

/* --------------------------------------------------------------- objects */

static struct verbs_context *vctx;
static struct ibv_context *ctx;

static struct ibv_pd pd, other_pd;
static struct ibv_qp qp;
static struct ibv_qp_ex qpx;
static struct ibv_cq cq;
static struct ibv_cq_ex cqx;
static struct ibv_srq srq;
static struct ibv_wq wq;
static struct ibv_mw mw;
static struct ibv_mr mr, mr_other_pd, mr_ret;
static struct ibv_dm dm;
static struct ibv_ah ah;
static struct ibv_flow flow;
static struct ibv_flow_action flow_action;
static struct ibv_xrcd xrcd;
static struct ibv_td td;
static struct ibv_counters counters;
static struct ibv_rwq_ind_table rwq_ind_table;
static struct ibv_device *device_list[4];

/* Results the pointer-returning mocks hand back. */
static struct ibv_mw mw_ret;
static struct ibv_cq_ex cqx_ret;
static struct ibv_srq srq_ret;
static struct ibv_qp qp_ret;
static struct ibv_pd parent_domain_ret;
static struct ibv_td td_ret;
static struct ibv_xrcd xrcd_ret;
static struct ibv_flow flow_ret;
static struct ibv_flow_action flow_action_ret;
static struct ibv_dm dm_ret;
static struct ibv_counters counters_ret;
static struct ibv_rwq_ind_table rwq_ind_table_ret;
static struct ibv_wq wq_ret;

/* Arguments. */
static struct ibv_send_wr send_wr;
static struct ibv_send_wr *bad_send_wr;
static struct ibv_recv_wr recv_wr;
static struct ibv_recv_wr *bad_recv_wr;
static struct ibv_ops_wr ops_wr;
static struct ibv_ops_wr *bad_ops_wr;
static struct ibv_wc wc[4];
static struct ibv_sge sge[2];
static struct ibv_data_buf data_buf[2];
static struct ibv_mw_bind mw_bind;
static struct ibv_mw_bind_info mw_bind_info;
static struct ibv_flow_attr flow_attr;
static struct ibv_flow_action_esp_attr esp_attr;
static struct ibv_xrcd_init_attr xrcd_attr;
static struct ibv_td_init_attr td_attr;
static struct ibv_parent_domain_init_attr pd_attr;
static struct ibv_alloc_dm_attr dm_attr;
static struct ibv_cq_init_attr_ex cq_attr;
static struct ibv_modify_cq_attr modify_cq_attr;
static struct ibv_poll_cq_attr poll_attr;
static struct ibv_wc_tm_info tm_info;
static struct ibv_srq_init_attr_ex srq_attr;
static struct ibv_qp_init_attr_ex qp_attr;
static struct ibv_qp_open_attr qp_open_attr;
static struct ibv_qp_rate_limit_attr rate_attr;
static struct ibv_values_ex values;
static struct ibv_query_device_ex_input dev_input;
static struct ibv_wq_init_attr wq_attr;
static struct ibv_wq_attr wq_mod_attr;
static struct ibv_rwq_ind_table_init_attr ind_attr;
static struct ibv_counters_init_attr counters_attr;
static struct ibv_counter_attach_attr counter_attach_attr;
static struct ibv_gid_entry gid_entries[4];
static uint64_t counter_values[4];
static uint32_t srq_num;
static char mr_buf[64];
static char host_buf[64];
static char tso_hdr[16];
static char atomic_buf[8];
static char wq_user_context;
static int num_devices;

/* Buffers whose zeroing is checked, followed by a guard area. */
#define GUARD 64
static struct {
	struct ibv_port_attr attr;
	unsigned char guard[GUARD];
} port_buf;
static struct {
	struct ibv_device_attr_ex attr;
	unsigned char guard[GUARD];
} dev_buf;

#if INLINE_CHECK_API >= 65
static struct ibv_comp_cntr_caps comp_cntr_caps;
#endif

/* The static providers this program links "in". */
const struct verbs_device_ops verbs_provider_mlx5 = { 1 };
const struct verbs_device_ops verbs_provider_rxe = { 2 };
const struct verbs_device_ops verbs_provider_none = { 3 };

/* What int-returning mocks return (per check), and the library mocks. */
static int op_ret = 1234;
static int lib_ret = 3;
static int create_wq_fails;

/* --------------------------------------------- library functions (mocks) */

static int all_bytes(const void *p, size_t n, unsigned char v)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

int(ibv_query_port)(struct ibv_context *context, uint8_t port_num,
		    struct _compat_ibv_port_attr *port_attr)
{
	called("lib ibv_query_port(context=%s, port_num=%u, port_attr=%s) "
	       "attr %s, guard %s",
	       pn(context), port_num, pn(port_attr),
	       all_bytes(&port_buf.attr, sizeof(port_buf.attr), 0) ?
		       "zeroed" :
		       "NOT zeroed",
	       all_bytes(port_buf.guard, GUARD, 0xa5) ? "intact" : "CHANGED");
	return lib_ret;
}

int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	called("lib ibv_query_device(context=%s, device_attr=%s) "
	       "attr_ex %s, guard %s",
	       pn(context), pn(device_attr),
	       all_bytes(&dev_buf.attr, sizeof(dev_buf.attr), 0) ?
		       "zeroed" :
		       "NOT zeroed",
	       all_bytes(dev_buf.guard, GUARD, 0xa5) ? "intact" : "CHANGED");
	return lib_ret;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	called("lib _ibv_query_gid_ex(context=%s, port_num=%" PRIu32
	       ", gid_index=%" PRIu32 ", entry=%s, flags=%#" PRIx32
	       ", entry_size=%s)",
	       pn(context), port_num, gid_index, pn(entry), flags,
	       size_desc(entry_size, sizeof(struct ibv_gid_entry),
			 "struct ibv_gid_entry"));
	return lib_ret;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	called("lib _ibv_query_gid_table(context=%s, entries=%s, "
	       "max_entries=%zu, flags=%#" PRIx32 ", entry_size=%s)",
	       pn(context), pn(entries), max_entries, flags,
	       size_desc(entry_size, sizeof(struct ibv_gid_entry),
			 "struct ibv_gid_entry"));
	return 2;
}

#if INLINE_CHECK_API >= 65
int _ibv_query_comp_cntr_caps(struct ibv_context *context,
			      struct ibv_comp_cntr_caps *caps, size_t caps_size)
{
	called("lib _ibv_query_comp_cntr_caps(context=%s, caps=%s, "
	       "caps_size=%s)",
	       pn(context), pn(caps),
	       size_desc(caps_size, sizeof(struct ibv_comp_cntr_caps),
			 "struct ibv_comp_cntr_caps"));
	return lib_ret;
}
#endif

static const char *iova_desc(uint64_t iova)
{
	static char buf[48];

	if (iova == (uint64_t)(uintptr_t)mr_buf)
		return "address of mr_buf";
	snprintf(buf, sizeof(buf), "%#" PRIx64, iova);
	return buf;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd_arg, void *addr, size_t length,
			    int access)
{
	called("lib ibv_reg_mr(pd=%s, addr=%s, length=%zu, access=%#x)",
	       pn(pd_arg), pn(addr), length, (unsigned int)access);
	return &mr_ret;
}

struct ibv_mr *(ibv_reg_mr_iova)(struct ibv_pd *pd_arg, void *addr,
				 size_t length, uint64_t iova, int access)
{
	called("lib ibv_reg_mr_iova(pd=%s, addr=%s, length=%zu, iova=%s, "
	       "access=%#x)",
	       pn(pd_arg), pn(addr), length, iova_desc(iova),
	       (unsigned int)access);
	return &mr_ret;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd_arg, void *addr,
				size_t length, uint64_t iova,
				unsigned int access)
{
	called("lib ibv_reg_mr_iova2(pd=%s, addr=%s, length=%zu, iova=%s, "
	       "access=%#x)",
	       pn(pd_arg), pn(addr), length, iova_desc(iova), access);
	return &mr_ret;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd_arg,
			       struct ibv_srq_init_attr *srq_init_attr)
{
	called("lib ibv_create_srq(pd=%s, srq_init_attr=%s)", pn(pd_arg),
	       pn(srq_init_attr));
	return &srq_ret;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd_arg,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	called("lib ibv_create_qp(pd=%s, qp_init_attr=%s)", pn(pd_arg),
	       pn(qp_init_attr));
	return &qp_ret;
}

void ibv_static_providers(void *unused, ...)
{
	const struct verbs_device_ops *p;
	char list[512] = "";
	int total = 0, none = 0;
	va_list ap;

	va_start(ap, unused);
	while ((p = va_arg(ap, const struct verbs_device_ops *)) != NULL) {
		total++;
		if (p == &verbs_provider_none) {
			none++;
			continue;
		}
		strncat(list, " ", sizeof(list) - strlen(list) - 1);
		strncat(list, pn(p), sizeof(list) - strlen(list) - 1);
	}
	va_end(ap);
#if INLINE_CHECK_API >= 65
	called("lib ibv_static_providers(unused=%s, providers:%s, then %d x "
	       "none, %d in all, then NULL)",
	       pn(unused), list, none, total);
#else
	(void)none;
	(void)total;
	called("lib ibv_static_providers(unused=%s, providers:%s, then none "
	       "entries, then NULL)",
	       pn(unused), list);
#endif
}

struct ibv_device **(ibv_get_device_list)(int *num_devices)
{
	called("lib ibv_get_device_list(num_devices=%s)", pn(num_devices));
	if (num_devices)
		*num_devices = 3;
	return device_list;
}

/* ------------------------------------------- struct ibv_context_ops mocks */

static struct ibv_mw *m_alloc_mw(struct ibv_pd *pd_arg, enum ibv_mw_type type)
{
	called("ops.alloc_mw(pd=%s, type=%d)", pn(pd_arg), (int)type);
	return &mw_ret;
}

static int m_bind_mw(struct ibv_qp *qp_arg, struct ibv_mw *mw_arg,
		     struct ibv_mw_bind *bind)
{
	called("ops.bind_mw(qp=%s, mw=%s, mw_bind=%s)", pn(qp_arg), pn(mw_arg),
	       pn(bind));
	return op_ret;
}

static int m_dealloc_mw(struct ibv_mw *mw_arg)
{
	called("ops.dealloc_mw(mw=%s)", pn(mw_arg));
	return op_ret;
}

static int m_poll_cq(struct ibv_cq *cq_arg, int num_entries,
		     struct ibv_wc *wc_arg)
{
	called("ops.poll_cq(cq=%s, num_entries=%d, wc=%s)", pn(cq_arg),
	       num_entries, pn(wc_arg));
	return op_ret;
}

static int m_req_notify_cq(struct ibv_cq *cq_arg, int solicited_only)
{
	called("ops.req_notify_cq(cq=%s, solicited_only=%d)", pn(cq_arg),
	       solicited_only);
	return op_ret;
}

static int m_post_srq_recv(struct ibv_srq *srq_arg, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad)
{
	called("ops.post_srq_recv(srq=%s, recv_wr=%s, bad_recv_wr=%s)",
	       pn(srq_arg), pn(wr), pn(bad));
	return op_ret;
}

static int m_post_send(struct ibv_qp *qp_arg, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad)
{
	called("ops.post_send(qp=%s, wr=%s, bad_wr=%s)", pn(qp_arg), pn(wr),
	       pn(bad));
	return op_ret;
}

static int m_post_recv(struct ibv_qp *qp_arg, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad)
{
	called("ops.post_recv(qp=%s, wr=%s, bad_wr=%s)", pn(qp_arg), pn(wr),
	       pn(bad));
	return op_ret;
}

/* --------------------------------------------- struct verbs_context mocks */

static int m_query_port(struct ibv_context *context, uint8_t port_num,
			struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	called("vctx.query_port(context=%s, port_num=%u, port_attr=%s, "
	       "port_attr_len=%s)",
	       pn(context), port_num, pn(port_attr),
	       size_desc(port_attr_len, sizeof(struct ibv_port_attr),
			 "struct ibv_port_attr"));
	return op_ret;
}

static int m_advise_mr(struct ibv_pd *pd_arg, enum ibv_advise_mr_advice advice,
		       uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sges)
{
	called("vctx.advise_mr(pd=%s, advice=%d, flags=%#" PRIx32
	       ", sg_list=%s, num_sges=%" PRIu32 ")",
	       pn(pd_arg), (int)advice, flags, pn(sg_list), num_sges);
	return op_ret;
}

static struct ibv_mr *m_alloc_null_mr(struct ibv_pd *pd_arg)
{
	called("vctx.alloc_null_mr(pd=%s)", pn(pd_arg));
	return &mr_ret;
}

static int m_read_counters(struct ibv_counters *c, uint64_t *counters_value,
			   uint32_t ncounters, uint32_t flags)
{
	called("vctx.read_counters(counters=%s, counters_value=%s, "
	       "ncounters=%" PRIu32 ", flags=%#" PRIx32 ")",
	       pn(c), pn(counters_value), ncounters, flags);
	return op_ret;
}

static int m_attach_counters_point_flow(struct ibv_counters *c,
					struct ibv_counter_attach_attr *attr,
					struct ibv_flow *f)
{
	called("vctx.attach_counters_point_flow(counters=%s, attr=%s, "
	       "flow=%s)",
	       pn(c), pn(attr), pn(f));
	return op_ret;
}

static struct ibv_counters *
m_create_counters(struct ibv_context *context,
		  struct ibv_counters_init_attr *init_attr)
{
	called("vctx.create_counters(context=%s, init_attr=%s)", pn(context),
	       pn(init_attr));
	return &counters_ret;
}

static int m_destroy_counters(struct ibv_counters *c)
{
	called("vctx.destroy_counters(counters=%s)", pn(c));
	return op_ret;
}

static struct ibv_mr *m_reg_dm_mr(struct ibv_pd *pd_arg, struct ibv_dm *dm_arg,
				  uint64_t dm_offset, size_t length,
				  unsigned int access)
{
	called("vctx.reg_dm_mr(pd=%s, dm=%s, dm_offset=%#" PRIx64
	       ", length=%zu, access=%#x)",
	       pn(pd_arg), pn(dm_arg), dm_offset, length, access);
	return &mr_ret;
}

static struct ibv_dm *m_alloc_dm(struct ibv_context *context,
				 struct ibv_alloc_dm_attr *attr)
{
	called("vctx.alloc_dm(context=%s, attr=%s)", pn(context), pn(attr));
	return &dm_ret;
}

static int m_free_dm(struct ibv_dm *dm_arg)
{
	called("vctx.free_dm(dm=%s)", pn(dm_arg));
	return op_ret;
}

static int m_modify_flow_action_esp(struct ibv_flow_action *action,
				    struct ibv_flow_action_esp_attr *attr)
{
	called("vctx.modify_flow_action_esp(action=%s, attr=%s)", pn(action),
	       pn(attr));
	return op_ret;
}

static int m_destroy_flow_action(struct ibv_flow_action *action)
{
	called("vctx.destroy_flow_action(action=%s)", pn(action));
	return op_ret;
}

static struct ibv_flow_action *
m_create_flow_action_esp(struct ibv_context *context,
			 struct ibv_flow_action_esp_attr *attr)
{
	called("vctx.create_flow_action_esp(context=%s, attr=%s)",
	       pn(context), pn(attr));
	return &flow_action_ret;
}

static int m_modify_qp_rate_limit(struct ibv_qp *qp_arg,
				  struct ibv_qp_rate_limit_attr *attr)
{
	called("vctx.modify_qp_rate_limit(qp=%s, attr=%s)", pn(qp_arg),
	       pn(attr));
	return op_ret;
}

static struct ibv_pd *
m_alloc_parent_domain(struct ibv_context *context,
		      struct ibv_parent_domain_init_attr *attr)
{
	called("vctx.alloc_parent_domain(context=%s, attr=%s)", pn(context),
	       pn(attr));
	return &parent_domain_ret;
}

static int m_dealloc_td(struct ibv_td *td_arg)
{
	called("vctx.dealloc_td(td=%s)", pn(td_arg));
	return op_ret;
}

static struct ibv_td *m_alloc_td(struct ibv_context *context,
				 struct ibv_td_init_attr *init_attr)
{
	called("vctx.alloc_td(context=%s, init_attr=%s)", pn(context),
	       pn(init_attr));
	return &td_ret;
}

static int m_modify_cq(struct ibv_cq *cq_arg, struct ibv_modify_cq_attr *attr)
{
	called("vctx.modify_cq(cq=%s, attr=%s)", pn(cq_arg), pn(attr));
	return op_ret;
}

static int m_post_srq_ops(struct ibv_srq *srq_arg, struct ibv_ops_wr *op,
			  struct ibv_ops_wr **bad_op)
{
	called("vctx.post_srq_ops(srq=%s, op=%s, bad_op=%s)", pn(srq_arg),
	       pn(op), pn(bad_op));
	return op_ret;
}

static int m_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t)
{
	called("vctx.destroy_rwq_ind_table(rwq_ind_table=%s)", pn(t));
	return op_ret;
}

static struct ibv_rwq_ind_table *
m_create_rwq_ind_table(struct ibv_context *context,
		       struct ibv_rwq_ind_table_init_attr *init_attr)
{
	called("vctx.create_rwq_ind_table(context=%s, init_attr=%s)",
	       pn(context), pn(init_attr));
	return &rwq_ind_table_ret;
}

static int m_destroy_wq(struct ibv_wq *wq_arg)
{
	called("vctx.destroy_wq(wq=%s)", pn(wq_arg));
	return op_ret;
}

static int m_modify_wq(struct ibv_wq *wq_arg, struct ibv_wq_attr *attr)
{
	called("vctx.modify_wq(wq=%s, wq_attr=%s)", pn(wq_arg), pn(attr));
	return op_ret;
}

/*
 * Returns wq_ret as a provider would: its own members set, the members
 * the library owns (wq_context, events_completed, mutex, cond) left as
 * garbage (0xa5 bytes).
 */
static struct ibv_wq *m_create_wq(struct ibv_context *context,
				  struct ibv_wq_init_attr *init_attr)
{
	called("vctx.create_wq(context=%s, wq_init_attr=%s)", pn(context),
	       pn(init_attr));
	if (create_wq_fails)
		return NULL;
	memset(&wq_ret, 0xa5, sizeof(wq_ret));
	wq_ret.context = context;
	wq_ret.wq_num = 0x77;
	return &wq_ret;
}

static int m_query_rt_values(struct ibv_context *context,
			     struct ibv_values_ex *v)
{
	called("vctx.query_rt_values(context=%s, values=%s)", pn(context),
	       pn(v));
	return op_ret;
}

static struct ibv_cq_ex *m_create_cq_ex(struct ibv_context *context,
					struct ibv_cq_init_attr_ex *init_attr)
{
	called("vctx.create_cq_ex(context=%s, init_attr=%s)", pn(context),
	       pn(init_attr));
	return &cqx_ret;
}

static int m_query_device_ex(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size)
{
	called("vctx.query_device_ex(context=%s, input=%s, attr=%s, "
	       "attr_size=%s)",
	       pn(context), pn(input), pn(attr),
	       size_desc(attr_size, sizeof(struct ibv_device_attr_ex),
			 "struct ibv_device_attr_ex"));
	return op_ret;
}

static int m_destroy_flow(struct ibv_flow *f)
{
	called("vctx.ibv_destroy_flow(flow=%s)", pn(f));
	return op_ret;
}

static struct ibv_flow *m_create_flow(struct ibv_qp *qp_arg,
				      struct ibv_flow_attr *attr)
{
	called("vctx.ibv_create_flow(qp=%s, flow_attr=%s)", pn(qp_arg),
	       pn(attr));
	return &flow_ret;
}

static struct ibv_qp *m_open_qp(struct ibv_context *context,
				struct ibv_qp_open_attr *attr)
{
	called("vctx.open_qp(context=%s, attr=%s)", pn(context), pn(attr));
	return &qp_ret;
}

static struct ibv_qp *m_create_qp_ex(struct ibv_context *context,
				     struct ibv_qp_init_attr_ex *attr)
{
	called("vctx.create_qp_ex(context=%s, qp_init_attr_ex=%s)",
	       pn(context), pn(attr));
	return &qp_ret;
}

static int m_get_srq_num(struct ibv_srq *srq_arg, uint32_t *num)
{
	called("vctx.get_srq_num(srq=%s, srq_num=%s)", pn(srq_arg), pn(num));
	return op_ret;
}

static struct ibv_srq *m_create_srq_ex(struct ibv_context *context,
				       struct ibv_srq_init_attr_ex *attr)
{
	called("vctx.create_srq_ex(context=%s, srq_init_attr_ex=%s)",
	       pn(context), pn(attr));
	return &srq_ret;
}

static struct ibv_xrcd *m_open_xrcd(struct ibv_context *context,
				    struct ibv_xrcd_init_attr *attr)
{
	called("vctx.open_xrcd(context=%s, xrcd_init_attr=%s)", pn(context),
	       pn(attr));
	return &xrcd_ret;
}

static int m_close_xrcd(struct ibv_xrcd *x)
{
	called("vctx.close_xrcd(xrcd=%s)", pn(x));
	return op_ret;
}

/* ----------------------------------------------------- ibv_qp_ex mocks */

static void m_wr_atomic_cmp_swp(struct ibv_qp_ex *q, uint32_t rkey,
				uint64_t remote_addr, uint64_t compare,
				uint64_t swap)
{
	called("qpx.wr_atomic_cmp_swp(qp=%s, rkey=%#" PRIx32
	       ", remote_addr=%#" PRIx64 ", compare=%#" PRIx64
	       ", swap=%#" PRIx64 ")",
	       pn(q), rkey, remote_addr, compare, swap);
}

static void m_wr_atomic_fetch_add(struct ibv_qp_ex *q, uint32_t rkey,
				  uint64_t remote_addr, uint64_t add)
{
	called("qpx.wr_atomic_fetch_add(qp=%s, rkey=%#" PRIx32
	       ", remote_addr=%#" PRIx64 ", add=%#" PRIx64 ")",
	       pn(q), rkey, remote_addr, add);
}

static void m_wr_bind_mw(struct ibv_qp_ex *q, struct ibv_mw *mw_arg,
			 uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	called("qpx.wr_bind_mw(qp=%s, mw=%s, rkey=%#" PRIx32
	       ", bind_info=%s)",
	       pn(q), pn(mw_arg), rkey, pn(info));
}

static void m_wr_local_inv(struct ibv_qp_ex *q, uint32_t invalidate_rkey)
{
	called("qpx.wr_local_inv(qp=%s, invalidate_rkey=%#" PRIx32 ")", pn(q),
	       invalidate_rkey);
}

static void m_wr_rdma_read(struct ibv_qp_ex *q, uint32_t rkey,
			   uint64_t remote_addr)
{
	called("qpx.wr_rdma_read(qp=%s, rkey=%#" PRIx32
	       ", remote_addr=%#" PRIx64 ")",
	       pn(q), rkey, remote_addr);
}

static void m_wr_rdma_write(struct ibv_qp_ex *q, uint32_t rkey,
			    uint64_t remote_addr)
{
	called("qpx.wr_rdma_write(qp=%s, rkey=%#" PRIx32
	       ", remote_addr=%#" PRIx64 ")",
	       pn(q), rkey, remote_addr);
}

static void m_wr_rdma_write_imm(struct ibv_qp_ex *q, uint32_t rkey,
				uint64_t remote_addr, __be32 imm_data)
{
	called("qpx.wr_rdma_write_imm(qp=%s, rkey=%#" PRIx32
	       ", remote_addr=%#" PRIx64 ", imm_data=%#" PRIx32 ")",
	       pn(q), rkey, remote_addr, (uint32_t)imm_data);
}

static void m_wr_send(struct ibv_qp_ex *q)
{
	called("qpx.wr_send(qp=%s)", pn(q));
}

static void m_wr_send_imm(struct ibv_qp_ex *q, __be32 imm_data)
{
	called("qpx.wr_send_imm(qp=%s, imm_data=%#" PRIx32 ")", pn(q),
	       (uint32_t)imm_data);
}

static void m_wr_send_inv(struct ibv_qp_ex *q, uint32_t invalidate_rkey)
{
	called("qpx.wr_send_inv(qp=%s, invalidate_rkey=%#" PRIx32 ")", pn(q),
	       invalidate_rkey);
}

static void m_wr_send_tso(struct ibv_qp_ex *q, void *hdr, uint16_t hdr_sz,
			  uint16_t mss)
{
	called("qpx.wr_send_tso(qp=%s, hdr=%s, hdr_sz=%u, mss=%u)", pn(q),
	       pn(hdr), hdr_sz, mss);
}

static void m_wr_set_ud_addr(struct ibv_qp_ex *q, struct ibv_ah *ah_arg,
			     uint32_t remote_qpn, uint32_t remote_qkey)
{
	called("qpx.wr_set_ud_addr(qp=%s, ah=%s, remote_qpn=%#" PRIx32
	       ", remote_qkey=%#" PRIx32 ")",
	       pn(q), pn(ah_arg), remote_qpn, remote_qkey);
}

static void m_wr_set_xrc_srqn(struct ibv_qp_ex *q, uint32_t remote_srqn)
{
	called("qpx.wr_set_xrc_srqn(qp=%s, remote_srqn=%#" PRIx32 ")", pn(q),
	       remote_srqn);
}

static void m_wr_set_inline_data(struct ibv_qp_ex *q, void *addr,
				 size_t length)
{
	called("qpx.wr_set_inline_data(qp=%s, addr=%s, length=%zu)", pn(q),
	       pn(addr), length);
}

static void m_wr_set_inline_data_list(struct ibv_qp_ex *q, size_t num_buf,
				      const struct ibv_data_buf *buf_list)
{
	called("qpx.wr_set_inline_data_list(qp=%s, num_buf=%zu, buf_list=%s)",
	       pn(q), num_buf, pn(buf_list));
}

static void m_wr_set_sge(struct ibv_qp_ex *q, uint32_t lkey, uint64_t addr,
			 uint32_t length)
{
	called("qpx.wr_set_sge(qp=%s, lkey=%#" PRIx32 ", addr=%#" PRIx64
	       ", length=%" PRIu32 ")",
	       pn(q), lkey, addr, length);
}

static void m_wr_set_sge_list(struct ibv_qp_ex *q, size_t num_sge,
			      const struct ibv_sge *sg_list)
{
	called("qpx.wr_set_sge_list(qp=%s, num_sge=%zu, sg_list=%s)", pn(q),
	       num_sge, pn(sg_list));
}

static void m_wr_start(struct ibv_qp_ex *q)
{
	called("qpx.wr_start(qp=%s)", pn(q));
}

static int m_wr_complete(struct ibv_qp_ex *q)
{
	called("qpx.wr_complete(qp=%s)", pn(q));
	return op_ret;
}

static void m_wr_abort(struct ibv_qp_ex *q)
{
	called("qpx.wr_abort(qp=%s)", pn(q));
}

static void m_wr_atomic_write(struct ibv_qp_ex *q, uint32_t rkey,
			      uint64_t remote_addr, const void *atomic_wr)
{
	called("qpx.wr_atomic_write(qp=%s, rkey=%#" PRIx32
	       ", remote_addr=%#" PRIx64 ", atomic_wr=%s)",
	       pn(q), rkey, remote_addr, pn(atomic_wr));
}

#if INLINE_CHECK_API >= 65
static void m_wr_flush(struct ibv_qp_ex *q, uint32_t rkey,
		       uint64_t remote_addr, size_t len, uint8_t type,
		       uint8_t level)
{
	called("qpx.wr_flush(qp=%s, rkey=%#" PRIx32 ", remote_addr=%#" PRIx64
	       ", len=%zu, type=%u, level=%u)",
	       pn(q), rkey, remote_addr, len, type, level);
}
#endif

/* ----------------------------------------------------- ibv_cq_ex mocks */

static int m_start_poll(struct ibv_cq_ex *c, struct ibv_poll_cq_attr *attr)
{
	called("cqx.start_poll(cq=%s, attr=%s)", pn(c), pn(attr));
	return op_ret;
}

static int m_next_poll(struct ibv_cq_ex *c)
{
	called("cqx.next_poll(cq=%s)", pn(c));
	return op_ret;
}

static void m_end_poll(struct ibv_cq_ex *c)
{
	called("cqx.end_poll(cq=%s)", pn(c));
}

static enum ibv_wc_opcode m_read_opcode(struct ibv_cq_ex *c)
{
	called("cqx.read_opcode(cq=%s)", pn(c));
	return IBV_WC_RECV_RDMA_WITH_IMM;
}

static uint32_t m_read_vendor_err(struct ibv_cq_ex *c)
{
	called("cqx.read_vendor_err(cq=%s)", pn(c));
	return 0xdead;
}

static uint32_t m_read_byte_len(struct ibv_cq_ex *c)
{
	called("cqx.read_byte_len(cq=%s)", pn(c));
	return 4096;
}

static __be32 m_read_imm_data(struct ibv_cq_ex *c)
{
	called("cqx.read_imm_data(cq=%s)", pn(c));
	return (__be32)0x44332211u;
}

static uint32_t m_read_qp_num(struct ibv_cq_ex *c)
{
	called("cqx.read_qp_num(cq=%s)", pn(c));
	return 0x123456;
}

static uint32_t m_read_src_qp(struct ibv_cq_ex *c)
{
	called("cqx.read_src_qp(cq=%s)", pn(c));
	return 0x654321;
}

static unsigned int m_read_wc_flags(struct ibv_cq_ex *c)
{
	called("cqx.read_wc_flags(cq=%s)", pn(c));
	return IBV_WC_GRH | IBV_WC_WITH_IMM;
}

static uint32_t m_read_slid(struct ibv_cq_ex *c)
{
	called("cqx.read_slid(cq=%s)", pn(c));
	return 0xbeef;
}

static uint8_t m_read_sl(struct ibv_cq_ex *c)
{
	called("cqx.read_sl(cq=%s)", pn(c));
	return 7;
}

static uint8_t m_read_dlid_path_bits(struct ibv_cq_ex *c)
{
	called("cqx.read_dlid_path_bits(cq=%s)", pn(c));
	return 0x5a;
}

static uint64_t m_read_completion_ts(struct ibv_cq_ex *c)
{
	called("cqx.read_completion_ts(cq=%s)", pn(c));
	return 0x0102030405060708ull;
}

static uint16_t m_read_cvlan(struct ibv_cq_ex *c)
{
	called("cqx.read_cvlan(cq=%s)", pn(c));
	return 0x0fed;
}

static uint32_t m_read_flow_tag(struct ibv_cq_ex *c)
{
	called("cqx.read_flow_tag(cq=%s)", pn(c));
	return 0xabcdef;
}

static void m_read_tm_info(struct ibv_cq_ex *c, struct ibv_wc_tm_info *info)
{
	called("cqx.read_tm_info(cq=%s, tm_info=%s)", pn(c), pn(info));
	info->tag = 0x1122334455667788ull;
	info->priv = 0x99;
}

static uint64_t m_read_completion_wallclock_ns(struct ibv_cq_ex *c)
{
	called("cqx.read_completion_wallclock_ns(cq=%s)", pn(c));
	return 0x8877665544332211ull;
}

/* -------------------------------------------------- other object mocks */

static int m_wq_post_recv(struct ibv_wq *w, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	called("wq.post_recv(wq=%s, recv_wr=%s, bad_recv_wr=%s)", pn(w),
	       pn(wr), pn(bad));
	return op_ret;
}

static int m_memcpy_to_dm(struct ibv_dm *d, uint64_t dm_offset,
			  const void *host_addr, size_t length)
{
	called("dm.memcpy_to_dm(dm=%s, dm_offset=%#" PRIx64
	       ", host_addr=%s, length=%zu)",
	       pn(d), dm_offset, pn(host_addr), length);
	return op_ret;
}

static int m_memcpy_from_dm(void *host_addr, struct ibv_dm *d,
			    uint64_t dm_offset, size_t length)
{
	called("dm.memcpy_from_dm(host_addr=%s, dm=%s, dm_offset=%#" PRIx64
	       ", length=%zu)",
	       pn(host_addr), pn(d), dm_offset, length);
	return op_ret;
}

/* ------------------------------------------------------------- set-up */

/* The context as a provider of the header's own release leaves it. */
static void install_context(void)
{
	struct ibv_context_ops *o = &ctx->ops;

	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx->sz = sizeof(*vctx);

	o->alloc_mw = m_alloc_mw;
	o->bind_mw = m_bind_mw;
	o->dealloc_mw = m_dealloc_mw;
	o->poll_cq = m_poll_cq;
	o->req_notify_cq = m_req_notify_cq;
	o->post_srq_recv = m_post_srq_recv;
	o->post_send = m_post_send;
	o->post_recv = m_post_recv;

	vctx->query_port = m_query_port;
	vctx->advise_mr = m_advise_mr;
	vctx->alloc_null_mr = m_alloc_null_mr;
	vctx->read_counters = m_read_counters;
	vctx->attach_counters_point_flow = m_attach_counters_point_flow;
	vctx->create_counters = m_create_counters;
	vctx->destroy_counters = m_destroy_counters;
	vctx->reg_dm_mr = m_reg_dm_mr;
	vctx->alloc_dm = m_alloc_dm;
	vctx->free_dm = m_free_dm;
	vctx->modify_flow_action_esp = m_modify_flow_action_esp;
	vctx->destroy_flow_action = m_destroy_flow_action;
	vctx->create_flow_action_esp = m_create_flow_action_esp;
	vctx->modify_qp_rate_limit = m_modify_qp_rate_limit;
	vctx->alloc_parent_domain = m_alloc_parent_domain;
	vctx->dealloc_td = m_dealloc_td;
	vctx->alloc_td = m_alloc_td;
	vctx->modify_cq = m_modify_cq;
	vctx->post_srq_ops = m_post_srq_ops;
	vctx->destroy_rwq_ind_table = m_destroy_rwq_ind_table;
	vctx->create_rwq_ind_table = m_create_rwq_ind_table;
	vctx->destroy_wq = m_destroy_wq;
	vctx->modify_wq = m_modify_wq;
	vctx->create_wq = m_create_wq;
	vctx->query_rt_values = m_query_rt_values;
	vctx->create_cq_ex = m_create_cq_ex;
	vctx->query_device_ex = m_query_device_ex;
	vctx->ibv_destroy_flow = m_destroy_flow;
	vctx->ibv_create_flow = m_create_flow;
	vctx->open_qp = m_open_qp;
	vctx->create_qp_ex = m_create_qp_ex;
	vctx->get_srq_num = m_get_srq_num;
	vctx->create_srq_ex = m_create_srq_ex;
	vctx->open_xrcd = m_open_xrcd;
	vctx->close_xrcd = m_close_xrcd;

	op_ret = 1234;
	lib_ret = 3;
	create_wq_fails = 0;
}

static void install_qpx(void)
{
	qpx.wr_atomic_cmp_swp = m_wr_atomic_cmp_swp;
	qpx.wr_atomic_fetch_add = m_wr_atomic_fetch_add;
	qpx.wr_bind_mw = m_wr_bind_mw;
	qpx.wr_local_inv = m_wr_local_inv;
	qpx.wr_rdma_read = m_wr_rdma_read;
	qpx.wr_rdma_write = m_wr_rdma_write;
	qpx.wr_rdma_write_imm = m_wr_rdma_write_imm;
	qpx.wr_send = m_wr_send;
	qpx.wr_send_imm = m_wr_send_imm;
	qpx.wr_send_inv = m_wr_send_inv;
	qpx.wr_send_tso = m_wr_send_tso;
	qpx.wr_set_ud_addr = m_wr_set_ud_addr;
	qpx.wr_set_xrc_srqn = m_wr_set_xrc_srqn;
	qpx.wr_set_inline_data = m_wr_set_inline_data;
	qpx.wr_set_inline_data_list = m_wr_set_inline_data_list;
	qpx.wr_set_sge = m_wr_set_sge;
	qpx.wr_set_sge_list = m_wr_set_sge_list;
	qpx.wr_start = m_wr_start;
	qpx.wr_complete = m_wr_complete;
	qpx.wr_abort = m_wr_abort;
	qpx.wr_atomic_write = m_wr_atomic_write;
#if INLINE_CHECK_API >= 65
	qpx.wr_flush = m_wr_flush;
#endif
}

static void install_cqx(void)
{
	cqx.context = ctx;
	cqx.start_poll = m_start_poll;
	cqx.next_poll = m_next_poll;
	cqx.end_poll = m_end_poll;
	cqx.read_opcode = m_read_opcode;
	cqx.read_vendor_err = m_read_vendor_err;
	cqx.read_byte_len = m_read_byte_len;
	cqx.read_imm_data = m_read_imm_data;
	cqx.read_qp_num = m_read_qp_num;
	cqx.read_src_qp = m_read_src_qp;
	cqx.read_wc_flags = m_read_wc_flags;
	cqx.read_slid = m_read_slid;
	cqx.read_sl = m_read_sl;
	cqx.read_dlid_path_bits = m_read_dlid_path_bits;
	cqx.read_completion_ts = m_read_completion_ts;
	cqx.read_cvlan = m_read_cvlan;
	cqx.read_flow_tag = m_read_flow_tag;
	cqx.read_tm_info = m_read_tm_info;
	cqx.read_completion_wallclock_ns = m_read_completion_wallclock_ns;
}

#define REG(obj) reg(&(obj), sizeof(obj), #obj)

static void build_objects(void)
{
	vctx = (struct verbs_context *)calloc(1, sizeof(*vctx));
	if (vctx == NULL) {
		perror("calloc");
		exit(2);
	}
	ctx = &vctx->context;
	reg(ctx, sizeof(*ctx), "ctx");
	reg(vctx, sizeof(*vctx), "vctx");

	pd.context = ctx;
	other_pd.context = ctx;
	qp.context = ctx;
	qpx.qp_base.context = ctx;
	cq.context = ctx;
	srq.context = ctx;
	wq.context = ctx;
	wq.post_recv = m_wq_post_recv;
	mw.context = ctx;
	mw.pd = &pd;
	mr.context = ctx;
	mr.pd = &pd;
	mr_other_pd.context = ctx;
	mr_other_pd.pd = &other_pd;
	dm.context = ctx;
	dm.memcpy_to_dm = m_memcpy_to_dm;
	dm.memcpy_from_dm = m_memcpy_from_dm;
	flow.context = ctx;
	flow_action.context = ctx;
	xrcd.context = ctx;
	td.context = ctx;
	counters.context = ctx;
	rwq_ind_table.context = ctx;
	wq_attr.wq_context = &wq_user_context;
	install_context();
	install_qpx();
	install_cqx();

	REG(pd); REG(other_pd); REG(qp); REG(qpx); REG(cq); REG(cqx);
	REG(srq); REG(wq); REG(mw); REG(mr); REG(mr_other_pd); REG(dm);
	REG(ah); REG(flow); REG(flow_action); REG(xrcd); REG(td);
	REG(counters); REG(rwq_ind_table); REG(device_list);
	REG(mw_ret); REG(mr_ret); REG(cqx_ret); REG(srq_ret); REG(qp_ret);
	REG(parent_domain_ret); REG(td_ret); REG(xrcd_ret); REG(flow_ret);
	REG(flow_action_ret); REG(dm_ret); REG(counters_ret);
	REG(rwq_ind_table_ret); REG(wq_ret);
	REG(send_wr); REG(bad_send_wr); REG(recv_wr); REG(bad_recv_wr);
	REG(ops_wr); REG(bad_ops_wr); REG(wc); REG(sge); REG(data_buf);
	REG(mw_bind); REG(mw_bind_info); REG(flow_attr); REG(esp_attr);
	REG(xrcd_attr); REG(td_attr); REG(pd_attr); REG(dm_attr);
	REG(cq_attr); REG(modify_cq_attr); REG(poll_attr); REG(tm_info);
	REG(srq_attr); REG(qp_attr); REG(qp_open_attr); REG(rate_attr);
	REG(values); REG(dev_input); REG(wq_attr); REG(wq_mod_attr);
	REG(ind_attr); REG(counters_attr); REG(counter_attach_attr);
	REG(gid_entries); REG(counter_values); REG(srq_num); REG(mr_buf);
	REG(host_buf); REG(tso_hdr); REG(atomic_buf); REG(wq_user_context);
	REG(num_devices);
	reg(&port_buf.attr, sizeof(port_buf.attr), "port_attr");
	reg(&dev_buf.attr, sizeof(dev_buf.attr), "device_attr_ex");
	reg(&verbs_provider_mlx5, sizeof(verbs_provider_mlx5), "mlx5");
	reg(&verbs_provider_rxe, sizeof(verbs_provider_rxe), "rxe");
	reg(&verbs_provider_none, sizeof(verbs_provider_none), "none");
#if INLINE_CHECK_API >= 65
	REG(comp_cntr_caps);
#endif
}

/*
 * The five set-ups of a verbs_context entry point, op_off being its
 * offset. need is the number of bytes from the entry point to the end of
 * struct verbs_context: the least sz a provider must give to have it.
 */
enum {
	V_PROVIDED,
	V_OP_NULL,
	V_SZ_SHORT,
	V_SZ_EXACT,
	V_NOT_EXTENDED,
	V_COUNT
};

static void variant(const char *what, int v, size_t op_off)
{
	size_t need = sizeof(struct verbs_context) - op_off;
	void (*nothing)(void) = NULL;

	install_context();
	switch (v) {
	case V_PROVIDED:
		heading("%s [entry point provided]", what);
		break;
	case V_OP_NULL:
		memcpy((char *)vctx + op_off, &nothing, sizeof(nothing));
		heading("%s [entry point NULL]", what);
		break;
	case V_SZ_SHORT:
		vctx->sz = need - 1;
		heading("%s [sz one short of %zu]", what, need);
		break;
	case V_SZ_EXACT:
		vctx->sz = need;
		heading("%s [sz exactly %zu]", what, need);
		break;
	case V_NOT_EXTENDED:
		ctx->abi_compat = NULL;
		heading("%s [context not extended]", what);
		break;
	}
}

#define EACH_VARIANT(what, op)                                                 \
	for (int v_ = 0;                                                       \
	     v_ < V_COUNT &&                                                   \
	     (variant(what, v_, offsetof(struct verbs_context, op)), 1);       \
	     v_++)

/* ------------------------------------------------------------- checks */

static int ctx_evaluations;

static struct ibv_context *counted_ctx(void)
{
	ctx_evaluations++;
	return ctx;
}

static void check_macros(void)
{
	heading("macros defined");
#ifdef vext_field_avail
	called("vext_field_avail");
#endif
#ifdef __VERBS_ABI_IS_EXTENDED
	called("__VERBS_ABI_IS_EXTENDED");
#endif
#ifdef IBV_ALLOCATOR_USE_DEFAULT
	called("IBV_ALLOCATOR_USE_DEFAULT");
#endif
#ifdef verbs_get_ctx_op
	called("verbs_get_ctx_op");
#endif
#ifdef ibv_query_port
	called("ibv_query_port");
#endif
#ifdef ibv_reg_mr
	called("ibv_reg_mr");
#endif
#ifdef ibv_reg_mr_iova
	called("ibv_reg_mr_iova");
#endif
#ifdef ibv_get_device_list
	called("ibv_get_device_list");
#endif
#ifdef _RDMA_STATIC_PREFIX
	called("_RDMA_STATIC_PREFIX");
#endif
#ifdef _RDMA_STATIC_PREFIX_
	called("_RDMA_STATIC_PREFIX_");
#endif
#ifdef __attribute_const
	called("__attribute_const (left defined)");
#endif

	heading("__VERBS_ABI_IS_EXTENDED");
	printf("  value %#" PRIxPTR ", all ones %d\n",
	       (uintptr_t)__VERBS_ABI_IS_EXTENDED,
	       (uintptr_t)__VERBS_ABI_IS_EXTENDED == UINTPTR_MAX);
#ifdef __cplusplus
	/* verbs.h brings <limits> to C++ code. */
	printf("  std::numeric_limits<int>::max() %d\n",
	       std::numeric_limits<int>::max());
#endif

	heading("IBV_ALLOCATOR_USE_DEFAULT");
	printf("  value %" PRIdPTR "\n", (intptr_t)IBV_ALLOCATOR_USE_DEFAULT);

	heading("vext_field_avail");
	{
		size_t o = offsetof(struct ibv_device_attr_ex, comp_mask);
		size_t p = offsetof(struct ibv_device_attr_ex, odp_caps);

		printf("  comp_mask at its offset %d, one past %d\n",
		       (int)vext_field_avail(struct ibv_device_attr_ex,
					     comp_mask, o),
		       (int)vext_field_avail(struct ibv_device_attr_ex,
					     comp_mask, o + 1));
		printf("  odp_caps at its offset %d, one past %d, zero %d\n",
		       (int)vext_field_avail(struct ibv_device_attr_ex,
					     odp_caps, p),
		       (int)vext_field_avail(struct ibv_device_attr_ex,
					     odp_caps, p + 1),
		       (int)vext_field_avail(struct ibv_device_attr_ex,
					     odp_caps, 0));
	}
}

static void check_verbs_get_ctx(void)
{
	install_context();
	heading("verbs_get_ctx [extended]");
	RESULT_PTR(verbs_get_ctx(ctx));
	heading("verbs_get_ctx [abi_compat NULL]");
	ctx->abi_compat = NULL;
	RESULT_PTR(verbs_get_ctx(ctx));
	heading("verbs_get_ctx [abi_compat another pointer]");
	ctx->abi_compat = &pd;
	RESULT_PTR(verbs_get_ctx(ctx));
	install_context();

	EACH_VARIANT("verbs_get_ctx_op(query_port)", query_port)
		RESULT_PTR(verbs_get_ctx_op(ctx, query_port));
	EACH_VARIANT("verbs_get_ctx_op(close_xrcd)", close_xrcd)
		RESULT_PTR(verbs_get_ctx_op(ctx, close_xrcd));
	EACH_VARIANT("verbs_get_ctx_op(ibv_create_flow)", ibv_create_flow)
		RESULT_PTR(verbs_get_ctx_op(ctx, ibv_create_flow));

	install_context();
	heading("verbs_get_ctx_op evaluates its context once");
	ctx_evaluations = 0;
	RESULT_PTR(verbs_get_ctx_op(counted_ctx(), alloc_td));
	printf("  evaluations %d\n", ctx_evaluations);
}

static void check_qp_ex(void)
{
	heading("ibv_wr_start");
	RESULT_VOID(ibv_wr_start(&qpx));
	heading("ibv_wr_complete");
	RESULT_INT(ibv_wr_complete(&qpx));
	heading("ibv_wr_abort");
	RESULT_VOID(ibv_wr_abort(&qpx));
	heading("ibv_wr_atomic_cmp_swp");
	RESULT_VOID(ibv_wr_atomic_cmp_swp(&qpx, 0x1001, 0x2000000000000002ull,
					  0x3000000000000003ull,
					  0x4000000000000004ull));
	heading("ibv_wr_atomic_fetch_add");
	RESULT_VOID(ibv_wr_atomic_fetch_add(&qpx, 0x1002, 0x2000000000000012ull,
					    0x5000000000000005ull));
	heading("ibv_wr_atomic_write");
	RESULT_VOID(ibv_wr_atomic_write(&qpx, 0x1003, 0x2000000000000022ull,
					atomic_buf));
	heading("ibv_wr_bind_mw");
	RESULT_VOID(ibv_wr_bind_mw(&qpx, &mw, 0x1004, &mw_bind_info));
	heading("ibv_wr_local_inv");
	RESULT_VOID(ibv_wr_local_inv(&qpx, 0x1005));
	heading("ibv_wr_rdma_read");
	RESULT_VOID(ibv_wr_rdma_read(&qpx, 0x1006, 0x2000000000000032ull));
	heading("ibv_wr_rdma_write");
	RESULT_VOID(ibv_wr_rdma_write(&qpx, 0x1007, 0x2000000000000042ull));
	heading("ibv_wr_rdma_write_imm");
	RESULT_VOID(ibv_wr_rdma_write_imm(&qpx, 0x1008, 0x2000000000000052ull,
					  (__be32)0xa1b2c3d4u));
#if INLINE_CHECK_API >= 65
	heading("ibv_wr_flush");
	RESULT_VOID(ibv_wr_flush(&qpx, 0x1009, 0x2000000000000062ull,
				 (size_t)0x123456789ull, IBV_FLUSH_PERSISTENT,
				 IBV_FLUSH_MR));
#endif
	heading("ibv_wr_send");
	RESULT_VOID(ibv_wr_send(&qpx));
	heading("ibv_wr_send_imm");
	RESULT_VOID(ibv_wr_send_imm(&qpx, (__be32)0xb1c2d3e4u));
	heading("ibv_wr_send_inv");
	RESULT_VOID(ibv_wr_send_inv(&qpx, 0x100a));
	heading("ibv_wr_send_tso");
	RESULT_VOID(ibv_wr_send_tso(&qpx, tso_hdr, 14, 1460));
	heading("ibv_wr_set_ud_addr");
	RESULT_VOID(ibv_wr_set_ud_addr(&qpx, &ah, 0xabcdef, 0x11111111));
	heading("ibv_wr_set_xrc_srqn");
	RESULT_VOID(ibv_wr_set_xrc_srqn(&qpx, 0x100b));
	heading("ibv_wr_set_inline_data");
	RESULT_VOID(ibv_wr_set_inline_data(&qpx, host_buf, 48));
	heading("ibv_wr_set_inline_data_list");
	RESULT_VOID(ibv_wr_set_inline_data_list(&qpx, 2, data_buf));
	heading("ibv_wr_set_sge");
	RESULT_VOID(ibv_wr_set_sge(&qpx, 0x100c, 0x7000000000000007ull, 4097));
	heading("ibv_wr_set_sge_list");
	RESULT_VOID(ibv_wr_set_sge_list(&qpx, 2, sge));
}

static void check_cq_ex(void)
{
	heading("ibv_cq_ex_to_cq");
	RESULT_PTR(ibv_cq_ex_to_cq(&cqx));
	heading("ibv_start_poll");
	RESULT_INT(ibv_start_poll(&cqx, &poll_attr));
	heading("ibv_next_poll");
	op_ret = ENOENT;
	RESULT_INT(ibv_next_poll(&cqx));
	op_ret = 1234;
	heading("ibv_end_poll");
	RESULT_VOID(ibv_end_poll(&cqx));
	heading("ibv_wc_read_opcode");
	RESULT_INT(ibv_wc_read_opcode(&cqx));
	heading("ibv_wc_read_vendor_err");
	RESULT_HEX(ibv_wc_read_vendor_err(&cqx));
	heading("ibv_wc_read_byte_len");
	RESULT_INT(ibv_wc_read_byte_len(&cqx));
	heading("ibv_wc_read_imm_data");
	RESULT_HEX(ibv_wc_read_imm_data(&cqx));
	heading("ibv_wc_read_invalidated_rkey");
	RESULT_HEX(ibv_wc_read_invalidated_rkey(&cqx));
	heading("ibv_wc_read_qp_num");
	RESULT_HEX(ibv_wc_read_qp_num(&cqx));
	heading("ibv_wc_read_src_qp");
	RESULT_HEX(ibv_wc_read_src_qp(&cqx));
	heading("ibv_wc_read_wc_flags");
	RESULT_HEX(ibv_wc_read_wc_flags(&cqx));
	heading("ibv_wc_read_slid");
	RESULT_HEX(ibv_wc_read_slid(&cqx));
	heading("ibv_wc_read_sl");
	RESULT_INT(ibv_wc_read_sl(&cqx));
	heading("ibv_wc_read_dlid_path_bits");
	RESULT_HEX(ibv_wc_read_dlid_path_bits(&cqx));
	heading("ibv_wc_read_completion_ts");
	RESULT_HEX(ibv_wc_read_completion_ts(&cqx));
	heading("ibv_wc_read_completion_wallclock_ns");
	RESULT_HEX(ibv_wc_read_completion_wallclock_ns(&cqx));
	heading("ibv_wc_read_cvlan");
	RESULT_HEX(ibv_wc_read_cvlan(&cqx));
	heading("ibv_wc_read_flow_tag");
	RESULT_HEX(ibv_wc_read_flow_tag(&cqx));
	heading("ibv_wc_read_tm_info");
	memset(&tm_info, 0, sizeof(tm_info));
	RESULT_VOID(ibv_wc_read_tm_info(&cqx, &tm_info));
	printf("  tm_info tag %#" PRIx64 " priv %#" PRIx32 "\n", tm_info.tag,
	       tm_info.priv);
}

static void check_static_providers(void)
{
	heading("ibv_get_device_list with RDMA_STATIC_PROVIDERS=mlx5,rxe");
	num_devices = -1;
	RESULT_PTR(ibv_get_device_list(&num_devices));
	printf("  num_devices %d\n", num_devices);
	heading("__ibv_get_device_list(NULL)");
	RESULT_PTR(__ibv_get_device_list(NULL));
}

static void check_ports_and_gids(void)
{
	EACH_VARIANT("ibv_query_port", query_port) {
		memset(&port_buf, 0xa5, sizeof(port_buf));
		RESULT_INT(ibv_query_port(ctx, 2, &port_buf.attr));
	}
	install_context();
	heading("___ibv_query_port [entry point provided]");
	RESULT_INT(___ibv_query_port(ctx, 3, &port_buf.attr));

	heading("ibv_query_gid_ex");
	RESULT_INT(ibv_query_gid_ex(ctx, 1, 5, &gid_entries[1], 0x10));
	heading("ibv_query_gid_table");
	RESULT_INT(ibv_query_gid_table(ctx, gid_entries, 4, 0x20));
}

static void check_flows(void)
{
	EACH_VARIANT("ibv_create_flow", ibv_create_flow)
		RESULT_PTR(ibv_create_flow(&qp, &flow_attr));
	EACH_VARIANT("ibv_destroy_flow", ibv_destroy_flow)
		RESULT_INT(ibv_destroy_flow(&flow));
	EACH_VARIANT("ibv_create_flow_action_esp", create_flow_action_esp)
		RESULT_PTR(ibv_create_flow_action_esp(ctx, &esp_attr));
	EACH_VARIANT("ibv_modify_flow_action_esp", modify_flow_action_esp)
		RESULT_INT(ibv_modify_flow_action_esp(&flow_action, &esp_attr));
	EACH_VARIANT("ibv_destroy_flow_action", destroy_flow_action)
		RESULT_INT(ibv_destroy_flow_action(&flow_action));
}

static void check_xrcd(void)
{
	EACH_VARIANT("ibv_open_xrcd", open_xrcd)
		RESULT_PTR(ibv_open_xrcd(ctx, &xrcd_attr));
	install_context();
	heading("ibv_close_xrcd");
	RESULT_INT(ibv_close_xrcd(&xrcd));
	heading("ibv_close_xrcd [sz 0, which it does not check]");
	vctx->sz = 0;
	RESULT_INT(ibv_close_xrcd(&xrcd));
	install_context();
}

/* Access flags the compiler cannot see. */
static volatile int runtime_access;

static void check_reg_mr(void)
{
	int access;

	install_context();
	heading("ibv_reg_mr [constant, no optional bit]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 4096,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ));
	heading("ibv_reg_mr [constant 0]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 1, 0));
	heading("ibv_reg_mr [constant with IBV_ACCESS_RELAXED_ORDERING]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 4096,
			      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_RELAXED_ORDERING));
	heading("ibv_reg_mr [constant with the last optional bit]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 8192, 1 << 29));
	heading("ibv_reg_mr [constant with bit 30, above the optional range]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 8192, 1 << 30));
	heading("ibv_reg_mr [constant with bit 19, below the optional range]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 8192, 1 << 19));
	heading("ibv_reg_mr [constant unsigned 0x80000000]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 8192, 0x80000000u));

	runtime_access = IBV_ACCESS_LOCAL_WRITE;
	access = runtime_access;
	heading("ibv_reg_mr [run-time flags, no optional bit]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 4096, access));
	runtime_access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_RELAXED_ORDERING;
	access = runtime_access;
	heading("ibv_reg_mr [run-time flags with an optional bit]");
	RESULT_PTR(ibv_reg_mr(&pd, mr_buf, 4096, access));

	heading("ibv_reg_mr_iova [constant, no optional bit]");
	RESULT_PTR(ibv_reg_mr_iova(&pd, mr_buf, 4096, 0x7000,
				   IBV_ACCESS_LOCAL_WRITE));
	heading("ibv_reg_mr_iova [constant with IBV_ACCESS_RELAXED_ORDERING]");
	RESULT_PTR(ibv_reg_mr_iova(&pd, mr_buf, 4096, 0x7000,
				   IBV_ACCESS_RELAXED_ORDERING));
	heading("ibv_reg_mr_iova [constant unsigned 0x80000000]");
	RESULT_PTR(ibv_reg_mr_iova(&pd, mr_buf, 4096, 0x7000, 0x80000000u));
	runtime_access = IBV_ACCESS_REMOTE_ATOMIC;
	access = runtime_access;
	heading("ibv_reg_mr_iova [run-time flags, no optional bit]");
	RESULT_PTR(ibv_reg_mr_iova(&pd, mr_buf, 4096, 0xffffffffffff0000ull,
				   access));
	runtime_access = IBV_ACCESS_RELAXED_ORDERING;
	access = runtime_access;
	heading("ibv_reg_mr_iova [run-time flags with an optional bit]");
	RESULT_PTR(ibv_reg_mr_iova(&pd, mr_buf, 4096, 0x7000, access));

	heading("__ibv_reg_mr [flags said constant]");
	RESULT_PTR(__ibv_reg_mr(&pd, mr_buf, 16, IBV_ACCESS_LOCAL_WRITE, 1));
	heading("__ibv_reg_mr [flags said not constant]");
	RESULT_PTR(__ibv_reg_mr(&pd, mr_buf, 16, IBV_ACCESS_LOCAL_WRITE, 0));
	heading("__ibv_reg_mr_iova [flags said constant]");
	RESULT_PTR(__ibv_reg_mr_iova(&pd, mr_buf, 16, 0x9000,
				     IBV_ACCESS_LOCAL_WRITE, 1));
	heading("__ibv_reg_mr_iova [flags said not constant]");
	RESULT_PTR(__ibv_reg_mr_iova(&pd, mr_buf, 16, 0x9000,
				     IBV_ACCESS_LOCAL_WRITE, 0));
}

static void check_mw(void)
{
	static const uint32_t rkeys[] = { 0, 1, 0xfe, 0xff, 0x100,
					  0x12345678, 0xabcdefff, 0xffffffff };
	size_t i;

	install_context();
	heading("ibv_alloc_mw [entry point provided]");
	RESULT_PTR(ibv_alloc_mw(&pd, IBV_MW_TYPE_2));
	heading("ibv_alloc_mw [entry point NULL]");
	ctx->ops.alloc_mw = NULL;
	RESULT_PTR(ibv_alloc_mw(&pd, IBV_MW_TYPE_1));
	install_context();
	heading("ibv_alloc_mw [context not extended]");
	ctx->abi_compat = NULL;
	RESULT_PTR(ibv_alloc_mw(&pd, IBV_MW_TYPE_1));
	install_context();
	heading("ibv_dealloc_mw");
	RESULT_INT(ibv_dealloc_mw(&mw));

	heading("ibv_inc_rkey");
	for (i = 0; i < sizeof(rkeys) / sizeof(rkeys[0]); i++)
		printf("  %#" PRIx32 " -> %#" PRIx32 "\n", rkeys[i],
		       ibv_inc_rkey(rkeys[i]));

	struct bind_case {
		const char *name;
		enum ibv_mw_type type;
		struct ibv_mr *mr;
		uint64_t addr, length;
	} cases[] = {
		{ "type 2", IBV_MW_TYPE_2, &mr, 0x1000, 0x100 },
		{ "type 2 without MR", IBV_MW_TYPE_2, NULL, 0, 0 },
		{ "type 2, MR of another PD", IBV_MW_TYPE_2, &mr_other_pd, 0,
		  0 },
		{ "type 1, MR of the window's PD", IBV_MW_TYPE_1, &mr, 0x1000,
		  0x100 },
		{ "type 1, MR of another PD", IBV_MW_TYPE_1, &mr_other_pd,
		  0x1000, 0x100 },
		{ "type 1 unbind", IBV_MW_TYPE_1, NULL, 0, 0 },
		{ "type 1 unbind with an address", IBV_MW_TYPE_1, NULL, 0x1000,
		  0 },
		{ "type 1 unbind with a length", IBV_MW_TYPE_1, NULL, 0, 1 },
	};
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		heading("ibv_bind_mw [%s]", cases[i].name);
		mw.type = cases[i].type;
		mw_bind.bind_info.mr = cases[i].mr;
		mw_bind.bind_info.addr = cases[i].addr;
		mw_bind.bind_info.length = cases[i].length;
		RESULT_INT(ibv_bind_mw(&qp, &mw, &mw_bind));
	}
}

static void check_mr_and_dm(void)
{
	EACH_VARIANT("ibv_advise_mr", advise_mr)
		RESULT_INT(ibv_advise_mr(&pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					 IBV_ADVISE_MR_FLAG_FLUSH, sge, 2));
	EACH_VARIANT("ibv_alloc_dm", alloc_dm)
		RESULT_PTR(ibv_alloc_dm(ctx, &dm_attr));
	EACH_VARIANT("ibv_free_dm", free_dm)
		RESULT_INT(ibv_free_dm(&dm));
	install_context();
	heading("ibv_memcpy_to_dm");
	RESULT_INT(ibv_memcpy_to_dm(&dm, 0x40, host_buf, 32));
	heading("ibv_memcpy_from_dm");
	RESULT_INT(ibv_memcpy_from_dm(host_buf, &dm, 0x80, 16));
	EACH_VARIANT("ibv_alloc_null_mr", alloc_null_mr)
		RESULT_PTR(ibv_alloc_null_mr(&pd));
	EACH_VARIANT("ibv_reg_dm_mr", reg_dm_mr)
		RESULT_PTR(ibv_reg_dm_mr(&pd, &dm, 0x100, 512,
					 IBV_ACCESS_ZERO_BASED |
						 IBV_ACCESS_LOCAL_WRITE));
}

static void check_cq(void)
{
	EACH_VARIANT("ibv_create_cq_ex", create_cq_ex)
		RESULT_PTR(ibv_create_cq_ex(ctx, &cq_attr));
	install_context();
	heading("ibv_poll_cq");
	op_ret = 2;
	RESULT_INT(ibv_poll_cq(&cq, 4, wc));
	op_ret = -1;
	RESULT_INT(ibv_poll_cq(&cq, 0, wc));
	install_context();
	heading("ibv_req_notify_cq");
	RESULT_INT(ibv_req_notify_cq(&cq, 0));
	RESULT_INT(ibv_req_notify_cq(&cq, 1));
	EACH_VARIANT("ibv_modify_cq", modify_cq)
		RESULT_INT(ibv_modify_cq(&cq, &modify_cq_attr));
#if INLINE_CHECK_API >= 65
	install_context();
	heading("ibv_query_comp_cntr_caps");
	RESULT_INT(ibv_query_comp_cntr_caps(ctx, &comp_cntr_caps));
#endif
}

static void check_srq(void)
{
	struct srq_case {
		const char *name;
		uint32_t mask;
		enum ibv_srq_type type;
	} cases[] = {
		{ "PD", IBV_SRQ_INIT_ATTR_PD, IBV_SRQT_XRC },
		{ "PD|TYPE basic", IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
		  IBV_SRQT_BASIC },
		{ "PD|TYPE xrc", IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
		  IBV_SRQT_XRC },
		{ "PD|TYPE tm", IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
		  IBV_SRQT_TM },
		{ "TYPE basic", IBV_SRQ_INIT_ATTR_TYPE, IBV_SRQT_BASIC },
		{ "0", 0, IBV_SRQT_BASIC },
		{ "PD|XRCD", IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD,
		  IBV_SRQT_BASIC },
		{ "PD|CQ", IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ,
		  IBV_SRQT_BASIC },
		{ "PD|TM", IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TM,
		  IBV_SRQT_BASIC },
		{ "PD|bit 31", IBV_SRQ_INIT_ATTR_PD | 0x80000000u,
		  IBV_SRQT_BASIC },
	};
	size_t i;

	srq_attr.pd = &pd;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		install_context();
		heading("ibv_create_srq_ex [comp_mask %s]", cases[i].name);
		srq_attr.comp_mask = cases[i].mask;
		srq_attr.srq_type = cases[i].type;
		RESULT_PTR(ibv_create_srq_ex(ctx, &srq_attr));
	}
	srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
	srq_attr.srq_type = IBV_SRQT_XRC;
	EACH_VARIANT("ibv_create_srq_ex [PD|TYPE xrc]", create_srq_ex)
		RESULT_PTR(ibv_create_srq_ex(ctx, &srq_attr));
	srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	EACH_VARIANT("ibv_create_srq_ex [PD]", create_srq_ex)
		RESULT_PTR(ibv_create_srq_ex(ctx, &srq_attr));

	EACH_VARIANT("ibv_get_srq_num", get_srq_num)
		RESULT_INT(ibv_get_srq_num(&srq, &srq_num));
	install_context();
	heading("ibv_post_srq_recv");
	RESULT_INT(ibv_post_srq_recv(&srq, &recv_wr, &bad_recv_wr));
	EACH_VARIANT("ibv_post_srq_ops", post_srq_ops) {
		bad_ops_wr = NULL;
		RESULT_INT(ibv_post_srq_ops(&srq, &ops_wr, &bad_ops_wr));
		printf("  bad_op %s\n", pn(bad_ops_wr));
	}
}

static void check_qp(void)
{
	static const struct {
		const char *name;
		uint32_t mask;
	} cases[] = {
		{ "PD", IBV_QP_INIT_ATTR_PD },
		{ "0", 0 },
		{ "XRCD", IBV_QP_INIT_ATTR_XRCD },
		{ "PD|CREATE_FLAGS",
		  IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS },
		{ "PD|SEND_OPS_FLAGS",
		  IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS },
		{ "PD|bit 31", IBV_QP_INIT_ATTR_PD | 0x80000000u },
	};
	size_t i;

	qp_attr.pd = &pd;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		install_context();
		heading("ibv_create_qp_ex [comp_mask %s]", cases[i].name);
		qp_attr.comp_mask = cases[i].mask;
		RESULT_PTR(ibv_create_qp_ex(ctx, &qp_attr));
	}
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	EACH_VARIANT("ibv_create_qp_ex [PD|SEND_OPS_FLAGS]", create_qp_ex)
		RESULT_PTR(ibv_create_qp_ex(ctx, &qp_attr));
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	EACH_VARIANT("ibv_create_qp_ex [PD]", create_qp_ex)
		RESULT_PTR(ibv_create_qp_ex(ctx, &qp_attr));

	EACH_VARIANT("ibv_alloc_td", alloc_td)
		RESULT_PTR(ibv_alloc_td(ctx, &td_attr));
	EACH_VARIANT("ibv_dealloc_td", dealloc_td)
		RESULT_INT(ibv_dealloc_td(&td));
	EACH_VARIANT("ibv_alloc_parent_domain", alloc_parent_domain)
		RESULT_PTR(ibv_alloc_parent_domain(ctx, &pd_attr));
	EACH_VARIANT("ibv_query_rt_values_ex", query_rt_values)
		RESULT_INT(ibv_query_rt_values_ex(ctx, &values));
	EACH_VARIANT("ibv_open_qp", open_qp)
		RESULT_PTR(ibv_open_qp(ctx, &qp_open_attr));
	EACH_VARIANT("ibv_modify_qp_rate_limit", modify_qp_rate_limit)
		RESULT_INT(ibv_modify_qp_rate_limit(&qp, &rate_attr));

	install_context();
	heading("ibv_post_send");
	RESULT_INT(ibv_post_send(&qp, &send_wr, &bad_send_wr));
	heading("ibv_post_recv");
	RESULT_INT(ibv_post_recv(&qp, &recv_wr, &bad_recv_wr));
}

static void check_query_device_ex(void)
{
	static const int answers[] = { 0, EINVAL, EOPNOTSUPP, ENOSYS, -1,
				       ENOMEM };
	size_t i;

	install_context();
	heading("ibv_query_device_ex [input comp_mask 1]");
	dev_input.comp_mask = 1;
	RESULT_INT(ibv_query_device_ex(ctx, &dev_input, &dev_buf.attr));
	heading("ibv_query_device_ex [input comp_mask 0x80000000, no entry "
		"point]");
	dev_input.comp_mask = 0x80000000u;
	ctx->abi_compat = NULL;
	RESULT_INT(ibv_query_device_ex(ctx, &dev_input, &dev_buf.attr));
	dev_input.comp_mask = 0;

	for (i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
		install_context();
		op_ret = answers[i];
		heading("ibv_query_device_ex [provider answers %s]",
			errno_name(answers[i]));
		memset(&dev_buf, 0xa5, sizeof(dev_buf));
		RESULT_INT(ibv_query_device_ex(ctx, &dev_input, &dev_buf.attr));
		install_context();
		op_ret = answers[i];
		heading("ibv_query_device_ex [no input, provider answers %s]",
			errno_name(answers[i]));
		memset(&dev_buf, 0xa5, sizeof(dev_buf));
		RESULT_INT(ibv_query_device_ex(ctx, NULL, &dev_buf.attr));
	}
	EACH_VARIANT("ibv_query_device_ex", query_device_ex) {
		lib_ret = 0;
		memset(&dev_buf, 0xa5, sizeof(dev_buf));
		RESULT_INT(ibv_query_device_ex(ctx, NULL, &dev_buf.attr));
	}
}

static void check_wq(void)
{
	static pthread_mutex_t fresh_mutex;
	static pthread_cond_t fresh_cond;
	static unsigned char garbage[sizeof(struct ibv_wq)];

	pthread_mutex_init(&fresh_mutex, NULL);
	pthread_cond_init(&fresh_cond, NULL);
	memset(garbage, 0xa5, sizeof(garbage));

	install_context();
	heading("ibv_post_wq_recv");
	RESULT_INT(ibv_post_wq_recv(&wq, &recv_wr, &bad_recv_wr));

	EACH_VARIANT("ibv_create_wq", create_wq) {
		memset(&wq_ret, 0, sizeof(wq_ret));
		RESULT_PTR(ibv_create_wq(ctx, &wq_attr));
		if (v_ != V_PROVIDED && v_ != V_SZ_EXACT)
			continue;
		printf("  wq_context %s, events_completed %" PRIu32
		       ", mutex %s, cond %s, wq_num %#" PRIx32 "\n",
		       pn(wq_ret.wq_context), wq_ret.events_completed,
		       memcmp(&wq_ret.mutex, &fresh_mutex,
			      sizeof(fresh_mutex)) == 0 ?
			       "initialized" :
			       "NOT initialized",
		       memcmp(&wq_ret.cond, &fresh_cond, sizeof(fresh_cond)) ==
				       0 ?
			       "initialized" :
			       "NOT initialized",
		       wq_ret.wq_num);
		printf("  other members untouched: pd %d, cq %d, state %d, "
		       "wq_type %d, post_recv %d, comp_mask %d\n",
		       memcmp(&wq_ret.pd, garbage, sizeof(wq_ret.pd)) == 0,
		       memcmp(&wq_ret.cq, garbage, sizeof(wq_ret.cq)) == 0,
		       memcmp(&wq_ret.state, garbage, sizeof(wq_ret.state)) == 0,
		       memcmp(&wq_ret.wq_type, garbage,
			      sizeof(wq_ret.wq_type)) == 0,
		       memcmp(&wq_ret.post_recv, garbage,
			      sizeof(wq_ret.post_recv)) == 0,
		       memcmp(&wq_ret.comp_mask, garbage,
			      sizeof(wq_ret.comp_mask)) == 0);
	}
	install_context();
	create_wq_fails = 1;
	heading("ibv_create_wq [provider fails]");
	memset(&wq_ret, 0x5a, sizeof(wq_ret));
	RESULT_PTR(ibv_create_wq(ctx, &wq_attr));
	printf("  wq_ret left alone %d\n", wq_ret.events_completed == 0x5a5a5a5a);
	install_context();

	EACH_VARIANT("ibv_modify_wq", modify_wq)
		RESULT_INT(ibv_modify_wq(&wq, &wq_mod_attr));
	EACH_VARIANT("ibv_destroy_wq", destroy_wq)
		RESULT_INT(ibv_destroy_wq(&wq));
	EACH_VARIANT("ibv_create_rwq_ind_table", create_rwq_ind_table)
		RESULT_PTR(ibv_create_rwq_ind_table(ctx, &ind_attr));
	EACH_VARIANT("ibv_destroy_rwq_ind_table", destroy_rwq_ind_table)
		RESULT_INT(ibv_destroy_rwq_ind_table(&rwq_ind_table));

	pthread_mutex_destroy(&fresh_mutex);
	pthread_cond_destroy(&fresh_cond);
}

static void check_counters(void)
{
	EACH_VARIANT("ibv_create_counters", create_counters)
		RESULT_PTR(ibv_create_counters(ctx, &counters_attr));
	EACH_VARIANT("ibv_destroy_counters", destroy_counters)
		RESULT_INT(ibv_destroy_counters(&counters));
	EACH_VARIANT("ibv_attach_counters_point_flow",
		     attach_counters_point_flow)
		RESULT_INT(ibv_attach_counters_point_flow(
			&counters, &counter_attach_attr, &flow));
	EACH_VARIANT("ibv_read_counters", read_counters)
		RESULT_INT(ibv_read_counters(&counters, counter_values, 4,
					     IBV_READ_COUNTERS_ATTR_PREFER_CACHED));
}

static void check_pure_functions(void)
{
	static const uint32_t labels[] = { 0,	    1,	     0x3fff,  0x4000,
					   0x4001,  0xfc000, 0xfffff, 0x12345,
					   0xabcde, 0x100000, 0xfff00000,
					   0xffffffff };
	static const struct {
		uint32_t caps;
		int qpt;
	} qpts[] = {
		{ (1u << IBV_QPT_RC) | (1u << IBV_QPT_UD), IBV_QPT_RC },
		{ (1u << IBV_QPT_RC) | (1u << IBV_QPT_UD), IBV_QPT_UC },
		{ (1u << IBV_QPT_RC) | (1u << IBV_QPT_UD), IBV_QPT_UD },
		{ 0xffffffffu, IBV_QPT_RAW_PACKET },
		{ 1u << IBV_QPT_XRC_RECV, IBV_QPT_XRC_RECV },
		{ 1u << IBV_QPT_XRC_RECV, IBV_QPT_XRC_SEND },
		{ 0, IBV_QPT_RC },
		{ 0x80000000u, 31 },
		{ 0x7fffffffu, 31 },
		{ 1, 0 },
	};
	size_t i;

	heading("ibv_flow_label_to_udp_sport");
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		printf("  %#" PRIx32 " -> %#x\n", labels[i],
		       (unsigned int)ibv_flow_label_to_udp_sport(labels[i]));

	heading("ibv_is_qpt_supported");
	for (i = 0; i < sizeof(qpts) / sizeof(qpts[0]); i++)
		printf("  caps %#" PRIx32 " qpt %d -> %d\n", qpts[i].caps,
		       qpts[i].qpt,
		       ibv_is_qpt_supported(qpts[i].caps,
					    (enum ibv_qp_type)qpts[i].qpt));
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	build_objects();

	check_macros();
	check_verbs_get_ctx();
	check_qp_ex();
	check_cq_ex();
	check_static_providers();
	check_ports_and_gids();
	check_flows();
	check_xrcd();
	check_reg_mr();
	check_mw();
	check_mr_and_dm();
	check_cq();
	check_srq();
	check_qp();
	check_query_device_ex();
	check_wq();
	check_counters();
	check_pure_functions();

	free(vctx);
	puts("done");
	return 0;
}
