/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-ud: two HCA engines cabled back to back (an in-memory
 * cable), their host QPs exchanging UD and GSI datagrams and SMPs: a
 * LID-routed and a directed-route SMP answered by the far SMA and the
 * responses reaching QP0, a PMA query answered by the far firmware, a GMP
 * reaching the far host's QP1; Q_Key and P_Key violations, an empty RQ, a
 * short receive buffer, bad lkeys and opcodes, loopback to the own LID,
 * and a burst that has to wait for link credit (none lost).
 */
#include "harness.h"
#include "qp_host.h"

#define NFRAMES		4096
#define LID_A		0x11
#define LID_B		0x22
#define UD_QKEY		0x5eed0001U

struct wire {
	unsigned int n, head;
	uint8_t *f[NFRAMES];
	size_t len[NFRAMES];
};

static struct fake_host *H[2];
static struct wire W[2];		/* W[i]: frames on their way to H[i] */
static struct sfab_engine_ops b2b_ops;
static unsigned long wire_frames;

static void b2b_tx(void *opaque, const uint8_t *f, size_t len)
{
	struct wire *w = &W[opaque == H[0] ? 1 : 0];

	if (w->n == NFRAMES) {
		fprintf(stderr, "b2b: wire full\n");
		abort();
	}
	w->f[w->n] = malloc(len);
	memcpy(w->f[w->n], f, len);
	w->len[w->n++] = len;
	if (len != SFAB_WIRE_FC_PKT_LEN)
		wire_frames++;
}

/* deliver frames both ways and run both engines until nothing moves */
static void pump(void)
{
	bool busy;
	int rounds = 0;

	do {
		unsigned int i;

		busy = false;
		for (i = 0; i < 2; i++) {
			struct wire *w = &W[i];

			while (w->head < w->n) {
				uint8_t *f = w->f[w->head];
				size_t len = w->len[w->head];

				w->head++;
				sfab_engine_cable_rx(H[i]->e, f, len);
				free(f);
				busy = true;
			}
			w->head = w->n = 0;
			if (sfab_engine_work_pending(H[i]->e)) {
				host_run(H[i]);
				busy = true;
			}
		}
	} while (busy && ++rounds < 100000);
}

struct node {
	struct fake_host *h;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp0, qp1, ud;
	uint64_t buf;		/* 64 KiB of data buffers */
};

static struct node N[2];

static void node_up(unsigned int i, uint16_t lid)
{
	struct node *n = &N[i];

	memset(n, 0, sizeof(*n));
	n->h = H[i] = qh_up();
	b2b_ops = fh_ops;
	b2b_ops.cable_tx = b2b_tx;
	n->h->e->ops = &b2b_ops;
	CHECK_EQ(qh_eq_new(n->h, &n->eq, 6, 2), 0);
	CHECK_EQ(qh_cq_new(n->h, &n->cq, 9, n->eq.eqn), 0);
	CHECK_EQ(qh_qp_new(n->h, &n->qp0, SFAB_QPT_SMI, 6, n->cq.cqn, n->cq.cqn), 0);
	CHECK_EQ(qh_qp_new(n->h, &n->qp1, SFAB_QPT_GSI, 6, n->cq.cqn, n->cq.cqn), 0);
	CHECK_EQ(qh_qp_new(n->h, &n->ud, SFAB_QPT_UD, 6, n->cq.cqn, n->cq.cqn), 0);
	CHECK_EQ(qh_qp_rts(n->h, &n->qp0, 0), 0);
	CHECK_EQ(qh_qp_rts(n->h, &n->qp1, SFAB_QP1_QKEY), 0);
	CHECK_EQ(qh_qp_rts(n->h, &n->ud, UD_QKEY), 0);
	n->buf = host_alloc(n->h, 65536, 4096);
	n->h->e->port.lid = lid;
}

/* two nodes, cabled, links trained and Active */
static void fabric_up(void)
{
	unsigned int i;

	memset(W, 0, sizeof(W));
	node_up(0, LID_A);
	node_up(1, LID_B);
	sfab_engine_cable_up(H[0]->e);
	sfab_engine_cable_up(H[1]->e);
	pump();
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&H[i]->e->port.link, SFAB_PORT_ARMED);
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&H[i]->e->port.link, SFAB_PORT_ACTIVE);
	pump();
	for (i = 0; i < 2; i++)
		CHECK_EQ(H[i]->e->port.link.state, SFAB_PORT_ACTIVE);
}

