/*
 * Hand-written end of <infiniband/verbs.h>, spliced by tools/gen-headers
 * after every generated declaration, inside the header's extern "C" block.
 *
 * It holds the parts of the verbs API that are compiled into the
 * application rather than exported by libibverbs.so.1: the static inline
 * functions, the function-like macros, and the object-like macros whose
 * value is not a plain integer. Applications built against rdma-core's
 * header carry the same code, so every function here must behave exactly
 * as rdma-core 65's: the same driver entry point called with the same
 * arguments, the same checks in the same order, the same return values and
 * the same errno. abi-tests/headers/inline-check compares them call by call.
 *
 * Most entry points live in one of two tables:
 *  - struct ibv_context_ops (context->ops), the original table that every
 *    provider fills;
 *  - struct verbs_context, which wraps the ibv_context of providers written
 *    for the extended API. It ends with the embedded ibv_context and new
 *    members are added at its front, so the distance from a member to the
 *    end never changes. The provider stores in sz the size of the struct
 *    it was built with; a member is usable only when that struct reaches
 *    back to it (its distance to the end is at most sz) and it is
 *    non-NULL. verbs_get_ctx_op() performs that test.
 *
 * Needs <stddef.h>, <stdint.h>, <string.h>, <errno.h> and <pthread.h>,
 * which the header includes at its top.
 */

/* True when member fld of type starts within the first sz bytes. */
#define vext_field_avail(type, fld, sz) (offsetof(type, fld) < (sz))

/*
 * The value of ibv_context.abi_compat that marks a context embedded in a
 * struct verbs_context: a pointer with every bit set. C++ builds spell it
 * through std::numeric_limits, and get <limits> from this header as they
 * do from rdma-core's.
 */
#ifdef __cplusplus
extern "C++" {
#include <limits>
}
#define __VERBS_ABI_IS_EXTENDED ((void *)std::numeric_limits<uintptr_t>::max())
#else
#define __VERBS_ABI_IS_EXTENDED ((void *)UINTPTR_MAX)
#endif

/*
 * Allocator callbacks of struct ibv_parent_domain_init_attr may return this
 * to let the provider allocate the buffer its usual way.
 */
#define IBV_ALLOCATOR_USE_DEFAULT ((void *)-1)

/*
 * Building a send work request on an extended QP (ibv_qp_to_qp_ex): each
 * builder goes straight to the provider's function of the same name.
 */
static inline void ibv_wr_start(struct ibv_qp_ex *qp)
{
	qp->wr_start(qp);
}

static inline int ibv_wr_complete(struct ibv_qp_ex *qp)
{
	return qp->wr_complete(qp);
}

static inline void ibv_wr_abort(struct ibv_qp_ex *qp)
{
	qp->wr_abort(qp);
}

static inline void ibv_wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey,
					 uint64_t remote_addr, uint64_t compare,
					 uint64_t swap)
{
	qp->wr_atomic_cmp_swp(qp, rkey, remote_addr, compare, swap);
}

static inline void ibv_wr_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey,
					   uint64_t remote_addr, uint64_t add)
{
	qp->wr_atomic_fetch_add(qp, rkey, remote_addr, add);
}

static inline void ibv_wr_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey,
				       uint64_t remote_addr,
				       const void *atomic_wr)
{
	qp->wr_atomic_write(qp, rkey, remote_addr, atomic_wr);
}

static inline void ibv_wr_bind_mw(struct ibv_qp_ex *qp, struct ibv_mw *mw,
				  uint32_t rkey,
				  const struct ibv_mw_bind_info *bind_info)
{
	qp->wr_bind_mw(qp, mw, rkey, bind_info);
}

static inline void ibv_wr_local_inv(struct ibv_qp_ex *qp,
				    uint32_t invalidate_rkey)
{
	qp->wr_local_inv(qp, invalidate_rkey);
}

static inline void ibv_wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey,
				    uint64_t remote_addr)
{
	qp->wr_rdma_read(qp, rkey, remote_addr);
}

static inline void ibv_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey,
				     uint64_t remote_addr)
{
	qp->wr_rdma_write(qp, rkey, remote_addr);
}

static inline void ibv_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey,
					 uint64_t remote_addr, __be32 imm_data)
{
	qp->wr_rdma_write_imm(qp, rkey, remote_addr, imm_data);
}

static inline void ibv_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey,
				uint64_t remote_addr, size_t len, uint8_t type,
				uint8_t level)
{
	qp->wr_flush(qp, rkey, remote_addr, len, type, level);
}

