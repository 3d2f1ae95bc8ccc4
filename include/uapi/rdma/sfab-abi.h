/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sfab kernel <-> rdma-core provider ABI.
 */
#ifndef SFAB_ABI_USER_H
#define SFAB_ABI_USER_H

#include <linux/types.h>

/*
 * Increment this value if any changes that break userspace ABI
 * compatibility are made.
 *
 * 2: one capability word (query_device's device_caps) for what was split
 *    between the ucontext flags and query_device; max_inline only in
 *    query_device (not in the ucontext or create_qp responses); no
 *    cmds_supp_udata_mask or sub_cqs_per_cq.
 */
#define SFAB_UVERBS_ABI_VERSION 2

/*
 * Every struct starts with comp_mask.  A request's comp_mask holds only
 * the bits its enum defines; the kernel refuses a request with any other
 * bit (EOPNOTSUPP), so a provider learns that an older kernel lacks a
 * feature.  Reserved fields must be 0.  New fields are appended, each
 * valid only with its comp_mask bit: a request may end before them (an
 * older provider's) as long as it sets none of their bits; a response
 * sets a bit of its own comp_mask for each feature the kernel applied.
 * Reserved fields are named by their bit offset in the struct, in hex:
 * reserved_20 begins at bit 0x20 (byte 4).
 */

struct sfab_ibv_alloc_ucontext_cmd {
	__u32 comp_mask;
	__u8 reserved_20[4];
};

enum sfab_ibv_alloc_ucontext_resp_comp_mask {
	SFAB_IBV_ALLOC_UCONTEXT_RESP_STATUS = 1 << 0,	/* status_mmap_key */
};

/*
 * This context's page of the doorbell BAR.  It is mapped through
 * db_mmap_key uncached, and through db_wc_mmap_key write-combining when
 * query_device reports SFAB_IBV_DEVICE_CAPS_DB_WC (else that key is 0).
 *
 * With SFAB_IBV_ALLOC_UCONTEXT_RESP_STATUS, status_mmap_key maps the
 * device's status page (struct sfab_ibv_dev_status), read-only: one page,
 * cached, shared by every context of the device.
 */
struct sfab_ibv_alloc_ucontext_resp {
	__u32 comp_mask;	/* enum sfab_ibv_alloc_ucontext_resp_comp_mask */
	__u8 reserved_20[4];
	__aligned_u64 db_mmap_key;
	__aligned_u64 db_wc_mmap_key;
	__u32 db_page_index;		/* its page number in the doorbell BAR */
	__u32 db_page_size;		/* bytes */
	__aligned_u64 status_mmap_key;	/* SFAB_IBV_ALLOC_UCONTEXT_RESP_STATUS */
};

/*
 * The status page: how a process learns, without a system call, that the
 * device is gone.  state reads SFAB_IBV_DEV_STATE_LIVE while the device
 * serves its contexts.  The driver writes 0 there as it loses the device
 * (a fatal error, a health poll that finds it dead, a function reset) and
 * as it unregisters it (removal, unbind); once ib_core has disassociated
 * the context, the mapping reads the zero page.  So anything but LIVE
 * means the device completes nothing more: the provider then flushes the
 * work still outstanding (IBV_WC_WR_FLUSH_ERR) and refuses new work (EIO).
 */
#define SFAB_IBV_DEV_STATE_LIVE 0x53464142	/* "SFAB" */

struct sfab_ibv_dev_status {
	__u32 state;			/* SFAB_IBV_DEV_STATE_LIVE, or not */
	__u32 reserved;
};

struct sfab_ibv_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

/* query_device's device_caps */
enum sfab_ibv_device_caps {
	/* the doorbell BAR is prefetchable: db_wc_mmap_key is valid */
	SFAB_IBV_DEVICE_CAPS_DB_WC = 1 << 0,
	/*
	 * A send CQE carries its WQE's SQ index (struct sfab_cqe.wqe_index)
	 * and a successful unsignaled send WQE writes no CQE: SQ slots are
	 * retired up to that index.  Without it, every send WQE must ask for
	 * a CQE (SFAB_WQE_SIGNALED) and slots retire one per send CQE.
	 */
	SFAB_IBV_DEVICE_CAPS_CQE_WQE_INDEX = 1 << 1,
	/*
	 * Doorbell records (include/sfab/sfab_ring.h): create_cq, create_qp
	 * and create_srq take the *_DBREC comp_mask bits, and the device
	 * reads each queue's record from its buffer.  A CQ with a record is
	 * polled without a doorbell; an SRQ with one is posted without.
	 */
	SFAB_IBV_DEVICE_CAPS_DBREC = 1 << 2,
};

