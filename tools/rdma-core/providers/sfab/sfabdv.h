/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sfab direct verbs: what libsfab offers beyond the ibv_* API, for
 * applications and for accelerators that build work requests and ring
 * doorbells themselves.  See sfabdv(7).
 */

#ifndef __SFABDV_H__
#define __SFABDV_H__

#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sfabdv_device_caps {
	/*
	 * This context's doorbell page is mapped write-combining; without
	 * it, non-cached.
	 */
	SFABDV_DEVICE_CAPS_DB_WC = 1 << 0,
	/*
	 * A send completion carries the send-queue index of its WQE, and a
	 * successful send WQE posted unsignaled writes no completion.
	 */
	SFABDV_DEVICE_CAPS_CQE_WQE_INDEX = 1 << 1,
};

struct sfabdv_device_attr {
	uint64_t comp_mask;
	uint32_t device_caps;		/* enum sfabdv_device_caps */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_inline_data;
};

int sfabdv_query_device(struct ibv_context *ibvctx,
			struct sfabdv_device_attr *attr, uint32_t inlen);

/*
 * This context's doorbell page, as a device-side program rings it through
 * the dma-buf of sfabdv_export_db_dmabuf(): the page's size and where its
 * registers sit in it.
 */
struct sfabdv_db_attr {
	uint64_t comp_mask;
	uint32_t page_size;		/* bytes; the dma-buf's size */
	uint32_t page_index;		/* the page's number in the doorbell BAR */
	uint32_t sq_offset;		/* send queue doorbell */
	uint32_t rq_offset;		/* receive queue doorbell */
	uint32_t cq_offset;		/* completion queue doorbell */
	uint32_t srq_offset;		/* shared receive queue doorbell */
};

int sfabdv_query_db(struct ibv_context *ibvctx, struct sfabdv_db_attr *attr,
		    uint32_t inlen);

/*
 * A dma-buf of this context's doorbell page, for a peer device's driver
 * to import (peer-to-peer, with move_notify); *fd is the caller's to close.
 */
int sfabdv_export_db_dmabuf(struct ibv_context *ibvctx, int *fd);

#ifdef __cplusplus
}
#endif

#endif /* __SFABDV_H__ */
