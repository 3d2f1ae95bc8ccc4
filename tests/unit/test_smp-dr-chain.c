/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/smp-dr-chain: directed-route SMPs through a chain of three in-memory
 * switches (IBTA 14.2.2): hop pointer, return path, the response's way
 * back; then the same switch reached LID-routed once it has a LID and the
 * chain has forwarding tables.
 *
 *   node0 --1[A]2-- 3[B]4 -- 5[C]
 */
#include "harness.h"
#include "sw_fabric.h"

static struct sfab_sw_cfg cfg;

static void setup(struct tf *tf)
{
	sfab_sw_default_cfg(&cfg);
	cfg.nports = 8;
	cfg.fc_period_ns = 100000;
	tf_init(tf);
	cfg.node_guid = 0xa0;
	tf_add_sw(tf, 0, &cfg);
	cfg.node_guid = 0xb0;
	tf_add_sw(tf, 1, &cfg);
	cfg.node_guid = 0xc0;
	strcpy(cfg.desc, "switch C");
	tf_add_sw(tf, 2, &cfg);
	tf_add_node(tf, 0, &cfg);
	tf_cable_node(tf, 0, 0, 1);
	tf_cable_sw(tf, 0, 2, 1, 3);
	tf_cable_sw(tf, 1, 4, 2, 5);
	tf_pump(tf);
}

/* node0 sends a DR SMP along @path (hop count @hc); return the response */
static bool dr_query(struct tf *tf, uint8_t method, uint16_t attr, uint32_t mod,
		     const uint8_t *path, unsigned int hc, const void *data,
		     struct sfab_wire_smp *resp)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp;
	unsigned int before = tf->node[0].ninbox, i;
	size_t n;

	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, method, attr, mod);
	smp.hop_cnt = hc;
	for (i = 1; i <= hc; i++)
		smp.initial_path[i] = path[i];
	if (data)
		memcpy(smp.data, data, SFAB_SMP_DATA_LEN);
	smp.hop_ptr = 1;		/* C14-9:1, done by the sending node */
	n = tf_smp(buf, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE);
	if (!tf_node_send(tf, 0, buf, n))
		return false;
	tf_pump(tf);
	if (tf->node[0].ninbox != before + 1)
		return false;
	return tf_last_mad(tf, 0, resp);
}

TEST(node_info_three_hops)
{
	static const uint8_t path[] = { 0, 1, 2, 4 };
	struct sfab_wire_node_info ni;
	struct sfab_wire_smp r;
	struct tf tf;

	setup(&tf);
	CHECK_EQ(tf.node[0].link.state, SFAB_PORT_INIT);	/* SMPs need only Init */
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
			 path, 3, NULL, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	CHECK_EQ(r.hop_cnt, 3);
	CHECK_EQ(r.hop_ptr, 1);		/* node0 decrements it to 0 */
	CHECK_EQ(r.return_path[1], 1);	/* A's port towards node0 */
	CHECK_EQ(r.return_path[2], 3);	/* B's port towards A */
	CHECK_EQ(r.return_path[3], 5);	/* C's port towards B */
	CHECK_EQ(sfab_be64_to_cpu(r.tid), 0x1234);
	memcpy(&ni, r.data, sizeof(ni));
	CHECK_EQ(ni.node_type, SFAB_NODE_TYPE_SWITCH);
	CHECK_EQ(ni.num_ports, 8);
	CHECK_EQ(sfab_be64_to_cpu(ni.node_guid), 0xc0);
	CHECK_EQ(ni.local_port_num, 5);
	CHECK_EQ(tf.sw[0]->dr_forwarded, 2);	/* out and back */
	CHECK_EQ(tf.sw[1]->dr_forwarded, 2);
	CHECK_EQ(tf.sw[2]->sma_mads, 1);
	CHECK(tf.node[0].inbox[0].vl == SFAB_VL15);
	tf_fini(&tf);
}

TEST(each_hop_and_node_desc)
{
	static const uint8_t path[] = { 0, 1, 2, 4 };
	struct sfab_wire_node_info ni;
	struct sfab_wire_smp r;
	struct tf tf;

	setup(&tf);
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
			 path, 1, NULL, &r));
	memcpy(&ni, r.data, sizeof(ni));
	CHECK_EQ(sfab_be64_to_cpu(ni.node_guid), 0xa0);
	CHECK_EQ(ni.local_port_num, 1);
	CHECK_EQ(r.return_path[1], 1);
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
			 path, 2, NULL, &r));
	memcpy(&ni, r.data, sizeof(ni));
	CHECK_EQ(sfab_be64_to_cpu(ni.node_guid), 0xb0);
	CHECK_EQ(ni.local_port_num, 3);
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_DESC, 0,
			 path, 3, NULL, &r));
	CHECK(!strcmp((const char *)r.data, "switch C"));
	tf_fini(&tf);
}

TEST(bad_paths_dropped)
{
	static const uint8_t bad[] = { 0, 1, 99, 4 };	/* A has no port 99 */
	static const uint8_t dead[] = { 0, 1, 7, 4 };	/* A port 7: no cable */
	struct sfab_wire_smp r;
	struct tf tf;

	setup(&tf);
	CHECK(!dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
			bad, 3, NULL, &r));
	CHECK_EQ(tf.sw[0]->bad_mads, 1);
	CHECK(!dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
			dead, 3, NULL, &r));
	CHECK_EQ(tf.sw[0]->port[7].cnt.xmit_discards, 1);
	CHECK_EQ(tf.sw[1]->sma_mads + tf.sw[2]->sma_mads, 0);
	tf_fini(&tf);
}

