/*
 * The object verbs around PDs and MRs that pingpong programs do not reach,
 * on every device, printing return values, errno and the fork protection of
 * the buffers involved, so that a run with Debian's libibverbs and one with
 * ours can be compared line by line:
 *  - ibv_rereg_mr with each flag and each input error, and where the
 *    "don't copy on fork" marks end up;
 *  - ibv_reg_dmabuf_mr;
 *  - ibv_import_device (of a dup()ed command fd, a non-device and a
 *    character device that is no RDMA device), import/unimport of PD, MR, DM;
 *  - the verbs.h inline verbs that reach the library through the context:
 *    TD, parent domain, XRCD, WQ, RWQ indirection table, flows, flow
 *    actions, counters, device memory, null MR, advise MR. Soft-RoCE
 *    implements none of them; the point is the same answer. Their destroy
 *    side is called on stand-in objects that only carry the context.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define PAGE 4096

/* Whether the mapping that holds addr is marked "don't copy on fork". */
static const char *dontcopy(void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0;
	const char *res = "?";

	if (!f)
		return res;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			res = strstr(line, " dc") ? "dc" : "-";
			break;
		}
	}
	fclose(f);
	return res;
}

static void *pages(size_t n)
{
	void *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	memset(p, 1, n * PAGE);
	return p;
}

#define SHOW_INT(expr) do { errno = 0; int r_ = (expr); \
	printf("%s = %d errno=%d\n", #expr, r_, r_ ? errno : 0); } while (0)
#define SHOW_PTR(expr) do { errno = 0; void *p_ = (expr); \
	printf("%s: %s errno=%d\n", #expr, p_ ? "ok" : "NULL", p_ ? 0 : errno); } while (0)

static void rereg(struct ibv_context *ctx, struct ibv_pd *pd)
{
	/* Two separate mappings with a guard page between them, so each
	 * buffer's fork mark shows in its own mapping. */
	char *a = pages(3), *b = a + 2 * PAGE;
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);

	munmap(a + PAGE, PAGE);
	struct ibv_mr *mr = ibv_reg_mr(pd, a, PAGE, IBV_ACCESS_LOCAL_WRITE);
	printf("reg_mr: %s  a=%s b=%s\n", mr ? "ok" : strerror(errno), dontcopy(a), dontcopy(b));
	if (!mr)
		return;
	SHOW_INT(ibv_rereg_mr(mr, 0, NULL, NULL, 0, 0));
	SHOW_INT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, b, PAGE, 0));
	printf("  after translation: a=%s b=%s addr ok=%d len=%zu\n", dontcopy(a), dontcopy(b),
	       mr->addr == a, mr->length);
	SHOW_INT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, b, 0, 0));
	SHOW_INT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, PAGE, 0));
	SHOW_INT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0));
	printf("  pd unchanged=%d\n", mr->pd == pd);
	SHOW_INT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
	SHOW_INT(ibv_rereg_mr(mr, 0, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE));
	SHOW_INT(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, IBV_ACCESS_LOCAL_WRITE));
	SHOW_INT(ibv_rereg_mr(mr, IBV_REREG_MR_FLAGS_SUPPORTED, pd2, b, PAGE,
			      IBV_ACCESS_LOCAL_WRITE));
	printf("  after all flags: a=%s b=%s\n", dontcopy(a), dontcopy(b));
	SHOW_INT(ibv_rereg_mr(mr, 8, NULL, NULL, 0, 0));
	SHOW_INT(ibv_rereg_mr(mr, -1, NULL, NULL, 0, 0));
	SHOW_INT(ibv_rereg_mr(mr, IBV_REREG_MR_FLAGS_SUPPORTED | 0x10, pd2, b, PAGE, 0));
	SHOW_INT(ibv_dereg_mr(mr));
	printf("  after dereg: a=%s b=%s\n", dontcopy(a), dontcopy(b));
	if (pd2)
		ibv_dealloc_pd(pd2);
	munmap(a, PAGE);
	munmap(b, PAGE);
}

