/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-sw-partition: partition enforcement in the switch (IBTA
 * 10.9.4), configured the way opensm does it: SwitchInfo says how many
 * P_Keys an external port holds, the SM writes each port's table with
 * PKeyTable (port in the attribute modifier's high half) and sets
 * PartitionEnforcementInbound/Outbound in the port's PortInfo.
 *  - inbound: a packet whose partition is not in the table of the port it
 *    came in by is dropped there (PortRcvConstraintErrors);
 *  - outbound: one whose partition is not in the egress port's table is
 *    dropped there (PortXmitConstraintErrors);
 *  - membership is not the switch's business: a limited P_Key passes a
 *    port whose table has the full one, and the other way round;
 *  - P_Key 0 and 0x8000 (invalid) never pass; raw packets pass unless
 *    FilterRawInbound/Outbound say otherwise;
 *  - SMPs (VL15) are never checked; every dropped packet's input credit
 *    comes back; the PMA reports both counters;
 *  - port 0 answers a GMP only with a P_Key in its own table
 *    (P_KeyViolations);
 *  - enforcement off: the switch forwards everything again.
 *
 *   node0 --1[switch, LID 10]2-- node1
 */
#include "harness.h"
#include "sw_fabric.h"

#define SW_LID		10
#define SRC		1
#define DST		2

static struct sfab_sw_cfg cfg;
static struct tf tf;
static struct sfab_sw *sw;

static void setup(void)
{
	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.num_data_vls = 4;
	cfg.fc_period_ns = 100000;
	tf_one_switch(&tf, &cfg, SRC, DST);
	sw = tf.sw[0];
	sw->lid = SW_LID;
}

/* node0 (the SM) sends @smp to the switch; the response status, or 0xffff */
static uint16_t sm_smp(struct sfab_wire_smp *smp, struct sfab_wire_smp *resp)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t n = tf_smp(buf, smp, SW_LID, SRC);

	tf_node_free_all(&tf, 0);
	if (!tf_node_send(&tf, 0, buf, n))
		return 0xffff;
	tf_pump(&tf);
	if (!tf_last_mad(&tf, 0, resp) ||
	    resp->method != SFAB_MAD_METHOD_GET_RESP)
		return 0xffff;
	tf_node_free_all(&tf, 0);
	return sfab_be16_to_cpu(resp->status);
}

static uint16_t set_pkeys(unsigned int port, const uint16_t *keys,
			  unsigned int n)
{
	struct sfab_wire_smp smp, r;
	uint16_t tbl[SFAB_SW_PKEYS] = { 0 };

	memcpy(tbl, keys, n * sizeof(*keys));
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
		    SFAB_SMP_ATTR_PKEY_TABLE, port << 16);
	sfab_mad_enc_pkeys(smp.data, tbl, SFAB_SW_PKEYS);
	return sm_smp(&smp, &r);
}

/* PortInfo of @port with its enforcement bits set to @bits, as opensm does */
static uint16_t set_enforce(unsigned int port, uint8_t bits)
{
	struct sfab_wire_smp smp, r;
	struct sfab_mad_port_info pi;
	uint16_t sts;

	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_PORT_INFO, port);
	sts = sm_smp(&smp, &r);
	if (sts)
		return sts;
	sfab_mad_dec_port_info(r.data, &pi);
	pi.enforce = bits;
	pi.port_state = 0;		/* no change */
	pi.phys_state = 0;
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
		    SFAB_SMP_ATTR_PORT_INFO, port);
	sfab_mad_enc_port_info(smp.data, &pi);
	sts = sm_smp(&smp, &r);
	if (sts)
		return sts;
	sfab_mad_dec_port_info(r.data, &pi);
	return pi.enforce == bits ? 0 : 0xfffe;
}

/* a UD packet node0 -> node1 with @pkey */
static size_t pkt(uint8_t *buf, uint16_t pkey)
{
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = DST, .slid = SRC, .pkey = pkey,
		.dqpn = 9, .sqpn = 9, .qkey = 1,
	};
	uint8_t pl[100];

	memset(pl, 0x3c, sizeof(pl));
	return sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl));
}

/* send @pkey's packet from node0; did node1 get it? */
static bool passes(uint16_t pkey)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int before = tf.node[1].ninbox;
	size_t n = pkt(buf, pkey);

	if (!tf_node_send(&tf, 0, buf, n))
		return false;
	tf_pump(&tf);
	return tf.node[1].ninbox == before + 1;
}

/* a raw packet (LNH 0: no BTH, no ICRC) node0 -> node1 */
static bool raw_passes(void)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int before = tf.node[1].ninbox;
	size_t n = pkt(buf, 0xffff);

	buf[1] &= ~SFAB_LRH_LNH_MASK;
	sfab_wire_reseal_vcrc(buf, n);
	if (!tf_node_send(&tf, 0, buf, n))
		return false;
	tf_pump(&tf);
	return tf.node[1].ninbox == before + 1;
}

