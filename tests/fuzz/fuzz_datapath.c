/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/datapath: the RC/UC datapath of two HCA engines cabled back to back
 * (tests/unit/rc_pair.h), driven one engine step at a time by a malicious
 * guest on each node and a lossy, malicious cable between them.
 *
 * Nothing runs to completion by itself: each op is at most a few engine
 * calls (one sfab_engine_process(), one frame delivered, one timer run),
 * so the next op lands between steps, while a message is half sent.
 *
 * Input: a configuration, then ops until the input ends (at most
 * DP_MAX_OPS).  Configuration (dp_up()): flags (UC; node 1 takes its
 * receives from an SRQ), path MTU, SQ depth and stride, CQ depth,
 * retry_cnt and rnr_retry (never 7), timeout (never 0), min_rnr_timer and
 * max_rd_atomic, both starting PSNs.  An op is a byte, a byte that picks
 * the node or direction and variants, then its arguments (dp_op()):
 *	POST		a send WQE (struct dp_spec: every opcode, inline, up
 *			to 7 SGEs, 0 .. 64 MTUs, keys live, stale or wrong),
 *			with its doorbell or without
 *	RECV		a receive (to the SRQ on an SRQ node)
 *	REWRITE_WQE	a posted send WQE written again as another one
 *	REWRITE		bytes of the SQ, RQ, CQ or SRQ ring, or of a WQE
 *	DB		an SQ, RQ or SRQ doorbell, near the index or any
 *	PROCESS		one sfab_engine_process()
 *	DELIVER		1 .. 8 frames off the cable
 *	DROP, DUP, SWAP	a data frame lost (its link credit too, or in the
 *			fabric past the link), handed to the transport again,
 *			or swapped with the next one
 *	TIMER		the clock on (1 us .. 10 s, or to the next timer)
 *	MODIFY		Error, Reset, SQD, RTS (new access rights), or
 *			connected again (one node, or both in step)
 *	POLL, CQ_DB	CQEs consumed, the CQ doorbell (any index, any arm)
 *	MR_REG, MR_DEREG  MRs over parts of the memory, any rights
 *	DMA_FAIL	DMA to a ring, the memory or all of it fails
 *	FILTER		a class of data frames lost in the fabric from now on
 *	RUN		deliver and run a while
 *	AENQ		async events taken
 * At the end the guest stops (no DMA failures), the cable delivers what
 * it holds (the filter stays) and time moves on to every timer due.
 *
 * Invariants:
 *  - bounded work per engine call: a doorbell sends no frame and writes
 *    no CQE; a process, timer or delivered frame sends at most the
 *    port's queues and SFAB_ENGINE_QP_QUOTA packets per QP (and one
 *    answer), a few flow-control packets, at most a CQE per WQE the
 *    queues hold, and O(QUOTA x SQ depth) DMA operations;
 *  - the frames on the cable stay within the credit the receiver gave
 *    (data blocks per VL within its buffer) and the link stays Active;
 *    every RC/UC frame parses, carries at most an MTU and asks a READ of
 *    at most max_msg_size;
 *  - the device writes only to its CQ ring (each CQE in the next slot,
 *    with its phase, never over one not consumed, for its QP), EQ, admin
 *    completion and event rings and live MRs that allow writing; it
 *    reads only the rings, the admin queue and live MRs; its CQ producer
 *    index is the CQEs written; a CQ doorbell is taken exactly when its
 *    index lies between the last one and the CQEs written;
 *  - send CQEs name SQ indices in order, each once, below the producer
 *    index; no more receive CQEs than receives posted; the consumer
 *    indices never pass the producer indices;
 *  - at the end the engines become quiet: the cable empties and every QP
 *    is idle in its state (RTS or SQD with nothing outstanding, RTR with
 *    nothing owed, Error flushed, Reset, Init), and something moves
 *    (a completion, a state, a PSN, a retry used up) at least every
 *    DP_STALE rounds: no livelock, no hang; idle stays idle as time
 *    goes on.
 *
 * Each input starts from the same snapshot of both nodes with their
 * links Active (dp_snap_make()).  SFAB_FUZZ_TRACE=1 prints every op and
 * the QPs after it, SFAB_FUZZ_VERBOSE=1 a summary of each input.
 */
#include "fuzz.h"

#include "rc_pair.h"

#define DP_MAX_OPS	256
#define DP_MEM		(64U << 10)	/* each node's data memory */
#define DP_NMR		4		/* MRs per node: slot 0 covers DP_MEM */
#define DP_WIRE		16384		/* frames a direction of the cable holds */
#define DP_PUMP_CALLS	4096		/* engine calls of one final round */
#define DP_FINAL_ROUNDS	512
#define DP_STALE	8		/* final rounds in a row that move nothing */
#define DP_QPS		1		/* QPs on each engine */

/* a WQE the guest writes (dp_wqe() makes it a struct qh_rc_send) */
struct dp_spec {
	uint8_t kind;		/* dp_opcodes[kind & 15]; 15: raw opcode kind >> 4 */
	uint8_t flags;		/* DP_F_* */
	uint16_t len;		/* bits 15:14 select the scale (dp_len()) */
	uint8_t nsge;		/* 1 + nsge % 4; bit 7: nsge & 7 (even 0) */
	uint16_t loff, roff;	/* local, remote offset in DP_MEM */
	uint8_t keys;		/* lkey: bits 2:0, rkey: bits 5:3 (dp_key()) */
	uint32_t imm;		/* immediate, swap/add, compare, garbage key */
};

#define DP_F_UNSIGNALED	0x01
#define DP_F_SOLICITED	0x02
#define DP_F_FENCE	0x04
#define DP_F_INLINE	0x08
#define DP_F_NO_DB	0x80	/* post without the doorbell */

enum dp_opcode {
	OP_POST,	/* node, spec */
	OP_RECV,	/* node, len, off, key, doorbell */
	OP_REWRITE_WQE,	/* node, slot back from the producer index, spec */
	OP_REWRITE,	/* node, ring, slot, offset, n, n bytes */
	OP_DB,		/* node, queue, index delta or raw index */
	OP_PROCESS,	/* node: one sfab_engine_process() */
	OP_DELIVER,	/* direction, frames (1 .. 8) */
	OP_DROP,	/* direction, which data frame */
	OP_DUP,		/* direction, which data frame: again, past the link */
	OP_SWAP,	/* direction, which data frame and the next */
	OP_TIMER,	/* nodes, how far */
	OP_MODIFY,	/* node, to what */
	OP_POLL,	/* node, CQEs, arm */
	OP_CQ_DB,	/* node, index delta, arm */
	OP_MR_REG,	/* node, slot, offset, length, access */
	OP_MR_DEREG,	/* node, slot */
	OP_DMA_FAIL,	/* node, region, part of it */
	OP_FILTER,	/* direction, classes of data frames dropped from now */
	OP_RUN,		/* engine calls (pump) */
	OP_AENQ,	/* node: take its async events */
	OP__COUNT
};

/* what an engine call is, for its bounds */
enum dp_call {
	CALL_DB,	/* a doorbell or register write */
	CALL_PROCESS,	/* sfab_engine_process(), sfab_engine_timer() */
	CALL_RX,	/* sfab_engine_cable_rx() */
	CALL_DUP,	/* sfab_engine_qp_rx_pkt(): a copy past the link */
};

struct dp_mr {
	bool valid;
	uint64_t addr, len;
	uint32_t key, access;
};

struct dp_count {
	unsigned long frames;	/* data frames sent */
	unsigned long fc;	/* flow-control frames sent */
	unsigned long cqes;	/* CQEs written */
	unsigned long dma;	/* DMA operations */
};

struct dp_node {
	uint64_t mem;			/* DP_MEM bytes */
	uint64_t dp_lo, dp_hi;		/* the datapath's memory: EQ .. RQ */
	struct dp_mr mr[DP_NMR];
	struct qh_srq srq;		/* node 1 with cfg.srq */
	bool use_srq;
	struct dp_count c;
	/* the CQ as the device wrote it and the guest gave it back */
	uint16_t cq_written, cq_ci;
	/* the QP's completions since its last Reset */
	uint16_t send_next;		/* the lowest SQ index a send CQE may name */
	unsigned long recvs;		/* receive CQEs */
	unsigned long posted;		/* receives the device took */
};

struct dp_frame {
	uint8_t *f;
	size_t len;
};

/* a direction of the cable: W[i] carries frames to node i */
struct dp_wire {
	struct dp_frame q[DP_WIRE];
	unsigned int head, n;
	unsigned int blocks[SFAB_LINK_MAX_DATA_VLS];	/* data blocks held */
	uint8_t filter;		/* dp_class() bits dropped on delivery */
};

static struct {
	struct rp_cfg cfg;
	unsigned int sq_slog, cq_log;
	bool trace;		/* SFAB_FUZZ_TRACE: what each op did */
	bool active;		/* the links went Active */
	bool checking;		/* past the setup: memory checks on */
	bool uc;
	struct dp_node n[2];
	struct dp_count before[2];
} dp;

