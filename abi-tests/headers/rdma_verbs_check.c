/*
 * Behavioural check of the inline functions of <rdma/rdma_verbs.h>,
 * <rdma/rdma_cma.h> and <infiniband/ib.h>.
 *
 * Built once against each header set (upstream's, ours) by
 * rdma-verbs-check, which diffs what the builds print. Everything the
 * inlines reach is mocked here, so no library is linked: the libibverbs
 * functions they call by name (ibv_reg_mr, ibv_dereg_mr, ibv_get_cq_event,
 * ibv_ack_cq_events) are defined below, and the verbs.h inlines they use
 * (ibv_post_send, ibv_poll_cq, ...) reach the fake context's ops. Each
 * check prints one line: the helper and its arguments, every call it made
 * with the fields it set, its return value and errno (set to 4242 before
 * each check, so an untouched errno shows).
 *
 * Pointers are printed by name (qp, srq, buf+16, ...), so the output does
 * not depend on where things land in memory. Only fields that the helpers
 * set are printed: the rest of their work requests is left uninitialised.
 *
 * Valid C (gnu11) and C++, so that both languages' view of the inlines
 * is checked.
 */
#include <rdma/rdma_verbs.h>
#include <infiniband/ib.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

#define SENTINEL_ERRNO 4242

/* ---- the objects the checks work on ---- */

static struct ibv_context ctx;
static struct ibv_pd pd;
static struct ibv_qp qp;
static struct ibv_srq srq;
static struct ibv_cq scq, rcq;
static struct ibv_comp_channel sch, rch;
static struct ibv_ah ah;
static struct ibv_mr mr, mr2;
static struct rdma_cm_id id;
static char buf[4096];
static struct ibv_wc wc;

static const char *pname(const void *p)
{
	static char out[8][32];
	static int slot;
	char *s = out[slot++ % 8];
	const char *b = (const char *)p;

	if (p == NULL)
		return "NULL";
	if (p == &ctx) return "ctx";
	if (p == &pd) return "pd";
	if (p == &qp) return "qp";
	if (p == &srq) return "srq";
	if (p == &scq) return "send_cq";
	if (p == &rcq) return "recv_cq";
	if (p == &sch) return "send_ch";
	if (p == &rch) return "recv_ch";
	if (p == &ah) return "ah";
	if (p == &mr) return "mr";
	if (p == &mr2) return "mr2";
	if (p == &id) return "id";
	if (p == &wc) return "wc";
	if (b >= buf && b <= buf + sizeof(buf)) {
		snprintf(s, 32, "buf+%d", (int)(b - buf));
		return s;
	}
	if (b >= (const char *)&id && b < (const char *)(&id + 1)) {
		snprintf(s, 32, "id+%d", (int)(b - (const char *)&id));
		return s;
	}
	return "?";
}

/* ---- the record of what one check did ---- */

static char calls[2048];

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void note(const char *fmt, ...)
{
	va_list ap;
	size_t used = strlen(calls);

	if (used)
		used += (size_t)snprintf(calls + used, sizeof(calls) - used, "; ");
	va_start(ap, fmt);
	vsnprintf(calls + used, sizeof(calls) - used, fmt, ap);
	va_end(ap);
}

static void begin(void)
{
	calls[0] = '\0';
	errno = SENTINEL_ERRNO;
}

static void end_int(const char *what, int ret)
{
	int e = errno;

	printf("%s [%s] -> %d errno=%d\n", what, calls, ret, e);
}

static void end_ptr(const char *what, const void *ret)
{
	int e = errno;

	printf("%s [%s] -> %s errno=%d\n", what, calls, pname(ret), e);
}

/* ---- scripted results of the mocks ---- */

/* Each mocked call takes the next number of its script; past the end it
 * returns the last one. */
struct script {
	int v[8];
	int n, at;
};

