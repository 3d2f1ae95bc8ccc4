// SPDX-License-Identifier: GPL-2.0-only
/*
 * sfab-accel: device memory buffers (P2PDMA), their user mappings, the
 * dma-buf exporter over them and dma-buf imports for the command engine.
 *
 * A buffer is pci_alloc_p2pmem() memory of BAR2, page-granular, with a
 * kref: the file's table, every VMA mapping it and every dma-buf exported
 * over it hold one.  Before its memory goes back to the pool, every
 * pending command that touches it is turned into a NOP.
 *
 * mmap inserts the P2PDMA pages with vm_insert_page(), as the P2PDMA
 * core's own allocator (p2pmem_alloc_mmap() in drivers/pci/p2pdma.c)
 * does: they are ZONE_DEVICE pages with a refcount, so the VMA holds a
 * reference on each while mapped and GUP with FOLL_PCI_P2PDMA works.
 */

#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "sfab_accel_drv.h"

/* one scatterlist entry of an exported range covers at most this */
#define SFAB_ACCEL_SG_CHUNK	SZ_1G

/* ---- the peer-memory client's notifier ------------------------------------ */

/*
 * sfab_accel_peermem.ko's hook, told before a buffer's memory goes; the
 * rwsem keeps it registered while it runs.
 */
static DECLARE_RWSEM(sfab_accel_peer_rwsem);
static const struct sfab_accel_peer_notifier *sfab_accel_peer_nb;

/**
 * sfab_accel_peer_notifier_set() - hook a peer-memory client in
 * @nb: the client's notifier, valid until sfab_accel_peer_notifier_clear()
 *
 * Return: 0, or -EBUSY when another one is set.
 */
int sfab_accel_peer_notifier_set(const struct sfab_accel_peer_notifier *nb)
{
	int err = 0;

	down_write(&sfab_accel_peer_rwsem);
	if (sfab_accel_peer_nb)
		err = -EBUSY;
	else
		sfab_accel_peer_nb = nb;
	up_write(&sfab_accel_peer_rwsem);
	return err;
}
EXPORT_SYMBOL_GPL(sfab_accel_peer_notifier_set);

/* unhook it; returns once no call of it runs */
void sfab_accel_peer_notifier_clear(const struct sfab_accel_peer_notifier *nb)
{
	down_write(&sfab_accel_peer_rwsem);
	if (sfab_accel_peer_nb == nb)
		sfab_accel_peer_nb = NULL;
	up_write(&sfab_accel_peer_rwsem);
}
EXPORT_SYMBOL_GPL(sfab_accel_peer_notifier_clear);

/* ---- buffers ------------------------------------------------------------ */

/* give the memory back, unless something still holds a page; mem_lock held */
static void sfab_accel_buf_free_mem_locked(struct sfab_accel_buf *buf)
{
	struct sfab_accel *accel = buf->accel;
	u64 off;

	lockdep_assert_held(&accel->mem_lock);
	if (!buf->kaddr)
		return;
	/* memory regions over it (the HCA) stop first */
	down_read(&sfab_accel_peer_rwsem);
	if (sfab_accel_peer_nb)
		sfab_accel_peer_nb->mem_gone(buf);
	up_read(&sfab_accel_peer_rwsem);
	for (off = 0; off < buf->size; off += PAGE_SIZE) {
		if (page_ref_count(virt_to_page(buf->kaddr + off)) != 1) {
			dev_warn(&accel->pdev->dev,
				 "buffer %u: page at +0x%llx still referenced, memory not reused\n",
				 buf->handle, off);
			goto out;
		}
	}
	pci_free_p2pmem(accel->pdev, buf->kaddr, buf->size);
out:
	buf->kaddr = NULL;
	list_del_init(&buf->node);
}

/* the memory goes: no pending command may touch it any more */
void sfab_accel_buf_release_mem(struct sfab_accel_buf *buf)
{
	struct sfab_accel *accel = buf->accel;

	if (!READ_ONCE(buf->kaddr))
		return;		/* never had memory, or remove took it */
	mutex_lock(&accel->ring_lock);
	sfab_accel_scrub_locked(accel, buf->bus_addr, buf->size);
	mutex_unlock(&accel->ring_lock);
	mutex_lock(&accel->mem_lock);
	sfab_accel_buf_free_mem_locked(buf);
	mutex_unlock(&accel->mem_lock);
}

