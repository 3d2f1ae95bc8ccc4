/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/xrc: the engine's XRC rules (sfab_queue.h, "XRC") between two
 * engines: an XRC_INI QP on node 0, an XRC_TGT QP and XRC SRQs on node 1.
 * Sends land in the SRQ each WQE names, complete on that SRQ's CQ with the
 * target's QPN and the SRQ's number (SFAB_CQE_XRC); RDMA and atomics check
 * rkeys against the named SRQ's PD; an SRQ of another domain, a non-XRC
 * SRQ, no SRQ, or a multi-packet send whose packets name two SRQs are
 * invalid requests (the open WQE flushed on its SRQ's CQ); destroying an
 * SRQ under an open message ends it; the initiator takes no requests; the
 * commands refuse what the contract forbids.
 */
#include "harness.h"
#include "rc_pair.h"

#define XRCD		3
#define OTHER_XRCD	4

/* node 1's SRQs: A and B of the domain (PD 1), P2 of PD 2, X of another domain */
static struct qh_srq srq_a, srq_b, srq_p2, srq_x;
static struct qh_qp tgt;

/* the initiator on node 0 and the target on node 1, Reset to RTS */
static void xrc_connect(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct qh_conn k = {
			.dest_qpn = i ? RP[0].qp.qpn : tgt.qpn,
			.access = RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE,
			.dlid = i ? RP_LID0 : RP_LID1,
			.mtu = 1,
			.timeout = 14,
			.max_rd_atomic = 4,
			.max_dest_rd_atomic = 4,
		};

		REQUIRE(qh_qp_connect(RP[i].h, i ? &tgt : &RP[0].qp, &k) == 0);
	}
}

static void xrc_up(void)
{
	struct rp_cfg cfg = { 0 };

	memset(RPW, 0, sizeof(RPW));
	rp_drop = NULL;
	rp_dropped = 0;
	rp_node_up(0, RP_LID0, &cfg);
	rp_node_up(1, RP_LID1, &cfg);
	rp_link_up();
	/* node 0's QP becomes the initiator, node 1 gets a target */
	REQUIRE(qh_xrc_qp_new(RP[0].h, &RP[0].qp, SFAB_QPT_XRC_INI, 6,
			      RP[0].cq.cqn, RP_PD) == 0);
	REQUIRE(qh_xrc_qp_new(RP[1].h, &tgt, SFAB_QPT_XRC_TGT, 0, 0, XRCD) == 0);
	REQUIRE(qh_xrc_srq_new(RP[1].h, &srq_a, 5, RP_PD, RP[1].cq.cqn, XRCD) == 0);
	REQUIRE(qh_xrc_srq_new(RP[1].h, &srq_b, 5, RP_PD, RP[1].cq.cqn, XRCD) == 0);
	REQUIRE(qh_xrc_srq_new(RP[1].h, &srq_p2, 5, 2, RP[1].cq.cqn, XRCD) == 0);
	REQUIRE(qh_xrc_srq_new(RP[1].h, &srq_x, 5, RP_PD, RP[1].cq.cqn,
			       OTHER_XRCD) == 0);
	xrc_connect();
}

/* both ends back to RTS after an error, CQs drained */
static void xrc_reconnect(void)
{
	struct sfab_cqe cqe;

	qh_modify(RP[1].h, tgt.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0);
	qh_modify(RP[0].h, RP[0].qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0);
	RP[0].qp.sq_pi = 0;
	xrc_connect();
	while (rp_poll(0, &cqe) || rp_poll(1, &cqe))
		;
}

static uint8_t tgt_state(void)
{
	return RP[1].h->e->qp[tgt.qpn].state;
}

/* a receive on SRQ @s of node 1: @len bytes at @off */
static void srq_recv(struct qh_srq *s, uint64_t wr_id, uint64_t off,
		     uint32_t len)
{
	qh_srq_post(RP[1].h, s, wr_id, RP[1].mem + off, len, RP[1].key);
}

