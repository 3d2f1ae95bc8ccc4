// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sfab userspace provider: the datapath.
 *
 * CQs, QPs and SRQs live in this process's memory: the provider allocates
 * each ring (page aligned), the kernel pins it and hands it to the device
 * as a page list.  Posting writes WQEs into the ring and rings the
 * context's doorbell page; polling reads CQEs by their phase bit.  No
 * system call on the fast path.  Formats: include/sfab/sfab_queue.h.
 *
 * Send slots come free through send CQEs.  With a kernel that reports
 * SFAB_IBV_DEVICE_CAPS_CQE_WQE_INDEX (the device completes send WQEs
 * in order, a send CQE carries its WQE's SQ index, a successful WQE
 * without SFAB_WQE_SIGNALED writes no CQE) only sends posted with
 * IBV_SEND_SIGNALED (or on a sq_sig_all QP) ask for a completion, and a
 * send CQE retires every slot up to its wqe_index: failed and flushed
 * WQEs always complete.  Without it, every send WQE asks the device for
 * a completion, the CQE is how the provider learns that a slot is free,
 * and poll_cq hides the CQEs of unsignaled sends (unless they failed): a
 * CQ then needs room for every outstanding send.
 *
 * Doorbell records (SFAB_IBV_DEVICE_CAPS_DBREC, include/sfab/sfab_ring.h):
 * each ring's buffer holds its record right after the ring.  poll_cq
 * publishes the consumer index there and rings nothing; post_send writes
 * the producer index there and then rings the SQ doorbell (the trigger);
 * post_srq_recv writes it and rings nothing; post_recv writes it and
 * still rings the RQ doorbell, so that receives posted to a QP in Error
 * are flushed at once, as verbs wants.
 */

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "sfab.h"
#include "sfabdv.h"

/* ---- helpers ---------------------------------------------------------------- */

/* log2 of a ring depth for n entries (0: 1), or < 0 beyond max or the contract's */
static int sfab_log_depth(uint32_t n, uint32_t max)
{
	return sfab_queue_log_depth(n ? n : 1,
				    max ? max : 1U << SFAB_RING_MAX_LOG_DEPTH);
}

