/*
 * cmd-callgrind: user-space instructions per call of the ibv_cmd_* helpers a
 * provider (rxe) uses to create, modify and destroy its objects, counted by
 * valgrind's callgrind (deterministic whatever the host's load). No device
 * is needed: as in abi-tests/cmd_diff/cmddiff.c, ioctl() and write() are
 * defined here (link with -rdynamic so they take precedence over libc's for
 * the library too) and answer the fake context's command FD; they only mark
 * the ioctl outputs valid and zero the destroy responses (no events), so
 * their own cost is a few dozen instructions.
 *
 * With CMD_IOCTL_WRITE=1 in the environment the fake context says the kernel
 * takes write() commands through the ioctl (UVERBS_METHOD_INVOKE_WRITE), as
 * every kernel since 5.x does and as the Soft-RoCE VM's does: modify_qp,
 * reg_mr and alloc_pd then go through that path in both libraries. (It sets
 * the flag in the library's private context: byte 4 of ours, byte 20 of
 * Debian's, after its 2-word bitmap of unsupported ioctls.) The run also
 * times ibv_copy_qp_attr_from_kern, which librdmacm calls for every
 * rdma_init_qp_attr.
 *
 * The command and response structs have rxe's sizes (core struct, no
 * driver command data; rxe's mminfo responses). Each helper runs N times
 * after one warm-up call; callgrind_annotate --inclusive=yes gives its total,
 * divide by N + 1 (the warm-up call is counted too, it is cheap enough not to
 * matter; or compare N and 2N runs). See docs/benchmarks.md, "libibverbs
 * command path".
 *
 *   gcc -O2 -g -rdynamic -o cmd-callgrind cmd-callgrind.c -libverbs
 *   [LD_LIBRARY_PATH=target/release] valgrind --tool=callgrind \
 *       --callgrind-out-file=cg.out ./cmd-callgrind 1000
 *   callgrind_annotate --inclusive=yes cg.out | grep ibv_cmd_
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl.h>
#include <rdma/rdma_user_rxe.h>

#define FAKE_FD 500

struct verbs_mr { struct ibv_mr ibv_mr; int mr_type; int access; };
struct verbs_xrcd { struct ibv_xrcd xrcd; uint32_t comp_mask; uint32_t handle; };
struct verbs_qp {
	union { struct ibv_qp qp; struct ibv_qp_ex qp_ex; };
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};
struct ex_hdr { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_ex_cmd_hdr ex_hdr; };

int ibv_cmd_alloc_pd(struct ibv_context *, struct ibv_pd *, void *cmd, size_t,
		     struct ib_uverbs_alloc_pd_resp *, size_t);
int ibv_cmd_dealloc_pd(struct ibv_pd *);
int ibv_cmd_reg_mr(struct ibv_pd *, void *, size_t, uint64_t, int, struct verbs_mr *, void *cmd,
		   size_t, struct ib_uverbs_reg_mr_resp *, size_t);
int ibv_cmd_dereg_mr(struct verbs_mr *);
int ibv_cmd_create_cq(struct ibv_context *, int, struct ibv_comp_channel *, int, struct ibv_cq *,
		      void *cmd, size_t, struct ib_uverbs_create_cq_resp *, size_t);
int ibv_cmd_destroy_cq(struct ibv_cq *);
int ibv_cmd_create_qp(struct ibv_pd *, struct ibv_qp *, struct ibv_qp_init_attr *, void *cmd,
		      size_t, struct ib_uverbs_create_qp_resp *, size_t);
int ibv_cmd_create_qp_ex(struct ibv_context *, struct verbs_qp *, struct ibv_qp_init_attr_ex *,
			 void *cmd, size_t, struct ib_uverbs_create_qp_resp *, size_t);
int ibv_cmd_create_qp_ex2(struct ibv_context *, struct verbs_qp *, struct ibv_qp_init_attr_ex *,
			  void *cmd, size_t, struct ib_uverbs_ex_create_qp_resp *, size_t);
int ibv_cmd_modify_qp(struct ibv_qp *, struct ibv_qp_attr *, int, void *cmd, size_t);
int ibv_cmd_destroy_qp(struct ibv_qp *);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst, struct ib_uverbs_qp_attr *src);

/* rxe's command structs (rxe-abi.h's DECLARE_DRV_CMD: no driver input). */
struct c_alloc_pd { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_alloc_pd core; };
struct c_reg_mr { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_reg_mr core; };
struct c_create_cq { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_create_cq core; };
struct r_create_cq { struct ib_uverbs_create_cq_resp core; struct rxe_create_cq_resp drv; };
struct c_create_qp { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_create_qp core; };
struct r_create_qp { struct ib_uverbs_create_qp_resp core; struct rxe_create_qp_resp drv; };
struct c_create_qp_ex { struct ex_hdr hdr; struct ib_uverbs_ex_create_qp core; };
struct r_create_qp_ex { struct ib_uverbs_ex_create_qp_resp core; struct rxe_create_qp_resp drv; };
struct c_modify_qp { struct ib_uverbs_cmd_hdr hdr; struct ib_uverbs_modify_qp core; };