static inline void ibv_wr_send(struct ibv_qp_ex *qp)
{
	qp->wr_send(qp);
}

static inline void ibv_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm_data)
{
	qp->wr_send_imm(qp, imm_data);
}

static inline void ibv_wr_send_inv(struct ibv_qp_ex *qp,
				   uint32_t invalidate_rkey)
{
	qp->wr_send_inv(qp, invalidate_rkey);
}

static inline void ibv_wr_send_tso(struct ibv_qp_ex *qp, void *hdr,
				   uint16_t hdr_sz, uint16_t mss)
{
	qp->wr_send_tso(qp, hdr, hdr_sz, mss);
}

static inline void ibv_wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah,
				      uint32_t remote_qpn, uint32_t remote_qkey)
{
	qp->wr_set_ud_addr(qp, ah, remote_qpn, remote_qkey);
}

static inline void ibv_wr_set_xrc_srqn(struct ibv_qp_ex *qp,
				       uint32_t remote_srqn)
{
	qp->wr_set_xrc_srqn(qp, remote_srqn);
}

static inline void ibv_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr,
					  size_t length)
{
	qp->wr_set_inline_data(qp, addr, length);
}

static inline void ibv_wr_set_inline_data_list(struct ibv_qp_ex *qp,
					       size_t num_buf,
					       const struct ibv_data_buf *buf_list)
{
	qp->wr_set_inline_data_list(qp, num_buf, buf_list);
}

static inline void ibv_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey,
				  uint64_t addr, uint32_t length)
{
	qp->wr_set_sge(qp, lkey, addr, length);
}

static inline void ibv_wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge,
				       const struct ibv_sge *sg_list)
{
	qp->wr_set_sge_list(qp, num_sge, sg_list);
}

/*
 * Polling an extended CQ: ibv_start_poll() takes the first completion,
 * ibv_next_poll() each following one, ibv_end_poll() finishes; in between,
 * the ibv_wc_read_*() readers ask the provider for one field of the
 * current completion.
 */

/* struct ibv_cq_ex starts with the members of struct ibv_cq. */
static inline struct ibv_cq *ibv_cq_ex_to_cq(struct ibv_cq_ex *cq)
{
	return (struct ibv_cq *)cq;
}

static inline int ibv_start_poll(struct ibv_cq_ex *cq,
				 struct ibv_poll_cq_attr *attr)
{
	return cq->start_poll(cq, attr);
}

static inline int ibv_next_poll(struct ibv_cq_ex *cq)
{
	return cq->next_poll(cq);
}

static inline void ibv_end_poll(struct ibv_cq_ex *cq)
{
	cq->end_poll(cq);
}

static inline enum ibv_wc_opcode ibv_wc_read_opcode(struct ibv_cq_ex *cq)
{
	return cq->read_opcode(cq);
}

static inline uint32_t ibv_wc_read_vendor_err(struct ibv_cq_ex *cq)
{
	return cq->read_vendor_err(cq);
}

static inline uint32_t ibv_wc_read_byte_len(struct ibv_cq_ex *cq)
{
	return cq->read_byte_len(cq);
}

static inline __be32 ibv_wc_read_imm_data(struct ibv_cq_ex *cq)
{
	return cq->read_imm_data(cq);
}

/*
 * A SEND_WITH_INV completion carries the invalidated rkey where others
 * carry immediate data; it is returned in host order, so for sparse the
 * big-endian type is dropped explicitly.
 */
static inline uint32_t ibv_wc_read_invalidated_rkey(struct ibv_cq_ex *cq)
{
#ifdef __CHECKER__
	return (__attribute__((force)) uint32_t)cq->read_imm_data(cq);
#else
	return cq->read_imm_data(cq);
#endif
}

static inline uint32_t ibv_wc_read_qp_num(struct ibv_cq_ex *cq)
{
	return cq->read_qp_num(cq);
}

static inline uint32_t ibv_wc_read_src_qp(struct ibv_cq_ex *cq)
{
	return cq->read_src_qp(cq);
}

static inline unsigned int ibv_wc_read_wc_flags(struct ibv_cq_ex *cq)
{
	return cq->read_wc_flags(cq);
}

static inline uint32_t ibv_wc_read_slid(struct ibv_cq_ex *cq)
{
	return cq->read_slid(cq);
}

static inline uint8_t ibv_wc_read_sl(struct ibv_cq_ex *cq)
{
	return cq->read_sl(cq);
}

static inline uint8_t ibv_wc_read_dlid_path_bits(struct ibv_cq_ex *cq)
{
	return cq->read_dlid_path_bits(cq);
}

