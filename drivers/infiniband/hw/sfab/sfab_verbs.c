// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab verbs: device and port queries, user contexts with their doorbell
 * page, protection domains.  Queues live in sfab_datapath.c, memory
 * regions in sfab_mr.c.
 */

#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_verbs.h>
#include <rdma/sfab-abi.h>

#include "sfab.h"
#include "sfab_com_cmd.h"

#define SFAB_LOCAL_CA_ACK_DELAY		16

/* the ABI's layouts: no holes, 64-bit fields aligned (sfab-abi.h) */
static_assert(sizeof(struct sfab_ibv_alloc_ucontext_cmd) == 8);
static_assert(sizeof(struct sfab_ibv_alloc_ucontext_resp) == 40);
static_assert(sizeof(struct sfab_ibv_dev_status) == 8);
static_assert(sizeof(struct sfab_ibv_alloc_pd_resp) == 8);
static_assert(sizeof(struct sfab_ibv_ex_query_device_resp) == 24);
static_assert(sizeof(struct sfab_ibv_create_cq) == 32);
static_assert(sizeof(struct sfab_ibv_create_cq_resp) == 8);
static_assert(sizeof(struct sfab_ibv_resize_cq) == 24);
static_assert(sizeof(struct sfab_ibv_resize_cq_resp) == 8);
static_assert(sizeof(struct sfab_ibv_create_qp) == 48);
static_assert(sizeof(struct sfab_ibv_create_qp_resp) == 8);
static_assert(sizeof(struct sfab_ibv_create_srq) == 24);
static_assert(sizeof(struct sfab_ibv_create_srq_resp) == 8);
static_assert(sizeof(struct sfab_ibv_modify_srq) == 32);

/* a device limit as ib_device_attr's int fields hold it */
static u32 sfab_attr_int(u32 v)
{
	return min_t(u32, v, INT_MAX);
}

