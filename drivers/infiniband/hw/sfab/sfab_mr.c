// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab memory: user rings pinned with ib_umem and handed to the device as
 * page lists, memory regions (the DMA MR, user MRs, fast-registration
 * MRs, dma-buf MRs, user MRs over a peer-memory client's pages) on the
 * contract's CREATE_MR/DESTROY_MR/UPDATE_MR (include/sfab/sfab_queue.h).
 *
 * Peer memory (CONFIG_INFINIBAND_SFAB_PEER_MEM, sfab_peer_mem.c,
 * Documentation/sfab/peer-memory.rst): reg_user_mr offers the range to
 * the registered clients first; the page list of the one that claims it
 * is built as a dma-buf's is, and its revocation is the dma-buf path's
 * UPDATE_MR INVALIDATE, for good: the MR stays invalid until dereg_mr.
 *
 * User MRs and fast registration need a device that runs CREATE_MR
 * (SFAB_DEV_CAP_MR, sfab_mr_probe()).  Without it neither reg_user_mr nor
 * alloc_mr is offered.  dma-buf MRs need UPDATE_MR as well
 * (SFAB_DEV_CAP_MR_UPDATE): an exporter may move the buffer, and the
 * device must then stop using the old pages while the key lives on.
 *
 * Which dma-buf importer (Documentation/sfab/verbs.rst, "Memory
 * regions"): the pinned one (ib_umem_dmabuf_get_pinned()) when the
 * exporter cannot move the buffer (no pin op: dma_buf_is_dynamic() is
 * false) or the module parameter dmabuf_pin asks for it; else the
 * dynamic one (ib_umem_dmabuf_get()), whose move_notify invalidates the
 * MR on the device (UPDATE_MR INVALIDATE) and unmaps it, all under the
 * dma-buf's reservation lock, and queues a work item that maps the
 * buffer again once the exporter's fences signal and hands the device
 * the new pages (UPDATE_MR REMAP).  In between, and for good if the
 * re-map fails, an access through the MR fails as one through an
 * invalid key.  The device has no page faults: this is mlx5's
 * invalidate-in-move_notify with an eager re-map in place of its lazy
 * one.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <kunit/visibility.h>

#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/iter.h>
#include <rdma/uverbs_ioctl.h>

#include "sfab.h"
#include "sfab_com_cmd.h"
#include "sfab_peer_mem.h"

/* ring pages (struct sfab_ring_desc.page_shift) */
#define SFAB_RING_PGSZ_BITMAP		GENMASK_ULL(SFAB_RING_MAX_PAGE_SHIFT, \
						    SFAB_RING_MIN_PAGE_SHIFT)
/* MR pages (struct sfab_aq_create_mr.page_shift) */
#define SFAB_MR_PGSZ_BITMAP		GENMASK_ULL(SFAB_MR_MAX_PAGE_SHIFT, \
						    SFAB_MR_MIN_PAGE_SHIFT)

/*
 * IB_ACCESS_* the device implements (IB_ACCESS_MW_BIND only with
 * SFAB_DEV_CAP_MW, IB_ACCESS_FLUSH_GLOBAL with SFAB_DEV_CAP_FLUSH:
 * sfab_access_ok()); the values are the contract's
 */
#define SFAB_IB_ACCESS_HW		(IB_ACCESS_LOCAL_WRITE | \
					 IB_ACCESS_REMOTE_WRITE | \
					 IB_ACCESS_REMOTE_READ | \
					 IB_ACCESS_REMOTE_ATOMIC | \
					 IB_ACCESS_MW_BIND | \
					 IB_ACCESS_FLUSH_GLOBAL)
static_assert(IB_ACCESS_LOCAL_WRITE == SFAB_ACCESS_LOCAL_WRITE);
static_assert(IB_ACCESS_REMOTE_WRITE == SFAB_ACCESS_REMOTE_WRITE);
static_assert(IB_ACCESS_REMOTE_READ == SFAB_ACCESS_REMOTE_READ);
static_assert(IB_ACCESS_REMOTE_ATOMIC == SFAB_ACCESS_REMOTE_ATOMIC);
static_assert(IB_ACCESS_MW_BIND == SFAB_ACCESS_MW_BIND);
static_assert(IB_ACCESS_FLUSH_GLOBAL == SFAB_ACCESS_FLUSH_GLOBAL);

u32 sfab_access(int ib_flags)
{
	return ib_flags & SFAB_IB_ACCESS_HW;
}

/* rights a user MR may ask for: the optional ones are hints */
static bool sfab_access_ok(struct sfab_dev *dev, int access_flags)
{
	if (access_flags & ~(SFAB_IB_ACCESS_HW | IB_ACCESS_OPTIONAL))
		return false;
	if ((access_flags & IB_ACCESS_FLUSH_GLOBAL) && !dev->has_flush)
		return false;
	return dev->has_mw || !(access_flags & IB_ACCESS_MW_BIND);
}

static int sfab_pbl_alloc(struct sfab_dev *dev, struct sfab_pbl *pbl,
			  size_t npages)
{
	pbl->size = npages * sizeof(*pbl->buf);
	pbl->buf = dma_alloc_coherent(&dev->pdev->dev, pbl->size, &pbl->dma,
				      GFP_KERNEL);
	return pbl->buf ? 0 : -ENOMEM;
}

