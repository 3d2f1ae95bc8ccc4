/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sw-failover: fast failover below the SM (qemu-model/switch/
 * sfab_sw_fo.c) on two leaves and two spines.  A leaf that loses an
 * up-link moves its destinations to the other up-link in the next run,
 * packets already queued for the lost port with them, none discarded; a
 * spine that loses a down-link has no alternate, tells the other leaf
 * (a fault routing notification), which moves off it; a port Active again
 * takes its destinations back, and the spine says so.  A backup LFT entry
 * is used without a group; an LFT write by the SM replaces the moves.  A
 * notification from an HCA port, or a malformed one, is refused; a switch
 * with no failover configured discards as before.
 *
 *      spine1 (sw 2)    spine2 (sw 3)
 *       1|     \2       1/    |2
 *       7|      \      /     8|      leaf ports 7, 8: the up-links
 *      leaf1 (sw 0)    leaf2 (sw 1)
 *      1|   2|          1|   2|
 *     n0   n1          n2   n3      node i: LID i + 1
 */
#include "harness.h"
#include "sw_fabric.h"
#include "sfab/sfab_regs.h"

static struct sfab_sw_cfg cfg;

enum { LEAF1, LEAF2, SPINE1, SPINE2 };

static void leafspine_blocks(struct tf *tf, bool failover,
			     unsigned int vl_blocks)
{
	unsigned int i, lid;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 8;
	cfg.fc_period_ns = 100000;
	if (vl_blocks)
		cfg.vl_blocks = vl_blocks;
	tf_init(tf);
	for (i = 0; i < 4; i++) {
		tf_add_sw(tf, i, &cfg);
		tf->sw[i]->lid = 10 + i;
	}
	for (i = 0; i < 4; i++) {
		tf_add_node(tf, i, &cfg);
		tf_cable_node(tf, i, i / 2, i % 2 + 1);
	}
	tf_cable_sw(tf, LEAF1, 7, SPINE1, 1);
	tf_cable_sw(tf, LEAF1, 8, SPINE2, 1);
	tf_cable_sw(tf, LEAF2, 7, SPINE1, 2);
	tf_cable_sw(tf, LEAF2, 8, SPINE2, 2);
	tf_pump(tf);
	tf_activate(tf);
	tf_pump(tf);
	/* every remote node through spine 1, as a min-hop engine might */
	for (lid = 1; lid <= 4; lid++) {
		unsigned int leaf = (lid - 1) / 2, port = (lid - 1) % 2 + 1;

		sfab_sw_lft_set(tf->sw[leaf], lid, port);
		sfab_sw_lft_set(tf->sw[!leaf], lid, 7);
		sfab_sw_lft_set(tf->sw[SPINE1], lid, leaf + 1);
		sfab_sw_lft_set(tf->sw[SPINE2], lid, leaf + 1);
	}
	if (!failover)
		return;
	for (i = LEAF1; i <= LEAF2; i++) {
		sfab_sw_fo_up_port(tf->sw[i], 7, true);
		sfab_sw_fo_up_port(tf->sw[i], 8, true);
		sfab_sw_fo_peer_port(tf->sw[i], 7, true);
		sfab_sw_fo_peer_port(tf->sw[i], 8, true);
	}
	for (i = SPINE1; i <= SPINE2; i++) {
		sfab_sw_fo_peer_port(tf->sw[i], 1, true);
		sfab_sw_fo_peer_port(tf->sw[i], 2, true);
	}
}

static void leafspine(struct tf *tf, bool failover)
{
	leafspine_blocks(tf, failover, 0);
}

/* the cable between switch @a port @pa and @b port @pb pulled */
static void pull(struct tf *tf, int a, unsigned int pa, int b,
		 unsigned int pb)
{
	tf->sw_peer[a][pa].sw = -2;
	tf->sw_peer[b][pb].sw = -2;
	sfab_sw_port_disconnect(tf->sw[a], pa);
	sfab_sw_port_disconnect(tf->sw[b], pb);
}

static void send_to(struct tf *tf, unsigned int from, uint16_t dlid,
		    uint8_t fill)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t n = tf_data_pkt(buf, dlid, from + 1, 0, fill);

	REQUIRE(tf_node_send(tf, from, buf, n));
	tf_pump(tf);
}