static struct script s_post, s_poll, s_notify, s_event, s_dereg;
static int reg_fails;	/* ibv_reg_mr: NULL with errno ENOMEM */
static int event_errno;	/* errno ibv_get_cq_event sets when it fails */

static void set(struct script *s, int n, const int *v)
{
	int i;

	for (i = 0; i < n; i++)
		s->v[i] = v[i];
	s->n = n;
	s->at = 0;
}

static int next(struct script *s)
{
	if (s->n == 0)
		return 0;
	return s->v[s->at < s->n ? s->at++ : s->n - 1];
}

static const char *opname(int op)
{
	switch (op) {
	case IBV_WR_SEND: return "SEND";
	case IBV_WR_RDMA_READ: return "RDMA_READ";
	case IBV_WR_RDMA_WRITE: return "RDMA_WRITE";
	default: return "OTHER";
	}
}

static void note_sges(const char *who, const struct ibv_sge *sg, int n)
{
	int i;

	for (i = 0; i < n && i < 4; i++)
		note("%s.sg[%d]={addr=%s length=%u lkey=0x%x}", who, i,
		     pname((const void *)(uintptr_t)sg[i].addr), sg[i].length, sg[i].lkey);
}

/* ---- the verbs ops the inlines reach through the context ---- */

static int m_post_send(struct ibv_qp *q, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad)
{
	int ret = next(&s_post);

	note("post_send(%s) wr_id=0x%llx next=%s num_sge=%d opcode=%s send_flags=0x%x",
	     pname(q), (unsigned long long)wr->wr_id, pname(wr->next), wr->num_sge,
	     opname(wr->opcode), wr->send_flags);
	note_sges("wr", wr->sg_list, wr->num_sge);
	if (wr->opcode == IBV_WR_RDMA_READ || wr->opcode == IBV_WR_RDMA_WRITE)
		note("rdma={remote_addr=0x%llx rkey=0x%x}",
		     (unsigned long long)wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
	if (q->qp_type == IBV_QPT_UD)
		note("ud={ah=%s remote_qpn=0x%x remote_qkey=0x%x}", pname(wr->wr.ud.ah),
		     wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey);
	if (ret)
		*bad = wr;
	return ret;
}

static void note_recv(const char *op, const void *on, struct ibv_recv_wr *wr)
{
	note("%s(%s) wr_id=0x%llx next=%s num_sge=%d", op, pname(on),
	     (unsigned long long)wr->wr_id, pname(wr->next), wr->num_sge);
	note_sges("wr", wr->sg_list, wr->num_sge);
}

static int m_post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad)
{
	int ret = next(&s_post);

	note_recv("post_recv", q, wr);
	if (ret)
		*bad = wr;
	return ret;
}

static int m_post_srq_recv(struct ibv_srq *s, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad)
{
	int ret = next(&s_post);

	note_recv("post_srq_recv", s, wr);
	if (ret)
		*bad = wr;
	return ret;
}

static int m_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *out)
{
	int ret = next(&s_poll);

	note("poll_cq(%s, %d, %s)=%d", pname(cq), num, pname(out), ret);
	if (ret > 0)
		out->wr_id = 0x77;
	return ret;
}

static int m_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	int ret = next(&s_notify);

	note("req_notify_cq(%s, %d)=%d", pname(cq), solicited_only, ret);
	return ret;
}

/* ---- the libibverbs functions the inlines call by name ---- */

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *p, void *addr, size_t length, int access)
{
	note("ibv_reg_mr(%s, %s, %zu, 0x%x)", pname(p), pname(addr), length, access);
	if (reg_fails) {
		errno = ENOMEM;
		return NULL;
	}
	return &mr;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *p, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	note("ibv_reg_mr_iova2(%s, %s, %zu, 0x%llx, 0x%x)", pname(p), pname(addr),
	     length, (unsigned long long)iova, access);
	return reg_fails ? NULL : &mr;
}

