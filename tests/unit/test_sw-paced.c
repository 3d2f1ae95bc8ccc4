/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sw-paced: the switch core in virtual time (sfab_sw_cfg.paced, the
 * mode the fabric simulation runs it in, tools/sim).  A packet leaves
 * cut-through, its first bit the hop latency after its first bit came in
 * (ops->xmit_at says when); a port starts its next packet only once the
 * previous one has left, so a run before then sends nothing and
 * sfab_sw_deadline() is that time; the link's own rate
 * (sfab_sw_port_rate()) sets its serialisation; a run later than that
 * sends at its own time, never in its past; a flow-control packet never
 * leaves before the data packet its FCTBS counts (it would reach the
 * peer first, and the peer's ABR would count that packet twice: an
 * overrun that takes the link down).  The same packets on a live
 * (unpaced) switch all go in the first run.
 */
#include "harness.h"
#include "sw_fabric.h"

#define SRC_LID		1
#define DST_LID		2
#define HOP		260
#define T0		100000

struct sent {
	unsigned int port;
	size_t len;
	uint64_t start;
};

static struct sent out[64];
static unsigned int nout;
/* per port: when the last data packet's last bit leaves; FC before it */
static uint64_t data_end[8];
static unsigned int fc_sent[8], fc_early;
static struct sfab_sw_cfg cfg;
static struct tf tf;

static int paced_xmit_at(void *opaque, unsigned int port, const uint8_t *f,
			 size_t len, uint64_t start)
{
	struct sfab_sw *sw = tf.sw[0];

	if (len == SFAB_WIRE_FC_PKT_LEN) {
		fc_sent[port % 8]++;
		fc_early += start < data_end[port % 8];
	} else {
		if (nout < 64)
			out[nout++] = (struct sent){ port, len, start };
		data_end[port % 8] = start + sfab_sw_ser_ns(sw->port[port].rate_mbps ?
							    sw->port[port].rate_mbps :
							    sw->cfg.rate_mbps, len);
	}
	return tf_sw_xmit(opaque, port, f, len);
}

static const struct sfab_sw_ops paced_ops = {
	.xmit = tf_sw_xmit,
	.xmit_at = paced_xmit_at,
};

static struct sfab_sw *one_switch(bool paced)
{
	struct sfab_sw *sw;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.hop_ns = HOP;
	cfg.rate_mbps = 800000;
	cfg.paced = paced;
	tf_one_switch(&tf, &cfg, SRC_LID, DST_LID);
	sw = tf.sw[0];
	sw->ops = &paced_ops;
	nout = 0;
	memset(data_end, 0, sizeof(data_end));
	memset(fc_sent, 0, sizeof(fc_sent));
	fc_early = 0;
	return sw;
}

/* node @from sends @n 4 KiB packets to the other at tf.now, all in at once */
static void burst_from(unsigned int from, unsigned int n, bool pump)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN], pl[4096];
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = from ? SRC_LID : DST_LID,
		.slid = from ? DST_LID : SRC_LID,
		.pkey = 0xffff, .dqpn = 9, .sqpn = 9, .qkey = 1,
	};
	unsigned int i;

	memset(pl, 0x5a, sizeof(pl));
	for (i = 0; i < n; i++) {
		u.psn = i;
		REQUIRE(tf_node_send(&tf, from, buf,
				     sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl))));
	}
	if (pump)
		tf_pump_n(&tf, n);
}

static void burst(unsigned int n)
{
	burst_from(0, n, true);
}

TEST(cut_through_and_one_at_a_time)
{
	struct sfab_sw *sw = one_switch(true);
	uint64_t ser;

	/* node 1's link: 400 Gb/s on the 800 Gb/s port */
	CHECK_EQ(sfab_sw_port_rate(sw, 2, 400000), 0);
	CHECK_EQ(sfab_sw_port_rate(sw, 5, 400000), -1);
	tf.now = T0;
	burst(3);
	/* the first goes cut-through; the others wait for the transmitter */
	REQUIRE(nout == 1);
	CHECK_EQ(out[0].port, 2);
	CHECK_EQ(out[0].start, T0 + HOP);
	ser = sfab_sw_ser_ns(400000, out[0].len);
	CHECK_EQ(ser, (out[0].len * 8 * 1000 + 399999) / 400000);
	CHECK_EQ(sw->port[2].tx_busy_until, T0 + HOP + ser);
	CHECK_EQ(sfab_sw_deadline(sw), T0 + HOP + ser);
	/* a run before the transmitter frees sends nothing */
	sw->now = T0 + HOP + ser - 1;
	CHECK_EQ(sfab_sw_run(sw), 0);
	CHECK_EQ(nout, 1);
	/* at that time the next one goes, back to back */
	sw->now = T0 + HOP + ser;
	CHECK_EQ(sfab_sw_run(sw), 1);
	REQUIRE(nout == 2);
	CHECK_EQ(out[1].start, T0 + HOP + ser);
	sw->now = T0 + HOP + 2 * ser;
	CHECK_EQ(sfab_sw_run(sw), 1);
	REQUIRE(nout == 3);
	CHECK_EQ(out[2].start, T0 + HOP + 2 * ser);
	CHECK_EQ(sw->queued, 0);
	/* nothing left to wait for: no deadline of the transmitter's */
	CHECK(sfab_sw_deadline(sw) > T0 + HOP + 3 * ser);
	/* the port's account: first bit in to first bit out, 260 at least */
	CHECK_EQ(sw->port[2].lat_min, HOP);
	tf_fini(&tf);
}