TEST(leaf_uplink_lost)
{
	struct tf tf;
	struct sfab_sw *leaf1;

	leafspine(&tf, true);
	leaf1 = tf.sw[LEAF1];
	send_to(&tf, 0, 3, 1);
	CHECK_EQ(tf.node[2].ninbox, 1);
	CHECK_EQ(tf.sw[SPINE1]->port[1].link.cnt.rcv_pkts, 1);

	pull(&tf, LEAF1, 7, SPINE1, 1);
	tf_pump(&tf);
	/* both remote LIDs moved, spread over what is left: port 8 */
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 8);
	CHECK_EQ(sfab_sw_route_port(leaf1, 4), 8);
	CHECK_EQ(sfab_sw_lft_get(leaf1, 3), 7);	/* the SM's table as set */
	CHECK_EQ(leaf1->fo.moved, 2);
	CHECK_EQ(leaf1->fo.unreachable, 0);
	CHECK_EQ(leaf1->fo.frn_sent, 0);
	send_to(&tf, 0, 3, 2);
	send_to(&tf, 1, 4, 3);
	CHECK_EQ(tf.node[2].ninbox, 2);
	CHECK_EQ(tf.node[3].ninbox, 1);
	CHECK_EQ(tf.sw[SPINE2]->port[1].link.cnt.rcv_pkts, 2);
	CHECK_EQ(leaf1->fo.sent_alt, 2);
	CHECK(leaf1->fo.first_tx_ns != 0);
	CHECK_EQ(leaf1->port[7].cnt.xmit_discards, 0);
	/* spine 1 lost its port to leaf 1: leaf 2 was told, moved LIDs 1, 2 */
	CHECK_EQ(tf.sw[SPINE1]->fo.unreachable, 2);
	CHECK_EQ(tf.sw[SPINE1]->fo.frn_sent, 1);
	CHECK_EQ(tf.sw[LEAF2]->fo.frn_taken, 1);
	CHECK_EQ(sfab_sw_route_port(tf.sw[LEAF2], 1), 8);
	CHECK_EQ(sfab_sw_route_port(tf.sw[LEAF2], 2), 8);
	send_to(&tf, 2, 1, 4);
	CHECK_EQ(tf.node[0].ninbox, 1);
	CHECK_EQ(tf.sw[SPINE1]->port[1].cnt.xmit_discards, 0);
	tf_fini(&tf);
}

TEST(queued_packets_move)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct tf tf;
	struct sfab_sw *leaf1;
	unsigned int i;
	size_t n;

	leafspine(&tf, true);
	leaf1 = tf.sw[LEAF1];
	/* three packets for port 7 in the input queue, none sent yet */
	for (i = 0; i < 3; i++) {
		n = tf_data_pkt(buf, 3, 1, 0, 10 + i);
		sfab_sw_port_rx(leaf1, 1, buf, n);
	}
	CHECK_EQ(leaf1->queued, 3);
	CHECK(leaf1->port[7].nwant != 0);
	pull(&tf, LEAF1, 7, SPINE1, 1);
	tf_pump(&tf);
	CHECK_EQ(tf.node[2].ninbox, 3);
	for (i = 0; i < tf.node[2].ninbox && i < 3; i++) {
		struct sfab_pkt_ud u;

		REQUIRE(sfab_link_pkt_parse_ud(tf.node[2].inbox[i].data,
					       tf.node[2].inbox[i].len, &u));
		CHECK_EQ(u.payload[0], 10 + i);	/* in order */
	}
	CHECK_EQ(leaf1->fo.requeued, 3);
	CHECK_EQ(leaf1->port[7].cnt.xmit_discards, 0);
	CHECK_EQ(leaf1->port[7].nwant, 0);
	CHECK_EQ(leaf1->queued, 0);
	tf_fini(&tf);
}

TEST(spine_downlink_lost_then_back)
{
	struct tf tf;
	struct sfab_sw *leaf1, *spine1;

	leafspine(&tf, true);
	leaf1 = tf.sw[LEAF1];
	spine1 = tf.sw[SPINE1];
	/* leaf 2 - spine 1: leaf 1 learns of it from spine 1 only */
	pull(&tf, LEAF2, 7, SPINE1, 2);
	tf_pump(&tf);
	CHECK_EQ(spine1->fo.unreachable, 2);
	CHECK_EQ(spine1->fo.frn_sent, 1);
	CHECK_EQ(leaf1->fo.frn_taken, 1);
	CHECK_EQ(leaf1->fo.moved, 2);
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 8);
	CHECK_EQ(sfab_sw_route_port(leaf1, 4), 8);
	CHECK_EQ(sfab_sw_route_port(leaf1, 1), 1);	/* local: unmoved */
	send_to(&tf, 0, 3, 1);
	send_to(&tf, 1, 4, 2);
	CHECK_EQ(tf.node[2].ninbox, 1);
	CHECK_EQ(tf.node[3].ninbox, 1);
	CHECK_EQ(spine1->port[2].cnt.xmit_discards, 0);
	CHECK_EQ(spine1->port[1].link.cnt.rcv_pkts, 0);

	/* the cable back, the SM's part: both ends Active again */
	tf_cable_sw(&tf, LEAF2, 7, SPINE1, 2);
	tf_pump(&tf);
	tf_activate(&tf);
	tf_pump(&tf);
	CHECK_EQ(sfab_sw_route_port(tf.sw[LEAF2], 1), 7);
	CHECK_EQ(spine1->fo.frn_sent, 2);		/* UP */
	CHECK_EQ(leaf1->fo.frn_taken, 2);
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 7);
	CHECK_EQ(sfab_sw_route_port(leaf1, 4), 7);
	send_to(&tf, 0, 3, 3);
	CHECK_EQ(tf.node[2].ninbox, 2);
	CHECK_EQ(spine1->port[1].link.cnt.rcv_pkts, 1);
	tf_fini(&tf);
}

