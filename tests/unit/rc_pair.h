/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two HCA engines cabled back to back (an in-memory cable that can lose
 * chosen data frames), each with an EQ, a CQ, an RC QP connected to the
 * other's and 1 MiB of memory registered as one MR, for the RC/UC unit
 * tests.  Include after harness.h.
 *
 *	rp_up(&cfg)		both nodes, link Active, QPs connected
 *	rp_pump()		deliver frames both ways until quiet
 *	rp_drop			a hook that may drop a data frame in flight
 *	rp_advance(ns)		move both clocks on and run the engines' timers
 */
#ifndef SFAB_TEST_RC_PAIR_H
#define SFAB_TEST_RC_PAIR_H

#include "qp_host.h"
#include "../../qemu-model/link/sfab_pkt.h"

#define RP_FRAMES	4096
#define RP_LID0		0x11
#define RP_LID1		0x22
#define RP_PD		1
#define RP_MEM		(1U << 20)
#define RP_ALL_ACCESS	(SFAB_ACCESS_LOCAL_WRITE | SFAB_ACCESS_REMOTE_WRITE | \
			 SFAB_ACCESS_REMOTE_READ | SFAB_ACCESS_REMOTE_ATOMIC)

struct rp_wire {
	unsigned int n, head;
	uint8_t *f[RP_FRAMES];
	size_t len[RP_FRAMES];
};

struct rp_node {
	struct fake_host *h;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp;
	uint64_t mem;		/* RP_MEM bytes, registered as key */
	uint32_t key;
};

struct rp_cfg {
	uint8_t type;		/* SFAB_QPT_RC (default) or SFAB_QPT_UC */
	uint8_t mtu;		/* IBA code; default 1 (256 bytes) */
	uint32_t psn0, psn1;	/* the first PSN each node sends */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t rd_atomic;	/* default 4 */
	uint32_t access;	/* remote access of the QPs; default all */
	unsigned int sq_log;	/* default 6 */
	bool srq;		/* node 1's QP takes receives from rp_srq */
	unsigned int srq_log;	/* its depth; default 5 */
	uint32_t srq_limit;
	bool priv;		/* SFAB_QP_PRIV QPs (kernel QPs: fast registration) */
};

static struct rp_node RP[2];
static struct qh_srq rp_srq;	/* node 1's, with rp_cfg.srq */
static struct rp_wire RPW[2];	/* RPW[i]: frames on their way to node i */
static struct sfab_engine_ops rp_ops;
static unsigned long rp_data_frames[2];	/* data frames delivered to node i */
/* may drop a data frame on its way to node @to (the frame as sent) */
static bool (*rp_drop)(unsigned int to, const uint8_t *f, size_t len);
static unsigned long rp_dropped;

/*
 * The wire's frame buffers, kept from one frame to the next as a socket's
 * are (slot k of wire i is RPW[i].f[k]'s memory whenever that is in use):
 * allocated the first time a slot is used, grown for a longer frame, freed
 * by rp_down().  Tests may clear RPW; the buffers stay here.
 */
static uint8_t *rp_slot[2][RP_FRAMES];
static size_t rp_slot_cap[2][RP_FRAMES];

static inline void rp_tx(void *opaque, const uint8_t *f, size_t len)
{
	unsigned int to = opaque == RP[0].h ? 1 : 0;
	struct rp_wire *w = &RPW[to];
	uint8_t **slot;

	if (w->n == RP_FRAMES) {
		fprintf(stderr, "rc pair: wire full\n");
		abort();
	}
	slot = &rp_slot[to][w->n];
	if (rp_slot_cap[to][w->n] < len) {
		size_t cap = len > SFAB_WIRE_MAX_PKT_LEN ? len : SFAB_WIRE_MAX_PKT_LEN;

		free(*slot);
		*slot = malloc(cap);
		if (!*slot) {
			fprintf(stderr, "rc pair: out of memory\n");
			abort();
		}
		rp_slot_cap[to][w->n] = cap;
	}
	memcpy(*slot, f, len);
	w->f[w->n] = *slot;
	w->len[w->n++] = len;
}

