/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-implied-nak: implied NAKs cannot keep a requester busy.  An
 * ACK past a READ whose response never came makes the requester go back
 * to the READ and send its window again; it used to restore the retry
 * count too, so a peer that ACKs later PSNs but never answers the READ
 * (the test plays it) kept both ends resending for ever.  A go-back that
 * resends the same oldest unacknowledged PSN uses a retry: the READ ends
 * in RETRY_EXC_ERR after retry_cnt go-backs.  Forged ACKs past a
 * READ whose response is still on its way make the victim resend its
 * window at most that often.  And the work one ACK does is bounded: with
 * sent WQEs rewritten into zero-PSN ones, the ACK used to read every WQE
 * of the send queue; now at most SFAB_RC_WALK_MAX of them.
 */
#include "harness.h"
#include "rc_pair.h"
#include "sfab_engine_int.h"

#define MS	1000000ULL
#define ROUNDS	200		/* far more than any retry_cnt allows */

static unsigned int to1;
static bool drop_to1;

static bool silent_peer(unsigned int to, const uint8_t *f, size_t len)
{
	(void)f;
	(void)len;
	if (to != 1)
		return false;
	to1++;
	return drop_to1;
}

/* an ACK (the peer's, or forged) up to and with @psn, into node 0 */
static void ack_to_node0(uint32_t psn)
{
	uint8_t f[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_pkt_rc p;
	size_t n;

	rp_ack_pkt(&p, psn);
	n = sfab_link_pkt_build_rc(f, &p, NULL, 0);
	CHECK(sfab_engine_qp_rx_pkt(RP[0].h->e, f, n));
}

static void read_then_send(uint64_t wr_id, uint32_t read_len, uint32_t send_len)
{
	struct qh_rc_send s;

	s = rp_wqe(SFAB_WQE_RDMA_READ, wr_id, 0, 65536, read_len);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	s = rp_wqe(SFAB_WQE_SEND, wr_id + 1, 0, 0, send_len);
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	qh_qp_db(RP[0].h, &RP[0].qp, true);
}

/* node 0's READ @wr_id ran out of retries, the SEND after it was flushed */
static void read_retry_exceeded(uint64_t wr_id)
{
	struct sfab_cqe cqe;

	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), wr_id);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_RETRY_EXC_ERR);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), wr_id + 1);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(RP[0].h->e->stats.rc_retry_exc, 1);
}

/*
 * READ at PSN 0, SEND at PSN 1; the peer gets nothing of either but ACKs
 * PSN 1 after every (re)transmission.  Before: ROUNDS go-backs and the
 * QP still in RTS.
 */
TEST(acks_past_an_unanswered_read)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	unsigned int round;

	rp_up(&cfg);
	to1 = 0;
	drop_to1 = true;
	rp_drop = silent_peer;
	read_then_send(0x10, 100, 100);
	rp_pump();
	CHECK_EQ(to1, 2);
	for (round = 0; round < ROUNDS && rp_state(0) == SFAB_QPS_RTS; round++) {
		ack_to_node0(1);
		rp_advance(MS);		/* link credit; far below the ACK timeout */
	}
	/* ROUNDS rounds and still RTS: the livelock */
	CHECK(round <= cfg.retry_cnt + 1U);
	CHECK(RP[0].h->e->stats.rc_retransmits <= cfg.retry_cnt);
	CHECK(RP[0].h->e->stats.rc_implied_naks <= cfg.retry_cnt);
	CHECK(to1 <= 2 * (cfg.retry_cnt + 2U));
	read_retry_exceeded(0x10);
	rp_down();
}

/*
 * A READ, then a 32-packet SEND, to an honest peer whose answers are
 * still on their way (lost here); an attacker's forged ACKs for the SEND's
 * last PSN arrive meanwhile, one after each window node 0 sends.  Each
 * made node 0 send its whole window again, and ROUNDS of them ROUNDS
 * windows.  Now node 0 goes back at most retry_cnt times for them, then
 * the READ fails.
 */
static bool drop_to0;
static unsigned long data_to0;

static bool slow_answers(unsigned int to, const uint8_t *f, size_t len)
{
	(void)f;
	(void)len;
	if (to == 1) {
		to1++;
		return false;
	}
	data_to0++;
	return drop_to0;
}

