/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-sent-rewrite: a guest rewrites a send WQE after it was sent
 * whole, before it completed (the requester reads it again for every
 * ACK, and counts its PSNs from what it reads).  Found by fuzz/datapath.
 *
 * Grown: a one-packet WRITE made four packets long before its ACK comes.
 * The ACK acknowledged everything sent, so the WQE waited for PSNs that
 * never went out, with no ACK timer running: the QP hung in RTS with the
 * WQE never completed.  Now the requester sees a WQE before the send
 * point that needs PSNs past those sent: LOC_QP_OP_ERR, Error, a guest
 * error.
 *
 * Shrunk: an eight-packet WRITE made one packet long, two WRITEs behind
 * it lost on the wire.  The ACK of the first WRITE now completes all
 * three (the guest's own loss), and PSNs stay outstanding behind an empty
 * send queue.  On the ACK timeout with no retry left, the requester
 * completed the WQE at the consumer index, one that was never posted,
 * and moved the consumer index past the producer index; the QP's flush
 * then completed 65535 more.  Now an empty send queue fails the QP
 * without a CQE (a FATAL event, a guest error).
 *
 * Shrunk in SQD: a five-packet SEND sent, the QP in SQD, four WQEs
 * posted behind it (they wait for RTS), the SEND made one packet long;
 * an ACK timeout sends it again and the peer ACKs all five PSNs.  The
 * walk to the acknowledged PSN went past the WQEs begun: the four never
 * sent completed, and the send point, past the drain's end, ran on
 * through ring slots never posted.  Now the walk stops where sending
 * stops; back in RTS the four go out and complete.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS		1000000ULL
#define ACK_TIMEOUT	((4096ULL << 14) > RP[0].h->e->rc_min_timeout_ns ? \
			 (4096ULL << 14) : RP[0].h->e->rc_min_timeout_ns)
#define PAST_TIMEOUT	(ACK_TIMEOUT + 5 * MS)

static bool hold_acks, drop_reqs;

static bool net(unsigned int to, const uint8_t *f, size_t len)
{
	if (to == 1)
		return drop_reqs;
	return hold_acks && rp_is_ack(f) && rp_hold(f, len);
}

static void net_up(const struct rp_cfg *cfg)
{
	rp_up(cfg);
	hold_acks = false;
	drop_reqs = false;
	rp_held_trim(0);
	rp_drop = net;
}

/* node 0's WQE at SQ index @idx written again as @s (no doorbell) */
static void rewrite(uint16_t idx, const struct qh_rc_send *s)
{
	uint16_t pi = RP[0].qp.sq_pi;

	RP[0].qp.sq_pi = idx;
	qh_post_rc(RP[0].h, &RP[0].qp, s);
	RP[0].qp.sq_pi = pi;
}

static struct qh_rc_send write_wqe(uint64_t wr_id, uint32_t len)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_RDMA_WRITE, wr_id, 0, 0, len);

	s.raddr = RP[1].mem + 131072;
	s.rkey = RP[1].key;
	return s;
}

static unsigned long rewrite_errors(void)
{
	return RP[0].h->guest_error_sites[SFAB_GE_RC_WQE_REWRITE];
}

/*
 * A one-packet WRITE, its ACK on the way; the guest makes it four packets
 * long.  The ACK covers all that was sent and none of the rest.
 */
TEST(grown_after_it_was_sent)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned long ge;

	net_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	hold_acks = true;
	s = write_wqe(0x10, 256);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_held.n == 1);
	REQUIRE(qp->rc.snd_idx == 1);
	ge = rewrite_errors();
	s = write_wqe(0x10, 4 * 256);
	rewrite(0, &s);
	hold_acks = false;
	rp_deliver_held(0);
	/* before: RTS, nothing outstanding, no timer, the WQE never done */
	rp_advance(2 * PAST_TIMEOUT);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_QP_OP_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK(rewrite_errors() > ge);
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);
	rp_down();
}

