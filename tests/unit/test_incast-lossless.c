/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/incast-lossless: four senders blast one receiver through one switch
 * whose buffers are barely one packet deep, and the receiver drains slowly.
 * Nothing is lost: PortXmitDiscards and PortRcvErrors stay 0 everywhere,
 * PortXmitWait on the receiver's port is > 0 (credit stalls happened), and
 * every message arrives intact (checksummed) and in order per sender.
 * The PMA is read with real PortCounters MADs at the end.
 */
#include "harness.h"
#include "sw_fabric.h"

#define SENDERS		4
#define MSGS		200
#define MSG_LEN		1500
#define RX		SENDERS		/* receiver node index */
#define SW_LID		100

static struct sfab_sw_cfg cfg;

static size_t make_msg(uint8_t *buf, unsigned int s, uint32_t seq)
{
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = 1 + RX, .slid = 1 + s, .pkey = 0xffff,
		.dqpn = 17, .sqpn = 18, .qkey = 5, .psn = seq,
	};
	uint8_t pl[MSG_LEN];
	uint32_t crc, i;

	pl[0] = s;
	memcpy(pl + 1, &seq, 4);
	for (i = 5; i < MSG_LEN - 4; i++)
		pl[i] = (uint8_t)(i * 31 + seq * 7 + s);
	crc = sfab_wire_crc32(0, pl, MSG_LEN - 4);
	memcpy(pl + MSG_LEN - 4, &crc, 4);
	return sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl));
}

static bool pma_query(struct tf *tf, unsigned int port,
		      struct sfab_wire_port_counters *pc)
{
	uint8_t mad[SFAB_WIRE_MAD_LEN] = { 0 }, buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_mad_hdr h = {
		.base_version = 1, .mgmt_class = SFAB_MGMT_CLASS_PERF,
		.class_version = 1, .method = SFAB_MAD_METHOD_GET,
		.attr_id = sfab_cpu_to_be16(SFAB_PMA_ATTR_PORT_COUNTERS),
	};
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = SW_LID, .slid = 1, .pkey = 0xffff,
		.dqpn = 1, .sqpn = 1, .qkey = SFAB_QP1_QKEY,
	};
	struct tf_node *nd = &tf->node[0];
	struct sfab_pkt_ud r;
	unsigned int before = nd->ninbox;
	size_t n;

	memcpy(mad, &h, sizeof(h));
	mad[SFAB_PMA_DATA_OFFSET + 1] = port;
	n = sfab_link_pkt_build_ud(buf, &u, mad, sizeof(mad));
	if (!tf_node_send(tf, 0, buf, n))
		return false;
	tf_pump(tf);
	if (nd->ninbox != before + 1 ||
	    !sfab_link_pkt_parse_ud(nd->inbox[before].data, nd->inbox[before].len, &r))
		return false;
	memcpy(&h, r.payload, sizeof(h));
	if (h.method != SFAB_MAD_METHOD_GET_RESP || h.status)
		return false;
	memcpy(pc, r.payload + SFAB_PMA_DATA_OFFSET, sizeof(*pc));
	return true;
}