static void fabric_down(void)
{
	unsigned int i, j;

	for (i = 0; i < 2; i++) {
		for (j = W[i].head; j < W[i].n; j++)
			free(W[i].f[j]);
		W[i].n = W[i].head = 0;
		host_free(H[i]);
		H[i] = NULL;
	}
}

static void send(unsigned int i, struct qh_qp *qp, const struct qh_send *s)
{
	qh_post_send(N[i].h, qp, s);
	qh_qp_db(N[i].h, qp, true);
	pump();
}

static void post_recv(unsigned int i, struct qh_qp *qp, uint64_t wr_id,
		      uint64_t off, uint32_t len)
{
	qh_post_recv(N[i].h, qp, wr_id, N[i].buf + off, len, QH_LKEY);
	qh_qp_db(N[i].h, qp, false);
}

static bool poll(unsigned int i, struct sfab_cqe *cqe)
{
	return qh_cq_poll(N[i].h, &N[i].cq, cqe);
}

static uint32_t port_counter(unsigned int i, bool qkey)
{
	struct sfab_port_attr a;
	struct sfab_aq_cmd c = cmd_query_port(N[i].h->scratch, sizeof(a), 1);

	host_cmd(N[i].h, &c);
	memcpy(&a, hp(N[i].h, N[i].h->scratch), sizeof(a));
	return sfab_le32_to_cpu(qkey ? a.qkey_viol_cntr : a.bad_pkey_cntr);
}

TEST(ud_exchange)
{
	struct sfab_cqe cqe;
	uint8_t *src, *dst;
	unsigned int k;
	struct qh_send s = {
		.wr_id = 77, .opcode = SFAB_WQE_SEND,
		.flags = SFAB_WQE_SIGNALED | SFAB_WQE_SOLICITED,
		.qkey = UD_QKEY, .dlid = LID_B, .sl = 0, .len = 1000,
		.lkey = QH_LKEY, .num_sge = 3,
	};

	fabric_up();
	s.dqpn = N[1].ud.qpn;
	s.addr = N[0].buf;
	src = hp(N[0].h, N[0].buf);
	for (k = 0; k < 1000; k++)
		src[k] = (uint8_t)(k * 13 + 1);
	dst = hp(N[1].h, N[1].buf);
	memset(dst, 0xaa, 2048);
	post_recv(1, &N[1].ud, 555, 0, 2048);
	qh_cq_db(N[1].h, &N[1].cq, SFAB_DB_ARM_SOLICITED);
	send(0, &N[0].ud, &s);

	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 77);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_SEND);
	REQUIRE(poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 555);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV);
	CHECK_EQ(cqe_qpn(&cqe), N[1].ud.qpn);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), SFAB_UD_GRH_LEN + 1000);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_CQE_SRC_QP_MASK, sfab_le32_to_cpu(cqe.src_qp_sl)),
		 N[0].ud.qpn);
	CHECK_EQ(sfab_le16_to_cpu(cqe.slid), LID_A);
	CHECK_EQ(sfab_le16_to_cpu(cqe.pkey_index), 0);
	CHECK_EQ(cqe.flags & SFAB_CQE_GRH, 0);
	/* the GRH slot untouched, the payload after it */
	CHECK_EQ(dst[0], 0xaa);
	CHECK_EQ(dst[39], 0xaa);
	CHECK(memcmp(dst + 40, src, 1000) == 0);
	CHECK_EQ(dst[1040], 0xaa);
	/* a solicited packet signalled the armed CQ */
	CHECK_EQ(N[1].h->irqs[2], 1);
	CHECK(!poll(1, &cqe));

	/* SEND with immediate */
	s.opcode = SFAB_WQE_SEND_IMM;
	s.imm = 0x12345678;
	s.flags = SFAB_WQE_SIGNALED;
	s.len = 64;
	post_recv(1, &N[1].ud, 560, 0, 2048);
	send(0, &N[0].ud, &s);
	CHECK(poll(0, &cqe));
	REQUIRE(poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 560);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), SFAB_UD_GRH_LEN + 64);
	CHECK(cqe.flags & SFAB_CQE_IMM);
	CHECK_EQ(sfab_be32_to_cpu(cqe.imm_data), 0x12345678);
	CHECK(memcmp(dst + 40, src, 64) == 0);
	CHECK_EQ(N[1].h->irqs[2], 1);	/* not solicited: no event */
	s.opcode = SFAB_WQE_SEND;
	s.flags = SFAB_WQE_SIGNALED | SFAB_WQE_SOLICITED;
	s.len = 1000;

	/* a wrong Q_Key, and the empty RQ: dropped and counted */
	s.qkey = 0x1111;
	post_recv(1, &N[1].ud, 556, 0, 2048);
	send(0, &N[0].ud, &s);
	CHECK(poll(0, &cqe));
	CHECK(!poll(1, &cqe));
	CHECK_EQ(port_counter(1, true), 1);
	s.qkey = 0x80000000U;	/* "use the QP's own Q_Key" */
	send(0, &N[0].ud, &s);
	CHECK(poll(0, &cqe));
	REQUIRE(poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 556);
	send(0, &N[0].ud, &s);
	CHECK(poll(0, &cqe));
	CHECK(!poll(1, &cqe));
	CHECK_EQ(N[1].h->e->stats.rx_no_wqe, 1);
	/* to a QPN nobody has */
	s.dqpn = 900;
	send(0, &N[0].ud, &s);
	CHECK(poll(0, &cqe));
	CHECK_EQ(N[1].h->e->stats.rx_no_qp, 1);

	/* a P_Key the receiver's table does not hold */
	s.dqpn = N[1].ud.qpn;
	N[0].h->e->port.pkeys[0] = 0x8123;
	post_recv(1, &N[1].ud, 557, 0, 2048);
	send(0, &N[0].ud, &s);
	CHECK(poll(0, &cqe));
	CHECK(!poll(1, &cqe));
	CHECK_EQ(port_counter(1, false), 1);
	N[0].h->e->port.pkeys[0] = 0xffff;

	/* the receive stayed posted */
	send(0, &N[0].ud, &s);
	CHECK(poll(0, &cqe));
	REQUIRE(poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 557);
	CHECK_EQ(cqe.status, 0);

	/* a buffer too small: LOC_LEN_ERR, and the QP errs */
	post_recv(1, &N[1].ud, 558, 0, 500);
	post_recv(1, &N[1].ud, 559, 0, 2048);
	send(0, &N[0].ud, &s);
	CHECK(poll(0, &cqe));
	REQUIRE(poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 558);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_LEN_ERR);
	REQUIRE(poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 559);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
	CHECK_EQ(N[1].h->e->qp[N[1].ud.qpn].state, SFAB_QPS_ERR);
	CHECK(!dev_fatal(N[0].h));
	CHECK(!dev_fatal(N[1].h));
	fabric_down();
}