TEST(forged_acks_before_the_read_response)
{
	struct rp_cfg cfg = { .retry_cnt = 2 };
	struct sfab_engine_stats *st;
	unsigned int round;

	rp_up(&cfg);
	st = &RP[0].h->e->stats;
	to1 = 0;
	drop_to0 = true;
	data_to0 = 0;
	rp_drop = slow_answers;
	rp_fill(1, 4096, 100, 3);
	rp_recv(1, 0x100, 65536, 32 * 256);
	read_then_send(0x20, 100, 32 * 256);
	rp_pump();
	CHECK_EQ(to1, 33);
	CHECK(data_to0 > 0);		/* the READ response and an ACK, held */
	for (round = 0; round < ROUNDS && rp_state(0) == SFAB_QPS_RTS; round++) {
		ack_to_node0(32);
		rp_pump();
	}
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "%u forged ACKs: %llu go-backs, %llu packets again\n",
			round, (unsigned long long)st->rc_retransmits,
			(unsigned long long)st->rc_retrans_pkts);
	CHECK(round <= cfg.retry_cnt + 1U);
	CHECK(st->rc_retransmits <= cfg.retry_cnt);
	CHECK(st->rc_retrans_pkts <= 33 * cfg.retry_cnt);
	CHECK(to1 <= 33 * (cfg.retry_cnt + 1U));
	read_retry_exceeded(0x20);
	/* the answers come at last: nothing changes */
	drop_to0 = false;
	rp_advance(MS);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK_EQ(st->rc_retry_exc, 1);
	rp_down();
}

/*
 * The work of one ACK: a SEND sent, 4094 LOCAL_INVs waiting behind it;
 * the guest rewrites the sent SEND into a LOCAL_INV (no PSN), so nothing
 * ends the requester's walk to the ACKed PSN.  The ACK used to read all
 * 4095 WQEs; now at most SFAB_RC_WALK_MAX.  An honest ACK reads a few.
 */
TEST(ack_work_is_bounded)
{
	struct rp_cfg cfg = { .retry_cnt = 3, .sq_log = 12 };
	unsigned int n = 1U << 12, i;
	struct qh_rc_send s, inv;
	struct sfab_cqe cqe;
	uint64_t dma;

	rp_up(&cfg);
	to1 = 0;
	drop_to1 = false;
	rp_drop = silent_peer;
	/* first an honest one: the SEND is lost on the wire, the test ACKs it */
	s = rp_wqe(SFAB_WQE_SEND, 0x30, 0, 0, 100);
	drop_to1 = true;
	rp_post(0, &s);
	rp_pump();
	dma = RP[0].h->e->stats.dma_ops;
	ack_to_node0(0);
	CHECK(RP[0].h->e->stats.dma_ops - dma <= 8);
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "an honest ACK: %llu DMA operations\n",
			(unsigned long long)(RP[0].h->e->stats.dma_ops - dma));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	/* now ring index 1 on: a SEND, then LOCAL_INVs that wait for it */
	s = rp_wqe(SFAB_WQE_SEND, 0x31, 0, 0, 100);
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	memset(&inv, 0, sizeof(inv));
	inv.opcode = SFAB_WQE_LOCAL_INV;
	inv.imm = RP[0].key;
	for (i = 2; i < n; i++) {
		inv.wr_id = 0x1000 + i;
		qh_post_rc(RP[0].h, &RP[0].qp, &inv);
	}
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	rp_pump();
	REQUIRE(RP[0].h->e->qp[RP[0].qp.qpn].rc.snd_idx == 2);	/* the SEND went */
	/* the sent SEND rewritten into a LOCAL_INV */
	RP[0].qp.sq_pi = 1;
	inv.wr_id = 0x31;
	qh_post_rc(RP[0].h, &RP[0].qp, &inv);
	RP[0].qp.sq_pi = (uint16_t)n;
	dma = RP[0].h->e->stats.dma_ops;
	ack_to_node0(1);
	CHECK(RP[0].h->e->stats.dma_ops - dma <= SFAB_RC_WALK_MAX + 8);
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "one ACK: %llu DMA operations\n",
			(unsigned long long)(RP[0].h->e->stats.dma_ops - dma));
	rp_down();
}
