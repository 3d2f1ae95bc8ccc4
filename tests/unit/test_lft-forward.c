/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/lft-forward: LinearForwardingTable blocks (set/get, bounds, bad
 * ports), forwarding decisions, out-of-range and unrouted LIDs, multicast
 * replication by the MFT, and SL-to-VL on the way out, also for each
 * member of a multicast group on its own VL, and a member's port that
 * corrupts what it sends while the others' copies arrive intact.
 */
#include "harness.h"
#include "sw_fabric.h"

static struct sfab_sw_cfg cfg;

static struct sfab_sw *one_switch(struct tf *tf, unsigned int nodes)
{
	unsigned int i;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 6;
	cfg.fc_period_ns = 100000;
	tf_init(tf);
	tf_add_sw(tf, 0, &cfg);
	for (i = 0; i < nodes; i++) {
		tf_add_node(tf, i, &cfg);
		tf_cable_node(tf, i, 0, i + 1);
	}
	tf_pump(tf);
	tf_activate(tf);
	return tf->sw[0];
}

TEST(blocks_set_get)
{
	struct sfab_wire_lft_block b, g;
	struct tf tf;
	struct sfab_sw *sw = one_switch(&tf, 0);
	unsigned int i;

	/* reset state: nothing routed */
	CHECK_EQ(sfab_sw_lft_get(sw, 1), SFAB_LFT_NO_PORT);
	for (i = 0; i < 64; i++)
		b.port[i] = i % 7;
	CHECK_EQ(sfab_sw_lft_set_block(sw, 2, &b), 0);
	CHECK_EQ(sfab_sw_lft_get_block(sw, 2, &g), 0);
	CHECK(!memcmp(&b, &g, sizeof(b)));
	CHECK_EQ(sfab_sw_lft_get(sw, 128 + 13), 13 % 7);
	/* the last block exists, the one after does not */
	CHECK_EQ(sfab_sw_lft_set_block(sw, SFAB_SW_LFT_CAP / 64 - 1, &b), 0);
	CHECK_EQ(sfab_sw_lft_set_block(sw, SFAB_SW_LFT_CAP / 64, &b), -1);
	CHECK_EQ(sfab_sw_lft_get_block(sw, SFAB_SW_LFT_CAP / 64, &g), -1);
	/* a port the switch does not have rejects the whole block */
	b.port[5] = 7;
	CHECK_EQ(sfab_sw_lft_set_block(sw, 3, &b), -1);
	CHECK_EQ(sfab_sw_lft_get(sw, 3 * 64), SFAB_LFT_NO_PORT);
	CHECK_EQ(sfab_sw_lft_set(sw, 5, 7), -1);
	CHECK_EQ(sfab_sw_lft_set(sw, 0xc000, 1), -1);
	CHECK_EQ(sfab_sw_lft_get(sw, 0xc123), SFAB_LFT_NO_PORT);
	tf_fini(&tf);
}

TEST(route_decisions)
{
	uint8_t outs[SFAB_SW_MAX_PORTS + 1];
	struct tf tf;
	struct sfab_sw *sw = one_switch(&tf, 0);

	sfab_sw_lft_set(sw, 10, 2);
	sfab_sw_lft_set(sw, 11, 1);
	CHECK_EQ(sfab_sw_route(sw, 1, 10, outs), 1);
	CHECK_EQ(outs[0], 2);
	CHECK_EQ(sfab_sw_route(sw, 1, 11, outs), 0);	/* never back out the in port */
	CHECK_EQ(sfab_sw_route(sw, 1, 12, outs), 0);	/* unrouted */
	CHECK_EQ(sfab_sw_route(sw, 1, 0, outs), 0);	/* reserved LID */
	CHECK_EQ(sfab_sw_route(sw, 1, 0xbfff, outs), 0);
	/* the switch's own LID goes to port 0 */
	sw->lid = 20;
	sw->lmc = 1;
	CHECK_EQ(sfab_sw_route(sw, 3, 21, outs), 1);
	CHECK_EQ(outs[0], 0);
	CHECK_EQ(sfab_sw_route(sw, 3, 22, outs), 0);
	/* multicast: every member but the input */
	CHECK_EQ(sfab_sw_mft_set_port(sw, 0xc001, 1, true), 0);
	CHECK_EQ(sfab_sw_mft_set_port(sw, 0xc001, 3, true), 0);
	CHECK_EQ(sfab_sw_mft_set_port(sw, 0xc001, 4, true), 0);
	CHECK_EQ(sfab_sw_mft_set_port(sw, 0xc001, 7, true), -1);
	CHECK_EQ(sfab_sw_mft_set_port(sw, 0xc000 + SFAB_SW_MFT_CAP, 1, true), -1);
	CHECK_EQ(sfab_sw_route(sw, 3, 0xc001, outs), 2);
	CHECK_EQ(outs[0], 1);
	CHECK_EQ(outs[1], 4);
	CHECK_EQ(sfab_sw_route(sw, 3, 0xc002, outs), 0);
	tf_fini(&tf);
}