static struct qh_rc_send xsend(uint32_t srqn, uint64_t wr_id, uint64_t off,
			       uint32_t len)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_SEND, wr_id, 0, off, len);

	s.xrc_srqn = srqn;
	return s;
}

/* one WQE from node 0 and its completion status */
static int run0(struct qh_rc_send *s, struct sfab_cqe *cqe)
{
	rp_post(0, s);
	rp_pump();
	if (!rp_poll(0, cqe)) {
		CHECK(!"node 0: no CQE");
		return -1;
	}
	return cqe->status;
}

/* node 1's next CQE is an XRC receive of SRQ @srqn */
static void check_xrc_recv(uint32_t srqn, uint64_t wr_id, uint8_t status,
			   uint32_t len)
{
	struct sfab_cqe_info ci;
	struct sfab_cqe cqe;

	if (!rp_poll(1, &cqe)) {
		CHECK(!"node 1: no receive CQE");
		return;
	}
	CHECK(sfab_cqe_decode(&cqe, &ci));
	CHECK(ci.recv);
	CHECK(ci.xrc);
	CHECK_EQ(ci.srqn, srqn);
	CHECK_EQ(ci.qpn, tgt.qpn);
	CHECK_EQ(ci.wr_id, wr_id);
	CHECK_EQ(ci.status, status);
	if (!status)
		CHECK_EQ(ci.byte_len, len);
}

TEST(xrc_send)
{
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	struct sfab_cqe_info ci;

	xrc_up();
	rp_fill(0, 0, 2048, 0x31);
	srq_recv(&srq_a, 0xa1, 0, 1024);
	srq_recv(&srq_b, 0xb1, 4096, 1024);
	srq_recv(&srq_a, 0xa2, 8192, 1024);

	/* three packets into B's first WQE, not A's */
	s = xsend(srq_b.srqn, 1, 0, 600);
	CHECK_EQ(run0(&s, &cqe), 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_SEND);
	check_xrc_recv(srq_b.srqn, 0xb1, 0, 600);
	CHECK(rp_same(0, 0, 1, 4096, 600));
	/* then A's, in A's order; with immediate data */
	s = xsend(srq_a.srqn, 2, 1024, 100);
	CHECK_EQ(run0(&s, &cqe), 0);
	check_xrc_recv(srq_a.srqn, 0xa1, 0, 100);
	CHECK(rp_same(0, 1024, 1, 0, 100));
	s = xsend(srq_a.srqn, 3, 0, 8);
	s.opcode = SFAB_WQE_SEND_IMM;
	s.imm = 0x12345678;
	CHECK_EQ(run0(&s, &cqe), 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK(sfab_cqe_decode(&cqe, &ci));
	CHECK(ci.xrc && ci.imm);
	CHECK_EQ(ci.srqn, srq_a.srqn);
	CHECK_EQ(ci.wr_id, 0xa2);
	CHECK_EQ(sfab_be32_to_cpu(ci.imm_data), 0x12345678);
	CHECK_EQ(tgt_state(), SFAB_QPS_RTS);
	/* nothing left, nothing lost */
	CHECK(!rp_poll(1, &cqe));
	CHECK_EQ(RP[1].h->e->stats.xrc_bad_srq, 0);
	CHECK(!dev_fatal(RP[0].h) && !dev_fatal(RP[1].h));
	rp_down();
}

TEST(xrc_rdma_pd)
{
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t v;

	xrc_up();
	rp_fill(0, 0, 1024, 0x77);
	/* the SRQ's PD is the rkey's: WRITE, READ back, FETCH_ADD */
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 1, 0, 0, 700);
	s.raddr = RP[1].mem + 16384;
	s.rkey = RP[1].key;
	s.xrc_srqn = srq_a.srqn;
	CHECK_EQ(run0(&s, &cqe), 0);
	CHECK(rp_same(0, 0, 1, 16384, 700));
	s = rp_wqe(SFAB_WQE_RDMA_READ, 2, 0, 32768, 700);
	s.raddr = RP[1].mem + 16384;
	s.rkey = RP[1].key;
	s.xrc_srqn = srq_b.srqn;
	CHECK_EQ(run0(&s, &cqe), 0);
	CHECK(rp_same(0, 32768, 1, 16384, 700));
	s = rp_wqe(SFAB_WQE_ATOMIC_FA, 3, 0, 40960, 8);
	s.raddr = RP[1].mem + 20480;
	s.rkey = RP[1].key;
	s.swap_add = 5;
	s.xrc_srqn = srq_a.srqn;
	memset(rp_mem(1, 20480), 0, 8);
	CHECK_EQ(run0(&s, &cqe), 0);
	memcpy(&v, rp_mem(1, 20480), 8);
	CHECK_EQ(sfab_le64_to_cpu(v), 5);
	/* through an SRQ of PD 2 the same rkey is no key: memory untouched */
	memset(rp_mem(1, 24576), 0xee, 64);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 4, 0, 0, 64);
	s.raddr = RP[1].mem + 24576;
	s.rkey = RP[1].key;
	s.xrc_srqn = srq_p2.srqn;
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK_EQ(*rp_mem(1, 24576), 0xee);
	CHECK_EQ(tgt_state(), SFAB_QPS_ERR);
	xrc_reconnect();
	s = rp_wqe(SFAB_WQE_RDMA_READ, 5, 0, 0, 64);
	s.raddr = RP[1].mem + 16384;
	s.rkey = RP[1].key;
	s.xrc_srqn = srq_p2.srqn;
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK(!dev_fatal(RP[0].h) && !dev_fatal(RP[1].h));
	rp_down();
}

