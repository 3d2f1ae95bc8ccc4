/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/switch: the switch (qemu-model/switch) in a small in-memory fabric
 * (tests/unit/sw_fabric.h), driven by what its nodes send and by what a
 * subnet manager and an operator do to it.
 *
 *   node0 --1[A, LID 10]2-- node1        A:4 has no cable
 *                  3
 *                  |
 *                  1
 *   node2 --2[B, LID 20]3-- node3        node n has LID n + 1
 *
 * Input: a little program.  Three bytes of configuration (data VLs, the
 * input buffer per VL, up to past the 2048 blocks FCCL may run ahead, and
 * the VL15 buffer, alike at every port and node), then up to MAX_OPS
 * operations, each a byte that names it, a node byte, and the bytes it
 * reads (past the end everything reads as zero):
 *  - a node sends, within its credit, a directed-route SMP (Get/Set of
 *    every SMA attribute, structured or raw data, initial and return
 *    path, hop count and pointer, DrSLID/DrDLID, LRH fields), a
 *    LID-routed SMP, a PMA GMP, a UD or an RC/UC/XRC data packet (any
 *    DLID, multicast included, VL, SL, length, GRH, immediate);
 *  - a node sends a frame of fuzzer bytes, its PktLen right or not,
 *    sealed with valid ICRC and VCRC (or a valid VCRC only) or not, or a
 *    forged flow-control packet: from then on it is not honest, and its
 *    link's credit checks wait for the end;
 *  - a node sends a fault routing notification (fast failover: A takes
 *    them on node 1's port, declared switch-facing by mistake), its LID
 *    ranges and header as read; backup forwarding entries set (A's ports
 *    2 and 3 and B's 1 are failover groups, so a pulled or disabled link
 *    moves routes and queued packets);
 *  - LFT entries, MFT entries and whole MFT masks set directly (port 0,
 *    ports beyond the count), SLtoVL, VL arbitration, VLHighLimit and
 *    OperationalVLs as an SM sets them, port admin down and up, link
 *    errors on purpose (ber, drop, flap), a cable pulled (the switch told,
 *    or finding out when a send fails) and plugged back, the SM's
 *    Armed/Active sweep;
 *  - a node keeps the buffers of what it receives, or gives them back;
 *  - the clock advances; a switch runs with nothing new;
 *  - the next operation repeats up to 64 times in one batch, with no run
 *    in between (sfab-switchd reads a cable until it is empty).
 * After each operation the fabric is pumped, at most PUMP_BUDGET frames.
 *
 * Invariants, after every frame a switch takes in and every run:
 *  - the queues are what the switch's counters say; a queued packet waits
 *    for at least one egress port, and only for ports 1..N (port 0 and
 *    missing ports are never served: the packet would wedge its input
 *    VL); port 0's packets per egress port and VL stay within
 *    SFAB_SW_MGMT_QUEUE_MAX; each input VL buffer holds exactly the blocks
 *    of the packets queued from it, within its size; each egress port's
 *    mask of wanting queues (sfab_sw_port.want, nwant) names exactly the
 *    queues whose head packet still waits for that port;
 *  - bounded work: taking a frame in sends no data packet and at most one
 *    flush of flow-control packets; a run sends at most one packet per
 *    egress port a queued packet still waits for, and what came in on a
 *    data VL never leaves on VL15; afterwards nothing periodic is due yet
 *    (the owner's loop can sleep); what a switch sends passes the CRC
 *    checks (unless told to corrupt it);
 *  - no packet is stuck at a queue head: after a run no egress port has a
 *    head packet it could send (VL15, or credit and a weighted VL
 *    arbitration entry) or would discard (port not Active, VL not
 *    operated, an SL mapped to VL15);
 *  - credits: on every honest link and data VL, the sender's credit plus
 *    the blocks on the cable plus what the receiver holds never exceed
 *    the receiver's buffer; no honest receiver sees a buffer overrun.
 * At the end, with the forwarding tables cleared (no loop keeps packets
 * going), errors off, default arbitration, every port enabled and every
 * cable in, every node giving all its buffers back and a few
 * flow-control refresh periods pumped: the fabric is quiet, every switch
 * queue empty, every input buffer free, and on every link up at both
 * ends each data VL's credit is the receiver's whole buffer (at most
 * 2048 blocks) with ABR = FCTBS.
 */
#include "fuzz.h"
#include "sw_fabric.h"

#include "../../qemu-model/link/sfab_crc.h"
#include "sfab/sfab_regs.h"

#define NSW		2
#define NNODES		4
#define A_PORTS		4
#define B_PORTS		3
#define MAX_PORTS	A_PORTS
#define LID_A		10
#define LID_B		20
#define FC_PERIOD	100000
#define MAX_OPS		256
#define MAX_REPEAT	64
#define PUMP_BUDGET	2048
#define END_ROUNDS	8
#define END_BUDGET	65536

/*
 * The checks are not what the fuzzer should steer by, and their compares
 * cost more than the switch: no coverage for them.
 */
#define NOCOV		__attribute__((no_sanitize("coverage")))

/* flow-control packets one flush may send: a TS, then Init and Normal per VL */
#define FC_PER_FLUSH	(2 * SFAB_LINK_MAX_DATA_VLS + 1)

struct fz_node {
	uint32_t held[16];	/* blocks withheld per VL */
	bool tainted;		/* sent raw frames or forged FC packets */
	bool pulled;		/* its cable is out */
	bool cut;		/* ... and the switch has not been told */
	int sw;			/* where its cable goes */
	unsigned int port;
};

static struct tf tf;
static struct sfab_sw_cfg cfg;
static struct fz_node nodes[NNODES];
/* what each switch sent: data packets (VL15 apart) and FC packets */
static unsigned long out_data[NSW], out_vl15[NSW], out_fc[NSW];

/* --- the fabric -------------------------------------------------------------- */

static int fz_sw_xmit(void *opaque, unsigned int port, const uint8_t *frame,
		      size_t len)
{
	struct tf_ctx *c = opaque;
	struct sfab_sw *sw = tf.sw[c->sw];
	unsigned int ok, n;

	CHECK(port >= 1 && port <= sw->cfg.nports);
	CHECK(len <= SFAB_WIRE_MAX_PKT_LEN);
	for (n = 0; n < NNODES; n++)
		if (nodes[n].cut && nodes[n].sw == c->sw &&
		    nodes[n].port == port)
			return -1;	/* the daemon's socket is gone */
	if (len == SFAB_WIRE_FC_PKT_LEN) {
		out_fc[c->sw]++;
	} else {
		if (sfab_link_pkt_vl(frame) == SFAB_VL15)
			out_vl15[c->sw]++;
		else
			out_data[c->sw]++;
		/* the switch took it in whole: it leaves whole */
		if (!sw->port[port].inj.ber_thr) {
			ok = sfab_crc_check(frame, len);
			CHECK(ok & SFAB_CRC_VCRC_OK);
			if (sfab_wire_has_icrc(frame))
				CHECK(ok & SFAB_CRC_ICRC_OK);
		}
	}
	return tf_sw_xmit(opaque, port, frame, len);
}

static const struct sfab_sw_ops fz_sw_ops = { .xmit = fz_sw_xmit };

static void node_cable(unsigned int n, int s, unsigned int p)
{
	tf_add_node(&tf, n, &cfg);
	nodes[n].sw = s;
	nodes[n].port = p;
	tf_cable_node(&tf, n, s, p);
}

static void fabric_up(void)
{
	struct sfab_sw *a, *b;
	unsigned int n;

	tf_init(&tf);
	memset(nodes, 0, sizeof(nodes));
	memset(out_data, 0, sizeof(out_data));
	memset(out_vl15, 0, sizeof(out_vl15));
	memset(out_fc, 0, sizeof(out_fc));
	tf.now = 1000;
	cfg.nports = A_PORTS;
	cfg.node_guid = 0xa0;
	a = tf_add_sw(&tf, 0, &cfg);
	cfg.nports = B_PORTS;
	cfg.node_guid = 0xb0;
	b = tf_add_sw(&tf, 1, &cfg);
	REQUIRE(a && b);
	a->ops = &fz_sw_ops;
	b->ops = &fz_sw_ops;
	a->lid = LID_A;
	b->lid = LID_B;
	node_cable(0, 0, 1);
	node_cable(1, 0, 2);
	node_cable(2, 1, 2);
	node_cable(3, 1, 3);
	tf_cable_sw(&tf, 0, 3, 1, 1);
	/* what a subnet manager would program */
	for (n = 0; n < NNODES; n++) {
		sfab_sw_lft_set(a, n + 1, nodes[n].sw ? 3 : nodes[n].port);
		sfab_sw_lft_set(b, n + 1, nodes[n].sw ? nodes[n].port : 1);
	}
	sfab_sw_lft_set(a, LID_B, 3);
	sfab_sw_lft_set(b, LID_A, 1);
	/*
	 * fast failover: A's up-port group is its link to B and node 1's
	 * port, declared so by mistake (an operator's error the switch must
	 * survive): either going down moves the other's routes and queued
	 * packets to it; A believes notifications from node 1 too, so that
	 * node 1's frames reach the notification parser.  B's group is its
	 * link to A alone (nothing to move to: unreachable, told).
	 */
	sfab_sw_fo_up_port(a, 2, true);
	sfab_sw_fo_up_port(a, 3, true);
	sfab_sw_fo_peer_port(a, 2, true);
	sfab_sw_fo_peer_port(a, 3, true);
	sfab_sw_fo_up_port(b, 1, true);
	sfab_sw_fo_peer_port(b, 1, true);
}

/* a node's inbox: count what it keeps, forget the frames */
static void node_inbox(unsigned int n)
{
	struct tf_node *nd = &tf.node[n];
	unsigned int i;

	for (i = 0; i < nd->ninbox; i++)
		if (!nd->auto_free)
			nodes[n].held[nd->inbox[i].vl] +=
				sfab_link_blocks(nd->inbox[i].len);
	tf_node_free_all(&tf, n);
}

static void node_give_back(unsigned int n)
{
	struct tf_node *nd = &tf.node[n];
	unsigned int v;

	for (v = 0; v < 16; v++) {
		if (nodes[n].held[v])
			sfab_link_rx_free(&nd->link, v,
					  nodes[n].held[v] * SFAB_WIRE_BLOCK_LEN);
		nodes[n].held[v] = 0;
	}
	if (!nodes[n].pulled)
		tf_node_flush_fc(&tf, n);
}

/* drop what is on node @n's cable, both ways */
static void cable_flush(unsigned int n)
{
	struct tf_frame **pp = &tf.head, *fr;

	tf.tail = NULL;
	while ((fr = *pp)) {
		if ((fr->to.sw == -1 && fr->to.idx == n) ||
		    (fr->to.sw == nodes[n].sw && fr->to.idx == nodes[n].port)) {
			*pp = fr->next;
			free(fr);
			continue;
		}
		tf.tail = fr;
		pp = &fr->next;
	}
}

/*
 * Pull node @n's cable out, telling the switch or not (@cut: it finds out
 * when a send fails), or plug it back in.
 */
static void cable(unsigned int n, bool cut)
{
	struct fz_node *fn = &nodes[n];

	if (!fn->pulled) {
		cable_flush(n);
		tf.sw_peer[fn->sw][fn->port].sw = -2;
		fn->cut = cut;
		if (!cut)
			sfab_sw_port_disconnect(tf.sw[fn->sw], fn->port);
		sfab_link_phys_down(&tf.node[n].link, false);
	} else {
		fn->cut = false;
		tf.sw[fn->sw]->now = tf.now;
		tf_cable_node(&tf, n, fn->sw, fn->port);
	}
	fn->pulled = !fn->pulled;
}

/* --- the switch's state -------------------------------------------------- */

struct sw_walk {
	unsigned long outs_data, outs_vl15;	/* egress slots still to serve */
	/* port 0's packets per egress port and VL */
	unsigned int mgmt[MAX_PORTS + 1][16];
};

static NOCOV void check_pkt(const struct sfab_sw *sw,
			    const struct sfab_sw_pkt *pkt, struct sw_walk *w)
{
	unsigned int i, left = 0;

	CHECK(pkt->len >= SFAB_WIRE_LRH_LEN + SFAB_WIRE_VCRC_LEN);
	CHECK(pkt->len <= SFAB_WIRE_MAX_PKT_LEN);
	CHECK(pkt->nout >= 1 && pkt->nout <= sw->cfg.nports);
	CHECK(sfab_link_pkt_vl(pkt->data) == pkt->in_vl);
	for (i = 0; i < pkt->nout; i++) {
		unsigned int o = pkt->outs[i];

		if (o == SFAB_LFT_NO_PORT)
			continue;
		/* only ports the scheduler serves, or it waits for ever */
		CHECK(o >= 1 && o <= sw->cfg.nports);
		left++;
		if (!pkt->in_port)
			w->mgmt[o][pkt->in_vl]++;
	}
	/* a packet every egress port is done with is freed */
	CHECK(left > 0);
	if (pkt->in_vl == SFAB_VL15)
		w->outs_vl15 += left;
	else
		w->outs_data += left;
}

/* walk @q; return the blocks its packets hold */
static NOCOV uint32_t check_queue(const struct sfab_sw *sw,
				  const struct sfab_sw_queue *q,
				  unsigned int in_port, unsigned int vl,
				  struct sw_walk *w)
{
	const struct sfab_sw_pkt *pkt, *last = NULL;
	unsigned int count = 0;
	uint32_t blocks = 0;

	for (pkt = q->head; pkt; pkt = pkt->next) {
		CHECK(pkt->in_port == in_port);
		CHECK(pkt->in_vl == vl);
		check_pkt(sw, pkt, w);
		blocks += sfab_link_blocks(pkt->len);
		last = pkt;
		CHECK(++count <= sw->queued);
	}
	CHECK(q->tail == last);
	CHECK_EQ(q->count, count);
	return blocks;
}

/* port 0's queue towards egress port @p (a queue per egress port and VL) */
static NOCOV const struct sfab_sw_queue *
mgmt_queue(const struct sfab_sw *sw, unsigned int p, unsigned int vl)
{
	return &sw->port[p].mgmt_q[vl];
}

/* the egress ports' masks name exactly the heads that still wait for them */
static NOCOV void check_want(const struct sfab_sw *sw)
{
	unsigned int n = sw->cfg.nports, o, in, v, i, bits;

	for (o = 1; o <= n; o++) {
		const struct sfab_sw_port *op = &sw->port[o];

		bits = 0;
		for (v = 0; v < 16; v++) {
			for (i = 0; i < SFAB_SW_WANT_WORDS; i++)
				bits += __builtin_popcountll(op->want[v][i]);
			for (in = 0; in <= n; in++) {
				const struct sfab_sw_pkt *h = in ?
					sw->port[in].inq[v].head :
					op->mgmt_q[v].head;
				bool wants = false, set;

				for (i = 0; h && i < h->nout; i++)
					wants |= h->outs[i] == o;
				set = op->want[v][in / 64] >> (in % 64) & 1;
				CHECK_EQ(set, wants);
			}
		}
		CHECK_EQ(bits, op->nwant);
	}
}

static NOCOV void walk_switch(const struct sfab_sw *sw, struct sw_walk *w)
{
	unsigned int n = sw->cfg.nports, p, v, total = 0;

	memset(w, 0, sizeof(*w));
	for (p = 0; p <= n; p++) {
		const struct sfab_link *l = &sw->port[p].link;

		for (v = 0; v < 16; v++) {
			const struct sfab_sw_queue *q = &sw->port[p].inq[v];
			uint32_t blocks = check_queue(sw, q, p, v, w);

			total += q->count;
			if (p) {
				q = mgmt_queue(sw, p, v);
				check_queue(sw, q, 0, v, w);
				total += q->count;
			}
			if (!p)
				continue;
			/* the input buffer holds exactly what waits in it */
			if (v == SFAB_VL15) {
				CHECK_EQ(l->vl15_used, blocks);
				CHECK(l->vl15_used <= l->cfg.vl15_blocks);
			} else if (v < l->cfg.num_data_vls) {
				CHECK_EQ(l->vl[v].used, blocks);
				CHECK(l->vl[v].used <= l->cfg.vl_blocks);
			} else {
				CHECK_EQ(blocks, 0);
			}
		}
	}
	CHECK_EQ(total, sw->queued);
	check_want(sw);
	/* the management port's bounded queues */
	for (p = 0; p <= n; p++)
		for (v = 0; v < 16; v++)
			CHECK(w->mgmt[p][v] <= SFAB_SW_MGMT_QUEUE_MAX);
}

/* the data VLs egress port @o operates */
static NOCOV unsigned int port_vls(const struct sfab_sw *sw, unsigned int o)
{
	unsigned int n = sfab_sw_op_vls_count(sw->port[o].cfg.op_vls);

	return n < sw->cfg.num_data_vls ? n : sw->cfg.num_data_vls;
}

static NOCOV bool arb_weighs(const struct sfab_sw_arb *arb, unsigned int vl)
{
	unsigned int i;

	for (i = 0; i < SFAB_SW_VLARB_CAP; i++)
		if (arb->weight[i] && (arb->vl[i] & 15) == vl)
			return true;
	return false;
}

/*
 * No packet is stuck at a queue head: after a run, a head packet that
 * egress port @o could send (VL15, or credit and a weighted arbitration
 * entry for its VL) or would discard (port not Active, VL not operated,
 * an SL mapped to VL15) is a packet the run left behind.
 */
static NOCOV void check_head(struct sfab_sw *sw,
			     const struct sfab_sw_pkt *pkt, unsigned int o)
{
	const struct sfab_sw_port *op = &sw->port[o];
	unsigned int i, evl;

	if (!pkt)
		return;
	for (i = 0; i < pkt->nout && pkt->outs[i] != o; i++)
		;
	if (i == pkt->nout)
		return;
	if (pkt->in_vl == SFAB_VL15)
		evl = SFAB_VL15;
	else
		evl = sfab_sw_sl2vl(sw, pkt->in_port, o)[sfab_link_pkt_sl(pkt->data)];
	CHECK(evl != SFAB_VL15 || pkt->in_vl == SFAB_VL15);
	CHECK(sfab_link_can_xmit(&op->link, evl));
	CHECK(evl < port_vls(sw, o));
	CHECK(!sfab_link_tx_ok(&op->link, evl, pkt->len) ||
	      (!arb_weighs(&op->arb_high, evl) && !arb_weighs(&op->arb_low, evl)));
}

static NOCOV void check_heads(struct sfab_sw *sw, const uint8_t *changed)
{
	unsigned int n = sw->cfg.nports, o, p, v;

	for (o = 1; o <= n; o++) {
		/* a flap or a port state change after the forwarding loop */
		if (changed[o])
			continue;
		for (v = 0; v < 16; v++) {
			for (p = 1; p <= n; p++)
				check_head(sw, sw->port[p].inq[v].head, o);
			check_head(sw, mgmt_queue(sw, o, v)->head, o);
		}
	}
}

static void run_switch(unsigned int s)
{
	struct sfab_sw *sw = tf.sw[s];
	static struct sw_walk w;
	uint8_t changed[SFAB_SW_MAX_PORTS + 1];
	struct {
		uint8_t phys, state;
	} before[SFAB_SW_MAX_PORTS + 1];
	unsigned long d0 = out_data[s], v0 = out_vl15[s], f0 = out_fc[s];
	uint64_t frn0 = sw->fo.frn_sent;
	unsigned int n = sw->cfg.nports, p, sent;
	bool flaps = false;

	sw->now = tf.now;
	walk_switch(sw, &w);
	for (p = 1; p <= n; p++) {
		before[p].phys = sw->port[p].link.phys;
		before[p].state = sw->port[p].link.state;
	}
	sent = sfab_sw_run(sw);
	/*
	 * one packet per egress slot at most, and the notifications of a
	 * port the run found gone (fast failover); data stays off VL15
	 */
	CHECK(out_data[s] - d0 <= w.outs_data);
	CHECK(out_vl15[s] - v0 <= w.outs_vl15 + (sw->fo.frn_sent - frn0));
	CHECK(sent <= w.outs_data + w.outs_vl15 + (sw->fo.frn_sent - frn0));
	CHECK(out_fc[s] - f0 <= 2UL * n * FC_PER_FLUSH);
	walk_switch(sw, &w);
	for (p = 1; p <= n; p++) {
		changed[p] = sw->port[p].inj.flap_period_ns ||
			     before[p].phys != sw->port[p].link.phys ||
			     before[p].state != sw->port[p].link.state;
		flaps |= !!sw->port[p].inj.flap_period_ns;
	}
	check_heads(sw, changed);
	/* nothing periodic is due: the owner's event loop may sleep */
	if (!flaps)
		CHECK(sfab_sw_deadline(sw) > sw->now);
}

/*
 * Steering: what a switch's tables make of a frame it takes in, as
 * branches libFuzzer sees.  A packet routed to port 0 by a table, or
 * mapped to VL15 or to a VL its egress port does not run, goes through
 * code every other packet takes too: only the data differ, which
 * coverage alone misses.
 */
uint8_t fz_switch_steered[8];	/* not static: each store kept, none merged */

static void steer(struct sfab_sw *sw, unsigned int in, const uint8_t *frame,
		  size_t len)
{
	uint8_t outs[SFAB_SW_MAX_PORTS + 1];
	unsigned int n, i, evl = 0;
	uint16_t dlid;

	if (len < SFAB_WIRE_LRH_LEN || in < 1 || in > sw->cfg.nports)
		return;
	dlid = sfab_link_pkt_dlid(frame);
	n = sfab_sw_route(sw, in, dlid, outs);
	if (n > 1)
		fz_switch_steered[0]++;
	for (i = 0; i < n; i++) {
		if (outs[i])
			evl = sfab_sw_sl2vl(sw, in, outs[i])[sfab_link_pkt_sl(frame)];
		if (!outs[i] && dlid < SFAB_LID_MCAST_BASE)
			fz_switch_steered[1]++;		/* the SMA, the PMA */
		else if (!outs[i] && n == 1)
			fz_switch_steered[2]++;		/* MFT: port 0 alone */
		else if (!outs[i])
			fz_switch_steered[3]++;		/* MFT: port 0 and others */
		else if (sfab_link_pkt_vl(frame) == SFAB_VL15)
			fz_switch_steered[4]++;
		else if (evl == SFAB_VL15)
			fz_switch_steered[5]++;
		else if (evl >= port_vls(sw, outs[i]))
			fz_switch_steered[6]++;
		else if (evl != sfab_link_pkt_vl(frame))
			fz_switch_steered[7]++;
	}
}

static void deliver(struct tf_frame *fr)
{
	static struct sw_walk w;
	int s = fr->to.sw;

	if (s >= 0) {
		unsigned long d0 = out_data[s] + out_vl15[s], f0 = out_fc[s];

		steer(tf.sw[s], fr->to.idx, fr->data, fr->len);
		tf_deliver(&tf, fr);
		/* taken in and queued: sent at the next run, not now */
		CHECK_EQ(out_data[s] + out_vl15[s], d0);
		CHECK(out_fc[s] - f0 <= FC_PER_FLUSH);
		walk_switch(tf.sw[s], &w);
	} else {
		tf_deliver(&tf, fr);
		if (s == -1)
			node_inbox(fr->to.idx);
	}
}

/* deliver up to @budget frames, running the switches after each batch */
static void pump(unsigned long budget)
{
	unsigned long moved = 0;
	unsigned int s;

	for (;;) {
		while (tf.head && moved < budget) {
			struct tf_frame *fr = tf.head;

			tf.head = fr->next;
			if (!tf.head)
				tf.tail = NULL;
			deliver(fr);
			free(fr);
			moved++;
		}
		for (s = 0; s < NSW; s++)
			run_switch(s);
		if (!tf.head || moved >= budget)
			return;
	}
}

/* --- credits ------------------------------------------------------------- */

struct link_end {
	struct sfab_link *l;
	struct tf_end at;
};

/* data blocks on their way to @at on VL @vl */
static NOCOV uint32_t in_flight(const struct tf_end *at, unsigned int vl)
{
	const struct tf_frame *fr;
	uint32_t blocks = 0;

	for (fr = tf.head; fr; fr = fr->next)
		if (fr->to.sw == at->sw && fr->to.idx == at->idx &&
		    fr->len > SFAB_WIRE_FC_PKT_LEN &&
		    sfab_link_pkt_vl(fr->data) == vl)
			blocks += sfab_link_blocks(fr->len);
	return blocks;
}

static NOCOV void check_credit(const struct link_end *tx,
			       const struct link_end *rx)
{
	const struct sfab_link *s = tx->l, *r = rx->l;
	unsigned int v, nvl = s->cfg.num_data_vls;

	if (r->cfg.num_data_vls < nvl)
		nvl = r->cfg.num_data_vls;
	CHECK_EQ(r->cnt.excessive_buffer_overrun, 0);
	if (s->state != SFAB_PORT_ACTIVE)
		return;
	for (v = 0; v < nvl; v++)
		CHECK(sfab_link_tx_credits(s, v) + in_flight(&rx->at, v) +
		      r->vl[v].used <= r->cfg.vl_blocks);
}

/* each link: its two ends, and whether both are honest */
static unsigned int links(struct link_end (*e)[2], bool *honest)
{
	unsigned int n, k = 0;

	for (n = 0; n < NNODES; n++, k++) {
		e[k][0].l = &tf.node[n].link;
		e[k][0].at = (struct tf_end){ -1, n };
		e[k][1].l = &tf.sw[nodes[n].sw]->port[nodes[n].port].link;
		e[k][1].at = (struct tf_end){ nodes[n].sw, nodes[n].port };
		honest[k] = !nodes[n].tainted;
	}
	e[k][0].l = &tf.sw[0]->port[3].link;
	e[k][0].at = (struct tf_end){ 0, 3 };
	e[k][1].l = &tf.sw[1]->port[1].link;
	e[k][1].at = (struct tf_end){ 1, 1 };
	honest[k] = true;
	return k + 1;
}

static NOCOV void check_links(void)
{
	struct link_end e[NNODES + 1][2];
	bool honest[NNODES + 1];
	unsigned int k, nl = links(e, honest), n, v;

	for (k = 0; k < nl; k++) {
		if (!honest[k])
			continue;
		check_credit(&e[k][0], &e[k][1]);
		check_credit(&e[k][1], &e[k][0]);
	}
	/* the nodes' bookkeeping: what they hold is what they withheld */
	for (n = 0; n < NNODES; n++) {
		const struct sfab_link *l = &tf.node[n].link;

		for (v = 0; v < l->cfg.num_data_vls; v++)
			CHECK_EQ(l->vl[v].used, nodes[n].held[v]);
		CHECK_EQ(l->vl15_used, nodes[n].held[SFAB_VL15]);
	}
}

/* --- operations ---------------------------------------------------------- */

static uint16_t pick_lid(struct fz *f)
{
	uint8_t b = fz_u8(f);

	switch (b & 7) {
	case 0:
	case 1:
		return 1 + (b >> 3) % NNODES;
	case 2:
		return b & 8 ? LID_B : LID_A;
	case 3:
		return SFAB_LID_MCAST_BASE + (b >> 3) % 4;
	case 4:
		return SFAB_LID_PERMISSIVE;
	case 5:
		return (b >> 3) % 32;
	default:
		return fz_u16(f);
	}
}

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* a port number as a table names one: 0..N+1, or none */
static uint8_t pick_port(struct fz *f)
{
	uint8_t b = fz_u8(f);

	if (b < 240)
		return b % (MAX_PORTS + 2);
	return b < 250 ? SFAB_LFT_NO_PORT : b;
}

/* a P_Key: mostly one of a few partitions (full or limited), or any */
static uint16_t pick_pkey(struct fz *f)
{
	static const uint16_t keys[] = {
		SFAB_PKEY_DEFAULT, 0x7fff, 0x8001, 0x0001, 0x8002, 0x0000, 0x8000,
	};
	uint8_t b = fz_u8(f);

	return b < 224 ? keys[b % ARRAY_LEN(keys)] : fz_u16(f);
}

static void node_send(unsigned int n, const uint8_t *buf, size_t len)
{
	if (len && !nodes[n].pulled)
		tf_node_send(&tf, n, buf, len);
}

static const uint16_t smp_attrs[] = {
	SFAB_SMP_ATTR_NODE_INFO, SFAB_SMP_ATTR_NODE_DESC,
	SFAB_SMP_ATTR_SWITCH_INFO, SFAB_SMP_ATTR_GUID_INFO,
	SFAB_SMP_ATTR_PORT_INFO, SFAB_SMP_ATTR_PKEY_TABLE,
	SFAB_SMP_ATTR_SL_TO_VL_TABLE, SFAB_SMP_ATTR_VL_ARB_TABLE,
	SFAB_SMP_ATTR_LINEAR_FWD_TABLE, SFAB_SMP_ATTR_MCAST_FWD_TABLE,
	SFAB_SMP_ATTR_SM_INFO, SFAB_SMP_ATTR_NOTICE,
};

static const uint8_t mad_methods[] = {
	SFAB_MAD_METHOD_GET, SFAB_MAD_METHOD_SET, SFAB_MAD_METHOD_GET,
	SFAB_MAD_METHOD_SET, SFAB_MAD_METHOD_GET_RESP, SFAB_MAD_METHOD_TRAP,
	SFAB_MAD_METHOD_TRAP_REPRESS, 0x03,
};


/* SMP flag bits */
#define SMP_RAW_MOD	0x01	/* the attribute modifier as read */
#define SMP_RAW_DATA	0x02	/* 64 bytes of data as read */
#define SMP_RAW_HOPS	0x04	/* hop count and pointer as read */
#define SMP_RETURNING	0x08	/* the D bit, a return path */
#define SMP_DR_LIDS	0x10	/* DrSLID and DrDLID */
#define SMP_VERSIONS	0x20	/* base and class version as read */
#define SMP_LRH		0x40	/* LRH DLID, VL and QP as read */
#define SMP_MKEY	0x80	/* an M_Key */

static uint32_t smp_mod(struct fz *f, uint16_t attr)
{
	switch (attr) {
	case SFAB_SMP_ATTR_PORT_INFO:
		return fz_below(f, MAX_PORTS + 2) |
		       (fz_u8(f) & 1 ? SFAB_MAD_PI_MOD_EXT_SPEEDS : 0);
	case SFAB_SMP_ATTR_PKEY_TABLE:
		return fz_below(f, MAX_PORTS + 2) << 16;
	case SFAB_SMP_ATTR_SL_TO_VL_TABLE:
		return fz_below(f, MAX_PORTS + 2) << 8 |
		       fz_below(f, MAX_PORTS + 2);
	case SFAB_SMP_ATTR_VL_ARB_TABLE:
		return (1 + fz_below(f, 4)) << 16 | fz_below(f, MAX_PORTS + 2);
	case SFAB_SMP_ATTR_LINEAR_FWD_TABLE:
		return fz_below(f, 4);
	case SFAB_SMP_ATTR_MCAST_FWD_TABLE:
		return fz_below(f, 2) << SFAB_MFT_POSITION_SHIFT |
		       fz_below(f, 2);
	default:
		return 0;
	}
}

static void smp_data(struct fz *f, uint16_t attr, uint8_t *d)
{
	struct sfab_mad_port_info pi;
	unsigned int k, i;

	switch (attr) {
	case SFAB_SMP_ATTR_PORT_INFO:
		memset(&pi, 0, sizeof(pi));
		pi.port_state = fz_below(f, 6);
		pi.phys_state = fz_below(f, 5);
		pi.op_vls = fz_below(f, 6);
		pi.neighbor_mtu = fz_below(f, 7);
		pi.vl_high_limit = fz_u8(f);
		pi.lid = pick_lid(f);
		pi.lmc = fz_below(f, 4);
		pi.sm_lid = 1 + fz_below(f, NNODES);
		pi.link_width_enabled = fz_u8(f);
		pi.mkey = fz_u8(f);
		pi.mkey_prot = fz_below(f, 4);
		pi.mkey_lease_period = fz_below(f, 3);
		pi.enforce = fz_below(f, 16);
		sfab_mad_enc_port_info(d, &pi);
		break;
	case SFAB_SMP_ATTR_PKEY_TABLE:
		memset(d, 0, SFAB_SMP_DATA_LEN);
		for (k = fz_below(f, 5); k; k--) {
			uint16_t key;

			i = 2 * fz_below(f, 32);
			key = pick_pkey(f);
			d[i] = key >> 8;
			d[i + 1] = key & 0xff;
		}
		break;
	case SFAB_SMP_ATTR_LINEAR_FWD_TABLE:
		memset(d, SFAB_LFT_NO_PORT, SFAB_SMP_DATA_LEN);
		for (k = fz_below(f, 9); k; k--) {
			i = fz_below(f, 64);
			d[i] = pick_port(f);
		}
		break;
	case SFAB_SMP_ATTR_MCAST_FWD_TABLE:
	case SFAB_SMP_ATTR_VL_ARB_TABLE:
		memset(d, 0, SFAB_SMP_DATA_LEN);
		for (k = fz_below(f, 9); k; k--) {
			i = 2 * fz_below(f, 32);
			d[i] = fz_u8(f);
			d[i + 1] = fz_u8(f);
		}
		break;
	default:
		fz_bytes(f, d, attr == SFAB_SMP_ATTR_SL_TO_VL_TABLE ? 8 :
			 SFAB_SMP_DATA_LEN);
		break;
	}
}

static void op_smp(struct fz *f, unsigned int n, uint8_t cls)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	uint8_t flags = fz_u8(f);
	uint16_t attr = smp_attrs[fz_below(f, ARRAY_LEN(smp_attrs))];
	uint8_t method = mad_methods[fz_below(f, ARRAY_LEN(mad_methods))];
	struct sfab_wire_smp smp;
	struct sfab_pkt_ud u = {
		.vl = SFAB_VL15, .pkey = SFAB_PKEY_DEFAULT, .slid = n + 1,
	};
	unsigned int hc, i;

	tf_smp_init(&smp, cls, method, attr, 0);
	smp.attr_mod = sfab_cpu_to_be32(flags & SMP_RAW_MOD ? fz_u32(f) :
					smp_mod(f, attr));
	smp.tid = sfab_cpu_to_be64(fz_u8(f));
	if (flags & SMP_RAW_DATA)
		fz_bytes(f, smp.data, sizeof(smp.data));
	else
		smp_data(f, attr, smp.data);
	if (flags & SMP_VERSIONS) {
		smp.base_version = fz_u8(f);
		smp.class_version = fz_u8(f);
	}
	if (flags & SMP_MKEY)
		smp.mkey = sfab_cpu_to_be64(fz_u8(f));
	if (cls == SFAB_MGMT_CLASS_SUBN_DR) {
		hc = flags & SMP_RAW_HOPS ? fz_u8(f) : fz_below(f, 4);
		smp.hop_cnt = hc;
		smp.hop_ptr = hc ? 1 : 0;
		for (i = 1; i <= hc && i < SFAB_SMP_MAX_HOPS; i++)
			smp.initial_path[i] = fz_below(f, MAX_PORTS + 2);
		if (flags & SMP_RETURNING) {
			smp.status = sfab_cpu_to_be16(SFAB_SMP_DIRECTION);
			for (i = 1; i <= hc && i < SFAB_SMP_MAX_HOPS; i++)
				smp.return_path[i] = fz_below(f, MAX_PORTS + 2);
			smp.hop_ptr = fz_below(f, hc + 2);
		}
		if (flags & SMP_RAW_HOPS)
			smp.hop_ptr = fz_u8(f);
		if (flags & SMP_DR_LIDS) {
			smp.dr_slid = sfab_cpu_to_be16(pick_lid(f));
			smp.dr_dlid = sfab_cpu_to_be16(pick_lid(f));
		}
		u.dlid = SFAB_LID_PERMISSIVE;
		u.slid = SFAB_LID_PERMISSIVE;
	} else {
		u.dlid = fz_u8(f) & 1 ? LID_B : LID_A;
	}
	if (flags & SMP_LRH) {
		u.dlid = pick_lid(f);
		u.vl = fz_below(f, 16);
		u.sl = fz_below(f, 16);
		u.dqpn = fz_below(f, 3);
	}
	node_send(n, buf, sfab_link_pkt_build_ud(buf, &u, &smp, sizeof(smp)));
}

static void op_pma(struct fz *f, unsigned int n)
{
	static const uint16_t attrs[] = {
		SFAB_PMA_ATTR_CLASS_PORT_INFO, SFAB_PMA_ATTR_PORT_COUNTERS,
		SFAB_PMA_ATTR_PORT_COUNTERS_EXT, SFAB_PMA_ATTR_PORT_COUNTERS,
	};
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN], mad[SFAB_WIRE_MAD_LEN];
	uint8_t flags = fz_u8(f), ps = fz_u8(f);
	uint16_t attr = attrs[fz_below(f, ARRAY_LEN(attrs))];
	struct sfab_pkt_ud u = {
		.vl = 0, .pkey = SFAB_PKEY_DEFAULT, .slid = n + 1,
		.dqpn = SFAB_QP1, .sqpn = SFAB_QP1, .qkey = SFAB_QP1_QKEY,
	};

	memset(mad, 0, sizeof(mad));
	mad[0] = SFAB_MAD_BASE_VERSION;
	mad[1] = SFAB_MGMT_CLASS_PERF;
	mad[2] = SFAB_PMA_CLASS_VERSION;
	mad[3] = mad_methods[fz_below(f, ARRAY_LEN(mad_methods))];
	mad[16] = attr >> 8;
	mad[17] = attr & 0xff;
	/* PortSelect: a port, one beyond, or all */
	mad[SFAB_PMA_DATA_OFFSET + 1] = ps < 200 ? ps % (MAX_PORTS + 2) :
					SFAB_PMA_ALL_PORTS;
	mad[SFAB_PMA_DATA_OFFSET + 2] = fz_u8(f);
	mad[SFAB_PMA_DATA_OFFSET + 3] = fz_u8(f);
	u.dlid = flags & 1 ? LID_B : LID_A;
	if (flags & 2)
		fz_bytes(f, mad, SFAB_PMA_DATA_OFFSET);
	if (flags & 4) {
		u.dlid = pick_lid(f);
		u.vl = fz_below(f, 16);
		u.sl = fz_below(f, 16);
		u.dqpn = fz_below(f, 3);
		u.qkey = fz_u8(f) & 1 ? fz_u32(f) : SFAB_QP1_QKEY;
	}
	node_send(n, buf, sfab_link_pkt_build_ud(buf, &u, mad, sizeof(mad)));
}

