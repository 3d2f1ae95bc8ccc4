// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab user doorbell pages: the pool their numbers come from, a page's
 * references, and a context's page exported as a dma-buf, so that a peer
 * device (an accelerator building WQEs itself, IBGDA) rings the context's
 * doorbells with posted writes over PCIe peer-to-peer.
 *
 * An export is revoked when its context is disassociated or deallocated
 * (ib_unregister_device() does both for every context: device removal
 * too).  Revocation marks it under the dma-buf's reservation lock and
 * calls dma_buf_move_notify(): importers must stop writing, and mapping
 * it again fails with -ENODEV.  The export keeps its reference on the
 * page until the dma-buf is released, so the page never goes to another
 * context while an importer that has not stopped yet may still write to
 * it; such writes name queues that uverbs destroyed with the context,
 * and the device ignores them.
 */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/sfab_user_ioctl_cmds.h>

#define UVERBS_MODULE_NAME sfab_ib
#include <rdma/uverbs_named_ioctl.h>

#include "sfab.h"

/* ---- the page pool ---------------------------------------------------------- */

struct sfab_db_pool *sfab_db_pool_create(void)
{
	struct sfab_db_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);

	if (!pool)
		return NULL;
	kref_init(&pool->kref);
	ida_init(&pool->ida);
	return pool;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_db_pool_create);

static void sfab_db_pool_release(struct kref *kref)
{
	struct sfab_db_pool *pool = container_of(kref, struct sfab_db_pool,
						 kref);

	ida_destroy(&pool->ida);
	kfree(pool);
}

void sfab_db_pool_put(struct sfab_db_pool *pool)
{
	if (pool)
		kref_put(&pool->kref, sfab_db_pool_release);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_db_pool_put);

/**
 * sfab_db_page_alloc() - a free page of @pool in [@first, @last]
 * @pool: the device's pool
 * @first: the first user page
 * @last: the last user page
 *
 * Return: the page with one reference, the caller's, or an ERR_PTR().
 */
struct sfab_db_page *sfab_db_page_alloc(struct sfab_db_pool *pool, u32 first,
					u32 last)
{
	struct sfab_db_page *db;
	int page;

	db = kzalloc(sizeof(*db), GFP_KERNEL);
	if (!db)
		return ERR_PTR(-ENOMEM);
	page = ida_alloc_range(&pool->ida, first, last, GFP_KERNEL);
	if (page < 0) {
		kfree(db);
		return ERR_PTR(page);
	}
	kref_get(&pool->kref);
	db->pool = pool;
	db->page = page;
	refcount_set(&db->ref, 1);
	return db;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_db_page_alloc);

/* the page goes back to the pool with its last reference */
void sfab_db_page_put(struct sfab_db_page *db)
{
	struct sfab_db_pool *pool = db->pool;

	if (!refcount_dec_and_test(&db->ref))
		return;
	ida_free(&pool->ida, db->page);
	kfree(db);
	sfab_db_pool_put(pool);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_db_page_put);

#if IS_ENABLED(CONFIG_INFINIBAND_USER_ACCESS)

MODULE_IMPORT_NS(DMA_BUF);

/* ---- the page as a dma-buf: exporter ------------------------------------------ */

/* how an attachment maps the page: chosen at attach */
struct sfab_db_attach {
	/* the BAR's PCI bus address; else dma_map_resource() */
	bool bus_addr;
};

/* the PCI function @d is or sits below, as pci_p2pdma_distance() finds it */
static struct pci_dev *sfab_db_pci_dev_of(struct device *d)
{
	for (; d; d = d->parent)
		if (dev_is_pci(d))
			return to_pci_dev(d);
	return NULL;
}

/* @pdev sends peer-to-peer requests upstream (ACS redirect) */
static bool sfab_db_acs_redir(struct pci_dev *pdev)
{
	u16 ctrl;

	if (!pdev->acs_cap)
		return false;
	pci_read_config_word(pdev, pdev->acs_cap + PCI_ACS_CTRL, &ctrl);
	return ctrl & (PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC);
}

/*
 * Whether @client reaches @provider's BAR at its PCI bus address: both sit
 * below one upstream bridge (a PCIe switch, as the HCA and the accelerator
 * in a GPU server) and no port on the way redirects peer-to-peer requests
 * upstream.  That is pci_p2pdma's PCI_P2PDMA_MAP_BUS_ADDR, decided as its
 * calc_map_type_and_dist() does: 6.12 exports neither that nor
 * pci_p2pdma_map_type(), only pci_p2pdma_distance(), which tells whether
 * a path exists at all.  Otherwise the requests go through the host
 * bridge (one pci_p2pdma_distance() allowed), where the importer's IOMMU
 * translates them: the importer needs dma_map_resource()'s address.  The
 * walks end at the root bus.
 */
