// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_db_export: a user context's doorbell page exported as
 * a dma-buf, its lifetime without hardware.  Revocation then release,
 * release then context teardown, revoking twice (the importers told
 * once), no export after teardown, attach and map after revocation fail
 * with -ENODEV, and the page's reference: taken once per export, dropped
 * exactly once when the dma-buf is released, so the page's number is not
 * handed out again while any export of it lives.  No device needed: the
 * export's device is looked at only by attach and map before revocation.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/fs.h>

#include "../sfab.h"

/* a context's page: number 3 of a pool of [1, 7] */
#define SFAB_TEST_PAGE		3
#define SFAB_TEST_SIZE		4096

struct sfab_db_test {
	struct sfab_db_pool *pool;
	struct sfab_db_page *db;	/* the context's (its mmap entries') reference */
	struct sfab_db_exports *exps;	/* the context's reference */
};

static void sfab_db_test_init(struct kunit *test, struct sfab_db_test *t)
{
	t->pool = sfab_db_pool_create();
	KUNIT_ASSERT_NOT_NULL(test, t->pool);
	t->db = sfab_db_page_alloc(t->pool, SFAB_TEST_PAGE, SFAB_TEST_PAGE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->db);
	KUNIT_ASSERT_EQ(test, t->db->page, SFAB_TEST_PAGE);
	t->exps = sfab_db_exports_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->exps);
}

static struct dma_buf *sfab_db_test_export(struct kunit *test,
					   struct sfab_db_test *t)
{
	struct dma_buf *dmabuf;

	dmabuf = sfab_db_export_create(t->exps, NULL, t->db,
				       (u64)SFAB_TEST_PAGE * SFAB_TEST_SIZE,
				       SFAB_TEST_SIZE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dmabuf);
	KUNIT_EXPECT_EQ(test, dmabuf->size, SFAB_TEST_SIZE);
	return dmabuf;
}

static struct sfab_db_export *sfab_db_test_exp(struct dma_buf *dmabuf)
{
	return dmabuf->priv;
}

/* the last file reference: a kthread's fput() is deferred, wait for it */
static void sfab_db_test_release(struct dma_buf *dmabuf)
{
	dma_buf_put(dmabuf);
	flush_delayed_fput();
}

/* whether the page's number is free: taking it succeeds */
static bool sfab_db_test_page_free(struct kunit *test, struct sfab_db_test *t)
{
	struct sfab_db_page *db;

	db = sfab_db_page_alloc(t->pool, SFAB_TEST_PAGE, SFAB_TEST_PAGE);
	if (IS_ERR(db)) {
		KUNIT_EXPECT_EQ(test, PTR_ERR(db), -ENOSPC);
		return false;
	}
	sfab_db_page_put(db);
	return true;
}

/* the context goes: revoke, drop its list and its page */
static void sfab_db_test_teardown(struct sfab_db_test *t)
{
	sfab_db_exports_revoke(t->exps);
	sfab_db_exports_put(t->exps);
	sfab_db_page_put(t->db);
	t->exps = NULL;
	t->db = NULL;
}

static void sfab_db_export_revoke_then_release(struct kunit *test)
{
	struct sfab_db_test t;
	struct dma_buf *dmabuf;
	struct sfab_db_export *exp;

	sfab_db_test_init(test, &t);
	dmabuf = sfab_db_test_export(test, &t);
	exp = sfab_db_test_exp(dmabuf);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 2);
	KUNIT_EXPECT_EQ(test, kref_read(&t.exps->kref), 2);
	KUNIT_EXPECT_FALSE(test, list_empty(&t.exps->list));
	KUNIT_EXPECT_FALSE(test, exp->revoked);

	sfab_db_exports_revoke(t.exps);
	KUNIT_EXPECT_TRUE(test, exp->revoked);
	KUNIT_EXPECT_TRUE(test, list_empty(&t.exps->list));
	/* revoked, not released: the page stays the export's */
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 2);

	/* the context is gone; its page is not free while exported */
	sfab_db_test_teardown(&t);
	KUNIT_EXPECT_EQ(test, refcount_read(&exp->db->ref), 1);
	KUNIT_EXPECT_FALSE(test, sfab_db_test_page_free(test, &t));

	sfab_db_test_release(dmabuf);
	KUNIT_EXPECT_TRUE(test, sfab_db_test_page_free(test, &t));
	sfab_db_pool_put(t.pool);
}

static void sfab_db_export_release_then_teardown(struct kunit *test)
{
	struct sfab_db_test t;
	struct dma_buf *dmabuf;

	sfab_db_test_init(test, &t);
	dmabuf = sfab_db_test_export(test, &t);
	sfab_db_test_release(dmabuf);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 1);
	KUNIT_EXPECT_EQ(test, kref_read(&t.exps->kref), 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&t.exps->list));
	KUNIT_EXPECT_FALSE(test, sfab_db_test_page_free(test, &t));

	/* nothing left to revoke; the page goes with the context */
	sfab_db_test_teardown(&t);
	KUNIT_EXPECT_TRUE(test, sfab_db_test_page_free(test, &t));
	sfab_db_pool_put(t.pool);
}

static unsigned int sfab_db_test_moves;

static void sfab_db_test_move_notify(struct dma_buf_attachment *attach)
{
	dma_resv_assert_held(attach->dmabuf->resv);
	sfab_db_test_moves++;
}

static const struct dma_buf_attach_ops sfab_db_test_importer = {
	.allow_peer2peer = true,
	.move_notify = sfab_db_test_move_notify,
};