static inline uint64_t ibv_wc_read_completion_ts(struct ibv_cq_ex *cq)
{
	return cq->read_completion_ts(cq);
}

static inline uint64_t ibv_wc_read_completion_wallclock_ns(struct ibv_cq_ex *cq)
{
	return cq->read_completion_wallclock_ns(cq);
}

static inline uint16_t ibv_wc_read_cvlan(struct ibv_cq_ex *cq)
{
	return cq->read_cvlan(cq);
}

static inline uint32_t ibv_wc_read_flow_tag(struct ibv_cq_ex *cq)
{
	return cq->read_flow_tag(cq);
}

static inline void ibv_wc_read_tm_info(struct ibv_cq_ex *cq,
				       struct ibv_wc_tm_info *tm_info)
{
	cq->read_tm_info(cq, tm_info);
}

/* Receive work requests of a WQ go to the WQ's own post function. */
static inline int ibv_post_wq_recv(struct ibv_wq *wq,
				   struct ibv_recv_wr *recv_wr,
				   struct ibv_recv_wr **bad_recv_wr)
{
	return wq->post_recv(wq, recv_wr, bad_recv_wr);
}

/*
 * The struct verbs_context around ctx, or NULL when ctx does not carry the
 * extended marker. The subtraction is done on an integer so that no
 * container_of-style helper has to be defined here.
 */
static inline struct verbs_context *verbs_get_ctx(struct ibv_context *ctx)
{
	if (ctx->abi_compat == __VERBS_ABI_IS_EXTENDED)
		return (struct verbs_context *)((uintptr_t)ctx -
						offsetof(struct verbs_context,
							 context));
	return NULL;
}

/*
 * The struct verbs_context of ctx when its member op can be called: the
 * context is extended, the provider's struct (sz bytes, ending where ours
 * ends) reaches back to op, and op is set. NULL otherwise. ctx is
 * evaluated once.
 */
#define verbs_get_ctx_op(ctx, op)                                              \
	__extension__({                                                        \
		struct verbs_context *__vctx = verbs_get_ctx(ctx);             \
		(__vctx && __vctx->sz >= sizeof(*__vctx) -                     \
					 offsetof(struct verbs_context, op) && \
		 __vctx->op) ?                                                 \
			__vctx :                                               \
			NULL;                                                  \
	})

/*
 * Static linking. An application linked statically against libibverbs
 * names the providers to link in with RDMA_STATIC_PROVIDERS, a comma
 * separated list (for example -DRDMA_STATIC_PROVIDERS=mlx5,rxe, or "all").
 * ibv_get_device_list() then first hands ibv_static_providers() the
 * address of each listed provider's verbs_provider_<name>, padded with
 * verbs_provider_none to twenty entries and ended by NULL; referring to
 * those symbols is what pulls the providers into the link. Neither symbol
 * exists in the shared libraries, so a dynamic link fails on purpose.
 */
#ifdef RDMA_STATIC_PROVIDERS
#define _RDMA_STATIC_PREFIX_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11,     \
			     _12, _13, _14, _15, _16, _17, _18, _19, _20, ...) \
	&verbs_provider_##_1, &verbs_provider_##_2, &verbs_provider_##_3,      \
	&verbs_provider_##_4, &verbs_provider_##_5, &verbs_provider_##_6,      \
	&verbs_provider_##_7, &verbs_provider_##_8, &verbs_provider_##_9,      \
	&verbs_provider_##_10, &verbs_provider_##_11, &verbs_provider_##_12,   \
	&verbs_provider_##_13, &verbs_provider_##_14, &verbs_provider_##_15,   \
	&verbs_provider_##_16, &verbs_provider_##_17, &verbs_provider_##_18,   \
	&verbs_provider_##_19, &verbs_provider_##_20
#define _RDMA_STATIC_PREFIX(arg)                                               \
	_RDMA_STATIC_PREFIX_(arg, none, none, none, none, none, none, none,    \
			     none, none, none, none, none, none, none, none,   \
			     none, none, none, none)

