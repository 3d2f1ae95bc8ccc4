/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/fc-wrap: the 12-bit FCTBS/ABR/FCCL counters wrap around many times
 * while sender and receiver stay consistent; the 2048-block cap.
 */
#include "harness.h"
#include "fc_pair.h"

TEST(counters_wrap)
{
	struct sfab_link a, b;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned long blocks = 0, pkts = 0;
	unsigned int vl, i, wraps = 0, last = 0;
	uint64_t now = 0;

	fc_pair_up(&a, &b, &fc_cfg);
	/* varying sizes so the counters cross 4095 at every offset */
	for (i = 0; i < 5000; i++) {
		size_t n = fc_make_pkt(p, 0, 40 + (i * 97) % 2000, (uint8_t)i);

		while (!sfab_link_tx_ok(&a, 0, n)) {
			/* receiver drains everything, FC flows back */
			unsigned int used = b.vl[0].used;

			sfab_link_rx_free(&b, 0, (size_t)used * SFAB_WIRE_BLOCK_LEN);
			fc_settle(&a, &b, now);
			REQUIRE(b.vl[0].used == 0);
		}
		sfab_link_tx_sent(&a, 0, p, n);
		REQUIRE(sfab_link_rx(&b, p, n, &vl) == SFAB_LINK_RX_DATA);
		blocks += sfab_link_blocks(n);
		pkts++;
		if (a.vl[0].fctbs < last)
			wraps++;
		last = a.vl[0].fctbs;
		/* invariant: sender's FCTBS == receiver's ABR (no loss) */
		CHECK_EQ(a.vl[0].fctbs, b.vl[0].abr);
		/* invariant: outstanding credit never exceeds free buffer */
		CHECK(sfab_link_tx_credits(&a, 0) <= fc_cfg.vl_blocks - b.vl[0].used);
		now += 10;
	}
	CHECK(wraps >= 10);
	CHECK_EQ(a.vl[0].fctbs, blocks % 4096);
	CHECK_EQ(b.cnt.rcv_pkts, pkts);
	CHECK_EQ(b.cnt.rcv_errors, 0);
	CHECK_EQ(b.cnt.excessive_buffer_overrun, 0);
}

TEST(fccl_capped_at_2048)
{
	struct sfab_link a, b;
	struct sfab_link_cfg c = fc_cfg;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int vl, i;
	size_t n;

	c.vl_blocks = 3000;
	fc_pair_up(&a, &b, &c);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 2048);
	n = fc_make_pkt(p, 0, 4000, 3);		/* 64 blocks */
	for (i = 0; i < 20; i++) {
		REQUIRE(sfab_link_tx_ok(&a, 0, n));
		sfab_link_tx_sent(&a, 0, p, n);
		REQUIRE(sfab_link_rx(&b, p, n, &vl) == SFAB_LINK_RX_DATA);
	}
	/* 1280 blocks used, 1720 free: the cap still applies -> 2048 ahead */
	fc_settle(&a, &b, 0);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 1720);
	CHECK_EQ(b.vl[0].adv_fccl, (1280 + 1720) % 4096);
	for (i = 0; i < 26; i++) {
		REQUIRE(sfab_link_tx_ok(&a, 0, n));
		sfab_link_tx_sent(&a, 0, p, n);
		REQUIRE(sfab_link_rx(&b, p, n, &vl) == SFAB_LINK_RX_DATA);
	}
	/* 2944 blocks used; 56 left, less than 64 */
	CHECK(!sfab_link_tx_ok(&a, 0, n));
	CHECK_EQ(b.cnt.excessive_buffer_overrun, 0);
}