/* page aligned, zeroed, kept out of fork()ed children */
static void *sfab_ring_alloc(struct sfab_context *ctx, size_t *size)
{
	struct sfab_dev *dev = to_sfab_dev(ctx->ibvctx.context.device);
	void *buf;

	*size = align(*size, dev->pg_sz);
	if (posix_memalign(&buf, dev->pg_sz, *size))
		return NULL;
	memset(buf, 0, *size);
	if (ibv_dontfork_range(buf, *size)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void sfab_ring_buf_free(void *buf, size_t size)
{
	if (!buf)
		return;
	ibv_dofork_range(buf, size);
	free(buf);
}

/* a ring's buffer: the ring, and its doorbell record after it when used */
static size_t sfab_ring_buf_len(struct sfab_context *ctx, int log_depth,
				int log_stride)
{
	return ctx->dbrec ? sfab_dbrec_buf_len(log_depth, log_stride) :
			    (size_t)1 << (log_depth + log_stride);
}

/* the record in a ring's buffer, where sfab_ring_buf_len() left room */
static struct sfab_dbrec *sfab_ring_dbrec(void *ring, int log_depth,
					  int log_stride)
{
	return (struct sfab_dbrec *)((uint8_t *)ring +
				     sfab_dbrec_ring_off(log_depth, log_stride));
}

/*
 * Publish @idx in a record: the CQEs read (CQ) or the WQEs written
 * (SQ, RQ, SRQ) before it, as sfab_ring.h orders.
 */
static inline void sfab_dbrec_publish(struct sfab_dbrec *rec, uint16_t idx,
				      bool consumer)
{
	if (consumer)
		udma_from_device_barrier();	/* CQE loads before the store */
	else
		udma_to_device_barrier();	/* WQE stores before it */
	sfab_dbrec_set(rec, idx);
}

static int sfab_wq_init(struct sfab_context *ctx, struct sfab_wq *wq,
			int log_depth, int log_stride, bool send)
{
	wq->log_depth = log_depth;
	wq->log_stride = log_stride;
	wq->pi = 0;
	wq->ci = 0;
	wq->dbrec = NULL;
	wq->ring_size = sfab_ring_buf_len(ctx, log_depth, log_stride);
	wq->ring = sfab_ring_alloc(ctx, &wq->ring_size);
	if (!wq->ring)
		return ENOMEM;
	wq->unsignaled = NULL;
	if (send && !ctx->cqe_wqe_index) {
		wq->unsignaled = calloc(1U << log_depth, 1);
		if (!wq->unsignaled) {
			sfab_ring_buf_free(wq->ring, wq->ring_size);
			wq->ring = NULL;
			return ENOMEM;
		}
	}
	if (pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(wq->unsignaled);
		sfab_ring_buf_free(wq->ring, wq->ring_size);
		wq->ring = NULL;
		return ENOMEM;
	}
	return 0;
}

static void sfab_wq_destroy(struct sfab_wq *wq)
{
	if (!wq->ring)
		return;
	pthread_spin_destroy(&wq->lock);
	free(wq->unsignaled);
	sfab_ring_buf_free(wq->ring, wq->ring_size);
	wq->ring = NULL;
}

static inline bool sfab_wq_full(const struct sfab_wq *wq)
{
	return !sfab_ring_free(wq->pi, wq->ci, wq->log_depth);
}

static inline void *sfab_wq_slot(struct sfab_wq *wq, uint16_t idx)
{
	return wq->ring + ((size_t)sfab_ring_slot(idx, wq->log_depth) <<
			   wq->log_stride);
}

/*
 * Ring a doorbell in this context's page.  The WQEs or the consumer index
 * must be visible to the device first.  On a write-combining page that is
 * rdma-core's WC idiom: mmio_wc_start() (which orders the memory writes
 * before it, like udma_to_device_barrier()), the write, then
 * mmio_flush_writes() so the doorbell leaves the CPU now.
 */
static inline void sfab_db(struct sfab_context *ctx, unsigned int off,
			   uint32_t num, uint16_t idx, uint8_t arm)
{
	uint64_t val = sfab_db_val(num, idx, arm);

	if (ctx->db_wc) {
		mmio_wc_start();
		mmio_write64_le(ctx->db + off, htole64(val));
		mmio_flush_writes();
	} else {
		udma_to_device_barrier();
		mmio_write64_le(ctx->db + off, htole64(val));
	}
}

/* ---- completion queues -------------------------------------------------------- */

static void sfab_cq_ex_init(struct sfab_cq *cq, uint64_t wc_flags);

/*
 * A CQ whose ring libsfab owns: ibv_create_cq() (ex NULL: the legacy
 * command) or ibv_create_cq_ex() (the extended one, and the
 * ibv_start_poll() API).
 */
static struct sfab_cq *sfab_cq_create(struct ibv_context *context, int cqe,
				      struct ibv_comp_channel *channel,
				      int comp_vector,
				      struct ibv_cq_init_attr_ex *ex)
{
	struct sfab_context *ctx = to_sfab_context(context);
	struct sfab_create_cq_ex_resp respx = {};
	struct sfab_create_cq_resp resp = {};
	struct sfab_create_cq_ex cmdx = {};
	struct sfab_create_cq cmd = {};
	struct sfab_ibv_create_cq drv = {};
	struct sfab_cq *cq;
	uint32_t cqn;
	int log_depth;
	int err;

	if (cqe <= 0) {
		errno = EINVAL;
		return NULL;
	}
	log_depth = sfab_log_depth(cqe, ctx->max_cqe);
	if (log_depth < 0) {
		verbs_err(&ctx->ibvctx, "CQ of %d entries unsupported\n", cqe);
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	cq->log_depth = log_depth;
	cq->ring_size = sfab_ring_buf_len(ctx, log_depth, SFAB_CQE_LOG_STRIDE);
	cq->ring = sfab_ring_alloc(ctx, &cq->ring_size);
	if (!cq->ring) {
		err = ENOMEM;
		goto err_free;
	}
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		err = ENOMEM;
		goto err_free_ring;
	}

	drv.log_depth = log_depth;
	drv.buf_addr = (uintptr_t)cq->ring;
	if (ctx->dbrec) {
		drv.comp_mask |= SFAB_IBV_CREATE_CQ_DBREC;
		drv.dbrec_off = sfab_dbrec_ring_off(log_depth,
						    SFAB_CQE_LOG_STRIDE);
	}
	if (ex) {
		cmdx.drv_payload = drv;
		err = ibv_cmd_create_cq_ex(context, ex, &cq->vcq, &cmdx.ibv_cmd,
					   sizeof(cmdx), &respx.ibv_resp,
					   sizeof(respx), 0);
		cqn = respx.cqn;
		drv.comp_mask = respx.comp_mask;
	} else {
		cmd.drv_payload = drv;
		err = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
					&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
					&resp.ibv_resp, sizeof(resp));
		cqn = resp.cqn;
		drv.comp_mask = resp.comp_mask;
	}
	if (err) {
		verbs_err(&ctx->ibvctx, "Failed to create CQ: %s\n",
			  strerror(err));
		goto err_spin;
	}
	cq->cqn = cqn;
	if (drv.comp_mask & SFAB_IBV_CREATE_CQ_RESP_DBREC)
		cq->dbrec = sfab_ring_dbrec(cq->ring, log_depth,
					    SFAB_CQE_LOG_STRIDE);
	if (ex)
		sfab_cq_ex_init(cq, ex->wc_flags);
	return cq;

err_spin:
	pthread_spin_destroy(&cq->lock);
err_free_ring:
	sfab_ring_buf_free(cq->ring, cq->ring_size);
err_free:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *sfab_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct sfab_cq *cq = sfab_cq_create(context, cqe, channel, comp_vector,
					    NULL);

	return cq ? &cq->vcq.cq : NULL;
}

/* what a CQE carries, for ibv_create_cq_ex(): no clock, no VLAN, no tags */
#define SFAB_CQ_EX_WC_FLAGS IBV_WC_STANDARD_FLAGS

struct ibv_cq_ex *sfab_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct sfab_context *ctx = to_sfab_context(context);
	struct sfab_cq *cq;

	if (attr->comp_mask & ~IBV_CQ_INIT_ATTR_MASK_FLAGS ||
	    (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
	     attr->flags & ~IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		verbs_err(&ctx->ibvctx,
			  "ibv_create_cq_ex: comp_mask %#x flags %#x unsupported\n",
			  attr->comp_mask, attr->flags);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->wc_flags & ~(uint64_t)SFAB_CQ_EX_WC_FLAGS) {
		verbs_err(&ctx->ibvctx,
			  "ibv_create_cq_ex: wc_flags %#llx: sfab fills %#x\n",
			  (unsigned long long)attr->wc_flags,
			  SFAB_CQ_EX_WC_FLAGS);
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* SINGLE_THREADED: taken, the lock is cheap uncontended */
	cq = sfab_cq_create(context, attr->cqe, attr->channel,
			    attr->comp_vector, attr);
	return cq ? &cq->vcq.cq_ex : NULL;
}

int sfab_destroy_cq(struct ibv_cq *ibvcq)
{
	struct sfab_cq *cq = to_sfab_cq(ibvcq);
	int err;

	err = ibv_cmd_destroy_cq(ibvcq);
	if (err)
		return err;
	pthread_spin_destroy(&cq->lock);
	sfab_ring_buf_free(cq->ring, cq->ring_size);
	free(cq);
	return 0;
}

/* the verbs opcode of a CQE sfab_cqe_decode() knows */
static enum ibv_wc_opcode sfab_wc_opcode(const struct sfab_cqe_info *ci)
{
	switch (ci->opcode) {
	case SFAB_CQE_RDMA_WRITE:	return IBV_WC_RDMA_WRITE;
	case SFAB_CQE_RDMA_READ:	return IBV_WC_RDMA_READ;
	case SFAB_CQE_ATOMIC_CS:	return IBV_WC_COMP_SWAP;
	case SFAB_CQE_ATOMIC_FA:	return IBV_WC_FETCH_ADD;
	case SFAB_CQE_LOCAL_INV:	return IBV_WC_LOCAL_INV;
	case SFAB_CQE_BIND_MW:		return IBV_WC_BIND_MW;
	case SFAB_CQE_ATOMIC_WRITE:	return IBV_WC_ATOMIC_WRITE;
	case SFAB_CQE_FLUSH:		return IBV_WC_FLUSH;
	case SFAB_CQE_RECV_RDMA_IMM:	return IBV_WC_RECV_RDMA_WITH_IMM;
	/* unknown ones, and REG_MR (kernel QPs only; verbs has no opcode) */
	default:	return ci->recv ? IBV_WC_RECV : IBV_WC_SEND;
	}
}

/* sfab_cqe_decode() reads it, as the kernel's sfab_cqe_to_wc() does */
static void sfab_cqe_to_wc(const struct sfab_cqe *cqe, struct ibv_wc *wc)
{
	struct sfab_cqe_info ci;

	sfab_cqe_decode(cqe, &ci);
	memset(wc, 0, sizeof(*wc));
	SFAB_WC_FILL(wc, &ci);
	wc->qp_num = ci.qpn;
	wc->opcode = sfab_wc_opcode(&ci);
	if (ci.inv) {
		wc->invalidated_rkey = ci.inv_rkey;
		wc->wc_flags |= IBV_WC_WITH_INV;
	} else if (ci.imm) {
		wc->imm_data = ci.imm_data;
		wc->wc_flags |= IBV_WC_WITH_IMM;
	}
	if (ci.grh)
		wc->wc_flags |= IBV_WC_GRH;
}

static inline struct sfab_cqe *sfab_cq_next(struct sfab_cq *cq, uint16_t idx)
{
	struct sfab_cqe *cqe = &cq->ring[sfab_ring_slot(idx, cq->log_depth)];

	if (!sfab_ring_entry_is_new(*(volatile uint8_t *)&cqe->flags &
				    SFAB_CQE_PHASE, idx, cq->log_depth))
		return NULL;
	/* the rest of the entry only after its phase bit */
	udma_from_device_barrier();
	return cqe;
}

/*
 * ibv_resize_cq(): a new ring; the kernel has the device move the CQEs not
 * yet polled to its start (and the consumer index starts over at 0).
 * Under the CQ lock throughout, so that no poll moves the index the
 * device is told.
 */
int sfab_resize_cq(struct ibv_cq *ibvcq, int cqe)
{
	struct sfab_context *ctx = to_sfab_context(ibvcq->context);
	struct sfab_cq *cq = to_sfab_cq(ibvcq);
	struct sfab_resize_cq_resp resp = {};
	struct sfab_resize_cq cmd = {};
	unsigned int n;
	size_t size;
	void *ring;
	int log_depth;
	int err;

	/* a ring in a dma-buf is its owner's to move */
	if (cq->dv)
		return EOPNOTSUPP;
	if (cqe <= 0)
		return EINVAL;
	log_depth = sfab_log_depth(cqe, ctx->max_cqe);
	if (log_depth < 0)
		return EINVAL;
	size = sfab_ring_buf_len(ctx, log_depth, SFAB_CQE_LOG_STRIDE);
	ring = sfab_ring_alloc(ctx, &size);
	if (!ring)
		return ENOMEM;

	cmd.drv_payload.log_depth = log_depth;
	cmd.drv_payload.buf_addr = (uintptr_t)ring;
	if (ctx->dbrec) {
		cmd.drv_payload.comp_mask |= SFAB_IBV_CREATE_CQ_DBREC;
		cmd.drv_payload.dbrec_off =
			sfab_dbrec_ring_off(log_depth, SFAB_CQE_LOG_STRIDE);
	}

	pthread_spin_lock(&cq->lock);
	/* more outstanding than the new ring holds: the device refuses too */
	for (n = 0; n < (1U << cq->log_depth); n++)
		if (!sfab_cq_next(cq, cq->cc + n))
			break;
	if (n > (1U << log_depth)) {
		err = EINVAL;
		goto out_unlock;
	}
	cmd.drv_payload.ci = cq->cc;
	err = ibv_cmd_resize_cq(ibvcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err)
		goto out_unlock;
	sfab_ring_buf_free(cq->ring, cq->ring_size);
	cq->ring = ring;
	cq->ring_size = size;
	cq->log_depth = log_depth;
	cq->cc = 0;
	cq->dbrec = NULL;
	if (resp.drv_payload.comp_mask & SFAB_IBV_CREATE_CQ_RESP_DBREC)
		cq->dbrec = sfab_ring_dbrec(ring, log_depth,
					    SFAB_CQE_LOG_STRIDE);
	ring = NULL;
out_unlock:
	pthread_spin_unlock(&cq->lock);
	if (ring)
		sfab_ring_buf_free(ring, size);
	return err;
}

/* the XRC SRQ an SFAB_CQE_XRC completion names; NULL if not this process's */
static struct sfab_srq *sfab_cq_xrc_srq(struct sfab_context *ctx,
					const struct sfab_cqe *cqe)
{
	struct sfab_cqe_info ci;

	/* the contract's decoder reads the SRQN (sfab_cqe_decode()) */
	if (!sfab_cqe_decode(cqe, &ci) || !ci.xrc)
		return NULL;
	return ci.srqn < ctx->srq_table_size ? ctx->srq_table[ci.srqn] : NULL;
}

/*
 * the CQ its receives complete on: an XRC send QP has none of its own
 * (recv_cq may be NULL), its send CQ stands for it as in the kernel
 */
static struct sfab_cq *sfab_qp_recv_cq(struct sfab_qp *qp)
{
	struct ibv_qp *ibvqp = &qp->vqp.qp;

	return to_sfab_cq(ibvqp->recv_cq ? ibvqp->recv_cq : ibvqp->send_cq);
}

/*
 * The next WQE of @wq, a queue of @qp, that a lost device left, completed
 * into @wc as a QP in Error flushes it: IBV_WC_WR_FLUSH_ERR and the wr_id
 * the WQE holds, signaled or not.  False when none is left.  Under the
 * CQ lock, which makes poll_cq the writer of @wq->ci.
 */
static bool sfab_wq_flush_one(struct sfab_qp *qp, struct sfab_wq *wq,
			      bool recv, struct ibv_wc *wc)
{
	const uint8_t *wqe;
	uint16_t pi;

	/* the index under the lock its posts hold: their WQEs are written */
	pthread_spin_lock(&wq->lock);
	pi = wq->pi;
	pthread_spin_unlock(&wq->lock);
	if (wq->ci == pi)
		return false;
	wqe = wq->ring + ((size_t)sfab_ring_slot(wq->ci, wq->log_depth) <<
			  wq->log_stride);
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = sfab_wqe_wr_id(wqe, recv);
	wc->status = IBV_WC_WR_FLUSH_ERR;
	wc->opcode = recv ? IBV_WC_RECV : IBV_WC_SEND;
	wc->qp_num = qp->qpn;
	wq->ci++;
	return true;
}

/*
 * The device is gone (sfab_ctx_lost()) and @cq holds nothing it wrote:
 * the next WQE still outstanding on a QP of @cq, flushed into @wc; ENOENT
 * when none is left.  A send and a receive queue of their own are
 * flushed; an SRQ's WQEs are not (IBA flushes no SRQ on a QP's error),
 * XRC receive QPs have no rings and a dma-buf QP's are not the host's.
 * Walks the QP table (max_qp entries) only on a dead device.
 */
static int sfab_cq_flush_lost(struct sfab_context *ctx, struct sfab_cq *cq,
			      struct ibv_wc *wc)
{
	struct sfab_qp *qp;
	uint32_t qpn;

	for (qpn = 0; qpn < ctx->qp_table_size; qpn++) {
		qp = ctx->qp_table[qpn];
		if (!qp || qp->dv || qp->xrc_tgt)
			continue;
		if (to_sfab_cq(qp->vqp.qp.send_cq) == cq &&
		    sfab_wq_flush_one(qp, &qp->sq, false, wc))
			return 0;
		if (!qp->srq && qp->rq.ring && sfab_qp_recv_cq(qp) == cq &&
		    sfab_wq_flush_one(qp, &qp->rq, true, wc))
			return 0;
	}
	return ENOENT;
}

/*
 * The next completion for the caller into wc: 0, or ENOENT when the CQ
 * holds none.  CQEs of destroyed QPs and (without cqe_wqe_index) of
 * unsignaled sends are consumed on the way.  Under the CQ lock.
 */
static int sfab_cq_poll_one(struct sfab_context *ctx, struct sfab_cq *cq,
			    struct ibv_wc *wc)
{
	struct sfab_srq *srq;
	struct sfab_cqe *cqe;
	struct sfab_qp *qp;
	struct sfab_wq *wq;
	uint16_t slot;
	uint32_t qpn;
	bool hide;

	for (;;) {
		cqe = sfab_cq_next(cq, cq->cc);
		/* what a lost device wrote first, then what it left */
		if (!cqe)
			return sfab_ctx_lost(ctx) ?
			       sfab_cq_flush_lost(ctx, cq, wc) : ENOENT;
		cq->cc++;
		if (cqe->flags & SFAB_CQE_XRC) {
			/* the target QP is not this process's: its SRQ is */
			srq = sfab_cq_xrc_srq(ctx, cqe);
			if (!srq)
				continue;
			sfab_cqe_to_wc(cqe, wc);
			pthread_spin_lock(&srq->rq.lock);
			srq->rq.ci++;
			pthread_spin_unlock(&srq->rq.lock);
			return 0;
		}
		qpn = sfab_cqe_qpn(cqe);
		/* a destroyed QP's completions were marked with QPN_MASK */
		qp = qpn < ctx->qp_table_size ? ctx->qp_table[qpn] : NULL;
		if (!qp)
			continue;
		sfab_cqe_to_wc(cqe, wc);
		if (sfab_cqe_is_recv(cqe) && !qp->srq) {
			qp->rq.ci++;
		} else if (sfab_cqe_is_recv(cqe)) {
			/* QPs on other CQs count the SRQ's WQEs too */
			wq = &qp->srq->rq;
			pthread_spin_lock(&wq->lock);
			wq->ci++;
			pthread_spin_unlock(&wq->lock);
		} else if (!qp->sq.unsignaled) {
			/* the slots up to this one's: the others wrote none */
			if (!sfab_sq_retire(&qp->sq.ci, qp->sq.pi,
					    sfab_cqe_wqe_index(cqe)))
				continue;
		} else {
			slot = sfab_ring_slot(qp->sq.ci, qp->sq.log_depth);
			/* decoded: an unknown opcode is never a success */
			hide = wc->status == IBV_WC_SUCCESS &&
			       qp->sq.unsignaled[slot];
			qp->sq.ci++;
			if (hide)
				continue;
		}
		return 0;
	}
}

/* the consumer index to the device, when polling moved it from start */
static void sfab_cq_consumed(struct sfab_context *ctx, struct sfab_cq *cq,
			     uint16_t start)
{
	if (cq->cc == start)
		return;
	/* with a record: no doorbell, no MMIO */
	if (cq->dbrec)
		sfab_dbrec_publish(cq->dbrec, cq->cc, true);
	else
		sfab_db(ctx, SFAB_DB_CQ, cq->cqn, cq->cc, SFAB_DB_ARM_NONE);
}

int sfab_poll_cq(struct ibv_cq *ibvcq, int ne, struct ibv_wc *wc)
{
	struct sfab_context *ctx = to_sfab_context(ibvcq->context);
	struct sfab_cq *cq = to_sfab_cq(ibvcq);
	uint16_t start;
	int n = 0;

	/* a CQ in caller memory: its owner polls it, the host cannot */
	if (cq->dv) {
		errno = EOPNOTSUPP;
		return -1;
	}
	pthread_spin_lock(&cq->lock);
	start = cq->cc;
	while (n < ne && !sfab_cq_poll_one(ctx, cq, &wc[n]))
		n++;
	sfab_cq_consumed(ctx, cq, start);
	pthread_spin_unlock(&cq->lock);
	return n;
}

/* ---- the ibv_start_poll() API --------------------------------------------------- */

static inline struct sfab_cq *cqx_to_sfab_cq(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct sfab_cq, vcq.cq_ex);
}

/* the completion polled, for ibv_wc_read_*() and the caller's fields */
static int sfab_cqx_take(struct ibv_cq_ex *cqx, struct sfab_cq *cq)
{
	struct sfab_context *ctx = to_sfab_context(cqx->context);

	if (sfab_cq_poll_one(ctx, cq, &cq->ex_wc))
		return ENOENT;
	cqx->wr_id = cq->ex_wc.wr_id;
	cqx->status = cq->ex_wc.status;
	return 0;
}

static int sfab_cqx_start_poll(struct ibv_cq_ex *cqx,
			       struct ibv_poll_cq_attr *attr)
{
	struct sfab_cq *cq = cqx_to_sfab_cq(cqx);

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	cq->ex_start = cq->cc;
	if (!sfab_cqx_take(cqx, cq))
		return 0;
	/* none: ibv_end_poll() is not to be called */
	sfab_cq_consumed(to_sfab_context(cqx->context), cq, cq->ex_start);
	pthread_spin_unlock(&cq->lock);
	return ENOENT;
}

static int sfab_cqx_next_poll(struct ibv_cq_ex *cqx)
{
	return sfab_cqx_take(cqx, cqx_to_sfab_cq(cqx));
}

static void sfab_cqx_end_poll(struct ibv_cq_ex *cqx)
{
	struct sfab_cq *cq = cqx_to_sfab_cq(cqx);

	sfab_cq_consumed(to_sfab_context(cqx->context), cq, cq->ex_start);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode sfab_cqx_read_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.opcode;
}

static uint32_t sfab_cqx_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.vendor_err;
}

