/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/srq-limit: shared receive queues.  CREATE/MODIFY/DESTROY_SRQ and
 * their checks (a QP of another PD, an unknown SRQ, a limit beyond the
 * depth, destroying an SRQ in use); the SRQ doorbell (its page only); RC
 * sends (one and many packets) and UD datagrams of two QPs taking WQEs
 * from one SRQ in order; the limit event once when fewer WQEs than the
 * limit remain, then disarmed, re-armed by MODIFY_SRQ (at once when
 * already below); an empty SRQ gives RNR NAKs; the RQ doorbell of an SRQ
 * QP is ignored; an SRQ QP in Error reports LAST_WQE.  RESIZE_SRQ: the
 * posted WQEs move to the same indices of the new ring, a receive begun
 * before it ends in the WQE it began in; what it refuses leaves the SRQ on
 * its old ring.
 */
#include "harness.h"
#include "rc_pair.h"

static unsigned int srq_events(unsigned int node, uint64_t what)
{
	struct sfab_aenq_entry ev;
	unsigned int n = 0;

	while (host_aenq_poll(RP[node].h, &ev))
		if (ev.type == SFAB_AENQ_SRQ_EVENT && ev.data0 == rp_srq.srqn &&
		    ev.data1 == what)
			n++;
	return n;
}

static int modify_srq(uint32_t srqn, uint32_t limit)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_SRQ);

	c.u.modify_srq.srqn = sfab_cpu_to_le32(srqn);
	c.u.modify_srq.limit = sfab_cpu_to_le32(limit);
	return host_cmd(RP[1].h, &c);
}

