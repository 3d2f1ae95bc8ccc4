/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab datapath helpers without device state: building send and receive
 * WQEs from ib_core work requests and turning CQEs into ib_wc.  Ring
 * geometry, the stride rule, doorbell values, send-queue retirement and
 * CQE decoding are the contract's (include/sfab/sfab_queue.h,
 * sfab_ring.h).  The KUnit suites sfab_wqe and sfab_cq test them.
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
	struct sfab_wqe_grh grh;
};

static inline void sfab_sge_set(struct sfab_sge *dst, const struct ib_sge *src)
{
	dst->addr = cpu_to_le64(src->addr);
	dst->length = cpu_to_le32(src->length);
	dst->lkey = cpu_to_le32(src->lkey);
}

/* copy the SGEs' bytes (kernel virtual addresses) after an inline header */
static inline int sfab_wqe_copy_inline(void *wqe, unsigned int room,
				       const struct ib_send_wr *s,
				       u32 max_inline)
{
	int err;

	SFAB_WQE_INLINE_FILL(wqe, room, s->sg_list, s->num_sge, max_inline, err);
	return err;
}

/**
 * sfab_wqe_build_ud() - build a UD, SMI or GSI send WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per send WQE
 * @wr: the work request
 * @av: its destination, from the AH
 * @max_inline: the QP's inline limit; IB_SEND_INLINE copies the SGEs'
 *	bytes (kernel virtual addresses) into the WQE
 * @signaled: ask the device for a completion
 *
 * Return: 0, or -EINVAL for an opcode, SGE count or inline length the WQE
 * cannot carry.
 */
static inline int sfab_wqe_build_ud(void *wqe, unsigned int stride,
				    const struct ib_ud_wr *wr,
				    const struct sfab_ud_av *av, u32 max_inline,
				    bool signaled)
{
	const struct ib_send_wr *s = &wr->wr;
	struct sfab_wqe_ctrl *ctrl = wqe;
	struct sfab_wqe_ud *ud = wqe + sizeof(*ctrl);
	/* a global address: the GRH segment follows the UD address */
	size_t hdr = SFAB_UD_WQE_HDR_LEN +
		     (av->global ? sizeof(struct sfab_wqe_grh) : 0);
	struct sfab_sge *sge = wqe + hdr;
	u8 opcode;
	int err;
	int i;

	switch (s->opcode) {
	case IB_WR_SEND:
		opcode = SFAB_WQE_SEND;
		break;
	case IB_WR_SEND_WITH_IMM:
		opcode = SFAB_WQE_SEND_IMM;
		break;
	default:
		return -EINVAL;
	}
	if (s->num_sge < 0 || stride < hdr)
		return -EINVAL;
	if (s->send_flags & IB_SEND_INLINE) {
		err = sfab_wqe_copy_inline(wqe + hdr, stride - hdr, s,
					   max_inline);
		if (err)
			return err;
	} else if (hdr + s->num_sge * sizeof(*sge) > stride) {
		return -EINVAL;
	}

	memset(wqe, 0, hdr);
	ctrl->opcode = opcode;
	if (signaled)
		ctrl->flags |= SFAB_WQE_SIGNALED;
	if (s->send_flags & IB_SEND_SOLICITED)
		ctrl->flags |= SFAB_WQE_SOLICITED;
	if (s->send_flags & IB_SEND_FENCE)
		ctrl->flags |= SFAB_WQE_FENCE;
	if (opcode == SFAB_WQE_SEND_IMM)
		ctrl->imm_data = s->ex.imm_data;
	ctrl->wr_id = cpu_to_le64(s->wr_id);

	ud->dest_qpn = cpu_to_le32(wr->remote_qpn & SFAB_DB_QPN_MASK);
	ud->qkey = cpu_to_le32(wr->remote_qkey);
	ud->dlid = cpu_to_le16(av->dlid);
	ud->sl = av->sl;
	ud->src_path_bits = av->src_path_bits;
	ud->pkey_index = cpu_to_le16(wr->pkey_index);
	ud->port_num = av->port_num;
	if (av->global) {
		ctrl->flags |= SFAB_WQE_GRH;
		memcpy(wqe + SFAB_UD_WQE_HDR_LEN, &av->grh, sizeof(av->grh));
	}

	if (s->send_flags & IB_SEND_INLINE) {
		ctrl->flags |= SFAB_WQE_INLINE;
		return 0;
	}
	ctrl->num_sge = s->num_sge;
	for (i = 0; i < s->num_sge; i++)
		sfab_sge_set(&sge[i], &s->sg_list[i]);
	return 0;
}

