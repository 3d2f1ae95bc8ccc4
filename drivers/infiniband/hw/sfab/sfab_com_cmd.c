// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab admin commands.  Each function builds one command of the hardware
 * contract, runs it through sfab_com_exec() and decodes its result.
 *
 * Response buffers are coherent DMA memory owned by the function.  They
 * are freed as soon as sfab_com_exec() returns: by then the device has
 * completed the command, or never saw it, or has been reset.
 */

#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include <sfab/sfab_fw.h>

#include "sfab_com_cmd.h"

static void sfab_com_cmd_init(struct sfab_aq_cmd *cmd, u8 opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = opcode;
}

/*
 * A refusal that is the caller's to handle, not the device's trouble:
 * DESTROY_MR or UPDATE_MR of an MR with memory windows bound (-EBUSY to
 * the user who asked).
 */
static bool sfab_com_cmd_busy(const struct sfab_aq_cmd *cmd,
			      const struct sfab_acq_entry *comp)
{
	return comp->status == SFAB_AQ_STS_BAD_STATE &&
	       (cmd->opcode == SFAB_AQ_DESTROY_MR ||
		cmd->opcode == SFAB_AQ_UPDATE_MR);
}

/* log a command the device refused; sfab_com_exec() logs the rest */
static int sfab_com_cmd_result(struct sfab_com_dev *edev,
			       const struct sfab_aq_cmd *cmd,
			       const struct sfab_acq_entry *comp, int err)
{
	if (err && comp->status && sfab_com_cmd_busy(cmd, comp))
		dev_dbg(edev->dmadev, "%s refused: %s (memory windows bound?)\n",
			sfab_com_opcode_str(cmd->opcode),
			sfab_aq_status_str(comp->status));
	else if (err && comp->status)
		dev_err_ratelimited(edev->dmadev, "%s refused: %s (status %#x)\n",
				    sfab_com_opcode_str(cmd->opcode),
				    sfab_aq_status_str(comp->status),
				    comp->status);
	return err;
}

/*
 * run a command whose answer the device DMAs into a response block: a
 * bounce buffer lives for the command, its address and size go into the
 * command's resp_addr/resp_len, and the block is copied to @out on success
 */
static int sfab_com_exec_resp(struct sfab_com_dev *edev,
			      struct sfab_aq_cmd *cmd, __le64 *resp_addr,
			      __le32 *resp_len, void *out, size_t len)
{
	struct sfab_acq_entry comp;
	dma_addr_t dma;
	void *buf;
	int err;

	buf = dma_alloc_coherent(edev->dmadev, len, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	*resp_addr = cpu_to_le64(dma);
	*resp_len = cpu_to_le32(len);
	err = sfab_com_exec(edev, cmd, &comp);
	if (!err)
		memcpy(out, buf, len);

	dma_free_coherent(edev->dmadev, len, buf, dma);
	return sfab_com_cmd_result(edev, cmd, &comp, err);
}

/**
 * sfab_com_query_device() - read the device attribute block
 * @edev: the device
 * @attr: filled with the block, in host byte order
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_query_device(struct sfab_com_dev *edev,
			  struct sfab_com_dev_attr *attr)
{
	struct sfab_dev_attr a;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_QUERY_DEVICE);
	err = sfab_com_exec_resp(edev, &cmd, &cmd.u.query_device.resp_addr,
				 &cmd.u.query_device.resp_len, &a, sizeof(a));
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	/* the strings come from the device: terminate them whatever it sent */
	memcpy(attr->fw_version, a.fw_version, sizeof(attr->fw_version) - 1);
	memcpy(attr->board_id, a.board_id, sizeof(attr->board_id) - 1);
	attr->node_guid = a.node_guid;
	attr->sys_image_guid = a.sys_image_guid;
	attr->max_mr_size = le64_to_cpu(a.max_mr_size);
	attr->page_size_cap = le64_to_cpu(a.page_size_cap);
	attr->vendor_id = le32_to_cpu(a.vendor_id);
	attr->vendor_part_id = le32_to_cpu(a.vendor_part_id);
	attr->hw_rev = le32_to_cpu(a.hw_rev);
	attr->max_qp = le32_to_cpu(a.max_qp);
	attr->max_qp_wr = le32_to_cpu(a.max_qp_wr);
	attr->max_sge = le32_to_cpu(a.max_sge);
	attr->max_cq = le32_to_cpu(a.max_cq);
	attr->max_cqe = le32_to_cpu(a.max_cqe);
	attr->max_mr = le32_to_cpu(a.max_mr);
	attr->max_pd = le32_to_cpu(a.max_pd);
	attr->max_srq = le32_to_cpu(a.max_srq);
	attr->max_srq_wr = le32_to_cpu(a.max_srq_wr);
	attr->max_eq = le32_to_cpu(a.max_eq);
	attr->max_inline = le32_to_cpu(a.max_inline);
	attr->num_db_pages = le32_to_cpu(a.num_db_pages);
	attr->max_msg_size = le32_to_cpu(a.max_msg_size);
	attr->local_dma_lkey = le32_to_cpu(a.local_dma_lkey);
	attr->max_qp_rd_atom = le32_to_cpu(a.max_qp_rd_atom);
	attr->max_fast_reg_pages = le32_to_cpu(a.max_fast_reg_pages);
	attr->max_srq_sge = le32_to_cpu(a.max_srq_sge);
	attr->atomic_cap = le32_to_cpu(a.atomic_cap);
	attr->dev_caps = le32_to_cpu(a.dev_caps);
	attr->max_mcast_grp = le32_to_cpu(a.max_mcast_grp);
	attr->max_mcast_qp_attach = le32_to_cpu(a.max_mcast_qp_attach);
	attr->max_xrcd = le32_to_cpu(a.max_xrcd);
	attr->vl_buf_blocks = le16_to_cpu(a.vl_buf_blocks);
	attr->num_ports = a.num_ports;
	attr->num_vls = a.num_vls;
	return 0;
}
ALLOW_ERROR_INJECTION(sfab_com_query_device, ERRNO);

