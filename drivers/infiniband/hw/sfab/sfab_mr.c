// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab memory: user rings pinned with ib_umem and handed to the device as
 * page lists, memory regions (the DMA MR, user MRs, fast-registration
 * MRs) on the contract's CREATE_MR/DESTROY_MR (include/sfab/sfab_queue.h).
 *
 * User MRs and fast registration need a device that runs CREATE_MR
 * (SFAB_DEV_CAP_MR, sfab_mr_probe()).  Without it neither reg_user_mr nor
 * alloc_mr is offered.
 */

#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/iter.h>

#include "sfab.h"
#include "sfab_com_cmd.h"

/* ring pages (struct sfab_ring_desc.page_shift) */
#define SFAB_RING_PGSZ_BITMAP		GENMASK_ULL(SFAB_RING_MAX_PAGE_SHIFT, \
						    SFAB_RING_MIN_PAGE_SHIFT)
/* MR pages (struct sfab_aq_create_mr.page_shift) */
#define SFAB_MR_PGSZ_BITMAP		GENMASK_ULL(SFAB_MR_MAX_PAGE_SHIFT, \
						    SFAB_MR_MIN_PAGE_SHIFT)

/* IB_ACCESS_* the device implements; the values are the contract's */
#define SFAB_IB_ACCESS_HW		(IB_ACCESS_LOCAL_WRITE | \
					 IB_ACCESS_REMOTE_WRITE | \
					 IB_ACCESS_REMOTE_READ | \
					 IB_ACCESS_REMOTE_ATOMIC)
static_assert(IB_ACCESS_LOCAL_WRITE == SFAB_ACCESS_LOCAL_WRITE);
static_assert(IB_ACCESS_REMOTE_WRITE == SFAB_ACCESS_REMOTE_WRITE);
static_assert(IB_ACCESS_REMOTE_READ == SFAB_ACCESS_REMOTE_READ);
static_assert(IB_ACCESS_REMOTE_ATOMIC == SFAB_ACCESS_REMOTE_ATOMIC);

u32 sfab_access(int ib_flags)
{
	return ib_flags & SFAB_IB_ACCESS_HW;
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

/* fill @pbl with the umem's blocks of @pgsz bytes; returns how many */
static size_t sfab_pbl_fill(struct sfab_pbl *pbl, struct ib_umem *umem,
			    unsigned long pgsz)
{
	struct ib_block_iter biter;
	size_t i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz)
		pbl->buf[i++] = cpu_to_le64(rdma_block_iter_dma_address(&biter));
	return i;
}

/**
 * sfab_umem_ring() - pin a user ring and describe it to the device
 * @dev: the device
 * @udata: the verb's udata (its context owns the pin)
 * @addr: the ring's user address, page aligned
 * @size: its bytes
 * @umem: the pin
 * @pbl: its page list, in coherent memory the device reads for the
 *	ring's life
 * @desc: filled: a page-list ring of @size bytes; the caller sets
 *	log_depth and log_stride
 *
 * Return: 0 or a negative errno.
 */
int sfab_umem_ring(struct sfab_dev *dev, struct ib_udata *udata, u64 addr,
		   size_t size, struct ib_umem **umem, struct sfab_pbl *pbl,
		   struct sfab_com_ring *desc)
{
	unsigned long bitmap = SFAB_RING_PGSZ_BITMAP;
	unsigned long pgsz;
	size_t n;
	int err;

	if (!addr || !PAGE_ALIGNED(addr) || !size) {
		ibdev_dbg(&dev->ibdev, "user ring at %#llx (%zu bytes): not page aligned\n",
			  addr, size);
		return -EINVAL;
	}
	*umem = ib_umem_get(&dev->ibdev, addr, size, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(*umem)) {
		err = PTR_ERR(*umem);
		ibdev_dbg(&dev->ibdev, "cannot pin user ring at %#llx: %d\n",
			  addr, err);
		*umem = NULL;
		return err;
	}

	/* the ring starts at offset 0 of its first page: no larger pages */
	bitmap &= GENMASK_ULL(__ffs64(addr), 0);
	pgsz = ib_umem_find_best_pgsz(*umem, bitmap, addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_release;
	}
	n = ib_umem_num_dma_blocks(*umem, pgsz);
	err = sfab_pbl_alloc(dev, pbl, n);
	if (err)
		goto err_release;
	sfab_pbl_fill(pbl, *umem, pgsz);

	memset(desc, 0, sizeof(*desc));
	desc->addr = pbl->dma;
	desc->page_shift = order_base_2(pgsz);
	desc->npages = n;
	return 0;

err_release:
	ib_umem_release(*umem);
	*umem = NULL;
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

static struct ib_mr *sfab_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 iova, int access_flags,
				      struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibpd->device);
	struct ib_device *ibdev = ibpd->device;
	u64 bitmap = dev->attr.page_size_cap & SFAB_MR_PGSZ_BITMAP;
	struct sfab_com_create_mr p;
	struct sfab_pbl pbl = {};
	unsigned long pgsz;
	struct sfab_mr *mr;
	size_t n;
	u32 key;
	int err;

	if (access_flags & ~(SFAB_IB_ACCESS_HW | IB_ACCESS_OPTIONAL)) {
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

	mr->umem = ib_umem_get(ibdev, start, length, access_flags);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		ibdev_dbg(ibdev, "reg_user_mr: cannot pin %#llx+%llu: %d\n",
			  start, length, err);
		goto err_free;
	}
	pgsz = ib_umem_find_best_pgsz(mr->umem, bitmap, iova);
	if (!pgsz) {
		ibdev_dbg(ibdev, "reg_user_mr: no page size fits iova %#llx\n",
			  iova);
		err = -EINVAL;
		goto err_release;
	}
	n = ib_umem_num_dma_blocks(mr->umem, pgsz);
	if (n > U32_MAX) {
		err = -EINVAL;
		goto err_release;
	}
	/* the device reads the list during CREATE_MR only */
	err = sfab_pbl_alloc(dev, &pbl, n);
	if (err)
		goto err_release;
	sfab_pbl_fill(&pbl, mr->umem, pgsz);

	memset(&p, 0, sizeof(p));
	p.iova = iova;
	p.length = length;
	p.pbl_addr = pbl.dma;
	p.npages = n;
	p.pdn = to_sfab_pd(ibpd)->pdn;
	p.access = sfab_access(access_flags);
	p.page_shift = order_base_2(pgsz);
	err = sfab_com_create_mr(&dev->edev, &p, &key);
	sfab_pbl_free(dev, &pbl);
	if (err)
		goto err_release;

	sfab_mr_set_key(mr, key);
	mr->ibmr.page_size = pgsz;
	return &mr->ibmr;

err_release:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

int sfab_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibmr->device);
	struct sfab_mr *mr = to_sfab_mr(ibmr);
	int err;

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
}

/* set with has_mr */
const struct ib_device_ops sfab_mr_dev_ops = {
	.reg_user_mr = sfab_reg_user_mr,
};

/* fast registration: set with has_mr and has_datapath (kernel QPs) */
const struct ib_device_ops sfab_fast_reg_dev_ops = {
	.alloc_mr = sfab_alloc_mr,
	.map_mr_sg = sfab_map_mr_sg,
};