/* a payload length: mostly small, sometimes up to the MTU */
static size_t pick_len(struct fz *f, size_t max)
{
	uint8_t b = fz_u8(f);
	size_t len = b & 0x80 ? (b & 0x7f) * 64 + fz_u8(f) : b;

	return len > max ? max : len;
}

static void op_ud(struct fz *f, unsigned int n)
{
	static uint8_t pl[SFAB_PKT_UD_MAX_PAYLOAD];
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	uint8_t flags = fz_u8(f);
	struct sfab_pkt_ud_ext x;
	struct sfab_pkt_ud u = {
		.pkey = SFAB_PKEY_DEFAULT, .slid = n + 1, .sqpn = 9,
		.dqpn = 9, .qkey = 1,
	};
	size_t len;

	u.dlid = pick_lid(f);
	u.vl = fz_u8(f) & 15;
	u.sl = flags & 1 ? fz_u8(f) & 15 : u.vl;
	u.psn = fz_u8(f);
	if (flags & 16)
		u.pkey = pick_pkey(f);
	len = pick_len(f, SFAB_PKT_UD_MAX_PAYLOAD - SFAB_WIRE_GRH_LEN - 4);
	memset(pl, fz_u8(f), len);
	memset(&x, 0, sizeof(x));
	x.has_imm = flags & 2;
	x.has_grh = flags & 4;
	x.grh.hop_limit = 1;
	if (flags & 8)
		u.dqpn = fz_u8(f) & 1;		/* QP0/QP1 on a data VL */
	node_send(n, buf, sfab_link_pkt_build_ud_ext(buf, &u, &x, pl, len));
}

