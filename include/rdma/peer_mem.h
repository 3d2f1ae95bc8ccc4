/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The peer-memory client interface of MLNX_OFED's ib_core, as sfab.ko
 * offers it with CONFIG_INFINIBAND_SFAB_PEER_MEM
 * (Documentation/sfab/peer-memory.rst).
 *
 * This file is where a GPU driver built against MLNX_OFED looks for it
 * (<rdma/peer_mem.h>, -I/usr/src/ofa_kernel/default/include there,
 * -I<sfab>/include here).  The binary interface is MLNX_OFED's and
 * nvidia-peermem's: the same names, the same member order and types,
 * hence the same offsets; a client compiled against either header binds
 * to sfab.ko unchanged.  The static_asserts below pin the layout on
 * 64-bit kernels, the only ones sfab builds for.
 *
 * The calls, in the order sfab makes them for one memory region:
 *
 *   acquire(addr, size, NULL, NULL, &ctx)   1: the range is the client's
 *   get_pages(addr, size, 1, force, NULL, ctx, ticket)
 *   dma_map(&sgt, ctx, dma_device, 0, &nmap)
 *   get_page_size(ctx)                      optional; PAGE_SIZE if absent
 *   ...the memory region lives; the client may call
 *      invalidate(reg_handle, ticket) once...
 *   dma_unmap(&sgt, ctx, dma_device)        } once, at invalidation or at
 *   put_pages(&sgt, ctx)                    } deregistration, whichever
 *                                           } first; never after an
 *                                           } invalidation of a client
 *                                           } with PEER_MEM_INVALIDATE_UNMAPS
 *   release(ctx)                            optional; at deregistration
 *
 * A step that fails undoes exactly the steps before it.
 */
#ifndef RDMA_PEER_MEM_H
#define RDMA_PEER_MEM_H

#include <linux/build_bug.h>
#include <linux/scatterlist.h>
#include <linux/stddef.h>
#include <linux/types.h>

#define IB_PEER_MEMORY_NAME_MAX		64
#define IB_PEER_MEMORY_VER_MAX		16

/* core_context is a u64 (older OFED releases had a void *) */
#define PEER_MEM_U64_CORE_CONTEXT

struct device;

/**
 * struct peer_memory_client - a driver that owns user virtual ranges
 *	get_user_pages() cannot pin (a GPU's BAR mapping, say)
 * @name: the client's name, NUL terminated
 * @version: its version, NUL terminated in the first
 *	IB_PEER_MEMORY_VER_MAX - 1 bytes; a nonzero last byte says that
 *	this struct is the first member of a struct peer_memory_client_ex
 * @acquire: whether [@addr, @addr + @size) is the client's: 1 yes (and
 *	*@client_context is its context for the calls below), 0 or a
 *	negative errno no.  @peer_mem_private_data and @peer_mem_name are
 *	NULL.  Mandatory.
 * @get_pages: pin the range.  @write is 1; @force is 1 when the region
 *	is not writable (break copy-on-write, but do not fail on read-only
 *	memory); @sg_head is NULL; @core_context is the ticket to pass to
 *	the invalidate callback for this region.  0 or a negative errno.
 *	Mandatory.
 * @dma_map: fill @sg_head (the client allocates its table) with the
 *	range mapped for @dma_device, PAGE_SIZE aligned entries from the
 *	page holding the first byte to the one holding the last, rounded
 *	out to the client's page size; *@nmap: the entries mapped.
 *	@dmasync is 0.  0 or a negative errno.  Mandatory.
 * @dma_unmap: undo @dma_map; returns 0.  Mandatory.
 * @put_pages: undo @get_pages and free @sg_head's table.  Mandatory.
 * @get_page_size: the size of the pages behind the range (a power of
 *	two, at least PAGE_SIZE).  Optional.
 * @release: undo @acquire.  Optional.
 */
struct peer_memory_client {
	char name[IB_PEER_MEMORY_NAME_MAX];
	char version[IB_PEER_MEMORY_VER_MAX];
	int (*acquire)(unsigned long addr, size_t size,
		       void *peer_mem_private_data, char *peer_mem_name,
		       void **client_context);
	int (*get_pages)(unsigned long addr, size_t size, int write, int force,
			 struct sg_table *sg_head, void *client_context,
			 u64 core_context);
	int (*dma_map)(struct sg_table *sg_head, void *client_context,
		       struct device *dma_device, int dmasync, int *nmap);
	int (*dma_unmap)(struct sg_table *sg_head, void *client_context,
			 struct device *dma_device);
	void (*put_pages)(struct sg_table *sg_head, void *client_context);
	unsigned long (*get_page_size)(void *client_context);
	void (*release)(void *client_context);
};

/* struct peer_memory_client_ex.flags */
enum {
	/*
	 * After it calls the invalidate callback the client unmaps and
	 * unpins the range itself: dma_unmap() and put_pages() are never
	 * called for it again.
	 */
	PEER_MEM_INVALIDATE_UNMAPS = 1 << 0,
};

/**
 * struct peer_memory_client_ex - a client with flags
 * @client: registered; its version[IB_PEER_MEMORY_VER_MAX - 1] nonzero
 * @ex_size: sizeof(struct peer_memory_client_ex) as the client knows it;
 *	@flags count only when it covers them
 * @flags: PEER_MEM_*
 */
struct peer_memory_client_ex {
	struct peer_memory_client client;
	size_t ex_size;
	u32 flags;
};

/*
 * The client's way to revoke a region: @reg_handle what
 * ib_register_peer_memory_client() returned, @core_context the ticket
 * get_pages() was given.  On return the HCA no longer accesses the
 * range.  It sleeps; the client must not hold a lock that its own
 * get_pages() or dma_map() takes.  A ticket that is no longer
 * registered is ignored.  Returns 0.
 */
typedef int (*invalidate_peer_memory)(void *reg_handle, u64 core_context);

/*
 * Registration: NULL on failure.  With @invalidate_callback the client
 * gets the function to revoke regions in *@invalidate_callback and is
 * offered only regions that can be revoked; without it (NULL), regions
 * stay until deregistered.  Unregistration waits until every region of
 * the client is deregistered.
 */
void *
ib_register_peer_memory_client(const struct peer_memory_client *peer_client,
			       invalidate_peer_memory *invalidate_callback);
void ib_unregister_peer_memory_client(void *reg_handle);

#ifdef CONFIG_64BIT
/* the binary interface of MLNX_OFED's and nvidia-peermem's peer_mem.h */
static_assert(offsetof(struct peer_memory_client, version) == 64);
static_assert(offsetof(struct peer_memory_client, acquire) == 80);
static_assert(offsetof(struct peer_memory_client, get_pages) == 88);
static_assert(offsetof(struct peer_memory_client, dma_map) == 96);
static_assert(offsetof(struct peer_memory_client, dma_unmap) == 104);
static_assert(offsetof(struct peer_memory_client, put_pages) == 112);
static_assert(offsetof(struct peer_memory_client, get_page_size) == 120);
static_assert(offsetof(struct peer_memory_client, release) == 128);
static_assert(sizeof(struct peer_memory_client) == 136);
static_assert(offsetof(struct peer_memory_client_ex, ex_size) == 136);
static_assert(offsetof(struct peer_memory_client_ex, flags) == 144);
#endif

#endif /* RDMA_PEER_MEM_H */