/* node @n gives back what it kept (credit too) and keeps no more; how many */
static unsigned int give_back(struct tf *tf, unsigned int n)
{
	struct tf_node *nd = &tf->node[n];
	unsigned int i, k = nd->ninbox;

	for (i = 0; i < nd->ninbox; i++)
		sfab_link_rx_free(&nd->link, nd->inbox[i].vl, nd->inbox[i].len);
	tf_node_free_all(tf, n);
	nd->auto_free = true;
	tf_node_flush_fc(tf, n);
	return k;
}

/*
 * Spine 1 holds packets for leaf 2 when it loses that link: they go back
 * to leaf 1, which the notification (ahead of them) moved off spine 1, and
 * reach n2 through spine 2.  Nothing is lost but what was on the cable
 * (nothing, here).
 */
TEST(spine_sends_back_what_it_held)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct tf tf;
	struct sfab_sw *spine1;
	unsigned int i, sent = 0, got;
	size_t n;

	/* the smallest buffers: n2 keeping what it gets backs it all up */
	leafspine_blocks(&tf, true, sfab_link_blocks(SFAB_WIRE_MAX_PKT_LEN));
	spine1 = tf.sw[SPINE1];
	tf.node[2].auto_free = false;
	for (i = 0; i < 60; i++) {
		n = tf_data_pkt(buf, 3, 1, 0, (uint8_t)i);
		if (tf_node_send(&tf, 0, buf, n))
			sent++;
		tf_pump(&tf);
	}
	CHECK(spine1->port[1].inq[0].count > 0);	/* held for leaf 2 */
	pull(&tf, LEAF2, 7, SPINE1, 2);
	tf_pump(&tf);
	CHECK_EQ(spine1->fo.bounced, spine1->port[1].link.cnt.rcv_pkts -
		 spine1->port[2].link.cnt.xmit_pkts);
	CHECK(spine1->fo.bounced > 0);
	CHECK_EQ(spine1->queued, 0);
	CHECK_EQ(spine1->port[2].cnt.xmit_discards, 0);
	/* n2 gives everything back: every packet arrives */
	got = give_back(&tf, 2);
	tf_pump(&tf);
	tf_refresh(&tf);
	CHECK_EQ(got + tf.node[2].ninbox, sent);
	CHECK_EQ(tf.sw[LEAF1]->port[7].cnt.xmit_discards +
		 tf.sw[LEAF1]->port[8].cnt.xmit_discards, 0);
	tf_fini(&tf);
}

TEST(backup_entry_and_sm_write)
{
	struct tf tf;
	struct sfab_sw *leaf1;

	leafspine(&tf, false);
	leaf1 = tf.sw[LEAF1];
	/* no group: LID 3 has a backup entry, LID 4 nothing */
	CHECK_EQ(sfab_sw_alt_set(leaf1, 3, 8), 0);
	CHECK_EQ(sfab_sw_alt_get(leaf1, 3), 8);
	CHECK_EQ(sfab_sw_alt_set(leaf1, 3, 9), -1);	/* no port 9 */
	CHECK_EQ(sfab_sw_alt_set(leaf1, SFAB_SW_LFT_CAP, 8), -1);
	pull(&tf, LEAF1, 7, SPINE1, 1);
	tf_pump(&tf);
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 8);
	CHECK_EQ(sfab_sw_route_port(leaf1, 4), 7);
	CHECK_EQ(leaf1->fo.moved, 1);
	/* port 7 is not switch-facing here: nobody to tell */
	CHECK_EQ(leaf1->fo.unreachable, 0);
	CHECK_EQ(leaf1->fo.frn_sent, 0);
	send_to(&tf, 0, 3, 1);
	send_to(&tf, 0, 4, 2);
	CHECK_EQ(tf.node[2].ninbox, 1);
	CHECK_EQ(tf.node[3].ninbox, 0);
	CHECK_EQ(leaf1->port[7].cnt.xmit_discards, 1);
	/* the SM writes LID 4 to the lost port: moved at once (backup) */
	CHECK_EQ(sfab_sw_alt_set(leaf1, 4, 8), 0);
	CHECK_EQ(sfab_sw_lft_set(leaf1, 4, 7), 0);
	CHECK_EQ(sfab_sw_route_port(leaf1, 4), 8);
	/* the SM's own route to a live port replaces the move */
	CHECK_EQ(sfab_sw_lft_set(leaf1, 3, 1), 0);
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 1);
	tf_fini(&tf);
}