TEST(commands)
{
	struct rp_cfg cfg = { .srq = true };
	struct fake_host *h;
	struct qh_srq other;
	struct qh_qp qp;
	struct sfab_aq_cmd c;

	rp_up(&cfg);
	h = RP[1].h;
	/* a QP of PD 2 cannot use a PD 1 SRQ; an unknown SRQ; SRQ without the flag */
	CHECK_EQ(qh_qp_new_ex(h, &qp, SFAB_QPT_RC, 4, 8, RP[1].cq.cqn, RP[1].cq.cqn,
			      SFAB_QP_SRQ, 2, rp_srq.srqn), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_qp_new_ex(h, &qp, SFAB_QPT_RC, 4, 8, RP[1].cq.cqn, RP[1].cq.cqn,
			      SFAB_QP_SRQ, RP_PD, 77), SFAB_AQ_STS_BAD_PARAM);
	/* QP0/QP1 cannot */
	CHECK_EQ(qh_qp_new_ex(h, &qp, SFAB_QPT_GSI, 4, 8, RP[1].cq.cqn, RP[1].cq.cqn,
			      SFAB_QP_SRQ, RP_PD, rp_srq.srqn), SFAB_AQ_STS_BAD_PARAM);
	/* limits: at most the depth (32) */
	CHECK_EQ(modify_srq(rp_srq.srqn, 33), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify_srq(99, 1), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_srq_new(h, &other, 4, RP_PD, 17), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_srq_new(h, &other, 4, 256, 0), SFAB_AQ_STS_BAD_PARAM);
	REQUIRE(qh_srq_new(h, &other, 4, RP_PD, 16) == 0);
	CHECK(other.srqn != rp_srq.srqn);
	/* in use: refused; unused: gone */
	c = cmd_new(SFAB_AQ_DESTROY_SRQ);
	c.u.destroy_srq.srqn = sfab_cpu_to_le32(rp_srq.srqn);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	c.u.destroy_srq.srqn = sfab_cpu_to_le32(other.srqn);
	CHECK_EQ(host_cmd(h, &c), 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	/* a doorbell through another page is ignored */
	{
		uint64_t before = h->e->stats.db_ignored;

		sfab_engine_db_write(h->e, 3 * SFAB_DB_PAGE_SIZE + SFAB_DB_SRQ,
				     (uint64_t)1 << 32 | rp_srq.srqn, 8,
				     SFAB_DB_SRC_CPU);
		CHECK_EQ(h->e->stats.db_ignored, before + 1);
		CHECK_EQ(h->e->srq[rp_srq.srqn].pi, 0);
		/* the RQ doorbell of an SRQ QP too */
		sfab_engine_db_write(h->e, SFAB_DB_RQ,
				     (uint64_t)1 << 32 | RP[1].qp.qpn, 8,
				     SFAB_DB_SRC_CPU);
		CHECK_EQ(h->e->stats.db_ignored, before + 2);
	}
	rp_down();
}

TEST(limit_event_and_order)
{
	struct rp_cfg cfg = { .srq = true, .rnr_retry = 3 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	struct qh_qp ud0, ud1;
	unsigned int i;

	rp_up(&cfg);
	for (i = 0; i < 5; i++)
		qh_srq_post(RP[1].h, &rp_srq, 0x500 + i, RP[1].mem + 65536 + i * 2048,
			    2048, RP[1].key);
	CHECK_EQ(modify_srq(rp_srq.srqn, 3), 0);
	CHECK_EQ(srq_events(1, SFAB_SRQ_EV_LIMIT), 0);
	/* two RC sends: 5 -> 3 WQEs, not below the limit yet */
	rp_fill(0, 0, 1500, 2);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 1500);	/* 6 packets */
	rp_post(0, &s);
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 0, 10);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x500);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 1500);
	CHECK(rp_same(0, 0, 1, 65536, 1500));
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x501);
	CHECK_EQ(srq_events(1, SFAB_SRQ_EV_LIMIT), 0);

	/* a UD QP on the same SRQ takes the next one: 2 left, the event */
	REQUIRE(qh_qp_new_ex(RP[1].h, &ud1, SFAB_QPT_UD, 4, 7, RP[1].cq.cqn,
			     RP[1].cq.cqn, SFAB_QP_SRQ, RP_PD, rp_srq.srqn) == 0);
	REQUIRE(qh_qp_rts(RP[1].h, &ud1, 0x77) == 0);
	REQUIRE(qh_qp_new_ex(RP[0].h, &ud0, SFAB_QPT_UD, 4, 7, RP[0].cq.cqn,
			     RP[0].cq.cqn, 0, RP_PD, 0) == 0);
	REQUIRE(qh_qp_rts(RP[0].h, &ud0, 0x77) == 0);
	qh_post_send(RP[0].h, &ud0, &(struct qh_send){
		.wr_id = 0x20, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.dqpn = ud1.qpn, .qkey = 0x77, .dlid = RP_LID1,
		.addr = RP[0].mem, .len = 100, .lkey = RP[0].key });
	qh_qp_db(RP[0].h, &ud0, true);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x502);
	CHECK_EQ(cqe_qpn(&cqe), ud1.qpn);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 140);
	CHECK_EQ(srq_events(1, SFAB_SRQ_EV_LIMIT), 1);
	/* disarmed: no more events */
	s = rp_wqe(SFAB_WQE_SEND, 0x12, 0, 0, 10);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x503);
	CHECK_EQ(srq_events(1, SFAB_SRQ_EV_LIMIT), 0);
	/* re-armed above the count (1 left): the event at once */
	CHECK_EQ(modify_srq(rp_srq.srqn, 2), 0);
	CHECK_EQ(srq_events(1, SFAB_SRQ_EV_LIMIT), 1);

	/* the last one, then an empty SRQ: RNR NAK until a WQE comes */
	s = rp_wqe(SFAB_WQE_SEND, 0x13, 0, 0, 10);
	rp_post(0, &s);
	s = rp_wqe(SFAB_WQE_SEND, 0x14, 0, 0, 10);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x504);
	CHECK(!rp_poll(1, &cqe));
	CHECK(RP[1].h->e->stats.rc_naks_tx >= 1);
	qh_srq_post(RP[1].h, &rp_srq, 0x505, RP[1].mem + 65536, 2048, RP[1].key);
	rp_advance(1000000000ULL);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x505);
	for (i = 0; i < 4; i++) {
		REQUIRE(rp_poll(0, &cqe));
		CHECK_EQ(cqe.status, 0);
	}
	rp_down();
}

TEST(last_wqe_on_error)
{
	struct rp_cfg cfg = { .srq = true };
	struct sfab_aq_cmd c;
	struct sfab_aenq_entry ev;
	bool seen = false;

	rp_up(&cfg);
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	c.u.modify_qp.qpn = sfab_cpu_to_le32(RP[1].qp.qpn);
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE);
	c.u.modify_qp.state = SFAB_QPS_ERR;
	REQUIRE(host_cmd(RP[1].h, &c) == 0);
	while (host_aenq_poll(RP[1].h, &ev))
		if (ev.type == SFAB_AENQ_QP_EVENT && ev.data0 == RP[1].qp.qpn &&
		    ev.data1 == SFAB_QP_EV_LAST_WQE)
			seen = true;
	CHECK(seen);
	rp_down();
}

