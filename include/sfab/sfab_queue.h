/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sfab hardware contract v1: completion queues, queue pairs, work queue
 * entries and completion entries.
 *
 * Rings live in host memory: either one physically contiguous block
 * (SFAB_RING_CONTIG, what kernel consumers use) or pages listed in a page
 * list (an array of __le64 bus addresses of 2^page_shift-byte pages, what
 * user-space queues use).  Producer and consumer indices are free-running
 * 16-bit counters; a ring of 2^log_depth entries holds entry i at
 * slot i & (2^log_depth - 1).
 *
 * Doorbells (sfab_regs.h) are 64-bit writes to the doorbell page the queue
 * was created with: SQ/RQ carry the QPN and the new producer index, CQ the
 * CQN, the new consumer index and an arm request.  A write through any
 * other page is ignored and counted: a process can ring only its own
 * queues.
 */
#ifndef _SFAB_QUEUE_H_
#define _SFAB_QUEUE_H_

#include "sfab_types.h"
#include "sfab_ring.h"

/* struct sfab_ring_desc.flags */
#define SFAB_RING_CONTIG		(1U << 0)	/* addr is the ring itself */

/* where a ring lives: 16 bytes */
struct sfab_ring_desc {
	__le64 addr;			/* the ring (CONTIG) or its page list */
	__u8 log_depth;			/* entries: 2^log_depth */
	__u8 log_stride;		/* bytes per entry: 2^log_stride */
	__u8 page_shift;		/* page list: SFAB_RING_{MIN,MAX}_PAGE_SHIFT */
	__u8 flags;			/* SFAB_RING_* */
	__le32 npages;			/* page list entries (0 with CONTIG) */
};

/* SFAB_AQ_CREATE_CQ: result0 returns the CQN */
struct sfab_aq_create_cq {
	struct sfab_ring_desc ring;	/* of struct sfab_cqe, log_stride 5 */
	__le32 eqn;			/* EQ that signals this CQ's events */
	__le16 db_page;			/* doorbell page allowed to ring it */
	__le16 reserved0;
	/*
	 * SFAB_DEV_CAP_DBREC: its doorbell record (sfab_ring.h), 0 for none;
	 * SFAB_DBREC_ALIGN aligned, else BAD_PARAM.  Without the capability
	 * it must be 0.
	 */
	__le64 dbrec_addr;
};

/* SFAB_AQ_DESTROY_CQ */
struct sfab_aq_destroy_cq {
	__le32 cqn;
	__le32 reserved;
};

/*
 * SFAB_AQ_RESIZE_CQ (SFAB_DEV_CAP_RESIZE_CQ): the CQ moves to a new ring.
 * @ci is the host's consumer index: every CQE before it is consumed, and
 * it is at most the ring's depth behind the device's producer index.
 * The device copies the CQEs from @ci up to its producer index into
 * entries 0, 1, ... of the new ring (their phase bits set for a first
 * pass) and both indices start over from there: the host's next CQE is
 * entry 0, the device writes its next one after the copies.  The host
 * zeroes the new ring before (phase 0: not written).  The CQ's doorbell
 * record becomes @dbrec_addr (0: none; as for CREATE_CQ, and it reads 0
 * when the command is issued); its EQ, doorbell page and arm request stay.
 *
 * BAD_PARAM: a field out of range, or more CQEs outstanding than the new
 * ring holds; DMA_ERROR: a CQE could not be copied; BAD_STATE: the CQ is
 * in error.  A refused command leaves the CQ on its old ring, untouched.
 */
struct sfab_aq_resize_cq {
	struct sfab_ring_desc ring;	/* the new ring of struct sfab_cqe */
	__le32 cqn;
	__le16 ci;			/* the host's consumer index */
	__le16 reserved0;
	__le64 dbrec_addr;		/* SFAB_DEV_CAP_DBREC: the new record */
};

enum sfab_qp_type {
	SFAB_QPT_SMI			= 0,	/* QP0 of a port */
	SFAB_QPT_GSI			= 1,	/* QP1 of a port */
	SFAB_QPT_RC			= 2,
	SFAB_QPT_UC			= 3,
	SFAB_QPT_UD			= 4,
	SFAB_QPT_XRC_INI		= 5,	/* SFAB_DEV_CAP_XRC: XRC send QP */
	SFAB_QPT_XRC_TGT		= 6,	/* SFAB_DEV_CAP_XRC: XRC receive QP */
};

/*
 * XRC (SFAB_DEV_CAP_XRC; IBA 9.8, 11.2.4.3).  An XRC_INI QP is the
 * sending half of an RC connection: a send queue, its send CQ and PD; no
 * receive queue (rq, recv_cqn and srqn are zero).  Its send WQEs carry a
 * struct sfab_wqe_xrc after the control segment, naming the XRC SRQ at
 * the far end; the rest of the WQE is as on an RC QP.  An XRC_TGT QP is
 * the receiving half: no rings, no CQs, no PD (sq, rq, cqns and pdn are
 * zero), only its XRC domain (xrcdn).  Every request packet carries an
 * XRCETH with the SRQ's number; the target takes the receive WQE from
 * that SRQ, completes it on the SRQ's CQ (SFAB_CQE_XRC), and checks the
 * rkeys of RDMA and atomics against the SRQ's PD.  An SRQ that is not an
 * XRC SRQ of the target's domain is an invalid request (NAK, the target
 * goes to Error), as is a multi-packet send whose packets name different
 * SRQs.  Both halves are modified like RC QPs: the initiator as a
 * requester, the target as a responder (its path is where its ACKs go).
 * A doorbell of a target, or of an initiator's receive queue, is
 * ignored.
 */

/*
 * struct sfab_aq_create_qp.flags
 *
 * PRIV: a kernel QP.  It may use local_dma_lkey and post REG_MR (both
 * make the device access bus addresses the WQE names); any other QP that
 * tries completes the WQE with an error (LOC_PROT_ERR, LOC_QP_OP_ERR).
 * Only the kernel driver sets it, for QPs of kernel consumers, never for
 * a QP a process creates.
 */
#define SFAB_QP_PRIV			(1U << 0)	/* kernel QP: local_dma_lkey, REG_MR */
#define SFAB_QP_SRQ			(1U << 1)	/* receives come from srqn; rq unused */

/* SFAB_AQ_CREATE_QP: result0 returns the QPN (0 or 1 for SMI, GSI) */
struct sfab_aq_create_qp {
	struct sfab_ring_desc sq;	/* send WQEs, log_stride 6..9 */
	struct sfab_ring_desc rq;	/* receive WQEs, log_stride 5..9 */
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 pdn;
	__le16 db_page;			/* doorbell page allowed to ring it */
	__u8 qp_type;			/* enum sfab_qp_type */
	__u8 port_num;			/* SMI/GSI: the port; else 0 */
	__le32 flags;			/* SFAB_QP_* */
	union {
		__le32 srqn;		/* with SFAB_QP_SRQ; same PD as the QP */
		__le32 xrcdn;		/* SFAB_QPT_XRC_TGT: its XRC domain */
	};
};

/* struct sfab_aq_modify_qp.attr_mask: which fields to apply */
#define SFAB_QP_ATTR_STATE		(1U << 0)
#define SFAB_QP_ATTR_QKEY		(1U << 1)
#define SFAB_QP_ATTR_PKEY_INDEX		(1U << 2)
#define SFAB_QP_ATTR_PORT		(1U << 3)
#define SFAB_QP_ATTR_SQ_PSN		(1U << 4)
#define SFAB_QP_ATTR_RQ_PSN		(1U << 5)
#define SFAB_QP_ATTR_DEST_QPN		(1U << 6)
#define SFAB_QP_ATTR_PATH_MTU		(1U << 7)
#define SFAB_QP_ATTR_AV			(1U << 8)	/* dlid, sl, path bits */
#define SFAB_QP_ATTR_ACCESS		(1U << 9)
#define SFAB_QP_ATTR_TIMEOUT		(1U << 10)
#define SFAB_QP_ATTR_RETRY		(1U << 11)	/* retry_cnt, rnr_retry */
#define SFAB_QP_ATTR_MIN_RNR_TIMER	(1U << 12)
/*
 * RD_ATOMIC covers two fields: a move to RTR applies max_dest_rd_atomic
 * (the responder's), a move to RTS max_rd_atomic (the requester's), SQD ->
 * SQD both.
 */