/**
 * sfab_com_query_port() - read a port's attribute block
 * @edev: the device
 * @port: IBA port number, from 1
 * @attr: filled with the block, in host byte order
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_query_port(struct sfab_com_dev *edev, u8 port,
			struct sfab_com_port_attr *attr)
{
	struct sfab_port_attr a;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_QUERY_PORT);
	cmd.u.query_port.port_num = port;
	err = sfab_com_exec_resp(edev, &cmd, &cmd.u.query_port.resp_addr,
				 &cmd.u.query_port.resp_len, &a, sizeof(a));
	if (err)
		return err;

	attr->subnet_prefix = a.subnet_prefix;
	attr->port_guid = a.port_guid;
	attr->cap_flags = le32_to_cpu(a.cap_flags);
	attr->qkey_viol_cntr = le32_to_cpu(a.qkey_viol_cntr);
	attr->bad_pkey_cntr = le32_to_cpu(a.bad_pkey_cntr);
	attr->lid = le16_to_cpu(a.lid);
	attr->sm_lid = le16_to_cpu(a.sm_lid);
	attr->gid_tbl_len = le16_to_cpu(a.gid_tbl_len);
	attr->pkey_tbl_len = le16_to_cpu(a.pkey_tbl_len);
	attr->state = a.state;
	attr->phys_state = a.phys_state;
	attr->lmc = a.lmc;
	attr->sm_sl = a.sm_sl;
	attr->subnet_timeout = a.subnet_timeout;
	attr->max_mtu = a.max_mtu;
	attr->active_mtu = a.active_mtu;
	attr->active_width = a.active_width;
	attr->active_speed = a.active_speed;
	attr->max_vl_num = a.max_vl_num;
	attr->init_type_reply = a.init_type_reply;
	return 0;
}
ALLOW_ERROR_INJECTION(sfab_com_query_port, ERRNO);

/**
 * sfab_com_fw_download() - hand the device one chunk of a firmware image
 * @edev: the device
 * @addr: bus address of the chunk; the caller keeps it until this returns
 * @offset: its byte offset in the image
 * @length: its size, 1 .. SFAB_FW_MAX_CHUNK
 * @status: the device's SFAB_AQ_STS_* code, 0 when it did not answer
 *
 * The caller reports a refusal, naming the image.
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_fw_download(struct sfab_com_dev *edev, dma_addr_t addr,
			 u32 offset, u32 length, u8 *status)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_FW_DOWNLOAD);
	cmd.u.fw_download.addr = cpu_to_le64(addr);
	cmd.u.fw_download.offset = cpu_to_le32(offset);
	cmd.u.fw_download.length = cpu_to_le32(length);
	err = sfab_com_exec(edev, &cmd, &comp);
	*status = comp.status;
	return err;
}
ALLOW_ERROR_INJECTION(sfab_com_fw_download, ERRNO);

/**
 * sfab_com_fw_activate() - verify the downloaded image and run it
 * @edev: the device
 * @image_len: bytes downloaded
 * @status: the device's SFAB_AQ_STS_* code, 0 when it did not answer
 *
 * The caller reports a refusal, naming the image.
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_fw_activate(struct sfab_com_dev *edev, u32 image_len, u8 *status)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_FW_ACTIVATE);
	cmd.u.fw_activate.image_len = cpu_to_le32(image_len);
	err = sfab_com_exec(edev, &cmd, &comp);
	*status = comp.status;
	return err;
}
ALLOW_ERROR_INJECTION(sfab_com_fw_activate, ERRNO);

/**
 * sfab_com_init_hca() - bring the engine up with the active firmware
 * @edev: the device
 * @host_page_shift: log2 of the host page size
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_init_hca(struct sfab_com_dev *edev, u8 host_page_shift)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_INIT_HCA);
	cmd.u.init_hca.host_page_shift = host_page_shift;
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_init_hca, ERRNO);

/**
 * sfab_com_teardown_hca() - stop the engine
 * @edev: the device
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_teardown_hca(struct sfab_com_dev *edev)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_TEARDOWN_HCA);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_teardown_hca, ERRNO);

/**
 * sfab_com_create_eq() - create a completion event queue
 * @edev: the device
 * @ring: bus address of a page-aligned ring of struct sfab_eqe
 * @log_depth: log2 of its entries
 * @msix_vector: the vector it signals, >= SFAB_MSIX_FIRST_COMP
 * @eqn: the new EQ's number
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_create_eq(struct sfab_com_dev *edev, dma_addr_t ring,
		       u8 log_depth, u16 msix_vector, u32 *eqn)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_CREATE_EQ);
	cmd.u.create_eq.ring_addr = cpu_to_le64(ring);
	cmd.u.create_eq.log_depth = log_depth;
	cmd.u.create_eq.msix_vector = cpu_to_le16(msix_vector);
	err = sfab_com_exec(edev, &cmd, &comp);
	if (!err)
		*eqn = le32_to_cpu(comp.result0);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_create_eq, ERRNO);

/**
 * sfab_com_destroy_eq() - destroy a completion event queue
 * @edev: the device
 * @eqn: from sfab_com_create_eq()
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_destroy_eq(struct sfab_com_dev *edev, u32 eqn)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_DESTROY_EQ);
	cmd.u.destroy_eq.eqn = cpu_to_le32(eqn);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_destroy_eq, ERRNO);

/**
 * sfab_com_mad_ifc() - hand a MAD to the device's own SMA and PMA
 * @edev: the device
 * @port: IBA port number it arrived on, from 1
 * @slid: its source LID, 0 for a MAD from this host
 * @flags: SFAB_MAD_IFC_* (IGNORE_MKEY: the kernel's own request)
 * @in_mad: the request, SFAB_MAD_SIZE bytes
 * @out_mad: the response, SFAB_MAD_SIZE bytes, written when there is one
 *
 * Return: 1 when the device answered with a response MAD, 0 when it
 * consumed the MAD without one, or a negative errno.
 */