/* the driver-specific part of the extended query_device response */
struct sfab_ibv_ex_query_device_resp {
	__u32 comp_mask;
	__u32 device_caps;		/* enum sfab_ibv_device_caps */
	__u32 max_sq_wr;
	__u32 max_rq_wr;
	__u16 max_sq_sge;
	__u16 max_rq_sge;
	__u32 max_inline;		/* bytes of inline send data */
};

/*
 * User queues: the provider allocates each ring (page aligned, whole
 * pages) and the kernel pins it and hands it to the device as a page
 * list.  Ring i of 2^log_depth entries of 2^log_stride bytes; the
 * contract's WQE and CQE formats (include/sfab/sfab_queue.h).
 *
 * Doorbell records (SFAB_IBV_DEVICE_CAPS_DBREC): with its *_DBREC bit a
 * request gives each queue's struct sfab_dbrec as an offset from the
 * start of that queue's buffer: at least the ring's size, a multiple of
 * SFAB_DBREC_ALIGN, and within the ring's size plus the record rounded up
 * to pages (sfab_dbrec_ring_off() is the place the provider uses).  The
 * kernel pins the ring and its record as one buffer and the response
 * sets the matching *_RESP_DBREC bit.
 *
 * Queues in a dma-buf (sfabdv_create_cq/qp, for accelerators): with its
 * *_DMABUF bit a create_cq or create_qp request's buf_addr fields are
 * page-aligned byte offsets into the dma-buf dmabuf_fd names, not
 * addresses (the record offsets stay relative to them).  The kernel pins
 * the dma-buf's pages for the queue's life (ib_umem_dmabuf_get_pinned())
 * and never touches the ring itself.
 */
enum sfab_ibv_create_cq_comp_mask {
	SFAB_IBV_CREATE_CQ_DBREC = 1 << 0,	/* dbrec_off is valid */
	SFAB_IBV_CREATE_CQ_DMABUF = 1 << 1,	/* buf_addr is in dmabuf_fd */
};

enum sfab_ibv_create_cq_resp_comp_mask {
	SFAB_IBV_CREATE_CQ_RESP_DBREC = 1 << 0,	/* the device reads the record */
};

struct sfab_ibv_create_cq {
	__u32 comp_mask;		/* enum sfab_ibv_create_cq_comp_mask */
	__u8 log_depth;			/* 2^log_depth struct sfab_cqe */
	__u8 reserved_28[3];
	__aligned_u64 buf_addr;		/* the ring: 32 << log_depth bytes */
	__aligned_u64 dbrec_off;	/* SFAB_IBV_CREATE_CQ_DBREC: from buf_addr */
	__s32 dmabuf_fd;		/* SFAB_IBV_CREATE_CQ_DMABUF */
	__u8 reserved_e0[4];
};

struct sfab_ibv_create_cq_resp {
	__u32 comp_mask;		/* enum sfab_ibv_create_cq_resp_comp_mask */
	__u32 cqn;			/* for the CQ doorbell */
};

/*
 * resize_cq of a CQ whose ring libsfab owns: the new ring (zeroed, as for
 * create_cq: SFAB_IBV_CREATE_CQ_DBREC and dbrec_off the same way; no
 * dma-buf) and the consumer index up to which the provider has consumed
 * CQEs, under its CQ lock until the call returns.  On success the CQEs
 * not consumed are at the new ring's start and the consumer index is 0
 * (include/sfab/sfab_queue.h, RESIZE_CQ); the response says whether the
 * device reads the new record.  EINVAL: more CQEs outstanding than the
 * new ring holds; the CQ stays on its old ring.
 */
struct sfab_ibv_resize_cq {
	__u32 comp_mask;		/* SFAB_IBV_CREATE_CQ_DBREC */
	__u8 log_depth;			/* 2^log_depth struct sfab_cqe */
	__u8 reserved_28;
	__u16 ci;			/* the provider's consumer index */
	__aligned_u64 buf_addr;		/* the new ring: 32 << log_depth bytes */
	__aligned_u64 dbrec_off;	/* SFAB_IBV_CREATE_CQ_DBREC: from buf_addr */
};