/* PortCounters of switch port @ps through the PMA, asked with @pkey */
static bool pma_counters(uint8_t ps, uint16_t pkey,
			 struct sfab_wire_port_counters *pc)
{
	uint8_t mad[SFAB_WIRE_MAD_LEN] = { 0 }, buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_mad_hdr h = {
		.base_version = SFAB_MAD_BASE_VERSION,
		.mgmt_class = SFAB_MGMT_CLASS_PERF,
		.class_version = SFAB_PMA_CLASS_VERSION,
		.method = SFAB_MAD_METHOD_GET,
		.tid = sfab_cpu_to_be64(77),
		.attr_id = sfab_cpu_to_be16(SFAB_PMA_ATTR_PORT_COUNTERS),
	};
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = SW_LID, .slid = SRC, .pkey = pkey,
		.dqpn = 1, .sqpn = 1, .qkey = SFAB_QP1_QKEY,
	};
	struct tf_node *nd = &tf.node[0];
	struct sfab_pkt_ud r;
	size_t n;

	memcpy(mad, &h, sizeof(h));
	mad[SFAB_PMA_DATA_OFFSET + 1] = ps;
	n = sfab_link_pkt_build_ud(buf, &u, mad, sizeof(mad));
	tf_node_free_all(&tf, 0);
	if (!tf_node_send(&tf, 0, buf, n))
		return false;
	tf_pump(&tf);
	if (!nd->ninbox ||
	    !sfab_link_pkt_parse_ud(nd->inbox[nd->ninbox - 1].data,
				    nd->inbox[nd->ninbox - 1].len, &r) ||
	    r.len < SFAB_WIRE_MAD_LEN || r.dqpn != 1)
		return false;
	memcpy(pc, r.payload + SFAB_PMA_DATA_OFFSET, sizeof(*pc));
	tf_node_free_all(&tf, 0);
	return true;
}

TEST(switch_info_says_enforcement_capable)
{
	struct sfab_wire_smp smp, r;
	struct sfab_wire_switch_info si;

	setup();
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_SWITCH_INFO, 0);
	CHECK_EQ(sm_smp(&smp, &r), SFAB_MAD_STS_OK);
	memcpy(&si, r.data, sizeof(si));
	CHECK_EQ(sfab_be16_to_cpu(si.enforce_cap), SFAB_SW_PKEYS);
	CHECK_EQ(si.flags, SFAB_SWINFO_INBOUND_ENF_CAP |
		 SFAB_SWINFO_OUTBOUND_ENF_CAP | SFAB_SWINFO_FILTER_RAW_IN_CAP |
		 SFAB_SWINFO_FILTER_RAW_OUT_CAP);
	/* a table per port: port 2's Set leaves port 1's and port 0's */
	{
		const uint16_t k2[] = { 0xffff, 0x8001 };

		CHECK_EQ(set_pkeys(2, k2, 2), SFAB_MAD_STS_OK);
		CHECK_EQ(sw->port[2].pkeys[1], 0x8001);
		CHECK_EQ(sw->port[1].pkeys[1], 0);
		CHECK_EQ(sw->port[0].pkeys[1], 0);
	}
	/* past the last port, or past the one block: refused */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_PKEY_TABLE, 5 << 16);
	CHECK_EQ(sm_smp(&smp, &r), SFAB_MAD_STS_INVALID_FIELD);
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_PKEY_TABLE, 1 << 16 | 1);
	CHECK_EQ(sm_smp(&smp, &r), SFAB_MAD_STS_INVALID_FIELD);
	tf_fini(&tf);
}

