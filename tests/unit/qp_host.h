/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Queue helpers for the engine's datapath tests, on top of fake_host.h:
 * EQs, CQs and QPs in fake host memory, doorbells, WQE posting and CQE
 * polling, the way the kernel driver does them (include/sfab/sfab_queue.h).
 */
#ifndef SFAB_TEST_QP_HOST_H
#define SFAB_TEST_QP_HOST_H

#include "fake_host.h"

#define QH_LKEY		SFAB_ENGINE_LOCAL_DMA_LKEY

struct qh_eq {
	uint32_t eqn;
	uint64_t ring;
	unsigned int log;
	uint16_t vector;
	uint16_t head;
};

struct qh_cq {
	uint32_t cqn;
	uint64_t ring;
	unsigned int log;
	uint16_t ci;
	uint16_t db_page;
};

struct qh_qp {
	uint32_t qpn;
	uint8_t type;
	uint16_t db_page;
	uint64_t sq, rq;
	unsigned int sq_log, rq_log, sq_slog, rq_slog;
	uint16_t sq_pi, rq_pi;
};

/* a host with firmware, an AENQ and the HCA initialised */
static inline struct fake_host *qh_up(void)
{
	struct fake_host *h = host_up(5);
	struct sfab_aq_cmd c;

	host_setup_aenq(h, 6);
	if (host_fw_load(h) != SFAB_AQ_STS_OK)
		fprintf(stderr, "qp host: firmware load failed\n");
	c = cmd_init_hca(12);
	if (host_cmd(h, &c) != SFAB_AQ_STS_OK)
		fprintf(stderr, "qp host: INIT_HCA failed\n");
	return h;
}

static inline int qh_eq_new(struct fake_host *h, struct qh_eq *eq,
			    unsigned int log, uint16_t vector)
{
	struct sfab_aq_cmd c;
	struct sfab_acq_entry cpl;
	int st;

	memset(eq, 0, sizeof(*eq));
	eq->log = log;
	eq->vector = vector;
	eq->ring = host_alloc(h, sizeof(struct sfab_eqe) << log, 4096);
	memset(hp(h, eq->ring), 0, sizeof(struct sfab_eqe) << log);
	c = cmd_create_eq(eq->ring, log, vector);
	st = host_cmd_full(h, &c, &cpl);
	eq->eqn = sfab_le32_to_cpu(cpl.result0);
	return st;
}

/* the next EQE (phase matches this pass) and the EQ doorbell */
static inline bool qh_eq_poll(struct fake_host *h, struct qh_eq *eq,
			      uint32_t *cqn)
{
	struct sfab_eqe *ent = hp(h, eq->ring + (eq->head & ((1U << eq->log) - 1)) *
				  sizeof(struct sfab_eqe));
	uint8_t phase = ((eq->head >> eq->log) & 1) ? 0 : 1;

	if ((ent->flags & SFAB_EQE_FLAGS_PHASE) != phase)
		return false;
	*cqn = sfab_le32_to_cpu(ent->cqn);
	eq->head++;
	sfab_engine_db_write(h->e, SFAB_DB_EQ,
			     (uint64_t)eq->head << 32 | eq->eqn, 8);
	host_run(h);
	return true;
}

static inline void qh_ring_desc(struct sfab_ring_desc *d, uint64_t addr,
				unsigned int log, unsigned int slog)
{
	memset(d, 0, sizeof(*d));
	d->addr = sfab_cpu_to_le64(addr);
	d->log_depth = log;
	d->log_stride = slog;
	d->flags = SFAB_RING_CONTIG;
}

static inline struct sfab_aq_cmd qh_create_cq_cmd(uint64_t ring, unsigned int log,
						  uint32_t eqn, uint16_t db_page)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_CQ);

	qh_ring_desc(&c.u.create_cq.ring, ring, log, 5);
	c.u.create_cq.eqn = sfab_cpu_to_le32(eqn);
	c.u.create_cq.db_page = sfab_cpu_to_le16(db_page);
	return c;
}

static inline int qh_cq_new(struct fake_host *h, struct qh_cq *cq,
			    unsigned int log, uint32_t eqn)
{
	struct sfab_aq_cmd c;
	struct sfab_acq_entry cpl;
	int st;

	memset(cq, 0, sizeof(*cq));
	cq->log = log;
	cq->ring = host_alloc(h, sizeof(struct sfab_cqe) << log, 4096);
	memset(hp(h, cq->ring), 0, sizeof(struct sfab_cqe) << log);
	c = qh_create_cq_cmd(cq->ring, log, eqn, 0);
	st = host_cmd_full(h, &c, &cpl);
	cq->cqn = sfab_le32_to_cpu(cpl.result0);
	return st;
}

