// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_peer_mem: the peer-memory client bookkeeping of
 * sfab_peer_mem.c with fake clients and no device, each test in a
 * registry of its own.  Registration and its refusals; which client an
 * acquire goes to (registration order, "not mine" as 0 or an errno, the
 * whole range or nothing, clients that invalidate skipped where the
 * caller cannot); tickets (one per region, the one get_pages() got, a
 * bogus or late one ignored); invalidation then deregistration and the
 * other way round, for a client that lets sfab unmap and one that
 * unmaps itself (PEER_MEM_INVALIDATE_UNMAPS); an invalidation during a
 * registration waits until the device has the region; unregistration
 * waits for the last region; get_pages(), dma_map() and a bad page size
 * undo exactly what was done; the page list from a client's 64 KiB
 * pages.  Every fake call is checked against the contract's order and
 * every counter must balance.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sizes.h>

#include "../sfab.h"
#include "../sfab_peer_mem.h"

#define FAKE_DMA_BASE		0x100000000ULL

/* one fake client: what it claims, how it fails, what it was asked */
struct fake_peer {
	struct peer_memory_client_ex ex;
	struct kunit *test;
	unsigned long lo, hi;		/* claims ranges inside [lo, hi) */
	int not_mine;			/* acquire()'s answer otherwise */
	int fail_get_pages;		/* an errno, or 0 */
	int fail_dma_map;
	unsigned long page_size;	/* get_page_size()'s answer */
	struct device *dma_dev;		/* what dma_map() must be given */
	invalidate_peer_memory invalidate;
	void *handle;
	int seq;			/* when acquire() was last asked */
	int acquires, claims, get_pages, dma_maps, dma_unmaps, put_pages;
	int releases, errors;
	int pins, maps;			/* get_pages(), dma_map() that succeeded */
	int self_unmaps;		/* the client's own, after invalidating */
	struct fake_ctx *last;
};

/* one acquired range */
struct fake_ctx {
	struct fake_peer *fp;
	unsigned long addr;
	size_t size;
	u64 ticket;
	int force;
	bool pinned, mapped, released;
	struct sg_table *sgt;
};

/* one armed region's device: how often it was told to stop */
struct fake_mr {
	int invalidated;
	int stopped;
	int stop_err;			/* stop()'s answer */
};

static int fake_seq;
static struct fake_peer *fake_peers[3];

