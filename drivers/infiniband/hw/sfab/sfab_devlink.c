// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab: the PCI function's devlink instance (Documentation/sfab/devlink.rst).
 *
 * - info: driver, serial number (the node GUID), board id, the running
 *   firmware version and the stored one (the image the next load
 *   activates);
 * - flash: an image validated exactly as at probe (sfab_fw_validate())
 *   and kept by the driver for the next load: the device has no flash of
 *   its own, the host downloads its firmware at every load;
 * - reload: driver_reinit and fw_activate, both an unload, a function
 *   level reset and a load of the stored image;
 * - the fw_fatal health reporter: a lost device is reported, dumped
 *   (what the registers said) and recovered (sfab_pf_recover()).
 */

#include <linux/firmware.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include <net/devlink.h>

#include <sfab/sfab_fw.h>

#include "sfab.h"

/* a second loss within this of a recovery waits for devlink health recover */
#define SFAB_FW_FATAL_GRACE_MS	60000

/* ---- info ---------------------------------------------------------------- */

/* the stored image's header: flashed, else the firmware loader's */
static int sfab_stored_version(struct sfab_pf *pf, char *ver, size_t len)
{
	const struct sfab_fw_header *h;
	const struct firmware *fw;
	int err = 0;

	if (pf->flash) {
		h = pf->flash;
		strscpy(ver, h->fw_version, len);
		return 0;
	}
	if (firmware_request_nowarn(&fw, SFAB_FW_NAME, &pf->pdev->dev))
		return -ENOENT;
	if (sfab_fw_validate(fw->data, fw->size) == SFAB_AQ_STS_OK) {
		h = (const struct sfab_fw_header *)fw->data;
		strscpy(ver, h->fw_version, len);
	} else {
		err = -EINVAL;
	}
	release_firmware(fw);
	return err;
}

static int sfab_devlink_info_get(struct devlink *devlink,
				 struct devlink_info_req *req,
				 struct netlink_ext_ack *extack)
{
	struct sfab_pf *pf = devlink_priv(devlink);
	struct sfab_dev *dev = pf->dev;
	char buf[SFAB_FW_VERSION_LEN];
	int err;

	if (dev) {
		snprintf(buf, sizeof(buf), "%016llx",
			 be64_to_cpu((__force __be64)dev->attr.node_guid));
		err = devlink_info_serial_number_put(req, buf);
		if (err)
			return err;
		err = devlink_info_version_fixed_put(req,
						     DEVLINK_INFO_VERSION_GENERIC_BOARD_ID,
						     dev->attr.board_id);
		if (err)
			return err;
		err = devlink_info_version_running_put(req,
						       DEVLINK_INFO_VERSION_GENERIC_FW,
						       dev->attr.fw_version);
		if (err)
			return err;
	}
	/* a stored image the loader cannot find or that is invalid: none */
	if (!sfab_stored_version(pf, buf, sizeof(buf)))
		return devlink_info_version_stored_put(req,
						       DEVLINK_INFO_VERSION_GENERIC_FW,
						       buf);
	return 0;
}

/* ---- flash and reload ------------------------------------------------------ */

static int sfab_devlink_flash_update(struct devlink *devlink,
				     struct devlink_flash_update_params *params,
				     struct netlink_ext_ack *extack)
{
	struct sfab_pf *pf = devlink_priv(devlink);
	const struct firmware *fw = params->fw;
	const struct sfab_fw_header *h;
	void *image;
	int st;

	devlink_flash_update_status_notify(devlink, "Validating image", NULL,
					   0, 0);
	st = sfab_fw_validate(fw->data, fw->size);
	if (st != SFAB_AQ_STS_OK) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "image rejected: %s",
				       sfab_aq_status_str(st));
		dev_err(&pf->pdev->dev, "devlink flash: image rejected: %s\n",
			sfab_aq_status_str(st));
		return -EINVAL;
	}
	image = kvmemdup(fw->data, fw->size, GFP_KERNEL);
	if (!image)
		return -ENOMEM;
	kvfree(pf->flash);
	pf->flash = image;
	pf->flash_len = fw->size;
	h = image;
	devlink_flash_update_status_notify(devlink, "Image stored", NULL, 0, 0);
	dev_info(&pf->pdev->dev,
		 "devlink flash: firmware %s stored; devlink dev reload activates it\n",
		 h->fw_version);
	return 0;
}

static int sfab_devlink_reload_down(struct devlink *devlink, bool netns_change,
				    enum devlink_reload_action action,
				    enum devlink_reload_limit limit,
				    struct netlink_ext_ack *extack)
{
	struct sfab_pf *pf = devlink_priv(devlink);

	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack, "sfab does not move between network namespaces");
		return -EOPNOTSUPP;
	}
	sfab_pf_unload(pf);
	return 0;
}

/* every load activates the stored image: both actions are both */
static int sfab_devlink_reload_up(struct devlink *devlink,
				  enum devlink_reload_action action,
				  enum devlink_reload_limit limit,
				  u32 *actions_performed,
				  struct netlink_ext_ack *extack)
{
	struct sfab_pf *pf = devlink_priv(devlink);
	int err;

