/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sfab userspace provider: device, context and PD objects.
 */

#ifndef __SFAB_H__
#define __SFAB_H__

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include <sfab/sfab_queue.h>
#include <sfab/sfab_regs.h>

#include "sfab-abi.h"

struct sfab_dev {
	struct verbs_device vdev;
	size_t pg_sz;			/* system page size, for mmap lengths */
};

struct sfab_context {
	struct verbs_context ibvctx;

	/* from the device-specific query_device response */
	uint32_t device_caps;		/* enum sfab_ibv_device_caps */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_inline;		/* bytes of inline send data */
	uint32_t max_cqe;
	uint32_t max_srq_wr;
	uint32_t max_srq_sge;
	bool has_mw;			/* IBV_DEVICE_MEM_WINDOW: windows, binds */
	bool has_flush;			/* IB_UVERBS_DEVICE_FLUSH_GLOBAL: A19 ops */
	bool has_xrc;			/* IBV_DEVICE_XRC */

	/*
	 * QPs by QPN, XRC SRQs by SRQN, for poll_cq (an XRC receive names
	 * its SRQ); NULL where none.  The mutex guards both.
	 */
	pthread_mutex_t qp_table_mutex;
	struct sfab_qp **qp_table;
	uint32_t qp_table_size;
	struct sfab_srq **srq_table;
	uint32_t srq_table_size;

	/*
	 * This context's page of the doorbell BAR (SFAB_DB_SQ, SFAB_DB_RQ,
	 * SFAB_DB_CQ offsets), mapped write-only: write-combining (db_wc)
	 * when the device offers it (SFAB_IBV_DEVICE_CAPS_DB_WC), else
	 * non-cached.
	 */
	uint8_t *db;
	size_t db_map_size;		/* length passed to mmap/munmap */
	uint32_t db_page_size;		/* bytes the device decodes */
	uint32_t db_page_index;		/* page number in the doorbell BAR */
	bool db_wc;
	/*
	 * SFAB_IBV_DEVICE_CAPS_CQE_WQE_INDEX: a send CQE tells its WQE's SQ
	 * index, a successful unsignaled send writes no CQE
	 */
	bool cqe_wqe_index;
	/*
	 * SFAB_IBV_DEVICE_CAPS_DBREC: every queue gets a doorbell record
	 * after its ring (include/sfab/sfab_ring.h); a CQ is polled and an
	 * SRQ posted without a doorbell
	 */
	bool dbrec;
	/*
	 * The device's status page (struct sfab_ibv_dev_status), mapped
	 * read-only; NULL when the kernel offers none
	 */
	const volatile struct sfab_ibv_dev_status *status;
};

/*
 * The device is gone: the kernel wrote "not live" on its status page as
 * it lost or unregistered the device, or ib_core disassociated this
 * context and the page reads zeros.  It completes nothing more: poll_cq
 * flushes what is outstanding and posts fail with EIO.  One load of a
 * cached line, on the paths where it costs nothing: a CQ found empty, a
 * post.
 */
static inline bool sfab_ctx_lost(const struct sfab_context *ctx)
{
	return ctx->status && ctx->status->state != SFAB_IBV_DEV_STATE_LIVE;
}

struct sfab_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

struct sfab_cq {
	struct verbs_cq vcq;
	uint32_t cqn;
	struct sfab_cqe *ring;		/* 2^log_depth entries */
	size_t ring_size;
	uint8_t log_depth;
	/* protects cc and the ring */
	pthread_spinlock_t lock;
	uint16_t cc;			/* free-running consumer index */
	/* after the ring, when the kernel applied it: cc goes there; else NULL */
	struct sfab_dbrec *dbrec;
	/*
	 * sfabdv_create_cq(): the ring (and record) are in a dma-buf the
	 * host cannot reach (ring NULL); poll and arm are refused
	 */
	bool dv;
	bool dv_dbrec;			/* dv_dbrec_offset is valid */
	uint64_t dv_ring_offset;
	uint64_t dv_dbrec_offset;
	/*
	 * ibv_start_poll() to ibv_end_poll() (a CQ from ibv_create_cq_ex())
	 * hold the lock; ex_wc is the completion the read_* functions read,
	 * ex_start the consumer index at start_poll
	 */
	struct ibv_wc ex_wc;
	uint16_t ex_start;
};

/* a send, receive or shared receive queue's ring */
struct sfab_wq {
	uint8_t *ring;
	size_t ring_size;
	uint8_t log_depth;
	uint8_t log_stride;
	/* serialises posts: protects pi and the ring */
	pthread_spinlock_t lock;
	uint16_t pi;			/* producer index */
	uint16_t ci;			/* consumer: poll_cq under the CQ lock */
	/* send slots whose CQE poll_cq hides; NULL with cqe_wqe_index */
	uint8_t *unsignaled;
	uint32_t max_sge;
	/* after the ring, when the kernel applied it: pi goes there; else NULL */
	struct sfab_dbrec *dbrec;
};

