/*
 * <rdma/rdma_verbs.h>: verbs made simple for an rdma_cm_id that owns its
 * QP (rdma_create_ep / rdma_create_qp): memory registration on the id's
 * PD, posting work requests on the id's QP (or SRQ), and waiting for
 * completions on the id's CQs.
 *
 * The 16 helpers below are inline and call libibverbs directly (the SRQ
 * prototypes before them are generated). Those that return int return 0
 * on success and -1 with errno set on failure (see rdma_seterrno); the
 * completion helpers return the number of completions taken (1) instead
 * of 0.
 */

/*
 * Turns a verbs status (0, or a positive errno value) into the rdma_cm
 * convention: 0 stays 0; anything else is stored in errno and -1 returned.
 */
static inline int rdma_seterrno(int ret)
{
	if (ret == 0)
		return 0;
	errno = ret;
	return -1;
}

/*
 * Registering buffers on the id's PD. Every registration is locally
 * writable (receives land in it); the _read and _write variants also let
 * the peer RDMA-read or RDMA-write it.
 */
static inline struct ibv_mr *
rdma_reg_msgs(struct rdma_cm_id *id, void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length, IBV_ACCESS_LOCAL_WRITE);
}

static inline struct ibv_mr *
rdma_reg_read(struct rdma_cm_id *id, void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
}

static inline struct ibv_mr *
rdma_reg_write(struct rdma_cm_id *id, void *addr, size_t length)
{
	return ibv_reg_mr(id->pd, addr, length,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

static inline int rdma_dereg_mr(struct ibv_mr *mr)
{
	return rdma_seterrno(ibv_dereg_mr(mr));
}

/*
 * Posting with a caller-built scatter/gather list of nsge entries. context
 * becomes the work request id, handed back in the completion's wr_id.
 * Only the fields the operation uses are filled in.
 */

/* A receive, on the id's SRQ when it has one, else on its QP. */
static inline int
rdma_post_recvv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl,
		int nsge)
{
	struct ibv_recv_wr rwr, *bad_rwr;

	rwr.next = NULL;
	rwr.wr_id = (uintptr_t)context;
	rwr.sg_list = sgl;
	rwr.num_sge = nsge;

	if (id->srq != NULL)
		return rdma_seterrno(ibv_post_srq_recv(id->srq, &rwr, &bad_rwr));
	return rdma_seterrno(ibv_post_recv(id->qp, &rwr, &bad_rwr));
}

static inline int
rdma_post_sendv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl,
		int nsge, int flags)
{
	struct ibv_send_wr swr, *bad_swr;

	swr.next = NULL;
	swr.wr_id = (uintptr_t)context;
	swr.sg_list = sgl;
	swr.num_sge = nsge;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = flags;

	return rdma_seterrno(ibv_post_send(id->qp, &swr, &bad_swr));
}

/* RDMA read from the peer's remote_addr (covered by rkey) into sgl. */
static inline int
rdma_post_readv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl,
		int nsge, int flags, uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_send_wr swr, *bad_swr;

	swr.next = NULL;
	swr.wr_id = (uintptr_t)context;
	swr.sg_list = sgl;
	swr.num_sge = nsge;
	swr.opcode = IBV_WR_RDMA_READ;
	swr.send_flags = flags;
	swr.wr.rdma.remote_addr = remote_addr;
	swr.wr.rdma.rkey = rkey;

	return rdma_seterrno(ibv_post_send(id->qp, &swr, &bad_swr));
}

/* RDMA write of sgl to the peer's remote_addr (covered by rkey). */
static inline int
rdma_post_writev(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl,
		 int nsge, int flags, uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_send_wr swr, *bad_swr;

	swr.next = NULL;
	swr.wr_id = (uintptr_t)context;
	swr.sg_list = sgl;
	swr.num_sge = nsge;
	swr.opcode = IBV_WR_RDMA_WRITE;
	swr.send_flags = flags;
	swr.wr.rdma.remote_addr = remote_addr;
	swr.wr.rdma.rkey = rkey;

	return rdma_seterrno(ibv_post_send(id->qp, &swr, &bad_swr));
}

/*
 * The same four with one buffer, [addr, addr + length), registered as mr.
 * A send or write may pass mr == NULL (lkey 0: inline data); a receive
 * must lie inside mr, which debug builds assert.
 */