int ibv_dereg_mr(struct ibv_mr *m)
{
	int ret = next(&s_dereg);

	note("ibv_dereg_mr(%s)=%d", pname(m), ret);
	return ret;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	int ret = next(&s_event);

	note("ibv_get_cq_event(%s)=%d", pname(channel), ret);
	if (ret) {
		errno = event_errno;
		return ret;
	}
	*cq = channel == &sch ? &scq : &rcq;
	*cq_context = &id;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	note("ibv_ack_cq_events(%s, %u)", pname(cq), nevents);
}

/* ---- the checks ---- */

static void setup(void)
{
	ctx.ops.post_send = m_post_send;
	ctx.ops.post_recv = m_post_recv;
	ctx.ops.post_srq_recv = m_post_srq_recv;
	ctx.ops.poll_cq = m_poll_cq;
	ctx.ops.req_notify_cq = m_req_notify_cq;
	pd.context = &ctx;
	qp.context = &ctx;
	qp.pd = &pd;
	qp.qp_type = IBV_QPT_RC;
	srq.context = &ctx;
	scq.context = &ctx;
	rcq.context = &ctx;
	sch.context = &ctx;
	rch.context = &ctx;
	mr.context = &ctx;
	mr.pd = &pd;
	mr.addr = buf;
	mr.length = sizeof(buf);
	mr.lkey = 0x1111;
	mr.rkey = 0x2222;
	mr2 = mr;
	mr2.lkey = 0x3333;
	id.verbs = &ctx;
	id.qp = &qp;
	id.pd = &pd;
	id.srq = NULL;
	id.send_cq = &scq;
	id.recv_cq = &rcq;
	id.send_cq_channel = &sch;
	id.recv_cq_channel = &rch;
}

static const int ok[] = { 0 };

static void check_seterrno(void)
{
	static const int vals[] = { 0, ENOMEM, EINVAL, -5 };
	char what[64];
	unsigned i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		begin();
		snprintf(what, sizeof(what), "rdma_seterrno(%d)", vals[i]);
		end_int(what, rdma_seterrno(vals[i]));
	}
}

static void check_reg(void)
{
	int f;

	for (f = 0; f < 2; f++) {
		reg_fails = f;
		begin();
		end_ptr(f ? "rdma_reg_msgs(id, buf+64, 128) failing" : "rdma_reg_msgs(id, buf+64, 128)",
			rdma_reg_msgs(&id, buf + 64, 128));
		begin();
		end_ptr(f ? "rdma_reg_read(id, buf, 4096) failing" : "rdma_reg_read(id, buf, 4096)",
			rdma_reg_read(&id, buf, sizeof(buf)));
		begin();
		end_ptr(f ? "rdma_reg_write(id, buf+8, 8) failing" : "rdma_reg_write(id, buf+8, 8)",
			rdma_reg_write(&id, buf + 8, 8));
	}
	reg_fails = 0;
}

static void check_dereg(void)
{
	static const int vals[] = { 0, EBUSY, EINVAL };
	char what[64];
	unsigned i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		set(&s_dereg, 1, &vals[i]);
		begin();
		snprintf(what, sizeof(what), "rdma_dereg_mr(mr) ibv_dereg_mr=%d", vals[i]);
		end_int(what, rdma_dereg_mr(&mr));
	}
}