/*
 * An eight-packet WRITE, its ACK on the way; the guest makes it one
 * packet long and posts two more WRITEs, which the wire loses.  The ACK
 * completes all three; PSNs 8 and 9 stay outstanding behind an empty
 * send queue, and the ACK timeout finds no retry left.
 */
TEST(shrunk_then_timeout_on_an_empty_queue)
{
	struct rp_cfg cfg = { .retry_cnt = 0 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int n = 0;
	unsigned long ge;

	net_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	hold_acks = true;
	s = write_wqe(0x20, 8 * 256);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_held.n == 1);
	REQUIRE(qp->rc.snd_idx == 1 && qp->sq_psn == 8);
	ge = rewrite_errors();
	s = write_wqe(0x20, 8);
	rewrite(0, &s);
	drop_reqs = true;
	s = write_wqe(0x21, 8);
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	s = write_wqe(0x22, 8);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(qp->sq_psn == 10);
	hold_acks = false;
	rp_deliver_held(0);
	rp_advance(PAST_TIMEOUT);
	rp_advance(PAST_TIMEOUT);
	/* what completed are the three WQEs posted, each once */
	while (n < 8 && rp_poll(0, &cqe)) {
		CHECK(sfab_le16_to_cpu(cqe.wqe_index) == n);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x20 + n);
		n++;
	}
	CHECK_EQ(n, 3);
	CHECK_EQ(qp->sq_ci, qp->sq_pi);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK(!qp->flushing);
	CHECK(rewrite_errors() > ge);
	CHECK(!RP[0].h->e->cq[RP[0].cq.cqn].err);
	rp_down();
}

/*
 * A five-packet SEND, its ACK on the way; SQD; four SENDs posted; the
 * first made a one-packet SEND of nothing.  The ACK timeout sends that
 * packet again, the peer ACKs PSN 4 for the duplicate.
 */
TEST(shrunk_in_sqd)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int n = 0, k;

	net_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	for (k = 0; k < 5; k++)
		rp_recv(1, 0x100 + k, 65536 + k * 4096, 4096);
	hold_acks = true;
	s = rp_wqe(SFAB_WQE_SEND, 0x30, 0, 0, 5 * 256);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_held.n == 1);
	REQUIRE(qp->rc.snd_idx == 1 && qp->sq_psn == 5);
	rp_held_trim(0);		/* lost */
	REQUIRE(qh_modify(RP[0].h, RP[0].qp.qpn, SFAB_QP_ATTR_STATE,
			  SFAB_QPS_SQD, 0) == 0);
	REQUIRE(qp->sqd_stop == 1);
	for (k = 1; k < 5; k++) {
		s = rp_wqe(SFAB_WQE_SEND, 0x30 + k, 0, k * 64, 64);
		rp_post(0, &s);
	}
	s = rp_wqe(SFAB_WQE_SEND, 0x30, 0, 0, 0);
	rewrite(0, &s);
	hold_acks = false;
	rp_advance(PAST_TIMEOUT);
	/* the first SEND only: the others were never sent */
	while (n < 8 && rp_poll(0, &cqe)) {
		CHECK(sfab_le16_to_cpu(cqe.wqe_index) == 0);
		n++;
	}
	CHECK(n <= 1);
	CHECK(sfab_ring_used(qp->sq_pi, qp->sq_ci) <= 5);
	CHECK(sfab_ring_used(qp->sqd_stop, qp->rc.snd_idx) <= 1);
	/* the drain is over: the four go out */
	REQUIRE(qh_modify(RP[0].h, RP[0].qp.qpn, SFAB_QP_ATTR_STATE,
			  SFAB_QPS_RTS, 0) == 0);
	rp_pump();
	rp_advance(PAST_TIMEOUT);
	while (n < 8 && rp_poll(0, &cqe)) {
		CHECK(sfab_le16_to_cpu(cqe.wqe_index) == n);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_SUCCESS);
		n++;
	}
	CHECK_EQ(n, 5);
	CHECK_EQ(qp->sq_ci, 5);
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	rp_down();
}
