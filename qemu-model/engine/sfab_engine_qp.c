/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab HCA engine: completion queues, queue pairs, doorbells and the UD
 * datapath (include/sfab/sfab_queue.h).
 *
 *  - CQs and QPs live in host rings, contiguous or page-listed; the limits
 *    come from the firmware profile (and the engine's own tables).
 *  - QP0 (SMI) and QP1 (GSI) of the port are QPNs 0 and 1; other QPs get
 *    QPNs from 2 upwards.  MODIFY_QP follows the IBA state machine with the
 *    attribute rules of each transition (ib_modify_qp_is_ok's table),
 *    SQD included: the send WQEs begun finish, then SQ_DRAINED.
 *  - SMI, GSI and UD QPs send and receive (UD also SEND with immediate;
 *    datagrams carry no GRH in this version).  RC and UC transport is in
 *    sfab_engine_rc.c (Documentation/sfab/transport.rst).
 *  - Data buffers are named by lkeys of memory regions (sfab_engine_mr.c)
 *    of the QP's PD, or by local_dma_lkey (bus addresses), which only a QP
 *    created with SFAB_QP_PRIV may use; anything else is a protection
 *    error.
 *  - Shared receive queues: QPs made with SFAB_QP_SRQ take receive WQEs
 *    from one; the limit event when it runs low.
 *  - A send or receive that completes in error moves the QP to Error; in
 *    Error every outstanding WQE completes with WR_FLUSH_ERR, from the run
 *    queue as sends go: at most SFAB_ENGINE_QP_QUOTA per QP and turn.
 *  - CQEs carry a phase bit, 1 on the first pass.  A CQ whose host ring
 *    is full (or whose CQE cannot be written) goes to error: an AENQ
 *    CQ_ERROR event, and its later CQEs are lost.  An armed CQ signals its
 *    EQ once (an EQE and the EQ's MSI-X vector); a full EQ loses the event
 *    rather than overwrite an entry the host has not consumed.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sfab_engine.h"
#include "sfab_engine_int.h"


static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static bool tail_zero(const struct sfab_aq_cmd *c, size_t used)
{
	return all_zero(c->u.raw + used, sizeof(c->u.raw) - used);
}

static bool hca_up(const struct sfab_engine *e)
{
	return (e->dev_sts & SFAB_DEV_STS_HCA_INIT) &&
	       !(e->dev_sts & SFAB_DEV_STS_FATAL);
}

static uint32_t prof(uint32_t le, uint32_t cap)
{
	uint32_t v = sfab_le32_to_cpu(le);

	return cap && v > cap ? cap : v;
}

/* -------------------------------------------------------------------- */
/* rings */

/*
 * A ring descriptor of an admin command (@what: "CREATE_QP: sq", ...):
 * false, said under @site, when a field is out of range.
 */
static bool ring_parse(struct sfab_engine *e, enum sfab_guest_err site,
		       const char *what, const struct sfab_ring_desc *d,
		       unsigned int min_stride, unsigned int max_stride,
		       uint32_t max_entries, struct sfab_engine_qring *r)
{
	uint64_t addr = sfab_le64_to_cpu(d->addr);
	uint32_t npages = sfab_le32_to_cpu(d->npages);
	unsigned long long a = addr;
	uint64_t size, need;

	if (d->log_stride < min_stride || d->log_stride > max_stride) {
		sfab_engine_guest_error(e, site, "%s.log_stride %u not in %u..%u",
					what, d->log_stride, min_stride,
					max_stride);
		return false;
	}
	if (d->log_depth > SFAB_RING_MAX_LOG_DEPTH) {
		sfab_engine_guest_error(e, site, "%s.log_depth %u > %u", what,
					d->log_depth, SFAB_RING_MAX_LOG_DEPTH);
		return false;
	}
	if ((1U << d->log_depth) > max_entries) {
		sfab_engine_guest_error(e, site,
					"%s.log_depth %u: %u entries > %u", what,
					d->log_depth, 1U << d->log_depth,
					max_entries);
		return false;
	}
	if (d->flags & ~SFAB_RING_CONTIG) {
		sfab_engine_guest_error(e, site, "%s.flags 0x%x: unknown bits",
					what, d->flags);
		return false;
	}
	if (!addr) {
		sfab_engine_guest_error(e, site, "%s.addr 0", what);
		return false;
	}
	size = (uint64_t)1 << (d->log_depth + d->log_stride);
	memset(r, 0, sizeof(*r));
	r->addr = addr;
	r->log_depth = d->log_depth;
	r->log_stride = d->log_stride;
	if (d->flags & SFAB_RING_CONTIG) {
		/* entries are naturally aligned and the ring does not wrap */
		if (npages || d->page_shift) {
			sfab_engine_guest_error(e, site,
						"%s: contiguous with npages %u, page_shift %u",
						what, npages, d->page_shift);
			return false;
		}
		if (addr & ((1U << d->log_stride) - 1)) {
			sfab_engine_guest_error(e, site,
						"%s.addr 0x%llx not %u-byte aligned",
						what, a, 1U << d->log_stride);
			return false;
		}
		if (addr + size < addr) {
			sfab_engine_guest_error(e, site,
						"%s.addr 0x%llx: %llu bytes wrap",
						what, a, (unsigned long long)size);
			return false;
		}
		r->contig = true;
		return true;
	}
	if (d->page_shift < SFAB_RING_MIN_PAGE_SHIFT ||
	    d->page_shift > SFAB_RING_MAX_PAGE_SHIFT) {
		sfab_engine_guest_error(e, site, "%s.page_shift %u not in %u..%u",
					what, d->page_shift,
					SFAB_RING_MIN_PAGE_SHIFT,
					SFAB_RING_MAX_PAGE_SHIFT);
		return false;
	}
	if (addr & 7) {
		sfab_engine_guest_error(e, site,
					"%s.addr 0x%llx: page list not 8-byte aligned",
					what, a);
		return false;
	}
	/* exactly the pages the ring needs */
	need = (size + (1ULL << d->page_shift) - 1) >> d->page_shift;
	if (npages != need) {
		sfab_engine_guest_error(e, site, "%s.npages %u, the ring needs %llu",
					what, npages, (unsigned long long)need);
		return false;
	}
	if (addr + (uint64_t)npages * 8 < addr) {
		sfab_engine_guest_error(e, site,
					"%s.addr 0x%llx: %u page list entries wrap",
					what, a, npages);
		return false;
	}
	r->npages = npages;
	r->page_shift = d->page_shift;
	return true;
}

/* the bus address of entry @idx; -1 when the page list cannot be read */
int sfab_qp_ring_entry(struct sfab_engine *e, const struct sfab_engine_qring *r,
		       uint32_t idx, uint64_t *out)
{
	uint64_t off = (uint64_t)(idx & ((1U << r->log_depth) - 1)) << r->log_stride;
	uint64_t mask, page;
	uint64_t ent;

	if (r->contig) {
		*out = r->addr + off;
		return 0;
	}
	mask = (1ULL << r->page_shift) - 1;
	if (sfab_engine_dma_read(e, r->addr + (off >> r->page_shift) * 8,
				 &ent, sizeof(ent)))
		return -1;
	page = sfab_le64_to_cpu(ent);
	if (page & mask)
		return -1;
	*out = page + (off & mask);
	return 0;
}

/* -------------------------------------------------------------------- */
/* events and completions */

static void eq_post(struct sfab_engine *e, uint32_t eqn, uint32_t cqn)
{
	struct sfab_engine_eq *eq;
	struct sfab_eqe eqe;
	uint16_t prod;
	uint32_t slot;

	if (eqn >= SFAB_ENGINE_MAX_EQ || !e->eq[eqn].valid)
		return;
	eq = &e->eq[eqn];
	/* the ring rule (sfab_ring.h), as the doorbell's 16-bit index sees it */
	prod = (uint16_t)eq->prod;
	/* never overwrite an entry the host has not consumed */
	if (!sfab_ring_free(prod, eq->cons, eq->log_depth)) {
		e->stats.eq_overruns++;
		return;
	}
	slot = sfab_ring_slot(prod, eq->log_depth);
	memset(&eqe, 0, sizeof(eqe));
	eqe.cqn = sfab_cpu_to_le32(cqn);
	if (sfab_ring_phase(prod, eq->log_depth))
		eqe.flags = SFAB_EQE_FLAGS_PHASE;
	if (sfab_engine_dma_write(e, eq->ring_addr + (uint64_t)slot * sizeof(eqe),
				  &eqe, sizeof(eqe))) {
		sfab_engine_guest_error(e, SFAB_GE_EQ_DMA,
					"EQ %u: event DMA write failed", eqn);
		e->stats.eq_overruns++;
		return;
	}
	eq->prod++;
	e->stats.eqes++;
	sfab_engine_irq(e, eq->vector);
}

static void cq_fail_at(struct sfab_engine *e, uint32_t cqn,
		       enum sfab_guest_err site, const char *why)
{
	struct sfab_engine_cq *cq = &e->cq[cqn];

	cq->err = true;
	sfab_engine_guest_error(e, site, "CQ %u: %s", cqn, why);
	sfab_engine_aenq_event(e, SFAB_AENQ_CQ_ERROR, cqn, 0);
}

static void cq_fail(struct sfab_engine *e, uint32_t cqn, const char *why)
{
	cq_fail_at(e, cqn, SFAB_GE_CQ, why);
}

/* -------------------------------------------------------------------- */
/* doorbell records (sfab_ring.h) */

/* read the record at @addr: 0 and its index, -1 when it cannot be read */
static int dbrec_read(struct sfab_engine *e, uint64_t addr, uint16_t *idx)
{
	struct sfab_dbrec rec;

	e->stats.dbrec_reads++;
	if (sfab_engine_dma_read(e, addr, &rec, sizeof(rec)))
		return -1;
	*idx = sfab_dbrec_idx(&rec);
	return 0;
}

/*
 * A CQ its own copy of the consumer index calls full: the record may say
 * the host consumed more.  False when the record cannot be read (the CQ
 * is in error now).
 */
static bool cq_dbrec_refresh(struct sfab_engine *e, uint32_t cqn)
{
	struct sfab_engine_cq *cq = &e->cq[cqn];
	uint16_t idx;

	if (dbrec_read(e, cq->dbrec, &idx)) {
		cq_fail_at(e, cqn, SFAB_GE_DBREC, "doorbell record unreadable");
		return false;
	}
	if (!sfab_dbrec_ci_ok(cq->ci, cq->pi, idx)) {
		sfab_engine_guest_error(e, SFAB_GE_DBREC,
					"CQ %u: record index %u outside [%u, %u], ignored",
					cqn, idx, cq->ci, cq->pi);
		return true;
	}
	cq->ci = idx;
	return true;
}

/*
 * An SRQ with a record whose own copy says empty (or below its limit):
 * the record may say the host posted more.  False when the SRQ is in
 * error (now or before).
 */
static bool srq_dbrec_refresh(struct sfab_engine *e, uint32_t srqn)
{
	struct sfab_engine_srq *srq = &e->srq[srqn];
	uint16_t idx;

	if (srq->err)
		return false;
	if (!srq->dbrec)
		return true;
	if (dbrec_read(e, srq->dbrec, &idx)) {
		sfab_engine_guest_error(e, SFAB_GE_DBREC,
					"SRQ %u: doorbell record unreadable", srqn);
		srq->err = true;
		sfab_engine_aenq_event(e, SFAB_AENQ_SRQ_EVENT, srqn,
				       SFAB_SRQ_EV_ERR);
		return false;
	}
	if (!sfab_dbrec_pi_ok(srq->ci, srq->pi, idx, srq->ring.log_depth)) {
		sfab_engine_guest_error(e, SFAB_GE_DBREC,
					"SRQ %u: record index %u (ci %u, pi %u), ignored",
					srqn, idx, srq->ci, srq->pi);
		return true;
	}
	srq->pi = idx;
	return true;
}

static void cq_event(struct sfab_engine *e, uint32_t cqn)
{
	struct sfab_engine_cq *cq = &e->cq[cqn];

	cq->arm = SFAB_DB_ARM_NONE;
	eq_post(e, cq->eqn, cqn);
}

void sfab_qp_cq_post(struct sfab_engine *e, uint32_t cqn, struct sfab_cqe *cqe,
		     bool solicited)
{
	struct sfab_engine_cq *cq;
	uint64_t addr;
	uint32_t depth;

	if (cqn >= e->cfg.max_cq || !e->cq[cqn].valid)
		return;
	cq = &e->cq[cqn];
	if (cq->err) {
		e->stats.cqe_lost++;
		return;
	}
	depth = 1U << cq->ring.log_depth;
	/* full by the last doorbell: ask the record before an overrun */
	if ((uint16_t)(cq->pi - cq->ci) >= depth && cq->dbrec &&
	    !cq_dbrec_refresh(e, cqn)) {
		e->stats.cqe_lost++;
		return;
	}
	if ((uint16_t)(cq->pi - cq->ci) >= depth) {
		char why[64];

		e->stats.cq_overruns++;
		e->stats.cqe_lost++;
		snprintf(why, sizeof(why), "overrun (producer %u, consumer %u, %u entries)",
			 cq->pi, cq->ci, depth);
		cq_fail(e, cqn, why);
		return;
	}
	if (e->fault_cqe_error) {
		/* injected: a completion the device got wrong */
		e->fault_cqe_error = false;
		cqe->status = SFAB_CQE_STS_GENERAL_ERR;
		cqe->vendor_err = SFAB_CQE_VENDOR_INJECTED;
	}
	cqe->flags &= ~SFAB_CQE_PHASE;
	if (sfab_ring_phase(cq->pi, cq->ring.log_depth))
		cqe->flags |= SFAB_CQE_PHASE;
	if (sfab_qp_ring_entry(e, &cq->ring, cq->pi, &addr) ||
	    sfab_engine_dma_write(e, addr, cqe, sizeof(*cqe))) {
		e->stats.cqe_lost++;
		cq_fail(e, cqn, "CQE DMA write failed");
		return;
	}
	cq->pi++;
	e->stats.cqes++;
	sfab_engine_trace(e, SFAB_TRACE_CQE, cqn,
			  (uint64_t)cqe->status << 32 |
			  SFAB_FIELD_GET(SFAB_CQE_QPN_MASK,
					 sfab_le32_to_cpu(cqe->qpn_opcode)));
	if (cq->arm == SFAB_DB_ARM_NEXT ||
	    (cq->arm == SFAB_DB_ARM_SOLICITED && (solicited || cqe->status)))
		cq_event(e, cqn);
}

uint32_t sfab_qp_qpn(const struct sfab_engine *e, const struct sfab_engine_qp *qp)
{
	return (uint32_t)(qp - e->qp);
}

/* @idx: a send's SQ index (sfab_cqe.wqe_index); receives: unused */
static void complete(struct sfab_engine *e, struct sfab_engine_qp *qp,
		     bool send, uint16_t idx, uint64_t wr_id, uint8_t status,
		     uint32_t len)
{
	struct sfab_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.wr_id = sfab_cpu_to_le64(wr_id);
	cqe.byte_len = sfab_cpu_to_le32(len);
	cqe.status = status;
	cqe.qpn_opcode = sfab_cqe_qpn_opcode(sfab_qp_qpn(e, qp),
					     send ? SFAB_CQE_SEND : SFAB_CQE_RECV);
	if (send)
		cqe.wqe_index = sfab_cpu_to_le16(idx);
	/* the host finds an XRC SRQ's WQE by the SRQ: the QP is not its own */
	if (!send && qp->type == SFAB_QPT_XRC_TGT) {
		cqe.flags = SFAB_CQE_XRC;
		cqe.src_qp_sl = sfab_cqe_src_qp_sl(qp->srqn, 0);
	}
	sfab_qp_cq_post(e, send ? qp->send_cqn : qp->recv_cqn, &cqe, false);
}

/* -------------------------------------------------------------------- */
/* QP state */

static void runq_push(struct sfab_engine *e, uint32_t qpn)
{
	if (e->runq_in[qpn])
		return;
	e->runq_in[qpn] = true;
	e->runq[(e->runq_head + e->runq_len++) % e->cfg.max_qp] = qpn;
}

static uint32_t runq_pop(struct sfab_engine *e)
{
	uint32_t qpn = e->runq[e->runq_head];

	e->runq_head = (e->runq_head + 1) % e->cfg.max_qp;
	e->runq_len--;
	e->runq_in[qpn] = false;
	return qpn;
}

/*
 * a QP with send work joins the run queue (entries go stale lazily); one
 * with WQEs to flush stays there until they are (flush_set() first)
 */
void sfab_qp_sched(struct sfab_engine *e, struct sfab_engine_qp *qp, bool on)
{
	if (qp->sched == on || (!on && qp->flushing))
		return;
	qp->sched = on;
	if (on) {
		e->sq_sched++;
		runq_push(e, (uint32_t)(qp - e->qp));
	} else {
		e->sq_sched--;
	}
}

static uint64_t wqe_wr_id(struct sfab_engine *e,
			  const struct sfab_engine_qring *r, uint16_t idx,
			  bool send)
{
	struct sfab_wqe_ctrl sc;
	struct sfab_rwqe_ctrl rc;
	uint64_t addr;

	if (sfab_qp_ring_entry(e, r, idx, &addr))
		return 0;
	if (send)
		return sfab_engine_dma_read(e, addr, &sc, sizeof(sc)) ? 0 :
		       sfab_le64_to_cpu(sc.wr_id);
	return sfab_engine_dma_read(e, addr, &rc, sizeof(rc)) ? 0 :
	       sfab_le64_to_cpu(rc.wr_id);
}

/* the QP has WQEs to flush; qp_flushing counts such QPs */
static void flush_set(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      bool on)
{
	if (qp->flushing == on)
		return;
	qp->flushing = on;
	if (on)
		e->qp_flushing++;
	else
		e->qp_flushing--;
}

/*
 * Error: every outstanding WQE completes with WR_FLUSH_ERR, send WQEs
 * first, then receives, then an SRQ WQE an open message had taken.  One
 * WQE per step, run from the run queue as sends are, so the event that
 * asks for it (a doorbell, MODIFY_QP, an error) writes no CQE itself and a
 * QP flushes at most SFAB_ENGINE_QP_QUOTA per turn.  False when nothing
 * is left: the QP leaves the run queue.
 */
static bool flush_step(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	if (qp->sq_ci != qp->sq_pi) {
		complete(e, qp, true, qp->sq_ci,
			 wqe_wr_id(e, &qp->sq, qp->sq_ci, true),
			 SFAB_CQE_STS_WR_FLUSH_ERR, 0);
		qp->sq_ci++;
		return true;
	}
	if (qp->rq_ci != qp->rq_pi) {
		complete(e, qp, false, 0,
			 wqe_wr_id(e, &qp->rq, qp->rq_ci, false),
			 SFAB_CQE_STS_WR_FLUSH_ERR, 0);
		qp->rq_ci++;
		return true;
	}
	if (qp->use_srq && qp->rc.rwqe_taken) {
		struct sfab_engine_srq *srq = sfab_qp_srq_get(e, qp->srqn);

		qp->rc.rwqe_taken = false;
		if (srq)
			complete(e, qp, false, 0,
				 wqe_wr_id(e, &srq->ring, qp->rc.srq_idx, false),
				 SFAB_CQE_STS_WR_FLUSH_ERR, 0);
		return true;
	}
	flush_set(e, qp, false);
	sfab_qp_sched(e, qp, false);
	return false;
}

/*
 * A QP in Error with WQEs to flush joins the run queue; flushes go on
 * while the port has no room for sends.
 */
static bool rq_dbrec_refresh(struct sfab_engine *e, struct sfab_engine_qp *qp);

static void qp_flush(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	bool work;

	/* receives posted through the record are flushed too */
	rq_dbrec_refresh(e, qp);
	work = qp->sq_ci != qp->sq_pi || qp->rq_ci != qp->rq_pi ||
	       (qp->use_srq && qp->rc.rwqe_taken);

	qp->rc.in_send = qp->rc.in_write = false;
	flush_set(e, qp, work);
	sfab_qp_sched(e, qp, work);
}

void sfab_qp_event(struct sfab_engine *e, struct sfab_engine_qp *qp,
		   uint8_t ev)
{
	sfab_engine_aenq_event(e, SFAB_AENQ_QP_EVENT, sfab_qp_qpn(e, qp), ev);
}

void sfab_qp_sqd_check(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	if (qp->state != SFAB_QPS_SQD || qp->sqd_drained ||
	    qp->sq_ci != qp->sqd_stop)
		return;
	qp->sqd_drained = true;
	sfab_qp_event(e, qp, SFAB_QP_EV_SQ_DRAINED);
}

static void qp_set_state(struct sfab_engine *e, struct sfab_engine_qp *qp,
			 uint8_t st)
{
	uint8_t old = qp->state;

	qp->state = st;
	sfab_engine_trace(e, SFAB_TRACE_QP_STATE, sfab_qp_qpn(e, qp), st);
	switch (st) {
	case SFAB_QPS_RESET:
		/* the rings start over, empty; the records are read again */
		qp->sq_pi = qp->sq_ci = qp->rq_pi = qp->rq_ci = 0;
		qp->rq_dbrec_failed = false;
		flush_set(e, qp, false);
		sfab_qp_sched(e, qp, false);
		/* IBA: Reset discards work without completions */
		memset(&qp->rc, 0, sizeof(qp->rc));
		break;
	case SFAB_QPS_ERR:
		qp_flush(e, qp);
		/* IBA 11.6.3: an SRQ QP reports that no WQE is in use anymore */
		if (qp->use_srq)
			sfab_qp_event(e, qp, SFAB_QP_EV_LAST_WQE);
		break;
	case SFAB_QPS_RTR:
		sfab_rc_init_responder(e, qp);
		break;
	case SFAB_QPS_RTS:
		/* SQD -> RTS while draining: the requester goes on as it was */
		if (old != SFAB_QPS_SQD || qp->sqd_drained)
			sfab_rc_init_requester(e, qp);
		if (qp->sq_ci != qp->sq_pi)
			sfab_qp_sched(e, qp, true);
		break;
	case SFAB_QPS_SQD:
		/*
		 * The WQEs begun finish; UD/SMI/GSI complete each WQE as it is
		 * sent, so they have none left
		 */
		qp->sqd_drained = false;
		if (sfab_qp_connected(qp))
			sfab_rc_sqd_begin(e, qp);
		else
			qp->sqd_stop = qp->sq_ci;
		sfab_qp_sqd_check(e, qp);
		break;
	default:
		break;
	}
}

static void qp_error(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	qp_set_state(e, qp, SFAB_QPS_ERR);
}

/*
 * A QP with an RQ record whose own copy says the RQ is empty (or that
 * flushes): the record may say the host posted more.  False when the
 * record cannot be read: the QP goes to Error (FATAL) unless it is there.
 */
static bool rq_dbrec_refresh(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	uint16_t idx;

	if (!qp->rq_dbrec || qp->use_srq || qp->state == SFAB_QPS_RESET)
		return true;
	/* one report: the move to Error flushes, which would read it again */
	if (qp->rq_dbrec_failed)
		return false;
	if (dbrec_read(e, qp->rq_dbrec, &idx)) {
		sfab_engine_guest_error(e, SFAB_GE_DBREC,
					"QP %u: RQ doorbell record unreadable",
					sfab_qp_qpn(e, qp));
		qp->rq_dbrec_failed = true;
		if (qp->state != SFAB_QPS_ERR) {
			qp_error(e, qp);
			sfab_qp_event(e, qp, SFAB_QP_EV_FATAL);
		}
		return false;
	}
	if (!sfab_dbrec_pi_ok(qp->rq_ci, qp->rq_pi, idx, qp->rq.log_depth)) {
		sfab_engine_guest_error(e, SFAB_GE_DBREC,
					"QP %u: RQ record index %u (ci %u, pi %u), ignored",
					sfab_qp_qpn(e, qp), idx, qp->rq_ci,
					qp->rq_pi);
		return true;
	}
	qp->rq_pi = idx;
	return true;
}

void sfab_qp_error(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	if (qp->state != SFAB_QPS_ERR)
		qp_set_state(e, qp, SFAB_QPS_ERR);
}

struct sfab_engine_qp *sfab_qp_get(struct sfab_engine *e, uint32_t qpn)
{
	return qpn < e->cfg.max_qp && e->qp[qpn].valid ? &e->qp[qpn] : NULL;
}

/* -------------------------------------------------------------------- */
/* admin commands */

static struct sfab_engine_cq *cq_get(struct sfab_engine *e, uint32_t cqn)
{
	return cqn < e->cfg.max_cq && e->cq[cqn].valid ? &e->cq[cqn] : NULL;
}

static struct sfab_engine_qp *qp_get(struct sfab_engine *e, uint32_t qpn)
{
	return qpn < e->cfg.max_qp && e->qp[qpn].valid ? &e->qp[qpn] : NULL;
}

/*
 * A command refused: why (the command, the field, its value and the
 * limit) under the command's site, then the status.  One report per
 * refusal; aq_step() adds no generic one.
 */
#define refuse(e, site, sts, ...)					\
	(sfab_engine_guest_error((e), (site), __VA_ARGS__), (uint8_t)(sts))
#define cq_refuse(e, sts, ...)						\
	refuse(e, SFAB_GE_CQ_PARAM, sts, "CREATE_CQ: " __VA_ARGS__)
#define qp_refuse(e, sts, ...)						\
	refuse(e, SFAB_GE_QP_PARAM, sts, "CREATE_QP: " __VA_ARGS__)
#define mqp_refuse(e, sts, ...)						\
	refuse(e, SFAB_GE_QP_PARAM, sts, "MODIFY_QP: " __VA_ARGS__)
#define srq_refuse(e, sts, ...)						\
	refuse(e, SFAB_GE_SRQ_PARAM, sts, "CREATE_SRQ: " __VA_ARGS__)
#define BAD_PARAM	SFAB_AQ_STS_BAD_PARAM

static uint8_t cmd_create_cq(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			     uint32_t *result0)
{
	const struct sfab_aq_create_cq *q = &c->u.create_cq;
	uint64_t dbrec = sfab_le64_to_cpu(q->dbrec_addr);
	uint32_t eqn = sfab_le32_to_cpu(q->eqn);
	uint16_t db_page = sfab_le16_to_cpu(q->db_page);
	uint32_t limit = sfab_engine_cq_limit(e);
	struct sfab_engine_qring ring;
	struct sfab_engine_cq *cq;
	uint32_t i;

	if (!ring_parse(e, SFAB_GE_CQ_PARAM, "CREATE_CQ: ring", &q->ring,
			SFAB_CQE_LOG_STRIDE, SFAB_CQE_LOG_STRIDE,
			prof(e->profile.max_cqe, 0), &ring))
		return BAD_PARAM;
	if (db_page >= SFAB_DB_NUM_PAGES)
		return cq_refuse(e, BAD_PARAM, "db_page %u >= %u", db_page,
				 SFAB_DB_NUM_PAGES);
	if (q->reserved0 || !tail_zero(c, sizeof(*q)))
		return cq_refuse(e, BAD_PARAM, "reserved bytes not zero");
	if (!sfab_dbrec_addr_ok(dbrec))
		return cq_refuse(e, BAD_PARAM,
				 "dbrec_addr 0x%llx not %u-byte aligned",
				 (unsigned long long)dbrec, SFAB_DBREC_ALIGN);
	if (eqn >= SFAB_ENGINE_MAX_EQ || !e->eq[eqn].valid)
		return cq_refuse(e, BAD_PARAM, "eqn %u: no such EQ", eqn);
	if (e->num_cq >= limit)
		return cq_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				 "%u CQs exist, max_cq %u", e->num_cq, limit);
	for (i = 0; i < limit; i++)
		if (!e->cq[i].valid)
			break;
	if (i == limit)
		return cq_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				 "no free CQ slot of %u", limit);
	cq = &e->cq[i];
	memset(cq, 0, sizeof(*cq));
	cq->valid = true;
	cq->ring = ring;
	cq->eqn = eqn;
	cq->db_page = db_page;
	cq->dbrec = dbrec;
	e->num_cq++;
	*result0 = i;
	sfab_engine_trace(e, SFAB_TRACE_CQ_CREATE, i, eqn);
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_destroy_cq(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_destroy_cq *q = &c->u.destroy_cq;
	uint32_t cqn = sfab_le32_to_cpu(q->cqn);
	struct sfab_engine_cq *cq = cq_get(e, cqn);

	if (!cq || q->reserved || !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	if (cq->users)
		return SFAB_AQ_STS_BAD_STATE;	/* a QP still completes here */
	memset(cq, 0, sizeof(*cq));
	e->num_cq--;
	sfab_engine_trace(e, SFAB_TRACE_CQ_DESTROY, cqn, 0);
	return SFAB_AQ_STS_OK;
}

#define rcq_refuse(e, sts, ...)						\
	refuse(e, SFAB_GE_CQ_PARAM, sts, "RESIZE_CQ: " __VA_ARGS__)

/*
 * RESIZE_CQ (sfab_queue.h): the outstanding CQEs, from the host's
 * consumer index, to the start of the new ring; the CQ is changed only
 * when all of them were copied.
 */
static uint8_t cmd_resize_cq(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_resize_cq *q = &c->u.resize_cq;
	uint32_t cqn = sfab_le32_to_cpu(q->cqn);
	uint64_t dbrec = sfab_le64_to_cpu(q->dbrec_addr);
	uint16_t ci = sfab_le16_to_cpu(q->ci);
	struct sfab_engine_cq *cq = cq_get(e, cqn);
	struct sfab_engine_qring ring;
	uint64_t from, to;
	struct sfab_cqe cqe;
	uint16_t n, i;

	if (!cq)
		return rcq_refuse(e, BAD_PARAM, "cqn %u: no such CQ", cqn);
	if (!ring_parse(e, SFAB_GE_CQ_PARAM, "RESIZE_CQ: ring", &q->ring,
			SFAB_CQE_LOG_STRIDE, SFAB_CQE_LOG_STRIDE,
			prof(e->profile.max_cqe, 0), &ring))
		return BAD_PARAM;
	if (q->reserved0 || !tail_zero(c, sizeof(*q)))
		return rcq_refuse(e, BAD_PARAM, "reserved bytes not zero");
	if (!sfab_dbrec_addr_ok(dbrec))
		return rcq_refuse(e, BAD_PARAM,
				  "dbrec_addr 0x%llx not %u-byte aligned",
				  (unsigned long long)dbrec, SFAB_DBREC_ALIGN);
	if (cq->err)
		return rcq_refuse(e, SFAB_AQ_STS_BAD_STATE, "CQ %u is in error",
				  cqn);
	/* the host cannot have consumed what the device has not written */
	n = cq->pi - ci;
	if (n > (1U << cq->ring.log_depth))
		return rcq_refuse(e, BAD_PARAM,
				  "CQ %u: ci %u outside [%u, %u]", cqn, ci,
				  (uint16_t)(cq->pi - (1U << cq->ring.log_depth)),
				  cq->pi);
	if (n > (1U << ring.log_depth))
		return rcq_refuse(e, BAD_PARAM,
				  "CQ %u: %u CQEs outstanding, the new ring holds %u",
				  cqn, n, 1U << ring.log_depth);
	/* read and written once each: the admin work budget */
	e->work_bytes += (uint32_t)n * 2 * sizeof(cqe);
	for (i = 0; i < n; i++) {
		if (sfab_qp_ring_entry(e, &cq->ring, (uint16_t)(ci + i), &from) ||
		    sfab_engine_dma_read(e, from, &cqe, sizeof(cqe)) ||
		    sfab_qp_ring_entry(e, &ring, i, &to))
			return rcq_refuse(e, SFAB_AQ_STS_DMA_ERROR,
					  "CQ %u: CQE %u unreadable", cqn,
					  (uint16_t)(ci + i));
		cqe.flags &= ~SFAB_CQE_PHASE;
		if (sfab_ring_phase(i, ring.log_depth))
			cqe.flags |= SFAB_CQE_PHASE;
		if (sfab_engine_dma_write(e, to, &cqe, sizeof(cqe)))
			return rcq_refuse(e, SFAB_AQ_STS_DMA_ERROR,
					  "CQ %u: new ring entry %u unwritable",
					  cqn, i);
	}
	cq->ring = ring;
	cq->dbrec = dbrec;
	cq->ci = 0;
	cq->pi = n;
	sfab_engine_trace(e, SFAB_TRACE_CQ_RESIZE, cqn,
			  (uint64_t)ring.log_depth << 32 | n);
	return SFAB_AQ_STS_OK;
}

/* a free QPN from 2 upwards, round robin so a QPN is not reused at once */
static uint32_t qpn_alloc(struct sfab_engine *e, uint32_t limit)
{
	uint32_t i, n;

	for (i = 0; i < limit; i++) {
		n = (e->qp_next + i) % limit;
		if (n >= 2 && !e->qp[n].valid) {
			e->qp_next = n + 1;
			return n;
		}
	}
	return 0;
}

static bool ring_zero(const struct sfab_ring_desc *d)
{
	static const struct sfab_ring_desc zero;

	return !memcmp(d, &zero, sizeof(zero));
}

/*
 * CREATE_QP of an XRC initiator (a send queue, its CQ and PD) or target
 * (nothing but its domain): sfab_queue.h, "XRC"
 */
static uint8_t create_xrc_qp(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			     uint32_t *result0)
{
	const struct sfab_aq_create_qp *q = &c->u.create_qp;
	bool ini = q->qp_type == SFAB_QPT_XRC_INI;
	uint32_t scqn = sfab_le32_to_cpu(q->send_cqn);
	uint32_t pdn = sfab_le32_to_cpu(q->pdn);
	uint32_t flags = sfab_le32_to_cpu(q->flags);
	uint32_t xrcdn = sfab_le32_to_cpu(q->xrcdn);
	uint16_t db_page = sfab_le16_to_cpu(q->db_page);
	uint32_t limit = sfab_engine_qp_limit(e);
	struct sfab_engine_qring sq;
	struct sfab_engine_qp *qp;
	uint32_t qpn;

	memset(&sq, 0, sizeof(sq));
	/* user QPs only: a kernel consumer has no XRC */
	if (flags)
		return qp_refuse(e, BAD_PARAM, "qp_type %u: flags 0x%x",
				 q->qp_type, flags);
	if (!ring_zero(&q->rq) || q->recv_cqn || q->port_num)
		return qp_refuse(e, BAD_PARAM,
				 "qp_type %u: rq, recv_cqn or port_num given",
				 q->qp_type);
	if (ini) {
		if (xrcdn)
			return qp_refuse(e, BAD_PARAM,
					 "XRC_INI: xrcdn %u given", xrcdn);
		if (!ring_parse(e, SFAB_GE_QP_PARAM, "CREATE_QP: sq", &q->sq,
				SFAB_SQ_MIN_LOG_STRIDE + 1,
				SFAB_SQ_MAX_LOG_STRIDE,
				prof(e->profile.max_qp_wr, 0), &sq))
			return BAD_PARAM;
		if (pdn >= prof(e->profile.max_pd, 0))
			return qp_refuse(e, BAD_PARAM, "pdn %u >= max_pd %u",
					 pdn, prof(e->profile.max_pd, 0));
		if (!cq_get(e, scqn))
			return qp_refuse(e, BAD_PARAM,
					 "send_cqn %u: no such CQ", scqn);
	} else {
		if (!ring_zero(&q->sq) || scqn || pdn)
			return qp_refuse(e, BAD_PARAM,
					 "XRC_TGT: sq, send_cqn or pdn given");
		if (xrcdn >= prof(e->profile.max_pd, 0))
			return qp_refuse(e, BAD_PARAM,
					 "xrcdn %u >= max_xrcd %u", xrcdn,
					 prof(e->profile.max_pd, 0));
	}
	if (db_page >= SFAB_DB_NUM_PAGES)
		return qp_refuse(e, BAD_PARAM, "db_page %u >= %u", db_page,
				 SFAB_DB_NUM_PAGES);
	if (!tail_zero(c, sizeof(*q)))
		return qp_refuse(e, BAD_PARAM, "reserved bytes not zero");
	if (e->num_qp >= limit)
		return qp_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				 "%u QPs exist, max_qp %u", e->num_qp, limit);
	qpn = qpn_alloc(e, limit);
	if (!qpn)
		return qp_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				 "no free QPN of %u", limit);
	qp = &e->qp[qpn];
	memset(qp, 0, sizeof(*qp));
	qp->valid = true;
	qp->type = q->qp_type;
	qp->state = SFAB_QPS_RESET;
	qp->db_page = db_page;
	qp->path_mtu = SFAB_PI_MTU_4096;
	if (ini) {
		/* no receives: its recv CQ is its send CQ, held twice */
		qp->sq = sq;
		qp->send_cqn = qp->recv_cqn = scqn;
		qp->pdn = pdn;
		e->cq[scqn].users += 2;
	} else {
		/* each message's SRQ gives the CQ and PD: none yet */
		qp->use_srq = true;
		qp->srqn = UINT32_MAX;
		qp->send_cqn = qp->recv_cqn = UINT32_MAX;
		qp->pdn = UINT32_MAX;
		qp->xrcdn = xrcdn;
	}
	e->num_qp++;
	*result0 = qpn;
	sfab_engine_trace(e, SFAB_TRACE_QP_CREATE, qpn, q->qp_type);
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_create_qp(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			     uint32_t *result0)
{
	const struct sfab_aq_create_qp *q = &c->u.create_qp;
	uint32_t max_wr = prof(e->profile.max_qp_wr, 0);
	uint32_t limit = sfab_engine_qp_limit(e);
	uint32_t scqn = sfab_le32_to_cpu(q->send_cqn);
	uint32_t rcqn = sfab_le32_to_cpu(q->recv_cqn);
	uint32_t pdn = sfab_le32_to_cpu(q->pdn);
	uint32_t flags = sfab_le32_to_cpu(q->flags);
	uint16_t db_page = sfab_le16_to_cpu(q->db_page);
	uint32_t srqn = sfab_le32_to_cpu(q->srqn);
	struct sfab_engine_qring sq, rq;
	struct sfab_engine_srq *srq = NULL;
	struct sfab_engine_qp *qp;
	uint32_t qpn;
	bool special = q->qp_type == SFAB_QPT_SMI || q->qp_type == SFAB_QPT_GSI;
	bool use_srq = flags & SFAB_QP_SRQ;

	memset(&rq, 0, sizeof(rq));
	if (q->qp_type > SFAB_QPT_XRC_TGT)
		return qp_refuse(e, BAD_PARAM, "qp_type %u > %u", q->qp_type,
				 SFAB_QPT_XRC_TGT);
	if (q->qp_type == SFAB_QPT_XRC_INI || q->qp_type == SFAB_QPT_XRC_TGT)
		return create_xrc_qp(e, c, result0);
	if (flags & ~(SFAB_QP_PRIV | SFAB_QP_SRQ))
		return qp_refuse(e, BAD_PARAM, "flags 0x%x: unknown bits 0x%x",
				 flags, flags & ~(SFAB_QP_PRIV | SFAB_QP_SRQ));
	if (!use_srq && srqn)
		return qp_refuse(e, BAD_PARAM, "srqn %u without flag SRQ", srqn);
	if (use_srq && special)
		return qp_refuse(e, BAD_PARAM, "flag SRQ on qp_type %u",
				 q->qp_type);
	if (!ring_parse(e, SFAB_GE_QP_PARAM, "CREATE_QP: sq", &q->sq,
			SFAB_SQ_MIN_LOG_STRIDE, SFAB_SQ_MAX_LOG_STRIDE, max_wr,
			&sq))
		return BAD_PARAM;
	/* with an SRQ the rq descriptor is not used */
	if (!use_srq &&
	    !ring_parse(e, SFAB_GE_QP_PARAM, "CREATE_QP: rq", &q->rq,
			SFAB_RQ_MIN_LOG_STRIDE, SFAB_RQ_MAX_LOG_STRIDE, max_wr,
			&rq))
		return BAD_PARAM;
	if (pdn >= prof(e->profile.max_pd, 0))
		return qp_refuse(e, BAD_PARAM, "pdn %u >= max_pd %u", pdn,
				 prof(e->profile.max_pd, 0));
	if (db_page >= SFAB_DB_NUM_PAGES)
		return qp_refuse(e, BAD_PARAM, "db_page %u >= %u", db_page,
				 SFAB_DB_NUM_PAGES);
	/* a privileged QP rings the kernel's doorbell pages only */
	if ((flags & SFAB_QP_PRIV) && db_page >= SFAB_DB_KERNEL_PAGES)
		return qp_refuse(e, BAD_PARAM,
				 "flag PRIV with db_page %u >= %u (kernel pages)",
				 db_page, SFAB_DB_KERNEL_PAGES);
	/* the port of QP0/QP1; other QPs get theirs from MODIFY_QP */
	if (q->port_num != (special ? 1 : 0))
		return qp_refuse(e, BAD_PARAM, "port_num %u for qp_type %u, not %u",
				 q->port_num, q->qp_type, special ? 1 : 0);
	if (!tail_zero(c, sizeof(*q)))
		return qp_refuse(e, BAD_PARAM, "reserved bytes not zero");
	if (!cq_get(e, scqn))
		return qp_refuse(e, BAD_PARAM, "send_cqn %u: no such CQ", scqn);
	if (!cq_get(e, rcqn))
		return qp_refuse(e, BAD_PARAM, "recv_cqn %u: no such CQ", rcqn);
	if (use_srq) {
		srq = sfab_qp_srq_get(e, srqn);
		if (!srq)
			return qp_refuse(e, BAD_PARAM, "srqn %u: no such SRQ",
					 srqn);
		if (srq->pdn != pdn)
			return qp_refuse(e, BAD_PARAM,
					 "srqn %u is of pdn %u, not %u", srqn,
					 srq->pdn, pdn);
	}
	if (e->num_qp >= limit)
		return qp_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				 "%u QPs exist, max_qp %u", e->num_qp, limit);
	if (special) {
		qpn = q->qp_type == SFAB_QPT_SMI ? SFAB_QP0 : SFAB_QP1;
		if (e->qp[qpn].valid)	/* one each per port */
			return qp_refuse(e, SFAB_AQ_STS_BAD_STATE,
					 "qp_type %u: QP%u exists", q->qp_type,
					 qpn);
	} else {
		qpn = qpn_alloc(e, limit);
		if (!qpn)
			return qp_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
					 "no free QPN of %u", limit);
	}
	qp = &e->qp[qpn];
	memset(qp, 0, sizeof(*qp));
	qp->valid = true;
	qp->priv = flags & SFAB_QP_PRIV;
	qp->type = q->qp_type;
	qp->state = SFAB_QPS_RESET;
	qp->port = q->port_num;
	qp->db_page = db_page;
	qp->sq = sq;
	qp->rq = rq;
	qp->send_cqn = scqn;
	qp->recv_cqn = rcqn;
	qp->pdn = pdn;
	qp->path_mtu = SFAB_PI_MTU_4096;
	qp->use_srq = use_srq;
	qp->srqn = srqn;
	if (srq)
		srq->users++;
	e->cq[scqn].users++;
	e->cq[rcqn].users++;
	e->num_qp++;
	*result0 = qpn;
	sfab_engine_trace(e, SFAB_TRACE_QP_CREATE, qpn, q->qp_type);
	return SFAB_AQ_STS_OK;
}

