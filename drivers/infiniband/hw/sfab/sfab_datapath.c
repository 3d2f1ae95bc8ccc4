// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab kernel verbs datapath: completion queues, UD/SMI/GSI queue pairs,
 * RC and UC queue pairs, shared receive queues, address handles,
 * completion event queue processing, QP and SRQ async events and the port
 * capability mask (include/sfab/sfab_queue.h).  The send and receive WQE
 * builders and the CQE to ib_wc conversion live beside the post and poll
 * functions that call them per WQE and per CQE; the KUnit suites sfab_wqe
 * and sfab_cq reach them through VISIBLE_IF_KUNIT.
 *
 * Kernel queues live in coherent DMA memory (SFAB_RING_CONTIG) and ring
 * doorbell page 0.  The kernel verbs ops are offered only when the device
 * reports SFAB_DEV_CAP_QUEUES (sfab_datapath_probe()): a device without
 * the datapath keeps ib_core from taking sfab for a kernel verbs provider,
 * so ib_mad and the other kernel clients leave it alone.
 *
 * User CQs, QPs and SRQs have their rings in the process's memory (the
 * provider allocates them, sfab_umem_ring() pins them) and ring the
 * context's own doorbell page; the provider posts and polls them without
 * the kernel (include/uapi/rdma/sfab-abi.h).
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/sfab-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "sfab.h"
#include "sfab_com_cmd.h"

static void sfab_ring_desc_contig(struct sfab_com_ring *d, dma_addr_t dma,
				  u8 log_depth, u8 log_stride)
{
	memset(d, 0, sizeof(*d));
	d->addr = dma;
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
		cqn = sfab_eqe_cqn(e);
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

/* a kernel CQ's allocation: the ring and its doorbell record after it */
static size_t sfab_cq_alloc_size(u8 log_depth)
{
	return sfab_dbrec_buf_len(log_depth, SFAB_CQE_LOG_STRIDE);
}

static void sfab_cq_free_ring(struct sfab_dev *dev, struct sfab_cq *cq)
{
	if (cq->umem)
		sfab_umem_ring_free(dev, cq->umem, &cq->pbl);
	else
		dma_free_coherent(&dev->pdev->dev,
				  sfab_cq_alloc_size(cq->log_depth), cq->ring,
				  cq->dma);
}

/*
 * A request's driver data: at least up to @min bytes (what the first
 * ABI had), at most the struct (@len), the rest zero; copied into @cmd.
 */
static int sfab_udata_cmd(struct ib_udata *udata, void *cmd, size_t len,
			  size_t min, size_t resp_len)
{
	if (udata->inlen < min || udata->outlen < resp_len)
		return -EINVAL;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;
	return ib_copy_from_udata(cmd, udata, min(udata->inlen, len));
}

/*
 * Where a user queue's ring is: a user address, or (a queue an
 * accelerator drives, SFAB_IBV_CREATE_*_DMABUF) an offset in a dma-buf;
 * its record's offset from the ring in the same buffer, 0: none.
 */
struct sfab_uring {
	u64 addr;
	u64 dbrec_off;
	int dmabuf_fd;
	bool dmabuf;
};

/* pin a user ring of @size bytes where @src says and describe it */
static int sfab_uring_pin(struct sfab_dev *dev, struct ib_udata *udata,
			  const struct sfab_uring *src, size_t size,
			  struct ib_umem **umem, struct sfab_pbl *pbl,
			  struct sfab_com_ring *desc, u64 *dbrec)
{
	if (src->dmabuf)
		return sfab_umem_ring_dmabuf(dev, src->dmabuf_fd, src->addr,
					     size, src->dbrec_off, umem, pbl,
					     desc, dbrec);
	return sfab_umem_ring(dev, udata, src->addr, size, src->dbrec_off,
			      umem, pbl, desc, dbrec);
}

/* a user CQ: the ring the provider allocated, its doorbell page */
static int sfab_create_user_cq(struct sfab_dev *dev, struct sfab_cq *cq,
			       const struct ib_cq_init_attr *attr,
			       struct ib_udata *udata,
			       struct sfab_com_create_cq *params)
{
	struct sfab_ucontext *uctx = rdma_udata_to_drv_context(udata,
							       struct sfab_ucontext,
							       ibucontext);
	struct sfab_ibv_create_cq cmd = {};
	struct sfab_uring src = {};
	int log_depth;
	bool dbrec;
	int err;

	err = sfab_udata_cmd(udata, &cmd, sizeof(cmd),
			     offsetofend(typeof(cmd), buf_addr),
			     sizeof(struct sfab_ibv_create_cq_resp));
	if (err)
		return err;
	/* Documentation/sfab/verbs.rst, "Bad requests" */
	dbrec = cmd.comp_mask & SFAB_IBV_CREATE_CQ_DBREC;
	src.dmabuf = cmd.comp_mask & SFAB_IBV_CREATE_CQ_DMABUF;
	if (cmd.comp_mask & ~(SFAB_IBV_CREATE_CQ_DBREC |
			      SFAB_IBV_CREATE_CQ_DMABUF) ||
	    (dbrec && !dev->has_dbrec))
		return -EOPNOTSUPP;
	if (dbrec != !!cmd.dbrec_off ||
	    (dbrec && udata->inlen < offsetofend(typeof(cmd), dbrec_off)))
		return -EINVAL;
	if (src.dmabuf ? udata->inlen < offsetofend(typeof(cmd), dmabuf_fd) :
			 cmd.dmabuf_fd != 0)
		return -EINVAL;
	if (memchr_inv(cmd.reserved_28, 0, sizeof(cmd.reserved_28)) ||
	    memchr_inv(cmd.reserved_e0, 0, sizeof(cmd.reserved_e0)))
		return -EINVAL;
	log_depth = sfab_queue_log_depth(attr->cqe,
					 dev->attr.max_cqe);
	if (log_depth < 0 || cmd.log_depth < log_depth ||
	    cmd.log_depth > SFAB_RING_MAX_LOG_DEPTH ||
	    (1U << cmd.log_depth) > dev->attr.max_cqe) {
		ibdev_dbg(&dev->ibdev, "create_cq: %u entries in a ring of 2^%u unsupported\n",
			  attr->cqe, cmd.log_depth);
		return -EINVAL;
	}

	src.addr = cmd.buf_addr;
	src.dbrec_off = cmd.dbrec_off;
	src.dmabuf_fd = cmd.dmabuf_fd;
	err = sfab_uring_pin(dev, udata, &src, sfab_cq_ring_size(cmd.log_depth),
			     &cq->umem, &cq->pbl, &params->ring, &params->dbrec);
	if (err)
		return err;
	params->ring.log_depth = cmd.log_depth;
	params->ring.log_stride = SFAB_CQE_LOG_STRIDE;
	params->db_page = uctx->db_page;
	cq->log_depth = cmd.log_depth;
	return 0;
}

int sfab_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs)
{
	struct sfab_dev *dev = to_sfab_dev(ibcq->device);
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct sfab_cq *cq = to_sfab_cq(ibcq);
	struct sfab_ibv_create_cq_resp resp = {};
	struct sfab_com_create_cq params;
	int log_depth;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= dev->num_eqs)
		return -EINVAL;

	memset(&params, 0, sizeof(params));
	cq->cc = 0;
	cq->dbrec = NULL;
	cq->eq = &dev->eqs[attr->comp_vector];
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_lock);
	cq->resizing = false;
	cq->rearm = SFAB_DB_ARM_NONE;
	if (udata) {
		err = sfab_create_user_cq(dev, cq, attr, udata, &params);
		if (err)
			return err;
	} else {
		log_depth = sfab_queue_log_depth(attr->cqe,
						 dev->attr.max_cqe);
		if (log_depth < 0) {
			ibdev_dbg(ibcq->device, "create_cq: %u entries unsupported\n",
				  attr->cqe);
			return log_depth;
		}
		cq->log_depth = log_depth;
		/* zeroed: phase 0 marks every entry as the driver's */
		cq->ring = dma_alloc_coherent(&dev->pdev->dev,
					      sfab_cq_alloc_size(log_depth),
					      &cq->dma, GFP_KERNEL);
		if (!cq->ring)
			return -ENOMEM;
		sfab_ring_desc_contig(&params.ring, cq->dma, log_depth,
				      SFAB_CQE_LOG_STRIDE);
		if (dev->has_dbrec) {
			u64 off = sfab_dbrec_ring_off(log_depth,
						      SFAB_CQE_LOG_STRIDE);

			cq->dbrec = (void *)cq->ring + off;
			params.dbrec = cq->dma + off;
		}
	}
	params.eqn = cq->eq->eqn;
	err = sfab_com_create_cq(&dev->edev, &params, &cq->cqn);
	if (err)
		goto err_free_ring;

	err = xa_err(xa_store(&dev->cq_xa, cq->cqn, cq, GFP_KERNEL));
	if (err)
		goto err_destroy;

	if (udata) {
		resp.cqn = cq->cqn;
		if (params.dbrec)
			resp.comp_mask |= SFAB_IBV_CREATE_CQ_RESP_DBREC;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase;
	}
	ibcq->cqe = 1U << cq->log_depth;
	return 0;

err_erase:
	xa_erase(&dev->cq_xa, cq->cqn);
err_destroy:
	if (sfab_com_destroy_cq(&dev->edev, cq->cqn))
		sfab_com_quiesce(&dev->edev);
	synchronize_irq(pci_irq_vector(dev->pdev, cq->eq->vector));
err_free_ring:
	sfab_cq_free_ring(dev, cq);
	mutex_destroy(&cq->resize_lock);
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
	/* the EQ or AENQ interrupt may have found the CQ just before */
	synchronize_irq(pci_irq_vector(dev->pdev, cq->eq->vector));
	synchronize_irq(pci_irq_vector(dev->pdev, SFAB_MSIX_AENQ));
	sfab_cq_free_ring(dev, cq);
	mutex_destroy(&cq->resize_lock);
	return 0;
}

/**
 * sfab_cqe_is_new() - whether the CQE at the consumer index is the device's
 * @cqe: the entry at slot @cc of the ring
 * @cc: free-running consumer index
 * @log_depth: log2 of the ring's entries
 *
 * The phase bit is 1 on the first pass over the ring and flips on each
 * pass after.
 */
VISIBLE_IF_KUNIT bool sfab_cqe_is_new(const struct sfab_cqe *cqe, u16 cc,
				      unsigned int log_depth)
{
	return sfab_ring_entry_is_new(READ_ONCE(cqe->flags) & SFAB_CQE_PHASE,
				      cc, log_depth);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_cqe_is_new);

/* a kernel CQ's CQEs not yet polled, under its lock */
static unsigned int sfab_cq_outstanding(struct sfab_cq *cq)
{
	unsigned int n;
	u16 i;

	for (n = 0; n < 1U << cq->log_depth; n++) {
		i = cq->cc + n;
		if (!sfab_cqe_is_new(&cq->ring[sfab_ring_slot(i, cq->log_depth)],
				     i, cq->log_depth))
			break;
	}
	return n;
}

/*
 * resize_cq of a kernel CQ: a new zeroed ring (and record); while the
 * device moves the CQEs not polled to its start, poll_cq finds none and
 * an arm waits for the new ring.
 */
