/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/fc-link: the link-level flow-control state machine: CRC helpers,
 * the initialisation handshake, credits, VL15, logical state rules and a
 * bad flow-control packet.
 */
#include "harness.h"
#include "fc_pair.h"

TEST(crc_known_values)
{
	static const char s[] = "123456789";

	CHECK_EQ(sfab_wire_crc32(0, s, 9), 0xcbf43926);
	/* CRC-16/0x100b reflected, init ~0, final ~ over "123456789" */
	CHECK(sfab_wire_crc16(s, 9) != 0);
	CHECK(sfab_wire_crc16(s, 9) != sfab_wire_crc16(s, 8));
}

TEST(icrc_ignores_variant_fields)
{
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	size_t n = fc_make_pkt(p, 0, 100, 0x5a);

	CHECK(sfab_wire_icrc_ok(p, n));
	CHECK(sfab_wire_vcrc_ok(p, n));
	p[0] = (p[0] & 0x0f) | 0x30;		/* VL is variant */
	p[SFAB_WIRE_LRH_LEN + 4] = 0x77;	/* so is Resv8a */
	CHECK(sfab_wire_icrc_ok(p, n));
	CHECK(!sfab_wire_vcrc_ok(p, n));
	sfab_wire_reseal_vcrc(p, n);
	CHECK(sfab_wire_vcrc_ok(p, n));
	p[SFAB_PKT_UD_HDR_LEN] ^= 1;		/* payload is not */
	CHECK(!sfab_wire_icrc_ok(p, n));
}

TEST(bad_config_rejected)
{
	struct sfab_link l;
	struct sfab_link_cfg c = fc_cfg;

	c.num_data_vls = 0;
	CHECK_EQ(sfab_link_init(&l, &c), -1);
	c = fc_cfg;
	c.num_data_vls = 16;
	CHECK_EQ(sfab_link_init(&l, &c), -1);
	c = fc_cfg;
	c.vl_blocks = 10;		/* smaller than one MTU packet */
	CHECK_EQ(sfab_link_init(&l, &c), -1);
	c = fc_cfg;
	c.vl15_blocks = 1;
	CHECK_EQ(sfab_link_init(&l, &c), -1);
}

