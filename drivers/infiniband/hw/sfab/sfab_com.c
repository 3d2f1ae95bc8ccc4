// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab admin queue transport.
 *
 * The driver writes commands at the AQ producer index and rings
 * SFAB_REG_AQ_DB with it.  The device completes them in order into the
 * ACQ and raises MSI-X vector SFAB_MSIX_ADMIN; the interrupt copies each
 * completion into the completion context named by its command id and
 * wakes the waiter.  A command that does not complete in time means the
 * device is unresponsive: the queue is stopped and the device reset, so
 * that nothing it may still do lands in memory the driver frees.
 *
 * The async event queue (AENQ) is a ring the device writes with a phase
 * bit; its interrupt decodes each entry into host byte order (struct
 * sfab_com_event), hands it to a handler and returns the entries by
 * writing the consumer index to SFAB_REG_AENQ_HEAD.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/pci.h>

#include <kunit/visibility.h>

#include "sfab_com.h"

/* how long a queue gets to report itself running after it is enabled */
#define SFAB_QUEUE_START_TIMEOUT_MS	1000

const char *sfab_com_opcode_str(u8 opcode)
{
	switch (opcode) {
	case SFAB_AQ_QUERY_DEVICE:	return "QUERY_DEVICE";
	case SFAB_AQ_QUERY_PORT:	return "QUERY_PORT";
	case SFAB_AQ_FW_DOWNLOAD:	return "FW_DOWNLOAD";
	case SFAB_AQ_FW_ACTIVATE:	return "FW_ACTIVATE";
	case SFAB_AQ_INIT_HCA:		return "INIT_HCA";
	case SFAB_AQ_TEARDOWN_HCA:	return "TEARDOWN_HCA";
	case SFAB_AQ_CREATE_EQ:		return "CREATE_EQ";
	case SFAB_AQ_DESTROY_EQ:	return "DESTROY_EQ";
	case SFAB_AQ_MAD_IFC:		return "MAD_IFC";
	case SFAB_AQ_CREATE_CQ:		return "CREATE_CQ";
	case SFAB_AQ_DESTROY_CQ:	return "DESTROY_CQ";
	case SFAB_AQ_CREATE_QP:		return "CREATE_QP";
	case SFAB_AQ_MODIFY_QP:		return "MODIFY_QP";
	case SFAB_AQ_QUERY_QP:		return "QUERY_QP";
	case SFAB_AQ_DESTROY_QP:	return "DESTROY_QP";
	case SFAB_AQ_CREATE_MR:		return "CREATE_MR";
	case SFAB_AQ_DESTROY_MR:	return "DESTROY_MR";
	case SFAB_AQ_CREATE_SRQ:	return "CREATE_SRQ";
	case SFAB_AQ_MODIFY_SRQ:	return "MODIFY_SRQ";
	case SFAB_AQ_DESTROY_SRQ:	return "DESTROY_SRQ";
	case SFAB_AQ_QUERY_STATS:	return "QUERY_STATS";
	case SFAB_AQ_UPDATE_MR:		return "UPDATE_MR";
	case SFAB_AQ_SET_QP_DBREC:	return "SET_QP_DBREC";
	case SFAB_AQ_ATTACH_MCAST:	return "ATTACH_MCAST";
	case SFAB_AQ_DETACH_MCAST:	return "DETACH_MCAST";
	case SFAB_AQ_RESIZE_CQ:		return "RESIZE_CQ";
	case SFAB_AQ_RESIZE_SRQ:	return "RESIZE_SRQ";
	default:			return "unknown";
	}
}

/**
 * sfab_aq_cmd_id() - build an admin command id
 * @pc: the AQ producer index the command is written at
 * @ctx: the completion context that waits for it, < depth
 * @log_depth: log2 of the AQ depth
 *
 * The low bits name the completion context; the high bits come from the
 * producer index, so that a stale completion for an earlier user of the
 * same context does not match.
 *
 * Return: the 16-bit command id.
 */
VISIBLE_IF_KUNIT u16 sfab_aq_cmd_id(u16 pc, u16 ctx, unsigned int log_depth)
{
	u16 mask = (u16)((1U << log_depth) - 1);

	return (pc & ~mask) | (ctx & mask);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_aq_cmd_id);