static int sfab_resize_kernel_cq(struct sfab_dev *dev, struct sfab_cq *cq,
				 int entries)
{
	struct sfab_com_resize_cq p = {};
	struct sfab_cqe *ring, *old_ring;
	dma_addr_t dma, old_dma;
	int log_depth, err;
	u8 old_log, arm;
	u64 off;

	log_depth = sfab_queue_log_depth(entries, dev->attr.max_cqe);
	if (log_depth < 0)
		return log_depth;
	ring = dma_alloc_coherent(&dev->pdev->dev,
				  sfab_cq_alloc_size(log_depth), &dma,
				  GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	sfab_ring_desc_contig(&p.ring, dma, log_depth, SFAB_CQE_LOG_STRIDE);
	off = sfab_dbrec_ring_off(log_depth, SFAB_CQE_LOG_STRIDE);
	if (cq->dbrec)
		p.dbrec = dma + off;
	p.cqn = cq->cqn;

	spin_lock_irq(&cq->lock);
	/* what the device would refuse, without its error report */
	if (sfab_cq_outstanding(cq) > 1U << log_depth) {
		spin_unlock_irq(&cq->lock);
		err = -EINVAL;
		goto out_free;
	}
	cq->resizing = true;
	p.ci = cq->cc;
	spin_unlock_irq(&cq->lock);

	err = sfab_com_resize_cq(&dev->edev, &p);

	spin_lock_irq(&cq->lock);
	old_ring = cq->ring;
	old_dma = cq->dma;
	old_log = cq->log_depth;
	if (!err) {
		cq->ring = ring;
		cq->dma = dma;
		cq->log_depth = log_depth;
		cq->cc = 0;
		if (cq->dbrec)
			cq->dbrec = (void *)ring + off;
	}
	cq->resizing = false;
	arm = cq->rearm;
	cq->rearm = SFAB_DB_ARM_NONE;
	if (arm != SFAB_DB_ARM_NONE)
		sfab_db_ring(dev, SFAB_DB_CQ, cq->cqn, cq->cc, arm);
	spin_unlock_irq(&cq->lock);
	if (!err) {
		ring = old_ring;
		dma = old_dma;
		log_depth = old_log;
	}
out_free:
	dma_free_coherent(&dev->pdev->dev, sfab_cq_alloc_size(log_depth), ring,
			  dma);
	return err;
}

/*
 * resize_cq of a CQ whose ring the provider owns: it holds its CQ lock
 * and says up to where it consumed; the device moves the rest.
 */
static int sfab_resize_user_cq(struct sfab_dev *dev, struct sfab_cq *cq,
			       int entries, struct ib_udata *udata)
{
	struct sfab_ibv_resize_cq_resp resp = {};
	struct sfab_ibv_resize_cq cmd = {};
	struct sfab_com_resize_cq p = {};
	struct sfab_uring src = {};
	struct ib_umem *umem;
	struct sfab_pbl pbl;
	int log_depth, err;
	bool dbrec;

	err = sfab_udata_cmd(udata, &cmd, sizeof(cmd), sizeof(cmd),
			     sizeof(resp));
	if (err)
		return err;
	dbrec = cmd.comp_mask & SFAB_IBV_CREATE_CQ_DBREC;
	if (cmd.comp_mask & ~SFAB_IBV_CREATE_CQ_DBREC ||
	    (dbrec && !dev->has_dbrec))
		return -EOPNOTSUPP;
	if (dbrec != !!cmd.dbrec_off || cmd.reserved_28)
		return -EINVAL;
	log_depth = sfab_queue_log_depth(entries, dev->attr.max_cqe);
	if (log_depth < 0 || cmd.log_depth < log_depth ||
	    cmd.log_depth > SFAB_RING_MAX_LOG_DEPTH ||
	    (1U << cmd.log_depth) > dev->attr.max_cqe) {
		ibdev_dbg(&dev->ibdev, "resize_cq: %d entries in a ring of 2^%u unsupported\n",
			  entries, cmd.log_depth);
		return -EINVAL;
	}

	src.addr = cmd.buf_addr;
	src.dbrec_off = cmd.dbrec_off;
	err = sfab_uring_pin(dev, udata, &src, sfab_cq_ring_size(cmd.log_depth),
			     &umem, &pbl, &p.ring, &p.dbrec);
	if (err)
		return err;
	p.ring.log_depth = cmd.log_depth;
	p.ring.log_stride = SFAB_CQE_LOG_STRIDE;
	p.cqn = cq->cqn;
	p.ci = cmd.ci;
	err = sfab_com_resize_cq(&dev->edev, &p);
	if (err) {
		sfab_umem_ring_free(dev, umem, &pbl);
		return err;
	}
	/* the device reads the new page list only from now on */
	sfab_umem_ring_free(dev, cq->umem, &cq->pbl);
	cq->umem = umem;
	cq->pbl = pbl;
	cq->log_depth = cmd.log_depth;
	if (p.dbrec)
		resp.comp_mask |= SFAB_IBV_CREATE_CQ_RESP_DBREC;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/**
 * sfab_resize_cq() - move a CQ to a ring of at least @entries CQEs
 * @ibcq: the CQ
 * @entries: the CQEs it must hold
 * @udata: a user CQ's request (sfab_ibv_resize_cq); NULL for a kernel CQ
 *
 * The completions not yet polled move with it, in order; none is lost
 * or seen twice.  -EINVAL when more are outstanding than @entries.
 *
 * Return: 0 or a negative errno; on error the CQ is as it was.
 */
int sfab_resize_cq(struct ib_cq *ibcq, int entries, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibcq->device);
	struct sfab_cq *cq = to_sfab_cq(ibcq);
	int err;

	if (entries <= 0)
		return -EINVAL;
	mutex_lock(&cq->resize_lock);
	if (udata)
		err = sfab_resize_user_cq(dev, cq, entries, udata);
	else
		err = sfab_resize_kernel_cq(dev, cq, entries);
	if (!err)
		ibcq->cqe = 1U << cq->log_depth;
	mutex_unlock(&cq->resize_lock);
	if (err)
		ibdev_dbg(ibcq->device, "CQ %u: resize to %d entries: %d\n",
			  cq->cqn, entries, err);
	return err;
}

/**
 * sfab_cq_error() - report a SFAB_AENQ_CQ_ERROR to the CQ's consumer
 * @dev: the device
 * @cqn: the CQ: it overflowed, or a CQE could not be written, and the
 *	 device writes no more CQEs to it
 *
 * Called from the AENQ interrupt; sfab_destroy_cq() waits for it.
 */
void sfab_cq_error(struct sfab_dev *dev, u32 cqn)
{
	struct ib_event ibev = {};
	struct sfab_cq *cq;

	cq = xa_load(&dev->cq_xa, cqn);
	if (!cq) {
		dev_dbg(&dev->pdev->dev, "error for unknown CQ %u\n", cqn);
		return;
	}
	dev_warn_ratelimited(&dev->pdev->dev,
			     "CQ %u: overrun or CQE write failure, CQ unusable\n",
			     cqn);
	if (!cq->ibcq.event_handler)
		return;
	ibev.device = &dev->ibdev;
	ibev.event = IB_EVENT_CQ_ERR;
	ibev.element.cq = &cq->ibcq;
	cq->ibcq.event_handler(&ibev, cq->ibcq.cq_context);
}

/**
 * sfab_cqe_to_wc() - fill an ib_wc from a CQE
 * @cqe: the completion, already owned by the driver
 * @wc: filled, all but @wc->qp
 *
 * sfab_cqe_decode() reads it (the provider does the same): an opcode the
 * contract does not know becomes IB_WC_GENERAL_ERR with the opcode in
 * vendor_err.
 */
VISIBLE_IF_KUNIT void sfab_cqe_to_wc(const struct sfab_cqe *cqe,
				     struct ib_wc *wc)
{
	struct sfab_cqe_info ci;
	bool known = sfab_cqe_decode(cqe, &ci);

	memset(wc, 0, sizeof(*wc));
	SFAB_WC_FILL(wc, &ci);
	if (!known) {
		wc->opcode = ci.recv ? IB_WC_RECV : IB_WC_SEND;
		return;
	}

	switch (ci.opcode) {
	case SFAB_CQE_RDMA_WRITE:
		wc->opcode = IB_WC_RDMA_WRITE;
		break;
	case SFAB_CQE_RDMA_READ:
		wc->opcode = IB_WC_RDMA_READ;
		break;
	case SFAB_CQE_ATOMIC_CS:
		wc->opcode = IB_WC_COMP_SWAP;
		break;
	case SFAB_CQE_ATOMIC_FA:
		wc->opcode = IB_WC_FETCH_ADD;
		break;
	case SFAB_CQE_LOCAL_INV:
		wc->opcode = IB_WC_LOCAL_INV;
		break;
	case SFAB_CQE_REG_MR:
		wc->opcode = IB_WC_REG_MR;
		break;
	case SFAB_CQE_BIND_MW:
		wc->opcode = IB_WC_BIND_MW;
		break;
	case SFAB_CQE_ATOMIC_WRITE:
		wc->opcode = IB_WC_ATOMIC_WRITE;
		break;
	case SFAB_CQE_FLUSH:
		wc->opcode = IB_WC_FLUSH;
		break;
	case SFAB_CQE_RECV:
		wc->opcode = IB_WC_RECV;
		break;
	case SFAB_CQE_RECV_RDMA_IMM:
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		break;
	default:
		wc->opcode = IB_WC_SEND;
		break;
	}
	if (!ci.recv)
		return;

	if (ci.inv) {
		wc->ex.invalidate_rkey = ci.inv_rkey;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	} else if (ci.imm) {
		wc->ex.imm_data = ci.imm_data;
		wc->wc_flags |= IB_WC_WITH_IMM;
	}
	if (ci.grh)
		wc->wc_flags |= IB_WC_GRH;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_cqe_to_wc);

/*
 * sfab_wq_flush_lost() - complete a lost device's outstanding WQEs of
 * @wq, a kernel QP's send or receive queue, oldest first, with
 * IB_WC_WR_FLUSH_ERR and the wr_id their WQE holds; at most @num into @wc.
 * Under its CQ's lock, which makes it @wq->ci's writer.
 *
 * Return: the completions written.
 */
VISIBLE_IF_KUNIT int sfab_wq_flush_lost(struct sfab_qp *qp, struct sfab_wq *wq,
					bool recv, struct ib_wc *wc, int num)
{
	const void *wqe;
	u16 ci = wq->ci, pi;
	int n = 0;

	/* the index under the lock its posts hold: their WQEs are written */
	spin_lock(&wq->lock);
	pi = wq->pi;
	spin_unlock(&wq->lock);
	for (; ci != pi && n < num; ci++, n++) {
		wqe = wq->ring + ((size_t)sfab_ring_slot(ci, wq->log_depth) <<
				  wq->log_stride);
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = sfab_wqe_wr_id(wqe, recv);
		wc[n].status = IB_WC_WR_FLUSH_ERR;
		wc[n].opcode = recv ? IB_WC_RECV : IB_WC_SEND;
		wc[n].qp = &qp->ibqp;
		wc[n].port_num = qp->port_num;
	}
	WRITE_ONCE(wq->ci, ci);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_wq_flush_lost);

/*
 * The queue of @qp, its receive queue if @recv, that completes on @cq and
 * that a lost device leaves to the driver to flush: a kernel QP's.  NULL
 * if none.
 */
static struct sfab_wq *sfab_lost_wq(struct sfab_qp *qp, struct sfab_cq *cq,
				    bool recv)
{
	if (qp->user)
		return NULL;
	if (recv)
		return qp->has_rq && qp->ibqp.recv_cq == &cq->ibcq ?
		       &qp->rq : NULL;
	return qp->ibqp.send_cq == &cq->ibcq ? &qp->sq : NULL;
}

/* true when a kernel QP of @cq has WQEs that a lost device left */
static bool sfab_cq_lost_pending(struct sfab_dev *dev, struct sfab_cq *cq)
{
	struct sfab_qp *qp;
	struct sfab_wq *wq;
	unsigned long idx;
	int recv;

	xa_for_each(&dev->qp_xa, idx, qp) {
		for (recv = 0; recv < 2; recv++) {
			wq = sfab_lost_wq(qp, cq, recv);
			if (wq && READ_ONCE(wq->pi) != wq->ci)
				return true;
		}
	}
	return false;
}

/*
 * sfab_cq_flush_lost() - what a lost device leaves undone on @cq
 *
 * The device completes nothing more, so the WQEs still outstanding on the
 * kernel QPs of @cq complete here, as a QP in the Error state flushes
 * them: every one, signaled or not, with IB_WC_WR_FLUSH_ERR.  ib_drain_qp()
 * (its modify to Error is the driver's own on a lost device) and the
 * consumers waiting for their WRs then end, as they do on mlx5 in its
 * internal error state.  A user QP's rings are its process's, which
 * ib_core disassociates.  Under @cq->lock: a QP being destroyed waits for
 * it (sfab_cq_clean()).
 *
 * Return: the completions written into @wc, at most @num.
 */
static int sfab_cq_flush_lost(struct sfab_dev *dev, struct sfab_cq *cq,
			      struct ib_wc *wc, int num)
{
	struct sfab_qp *qp;
	struct sfab_wq *wq;
	unsigned long idx;
	int recv, n = 0;

	xa_for_each(&dev->qp_xa, idx, qp) {
		for (recv = 0; recv < 2 && n < num; recv++) {
			wq = sfab_lost_wq(qp, cq, recv);
			if (wq)
				n += sfab_wq_flush_lost(qp, wq, recv, wc + n,
							num - n);
		}
		if (n == num)
			break;
	}
	return n;
}

/*
 * sfab_cq_kick_one() - on a lost device, tell the consumer of @ibcq, a
 * kernel CQ, to poll, as the device's event would if the CQ is armed: a
 * WR was posted, or a QP moved to Error, and its flush waits there
 * (sfab_cq_flush_lost()).  An unarmed CQ is left alone, as the device
 * leaves it (an IB_POLL_DIRECT CQ's handler warns of any event).  The
 * caller holds a QP of @ibcq, which keeps it.  Consumers that poll on
 * their own, or re-arm with IB_CQ_REPORT_MISSED_EVENTS, find the flushed
 * WQEs anyway.
 */
VISIBLE_IF_KUNIT void sfab_cq_kick_one(struct ib_cq *ibcq)
{
	struct sfab_cq *cq;
	unsigned long flags;
	bool armed;

	if (!ibcq)
		return;
	cq = to_sfab_cq(ibcq);
	spin_lock_irqsave(&cq->lock, flags);
	armed = cq->armed;
	cq->armed = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (!armed || !ibcq->comp_handler)
		return;
	local_irq_save(flags);
	ibcq->comp_handler(ibcq, ibcq->cq_context);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_cq_kick_one);

static int sfab_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sfab_dev *dev = to_sfab_dev(ibcq->device);
	struct sfab_cq *cq = to_sfab_cq(ibcq);
	struct sfab_cqe *cqe;
	struct sfab_qp *qp;
	struct sfab_wq *wq;
	unsigned long flags;
	u16 start, slot, ci;
	bool hide;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	/* the device is moving the CQEs to a new ring: none to take now */
	if (cq->resizing) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return 0;
	}
	start = cq->cc;
	while (n < num_entries) {
		cqe = &cq->ring[sfab_ring_slot(cq->cc, cq->log_depth)];
		if (!sfab_cqe_is_new(cqe, cq->cc, cq->log_depth))
			break;
		/* read the entry's other fields only after its phase bit */
		dma_rmb();
		cq->cc++;

		/* XRC SRQs are the provider's: their CQs are never here */
		if (unlikely(cqe->flags & SFAB_CQE_XRC)) {
			ibdev_warn_ratelimited(ibcq->device,
					       "CQ %u: XRC completion on a kernel CQ\n",
					       cq->cqn);
			continue;
		}
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
		if (sfab_cqe_is_recv(cqe) && qp->has_rq) {
			WRITE_ONCE(qp->rq.ci, qp->rq.ci + 1);
		} else if (sfab_cqe_is_recv(cqe)) {
			/*
			 * The device takes an SRQ's WQEs in the order posted;
			 * QPs on other CQs count them too: under its lock.
			 */
			wq = &to_sfab_srq(qp->ibqp.srq)->rq;
			spin_lock(&wq->lock);
			WRITE_ONCE(wq->ci, wq->ci + 1);
			spin_unlock(&wq->lock);
		} else if (!qp->sq.unsignaled) {
			/*
			 * Send WQEs complete in order; the device writes CQEs
			 * for signaled and failed ones only.
			 */
			ci = qp->sq.ci;
			if (!sfab_sq_retire(&ci, READ_ONCE(qp->sq.pi),
					    sfab_cqe_wqe_index(cqe))) {
				/* flushed already, by a lost device's poll */
				if (sfab_dev_is_lost(dev))
					continue;
				ibdev_warn_ratelimited(ibcq->device,
						       "QP %u: send CQE for WQE %u, none outstanding\n",
						       qp->qpn, sfab_cqe_wqe_index(cqe));
				continue;
			}
			WRITE_ONCE(qp->sq.ci, ci);
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
	/* the CQEs the device wrote first, then what it never will */
	if (unlikely(sfab_dev_is_lost(dev)) && n < num_entries)
		n += sfab_cq_flush_lost(dev, cq, wc + n, num_entries - n);
	if (cq->cc != start) {
		if (cq->dbrec) {
			/*
			 * The record, no doorbell: the CQEs are read before
			 * the device may see their slots free (sfab_ring.h)
			 */
			dma_mb();
			sfab_dbrec_set(cq->dbrec, cq->cc);
		} else {
			sfab_db_ring(dev, SFAB_DB_CQ, cq->cqn, cq->cc,
				     SFAB_DB_ARM_NONE);
		}
	}
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
	cq->armed = true;
	if (cq->resizing) {
		/*
		 * rung on the new ring (NEXT covers SOLICITED); CQEs moved
		 * there signal at once
		 */
		if (cq->rearm != SFAB_DB_ARM_NEXT)
			cq->rearm = arm;
		spin_unlock_irqrestore(&cq->lock, irqflags);
		return 0;
	}
	if (unlikely(sfab_dev_is_lost(dev))) {
		/* no event will come: what is left is polled now */
		if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
		    sfab_cq_lost_pending(dev, cq))
			ret = 1;
		spin_unlock_irqrestore(&cq->lock, irqflags);
		return ret;
	}
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

/* a kernel queue's allocation: the ring and its doorbell record after it */
static size_t sfab_wq_alloc_size(const struct sfab_wq *wq)
{
	return sfab_dbrec_buf_len(wq->log_depth, wq->log_stride);
}

static int sfab_wq_alloc(struct sfab_dev *dev, struct sfab_wq *wq,
			 u8 log_depth, u8 log_stride, bool send)
{
	wq->log_depth = log_depth;
	wq->log_stride = log_stride;
	wq->pi = 0;
	wq->ci = 0;
	wq->resizing = false;
	spin_lock_init(&wq->lock);
	wq->unsignaled = NULL;
	if (send && !sfab_dev_cqe_wqe_index(dev)) {
		wq->unsignaled = bitmap_zalloc(1U << log_depth, GFP_KERNEL);
		if (!wq->unsignaled)
			return -ENOMEM;
	}
	wq->ring = dma_alloc_coherent(&dev->pdev->dev, sfab_wq_alloc_size(wq),
				      &wq->dma, GFP_KERNEL);
	if (!wq->ring) {
		bitmap_free(wq->unsignaled);
		return -ENOMEM;
	}
	wq->dbrec = NULL;
	wq->dbrec_dma = 0;
	if (dev->has_dbrec) {
		u64 off = sfab_dbrec_ring_off(log_depth, log_stride);

		wq->dbrec = wq->ring + off;
		wq->dbrec_dma = wq->dma + off;
	}
	return 0;
}

/* a user queue's ring: pinned, described by a page list */
static int sfab_wq_user(struct sfab_dev *dev, struct sfab_wq *wq,
			struct ib_udata *udata, const struct sfab_uring *src,
			u8 log_depth, u8 log_stride, struct sfab_com_ring *desc)
{
	int err;

	wq->log_depth = log_depth;
	wq->log_stride = log_stride;
	wq->dbrec = NULL;
	spin_lock_init(&wq->lock);
	err = sfab_uring_pin(dev, udata, src, sfab_wq_size(wq), &wq->umem,
			     &wq->pbl, desc, &wq->dbrec_dma);
	if (err)
		return err;
	desc->log_depth = log_depth;
	desc->log_stride = log_stride;
	return 0;
}

static void sfab_wq_free(struct sfab_dev *dev, struct sfab_wq *wq)
{
	if (wq->umem) {
		sfab_umem_ring_free(dev, wq->umem, &wq->pbl);
		wq->umem = NULL;
	} else if (wq->ring) {
		dma_free_coherent(&dev->pdev->dev, sfab_wq_alloc_size(wq),
				  wq->ring, wq->dma);
		wq->ring = NULL;
	}
	wq->dbrec = NULL;
	wq->dbrec_dma = 0;
	bitmap_free(wq->unsignaled);
	wq->unsignaled = NULL;
}

static int sfab_qp_type(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_SMI:	return SFAB_QPT_SMI;
	case IB_QPT_GSI:	return SFAB_QPT_GSI;
	case IB_QPT_UD:		return SFAB_QPT_UD;
	case IB_QPT_RC:		return SFAB_QPT_RC;
	case IB_QPT_UC:		return SFAB_QPT_UC;
	case IB_QPT_XRC_INI:	return SFAB_QPT_XRC_INI;
	case IB_QPT_XRC_TGT:	return SFAB_QPT_XRC_TGT;
	default:		return -EOPNOTSUPP;
	}
}