TEST(incast)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	uint32_t next_seq[SENDERS] = { 0 }, expect[SENDERS] = { 0 };
	struct sfab_wire_port_counters pc;
	unsigned int s, p, freed = 0, rounds = 0, good = 0, bad = 0;
	struct sfab_sw *sw;
	struct tf_node *rx;
	struct tf tf;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 6;
	cfg.vl_blocks = 72;		/* one 4 KiB-MTU packet, a few 1.5 KiB ones */
	cfg.fc_period_ns = 5000;
	tf_init(&tf);
	sw = tf_add_sw(&tf, 0, &cfg);
	REQUIRE(sw);
	for (s = 0; s <= RX; s++) {
		tf_add_node(&tf, s, &cfg);
		tf_cable_node(&tf, s, 0, s + 1);
		sfab_sw_lft_set(sw, s + 1, s + 1);
	}
	tf_pump(&tf);
	tf_activate(&tf);
	sw->lid = SW_LID;
	rx = &tf.node[RX];
	rx->auto_free = false;

	while (good + bad < SENDERS * MSGS && rounds < 100000) {
		rounds++;
		tf.now += 50;
		for (s = 0; s < SENDERS; s++) {
			size_t n;

			if (next_seq[s] == MSGS)
				continue;
			n = make_msg(buf, s, next_seq[s]);
			if (tf_node_send(&tf, s, buf, n))
				next_seq[s]++;
		}
		tf_pump_n(&tf, 8);
		/* the receiver takes one message every other round */
		if ((rounds & 1) && freed < rx->ninbox) {
			struct sfab_pkt_ud u;
			uint32_t crc, seq;

			if (sfab_link_pkt_parse_ud(rx->inbox[freed].data,
						   rx->inbox[freed].len, &u) &&
			    u.len == MSG_LEN) {
				memcpy(&crc, u.payload + MSG_LEN - 4, 4);
				memcpy(&seq, u.payload + 1, 4);
				s = u.payload[0];
				if (s < SENDERS && seq == expect[s] &&
				    crc == sfab_wire_crc32(0, u.payload, MSG_LEN - 4)) {
					expect[s]++;
					good++;
				} else {
					bad++;
				}
			} else {
				bad++;
			}
			sfab_link_rx_free(&rx->link, rx->inbox[freed].vl,
					  rx->inbox[freed].len);
			tf_node_flush_fc(&tf, RX);
			freed++;
		}
	}
	tf_pump(&tf);
	CHECK_EQ(good, SENDERS * MSGS);
	CHECK_EQ(bad, 0);
	for (s = 0; s < SENDERS; s++)
		CHECK_EQ(expect[s], MSGS);
	CHECK_EQ(sw->queued, 0);
	for (p = 1; p <= RX + 1; p++) {
		struct sfab_link_counters lc;
		struct sfab_sw_port_cnt sc;

		sfab_sw_pma_counters(sw, p, &lc, &sc);
		CHECK_EQ(sc.xmit_discards, 0);
		CHECK_EQ(lc.rcv_errors, 0);
		CHECK_EQ(lc.excessive_buffer_overrun, 0);
		CHECK_EQ(tf.node[p - 1].link.cnt.rcv_errors, 0);
	}
	/* the receiver's port waited for credit */
	CHECK(sw->port[RX + 1].cnt.xmit_wait > 0);
	CHECK_EQ(sw->port[RX + 1].link.cnt.xmit_pkts, SENDERS * MSGS);
	/* the virtual-time account saw the stalls as latency */
	CHECK(sw->port[RX + 1].lat_max > cfg.hop_ns);
	CHECK_EQ(sw->port[RX + 1].lat_min, cfg.hop_ns);

	/* the same through the PMA: node0 asks the switch with a real MAD */
	sfab_sw_lft_set(sw, 1, 1);
	REQUIRE(pma_query(&tf, RX + 1, &pc));
	CHECK_EQ(pc.port_select, RX + 1);
	CHECK_EQ(sfab_be16_to_cpu(pc.port_xmit_discards), 0);
	CHECK_EQ(sfab_be16_to_cpu(pc.port_rcv_errors), 0);
	CHECK(sfab_be32_to_cpu(pc.port_xmit_wait) > 0);
	CHECK_EQ(sfab_be32_to_cpu(pc.port_xmit_packets), SENDERS * MSGS);
	REQUIRE(pma_query(&tf, SFAB_PMA_ALL_PORTS, &pc));
	CHECK_EQ(sfab_be16_to_cpu(pc.port_xmit_discards), 0);
	CHECK_EQ(sfab_be16_to_cpu(pc.port_rcv_errors), 0);
	CHECK_EQ(sfab_be16_to_cpu(pc.symbol_error_counter), 0);
	CHECK_EQ(pc.link_overrun_errors, 0);
	tf_fini(&tf);
}