static uint32_t sfab_cqx_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.byte_len;
}

/* also the invalidated rkey (ibv_wc_read_invalidated_rkey()) */
static __be32 sfab_cqx_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.imm_data;
}

static uint32_t sfab_cqx_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.qp_num;
}

static uint32_t sfab_cqx_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.src_qp;
}

static unsigned int sfab_cqx_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.wc_flags;
}

static uint32_t sfab_cqx_read_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.slid;
}

static uint8_t sfab_cqx_read_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.sl;
}

static uint8_t sfab_cqx_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_sfab_cq(cqx)->ex_wc.dlid_path_bits;
}

static void sfab_cq_ex_init(struct sfab_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = sfab_cqx_start_poll;
	cqx->next_poll = sfab_cqx_next_poll;
	cqx->end_poll = sfab_cqx_end_poll;
	cqx->read_opcode = sfab_cqx_read_opcode;
	cqx->read_vendor_err = sfab_cqx_read_vendor_err;
	cqx->read_wc_flags = sfab_cqx_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = sfab_cqx_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = sfab_cqx_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = sfab_cqx_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = sfab_cqx_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = sfab_cqx_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = sfab_cqx_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = sfab_cqx_read_dlid_path_bits;
}

int sfab_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only)
{
	struct sfab_context *ctx = to_sfab_context(ibvcq->context);
	struct sfab_cq *cq = to_sfab_cq(ibvcq);

	/* the host does not know a caller-memory CQ's consumer index */
	if (cq->dv)
		return EOPNOTSUPP;
	/* a lost device sends no event */
	if (sfab_ctx_lost(ctx))
		return EIO;
	pthread_spin_lock(&cq->lock);
	sfab_db(ctx, SFAB_DB_CQ, cq->cqn, cq->cc,
		solicited_only ? SFAB_DB_ARM_SOLICITED : SFAB_DB_ARM_NEXT);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/*
 * Forget the completions a QP left in a CQ: a QP created later with the
 * same number must not take them for its own.
 */
static void sfab_cq_clean(struct sfab_cq *cq, uint32_t qpn)
{
	struct sfab_cqe *cqe;
	uint16_t i;

	if (cq->dv)	/* the ring's owner disowns, if anyone */
		return;
	pthread_spin_lock(&cq->lock);
	for (i = cq->cc; (uint16_t)(i - cq->cc) < (1U << cq->log_depth); i++) {
		cqe = sfab_cq_next(cq, i);
		if (!cqe)
			break;
		sfab_cqe_disown(cqe, qpn);
	}
	pthread_spin_unlock(&cq->lock);
}

/* ... and those of a destroyed XRC SRQ: an SRQ made later must not take them */
static void sfab_cq_clean_srq(struct sfab_cq *cq, uint32_t srqn)
{
	struct sfab_cqe_info ci;
	struct sfab_cqe *cqe;
	uint16_t i;

	pthread_spin_lock(&cq->lock);
	for (i = cq->cc; (uint16_t)(i - cq->cc) < (1U << cq->log_depth); i++) {
		cqe = sfab_cq_next(cq, i);
		if (!cqe)
			break;
		if (!sfab_cqe_decode(cqe, &ci) || !ci.xrc || ci.srqn != srqn)
			continue;
		/* no XRC SRQ's, no QP's: the poller consumes it silently */
		cqe->flags &= ~SFAB_CQE_XRC;
		sfab_cqe_disown(cqe, ci.qpn);
	}
	pthread_spin_unlock(&cq->lock);
}

/* ---- queue pairs ---------------------------------------------------------------- */

static int sfab_qp_table_set(struct sfab_context *ctx, uint32_t qpn,
			     struct sfab_qp *qp)
{
	if (qpn >= ctx->qp_table_size)
		return EINVAL;
	pthread_mutex_lock(&ctx->qp_table_mutex);
	ctx->qp_table[qpn] = qp;
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	return 0;
}

/* a QP's ring geometry for its caps: the contract's rules */
struct sfab_qp_geom {
	int sq_log;
	struct sfab_sq_geom sq;
	int rq_log;			/* 0 with an SRQ */
	int rq_stride;
};

static int sfab_qp_geometry(struct sfab_context *ctx,
			    const struct ibv_qp_init_attr *attr,
			    struct sfab_qp_geom *g)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	bool rq = !attr->srq && attr->qp_type != IBV_QPT_XRC_SEND;
	uint8_t type;
	int err;

	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
		type = SFAB_QPT_RC;
		break;
	case IBV_QPT_UD:
		type = SFAB_QPT_UD;
		break;
	case IBV_QPT_XRC_SEND:
		if (!ctx->has_xrc || attr->srq)
			return EOPNOTSUPP;
		type = SFAB_QPT_XRC_INI;
		break;
	default:
		return EOPNOTSUPP;
	}
	if (cap->max_send_sge > ctx->max_sq_sge ||
	    cap->max_inline_data > ctx->max_inline ||
	    (rq && cap->max_recv_sge > ctx->max_rq_sge))
		return EINVAL;
	memset(g, 0, sizeof(*g));
	g->sq_log = sfab_log_depth(cap->max_send_wr, ctx->max_sq_wr);
	/*
	 * the contract's stride rule: UD keeps room for a GRH segment, an
	 * XRC initiator for its XRC segment
	 */
	err = sfab_sq_geometry(type, cap->max_send_sge ? cap->max_send_sge : 1,
			       cap->max_inline_data, &g->sq);
	if (rq) {
		g->rq_log = sfab_log_depth(cap->max_recv_wr, ctx->max_rq_wr);
		g->rq_stride = sfab_rq_log_stride(cap->max_recv_sge ?
						  cap->max_recv_sge : 1);
	}
	if (g->sq_log < 0 || err || g->rq_log < 0 || g->rq_stride < 0)
		return EINVAL;
	return 0;
}

/* what the rings hold, in the QP and in the caps: at least what was asked */
static void sfab_qp_set_caps(struct sfab_context *ctx, struct sfab_qp *qp,
			     const struct sfab_qp_geom *g, bool srq,
			     struct ibv_qp_cap *cap)
{
	qp->sq.log_depth = g->sq_log;
	qp->sq.log_stride = g->sq.log_stride;
	qp->sq.max_sge = g->sq.max_sge;
	if (qp->sq.max_sge > ctx->max_sq_sge)
		qp->sq.max_sge = ctx->max_sq_sge;
	qp->max_inline = g->sq.max_inline;
	if (qp->max_inline > ctx->max_inline)
		qp->max_inline = ctx->max_inline;
	cap->max_send_wr = 1U << g->sq_log;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->max_inline;
	if (!srq) {
		qp->rq.log_depth = g->rq_log;
		qp->rq.log_stride = g->rq_stride;
		qp->rq.max_sge = sfab_rq_max_sge(g->rq_stride);
		if (qp->rq.max_sge > ctx->max_rq_sge)
			qp->rq.max_sge = ctx->max_rq_sge;
		cap->max_recv_wr = 1U << g->rq_log;
		cap->max_recv_sge = qp->rq.max_sge;
	}
}

/* a queue libsfab can post to and poll (not one in caller memory) */
static bool sfab_cq_is_dv(struct ibv_cq *ibvcq)
{
	return ibvcq && to_sfab_cq(ibvcq)->dv;
}

/*
 * The ibv_wr_* opcodes each QP type takes (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
 * binds (RC and UC) and local invalidation with memory windows; atomic
 * write and flush (RC, XRC) with the memory placement extensions.
 */
static uint64_t sfab_send_ops(struct sfab_context *ctx, enum ibv_qp_type type)
{
	const uint64_t mw = ctx->has_mw ? IBV_QP_EX_WITH_BIND_MW |
					  IBV_QP_EX_WITH_LOCAL_INV : 0;
	const uint64_t uc = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			    IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | mw;

	const uint64_t a19 = ctx->has_flush ? IBV_QP_EX_WITH_ATOMIC_WRITE |
					      IBV_QP_EX_WITH_FLUSH : 0;
	const uint64_t rc = uc | IBV_QP_EX_WITH_SEND_WITH_INV |
			    IBV_QP_EX_WITH_RDMA_READ |
			    IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | a19;

	switch (type) {
	case IBV_QPT_RC:
		return rc;
	case IBV_QPT_XRC_SEND:
		/* windows are bound on RC and UC QPs only */
		return rc & ~IBV_QP_EX_WITH_BIND_MW;
	case IBV_QPT_UC:
		return uc;
	case IBV_QPT_UD:
		return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	default:
		return 0;
	}
}

static void sfab_qp_ex_init(struct sfab_qp *qp, uint64_t send_ops);

/*
 * A QP whose rings libsfab owns: ibv_create_qp() (ex false: the legacy
 * command) or ibv_create_qp_ex() (the extended one, and the ibv_wr_*
 * post API when attr asks for send_ops_flags).
 */
