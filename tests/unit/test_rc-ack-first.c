/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-ack-first: an ACK does not wait behind data.  Node 0's port has
 * no credit and its queue is full of QP A's packets; node 1 sends on QP B
 * and asks for an ACK.  The ACK is owed at once, not on B's turn on the
 * run queue, and leaves before A's queued packets as soon as the link has
 * credit for it: one block of credit carries it, where A's packets need
 * five (verbs/incast: the sink held a client's ACK 1.2 s behind its data
 * to another client, and the client's ACK timer ran).  Ordering within a
 * QP still holds: an ACK behind READ responses of its QP still in the
 * port waits for them (it acknowledges them).
 */
#include "harness.h"
#include "rc_pair.h"

#define MS		1000000ULL
#define MSG		8192	/* 32 packets of 256 bytes */

static struct qh_qp b[2];	/* the second QP of each node (rp_pair2) */

/* @n blocks of credit on node 0's VL0, and the port tries again */
static void credit0(unsigned int n)
{
	struct sfab_link_vl *q = &RP[0].h->e->port.link.vl[0];

	q->fccl = (q->fctbs + n) & 0xfff;
	sfab_engine_timer(RP[0].h->e);
}

/* the BTH destination QP of a frame (no GRH) */
static uint32_t frame_dqpn(const uint8_t *f)
{
	return ((uint32_t)f[SFAB_WIRE_LRH_LEN + 5] << 16) |
	       ((uint32_t)f[SFAB_WIRE_LRH_LEN + 6] << 8) |
	       f[SFAB_WIRE_LRH_LEN + 7];
}

/* the data frames on their way to node 1 (flow-control packets left out) */
static unsigned int to1(const uint8_t **f, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = RPW[1].head; i < RPW[1].n && n < max; i++)
		if (RPW[1].len[i] != SFAB_WIRE_FC_PKT_LEN)
			f[n++] = RPW[1].f[i];
	return n;
}

static void all_ok(unsigned int i, unsigned int want)
{
	struct sfab_cqe cqe;
	unsigned int n = 0;

	while (rp_poll(i, &cqe)) {
		CHECK_EQ(cqe.status, 0);
		n++;
	}
	CHECK_EQ(n, want);
}

TEST(ack_leaves_before_queued_data)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 1 };
	struct sfab_engine *e;
	struct qh_rc_send s;
	const uint8_t *f[16];

	rp_up(&cfg);
	rp_pair2(b);
	e = RP[0].h->e;
	rp_recv(1, 1, 65536, MSG);
	qh_post_recv(RP[0].h, &b[0], 2, RP[0].mem + 131072, 64, RP[0].key);
	qh_qp_db(RP[0].h, &b[0], false);
	rp_fill(0, 0, MSG, 1);
	rp_fill(1, 0, 64, 2);

	/* no credit: A's message fills node 0's queue */
	rp_starve0();
	s = rp_wqe(SFAB_WQE_SEND, 1, 0, 0, MSG);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(e->port.txq_len == SFAB_ENGINE_TXQ_LEN);

	/* node 1's one-packet SEND on B asks for an ACK */
	s = rp_wqe(SFAB_WQE_SEND, 3, 1, 0, 64);
	qh_post_rc(RP[1].h, &b[1], &s);
	qh_qp_db(RP[1].h, &b[1], true);
	rp_pump();
	CHECK_EQ(e->port.ackq_len, 1);		/* owed at once, queued */

	/* one block of credit: the ACK goes, A's packets (5 blocks) wait */
	credit0(1);
	REQUIRE(to1(f, 16) == 1);
	CHECK(rp_is_ack(f[0]));
	CHECK_EQ(frame_dqpn(f[0]), b[1].qpn);
	CHECK_EQ(rp_psn(f[0]), 0);
	CHECK_EQ(e->port.txq_len, SFAB_ENGINE_TXQ_LEN);
	CHECK_EQ(e->port.ackq_len, 0);

	/* credit again: all done once, nothing sent twice */
	rp_pump();
	rp_advance(100 * MS);
	rp_advance(100 * MS);
	all_ok(0, 2);			/* A's send, B's receive */
	all_ok(1, 2);			/* A's receive, B's send */
	CHECK(rp_same(0, 0, 1, 65536, MSG));
	CHECK(rp_same(1, 0, 0, 131072, 64));
	CHECK_EQ(e->stats.rc_retransmits, 0);
	CHECK_EQ(RP[1].h->e->stats.rc_retransmits, 0);
	CHECK_EQ(RP[1].h->e->stats.rc_dups, 0);
	rp_down();
}

TEST(ack_waits_behind_its_own_read_responses)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 1 };
	struct sfab_engine *e;
	struct qh_rc_send s;
	const uint8_t *f[32];
	unsigned int n, k, acks = 0;

	rp_up(&cfg);
	rp_pair2(b);
	e = RP[0].h->e;
	qh_post_recv(RP[0].h, &b[0], 2, RP[0].mem + 131072, 64, RP[0].key);
	qh_qp_db(RP[0].h, &b[0], false);
	rp_fill(0, 4096, 512, 5);
	rp_fill(1, 0, 64, 2);

	rp_starve0();
	/* node 1 on B: a READ of two responses, then a SEND asking an ACK */
	s = rp_wqe(SFAB_WQE_RDMA_READ, 4, 1, 8192, 512);
	s.raddr = RP[0].mem + 4096;
	s.rkey = RP[0].key;
	qh_post_rc(RP[1].h, &b[1], &s);
	s = rp_wqe(SFAB_WQE_SEND, 5, 1, 0, 64);
	qh_post_rc(RP[1].h, &b[1], &s);
	qh_qp_db(RP[1].h, &b[1], true);
	rp_pump();
	/* node 0: both responses wait for credit, and the ACK behind them */
	REQUIRE(e->port.txq_len == 3);
	CHECK_EQ(e->port.ackq_len, 0);
	CHECK(sfab_engine_port_resp_queued(e, b[0].qpn));

	credit0(64);
	n = to1(f, 32);
	CHECK_EQ(n, 3);
	for (k = 0; k < n; k++) {
		if (rp_is_ack(f[k])) {
			acks++;
			CHECK_EQ(k, 2);		/* after both responses */
		} else {
			CHECK_EQ(rp_opcode(f[k]) & SFAB_BTH_OP_MASK,
				 k ? SFAB_OP_READ_RESP_LAST : SFAB_OP_READ_RESP_FIRST);
		}
	}
	CHECK_EQ(acks, 1);
	rp_pump();
	rp_advance(100 * MS);
	rp_advance(100 * MS);
	all_ok(1, 2);			/* the READ and the SEND */
	all_ok(0, 1);			/* B's receive */
	CHECK(rp_same(0, 4096, 1, 8192, 512));
	CHECK_EQ(RP[1].h->e->stats.rc_implied_naks, 0);
	CHECK_EQ(RP[1].h->e->stats.rc_retransmits, 0);
	rp_down();
}