static inline struct sfab_cqe *qh_cqe_at(struct fake_host *h, struct qh_cq *cq,
					 uint16_t idx)
{
	return hp(h, cq->ring + (idx & ((1U << cq->log) - 1)) *
		  sizeof(struct sfab_cqe));
}

/* the next CQE, without returning it to the device */
static inline bool qh_cq_peek(struct fake_host *h, struct qh_cq *cq,
			      struct sfab_cqe *out)
{
	struct sfab_cqe *ent = qh_cqe_at(h, cq, cq->ci);
	uint8_t phase = ((cq->ci >> cq->log) & 1) ? 0 : 1;

	if ((ent->flags & SFAB_CQE_PHASE) != phase)
		return false;
	*out = *ent;
	return true;
}

static inline void qh_cq_db(struct fake_host *h, struct qh_cq *cq,
			    unsigned int arm)
{
	uint32_t hi = SFAB_FIELD_PREP(SFAB_DB_IDX_MASK, cq->ci) |
		      SFAB_FIELD_PREP(SFAB_DB_ARM_MASK, arm);

	sfab_engine_db_write(h->e, cq->db_page * SFAB_DB_PAGE_SIZE + SFAB_DB_CQ,
			     (uint64_t)hi << 32 | cq->cqn, 8);
	host_run(h);
}

/* the next CQE, consumed (CQ doorbell rung) */
static inline bool qh_cq_poll(struct fake_host *h, struct qh_cq *cq,
			      struct sfab_cqe *out)
{
	if (!qh_cq_peek(h, cq, out))
		return false;
	cq->ci++;
	qh_cq_db(h, cq, SFAB_DB_ARM_NONE);
	return true;
}

static inline unsigned int cqe_qpn(const struct sfab_cqe *c)
{
	return SFAB_FIELD_GET(SFAB_CQE_QPN_MASK, sfab_le32_to_cpu(c->qpn_opcode));
}

static inline unsigned int cqe_op(const struct sfab_cqe *c)
{
	return SFAB_FIELD_GET(SFAB_CQE_OPCODE_MASK, sfab_le32_to_cpu(c->qpn_opcode));
}

static inline struct sfab_aq_cmd qh_create_qp_cmd(const struct qh_qp *qp,
						  uint32_t scq, uint32_t rcq,
						  uint8_t port, uint32_t flags)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_QP);
	struct sfab_aq_create_qp *q = &c.u.create_qp;

	qh_ring_desc(&q->sq, qp->sq, qp->sq_log, qp->sq_slog);
	qh_ring_desc(&q->rq, qp->rq, qp->rq_log, qp->rq_slog);
	q->send_cqn = sfab_cpu_to_le32(scq);
	q->recv_cqn = sfab_cpu_to_le32(rcq);
	q->pdn = sfab_cpu_to_le32(1);
	q->db_page = sfab_cpu_to_le16(qp->db_page);
	q->qp_type = qp->type;
	q->port_num = port;
	q->flags = sfab_cpu_to_le32(flags);
	return c;
}

/* a QP with 2^log entry rings (SQ stride 128, RQ stride 64), kernel-owned */
static inline int qh_qp_new(struct fake_host *h, struct qh_qp *qp, uint8_t type,
			    unsigned int log, uint32_t scq, uint32_t rcq)
{
	struct sfab_aq_cmd c;
	struct sfab_acq_entry cpl;
	bool special = type == SFAB_QPT_SMI || type == SFAB_QPT_GSI;
	int st;

	memset(qp, 0, sizeof(*qp));
	qp->type = type;
	qp->sq_log = qp->rq_log = log;
	qp->sq_slog = 7;
	qp->rq_slog = 6;
	qp->sq = host_alloc(h, 128U << log, 4096);
	qp->rq = host_alloc(h, 64U << log, 4096);
	c = qh_create_qp_cmd(qp, scq, rcq, special ? 1 : 0, SFAB_QP_PRIV);
	st = host_cmd_full(h, &c, &cpl);
	qp->qpn = sfab_le32_to_cpu(cpl.result0);
	return st;
}

static inline int qh_modify(struct fake_host *h, uint32_t qpn, uint32_t mask,
			    uint8_t state, uint32_t qkey)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_aq_modify_qp *m = &c.u.modify_qp;

	m->qpn = sfab_cpu_to_le32(qpn);
	m->attr_mask = sfab_cpu_to_le32(mask);
	m->state = state;
	m->qkey = sfab_cpu_to_le32(qkey);
	m->port_num = 1;
	m->pkey_index = 0;
	return host_cmd(h, &c);
}