static struct ibv_qp *sfab_qp_create(struct ibv_context *context,
				     struct ibv_qp_init_attr_ex *attr, bool ex)
{
	struct sfab_context *ctx = to_sfab_context(context);
	struct ibv_qp_init_attr legacy = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
	};
	struct sfab_create_qp_ex_resp respx = {};
	struct sfab_create_qp_resp resp = {};
	struct sfab_create_qp_ex cmdx = {};
	struct sfab_create_qp cmd = {};
	struct sfab_ibv_create_qp drv = {};
	uint64_t send_ops = 0;
	struct sfab_qp_geom g;
	struct sfab_qp *qp;
	uint32_t resp_mask;
	int err;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		send_ops = attr->send_ops_flags;
		if (send_ops & ~sfab_send_ops(ctx, attr->qp_type)) {
			verbs_err(&ctx->ibvctx,
				  "send_ops_flags %#llx: sfab QPs of type %d take %#llx\n",
				  (unsigned long long)send_ops, attr->qp_type,
				  (unsigned long long)sfab_send_ops(ctx, attr->qp_type));
			errno = EOPNOTSUPP;
			return NULL;
		}
	}
	err = sfab_qp_geometry(ctx, &legacy, &g);
	if (err) {
		errno = err;
		return NULL;
	}
	/* the host would never see its completions */
	if (sfab_cq_is_dv(attr->send_cq) || sfab_cq_is_dv(attr->recv_cq)) {
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->sig_all = attr->sq_sig_all;
	err = sfab_wq_init(ctx, &qp->sq, g.sq_log, g.sq.log_stride, true);
	if (err)
		goto err_free;
	if (attr->srq) {
		qp->srq = to_sfab_srq(attr->srq);
	} else if (attr->qp_type != IBV_QPT_XRC_SEND) {
		err = sfab_wq_init(ctx, &qp->rq, g.rq_log, g.rq_stride, false);
		if (err)
			goto err_free_sq;
	}

	drv.sq_log_depth = g.sq_log;
	drv.sq_log_stride = g.sq.log_stride;
	drv.sq_buf_addr = (uintptr_t)qp->sq.ring;
	if (ctx->dbrec) {
		drv.comp_mask |= SFAB_IBV_CREATE_QP_DBREC;
		drv.sq_dbrec_off = sfab_dbrec_ring_off(g.sq_log,
						       g.sq.log_stride);
	}
	if (qp->rq.ring) {
		drv.rq_log_depth = g.rq_log;
		drv.rq_log_stride = g.rq_stride;
		drv.rq_buf_addr = (uintptr_t)qp->rq.ring;
		if (ctx->dbrec)
			drv.rq_dbrec_off = sfab_dbrec_ring_off(g.rq_log,
							       g.rq_stride);
	}
	if (ex) {
		cmdx.drv_payload = drv;
		err = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr,
					    &cmdx.ibv_cmd, sizeof(cmdx),
					    &respx.ibv_resp, sizeof(respx));
		qp->qpn = respx.qpn;
		resp_mask = respx.comp_mask;
	} else {
		cmd.drv_payload = drv;
		err = ibv_cmd_create_qp(attr->pd, &qp->vqp.qp, &legacy,
					&cmd.ibv_cmd, sizeof(cmd),
					&resp.ibv_resp, sizeof(resp));
		qp->qpn = resp.qpn;
		resp_mask = resp.comp_mask;
	}
	if (err) {
		verbs_err(&ctx->ibvctx, "Failed to create QP: %s\n",
			  strerror(err));
		goto err_free_rq;
	}
	if (resp_mask & SFAB_IBV_CREATE_QP_RESP_DBREC) {
		qp->sq.dbrec = sfab_ring_dbrec(qp->sq.ring, g.sq_log,
					       g.sq.log_stride);
		if (qp->rq.ring)
			qp->rq.dbrec = sfab_ring_dbrec(qp->rq.ring, g.rq_log,
						       g.rq_stride);
	}
	sfab_qp_set_caps(ctx, qp, &g, !qp->rq.ring, &attr->cap);
	if (send_ops) {
		qp->ex_sge = calloc(qp->sq.max_sge, sizeof(*qp->ex_sge));
		qp->ex_inl = malloc(qp->max_inline ? qp->max_inline : 1);
		if (!qp->ex_sge || !qp->ex_inl) {
			err = ENOMEM;
			goto err_destroy;
		}
		sfab_qp_ex_init(qp, send_ops);
	}

	err = sfab_qp_table_set(ctx, qp->qpn, qp);
	if (err) {
		verbs_err(&ctx->ibvctx, "QPN %u beyond the device's %u QPs\n",
			  qp->qpn, ctx->qp_table_size);
		goto err_destroy;
	}
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
	free(qp->ex_inl);
	free(qp->ex_sge);
err_free_rq:
	sfab_wq_destroy(&qp->rq);
err_free_sq:
	sfab_wq_destroy(&qp->sq);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

/*
 * An XRC receive QP: the kernel has the device make a target of the
 * domain; it has no rings and no CQs, its receives complete on the XRC
 * SRQs' CQs.  Other processes of the domain open it (ibv_open_qp()).
 */
static struct ibv_qp *sfab_xrc_tgt_create(struct ibv_context *context,
					  struct ibv_qp_init_attr_ex *attr)
{
	struct sfab_context *ctx = to_sfab_context(context);
	struct sfab_create_qp_ex_resp resp = {};
	struct sfab_create_qp_ex cmd = {};
	struct sfab_qp *qp;
	int err;

	if (!ctx->has_xrc || attr->send_ops_flags) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->xrc_tgt = true;
	err = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "Failed to create XRC QP: %s\n",
			  strerror(err));
		free(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	memset(&attr->cap, 0, sizeof(attr->cap));
	return &qp->vqp.qp;
}

struct ibv_qp *sfab_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr)
{
	struct sfab_context *ctx = to_sfab_context(context);
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct sfab_qp *qp;
	int err;

	if (!ctx->has_xrc) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->xrc_tgt = true;
	err = ibv_cmd_open_qp(context, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	return &qp->vqp.qp;
}

struct ibv_xrcd *sfab_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd;
	struct verbs_xrcd *xrcd;
	int err;

	if (!to_sfab_context(context)->has_xrc) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_open_xrcd(context, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

int sfab_close_xrcd(struct ibv_xrcd *ibvxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibvxrcd, struct verbs_xrcd, xrcd);
	int err;

	err = ibv_cmd_close_xrcd(xrcd);
	if (err)
		return err;
	free(xrcd);
	return 0;
}

struct ibv_qp *sfab_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = sfab_qp_create(pd->context, &ex, false);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

struct ibv_qp *sfab_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_XRCD |
			       IBV_QP_INIT_ATTR_CREATE_FLAGS |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;

	if (attr->comp_mask & ~known) {
		verbs_err(&to_sfab_context(context)->ibvctx,
			  "ibv_create_qp_ex: comp_mask %#x: sfab takes %#x\n",
			  attr->comp_mask, known);
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* the mask may say "creation flags"; sfab has none to take */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags) {
		verbs_err(&to_sfab_context(context)->ibvctx,
			  "ibv_create_qp_ex: create_flags %#x unsupported\n",
			  attr->create_flags);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return sfab_xrc_tgt_create(context, attr);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	return sfab_qp_create(context, attr, true);
}

static void sfab_qp_fill_cap(struct sfab_qp *qp, struct ibv_qp_cap *cap)
{
	if (qp->xrc_tgt) {
		memset(cap, 0, sizeof(*cap));
		return;
	}
	cap->max_send_wr = 1U << qp->sq.log_depth;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->max_inline;
	cap->max_recv_wr = qp->rq.ring ? 1U << qp->rq.log_depth : 0;
	cap->max_recv_sge = qp->rq.ring ? qp->rq.max_sge : 0;
}

int sfab_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct sfab_qp *qp = to_sfab_qp(ibvqp);
	struct ibv_query_qp cmd;
	int err;

	err = ibv_cmd_query_qp(ibvqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (err)
		return err;
	/* the rings are the provider's: it knows what they hold */
	sfab_qp_fill_cap(qp, &attr->cap);
	sfab_qp_fill_cap(qp, &init_attr->cap);
	init_attr->sq_sig_all = qp->sig_all;
	return 0;
}

static void sfab_qp_reset(struct sfab_qp *qp)
{
	struct sfab_cq *scq = to_sfab_cq(qp->vqp.qp.send_cq);
	struct sfab_cq *rcq = sfab_qp_recv_cq(qp);

	/* an XRC target's completions are its SRQs' */
	if (qp->xrc_tgt)
		return;
	sfab_cq_clean(scq, qp->qpn);
	if (rcq != scq)
		sfab_cq_clean(rcq, qp->qpn);
	pthread_spin_lock(&qp->sq.lock);
	qp->sq.pi = 0;
	qp->sq.ci = 0;
	if (qp->sq.dbrec)
		sfab_dbrec_set(qp->sq.dbrec, 0);
	pthread_spin_unlock(&qp->sq.lock);
	if (qp->rq.ring) {
		pthread_spin_lock(&qp->rq.lock);
		qp->rq.pi = 0;
		qp->rq.ci = 0;
		if (qp->rq.dbrec)
			sfab_dbrec_set(qp->rq.dbrec, 0);
		pthread_spin_unlock(&qp->rq.lock);
	}
}

int sfab_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct sfab_qp *qp = to_sfab_qp(ibvqp);
	struct ibv_modify_qp cmd = {};
	enum ibv_qp_state prev = ibvqp->state;
	int err;

	err = ibv_cmd_modify_qp(ibvqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (attr_mask & IBV_QP_STATE) {
		ibvqp->state = attr->qp_state;
		/* the device forgot the rings' contents: start them over */
		if (attr->qp_state == IBV_QPS_RESET && prev != IBV_QPS_RESET)
			sfab_qp_reset(qp);
	}
	return 0;
}

int sfab_destroy_qp(struct ibv_qp *ibvqp)
{
	struct sfab_context *ctx = to_sfab_context(ibvqp->context);
	struct sfab_qp *qp = to_sfab_qp(ibvqp);
	struct sfab_cq *scq = to_sfab_cq(ibvqp->send_cq);
	struct sfab_cq *rcq = sfab_qp_recv_cq(qp);
	int err;

	err = ibv_cmd_destroy_qp(ibvqp);
	if (err)
		return err;
	if (qp->xrc_tgt) {
		/* created or opened: nothing of it is the provider's */
		free(qp);
		return 0;
	}

	/* a poll holds the CQ lock while it uses the QP */
	pthread_spin_lock(&scq->lock);
	if (rcq != scq)
		pthread_spin_lock(&rcq->lock);
	sfab_qp_table_set(ctx, qp->qpn, NULL);
	if (rcq != scq)
		pthread_spin_unlock(&rcq->lock);
	pthread_spin_unlock(&scq->lock);
	sfab_cq_clean(scq, qp->qpn);
	if (rcq != scq)
		sfab_cq_clean(rcq, qp->qpn);

	if (qp->dv) {
		/* rings in caller memory: only the locks are the provider's */
		pthread_spin_destroy(&qp->rq.lock);
		pthread_spin_destroy(&qp->sq.lock);
	}
	sfab_wq_destroy(&qp->rq);
	sfab_wq_destroy(&qp->sq);
	free(qp->ex_inl);
	free(qp->ex_sge);
	free(qp);
	return 0;
}

/* ---- posting ---------------------------------------------------------------- */

static void sfab_sge_set(struct sfab_sge *dst, const struct ibv_sge *src)
{
	dst->addr = htole64(src->addr);
	dst->length = htole32(src->length);
	dst->lkey = htole32(src->lkey);
}

/* copy the SGEs' bytes after an inline header */
static int sfab_copy_inline(void *seg, size_t room, const struct ibv_send_wr *wr,
			    uint32_t max_inline)
{
	int err;

	SFAB_WQE_INLINE_FILL(seg, room, wr->sg_list, wr->num_sge, max_inline, err);
	return -err;
}

static int sfab_send_opcode(struct sfab_context *ctx, enum ibv_qp_type type,
			    enum ibv_wr_opcode op, uint8_t *opcode, size_t *seg)
{
	bool rc = type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND;

