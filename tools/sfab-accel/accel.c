// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libsfab-accel: see accel.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "accel.h"

/* the ABI's sizes: the same on every architecture */
_Static_assert(sizeof(struct sfab_accel_ioc_info) == 120, "info");
_Static_assert(sizeof(struct sfab_accel_ioc_alloc) == 32, "alloc");
_Static_assert(sizeof(struct sfab_accel_ioc_handle) == 8, "handle");
_Static_assert(sizeof(struct sfab_accel_ioc_export) == 32, "export");
_Static_assert(sizeof(struct sfab_accel_ioc_import) == 32, "import");
_Static_assert(sizeof(struct sfab_accel_ioc_submit) == 24, "submit");
_Static_assert(sizeof(struct sfab_accel_ioc_wait) == 32, "wait");

static int accel_ioctl(struct sfab_accel_dev *dev, unsigned long req, void *arg)
{
	return ioctl(dev->fd, req, arg) ? -errno : 0;
}

int sfab_accel_open(const char *path, struct sfab_accel_dev *dev)
{
	int err;

	memset(dev, 0, sizeof(*dev));
	dev->fd = open(path ? path : SFAB_ACCEL_DEFAULT_DEV, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0)
		return -errno;
	err = sfab_accel_info(dev, &dev->info);
	if (err) {
		close(dev->fd);
		dev->fd = -1;
	}
	return err;
}

void sfab_accel_close(struct sfab_accel_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

int sfab_accel_info(struct sfab_accel_dev *dev, struct sfab_accel_ioc_info *info)
{
	memset(info, 0, sizeof(*info));
	return accel_ioctl(dev, SFAB_ACCEL_IOCTL_INFO, info);
}

static int accel_handle_op(struct sfab_accel_dev *dev, unsigned long req,
			   uint32_t handle)
{
	struct sfab_accel_ioc_handle h = { .handle = handle };

	return accel_ioctl(dev, req, &h);
}

int sfab_accel_alloc(struct sfab_accel_dev *dev, uint64_t size,
		     struct sfab_accel_mem *mem)
{
	struct sfab_accel_ioc_alloc a = { .size = size };
	int err;

	memset(mem, 0, sizeof(*mem));
	err = accel_ioctl(dev, SFAB_ACCEL_IOCTL_ALLOC, &a);
	if (err)
		return err;
	mem->handle = a.handle;
	mem->bus_addr = a.bus_addr;
	mem->mmap_offset = a.mmap_offset;
	mem->size = (size + (uint64_t)getpagesize() - 1) &
		    ~((uint64_t)getpagesize() - 1);
	mem->map = mmap(NULL, mem->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			dev->fd, (off_t)a.mmap_offset);
	if (mem->map == MAP_FAILED) {
		err = -errno;
		mem->map = NULL;
		accel_handle_op(dev, SFAB_ACCEL_IOCTL_FREE, a.handle);
		return err;
	}
	return 0;
}

int sfab_accel_free(struct sfab_accel_dev *dev, struct sfab_accel_mem *mem)
{
	if (mem->map)
		munmap(mem->map, mem->size);
	mem->map = NULL;
	return accel_handle_op(dev, SFAB_ACCEL_IOCTL_FREE, mem->handle);
}

int sfab_accel_export(struct sfab_accel_dev *dev, uint32_t handle,
		      uint64_t offset, uint64_t len)
{
	struct sfab_accel_ioc_export e = {
		.handle = handle, .offset = offset, .len = len,
	};
	int err;

	err = accel_ioctl(dev, SFAB_ACCEL_IOCTL_EXPORT_DMABUF, &e);
	return err ? err : e.fd;
}

int sfab_accel_import(struct sfab_accel_dev *dev, int fd, uint32_t *handle,
		      uint64_t *bus_addr, uint64_t *len)
{
	struct sfab_accel_ioc_import im = { .fd = fd };
	int err;

	err = accel_ioctl(dev, SFAB_ACCEL_IOCTL_IMPORT_DMABUF, &im);
	if (err)
		return err;
	*handle = im.handle;
	*bus_addr = im.bus_addr;
	*len = im.len;
	return 0;
}

int sfab_accel_release_import(struct sfab_accel_dev *dev, uint32_t handle)
{
	return accel_handle_op(dev, SFAB_ACCEL_IOCTL_RELEASE_IMPORT, handle);
}

int sfab_accel_move(struct sfab_accel_dev *dev, int fd, uint32_t op)
{
	struct sfab_accel_ioc_move mv = { .fd = fd, .op = op };

	return ioctl(dev->fd, SFAB_ACCEL_IOCTL_MOVE_DMABUF, &mv) ? -errno : 0;
}

int sfab_accel_submit(struct sfab_accel_dev *dev,
		      const struct sfab_accel_cmd *cmds, uint32_t count,
		      uint64_t *seq)
{
	struct sfab_accel_ioc_submit s = {
		.cmds = (uintptr_t)cmds, .count = count,
	};
	int err;

	err = accel_ioctl(dev, SFAB_ACCEL_IOCTL_SUBMIT, &s);
	if (!err)
		*seq = s.seq;
	return err;
}

int sfab_accel_wait(struct sfab_accel_dev *dev, uint64_t seq,
		    uint32_t timeout_ms, struct sfab_accel_ioc_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->seq = seq;
	w->timeout_ms = timeout_ms;
	return accel_ioctl(dev, SFAB_ACCEL_IOCTL_WAIT, w);
}

int sfab_accel_run(struct sfab_accel_dev *dev,
		   const struct sfab_accel_cmd *cmds, uint32_t count,
		   uint32_t timeout_ms, struct sfab_accel_ioc_wait *w)
{
	uint64_t seq;
	int err;

	err = sfab_accel_submit(dev, cmds, count, &seq);
	if (err)
		return err;
	return sfab_accel_wait(dev, seq, timeout_ms, w);
}
