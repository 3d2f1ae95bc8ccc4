// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab peer memory: MLNX_OFED's peer-memory client interface
 * (<rdma/peer_mem.h>), so that a GPU driver written for it
 * (nvidia-peermem, say) lends its memory to sfab memory regions
 * (Documentation/sfab/peer-memory.rst).  Built with
 * CONFIG_INFINIBAND_SFAB_PEER_MEM; it exports the same symbols as
 * MLNX_OFED's ib_core, so the two never load together.
 *
 * The registry: clients in registration order, under one mutex that is
 * also held across their acquire() calls.  A client counts its users:
 * one for the registration, one per range it acquired.
 * Unregistration takes the client off the list (no new acquire) and
 * waits until every region that has its pages is deregistered, as
 * MLNX_OFED's does; a client that can invalidate should revoke its
 * regions first.
 *
 * A region: reg_user_mr asks the clients before it pins user memory;
 * the first whose acquire() claims the range pins (get_pages(), with a
 * ticket for this region as core_context) and maps it for the HCA
 * (dma_map()).  The ticket is an index in the client's xarray, not a
 * pointer, so a late or bogus invalidation finds nothing instead of
 * freed memory.  The region's mutex is held from then until the device
 * has the region (sfab_peer_mem_arm()), so an invalidation meanwhile
 * waits for it, then stops the device's use first (the MR code's
 * UPDATE_MR INVALIDATE) and unmaps and unpins after; deregistration
 * destroys the device MR under the same mutex and unmaps and unpins
 * only what an invalidation left.  Either way dma_unmap() and
 * put_pages() run once, and not at all after an invalidation of a
 * client that does them itself (PEER_MEM_INVALIDATE_UNMAPS).
 */

#include <linux/export.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "sfab_peer_mem.h"

/* every client that registered with sfab.ko */
struct sfab_peer_registry sfab_peer_clients = {
	.lock = __MUTEX_INITIALIZER(sfab_peer_clients.lock),
	.clients = LIST_HEAD_INIT(sfab_peer_clients.clients),
};

/* unregistration says which client it still waits for, this often */
#define SFAB_PEER_UNREGISTER_NAG	(30 * HZ)

/* a client registered as a struct peer_memory_client_ex with the flag */
static bool sfab_peer_invalidate_unmaps(const struct peer_memory_client *ops)
{
	const struct peer_memory_client_ex *ex;

	if (!ops->version[IB_PEER_MEMORY_VER_MAX - 1])
		return false;
	ex = container_of(ops, const struct peer_memory_client_ex, client);
	if (ex->ex_size < offsetofend(struct peer_memory_client_ex, flags))
		return false;
	return ex->flags & PEER_MEM_INVALIDATE_UNMAPS;
}

static int sfab_peer_invalidate(void *reg_handle, u64 core_context);

/**
 * sfab_peer_register() - add a client to a registry
 * @reg: the registry
 * @ops: the client; must stay valid until sfab_peer_unregister()
 * @invalidate_callback: where to store the client's invalidation
 *	function, or NULL: then its regions cannot be revoked
 *
 * Return: the client's handle, or NULL when @ops lacks a mandatory
 * operation or memory is short.
 */
VISIBLE_IF_KUNIT void *
sfab_peer_register(struct sfab_peer_registry *reg,
		   const struct peer_memory_client *ops,
		   invalidate_peer_memory *invalidate_callback)
{
	struct sfab_peer_client *client;

	if (!ops)
		return NULL;
	if (!ops->acquire || !ops->get_pages || !ops->dma_map ||
	    !ops->dma_unmap || !ops->put_pages) {
		pr_err("sfab: peer memory client %.*s lacks a mandatory operation\n",
		       IB_PEER_MEMORY_NAME_MAX, ops->name);
		return NULL;
	}
	client = kzalloc(sizeof(*client), GFP_KERNEL);
	if (!client)
		return NULL;
	client->reg = reg;
	client->ops = ops;
	client->invalidate_unmaps = sfab_peer_invalidate_unmaps(ops);
	refcount_set(&client->users, 1);
	init_completion(&client->unused);
	xa_init_flags(&client->mrs, XA_FLAGS_ALLOC);
	if (invalidate_callback) {
		client->needs_invalidate = true;
		*invalidate_callback = sfab_peer_invalidate;
	}

	mutex_lock(&reg->lock);
	list_add_tail(&client->node, &reg->clients);
	mutex_unlock(&reg->lock);
	pr_info("sfab: peer memory client %.*s %.*s registered%s\n",
		IB_PEER_MEMORY_NAME_MAX, ops->name,
		IB_PEER_MEMORY_VER_MAX - 1, ops->version,
		invalidate_callback ? "" : " (no invalidation)");
	return client;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_peer_register);