static int fake_acquire(struct fake_peer *fp, unsigned long addr,
			size_t size, void *priv, char *name, void **client_ctx)
{
	struct fake_ctx *ctx;

	fp->acquires++;
	fp->seq = ++fake_seq;
	if (priv || name)
		fp->errors++;
	if (addr < fp->lo || addr + size > fp->hi)
		return fp->not_mine;
	ctx = kunit_kzalloc(fp->test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return 0;
	ctx->fp = fp;
	ctx->addr = addr;
	ctx->size = size;
	ctx->ticket = ~0ULL;
	fp->last = ctx;
	fp->claims++;
	*client_ctx = ctx;
	return 1;
}

static int fake_acquire_0(unsigned long addr, size_t size, void *priv,
			  char *name, void **ctx)
{
	return fake_acquire(fake_peers[0], addr, size, priv, name, ctx);
}

static int fake_acquire_1(unsigned long addr, size_t size, void *priv,
			  char *name, void **ctx)
{
	return fake_acquire(fake_peers[1], addr, size, priv, name, ctx);
}

static int fake_acquire_2(unsigned long addr, size_t size, void *priv,
			  char *name, void **ctx)
{
	return fake_acquire(fake_peers[2], addr, size, priv, name, ctx);
}

static int fake_get_pages(unsigned long addr, size_t size, int write,
			  int force, struct sg_table *sg_head, void *client_ctx,
			  u64 core_context)
{
	struct fake_ctx *ctx = client_ctx;
	struct fake_peer *fp = ctx->fp;

	fp->get_pages++;
	if (ctx->pinned || ctx->released || addr != ctx->addr ||
	    size != ctx->size || write != 1 || sg_head)
		fp->errors++;
	ctx->ticket = core_context;
	ctx->force = force;
	if (fp->fail_get_pages)
		return fp->fail_get_pages;
	ctx->pinned = true;
	fp->pins++;
	return 0;
}

/* the range in the client's pages, each 2 pages apart on the bus */
static int fake_dma_map(struct sg_table *sg_head, void *client_ctx,
			struct device *dma_device, int dmasync, int *nmap)
{
	struct fake_ctx *ctx = client_ctx;
	struct fake_peer *fp = ctx->fp;
	unsigned long psz = fp->page_size;
	unsigned long first = ALIGN_DOWN(ctx->addr, psz);
	unsigned int n = (ALIGN(ctx->addr + ctx->size, psz) - first) / psz;
	struct scatterlist *sg;
	unsigned int i;

	fp->dma_maps++;
	if (!ctx->pinned || ctx->mapped || dma_device != fp->dma_dev ||
	    dmasync)
		fp->errors++;
	if (fp->fail_dma_map)
		return fp->fail_dma_map;
	if (sg_alloc_table(sg_head, n, GFP_KERNEL))
		return -ENOMEM;
	for_each_sg(sg_head->sgl, sg, n, i) {
		sg_set_page(sg, NULL, psz, 0);
		sg_dma_address(sg) = FAKE_DMA_BASE + 2ULL * i * psz;
		sg_dma_len(sg) = psz;
	}
	ctx->sgt = sg_head;
	ctx->mapped = true;
	fp->maps++;
	*nmap = n;
	return 0;
}

static int fake_dma_unmap(struct sg_table *sg_head, void *client_ctx,
			  struct device *dma_device)
{
	struct fake_ctx *ctx = client_ctx;
	struct fake_peer *fp = ctx->fp;

	fp->dma_unmaps++;
	if (!ctx->mapped || dma_device != fp->dma_dev ||
	    (ctx->sgt && sg_head != ctx->sgt))
		fp->errors++;
	ctx->mapped = false;
	return 0;
}

static void fake_put_pages(struct sg_table *sg_head, void *client_ctx)
{
	struct fake_ctx *ctx = client_ctx;
	struct fake_peer *fp = ctx->fp;

	fp->put_pages++;
	if (!ctx->pinned || ctx->mapped)
		fp->errors++;
	ctx->pinned = false;
	/* the table dma_map() allocated goes with the pages */
	if (ctx->sgt) {
		if (sg_head != ctx->sgt)
			fp->errors++;
		sg_free_table(ctx->sgt);
		ctx->sgt = NULL;
	}
}

static unsigned long fake_get_page_size(void *client_ctx)
{
	struct fake_ctx *ctx = client_ctx;

	return ctx->fp->page_size;
}

static void fake_release(void *client_ctx)
{
	struct fake_ctx *ctx = client_ctx;
	struct fake_peer *fp = ctx->fp;

	fp->releases++;
	if (ctx->pinned || ctx->mapped || ctx->released)
		fp->errors++;
	ctx->released = true;
}

static int (*const fake_acquires[])(unsigned long, size_t, void *, char *,
				    void **) = {
	fake_acquire_0, fake_acquire_1, fake_acquire_2,
};

/* fake client @i, claiming [@lo, @hi), 4 KiB pages, not yet registered */
static struct fake_peer *fake_new(struct kunit *test, unsigned int i,
				  unsigned long lo, unsigned long hi)
{
	struct fake_peer *fp = kunit_kzalloc(test, sizeof(*fp), GFP_KERNEL);
	struct peer_memory_client *ops;

	KUNIT_ASSERT_NOT_NULL(test, fp);
	ops = &fp->ex.client;
	snprintf(ops->name, sizeof(ops->name), "fake%u", i);
	strscpy(ops->version, "1.0", sizeof(ops->version));
	ops->acquire = fake_acquires[i];
	ops->get_pages = fake_get_pages;
	ops->dma_map = fake_dma_map;
	ops->dma_unmap = fake_dma_unmap;
	ops->put_pages = fake_put_pages;
	ops->get_page_size = fake_get_page_size;
	ops->release = fake_release;
	fp->test = test;
	fp->lo = lo;
	fp->hi = hi;
	fp->page_size = PAGE_SIZE;
	fp->dma_dev = kunit_kzalloc(test, sizeof(*fp->dma_dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fp->dma_dev);
	fake_peers[i] = fp;
	return fp;
}

static struct sfab_peer_client *fake_register(struct kunit *test,
					      struct sfab_peer_registry *reg,
					      struct fake_peer *fp,
					      bool invalidates)
{
	fp->handle = sfab_peer_register(reg, &fp->ex.client,
					invalidates ? &fp->invalidate : NULL);
	KUNIT_ASSERT_NOT_NULL(test, fp->handle);
	KUNIT_EXPECT_EQ(test, !!fp->invalidate, invalidates);
	return fp->handle;
}

static struct sfab_peer_registry *fake_registry(struct kunit *test)
{
	struct sfab_peer_registry *reg = kunit_kzalloc(test, sizeof(*reg),
						       GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, reg);
	sfab_peer_registry_init(reg);
	fake_seq = 0;
	return reg;
}

/* a region from @reg for [addr, addr + size), writable, invalidatable */
static struct sfab_peer_mem *fake_get(struct sfab_peer_registry *reg,
				      struct fake_peer *fp, unsigned long addr,
				      size_t size)
{
	return sfab_peer_mem_get(reg, addr, size, true, true, fp->dma_dev);
}

static void fake_mr_invalidate(void *priv)
{
	struct fake_mr *mr = priv;

	mr->invalidated++;
}

static int fake_mr_stop(void *priv)
{
	struct fake_mr *mr = priv;

	mr->stopped++;
	return mr->stop_err;
}

/*
 * Everything the client was asked to do was undone once, in order; its
 * handle holds no region.
 */
static void fake_balanced(struct kunit *test, struct fake_peer *fp)
{
	struct sfab_peer_client *client = fp->handle;
	struct sfab_peer_stats *st = &client->stats;

	KUNIT_EXPECT_EQ_MSG(test, fp->errors, 0, "%s: calls out of order",
			    fp->ex.client.name);
	KUNIT_EXPECT_EQ(test, fp->claims, fp->releases);
	KUNIT_EXPECT_EQ(test, fp->put_pages + fp->self_unmaps, fp->pins);
	KUNIT_EXPECT_EQ(test, fp->dma_unmaps + fp->self_unmaps, fp->maps);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st->acquired),
			atomic64_read(&st->released));
	KUNIT_EXPECT_EQ(test, atomic64_read(&st->pinned),
			atomic64_read(&st->unpinned));
	KUNIT_EXPECT_EQ(test, atomic64_read(&st->mapped),
			atomic64_read(&st->unmapped));
	KUNIT_EXPECT_EQ(test, refcount_read(&client->users), 1);
	KUNIT_EXPECT_TRUE(test, xa_empty(&client->mrs));
}

