// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab kernel verbs datapath: completion queues, UD/SMI/GSI queue pairs,
 * address handles, the DMA MR, completion event queue processing and
 * the port capability mask (include/sfab/sfab_queue.h).
 *
 * Kernel queues live in coherent DMA memory (SFAB_RING_CONTIG) and ring
 * doorbell page 0.  The kernel verbs ops are offered only when the device
 * accepted a CREATE_CQ at probe (sfab_datapath_probe()): a device without
 * the datapath keeps ib_core from taking sfab for a kernel verbs provider,
 * so ib_mad and the other kernel clients leave it alone.  User CQs and QPs
 * are not supported yet (-EOPNOTSUPP).
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/slab.h>

#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include "sfab.h"
#include "sfab_com_cmd.h"

/* the probe-time CREATE_CQ: one page of CQEs */
#define SFAB_PROBE_CQ_LOG_DEPTH		7

static void sfab_ring_desc_contig(struct sfab_ring_desc *d, dma_addr_t dma,
				  u8 log_depth, u8 log_stride)
{
	memset(d, 0, sizeof(*d));
	d->addr = cpu_to_le64(dma);
	d->log_depth = log_depth;
	d->log_stride = log_stride;
	d->flags = SFAB_RING_CONTIG;
}

static void sfab_db_ring(struct sfab_dev *dev, unsigned int reg, u32 num,
			 u16 idx, u8 arm)
{
	/* writeq() orders the ring's coherent memory writes before it */
	writeq(sfab_db_val(num, idx, arm), dev->kdb + reg);
}

/* ---- completion event queues ------------------------------------------------ */

/**
 * sfab_eq_process() - report the CQs a completion EQ names
 * @eq: the EQ; called from its interrupt only
 *
 * A CQ is found by CQN in @dev->cq_xa.  sfab_destroy_cq() erases it once
 * the device has stopped signalling it and then waits for this
 * interrupt's running instance, so the CQ outlives its use here.
 */
void sfab_eq_process(struct sfab_eq *eq)
{
	struct sfab_dev *dev = eq->dev;
	void __iomem *kdb;
	struct sfab_eqe *e;
	struct sfab_cq *cq;
	unsigned int n;
	u32 cqn;

	for (n = 0; n < SFAB_EQ_DEPTH; n++) {
		e = &eq->ring[sfab_ring_slot(eq->cc, SFAB_EQ_LOG_DEPTH)];
		if (!sfab_ring_entry_is_new(READ_ONCE(e->flags) &
					    SFAB_EQE_FLAGS_PHASE,
					    eq->cc, SFAB_EQ_LOG_DEPTH))
			break;
		/* read the entry's other fields only after its phase bit */
		dma_rmb();
		cqn = le32_to_cpu(e->cqn);
		eq->cc++;
		cq = xa_load(&dev->cq_xa, cqn);
		if (!cq) {
			dev_warn_ratelimited(&dev->pdev->dev,
					     "EQ %u: completion event for unknown CQ %u\n",
					     eq->eqn, cqn);
			continue;
		}
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
	/* sfab_kdb_unmap() waits for this interrupt after clearing it */
	kdb = READ_ONCE(dev->kdb);
	if (n && kdb)
		writeq(sfab_db_val(eq->eqn, eq->cc, 0), kdb + SFAB_DB_EQ);
}

/* ---- completion queues -------------------------------------------------------- */

static size_t sfab_cq_ring_size(u8 log_depth)
{
	return sizeof(struct sfab_cqe) << log_depth;
}

int sfab_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs)
{
	struct sfab_dev *dev = to_sfab_dev(ibcq->device);
	struct sfab_cq *cq = to_sfab_cq(ibcq);
	struct sfab_aq_create_cq params;
	int log_depth;
	int err;

	/* user CQs come with the user-space datapath */
	if (attrs || !dev->has_datapath)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= dev->num_eqs)
		return -EINVAL;
	log_depth = sfab_queue_log_depth(attr->cqe,
					 le32_to_cpu(dev->attr.max_cqe));
	if (log_depth < 0) {
		ibdev_dbg(ibcq->device, "create_cq: %u entries unsupported\n",
			  attr->cqe);
		return log_depth;
	}

	cq->log_depth = log_depth;
	cq->cc = 0;
	cq->eq = &dev->eqs[attr->comp_vector];
	spin_lock_init(&cq->lock);
	/* zeroed: phase 0 marks every entry as the driver's */
	cq->ring = dma_alloc_coherent(&dev->pdev->dev,
				      sfab_cq_ring_size(log_depth), &cq->dma,
				      GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;

	sfab_ring_desc_contig(&params.ring, cq->dma, log_depth,
			      SFAB_CQE_LOG_STRIDE);
	params.eqn = cpu_to_le32(cq->eq->eqn);
	params.db_page = 0;
	params.reserved0 = 0;
	params.reserved1 = 0;
	err = sfab_com_create_cq(&dev->edev, &params, &cq->cqn);
	if (err)
		goto err_free_ring;

	err = xa_err(xa_store(&dev->cq_xa, cq->cqn, cq, GFP_KERNEL));
	if (err)
		goto err_destroy;

	ibcq->cqe = 1U << log_depth;
	return 0;

err_destroy:
	if (sfab_com_destroy_cq(&dev->edev, cq->cqn))
		sfab_com_quiesce(&dev->edev);
err_free_ring:
	dma_free_coherent(&dev->pdev->dev, sfab_cq_ring_size(log_depth),
			  cq->ring, cq->dma);
	return err;
}