TEST(xrc_bad_srq)
{
	struct qh_srq plain;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	xrc_up();
	REQUIRE(qh_srq_new(RP[1].h, &plain, 5, RP_PD, 0) == 0);
	srq_recv(&srq_x, 0x51, 0, 256);
	qh_srq_post(RP[1].h, &plain, 0x52, RP[1].mem, 256, RP[1].key);
	/* another domain's SRQ, a plain SRQ, no SRQ at all */
	s = xsend(srq_x.srqn, 1, 0, 64);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_INV_REQ_ERR);
	CHECK_EQ(tgt_state(), SFAB_QPS_ERR);
	xrc_reconnect();
	s = xsend(plain.srqn, 2, 0, 64);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_INV_REQ_ERR);
	xrc_reconnect();
	s = xsend(1000, 3, 0, 64);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_INV_REQ_ERR);
	xrc_reconnect();
	CHECK_EQ(RP[1].h->e->stats.xrc_bad_srq, 3);
	/* their WQEs were not taken */
	CHECK_EQ(RP[1].h->e->srq[srq_x.srqn].ci, 0);
	CHECK_EQ(RP[1].h->e->srq[plain.srqn].ci, 0);
	CHECK(!rp_poll(1, &cqe));
	/* the connection works again */
	srq_recv(&srq_a, 0xa1, 0, 256);
	s = xsend(srq_a.srqn, 4, 0, 64);
	CHECK_EQ(run0(&s, &cqe), 0);
	check_xrc_recv(srq_a.srqn, 0xa1, 0, 64);
	CHECK(!dev_fatal(RP[0].h) && !dev_fatal(RP[1].h));
	rp_down();
}

/* the second packet of a send to node 1 names SRQ B (ICRC sealed again) */
static unsigned int seen;

static bool switch_srq(unsigned int to, const uint8_t *f, size_t len)
{
	uint8_t *x = (uint8_t *)f + SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN;

	if (to != 1 || !(rp_opcode(f) & SFAB_BTH_OP_XRC) || ++seen != 2)
		return false;
	x[1] = srq_b.srqn >> 16;
	x[2] = srq_b.srqn >> 8;
	x[3] = srq_b.srqn;
	sfab_wire_seal((uint8_t *)f, len);
	return false;
}