static void sfab_peer_register_unregister(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct fake_peer *b = fake_new(test, 1, 0x10000, 0x20000);
	struct sfab_peer_client *ca, *cb;
	invalidate_peer_memory cbfn = NULL;

	/* a client without a mandatory operation, or none: refused */
	b->ex.client.put_pages = NULL;
	KUNIT_EXPECT_NULL(test, sfab_peer_register(reg, &b->ex.client, &cbfn));
	KUNIT_EXPECT_NULL(test, cbfn);
	KUNIT_EXPECT_NULL(test, sfab_peer_register(reg, NULL, &cbfn));
	KUNIT_EXPECT_TRUE(test, list_empty(&reg->clients));
	b->ex.client.put_pages = fake_put_pages;

	ca = fake_register(test, reg, a, true);
	cb = fake_register(test, reg, b, false);
	KUNIT_EXPECT_TRUE(test, ca->needs_invalidate);
	KUNIT_EXPECT_FALSE(test, cb->needs_invalidate);
	KUNIT_EXPECT_FALSE(test, ca->invalidate_unmaps);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&reg->clients,
						   struct sfab_peer_client,
						   node), ca);
	KUNIT_EXPECT_PTR_EQ(test, list_last_entry(&reg->clients,
						  struct sfab_peer_client,
						  node), cb);
	/* no region: unregistration returns at once */
	sfab_peer_unregister(ca);
	sfab_peer_unregister(cb);
	KUNIT_EXPECT_TRUE(test, list_empty(&reg->clients));
	KUNIT_EXPECT_EQ(test, a->acquires + b->acquires, 0);
}

