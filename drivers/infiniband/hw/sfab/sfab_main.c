// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab: PCI driver for the sfab InfiniBand-class HCA.
 *
 * Probe has two halves, each with one inverse (the shape of efa's):
 * sfab_probe_device() brings the function up in the order the hardware
 * contract needs (include/sfab/): identity, reset, MSI-X, admin queue,
 * async event queue, firmware download and activation, INIT_HCA,
 * completion event queues; sfab_ib_device_add() finds out the optional
 * features and registers the ib_device.  remove() calls their inverses,
 * sfab_ib_device_remove() and sfab_remove_device(); a probe that fails in
 * its second half calls the same sfab_remove_device().
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/firmware.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <net/devlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/sfab-abi.h>

#include <sfab/sfab_fw.h>

#include "sfab.h"
#include "sfab_com_cmd.h"

#define SFAB_BARS_MASK	(BIT(SFAB_BAR_REGS) | BIT(SFAB_BAR_DB))

static const struct pci_device_id sfab_pci_tbl[] = {
	{ PCI_DEVICE(SFAB_PCI_VENDOR_ID, SFAB_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, sfab_pci_tbl);

/* ---- async events ------------------------------------------------------ */

/* port state and attribute changes: reported from the port work */
static void sfab_aenq_port(void *data, const struct sfab_com_event *ev)
{
	struct sfab_dev *dev = data;
	u32 port = ev->data0;

	if (port != SFAB_PORT_NUM) {
		dev_warn_ratelimited(&dev->pdev->dev,
				     "event %u for unknown port %u\n",
				     ev->type, port);
		return;
	}
	sfab_port_event_queue(dev, ev->type, ev->data1);
}

static const char *sfab_err_str(u32 err)
{
	switch (err) {
	case SFAB_ERR_NONE:		return "none";
	case SFAB_ERR_AQ_CONFIG:	return "admin queue configuration";
	case SFAB_ERR_AQ_DMA:		return "admin queue DMA";
	case SFAB_ERR_AQ_OVERRUN:	return "admin queue overrun";
	case SFAB_ERR_AENQ_DMA:		return "async event queue DMA";
	case SFAB_ERR_AENQ_CONFIG:	return "async event queue configuration";
	case SFAB_ERR_INJECTED:		return "injected";
	default:			return "unknown";
	}
}

struct workqueue_struct *sfab_wq;

/* what the registers say as the device is lost, for the fw_fatal dump */
static void sfab_loss_record(struct sfab_dev *dev, const char *why, u32 arg)
{
	struct sfab_pf *pf = dev->pf;
	void __iomem *regs = dev->edev.regs;
	unsigned long flags;

	spin_lock_irqsave(&pf->loss_lock, flags);
	strscpy(pf->loss.why, why, sizeof(pf->loss.why));
	pf->loss.arg = arg;
	pf->loss.dev_sts = readl(regs + SFAB_REG_DEV_STS);
	pf->loss.err_info = readl(regs + SFAB_REG_ERR_INFO);
	pf->loss.heartbeat = readl(regs + SFAB_REG_HEARTBEAT);
	pf->loss.hb_misses = dev->hb_misses;
	pf->loss.when = ktime_get_real_seconds();
	spin_unlock_irqrestore(&pf->loss_lock, flags);
}

/*
 * The device is lost: no admin command is sent to it any more and the
 * consumers learn it (IB_EVENT_DEVICE_FATAL); then the fw_fatal health
 * reporter hears of it (sfab_lost_work()), which dumps what was seen and,
 * unless its auto_recover is off, recovers the device
 * (sfab_pf_recover()).  Once, whoever finds out first: the AENQ's fatal
 * event, the health poll, an admin command's timeout, a function reset.
 * Not reported while probe or remove hold the device.  Any context.
 */
static void sfab_device_lost(struct sfab_dev *dev, const char *why, u32 arg)
{
	struct sfab_pf *pf = dev->pf;

	if (test_and_set_bit(0, &dev->lost))
		return;
	dev_err(&dev->pdev->dev, "device lost: %s (%u)\n", why, arg);
	sfab_com_kill(&dev->edev);
	sfab_status_lost(dev);
	sfab_loss_record(dev, why, arg);
	sfab_dispatch_event(dev, IB_EVENT_DEVICE_FATAL, 0);
	if (READ_ONCE(dev->ib_registered) && !READ_ONCE(pf->removing))
		queue_work(sfab_wq, &pf->lost_work);
}

static void sfab_com_lost(struct sfab_com_dev *edev, const char *why)
{
	sfab_device_lost(container_of(edev, struct sfab_dev, edev), why, 0);
}

static void sfab_aenq_fatal(void *data, const struct sfab_com_event *ev)
{
	struct sfab_dev *dev = data;

	sfab_device_lost(dev, sfab_err_str(ev->data0), ev->data0);
}

/*
 * The health poll: DEV_STS and the heartbeat (SFAB_CAP_HEARTBEAT) every
 * SFAB_HEALTH_POLL_MS.  A fatal device whose event did not come (its
 * AENQ may be what failed), a BAR that reads all ones, or a heartbeat
 * that stood still for SFAB_HEALTH_MISSES polls: the device is lost.
 */
#define SFAB_HEALTH_POLL_MS	1000
#define SFAB_HEALTH_MISSES	5

static void sfab_health_work(struct work_struct *work)
{
	struct sfab_dev *dev = container_of(to_delayed_work(work),
					    struct sfab_dev, health_work);
	u32 sts = readl(dev->edev.regs + SFAB_REG_DEV_STS);
	u32 hb;

	if (test_bit(0, &dev->lost))
		return;
	if (sts == U32_MAX) {
		sfab_device_lost(dev, "BAR0 reads all ones", sts);
		return;
	}
	if (sts & SFAB_DEV_STS_FATAL) {
		sfab_device_lost(dev, "fatal without its event, error",
				 readl(dev->edev.regs + SFAB_REG_ERR_INFO));
		return;
	}
	if (dev->caps & SFAB_CAP_HEARTBEAT) {
		hb = readl(dev->edev.regs + SFAB_REG_HEARTBEAT);
		dev->hb_misses = hb == dev->hb_last ? dev->hb_misses + 1 : 0;
		dev->hb_last = hb;
		if (dev->hb_misses >= SFAB_HEALTH_MISSES) {
			sfab_device_lost(dev, "no heartbeat, polls",
					 dev->hb_misses);
			return;
		}
	}
	schedule_delayed_work(&dev->health_work,
			      msecs_to_jiffies(SFAB_HEALTH_POLL_MS));
}

static void sfab_health_start(struct sfab_dev *dev)
{
	dev->hb_last = readl(dev->edev.regs + SFAB_REG_HEARTBEAT);
	dev->hb_misses = 0;
	schedule_delayed_work(&dev->health_work,
			      msecs_to_jiffies(SFAB_HEALTH_POLL_MS));
}

static const char *sfab_fw_state_str(u32 state)
{
	switch (state) {
	case SFAB_FW_STATE_NONE:	return "none";
	case SFAB_FW_STATE_LOADING:	return "loading";
	case SFAB_FW_STATE_ACTIVE:	return "active";
	case SFAB_FW_STATE_FAILED:	return "failed";
	default:			return "unknown";
	}
}

static void sfab_aenq_fw_state(void *data, const struct sfab_com_event *ev)
{
	struct sfab_dev *dev = data;
	u32 state = ev->data0;

	/*
	 * During probe the driver drives the firmware state itself and
	 * reports its failures; afterwards a change is news.
	 */
	if (READ_ONCE(dev->ib_registered))
		dev_info(&dev->pdev->dev, "firmware state is now %s (%u)\n",
			 sfab_fw_state_str(state), state);
	else
		dev_dbg(&dev->pdev->dev, "firmware state %s (%u)\n",
			sfab_fw_state_str(state), state);
}

static void sfab_aenq_keep_alive(void *data, const struct sfab_com_event *ev)
{
	/* nothing to do: keep-alives only show the device is there */
}

/* CQ, QP and SRQ events: straight to their consumers (sfab_datapath.c) */
static void sfab_aenq_cq(void *data, const struct sfab_com_event *ev)
{
	sfab_cq_error(data, ev->data0);
}

static void sfab_aenq_qp(void *data, const struct sfab_com_event *ev)
{
	sfab_qp_event(data, ev->data0, ev->data1);
}

static void sfab_aenq_srq(void *data, const struct sfab_com_event *ev)
{
	sfab_srq_event(data, ev->data0, ev->data1);
}

static void sfab_aenq_unknown(void *data, const struct sfab_com_event *ev)
{
	struct sfab_dev *dev = data;

	if (!test_and_set_bit(ev->type, dev->aenq_unknown_seen))
		dev_warn(&dev->pdev->dev,
			 "unknown async event type %#x ignored\n", ev->type);
}

static const struct sfab_aenq_handlers sfab_aenq_handlers = {
	.handler = {
		[SFAB_AENQ_PORT_CHANGE] = sfab_aenq_port,
		[SFAB_AENQ_LID_CHANGE] = sfab_aenq_port,
		[SFAB_AENQ_PKEY_CHANGE] = sfab_aenq_port,
		[SFAB_AENQ_SM_CHANGE] = sfab_aenq_port,
		[SFAB_AENQ_CLIENT_REREG] = sfab_aenq_port,
		[SFAB_AENQ_FW_STATE] = sfab_aenq_fw_state,
		[SFAB_AENQ_FATAL] = sfab_aenq_fatal,
		[SFAB_AENQ_KEEP_ALIVE] = sfab_aenq_keep_alive,
		[SFAB_AENQ_CQ_ERROR] = sfab_aenq_cq,
		[SFAB_AENQ_QP_EVENT] = sfab_aenq_qp,
		[SFAB_AENQ_SRQ_EVENT] = sfab_aenq_srq,
	},
	.unknown = sfab_aenq_unknown,
};

/* ---- interrupts --------------------------------------------------------- */

static irqreturn_t sfab_admin_intr(int irq, void *data)
{
	struct sfab_dev *dev = data;

	sfab_com_admin_intr(&dev->edev);
	return IRQ_HANDLED;
}

static irqreturn_t sfab_aenq_intr(int irq, void *data)
{
	struct sfab_dev *dev = data;

	sfab_com_aenq_intr(&dev->edev);
	return IRQ_HANDLED;
}

static irqreturn_t sfab_eq_intr(int irq, void *data)
{
	sfab_eq_process(data);
	return IRQ_HANDLED;
}

static int sfab_request_irq(struct sfab_dev *dev, unsigned int vector,
			    irq_handler_t handler, char *name, void *data)
{
	struct pci_dev *pdev = dev->pdev;
	int err;

	err = request_irq(pci_irq_vector(pdev, vector), handler, 0, name, data);
	if (err)
		dev_err(&pdev->dev, "cannot request interrupt %s: %d\n",
			name, err);
	return err;
}

static void sfab_free_irq(struct sfab_dev *dev, unsigned int vector,
			  void *data)
{
	free_irq(pci_irq_vector(dev->pdev, vector), data);
}

static int sfab_enable_msix(struct sfab_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	unsigned int dev_vecs, want;
	int n;

	dev_vecs = FIELD_GET(SFAB_MSIX_CFG_NVEC_MASK,
			     readl(dev->edev.regs + SFAB_REG_MSIX_CFG));
	want = SFAB_MSIX_FIRST_COMP +
	       min(num_online_cpus(), SFAB_MSIX_MAX_VECTORS - SFAB_MSIX_FIRST_COMP);
	want = min(want, dev_vecs);
	if (want < SFAB_MSIX_FIRST_COMP + 1) {
		dev_err(&pdev->dev, "device offers %u MSI-X vectors, need %u\n",
			dev_vecs, SFAB_MSIX_FIRST_COMP + 1);
		return -ENODEV;
	}

	n = pci_alloc_irq_vectors(pdev, SFAB_MSIX_FIRST_COMP + 1, want,
				  PCI_IRQ_MSIX);
	if (n < 0) {
		dev_err(&pdev->dev, "cannot enable %u MSI-X vectors: %d\n",
			want, n);
		return n;
	}
	dev->num_vectors = n;

	snprintf(dev->admin_irq_name, sizeof(dev->admin_irq_name),
		 "sfab-admin@pci:%s", pci_name(pdev));
	snprintf(dev->aenq_irq_name, sizeof(dev->aenq_irq_name),
		 "sfab-aenq@pci:%s", pci_name(pdev));
	return 0;
}

/* ---- device identity and layout ------------------------------------------ */

static int sfab_check_identity(struct sfab_dev *dev)
{
	const u32 need = SFAB_CAP_MSIX | SFAB_CAP_AENQ | SFAB_CAP_FW_DOWNLOAD;
	struct device *d = &dev->pdev->dev;
	void __iomem *regs = dev->edev.regs;
	u32 id, ver, major, minor;

	id = readl(regs + SFAB_REG_ID);
	if (id != SFAB_ID_MAGIC) {
		dev_err(d, "BAR0 identity %#010x is not an sfab HCA's (%#010x)\n",
			id, SFAB_ID_MAGIC);
		return -ENODEV;
	}

	ver = readl(regs + SFAB_REG_VERSION);
	major = FIELD_GET(SFAB_VERSION_MAJOR_MASK, ver);
	minor = FIELD_GET(SFAB_VERSION_MINOR_MASK, ver);
	if (major != SFAB_IF_VERSION_MAJOR) {
		dev_err(d, "interface version %u.%u unsupported, this driver supports %u.x\n",
			major, minor, SFAB_IF_VERSION_MAJOR);
		return -ENODEV;
	}

	dev->caps = readl(regs + SFAB_REG_CAPS);
	if ((dev->caps & need) != need) {
		dev_err(d, "device capabilities %#x lack %#x\n",
			dev->caps, need & ~dev->caps);
		return -ENODEV;
	}
	return 0;
}

static int sfab_init_db_layout(struct sfab_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	resource_size_t len = pci_resource_len(pdev, SFAB_BAR_DB);
	u32 layout = readl(dev->edev.regs + SFAB_REG_DB_LAYOUT);
	unsigned int shift = FIELD_GET(SFAB_DB_LAYOUT_PAGE_SHIFT_MASK, layout);
	u32 kpages = FIELD_GET(SFAB_DB_LAYOUT_KPAGES_MASK, layout);
	u32 npages = FIELD_GET(SFAB_DB_LAYOUT_NPAGES_MASK, layout);

	/* each user context maps whole CPU pages of its own */
	if (shift < PAGE_SHIFT || shift > 30 || kpages < SFAB_DB_KERNEL_PAGES ||
	    npages <= kpages || ((resource_size_t)npages << shift) > len) {
		dev_err(&pdev->dev,
			"unusable doorbell layout %#x for a %llu-byte BAR%d\n",
			layout, (unsigned long long)len, SFAB_BAR_DB);
		return -ENODEV;
	}

	dev->db_bar_addr = pci_resource_start(pdev, SFAB_BAR_DB);
	dev->db_page_shift = shift;
	dev->db_first_user = kpages;
	dev->db_num_pages = npages;
	return 0;
}

/* ---- firmware and device attributes -------------------------------------- */

static int sfab_download_firmware(struct sfab_dev *dev, const u8 *data,
				  size_t size, const char *name)
{
	struct device *d = &dev->pdev->dev;
	size_t chunk = min_t(size_t, size, SFAB_FW_MAX_CHUNK);
	dma_addr_t dma;
	u8 status = 0;
	u32 off, len;
	void *buf;
	int err = 0;

	buf = dma_alloc_coherent(d, chunk, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	/* each chunk completes before the buffer is refilled */
	for (off = 0; off < size; off += len) {
		len = min_t(size_t, size - off, chunk);
		memcpy(buf, data + off, len);
		err = sfab_com_fw_download(&dev->edev, dma, off, len, &status);
		if (err)
			break;
	}
	if (err && status)
		dev_err(d, "firmware %s refused at offset %u: %s\n", name, off,
			sfab_aq_status_str(status));
	else if (err)
		dev_err(d, "firmware %s download stopped at offset %u: %d\n",
			name, off, err);

	dma_free_coherent(d, chunk, buf, dma);
	return err;
}

/* validate, download and activate one image; @name says which */
static int sfab_activate_image(struct sfab_dev *dev, const u8 *data,
			       size_t size, const char *name)
{
	struct device *d = &dev->pdev->dev;
	u8 status;
	int err;
	int st;

	st = sfab_fw_validate(data, size);
	if (st != SFAB_AQ_STS_OK) {
		dev_err(d, "firmware %s rejected: %s\n", name,
			sfab_aq_status_str(st));
		return -EINVAL;
	}

	err = sfab_download_firmware(dev, data, size, name);
	if (err)
		return err;

	err = sfab_com_fw_activate(&dev->edev, size, &status);
	if (err && status) {
		dev_err(d, "firmware %s rejected by the device: %s\n", name,
			sfab_aq_status_str(status));
		err = -EINVAL;
	} else if (err) {
		dev_err(d, "firmware %s not activated: %d\n", name, err);
	}
	return err;
}

/*
 * The image devlink dev flash stored, if any (devl lock held by the
 * caller of sfab_pf_load()), else SFAB_FW_NAME from the firmware loader.
 */
static int sfab_load_firmware(struct sfab_dev *dev)
{
	struct device *d = &dev->pdev->dev;
	const struct firmware *fw;
	int err;

	if (dev->pf->flash)
		return sfab_activate_image(dev, dev->pf->flash,
					   dev->pf->flash_len, "(flashed)");

	/* the loader stays quiet: the one message names the image */
	err = firmware_request_nowarn(&fw, SFAB_FW_NAME, d);
	if (err) {
		dev_err(d, "firmware %s not loaded: %d\n", SFAB_FW_NAME, err);
		return err;
	}
	err = sfab_activate_image(dev, fw->data, fw->size, SFAB_FW_NAME);
	release_firmware(fw);
	return err;
}

static int sfab_query_device_attr(struct sfab_dev *dev)
{
	struct sfab_com_dev_attr *attr = &dev->attr;
	struct device *d = &dev->pdev->dev;
	int err;

	err = sfab_com_query_device(&dev->edev, attr);
	if (err) {
		dev_err(d, "cannot query the device: %d\n", err);
		return err;
	}

	dev->fw_ver = sfab_fw_ver_parse(attr->fw_version);

	if (attr->num_ports < SFAB_PORT_NUM) {
		dev_err(d, "device reports %u ports\n", attr->num_ports);
		return -ENODEV;
	}

	if (attr->num_db_pages && attr->num_db_pages < dev->db_num_pages)
		dev->db_num_pages = attr->num_db_pages;
	if (dev->db_num_pages <= dev->db_first_user) {
		dev_err(d, "device reports %u doorbell pages, %u are the kernel's\n",
			dev->db_num_pages, dev->db_first_user);
		return -ENODEV;
	}
	return 0;
}

static int sfab_check_port(struct sfab_dev *dev)
{
	struct sfab_com_port_attr pattr;
	int err;

	err = sfab_com_query_port(&dev->edev, SFAB_PORT_NUM, &pattr);
	if (err) {
		dev_err(&dev->pdev->dev, "cannot query port %u: %d\n",
			SFAB_PORT_NUM, err);
		return err;
	}
	/* the port work takes over once the ib_device is registered */
	dev->port_attr = pattr;
	dev->port_state = pattr.state;
	return 0;
}

/* ---- completion event queues ---------------------------------------------- */

static int sfab_create_eq(struct sfab_dev *dev, struct sfab_eq *eq,
			  u16 vector)
{
	struct device *d = &dev->pdev->dev;
	int err;

	eq->dev = dev;
	eq->vector = vector;
	eq->cc = 0;
	eq->ring = dma_alloc_coherent(d, SFAB_EQ_DEPTH * sizeof(*eq->ring),
				      &eq->dma, GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;

	snprintf(eq->irq_name, sizeof(eq->irq_name), "sfab-comp%u@pci:%s",
		 vector - SFAB_MSIX_FIRST_COMP, pci_name(dev->pdev));
	err = sfab_request_irq(dev, vector, sfab_eq_intr, eq->irq_name, eq);
	if (err)
		goto err_free_ring;

	err = sfab_com_create_eq(&dev->edev, eq->dma, SFAB_EQ_LOG_DEPTH, vector,
				 &eq->eqn);
	if (err) {
		dev_err(d, "cannot create the event queue for vector %u: %d\n",
			vector, err);
		goto err_free_irq;
	}
	return 0;

err_free_irq:
	sfab_free_irq(dev, vector, eq);
err_free_ring:
	/* the device refused the EQ, never saw it, or has been reset */
	dma_free_coherent(d, SFAB_EQ_DEPTH * sizeof(*eq->ring), eq->ring,
			  eq->dma);
	return err;
}

static void sfab_destroy_eq(struct sfab_dev *dev, struct sfab_eq *eq)
{
	/* a ring the device may still write must not be freed: stop it */
	if (sfab_com_destroy_eq(&dev->edev, eq->eqn))
		sfab_com_quiesce(&dev->edev);
	sfab_free_irq(dev, eq->vector, eq);
	dma_free_coherent(&dev->pdev->dev, SFAB_EQ_DEPTH * sizeof(*eq->ring),
			  eq->ring, eq->dma);
}

static int sfab_create_eqs(struct sfab_dev *dev)
{
	u32 max_eq = dev->attr.max_eq;
	unsigned int i;
	int err;

	dev->num_eqs = min_t(u32, dev->num_vectors - SFAB_MSIX_FIRST_COMP,
			     max_eq);
	if (!dev->num_eqs) {
		dev_err(&dev->pdev->dev, "device offers no event queues\n");
		return -ENODEV;
	}
	dev->eqs = kcalloc(dev->num_eqs, sizeof(*dev->eqs), GFP_KERNEL);
	if (!dev->eqs)
		return -ENOMEM;

	for (i = 0; i < dev->num_eqs; i++) {
		err = sfab_create_eq(dev, &dev->eqs[i], SFAB_MSIX_FIRST_COMP + i);
		if (err)
			goto err_destroy;
	}
	return 0;

err_destroy:
	while (i--)
		sfab_destroy_eq(dev, &dev->eqs[i]);
	kfree(dev->eqs);
	dev->eqs = NULL;
	return err;
}

static void sfab_destroy_eqs(struct sfab_dev *dev)
{
	unsigned int i = dev->num_eqs;

	while (i--)
		sfab_destroy_eq(dev, &dev->eqs[i]);
	kfree(dev->eqs);
	dev->eqs = NULL;
}

/* ---- ib_device ----------------------------------------------------------- */

/*
 * The ops every sfab has; each optional feature set adds its own table
 * (sfab_ib_device_add()), so that no op is there only to refuse.  The
 * CQ, QP and kernel verbs (sfab_datapath_dev_ops) come only when the
 * device runs queues (SFAB_DEV_CAP_QUEUES): without them ib_core does
 * not take sfab for a kernel verbs provider and its MAD, CM and SA
 * clients do not try to open QPs on it (6.12's
 * ib_device_check_mandatory() decides kverbs_provider with them), and
 * uverbs answers the CQ and QP commands with -EOPNOTSUPP itself.
 */
static const struct ib_device_ops sfab_dev_ops = {
	.owner = THIS_MODULE,
	/*
	 * The provider matches the device by PCI id; an in-tree submission
	 * adds RDMA_DRIVER_SFAB to enum rdma_driver_id and uses it here.
	 */
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SFAB_UVERBS_ABI_VERSION,
	.device_group = &sfab_attr_group,

	.alloc_pd = sfab_alloc_pd,
	.alloc_ucontext = sfab_alloc_ucontext,
	.dealloc_pd = sfab_dealloc_pd,
	.dealloc_ucontext = sfab_dealloc_ucontext,
	.dereg_mr = sfab_dereg_mr,
	.disassociate_ucontext = sfab_disassociate_ucontext,
	.get_dev_fw_str = sfab_get_dev_fw_str,
	.get_link_layer = sfab_get_link_layer,
	.get_port_immutable = sfab_get_port_immutable,
	.mmap = sfab_mmap,
	.mmap_free = sfab_mmap_free,
	.query_device = sfab_query_device,
	.query_gid = sfab_query_gid,
	.query_pkey = sfab_query_pkey,
	.query_port = sfab_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, sfab_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sfab_ucontext, ibucontext),
};

/**
 * sfab_ib_device_add() - the ib_device half of probe
 * @dev: the device, sfab_probe_device() done
 *
 * Finds out what the device offers, sets the ops for it and registers the
 * ib_device.  Undone by sfab_ib_device_remove() only.
 *
 * Return: 0 or a negative errno, with nothing of this half left.
 */
static int sfab_ib_device_add(struct sfab_dev *dev)
{
	struct ib_device *ibdev = &dev->ibdev;
	struct pci_dev *pdev = dev->pdev;
	int err;

	err = sfab_check_port(dev);
	if (err)
		return err;

	err = sfab_datapath_probe(dev);
	if (err)
		return err;

	sfab_mr_probe(dev);

	/* the rest of the device works without its management agents */
	err = sfab_mad_probe(dev);
	if (err == -EOPNOTSUPP)
		dev_info(&pdev->dev, "firmware has no MAD interface: no process_mad, no hardware counters\n");
	else if (err)
		dev_warn(&pdev->dev, "the firmware's PMA does not answer (%d): no process_mad, no hardware counters\n",
			 err);
	dev->has_mad_ifc = !err;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->node_guid = dev->attr.node_guid;
	ibdev->phys_port_cnt = SFAB_FW_MAX_PORTS;
	ibdev->num_comp_vectors = dev->num_eqs;
	ibdev->dev.parent = &pdev->dev;
	strscpy(ibdev->node_desc, "sfab HCA", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &sfab_dev_ops);
	/* driver methods: the doorbell page as a dma-buf (sfab_db.c) */
	if (IS_ENABLED(CONFIG_INFINIBAND_USER_ACCESS))
		ibdev->driver_def = sfab_uapi_defs;
	if (dev->has_mad_ifc)
		ib_set_device_ops(ibdev, &sfab_mad_dev_ops);
	if (dev->has_datapath) {
		ibdev->local_dma_lkey = dev->attr.local_dma_lkey;
		ib_set_device_ops(ibdev, &sfab_datapath_dev_ops);
		/* opensm sets IsSM; it needs QP0, so both */
		if (dev->has_mad_ifc)
			ib_set_device_ops(ibdev, &sfab_port_dev_ops);
		if (dev->has_srq)
			ib_set_device_ops(ibdev, &sfab_srq_dev_ops);
		if (dev->has_mcast)
			ib_set_device_ops(ibdev, &sfab_mcast_dev_ops);
		if (dev->has_resize_cq)
			ib_set_device_ops(ibdev, &sfab_resize_cq_dev_ops);
		if (dev->has_xrc)
			ib_set_device_ops(ibdev, &sfab_xrc_dev_ops);
		if (dev->has_mr)
			ib_set_device_ops(ibdev, &sfab_fast_reg_dev_ops);
	}
	if (dev->has_mr)
		ib_set_device_ops(ibdev, &sfab_mr_dev_ops);
	if (dev->has_dmabuf_mr)
		ib_set_device_ops(ibdev, &sfab_dmabuf_mr_dev_ops);
	if (dev->has_mw)
		ib_set_device_ops(ibdev, &sfab_mw_dev_ops);

	err = ib_register_device(ibdev, "sfab_%d", &pdev->dev);
	if (err) {
		dev_err(&pdev->dev, "cannot register the ib_device: %d\n", err);
		goto err_datapath_remove;
	}

	/* an event before this point only changed what queries return */
	spin_lock_irq(&dev->event_lock);
	WRITE_ONCE(dev->ib_registered, true);
	spin_unlock_irq(&dev->event_lock);
	sfab_port_events_start(dev);
	sfab_health_start(dev);
	return 0;

err_datapath_remove:
	sfab_datapath_remove(dev);
	return err;
}

/* sfab_ib_device_add()'s inverse */
static void sfab_ib_device_remove(struct sfab_dev *dev)
{
	cancel_delayed_work_sync(&dev->health_work);
	spin_lock_irq(&dev->event_lock);
	WRITE_ONCE(dev->ib_registered, false);
	spin_unlock_irq(&dev->event_lock);
	/* the AENQ interrupt no longer queues it: wait for its last run */
	sfab_port_events_stop(dev);
	/* processes stop posting now, before ib_core gets to their contexts */
	sfab_status_lost(dev);
	/* flushes the event work ib_dispatch_event() queued */
	ib_unregister_device(&dev->ibdev);
	sfab_datapath_remove(dev);
}

/* ---- PCI driver ------------------------------------------------------------ */

/* the PCI function's resources; nothing of the device touched yet */
static int sfab_pci_init(struct sfab_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	int err;

	err = pci_enable_device_mem(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot enable the PCI function: %d\n", err);
		return err;
	}

	err = pci_request_selected_regions(pdev, SFAB_BARS_MASK, SFAB_DRV_NAME);
	if (err) {
		dev_err(&pdev->dev, "cannot claim BARs %d and %d: %d\n",
			SFAB_BAR_REGS, SFAB_BAR_DB, err);
		goto err_disable_device;
	}

	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(&pdev->dev, "no 64-bit DMA: %d\n", err);
		goto err_release_regions;
	}
	/*
	 * The device reads memory through page lists (PBLs), so a mapped
	 * segment may be of any length: ib_umem and dma-buf exporters merge
	 * as much as they like (the default, 64 KiB, is what DMA-API
	 * debugging held an exporter's 4 MiB segments against)
	 */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);

	if (pci_resource_len(pdev, SFAB_BAR_REGS) < SFAB_BAR_REGS_SIZE) {
		dev_err(&pdev->dev, "BAR%d is smaller than %u bytes\n",
			SFAB_BAR_REGS, SFAB_BAR_REGS_SIZE);
		err = -ENODEV;
		goto err_release_regions;
	}
	dev->edev.regs = pci_iomap(pdev, SFAB_BAR_REGS, SFAB_BAR_REGS_SIZE);
	dev->edev.lost = sfab_com_lost;
	if (!dev->edev.regs) {
		dev_err(&pdev->dev, "cannot map BAR%d\n", SFAB_BAR_REGS);
		err = -ENOMEM;
		goto err_release_regions;
	}
	return 0;

err_release_regions:
	pci_release_selected_regions(pdev, SFAB_BARS_MASK);
err_disable_device:
	pci_disable_device(pdev);
	return err;
}

/* sfab_pci_init()'s inverse */
static void sfab_pci_release(struct sfab_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;

	pci_iounmap(pdev, dev->edev.regs);
	pci_release_selected_regions(pdev, SFAB_BARS_MASK);
	pci_disable_device(pdev);
}

/**
 * sfab_probe_device() - the device half of probe
 * @pf: the PCI function
 *
 * Brings the HCA up to where it runs firmware and completion event
 * queues: identity, reset, MSI-X, admin queue, async event queue,
 * firmware, QUERY_DEVICE, INIT_HCA, EQs.  Undone by sfab_remove_device()
 * only.
 *
 * Return: the device, or an ERR_PTR() with nothing of this half left.
 */
static struct sfab_dev *sfab_probe_device(struct sfab_pf *pf)
{
	struct pci_dev *pdev = pf->pdev;
	struct sfab_com_dev *edev;
	struct sfab_dev *dev;
	int err;

	dev = ib_alloc_device(sfab_dev, ibdev);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->pdev = pdev;
	dev->pf = pf;
	edev = &dev->edev;
	edev->dmadev = &pdev->dev;
	mutex_init(&edev->reset_lock);
	spin_lock_init(&dev->event_lock);
	INIT_DELAYED_WORK(&dev->health_work, sfab_health_work);
	sfab_port_events_init(dev);
	ida_init(&dev->pd_ida);
	ida_init(&dev->xrcd_ida);
	xa_init(&dev->cq_xa);
	xa_init(&dev->qp_xa);
	xa_init(&dev->srq_xa);

	dev->db_pool = sfab_db_pool_create();
	if (!dev->db_pool) {
		err = -ENOMEM;
		goto err_dealloc;
	}
	err = sfab_status_alloc(dev);
	if (err)
		goto err_dealloc;

	err = sfab_pci_init(dev);
	if (err)
		goto err_dealloc;

	err = sfab_check_identity(dev);
	if (err)
		goto err_pci_release;

	err = sfab_com_dev_reset(edev);
	if (err)
		goto err_pci_release;

	/*
	 * Bus mastering only now: whatever the previous owner (or a stray
	 * write to BAR0) left running must be reset before it may DMA.
	 */
	pci_set_master(pdev);

	err = sfab_init_db_layout(dev);
	if (err)
		goto err_clear_master;

	err = sfab_enable_msix(dev);
	if (err)
		goto err_clear_master;

	err = sfab_com_admin_init(edev);
	if (err) {
		dev_err(&pdev->dev, "cannot start the admin queue: %d\n", err);
		goto err_free_vectors;
	}

	err = sfab_request_irq(dev, SFAB_MSIX_ADMIN, sfab_admin_intr,
			       dev->admin_irq_name, dev);
	if (err)
		goto err_admin_destroy;

	err = sfab_com_aenq_init(edev, &sfab_aenq_handlers, dev);
	if (err) {
		dev_err(&pdev->dev, "cannot start the async event queue: %d\n",
			err);
		goto err_free_admin_irq;
	}

	err = sfab_request_irq(dev, SFAB_MSIX_AENQ, sfab_aenq_intr,
			       dev->aenq_irq_name, dev);
	if (err)
		goto err_aenq_destroy;

	/* every vector may signal; unrequested ones stay masked in MSI-X */
	writel(0, edev->regs + SFAB_REG_INTR_MASK);

	err = sfab_load_firmware(dev);
	if (err)
		goto err_quiesce;

	err = sfab_query_device_attr(dev);
	if (err)
		goto err_quiesce;

	err = sfab_com_init_hca(edev, PAGE_SHIFT);
	if (err) {
		dev_err(&pdev->dev, "INIT_HCA did not complete: %d\n", err);
		goto err_quiesce;
	}

	err = sfab_create_eqs(dev);
	if (err)
		goto err_teardown_hca;
	return dev;

err_teardown_hca:
	sfab_com_teardown_hca(edev);
err_quiesce:
	/* stop all DMA before the rings below are freed; not a loss */
	set_bit(0, &dev->lost);
	sfab_com_quiesce(edev);
	sfab_free_irq(dev, SFAB_MSIX_AENQ, dev);
err_aenq_destroy:
	sfab_com_aenq_destroy(edev);
err_free_admin_irq:
	sfab_free_irq(dev, SFAB_MSIX_ADMIN, dev);
err_admin_destroy:
	sfab_com_admin_destroy(edev);
err_free_vectors:
	pci_free_irq_vectors(pdev);
err_clear_master:
	pci_clear_master(pdev);
err_pci_release:
	sfab_pci_release(dev);
err_dealloc:
	ida_destroy(&dev->pd_ida);
	ida_destroy(&dev->xrcd_ida);
	/* pages still exported to peer devices keep the pool */
	sfab_db_pool_put(dev->db_pool);
	sfab_status_put(dev);
	ib_dealloc_device(&dev->ibdev);
	return ERR_PTR(err);
}

/* sfab_probe_device()'s inverse: for remove and for a failed probe */
static void sfab_remove_device(struct sfab_dev *dev)
{
	struct sfab_com_dev *edev = &dev->edev;
	struct pci_dev *pdev = dev->pdev;

	sfab_destroy_eqs(dev);
	sfab_com_teardown_hca(edev);
	/* stop all DMA before the rings below are freed; not a loss */
	set_bit(0, &dev->lost);
	sfab_com_quiesce(edev);
	sfab_free_irq(dev, SFAB_MSIX_AENQ, dev);
	sfab_com_aenq_destroy(edev);
	sfab_free_irq(dev, SFAB_MSIX_ADMIN, dev);
	sfab_com_admin_destroy(edev);
	pci_free_irq_vectors(pdev);
	pci_clear_master(pdev);
	sfab_pci_release(dev);
	ida_destroy(&dev->pd_ida);
	ida_destroy(&dev->xrcd_ida);
	/* pages still exported to peer devices keep the pool */
	sfab_db_pool_put(dev->db_pool);
	sfab_status_put(dev);
	ib_dealloc_device(&dev->ibdev);
}

/**
 * sfab_pf_load() - bring the function's device up and register sfab_0
 * @pf: the PCI function, with no device
 * @extack: where to say why not, or NULL
 *
 * Probe, a devlink reload and a recovery: sfab_probe_device() and
 * sfab_ib_device_add().  The devlink instance lock is held.
 *
 * Return: 0 or a negative errno, with nothing left.
 */
int sfab_pf_load(struct sfab_pf *pf, struct netlink_ext_ack *extack)
{
	struct pci_dev *pdev = pf->pdev;
	struct sfab_dev *dev;
	int err;

	dev = sfab_probe_device(pf);
	if (IS_ERR(dev)) {
		NL_SET_ERR_MSG_MOD(extack, "the device did not come up (kernel log)");
		return PTR_ERR(dev);
	}

	err = sfab_ib_device_add(dev);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "sfab_0 was not registered (kernel log)");
		sfab_remove_device(dev);
		return err;
	}
	pf->dev = dev;

	dev_info(&pdev->dev, "%s: firmware %s, board %s, completion vectors: %u%s%s%s%s%s%s\n",
		 dev_name(&dev->ibdev.dev), dev->attr.fw_version,
		 dev->attr.board_id, dev->num_eqs,
		 dev->has_datapath ? ", kernel verbs" : "",
		 dev->has_mr ? ", memory registration" : "",
		 dev->has_dmabuf_mr ? ", dma-buf MRs" : "",
		 dev->has_mw ? ", memory windows" : "",
		 dev->has_srq ? ", SRQs" : "",
		 dev->has_mcast ? ", multicast" : "");
	return 0;
}