int sfab_com_mad_ifc(struct sfab_com_dev *edev, u8 port, u16 slid, u8 flags,
		     const void *in_mad, void *out_mad)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	dma_addr_t dma;
	u8 *buf;
	int err;

	/* one allocation: the request, then the response */
	buf = dma_alloc_coherent(edev->dmadev, 2 * SFAB_MAD_SIZE, &dma,
				 GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, in_mad, SFAB_MAD_SIZE);

	sfab_com_cmd_init(&cmd, SFAB_AQ_MAD_IFC);
	cmd.u.mad_ifc.in_addr = cpu_to_le64(dma);
	cmd.u.mad_ifc.out_addr = cpu_to_le64(dma + SFAB_MAD_SIZE);
	cmd.u.mad_ifc.port_num = port;
	cmd.u.mad_ifc.flags = flags;
	cmd.u.mad_ifc.slid = cpu_to_le16(slid);
	err = sfab_com_exec(edev, &cmd, &comp);
	if (!err && le32_to_cpu(comp.result0)) {
		memcpy(out_mad, buf + SFAB_MAD_SIZE, SFAB_MAD_SIZE);
		err = 1;
	}

	dma_free_coherent(edev->dmadev, 2 * SFAB_MAD_SIZE, buf, dma);
	/* firmware without management agents: the caller decides */
	if (err < 0 && err != -EOPNOTSUPP)
		return sfab_com_cmd_result(edev, &cmd, &comp, err);
	return err;
}
ALLOW_ERROR_INJECTION(sfab_com_mad_ifc, ERRNO);