static void sfab_pbl_free(struct sfab_dev *dev, struct sfab_pbl *pbl)
{
	if (pbl->buf)
		dma_free_coherent(&dev->pdev->dev, pbl->size, pbl->buf,
				  pbl->dma);
	pbl->buf = NULL;
}

/**
 * sfab_pbl_fill() - a umem's page list at the device's page size
 * @buf: the list, room for @n entries
 * @n: its room, ib_umem_num_dma_blocks(@umem, @pgsz)
 * @umem: DMA mapped: pinned pages, or a dma-buf's mapped scatterlist
 * @pgsz: the page size, what sfab_mr_pgsz() or ib_umem_find_best_pgsz()
 *	found for this umem (which also set its iova)
 *
 * Every entry is the bus address of a whole page of @pgsz bytes, the
 * first the one that holds the umem's first byte, whatever the sizes of
 * the scatterlist's segments.
 *
 * Return: the entries written, at most @n; fewer when the scatterlist is
 * shorter than the umem.
 */
VISIBLE_IF_KUNIT size_t sfab_pbl_fill(__le64 *buf, size_t n,
				      struct ib_umem *umem, unsigned long pgsz)
{
	struct ib_block_iter biter;
	size_t i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (i == n)
			break;
		buf[i++] = cpu_to_le64(rdma_block_iter_dma_address(&biter));
	}
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_pbl_fill);

/**
 * sfab_mr_pgsz() - the device page size of an MR over a umem
 * @umem: DMA mapped; its iova becomes @iova
 * @page_size_cap: the device's page sizes (QUERY_DEVICE)
 * @iova: the MR's first byte
 * @movable: the umem's pages may move (a dma-buf MR that follows its
 *	exporter): PAGE_SIZE only, so that any later placement of the
 *	buffer fits a page list of the same length and page size
 *
 * Return: the largest page size of the device that the layout allows
 * (4 KiB .. 1 GiB), 0 when none does.
 */
VISIBLE_IF_KUNIT unsigned long sfab_mr_pgsz(struct ib_umem *umem,
					    u64 page_size_cap, u64 iova,
					    bool movable)
{
	u64 bitmap = page_size_cap & SFAB_MR_PGSZ_BITMAP;

	if (movable)
		bitmap &= PAGE_SIZE;
	return ib_umem_find_best_pgsz(umem, bitmap, iova);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_mr_pgsz);

/* the bytes to pin for a ring of @size and its record (checked) */
static size_t sfab_ring_pin_len(size_t size, u64 dbrec_off)
{
	return dbrec_off ? dbrec_off + SFAB_DBREC_SIZE : size;
}

/**
 * sfab_umem_ring_map() - describe a pinned ring (and its record) to the
 *	device
 * @dev: the device
 * @umem: DMA mapped (pinned pages or a pinned dma-buf), covering the ring
 *	and, with @dbrec_off, the record
 * @addr: the ring's first byte in @umem's address space (a user address,
 *	or an offset in a dma-buf), page aligned
 * @size: the ring's bytes
 * @dbrec_off: the record's offset from @addr, sfab_ring_dbrec_off_ok();
 *	0: none
 * @pbl: filled: the page list of the whole umem, in coherent memory the
 *	device reads for the ring's life
 * @desc: filled: a page-list ring of @size bytes (only the ring's pages
 *	counted); the caller sets log_depth and log_stride
 * @dbrec: filled: the record's bus address, 0 without @dbrec_off
 *
 * The same page-list code serves user memory and dma-bufs: it walks the
 * umem's DMA blocks with rdma_umem_for_each_dma_block().
 *
 * Return: 0 or a negative errno (the umem stays pinned).
 */
int sfab_umem_ring_map(struct sfab_dev *dev, struct ib_umem *umem, u64 addr,
		       size_t size, u64 dbrec_off, struct sfab_pbl *pbl,
		       struct sfab_com_ring *desc, u64 *dbrec)
{
	unsigned long bitmap = SFAB_RING_PGSZ_BITMAP;
	unsigned int shift;
	unsigned long pgsz;
	size_t n, ring_n;
	int err;

	if (!PAGE_ALIGNED(addr) || !size ||
	    !sfab_ring_dbrec_off_ok(size, dbrec_off, PAGE_SIZE) ||
	    umem->length < sfab_ring_pin_len(size, dbrec_off))
		return -EINVAL;
	/* the ring starts at offset 0 of its first page: no larger pages */
	if (addr)
		bitmap &= GENMASK_ULL(__ffs64(addr), 0);
	pgsz = ib_umem_find_best_pgsz(umem, bitmap, addr);
	if (!pgsz)
		return -EINVAL;
	shift = order_base_2(pgsz);
	n = ib_umem_num_dma_blocks(umem, pgsz);
	ring_n = DIV_ROUND_UP(size, pgsz);
	if (ring_n > n || (dbrec_off && (dbrec_off >> shift) >= n))
		return -EINVAL;
	err = sfab_pbl_alloc(dev, pbl, n);
	if (err)
		return err;
	if (sfab_pbl_fill(pbl->buf, n, umem, pgsz) != n) {
		sfab_pbl_free(dev, pbl);
		return -EINVAL;
	}

	memset(desc, 0, sizeof(*desc));
	desc->addr = pbl->dma;
	desc->page_shift = shift;
	desc->npages = ring_n;
	*dbrec = 0;
	if (dbrec_off)
		*dbrec = le64_to_cpu(pbl->buf[dbrec_off >> shift]) +
			 (dbrec_off & (pgsz - 1));
	return 0;
}