TEST(handshake)
{
	struct sfab_link a, b;
	uint8_t fc[SFAB_WIRE_FC_PKT_LEN];
	unsigned int vl;

	CHECK_EQ(sfab_link_init(&a, &fc_cfg), 0);
	CHECK_EQ(sfab_link_init(&b, &fc_cfg), 0);
	CHECK_EQ(a.phys, SFAB_PHYS_POLLING);
	CHECK_EQ(a.state, SFAB_PORT_DOWN);
	CHECK(!sfab_link_fc_pending(&a, 0));	/* no cable: nothing to say */
	sfab_link_phys_up(&a, 0);
	sfab_link_phys_up(&b, 0);
	CHECK(sfab_link_fc_pending(&a, 0));
	/* a TS1: a trains and has heard nothing */
	CHECK_EQ(fc_pump(&a, &b, 0), 1);
	CHECK_EQ(b.phys, SFAB_PHYS_POLLING);
	CHECK(b.heard);
	/* b's TS2 says it heard a: a is up and sends one Init per data VL */
	CHECK_EQ(fc_pump(&b, &a, 0), 1);
	CHECK_EQ(a.phys, SFAB_PHYS_LINKUP);
	CHECK_EQ(a.state, SFAB_PORT_INIT);
	CHECK_EQ(fc_pump(&a, &b, 0), 2);
	CHECK_EQ(b.phys, SFAB_PHYS_LINKUP);
	CHECK_EQ(b.state, SFAB_PORT_INIT);
	CHECK_EQ(fc_pump(&b, &a, 0), 2);
	/* a TS2 or an Init to a port that is up changes nothing */
	sfab_link_make_fc(fc, SFAB_FC_OP_TS2, 0, 0, 0);
	CHECK_EQ(sfab_link_rx(&a, fc, sizeof(fc), &vl), SFAB_LINK_RX_FC);
	sfab_link_make_fc(fc, SFAB_FC_OP_INIT, 1, 0, 80);
	CHECK_EQ(sfab_link_rx(&a, fc, sizeof(fc), &vl), SFAB_LINK_RX_FC);
	CHECK_EQ(a.phys, SFAB_PHYS_LINKUP);
	CHECK_EQ(a.state, SFAB_PORT_INIT);
	CHECK_EQ(a.cnt.link_downed, 0);
	fc_settle(&a, &b, 0);
	CHECK(!sfab_link_fc_pending(&a, 0));
	CHECK(!sfab_link_fc_pending(&b, 0));
	/* credits: the whole buffer each way, per VL */
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80);
	CHECK_EQ(sfab_link_tx_credits(&a, 1), 80);
	CHECK_EQ(sfab_link_tx_credits(&b, 1), 80);
	/* data only in Active, VL15 from Init */
	CHECK(!sfab_link_tx_ok(&a, 0, 64));
	CHECK(sfab_link_tx_ok(&a, SFAB_VL15, 290));
	/* Init -> Active is not allowed, Init -> Armed -> Active is */
	CHECK_EQ(sfab_link_set_state(&a, SFAB_PORT_ACTIVE), -1);
	CHECK_EQ(sfab_link_set_state(&a, SFAB_PORT_INIT), -1);
	CHECK_EQ(sfab_link_set_state(&a, SFAB_PORT_ARMED), 0);
	CHECK_EQ(sfab_link_set_state(&a, SFAB_PORT_ACTIVE), 0);
	CHECK(sfab_link_tx_ok(&a, 0, 64));
	CHECK(!sfab_link_tx_ok(&a, 2, 64));	/* not an operational VL */
	/* periodic FC packets */
	CHECK(!sfab_link_fc_pending(&a, 999));
	CHECK(sfab_link_fc_pending(&a, 1000));
	CHECK_EQ(fc_pump(&a, &b, 1000), 2);
	CHECK(!sfab_link_fc_next(&a, 1001, fc));
}

TEST(credits_consumed_and_returned)
{
	struct sfab_link a, b;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int vl, sent = 0;
	size_t n = fc_make_pkt(p, 1, 1000, 1);	/* 1038 bytes: 17 blocks */

	fc_pair_up(&a, &b, &fc_cfg);
	CHECK_EQ(sfab_link_blocks(n), 17);
	while (sfab_link_tx_ok(&a, 1, n)) {
		sfab_link_tx_sent(&a, 1, p, n);
		CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
		CHECK_EQ(vl, 1);
		sent++;
	}
	CHECK_EQ(sent, 4);			/* 4 * 17 = 68 <= 80 < 85 */
	CHECK_EQ(sfab_link_tx_credits(&a, 1), 12);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80);	/* VLs are independent */
	CHECK_EQ(b.vl[1].used, 68);
	/* nothing freed: FC packets change nothing */
	fc_settle(&a, &b, 0);
	CHECK(!sfab_link_tx_ok(&a, 1, n));
	/* the receiver drains one packet: an FC packet goes out on change */
	sfab_link_rx_free(&b, 1, n);
	CHECK(sfab_link_fc_pending(&b, 0));
	CHECK_EQ(fc_pump(&b, &a, 0), 1);
	CHECK_EQ(sfab_link_tx_credits(&a, 1), 29);
	CHECK(sfab_link_tx_ok(&a, 1, n));
	CHECK_EQ(a.cnt.xmit_pkts, 4);
	CHECK_EQ(b.cnt.rcv_pkts, 4);
	/* the VCRC is not counted */
	CHECK_EQ(b.cnt.rcv_data, 4 * (n - SFAB_WIRE_VCRC_LEN));
	CHECK_EQ(a.cnt.xmit_data, 4 * (n - SFAB_WIRE_VCRC_LEN));
}

