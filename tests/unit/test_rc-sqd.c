/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-sqd: send queue drain (IBA 10.3.1, 11.2.4) between two engines
 * cabled back to back.  In SQD a multi-packet WRITE already begun goes on
 * to its end and completes; WQEs not begun, and those posted in SQD, wait
 * for SQD -> RTS; SQ_DRAINED comes exactly once per entry into SQD, after
 * the last ACK; QUERY_QP says whether the drain is still going on;
 * receives, READs and the responder keep working in SQD; SQD -> SQD takes
 * path attributes only when drained; errors in SQD move the QP to Error;
 * illegal transitions are refused.  UC and UD QPs drain too.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS	1000000ULL

static int modify(unsigned int i, uint32_t qpn, uint32_t mask, uint8_t state)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_aq_modify_qp *m = &c.u.modify_qp;

	m->qpn = sfab_cpu_to_le32(qpn);
	m->attr_mask = sfab_cpu_to_le32(mask);
	m->state = state;
	m->dlid = sfab_cpu_to_le16(i ? RP_LID0 : RP_LID1);
	m->port_num = 1;
	m->timeout = 15;
	m->retry_cnt = 5;
	m->rnr_retry = 5;
	m->max_rd_atomic = 2;
	m->max_dest_rd_atomic = 3;
	m->qkey = sfab_cpu_to_le32(0x1234);
	m->access_flags = sfab_cpu_to_le32(RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE);
	return host_cmd(RP[i].h, &c);
}

/* SQ_DRAINED events for @qpn on node @i's AENQ (others dropped) */
static unsigned int drained_events(unsigned int i, uint32_t qpn)
{
	struct sfab_aenq_entry ev;
	unsigned int n = 0;

	while (host_aenq_poll(RP[i].h, &ev))
		if (ev.type == SFAB_AENQ_QP_EVENT && ev.data0 == qpn &&
		    ev.data1 == SFAB_QP_EV_SQ_DRAINED)
			n++;
	return n;
}

static bool draining(unsigned int i, uint32_t qpn)
{
	struct sfab_qp_attr a;
	int st = qh_query_qp(RP[i].h, qpn, &a);

	CHECK_EQ(st, 0);
	return !st && (a.flags & SFAB_QP_QUERY_SQ_DRAINING);
}

/* the last ACK of the WRITE (PSN @psn) to node 0 is lost, once */
static uint32_t lose_psn;
static unsigned int lost;

static bool lose_last_ack(unsigned int to, const uint8_t *f, size_t len)
{
	(void)len;
	if (to == 0 && rp_is_ack(f) && rp_psn(f) == lose_psn && !lost) {
		lost++;
		return true;
	}
	return false;
}

/* data frames node 1 got */
static unsigned int to1(void)
{
	return rp_data_frames[1];
}

