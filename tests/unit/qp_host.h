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
	struct sfab_eqe *ent = hp(h, eq->ring + sfab_ring_slot(eq->head, eq->log) *
				  sizeof(struct sfab_eqe));

	if (!sfab_ring_entry_is_new(ent->flags & SFAB_EQE_FLAGS_PHASE, eq->head,
				    eq->log))
		return false;
	*cqn = sfab_eqe_cqn(ent);
	eq->head++;
	sfab_engine_db_write(h->e, SFAB_DB_EQ, sfab_db_val(eq->eqn, eq->head, 0),
			     8, SFAB_DB_SRC_CPU);
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

	qh_ring_desc(&c.u.create_cq.ring, ring, log, SFAB_CQE_LOG_STRIDE);
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
	return hp(h, cq->ring + sfab_ring_slot(idx, cq->log) *
		  sizeof(struct sfab_cqe));
}

/* the next CQE, without returning it to the device */
static inline bool qh_cq_peek(struct fake_host *h, struct qh_cq *cq,
			      struct sfab_cqe *out)
{
	struct sfab_cqe *ent = qh_cqe_at(h, cq, cq->ci);

	if (!sfab_ring_entry_is_new(ent->flags & SFAB_CQE_PHASE, cq->ci, cq->log))
		return false;
	*out = *ent;
	return true;
}

static inline void qh_cq_db(struct fake_host *h, struct qh_cq *cq,
			    unsigned int arm)
{
	sfab_engine_db_write(h->e, cq->db_page * SFAB_DB_PAGE_SIZE + SFAB_DB_CQ,
			     sfab_db_val(cq->cqn, cq->ci, arm), 8,
			     SFAB_DB_SRC_CPU);
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
	return sfab_cqe_qpn(c);
}

static inline unsigned int cqe_op(const struct sfab_cqe *c)
{
	return sfab_cqe_opcode(c);
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

/* QUERY_QP into @a (through the host's scratch page); the command status */
static inline int qh_query_qp(struct fake_host *h, uint32_t qpn,
			      struct sfab_qp_attr *a)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_QUERY_QP);
	int st;

	c.u.query_qp.resp_addr = sfab_cpu_to_le64(h->scratch);
	c.u.query_qp.resp_len = sfab_cpu_to_le32(sizeof(*a));
	c.u.query_qp.qpn = sfab_cpu_to_le32(qpn);
	st = host_cmd(h, &c);
	memcpy(a, hp(h, h->scratch), sizeof(*a));
	return st;
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
			     sfab_db_val(qp->qpn, idx, 0), 8, SFAB_DB_SRC_CPU);
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

/* ---- memory regions, RC/UC WQEs, SRQs ------------------------------------ */

/*
 * CREATE_MR over @npages pages of 2^@shift bytes at @pages (bus addresses,
 * in the order the region uses them; NULL: leave the list alone); *key
 * gets the key.  The page list
 * is written to a scratch area that is overwritten afterwards (the device
 * copies it during the command).
 */
static inline int qh_mr_new(struct fake_host *h, uint64_t iova, uint64_t len,
			    const uint64_t *pages, uint32_t npages,
			    unsigned int shift, uint32_t pdn, uint32_t access,
			    uint32_t *key)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_MR);
	struct sfab_aq_create_mr *m = &c.u.create_mr;
	struct sfab_acq_entry cpl;
	uint64_t pbl = h->scratch + 2048;
	uint32_t i;
	int st;

	for (i = 0; pages && i < npages && i < 256; i++) {
		uint64_t v = sfab_cpu_to_le64(pages[i]);

		memcpy(hp(h, pbl + i * 8), &v, 8);
	}
	m->iova = sfab_cpu_to_le64(iova);
	m->length = sfab_cpu_to_le64(len);
	m->pbl_addr = sfab_cpu_to_le64(pbl);
	m->npages = sfab_cpu_to_le32(npages);
	m->pdn = sfab_cpu_to_le32(pdn);
	m->access = sfab_cpu_to_le32(access);
	m->page_shift = shift;
	st = host_cmd_full(h, &c, &cpl);
	/* the device must have copied the list: scribble over it */
	memset(hp(h, pbl), 0xa5, 2048);
	if (key)
		*key = sfab_le32_to_cpu(cpl.result0);
	return st;
}

