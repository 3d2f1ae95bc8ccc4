/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab admin commands: one typed function per command of the hardware
 * contract (include/sfab/sfab_admin.h).  All of them sleep.
 */
#ifndef _SFAB_COM_CMD_H_
#define _SFAB_COM_CMD_H_

#include <linux/types.h>

#include <sfab/sfab_admin.h>

#include "sfab_com.h"

/*
 * QUERY_DEVICE's answer in host byte order.  The wire layout (struct
 * sfab_dev_attr) stays in sfab_com_cmd.c; the strings are NUL terminated
 * whatever the device sent.  The GUIDs stay big-endian, the order in
 * which ib_core keeps them.
 */
struct sfab_com_dev_attr {
	char fw_version[SFAB_FW_VERSION_LEN];
	char board_id[SFAB_BOARD_ID_LEN];
	__be64 node_guid;
	__be64 sys_image_guid;
	u64 max_mr_size;		/* bytes */
	u64 page_size_cap;		/* bit n: 2^n pages supported */
	u32 vendor_id;
	u32 vendor_part_id;
	u32 hw_rev;
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_sge;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_pd;
	u32 max_srq;
	u32 max_srq_wr;
	u32 max_eq;
	u32 max_inline;
	u32 num_db_pages;
	u32 max_msg_size;
	u32 local_dma_lkey;
	u32 max_qp_rd_atom;
	u32 max_fast_reg_pages;
	u32 max_srq_sge;
	u32 atomic_cap;			/* 0: none, 1: IB_ATOMIC_HCA */
	u32 dev_caps;			/* SFAB_DEV_CAP_* */
	u32 max_mcast_grp;		/* SFAB_DEV_CAP_MCAST */
	u32 max_mcast_qp_attach;
	u32 max_xrcd;			/* SFAB_DEV_CAP_XRC */
	u16 vl_buf_blocks;
	u8 num_ports;
	u8 num_vls;
};

/*
 * QUERY_PORT's answer in host byte order (struct sfab_port_attr is the
 * wire layout).  The GID halves stay big-endian, as union ib_gid has them.
 */
struct sfab_com_port_attr {
	__be64 subnet_prefix;
	__be64 port_guid;
	u32 cap_flags;			/* IBA PortInfo:CapabilityMask */
	u32 qkey_viol_cntr;
	u32 bad_pkey_cntr;
	u16 lid;
	u16 sm_lid;
	u16 gid_tbl_len;
	u16 pkey_tbl_len;
	u8 state;			/* enum sfab_port_state */
	u8 phys_state;			/* enum sfab_port_phys_state */
	u8 lmc;
	u8 sm_sl;
	u8 max_mtu;			/* IBA MTU code */
	u8 active_mtu;
	u8 active_width;		/* IBA width code */
	u8 active_speed;		/* IBA speed bit */
	u8 max_vl_num;			/* IBA VLCap */
	u8 init_type_reply;
	u8 subnet_timeout;		/* IBA SubnetTimeOut */
};

/*
 * A ring the device reads or writes, in host byte order (struct
 * sfab_ring_desc on the wire): contiguous (SFAB_RING_CONTIG) or, for a
 * user ring, a page list.
 */
struct sfab_com_ring {
	u64 addr;			/* the ring (CONTIG) or its page list */
	u32 npages;			/* page list entries (0 with CONTIG) */
	u8 log_depth;			/* entries: 2^log_depth */
	u8 log_stride;			/* bytes per entry: 2^log_stride */
	u8 page_shift;			/* page list: log2 of the page size */
	u8 flags;			/* SFAB_RING_* */
};

/* CREATE_CQ's parameters (struct sfab_aq_create_cq on the wire) */
struct sfab_com_create_cq {
	struct sfab_com_ring ring;
	u32 eqn;
	u16 db_page;
	u64 dbrec;			/* doorbell record (SFAB_DEV_CAP_DBREC); 0: none */
};

/* RESIZE_CQ's parameters (struct sfab_aq_resize_cq on the wire) */
struct sfab_com_resize_cq {
	struct sfab_com_ring ring;	/* the new ring, zeroed */
	u32 cqn;
	u16 ci;				/* the host's consumer index */
	u64 dbrec;			/* the new doorbell record; 0: none */
};