static void sfab_peer_dispatch(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct fake_peer *b = fake_new(test, 1, 0x10000, 0x40000);
	struct fake_peer *c = fake_new(test, 2, 0x10000, 0x40000);
	struct sfab_peer_mem *pm[4];
	struct fake_mr mr = {};
	unsigned int i;

	/* one HCA; "not mine" as 0 from one, as an errno from the other */
	b->dma_dev = a->dma_dev;
	c->dma_dev = a->dma_dev;
	b->not_mine = -EINVAL;
	fake_register(test, reg, a, true);
	fake_register(test, reg, b, true);
	fake_register(test, reg, c, false);

	/* both could: the first registered gets it, the others are not asked */
	pm[0] = fake_get(reg, a, 0x11000, 0x1000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm[0]);
	KUNIT_EXPECT_PTR_EQ(test, pm[0]->client, a->handle);
	KUNIT_EXPECT_EQ(test, a->acquires, 1);
	KUNIT_EXPECT_EQ(test, b->acquires, 0);
	sfab_peer_mem_arm(pm[0], fake_mr_invalidate, &mr);

	/* past a's end: a says no, then b; also for a range a only starts */
	pm[1] = fake_get(reg, a, 0x21000, 0x1000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm[1]);
	KUNIT_EXPECT_PTR_EQ(test, pm[1]->client, b->handle);
	KUNIT_EXPECT_LT(test, a->seq, b->seq);
	sfab_peer_mem_arm(pm[1], fake_mr_invalidate, &mr);
	pm[2] = fake_get(reg, a, 0x1f000, 0x2000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm[2]);
	KUNIT_EXPECT_PTR_EQ(test, pm[2]->client, b->handle);
	sfab_peer_mem_arm(pm[2], fake_mr_invalidate, &mr);

	/* nobody's: every client asked, no region, nothing pinned */
	KUNIT_EXPECT_NULL(test, fake_get(reg, a, 0x50000, 0x1000));
	KUNIT_EXPECT_EQ(test, a->acquires, 4);
	KUNIT_EXPECT_EQ(test, b->acquires, 3);
	KUNIT_EXPECT_EQ(test, c->acquires, 1);
	/* an empty or wrapping range: nobody is asked */
	KUNIT_EXPECT_NULL(test, fake_get(reg, a, 0x11000, 0));
	KUNIT_EXPECT_NULL(test, fake_get(reg, a, ULONG_MAX - 0xfff, 0x2000));
	KUNIT_EXPECT_EQ(test, a->acquires, 4);

	/* a caller that cannot invalidate: only c, which never invalidates */
	pm[3] = sfab_peer_mem_get(reg, 0x11000, 0x1000, false, false,
				  c->dma_dev);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm[3]);
	KUNIT_EXPECT_EQ(test, a->acquires, 4);
	KUNIT_ASSERT_PTR_EQ(test, pm[3]->client, c->handle);
	KUNIT_EXPECT_EQ(test, pm[3]->ticket, SFAB_PEER_NO_TICKET);
	KUNIT_EXPECT_EQ(test, c->last->ticket, (u64)SFAB_PEER_NO_TICKET);
	/* read-only: get_pages() is told to force */
	KUNIT_EXPECT_EQ(test, c->last->force, 1);
	sfab_peer_mem_arm(pm[3], fake_mr_invalidate, &mr);

	for (i = 0; i < ARRAY_SIZE(pm); i++)
		KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm[i], fake_mr_stop,
							    &mr), 0);
	KUNIT_EXPECT_EQ(test, mr.stopped, 4);
	KUNIT_EXPECT_EQ(test, mr.invalidated, 0);
	KUNIT_EXPECT_EQ(test, a->claims + b->claims + c->claims, 4);
	fake_balanced(test, a);
	fake_balanced(test, b);
	fake_balanced(test, c);
	sfab_peer_unregister(a->handle);
	sfab_peer_unregister(b->handle);
	sfab_peer_unregister(c->handle);
}