struct verbs_device_ops;
extern const struct verbs_device_ops verbs_provider_all;
extern const struct verbs_device_ops verbs_provider_bnxt_re;
extern const struct verbs_device_ops verbs_provider_cxgb4;
extern const struct verbs_device_ops verbs_provider_efa;
extern const struct verbs_device_ops verbs_provider_erdma;
extern const struct verbs_device_ops verbs_provider_hfi1verbs;
extern const struct verbs_device_ops verbs_provider_hns;
extern const struct verbs_device_ops verbs_provider_ionic;
extern const struct verbs_device_ops verbs_provider_ipathverbs;
extern const struct verbs_device_ops verbs_provider_irdma;
extern const struct verbs_device_ops verbs_provider_mana;
extern const struct verbs_device_ops verbs_provider_mlx4;
extern const struct verbs_device_ops verbs_provider_mlx5;
extern const struct verbs_device_ops verbs_provider_mthca;
extern const struct verbs_device_ops verbs_provider_none;
extern const struct verbs_device_ops verbs_provider_ocrdma;
extern const struct verbs_device_ops verbs_provider_qedr;
extern const struct verbs_device_ops verbs_provider_rxe;
extern const struct verbs_device_ops verbs_provider_siw;
extern const struct verbs_device_ops verbs_provider_vmw_pvrdma;
void ibv_static_providers(void *unused, ...);

static inline struct ibv_device **__ibv_get_device_list(int *num_devices)
{
	ibv_static_providers(NULL, _RDMA_STATIC_PREFIX(RDMA_STATIC_PROVIDERS),
			     NULL);
	/* The macro below is not defined yet: this is the library function. */
	return ibv_get_device_list(num_devices);
}
#define ibv_get_device_list(num_devices) __ibv_get_device_list(num_devices)
#endif /* RDMA_STATIC_PROVIDERS */

/*
 * ibv_query_port() as applications call it. The struct ibv_port_attr they
 * pass has grown over the releases, so its size goes to providers that
 * take it. Providers without the extended query_port get the exported
 * ibv_query_port() (the original, fixed-size one) on a zeroed struct, so
 * the members it does not know read as 0.
 */
static inline int ___ibv_query_port(struct ibv_context *context,
				    uint8_t port_num,
				    struct ibv_port_attr *port_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, query_port);

	if (vctx != NULL)
		return vctx->query_port(context, port_num, port_attr,
					sizeof(*port_attr));

	memset(port_attr, 0, sizeof(*port_attr));
	/* Not the macro below yet: the exported function. */
	return ibv_query_port(context, port_num,
			      (struct _compat_ibv_port_attr *)port_attr);
}

#define ibv_query_port(context, port_num, port_attr)                           \
	___ibv_query_port(context, port_num, port_attr)

/* One GID table entry; the library is told the entry size compiled in. */
static inline int ibv_query_gid_ex(struct ibv_context *context,
				   uint32_t port_num, uint32_t gid_index,
				   struct ibv_gid_entry *entry, uint32_t flags)
{
	return _ibv_query_gid_ex(context, port_num, gid_index, entry, flags,
				 sizeof(*entry));
}

/* Every valid GID table entry, up to max_entries of them. */
static inline ssize_t ibv_query_gid_table(struct ibv_context *context,
					  struct ibv_gid_entry *entries,
					  size_t max_entries, uint32_t flags)
{
	return _ibv_query_gid_table(context, entries, max_entries, flags,
				    sizeof(*entries));
}

/*
 * Flow steering. Without the provider's entry point the creators fail with
 * errno EOPNOTSUPP, and the others return EOPNOTSUPP (errno untouched).
 */
static inline struct ibv_flow *ibv_create_flow(struct ibv_qp *qp,
					       struct ibv_flow_attr *flow)
{
	struct verbs_context *vctx = verbs_get_ctx_op(qp->context,
						      ibv_create_flow);

	if (vctx != NULL)
		return vctx->ibv_create_flow(qp, flow);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_destroy_flow(struct ibv_flow *flow_id)
{
	struct verbs_context *vctx = verbs_get_ctx_op(flow_id->context,
						      ibv_destroy_flow);

	return vctx != NULL ? vctx->ibv_destroy_flow(flow_id) : EOPNOTSUPP;
}

static inline struct ibv_flow_action *
ibv_create_flow_action_esp(struct ibv_context *ctx,
			   struct ibv_flow_action_esp_attr *esp)
{
	struct verbs_context *vctx = verbs_get_ctx_op(ctx,
						      create_flow_action_esp);

	if (vctx != NULL)
		return vctx->create_flow_action_esp(ctx, esp);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int
ibv_modify_flow_action_esp(struct ibv_flow_action *action,
			   struct ibv_flow_action_esp_attr *esp)
{
	struct verbs_context *vctx = verbs_get_ctx_op(action->context,
						      modify_flow_action_esp);