/**
 * sfab_umem_ring() - pin a user ring (and its record) and describe it to
 *	the device
 * @dev: the device
 * @udata: the verb's udata (its context owns the pin)
 * @addr: the ring's user address, page aligned
 * @size: its bytes
 * @dbrec_off: its doorbell record's offset from @addr in the same buffer,
 *	sfab_ring_dbrec_off_ok(); 0: none
 * @umem: the pin, of the ring and the record
 * @pbl: its page list, in coherent memory the device reads for the
 *	ring's life
 * @desc: filled: a page-list ring of @size bytes; the caller sets
 *	log_depth and log_stride
 * @dbrec: filled: the record's bus address, 0 without @dbrec_off
 *
 * Return: 0 or a negative errno.
 */
int sfab_umem_ring(struct sfab_dev *dev, struct ib_udata *udata, u64 addr,
		   size_t size, u64 dbrec_off, struct ib_umem **umem,
		   struct sfab_pbl *pbl, struct sfab_com_ring *desc,
		   u64 *dbrec)
{
	int err;

	if (!addr || !PAGE_ALIGNED(addr) || !size) {
		ibdev_dbg(&dev->ibdev, "user ring at %#llx (%zu bytes): not page aligned\n",
			  addr, size);
		return -EINVAL;
	}
	if (!sfab_ring_dbrec_off_ok(size, dbrec_off, PAGE_SIZE)) {
		ibdev_dbg(&dev->ibdev, "user ring at %#llx (%zu bytes): doorbell record at +%#llx refused\n",
			  addr, size, dbrec_off);
		return -EINVAL;
	}
	*umem = ib_umem_get(&dev->ibdev, addr,
			    sfab_ring_pin_len(size, dbrec_off),
			    IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(*umem)) {
		err = PTR_ERR(*umem);
		ibdev_dbg(&dev->ibdev, "cannot pin user ring at %#llx: %d\n",
			  addr, err);
		*umem = NULL;
		return err;
	}
	err = sfab_umem_ring_map(dev, *umem, addr, size, dbrec_off, pbl, desc,
				 dbrec);
	if (err) {
		ib_umem_release(*umem);
		*umem = NULL;
	}
	return err;
}

/**
 * sfab_umem_ring_dmabuf() - pin a ring (and its record) in a dma-buf and
 *	describe it to the device
 * @dev: the device
 * @fd: the dma-buf
 * @offset: the ring's first byte in it, page aligned
 * @size: the ring's bytes
 * @dbrec_off: its doorbell record's offset from @offset,
 *	sfab_ring_dbrec_off_ok(); 0: none
 * @umem: the pin (&ib_umem_dmabuf.umem): the exporter's pages stay put
 *	until ib_umem_release()
 * @pbl: its page list, in coherent memory the device reads for the
 *	ring's life
 * @desc: filled: a page-list ring of @size bytes; the caller sets
 *	log_depth and log_stride
 * @dbrec: filled: the record's bus address, 0 without @dbrec_off
 *
 * For queues an accelerator drives in its own memory: the kernel never
 * reads or writes the ring, it only hands its pages to the device.
 *
 * Return: 0 or a negative errno (the dma-buf's own: -EBADF, -EINVAL for
 * a range past its end, the exporter's refusal to pin).
 */
int sfab_umem_ring_dmabuf(struct sfab_dev *dev, int fd, u64 offset,
			  size_t size, u64 dbrec_off, struct ib_umem **umem,
			  struct sfab_pbl *pbl, struct sfab_com_ring *desc,
			  u64 *dbrec)
{
	struct ib_umem_dmabuf *umem_dmabuf;
	int err;

	if (!PAGE_ALIGNED(offset) || offset > ULONG_MAX || !size ||
	    !sfab_ring_dbrec_off_ok(size, dbrec_off, PAGE_SIZE)) {
		ibdev_dbg(&dev->ibdev, "dma-buf ring at +%#llx (%zu bytes, record +%#llx) refused\n",
			  offset, size, dbrec_off);
		return -EINVAL;
	}
	umem_dmabuf = ib_umem_dmabuf_get_pinned(&dev->ibdev, offset,
						sfab_ring_pin_len(size, dbrec_off),
						fd, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem_dmabuf)) {
		err = PTR_ERR(umem_dmabuf);
		ibdev_dbg(&dev->ibdev, "cannot pin dma-buf ring at +%#llx: %d\n",
			  offset, err);
		*umem = NULL;
		return err;
	}
	*umem = &umem_dmabuf->umem;
	err = sfab_umem_ring_map(dev, *umem, offset, size, dbrec_off, pbl, desc,
				 dbrec);
	if (err) {
		ib_umem_release(*umem);
		*umem = NULL;
	}
	return err;
}

void sfab_umem_ring_free(struct sfab_dev *dev, struct ib_umem *umem,
			 struct sfab_pbl *pbl)
{
	sfab_pbl_free(dev, pbl);
	ib_umem_release(umem);
}

/* ---- memory regions ---------------------------------------------------------- */

static void sfab_mr_set_key(struct sfab_mr *mr, u32 key)
{
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
}

struct ib_mr *sfab_get_dma_mr(struct ib_pd *ibpd, int access_flags)
{
	struct sfab_dev *dev = to_sfab_dev(ibpd->device);
	struct sfab_mr *mr;