static void sfab_peer_ticket(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct sfab_peer_client *ca = fake_register(test, reg, a, true);
	struct fake_mr mr[2] = {};
	struct sfab_peer_mem *pm[2];
	struct fake_ctx *ctx[2];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		pm[i] = fake_get(reg, a, 0x11000 + i * 0x1000, 0x1000);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm[i]);
		ctx[i] = a->last;
		/* the ticket get_pages() got finds this region */
		KUNIT_EXPECT_EQ(test, ctx[i]->ticket, (u64)pm[i]->ticket);
		KUNIT_EXPECT_PTR_EQ(test, xa_load(&ca->mrs, pm[i]->ticket),
				    pm[i]);
		sfab_peer_mem_arm(pm[i], fake_mr_invalidate, &mr[i]);
	}
	KUNIT_EXPECT_NE(test, pm[0]->ticket, pm[1]->ticket);

	/* tickets of no region: nothing happens */
	KUNIT_EXPECT_EQ(test, a->invalidate(ca, SFAB_PEER_NO_TICKET), 0);
	KUNIT_EXPECT_EQ(test, a->invalidate(ca, pm[1]->ticket + 1000), 0);
	KUNIT_EXPECT_EQ(test, a->invalidate(ca, 1ULL << 40), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ca->stats.stale), 3);
	KUNIT_EXPECT_EQ(test, mr[0].invalidated + mr[1].invalidated, 0);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 0);

	/* the second region's ticket: that region only */
	KUNIT_EXPECT_EQ(test, a->invalidate(ca, ctx[1]->ticket), 0);
	KUNIT_EXPECT_EQ(test, mr[0].invalidated, 0);
	KUNIT_EXPECT_EQ(test, mr[1].invalidated, 1);
	KUNIT_EXPECT_TRUE(test, ctx[0]->mapped);
	KUNIT_EXPECT_FALSE(test, ctx[1]->mapped);
	KUNIT_EXPECT_FALSE(test, ctx[1]->pinned);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ca->stats.invalidations), 1);

	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm[i], fake_mr_stop,
							    &mr[i]), 0);
	fake_balanced(test, a);
	sfab_peer_unregister(ca);
}

/*
 * The client revokes, then the MR is deregistered: the device stops
 * once at each; unmapped and unpinned once, by the invalidation; a
 * second invalidation of the same ticket after dereg does nothing.
 */
static void sfab_peer_invalidate_then_dereg(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct sfab_peer_client *ca = fake_register(test, reg, a, true);
	struct fake_mr mr = {};
	struct sfab_peer_mem *pm;
	u64 ticket;

	pm = fake_get(reg, a, 0x10800, 0x2000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	ticket = a->last->ticket;
	sfab_peer_mem_arm(pm, fake_mr_invalidate, &mr);

	KUNIT_EXPECT_EQ(test, a->invalidate(ca, ticket), 0);
	KUNIT_EXPECT_EQ(test, mr.invalidated, 1);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 1);
	KUNIT_EXPECT_EQ(test, a->put_pages, 1);
	KUNIT_EXPECT_EQ(test, pm->state, SFAB_PEER_INVALIDATED);
	/* again, before dereg: already revoked */
	KUNIT_EXPECT_EQ(test, a->invalidate(ca, ticket), 0);
	KUNIT_EXPECT_EQ(test, mr.invalidated, 1);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 1);

	/* a refused stop (a bound window) leaves it as it was */
	mr.stop_err = -EBUSY;
	KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm, fake_mr_stop, &mr),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, a->releases, 0);
	mr.stop_err = 0;
	KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm, fake_mr_stop, &mr), 0);
	KUNIT_EXPECT_EQ(test, mr.stopped, 2);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 1);
	KUNIT_EXPECT_EQ(test, a->put_pages, 1);
	KUNIT_EXPECT_EQ(test, a->releases, 1);

	KUNIT_EXPECT_EQ(test, a->invalidate(ca, ticket), 0);
	KUNIT_EXPECT_EQ(test, mr.invalidated, 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ca->stats.stale), 1);
	fake_balanced(test, a);
	sfab_peer_unregister(ca);
}

/* deregistered first: the late invalidation finds nothing */
static void sfab_peer_dereg_then_invalidate(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct sfab_peer_client *ca = fake_register(test, reg, a, true);
	struct fake_mr mr = {};
	struct sfab_peer_mem *pm;
	u64 ticket;

	pm = fake_get(reg, a, 0x10000, 0x1000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	ticket = a->last->ticket;
	sfab_peer_mem_arm(pm, fake_mr_invalidate, &mr);
	KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm, fake_mr_stop, &mr), 0);
	KUNIT_EXPECT_EQ(test, mr.stopped, 1);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 1);
	KUNIT_EXPECT_EQ(test, a->put_pages, 1);
	KUNIT_EXPECT_EQ(test, a->releases, 1);

	KUNIT_EXPECT_EQ(test, a->invalidate(ca, ticket), 0);
	KUNIT_EXPECT_EQ(test, mr.invalidated, 0);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 1);
	KUNIT_EXPECT_EQ(test, a->put_pages, 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ca->stats.stale), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ca->stats.invalidations), 0);
	fake_balanced(test, a);
	sfab_peer_unregister(ca);
}

