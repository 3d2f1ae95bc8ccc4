/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-mft-port0: forwarding-table entries that name the switch's
 * management port (port 0) or a port the switch does not have never wedge
 * an input VL.  A multicast packet whose MFT entry lists port 0 beside
 * other ports goes out of the other ports, port 0's copy is consumed (QP0
 * and QP1 are never multicast members: no MAD answer), the packet leaves
 * its input queue and its credits come back, so later packets on the VL
 * flow.  The same for an MFT block an SM sets with every bit on, for an
 * LFT entry naming port 0 and for an entry beyond the port count.
 *
 *   node0 --1[switch, LID 10]2-- node1
 *                           3--- node2     (ports 4-6: no cable)
 */
#include "harness.h"
#include "sw_fabric.h"
#include "hca_port.h"

#define SW_LID		10
#define MLID		0xc005
#define NPORTS		6
/* more packets than node0's credit on VL0 covers several times over */
#define MANY		200

static struct sfab_sw_cfg cfg;

static struct sfab_sw *setup(struct tf *tf)
{
	struct sfab_sw *sw;
	unsigned int i;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = NPORTS;
	cfg.fc_period_ns = 100000;
	tf_init(tf);
	sw = tf_add_sw(tf, 0, &cfg);
	for (i = 0; i < 3; i++) {
		tf_add_node(tf, i, &cfg);
		tf_cable_node(tf, i, 0, i + 1);
		sfab_sw_lft_set(sw, i + 1, i + 1);	/* node i has LID i + 1 */
	}
	sw->lid = SW_LID;
	tf_pump(tf);
	tf_activate(tf);
	return sw;
}

/*
 * node0 sends MANY unicast packets on VL0 to node2, one at a time: each
 * must find credit (a wedged VL0 at the switch's port 1 returns none).
 */
static bool vl0_flows(struct tf *tf)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int before = tf->node[2].ninbox, i;
	size_t n = tf_data_pkt(buf, 3, 1, 0, 0x77);

	for (i = 0; i < MANY; i++) {
		if (!tf_node_send(tf, 0, buf, n)) {
			fprintf(stderr, "  node0: no VL0 credit after %u packets\n", i);
			return false;
		}
		tf_pump(tf);
	}
	return tf->node[2].ninbox == before + MANY;
}

/* everything the switch took in from node0 it let go: credits all back */
static void all_credits_back(struct tf *tf)
{
	CHECK_EQ(tf->sw[0]->queued, 0);
	CHECK_EQ(tf->sw[0]->port[1].link.vl[0].used, 0);
	tf_refresh(tf);
	CHECK_EQ(sfab_link_tx_credits(&tf->node[0].link, 0), cfg.vl_blocks);
}

TEST(mcast_with_port0_member)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	unsigned int i;
	size_t n;

	CHECK_EQ(sfab_sw_mft_set_port(sw, MLID, 0, true), 0);
	CHECK_EQ(sfab_sw_mft_set_port(sw, MLID, 2, true), 0);
	CHECK_EQ(sfab_sw_mft_set_port(sw, MLID, 3, true), 0);
	n = tf_data_pkt(buf, MLID, 1, 0, 0x5a);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, 1);
	CHECK_EQ(tf.node[2].ninbox, 1);
	CHECK_EQ(tf.node[0].ninbox, 0);
	CHECK_EQ(sw->bad_mads, 1);		/* port 0's copy, consumed */
	all_credits_back(&tf);
	/* the input VL is not wedged */
	CHECK(vl0_flows(&tf));
	/* and many such packets in a row leave no trace either */
	for (i = 0; i < MANY; i++) {
		REQUIRE(tf_node_send(&tf, 0, buf, n));
		tf_pump(&tf);
	}
	CHECK_EQ(tf.node[1].ninbox, 1 + MANY);
	CHECK_EQ(sw->bad_mads, 1 + MANY);
	all_credits_back(&tf);
	tf_fini(&tf);
}

TEST(mcast_mad_not_answered)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN], mad[SFAB_WIRE_MAD_LEN];
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	size_t n;

	/* a PMA Get to an MLID with port 0 and port 2 as members */
	sfab_sw_mft_set_port(sw, MLID, 0, true);
	sfab_sw_mft_set_port(sw, MLID, 2, true);
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	n = hc_mad_pkt(buf, mad, 1, MLID, 1);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, 1);
	/* QP1 is never a multicast member: the PMA does not answer */
	CHECK_EQ(sw->pma_mads, 0);
	CHECK_EQ(sw->bad_mads, 1);
	CHECK_EQ(tf.node[0].ninbox, 0);
	all_credits_back(&tf);
	CHECK(vl0_flows(&tf));
	/* port 0 the only member: consumed the same way */
	sfab_sw_mft_set_port(sw, MLID, 2, false);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(sw->pma_mads, 0);
	CHECK_EQ(sw->bad_mads, 2);
	CHECK_EQ(tf.node[0].ninbox, 0);
	all_credits_back(&tf);
	tf_fini(&tf);
}