	*seg = 0;
	if (type == IBV_QPT_UD) {
		*seg = sizeof(struct sfab_wqe_ud);
		switch (op) {
		case IBV_WR_SEND:
			*opcode = SFAB_WQE_SEND;
			return 0;
		case IBV_WR_SEND_WITH_IMM:
			*opcode = SFAB_WQE_SEND_IMM;
			return 0;
		default:
			return EINVAL;
		}
	}
	switch (op) {
	case IBV_WR_SEND:
		*opcode = SFAB_WQE_SEND;
		return 0;
	case IBV_WR_SEND_WITH_IMM:
		*opcode = SFAB_WQE_SEND_IMM;
		return 0;
	case IBV_WR_SEND_WITH_INV:
		*opcode = SFAB_WQE_SEND_INV;
		return rc ? 0 : EINVAL;
	case IBV_WR_RDMA_WRITE:
		*opcode = SFAB_WQE_RDMA_WRITE;
		*seg = sizeof(struct sfab_wqe_raddr);
		return 0;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		*opcode = SFAB_WQE_RDMA_WRITE_IMM;
		*seg = sizeof(struct sfab_wqe_raddr);
		return 0;
	case IBV_WR_RDMA_READ:
		*opcode = SFAB_WQE_RDMA_READ;
		*seg = sizeof(struct sfab_wqe_raddr);
		return rc ? 0 : EINVAL;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		*opcode = SFAB_WQE_ATOMIC_CS;
		*seg = sizeof(struct sfab_wqe_raddr) +
		       sizeof(struct sfab_wqe_atomic);
		return rc ? 0 : EINVAL;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		*opcode = SFAB_WQE_ATOMIC_FA;
		*seg = sizeof(struct sfab_wqe_raddr) +
		       sizeof(struct sfab_wqe_atomic);
		return rc ? 0 : EINVAL;
	case IBV_WR_BIND_MW:
		*opcode = SFAB_WQE_BIND_MW;
		*seg = sizeof(struct sfab_wqe_bind_mw);
		/* windows are bound on RC and UC QPs */
		return ctx->has_mw && type != IBV_QPT_XRC_SEND ? 0 : EINVAL;
	case IBV_WR_LOCAL_INV:
		*opcode = SFAB_WQE_LOCAL_INV;
		return ctx->has_mw ? 0 : EINVAL;
	case IBV_WR_ATOMIC_WRITE:
		*opcode = SFAB_WQE_ATOMIC_WRITE;
		*seg = sizeof(struct sfab_wqe_raddr) +
		       sizeof(struct sfab_wqe_atomic);
		return rc && ctx->has_flush ? 0 : EINVAL;
	case IBV_WR_FLUSH:
		*opcode = SFAB_WQE_FLUSH;
		*seg = sizeof(struct sfab_wqe_raddr) +
		       sizeof(struct sfab_wqe_flush);
		return rc && ctx->has_flush ? 0 : EINVAL;
	default:
		return EINVAL;
	}
}

/*
 * The bind segment of IBV_WR_BIND_MW: the new key must name the window
 * (its index, any variant); the window's rights are the remote ones
 * (IBV_ACCESS_LOCAL_WRITE, which applications pass along, means nothing
 * for a window); zero-based windows are not offered.  With length 0 a
 * type 1 window is unbound and needs no MR.
 */
static int sfab_build_bind(struct sfab_wqe_bind_mw *b, const struct ibv_mw *mw,
			   uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	const unsigned int remote = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
	uint32_t access = 0;

	if (!mw || (rkey >> SFAB_MR_KEY_INDEX_SHIFT) !=
		   (mw->rkey >> SFAB_MR_KEY_INDEX_SHIFT))
		return EINVAL;
	if (info->mw_access_flags & ~(remote | IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	if (info->length && !info->mr)
		return EINVAL;
	if (info->mw_access_flags & IBV_ACCESS_REMOTE_WRITE)
		access |= SFAB_ACCESS_REMOTE_WRITE;
	if (info->mw_access_flags & IBV_ACCESS_REMOTE_READ)
		access |= SFAB_ACCESS_REMOTE_READ;
	if (info->mw_access_flags & IBV_ACCESS_REMOTE_ATOMIC)
		access |= SFAB_ACCESS_REMOTE_ATOMIC;

	memset(b, 0, sizeof(*b));
	b->addr = htole64(info->addr);
	b->length = htole64(info->length);
	b->mw_key = htole32(rkey);
	b->mr_key = htole32(info->mr ? info->mr->lkey : 0);
	b->access = htole32(access);
	return 0;
}

/*
 * The control segment every send WQE starts with: opcode, SIGNALED
 * (without cqe_wqe_index every send completes: the top of this file),
 * FENCE, wr_id, and the key a SEND_INV or LOCAL_INV invalidates
 */
static void sfab_ctrl_init(struct sfab_wqe_ctrl *ctrl, uint8_t opcode,
			   const struct ibv_send_wr *wr, bool signaled)
{
	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->opcode = opcode;
	if (signaled)
		ctrl->flags = SFAB_WQE_SIGNALED;
	if (wr->send_flags & IBV_SEND_FENCE)
		ctrl->flags |= SFAB_WQE_FENCE;
	if (opcode == SFAB_WQE_SEND_INV || opcode == SFAB_WQE_LOCAL_INV)
		ctrl->imm_data = (uint32_t)htole32(wr->invalidate_rkey);
	ctrl->wr_id = htole64(wr->wr_id);
}

/* the segments of ATOMIC_WRITE and FLUSH, from what ibv_wr_* gathered */
static void sfab_build_placement(struct sfab_qp *qp, uint8_t *seg,
				 const struct ibv_send_wr *wr, uint8_t opcode)
{
	struct sfab_wqe_raddr *ra = (void *)seg;

	memset(ra, 0, sizeof(*ra));
	ra->remote_addr = htole64(wr->wr.rdma.remote_addr);
	ra->rkey = htole32(wr->wr.rdma.rkey);
	if (opcode == SFAB_WQE_ATOMIC_WRITE) {
		struct sfab_wqe_atomic *at = (void *)(ra + 1);

		memset(at, 0, sizeof(*at));
		memcpy(&at->swap_add, qp->ex_awrite, sizeof(at->swap_add));
	} else {
		struct sfab_wqe_flush *f = (void *)(ra + 1);

		memset(f, 0, sizeof(*f));
		f->length = htole64(qp->ex_flush_len);
		f->type = qp->ex_flush_type;
		f->level = qp->ex_flush_level;
	}
}

static int sfab_build_send(struct sfab_qp *qp, void *wqe,
			   const struct ibv_send_wr *wr, bool signaled)
{
	size_t stride = (size_t)1 << qp->sq.log_stride;
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	struct sfab_wqe_ctrl *ctrl = wqe;
	uint8_t *seg = (uint8_t *)wqe + sizeof(*ctrl);
	struct sfab_sge *sge;
	size_t hdr, segs;
	uint8_t opcode;
	int err;
	int i;

	err = sfab_send_opcode(to_sfab_context(qp->vqp.qp.context),
			       qp->vqp.qp.qp_type, wr->opcode, &opcode, &segs);
	if (err)
		return err;
	/* XRC: the far end's SRQ first; the rest as on RC */
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND) {
		struct sfab_wqe_xrc *x = (void *)seg;

		if (wr->qp_type.xrc.remote_srqn > SFAB_DB_QPN_MASK)
			return EINVAL;
		memset(x, 0, sizeof(*x));
		x->remote_srqn = htole32(wr->qp_type.xrc.remote_srqn);
		seg += sizeof(*x);
		segs += sizeof(*x);
	}
	hdr = sizeof(*ctrl) + segs;
	if (wr->num_sge < 0)
		return EINVAL;
	/* no data: no SGE is looked at */
	switch (opcode) {
	case SFAB_WQE_ATOMIC_WRITE:
	case SFAB_WQE_FLUSH:
		/* ibv_wr_atomic_write() and ibv_wr_flush() only: ex_* has them */
		if (wr != &qp->ex_wr)
			return EINVAL;
		sfab_build_placement(qp, seg, wr, opcode);
		sfab_ctrl_init(ctrl, opcode, wr, signaled);
		return 0;
	case SFAB_WQE_BIND_MW:
	case SFAB_WQE_LOCAL_INV:
		if (inl)
			return EINVAL;
		if (opcode == SFAB_WQE_BIND_MW) {
			err = sfab_build_bind((void *)seg, wr->bind_mw.mw,
					      wr->bind_mw.rkey,
					      &wr->bind_mw.bind_info);
			if (err)
				return err;
		}
		sfab_ctrl_init(ctrl, opcode, wr, signaled);
		return 0;
	default:
		break;
	}
	/* a global address: the GRH segment follows the UD address */
	if (qp->vqp.qp.qp_type == IBV_QPT_UD && wr->wr.ud.ah &&
	    to_sfab_ah(wr->wr.ud.ah)->is_global) {
		hdr += sizeof(struct sfab_wqe_grh);
		if (!inl &&
		    hdr + (size_t)wr->num_sge * sizeof(*sge) > stride)
			return EINVAL;
	}
	if (opcode == SFAB_WQE_ATOMIC_CS || opcode == SFAB_WQE_ATOMIC_FA) {
		if (inl || wr->num_sge != 1 || wr->sg_list[0].length != 8)
			return EINVAL;
	}
	if (inl && opcode == SFAB_WQE_RDMA_READ)
		return EINVAL;
	if (inl) {
		err = sfab_copy_inline((uint8_t *)wqe + hdr, stride - hdr, wr,
				       qp->max_inline);
		if (err)
			return err;
	} else if ((uint32_t)wr->num_sge > qp->sq.max_sge) {
		return EINVAL;
	}

	sfab_ctrl_init(ctrl, opcode, wr, signaled);
	if (wr->send_flags & IBV_SEND_SOLICITED)
		ctrl->flags |= SFAB_WQE_SOLICITED;
	if (opcode == SFAB_WQE_SEND_IMM || opcode == SFAB_WQE_RDMA_WRITE_IMM)
		ctrl->imm_data = wr->imm_data;

	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		struct sfab_wqe_ud *ud = (void *)seg;
		struct sfab_ah *ah;

		if (!wr->wr.ud.ah)
			return EINVAL;
		ah = to_sfab_ah(wr->wr.ud.ah);
		memset(ud, 0, sizeof(*ud));
		ud->dest_qpn = htole32(wr->wr.ud.remote_qpn & SFAB_DB_QPN_MASK);
		ud->qkey = htole32(wr->wr.ud.remote_qkey);
		ud->dlid = htole16(ah->dlid);
		ud->sl = ah->sl;
		ud->src_path_bits = ah->src_path_bits;
		ud->port_num = ah->port_num;
		if (ah->is_global) {
			ctrl->flags |= SFAB_WQE_GRH;
			memcpy(seg + sizeof(*ud), &ah->grh, sizeof(ah->grh));
		}
	} else if (opcode == SFAB_WQE_ATOMIC_CS || opcode == SFAB_WQE_ATOMIC_FA) {
		struct sfab_wqe_raddr *ra = (void *)seg;
		struct sfab_wqe_atomic *at = (void *)(seg + sizeof(*ra));

		memset(ra, 0, sizeof(*ra));
		ra->remote_addr = htole64(wr->wr.atomic.remote_addr);
		ra->rkey = htole32(wr->wr.atomic.rkey);
		if (opcode == SFAB_WQE_ATOMIC_CS) {
			at->swap_add = htole64(wr->wr.atomic.swap);
			at->compare = htole64(wr->wr.atomic.compare_add);
		} else {
			at->swap_add = htole64(wr->wr.atomic.compare_add);
			at->compare = 0;
		}
	} else if (segs) {
		struct sfab_wqe_raddr *ra = (void *)seg;

		memset(ra, 0, sizeof(*ra));
		ra->remote_addr = htole64(wr->wr.rdma.remote_addr);
		ra->rkey = htole32(wr->wr.rdma.rkey);
	}

	if (inl) {
		ctrl->flags |= SFAB_WQE_INLINE;
		return 0;
	}
	ctrl->num_sge = wr->num_sge;
	sge = (struct sfab_sge *)((uint8_t *)wqe + hdr);
	for (i = 0; i < wr->num_sge; i++)
		sfab_sge_set(&sge[i], &wr->sg_list[i]);
	return 0;
}

/* one work request into the next SQ slot, under the SQ lock */
static int sfab_sq_put(struct sfab_qp *qp, const struct ibv_send_wr *wr)
{
	struct sfab_wq *sq = &qp->sq;
	bool signaled;
	int err;

	if (sfab_wq_full(sq))
		return ENOMEM;
	signaled = qp->sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
	err = sfab_build_send(qp, sfab_wq_slot(sq, sq->pi), wr,
			      signaled || sq->unsignaled);
	if (err)
		return err;
	if (sq->unsignaled)
		sq->unsignaled[sfab_ring_slot(sq->pi, sq->log_depth)] = !signaled;
	sq->pi++;
	return 0;
}

/* tell the device how far the SQ goes: the record, then the doorbell */
static void sfab_sq_ring(struct sfab_context *ctx, struct sfab_qp *qp)
{
	if (qp->sq.dbrec)
		sfab_dbrec_publish(qp->sq.dbrec, qp->sq.pi, false);
	sfab_db(ctx, SFAB_DB_SQ, qp->qpn, qp->sq.pi, 0);
}

static bool sfab_qp_can_send(enum ibv_qp_state state)
{
	return state == IBV_QPS_RTS || state == IBV_QPS_SQD ||
	       state == IBV_QPS_SQE || state == IBV_QPS_ERR;
}

int sfab_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct sfab_context *ctx = to_sfab_context(ibvqp->context);
	struct sfab_qp *qp = to_sfab_qp(ibvqp);
	struct sfab_wq *sq = &qp->sq;
	unsigned int n = 0;
	int err = 0;

