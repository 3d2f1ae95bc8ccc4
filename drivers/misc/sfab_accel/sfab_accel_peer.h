/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sfab-accel: what other kernel code (a peer-memory client) may ask the
 * accelerator's driver about a user mapping of its device memory.
 */
#ifndef _SFAB_ACCEL_PEER_H_
#define _SFAB_ACCEL_PEER_H_

#include <linux/types.h>

struct mm_struct;
struct page;
struct pci_dev;
struct vm_area_struct;
struct sfab_accel_buf;

/**
 * struct sfab_accel_va_range - an sfab-accel buffer behind a user VA range
 * @buf: the buffer, referenced: sfab_accel_buf_put() when done; while
 *	referenced, the memory stays (an unbind of the accelerator waits)
 * @pdev: the accelerator, the P2PDMA provider (for pci_p2pdma_distance())
 * @offset: byte offset of the range's start in the buffer
 * @bus_addr: bus address of the range's start
 * @len: bytes
 */
struct sfab_accel_va_range {
	struct sfab_accel_buf *buf;
	struct pci_dev *pdev;
	u64 offset;
	u64 bus_addr;
	u64 len;
};

/**
 * struct sfab_accel_peer_notifier - a peer-memory client's hook
 * @mem_gone: a buffer's device memory is about to go back to the pool
 *	(the last reference went, or the device is being removed); on
 *	return nothing may access it any more.  Called with the
 *	accelerator's mem_lock held, may sleep; must not take mmap_lock
 *	or call back into sfab_accel.
 */
struct sfab_accel_peer_notifier {
	void (*mem_gone)(struct sfab_accel_buf *buf);
};

int sfab_accel_peer_notifier_set(const struct sfab_accel_peer_notifier *nb);
void sfab_accel_peer_notifier_clear(const struct sfab_accel_peer_notifier *nb);

struct sfab_accel_buf *sfab_accel_vma_buf(struct vm_area_struct *vma);
int sfab_accel_va_lookup(struct mm_struct *mm, unsigned long va, u64 len,
			 struct sfab_accel_va_range *range);
struct page *sfab_accel_buf_page(struct sfab_accel_buf *buf, u64 offset);
void sfab_accel_buf_put(struct sfab_accel_buf *buf);

#endif /* _SFAB_ACCEL_PEER_H_ */
