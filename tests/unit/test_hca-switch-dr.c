/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/hca-switch-dr: the engine's port cabled, in memory, to a switch from
 * qemu-model/switch.  A test SM on node0 reaches the HCA by directed route
 * through the switch and back, gives the switch and the HCA their LIDs,
 * programs the switch's LFT, brings the ports to Active, and then reaches
 * the HCA's SMA and PMA LID-routed.
 *
 *   node0 (SM, LID 1) --1[switch, LID 2]3-- HCA (LID 3)
 */
#include "harness.h"
#include "sw_fabric.h"
#include "hca_port.h"

#define HCA_PORT	3

static struct tf *cur_tf;

static void hca_tx(void *opaque, const uint8_t *f, size_t len)
{
	(void)opaque;
	tf_send(cur_tf, (struct tf_end){ 0, HCA_PORT }, f, len);
}

static void hca_rx(void *opaque, unsigned int idx, const uint8_t *f, size_t len)
{
	struct hca_cable *c = opaque;

	(void)idx;
	sfab_engine_cable_rx(c->h->e, f, len);
}

static struct hca_cable *setup(struct tf *tf)
{
	struct sfab_sw_cfg cfg;
	struct hca_cable *c;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.num_data_vls = 4;
	cfg.fc_period_ns = 100000;
	cfg.node_guid = 0xa0;
	tf_init(tf);
	cur_tf = tf;
	tf_add_sw(tf, 0, &cfg);
	tf_add_node(tf, 0, &cfg);
	tf_cable_node(tf, 0, 0, 1);

	c = hc_new(true);
	hc_ops.cable_tx = hca_tx;
	tf->ext_rx = hca_rx;
	tf->ext_opaque = c;
	tf_cable_ext(tf, 0, 0, HCA_PORT);
	sfab_engine_cable_up(c->h->e);
	tf_pump(tf);
	return c;
}

static void teardown(struct tf *tf, struct hca_cable *c)
{
	tf_fini(tf);
	hc_free(c);
}

/* node0 sends an SMP; the one MAD it got back */
static bool smp_query(struct tf *tf, struct sfab_wire_smp *smp, uint16_t dlid,
		      struct sfab_wire_smp *resp, struct sfab_pkt_ud *u)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int before = tf->node[0].ninbox;
	size_t n = tf_smp(buf, smp, dlid, dlid == SFAB_LID_PERMISSIVE ?
			  SFAB_LID_PERMISSIVE : 1);

	if (!tf_node_send(tf, 0, buf, n))
		return false;
	tf_pump(tf);
	if (tf->node[0].ninbox != before + 1 || !tf_last_mad(tf, 0, resp))
		return false;
	if (u)
		sfab_link_pkt_parse_ud(tf->node[0].inbox[before].data,
				       tf->node[0].inbox[before].len, u);
	return true;
}

/* a DR SMP from node0: to the switch (@hc 1) or through it to the HCA (2) */
static bool dr(struct tf *tf, unsigned int hc, uint8_t method, uint16_t attr,
	       uint32_t mod, const void *data, struct sfab_wire_smp *resp)
{
	struct sfab_wire_smp smp;

	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, method, attr, mod);
	smp.hop_cnt = hc;
	smp.initial_path[1] = 1;
	smp.initial_path[2] = HCA_PORT;
	smp.hop_ptr = 1;
	if (data)
		memcpy(smp.data, data, SFAB_SMP_DATA_LEN);
	if (!smp_query(tf, &smp, SFAB_LID_PERMISSIVE, resp, NULL))
		return false;
	return (sfab_be16_to_cpu(resp->status) & 0x7fff) == 0;
}

