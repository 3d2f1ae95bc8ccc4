/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * libsfab-accel: a small wrapper around /dev/sfab-accelN
 * (include/uapi/misc/sfab_accel.h) for tests and the lab.  Functions
 * return 0 or a negative errno; commands are built with the contract's
 * encoders (sfab_accel_cmd_*() in <sfab/sfab_accel.h>).
 */
#ifndef SFAB_ACCEL_LIB_H
#define SFAB_ACCEL_LIB_H

#include <stdint.h>
#include <sfab/sfab_accel.h>
#include <misc/sfab_accel.h>

#define SFAB_ACCEL_DEFAULT_DEV "/dev/sfab-accel0"

struct sfab_accel_dev {
	int fd;
	struct sfab_accel_ioc_info info;
};

/* a device memory buffer, mapped */
struct sfab_accel_mem {
	uint32_t handle;
	uint64_t size;
	uint64_t bus_addr;
	uint64_t mmap_offset;
	void *map;
};

int sfab_accel_open(const char *path, struct sfab_accel_dev *dev);
void sfab_accel_close(struct sfab_accel_dev *dev);
int sfab_accel_info(struct sfab_accel_dev *dev, struct sfab_accel_ioc_info *info);
/* ALLOC and mmap the whole buffer */
int sfab_accel_alloc(struct sfab_accel_dev *dev, uint64_t size,
		     struct sfab_accel_mem *mem);
/* munmap and FREE */
int sfab_accel_free(struct sfab_accel_dev *dev, struct sfab_accel_mem *mem);
/* a dma-buf fd over [offset, offset + len) of the buffer, or -errno */
int sfab_accel_export(struct sfab_accel_dev *dev, uint32_t handle,
		      uint64_t offset, uint64_t len);
int sfab_accel_import(struct sfab_accel_dev *dev, int fd, uint32_t *handle,
		      uint64_t *bus_addr, uint64_t *len);
int sfab_accel_release_import(struct sfab_accel_dev *dev, uint32_t handle);
int sfab_accel_submit(struct sfab_accel_dev *dev,
		      const struct sfab_accel_cmd *cmds, uint32_t count,
		      uint64_t *seq);
/* 0, -EIO (w->err_code, w->err_index say why), -ETIMEDOUT, ... */
int sfab_accel_wait(struct sfab_accel_dev *dev, uint64_t seq,
		    uint32_t timeout_ms, struct sfab_accel_ioc_wait *w);
/* MOVE_DMABUF of dma-buf @fd: op SFAB_ACCEL_MOVE_BEGIN, _END, _END_GONE */
int sfab_accel_move(struct sfab_accel_dev *dev, int fd, uint32_t op);
/* submit, then wait */
int sfab_accel_run(struct sfab_accel_dev *dev,
		   const struct sfab_accel_cmd *cmds, uint32_t count,
		   uint32_t timeout_ms, struct sfab_accel_ioc_wait *w);

#endif /* SFAB_ACCEL_LIB_H */
