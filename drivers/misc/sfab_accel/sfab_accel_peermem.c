// SPDX-License-Identifier: GPL-2.0-only
/*
 * sfab_accel_peermem: sfab-accel device memory for ibv_reg_mr(), through
 * the OFED-compatible peer-memory client API (<rdma/peer_mem.h>,
 * Documentation/sfab/peer-memory.rst), as nvidia-peermem does for a GPU.
 * A module of its own, so that sfab_accel.ko never depends on sfab.ko
 * (or on MLNX_OFED's ib_core, which exports the same API; this client
 * works with either).  dma-buf export (SFAB_ACCEL_IOC_EXPORT and
 * ibv_reg_dmabuf_mr()) is the upstream way to the same.
 *
 * acquire(): the range is the client's when it lies in one user mapping
 * of one sfab-accel buffer (sfab_accel_va_lookup()).  From then on the
 * context is on this module's list; when the buffer's memory is about
 * to go (its last reference went, or the device is removed) sfab_accel
 * calls mem_gone(), which revokes every registered region over it
 * (the invalidate callback: the HCA stops, then dma_unmap() and
 * put_pages() run from inside it) before the memory is reused.  No
 * buffer reference is held past acquire(), so freeing a buffer that is
 * registered is what revokes the registration, as with a GPU.
 *
 * Locks: mem_gone() runs under sfab_accel's mem_lock and calls the
 * invalidate callback, which takes sfab's region mutex; sfab holds that
 * mutex around get_pages() and dma_map().  So those take only
 * peermem_lock, briefly, never mmap_lock or anything of sfab_accel's;
 * acquire() (under sfab's registry mutex only) does the VA lookup, and
 * buffer references are dropped only where sfab holds no region mutex.
 */

#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <rdma/peer_mem.h>

#include "sfab_accel_peer.h"

#define SFAB_ACCEL_PEERMEM_NAME		"sfab_accel"

/* no ticket yet (get_pages() not called) */
#define SFAB_ACCEL_PEERMEM_NO_TICKET	U64_MAX

/* one acquired range */
struct sfab_accel_peermem_ctx {
	struct list_head node;		/* sfab_accel_peermem_ctxs */
	/* the buffer, until its memory goes (mem_gone() sets NULL) */
	struct sfab_accel_buf *buf;
	struct pci_dev *provider;	/* the accelerator */
	u64 offset;			/* of the first page in the buffer */
	u64 npages;
	u64 ticket;			/* get_pages()'s core_context */
	struct sg_table *sgt;		/* dma_map()'s */
	struct device *dma_dev;
};

/* protects sfab_accel_peermem_ctxs and every context's fields */
static DEFINE_MUTEX(sfab_accel_peermem_lock);
static LIST_HEAD(sfab_accel_peermem_ctxs);

static invalidate_peer_memory sfab_accel_peermem_invalidate;
static void *sfab_accel_peermem_handle;

/* 1: an sfab-accel mapping, wholly; 0: not mine */
static int sfab_accel_peermem_acquire(unsigned long addr, size_t size,
				      void *priv, char *name,
				      void **client_context)
{
	struct sfab_accel_peermem_ctx *ctx;
	struct sfab_accel_va_range range;
	unsigned long first, end;

	if (!current->mm || !size || check_add_overflow(addr, size, &end))
		return 0;
	first = ALIGN_DOWN(addr, PAGE_SIZE);
	end = ALIGN(end, PAGE_SIZE);
	if (sfab_accel_va_lookup(current->mm, first, end - first, &range))
		return 0;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		sfab_accel_buf_put(range.buf);
		return 0;
	}
	ctx->buf = range.buf;
	ctx->provider = range.pdev;
	ctx->offset = range.offset;
	ctx->npages = (end - first) >> PAGE_SHIFT;
	ctx->ticket = SFAB_ACCEL_PEERMEM_NO_TICKET;
	mutex_lock(&sfab_accel_peermem_lock);
	list_add_tail(&ctx->node, &sfab_accel_peermem_ctxs);
	mutex_unlock(&sfab_accel_peermem_lock);
	/*
	 * No reference from here on: if this was the last one, mem_gone()
	 * finds the context and forgets the buffer, and get_pages() fails.
	 */
	sfab_accel_buf_put(range.buf);
	__module_get(THIS_MODULE);
	*client_context = ctx;
	return 1;
}

/* nothing to pin: the memory stays until mem_gone() revokes it */
static int sfab_accel_peermem_get_pages(unsigned long addr, size_t size,
					int write, int force,
					struct sg_table *sg_head,
					void *client_context, u64 core_context)
{
	struct sfab_accel_peermem_ctx *ctx = client_context;
	int err = 0;

	mutex_lock(&sfab_accel_peermem_lock);
	if (!ctx->buf)
		err = -ENODEV;
	else
		ctx->ticket = core_context;
	mutex_unlock(&sfab_accel_peermem_lock);
	return err;
}

/*
 * The range's P2PDMA pages for the HCA.  The memory cannot go meanwhile:
 * mem_gone() waits in the invalidate callback until sfab has the region.
 */
