/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/xlid-forward: extended LIDs (Documentation/sfab/addressing.rst).
 * The extended LRH (LVer 1, 24-bit DLID and SLID) built and parsed by the
 * packet helpers, UD and RC, with and without a GRH; IBA's LRH byte for
 * byte as before; both CRCs over the extension (the ICRC covers it, a new
 * VL mends the VCRC); a link without ext_lrh (the live HCA's and switch's)
 * counts LVer 1 malformed; a switch with an LFT past IBA's range forwards
 * by the whole 24-bit DLID, also to a failover alternate.
 */
#include "harness.h"
#include "sw_fabric.h"

#include "../../qemu-model/link/sfab_crc.h"

#define XDLID	0x123456
#define XSLID	0x020001
#define XCAP	0x130000	/* an LFT for LIDs up to 0x12ffff */

TEST(framing_ud)
{
	uint8_t a[SFAB_WIRE_MAX_PKT_LEN], b[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_pkt_ud u;
	size_t na, nb;

	/* IBA's LIDs: the 8-byte LRH, LVer 0, exactly as IBA lays it out */
	na = tf_data_pkt(a, 0x1234, 0x0bcd, 2, 0x5a);
	CHECK_EQ(na, SFAB_PKT_UD_HDR_LEN + 200 + SFAB_WIRE_ICRC_LEN +
		 SFAB_WIRE_VCRC_LEN);
	CHECK_EQ(a[0], 2 << 4);
	CHECK_EQ(a[2], 0x12);
	CHECK_EQ(a[3], 0x34);
	CHECK_EQ(a[6], 0x0b);
	CHECK_EQ(a[7], 0xcd);
	CHECK_EQ(sfab_wire_pkt_len(a), na - SFAB_WIRE_VCRC_LEN);
	CHECK_EQ(a[SFAB_WIRE_LRH_LEN], SFAB_BTH_OP_UD_SEND_ONLY);
	CHECK_EQ(sfab_link_pkt_dlid(a), 0x1234);
	CHECK_EQ(sfab_link_pkt_slid(a), 0x0bcd);
	/* the permissive LID is still IBA's 16-bit one: no extension */
	nb = tf_data_pkt(b, SFAB_LID_PERMISSIVE, 1, 0, 0);
	CHECK_EQ(nb, na);
	CHECK_EQ(b[0] & SFAB_LRH_LVER_MASK, 0);

	/* a 24-bit LID: LVer 1, four more bytes, the upper bits in them */
	nb = tf_data_pkt(b, XDLID, XSLID, 2, 0x5a);
	CHECK_EQ(nb, na + 4);
	CHECK_EQ(b[0], 2 << 4 | SFAB_LRH_LVER_EXT);
	CHECK_EQ(sfab_wire_lrh_len(b), SFAB_WIRE_XLRH_LEN);
	CHECK_EQ(b[2], 0x34);
	CHECK_EQ(b[3], 0x56);
	CHECK_EQ(b[6], 0x00);
	CHECK_EQ(b[7], 0x01);
	CHECK_EQ(b[8], 0x12);
	CHECK_EQ(b[9], 0x02);
	CHECK_EQ(b[10], 0);
	CHECK_EQ(b[11], 0);
	CHECK_EQ(sfab_wire_pkt_len(b), nb - SFAB_WIRE_VCRC_LEN);
	CHECK_EQ(b[SFAB_WIRE_XLRH_LEN], SFAB_BTH_OP_UD_SEND_ONLY);
	CHECK_EQ(sfab_link_pkt_dlid(b), XDLID);
	CHECK_EQ(sfab_link_pkt_slid(b), XSLID);
	CHECK_EQ(sfab_link_pkt_bth_off(b), SFAB_WIRE_XLRH_LEN);
	CHECK_EQ(sfab_link_pkt_pkey(b), 0xffff);
	/* what follows the LRH is what it was */
	CHECK(!memcmp(a + SFAB_WIRE_LRH_LEN, b + SFAB_WIRE_XLRH_LEN,
		      na - SFAB_WIRE_LRH_LEN - SFAB_WIRE_ICRC_LEN -
		      SFAB_WIRE_VCRC_LEN));
	REQUIRE(sfab_link_pkt_parse_ud(b, nb, &u));
	CHECK_EQ(u.dlid, XDLID);
	CHECK_EQ(u.slid, XSLID);
	CHECK_EQ(u.sl, 2);
	CHECK_EQ(u.dqpn, 9);
	CHECK_EQ(u.qkey, 1);
	CHECK_EQ(u.len, 200);
	CHECK_EQ(u.payload, b + SFAB_WIRE_XLRH_LEN + SFAB_WIRE_BTH_LEN +
		 SFAB_WIRE_DETH_LEN);
	CHECK_EQ(u.payload[199], 0x5a);
}

TEST(framing_rc_grh)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN], pl[100];
	struct sfab_pkt_rc p = {
		.vl = 1, .sl = 1, .dlid = XDLID, .slid = XSLID, .pkey = 0x8001,
		.opcode = SFAB_BTH_OP_RC | SFAB_OP_WRITE_ONLY,
		.dqpn = 0x42, .psn = 77, .va = 0x1122334455667788ULL,
		.rkey = 0xabcd, .dma_len = sizeof(pl), .has_grh = true,
		.grh = { .tclass = 3, .flow_label = 0x12345, .hop_limit = 9,
			 .sgid = { 0xfe, 0x80 }, .dgid = { 0xfe, 0x80, 1 } },
	};
	struct sfab_pkt_rc q;
	size_t n;

	memset(pl, 0xc3, sizeof(pl));
	n = sfab_link_pkt_build_rc(buf, &p, pl, sizeof(pl));
	REQUIRE(n);
	CHECK_EQ(sfab_link_pkt_bth_off(buf),
		 SFAB_WIRE_XLRH_LEN + SFAB_WIRE_GRH_LEN);
	CHECK_EQ(buf[SFAB_WIRE_XLRH_LEN] >> 4, 6);	/* IPVer */
	CHECK(sfab_wire_icrc_ok(buf, n));
	CHECK(sfab_wire_vcrc_ok(buf, n));
	CHECK_EQ(sfab_crc_check(buf, n), SFAB_CRC_VCRC_OK | SFAB_CRC_ICRC_OK);
	REQUIRE(sfab_link_pkt_parse_rc(buf, n, &q));
	CHECK_EQ(q.dlid, XDLID);
	CHECK_EQ(q.slid, XSLID);
	CHECK(q.has_grh);
	CHECK_EQ(q.grh.flow_label, 0x12345);
	CHECK_EQ(q.grh.hop_limit, 9);
	CHECK_EQ(q.grh.dgid[2], 1);
	CHECK_EQ(q.va, 0x1122334455667788ULL);
	CHECK_EQ(q.rkey, 0xabcd);
	CHECK_EQ(q.psn, 77);
	CHECK_EQ(q.len, sizeof(pl));
	CHECK_EQ(q.payload[99], 0xc3);
}