	/*
	 * The local_dma_lkey works for privileged (kernel) QPs only, and
	 * remote access to all of memory is not something to hand out.
	 */
	if (access_flags & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EOPNOTSUPP);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->kind = SFAB_MR_DMA;
	mr->ibmr.lkey = dev->attr.local_dma_lkey;
	return &mr->ibmr;
}

/*
 * CREATE_MR of @mr over its umem (DMA mapped) at @pgsz, in @mr->pdn; the
 * page list lives in coherent memory for the command only.  Sets the
 * key, the page size and the list's length.
 */
static int sfab_mr_create_hw(struct sfab_dev *dev, struct sfab_mr *mr,
			     u64 iova, u64 length, int access_flags,
			     unsigned long pgsz)
{
	size_t n = ib_umem_num_dma_blocks(mr->umem, pgsz);
	struct sfab_com_create_mr p;
	struct sfab_pbl pbl = {};
	u32 key;
	int err;

	if (n > U32_MAX)
		return -EINVAL;
	/* the device reads the list during CREATE_MR only */
	err = sfab_pbl_alloc(dev, &pbl, n);
	if (err)
		return err;
	if (sfab_pbl_fill(pbl.buf, n, mr->umem, pgsz) != n) {
		err = -EINVAL;
		goto out;
	}

	memset(&p, 0, sizeof(p));
	p.iova = iova;
	p.length = length;
	p.pbl_addr = pbl.dma;
	p.npages = n;
	p.pdn = mr->pdn;
	p.access = sfab_access(access_flags);
	p.page_shift = order_base_2(pgsz);
	err = sfab_com_create_mr(&dev->edev, &p, &key);
	if (err)
		goto out;

	sfab_mr_set_key(mr, key);
	/* ib_core sets them after reg_user_mr, not for rereg_user_mr's MR */
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = pgsz;
	mr->npages = n;
	mr->page_shift = p.page_shift;
out:
	sfab_pbl_free(dev, &pbl);
	return err;
}

#if IS_ENABLED(CONFIG_INFINIBAND_USER_MEM)
/*
 * An MR whose pages are about to go (a dma-buf MR that follows moves,
 * after move_notify; a peer-memory MR its client revokes): stop the
 * device's use of them (UPDATE_MR INVALIDATE); the key lives on until
 * dereg_mr.  A device that does not confirm it is stopped altogether,
 * as dereg_mr does.
 */
static void sfab_mr_invalidate_hw(struct sfab_mr *mr)
{
	struct sfab_com_update_mr p = {
		.key = mr->ibmr.lkey,
		.pdn = mr->pdn,
		.op = SFAB_MR_UPDATE_INVALIDATE,
	};
	int err;

	err = sfab_com_update_mr(&mr->dev->edev, &p);
	if (err) {
		ibdev_err(&mr->dev->ibdev,
			  "cannot invalidate MR %#x (%d): stopping the device\n",
			  p.key, err);
		sfab_com_quiesce(&mr->dev->edev);
	}
}
#endif /* CONFIG_INFINIBAND_USER_MEM */

/* peer memory needs user memory (Kconfig, Kbuild) */
#if IS_ENABLED(CONFIG_INFINIBAND_SFAB_PEER_MEM)

/*
 * dereg_mr of a peer-memory MR, under the region's mutex: the device
 * stops for good before the pages are unmapped.  -EBUSY (a memory
 * window is bound) leaves the MR as it was; a device that does not
 * answer is stopped altogether.
 */
static int sfab_peer_mr_stop(void *priv)
{
	struct sfab_mr *mr = priv;
	int err;

	err = sfab_com_destroy_mr(&mr->dev->edev, mr->ibmr.lkey);
	if (err == -EBUSY)
		return err;
	if (err)
		sfab_com_quiesce(&mr->dev->edev);
	return 0;
}

/* the client revokes the MR's pages */
static void sfab_peer_mr_invalidate(void *priv)
{
	sfab_mr_invalidate_hw(priv);
}

/*
 * reg_user_mr over a peer-memory client's pages (sfab_peer_mem.c), @mr
 * set up by the caller: the device page list from the client's mapped
 * entries, the same way as for a dma-buf's; the MR's pages no larger
 * than the client's.  The device gets the MR before the client may
 * revoke it.
 */
static struct ib_mr *sfab_reg_peer_mr(struct sfab_dev *dev,
				      struct sfab_mr *mr,
				      struct sfab_peer_mem *pm, u64 iova,
				      u64 length, int access_flags)
{
	struct ib_umem view;
	unsigned long pgsz;
	int err;

	err = sfab_peer_mem_view(pm, &view);
	if (err)
		goto err_abort;
	pgsz = sfab_mr_pgsz(&view, dev->attr.page_size_cap &
			    GENMASK_ULL(ilog2(pm->page_size), 0), iova, false);
	if (!pgsz) {
		ibdev_dbg(&dev->ibdev, "reg_user_mr: no page size fits peer memory at iova %#llx\n",
			  iova);
		err = -EINVAL;
		goto err_abort;
	}
	mr->umem = &view;
	err = sfab_mr_create_hw(dev, mr, iova, length, access_flags, pgsz);
	mr->umem = NULL;
	sfab_peer_mem_view_done(pm);
	if (err)
		goto err_abort;
	mr->peer = pm;
	sfab_peer_mem_arm(pm, sfab_peer_mr_invalidate, mr);
	return &mr->ibmr;

err_abort:
	sfab_peer_mem_abort(pm);
	kfree(mr);
	return ERR_PTR(err);
}