/*
 * work queue geometry from the consumer's caps; writes back what it got.
 * The send stride is the contract's rule (sfab_sq_geometry()): UD and GSI
 * keep room for a GRH segment, as the provider's rings do.
 */
static int sfab_qp_geometry(struct sfab_dev *dev, int type,
			    struct ib_qp_cap *cap, u8 *sq_log, u8 *sq_stride,
			    u8 *rq_log, u8 *rq_stride)
{
	u32 max_wr = dev->attr.max_qp_wr;
	u32 max_sge = dev->attr.max_sge;
	struct sfab_sq_geom sq;
	int sl, rl, rs;

	if (cap->max_send_sge > max_sge || cap->max_recv_sge > max_sge ||
	    cap->max_inline_data > dev->attr.max_inline)
		return -EINVAL;
	sl = sfab_queue_log_depth(max(cap->max_send_wr, 1U), max_wr);
	rl = sfab_queue_log_depth(max(cap->max_recv_wr, 1U), max_wr);
	rs = sfab_rq_log_stride(max(cap->max_recv_sge, 1U));
	if (sl < 0 || rl < 0 || rs < 0 ||
	    sfab_sq_geometry(type, max(cap->max_send_sge, 1U),
			     cap->max_inline_data, &sq))
		return -EINVAL;

	*sq_log = sl;
	*sq_stride = sq.log_stride;
	*rq_log = rl;
	*rq_stride = rs;
	cap->max_send_wr = 1U << sl;
	cap->max_recv_wr = 1U << rl;
	cap->max_send_sge = min(sq.max_sge, max_sge);
	cap->max_recv_sge = min(sfab_rq_max_sge(rs), max_sge);
	cap->max_inline_data = min_t(u32, dev->attr.max_inline,
				     sq.max_inline);
	return 0;
}

/* the provider's rings for a user QP: at least what the caps need */
static int sfab_user_qp_rings(struct sfab_dev *dev, struct sfab_qp *qp,
			      struct ib_qp_init_attr *init_attr,
			      struct ib_udata *udata,
			      struct sfab_com_create_qp *params)
{
	struct sfab_ibv_create_qp cmd = {};
	struct sfab_uring sq_src = {}, rq_src = {};
	u8 sq_log, sq_stride, rq_log, rq_stride;
	u32 max_wr = dev->attr.max_qp_wr;
	bool dbrec, dmabuf;
	int err;

	err = sfab_udata_cmd(udata, &cmd, sizeof(cmd),
			     offsetofend(typeof(cmd), rq_buf_addr),
			     sizeof(struct sfab_ibv_create_qp_resp));
	if (err)
		return err;
	/* Documentation/sfab/verbs.rst, "Bad requests" */
	dbrec = cmd.comp_mask & SFAB_IBV_CREATE_QP_DBREC;
	dmabuf = cmd.comp_mask & SFAB_IBV_CREATE_QP_DMABUF;
	if (cmd.comp_mask & ~(SFAB_IBV_CREATE_QP_DBREC |
			      SFAB_IBV_CREATE_QP_DMABUF) ||
	    (dbrec && !dev->has_dbrec))
		return -EOPNOTSUPP;
	if (dmabuf ? udata->inlen < offsetofend(typeof(cmd), dmabuf_fd) :
		     cmd.dmabuf_fd != 0)
		return -EINVAL;
	if (memchr_inv(cmd.reserved_160, 0, sizeof(cmd.reserved_160)))
		return -EINVAL;
	/* with records, the SQ's and (without an SRQ) the RQ's */
	if (!dbrec && (cmd.sq_dbrec_off || cmd.rq_dbrec_off))
		return -EINVAL;
	if (dbrec && (udata->inlen < offsetofend(typeof(cmd), rq_dbrec_off) ||
		      !cmd.sq_dbrec_off || !cmd.rq_dbrec_off != !qp->has_rq))
		return -EINVAL;

	err = sfab_qp_geometry(dev, sfab_qp_type(init_attr->qp_type),
			       &init_attr->cap, &sq_log, &sq_stride, &rq_log,
			       &rq_stride);
	if (err)
		return err;
	if (cmd.sq_log_depth < sq_log || cmd.sq_log_stride < sq_stride ||
	    cmd.sq_log_depth > SFAB_RING_MAX_LOG_DEPTH ||
	    (1U << cmd.sq_log_depth) > max_wr ||
	    cmd.sq_log_stride > SFAB_SQ_MAX_LOG_STRIDE)
		return -EINVAL;
	if (qp->has_rq &&
	    (cmd.rq_log_depth < rq_log || cmd.rq_log_stride < rq_stride ||
	     cmd.rq_log_depth > SFAB_RING_MAX_LOG_DEPTH ||
	     (1U << cmd.rq_log_depth) > max_wr ||
	     cmd.rq_log_stride > SFAB_RQ_MAX_LOG_STRIDE))
		return -EINVAL;
	if (!qp->has_rq && (cmd.rq_log_depth || cmd.rq_log_stride ||
			    cmd.rq_buf_addr))
		return -EINVAL;

	sq_src.addr = cmd.sq_buf_addr;
	sq_src.dbrec_off = cmd.sq_dbrec_off;
	sq_src.dmabuf = dmabuf;
	sq_src.dmabuf_fd = cmd.dmabuf_fd;
	rq_src = sq_src;
	rq_src.addr = cmd.rq_buf_addr;
	rq_src.dbrec_off = cmd.rq_dbrec_off;
	err = sfab_wq_user(dev, &qp->sq, udata, &sq_src, cmd.sq_log_depth,
			   cmd.sq_log_stride, &params->sq);
	if (err)
		return err;
	if (qp->has_rq) {
		err = sfab_wq_user(dev, &qp->rq, udata, &rq_src,
				   cmd.rq_log_depth, cmd.rq_log_stride,
				   &params->rq);
		if (err) {
			sfab_wq_free(dev, &qp->sq);
			return err;
		}
	}
	return 0;
}

/*
 * The device's half of a QP whose rings are ready: CREATE_QP, its
 * doorbell records (before it leaves RESET), its QPN in qp_xa and, for a
 * process, the response.  0, or an errno with the device's QP gone again;
 * the rings stay the caller's to free.
 */
static int sfab_qp_publish(struct sfab_dev *dev, struct sfab_qp *qp,
			   const struct sfab_com_create_qp *params,
			   struct ib_udata *udata)
{
	struct sfab_ibv_create_qp_resp resp = {};
	int err;

	err = sfab_com_create_qp(&dev->edev, params, &qp->qpn);
	if (err)
		return err;
	if (qp->sq.dbrec_dma || qp->rq.dbrec_dma) {
		err = sfab_com_set_qp_dbrec(&dev->edev, qp->qpn,
					    qp->sq.dbrec_dma, qp->rq.dbrec_dma);
		if (err)
			goto err_destroy;
		resp.comp_mask |= SFAB_IBV_CREATE_QP_RESP_DBREC;
	}
	err = xa_err(xa_store(&dev->qp_xa, qp->qpn, qp, GFP_KERNEL));
	if (err)
		goto err_destroy;
	if (udata && udata->outlen) {
		resp.qpn = qp->qpn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err)
			goto err_erase;
	}
	qp->ibqp.qp_num = qp->qpn;
	return 0;

err_erase:
	xa_erase(&dev->qp_xa, qp->qpn);
