// SPDX-License-Identifier: GPL-2.0-only
/*
 * sfab-accel: PCI probe and remove, the command ring, its interrupts,
 * SUBMIT and WAIT.
 *
 * The driver ends every SUBMIT with its own COMPLETE (IRQ flag) that
 * writes the submission's sequence number to a word in the ring's DMA
 * buffer, where no user command may write (every user address must lie in
 * one of the file's buffers or imports).  Completion is read from that
 * word, not from SEQ_LO/HI: user programs may carry COMPLETE commands of
 * their own, which latch SEQ too.
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci-p2pdma.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "sfab_accel_drv.h"

static unsigned int ring_log_depth = 12;
module_param(ring_log_depth, uint, 0444);
MODULE_PARM_DESC(ring_log_depth, "log2 of the command ring's depth (2..16, default 12)");

static bool p2pmem_publish;
module_param(p2pmem_publish, bool, 0444);
MODULE_PARM_DESC(p2pmem_publish,
		 "publish the device memory for other P2PDMA users (default no)");

static DEFINE_IDA(sfab_accel_ida);

/* wrap-safe: is sequence a after b? */
static bool seq_after(u64 a, u64 b)
{
	return (s64)(a - b) > 0;
}

static u32 accel_rd(struct sfab_accel *accel, unsigned int off)
{
	return readl(accel->regs + off);
}

static void accel_wr(struct sfab_accel *accel, unsigned int off, u32 val)
{
	writel(val, accel->regs + off);
}

static void sfab_accel_release(struct kref *kref)
{
	struct sfab_accel *accel = container_of(kref, struct sfab_accel, kref);

	pci_dev_put(accel->pdev);
	ida_free(&sfab_accel_ida, accel->id);
	kfree(accel);
}

void sfab_accel_put(struct sfab_accel *accel)
{
	kref_put(&accel->kref, sfab_accel_release);
}

/* ---- completion state ------------------------------------------------- */

/* fold the sequence the driver's last COMPLETE wrote in; seq_lock held */
static void sfab_accel_update_done_locked(struct sfab_accel *accel)
{
	u64 seq, base;

	lockdep_assert_held(&accel->seq_lock);
	if (!accel->seq_word)
		return;		/* removed */
	seq = le64_to_cpu(READ_ONCE(*accel->seq_word));
	/* only the driver's COMPLETE writes there: never past the last */
	if (!seq_after(seq, accel->done_seq) ||
	    seq_after(seq, READ_ONCE(accel->next_seq) - 1))
		return;
	base = seq_after(accel->retired_seq, accel->done_seq) ?
	       accel->retired_seq : accel->done_seq;
	if (seq_after(seq, base))
		atomic64_add(seq - base, &accel->stats.completed);
	accel->done_seq = seq;
	if (seq_after(seq, accel->retired_seq))
		accel->retired_seq = seq;
}

static void sfab_accel_update_done(struct sfab_accel *accel)
{
	unsigned long flags;

	spin_lock_irqsave(&accel->seq_lock, flags);
	sfab_accel_update_done_locked(accel);
	spin_unlock_irqrestore(&accel->seq_lock, flags);
}

static irqreturn_t sfab_accel_cpl_intr(int irq, void *data)
{
	struct sfab_accel *accel = data;

	accel_wr(accel, SFAB_ACCEL_REG_INTR_STATUS, SFAB_ACCEL_INTR_CPL);
	sfab_accel_update_done(accel);
	wake_up_all(&accel->wq);
	return IRQ_HANDLED;
}

/* ---- the ring ----------------------------------------------------------- */

/* reset the engine and program the empty ring; ring_lock held (or probe) */
static int sfab_accel_ring_start(struct sfab_accel *accel)
{
	u32 sts;

	accel_wr(accel, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_RESET);
	WRITE_ONCE(accel->pi, 0);
	accel_wr(accel, SFAB_ACCEL_REG_INTR_MASK, 0);
	accel_wr(accel, SFAB_ACCEL_REG_RING_BASE_LO, lower_32_bits(accel->ring_dma));
	accel_wr(accel, SFAB_ACCEL_REG_RING_BASE_HI, upper_32_bits(accel->ring_dma));
	accel_wr(accel, SFAB_ACCEL_REG_RING_CFG, accel->log_depth);
	accel_wr(accel, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_ENABLE);
	sts = accel_rd(accel, SFAB_ACCEL_REG_STATUS);
	if (sts == ~0U || (sts & SFAB_ACCEL_STS_ERROR) ||
	    !(sts & SFAB_ACCEL_STS_ENABLED)) {
		dev_err(&accel->pdev->dev, "ring refused: status 0x%x error %s\n",
			sts, sfab_accel_err_str(accel_rd(accel, SFAB_ACCEL_REG_ERR_CODE)));
		return -EIO;
	}
	return 0;
}