/* a ring as the device reads its description */
static void sfab_com_ring_encode(struct sfab_ring_desc *d,
				 const struct sfab_com_ring *r)
{
	d->addr = cpu_to_le64(r->addr);
	d->log_depth = r->log_depth;
	d->log_stride = r->log_stride;
	d->page_shift = r->page_shift;
	d->flags = r->flags;
	d->npages = cpu_to_le32(r->npages);
}

/**
 * sfab_com_create_cq() - create a completion queue
 * @edev: the device
 * @params: the ring, its EQ and doorbell page
 * @cqn: the new CQ's number
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_create_cq(struct sfab_com_dev *edev,
		       const struct sfab_com_create_cq *params, u32 *cqn)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_CREATE_CQ);
	sfab_com_ring_encode(&cmd.u.create_cq.ring, &params->ring);
	cmd.u.create_cq.eqn = cpu_to_le32(params->eqn);
	cmd.u.create_cq.db_page = cpu_to_le16(params->db_page);
	cmd.u.create_cq.dbrec_addr = cpu_to_le64(params->dbrec);
	err = sfab_com_exec(edev, &cmd, &comp);
	if (!err)
		*cqn = le32_to_cpu(comp.result0);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_create_cq, ERRNO);

/**
 * sfab_com_destroy_cq() - destroy a completion queue
 * @edev: the device
 * @cqn: from sfab_com_create_cq()
 *
 * Once this returns 0 the device neither writes the CQ's ring nor
 * signals its EQ for it.
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_destroy_cq(struct sfab_com_dev *edev, u32 cqn)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_DESTROY_CQ);
	cmd.u.destroy_cq.cqn = cpu_to_le32(cqn);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_destroy_cq, ERRNO);

/**
 * sfab_com_resize_cq() - move a completion queue to a new ring
 * @edev: the device, with SFAB_DEV_CAP_RESIZE_CQ
 * @params: the CQ, the new ring and record, the host's consumer index
 *
 * On success the CQEs not consumed are at the new ring's start and the
 * consumer index is 0 (sfab_queue.h); on failure the CQ is on its old
 * ring, untouched.
 *
 * Return: 0 or a negative errno (-EINVAL: more CQEs outstanding than the
 * new ring holds).
 */
int sfab_com_resize_cq(struct sfab_com_dev *edev,
		       const struct sfab_com_resize_cq *params)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_RESIZE_CQ);
	sfab_com_ring_encode(&cmd.u.resize_cq.ring, &params->ring);
	cmd.u.resize_cq.cqn = cpu_to_le32(params->cqn);
	cmd.u.resize_cq.ci = cpu_to_le16(params->ci);
	cmd.u.resize_cq.dbrec_addr = cpu_to_le64(params->dbrec);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_resize_cq, ERRNO);

/**
 * sfab_com_resize_srq() - move a shared receive queue to a new ring
 * @edev: the device, with SFAB_DEV_CAP_RESIZE_SRQ
 * @params: the SRQ, the new ring and record, the host's indices
 *
 * On success the WQEs from @params->ci to @params->pi are at the same
 * indices of the new ring and the device takes WQEs from it; on failure
 * the SRQ is on its old ring, untouched.
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_resize_srq(struct sfab_com_dev *edev,
			const struct sfab_com_resize_srq *params)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_RESIZE_SRQ);
	sfab_com_ring_encode(&cmd.u.resize_srq.ring, &params->ring);
	cmd.u.resize_srq.srqn = cpu_to_le32(params->srqn);
	cmd.u.resize_srq.ci = cpu_to_le16(params->ci);
	cmd.u.resize_srq.pi = cpu_to_le16(params->pi);
	cmd.u.resize_srq.dbrec_addr = cpu_to_le64(params->dbrec);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_resize_srq, ERRNO);

/**
 * sfab_com_create_qp() - create a queue pair
 * @edev: the device
 * @params: its rings, CQs, PD, type and doorbell page
 * @qpn: the new QP's number (0 or 1 for SMI and GSI)
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_create_qp(struct sfab_com_dev *edev,
		       const struct sfab_com_create_qp *params, u32 *qpn)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_CREATE_QP);
	sfab_com_ring_encode(&cmd.u.create_qp.sq, &params->sq);
	sfab_com_ring_encode(&cmd.u.create_qp.rq, &params->rq);
	cmd.u.create_qp.send_cqn = cpu_to_le32(params->send_cqn);
	cmd.u.create_qp.recv_cqn = cpu_to_le32(params->recv_cqn);
	cmd.u.create_qp.pdn = cpu_to_le32(params->pdn);
	cmd.u.create_qp.db_page = cpu_to_le16(params->db_page);
	cmd.u.create_qp.qp_type = params->qp_type;
	cmd.u.create_qp.port_num = params->port_num;
	cmd.u.create_qp.flags = cpu_to_le32(params->flags);
	if (params->qp_type == SFAB_QPT_XRC_TGT)
		cmd.u.create_qp.xrcdn = cpu_to_le32(params->xrcdn);
	else
		cmd.u.create_qp.srqn = cpu_to_le32(params->srqn);
	err = sfab_com_exec(edev, &cmd, &comp);
	if (!err)
		*qpn = le32_to_cpu(comp.result0) & SFAB_DB_QPN_MASK;
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_create_qp, ERRNO);

/**
 * sfab_com_grh_encode() - a GRH as the device reads it
 * @w: filled: a MODIFY_QP path's GRH or a UD address vector's, which
 *     sfab_wqe_build_ud() copies into each WQE
 * @g: the GRH in host byte order
 */