err_destroy:
	if (sfab_com_destroy_qp(&dev->edev, qp->qpn))
		sfab_com_quiesce(&dev->edev);
	return err;
}

/*
 * XRC QPs (sfab_queue.h, "XRC"): an initiator, for processes only, has a
 * send queue in the provider's memory, its send CQ (ib_core makes it the
 * receive CQ too) and PD; a target has nothing but its domain.  ib_core
 * creates a target without udata, as the kernel's, and gives the process
 * that asked (and others of the domain, ib_open_qp()) a handle to it.
 */
static int sfab_create_xrc_qp(struct ib_qp *ibqp,
			      struct ib_qp_init_attr *init_attr,
			      struct ib_udata *udata, int type)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	struct sfab_com_create_qp params = {};
	int err;

	if (!dev->has_xrc || (type == SFAB_QPT_XRC_INI && !udata))
		return -EOPNOTSUPP;
	if (init_attr->srq)
		return -EINVAL;
	qp->port_num = SFAB_PORT_NUM;
	qp->sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	/* no ring of either is the kernel's to reset */
	qp->user = true;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->state_lock);
	init_attr->cap.max_recv_wr = 0;
	init_attr->cap.max_recv_sge = 0;
	params.qp_type = type;
	if (type == SFAB_QPT_XRC_INI) {
		struct sfab_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct sfab_ucontext,
						  ibucontext);

		err = sfab_user_qp_rings(dev, qp, init_attr, udata, &params);
		if (err) {
			ibdev_dbg(ibqp->device, "create_qp: XRC_INI rings refused: %d\n",
				  err);
			return err;
		}
		params.db_page = uctx->db_page;
		params.send_cqn = to_sfab_cq(init_attr->send_cq)->cqn;
		params.pdn = to_sfab_pd(ibqp->pd)->pdn;
		qp->max_send_sge = init_attr->cap.max_send_sge;
		qp->max_inline = init_attr->cap.max_inline_data;
	} else {
		memset(&init_attr->cap, 0, sizeof(init_attr->cap));
		params.xrcdn = to_sfab_xrcd(init_attr->xrcd)->xrcdn;
	}
	err = sfab_qp_publish(dev, qp, &params, udata);
	if (err)
		sfab_wq_free(dev, &qp->sq);
	return err;
}

int sfab_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	struct sfab_com_create_qp params;
	u8 sq_log, sq_stride, rq_log, rq_stride;
	u32 flags = 0;
	int type;
	int err;

	type = sfab_qp_type(init_attr->qp_type);
	if (type < 0)
		return type;
	if (init_attr->create_flags)
		return -EOPNOTSUPP;
	if (type == SFAB_QPT_XRC_INI || type == SFAB_QPT_XRC_TGT)
		return sfab_create_xrc_qp(ibqp, init_attr, udata, type);
	if ((type == SFAB_QPT_SMI || type == SFAB_QPT_GSI) &&
	    (init_attr->port_num != SFAB_PORT_NUM || udata || init_attr->srq))
		return -EINVAL;

	memset(&params, 0, sizeof(params));
	qp->port_num = SFAB_PORT_NUM;
	qp->sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->user = !!udata;
	qp->has_rq = !init_attr->srq;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->state_lock);
	if (init_attr->srq) {
		/* the SRQ's scatter limits are the QP's */
		init_attr->cap.max_recv_wr = 0;
		init_attr->cap.max_recv_sge = 0;
		flags |= SFAB_QP_SRQ;
		params.srqn = to_sfab_srq(init_attr->srq)->srqn;
	}

	if (udata) {
		struct sfab_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct sfab_ucontext,
						  ibucontext);

		err = sfab_user_qp_rings(dev, qp, init_attr, udata, &params);
		if (err) {
			ibdev_dbg(ibqp->device, "create_qp: user rings refused: %d\n",
				  err);
			return err;
		}
		params.db_page = uctx->db_page;
	} else {
		err = sfab_qp_geometry(dev, type, &init_attr->cap, &sq_log,
				       &sq_stride, &rq_log, &rq_stride);
		if (err) {
			ibdev_dbg(ibqp->device, "create_qp: unsupported caps\n");
			return err;
		}
		err = sfab_wq_alloc(dev, &qp->sq, sq_log, sq_stride, true);
		if (err)
			return err;
		sfab_ring_desc_contig(&params.sq, qp->sq.dma, sq_log, sq_stride);
		if (qp->has_rq) {
			err = sfab_wq_alloc(dev, &qp->rq, rq_log, rq_stride,
					    false);
			if (err)
				goto err_free_sq;
			sfab_ring_desc_contig(&params.rq, qp->rq.dma, rq_log,
					      rq_stride);
		}
		flags |= SFAB_QP_PRIV;
	}
	if (!qp->has_rq) {
		init_attr->cap.max_recv_wr = 0;
		init_attr->cap.max_recv_sge = 0;
	}
	qp->max_send_sge = init_attr->cap.max_send_sge;
	qp->max_recv_sge = init_attr->cap.max_recv_sge;
	qp->max_inline = init_attr->cap.max_inline_data;

	params.send_cqn = to_sfab_cq(init_attr->send_cq)->cqn;
	params.recv_cqn = to_sfab_cq(init_attr->recv_cq)->cqn;
	params.pdn = to_sfab_pd(ibqp->pd)->pdn;
	params.qp_type = type;
	params.port_num = type == SFAB_QPT_SMI || type == SFAB_QPT_GSI ?
			  init_attr->port_num : 0;
	params.flags = flags;
	err = sfab_qp_publish(dev, qp, &params, udata);
	if (!err)
		return 0;
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
	u16 i;

	/* a user CQ's ring is the provider's to clean */
	if (!cq->ring)
		return;
	/* not while the device copies the ring: a CQE could come back */
	mutex_lock(&cq->resize_lock);
	spin_lock_irq(&cq->lock);
	for (i = cq->cc; ; i++) {
		cqe = &cq->ring[sfab_ring_slot(i, cq->log_depth)];
		if (!sfab_cqe_is_new(cqe, i, cq->log_depth) ||
		    (u16)(i - cq->cc) >= 1U << cq->log_depth)
			break;
		dma_rmb();
		sfab_cqe_disown(cqe, qpn);
	}
	spin_unlock_irq(&cq->lock);
	mutex_unlock(&cq->resize_lock);
}

int sfab_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);

	/* rings the device may still touch must not be freed: stop it */
	if (sfab_com_destroy_qp(&dev->edev, qp->qpn))
		sfab_com_quiesce(&dev->edev);
	xa_erase(&dev->qp_xa, qp->qpn);
	/* an async event may have found the QP just before */
	synchronize_irq(pci_irq_vector(dev->pdev, SFAB_MSIX_AENQ));
	/*
	 * a poll that found the QP holds its CQ's lock: this waits for it
	 * (an XRC target has no CQ; its receives complete on its SRQs')
	 */
	if (ibqp->send_cq)
		sfab_cq_clean(to_sfab_cq(ibqp->send_cq), qp->qpn);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		sfab_cq_clean(to_sfab_cq(ibqp->recv_cq), qp->qpn);

	sfab_wq_free(dev, &qp->rq);
	sfab_wq_free(dev, &qp->sq);
	mutex_destroy(&qp->state_lock);
	return 0;
}

/* a MODIFY_QP path's or an AH's GRH from an address vector with IB_AH_GRH */
static void sfab_grh_from_ah(struct sfab_com_grh *g,
			     const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	memset(g, 0, sizeof(*g));
	memcpy(g->dgid, grh->dgid.raw, sizeof(g->dgid));
	g->flow_label = grh->flow_label & 0xfffff;
	g->sgid_index = grh->sgid_index;
	g->hop_limit = grh->hop_limit;
	g->traffic_class = grh->traffic_class;
}

/**
 * sfab_qp_cmd_build() - a MODIFY_QP command from ib_modify_qp's arguments
 * @p: the command's parameters, filled (@p->grh with SFAB_QP_ATTR_GRH)
 * @qpn: the QP
 * @attr: what ib_modify_qp was given (already checked by
 *	  ib_modify_qp_is_ok and against the device's limits)
 * @mask: its attribute mask
 * @next: the state the QP moves to
 * @retry_cnt: the QP's current retry count: the contract has one
 *	       attribute for it and @rnr_retry, so the one not being
 *	       changed is kept
 * @rnr_retry: the QP's current RNR retry count
 *
 * Return: the command's SFAB_QP_ATTR_* mask (also in @p->attr_mask).
 */
VISIBLE_IF_KUNIT u32 sfab_qp_cmd_build(struct sfab_com_qp_attr *p, u32 qpn,
				       const struct ib_qp_attr *attr, int mask,
				       enum ib_qp_state next, u8 retry_cnt,
				       u8 rnr_retry)
{
	u32 am = 0;

	memset(p, 0, sizeof(*p));
	p->qpn = qpn;
	if (mask & IB_QP_STATE) {
		am |= SFAB_QP_ATTR_STATE;
		p->state = next;
	}
	if (mask & IB_QP_QKEY) {
		am |= SFAB_QP_ATTR_QKEY;
		p->qkey = attr->qkey;
	}
	if (mask & IB_QP_PKEY_INDEX) {
		am |= SFAB_QP_ATTR_PKEY_INDEX;
		p->pkey_index = attr->pkey_index;
	}
	if (mask & IB_QP_PORT) {
		am |= SFAB_QP_ATTR_PORT;
		p->port_num = attr->port_num;
	}
	if (mask & IB_QP_SQ_PSN) {
		am |= SFAB_QP_ATTR_SQ_PSN;
		p->sq_psn = attr->sq_psn & 0xffffff;
	}
	if (mask & IB_QP_RQ_PSN) {
		am |= SFAB_QP_ATTR_RQ_PSN;
		p->rq_psn = attr->rq_psn & 0xffffff;
	}
	if (mask & IB_QP_DEST_QPN) {
		am |= SFAB_QP_ATTR_DEST_QPN;
		p->dest_qpn = attr->dest_qp_num & 0xffffff;
	}
	if (mask & IB_QP_PATH_MTU) {
		am |= SFAB_QP_ATTR_PATH_MTU;
		p->path_mtu = attr->path_mtu;
	}
	if (mask & IB_QP_AV) {
		am |= SFAB_QP_ATTR_AV;
		p->dlid = rdma_ah_get_dlid(&attr->ah_attr);
		p->sl = rdma_ah_get_sl(&attr->ah_attr);
		p->src_path_bits = rdma_ah_get_path_bits(&attr->ah_attr);
		if (rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH) {
			am |= SFAB_QP_ATTR_GRH;
			sfab_grh_from_ah(&p->grh, &attr->ah_attr);
		}
	}
	if (mask & IB_QP_ACCESS_FLAGS) {
		am |= SFAB_QP_ATTR_ACCESS;
		p->access_flags = attr->qp_access_flags & SFAB_QP_ACCESS_HW;
	}
	if (mask & IB_QP_TIMEOUT) {
		am |= SFAB_QP_ATTR_TIMEOUT;
		p->timeout = attr->timeout;
	}
	if (mask & (IB_QP_RETRY_CNT | IB_QP_RNR_RETRY)) {
		/* one attribute in the contract: keep the other's value */
		am |= SFAB_QP_ATTR_RETRY;
		p->retry_cnt = mask & IB_QP_RETRY_CNT ? attr->retry_cnt : retry_cnt;
		p->rnr_retry = mask & IB_QP_RNR_RETRY ? attr->rnr_retry : rnr_retry;
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		am |= SFAB_QP_ATTR_MIN_RNR_TIMER;
		p->min_rnr_timer = attr->min_rnr_timer;
	}
	if (mask & (IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC)) {
		am |= SFAB_QP_ATTR_RD_ATOMIC;
		if (mask & IB_QP_MAX_QP_RD_ATOMIC)
			p->max_rd_atomic = attr->max_rd_atomic;
		if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
			p->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	}
	p->attr_mask = am;
	return am;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_qp_cmd_build);

/**
 * sfab_qp_keep_rd_atomic() - complete a command's SFAB_QP_ATTR_RD_ATOMIC
 * @p: the command sfab_qp_cmd_build() made
 * @mask: what ib_modify_qp was given
 * @max_rd_atomic: the QP's current value
 * @max_dest_rd_atomic: the QP's current value
 *
 * One contract attribute covers both; SQD -> SQD applies both, so the one
 * not being changed keeps its value.
 */
VISIBLE_IF_KUNIT void sfab_qp_keep_rd_atomic(struct sfab_com_qp_attr *p, int mask,
					     u8 max_rd_atomic,
					     u8 max_dest_rd_atomic)
{
	if (!(p->attr_mask & SFAB_QP_ATTR_RD_ATOMIC))
		return;
	if (!(mask & IB_QP_MAX_QP_RD_ATOMIC))
		p->max_rd_atomic = max_rd_atomic;
	if (!(mask & IB_QP_MAX_DEST_RD_ATOMIC))
		p->max_dest_rd_atomic = max_dest_rd_atomic;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_qp_keep_rd_atomic);

/**
 * sfab_qp_sqd_notify() - whether the consumer gets IB_EVENT_SQ_DRAINED
 * @cur: the state the QP is in
 * @next: the state it moves to
 * @mask: what ib_modify_qp was given: the attribute mask
 * @attr: and the attributes
 * @was: the QP's setting before
 *
 * The device raises SFAB_QP_EV_SQ_DRAINED on every entry into SQD; the
 * consumer asks for it with IB_QP_EN_SQD_ASYNC_NOTIFY on RTS -> SQD, and
 * SQD -> SQD keeps what it asked.
 *
 * Return: true when the event is forwarded after the transition.
 */