/**
 * sfab_aq_cmd_ctx() - the completion context a command id names
 * @cmd_id: id from a completion entry
 * @log_depth: log2 of the AQ depth
 *
 * The context is the id's ring slot (sfab_ring_slot()), the bits
 * sfab_aq_cmd_id() took from it.
 *
 * Return: the context index, < depth.
 */
VISIBLE_IF_KUNIT u16 sfab_aq_cmd_ctx(u16 cmd_id, unsigned int log_depth)
{
	return sfab_ring_slot(cmd_id, log_depth);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_aq_cmd_ctx);

static int sfab_com_status_to_errno(u8 status)
{
	switch (status) {
	case SFAB_AQ_STS_OK:
		return 0;
	case SFAB_AQ_STS_BAD_OPCODE:
		return -EOPNOTSUPP;
	case SFAB_AQ_STS_BAD_PARAM:
	case SFAB_AQ_STS_FW_BAD_MAGIC:
	case SFAB_AQ_STS_FW_BAD_FORMAT:
	case SFAB_AQ_STS_FW_BAD_SIZE:
	case SFAB_AQ_STS_FW_BAD_CRC:
	case SFAB_AQ_STS_FW_BAD_PROFILE:
		return -EINVAL;
	case SFAB_AQ_STS_BAD_STATE:
		return -EBUSY;
	case SFAB_AQ_STS_NO_RESOURCES:
		return -ENOSPC;
	default:
		return -EIO;
	}
}

/**
 * sfab_com_dev_reset() - reset the function and wait until it is ready
 * @edev: the device
 *
 * After a reset the device has stopped every queue and DMA and waits to
 * be programmed again.  Sleeps.
 *
 * Return: 0, or -ETIME when the device does not come back in time, or
 * -EIO when it comes back in the fatal state.
 */
int sfab_com_dev_reset(struct sfab_com_dev *edev)
{
	const u32 busy = SFAB_DEV_STS_AQ_ENABLED | SFAB_DEV_STS_AENQ_ENABLED;
	u32 sts;
	int err;

	writel(SFAB_DEV_CTL_RESET, edev->regs + SFAB_REG_DEV_CTL);
	/* all ones: the function is gone or still in reset */
	err = readl_poll_timeout(edev->regs + SFAB_REG_DEV_STS, sts,
				 sts != U32_MAX &&
				 (sts & SFAB_DEV_STS_READY) && !(sts & busy),
				 1000, SFAB_RESET_TIMEOUT_MS * USEC_PER_MSEC);
	if (err) {
		dev_err(edev->dmadev,
			"device not ready %u ms after reset (status %#x)\n",
			SFAB_RESET_TIMEOUT_MS, sts);
		return -ETIME;
	}
	if (sts & SFAB_DEV_STS_FATAL) {
		dev_err(edev->dmadev, "device is fatal after reset (error %u)\n",
			readl(edev->regs + SFAB_REG_ERR_INFO));
		return -EIO;
	}
	edev->enabled = false;
	return 0;
}

/**
 * sfab_com_kill() - stop accepting admin commands
 * @edev: the device
 *
 * Commands already on the ring still complete or time out.  Safe in any
 * context; used when the device reports a fatal error.
 */
void sfab_com_kill(struct sfab_com_dev *edev)
{
	unsigned long flags;

	spin_lock_irqsave(&edev->aq.lock, flags);
	edev->aq.dead = true;
	spin_unlock_irqrestore(&edev->aq.lock, flags);
}

/* fail every command still waiting; the device must already be stopped */
static void sfab_com_abort_all(struct sfab_com_aq *aq)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&aq->lock, flags);
	for (i = 0; i < SFAB_AQ_DEPTH; i++) {
		if (aq->ctx[i].state != SFAB_CTX_SUBMITTED)
			continue;
		aq->ctx[i].state = SFAB_CTX_ABORTED;
		complete(&aq->ctx[i].done);
	}
	spin_unlock_irqrestore(&aq->lock, flags);
}