/* a GMP of a class the firmware does not serve reaches the far QP1 */
TEST(gsi_exchange)
{
	struct sfab_cqe cqe;
	uint8_t *mad;
	struct qh_send s = {
		.wr_id = 5, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.dqpn = 1, .qkey = SFAB_QP1_QKEY, .dlid = LID_B,
		.len = SFAB_MAD_SIZE, .lkey = QH_LKEY,
	};

	fabric_up();
	s.addr = N[0].buf;
	mad = hp(N[0].h, N[0].buf);
	memset(mad, 0, 256);
	mad[0] = 1;		/* base version */
	mad[1] = 0x03;		/* SubnAdm */
	mad[2] = 2;
	mad[3] = SFAB_MAD_METHOD_GET;
	mad[100] = 0x42;
	post_recv(1, &N[1].qp1, 9, 0, 296);
	send(0, &N[0].qp1, &s);
	CHECK(poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_qpn(&cqe), 1);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 296);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_CQE_SRC_QP_MASK, sfab_le32_to_cpu(cqe.src_qp_sl)), 1);
	CHECK_EQ(sfab_le16_to_cpu(cqe.slid), LID_A);
	CHECK(memcmp(hp(N[1].h, N[1].buf + 40), mad, 256) == 0);

	/* a PMA Get is answered by the far firmware: the response reaches QP1 */
	memset(mad, 0, 256);
	mad[0] = 1;
	mad[1] = SFAB_MGMT_CLASS_PERF;
	mad[2] = 1;
	mad[3] = SFAB_MAD_METHOD_GET;
	mad[17] = SFAB_PMA_ATTR_PORT_COUNTERS;	/* attr_id, big endian */
	mad[SFAB_PMA_DATA_OFFSET + 1] = 1;	/* PortSelect */
	post_recv(0, &N[0].qp1, 10, 4096, 296);
	send(0, &N[0].qp1, &s);
	CHECK(poll(0, &cqe));
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 10);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le16_to_cpu(cqe.slid), LID_B);
	{
		uint8_t *r = hp(N[0].h, N[0].buf + 4096 + 40);

		CHECK_EQ(r[1], SFAB_MGMT_CLASS_PERF);
		CHECK_EQ(r[3], SFAB_MAD_METHOD_GET_RESP);
	}
	CHECK(!poll(1, &cqe));
	CHECK_EQ(N[1].h->e->stats.pma_mads, 1);
	fabric_down();
}