static void sfab_accel_buf_release(struct kref *kref)
{
	struct sfab_accel_buf *buf = container_of(kref, struct sfab_accel_buf, kref);
	struct sfab_accel *accel = buf->accel;

	sfab_accel_buf_release_mem(buf);
	kfree(buf);
	sfab_accel_put(accel);
}

static void sfab_accel_buf_unref(struct sfab_accel_buf *buf)
{
	kref_put(&buf->kref, sfab_accel_buf_release);
}

/*
 * References held outside the driver's own tables and mappings: dma-bufs
 * over the buffer and peer-memory users.  While one is held, remove does
 * not take the memory back (the P2PDMA teardown waits for it instead).
 */
static void sfab_accel_buf_ext_get(struct sfab_accel_buf *buf)
{
	kref_get(&buf->kref);
	atomic_inc(&buf->ext_refs);
}

static void sfab_accel_buf_ext_put(struct sfab_accel_buf *buf)
{
	atomic_dec(&buf->ext_refs);
	sfab_accel_buf_unref(buf);
}

/**
 * sfab_accel_buf_put() - drop a reference from sfab_accel_vma_buf() or
 * sfab_accel_va_lookup()
 * @buf: the buffer
 */
void sfab_accel_buf_put(struct sfab_accel_buf *buf)
{
	sfab_accel_buf_ext_put(buf);
}
EXPORT_SYMBOL_GPL(sfab_accel_buf_put);

/* the file's buffer @handle, referenced, or NULL */
static struct sfab_accel_buf *sfab_accel_buf_get(struct sfab_accel_file *f,
						 u32 handle)
{
	struct sfab_accel_buf *buf;

	mutex_lock(&f->lock);
	buf = xa_load(&f->bufs, handle);
	if (buf && buf->kaddr)
		kref_get(&buf->kref);
	else
		buf = NULL;
	mutex_unlock(&f->lock);
	return buf;
}

int sfab_accel_buf_alloc(struct sfab_accel_file *f, u64 size,
			 struct sfab_accel_ioc_alloc *out)
{
	struct sfab_accel *accel = f->accel;
	struct sfab_accel_buf *buf;
	u32 handle;
	int err;

	if (!accel->p2p)
		return -EOPNOTSUPP;
	if (!size || size > accel->mem_size)
		return -EINVAL;
	size = PAGE_ALIGN(size);

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kref_init(&buf->kref);
	INIT_LIST_HEAD(&buf->node);
	kref_get(&accel->kref);
	buf->accel = accel;
	buf->size = size;
	buf->kaddr = pci_alloc_p2pmem(accel->pdev, size);
	if (!buf->kaddr) {
		err = -ENOMEM;
		goto err_put;
	}
	/* no data of an earlier user leaks through */
	memset(buf->kaddr, 0, size);
	buf->bus_addr = pci_p2pmem_virt_to_bus(accel->pdev, buf->kaddr);
	mutex_lock(&accel->mem_lock);
	list_add_tail(&buf->node, &accel->bufs);
	mutex_unlock(&accel->mem_lock);

	mutex_lock(&f->lock);
	if (f->nbufs >= SFAB_ACCEL_MAX_BUFS) {
		err = -ENOSPC;
	} else {
		err = xa_alloc(&f->bufs, &handle, buf,
			       XA_LIMIT(1, SFAB_ACCEL_MAX_HANDLE), GFP_KERNEL);
		if (!err) {
			f->nbufs++;
			buf->handle = handle;
			buf->mmap_offset = (u64)handle << SFAB_ACCEL_MMAP_SHIFT;
			out->handle = handle;
			out->bus_addr = buf->bus_addr;
			out->mmap_offset = buf->mmap_offset;
		}
	}
	mutex_unlock(&f->lock);
	if (err)
		goto err_put;
	atomic64_inc(&accel->stats.allocs);
	return 0;

err_put:
	sfab_accel_buf_unref(buf);
	return err;
}

int sfab_accel_buf_free(struct sfab_accel_file *f, u32 handle)
{
	struct sfab_accel_buf *buf;

	mutex_lock(&f->lock);
	buf = xa_erase(&f->bufs, handle);
	if (buf)
		f->nbufs--;
	mutex_unlock(&f->lock);
	if (!buf)
		return -ENOENT;
	sfab_accel_buf_unref(buf);
	return 0;
}