/* an MR over contiguous memory [addr, addr + len), iova = addr, 4 KiB pages */
static inline int qh_mr_contig(struct fake_host *h, uint64_t addr, uint64_t len,
			       uint32_t pdn, uint32_t access, uint32_t *key)
{
	uint64_t pages[256], first = addr & ~4095ULL;
	uint32_t n = (uint32_t)(((addr + len + 4095) & ~4095ULL) - first) >> 12, i;

	for (i = 0; i < n && i < 256; i++)
		pages[i] = first + ((uint64_t)i << 12);
	return qh_mr_new(h, addr, len, pages, n, 12, pdn, access, key);
}

static inline int qh_mr_destroy(struct fake_host *h, uint32_t key)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_MR);

	c.u.destroy_mr.key = sfab_cpu_to_le32(key);
	return host_cmd(h, &c);
}

/*
 * a QP of any type with 2^log rings (SQ stride 2^sq_slog, RQ 64), the
 * given flags (SFAB_QP_PRIV, SFAB_QP_SRQ), PD and SRQ
 */
static inline int qh_qp_new_ex(struct fake_host *h, struct qh_qp *qp,
			       uint8_t type, unsigned int log,
			       unsigned int sq_slog, uint32_t scq, uint32_t rcq,
			       uint32_t flags, uint32_t pdn, uint32_t srqn)
{
	struct sfab_aq_cmd c;
	struct sfab_acq_entry cpl;
	int st;

	memset(qp, 0, sizeof(*qp));
	qp->type = type;
	qp->sq_log = qp->rq_log = log;
	qp->sq_slog = sq_slog;
	qp->rq_slog = 6;
	qp->sq = host_alloc(h, (size_t)1 << (log + sq_slog), 4096);
	qp->rq = host_alloc(h, 64U << log, 4096);
	c = qh_create_qp_cmd(qp, scq, rcq, 0, flags);
	c.u.create_qp.pdn = sfab_cpu_to_le32(pdn);
	c.u.create_qp.srqn = sfab_cpu_to_le32(srqn);
	if (flags & SFAB_QP_SRQ)
		memset(&c.u.create_qp.rq, 0, sizeof(c.u.create_qp.rq));
	st = host_cmd_full(h, &c, &cpl);
	qp->qpn = sfab_le32_to_cpu(cpl.result0);
	return st;
}

struct qh_conn {
	uint32_t dest_qpn, sq_psn, rq_psn, access;
	uint16_t dlid;
	uint8_t mtu, timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
};

