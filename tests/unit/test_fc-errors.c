/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/fc-errors: frames with a bad VCRC or ICRC are dropped and counted and
 * the credits come back with the next FC packet; a peer that sends beyond
 * its credit is detected (ExcessiveBufferOverrun) and the link goes down;
 * malformed frames are counted.
 */
#include "harness.h"
#include "fc_pair.h"

TEST(bad_crc_credits_consistent)
{
	struct sfab_link a, b;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int vl;
	size_t n = fc_make_pkt(p, 0, 1000, 9);	/* 17 blocks */

	fc_pair_up(&a, &b, &fc_cfg);
	/* bad ICRC (payload bit flipped, VCRC recomputed by a "switch") */
	p[SFAB_PKT_UD_HDR_LEN + 10] ^= 0x10;
	sfab_wire_reseal_vcrc(p, n);
	sfab_link_tx_sent(&a, 0, p, n);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DROP);
	CHECK_EQ(b.cnt.icrc_errors, 1);
	/* bad VCRC */
	n = fc_make_pkt(p, 0, 1000, 9);
	p[n - 1] ^= 1;
	sfab_link_tx_sent(&a, 0, p, n);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DROP);
	CHECK_EQ(b.cnt.vcrc_errors, 1);
	CHECK_EQ(b.cnt.rcv_errors, 2);
	CHECK_EQ(b.cnt.rcv_pkts, 0);
	CHECK_EQ(b.vl[0].used, 0);
	/* the sender counted 34 blocks the receiver never buffered */
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80 - 34);
	CHECK_EQ(b.vl[0].abr, 0);
	/* the sender's next (periodic) FC packet resynchronises ABR */
	CHECK_EQ(fc_pump(&a, &b, 1000), 2);
	CHECK_EQ(b.vl[0].abr, 34);
	CHECK_EQ(fc_pump(&b, &a, 1000), 2);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80);
	/* and a good packet still goes through */
	n = fc_make_pkt(p, 0, 1000, 9);
	CHECK(sfab_link_tx_ok(&a, 0, n));
	sfab_link_tx_sent(&a, 0, p, n);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
	CHECK_EQ(a.vl[0].fctbs, b.vl[0].abr);
	CHECK_EQ(b.phys, SFAB_PHYS_LINKUP);
}

TEST(overrun_takes_link_down)
{
	struct sfab_link a, b;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int vl, i;
	size_t n = fc_make_pkt(p, 0, 1000, 4);	/* 17 blocks */
	enum sfab_link_rx_result r = SFAB_LINK_RX_DATA;

	fc_pair_up(&a, &b, &fc_cfg);
	/* a broken sender ignores its credit */
	for (i = 0; i < 5 && r == SFAB_LINK_RX_DATA; i++)
		r = sfab_link_rx(&b, p, n, &vl);
	CHECK_EQ(i, 5);
	CHECK_EQ(r, SFAB_LINK_RX_DOWN);
	CHECK_EQ(b.cnt.excessive_buffer_overrun, 1);
	CHECK_EQ(b.cnt.link_downed, 1);
	CHECK_EQ(b.phys, SFAB_PHYS_POLLING);
	CHECK_EQ(b.state, SFAB_PORT_DOWN);
	/* the 4 accepted packets still occupy the buffer until freed */
	CHECK_EQ(b.vl[0].used, 68);
	/* anything more is refused while down */
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DROP);
	/* the owner frees its buffers; retraining gives full credit */
	for (i = 0; i < 4; i++)
		sfab_link_rx_free(&b, 0, n);
	sfab_link_phys_up(&b, 0);
	sfab_link_phys_down(&a, false);
	sfab_link_phys_up(&a, 0);
	fc_settle(&a, &b, 0);
	CHECK_EQ(b.phys, SFAB_PHYS_LINKUP);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80);
}

TEST(overrun_beyond_advertised_credit)
{
	struct sfab_link a, b;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int vl, i;
	size_t n = fc_make_pkt(p, 0, 1000, 4);

	fc_pair_up(&a, &b, &fc_cfg);
	for (i = 0; i < 4; i++)
		CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
	/* buffer freed but not yet advertised: the peer may not use it */
	sfab_link_rx_free(&b, 0, n);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DOWN);
	CHECK_EQ(b.cnt.excessive_buffer_overrun, 1);
}

TEST(malformed_frames)
{
	struct sfab_link a, b;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int vl;
	size_t n = fc_make_pkt(p, 0, 100, 4);

	fc_pair_up(&a, &b, &fc_cfg);
	/* PktLen disagrees with the frame length */
	CHECK_EQ(sfab_link_rx(&b, p, n - 4, &vl), SFAB_LINK_RX_DROP);
	/* too short to be anything */
	CHECK_EQ(sfab_link_rx(&b, p, 7, &vl), SFAB_LINK_RX_DROP);
	CHECK_EQ(b.cnt.malformed, 2);
	/* data on a VL that is not operational */
	n = fc_make_pkt(p, 5, 100, 4);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DROP);
	CHECK_EQ(b.cnt.rcv_errors, 3);
	CHECK_EQ(b.phys, SFAB_PHYS_LINKUP);
}