TEST(rc_write_drains)
{
	struct rp_cfg cfg = { .retry_cnt = 3, .timeout = 12 };
	const uint32_t wlen = 256 * 1024;	/* 1024 packets of 256 */
	uint32_t qpn;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	struct sfab_qp_attr a;
	unsigned long before;

	rp_up(&cfg);
	qpn = RP[0].qp.qpn;
	rp_fill(0, 0, wlen, 3);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x10, 0, 0, wlen);
	s.raddr = RP[1].mem;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	/* a SEND after it, not begun yet */
	rp_recv(1, 0x200, 512 * 1024, 64);
	rp_recv(1, 0x201, 512 * 1024 + 64, 64);
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 600 * 1024, 64);
	rp_post(0, &s);
	/* the WRITE has begun: some of its packets are out, not all */
	REQUIRE(RPW[1].n > 0 && RPW[1].n < 1024);

	/* RTS -> SQD takes no attributes but the notification (driver) */
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_TIMEOUT,
			SFAB_QPS_SQD), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD) == 0);
	CHECK_EQ(rp_state(0), SFAB_QPS_SQD);
	REQUIRE(qh_query_qp(RP[0].h, qpn, &a) == 0);
	CHECK_EQ(a.attr.state, SFAB_QPS_SQD);
	CHECK(a.flags & SFAB_QP_QUERY_SQ_DRAINING);
	CHECK_EQ(drained_events(0, qpn), 0);

	/* not drained: no new path; other attributes are fine */
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_TIMEOUT, 0), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_AV, 0), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_MIN_RNR_TIMER, 0), 0);
	/* SQ_PSN is not an SQD -> SQD attribute; RTR not a way out of SQD */
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_SQ_PSN, 0), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RTR),
		 SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_INIT),
		 SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(rp_state(0), SFAB_QPS_SQD);

	/* a WQE posted in SQD waits */
	s = rp_wqe(SFAB_WQE_SEND, 0x12, 0, 600 * 1024 + 64, 64);
	rp_post(0, &s);

	/* the WRITE goes on to its end; its last ACK is lost once */
	lose_psn = (0 + 1024 - 1) & SFAB_BTH_PSN_MASK;
	lost = 0;
	rp_drop = lose_last_ack;
	rp_pump();
	CHECK_EQ(lost, 1);
	CHECK(!rp_poll(0, &cqe));
	CHECK(draining(0, qpn));
	CHECK_EQ(drained_events(0, qpn), 0);
	CHECK(rp_same(0, 0, 1, 0, wlen));
	/* nothing of the SENDs went out */
	CHECK(!rp_poll(1, &cqe));

	/* the timer sends the end again; this ACK comes: drained, once */
	rp_advance(20 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RDMA_WRITE);
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(drained_events(0, qpn), 1);
	CHECK(!draining(0, qpn));
	CHECK_EQ(rp_state(0), SFAB_QPS_SQD);
	CHECK(!rp_poll(1, &cqe));
	rp_advance(100 * MS);
	CHECK_EQ(drained_events(0, qpn), 0);
	CHECK(!rp_poll(0, &cqe));
	CHECK(!rp_poll(1, &cqe));

	/* drained: SQD -> SQD may change the path (same one here) */
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_TIMEOUT | SFAB_QP_ATTR_RETRY |
			SFAB_QP_ATTR_AV | SFAB_QP_ATTR_RD_ATOMIC, 0), 0);
	REQUIRE(qh_query_qp(RP[0].h, qpn, &a) == 0);
	CHECK_EQ(a.attr.timeout, 15);
	CHECK_EQ(a.attr.retry_cnt, 5);
	CHECK_EQ(a.attr.max_rd_atomic, 2);
	CHECK_EQ(a.attr.max_dest_rd_atomic, 3);
	/* SQD -> SQD with the state bit: no second event */
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD), 0);
	CHECK_EQ(drained_events(0, qpn), 0);

	/* SQD -> RTS: the two SENDs run */
	before = to1();
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RTS) == 0);
	rp_pump();
	CHECK_EQ(to1() - before, 2);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x200);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x201);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x12);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(drained_events(0, qpn), 0);

	/* an idle QP drains at once, an event again for the new entry */
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD) == 0);
	CHECK(!draining(0, qpn));
	CHECK_EQ(drained_events(0, qpn), 1);
	/* Error from SQD, then only Reset */
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_ERR), 0);
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD),
		 SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET), 0);
	/* Reset and Init do not go to SQD */
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD),
		 SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_PKEY_INDEX |
			SFAB_QP_ATTR_PORT | SFAB_QP_ATTR_ACCESS, SFAB_QPS_INIT), 0);
	CHECK_EQ(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD),
		 SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(rp_state(0), SFAB_QPS_INIT);
	rp_down();
}

/* the responder side keeps working in SQD: SENDs received, READs answered */
TEST(rc_receives_in_sqd)
{
	struct rp_cfg cfg = { 0 };
	uint32_t qpn;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	qpn = RP[0].qp.qpn;
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD) == 0);
	CHECK_EQ(drained_events(0, qpn), 1);
	/* node 1 sends 1000 bytes (4 packets) to node 0, in SQD */
	rp_fill(1, 0, 1000, 7);
	rp_recv(0, 0x300, 4096, 1000);
	s = rp_wqe(SFAB_WQE_SEND, 0x30, 1, 0, 1000);
	rp_post(1, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x300);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 1000);
	CHECK(rp_same(1, 0, 0, 4096, 1000));
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	/* and READs node 0's memory */
	rp_fill(0, 8192, 700, 9);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x31, 1, 16384, 700);
	s.raddr = RP[0].mem + 8192;
	s.rkey = RP[0].key;
	rp_post(1, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x31);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 8192, 1, 16384, 700));
	CHECK_EQ(rp_state(0), SFAB_QPS_SQD);
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(drained_events(0, qpn), 0);
	rp_down();
}