TEST(dr_through_switch)
{
	struct sfab_wire_node_info ni;
	struct sfab_wire_smp r;
	struct hca_cable *c;
	struct tf tf;

	c = setup(&tf);
	CHECK_EQ(c->h->e->port.link.phys, SFAB_PHYS_LINKUP);
	CHECK_EQ(c->h->e->port.link.state, SFAB_PORT_INIT);
	CHECK_EQ(tf.sw[0]->port[HCA_PORT].link.phys, SFAB_PHYS_LINKUP);

	REQUIRE(dr(&tf, 2, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
		   NULL, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	CHECK_EQ(r.hop_cnt, 2);
	CHECK_EQ(r.hop_ptr, 1);		/* node0 decrements it to 0 */
	CHECK_EQ(r.return_path[1], 1);	/* the switch's port towards node0 */
	CHECK_EQ(r.return_path[2], 1);	/* the HCA's port */
	memcpy(&ni, r.data, sizeof(ni));
	CHECK_EQ(ni.node_type, SFAB_NODE_TYPE_CA);
	CHECK_EQ(sfab_be64_to_cpu(ni.node_guid), HOST_NODE_GUID);
	CHECK_EQ(sfab_be64_to_cpu(ni.port_guid), HOST_NODE_GUID + 1);
	CHECK_EQ(ni.local_port_num, 1);
	CHECK_EQ(c->h->e->stats.sma_mads, 1);

	/* and the switch itself, one hop: a switch */
	REQUIRE(dr(&tf, 1, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
		   NULL, &r));
	memcpy(&ni, r.data, sizeof(ni));
	CHECK_EQ(ni.node_type, SFAB_NODE_TYPE_SWITCH);
	CHECK_EQ(ni.local_port_num, 1);
	teardown(&tf, c);
}

static void set_state(struct tf *tf, struct sfab_wire_port_info *pi,
		      enum sfab_port_state st)
{
	struct sfab_wire_smp r;

	pi->speed_supp_state = (pi->speed_supp_state & 0xf0) | st;
	pi->phys_state_down_def &= 0x0f;
	CHECK(dr(tf, 2, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1, pi, &r));
	memcpy(pi, r.data, sizeof(*pi));
	if (st != SFAB_PORT_NOP)
		CHECK_EQ(pi->speed_supp_state & 15, st);
}

TEST(sweep_then_lid_routed)
{
	uint8_t mad[SFAB_WIRE_MAD_LEN], buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_port_counters pc;
	struct sfab_wire_lft_block lft;
	struct sfab_wire_port_info pi;
	struct sfab_aenq_entry ev;
	struct sfab_port_attr a;
	struct sfab_wire_smp smp, r;
	struct sfab_pkt_ud u;
	struct hca_cable *c;
	struct tf tf;
	size_t n;

	c = setup(&tf);
	/* the switch: LID 2 on port 0 */
	REQUIRE(dr(&tf, 1, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_PORT_INFO, 0,
		   NULL, &r));
	memcpy(&pi, r.data, sizeof(pi));
	pi.lid = sfab_cpu_to_be16(2);
	pi.sm_lid = sfab_cpu_to_be16(1);
	pi.speed_supp_state &= 0xf0;
	pi.phys_state_down_def &= 0x0f;
	REQUIRE(dr(&tf, 1, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 0,
		   &pi, &r));
	/* its LFT: LID 1 -> port 1, 2 -> 0, 3 -> the HCA's port */
	memset(&lft, SFAB_LFT_NO_PORT, sizeof(lft));
	lft.port[1] = 1;
	lft.port[2] = 0;
	lft.port[3] = HCA_PORT;
	REQUIRE(dr(&tf, 1, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_LINEAR_FWD_TABLE,
		   0, &lft, &r));
	CHECK_EQ(sfab_sw_lft_get(tf.sw[0], 3), HCA_PORT);

	/* the HCA: LID 3, SM LID 1, then Armed and Active */
	REQUIRE(dr(&tf, 2, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_PORT_INFO, 1,
		   NULL, &r));
	memcpy(&pi, r.data, sizeof(pi));
	CHECK_EQ(pi.speed_supp_state & 15, SFAB_PORT_INIT);
	pi.lid = sfab_cpu_to_be16(3);
	pi.sm_lid = sfab_cpu_to_be16(1);
	set_state(&tf, &pi, SFAB_PORT_NOP);
	CHECK_EQ(sfab_be16_to_cpu(pi.lid), 3);
	REQUIRE(hc_event(c, SFAB_AENQ_LID_CHANGE, &ev));
	CHECK_EQ(sfab_le64_to_cpu(ev.data1), 3);
	REQUIRE(hc_event(c, SFAB_AENQ_SM_CHANGE, &ev));
	CHECK_EQ(sfab_le64_to_cpu(ev.data1), 1);

	tf_activate(&tf);		/* the switch's ports and node0 */
	set_state(&tf, &pi, SFAB_PORT_ARMED);
	set_state(&tf, &pi, SFAB_PORT_ACTIVE);
	CHECK_EQ(hc_query_port(c, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(a.state, SFAB_PORT_ACTIVE);
	CHECK_EQ(a.phys_state, SFAB_PHYS_LINKUP);
	CHECK_EQ(sfab_le16_to_cpu(a.lid), 3);
	CHECK_EQ(sfab_le16_to_cpu(a.sm_lid), 1);
	REQUIRE(hc_event(c, SFAB_AENQ_PORT_CHANGE, &ev));
	CHECK_EQ(sfab_le64_to_cpu(ev.data1),
		 port_change_data(SFAB_PORT_ARMED, SFAB_PHYS_LINKUP));
	REQUIRE(hc_event(c, SFAB_AENQ_PORT_CHANGE, &ev));
	CHECK_EQ(sfab_le64_to_cpu(ev.data1),
		 port_change_data(SFAB_PORT_ACTIVE, SFAB_PHYS_LINKUP));

	/* LID-routed SMP to LID 3: NodeDescription, answered from LID 3 */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_DESC, 0);
	REQUIRE(smp_query(&tf, &smp, 3, &r, &u));
	CHECK_EQ(sfab_be16_to_cpu(r.status), 0);
	CHECK(!memcmp(r.data, "sfab HCA ", 9));
	CHECK_EQ(u.slid, 3);
	CHECK_EQ(u.dlid, 1);
	/* and to the switch, LID 2 */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	REQUIRE(smp_query(&tf, &smp, 2, &r, &u));
	CHECK_EQ(r.data[2], SFAB_NODE_TYPE_SWITCH);

	/* the HCA's PMA, LID-routed on QP1 over VL0 */
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	n = hc_mad_pkt(buf, mad, 1, 3, 1);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	REQUIRE(tf_last_mad(&tf, 0, (struct sfab_wire_smp *)mad));
	CHECK_EQ(mad[1], SFAB_MGMT_CLASS_PERF);
	CHECK_EQ(mad[3], SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(mad[4] | mad[5], 0);
	memcpy(&pc, mad + SFAB_PMA_DATA_OFFSET, sizeof(pc));
	/* the HCA has received every SMP above plus this GMP */
	CHECK(sfab_be32_to_cpu(pc.port_rcv_packets) >= 6);
	CHECK_EQ(sfab_be16_to_cpu(pc.port_rcv_errors), 0);
	CHECK_EQ(sfab_be16_to_cpu(pc.port_xmit_discards), 0);
	CHECK_EQ(c->h->e->stats.pma_mads, 1);
	CHECK_EQ(tf.sw[0]->port[HCA_PORT].link.cnt.rcv_errors, 0);
	CHECK_EQ(c->h->e->port.link.cnt.rcv_errors, 0);
	teardown(&tf, c);
}