TEST(never_in_the_past)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN], pl[64];
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = DST_LID, .slid = SRC_LID,
		.pkey = 0xffff, .dqpn = 9, .sqpn = 9, .qkey = 1,
	};
	struct sfab_sw *sw = one_switch(true);
	struct tf_frame *fr;

	memset(pl, 1, sizeof(pl));
	tf.now = T0;
	REQUIRE(tf_node_send(&tf, 0, buf,
			     sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl))));
	/* in at T0, but the owner runs the switch only 1 us later */
	fr = tf.head;
	REQUIRE(fr && !fr->next);
	tf.head = tf.tail = NULL;
	sw->now = T0;
	sfab_sw_port_rx(sw, fr->to.idx, fr->data, fr->len);
	free(fr);
	sw->now = T0 + 1000;
	CHECK_EQ(sfab_sw_run(sw), 1);
	REQUIRE(nout == 1);
	CHECK_EQ(out[0].start, T0 + 1000);
	tf_fini(&tf);
}

TEST(fc_never_overtakes_data)
{
	struct sfab_sw *sw = one_switch(true);
	unsigned int k;

	tf.now = T0;
	/* both ways at once: each port sends data and credit for the other */
	burst_from(0, 3, false);
	burst_from(1, 3, false);
	tf_pump_n(&tf, 6);
	for (k = 1; k <= 6 && sw->queued; k++) {
		tf.now = sfab_sw_deadline(sw);
		tf_pump(&tf);
	}
	CHECK_EQ(sw->queued, 0);
	CHECK_EQ(nout, 6);
	CHECK(fc_sent[1] > 0 && fc_sent[2] > 0);
	CHECK_EQ(fc_early, 0);
	tf_fini(&tf);
}

/*
 * A data VL the owner holds (sfab_sw_port.tx_held: the simulation's PFC
 * baseline, a PAUSE from the peer) sends nothing, with credit for all of
 * it, and the wait counts as PortXmitWait; released, the packets go.
 */
TEST(held_vl_waits)
{
	struct sfab_sw *sw = one_switch(true);

	tf.now = T0;
	sw->port[2].tx_held = 1;
	burst(2);
	CHECK_EQ(nout, 0);
	CHECK_EQ(sw->queued, 2);
	CHECK(sfab_link_tx_ok(&sw->port[2].link, 0, SFAB_WIRE_MAX_PKT_LEN));
	/* another VL held is no hold on VL 0 */
	sw->port[2].tx_held = 2;
	sw->now = T0 + 1000;
	CHECK_EQ(sfab_sw_run(sw), 1);
	CHECK_EQ(out[0].start, T0 + 1000);
	CHECK_EQ(sw->port[2].cnt.xmit_wait, 1000);
	sw->port[2].tx_held = 1;
	sw->now = sfab_sw_deadline(sw);
	CHECK_EQ(sfab_sw_run(sw), 0);
	sw->port[2].tx_held = 0;
	sw->now += 500;
	CHECK_EQ(sfab_sw_run(sw), 1);
	CHECK_EQ(sw->queued, 0);
	CHECK_EQ(sw->port[2].cnt.xmit_wait, 1500);
	tf_fini(&tf);
}

TEST(live_sends_at_once)
{
	one_switch(false);
	tf.now = T0;
	burst(3);
	/* unpaced: all three in the one run, the account only reports */
	CHECK_EQ(nout, 3);
	CHECK_EQ(out[0].start, T0 + HOP);
	CHECK(out[2].start > out[1].start && out[1].start > out[0].start);
	tf_fini(&tf);
}