static void smp_init(uint8_t *mad, uint8_t cls, uint16_t attr)
{
	struct sfab_wire_smp smp;

	memset(&smp, 0, sizeof(smp));
	smp.base_version = 1;
	smp.mgmt_class = cls;
	smp.class_version = 1;
	smp.method = SFAB_MAD_METHOD_GET;
	smp.tid = sfab_cpu_to_be64(0x1234);
	smp.attr_id = sfab_cpu_to_be16(attr);
	smp.dr_slid = sfab_cpu_to_be16(SFAB_LID_PERMISSIVE);
	smp.dr_dlid = sfab_cpu_to_be16(SFAB_LID_PERMISSIVE);
	memcpy(mad, &smp, sizeof(smp));
}

/* SMPs from a host SM: the far SMA answers, the response reaches QP0 */
TEST(smp_to_qp0)
{
	struct sfab_cqe cqe;
	struct sfab_wire_smp smp, *r;
	uint8_t *mad;
	struct qh_send s = {
		.wr_id = 3, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.dqpn = 0, .dlid = LID_B, .len = SFAB_MAD_SIZE, .lkey = QH_LKEY,
	};

	fabric_up();
	s.addr = N[0].buf;
	mad = hp(N[0].h, N[0].buf);

	/* LID routed NodeInfo */
	smp_init(mad, SFAB_MGMT_CLASS_SUBN_LID, SFAB_SMP_ATTR_NODE_INFO);
	post_recv(0, &N[0].qp0, 20, 4096, 296);
	send(0, &N[0].qp0, &s);
	CHECK(poll(0, &cqe));
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 20);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_qpn(&cqe), 0);
	CHECK_EQ(sfab_le16_to_cpu(cqe.slid), LID_B);
	r = hp(N[0].h, N[0].buf + 4096 + 40);
	CHECK_EQ(r->method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(sfab_be16_to_cpu(r->attr_id), SFAB_SMP_ATTR_NODE_INFO);
	CHECK_EQ(N[1].h->e->stats.sma_mads, 1);

	/* directed route, one hop, as ib_mad sends it (hop pointer advanced) */
	smp_init(mad, SFAB_MGMT_CLASS_SUBN_DR, SFAB_SMP_ATTR_NODE_DESC);
	memcpy(&smp, mad, sizeof(smp));
	smp.hop_cnt = 1;
	smp.hop_ptr = 1;
	smp.initial_path[1] = 1;
	memcpy(mad, &smp, sizeof(smp));
	s.dlid = SFAB_LID_PERMISSIVE;
	s.wr_id = 4;
	post_recv(0, &N[0].qp0, 21, 8192, 296);
	send(0, &N[0].qp0, &s);
	CHECK(poll(0, &cqe));
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 21);
	CHECK_EQ(cqe.status, 0);
	r = hp(N[0].h, N[0].buf + 8192 + 40);
	CHECK_EQ(r->mgmt_class, SFAB_MGMT_CLASS_SUBN_DR);
	CHECK_EQ(r->method, SFAB_MAD_METHOD_GET_RESP);
	CHECK(sfab_be16_to_cpu(r->status) & SFAB_SMP_DIRECTION);
	CHECK_EQ(N[1].h->e->stats.sma_mads, 2);

	/* a DR SMP with no hops is for this node's own SMA */
	smp_init(mad, SFAB_MGMT_CLASS_SUBN_DR, SFAB_SMP_ATTR_NODE_INFO);
	post_recv(0, &N[0].qp0, 22, 12288, 296);
	s.wr_id = 5;
	send(0, &N[0].qp0, &s);
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 22);
	r = hp(N[0].h, N[0].buf + 12288 + 40);
	CHECK_EQ(r->method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(r->mgmt_class, SFAB_MGMT_CLASS_SUBN_DR);
	CHECK_EQ(N[0].h->e->stats.sma_mads, 1);
	CHECK_EQ(N[1].h->e->stats.sma_mads, 2);
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 5);

	/* QP0 sends on VL15 */
	CHECK(!poll(1, &cqe));
	fabric_down();
}

