/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-wqe-rewrite: a guest rewrites a send WQE after its first
 * packets went out.  The requester reads a WQE when it starts the message
 * and keeps what it parsed for the message's next packets; it reads it
 * again from guest memory after a go-back, or when its slot of the cache
 * went to another QP.  A long SEND rewritten into a short inline one once
 * left the send point far past the inline data, and the next packet
 * copied an MTU from beyond the WQE's buffer on the engine's stack (ASan:
 * stack-buffer-overflow) onto the wire.
 *
 * Between two packets of a message the rewrite changes nothing: the
 * message goes out as the requester read it, as on hardware that fetched
 * the WQE (the guest gave it to the device with the doorbell).  A WQE read
 * again that no longer holds the send point is a guest error: the QP goes
 * to Error, the WQE completes with LOC_QP_OP_ERR, and nothing past the WQE
 * is read.  Three ways there: the kept WQE forgotten (another QP took its
 * slot) while the link holds the rest of the message, a go-back on the
 * ACK timeout into the partly acknowledged WQE, and a late ACK that moves
 * the send point into it after a go-back.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS	1000000ULL
#define ACK_TIMEOUT	((4096ULL << 14) > RP[0].h->e->rc_min_timeout_ns ? \
			 (4096ULL << 14) : RP[0].h->e->rc_min_timeout_ns)
#define PAST_TIMEOUT	(ACK_TIMEOUT + 5 * MS)

static const uint8_t inl_data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

/*
 * Node 0's send WQE at ring index @idx rewritten in place into an 8-byte
 * inline @opcode (the doorbell is not rung again)
 */
static void rewrite_inline(uint16_t idx, uint8_t opcode, uint64_t wr_id)
{
	struct qh_rc_send s;
	uint16_t pi = RP[0].qp.sq_pi;

	memset(&s, 0, sizeof(s));
	s.opcode = opcode;
	s.wr_id = wr_id;
	s.flags = SFAB_WQE_SIGNALED | SFAB_WQE_INLINE;
	s.inl = inl_data;
	s.inl_len = sizeof(inl_data);
	s.raddr = RP[1].mem + 131072;
	s.rkey = RP[1].key;
	RP[0].qp.sq_pi = idx;
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	RP[0].qp.sq_pi = pi;
}

static bool hold_acks, rewritten;
static unsigned int to1, lasts_after;
static uint32_t drop_from;	/* requests from this PSN on are lost, until the rewrite */

static bool is_last(uint8_t op)
{
	switch (op & SFAB_BTH_OP_MASK) {
	case SFAB_OP_SEND_LAST:
	case SFAB_OP_SEND_LAST_IMM:
	case SFAB_OP_SEND_ONLY:
	case SFAB_OP_SEND_ONLY_IMM:
	case SFAB_OP_WRITE_LAST:
	case SFAB_OP_WRITE_LAST_IMM:
	case SFAB_OP_WRITE_ONLY:
	case SFAB_OP_WRITE_ONLY_IMM:
	case SFAB_OP_SEND_LAST_INV:
	case SFAB_OP_SEND_ONLY_INV:
		return true;
	}
	return false;
}

static bool net(unsigned int to, const uint8_t *f, size_t len)
{
	if (to == 1) {
		to1++;
		/* built from the rewritten WQE: an MTU from past its end */
		if (rewritten && is_last(rp_opcode(f)))
			lasts_after++;
		return !rewritten && rp_psn(f) >= drop_from;
	}
	if (!hold_acks || !rp_is_ack(f) || rp_held.n == 8)
		return false;
	return rp_hold(f, len);
}

static void net_up(const struct rp_cfg *cfg)
{
	rp_up(cfg);
	hold_acks = rewritten = false;
	rp_held_trim(0);
	to1 = lasts_after = 0;
	drop_from = 0xffffff;
	rp_drop = net;
}

/*
 * Node 0's WQE @wr_id failed locally, the QP is in Error, a guest error
 * said so; no message ended on the wire after the rewrite and the peer
 * received nothing.
 */
static void rewrite_refused(uint64_t wr_id, unsigned long guest_errors)
{
	struct sfab_cqe cqe;

	CHECK_EQ(lasts_after, 0);
	CHECK(!rp_poll(1, &cqe));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), wr_id);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_QP_OP_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK(RP[0].h->guest_errors > guest_errors);
	CHECK(!rp_poll(0, &cqe));
}

/*
 * The doorbell sends what the link takes of a 256-packet SEND (@forget: and
 * the requester's copy of the WQE is forgotten, as when another QP takes
 * its slot); before the rest goes, the guest makes it an 8-byte inline
 * SEND.
 */