/* Reset -> Init -> RTR -> RTS of an RC or UC QP */
static inline int qh_qp_connect(struct fake_host *h, const struct qh_qp *qp,
				const struct qh_conn *k)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_aq_modify_qp *m = &c.u.modify_qp;
	/* XRC: the initiator is a requester only, the target a responder */
	bool resp = qp->type == SFAB_QPT_RC || qp->type == SFAB_QPT_XRC_TGT;
	bool req = qp->type == SFAB_QPT_RC || qp->type == SFAB_QPT_XRC_INI;
	int st;

	m->qpn = sfab_cpu_to_le32(qp->qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_PKEY_INDEX |
					SFAB_QP_ATTR_PORT | SFAB_QP_ATTR_ACCESS);
	m->state = SFAB_QPS_INIT;
	m->port_num = 1;
	m->access_flags = sfab_cpu_to_le32(k->access);
	st = host_cmd(h, &c);
	if (st)
		return st;
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	m->qpn = sfab_cpu_to_le32(qp->qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_AV |
					SFAB_QP_ATTR_PATH_MTU | SFAB_QP_ATTR_DEST_QPN |
					SFAB_QP_ATTR_RQ_PSN |
					(resp ? SFAB_QP_ATTR_RD_ATOMIC |
						SFAB_QP_ATTR_MIN_RNR_TIMER : 0));
	m->state = SFAB_QPS_RTR;
	m->dlid = sfab_cpu_to_le16(k->dlid);
	m->path_mtu = k->mtu;
	m->dest_qpn = sfab_cpu_to_le32(k->dest_qpn);
	m->rq_psn = sfab_cpu_to_le32(k->rq_psn);
	m->max_dest_rd_atomic = k->max_dest_rd_atomic;
	m->min_rnr_timer = k->min_rnr_timer;
	st = host_cmd(h, &c);
	if (st)
		return st;
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	m->qpn = sfab_cpu_to_le32(qp->qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_SQ_PSN |
					(req ? SFAB_QP_ATTR_TIMEOUT | SFAB_QP_ATTR_RETRY |
					       SFAB_QP_ATTR_RD_ATOMIC : 0) |
					(qp->type == SFAB_QPT_XRC_TGT ?
					 SFAB_QP_ATTR_TIMEOUT : 0));
	m->state = SFAB_QPS_RTS;
	m->sq_psn = sfab_cpu_to_le32(k->sq_psn);
	m->timeout = k->timeout;
	m->retry_cnt = k->retry_cnt;
	m->rnr_retry = k->rnr_retry;
	m->max_rd_atomic = k->max_rd_atomic;
	return host_cmd(h, &c);
}

/* SET_QP_DBREC: the QP's SQ and RQ doorbell records (0: none) */
static inline struct sfab_aq_cmd qh_set_qp_dbrec_cmd(uint32_t qpn, uint64_t sq,
						     uint64_t rq)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_SET_QP_DBREC);

	c.u.set_qp_dbrec.qpn = sfab_cpu_to_le32(qpn);
	c.u.set_qp_dbrec.sq_dbrec = sfab_cpu_to_le64(sq);
	c.u.set_qp_dbrec.rq_dbrec = sfab_cpu_to_le64(rq);
	return c;
}

/* an RC/UC send WQE: the control segment, then raddr (+ atomic) or nothing */
struct qh_rc_send {
	uint64_t wr_id;
	uint8_t opcode, flags;
	uint32_t imm;			/* SEND_IMM, WRITE_IMM (host order); INV: the rkey */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add, compare;
	unsigned int nsge;
	struct { uint64_t addr; uint32_t len, lkey; } sge[8];
	const void *inl;		/* SFAB_WQE_INLINE: the data */
	uint32_t inl_len;
	struct sfab_wqe_reg_mr reg;	/* REG_MR */
	struct sfab_wqe_bind_mw bind;	/* BIND_MW */
	/* ATOMIC_WRITE: swap_add holds the value (little-endian in memory) */
	uint64_t flush_len;		/* FLUSH */
	uint8_t flush_type, flush_level;
	uint32_t xrc_srqn;		/* on an XRC_INI QP: the far end's SRQ */
};