VISIBLE_IF_KUNIT bool sfab_qp_sqd_notify(enum ib_qp_state cur,
					 enum ib_qp_state next, int mask,
					 const struct ib_qp_attr *attr, bool was)
{
	if (next != IB_QPS_SQD)
		return false;
	if (cur == IB_QPS_SQD)
		return was;
	return (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) && attr->en_sqd_async_notify;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_qp_sqd_notify);

int sfab_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	enum ib_qp_state cur, next;
	struct sfab_com_qp_attr p;
	bool notify, was, lost;
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
	    ((mask & IB_QP_PKEY_INDEX) &&
	     attr->pkey_index >= SFAB_PORT_PKEY_TBL_LEN) ||
	    ((mask & IB_QP_PATH_MTU) &&
	     (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)) ||
	    ((mask & IB_QP_AV) &&
	     (attr->ah_attr.type != RDMA_AH_ATTR_TYPE_IB ||
	      rdma_ah_get_port_num(&attr->ah_attr) != SFAB_PORT_NUM))) {
		err = -EINVAL;
		goto out;
	}
	if ((mask & IB_QP_AV) &&
	    (rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH) &&
	    rdma_ah_read_grh(&attr->ah_attr)->sgid_index) {
		/* the port has one GID */
		err = -EINVAL;
		goto out;
	}
	if (((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	     attr->max_rd_atomic > dev->attr.max_qp_rd_atom) ||
	    ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	     attr->max_dest_rd_atomic > dev->attr.max_qp_rd_atom)) {
		err = -EINVAL;
		goto out;
	}

	am = sfab_qp_cmd_build(&p, qp->qpn, attr, mask, next,
			       qp->retry_cnt, qp->rnr_retry);
	sfab_qp_keep_rd_atomic(&p, mask, qp->max_rd_atomic,
			       qp->max_dest_rd_atomic);

	/* set before: the event may come before the command completes */
	was = qp->sqd_notify;
	notify = sfab_qp_sqd_notify(cur, next, mask, attr, was);
	WRITE_ONCE(qp->sqd_notify, notify);
	/*
	 * A lost device's QPs are gone with it: to Error or Reset is the
	 * driver's own move (its WQEs flushed by sfab_cq_flush_lost()), so
	 * that ib_drain_qp() and the teardown of kernel consumers work
	 */
	lost = sfab_dev_is_lost(dev) && !qp->user &&
	       (next == IB_QPS_ERR || next == IB_QPS_RESET);
	err = lost ? 0 : sfab_com_modify_qp(&dev->edev, &p);
	if (err) {
		WRITE_ONCE(qp->sqd_notify, was);
		goto out;
	}

	if (next == IB_QPS_RESET && cur != IB_QPS_RESET && !qp->user) {
		/* the device forgot the rings' contents: start them over */
		sfab_cq_clean(to_sfab_cq(ibqp->send_cq), qp->qpn);
		if (ibqp->recv_cq != ibqp->send_cq)
			sfab_cq_clean(to_sfab_cq(ibqp->recv_cq), qp->qpn);
		spin_lock_irq(&qp->sq.lock);
		qp->sq.pi = 0;
		WRITE_ONCE(qp->sq.ci, 0);
		if (qp->sq.dbrec)
			sfab_dbrec_set(qp->sq.dbrec, 0);
		spin_unlock_irq(&qp->sq.lock);
		if (qp->has_rq) {
			spin_lock_irq(&qp->rq.lock);
			qp->rq.pi = 0;
			WRITE_ONCE(qp->rq.ci, 0);
			if (qp->rq.dbrec)
				sfab_dbrec_set(qp->rq.dbrec, 0);
			spin_unlock_irq(&qp->rq.lock);
		}
	}
	if (am & SFAB_QP_ATTR_RETRY) {
		qp->retry_cnt = p.retry_cnt;
		qp->rnr_retry = p.rnr_retry;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = p.max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = p.max_dest_rd_atomic;
	WRITE_ONCE(qp->state, next);
	if (lost && next == IB_QPS_ERR && cur != IB_QPS_ERR && ibqp->srq &&
	    ibqp->event_handler) {
		/* as the device would (__ib_drain_srq() waits for it) */
		struct ib_event ibev = {
			.device = ibqp->device,
			.event = IB_EVENT_QP_LAST_WQE_REACHED,
			.element.qp = ibqp,
		};

		ibqp->event_handler(&ibev, ibqp->qp_context);
	}
	if (lost && next == IB_QPS_ERR) {
		sfab_cq_kick_one(ibqp->send_cq);
		if (ibqp->recv_cq != ibqp->send_cq)
			sfab_cq_kick_one(ibqp->recv_cq);
	}
out:
	mutex_unlock(&qp->state_lock);
	return err;
}

static int sfab_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_qp_init_attr *init_attr)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	struct sfab_com_qp_attr *a;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	err = sfab_com_query_qp(&dev->edev, qp->qpn, a);
	if (err)
		goto out;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	attr->qp_state = a->state <= IB_QPS_ERR ? a->state : IB_QPS_ERR;
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = a->path_mtu;
	attr->qkey = a->qkey;
	attr->rq_psn = a->rq_psn;
	attr->sq_psn = a->sq_psn;
	attr->dest_qp_num = a->dest_qpn;
	attr->qp_access_flags = a->access_flags;
	attr->pkey_index = a->pkey_index;
	attr->port_num = qp->port_num;
	attr->timeout = a->timeout;
	attr->retry_cnt = a->retry_cnt;
	attr->rnr_retry = a->rnr_retry;
	attr->min_rnr_timer = a->min_rnr_timer;
	attr->max_rd_atomic = a->max_rd_atomic;
	attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	/* SQD: whether sends begun before it are still outstanding */
	attr->sq_draining = !!(a->flags & SFAB_QP_QUERY_SQ_DRAINING);
	attr->en_sqd_async_notify = READ_ONCE(qp->sqd_notify);
	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(&attr->ah_attr, qp->port_num);
	rdma_ah_set_dlid(&attr->ah_attr, a->dlid);
	rdma_ah_set_sl(&attr->ah_attr, a->sl);
	rdma_ah_set_path_bits(&attr->ah_attr, a->src_path_bits);
	if (a->attr_mask & SFAB_QP_ATTR_GRH) {
		union ib_gid dgid;

		memcpy(dgid.raw, a->grh.dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(&attr->ah_attr, &dgid, a->grh.flow_label,
				a->grh.sgid_index, a->grh.hop_limit,
				a->grh.traffic_class);
	}
	attr->cap.max_send_wr = ibqp->qp_type == IB_QPT_XRC_TGT ? 0 :
				1U << qp->sq.log_depth;
	attr->cap.max_recv_wr = qp->has_rq ? 1U << qp->rq.log_depth : 0;
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
	kfree(a);
	return err;
}

/* ---- posting send and receive WQEs ------------------------------------------- */

static void sfab_sge_set(struct sfab_sge *dst, const struct ib_sge *src)
{
	dst->addr = cpu_to_le64(src->addr);
	dst->length = cpu_to_le32(src->length);
	dst->lkey = cpu_to_le32(src->lkey);
}

/* copy the SGEs' bytes (kernel virtual addresses) after an inline header */
static int sfab_wqe_copy_inline(void *wqe, unsigned int room,
				const struct ib_send_wr *s,
				u32 max_inline)
{
	int err;

	SFAB_WQE_INLINE_FILL(wqe, room, s->sg_list, s->num_sge, max_inline, err);
	return err;
}

/**
 * sfab_wqe_build_ud() - build a UD, SMI or GSI send WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per send WQE
 * @wr: the work request
 * @av: its destination, from the AH
 * @max_inline: the QP's inline limit; IB_SEND_INLINE copies the SGEs'
 *	bytes (kernel virtual addresses) into the WQE
 * @signaled: ask the device for a completion
 *
 * Return: 0, or -EINVAL for an opcode, SGE count or inline length the WQE
 * cannot carry.
 */
VISIBLE_IF_KUNIT int sfab_wqe_build_ud(void *wqe, unsigned int stride,
				       const struct ib_ud_wr *wr,
				       const struct sfab_ud_av *av, u32 max_inline,
				       bool signaled)
{
	const struct ib_send_wr *s = &wr->wr;
	struct sfab_wqe_ctrl *ctrl = wqe;
	struct sfab_wqe_ud *ud = wqe + sizeof(*ctrl);
	/* a global address: the GRH segment follows the UD address */
	size_t hdr = SFAB_UD_WQE_HDR_LEN +
		     (av->global ? sizeof(struct sfab_wqe_grh) : 0);
	struct sfab_sge *sge = wqe + hdr;
	u8 opcode;
	int err;
	int i;

	switch (s->opcode) {
	case IB_WR_SEND:
		opcode = SFAB_WQE_SEND;
		break;
	case IB_WR_SEND_WITH_IMM:
		opcode = SFAB_WQE_SEND_IMM;
		break;
	default:
		return -EINVAL;
	}
	if (s->num_sge < 0 || stride < hdr)
		return -EINVAL;
	if (s->send_flags & IB_SEND_INLINE) {
		err = sfab_wqe_copy_inline(wqe + hdr, stride - hdr, s,
					   max_inline);
		if (err)
			return err;
	} else if (hdr + s->num_sge * sizeof(*sge) > stride) {
		return -EINVAL;
	}

	memset(wqe, 0, hdr);
	ctrl->opcode = opcode;
	if (signaled)
		ctrl->flags |= SFAB_WQE_SIGNALED;
	if (s->send_flags & IB_SEND_SOLICITED)
		ctrl->flags |= SFAB_WQE_SOLICITED;
	if (s->send_flags & IB_SEND_FENCE)
		ctrl->flags |= SFAB_WQE_FENCE;
	if (opcode == SFAB_WQE_SEND_IMM)
		ctrl->imm_data = s->ex.imm_data;
	ctrl->wr_id = cpu_to_le64(s->wr_id);

	ud->dest_qpn = cpu_to_le32(wr->remote_qpn & SFAB_DB_QPN_MASK);
	ud->qkey = cpu_to_le32(wr->remote_qkey);
	ud->dlid = cpu_to_le16(av->dlid);
	ud->sl = av->sl;
	ud->src_path_bits = av->src_path_bits;
	ud->pkey_index = cpu_to_le16(wr->pkey_index);
	ud->port_num = av->port_num;
	if (av->global) {
		ctrl->flags |= SFAB_WQE_GRH;
		memcpy(wqe + SFAB_UD_WQE_HDR_LEN, &av->grh, sizeof(av->grh));
	}

	if (s->send_flags & IB_SEND_INLINE) {
		ctrl->flags |= SFAB_WQE_INLINE;
		return 0;
	}
	ctrl->num_sge = s->num_sge;
	for (i = 0; i < s->num_sge; i++)
		sfab_sge_set(&sge[i], &s->sg_list[i]);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_wqe_build_ud);