int sfab_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
		      struct ib_udata *udata)
{
	struct sfab_ibv_ex_query_device_resp resp = {};
	struct sfab_dev *dev = to_sfab_dev(ibdev);
	const struct sfab_com_dev_attr *a = &dev->attr;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(ibdev, "query_device: unknown request fields set\n");
		return -EOPNOTSUPP;
	}

	memset(props, 0, sizeof(*props));
	props->fw_ver = dev->fw_ver;
	props->sys_image_guid = a->sys_image_guid;
	props->max_mr_size = a->max_mr_size;
	props->page_size_cap = a->page_size_cap;
	props->vendor_id = a->vendor_id;
	props->vendor_part_id = a->vendor_part_id;
	props->hw_ver = a->hw_rev;
	props->max_qp = sfab_attr_int(a->max_qp);
	props->max_qp_wr = sfab_attr_int(a->max_qp_wr);
	props->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				  IB_DEVICE_SYS_IMAGE_GUID |
				  IB_DEVICE_BAD_PKEY_CNTR |
				  IB_DEVICE_BAD_QKEY_CNTR;
	props->max_send_sge = sfab_attr_int(a->max_sge);
	props->max_recv_sge = sfab_attr_int(a->max_sge);
	props->max_sge_rd = sfab_attr_int(a->max_sge);
	props->max_cq = sfab_attr_int(a->max_cq);
	props->max_cqe = sfab_attr_int(a->max_cqe);
	props->max_mr = sfab_attr_int(a->max_mr);
	props->max_pd = sfab_attr_int(a->max_pd);
	if (dev->has_srq) {
		if (dev->has_resize_srq)
			props->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
		props->max_srq = sfab_attr_int(a->max_srq);
		props->max_srq_wr = sfab_attr_int(a->max_srq_wr);
		props->max_srq_sge = sfab_attr_int(a->max_srq_sge ?
						   a->max_srq_sge : a->max_sge);
	}
	if (dev->has_mcast) {
		props->max_mcast_grp = sfab_attr_int(a->max_mcast_grp);
		props->max_mcast_qp_attach =
			sfab_attr_int(a->max_mcast_qp_attach);
		props->max_total_mcast_qp_attach =
			min_t(u64, (u64)props->max_mcast_grp *
			      props->max_mcast_qp_attach, INT_MAX);
	}
	props->max_pkeys = SFAB_PORT_PKEY_TBL_LEN;
	props->local_ca_ack_delay = SFAB_LOCAL_CA_ACK_DELAY;
	props->atomic_cap = a->atomic_cap == 1 ? IB_ATOMIC_HCA :
							      IB_ATOMIC_NONE;
	props->masked_atomic_cap = IB_ATOMIC_NONE;
	props->max_qp_rd_atom = sfab_attr_int(a->max_qp_rd_atom);
	props->max_qp_init_rd_atom = props->max_qp_rd_atom;
	props->max_res_rd_atom = min_t(u64, (u64)props->max_qp_rd_atom *
				       props->max_qp, INT_MAX);
	if (dev->has_flush)
		/* global visibility only: no persistent memory to flush to */
		props->device_cap_flags |= IB_DEVICE_FLUSH_GLOBAL |
					   IB_DEVICE_ATOMIC_WRITE;
	if (dev->has_xrc)
		props->device_cap_flags |= IB_DEVICE_XRC;
	if (dev->has_mw) {
		/* windows are MR table entries */
		props->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					   IB_DEVICE_MEM_WINDOW_TYPE_2B;
		props->max_mw = props->max_mr;
	}
	if (dev->has_mr && dev->has_datapath) {
		props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		props->max_fast_reg_page_list_len =
			sfab_attr_int(a->max_fast_reg_pages);
	}
	/*
	 * What the 16-bit free-running ring indices can tell apart (a ring
	 * of 2^16 would look empty when full) and what a WQE stride holds.
	 */
	props->max_qp_wr = min_t(int, props->max_qp_wr,
				 1U << SFAB_RING_MAX_LOG_DEPTH);
	props->max_cqe = min_t(int, props->max_cqe,
			       1U << SFAB_RING_MAX_LOG_DEPTH);
	props->max_send_sge = min_t(int, props->max_send_sge,
				    SFAB_SQ_MAX_SGE);
	props->max_sge_rd = props->max_send_sge;
	if (dev->has_datapath)
		props->kernel_cap_flags |= IBK_LOCAL_DMA_LKEY;

	if (!udata || !udata->outlen)
		return 0;

	if (dev->caps & SFAB_CAP_DB_WC)
		resp.device_caps |= SFAB_IBV_DEVICE_CAPS_DB_WC;
	if (sfab_dev_cqe_wqe_index(dev))
		resp.device_caps |= SFAB_IBV_DEVICE_CAPS_CQE_WQE_INDEX;
	if (dev->has_dbrec)
		resp.device_caps |= SFAB_IBV_DEVICE_CAPS_DBREC;
	resp.max_sq_wr = props->max_qp_wr;
	resp.max_rq_wr = props->max_qp_wr;
	resp.max_sq_sge = min_t(u32, a->max_sge, U16_MAX);
	resp.max_rq_sge = resp.max_sq_sge;
	resp.max_inline = a->max_inline;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		ibdev_dbg(ibdev, "query_device: cannot copy the response: %d\n",
			  err);
	return err;
}

static enum ib_port_state sfab_port_state(u8 state)
{
	switch (state) {
	case SFAB_PORT_DOWN:	return IB_PORT_DOWN;
	case SFAB_PORT_INIT:	return IB_PORT_INIT;
	case SFAB_PORT_ARMED:	return IB_PORT_ARMED;
	case SFAB_PORT_ACTIVE:	return IB_PORT_ACTIVE;
	default:		return IB_PORT_NOP;
	}
}

static u8 sfab_phys_state(u8 state)
{
	switch (state) {
	case SFAB_PHYS_SLEEP:
		return IB_PORT_PHYS_STATE_SLEEP;
	case SFAB_PHYS_POLLING:
		return IB_PORT_PHYS_STATE_POLLING;
	case SFAB_PHYS_DISABLED:
		return IB_PORT_PHYS_STATE_DISABLED;
	case SFAB_PHYS_TRAINING:
		return IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING;
	case SFAB_PHYS_LINKUP:
		return IB_PORT_PHYS_STATE_LINK_UP;
	case SFAB_PHYS_ERROR_RECOVERY:
		return IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY;
	default:
		return IB_PORT_PHYS_STATE_DISABLED;
	}
}

/* the contract's MTU and width codes are IBA's, enum ib_mtu's, ib_port_width's */
static_assert(SFAB_PI_MTU_256 == IB_MTU_256 && SFAB_PI_MTU_4096 == IB_MTU_4096);
static_assert(SFAB_PI_WIDTH_1X == IB_WIDTH_1X && SFAB_PI_WIDTH_2X == IB_WIDTH_2X &&
	      SFAB_PI_WIDTH_4X == IB_WIDTH_4X && SFAB_PI_WIDTH_8X == IB_WIDTH_8X &&
	      SFAB_PI_WIDTH_12X == IB_WIDTH_12X);