static inline void qh_post_rc(struct fake_host *h, struct qh_qp *qp,
			      const struct qh_rc_send *s)
{
	uint8_t *w = hp(h, qp->sq + ((qp->sq_pi & ((1U << qp->sq_log) - 1))
				     << qp->sq_slog));
	struct sfab_wqe_ctrl ctrl;
	size_t at = sizeof(ctrl);
	unsigned int i;

	memset(w, 0, 1U << qp->sq_slog);
	memset(&ctrl, 0, sizeof(ctrl));
	ctrl.opcode = s->opcode;
	ctrl.flags = s->flags;
	ctrl.wr_id = sfab_cpu_to_le64(s->wr_id);
	if (qp->type == SFAB_QPT_XRC_INI) {
		struct sfab_wqe_xrc x;

		memset(&x, 0, sizeof(x));
		x.remote_srqn = sfab_cpu_to_le32(s->xrc_srqn);
		memcpy(w + at, &x, sizeof(x));
		at += sizeof(x);
	}
	if (s->opcode == SFAB_WQE_SEND_INV || s->opcode == SFAB_WQE_LOCAL_INV) {
		uint32_t k = s->imm;

		memcpy(&ctrl.imm_data, &k, 4);
	} else {
		ctrl.imm_data = sfab_cpu_to_be32(s->imm);
	}
	if (s->opcode == SFAB_WQE_REG_MR) {
		memcpy(w + at, &s->reg, sizeof(s->reg));
		at += sizeof(s->reg);
	}
	if (s->opcode == SFAB_WQE_BIND_MW) {
		memcpy(w + at, &s->bind, sizeof(s->bind));
		at += sizeof(s->bind);
	}
	if (s->opcode == SFAB_WQE_RDMA_WRITE || s->opcode == SFAB_WQE_RDMA_WRITE_IMM ||
	    s->opcode == SFAB_WQE_RDMA_READ || s->opcode == SFAB_WQE_ATOMIC_CS ||
	    s->opcode == SFAB_WQE_ATOMIC_FA || s->opcode == SFAB_WQE_ATOMIC_WRITE ||
	    s->opcode == SFAB_WQE_FLUSH) {
		struct sfab_wqe_raddr ra;

		memset(&ra, 0, sizeof(ra));
		ra.remote_addr = sfab_cpu_to_le64(s->raddr);
		ra.rkey = sfab_cpu_to_le32(s->rkey);
		memcpy(w + at, &ra, sizeof(ra));
		at += sizeof(ra);
	}
	if (s->opcode == SFAB_WQE_FLUSH) {
		struct sfab_wqe_flush f;

		memset(&f, 0, sizeof(f));
		f.length = sfab_cpu_to_le64(s->flush_len);
		f.type = s->flush_type;
		f.level = s->flush_level;
		memcpy(w + at, &f, sizeof(f));
		at += sizeof(f);
	}
	if (s->opcode == SFAB_WQE_ATOMIC_CS || s->opcode == SFAB_WQE_ATOMIC_FA ||
	    s->opcode == SFAB_WQE_ATOMIC_WRITE) {
		struct sfab_wqe_atomic a;

		a.swap_add = sfab_cpu_to_le64(s->swap_add);
		a.compare = sfab_cpu_to_le64(s->compare);
		memcpy(w + at, &a, sizeof(a));
		at += sizeof(a);
	}
	if (s->flags & SFAB_WQE_INLINE) {
		struct sfab_wqe_inline inl;

		memset(&inl, 0, sizeof(inl));
		inl.byte_count = sfab_cpu_to_le32(s->inl_len);
		memcpy(w + at, &inl, sizeof(inl));
		at += sizeof(inl);
		if (at + s->inl_len <= (1U << qp->sq_slog))
			memcpy(w + at, s->inl, s->inl_len);
	} else {
		ctrl.num_sge = s->nsge;
		for (i = 0; i < s->nsge && at + 16 <= (1U << qp->sq_slog); i++) {
			struct sfab_sge g;

			g.addr = sfab_cpu_to_le64(s->sge[i].addr);
			g.length = sfab_cpu_to_le32(s->sge[i].len);
			g.lkey = sfab_cpu_to_le32(s->sge[i].lkey);
			memcpy(w + at, &g, sizeof(g));
			at += sizeof(g);
		}
	}
	memcpy(w, &ctrl, sizeof(ctrl));
	qp->sq_pi++;
}

struct qh_srq {
	uint32_t srqn;
	uint64_t ring;
	unsigned int log;
	uint16_t pi;
	uint16_t db_page;
};