/* dereg_mr of a peer-memory MR: what an invalidation did is not redone */
static int sfab_dereg_peer_mr(struct sfab_mr *mr)
{
	int err;

	err = sfab_peer_mem_release(mr->peer, sfab_peer_mr_stop, mr);
	if (err)
		return err;
	kfree(mr);
	return 0;
}

#else /* !CONFIG_INFINIBAND_SFAB_PEER_MEM: no client ever claims a range */

static struct ib_mr *sfab_reg_peer_mr(struct sfab_dev *dev,
				      struct sfab_mr *mr,
				      struct sfab_peer_mem *pm, u64 iova,
				      u64 length, int access_flags)
{
	kfree(mr);
	return ERR_PTR(-EOPNOTSUPP);
}

static int sfab_dereg_peer_mr(struct sfab_mr *mr)
{
	return -EINVAL;
}

#endif /* CONFIG_INFINIBAND_SFAB_PEER_MEM */

static struct ib_mr *sfab_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 iova, int access_flags,
				      struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibpd->device);
	struct ib_device *ibdev = ibpd->device;
	struct sfab_peer_mem *pm;
	unsigned long pgsz;
	struct sfab_mr *mr;
	int err;

	if (!sfab_access_ok(dev, access_flags)) {
		ibdev_dbg(ibdev, "reg_user_mr: access %#x unsupported\n",
			  access_flags);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!length || length > dev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->kind = SFAB_MR_USER;
	mr->dev = dev;
	mr->pdn = to_sfab_pd(ibpd)->pdn;
	mr->access = access_flags;

	/*
	 * A peer-memory client's range (a GPU's memory) first; clients
	 * that revoke their ranges only where the device can invalidate
	 * an MR.
	 */
	pm = sfab_peer_mem_get(SFAB_PEER_CLIENTS, start, length,
			       ib_access_writable(access_flags),
			       dev->attr.dev_caps & SFAB_DEV_CAP_MR_UPDATE,
			       &dev->pdev->dev);
	if (IS_ERR(pm)) {
		err = PTR_ERR(pm);
		ibdev_dbg(ibdev, "reg_user_mr: peer memory at %#llx+%llu: %d\n",
			  start, length, err);
		goto err_free;
	}
	if (pm)
		return sfab_reg_peer_mr(dev, mr, pm, iova, length,
					access_flags);

	mr->umem = ib_umem_get(ibdev, start, length, access_flags);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		ibdev_dbg(ibdev, "reg_user_mr: cannot pin %#llx+%llu: %d\n",
			  start, length, err);
		goto err_free;
	}
	pgsz = sfab_mr_pgsz(mr->umem, dev->attr.page_size_cap, iova, false);
	if (!pgsz) {
		ibdev_dbg(ibdev, "reg_user_mr: no page size fits iova %#llx\n",
			  iova);
		err = -EINVAL;
		goto err_release;
	}
	err = sfab_mr_create_hw(dev, mr, iova, length, access_flags, pgsz);
	if (err)
		goto err_release;
	return &mr->ibmr;

err_release:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * rereg_user_mr of PD or access rights only: UPDATE_MR MODIFY, in place;
 * the keys stay, as applications expect of ibv_rereg_mr() there.
 */
static int sfab_rereg_mr_modify(struct sfab_dev *dev, struct sfab_mr *mr,
				int access_flags, struct ib_pd *ibpd)
{
	struct sfab_com_update_mr p = {
		.key = mr->ibmr.lkey,
		.pdn = mr->pdn,
		.op = SFAB_MR_UPDATE_MODIFY,
		.new_pdn = to_sfab_pd(ibpd)->pdn,
		.new_access = sfab_access(access_flags),
	};
	int err;

	if (!sfab_access_ok(dev, access_flags))
		return -EOPNOTSUPP;
	err = sfab_com_update_mr(&dev->edev, &p);
	if (err)
		return err;
	mr->pdn = p.new_pdn;
	mr->access = access_flags;
	return 0;
}

/*
 * rereg_user_mr: PD and access change in place (the keys stay); a new
 * translation makes a new MR with what changes and what stays (the pages
 * pinned again, the keys new), which ib_core puts in the old one's place
 * before it deregisters the old one.  On failure the MR is untouched.  A
 * dma-buf or peer-memory MR is not re-registered: -EOPNOTSUPP.
 */
static struct ib_mr *sfab_rereg_user_mr(struct ib_mr *ibmr, int flags,
					u64 start, u64 length, u64 iova,
					int access_flags, struct ib_pd *ibpd,
					struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibmr->device);
	struct sfab_mr *mr = to_sfab_mr(ibmr);
	int err;

	if (mr->kind != SFAB_MR_USER || !mr->umem)
		return ERR_PTR(-EOPNOTSUPP);
	if (!(flags & IB_MR_REREG_TRANS) &&
	    (dev->attr.dev_caps & SFAB_DEV_CAP_MR_UPDATE)) {
		if (!(flags & IB_MR_REREG_ACCESS))
			access_flags = mr->access;
		err = sfab_rereg_mr_modify(dev, mr, access_flags, ibpd);
		return err ? ERR_PTR(err) : NULL;
	}
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = mr->umem->length;
		iova = ibmr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access_flags = mr->access;
	/*
	 * ib_core deregisters the old MR after this returns and only leaks
	 * it if that fails: ask the device first whether a window is bound
	 * to it (MODIFY to what it is; -EBUSY then), as IBA wants the
	 * re-registration refused.  (Without UPDATE_MR a device cannot
	 * say; nothing is asked then.)
	 */
	if (dev->has_mw && (dev->attr.dev_caps & SFAB_DEV_CAP_MR_UPDATE)) {
		err = sfab_rereg_mr_modify(dev, mr, mr->access, mr->ibmr.pd);
		if (err)
			return ERR_PTR(err);
	}
	return sfab_reg_user_mr(ibpd, start, length, iova, access_flags, udata);
}