#define SFAB_QP_ATTR_RD_ATOMIC		(1U << 13)
/*
 * GRH: with AV, the path is global: the device reads a struct sfab_wqe_grh
 * from grh_addr (struct sfab_aq_modify_qp_grh) during the command and its
 * packets carry a GRH (LNH IBA global).  AV without GRH makes the path
 * local again.  GRH without AV is refused.
 */
#define SFAB_QP_ATTR_GRH		(1U << 14)

/*
 * QP states: the values of enum ib_qp_state.
 *
 * SQD (send queue drain, IBA 10.3.1, 11.2.4): entered from RTS.  The QP
 * finishes the send WQEs it has begun (every packet of a message already
 * started goes out; RC: until acknowledged) and starts no new one; WQEs
 * posted meanwhile wait for SQD -> RTS.  Receives and the responder go on
 * as in RTS.  Once every WQE begun has completed the QP is drained: the
 * device raises SFAB_QP_EV_SQ_DRAINED, once per entry into SQD, always
 * (the driver decides whether the consumer asked for it).  SQD -> SQD
 * takes QKEY / PKEY_INDEX (UD, SMI, GSI), AV (+GRH), ACCESS, PKEY_INDEX
 * (UC), and PORT, AV, TIMEOUT, RETRY, RD_ATOMIC, ACCESS, PKEY_INDEX,
 * MIN_RNR_TIMER (RC); the path ones (PORT, AV, GRH, PKEY_INDEX, TIMEOUT,
 * RETRY, RD_ATOMIC) only when drained, else SFAB_AQ_STS_BAD_STATE.  Errors
 * in SQD move the QP to ERR as in RTS.
 */
enum sfab_qp_state {
	SFAB_QPS_RESET			= 0,
	SFAB_QPS_INIT			= 1,
	SFAB_QPS_RTR			= 2,
	SFAB_QPS_RTS			= 3,
	SFAB_QPS_SQD			= 4,
	SFAB_QPS_SQE			= 5,
	SFAB_QPS_ERR			= 6,
};

/*
 * A global route (IBTA 8.3): what a GRH carries besides what the device
 * fills in (IPVer 6, PayLen, NxtHdr, the SGID from sgid_index).  32 bytes;
 * the QP's path (SFAB_QP_ATTR_GRH) and UD/GSI send WQEs (SFAB_WQE_GRH) use
 * it.
 * The port has one GID, index 0: its subnet prefix and port GUID.
 */
struct sfab_wqe_grh {
	__u8 dgid[16];			/* as on the wire */
	__le32 flow_label;		/* 20 bits */
	__u8 sgid_index;		/* 0 */
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 reserved0;
	__le64 reserved1;
};

/* SFAB_AQ_MODIFY_QP */
struct sfab_aq_modify_qp {
	__le32 qpn;
	__le32 attr_mask;		/* SFAB_QP_ATTR_* */
	__le32 qkey;
	__le32 sq_psn;			/* 24 bits */
	__le32 rq_psn;			/* 24 bits */
	__le32 dest_qpn;		/* 24 bits */
	__le16 pkey_index;
	__le16 dlid;
	__u8 state;			/* enum sfab_qp_state */
	__u8 port_num;
	__u8 path_mtu;			/* IBA MTU code */
	__u8 sl;
	__u8 src_path_bits;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 min_rnr_timer;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 reserved0;
	__le32 access_flags;		/* SFAB_ACCESS_REMOTE_*: what the peer may do */
	__le32 reserved1;
};

/*
 * SFAB_AQ_MODIFY_QP with SFAB_QP_ATTR_GRH: the same command, with the
 * command's last 8 bytes naming the GRH block (zero without the bit).
 */
struct sfab_aq_modify_qp_grh {
	struct sfab_aq_modify_qp qp;
	__le64 grh_addr;		/* host buffer: struct sfab_wqe_grh */
};

/* SFAB_AQ_QUERY_QP: DMA a struct sfab_qp_attr to resp_addr */
struct sfab_aq_query_qp {
	__le64 resp_addr;
	__le32 resp_len;		/* >= sizeof(struct sfab_qp_attr) */
	__le32 qpn;
};

/* SFAB_AQ_QUERY_QP response: the modify_qp fields as the device holds them */
struct sfab_qp_attr {
	struct sfab_aq_modify_qp attr;	/* attr_mask: every field valid */
	__le16 sq_pi;			/* producer index the device has seen */
	__le16 sq_ci;			/* WQEs it has completed */
	__le16 rq_pi;
	__le16 rq_ci;
	/* the path's GRH when attr.attr_mask has SFAB_QP_ATTR_GRH; else zero */
	struct sfab_wqe_grh grh;
	__u8 flags;			/* SFAB_QP_QUERY_* */
	__u8 reserved[23];
};

/* struct sfab_qp_attr.flags */
#define SFAB_QP_QUERY_SQ_DRAINING	(1U << 0)	/* SQD, not drained yet */

/* SFAB_AQ_DESTROY_QP */
struct sfab_aq_destroy_qp {
	__le32 qpn;
	__le32 reserved;
};

/*
 * SFAB_AQ_SET_QP_DBREC (SFAB_DEV_CAP_DBREC): the doorbell records of a QP's
 * send and receive queues (sfab_ring.h), 0 for none.  CREATE_QP has no
 * room for them: a host sets them after CREATE_QP, while the QP is in
 * RESET (else BAD_STATE), and may set them again there (0 removes one).
 * Refused with BAD_PARAM: no such QP, an address not SFAB_DBREC_ALIGN
 * aligned, an rq_dbrec on a QP with an SRQ, a nonzero reserved byte.
 */
struct sfab_aq_set_qp_dbrec {
	__le32 qpn;
	__le32 reserved;
	__le64 sq_dbrec;
	__le64 rq_dbrec;
};

/*
 * SFAB_AQ_ATTACH_MCAST, SFAB_AQ_DETACH_MCAST (SFAB_DEV_CAP_MCAST): attach a
 * UD QP to the multicast group (mgid, mlid), or detach it.  From then on
 * a UD packet to mlid with destination QP SFAB_MCAST_QPN, and with a GRH
 * whose DGID is mgid when it has one, is delivered to every QP attached
 * (each with its own receive WQE, Q_Key and P_Key checks), whichever
 * port or QP sent it; a send of a local QP to the group reaches the
 * attached QPs of this device too, the sender's own included (IBA
 * 10.5.2.2: the HCA replicates multicast to its own members).
 *
 * Attaching a QP already attached to the group succeeds and changes
 * nothing.  Refused with BAD_PARAM: no such QP, a QP that is not UD, an
 * mgid that is not multicast or an mlid outside the multicast range
 * (sfab_aq_mcast_ok() in sfab_admin.h), a nonzero reserved byte, and a
 * detach of a QP that is not attached.  NO_RESOURCES: max_mcast_grp
 * groups exist, or the group has max_mcast_qp_attach QPs.  Destroying a
 * QP detaches it from every group; a group lives while it has a QP.
 */
struct sfab_aq_mcast {
	__le32 qpn;
	__be16 mlid;
	__le16 reserved;
	__u8 mgid[16];
};

/* the destination QP of every multicast packet (IBA 9.6.1.1) */
#define SFAB_MCAST_QPN			0xffffffU

/* ---- memory regions -------------------------------------------------------- */