static bool sfab_db_p2p_bus_addr(struct pci_dev *provider,
				 struct pci_dev *client)
{
	struct pci_dev *a, *b;

	for (a = provider; a; a = pci_upstream_bridge(a)) {
		if (sfab_db_acs_redir(a))
			return false;
		for (b = client; b; b = pci_upstream_bridge(b))
			if (b == a)
				goto common;
	}
	return false;

common:
	for (b = client; b != a; b = pci_upstream_bridge(b))
		if (sfab_db_acs_redir(b))
			return false;
	return true;
}

static int sfab_db_attach(struct dma_buf *dmabuf,
			  struct dma_buf_attachment *attach)
{
	struct sfab_db_export *exp = dmabuf->priv;
	struct sfab_db_attach *at;
	struct ib_device *ibdev;
	struct pci_dev *client;
	int err = 0;

	at = kzalloc(sizeof(*at), GFP_KERNEL);
	if (!at)
		return -ENOMEM;

	/* the device is there as long as the export is not revoked */
	dma_resv_lock(dmabuf->resv, NULL);
	if (exp->revoked) {
		err = -ENODEV;
		goto out_unlock;
	}
	ibdev = &exp->dev->ibdev;
	if (!attach->peer2peer) {
		ibdev_info(ibdev, "doorbell dma-buf: %s does not import peer-to-peer (allow_peer2peer): refused\n",
			   dev_name(attach->dev));
		err = -EOPNOTSUPP;
		goto out_unlock;
	}
	/* revocation needs move_notify, which only a dynamic importer has */
	if (!dma_buf_attachment_is_dynamic(attach)) {
		ibdev_info(ibdev, "doorbell dma-buf: %s is no dynamic importer (move_notify), it could not be revoked: refused\n",
			   dev_name(attach->dev));
		err = -EOPNOTSUPP;
		goto out_unlock;
	}
	if (pci_p2pdma_distance(exp->dev->pdev, attach->dev, true) < 0) {
		ibdev_info(ibdev, "doorbell dma-buf: no PCI peer-to-peer path to %s: refused\n",
			   dev_name(attach->dev));
		err = -EOPNOTSUPP;
		goto out_unlock;
	}
	client = sfab_db_pci_dev_of(attach->dev);
	at->bus_addr = client && sfab_db_p2p_bus_addr(exp->dev->pdev, client);
	ibdev_dbg(ibdev, "doorbell dma-buf: page %u to %s by %s\n",
		  exp->db->page, dev_name(attach->dev),
		  at->bus_addr ? "bus address" : "host bridge");
	attach->priv = at;
	at = NULL;

out_unlock:
	dma_resv_unlock(dmabuf->resv);
	kfree(at);
	return err;
}

static void sfab_db_detach(struct dma_buf *dmabuf,
			   struct dma_buf_attachment *attach)
{
	kfree(attach->priv);
	attach->priv = NULL;
}

/*
 * The page never moves: pinning is allowed (dma-buf pins every mapping
 * without CONFIG_DMABUF_MOVE_NOTIFY).  Revocation is not a move; it tells
 * pinned attachments through move_notify as well.
 */
static int sfab_db_pin(struct dma_buf_attachment *attach)
{
	struct sfab_db_export *exp = attach->dmabuf->priv;

	return exp->revoked ? -ENODEV : 0;
}

static void sfab_db_unpin(struct dma_buf_attachment *attach)
{
}

/* one segment: the page, at the address the importer's device uses */
static struct sg_table *sfab_db_map(struct dma_buf_attachment *attach,
				    enum dma_data_direction dir)
{
	struct sfab_db_export *exp = attach->dmabuf->priv;
	struct sfab_db_attach *at = attach->priv;
	struct pci_dev *pdev;
	struct sg_table *sgt;
	dma_addr_t addr;
	int err;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (exp->revoked)
		return ERR_PTR(-ENODEV);
	if (WARN_ON(!at))
		return ERR_PTR(-EINVAL);
	pdev = exp->dev->pdev;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (err)
		goto err_free;

	if (at->bus_addr) {
		addr = pci_bus_address(pdev, SFAB_BAR_DB) + exp->offset;
	} else {
		addr = dma_map_resource(attach->dev,
					pci_resource_start(pdev, SFAB_BAR_DB) +
					exp->offset, exp->size, dir,
					DMA_ATTR_SKIP_CPU_SYNC);
		err = dma_mapping_error(attach->dev, addr);
		if (err) {
			ibdev_info(&exp->dev->ibdev, "doorbell dma-buf: cannot map page %u for %s: %d\n",
				   exp->db->page, dev_name(attach->dev), err);
			goto err_table;
		}
	}
	/* no struct page: importers take the DMA address, as of any P2P BAR */
	sg_dma_address(sgt->sgl) = addr;
	sg_dma_len(sgt->sgl) = exp->size;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(err);
}