struct sfab_ibv_resize_cq_resp {
	__u32 comp_mask;		/* SFAB_IBV_CREATE_CQ_RESP_DBREC */
	__u32 reserved;
};

enum sfab_ibv_create_qp_comp_mask {
	SFAB_IBV_CREATE_QP_DBREC = 1 << 0,	/* sq_dbrec_off, rq_dbrec_off valid */
	SFAB_IBV_CREATE_QP_DMABUF = 1 << 1,	/* *_buf_addr are in dmabuf_fd */
};

enum sfab_ibv_create_qp_resp_comp_mask {
	SFAB_IBV_CREATE_QP_RESP_DBREC = 1 << 0,	/* the device reads the records */
};

struct sfab_ibv_create_qp {
	__u32 comp_mask;		/* enum sfab_ibv_create_qp_comp_mask */
	__u8 sq_log_depth;
	__u8 sq_log_stride;		/* 6..9 */
	__u8 rq_log_depth;		/* 0 with an SRQ */
	__u8 rq_log_stride;		/* 5..9; 0 with an SRQ */
	__aligned_u64 sq_buf_addr;
	__aligned_u64 rq_buf_addr;	/* 0 with an SRQ */
	/* SFAB_IBV_CREATE_QP_DBREC: the records, from each ring's buf_addr */
	__aligned_u64 sq_dbrec_off;
	__aligned_u64 rq_dbrec_off;	/* 0 with an SRQ */
	__s32 dmabuf_fd;		/* SFAB_IBV_CREATE_QP_DMABUF */
	__u8 reserved_160[4];
};

struct sfab_ibv_create_qp_resp {
	__u32 comp_mask;		/* enum sfab_ibv_create_qp_resp_comp_mask */
	__u32 qpn;			/* for the SQ and RQ doorbells */
};

enum sfab_ibv_create_srq_comp_mask {
	SFAB_IBV_CREATE_SRQ_DBREC = 1 << 0,	/* dbrec_off is valid */
};

enum sfab_ibv_create_srq_resp_comp_mask {
	SFAB_IBV_CREATE_SRQ_RESP_DBREC = 1 << 0,	/* the device reads the record */
};

struct sfab_ibv_create_srq {
	__u32 comp_mask;		/* enum sfab_ibv_create_srq_comp_mask */
	__u8 log_depth;
	__u8 log_stride;		/* 5..9 */
	__u8 reserved_30[2];
	__aligned_u64 buf_addr;
	__aligned_u64 dbrec_off;	/* SFAB_IBV_CREATE_SRQ_DBREC: from buf_addr */
};

struct sfab_ibv_create_srq_resp {
	__u32 comp_mask;		/* enum sfab_ibv_create_srq_resp_comp_mask */
	__u32 srqn;			/* for the SRQ doorbell */
};

enum sfab_ibv_modify_srq_comp_mask {
	SFAB_IBV_MODIFY_SRQ_RESIZE = 1 << 0,	/* the fields below are valid */
	SFAB_IBV_MODIFY_SRQ_DBREC = 1 << 1,	/* dbrec_off is valid */
};

/*
 * modify_srq with IB_SRQ_MAX_WR of an SRQ whose ring libsfab owns: the new
 * ring (same stride; its record, as create_srq's, already holding pi)
 * and the provider's indices, under its SRQ lock until the call returns:
 * ci its oldest WQE not completed, pi its producer index.  The WQEs
 * between them move to the same indices of the new ring
 * (include/sfab/sfab_queue.h, RESIZE_SRQ).  EINVAL: more of them than the
 * new ring holds; the SRQ stays on its old ring.  modify_srq without
 * IB_SRQ_MAX_WR takes no driver data.
 */
struct sfab_ibv_modify_srq {
	__u32 comp_mask;		/* enum sfab_ibv_modify_srq_comp_mask */
	__u8 log_depth;			/* the new ring: 2^log_depth WQEs */
	__u8 reserved_28;
	__u16 ci;
	__u16 pi;
	__u8 reserved_50[6];
	__aligned_u64 buf_addr;		/* the new ring */
	__aligned_u64 dbrec_off;	/* SFAB_IBV_MODIFY_SRQ_DBREC: from buf_addr */
};

#endif /* SFAB_ABI_USER_H */