TEST(vl15_not_flow_controlled)
{
	struct sfab_link a, b;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int vl;
	size_t n = fc_make_pkt(p, SFAB_VL15, 256, 2);	/* 5 blocks */

	fc_pair_up(&a, &b, &fc_cfg);
	CHECK(sfab_link_tx_ok(&a, SFAB_VL15, n));
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
	CHECK_EQ(vl, SFAB_VL15);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
	/* 10 blocks of VL15 buffer are full: dropped and counted */
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DROP);
	CHECK_EQ(b.cnt.vl15_dropped, 1);
	CHECK_EQ(b.cnt.rcv_errors, 0);
	CHECK_EQ(b.phys, SFAB_PHYS_LINKUP);
	sfab_link_rx_free(&b, SFAB_VL15, n);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
	/* and VL15 sends consume no credit */
	sfab_link_tx_sent(&a, SFAB_VL15, p, n);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80);
}

TEST(bad_fc_packet)
{
	struct sfab_link a, b;
	uint8_t fc[SFAB_WIRE_FC_PKT_LEN];
	unsigned int vl;

	fc_pair_up(&a, &b, &fc_cfg);
	/* a corrupted FC packet promising lots of credit is ignored */
	sfab_link_make_fc(fc, SFAB_FC_OP_NORMAL, 0, 0, 2000);
	fc[5] ^= 0x40;
	CHECK_EQ(sfab_link_rx(&a, fc, sizeof(fc), &vl), SFAB_LINK_RX_DROP);
	CHECK_EQ(a.cnt.symbol_errors, 1);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80);
	/* FC for VL15 and reserved ops are invalid */
	sfab_link_make_fc(fc, SFAB_FC_OP_NORMAL, SFAB_VL15, 0, 10);
	CHECK_EQ(sfab_link_rx(&a, fc, sizeof(fc), &vl), SFAB_LINK_RX_DROP);
	sfab_link_make_fc(fc, 4, 0, 0, 10);
	CHECK_EQ(sfab_link_rx(&a, fc, sizeof(fc), &vl), SFAB_LINK_RX_DROP);
	CHECK_EQ(a.cnt.bad_fc_pkts, 3);
	CHECK_EQ(a.phys, SFAB_PHYS_LINKUP);
}

/*
 * A port that comes back from Disabled trains with a peer that answers
 * late (a busy host: more than a refresh period each way).  The training
 * ends in a few periods and the link then stays up: the Init packets
 * Polling repeats are not taken for new trainings bouncing between the
 * ends for ever.
 */
TEST(slow_peer_training_settles)
{
	static struct fc_slow c;
	struct sfab_link a, b;
	uint64_t downed_a, downed_b;

	fc_pair_up(&a, &b, &fc_cfg);
	memset(&c, 0, sizeof(c));
	c.end[0] = &a;
	c.end[1] = &b;
	c.delay = 2500;			/* 2.5 refresh periods each way */
	sfab_link_phys_down(&b, true);
	fc_slow_run(&c, 100, 10000);
	sfab_link_phys_down(&b, false);
	sfab_link_phys_up(&b, c.now);
	fc_slow_run(&c, 100, c.now + 40000);
	CHECK_EQ(a.phys, SFAB_PHYS_LINKUP);
	CHECK_EQ(b.phys, SFAB_PHYS_LINKUP);
	CHECK_EQ(a.state, SFAB_PORT_INIT);
	CHECK_EQ(b.state, SFAB_PORT_INIT);
	downed_a = a.cnt.link_downed;
	downed_b = b.cnt.link_downed;
	CHECK(downed_a <= 2);
	CHECK(downed_b <= 2);
	/* the subnet manager's Armed and Active stick */
	CHECK_EQ(sfab_link_set_state(&a, SFAB_PORT_ARMED), 0);
	CHECK_EQ(sfab_link_set_state(&b, SFAB_PORT_ARMED), 0);
	CHECK_EQ(sfab_link_set_state(&a, SFAB_PORT_ACTIVE), 0);
	CHECK_EQ(sfab_link_set_state(&b, SFAB_PORT_ACTIVE), 0);
	fc_slow_run(&c, 100, c.now + 100000);
	CHECK_EQ(a.state, SFAB_PORT_ACTIVE);
	CHECK_EQ(b.state, SFAB_PORT_ACTIVE);
	CHECK_EQ(a.cnt.link_downed, downed_a);
	CHECK_EQ(b.cnt.link_downed, downed_b);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80);
	CHECK_EQ(sfab_link_tx_credits(&b, 1), 80);
}