	/* a QP in caller memory: its owner posts, the host cannot */
	if (qp->dv) {
		*bad_wr = wr;
		return EOPNOTSUPP;
	}
	if (!sfab_qp_can_send(ibvqp->state) || qp->xrc_tgt) {
		*bad_wr = wr;
		return EINVAL;
	}
	if (sfab_ctx_lost(ctx)) {
		*bad_wr = wr;
		return EIO;
	}

	pthread_spin_lock(&sq->lock);
	for (; wr; wr = wr->next) {
		err = sfab_sq_put(qp, wr);
		if (err)
			break;
		n++;
	}
	if (n)
		sfab_sq_ring(ctx, qp);
	pthread_spin_unlock(&sq->lock);

	if (err)
		*bad_wr = wr;
	return err;
}

/* ---- the ibv_wr_* post API ---------------------------------------------------- */

static inline struct sfab_qp *qpx_to_sfab_qp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct sfab_qp, vqp.qp_ex);
}

static void sfab_wr_fail(struct sfab_qp *qp, int err)
{
	if (!qp->ex_err)
		qp->ex_err = err;
}

/* the gathered request into the ring, unless the batch failed */
static void sfab_wr_flush(struct sfab_qp *qp)
{
	if (!qp->ex_pending)
		return;
	qp->ex_pending = false;
	if (!qp->ex_err)
		sfab_wr_fail(qp, sfab_sq_put(qp, &qp->ex_wr));
}

/* the next request: OP (one of the QP's send_ops, FLAG) with the caller's
 * wr_id and wr_flags; its addresses and data come from the setters */
static struct ibv_send_wr *sfab_wr_begin(struct ibv_qp_ex *qpx,
					 enum ibv_wr_opcode op, uint64_t flag)
{
	struct sfab_qp *qp = qpx_to_sfab_qp(qpx);
	struct ibv_send_wr *wr = &qp->ex_wr;

	sfab_wr_flush(qp);
	if (!(qp->send_ops & flag))
		sfab_wr_fail(qp, EINVAL);
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = qpx->wr_id;
	wr->send_flags = qpx->wr_flags;
	wr->opcode = op;
	wr->sg_list = qp->ex_sge;
	qp->ex_pending = true;
	return wr;
}

static void sfab_wr_send(struct ibv_qp_ex *qpx)
{
	sfab_wr_begin(qpx, IBV_WR_SEND, IBV_QP_EX_WITH_SEND);
}

static void sfab_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	sfab_wr_begin(qpx, IBV_WR_SEND_WITH_IMM,
		      IBV_QP_EX_WITH_SEND_WITH_IMM)->imm_data = imm_data;
}

static void sfab_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	sfab_wr_begin(qpx, IBV_WR_SEND_WITH_INV,
		      IBV_QP_EX_WITH_SEND_WITH_INV)->invalidate_rkey =
		invalidate_rkey;
}

static void sfab_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			 uint64_t flag, uint32_t rkey, uint64_t remote_addr,
			 __be32 imm_data)
{
	struct ibv_send_wr *wr = sfab_wr_begin(qpx, op, flag);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm_data;
}

static void sfab_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	sfab_wr_rdma(qpx, IBV_WR_RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE, rkey,
		     remote_addr, 0);
}

static void sfab_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, __be32 imm_data)
{
	sfab_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM,
		     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		     imm_data);
}

static void sfab_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	sfab_wr_rdma(qpx, IBV_WR_RDMA_READ, IBV_QP_EX_WITH_RDMA_READ, rkey,
		     remote_addr, 0);
}

static void sfab_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode op,
			   uint64_t flag, uint32_t rkey, uint64_t remote_addr,
			   uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr *wr = sfab_wr_begin(qpx, op, flag);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void sfab_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	sfab_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP,
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
		       compare, swap);
}

static void sfab_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				     uint64_t remote_addr, uint64_t add)
{
	sfab_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD,
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
		       add, 0);
}

static void sfab_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			    uint32_t rkey,
			    const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = sfab_wr_begin(qpx, IBV_WR_BIND_MW,
					       IBV_QP_EX_WITH_BIND_MW);

	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

/* the 8 bytes are copied now, as inline data is */
static void sfab_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t remote_addr, const void *atomic_wr)
{
	struct ibv_send_wr *wr = sfab_wr_begin(qpx, IBV_WR_ATOMIC_WRITE,
					       IBV_QP_EX_WITH_ATOMIC_WRITE);
	struct sfab_qp *qp = qpx_to_sfab_qp(qpx);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	memcpy(qp->ex_awrite, atomic_wr, sizeof(qp->ex_awrite));
}

/* a type or level the device does not know is refused by it */
static void sfab_wr_rdma_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr, size_t len, uint8_t type,
			       uint8_t level)
{
	struct ibv_send_wr *wr = sfab_wr_begin(qpx, IBV_WR_FLUSH,
					       IBV_QP_EX_WITH_FLUSH);
	struct sfab_qp *qp = qpx_to_sfab_qp(qpx);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	qp->ex_flush_len = len;
	qp->ex_flush_type = type;
	qp->ex_flush_level = level;
	if (level == IBV_FLUSH_RANGE && len > UINT32_MAX)
		sfab_wr_fail(qp, EINVAL);
}

static void sfab_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	sfab_wr_begin(qpx, IBV_WR_LOCAL_INV,
		      IBV_QP_EX_WITH_LOCAL_INV)->invalidate_rkey =
		invalidate_rkey;
}

/* a setter with no request begun: the batch fails */
static struct sfab_qp *sfab_wr_setter(struct ibv_qp_ex *qpx)
{
	struct sfab_qp *qp = qpx_to_sfab_qp(qpx);

	if (!qp->ex_pending)
		sfab_wr_fail(qp, EINVAL);
	return qp;
}

static void sfab_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	struct sfab_qp *qp = sfab_wr_setter(qpx);

	qp->ex_sge[0].lkey = lkey;
	qp->ex_sge[0].addr = addr;
	qp->ex_sge[0].length = length;
	qp->ex_wr.num_sge = 1;
	qp->ex_wr.send_flags &= ~IBV_SEND_INLINE;
}

static void sfab_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				 const struct ibv_sge *sg_list)
{
	struct sfab_qp *qp = sfab_wr_setter(qpx);

	if (num_sge > qp->sq.max_sge) {
		sfab_wr_fail(qp, EINVAL);
		return;
	}
	if (num_sge)
		memcpy(qp->ex_sge, sg_list, num_sge * sizeof(*sg_list));
	qp->ex_wr.num_sge = num_sge;
	qp->ex_wr.send_flags &= ~IBV_SEND_INLINE;
}

/* inline bytes are copied now: the caller may reuse its buffers at once */
static void sfab_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
					 const struct ibv_data_buf *buf_list)
{
	struct sfab_qp *qp = sfab_wr_setter(qpx);
	size_t i, len = 0;

	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->max_inline - len) {
			sfab_wr_fail(qp, EINVAL);
			return;
		}
		memcpy(qp->ex_inl + len, buf_list[i].addr, buf_list[i].length);
		len += buf_list[i].length;
	}
	qp->ex_sge[0].addr = (uintptr_t)qp->ex_inl;
	qp->ex_sge[0].length = len;
	qp->ex_sge[0].lkey = 0;
	qp->ex_wr.num_sge = 1;
	qp->ex_wr.send_flags |= IBV_SEND_INLINE;
}

static void sfab_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				    size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sfab_wr_set_inline_data_list(qpx, 1, &buf);
}

static void sfab_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sfab_qp *qp = sfab_wr_setter(qpx);

	qp->ex_wr.wr.ud.ah = ah;
	qp->ex_wr.wr.ud.remote_qpn = remote_qpn;
	qp->ex_wr.wr.ud.remote_qkey = remote_qkey;
}

static void sfab_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct sfab_qp *qp = sfab_wr_setter(qpx);

	qp->ex_wr.qp_type.xrc.remote_srqn = remote_srqn;
}

static void sfab_wr_start(struct ibv_qp_ex *qpx)
{
	struct sfab_qp *qp = qpx_to_sfab_qp(qpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->ex_pending = false;
	qp->ex_err = sfab_qp_can_send(qp->vqp.qp.state) ? 0 : EINVAL;
	if (!qp->ex_err && sfab_ctx_lost(to_sfab_context(qpx->qp_base.context)))
		qp->ex_err = EIO;
	qp->ex_start = qp->sq.pi;
}

static int sfab_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sfab_context *ctx = to_sfab_context(qpx->qp_base.context);
	struct sfab_qp *qp = qpx_to_sfab_qp(qpx);
	int err;

	sfab_wr_flush(qp);
	err = qp->ex_err;
	if (err)	/* none of the batch: the device never saw its slots */
		qp->sq.pi = qp->ex_start;
	else if (qp->sq.pi != qp->ex_start)
		sfab_sq_ring(ctx, qp);
	pthread_spin_unlock(&qp->sq.lock);
	return err;
}

static void sfab_wr_abort(struct ibv_qp_ex *qpx)
{
	struct sfab_qp *qp = qpx_to_sfab_qp(qpx);

	qp->ex_pending = false;
	qp->sq.pi = qp->ex_start;
	pthread_spin_unlock(&qp->sq.lock);
}

static void sfab_qp_ex_init(struct sfab_qp *qp, uint64_t send_ops)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qp->send_ops = send_ops;
	qp->vqp.comp_mask |= VERBS_QP_EX;
	qpx->wr_start = sfab_wr_start;
	qpx->wr_complete = sfab_wr_complete;
	qpx->wr_abort = sfab_wr_abort;
	qpx->wr_send = sfab_wr_send;
	qpx->wr_send_imm = sfab_wr_send_imm;
	qpx->wr_send_inv = sfab_wr_send_inv;
	qpx->wr_rdma_write = sfab_wr_rdma_write;
	qpx->wr_rdma_write_imm = sfab_wr_rdma_write_imm;
	qpx->wr_rdma_read = sfab_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = sfab_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = sfab_wr_atomic_fetch_add;
	qpx->wr_bind_mw = sfab_wr_bind_mw;
	qpx->wr_local_inv = sfab_wr_local_inv;
	qpx->wr_atomic_write = sfab_wr_atomic_write;
	qpx->wr_flush = sfab_wr_rdma_flush;
	qpx->wr_set_sge = sfab_wr_set_sge;
	qpx->wr_set_sge_list = sfab_wr_set_sge_list;
	qpx->wr_set_inline_data = sfab_wr_set_inline_data;
	qpx->wr_set_inline_data_list = sfab_wr_set_inline_data_list;
	qpx->wr_set_ud_addr = sfab_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = sfab_wr_set_xrc_srqn;
}