static struct dp_wire W[2];
static struct sfab_engine_ops dp_ops;

static const uint8_t dp_opcodes[15] = {
	SFAB_WQE_SEND, SFAB_WQE_SEND, SFAB_WQE_SEND_IMM, SFAB_WQE_RDMA_WRITE,
	SFAB_WQE_RDMA_WRITE, SFAB_WQE_RDMA_WRITE_IMM, SFAB_WQE_RDMA_READ,
	SFAB_WQE_RDMA_READ, SFAB_WQE_ATOMIC_CS, SFAB_WQE_ATOMIC_FA,
	SFAB_WQE_SEND_INV, SFAB_WQE_LOCAL_INV, SFAB_WQE_ATOMIC_WRITE,
	SFAB_WQE_FLUSH, SFAB_WQE_BIND_MW,
};

static unsigned int dp_node_of(const void *opaque)
{
	if (opaque == RP[0].h)
		return 0;
	CHECK(opaque == RP[1].h);
	return 1;
}

static struct sfab_engine *dp_e(unsigned int i)
{
	return RP[i].h->e;
}

static struct sfab_engine_qp *dp_qp(unsigned int i)
{
	return &dp_e(i)->qp[RP[i].qp.qpn];
}

static uint32_t dp_mtu(void)
{
	return 128U << dp.cfg.mtu;
}

static unsigned int dp_sq_depth(void)
{
	return 1U << dp.cfg.sq_log;
}

/* the WQEs node @i's queues hold at most: one CQE each */
static unsigned long dp_wqes(unsigned int i)
{
	unsigned long n = 2UL * dp_sq_depth();

	if (dp.n[i].use_srq)
		n += 1U << dp.n[i].srq.log;
	return n * DP_QPS;
}

static bool dp_in(uint64_t lo, uint64_t len, uint64_t addr, size_t n)
{
	return addr >= lo && addr - lo <= len && n <= len - (addr - lo);
}

/* the part of node @i's memory a live MR with one of @access covers */
static bool dp_in_mr(unsigned int i, uint64_t addr, size_t len,
		     uint32_t access)
{
	unsigned int k;

	for (k = 0; k < DP_NMR; k++) {
		const struct dp_mr *m = &dp.n[i].mr[k];

		if (m->valid && (!access || (m->access & access)) &&
		    dp_in(m->addr, m->len, addr, len))
			return true;
	}
	return false;
}

/* --- memory: what the device may read and write ------------------------- */

static bool dp_read_ok(unsigned int i, uint64_t addr, size_t len)
{
	struct fake_host *h = RP[i].h;
	struct qh_qp *q = &RP[i].qp;
	struct dp_node *n = &dp.n[i];

	return dp_in(h->aq, sizeof(struct sfab_aq_cmd) << h->aq_mem, addr, len) ||
	       dp_in(h->scratch, 4096, addr, len) ||
	       dp_in(q->sq, (uint64_t)1 << (q->sq_log + q->sq_slog), addr, len) ||
	       dp_in(q->rq, (uint64_t)1 << (q->rq_log + q->rq_slog), addr, len) ||
	       (n->use_srq && dp_in(n->srq.ring, 64ULL << n->srq.log, addr, len)) ||
	       dp_in_mr(i, addr, len, 0);
}

/*
 * A CQE the device writes: the next slot, with its phase, over an entry
 * the guest has consumed, for the node's QP; a send one names the next
 * SQ indices in order, a receive one a receive the device took.
 */
static void dp_cqe(unsigned int i, uint64_t addr, const void *buf, size_t len)
{
	struct dp_node *n = &dp.n[i];
	const struct sfab_cqe *c = buf;
	struct sfab_engine_qp *qp = dp_qp(i);
	unsigned int log = RP[i].cq.log;
	uint16_t idx;

	CHECK_EQ(len, sizeof(*c));
	CHECK_EQ(addr, RP[i].cq.ring +
		 sfab_ring_slot(n->cq_written, log) * sizeof(*c));
	CHECK(sfab_ring_used(n->cq_written, n->cq_ci) < (1U << log));
	CHECK_EQ(c->flags & SFAB_CQE_PHASE, sfab_ring_phase(n->cq_written, log));
	CHECK_EQ(sfab_cqe_qpn(c), RP[i].qp.qpn);
	CHECK(sfab_cqe_opcode_known(sfab_cqe_opcode(c)));
	if (sfab_cqe_opcode(c) & SFAB_CQE_RECV) {
		CHECK(n->recvs < n->posted);
		return;
	}
	idx = sfab_le16_to_cpu(c->wqe_index);
	if (dp.trace)
		fprintf(stderr, "node %u CQE: SQ %u status %u (next %u, pi %u)\n",
			i, idx, c->status, n->send_next, qp->sq_pi);
	CHECK(sfab_ring_used(idx, n->send_next) <
	      sfab_ring_used(qp->sq_pi, n->send_next));
}

static bool dp_write_ok(unsigned int i, uint64_t addr, size_t len)
{
	struct fake_host *h = RP[i].h;
	struct qh_eq *eq = &RP[i].eq;

	if (dp_in(eq->ring, sizeof(struct sfab_eqe) << eq->log, addr, len))
		return len == sizeof(struct sfab_eqe) &&
		       !((addr - eq->ring) % sizeof(struct sfab_eqe));
	return dp_in(h->acq, sizeof(struct sfab_acq_entry) << h->acq_mem, addr,
		     len) ||
	       dp_in(h->aenq, sizeof(struct sfab_aenq_entry) << h->aenq_log,
		     addr, len) ||
	       dp_in_mr(i, addr, len, SFAB_ACCESS_LOCAL_WRITE |
			SFAB_ACCESS_REMOTE_WRITE | SFAB_ACCESS_REMOTE_ATOMIC);
}

static int dp_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	unsigned int i = dp_node_of(opaque);

	dp.n[i].c.dma++;
	if (dp.checking && len)
		CHECK(dp_read_ok(i, addr, len));
	return fh_dma_read(opaque, addr, buf, len);
}

static int dp_dma_write(void *opaque, uint64_t addr, const void *buf,
			size_t len)
{
	unsigned int i = dp_node_of(opaque);
	struct dp_node *n = &dp.n[i];
	struct qh_cq *cq = &RP[i].cq;
	bool is_cqe;
	int r;

	n->c.dma++;
	is_cqe = dp_in(cq->ring, sizeof(struct sfab_cqe) << cq->log, addr, len);
	if (is_cqe)
		dp_cqe(i, addr, buf, len);
	else if (dp.checking && len)
		CHECK(dp_write_ok(i, addr, len));
	r = fh_dma_write(opaque, addr, buf, len);
	if (is_cqe && !r) {
		const struct sfab_cqe *c = buf;

		n->cq_written++;
		n->c.cqes++;
		if (sfab_cqe_opcode(c) & SFAB_CQE_RECV)
			n->recvs++;
		else
			n->send_next = sfab_le16_to_cpu(c->wqe_index) + 1;
	}
	return r;
}

/* --- the cable ----------------------------------------------------------- */

static bool dp_is_fc(size_t len)
{
	return len == SFAB_WIRE_FC_PKT_LEN;
}

/* the filter class of a data frame: one bit */
static uint8_t dp_class(const uint8_t *f, size_t len)
{
	struct sfab_pkt_rc p;
	uint8_t op;

	if (!sfab_link_pkt_parse_rc(f, len, &p))
		return 0x80;
	op = p.opcode & SFAB_BTH_OP_MASK;
	if (op <= SFAB_OP_SEND_ONLY_IMM || op == SFAB_OP_SEND_LAST_INV ||
	    op == SFAB_OP_SEND_ONLY_INV)
		return 0x01;
	if (op <= SFAB_OP_WRITE_ONLY_IMM)
		return 0x02;
	if (op == SFAB_OP_READ_REQ)
		return 0x04;
	if (op <= SFAB_OP_READ_RESP_ONLY)
		return 0x08;
	if (op == SFAB_OP_ACK)
		return (p.syndrome & SFAB_AETH_KIND_MASK) == SFAB_AETH_ACK ?
		       0x10 : 0x20;
	return 0x40;		/* atomics, their ACKs, FLUSH, ATOMIC WRITE */
}

/*
 * A data frame an engine sent: within the credit the receiver gave; an
 * RC or UC packet well formed, within the MTU.  (VL15 is not flow
 * controlled: a trap the SMA sends, say.)
 */
static void dp_check_frame(unsigned int to, const uint8_t *f, size_t len)
{
	struct sfab_engine *e = dp_e(to);
	struct sfab_pkt_rc p;
	unsigned int vl = sfab_link_pkt_vl(f);

	CHECK(len <= SFAB_WIRE_MAX_PKT_LEN);
	if (vl == SFAB_VL15)
		return;
	CHECK(vl < e->port.link.cfg.num_data_vls);
	W[to].blocks[vl] += sfab_link_blocks(len);
	CHECK(W[to].blocks[vl] <= e->port.link.cfg.vl_blocks);
	if (len < sfab_link_pkt_bth_off(f) + SFAB_WIRE_BTH_LEN ||
	    !sfab_link_pkt_rc_hdrs(f[sfab_link_pkt_bth_off(f)]))
		return;		/* not RC, UC or XRC */
	CHECK(sfab_link_pkt_parse_rc(f, len, &p));
	CHECK(p.len <= dp_mtu());
	if ((p.opcode & SFAB_BTH_OP_MASK) == SFAB_OP_READ_REQ)
		CHECK(p.dma_len <= sfab_le32_to_cpu(e->profile.max_msg_size));
}