/* the packets after a message's first to node 1 are held back */
static bool hold_rest(unsigned int to, const uint8_t *f, size_t len)
{
	if (to != 1 || !(rp_opcode(f) & SFAB_BTH_OP_XRC) || ++seen == 1)
		return false;
	CHECK(rp_hold(f, len));
	return true;
}

TEST(xrc_one_srq_per_message)
{
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	xrc_up();
	srq_recv(&srq_a, 0xa1, 0, 1024);
	srq_recv(&srq_b, 0xb1, 4096, 1024);
	seen = 0;
	rp_drop = switch_srq;
	s = xsend(srq_a.srqn, 1, 0, 600);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_INV_REQ_ERR);
	CHECK_EQ(tgt_state(), SFAB_QPS_ERR);
	/* A's WQE, taken by the first packet, is flushed on its CQ */
	check_xrc_recv(srq_a.srqn, 0xa1, SFAB_CQE_STS_WR_FLUSH_ERR, 0);
	CHECK(!rp_poll(1, &cqe));
	CHECK_EQ(RP[1].h->e->srq[srq_b.srqn].ci, 0);
	rp_drop = NULL;
	xrc_reconnect();

	/* an SRQ destroyed under an open message ends it */
	srq_recv(&srq_a, 0xa2, 0, 1024);
	seen = 0;
	rp_drop = hold_rest;
	s = xsend(srq_a.srqn, 2, 0, 600);
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(RP[1].h->e->srq[srq_a.srqn].ci, 2);
	{
		struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_SRQ);

		c.u.destroy_srq.srqn = sfab_cpu_to_le32(srq_a.srqn);
		CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_OK);
	}
	rp_drop = NULL;
	rp_deliver_held(1);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_REM_INV_REQ_ERR);
	CHECK_EQ(tgt_state(), SFAB_QPS_ERR);
	/* the WQE went with its SRQ: no completion names it */
	CHECK(!rp_poll(1, &cqe));
	CHECK(!dev_fatal(RP[0].h) && !dev_fatal(RP[1].h));
	rp_down();
}