/* remove: give back what only mappings (zapped by now) still hold */
void sfab_accel_reclaim(struct sfab_accel *accel)
{
	struct sfab_accel_buf *buf, *next;

	mutex_lock(&accel->mem_lock);
	list_for_each_entry_safe(buf, next, &accel->bufs, node)
		if (!atomic_read(&buf->ext_refs))
			sfab_accel_buf_free_mem_locked(buf);
	mutex_unlock(&accel->mem_lock);
}

/* ---- mmap --------------------------------------------------------------- */

static void sfab_accel_vm_open(struct vm_area_struct *vma)
{
	struct sfab_accel_buf *buf = vma->vm_private_data;

	kref_get(&buf->kref);
}

static void sfab_accel_vm_close(struct vm_area_struct *vma)
{
	sfab_accel_buf_unref(vma->vm_private_data);
}

static const struct vm_operations_struct sfab_accel_vm_ops = {
	.open = sfab_accel_vm_open,
	.close = sfab_accel_vm_close,
};

int sfab_accel_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct sfab_accel_file *f = sfab_accel_file_of(filp);
	struct sfab_accel *accel = f->accel;
	unsigned long len = vma->vm_end - vma->vm_start, i;
	struct sfab_accel_buf *buf;
	u64 off, boff;
	int err = 0;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff > (U64_MAX >> PAGE_SHIFT))
		return -EINVAL;
	off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	if ((off >> SFAB_ACCEL_MMAP_SHIFT) > SFAB_ACCEL_MAX_HANDLE)
		return -EINVAL;
	buf = sfab_accel_buf_get(f, off >> SFAB_ACCEL_MMAP_SHIFT);
	if (!buf)
		return -EINVAL;
	boff = off & ((1ULL << SFAB_ACCEL_MMAP_SHIFT) - 1);
	if (boff > buf->size || len > buf->size - boff) {
		err = -EINVAL;
		goto err_put;
	}

	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	/* remove zaps the mappings after it set dead and took mem_lock */
	mutex_lock(&accel->mem_lock);
	if (READ_ONCE(accel->dead) || !buf->kaddr) {
		err = -ENODEV;
	} else {
		for (i = 0; i < len && !err; i += PAGE_SIZE) {
			err = vm_insert_page(vma, vma->vm_start + i,
					     virt_to_page(buf->kaddr + boff + i));
			cond_resched();
		}
	}
	mutex_unlock(&accel->mem_lock);
	if (err)
		goto err_put;	/* the caller unmaps what was inserted */
	vma->vm_private_data = buf;
	vma->vm_ops = &sfab_accel_vm_ops;
	return 0;

err_put:
	sfab_accel_buf_unref(buf);
	return err;
}

/**
 * sfab_accel_vma_buf() - the sfab-accel buffer a VMA maps
 * @vma: a user VMA (mmap_lock held)
 *
 * Return: the buffer, referenced (sfab_accel_buf_put()), or NULL when the
 * VMA is not an sfab-accel mapping or its memory is gone (the accelerator
 * was removed).  While referenced, the memory stays.
 */
struct sfab_accel_buf *sfab_accel_vma_buf(struct vm_area_struct *vma)
{
	struct sfab_accel_buf *buf;
	void *live;

	if (vma->vm_ops != &sfab_accel_vm_ops)
		return NULL;
	buf = vma->vm_private_data;
	sfab_accel_buf_ext_get(buf);
	/* remove takes back only memory without external references */
	mutex_lock(&buf->accel->mem_lock);
	live = buf->kaddr;
	mutex_unlock(&buf->accel->mem_lock);
	if (!live) {
		sfab_accel_buf_ext_put(buf);	/* the VMA holds another */
		return NULL;
	}
	return buf;
}
EXPORT_SYMBOL_GPL(sfab_accel_vma_buf);

/**
 * sfab_accel_va_lookup() - is a user VA range an sfab-accel mapping?
 * @mm: the address space
 * @va: start of the range
 * @len: its bytes, not 0
 * @range: filled in on success; range->buf is referenced
 *
 * The range must lie in one VMA that maps one sfab-accel buffer.
 *
 * Return: 0, -ENOENT (not an sfab-accel mapping), -EINVAL (the range
 * leaves the mapping), -ENODEV (the buffer's memory is gone).
 */
int sfab_accel_va_lookup(struct mm_struct *mm, unsigned long va, u64 len,
			 struct sfab_accel_va_range *range)
{
	struct vm_area_struct *vma;
	struct sfab_accel_buf *buf;
	int err = 0;