void sfab_com_grh_encode(struct sfab_wqe_grh *w, const struct sfab_com_grh *g)
{
	memset(w, 0, sizeof(*w));
	memcpy(w->dgid, g->dgid, sizeof(w->dgid));
	w->flow_label = cpu_to_le32(g->flow_label);
	w->sgid_index = g->sgid_index;
	w->hop_limit = g->hop_limit;
	w->traffic_class = g->traffic_class;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_com_grh_encode);

/**
 * sfab_com_grh_decode() - a GRH in host byte order
 * @g: filled
 * @w: QUERY_QP's answer, or what sfab_com_grh_encode() made
 */
void sfab_com_grh_decode(struct sfab_com_grh *g, const struct sfab_wqe_grh *w)
{
	memset(g, 0, sizeof(*g));
	memcpy(g->dgid, w->dgid, sizeof(g->dgid));
	g->flow_label = le32_to_cpu(w->flow_label);
	g->sgid_index = w->sgid_index;
	g->hop_limit = w->hop_limit;
	g->traffic_class = w->traffic_class;
}

/* MODIFY_QP's parameters as the device reads them (no GRH address) */
VISIBLE_IF_KUNIT void sfab_com_modify_qp_encode(struct sfab_aq_modify_qp *m,
						const struct sfab_com_qp_attr *a)
{
	memset(m, 0, sizeof(*m));
	m->qpn = cpu_to_le32(a->qpn);
	m->attr_mask = cpu_to_le32(a->attr_mask);
	m->qkey = cpu_to_le32(a->qkey);
	m->sq_psn = cpu_to_le32(a->sq_psn);
	m->rq_psn = cpu_to_le32(a->rq_psn);
	m->dest_qpn = cpu_to_le32(a->dest_qpn);
	m->pkey_index = cpu_to_le16(a->pkey_index);
	m->dlid = cpu_to_le16(a->dlid);
	m->state = a->state;
	m->port_num = a->port_num;
	m->path_mtu = a->path_mtu;
	m->sl = a->sl;
	m->src_path_bits = a->src_path_bits;
	m->timeout = a->timeout;
	m->retry_cnt = a->retry_cnt;
	m->rnr_retry = a->rnr_retry;
	m->min_rnr_timer = a->min_rnr_timer;
	m->max_rd_atomic = a->max_rd_atomic;
	m->max_dest_rd_atomic = a->max_dest_rd_atomic;
	m->access_flags = cpu_to_le32(a->access_flags);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_com_modify_qp_encode);