static void op_rc(struct fz *f, unsigned int n)
{
	static const uint8_t transports[] = {
		SFAB_BTH_OP_RC, SFAB_BTH_OP_UC, SFAB_BTH_OP_XRC, SFAB_BTH_OP_RC,
	};
	static uint8_t pl[SFAB_WIRE_MAX_PKT_LEN];
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	uint8_t op = fz_u8(f), flags = fz_u8(f);
	struct sfab_pkt_rc p;
	size_t len = 0;

	memset(&p, 0, sizeof(p));
	p.opcode = transports[op >> 6] | (op & SFAB_BTH_OP_MASK);
	p.dlid = pick_lid(f);
	p.slid = n + 1;
	p.pkey = flags & 4 ? pick_pkey(f) : SFAB_PKEY_DEFAULT;
	p.vl = fz_u8(f) & 15;
	p.sl = flags & 1 ? fz_u8(f) & 15 : p.vl;
	p.dqpn = fz_u8(f);
	p.psn = fz_u32(f);
	p.has_grh = flags & 2;
	p.grh.hop_limit = 1;
	if (sfab_link_pkt_rc_hdrs(p.opcode) & SFAB_PKT_PAYLOAD)
		len = pick_len(f, 4096);
	memset(pl, fz_u8(f), len);
	node_send(n, buf, sfab_link_pkt_build_rc(buf, &p, pl, len));
}