struct sfab_srq {
	struct verbs_srq vsrq;
	uint32_t srqn;
	struct sfab_wq rq;
	struct sfab_cq *xrc_cq;		/* an XRC SRQ: where it completes */
};

struct sfab_qp {
	struct verbs_qp vqp;		/* first: ibv_qp_to_qp_ex() casts */
	uint32_t qpn;
	bool sig_all;
	uint32_t max_inline;
	struct sfab_wq sq;
	struct sfab_wq rq;		/* unused with an SRQ */
	struct sfab_srq *srq;
	bool xrc_tgt;			/* an XRC receive QP: no rings, no CQs */
	/*
	 * sfabdv_create_qp(): the rings (and records) are in a dma-buf the
	 * host cannot reach (sq.ring, rq.ring NULL); posting is refused
	 */
	bool dv;
	bool dv_dbrec;			/* the dv_*_dbrec_offset are valid */
	uint64_t dv_sq_offset;
	uint64_t dv_rq_offset;
	uint64_t dv_sq_dbrec_offset;
	uint64_t dv_rq_dbrec_offset;
	/*
	 * The ibv_wr_* post API (ibv_create_qp_ex() with send_ops_flags).
	 * From ibv_wr_start() to ibv_wr_complete() or ibv_wr_abort() the
	 * SQ lock is held.  Each work request is gathered in ex_wr (its
	 * SGEs in ex_sge, inline bytes copied to ex_inl) and written into
	 * the ring by the next one or by complete, through the builder
	 * ibv_post_send() uses; the first error drops the whole batch.
	 */
	uint64_t send_ops;		/* the IBV_QP_EX_WITH_* it was created with */
	struct ibv_send_wr ex_wr;
	struct ibv_sge *ex_sge;		/* sq.max_sge entries */
	uint8_t *ex_inl;		/* max_inline bytes */
	uint8_t ex_awrite[8];		/* ibv_wr_atomic_write()'s bytes */
	uint64_t ex_flush_len;		/* ibv_wr_flush()'s */
	uint8_t ex_flush_type, ex_flush_level;
	bool ex_pending;		/* ex_wr holds a request not yet written */
	int ex_err;
	uint16_t ex_start;		/* sq.pi at ibv_wr_start() */
};

struct sfab_ah {
	struct ibv_ah ibvah;
	uint16_t dlid;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t port_num;
	bool is_global;			/* UD sends carry grh */
	struct sfab_wqe_grh grh;
};

bool is_sfab_dev(struct ibv_device *ibvdev);

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

static inline struct sfab_cq *to_sfab_cq(struct ibv_cq *ibvcq)
{
	return container_of(ibvcq, struct sfab_cq, vcq.cq);
}

static inline struct sfab_qp *to_sfab_qp(struct ibv_qp *ibvqp)
{
	return container_of(ibvqp, struct sfab_qp, vqp.qp);
}

static inline struct sfab_srq *to_sfab_srq(struct ibv_srq *ibvsrq)
{
	return container_of(ibvsrq, struct sfab_srq, vsrq.srq);
}

static inline struct sfab_ah *to_sfab_ah(struct ibv_ah *ibvah)
{
	return container_of(ibvah, struct sfab_ah, ibvah);
}

int sfab_query_device_ctx(struct sfab_context *ctx);
int sfab_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int sfab_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *sfab_alloc_pd(struct ibv_context *context);
int sfab_dealloc_pd(struct ibv_pd *ibvpd);

/* queues.c */
struct ibv_cq *sfab_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
struct ibv_cq_ex *sfab_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
int sfab_destroy_cq(struct ibv_cq *ibvcq);
int sfab_resize_cq(struct ibv_cq *ibvcq, int cqe);
int sfab_poll_cq(struct ibv_cq *ibvcq, int ne, struct ibv_wc *wc);
int sfab_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only);
struct ibv_qp *sfab_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *sfab_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int sfab_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int sfab_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int sfab_destroy_qp(struct ibv_qp *ibvqp);
int sfab_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int sfab_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
struct ibv_srq *sfab_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
int sfab_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int sfab_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr);
int sfab_destroy_srq(struct ibv_srq *ibvsrq);
int sfab_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
struct ibv_srq *sfab_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int sfab_get_srq_num(struct ibv_srq *ibvsrq, uint32_t *srq_num);
struct ibv_xrcd *sfab_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr);
int sfab_close_xrcd(struct ibv_xrcd *ibvxrcd);
struct ibv_qp *sfab_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr);
struct ibv_ah *sfab_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int sfab_destroy_ah(struct ibv_ah *ibvah);
struct ibv_mr *sfab_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int sfab_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *sfab_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int sfab_dealloc_mw(struct ibv_mw *mw);
int sfab_bind_mw(struct ibv_qp *ibvqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
int sfab_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);
struct ibv_mr *sfab_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access);

#endif /* __SFAB_H__ */
