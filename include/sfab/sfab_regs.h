/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sfab hardware contract v1: PCI identity, BAR layout, BAR0 register map,
 * doorbell BAR and MSI-X layout.
 *
 * Documentation/sfab/registers.rst describes every register; this header
 * is the one machine-readable copy used by the driver, the QEMU model, the
 * provider and the tools.
 */
#ifndef _SFAB_REGS_H_
#define _SFAB_REGS_H_

#include "sfab_types.h"

/* PCI identity */
#define SFAB_PCI_VENDOR_ID		0x1af4
#define SFAB_PCI_DEVICE_ID		0x10f0
#define SFAB_PCI_CLASS			0x0207	/* network: InfiniBand */
#define SFAB_PCI_SUBSYS_ID		0x0001
#define SFAB_PCI_REVISION		0x01
/* IEEE OUI (QUERY_DEVICE vendor_id, NodeInfo:VendorID): the PCI vendor's */
#define SFAB_VENDOR_OUI			0x001af4

/* BARs */
#define SFAB_BAR_REGS			0	/* BAR0: registers, 32-bit MMIO */
#define SFAB_BAR_DB			2	/* BAR2/3: doorbells, 64-bit prefetchable */
#define SFAB_BAR_MSIX			4	/* BAR4: MSI-X table and PBA */
#define SFAB_BAR_REGS_SIZE		0x4000

/*
 * BAR0 registers.  All are 32 bits wide, little-endian, and must be
 * accessed with aligned 32-bit reads and writes; other sizes are ignored
 * by the device (writes) or read as all ones (reads).
 */
#define SFAB_REG_ID			0x000	/* RO: SFAB_ID_MAGIC */
#define SFAB_REG_VERSION		0x004	/* RO: interface version */
#define SFAB_REG_CAPS			0x008	/* RO: SFAB_CAP_* */
#define SFAB_REG_DB_LAYOUT		0x00c	/* RO: doorbell BAR layout */
#define SFAB_REG_DEV_CTL		0x010	/* RW: SFAB_DEV_CTL_* */
#define SFAB_REG_DEV_STS		0x014	/* RO: SFAB_DEV_STS_* */
#define SFAB_REG_FW_STATE		0x018	/* RO: SFAB_FW_STATE_* and error */
#define SFAB_REG_MSIX_CFG		0x01c	/* RO: MSI-X vector count */
#define SFAB_REG_AQ_BASE_LO		0x020	/* RW: admin SQ base, low 32 bits */
#define SFAB_REG_AQ_BASE_HI		0x024	/* RW: admin SQ base, high 32 bits */
#define SFAB_REG_AQ_CFG			0x028	/* RW: admin SQ log2 depth, enable */
#define SFAB_REG_AQ_DB			0x02c	/* WO: admin SQ tail (producer index) */
#define SFAB_REG_ACQ_BASE_LO		0x030	/* RW: admin CQ base, low 32 bits */
#define SFAB_REG_ACQ_BASE_HI		0x034	/* RW: admin CQ base, high 32 bits */
#define SFAB_REG_ACQ_CFG		0x038	/* RW: admin CQ log2 depth, vector */
#define SFAB_REG_AENQ_BASE_LO		0x040	/* RW: async event queue base, low */
#define SFAB_REG_AENQ_BASE_HI		0x044	/* RW: async event queue base, high */
#define SFAB_REG_AENQ_CFG		0x048	/* RW: AENQ log2 depth, vector, enable */
#define SFAB_REG_AENQ_HEAD		0x04c	/* WO: AENQ head (consumer index) */
#define SFAB_REG_INTR_MASK		0x050	/* RW: bit n masks MSI-X vector n (n < 32) */
#define SFAB_REG_ERR_INFO		0x054	/* RO: last fatal error, SFAB_ERR_* */
#define SFAB_REG_HEARTBEAT		0x058	/* RO: SFAB_CAP_HEARTBEAT: running counter */

#define SFAB_ID_MAGIC			0x53464142	/* "SFAB" */

#define SFAB_VERSION_MAJOR_MASK		SFAB_GENMASK(31, 16)
#define SFAB_VERSION_MINOR_MASK		SFAB_GENMASK(15, 0)
#define SFAB_IF_VERSION_MAJOR		1
#define SFAB_IF_VERSION_MINOR		0

#define SFAB_CAP_MSIX			(1U << 0)	/* MSI-X interrupts */
#define SFAB_CAP_AENQ			(1U << 1)	/* async event queue */
#define SFAB_CAP_FW_DOWNLOAD		(1U << 2)	/* firmware download and activate */
#define SFAB_CAP_DB_WC			(1U << 3)	/* doorbell BAR is prefetchable (WC) */
/*
 * HEARTBEAT: SFAB_REG_HEARTBEAT counts milliseconds of device time (it
 * wraps) while the device runs, from reset on, firmware or not; it stops
 * once the device is fatal.  A driver that sees it stand still for
 * seconds, or reads all ones from BAR0, has lost the device.
 */
#define SFAB_CAP_HEARTBEAT		(1U << 4)

/* SFAB_REG_DB_LAYOUT */
#define SFAB_DB_LAYOUT_PAGE_SHIFT_MASK	SFAB_GENMASK(7, 0)	/* log2 page size */
#define SFAB_DB_LAYOUT_KPAGES_MASK	SFAB_GENMASK(15, 8)	/* kernel pages, from 0 */
#define SFAB_DB_LAYOUT_NPAGES_MASK	SFAB_GENMASK(31, 16)	/* total pages */