static void sfab_peer_client_put(struct sfab_peer_client *client)
{
	if (refcount_dec_and_test(&client->users))
		complete(&client->unused);
}

/**
 * sfab_peer_unregister() - remove a client, once it has no region
 * @reg_handle: what sfab_peer_register() returned
 *
 * No range is offered to the client from the start of this call; it
 * returns when the last region with the client's pages is deregistered
 * and its release() has returned.  Sleeps.
 */
VISIBLE_IF_KUNIT void sfab_peer_unregister(void *reg_handle)
{
	struct sfab_peer_client *client = reg_handle;
	struct sfab_peer_registry *reg;

	if (!client)
		return;
	reg = client->reg;
	mutex_lock(&reg->lock);
	list_del(&client->node);
	mutex_unlock(&reg->lock);

	sfab_peer_client_put(client);
	while (!wait_for_completion_timeout(&client->unused,
					    SFAB_PEER_UNREGISTER_NAG))
		pr_warn("sfab: peer memory client %.*s: unregistration waits for %u memory regions to be deregistered\n",
			IB_PEER_MEMORY_NAME_MAX, client->ops->name,
			refcount_read(&client->users));
	WARN_ON(!xa_empty(&client->mrs));
	xa_destroy(&client->mrs);
	pr_info("sfab: peer memory client %.*s unregistered\n",
		IB_PEER_MEMORY_NAME_MAX, client->ops->name);
	kfree(client);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_peer_unregister);

/*
 * The first client, in registration order, whose acquire() claims the
 * range; with a user count for the caller, who calls
 * sfab_peer_release_ctx() when done.  A client that invalidates is not
 * asked for a region that cannot be invalidated.
 */
static struct sfab_peer_client *
sfab_peer_acquire(struct sfab_peer_registry *reg, unsigned long addr,
		  size_t size, bool can_invalidate, void **ctx)
{
	struct sfab_peer_client *client;

	mutex_lock(&reg->lock);
	list_for_each_entry(client, &reg->clients, node) {
		if (client->needs_invalidate && !can_invalidate)
			continue;
		*ctx = NULL;
		/* 1: mine; 0 or an errno: not mine */
		if (client->ops->acquire(addr, size, NULL, NULL, ctx) > 0) {
			refcount_inc(&client->users);
			atomic64_inc(&client->stats.acquired);
			mutex_unlock(&reg->lock);
			return client;
		}
	}
	mutex_unlock(&reg->lock);
	return NULL;
}

/* acquire()'s inverse; the client may be gone on return */
static void sfab_peer_release_ctx(struct sfab_peer_client *client, void *ctx)
{
	if (client->ops->release)
		client->ops->release(ctx);
	atomic64_inc(&client->stats.released);
	sfab_peer_client_put(client);
}

/* dma_map() and get_pages() undone */
static void sfab_peer_mem_unmap(struct sfab_peer_mem *pm)
{
	struct sfab_peer_client *client = pm->client;

	client->ops->dma_unmap(&pm->sgt, pm->ctx, pm->dma_dev);
	atomic64_inc(&client->stats.unmapped);
	client->ops->put_pages(&pm->sgt, pm->ctx);
	atomic64_inc(&client->stats.unpinned);
}

static void sfab_peer_mem_free(struct kref *ref)
{
	struct sfab_peer_mem *pm = container_of(ref, struct sfab_peer_mem, ref);

	mutex_destroy(&pm->lock);
	kfree(pm);
}