/*
 * A client that unmaps itself after it invalidates
 * (PEER_MEM_INVALIDATE_UNMAPS): sfab never calls dma_unmap() or
 * put_pages() for a revoked region; for one it deregisters it does.
 */
static void sfab_peer_invalidate_unmaps(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct sfab_peer_client *ca;
	struct sfab_peer_mem *pm[2];
	struct fake_mr mr = {};
	struct fake_ctx *ctx;

	a->ex.client.version[IB_PEER_MEMORY_VER_MAX - 1] = 1;
	a->ex.ex_size = sizeof(a->ex);
	a->ex.flags = PEER_MEM_INVALIDATE_UNMAPS;
	ca = fake_register(test, reg, a, true);
	KUNIT_EXPECT_TRUE(test, ca->invalidate_unmaps);

	pm[0] = fake_get(reg, a, 0x10000, 0x1000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm[0]);
	ctx = a->last;
	sfab_peer_mem_arm(pm[0], fake_mr_invalidate, &mr);
	pm[1] = fake_get(reg, a, 0x11000, 0x1000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm[1]);
	sfab_peer_mem_arm(pm[1], fake_mr_invalidate, &mr);

	/* the client's free path: invalidate, then unmap and unpin itself */
	KUNIT_EXPECT_EQ(test, a->invalidate(ca, ctx->ticket), 0);
	KUNIT_EXPECT_EQ(test, mr.invalidated, 1);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 0);
	KUNIT_EXPECT_EQ(test, a->put_pages, 0);
	if (ctx->sgt) {
		ctx->mapped = false;
		ctx->pinned = false;
		sg_free_table(ctx->sgt);
		ctx->sgt = NULL;
		a->self_unmaps++;
	}

	KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm[0], fake_mr_stop, &mr),
			0);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 0);
	KUNIT_EXPECT_EQ(test, a->put_pages, 0);
	KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm[1], fake_mr_stop, &mr),
			0);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 1);
	KUNIT_EXPECT_EQ(test, a->put_pages, 1);
	KUNIT_EXPECT_EQ(test, a->releases, 2);
	fake_balanced(test, a);
	sfab_peer_unregister(ca);

	/* a short ex_size: the flag does not count */
	a->ex.ex_size = offsetof(struct peer_memory_client_ex, flags);
	ca = fake_register(test, reg, a, true);
	KUNIT_EXPECT_FALSE(test, ca->invalidate_unmaps);
	sfab_peer_unregister(ca);
}

struct fake_thread {
	struct fake_peer *fp;
	u64 ticket;
	struct completion done;
};

static int fake_invalidate_thread(void *data)
{
	struct fake_thread *t = data;

	t->fp->invalidate(t->fp->handle, t->ticket);
	complete(&t->done);
	return 0;
}

/* an invalidation during a registration waits until the device has it */
static void sfab_peer_invalidate_waits_for_arm(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct sfab_peer_client *ca = fake_register(test, reg, a, true);
	struct fake_thread *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	struct fake_mr mr = {};
	struct sfab_peer_mem *pm;

	KUNIT_ASSERT_NOT_NULL(test, t);
	pm = fake_get(reg, a, 0x10000, 0x1000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	t->fp = a;
	t->ticket = a->last->ticket;
	init_completion(&t->done);
	task = kthread_run(fake_invalidate_thread, t, "sfab-peer-kunit");
	if (IS_ERR(task)) {
		sfab_peer_mem_abort(pm);
		sfab_peer_unregister(ca);
		KUNIT_FAIL(test, "no thread: %ld", PTR_ERR(task));
		return;
	}
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&t->done,
							  msecs_to_jiffies(100)),
			0);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 0);
	sfab_peer_mem_arm(pm, fake_mr_invalidate, &mr);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&t->done, 5 * HZ),
			0);
	KUNIT_EXPECT_EQ(test, mr.invalidated, 1);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 1);
	KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm, fake_mr_stop, &mr), 0);
	fake_balanced(test, a);
	sfab_peer_unregister(ca);
}