static enum ib_mtu sfab_mtu(u8 code, enum ib_mtu dflt)
{
	return code >= SFAB_PI_MTU_256 && code <= SFAB_PI_MTU_4096 ? code : dflt;
}

static u8 sfab_width(u8 code)
{
	switch (code) {
	case SFAB_PI_WIDTH_1X:
	case SFAB_PI_WIDTH_2X:
	case SFAB_PI_WIDTH_4X:
	case SFAB_PI_WIDTH_8X:
	case SFAB_PI_WIDTH_12X:
		return code;
	default:
		return IB_WIDTH_1X;
	}
}

/* struct sfab_port_attr.active_speed (SFAB_PORT_SPEED_*) as enum ib_port_speed */
static u16 sfab_speed(u8 code)
{
	switch (code) {
	case SFAB_PORT_SPEED_DDR:	return IB_SPEED_DDR;
	case SFAB_PORT_SPEED_QDR:	return IB_SPEED_QDR;
	case SFAB_PORT_SPEED_FDR:	return IB_SPEED_FDR;
	case SFAB_PORT_SPEED_EDR:	return IB_SPEED_EDR;
	case SFAB_PORT_SPEED_HDR:	return IB_SPEED_HDR;
	case SFAB_PORT_SPEED_NDR:	return IB_SPEED_NDR;
	case SFAB_PORT_SPEED_XDR:	return IB_SPEED_XDR;
	default:			return IB_SPEED_SDR;
	}
}

int sfab_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *props)
{
	struct sfab_dev *dev = to_sfab_dev(ibdev);
	struct sfab_com_port_attr pa;
	int err;

	err = sfab_com_query_port(&dev->edev, port, &pa);
	if (err)
		return err;

	props->state = sfab_port_state(pa.state);
	props->phys_state = sfab_phys_state(pa.phys_state);
	props->max_mtu = sfab_mtu(pa.max_mtu, IB_MTU_4096);
	props->active_mtu = sfab_mtu(pa.active_mtu, props->max_mtu);
	props->phys_mtu = ib_mtu_enum_to_int(props->max_mtu);
	props->gid_tbl_len = pa.gid_tbl_len;
	props->pkey_tbl_len = pa.pkey_tbl_len;
	props->port_cap_flags = pa.cap_flags;
	props->max_msg_sz = dev->attr.max_msg_size;
	props->bad_pkey_cntr = pa.bad_pkey_cntr;
	props->qkey_viol_cntr = pa.qkey_viol_cntr;
	props->lid = pa.lid;
	props->sm_lid = pa.sm_lid;
	props->lmc = pa.lmc;
	props->sm_sl = pa.sm_sl;
	props->subnet_timeout = pa.subnet_timeout;
	props->max_vl_num = pa.max_vl_num;
	props->init_type_reply = pa.init_type_reply;
	props->active_width = sfab_width(pa.active_width);
	props->active_speed = sfab_speed(pa.active_speed);
	return 0;
}

/*
 * The P_Key table is the SM's: opensm's partitions put their keys at the
 * indices it chooses.  ib_core reads the table from index 0 up at
 * registration and on every IB_EVENT_PKEY_CHANGE: index 0 reads the whole
 * block from the SMA (one MAD_IFC), the others answer from that copy.
 */
int sfab_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	struct sfab_dev *dev = to_sfab_dev(ibdev);
	int ret = 0;

	if (port != SFAB_PORT_NUM || index >= SFAB_PORT_PKEY_TBL_LEN)
		return -EINVAL;
	mutex_lock(&dev->pkey_lock);
	if (!index)
		ret = sfab_pkey_table_read(dev, dev->pkeys);
	if (!ret)
		*pkey = dev->pkeys[index];
	mutex_unlock(&dev->pkey_lock);
	return ret;
}

int sfab_query_gid(struct ib_device *ibdev, u32 port, int index,
		   union ib_gid *gid)
{
	struct sfab_dev *dev = to_sfab_dev(ibdev);
	struct sfab_com_port_attr pa;
	int err;

	if (index >= SFAB_PORT_GID_TBL_LEN)
		return -EINVAL;