/* group @g is (@mlid, @mgid); a NULL @mgid (no GRH): the MLID alone names it */
static bool mcg_match(const struct sfab_engine_mcg *g, uint16_t mlid,
		      const uint8_t *mgid)
{
	return g->nqp && g->mlid == mlid && (!mgid || !memcmp(g->mgid, mgid, 16));
}

static struct sfab_engine_mcg *mcg_find(struct sfab_engine *e,
					const uint8_t mgid[16], uint16_t mlid)
{
	unsigned int i;

	for (i = 0; i < SFAB_ENGINE_MAX_MCG; i++)
		if (mcg_match(&e->mcg[i], mlid, mgid))
			return &e->mcg[i];
	return NULL;
}

/* the group loses @qpn (at @k); a group without QPs is free */
static void mcg_drop(struct sfab_engine_mcg *g, unsigned int k)
{
	g->qpn[k] = g->qpn[--g->nqp];
	if (!g->nqp)
		memset(g, 0, sizeof(*g));
}

static int mcg_index(const struct sfab_engine_mcg *g, uint32_t qpn)
{
	unsigned int k;

	for (k = 0; k < g->nqp; k++)
		if (g->qpn[k] == qpn)
			return (int)k;
	return -1;
}

static void mcg_detach_all(struct sfab_engine *e, uint32_t qpn)
{
	unsigned int i;
	int k;

	for (i = 0; i < SFAB_ENGINE_MAX_MCG; i++) {
		k = e->mcg[i].nqp ? mcg_index(&e->mcg[i], qpn) : -1;
		if (k >= 0)
			mcg_drop(&e->mcg[i], (unsigned int)k);
	}
}