static int fake_unregister_thread(void *data)
{
	struct fake_thread *t = data;

	sfab_peer_unregister(t->fp->handle);
	complete(&t->done);
	return 0;
}

/*
 * Unregistration with a live region: no new acquire reaches the client
 * at once; the call returns when the region is deregistered.
 */
static void sfab_peer_unregister_waits(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct fake_thread *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	struct fake_mr mr = {};
	struct sfab_peer_mem *pm;

	KUNIT_ASSERT_NOT_NULL(test, t);
	fake_register(test, reg, a, true);
	pm = fake_get(reg, a, 0x10000, 0x1000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	sfab_peer_mem_arm(pm, fake_mr_invalidate, &mr);
	KUNIT_EXPECT_EQ(test, refcount_read(&((struct sfab_peer_client *)
					       a->handle)->users), 2);

	t->fp = a;
	init_completion(&t->done);
	task = kthread_run(fake_unregister_thread, t, "sfab-peer-kunit");
	if (IS_ERR(task)) {
		sfab_peer_mem_release(pm, fake_mr_stop, &mr);
		sfab_peer_unregister(a->handle);
		KUNIT_FAIL(test, "no thread: %ld", PTR_ERR(task));
		return;
	}
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&t->done,
							  msecs_to_jiffies(100)),
			0);
	/* off the list already */
	KUNIT_EXPECT_NULL(test, fake_get(reg, a, 0x11000, 0x1000));
	KUNIT_EXPECT_EQ(test, a->acquires, 1);

	KUNIT_EXPECT_EQ(test, sfab_peer_mem_release(pm, fake_mr_stop, &mr), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&t->done, 5 * HZ),
			0);
	KUNIT_EXPECT_EQ(test, a->releases, 1);
	KUNIT_EXPECT_EQ(test, a->put_pages, 1);
	KUNIT_EXPECT_EQ(test, a->errors, 0);
}

/* failures undo exactly what was done, and the client is not kept */
static void sfab_peer_get_failures(struct kunit *test)
{
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x10000, 0x20000);
	struct sfab_peer_client *ca = fake_register(test, reg, a, true);
	struct sfab_peer_mem *pm;

	a->fail_get_pages = -ENOMEM;
	pm = fake_get(reg, a, 0x10000, 0x1000);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pm), -ENOMEM);
	KUNIT_EXPECT_EQ(test, a->get_pages, 1);
	KUNIT_EXPECT_EQ(test, a->dma_maps, 0);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 0);
	KUNIT_EXPECT_EQ(test, a->put_pages, 0);
	KUNIT_EXPECT_EQ(test, a->releases, 1);
	/* its ticket is gone: an invalidation now is stale */
	KUNIT_EXPECT_EQ(test, a->invalidate(ca, a->last->ticket), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ca->stats.stale), 1);
	fake_balanced(test, a);
	a->fail_get_pages = 0;

	a->fail_dma_map = -EIO;
	pm = fake_get(reg, a, 0x10000, 0x1000);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pm), -EIO);
	KUNIT_EXPECT_EQ(test, a->dma_maps, 1);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 0);
	KUNIT_EXPECT_EQ(test, a->put_pages, 1);
	KUNIT_EXPECT_EQ(test, a->releases, 2);
	fake_balanced(test, a);
	a->fail_dma_map = 0;

	/* a page size that is no power of two, or under PAGE_SIZE */
	a->page_size = PAGE_SIZE + PAGE_SIZE / 2;
	pm = fake_get(reg, a, 0x10000, 0x1000);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 1);
	KUNIT_EXPECT_EQ(test, a->put_pages, 2);
	KUNIT_EXPECT_EQ(test, a->releases, 3);
	fake_balanced(test, a);

	/* a region given up before it is armed (CREATE_MR failed) */
	a->page_size = PAGE_SIZE;
	pm = fake_get(reg, a, 0x10000, 0x1000);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	sfab_peer_mem_abort(pm);
	KUNIT_EXPECT_EQ(test, a->dma_unmaps, 2);
	KUNIT_EXPECT_EQ(test, a->put_pages, 3);
	KUNIT_EXPECT_EQ(test, a->releases, 4);
	fake_balanced(test, a);
	sfab_peer_unregister(ca);
}