/* an SRQ of 2^log WQEs (stride 64) with CREATE_SRQ's flags, cqn, xrcdn */
static inline int qh_srq_new_ex(struct fake_host *h, struct qh_srq *srq,
				unsigned int log, uint32_t pdn, uint32_t limit,
				uint16_t flags, uint32_t cqn, uint32_t xrcdn)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_SRQ);
	struct sfab_acq_entry cpl;
	int st;

	memset(srq, 0, sizeof(*srq));
	srq->log = log;
	srq->ring = host_alloc(h, 64U << log, 4096);
	qh_ring_desc(&c.u.create_srq.ring, srq->ring, log, 6);
	c.u.create_srq.pdn = sfab_cpu_to_le32(pdn);
	c.u.create_srq.limit = sfab_cpu_to_le32(limit);
	c.u.create_srq.flags = sfab_cpu_to_le16(flags);
	c.u.create_srq.cqn = sfab_cpu_to_le32(cqn);
	c.u.create_srq.xrcdn = sfab_cpu_to_le32(xrcdn);
	st = host_cmd_full(h, &c, &cpl);
	srq->srqn = sfab_le32_to_cpu(cpl.result0);
	return st;
}

static inline int qh_srq_new(struct fake_host *h, struct qh_srq *srq,
			     unsigned int log, uint32_t pdn, uint32_t limit)
{
	return qh_srq_new_ex(h, srq, log, pdn, limit, 0, 0, 0);
}

/* an XRC SRQ of domain @xrcdn completing on @cqn (SFAB_SRQ_XRC) */
static inline int qh_xrc_srq_new(struct fake_host *h, struct qh_srq *srq,
				 unsigned int log, uint32_t pdn, uint32_t cqn,
				 uint32_t xrcdn)
{
	return qh_srq_new_ex(h, srq, log, pdn, 0, SFAB_SRQ_XRC, cqn, xrcdn);
}

/*
 * an XRC_INI QP (a 2^log SQ of stride 256, send CQ @cq, PD @n) or an
 * XRC_TGT QP (no rings; domain @n)
 */
static inline int qh_xrc_qp_new(struct fake_host *h, struct qh_qp *qp,
				uint8_t type, unsigned int log, uint32_t cq,
				uint32_t n)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_QP);
	struct sfab_aq_create_qp *q = &c.u.create_qp;
	struct sfab_acq_entry cpl;
	int st;

	memset(qp, 0, sizeof(*qp));
	qp->type = type;
	q->qp_type = type;
	if (type == SFAB_QPT_XRC_INI) {
		qp->sq_log = log;
		qp->sq_slog = 8;
		qp->sq = host_alloc(h, 256U << log, 4096);
		qh_ring_desc(&q->sq, qp->sq, log, 8);
		q->send_cqn = sfab_cpu_to_le32(cq);
		q->pdn = sfab_cpu_to_le32(n);
	} else {
		q->xrcdn = sfab_cpu_to_le32(n);
	}
	st = host_cmd_full(h, &c, &cpl);
	qp->qpn = sfab_le32_to_cpu(cpl.result0);
	return st;
}

/* post one receive (one SGE) to an SRQ and ring its doorbell */
static inline void qh_srq_post(struct fake_host *h, struct qh_srq *srq,
			       uint64_t wr_id, uint64_t addr, uint32_t len,
			       uint32_t lkey)
{
	uint8_t *w = hp(h, srq->ring + ((srq->pi & ((1U << srq->log) - 1)) << 6));
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
	srq->pi++;
	sfab_engine_db_write(h->e, srq->db_page * SFAB_DB_PAGE_SIZE + SFAB_DB_SRQ,
			     sfab_db_val(srq->srqn, srq->pi, 0), 8,
			     SFAB_DB_SRC_CPU);
	host_run(h);
}

#endif /* SFAB_TEST_QP_HOST_H */