/**
 * sfab_com_modify_qp() - change a queue pair's state and attributes
 * @edev: the device
 * @attr: the QPN, the attributes and the mask of those to apply; with
 *	SFAB_QP_ATTR_GRH in the mask, @attr->grh is the path's GRH, which
 *	the device reads during the command
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_modify_qp(struct sfab_com_dev *edev,
		       const struct sfab_com_qp_attr *attr)
{
	struct sfab_wqe_grh *buf = NULL;
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	dma_addr_t dma = 0;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_MODIFY_QP);
	if (attr->attr_mask & SFAB_QP_ATTR_GRH) {
		buf = dma_alloc_coherent(edev->dmadev, sizeof(*buf), &dma,
					 GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		sfab_com_grh_encode(buf, &attr->grh);
		sfab_com_modify_qp_encode(&cmd.u.modify_qp_grh.qp, attr);
		cmd.u.modify_qp_grh.grh_addr = cpu_to_le64(dma);
	} else {
		sfab_com_modify_qp_encode(&cmd.u.modify_qp, attr);
	}
	err = sfab_com_exec(edev, &cmd, &comp);

	if (buf)
		dma_free_coherent(edev->dmadev, sizeof(*buf), buf, dma);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_modify_qp, ERRNO);

/**
 * sfab_com_query_qp() - read a queue pair's attributes
 * @edev: the device
 * @qpn: the QP
 * @attr: filled with what the device holds, in host byte order
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_query_qp(struct sfab_com_dev *edev, u32 qpn,
		      struct sfab_com_qp_attr *attr)
{
	const struct sfab_aq_modify_qp *m;
	struct sfab_qp_attr *qa;
	struct sfab_aq_cmd cmd;
	int err;

	qa = kzalloc(sizeof(*qa), GFP_KERNEL);
	if (!qa)
		return -ENOMEM;
	sfab_com_cmd_init(&cmd, SFAB_AQ_QUERY_QP);
	cmd.u.query_qp.qpn = cpu_to_le32(qpn);
	err = sfab_com_exec_resp(edev, &cmd, &cmd.u.query_qp.resp_addr,
				 &cmd.u.query_qp.resp_len, qa, sizeof(*qa));
	if (err)
		goto out;

	m = &qa->attr;
	memset(attr, 0, sizeof(*attr));
	attr->qpn = le32_to_cpu(m->qpn);
	attr->attr_mask = le32_to_cpu(m->attr_mask);
	attr->qkey = le32_to_cpu(m->qkey);
	attr->sq_psn = le32_to_cpu(m->sq_psn);
	attr->rq_psn = le32_to_cpu(m->rq_psn);
	attr->dest_qpn = le32_to_cpu(m->dest_qpn);
	attr->access_flags = le32_to_cpu(m->access_flags);
	attr->pkey_index = le16_to_cpu(m->pkey_index);
	attr->dlid = le16_to_cpu(m->dlid);
	attr->state = m->state;
	attr->port_num = m->port_num;
	attr->path_mtu = m->path_mtu;
	attr->sl = m->sl;
	attr->src_path_bits = m->src_path_bits;
	attr->timeout = m->timeout;
	attr->retry_cnt = m->retry_cnt;
	attr->rnr_retry = m->rnr_retry;
	attr->min_rnr_timer = m->min_rnr_timer;
	attr->max_rd_atomic = m->max_rd_atomic;
	attr->max_dest_rd_atomic = m->max_dest_rd_atomic;
	attr->flags = qa->flags;
	attr->sq_pi = le16_to_cpu(qa->sq_pi);
	attr->sq_ci = le16_to_cpu(qa->sq_ci);
	attr->rq_pi = le16_to_cpu(qa->rq_pi);
	attr->rq_ci = le16_to_cpu(qa->rq_ci);
	sfab_com_grh_decode(&attr->grh, &qa->grh);
out:
	kfree(qa);
	return err;
}
ALLOW_ERROR_INJECTION(sfab_com_query_qp, ERRNO);

/**
 * sfab_com_destroy_qp() - destroy a queue pair
 * @edev: the device
 * @qpn: from sfab_com_create_qp()
 *
 * Once this returns 0 the device no longer touches the QP's rings.
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_destroy_qp(struct sfab_com_dev *edev, u32 qpn)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_DESTROY_QP);
	cmd.u.destroy_qp.qpn = cpu_to_le32(qpn);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_destroy_qp, ERRNO);

/**
 * sfab_com_set_qp_dbrec() - give a QP in RESET its doorbell records
 * @edev: the device, with SFAB_DEV_CAP_DBREC
 * @qpn: from sfab_com_create_qp()
 * @sq_dbrec: the send queue's record, SFAB_DBREC_ALIGN aligned; 0: none
 * @rq_dbrec: the receive queue's; 0: none (always with an SRQ)
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_set_qp_dbrec(struct sfab_com_dev *edev, u32 qpn, u64 sq_dbrec,
			  u64 rq_dbrec)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_SET_QP_DBREC);
	cmd.u.set_qp_dbrec.qpn = cpu_to_le32(qpn);
	cmd.u.set_qp_dbrec.sq_dbrec = cpu_to_le64(sq_dbrec);
	cmd.u.set_qp_dbrec.rq_dbrec = cpu_to_le64(rq_dbrec);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_set_qp_dbrec, ERRNO);

/**
 * sfab_com_create_mr() - register a memory region
 * @edev: the device
 * @params: the region, its page list (read during the command) and rights
 * @key: the new MR's key (variant 0)
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_create_mr(struct sfab_com_dev *edev,
		       const struct sfab_com_create_mr *params, u32 *key)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_CREATE_MR);
	cmd.u.create_mr.iova = cpu_to_le64(params->iova);
	cmd.u.create_mr.length = cpu_to_le64(params->length);
	cmd.u.create_mr.pbl_addr = cpu_to_le64(params->pbl_addr);
	cmd.u.create_mr.npages = cpu_to_le32(params->npages);
	cmd.u.create_mr.pdn = cpu_to_le32(params->pdn);
	cmd.u.create_mr.access = cpu_to_le32(params->access);
	cmd.u.create_mr.page_shift = params->page_shift;
	cmd.u.create_mr.flags = params->flags;
	err = sfab_com_exec(edev, &cmd, &comp);
	if (!err)
		*key = le32_to_cpu(comp.result0);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_create_mr, ERRNO);

/**
 * sfab_com_destroy_mr() - deregister a memory region
 * @edev: the device
 * @key: its key, any variant
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_destroy_mr(struct sfab_com_dev *edev, u32 key)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_DESTROY_MR);
	cmd.u.destroy_mr.key = cpu_to_le32(key);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_destroy_mr, ERRNO);

/* UPDATE_MR's parameters as the device reads them */
VISIBLE_IF_KUNIT void sfab_com_update_mr_encode(struct sfab_aq_update_mr *w,
						const struct sfab_com_update_mr *p)
{
	memset(w, 0, sizeof(*w));
	w->key = cpu_to_le32(p->key);
	w->pdn = cpu_to_le32(p->pdn);
	w->pbl_addr = cpu_to_le64(p->pbl_addr);
	w->npages = cpu_to_le32(p->npages);
	w->op = p->op;
	w->page_shift = p->page_shift;
	w->new_pdn = cpu_to_le32(p->new_pdn);
	w->new_access = cpu_to_le32(p->new_access);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_com_update_mr_encode);

