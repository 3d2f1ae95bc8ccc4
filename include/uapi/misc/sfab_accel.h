/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sfab-accel character device ABI: /dev/sfab-accelN, the test
 * accelerator's driver (drivers/misc/sfab_accel/).
 *
 * Every struct has explicit sizes and 64-bit alignment.  Pointers travel
 * as __u64.  In a request, flags and every reserved field must be 0, or
 * the ioctl fails with -EINVAL; an output field's value on input is
 * ignored.  The commands themselves are the hardware contract's
 * (struct sfab_accel_cmd in <sfab/sfab_accel.h>); this header does not
 * restate them.
 *
 * Documentation/sfab/accel.rst describes each ioctl.
 */
#ifndef _UAPI_MISC_SFAB_ACCEL_H
#define _UAPI_MISC_SFAB_ACCEL_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* SFAB_ACCEL_IOCTL_INFO's uapi_version; raised on incompatible changes */
#define SFAB_ACCEL_UAPI_VERSION		1

/* struct sfab_accel_ioc_info.flags */
#define SFAB_ACCEL_INFO_F_P2PDMA	(1U << 0)	/* ALLOC, EXPORT work */

/* device-wide counters, since probe */
struct sfab_accel_ioc_counters {
	__u64 submits;		/* SUBMIT calls that reached the ring */
	__u64 cmds;		/* user commands written to the ring */
	__u64 completed;	/* submissions completed */
	__u64 failed;		/* submissions failed by a ring error */
	__u64 errors;		/* ring errors (vector 1) */
	__u64 revoked_dropped;	/* pending commands turned into NOPs */
	__u64 allocs;		/* buffers allocated */
	__u64 imports;		/* dma-bufs imported */
	__u64 exports;		/* dma-bufs exported */
	__u64 revokes;		/* imports revoked by their exporter */
	__u32 last_err_code;	/* enum sfab_accel_err of the last ring error */
	__u32 last_err_index;	/* its ERR_INDEX */
};

struct sfab_accel_ioc_info {
	__u32 flags;		/* in: 0; out: SFAB_ACCEL_INFO_F_* */
	__u32 uapi_version;	/* out: SFAB_ACCEL_UAPI_VERSION */
	__u32 if_version;	/* out: the device's VERSION register */
	__u32 ring_depth;	/* out: commands in the ring */
	__u64 mem_size;		/* out: BAR2 bytes */
	__u32 max_submit;	/* out: most commands in one SUBMIT */
	__u32 reserved;		/* in: 0 */
	struct sfab_accel_ioc_counters counters;	/* out */
};

struct sfab_accel_ioc_alloc {
	__u64 size;		/* in: bytes, rounded up to pages */
	__u32 flags;		/* in: 0 */
	__u32 handle;		/* out */
	__u64 bus_addr;		/* out: bus address of the first byte */
	__u64 mmap_offset;	/* out: mmap() offset of the buffer */
};

/* FREE, RELEASE_IMPORT */
struct sfab_accel_ioc_handle {
	__u32 handle;		/* in */
	__u32 flags;		/* in: 0 */
};

struct sfab_accel_ioc_export {
	__u32 handle;		/* in: a buffer */
	__u32 flags;		/* in: 0 */
	__u64 offset;		/* in: page-aligned offset in the buffer */
	__u64 len;		/* in: page-aligned length, not 0 */
	__s32 fd;		/* out: the dma-buf, O_RDWR | O_CLOEXEC */
	__u32 reserved;		/* in: 0 */
};

struct sfab_accel_ioc_import {
	__s32 fd;		/* in: a dma-buf */
	__u32 flags;		/* in: 0 */
	__u32 handle;		/* out */
	__u32 reserved;		/* in: 0 */
	__u64 bus_addr;		/* out: its DMA address for the accelerator */
	__u64 len;		/* out: bytes */
};

struct sfab_accel_ioc_submit {
	__u64 cmds;		/* in: pointer to count struct sfab_accel_cmd */
	__u32 count;		/* in: at most info.max_submit */
	__u32 flags;		/* in: 0 */
	__u64 seq;		/* out: what to WAIT for */
};

