// SPDX-License-Identifier: GPL-2.0-only
/*
 * sfab-accel: the character device /dev/sfab-accelN and its ioctls
 * (include/uapi/misc/sfab_accel.h).
 */

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sfab_accel_drv.h"

/* the ABI's sizes: the same on every architecture, so compat needs nothing */
static_assert(sizeof(struct sfab_accel_ioc_info) == 120);
static_assert(sizeof(struct sfab_accel_ioc_alloc) == 32);
static_assert(sizeof(struct sfab_accel_ioc_handle) == 8);
static_assert(sizeof(struct sfab_accel_ioc_move) == 8);
static_assert(sizeof(struct sfab_accel_ioc_export) == 32);
static_assert(sizeof(struct sfab_accel_ioc_import) == 32);
static_assert(sizeof(struct sfab_accel_ioc_submit) == 24);
static_assert(sizeof(struct sfab_accel_ioc_wait) == 32);

static struct sfab_accel *sfab_accel_of_misc(struct file *filp)
{
	struct miscdevice *misc = filp->private_data;

	return container_of(misc, struct sfab_accel, misc);
}

static int sfab_accel_open(struct inode *inode, struct file *filp)
{
	struct sfab_accel *accel = sfab_accel_of_misc(filp);
	struct sfab_accel_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	xa_init_flags(&f->bufs, XA_FLAGS_ALLOC1);
	xa_init_flags(&f->imports, XA_FLAGS_ALLOC1);
	f->mapping = filp->f_mapping;

	/* misc_open() holds misc_mtx: remove cannot have deregistered yet */
	down_read(&accel->rwsem);
	if (accel->dead) {
		up_read(&accel->rwsem);
		kfree(f);
		return -ENODEV;
	}
	kref_get(&accel->kref);
	f->accel = accel;
	mutex_lock(&accel->files_lock);
	list_add_tail(&f->node, &accel->files);
	mutex_unlock(&accel->files_lock);
	up_read(&accel->rwsem);
	filp->private_data = f;
	return 0;
}

static int sfab_accel_release(struct inode *inode, struct file *filp)
{
	struct sfab_accel_file *f = sfab_accel_file_of(filp);
	struct sfab_accel *accel = f->accel;

	mutex_lock(&accel->files_lock);
	list_del(&f->node);
	mutex_unlock(&accel->files_lock);
	sfab_accel_file_drain(f);
	xa_destroy(&f->bufs);
	xa_destroy(&f->imports);
	kfree(f);
	sfab_accel_put(accel);
	return 0;
}

static int sfab_accel_ioc_info(struct sfab_accel_file *f, void __user *uarg)
{
	struct sfab_accel_ioc_info info;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if (info.flags || info.reserved)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	sfab_accel_fill_info(f->accel, &info);
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

static int sfab_accel_ioc_alloc(struct sfab_accel_file *f, void __user *uarg)
{
	struct sfab_accel_ioc_alloc a;
	int err;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags)
		return -EINVAL;
	err = sfab_accel_buf_alloc(f, a.size, &a);
	if (err)
		return err;
	if (copy_to_user(uarg, &a, sizeof(a))) {
		sfab_accel_buf_free(f, a.handle);
		return -EFAULT;
	}
	return 0;
}

static int sfab_accel_ioc_handle(struct sfab_accel_file *f, void __user *uarg,
				 unsigned int cmd)
{
	struct sfab_accel_ioc_handle h;

	if (copy_from_user(&h, uarg, sizeof(h)))
		return -EFAULT;
	if (h.flags)
		return -EINVAL;
	if (cmd == SFAB_ACCEL_IOCTL_FREE)
		return sfab_accel_buf_free(f, h.handle);
	return sfab_accel_release_import(f, h.handle);
}

static int sfab_accel_ioc_export(struct sfab_accel_file *f, void __user *uarg)
{
	struct sfab_accel_ioc_export e;
	int err;

	if (copy_from_user(&e, uarg, sizeof(e)))
		return -EFAULT;
	if (e.flags || e.reserved)
		return -EINVAL;
	err = sfab_accel_export(f, &e);
	if (err)
		return err;
	/* the fd is installed: on a fault it stays, user space closes it */
	return copy_to_user(uarg, &e, sizeof(e)) ? -EFAULT : 0;
}

static int sfab_accel_ioc_import(struct sfab_accel_file *f, void __user *uarg)
{
	struct sfab_accel_ioc_import im;
	int err;

	if (copy_from_user(&im, uarg, sizeof(im)))
		return -EFAULT;
	if (im.flags || im.reserved)
		return -EINVAL;
	err = sfab_accel_import(f, &im);
	if (err)
		return err;
	if (copy_to_user(uarg, &im, sizeof(im))) {
		sfab_accel_release_import(f, im.handle);
		return -EFAULT;
	}
	return 0;
}