int sfab_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibcq->device);
	struct sfab_cq *cq = to_sfab_cq(ibcq);

	/* a ring the device may still write must not be freed: stop it */
	if (sfab_com_destroy_cq(&dev->edev, cq->cqn))
		sfab_com_quiesce(&dev->edev);
	xa_erase(&dev->cq_xa, cq->cqn);
	/* the EQ interrupt may have found the CQ just before */
	synchronize_irq(pci_irq_vector(dev->pdev, cq->eq->vector));
	dma_free_coherent(&dev->pdev->dev, sfab_cq_ring_size(cq->log_depth),
			  cq->ring, cq->dma);
	return 0;
}

static int sfab_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sfab_dev *dev = to_sfab_dev(ibcq->device);
	struct sfab_cq *cq = to_sfab_cq(ibcq);
	struct sfab_cqe *cqe;
	struct sfab_qp *qp;
	unsigned long flags;
	u16 start, slot;
	bool hide;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	start = cq->cc;
	while (n < num_entries) {
		cqe = &cq->ring[sfab_ring_slot(cq->cc, cq->log_depth)];
		if (!sfab_cqe_is_new(cqe, cq->cc, cq->log_depth))
			break;
		/* read the entry's other fields only after its phase bit */
		dma_rmb();
		cq->cc++;

		/* a QP in destruction waits for this lock: it stays valid */
		qp = xa_load(&dev->qp_xa, sfab_cqe_qpn(cqe));
		if (!qp) {
			/* sfab_cq_clean() dropped it, or the device is wrong */
			if (sfab_cqe_qpn(cqe) != SFAB_CQE_QPN_MASK)
				ibdev_warn_ratelimited(ibcq->device,
						       "CQ %u: completion for unknown QP %u\n",
						       cq->cqn, sfab_cqe_qpn(cqe));
			continue;
		}
		sfab_cqe_to_wc(cqe, &wc[n]);
		if (sfab_cqe_is_recv(cqe)) {
			WRITE_ONCE(qp->rq.ci, qp->rq.ci + 1);
		} else {
			/* every send WQE completes, in order; errors always show */
			slot = sfab_ring_slot(qp->sq.ci, qp->sq.log_depth);
			hide = wc[n].status == IB_WC_SUCCESS &&
			       test_bit(slot, qp->sq.unsignaled);
			WRITE_ONCE(qp->sq.ci, qp->sq.ci + 1);
			if (hide)
				continue;
		}
		wc[n].qp = &qp->ibqp;
		wc[n].port_num = qp->port_num;
		n++;
	}
	if (cq->cc != start)
		sfab_db_ring(dev, SFAB_DB_CQ, cq->cqn, cq->cc, SFAB_DB_ARM_NONE);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int sfab_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sfab_dev *dev = to_sfab_dev(ibcq->device);
	struct sfab_cq *cq = to_sfab_cq(ibcq);
	unsigned long irqflags;
	u8 arm;
	int ret = 0;

	arm = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	      SFAB_DB_ARM_SOLICITED : SFAB_DB_ARM_NEXT;

	spin_lock_irqsave(&cq->lock, irqflags);
	sfab_db_ring(dev, SFAB_DB_CQ, cq->cqn, cq->cc, arm);
	/* a CQE that came before the arm raises no event: say so */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    sfab_cqe_is_new(&cq->ring[sfab_ring_slot(cq->cc, cq->log_depth)],
			    cq->cc, cq->log_depth))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/* ---- queue pairs ------------------------------------------------------------- */