static void check_post(int post_ret)
{
	struct ibv_sge sgl[3];
	char what[128];
	void *context = (void *)(uintptr_t)0xc0ffee;
	int i;

	for (i = 0; i < 3; i++) {
		sgl[i].addr = (uint64_t)(uintptr_t)(buf + 100 * i);
		sgl[i].length = 10 + (uint32_t)i;
		sgl[i].lkey = 0x100 + (uint32_t)i;
	}
	set(&s_post, 1, &post_ret);

#define CHECK(desc, call)                                                      \
	do {                                                                   \
		begin();                                                       \
		snprintf(what, sizeof(what), "%s post=%d", desc, post_ret);    \
		end_int(what, call);                                           \
	} while (0)

	id.srq = NULL;
	CHECK("rdma_post_recvv(id, ctx, sgl, 3)", rdma_post_recvv(&id, context, sgl, 3));
	id.srq = &srq;
	CHECK("rdma_post_recvv(id with srq, ctx, sgl, 2)", rdma_post_recvv(&id, context, sgl, 2));
	id.srq = NULL;
	CHECK("rdma_post_sendv(id, ctx, sgl, 3, SIGNALED|SOLICITED)",
	      rdma_post_sendv(&id, context, sgl, 3, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED));
	CHECK("rdma_post_readv(id, ctx, sgl, 2, SIGNALED, 0x1234567890, 0xabc)",
	      rdma_post_readv(&id, context, sgl, 2, IBV_SEND_SIGNALED, 0x1234567890ULL, 0xabc));
	CHECK("rdma_post_writev(id, ctx, sgl, 1, FENCE, 0xfedcba987654, 0xdef)",
	      rdma_post_writev(&id, context, sgl, 1, IBV_SEND_FENCE, 0xfedcba987654ULL, 0xdef));
	CHECK("rdma_post_recv(id, ctx, buf+512, 256, mr)",
	      rdma_post_recv(&id, context, buf + 512, 256, &mr));
	id.srq = &srq;
	CHECK("rdma_post_recv(id with srq, ctx, buf, 4096, mr2)",
	      rdma_post_recv(&id, context, buf, sizeof(buf), &mr2));
	id.srq = NULL;
	CHECK("rdma_post_send(id, ctx, buf+1, 2, mr, SIGNALED)",
	      rdma_post_send(&id, context, buf + 1, 2, &mr, IBV_SEND_SIGNALED));
	CHECK("rdma_post_send(id, ctx, buf+3, 4, NULL, INLINE)",
	      rdma_post_send(&id, context, buf + 3, 4, NULL, IBV_SEND_INLINE));
	CHECK("rdma_post_read(id, ctx, buf+5, 6, mr2, 0, 0x55, 0x66)",
	      rdma_post_read(&id, context, buf + 5, 6, &mr2, 0, 0x55, 0x66));
	CHECK("rdma_post_write(id, ctx, buf+7, 8, mr, SIGNALED, 0x77, 0x88)",
	      rdma_post_write(&id, context, buf + 7, 8, &mr, IBV_SEND_SIGNALED, 0x77, 0x88));
	CHECK("rdma_post_write(id, ctx, buf+9, 10, NULL, INLINE, 0x99, 0xaa)",
	      rdma_post_write(&id, context, buf + 9, 10, NULL, IBV_SEND_INLINE, 0x99, 0xaa));
	qp.qp_type = IBV_QPT_UD;
	CHECK("rdma_post_ud_send(id, ctx, buf+11, 12, mr, SIGNALED, ah, 0x345)",
	      rdma_post_ud_send(&id, context, buf + 11, 12, &mr, IBV_SEND_SIGNALED, &ah, 0x345));
	CHECK("rdma_post_ud_send(id, ctx, buf+13, 14, NULL, 0, ah, 0xffffff)",
	      rdma_post_ud_send(&id, context, buf + 13, 14, NULL, 0, &ah, 0xffffff));
	qp.qp_type = IBV_QPT_RC;
#undef CHECK
}

/* One run of a completion wait, with scripts for poll_cq, req_notify_cq
 * and ibv_get_cq_event. */
static void comp(int send, const char *desc, int npoll, const int *poll,
		 int nnotify, const int *notify, int nevent, const int *event)
{
	char what[160];

	set(&s_poll, npoll, poll);
	set(&s_notify, nnotify, notify);
	set(&s_event, nevent, event);
	event_errno = EAGAIN;
	begin();
	snprintf(what, sizeof(what), "rdma_get_%s_comp(id, wc) %s", send ? "send" : "recv", desc);
	end_int(what, send ? rdma_get_send_comp(&id, &wc) : rdma_get_recv_comp(&id, &wc));
}