static void dp_tx(void *opaque, const uint8_t *f, size_t len)
{
	unsigned int from = dp_node_of(opaque), to = !from;
	struct dp_wire *w = &W[to];
	struct dp_frame *fr;

	if (dp_is_fc(len)) {
		dp.n[from].c.fc++;
	} else {
		dp.n[from].c.frames++;
		dp_check_frame(to, f, len);
	}
	CHECK(w->n < DP_WIRE);
	fr = &w->q[(w->head + w->n++) % DP_WIRE];
	fr->f = malloc(len ? len : 1);
	REQUIRE(fr->f);
	memcpy(fr->f, f, len);
	fr->len = len;
}

/* the frame @k places after the head of @w */
static struct dp_frame *dp_at(struct dp_wire *w, unsigned int k)
{
	return &w->q[(w->head + k) % DP_WIRE];
}

static void dp_unblock(unsigned int to, const struct dp_frame *fr)
{
	unsigned int vl = sfab_link_pkt_vl(fr->f);

	if (!dp_is_fc(fr->len) && vl != SFAB_VL15)
		W[to].blocks[vl] -= sfab_link_blocks(fr->len);
}

/* take the frame at @k off the cable (the caller frees it) */
static struct dp_frame dp_take(unsigned int to, unsigned int k)
{
	struct dp_wire *w = &W[to];
	struct dp_frame fr = *dp_at(w, k);
	unsigned int j;

	for (j = k; j > 0; j--)
		*dp_at(w, j) = *dp_at(w, j - 1);
	w->head = (w->head + 1) % DP_WIRE;
	w->n--;
	dp_unblock(to, &fr);
	return fr;
}

/* the place of the @k-th data frame on @w (in its first 64); -1: none */
static int dp_data_frame(const struct dp_wire *w, unsigned int k)
{
	unsigned int j;

	for (j = 0; j < w->n && j < 64; j++) {
		if (dp_is_fc(w->q[(w->head + j) % DP_WIRE].len))
			continue;
		if (!k--)
			return (int)j;
	}
	return -1;
}

static void dp_wire_clear(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		while (W[i].n) {
			struct dp_frame fr = dp_take(i, 0);

			free(fr.f);
		}
		memset(&W[i], 0, sizeof(W[i]));
	}
}

/* --- engine calls and their bounds --------------------------------------- */

static void dp_begin(void)
{
	dp.before[0] = dp.n[0].c;
	dp.before[1] = dp.n[1].c;
}

static void dp_end(unsigned int i, enum dp_call k)
{
	const struct dp_count *c = &dp.n[i].c, *b = &dp.before[i];
	const struct dp_count *o = &dp.n[!i].c, *ob = &dp.before[!i];
	struct sfab_engine *e = dp_e(i);
	unsigned long frames = c->frames - b->frames, fc = c->fc - b->fc;
	unsigned long cqes = c->cqes - b->cqes, dma = c->dma - b->dma;
	unsigned long steps = SFAB_ENGINE_QP_QUOTA * DP_QPS;
	unsigned long step_dma = 6UL * dp_sq_depth() + 64;

	/* one engine at a time: the other one did nothing */
	CHECK(!memcmp(o, ob, sizeof(*o)));
	switch (k) {
	case CALL_DB:
		/* the work a doorbell starts runs in sfab_engine_process() */
		CHECK_EQ(frames, 0);
		CHECK_EQ(fc, 0);
		CHECK_EQ(cqes, 0);
		CHECK(dma <= 1);	/* an EQE for an armed CQ */
		break;
	case CALL_DUP:
		CHECK(frames <= 1);
		CHECK_EQ(fc, 0);
		CHECK(cqes <= dp_wqes(i));
		CHECK(dma <= step_dma + dp_wqes(i));
		break;
	default:
		CHECK(frames <= SFAB_ENGINE_TXQ_LEN + SFAB_ENGINE_ACKQ_LEN +
		      steps + (k == CALL_RX));
		CHECK(fc <= 2UL * e->port.link.cfg.num_data_vls + 1);
		CHECK(cqes <= dp_wqes(i));
		CHECK(dma <= (steps + 2) * step_dma + 2 * dp_wqes(i) + 64);
		break;
	}
	/* the device completes only WQEs it was given */
	CHECK(sfab_ring_used(dp_qp(i)->sq_pi, dp_qp(i)->sq_ci) <= dp_sq_depth());
	CHECK(sfab_ring_used(dp_qp(i)->rq_pi, dp_qp(i)->rq_ci) <=
	      (1U << RP[i].qp.rq_log));
	/* the device's CQ producer index is the CQEs it wrote */
	CHECK_EQ(e->cq[RP[i].cq.cqn].pi, dp.n[i].cq_written);
	/* nobody sent more than the link's credit: it stays up */
	if (dp.active)
		CHECK_EQ(e->port.link.state, SFAB_PORT_ACTIVE);
	CHECK_EQ(e->port.link.cnt.excessive_buffer_overrun, 0);
}

static void dp_process(unsigned int i)
{
	dp_begin();
	sfab_engine_process(dp_e(i));
	dp_end(i, CALL_PROCESS);
}

static void dp_timer(unsigned int i)
{
	dp_begin();
	sfab_engine_timer(dp_e(i));
	dp_end(i, CALL_PROCESS);
}

/*
 * A data frame the fabric loses past node @to's link: the link takes it
 * (its credit comes back) and the port does its work, but no QP sees it
 */
static void dp_fabric_loss(unsigned int to, const struct dp_frame *fr)
{
	struct sfab_engine *e = dp_e(to);
	unsigned int vl;

	dp_begin();
	if (sfab_link_rx(&e->port.link, fr->f, fr->len, &vl) ==
	    SFAB_LINK_RX_DATA)
		sfab_link_rx_free(&e->port.link, vl, fr->len);
	sfab_engine_timer(e);
	dp_end(to, CALL_RX);
}

/* the head frame of the cable to node @to, unless the filter drops it */
static void dp_deliver(unsigned int to)
{
	struct dp_frame fr = dp_take(to, 0);

	if (!dp_is_fc(fr.len) && (dp_class(fr.f, fr.len) & W[to].filter)) {
		dp_fabric_loss(to, &fr);
	} else {
		dp_begin();
		sfab_engine_cable_rx(dp_e(to), fr.f, fr.len);
		dp_end(to, CALL_RX);
	}
	free(fr.f);
}

/* deliver and run until nothing moves, at most @calls engine calls */
static bool dp_pump(unsigned long calls)
{
	while (calls) {
		bool moved = false;
		unsigned int i;

		for (i = 0; i < 2 && calls; i++) {
			if (W[i].n) {
				dp_deliver(i);
				moved = true;
				calls--;
			}
			if (calls && sfab_engine_work_pending(dp_e(i))) {
				dp_process(i);
				moved = true;
				calls--;
			}
		}
		if (!moved)
			return true;
	}
	return false;
}

static int dp_cmd(unsigned int i, struct sfab_aq_cmd *c, uint32_t *result0)
{
	struct fake_host *h = RP[i].h;
	struct sfab_acq_entry cpl;
	uint16_t id = host_post(h, c);
	bool pending;

	dp_begin();
	pending = sfab_engine_reg_write(h->e, SFAB_REG_AQ_DB, h->aq_tail);
	dp_end(i, CALL_DB);
	CHECK(pending);
	/* a command runs in one call */
	dp_process(i);
	CHECK(host_poll(h, &cpl));
	CHECK_EQ(sfab_le16_to_cpu(cpl.cmd_id), id);
	if (result0)
		*result0 = sfab_le32_to_cpu(cpl.result0);
	return cpl.status;
}

/* --- the guest ------------------------------------------------------------ */

/* the QP went to Reset: its rings start over, nothing completes */
static void dp_reset_seen(unsigned int i)
{
	RP[i].qp.sq_pi = 0;
	RP[i].qp.rq_pi = 0;
	dp.n[i].send_next = 0;
	/* an SRQ's receives are not the QP's: they stay */
	if (!dp.n[i].use_srq) {
		dp.n[i].recvs = 0;
		dp.n[i].posted = 0;
	}
}

static int dp_modify(unsigned int i, uint8_t state, uint32_t mask,
		     uint32_t access)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_aq_modify_qp *m = &c.u.modify_qp;
	int st;

	m->qpn = sfab_cpu_to_le32(RP[i].qp.qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | mask);
	m->state = state;
	m->access_flags = sfab_cpu_to_le32(access);
	st = dp_cmd(i, &c, NULL);
	if (!st && state == SFAB_QPS_RESET)
		dp_reset_seen(i);
	return st;
}