	err = sfab_com_query_port(&dev->edev, port, &pa);
	if (err)
		return err;
	gid->global.subnet_prefix = pa.subnet_prefix;
	gid->global.interface_id = pa.port_guid;
	return 0;
}

int sfab_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	/* the table lengths QUERY_PORT reports */
	err = sfab_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer sfab_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_INFINIBAND;
}

void sfab_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	struct sfab_dev *dev = to_sfab_dev(ibdev);

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%s", dev->attr.fw_version);
}

/* ---- the status page --------------------------------------------------------- */

/*
 * The device's status page (struct sfab_ibv_dev_status): what a process
 * reads to learn, without a system call, that the device is gone.  Its
 * data path never enters the kernel, and ib_core's disassociation alone
 * would tell it only through the async event queue most applications
 * never read (perftest does not); libsfab looks at the page when a CQ is
 * empty and before it posts.  One page per device, LIVE from probe; a
 * recovered or re-added device is a new one with a new page.
 */
int sfab_status_alloc(struct sfab_dev *dev)
{
	struct sfab_ibv_dev_status *st;

	dev->status_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!dev->status_page)
		return -ENOMEM;
	st = page_address(dev->status_page);
	WRITE_ONCE(st->state, SFAB_IBV_DEV_STATE_LIVE);
	return 0;
}

/* the device completes nothing more for its users; any context */
void sfab_status_lost(struct sfab_dev *dev)
{
	struct sfab_ibv_dev_status *st = page_address(dev->status_page);

	WRITE_ONCE(st->state, 0);
}

/* the device's reference; the mappings' own keep the page until unmapped */
void sfab_status_put(struct sfab_dev *dev)
{
	if (dev->status_page)
		put_page(dev->status_page);
	dev->status_page = NULL;
}

/* ---- user contexts --------------------------------------------------------- */

/*
 * One mmap entry of @uctx: the device's status page (@type
 * SFAB_MMAP_STATUS; @db unused) or the context's doorbell page @db,
 * uncached or write-combining.  It takes a reference on its page, which
 * sfab_mmap_free() drops.
 */
static struct rdma_user_mmap_entry *
sfab_entry_insert(struct sfab_ucontext *uctx, enum sfab_mmap_type type,
		  struct sfab_db_page *db)
{
	struct sfab_dev *dev = to_sfab_dev(uctx->ibucontext.device);
	struct sfab_user_mmap_entry *entry;
	size_t length = PAGE_SIZE;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return ERR_PTR(-ENOMEM);
	entry->type = type;
	if (type == SFAB_MMAP_STATUS) {
		entry->page = dev->status_page;
	} else {
		entry->db = db;
		entry->address = dev->db_bar_addr +
				 ((u64)db->page << dev->db_page_shift);
		length = (size_t)1 << dev->db_page_shift;
	}
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext, &entry->rdma_entry,
					  length);
	if (err) {
		kfree(entry);
		return ERR_PTR(err);
	}
	if (type == SFAB_MMAP_STATUS)
		get_page(entry->page);
	else
		refcount_inc(&db->ref);
	return &entry->rdma_entry;
}