/* raw flag bits */
#define RAW_LEN		0x01	/* the LRH's PktLen matches the length */
#define RAW_SEAL	0x02	/* valid ICRC and VCRC */
#define RAW_VL		0x04	/* an operational VL or VL15 */
#define RAW_MAD		0x08	/* a UD header for QP0/QP1 in front */
#define RAW_BAD_ICRC	0x10	/* then a payload bit flipped, VCRC still valid */

static void op_raw(struct fz *f, unsigned int n)
{
	static uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	uint8_t flags = fz_u8(f);
	size_t len, words;

	if (flags & RAW_LEN) {
		words = 3 + pick_len(f, (SFAB_WIRE_MAX_PKT_LEN - 2) / 4 - 3);
		len = words * 4 + SFAB_WIRE_VCRC_LEN;
	} else {
		words = 0;
		len = pick_len(f, SFAB_WIRE_MAX_PKT_LEN);
	}
	fz_bytes(f, buf, len);
	if ((flags & RAW_MAD) && len >= SFAB_PKT_UD_HDR_LEN) {
		struct sfab_pkt_ud u = {
			.vl = SFAB_VL15, .dlid = pick_lid(f), .slid = n + 1,
			.pkey = SFAB_PKEY_DEFAULT, .dqpn = fz_u8(f) & 1,
			.qkey = SFAB_QP1_QKEY,
		};
		uint8_t hdr[SFAB_WIRE_MAX_PKT_LEN];

		if (sfab_link_pkt_build_ud(hdr, &u, buf, 0))
			memcpy(buf, hdr, SFAB_PKT_UD_HDR_LEN);
	}
	if (words && len >= SFAB_WIRE_LRH_LEN) {
		buf[4] = (buf[4] & ~(SFAB_LRH_PKTLEN_MASK >> 8)) | words >> 8;
		buf[5] = words & 0xff;
	}
	if ((flags & RAW_VL) && len)
		buf[0] = (buf[0] & 0x0f) | (fz_u8(f) & 1 ?
			 SFAB_VL15 : fz_below(f, cfg.num_data_vls)) << 4;
	if ((flags & RAW_SEAL) && len >= SFAB_WIRE_LRH_LEN + SFAB_WIRE_VCRC_LEN) {
		sfab_crc_seal(buf, len);
		if ((flags & RAW_BAD_ICRC) && len > SFAB_PKT_UD_HDR_LEN + 6) {
			buf[len - 7] ^= 1;
			sfab_crc_reseal_vcrc(buf, len);
		}
	}
	if (nodes[n].pulled)
		return;
	nodes[n].tainted = true;
	tf_send(&tf, tf.node[n].peer, buf, len);
}