/* Reset -> Init -> RTR -> RTS with the configuration, these PSNs */
static int dp_connect(unsigned int i, uint32_t sq_psn, uint32_t rq_psn)
{
	const struct rp_cfg *k = &dp.cfg;
	struct sfab_aq_cmd c;
	struct sfab_aq_modify_qp *m = &c.u.modify_qp;
	int st;

	st = dp_modify(i, SFAB_QPS_RESET, 0, 0);
	if (st)
		return st;
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	m->qpn = sfab_cpu_to_le32(RP[i].qp.qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_PKEY_INDEX |
					SFAB_QP_ATTR_PORT | SFAB_QP_ATTR_ACCESS);
	m->state = SFAB_QPS_INIT;
	m->port_num = 1;
	m->access_flags = sfab_cpu_to_le32(k->access);
	st = dp_cmd(i, &c, NULL);
	if (st)
		return st;
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	m->qpn = sfab_cpu_to_le32(RP[i].qp.qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_AV |
					SFAB_QP_ATTR_PATH_MTU | SFAB_QP_ATTR_DEST_QPN |
					SFAB_QP_ATTR_RQ_PSN |
					(dp.uc ? 0 : SFAB_QP_ATTR_RD_ATOMIC |
						     SFAB_QP_ATTR_MIN_RNR_TIMER));
	m->state = SFAB_QPS_RTR;
	m->dlid = sfab_cpu_to_le16(i ? RP_LID0 : RP_LID1);
	m->path_mtu = k->mtu;
	m->dest_qpn = sfab_cpu_to_le32(RP[!i].qp.qpn);
	m->rq_psn = sfab_cpu_to_le32(rq_psn);
	m->max_dest_rd_atomic = k->rd_atomic;
	m->min_rnr_timer = k->min_rnr_timer;
	st = dp_cmd(i, &c, NULL);
	if (st)
		return st;
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	m->qpn = sfab_cpu_to_le32(RP[i].qp.qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_SQ_PSN |
					(dp.uc ? 0 : SFAB_QP_ATTR_TIMEOUT |
						     SFAB_QP_ATTR_RETRY |
						     SFAB_QP_ATTR_RD_ATOMIC));
	m->state = SFAB_QPS_RTS;
	m->sq_psn = sfab_cpu_to_le32(sq_psn);
	m->timeout = k->timeout;
	m->retry_cnt = k->retry_cnt;
	m->rnr_retry = k->rnr_retry;
	m->max_rd_atomic = k->rd_atomic;
	return dp_cmd(i, &c, NULL);
}

/* an MR over [off, off + len) of node @i's memory into slot @k */
static void dp_mr_reg(unsigned int i, unsigned int k, uint64_t off,
		      uint64_t len, uint32_t access)
{
	struct fake_host *h = RP[i].h;
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_MR);
	struct sfab_aq_create_mr *m = &c.u.create_mr;
	uint64_t addr = dp.n[i].mem + off, first = addr & ~4095ULL;
	uint64_t pbl = h->scratch + 2048;
	uint32_t npages = (uint32_t)(((addr + len + 4095) & ~4095ULL) - first) >> 12;
	uint32_t key, j;

	for (j = 0; j < npages; j++) {
		uint64_t v = sfab_cpu_to_le64(first + ((uint64_t)j << 12));

		memcpy(hp(h, pbl + j * 8), &v, 8);
	}
	m->iova = sfab_cpu_to_le64(addr);
	m->length = sfab_cpu_to_le64(len);
	m->pbl_addr = sfab_cpu_to_le64(pbl);
	m->npages = sfab_cpu_to_le32(npages);
	m->pdn = sfab_cpu_to_le32(RP_PD);
	m->access = sfab_cpu_to_le32(access);
	m->page_shift = 12;
	if (dp_cmd(i, &c, &key))
		return;
	dp.n[i].mr[k] = (struct dp_mr){
		.valid = true, .addr = addr, .len = len, .key = key,
		.access = access,
	};
}

static void dp_mr_dereg(unsigned int i, unsigned int k)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_MR);
	struct dp_mr *m = &dp.n[i].mr[k];

	if (!m->valid)
		return;
	c.u.destroy_mr.key = sfab_cpu_to_le32(m->key);
	if (!dp_cmd(i, &c, NULL))
		m->valid = false;	/* the key stays: WQEs may still name it */
}

/* a doorbell write of node @i */
static void dp_db(unsigned int i, uint32_t reg, uint32_t num, uint16_t idx,
		  uint8_t arm)
{
	dp_begin();
	sfab_engine_db_write(dp_e(i), reg, sfab_db_val(num, idx, arm), 8,
			     SFAB_DB_SRC_CPU);
	dp_end(i, CALL_DB);
}

/* the SQ or RQ doorbell with producer index @idx */
static void dp_qp_db(unsigned int i, bool sq, uint16_t idx)
{
	struct sfab_engine_qp *qp = dp_qp(i);
	uint16_t old = sq ? qp->sq_pi : qp->rq_pi, now;

	dp_db(i, RP[i].qp.db_page * SFAB_DB_PAGE_SIZE +
	      (sq ? SFAB_DB_SQ : SFAB_DB_RQ), RP[i].qp.qpn, idx, 0);
	now = sq ? qp->sq_pi : qp->rq_pi;
	/* taken or not: nothing else */
	CHECK(now == old || now == idx);
	CHECK(sfab_ring_used(now, sq ? qp->sq_ci : qp->rq_ci) <=
	      (sq ? dp_sq_depth() : 1U << RP[i].qp.rq_log));
	if (!sq && qp->state != SFAB_QPS_RESET)
		dp.n[i].posted += sfab_ring_used(now, old);
}

static void dp_srq_db(unsigned int i, uint16_t idx)
{
	struct dp_node *n = &dp.n[i];
	struct sfab_engine_srq *s = &dp_e(i)->srq[n->srq.srqn];
	uint16_t old = s->pi;

	dp_db(i, n->srq.db_page * SFAB_DB_PAGE_SIZE + SFAB_DB_SRQ,
	      n->srq.srqn, idx, 0);
	CHECK(s->pi == old || s->pi == idx);
	CHECK(sfab_ring_used(s->pi, s->ci) <= (1U << n->srq.log));
	n->posted += sfab_ring_used(s->pi, old);
}

/*
 * The CQ doorbell: taken exactly when @idx lies between the guest's last
 * index and the CQEs written (and the arm is one)
 */
static void dp_cq_db(unsigned int i, uint16_t idx, uint8_t arm)
{
	struct dp_node *n = &dp.n[i];
	struct qh_cq *cq = &RP[i].cq;
	bool ok = sfab_ring_used(idx, n->cq_ci) <=
		  sfab_ring_used(n->cq_written, n->cq_ci) &&
		  arm <= SFAB_DB_ARM_SOLICITED;

	dp_db(i, cq->db_page * SFAB_DB_PAGE_SIZE + SFAB_DB_CQ, cq->cqn, idx,
	      arm);
	if (ok)
		n->cq_ci = idx;
	CHECK_EQ(dp_e(i)->cq[cq->cqn].ci, n->cq_ci);
}

/* the guest takes the async events of node @i and gives the entries back */
static void dp_aenq(unsigned int i)
{
	struct fake_host *h = RP[i].h;
	unsigned int n;

	for (n = 0; n < (1U << h->aenq_log); n++) {
		struct sfab_aenq_entry *ev =
			hp(h, h->aenq + sfab_ring_slot(h->aenq_head, h->aenq_log) *
			   sizeof(*ev));

		if (!sfab_ring_entry_is_new(ev->flags & SFAB_AENQ_FLAGS_PHASE,
					    h->aenq_head, h->aenq_log))
			break;
		h->aenq_head++;
	}
	dp_begin();
	sfab_engine_reg_write(h->e, SFAB_REG_AENQ_HEAD, h->aenq_head);
	dp_end(i, CALL_DB);
}

/* a key of node @i's: an MR slot's (live or not), a wrong one, DMA's */
static uint32_t dp_key(unsigned int i, unsigned int k, uint32_t junk)
{
	if (k < DP_NMR)
		return dp.n[i].mr[k].key;
	if (k == 4)
		return junk;
	if (k == 5)
		return SFAB_ENGINE_LOCAL_DMA_LKEY;
	return dp.n[i].mr[0].key;
}

static uint32_t dp_len(uint16_t sel)
{
	uint32_t mtu = dp_mtu(), len;

	switch (sel >> 14) {
	case 0:
		len = sel & 63;
		break;
	case 1:	/* an MTU multiple, one byte either side */
		len = mtu * (sel & 7) + ((sel >> 3) & 3);
		len = len ? len - 1 : 0;
		break;
	case 2:
		len = sel & 0x3fff;
		break;
	default:
		len = mtu * (1 + (sel & 63));
		break;
	}
	return len < DP_MEM / 2 ? len : DP_MEM / 2;
}

