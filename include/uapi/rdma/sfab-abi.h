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
 * Every struct starts with comp_mask.  A request's comp_mask and reserved
 * fields must be 0.  Reserved fields are named by their bit offset in the
 * struct, in hex: reserved_20 begins at bit 0x20 (byte 4).
 */

struct sfab_ibv_alloc_ucontext_cmd {
	__u32 comp_mask;
	__u8 reserved_20[4];
};

/*
 * This context's page of the doorbell BAR.  It is mapped through
 * db_mmap_key uncached, and through db_wc_mmap_key write-combining when
 * query_device reports SFAB_IBV_DEVICE_CAPS_DB_WC (else that key is 0).
 */
struct sfab_ibv_alloc_ucontext_resp {
	__u32 comp_mask;
	__u8 reserved_20[4];
	__aligned_u64 db_mmap_key;
	__aligned_u64 db_wc_mmap_key;
	__u32 db_page_index;		/* its page number in the doorbell BAR */
	__u32 db_page_size;		/* bytes */
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
 */
struct sfab_ibv_create_cq {
	__u32 comp_mask;
	__u8 log_depth;			/* 2^log_depth struct sfab_cqe */
	__u8 reserved_28[3];
	__aligned_u64 buf_addr;		/* the ring: 32 << log_depth bytes */
};

struct sfab_ibv_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;			/* for the CQ doorbell */
};

struct sfab_ibv_create_qp {
	__u32 comp_mask;
	__u8 sq_log_depth;
	__u8 sq_log_stride;		/* 6..9 */
	__u8 rq_log_depth;		/* 0 with an SRQ */
	__u8 rq_log_stride;		/* 5..9; 0 with an SRQ */
	__aligned_u64 sq_buf_addr;
	__aligned_u64 rq_buf_addr;	/* 0 with an SRQ */
};

struct sfab_ibv_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;			/* for the SQ and RQ doorbells */
};

struct sfab_ibv_create_srq {
	__u32 comp_mask;
	__u8 log_depth;
	__u8 log_stride;		/* 5..9 */
	__u8 reserved_30[2];
	__aligned_u64 buf_addr;
};

struct sfab_ibv_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;			/* for the SRQ doorbell */
};

#endif /* SFAB_ABI_USER_H */