static int sfab_build_recv(struct sfab_wq *wq, const struct ibv_recv_wr *wr)
{
	struct sfab_rwqe_ctrl *ctrl = sfab_wq_slot(wq, wq->pi);
	struct sfab_sge *sge = (struct sfab_sge *)(ctrl + 1);
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge)
		return EINVAL;
	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->wr_id = htole64(wr->wr_id);
	ctrl->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++)
		sfab_sge_set(&sge[i], &wr->sg_list[i]);
	return 0;
}

static int sfab_post_wq_recv(struct sfab_context *ctx, struct sfab_wq *wq,
			     unsigned int db, uint32_t num,
			     struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	unsigned int n = 0;
	int err = 0;

	if (sfab_ctx_lost(ctx)) {
		*bad_wr = wr;
		return EIO;
	}
	pthread_spin_lock(&wq->lock);
	for (; wr; wr = wr->next) {
		if (sfab_wq_full(wq)) {
			err = ENOMEM;
			break;
		}
		err = sfab_build_recv(wq, wr);
		if (err)
			break;
		wq->pi++;
		n++;
	}
	if (n && wq->dbrec)
		sfab_dbrec_publish(wq->dbrec, wq->pi, false);
	/* an SRQ with a record needs no doorbell; an RQ flushes in Error */
	if (n && (!wq->dbrec || db != SFAB_DB_SRQ))
		sfab_db(ctx, db, num, wq->pi, 0);
	pthread_spin_unlock(&wq->lock);

	if (err)
		*bad_wr = wr;
	return err;
}

int sfab_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct sfab_qp *qp = to_sfab_qp(ibvqp);

	if (qp->dv) {
		*bad_wr = wr;
		return EOPNOTSUPP;
	}
	/* an SRQ's QP, an XRC QP: no receive queue */
	if (!qp->rq.ring || ibvqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	return sfab_post_wq_recv(to_sfab_context(ibvqp->context), &qp->rq,
				 SFAB_DB_RQ, qp->qpn, wr, bad_wr);
}

/* ---- shared receive queues ------------------------------------------------------ */

static int sfab_srq_table_set(struct sfab_context *ctx, uint32_t srqn,
			      struct sfab_srq *srq)
{
	if (srqn >= ctx->srq_table_size)
		return EINVAL;
	pthread_mutex_lock(&ctx->qp_table_mutex);
	ctx->srq_table[srqn] = srq;
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	return 0;
}

/*
 * An SRQ whose ring libsfab owns: ibv_create_srq() (@attr->srq_type
 * basic, the legacy command) or an XRC SRQ of ibv_create_srq_ex(), which
 * completes on its own CQ: poll_cq finds it by its number.
 */
static struct ibv_srq *sfab_srq_create(struct ibv_context *context,
				       struct ibv_srq_init_attr_ex *attr)
{
	struct sfab_context *ctx = to_sfab_context(context);
	bool xrc = attr->srq_type == IBV_SRQT_XRC;
	struct sfab_create_srq_ex_resp respx = {};
	struct sfab_create_srq_ex cmdx = {};
	struct sfab_create_srq_resp resp = {};
	struct sfab_create_srq cmd = {};
	struct sfab_ibv_create_srq drv = {};
	struct sfab_srq *srq;
	int log_depth, log_stride;
	int err;

	if (attr->attr.max_sge > ctx->max_srq_sge) {
		errno = EINVAL;
		return NULL;
	}
	log_depth = sfab_log_depth(attr->attr.max_wr, ctx->max_srq_wr);
	log_stride = sfab_rq_log_stride(attr->attr.max_sge ?
					attr->attr.max_sge : 1);
	if (log_depth < 0 || log_stride < 0) {
		errno = EINVAL;
		return NULL;
	}
	/* the host would never see an XRC SRQ's completions */
	if (xrc && (!attr->cq || sfab_cq_is_dv(attr->cq))) {
		errno = EINVAL;
		return NULL;
	}

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	err = sfab_wq_init(ctx, &srq->rq, log_depth, log_stride, false);
	if (err)
		goto err_free;
	srq->rq.max_sge = sfab_rq_max_sge(log_stride);
	if (srq->rq.max_sge > ctx->max_srq_sge)
		srq->rq.max_sge = ctx->max_srq_sge;

	drv.log_depth = log_depth;
	drv.log_stride = log_stride;
	drv.buf_addr = (uintptr_t)srq->rq.ring;
	if (ctx->dbrec) {
		drv.comp_mask |= SFAB_IBV_CREATE_SRQ_DBREC;
		drv.dbrec_off = sfab_dbrec_ring_off(log_depth, log_stride);
	}
	if (xrc) {
		cmdx.drv_payload = drv;
		err = ibv_cmd_create_srq_ex(context, &srq->vsrq, attr,
					    &cmdx.ibv_cmd, sizeof(cmdx),
					    &respx.ibv_resp, sizeof(respx));
		resp.drv_payload = respx.drv_payload;
	} else {
		struct ibv_srq_init_attr legacy = {
			.srq_context = attr->srq_context,
			.attr = attr->attr,
		};

		cmd.drv_payload = drv;
		err = ibv_cmd_create_srq(attr->pd, &srq->vsrq.srq, &legacy,
					 &cmd.ibv_cmd, sizeof(cmd),
					 &resp.ibv_resp, sizeof(resp));
	}
	if (err) {
		verbs_err(&ctx->ibvctx, "Failed to create SRQ: %s\n",
			  strerror(err));
		goto err_free_rq;
	}
	srq->srqn = resp.srqn;
	if (resp.comp_mask & SFAB_IBV_CREATE_SRQ_RESP_DBREC)
		srq->rq.dbrec = sfab_ring_dbrec(srq->rq.ring, log_depth,
						log_stride);
	if (xrc) {
		srq->xrc_cq = to_sfab_cq(attr->cq);
		err = sfab_srq_table_set(ctx, srq->srqn, srq);
		if (err) {
			verbs_err(&ctx->ibvctx,
				  "SRQN %u beyond the device's %u SRQs\n",
				  srq->srqn, ctx->srq_table_size);
			ibv_cmd_destroy_srq(&srq->vsrq.srq);
			goto err_free_rq;
		}
	}
	attr->attr.max_wr = 1U << log_depth;
	attr->attr.max_sge = srq->rq.max_sge;
	return &srq->vsrq.srq;

err_free_rq:
	sfab_wq_destroy(&srq->rq);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

struct ibv_srq *sfab_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC,
		.pd = pd,
	};
	struct ibv_srq *srq;

	srq = sfab_srq_create(pd->context, &ex);
	if (srq)
		attr->attr = ex.attr;
	return srq;
}

struct ibv_srq *sfab_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	struct sfab_context *ctx = to_sfab_context(context);
	const uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	enum ibv_srq_type type = attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE ?
				 attr->srq_type : IBV_SRQT_BASIC;

	if (attr->comp_mask & ~known ||
	    (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC) ||
	    (type == IBV_SRQT_XRC && !ctx->has_xrc)) {
		verbs_err(&ctx->ibvctx,
			  "ibv_create_srq_ex: comp_mask %#x, type %d: sfab takes basic and XRC SRQs\n",
			  attr->comp_mask, type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    (type == IBV_SRQT_XRC &&
	     ((attr->comp_mask & (IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)) !=
	      (IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ) ||
	      !attr->xrcd || !attr->cq))) {
		errno = EINVAL;
		return NULL;
	}
	attr->srq_type = type;
	return sfab_srq_create(context, attr);
}

int sfab_get_srq_num(struct ibv_srq *ibvsrq, uint32_t *srq_num)
{
	*srq_num = to_sfab_srq(ibvsrq)->srqn;
	return 0;
}

/*
 * IBV_SRQ_MAX_WR: a new ring of the same stride; the kernel has the
 * device copy the WQEs not completed to the same indices of it.  Under
 * the SRQ lock throughout: no post, and no completion count, moves the
 * indices the device is told.
 */
static int sfab_resize_srq(struct sfab_srq *srq, struct ibv_srq_attr *attr,
			   int attr_mask)
{
	struct sfab_context *ctx = to_sfab_context(srq->vsrq.srq.context);
	struct sfab_wq *rq = &srq->rq;
	struct sfab_modify_srq cmd = {};
	struct sfab_dbrec *dbrec = NULL;
	int log_depth;
	size_t size;
	void *ring;
	int err;

	log_depth = sfab_log_depth(attr->max_wr ? attr->max_wr : 1,
				   ctx->max_srq_wr);
	if (log_depth < 0)
		return EINVAL;
	size = sfab_ring_buf_len(ctx, log_depth, rq->log_stride);
	ring = sfab_ring_alloc(ctx, &size);
	if (!ring)
		return ENOMEM;
	cmd.drv_payload.comp_mask = SFAB_IBV_MODIFY_SRQ_RESIZE;
	cmd.drv_payload.log_depth = log_depth;
	cmd.drv_payload.buf_addr = (uintptr_t)ring;
	if (rq->dbrec) {
		cmd.drv_payload.comp_mask |= SFAB_IBV_MODIFY_SRQ_DBREC;
		cmd.drv_payload.dbrec_off =
			sfab_dbrec_ring_off(log_depth, rq->log_stride);
		dbrec = sfab_ring_dbrec(ring, log_depth, rq->log_stride);
	}

	pthread_spin_lock(&rq->lock);
	/* more WQEs waiting than the new ring holds: the device refuses too */
	if ((uint16_t)(rq->pi - rq->ci) > (1U << log_depth)) {
		err = EINVAL;
		goto out_unlock;
	}
	cmd.drv_payload.ci = rq->ci;
	cmd.drv_payload.pi = rq->pi;
	if (dbrec)
		sfab_dbrec_set(dbrec, rq->pi);
	err = ibv_cmd_modify_srq(&srq->vsrq.srq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (err)
		goto out_unlock;
	sfab_ring_buf_free(rq->ring, rq->ring_size);
	rq->ring = ring;
	rq->ring_size = size;
	rq->log_depth = log_depth;
	rq->dbrec = dbrec;
	ring = NULL;
out_unlock:
	pthread_spin_unlock(&rq->lock);
	if (ring)
		sfab_ring_buf_free(ring, size);
	return err;
}

int sfab_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_srq cmd;

	if (attr_mask & IBV_SRQ_MAX_WR)
		return sfab_resize_srq(to_sfab_srq(ibvsrq), attr, attr_mask);
	return ibv_cmd_modify_srq(ibvsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int sfab_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(ibvsrq, attr, &cmd, sizeof(cmd));
}

int sfab_destroy_srq(struct ibv_srq *ibvsrq)
{
	struct sfab_context *ctx = to_sfab_context(ibvsrq->context);
	struct sfab_srq *srq = to_sfab_srq(ibvsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibvsrq);
	if (err)
		return err;
	if (srq->xrc_cq) {
		/* a poll holds the CQ lock while it uses the SRQ */
		pthread_spin_lock(&srq->xrc_cq->lock);
		sfab_srq_table_set(ctx, srq->srqn, NULL);
		pthread_spin_unlock(&srq->xrc_cq->lock);
		sfab_cq_clean_srq(srq->xrc_cq, srq->srqn);
	}
	sfab_wq_destroy(&srq->rq);
	free(srq);
	return 0;
}

int sfab_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct sfab_srq *srq = to_sfab_srq(ibvsrq);

	return sfab_post_wq_recv(to_sfab_context(ibvsrq->context), &srq->rq,
				 SFAB_DB_SRQ, srq->srqn, wr, bad_wr);
}

/* ---- address handles and memory regions ----------------------------------------- */