static inline int
rdma_post_recv(struct rdma_cm_id *id, void *context, void *addr,
	       size_t length, struct ibv_mr *mr)
{
	struct ibv_sge one;

	assert(addr >= mr->addr &&
	       (uint8_t *)addr + length <= (uint8_t *)mr->addr + mr->length);
	one.addr = (uint64_t)(uintptr_t)addr;
	one.length = (uint32_t)length;
	one.lkey = mr->lkey;

	return rdma_post_recvv(id, context, &one, 1);
}

static inline int
rdma_post_send(struct rdma_cm_id *id, void *context, void *addr,
	       size_t length, struct ibv_mr *mr, int flags)
{
	struct ibv_sge one;

	one.addr = (uint64_t)(uintptr_t)addr;
	one.length = (uint32_t)length;
	one.lkey = mr != NULL ? mr->lkey : 0;

	return rdma_post_sendv(id, context, &one, 1, flags);
}

static inline int
rdma_post_read(struct rdma_cm_id *id, void *context, void *addr,
	       size_t length, struct ibv_mr *mr, int flags,
	       uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_sge one;

	one.addr = (uint64_t)(uintptr_t)addr;
	one.length = (uint32_t)length;
	one.lkey = mr->lkey;

	return rdma_post_readv(id, context, &one, 1, flags, remote_addr, rkey);
}

static inline int
rdma_post_write(struct rdma_cm_id *id, void *context, void *addr,
		size_t length, struct ibv_mr *mr, int flags,
		uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_sge one;

	one.addr = (uint64_t)(uintptr_t)addr;
	one.length = (uint32_t)length;
	one.lkey = mr != NULL ? mr->lkey : 0;

	return rdma_post_writev(id, context, &one, 1, flags, remote_addr, rkey);
}

/* A datagram send through address handle ah to QP remote_qpn, with the
 * Q_Key the CM gives its UD QPs. */
static inline int
rdma_post_ud_send(struct rdma_cm_id *id, void *context, void *addr,
		  size_t length, struct ibv_mr *mr, int flags,
		  struct ibv_ah *ah, uint32_t remote_qpn)
{
	struct ibv_send_wr swr, *bad_swr;
	struct ibv_sge one;

	one.addr = (uint64_t)(uintptr_t)addr;
	one.length = (uint32_t)length;
	one.lkey = mr != NULL ? mr->lkey : 0;

	swr.next = NULL;
	swr.wr_id = (uintptr_t)context;
	swr.sg_list = &one;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = flags;
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = remote_qpn;
	swr.wr.ud.remote_qkey = RDMA_UDP_QKEY;

	return rdma_seterrno(ibv_post_send(id->qp, &swr, &bad_swr));
}

/*
 * Waiting for one completion on cq, whose events arrive on channel (the
 * id's send or receive pair). Polls; when nothing is there, arms the CQ,
 * polls once more (a completion may have slipped in before the arming),
 * and only then blocks for the event, acknowledges it and starts over.
 * Returns the poll's count (1) with *wc filled, or -1 with errno set: a
 * failed poll or arming through rdma_seterrno, a failed event wait as
 * ibv_get_cq_event left it.
 */
static inline int
rdma_get_send_comp(struct rdma_cm_id *id, struct ibv_wc *wc)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(id->send_cq, 1, wc);
		if (n != 0)
			break;
		n = ibv_req_notify_cq(id->send_cq, 0);
		if (n != 0)
			return rdma_seterrno(n);
		n = ibv_poll_cq(id->send_cq, 1, wc);
		if (n != 0)
			break;
		n = ibv_get_cq_event(id->send_cq_channel, &ev_cq, &ev_ctx);
		if (n != 0)
			return n;
		assert(ev_cq == id->send_cq && ev_ctx == id);
		ibv_ack_cq_events(id->send_cq, 1);
	}
	return n < 0 ? rdma_seterrno(n) : n;
}

static inline int
rdma_get_recv_comp(struct rdma_cm_id *id, struct ibv_wc *wc)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(id->recv_cq, 1, wc);
		if (n != 0)
			break;
		n = ibv_req_notify_cq(id->recv_cq, 0);
		if (n != 0)
			return rdma_seterrno(n);
		n = ibv_poll_cq(id->recv_cq, 1, wc);
		if (n != 0)
			break;
		n = ibv_get_cq_event(id->recv_cq_channel, &ev_cq, &ev_ctx);
		if (n != 0)
			return n;
		assert(ev_cq == id->recv_cq && ev_ctx == id);
		ibv_ack_cq_events(id->recv_cq, 1);
	}
	return n < 0 ? rdma_seterrno(n) : n;
}