/* sfab_pf_load()'s inverse; nothing to do when the device is down */
void sfab_pf_unload(struct sfab_pf *pf)
{
	struct sfab_dev *dev = pf->dev;

	if (!dev)
		return;
	pf->dev = NULL;
	sfab_ib_device_remove(dev);
	sfab_remove_device(dev);
}

/*
 * A function level reset between an unload and a load: whatever state
 * the device was in, it is reset (a device that no longer answers MMIO
 * too).  Config space is saved and restored around it.  Not
 * pci_reset_function(): remove holds the device lock while it waits for
 * a recovery.  Without FLR, the load's device reset has to do.
 */
int sfab_pf_reset(struct sfab_pf *pf)
{
	struct pci_dev *pdev = pf->pdev;
	int err;

	if (pcie_reset_flr(pdev, PCI_RESET_PROBE))
		return 0;
	pci_save_state(pdev);
	err = pcie_reset_flr(pdev, PCI_RESET_DO_RESET);
	pci_restore_state(pdev);
	if (err)
		dev_err(&pdev->dev, "function level reset failed: %d\n", err);
	return err;
}

/**
 * sfab_pf_recover() - take a lost device again
 * @pf: the PCI function
 * @extack: where to say why not, or NULL
 *
 * The fw_fatal reporter's recovery, automatic or asked for (devlink
 * health recover), as a hot-unplug and replug of the card would do it:
 * the driver lets go of the device (ib_core tells every consumer:
 * processes are disassociated, their doorbell mappings zapped, kernel
 * clients release it), resets the function (FLR) and loads it again
 * (firmware, sfab_0 registered anew).  A device that is running and not
 * lost is left alone.  The devlink instance lock is held.
 *
 * Return: 0 or a negative errno; the device is then down.
 */
