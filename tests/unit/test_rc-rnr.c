/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-rnr: receiver not ready.  A send to a QP without a receive WQE
 * is RNR NAKed with the responder's min_rnr_timer; the requester waits
 * that long (IBA table 45), sends again, and once a receive is posted the
 * send completes.  rnr_retry bounds the NAKs (RNR_RETRY_EXC_ERR, the QP in
 * Error); 7 retries for ever.  A WRITE with immediate needs a receive WQE
 * too, a plain WRITE does not.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS	1000000ULL

static unsigned int rnrs, sends;

static bool watch(unsigned int to, const uint8_t *f, size_t len)
{
	(void)len;
	if (to == 0 && rp_is_rnr(f)) {
		rnrs++;
		/* the responder's min_rnr_timer 18 (5.12 ms) in the NAK */
		CHECK_EQ(rp_syndrome(f) & SFAB_AETH_VAL_MASK, 18);
	}
	if (to == 1)
		sends++;
	return false;
}

TEST(rnr_then_success)
{
	struct rp_cfg cfg = { .rnr_retry = 3, .min_rnr_timer = 18, .retry_cnt = 1 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	rnrs = sends = 0;
	rp_drop = watch;
	rp_fill(0, 0, 500, 3);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 500);
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(rnrs, 1);
	CHECK_EQ(sends, 2);	/* both packets: the first was NAKed, the second dropped */
	CHECK_EQ(RP[1].h->e->stats.rx_no_wqe, 1);
	CHECK(!rp_poll(0, &cqe));
	/* within the 5.12 ms: no retry */
	rp_advance(4 * MS);
	CHECK_EQ(sends, 2);
	/* the timer passes: again, and again RNR */
	rp_advance(2 * MS);
	CHECK_EQ(rnrs, 2);
	rp_recv(1, 0x100, 65536, 1024);
	rp_advance(6 * MS);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 500);
	CHECK(rp_same(0, 0, 1, 65536, 500));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(rnrs, 2);
	CHECK_EQ(RP[0].h->e->stats.rc_rnr_naks_rx, 2);

	/* WRITE with immediate waits for a receive; a plain WRITE does not */
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x11, 0, 0, 100);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	s.opcode = SFAB_WQE_RDMA_WRITE_IMM;
	s.wr_id = 0x12;
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(rnrs, 3);
	rp_recv(1, 0x101, 0, 0);
	rp_advance(6 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x12);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV_RDMA_IMM);
	rp_down();
}

TEST(rnr_exhausted)
{
	struct rp_cfg cfg = { .rnr_retry = 2, .min_rnr_timer = 18, .retry_cnt = 1 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int i;

	rp_up(&cfg);
	rnrs = sends = 0;
	rp_drop = watch;
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 100);
	rp_post(0, &s);
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	for (i = 0; i < 5; i++)
		rp_advance(6 * MS);
	CHECK_EQ(rnrs, 3);	/* the first and rnr_retry = 2 more */
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_RNR_RETRY_EXC_ERR);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);	/* an RNR is no responder error */
	rp_down();
}

TEST(rnr_forever)
{
	struct rp_cfg cfg = { .rnr_retry = 7, .min_rnr_timer = 18, .retry_cnt = 1 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int i;

	rp_up(&cfg);
	rnrs = sends = 0;
	rp_drop = watch;
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	for (i = 0; i < 20; i++)
		rp_advance(6 * MS);
	CHECK_EQ(rnrs, 21);
	CHECK(!rp_poll(0, &cqe));
	rp_recv(1, 0x100, 0, 256);
	rp_advance(6 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	rp_down();
}