	return vctx != NULL ? vctx->modify_flow_action_esp(action, esp) :
			      EOPNOTSUPP;
}

static inline int ibv_destroy_flow_action(struct ibv_flow_action *action)
{
	struct verbs_context *vctx = verbs_get_ctx_op(action->context,
						      destroy_flow_action);

	return vctx != NULL ? vctx->destroy_flow_action(action) : EOPNOTSUPP;
}

/* XRC domains. */
static inline struct ibv_xrcd *
ibv_open_xrcd(struct ibv_context *context,
	      struct ibv_xrcd_init_attr *xrcd_init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, open_xrcd);

	if (vctx != NULL)
		return vctx->open_xrcd(context, xrcd_init_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

/* An XRCD exists only on an extended context, so no check is made. */
static inline int ibv_close_xrcd(struct ibv_xrcd *xrcd)
{
	return verbs_get_ctx(xrcd->context)->close_xrcd(xrcd);
}

/*
 * Memory registration. ibv_reg_mr() and ibv_reg_mr_iova() keep calling
 * their original library functions when the access flags are a
 * compile-time constant without any bit of IBV_ACCESS_OPTIONAL_RANGE.
 * Otherwise (optional bits, or flags only known at run time) they call
 * ibv_reg_mr_iova2(), which drops optional bits the kernel cannot take;
 * for ibv_reg_mr() the IOVA is then the address itself. Each function is
 * defined before its macro, so the call inside reaches the library. The
 * flag tests are spelled as in rdma-core 65, ibv_reg_mr()'s on the flags
 * converted to int and ibv_reg_mr_iova()'s on the flags as given, since
 * what the compiler folds to a constant may depend on the spelling.
 */
__attribute__((__always_inline__)) static inline struct ibv_mr *
__ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, unsigned int access,
	     int is_access_const)
{
	if (!is_access_const || (access & IBV_ACCESS_OPTIONAL_RANGE) != 0)
		return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
					access);
	return ibv_reg_mr(pd, addr, length, (int)access);
}

#define ibv_reg_mr(pd, addr, length, access)                                   \
	__ibv_reg_mr(pd, addr, length, access,                                 \
		     __builtin_constant_p(                                     \
			     ((int)(access) & IBV_ACCESS_OPTIONAL_RANGE) == 0))

__attribute__((__always_inline__)) static inline struct ibv_mr *
__ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		  unsigned int access, int is_access_const)
{
	if (!is_access_const || (access & IBV_ACCESS_OPTIONAL_RANGE) != 0)
		return ibv_reg_mr_iova2(pd, addr, length, iova, access);
	return ibv_reg_mr_iova(pd, addr, length, iova, (int)access);
}

#define ibv_reg_mr_iova(pd, addr, length, iova, access)                        \
	__ibv_reg_mr_iova(pd, addr, length, iova, access,                      \
			  __builtin_constant_p(                                \
				  ((access) & IBV_ACCESS_OPTIONAL_RANGE) == 0))

/* Memory windows, through the original ops table. */
static inline struct ibv_mw *ibv_alloc_mw(struct ibv_pd *pd,
					  enum ibv_mw_type type)
{
	if (pd->context->ops.alloc_mw != NULL)
		return pd->context->ops.alloc_mw(pd, type);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_dealloc_mw(struct ibv_mw *mw)
{
	return mw->context->ops.dealloc_mw(mw);
}

/* The next rkey of a window: the low byte (the key) counts up and wraps,
 * the upper 24 bits (the index) stay. */
static inline uint32_t ibv_inc_rkey(uint32_t rkey)
{
	return (rkey & 0xffffff00u) | ((rkey + 1u) & 0x000000ffu);
}

/*
 * Binds a type 1 window with a work request. A bind without an MR (an
 * unbind) must give neither address nor length, and the MR must belong to
 * the window's PD. Failures are returned, errno is not set.
 */
static inline int ibv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			      struct ibv_mw_bind *mw_bind)
{
	const struct ibv_mw_bind_info *bind_info = &mw_bind->bind_info;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	if (bind_info->mr == NULL) {
		if (bind_info->addr != 0 || bind_info->length != 0)
			return EINVAL;
	} else if (bind_info->mr->pd != mw->pd) {
		return EPERM;
	}
	return mw->context->ops.bind_mw(qp, mw, mw_bind);
}

/*
 * Paging advice for ranges of MRs of pd. Returns EOPNOTSUPP when the
 * provider has no advise_mr.
 */
static inline int ibv_advise_mr(struct ibv_pd *pd,
				enum ibv_advise_mr_advice advice,
				uint32_t flags, struct ibv_sge *sg_list,
				uint32_t num_sge)
{
	struct verbs_context *vctx = verbs_get_ctx_op(pd->context, advise_mr);

	if (vctx == NULL)
		return EOPNOTSUPP;
	return vctx->advise_mr(pd, advice, flags, sg_list, num_sge);
}

