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
	/*
	 * Queues have doorbell records (include/sfab/sfab_ring.h): a CQ is
	 * polled by writing its record, no doorbell (SFAB_1.1).
	 */
	SFABDV_DEVICE_CAPS_DBREC = 1 << 2,
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

/*
 * Queues in caller memory (SFAB_1.1): the rings and their doorbell
 * records live in a dma-buf (an accelerator's memory, for instance) that
 * the accelerator's own code posts to and polls with the contract's
 * helpers (include/sfab/sfab_queue.h, sfab_ring.h); libsfab cannot reach
 * that memory, so ibv_post_send(), ibv_post_recv(), ibv_poll_cq() and
 * ibv_req_notify_cq() on such queues fail with EOPNOTSUPP.  See
 * sfabdv_create_cq(3), sfabdv_create_qp(3).
 */
enum sfabdv_cq_init_attr_mask {
	/* dbrec_offset places the record; else it follows the ring */
	SFABDV_CQ_INIT_ATTR_MASK_DBREC_OFFSET = 1 << 0,
};

struct sfabdv_cq_init_attr {
	uint64_t comp_mask;		/* enum sfabdv_cq_init_attr_mask */
	uint32_t cqe;			/* at least this many completions */
	uint32_t comp_vector;
	struct ibv_comp_channel *channel;	/* may be NULL */
	void *cq_context;
	int dmabuf_fd;			/* the memory of ring and record */
	uint64_t ring_offset;		/* the ring's, page aligned */
	uint64_t dbrec_offset;		/* with ..._DBREC_OFFSET */
};

struct ibv_cq *sfabdv_create_cq(struct ibv_context *ibvctx,
				struct sfabdv_cq_init_attr *attr);

enum sfabdv_qp_init_attr_mask {
	/* sq_dbrec_offset, rq_dbrec_offset place the records */
	SFABDV_QP_INIT_ATTR_MASK_DBREC_OFFSET = 1 << 0,
};

struct sfabdv_qp_init_attr {
	uint64_t comp_mask;		/* enum sfabdv_qp_init_attr_mask */
	int dmabuf_fd;			/* the memory of rings and records */
	uint64_t sq_offset;		/* the send ring's, page aligned */
	uint64_t rq_offset;		/* the receive ring's, page aligned */
	uint64_t sq_dbrec_offset;	/* with ..._DBREC_OFFSET */
	uint64_t rq_dbrec_offset;	/* with ..._DBREC_OFFSET */
};

struct ibv_qp *sfabdv_create_qp(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *qp_attr,
				struct sfabdv_qp_init_attr *sfab_attr);

/* struct sfabdv_cq_attr.flags, struct sfabdv_qp_attr.flags */
enum sfabdv_queue_flags {
	/* the queue has doorbell records: the *dbrec_offset fields hold */
	SFABDV_QUEUE_DBREC = 1 << 0,
};

/* what code on the accelerator needs to poll a CQ in caller memory */
struct sfabdv_cq_attr {
	uint64_t comp_mask;		/* none defined yet: 0 */
	uint32_t cqn;
	uint32_t flags;			/* enum sfabdv_queue_flags */
	uint64_t ring_offset;		/* in the dma-buf */
	uint64_t dbrec_offset;		/* in the dma-buf, with SFABDV_QUEUE_DBREC */
	uint8_t log_depth;		/* 2^log_depth struct sfab_cqe */
	uint8_t log_stride;		/* SFAB_CQE_LOG_STRIDE */
	uint16_t reserved;
	uint32_t db_offset;		/* SFAB_DB_CQ, in the doorbell page */
};

int sfabdv_query_cq(struct ibv_cq *ibvcq, struct sfabdv_cq_attr *attr,
		    uint32_t inlen);

/* what code on the accelerator needs to post to a QP in caller memory */
struct sfabdv_qp_attr {
	uint64_t comp_mask;		/* none defined yet: 0 */
	uint32_t qpn;
	uint32_t flags;			/* enum sfabdv_queue_flags */
	uint64_t sq_offset;		/* in the dma-buf */
	uint64_t rq_offset;		/* in the dma-buf; 0 with no RQ */
	uint64_t sq_dbrec_offset;	/* with SFABDV_QUEUE_DBREC */
	uint64_t rq_dbrec_offset;	/* with SFABDV_QUEUE_DBREC */
	uint8_t sq_log_depth;
	uint8_t sq_log_stride;		/* bytes per send WQE: 2^sq_log_stride */
	uint8_t rq_log_depth;
	uint8_t rq_log_stride;
	uint32_t sq_db_offset;		/* SFAB_DB_SQ, in the doorbell page */
	uint32_t rq_db_offset;		/* SFAB_DB_RQ, in the doorbell page */
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

int sfabdv_query_qp(struct ibv_qp *ibvqp, struct sfabdv_qp_attr *attr,
		    uint32_t inlen);

#ifdef __cplusplus
}
#endif

#endif /* __SFABDV_H__ */