TEST(inbound_and_outbound)
{
	/* node0: default, A full, L limited; node1: default, A full */
	const uint16_t k1[] = { 0xffff, 0x8001, 0x0003 };
	const uint16_t k2[] = { 0xffff, 0x8001 };
	struct sfab_wire_port_counters pc;

	setup();
	CHECK_EQ(set_pkeys(1, k1, 3), SFAB_MAD_STS_OK);
	CHECK_EQ(set_pkeys(2, k2, 2), SFAB_MAD_STS_OK);
	/* before enforcement is on, anything goes */
	CHECK(passes(0x8002));
	CHECK_EQ(set_enforce(1, SFAB_PI_ENF_IN | SFAB_PI_ENF_OUT), 0);
	CHECK_EQ(set_enforce(2, SFAB_PI_ENF_IN | SFAB_PI_ENF_OUT), 0);

	CHECK(passes(0x8001));
	CHECK(passes(0xffff));
	/* B: not in node0's port table, dropped coming in */
	CHECK(!passes(0x8002));
	CHECK_EQ(sw->port[1].cnt.rcv_constraint_errors, 1);
	CHECK_EQ(sw->port[2].cnt.xmit_constraint_errors, 0);
	/* L: in node0's port table, not node1's: dropped going out */
	CHECK(!passes(0x0003));
	CHECK_EQ(sw->port[1].cnt.rcv_constraint_errors, 1);
	CHECK_EQ(sw->port[2].cnt.xmit_constraint_errors, 1);
	/* membership is the endpoints' check: limited A passes full tables */
	CHECK(passes(0x0001));
	/* ... and full L passes node0's limited entry, then stops at port 2 */
	CHECK(!passes(0x8003));
	CHECK_EQ(sw->port[2].cnt.xmit_constraint_errors, 2);
	/* invalid P_Keys never pass, even with 0 entries in the table */
	CHECK(!passes(0x0000));
	CHECK(!passes(0x8000));
	CHECK_EQ(sw->port[1].cnt.rcv_constraint_errors, 3);
	/* none of it counted as a routing failure or held anywhere */
	CHECK_EQ(sw->port[1].cnt.rcv_switch_relay_errors, 0);
	CHECK_EQ(sw->no_route, 0);
	CHECK_EQ(sw->queued, 0);
	CHECK_EQ(sw->port[1].link.vl[0].used, 0);
	/* the PMA reports both, asked in the default partition */
	REQUIRE(pma_counters(1, 0xffff, &pc));
	CHECK_EQ(pc.port_rcv_constraint_errors, 3);
	REQUIRE(pma_counters(2, 0xffff, &pc));
	CHECK_EQ(pc.port_xmit_constraint_errors, 2);

	/* enforcement off again: B goes through */
	CHECK_EQ(set_enforce(1, 0), 0);
	CHECK_EQ(set_enforce(2, 0), 0);
	CHECK(passes(0x8002));
	tf_fini(&tf);
}

TEST(smps_are_never_checked)
{
	const uint16_t none[] = { 0x8001 };
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp;
	unsigned int before;
	size_t n;

	setup();
	/* neither port has the default partition */
	CHECK_EQ(set_pkeys(1, none, 1), SFAB_MAD_STS_OK);
	CHECK_EQ(set_pkeys(2, none, 1), SFAB_MAD_STS_OK);
	CHECK_EQ(set_enforce(1, SFAB_PI_ENF_IN | SFAB_PI_ENF_OUT), 0);
	CHECK_EQ(set_enforce(2, SFAB_PI_ENF_IN | SFAB_PI_ENF_OUT), 0);
	CHECK(!passes(0xffff));
	/* an SMP (P_Key 0xffff, VL15) node0 -> node1 still gets through */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	n = tf_smp(buf, &smp, DST, SRC);
	before = tf.node[1].ninbox;
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, before + 1);
	CHECK_EQ(tf.node[1].inbox[before].vl, SFAB_VL15);
	tf_fini(&tf);
}

TEST(raw_packets_filtered_only_when_asked)
{
	setup();
	/* enforcement alone: a raw packet has no P_Key to check */
	CHECK_EQ(set_enforce(1, SFAB_PI_ENF_IN | SFAB_PI_ENF_OUT), 0);
	CHECK_EQ(set_enforce(2, SFAB_PI_ENF_IN | SFAB_PI_ENF_OUT), 0);
	CHECK(raw_passes());
	/* FilterRawOutbound on node1's port */
	CHECK_EQ(set_enforce(2, SFAB_PI_ENF_IN | SFAB_PI_ENF_OUT |
			     SFAB_PI_FILTER_RAW_OUT), 0);
	CHECK(!raw_passes());
	CHECK_EQ(sw->port[2].cnt.xmit_constraint_errors, 1);
	/* FilterRawInbound on node0's port */
	CHECK_EQ(set_enforce(1, SFAB_PI_FILTER_RAW_IN), 0);
	CHECK(!raw_passes());
	CHECK_EQ(sw->port[1].cnt.rcv_constraint_errors, 1);
	/* the raw filters leave IBA packets alone */
	CHECK(passes(0xffff));
	CHECK_EQ(sw->queued, 0);
	tf_fini(&tf);
}

TEST(port0_checks_gmp_pkeys)
{
	const uint16_t k0[] = { 0xffff, 0x0005 };
	struct sfab_wire_port_counters pc;
	struct sfab_wire_smp smp, r;
	struct sfab_mad_port_info pi;

	setup();
	CHECK_EQ(set_pkeys(0, k0, 2), SFAB_MAD_STS_OK);
	CHECK(pma_counters(1, 0xffff, &pc));
	/* not in port 0's table: no answer, counted */
	CHECK(!pma_counters(1, 0x8006, &pc));
	/* port 0 is a limited member of 5: a limited GMP gets nothing */
	CHECK(!pma_counters(1, 0x0005, &pc));
	CHECK(pma_counters(1, 0x8005, &pc));
	CHECK_EQ(sw->pkey_violations, 2);
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_PORT_INFO, 0);
	CHECK_EQ(sm_smp(&smp, &r), SFAB_MAD_STS_OK);
	sfab_mad_dec_port_info(r.data, &pi);
	CHECK_EQ(pi.pkey_violations, 2);
	tf_fini(&tf);
}