static irqreturn_t sfab_accel_err_thread(int irq, void *data)
{
	struct sfab_accel *accel = data;
	struct sfab_accel_fail *fail;
	unsigned long flags;
	u32 sts, code, index;
	u64 last;

	mutex_lock(&accel->ring_lock);
	if (accel->ring_dead) {
		mutex_unlock(&accel->ring_lock);
		return IRQ_HANDLED;
	}
	sts = accel_rd(accel, SFAB_ACCEL_REG_STATUS);
	if (sts == ~0U || !(sts & SFAB_ACCEL_STS_ERROR)) {
		/* spurious, or the error was already handled */
		accel_wr(accel, SFAB_ACCEL_REG_INTR_STATUS, SFAB_ACCEL_INTR_ERR);
		mutex_unlock(&accel->ring_lock);
		return IRQ_HANDLED;
	}
	code = accel_rd(accel, SFAB_ACCEL_REG_ERR_CODE);
	index = accel_rd(accel, SFAB_ACCEL_REG_ERR_INDEX);

	spin_lock_irqsave(&accel->seq_lock, flags);
	sfab_accel_update_done_locked(accel);
	last = accel->next_seq - 1;
	if (seq_after(last, accel->retired_seq)) {
		fail = &accel->fails[accel->nfails % SFAB_ACCEL_FAIL_HISTORY];
		fail->from = accel->retired_seq + 1;
		fail->last = last;
		fail->code = code;
		fail->index = index;
		accel->nfails++;
		atomic64_add(last - accel->retired_seq, &accel->stats.failed);
		accel->retired_seq = last;
	}
	accel->last_err_code = code;
	accel->last_err_index = index;
	spin_unlock_irqrestore(&accel->seq_lock, flags);
	atomic64_inc(&accel->stats.errors);

	dev_warn_ratelimited(&accel->pdev->dev,
			     "ring stopped: %s (%u) at index %u; reset\n",
			     sfab_accel_err_str(code), code, index);
	/* the commands still in the ring are dropped with the reset */
	if (sfab_accel_ring_start(accel))
		accel->ring_dead = true;
	mutex_unlock(&accel->ring_lock);
	wake_up_all(&accel->wq);
	return IRQ_HANDLED;
}

/* the range a command reads or writes at @a, @alen */
static bool op_overlaps(u64 a, u64 alen, u64 addr, u64 len)
{
	return alen && a < addr + len && addr < a + alen;
}

/* the bus ranges @op touches: up to two (COPY's source and destination) */
static unsigned int op_ranges(const struct sfab_accel_op *op, u64 addr[2],
			      u64 len[2])
{
	switch (op->opcode) {
	case SFAB_ACCEL_OP_WRITE_IMM:
		addr[0] = op->addr;
		len[0] = op->len;
		return 1;
	case SFAB_ACCEL_OP_COPY:
		addr[0] = op->addr;
		len[0] = op->len;
		addr[1] = op->src;
		len[1] = op->len;
		return 2;
	case SFAB_ACCEL_OP_STORE32:
	case SFAB_ACCEL_OP_STORE64:
	case SFAB_ACCEL_OP_POLL32:
	case SFAB_ACCEL_OP_POLL64:
		addr[0] = op->addr;
		len[0] = sfab_accel_op_width(op->opcode);
		return 1;
	case SFAB_ACCEL_OP_COMPLETE:
		if (!op->addr)
			return 0;
		addr[0] = op->addr;
		len[0] = sizeof(__le64);
		return 1;
	default:
		return 0;
	}
}