	err = sfab_pf_reset(pf);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "function level reset failed");
		return err;
	}
	err = sfab_pf_load(pf, extack);
	if (err)
		return err;
	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT) |
			     BIT(DEVLINK_RELOAD_ACTION_FW_ACTIVATE);
	return 0;
}

const struct devlink_ops sfab_devlink_ops = {
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT) |
			  BIT(DEVLINK_RELOAD_ACTION_FW_ACTIVATE),
	.reload_down = sfab_devlink_reload_down,
	.reload_up = sfab_devlink_reload_up,
	.info_get = sfab_devlink_info_get,
	.flash_update = sfab_devlink_flash_update,
};

/* ---- the fw_fatal health reporter ------------------------------------------ */

static int sfab_fw_fatal_recover(struct devlink_health_reporter *reporter,
				 void *priv_ctx, struct netlink_ext_ack *extack)
{
	return sfab_pf_recover(devlink_health_reporter_priv(reporter), extack);
}

static void sfab_fmsg_loss(struct devlink_fmsg *fmsg, const struct sfab_loss *l)
{
	devlink_fmsg_string_pair_put(fmsg, "reason", l->why);
	devlink_fmsg_u32_pair_put(fmsg, "reason_arg", l->arg);
	devlink_fmsg_u32_pair_put(fmsg, "dev_sts", l->dev_sts);
	devlink_fmsg_u32_pair_put(fmsg, "err_info", l->err_info);
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat", l->heartbeat);
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat_misses", l->hb_misses);
	devlink_fmsg_u64_pair_put(fmsg, "time", l->when);
}

/* what the driver saw as it lost the device (sfab_device_lost()) */
static int sfab_fw_fatal_dump(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg, void *priv_ctx,
			      struct netlink_ext_ack *extack)
{
	struct sfab_pf *pf = devlink_health_reporter_priv(reporter);
	struct sfab_loss l;

	spin_lock_irq(&pf->loss_lock);
	l = pf->loss;
	spin_unlock_irq(&pf->loss_lock);
	if (!l.when) {
		NL_SET_ERR_MSG_MOD(extack, "the device has not been lost");
		return -ENODATA;
	}
	sfab_fmsg_loss(fmsg, &l);
	return 0;
}

/* the device now: running, lost or down, and its health registers */
static int sfab_fw_fatal_diagnose(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg,
				  struct netlink_ext_ack *extack)
{
	struct sfab_pf *pf = devlink_health_reporter_priv(reporter);
	struct sfab_dev *dev = pf->dev;
	void __iomem *regs;

	if (!dev) {
		devlink_fmsg_string_pair_put(fmsg, "state", "down");
		return 0;
	}
	regs = dev->edev.regs;
	devlink_fmsg_string_pair_put(fmsg, "state",
				     test_bit(0, &dev->lost) ? "lost" : "running");
	devlink_fmsg_string_pair_put(fmsg, "fw_version", dev->attr.fw_version);
	devlink_fmsg_u32_pair_put(fmsg, "dev_sts",
				  readl(regs + SFAB_REG_DEV_STS));
	devlink_fmsg_u32_pair_put(fmsg, "err_info",
				  readl(regs + SFAB_REG_ERR_INFO));
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat",
				  readl(regs + SFAB_REG_HEARTBEAT));
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat_misses", dev->hb_misses);
	return 0;
}

static const struct devlink_health_reporter_ops sfab_fw_fatal_ops = {
	.name = "fw_fatal",
	.recover = sfab_fw_fatal_recover,
	.dump = sfab_fw_fatal_dump,
	.diagnose = sfab_fw_fatal_diagnose,
};

int sfab_fw_fatal_create(struct sfab_pf *pf)
{
	struct devlink_health_reporter *r;

	r = devl_health_reporter_create(priv_to_devlink(pf), &sfab_fw_fatal_ops,
					SFAB_FW_FATAL_GRACE_MS, pf);
	if (IS_ERR(r)) {
		dev_err(&pf->pdev->dev, "cannot create the fw_fatal health reporter: %ld\n",
			PTR_ERR(r));
		return PTR_ERR(r);
	}
	pf->fw_fatal = r;
	return 0;
}

void sfab_fw_fatal_destroy(struct sfab_pf *pf)
{
	devl_health_reporter_destroy(pf->fw_fatal);
	pf->fw_fatal = NULL;
}

/*
 * A device was lost (sfab_device_lost()): tell devlink health, which
 * dumps and recovers it.  A second loss soon after a recovery (the
 * reporter's grace period) or one while the last is not recovered is
 * only counted: a device that keeps dying waits for a person.
 */
void sfab_lost_work(struct work_struct *work)
{
	struct sfab_pf *pf = container_of(work, struct sfab_pf, lost_work);
	char msg[64];
	int err;

	spin_lock_irq(&pf->loss_lock);
	snprintf(msg, sizeof(msg), "device lost: %s", pf->loss.why);
	spin_unlock_irq(&pf->loss_lock);
	err = devlink_health_report(pf->fw_fatal, msg, NULL);
	if (err == -ECANCELED)
		dev_warn(&pf->pdev->dev,
			 "recovery: not now (lost again within the grace period, or not recovered yet): devlink health recover pci/%s reporter fw_fatal\n",
			 pci_name(pf->pdev));
}