static void op_fc(struct fz *f, unsigned int n)
{
	uint8_t fc[SFAB_WIRE_FC_PKT_LEN];
	uint8_t flags = fz_u8(f);
	uint16_t fctbs = fz_u16(f), fccl = fz_u16(f);

	sfab_link_make_fc(fc, flags & 3, (flags >> 2) & 15, fctbs, fccl);
	if (flags & 0x40)
		fc[fz_below(f, sizeof(fc))] ^= 1 + fz_below(f, 255);
	if (nodes[n].pulled)
		return;
	nodes[n].tainted = true;
	tf_send(&tf, tf.node[n].peer, fc, sizeof(fc));
}

/*
 * A fault routing notification from node @n: LID ranges as read, the
 * header's fields right or (flags) as read
 */
static void op_frn(struct fz *f, unsigned int n)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN], flags = fz_u8(f);
	struct sfab_pkt_ud u = {
		.vl = SFAB_VL15, .dlid = SFAB_LID_PERMISSIVE, .slid = n + 1,
		.pkey = SFAB_PKEY_DEFAULT,
	};
	struct sfab_wire_frn m;
	unsigned int i, count;

	memset(&m, 0, sizeof(m));
	sfab_frn_hdr_set(&m, 1 + (flags >> 7), 0);
	if (flags & 1)
		m.hdr.base_version = fz_u8(f);
	if (flags & 2)
		m.hdr.class_version = fz_u8(f);
	if (flags & 4)
		m.hdr.method = fz_u8(f);
	if (flags & 8)
		m.hdr.attr_id = sfab_cpu_to_be16(fz_u16(f));
	if (flags & 16)
		m.oui[2] = fz_u8(f);
	if (flags & 32)
		m.kind = fz_u8(f);
	count = fz_u8(f) % (SFAB_FRN_MAX_RANGES + 2);
	m.count = sfab_cpu_to_be16(count);
	for (i = 0; i < count && i < SFAB_FRN_MAX_RANGES; i++) {
		uint16_t first = flags & 64 ? fz_u16(f) : pick_lid(f);
		uint16_t span = fz_u8(f) < 200 ? 0 : fz_u16(f);

		m.range[i].first = sfab_cpu_to_be16(first);
		m.range[i].last = sfab_cpu_to_be16(first + span);
	}
	node_send(n, buf, sfab_link_pkt_build_ud(buf, &u, &m, sizeof(m)));
}