/* Reset -> Init -> RTR -> RTS with the attributes a UD-like QP needs */
static inline int qh_qp_rts(struct fake_host *h, const struct qh_qp *qp,
			    uint32_t qkey)
{
	uint32_t init = SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_PKEY_INDEX |
			SFAB_QP_ATTR_QKEY;
	int st;

	if (qp->type == SFAB_QPT_UD)
		init |= SFAB_QP_ATTR_PORT;
	st = qh_modify(h, qp->qpn, init, SFAB_QPS_INIT, qkey);
	if (!st)
		st = qh_modify(h, qp->qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RTR, 0);
	if (!st)
		st = qh_modify(h, qp->qpn, SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_SQ_PSN,
			       SFAB_QPS_RTS, 0);
	return st;
}

static inline void qh_qp_db(struct fake_host *h, struct qh_qp *qp, bool sq)
{
	uint16_t idx = sq ? qp->sq_pi : qp->rq_pi;

	sfab_engine_db_write(h->e, qp->db_page * SFAB_DB_PAGE_SIZE +
			     (sq ? SFAB_DB_SQ : SFAB_DB_RQ),
			     (uint64_t)idx << 32 | qp->qpn, 8);
	host_run(h);
}

struct qh_send {
	uint64_t wr_id;
	uint8_t opcode, flags;
	uint32_t dqpn, qkey;
	uint16_t dlid, pkey_index;
	uint8_t sl;
	uint64_t addr;
	uint32_t len, lkey;
	unsigned int num_sge;		/* 0: one SGE unless INLINE */
	uint32_t imm;			/* SEND_IMM */
};

/* write a send WQE at the SQ's producer index (no doorbell) */
static inline void qh_post_send(struct fake_host *h, struct qh_qp *qp,
				const struct qh_send *s)
{
	uint8_t *w = hp(h, qp->sq + ((qp->sq_pi & ((1U << qp->sq_log) - 1))
				     << qp->sq_slog));
	struct sfab_wqe_ctrl ctrl;
	struct sfab_wqe_ud ud;
	struct sfab_sge sge;
	unsigned int i, n = s->num_sge ? s->num_sge : 1;

	memset(w, 0, 1U << qp->sq_slog);
	memset(&ctrl, 0, sizeof(ctrl));
	ctrl.opcode = s->opcode;
	ctrl.flags = s->flags;
	ctrl.wr_id = sfab_cpu_to_le64(s->wr_id);
	ctrl.imm_data = sfab_cpu_to_be32(s->imm);
	memset(&ud, 0, sizeof(ud));
	ud.dest_qpn = sfab_cpu_to_le32(s->dqpn);
	ud.qkey = sfab_cpu_to_le32(s->qkey);
	ud.dlid = sfab_cpu_to_le16(s->dlid);
	ud.sl = s->sl;
	ud.pkey_index = sfab_cpu_to_le16(s->pkey_index);
	ud.port_num = 1;
	if (s->flags & SFAB_WQE_INLINE) {
		struct sfab_wqe_inline inl;

		memset(&inl, 0, sizeof(inl));
		inl.byte_count = sfab_cpu_to_le32(s->len);
		memcpy(w + 32, &inl, sizeof(inl));
		if (48 + s->len <= (1U << qp->sq_slog))
			memcpy(w + 48, hp(h, s->addr), s->len);
	} else {
		ctrl.num_sge = n;
		/* the data split over n SGEs, the last one takes the rest */
		for (i = 0; i < n && 32 + (i + 1) * 16 <= (1U << qp->sq_slog); i++) {
			uint32_t part = s->len / n;

			if (i == n - 1)
				part = s->len - part * (n - 1);
			sge.addr = sfab_cpu_to_le64(s->addr + (s->len / n) * i);
			sge.length = sfab_cpu_to_le32(part);
			sge.lkey = sfab_cpu_to_le32(s->lkey);
			memcpy(w + 32 + i * 16, &sge, sizeof(sge));
		}
	}
	memcpy(w, &ctrl, sizeof(ctrl));
	memcpy(w + 16, &ud, sizeof(ud));
	qp->sq_pi++;
}

/* a receive WQE of one SGE at the RQ's producer index (no doorbell) */
static inline void qh_post_recv(struct fake_host *h, struct qh_qp *qp,
				uint64_t wr_id, uint64_t addr, uint32_t len,
				uint32_t lkey)
{
	uint8_t *w = hp(h, qp->rq + ((qp->rq_pi & ((1U << qp->rq_log) - 1))
				     << qp->rq_slog));
	struct sfab_rwqe_ctrl rc;
	struct sfab_sge sge;

	memset(&rc, 0, sizeof(rc));
	rc.wr_id = sfab_cpu_to_le64(wr_id);
	rc.num_sge = 1;
	sge.addr = sfab_cpu_to_le64(addr);
	sge.length = sfab_cpu_to_le32(len);
	sge.lkey = sfab_cpu_to_le32(lkey);
	memcpy(w, &rc, sizeof(rc));
	memcpy(w + 16, &sge, sizeof(sge));
	qp->rq_pi++;
}

#endif /* SFAB_TEST_QP_HOST_H */