int sfab_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sfab_ucontext *uctx = to_sfab_ucontext(ibuc);
	struct sfab_dev *dev = to_sfab_dev(ibuc->device);
	const size_t resp_min = offsetofend(struct sfab_ibv_alloc_ucontext_resp,
					    db_page_size);
	struct sfab_ibv_alloc_ucontext_resp resp = {};
	struct sfab_ibv_alloc_ucontext_cmd cmd = {};
	struct ib_device *ibdev = ibuc->device;
	struct rdma_user_mmap_entry *e;
	struct sfab_db_page *db;
	int err;

	if (udata->inlen > sizeof(cmd) &&
	    !ib_is_udata_cleared(udata, sizeof(cmd),
				 udata->inlen - sizeof(cmd))) {
		ibdev_dbg(ibdev, "alloc_ucontext: unknown request fields set\n");
		return -EOPNOTSUPP;
	}
	err = ib_copy_from_udata(&cmd, udata, min(sizeof(cmd), udata->inlen));
	if (err)
		return err;
	if (cmd.comp_mask) {
		ibdev_dbg(ibdev, "alloc_ucontext: unknown comp_mask %#x\n",
			  cmd.comp_mask);
		return -EOPNOTSUPP;
	}
	if (memchr_inv(cmd.reserved_20, 0, sizeof(cmd.reserved_20))) {
		ibdev_dbg(ibdev, "alloc_ucontext: reserved fields set\n");
		return -EINVAL;
	}
	if (udata->outlen < resp_min) {
		ibdev_dbg(ibdev, "alloc_ucontext: response of %zu bytes, need %zu\n",
			  udata->outlen, resp_min);
		return -EINVAL;
	}

	uctx->exports = sfab_db_exports_create();
	if (IS_ERR(uctx->exports))
		return PTR_ERR(uctx->exports);

	/* this function's own reference, dropped at the end */
	db = sfab_db_page_alloc(dev->db_pool, dev->db_first_user,
				dev->db_num_pages - 1);
	if (IS_ERR(db)) {
		ibdev_dbg(ibdev, "alloc_ucontext: no free doorbell page\n");
		sfab_db_exports_put(uctx->exports);
		return PTR_ERR(db);
	}
	uctx->db = db;
	uctx->db_page = db->page;

	/* uncached always; write-combining too when the BAR is prefetchable */
	e = sfab_entry_insert(uctx, SFAB_MMAP_IO_NC, db);
	if (IS_ERR(e)) {
		err = PTR_ERR(e);
		goto out_put;
	}
	uctx->db_entry = e;
	if (dev->caps & SFAB_CAP_DB_WC) {
		e = sfab_entry_insert(uctx, SFAB_MMAP_IO_WC, db);
		if (IS_ERR(e)) {
			err = PTR_ERR(e);
			goto err_remove;
		}
		uctx->db_wc_entry = e;
		resp.db_wc_mmap_key = rdma_user_mmap_get_offset(e);
	}

	e = sfab_entry_insert(uctx, SFAB_MMAP_STATUS, NULL);
	if (IS_ERR(e)) {
		err = PTR_ERR(e);
		goto err_remove;
	}
	uctx->status_entry = e;
	resp.comp_mask |= SFAB_IBV_ALLOC_UCONTEXT_RESP_STATUS;
	resp.status_mmap_key = rdma_user_mmap_get_offset(e);

	resp.db_mmap_key = rdma_user_mmap_get_offset(uctx->db_entry);
	resp.db_page_index = db->page;
	resp.db_page_size = 1U << dev->db_page_shift;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_remove;
	goto out_put;

err_remove:
	rdma_user_mmap_entry_remove(uctx->status_entry);
	rdma_user_mmap_entry_remove(uctx->db_wc_entry);
	rdma_user_mmap_entry_remove(uctx->db_entry);
	uctx->status_entry = NULL;
	uctx->db_wc_entry = NULL;
	uctx->db_entry = NULL;
out_put:
	if (err)
		sfab_db_exports_put(uctx->exports);
	sfab_db_page_put(db);
	return err;
}

void sfab_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	struct sfab_ucontext *uctx = to_sfab_ucontext(ibuc);

	/*
	 * Importers of the page stop (move_notify) before the context's
	 * queues are gone for good; an export keeps the page until its
	 * dma-buf is released, and the page itself goes back to the pool
	 * once its last mapping and export are gone.  ib_unregister_device()
	 * comes here for every context too: device removal revokes them all.
	 */
	sfab_db_exports_revoke(uctx->exports);
	sfab_db_exports_put(uctx->exports);
	rdma_user_mmap_entry_remove(uctx->status_entry);
	rdma_user_mmap_entry_remove(uctx->db_wc_entry);
	rdma_user_mmap_entry_remove(uctx->db_entry);
}

void sfab_disassociate_ucontext(struct ib_ucontext *ibuc)
{
	/*
	 * Every user mapping goes through rdma_user_mmap_io(), whose pages
	 * ib_core zaps itself on disassociation; the peer devices that
	 * imported the page as a dma-buf are told to stop here.
	 */
	sfab_db_exports_revoke(to_sfab_ucontext(ibuc)->exports);
}