static int sfab_accel_peermem_dma_map(struct sg_table *sg_head,
				      void *client_context,
				      struct device *dma_device, int dmasync,
				      int *nmap)
{
	struct sfab_accel_peermem_ctx *ctx = client_context;
	struct page **pages;
	u64 i;
	int err;

	if (ctx->sgt || ctx->npages > UINT_MAX)
		return -EINVAL;
	if (pci_p2pdma_distance(ctx->provider, dma_device, true) < 0)
		return -EOPNOTSUPP;
	pages = kvmalloc_array(ctx->npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	mutex_lock(&sfab_accel_peermem_lock);
	for (i = 0; ctx->buf && i < ctx->npages; i++) {
		pages[i] = sfab_accel_buf_page(ctx->buf,
					       ctx->offset + (i << PAGE_SHIFT));
		if (!pages[i])
			break;
	}
	mutex_unlock(&sfab_accel_peermem_lock);
	if (i < ctx->npages) {
		err = -ENODEV;
		goto out;
	}
	/* contiguous pages become one entry each run */
	err = sg_alloc_table_from_pages(sg_head, pages, ctx->npages, 0,
					ctx->npages << PAGE_SHIFT, GFP_KERNEL);
	if (err)
		goto out;
	err = dma_map_sgtable(dma_device, sg_head, DMA_BIDIRECTIONAL,
			      DMA_ATTR_SKIP_CPU_SYNC);
	if (err) {
		sg_free_table(sg_head);
		goto out;
	}
	ctx->sgt = sg_head;
	ctx->dma_dev = dma_device;
	*nmap = sg_head->nents;
out:
	kvfree(pages);
	return err;
}

static int sfab_accel_peermem_dma_unmap(struct sg_table *sg_head,
					void *client_context,
					struct device *dma_device)
{
	struct sfab_accel_peermem_ctx *ctx = client_context;

	if (WARN_ON(sg_head != ctx->sgt))
		return 0;
	dma_unmap_sgtable(ctx->dma_dev, sg_head, DMA_BIDIRECTIONAL,
			  DMA_ATTR_SKIP_CPU_SYNC);
	return 0;
}

static void sfab_accel_peermem_put_pages(struct sg_table *sg_head,
					 void *client_context)
{
	struct sfab_accel_peermem_ctx *ctx = client_context;

	if (ctx->sgt) {
		sg_free_table(ctx->sgt);
		ctx->sgt = NULL;
	}
}

static unsigned long sfab_accel_peermem_get_page_size(void *client_context)
{
	return PAGE_SIZE;
}

static void sfab_accel_peermem_release(void *client_context)
{
	struct sfab_accel_peermem_ctx *ctx = client_context;

	mutex_lock(&sfab_accel_peermem_lock);
	list_del(&ctx->node);
	mutex_unlock(&sfab_accel_peermem_lock);
	kfree(ctx);
	module_put(THIS_MODULE);
}

static struct peer_memory_client sfab_accel_peermem_client = {
	.name = SFAB_ACCEL_PEERMEM_NAME,
	.version = "1.0",
	.acquire = sfab_accel_peermem_acquire,
	.get_pages = sfab_accel_peermem_get_pages,
	.dma_map = sfab_accel_peermem_dma_map,
	.dma_unmap = sfab_accel_peermem_dma_unmap,
	.put_pages = sfab_accel_peermem_put_pages,
	.get_page_size = sfab_accel_peermem_get_page_size,
	.release = sfab_accel_peermem_release,
};

/* at most this many regions revoked per pass of mem_gone() */
#define SFAB_ACCEL_PEERMEM_BATCH	16

/*
 * A buffer's memory goes: forget it in every context, and revoke the
 * regions registered over it; on return the HCA uses none of it.  The
 * invalidate calls run without peermem_lock (they wait for sfab's region
 * mutex, which a registration holds around dma_map()); a context whose
 * region is deregistered meanwhile is released only after dereg, and
 * its ticket is then ignored.
 */
static void sfab_accel_peermem_mem_gone(struct sfab_accel_buf *buf)
{
	u64 tickets[SFAB_ACCEL_PEERMEM_BATCH];
	struct sfab_accel_peermem_ctx *ctx;
	unsigned int n, i;

	do {
		n = 0;
		mutex_lock(&sfab_accel_peermem_lock);
		list_for_each_entry(ctx, &sfab_accel_peermem_ctxs, node) {
			if (ctx->buf != buf)
				continue;
			if (ctx->ticket == SFAB_ACCEL_PEERMEM_NO_TICKET) {
				/* not registered yet: get_pages() fails */
				ctx->buf = NULL;
				continue;
			}
			if (n == ARRAY_SIZE(tickets))
				break;
			ctx->buf = NULL;
			tickets[n++] = ctx->ticket;
		}
		mutex_unlock(&sfab_accel_peermem_lock);
		for (i = 0; i < n; i++)
			sfab_accel_peermem_invalidate(sfab_accel_peermem_handle,
						      tickets[i]);
	} while (n == ARRAY_SIZE(tickets));
}

static const struct sfab_accel_peer_notifier sfab_accel_peermem_nb = {
	.mem_gone = sfab_accel_peermem_mem_gone,
};

static int __init sfab_accel_peermem_init(void)
{
	int err;

	err = sfab_accel_peer_notifier_set(&sfab_accel_peermem_nb);
	if (err)
		return err;
	sfab_accel_peermem_handle =
		ib_register_peer_memory_client(&sfab_accel_peermem_client,
					       &sfab_accel_peermem_invalidate);
	if (!sfab_accel_peermem_handle) {
		sfab_accel_peer_notifier_clear(&sfab_accel_peermem_nb);
		return -EINVAL;
	}
	return 0;
}

/* every context holds a module reference: none is left here */
static void __exit sfab_accel_peermem_exit(void)
{
	ib_unregister_peer_memory_client(sfab_accel_peermem_handle);
	sfab_accel_peer_notifier_clear(&sfab_accel_peermem_nb);
}

module_init(sfab_accel_peermem_init);
module_exit(sfab_accel_peermem_exit);

MODULE_DESCRIPTION("sfab-accel device memory for RDMA memory regions (peer-memory client)");
MODULE_LICENSE("GPL");