/* a fault on one end: flap, Set Down, or an overrun's retraining */
static void fc_random_fault(struct fc_slow *c)
{
	struct sfab_link *l = c->end[rnd_below(2)];

	switch (rnd_below(3)) {
	case 0:
		sfab_link_phys_down(l, true);
		fc_slow_run(c, 100, c->now + rnd_below(5000));
		sfab_link_phys_down(l, false);
		sfab_link_phys_up(l, c->now);
		break;
	case 1:
		CHECK_EQ(sfab_link_set_state(l, SFAB_PORT_DOWN), 0);
		break;
	default:
		sfab_link_phys_down(l, false);	/* what an overrun does */
		break;
	}
}

/*
 * The space around the case above: delays of 0 to 4 periods, frames
 * lost, flaps, Set Down and overruns on either end at random.  Once the
 * faults stop, every run ends with both ends up within a few periods,
 * full credit both ways, and an Armed and Active that stay.
 */
TEST(training_under_faults_settles)
{
	static struct fc_slow c;
	unsigned long before = harness_test_failures;
	unsigned int seed, i, n;

	for (seed = 1; seed <= 300; seed++) {
		struct sfab_link a, b;
		uint64_t downed;

		rng_state = 0x9e3779b97f4a7c15ULL * seed;
		fc_pair_up(&a, &b, &fc_cfg);
		memset(&c, 0, sizeof(c));
		c.end[0] = &a;
		c.end[1] = &b;
		c.delay = rnd_below(4000);
		c.lose_pct = rnd_below(4) ? rnd_below(30) : 0;
		n = 1 + rnd_below(6);
		for (i = 0; i < n; i++) {
			fc_random_fault(&c);
			fc_slow_run(&c, 100, c.now + rnd_below(8000));
		}
		c.lose_pct = 0;
		fc_slow_run(&c, 100, c.now + 3 * c.delay + 5000);
		CHECK_EQ(a.phys, SFAB_PHYS_LINKUP);
		CHECK_EQ(b.phys, SFAB_PHYS_LINKUP);
		if (a.phys != SFAB_PHYS_LINKUP || b.phys != SFAB_PHYS_LINKUP) {
			printf("# seed %u: delay %llu, a %s, b %s\n", seed,
			       (unsigned long long)c.delay,
			       sfab_link_phys_name(a.phys), sfab_link_phys_name(b.phys));
			break;
		}
		CHECK(a.state >= SFAB_PORT_INIT && b.state >= SFAB_PORT_INIT);
		if (a.state == SFAB_PORT_INIT)
			CHECK_EQ(sfab_link_set_state(&a, SFAB_PORT_ARMED), 0);
		if (b.state == SFAB_PORT_INIT)
			CHECK_EQ(sfab_link_set_state(&b, SFAB_PORT_ARMED), 0);
		CHECK_EQ(sfab_link_set_state(&a, SFAB_PORT_ACTIVE), 0);
		CHECK_EQ(sfab_link_set_state(&b, SFAB_PORT_ACTIVE), 0);
		downed = a.cnt.link_downed + b.cnt.link_downed;
		fc_slow_run(&c, 100, c.now + 3 * c.delay + 50000);
		CHECK_EQ(a.state, SFAB_PORT_ACTIVE);
		CHECK_EQ(b.state, SFAB_PORT_ACTIVE);
		CHECK_EQ(a.cnt.link_downed + b.cnt.link_downed, downed);
		for (i = 0; i < fc_cfg.num_data_vls; i++) {
			CHECK_EQ(sfab_link_tx_credits(&a, i), 80);
			CHECK_EQ(sfab_link_tx_credits(&b, i), 80);
		}
		if (harness_test_failures != before) {
			printf("# seed %u failed\n", seed);
			break;
		}
	}
}