static size_t sfab_wq_size(const struct sfab_wq *wq)
{
	return (size_t)1 << (wq->log_depth + wq->log_stride);
}

static int sfab_wq_alloc(struct sfab_dev *dev, struct sfab_wq *wq,
			 u8 log_depth, u8 log_stride, bool send)
{
	wq->log_depth = log_depth;
	wq->log_stride = log_stride;
	wq->pi = 0;
	wq->ci = 0;
	spin_lock_init(&wq->lock);
	if (send) {
		wq->unsignaled = bitmap_zalloc(1U << log_depth, GFP_KERNEL);
		if (!wq->unsignaled)
			return -ENOMEM;
	}
	wq->ring = dma_alloc_coherent(&dev->pdev->dev, sfab_wq_size(wq),
				      &wq->dma, GFP_KERNEL);
	if (!wq->ring) {
		bitmap_free(wq->unsignaled);
		return -ENOMEM;
	}
	return 0;
}

static void sfab_wq_free(struct sfab_dev *dev, struct sfab_wq *wq)
{
	dma_free_coherent(&dev->pdev->dev, sfab_wq_size(wq), wq->ring, wq->dma);
	bitmap_free(wq->unsignaled);
}

static int sfab_qp_type(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_SMI:	return SFAB_QPT_SMI;
	case IB_QPT_GSI:	return SFAB_QPT_GSI;
	case IB_QPT_UD:		return SFAB_QPT_UD;
	default:		return -EOPNOTSUPP;
	}
}

/* work queue geometry from the consumer's caps; writes back what it got */
static int sfab_qp_geometry(struct sfab_dev *dev, struct ib_qp_cap *cap,
			    u8 *sq_log, u8 *sq_stride, u8 *rq_log,
			    u8 *rq_stride)
{
	u32 max_wr = le32_to_cpu(dev->attr.max_qp_wr);
	u32 max_sge = le32_to_cpu(dev->attr.max_sge);
	int sl, ss, rl, rs;

	if (cap->max_send_sge > max_sge || cap->max_recv_sge > max_sge ||
	    cap->max_inline_data > le32_to_cpu(dev->attr.max_inline))
		return -EINVAL;
	sl = sfab_queue_log_depth(max(cap->max_send_wr, 1U), max_wr);
	rl = sfab_queue_log_depth(max(cap->max_recv_wr, 1U), max_wr);
	ss = sfab_sq_log_stride(max(cap->max_send_sge, 1U),
				cap->max_inline_data);
	rs = sfab_rq_log_stride(max(cap->max_recv_sge, 1U));
	if (sl < 0 || rl < 0 || ss < 0 || rs < 0)
		return -EINVAL;

	*sq_log = sl;
	*sq_stride = ss;
	*rq_log = rl;
	*rq_stride = rs;
	cap->max_send_wr = 1U << sl;
	cap->max_recv_wr = 1U << rl;
	cap->max_send_sge = ((1U << ss) - SFAB_UD_WQE_HDR_LEN) /
			    sizeof(struct sfab_sge);
	cap->max_recv_sge = ((1U << rs) - sizeof(struct sfab_rwqe_ctrl)) /
			    sizeof(struct sfab_sge);
	cap->max_send_sge = min(cap->max_send_sge, max_sge);
	cap->max_recv_sge = min(cap->max_recv_sge, max_sge);
	cap->max_inline_data = min_t(u32, le32_to_cpu(dev->attr.max_inline),
				     (1U << ss) - SFAB_UD_WQE_HDR_LEN -
				     sizeof(struct sfab_wqe_inline));
	return 0;
}

