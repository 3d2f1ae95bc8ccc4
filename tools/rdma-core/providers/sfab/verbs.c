// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sfab userspace provider: control-path verbs.
 *
 * Verbs not listed in sfab_ctx_ops (sfab.c) are left unset, so libibverbs
 * answers them with EOPNOTSUPP.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/cmd_ioctl.h>
#include <rdma/sfab_user_ioctl_cmds.h>
#include <sfab/sfab_admin.h>
#include <sfab/sfab_regs.h>

#include "sfab.h"
#include "sfabdv.h"

/*
 * fw_ver as the kernel shows it in sysfs (the version string of the
 * running firmware image); if that cannot be read, the raw 64-bit value
 * decoded by the contract's sfab_fw_ver_unpack().
 */
static void sfab_fill_fw_ver(struct ibv_context *context,
			     struct ibv_device_attr *a, uint64_t raw)
{
	struct verbs_device *vdev = verbs_get_device(context->device);
	char buf[sizeof(a->fw_ver)];
	uint16_t major, minor, patch;

	if (ibv_read_ibdev_sysfs_file(buf, sizeof(buf), vdev->sysfs,
				      "fw_ver") > 0) {
		memcpy(a->fw_ver, buf, sizeof(a->fw_ver));
		return;
	}

	sfab_fw_ver_unpack(raw, &major, &minor, &patch);
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%u.%u.%u", major, minor, patch);
}

int sfab_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct sfab_query_device_ex_resp resp = {};
	size_t resp_size = sizeof(resp);
	int err;

	err = ibv_cmd_query_device_any(context, input, attr, attr_size,
				       &resp.ibv_resp, &resp_size);
	if (err) {
		verbs_err(verbs_get_ctx(context),
			  "ibv_cmd_query_device_any failed: %s\n",
			  strerror(err));
		return err;
	}

	sfab_fill_fw_ver(context, &attr->orig_attr, resp.ibv_resp.base.fw_ver);
	return 0;
}

/*
 * Called once per context, before the doorbell page is mapped: keep the
 * device's capabilities and queue limits, which the kernel reports in the
 * device-specific part of the query_device response.
 */
int sfab_query_device_ctx(struct sfab_context *ctx)
{
	struct sfab_query_device_ex_resp resp = {};
	size_t resp_size = sizeof(resp);
	struct ibv_device_attr_ex attr;
	int err;

	err = ibv_cmd_query_device_any(&ctx->ibvctx.context, NULL, &attr,
				       sizeof(attr), &resp.ibv_resp,
				       &resp_size);
	if (err) {
		verbs_err(&ctx->ibvctx, "ibv_cmd_query_device_any failed: %s\n",
			  strerror(err));
		return err;
	}
	/* a kernel of this ABI always fills its part; a device has queues */
	if (!resp.max_sq_wr || !resp.max_sq_sge) {
		verbs_err(&ctx->ibvctx,
			  "The kernel reported no queue limits\n");
		return EPROTO;
	}

	ctx->max_cqe = attr.orig_attr.max_cqe;
	ctx->max_srq_wr = attr.orig_attr.max_srq_wr;
	ctx->max_srq_sge = attr.orig_attr.max_srq_sge;
	ctx->has_mw = attr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW;
	ctx->has_flush = attr.device_cap_flags_ex & IB_UVERBS_DEVICE_FLUSH_GLOBAL;
	ctx->has_xrc = attr.orig_attr.device_cap_flags & IBV_DEVICE_XRC;
	ctx->qp_table_size = attr.orig_attr.max_qp;
	ctx->srq_table_size = attr.orig_attr.max_srq;
	ctx->device_caps = resp.device_caps;
	ctx->max_sq_wr = resp.max_sq_wr;
	ctx->max_rq_wr = resp.max_rq_wr;
	ctx->max_sq_sge = resp.max_sq_sge;
	ctx->max_rq_sge = resp.max_rq_sge;
	ctx->max_inline = resp.max_inline;
	return 0;
}

int sfabdv_query_device(struct ibv_context *ibvctx,
			struct sfabdv_device_attr *attr, uint32_t inlen)
{
	struct sfab_context *ctx;

	if (!is_sfab_dev(ibvctx->device))
		return EOPNOTSUPP;
	ctx = to_sfab_context(ibvctx);

	/* every field up to max_inline_data is there since SFAB_1.0 */
	if (inlen < offsetofend(typeof(*attr), max_inline_data)) {
		verbs_err(&ctx->ibvctx,
			  "%s: inlen %u is too small\n", __func__, inlen);
		return EINVAL;
	}