/**
 * sfab_com_quiesce() - stop the device: no more commands, DMA or interrupts
 * @edev: the device
 *
 * Stops the admin queue, resets the device if its queues were running and
 * only then fails the commands still waiting, so that their callers may
 * free the memory the commands pointed at.  If the device does not come
 * back from the reset, its bus mastering is turned off instead.  The
 * device is then lost to its consumers (@edev->lost), unless its owner
 * stops it on purpose and says so first.  Idempotent; sleeps.
 *
 * Return: 0, or the reset's error.
 */
int sfab_com_quiesce(struct sfab_com_dev *edev)
{
	int err = 0;

	sfab_com_kill(edev);

	mutex_lock(&edev->reset_lock);
	if (edev->enabled) {
		err = sfab_com_dev_reset(edev);
		if (err) {
			pci_clear_master(to_pci_dev(edev->dmadev));
			edev->enabled = false;
		}
	}
	mutex_unlock(&edev->reset_lock);

	sfab_com_abort_all(&edev->aq);
	/* stopped under its consumers (not by probe or remove): lost */
	if (edev->lost)
		edev->lost(edev, "stopped after a command failed");
	return err;
}

static void sfab_com_mark_enabled(struct sfab_com_dev *edev)
{
	mutex_lock(&edev->reset_lock);
	edev->enabled = true;
	mutex_unlock(&edev->reset_lock);
}

/* wait until DEV_STS shows @bit, failing early on a fatal device */
static int sfab_com_wait_running(struct sfab_com_dev *edev, u32 bit,
				 const char *what)
{
	u32 sts;
	int err;

	err = readl_poll_timeout(edev->regs + SFAB_REG_DEV_STS, sts,
				 sts != U32_MAX &&
				 (sts & (bit | SFAB_DEV_STS_FATAL)),
				 100, SFAB_QUEUE_START_TIMEOUT_MS * USEC_PER_MSEC);
	if (err || (sts & SFAB_DEV_STS_FATAL) || !(sts & bit)) {
		dev_err(edev->dmadev,
			"%s did not start (status %#x, device error %u)\n",
			what, sts, readl(edev->regs + SFAB_REG_ERR_INFO));
		return -EIO;
	}
	return 0;
}

/*
 * Copy every new completion into its context and wake its waiter.  Only
 * entries for commands on the ring are read: an entry the device writes
 * with nothing outstanding is left alone.
 */
static void sfab_com_process_acq(struct sfab_com_dev *edev)
{
	struct sfab_com_aq *aq = &edev->aq;
	struct sfab_comp_ctx *ctx;
	struct sfab_acq_entry *e;
	u16 cmd_id;

	lockdep_assert_held(&aq->lock);

	while (aq->cq_cc != aq->sq_pc) {
		e = &aq->cq[sfab_ring_slot(aq->cq_cc, SFAB_AQ_LOG_DEPTH)];
		if (!sfab_ring_entry_is_new(READ_ONCE(e->flags) &
					    SFAB_ACQ_FLAGS_PHASE,
					    aq->cq_cc, SFAB_AQ_LOG_DEPTH))
			break;
		/* read the entry's other fields only after its phase bit */
		dma_rmb();

		cmd_id = le16_to_cpu(e->cmd_id);
		ctx = &aq->ctx[sfab_aq_cmd_ctx(cmd_id, SFAB_AQ_LOG_DEPTH)];
		if (ctx->state == SFAB_CTX_SUBMITTED && ctx->cmd_id == cmd_id) {
			ctx->comp = *e;
			ctx->state = SFAB_CTX_COMPLETED;
			complete(&ctx->done);
		} else {
			dev_err_ratelimited(edev->dmadev,
					    "admin completion for unknown command id %#x (status %#x)\n",
					    cmd_id, e->status);
		}
		aq->cq_cc++;
	}
}

/**
 * sfab_com_admin_intr() - the admin completion interrupt's work
 * @edev: the device
 */
void sfab_com_admin_intr(struct sfab_com_dev *edev)
{
	/* irqs are off in the handler: a plain lock is enough */
	spin_lock(&edev->aq.lock);
	sfab_com_process_acq(edev);
	spin_unlock(&edev->aq.lock);
}