/* a packet to our own LID loops back without the wire */
TEST(loopback_own_lid)
{
	struct sfab_cqe cqe;
	struct qh_qp ud2;
	unsigned long before;
	struct qh_send s = {
		.wr_id = 1, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.qkey = UD_QKEY, .dlid = LID_A, .len = 300, .lkey = QH_LKEY,
	};
	uint8_t *mad;

	fabric_up();
	REQUIRE(qh_qp_new(N[0].h, &ud2, SFAB_QPT_UD, 4, N[0].cq.cqn, N[0].cq.cqn) == 0);
	REQUIRE(qh_qp_rts(N[0].h, &ud2, UD_QKEY) == 0);
	s.dqpn = ud2.qpn;
	s.addr = N[0].buf;
	memset(hp(N[0].h, N[0].buf), 0x3c, 300);
	post_recv(0, &ud2, 2, 4096, 400);
	before = wire_frames;
	send(0, &N[0].ud, &s);
	/* delivered (receive CQE) before the send completes */
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 2);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_qpn(&cqe), ud2.qpn);
	CHECK_EQ(sfab_le16_to_cpu(cqe.slid), LID_A);
	CHECK_EQ(*(uint8_t *)hp(N[0].h, N[0].buf + 4096 + 40 + 299), 0x3c);
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 1);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_SEND);
	CHECK_EQ(wire_frames, before);
	CHECK_EQ(N[0].h->e->stats.loopback, 1);

	/* an SMP to our own LID: our SMA answers our QP0 */
	mad = hp(N[0].h, N[0].buf);
	smp_init(mad, SFAB_MGMT_CLASS_SUBN_LID, SFAB_SMP_ATTR_PORT_INFO);
	s.dqpn = 0;
	s.qkey = 0;
	s.len = SFAB_MAD_SIZE;
	post_recv(0, &N[0].qp0, 3, 8192, 296);
	s.wr_id = 4;
	send(0, &N[0].qp0, &s);
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 3);
	CHECK(poll(0, &cqe));
	CHECK_EQ(((struct sfab_wire_smp *)hp(N[0].h, N[0].buf + 8192 + 40))->method,
		 SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(wire_frames, before);
	fabric_down();
}

/* a burst larger than the far buffer waits for credit: nothing lost */
TEST(credit_wait)
{
	struct sfab_cqe cqe;
	unsigned int i, sent = 0, got = 0;
	struct qh_send s = {
		.opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.qkey = UD_QKEY, .dlid = LID_B, .len = 4000, .lkey = QH_LKEY,
	};

	fabric_up();
	s.dqpn = N[1].ud.qpn;
	s.addr = N[0].buf;
	for (i = 0; i < 60; i++)
		qh_post_recv(N[1].h, &N[1].ud, i, N[1].buf, 4096, QH_LKEY);
	qh_qp_db(N[1].h, &N[1].ud, false);
	for (i = 0; i < 60; i++) {
		s.wr_id = i;
		qh_post_send(N[0].h, &N[0].ud, &s);
	}
	/* one doorbell; the engine stops when the port is full */
	sfab_engine_db_write(N[0].h->e, SFAB_DB_SQ,
			     (uint64_t)N[0].ud.sq_pi << 32 | N[0].ud.qpn, 8,
			     SFAB_DB_SRC_CPU);
	host_run(N[0].h);
	CHECK(N[0].h->e->sq_blocked);
	pump();
	while (poll(0, &cqe)) {
		CHECK_EQ(cqe.status, 0);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), sent);
		sent++;
	}
	while (poll(1, &cqe)) {
		CHECK_EQ(cqe.status, 0);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), got);
		got++;
	}
	CHECK_EQ(sent, 60);
	CHECK_EQ(got, 60);
	CHECK_EQ(N[0].h->e->port.xmit_discards, 0);
	CHECK_EQ(N[0].h->e->stats.send_dropped, 0);
	fabric_down();
}