static void imports(struct ibv_context *ctx, struct ibv_pd *pd)
{
	int fd = dup(ctx->cmd_fd);
	struct ibv_context *ictx;

	errno = 0;
	ictx = ibv_import_device(fd);
	printf("import_device(dup cmd_fd): %s errno=%d fd still open=%d\n", ictx ? "ok" : "NULL",
	       ictx ? 0 : errno, fcntl(fd, F_GETFD) != -1);
	if (ictx) {
		printf("  device same=%d cmd_fd=dup:%d async_fd>=0:%d\n", ictx->device == ctx->device,
		       ictx->cmd_fd == fd, ictx->async_fd >= 0);
		struct ibv_pd *ipd = ibv_import_pd(ictx, pd->handle);
		printf("  import_pd: %s\n", ipd ? "ok" : strerror(errno));
		if (ipd)
			ibv_unimport_pd(ipd);
		printf("  close imported = %d\n", ibv_close_device(ictx));
	} else {
		close(fd);
	}
	SHOW_PTR(ibv_import_device(-1));
	fd = open("/proc/self/status", O_RDONLY);
	SHOW_PTR(ibv_import_device(fd));
	close(fd);
	fd = open("/dev/null", O_RDWR);
	SHOW_PTR(ibv_import_device(fd));
	printf("  /dev/null fd still open=%d\n", fcntl(fd, F_GETFD) != -1);
	close(fd);

	SHOW_PTR(ibv_import_pd(ctx, pd->handle));
	SHOW_PTR(ibv_import_pd(ctx, 0xdead));
	static char mem[PAGE];
	struct ibv_mr *mr = ibv_reg_mr(pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	if (mr) {
		SHOW_PTR(ibv_import_mr(pd, mr->handle));
		SHOW_PTR(ibv_import_mr(pd, 0xdead));
		SHOW_INT(ibv_dereg_mr(mr));
	}
	SHOW_PTR(ibv_import_dm(ctx, 0));
	SHOW_PTR(ibv_import_dm(ctx, 0xdead));

	/* Unimport on a provider without it does nothing at all. */
	struct ibv_pd *pd3 = ibv_alloc_pd(ctx);
	if (pd3) {
		errno = 4321;
		ibv_unimport_pd(pd3);
		printf("unimport_pd: errno=%d\n", errno);
		SHOW_INT(ibv_dealloc_pd(pd3));
	}
	mr = ibv_reg_mr(pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	if (mr) {
		errno = 4321;
		ibv_unimport_mr(mr);
		printf("unimport_mr: errno=%d\n", errno);
		SHOW_INT(ibv_dereg_mr(mr));
	}
	struct ibv_dm fake_dm = { .context = ctx };
	errno = 4321;
	ibv_unimport_dm(&fake_dm);
	printf("unimport_dm: errno=%d\n", errno);
}

static void inline_verbs(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_td_init_attr td_attr = {};
	struct ibv_parent_domain_init_attr pd_attr = { .pd = pd };
	struct ibv_xrcd_init_attr xrcd_attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT };
	struct ibv_td fake_td = { .context = ctx };
	struct ibv_xrcd fake_xrcd = { .context = ctx };

	SHOW_PTR(ibv_alloc_td(ctx, &td_attr));
	SHOW_INT(ibv_dealloc_td(&fake_td));
	SHOW_PTR(ibv_alloc_parent_domain(ctx, &pd_attr));
	SHOW_PTR(ibv_open_xrcd(ctx, &xrcd_attr));
	SHOW_INT(ibv_close_xrcd(&fake_xrcd));

	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_wq_init_attr wq_attr = { .wq_type = IBV_WQT_RQ, .max_wr = 16, .max_sge = 1,
					    .pd = pd, .cq = cq };
	struct ibv_wq_attr wq_mod = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };
	struct ibv_wq fake_wq = { .context = ctx };
	struct ibv_wq *wqs[1] = { &fake_wq };
	struct ibv_rwq_ind_table_init_attr ind_attr = { .log_ind_tbl_size = 0, .ind_tbl = wqs };
	struct ibv_rwq_ind_table fake_ind = { .context = ctx };

	SHOW_PTR(ibv_create_wq(ctx, &wq_attr));
	SHOW_INT(ibv_modify_wq(&fake_wq, &wq_mod));
	SHOW_INT(ibv_destroy_wq(&fake_wq));
	SHOW_PTR(ibv_create_rwq_ind_table(ctx, &ind_attr));
	SHOW_INT(ibv_destroy_rwq_ind_table(&fake_ind));

	struct ibv_qp fake_qp = { .context = ctx };
	struct ibv_flow_attr flow_attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(flow_attr),
					   .port = 1 };
	struct ibv_flow fake_flow = { .context = ctx };
	struct ibv_flow_action_esp_attr esp = {};
	struct ibv_flow_action fake_action = { .context = ctx };

	SHOW_PTR(ibv_create_flow(&fake_qp, &flow_attr));
	SHOW_INT(ibv_destroy_flow(&fake_flow));
	SHOW_PTR(ibv_create_flow_action_esp(ctx, &esp));
	SHOW_INT(ibv_modify_flow_action_esp(&fake_action, &esp));
	SHOW_INT(ibv_destroy_flow_action(&fake_action));

	struct ibv_counters_init_attr cnt_attr = {};
	struct ibv_counters fake_cnt = { .context = ctx };
	struct ibv_counter_attach_attr attach = { .counter_desc = IBV_COUNTER_PACKETS };
	uint64_t vals[2];

	SHOW_PTR(ibv_create_counters(ctx, &cnt_attr));
	SHOW_INT(ibv_attach_counters_point_flow(&fake_cnt, &attach, &fake_flow));
	SHOW_INT(ibv_read_counters(&fake_cnt, vals, 2, IBV_READ_COUNTERS_ATTR_PREFER_CACHED));
	SHOW_INT(ibv_destroy_counters(&fake_cnt));

	struct ibv_alloc_dm_attr dm_attr = { .length = 64 };
	struct ibv_dm fake_dm = { .context = ctx };

	SHOW_PTR(ibv_alloc_dm(ctx, &dm_attr));
	SHOW_INT(ibv_free_dm(&fake_dm));
	SHOW_PTR(ibv_reg_dm_mr(pd, &fake_dm, 0, 64, IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE));

	static char mem[PAGE];
	struct ibv_sge sge = { .addr = (uintptr_t)mem, .length = sizeof(mem) };

	SHOW_PTR(ibv_alloc_null_mr(pd));
	SHOW_INT(ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1));
	SHOW_PTR(ibv_reg_dmabuf_mr(pd, 0, PAGE, 0, -1, IBV_ACCESS_LOCAL_WRITE));
	SHOW_PTR(ibv_reg_dmabuf_mr(pd, PAGE, PAGE, 0x10000, 0, IBV_ACCESS_LOCAL_WRITE));
	if (cq)
		ibv_destroy_cq(cq);
}

int main(void)
{
	struct ibv_device **list;
	int i, num;

	printf("fork_init = %d initialized=%d\n", ibv_fork_init(), (int)ibv_is_fork_initialized());
	list = ibv_get_device_list(&num);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < num; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_pd *pd;

		printf("device %s: open %s\n", ibv_get_device_name(list[i]),
		       ctx ? "ok" : strerror(errno));
		if (!ctx)
			continue;
		pd = ibv_alloc_pd(ctx);
		printf("alloc_pd: %s\n", pd ? "ok" : strerror(errno));
		if (pd) {
			rereg(ctx, pd);
			imports(ctx, pd);
			inline_verbs(ctx, pd);
			printf("dealloc_pd = %d\n", ibv_dealloc_pd(pd));
		}
		printf("close = %d\n", ibv_close_device(ctx));
	}
	ibv_free_device_list(list);
	return 0;
}