/* a backup forwarding entry, any LID and port */
static void op_alt(struct fz *f)
{
	struct sfab_sw *sw = tf.sw[fz_u8(f) & 1];
	uint16_t lid = pick_lid(f);

	sfab_sw_alt_set(sw, lid, pick_port(f));
}

static void op_lft(struct fz *f)
{
	struct sfab_sw *sw = tf.sw[fz_u8(f) & 1];
	uint8_t b = fz_u8(f);
	uint16_t lid = b & 1 ? pick_lid(f) % SFAB_SW_LFT_CAP : 1 + (b >> 1) % 32;
	uint8_t port = pick_port(f);

	if (b & 0x80)
		sw->lft[lid] = port;	/* however it got there */
	else
		sfab_sw_lft_set(sw, lid, port);
}

/* one port of an MFT entry, or (b & 0x40) the whole mask as an SM sets it */
static void op_mft(struct fz *f)
{
	struct sfab_sw *sw = tf.sw[fz_u8(f) & 1];
	uint8_t b = fz_u8(f);
	uint16_t mlid = b & 1 ? fz_u16(f) : SFAB_LID_MCAST_BASE + (b >> 1) % 4;
	unsigned int p, mask;

	if (!(b & 0x40)) {
		sfab_sw_mft_set_port(sw, mlid, fz_below(f, MAX_PORTS + 2),
				     b & 0x80);
		return;
	}
	mask = fz_u8(f);
	for (p = 0; p <= sw->cfg.nports; p++)
		sfab_sw_mft_set_port(sw, mlid, p, mask >> p & 1);
}

static void op_admin(struct fz *f)
{
	struct sfab_sw *sw = tf.sw[fz_u8(f) & 1];
	uint8_t b = fz_u8(f);

	sfab_sw_port_admin(sw, (b >> 1) % (sw->cfg.nports + 2), b & 1);
}

static void op_errors(struct fz *f)
{
	static const double rates[] = { 0, 0.25, 1, 0 };
	struct sfab_sw *sw = tf.sw[fz_u8(f) & 1];
	uint8_t b = fz_u8(f);
	unsigned int p = 1 + (b >> 2) % sw->cfg.nports;
	uint64_t period;

	switch (b & 3) {
	case 0:
		sfab_sw_port_ber(sw, p, rates[fz_below(f, 4)]);
		break;
	case 1:
		sfab_sw_port_drop(sw, p, rates[fz_below(f, 4)]);
		break;
	case 2:
		period = fz_below(f, 4) * FC_PERIOD;
		sfab_sw_port_flap(sw, p, period, period / 2);
		break;
	default:
		sfab_sw_port_errors_clear(sw, p);
		break;
	}
}

/* what an SM's SLtoVL, VLArbitration and PortInfo Sets configure, directly */
static void qos_port(struct fz *f, struct sfab_sw *sw,
		     struct sfab_sw_port *port, uint8_t b)
{
	struct sfab_sw_arb *arb = b & 4 ? &port->arb_high : &port->arb_low;
	unsigned int i, in, k, vl;
	uint8_t *map;

	switch (b & 3) {
	case 0:
		/* one VL arbitration entry; the table starts over, as a Set */
		i = fz_below(f, SFAB_SW_VLARB_ENTRIES);
		arb->vl[i] = fz_u8(f) & 15;
		arb->weight[i] = fz_u8(f);
		arb->idx = 0;
		arb->left = arb->weight[0];
		break;
	case 1:
		port->cfg.vl_high_limit = fz_u8(f);
		break;
	case 2:
		/* one SL of the table from an input port (N + 1: all) here */
		in = fz_below(f, sw->cfg.nports + 2);
		i = fz_u8(f) & 15;
		vl = fz_u8(f) & 15;
		for (k = 0; k <= sw->cfg.nports; k++) {
			if (k != in && in <= sw->cfg.nports)
				continue;
			map = sfab_sw_sl2vl(sw, k, port->num);
			map[i] = vl;
		}
		break;
	default:
		i = sfab_vl_cap(sw->cfg.num_data_vls);
		port->cfg.op_vls = fz_below(f, i + 1);
		break;
	}
}

static void op_qos(struct fz *f)
{
	struct sfab_sw *sw = tf.sw[fz_u8(f) & 1];
	uint8_t b = fz_u8(f);
	unsigned int p = (b >> 3) % (sw->cfg.nports + 1);
	struct fz start = *f;

	if (p) {
		qos_port(f, sw, &sw->port[p], b);
		return;
	}
	/* port 0: the same on every port */
	for (p = 1; p <= sw->cfg.nports; p++) {
		*f = start;
		qos_port(f, sw, &sw->port[p], b);
	}
}

enum {
	OP_DR_SMP, OP_LID_SMP, OP_PMA, OP_UD, OP_RC, OP_RAW, OP_FC,
	OP_LFT, OP_MFT, OP_ADMIN, OP_WITHHOLD, OP_GIVE_BACK, OP_CLOCK,
	OP_RUN, OP_ACTIVATE, OP_ERRORS, OP_QOS, OP_CABLE, OP_REPEAT, OP_FRN,
	OP_ALT, OP_NR
};

static void one_op(struct fz *f, bool may_repeat);

static void op_repeat(struct fz *f)
{
	unsigned int k = 2 + fz_below(f, MAX_REPEAT - 1), i;
	struct fz start = *f;

	for (i = 0; i < k; i++) {
		*f = start;
		one_op(f, false);
	}
}

