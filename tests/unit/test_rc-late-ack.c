/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-late-ack: an ACK that arrives after the requester went back.
 * The local ACK timeout fires while the ACKs are still on their way (a
 * slow, congested fabric), the requester goes back to the oldest
 * unacknowledged PSN, and the link has credit for only a few packets
 * again.  The late ACK covers PSNs beyond the new send point, sent before
 * the go-back: the requester must take it (the WQE completes, the send
 * point moves past what the peer has), not ignore it as an ACK "for PSNs
 * never sent" and run into RETRY_EXC_ERR (perftest ib_write_bw 64 KiB
 * and the 2-byte latency tests failed over sfab so, status 12).  The send
 * point may move into the middle of a message, and stops at a local
 * operation that has not run yet.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS	1000000ULL
/* timeout 14 (67 ms) or node 0's floor, and a little */
#define ACK_TIMEOUT	((4096ULL << 14) > RP[0].h->e->rc_min_timeout_ns ? \
			 (4096ULL << 14) : RP[0].h->e->rc_min_timeout_ns)
#define PAST_TIMEOUT	(ACK_TIMEOUT + 5 * MS)
#define NHELD	8

static unsigned int to1;
static bool hold_acks;

/* ACKs to node 0 are held back (delivered later by the test) */
static bool late(unsigned int to, const uint8_t *f, size_t len)
{
	if (to == 1) {
		to1++;
		return false;
	}
	if (!hold_acks || !rp_is_ack(f) || rp_held.n == NHELD)
		return false;
	return rp_hold(f, len);
}

TEST(late_ack_after_go_back)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 1 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t retrans;

	rp_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	rp_drop = late;
	hold_acks = true;
	rp_held_trim(0);
	/* 32 packets of 256 bytes: ACK requests at PSN 15 and 31 */
	rp_recv(1, 0x100, 65536, 8192);
	rp_fill(0, 0, 8192, 7);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 8192);
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(to1, 32);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 8192);
	CHECK(rp_same(0, 0, 1, 65536, 8192));
	REQUIRE(rp_held.n >= 1);
	CHECK(!rp_poll(0, &cqe));

	/* the timeout: back to PSN 0, but only a few packets can go */
	rp_starve0();
	retrans = RP[0].h->e->stats.rc_retransmits;
	rp_advance0(PAST_TIMEOUT);
	CHECK_EQ(RP[0].h->e->stats.rc_retransmits, retrans + 1);
	CHECK_EQ(to1, 32);			/* all waiting for credit */
	CHECK(qp->sq_psn != 32);		/* the send point is behind */

	/* the late ACKs (PSN 15 and 31): the WQE is done */
	hold_acks = false;
	rp_deliver_held(0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(qp->sq_psn, 32);
	CHECK_EQ(qp->rc.una_psn, 32);
	CHECK_EQ(qp->rc.ack_at, 0);

	/* credit again (the peer's next FC update): only what was queued goes */
	rp_advance(100 * MS);
	rp_advance(100 * MS);
	CHECK(to1 > 32 && to1 <= 32 + SFAB_ENGINE_TXQ_LEN);
	rp_advance(2 * PAST_TIMEOUT);		/* no timer, no retry error */
	CHECK(!rp_poll(0, &cqe));
	CHECK(!rp_poll(1, &cqe));		/* received once */
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);

	/* and the QP goes on */
	rp_recv(1, 0x101, 65536, 8192);
	rp_fill(0, 0, 1000, 9);
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 0, 1000);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 0, 1, 65536, 1000));
	rp_down();
}

/* late ACKs in the middle of a message: the send point moves mid-WQE */
TEST(late_write_acks_move_the_send_point_mid_message)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 1 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	rp_drop = late;
	hold_acks = true;
	rp_held_trim(0);
	to1 = 0;
	/* a 48-packet WRITE: ACK requests at PSN 15, 31 and 47 */
	rp_fill(0, 0, 48 * 256, 3);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x20, 0, 0, 48 * 256);
	s.raddr = RP[1].mem + 131072;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(to1, 48);
	CHECK(rp_same(0, 0, 1, 131072, 48 * 256));
	REQUIRE(rp_held.n == 3);
	rp_held_trim(2);		/* the ACK for 47 is lost for good */
	rp_starve0();
	rp_advance0(PAST_TIMEOUT);
	CHECK(qp->sq_psn < 32);		/* behind */
	/* ACKs for 15 and 31: the send point moves to 32, mid-WRITE */
	hold_acks = false;
	rp_deliver_held(0);
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(qp->rc.una_psn, 32);
	CHECK_EQ(qp->sq_psn, 32);
	CHECK_EQ(qp->rc.snd_off, 32 * 256);
	/* credit back: the queued duplicates, then 32..47 again, ACKed */
	rp_advance(100 * MS);
	rp_advance(100 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x20);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	CHECK(rp_same(0, 0, 1, 131072, 48 * 256));
	rp_down();
}

/*
 * A local operation right after the late-ACKed WQE: the send point stops
 * at it, so it still runs (here a LOCAL_INV of a key no fast-registration
 * MR has: it fails, the QP goes to Error), rather than being passed over
 * and completed as if it had run.
 */
TEST(late_ack_stops_at_a_local_op)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 1 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	rp_drop = late;
	hold_acks = true;
	rp_held_trim(0);
	to1 = 0;
	rp_recv(1, 0x100, 65536, 8192);
	rp_recv(1, 0x101, 65536, 8192);
	s = rp_wqe(SFAB_WQE_SEND, 0x30, 0, 0, 8192);		/* PSN 0..31 */
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_LOCAL_INV;
	s.wr_id = 0x31;
	s.flags = SFAB_WQE_SIGNALED;
	s.imm = RP[0].key;				/* not fast-reg */
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	s = rp_wqe(SFAB_WQE_SEND, 0x32, 0, 0, 100);
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	rp_pump();
	CHECK_EQ(to1, 32);			/* the LOCAL_INV waits for the SEND */
	REQUIRE(rp_held.n == 2);
	rp_starve0();
	rp_advance0(PAST_TIMEOUT);
	CHECK(qp->sq_psn < 32);
	hold_acks = false;
	rp_deliver_held(0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x30);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x31);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_LOCAL_INV);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_QP_OP_ERR);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x32);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	rp_down();
}