/* access rights: the values of enum ib_access_flags */
#define SFAB_ACCESS_LOCAL_WRITE		(1U << 0)
#define SFAB_ACCESS_REMOTE_WRITE	(1U << 1)
#define SFAB_ACCESS_REMOTE_READ		(1U << 2)
#define SFAB_ACCESS_REMOTE_ATOMIC	(1U << 3)
#define SFAB_ACCESS_MW_BIND		(1U << 4)	/* SFAB_DEV_CAP_MW: windows may bind */
/* SFAB_DEV_CAP_FLUSH: a peer's FLUSH of global visibility (no persistence) */
#define SFAB_ACCESS_FLUSH_GLOBAL	(1U << 8)
#define SFAB_ACCESS_MASK		(SFAB_GENMASK(4, 0) | SFAB_ACCESS_FLUSH_GLOBAL)

/*
 * An MR key is (index << SFAB_MR_KEY_INDEX_SHIFT) | variant: the device
 * picks the index at CREATE_MR, the variant starts at 0 and a REG_MR WQE
 * may set a new one (ib_update_fast_reg_key).  lkey and rkey are the same
 * key.  A key matches only with its current variant.
 *
 * The region [iova, iova + length) is laid out on the pages of its page
 * list (2^page_shift bytes each): the byte at iova + x is at
 *   pbl[(fbo + x) >> page_shift] + ((fbo + x) & (2^page_shift - 1))
 * with fbo = iova & (2^page_shift - 1), the first byte's offset in its page.
 */
#define SFAB_MR_KEY_INDEX_SHIFT		8
#define SFAB_MR_KEY_VARIANT_MASK	SFAB_GENMASK(7, 0)

/* struct sfab_aq_create_mr.page_shift: MR pages of 4 KiB .. 1 GiB */
#define SFAB_MR_MIN_PAGE_SHIFT		12
#define SFAB_MR_MAX_PAGE_SHIFT		30

/* struct sfab_aq_create_mr.flags */
#define SFAB_MR_FAST_REG		(1U << 0)	/* free until a REG_MR WQE; npages: the most */
#define SFAB_MR_WINDOW			(1U << 1)	/* SFAB_DEV_CAP_MW: a memory window, type 1 */
#define SFAB_MR_WINDOW_TYPE2		(1U << 2)	/* with WINDOW: type 2 */

/*
 * SFAB_AQ_CREATE_MR: result0 returns the key.  The device reads the page
 * list (npages __le64 bus addresses, each 2^page_shift aligned) during the
 * command; the host may free it when the command completes.  With
 * SFAB_MR_FAST_REG, iova, length and pbl_addr are zero and npages is the
 * longest page list a REG_MR WQE may give it.
 *
 * SFAB_MR_WINDOW (SFAB_DEV_CAP_MW): a memory window of PD pdn, type 1, or
 * type 2 with SFAB_MR_WINDOW_TYPE2; iova, length, pbl_addr, npages,
 * access and page_shift are zero.  It is unbound, its key (variant 0)
 * names nothing a peer may use, until a BIND_MW WQE binds it to a range
 * of an MR (struct sfab_wqe_bind_mw).  Keys of windows are never lkeys.
 * DESTROY_MR of a window unbinds it; DESTROY_MR of an MR a window is
 * bound to is refused with BAD_STATE.
 */
struct sfab_aq_create_mr {
	__le64 iova;
	__le64 length;			/* bytes, at most max_mr_size */
	__le64 pbl_addr;		/* the page list */
	__le32 npages;
	__le32 pdn;
	__le32 access;			/* SFAB_ACCESS_* */
	__u8 page_shift;		/* SFAB_MR_{MIN,MAX}_PAGE_SHIFT, a bit of page_size_cap */
	__u8 flags;			/* SFAB_MR_* */
	__le16 reserved;
};

/* SFAB_AQ_DESTROY_MR */
struct sfab_aq_destroy_mr {
	__le32 key;			/* any variant */
	__le32 reserved;
};

/* struct sfab_aq_update_mr.op */
enum sfab_mr_update_op {
	SFAB_MR_UPDATE_INVALIDATE	= 1,	/* no access through the MR */
	SFAB_MR_UPDATE_REMAP		= 2,	/* a new page list; usable again */
	SFAB_MR_UPDATE_MODIFY		= 3,	/* a new PD and access rights */
};

/*
 * SFAB_AQ_UPDATE_MR (SFAB_DEV_CAP_MR_UPDATE): revoke or replace the page
 * list of an MR that CREATE_MR made without SFAB_MR_FAST_REG, keeping its
 * key, PD, iova, length and rights; what a host needs when the memory
 * under a region moves (a dma-buf exporter's move_notify).
 *
 * INVALIDATE: from the command's completion on, every access through
 * the key fails as one through an invalid key does: a WQE's gather or
 * scatter with LOC_PROT_ERR, a peer's RDMA WRITE, READ or atomic with a
 * remote access NAK.  Work already begun sees it at its next lookup of
 * the MR (each packet, each SGE), so no byte moves to or from the old
 * pages after the completion.  pbl_addr, npages and page_shift are 0.
 * Invalidating an invalid MR is allowed and changes nothing.
 *
 * REMAP: the device reads the new page list (npages __le64 bus
 * addresses, each 2^page_shift aligned, as CREATE_MR's) during the
 * command; npages and page_shift must be the MR's own.  From the
 * completion on the MR is valid and its bytes are on the new pages.  A
 * valid MR may be remapped too: the old list is used up to the
 * completion, the new one from then on.
 *
 * MODIFY (a host's rereg_mr of PD or access, keeping the keys): from the
 * completion on the MR belongs to new_pdn and allows new_access (the
 * rules of CREATE_MR's access); its pages, key, iova and length stay.
 * Work already begun sees it at its next lookup, as for INVALIDATE.
 * pbl_addr, npages and page_shift are 0.  (INVALIDATE and REMAP leave
 * new_pdn and new_access 0.)  Refused with BAD_STATE, the MR unchanged,
 * while a memory window is bound to it (IBA: re-registration fails
 * then); a host may send MODIFY with the MR's own PD and rights to ask
 * whether one is.
 *
 * key is the key CREATE_MR returned and pdn the MR's PD.  Refused with
 * BAD_PARAM, the MR unchanged: no such MR, a fast-registration MR,
 * another PD, an unknown op, a REMAP whose npages or page_shift differ
 * from the MR's or whose page list cannot be read or has a misaligned
 * entry, an INVALIDATE with a page list, a nonzero reserved byte.
 */
struct sfab_aq_update_mr {
	__le32 key;			/* the MR's key, variant 0 */
	__le32 pdn;			/* the MR's PD */
	__le64 pbl_addr;		/* REMAP: the new page list; else 0 */
	__le32 npages;			/* REMAP: the MR's npages; else 0 */
	__u8 op;			/* enum sfab_mr_update_op */
	__u8 page_shift;		/* REMAP: the MR's page_shift; else 0 */
	__le16 reserved;
	__le32 new_pdn;			/* MODIFY: the MR's PD from now on; else 0 */
	__le32 new_access;		/* MODIFY: SFAB_ACCESS_*; else 0 */
};

/*
 * SFAB_AQ_CREATE_SRQ: result0 returns the SRQN.  Receive WQEs as for a
 * QP's receive queue; its doorbell is SFAB_DB_SRQ.  When limit is non-zero
 * the SRQ is armed: once fewer than limit WQEs are posted the device sends
 * SFAB_AENQ_SRQ_EVENT (SFAB_SRQ_EV_LIMIT) and disarms.
 */
struct sfab_aq_create_srq {
	struct sfab_ring_desc ring;	/* of receive WQEs, log_stride 5..9 */
	__le32 pdn;
	__le16 db_page;			/* doorbell page allowed to ring it */
	__le16 flags;			/* SFAB_SRQ_* */
	__le32 limit;			/* 0: not armed */
	__le32 cqn;			/* SFAB_SRQ_XRC: where its receives complete */
	/* its doorbell record as CREATE_CQ's dbrec_addr; 0 for none */
	__le64 dbrec_addr;
	__le32 xrcdn;			/* SFAB_SRQ_XRC: its XRC domain */
	__le32 reserved;
};