static int sfab_accel_ioc_submit(struct sfab_accel_file *f, void __user *uarg)
{
	struct sfab_accel *accel = f->accel;
	struct sfab_accel_ioc_submit s;
	struct sfab_accel_cmd *cmds = NULL;
	int err;

	if (copy_from_user(&s, uarg, sizeof(s)))
		return -EFAULT;
	if (s.flags)
		return -EINVAL;
	if (s.count >= 1U << accel->log_depth)
		return -E2BIG;
	if (s.count) {
		/* copied in before any lock: no user access under ring_lock */
		cmds = vmemdup_array_user(u64_to_user_ptr(s.cmds), s.count,
					  sizeof(*cmds));
		if (IS_ERR(cmds))
			return PTR_ERR(cmds);
	}
	err = sfab_accel_submit(f, cmds, s.count, &s.seq);
	kvfree(cmds);
	if (err)
		return err;
	/* the program is queued: a fault here loses only its seq */
	return copy_to_user(uarg, &s, sizeof(s)) ? -EFAULT : 0;
}

static int sfab_accel_ioc_wait(struct sfab_accel_file *f, void __user *uarg)
{
	struct sfab_accel_ioc_wait w;
	int err;

	if (copy_from_user(&w, uarg, sizeof(w)))
		return -EFAULT;
	if (w.flags || w.reserved)
		return -EINVAL;
	w.status = 0;
	w.err_code = 0;
	w.err_index = 0;
	err = sfab_accel_wait(f->accel, w.seq, w.timeout_ms, &w);
	if (err && err != -EIO && err != -ETIMEDOUT)
		return err;
	if (copy_to_user(uarg, &w, sizeof(w)))
		return -EFAULT;
	return err;
}

static int sfab_accel_ioc_move(struct sfab_accel_file *f, void __user *uarg)
{
	struct sfab_accel_ioc_move mv;

	if (copy_from_user(&mv, uarg, sizeof(mv)))
		return -EFAULT;
	return sfab_accel_move(f, &mv);
}

static long sfab_accel_ioctl(struct file *filp, unsigned int cmd,
			     unsigned long arg)
{
	struct sfab_accel_file *f = sfab_accel_file_of(filp);
	struct sfab_accel *accel = f->accel;
	void __user *uarg = (void __user *)arg;
	long ret;

	down_read(&accel->rwsem);
	if (accel->dead) {
		ret = -ENODEV;
		goto out;
	}
	switch (cmd) {
	case SFAB_ACCEL_IOCTL_INFO:
		ret = sfab_accel_ioc_info(f, uarg);
		break;
	case SFAB_ACCEL_IOCTL_ALLOC:
		ret = sfab_accel_ioc_alloc(f, uarg);
		break;
	case SFAB_ACCEL_IOCTL_FREE:
	case SFAB_ACCEL_IOCTL_RELEASE_IMPORT:
		ret = sfab_accel_ioc_handle(f, uarg, cmd);
		break;
	case SFAB_ACCEL_IOCTL_EXPORT_DMABUF:
		ret = sfab_accel_ioc_export(f, uarg);
		break;
	case SFAB_ACCEL_IOCTL_IMPORT_DMABUF:
		ret = sfab_accel_ioc_import(f, uarg);
		break;
	case SFAB_ACCEL_IOCTL_SUBMIT:
		ret = sfab_accel_ioc_submit(f, uarg);
		break;
	case SFAB_ACCEL_IOCTL_WAIT:
		ret = sfab_accel_ioc_wait(f, uarg);
		break;
	case SFAB_ACCEL_IOCTL_MOVE_DMABUF:
		ret = sfab_accel_ioc_move(f, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
out:
	up_read(&accel->rwsem);
	return ret;
}

static const struct file_operations sfab_accel_fops = {
	.owner = THIS_MODULE,
	.open = sfab_accel_open,
	.release = sfab_accel_release,
	.unlocked_ioctl = sfab_accel_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = sfab_accel_mmap,
	.llseek = noop_llseek,
};

int sfab_accel_cdev_register(struct sfab_accel *accel)
{
	int err;

	accel->misc.minor = MISC_DYNAMIC_MINOR;
	accel->misc.name = accel->name;
	accel->misc.fops = &sfab_accel_fops;
	accel->misc.parent = &accel->pdev->dev;
	accel->misc.mode = 0600;
	err = misc_register(&accel->misc);
	if (!err)
		accel->misc_registered = true;
	return err;
}

void sfab_accel_cdev_unregister(struct sfab_accel *accel)
{
	if (accel->misc_registered)
		misc_deregister(&accel->misc);
	accel->misc_registered = false;
}