/*
 * The client revokes a region: the device stops using it, then its
 * pages are unmapped and unpinned (unless the client does that itself).
 * A ticket of no live region (deregistered already, or never one) is
 * ignored.  Called by the client, in a context that may sleep.
 */
static int sfab_peer_invalidate(void *reg_handle, u64 core_context)
{
	struct sfab_peer_client *client = reg_handle;
	struct sfab_peer_mem *pm = NULL;

	if (!client)
		return 0;
	if (core_context < SFAB_PEER_NO_TICKET) {
		xa_lock(&client->mrs);
		pm = xa_load(&client->mrs, core_context);
		if (pm)
			kref_get(&pm->ref);
		xa_unlock(&client->mrs);
	}
	if (!pm) {
		atomic64_inc(&client->stats.stale);
		return 0;
	}
	atomic64_inc(&client->stats.invalidations);

	/* waits for a registration in progress to arm or abort */
	mutex_lock(&pm->lock);
	if (pm->state == SFAB_PEER_MAPPED) {
		if (pm->invalidate)
			pm->invalidate(pm->priv);
		if (client->invalidate_unmaps) {
			/* the client unmaps and unpins when we return */
			atomic64_inc(&client->stats.unmapped);
			atomic64_inc(&client->stats.unpinned);
		} else {
			sfab_peer_mem_unmap(pm);
		}
		pm->state = SFAB_PEER_INVALIDATED;
	}
	mutex_unlock(&pm->lock);
	kref_put(&pm->ref, sfab_peer_mem_free);
	return 0;
}

/**
 * sfab_peer_mem_get() - a client's pages for a user range
 * @reg: the registry whose clients to ask
 * @addr: the range's first byte
 * @size: its bytes
 * @writable: the region will be written (else get_pages()' force is set)
 * @can_invalidate: the caller can revoke the device's access
 *	(sfab_peer_mem_arm()'s @invalidate works): clients that invalidate
 *	are asked too
 * @dma_dev: the device that will access the pages
 *
 * Return: NULL when no client claims the range (the caller pins user
 * memory as usual); an ERR_PTR when the client that claims it fails;
 * else the range pinned and mapped for @dma_dev, locked: the caller
 * ends with sfab_peer_mem_arm() or sfab_peer_mem_abort().
 */
struct sfab_peer_mem *sfab_peer_mem_get(struct sfab_peer_registry *reg,
					unsigned long addr, size_t size,
					bool writable, bool can_invalidate,
					struct device *dma_dev)
{
	struct sfab_peer_client *client;
	struct sfab_peer_mem *pm;
	unsigned long end;
	void *ctx;
	int err;

	if (!reg || !size || check_add_overflow(addr, size, &end))
		return NULL;
	client = sfab_peer_acquire(reg, addr, size, can_invalidate, &ctx);
	if (!client)
		return NULL;

	pm = kzalloc(sizeof(*pm), GFP_KERNEL);
	if (!pm) {
		sfab_peer_release_ctx(client, ctx);
		return ERR_PTR(-ENOMEM);
	}
	pm->client = client;
	pm->ctx = ctx;
	pm->ticket = SFAB_PEER_NO_TICKET;
	pm->dma_dev = dma_dev;
	pm->addr = addr;
	pm->size = size;
	pm->state = SFAB_PEER_RELEASED;
	mutex_init(&pm->lock);
	kref_init(&pm->ref);

	/* from here an invalidation may find the region: it waits */
	mutex_lock(&pm->lock);
	if (client->needs_invalidate) {
		err = xa_alloc_cyclic(&client->mrs, &pm->ticket, pm,
				      XA_LIMIT(0, SFAB_PEER_NO_TICKET - 1),
				      &client->next_ticket, GFP_KERNEL);
		if (err < 0) {
			pm->ticket = SFAB_PEER_NO_TICKET;
			goto err_unlock;
		}
	}
	err = client->ops->get_pages(addr, size, 1, !writable, NULL, ctx,
				     pm->ticket);
	if (err) {
		err = err < 0 ? err : -EFAULT;
		goto err_erase;
	}
	atomic64_inc(&client->stats.pinned);
	err = client->ops->dma_map(&pm->sgt, ctx, dma_dev, 0, &pm->nmap);
	if (err) {
		err = err < 0 ? err : -EFAULT;
		goto err_put;
	}
	atomic64_inc(&client->stats.mapped);