#if IS_ENABLED(CONFIG_INFINIBAND_USER_MEM)

MODULE_IMPORT_NS(DMA_BUF);

static bool dmabuf_pin;
module_param(dmabuf_pin, bool, 0444);
MODULE_PARM_DESC(dmabuf_pin,
		 "Pin dma-buf MRs whose exporter could move them, instead of following the moves (default: follow)");

/* the MR's pages mapped again: hand the device the new list */
static int sfab_dmabuf_mr_remap(struct sfab_mr *mr)
{
	struct sfab_dev *dev = mr->dev;
	struct sfab_com_update_mr p = {};
	struct sfab_pbl pbl = {};
	unsigned long pgsz;
	int err;

	pgsz = sfab_mr_pgsz(mr->umem, dev->attr.page_size_cap, mr->ibmr.iova,
			    true);
	if (pgsz != BIT(mr->page_shift) ||
	    ib_umem_num_dma_blocks(mr->umem, pgsz) != mr->npages)
		return -EINVAL;
	err = sfab_pbl_alloc(dev, &pbl, mr->npages);
	if (err)
		return err;
	if (sfab_pbl_fill(pbl.buf, mr->npages, mr->umem, pgsz) != mr->npages) {
		err = -EINVAL;
		goto out;
	}
	p.key = mr->ibmr.lkey;
	p.pdn = mr->pdn;
	p.pbl_addr = pbl.dma;
	p.npages = mr->npages;
	p.op = SFAB_MR_UPDATE_REMAP;
	p.page_shift = mr->page_shift;
	err = sfab_com_update_mr(&dev->edev, &p);
out:
	sfab_pbl_free(dev, &pbl);
	return err;
}

/*
 * After a move: map the buffer again and give the device the new pages.
 * On failure the MR stays invalid until the next move or its dereg_mr.
 *
 * The move ends when the exporter's kernel fences signal.  Wait for them
 * without the reservation lock, which the exporter and every other
 * importer need meanwhile (waiting in ib_umem_dmabuf_map_pages() with
 * it held would stall them all for the whole move); a move that begins
 * after the wait queues this work again through move_notify, so this
 * run then leaves the MR to that one.
 */
static void sfab_dmabuf_remap_work(struct work_struct *work)
{
	struct sfab_mr *mr = container_of(work, struct sfab_mr, remap_work);
	struct ib_umem_dmabuf *umem_dmabuf = to_ib_umem_dmabuf(mr->umem);
	struct dma_resv *resv = umem_dmabuf->attach->dmabuf->resv;
	int err;

	dma_resv_wait_timeout(resv, DMA_RESV_USAGE_KERNEL, false,
			      MAX_SCHEDULE_TIMEOUT);
	dma_resv_lock(resv, NULL);
	/* deregistering, mapped again by an earlier run, or moving again */
	if (!umem_dmabuf->private || mr->hw_mapped ||
	    !dma_resv_test_signaled(resv, DMA_RESV_USAGE_KERNEL))
		goto out;
	err = ib_umem_dmabuf_map_pages(umem_dmabuf);
	if (!err)
		err = sfab_dmabuf_mr_remap(mr);
	if (err) {
		ib_umem_dmabuf_unmap_pages(umem_dmabuf);
		ibdev_warn_ratelimited(&mr->dev->ibdev,
				       "dma-buf MR %#x stays invalid: cannot map it after a move (%d)\n",
				       mr->ibmr.lkey, err);
		goto out;
	}
	mr->hw_mapped = true;
out:
	dma_resv_unlock(resv);
}

/* the exporter is about to move the buffer; its reservation lock is held */
static void sfab_dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	struct ib_umem_dmabuf *umem_dmabuf = attach->importer_priv;
	struct sfab_mr *mr = umem_dmabuf->private;

	dma_resv_assert_held(attach->dmabuf->resv);
	/* not registered yet (nothing mapped) or being deregistered */
	if (!mr)
		return;
	if (mr->hw_mapped) {
		sfab_mr_invalidate_hw(mr);
		mr->hw_mapped = false;
	}
	ib_umem_dmabuf_unmap_pages(umem_dmabuf);
	queue_work(system_unbound_wq, &mr->remap_work);
}

static const struct dma_buf_attach_ops sfab_dmabuf_attach_ops = {
	.allow_peer2peer = true,
	.move_notify = sfab_dmabuf_move_notify,
};

/*
 * Whether to pin: an exporter without a pin op never moves the buffer
 * (it has no move_notify to send), and dmabuf_pin pins the others too.
 */
static int sfab_dmabuf_pinned(int fd, bool *pinned)
{
	struct dma_buf *dmabuf = dma_buf_get(fd);

	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	*pinned = dmabuf_pin || !dma_buf_is_dynamic(dmabuf);
	dma_buf_put(dmabuf);
	return 0;
}