/* also after revocation: the importer's device, not ours, is unmapped */
static void sfab_db_unmap(struct dma_buf_attachment *attach,
			  struct sg_table *sgt, enum dma_data_direction dir)
{
	struct sfab_db_export *exp = attach->dmabuf->priv;
	struct sfab_db_attach *at = attach->priv;

	if (at && !at->bus_addr)
		dma_unmap_resource(attach->dev, sg_dma_address(sgt->sgl),
				   exp->size, dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
}

/* the last reference to the dma-buf: no attachment is left */
static void sfab_db_release(struct dma_buf *dmabuf)
{
	struct sfab_db_export *exp = dmabuf->priv;
	struct sfab_db_exports *owner = exp->owner;

	/* off the list unless revocation took it off */
	mutex_lock(&owner->lock);
	list_del_init(&exp->node);
	mutex_unlock(&owner->lock);
	sfab_db_exports_put(owner);
	sfab_db_page_put(exp->db);
	kfree(exp);
}

static const struct dma_buf_ops sfab_db_dmabuf_ops = {
	.attach = sfab_db_attach,
	.detach = sfab_db_detach,
	.pin = sfab_db_pin,
	.unpin = sfab_db_unpin,
	.map_dma_buf = sfab_db_map,
	.unmap_dma_buf = sfab_db_unmap,
	.release = sfab_db_release,
};

/* ---- a context's exports ------------------------------------------------------- */

/* Return: an empty list with one reference, the context's, or an ERR_PTR() */
struct sfab_db_exports *sfab_db_exports_create(void)
{
	struct sfab_db_exports *exps = kzalloc(sizeof(*exps), GFP_KERNEL);

	if (!exps)
		return ERR_PTR(-ENOMEM);
	kref_init(&exps->kref);
	mutex_init(&exps->lock);
	INIT_LIST_HEAD(&exps->list);
	return exps;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_db_exports_create);

static void sfab_db_exports_release(struct kref *kref)
{
	struct sfab_db_exports *exps = container_of(kref,
						    struct sfab_db_exports,
						    kref);

	WARN_ON(!list_empty(&exps->list));
	mutex_destroy(&exps->lock);
	kfree(exps);
}

void sfab_db_exports_put(struct sfab_db_exports *exps)
{
	if (exps)
		kref_put(&exps->kref, sfab_db_exports_release);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_db_exports_put);

/* tell @exp's importers to stop; once only */
static void sfab_db_export_revoke(struct sfab_db_export *exp)
{
	struct dma_buf *dmabuf = exp->dmabuf;

	dma_resv_lock(dmabuf->resv, NULL);
	if (!exp->revoked) {
		exp->revoked = true;
		dma_buf_move_notify(dmabuf);
	}
	dma_resv_unlock(dmabuf->resv);
}

/**
 * sfab_db_exports_revoke() - revoke every export of a context
 * @exps: the context's list; NULL: none
 *
 * Each export is marked revoked and its importers' move_notify called;
 * no new export is made.  The exports keep their page references until
 * their dma-bufs are released.  Again: nothing more happens.
 */
void sfab_db_exports_revoke(struct sfab_db_exports *exps)
{
	struct sfab_db_export *exp, *tmp;

	if (!exps)
		return;
	/*
	 * A release racing with this waits for @lock: the dma-buf of an
	 * export still on the list has not been freed yet.
	 */
	mutex_lock(&exps->lock);
	exps->closed = true;
	list_for_each_entry_safe(exp, tmp, &exps->list, node) {
		list_del_init(&exp->node);
		sfab_db_export_revoke(exp);
	}
	mutex_unlock(&exps->lock);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_db_exports_revoke);

/**
 * sfab_db_export_create() - export a doorbell page as a dma-buf
 * @owner: the context's exports
 * @dev: the device (looked at only by attach and map, before revocation)
 * @db: the page; the export takes a reference of its own
 * @offset: the page's offset in the doorbell BAR
 * @size: the page's size
 *
 * Return: the dma-buf, with its one file reference, or an ERR_PTR():
 * -ENODEV once @owner's exports are revoked.
 */
struct dma_buf *sfab_db_export_create(struct sfab_db_exports *owner,
				      struct sfab_dev *dev,
				      struct sfab_db_page *db, u64 offset,
				      size_t size)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct sfab_db_export *exp;
	struct dma_buf *dmabuf;