static void dp_spec_read(struct fz *f, struct dp_spec *s)
{
	s->kind = fz_u8(f);
	s->flags = fz_u8(f);
	s->len = fz_u16(f);
	s->nsge = fz_u8(f);
	s->loff = fz_u16(f);
	s->roff = fz_u16(f);
	s->keys = fz_u8(f);
	s->imm = fz_u32(f);
}

/* the WQE @sp makes on node @i */
static void dp_wqe(unsigned int i, const struct dp_spec *sp,
		   struct qh_rc_send *s)
{
	uint8_t op = (sp->kind & 15) == 15 ? sp->kind >> 4 :
		     dp_opcodes[sp->kind & 15];
	uint32_t len = dp_len(sp->len), loff, roff, part, k;
	bool atomic;

	atomic = op == SFAB_WQE_ATOMIC_CS || op == SFAB_WQE_ATOMIC_FA;
	if (atomic)
		len = 8;
	memset(s, 0, sizeof(*s));
	s->opcode = op;
	s->wr_id = (uint64_t)sp->imm << 8 | sp->kind;
	s->flags = (sp->flags & DP_F_UNSIGNALED ? 0 : SFAB_WQE_SIGNALED) |
		   (sp->flags & DP_F_SOLICITED ? SFAB_WQE_SOLICITED : 0) |
		   (sp->flags & DP_F_FENCE ? SFAB_WQE_FENCE : 0);
	loff = sp->loff % (DP_MEM - len + 1);
	roff = sp->roff % (DP_MEM - len + 1);
	if (atomic || op == SFAB_WQE_ATOMIC_WRITE) {
		loff &= ~7U;
		roff &= ~7U;
	}
	s->imm = op == SFAB_WQE_SEND_INV || op == SFAB_WQE_LOCAL_INV ?
		 dp_key(i ^ (op == SFAB_WQE_SEND_INV), (sp->keys >> 3) & 7,
			sp->imm) : sp->imm;
	s->raddr = RP[!i].mem + roff;
	s->rkey = dp_key(!i, (sp->keys >> 3) & 7, sp->imm);
	s->swap_add = sp->imm;
	s->compare = sp->imm >> 1;
	s->flush_len = len;
	s->flush_type = SFAB_FLUSH_GLOBAL;
	s->flush_level = sp->imm & 1 ? SFAB_FLUSH_MR : SFAB_FLUSH_RANGE;
	if (op == SFAB_WQE_ATOMIC_WRITE || op == SFAB_WQE_FLUSH)
		return;		/* no local data */
	if ((sp->flags & DP_F_INLINE) && !atomic) {
		s->flags |= SFAB_WQE_INLINE;
		s->inl = hp(RP[i].h, RP[i].mem + loff);
		s->inl_len = len;
		return;
	}
	s->nsge = sp->nsge & 0x80 ? sp->nsge & 7 : 1 + sp->nsge % 4;
	if (atomic)
		s->nsge = 1;
	part = s->nsge ? len / s->nsge : 0;
	for (k = 0; k < s->nsge; k++) {
		s->sge[k].addr = RP[i].mem + loff + part * k;
		s->sge[k].len = k == s->nsge - 1U ? len - part * k : part;
		s->sge[k].lkey = dp_key(i, sp->keys & 7, sp->imm);
	}
}

/* the send WQE @sp at SQ index @idx of node @i (no doorbell) */
static void dp_write_wqe(unsigned int i, uint16_t idx, const struct dp_spec *sp)
{
	struct qh_rc_send s;
	uint16_t pi = RP[i].qp.sq_pi;

	dp_wqe(i, sp, &s);
	if (dp.trace)
		fprintf(stderr, "node %u SQ %u: opcode %u flags 0x%x %u SGEs keys %x %x\n",
			i, idx, s.opcode, s.flags, s.nsge,
			s.nsge ? s.sge[0].lkey : 0, s.rkey);
	RP[i].qp.sq_pi = idx;
	qh_post_rc(RP[i].h, &RP[i].qp, &s);
	RP[i].qp.sq_pi = pi;
}

static void dp_post(unsigned int i, const struct dp_spec *sp)
{
	dp_write_wqe(i, RP[i].qp.sq_pi, sp);
	RP[i].qp.sq_pi++;
	if (!(sp->flags & DP_F_NO_DB))
		dp_qp_db(i, true, RP[i].qp.sq_pi);
}

static void dp_recv(unsigned int i, uint16_t sel, uint16_t off, uint8_t key,
		    bool db)
{
	struct dp_node *n = &dp.n[i];
	uint32_t len = dp_len(sel);
	uint64_t addr = RP[i].mem + off % (DP_MEM - len + 1);
	uint32_t lkey = dp_key(i, key & 7, off);
	struct sfab_rwqe_ctrl rc;
	struct sfab_sge sge;
	uint8_t *w;

	if (!n->use_srq) {
		qh_post_recv(RP[i].h, &RP[i].qp, sel, addr, len, lkey);
		if (db)
			dp_qp_db(i, false, RP[i].qp.rq_pi);
		return;
	}
	w = hp(RP[i].h, n->srq.ring + (sfab_ring_slot(n->srq.pi, n->srq.log) << 6));
	memset(&rc, 0, sizeof(rc));
	rc.wr_id = sfab_cpu_to_le64(sel);
	rc.num_sge = 1;
	sge.addr = sfab_cpu_to_le64(addr);
	sge.length = sfab_cpu_to_le32(len);
	sge.lkey = sfab_cpu_to_le32(lkey);
	memcpy(w, &rc, sizeof(rc));
	memcpy(w + 16, &sge, sizeof(sge));
	n->srq.pi++;
	if (db)
		dp_srq_db(i, n->srq.pi);
}

/* the bytes of ring @ring of node @i: *len of them at the result */
static uint64_t dp_ring(unsigned int i, unsigned int ring, uint64_t *len)
{
	struct qh_qp *q = &RP[i].qp;

	switch (ring) {
	case 1:
		*len = (uint64_t)1 << (q->rq_log + q->rq_slog);
		return q->rq;
	case 2:
		*len = sizeof(struct sfab_cqe) << RP[i].cq.log;
		return RP[i].cq.ring;
	case 3:	/* the SRQ, where there is one */
		if (!dp.n[i].use_srq)
			break;
		*len = 64ULL << dp.n[i].srq.log;
		return dp.n[i].srq.ring;
	default:
		break;
	}
	*len = (uint64_t)1 << (q->sq_log + q->sq_slog);
	return q->sq;
}

/* --- the end: quiet, every QP idle ----------------------------------------- */

static bool dp_resp_idle(const struct sfab_engine_qp *qp)
{
	unsigned int k;

	if (qp->rc.ack_owed || qp->rc.nak_owed)
		return false;
	for (k = 0; k < qp->rc.rd_next; k++) {
		const struct sfab_engine_rd_atom *r =
			&qp->rc.rd[(qp->rc.rd_head + k) % SFAB_ENGINE_MAX_RD_ATOM];

		if (r->sent < r->npsn)
			return false;
	}
	return true;
}

static bool dp_idle(unsigned int i)
{
	const struct sfab_engine_qp *qp = dp_qp(i);
	const struct sfab_engine_port *p = &dp_e(i)->port;
	uint16_t end;

	/* frames waiting in the port for credit */
	if (p->txq_len || p->ackq_len)
		return false;
	switch (qp->state) {
	case SFAB_QPS_RESET:
	case SFAB_QPS_INIT:
		return true;
	case SFAB_QPS_ERR:
		return !qp->flushing && !qp->sched;
	case SFAB_QPS_RTR:
		return dp_resp_idle(qp);
	case SFAB_QPS_RTS:
	case SFAB_QPS_SQD:
		end = qp->state == SFAB_QPS_SQD && qp->sq_ci == qp->sqd_stop ?
		      qp->sqd_stop : qp->sq_pi;
		return dp_resp_idle(qp) && qp->sq_ci == end &&
		       qp->rc.una_psn == qp->sq_psn;
	default:
		return false;
	}
}

/* what moves: completions, states, PSNs, ring indices, retries used */
struct dp_mark {
	uint16_t cqw, sq_ci, rq_ci;
	uint8_t state, retry_left, rnr_left;
	uint32_t una, rq_psn, msn;
};

static void dp_mark(struct dp_mark m[2])
{
	unsigned int i;

	memset(m, 0, 2 * sizeof(*m));
	for (i = 0; i < 2; i++) {
		const struct sfab_engine_qp *qp = dp_qp(i);

		m[i].cqw = dp.n[i].cq_written;
		m[i].sq_ci = qp->sq_ci;
		m[i].rq_ci = qp->rq_ci;
		m[i].state = qp->state;
		m[i].una = qp->rc.una_psn;
		m[i].rq_psn = qp->rq_psn;
		m[i].msn = qp->rc.msn;
		m[i].retry_left = qp->rc.retry_left;
		m[i].rnr_left = qp->rc.rnr_left;
	}
}