/* SFAB_REG_DEV_CTL */
#define SFAB_DEV_CTL_RESET		(1U << 0)	/* write 1: full function reset */

/* SFAB_REG_DEV_STS */
#define SFAB_DEV_STS_READY		(1U << 0)	/* registers may be programmed */
#define SFAB_DEV_STS_AQ_ENABLED		(1U << 1)	/* admin queue is running */
#define SFAB_DEV_STS_AENQ_ENABLED	(1U << 2)	/* async event queue is running */
#define SFAB_DEV_STS_HCA_INIT		(1U << 3)	/* INIT_HCA done */
#define SFAB_DEV_STS_FATAL		(1U << 31)	/* stopped; see SFAB_REG_ERR_INFO */

/* SFAB_REG_FW_STATE */
#define SFAB_FW_STATE_MASK		SFAB_GENMASK(3, 0)
#define SFAB_FW_STATE_ERR_MASK		SFAB_GENMASK(15, 8)	/* SFAB_FW_ERR_* of last try */
enum sfab_fw_state {
	SFAB_FW_STATE_NONE		= 0,	/* no firmware: only admin download works */
	SFAB_FW_STATE_LOADING		= 1,	/* chunks received, not yet activated */
	SFAB_FW_STATE_ACTIVE		= 2,	/* image verified and running */
	SFAB_FW_STATE_FAILED		= 3,	/* last activation rejected the image */
};

/* SFAB_REG_MSIX_CFG */
#define SFAB_MSIX_CFG_NVEC_MASK		SFAB_GENMASK(7, 0)

/* SFAB_REG_AQ_CFG / SFAB_REG_ACQ_CFG / SFAB_REG_AENQ_CFG */
#define SFAB_QCFG_LOG_DEPTH_MASK	SFAB_GENMASK(4, 0)
#define SFAB_QCFG_VECTOR_MASK		SFAB_GENMASK(15, 8)	/* ACQ, AENQ only */
#define SFAB_QCFG_ENABLE		(1U << 31)	/* AQ, AENQ: start the queue */
#define SFAB_AQ_MIN_LOG_DEPTH		2
#define SFAB_AQ_MAX_LOG_DEPTH		12

/* queue doorbells carry a free-running 16-bit index */
#define SFAB_QIDX_MASK			SFAB_GENMASK(15, 0)

/* SFAB_REG_ERR_INFO: why the device went fatal */
enum sfab_err {
	SFAB_ERR_NONE			= 0,
	SFAB_ERR_AQ_CONFIG		= 1,	/* admin queue programmed badly */
	SFAB_ERR_AQ_DMA			= 2,	/* admin queue DMA failed */
	SFAB_ERR_AQ_OVERRUN		= 3,	/* AQ doorbell beyond the ring */
	SFAB_ERR_AENQ_DMA		= 4,	/* async event DMA failed */
	SFAB_ERR_AENQ_CONFIG		= 5,	/* async event queue programmed badly */
	SFAB_ERR_INJECTED		= 6,	/* a test said so (fault injection) */
};

/*
 * MSI-X layout: vector 0 signals admin completions, vector 1 async events,
 * vectors 2 and up are completion event queues (CREATE_EQ names one).
 */
#define SFAB_MSIX_ADMIN			0
#define SFAB_MSIX_AENQ			1
#define SFAB_MSIX_FIRST_COMP		2
#define SFAB_MSIX_MAX_VECTORS		34

/*
 * Doorbell BAR: SFAB_DB_PAGE_SIZE pages.  Pages [0, kpages) belong to the
 * kernel driver; each user context gets one page of its own.  Offsets in
 * a page:
 */
#define SFAB_DB_PAGE_SHIFT		12
#define SFAB_DB_PAGE_SIZE		(1U << SFAB_DB_PAGE_SHIFT)
#define SFAB_DB_KERNEL_PAGES		1
#define SFAB_DB_NUM_PAGES		512
#define SFAB_DB_BAR_SIZE		(SFAB_DB_NUM_PAGES * SFAB_DB_PAGE_SIZE)
#define SFAB_DB_SQ			0x000	/* SQ doorbell: SFAB_DB_QPN | SFAB_DB_IDX */
#define SFAB_DB_RQ			0x008	/* RQ doorbell: same format */
#define SFAB_DB_CQ			0x010	/* CQ consumer index and arm: SFAB_DB_CQ_* */
#define SFAB_DB_EQ			0x018	/* EQ consumer index (kernel pages only) */
#define SFAB_DB_SRQ			0x020	/* SRQ producer index: SFAB_DB_QPN (the SRQN) | SFAB_DB_IDX */
#define SFAB_DB_QPN_MASK		SFAB_GENMASK(23, 0)	/* low word */
#define SFAB_DB_IDX_MASK		SFAB_GENMASK(15, 0)	/* high word */
#define SFAB_DB_ARM_MASK		SFAB_GENMASK(31, 30)	/* high word, CQ only */
#define SFAB_DB_ARM_NONE		0	/* update the consumer index only */
#define SFAB_DB_ARM_NEXT		1	/* event on the next completion */
#define SFAB_DB_ARM_SOLICITED		2	/* event on the next solicited one */

#endif /* _SFAB_REGS_H_ */