/**
 * sfab_accel_scrub_locked() - make the engine never touch a range again
 * @accel: the device
 * @addr: bus address of the range
 * @len: its bytes
 *
 * Stops the ring (CTL.ENABLE = 0 stops it between two commands, a POLL
 * waiting is abandoned), turns every command between CI and PI that
 * reads or writes the range into a NOP, and runs the ring again.  Counted
 * in revoked_dropped.  ring_lock held.
 */
void sfab_accel_scrub_locked(struct sfab_accel *accel, u64 addr, u64 len)
{
	u32 sts, ci, used, i, mask = (1U << accel->log_depth) - 1;
	struct sfab_accel_cmd *c;
	struct sfab_accel_op op;
	u64 ra[2], rl[2];
	unsigned int n, r;
	u64 dropped = 0;

	lockdep_assert_held(&accel->ring_lock);
	if (accel->ring_dead || !len)
		return;
	accel_wr(accel, SFAB_ACCEL_REG_CTL, 0);
	/* the read returns after the write took effect: nothing runs now */
	sts = accel_rd(accel, SFAB_ACCEL_REG_STATUS);
	ci = accel_rd(accel, SFAB_ACCEL_REG_RING_CI);
	used = sfab_accel_ring_used(accel->pi, ci);
	if (sts == ~0U || used > mask + 1)
		used = 0;	/* gone or inconsistent: the error path resets */
	for (i = 0; i < used; i++) {
		c = &accel->ring[(ci + i) & mask];
		if (sfab_accel_cmd_decode(c, &op))
			continue;
		n = op_ranges(&op, ra, rl);
		for (r = 0; r < n; r++) {
			if (op_overlaps(ra[r], rl[r], addr, len)) {
				sfab_accel_cmd_nop(c);
				dropped++;
				break;
			}
		}
	}
	if (dropped)
		atomic64_add(dropped, &accel->stats.revoked_dropped);
	/* the NOPs are in memory before the engine reads the ring again */
	wmb();
	if (sts != ~0U && !(sts & SFAB_ACCEL_STS_ERROR))
		accel_wr(accel, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_ENABLE);
}

/*
 * Is [addr, addr + len) wholly inside one of the file's live buffers or
 * imports?  0, -EPERM (not the file's), -ENODEV (a revoked import).
 * ring_lock (for the revoked flags) and f->lock held.
 */
static int sfab_accel_range_check(struct sfab_accel_file *f, u64 addr, u64 len)
{
	struct sfab_accel_import *imp;
	struct sfab_accel_buf *buf;
	unsigned long idx;

	xa_for_each(&f->bufs, idx, buf) {
		if (buf->kaddr && len <= buf->size && addr >= buf->bus_addr &&
		    addr - buf->bus_addr <= buf->size - len)
			return 0;
	}
	xa_for_each(&f->imports, idx, imp) {
		if (len <= imp->len && addr >= imp->dma_addr &&
		    addr - imp->dma_addr <= imp->len - len)
			return imp->revoked ? -ENODEV : 0;
	}
	return -EPERM;
}

static int sfab_accel_cmds_check(struct sfab_accel_file *f,
				 const struct sfab_accel_cmd *cmds, u32 count)
{
	struct sfab_accel_op op;
	u64 ra[2], rl[2];
	unsigned int n, r;
	u32 i;
	int err = 0;

	mutex_lock(&f->lock);
	for (i = 0; i < count && !err; i++) {
		sfab_accel_cmd_decode(&cmds[i], &op);
		n = op_ranges(&op, ra, rl);
		for (r = 0; r < n && !err; r++)
			err = sfab_accel_range_check(f, ra[r], rl[r]);
	}
	mutex_unlock(&f->lock);
	return err;
}

static bool sfab_accel_ring_has_room(struct sfab_accel *accel, u32 n)
{
	if (READ_ONCE(accel->dead))
		return true;
	return sfab_accel_ring_free(READ_ONCE(accel->pi),
				    accel_rd(accel, SFAB_ACCEL_REG_RING_CI),
				    accel->log_depth) >= n;
}

/**
 * sfab_accel_submit() - check a program and queue it on the ring
 * @f: the file it comes from
 * @cmds: its commands, in kernel memory
 * @count: how many (at most the ring depth - 1)
 * @seq: its sequence number, for WAIT
 *
 * Every command must pass sfab_accel_cmd_decode() (else -EINVAL, before
 * anything runs), and every address it uses must lie wholly in one of
 * @f's live buffers or imports (else -EPERM; -ENODEV for a revoked
 * import).  Blocks interruptibly while the ring has no room.
 *
 * Return: 0 or a negative errno.
 */