/* bad lkey and bad opcode on a UD QP: error CQE, then flush */
TEST(ud_bad_wqes)
{
	struct sfab_cqe cqe;
	struct qh_send s = {
		.opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.qkey = UD_QKEY, .dlid = LID_B, .len = 64, .lkey = 0xbad,
	};

	fabric_up();
	s.dqpn = N[1].ud.qpn;
	s.addr = N[0].buf;
	s.wr_id = 1;
	qh_post_send(N[0].h, &N[0].ud, &s);
	s.lkey = QH_LKEY;
	s.wr_id = 2;
	send(0, &N[0].ud, &s);
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_PROT_ERR);
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
	CHECK_EQ(N[1].h->e->stats.recvs, 0);

	/* the GSI QP: RDMA READ is not a UD operation */
	s.opcode = SFAB_WQE_RDMA_READ;
	s.dqpn = 1;
	s.qkey = SFAB_QP1_QKEY;
	s.wr_id = 3;
	send(0, &N[0].qp1, &s);
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_QP_OP_ERR);
	CHECK_EQ(N[0].h->e->qp[1].state, SFAB_QPS_ERR);
	/* QP0: a MAD carries no immediate */
	s.opcode = SFAB_WQE_SEND_IMM;
	s.dqpn = 0;
	s.wr_id = 4;
	send(0, &N[0].qp0, &s);
	REQUIRE(poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_QP_OP_ERR);
	CHECK_EQ(N[0].h->e->qp[0].state, SFAB_QPS_ERR);
	CHECK_EQ(wire_frames > 0, 1);
	fabric_down();
}

static uint64_t fz_state = 0x0123456789abcdefULL;

static uint64_t fz(void)
{
	fz_state ^= fz_state << 13;
	fz_state ^= fz_state >> 7;
	fz_state ^= fz_state << 17;
	return fz_state;
}

/* random datagrams into receive queues full of garbage: no crash, no loss of the link */
TEST(garbage_receives)
{
	struct sfab_cqe cqe;
	unsigned int i, k;
	struct qh_send s = {
		.opcode = SFAB_WQE_SEND, .dlid = LID_A, .lkey = QH_LKEY,
	};

	fabric_up();
	s.addr = N[1].buf;
	for (i = 0; i < 400; i++) {
		struct qh_qp *dst[] = { &N[0].qp0, &N[0].qp1, &N[0].ud };
		struct qh_qp *q = dst[fz() % 3];
		uint8_t *rq = hp(N[0].h, q->rq);

		for (k = 0; k < 16; k++) {
			uint64_t v = fz();

			if (!(v & 3))
				v = (v & 0xffff00000000ULL) | QH_LKEY;
			if ((v & 7) == 1)
				v = N[0].buf + (v >> 49);
			memcpy(rq + ((fz() % (64 * 64 / 8)) * 8), &v, 8);
		}
		if (fz() % 2) {
			q->rq_pi += fz() % 4;
			qh_qp_db(N[0].h, q, false);
		}
		s.dqpn = fz() % 2 ? q->qpn : (uint32_t)(fz() % 8);
		s.qkey = fz() % 2 ? UD_QKEY : (fz() % 2 ? SFAB_QP1_QKEY : (uint32_t)fz());
		s.len = fz() % 2 ? 256 : (uint32_t)(fz() % 4097);
		s.dlid = fz() % 4 ? LID_A : SFAB_LID_PERMISSIVE;
		s.wr_id = i;
		for (k = 0; k < s.len; k += 8) {
			uint64_t v = fz();

			memcpy(hp(N[1].h, N[1].buf + k), &v, 8);
		}
		send(1, &N[1].ud, &s);
		while (poll(0, &cqe) || poll(1, &cqe))
			;
		/* queues that erred start over */
		for (k = 0; k < 3; k++)
			if (N[0].h->e->qp[dst[k]->qpn].state == SFAB_QPS_ERR) {
				CHECK_EQ(qh_modify(N[0].h, dst[k]->qpn, SFAB_QP_ATTR_STATE,
						   SFAB_QPS_RESET, 0), 0);
				dst[k]->sq_pi = dst[k]->rq_pi = 0;
				qh_qp_rts(N[0].h, dst[k], dst[k]->type == SFAB_QPT_SMI ? 0 :
					  dst[k]->type == SFAB_QPT_GSI ? SFAB_QP1_QKEY : UD_QKEY);
			}
	}
	CHECK(!dev_fatal(N[0].h));
	CHECK(!dev_fatal(N[1].h));
	CHECK_EQ(N[0].h->e->port.link.state, SFAB_PORT_ACTIVE);
	CHECK(N[0].h->e->stats.cqes > 0);
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "garbage receives: %llu cqes, %llu delivered, %llu no wqe, %llu no qp, %llu bad mads\n",
			(unsigned long long)N[0].h->e->stats.cqes,
			(unsigned long long)N[0].h->e->stats.recvs,
			(unsigned long long)N[0].h->e->stats.rx_no_wqe,
			(unsigned long long)N[0].h->e->stats.rx_no_qp,
			(unsigned long long)N[0].h->e->stats.bad_mads);
	fabric_down();
}