/* The fake kernel: every ioctl succeeds and marks its attributes written;
 * every write succeeds (responses keep what the caller had). */
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
	for (unsigned i = 0; i < h->num_attrs; i++) {
		struct ib_uverbs_attr *a = &h->attrs[i];

		/* The destroy responses carry the event counts the helper waits
		 * for: report none. */
		if ((h->object_id == UVERBS_OBJECT_CQ && h->method_id == UVERBS_METHOD_CQ_DESTROY &&
		     a->attr_id == UVERBS_ATTR_DESTROY_CQ_RESP) ||
		    (h->object_id == UVERBS_OBJECT_QP && h->method_id == UVERBS_METHOD_QP_DESTROY &&
		     a->attr_id == UVERBS_ATTR_DESTROY_QP_RESP))
			memset((void *)(uintptr_t)a->data, 0, a->len);
		a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	}
	return 0;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (fd != FAKE_FD)
		return syscall(SYS_write, fd, buf, n);
	return n;
}

static struct ibv_context *new_ctx(void)
{
	struct verbs_context *v = calloc(1, sizeof(*v));

	v->priv = calloc(1, 4096);
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->context.cmd_fd = FAKE_FD;
	v->context.async_fd = -1;
	pthread_mutex_init(&v->context.mutex, NULL);
	if (getenv("CMD_IOCTL_WRITE") && atoi(getenv("CMD_IOCTL_WRITE"))) {
		Dl_info info;
		char *file;

		if (!dladdr((void *)ibv_cmd_modify_qp, &info) || !info.dli_fname ||
		    !(file = realpath(info.dli_fname, NULL))) {
			fprintf(stderr, "cannot tell which libibverbs this is\n");
			exit(1);
		}
		/* Debian's file is libibverbs.so.1.14.44.0, ours libibverbs.so */
		((char *)v->priv)[strstr(file, ".so.1.") ? 20 : 4] = 1;
		free(file);
	}
	return &v->context;
}

static struct ibv_context *ctx;
static struct ibv_pd pd;
static struct ibv_cq scq, rcq;
static unsigned long n;

#define CHECK(call) do { int r_ = (call); if (r_) { fprintf(stderr, "%s: %d\n", #call, r_); exit(1); } } while (0)

static void __attribute__((noinline)) b_pd(void)
{
	struct c_alloc_pd cmd;
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_pd p;

	for (unsigned long i = 0; i <= n; i++) {
		CHECK(ibv_cmd_alloc_pd(ctx, &p, &cmd, sizeof(cmd), &resp, sizeof(resp)));
		p.context = ctx;
		CHECK(ibv_cmd_dealloc_pd(&p));
	}
}

static void __attribute__((noinline)) b_mr(void)
{
	static char buf[4096];
	struct c_reg_mr cmd;
	struct ib_uverbs_reg_mr_resp resp;
	struct verbs_mr mr;

	for (unsigned long i = 0; i <= n; i++) {
		CHECK(ibv_cmd_reg_mr(&pd, buf, sizeof(buf), (uintptr_t)buf, IBV_ACCESS_LOCAL_WRITE, &mr,
				     &cmd, sizeof(cmd), &resp, sizeof(resp)));
		CHECK(ibv_cmd_dereg_mr(&mr));
	}
}

static void __attribute__((noinline)) b_cq(void)
{
	struct c_create_cq cmd;
	struct r_create_cq resp;
	struct ibv_cq cq;

	for (unsigned long i = 0; i <= n; i++) {
		memset(&cq, 0, sizeof(cq));
		pthread_mutex_init(&cq.mutex, NULL);
		pthread_cond_init(&cq.cond, NULL);
		CHECK(ibv_cmd_create_cq(ctx, 256, NULL, 0, &cq, &cmd, sizeof(cmd), &resp.core,
					sizeof(resp)));
		CHECK(ibv_cmd_destroy_cq(&cq));
	}
}

static void init_qp(struct ibv_qp *qp)
{
	memset(qp, 0, sizeof(*qp));
	pthread_mutex_init(&qp->mutex, NULL);
	pthread_cond_init(&qp->cond, NULL);
}