static struct ib_mr *sfab_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 iova, int fd,
					     int access_flags,
					     struct uverbs_attr_bundle *attrs)
{
	struct sfab_dev *dev = to_sfab_dev(ibpd->device);
	struct ib_udata *udata = &attrs->driver_udata;
	struct ib_device *ibdev = ibpd->device;
	struct ib_umem_dmabuf *umem_dmabuf;
	struct dma_resv *resv;
	unsigned long pgsz;
	struct sfab_mr *mr;
	bool pinned;
	int err;

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);
	if (!sfab_access_ok(dev, access_flags)) {
		ibdev_dbg(ibdev, "reg_user_mr_dmabuf: access %#x unsupported\n",
			  access_flags);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!length || length > dev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);
	/* not a file: -EBADF; not a dma-buf: -EINVAL */
	err = sfab_dmabuf_pinned(fd, &pinned);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->kind = SFAB_MR_DMABUF;
	mr->dev = dev;
	mr->pdn = to_sfab_pd(ibpd)->pdn;
	mr->dmabuf_moves = !pinned;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	INIT_WORK(&mr->remap_work, sfab_dmabuf_remap_work);

	/* past the buffer's end: -EINVAL */
	if (pinned)
		umem_dmabuf = ib_umem_dmabuf_get_pinned(ibdev, offset, length,
							fd, access_flags);
	else
		umem_dmabuf = ib_umem_dmabuf_get(ibdev, offset, length, fd,
						 access_flags,
						 &sfab_dmabuf_attach_ops);
	if (IS_ERR(umem_dmabuf)) {
		err = PTR_ERR(umem_dmabuf);
		ibdev_dbg(ibdev, "reg_user_mr_dmabuf: fd %d at %#llx+%llu: %d\n",
			  fd, offset, length, err);
		goto err_free;
	}
	mr->umem = &umem_dmabuf->umem;

	if (pinned) {
		pgsz = sfab_mr_pgsz(mr->umem, dev->attr.page_size_cap, iova,
				    false);
		err = pgsz ? sfab_mr_create_hw(dev, mr, iova, length,
					       access_flags, pgsz) : -EINVAL;
		if (err)
			goto err_release;
		return &mr->ibmr;
	}

	/* move_notify waits for this, then sees a mapped MR (private) */
	resv = umem_dmabuf->attach->dmabuf->resv;
	dma_resv_lock(resv, NULL);
	err = ib_umem_dmabuf_map_pages(umem_dmabuf);
	if (!err) {
		pgsz = sfab_mr_pgsz(mr->umem, dev->attr.page_size_cap, iova,
				    true);
		err = pgsz ? sfab_mr_create_hw(dev, mr, iova, length,
					       access_flags, pgsz) : -EINVAL;
	}
	if (!err) {
		mr->hw_mapped = true;
		umem_dmabuf->private = mr;
	}
	dma_resv_unlock(resv);
	if (err)
		goto err_release;
	return &mr->ibmr;

err_release:
	/* unmaps (under the reservation lock), unpins and detaches */
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * dereg_mr of a dma-buf MR that follows moves: destroyed on the device
 * under the reservation lock, so that no move_notify or re-map runs in
 * between; from then on they leave it alone (private is NULL).
 */
static int sfab_dereg_dmabuf_mr(struct sfab_dev *dev, struct sfab_mr *mr)
{
	struct ib_umem_dmabuf *umem_dmabuf = to_ib_umem_dmabuf(mr->umem);
	struct dma_resv *resv = umem_dmabuf->attach->dmabuf->resv;
	int err;

	dma_resv_lock(resv, NULL);
	err = sfab_com_destroy_mr(&dev->edev, mr->ibmr.lkey);
	if (err == -EBUSY) {
		dma_resv_unlock(resv);
		return err;
	}
	/* a device that does not answer may still use the pages */
	if (err)
		sfab_com_quiesce(&dev->edev);
	umem_dmabuf->private = NULL;
	mr->hw_mapped = false;
	dma_resv_unlock(resv);

	cancel_work_sync(&mr->remap_work);
	ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}

#else /* !CONFIG_INFINIBAND_USER_MEM: no user memory, no dma-buf MRs */

static int sfab_dereg_dmabuf_mr(struct sfab_dev *dev, struct sfab_mr *mr)
{
	return -EINVAL;
}

#endif /* CONFIG_INFINIBAND_USER_MEM */

int sfab_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibmr->device);
	struct sfab_mr *mr = to_sfab_mr(ibmr);
	int err;

	if (mr->kind == SFAB_MR_DMABUF && mr->dmabuf_moves)
		return sfab_dereg_dmabuf_mr(dev, mr);
	if (mr->peer)
		return sfab_dereg_peer_mr(mr);
	if (mr->kind != SFAB_MR_DMA) {
		/*
		 * A device that does not answer may still DMA into the
		 * pages: stop it before they are unpinned or freed.
		 */
		err = sfab_com_destroy_mr(&dev->edev, ibmr->lkey);
		if (err == -EBUSY)
			return err;
		if (err)
			sfab_com_quiesce(&dev->edev);
	}
	if (mr->pages)
		dma_free_coherent(&dev->pdev->dev,
				  mr->max_pages * sizeof(*mr->pages),
				  mr->pages, mr->pages_dma);
	ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}