/* what a QP of node @i is doing, for a report */
static void dp_dump(unsigned int i)
{
	const struct sfab_engine_qp *qp = dp_qp(i);
	const struct sfab_engine *e = dp_e(i);

	fprintf(stderr, "node %u QP %u state %u idle %d pending %d timer %llu now %llu\n",
		i, RP[i].qp.qpn, qp->state, dp_idle(i),
		sfab_engine_work_pending(e), (unsigned long long)e->rc_timer_at,
		(unsigned long long)RP[i].h->now);
	fprintf(stderr, "  sq %u..%u send %u+%u stop %u una %06x sq_psn %06x max %06x\n",
		qp->sq_ci, qp->sq_pi, qp->rc.snd_idx, qp->rc.snd_off,
		qp->sqd_stop, qp->rc.una_psn, qp->sq_psn, qp->rc.max_psn);
	fprintf(stderr, "  retry %u rnr %u%s ack_at %llu sched %d txq %u ackq %u\n",
		qp->rc.retry_left, qp->rc.rnr_left,
		qp->rc.rnr_wait ? " (waiting)" : "",
		(unsigned long long)qp->rc.ack_at, qp->sched, e->port.txq_len,
		e->port.ackq_len);
	fprintf(stderr, "  rq %u..%u rq_psn %06x ack %d nak %d rd %u+%u\n",
		qp->rq_ci, qp->rq_pi, qp->rq_psn, qp->rc.ack_owed,
		qp->rc.nak_owed, qp->rc.rd_head, qp->rc.rd_next);
}

/*
 * Each node's clock on to its next RC timer (or a while), timers run.  A
 * port that waits for link credit gets it back with the next periodic
 * flow-control packet (the blocks of frames the cable lost): its RC
 * timers wait as long, so the clock goes there.
 */
static void dp_next_timer(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct fake_host *h = RP[i].h;
		uint64_t t = sfab_engine_qp_deadline(h->e);
		uint64_t fc = sfab_link_fc_deadline(&h->e->port.link);

		if ((h->e->sq_blocked || h->e->port.txq_len ||
		     h->e->port.ackq_len) && (t == UINT64_MAX || fc > t))
			t = fc;
		if (t == UINT64_MAX)
			h->now += 1000000;
		else if (h->now < t)
			h->now = t;
	}
	for (i = 0; i < 2; i++)
		dp_timer(i);
}

/*
 * The guest stops; the cable (its filter still on) and the timers go on
 * until both engines are quiet and every QP idle.  Each round delivers
 * and runs until the engines are quiet (or DP_PUMP_CALLS), then the
 * clocks move on to the next timer.  Something must move in every few
 * rounds: a completion, a state, a PSN acknowledged or received, or a
 * retry or RNR retry used up (each QP has a few); rounds that move
 * nothing (the engines busy, or waiting for nothing) are a livelock or a
 * hang.
 */
static void dp_finish(void)
{
	unsigned int stale = 0, round, i;
	unsigned long frames;
	struct dp_mark a[2], b[2];

	for (i = 0; i < 2; i++) {
		RP[i].h->fail_lo = 0;
		RP[i].h->fail_hi = 0;
	}
	dp_mark(a);
	for (round = 0;; round++) {
		bool quiet = dp_pump(DP_PUMP_CALLS);

		if (quiet && dp_idle(0) && dp_idle(1))
			break;
		if (dp.trace) {
			fprintf(stderr, "round %u quiet %d\n", round, quiet);
			dp_dump(0);
			dp_dump(1);
		}
		dp_mark(b);
		stale = memcmp(a, b, sizeof(a)) ? 0 : stale + 1;
		memcpy(a, b, sizeof(a));
		if (stale > DP_STALE || round >= DP_FINAL_ROUNDS) {
			fprintf(stderr, "fuzz/datapath: round %u, %u stale, cable %u/%u frames\n",
				round, stale, W[0].n, W[1].n);
			dp_dump(0);
			dp_dump(1);
			CHECK(!"livelock or hang: the engines never became quiet");
		}
		if (quiet)
			dp_next_timer();
	}
	/* idle stays idle: the timers due send nothing */
	if (dp.trace) {
		dp_dump(0);
		dp_dump(1);
	}
	frames = dp.n[0].c.frames + dp.n[1].c.frames;
	for (i = 0; i < 2; i++)
		RP[i].h->now += 10ULL * 1000000000ULL;
	dp_next_timer();
	CHECK(dp_pump(DP_PUMP_CALLS));
	if (dp.trace) {
		dp_dump(0);
		dp_dump(1);
	}
	CHECK_EQ(dp.n[0].c.frames + dp.n[1].c.frames, frames);
	CHECK(dp_idle(0) && dp_idle(1));
	if (!getenv("SFAB_FUZZ_VERBOSE"))
		return;
	for (i = 0; i < 2; i++) {
		const struct sfab_engine_stats *st = &dp_e(i)->stats;

		fprintf(stderr, "node %u: state %u, %lu frames, %u CQEs, %llu go-backs, %llu exc\n",
			i, dp_qp(i)->state, dp.n[i].c.frames, dp.n[i].cq_written,
			(unsigned long long)st->rc_retransmits,
			(unsigned long long)st->rc_retry_exc);
		fprintf(stderr, "  %lu guest errors, the last: %s\n",
			RP[i].h->guest_errors, RP[i].h->last_error);
	}
}

/* --- setup ----------------------------------------------------------------- */

/*
 * Both nodes up to their links Active (firmware, INIT_HCA, the cable
 * trained) is the same for every input: made once, kept as a snapshot
 * (the engines with their tables, the hosts and the memory they used)
 * and put back before each input, which then makes its EQ, CQ, MR and
 * QP.  The MR page pool and the firmware buffer are not kept: an entry
 * of the pool is written before it is read, and no input downloads
 * firmware.
 */
static const struct sfab_engine_config dp_small = {
	.max_qp = 8, .max_cq = 4, .max_mr = 16, .max_srq = 2,
};

#define DP_TABLES	8

static struct {
	bool made;
	struct fake_host h[2];
	struct sfab_engine e[2];
	void *t[2][DP_TABLES];
	uint8_t *mem[2];
	size_t brk[2], hwm[2];	/* memory the snapshot has, inputs used */
} dp_snap;

/* the engine's tables (the MR pool and firmware buffer aside), their sizes */
static void dp_tables(struct sfab_engine *e, void *t[DP_TABLES],
		      size_t len[DP_TABLES])
{
	const struct sfab_engine_config *c = &dp_small;
	unsigned int k = 0;

	t[k] = e->qp;
	len[k++] = c->max_qp * sizeof(*e->qp);
	t[k] = e->runq;
	len[k++] = c->max_qp * sizeof(*e->runq);
	t[k] = e->runq_in;
	len[k++] = c->max_qp * sizeof(*e->runq_in);
	t[k] = e->cq;
	len[k++] = c->max_cq * sizeof(*e->cq);
	t[k] = e->mr;
	len[k++] = (c->max_mr + 1) * sizeof(*e->mr);
	t[k] = e->mr_map;
	len[k++] = sfab_engine_mr_map_words(e) * sizeof(*e->mr_map);
	t[k] = e->srq;
	len[k++] = c->max_srq * sizeof(*e->srq);
	t[k] = e->pool_map;
	len[k++] = SFAB_ENGINE_POOL_MAP_WORDS * sizeof(*e->pool_map);
}

static void dp_snap_make(void)
{
	size_t len[DP_TABLES];
	void *t[DP_TABLES];
	struct sfab_aq_cmd c;
	unsigned int i, k;

	dp_ops = fh_ops;
	dp_ops.dma_read = dp_dma_read;
	dp_ops.dma_write = dp_dma_write;
	dp_ops.cable_tx = dp_tx;
	for (i = 0; i < 2; i++) {
		struct fake_host *h = host_new_cfg(&dp_small);

		RP[i].h = h;
		h->e->ops = &dp_ops;
		wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
		host_setup_aq(h, 5);
		host_setup_aenq(h, 6);
		REQUIRE(host_fw_load(h) == SFAB_AQ_STS_OK);
		c = cmd_init_hca(12);
		REQUIRE(host_cmd(h, &c) == SFAB_AQ_STS_OK);
		h->e->port.lid = i ? RP_LID1 : RP_LID0;
	}
	for (i = 0; i < 2; i++)
		sfab_engine_cable_up(dp_e(i));
	REQUIRE(dp_pump(DP_PUMP_CALLS));
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&dp_e(i)->port.link, SFAB_PORT_ARMED);
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&dp_e(i)->port.link, SFAB_PORT_ACTIVE);
	REQUIRE(dp_pump(DP_PUMP_CALLS));
	for (i = 0; i < 2; i++) {
		struct fake_host *h = RP[i].h;
		struct sfab_engine *e = h->e;

		REQUIRE(e->port.link.state == SFAB_PORT_ACTIVE);
		REQUIRE(!W[i].n);
		dp_snap.h[i] = *h;
		dp_snap.e[i] = *e;
		dp_tables(e, t, len);
		for (k = 0; k < DP_TABLES; k++) {
			dp_snap.t[i][k] = malloc(len[k]);
			REQUIRE(dp_snap.t[i][k]);
			memcpy(dp_snap.t[i][k], t[k], len[k]);
		}
		dp_snap.brk[i] = h->brk;
		dp_snap.hwm[i] = h->brk;
		dp_snap.mem[i] = malloc(h->brk);
		REQUIRE(dp_snap.mem[i]);
		memcpy(dp_snap.mem[i], h->mem, h->brk);
	}
	dp_snap.made = true;
}