TEST(crcs_cover_the_extension)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t n = tf_data_pkt(buf, XDLID, XSLID, 0, 1);

	CHECK(sfab_wire_icrc_ok(buf, n));
	CHECK_EQ(sfab_crc_check(buf, n), SFAB_CRC_VCRC_OK | SFAB_CRC_ICRC_OK);
	/* a new VL (a switch's SL-to-VL): the VCRC mended, the ICRC holds */
	sfab_crc_set_vl(buf, n, 5);
	CHECK_EQ(buf[0], 5 << 4 | SFAB_LRH_LVER_EXT);
	CHECK_EQ(sfab_crc_check(buf, n), SFAB_CRC_VCRC_OK | SFAB_CRC_ICRC_OK);
	/* the extension is invariant: the ICRC covers it */
	buf[8] ^= 0x01;
	sfab_crc_reseal_vcrc(buf, n);
	CHECK_EQ(sfab_crc_check(buf, n), SFAB_CRC_VCRC_OK);
	CHECK(!sfab_wire_icrc_ok(buf, n));
}

static struct sfab_sw_cfg cfg;

static struct sfab_sw *one_switch(struct tf *tf, uint32_t lft_cap)
{
	unsigned int i;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.fc_period_ns = 100000;
	cfg.lft_cap = lft_cap;
	tf_init(tf);
	if (!tf_add_sw(tf, 0, &cfg))
		abort();
	for (i = 0; i < 3; i++) {
		tf_add_node(tf, i, &cfg);
		tf_cable_node(tf, i, 0, i + 1);
	}
	tf_pump(tf);
	tf_activate(tf);
	return tf->sw[0];
}