static inline void rp_pump(void)
{
	bool busy;
	int rounds = 0;

	do {
		unsigned int i;

		busy = false;
		for (i = 0; i < 2; i++) {
			struct rp_wire *w = &RPW[i];

			while (w->head < w->n) {
				uint8_t *f = w->f[w->head];
				size_t len = w->len[w->head];

				w->head++;
				if (len != SFAB_WIRE_FC_PKT_LEN && rp_drop &&
				    rp_drop(i, f, len)) {
					rp_dropped++;
				} else {
					if (len != SFAB_WIRE_FC_PKT_LEN)
						rp_data_frames[i]++;
					sfab_engine_cable_rx(RP[i].h->e, f, len);
				}
				busy = true;
			}
			w->head = w->n = 0;
			if (sfab_engine_work_pending(RP[i].h->e)) {
				host_run(RP[i].h);
				busy = true;
			}
		}
	} while (busy && ++rounds < 100000);
}

/* both clocks @ns on; each engine runs its due timers */
static inline void rp_advance(uint64_t ns)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		RP[i].h->now += ns;
		sfab_engine_timer(RP[i].h->e);
	}
	rp_pump();
}

/* the BTH opcode and PSN of a data frame (no GRH) */
static inline uint8_t rp_opcode(const uint8_t *f)
{
	return f[SFAB_WIRE_LRH_LEN];
}

static inline uint32_t rp_psn(const uint8_t *f)
{
	const uint8_t *b = f + SFAB_WIRE_LRH_LEN + 9;

	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

/* the AETH syndrome of an ACK-class frame */
static inline uint8_t rp_syndrome(const uint8_t *f)
{
	return f[SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN];
}

static inline bool rp_is_ack(const uint8_t *f)
{
	return rp_opcode(f) == SFAB_OP_ACK &&
	       (rp_syndrome(f) & SFAB_AETH_KIND_MASK) == SFAB_AETH_ACK;
}

static inline bool rp_is_nak(const uint8_t *f, uint8_t syn)
{
	return rp_opcode(f) == SFAB_OP_ACK && rp_syndrome(f) == syn;
}

static inline bool rp_is_rnr(const uint8_t *f)
{
	return rp_opcode(f) == SFAB_OP_ACK &&
	       (rp_syndrome(f) & SFAB_AETH_KIND_MASK) == SFAB_AETH_RNR_NAK;
}

static inline void rp_node_up(unsigned int i, uint16_t lid, const struct rp_cfg *c)
{
	struct rp_node *n = &RP[i];

	memset(n, 0, sizeof(*n));
	n->h = qh_up();
	rp_ops = fh_ops;
	rp_ops.cable_tx = rp_tx;
	n->h->e->ops = &rp_ops;
	n->h->e->port.lid = lid;
	REQUIRE(qh_eq_new(n->h, &n->eq, 8, 2) == 0);
	REQUIRE(qh_cq_new(n->h, &n->cq, 10, n->eq.eqn) == 0);
	n->mem = host_alloc(n->h, RP_MEM, 4096);
	memset(hp(n->h, n->mem), 0, RP_MEM);
	REQUIRE(qh_mr_contig(n->h, n->mem, RP_MEM, RP_PD, RP_ALL_ACCESS, &n->key) == 0);
	if (c->srq && i == 1)
		REQUIRE(qh_srq_new(n->h, &rp_srq, c->srq_log ? c->srq_log : 5,
				   RP_PD, c->srq_limit) == 0);
	REQUIRE(qh_qp_new_ex(n->h, &n->qp, c->type ? c->type : SFAB_QPT_RC,
			     c->sq_log ? c->sq_log : 6, 8, n->cq.cqn, n->cq.cqn,
			     (c->srq && i == 1 ? SFAB_QP_SRQ : 0) |
			     (c->priv ? SFAB_QP_PRIV : 0), RP_PD,
			     c->srq && i == 1 ? rp_srq.srqn : 0) == 0);
}

static inline void rp_connect(const struct rp_cfg *c)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct qh_conn k = {
			.dest_qpn = RP[!i].qp.qpn,
			.sq_psn = i ? c->psn1 : c->psn0,
			.rq_psn = i ? c->psn0 : c->psn1,
			.access = c->access ? c->access : RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE,
			.dlid = i ? RP_LID0 : RP_LID1,
			.mtu = c->mtu ? c->mtu : 1,
			.timeout = c->timeout ? c->timeout : 14,
			.retry_cnt = c->retry_cnt,
			.rnr_retry = c->rnr_retry,
			.min_rnr_timer = c->min_rnr_timer,
			.max_rd_atomic = c->rd_atomic ? c->rd_atomic : 4,
			.max_dest_rd_atomic = c->rd_atomic ? c->rd_atomic : 4,
		};

		REQUIRE(qh_qp_connect(RP[i].h, &RP[i].qp, &k) == 0);
	}
}