	pm->page_size = client->ops->get_page_size ?
			client->ops->get_page_size(ctx) : PAGE_SIZE;
	if (!is_power_of_2(pm->page_size) || pm->page_size < PAGE_SIZE ||
	    pm->nmap <= 0 || pm->nmap > pm->sgt.orig_nents || !pm->sgt.sgl) {
		pr_debug("sfab: peer memory client %.*s: page size %lu, %d of %u entries mapped: unusable\n",
			 IB_PEER_MEMORY_NAME_MAX, client->ops->name,
			 pm->page_size, pm->nmap, pm->sgt.orig_nents);
		err = -EINVAL;
		goto err_unmap;
	}
	pm->state = SFAB_PEER_MAPPED;
	return pm;

err_unmap:
	client->ops->dma_unmap(&pm->sgt, ctx, dma_dev);
	atomic64_inc(&client->stats.unmapped);
err_put:
	client->ops->put_pages(&pm->sgt, ctx);
	atomic64_inc(&client->stats.unpinned);
err_erase:
	if (pm->ticket != SFAB_PEER_NO_TICKET)
		xa_erase(&client->mrs, pm->ticket);
err_unlock:
	/* an invalidation that found the region sees it released */
	mutex_unlock(&pm->lock);
	sfab_peer_release_ctx(client, ctx);
	kref_put(&pm->ref, sfab_peer_mem_free);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_peer_mem_get);

/**
 * sfab_peer_mem_view() - the mapped range as a umem, for page lists
 * @pm: from sfab_peer_mem_get(), not yet armed
 * @view: filled: a umem of @pm's range over the client's mapped entries,
 *	valid until sfab_peer_mem_view_done()
 *
 * The client maps whole pages of its own size; the umem's page-list
 * code (sfab_pbl_fill(), ib_umem_find_best_pgsz()) expects the first
 * entry to start at the PAGE_SIZE page that holds the first byte and
 * the last to end at the PAGE_SIZE page that holds the last.  The first
 * and last entries are trimmed to that until sfab_peer_mem_view_done().
 *
 * Return: 0, or -EINVAL when the entries do not cover the range's first
 * and last pages.
 */
int sfab_peer_mem_view(struct sfab_peer_mem *pm, struct ib_umem *view)
{
	unsigned long end = pm->addr + pm->size;
	unsigned long head = ALIGN_DOWN(pm->addr, PAGE_SIZE) -
			     ALIGN_DOWN(pm->addr, pm->page_size);
	unsigned long tail = ALIGN(end, pm->page_size) - ALIGN(end, PAGE_SIZE);
	struct scatterlist *first = pm->sgt.sgl;
	struct scatterlist *last = sg_last(first, pm->nmap);

	lockdep_assert_held(&pm->lock);
	if (first == last ? sg_dma_len(first) <= head + tail :
	    sg_dma_len(first) <= head || sg_dma_len(last) <= tail)
		return -EINVAL;

	pm->first_sg = first;
	pm->last_sg = last;
	pm->first_dma = sg_dma_address(first);
	pm->first_len = sg_dma_len(first);
	pm->last_len = sg_dma_len(last);
	sg_dma_address(first) += head;
	sg_dma_len(first) -= head;
	sg_dma_len(last) -= tail;

	memset(view, 0, sizeof(*view));
	view->address = pm->addr;
	view->length = pm->size;
	view->sgt_append.sgt = pm->sgt;
	view->sgt_append.sgt.nents = pm->nmap;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_peer_mem_view);