/**
 * sfab_com_exec() - run one admin command and wait for its completion
 * @edev: the device
 * @cmd: the command; its cmd_id is filled in here
 * @comp: where the completion is copied
 *
 * Sleeps.  A command that does not complete within SFAB_ADMIN_TIMEOUT_MS
 * stops the admin queue and resets the device.
 *
 * Return: 0; the errno for a device status other than SFAB_AQ_STS_OK
 * (@comp->status holds it); -ETIME on a timeout; -ENODEV when the queue
 * is stopped.  @comp->status is zero unless the device completed the
 * command.
 */
int sfab_com_exec(struct sfab_com_dev *edev, struct sfab_aq_cmd *cmd,
		  struct sfab_acq_entry *comp)
{
	struct sfab_com_aq *aq = &edev->aq;
	enum sfab_ctx_state state;
	struct sfab_comp_ctx *ctx;
	unsigned long flags;
	u16 ctx_id, cmd_id;
	bool timed_out;

	might_sleep();
	memset(comp, 0, sizeof(*comp));

	down(&aq->avail);

	spin_lock_irqsave(&aq->lock, flags);
	if (aq->dead) {
		spin_unlock_irqrestore(&aq->lock, flags);
		up(&aq->avail);
		dev_dbg(edev->dmadev, "%s: admin queue is stopped\n",
			sfab_com_opcode_str(cmd->opcode));
		return -ENODEV;
	}
	if (!sfab_ring_free(aq->sq_pc, aq->cq_cc, SFAB_AQ_LOG_DEPTH)) {
		spin_unlock_irqrestore(&aq->lock, flags);
		up(&aq->avail);
		dev_err(edev->dmadev, "admin queue full (producer %u, consumer %u)\n",
			aq->sq_pc, aq->cq_cc);
		return -EIO;
	}

	/* a free context exists: this caller holds one of the tokens */
	ctx_id = find_first_zero_bit(aq->ctx_busy, SFAB_AQ_DEPTH);
	__set_bit(ctx_id, aq->ctx_busy);
	ctx = &aq->ctx[ctx_id];
	cmd_id = sfab_aq_cmd_id(aq->sq_pc, ctx_id, SFAB_AQ_LOG_DEPTH);
	ctx->cmd_id = cmd_id;
	ctx->opcode = cmd->opcode;
	ctx->state = SFAB_CTX_SUBMITTED;
	reinit_completion(&ctx->done);

	cmd->cmd_id = cpu_to_le16(cmd_id);
	aq->sq[sfab_ring_slot(aq->sq_pc, SFAB_AQ_LOG_DEPTH)] = *cmd;
	aq->sq_pc++;
	/* writel() orders the entry's writes to coherent memory before it */
	writel(aq->sq_pc, edev->regs + SFAB_REG_AQ_DB);
	spin_unlock_irqrestore(&aq->lock, flags);

	wait_for_completion_timeout(&ctx->done,
				    msecs_to_jiffies(SFAB_ADMIN_TIMEOUT_MS));

	spin_lock_irqsave(&aq->lock, flags);
	if (ctx->state == SFAB_CTX_SUBMITTED) {
		/* the completion may be there with its interrupt lost */
		sfab_com_process_acq(edev);
		if (ctx->state == SFAB_CTX_COMPLETED)
			dev_warn_ratelimited(edev->dmadev,
					     "%s completed without an interrupt\n",
					     sfab_com_opcode_str(ctx->opcode));
	}
	timed_out = ctx->state == SFAB_CTX_SUBMITTED;
	if (timed_out) {
		/* a late completion must not match: the id stays taken */
		ctx->state = SFAB_CTX_ABORTED;
		aq->dead = true;
	}
	spin_unlock_irqrestore(&aq->lock, flags);

	if (timed_out) {
		dev_err(edev->dmadev,
			"admin command %s (id %#x) timed out after %u ms, resetting the device\n",
			sfab_com_opcode_str(cmd->opcode), cmd_id,
			SFAB_ADMIN_TIMEOUT_MS);
		if (edev->lost)
			edev->lost(edev, "an admin command timed out");
		sfab_com_quiesce(edev);
	}

	spin_lock_irqsave(&aq->lock, flags);
	state = ctx->state;
	if (state == SFAB_CTX_COMPLETED)
		*comp = ctx->comp;
	ctx->state = SFAB_CTX_FREE;
	__clear_bit(ctx_id, aq->ctx_busy);
	spin_unlock_irqrestore(&aq->lock, flags);
	up(&aq->avail);