#define mcg_refuse(e, sts, ...)						\
	refuse(e, SFAB_GE_QP_PARAM, sts, __VA_ARGS__)

static uint8_t cmd_mcast(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_mcast *m = &c->u.mcast;
	bool attach = c->opcode == SFAB_AQ_ATTACH_MCAST;
	const char *op = attach ? "ATTACH_MCAST" : "DETACH_MCAST";
	uint32_t qpn = sfab_le32_to_cpu(m->qpn);
	uint16_t mlid = sfab_be16_to_cpu(m->mlid);
	struct sfab_engine_qp *qp = qp_get(e, qpn);
	struct sfab_engine_mcg *g;
	unsigned int i;
	int k;

	if (!tail_zero(c, sizeof(*m)) || !sfab_aq_mcast_ok(m))
		return mcg_refuse(e, BAD_PARAM,
				  "%s: QP %u: mgid %02x.. mlid 0x%04x not multicast, or reserved bytes",
				  op, qpn, m->mgid[0], mlid);
	if (!qp || qp->type != SFAB_QPT_UD)
		return mcg_refuse(e, BAD_PARAM, "%s: QP %u: no such UD QP",
				  op, qpn);
	g = mcg_find(e, m->mgid, mlid);
	k = g ? mcg_index(g, qpn) : -1;
	if (!attach) {
		if (k < 0)
			return mcg_refuse(e, BAD_PARAM,
					  "%s: QP %u is not attached to MLID 0x%04x",
					  op, qpn, mlid);
		mcg_drop(g, (unsigned int)k);
		return SFAB_AQ_STS_OK;
	}
	if (k >= 0)
		return SFAB_AQ_STS_OK;
	if (!g) {
		for (i = 0; i < SFAB_ENGINE_MAX_MCG && e->mcg[i].nqp; i++)
			;
		if (i == SFAB_ENGINE_MAX_MCG)
			return mcg_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
					  "%s: %u groups exist", op,
					  SFAB_ENGINE_MAX_MCG);
		g = &e->mcg[i];
		memcpy(g->mgid, m->mgid, sizeof(g->mgid));
		g->mlid = mlid;
	} else if (g->nqp == SFAB_ENGINE_MCG_QPS) {
		return mcg_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				  "%s: MLID 0x%04x has %u QPs", op, mlid,
				  SFAB_ENGINE_MCG_QPS);
	}
	g->qpn[g->nqp++] = qpn;
	return SFAB_AQ_STS_OK;
}