/* both QPs of the pair from Error back through RESET to RTS, CQs drained */
static inline void rp_reconnect(void)
{
	struct sfab_cqe cqe;

	qh_modify(RP[1].h, RP[1].qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0);
	qh_modify(RP[0].h, RP[0].qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0);
	RP[0].qp.sq_pi = RP[0].qp.rq_pi = RP[1].qp.sq_pi = RP[1].qp.rq_pi = 0;
	rp_connect(&(struct rp_cfg){ 0 });
	while (qh_cq_poll(RP[0].h, &RP[0].cq, &cqe) ||
	       qh_cq_poll(RP[1].h, &RP[1].cq, &cqe))
		;
}

/*
 * a second RC pair on the same nodes, connected like the first (MTU 256,
 * timeout 14, one retry): b[0] on node 0 <-> b[1] on node 1; it shares
 * their CQs, PD and memory
 */
static inline void rp_pair2(struct qh_qp b[2])
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		REQUIRE(qh_qp_new_ex(RP[i].h, &b[i], SFAB_QPT_RC, 6, 8,
				     RP[i].cq.cqn, RP[i].cq.cqn, 0, RP_PD, 0) == 0);
	for (i = 0; i < 2; i++) {
		struct qh_conn k = {
			.dest_qpn = b[!i].qpn,
			.access = RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE,
			.dlid = i ? RP_LID0 : RP_LID1,
			.mtu = 1,
			.timeout = 14,
			.retry_cnt = 1,
			.max_rd_atomic = 4,
			.max_dest_rd_atomic = 4,
		};

		REQUIRE(qh_qp_connect(RP[i].h, &b[i], &k) == 0);
	}
}

/* the cable, the links trained and Active (no QPs yet) */
static inline void rp_link_up(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		sfab_engine_cable_up(RP[i].h->e);
	rp_pump();
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&RP[i].h->e->port.link, SFAB_PORT_ARMED);
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&RP[i].h->e->port.link, SFAB_PORT_ACTIVE);
	rp_pump();
	for (i = 0; i < 2; i++)
		REQUIRE(RP[i].h->e->port.link.state == SFAB_PORT_ACTIVE);
}

static inline void rp_up(const struct rp_cfg *c)
{
	memset(RPW, 0, sizeof(RPW));
	memset(rp_data_frames, 0, sizeof(rp_data_frames));
	rp_drop = NULL;
	rp_dropped = 0;
	rp_node_up(0, RP_LID0, c);
	rp_node_up(1, RP_LID1, c);
	rp_link_up();
	rp_connect(c);
}

static inline void rp_down(void)
{
	unsigned int i, j;

	rp_drop = NULL;
	for (i = 0; i < 2; i++) {
		for (j = 0; j < RP_FRAMES; j++) {
			free(rp_slot[i][j]);
			rp_slot[i][j] = NULL;
			rp_slot_cap[i][j] = 0;
		}
		RPW[i].n = RPW[i].head = 0;
		host_free(RP[i].h);
		RP[i].h = NULL;
	}
}

/* a WQE on node @i's QP and its doorbell (no pump) */
static inline void rp_post(unsigned int i, const struct qh_rc_send *s)
{
	qh_post_rc(RP[i].h, &RP[i].qp, s);
	qh_qp_db(RP[i].h, &RP[i].qp, true);
}

/* a receive of @len bytes at offset @off of node @i's memory */
static inline void rp_recv(unsigned int i, uint64_t wr_id, uint64_t off,
			   uint32_t len)
{
	qh_post_recv(RP[i].h, &RP[i].qp, wr_id, RP[i].mem + off, len, RP[i].key);
	qh_qp_db(RP[i].h, &RP[i].qp, false);
}