/* node 0's QP0 receive of a trap from node 1; false when none came */
static bool trap_rx(struct sfab_wire_notice_bad_key *n)
{
	struct sfab_cqe cqe;
	bool got = false;

	while (poll(0, &cqe)) {
		struct sfab_wire_smp smp;

		if (cqe_op(&cqe) != SFAB_CQE_RECV || cqe_qpn(&cqe) != N[0].qp0.qpn)
			continue;
		memcpy(&smp, hp(N[0].h, N[0].buf + 8192 + SFAB_UD_GRH_LEN),
		       sizeof(smp));
		CHECK_EQ(smp.method, SFAB_MAD_METHOD_TRAP);
		CHECK_EQ(sfab_be16_to_cpu(smp.attr_id), SFAB_SMP_ATTR_NOTICE);
		memcpy(n, smp.data, sizeof(*n));
		got = true;
	}
	return got;
}

/*
 * Datagrams dropped for their Q_Key or P_Key are reported to the SM:
 * trap 258 and 257 to the SM's LID with the packet's LIDs, QPs, SL and
 * key, at most one per SFAB_ENGINE_KEY_TRAP_NS, each drop counted.
 */
TEST(key_violation_traps)
{
	struct sfab_wire_notice_bad_key n;
	struct qh_send s = {
		.wr_id = 1, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.qkey = 0x1111, .dlid = LID_B, .sl = 3, .len = 64,
		.lkey = QH_LKEY, .num_sge = 1,
	};
	unsigned int k;

	fabric_up();
	/* node 0 is node 1's SM */
	H[1]->e->port.sm_lid = LID_A;
	for (k = 0; k < 4; k++) {
		post_recv(0, &N[0].qp0, 900 + k, 8192, 512);
		post_recv(1, &N[1].ud, 556 + k, 0, 2048);
	}
	s.dqpn = N[1].ud.qpn;
	s.addr = N[0].buf;

	send(0, &N[0].ud, &s);
	REQUIRE(trap_rx(&n));
	CHECK_EQ(n.generic_type, SFAB_NOTICE_GENERIC | SFAB_NOTICE_TYPE_SECURITY);
	CHECK_EQ(n.producer_type[2], SFAB_NOTICE_PROD_CA);
	CHECK_EQ(sfab_be16_to_cpu(n.trap_num), SFAB_TRAP_BAD_QKEY);
	CHECK_EQ(sfab_be16_to_cpu(n.issuer_lid), LID_B);
	CHECK_EQ(sfab_be16_to_cpu(n.lid1), LID_A);
	CHECK_EQ(sfab_be16_to_cpu(n.lid2), LID_B);
	CHECK_EQ(sfab_be32_to_cpu(n.key), 0x1111);
	CHECK_EQ(sfab_be32_to_cpu(n.sl_qp1), 3U << 28 | N[0].ud.qpn);
	CHECK_EQ(sfab_be32_to_cpu(n.qp2), N[1].ud.qpn);
	CHECK_EQ(port_counter(1, true), 1);

	/* within the interval: counted, no trap */
	send(0, &N[0].ud, &s);
	CHECK(!trap_rx(&n));
	CHECK_EQ(port_counter(1, true), 2);

	/* later, a P_Key node 1 does not have: trap 257 */
	H[1]->now += SFAB_ENGINE_KEY_TRAP_NS;
	N[1].h->e->port.pkeys[0] = 0x8123;
	s.qkey = UD_QKEY;
	send(0, &N[0].ud, &s);
	REQUIRE(trap_rx(&n));
	CHECK_EQ(sfab_be16_to_cpu(n.trap_num), SFAB_TRAP_BAD_PKEY);
	CHECK_EQ(sfab_be32_to_cpu(n.key), SFAB_PKEY_DEFAULT);
	CHECK_EQ(port_counter(1, false), 1);
	fabric_down();
}