/* what follows the control segment of an RC or UC send WQE */
static int sfab_wqe_rc_opcode(enum ib_wr_opcode op, bool uc, u8 *opcode,
			      size_t *seg)
{
	*seg = 0;
	switch (op) {
	case IB_WR_SEND:
		*opcode = SFAB_WQE_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		*opcode = SFAB_WQE_SEND_IMM;
		return 0;
	case IB_WR_SEND_WITH_INV:
		*opcode = SFAB_WQE_SEND_INV;
		return uc ? -EINVAL : 0;
	case IB_WR_RDMA_WRITE:
		*opcode = SFAB_WQE_RDMA_WRITE;
		*seg = sizeof(struct sfab_wqe_raddr);
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*opcode = SFAB_WQE_RDMA_WRITE_IMM;
		*seg = sizeof(struct sfab_wqe_raddr);
		return 0;
	case IB_WR_RDMA_READ:
		*opcode = SFAB_WQE_RDMA_READ;
		*seg = sizeof(struct sfab_wqe_raddr);
		return uc ? -EINVAL : 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*opcode = SFAB_WQE_ATOMIC_CS;
		*seg = sizeof(struct sfab_wqe_raddr) +
		       sizeof(struct sfab_wqe_atomic);
		return uc ? -EINVAL : 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*opcode = SFAB_WQE_ATOMIC_FA;
		*seg = sizeof(struct sfab_wqe_raddr) +
		       sizeof(struct sfab_wqe_atomic);
		return uc ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

static void sfab_wqe_ctrl_set(struct sfab_wqe_ctrl *ctrl, u8 opcode,
			      const struct ib_send_wr *s, bool signaled)
{
	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->opcode = opcode;
	if (signaled)
		ctrl->flags |= SFAB_WQE_SIGNALED;
	if (s->send_flags & IB_SEND_SOLICITED)
		ctrl->flags |= SFAB_WQE_SOLICITED;
	if (s->send_flags & IB_SEND_FENCE)
		ctrl->flags |= SFAB_WQE_FENCE;
	ctrl->wr_id = cpu_to_le64(s->wr_id);
}

/**
 * sfab_wqe_build_rc() - build an RC or UC send, RDMA or atomic WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per send WQE
 * @s: the work request (rdma_wr() and atomic_wr() for those opcodes)
 * @uc: the QP is UC: no READ, atomics or SEND_WITH_INV
 * @max_inline: the QP's inline limit; IB_SEND_INLINE copies the SGEs'
 *	bytes (kernel virtual addresses) into the WQE
 * @signaled: ask the device for a completion
 *
 * Layout: control, then struct sfab_wqe_raddr for RDMA and atomics, then
 * struct sfab_wqe_atomic for atomics, then the SGEs or the inline data.
 * An atomic takes exactly one 8-byte SGE and no inline data.
 *
 * Return: 0, or -EINVAL for what the WQE or the transport cannot carry.
 */
VISIBLE_IF_KUNIT int sfab_wqe_build_rc(void *wqe, unsigned int stride,
				       const struct ib_send_wr *s, bool uc,
				       u32 max_inline, bool signaled)
{
	struct sfab_wqe_ctrl *ctrl = wqe;
	struct sfab_wqe_raddr *ra = wqe + sizeof(*ctrl);
	struct sfab_wqe_atomic *at = wqe + sizeof(*ctrl) + sizeof(*ra);
	bool inl = s->send_flags & IB_SEND_INLINE;
	struct sfab_sge *sge;
	size_t hdr, seg;
	u8 opcode;
	int err;
	int i;

	err = sfab_wqe_rc_opcode(s->opcode, uc, &opcode, &seg);
	if (err)
		return err;
	hdr = sizeof(*ctrl) + seg;
	if (s->num_sge < 0 || stride < hdr)
		return -EINVAL;
	if (opcode == SFAB_WQE_ATOMIC_CS || opcode == SFAB_WQE_ATOMIC_FA) {
		if (inl || s->num_sge != 1 || s->sg_list[0].length != 8)
			return -EINVAL;
	}
	if (opcode == SFAB_WQE_RDMA_READ && inl)
		return -EINVAL;
	if (inl) {
		err = sfab_wqe_copy_inline(wqe + hdr, stride - hdr, s,
					   max_inline);
		if (err)
			return err;
	} else if (hdr + s->num_sge * sizeof(*sge) > stride) {
		return -EINVAL;
	}

	sfab_wqe_ctrl_set(ctrl, opcode, s, signaled);
	if (opcode == SFAB_WQE_SEND_IMM || opcode == SFAB_WQE_RDMA_WRITE_IMM)
		ctrl->imm_data = s->ex.imm_data;
	if (opcode == SFAB_WQE_SEND_INV)
		ctrl->imm_data = (__force __be32)cpu_to_le32(s->ex.invalidate_rkey);

	if (seg) {
		memset(ra, 0, sizeof(*ra));
		if (opcode == SFAB_WQE_ATOMIC_CS || opcode == SFAB_WQE_ATOMIC_FA) {
			const struct ib_atomic_wr *a = atomic_wr(s);

			ra->remote_addr = cpu_to_le64(a->remote_addr);
			ra->rkey = cpu_to_le32(a->rkey);
			at->swap_add = cpu_to_le64(opcode == SFAB_WQE_ATOMIC_CS ?
						   a->swap : a->compare_add);
			at->compare = cpu_to_le64(opcode == SFAB_WQE_ATOMIC_CS ?
						  a->compare_add : 0);
		} else {
			const struct ib_rdma_wr *r = rdma_wr(s);

			ra->remote_addr = cpu_to_le64(r->remote_addr);
			ra->rkey = cpu_to_le32(r->rkey);
		}
	}

	if (inl) {
		ctrl->flags |= SFAB_WQE_INLINE;
		return 0;
	}
	sge = wqe + hdr;
	ctrl->num_sge = s->num_sge;
	for (i = 0; i < s->num_sge; i++)
		sfab_sge_set(&sge[i], &s->sg_list[i]);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_wqe_build_rc);

/**
 * sfab_wqe_build_reg_mr() - build a REG_MR WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per send WQE
 * @s: the IB_WR_REG_MR work request (its wr_id and flags)
 * @fr: the registration
 * @signaled: ask the device for a completion
 *
 * Return: 0, or -EINVAL when the WQE does not fit.
 */
VISIBLE_IF_KUNIT int sfab_wqe_build_reg_mr(void *wqe, unsigned int stride,
					   const struct ib_send_wr *s,
					   const struct sfab_fast_reg *fr,
					   bool signaled)
{
	struct sfab_wqe_ctrl *ctrl = wqe;
	struct sfab_wqe_reg_mr *r = wqe + sizeof(*ctrl);

	if (stride < sizeof(*ctrl) + sizeof(*r))
		return -EINVAL;
	sfab_wqe_ctrl_set(ctrl, SFAB_WQE_REG_MR, s, signaled);
	memset(r, 0, sizeof(*r));
	r->iova = cpu_to_le64(fr->iova);
	r->length = cpu_to_le64(fr->length);
	r->pbl_addr = cpu_to_le64(fr->pbl_dma);
	r->key = cpu_to_le32(fr->key);
	r->access = cpu_to_le32(fr->access);
	r->npages = cpu_to_le32(fr->npages);
	r->page_shift = fr->page_shift;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_wqe_build_reg_mr);

/**
 * sfab_wqe_build_local_inv() - build a LOCAL_INV WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per send WQE
 * @s: the IB_WR_LOCAL_INV work request (ex.invalidate_rkey)
 * @signaled: ask the device for a completion
 *
 * Return: 0, or -EINVAL when the WQE does not fit.
 */
VISIBLE_IF_KUNIT int sfab_wqe_build_local_inv(void *wqe, unsigned int stride,
					      const struct ib_send_wr *s,
					      bool signaled)
{
	struct sfab_wqe_ctrl *ctrl = wqe;

	if (stride < sizeof(*ctrl))
		return -EINVAL;
	sfab_wqe_ctrl_set(ctrl, SFAB_WQE_LOCAL_INV, s, signaled);
	/* the key in the device's byte order, as SEND_INV carries it */
	ctrl->imm_data = (__force __be32)cpu_to_le32(s->ex.invalidate_rkey);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_wqe_build_local_inv);

/**
 * sfab_rwqe_build() - build a receive WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per receive WQE
 * @wr: the work request
 *
 * Return: 0, or -EINVAL when the SGEs do not fit.
 */
VISIBLE_IF_KUNIT int sfab_rwqe_build(void *wqe, unsigned int stride,
				     const struct ib_recv_wr *wr)
{
	struct sfab_rwqe_ctrl *ctrl = wqe;
	struct sfab_sge *sge = wqe + sizeof(*ctrl);
	int i;

	if (wr->num_sge < 0 ||
	    sizeof(*ctrl) + wr->num_sge * sizeof(*sge) > stride)
		return -EINVAL;

	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->wr_id = cpu_to_le64(wr->wr_id);
	ctrl->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++)
		sfab_sge_set(&sge[i], &wr->sg_list[i]);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_rwqe_build);

static bool sfab_qp_can_send(enum ib_qp_state state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE || state == IB_QPS_ERR;
}

/*
 * one send WQE of a kernel QP; @signaled: ask for a CQE (without
 * SFAB_DEV_CAP_CQE_WQE_INDEX always: sfab_poll_cq() hides)
 */
static int sfab_build_send(struct sfab_qp *qp, void *wqe, unsigned int stride,
			   const struct ib_send_wr *wr, bool signaled)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	const struct ib_ud_wr *ud;
	struct sfab_fast_reg fr;
	struct sfab_mr *mr;

	if (wr->opcode == IB_WR_LOCAL_INV) {
		if (type == IB_QPT_SMI || type == IB_QPT_GSI)
			return -EINVAL;
		return sfab_wqe_build_local_inv(wqe, stride, wr, signaled);
	}
	if (wr->opcode == IB_WR_REG_MR) {
		if (type == IB_QPT_SMI || type == IB_QPT_GSI)
			return -EINVAL;
		mr = to_sfab_mr(reg_wr(wr)->mr);
		if (mr->kind != SFAB_MR_FAST || !mr->npages ||
		    !is_power_of_2(mr->ibmr.page_size))
			return -EINVAL;
		fr.iova = mr->ibmr.iova;
		fr.length = mr->ibmr.length;
		fr.pbl_dma = mr->pages_dma;
		fr.key = reg_wr(wr)->key;
		fr.access = sfab_access(reg_wr(wr)->access);
		fr.npages = mr->npages;
		fr.page_shift = ilog2(mr->ibmr.page_size);
		return sfab_wqe_build_reg_mr(wqe, stride, wr, &fr, signaled);
	}
	if (type == IB_QPT_RC || type == IB_QPT_UC)
		return sfab_wqe_build_rc(wqe, stride, wr, type == IB_QPT_UC,
					 qp->max_inline, signaled);
	ud = ud_wr(wr);
	if (!ud->ah)
		return -EINVAL;
	return sfab_wqe_build_ud(wqe, stride, ud, &to_sfab_ah(ud->ah)->av,
				 qp->max_inline, signaled);
}

/*
 * A lost device takes no new work on a QP that its consumer has not moved
 * to Error: the post fails with -EIO, as on mlx5 in its internal error
 * state, so that a consumer waiting for an answer learns at once (an
 * nvme-rdma command fails with a host path error instead of waiting out
 * its timeout).  A QP in Error still takes WRs, which are flushed
 * (sfab_cq_flush_lost()): ib_drain_qp() posts its marker there.  Work
 * posted as the device is lost is flushed too.
 */
static bool sfab_lost_refuses(struct sfab_dev *dev, struct sfab_qp *qp)
{
	return sfab_dev_is_lost(dev) && READ_ONCE(qp->state) != IB_QPS_ERR;
}

static int sfab_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	struct sfab_wq *sq = &qp->sq;
	unsigned long flags;
	unsigned int n = 0;
	bool signaled, lost;
	u16 slot;
	int err = 0;

	if (!sfab_qp_can_send(READ_ONCE(qp->state))) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (unlikely(sfab_lost_refuses(dev, qp))) {
		*bad_wr = wr;
		return -EIO;
	}

	spin_lock_irqsave(&sq->lock, flags);
	for (; wr; wr = wr->next) {
		if (!sfab_ring_free(sq->pi, READ_ONCE(sq->ci), sq->log_depth)) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge > qp->max_send_sge &&
		    !(wr->send_flags & IB_SEND_INLINE)) {
			err = -EINVAL;
			break;
		}
		slot = sfab_ring_slot(sq->pi, sq->log_depth);
		signaled = qp->sig_all || (wr->send_flags & IB_SEND_SIGNALED);
		/*
		 * Without the CQE's WQE index the driver counts every send's
		 * CQE: the device signals all, poll_cq hides the unsignaled.
		 */
		err = sfab_build_send(qp, sq->ring + ((size_t)slot << sq->log_stride),
				      1U << sq->log_stride, wr,
				      signaled || sq->unsignaled);
		if (err)
			break;
		if (sq->unsignaled)
			assign_bit(slot, sq->unsignaled, !signaled);
		sq->pi++;
		n++;
	}
	lost = sfab_dev_is_lost(dev);
	if (n && !lost) {
		/* the record, then the doorbell: the trigger (sfab_ring.h) */
		if (sq->dbrec) {
			dma_wmb();
			sfab_dbrec_set(sq->dbrec, sq->pi);
		}
		sfab_db_ring(dev, SFAB_DB_SQ, qp->qpn, sq->pi, 0);
	}
	spin_unlock_irqrestore(&sq->lock, flags);

	/* a lost device flushes them (sfab_cq_flush_lost()) */
	if (n && lost)
		sfab_cq_kick_one(ibqp->send_cq);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * sfab_wq_post_recv() - build receive WQEs into @rq and ring its doorbell
 * (@db_reg: SFAB_DB_RQ or SFAB_DB_SRQ, for queue @num) once for all of
 * them; a QP's receive queue and an SRQ post the same way.  With a
 * doorbell record the new index goes there first; an SRQ then needs no
 * doorbell, an RQ still rings one so that receives posted to a QP in
 * Error are flushed at once (ib_drain_rq(); sfab_ring.h).
 */