/*
 * struct sfab_aq_create_srq.flags.  XRC (SFAB_DEV_CAP_XRC): an XRC SRQ,
 * which XRC_TGT QPs of its domain take receives from (sfab_queue.h,
 * "XRC"); it has its own CQ.  Without the flag cqn and xrcdn are zero.
 */
#define SFAB_SRQ_XRC			(1U << 0)

/* SFAB_AQ_MODIFY_SRQ: (re)arm the limit event; 0 disarms */
struct sfab_aq_modify_srq {
	__le32 srqn;
	__le32 limit;
};

/*
 * SFAB_AQ_RESIZE_SRQ (SFAB_DEV_CAP_RESIZE_SRQ): the SRQ moves to a new ring
 * of the same stride.  Its indices stay: @ci is the host's oldest receive
 * WQE not yet completed, @pi its producer index (it posts none while the
 * command runs), and the device copies the WQEs from @ci up to @pi to the
 * new ring at the same indices (slot = index & (new depth - 1)), then
 * takes them from there: a receive it has begun finds its WQE at the same
 * index.  The device's producer index becomes @pi; the new doorbell record
 * (@dbrec_addr, 0: none) holds @pi when the command is issued.  The limit
 * and the doorbell page stay.
 *
 * BAD_PARAM: a field out of range, another stride, more WQEs from @ci to
 * @pi than the new ring holds, a WQE the device takes that is not in
 * [@ci, @pi]; DMA_ERROR: a WQE could not be copied; BAD_STATE: the SRQ is
 * in error.  A refused command leaves the SRQ on its old ring.
 */
struct sfab_aq_resize_srq {
	struct sfab_ring_desc ring;	/* the new ring of receive WQEs */
	__le32 srqn;
	__le16 ci;			/* the host's oldest WQE not completed */
	__le16 pi;			/* the host's producer index */
	__le64 dbrec_addr;		/* SFAB_DEV_CAP_DBREC: the new record */
};

/*
 * SFAB_AQ_DESTROY_SRQ: refused (BAD_STATE) while a QP uses it.  XRC_TGT
 * QPs do not hold an XRC SRQ: a send one of them has open into it ends,
 * and the rest of that message is an invalid request.
 */
struct sfab_aq_destroy_srq {
	__le32 srqn;
	__le32 reserved;
};

/* ---- work queue entries -------------------------------------------------- */

enum sfab_wqe_opcode {
	SFAB_WQE_SEND			= 0x00,
	SFAB_WQE_SEND_IMM		= 0x01,
	SFAB_WQE_SEND_INV		= 0x02,
	SFAB_WQE_RDMA_WRITE		= 0x03,
	SFAB_WQE_RDMA_WRITE_IMM		= 0x04,
	SFAB_WQE_RDMA_READ		= 0x05,
	SFAB_WQE_ATOMIC_CS		= 0x06,
	SFAB_WQE_ATOMIC_FA		= 0x07,
	SFAB_WQE_LOCAL_INV		= 0x08,
	SFAB_WQE_REG_MR			= 0x09,
	SFAB_WQE_BIND_MW		= 0x0a,	/* SFAB_DEV_CAP_MW; RC and UC */
	SFAB_WQE_ATOMIC_WRITE		= 0x0b,	/* SFAB_DEV_CAP_FLUSH; RC */
	SFAB_WQE_FLUSH			= 0x0c,	/* SFAB_DEV_CAP_FLUSH; RC */
};

/* struct sfab_wqe_ctrl.flags */
#define SFAB_WQE_SIGNALED		(1U << 0)	/* write a CQE when done */
#define SFAB_WQE_SOLICITED		(1U << 1)
#define SFAB_WQE_INLINE			(1U << 2)	/* data follows the segments */
#define SFAB_WQE_FENCE			(1U << 3)
#define SFAB_WQE_GRH			(1U << 4)	/* UD, GSI: a struct sfab_wqe_grh */

/* every send WQE starts with this: 16 bytes */
struct sfab_wqe_ctrl {
	__u8 opcode;			/* enum sfab_wqe_opcode */
	__u8 flags;			/* SFAB_WQE_* */
	__u8 num_sge;			/* struct sfab_sge that follow; 0 with INLINE */
	__u8 reserved;
	__be32 imm_data;		/* SEND_IMM, WRITE_IMM: as on the wire;
					 * SEND_INV, LOCAL_INV: the rkey (host order) */
	__le64 wr_id;
};

/*
 * UD, SMI and GSI send WQEs: the address, after the control segment.  With
 * SFAB_WQE_GRH (UD and GSI; an SMI QP completes it with LOC_QP_OP_ERR) a
 * struct sfab_wqe_grh follows it and the datagram carries a GRH; the SGEs
 * or inline data come after that.  A received GRH whose DGID is not the
 * port GID is dropped; SMPs with a GRH are dropped; GMPs with one go to the
 * host's GSI QP (the device's PMA answers only LID-routed requests).
 */
struct sfab_wqe_ud {
	__le32 dest_qpn;		/* 24 bits */
	__le32 qkey;			/* high bit set: use the QP's own Q_Key */
	__le16 dlid;			/* 0xffff (permissive) for directed-route SMPs */
	__u8 sl;
	__u8 src_path_bits;
	__le16 pkey_index;
	__u8 port_num;
	__u8 reserved;
};

/*
 * XRC_INI send WQEs: right after the control segment, before anything an
 * RC WQE of the opcode has; the XRC SRQ at the far end (24 bits).
 */
struct sfab_wqe_xrc {
	__le32 remote_srqn;
	__le32 reserved[3];
};

/* RDMA and atomic WQEs: the remote side, after the control segment */
struct sfab_wqe_raddr {
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved;
};

/*
 * ATOMIC_CS and ATOMIC_FA: after struct sfab_wqe_raddr; one 8-byte SGE
 * follows.  ATOMIC_WRITE (IBA A19): after struct sfab_wqe_raddr, no SGE;
 * swap_add holds the 8 bytes to write, as they are to lie in the peer's
 * memory (8-byte aligned there; the peer needs REMOTE_WRITE); compare is 0.
 */
struct sfab_wqe_atomic {
	__le64 swap_add;		/* CS: the swap value; FA: the addend */
	__le64 compare;			/* CS only */
};

/*
 * REG_MR (fast registration): after the control segment.  Points the free
 * SFAB_MR_FAST_REG MR that key names (same index, new variant) at the page
 * list; the device reads the list when it executes the WQE.  SFAB_QP_PRIV
 * QPs only: on any other QP it completes with LOC_QP_OP_ERR and the MR
 * stays as it was.  LOCAL_INV (key in the control segment's imm_data)
 * frees it again.
 */
struct sfab_wqe_reg_mr {
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 key;			/* the MR's index with the new variant */
	__le32 access;			/* SFAB_ACCESS_* */
	__le32 npages;			/* at most the MR's npages */
	__u8 page_shift;
	__u8 reserved0[3];
	__le64 reserved1;
};

/*
 * FLUSH (IBA A19): after struct sfab_wqe_raddr, no SGE.  Makes what
 * the QP wrote before it (and what others wrote) in [remote_addr,
 * remote_addr + length) of the peer's region (level SFAB_FLUSH_RANGE), or
 * in the whole region the rkey names (SFAB_FLUSH_MR: remote_addr and
 * length not looked at), reach the placement type: SFAB_FLUSH_GLOBAL
 * (global visibility; the peer's MR needs SFAB_ACCESS_FLUSH_GLOBAL) or
 * SFAB_FLUSH_PERSISTENT (no sfab MR has that right: a remote access
 * error).  Like a READ it waits behind earlier WQEs and takes one of the
 * peer's read/atomic resources; it completes when the peer answers.
 */
struct sfab_wqe_flush {
	__le64 length;
	__u8 type;			/* SFAB_FLUSH_GLOBAL | SFAB_FLUSH_PERSISTENT */
	__u8 level;			/* SFAB_FLUSH_RANGE or SFAB_FLUSH_MR */
	__u8 reserved[6];
};

