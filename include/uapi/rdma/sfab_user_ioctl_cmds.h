/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sfab's own uverbs methods and attributes (RDMA_VERBS_IOCTL), in the
 * driver's namespace of ids (UVERBS_ID_NS_SPECIFIC), as
 * mlx5_user_ioctl_cmds.h has mlx5's.
 */
#ifndef SFAB_USER_IOCTL_CMDS_H
#define SFAB_USER_IOCTL_CMDS_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

/* methods of UVERBS_OBJECT_DEVICE */
enum sfab_ib_device_methods {
	/*
	 * Export the calling context's doorbell page as a dma-buf, for a
	 * peer device (an accelerator) to ring doorbells with posted
	 * writes over PCIe peer-to-peer.  The importer must be dynamic
	 * (dma_buf_attach_ops with allow_peer2peer and move_notify): the
	 * export is revoked, and move_notify called, when the context is
	 * torn down or the device goes away.  -EOPNOTSUPP in a kernel
	 * without CONFIG_PCI_P2PDMA.
	 */
	SFAB_IB_METHOD_DB_DMABUF_EXPORT = (1U << UVERBS_ID_NS_SHIFT),
};

enum sfab_ib_db_dmabuf_export_attrs {
	/* out, __s32: the dma-buf's file descriptor (O_RDWR | O_CLOEXEC) */
	SFAB_IB_ATTR_DB_DMABUF_EXPORT_FD = (1U << UVERBS_ID_NS_SHIFT),
	/*
	 * out, __u32: the dma-buf's size, the doorbell page's: the
	 * registers sit at the SFAB_DB_* offsets of <sfab/sfab_regs.h>
	 */
	SFAB_IB_ATTR_DB_DMABUF_EXPORT_PAGE_SIZE,
	/* out, __u32: the page's index in the doorbell BAR (diagnostics) */
	SFAB_IB_ATTR_DB_DMABUF_EXPORT_PAGE_INDEX,
};

#endif /* SFAB_USER_IOCTL_CMDS_H */
