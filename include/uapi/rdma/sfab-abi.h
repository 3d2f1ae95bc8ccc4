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
 */
#define SFAB_UVERBS_ABI_VERSION 1

enum sfab_ibv_user_cmds_supp_udata {
	SFAB_USER_CMDS_SUPP_UDATA_QUERY_DEVICE = 1 << 0,
};

struct sfab_ibv_alloc_ucontext_cmd {
	__u32 comp_mask;
	__u8 reserved_20[4];
};

enum sfab_ibv_alloc_ucontext_resp_flags {
	SFAB_ALLOC_UCONTEXT_RESP_DB_WC = 1 << 0,
	/*
	 * A send CQE carries its WQE's SQ index (struct sfab_cqe.wqe_index)
	 * and a successful unsignaled send WQE writes no CQE: SQ slots are
	 * retired up to that index.  Without it, every send WQE must ask for
	 * a CQE (SFAB_WQE_SIGNALED) and slots retire one per send CQE.
	 */
	SFAB_ALLOC_UCONTEXT_RESP_CQE_WQE_INDEX = 1 << 1,
};

struct sfab_ibv_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 flags;			/* enum sfab_ibv_alloc_ucontext_resp_flags */
	__aligned_u64 db_mmap_key;	/* mmap offset of this context's doorbell page, uncached */
	__u32 db_page_index;		/* its page number in the doorbell BAR */
	__u32 db_page_size;		/* bytes */
	__u32 max_inline;		/* bytes of inline send data */
	__u32 cmds_supp_udata_mask;	/* enum sfab_ibv_user_cmds_supp_udata */
	__u16 sub_cqs_per_cq;
	__u8 reserved_70[6];
	/* with SFAB_ALLOC_UCONTEXT_RESP_DB_WC: the same page, write-combining */
	__aligned_u64 db_wc_mmap_key;
};

struct sfab_ibv_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

enum {
	SFAB_QUERY_DEVICE_CAPS_DB_WC = 1 << 0,
};

struct sfab_ibv_ex_query_device_resp {
	__u32 comp_mask;
	__u32 device_caps;		/* SFAB_QUERY_DEVICE_CAPS_* */
	__u32 max_sq_wr;
	__u32 max_rq_wr;
	__u16 max_sq_sge;
	__u16 max_rq_sge;
	__u32 max_inline;
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
	__u32 max_inline;		/* bytes of inline data a send WQE holds */
	__u32 reserved_60;
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