TEST(forwarding_end_to_end)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct tf tf;
	struct sfab_sw *sw = one_switch(&tf, 4);
	struct sfab_pkt_ud u;
	size_t n;

	sfab_sw_lft_set(sw, 1, 1);
	sfab_sw_lft_set(sw, 2, 2);
	sfab_sw_lft_set(sw, 3, 3);
	/* SL 1 from port 1 to port 2 leaves on VL 3 */
	sfab_sw_sl2vl(sw, 1, 2)[1] = 3;
	n = tf_data_pkt(buf, 2, 1, 1, 0xab);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	REQUIRE(tf.node[1].ninbox == 1);
	CHECK_EQ(tf.node[1].inbox[0].vl, 3);
	REQUIRE(sfab_link_pkt_parse_ud(tf.node[1].inbox[0].data,
				       tf.node[1].inbox[0].len, &u));
	CHECK_EQ(u.len, 200);
	CHECK_EQ(u.payload[199], 0xab);
	CHECK(sfab_wire_icrc_ok(tf.node[1].inbox[0].data, n));
	/* unrouted LID: dropped at the input, counted as a relay error */
	n = tf_data_pkt(buf, 9, 1, 0, 1);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(sw->port[1].cnt.rcv_switch_relay_errors, 1);
	/* multicast to ports 2, 3, 4 from port 1 */
	sfab_sw_mft_set_port(sw, 0xc005, 1, true);
	sfab_sw_mft_set_port(sw, 0xc005, 2, true);
	sfab_sw_mft_set_port(sw, 0xc005, 3, true);
	sfab_sw_mft_set_port(sw, 0xc005, 4, true);
	n = tf_data_pkt(buf, 0xc005, 1, 0, 2);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, 2);
	CHECK_EQ(tf.node[2].ninbox, 1);
	CHECK_EQ(tf.node[3].ninbox, 1);
	CHECK_EQ(tf.node[0].ninbox, 0);
	CHECK_EQ(sw->port[2].link.cnt.xmit_mcast_pkts, 1);
	/* a port that is not Active discards (PortXmitDiscards) */
	sfab_link_set_state(&sw->port[3].link, SFAB_PORT_DOWN);
	n = tf_data_pkt(buf, 3, 1, 0, 3);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(sw->port[3].cnt.xmit_discards, 1);
	CHECK_EQ(sw->queued, 0);
	/* the state change is flagged for the SM in SwitchInfo */
	CHECK(sw->life_state & SFAB_SWINFO_PORT_STATE_CHANGE);
	/* everything the switch took in, it let go: credits all back */
	CHECK_EQ(sw->port[1].link.vl[0].used, 0);
	tf_refresh(&tf);
	CHECK_EQ(sfab_link_tx_credits(&tf.node[0].link, 0), cfg.vl_blocks);
	tf_fini(&tf);
}

/* the frame node @n received last: on VL @vl, both CRCs good */
static bool got_intact(struct tf *tf, unsigned int n, unsigned int vl)
{
	unsigned int k = tf->node[n].ninbox;
	const uint8_t *d;
	size_t len;

	if (!k)
		return false;
	d = tf->node[n].inbox[k - 1].data;
	len = tf->node[n].inbox[k - 1].len;
	return tf->node[n].inbox[k - 1].vl == vl && (d[0] >> 4) == vl &&
	       sfab_wire_vcrc_ok(d, len) && sfab_wire_icrc_ok(d, len);
}

/*
 * A multicast packet on SL 1 to ports 2, 3 and 4, each mapping SL 1 to
 * another VL: every copy leaves on its port's VL with its VCRC right.
 * Then every port but one corrupts what it sends: that one's copy still
 * arrives intact, whichever order the ports are served in.
 */
TEST(multicast_each_port_its_vl)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	static const unsigned int vl_of[5] = { 0, 0, 3, 1, 2 };
	struct tf tf;
	struct sfab_sw *sw = one_switch(&tf, 4);
	unsigned int o, clean, before[5];
	size_t n;

	for (o = 1; o <= 4; o++)
		sfab_sw_mft_set_port(sw, 0xc007, o, true);
	for (o = 2; o <= 4; o++)
		sfab_sw_sl2vl(sw, 1, o)[1] = vl_of[o];
	n = tf_data_pkt(buf, 0xc007, 1, 1, 7);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	for (o = 2; o <= 4; o++) {
		CHECK_EQ(tf.node[o - 1].ninbox, 1);
		CHECK(got_intact(&tf, o - 1, vl_of[o]));
	}
	for (clean = 2; clean <= 4; clean++) {
		for (o = 2; o <= 4; o++) {
			sw->port[o].inj.ber_thr = o == clean ? 0 : UINT64_MAX;
			before[o] = tf.node[o - 1].ninbox;
		}
		n = tf_data_pkt(buf, 0xc007, 1, 1, (uint8_t)clean);
		REQUIRE(tf_node_send(&tf, 0, buf, n));
		tf_pump(&tf);
		CHECK_EQ(tf.node[clean - 1].ninbox, before[clean] + 1);
		CHECK(got_intact(&tf, clean - 1, vl_of[clean]));
		for (o = 2; o <= 4; o++)
			if (o != clean)
				CHECK_EQ(tf.node[o - 1].ninbox, before[o]);
	}
	for (o = 2; o <= 4; o++)
		sw->port[o].inj.ber_thr = 0;
	CHECK_EQ(sw->queued, 0);
	tf_fini(&tf);
}