/**
 * sfab_com_update_mr() - invalidate, remap or modify a memory region in place
 * @edev: the device, with SFAB_DEV_CAP_MR_UPDATE
 * @params: the MR's key and PD and the operation; REMAP's page list has
 *	the MR's npages and page_shift and is read during the command
 *
 * When it returns 0 the device no longer uses the MR's old pages.
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_update_mr(struct sfab_com_dev *edev,
		       const struct sfab_com_update_mr *params)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_UPDATE_MR);
	sfab_com_update_mr_encode(&cmd.u.update_mr, params);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_update_mr, ERRNO);

/**
 * sfab_com_create_srq() - create a shared receive queue
 * @edev: the device
 * @params: its ring, PD, doorbell page and limit
 * @srqn: the new SRQ's number
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_create_srq(struct sfab_com_dev *edev,
			const struct sfab_com_create_srq *params, u32 *srqn)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_CREATE_SRQ);
	sfab_com_ring_encode(&cmd.u.create_srq.ring, &params->ring);
	cmd.u.create_srq.pdn = cpu_to_le32(params->pdn);
	cmd.u.create_srq.db_page = cpu_to_le16(params->db_page);
	cmd.u.create_srq.limit = cpu_to_le32(params->limit);
	cmd.u.create_srq.dbrec_addr = cpu_to_le64(params->dbrec);
	if (params->xrc) {
		cmd.u.create_srq.flags = cpu_to_le16(SFAB_SRQ_XRC);
		cmd.u.create_srq.cqn = cpu_to_le32(params->cqn);
		cmd.u.create_srq.xrcdn = cpu_to_le32(params->xrcdn);
	}
	err = sfab_com_exec(edev, &cmd, &comp);
	if (!err)
		*srqn = le32_to_cpu(comp.result0) & SFAB_DB_QPN_MASK;
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_create_srq, ERRNO);

/**
 * sfab_com_modify_srq() - arm or disarm a shared receive queue's limit
 * @edev: the device
 * @srqn: the SRQ
 * @limit: the new limit, 0 disarms
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_modify_srq(struct sfab_com_dev *edev, u32 srqn, u32 limit)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_MODIFY_SRQ);
	cmd.u.modify_srq.srqn = cpu_to_le32(srqn);
	cmd.u.modify_srq.limit = cpu_to_le32(limit);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_modify_srq, ERRNO);

/**
 * sfab_com_destroy_srq() - destroy a shared receive queue
 * @edev: the device
 * @srqn: the SRQ, no QP using it
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_destroy_srq(struct sfab_com_dev *edev, u32 srqn)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_DESTROY_SRQ);
	cmd.u.destroy_srq.srqn = cpu_to_le32(srqn);
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_destroy_srq, ERRNO);

/**
 * sfab_com_mcast() - attach a UD QP to a multicast group, or detach it
 * @edev: the device, with SFAB_DEV_CAP_MCAST
 * @attach: ATTACH_MCAST, else DETACH_MCAST
 * @qpn: a UD QP
 * @mgid: the group's multicast GID
 * @mlid: its multicast LID
 *
 * Return: 0 or a negative errno (-EINVAL: not attached, for a detach;
 * -ENOMEM: the device's groups or the group's QPs are all taken).
 */