int sfab_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct sfab_user_mmap_entry *entry;
	pgprot_t prot;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma_entry) {
		ibdev_dbg(ibuc->device, "mmap: no entry at pgoff %#lx\n",
			  vma->vm_pgoff);
		return -EINVAL;
	}
	entry = to_sfab_mmap_entry(rdma_entry);

	switch (entry->type) {
	case SFAB_MMAP_STATUS:
		/*
		 * Read-only for good: not VM_MAYWRITE either, so that once
		 * ib_core disassociates the context a fault maps the zero
		 * page (rdma_umap_fault()), which reads "not LIVE" too.
		 */
		if (vma->vm_flags & (VM_WRITE | VM_EXEC)) {
			ibdev_dbg(ibuc->device,
				  "mmap: the status page is read-only\n");
			err = -EPERM;
			goto out_put;
		}
		vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
		err = rdma_user_mmap_io(ibuc, vma, page_to_pfn(entry->page),
					PAGE_SIZE, vma->vm_page_prot,
					rdma_entry);
		goto out_dbg;
	case SFAB_MMAP_IO_WC:
		prot = pgprot_writecombine(vma->vm_page_prot);
		break;
	case SFAB_MMAP_IO_NC:
	default:
		prot = pgprot_noncached(vma->vm_page_prot);
		break;
	}
	err = rdma_user_mmap_io(ibuc, vma, PHYS_PFN(entry->address),
				rdma_entry->npages * PAGE_SIZE, prot, rdma_entry);
out_dbg:
	if (err)
		ibdev_dbg(ibuc->device, "mmap: pgoff %#lx: %d\n",
			  vma->vm_pgoff, err);
out_put:
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void sfab_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct sfab_user_mmap_entry *entry = to_sfab_mmap_entry(rdma_entry);

	if (entry->type == SFAB_MMAP_STATUS)
		put_page(entry->page);
	else
		sfab_db_page_put(entry->db);
	kfree(entry);
}

/* ---- protection domains ------------------------------------------------------ */

int sfab_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibpd->device);
	struct sfab_ibv_alloc_pd_resp resp = {};
	struct sfab_pd *pd = to_sfab_pd(ibpd);
	u32 max_pd = dev->attr.max_pd;
	int pdn;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(ibpd->device, "alloc_pd: unknown request fields set\n");
		return -EOPNOTSUPP;
	}
	if (!max_pd)
		return -ENOSPC;

	pdn = ida_alloc_max(&dev->pd_ida, min_t(u32, max_pd - 1, INT_MAX),
			    GFP_KERNEL);
	if (pdn < 0)
		return pdn;
	pd->pdn = pdn;

	if (udata && udata->outlen) {
		resp.pdn = pdn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err) {
			ida_free(&dev->pd_ida, pdn);
			return err;
		}
	}
	return 0;
}

int sfab_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibpd->device);

	ida_free(&dev->pd_ida, to_sfab_pd(ibpd)->pdn);
	return 0;
}

/* ---- XRC domains ------------------------------------------------------------ */

/*
 * A number the device checks XRC SRQs and targets against, nothing more:
 * ib_core shares the domain between processes (ibv_open_xrcd with a file)
 */
int sfab_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibxrcd->device);
	u32 max = dev->attr.max_xrcd;
	int n;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (!max)
		return -ENOSPC;
	n = ida_alloc_max(&dev->xrcd_ida, min_t(u32, max - 1, INT_MAX),
			  GFP_KERNEL);
	if (n < 0)
		return n;
	to_sfab_xrcd(ibxrcd)->xrcdn = n;
	return 0;
}

int sfab_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct sfab_dev *dev = to_sfab_dev(ibxrcd->device);

	ida_free(&dev->xrcd_ida, to_sfab_xrcd(ibxrcd)->xrcdn);
	return 0;
}

/* ---- sysfs ------------------------------------------------------------------ */

static ssize_t hw_rev_show(struct device *device, struct device_attribute *attr,
			   char *buf)
{
	struct sfab_dev *dev = rdma_device_to_drv_device(device, struct sfab_dev,
							  ibdev);

	return sysfs_emit(buf, "0x%x\n", dev->attr.hw_rev);
}
static DEVICE_ATTR_RO(hw_rev);

static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct sfab_dev *dev = rdma_device_to_drv_device(device, struct sfab_dev,
							  ibdev);

	return sysfs_emit(buf, "SFAB%04x\n", dev->attr.vendor_part_id);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t board_id_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct sfab_dev *dev = rdma_device_to_drv_device(device, struct sfab_dev,
							  ibdev);

	return sysfs_emit(buf, "%s\n", dev->attr.board_id);
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *sfab_attributes[] = {
	&dev_attr_hw_rev.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_board_id.attr,
	NULL
};

const struct attribute_group sfab_attr_group = {
	.attrs = sfab_attributes,
};