/*
 * BIND_MW: after the control segment.  Binds the window mw_key names (its
 * index; the variant it has from then on) to [addr, addr + length) of the
 * MR mr_key names, with the remote rights access (SFAB_ACCESS_REMOTE_*).
 * Executed in order with the QP's other WQEs, at the send point; it
 * completes with MW_BIND_ERR, and the window stays as it was, when: the
 * window or the MR is not of the QP's PD; the MR is not valid (its key,
 * its variant), is a window, or was not registered with
 * SFAB_ACCESS_MW_BIND; the range is not inside the MR; access has a bit
 * besides the remote ones, or remote write or atomic on an MR without
 * local write; a type 2 window is bound already.  A type 1 window may be
 * bound again (rebound, or with length 0 unbound: then only the window,
 * its PD and access are checked, not mr_key or addr); a type 2 window is
 * bound to the QP that bound it and is freed by LOCAL_INV, or by a
 * SEND_INV the same QP receives, with its current key.  A LOCAL_INV or
 * SEND_INV of a type 1 window fails (LOC_QP_OP_ERR; the receiver of the
 * SEND_INV, LOC_PROT_ERR and a remote access NAK).  On a UD QP: LOC_QP_OP_ERR.
 *
 * A peer's RDMA WRITE, READ or atomic through a bound window needs the
 * window's current key and rights, the range inside the window, a type 1
 * window of the responder QP's PD or a type 2 window bound to the
 * responder QP, and the MR under it valid; the bytes are the MR's.
 */
struct sfab_wqe_bind_mw {
	__le64 addr;
	__le64 length;
	__le32 mw_key;			/* the window's index, the new variant */
	__le32 mr_key;			/* the MR's key */
	__le32 access;			/* SFAB_ACCESS_REMOTE_* */
	__le32 reserved;
};

/*
 * SFAB_WQE_INLINE: instead of struct sfab_sge, this header follows the
 * address segment and byte_count bytes of data follow it (at most
 * max_inline, and within the WQE's stride).
 */
struct sfab_wqe_inline {
	__le32 byte_count;
	__le32 reserved[3];
};

/* a gather or scatter element: 16 bytes */
struct sfab_sge {
	__le64 addr;			/* in the lkey's region; a bus address with local_dma_lkey */
	__le32 length;
	__le32 lkey;
};

/* every receive WQE starts with this, struct sfab_sge follow: 16 bytes */
struct sfab_rwqe_ctrl {
	__le64 wr_id;
	__u8 num_sge;
	__u8 reserved[7];
};

/*
 * UD, SMI and GSI receives: the first SFAB_UD_GRH_LEN bytes of the scatter
 * list get the GRH when the packet had one and are left alone otherwise;
 * the payload follows.  byte_len counts both.
 */
#define SFAB_UD_GRH_LEN			40

/* ---- completion entries -------------------------------------------------- */

enum sfab_cqe_opcode {
	SFAB_CQE_SEND			= 0x00,
	SFAB_CQE_RDMA_WRITE		= 0x01,
	SFAB_CQE_RDMA_READ		= 0x02,
	SFAB_CQE_ATOMIC_CS		= 0x03,
	SFAB_CQE_ATOMIC_FA		= 0x04,
	SFAB_CQE_LOCAL_INV		= 0x05,
	SFAB_CQE_REG_MR			= 0x06,
	SFAB_CQE_BIND_MW		= 0x07,
	SFAB_CQE_ATOMIC_WRITE		= 0x08,
	SFAB_CQE_FLUSH			= 0x09,
	SFAB_CQE_RECV			= 0x80,
	SFAB_CQE_RECV_RDMA_IMM		= 0x81,
};

/* completion status: the values of enum ib_wc_status */
enum sfab_cqe_status {
	SFAB_CQE_STS_SUCCESS		= 0,
	SFAB_CQE_STS_LOC_LEN_ERR	= 1,
	SFAB_CQE_STS_LOC_QP_OP_ERR	= 2,
	SFAB_CQE_STS_LOC_PROT_ERR	= 4,
	SFAB_CQE_STS_WR_FLUSH_ERR	= 5,
	SFAB_CQE_STS_MW_BIND_ERR	= 6,
	SFAB_CQE_STS_BAD_RESP_ERR	= 7,
	SFAB_CQE_STS_LOC_ACCESS_ERR	= 8,
	SFAB_CQE_STS_REM_INV_REQ_ERR	= 9,
	SFAB_CQE_STS_REM_ACCESS_ERR	= 10,
	SFAB_CQE_STS_REM_OP_ERR		= 11,
	SFAB_CQE_STS_RETRY_EXC_ERR	= 12,
	SFAB_CQE_STS_RNR_RETRY_EXC_ERR	= 13,
	SFAB_CQE_STS_REM_ABORT_ERR	= 16,
	SFAB_CQE_STS_GENERAL_ERR	= 21,
};

/* struct sfab_cqe.vendor_err of a completion failed by fault injection */
#define SFAB_CQE_VENDOR_INJECTED	0xfe

/* struct sfab_cqe.flags */
#define SFAB_CQE_PHASE			(1U << 0)	/* flips each pass; 1 on the first */
#define SFAB_CQE_GRH			(1U << 1)	/* UD receive: a GRH was placed */
#define SFAB_CQE_IMM			(1U << 2)	/* imm_data is valid */
#define SFAB_CQE_INV			(1U << 3)	/* imm_data is an invalidated rkey */
/*
 * a receive from an XRC SRQ: the QPN is the XRC_TGT QP's, and src_qp_sl's
 * source QP field holds the SRQ's number (the sender is not reported)
 */
#define SFAB_CQE_XRC			(1U << 4)

#define SFAB_CQE_QPN_MASK		SFAB_GENMASK(23, 0)	/* qpn_opcode */
#define SFAB_CQE_OPCODE_MASK		SFAB_GENMASK(31, 24)	/* qpn_opcode */
#define SFAB_CQE_SRC_QP_MASK		SFAB_GENMASK(23, 0)	/* src_qp_sl */
#define SFAB_CQE_SL_MASK		SFAB_GENMASK(27, 24)	/* src_qp_sl */

/* one completion: 32 bytes */
struct sfab_cqe {
	__le64 wr_id;
	__le32 byte_len;
	__be32 imm_data;		/* as on the wire (SFAB_CQE_INV: host order rkey) */
	__le32 qpn_opcode;		/* SFAB_CQE_QPN_MASK | SFAB_CQE_OPCODE_MASK */
	__le32 src_qp_sl;		/* UD receive: source QPN and SL */
	union {
		__le16 slid;		/* UD receive */
		/*
		 * send (SFAB_DEV_CAP_CQE_WQE_INDEX): the free-running SQ
		 * index (producer index value) the WQE was posted at
		 */
		__le16 wqe_index;
	};
	__le16 pkey_index;		/* GSI receive */
	__u8 status;			/* enum sfab_cqe_status */
	__u8 vendor_err;
	__u8 dlid_path_bits;
	__u8 flags;			/* SFAB_CQE_* */
};

