/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-port-wait: a QP held back by its own port is not late.  Two RC
 * QPs of node 0 share its port; the link has no credit and the port's
 * queue is full of the other QP's packets.  The first QP has packets out
 * whose ACKs are still on their way (a congested fabric) and its next
 * message cannot even be queued.  However long that lasts, its local ACK
 * timer must not expire: nothing of it is late, it has not been allowed
 * to send (verbs/incast: the sink's reply to one client timed out after
 * 2.5 s in which the port sent only other QPs' packets, and the client
 * saw every retransmitted packet as a duplicate).  Once credit returns
 * everything completes with no retransmission; and a QP that is not held
 * back (its send queue ran dry) still times out as before.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS		1000000ULL
/* timeout 14 (67 ms) or node 0's floor */
#define ACK_TIMEOUT	((4096ULL << 14) > RP[0].h->e->rc_min_timeout_ns ? \
			 (4096ULL << 14) : RP[0].h->e->rc_min_timeout_ns)
#define MSG		8192	/* 32 packets of 256 bytes */

static bool hold_acks;
static struct qh_qp b[2];	/* the second QP of each node (rp_pair2) */

/* ACKs to node 0 are held back (delivered later by the test) */
static bool late(unsigned int to, const uint8_t *f, size_t len)
{
	if (to != 0 || !hold_acks || !rp_is_ack(f))
		return false;
	return rp_hold(f, len);
}

static void b_send(uint64_t wr_id, uint64_t off)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_SEND, wr_id, 0, off, MSG);

	qh_post_rc(RP[0].h, &b[0], &s);
	qh_qp_db(RP[0].h, &b[0], true);
}

static void b_recv(uint64_t wr_id, uint64_t off)
{
	qh_post_recv(RP[1].h, &b[1], wr_id, RP[1].mem + off, MSG, RP[1].key);
	qh_qp_db(RP[1].h, &b[1], false);
}

/* every CQE of node @i: its wr_ids in *got (bit k for wr_id k), all OK */
static unsigned int drain(unsigned int i, uint32_t *got)
{
	struct sfab_cqe cqe;
	unsigned int n = 0;

	while (rp_poll(i, &cqe)) {
		CHECK_EQ(cqe.status, 0);
		*got |= 1U << (sfab_le64_to_cpu(cqe.wr_id) & 31);
		n++;
	}
	return n;
}

TEST(held_by_the_port_is_not_late)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 1 };
	struct sfab_engine *e;
	struct sfab_engine_qp *qa;
	struct qh_rc_send s;
	uint64_t retrans, pkts;
	uint32_t got0 = 0, got1 = 0;
	unsigned int k;

	rp_up(&cfg);
	rp_pair2(b);
	e = RP[0].h->e;
	qa = &e->qp[RP[0].qp.qpn];
	rp_drop = late;
	rp_held_trim(0);
	for (k = 0; k < 2; k++)
		rp_recv(1, k, 65536 + k * MSG, MSG);
	b_recv(2, 131072);
	rp_fill(0, 0, MSG, 1);
	rp_fill(0, MSG, MSG, 2);
	rp_fill(0, 2 * MSG, MSG, 3);

	/* QP A's first message goes out; its ACKs are on their way */
	hold_acks = true;
	s = rp_wqe(SFAB_WQE_SEND, 0, 0, 0, MSG);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_held.n == 2);		/* for PSN 15 and 31 */
	REQUIRE(qa->rc.ack_at != 0);

	/* no credit; QP B's message fills the port's queue */
	rp_starve0();
	b_send(2, 2 * MSG);
	rp_pump();
	CHECK_EQ(e->port.txq_len, SFAB_ENGINE_TXQ_LEN);
	CHECK(!sfab_engine_port_req_queued(e, RP[0].qp.qpn));
	/* A's second message: not even queued */
	s = rp_wqe(SFAB_WQE_SEND, 1, 0, MSG, MSG);
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(qa->sq_psn, 32);
	CHECK(qa->sched);		/* waiting for its turn */

	/* ten timeouts long: A is held back, not late */
	retrans = e->stats.rc_retransmits;
	pkts = e->stats.rc_retrans_pkts;
	for (k = 0; k < 10; k++)
		rp_advance0(ACK_TIMEOUT + 1 * MS);
	CHECK_EQ(e->stats.rc_retransmits, retrans);
	CHECK_EQ(e->stats.rc_ack_timeouts, 0);
	CHECK_EQ(qa->sq_psn, 32);
	CHECK_EQ(qa->rc.retry_left, 1);
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);

	/* the ACKs arrive, credit returns: everything once, nothing again */
	hold_acks = false;
	rp_deliver_held(0);
	rp_advance(100 * MS);
	rp_advance(100 * MS);
	CHECK_EQ(drain(0, &got0), 3);
	CHECK_EQ(got0, 0x7);
	CHECK_EQ(drain(1, &got1), 3);
	CHECK_EQ(got1, 0x7);
	CHECK(rp_same(0, 0, 1, 65536, MSG));
	CHECK(rp_same(0, MSG, 1, 65536 + MSG, MSG));
	CHECK(rp_same(0, 2 * MSG, 1, 131072, MSG));
	CHECK_EQ(e->stats.rc_retransmits, retrans);
	CHECK_EQ(e->stats.rc_retrans_pkts, pkts);
	CHECK_EQ(RP[1].h->e->stats.rc_dups, 0);
	CHECK(!qa->sched);
	rp_down();
}

/* the same ACKs held back, but A has nothing more to send: it times out */
TEST(nothing_held_back_still_times_out)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 1 };
	struct sfab_engine *e;
	struct sfab_engine_qp *qa;
	struct qh_rc_send s;
	uint32_t got0 = 0, got1 = 0;

	rp_up(&cfg);
	rp_pair2(b);
	e = RP[0].h->e;
	qa = &e->qp[RP[0].qp.qpn];
	rp_drop = late;
	rp_held_trim(0);
	rp_recv(1, 0, 65536, MSG);
	b_recv(2, 131072);
	rp_fill(0, 0, MSG, 1);
	rp_fill(0, 2 * MSG, MSG, 3);
	hold_acks = true;
	s = rp_wqe(SFAB_WQE_SEND, 0, 0, 0, MSG);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_held.n == 2);
	rp_starve0();
	b_send(2, 2 * MSG);
	rp_pump();
	CHECK_EQ(e->port.txq_len, SFAB_ENGINE_TXQ_LEN);
	CHECK(!qa->sched);		/* its send queue ran dry */
	rp_advance0(ACK_TIMEOUT + 1 * MS);
	CHECK_EQ(e->stats.rc_ack_timeouts, 1);
	CHECK_EQ(qa->rc.retry_left, 0);
	/* the late ACKs still complete it */
	hold_acks = false;
	rp_deliver_held(0);
	rp_advance(100 * MS);
	rp_advance(100 * MS);
	CHECK_EQ(drain(0, &got0), 2);
	CHECK_EQ(got0, 0x5);
	CHECK_EQ(drain(1, &got1), 2);
	CHECK_EQ(got1, 0x5);
	CHECK(rp_same(0, 0, 1, 65536, MSG));
	CHECK(rp_same(0, 2 * MSG, 1, 131072, MSG));
	rp_down();
}
