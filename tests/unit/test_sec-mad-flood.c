/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-mad-flood: a node floods the switch's management port with PMA
 * and SMA requests and returns no credit for the answers.  The packets the
 * management port builds wait in a queue per egress port and VL of at most
 * MGMT_MAX (fabric.rst); requests beyond it are dropped and counted
 * (PortRcvErrors for GMPs, VL15Dropped for SMPs) instead of allocated.
 * The stuck port does not hold up answers to other ports, and once the
 * credit comes back the switch answers again.
 *
 *   node0 (floods, LID 1) --1[switch, LID 10]2-- node1 (LID 2)
 */
#include "harness.h"
#include "sw_fabric.h"
#include "hca_port.h"

#define SW_LID		10
#define FLOOD		2000
#define MGMT_MAX	16	/* the documented bound (fabric.rst) */

static struct sfab_sw_cfg cfg;

static struct sfab_sw *setup(struct tf *tf)
{
	struct sfab_sw *sw;
	unsigned int i;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.fc_period_ns = 100000;
	tf_init(tf);
	sw = tf_add_sw(tf, 0, &cfg);
	for (i = 0; i < 2; i++) {
		tf_add_node(tf, i, &cfg);
		tf_cable_node(tf, i, 0, i + 1);
		sfab_sw_lft_set(sw, i + 1, i + 1);
	}
	sw->lid = SW_LID;
	tf_pump(tf);
	tf_activate(tf);
	return sw;
}

static size_t pma_req(uint8_t *buf, uint16_t slid)
{
	uint8_t mad[SFAB_WIRE_MAD_LEN];

	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	return hc_mad_pkt(buf, mad, 1, SW_LID, slid);
}

static size_t sma_req(uint8_t *buf)
{
	struct sfab_wire_smp smp;

	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	return tf_smp(buf, &smp, SW_LID, 1);
}

/* node0 floods PMA Gets, one per batch, and keeps every answer's buffer */
static unsigned int pma_flood(struct tf *tf, unsigned int count)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t n = pma_req(buf, 1);
	unsigned int i, maxq = 0;

	tf->node[0].auto_free = false;
	for (i = 0; i < count; i++) {
		/* the switch frees each request at once: node0 has credit */
		if (!tf_node_send(tf, 0, buf, n))
			break;
		tf_pump(tf);
		if (tf->sw[0]->queued > maxq)
			maxq = tf->sw[0]->queued;
	}
	CHECK_EQ(i, count);
	return maxq;
}

/* node0 frees every buffer it held: the switch's credit comes back */
static void node0_returns_credit(struct tf *tf)
{
	struct tf_node *nd = &tf->node[0];
	unsigned int i;

	for (i = 0; i < nd->ninbox; i++)
		sfab_link_rx_free(&nd->link, nd->inbox[i].vl, nd->inbox[i].len);
	tf_node_free_all(tf, 0);
	nd->auto_free = true;
	tf_node_flush_fc(tf, 0);
	tf_pump(tf);
}

TEST(pma_flood_bounded)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp r;
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	unsigned int maxq, got;
	size_t n;

	maxq = pma_flood(&tf, FLOOD);
	got = tf.node[0].ninbox;
	/* node0's buffer took some answers, the rest had no credit */
	CHECK(got > 0 && got < FLOOD - MGMT_MAX);
	CHECK_EQ(sw->pma_mads, FLOOD);
	CHECK_EQ(maxq, MGMT_MAX);
	CHECK_EQ(sw->queued, MGMT_MAX);
	/* every request: answered, waiting, or dropped and counted */
	CHECK_EQ(sw->port[1].link.cnt.rcv_errors, FLOOD - got - MGMT_MAX);
	CHECK_EQ(sw->port[1].cnt.xmit_discards, 0);

	/* credit back: the waiting answers go, then the PMA answers again */
	node0_returns_credit(&tf);
	CHECK_EQ(tf.node[0].ninbox, MGMT_MAX);
	CHECK_EQ(sw->queued, 0);
	n = pma_req(buf, 1);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[0].ninbox, MGMT_MAX + 1);
	REQUIRE(tf_last_mad(&tf, 0, &r));
	CHECK_EQ(r.mgmt_class, SFAB_MGMT_CLASS_PERF);
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(sw->port[1].link.cnt.rcv_errors, FLOOD - got - MGMT_MAX);
	tf_fini(&tf);
}

TEST(stuck_port_does_not_block_others)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp r;
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	size_t n;

	pma_flood(&tf, 200);
	REQUIRE(sw->queued > 0);
	/* node1 asks the PMA: its answer leaves by port 2 at once */
	n = pma_req(buf, 2);
	REQUIRE(tf_node_send(&tf, 1, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, 1);
	REQUIRE(tf_last_mad(&tf, 1, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(sw->port[2].link.cnt.rcv_errors, 0);
	node0_returns_credit(&tf);
	CHECK_EQ(sw->queued, 0);
	tf_fini(&tf);
}

TEST(smp_flood_one_batch)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp r;
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	unsigned int i;
	size_t n;

	/*
	 * VL15 answers are not flow controlled, but they wait in the switch
	 * until sfab_sw_run(): a batch of requests that never ends (a cable
	 * that always has more to read) must not grow the queue without bound.
	 */
	n = sma_req(buf);
	sw->now = tf.now;
	for (i = 0; i < FLOOD; i++)
		sfab_sw_port_rx(sw, 1, buf, n);
	CHECK_EQ(sw->sma_mads, FLOOD);
	CHECK_EQ(sw->queued, MGMT_MAX);
	CHECK_EQ(sw->port[1].link.cnt.vl15_dropped, FLOOD - MGMT_MAX);
	tf_pump(&tf);
	CHECK_EQ(tf.node[0].ninbox, MGMT_MAX);
	CHECK_EQ(sw->queued, 0);
	/* the next batch is answered */
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[0].ninbox, MGMT_MAX + 1);
	REQUIRE(tf_last_mad(&tf, 0, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(sfab_be16_to_cpu(r.attr_id), SFAB_SMP_ATTR_NODE_INFO);
	tf_fini(&tf);
}

TEST(dr_forward_flood_one_batch)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp;
	struct tf tf;
	struct sfab_sw *sw = setup(&tf);
	unsigned int i;
	size_t n;

	/* DR SMPs node0 -> switch -> out of port 2: forwarded by port 0 */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	smp.hop_cnt = 2;
	smp.hop_ptr = 1;
	smp.initial_path[1] = 1;
	smp.initial_path[2] = 2;
	n = tf_smp(buf, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE);
	sw->now = tf.now;
	for (i = 0; i < FLOOD; i++)
		sfab_sw_port_rx(sw, 1, buf, n);
	CHECK_EQ(sw->queued, MGMT_MAX);
	CHECK_EQ(sw->port[1].link.cnt.vl15_dropped, FLOOD - MGMT_MAX);
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, MGMT_MAX);
	CHECK_EQ(sw->queued, 0);
	tf_fini(&tf);
}