/* Device memory. */
static inline struct ibv_dm *ibv_alloc_dm(struct ibv_context *context,
					  struct ibv_alloc_dm_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, alloc_dm);

	if (vctx != NULL)
		return vctx->alloc_dm(context, attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_free_dm(struct ibv_dm *dm)
{
	struct verbs_context *vctx = verbs_get_ctx_op(dm->context, free_dm);

	return vctx != NULL ? vctx->free_dm(dm) : EOPNOTSUPP;
}

/* Copies to and from device memory go to the DM object's own functions. */
static inline int ibv_memcpy_to_dm(struct ibv_dm *dm, uint64_t dm_offset,
				   const void *host_addr, size_t length)
{
	return dm->memcpy_to_dm(dm, dm_offset, host_addr, length);
}

static inline int ibv_memcpy_from_dm(void *host_addr, struct ibv_dm *dm,
				     uint64_t dm_offset, size_t length)
{
	return dm->memcpy_from_dm(host_addr, dm, dm_offset, length);
}

/* An MR whose accesses are dropped (reads return nothing defined). */
static inline struct ibv_mr *ibv_alloc_null_mr(struct ibv_pd *pd)
{
	struct verbs_context *vctx = verbs_get_ctx_op(pd->context,
						      alloc_null_mr);

	if (vctx != NULL)
		return vctx->alloc_null_mr(pd);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline struct ibv_mr *ibv_reg_dm_mr(struct ibv_pd *pd,
					   struct ibv_dm *dm,
					   uint64_t dm_offset, size_t length,
					   unsigned int access)
{
	struct verbs_context *vctx = verbs_get_ctx_op(pd->context, reg_dm_mr);

	if (vctx != NULL)
		return vctx->reg_dm_mr(pd, dm, dm_offset, length, access);
	errno = EOPNOTSUPP;
	return NULL;
}

/* Completion queues. */
static inline struct ibv_cq_ex *
ibv_create_cq_ex(struct ibv_context *context,
		 struct ibv_cq_init_attr_ex *cq_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, create_cq_ex);

	if (vctx != NULL)
		return vctx->create_cq_ex(context, cq_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

/*
 * Up to num_entries completions into wc. Returns how many were taken
 * (fewer than asked means the CQ is now empty), or a negative value on
 * error.
 */
static inline int ibv_poll_cq(struct ibv_cq *cq, int num_entries,
			      struct ibv_wc *wc)
{
	return cq->context->ops.poll_cq(cq, num_entries, wc);
}

/*
 * Arms the CQ: its channel gets an event for the next completion, or with
 * solicited_only for the next solicited one.
 */
static inline int ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return cq->context->ops.req_notify_cq(cq, solicited_only);
}

static inline int ibv_modify_cq(struct ibv_cq *cq,
				struct ibv_modify_cq_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(cq->context, modify_cq);

	return vctx != NULL ? vctx->modify_cq(cq, attr) : EOPNOTSUPP;
}

/* Completion counter limits; the library is told the size compiled in. */
static inline int ibv_query_comp_cntr_caps(struct ibv_context *context,
					   struct ibv_comp_cntr_caps *caps)
{
	return _ibv_query_comp_cntr_caps(context, caps, sizeof(*caps));
}

/*
 * Shared receive queues. A request that the original ibv_create_srq() can
 * express (a PD, no other attribute than an SRQ type of IBV_SRQT_BASIC)
 * goes there, with the extended attributes read as the original ones they
 * begin with; anything else needs the provider's create_srq_ex.
 */
static inline struct ibv_srq *
ibv_create_srq_ex(struct ibv_context *context,
		  struct ibv_srq_init_attr_ex *srq_init_attr_ex)
{
	uint32_t mask = srq_init_attr_ex->comp_mask;
	struct verbs_context *vctx;

	if ((mask & IBV_SRQ_INIT_ATTR_PD) &&
	    (mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_PD |
				IBV_SRQ_INIT_ATTR_TYPE)) == 0 &&
	    (!(mask & IBV_SRQ_INIT_ATTR_TYPE) ||
	     srq_init_attr_ex->srq_type == IBV_SRQT_BASIC))
		return ibv_create_srq(srq_init_attr_ex->pd,
				      (struct ibv_srq_init_attr *)srq_init_attr_ex);

	vctx = verbs_get_ctx_op(context, create_srq_ex);
	if (vctx != NULL)
		return vctx->create_srq_ex(context, srq_init_attr_ex);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	struct verbs_context *vctx = verbs_get_ctx_op(srq->context,
						      get_srq_num);

	return vctx != NULL ? vctx->get_srq_num(srq, srq_num) : EOPNOTSUPP;
}

/* On failure *bad_recv_wr points at the request that was not posted. */
static inline int ibv_post_srq_recv(struct ibv_srq *srq,
				    struct ibv_recv_wr *recv_wr,
				    struct ibv_recv_wr **bad_recv_wr)
{
	return srq->context->ops.post_srq_recv(srq, recv_wr, bad_recv_wr);
}

/* Tag matching list operations; unsupported means the first one failed. */
static inline int ibv_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
				   struct ibv_ops_wr **bad_op)
{
	struct verbs_context *vctx = verbs_get_ctx_op(srq->context,
						      post_srq_ops);