SFAB_CHECK_SIZE(struct sfab_ring_desc, 16);
SFAB_CHECK_SIZE(struct sfab_aq_create_cq, 32);
SFAB_CHECK_SIZE(struct sfab_aq_resize_cq, 32);
SFAB_CHECK_SIZE(struct sfab_aq_create_qp, 56);
SFAB_CHECK_SIZE(struct sfab_aq_mcast, 24);
SFAB_CHECK_SIZE(struct sfab_aq_modify_qp, 48);
SFAB_CHECK_SIZE(struct sfab_aq_modify_qp_grh, 56);
SFAB_CHECK_SIZE(struct sfab_wqe_grh, 32);
SFAB_CHECK_SIZE(struct sfab_qp_attr, 112);
SFAB_CHECK_SIZE(struct sfab_wqe_ctrl, 16);
SFAB_CHECK_SIZE(struct sfab_wqe_ud, 16);
SFAB_CHECK_SIZE(struct sfab_wqe_xrc, 16);
SFAB_CHECK_SIZE(struct sfab_wqe_raddr, 16);
SFAB_CHECK_SIZE(struct sfab_wqe_inline, 16);
SFAB_CHECK_SIZE(struct sfab_wqe_atomic, 16);
SFAB_CHECK_SIZE(struct sfab_wqe_reg_mr, 48);
SFAB_CHECK_SIZE(struct sfab_wqe_bind_mw, 32);
SFAB_CHECK_SIZE(struct sfab_wqe_flush, 16);
SFAB_CHECK_SIZE(struct sfab_aq_create_mr, 40);
SFAB_CHECK_SIZE(struct sfab_aq_destroy_mr, 8);
SFAB_CHECK_SIZE(struct sfab_aq_update_mr, 32);
SFAB_CHECK_SIZE(struct sfab_aq_create_srq, 48);
SFAB_CHECK_SIZE(struct sfab_aq_set_qp_dbrec, 24);
SFAB_CHECK_SIZE(struct sfab_aq_modify_srq, 8);
SFAB_CHECK_SIZE(struct sfab_aq_resize_srq, 32);
SFAB_CHECK_SIZE(struct sfab_aq_destroy_srq, 8);
SFAB_CHECK_SIZE(struct sfab_sge, 16);
SFAB_CHECK_SIZE(struct sfab_rwqe_ctrl, 16);
SFAB_CHECK_SIZE(struct sfab_cqe, 32);

/* ---- queue geometry: the stride rule --------------------------------------- */

#define SFAB_CQE_LOG_STRIDE		5	/* struct sfab_cqe */
#define SFAB_SQ_MIN_LOG_STRIDE		6	/* send WQEs: 64 .. 512 bytes */
#define SFAB_SQ_MAX_LOG_STRIDE		9
#define SFAB_RQ_MIN_LOG_STRIDE		5	/* receive and SRQ WQEs: 32 .. 512 */
#define SFAB_RQ_MAX_LOG_STRIDE		9
#define SFAB_WQE_MAX_SIZE		(1U << SFAB_SQ_MAX_LOG_STRIDE)	/* the largest WQE */

/*
 * The send WQE header the stride rule counts: the control segment and an
 * address segment (UD, SMI, GSI: struct sfab_wqe_ud; RDMA and atomics:
 * struct sfab_wqe_raddr, as long).
 */
#define SFAB_UD_WQE_HDR_LEN		(sizeof(struct sfab_wqe_ctrl) + \
					 sizeof(struct sfab_wqe_ud))

/* the most SGEs a send WQE carries (in the largest stride, without a GRH) */
#define SFAB_SQ_MAX_SGE			((SFAB_WQE_MAX_SIZE - SFAB_UD_WQE_HDR_LEN) / \
					 sizeof(struct sfab_sge))

SFAB_STATIC_ASSERT(sizeof(struct sfab_cqe) == 1U << SFAB_CQE_LOG_STRIDE);
SFAB_STATIC_ASSERT(sizeof(struct sfab_wqe_ud) == sizeof(struct sfab_wqe_raddr));

/**
 * sfab_sq_log_stride() - send WQE stride for SGEs and inline data
 * @max_sge: gather entries per send WQE
 * @max_inline: inline data bytes per send WQE
 *
 * The stride holds SFAB_UD_WQE_HDR_LEN bytes and then @max_sge SGEs or an
 * inline header and @max_inline bytes, whichever is longer.
 *
 * Return: log2 of the stride, or -EINVAL when no stride holds them.
 */
static inline int sfab_sq_log_stride(__u32 max_sge, __u32 max_inline)
{
	const __u32 max = SFAB_WQE_MAX_SIZE;
	__u32 bytes, inl;
	unsigned int log;

	if (max_sge > SFAB_SQ_MAX_SGE ||
	    max_inline > max - SFAB_UD_WQE_HDR_LEN - sizeof(struct sfab_wqe_inline))
		return -EINVAL;
	bytes = SFAB_UD_WQE_HDR_LEN + max_sge * sizeof(struct sfab_sge);
	inl = SFAB_UD_WQE_HDR_LEN + sizeof(struct sfab_wqe_inline) + max_inline;
	if (max_inline && inl > bytes)
		bytes = inl;
	log = sfab_log2_up(bytes);
	return log < SFAB_SQ_MIN_LOG_STRIDE ? SFAB_SQ_MIN_LOG_STRIDE : log;
}

/**
 * sfab_rq_log_stride() - receive (or SRQ) WQE stride for a number of SGEs
 * @max_sge: scatter entries per receive WQE
 *
 * Return: log2 of the stride, or -EINVAL when no stride holds them.
 */
static inline int sfab_rq_log_stride(__u32 max_sge)
{
	__u32 bytes;
	unsigned int log;

	if (max_sge > ((1U << SFAB_RQ_MAX_LOG_STRIDE) -
		       sizeof(struct sfab_rwqe_ctrl)) / sizeof(struct sfab_sge))
		return -EINVAL;
	bytes = sizeof(struct sfab_rwqe_ctrl) + max_sge * sizeof(struct sfab_sge);
	log = sfab_log2_up(bytes);
	return log < SFAB_RQ_MIN_LOG_STRIDE ? SFAB_RQ_MIN_LOG_STRIDE : log;
}

/* SGEs a receive WQE of 2^@log_stride bytes holds */
static inline __u32 sfab_rq_max_sge(unsigned int log_stride)
{
	return ((1U << log_stride) - sizeof(struct sfab_rwqe_ctrl)) /
	       sizeof(struct sfab_sge);
}

/* what a send queue's WQEs hold: the result of sfab_sq_geometry() */
struct sfab_sq_geom {
	__u8 log_stride;
	__u8 grh_room;			/* bytes kept for a GRH segment: 0 or 32 */
	__u8 xrc_room;			/* XRC_INI: its XRC segment, 16; else 0 */
	__u32 max_sge;			/* SGEs after the headers and grh_room */
	__u32 max_inline;		/* inline bytes after them */
};

/**
 * sfab_sq_geometry() - the send WQE stride of a QP and what it holds
 * @qp_type: enum sfab_qp_type
 * @max_sge: gather entries the consumer asked for
 * @max_inline: inline bytes the consumer asked for
 * @g: filled
 *
 * The one stride rule (driver, provider, tests): the smallest stride that
 * holds the send header (SFAB_UD_WQE_HDR_LEN) and @max_sge SGEs or an
 * inline header and @max_inline bytes.  UD and GSI WQEs may carry a GRH
 * segment (SFAB_WQE_GRH): their stride keeps room for one too, and
 * @g->max_sge and @g->max_inline count it, so a send with a GRH carries
 * them all.  When the caps and a GRH do not fit the largest stride but the
 * caps alone do, the QP gets the largest stride, grh_room is 0 and the
 * caps count no GRH (a send with a GRH then carries 2 SGEs, or 32 inline
 * bytes, fewer).  XRC_INI WQEs carry a struct sfab_wqe_xrc more, always:
 * the stride holds it besides the caps, and is at least 128 bytes, so
 * that an atomic (control, XRC, address, atomic segments and one SGE)
 * fits.  The caller caps max_sge and max_inline by the device's limits.
 *
 * Return: 0, or -EINVAL when no stride holds the caps.
 */