TEST(lft_capacity)
{
	struct sfab_sw_cfg c;
	struct tf tf;
	struct sfab_sw *sw;

	sfab_sw_default_cfg(&c);
	c.lft_cap = 0x100;			/* below IBA's */
	CHECK(!sfab_sw_create(&c, &tf_sw_ops, NULL));
	c.lft_cap = 0x20001;			/* not whole blocks */
	CHECK(!sfab_sw_create(&c, &tf_sw_ops, NULL));
	c.lft_cap = SFAB_SW_XLFT_CAP + 64;	/* past the unicast range */
	CHECK(!sfab_sw_create(&c, &tf_sw_ops, NULL));

	/* the live switch's default: IBA's unicast LIDs, nothing above */
	sw = one_switch(&tf, 0);
	CHECK_EQ(sw->lft_cap, SFAB_SW_LFT_CAP);
	CHECK_EQ(sfab_sw_lft_set(sw, 0xbfff, 1), 0);
	CHECK_EQ(sfab_sw_lft_set(sw, 0xc000, 1), -1);
	CHECK_EQ(sfab_sw_lft_set(sw, XDLID, 1), -1);
	tf_fini(&tf);

	sw = one_switch(&tf, XCAP);
	CHECK_EQ(sw->lft_cap, XCAP);
	CHECK_EQ(sfab_sw_lft_set(sw, XCAP - 1, 2), 0);
	CHECK_EQ(sfab_sw_lft_get(sw, XCAP - 1), 2);
	CHECK_EQ(sfab_sw_lft_set(sw, XCAP, 2), -1);
	CHECK_EQ(sfab_sw_lft_get(sw, XCAP), SFAB_LFT_NO_PORT);
	CHECK_EQ(sfab_sw_alt_set(sw, XCAP - 1, 3), 0);
	CHECK_EQ(sfab_sw_alt_get(sw, XCAP - 1), 3);
	CHECK_EQ(sfab_sw_alt_set(sw, XCAP, 3), -1);
	/* the SMA's LFT blocks stay IBA's: 16-bit LIDs in the MAD */
	{
		struct sfab_wire_lft_block b;

		CHECK_EQ(sfab_sw_lft_get_block(sw, SFAB_SW_LFT_CAP / 64 - 1, &b), 0);
		CHECK_EQ(sfab_sw_lft_get_block(sw, SFAB_SW_LFT_CAP / 64, &b), -1);
	}
	tf_fini(&tf);
}

TEST(route_by_24_bits)
{
	uint8_t outs[SFAB_SW_MAX_PORTS + 1];
	struct tf tf;
	struct sfab_sw *sw = one_switch(&tf, XCAP);

	sfab_sw_lft_set(sw, XDLID, 2);
	sfab_sw_lft_set(sw, XDLID & 0xffff, 3);	/* its low 16 bits: elsewhere */
	sfab_sw_lft_set(sw, 0x10000, 1);
	CHECK_EQ(sfab_sw_route(sw, 1, XDLID, outs), 1);
	CHECK_EQ(outs[0], 2);
	CHECK_EQ(sfab_sw_route(sw, 1, XDLID & 0xffff, outs), 1);
	CHECK_EQ(outs[0], 3);
	CHECK_EQ(sfab_sw_route(sw, 2, 0x10000, outs), 1);
	CHECK_EQ(outs[0], 1);
	CHECK_EQ(sfab_sw_route(sw, 1, XDLID + 1, outs), 0);	/* unrouted */
	CHECK_EQ(sfab_sw_route(sw, 1, 0xf00000, outs), 0);	/* reserved */
	CHECK_EQ(sfab_sw_route(sw, 1, 0xffffff, outs), 0);
	CHECK_EQ(sfab_sw_route(sw, 1, SFAB_LID_PERMISSIVE, outs), 0);
	/* IBA's multicast LIDs still go by the MFT */
	sfab_sw_mft_set_port(sw, 0xc005, 2, true);
	sfab_sw_mft_set_port(sw, 0xc005, 3, true);
	CHECK_EQ(sfab_sw_route(sw, 1, 0xc005, outs), 2);
	/* ... and 0x1c005 is a unicast LID, not that group */
	CHECK_EQ(sfab_sw_route(sw, 1, 0x1c005, outs), 0);
	tf_fini(&tf);
}

