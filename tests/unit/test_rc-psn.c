/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-psn: 24-bit PSNs.  Messages, READs and atomics across the wrap
 * from 0xffffff to 0; a packet lost in the middle of a message: the
 * responder NAKs the gap once (PSN sequence error) however many packets
 * follow, drops them, and the requester goes back to the NAKed PSN; the
 * message arrives whole and once.
 */
#include "harness.h"
#include "rc_pair.h"

static uint32_t psns[256];
static unsigned int npsns, naks, drop_psn_n;
static uint32_t drop_psn;

static bool watch(unsigned int to, const uint8_t *f, size_t len)
{
	(void)len;
	if (to == 1 && npsns < 256)
		psns[npsns++] = rp_psn(f);
	if (to == 0 && rp_is_nak(f, SFAB_AETH_NAK | SFAB_NAK_PSN_SEQ))
		naks++;
	/* the first time a chosen PSN goes to node 1 */
	if (to == 1 && drop_psn_n && rp_psn(f) == drop_psn &&
	    rp_opcode(f) != SFAB_OP_ACK) {
		drop_psn_n--;
		return true;
	}
	return false;
}

TEST(wrap)
{
	struct rp_cfg cfg = { .psn0 = 0xfffffd, .psn1 = 0xffffff };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t v = 41;
	unsigned int i;

	rp_up(&cfg);
	npsns = 0;
	drop_psn_n = 0;
	rp_drop = watch;
	rp_fill(0, 0, 2000, 11);
	rp_recv(1, 1, 65536, 4096);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 2000);	/* 8 packets */
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 2000);
	CHECK(rp_same(0, 0, 1, 65536, 2000));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(npsns == 8);
	for (i = 0; i < 8; i++)
		CHECK_EQ(psns[i], (0xfffffdU + i) & 0xffffff);
	CHECK_EQ(RP[0].h->e->qp[RP[0].qp.qpn].sq_psn, 5);
	CHECK_EQ(RP[1].h->e->qp[RP[1].qp.qpn].rq_psn, 5);

	/* node 1 starts at 0xffffff: a READ of 3 responses wraps, an atomic */
	rp_fill(0, 8192, 700, 12);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x20, 1, 100000, 700);
	s.raddr = RP[0].mem + 8192;
	s.rkey = RP[0].key;
	rp_post(1, &s);
	memcpy(rp_mem(0, 16384), &v, 8);
	s = rp_wqe(SFAB_WQE_ATOMIC_FA, 0x21, 1, 200000, 8);
	s.raddr = RP[0].mem + 16384;
	s.rkey = RP[0].key;
	s.swap_add = 1;
	rp_post(1, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x20);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 8192, 1, 100000, 700));
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x21);
	CHECK_EQ(cqe.status, 0);
	memcpy(&v, rp_mem(1, 200000), 8);
	CHECK_EQ(v, 41);
	CHECK_EQ(RP[1].h->e->qp[RP[1].qp.qpn].sq_psn, 3);	/* 0xffffff + 3 + 1 */
	rp_down();
}

TEST(sequence_nak)
{
	struct rp_cfg cfg = { .psn0 = 0xfffffe, .retry_cnt = 3 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	npsns = 0;
	naks = 0;
	drop_psn = 0;		/* the 3rd packet of 8, after the wrap */
	drop_psn_n = 1;
	rp_drop = watch;
	rp_fill(0, 0, 2048, 13);
	rp_recv(1, 1, 65536, 4096);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 2048);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 2048);
	CHECK(rp_same(0, 0, 1, 65536, 2048));
	CHECK(!rp_poll(1, &cqe));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	/* one NAK although five packets came after the gap */
	CHECK_EQ(naks, 1);
	CHECK_EQ(RP[1].h->e->stats.rc_naks_tx, 1);
	CHECK(RP[0].h->e->stats.rc_retransmits >= 1);
	/* 8 packets, then the 6 from the gap on again */
	CHECK_EQ(npsns, 14);
	CHECK_EQ(psns[8], 0);
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);
	rp_down();
}
