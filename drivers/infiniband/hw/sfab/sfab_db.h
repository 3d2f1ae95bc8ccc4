/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab user doorbell pages: the pool their numbers come from, a page's
 * references, and a context's page exported as a dma-buf to a peer
 * device (sfab_db.c).
 */
#ifndef _SFAB_DB_H_
#define _SFAB_DB_H_

#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/types.h>

#include <rdma/uverbs_ioctl.h>

struct dma_buf;
struct sfab_dev;

/*
 * The numbers of the doorbell BAR's user pages.  The device holds one
 * reference, every page another: a page exported to a peer device can
 * outlive the device (its dma-buf lives as long as a file refers to it),
 * and its number goes back here, not to a freed device.
 */
struct sfab_db_pool {
	struct kref kref;
	struct ida ida;
};

/*
 * A user doorbell page.  One reference per mmap entry and per export
 * (and transient ones): its number is free again only when nothing can
 * write to it any more, neither a mapping nor an importer.
 */
struct sfab_db_page {
	struct sfab_db_pool *pool;
	u32 page;
	refcount_t ref;
};

/*
 * A user context's doorbell exports.  The context holds one reference,
 * each export another (an export outlives its context when someone keeps
 * the dma-buf).  @lock orders revocation against release.
 */
struct sfab_db_exports {
	struct kref kref;
	struct mutex lock;		/* @list and @closed */
	struct list_head list;		/* exports not revoked yet */
	bool closed;			/* all revoked; no new export */
};

/*
 * One export: a dma-buf of the context's doorbell page.  Created on
 * @owner's list; revocation takes it off and marks it @revoked under the
 * dma-buf's reservation lock (attach and map look there); the dma-buf's
 * release takes it off if still on and drops the page and the owner.
 */
struct sfab_db_export {
	struct sfab_db_exports *owner;
	struct list_head node;		/* on @owner's list until revoked */
	struct dma_buf *dmabuf;
	/* the device: looked at only while not @revoked (it may be gone) */
	struct sfab_dev *dev;
	struct sfab_db_page *db;	/* our reference, dropped at release */
	u64 offset;			/* the page's offset in the doorbell BAR */
	size_t size;			/* the page's size, the dma-buf's */
	bool revoked;			/* under the reservation lock */
};

/* the driver's uverbs methods (sfab_user_ioctl_cmds.h), ib_device.driver_def */
extern const struct uapi_definition sfab_uapi_defs[];

struct sfab_db_pool *sfab_db_pool_create(void);
void sfab_db_pool_put(struct sfab_db_pool *pool);
struct sfab_db_page *sfab_db_page_alloc(struct sfab_db_pool *pool, u32 first,
					u32 last);
void sfab_db_page_put(struct sfab_db_page *db);

#if IS_ENABLED(CONFIG_INFINIBAND_USER_ACCESS)
struct sfab_db_exports *sfab_db_exports_create(void);
void sfab_db_exports_revoke(struct sfab_db_exports *exps);
void sfab_db_exports_put(struct sfab_db_exports *exps);
struct dma_buf *sfab_db_export_create(struct sfab_db_exports *owner,
				      struct sfab_dev *dev,
				      struct sfab_db_page *db, u64 offset,
				      size_t size);
#else
/* no user contexts, no exports */
static inline struct sfab_db_exports *sfab_db_exports_create(void)
{
	return NULL;
}

static inline void sfab_db_exports_revoke(struct sfab_db_exports *exps)
{
}

static inline void sfab_db_exports_put(struct sfab_db_exports *exps)
{
}
#endif

#endif /* _SFAB_DB_H_ */