int sfab_pf_recover(struct sfab_pf *pf, struct netlink_ext_ack *extack)
{
	struct device *d = &pf->pdev->dev;
	int err;

	if (pf->dev && !test_bit(0, &pf->dev->lost))
		return 0;
	dev_info(d, "recovery: releasing the device\n");
	sfab_pf_unload(pf);
	err = sfab_pf_reset(pf);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "function level reset failed");
		return err;
	}
	err = sfab_pf_load(pf, extack);
	if (err) {
		dev_err(d, "recovery: the device was not taken again (%d)\n",
			err);
		return err;
	}
	dev_info(d, "recovery: the device is back\n");
	return 0;
}

static int sfab_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct devlink *devlink;
	struct sfab_pf *pf;
	int err;

	devlink = devlink_alloc(&sfab_devlink_ops, sizeof(*pf), &pdev->dev);
	if (!devlink)
		return -ENOMEM;
	pf = devlink_priv(devlink);
	pf->pdev = pdev;
	spin_lock_init(&pf->loss_lock);
	INIT_WORK(&pf->lost_work, sfab_lost_work);
	pci_set_drvdata(pdev, pf);

	devl_lock(devlink);
	err = sfab_fw_fatal_create(pf);
	if (err)
		goto err_unlock;
	err = sfab_pf_load(pf, NULL);
	if (err)
		goto err_fw_fatal;
	devl_register(devlink);
	devl_unlock(devlink);
	return 0;