int sfab_accel_submit(struct sfab_accel_file *f, struct sfab_accel_cmd *cmds,
		      u32 count, u64 *seq)
{
	struct sfab_accel *accel = f->accel;
	u32 mask = (1U << accel->log_depth) - 1;
	struct sfab_accel_op op;
	u32 i, need = count + 1;
	int err;

	if (need > mask + 1)
		return -E2BIG;
	for (i = 0; i < count; i++)
		if (sfab_accel_cmd_decode(&cmds[i], &op))
			return -EINVAL;

	mutex_lock(&accel->ring_lock);
	for (;;) {
		if (accel->dead || accel->ring_dead) {
			err = -ENODEV;
			goto out;
		}
		err = sfab_accel_cmds_check(f, cmds, count);
		if (err)
			goto out;
		if (sfab_accel_ring_free(accel->pi,
					 accel_rd(accel, SFAB_ACCEL_REG_RING_CI),
					 accel->log_depth) >= need)
			break;
		mutex_unlock(&accel->ring_lock);
		err = wait_event_interruptible(accel->wq,
					       sfab_accel_ring_has_room(accel, need));
		if (err)
			return err;
		mutex_lock(&accel->ring_lock);
	}

	for (i = 0; i < count; i++)
		accel->ring[(accel->pi + i) & mask] = cmds[i];
	*seq = accel->next_seq;
	sfab_accel_cmd_complete(&accel->ring[(accel->pi + count) & mask],
				accel->seq_word_dma, *seq, true);
	/* the commands are in memory before the doorbell */
	wmb();
	WRITE_ONCE(accel->pi, accel->pi + need);
	WRITE_ONCE(accel->next_seq, accel->next_seq + 1);
	accel_wr(accel, SFAB_ACCEL_REG_RING_PI, accel->pi);
	atomic64_inc(&accel->stats.submits);
	atomic64_add(count, &accel->stats.cmds);
out:
	mutex_unlock(&accel->ring_lock);
	return err;
}

/* WAIT's view of @seq: a status, or -EAGAIN while it runs */
static int sfab_accel_seq_state(struct sfab_accel *accel, u64 seq,
				struct sfab_accel_ioc_wait *w)
{
	unsigned int i, n;
	unsigned long flags;
	int ret = -EAGAIN;

	spin_lock_irqsave(&accel->seq_lock, flags);
	sfab_accel_update_done_locked(accel);
	n = min_t(unsigned int, accel->nfails, SFAB_ACCEL_FAIL_HISTORY);
	for (i = 0; i < n; i++) {
		struct sfab_accel_fail *fail = &accel->fails[i];

		if (!seq_after(fail->from, seq) && !seq_after(seq, fail->last)) {
			w->status = SFAB_ACCEL_WAIT_ERROR;
			w->err_code = fail->code;
			w->err_index = fail->index;
			ret = -EIO;
			goto out;
		}
	}
	if (!seq_after(seq, accel->retired_seq)) {
		w->status = SFAB_ACCEL_WAIT_DONE;
		ret = 0;
	} else if (READ_ONCE(accel->dead)) {
		ret = -ENODEV;
	}
out:
	spin_unlock_irqrestore(&accel->seq_lock, flags);
	return ret;
}

static bool sfab_accel_seq_final(struct sfab_accel *accel, u64 seq,
				 struct sfab_accel_ioc_wait *w)
{
	return sfab_accel_seq_state(accel, seq, w) != -EAGAIN;
}

/**
 * sfab_accel_wait() - wait until a submission completed or failed
 * @accel: the device
 * @seq: from sfab_accel_submit()
 * @timeout_ms: how long; 0 checks once
 * @w: status, err_code, err_index filled in
 *
 * Return: 0 (done), -EIO (a ring error stopped it), -ETIMEDOUT,
 * -ERESTARTSYS, -ENODEV (the device went away), -EINVAL (not submitted).
 */
int sfab_accel_wait(struct sfab_accel *accel, u64 seq, u32 timeout_ms,
		    struct sfab_accel_ioc_wait *w)
{
	long left;
	int ret;