/* struct sfab_accel_ioc_wait.status */
enum sfab_accel_wait_status {
	SFAB_ACCEL_WAIT_DONE	= 0,	/* the program ran to its end */
	SFAB_ACCEL_WAIT_ERROR	= 1,	/* a ring error stopped it: -EIO */
	SFAB_ACCEL_WAIT_TIMEOUT	= 2,	/* not done in time: -ETIMEDOUT */
};

struct sfab_accel_ioc_wait {
	__u64 seq;		/* in: from SUBMIT */
	__u32 timeout_ms;	/* in: 0 checks once */
	__u32 flags;		/* in: 0 */
	__u32 status;		/* out: enum sfab_accel_wait_status */
	__u32 err_code;		/* out: ERROR: enum sfab_accel_err */
	__u32 err_index;	/* out: ERROR: ring index of the failing command */
	__u32 reserved;		/* in: 0 */
};

/*
 * MOVE_DMABUF: play an exporter that moves a buffer (a GPU evicting
 * device memory), for testing dynamic importers.  BEGIN calls
 * dma_buf_move_notify() on a dma-buf this file exported, with a fence in
 * its reservation (DMA_RESV_USAGE_KERNEL) that holds every importer's
 * next mapping until the move ends; END signals it and the memory is
 * where it was; END_GONE signals it and the export maps no more (-ENODEV:
 * importers fail cleanly).  A move ends by itself after
 * SFAB_ACCEL_MOVE_MAX_MS.  -EBUSY: a move of that dma-buf is under way
 * (BEGIN) or none is (END).
 */
enum sfab_accel_move_op {
	SFAB_ACCEL_MOVE_BEGIN		= 1,
	SFAB_ACCEL_MOVE_END		= 2,
	SFAB_ACCEL_MOVE_END_GONE	= 3,
};

#define SFAB_ACCEL_MOVE_MAX_MS		10000

struct sfab_accel_ioc_move {
	__s32 fd;		/* in: a dma-buf from this file's EXPORT_DMABUF */
	__u32 op;		/* in: enum sfab_accel_move_op */
};

#define SFAB_ACCEL_IOC_MAGIC		0xB9

#define SFAB_ACCEL_IOCTL_INFO \
	_IOWR(SFAB_ACCEL_IOC_MAGIC, 0x00, struct sfab_accel_ioc_info)
#define SFAB_ACCEL_IOCTL_ALLOC \
	_IOWR(SFAB_ACCEL_IOC_MAGIC, 0x01, struct sfab_accel_ioc_alloc)
#define SFAB_ACCEL_IOCTL_FREE \
	_IOW(SFAB_ACCEL_IOC_MAGIC, 0x02, struct sfab_accel_ioc_handle)
#define SFAB_ACCEL_IOCTL_EXPORT_DMABUF \
	_IOWR(SFAB_ACCEL_IOC_MAGIC, 0x03, struct sfab_accel_ioc_export)
#define SFAB_ACCEL_IOCTL_IMPORT_DMABUF \
	_IOWR(SFAB_ACCEL_IOC_MAGIC, 0x04, struct sfab_accel_ioc_import)
#define SFAB_ACCEL_IOCTL_RELEASE_IMPORT \
	_IOW(SFAB_ACCEL_IOC_MAGIC, 0x05, struct sfab_accel_ioc_handle)
#define SFAB_ACCEL_IOCTL_SUBMIT \
	_IOWR(SFAB_ACCEL_IOC_MAGIC, 0x06, struct sfab_accel_ioc_submit)
#define SFAB_ACCEL_IOCTL_WAIT \
	_IOWR(SFAB_ACCEL_IOC_MAGIC, 0x07, struct sfab_accel_ioc_wait)
#define SFAB_ACCEL_IOCTL_MOVE_DMABUF \
	_IOW(SFAB_ACCEL_IOC_MAGIC, 0x08, struct sfab_accel_ioc_move)

#endif /* _UAPI_MISC_SFAB_ACCEL_H */