static void sfab_db_export_double_revoke(struct kunit *test)
{
	struct dma_buf_attachment *attach;
	struct sfab_db_test t;
	struct dma_buf *dmabuf;

	sfab_db_test_init(test, &t);
	dmabuf = sfab_db_test_export(test, &t);
	/*
	 * A dynamic importer, put on the dma-buf's list by hand: attaching
	 * for real needs a PCI peer-to-peer path to an HCA
	 */
	attach = kunit_kzalloc(test, sizeof(*attach), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attach);
	attach->dmabuf = dmabuf;
	attach->peer2peer = true;
	attach->importer_ops = &sfab_db_test_importer;
	dma_resv_lock(dmabuf->resv, NULL);
	list_add(&attach->node, &dmabuf->attachments);
	dma_resv_unlock(dmabuf->resv);

	sfab_db_test_moves = 0;
	sfab_db_exports_revoke(t.exps);
	KUNIT_EXPECT_EQ(test, sfab_db_test_moves, 1);
	sfab_db_exports_revoke(t.exps);
	KUNIT_EXPECT_EQ(test, sfab_db_test_moves, 1);
	KUNIT_EXPECT_TRUE(test, sfab_db_test_exp(dmabuf)->revoked);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 2);
	KUNIT_EXPECT_EQ(test, kref_read(&t.exps->kref), 2);

	/* a closed context exports nothing, and keeps nothing of the try */
	KUNIT_EXPECT_EQ(test, PTR_ERR(sfab_db_export_create(t.exps, NULL, t.db,
							    0, SFAB_TEST_SIZE)),
			-ENODEV);
	flush_delayed_fput();
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 2);
	KUNIT_EXPECT_EQ(test, kref_read(&t.exps->kref), 2);
	KUNIT_EXPECT_TRUE(test, list_empty(&t.exps->list));

	dma_resv_lock(dmabuf->resv, NULL);
	list_del(&attach->node);
	dma_resv_unlock(dmabuf->resv);
	sfab_db_test_release(dmabuf);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 1);
	KUNIT_EXPECT_EQ(test, sfab_db_test_moves, 1);
	sfab_db_test_teardown(&t);
	KUNIT_EXPECT_TRUE(test, sfab_db_test_page_free(test, &t));
	sfab_db_pool_put(t.pool);
}

static void sfab_db_export_map_after_revoke(struct kunit *test)
{
	struct dma_buf_attachment *attach, fake = {};
	struct sfab_db_test t;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	struct device *dev;

	dev = kunit_device_register(test, "sfab-db-importer");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	sfab_db_test_init(test, &t);
	dmabuf = sfab_db_test_export(test, &t);
	sfab_db_exports_revoke(t.exps);

	/* attaching goes no further than the revocation */
	attach = dma_buf_dynamic_attach(dmabuf, dev, &sfab_db_test_importer,
					NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(attach), -ENODEV);

	/* an attachment made before: pin and map fail */
	fake.dmabuf = dmabuf;
	fake.dev = dev;
	fake.peer2peer = true;
	fake.importer_ops = &sfab_db_test_importer;
	dma_resv_lock(dmabuf->resv, NULL);
	KUNIT_EXPECT_EQ(test, dmabuf->ops->pin(&fake), -ENODEV);
	sgt = dmabuf->ops->map_dma_buf(&fake, DMA_BIDIRECTIONAL);
	dma_resv_unlock(dmabuf->resv);
	KUNIT_EXPECT_EQ(test, PTR_ERR(sgt), -ENODEV);

	sfab_db_test_release(dmabuf);
	sfab_db_test_teardown(&t);
	KUNIT_EXPECT_TRUE(test, sfab_db_test_page_free(test, &t));
	sfab_db_pool_put(t.pool);
}

static void sfab_db_export_page_ref_once(struct kunit *test)
{
	struct dma_buf *a, *b;
	struct sfab_db_test t;

	sfab_db_test_init(test, &t);
	a = sfab_db_test_export(test, &t);
	b = sfab_db_test_export(test, &t);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 3);
	KUNIT_EXPECT_EQ(test, kref_read(&t.exps->kref), 3);

	/* one released before the revocation, one after */
	sfab_db_test_release(a);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 2);
	sfab_db_exports_revoke(t.exps);
	sfab_db_exports_revoke(t.exps);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 2);
	KUNIT_EXPECT_EQ(test, kref_read(&t.exps->kref), 2);
	sfab_db_test_release(b);
	KUNIT_EXPECT_EQ(test, refcount_read(&t.db->ref), 1);
	KUNIT_EXPECT_EQ(test, kref_read(&t.exps->kref), 1);
	KUNIT_EXPECT_FALSE(test, sfab_db_test_page_free(test, &t));

	sfab_db_test_teardown(&t);
	KUNIT_EXPECT_TRUE(test, sfab_db_test_page_free(test, &t));
	/* the pool outlives its device while pages are out: here, none */
	KUNIT_EXPECT_EQ(test, kref_read(&t.pool->kref), 1);
	sfab_db_pool_put(t.pool);
}

static struct kunit_case sfab_db_export_cases[] = {
	KUNIT_CASE(sfab_db_export_revoke_then_release),
	KUNIT_CASE(sfab_db_export_release_then_teardown),
	KUNIT_CASE(sfab_db_export_double_revoke),
	KUNIT_CASE(sfab_db_export_map_after_revoke),
	KUNIT_CASE(sfab_db_export_page_ref_once),
	{}
};

static struct kunit_suite sfab_db_export_suite = {
	.name = "sfab_db_export",
	.test_cases = sfab_db_export_cases,
};

kunit_test_suite(sfab_db_export_suite);

/* the export's bookkeeping is sfab.ko's, through VISIBLE_IF_KUNIT */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(DMA_BUF);