/* a notification that LIDs @first..@last are down, or a broken one */
static size_t frn(uint8_t *buf, uint16_t first, uint16_t last, int breakage)
{
	struct sfab_pkt_ud u = {
		.vl = SFAB_VL15, .dlid = SFAB_LID_PERMISSIVE, .slid = 12,
		.pkey = 0xffff,
	};
	struct sfab_wire_frn m;

	memset(&m, 0, sizeof(m));
	sfab_frn_hdr_set(&m, SFAB_FRN_DOWN, 1);
	m.count = sfab_cpu_to_be16(1);
	m.range[0].first = sfab_cpu_to_be16(first);
	m.range[0].last = sfab_cpu_to_be16(last);
	switch (breakage) {
	case 1:
		m.count = 0;
		break;
	case 2:
		m.count = sfab_cpu_to_be16(SFAB_FRN_MAX_RANGES + 1);
		break;
	case 3:
		m.kind = 7;
		break;
	case 4:
		m.oui[2] ^= 1;
		break;
	case 5:		/* the same range twice: each LID once, ascending */
		m.count = sfab_cpu_to_be16(2);
		m.range[1] = m.range[0];
		break;
	}
	return sfab_link_pkt_build_ud(buf, &u, &m, sizeof(m));
}

TEST(notification_refused)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct tf tf;
	struct sfab_sw *leaf1;
	int b;

	leafspine(&tf, true);
	leaf1 = tf.sw[LEAF1];
	/* from an HCA's port: an endpoint may not move a switch's routes */
	REQUIRE(tf_node_send(&tf, 0, buf, frn(buf, 3, 4, 0)));
	tf_pump(&tf);
	CHECK_EQ(leaf1->fo.frn_refused, 1);
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 7);
	/* malformed, from a switch port */
	for (b = 1; b <= 5; b++)
		sfab_sw_port_rx(leaf1, 7, buf, frn(buf, 3, 4, b));
	sfab_sw_port_rx(leaf1, 7, buf, frn(buf, 4, 3, 0));	/* inverted */
	sfab_sw_port_rx(leaf1, 7, buf, frn(buf, 0, 3, 0));	/* LID 0 */
	sfab_sw_port_rx(leaf1, 7, buf, frn(buf, 3, SFAB_SW_LFT_CAP, 0));
	CHECK_EQ(leaf1->fo.frn_refused, 1 + 5 + 3);
	CHECK_EQ(leaf1->fo.frn_taken, 0);
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 7);
	/* and a good one moves LID 3 only */
	sfab_sw_port_rx(leaf1, 7, buf, frn(buf, 3, 3, 0));
	CHECK_EQ(leaf1->fo.frn_taken, 1);
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 8);
	CHECK_EQ(sfab_sw_route_port(leaf1, 4), 7);
	/* the spine's copy of an FRN is not forwarded anywhere */
	CHECK_EQ(leaf1->port[1].cnt.rcv_switch_relay_errors, 0);
	tf_fini(&tf);
}

TEST(unconfigured_discards_as_before)
{
	struct tf tf;
	struct sfab_sw *leaf1;

	leafspine(&tf, false);
	leaf1 = tf.sw[LEAF1];
	pull(&tf, LEAF1, 7, SPINE1, 1);
	tf_pump(&tf);
	CHECK_EQ(sfab_sw_route_port(leaf1, 3), 7);
	send_to(&tf, 0, 3, 1);
	CHECK_EQ(tf.node[2].ninbox, 0);
	CHECK_EQ(leaf1->port[7].cnt.xmit_discards, 1);
	CHECK_EQ(leaf1->fo.moved + leaf1->fo.frn_sent, 0);
	tf_fini(&tf);
}