int sfab_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	struct sfab_aq_create_qp params;
	u8 sq_log, sq_stride, rq_log, rq_stride;
	int type;
	int err;

	/* user QPs come with the user-space datapath, RC and UC later */
	if (udata || !dev->has_datapath)
		return -EOPNOTSUPP;
	type = sfab_qp_type(init_attr->qp_type);
	if (type < 0)
		return type;
	if (init_attr->create_flags || init_attr->srq)
		return -EOPNOTSUPP;
	if ((type == SFAB_QPT_SMI || type == SFAB_QPT_GSI) &&
	    init_attr->port_num != SFAB_PORT_NUM)
		return -EINVAL;

	err = sfab_qp_geometry(dev, &init_attr->cap, &sq_log, &sq_stride,
			       &rq_log, &rq_stride);
	if (err) {
		ibdev_dbg(ibqp->device, "create_qp: unsupported caps\n");
		return err;
	}

	qp->port_num = SFAB_PORT_NUM;
	qp->sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->max_send_sge = init_attr->cap.max_send_sge;
	qp->max_recv_sge = init_attr->cap.max_recv_sge;
	qp->max_inline = init_attr->cap.max_inline_data;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->state_lock);

	err = sfab_wq_alloc(dev, &qp->sq, sq_log, sq_stride, true);
	if (err)
		return err;
	err = sfab_wq_alloc(dev, &qp->rq, rq_log, rq_stride, false);
	if (err)
		goto err_free_sq;

	memset(&params, 0, sizeof(params));
	sfab_ring_desc_contig(&params.sq, qp->sq.dma, sq_log, sq_stride);
	sfab_ring_desc_contig(&params.rq, qp->rq.dma, rq_log, rq_stride);
	params.send_cqn = cpu_to_le32(to_sfab_cq(init_attr->send_cq)->cqn);
	params.recv_cqn = cpu_to_le32(to_sfab_cq(init_attr->recv_cq)->cqn);
	params.pdn = cpu_to_le32(to_sfab_pd(ibqp->pd)->pdn);
	params.db_page = 0;
	params.qp_type = type;
	params.port_num = type == SFAB_QPT_UD ? 0 : init_attr->port_num;
	params.flags = cpu_to_le32(SFAB_QP_PRIV);
	err = sfab_com_create_qp(&dev->edev, &params, &qp->qpn);
	if (err)
		goto err_free_rq;

	err = xa_err(xa_store(&dev->qp_xa, qp->qpn, qp, GFP_KERNEL));
	if (err)
		goto err_destroy;

	ibqp->qp_num = qp->qpn;
	return 0;

err_destroy:
	if (sfab_com_destroy_qp(&dev->edev, qp->qpn))
		sfab_com_quiesce(&dev->edev);
err_free_rq:
	sfab_wq_free(dev, &qp->rq);
err_free_sq:
	sfab_wq_free(dev, &qp->sq);
	return err;
}

/*
 * Drop the completions of a destroyed QP still waiting in a CQ: a QP
 * created later with the same number must not take them for its own.
 * The device wrote them already; the driver owns them.
 */
static void sfab_cq_clean(struct sfab_cq *cq, u32 qpn)
{
	struct sfab_cqe *cqe;
	u32 qo;
	u16 i;

	spin_lock_irq(&cq->lock);
	for (i = cq->cc; ; i++) {
		cqe = &cq->ring[sfab_ring_slot(i, cq->log_depth)];
		if (!sfab_cqe_is_new(cqe, i, cq->log_depth) ||
		    (u16)(i - cq->cc) >= 1U << cq->log_depth)
			break;
		dma_rmb();
		qo = le32_to_cpu(cqe->qpn_opcode);
		if (FIELD_GET(SFAB_CQE_QPN_MASK, qo) == qpn)
			cqe->qpn_opcode = cpu_to_le32(qo | SFAB_CQE_QPN_MASK);
	}
	spin_unlock_irq(&cq->lock);
}

int sfab_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	struct sfab_cq *scq = to_sfab_cq(ibqp->send_cq);
	struct sfab_cq *rcq = to_sfab_cq(ibqp->recv_cq);

	/* rings the device may still touch must not be freed: stop it */
	if (sfab_com_destroy_qp(&dev->edev, qp->qpn))
		sfab_com_quiesce(&dev->edev);
	xa_erase(&dev->qp_xa, qp->qpn);
	/* a poll that found the QP holds its CQ's lock: this waits for it */
	sfab_cq_clean(scq, qp->qpn);
	if (rcq != scq)
		sfab_cq_clean(rcq, qp->qpn);

	sfab_wq_free(dev, &qp->rq);
	sfab_wq_free(dev, &qp->sq);
	mutex_destroy(&qp->state_lock);
	return 0;
}

#define SFAB_QP_ATTR_UNSUPPORTED (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | \
				  IB_QP_EN_SQD_ASYNC_NOTIFY | IB_QP_CAP | \
				  IB_QP_RATE_LIMIT)

static u32 sfab_access_flags(int ib_flags)
{
	/* IB_ACCESS_* bits as they are, until memory registration defines its own */
	return ib_flags & (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			   IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC);
}