	if (timed_out)
		return -ETIME;
	if (state != SFAB_CTX_COMPLETED)
		return -ENODEV;
	return sfab_com_status_to_errno(comp->status);
}

/**
 * sfab_com_admin_init() - allocate the admin rings and start the queue
 * @edev: the device, just reset
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_admin_init(struct sfab_com_dev *edev)
{
	struct sfab_com_aq *aq = &edev->aq;
	unsigned int i;
	int err;

	aq->sq = dma_alloc_coherent(edev->dmadev, SFAB_AQ_DEPTH * sizeof(*aq->sq),
				    &aq->sq_dma, GFP_KERNEL);
	if (!aq->sq)
		return -ENOMEM;
	aq->cq = dma_alloc_coherent(edev->dmadev, SFAB_AQ_DEPTH * sizeof(*aq->cq),
				    &aq->cq_dma, GFP_KERNEL);
	if (!aq->cq) {
		err = -ENOMEM;
		goto err_free_sq;
	}

	spin_lock_init(&aq->lock);
	sema_init(&aq->avail, SFAB_AQ_DEPTH);
	bitmap_zero(aq->ctx_busy, SFAB_AQ_DEPTH);
	for (i = 0; i < SFAB_AQ_DEPTH; i++) {
		init_completion(&aq->ctx[i].done);
		aq->ctx[i].state = SFAB_CTX_FREE;
	}
	aq->sq_pc = 0;
	aq->cq_cc = 0;
	aq->dead = false;

	writel(lower_32_bits(aq->sq_dma), edev->regs + SFAB_REG_AQ_BASE_LO);
	writel(upper_32_bits(aq->sq_dma), edev->regs + SFAB_REG_AQ_BASE_HI);
	writel(lower_32_bits(aq->cq_dma), edev->regs + SFAB_REG_ACQ_BASE_LO);
	writel(upper_32_bits(aq->cq_dma), edev->regs + SFAB_REG_ACQ_BASE_HI);
	writel(FIELD_PREP(SFAB_QCFG_LOG_DEPTH_MASK, SFAB_AQ_LOG_DEPTH) |
	       FIELD_PREP(SFAB_QCFG_VECTOR_MASK, SFAB_MSIX_ADMIN),
	       edev->regs + SFAB_REG_ACQ_CFG);
	sfab_com_mark_enabled(edev);
	writel(FIELD_PREP(SFAB_QCFG_LOG_DEPTH_MASK, SFAB_AQ_LOG_DEPTH) |
	       SFAB_QCFG_ENABLE, edev->regs + SFAB_REG_AQ_CFG);

	err = sfab_com_wait_running(edev, SFAB_DEV_STS_AQ_ENABLED, "admin queue");
	if (err)
		goto err_quiesce;
	return 0;

err_quiesce:
	sfab_com_quiesce(edev);
	dma_free_coherent(edev->dmadev, SFAB_AQ_DEPTH * sizeof(*aq->cq),
			  aq->cq, aq->cq_dma);
err_free_sq:
	dma_free_coherent(edev->dmadev, SFAB_AQ_DEPTH * sizeof(*aq->sq),
			  aq->sq, aq->sq_dma);
	return err;
}

/**
 * sfab_com_admin_destroy() - stop the device and free the admin rings
 * @edev: the device; its admin interrupt is already freed
 */
void sfab_com_admin_destroy(struct sfab_com_dev *edev)
{
	struct sfab_com_aq *aq = &edev->aq;

	/* the device must be stopped before the rings go */
	sfab_com_quiesce(edev);
	dma_free_coherent(edev->dmadev, SFAB_AQ_DEPTH * sizeof(*aq->cq),
			  aq->cq, aq->cq_dma);
	dma_free_coherent(edev->dmadev, SFAB_AQ_DEPTH * sizeof(*aq->sq),
			  aq->sq, aq->sq_dma);
}

