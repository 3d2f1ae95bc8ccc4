/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sfab-accel driver: the test accelerator (PCI 1af4:10f1), its P2PDMA
 * device memory, its command ring and the character device that runs
 * programs on it.
 *
 * Locks, outermost first (never taken in the other order):
 *
 *   accel->files_lock   the list of open files (remove walks it)
 *   mmap_lock, a dma-buf's reservation lock
 *   accel->ring_lock    the ring, PI, import revocation (mutex: the error
 *                       thread, move_notify and SUBMIT take it, all may
 *                       sleep; no user memory is touched under it)
 *   file->lock          a file's buffer and import tables
 *   accel->mem_lock     a buffer's device memory going back to the pool
 *   accel->seq_lock     completion state (spinlock, also in hard IRQ)
 *
 * accel->rwsem is held for read by every ioctl and mmap and for write by
 * remove, after it set accel->dead and woke every sleeper.
 */
#ifndef _SFAB_ACCEL_DRV_H_
#define _SFAB_ACCEL_DRV_H_

#include <linux/dma-buf.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <sfab/sfab_accel.h>
#include <misc/sfab_accel.h>

#include "sfab_accel_peer.h"

#define SFAB_ACCEL_DRV_NAME	"sfab_accel"

/* how many failed ranges of sequence numbers WAIT remembers */
#define SFAB_ACCEL_FAIL_HISTORY	16

/* per file */
#define SFAB_ACCEL_MAX_BUFS	1024
#define SFAB_ACCEL_MAX_IMPORTS	256

/* buffer and import handles are 1..SFAB_ACCEL_MAX_HANDLE */
#define SFAB_ACCEL_MAX_HANDLE	BIT(20)

/*
 * mmap offsets: buffer handle h maps at h << SFAB_ACCEL_MMAP_SHIFT, which
 * leaves room for the largest buffer (16 GiB) after it.
 */
#define SFAB_ACCEL_MMAP_SHIFT	(SFAB_ACCEL_MEM_LOG_MAX + 1)

struct sfab_accel_fail {
	u64 from, last;		/* sequence numbers, inclusive */
	u32 code, index;
};

struct sfab_accel_stats {
	atomic64_t submits, cmds, completed, failed, errors, revoked_dropped;
	atomic64_t allocs, imports, exports, revokes;
};

struct sfab_accel {
	struct kref kref;
	struct pci_dev *pdev;		/* referenced until the last put */
	void __iomem *regs;
	int id;
	char name[32];
	struct miscdevice misc;
	bool misc_registered;

	u32 if_version;
	u64 mem_size;
	bool p2p;			/* device memory usable (P2PDMA) */

	struct rw_semaphore rwsem;
	bool dead;			/* removed: ioctls fail with -ENODEV */

	/* the ring, under ring_lock */
	struct mutex ring_lock;
	struct sfab_accel_cmd *ring;	/* depth commands, then the seq word */
	dma_addr_t ring_dma;
	size_t ring_bytes;
	unsigned int log_depth;
	u32 pi;				/* driver's copy of RING_PI */
	bool ring_dead;			/* reset for good: nothing to scrub */
	__le64 *seq_word;		/* where the driver's COMPLETE writes */
	dma_addr_t seq_word_dma;
	u64 next_seq;			/* the next submission's sequence */

	/* completion state, under seq_lock */
	spinlock_t seq_lock;
	u64 done_seq;			/* every submission up to here completed */
	u64 retired_seq;		/* ... completed or failed */
	struct sfab_accel_fail fails[SFAB_ACCEL_FAIL_HISTORY];
	unsigned int nfails;		/* total recorded; slot nfails % HISTORY */
	u32 last_err_code, last_err_index;
	wait_queue_head_t wq;		/* WAIT and ring room */

	int irq_cpl, irq_err;

	struct mutex files_lock;	/* files */
	struct list_head files;
	struct mutex mem_lock;		/* bufs, buffers' kaddr */
	struct list_head bufs;		/* buffers holding memory, mem_lock */

	struct sfab_accel_stats stats;
};

struct sfab_accel_buf {
	struct kref kref;
	struct sfab_accel *accel;	/* referenced */
	void *kaddr;			/* p2p memory; NULL once given back */
	u64 size;
	u64 bus_addr;
	u64 mmap_offset;
	u32 handle;
	atomic_t ext_refs;		/* dma-bufs, peer-memory users */
	struct list_head node;		/* accel->bufs while it has memory */
};

struct sfab_accel_import {
	struct sfab_accel *accel;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;		/* under the reservation lock */
	u64 dma_addr;
	u64 len;
	u32 handle;
	bool revoked;			/* under ring_lock */
};

struct sfab_accel_file {
	struct sfab_accel *accel;	/* referenced */
	struct list_head node;		/* accel->files */
	struct address_space *mapping;	/* of the inode it was opened through */
	struct mutex lock;
	struct xarray bufs;		/* handle -> struct sfab_accel_buf */
	struct xarray imports;		/* handle -> struct sfab_accel_import */
	unsigned int nbufs, nimports;
};

static inline struct sfab_accel_file *
sfab_accel_file_of(struct file *filp)
{
	return filp->private_data;
}

/* sfab_accel_main.c */
void sfab_accel_put(struct sfab_accel *accel);
int sfab_accel_submit(struct sfab_accel_file *f, struct sfab_accel_cmd *cmds,
		      u32 count, u64 *seq);
int sfab_accel_wait(struct sfab_accel *accel, u64 seq, u32 timeout_ms,
		    struct sfab_accel_ioc_wait *w);
void sfab_accel_scrub_locked(struct sfab_accel *accel, u64 addr, u64 len);
void sfab_accel_fill_info(struct sfab_accel *accel,
			  struct sfab_accel_ioc_info *info);

/* sfab_accel_mem.c */
int sfab_accel_buf_alloc(struct sfab_accel_file *f, u64 size,
			 struct sfab_accel_ioc_alloc *out);
int sfab_accel_buf_free(struct sfab_accel_file *f, u32 handle);
void sfab_accel_buf_release_mem(struct sfab_accel_buf *buf);
int sfab_accel_mmap(struct file *filp, struct vm_area_struct *vma);
int sfab_accel_export(struct sfab_accel_file *f,
		      struct sfab_accel_ioc_export *exp);
int sfab_accel_import(struct sfab_accel_file *f,
		      struct sfab_accel_ioc_import *imp);
int sfab_accel_release_import(struct sfab_accel_file *f, u32 handle);
int sfab_accel_move(struct sfab_accel_file *f, struct sfab_accel_ioc_move *mv);
void sfab_accel_file_drain(struct sfab_accel_file *f);
void sfab_accel_reclaim(struct sfab_accel *accel);

/* sfab_accel_cdev.c */
int sfab_accel_cdev_register(struct sfab_accel *accel);
void sfab_accel_cdev_unregister(struct sfab_accel *accel);

#endif /* _SFAB_ACCEL_DRV_H_ */
