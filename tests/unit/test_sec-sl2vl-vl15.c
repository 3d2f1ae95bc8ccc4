/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-sl2vl-vl15: a data packet whose SL the SLtoVL table maps to
 * VL15 at its egress port is dropped (VL15 in the table means "drop this
 * SL"), not sent on VL15: VL15 is never flow controlled, so a node whose
 * SL maps there would otherwise reach its peer's small management buffer
 * at the rate of its input credit, and its data would arrive as
 * management traffic.  The drop is counted in PortXmitDiscards at the
 * egress port, the input credit comes back, the other SLs and real VL15
 * traffic (SMPs) go on.  Found by fuzz/switch.
 *
 *   node0 --1[switch, LID 10]2-- node1
 */
#include "harness.h"
#include "sw_fabric.h"

#define SW_LID		10
#define SRC		1
#define DST		2
/* more packets than node0's credit on VL0 covers several times over */
#define MANY		200

static struct sfab_sw_cfg cfg;

static struct sfab_sw *setup(struct tf *tf)
{
	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.num_data_vls = 4;
	cfg.fc_period_ns = 100000;
	tf_one_switch(tf, &cfg, SRC, DST);
	tf->sw[0]->lid = SW_LID;
	return tf->sw[0];
}

/* node0 as an SM: SLtoVL of in port 1 to out port 2, SL 1 to VL15 */
static uint16_t set_sl2vl(struct tf *tf)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN], map[16];
	struct sfab_wire_smp smp, r;
	unsigned int sl;
	size_t n;

	for (sl = 0; sl < 16; sl++)
		map[sl] = sl < cfg.num_data_vls ? sl : 0;
	map[1] = SFAB_VL15;
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
		    SFAB_SMP_ATTR_SL_TO_VL_TABLE, 1 << 8 | 2);
	sfab_mad_enc_sl2vl(smp.data, map);
	n = tf_smp(buf, &smp, SW_LID, SRC);
	if (!tf_node_send(tf, 0, buf, n))
		return 0xffff;
	tf_pump(tf);
	if (!tf_last_mad(tf, 0, &r) || r.method != SFAB_MAD_METHOD_GET_RESP)
		return 0xffff;
	tf_node_free_all(tf, 0);
	return sfab_be16_to_cpu(r.status);
}

/* a UD data packet of 200 bytes on VL0 with SL @sl */
static size_t data_pkt(uint8_t *buf, unsigned int sl)
{
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = sl, .dlid = DST, .slid = SRC, .pkey = 0xffff,
		.dqpn = 9, .sqpn = 9, .qkey = 1,
	};
	uint8_t pl[200];

	memset(pl, 0x5a, sizeof(pl));
	return sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl));
}

TEST(sl_mapped_to_vl15_is_dropped)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp;
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	unsigned int i;
	size_t n;

	CHECK_EQ(set_sl2vl(&tf), SFAB_MAD_STS_OK);
	CHECK_EQ(sfab_sw_sl2vl(sw, 1, 2)[1], SFAB_VL15);
	/* SL 1 on VL0, many more than the credit: each one finds credit */
	n = data_pkt(buf, 1);
	for (i = 0; i < MANY; i++) {
		REQUIRE(tf_node_send(&tf, 0, buf, n));
		tf_pump(&tf);
	}
	/* none arrived, as data or as management traffic */
	CHECK_EQ(tf.node[1].ninbox, 0);
	CHECK_EQ(tf.node[1].link.cnt.rcv_pkts, 0);
	CHECK_EQ(tf.node[1].link.cnt.vl15_dropped, 0);
	CHECK_EQ(sw->port[2].link.cnt.xmit_pkts, 0);
	CHECK_EQ(sw->port[2].cnt.xmit_discards, MANY);
	/* everything the switch took in it let go */
	CHECK_EQ(sw->queued, 0);
	CHECK_EQ(sw->port[1].link.vl[0].used, 0);
	tf_refresh(&tf);
	CHECK_EQ(sfab_link_tx_credits(&tf.node[0].link, 0), cfg.vl_blocks);
	/* SL 0 still flows, and so does an SMP on VL15 */
	n = data_pkt(buf, 0);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, 1);
	CHECK_EQ(tf.node[1].inbox[0].vl, 0);
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	n = tf_smp(buf, &smp, DST, SRC);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, 2);
	CHECK_EQ(tf.node[1].inbox[1].vl, SFAB_VL15);
	tf_fini(&tf);
}