/* node0 as an SM: a LID-routed SubnSet to the switch; its MAD status */
static uint16_t smp_set(struct tf *tf, uint16_t attr, uint32_t mod,
			const void *data, size_t len)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp, r;
	unsigned int before = tf->node[0].ninbox;
	size_t n;

	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET, attr, mod);
	memcpy(smp.data, data, len);
	n = tf_smp(buf, &smp, SW_LID, 1);
	if (!tf_node_send(tf, 0, buf, n))
		return 0xffff;
	tf_pump(tf);
	if (tf->node[0].ninbox != before + 1 || !tf_last_mad(tf, 0, &r) ||
	    r.method != SFAB_MAD_METHOD_GET_RESP)
		return 0xffff;
	return sfab_be16_to_cpu(r.status);
}

TEST(mft_block_all_bits_from_sm)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_mft_block b;
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	unsigned int p;
	size_t n;

	/* MLID 0xc005: ports 0-15 on a switch with ports 0-6 */
	memset(&b, 0, sizeof(b));
	b.mask[MLID - SFAB_LID_MCAST_BASE] = sfab_cpu_to_be16(0xffff);
	CHECK_EQ(smp_set(&tf, SFAB_SMP_ATTR_MCAST_FWD_TABLE, 0, &b, sizeof(b)), 0);
	CHECK(sfab_sw_mft_has_port(sw, MLID, 0));
	CHECK(!sfab_sw_mft_has_port(sw, MLID, NPORTS + 1));
	n = tf_data_pkt(buf, MLID, 1, 0, 0x11);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, 1);
	CHECK_EQ(tf.node[2].ninbox, 1);
	/* node0 holds the SMP response only: no copy back out of port 1 */
	CHECK_EQ(tf.node[0].ninbox, 1);
	/* ports 4-6 have no cable (discards); bits 7-15 name no port */
	for (p = 4; p <= NPORTS; p++)
		CHECK_EQ(sw->port[p].cnt.xmit_discards, 1);
	CHECK_EQ(sw->bad_mads, 1);
	all_credits_back(&tf);
	CHECK(vl0_flows(&tf));
	tf_fini(&tf);
}

TEST(lft_port0_and_bad_ports)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN], mad[SFAB_WIRE_MAD_LEN];
	struct sfab_wire_lft_block b;
	struct sfab_wire_smp r;
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	size_t n;

	/* LID 7 routed to port 0 (not the switch's LID): port 0 takes it */
	CHECK_EQ(sfab_sw_lft_set(sw, 7, 0), 0);
	n = tf_data_pkt(buf, 7, 1, 0, 0x22);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(sw->bad_mads, 1);		/* not a MAD: consumed */
	all_credits_back(&tf);
	/* a unicast MAD there reaches the PMA, which answers */
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	n = hc_mad_pkt(buf, mad, 1, 7, 1);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(sw->pma_mads, 1);
	REQUIRE(tf_last_mad(&tf, 0, &r));
	CHECK_EQ(r.mgmt_class, SFAB_MGMT_CLASS_PERF);
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	tf_node_free_all(&tf, 0);
	all_credits_back(&tf);
	/* an SM's LFT block naming a port beyond the count: refused whole */
	memset(&b, SFAB_LFT_NO_PORT, sizeof(b));
	b.port[8] = 1;
	b.port[9] = NPORTS + 1;
	CHECK_EQ(smp_set(&tf, SFAB_SMP_ATTR_LINEAR_FWD_TABLE, 0, &b, sizeof(b)),
		 SFAB_MAD_STS_INVALID_FIELD);
	CHECK_EQ(sfab_sw_lft_get(sw, 8), SFAB_LFT_NO_PORT);
	CHECK_EQ(sfab_sw_lft_set(sw, 9, NPORTS + 1), -1);
	/* an entry beyond the count however it got there: unrouted */
	sw->lft[9] = 200;
	n = tf_data_pkt(buf, 9, 1, 0, 0x33);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(sw->port[1].cnt.rcv_switch_relay_errors, 1);
	all_credits_back(&tf);
	CHECK(vl0_flows(&tf));
	tf_fini(&tf);
}