static void qp_destroy(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	uint32_t qpn = sfab_qp_qpn(e, qp);

	flush_set(e, qp, false);
	sfab_qp_sched(e, qp, false);
	/* an XRC target holds no SRQ and no CQ: the SRQ holds its CQ */
	if (qp->type != SFAB_QPT_XRC_TGT) {
		if (qp->use_srq && qp->srqn < e->cfg.max_srq &&
		    e->srq[qp->srqn].valid)
			e->srq[qp->srqn].users--;
		e->cq[qp->send_cqn].users--;
		e->cq[qp->recv_cqn].users--;
	}
	if (qp->type == SFAB_QPT_UD)
		mcg_detach_all(e, qpn);
	sfab_rc_wc_drop(e, qp);
	memset(qp, 0, sizeof(*qp));
	e->num_qp--;
	sfab_engine_trace(e, SFAB_TRACE_QP_DESTROY, qpn, 0);
}

static uint8_t cmd_set_qp_dbrec(struct sfab_engine *e,
				const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_set_qp_dbrec *q = &c->u.set_qp_dbrec;
	uint32_t qpn = sfab_le32_to_cpu(q->qpn);
	uint64_t sq = sfab_le64_to_cpu(q->sq_dbrec);
	uint64_t rq = sfab_le64_to_cpu(q->rq_dbrec);
	struct sfab_engine_qp *qp = qp_get(e, qpn);

	if (!qp)
		return mqp_refuse(e, BAD_PARAM, "SET_QP_DBREC: qpn %u: no such QP",
				  qpn);
	if (q->reserved || !tail_zero(c, sizeof(*q)))
		return mqp_refuse(e, BAD_PARAM,
				  "SET_QP_DBREC: reserved bytes not zero");
	if (!sfab_dbrec_addr_ok(sq) || !sfab_dbrec_addr_ok(rq))
		return mqp_refuse(e, BAD_PARAM,
				  "SET_QP_DBREC: QP %u: sq 0x%llx rq 0x%llx not %u-byte aligned",
				  qpn, (unsigned long long)sq,
				  (unsigned long long)rq, SFAB_DBREC_ALIGN);
	if (rq && (qp->use_srq || qp->type == SFAB_QPT_XRC_INI))
		return mqp_refuse(e, BAD_PARAM,
				  "SET_QP_DBREC: QP %u: rq_dbrec without an RQ", qpn);
	if ((sq || rq) && qp->type == SFAB_QPT_XRC_TGT)
		return mqp_refuse(e, BAD_PARAM,
				  "SET_QP_DBREC: QP %u: an XRC target has no rings",
				  qpn);
	if (qp->state != SFAB_QPS_RESET)
		return mqp_refuse(e, SFAB_AQ_STS_BAD_STATE,
				  "SET_QP_DBREC: QP %u not in RESET", qpn);
	qp->sq_dbrec = sq;
	qp->rq_dbrec = rq;
	qp->rq_dbrec_failed = false;
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_destroy_qp(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_destroy_qp *q = &c->u.destroy_qp;
	struct sfab_engine_qp *qp = qp_get(e, sfab_le32_to_cpu(q->qpn));

	if (!qp || q->reserved || !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	/* its type 2 windows: a QP made later with its number gets none */
	sfab_engine_mw_qp_gone(e, sfab_qp_qpn(e, qp));
	qp_destroy(e, qp);
	return SFAB_AQ_STS_OK;
}

#define A(x)	SFAB_QP_ATTR_##x
#define ALL_ATTRS	(SFAB_QP_ATTR_GRH * 2 - 1)
/* SQD -> SQD attributes that need the QP drained */
#define SQD_PATH_ATTRS	(A(PORT) | A(AV) | A(GRH) | A(PKEY_INDEX) | \
			 A(TIMEOUT) | A(RETRY) | A(RD_ATOMIC))
/* what QUERY_QP always reports valid */
#define QUERY_ATTRS	(SFAB_QP_ATTR_RD_ATOMIC * 2 - 1)

static void put_be64(uint8_t *p, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		p[i] = v >> (56 - 8 * i);
}

void sfab_qp_port_gid(const struct sfab_engine *e, uint8_t gid[16])
{
	put_be64(gid, e->port.gid_prefix);
	put_be64(gid + 8, e->node_guid + 1);
}

bool sfab_qp_dgid_ok(struct sfab_engine *e, const struct sfab_pkt_grh *g)
{
	uint8_t gid[16];

	sfab_qp_port_gid(e, gid);
	if (!memcmp(g->dgid, gid, sizeof(gid)))
		return true;
	e->stats.rx_bad_grh++;
	return false;
}

void sfab_qp_path_grh(const struct sfab_engine *e,
		      const struct sfab_engine_qp *qp, struct sfab_pkt_grh *g)
{
	const struct sfab_wqe_grh *av = &qp->grh_av;

	memset(g, 0, sizeof(*g));
	g->tclass = av->traffic_class;
	g->flow_label = sfab_le32_to_cpu(av->flow_label);
	g->hop_limit = av->hop_limit;
	sfab_qp_port_gid(e, g->sgid);
	memcpy(g->dgid, av->dgid, sizeof(g->dgid));
}

/* a GRH block from the host: only GID index 0 exists */
static bool grh_av_ok(const struct sfab_wqe_grh *g)
{
	return !g->sgid_index && !g->reserved0 && !g->reserved1 &&
	       sfab_le32_to_cpu(g->flow_label) <= SFAB_GRH_FLOW_MASK;
}

/*
 * The attributes a transition requires and allows (IBA 11.2.5 / Linux's
 * ib_modify_qp_is_ok), for the QP types: 0 SMI/GSI, 1 UD, 2 RC, 3 UC,
 * 4 XRC_INI, 5 XRC_TGT.
 */
struct qp_rule {
	uint32_t req[6], opt[6];
};

static int type_class(uint8_t type)
{
	switch (type) {
	case SFAB_QPT_SMI:
	case SFAB_QPT_GSI:
		return 0;
	case SFAB_QPT_UD:
		return 1;
	case SFAB_QPT_RC:
		return 2;
	case SFAB_QPT_XRC_INI:
		return 4;
	case SFAB_QPT_XRC_TGT:
		return 5;
	default:
		return 3;
	}
}

/* false when cur -> next is not a transition */
static bool qp_rule(uint8_t cur, uint8_t next, struct qp_rule *r)
{
	memset(r, 0, sizeof(*r));
	if (next == SFAB_QPS_RESET || next == SFAB_QPS_ERR)
		return true;
	switch (cur) {
	case SFAB_QPS_RESET:
		if (next != SFAB_QPS_INIT)
			return false;
		r->req[0] = A(PKEY_INDEX) | A(QKEY);
		r->req[1] = A(PKEY_INDEX) | A(PORT) | A(QKEY);
		r->req[2] = A(PKEY_INDEX) | A(PORT) | A(ACCESS);
		r->req[3] = A(PKEY_INDEX) | A(PORT) | A(ACCESS);
		r->req[4] = r->req[5] = r->req[2];
		return true;
	case SFAB_QPS_INIT:
		if (next == SFAB_QPS_INIT) {
			r->opt[0] = A(PKEY_INDEX) | A(QKEY);
			r->opt[1] = A(PKEY_INDEX) | A(PORT) | A(QKEY);
			r->opt[2] = A(PKEY_INDEX) | A(PORT) | A(ACCESS);
			r->opt[3] = A(PKEY_INDEX) | A(PORT) | A(ACCESS);
			r->opt[4] = r->opt[5] = r->opt[2];
			return true;
		}
		if (next != SFAB_QPS_RTR)
			return false;
		r->opt[0] = r->opt[1] = A(PKEY_INDEX) | A(QKEY);
		r->req[2] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
			    A(RD_ATOMIC) | A(MIN_RNR_TIMER);
		r->req[3] = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN);
		/* the initiator responds to nothing, the target as RC does */
		r->req[4] = r->req[3];
		r->req[5] = r->req[2];
		r->opt[2] = r->opt[3] = A(PKEY_INDEX) | A(ACCESS);
		r->opt[4] = r->opt[5] = r->opt[2];
		return true;
	case SFAB_QPS_RTR:
		if (next != SFAB_QPS_RTS)
			return false;
		r->req[0] = r->req[1] = r->req[3] = A(SQ_PSN);
		r->opt[0] = r->opt[1] = A(QKEY);
		r->req[2] = A(SQ_PSN) | A(TIMEOUT) | A(RETRY) | A(RD_ATOMIC);
		r->opt[2] = A(ACCESS) | A(MIN_RNR_TIMER);
		r->opt[3] = A(ACCESS);
		/* the target sends nothing but its responses */
		r->req[4] = r->req[2];
		r->opt[4] = A(ACCESS);
		r->req[5] = A(SQ_PSN) | A(TIMEOUT);
		r->opt[5] = A(ACCESS) | A(MIN_RNR_TIMER);
		return true;
	case SFAB_QPS_RTS:
	case SFAB_QPS_SQE:
	case SFAB_QPS_SQD:
		if (next == SFAB_QPS_RTS) {
			r->opt[0] = r->opt[1] = A(QKEY);
			r->opt[2] = A(ACCESS) | A(MIN_RNR_TIMER);
			r->opt[3] = A(ACCESS);
			r->opt[4] = A(ACCESS);
			r->opt[5] = A(ACCESS) | A(MIN_RNR_TIMER);
			return true;
		}
		if (next != SFAB_QPS_SQD || cur == SFAB_QPS_SQE)
			return false;
		if (cur == SFAB_QPS_RTS)
			return true;	/* RTS -> SQD: no attributes */
		/* SQD -> SQD; the path ones only when drained (cmd_modify_qp) */
		r->opt[0] = r->opt[1] = A(PKEY_INDEX) | A(QKEY);
		r->opt[2] = A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY) |
			    A(RD_ATOMIC) | A(ACCESS) | A(PKEY_INDEX) |
			    A(MIN_RNR_TIMER);
		r->opt[3] = A(AV) | A(ACCESS) | A(PKEY_INDEX);
		r->opt[4] = A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY) |
			    A(RD_ATOMIC) | A(ACCESS) | A(PKEY_INDEX);
		r->opt[5] = A(PORT) | A(AV) | A(TIMEOUT) | A(RD_ATOMIC) |
			    A(ACCESS) | A(PKEY_INDEX) | A(MIN_RNR_TIMER);
		return true;
	default:
		return false;	/* Error leaves only to Reset */
	}
}

