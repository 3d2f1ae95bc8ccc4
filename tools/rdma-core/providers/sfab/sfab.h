/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sfab userspace provider: device, context and PD objects.
 */

#ifndef __SFAB_H__
#define __SFAB_H__

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include <sfab/sfab_regs.h>

#include "sfab-abi.h"

struct sfab_dev {
	struct verbs_device vdev;
	size_t pg_sz;			/* system page size, for mmap lengths */
};

struct sfab_context {
	struct verbs_context ibvctx;
	uint32_t cmds_supp_udata_mask;	/* SFAB_USER_CMDS_SUPP_UDATA_* */
	uint32_t max_inline;		/* bytes of inline send data */
	uint16_t sub_cqs_per_cq;

	/* limits from the device-specific query_device response */
	uint32_t device_caps;		/* SFAB_QUERY_DEVICE_CAPS_* */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;

	/*
	 * This context's page of the doorbell BAR (SFAB_DB_SQ, SFAB_DB_RQ,
	 * SFAB_DB_CQ offsets), mapped write-only; the kernel maps it
	 * non-cached, or write-combining when db_wc is set.
	 */
	uint8_t *db;
	size_t db_map_size;		/* length passed to mmap/munmap */
	uint32_t db_page_size;		/* bytes the device decodes */
	uint32_t db_page_index;		/* page number in the doorbell BAR */
	bool db_wc;
};

struct sfab_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

static inline struct sfab_dev *to_sfab_dev(struct ibv_device *ibvdev)
{
	return container_of(ibvdev, struct sfab_dev, vdev.device);
}

static inline struct sfab_context *to_sfab_context(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct sfab_context, ibvctx.context);
}

static inline struct sfab_pd *to_sfab_pd(struct ibv_pd *ibvpd)
{
	return container_of(ibvpd, struct sfab_pd, ibvpd);
}

int sfab_query_device_ctx(struct sfab_context *ctx);
int sfab_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int sfab_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *sfab_alloc_pd(struct ibv_context *context);
int sfab_dealloc_pd(struct ibv_pd *ibvpd);

#endif /* __SFAB_H__ */