err_fw_fatal:
	sfab_fw_fatal_destroy(pf);
err_unlock:
	devl_unlock(devlink);
	pci_set_drvdata(pdev, NULL);
	devlink_free(devlink);
	return err;
}

/* no report of a lost device runs or starts after this */
static void sfab_pf_stop_reports(struct sfab_pf *pf)
{
	WRITE_ONCE(pf->removing, true);
	cancel_work_sync(&pf->lost_work);
}

/* the function, its devlink instance locked; NULL when the driver has none */
static struct sfab_pf *sfab_pf_lock(struct pci_dev *pdev)
{
	struct sfab_pf *pf = pci_get_drvdata(pdev);

	if (pf)
		devl_lock(priv_to_devlink(pf));
	return pf;
}

static void sfab_pf_unlock(struct sfab_pf *pf)
{
	devl_unlock(priv_to_devlink(pf));
}

static void sfab_remove(struct pci_dev *pdev)
{
	struct sfab_pf *pf = pci_get_drvdata(pdev);
	struct devlink *devlink = priv_to_devlink(pf);

	sfab_pf_stop_reports(pf);
	devl_lock(devlink);
	devl_unregister(devlink);
	sfab_pf_unload(pf);
	sfab_fw_fatal_destroy(pf);
	devl_unlock(devlink);
	kvfree(pf->flash);
	pci_set_drvdata(pdev, NULL);
	devlink_free(devlink);
}

