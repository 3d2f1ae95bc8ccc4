/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sw-arb: the switch's VL arbitration serves a busy VL past the end
 * of its weight in the same run.  With the default table (eight entries
 * of 64 blocks, the rest of the 64 empty) a VL that used up its entry's
 * weight must be served again once the table wraps, not left for the
 * next event, which on a quiet link is the periodic flow-control
 * refresh (100 ms in the daemon): a packet stuck that long makes an RC
 * requester time out and retransmit.
 *
 * The egress looks only at the input queues whose head packet wants its
 * port (sfab_sw_port.want): on a switch of the most ports, six inputs
 * on either side of the mask's word boundaries feed one output, which
 * serves them in turn, one packet each per round, each input's in order.
 */
#include "harness.h"
#include "sw_fabric.h"

#define SRC_LID		1
#define DST_LID		2
#define PAYLOAD		1024
#define NPKT		40	/* more than the credit window holds */

static struct sfab_sw_cfg cfg;
static struct tf tf;

/* node 0 -- sw0:1, sw0:2 -- node 1 */
static void one_switch(void)
{
	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	tf_one_switch(&tf, &cfg, SRC_LID, DST_LID);
}

static size_t ud_pkt(uint8_t *buf, uint32_t seq)
{
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = DST_LID, .slid = SRC_LID,
		.pkey = 0xffff, .dqpn = 9, .sqpn = 9, .qkey = 1, .psn = seq,
	};
	uint8_t pl[PAYLOAD];

	memset(pl, (int)seq, sizeof(pl));
	return sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl));
}

/* data packets on their way (flow-control packets are not: 8 bytes) */
static unsigned int queued(void)
{
	const struct tf_frame *fr;
	unsigned int n = 0;

	for (fr = tf.head; fr; fr = fr->next)
		n += fr->len > PAYLOAD;
	return n;
}

TEST(busy_vl_served_past_its_weight)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int i, sent = 0;

	one_switch();
	tf_node_free_all(&tf, 1);
	/* all the credit window holds (17 blocks each), no time passing */
	for (i = 0; i < NPKT; i++) {
		size_t n = ud_pkt(buf, i);

		if (tf_node_send(&tf, 0, buf, n))
			sent++;
	}
	/* several weights' worth: the table wraps more than once */
	CHECK(sent * 17 > 3 * 64);
	/* the switch takes them all in, then runs once */
	tf_pump_n(&tf, sent);
	/* that one run sent every one of them on */
	CHECK_EQ(queued(), sent);
	fprintf(stderr, "  %u packets in, %u out in one run\n", sent, queued());
	tf_fini(&tf);
}

#define WIDE_DST	128
#define WIDE_PER	4

TEST(inputs_served_in_turn_on_a_wide_switch)
{
	static const unsigned int in_port[] = { 1, 63, 64, 65, 191, 254 };
	const unsigned int nin = sizeof(in_port) / sizeof(in_port[0]);
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int i, k, got = 0, next[8] = { 0 }, in_round = 0;
	unsigned int bad_order = 0, bad_turn = 0;
	struct tf_node *dst;
	struct sfab_sw *sw;
	uint32_t seen = 0;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = SFAB_SW_MAX_PORTS;
	tf_init(&tf);
	sw = tf_add_sw(&tf, 0, &cfg);
	for (i = 0; i <= nin; i++) {
		tf_add_node(&tf, i, &cfg);
		tf_cable_node(&tf, i, 0, i < nin ? in_port[i] : WIDE_DST);
	}
	tf_pump(&tf);
	tf_activate(&tf);
	sfab_sw_lft_set(sw, 100, WIDE_DST);
	tf_node_free_all(&tf, nin);
	/* every input's packets into the switch before it runs */
	for (k = 0; k < WIDE_PER; k++)
		for (i = 0; i < nin; i++)
			REQUIRE(tf_node_send(&tf, i, buf,
					     tf_data_pkt(buf, 100, (uint16_t)(i + 1),
							 0, (uint8_t)k)));
	tf_pump(&tf);
	dst = &tf.node[nin];
	CHECK_EQ(dst->ninbox, nin * WIDE_PER);
	for (k = 0; k < dst->ninbox; k++) {
		struct sfab_pkt_ud u;

		if (!sfab_link_pkt_parse_ud(dst->inbox[k].data,
					    dst->inbox[k].len, &u) ||
		    !u.slid || u.slid > nin)
			continue;
		i = u.slid - 1;
		got++;
		bad_order += u.payload[0] != next[i]++;
		/* one of each input per round */
		bad_turn += (seen >> i) & 1;
		seen |= 1U << i;
		if (++in_round == nin) {
			in_round = 0;
			seen = 0;
		}
	}
	CHECK_EQ(got, nin * WIDE_PER);
	CHECK_EQ(bad_order, 0);
	CHECK_EQ(bad_turn, 0);
	CHECK_EQ(sw->queued, 0);
	CHECK_EQ(sw->port[WIDE_DST].nwant, 0);
	tf_fini(&tf);
}

