// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sfab userspace provider: device matching and user context.
 *
 * The kernel registers sfab devices with RDMA_DRIVER_UNKNOWN, so
 * libibverbs binds this provider by the PCI modalias of the HCA.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sfab.h"

/* response comp_mask bits this provider understands */
#define SFAB_ALLOC_UCONTEXT_RESP_COMP_SUPPORTED \
	SFAB_IBV_ALLOC_UCONTEXT_RESP_STATUS

static void sfab_free_context(struct ibv_context *ibvctx);
static const struct verbs_device_ops sfab_dev_ops;

static const struct verbs_match_ent sfab_table[] = {
	VERBS_PCI_MATCH(SFAB_PCI_VENDOR_ID, SFAB_PCI_DEVICE_ID, NULL),
	{}
};

static const struct verbs_context_ops sfab_ctx_ops = {
	.alloc_mw = sfab_alloc_mw,
	.alloc_pd = sfab_alloc_pd,
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = sfab_bind_mw,
	.close_xrcd = sfab_close_xrcd,
	.create_ah = sfab_create_ah,
	.create_cq = sfab_create_cq,
	.create_cq_ex = sfab_create_cq_ex,
	.create_qp = sfab_create_qp,
	.create_qp_ex = sfab_create_qp_ex,
	.create_srq = sfab_create_srq,
	.create_srq_ex = sfab_create_srq_ex,
	.dealloc_mw = sfab_dealloc_mw,
	.dealloc_pd = sfab_dealloc_pd,
	.dereg_mr = sfab_dereg_mr,
	.destroy_ah = sfab_destroy_ah,
	.destroy_cq = sfab_destroy_cq,
	.destroy_qp = sfab_destroy_qp,
	.destroy_srq = sfab_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = sfab_free_context,
	.get_srq_num = sfab_get_srq_num,
	.modify_qp = sfab_modify_qp,
	.modify_srq = sfab_modify_srq,
	.open_qp = sfab_open_qp,
	.open_xrcd = sfab_open_xrcd,
	.poll_cq = sfab_poll_cq,
	.post_recv = sfab_post_recv,
	.post_send = sfab_post_send,
	.post_srq_recv = sfab_post_srq_recv,
	.query_device_ex = sfab_query_device_ex,
	.query_port = sfab_query_port,
	.query_qp = sfab_query_qp,
	.query_srq = sfab_query_srq,
	.reg_dmabuf_mr = sfab_reg_dmabuf_mr,
	.reg_mr = sfab_reg_mr,
	.req_notify_cq = sfab_req_notify_cq,
	.rereg_mr = sfab_rereg_mr,
	.resize_cq = sfab_resize_cq,
};

/*
 * The doorbell page must be a power of two that holds every doorbell the
 * contract places in it, and must fit in the doorbell BAR.
 */
static bool sfab_db_page_size_ok(uint32_t size)
{
	return size >= SFAB_DB_SRQ + sizeof(uint64_t) &&
	       size <= SFAB_DB_BAR_SIZE && !(size & (size - 1));
}

static int sfab_map_db(struct sfab_context *ctx, struct sfab_dev *dev,
		       const struct sfab_alloc_ucontext_resp *resp)
{
	uint64_t key;
	void *db;

	if (!sfab_db_page_size_ok(resp->db_page_size)) {
		verbs_err(&ctx->ibvctx,
			  "Invalid doorbell page size %u from the kernel\n",
			  resp->db_page_size);
		return EPROTO;
	}

	ctx->db_page_size = resp->db_page_size;
	ctx->db_page_index = resp->db_page_index;
	ctx->db_map_size = align(resp->db_page_size, dev->pg_sz);
	/*
	 * The kernel offers the page uncached and, when the BAR is
	 * prefetchable, write-combining: WC whenever it is offered.
	 * sfabdv_query_device() tells the application which it got.
	 */
	ctx->db_wc = ctx->device_caps & SFAB_IBV_DEVICE_CAPS_DB_WC;
	key = ctx->db_wc ? resp->db_wc_mmap_key : resp->db_mmap_key;

	/* doorbells are only written */
	db = mmap(NULL, ctx->db_map_size, PROT_WRITE, MAP_SHARED,
		  ctx->ibvctx.context.cmd_fd, key);
	if (db == MAP_FAILED) {
		int err = errno;

		verbs_err(&ctx->ibvctx,
			  "Failed to map doorbell page %u (key 0x%llx): %s\n",
			  resp->db_page_index, (unsigned long long)key,
			  strerror(err));
		return err;
	}

	ctx->db = db;
	return 0;
}

/*
 * The device's status page, read-only: sfab_ctx_lost() reads it.  A kernel
 * that offers none leaves ctx->status NULL, and the device never looks
 * lost (as before the page existed).
 */