/*
 * Reboot or kexec: stop all DMA and interrupts.  The ib_device stays
 * registered; its admin commands fail from here on.
 */
static void sfab_shutdown(struct pci_dev *pdev)
{
	struct sfab_pf *pf = pci_get_drvdata(pdev);
	struct sfab_dev *dev;

	if (!pf)
		return;
	sfab_pf_stop_reports(pf);
	sfab_pf_lock(pdev);
	dev = pf->dev;
	if (dev) {
		/* a device stopped on purpose is not lost */
		cancel_delayed_work_sync(&dev->health_work);
		set_bit(0, &dev->lost);
		sfab_status_lost(dev);
		sfab_com_quiesce(&dev->edev);
	}
	sfab_pf_unlock(pf);
	pci_clear_master(pdev);
}

/*
 * A function reset the PCI core does while the driver holds the device
 * (sysfs "reset", an FLR a hypervisor asks for): the device forgets every
 * queue and object, so it is lost to its consumers; nothing is sent to it
 * meanwhile, and the recovery (sfab_pf_recover()) takes it again
 * afterwards.
 */
static void sfab_reset_prepare(struct pci_dev *pdev)
{
	struct sfab_pf *pf = sfab_pf_lock(pdev);

	if (!pf)
		return;
	if (pf->dev) {
		sfab_com_kill(&pf->dev->edev);
		cancel_delayed_work_sync(&pf->dev->health_work);
	}
	sfab_pf_unlock(pf);
}