TEST(xrc_halves)
{
	struct sfab_pkt_rc p;
	uint8_t f[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_cqe cqe;
	uint64_t before;
	size_t len;

	xrc_up();
	/* a request to the initiator, a response to the target: dropped */
	memset(&p, 0, sizeof(p));
	p.opcode = SFAB_BTH_OP_XRC | SFAB_OP_SEND_ONLY;
	p.dlid = RP_LID0;
	p.slid = RP_LID1;
	p.pkey = 0xffff;
	p.dqpn = RP[0].qp.qpn;
	p.xrc_srqn = 1;
	len = sfab_link_pkt_build_rc(f, &p, "abcd", 4);
	REQUIRE(len);
	before = RP[0].h->e->stats.rx_no_qp;
	sfab_engine_cable_rx(RP[0].h->e, f, len);
	rp_pump();
	CHECK_EQ(RP[0].h->e->stats.rx_no_qp, before + 1);
	rp_ack_pkt(&p, 0);
	p.opcode = SFAB_BTH_OP_XRC | SFAB_OP_ACK;
	p.dlid = RP_LID1;
	p.slid = RP_LID0;
	p.dqpn = tgt.qpn;
	len = sfab_link_pkt_build_rc(f, &p, NULL, 0);
	REQUIRE(len);
	before = RP[1].h->e->stats.rx_no_qp;
	sfab_engine_cable_rx(RP[1].h->e, f, len);
	rp_pump();
	CHECK_EQ(RP[1].h->e->stats.rx_no_qp, before + 1);
	/* an RC request to the target is not XRC: dropped */
	memset(&p, 0, sizeof(p));
	p.opcode = SFAB_OP_SEND_ONLY;
	p.dlid = RP_LID1;
	p.slid = RP_LID0;
	p.pkey = 0xffff;
	p.dqpn = tgt.qpn;
	len = sfab_link_pkt_build_rc(f, &p, "abcd", 4);
	sfab_engine_cable_rx(RP[1].h->e, f, len);
	rp_pump();
	CHECK_EQ(RP[1].h->e->stats.rx_no_qp, before + 2);
	/* the target's doorbells and the initiator's RQ doorbell: ignored */
	tgt.db_page = 0;
	tgt.sq_pi = 1;
	qh_qp_db(RP[1].h, &tgt, true);
	RP[0].qp.rq_pi = 1;
	qh_qp_db(RP[0].h, &RP[0].qp, false);
	RP[0].qp.rq_pi = 0;
	CHECK_EQ(tgt_state(), SFAB_QPS_RTS);
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	CHECK(!rp_poll(0, &cqe) && !rp_poll(1, &cqe));
	CHECK(!dev_fatal(RP[0].h) && !dev_fatal(RP[1].h));
	rp_down();
}

TEST(xrc_commands)
{
	struct fake_host *h = qh_up();
	struct sfab_aq_cmd c;
	struct qh_eq eq;
	struct qh_cq cq0, cq;
	struct qh_srq srq;
	struct qh_qp qp;

	REQUIRE(qh_eq_new(h, &eq, 6, 2) == 0);
	/* CQ 0 first: the fields tried below are not zero */
	REQUIRE(qh_cq_new(h, &cq0, 6, eq.eqn) == 0);
	REQUIRE(qh_cq_new(h, &cq, 6, eq.eqn) == 0);
	REQUIRE(cq.cqn != 0);
	/* a target with a send queue, a CQ or a PD; an initiator with an RQ */
	memset(&qp, 0, sizeof(qp));
	c = cmd_new(SFAB_AQ_CREATE_QP);
	c.u.create_qp.qp_type = SFAB_QPT_XRC_TGT;
	c.u.create_qp.send_cqn = sfab_cpu_to_le32(cq.cqn);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_qp.send_cqn = 0;
	c.u.create_qp.pdn = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_qp.pdn = 0;
	qh_ring_desc(&c.u.create_qp.sq, host_alloc(h, 4096, 4096), 4, 8);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	memset(&c.u.create_qp.sq, 0, sizeof(c.u.create_qp.sq));
	c.u.create_qp.xrcdn = sfab_cpu_to_le32(1U << 30);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_qp.xrcdn = sfab_cpu_to_le32(XRCD);
	c.u.create_qp.flags = sfab_cpu_to_le32(SFAB_QP_PRIV);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_qp.flags = 0;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	c = cmd_new(SFAB_AQ_CREATE_QP);
	c.u.create_qp.qp_type = SFAB_QPT_XRC_INI;
	c.u.create_qp.send_cqn = sfab_cpu_to_le32(cq.cqn);
	c.u.create_qp.pdn = sfab_cpu_to_le32(1);
	/* a 64-byte stride cannot hold an XRC atomic */
	qh_ring_desc(&c.u.create_qp.sq, host_alloc(h, 4096, 4096), 4, 6);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	qh_ring_desc(&c.u.create_qp.sq, host_alloc(h, 4096, 4096), 4, 7);
	qh_ring_desc(&c.u.create_qp.rq, host_alloc(h, 4096, 4096), 4, 6);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	memset(&c.u.create_qp.rq, 0, sizeof(c.u.create_qp.rq));
	c.u.create_qp.recv_cqn = sfab_cpu_to_le32(cq.cqn);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_qp.recv_cqn = 0;
	c.u.create_qp.xrcdn = sfab_cpu_to_le32(XRCD);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_qp.xrcdn = 0;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	/* the initiator holds its CQ (twice), the target none */
	CHECK_EQ(h->e->cq[cq.cqn].users, 2);

	/* an XRC SRQ needs a CQ and a domain in range; others take neither */
	c = cmd_new(SFAB_AQ_CREATE_SRQ);
	qh_ring_desc(&c.u.create_srq.ring, host_alloc(h, 4096, 4096), 4, 6);
	c.u.create_srq.pdn = sfab_cpu_to_le32(1);
	c.u.create_srq.flags = sfab_cpu_to_le16(SFAB_SRQ_XRC);
	c.u.create_srq.cqn = sfab_cpu_to_le32(777);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_srq.cqn = sfab_cpu_to_le32(cq.cqn);
	c.u.create_srq.xrcdn = sfab_cpu_to_le32(1U << 30);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_srq.xrcdn = sfab_cpu_to_le32(XRCD);
	c.u.create_srq.flags = sfab_cpu_to_le16(2);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_srq.flags = 0;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	REQUIRE(qh_xrc_srq_new(h, &srq, 4, 1, cq.cqn, XRCD) == 0);
	CHECK_EQ(h->e->cq[cq.cqn].users, 3);
	/* the SRQ holds its CQ until it goes */
	c = cmd_new(SFAB_AQ_DESTROY_CQ);
	c.u.destroy_cq.cqn = sfab_cpu_to_le32(cq.cqn);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	c = cmd_new(SFAB_AQ_DESTROY_SRQ);
	c.u.destroy_srq.srqn = sfab_cpu_to_le32(srq.srqn);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(h->e->cq[cq.cqn].users, 2);
	/* QUERY_DEVICE says so */
	c = cmd_new(SFAB_AQ_QUERY_DEVICE);
	c.u.query_device.resp_addr = sfab_cpu_to_le64(h->scratch);
	c.u.query_device.resp_len = sfab_cpu_to_le32(sizeof(struct sfab_dev_attr));
	REQUIRE(host_cmd(h, &c) == SFAB_AQ_STS_OK);
	{
		struct sfab_dev_attr *a = hp(h, h->scratch);

		CHECK(sfab_le32_to_cpu(a->dev_caps) & SFAB_DEV_CAP_XRC);
		CHECK(sfab_le32_to_cpu(a->max_xrcd) > XRCD);
	}
	CHECK(!dev_fatal(h));
	host_free(h);
}

/* the stride rule keeps room for the XRC segment */
TEST(xrc_geometry)
{
	struct sfab_sq_geom g, rc;

	REQUIRE(sfab_sq_geometry(SFAB_QPT_XRC_INI, 1, 0, &g) == 0);
	CHECK_EQ(g.log_stride, 7);
	CHECK_EQ(g.xrc_room, sizeof(struct sfab_wqe_xrc));
	REQUIRE(sfab_sq_geometry(SFAB_QPT_RC, 6, 0, &rc) == 0);
	REQUIRE(sfab_sq_geometry(SFAB_QPT_XRC_INI, 6, 0, &g) == 0);
	CHECK_EQ(rc.log_stride, 7);
	CHECK_EQ(g.log_stride, 8);
	CHECK(g.max_sge >= 6);
	CHECK_EQ(SFAB_UD_WQE_HDR_LEN + g.xrc_room + g.max_sge * 16 <=
		 1U << g.log_stride, 1);
	REQUIRE(sfab_sq_geometry(SFAB_QPT_XRC_INI, 1, 200, &g) == 0);
	CHECK(g.max_inline >= 200);
	CHECK(SFAB_UD_WQE_HDR_LEN + g.xrc_room + 16 + g.max_inline <=
	      1U << g.log_stride);
	/* the caps of the largest RC stride leave no room for it */
	CHECK(sfab_sq_geometry(SFAB_QPT_XRC_INI, SFAB_SQ_MAX_SGE, 0, &g) < 0);
}