TEST(malformed_smp_status)
{
	static const uint8_t path[] = { 0, 1, 2, 4 };
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp, r;
	struct tf tf;
	size_t n;

	setup(&tf);
	/* unknown attribute */
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, 0x0099, 0, path, 2, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION | SFAB_MAD_STS_UNSUP_METH_ATTR);
	/* Set of a read-only attribute */
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_NODE_INFO, 0,
			 path, 2, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION | SFAB_MAD_STS_UNSUP_METH_ATTR);
	/* unsupported method */
	REQUIRE(dr_query(&tf, 0x03, SFAB_SMP_ATTR_NODE_INFO, 0, path, 2, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION | SFAB_MAD_STS_UNSUP_METHOD);
	/* out-of-range modifiers */
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_PORT_INFO, 9,
			 path, 2, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION | SFAB_MAD_STS_INVALID_FIELD);
	/*
	 * bit 31 (the SM supports extended speeds, as opensm sends it) is
	 * not a port number: port 2 is answered, 0x80000009 is still port 9
	 */
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_PORT_INFO,
			 2, path, 2, NULL, &r));
	memcpy(buf, r.data, sizeof(r.data));
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_PORT_INFO,
			 0x80000002, path, 2, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	CHECK(!memcmp(buf, r.data, sizeof(r.data)));
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_PORT_INFO,
			 0x80000009, path, 2, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION | SFAB_MAD_STS_INVALID_FIELD);
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_LINEAR_FWD_TABLE,
			 SFAB_SW_LFT_CAP / 64, path, 2, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION | SFAB_MAD_STS_INVALID_FIELD);
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_VL_ARB_TABLE,
			 (5 << 16) | 1, path, 2, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION | SFAB_MAD_STS_INVALID_FIELD);
	/* bad class version */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	smp.class_version = 2;
	smp.hop_cnt = 1;
	smp.hop_ptr = 1;
	smp.initial_path[1] = 1;
	n = tf_smp(buf, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	REQUIRE(tf_last_mad(&tf, 0, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION | SFAB_MAD_STS_BAD_VERSION);
	/* a response sent to the SMA is not answered */
	smp.class_version = 1;
	smp.method = SFAB_MAD_METHOD_GET_RESP;
	n = tf_smp(buf, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	n = tf.node[0].ninbox;
	tf_pump(&tf);
	CHECK_EQ(tf.node[0].ninbox, n);
	tf_fini(&tf);
}

TEST(lid_routed_after_sweep)
{
	static const uint8_t path[] = { 0, 1, 2, 4 };
	struct sfab_wire_port_info pi;
	struct sfab_wire_lft_block lft;
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_node_info ni;
	struct sfab_wire_smp smp, r;
	struct tf tf;
	size_t n;

	setup(&tf);
	/* what an SM does: LID 3 for C (port 0), LFTs towards node0 (LID 1) */
	memset(&pi, 0, sizeof(pi));
	pi.lid = sfab_cpu_to_be16(3);
	pi.sm_lid = sfab_cpu_to_be16(1);
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 0,
			 path, 3, &pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	memcpy(&pi, r.data, sizeof(pi));
	CHECK_EQ(sfab_be16_to_cpu(pi.lid), 3);
	CHECK_EQ(tf.sw[2]->lid, 3);
	memset(&lft, SFAB_LFT_NO_PORT, sizeof(lft));
	lft.port[1] = 1;		/* A: LID 1 -> port 1 */
	lft.port[3] = 2;
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_LINEAR_FWD_TABLE,
			 0, path, 1, &lft, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	lft.port[1] = 3;		/* B */
	lft.port[3] = 4;
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_LINEAR_FWD_TABLE,
			 0, path, 2, &lft, &r));
	lft.port[1] = 5;		/* C */
	lft.port[3] = 0;
	REQUIRE(dr_query(&tf, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_LINEAR_FWD_TABLE,
			 0, path, 3, &lft, &r));
	memcpy(&lft, r.data, sizeof(lft));
	CHECK_EQ(lft.port[1], 5);
	CHECK_EQ(lft.port[2], SFAB_LFT_NO_PORT);

	/* now LID-routed: node0 (LID 1) -> C (LID 3) and back */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	n = tf_smp(buf, &smp, 3, 1);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	n = tf.node[0].ninbox;
	tf_pump(&tf);
	REQUIRE(tf.node[0].ninbox == n + 1);
	REQUIRE(tf_last_mad(&tf, 0, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(sfab_be16_to_cpu(r.status), 0);
	memcpy(&ni, r.data, sizeof(ni));
	CHECK_EQ(sfab_be64_to_cpu(ni.node_guid), 0xc0);
	CHECK_EQ(ni.local_port_num, 5);
	CHECK_EQ(sfab_link_pkt_slid(tf.node[0].inbox[n].data), 3);
	CHECK_EQ(sfab_link_pkt_dlid(tf.node[0].inbox[n].data), 1);
	tf_fini(&tf);
}