static struct ib_mr *sfab_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				   u32 max_num_sg)
{
	struct sfab_dev *dev = to_sfab_dev(ibpd->device);
	struct sfab_com_create_mr p;
	struct sfab_mr *mr;
	u32 key;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg ||
	    max_num_sg > dev->attr.max_fast_reg_pages)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->kind = SFAB_MR_FAST;
	mr->max_pages = max_num_sg;
	mr->pages = dma_alloc_coherent(&dev->pdev->dev,
				       max_num_sg * sizeof(*mr->pages),
				       &mr->pages_dma, GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_free;
	}

	memset(&p, 0, sizeof(p));
	p.npages = max_num_sg;
	p.pdn = to_sfab_pd(ibpd)->pdn;
	p.page_shift = PAGE_SHIFT;
	p.flags = SFAB_MR_FAST_REG;
	err = sfab_com_create_mr(&dev->edev, &p, &key);
	if (err)
		goto err_free_pages;

	sfab_mr_set_key(mr, key);
	return &mr->ibmr;

err_free_pages:
	dma_free_coherent(&dev->pdev->dev, max_num_sg * sizeof(*mr->pages),
			  mr->pages, mr->pages_dma);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int sfab_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sfab_mr *mr = to_sfab_mr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

static int sfab_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			  int sg_nents, unsigned int *sg_offset)
{
	struct sfab_mr *mr = to_sfab_mr(ibmr);

	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sfab_set_page);
}

/*
 * Memory windows (SFAB_DEV_CAP_MW): a window is an MR table entry that
 * CREATE_MR makes with SFAB_MR_WINDOW; user QPs bind it with BIND_MW
 * WQEs that libsfab writes, so the kernel sees only its life.  Type 1
 * windows are bound by ibv_bind_mw(), type 2 by a send WQE and freed by
 * invalidation (IB_DEVICE_MEM_WINDOW_TYPE_2B: the device checks the QP
 * and the PD).
 */
static int sfab_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibmw->device);
	struct sfab_com_create_mr p = {};
	u32 key;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	p.pdn = to_sfab_pd(ibmw->pd)->pdn;
	p.flags = SFAB_MR_WINDOW;
	if (ibmw->type == IB_MW_TYPE_2)
		p.flags |= SFAB_MR_WINDOW_TYPE2;
	else if (ibmw->type != IB_MW_TYPE_1)
		return -EINVAL;
	err = sfab_com_create_mr(&dev->edev, &p, &key);
	if (err)
		return err;
	ibmw->rkey = key;
	return 0;
}

/*
 * DESTROY_MR of a window unbinds it: no peer reaches the MR through it
 * from the completion on.  A device that does not answer may still let
 * one in: it is stopped, as dereg_mr does.
 */
static int sfab_dealloc_mw(struct ib_mw *ibmw)
{
	struct sfab_dev *dev = to_sfab_dev(ibmw->device);
	int err;

	err = sfab_com_destroy_mr(&dev->edev, ibmw->rkey);
	if (err) {
		ibdev_err(&dev->ibdev,
			  "cannot destroy memory window %#x (%d): stopping the device\n",
			  ibmw->rkey, err);
		sfab_com_quiesce(&dev->edev);
	}
	return 0;
}

/**
 * sfab_mr_probe() - whether the device registers memory
 * @dev: the device, its dev_caps read
 *
 * SFAB_DEV_CAP_MR and a nonzero max_mr give user MRs and fast
 * registration; without them @dev->has_mr stays false.
 */
void sfab_mr_probe(struct sfab_dev *dev)
{
	dev->has_mr = (dev->attr.dev_caps & SFAB_DEV_CAP_MR) &&
		      dev->attr.max_mr;
	if (!dev->has_mr)
		dev_info(&dev->pdev->dev, "device has no memory registration: no user MRs\n");
	dev->has_dmabuf_mr = IS_ENABLED(CONFIG_INFINIBAND_USER_MEM) &&
			     dev->has_mr &&
			     (dev->attr.dev_caps & SFAB_DEV_CAP_MR_UPDATE);
	/* windows are bound by WQEs: user QPs, on the datapath */
	dev->has_mw = dev->has_mr && dev->has_datapath &&
		      (dev->attr.dev_caps & SFAB_DEV_CAP_MW);
	/* a peer's FLUSH needs the right on an MR */
	dev->has_flush = dev->has_mr && dev->has_datapath &&
			 (dev->attr.dev_caps & SFAB_DEV_CAP_FLUSH);
}

/* set with has_mr */
const struct ib_device_ops sfab_mr_dev_ops = {
	.reg_user_mr = sfab_reg_user_mr,
	.rereg_user_mr = sfab_rereg_user_mr,
};

/* set with has_dmabuf_mr */
const struct ib_device_ops sfab_dmabuf_mr_dev_ops = {
#if IS_ENABLED(CONFIG_INFINIBAND_USER_MEM)
	.reg_user_mr_dmabuf = sfab_reg_user_mr_dmabuf,
#endif
};

/* set with has_mw */
const struct ib_device_ops sfab_mw_dev_ops = {
	.alloc_mw = sfab_alloc_mw,
	.dealloc_mw = sfab_dealloc_mw,

	INIT_RDMA_OBJ_SIZE(ib_mw, sfab_mw, ibmw),
};

/* fast registration: set with has_mr and has_datapath (kernel QPs) */
const struct ib_device_ops sfab_fast_reg_dev_ops = {
	.alloc_mr = sfab_alloc_mr,
	.map_mr_sg = sfab_map_mr_sg,
};