int sfab_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	enum ib_qp_state cur, next;
	struct sfab_aq_modify_qp p;
	u32 am = 0;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (mask & SFAB_QP_ATTR_UNSUPPORTED)
		return -EOPNOTSUPP;

	mutex_lock(&qp->state_lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		ibdev_dbg(ibqp->device, "modify_qp %u: %d -> %d with mask %#x refused\n",
			  qp->qpn, cur, next, mask);
		err = -EINVAL;
		goto out;
	}
	if (((mask & IB_QP_PORT) && attr->port_num != SFAB_PORT_NUM) ||
	    ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)) {
		err = -EINVAL;
		goto out;
	}

	memset(&p, 0, sizeof(p));
	p.qpn = cpu_to_le32(qp->qpn);
	if (mask & IB_QP_STATE) {
		am |= SFAB_QP_ATTR_STATE;
		p.state = next;
	}
	if (mask & IB_QP_QKEY) {
		am |= SFAB_QP_ATTR_QKEY;
		p.qkey = cpu_to_le32(attr->qkey);
	}
	if (mask & IB_QP_PKEY_INDEX) {
		am |= SFAB_QP_ATTR_PKEY_INDEX;
		p.pkey_index = cpu_to_le16(attr->pkey_index);
	}
	if (mask & IB_QP_PORT) {
		am |= SFAB_QP_ATTR_PORT;
		p.port_num = attr->port_num;
	}
	if (mask & IB_QP_SQ_PSN) {
		am |= SFAB_QP_ATTR_SQ_PSN;
		p.sq_psn = cpu_to_le32(attr->sq_psn & 0xffffff);
	}
	if (mask & IB_QP_RQ_PSN) {
		am |= SFAB_QP_ATTR_RQ_PSN;
		p.rq_psn = cpu_to_le32(attr->rq_psn & 0xffffff);
	}
	if (mask & IB_QP_DEST_QPN) {
		am |= SFAB_QP_ATTR_DEST_QPN;
		p.dest_qpn = cpu_to_le32(attr->dest_qp_num & 0xffffff);
	}
	if (mask & IB_QP_PATH_MTU) {
		am |= SFAB_QP_ATTR_PATH_MTU;
		p.path_mtu = attr->path_mtu;
	}
	if (mask & IB_QP_AV) {
		am |= SFAB_QP_ATTR_AV;
		p.dlid = cpu_to_le16(rdma_ah_get_dlid(&attr->ah_attr));
		p.sl = rdma_ah_get_sl(&attr->ah_attr);
		p.src_path_bits = rdma_ah_get_path_bits(&attr->ah_attr);
	}
	if (mask & IB_QP_ACCESS_FLAGS) {
		am |= SFAB_QP_ATTR_ACCESS;
		p.access_flags = cpu_to_le32(sfab_access_flags(attr->qp_access_flags));
	}
	if (mask & IB_QP_TIMEOUT) {
		am |= SFAB_QP_ATTR_TIMEOUT;
		p.timeout = attr->timeout;
	}
	if (mask & (IB_QP_RETRY_CNT | IB_QP_RNR_RETRY)) {
		am |= SFAB_QP_ATTR_RETRY;
		p.retry_cnt = attr->retry_cnt;
		p.rnr_retry = attr->rnr_retry;
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		am |= SFAB_QP_ATTR_MIN_RNR_TIMER;
		p.min_rnr_timer = attr->min_rnr_timer;
	}
	if (mask & (IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC)) {
		am |= SFAB_QP_ATTR_RD_ATOMIC;
		p.max_rd_atomic = attr->max_rd_atomic;
		p.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	}
	p.attr_mask = cpu_to_le32(am);

	err = sfab_com_modify_qp(&dev->edev, &p);
	if (err)
		goto out;

	if (next == IB_QPS_RESET && cur != IB_QPS_RESET) {
		/* the device forgot the rings' contents: start them over */
		sfab_cq_clean(to_sfab_cq(ibqp->send_cq), qp->qpn);
		if (ibqp->recv_cq != ibqp->send_cq)
			sfab_cq_clean(to_sfab_cq(ibqp->recv_cq), qp->qpn);
		spin_lock_irq(&qp->sq.lock);
		qp->sq.pi = 0;
		WRITE_ONCE(qp->sq.ci, 0);
		spin_unlock_irq(&qp->sq.lock);
		spin_lock_irq(&qp->rq.lock);
		qp->rq.pi = 0;
		WRITE_ONCE(qp->rq.ci, 0);
		spin_unlock_irq(&qp->rq.lock);
	}
	WRITE_ONCE(qp->state, next);
out:
	mutex_unlock(&qp->state_lock);
	return err;
}