	if (!seq || seq_after(seq, READ_ONCE(accel->next_seq) - 1))
		return -EINVAL;
	left = wait_event_interruptible_timeout(accel->wq,
						sfab_accel_seq_final(accel, seq, w),
						msecs_to_jiffies(timeout_ms));
	if (left < 0)
		return left;
	ret = sfab_accel_seq_state(accel, seq, w);
	if (ret == -EAGAIN) {
		w->status = SFAB_ACCEL_WAIT_TIMEOUT;
		ret = -ETIMEDOUT;
	}
	return ret;
}

void sfab_accel_fill_info(struct sfab_accel *accel,
			  struct sfab_accel_ioc_info *info)
{
	struct sfab_accel_ioc_counters *c = &info->counters;
	struct sfab_accel_stats *s = &accel->stats;
	unsigned long flags;

	info->flags = accel->p2p ? SFAB_ACCEL_INFO_F_P2PDMA : 0;
	info->uapi_version = SFAB_ACCEL_UAPI_VERSION;
	info->if_version = accel->if_version;
	info->ring_depth = 1U << accel->log_depth;
	info->max_submit = info->ring_depth - 1;
	info->mem_size = accel->mem_size;
	c->submits = atomic64_read(&s->submits);
	c->cmds = atomic64_read(&s->cmds);
	c->completed = atomic64_read(&s->completed);
	c->failed = atomic64_read(&s->failed);
	c->errors = atomic64_read(&s->errors);
	c->revoked_dropped = atomic64_read(&s->revoked_dropped);
	c->allocs = atomic64_read(&s->allocs);
	c->imports = atomic64_read(&s->imports);
	c->exports = atomic64_read(&s->exports);
	c->revokes = atomic64_read(&s->revokes);
	spin_lock_irqsave(&accel->seq_lock, flags);
	c->last_err_code = accel->last_err_code;
	c->last_err_index = accel->last_err_index;
	spin_unlock_irqrestore(&accel->seq_lock, flags);
}

/* ---- probe and remove --------------------------------------------------- */

static int sfab_accel_check_device(struct sfab_accel *accel)
{
	struct device *dev = &accel->pdev->dev;
	u32 id, ver, log;

	id = accel_rd(accel, SFAB_ACCEL_REG_ID);
	if (id != SFAB_ACCEL_ID_MAGIC) {
		dev_err(dev, "ID 0x%08x, not an sfab-accel\n", id);
		return -ENODEV;
	}
	ver = accel_rd(accel, SFAB_ACCEL_REG_VERSION);
	if (FIELD_GET(SFAB_ACCEL_VERSION_MAJOR_MASK, ver) !=
	    SFAB_ACCEL_IF_VERSION_MAJOR) {
		dev_err(dev, "interface version %lu.%lu, this driver knows %u.x\n",
			FIELD_GET(SFAB_ACCEL_VERSION_MAJOR_MASK, ver),
			FIELD_GET(SFAB_ACCEL_VERSION_MINOR_MASK, ver),
			SFAB_ACCEL_IF_VERSION_MAJOR);
		return -ENODEV;
	}
	accel->if_version = ver;
	log = accel_rd(accel, SFAB_ACCEL_REG_MEM_SIZE);
	if (log < SFAB_ACCEL_MEM_LOG_MIN || log > SFAB_ACCEL_MEM_LOG_MAX ||
	    !(pci_resource_flags(accel->pdev, SFAB_ACCEL_BAR_MEM) & IORESOURCE_MEM) ||
	    pci_resource_len(accel->pdev, SFAB_ACCEL_BAR_MEM) < (1ULL << log)) {
		dev_err(dev, "device memory: MEM_SIZE %u, BAR%d %pR\n", log,
			SFAB_ACCEL_BAR_MEM,
			&accel->pdev->resource[SFAB_ACCEL_BAR_MEM]);
		return -ENODEV;
	}
	accel->mem_size = 1ULL << log;
	return 0;
}