	if (vctx != NULL)
		return vctx->post_srq_ops(srq, op, bad_op);
	*bad_op = op;
	return EOPNOTSUPP;
}

/*
 * Queue pairs. A comp_mask of exactly IBV_QP_INIT_ATTR_PD is what the
 * original ibv_create_qp() does, on the leading original attributes.
 */
static inline struct ibv_qp *
ibv_create_qp_ex(struct ibv_context *context,
		 struct ibv_qp_init_attr_ex *qp_init_attr_ex)
{
	struct verbs_context *vctx;

	if (qp_init_attr_ex->comp_mask == IBV_QP_INIT_ATTR_PD)
		return ibv_create_qp(qp_init_attr_ex->pd,
				     (struct ibv_qp_init_attr *)qp_init_attr_ex);

	vctx = verbs_get_ctx_op(context, create_qp_ex);
	if (vctx != NULL)
		return vctx->create_qp_ex(context, qp_init_attr_ex);
	errno = EOPNOTSUPP;
	return NULL;
}

/* Thread domains and parent domains. */
static inline struct ibv_td *ibv_alloc_td(struct ibv_context *context,
					  struct ibv_td_init_attr *init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, alloc_td);

	if (vctx != NULL)
		return vctx->alloc_td(context, init_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_dealloc_td(struct ibv_td *td)
{
	struct verbs_context *vctx = verbs_get_ctx_op(td->context, dealloc_td);

	return vctx != NULL ? vctx->dealloc_td(td) : EOPNOTSUPP;
}

static inline struct ibv_pd *
ibv_alloc_parent_domain(struct ibv_context *context,
			struct ibv_parent_domain_init_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context,
						      alloc_parent_domain);

	if (vctx != NULL)
		return vctx->alloc_parent_domain(context, attr);
	errno = EOPNOTSUPP;
	return NULL;
}

/* The device's clocks; values->comp_mask selects which. */
static inline int ibv_query_rt_values_ex(struct ibv_context *context,
					 struct ibv_values_ex *values)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context,
						      query_rt_values);

	return vctx != NULL ? vctx->query_rt_values(context, values) :
			      EOPNOTSUPP;
}

/*
 * Extended device attributes. No input option exists yet, so a non-zero
 * input->comp_mask is EINVAL. When the provider has no query_device_ex,
 * or answers EOPNOTSUPP or ENOSYS, the struct is zeroed and only its
 * original part is filled, by ibv_query_device().
 */
static inline int
ibv_query_device_ex(struct ibv_context *context,
		    const struct ibv_query_device_ex_input *input,
		    struct ibv_device_attr_ex *attr)
{
	struct verbs_context *vctx;

	if (input != NULL && input->comp_mask != 0)
		return EINVAL;

	vctx = verbs_get_ctx_op(context, query_device_ex);
	if (vctx != NULL) {
		int rc = vctx->query_device_ex(context, input, attr,
					       sizeof(*attr));

		if (rc != EOPNOTSUPP && rc != ENOSYS)
			return rc;
	}

	memset(attr, 0, sizeof(*attr));
	return ibv_query_device(context, &attr->orig_attr);
}