static int sfab_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_qp_init_attr *init_attr)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	const struct sfab_aq_modify_qp *a;
	struct sfab_qp_attr *qa;
	int err;

	qa = kzalloc(sizeof(*qa), GFP_KERNEL);
	if (!qa)
		return -ENOMEM;
	err = sfab_com_query_qp(&dev->edev, qp->qpn, qa);
	if (err)
		goto out;
	a = &qa->attr;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	attr->qp_state = a->state <= IB_QPS_ERR ? a->state : IB_QPS_ERR;
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = a->path_mtu;
	attr->qkey = le32_to_cpu(a->qkey);
	attr->rq_psn = le32_to_cpu(a->rq_psn);
	attr->sq_psn = le32_to_cpu(a->sq_psn);
	attr->dest_qp_num = le32_to_cpu(a->dest_qpn);
	attr->qp_access_flags = le32_to_cpu(a->access_flags);
	attr->pkey_index = le16_to_cpu(a->pkey_index);
	attr->port_num = qp->port_num;
	attr->timeout = a->timeout;
	attr->retry_cnt = a->retry_cnt;
	attr->rnr_retry = a->rnr_retry;
	attr->min_rnr_timer = a->min_rnr_timer;
	attr->max_rd_atomic = a->max_rd_atomic;
	attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(&attr->ah_attr, qp->port_num);
	rdma_ah_set_dlid(&attr->ah_attr, le16_to_cpu(a->dlid));
	rdma_ah_set_sl(&attr->ah_attr, a->sl);
	rdma_ah_set_path_bits(&attr->ah_attr, a->src_path_bits);
	attr->cap.max_send_wr = 1U << qp->sq.log_depth;
	attr->cap.max_recv_wr = 1U << qp->rq.log_depth;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;

	init_attr->qp_type = ibqp->qp_type;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR :
					       IB_SIGNAL_REQ_WR;
	init_attr->port_num = qp->port_num;
out:
	kfree(qa);
	return err;
}

static bool sfab_qp_can_send(enum ib_qp_state state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE || state == IB_QPS_ERR;
}

static int sfab_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	struct sfab_wq *sq = &qp->sq;
	const struct ib_ud_wr *ud;
	unsigned long flags;
	unsigned int n = 0;
	u16 slot;
	int err = 0;

	if (!sfab_qp_can_send(READ_ONCE(qp->state))) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&sq->lock, flags);
	for (; wr; wr = wr->next) {
		if (!sfab_ring_free(sq->pi, READ_ONCE(sq->ci), sq->log_depth)) {
			err = -ENOMEM;
			break;
		}
		ud = ud_wr(wr);
		if (!ud->ah || (wr->num_sge > qp->max_send_sge &&
				!(wr->send_flags & IB_SEND_INLINE))) {
			err = -EINVAL;
			break;
		}
		slot = sfab_ring_slot(sq->pi, sq->log_depth);
		/* the driver counts every send's CQE: the device signals all */
		err = sfab_wqe_build_ud(sq->ring + ((size_t)slot << sq->log_stride),
					1U << sq->log_stride, ud,
					&to_sfab_ah(ud->ah)->av, qp->max_inline,
					true);
		if (err)
			break;
		assign_bit(slot, sq->unsignaled,
			   !qp->sig_all && !(wr->send_flags & IB_SEND_SIGNALED));
		sq->pi++;
		n++;
	}
	if (n)
		sfab_db_ring(dev, SFAB_DB_SQ, qp->qpn, sq->pi, 0);
	spin_unlock_irqrestore(&sq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

static int sfab_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	struct sfab_wq *rq = &qp->rq;
	unsigned long flags;
	unsigned int n = 0;
	u16 slot;
	int err = 0;

	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&rq->lock, flags);
	for (; wr; wr = wr->next) {
		if (!sfab_ring_free(rq->pi, READ_ONCE(rq->ci), rq->log_depth)) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge > qp->max_recv_sge) {
			err = -EINVAL;
			break;
		}
		slot = sfab_ring_slot(rq->pi, rq->log_depth);
		err = sfab_rwqe_build(rq->ring + ((size_t)slot << rq->log_stride),
				      1U << rq->log_stride, wr);
		if (err)
			break;
		rq->pi++;
		n++;
	}
	if (n)
		sfab_db_ring(dev, SFAB_DB_RQ, qp->qpn, rq->pi, 0);
	spin_unlock_irqrestore(&rq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

/* ---- address handles and the DMA MR ---------------------------------------- */

static int sfab_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
			  struct ib_udata *udata)
{
	const struct rdma_ah_attr *a = init_attr->ah_attr;
	struct sfab_ah *ah = to_sfab_ah(ibah);