/* the client's entries as it mapped them again */
void sfab_peer_mem_view_done(struct sfab_peer_mem *pm)
{
	if (!pm->first_sg)
		return;
	sg_dma_address(pm->first_sg) = pm->first_dma;
	sg_dma_len(pm->first_sg) = pm->first_len;
	/* the first entry's length, if it is the last too */
	if (pm->last_sg != pm->first_sg)
		sg_dma_len(pm->last_sg) = pm->last_len;
	pm->first_sg = NULL;
	pm->last_sg = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_peer_mem_view_done);

/**
 * sfab_peer_mem_arm() - the device has the region: invalidations may run
 * @pm: from sfab_peer_mem_get()
 * @invalidate: stops the device's use of the pages (may sleep); on
 *	return the device no longer accesses them
 * @priv: its argument
 */
void sfab_peer_mem_arm(struct sfab_peer_mem *pm,
		       void (*invalidate)(void *priv), void *priv)
{
	lockdep_assert_held(&pm->lock);
	pm->invalidate = invalidate;
	pm->priv = priv;
	mutex_unlock(&pm->lock);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_peer_mem_arm);

/*
 * The end of a region, its mutex held: unmapped and unpinned unless an
 * invalidation did that, no longer found by its ticket, the client's
 * context released.  Releases the mutex and the region.
 */
static void sfab_peer_mem_finish(struct sfab_peer_mem *pm)
{
	struct sfab_peer_client *client = pm->client;
	bool unmap = pm->state == SFAB_PEER_MAPPED;

	pm->invalidate = NULL;
	pm->state = SFAB_PEER_RELEASED;
	/*
	 * A client that unmaps on invalidation may hold its own lock
	 * while it invalidates, and take it in dma_unmap(): unmap with
	 * the region's mutex released (an invalidation from now on finds
	 * it released and leaves the unmapping to this thread).
	 */
	if (unmap && !client->invalidate_unmaps)
		sfab_peer_mem_unmap(pm);
	mutex_unlock(&pm->lock);
	if (unmap && client->invalidate_unmaps)
		sfab_peer_mem_unmap(pm);

	if (pm->ticket != SFAB_PEER_NO_TICKET)
		xa_erase(&client->mrs, pm->ticket);
	sfab_peer_release_ctx(client, pm->ctx);
	kref_put(&pm->ref, sfab_peer_mem_free);
}

/**
 * sfab_peer_mem_abort() - a region the device never got: undone
 * @pm: from sfab_peer_mem_get(), not armed; freed
 */
void sfab_peer_mem_abort(struct sfab_peer_mem *pm)
{
	lockdep_assert_held(&pm->lock);
	sfab_peer_mem_view_done(pm);
	sfab_peer_mem_finish(pm);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_peer_mem_abort);

/**
 * sfab_peer_mem_release() - deregister an armed region
 * @pm: armed by sfab_peer_mem_arm()
 * @stop: stops the device's use of the region for good (destroys the
 *	device MR), serialised with invalidation; an error leaves the
 *	region as it was; NULL: nothing to stop
 * @priv: its argument
 *
 * Return: 0 (@pm freed, the pages unmapped and unpinned once) or
 * @stop's error.
 */
int sfab_peer_mem_release(struct sfab_peer_mem *pm, int (*stop)(void *priv),
			  void *priv)
{
	int err;

	mutex_lock(&pm->lock);
	if (stop) {
		err = stop(priv);
		if (err) {
			mutex_unlock(&pm->lock);
			return err;
		}
	}
	sfab_peer_mem_finish(pm);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_peer_mem_release);

/*
 * The interface GPU drivers bind to.  Not GPL-only: MLNX_OFED exports
 * these with EXPORT_SYMBOL, and nvidia-peermem's MODULE_LICENSE
 * ("Linux-OpenIB") is not one the kernel counts as GPL compatible.
 */
void *
ib_register_peer_memory_client(const struct peer_memory_client *peer_client,
			       invalidate_peer_memory *invalidate_callback)
{
	return sfab_peer_register(&sfab_peer_clients, peer_client,
				  invalidate_callback);
}
EXPORT_SYMBOL(ib_register_peer_memory_client);

void ib_unregister_peer_memory_client(void *reg_handle)
{
	sfab_peer_unregister(reg_handle);
}
EXPORT_SYMBOL(ib_unregister_peer_memory_client);