/* RESIZE_SRQ's parameters (struct sfab_aq_resize_srq on the wire) */
struct sfab_com_resize_srq {
	struct sfab_com_ring ring;	/* the new ring, same stride */
	u32 srqn;
	u16 ci;				/* the host's oldest WQE not completed */
	u16 pi;				/* the host's producer index */
	u64 dbrec;			/* the new record, holding @pi; 0: none */
};

/* CREATE_QP's parameters (struct sfab_aq_create_qp on the wire) */
struct sfab_com_create_qp {
	struct sfab_com_ring sq;
	struct sfab_com_ring rq;
	u32 send_cqn;
	u32 recv_cqn;
	u32 pdn;
	u32 flags;			/* SFAB_QP_* */
	u32 srqn;			/* with SFAB_QP_SRQ */
	u32 xrcdn;			/* SFAB_QPT_XRC_TGT */
	u16 db_page;
	u8 qp_type;			/* enum sfab_qp_type */
	u8 port_num;			/* SMI/GSI: the port; else 0 */
};

/* CREATE_SRQ's parameters (struct sfab_aq_create_srq on the wire) */
struct sfab_com_create_srq {
	struct sfab_com_ring ring;
	u32 pdn;
	u32 limit;			/* 0: not armed */
	u16 db_page;
	u64 dbrec;			/* doorbell record (SFAB_DEV_CAP_DBREC); 0: none */
	bool xrc;			/* an XRC SRQ (SFAB_DEV_CAP_XRC): */
	u32 cqn;			/* ... its CQ */
	u32 xrcdn;			/* ... and its domain */
};

/* CREATE_MR's parameters (struct sfab_aq_create_mr on the wire) */
struct sfab_com_create_mr {
	u64 iova;
	u64 length;
	u64 pbl_addr;			/* the page list */
	u32 npages;
	u32 pdn;
	u32 access;			/* SFAB_ACCESS_* */
	u8 page_shift;
	u8 flags;			/* SFAB_MR_* */
};

/* UPDATE_MR's parameters (struct sfab_aq_update_mr on the wire) */
struct sfab_com_update_mr {
	u64 pbl_addr;			/* REMAP: the new page list; else 0 */
	u32 key;			/* as CREATE_MR returned it */
	u32 pdn;			/* the MR's */
	u32 npages;			/* REMAP: the MR's; else 0 */
	u8 op;				/* enum sfab_mr_update_op */
	u8 page_shift;			/* REMAP: the MR's; else 0 */
	u32 new_pdn;			/* MODIFY: the MR's PD from now on */
	u32 new_access;			/* MODIFY: SFAB_ACCESS_* */
};

/*
 * QUERY_STATS's answer in host byte order (struct sfab_port_stats on the
 * wire, whose field order it keeps)
 */
struct sfab_com_port_stats {
	u64 retransmits;
	u64 retrans_pkts;
	u64 local_ack_timeout_err;
	u64 packet_seq_err;
	u64 implied_nak_seq_err;
	u64 rnr_nak_retry_err;
	u64 out_of_sequence;
	u64 duplicate_request;
	u64 req_transport_retries_exceeded;
	u64 req_rnr_retries_exceeded;
	u64 db_writes_cpu;
	u64 db_writes_peer;
	u64 fast_reg_wqes;
	u64 local_inv_wqes;
	u64 remote_invs;
};

/* a QP path's or an AH's GRH in host byte order (struct sfab_wqe_grh) */
struct sfab_com_grh {
	u8 dgid[16];			/* as on the wire */
	u32 flow_label;			/* 20 bits */
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
};

/*
 * MODIFY_QP's parameters and QUERY_QP's answer in host byte order (struct
 * sfab_aq_modify_qp and struct sfab_qp_attr on the wire).  MODIFY_QP
 * applies the attributes attr_mask names; QUERY_QP returns them all, and
 * the fields from @flags on.
 */
struct sfab_com_qp_attr {
	u32 qpn;
	u32 attr_mask;			/* SFAB_QP_ATTR_* */
	u32 qkey;
	u32 sq_psn;			/* 24 bits */
	u32 rq_psn;			/* 24 bits */
	u32 dest_qpn;			/* 24 bits */
	u32 access_flags;		/* SFAB_ACCESS_REMOTE_* */
	u16 pkey_index;
	u16 dlid;
	u8 state;			/* enum sfab_qp_state */
	u8 port_num;
	u8 path_mtu;			/* IBA MTU code */
	u8 sl;
	u8 src_path_bits;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 flags;			/* SFAB_QP_QUERY_* */
	u16 sq_pi;			/* producer index the device has seen */
	u16 sq_ci;			/* WQEs it has completed */
	u16 rq_pi;
	u16 rq_ci;
	struct sfab_com_grh grh;	/* with SFAB_QP_ATTR_GRH; else zero */
};