	/* user AHs come with the user-space datapath */
	if (udata)
		return -EOPNOTSUPP;
	if (a->type != RDMA_AH_ATTR_TYPE_IB ||
	    rdma_ah_get_port_num(a) != SFAB_PORT_NUM)
		return -EINVAL;

	ah->av.dlid = rdma_ah_get_dlid(a);
	ah->av.sl = rdma_ah_get_sl(a);
	ah->av.src_path_bits = rdma_ah_get_path_bits(a);
	ah->av.port_num = rdma_ah_get_port_num(a);
	return 0;
}

/* ib_mad matches LID-routed responses to their requests with it */
static int sfab_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	const struct sfab_ud_av *av = &to_sfab_ah(ibah)->av;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(attr, av->port_num);
	rdma_ah_set_dlid(attr, av->dlid);
	rdma_ah_set_sl(attr, av->sl);
	rdma_ah_set_path_bits(attr, av->src_path_bits);
	return 0;
}

static int sfab_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

static struct ib_mr *sfab_get_dma_mr(struct ib_pd *ibpd, int access_flags)
{
	struct sfab_dev *dev = to_sfab_dev(ibpd->device);
	struct sfab_mr *mr;

	/* remote access to all of memory is not something to hand out */
	if (access_flags & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EOPNOTSUPP);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->ibmr.lkey = le32_to_cpu(dev->attr.local_dma_lkey);
	return &mr->ibmr;
}

int sfab_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	/* get_dma_mr's MRs are the only ones: no device object behind them */
	kfree(container_of(ibmr, struct sfab_mr, ibmr));
	return 0;
}

/* ---- port capability mask ---------------------------------------------------- */

static void sfab_smp_init(struct ib_smp *smp, u8 method, u32 port)
{
	memset(smp, 0, sizeof(*smp));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 1;
	smp->method = method;
	smp->attr_id = IB_SMP_ATTR_PORT_INFO;
	smp->attr_mod = cpu_to_be32(port);
}

/* one PortInfo SMP through the device's SMA; 0 when it answered with success */
static int sfab_port_info_mad(struct sfab_dev *dev, u32 port,
			      const struct ib_smp *in, struct ib_smp *out)
{
	int ret;

	ret = sfab_com_mad_ifc(&dev->edev, port, 0, in, out);
	if (ret < 0)
		return ret;
	if (!ret || out->status)
		return -EIO;
	return 0;
}

/*
 * IsSM and the other capability bits the host owns live in PortInfo:
 * read it through the device's SMA, change CapabilityMask and set it
 * back, leaving the port and link states alone.
 */
static int sfab_modify_port(struct ib_device *ibdev, u32 port, int mask,
			    struct ib_port_modify *props)
{
	struct sfab_dev *dev = to_sfab_dev(ibdev);
	struct ib_port_info *pi;
	struct ib_smp *in, *out;
	u32 cap, next;
	int err;

	if (port != SFAB_PORT_NUM)
		return -EINVAL;
	if (mask & ~IB_PORT_RESET_QKEY_CNTR)
		return -EOPNOTSUPP;

	in = kmalloc(sizeof(*in), GFP_KERNEL);
	out = kmalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out_free;
	}

	/* one read-modify-write of PortInfo at a time */
	mutex_lock(&dev->port_lock);
	sfab_smp_init(in, IB_MGMT_METHOD_GET, port);
	err = sfab_port_info_mad(dev, port, in, out);
	if (err)
		goto out_unlock;

	pi = (struct ib_port_info *)out->data;
	cap = be32_to_cpu(pi->cap_mask);
	next = (cap | props->set_port_cap_mask) & ~props->clr_port_cap_mask;
	if (next == cap && !(mask & IB_PORT_RESET_QKEY_CNTR))
		goto out_unlock;

	memcpy(in, out, sizeof(*in));
	in->method = IB_MGMT_METHOD_SET;
	in->status = 0;
	in->mkey = pi->mkey;
	pi = (struct ib_port_info *)in->data;
	pi->cap_mask = cpu_to_be32(next);
	/* PortState and PortPhysicalState 0: no change; LinkDownDefault too */
	pi->linkspeed_portstate &= 0xf0;
	pi->portphysstate_linkdown = 0;
	if (mask & IB_PORT_RESET_QKEY_CNTR)
		pi->qkey_violations = 0;
	err = sfab_port_info_mad(dev, port, in, out);