struct ibv_ah *sfab_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct sfab_ah *ah;

	/* the port has one GID: index 0 */
	if (attr->port_num != 1 ||
	    (attr->is_global && attr->grh.sgid_index)) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ah->dlid = attr->dlid;
	ah->sl = attr->sl;
	ah->src_path_bits = attr->src_path_bits;
	ah->port_num = attr->port_num;
	if (attr->is_global) {
		ah->is_global = true;
		memcpy(ah->grh.dgid, attr->grh.dgid.raw, sizeof(ah->grh.dgid));
		ah->grh.flow_label = htole32(attr->grh.flow_label & 0xfffff);
		ah->grh.sgid_index = attr->grh.sgid_index;
		ah->grh.hop_limit = attr->grh.hop_limit;
		ah->grh.traffic_class = attr->grh.traffic_class;
	}
	return &ah->ibvah;
}

int sfab_destroy_ah(struct ibv_ah *ibvah)
{
	free(to_sfab_ah(ibvah));
	return 0;
}

struct ibv_mr *sfab_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * ibv_rereg_mr(): the kernel registers the MR again with what changes and
 * puts it in the old one's place; the keys are new.
 */
int sfab_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

int sfab_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(vmr);
	return 0;
}

/* ---- memory windows ------------------------------------------------------------ */

struct ibv_mw *sfab_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return mw;
}

int sfab_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;
	free(mw);
	return 0;
}

/*
 * ibv_bind_mw(): a type 1 window, through a BIND_MW WQE on @ibvqp with
 * the window's next key, which mw->rkey holds once it is posted (the
 * bind's completion says whether it took).
 */
int sfab_bind_mw(struct ibv_qp *ibvqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
	};
	struct ibv_send_wr *bad_wr;
	int err;

	/* the device checks the PDs: MW_BIND_ERR, as IBA has it */
	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	err = sfab_post_send(ibvqp, &wr, &bad_wr);
	if (err)
		return err;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

/* ---- queues in caller memory (sfabdv, SFAB_1.1) ------------------------------- */

/*
 * A record's place in a dma-buf, as an offset from its ring (what the
 * kernel takes): the caller's (@want, @given) or right after the ring;
 * EINVAL where sfab_ring_dbrec_off_ok() refuses it, before the kernel
 * does.
 */
static int sfab_dv_dbrec_off(struct ibv_context *ibvctx, uint64_t ring,
			     uint64_t ring_len, bool given, uint64_t want,
			     __u64 *off)
{
	uint64_t o = ring_len;

	if (given) {
		if (want < ring)
			return EINVAL;
		o = want - ring;
	}
	if (!o || !sfab_ring_dbrec_off_ok(ring_len, o,
					  to_sfab_dev(ibvctx->device)->pg_sz))
		return EINVAL;
	*off = o;
	return 0;
}

struct ibv_cq *sfabdv_create_cq(struct ibv_context *ibvctx,
				struct sfabdv_cq_init_attr *attr)
{
	struct sfab_create_cq_resp resp = {};
	struct sfab_create_cq cmd = {};
	struct sfab_context *ctx;
	struct sfab_cq *cq;
	uint64_t ring_len;
	int log_depth;
	bool given;
	int err;

	if (!is_sfab_dev(ibvctx->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = to_sfab_context(ibvctx);
	if (attr->comp_mask & ~(uint64_t)SFABDV_CQ_INIT_ATTR_MASK_DBREC_OFFSET) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	given = attr->comp_mask & SFABDV_CQ_INIT_ATTR_MASK_DBREC_OFFSET;
	if (given && !ctx->dbrec) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	log_depth = sfab_log_depth(attr->cqe, ctx->max_cqe);
	if (!attr->cqe || attr->cqe > INT32_MAX || log_depth < 0 ||
	    attr->dmabuf_fd < 0) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->dv = true;
	cq->log_depth = log_depth;
	cq->dv_ring_offset = attr->ring_offset;
	ring_len = (uint64_t)sizeof(struct sfab_cqe) << log_depth;

	cmd.comp_mask = SFAB_IBV_CREATE_CQ_DMABUF;
	cmd.log_depth = log_depth;
	cmd.buf_addr = attr->ring_offset;
	cmd.dmabuf_fd = attr->dmabuf_fd;
	if (ctx->dbrec) {
		err = sfab_dv_dbrec_off(ibvctx, attr->ring_offset, ring_len,
					given, attr->dbrec_offset,
					&cmd.dbrec_off);
		if (err)
			goto err_free;
		cmd.comp_mask |= SFAB_IBV_CREATE_CQ_DBREC;
	}
	err = ibv_cmd_create_cq(ibvctx, attr->cqe, attr->channel,
				attr->comp_vector, &cq->vcq.cq, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "Failed to create a dma-buf CQ: %s\n",
			  strerror(err));
		goto err_free;
	}
	cq->cqn = resp.cqn;
	if (resp.comp_mask & SFAB_IBV_CREATE_CQ_RESP_DBREC) {
		cq->dv_dbrec = true;
		cq->dv_dbrec_offset = attr->ring_offset + cmd.dbrec_off;
	}
	/* what ibv_create_cq() does after the provider's create_cq */
	verbs_init_cq(&cq->vcq.cq, ibvctx, attr->channel, attr->cq_context);
	return &cq->vcq.cq;

err_free:
	pthread_spin_destroy(&cq->lock);
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_qp *sfabdv_create_qp(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *qp_attr,
				struct sfabdv_qp_init_attr *sfab_attr)
{
	struct sfab_create_qp_resp resp = {};
	struct sfab_create_qp cmd = {};
	struct ibv_qp_init_attr attr = {};
	struct sfab_context *ctx;
	struct sfab_qp_geom g;
	struct sfab_qp *qp;
	uint64_t sq_len, rq_len;
	bool given;
	int err;

	if (!is_sfab_dev(ibvctx->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = to_sfab_context(ibvctx);
	/* a PD, nothing of the extended attributes, no SRQ */
	if (qp_attr->comp_mask != IBV_QP_INIT_ATTR_PD ||
	    sfab_attr->comp_mask &
	    ~(uint64_t)SFABDV_QP_INIT_ATTR_MASK_DBREC_OFFSET ||
	    qp_attr->srq) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	given = sfab_attr->comp_mask & SFABDV_QP_INIT_ATTR_MASK_DBREC_OFFSET;
	if (given && !ctx->dbrec) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* its completions go where its owner polls: CQs in caller memory */
	if (!qp_attr->pd || qp_attr->pd->context != ibvctx ||
	    !sfab_cq_is_dv(qp_attr->send_cq) ||
	    !sfab_cq_is_dv(qp_attr->recv_cq) || sfab_attr->dmabuf_fd < 0) {
		errno = EINVAL;
		return NULL;
	}
	attr.qp_context = qp_attr->qp_context;
	attr.send_cq = qp_attr->send_cq;
	attr.recv_cq = qp_attr->recv_cq;
	attr.cap = qp_attr->cap;
	attr.qp_type = qp_attr->qp_type;
	attr.sq_sig_all = qp_attr->sq_sig_all;
	err = sfab_qp_geometry(ctx, &attr, &g);
	if (err) {
		errno = err;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE)) {
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE)) {
		err = ENOMEM;
		goto err_sq_lock;
	}
	qp->dv = true;
	qp->sig_all = attr.sq_sig_all;
	qp->dv_sq_offset = sfab_attr->sq_offset;
	qp->dv_rq_offset = sfab_attr->rq_offset;
	sq_len = 1ULL << (g.sq_log + g.sq.log_stride);
	rq_len = 1ULL << (g.rq_log + g.rq_stride);

	cmd.comp_mask = SFAB_IBV_CREATE_QP_DMABUF;
	cmd.dmabuf_fd = sfab_attr->dmabuf_fd;
	cmd.sq_log_depth = g.sq_log;
	cmd.sq_log_stride = g.sq.log_stride;
	cmd.sq_buf_addr = sfab_attr->sq_offset;
	cmd.rq_log_depth = g.rq_log;
	cmd.rq_log_stride = g.rq_stride;
	cmd.rq_buf_addr = sfab_attr->rq_offset;
	if (ctx->dbrec) {
		err = sfab_dv_dbrec_off(ibvctx, sfab_attr->sq_offset, sq_len,
					given, sfab_attr->sq_dbrec_offset,
					&cmd.sq_dbrec_off);
		if (!err)
			err = sfab_dv_dbrec_off(ibvctx, sfab_attr->rq_offset,
						rq_len, given,
						sfab_attr->rq_dbrec_offset,
						&cmd.rq_dbrec_off);
		if (err)
			goto err_rq_lock;
		cmd.comp_mask |= SFAB_IBV_CREATE_QP_DBREC;
	}
	err = ibv_cmd_create_qp(qp_attr->pd, &qp->vqp.qp, &attr, &cmd.ibv_cmd,
				sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "Failed to create a dma-buf QP: %s\n",
			  strerror(err));
		goto err_rq_lock;
	}
	qp->qpn = resp.qpn;
	if (resp.comp_mask & SFAB_IBV_CREATE_QP_RESP_DBREC) {
		qp->dv_dbrec = true;
		qp->dv_sq_dbrec_offset = sfab_attr->sq_offset + cmd.sq_dbrec_off;
		qp->dv_rq_dbrec_offset = sfab_attr->rq_offset + cmd.rq_dbrec_off;
	}
	sfab_qp_set_caps(ctx, qp, &g, false, &attr.cap);
	qp_attr->cap = attr.cap;
	/* not in the QP table: no CQ the host polls carries its completions */
	return &qp->vqp.qp;

err_rq_lock:
	pthread_spin_destroy(&qp->rq.lock);
err_sq_lock:
	pthread_spin_destroy(&qp->sq.lock);
	free(qp);
	errno = err;
	return NULL;
}

int sfabdv_query_cq(struct ibv_cq *ibvcq, struct sfabdv_cq_attr *attr,
		    uint32_t inlen)
{
	struct sfab_cq *cq;

	if (!is_sfab_dev(ibvcq->context->device))
		return EOPNOTSUPP;
	cq = to_sfab_cq(ibvcq);
	/* every field up to db_offset is there since SFAB_1.1 */
	if (!cq->dv || inlen < offsetofend(typeof(*attr), db_offset))
		return EINVAL;
	memset(attr, 0, inlen);
	attr->cqn = cq->cqn;
	attr->ring_offset = cq->dv_ring_offset;
	if (cq->dv_dbrec) {
		attr->flags |= SFABDV_QUEUE_DBREC;
		attr->dbrec_offset = cq->dv_dbrec_offset;
	}
	attr->log_depth = cq->log_depth;
	attr->log_stride = SFAB_CQE_LOG_STRIDE;
	attr->db_offset = SFAB_DB_CQ;
	return 0;
}

int sfabdv_query_qp(struct ibv_qp *ibvqp, struct sfabdv_qp_attr *attr,
		    uint32_t inlen)
{
	struct sfab_qp *qp;

	if (!is_sfab_dev(ibvqp->context->device))
		return EOPNOTSUPP;
	qp = to_sfab_qp(ibvqp);
	/* every field up to max_inline_data is there since SFAB_1.1 */
	if (!qp->dv || inlen < offsetofend(typeof(*attr), max_inline_data))
		return EINVAL;
	memset(attr, 0, inlen);
	attr->qpn = qp->qpn;
	attr->sq_offset = qp->dv_sq_offset;
	attr->rq_offset = qp->dv_rq_offset;
	if (qp->dv_dbrec) {
		attr->flags |= SFABDV_QUEUE_DBREC;
		attr->sq_dbrec_offset = qp->dv_sq_dbrec_offset;
		attr->rq_dbrec_offset = qp->dv_rq_dbrec_offset;
	}
	attr->sq_log_depth = qp->sq.log_depth;
	attr->sq_log_stride = qp->sq.log_stride;
	attr->rq_log_depth = qp->rq.log_depth;
	attr->rq_log_stride = qp->rq.log_stride;
	attr->sq_db_offset = SFAB_DB_SQ;
	attr->rq_db_offset = SFAB_DB_RQ;
	attr->max_send_sge = qp->sq.max_sge;
	attr->max_recv_sge = qp->rq.max_sge;
	attr->max_inline_data = qp->max_inline;
	return 0;
}