static uint8_t cmd_modify_qp(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_modify_qp *q = &c->u.modify_qp;
	uint32_t qpn = sfab_le32_to_cpu(q->qpn);
	struct sfab_engine_qp *qp = qp_get(e, qpn);
	uint32_t mask = sfab_le32_to_cpu(q->attr_mask);
	uint64_t grh_addr = sfab_le64_to_cpu(c->u.modify_qp_grh.grh_addr);
	struct sfab_wqe_grh grh;
	struct qp_rule rule;
	uint32_t v;
	uint8_t next;
	int k;

	if (!qp)
		return mqp_refuse(e, BAD_PARAM, "qpn %u: no such QP", qpn);
	if (mask & ~ALL_ATTRS)
		return mqp_refuse(e, BAD_PARAM, "QP %u: attr_mask 0x%x: unknown bits 0x%x",
				  qpn, mask, mask & ~ALL_ATTRS);
	if (q->reserved0 || q->reserved1 ||
	    !tail_zero(c, mask & A(GRH) ? sizeof(c->u.modify_qp_grh) :
					  sizeof(*q)))
		return mqp_refuse(e, BAD_PARAM, "QP %u: reserved bytes not zero",
				  qpn);
	/* a GRH only with the address vector it belongs to */
	if ((mask & A(GRH)) && !(mask & A(AV)))
		return mqp_refuse(e, BAD_PARAM, "QP %u: attr GRH without AV", qpn);
	next = mask & A(STATE) ? q->state : qp->state;
	if (next > SFAB_QPS_ERR)
		return mqp_refuse(e, BAD_PARAM, "QP %u: state %u > %u", qpn, next,
				  SFAB_QPS_ERR);
	if (!qp_rule(qp->state, next, &rule))
		return mqp_refuse(e, SFAB_AQ_STS_BAD_STATE,
				  "QP %u: state %u -> %u is no transition", qpn,
				  qp->state, next);
	k = type_class(qp->type);
	mask &= ~A(STATE);
	if ((mask & rule.req[k]) != rule.req[k])
		return mqp_refuse(e, BAD_PARAM,
				  "QP %u type %u, state %u -> %u: attr_mask 0x%x lacks 0x%x",
				  qpn, qp->type, qp->state, next, mask,
				  rule.req[k] & ~mask);
	if (mask & ~(rule.req[k] | rule.opt[k] | A(GRH)))
		return mqp_refuse(e, BAD_PARAM,
				  "QP %u type %u, state %u -> %u: attr_mask 0x%x: 0x%x not allowed",
				  qpn, qp->type, qp->state, next, mask,
				  mask & ~(rule.req[k] | rule.opt[k] | A(GRH)));
	/* SQD -> SQD: no new path while sends are still outstanding */
	if (qp->state == SFAB_QPS_SQD && next == SFAB_QPS_SQD &&
	    (mask & SQD_PATH_ATTRS) && !qp->sqd_drained)
		return mqp_refuse(e, SFAB_AQ_STS_BAD_STATE,
				  "QP %u: SQD -> SQD attr_mask 0x%x before the SQ drained",
				  qpn, mask);
	if (mask & A(GRH)) {
		if (sfab_engine_dma_read(e, grh_addr, &grh, sizeof(grh)))
			return mqp_refuse(e, SFAB_AQ_STS_DMA_ERROR,
					  "QP %u: grh_addr 0x%llx unreadable",
					  qpn, (unsigned long long)grh_addr);
		if (!grh_av_ok(&grh))
			return mqp_refuse(e, BAD_PARAM,
					  "QP %u: GRH sgid_index %u, flow_label 0x%x or reserved bytes",
					  qpn, grh.sgid_index,
					  sfab_le32_to_cpu(grh.flow_label));
	}
	/* the values: check all before changing anything */
	v = sfab_le16_to_cpu(q->pkey_index);
	if ((mask & A(PKEY_INDEX)) && v >= SFAB_PORT_PKEY_TBL_LEN)
		return mqp_refuse(e, BAD_PARAM, "QP %u: pkey_index %u >= %u", qpn,
				  v, SFAB_PORT_PKEY_TBL_LEN);
	if ((mask & A(PORT)) && q->port_num != 1)
		return mqp_refuse(e, BAD_PARAM, "QP %u: port_num %u, not 1", qpn,
				  q->port_num);
	v = sfab_le32_to_cpu(q->sq_psn);
	if ((mask & A(SQ_PSN)) && v > SFAB_BTH_PSN_MASK)
		return mqp_refuse(e, BAD_PARAM, "QP %u: sq_psn 0x%x > 0x%x", qpn,
				  v, SFAB_BTH_PSN_MASK);
	v = sfab_le32_to_cpu(q->rq_psn);
	if ((mask & A(RQ_PSN)) && v > SFAB_BTH_PSN_MASK)
		return mqp_refuse(e, BAD_PARAM, "QP %u: rq_psn 0x%x > 0x%x", qpn,
				  v, SFAB_BTH_PSN_MASK);
	v = sfab_le32_to_cpu(q->dest_qpn);
	if ((mask & A(DEST_QPN)) && v > SFAB_BTH_QPN_MASK)
		return mqp_refuse(e, BAD_PARAM, "QP %u: dest_qpn 0x%x > 0x%x", qpn,
				  v, SFAB_BTH_QPN_MASK);
	if ((mask & A(PATH_MTU)) &&
	    (q->path_mtu < 1 || q->path_mtu > SFAB_PI_MTU_4096))
		return mqp_refuse(e, BAD_PARAM, "QP %u: path_mtu %u not in 1..%u",
				  qpn, q->path_mtu, SFAB_PI_MTU_4096);
	if ((mask & A(AV)) && q->sl > 15)
		return mqp_refuse(e, BAD_PARAM, "QP %u: sl %u > 15", qpn, q->sl);
	if ((mask & A(TIMEOUT)) && q->timeout > 31)
		return mqp_refuse(e, BAD_PARAM, "QP %u: timeout %u > 31", qpn,
				  q->timeout);
	if ((mask & A(RETRY)) && q->retry_cnt > 7)
		return mqp_refuse(e, BAD_PARAM, "QP %u: retry_cnt %u > 7", qpn,
				  q->retry_cnt);
	if ((mask & A(RETRY)) && q->rnr_retry > 7)
		return mqp_refuse(e, BAD_PARAM, "QP %u: rnr_retry %u > 7", qpn,
				  q->rnr_retry);
	if ((mask & A(MIN_RNR_TIMER)) && q->min_rnr_timer > 31)
		return mqp_refuse(e, BAD_PARAM, "QP %u: min_rnr_timer %u > 31",
				  qpn, q->min_rnr_timer);
	/* max_qp_rd_atom, either side */
	if ((mask & A(RD_ATOMIC)) && q->max_rd_atomic > SFAB_ENGINE_MAX_RD_ATOM)
		return mqp_refuse(e, BAD_PARAM, "QP %u: max_rd_atomic %u > %u",
				  qpn, q->max_rd_atomic, SFAB_ENGINE_MAX_RD_ATOM);
	if ((mask & A(RD_ATOMIC)) &&
	    q->max_dest_rd_atomic > SFAB_ENGINE_MAX_RD_ATOM)
		return mqp_refuse(e, BAD_PARAM, "QP %u: max_dest_rd_atomic %u > %u",
				  qpn, q->max_dest_rd_atomic,
				  SFAB_ENGINE_MAX_RD_ATOM);
	if (mask & A(QKEY))
		qp->qkey = sfab_le32_to_cpu(q->qkey);
	if (mask & A(PKEY_INDEX))
		qp->pkey_index = sfab_le16_to_cpu(q->pkey_index);
	if (mask & A(PORT))
		qp->port = q->port_num;
	if (mask & A(SQ_PSN))
		qp->sq_psn = sfab_le32_to_cpu(q->sq_psn);
	if (mask & A(RQ_PSN))
		qp->rq_psn = sfab_le32_to_cpu(q->rq_psn);
	if (mask & A(DEST_QPN))
		qp->dest_qpn = sfab_le32_to_cpu(q->dest_qpn);
	if (mask & A(PATH_MTU))
		qp->path_mtu = q->path_mtu;
	if (mask & A(AV)) {
		qp->dlid = sfab_le16_to_cpu(q->dlid);
		qp->sl = q->sl;
		qp->src_path_bits = q->src_path_bits;
		qp->grh = mask & A(GRH);
		if (qp->grh)
			qp->grh_av = grh;
		else
			memset(&qp->grh_av, 0, sizeof(qp->grh_av));
	}
	if (mask & A(ACCESS))
		qp->access = sfab_le32_to_cpu(q->access_flags);
	if (mask & A(TIMEOUT))
		qp->timeout = q->timeout;
	if (mask & A(RETRY)) {
		qp->retry_cnt = q->retry_cnt;
		qp->rnr_retry = q->rnr_retry;
	}
	if (mask & A(MIN_RNR_TIMER))
		qp->min_rnr_timer = q->min_rnr_timer;
	/*
	 * One mask bit for two fields: Init -> RTR sets the responder's
	 * max_dest_rd_atomic, RTR -> RTS the requester's max_rd_atomic,
	 * SQD -> SQD both.
	 */
	if ((mask & A(RD_ATOMIC)) &&
	    (next == SFAB_QPS_RTR || next == SFAB_QPS_SQD))
		qp->max_dest_rd_atomic = q->max_dest_rd_atomic;
	if ((mask & A(RD_ATOMIC)) &&
	    (next == SFAB_QPS_RTS || next == SFAB_QPS_SQD))
		qp->max_rd_atomic = q->max_rd_atomic;
	if (next != qp->state || next == SFAB_QPS_RESET)
		qp_set_state(e, qp, next);
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_query_qp(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_query_qp *q = &c->u.query_qp;
	struct sfab_engine_qp *qp = qp_get(e, sfab_le32_to_cpu(q->qpn));
	struct sfab_qp_attr a;
	struct sfab_aq_modify_qp *m = &a.attr;

	if (!qp || sfab_le32_to_cpu(q->resp_len) < sizeof(a) ||
	    !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	memset(&a, 0, sizeof(a));
	m->qpn = sfab_cpu_to_le32(sfab_qp_qpn(e, qp));
	m->attr_mask = sfab_cpu_to_le32(QUERY_ATTRS | (qp->grh ? A(GRH) : 0));
	if (qp->grh)
		a.grh = qp->grh_av;
	m->qkey = sfab_cpu_to_le32(qp->qkey);
	m->sq_psn = sfab_cpu_to_le32(qp->sq_psn);
	m->rq_psn = sfab_cpu_to_le32(qp->rq_psn);
	m->dest_qpn = sfab_cpu_to_le32(qp->dest_qpn);
	m->pkey_index = sfab_cpu_to_le16(qp->pkey_index);
	m->dlid = sfab_cpu_to_le16(qp->dlid);
	m->state = qp->state;
	m->port_num = qp->port;
	m->path_mtu = qp->path_mtu;
	m->sl = qp->sl;
	m->src_path_bits = qp->src_path_bits;
	m->timeout = qp->timeout;
	m->retry_cnt = qp->retry_cnt;
	m->rnr_retry = qp->rnr_retry;
	m->min_rnr_timer = qp->min_rnr_timer;
	m->max_rd_atomic = qp->max_rd_atomic;
	m->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	m->access_flags = sfab_cpu_to_le32(qp->access);
	a.sq_pi = sfab_cpu_to_le16(qp->sq_pi);
	a.sq_ci = sfab_cpu_to_le16(qp->sq_ci);
	a.rq_pi = sfab_cpu_to_le16(qp->rq_pi);
	a.rq_ci = sfab_cpu_to_le16(qp->rq_ci);
	if (qp->state == SFAB_QPS_SQD && !qp->sqd_drained)
		a.flags = SFAB_QP_QUERY_SQ_DRAINING;
	if (sfab_engine_dma_write(e, sfab_le64_to_cpu(q->resp_addr), &a, sizeof(a)))
		return SFAB_AQ_STS_DMA_ERROR;
	return SFAB_AQ_STS_OK;
}

/* -------------------------------------------------------------------- */
/* shared receive queues */

struct sfab_engine_srq *sfab_qp_srq_get(struct sfab_engine *e, uint32_t srqn)
{
	return srqn < e->cfg.max_srq && e->srq[srqn].valid ?
	       &e->srq[srqn] : NULL;
}

static uint8_t cmd_create_srq(struct sfab_engine *e,
			      const struct sfab_aq_cmd *c, uint32_t *result0)
{
	const struct sfab_aq_create_srq *q = &c->u.create_srq;
	uint32_t limit = sfab_engine_srq_limit(e), pdn = sfab_le32_to_cpu(q->pdn);
	uint32_t arm = sfab_le32_to_cpu(q->limit);
	uint16_t db_page = sfab_le16_to_cpu(q->db_page);
	uint64_t dbrec = sfab_le64_to_cpu(q->dbrec_addr);
	uint16_t flags = sfab_le16_to_cpu(q->flags);
	uint32_t cqn = sfab_le32_to_cpu(q->cqn);
	uint32_t xrcdn = sfab_le32_to_cpu(q->xrcdn);
	bool xrc = flags & SFAB_SRQ_XRC;
	struct sfab_engine_qring ring;
	struct sfab_engine_srq *srq;
	uint32_t i;

	if (flags & ~SFAB_SRQ_XRC)
		return srq_refuse(e, BAD_PARAM, "flags 0x%x: unknown bits", flags);
	if (!xrc && (cqn || xrcdn))
		return srq_refuse(e, BAD_PARAM, "cqn %u, xrcdn %u without flag XRC",
				  cqn, xrcdn);
	if (xrc && !cq_get(e, cqn))
		return srq_refuse(e, BAD_PARAM, "cqn %u: no such CQ", cqn);
	if (xrc && xrcdn >= prof(e->profile.max_pd, 0))
		return srq_refuse(e, BAD_PARAM, "xrcdn %u >= max_xrcd %u", xrcdn,
				  prof(e->profile.max_pd, 0));
	if (!ring_parse(e, SFAB_GE_SRQ_PARAM, "CREATE_SRQ: ring", &q->ring,
			SFAB_RQ_MIN_LOG_STRIDE, SFAB_RQ_MAX_LOG_STRIDE,
			prof(e->profile.max_qp_wr, 0), &ring))
		return BAD_PARAM;
	if (pdn >= prof(e->profile.max_pd, 0))
		return srq_refuse(e, BAD_PARAM, "pdn %u >= max_pd %u", pdn,
				  prof(e->profile.max_pd, 0));
	if (db_page >= SFAB_DB_NUM_PAGES)
		return srq_refuse(e, BAD_PARAM, "db_page %u >= %u", db_page,
				  SFAB_DB_NUM_PAGES);
	if (arm > (1U << ring.log_depth))
		return srq_refuse(e, BAD_PARAM, "limit %u > %u entries", arm,
				  1U << ring.log_depth);
	if (q->reserved || !tail_zero(c, sizeof(*q)))
		return srq_refuse(e, BAD_PARAM, "reserved bytes not zero");
	if (!sfab_dbrec_addr_ok(dbrec))
		return srq_refuse(e, BAD_PARAM,
				  "dbrec_addr 0x%llx not %u-byte aligned",
				  (unsigned long long)dbrec, SFAB_DBREC_ALIGN);
	if (e->num_srq >= limit)
		return srq_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				  "%u SRQs exist, max_srq %u", e->num_srq, limit);
	for (i = 0; i < limit; i++)
		if (!e->srq[i].valid)
			break;
	if (i == limit)
		return srq_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				  "no free SRQ slot of %u", limit);
	srq = &e->srq[i];
	memset(srq, 0, sizeof(*srq));
	srq->valid = true;
	srq->ring = ring;
	srq->pdn = pdn;
	srq->db_page = db_page;
	srq->dbrec = dbrec;
	srq->limit = arm;
	srq->xrc = xrc;
	if (xrc) {
		srq->xrcdn = xrcdn;
		srq->cqn = cqn;
		e->cq[cqn].users++;
	}
	e->num_srq++;
	*result0 = i;
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_modify_srq(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_modify_srq *q = &c->u.modify_srq;
	struct sfab_engine_srq *srq = sfab_qp_srq_get(e, sfab_le32_to_cpu(q->srqn));
	uint32_t arm = sfab_le32_to_cpu(q->limit);

	if (!srq || arm > (1U << srq->ring.log_depth) || !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	if (srq->err)
		return SFAB_AQ_STS_BAD_STATE;
	srq->limit = arm;
	/* already below the new limit (the record may say otherwise) */
	if (arm && (uint16_t)(srq->pi - srq->ci) < arm &&
	    srq_dbrec_refresh(e, sfab_le32_to_cpu(q->srqn)) &&
	    (uint16_t)(srq->pi - srq->ci) < arm) {
		srq->limit = 0;
		sfab_engine_aenq_event(e, SFAB_AENQ_SRQ_EVENT,
				       sfab_le32_to_cpu(q->srqn), SFAB_SRQ_EV_LIMIT);
	}
	return SFAB_AQ_STS_OK;
}

#define rsrq_refuse(e, sts, ...)					\
	refuse(e, SFAB_GE_SRQ_PARAM, sts, "RESIZE_SRQ: " __VA_ARGS__)

/*
 * RESIZE_SRQ (sfab_queue.h): the WQEs the host has not seen complete, to
 * the same indices of the new ring; the SRQ changes only when all of them
 * were copied.
 */
static uint8_t cmd_resize_srq(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_resize_srq *q = &c->u.resize_srq;
	uint32_t srqn = sfab_le32_to_cpu(q->srqn);
	struct sfab_engine_srq *srq = sfab_qp_srq_get(e, srqn);
	uint64_t dbrec = sfab_le64_to_cpu(q->dbrec_addr);
	uint16_t ci = sfab_le16_to_cpu(q->ci), pi = sfab_le16_to_cpu(q->pi);
	uint8_t wqe[SFAB_WQE_MAX_SIZE];
	struct sfab_engine_qring ring;
	uint64_t from, to;
	uint16_t n, idx;
	uint32_t i;

	if (!srq)
		return rsrq_refuse(e, BAD_PARAM, "srqn %u: no such SRQ", srqn);
	if (!ring_parse(e, SFAB_GE_SRQ_PARAM, "RESIZE_SRQ: ring", &q->ring,
			SFAB_RQ_MIN_LOG_STRIDE, SFAB_RQ_MAX_LOG_STRIDE,
			prof(e->profile.max_qp_wr, 0), &ring))
		return BAD_PARAM;
	if (ring.log_stride != srq->ring.log_stride)
		return rsrq_refuse(e, BAD_PARAM, "SRQ %u: log_stride %u, the SRQ's is %u",
				   srqn, ring.log_stride, srq->ring.log_stride);
	if (!tail_zero(c, sizeof(*q)))
		return rsrq_refuse(e, BAD_PARAM, "reserved bytes not zero");
	if (!sfab_dbrec_addr_ok(dbrec))
		return rsrq_refuse(e, BAD_PARAM,
				   "dbrec_addr 0x%llx not %u-byte aligned",
				   (unsigned long long)dbrec, SFAB_DBREC_ALIGN);
	if (srq->err)
		return rsrq_refuse(e, SFAB_AQ_STS_BAD_STATE, "SRQ %u is in error",
				   srqn);
	n = pi - ci;
	if (n > (1U << srq->ring.log_depth) || n > (1U << ring.log_depth))
		return rsrq_refuse(e, BAD_PARAM,
				   "SRQ %u: %u WQEs from %u to %u, rings of %u and %u",
				   srqn, n, ci, pi, 1U << srq->ring.log_depth,
				   1U << ring.log_depth);
	/* what the device has taken and been told of lies in [ci, pi] */
	if ((uint16_t)(srq->ci - ci) > n || (uint16_t)(srq->pi - ci) > n)
		return rsrq_refuse(e, BAD_PARAM,
				   "SRQ %u: device at %u, told up to %u, not in [%u, %u]",
				   srqn, srq->ci, srq->pi, ci, pi);
	/* and so does every WQE a receive in progress is in */
	for (i = 0; i < e->cfg.max_qp; i++) {
		const struct sfab_engine_qp *qp = &e->qp[i];

		if (qp->valid && qp->use_srq && qp->srqn == srqn &&
		    qp->rc.rwqe_taken && (uint16_t)(qp->rc.srq_idx - ci) >= n)
			return rsrq_refuse(e, BAD_PARAM,
					   "SRQ %u: QP %u is receiving into WQE %u, not in [%u, %u)",
					   srqn, i, qp->rc.srq_idx, ci, pi);
	}
	/* the QP table walked, the WQEs read and written: the work budget */
	e->work_bytes += e->cfg.max_qp * 8 + ((uint32_t)n * 2 << ring.log_stride);
	for (i = 0; i < n; i++) {
		idx = ci + i;
		if (sfab_qp_ring_entry(e, &srq->ring, idx, &from) ||
		    sfab_engine_dma_read(e, from, wqe, 1U << ring.log_stride) ||
		    sfab_qp_ring_entry(e, &ring, idx, &to) ||
		    sfab_engine_dma_write(e, to, wqe, 1U << ring.log_stride))
			return rsrq_refuse(e, SFAB_AQ_STS_DMA_ERROR,
					   "SRQ %u: WQE %u not copied", srqn, idx);
	}
	srq->ring = ring;
	srq->dbrec = dbrec;
	srq->pi = pi;
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_destroy_srq(struct sfab_engine *e,
			       const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_destroy_srq *q = &c->u.destroy_srq;
	struct sfab_engine_srq *srq = sfab_qp_srq_get(e, sfab_le32_to_cpu(q->srqn));

	uint32_t srqn = sfab_le32_to_cpu(q->srqn), i;

	if (!srq || q->reserved || !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	if (srq->users)
		return SFAB_AQ_STS_BAD_STATE;
	if (srq->xrc) {
		/* targets in a message into it lose its WQE (sfab_queue.h) */
		for (i = 0; i < e->cfg.max_qp; i++) {
			struct sfab_engine_qp *qp = &e->qp[i];

			if (qp->valid && qp->type == SFAB_QPT_XRC_TGT &&
			    qp->srqn == srqn) {
				qp->rc.rwqe_taken = false;
				qp->srqn = UINT32_MAX;
				qp->recv_cqn = UINT32_MAX;
				qp->pdn = UINT32_MAX;
			}
		}
		e->work_bytes += e->cfg.max_qp * 8;
		e->cq[srq->cqn].users--;
	}
	memset(srq, 0, sizeof(*srq));
	e->num_srq--;
	return SFAB_AQ_STS_OK;
}

/*
 * The next receive WQE of a QP (its RQ or its SRQ) into @wqe (the ring's
 * stride, at most SFAB_WQE_MAX_SIZE bytes), not consumed: 1 when there is
 * none, -1 when it cannot be read.
 */
int sfab_qp_rwqe_peek(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      uint8_t *wqe, uint16_t *idx)
{
	const struct sfab_engine_qring *r;
	uint64_t addr;
	uint16_t at;

	if (qp->use_srq) {
		struct sfab_engine_srq *srq = sfab_qp_srq_get(e, qp->srqn);

		if (!srq || srq->err)
			return 1;
		/* empty by the doorbell: the record may say otherwise */
		if (srq->ci == srq->pi &&
		    (!srq_dbrec_refresh(e, qp->srqn) || srq->ci == srq->pi))
			return 1;
		r = &srq->ring;
		at = srq->ci;
	} else {
		if (qp->rq_ci == qp->rq_pi &&
		    (!qp->rq_dbrec || !rq_dbrec_refresh(e, qp) ||
		     qp->rq_ci == qp->rq_pi))
			return 1;
		r = &qp->rq;
		at = qp->rq_ci;
	}
	if (sfab_qp_ring_entry(e, r, at, &addr) ||
	    sfab_engine_dma_read(e, addr, wqe, 1U << r->log_stride)) {
		sfab_engine_guest_error(e, SFAB_GE_RECV_WQE,
					"QP %u: %s WQE %u unreadable (ring DMA)",
					sfab_qp_qpn(e, qp),
					qp->use_srq ? "SRQ" : "RQ", at);
		if (qp->use_srq) {
			struct sfab_engine_srq *srq = &e->srq[qp->srqn];

			srq->err = true;
			sfab_engine_aenq_event(e, SFAB_AENQ_SRQ_EVENT, qp->srqn,
					       SFAB_SRQ_EV_ERR);
		}
		return -1;
	}
	*idx = at;
	return 0;
}

/* consume the WQE sfab_qp_rwqe_peek() returned (the SRQ's limit event) */
void sfab_qp_rwqe_consume(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	struct sfab_engine_srq *srq;

	if (!qp->use_srq) {
		qp->rq_ci++;
		return;
	}
	srq = sfab_qp_srq_get(e, qp->srqn);
	if (!srq || srq->ci == srq->pi)
		return;
	srq->ci++;
	if (srq->limit && (uint16_t)(srq->pi - srq->ci) < srq->limit &&
	    srq_dbrec_refresh(e, qp->srqn) &&
	    (uint16_t)(srq->pi - srq->ci) < srq->limit) {
		srq->limit = 0;
		sfab_engine_aenq_event(e, SFAB_AENQ_SRQ_EVENT, qp->srqn,
				       SFAB_SRQ_EV_LIMIT);
	}
}

/* a receive WQE of a ring (RQ or SRQ) at @idx, read again; false on DMA */
bool sfab_qp_rwqe_read(struct sfab_engine *e, struct sfab_engine_qp *qp,
		       uint16_t idx, uint8_t *wqe)
{
	const struct sfab_engine_qring *r = &qp->rq;
	uint64_t addr;

	if (qp->use_srq) {
		struct sfab_engine_srq *srq = sfab_qp_srq_get(e, qp->srqn);

		if (!srq)
			return false;
		r = &srq->ring;
	}
	return !sfab_qp_ring_entry(e, r, idx, &addr) &&
	       !sfab_engine_dma_read(e, addr, wqe, 1U << r->log_stride);
}

/* the SGE list of a receive WQE (read with the ring's stride); false if bad */
bool sfab_qp_rwqe_sges(struct sfab_engine *e, struct sfab_engine_qp *qp,
		       const uint8_t *wqe, struct sfab_sge *sges,
		       unsigned int *n, uint64_t *room, uint64_t *wr_id)
{
	struct sfab_engine_srq *srq = qp->use_srq ? sfab_qp_srq_get(e, qp->srqn) : NULL;
	uint32_t stride = 1U << (srq ? srq->ring.log_stride : qp->rq.log_stride);
	struct sfab_rwqe_ctrl rc;
	unsigned int i;

	memcpy(&rc, wqe, sizeof(rc));
	*wr_id = sfab_le64_to_cpu(rc.wr_id);
	if (rc.num_sge > prof(e->profile.max_sge, 0) ||
	    sizeof(rc) + rc.num_sge * sizeof(struct sfab_sge) > stride) {
		sfab_engine_guest_error(e, SFAB_GE_RECV_WQE,
					"QP %u: receive WQE wr_id 0x%llx: num_sge %u (stride %u)",
					sfab_qp_qpn(e, qp),
					(unsigned long long)*wr_id, rc.num_sge,
					stride);
		return false;
	}
	memcpy(sges, wqe + sizeof(rc), rc.num_sge * sizeof(struct sfab_sge));
	*n = rc.num_sge;
	*room = 0;
	for (i = 0; i < rc.num_sge; i++)
		*room += sfab_le32_to_cpu(sges[i].length);
	return true;
}

uint8_t sfab_engine_qp_cmd(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			   uint32_t *result0)
{
	if (!hca_up(e))
		return SFAB_AQ_STS_BAD_STATE;
	switch (c->opcode) {
	case SFAB_AQ_CREATE_CQ:
		return cmd_create_cq(e, c, result0);
	case SFAB_AQ_DESTROY_CQ:
		return cmd_destroy_cq(e, c);
	case SFAB_AQ_RESIZE_CQ:
		return cmd_resize_cq(e, c);
	case SFAB_AQ_CREATE_QP:
		return cmd_create_qp(e, c, result0);
	case SFAB_AQ_MODIFY_QP:
		return cmd_modify_qp(e, c);
	case SFAB_AQ_QUERY_QP:
		return cmd_query_qp(e, c);
	case SFAB_AQ_DESTROY_QP:
		return cmd_destroy_qp(e, c);
	case SFAB_AQ_CREATE_MR:
	case SFAB_AQ_DESTROY_MR:
	case SFAB_AQ_UPDATE_MR:
		return sfab_engine_mr_cmd(e, c, result0);
	case SFAB_AQ_CREATE_SRQ:
		return cmd_create_srq(e, c, result0);
	case SFAB_AQ_MODIFY_SRQ:
		return cmd_modify_srq(e, c);
	case SFAB_AQ_RESIZE_SRQ:
		return cmd_resize_srq(e, c);
	case SFAB_AQ_DESTROY_SRQ:
		return cmd_destroy_srq(e, c);
	case SFAB_AQ_SET_QP_DBREC:
		return cmd_set_qp_dbrec(e, c);
	case SFAB_AQ_ATTACH_MCAST:
	case SFAB_AQ_DETACH_MCAST:
		return cmd_mcast(e, c);
	default:
		return SFAB_AQ_STS_BAD_OPCODE;
	}
}

void sfab_engine_qp_teardown(struct sfab_engine *e)
{
	uint32_t i;

	for (i = 0; i < e->cfg.max_qp; i++)
		if (e->qp[i].valid)
			qp_destroy(e, &e->qp[i]);
	for (i = 0; i < e->cfg.max_cq; i++)
		if (e->cq[i].valid) {
			memset(&e->cq[i], 0, sizeof(e->cq[i]));
			sfab_engine_trace(e, SFAB_TRACE_CQ_DESTROY, i, 0);
		}
	e->num_cq = 0;
	memset(e->srq, 0, e->cfg.max_srq * sizeof(*e->srq));
	e->num_srq = 0;
	memset(e->mcg, 0, sizeof(e->mcg));
	e->sq_blocked = false;
	e->rc_timer_at = 0;
	sfab_engine_mr_teardown(e);
}

bool sfab_engine_eq_busy(const struct sfab_engine *e, uint32_t eqn)
{
	uint32_t i;

	for (i = 0; i < e->cfg.max_cq; i++)
		if (e->cq[i].valid && e->cq[i].eqn == eqn)
			return true;
	return false;
}

/* -------------------------------------------------------------------- */
/* doorbells */

static void db_ignore(struct sfab_engine *e, enum sfab_guest_err site,
		      const char *what, uint32_t id, unsigned int page)
{
	e->stats.db_ignored++;
	sfab_engine_guest_error(e, site, "%s doorbell for %u on page %u ignored",
				what, id, page);
}

void sfab_engine_qp_db(struct sfab_engine *e, uint64_t off, uint64_t val,
		       unsigned int size)
{
	unsigned int page = off >> SFAB_DB_PAGE_SHIFT;
	unsigned int reg = off & (SFAB_DB_PAGE_SIZE - 1);
	struct sfab_db db;
	bool well_formed = sfab_db_parse(val, reg == SFAB_DB_CQ, &db);
	uint32_t id = db.num;
	uint16_t idx = db.idx;
	struct sfab_engine_qp *qp;
	struct sfab_engine_cq *cq;
	struct sfab_engine_eq *eq;
	uint32_t depth;
	uint8_t arm;

	if (size != 8 || !well_formed || !hca_up(e)) {
		db_ignore(e, SFAB_GE_DB_ACCESS, "malformed", id, page);
		return;
	}
	switch (reg) {
	case SFAB_DB_SQ:
	case SFAB_DB_RQ: {
		bool sq = reg == SFAB_DB_SQ;
		uint16_t ci;

		qp = qp_get(e, id);
		/* an XRC target has no rings, an initiator no RQ */
		if (!qp || qp->db_page != page || (!sq && qp->use_srq) ||
		    qp->type == SFAB_QPT_XRC_TGT ||
		    (!sq && qp->type == SFAB_QPT_XRC_INI)) {
			db_ignore(e, SFAB_GE_DB_OBJECT, sq ? "SQ" : "RQ", id,
				  page);
			return;
		}
		if (qp->state == SFAB_QPS_RESET) {
			db_ignore(e, SFAB_GE_DB_QP_STATE,
				  sq ? "SQ (QP in RESET)" : "RQ (QP in RESET)",
				  id, page);
			return;
		}
		depth = 1U << (sq ? qp->sq.log_depth : qp->rq.log_depth);
		ci = sq ? qp->sq_ci : qp->rq_ci;
		/*
		 * an RQ with a record: the device may have read a newer index
		 * there; a doorbell behind it is stale, not wrong
		 */
		if (!sq && qp->rq_dbrec && idx != qp->rq_pi &&
		    sfab_ring_used(qp->rq_pi, idx) <= depth)
			idx = qp->rq_pi;
		/*
		 * it may move forward, at most a ring ahead of the device; an
		 * index that does not is the QP owner's error (its own page):
		 * the QP goes to Error (its work flushed) with a FATAL event,
		 * the process learns it, and nothing of the ring is read
		 */
		if ((uint16_t)(idx - ci) > depth ||
		    (uint16_t)(idx - ci) < (uint16_t)((sq ? qp->sq_pi : qp->rq_pi) - ci)) {
			db_ignore(e, SFAB_GE_DB_INDEX,
				  sq ? "SQ index" : "RQ index", id, page);
			if (qp->state != SFAB_QPS_ERR) {
				qp_error(e, qp);
				sfab_qp_event(e, qp, SFAB_QP_EV_FATAL);
			}
			return;
		}
		if (sq)
			qp->sq_pi = idx;
		else
			qp->rq_pi = idx;
		if (qp->state == SFAB_QPS_ERR)
			qp_flush(e, qp);
		else if (sq && qp->state == SFAB_QPS_RTS && qp->sq_pi != qp->sq_ci)
			sfab_qp_sched(e, qp, true);
		return;
	}
	case SFAB_DB_CQ:
		cq = cq_get(e, id);
		if (!cq || cq->db_page != page) {
			db_ignore(e, SFAB_GE_DB_OBJECT, "CQ", id, page);
			return;
		}
		arm = db.arm;
		depth = 1U << cq->ring.log_depth;
		/*
		 * a CQ with a record: the device may have read a newer index
		 * there; a doorbell index behind it is stale, not wrong
		 */
		if (cq->dbrec && idx != cq->ci &&
		    sfab_ring_used(cq->ci, idx) <= depth)
			idx = cq->ci;
		/* the host consumes only what the device produced */
		if ((uint16_t)(cq->pi - idx) > depth ||
		    (uint16_t)(idx - cq->ci) > (uint16_t)(cq->pi - cq->ci) ||
		    arm > SFAB_DB_ARM_SOLICITED) {
			db_ignore(e, SFAB_GE_DB_INDEX, "CQ index", id, page);
			return;
		}
		cq->ci = idx;
		if (arm != SFAB_DB_ARM_NONE) {
			cq->arm = arm;
			/* completions the host has not seen yet: signal now */
			if (arm == SFAB_DB_ARM_NEXT && cq->pi != cq->ci)
				cq_event(e, id);
		}
		return;
	case SFAB_DB_SRQ: {
		struct sfab_engine_srq *srq = sfab_qp_srq_get(e, id);

		if (!srq || srq->db_page != page || srq->err) {
			db_ignore(e, SFAB_GE_DB_OBJECT, "SRQ", id, page);
			return;
		}
		depth = 1U << srq->ring.log_depth;
		/* with a record, an index behind the device's is stale */
		if (srq->dbrec && idx != srq->pi &&
		    sfab_ring_used(srq->pi, idx) <= depth)
			return;
		if ((uint16_t)(idx - srq->ci) > depth ||
		    (uint16_t)(idx - srq->ci) < (uint16_t)(srq->pi - srq->ci)) {
			db_ignore(e, SFAB_GE_DB_INDEX, "SRQ index", id, page);
			return;
		}
		srq->pi = idx;
		return;
	}
	case SFAB_DB_EQ:
		if (page >= SFAB_DB_KERNEL_PAGES || id >= SFAB_ENGINE_MAX_EQ ||
		    !e->eq[id].valid) {
			db_ignore(e, SFAB_GE_DB_OBJECT, "EQ", id, page);
			return;
		}
		eq = &e->eq[id];
		if ((uint16_t)(idx - eq->cons) > (uint16_t)(eq->prod - eq->cons)) {
			db_ignore(e, SFAB_GE_DB_INDEX, "EQ index", id, page);
			return;
		}
		eq->cons = idx;
		return;
	default:
		db_ignore(e, SFAB_GE_DB_OBJECT, "unassigned", id, page);
		return;
	}
}

/* -------------------------------------------------------------------- */
/* sends */

/*
 * Local memory access for a WQE: @lkey names an MR of the QP's PD (which
 * must allow local write when the device writes), or on a privileged QP
 * the local DMA lkey (bus addresses).  The CQE status.
 */
uint8_t sfab_qp_local_dma(struct sfab_engine *e, struct sfab_engine_qp *qp,
			  uint32_t lkey, uint64_t addr, void *buf, size_t len,
			  bool write)
{
	struct sfab_engine_mr *mr;
	enum sfab_mr_err err;

	if (!len)
		return SFAB_CQE_STS_SUCCESS;
	if (lkey == SFAB_ENGINE_LOCAL_DMA_LKEY) {
		if (!qp->priv)
			return SFAB_CQE_STS_LOC_PROT_ERR;
		if (write ? sfab_engine_dma_write(e, addr, buf, len) :
			    sfab_engine_dma_read(e, addr, buf, len))
			return SFAB_CQE_STS_LOC_PROT_ERR;
		return SFAB_CQE_STS_SUCCESS;
	}
	mr = sfab_engine_mr_find(e, lkey, qp->pdn, addr, len,
				 write ? SFAB_ACCESS_LOCAL_WRITE : 0, &err);
	if (!mr || sfab_engine_mr_dma(e, mr, addr, buf, len, write))
		return SFAB_CQE_STS_LOC_PROT_ERR;
	return SFAB_CQE_STS_SUCCESS;
}

/*
 * Gather (read) or scatter (write) @len bytes at byte offset @at of an
 * SGE list; the CQE status.  The caller checked the list's total length.
 */
uint8_t sfab_qp_sge_dma(struct sfab_engine *e, struct sfab_engine_qp *qp,
			const struct sfab_sge *sges, unsigned int n, size_t at,
			void *buf, size_t len, bool write)
{
	uint8_t *data = buf;
	unsigned int i;
	uint8_t st;

	for (i = 0; i < n && len; i++) {
		uint32_t l = sfab_le32_to_cpu(sges[i].length);
		size_t chunk;

		if (at >= l) {
			at -= l;
			continue;
		}
		chunk = l - at < len ? l - at : len;
		st = sfab_qp_local_dma(e, qp, sfab_le32_to_cpu(sges[i].lkey),
				       sfab_le64_to_cpu(sges[i].addr) + at,
				       data, chunk, write);
		if (st)
			return st;
		data += chunk;
		len -= chunk;
		at = 0;
	}
	return len ? SFAB_CQE_STS_LOC_LEN_ERR : SFAB_CQE_STS_SUCCESS;
}

/*
 * Gather a send WQE's data into @buf (at most @max bytes); the CQE status.
 */
static uint8_t gather(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      const uint8_t *wqe, size_t stride, size_t hdrs,
		      uint8_t *buf, size_t max, size_t *len)
{
	struct sfab_wqe_ctrl ctrl;
	struct sfab_wqe_inline inl;
	struct sfab_sge sge;
	size_t total = 0;
	unsigned int i;

	memcpy(&ctrl, wqe, sizeof(ctrl));
	if (ctrl.flags & SFAB_WQE_INLINE) {
		uint32_t n;

		memcpy(&inl, wqe + hdrs, sizeof(inl));
		n = sfab_le32_to_cpu(inl.byte_count);
		if (ctrl.num_sge || n > prof(e->profile.max_inline, 0) ||
		    hdrs + sizeof(inl) + n > stride || n > max)
			return SFAB_CQE_STS_LOC_LEN_ERR;
		memcpy(buf, wqe + hdrs + sizeof(inl), n);
		*len = n;
		return SFAB_CQE_STS_SUCCESS;
	}
	if (ctrl.num_sge > prof(e->profile.max_sge, 0) ||
	    hdrs + ctrl.num_sge * sizeof(sge) > stride)
		return SFAB_CQE_STS_LOC_LEN_ERR;
	for (i = 0; i < ctrl.num_sge; i++) {
		uint32_t l;

		memcpy(&sge, wqe + hdrs + i * sizeof(sge), sizeof(sge));
		l = sfab_le32_to_cpu(sge.length);
		if (l > max - total)
			return SFAB_CQE_STS_LOC_LEN_ERR;
		if (!l)
			continue;
		if (sfab_qp_local_dma(e, qp, sfab_le32_to_cpu(sge.lkey),
				      sfab_le64_to_cpu(sge.addr), buf + total,
				      l, false))
			return SFAB_CQE_STS_LOC_PROT_ERR;
		total += l;
	}
	*len = total;
	return SFAB_CQE_STS_SUCCESS;
}

/* the P_Key a UD-like QP sends with */
static uint16_t pkey_at(const struct sfab_engine *e, uint16_t idx)
{
	return idx < SFAB_PORT_PKEY_TBL_LEN ? e->port.pkeys[idx] : 0;
}

/*
 * One send WQE of an RTS QP, or one WQE a QP in Error flushes.  Return
 * false when the QP has to stop: its ring is empty, it left RTS, or the
 * port has no room yet (sq_blocked).
 */
static bool sq_step(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	uint8_t payload[SFAB_PKT_UD_MAX_PAYLOAD];
	uint8_t frame[SFAB_WIRE_MAX_PKT_LEN];
	uint32_t stride = 1U << qp->sq.log_stride;
	uint8_t wqe[SFAB_WQE_MAX_SIZE];
	struct sfab_wqe_ctrl ctrl;
	struct sfab_wqe_ud ud;
	struct sfab_wqe_grh grh;
	struct sfab_pkt_ud u;
	struct sfab_pkt_ud_ext x;
	size_t hdrs = SFAB_UD_WQE_HDR_LEN;
	enum sfab_engine_route route = SFAB_ROUTE_DROP;
	uint8_t status = SFAB_CQE_STS_SUCCESS;
	bool bad_op = false;
	uint64_t addr;
	size_t len = 0, flen = 0;
	uint32_t qkey;
	uint16_t pkey_index, idx;
	bool local_dr = false;
	unsigned int vl;

	if (qp->state == SFAB_QPS_ERR)
		return flush_step(e, qp);
	if (sfab_qp_connected(qp))
		return sfab_rc_step(e, qp);
	if (qp->state != SFAB_QPS_RTS || qp->sq_ci == qp->sq_pi) {
		sfab_qp_sched(e, qp, false);
		return false;
	}
	memset(&ctrl, 0, sizeof(ctrl));
	if (sfab_qp_ring_entry(e, &qp->sq, qp->sq_ci, &addr) ||
	    sfab_engine_dma_read(e, addr, wqe, stride)) {
		status = SFAB_CQE_STS_LOC_PROT_ERR;
		goto done;
	}
	memcpy(&ctrl, wqe, sizeof(ctrl));
	memcpy(&ud, wqe + sizeof(ctrl), sizeof(ud));
	if ((ctrl.opcode != SFAB_WQE_SEND && ctrl.opcode != SFAB_WQE_SEND_IMM) ||
	    (ctrl.opcode == SFAB_WQE_SEND_IMM && qp->type != SFAB_QPT_UD)) {
		/* UD datagrams: SEND only; MADs carry no immediate */
		bad_op = true;
		sfab_engine_guest_error(e, SFAB_GE_WQE_OPCODE,
					"QP %u type %u: send WQE %u opcode 0x%02x",
					sfab_qp_qpn(e, qp), qp->type, qp->sq_ci,
					ctrl.opcode);
		status = SFAB_CQE_STS_LOC_QP_OP_ERR;
		goto done;
	}
	memset(&x, 0, sizeof(x));
	x.se = ctrl.flags & SFAB_WQE_SOLICITED;
	x.has_imm = ctrl.opcode == SFAB_WQE_SEND_IMM;
	x.imm = sfab_be32_to_cpu(ctrl.imm_data);
	if (ctrl.flags & SFAB_WQE_GRH) {
		/* UD and GSI: a global address; SMPs are never global */
		hdrs += sizeof(grh);
		if (qp->type == SFAB_QPT_SMI || hdrs > stride) {
			status = SFAB_CQE_STS_LOC_QP_OP_ERR;
			goto done;
		}
		memcpy(&grh, wqe + SFAB_UD_WQE_HDR_LEN, sizeof(grh));
		if (!grh_av_ok(&grh)) {
			status = SFAB_CQE_STS_LOC_QP_OP_ERR;
			goto done;
		}
		x.has_grh = true;
		x.grh.tclass = grh.traffic_class;
		x.grh.flow_label = sfab_le32_to_cpu(grh.flow_label);
		x.grh.hop_limit = grh.hop_limit;
		sfab_qp_port_gid(e, x.grh.sgid);
		memcpy(x.grh.dgid, grh.dgid, sizeof(x.grh.dgid));
	}

	/* where it goes, before anything is consumed */
	memset(&u, 0, sizeof(u));
	u.dlid = sfab_le16_to_cpu(ud.dlid);
	u.sl = ud.sl & 15;
	if (qp->type == SFAB_QPT_SMI) {
		vl = SFAB_VL15;
	} else {
		vl = sfab_engine_port_sl2vl(e, u.sl);
		if (vl == SFAB_VL15) {
			/* the SL has no data VL on this port: IBA drops it */
			e->stats.send_dropped++;
			goto done;
		}
	}
	u.vl = vl;
	route = sfab_engine_port_route(e, vl, u.dlid);
	if (route == SFAB_ROUTE_WAIT) {
		e->sq_blocked = true;
		return false;
	}

	status = gather(e, qp, wqe, stride, hdrs, payload,
			sfab_engine_port_mtu(e) < sizeof(payload) ?
			sfab_engine_port_mtu(e) : sizeof(payload), &len);
	if (status)
		goto done;
	pkey_index = qp->type == SFAB_QPT_GSI ? sfab_le16_to_cpu(ud.pkey_index) :
						qp->pkey_index;
	if (pkey_index >= SFAB_PORT_PKEY_TBL_LEN) {
		status = SFAB_CQE_STS_LOC_QP_OP_ERR;
		goto done;
	}
	qkey = sfab_le32_to_cpu(ud.qkey);
	if (qkey & SFAB_QKEY_CONTROLLED)
		qkey = qp->qkey;
	u.pkey = pkey_at(e, pkey_index);
	u.dqpn = sfab_le32_to_cpu(ud.dest_qpn) & SFAB_BTH_QPN_MASK;
	u.sqpn = sfab_qp_qpn(e, qp);
	u.qkey = qp->type == SFAB_QPT_SMI ? 0 : qkey;
	u.psn = qp->sq_psn;
	qp->sq_psn = (qp->sq_psn + 1) & SFAB_BTH_PSN_MASK;
	if (u.dlid == SFAB_LID_PERMISSIVE) {
		/* directed route: both LIDs permissive (IBA 14.2.2) */
		u.slid = SFAB_LID_PERMISSIVE;
		/* no hops: for this node's own SMA */
		local_dr = qp->type == SFAB_QPT_SMI &&
			   len >= sizeof(struct sfab_wire_smp) &&
			   payload[offsetof(struct sfab_wire_smp, mgmt_class)] ==
			   SFAB_MGMT_CLASS_SUBN_DR &&
			   payload[offsetof(struct sfab_wire_smp, hop_cnt)] == 0;
	} else {
		u.slid = e->port.lid |
			 (ud.src_path_bits & ((1U << e->port.lmc) - 1));
	}
	flen = sfab_link_pkt_build_ud_ext(frame, &u, &x, payload, len);
	if (!flen) {
		status = SFAB_CQE_STS_LOC_LEN_ERR;
		goto done;
	}

done:
	if (status && !bad_op)
		sfab_engine_guest_error(e, SFAB_GE_WQE,
					"QP %u: send WQE %u opcode 0x%02x: CQE status %u",
					sfab_qp_qpn(e, qp), qp->sq_ci,
					ctrl.opcode, status);
	idx = qp->sq_ci++;
	if (!status) {
		if (flen && (route != SFAB_ROUTE_DROP || local_dr))
			sfab_engine_port_send(e, frame, flen, local_dr);
		else if (flen)
			e->stats.send_dropped++;
		/* multicast: this device's members too (the switch never
		 * sends a packet back out of the port it came in on) */
		if (flen && sfab_lid_is_mcast(u.dlid) &&
		    sfab_link_pkt_parse_ud_ext(frame, flen, &u, &x)) {
			e->stats.loopback++;
			sfab_engine_mcast_rx(e, &u, &x);
		}
		e->stats.sends++;
	} else {
		e->stats.send_errors++;
	}
	/* the send may have looped back and changed this QP: it is still ours */
	if (status || (ctrl.flags & SFAB_WQE_SIGNALED))
		complete(e, qp, true, idx, sfab_le64_to_cpu(ctrl.wr_id),
			 status, status ? 0 : (uint32_t)len);
	if (status) {
		qp_error(e, qp);
		return false;
	}
	return true;
}

void sfab_engine_qp_run(struct sfab_engine *e)
{
	unsigned int budget = SFAB_ENGINE_SEND_BUDGET, n;
	uint32_t qpn;

	e->sq_blocked = false;
	if (!hca_up(e))
		return;
	if (e->rc_timer_at && sfab_engine_now(e) >= e->rc_timer_at)
		sfab_engine_qp_timer(e);
	if (!e->sq_sched)
		return;
	/*
	 * round robin: each QP in turn, a few WQEs each; while the port has
	 * no room (sq_blocked) only flushes go on
	 */
	for (n = e->runq_len; n && budget && (!e->sq_blocked || e->qp_flushing);
	     n--) {
		struct sfab_engine_qp *qp;
		unsigned int quota = SFAB_ENGINE_QP_QUOTA;

		qpn = runq_pop(e);
		qp = &e->qp[qpn];
		while (qp->valid && qp->sched && budget && quota &&
		       (!e->sq_blocked || qp->flushing)) {
			if (!sq_step(e, qp))
				break;
			budget--;
			quota--;
		}
		/* still has work (budget, quota or the port): back in line */
		if (qp->valid && qp->sched)
			runq_push(e, qpn);
	}
}

bool sfab_engine_qp_pending(const struct sfab_engine *e)
{
	return e->sq_sched && (!e->sq_blocked || e->qp_flushing) && hca_up(e);
}

/* -------------------------------------------------------------------- */
/* receives */

static void qp_rx(struct sfab_engine *e, struct sfab_engine_qp *qp,
		  uint32_t qpn, const struct sfab_pkt_ud *u,
		  const struct sfab_pkt_ud_ext *x);

void sfab_engine_qp_rx(struct sfab_engine *e, const struct sfab_pkt_ud *u,
		       const struct sfab_pkt_ud_ext *x)
{
	struct sfab_engine_qp *qp = qp_get(e, u->dqpn);

	if (!qp || qp->state < SFAB_QPS_RTR || qp->state == SFAB_QPS_ERR ||
	    sfab_qp_connected(qp)) {
		if (u->dqpn <= SFAB_QP1)
			e->stats.host_mads_dropped++;
		else
			e->stats.rx_no_qp++;
		return;
	}
	qp_rx(e, qp, u->dqpn, u, x);
}

void sfab_engine_mcast_rx(struct sfab_engine *e, const struct sfab_pkt_ud *u,
			  const struct sfab_pkt_ud_ext *x)
{
	uint32_t qpns[SFAB_ENGINE_MCG_QPS];
	struct sfab_engine_qp *qp;
	unsigned int i, j, n;
	bool group = false;

	if (u->dqpn != SFAB_MCAST_QPN ||
	    (x->has_grh && !sfab_gid_is_mcast(x->grh.dgid))) {
		e->stats.rx_mcast_dropped++;
		return;
	}
	for (i = 0; i < SFAB_ENGINE_MAX_MCG; i++) {
		const struct sfab_engine_mcg *g = &e->mcg[i];

		/* without a GRH the MLID names the group, with one the MGID too */
		if (!mcg_match(g, u->dlid, x->has_grh ? x->grh.dgid : NULL))
			continue;
		group = true;
		/* a delivery changes no group, but take the list first */
		n = g->nqp;
		memcpy(qpns, g->qpn, n * sizeof(qpns[0]));
		for (j = 0; j < n; j++) {
			qp = qp_get(e, qpns[j]);
			if (!qp || qp->state < SFAB_QPS_RTR ||
			    qp->state == SFAB_QPS_ERR) {
				e->stats.rx_no_qp++;
				continue;
			}
			e->stats.rx_mcast++;
			qp_rx(e, qp, qpns[j], u, x);
		}
	}
	if (!group)
		e->stats.rx_mcast_dropped++;
}

static void qp_rx(struct sfab_engine *e, struct sfab_engine_qp *qp,
		  uint32_t qpn, const struct sfab_pkt_ud *u,
		  const struct sfab_pkt_ud_ext *x)
{
	struct sfab_engine_port *p = &e->port;
	uint8_t wqe[SFAB_WQE_MAX_SIZE];
	struct sfab_sge sges[SFAB_WQE_MAX_SIZE / sizeof(struct sfab_sge)];
	uint8_t status = SFAB_CQE_STS_SUCCESS;
	uint16_t pkey_index = 0, widx = 0;
	uint64_t room = 0, wr_id = 0;
	bool solicited = x->se;
	struct sfab_cqe cqe;
	unsigned int nsge = 0;
	int got;

	/* keys: QP0 takes any; QP1 any P_Key of the table; UD its own */
	if (qp->type == SFAB_QPT_GSI) {
		int k = sfab_mad_pkey_find(p->pkeys, SFAB_PORT_PKEY_TBL_LEN,
					   u->pkey);

		if (k < 0) {
			sfab_engine_key_violation(e, SFAB_TRAP_BAD_PKEY, u->slid,
						  u->dlid, u->pkey, u->sl,
						  u->sqpn, u->dqpn);
			return;
		}
		pkey_index = k;
	} else if (qp->type == SFAB_QPT_UD) {
		if (!sfab_mad_pkey_match(pkey_at(e, qp->pkey_index), u->pkey)) {
			sfab_engine_key_violation(e, SFAB_TRAP_BAD_PKEY, u->slid,
						  u->dlid, u->pkey, u->sl,
						  u->sqpn, u->dqpn);
			return;
		}
		if (u->qkey != qp->qkey) {
			sfab_engine_key_violation(e, SFAB_TRAP_BAD_QKEY, u->slid,
						  u->dlid, u->qkey, u->sl,
						  u->sqpn, u->dqpn);
			return;
		}
		pkey_index = qp->pkey_index;
	}
	got = sfab_qp_rwqe_peek(e, qp, wqe, &widx);
	if (got > 0) {
		e->stats.rx_no_wqe++;	/* UD: no receive posted, dropped */
		return;
	}
	if (got < 0) {
		status = SFAB_CQE_STS_LOC_PROT_ERR;
		goto done;
	}
	if (!sfab_qp_rwqe_sges(e, qp, wqe, sges, &nsge, &room, &wr_id)) {
		status = SFAB_CQE_STS_LOC_QP_OP_ERR;
		goto done;
	}
	if (room < SFAB_UD_GRH_LEN + u->len) {
		status = SFAB_CQE_STS_LOC_LEN_ERR;
		goto done;
	}
	/* the GRH slot gets the packet's GRH, or stays untouched */
	if (x->has_grh)
		status = sfab_qp_sge_dma(e, qp, sges, nsge, 0,
					 (void *)x->grh.raw, SFAB_UD_GRH_LEN,
					 true);
	if (!status)
		status = sfab_qp_sge_dma(e, qp, sges, nsge, SFAB_UD_GRH_LEN,
					 (void *)u->payload, u->len, true);

done:
	if (got >= 0 || !qp->use_srq)
		sfab_qp_rwqe_consume(e, qp);
	memset(&cqe, 0, sizeof(cqe));
	cqe.wr_id = sfab_cpu_to_le64(wr_id);
	cqe.status = status;
	cqe.qpn_opcode = sfab_cqe_qpn_opcode(qpn, SFAB_CQE_RECV);
	if (!status) {
		cqe.byte_len = sfab_cpu_to_le32(SFAB_UD_GRH_LEN + u->len);
		cqe.src_qp_sl = sfab_cqe_src_qp_sl(u->sqpn, u->sl);
		cqe.slid = sfab_cpu_to_le16(u->slid);
		cqe.pkey_index = sfab_cpu_to_le16(pkey_index);
		/* a multicast DLID has no path bits */
		if (!sfab_lid_is_mcast(u->dlid))
			cqe.dlid_path_bits = u->dlid & ((1U << p->lmc) - 1);
		if (x->has_imm) {
			cqe.flags |= SFAB_CQE_IMM;
			cqe.imm_data = sfab_cpu_to_be32(x->imm);
		}
		if (x->has_grh)
			cqe.flags |= SFAB_CQE_GRH;
		e->stats.recvs++;
	}
	sfab_qp_cq_post(e, qp->recv_cqn, &cqe, solicited);
	if (status)
		qp_error(e, qp);
}