static void dp_snap_restore(void)
{
	size_t len[DP_TABLES];
	void *t[DP_TABLES];
	unsigned int i, k;

	if (!dp_snap.made)
		dp_snap_make();
	for (i = 0; i < 2; i++) {
		struct fake_host *h = RP[i].h;
		struct sfab_engine *e = h->e;

		memset(&RP[i], 0, sizeof(RP[i]));
		RP[i].h = h;
		*h = dp_snap.h[i];
		*e = dp_snap.e[i];
		dp_tables(e, t, len);
		for (k = 0; k < DP_TABLES; k++)
			memcpy(t[k], dp_snap.t[i][k], len[k]);
		memcpy(h->mem, dp_snap.mem[i], dp_snap.brk[i]);
		memset(h->mem + dp_snap.brk[i], 0,
		       dp_snap.hwm[i] - dp_snap.brk[i]);
	}
}

/* node @i's EQ, CQ, memory, SRQ and QP */
static void dp_node_up(unsigned int i)
{
	struct rp_node *n = &RP[i];
	struct dp_node *d = &dp.n[i];
	struct fake_host *h = n->h;
	bool srq = dp.cfg.srq && i == 1;

	REQUIRE(qh_eq_new(h, &n->eq, 6, 2) == 0);
	d->dp_lo = n->eq.ring;
	REQUIRE(qh_cq_new(h, &n->cq, dp.cq_log, n->eq.eqn) == 0);
	d->mem = host_alloc(h, DP_MEM, 4096);
	n->mem = d->mem;
	if (srq) {
		REQUIRE(qh_srq_new(h, &d->srq, dp.cfg.sq_log, RP_PD, 0) == 0);
		d->use_srq = true;
	}
	REQUIRE(qh_qp_new_ex(h, &n->qp, dp.cfg.type, dp.cfg.sq_log, dp.sq_slog,
			     n->cq.cqn, n->cq.cqn, srq ? SFAB_QP_SRQ : 0, RP_PD,
			     srq ? d->srq.srqn : 0) == 0);
	d->dp_hi = HOST_MEM_BASE + h->brk;
	if (h->brk > dp_snap.hwm[i])
		dp_snap.hwm[i] = h->brk;
	dp_mr_reg(i, 0, 0, DP_MEM, RP_ALL_ACCESS);
	REQUIRE(d->mr[0].valid);
	n->key = d->mr[0].key;
}

static void dp_up(struct fz *f)
{
	uint8_t flags = fz_u8(f), b;
	unsigned int i;

	memset(&dp, 0, sizeof(dp));
	dp.trace = getenv("SFAB_FUZZ_TRACE");
	dp_wire_clear();
	dp.uc = flags & 1;
	dp.cfg.type = dp.uc ? SFAB_QPT_UC : SFAB_QPT_RC;
	dp.cfg.srq = flags & 2;
	dp.cfg.mtu = 1 + fz_u8(f) % 5;
	b = fz_u8(f);
	dp.cfg.sq_log = 1 + b % 6;
	dp.sq_slog = 7 + (b >> 4) % 3;
	dp.cq_log = 3 + fz_u8(f) % 8;
	b = fz_u8(f);
	dp.cfg.retry_cnt = b & 7;
	dp.cfg.rnr_retry = (b >> 4) % 7;	/* 7 (for ever) never settles */
	dp.cfg.timeout = 1 + fz_u8(f) % 31;	/* 0 (none) never settles */
	b = fz_u8(f);
	dp.cfg.min_rnr_timer = b & 31;
	dp.cfg.rd_atomic = 1 + (b >> 5);
	dp.cfg.psn0 = fz_u32(f) & SFAB_BTH_PSN_MASK;
	dp.cfg.psn1 = fz_u32(f) & SFAB_BTH_PSN_MASK;
	dp.cfg.access = RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE;

	dp_snap_restore();
	dp.active = true;
	for (i = 0; i < 2; i++)
		dp_node_up(i);
	for (i = 0; i < 2; i++)
		REQUIRE(dp_connect(i, i ? dp.cfg.psn1 : dp.cfg.psn0,
				   i ? dp.cfg.psn0 : dp.cfg.psn1) == 0);
	dp.checking = true;
}

static void dp_down(void)
{
	dp.checking = false;
	dp_wire_clear();
}

/* --- ops ------------------------------------------------------------------- */

static void dp_op_modify(unsigned int i, uint8_t what, struct fz *f)
{
	uint32_t psn = fz_u32(f) & SFAB_BTH_PSN_MASK;
	uint32_t psn2 = fz_u32(f) & SFAB_BTH_PSN_MASK;

	switch (what % 8) {
	case 0:
		dp_modify(i, SFAB_QPS_ERR, 0, 0);
		break;
	case 1:
		dp_modify(i, SFAB_QPS_RESET, 0, 0);
		break;
	case 2:
		dp_modify(i, SFAB_QPS_SQD, 0, 0);
		break;
	case 3:
		dp_modify(i, SFAB_QPS_RTS, 0, 0);
		break;
	case 4:	/* the peer's rights change under its requests */
		dp_modify(i, SFAB_QPS_RTS, SFAB_QP_ATTR_ACCESS,
			  (what >> 3) & (RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE));
		break;
	case 5:	/* this node alone, PSNs of its own */
		dp_connect(i, psn, psn2);
		break;
	default:	/* both, in step (rp_reconnect()) */
		dp_connect(0, psn, psn2);
		dp_connect(1, psn2, psn);
		break;
	}
}

static void dp_op_dma_fail(unsigned int i, uint8_t what, struct fz *f)
{
	struct fake_host *h = RP[i].h;
	uint16_t a = fz_u16(f), b = fz_u16(f);
	uint64_t lo, len;

	switch (what % 8) {
	case 0:
		h->fail_lo = 0;
		h->fail_hi = 0;
		return;
	case 5:
		lo = RP[i].eq.ring;
		len = sizeof(struct sfab_eqe) << RP[i].eq.log;
		break;
	case 6:
		lo = dp.n[i].mem;
		len = DP_MEM;
		break;
	case 7:
		lo = dp.n[i].dp_lo;
		len = dp.n[i].dp_hi - lo;
		break;
	default:
		lo = dp_ring(i, what % 8 - 1, &len);
		break;
	}
	/* a part of it: [a, a + b) scaled to the region, never the admin queues */
	h->fail_lo = lo + len * a / 65536;
	h->fail_hi = h->fail_lo + 1 + (len - (h->fail_lo - lo)) * b / 65536;
}