static inline int sfab_sq_geometry(__u8 qp_type, __u32 max_sge,
				   __u32 max_inline, struct sfab_sq_geom *g)
{
	const __u32 grh = sizeof(struct sfab_wqe_grh);
	int log = sfab_sq_log_stride(max_sge, max_inline);
	__u32 room;

	if (log < 0)
		return log;
	g->grh_room = 0;
	g->xrc_room = 0;
	if (qp_type == SFAB_QPT_XRC_INI) {
		const __u32 xrc = sizeof(struct sfab_wqe_xrc);

		log = sfab_sq_log_stride(max_sge + xrc / sizeof(struct sfab_sge),
					 max_inline ? max_inline + xrc : 0);
		if (log < 0)
			return log;
		if (log < SFAB_SQ_MIN_LOG_STRIDE + 1)
			log = SFAB_SQ_MIN_LOG_STRIDE + 1;
		g->xrc_room = xrc;
	}
	if (qp_type == SFAB_QPT_UD || qp_type == SFAB_QPT_GSI) {
		int with = sfab_sq_log_stride(max_sge + grh / sizeof(struct sfab_sge),
					      max_inline ? max_inline + grh : 0);

		if (with < 0) {
			log = SFAB_SQ_MAX_LOG_STRIDE;
		} else {
			log = with;
			g->grh_room = grh;
		}
	}
	g->log_stride = log;
	room = (1U << log) - SFAB_UD_WQE_HDR_LEN - g->grh_room - g->xrc_room;
	g->max_sge = room / sizeof(struct sfab_sge);
	g->max_inline = room - sizeof(struct sfab_wqe_inline);
	return 0;
}

/*
 * SFAB_WQE_INLINE_FILL() - an inline segment from a work request's SGEs
 * @seg: where the struct sfab_wqe_inline goes; the data follows it
 * @room: bytes from @seg to the end of the WQE
 * @sgl: the SGEs: an array whose elements have addr (a CPU address) and
 *	 length, as ib_sge (kernel) and ibv_sge (libibverbs) do
 * @n: how many
 * @max_inline: the QP's inline limit
 * @err: set to 0, or to -EINVAL (nothing written) when the bytes are more
 *	 than @max_inline or than @room holds after the inline header
 *
 * One copy of the inline rule for the driver and the provider.
 */
#define SFAB_WQE_INLINE_FILL(seg, room, sgl, n, max_inline, err)		\
	do {								\
		struct sfab_wqe_inline *inl_ = (void *)(seg);		\
		__u8 *d_ = (__u8 *)(inl_ + 1);				\
		__u32 tot_ = 0;						\
		int i_;							\
									\
		(err) = 0;						\
		for (i_ = 0; i_ < (n); i_++) {				\
			if ((sgl)[i_].length > (max_inline) - tot_) {	\
				(err) = -EINVAL;			\
				break;					\
			}						\
			tot_ += (sgl)[i_].length;			\
		}							\
		if (!(err) && sizeof(*inl_) + tot_ > (room))		\
			(err) = -EINVAL;				\
		if (err)						\
			break;						\
		memset(inl_, 0, sizeof(*inl_));				\
		inl_->byte_count = sfab_cpu_to_le32(tot_);		\
		for (i_ = 0; i_ < (n); i_++) {				\
			memcpy(d_, (void *)(uintptr_t)(sgl)[i_].addr,	\
			       (sgl)[i_].length);			\
			d_ += (sgl)[i_].length;				\
		}							\
	} while (0)

/* ---- completions: send-queue retirement and CQE decoding ------------------ */

/**
 * sfab_sq_retire() - the SQ slots a send CQE completes
 * @ci: the SQ's free-running consumer index; moved past the CQE's WQE
 * @pi: the SQ's producer index
 * @wqe_index: the CQE's wqe_index (SFAB_DEV_CAP_CQE_WQE_INDEX)
 *
 * The device completes send WQEs in order and writes no CQE for a
 * successful unsignaled one: a CQE for the WQE at @wqe_index retires every
 * slot from @ci up to and including it.  Indices are free-running 16-bit
 * values and wrap.
 *
 * Return: false, @ci untouched, when @wqe_index names no outstanding WQE
 * (not in [@ci, @pi)).
 */
static inline bool sfab_sq_retire(__u16 *ci, __u16 pi, __u16 wqe_index)
{
	if (sfab_ring_used(wqe_index, *ci) >= sfab_ring_used(pi, *ci))
		return false;
	*ci = (wqe_index + 1) & SFAB_QIDX_MASK;
	return true;
}

/*
 * The wr_id a posted WQE holds (a send WQE's control segment, or a
 * receive WQE's): what a flushed completion reports when the device
 * completes it no more (a lost device; the kernel's and the provider's
 * flush alike).
 */
static inline __u64 sfab_wqe_wr_id(const void *wqe, bool recv)
{
	return sfab_le64_to_cpu(recv ?
				((const struct sfab_rwqe_ctrl *)wqe)->wr_id :
				((const struct sfab_wqe_ctrl *)wqe)->wr_id);
}

static inline __u8 sfab_cqe_opcode(const struct sfab_cqe *cqe)
{
	return SFAB_FIELD_GET(SFAB_CQE_OPCODE_MASK,
			      sfab_le32_to_cpu(cqe->qpn_opcode));
}

static inline __u32 sfab_cqe_qpn(const struct sfab_cqe *cqe)
{
	return SFAB_FIELD_GET(SFAB_CQE_QPN_MASK,
			      sfab_le32_to_cpu(cqe->qpn_opcode));
}

/*
 * a send CQE's wqe_index (SFAB_DEV_CAP_CQE_WQE_INDEX), for sfab_sq_retire();
 * the same bytes are a receive's slid
 */
static inline __u16 sfab_cqe_wqe_index(const struct sfab_cqe *cqe)
{
	return sfab_le16_to_cpu(cqe->wqe_index);
}

/* the device's side: struct sfab_cqe.qpn_opcode and src_qp_sl */
static inline __le32 sfab_cqe_qpn_opcode(__u32 qpn, __u8 op)
{
	return sfab_cpu_to_le32(SFAB_FIELD_PREP(SFAB_CQE_QPN_MASK, qpn) |
				SFAB_FIELD_PREP(SFAB_CQE_OPCODE_MASK, op));
}

static inline __le32 sfab_cqe_src_qp_sl(__u32 src_qp, __u8 sl)
{
	return sfab_cpu_to_le32(SFAB_FIELD_PREP(SFAB_CQE_SRC_QP_MASK, src_qp) |
				SFAB_FIELD_PREP(SFAB_CQE_SL_MASK, sl));
}

/*
 * sfab_cqe_disown() - mark a CQE of QP @qpn as no QP's
 * @cqe: a CQE the host owns, not yet consumed
 * @qpn: a QP being destroyed (or moved to RESET)
 *
 * Its QPN becomes SFAB_CQE_QPN_MASK, which names no QP, so a QP created
 * later with the same number does not take the completion; the poller
 * consumes it silently.  The driver and the provider both clean CQs so.
 */
static inline void sfab_cqe_disown(struct sfab_cqe *cqe, __u32 qpn)
{
	__u32 qo = sfab_le32_to_cpu(cqe->qpn_opcode);

	if (SFAB_FIELD_GET(SFAB_CQE_QPN_MASK, qo) == qpn)
		cqe->qpn_opcode = sfab_cpu_to_le32(qo | SFAB_CQE_QPN_MASK);
}

/* a receive queue's completion (the opcode's high bit), known or not */
static inline bool sfab_cqe_is_recv(const struct sfab_cqe *cqe)
{
	return sfab_cqe_opcode(cqe) & SFAB_CQE_RECV;
}

/* whether @op is one of enum sfab_cqe_opcode */
static inline bool sfab_cqe_opcode_known(__u8 op)
{
	switch (op) {
	case SFAB_CQE_SEND:
	case SFAB_CQE_RDMA_WRITE:
	case SFAB_CQE_RDMA_READ:
	case SFAB_CQE_ATOMIC_CS:
	case SFAB_CQE_ATOMIC_FA:
	case SFAB_CQE_LOCAL_INV:
	case SFAB_CQE_REG_MR:
	case SFAB_CQE_BIND_MW:
	case SFAB_CQE_ATOMIC_WRITE:
	case SFAB_CQE_FLUSH:
	case SFAB_CQE_RECV:
	case SFAB_CQE_RECV_RDMA_IMM:
		return true;
	default:
		return false;
	}
}