/* a SEND-like WQE of one SGE at offset @off of node @i's memory */
static inline struct qh_rc_send rp_wqe(uint8_t opcode, uint64_t wr_id,
				       unsigned int i, uint64_t off, uint32_t len)
{
	struct qh_rc_send s;

	memset(&s, 0, sizeof(s));
	s.opcode = opcode;
	s.wr_id = wr_id;
	s.flags = SFAB_WQE_SIGNALED;
	s.nsge = 1;
	s.sge[0].addr = RP[i].mem + off;
	s.sge[0].len = len;
	s.sge[0].lkey = RP[i].key;
	return s;
}

static inline bool rp_poll(unsigned int i, struct sfab_cqe *cqe)
{
	return qh_cq_poll(RP[i].h, &RP[i].cq, cqe);
}

static inline uint8_t *rp_mem(unsigned int i, uint64_t off)
{
	return hp(RP[i].h, RP[i].mem + off);
}

static inline void rp_fill(unsigned int i, uint64_t off, uint32_t len,
			   uint8_t seed)
{
	uint8_t *p = rp_mem(i, off);
	uint32_t k;

	for (k = 0; k < len; k++)
		p[k] = (uint8_t)(seed + k * 13 + (k >> 8));
}

static inline bool rp_same(unsigned int a, uint64_t aoff, unsigned int b,
			   uint64_t boff, uint32_t len)
{
	return !memcmp(rp_mem(a, aoff), rp_mem(b, boff), len);
}

static inline uint8_t rp_state(unsigned int i)
{
	return RP[i].h->e->qp[RP[i].qp.qpn].state;
}

/*
 * Node 0's clock only: its timers fire while node 1 stays quiet (no
 * periodic flow-control refresh that would give credit back).
 */
static inline void rp_advance0(uint64_t ns)
{
	RP[0].h->now += ns;
	sfab_engine_timer(RP[0].h->e);
	rp_pump();
}

/* node 0's link has no credit left on VL0 (the peer's buffer looks full) */
static inline void rp_starve0(void)
{
	struct sfab_link_vl *q = &RP[0].h->e->port.link.vl[0];

	q->fccl = q->fctbs;
}

/* an ACK from node 1 to node 0's QP up to and with @psn (to build, or forge) */
static inline void rp_ack_pkt(struct sfab_pkt_rc *p, uint32_t psn)
{
	memset(p, 0, sizeof(*p));
	p->opcode = SFAB_OP_ACK;
	p->dlid = RP_LID0;
	p->slid = RP_LID1;
	p->pkey = 0xffff;
	p->dqpn = RP[0].qp.qpn;
	p->syndrome = SFAB_AETH_ACK | SFAB_AETH_CREDIT_INVALID;
	p->psn = psn;
}

/*
 * Frames a test takes off the wire in its rp_drop hook (rp_hold: a copy,
 * false when full) and delivers later, in order (rp_deliver_held).
 */
#define RP_HELD_MAX	64
static struct {
	uint8_t *f[RP_HELD_MAX];
	size_t len[RP_HELD_MAX];
	unsigned int n;
} rp_held;

static inline bool rp_hold(const uint8_t *f, size_t len)
{
	if (rp_held.n == RP_HELD_MAX)
		return false;
	rp_held.f[rp_held.n] = malloc(len);
	memcpy(rp_held.f[rp_held.n], f, len);
	rp_held.len[rp_held.n++] = len;
	return true;
}

/* forget the frames held from the @keep-th on (lost for good) */
static inline void rp_held_trim(unsigned int keep)
{
	while (rp_held.n > keep)
		free(rp_held.f[--rp_held.n]);
}

static inline void rp_deliver_held(unsigned int to)
{
	unsigned int i;

	for (i = 0; i < rp_held.n; i++) {
		sfab_engine_cable_rx(RP[to].h->e, rp_held.f[i], rp_held.len[i]);
		free(rp_held.f[i]);
	}
	rp_held.n = 0;
	rp_pump();
}

#endif /* SFAB_TEST_RC_PAIR_H */