static void sfab_accel_setup_p2p(struct sfab_accel *accel)
{
	struct device *dev = &accel->pdev->dev;
	int err;

	err = pci_p2pdma_add_resource(accel->pdev, SFAB_ACCEL_BAR_MEM,
				      accel->mem_size, 0);
	if (err == -EOPNOTSUPP && !IS_ENABLED(CONFIG_PCI_P2PDMA)) {
		dev_info(dev, "kernel built without CONFIG_PCI_P2PDMA: device memory not usable, ALLOC and EXPORT_DMABUF fail with -EOPNOTSUPP\n");
		return;
	}
	if (err) {
		dev_warn(dev, "device memory not usable as P2PDMA memory (%d): ALLOC and EXPORT_DMABUF fail with -EOPNOTSUPP\n",
			 err);
		return;
	}
	accel->p2p = true;
	if (p2pmem_publish)
		pci_p2pmem_publish(accel->pdev, true);
}

static int sfab_accel_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct device *dev = &pdev->dev;
	struct sfab_accel *accel;
	size_t ring_bytes;
	int err, id;

	if (ring_log_depth < SFAB_ACCEL_RING_MIN_LOG_DEPTH ||
	    ring_log_depth > SFAB_ACCEL_RING_MAX_LOG_DEPTH) {
		dev_err(dev, "ring_log_depth %u out of range %u..%u\n",
			ring_log_depth, SFAB_ACCEL_RING_MIN_LOG_DEPTH,
			SFAB_ACCEL_RING_MAX_LOG_DEPTH);
		return -EINVAL;
	}
	id = ida_alloc(&sfab_accel_ida, GFP_KERNEL);
	if (id < 0)
		return id;
	accel = kzalloc(sizeof(*accel), GFP_KERNEL);
	if (!accel) {
		ida_free(&sfab_accel_ida, id);
		return -ENOMEM;
	}
	kref_init(&accel->kref);
	accel->id = id;
	accel->pdev = pci_dev_get(pdev);
	snprintf(accel->name, sizeof(accel->name), "sfab-accel%d", id);
	init_rwsem(&accel->rwsem);
	mutex_init(&accel->ring_lock);
	mutex_init(&accel->files_lock);
	mutex_init(&accel->mem_lock);
	spin_lock_init(&accel->seq_lock);
	init_waitqueue_head(&accel->wq);
	INIT_LIST_HEAD(&accel->files);
	INIT_LIST_HEAD(&accel->bufs);
	accel->log_depth = ring_log_depth;
	accel->next_seq = 1;

	err = pcim_enable_device(pdev);
	if (err)
		goto err_put;
	err = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(dev, "no 64-bit DMA\n");
		goto err_put;
	}
	if (pci_resource_len(pdev, SFAB_ACCEL_BAR_REGS) < SFAB_ACCEL_BAR_REGS_SIZE) {
		dev_err(dev, "BAR%d too small\n", SFAB_ACCEL_BAR_REGS);
		err = -ENODEV;
		goto err_put;
	}
	accel->regs = pcim_iomap_region(pdev, SFAB_ACCEL_BAR_REGS,
					SFAB_ACCEL_DRV_NAME);
	if (IS_ERR(accel->regs)) {
		err = PTR_ERR(accel->regs);
		goto err_put;
	}
	pci_set_master(pdev);
	err = sfab_accel_check_device(accel);
	if (err)
		goto err_put;
	accel_wr(accel, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_RESET);

	/* the commands, then one command's room for the sequence word */
	ring_bytes = (SFAB_ACCEL_CMD_SIZE << accel->log_depth) + SFAB_ACCEL_CMD_SIZE;
	accel->ring = dma_alloc_coherent(dev, ring_bytes, &accel->ring_dma,
					 GFP_KERNEL);
	if (!accel->ring) {
		err = -ENOMEM;
		goto err_put;
	}
	accel->ring_bytes = ring_bytes;
	accel->seq_word = (__le64 *)&accel->ring[1U << accel->log_depth];
	accel->seq_word_dma = accel->ring_dma +
			      (SFAB_ACCEL_CMD_SIZE << accel->log_depth);

	err = pci_alloc_irq_vectors(pdev, SFAB_ACCEL_MSIX_VECTORS,
				    SFAB_ACCEL_MSIX_VECTORS, PCI_IRQ_MSIX);
	if (err < 0) {
		dev_err(dev, "MSI-X: %d\n", err);
		goto err_ring;
	}
	accel->irq_cpl = pci_irq_vector(pdev, SFAB_ACCEL_MSIX_CPL);
	accel->irq_err = pci_irq_vector(pdev, SFAB_ACCEL_MSIX_ERR);
	err = request_irq(accel->irq_cpl, sfab_accel_cpl_intr, 0, accel->name,
			  accel);
	if (err)
		goto err_vectors;
	err = request_threaded_irq(accel->irq_err, NULL, sfab_accel_err_thread,
				   IRQF_ONESHOT, accel->name, accel);
	if (err)
		goto err_irq_cpl;

	mutex_lock(&accel->ring_lock);
	err = sfab_accel_ring_start(accel);
	mutex_unlock(&accel->ring_lock);
	if (err)
		goto err_irq_err;

	sfab_accel_setup_p2p(accel);
	pci_set_drvdata(pdev, accel);

	err = sfab_accel_cdev_register(accel);
	if (err)
		goto err_stop;
	dev_info(dev, "%s: %llu MiB device memory%s, ring of %u commands\n",
		 accel->name, accel->mem_size >> 20,
		 accel->p2p ? " (P2PDMA)" : "", 1U << accel->log_depth);
	return 0;