/* what follows the control segment of an RC or UC send WQE */
static inline int sfab_wqe_rc_opcode(enum ib_wr_opcode op, bool uc, u8 *opcode,
				     size_t *seg)
{
	*seg = 0;
	switch (op) {
	case IB_WR_SEND:
		*opcode = SFAB_WQE_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		*opcode = SFAB_WQE_SEND_IMM;
		return 0;
	case IB_WR_SEND_WITH_INV:
		*opcode = SFAB_WQE_SEND_INV;
		return uc ? -EINVAL : 0;
	case IB_WR_RDMA_WRITE:
		*opcode = SFAB_WQE_RDMA_WRITE;
		*seg = sizeof(struct sfab_wqe_raddr);
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*opcode = SFAB_WQE_RDMA_WRITE_IMM;
		*seg = sizeof(struct sfab_wqe_raddr);
		return 0;
	case IB_WR_RDMA_READ:
		*opcode = SFAB_WQE_RDMA_READ;
		*seg = sizeof(struct sfab_wqe_raddr);
		return uc ? -EINVAL : 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*opcode = SFAB_WQE_ATOMIC_CS;
		*seg = sizeof(struct sfab_wqe_raddr) +
		       sizeof(struct sfab_wqe_atomic);
		return uc ? -EINVAL : 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*opcode = SFAB_WQE_ATOMIC_FA;
		*seg = sizeof(struct sfab_wqe_raddr) +
		       sizeof(struct sfab_wqe_atomic);
		return uc ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

static inline void sfab_wqe_ctrl_set(struct sfab_wqe_ctrl *ctrl, u8 opcode,
				     const struct ib_send_wr *s, bool signaled)
{
	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->opcode = opcode;
	if (signaled)
		ctrl->flags |= SFAB_WQE_SIGNALED;
	if (s->send_flags & IB_SEND_SOLICITED)
		ctrl->flags |= SFAB_WQE_SOLICITED;
	if (s->send_flags & IB_SEND_FENCE)
		ctrl->flags |= SFAB_WQE_FENCE;
	ctrl->wr_id = cpu_to_le64(s->wr_id);
}

/**
 * sfab_wqe_build_rc() - build an RC or UC send, RDMA or atomic WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per send WQE
 * @s: the work request (rdma_wr() and atomic_wr() for those opcodes)
 * @uc: the QP is UC: no READ, atomics or SEND_WITH_INV
 * @max_inline: the QP's inline limit; IB_SEND_INLINE copies the SGEs'
 *	bytes (kernel virtual addresses) into the WQE
 * @signaled: ask the device for a completion
 *
 * Layout: control, then struct sfab_wqe_raddr for RDMA and atomics, then
 * struct sfab_wqe_atomic for atomics, then the SGEs or the inline data.
 * An atomic takes exactly one 8-byte SGE and no inline data.
 *
 * Return: 0, or -EINVAL for what the WQE or the transport cannot carry.
 */
static inline int sfab_wqe_build_rc(void *wqe, unsigned int stride,
				    const struct ib_send_wr *s, bool uc,
				    u32 max_inline, bool signaled)
{
	struct sfab_wqe_ctrl *ctrl = wqe;
	struct sfab_wqe_raddr *ra = wqe + sizeof(*ctrl);
	struct sfab_wqe_atomic *at = wqe + sizeof(*ctrl) + sizeof(*ra);
	bool inl = s->send_flags & IB_SEND_INLINE;
	struct sfab_sge *sge;
	size_t hdr, seg;
	u8 opcode;
	int err;
	int i;

	err = sfab_wqe_rc_opcode(s->opcode, uc, &opcode, &seg);
	if (err)
		return err;
	hdr = sizeof(*ctrl) + seg;
	if (s->num_sge < 0 || stride < hdr)
		return -EINVAL;
	if (opcode == SFAB_WQE_ATOMIC_CS || opcode == SFAB_WQE_ATOMIC_FA) {
		if (inl || s->num_sge != 1 || s->sg_list[0].length != 8)
			return -EINVAL;
	}
	if (opcode == SFAB_WQE_RDMA_READ && inl)
		return -EINVAL;
	if (inl) {
		err = sfab_wqe_copy_inline(wqe + hdr, stride - hdr, s,
					   max_inline);
		if (err)
			return err;
	} else if (hdr + s->num_sge * sizeof(*sge) > stride) {
		return -EINVAL;
	}

	sfab_wqe_ctrl_set(ctrl, opcode, s, signaled);
	if (opcode == SFAB_WQE_SEND_IMM || opcode == SFAB_WQE_RDMA_WRITE_IMM)
		ctrl->imm_data = s->ex.imm_data;
	if (opcode == SFAB_WQE_SEND_INV)
		ctrl->imm_data = (__force __be32)cpu_to_le32(s->ex.invalidate_rkey);

	if (seg) {
		memset(ra, 0, sizeof(*ra));
		if (opcode == SFAB_WQE_ATOMIC_CS || opcode == SFAB_WQE_ATOMIC_FA) {
			const struct ib_atomic_wr *a = atomic_wr(s);

			ra->remote_addr = cpu_to_le64(a->remote_addr);
			ra->rkey = cpu_to_le32(a->rkey);
			at->swap_add = cpu_to_le64(opcode == SFAB_WQE_ATOMIC_CS ?
						   a->swap : a->compare_add);
			at->compare = cpu_to_le64(opcode == SFAB_WQE_ATOMIC_CS ?
						  a->compare_add : 0);
		} else {
			const struct ib_rdma_wr *r = rdma_wr(s);

			ra->remote_addr = cpu_to_le64(r->remote_addr);
			ra->rkey = cpu_to_le32(r->rkey);
		}
	}

	if (inl) {
		ctrl->flags |= SFAB_WQE_INLINE;
		return 0;
	}
	sge = wqe + hdr;
	ctrl->num_sge = s->num_sge;
	for (i = 0; i < s->num_sge; i++)
		sfab_sge_set(&sge[i], &s->sg_list[i]);
	return 0;
}

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

/**
 * sfab_wqe_build_reg_mr() - build a REG_MR WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per send WQE
 * @s: the IB_WR_REG_MR work request (its wr_id and flags)
 * @fr: the registration
 * @signaled: ask the device for a completion
 *
 * Return: 0, or -EINVAL when the WQE does not fit.
 */
static inline int sfab_wqe_build_reg_mr(void *wqe, unsigned int stride,
					const struct ib_send_wr *s,
					const struct sfab_fast_reg *fr,
					bool signaled)
{
	struct sfab_wqe_ctrl *ctrl = wqe;
	struct sfab_wqe_reg_mr *r = wqe + sizeof(*ctrl);

	if (stride < sizeof(*ctrl) + sizeof(*r))
		return -EINVAL;
	sfab_wqe_ctrl_set(ctrl, SFAB_WQE_REG_MR, s, signaled);
	memset(r, 0, sizeof(*r));
	r->iova = cpu_to_le64(fr->iova);
	r->length = cpu_to_le64(fr->length);
	r->pbl_addr = cpu_to_le64(fr->pbl_dma);
	r->key = cpu_to_le32(fr->key);
	r->access = cpu_to_le32(fr->access);
	r->npages = cpu_to_le32(fr->npages);
	r->page_shift = fr->page_shift;
	return 0;
}

/**
 * sfab_wqe_build_local_inv() - build a LOCAL_INV WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per send WQE
 * @s: the IB_WR_LOCAL_INV work request (ex.invalidate_rkey)
 * @signaled: ask the device for a completion
 *
 * Return: 0, or -EINVAL when the WQE does not fit.
 */
static inline int sfab_wqe_build_local_inv(void *wqe, unsigned int stride,
					   const struct ib_send_wr *s,
					   bool signaled)
{
	struct sfab_wqe_ctrl *ctrl = wqe;

	if (stride < sizeof(*ctrl))
		return -EINVAL;
	sfab_wqe_ctrl_set(ctrl, SFAB_WQE_LOCAL_INV, s, signaled);
	/* the key in the device's byte order, as SEND_INV carries it */
	ctrl->imm_data = (__force __be32)cpu_to_le32(s->ex.invalidate_rkey);
	return 0;
}

/**
 * sfab_rwqe_build() - build a receive WQE
 * @wqe: the ring slot, @stride bytes
 * @stride: bytes per receive WQE
 * @wr: the work request
 *
 * Return: 0, or -EINVAL when the SGEs do not fit.
 */
static inline int sfab_rwqe_build(void *wqe, unsigned int stride,
				  const struct ib_recv_wr *wr)
{
	struct sfab_rwqe_ctrl *ctrl = wqe;
	struct sfab_sge *sge = wqe + sizeof(*ctrl);
	int i;

	if (wr->num_sge < 0 ||
	    sizeof(*ctrl) + wr->num_sge * sizeof(*sge) > stride)
		return -EINVAL;

	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->wr_id = cpu_to_le64(wr->wr_id);
	ctrl->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++)
		sfab_sge_set(&sge[i], &wr->sg_list[i]);
	return 0;
}

/**
 * sfab_cqe_is_new() - whether the CQE at the consumer index is the device's
 * @cqe: the entry at slot @cc of the ring
 * @cc: free-running consumer index
 * @log_depth: log2 of the ring's entries
 *
 * The phase bit is 1 on the first pass over the ring and flips on each
 * pass after.
 */
static inline bool sfab_cqe_is_new(const struct sfab_cqe *cqe, u16 cc,
				   unsigned int log_depth)
{
	return sfab_ring_entry_is_new(READ_ONCE(cqe->flags) & SFAB_CQE_PHASE,
				      cc, log_depth);
}

/**
 * sfab_cqe_to_wc() - fill an ib_wc from a CQE
 * @cqe: the completion, already owned by the driver
 * @wc: filled, all but @wc->qp
 *
 * sfab_cqe_decode() reads it (the provider does the same): an opcode the
 * contract does not know becomes IB_WC_GENERAL_ERR with the opcode in
 * vendor_err.
 */
static inline void sfab_cqe_to_wc(const struct sfab_cqe *cqe, struct ib_wc *wc)
{
	struct sfab_cqe_info ci;
	bool known = sfab_cqe_decode(cqe, &ci);

	memset(wc, 0, sizeof(*wc));
	SFAB_WC_FILL(wc, &ci);
	if (!known) {
		wc->opcode = ci.recv ? IB_WC_RECV : IB_WC_SEND;
		return;
	}

	switch (ci.opcode) {
	case SFAB_CQE_RDMA_WRITE:
		wc->opcode = IB_WC_RDMA_WRITE;
		break;
	case SFAB_CQE_RDMA_READ:
		wc->opcode = IB_WC_RDMA_READ;
		break;
	case SFAB_CQE_ATOMIC_CS:
		wc->opcode = IB_WC_COMP_SWAP;
		break;
	case SFAB_CQE_ATOMIC_FA:
		wc->opcode = IB_WC_FETCH_ADD;
		break;
	case SFAB_CQE_LOCAL_INV:
		wc->opcode = IB_WC_LOCAL_INV;
		break;
	case SFAB_CQE_REG_MR:
		wc->opcode = IB_WC_REG_MR;
		break;
	case SFAB_CQE_RECV:
		wc->opcode = IB_WC_RECV;
		break;
	case SFAB_CQE_RECV_RDMA_IMM:
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		break;
	default:
		wc->opcode = IB_WC_SEND;
		break;
	}
	if (!ci.recv)
		return;

	if (ci.inv) {
		wc->ex.invalidate_rkey = ci.inv_rkey;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	} else if (ci.imm) {
		wc->ex.imm_data = ci.imm_data;
		wc->wc_flags |= IB_WC_WITH_IMM;
	}
	if (ci.grh)
		wc->wc_flags |= IB_WC_GRH;
}

/* ---- MODIFY_QP -------------------------------------------------------------- */

/* ib_qp_attr_mask bits the device has no use for: -EOPNOTSUPP */
#define SFAB_QP_ATTR_UNSUPPORTED (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | \
				  IB_QP_CAP | IB_QP_RATE_LIMIT)

/* the QP access rights the device takes (remote ones; no memory windows) */
#define SFAB_QP_ACCESS_HW	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)

/*
 * sfab_datapath.c's MODIFY_QP decisions, static without KUnit; the KUnit
 * suite sfab_qp reaches them through VISIBLE_IF_KUNIT and
 * EXPORT_SYMBOL_IF_KUNIT.
 */
#if IS_ENABLED(CONFIG_KUNIT)
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