	if (!len)
		return -EINVAL;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, va);
	buf = vma ? sfab_accel_vma_buf(vma) : NULL;
	if (!buf) {
		err = vma && vma->vm_ops == &sfab_accel_vm_ops ? -ENODEV : -ENOENT;
	} else if (len > vma->vm_end - va) {
		err = -EINVAL;
	} else {
		range->offset = ((u64)vma->vm_pgoff << PAGE_SHIFT) -
				buf->mmap_offset + (va - vma->vm_start);
		range->bus_addr = buf->bus_addr + range->offset;
	}
	mmap_read_unlock(mm);
	if (err) {
		if (buf)
			sfab_accel_buf_ext_put(buf);
		return err;
	}
	range->buf = buf;
	range->pdev = buf->accel->pdev;
	range->len = len;
	return 0;
}
EXPORT_SYMBOL_GPL(sfab_accel_va_lookup);

/**
 * sfab_accel_buf_page() - the P2PDMA page at @offset of a buffer
 * @buf: a referenced buffer
 * @offset: byte offset in it
 *
 * Return: the page, or NULL past the end or when the memory is gone.
 */
struct page *sfab_accel_buf_page(struct sfab_accel_buf *buf, u64 offset)
{
	void *kaddr = READ_ONCE(buf->kaddr);

	if (!kaddr || offset >= buf->size)
		return NULL;
	return virt_to_page(kaddr + offset);
}
EXPORT_SYMBOL_GPL(sfab_accel_buf_page);

/* ---- dma-buf exporter ---------------------------------------------------- */

struct sfab_accel_export {
	struct sfab_accel_buf *buf;	/* referenced */
	u64 offset, len;
	atomic_t pins;			/* pinned attachments: no move */
	/* MOVE_DMABUF */
	spinlock_t move_lock;
	struct dma_fence *move;		/* a move under way, or NULL */
	struct delayed_work move_end;	/* ends it after SFAB_ACCEL_MOVE_MAX_MS */
	bool gone;			/* END_GONE: it maps no more */
};

static int sfab_accel_dmabuf_attach(struct dma_buf *dmabuf,
				    struct dma_buf_attachment *attach)
{
	struct sfab_accel_export *ex = dmabuf->priv;
	struct sfab_accel *accel = ex->buf->accel;