static int sfab_map_status(struct sfab_context *ctx, struct sfab_dev *dev,
			   const struct sfab_alloc_ucontext_resp *resp)
{
	void *page;

	if (!(resp->comp_mask & SFAB_IBV_ALLOC_UCONTEXT_RESP_STATUS))
		return 0;
	page = mmap(NULL, dev->pg_sz, PROT_READ, MAP_SHARED,
		    ctx->ibvctx.context.cmd_fd, resp->status_mmap_key);
	if (page == MAP_FAILED) {
		int err = errno;

		verbs_err(&ctx->ibvctx,
			  "Failed to map the status page (key 0x%llx): %s\n",
			  (unsigned long long)resp->status_mmap_key,
			  strerror(err));
		return err;
	}
	ctx->status = page;
	return 0;
}

static struct verbs_context *sfab_alloc_context(struct ibv_device *ibvdev,
						int cmd_fd,
						void *private_data)
{
	struct sfab_dev *dev = to_sfab_dev(ibvdev);
	struct sfab_alloc_ucontext_resp resp = {};
	struct sfab_alloc_ucontext cmd = {};
	struct sfab_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibvdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	err = ibv_cmd_get_context(&ctx->ibvctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "ibv_cmd_get_context failed: %s\n",
			  strerror(err));
		goto err_free_ctx;
	}

	/*
	 * A newer kernel may report fields this provider does not know;
	 * they are optional by definition, so they are ignored.
	 */
	if (!check_comp_mask(resp.comp_mask,
			     SFAB_ALLOC_UCONTEXT_RESP_COMP_SUPPORTED))
		verbs_debug(&ctx->ibvctx,
			    "Ignoring unknown ucontext comp_mask bits 0x%x\n",
			    resp.comp_mask &
				    ~SFAB_ALLOC_UCONTEXT_RESP_COMP_SUPPORTED);

	verbs_set_ops(&ctx->ibvctx, &sfab_ctx_ops);

	/* the capabilities decide how the doorbell page is mapped */
	err = sfab_query_device_ctx(ctx);
	if (err)
		goto err_free_ctx;
	ctx->cqe_wqe_index =
		ctx->device_caps & SFAB_IBV_DEVICE_CAPS_CQE_WQE_INDEX;
	ctx->dbrec = ctx->device_caps & SFAB_IBV_DEVICE_CAPS_DBREC;

	err = sfab_map_db(ctx, dev, &resp);
	if (err)
		goto err_free_ctx;
	err = sfab_map_status(ctx, dev, &resp);
	if (err)
		goto err_unmap_db;

	ctx->qp_table = calloc(ctx->qp_table_size ? ctx->qp_table_size : 1,
			       sizeof(*ctx->qp_table));
	ctx->srq_table = calloc(ctx->srq_table_size ? ctx->srq_table_size : 1,
				sizeof(*ctx->srq_table));
	if (!ctx->qp_table || !ctx->srq_table) {
		free(ctx->qp_table);
		free(ctx->srq_table);
		err = ENOMEM;
		goto err_unmap_status;
	}
	pthread_mutex_init(&ctx->qp_table_mutex, NULL);

	return &ctx->ibvctx;

err_unmap_status:
	if (ctx->status)
		munmap((void *)ctx->status, dev->pg_sz);
err_unmap_db:
	munmap(ctx->db, ctx->db_map_size);
err_free_ctx:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void sfab_free_context(struct ibv_context *ibvctx)
{
	struct sfab_context *ctx = to_sfab_context(ibvctx);

	pthread_mutex_destroy(&ctx->qp_table_mutex);
	free(ctx->qp_table);
	free(ctx->srq_table);
	if (ctx->status)
		munmap((void *)ctx->status,
		       to_sfab_dev(ibvctx->device)->pg_sz);
	munmap(ctx->db, ctx->db_map_size);
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static struct verbs_device *sfab_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct sfab_dev *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	dev->pg_sz = sysconf(_SC_PAGESIZE);

	return &dev->vdev;
}

static void sfab_uninit_device(struct verbs_device *vdev)
{
	struct sfab_dev *dev = container_of(vdev, struct sfab_dev, vdev);

	free(dev);
}

bool is_sfab_dev(struct ibv_device *ibvdev)
{
	struct verbs_device *vdev = verbs_get_device(ibvdev);

	return vdev->ops == &sfab_dev_ops;
}

static const struct verbs_device_ops sfab_dev_ops = {
	.name = "sfab",
	.match_min_abi_version = SFAB_UVERBS_ABI_VERSION,
	.match_max_abi_version = SFAB_UVERBS_ABI_VERSION,
	.match_table = sfab_table,
	.alloc_device = sfab_device_alloc,
	.uninit_device = sfab_uninit_device,
	.alloc_context = sfab_alloc_context,
};

PROVIDER_DRIVER(sfab, sfab_dev_ops);