static void one_op(struct fz *f, bool may_repeat)
{
	uint8_t op = fz_u8(f) % OP_NR;
	unsigned int n = fz_u8(f) % NNODES;

	switch (op) {
	case OP_DR_SMP:
		op_smp(f, n, SFAB_MGMT_CLASS_SUBN_DR);
		break;
	case OP_LID_SMP:
		op_smp(f, n, SFAB_MGMT_CLASS_SUBN_LID);
		break;
	case OP_PMA:
		op_pma(f, n);
		break;
	case OP_UD:
		op_ud(f, n);
		break;
	case OP_RC:
		op_rc(f, n);
		break;
	case OP_RAW:
		op_raw(f, n);
		break;
	case OP_FC:
		op_fc(f, n);
		break;
	case OP_LFT:
		op_lft(f);
		break;
	case OP_MFT:
		op_mft(f);
		break;
	case OP_ADMIN:
		op_admin(f);
		break;
	case OP_WITHHOLD:
		tf.node[n].auto_free = false;
		break;
	case OP_GIVE_BACK:
		node_give_back(n);
		tf.node[n].auto_free = true;
		break;
	case OP_CLOCK:
		tf.now += (uint64_t)fz_u16(f) * (fz_u8(f) & 1 ? 8 : 1);
		break;
	case OP_RUN:
		run_switch(n & 1);
		break;
	case OP_ACTIVATE:
		tf_activate(&tf);
		break;
	case OP_ERRORS:
		op_errors(f);
		break;
	case OP_QOS:
		op_qos(f);
		break;
	case OP_CABLE:
		cable(n, fz_u8(f) & 1);
		break;
	case OP_REPEAT:
		if (may_repeat)
			op_repeat(f);
		break;
	case OP_FRN:
		op_frn(f, n);
		break;
	case OP_ALT:
		op_alt(f);
		break;
	}
}

/* --- the end: quiet, empty, every credit back ------------------------------ */

static void sanitize(struct sfab_sw *sw)
{
	unsigned int p, i, nvl = sw->cfg.num_data_vls;

	/* no more routes: nothing circles between the switches for ever */
	memset(sw->lft, SFAB_LFT_NO_PORT, SFAB_SW_LFT_CAP);
	memset(sw->mft, 0, (size_t)SFAB_SW_MFT_CAP * sw->mft_chunks *
	       sizeof(*sw->mft));
	for (p = 1; p <= sw->cfg.nports; p++) {
		struct sfab_sw_port *port = &sw->port[p];

		sfab_sw_port_errors_clear(sw, p);
		sfab_sw_port_admin(sw, p, true);
		/* every data VL operated and weighted */
		sfab_mad_port_cfg_init(&port->cfg, sfab_vl_cap(nvl));
		memset(&port->arb_high, 0, sizeof(port->arb_high));
		memset(&port->arb_low, 0, sizeof(port->arb_low));
		for (i = 0; i < nvl; i++) {
			port->arb_low.vl[i] = i;
			port->arb_low.weight[i] = 64;
		}
		port->arb_low.left = 64;
	}
}