	if (READ_ONCE(accel->dead))
		return -ENODEV;
	if (!attach->peer2peer) {
		dev_info_ratelimited(&accel->pdev->dev,
				     "dma-buf attach by %s refused: the importer does not take peer-to-peer memory\n",
				     dev_name(attach->dev));
		return -EOPNOTSUPP;
	}
	if (pci_p2pdma_distance(accel->pdev, attach->dev, true) < 0) {
		dev_info_ratelimited(&accel->pdev->dev,
				     "dma-buf attach by %s refused: no P2PDMA path to it\n",
				     dev_name(attach->dev));
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The memory moves only when MOVE_DMABUF says so, and never while an
 * attachment is pinned: pinning counts, and MOVE_DMABUF refuses it.
 */
static int sfab_accel_dmabuf_pin(struct dma_buf_attachment *attach)
{
	struct sfab_accel_export *ex = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (READ_ONCE(ex->move) || READ_ONCE(ex->gone))
		return -EBUSY;
	atomic_inc(&ex->pins);
	return 0;
}

static void sfab_accel_dmabuf_unpin(struct dma_buf_attachment *attach)
{
	struct sfab_accel_export *ex = attach->dmabuf->priv;

	atomic_dec(&ex->pins);
}

static struct sg_table *sfab_accel_dmabuf_map(struct dma_buf_attachment *attach,
					      enum dma_data_direction dir)
{
	struct sfab_accel_export *ex = attach->dmabuf->priv;
	struct sfab_accel_buf *buf = ex->buf;
	struct scatterlist *sg;
	struct sg_table *sgt;
	u64 off = ex->offset, left = ex->len, chunk;
	unsigned int i;
	int err;

	if (READ_ONCE(buf->accel->dead) || !READ_ONCE(buf->kaddr) ||
	    READ_ONCE(ex->gone))
		return ERR_PTR(-ENODEV);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table(sgt, DIV_ROUND_UP(ex->len, SFAB_ACCEL_SG_CHUNK),
			     GFP_KERNEL);
	if (err)
		goto err_free;
	for_each_sgtable_sg(sgt, sg, i) {
		chunk = min_t(u64, left, SFAB_ACCEL_SG_CHUNK);
		sg_set_page(sg, virt_to_page(buf->kaddr + off), chunk, 0);
		off += chunk;
		left -= chunk;
	}
	/* P2PDMA pages: bus addresses behind a common switch */
	err = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (err)
		goto err_table;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(err);
}

static void sfab_accel_dmabuf_unmap(struct dma_buf_attachment *attach,
				    struct sg_table *sgt,
				    enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
}

/* ---- MOVE_DMABUF: an exporter that moves its buffer ------------------- */

struct sfab_accel_move_fence {
	struct dma_fence base;
	spinlock_t lock;		/* the fence's */
};

static const char *sfab_accel_move_fence_name(struct dma_fence *fence)
{
	return SFAB_ACCEL_DRV_NAME;
}

static const struct dma_fence_ops sfab_accel_move_fence_ops = {
	.get_driver_name = sfab_accel_move_fence_name,
	.get_timeline_name = sfab_accel_move_fence_name,
};

/* end the move under way, if one is: true when one was */
static bool sfab_accel_move_finish(struct sfab_accel_export *ex, bool gone)
{
	struct dma_fence *fence;

	spin_lock(&ex->move_lock);
	fence = ex->move;
	ex->move = NULL;
	if (fence && gone)
		WRITE_ONCE(ex->gone, true);
	spin_unlock(&ex->move_lock);
	if (!fence)
		return false;
	dma_fence_signal(fence);
	dma_fence_put(fence);
	return true;
}

static void sfab_accel_move_timeout(struct work_struct *work)
{
	struct sfab_accel_export *ex = container_of(to_delayed_work(work),
						    struct sfab_accel_export,
						    move_end);

	if (sfab_accel_move_finish(ex, false))
		dev_info(&ex->buf->accel->pdev->dev,
			 "dma-buf move ended after %u ms without MOVE_DMABUF END\n",
			 SFAB_ACCEL_MOVE_MAX_MS);
}

/* BEGIN: importers unmap; their next mapping waits for the move's fence */
static int sfab_accel_move_begin(struct sfab_accel_export *ex,
				 struct dma_buf *dmabuf)
{
	struct sfab_accel_move_fence *mf;
	int err;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL);
	if (!mf)
		return -ENOMEM;
	spin_lock_init(&mf->lock);
	dma_fence_init(&mf->base, &sfab_accel_move_fence_ops, &mf->lock,
		       dma_fence_context_alloc(1), 1);

	dma_resv_lock(dmabuf->resv, NULL);
	if (ex->gone)
		err = -ENODEV;
	else if (READ_ONCE(ex->move) || atomic_read(&ex->pins))
		err = -EBUSY;	/* a move under way, or a pinned importer */
	else
		err = dma_resv_reserve_fences(dmabuf->resv, 1);
	if (err) {
		dma_resv_unlock(dmabuf->resv);
		dma_fence_put(&mf->base);
		return err;
	}
	dma_resv_add_fence(dmabuf->resv, &mf->base, DMA_RESV_USAGE_KERNEL);
	spin_lock(&ex->move_lock);
	ex->move = &mf->base;		/* the reference dma_fence_init() gave */
	spin_unlock(&ex->move_lock);
	dma_buf_move_notify(dmabuf);
	dma_resv_unlock(dmabuf->resv);
	schedule_delayed_work(&ex->move_end,
			      msecs_to_jiffies(SFAB_ACCEL_MOVE_MAX_MS));
	return 0;
}

static void sfab_accel_dmabuf_release(struct dma_buf *dmabuf)
{
	struct sfab_accel_export *ex = dmabuf->priv;

	cancel_delayed_work_sync(&ex->move_end);
	sfab_accel_move_finish(ex, false);
	sfab_accel_buf_ext_put(ex->buf);
	kfree(ex);
}

static const struct dma_buf_ops sfab_accel_dmabuf_ops = {
	.attach = sfab_accel_dmabuf_attach,
	.pin = sfab_accel_dmabuf_pin,
	.unpin = sfab_accel_dmabuf_unpin,
	.map_dma_buf = sfab_accel_dmabuf_map,
	.unmap_dma_buf = sfab_accel_dmabuf_unmap,
	.release = sfab_accel_dmabuf_release,
};

int sfab_accel_move(struct sfab_accel_file *f, struct sfab_accel_ioc_move *mv)
{
	struct sfab_accel_export *ex;
	struct dma_buf *dmabuf;
	int err = 0;

	if (mv->op < SFAB_ACCEL_MOVE_BEGIN || mv->op > SFAB_ACCEL_MOVE_END_GONE)
		return -EINVAL;
	dmabuf = dma_buf_get(mv->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (dmabuf->ops != &sfab_accel_dmabuf_ops) {
		err = -EINVAL;
		goto out;
	}
	ex = dmabuf->priv;
	/* only the file that owns the buffer moves it */
	mutex_lock(&f->lock);
	if (xa_load(&f->bufs, ex->buf->handle) != ex->buf)
		err = -EPERM;
	mutex_unlock(&f->lock);
	if (err)
		goto out;
	if (mv->op == SFAB_ACCEL_MOVE_BEGIN) {
		err = sfab_accel_move_begin(ex, dmabuf);
	} else {
		cancel_delayed_work(&ex->move_end);
		if (!sfab_accel_move_finish(ex, mv->op == SFAB_ACCEL_MOVE_END_GONE))
			err = -EBUSY;
	}
out:
	dma_buf_put(dmabuf);
	return err;
}

int sfab_accel_export(struct sfab_accel_file *f,
		      struct sfab_accel_ioc_export *exp)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct sfab_accel *accel = f->accel;
	struct sfab_accel_export *ex;
	struct sfab_accel_buf *buf;
	struct dma_buf *dmabuf;
	int fd;

	if (!accel->p2p)
		return -EOPNOTSUPP;
	if (!exp->len || !PAGE_ALIGNED(exp->offset) || !PAGE_ALIGNED(exp->len))
		return -EINVAL;
	buf = sfab_accel_buf_get(f, exp->handle);
	if (!buf)
		return -ENOENT;
	if (exp->offset > buf->size || exp->len > buf->size - exp->offset) {
		sfab_accel_buf_unref(buf);
		return -EINVAL;
	}
	ex = kzalloc(sizeof(*ex), GFP_KERNEL);
	if (!ex) {
		sfab_accel_buf_unref(buf);
		return -ENOMEM;
	}
	ex->buf = buf;
	ex->offset = exp->offset;
	ex->len = exp->len;
	spin_lock_init(&ex->move_lock);
	INIT_DELAYED_WORK(&ex->move_end, sfab_accel_move_timeout);
	/* the reference sfab_accel_buf_get() took becomes the dma-buf's */
	atomic_inc(&buf->ext_refs);

	info.exp_name = SFAB_ACCEL_DRV_NAME;
	info.owner = THIS_MODULE;
	info.ops = &sfab_accel_dmabuf_ops;
	info.size = exp->len;
	info.flags = O_RDWR | O_CLOEXEC;
	info.priv = ex;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		sfab_accel_buf_ext_put(buf);
		kfree(ex);
		return PTR_ERR(dmabuf);
	}
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);	/* release() drops ex and buf */
		return fd;
	}
	exp->fd = fd;
	atomic64_inc(&accel->stats.exports);
	return 0;
}