int sfab_com_mcast(struct sfab_com_dev *edev, bool attach, u32 qpn,
		   const u8 mgid[16], u16 mlid)
{
	struct sfab_acq_entry comp;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, attach ? SFAB_AQ_ATTACH_MCAST :
					 SFAB_AQ_DETACH_MCAST);
	cmd.u.mcast.qpn = cpu_to_le32(qpn);
	cmd.u.mcast.mlid = cpu_to_be16(mlid);
	memcpy(cmd.u.mcast.mgid, mgid, sizeof(cmd.u.mcast.mgid));
	err = sfab_com_exec(edev, &cmd, &comp);
	return sfab_com_cmd_result(edev, &cmd, &comp, err);
}
ALLOW_ERROR_INJECTION(sfab_com_mcast, ERRNO);

/* a QUERY_STATS block as the device wrote it, in host byte order */
VISIBLE_IF_KUNIT void sfab_com_port_stats_decode(struct sfab_com_port_stats *h,
						 const struct sfab_port_stats *w)
{
	h->retransmits = le64_to_cpu(w->retransmits);
	h->retrans_pkts = le64_to_cpu(w->retrans_pkts);
	h->local_ack_timeout_err = le64_to_cpu(w->local_ack_timeout_err);
	h->packet_seq_err = le64_to_cpu(w->packet_seq_err);
	h->implied_nak_seq_err = le64_to_cpu(w->implied_nak_seq_err);
	h->rnr_nak_retry_err = le64_to_cpu(w->rnr_nak_retry_err);
	h->out_of_sequence = le64_to_cpu(w->out_of_sequence);
	h->duplicate_request = le64_to_cpu(w->duplicate_request);
	h->req_transport_retries_exceeded =
		le64_to_cpu(w->req_transport_retries_exceeded);
	h->req_rnr_retries_exceeded = le64_to_cpu(w->req_rnr_retries_exceeded);
	h->db_writes_cpu = le64_to_cpu(w->db_writes_cpu);
	h->db_writes_peer = le64_to_cpu(w->db_writes_peer);
	h->fast_reg_wqes = le64_to_cpu(w->fast_reg_wqes);
	h->local_inv_wqes = le64_to_cpu(w->local_inv_wqes);
	h->remote_invs = le64_to_cpu(w->remote_invs);
}
EXPORT_SYMBOL_IF_KUNIT(sfab_com_port_stats_decode);

/**
 * sfab_com_query_stats() - read a port's transport counters
 * @edev: the device, with SFAB_DEV_CAP_QUERY_STATS
 * @port: IBA port number, from 1
 * @stats: filled with the counters, in host byte order
 *
 * Return: 0 or a negative errno.
 */
int sfab_com_query_stats(struct sfab_com_dev *edev, u8 port,
			 struct sfab_com_port_stats *stats)
{
	struct sfab_port_stats w;
	struct sfab_aq_cmd cmd;
	int err;

	sfab_com_cmd_init(&cmd, SFAB_AQ_QUERY_STATS);
	cmd.u.query_stats.port_num = port;
	err = sfab_com_exec_resp(edev, &cmd, &cmd.u.query_stats.resp_addr,
				 &cmd.u.query_stats.resp_len, &w, sizeof(w));
	if (!err)
		sfab_com_port_stats_decode(stats, &w);
	return err;
}
ALLOW_ERROR_INJECTION(sfab_com_query_stats, ERRNO);