/* a CQE as the host reports it, whatever its verbs API */
struct sfab_cqe_info {
	__u64 wr_id;
	__u32 byte_len;
	__u32 qpn;
	__u8 opcode;			/* enum sfab_cqe_opcode, or unknown */
	__u8 status;			/* enum sfab_cqe_status: ib_wc_status */
	__u8 vendor_err;
	bool recv;			/* a receive queue's (SFAB_CQE_RECV bit) */
	/* receives only, else zero */
	bool imm;			/* imm_data valid */
	bool inv;			/* inv_rkey valid */
	bool grh;			/* a GRH was placed */
	bool xrc;			/* from an XRC SRQ: srqn */
	__u32 srqn;
	__be32 imm_data;		/* as on the wire */
	__u32 inv_rkey;
	__u32 src_qp;
	__u8 sl;
	__u8 dlid_path_bits;
	__u16 slid;
	__u16 pkey_index;
};

/*
 * The fields of a work completion that ib_wc (kernel) and ibv_wc
 * (libibverbs) name alike, from a struct sfab_cqe_info: one copy for
 * both.  The caller sets the opcode, wc_flags and the immediate or
 * invalidated key, whose names differ.
 */
#define SFAB_WC_FILL(wc, ci)						\
	do {								\
		(wc)->wr_id = (ci)->wr_id;				\
		(wc)->status = (ci)->status;				\
		(wc)->vendor_err = (ci)->vendor_err;			\
		(wc)->byte_len = (ci)->byte_len;			\
		(wc)->src_qp = (ci)->src_qp;				\
		(wc)->sl = (ci)->sl;					\
		(wc)->slid = (ci)->slid;				\
		(wc)->pkey_index = (ci)->pkey_index;			\
		(wc)->dlid_path_bits = (ci)->dlid_path_bits;		\
	} while (0)

/**
 * sfab_cqe_decode() - what a CQE says, for the driver and the provider
 * @cqe: the completion, already owned by the host (phase checked)
 * @ci: filled
 *
 * An opcode not in enum sfab_cqe_opcode is an error, never a success:
 * status SFAB_CQE_STS_GENERAL_ERR and vendor_err the opcode, whatever the
 * CQE's status and vendor_err said (Documentation/sfab/registers.rst).
 * Its receive fields are not read.
 *
 * Return: false for such an opcode.
 */
static inline bool sfab_cqe_decode(const struct sfab_cqe *cqe,
				   struct sfab_cqe_info *ci)
{
	__u32 ss = sfab_le32_to_cpu(cqe->src_qp_sl);

	memset(ci, 0, sizeof(*ci));
	ci->wr_id = sfab_le64_to_cpu(cqe->wr_id);
	ci->byte_len = sfab_le32_to_cpu(cqe->byte_len);
	ci->qpn = sfab_cqe_qpn(cqe);
	ci->opcode = sfab_cqe_opcode(cqe);
	ci->recv = ci->opcode & SFAB_CQE_RECV;
	ci->status = cqe->status;
	ci->vendor_err = cqe->vendor_err;
	if (!sfab_cqe_opcode_known(ci->opcode)) {
		ci->status = SFAB_CQE_STS_GENERAL_ERR;
		ci->vendor_err = ci->opcode;
		return false;
	}
	if (!ci->recv)
		return true;

	if (cqe->flags & SFAB_CQE_INV) {
		/* the invalidated rkey, in the device's (little-endian) order */
		ci->inv = true;
		ci->inv_rkey = sfab_le32_to_cpu((SFAB_FORCE __le32)cqe->imm_data);
	} else if (cqe->flags & SFAB_CQE_IMM) {
		ci->imm = true;
		ci->imm_data = cqe->imm_data;
	}
	ci->grh = cqe->flags & SFAB_CQE_GRH;
	ci->xrc = cqe->flags & SFAB_CQE_XRC;
	if (ci->xrc)
		ci->srqn = SFAB_FIELD_GET(SFAB_CQE_SRC_QP_MASK, ss);
	else
		ci->src_qp = SFAB_FIELD_GET(SFAB_CQE_SRC_QP_MASK, ss);
	ci->sl = SFAB_FIELD_GET(SFAB_CQE_SL_MASK, ss);
	ci->slid = sfab_le16_to_cpu(cqe->slid);
	ci->pkey_index = sfab_le16_to_cpu(cqe->pkey_index);
	ci->dlid_path_bits = cqe->dlid_path_bits;
	return true;
}

/* ---- device-side posting and polling (accelerators, GPUs) ---------------- */

/*
 * The simplest send WQE a device-side program posts: RDMA WRITE, RDMA
 * READ or SEND with one SGE, no inline data, no immediate.
 */
struct sfab_wqe_rdma_1sge {
	struct sfab_wqe_ctrl ctrl;
	struct sfab_wqe_raddr raddr;	/* RDMA only; zero for SEND */
	struct sfab_sge sge;
};

SFAB_CHECK_SIZE(struct sfab_wqe_rdma_1sge, 48);

/**
 * sfab_wqe_rdma_1sge() - fill a one-SGE RDMA WRITE, RDMA READ or SEND WQE
 * @w: the WQE, in its ring slot or a staging copy
 * @opcode: SFAB_WQE_RDMA_WRITE, SFAB_WQE_RDMA_READ or SFAB_WQE_SEND
 * @flags: SFAB_WQE_SIGNALED, SFAB_WQE_SOLICITED (SEND), SFAB_WQE_FENCE
 * @wr_id: echoed in the CQE
 * @raddr, @rkey: the remote side (RDMA only)
 * @laddr, @len, @lkey: the local side
 *
 * Return: the WQE's length in bytes, or -EINVAL for another opcode or a
 * flag that needs more segments (SFAB_WQE_INLINE, SFAB_WQE_GRH).
 */
static inline int sfab_wqe_rdma_1sge(struct sfab_wqe_rdma_1sge *w,
				     __u8 opcode, __u8 flags, __u64 wr_id,
				     __u64 raddr, __u32 rkey, __u64 laddr,
				     __u32 len, __u32 lkey)
{
	bool rdma = opcode == SFAB_WQE_RDMA_WRITE ||
		    opcode == SFAB_WQE_RDMA_READ;

	if ((!rdma && opcode != SFAB_WQE_SEND) ||
	    (flags & (SFAB_WQE_INLINE | SFAB_WQE_GRH)))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->ctrl.opcode = opcode;
	w->ctrl.flags = flags;
	w->ctrl.num_sge = 1;
	w->ctrl.wr_id = sfab_cpu_to_le64(wr_id);
	if (rdma) {
		w->raddr.remote_addr = sfab_cpu_to_le64(raddr);
		w->raddr.rkey = sfab_cpu_to_le32(rkey);
	}
	w->sge.addr = sfab_cpu_to_le64(laddr);
	w->sge.length = sfab_cpu_to_le32(len);
	w->sge.lkey = sfab_cpu_to_le32(lkey);
	return sizeof(*w);
}

/*
 * A device-side poller waits on one aligned 32-bit word of the CQE: the
 * last one, which holds status (bits 7:0) and flags (bits 31:24, the
 * phase bit among them).  The CQE at consumer index @ci of a ring of
 * 2^@log_depth is new and successful when
 * (word & SFAB_CQE_POLL_MASK) == sfab_cqe_poll_ok(@ci, @log_depth).
 */
#define SFAB_CQE_POLL_OFFSET		28
#define SFAB_CQE_POLL_MASK		(0xffU | (SFAB_CQE_PHASE << 24))

SFAB_STATIC_ASSERT(offsetof(struct sfab_cqe, status) == SFAB_CQE_POLL_OFFSET);
SFAB_STATIC_ASSERT(offsetof(struct sfab_cqe, flags) == SFAB_CQE_POLL_OFFSET + 3);

static inline __u32 sfab_cqe_poll_ok(__u16 ci, unsigned int log_depth)
{
	return (__u32)sfab_ring_phase(ci, log_depth) << 24 | SFAB_CQE_STS_SUCCESS;
}

#endif /* _SFAB_QUEUE_H_ */
