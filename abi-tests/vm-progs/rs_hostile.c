/*
 * rs_hostile: a hostile rsockets peer. It speaks the rsockets wire protocol
 * with plain rdma_cm and verbs (no rsockets of its own): accepts one
 * connection from an rsocket client, answers its private data as an
 * rsockets server would, then sends what MODE says:
 *
 *   oversize    "hello", then a data message announcing 0x1FFFFFFF bytes
 *               (more than any receive buffer) with 16 bytes written
 *   zeros       as many zero-length data messages as the client's credits
 *               allow but two, then "hello"
 *   garbage     control messages with unknown codes, the reserved opcodes
 *               (1, 3, 5) with zero length, an SGL update whose sequence
 *               number is out of range, then "hello"
 *   shutdown    "hel", a SHUTDOWN control message in the middle of the
 *               stream, then "lo" (which the client must not see)
 *   disconnect  "hello", a DISCONNECT control message, then more data
 *
 *   rs_hostile ADDR PORT MODE
 *
 * Message format (the rsockets protocol): each message is an RDMA WRITE
 * with immediate into the buffer the client advertised in its private
 * data; the immediate (big-endian) carries the opcode in its top 3 bits and
 * the length or code in the low 29. The private data of both sides is 40
 * bytes: version, flags, credits, 3 reserved bytes, the iomap size, then
 * the target SGL and the data buffer (address, rkey, length), big-endian.
 *
 * Every mode but "disconnect" ends with a DISCONNECT control message, as
 * a peer that closes does. Prints one line per step; the client's side is
 * abi-tests/vm-progs/
 * rs_victim.c, and abi-tests/vm-progs/hostile-peer runs the two.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define OP_DATA 0u
#define OP_SGL 4u
#define OP_CTRL 7u
#define CTRL_DISCONNECT 0u
#define CTRL_SHUTDOWN 2u

struct sge_be {
	uint64_t addr;
	uint32_t key;
	uint32_t length;
} __attribute__((packed));

struct conn_data {
	uint8_t version;
	uint8_t flags;
	uint16_t credits;
	uint8_t reserved[3];
	uint8_t target_iomap_size;
	struct sge_be target_sgl;
	struct sge_be data_buf;
} __attribute__((packed));

static struct rdma_cm_id *conn;
static struct ibv_cq *cq;
static struct ibv_mr *smr, *rmr;
static char sbuf[4096], rbuf[65536];
static uint64_t peer_addr;
static uint32_t peer_key, peer_len, offset;
static int credits;

static uint32_t msg(uint32_t op, uint32_t data)
{
	return (op << 29) | (data & 0x1FFFFFFF);
}

/* One message: `len` bytes of `data` written at the peer's buffer (at the
 * running offset), with the immediate `imm`; waits for its completion. */
static int send_msg(const void *data, uint32_t len, uint32_t imm)
{
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int n;

	if (credits <= 0) {
		printf("out of credits\n");
		return -1;
	}
	memcpy(sbuf, data, len);
	sge.addr = (uintptr_t)sbuf;
	sge.length = len;
	sge.lkey = smr->lkey;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.imm_data = htobe32(imm);
	wr.wr.rdma.remote_addr = peer_addr + offset;
	wr.wr.rdma.rkey = peer_key;
	if (ibv_post_send(conn->qp, &wr, &bad)) {
		printf("post_send: %s\n", strerror(errno));
		return -1;
	}
	/* Our own CQ serves both queues: skip receive completions (the
	 * client's credit updates). */
	do
		n = ibv_poll_cq(cq, 1, &wc);
	while (n == 0 || (n == 1 && (wc.opcode & IBV_WC_RECV)));
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		printf("write completion: %s\n", n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		return -1;
	}
	offset += len;
	credits--;
	return 0;
}

static int data(const char *s)
{
	return send_msg(s, strlen(s), msg(OP_DATA, strlen(s)));
}