err_stop:
	accel_wr(accel, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_RESET);
	pci_set_drvdata(pdev, NULL);
err_irq_err:
	free_irq(accel->irq_err, accel);
err_irq_cpl:
	free_irq(accel->irq_cpl, accel);
err_vectors:
	pci_free_irq_vectors(pdev);
err_ring:
	dma_free_coherent(dev, ring_bytes, accel->ring, accel->ring_dma);
err_put:
	sfab_accel_put(accel);
	return err;
}

static void sfab_accel_remove(struct pci_dev *pdev)
{
	struct sfab_accel *accel = pci_get_drvdata(pdev);
	struct sfab_accel_file *f;

	/* no new opens; then no ioctl or mmap in flight, and none to come */
	sfab_accel_cdev_unregister(accel);
	WRITE_ONCE(accel->dead, true);
	wake_up_all(&accel->wq);
	down_write(&accel->rwsem);
	up_write(&accel->rwsem);

	/*
	 * User mappings of device memory go before the memory does; an mmap
	 * under way (it inserts pages under mem_lock) ends first, later ones
	 * see dead.
	 */
	mutex_lock(&accel->mem_lock);
	mutex_unlock(&accel->mem_lock);
	mutex_lock(&accel->files_lock);
	list_for_each_entry(f, &accel->files, node)
		unmap_mapping_range(f->mapping, 0, 0, 1);
	mutex_unlock(&accel->files_lock);

	mutex_lock(&accel->ring_lock);
	accel_wr(accel, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_RESET);
	accel->ring_dead = true;
	mutex_unlock(&accel->ring_lock);
	free_irq(accel->irq_err, accel);
	free_irq(accel->irq_cpl, accel);
	pci_free_irq_vectors(pdev);
	wake_up_all(&accel->wq);

	/*
	 * Imports are detached and buffers given back; the files stay open
	 * and fail with -ENODEV.  Memory still exported as a dma-buf goes
	 * back when its importers let go: until then the P2PDMA teardown
	 * after this function waits.
	 */
	mutex_lock(&accel->files_lock);
	list_for_each_entry(f, &accel->files, node)
		sfab_accel_file_drain(f);
	mutex_unlock(&accel->files_lock);
	sfab_accel_reclaim(accel);

	spin_lock_irq(&accel->seq_lock);
	accel->seq_word = NULL;
	spin_unlock_irq(&accel->seq_lock);
	dma_free_coherent(&pdev->dev, accel->ring_bytes, accel->ring,
			  accel->ring_dma);
	accel->ring = NULL;
	pci_set_drvdata(pdev, NULL);
	sfab_accel_put(accel);
}

static const struct pci_device_id sfab_accel_ids[] = {
	{ PCI_DEVICE(SFAB_ACCEL_PCI_VENDOR_ID, SFAB_ACCEL_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, sfab_accel_ids);

static struct pci_driver sfab_accel_driver = {
	.name = SFAB_ACCEL_DRV_NAME,
	.id_table = sfab_accel_ids,
	.probe = sfab_accel_probe,
	.remove = sfab_accel_remove,
};
module_pci_driver(sfab_accel_driver);

MODULE_DESCRIPTION("sfab-accel test accelerator: P2PDMA memory and command ring");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
