/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab peer memory: the MLNX_OFED-compatible peer-memory client registry
 * (<rdma/peer_mem.h>) and the memory regions its clients provide
 * (sfab_peer_mem.c, Documentation/sfab/peer-memory.rst).  Nothing here
 * touches the device: the MR code hands in what to do there.
 */
#ifndef _SFAB_PEER_MEM_H_
#define _SFAB_PEER_MEM_H_

#include <linux/types.h>

struct sfab_peer_mem;

#if IS_ENABLED(CONFIG_INFINIBAND_SFAB_PEER_MEM)

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/xarray.h>

#include <rdma/ib_umem.h>
#include <rdma/peer_mem.h>

/* the ticket of a region whose client cannot invalidate */
#define SFAB_PEER_NO_TICKET		U32_MAX

/* a set of clients: sfab_peer_clients, or a test's own */
struct sfab_peer_registry {
	/* protects @clients; held across the clients' acquire() */
	struct mutex lock;
	struct list_head clients;	/* in registration order */
};

/* what a client was asked to do, for debugging and the tests' balance */
struct sfab_peer_stats {
	atomic64_t acquired;		/* acquire() said 1 */
	atomic64_t released;		/* ...and was undone */
	atomic64_t pinned;		/* get_pages() succeeded */
	atomic64_t unpinned;		/* put_pages() called, by sfab or, with
					 * PEER_MEM_INVALIDATE_UNMAPS, by the
					 * client after an invalidation
					 */
	atomic64_t mapped;		/* dma_map() succeeded */
	atomic64_t unmapped;		/* dma_unmap(), counted as @unpinned */
	atomic64_t invalidations;	/* callbacks for a live ticket */
	atomic64_t stale;		/* callbacks for no live ticket */
};

/* a registered client: the handle ib_register_peer_memory_client() gives */
struct sfab_peer_client {
	struct list_head node;		/* in @reg->clients */
	struct sfab_peer_registry *reg;
	const struct peer_memory_client *ops;
	bool needs_invalidate;		/* registered with a callback pointer */
	bool invalidate_unmaps;		/* PEER_MEM_INVALIDATE_UNMAPS */
	/* 1 for the registration, 1 per acquired context */
	refcount_t users;
	struct completion unused;	/* @users reached 0 */
	/* live regions by ticket; lookups under the xarray's lock */
	struct xarray mrs;
	u32 next_ticket;		/* xa_alloc_cyclic()'s cursor */
	struct sfab_peer_stats stats;
};

enum sfab_peer_state {
	SFAB_PEER_MAPPED,		/* pinned and mapped for the HCA */
	SFAB_PEER_INVALIDATED,		/* the client revoked it */
	SFAB_PEER_RELEASED,		/* deregistered or never armed */
};

/* one memory region's pages, from a client */
struct sfab_peer_mem {
	struct sfab_peer_client *client;
	void *ctx;			/* acquire()'s client_context */
	u32 ticket;			/* get_pages()'s core_context */
	struct device *dma_dev;
	unsigned long addr;		/* the user range */
	size_t size;
	unsigned long page_size;	/* the client's pages */
	struct sg_table sgt;		/* the client's, from dma_map() */
	int nmap;			/* its entries mapped */
	/*
	 * Protects @state, @invalidate, @priv; held from
	 * sfab_peer_mem_get() until sfab_peer_mem_arm() or _abort(), so an
	 * invalidation waits until the device has the region (or the
	 * registration failed); serialises invalidation against
	 * deregistration.
	 */
	struct mutex lock;
	enum sfab_peer_state state;
	void (*invalidate)(void *priv);	/* stops the device; set when armed */
	void *priv;
	struct kref ref;		/* the region's, plus one per invalidation
					 * running
					 */
	/* a view's trimmed first and last entries, and their old values */
	struct scatterlist *first_sg;
	struct scatterlist *last_sg;
	dma_addr_t first_dma;
	unsigned int first_len;
	unsigned int last_len;
};

extern struct sfab_peer_registry sfab_peer_clients;
#define SFAB_PEER_CLIENTS		(&sfab_peer_clients)

struct sfab_peer_mem *sfab_peer_mem_get(struct sfab_peer_registry *reg,
					unsigned long addr, size_t size,
					bool writable, bool can_invalidate,
					struct device *dma_dev);
int sfab_peer_mem_view(struct sfab_peer_mem *pm, struct ib_umem *view);
void sfab_peer_mem_view_done(struct sfab_peer_mem *pm);
void sfab_peer_mem_arm(struct sfab_peer_mem *pm,
		       void (*invalidate)(void *priv), void *priv);
void sfab_peer_mem_abort(struct sfab_peer_mem *pm);
int sfab_peer_mem_release(struct sfab_peer_mem *pm, int (*stop)(void *priv),
			  void *priv);

static inline void sfab_peer_registry_init(struct sfab_peer_registry *reg)
{
	mutex_init(&reg->lock);
	INIT_LIST_HEAD(&reg->clients);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* the last argument is an invalidate_peer_memory * */
void *sfab_peer_register(struct sfab_peer_registry *reg,
			 const struct peer_memory_client *ops,
			 int (**invalidate_callback)(void *reg_handle,
						     u64 core_context));
void sfab_peer_unregister(void *reg_handle);
#endif

#else /* !CONFIG_INFINIBAND_SFAB_PEER_MEM: no client ever claims a range */

struct device;
struct sfab_peer_registry;

#define SFAB_PEER_CLIENTS		NULL

static inline struct sfab_peer_mem *
sfab_peer_mem_get(struct sfab_peer_registry *reg, unsigned long addr,
		  size_t size, bool writable, bool can_invalidate,
		  struct device *dma_dev)
{
	return NULL;
}

#endif /* CONFIG_INFINIBAND_SFAB_PEER_MEM */

#endif /* _SFAB_PEER_MEM_H_ */