static int sfab_wq_post_recv(struct sfab_dev *dev, struct sfab_wq *rq,
			     unsigned int db_reg, u32 num, u32 max_sge,
			     const struct ib_recv_wr *wr,
			     const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	unsigned int n = 0;
	u16 slot;
	int err = 0;

	spin_lock_irqsave(&rq->lock, flags);
	/* a kernel SRQ moving to a new ring (sfab_resize_kernel_srq()) */
	if (rq->resizing)
		err = -EBUSY;
	for (; wr && !err; wr = wr->next) {
		if (!sfab_ring_free(rq->pi, READ_ONCE(rq->ci), rq->log_depth)) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge > max_sge) {
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
	if (n && rq->dbrec) {
		dma_wmb();
		sfab_dbrec_set(rq->dbrec, rq->pi);
	}
	/* a lost device is not rung (sfab_post_recv() has it flushed) */
	if (n && (!rq->dbrec || db_reg != SFAB_DB_SRQ) &&
	    !sfab_dev_is_lost(dev))
		sfab_db_ring(dev, db_reg, num, rq->pi, 0);
	spin_unlock_irqrestore(&rq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

static int sfab_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	int err;

	if (!qp->has_rq || READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (unlikely(sfab_lost_refuses(dev, qp))) {
		*bad_wr = wr;
		return -EIO;
	}
	err = sfab_wq_post_recv(dev, &qp->rq, SFAB_DB_RQ, qp->qpn,
				qp->max_recv_sge, wr, bad_wr);
	/* a lost device flushes them (sfab_cq_flush_lost()) */
	if (unlikely(sfab_dev_is_lost(dev)) && !qp->user)
		sfab_cq_kick_one(ibqp->recv_cq);
	return err;
}

/* ---- shared receive queues ----------------------------------------------------- */

static int sfab_srq_user_ring(struct sfab_dev *dev, struct sfab_srq *srq,
			      struct ib_udata *udata, u8 log_depth, u8 log_stride,
			      struct sfab_com_ring *desc)
{
	struct sfab_ibv_create_srq cmd = {};
	struct sfab_uring src = {};
	bool dbrec;
	int err;

	err = sfab_udata_cmd(udata, &cmd, sizeof(cmd),
			     offsetofend(typeof(cmd), buf_addr),
			     sizeof(struct sfab_ibv_create_srq_resp));
	if (err)
		return err;
	/* Documentation/sfab/verbs.rst, "Bad requests" */
	dbrec = cmd.comp_mask & SFAB_IBV_CREATE_SRQ_DBREC;
	if (cmd.comp_mask & ~SFAB_IBV_CREATE_SRQ_DBREC ||
	    (dbrec && !dev->has_dbrec))
		return -EOPNOTSUPP;
	if (dbrec != !!cmd.dbrec_off ||
	    (dbrec && udata->inlen < offsetofend(typeof(cmd), dbrec_off)))
		return -EINVAL;
	if (memchr_inv(cmd.reserved_30, 0, sizeof(cmd.reserved_30)))
		return -EINVAL;
	if (cmd.log_depth < log_depth || cmd.log_stride < log_stride ||
	    cmd.log_depth > SFAB_RING_MAX_LOG_DEPTH ||
	    (1U << cmd.log_depth) > dev->attr.max_srq_wr ||
	    cmd.log_stride > SFAB_RQ_MAX_LOG_STRIDE)
		return -EINVAL;
	src.addr = cmd.buf_addr;
	src.dbrec_off = cmd.dbrec_off;
	return sfab_wq_user(dev, &srq->rq, udata, &src, cmd.log_depth,
			    cmd.log_stride, desc);
}

static int sfab_create_srq(struct ib_srq *ibsrq,
			   struct ib_srq_init_attr *init_attr,
			   struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibsrq->device);
	struct sfab_srq *srq = to_sfab_srq(ibsrq);
	struct ib_srq_attr *attr = &init_attr->attr;
	struct sfab_ibv_create_srq_resp resp = {};
	struct sfab_com_create_srq params;
	u32 max_sge = dev->attr.max_srq_sge;
	int log_depth, log_stride;
	int err;

	/* XRC SRQs complete on a process's CQ, which only it polls */
	if (init_attr->srq_type != IB_SRQT_BASIC &&
	    (init_attr->srq_type != IB_SRQT_XRC || !dev->has_xrc || !udata))
		return -EOPNOTSUPP;
	if (!max_sge)
		max_sge = dev->attr.max_sge;
	if (attr->max_sge > max_sge)
		return -EINVAL;
	log_depth = sfab_queue_log_depth(max(attr->max_wr, 1U),
					 dev->attr.max_srq_wr);
	log_stride = sfab_rq_log_stride(max(attr->max_sge, 1U));
	if (log_depth < 0 || log_stride < 0 || attr->srq_limit > attr->max_wr)
		return -EINVAL;

	memset(&params, 0, sizeof(params));
	srq->user = !!udata;
	mutex_init(&srq->lock);
	if (udata) {
		struct sfab_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct sfab_ucontext,
						  ibucontext);

		err = sfab_srq_user_ring(dev, srq, udata, log_depth, log_stride,
					 &params.ring);
		if (err)
			return err;
		params.db_page = uctx->db_page;
	} else {
		err = sfab_wq_alloc(dev, &srq->rq, log_depth, log_stride, false);
		if (err)
			return err;
		sfab_ring_desc_contig(&params.ring, srq->rq.dma, log_depth,
				      log_stride);
	}
	params.pdn = to_sfab_pd(ibsrq->pd)->pdn;
	if (init_attr->srq_type == IB_SRQT_XRC) {
		params.xrc = true;
		params.cqn = to_sfab_cq(init_attr->ext.cq)->cqn;
		params.xrcdn = to_sfab_xrcd(init_attr->ext.xrc.xrcd)->xrcdn;
	}
	params.limit = attr->srq_limit;
	params.dbrec = srq->rq.dbrec_dma;
	err = sfab_com_create_srq(&dev->edev, &params, &srq->srqn);
	if (err)
		goto err_free;
	/* uverbs tells the process an XRC SRQ's number from here */
	if (params.xrc)
		ibsrq->ext.xrc.srq_num = srq->srqn;

	err = xa_err(xa_store(&dev->srq_xa, srq->srqn, srq, GFP_KERNEL));
	if (err)
		goto err_destroy;
	if (udata) {
		resp.srqn = srq->srqn;
		if (params.dbrec)
			resp.comp_mask |= SFAB_IBV_CREATE_SRQ_RESP_DBREC;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_erase;
	}

	srq->limit = attr->srq_limit;
	srq->max_sge = ((1U << srq->rq.log_stride) -
			sizeof(struct sfab_rwqe_ctrl)) / sizeof(struct sfab_sge);
	srq->max_sge = min(srq->max_sge, max_sge);
	attr->max_wr = 1U << srq->rq.log_depth;
	attr->max_sge = srq->max_sge;
	return 0;

err_erase:
	xa_erase(&dev->srq_xa, srq->srqn);
err_destroy:
	if (sfab_com_destroy_srq(&dev->edev, srq->srqn))
		sfab_com_quiesce(&dev->edev);
err_free:
	sfab_wq_free(dev, &srq->rq);
	mutex_destroy(&srq->lock);
	return err;
}

/*
 * IB_SRQ_MAX_WR of a kernel SRQ: a new ring (and record, holding pi);
 * posts fail with -EBUSY while the device copies the WQEs not completed.
 */
static int sfab_resize_kernel_srq(struct sfab_dev *dev, struct sfab_srq *srq,
				  u8 log_depth)
{
	struct sfab_com_resize_srq p = {};
	struct sfab_wq *rq = &srq->rq;
	u8 old_log = rq->log_depth;
	struct sfab_wq nq = {};
	void *old_ring;
	dma_addr_t old_dma;
	int err;

	err = sfab_wq_alloc(dev, &nq, log_depth, rq->log_stride, false);
	if (err)
		return err;
	sfab_ring_desc_contig(&p.ring, nq.dma, log_depth, rq->log_stride);
	p.srqn = srq->srqn;
	if (rq->dbrec)
		p.dbrec = nq.dbrec_dma;

	spin_lock_irq(&rq->lock);
	p.ci = READ_ONCE(rq->ci);
	p.pi = rq->pi;
	if ((u16)(p.pi - p.ci) > 1U << log_depth) {
		spin_unlock_irq(&rq->lock);
		sfab_wq_free(dev, &nq);
		return -EINVAL;
	}
	rq->resizing = true;
	spin_unlock_irq(&rq->lock);
	if (nq.dbrec)
		sfab_dbrec_set(nq.dbrec, p.pi);

	err = sfab_com_resize_srq(&dev->edev, &p);

	spin_lock_irq(&rq->lock);
	old_ring = rq->ring;
	old_dma = rq->dma;
	if (!err) {
		rq->ring = nq.ring;
		rq->dma = nq.dma;
		rq->log_depth = log_depth;
		if (rq->dbrec) {
			rq->dbrec = nq.dbrec;
			rq->dbrec_dma = nq.dbrec_dma;
		}
	}
	rq->resizing = false;
	spin_unlock_irq(&rq->lock);
	if (err) {
		sfab_wq_free(dev, &nq);
		return err;
	}
	dma_free_coherent(&dev->pdev->dev,
			  sfab_dbrec_buf_len(old_log, rq->log_stride), old_ring,
			  old_dma);
	return 0;
}

/*
 * IB_SRQ_MAX_WR of a user SRQ: libsfab holds its SRQ lock and hands the
 * new ring and its indices (struct sfab_ibv_modify_srq).
 */
static int sfab_resize_user_srq(struct sfab_dev *dev, struct sfab_srq *srq,
				u8 log_depth, struct ib_udata *udata)
{
	struct sfab_ibv_modify_srq cmd = {};
	struct sfab_com_resize_srq p = {};
	struct sfab_uring src = {};
	struct sfab_wq *rq = &srq->rq;
	struct ib_umem *umem;
	struct sfab_pbl pbl;
	bool dbrec;
	int err;

	err = sfab_udata_cmd(udata, &cmd, sizeof(cmd), sizeof(cmd), 0);
	if (err)
		return err;
	dbrec = cmd.comp_mask & SFAB_IBV_MODIFY_SRQ_DBREC;
	if (!(cmd.comp_mask & SFAB_IBV_MODIFY_SRQ_RESIZE) ||
	    cmd.comp_mask & ~(SFAB_IBV_MODIFY_SRQ_RESIZE |
			      SFAB_IBV_MODIFY_SRQ_DBREC))
		return -EINVAL;
	/* a record as the SRQ was created with, or none as it was */
	if (dbrec != !!rq->dbrec_dma || dbrec != !!cmd.dbrec_off ||
	    cmd.reserved_28 ||
	    memchr_inv(cmd.reserved_50, 0, sizeof(cmd.reserved_50)))
		return -EINVAL;
	if (cmd.log_depth < log_depth ||
	    cmd.log_depth > SFAB_RING_MAX_LOG_DEPTH ||
	    (1U << cmd.log_depth) > dev->attr.max_srq_wr)
		return -EINVAL;

	src.addr = cmd.buf_addr;
	src.dbrec_off = cmd.dbrec_off;
	err = sfab_uring_pin(dev, udata, &src,
			     (size_t)1 << (cmd.log_depth + rq->log_stride),
			     &umem, &pbl, &p.ring, &p.dbrec);
	if (err)
		return err;
	p.ring.log_depth = cmd.log_depth;
	p.ring.log_stride = rq->log_stride;
	p.srqn = srq->srqn;
	p.ci = cmd.ci;
	p.pi = cmd.pi;
	err = sfab_com_resize_srq(&dev->edev, &p);
	if (err) {
		sfab_umem_ring_free(dev, umem, &pbl);
		return err;
	}
	/* the device reads the new page list only from now on */
	sfab_umem_ring_free(dev, rq->umem, &rq->pbl);
	rq->umem = umem;
	rq->pbl = pbl;
	rq->log_depth = cmd.log_depth;
	rq->dbrec_dma = p.dbrec;
	return 0;
}

static int sfab_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibsrq->device);
	struct sfab_srq *srq = to_sfab_srq(ibsrq);
	int log_depth = -1;
	int err = 0;

	if (mask & ~(IB_SRQ_LIMIT | IB_SRQ_MAX_WR))
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_MAX_WR) {
		if (!dev->has_resize_srq)
			return -EOPNOTSUPP;
		log_depth = sfab_queue_log_depth(max(attr->max_wr, 1U),
						 dev->attr.max_srq_wr);
		if (log_depth < 0)
			return -EINVAL;
		if (srq->user && (!udata || !udata->inlen))
			return -EINVAL;
	} else if (udata && udata->inlen &&
		   !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		return -EOPNOTSUPP;
	}

	mutex_lock(&srq->lock);
	if (mask & IB_SRQ_MAX_WR) {
		if (srq->user)
			err = sfab_resize_user_srq(dev, srq, log_depth, udata);
		else
			err = sfab_resize_kernel_srq(dev, srq, log_depth);
		if (err)
			ibdev_dbg(ibsrq->device, "SRQ %u: resize to %u WQEs: %d\n",
				  srq->srqn, attr->max_wr, err);
	}
	if (!err && (mask & IB_SRQ_LIMIT)) {
		if (attr->srq_limit > 1U << srq->rq.log_depth)
			err = -EINVAL;
		else
			err = sfab_com_modify_srq(&dev->edev, srq->srqn,
						  attr->srq_limit);
		if (!err)
			WRITE_ONCE(srq->limit, attr->srq_limit);
	}
	mutex_unlock(&srq->lock);
	return err;
}

static int sfab_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sfab_srq *srq = to_sfab_srq(ibsrq);

	attr->max_wr = 1U << srq->rq.log_depth;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

static int sfab_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibsrq->device);
	struct sfab_srq *srq = to_sfab_srq(ibsrq);

	if (sfab_com_destroy_srq(&dev->edev, srq->srqn))
		sfab_com_quiesce(&dev->edev);
	xa_erase(&dev->srq_xa, srq->srqn);
	/* an async event may have found the SRQ just before */
	synchronize_irq(pci_irq_vector(dev->pdev, SFAB_MSIX_AENQ));
	sfab_wq_free(dev, &srq->rq);
	mutex_destroy(&srq->lock);
	return 0;
}

static int sfab_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr)
{
	struct sfab_srq *srq = to_sfab_srq(ibsrq);

	/* nothing flushes an SRQ's WQEs: a lost device refuses them */
	if (unlikely(sfab_dev_is_lost(to_sfab_dev(ibsrq->device)))) {
		*bad_wr = wr;
		return -EIO;
	}
	return sfab_wq_post_recv(to_sfab_dev(ibsrq->device), &srq->rq,
				 SFAB_DB_SRQ, srq->srqn, srq->max_sge, wr,
				 bad_wr);
}

/* ---- async QP and SRQ events ------------------------------------------------ */