static struct sfab_aq_cmd resize_cmd(uint64_t ring, unsigned int log,
				     unsigned int slog, uint16_t ci, uint16_t pi)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_RESIZE_SRQ);

	qh_ring_desc(&c.u.resize_srq.ring, ring, log, slog);
	c.u.resize_srq.srqn = sfab_cpu_to_le32(rp_srq.srqn);
	c.u.resize_srq.ci = sfab_cpu_to_le16(ci);
	c.u.resize_srq.pi = sfab_cpu_to_le16(pi);
	return c;
}

static bool hold_to1;

static bool hold_hook(unsigned int to, const uint8_t *f, size_t len)
{
	return to == 1 && hold_to1 && rp_hold(f, len);
}

#define RBUF(i)	(65536 + (i) * 2048)

TEST(resize)
{
	struct rp_cfg cfg = { .srq = true, .srq_log = 2 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	struct sfab_aq_cmd c;
	uint64_t old, ring;
	unsigned int i, held;

	rp_up(&cfg);
	for (i = 0; i < 3; i++)
		qh_srq_post(RP[1].h, &rp_srq, 0x700 + i, RP[1].mem + RBUF(i),
			    2048, RP[1].key);

	/* a 6-packet SEND: half of it in when the SRQ moves */
	rp_drop = hold_hook;
	hold_to1 = true;
	rp_fill(0, 0, 1500, 9);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 1500);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_held.n == 6);
	hold_to1 = false;
	for (i = 0; i < 3; i++) {
		sfab_engine_cable_rx(RP[1].h->e, rp_held.f[i], rp_held.len[i]);
		host_run(RP[1].h);
	}
	CHECK_EQ(RP[1].h->e->srq[rp_srq.srqn].ci, 1);	/* WQE 0 begun */

	/* refused: too small, another stride, indices that do not fit */
	ring = host_alloc(RP[1].h, 64U << 3, 4096);
	c = resize_cmd(ring, 1, 6, 0, 3);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(ring, 3, 5, 0, 3);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(ring, 3, 6, 1, 3);	/* WQE 0 is still in use */
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(ring, 3, 6, 0, 2);	/* 3 were posted */
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(ring, 3, 6, 0, 3);
	c.u.resize_srq.srqn = sfab_cpu_to_le32(rp_srq.srqn + 7);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(ring, 3, 6, 0, 3);
	c.u.raw[40] = 1;
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(HOST_MEM_BASE + HOST_MEM_SIZE, 3, 6, 0, 3);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_DMA_ERROR);
	CHECK_EQ(RP[1].h->e->srq[rp_srq.srqn].ring.log_depth, 2);

	/* 4 -> 8, the old ring wiped as the host frees it */
	c = resize_cmd(ring, 3, 6, 0, 3);
	REQUIRE(host_cmd(RP[1].h, &c) == SFAB_AQ_STS_OK);
	old = rp_srq.ring;
	memset(hp(RP[1].h, old), 0xee, 64U << 2);
	rp_srq.ring = ring;
	rp_srq.log = 3;

	/* the rest of the SEND: it completes in WQE 0, all 1500 bytes */
	held = rp_held.n;
	for (i = 3; i < held; i++)
		sfab_engine_cable_rx(RP[1].h->e, rp_held.f[i], rp_held.len[i]);
	for (i = 0; i < held; i++)
		free(rp_held.f[i]);
	rp_held.n = 0;
	rp_drop = NULL;
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x700);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 1500);
	CHECK(rp_same(0, 0, 1, RBUF(0), 1500));

	/* WQEs 1, 2 (moved) and 3..8 (new; 8 in slot 0), then 9 in slot 1 */
	for (i = 3; i < 9; i++)
		qh_srq_post(RP[1].h, &rp_srq, 0x700 + i, RP[1].mem + RBUF(i),
			    2048, RP[1].key);
	for (i = 1; i < 10; i++) {
		if (i == 9)
			qh_srq_post(RP[1].h, &rp_srq, 0x709, RP[1].mem + RBUF(9),
				    2048, RP[1].key);
		rp_fill(0, 4096, 100 + i, (uint8_t)i);
		s = rp_wqe(SFAB_WQE_SEND, 0x20 + i, 0, 4096, 100 + i);
		rp_post(0, &s);
		rp_pump();
		REQUIRE(rp_poll(1, &cqe));
		CHECK_EQ(cqe.status, 0);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x700 + i);
		CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 100 + i);
		CHECK(rp_same(0, 4096, 1, RBUF(i), 100 + i));
	}
	CHECK_EQ(RP[1].h->e->srq[rp_srq.srqn].ci, 10);
	CHECK(!dev_fatal(RP[1].h));
	rp_down();
}