static void sfab_reset_done(struct pci_dev *pdev)
{
	struct sfab_pf *pf = sfab_pf_lock(pdev);

	if (!pf)
		return;
	if (pf->dev)
		sfab_device_lost(pf->dev, "function reset", 0);
	sfab_pf_unlock(pf);
}

static const struct pci_error_handlers sfab_err_handler = {
	.reset_prepare = sfab_reset_prepare,
	.reset_done = sfab_reset_done,
};

static struct pci_driver sfab_pci_driver = {
	.name = SFAB_DRV_NAME,
	.id_table = sfab_pci_tbl,
	.probe = sfab_probe,
	.remove = sfab_remove,
	.shutdown = sfab_shutdown,
	.err_handler = &sfab_err_handler,
};

static int __init sfab_init(void)
{
	int err;

	sfab_wq = alloc_workqueue("sfab", WQ_UNBOUND, 0);
	if (!sfab_wq)
		return -ENOMEM;
	err = pci_register_driver(&sfab_pci_driver);
	if (err)
		destroy_workqueue(sfab_wq);
	return err;
}

/* remove ends every device's reports before the queue goes */
static void __exit sfab_exit(void)
{
	pci_unregister_driver(&sfab_pci_driver);
	destroy_workqueue(sfab_wq);
}

module_init(sfab_init);
module_exit(sfab_exit);

MODULE_DESCRIPTION("sfab InfiniBand-class HCA driver");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_FIRMWARE(SFAB_FW_NAME);