TEST(forward_extended_frames)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_pkt_ud u;
	struct tf tf;
	struct sfab_sw *sw = one_switch(&tf, XCAP);
	size_t n;

	sfab_sw_lft_set(sw, XDLID, 2);
	sfab_sw_lft_set(sw, XDLID & 0xffff, 3);
	sfab_sw_lft_set(sw, XSLID, 1);
	/* SL 1 from port 1 to port 2 leaves on VL 3: set_vl on LVer 1 */
	sfab_sw_sl2vl(sw, 1, 2)[1] = 3;
	n = tf_data_pkt(buf, XDLID, XSLID, 1, 0x77);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[2].ninbox, 0);
	REQUIRE(tf.node[1].ninbox == 1);
	CHECK_EQ(tf.node[1].inbox[0].vl, 3);
	CHECK_EQ(tf.node[1].inbox[0].len, n);
	REQUIRE(sfab_link_pkt_parse_ud(tf.node[1].inbox[0].data, n, &u));
	CHECK_EQ(u.dlid, XDLID);
	CHECK_EQ(u.slid, XSLID);
	CHECK_EQ(u.payload[199], 0x77);
	CHECK(sfab_wire_icrc_ok(tf.node[1].inbox[0].data, n));
	CHECK(sfab_wire_vcrc_ok(tf.node[1].inbox[0].data, n));
	/* and back, to the 24-bit SLID */
	n = tf_data_pkt(buf, XSLID, XDLID, 0, 0x78);
	REQUIRE(tf_node_send(&tf, 1, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[0].ninbox, 1);
	/* IBA's LID 0x3456 beside it, its own route */
	n = tf_data_pkt(buf, XDLID & 0xffff, 1, 0, 0x79);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[2].ninbox, 1);
	CHECK_EQ(tf.node[1].ninbox, 1);
	CHECK_EQ(sw->port[1].link.cnt.malformed, 0);

	/* failover: port 2 lost, XDLID to its alternate, port 3 */
	CHECK_EQ(sfab_sw_alt_set(sw, XDLID, 3), 0);
	sfab_sw_port_disconnect(sw, 2);
	tf_pump(&tf);
	CHECK_EQ(sfab_sw_route_port(sw, XDLID), 3);
	CHECK_EQ(sfab_sw_lft_get(sw, XDLID), 2);
	n = tf_data_pkt(buf, XDLID, XSLID, 0, 0x7a);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	REQUIRE(tf.node[2].ninbox == 2);
	REQUIRE(sfab_link_pkt_parse_ud(tf.node[2].inbox[1].data,
				       tf.node[2].inbox[1].len, &u));
	CHECK_EQ(u.dlid, XDLID);
	CHECK_EQ(u.payload[0], 0x7a);
	tf_fini(&tf);
}

TEST(live_links_refuse_lver1)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct tf tf;
	struct sfab_sw *sw = one_switch(&tf, 0);
	size_t n;

	/* IBA's LFT: the links are the live ones, LVer 1 is malformed */
	sfab_sw_lft_set(sw, 2, 2);
	n = tf_data_pkt(buf, 2, XSLID, 0, 1);
	CHECK_EQ(buf[0] & SFAB_LRH_LVER_MASK, SFAB_LRH_LVER_EXT);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(sw->port[1].link.cnt.malformed, 1);
	CHECK_EQ(tf.node[1].ninbox, 0);
	/* the same with IBA's LIDs goes through */
	n = tf_data_pkt(buf, 2, 1, 0, 1);
	REQUIRE(tf_node_send(&tf, 0, buf, n));
	tf_pump(&tf);
	CHECK_EQ(tf.node[1].ninbox, 1);
	tf_fini(&tf);
}