/*
 * A client with 64 KiB pages, each two pages apart on the bus, and a
 * range that starts and ends inside them: the view trims the first and
 * last entries to the 4 KiB pages that hold the range's ends, the MR
 * gets 64 KiB pages (no larger: the gaps), and the client's entries are
 * as it made them afterwards.
 */
static void sfab_peer_view_page_list(struct kunit *test)
{
	const unsigned long addr = 0x7f0000012345UL, size = 0x30000;
	const u64 cap = GENMASK_ULL(30, 12);
	struct sfab_peer_registry *reg = fake_registry(test);
	struct fake_peer *a = fake_new(test, 0, 0x7f0000000000UL,
				       0x7f0000100000UL);
	struct sfab_peer_client *ca = fake_register(test, reg, a, true);
	struct sfab_peer_mem *pm;
	struct scatterlist *sg;
	struct ib_umem view;
	unsigned long pgsz;
	__le64 buf[64];
	unsigned int i;
	size_t n;

	if (PAGE_SIZE != SZ_4K) {
		sfab_peer_unregister(ca);
		kunit_skip(test, "the expected lists are written for 4 KiB pages");
	}
	a->page_size = SZ_64K;
	pm = fake_get(reg, a, addr, size);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pm);
	KUNIT_EXPECT_EQ(test, pm->page_size, SZ_64K);
	KUNIT_EXPECT_EQ(test, pm->nmap, 4);
	KUNIT_ASSERT_EQ(test, sfab_peer_mem_view(pm, &view), 0);

	/* as the MR code asks: no page larger than the client's */
	pgsz = sfab_mr_pgsz(&view, cap & GENMASK_ULL(ilog2(pm->page_size), 0),
			    addr, false);
	KUNIT_EXPECT_EQ(test, pgsz, SZ_64K);
	n = ib_umem_num_dma_blocks(&view, SZ_64K);
	KUNIT_EXPECT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, sfab_pbl_fill(buf, n, &view, SZ_64K), 4);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[i]),
				FAKE_DMA_BASE + 2ULL * i * SZ_64K);

	/* 4 KiB pages: from the one holding the first byte to the last's */
	KUNIT_EXPECT_EQ(test, sfab_mr_pgsz(&view, SZ_4K, addr, false), SZ_4K);
	n = ib_umem_num_dma_blocks(&view, SZ_4K);
	KUNIT_ASSERT_EQ(test, n, 0x31);
	KUNIT_EXPECT_EQ(test, sfab_pbl_fill(buf, n, &view, SZ_4K), n);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[0]), FAKE_DMA_BASE + 0x2000);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[13]), FAKE_DMA_BASE + 0xf000);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[14]),
			FAKE_DMA_BASE + 2ULL * SZ_64K);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[n - 1]),
			FAKE_DMA_BASE + 6ULL * SZ_64K + 0x2000);

	sfab_peer_mem_view_done(pm);
	for_each_sg(pm->sgt.sgl, sg, pm->nmap, i) {
		KUNIT_EXPECT_EQ(test, sg_dma_address(sg),
				FAKE_DMA_BASE + 2ULL * i * SZ_64K);
		KUNIT_EXPECT_EQ(test, sg_dma_len(sg), SZ_64K);
	}
	sfab_peer_mem_abort(pm);
	fake_balanced(test, a);
	sfab_peer_unregister(ca);
}

static struct kunit_case sfab_peer_mem_cases[] = {
	KUNIT_CASE(sfab_peer_register_unregister),
	KUNIT_CASE(sfab_peer_dispatch),
	KUNIT_CASE(sfab_peer_ticket),
	KUNIT_CASE(sfab_peer_invalidate_then_dereg),
	KUNIT_CASE(sfab_peer_dereg_then_invalidate),
	KUNIT_CASE(sfab_peer_invalidate_unmaps),
	KUNIT_CASE(sfab_peer_invalidate_waits_for_arm),
	KUNIT_CASE(sfab_peer_unregister_waits),
	KUNIT_CASE(sfab_peer_get_failures),
	KUNIT_CASE(sfab_peer_view_page_list),
	{}
};

static struct kunit_suite sfab_peer_mem_suite = {
	.name = "sfab_peer_mem",
	.test_cases = sfab_peer_mem_cases,
};

kunit_test_suite(sfab_peer_mem_suite);

/* the registry and the regions are sfab.ko's, through VISIBLE_IF_KUNIT */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