	exp = kzalloc(sizeof(*exp), GFP_KERNEL);
	if (!exp)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&exp->node);
	exp->dev = dev;
	exp->offset = offset;
	exp->size = size;
	exp->owner = owner;
	kref_get(&owner->kref);
	exp->db = db;
	refcount_inc(&db->ref);

	exp_info.exp_name = KBUILD_MODNAME "-doorbell";
	exp_info.ops = &sfab_db_dmabuf_ops;
	exp_info.size = size;
	exp_info.flags = O_RDWR | O_CLOEXEC;
	exp_info.priv = exp;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		sfab_db_page_put(db);
		sfab_db_exports_put(owner);
		kfree(exp);
		return dmabuf;
	}
	exp->dmabuf = dmabuf;

	/* from here on the dma-buf's release undoes all of the above */
	mutex_lock(&owner->lock);
	if (owner->closed) {
		mutex_unlock(&owner->lock);
		dma_buf_put(dmabuf);
		return ERR_PTR(-ENODEV);
	}
	list_add_tail(&exp->node, &owner->list);
	mutex_unlock(&owner->lock);
	return dmabuf;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_db_export_create);

/* ---- the driver method --------------------------------------------------------- */

static int UVERBS_HANDLER(SFAB_IB_METHOD_DB_DMABUF_EXPORT)(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ibuc = ib_uverbs_get_ucontext(attrs);
	struct sfab_ucontext *uctx;
	struct dma_buf *dmabuf;
	struct sfab_dev *dev;
	u32 size, index;
	s32 fd;
	int err;

	if (IS_ERR(ibuc))
		return PTR_ERR(ibuc);
	uctx = to_sfab_ucontext(ibuc);
	dev = to_sfab_dev(ibuc->device);
	/* without P2PDMA no importer could ever attach: say so now */
	if (!IS_ENABLED(CONFIG_PCI_P2PDMA)) {
		ibdev_info_ratelimited(&dev->ibdev, "doorbell dma-buf: this kernel has no PCI peer-to-peer DMA (CONFIG_PCI_P2PDMA): not exported\n");
		return -EOPNOTSUPP;
	}
	if (!uctx->exports || !uctx->db)
		return -EOPNOTSUPP;

	size = 1U << dev->db_page_shift;
	index = uctx->db->page;
	dmabuf = sfab_db_export_create(uctx->exports, dev, uctx->db,
				       (u64)index << dev->db_page_shift, size);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		err = fd;
		goto err_put;
	}
	err = uverbs_copy_to(attrs, SFAB_IB_ATTR_DB_DMABUF_EXPORT_PAGE_SIZE,
			     &size, sizeof(size));
	if (err)
		goto err_fd;
	if (uverbs_attr_is_valid(attrs, SFAB_IB_ATTR_DB_DMABUF_EXPORT_PAGE_INDEX)) {
		err = uverbs_copy_to(attrs,
				     SFAB_IB_ATTR_DB_DMABUF_EXPORT_PAGE_INDEX,
				     &index, sizeof(index));
		if (err)
			goto err_fd;
	}
	err = uverbs_copy_to(attrs, SFAB_IB_ATTR_DB_DMABUF_EXPORT_FD, &fd,
			     sizeof(fd));
	if (err)
		goto err_fd;
	/* nothing can fail after this: the file is the process's */
	fd_install(fd, dmabuf->file);
	return 0;

err_fd:
	put_unused_fd(fd);
err_put:
	dma_buf_put(dmabuf);
	return err;
}

DECLARE_UVERBS_NAMED_METHOD(SFAB_IB_METHOD_DB_DMABUF_EXPORT,
			    UVERBS_ATTR_PTR_OUT(SFAB_IB_ATTR_DB_DMABUF_EXPORT_FD,
						UVERBS_ATTR_TYPE(s32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(SFAB_IB_ATTR_DB_DMABUF_EXPORT_PAGE_SIZE,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(SFAB_IB_ATTR_DB_DMABUF_EXPORT_PAGE_INDEX,
						UVERBS_ATTR_TYPE(u32),
						UA_OPTIONAL));

ADD_UVERBS_METHODS(sfab_device_methods,
		   UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(SFAB_IB_METHOD_DB_DMABUF_EXPORT));

const struct uapi_definition sfab_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &sfab_device_methods),
	{},
};

#else /* !CONFIG_INFINIBAND_USER_ACCESS: no user contexts, no methods */

const struct uapi_definition sfab_uapi_defs[] = {
	{},
};

#endif /* CONFIG_INFINIBAND_USER_ACCESS */
