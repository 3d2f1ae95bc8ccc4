/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-ack: acknowledgements.  Ten sends posted at once are answered
 * by one coalesced ACK (only the last asks for one) and complete in
 * order; a long message asks every 16 packets; nothing completes before
 * its ACK arrives (ACKs held back, then delivered); an ACK for a PSN never
 * sent and stale ACKs change nothing; the MSN counts messages.
 */
#include "harness.h"
#include "rc_pair.h"

static unsigned int acks, reqs;
static bool hold_acks;

static bool watch(unsigned int to, const uint8_t *f, size_t len)
{
	if (to == 0 && rp_is_ack(f)) {
		acks++;
		if (hold_acks && rp_hold(f, len))
			return true;
	}
	if (to == 1)
		reqs++;
	return false;
}

TEST(coalesced)
{
	struct rp_cfg cfg = { 0 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int i;

	rp_up(&cfg);
	acks = reqs = 0;
	hold_acks = false;
	rp_drop = watch;
	for (i = 0; i < 10; i++) {
		rp_recv(1, 0x100 + i, 65536 + i * 256, 256);
		s = rp_wqe(SFAB_WQE_SEND, 0x10 + i, 0, i * 64, 64);
		qh_post_rc(RP[0].h, &RP[0].qp, &s);
	}
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	rp_pump();
	CHECK_EQ(reqs, 10);
	CHECK_EQ(acks, 1);
	for (i = 0; i < 10; i++) {
		REQUIRE(rp_poll(0, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10 + i);
		CHECK_EQ(cqe.status, 0);
		REQUIRE(rp_poll(1, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x100 + i);
	}
	CHECK_EQ(RP[1].h->e->qp[RP[1].qp.qpn].rc.msn, 10);

	/* 40 packets of one message (PSN 10..49): ACKs at 15, 31, 47, 49 */
	acks = 0;
	rp_recv(1, 0x200, 131072, 65536);
	s = rp_wqe(SFAB_WQE_SEND, 0x20, 0, 0, 40 * 256);
	rp_post(0, &s);
	rp_pump();
	CHECK_EQ(acks, 4);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 40 * 256);
	rp_down();
}

TEST(completes_on_ack_only)
{
	struct rp_cfg cfg = { 0 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	acks = reqs = 0;
	rp_held_trim(0);
	hold_acks = true;
	rp_drop = watch;
	rp_recv(1, 0x100, 65536, 256);
	rp_recv(1, 0x101, 65536, 256);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 64);
	rp_post(0, &s);
	rp_pump();
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 0, 64);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_held.n == 2);
	/* delivered, not acknowledged: no send completion yet */
	REQUIRE(rp_poll(1, &cqe));
	REQUIRE(rp_poll(1, &cqe));
	CHECK(!rp_poll(0, &cqe));
	/* a stale ACK (for the PSN before the first) and one from the future */
	{
		uint8_t f[SFAB_WIRE_MAX_PKT_LEN];
		struct sfab_pkt_rc p;
		size_t n;

		rp_ack_pkt(&p, 0xffffff);
		n = sfab_link_pkt_build_rc(f, &p, NULL, 0);
		sfab_engine_cable_rx(RP[0].h->e, f, 0);	/* a bad frame: ignored */
		host_run(RP[0].h);
		/* loop back through node 0's own port (its link checks nothing more) */
		p.psn = 0x500;
		n = sfab_link_pkt_build_rc(f, &p, NULL, 0);
		CHECK(sfab_engine_qp_rx_pkt(RP[0].h->e, f, n));
		p.psn = 0xffffff;
		n = sfab_link_pkt_build_rc(f, &p, NULL, 0);
		CHECK(sfab_engine_qp_rx_pkt(RP[0].h->e, f, n));
		host_run(RP[0].h);
		CHECK(!rp_poll(0, &cqe));
	}
	/* the second ACK covers both: they complete in order */
	sfab_engine_cable_rx(RP[0].h->e, rp_held.f[1], rp_held.len[1]);
	host_run(RP[0].h);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);
	/* the older ACK now is stale */
	sfab_engine_cable_rx(RP[0].h->e, rp_held.f[0], rp_held.len[0]);
	host_run(RP[0].h);
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	rp_held_trim(0);
	hold_acks = false;
	rp_down();
}