int sfab_com_query_device(struct sfab_com_dev *edev,
			  struct sfab_com_dev_attr *attr);
int sfab_com_query_port(struct sfab_com_dev *edev, u8 port,
			struct sfab_com_port_attr *attr);
int sfab_com_fw_download(struct sfab_com_dev *edev, dma_addr_t addr,
			 u32 offset, u32 length, u8 *status);
int sfab_com_fw_activate(struct sfab_com_dev *edev, u32 image_len,
			 u8 *status);
int sfab_com_init_hca(struct sfab_com_dev *edev, u8 host_page_shift);
int sfab_com_teardown_hca(struct sfab_com_dev *edev);
int sfab_com_create_eq(struct sfab_com_dev *edev, dma_addr_t ring,
		       u8 log_depth, u16 msix_vector, u32 *eqn);
int sfab_com_destroy_eq(struct sfab_com_dev *edev, u32 eqn);
int sfab_com_mad_ifc(struct sfab_com_dev *edev, u8 port, u16 slid, u8 flags,
		     const void *in_mad, void *out_mad);
int sfab_com_create_cq(struct sfab_com_dev *edev,
		       const struct sfab_com_create_cq *params, u32 *cqn);
int sfab_com_destroy_cq(struct sfab_com_dev *edev, u32 cqn);
int sfab_com_resize_cq(struct sfab_com_dev *edev,
		       const struct sfab_com_resize_cq *params);
int sfab_com_resize_srq(struct sfab_com_dev *edev,
			const struct sfab_com_resize_srq *params);
int sfab_com_create_qp(struct sfab_com_dev *edev,
		       const struct sfab_com_create_qp *params, u32 *qpn);
int sfab_com_modify_qp(struct sfab_com_dev *edev,
		       const struct sfab_com_qp_attr *attr);
int sfab_com_query_qp(struct sfab_com_dev *edev, u32 qpn,
		      struct sfab_com_qp_attr *attr);
int sfab_com_destroy_qp(struct sfab_com_dev *edev, u32 qpn);
int sfab_com_set_qp_dbrec(struct sfab_com_dev *edev, u32 qpn, u64 sq_dbrec,
			  u64 rq_dbrec);
int sfab_com_create_mr(struct sfab_com_dev *edev,
		       const struct sfab_com_create_mr *params, u32 *key);
int sfab_com_destroy_mr(struct sfab_com_dev *edev, u32 key);
int sfab_com_update_mr(struct sfab_com_dev *edev,
		       const struct sfab_com_update_mr *params);
int sfab_com_create_srq(struct sfab_com_dev *edev,
			const struct sfab_com_create_srq *params, u32 *srqn);
int sfab_com_modify_srq(struct sfab_com_dev *edev, u32 srqn, u32 limit);
int sfab_com_destroy_srq(struct sfab_com_dev *edev, u32 srqn);
int sfab_com_mcast(struct sfab_com_dev *edev, bool attach, u32 qpn,
		   const u8 mgid[16], u16 mlid);
int sfab_com_query_stats(struct sfab_com_dev *edev, u8 port,
			 struct sfab_com_port_stats *stats);

/* a GRH both ways: MODIFY_QP and QUERY_QP's, and a UD address vector's */
void sfab_com_grh_encode(struct sfab_wqe_grh *w, const struct sfab_com_grh *g);
void sfab_com_grh_decode(struct sfab_com_grh *g, const struct sfab_wqe_grh *w);

/*
 * The wire encodings, static without KUnit; the KUnit suites sfab_qp and
 * sfab_mad reach them through VISIBLE_IF_KUNIT and EXPORT_SYMBOL_IF_KUNIT.
 */
#if IS_ENABLED(CONFIG_KUNIT)
void sfab_com_modify_qp_encode(struct sfab_aq_modify_qp *m,
			       const struct sfab_com_qp_attr *a);
void sfab_com_port_stats_decode(struct sfab_com_port_stats *h,
				const struct sfab_port_stats *w);
void sfab_com_update_mr_encode(struct sfab_aq_update_mr *w,
			       const struct sfab_com_update_mr *p);
#endif

#endif /* _SFAB_COM_CMD_H_ */