/* ---- dma-buf importer ---------------------------------------------------- */

/* stop using the import for good: reservation lock held */
static void sfab_accel_import_revoke(struct sfab_accel_import *imp,
				     bool by_exporter)
{
	struct sfab_accel *accel = imp->accel;

	dma_resv_assert_held(imp->dmabuf->resv);
	mutex_lock(&accel->ring_lock);
	if (!imp->revoked) {
		imp->revoked = true;
		sfab_accel_scrub_locked(accel, imp->dma_addr, imp->len);
		if (by_exporter)
			atomic64_inc(&accel->stats.revokes);
	}
	mutex_unlock(&accel->ring_lock);
	if (imp->sgt) {
		dma_buf_unmap_attachment(imp->attach, imp->sgt, DMA_BIDIRECTIONAL);
		imp->sgt = NULL;
	}
}

/*
 * The exporter moves or revokes the memory: the engine must never touch it
 * again.  Runs with the dma-buf's reservation lock held; takes ring_lock.
 */
static void sfab_accel_import_move_notify(struct dma_buf_attachment *attach)
{
	struct sfab_accel_import *imp = attach->importer_priv;

	sfab_accel_import_revoke(imp, true);
}

static const struct dma_buf_attach_ops sfab_accel_importer_ops = {
	.allow_peer2peer = true,
	.move_notify = sfab_accel_import_move_notify,
};

