/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab kernel datapath types: what a UD send, a fast registration and
 * MODIFY_QP take.  The functions that build send and receive WQEs from
 * ib_core work requests and turn CQEs into ib_wc are sfab_datapath.c's,
 * next to the post and poll functions that call them once per WQE or
 * CQE: static there without KUnit, so that the compiler may inline them.
 * Ring geometry, the stride rule, doorbell values, send-queue retirement
 * and CQE decoding are the contract's (include/sfab/sfab_queue.h,
 * sfab_ring.h).  The KUnit suites sfab_wqe, sfab_cq and sfab_qp test
 * them.
 */
#ifndef _SFAB_WQE_H_
#define _SFAB_WQE_H_

#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/types.h>

#include <rdma/ib_verbs.h>

#include <sfab/sfab_queue.h>
#include <sfab/sfab_regs.h>

#include "sfab_com.h"

/* CQE status and QP state codes are ib_core's: copied as they are */
static_assert((int)SFAB_CQE_STS_WR_FLUSH_ERR == (int)IB_WC_WR_FLUSH_ERR);
static_assert((int)SFAB_CQE_STS_GENERAL_ERR == (int)IB_WC_GENERAL_ERR);
static_assert((int)SFAB_QPS_ERR == (int)IB_QPS_ERR);
static_assert((int)SFAB_QPS_RTS == (int)IB_QPS_RTS);

/* where a UD send goes: from the AH, resolved by the caller */
struct sfab_ud_av {
	u16 dlid;		/* 0xffff for directed-route SMPs */
	u8 sl;
	u8 src_path_bits;
	u8 port_num;
	bool global;		/* UD and GSI: the WQE carries grh */
	struct sfab_wqe_grh grh;	/* as the WQE has it: sfab_com_grh_encode() */
};

/* a fast registration, as the caller resolved it from its MR */
struct sfab_fast_reg {
	u64 iova;
	u64 length;
	u64 pbl_dma;		/* page list: npages __le64 bus addresses */
	u32 key;		/* the MR's index with the new variant */
	u32 access;		/* SFAB_ACCESS_* */
	u32 npages;
	u8 page_shift;
};

/* ---- MODIFY_QP -------------------------------------------------------------- */

/* ib_qp_attr_mask bits the device has no use for: -EOPNOTSUPP */
#define SFAB_QP_ATTR_UNSUPPORTED (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | \
				  IB_QP_CAP | IB_QP_RATE_LIMIT)

/* the QP access rights the device takes (remote ones; no memory windows) */
#define SFAB_QP_ACCESS_HW	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)

/*
 * sfab_datapath.c's WQE builders, CQE conversion and MODIFY_QP decisions,
 * static without KUnit; the KUnit suites sfab_wqe, sfab_cq and sfab_qp
 * reach them through VISIBLE_IF_KUNIT and EXPORT_SYMBOL_IF_KUNIT.
 */
#if IS_ENABLED(CONFIG_KUNIT)
int sfab_wqe_build_ud(void *wqe, unsigned int stride,
		      const struct ib_ud_wr *wr, const struct sfab_ud_av *av,
		      u32 max_inline, bool signaled);
int sfab_wqe_build_rc(void *wqe, unsigned int stride,
		      const struct ib_send_wr *s, bool uc, u32 max_inline,
		      bool signaled);
int sfab_wqe_build_reg_mr(void *wqe, unsigned int stride,
			  const struct ib_send_wr *s,
			  const struct sfab_fast_reg *fr, bool signaled);
int sfab_wqe_build_local_inv(void *wqe, unsigned int stride,
			     const struct ib_send_wr *s, bool signaled);
int sfab_rwqe_build(void *wqe, unsigned int stride,
		    const struct ib_recv_wr *wr);
bool sfab_cqe_is_new(const struct sfab_cqe *cqe, u16 cc,
		     unsigned int log_depth);
void sfab_cqe_to_wc(const struct sfab_cqe *cqe, struct ib_wc *wc);
struct sfab_qp;
struct sfab_wq;
int sfab_wq_flush_lost(struct sfab_qp *qp, struct sfab_wq *wq, bool recv,
		       struct ib_wc *wc, int num);
void sfab_cq_kick_one(struct ib_cq *ibcq);

struct sfab_com_qp_attr;
u32 sfab_qp_cmd_build(struct sfab_com_qp_attr *p, u32 qpn,
		      const struct ib_qp_attr *attr, int mask,
		      enum ib_qp_state next, u8 retry_cnt, u8 rnr_retry);
void sfab_qp_keep_rd_atomic(struct sfab_com_qp_attr *p, int mask,
			    u8 max_rd_atomic, u8 max_dest_rd_atomic);
bool sfab_qp_sqd_notify(enum ib_qp_state cur, enum ib_qp_state next,
			int mask, const struct ib_qp_attr *attr, bool was);
#endif

#endif /* _SFAB_WQE_H_ */