/* a READ in flight when SQD comes: drained with its response */
TEST(rc_read_drains)
{
	struct rp_cfg cfg = { 0 };
	uint32_t qpn;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	qpn = RP[0].qp.qpn;
	rp_fill(1, 0, 2000, 5);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x40, 0, 4096, 2000);
	s.raddr = RP[1].mem;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	REQUIRE(RPW[1].n == 1);		/* the request is on the wire */
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD) == 0);
	CHECK(draining(0, qpn));
	CHECK_EQ(drained_events(0, qpn), 0);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x40);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(1, 0, 0, 4096, 2000));
	CHECK_EQ(drained_events(0, qpn), 1);
	CHECK(!draining(0, qpn));
	rp_down();
}

/*
 * A SEND out whose packet asked for no ACK (a READ held back by
 * max_rd_atomic follows it): in SQD the requester asks again, it does not
 * wait for the ACK timer
 */
TEST(rc_unacked_send_drains)
{
	struct rp_cfg cfg = { .rd_atomic = 1, .retry_cnt = 1 };
	uint32_t qpn;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int n;

	rp_up(&cfg);
	qpn = RP[0].qp.qpn;
	rp_fill(1, 0, 100, 5);
	rp_recv(1, 0x700, 8192, 64);
	/* all three posted, then one doorbell */
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x70, 0, 4096, 100);
	s.raddr = RP[1].mem;
	s.rkey = RP[1].key;
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	s = rp_wqe(SFAB_WQE_SEND, 0x71, 0, 0, 64);
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x72, 0, 4096 + 128, 100);
	s.raddr = RP[1].mem;
	s.rkey = RP[1].key;
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	REQUIRE(RPW[1].n == 2);		/* READ, SEND; the second READ waits */
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD) == 0);
	rp_pump();			/* no time passes: no ACK timeout */
	for (n = 0; n < 2; n++) {
		REQUIRE(rp_poll(0, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x70 + n);
		CHECK_EQ(cqe.status, 0);
	}
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(drained_events(0, qpn), 1);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x700);
	CHECK(!rp_poll(1, &cqe));	/* the SEND once */
	/* the second READ after SQD -> RTS */
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RTS) == 0);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x72);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(1, 0, 0, 4096 + 128, 100));
	rp_down();
}

static bool drop_to_1(unsigned int to, const uint8_t *f, size_t len)
{
	(void)f;
	(void)len;
	return to == 1;
}

/* retries run out in SQD: Error as from RTS, no SQ_DRAINED */
TEST(rc_error_in_sqd)
{
	struct rp_cfg cfg = { .retry_cnt = 1, .timeout = 12 };
	uint32_t qpn;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	qpn = RP[0].qp.qpn;
	rp_drop = drop_to_1;
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x80, 0, 0, 64);
	s.raddr = RP[1].mem;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD) == 0);
	rp_pump();
	CHECK(draining(0, qpn));
	rp_advance(20 * MS);		/* the one retry */
	CHECK_EQ(rp_state(0), SFAB_QPS_SQD);
	rp_advance(20 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x80);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_RETRY_EXC_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK_EQ(drained_events(0, qpn), 0);
	rp_down();
}

/* UC: a message begun goes on to its end, completes once sent */
TEST(uc_drains)
{
	struct rp_cfg cfg = { .type = SFAB_QPT_UC };
	const uint32_t wlen = 256 * 1024;
	uint32_t qpn;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	qpn = RP[0].qp.qpn;
	rp_fill(0, 0, wlen, 11);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x50, 0, 0, wlen);
	s.raddr = RP[1].mem;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x51, 0, 0, 64);
	s.raddr = RP[1].mem + wlen;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	REQUIRE(RPW[1].n > 0 && RPW[1].n < 1024);
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD) == 0);
	CHECK(draining(0, qpn));
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x50);
	CHECK_EQ(cqe.status, 0);
	CHECK(!rp_poll(0, &cqe));
	CHECK(rp_same(0, 0, 1, 0, wlen));
	CHECK_EQ(drained_events(0, qpn), 1);
	CHECK(!draining(0, qpn));
	/* the second one after SQD -> RTS */
	REQUIRE(modify(0, qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RTS) == 0);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x51);
	CHECK(rp_same(0, 0, 1, wlen, 64));
	rp_down();
}