static int run_mode(const char *mode)
{
	static const char junk[16] = "0123456789abcdef";
	int i;

	if (!strcmp(mode, "oversize"))
		return data("hello") || send_msg(junk, 16, msg(OP_DATA, 0x1FFFFFFF));
	if (!strcmp(mode, "zeros")) {
		/* Room is kept for "hello" and the closing DISCONNECT. */
		for (i = credits - 2; i > 0; i--)
			if (send_msg("", 0, msg(OP_DATA, 0)))
				return -1;
		return data("hello");
	}
	if (!strcmp(mode, "garbage"))
		return send_msg("", 0, msg(OP_CTRL, 12345)) || send_msg("", 0, msg(OP_CTRL, 0x1FFFFFFF)) ||
		       send_msg("", 0, msg(1, 0)) || send_msg("", 0, msg(3, 0)) || send_msg("", 0, msg(5, 0)) ||
		       send_msg("", 0, msg(OP_SGL, 0x1FFFFFFF)) || data("hello");
	if (!strcmp(mode, "shutdown"))
		return data("hel") || send_msg("", 0, msg(OP_CTRL, CTRL_SHUTDOWN)) || data("lo");
	if (!strcmp(mode, "disconnect"))
		return data("hello") || send_msg("", 0, msg(OP_CTRL, CTRL_DISCONNECT)) || data(" again");
	printf("unknown mode %s\n", mode);
	return -1;
}

int main(int argc, char **argv)
{
	struct rdma_conn_param param = { 0 };
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_event_channel *ch;
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *ev;
	const struct conn_data *req;
	struct conn_data rep = { 0 };
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	struct ibv_pd *pd;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4) {
		fprintf(stderr, "usage: rs_hostile ADDR PORT MODE\n");
		return 2;
	}
	a.sin_port = htons(atoi(argv[2]));
	inet_pton(AF_INET, argv[1], &a.sin_addr);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&a) || rdma_listen(listen_id, 1)) {
		printf("listen: %s\n", strerror(errno));
		return 1;
	}
	if (rdma_get_cm_event(ch, &ev) || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST ||
	    ev->param.conn.private_data_len < sizeof(*req)) {
		printf("no usable connection request\n");
		return 1;
	}
	conn = ev->id;
	req = ev->param.conn.private_data;
	peer_addr = be64toh(req->data_buf.addr);
	peer_key = be32toh(req->data_buf.key);
	peer_len = be32toh(req->data_buf.length);
	credits = be16toh(req->credits);
	printf("request: version %u, %s credits, a data buffer\n", req->version, credits > 8 ? "enough" : "few");

	pd = ibv_alloc_pd(conn->verbs);
	cq = ibv_create_cq(conn->verbs, 256, NULL, NULL, 0);
	smr = ibv_reg_mr(pd, sbuf, sizeof(sbuf), IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 128;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (!smr || !rmr || rdma_create_qp(conn, pd, &qa)) {
		printf("qp: %s\n", strerror(errno));
		return 1;
	}
	/* Receives for what the client sends us (its credit updates). */
	for (i = 0; i < 128; i++) {
		rwr.wr_id = i;
		if (ibv_post_recv(conn->qp, &rwr, &rbad))
			break;
	}
	rep.version = 1;
	rep.flags = 0;
	rep.credits = htobe16(64);
	rep.target_sgl.addr = htobe64((uintptr_t)rbuf);
	rep.target_sgl.key = htobe32(rmr->rkey);
	rep.target_sgl.length = htobe32(2);
	rep.data_buf.addr = htobe64((uintptr_t)rbuf + 4096);
	rep.data_buf.key = htobe32(rmr->rkey);
	rep.data_buf.length = htobe32(32768);
	param.private_data = &rep;
	param.private_data_len = sizeof(rep);
	param.responder_resources = param.initiator_depth = 1;
	param.rnr_retry_count = 7;
	rdma_ack_cm_event(ev);
	if (rdma_accept(conn, &param)) {
		printf("accept: %s\n", strerror(errno));
		return 1;
	}
	if (rdma_get_cm_event(ch, &ev) || ev->event != RDMA_CM_EVENT_ESTABLISHED) {
		printf("not established\n");
		return 1;
	}
	rdma_ack_cm_event(ev);
	printf("established\n");
	if (credits > 100)
		credits = 100;
	if (peer_len < 64) {
		printf("the client's buffer is too small\n");
		return 1;
	}
	printf("mode %s: %s\n", argv[3], run_mode(argv[3]) ? "stopped early" : "all sent");
	/* Then a peer's ordinary goodbye: the client's reads end there. */
	if (strcmp(argv[3], "disconnect"))
		send_msg("", 0, msg(OP_CTRL, CTRL_DISCONNECT));

	/* Wait for the client to go (its disconnect), at most 20 s. */
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
	for (i = 0; i < 200; i++) {
		struct rdma_cm_event *e;

		if (!rdma_get_cm_event(ch, &e)) {
			int done = e->event == RDMA_CM_EVENT_DISCONNECTED;

			rdma_ack_cm_event(e);
			if (done)
				break;
		}
		usleep(100000);
	}
	rdma_disconnect(conn);
	rdma_destroy_qp(conn);
	rdma_destroy_id(conn);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return 0;
}