static void rewrite_mid_message(bool forget)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct sfab_engine_qp *qp;
	struct sfab_engine *e;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned long ge;
	uint64_t kept;

	net_up(&cfg);
	e = RP[0].h->e;
	qp = &e->qp[RP[0].qp.qpn];
	rp_recv(1, 0x100, 65536, 65536);
	rp_fill(0, 0, 65536, 5);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 65536);
	rp_post(0, &s);
	/* the link ran out of credit in the middle of the message */
	REQUIRE(qp->rc.snd_idx == 0);
	REQUIRE(qp->rc.snd_off > 0 && qp->rc.snd_off < 65536);
	ge = RP[0].h->guest_errors;
	kept = e->stats.rc_wqe_kept;
	if (forget)
		sfab_rc_wc_drop(e, qp);
	rewrite_inline(0, SFAB_WQE_SEND, 0x10);
	rewritten = true;
	rp_pump();
	if (forget) {
		rewrite_refused(0x10, ge);
	} else {
		/* the 64 KiB as posted, from the WQE read at the start */
		REQUIRE(rp_poll(1, &cqe));
		CHECK_EQ(cqe.status, SFAB_CQE_STS_SUCCESS);
		CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 65536);
		CHECK(rp_same(0, 0, 1, 65536, 65536));
		REQUIRE(rp_poll(0, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_SUCCESS);
		CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
		CHECK_EQ(RP[0].h->guest_errors, ge);
		CHECK(e->stats.rc_wqe_kept > kept);
	}
	rp_advance(2 * PAST_TIMEOUT);
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);
	rp_down();
}

TEST(rewrite_between_packets)
{
	rewrite_mid_message(false);
}

TEST(rewrite_read_again)
{
	rewrite_mid_message(true);
}

/*
 * A 40-packet SEND: the peer has the first 16 (ACKed), the rest are lost.
 * The guest makes it an 8-byte inline SEND; the ACK timeout goes back to
 * PSN 16, 16 MTUs into a WQE that now has 8 bytes.
 */
TEST(rewrite_then_timeout_go_back)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	unsigned long ge;

	net_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	drop_from = 16;
	rp_recv(1, 0x100, 65536, 40 * 256);
	rp_fill(0, 0, 40 * 256, 9);
	s = rp_wqe(SFAB_WQE_SEND, 0x20, 0, 0, 40 * 256);
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(to1, 40);
	REQUIRE(qp->rc.una_psn == 16);
	REQUIRE(qp->sq_ci == 0);
	ge = RP[0].h->guest_errors;
	rewrite_inline(0, SFAB_WQE_SEND, 0x20);
	rewritten = true;
	rp_advance(PAST_TIMEOUT);
	rewrite_refused(0x20, ge);
	rp_down();
}

/*
 * A 48-packet WRITE, its ACKs (PSN 15, 31) late: the timeout goes back to
 * PSN 0 with no link credit, then the late ACKs move the send point to
 * PSN 32, 32 MTUs into the WQE.  The guest makes it an 8-byte inline
 * WRITE before credit comes back.
 */
TEST(rewrite_then_late_ack_skip)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	unsigned long ge;

	net_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	hold_acks = true;
	rp_fill(0, 0, 48 * 256, 3);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x30, 0, 0, 48 * 256);
	s.raddr = RP[1].mem + 131072;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(to1, 48);
	REQUIRE(rp_held.n == 3);
	rp_held_trim(2);		/* the ACK for 47 is lost */
	rp_starve0();
	rp_advance0(PAST_TIMEOUT);
	REQUIRE(qp->sq_psn < 32);
	hold_acks = false;
	rp_deliver_held(0);
	REQUIRE(qp->rc.snd_off == 32 * 256);
	ge = RP[0].h->guest_errors;
	rewrite_inline(0, SFAB_WQE_RDMA_WRITE, 0x30);
	rewritten = true;
	rp_advance(100 * MS);		/* credit back: the send point goes on */
	rp_advance(100 * MS);
	rewrite_refused(0x30, ge);
	rp_down();
}

/*
 * The same for a READ partly answered: the go-back asks again from the
 * missing response, in a WQE the guest made a 1-byte READ.  No request
 * may go out with a length past the WQE's.
 */
static uint32_t max_read_len;
static unsigned int rresp_seen;

static bool read_net(unsigned int to, const uint8_t *f, size_t len)
{
	struct sfab_pkt_rc p;

	if (to == 1) {
		if (rp_opcode(f) == (SFAB_BTH_OP_RC | SFAB_OP_READ_REQ) &&
		    sfab_link_pkt_parse_rc(f, len, &p) && p.dma_len > max_read_len)
			max_read_len = p.dma_len;
		return false;
	}
	/* the READ's responses after the first 16 are lost */
	if ((rp_opcode(f) & SFAB_BTH_OP_MASK) >= SFAB_OP_READ_RESP_FIRST &&
	    (rp_opcode(f) & SFAB_BTH_OP_MASK) <= SFAB_OP_READ_RESP_ONLY)
		return ++rresp_seen > 16;
	return false;
}

TEST(rewrite_read_then_go_back)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	unsigned long ge;

	rp_up(&cfg);
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	rp_drop = read_net;
	max_read_len = 0;
	rresp_seen = 0;
	rp_fill(1, 4096, 40 * 256, 4);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x40, 0, 65536, 40 * 256);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(qp->rc.una_psn == 16);
	REQUIRE(qp->sq_ci == 0);
	ge = RP[0].h->guest_errors;
	s.sge[0].len = 1;
	s.flags = SFAB_WQE_SIGNALED;
	RP[0].qp.sq_pi = 0;
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	rp_advance(PAST_TIMEOUT);
	rewrite_refused(0x40, ge);
	CHECK(max_read_len <= 40 * 256);
	rp_down();
}