/* UD: drained at once (a WQE is done when sent); sends wait, receives work */
TEST(ud_drains)
{
	struct rp_cfg cfg = { 0 };
	struct qh_qp ud[2];
	struct qh_send snd;
	struct sfab_cqe cqe;
	struct sfab_qp_attr a;
	unsigned int i;
	unsigned long before;

	rp_up(&cfg);
	for (i = 0; i < 2; i++) {
		REQUIRE(qh_qp_new_ex(RP[i].h, &ud[i], SFAB_QPT_UD, 4, 7,
				     RP[i].cq.cqn, RP[i].cq.cqn, 0, RP_PD, 0) == 0);
		REQUIRE(qh_qp_rts(RP[i].h, &ud[i], 0x1234) == 0);
	}
	REQUIRE(modify(0, ud[0].qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_SQD) == 0);
	CHECK_EQ(drained_events(0, ud[0].qpn), 1);
	REQUIRE(qh_query_qp(RP[0].h, ud[0].qpn, &a) == 0);
	CHECK_EQ(a.attr.state, SFAB_QPS_SQD);
	CHECK(!(a.flags & SFAB_QP_QUERY_SQ_DRAINING));
	/* UD SQD -> SQD: Q_Key and P_Key index; not an AV */
	CHECK_EQ(modify(0, ud[0].qpn, SFAB_QP_ATTR_QKEY | SFAB_QP_ATTR_PKEY_INDEX, 0), 0);
	CHECK_EQ(modify(0, ud[0].qpn, SFAB_QP_ATTR_AV, 0), SFAB_AQ_STS_BAD_PARAM);

	/* a send posted in SQD stays on the ring */
	memset(&snd, 0, sizeof(snd));
	snd.wr_id = 0x60;
	snd.opcode = SFAB_WQE_SEND;
	snd.flags = SFAB_WQE_SIGNALED;
	snd.dqpn = ud[1].qpn;
	snd.qkey = 0x1234;
	snd.dlid = RP_LID1;
	snd.addr = RP[0].mem;
	snd.len = 100;
	snd.lkey = RP[0].key;
	rp_fill(0, 0, 100, 1);
	qh_post_recv(RP[1].h, &ud[1], 0x61, RP[1].mem + 8192, 1024, RP[1].key);
	qh_qp_db(RP[1].h, &ud[1], false);
	before = to1();
	qh_post_send(RP[0].h, &ud[0], &snd);
	qh_qp_db(RP[0].h, &ud[0], true);
	rp_pump();
	CHECK_EQ(to1(), before);
	CHECK(!rp_poll(0, &cqe));
	CHECK(!rp_poll(1, &cqe));
	CHECK_EQ(RP[0].h->e->qp[ud[0].qpn].sq_ci, 0);

	/* a datagram to the SQD QP is received */
	qh_post_recv(RP[0].h, &ud[0], 0x62, RP[0].mem + 8192, 1024, RP[0].key);
	qh_qp_db(RP[0].h, &ud[0], false);
	snd.wr_id = 0x63;
	snd.dqpn = ud[0].qpn;
	snd.dlid = RP_LID0;
	snd.addr = RP[1].mem;
	snd.lkey = RP[1].key;
	qh_post_send(RP[1].h, &ud[1], &snd);
	qh_qp_db(RP[1].h, &ud[1], true);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x62);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x63);

	/* SQD -> RTS: the waiting datagram goes */
	REQUIRE(modify(0, ud[0].qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RTS) == 0);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x60);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x61);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), SFAB_UD_GRH_LEN + 100);
	CHECK_EQ(drained_events(0, ud[0].qpn), 0);
	rp_down();
}