/**
 * sfab_com_aenq_init() - allocate the async event ring and start it
 * @edev: the device, its admin queue running
 * @handlers: per-type handlers, called from the AENQ interrupt
 * @data: their first argument
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_aenq_init(struct sfab_com_dev *edev,
		       const struct sfab_aenq_handlers *handlers, void *data)
{
	struct sfab_com_aenq *aenq = &edev->aenq;
	int err;

	aenq->ring = dma_alloc_coherent(edev->dmadev,
					SFAB_AENQ_DEPTH * sizeof(*aenq->ring),
					&aenq->dma, GFP_KERNEL);
	if (!aenq->ring)
		return -ENOMEM;
	aenq->cc = 0;
	aenq->handlers = handlers;
	aenq->data = data;

	writel(lower_32_bits(aenq->dma), edev->regs + SFAB_REG_AENQ_BASE_LO);
	writel(upper_32_bits(aenq->dma), edev->regs + SFAB_REG_AENQ_BASE_HI);
	sfab_com_mark_enabled(edev);
	writel(FIELD_PREP(SFAB_QCFG_LOG_DEPTH_MASK, SFAB_AENQ_LOG_DEPTH) |
	       FIELD_PREP(SFAB_QCFG_VECTOR_MASK, SFAB_MSIX_AENQ) |
	       SFAB_QCFG_ENABLE, edev->regs + SFAB_REG_AENQ_CFG);
	writel(aenq->cc, edev->regs + SFAB_REG_AENQ_HEAD);

	err = sfab_com_wait_running(edev, SFAB_DEV_STS_AENQ_ENABLED,
				    "async event queue");
	if (err) {
		sfab_com_quiesce(edev);
		dma_free_coherent(edev->dmadev,
				  SFAB_AENQ_DEPTH * sizeof(*aenq->ring),
				  aenq->ring, aenq->dma);
	}
	return err;
}

/**
 * sfab_com_aenq_destroy() - stop the device and free the async event ring
 * @edev: the device; its AENQ interrupt is already freed
 */
void sfab_com_aenq_destroy(struct sfab_com_dev *edev)
{
	struct sfab_com_aenq *aenq = &edev->aenq;

	/* the device must be stopped before the ring goes */
	sfab_com_quiesce(edev);
	dma_free_coherent(edev->dmadev, SFAB_AENQ_DEPTH * sizeof(*aenq->ring),
			  aenq->ring, aenq->dma);
}

/**
 * sfab_com_aenq_decode() - an async event entry in host byte order
 * @ev: filled
 * @e: the entry, owned by the host (phase checked); each field is read once
 */
VISIBLE_IF_KUNIT void sfab_com_aenq_decode(struct sfab_com_event *ev,
					   const struct sfab_aenq_entry *e)
{
	ev->type = e->type;
	ev->data0 = le32_to_cpu(e->data0);
	ev->data1 = le64_to_cpu(e->data1);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_com_aenq_decode);

/**
 * sfab_com_aenq_intr() - hand new async events to their handlers
 * @edev: the device
 *
 * Called only from the AENQ interrupt, which never runs concurrently
 * with itself, so the consumer index needs no lock.  At most one ring's
 * worth of entries is handled per call.
 */
void sfab_com_aenq_intr(struct sfab_com_dev *edev)
{
	struct sfab_com_aenq *aenq = &edev->aenq;
	const struct sfab_aenq_handlers *h = aenq->handlers;
	struct sfab_aenq_entry *e;
	struct sfab_com_event ev;
	unsigned int n;

	for (n = 0; n < SFAB_AENQ_DEPTH; n++) {
		e = &aenq->ring[sfab_ring_slot(aenq->cc, SFAB_AENQ_LOG_DEPTH)];
		if (!sfab_ring_entry_is_new(READ_ONCE(e->flags) &
					    SFAB_AENQ_FLAGS_PHASE,
					    aenq->cc, SFAB_AENQ_LOG_DEPTH))
			break;
		/* read the entry's other fields only after its phase bit */
		dma_rmb();
		sfab_com_aenq_decode(&ev, e);
		if (ev.type < ARRAY_SIZE(h->handler) && h->handler[ev.type])
			h->handler[ev.type](aenq->data, &ev);
		else
			h->unknown(aenq->data, &ev);
		aenq->cc++;
	}

	if (!n)
		return;
	/* finish reading the entries before the device may overwrite them */
	dma_mb();
	writel(aenq->cc, edev->regs + SFAB_REG_AENQ_HEAD);
}