out_unlock:
	mutex_unlock(&dev->port_lock);
	if (err)
		ibdev_dbg(ibdev, "modify_port: PortInfo through MAD_IFC: %d\n",
			  err);
out_free:
	kfree(out);
	kfree(in);
	return err;
}

/* ---- probe ------------------------------------------------------------------------ */

/* unmap doorbell page 0 once no EQ interrupt can be using it */
static void sfab_kdb_unmap(struct sfab_dev *dev)
{
	void __iomem *kdb = dev->kdb;
	unsigned int i;

	if (!kdb)
		return;
	WRITE_ONCE(dev->kdb, NULL);
	for (i = 0; i < dev->num_eqs; i++)
		synchronize_irq(pci_irq_vector(dev->pdev, dev->eqs[i].vector));
	pci_iounmap(dev->pdev, kdb);
}

/**
 * sfab_datapath_probe() - find out whether the device runs kernel queues
 * @dev: the device, its EQs created
 *
 * The gate for the kernel verbs ops: map doorbell page 0 and create and
 * destroy one CQ on EQ 0.  A device (or firmware) without the datapath
 * refuses CREATE_CQ as an unknown opcode; then @dev->has_datapath stays
 * false, nothing is logged as an error and sfab registers exactly as
 * before (no post_send/poll_cq, so no kernel verbs clients).
 *
 * Return: 0 (datapath or not), or a negative errno when the device
 * failed in a way that probe must not ignore.
 */
int sfab_datapath_probe(struct sfab_dev *dev)
{
	struct device *d = &dev->pdev->dev;
	struct sfab_aq_create_cq params;
	size_t size = sfab_cq_ring_size(SFAB_PROBE_CQ_LOG_DEPTH);
	dma_addr_t dma;
	void *ring;
	u32 cqn;
	int err;

	dev->has_datapath = false;
	dev->kdb = pci_iomap_range(dev->pdev, SFAB_BAR_DB, 0,
				   (unsigned long)SFAB_DB_KERNEL_PAGES <<
				   dev->db_page_shift);
	if (!dev->kdb) {
		dev_err(d, "cannot map the kernel doorbell page\n");
		return -ENOMEM;
	}

	ring = dma_alloc_coherent(d, size, &dma, GFP_KERNEL);
	if (!ring) {
		err = -ENOMEM;
		goto err_unmap;
	}
	memset(&params, 0, sizeof(params));
	sfab_ring_desc_contig(&params.ring, dma, SFAB_PROBE_CQ_LOG_DEPTH,
			      SFAB_CQE_LOG_STRIDE);
	params.eqn = cpu_to_le32(dev->eqs[0].eqn);
	err = sfab_com_create_cq(&dev->edev, &params, &cqn);
	if (!err) {
		err = sfab_com_destroy_cq(&dev->edev, cqn);
		if (err)
			sfab_com_quiesce(&dev->edev);
	}
	dma_free_coherent(d, size, ring, dma);

	if (err == -EOPNOTSUPP) {
		dev_info(d, "device has no queue pair datapath: no kernel verbs\n");
		goto err_unmap_ok;
	}
	if (err) {
		dev_err(d, "probe CQ failed: %d\n", err);
		goto err_unmap;
	}
	dev->has_datapath = true;
	return 0;

err_unmap_ok:
	err = 0;
err_unmap:
	sfab_kdb_unmap(dev);
	return err;
}

/**
 * sfab_datapath_remove() - undo sfab_datapath_probe()
 * @dev: the device, its ib_device unregistered (no CQ or QP left)
 */
void sfab_datapath_remove(struct sfab_dev *dev)
{
	WARN_ON(!xa_empty(&dev->cq_xa));
	WARN_ON(!xa_empty(&dev->qp_xa));
	sfab_kdb_unmap(dev);
	dev->has_datapath = false;
}

/* kernel verbs: set only with has_datapath */
const struct ib_device_ops sfab_datapath_dev_ops = {
	.create_ah = sfab_create_ah,
	.destroy_ah = sfab_destroy_ah,
	.get_dma_mr = sfab_get_dma_mr,
	.poll_cq = sfab_poll_cq,
	.post_recv = sfab_post_recv,
	.post_send = sfab_post_send,
	.query_ah = sfab_query_ah,
	.query_qp = sfab_query_qp,
	.req_notify_cq = sfab_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sfab_ah, ibah),
};

/* PortInfo CapabilityMask: needs the device's SMA (MAD_IFC) */
const struct ib_device_ops sfab_port_dev_ops = {
	.modify_port = sfab_modify_port,
};