TEST(peer_retrains_and_unplug)
{
	struct sfab_link a, b;

	fc_pair_up(&a, &b, &fc_cfg);
	/* b trains again (its port was set Down): a follows, counts it */
	CHECK_EQ(sfab_link_set_state(&b, SFAB_PORT_DOWN), 0);
	CHECK_EQ(b.cnt.link_downed, 1);
	fc_settle(&b, &a, 0);
	CHECK_EQ(a.cnt.link_downed, 1);
	CHECK_EQ(a.state, SFAB_PORT_INIT);
	CHECK_EQ(b.state, SFAB_PORT_INIT);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 80);
	CHECK_EQ(sfab_link_tx_credits(&b, 0), 80);
	/* cable pulled */
	sfab_link_phys_down(&a, false);
	CHECK_EQ(a.cnt.link_downed, 2);
	CHECK_EQ(a.state, SFAB_PORT_DOWN);
	CHECK_EQ(a.phys, SFAB_PHYS_POLLING);
	CHECK(!sfab_link_fc_pending(&a, 5000));
	sfab_link_phys_down(&a, true);
	CHECK_EQ(a.phys, SFAB_PHYS_DISABLED);
	CHECK_EQ(a.cnt.link_downed, 2);
}

/*
 * FC coalescing: a stream of 4 KiB packets into a 2048-block buffer that
 * the receiver drains at once.  The receiver sends an update only when
 * the credit the sender holds from its last one falls below seven eighths
 * of the buffer (fc_low_water()): one FC packet per 4 data packets, not
 * one per packet, and the sender never runs out of credit.  Between
 * updates the receiver's freed space waits for the refresh period.
 */
TEST(fc_updates_coalesced)
{
	struct sfab_link_cfg cfg = fc_cfg;
	struct sfab_link a, b;
	uint8_t p[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int vl, i, fcs = 0, stalls = 0;
	const unsigned int pkts = 1000;
	size_t n = fc_make_pkt(p, 0, 4096, 3);	/* 4138 bytes: 65 blocks */

	cfg.vl_blocks = 2048;
	cfg.fc_period_ns = 1000000;
	fc_pair_up(&a, &b, &cfg);
	fc_settle(&a, &b, 1);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 2048);
	for (i = 0; i < pkts; i++) {
		if (!sfab_link_tx_ok(&a, 0, n)) {
			stalls++;
			break;
		}
		sfab_link_tx_sent(&a, 0, p, n);
		CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
		sfab_link_rx_free(&b, 0, n);
		/* within the period: only what the low-water mark asks for */
		fcs += fc_pump(&b, &a, 2);
		/* the sender's credit never falls below the mark's packet */
		CHECK(sfab_link_tx_credits(&a, 0) >= 1792 - 65);
	}
	CHECK_EQ(stalls, 0);
	/* 256 blocks between updates: one per 4 packets */
	CHECK_EQ(fcs, pkts / 4);
	/* the refresh gives it all back; one packet then waits for the next */
	fc_pump(&b, &a, 2 + cfg.fc_period_ns);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 2048);
	sfab_link_tx_sent(&a, 0, p, n);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
	sfab_link_rx_free(&b, 0, n);
	CHECK_EQ(fc_pump(&b, &a, 3 + cfg.fc_period_ns), 0);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 2048 - 65);
	fc_pump(&b, &a, 3 + 2 * cfg.fc_period_ns);
	CHECK_EQ(sfab_link_tx_credits(&a, 0), 2048);
	/* a small buffer: every change still goes out at once */
	fc_pair_up(&a, &b, &fc_cfg);
	fc_settle(&a, &b, 0);
	n = fc_make_pkt(p, 1, 1000, 1);
	sfab_link_tx_sent(&a, 1, p, n);
	CHECK_EQ(sfab_link_rx(&b, p, n, &vl), SFAB_LINK_RX_DATA);
	sfab_link_rx_free(&b, 1, n);
	CHECK_EQ(fc_pump(&b, &a, 0), 1);
	CHECK_EQ(sfab_link_tx_credits(&a, 1), 80);
}