/* Opens a QP shared through an XRC domain. */
static inline struct ibv_qp *ibv_open_qp(struct ibv_context *context,
					 struct ibv_qp_open_attr *qp_open_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, open_qp);

	if (vctx != NULL)
		return vctx->open_qp(context, qp_open_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int
ibv_modify_qp_rate_limit(struct ibv_qp *qp,
			 struct ibv_qp_rate_limit_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(qp->context,
						      modify_qp_rate_limit);

	return vctx != NULL ? vctx->modify_qp_rate_limit(qp, attr) :
			      EOPNOTSUPP;
}

/*
 * Work queues. The library, not the provider, sets up the user-visible
 * bookkeeping of a new WQ: its context pointer from the init attributes,
 * the event count, and the lock and condition used to wait for events.
 */
static inline struct ibv_wq *ibv_create_wq(struct ibv_context *context,
					   struct ibv_wq_init_attr *wq_init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, create_wq);
	struct ibv_wq *wq;

	if (vctx == NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	wq = vctx->create_wq(context, wq_init_attr);
	if (wq == NULL)
		return NULL;

	wq->wq_context = wq_init_attr->wq_context;
	wq->events_completed = 0;
	pthread_mutex_init(&wq->mutex, NULL);
	pthread_cond_init(&wq->cond, NULL);
	return wq;
}

static inline int ibv_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(wq->context, modify_wq);

	return vctx != NULL ? vctx->modify_wq(wq, wq_attr) : EOPNOTSUPP;
}

static inline int ibv_destroy_wq(struct ibv_wq *wq)
{
	struct verbs_context *vctx = verbs_get_ctx_op(wq->context, destroy_wq);

	return vctx != NULL ? vctx->destroy_wq(wq) : EOPNOTSUPP;
}

/* Receive WQ indirection tables, for RSS. */
static inline struct ibv_rwq_ind_table *
ibv_create_rwq_ind_table(struct ibv_context *context,
			 struct ibv_rwq_ind_table_init_attr *init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context,
						      create_rwq_ind_table);

	if (vctx != NULL)
		return vctx->create_rwq_ind_table(context, init_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int
ibv_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)
{
	struct verbs_context *vctx = verbs_get_ctx_op(rwq_ind_table->context,
						      destroy_rwq_ind_table);

	return vctx != NULL ? vctx->destroy_rwq_ind_table(rwq_ind_table) :
			      EOPNOTSUPP;
}

/*
 * Posting to a QP's send and receive queues; on failure *bad_wr points at
 * the request that was not posted.
 */
static inline int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr)
{
	return qp->context->ops.post_send(qp, wr, bad_wr);
}

static inline int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	return qp->context->ops.post_recv(qp, wr, bad_wr);
}

/* caps is a bit mask indexed by QP type (1 when supported, else 0). */
static inline int ibv_is_qpt_supported(uint32_t caps, enum ibv_qp_type qpt)
{
	return (caps & (1 << qpt)) != 0;
}

/* Flow counters. */
static inline struct ibv_counters *
ibv_create_counters(struct ibv_context *context,
		    struct ibv_counters_init_attr *init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context,
						      create_counters);

	if (vctx != NULL)
		return vctx->create_counters(context, init_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_destroy_counters(struct ibv_counters *counters)
{
	struct verbs_context *vctx = verbs_get_ctx_op(counters->context,
						      destroy_counters);

	return vctx != NULL ? vctx->destroy_counters(counters) : EOPNOTSUPP;
}

static inline int
ibv_attach_counters_point_flow(struct ibv_counters *counters,
			       struct ibv_counter_attach_attr *attr,
			       struct ibv_flow *flow)
{
	struct verbs_context *vctx = verbs_get_ctx_op(counters->context,
						      attach_counters_point_flow);

	if (vctx == NULL)
		return EOPNOTSUPP;
	return vctx->attach_counters_point_flow(counters, attr, flow);
}

static inline int ibv_read_counters(struct ibv_counters *counters,
				    uint64_t *counters_value,
				    uint32_t ncounters, uint32_t flags)
{
	struct verbs_context *vctx = verbs_get_ctx_op(counters->context,
						      read_counters);

	if (vctx == NULL)
		return EOPNOTSUPP;
	return vctx->read_counters(counters, counters_value, ncounters, flags);
}

/*
 * The UDP source port of RoCE v2 traffic derived from a 20-bit flow label:
 * bits 14..19 are folded onto bits 0..5 of the low 14 bits, and the result
 * is placed in the range starting at IB_ROCE_UDP_ENCAP_VALID_PORT_MIN.
 */
static inline uint16_t ibv_flow_label_to_udp_sport(uint32_t fl)
{
	uint32_t fl_bits_0_13 = fl & 0x3fffu;
	uint32_t fl_bits_14_19 = (fl >> 14) & 0x3fu;

	return (uint16_t)((fl_bits_0_13 ^ fl_bits_14_19) |
			  IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
}

/* Defined for the header's own declarations only; see verbs.head.h. */
#undef __attribute_const