	memset(attr, 0, inlen);
	if (ctx->db_wc)
		attr->device_caps |= SFABDV_DEVICE_CAPS_DB_WC;
	if (ctx->cqe_wqe_index)
		attr->device_caps |= SFABDV_DEVICE_CAPS_CQE_WQE_INDEX;
	if (ctx->dbrec)
		attr->device_caps |= SFABDV_DEVICE_CAPS_DBREC;
	attr->max_sq_wr = ctx->max_sq_wr;
	attr->max_rq_wr = ctx->max_rq_wr;
	attr->max_sq_sge = ctx->max_sq_sge;
	attr->max_rq_sge = ctx->max_rq_sge;
	attr->max_inline_data = ctx->max_inline;
	return 0;
}

int sfabdv_query_db(struct ibv_context *ibvctx, struct sfabdv_db_attr *attr,
		    uint32_t inlen)
{
	struct sfab_context *ctx;

	if (!is_sfab_dev(ibvctx->device))
		return EOPNOTSUPP;
	ctx = to_sfab_context(ibvctx);

	/* every field up to srq_offset is there since SFAB_1.1 */
	if (inlen < offsetofend(typeof(*attr), srq_offset)) {
		verbs_err(&ctx->ibvctx,
			  "%s: inlen %u is too small\n", __func__, inlen);
		return EINVAL;
	}

	memset(attr, 0, inlen);
	attr->page_size = ctx->db_page_size;
	attr->page_index = ctx->db_page_index;
	attr->sq_offset = SFAB_DB_SQ;
	attr->rq_offset = SFAB_DB_RQ;
	attr->cq_offset = SFAB_DB_CQ;
	attr->srq_offset = SFAB_DB_SRQ;
	return 0;
}

int sfabdv_export_db_dmabuf(struct ibv_context *ibvctx, int *fd)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_DEVICE,
			       SFAB_IB_METHOD_DB_DMABUF_EXPORT, 2);
	struct sfab_context *ctx;
	uint32_t page_size = 0;
	int32_t kfd = -1;
	int ret;

	if (!is_sfab_dev(ibvctx->device))
		return EOPNOTSUPP;
	ctx = to_sfab_context(ibvctx);
	if (!fd)
		return EINVAL;

	fill_attr_out_ptr(cmd, SFAB_IB_ATTR_DB_DMABUF_EXPORT_FD, &kfd);
	fill_attr_out_ptr(cmd, SFAB_IB_ATTR_DB_DMABUF_EXPORT_PAGE_SIZE,
			  &page_size);
	ret = execute_ioctl(ibvctx, cmd);
	if (ret) {
		verbs_debug(&ctx->ibvctx,
			    "doorbell dma-buf export failed: %s\n",
			    strerror(ret));
		return ret;
	}
	/* the page the kernel exported is the one this context maps */
	if (kfd < 0 || page_size != ctx->db_page_size) {
		verbs_err(&ctx->ibvctx,
			  "doorbell dma-buf: fd %d of %u bytes, page of %u\n",
			  kfd, page_size, ctx->db_page_size);
		if (kfd >= 0)
			close(kfd);
		return EPROTO;
	}
	*fd = kfd;
	return 0;
}

int sfab_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *sfab_alloc_pd(struct ibv_context *context)
{
	struct sfab_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd;
	struct sfab_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_alloc_pd(context, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(verbs_get_ctx(context), "Failed to allocate PD: %s\n",
			  strerror(err));
		free(pd);
		errno = err;
		return NULL;
	}

	pd->pdn = resp.pdn;
	return &pd->ibvpd;
}

int sfab_dealloc_pd(struct ibv_pd *ibvpd)
{
	struct sfab_pd *pd = to_sfab_pd(ibvpd);
	int err;

	err = ibv_cmd_dealloc_pd(ibvpd);
	if (err) {
		verbs_err(verbs_get_ctx(ibvpd->context),
			  "Failed to deallocate PD %u: %s\n", pd->pdn,
			  strerror(err));
		return err;
	}

	free(pd);
	return 0;
}

/*
 * A dma-buf's pages as an MR (ibv_reg_dmabuf_mr): no driver data, the
 * kernel picks the importer (Documentation/sfab/verbs.rst, "dma-buf
 * MRs").  A kernel whose device lacks UPDATE_MR has no such verb:
 * EOPNOTSUPP.
 */
struct ibv_mr *sfab_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr,
				    NULL);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}