static void check_end(void)
{
	struct link_end e[NNODES + 1][2];
	bool honest[NNODES + 1];
	unsigned int s, p, v, r, n, k, nl;

	for (s = 0; s < NSW; s++)
		sanitize(tf.sw[s]);
	for (n = 0; n < NNODES; n++)
		if (nodes[n].pulled)
			cable(n, false);
	for (r = 0; r < END_ROUNDS; r++) {
		for (n = 0; n < NNODES; n++) {
			node_give_back(n);
			tf.node[n].auto_free = true;
		}
		tf.now += FC_PERIOD;
		for (n = 0; n < NNODES; n++)
			tf_node_flush_fc(&tf, n);
		pump(END_BUDGET);
		tf_activate(&tf);
	}
	pump(END_BUDGET);
	/* quiet: nothing keeps sending */
	CHECK(!tf.head);
	for (s = 0; s < NSW; s++) {
		struct sfab_sw *sw = tf.sw[s];

		/* no packet left stuck in a queue */
		CHECK_EQ(sw->queued, 0);
		for (p = 1; p <= sw->cfg.nports; p++) {
			const struct sfab_link *l = &sw->port[p].link;

			for (v = 0; v < l->cfg.num_data_vls; v++)
				CHECK_EQ(l->vl[v].used, 0);
			CHECK_EQ(l->vl15_used, 0);
		}
	}
	/* every credit back on every link that is up at both ends */
	nl = links(e, honest);
	for (k = 0; k < nl; k++) {
		for (r = 0; r < 2; r++) {
			const struct sfab_link *tx = e[k][r].l, *rx = e[k][!r].l;
			uint32_t want = rx->cfg.vl_blocks;

			if (!sfab_link_is_up(tx) || !sfab_link_is_up(rx))
				continue;
			if (want > SFAB_LINK_MAX_FCCL_AHEAD)
				want = SFAB_LINK_MAX_FCCL_AHEAD;
			for (v = 0; v < tx->cfg.num_data_vls; v++) {
				CHECK_EQ(rx->vl[v].abr, tx->vl[v].fctbs);
				CHECK_EQ(sfab_link_tx_credits(tx, v), want);
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	unsigned int ops;
	uint8_t b;

	sfab_sw_default_cfg(&cfg);
	b = fz_u8(&f);
	cfg.num_data_vls = 1 + b % SFAB_SW_DATA_VLS;
	/* up to past the 2048 blocks FCCL may run ahead */
	cfg.vl_blocks = sfab_link_blocks(SFAB_WIRE_MAX_PKT_LEN) +
			(fz_u8(&f) << (b >> 3 & 3) * 2);
	cfg.vl15_blocks = sfab_link_blocks(SFAB_WIRE_UD_MAD_PKT_LEN) +
			  fz_below(&f, 64);
	cfg.fc_period_ns = FC_PERIOD;
	fabric_up();
	pump(END_BUDGET);
	tf_activate(&tf);
	check_links();

	for (ops = 0; ops < MAX_OPS && fz_left(&f); ops++) {
		one_op(&f, true);
		pump(PUMP_BUDGET);
		check_links();
	}
	check_end();
	tf_fini(&tf);
	return 0;
}

/* --- seeds ----------------------------------------------------------------- */

static void seed_begin(struct fz_out *o, unsigned int vls, uint8_t blocks)
{
	o->n = 0;
	fo_u8(o, vls - 1);
	fo_u8(o, blocks);
	fo_u8(o, 10);
}

/* a DR SMP from node @n along @path (hop count @hc), structured data */
static void seed_dr(struct fz_out *o, unsigned int n, unsigned int attr_idx,
		    unsigned int method_idx, const uint8_t *path,
		    unsigned int hc)
{
	unsigned int i;

	fo_u8(o, OP_DR_SMP);
	fo_u8(o, n);
	fo_u8(o, SMP_RAW_MOD | SMP_RAW_DATA);
	fo_u8(o, attr_idx);
	fo_u8(o, method_idx);
	fo_u32(o, 0);			/* attribute modifier */
	fo_u8(o, 0x42);			/* TID */
	for (i = 0; i < SFAB_SMP_DATA_LEN; i++)
		fo_u8(o, 0);
	fo_u8(o, hc);			/* of 4 */
	for (i = 1; i <= hc; i++)
		fo_u8(o, path[i]);
}

/* the bytes pick_len() reads as @len */
static void seed_len(struct fz_out *o, size_t len)
{
	if (len < 0x80) {
		fo_u8(o, len);
		return;
	}
	fo_u8(o, 0x80 | len / 64);
	fo_u8(o, len % 64);
}

static void seed_ud(struct fz_out *o, unsigned int n, uint8_t lid_sel,
		    uint8_t vl, size_t len)
{
	fo_u8(o, OP_UD);
	fo_u8(o, n);
	fo_u8(o, 0);		/* flags */
	fo_u8(o, lid_sel);
	fo_u8(o, vl);
	fo_u8(o, 0);		/* PSN */
	seed_len(o, len);
	fo_u8(o, 0x5a);		/* fill */
}

static void seed_pma(struct fz_out *o, unsigned int n, bool to_b, uint8_t ps)
{
	fo_u8(o, OP_PMA);
	fo_u8(o, n);
	fo_u8(o, to_b);		/* flags: B's LID */
	fo_u8(o, ps);		/* PortSelect */
	fo_u8(o, 1);		/* PortCounters */
	fo_u8(o, 0);		/* Get */
	fo_u8(o, 0);
	fo_u8(o, 0);
}

/* node @n as a simple op with no operands of its own */
static void seed_op(struct fz_out *o, unsigned int op, unsigned int n)
{
	fo_u8(o, op);
	fo_u8(o, n);
}

/* pick_lid() selectors: node @n's LID, and a multicast LID */
#define SEL_NODE(n)	((uint8_t)((n) << 3))
#define SEL_MCAST(k)	((uint8_t)(3 | (k) << 3))

static void fuzz_seeds(void)
{
	static const uint8_t to_a[] = { 0, 1 };
	static const uint8_t to_b[] = { 0, 1, 3 };
	static const uint8_t b_to_a[] = { 0, 2, 1 };
	static const uint8_t a_b_node2[] = { 0, 1, 3, 2 };
	static struct fz_out o;
	unsigned int i, n;

	/* a directed-route walk: A, B, then through B back to A */
	seed_begin(&o, 2, 40);
	seed_dr(&o, 0, 0, 0, to_a, 1);		/* NodeInfo of A */
	seed_dr(&o, 0, 4, 0, to_a, 1);		/* PortInfo of A */
	seed_dr(&o, 0, 0, 0, to_b, 2);		/* NodeInfo of B */
	seed_dr(&o, 2, 0, 0, b_to_a, 2);	/* from node2 via B to A */
	seed_dr(&o, 0, 1, 0, a_b_node2, 3);	/* to node2: it keeps it */
	seed_dr(&o, 1, 2, 0, to_a, 1);		/* SwitchInfo of A */
	fz_seed_out("dr-walk", &o);

	/* a PortInfo Set: port 2 of A Down (it trains again) */
	seed_begin(&o, 4, 20);
	fo_u8(&o, OP_DR_SMP);
	fo_u8(&o, 0);
	fo_u8(&o, 0);			/* structured */
	fo_u8(&o, 4);			/* PortInfo */
	fo_u8(&o, 1);			/* Set */
	fo_u8(&o, 2);			/* port 2 */
	fo_u8(&o, 0);			/* no ext speeds bit */
	fo_u8(&o, 7);			/* TID */
	fo_u8(&o, SFAB_PORT_DOWN);
	fo_u8(&o, 0);			/* phys: NOP */
	fo_u8(&o, 3);			/* OperationalVLs: 4 */
	fo_u8(&o, SFAB_PI_MTU_4096);
	fo_u8(&o, 0);			/* VLHighLimit */
	fo_u8(&o, 2);			/* LID: A */
	fo_u8(&o, 0);			/* LMC */
	fo_u8(&o, 0);			/* SM LID 1 */
	fo_u8(&o, 0);			/* widths */
	fo_u8(&o, 0);			/* M_Key 0 */
	fo_u8(&o, 0);			/* M_KeyProtectBits */
	fo_u8(&o, 0);			/* M_KeyLeasePeriod */
	fo_u8(&o, 0);			/* no partition enforcement */
	fo_u8(&o, 1);			/* hop count 1 */
	fo_u8(&o, 1);
	seed_op(&o, OP_CLOCK, 0);
	fo_u16(&o, 0xffff);
	fo_u8(&o, 1);
	seed_op(&o, OP_ACTIVATE, 0);
	seed_ud(&o, 0, SEL_NODE(1), 0, 100);
	fz_seed_out("portinfo-set", &o);

	/*
	 * partitions: A's port 2 (node1) holds the default partition and
	 * 0x8001 and enforces both ways; node0 sends in 0x8001, 0x8002 and a
	 * limited 0x0001
	 */
	seed_begin(&o, 4, 40);
	fo_u8(&o, OP_DR_SMP);
	fo_u8(&o, 0);
	fo_u8(&o, 0);			/* structured */
	fo_u8(&o, 5);			/* PKeyTable */
	fo_u8(&o, 1);			/* Set */
	fo_u8(&o, 2);			/* port 2 */
	fo_u8(&o, 8);			/* TID */
	fo_u8(&o, 2);			/* two entries */
	fo_u8(&o, 0);			/* [0] */
	fo_u8(&o, 0);			/* 0xffff */
	fo_u8(&o, 1);			/* [1] */
	fo_u8(&o, 2);			/* 0x8001 */
	fo_u8(&o, 1);			/* hop count 1 */
	fo_u8(&o, 1);
	fo_u8(&o, OP_DR_SMP);
	fo_u8(&o, 0);
	fo_u8(&o, 0);
	fo_u8(&o, 4);			/* PortInfo */
	fo_u8(&o, 1);			/* Set */
	fo_u8(&o, 2);			/* port 2 */
	fo_u8(&o, 0);
	fo_u8(&o, 9);			/* TID */
	fo_u8(&o, 0);			/* PortState: NOP */
	fo_u8(&o, 0);			/* phys: NOP */
	fo_u8(&o, 3);			/* OperationalVLs: 4 */
	fo_u8(&o, SFAB_PI_MTU_4096);
	for (i = 0; i < 8; i++)		/* VLHighLimit .. M_KeyLeasePeriod */
		fo_u8(&o, 0);
	fo_u8(&o, SFAB_PI_ENF_IN | SFAB_PI_ENF_OUT);
	fo_u8(&o, 1);			/* hop count 1 */
	fo_u8(&o, 1);
	for (i = 0; i < 3; i++) {
		static const uint8_t key_sel[] = { 2, 4, 3 };

		fo_u8(&o, OP_UD);
		fo_u8(&o, 0);
		fo_u8(&o, 16);		/* flags: a P_Key of its own */
		fo_u8(&o, SEL_NODE(1));
		fo_u8(&o, 0);		/* VL0 */
		fo_u8(&o, i);		/* PSN */
		fo_u8(&o, key_sel[i]);
		seed_len(&o, 200);
		fo_u8(&o, 0x11);
	}
	fz_seed_out("partition", &o);

	/* PMA PortCounters of A's port 1 and of all B's ports */
	seed_begin(&o, 1, 0);
	seed_pma(&o, 0, false, 1);
	seed_pma(&o, 3, true, 255);
	seed_pma(&o, 2, false, 3);
	fz_seed_out("pma-portcounters", &o);

	/* unicast: every node to every other, on several VLs */
	seed_begin(&o, 4, 60);
	for (n = 0; n < NNODES; n++)
		for (i = 0; i < NNODES; i++)
			if (i != n)
				seed_ud(&o, n, SEL_NODE(i), i & 3, 160 + 300 * i);
	fz_seed_out("unicast", &o);

	/* multicast: MLID 0xc001 on node1 (A:2) and node3 (B:3), over A:3-B:1 */
	seed_begin(&o, 2, 80);
	fo_u8(&o, OP_MFT);
	fo_u8(&o, 0);
	fo_u8(&o, 0);		/* A */
	fo_u8(&o, 0x80 | 1 << 1);
	fo_u8(&o, 2);
	fo_u8(&o, OP_MFT);
	fo_u8(&o, 0);
	fo_u8(&o, 0);
	fo_u8(&o, 0x80 | 1 << 1);
	fo_u8(&o, 3);
	fo_u8(&o, OP_MFT);
	fo_u8(&o, 0);
	fo_u8(&o, 1);		/* B, the whole mask */
	fo_u8(&o, 0x40 | 1 << 1);
	fo_u8(&o, 1 << 1 | 1 << 3);
	seed_ud(&o, 0, SEL_MCAST(1), 0, 1000);
	seed_ud(&o, 2, SEL_MCAST(1), 1, 0x10);
	fz_seed_out("multicast", &o);

	/* QoS: a high-priority VL1 with a limit, SL 2 on VL3, mixed traffic */
	seed_begin(&o, 4, 60);
	for (i = 0; i < NSW; i++) {
		fo_u8(&o, OP_QOS);
		fo_u8(&o, 0);
		fo_u8(&o, i);
		fo_u8(&o, 4);		/* every port: a high-priority entry */
		fo_u8(&o, 0);
		fo_u8(&o, 1);		/* VL1 */
		fo_u8(&o, 16);		/* weight */
		fo_u8(&o, OP_QOS);
		fo_u8(&o, 0);
		fo_u8(&o, i);
		fo_u8(&o, 1);		/* every port: VLHighLimit */
		fo_u8(&o, 1);
		fo_u8(&o, OP_QOS);
		fo_u8(&o, 0);
		fo_u8(&o, i);
		fo_u8(&o, 2);		/* every port: SLtoVL from port 1 */
		fo_u8(&o, 1);
		fo_u8(&o, 2);		/* SL 2 to VL3 */
		fo_u8(&o, 3);
	}
	for (n = 0; n < 3; n++) {
		fo_u8(&o, OP_REPEAT);
		fo_u8(&o, 0);
		fo_u8(&o, 4);
		seed_ud(&o, 0, SEL_NODE(3), n, 1200);
	}
	fo_u8(&o, OP_UD);
	fo_u8(&o, 0);
	fo_u8(&o, 1);		/* flags: an SL of its own */
	fo_u8(&o, SEL_NODE(1));
	fo_u8(&o, 0);		/* VL0 */
	fo_u8(&o, 2);		/* SL 2 */
	fo_u8(&o, 0);
	seed_len(&o, 300);
	fo_u8(&o, 0x33);
	fz_seed_out("qos-arbitration", &o);

	/* incast: node3 keeps its buffers while the others send to it */
	seed_begin(&o, 1, 100);
	seed_op(&o, OP_WITHHOLD, 3);
	for (i = 0; i < 3; i++) {
		for (n = 0; n < 3; n++) {
			fo_u8(&o, OP_REPEAT);
			fo_u8(&o, 0);
			fo_u8(&o, 8);
			seed_ud(&o, n, SEL_NODE(3), 0, 500);
		}
	}
	seed_op(&o, OP_CLOCK, 0);
	fo_u16(&o, 5000);
	fo_u8(&o, 0);
	seed_pma(&o, 3, true, 3);
	seed_op(&o, OP_GIVE_BACK, 3);
	fz_seed_out("incast-withheld", &o);
}