/**
 * sfab_qp_event() - report a SFAB_AENQ_QP_EVENT to the QP's consumer
 * @dev: the device
 * @qpn: the QP
 * @ev: enum sfab_qp_event
 *
 * Called from the AENQ interrupt.  sfab_destroy_qp() erases the QP and
 * then waits for this interrupt, so a QP found here outlives the call.
 */
void sfab_qp_event(struct sfab_dev *dev, u32 qpn, u64 ev)
{
	struct ib_event ibev = {};
	struct sfab_qp *qp;

	switch (ev) {
	case SFAB_QP_EV_FATAL:
		ibev.event = IB_EVENT_QP_FATAL;
		break;
	case SFAB_QP_EV_REQ_ERR:
		ibev.event = IB_EVENT_QP_REQ_ERR;
		break;
	case SFAB_QP_EV_ACCESS_ERR:
		ibev.event = IB_EVENT_QP_ACCESS_ERR;
		break;
	case SFAB_QP_EV_COMM_EST:
		ibev.event = IB_EVENT_COMM_EST;
		break;
	case SFAB_QP_EV_SQ_DRAINED:
		ibev.event = IB_EVENT_SQ_DRAINED;
		break;
	case SFAB_QP_EV_LAST_WQE:
		ibev.event = IB_EVENT_QP_LAST_WQE_REACHED;
		break;
	default:
		dev_warn_ratelimited(&dev->pdev->dev,
				     "QP %u: unknown event %llu\n", qpn, ev);
		return;
	}
	qp = xa_load(&dev->qp_xa, qpn);
	if (!qp) {
		dev_dbg(&dev->pdev->dev, "event %llu for unknown QP %u\n",
			ev, qpn);
		return;
	}
	if (ev == SFAB_QP_EV_FATAL || ev == SFAB_QP_EV_REQ_ERR ||
	    ev == SFAB_QP_EV_ACCESS_ERR)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	/* the device always reports a drain; the consumer may not want it */
	if (ev == SFAB_QP_EV_SQ_DRAINED && !READ_ONCE(qp->sqd_notify))
		return;
	if (!qp->ibqp.event_handler)
		return;
	ibev.device = &dev->ibdev;
	ibev.element.qp = &qp->ibqp;
	qp->ibqp.event_handler(&ibev, qp->ibqp.qp_context);
}

/**
 * sfab_srq_event() - report a SFAB_AENQ_SRQ_EVENT to the SRQ's consumer
 * @dev: the device
 * @srqn: the SRQ
 * @ev: enum sfab_srq_event
 *
 * Called from the AENQ interrupt; sfab_destroy_srq() waits for it.
 */
void sfab_srq_event(struct sfab_dev *dev, u32 srqn, u64 ev)
{
	struct ib_event ibev = {};
	struct sfab_srq *srq;

	switch (ev) {
	case SFAB_SRQ_EV_LIMIT:
		ibev.event = IB_EVENT_SRQ_LIMIT_REACHED;
		break;
	case SFAB_SRQ_EV_ERR:
		ibev.event = IB_EVENT_SRQ_ERR;
		break;
	default:
		dev_warn_ratelimited(&dev->pdev->dev,
				     "SRQ %u: unknown event %llu\n", srqn, ev);
		return;
	}
	srq = xa_load(&dev->srq_xa, srqn);
	if (!srq) {
		dev_dbg(&dev->pdev->dev, "event %llu for unknown SRQ %u\n",
			ev, srqn);
		return;
	}
	/* the device disarmed the limit */
	if (ev == SFAB_SRQ_EV_LIMIT)
		WRITE_ONCE(srq->limit, 0);
	if (!srq->ibsrq.event_handler)
		return;
	ibev.device = &dev->ibdev;
	ibev.element.srq = &srq->ibsrq;
	srq->ibsrq.event_handler(&ibev, srq->ibsrq.srq_context);
}

/* ---- address handles ------------------------------------------------------------ */

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

	if ((rdma_ah_get_ah_flags(a) & IB_AH_GRH) &&
	    rdma_ah_read_grh(a)->sgid_index)
		return -EINVAL;		/* the port has one GID */

	ah->av.dlid = rdma_ah_get_dlid(a);
	ah->av.sl = rdma_ah_get_sl(a);
	ah->av.src_path_bits = rdma_ah_get_path_bits(a);
	ah->av.port_num = rdma_ah_get_port_num(a);
	ah->av.global = rdma_ah_get_ah_flags(a) & IB_AH_GRH;
	if (ah->av.global) {
		struct sfab_com_grh g;

		/* in the device's layout: each UD WQE copies it as it is */
		sfab_grh_from_ah(&g, a);
		sfab_com_grh_encode(&ah->av.grh, &g);
	}
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
	if (av->global) {
		struct sfab_com_grh g;
		union ib_gid dgid;

		sfab_com_grh_decode(&g, &av->grh);
		memcpy(dgid.raw, g.dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(attr, &dgid, g.flow_label, g.sgid_index,
				g.hop_limit, g.traffic_class);
	}
	return 0;
}

static int sfab_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

/* ---- the kernel's own SMPs: capability mask, P_Key table --------------------- */

static void sfab_smp_init(struct ib_smp *smp, u8 method, __be16 attr, u32 mod)
{
	memset(smp, 0, sizeof(*smp));
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = 1;
	smp->method = method;
	smp->attr_id = attr;
	smp->attr_mod = cpu_to_be32(mod);
}

/* one SMP through the device's SMA; 0 when it answered with success */
static int sfab_own_smp(struct sfab_dev *dev, const struct ib_smp *in,
			struct ib_smp *out)
{
	int ret;

	/* the kernel's own request: no M_Key (the SM's key guards others) */
	ret = sfab_com_mad_ifc(&dev->edev, SFAB_PORT_NUM, 0,
			       SFAB_MAD_IFC_IGNORE_MKEY, in, out);
	if (ret < 0)
		return ret;
	if (!ret || out->status)
		return -EIO;
	return 0;
}

/**
 * sfab_pkey_table_read() - the port's P_Key table (block 0) from its SMA
 * @dev: the device
 * @pkeys: SFAB_PORT_PKEY_TBL_LEN entries, filled on success
 *
 * Return: 0 or a negative errno.
 */
int sfab_pkey_table_read(struct sfab_dev *dev, u16 *pkeys)
{
	struct ib_smp *in, *out;
	unsigned int i;
	int ret;

	in = kmalloc(sizeof(*in), GFP_KERNEL);
	out = kmalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		ret = -ENOMEM;
		goto out;
	}
	sfab_smp_init(in, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PKEY_TABLE, 0);
	ret = sfab_own_smp(dev, in, out);
	if (!ret)
		for (i = 0; i < SFAB_PORT_PKEY_TBL_LEN; i++)
			pkeys[i] = be16_to_cpu(((__be16 *)out->data)[i]);
out:
	kfree(out);
	kfree(in);
	return ret;
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
	sfab_smp_init(in, IB_MGMT_METHOD_GET, IB_SMP_ATTR_PORT_INFO, port);
	err = sfab_own_smp(dev, in, out);
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
	err = sfab_own_smp(dev, in, out);
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
 * sfab_datapath_probe() - set up the kernel queues the device reports
 * @dev: the device, its EQs created and dev_caps read
 *
 * The gate for the kernel verbs ops is SFAB_DEV_CAP_QUEUES in dev_caps,
 * the SRQ ops' SFAB_DEV_CAP_SRQ.  With queues, map doorbell page 0.  A
 * device (or firmware) without them leaves @dev->has_datapath false and
 * sfab registers without post_send/poll_cq, so no kernel verbs clients.
 *
 * Return: 0 (datapath or not), or a negative errno.
 */
int sfab_datapath_probe(struct sfab_dev *dev)
{
	u32 caps = dev->attr.dev_caps;

	dev->has_datapath = false;
	dev->has_srq = false;
	dev->has_dbrec = false;
	dev->has_mcast = false;
	dev->has_resize_cq = false;
	dev->has_resize_srq = false;
	dev->has_xrc = false;
	if (!(caps & SFAB_DEV_CAP_QUEUES)) {
		dev_info(&dev->pdev->dev, "device has no queue pair datapath: no kernel verbs\n");
		return 0;
	}

	dev->kdb = pci_iomap_range(dev->pdev, SFAB_BAR_DB, 0,
				   (unsigned long)SFAB_DB_KERNEL_PAGES <<
				   dev->db_page_shift);
	if (!dev->kdb) {
		dev_err(&dev->pdev->dev, "cannot map the kernel doorbell page\n");
		return -ENOMEM;
	}
	dev->has_datapath = true;

	if (!(caps & SFAB_DEV_CAP_SRQ) || !dev->attr.max_srq)
		dev_info(&dev->pdev->dev, "device has no shared receive queues\n");
	else
		dev->has_srq = true;
	/* without records every queue rings doorbells, as it always did */
	dev->has_dbrec = caps & SFAB_DEV_CAP_DBREC;
	dev->has_mcast = (caps & SFAB_DEV_CAP_MCAST) &&
			 dev->attr.max_mcast_grp && dev->attr.max_mcast_qp_attach;
	dev->has_resize_cq = caps & SFAB_DEV_CAP_RESIZE_CQ;
	dev->has_resize_srq = dev->has_srq && (caps & SFAB_DEV_CAP_RESIZE_SRQ);
	/* XRC SRQs and QPs are made for processes only */
	dev->has_xrc = IS_ENABLED(CONFIG_INFINIBAND_USER_ACCESS) &&
		       dev->has_srq && (caps & SFAB_DEV_CAP_XRC) &&
		       dev->attr.max_xrcd;
	return 0;
}

/**
 * sfab_datapath_remove() - undo sfab_datapath_probe()
 * @dev: the device, its ib_device unregistered (no CQ or QP left)
 */
void sfab_datapath_remove(struct sfab_dev *dev)
{
	WARN_ON(!xa_empty(&dev->cq_xa));
	WARN_ON(!xa_empty(&dev->qp_xa));
	WARN_ON(!xa_empty(&dev->srq_xa));
	sfab_kdb_unmap(dev);
	dev->has_datapath = false;
}

/* CQs, QPs and the kernel verbs: set only with has_datapath */
const struct ib_device_ops sfab_datapath_dev_ops = {
	.create_ah = sfab_create_ah,
	.create_cq = sfab_create_cq,
	.create_qp = sfab_create_qp,
	.destroy_ah = sfab_destroy_ah,
	.destroy_cq = sfab_destroy_cq,
	.destroy_qp = sfab_destroy_qp,
	.get_dma_mr = sfab_get_dma_mr,
	.modify_qp = sfab_modify_qp,
	.poll_cq = sfab_poll_cq,
	.post_recv = sfab_post_recv,
	.post_send = sfab_post_send,
	.query_ah = sfab_query_ah,
	.query_qp = sfab_query_qp,
	.req_notify_cq = sfab_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sfab_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sfab_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, sfab_qp, ibqp),
};

/* set with has_datapath and has_resize_cq */
const struct ib_device_ops sfab_resize_cq_dev_ops = {
	.resize_cq = sfab_resize_cq,
};

/* shared receive queues: set with has_datapath and has_srq */
const struct ib_device_ops sfab_srq_dev_ops = {
	.create_srq = sfab_create_srq,
	.destroy_srq = sfab_destroy_srq,
	.modify_srq = sfab_modify_srq,
	.post_srq_recv = sfab_post_srq_recv,
	.query_srq = sfab_query_srq,

	INIT_RDMA_OBJ_SIZE(ib_srq, sfab_srq, ibsrq),
};

/* XRC domains: set with has_xrc (XRC SRQs and QPs check it too) */
const struct ib_device_ops sfab_xrc_dev_ops = {
	.alloc_xrcd = sfab_alloc_xrcd,
	.dealloc_xrcd = sfab_dealloc_xrcd,

	INIT_RDMA_OBJ_SIZE(ib_xrcd, sfab_xrcd, ibxrcd),
};

/*
 * Multicast (SFAB_DEV_CAP_MCAST): ib_core has checked that @ibqp is UD,
 * @gid multicast and @lid a multicast LID; the device checks them again.
 */
static int sfab_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid,
		      bool attach)
{
	struct sfab_dev *dev = to_sfab_dev(ibqp->device);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	int err;

	err = sfab_com_mcast(&dev->edev, attach, qp->qpn, gid->raw, lid);
	/*
	 * A lost device keeps no group: the QP is detached.  ib_core drops
	 * the QP's use count only on success, and a QP still counted as
	 * attached cannot be destroyed (IPoIB leaves its groups before it
	 * destroys its QP when the device is unregistered for recovery).
	 */
	if (err && !attach && sfab_dev_is_lost(dev))
		err = 0;
	if (err)
		ibdev_dbg(&dev->ibdev, "QP %u: %s MLID 0x%04x %pI6: %d\n",
			  qp->qpn, attach ? "attach to" : "detach from", lid,
			  gid->raw, err);
	return err;
}

static int sfab_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return sfab_mcast(ibqp, gid, lid, true);
}

static int sfab_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return sfab_mcast(ibqp, gid, lid, false);
}

/* multicast groups: set with has_datapath and has_mcast */
const struct ib_device_ops sfab_mcast_dev_ops = {
	.attach_mcast = sfab_attach_mcast,
	.detach_mcast = sfab_detach_mcast,
};

/* PortInfo CapabilityMask: needs the device's SMA (MAD_IFC) */
const struct ib_device_ops sfab_port_dev_ops = {
	.modify_port = sfab_modify_port,
};