static void check_comp(void)
{
	static const int one[] = { 1 };
	static const int zero_one[] = { 0, 1 };
	static const int two_zeros_one[] = { 0, 0, 1 };
	static const int zeros_then_one[] = { 0, 0, 0, 0, 1 };
	static const int zero_neg[] = { 0, -3 };
	static const int neg[] = { -2 };
	static const int zero[] = { 0 };
	static const int notify_fail[] = { ENOSYS };
	static const int event_fail[] = { -1 };
	int send;

	for (send = 1; send >= 0; send--) {
		comp(send, "ready", 1, one, 1, ok, 1, ok);
		comp(send, "after arming", 2, zero_one, 1, ok, 1, ok);
		comp(send, "after one event", 3, two_zeros_one, 1, ok, 1, ok);
		comp(send, "after two events", 5, zeros_then_one, 1, ok, 1, ok);
		comp(send, "poll error", 1, neg, 1, ok, 1, ok);
		comp(send, "poll error after arming", 2, zero_neg, 1, ok, 1, ok);
		comp(send, "arming fails", 1, zero, 1, notify_fail, 1, ok);
		comp(send, "event wait fails", 1, zero, 1, ok, 1, event_fail);
	}
}

static void check_cma_addr(void)
{
	begin();
	end_ptr("rdma_get_local_addr(id)", rdma_get_local_addr(&id));
	begin();
	end_ptr("rdma_get_peer_addr(id)", rdma_get_peer_addr(&id));
}

static void check_ib_addr(void)
{
	struct ib_addr a, b;
	char what[96];
	int i;

	memset(&a, 0, sizeof(a));
	begin();
	end_int("ib_addr_any(::)", ib_addr_any(&a));
	begin();
	end_int("ib_addr_loopback(::)", ib_addr_loopback(&a));
	begin();
	ib_addr_set(&a, 0, 0, 0, htobe32(1));
	snprintf(what, sizeof(what), "ib_addr_set(::1) bytes=%02x%02x..%02x%02x",
		 a.sib_raw[0], a.sib_raw[1], a.sib_raw[14], a.sib_raw[15]);
	end_int(what, 0);
	begin();
	end_int("ib_addr_loopback(::1)", ib_addr_loopback(&a));
	begin();
	end_int("ib_addr_any(::1)", ib_addr_any(&a));
	ib_addr_set(&a, htobe32(0xfe800000), 0, htobe32(0x00020003), htobe32(1));
	begin();
	snprintf(what, sizeof(what),
		 "ib_addr_set(fe80::2:3:0:1) subnet=0x%016llx iface=0x%016llx w32[3]=0x%08x",
		 (unsigned long long)be64toh(a.sib_subnet_prefix),
		 (unsigned long long)be64toh(a.sib_interface_id), be32toh(a.sib_addr32[3]));
	end_int(what, ib_addr_loopback(&a));
	b = a;
	begin();
	end_int("ib_addr_cmp(a, a copy)", ib_addr_cmp(&a, &b));
	for (i = 0; i < 2; i++) {
		b = a;
		b.sib_addr8[15] = (uint8_t)(i ? 0x00 : 0x02);
		begin();
		snprintf(what, sizeof(what), "ib_addr_cmp(a, a with last byte %d) sign", i ? 0 : 2);
		{
			int c = ib_addr_cmp(&a, &b);

			end_int(what, (c > 0) - (c < 0));
		}
	}
	begin();
	end_int("AF_IB PF_IB", AF_IB * 1000 + PF_IB);
}

int main(void)
{
	setup();
	check_seterrno();
	check_reg();
	check_dereg();
	check_post(0);
	check_post(ENOMEM);
	check_comp();
	check_cma_addr();
	check_ib_addr();
	return 0;
}