static void sfab_accel_import_destroy(struct sfab_accel_import *imp)
{
	struct dma_buf *dmabuf = imp->dmabuf;

	dma_resv_lock(dmabuf->resv, NULL);
	sfab_accel_import_revoke(imp, false);
	dma_resv_unlock(dmabuf->resv);
	dma_buf_detach(dmabuf, imp->attach);
	dma_buf_put(dmabuf);
	kfree(imp);
}

/* one contiguous DMA range, or -EINVAL */
static int sfab_accel_sgt_range(struct sg_table *sgt, u64 *addr, u64 *len)
{
	struct scatterlist *sg;
	u64 start = 0, n = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (!i)
			start = sg_dma_address(sg);
		else if (sg_dma_address(sg) != start + n)
			return -EINVAL;
		n += sg_dma_len(sg);
	}
	if (!n || start + n < start)
		return -EINVAL;
	*addr = start;
	*len = n;
	return 0;
}

int sfab_accel_import(struct sfab_accel_file *f,
		      struct sfab_accel_ioc_import *io)
{
	struct sfab_accel *accel = f->accel;
	struct sfab_accel_import *imp;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	u32 handle;
	int err;

	dmabuf = dma_buf_get(io->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	imp = kzalloc(sizeof(*imp), GFP_KERNEL);
	if (!imp) {
		dma_buf_put(dmabuf);
		return -ENOMEM;
	}
	imp->accel = accel;
	imp->dmabuf = dmabuf;
	imp->attach = dma_buf_dynamic_attach(dmabuf, &accel->pdev->dev,
					     &sfab_accel_importer_ops, imp);
	if (IS_ERR(imp->attach)) {
		err = PTR_ERR(imp->attach);
		dma_buf_put(dmabuf);
		kfree(imp);
		return err;
	}

	dma_resv_lock(dmabuf->resv, NULL);
	sgt = dma_buf_map_attachment(imp->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		err = PTR_ERR(sgt);
	} else {
		imp->sgt = sgt;
		err = sfab_accel_sgt_range(sgt, &imp->dma_addr, &imp->len);
	}
	dma_resv_unlock(dmabuf->resv);
	if (err)
		goto err_destroy;

	mutex_lock(&f->lock);
	if (f->nimports >= SFAB_ACCEL_MAX_IMPORTS) {
		err = -ENOSPC;
	} else {
		err = xa_alloc(&f->imports, &handle, imp,
			       XA_LIMIT(1, SFAB_ACCEL_MAX_HANDLE), GFP_KERNEL);
		if (!err) {
			f->nimports++;
			imp->handle = handle;
		}
	}
	mutex_unlock(&f->lock);
	if (err)
		goto err_destroy;
	io->handle = handle;
	io->bus_addr = imp->dma_addr;
	io->len = imp->len;
	atomic64_inc(&accel->stats.imports);
	return 0;

err_destroy:
	sfab_accel_import_destroy(imp);
	return err;
}

int sfab_accel_release_import(struct sfab_accel_file *f, u32 handle)
{
	struct sfab_accel_import *imp;

	mutex_lock(&f->lock);
	imp = xa_erase(&f->imports, handle);
	if (imp)
		f->nimports--;
	mutex_unlock(&f->lock);
	if (!imp)
		return -ENOENT;
	sfab_accel_import_destroy(imp);
	return 0;
}

/* at close and at remove: every buffer and import of the file goes */
void sfab_accel_file_drain(struct sfab_accel_file *f)
{
	struct sfab_accel_import *imp;
	struct sfab_accel_buf *buf;
	unsigned long idx;

	for (;;) {
		idx = 0;
		mutex_lock(&f->lock);
		imp = xa_find(&f->imports, &idx, ULONG_MAX, XA_PRESENT);
		if (imp) {
			xa_erase(&f->imports, idx);
			f->nimports--;
		}
		mutex_unlock(&f->lock);
		if (!imp)
			break;
		sfab_accel_import_destroy(imp);
	}
	for (;;) {
		idx = 0;
		mutex_lock(&f->lock);
		buf = xa_find(&f->bufs, &idx, ULONG_MAX, XA_PRESENT);
		if (buf) {
			xa_erase(&f->bufs, idx);
			f->nbufs--;
		}
		mutex_unlock(&f->lock);
		if (!buf)
			break;
		sfab_accel_buf_unref(buf);
	}
}
