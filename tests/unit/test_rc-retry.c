/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-retry: the local ACK timeout.  A lost last packet (nothing
 * follows it, so no NAK): nothing happens until the timeout, then the
 * requester goes back and the message completes once.  A lost ACK: the
 * same, the duplicate is ACKed again.  A dead link: retry_cnt retries,
 * then RETRY_EXC_ERR for the oldest WQE, the QP in Error and every later
 * WQE flushed (WR_FLUSH_ERR).  The timeout follows IBA's 4.096 us *
 * 2^timeout (with the engine's floor), and timeout 0 waits forever.
 */
#include "harness.h"
#include "rc_pair.h"

static unsigned int drop_to1, drop_to0, sent_to1;
static bool drop_all;

static bool lossy(unsigned int to, const uint8_t *f, size_t len)
{
	(void)len;
	(void)f;
	if (to == 1)
		sent_to1++;
	if (drop_all && to == 1)
		return true;
	if (to == 1 && drop_to1) {
		drop_to1--;
		return true;
	}
	if (to == 0 && drop_to0) {
		drop_to0--;
		return true;
	}
	return false;
}

#define MS	1000000ULL

TEST(lost_packet_and_lost_ack)
{
	struct rp_cfg cfg = { .timeout = 12, .retry_cnt = 3 };	/* 16.8 ms */
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	rp_drop = lossy;
	drop_all = false;
	drop_to0 = 0;
	drop_to1 = 1;		/* the only packet of a one-packet send */
	sent_to1 = 0;
	rp_recv(1, 0x100, 65536, 256);
	rp_fill(0, 0, 100, 1);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	CHECK(!rp_poll(1, &cqe));
	CHECK(!rp_poll(0, &cqe));
	/* before the timeout: nothing */
	rp_advance(10 * MS);
	CHECK_EQ(sent_to1, 1);
	CHECK(!rp_poll(0, &cqe));
	/* after it: sent again, delivered, ACKed */
	rp_advance(10 * MS);
	CHECK_EQ(sent_to1, 2);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 0, 1, 65536, 100));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(RP[0].h->e->stats.rc_retransmits, 1);

	/* the ACK is lost: the retry is a duplicate, ACKed but not received twice */
	drop_to0 = 1;
	rp_recv(1, 0x101, 65536, 256);
	rp_recv(1, 0x102, 65536, 256);
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x101);
	CHECK(!rp_poll(0, &cqe));
	rp_advance(20 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);
	CHECK_EQ(cqe.status, 0);
	CHECK(!rp_poll(1, &cqe));	/* 0x102 is still posted */
	CHECK_EQ(RP[1].h->e->stats.rc_dups, 1);
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	rp_down();
}

TEST(retry_exhausted)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 2 };	/* 67 ms */
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int i;

	rp_up(&cfg);
	rp_drop = lossy;
	drop_all = true;
	sent_to1 = 0;
	for (i = 0; i < 3; i++) {
		s = rp_wqe(SFAB_WQE_SEND, 0x10 + i, 0, 0, 600);	/* 3 packets each */
		qh_post_rc(RP[0].h, &RP[0].qp, &s);
	}
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	rp_pump();
	CHECK_EQ(sent_to1, 9);
	/* 4.096 us * 2^14 = 67.1 ms */
	rp_advance(60 * MS);
	CHECK_EQ(sent_to1, 9);
	rp_advance(10 * MS);
	CHECK_EQ(sent_to1, 18);		/* go-back-N: all again */
	rp_advance(70 * MS);
	CHECK_EQ(sent_to1, 27);
	CHECK(!rp_poll(0, &cqe));
	rp_advance(70 * MS);		/* retry_cnt 2 used up */
	CHECK_EQ(sent_to1, 27);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_RETRY_EXC_ERR);
	for (i = 1; i < 3; i++) {
		REQUIRE(rp_poll(0, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10 + i);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
	}
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	/* no timer left */
	CHECK_EQ(sfab_engine_qp_deadline(RP[0].h->e) == UINT64_MAX ||
		 !RP[0].h->e->qp[RP[0].qp.qpn].rc.ack_at, 1);
	rp_down();
}

TEST(timeout_zero_waits_forever)
{
	struct rp_cfg cfg = { .timeout = 0, .retry_cnt = 1 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	/* rp_connect turns 0 into 14: set 0 on node 0 (RTS -> RTS cannot) */
	RP[0].h->e->qp[RP[0].qp.qpn].timeout = 0;
	rp_drop = lossy;
	drop_all = true;
	sent_to1 = 0;
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	rp_advance(10000 * MS);
	CHECK_EQ(sent_to1, 1);
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	rp_down();
}