static void __attribute__((noinline)) b_qp(void)
{
	struct c_create_qp cmd;
	struct r_create_qp resp;
	struct c_modify_qp mcmd;
	struct verbs_qp vqp;
	struct ibv_qp_init_attr ia;
	/* The modifies of an RC connection as librdmacm makes them. */
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				    .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };
	struct ibv_qp_attr rtr = { .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
				   .dest_qp_num = 0x11, .rq_psn = 0x123, .max_dest_rd_atomic = 4,
				   .min_rnr_timer = 12,
				   .ah_attr = { .dlid = 0, .is_global = 1, .port_num = 1,
						.grh = { .hop_limit = 64, .sgid_index = 1 } } };
	struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
				   .rnr_retry = 7, .sq_psn = 0x321, .max_rd_atomic = 4 };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };

	for (unsigned long i = 0; i <= n; i++) {
		init_qp(&vqp.qp);
		ia = (struct ibv_qp_init_attr){ .send_cq = &scq, .recv_cq = &rcq,
						.cap = { 16, 16, 1, 1, 0 }, .qp_type = IBV_QPT_RC };
		CHECK(ibv_cmd_create_qp(&pd, &vqp.qp, &ia, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
		vqp.qp.context = ctx;
		CHECK(ibv_cmd_modify_qp(&vqp.qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS, &mcmd, sizeof(mcmd)));
		CHECK(ibv_cmd_modify_qp(&vqp.qp, &rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER, &mcmd, sizeof(mcmd)));
		CHECK(ibv_cmd_modify_qp(&vqp.qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
				       &mcmd, sizeof(mcmd)));
		CHECK(ibv_cmd_modify_qp(&vqp.qp, &err, IBV_QP_STATE, &mcmd, sizeof(mcmd)));
		CHECK(ibv_cmd_destroy_qp(&vqp.qp));
	}
}

static void __attribute__((noinline)) b_qp_ex(void)
{
	struct c_create_qp cmd;
	struct r_create_qp resp;
	struct c_create_qp_ex xcmd;
	struct r_create_qp_ex xresp;
	struct verbs_qp vqp;
	struct ibv_qp_init_attr_ex ie;

	for (unsigned long i = 0; i <= n; i++) {
		init_qp(&vqp.qp);
		ie = (struct ibv_qp_init_attr_ex){ .send_cq = &scq, .recv_cq = &rcq,
						   .cap = { 16, 16, 1, 1, 0 }, .qp_type = IBV_QPT_RC,
						   .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = &pd };
		CHECK(ibv_cmd_create_qp_ex(ctx, &vqp, &ie, &cmd, sizeof(cmd), &resp.core, sizeof(resp)));
		vqp.qp.context = ctx;
		CHECK(ibv_cmd_destroy_qp(&vqp.qp));
		init_qp(&vqp.qp);
		ie = (struct ibv_qp_init_attr_ex){ .send_cq = &scq, .recv_cq = &rcq,
						   .cap = { 16, 16, 1, 1, 0 }, .qp_type = IBV_QPT_RC,
						   .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = &pd };
		CHECK(ibv_cmd_create_qp_ex2(ctx, &vqp, &ie, &xcmd, sizeof(xcmd), &xresp.core,
					    sizeof(xresp)));
	}
}

/* librdmacm's rdma_init_qp_attr: the kernel's attributes into the caller's. */
static void __attribute__((noinline)) b_copy(void)
{
	struct ib_uverbs_qp_attr k;
	struct ibv_qp_attr a;

	memset(&k, 0, sizeof(k));
	k.qp_attr_mask = 0x1fffff;
	k.qp_state = IBV_QPS_RTR;
	k.path_mtu = IBV_MTU_1024;
	k.dest_qp_num = 0x11;
	k.ah_attr.is_global = 1;
	k.ah_attr.grh.hop_limit = 64;
	for (unsigned long i = 0; i <= n; i++) {
		ibv_copy_qp_attr_from_kern(&a, &k);
		__asm__ volatile("" : : "r"(&a) : "memory");
	}
}

int main(int argc, char **argv)
{
	n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	ctx = new_ctx();
	pd = (struct ibv_pd){ .context = ctx, .handle = 0x11 };
	scq = (struct ibv_cq){ .context = ctx, .handle = 0x21 };
	rcq = (struct ibv_cq){ .context = ctx, .handle = 0x22 };
	b_pd();
	b_mr();
	b_cq();
	b_qp();
	b_qp_ex();
	b_copy();
	printf("n %lu\n", n);
	return 0;
}