static void dp_op(struct fz *f)
{
	uint8_t op = fz_u8(f) % OP__COUNT, a = fz_u8(f);
	unsigned int i = a & 1, k;
	struct dp_spec sp;
	uint8_t buf[16];
	uint64_t base, len;
	uint16_t v;
	int at;

	switch (op) {
	case OP_POST:
		dp_spec_read(f, &sp);
		dp_post(i, &sp);
		break;
	case OP_RECV:
		v = fz_u16(f);
		dp_recv(i, v, fz_u16(f), a >> 1, !(a & 0x80));
		break;
	case OP_REWRITE_WQE:
		dp_spec_read(f, &sp);
		dp_write_wqe(i, RP[i].qp.sq_pi - 1 - (a >> 1) % dp_sq_depth(), &sp);
		break;
	case OP_REWRITE: {
		uint16_t off = fz_u16(f);
		unsigned int n = 1 + fz_u8(f) % sizeof(buf);

		fz_bytes(f, buf, n);
		base = dp_ring(i, (a >> 1) & 3, &len);
		if ((a >> 3) & 1)	/* in a WQE before the producer index */
			off = (uint16_t)(sfab_ring_slot(RP[i].qp.sq_pi - 1 -
							(a >> 4), dp.cfg.sq_log) <<
					 dp.sq_slog) + (off & 63);
		off %= len;
		if (n > len - off)
			n = len - off;
		memcpy(hp(RP[i].h, base + off), buf, n);
		break;
	}
	case OP_DB:
		v = fz_u16(f);
		if (!(a & 2))	/* near the guest's index; or anything */
			v = (a & 4 ? RP[i].qp.rq_pi : RP[i].qp.sq_pi) + (int8_t)v;
		if ((a & 0x0c) == 0x0c && dp.n[i].use_srq)
			dp_srq_db(i, v);
		else
			dp_qp_db(i, !(a & 4), v);
		break;
	case OP_PROCESS:
		dp_process(i);
		break;
	case OP_DELIVER:
		for (k = 0; k <= (a >> 1) % 8 && W[i].n; k++)
			dp_deliver(i);
		break;
	case OP_DROP:
	case OP_DUP:
	case OP_SWAP:
		at = dp_data_frame(&W[i], (a >> 1) % 8);
		if (at < 0)
			break;
		if (op == OP_DROP) {
			struct dp_frame fr = dp_take(i, at);

			/*
			 * lost on the cable (its credit too), or at the head
			 * of the cable in the fabric past the link
			 */
			if ((a & 0x10) && !at)
				dp_fabric_loss(i, &fr);
			free(fr.f);
		} else if (op == OP_DUP) {
			struct dp_frame *fr = dp_at(&W[i], at);

			dp_begin();
			sfab_engine_qp_rx_pkt(dp_e(i), fr->f, fr->len);
			dp_end(i, CALL_DUP);
		} else if ((unsigned int)at + 1 < W[i].n &&
			   !dp_is_fc(dp_at(&W[i], at + 1)->len)) {
			struct dp_frame t = *dp_at(&W[i], at);

			*dp_at(&W[i], at) = *dp_at(&W[i], at + 1);
			*dp_at(&W[i], at + 1) = t;
		}
		break;
	case OP_TIMER: {
		static const uint64_t step[8] = {
			1000, 100000, 1000000, 10000000, 100000000,
			1000000000, 10000000000ULL, 0,
		};

		if (!step[(a >> 2) % 8]) {
			dp_next_timer();
			break;
		}
		for (k = 0; k < 2; k++) {
			if ((a & 2) && k != i)
				continue;
			RP[k].h->now += step[(a >> 2) % 8];
			dp_timer(k);
		}
		break;
	}
	case OP_MODIFY:
		dp_op_modify(i, a >> 1, f);
		break;
	case OP_POLL:
		v = dp.n[i].cq_ci + 1 + (a >> 3);
		if (sfab_ring_used(v, dp.n[i].cq_ci) >
		    sfab_ring_used(dp.n[i].cq_written, dp.n[i].cq_ci))
			v = dp.n[i].cq_written;
		dp_cq_db(i, v, (a >> 1) & 3);
		break;
	case OP_CQ_DB:
		v = fz_u16(f);
		dp_cq_db(i, a & 2 ? v : dp.n[i].cq_ci + (int8_t)v, (a >> 2) & 3);
		break;
	case OP_MR_REG: {
		uint16_t off = fz_u16(f) % DP_MEM;
		uint16_t n = fz_u16(f);
		uint8_t acc = fz_u8(f);

		k = (a >> 1) % DP_NMR;
		if (dp.n[i].mr[k].valid)
			break;
		dp_mr_reg(i, k, off, 1 + n % (DP_MEM - off),
			  (acc & SFAB_GENMASK(3, 0)) |
			  (acc & 0x10 ? SFAB_ACCESS_FLUSH_GLOBAL : 0));
		break;
	}
	case OP_MR_DEREG:
		dp_mr_dereg(i, (a >> 1) % DP_NMR);
		break;
	case OP_DMA_FAIL:
		dp_op_dma_fail(i, a >> 1, f);
		break;
	case OP_FILTER:
		W[i].filter = fz_u8(f);
		break;
	case OP_RUN:
		dp_pump(1 + a);
		break;
	case OP_AENQ:
		dp_aenq(i);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	unsigned int n;

	dp_up(&f);
	for (n = 0; n < DP_MAX_OPS && fz_left(&f); n++) {
		if (dp.trace)
			fprintf(stderr, "op %u: %u %u\n", n, f.p[0] % OP__COUNT,
				f.n > 1 ? f.p[1] : 0);
		dp_op(&f);
		if (dp.trace) {
			dp_dump(0);
			dp_dump(1);
		}
	}
	dp_finish();
	dp_down();
	return 0;
}

/* --- seeds ----------------------------------------------------------------- */

static void fo_cfg(struct fz_out *o, uint8_t mtu, uint8_t retry)
{
	fo_u8(o, 0);		/* RC, no SRQ */
	fo_u8(o, mtu - 1);
	fo_u8(o, 5);		/* 64 WQEs, stride 128 */
	fo_u8(o, 5);		/* 256 CQEs */
	fo_u8(o, retry | 3 << 4);
	fo_u8(o, 13);		/* timeout 14 */
	fo_u8(o, 12 | 3 << 5);	/* RNR timer 0.64 ms, 4 READs/atomics */
	fo_u32(o, 0x100);
	fo_u32(o, 0xfffff0);	/* node 1's PSNs wrap */
}

static void fo_spec(struct fz_out *o, uint8_t kind, uint8_t flags,
		    uint16_t len, uint16_t loff, uint16_t roff, uint32_t imm)
{
	fo_u8(o, kind);
	fo_u8(o, flags);
	fo_u16(o, len);
	fo_u8(o, 0);		/* one SGE */
	fo_u16(o, loff);
	fo_u16(o, roff);
	fo_u8(o, 0);		/* slot 0's keys */
	fo_u32(o, imm);
}

static void fo_op(struct fz_out *o, uint8_t op, uint8_t a)
{
	fo_u8(o, op);
	fo_u8(o, a);
}

/* node 0 posts @kind of @len bytes */
static void fo_post(struct fz_out *o, uint8_t kind, uint16_t len)
{
	fo_op(o, OP_POST, 0);
	fo_spec(o, kind, 0, len, 0, 8192, 0x5a5a);
}

/* @n times: both nodes process, then every frame on the cable goes */
static void fo_steps(struct fz_out *o, unsigned int n)
{
	while (n--) {
		fo_op(o, OP_PROCESS, 0);
		fo_op(o, OP_PROCESS, 1);
		fo_op(o, OP_DELIVER, 1 | 7 << 1);
		fo_op(o, OP_DELIVER, 0 | 7 << 1);
	}
}

static void fuzz_seeds(void)
{
	struct fz_out o;

	/* a SEND of 3 MTUs into a receive, polled */
	o.n = 0;
	fo_cfg(&o, 1, 3);
	fo_op(&o, OP_RECV, 1);
	fo_u16(&o, 2 << 14 | 4096);
	fo_u16(&o, 16384);
	fo_post(&o, 0, 1 << 14 | 3);
	fo_steps(&o, 4);
	fo_op(&o, OP_POLL, 0 | 7 << 3);
	fo_op(&o, OP_POLL, 1 | 7 << 3);
	fz_seed_out("send-recv", &o);

	/* a WRITE of 40 packets, a step at a time */
	o.n = 0;
	fo_cfg(&o, 1, 3);
	fo_post(&o, 3, 3 << 14 | 39);
	fo_steps(&o, 12);
	fz_seed_out("write-long", &o);

	/* a READ of 2 KiB at MTU 1024, then a WRITE behind it */
	o.n = 0;
	fo_cfg(&o, 3, 3);
	fo_post(&o, 6, 2 << 14 | 2048);
	fo_post(&o, 3, 100);
	fo_steps(&o, 6);
	fz_seed_out("read", &o);

	/* a compare-and-swap and a fetch-and-add */
	o.n = 0;
	fo_cfg(&o, 5, 3);
	fo_post(&o, 8, 8);
	fo_post(&o, 9, 8);
	fo_steps(&o, 4);
	fz_seed_out("atomics", &o);

	/*
	 * a WRITE of 32 MTUs: one process sends 16 packets, then the guest
	 * makes it an 8-byte inline WRITE (unit/sec-wqe-rewrite)
	 */
	o.n = 0;
	fo_cfg(&o, 1, 3);
	fo_post(&o, 3, 3 << 14 | 31);
	fo_op(&o, OP_PROCESS, 0);
	fo_op(&o, OP_REWRITE_WQE, 0);
	fo_spec(&o, 3, DP_F_INLINE, 8, 0, 8192, 0);
	fo_steps(&o, 4);
	fz_seed_out("rewrite-begun-write", &o);

	/* a SEND whose first packet is lost: the ACK timeout sends it again */
	o.n = 0;
	fo_cfg(&o, 1, 3);
	fo_op(&o, OP_RECV, 1);
	fo_u16(&o, 2 << 14 | 4096);
	fo_u16(&o, 0);
	fo_post(&o, 0, 1 << 14 | 2);
	fo_op(&o, OP_PROCESS, 0);
	fo_op(&o, OP_DROP, 1);
	fo_steps(&o, 2);
	fo_op(&o, OP_TIMER, 0 | 6 << 2);
	fo_steps(&o, 3);
	fz_seed_out("drop-then-timeout", &o);

	/*
	 * a READ whose responses the cable loses for good, a WRITE behind it
	 * (unit/sec-implied-nak)
	 */
	o.n = 0;
	fo_cfg(&o, 1, 3);
	fo_op(&o, OP_FILTER, 0);
	fo_u8(&o, 0x08);
	fo_post(&o, 6, 100);
	fo_post(&o, 3, 100);
	fo_steps(&o, 3);
	fz_seed_out("read-responses-lost", &o);
}
