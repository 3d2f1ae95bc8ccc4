/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sfab hardware contract: InfiniBand wire formats.
 *
 * Everything that crosses a cable between an sfab HCA port and an
 * sfab-switchd port, as IBTA Vol 1 defines it: the local and global route
 * headers, the base and datagram transport headers, the MAD common header,
 * subnet management packets (LID-routed and directed-route) with the
 * attribute layouts a subnet manager uses, PMA port counters, the link-level
 * flow-control packet, and the invariant (ICRC) and variant (VCRC) CRCs.
 * All multi-byte fields are big-endian (__be*), as on the wire.
 *
 * Cable framing: a cable is an AF_UNIX SOCK_STREAM connection (and maybe
 * a ring pair in shared memory after it, below).  Each frame
 * is a struct sfab_wire_cable_hdr (a 32-bit big-endian length of what
 * follows) and then the frame bytes.  A frame of exactly
 * SFAB_WIRE_FC_PKT_LEN (6) bytes is a link packet (what a start-of-link-
 * packet delimiter marks on a real link; training, which a real link does
 * below the link layer, travels as link packets too: SFAB_FC_OP_TS1/TS2);
 * anything else is a data packet,
 * LRH through VCRC (what a start-of-data-packet delimiter marks).
 */
#ifndef _SFAB_WIRE_H_
#define _SFAB_WIRE_H_

#include "sfab_types.h"
#include "sfab_regs.h"

#define SFAB_WIRE_PACKED	__attribute__((packed))

/* --- sizes and well-known values --------------------------------------- */
#define SFAB_WIRE_LRH_LEN		8
#define SFAB_WIRE_XLRH_LEN		12	/* the extended LRH (LVer 1) */
#define SFAB_WIRE_GRH_LEN		40
#define SFAB_WIRE_BTH_LEN		12
#define SFAB_WIRE_DETH_LEN		8
#define SFAB_WIRE_ICRC_LEN		4
#define SFAB_WIRE_VCRC_LEN		2
#define SFAB_WIRE_MAD_LEN		256
#define SFAB_WIRE_FC_PKT_LEN		6
#define SFAB_WIRE_BLOCK_LEN		64	/* one flow-control credit */
/* largest data packet: LRH + GRH + BTH + 4 extension-header words + 4096 MTU */
#define SFAB_WIRE_MAX_PKT_LEN		4352
/* a MAD on QP0/QP1 without GRH: LRH + BTH + DETH + MAD + ICRC + VCRC */
#define SFAB_WIRE_UD_MAD_PKT_LEN	(SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN + \
					 SFAB_WIRE_DETH_LEN + SFAB_WIRE_MAD_LEN + \
					 SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN)

#define SFAB_LID_RESERVED		0x0000
#define SFAB_LID_UCAST_MAX		0xbfff
#define SFAB_LID_MCAST_BASE		0xc000
#define SFAB_LID_MCAST_MAX		0xfffe
#define SFAB_LID_PERMISSIVE		0xffff

/* a multicast LID: 0xc000..0xfffe (0xffff is the permissive LID) */
static inline bool sfab_lid_is_mcast(__u16 lid)
{
	return lid >= SFAB_LID_MCAST_BASE && lid <= SFAB_LID_MCAST_MAX;
}

/*
 * sfab extended LIDs (Documentation/sfab/addressing.rst): 24 bits, carried
 * by the extended LRH (LVer 1).  0x000000..0x00ffff mean what IBA's 16-bit
 * LIDs mean (reserved, unicast, multicast, permissive); 0x010000..0xefffff
 * are more unicast LIDs, only an extended LRH carries them;
 * 0xf00000..0xffffff are reserved (extended multicast, not implemented).
 */
#define SFAB_XLID_UCAST_BASE		0x010000
#define SFAB_XLID_UCAST_MAX		0xefffff
#define SFAB_XLID_MAX			0xffffff

/* a LID an LFT routes: IBA's 16-bit unicast or an extended unicast one */
static inline bool sfab_xlid_is_ucast(__u32 lid)
{
	return (lid && lid <= SFAB_LID_UCAST_MAX) ||
	       (lid >= SFAB_XLID_UCAST_BASE && lid <= SFAB_XLID_UCAST_MAX);
}

/* IBA's multicast LIDs, of a 24-bit LID (no extended multicast yet) */
static inline bool sfab_xlid_is_mcast(__u32 lid)
{
	return lid >= SFAB_LID_MCAST_BASE && lid <= SFAB_LID_MCAST_MAX;
}

/* a LID that only an extended LRH can carry */
static inline bool sfab_xlid_needs_ext(__u32 lid)
{
	return lid > SFAB_LID_PERMISSIVE;
}

/* a multicast GID: its first byte is 0xff (IBA 4.1.1) */
static inline bool sfab_gid_is_mcast(const __u8 gid[16])
{
	return gid[0] == 0xff;
}

#define SFAB_VL15			15	/* management VL, not flow controlled */
#define SFAB_QP0			0
#define SFAB_QP1			1
#define SFAB_QP1_QKEY			0x80010000U
/*
 * A controlled Q_Key (IBA 10.2.4): only a privileged consumer's QP holds
 * one; a UD send WQE whose Q_Key has the bit sends its QP's Q_Key instead
 */
#define SFAB_QKEY_CONTROLLED		0x80000000U
#define SFAB_PKEY_DEFAULT		0xffff

/* --- LRH: local route header (IBTA 7.7) -------------------------------- */
struct sfab_wire_lrh {
	__u8 vl_lver;		/* VL [7:4], LVer [3:0] */
	__u8 sl_lnh;		/* SL [7:4], reserved [3:2], LNH [1:0] */
	__be16 dlid;
	__be16 pkt_len;		/* reserved [15:11], PktLen [10:0]: 4-byte words,
				 * LRH through ICRC (the VCRC is not counted) */
	__be16 slid;
};
SFAB_CHECK_SIZE(struct sfab_wire_lrh, SFAB_WIRE_LRH_LEN);

#define SFAB_LRH_VL_MASK		0xf0
#define SFAB_LRH_LVER_MASK		0x0f
#define SFAB_LRH_SL_MASK		0xf0
#define SFAB_LRH_LNH_MASK		0x03
#define SFAB_LRH_PKTLEN_MASK		0x07ff

/*
 * The extended LRH: LVer 1 in the LRH's first byte says four more bytes
 * follow the 8 of struct sfab_wire_lrh, with the upper 8 bits of the
 * 24-bit DLID and SLID (the LRH holds the lower 16); the BTH or GRH the LNH
 * announces comes after them.  PktLen counts them.  They are invariant:
 * the ICRC covers them as they are, the VCRC too.  LVer 0 (IBA's) is the
 * 8-byte LRH, unchanged.
 */
#define SFAB_LRH_LVER_IBA		0
#define SFAB_LRH_LVER_EXT		1

struct sfab_wire_lrh_ext {
	__u8 dlid_hi;		/* DLID [23:16] */
	__u8 slid_hi;		/* SLID [23:16] */
	__be16 reserved;	/* 0 */
};
SFAB_CHECK_SIZE(struct sfab_wire_lrh_ext,
		SFAB_WIRE_XLRH_LEN - SFAB_WIRE_LRH_LEN);

/* bytes of the LRH at @pkt: 8, or 12 with the extension */
static inline size_t sfab_wire_lrh_len(const __u8 *pkt)
{
	return (pkt[0] & SFAB_LRH_LVER_MASK) == SFAB_LRH_LVER_EXT ?
	       SFAB_WIRE_XLRH_LEN : SFAB_WIRE_LRH_LEN;
}

/* LNH: what follows the LRH */
enum sfab_lnh {
	SFAB_LNH_RAW		= 0,	/* raw packet, no ICRC */
	SFAB_LNH_IP_NON_IBA	= 1,	/* raw IPv6, no ICRC */
	SFAB_LNH_IBA_LOCAL	= 2,	/* BTH follows */
	SFAB_LNH_IBA_GLOBAL	= 3,	/* GRH then BTH follow */
};

/* --- GRH: global route header (IBTA 8.3) -------------------------------- */
struct sfab_wire_grh {
	__be32 ver_tclass_flow;	/* IPVer [31:28], TClass [27:20], FlowLabel [19:0] */
	__be16 paylen;
	__u8 next_hdr;		/* 0x1b: BTH */
	__u8 hop_limit;
	__u8 sgid[16];
	__u8 dgid[16];
};
SFAB_CHECK_SIZE(struct sfab_wire_grh, SFAB_WIRE_GRH_LEN);

#define SFAB_GRH_IPVER_MASK		0xf0000000U
#define SFAB_GRH_TCLASS_MASK		0x0ff00000U
#define SFAB_GRH_FLOW_MASK		0x000fffffU
#define SFAB_GRH_NEXT_HDR_BTH		0x1b

/* --- BTH: base transport header (IBTA 9.2) ------------------------------ */
struct sfab_wire_bth {
	__u8 opcode;
	__u8 se_m_pad_tver;	/* SE [7], MigReq [6], PadCnt [5:4], TVer [3:0] */
	__be16 pkey;
	__be32 dqpn;		/* Resv8a [31:24] (variant), DestQP [23:0] */
	__be32 psn;		/* AckReq [31], reserved [30:24], PSN [23:0] */
};
SFAB_CHECK_SIZE(struct sfab_wire_bth, SFAB_WIRE_BTH_LEN);

#define SFAB_BTH_SE			0x80
#define SFAB_BTH_MIG			0x40
#define SFAB_BTH_PAD_MASK		0x30
#define SFAB_BTH_TVER_MASK		0x0f
#define SFAB_BTH_QPN_MASK		0x00ffffffU
#define SFAB_BTH_ACKREQ			0x80000000U
#define SFAB_BTH_PSN_MASK		0x00ffffffU
#define SFAB_BTH_OP_UD_SEND_ONLY	0x64
#define SFAB_BTH_OP_UD_SEND_ONLY_IMM	0x65	/* ImmDt follows the DETH */
#define SFAB_WIRE_IMMDT_LEN		4

/*
 * BTH opcodes of the connected services (IBTA 9.2.1): bits 7:5 the
 * transport (RC 000, UC 001), bits 4:0 the operation.
 */
#define SFAB_BTH_OP_TRANSPORT_MASK	0xe0
#define SFAB_BTH_OP_RC			0x00
#define SFAB_BTH_OP_UC			0x20
#define SFAB_BTH_OP_UD			0x60
#define SFAB_BTH_OP_XRC			0xa0	/* IBA 9.2: XRC, 101b */
#define SFAB_BTH_OP_MASK		0x1f
#define SFAB_OP_SEND_FIRST		0x00
#define SFAB_OP_SEND_MIDDLE		0x01
#define SFAB_OP_SEND_LAST		0x02
#define SFAB_OP_SEND_LAST_IMM		0x03
#define SFAB_OP_SEND_ONLY		0x04
#define SFAB_OP_SEND_ONLY_IMM		0x05
#define SFAB_OP_WRITE_FIRST		0x06
#define SFAB_OP_WRITE_MIDDLE		0x07
#define SFAB_OP_WRITE_LAST		0x08
#define SFAB_OP_WRITE_LAST_IMM		0x09
#define SFAB_OP_WRITE_ONLY		0x0a
#define SFAB_OP_WRITE_ONLY_IMM		0x0b
#define SFAB_OP_READ_REQ		0x0c
#define SFAB_OP_READ_RESP_FIRST		0x0d
#define SFAB_OP_READ_RESP_MIDDLE	0x0e
#define SFAB_OP_READ_RESP_LAST		0x0f
#define SFAB_OP_READ_RESP_ONLY		0x10
#define SFAB_OP_ACK			0x11
#define SFAB_OP_ATOMIC_ACK		0x12
#define SFAB_OP_CMP_SWAP		0x13
#define SFAB_OP_FETCH_ADD		0x14
#define SFAB_OP_SEND_LAST_INV		0x16
#define SFAB_OP_SEND_ONLY_INV		0x17
/* IBA 1.5 memory placement extensions (Annex A19), RC only */
#define SFAB_OP_FLUSH			0x1c	/* FETH, RETH */
#define SFAB_OP_ATOMIC_WRITE		0x1d	/* RETH, 8 bytes of payload */

/* --- RDMA, ACK and atomic extended transport headers (IBTA 9.3.4-9.3.7) - */
#define SFAB_WIRE_RETH_LEN		16
#define SFAB_WIRE_AETH_LEN		4
#define SFAB_WIRE_ATOMIC_ETH_LEN	28
#define SFAB_WIRE_ATOMIC_ACK_ETH_LEN	8
#define SFAB_WIRE_IETH_LEN		4
#define SFAB_WIRE_FETH_LEN		4
/* XRCETH (IBA 9.3.8): after the BTH of every XRC request; the SRQN, 24 bits */
#define SFAB_WIRE_XRCETH_LEN		4
#define SFAB_XRCETH_SRQN_MASK		0x00ffffffU

/*
 * FETH (A19): placement type in bits 3:0 (SFAB_FLUSH_GLOBAL: global
 * visibility, SFAB_FLUSH_PERSISTENT: persistence), selectivity level in
 * bits 5:4 (SFAB_FLUSH_RANGE: the RETH's range, SFAB_FLUSH_MR: the whole
 * region the rkey names); the rest reserved.  A FLUSH and an ATOMIC WRITE
 * are answered with a zero-length RDMA READ Response Only.
 */
#define SFAB_FETH_PLT_MASK		0x0000000fU
#define SFAB_FETH_SEL_MASK		0x00000030U
#define SFAB_FETH_SEL_SHIFT		4
#define SFAB_FLUSH_GLOBAL		1
#define SFAB_FLUSH_PERSISTENT		2
#define SFAB_FLUSH_RANGE		0
#define SFAB_FLUSH_MR			1

struct sfab_wire_reth {
	__be64 va;
	__be32 rkey;
	__be32 dma_len;
};
SFAB_CHECK_SIZE(struct sfab_wire_reth, SFAB_WIRE_RETH_LEN);

/* AETH: Syndrome [31:24], MSN [23:0] */
struct sfab_wire_aeth {
	__be32 syn_msn;
};
SFAB_CHECK_SIZE(struct sfab_wire_aeth, SFAB_WIRE_AETH_LEN);

#define SFAB_AETH_MSN_MASK		0x00ffffffU
#define SFAB_AETH_SYN_SHIFT		24
/* syndrome: bits 6:5 the kind, bits 4:0 credit count / timer / NAK code */
#define SFAB_AETH_KIND_MASK		0x60
#define SFAB_AETH_ACK			0x00
#define SFAB_AETH_RNR_NAK		0x20
#define SFAB_AETH_NAK			0x60
#define SFAB_AETH_VAL_MASK		0x1f
#define SFAB_AETH_CREDIT_INVALID	0x1f	/* no end-to-end credits */
#define SFAB_NAK_PSN_SEQ		0x00
#define SFAB_NAK_INVALID_REQ		0x01
#define SFAB_NAK_REMOTE_ACCESS		0x02
#define SFAB_NAK_REMOTE_OP		0x03
#define SFAB_NAK_INVALID_RD_REQ		0x04

/* AtomicETH: packed, the 64-bit fields are only 4-byte aligned on the wire */
struct sfab_wire_atomic_eth {
	__be32 va_hi, va_lo;
	__be32 rkey;
	__be32 swap_add_hi, swap_add_lo;
	__be32 compare_hi, compare_lo;
};
SFAB_CHECK_SIZE(struct sfab_wire_atomic_eth, SFAB_WIRE_ATOMIC_ETH_LEN);

struct sfab_wire_atomic_ack_eth {
	__be32 orig_hi, orig_lo;
};
SFAB_CHECK_SIZE(struct sfab_wire_atomic_ack_eth, SFAB_WIRE_ATOMIC_ACK_ETH_LEN);

/* --- DETH: datagram extended transport header (IBTA 9.3.3) ------------- */
struct sfab_wire_deth {
	__be32 qkey;
	__be32 sqpn;		/* reserved [31:24], SrcQP [23:0] */
};
SFAB_CHECK_SIZE(struct sfab_wire_deth, SFAB_WIRE_DETH_LEN);

/* --- MAD common header (IBTA 13.4.2) ------------------------------------ */
struct sfab_wire_mad_hdr {
	__u8 base_version;	/* 1 */
	__u8 mgmt_class;
	__u8 class_version;
	__u8 method;		/* R [7], Method [6:0] */
	__be16 status;
	__be16 class_specific;
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
};
SFAB_CHECK_SIZE(struct sfab_wire_mad_hdr, 24);

#define SFAB_MAD_BASE_VERSION		1
#define SFAB_MGMT_CLASS_SUBN_LID	0x01
#define SFAB_MGMT_CLASS_SUBN_DR		0x81
#define SFAB_MGMT_CLASS_PERF		0x04
#define SFAB_SMP_CLASS_VERSION		1
#define SFAB_PMA_CLASS_VERSION		1

#define SFAB_MAD_METHOD_GET		0x01
#define SFAB_MAD_METHOD_SET		0x02
#define SFAB_MAD_METHOD_GET_RESP	0x81
#define SFAB_MAD_METHOD_TRAP		0x05
#define SFAB_MAD_METHOD_RESP		0x80	/* the R bit */

/* MAD status (IBTA 13.4.7): code in [4:2], busy [0], redirect [1] */
#define SFAB_MAD_STS_OK			0x0000
#define SFAB_MAD_STS_BUSY		0x0001
#define SFAB_MAD_STS_BAD_VERSION	(1 << 2)
#define SFAB_MAD_STS_UNSUP_METHOD	(2 << 2)
#define SFAB_MAD_STS_UNSUP_METH_ATTR	(3 << 2)
#define SFAB_MAD_STS_INVALID_FIELD	(7 << 2)
/* directed-route SMPs: the D (direction) bit of the status word */
#define SFAB_SMP_DIRECTION		0x8000

/* --- SMP (IBTA 14.2.1) --------------------------------------------------- */
#define SFAB_SMP_DATA_LEN		64
#define SFAB_SMP_MAX_HOPS		64

/* one layout for both kinds; LID-routed SMPs leave the DR fields reserved */
struct sfab_wire_smp {
	__u8 base_version;
	__u8 mgmt_class;
	__u8 class_version;
	__u8 method;
	__be16 status;		/* DR: D [15], Status [14:0] */
	__u8 hop_ptr;		/* DR only */
	__u8 hop_cnt;		/* DR only */
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
	__be64 mkey;
	__be16 dr_slid;		/* DR only */
	__be16 dr_dlid;		/* DR only */
	__u8 reserved[28];
	__u8 data[SFAB_SMP_DATA_LEN];
	__u8 initial_path[SFAB_SMP_MAX_HOPS];	/* DR only */
	__u8 return_path[SFAB_SMP_MAX_HOPS];	/* DR only */
};
SFAB_CHECK_SIZE(struct sfab_wire_smp, SFAB_WIRE_MAD_LEN);

/* SMP attribute IDs (IBTA 14.2.5) */
#define SFAB_SMP_ATTR_NOTICE		0x0002
#define SFAB_SMP_ATTR_NODE_DESC		0x0010
#define SFAB_SMP_ATTR_NODE_INFO		0x0011
#define SFAB_SMP_ATTR_SWITCH_INFO	0x0012
#define SFAB_SMP_ATTR_GUID_INFO		0x0014
#define SFAB_SMP_ATTR_PORT_INFO		0x0015
#define SFAB_SMP_ATTR_PKEY_TABLE	0x0016
#define SFAB_SMP_ATTR_SL_TO_VL_TABLE	0x0017
#define SFAB_SMP_ATTR_VL_ARB_TABLE	0x0018
#define SFAB_SMP_ATTR_LINEAR_FWD_TABLE	0x0019
#define SFAB_SMP_ATTR_MCAST_FWD_TABLE	0x001b
#define SFAB_SMP_ATTR_SM_INFO		0x0020

/*
 * Notice (IBTA 13.4.8.2), as an SMP Trap carries it: the 64 bytes of
 * SMP data hold everything up to IssuerGID, which an SMP leaves out.
 * Trap 144 (LocalChangedAttribute, 14.3.11 and Table 151): the port's
 * CapabilityMask changed.
 */
struct sfab_wire_notice {
	__u8 generic_type;	/* IsGeneric [7], Type [6:0] */
	__u8 producer_type[3];	/* generic: the node type */
	__be16 trap_num;
	__be16 issuer_lid;
	__be16 toggle_count;	/* NoticeToggle [15], NoticeCount [14:0] */
	__be16 resv0;		/* trap 144's DataDetails from here */
	__be16 lid;
	__u8 resv1;
	__u8 local_changes;	/* OtherLocalChanges [0] */
	__be32 new_cap_mask;
	__be16 change_flags;
	__be16 cap_mask2;
	__u8 resv2[40];
};
SFAB_CHECK_SIZE(struct sfab_wire_notice, SFAB_SMP_DATA_LEN);

#define SFAB_NOTICE_GENERIC		0x80
#define SFAB_NOTICE_TYPE_SECURITY	2
#define SFAB_NOTICE_TYPE_INFO		4
#define SFAB_NOTICE_PROD_CA		1
#define SFAB_NOTICE_PROD_SWITCH		2
#define SFAB_TRAP_LOCAL_CHANGES		144
#define SFAB_TRAP_BAD_MKEY		256

/*
 * Trap 256 (Bad M_Key, IBTA 14.3.11 and Table 155): the same header as
 * struct sfab_wire_notice, then what the refused SMP was.  A directed-route
 * one has its return path too (at most 30 hops fit: DRPathTruncated).
 */
struct sfab_wire_notice_bad_mkey {
	__u8 generic_type;
	__u8 producer_type[3];
	__be16 trap_num;
	__be16 issuer_lid;
	__be16 toggle_count;
	__be16 resv0;
	__be16 lid;		/* the port that refused it */
	__be16 dr_slid;		/* DR: the SMP's DrSLID */
	__u8 method;
	__u8 resv1;
	__be16 attr_id;
	__be32 attr_mod;
	__be64 mkey;		/* the M_Key it carried */
	__u8 dr_notice;		/* DRNotice [7], DRPathTruncated [6], DRHopCount [5:0] */
	__u8 dr_return_path[30];
};
SFAB_CHECK_SIZE(struct sfab_wire_notice_bad_mkey, SFAB_SMP_DATA_LEN);

#define SFAB_NOTICE_DR			0x80
#define SFAB_NOTICE_DR_TRUNC		0x40

/*
 * Traps 257 and 258 (Bad P_Key, Bad Q_Key, IBTA 14.3.11): a packet a
 * port dropped for its key, from LID1 / QP1 to LID2 / QP2.
 */
struct sfab_wire_notice_bad_key {
	__u8 generic_type;
	__u8 producer_type[3];
	__be16 trap_num;
	__be16 issuer_lid;
	__be16 toggle_count;
	__be16 resv0;
	__be16 lid1;		/* the packet's source */
	__be16 lid2;		/* ... and destination */
	__be32 key;		/* its P_Key (257, low 16 bits) or Q_Key (258) */
	__be32 sl_qp1;		/* SL [31:28], source QP [23:0] */
	__be32 qp2;		/* destination QP [23:0] */
	__u8 gid1[16];		/* with a GRH: its source and destination GIDs */
	__u8 gid2[16];
	__u8 resv1[4];
};
SFAB_CHECK_SIZE(struct sfab_wire_notice_bad_key, SFAB_SMP_DATA_LEN);

#define SFAB_TRAP_BAD_PKEY		257
#define SFAB_TRAP_BAD_QKEY		258

/* NodeInfo (IBTA 14.2.5.3) */
struct sfab_wire_node_info {
	__u8 base_version;
	__u8 class_version;
	__u8 node_type;		/* 1 CA, 2 switch, 3 router */
	__u8 num_ports;
	__be64 sys_image_guid;
	__be64 node_guid;
	__be64 port_guid;
	__be16 partition_cap;
	__be16 device_id;
	__be32 revision;
	__u8 local_port_num;
	__u8 vendor_id[3];
} SFAB_WIRE_PACKED;
SFAB_CHECK_SIZE(struct sfab_wire_node_info, 40);

#define SFAB_NODE_TYPE_CA		1
#define SFAB_NODE_TYPE_SWITCH		2

/* NodeDescription (IBTA 14.2.5.2): UTF-8, NUL padded */
struct sfab_wire_node_desc {
	char desc[64];
};
SFAB_CHECK_SIZE(struct sfab_wire_node_desc, 64);

/* SwitchInfo (IBTA 14.2.5.4) */
struct sfab_wire_switch_info {
	__be16 lin_cap;		/* LinearFDBCap */
	__be16 rand_cap;	/* RandomFDBCap */
	__be16 mcast_cap;	/* MulticastFDBCap */
	__be16 lin_top;		/* LinearFDBTop */
	__u8 def_port;
	__u8 def_mcast_pri_port;
	__u8 def_mcast_not_port;
	__u8 life_state;	/* LifeTimeValue [7:3], PortStateChange [2],
				 * OptimizedSLtoVLMappingProgramming [1:0] */
	__be16 lids_per_port;
	__be16 enforce_cap;	/* PartitionEnforcementCap */
	__u8 flags;		/* InboundEnfCap [7], OutboundEnfCap [6],
				 * FilterRawInboundCap [5], FilterRawOutboundCap [4],
				 * EnhancedPort0 [3] */
	__u8 resv;
	__be16 mcast_top;	/* MulticastFDBTop */
};
SFAB_CHECK_SIZE(struct sfab_wire_switch_info, 20);

#define SFAB_SWINFO_PORT_STATE_CHANGE	0x04
/* SwitchInfo flags: the partition checks the ports can make */
#define SFAB_SWINFO_INBOUND_ENF_CAP	0x80
#define SFAB_SWINFO_OUTBOUND_ENF_CAP	0x40
#define SFAB_SWINFO_FILTER_RAW_IN_CAP	0x20
#define SFAB_SWINFO_FILTER_RAW_OUT_CAP	0x10
#define SFAB_SWINFO_LIFE_MASK		0xf8

/* PortInfo (IBTA 14.2.5.6) */
struct sfab_wire_port_info {
	__be64 mkey;
	__be64 gid_prefix;
	__be16 lid;
	__be16 sm_lid;
	__be32 cap_mask;
	__be16 diag_code;
	__be16 mkey_lease_period;
	__u8 local_port_num;
	__u8 link_width_enabled;
	__u8 link_width_supported;
	__u8 link_width_active;
	__u8 speed_supp_state;	/* LinkSpeedSupported [7:4], PortState [3:0] */
	__u8 phys_state_down_def; /* PortPhysicalState [7:4], LinkDownDefaultState [3:0] */
	__u8 mkeyprot_lmc;	/* M_KeyProtectBits [7:6], LMC [2:0] */
	__u8 speed_active_enabled; /* LinkSpeedActive [7:4], LinkSpeedEnabled [3:0] */
	__u8 neighbor_mtu_smsl;	/* NeighborMTU [7:4], MasterSMSL [3:0] */
	__u8 vlcap_inittype;	/* VLCap [7:4], InitType [3:0] */
	__u8 vl_high_limit;
	__u8 vl_arb_high_cap;
	__u8 vl_arb_low_cap;
	__u8 inittypereply_mtucap; /* InitTypeReply [7:4], MTUCap [3:0] */
	__u8 vlstall_hoqlife;	/* VLStallCount [7:5], HOQLife [4:0] */
	__u8 opvls_enforce;	/* OperationalVLs [7:4], enforcement/filter [3:0] */
	__be16 mkey_violations;
	__be16 pkey_violations;
	__be16 qkey_violations;
	__u8 guid_cap;
	__u8 clientrereg_subnet_timeout; /* ClientReregister [7], SubnetTimeOut [4:0] */
	__u8 resp_time_value;	/* RespTimeValue [4:0] */
	__u8 local_phy_overrun_errors; /* LocalPhyErrors [7:4], OverrunErrors [3:0] */
	__be16 max_credit_hint;
	__be32 link_roundtrip_latency; /* [23:0] */
	__be16 cap_mask2;
	__u8 speed_ext_active_supported; /* LinkSpeedExtActive [7:4], Supported [3:0] */
	__u8 speed_ext_enabled;	/* LinkSpeedExtEnabled [4:0] */
};
SFAB_CHECK_SIZE(struct sfab_wire_port_info, 64);

/* PortState, PortPhysicalState (IBTA 14.2.5.6 table 155) */
enum sfab_port_state {
	SFAB_PORT_NOP		= 0,
	SFAB_PORT_DOWN		= 1,
	SFAB_PORT_INIT		= 2,
	SFAB_PORT_ARMED		= 3,
	SFAB_PORT_ACTIVE	= 4,
};

enum sfab_port_phys_state {
	SFAB_PHYS_NOP		= 0,
	SFAB_PHYS_SLEEP		= 1,
	SFAB_PHYS_POLLING	= 2,
	SFAB_PHYS_DISABLED	= 3,
	SFAB_PHYS_TRAINING	= 4,
	SFAB_PHYS_LINKUP	= 5,
	SFAB_PHYS_ERROR_RECOVERY = 6,
};

/* PortInfo:CapabilityMask (IBTA 14.2.5.6; the kernel's ib_mad.h IB_PORT_*) */
#define SFAB_PI_CAP_IS_SM		(1U << 1)
#define SFAB_PI_CAP_HAS_TRAP		(1U << 3)
#define SFAB_PI_CAP_HAS_SL_MAP		(1U << 6)
#define SFAB_PI_CAP_HAS_PKEY_NVRAM	(1U << 8)
#define SFAB_PI_CAP_IS_SM_DISABLED	(1U << 10)
#define SFAB_PI_CAP_HAS_SYS_IMAGE_GUID	(1U << 11)
#define SFAB_PI_CAP_HAS_EXT_SPEEDS	(1U << 14)
#define SFAB_PI_CAP_HAS_CAP_MASK2	(1U << 15)
#define SFAB_PI_CAP_HAS_CM		(1U << 16)	/* CommunicationManagement */
#define SFAB_PI_CAP_HAS_SNMP		(1U << 17)	/* SNMPTunneling */
#define SFAB_PI_CAP_HAS_DEV_MGMT	(1U << 19)	/* DeviceManagement */
#define SFAB_PI_CAP_HAS_VENDOR_CLASS	(1U << 20)
#define SFAB_PI_CAP_HAS_CAP_MASK_NOTICE	(1U << 22)	/* sends Trap 144 */
#define SFAB_PI_CAP_HAS_BOOT_MGMT	(1U << 23)
/*
 * IsClientReregistrationSupported: an SM sets PortInfo ClientReregister
 * only on ports that say so (opensm on its first sweep as master), and
 * without it the clients of a restarted SM never join their multicast
 * groups again
 */
#define SFAB_PI_CAP_HAS_CLIENT_REREG	(1U << 25)
/*
 * The bits that say which agents the host runs (an SM, the CM, an SRP
 * target's device management agent ...): the host sets and clears them
 * (ib_modify_port through MAD_IFC); an SM's PortInfo Set cannot.
 */
#define SFAB_PI_CAP_HOST_OWNED		(SFAB_PI_CAP_IS_SM |		\
					 SFAB_PI_CAP_HAS_CM |		\
					 SFAB_PI_CAP_HAS_SNMP |		\
					 SFAB_PI_CAP_HAS_DEV_MGMT |	\
					 SFAB_PI_CAP_HAS_VENDOR_CLASS |	\
					 SFAB_PI_CAP_HAS_BOOT_MGMT)
/*
 * PortInfo:PartitionEnforcementInbound/Outbound and FilterRawInbound/
 * Outbound (the low nibble of the OperationalVLs byte), set by the SM on a
 * switch's external ports when SwitchInfo:PartitionEnforcementCap is not 0
 */
#define SFAB_PI_ENF_IN			0x08
#define SFAB_PI_ENF_OUT			0x04
#define SFAB_PI_FILTER_RAW_IN		0x02
#define SFAB_PI_FILTER_RAW_OUT		0x01
/* link width codes (LinkWidthActive; enum ib_port_width's values) */
#define SFAB_PI_WIDTH_1X		0x01
#define SFAB_PI_WIDTH_4X		0x02
#define SFAB_PI_WIDTH_8X		0x04
#define SFAB_PI_WIDTH_12X		0x08
#define SFAB_PI_WIDTH_2X		0x10
#define SFAB_PI_SPEED_SDR		0x01
#define SFAB_PI_SPEED_EXT_NDR		0x08	/* LinkSpeedExt: 106.25 Gb/s lane */
/* MTU codes (NeighborMTU, MTUCap, path MTU; enum ib_mtu's values) */
#define SFAB_PI_MTU_256			1
#define SFAB_PI_MTU_512			2
#define SFAB_PI_MTU_1024		3
#define SFAB_PI_MTU_2048		4
#define SFAB_PI_MTU_4096		5

/*
 * sfab_vl_cap() - the VLCap (and OperationalVLs) code of a number of data
 * VLs (IBTA 14.2.5.6): 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14; a
 * count between two codes gets the lower one.
 */
static inline __u8 sfab_vl_cap(unsigned int num_data_vls)
{
	return num_data_vls >= 15 ? 5 : num_data_vls >= 8 ? 4 :
	       num_data_vls >= 4 ? 3 : num_data_vls >= 2 ? 2 : 1;
}

/* P_KeyTable block (IBTA 14.2.5.7): 32 entries */
struct sfab_wire_pkey_table {
	__be16 pkey[32];
};
SFAB_CHECK_SIZE(struct sfab_wire_pkey_table, 64);

/* SLtoVLMappingTable (IBTA 14.2.5.8): SL 2n in [7:4], SL 2n+1 in [3:0] */
struct sfab_wire_sl2vl {
	__u8 vl[8];
};
SFAB_CHECK_SIZE(struct sfab_wire_sl2vl, 8);

/* VLArbitrationTable block (IBTA 14.2.5.9): 32 (VL, weight) entries */
struct sfab_wire_vl_arb_entry {
	__u8 vl;		/* VL [3:0] */
	__u8 weight;		/* in 64-byte units */
};

struct sfab_wire_vl_arb_table {
	struct sfab_wire_vl_arb_entry entry[32];
};
SFAB_CHECK_SIZE(struct sfab_wire_vl_arb_table, 64);

/* VLArbitrationTable attribute modifier [31:16]: which block */
#define SFAB_VLARB_LOW_0_31		1
#define SFAB_VLARB_LOW_32_63		2
#define SFAB_VLARB_HIGH_0_31		3
#define SFAB_VLARB_HIGH_32_63		4

/* LinearForwardingTable block (IBTA 14.2.5.10): port for 64 LIDs */
struct sfab_wire_lft_block {
	__u8 port[64];
};
SFAB_CHECK_SIZE(struct sfab_wire_lft_block, 64);

#define SFAB_LFT_NO_PORT		0xff

/*
 * MulticastForwardingTable block (IBTA 14.2.5.12): a 16-bit port mask for
 * 32 consecutive MLIDs.  Attribute modifier: position [31:28] (which 16
 * ports), block [8:0] (which 32 MLIDs).
 */
struct sfab_wire_mft_block {
	__be16 mask[32];
};
SFAB_CHECK_SIZE(struct sfab_wire_mft_block, 64);

#define SFAB_MFT_POSITION_SHIFT		28
#define SFAB_MFT_BLOCK_MASK		0x1ff

/* GUIDInfo block (IBTA 14.2.5.5): 8 GUIDs */
struct sfab_wire_guid_info {
	__be64 guid[8];
};
SFAB_CHECK_SIZE(struct sfab_wire_guid_info, 64);

/* --- fault routing notification (sfab vendor MAD) -------------------------
 *
 * A switch that loses a port and has no alternate for some destinations
 * tells the switches beside it, below the SM: a VL15 UD packet to QP0 out
 * of each switch-facing port, DLID permissive, vendor class range 2 with
 * the sfab OUI, method Trap, no response.  It lists the unicast LIDs it
 * can no longer reach (DOWN) or can reach again (UP) as inclusive ranges;
 * more ranges than one MAD holds take several.  The neighbour moves those
 * destinations to another port if it has one (Documentation/sfab/
 * failover.rst).  A switch takes it only on a port configured as
 * switch-facing; an HCA is never sent one.  The ranges ascend and do not
 * touch or overlap (first > the previous range's last + 1): a
 * notification names each LID once.
 */
#define SFAB_MGMT_CLASS_SFAB_FRN	0x30	/* vendor range 2 */
#define SFAB_FRN_CLASS_VERSION		1
#define SFAB_FRN_ATTR_ID		0xff01
#define SFAB_FRN_DOWN			1
#define SFAB_FRN_UP			2
#define SFAB_FRN_MAX_RANGES		53

struct sfab_wire_frn_range {
	__be16 first;
	__be16 last;
};

struct sfab_wire_frn {
	struct sfab_wire_mad_hdr hdr;	/* Trap, attr SFAB_FRN_ATTR_ID */
	__u8 rmpp[12];			/* RMPP header: unused, 0 */
	__u8 resv;
	__u8 oui[3];			/* SFAB_VENDOR_OUI, big-endian */
	__u8 kind;			/* SFAB_FRN_DOWN or SFAB_FRN_UP */
	__u8 resv2;
	__be16 count;			/* ranges that follow, 1..53 */
	struct sfab_wire_frn_range range[SFAB_FRN_MAX_RANGES];
};
SFAB_CHECK_SIZE(struct sfab_wire_frn, SFAB_WIRE_MAD_LEN);

/* every header field of a notification of @kind (the ranges are the caller's) */
static inline void sfab_frn_hdr_set(struct sfab_wire_frn *m, __u8 kind,
				    __u64 tid)
{
	m->hdr.base_version = SFAB_MAD_BASE_VERSION;
	m->hdr.mgmt_class = SFAB_MGMT_CLASS_SFAB_FRN;
	m->hdr.class_version = SFAB_FRN_CLASS_VERSION;
	m->hdr.method = SFAB_MAD_METHOD_TRAP;
	m->hdr.status = 0;
	m->hdr.class_specific = 0;
	m->hdr.tid = sfab_cpu_to_be64(tid);
	m->hdr.attr_id = sfab_cpu_to_be16(SFAB_FRN_ATTR_ID);
	m->hdr.resv = 0;
	m->hdr.attr_mod = 0;
	m->oui[0] = (SFAB_VENDOR_OUI >> 16) & 0xff;
	m->oui[1] = (SFAB_VENDOR_OUI >> 8) & 0xff;
	m->oui[2] = SFAB_VENDOR_OUI & 0xff;
	m->kind = kind;
}

/* the header is a notification's: version, class, method, attribute, OUI, kind */
static inline bool sfab_frn_hdr_ok(const struct sfab_wire_frn *m)
{
	return m->hdr.base_version == SFAB_MAD_BASE_VERSION &&
	       m->hdr.mgmt_class == SFAB_MGMT_CLASS_SFAB_FRN &&
	       m->hdr.class_version == SFAB_FRN_CLASS_VERSION &&
	       m->hdr.method == SFAB_MAD_METHOD_TRAP &&
	       sfab_be16_to_cpu(m->hdr.attr_id) == SFAB_FRN_ATTR_ID &&
	       m->oui[0] == ((SFAB_VENDOR_OUI >> 16) & 0xff) &&
	       m->oui[1] == ((SFAB_VENDOR_OUI >> 8) & 0xff) &&
	       m->oui[2] == (SFAB_VENDOR_OUI & 0xff) &&
	       (m->kind == SFAB_FRN_DOWN || m->kind == SFAB_FRN_UP);
}

/* --- PMA (IBTA 16.1) ------------------------------------------------------ */
#define SFAB_PMA_ATTR_CLASS_PORT_INFO	0x0001
#define SFAB_PMA_ATTR_PORT_COUNTERS	0x0012
#define SFAB_PMA_ATTR_PORT_COUNTERS_EXT	0x001d
#define SFAB_PMA_DATA_OFFSET		64	/* after the header + 40 reserved */
#define SFAB_PMA_ALL_PORTS		0xff

/* ClassPortInfo (IBTA 13.4.8.1) */
struct sfab_wire_class_port_info {
	__u8 base_version;
	__u8 class_version;
	__be16 cap_mask;
	__be32 cap_mask2_resp_time;	/* CapabilityMask2 [31:5], RespTimeValue [4:0] */
	__u8 redirect_gid[16];
	__be32 redirect_tc_sl_fl;
	__be16 redirect_lid;
	__be16 redirect_pkey;
	__be32 redirect_qp;
	__be32 redirect_qkey;
	__u8 trap_gid[16];
	__be32 trap_tc_sl_fl;
	__be16 trap_lid;
	__be16 trap_pkey;
	__be32 trap_hl_qp;
	__be32 trap_qkey;
};
SFAB_CHECK_SIZE(struct sfab_wire_class_port_info, 72);

/* PMA ClassPortInfo.CapabilityMask bits */
#define SFAB_PMA_CAP_EXT_WIDTH		(1U << 9)
#define SFAB_PMA_CAP_XMIT_WAIT		(1U << 12)

/* PortCounters (IBTA 16.1.3.5) */
struct sfab_wire_port_counters {
	__u8 resv;
	__u8 port_select;
	__be16 counter_select;
	__be16 symbol_error_counter;
	__u8 link_error_recovery_counter;
	__u8 link_downed_counter;
	__be16 port_rcv_errors;
	__be16 port_rcv_remphys_errors;
	__be16 port_rcv_switch_relay_errors;
	__be16 port_xmit_discards;
	__u8 port_xmit_constraint_errors;
	__u8 port_rcv_constraint_errors;
	__u8 resv1;
	__u8 link_overrun_errors;	/* LocalLinkIntegrity [7:4],
					 * ExcessiveBufferOverrun [3:0] */
	__be16 resv2;
	__be16 vl15_dropped;
	__be32 port_xmit_data;		/* in 4-byte words */
	__be32 port_rcv_data;
	__be32 port_xmit_packets;
	__be32 port_rcv_packets;
	__be32 port_xmit_wait;
} SFAB_WIRE_PACKED;
SFAB_CHECK_SIZE(struct sfab_wire_port_counters, 44);

/* PortCountersExtended (IBTA 16.1.4.11) */
struct sfab_wire_port_counters_ext {
	__u8 resv;
	__u8 port_select;
	__be16 counter_select;
	__be32 resv1;
	__be64 port_xmit_data;
	__be64 port_rcv_data;
	__be64 port_xmit_packets;
	__be64 port_rcv_packets;
	__be64 port_ucast_xmit_packets;
	__be64 port_ucast_rcv_packets;
	__be64 port_mcast_xmit_packets;
	__be64 port_mcast_rcv_packets;
};
SFAB_CHECK_SIZE(struct sfab_wire_port_counters_ext, 72);

/* --- link-level flow-control packet (IBTA 7.9.4) ------------------------ */
struct sfab_wire_fc_pkt {
	__be16 op_fctbs;	/* Op [15:12], FCTBS [11:0] */
	__be16 vl_fccl;		/* VL [15:12], FCCL [11:0] */
	__be16 lpcrc;		/* CRC16 of the first four bytes */
};
SFAB_CHECK_SIZE(struct sfab_wire_fc_pkt, SFAB_WIRE_FC_PKT_LEN);

#define SFAB_FC_OP_MASK			0xf000
#define SFAB_FC_FCTBS_MASK		0x0fff
#define SFAB_FC_VL_MASK			0xf000
#define SFAB_FC_FCCL_MASK		0x0fff
#define SFAB_FC_OP_NORMAL		0
#define SFAB_FC_OP_INIT			1
/*
 * Training (sfab's cable only; IBA reserves these Ops): a real link
 * trains below the link layer with TS1/TS2 ordered sets, which a cable of
 * frames does not carry, so they travel as link packets with VL and the
 * 12-bit fields zero.  TS1: "I train and have not heard you"; TS2: "I
 * train and have heard you".  See Documentation/sfab/flow-control.rst.
 */
#define SFAB_FC_OP_TS1			2
#define SFAB_FC_OP_TS2			3
#define SFAB_FC_MOD			4096	/* the 12-bit counters' modulus */

/* --- cable frame ---------------------------------------------------------- */
struct sfab_wire_cable_hdr {
	__be32 len;		/* bytes of frame that follow, big-endian */
};
SFAB_CHECK_SIZE(struct sfab_wire_cable_hdr, 4);

/*
 * Cable control messages and the ring pair.  A header whose len has
 * SFAB_WIRE_CABLE_CTL set is followed by a struct sfab_wire_cable_ctl (len
 * is SFAB_WIRE_CABLE_CTL | its size): a message of the cable itself, not a
 * packet, which no port sees.  They move the cable's frames from the
 * socket to a pair of rings in memory both ends map, as a vhost-user
 * device's virtqueues are:
 *
 *   RING_OFFER  dialling end -> listening end, with three file descriptors
 *	(SCM_RIGHTS): the memfd of a struct sfab_wire_cable_ring_hdr and its
 *	two rings (sealed against shrinking), the eventfd the dialling end
 *	waits on and the one the listening end waits on.  arg: the bytes of
 *	each ring.  Sent first, before any frame.
 *   RING_ACCEPT listening end -> dialling end: the last thing the listening
 *	end sends on the socket; its frames are in ring 1 from here.
 *   RING_REFUSE listening end -> dialling end: the socket stays the cable.
 *   RING_ON     dialling end -> listening end, after RING_ACCEPT: the last
 *	thing the dialling end sends on the socket; its frames are in ring 0
 *	from here.
 *
 * Each end reads the socket until the other's switch-over message and
 * the ring after it, so no frame overtakes another.  The socket stays
 * open: its end of file is the cable's.
 *
 * A ring (one per direction, 0: dialling end to listening end, 1: back)
 * holds records of a struct sfab_wire_cable_hdr and the frame, padded to
 * 8 bytes; a record never wraps: a header of SFAB_WIRE_CABLE_RING_WRAP
 * sends the reader to the ring's start.  prod and cons count bytes, free
 * running modulo 2^32; the writer owns prod and reads cons, the reader
 * the other way round.  A reader about to sleep sets need_kick, and a
 * writer that sees it set (after publishing prod) clears it and writes
 * the reader's eventfd; a writer that finds the ring full sets
 * need_space, and the reader that frees space clears it and writes the
 * writer's eventfd.  Host memory, never a wire: native byte order, and
 * the two ends are on one host.
 */
#define SFAB_WIRE_CABLE_CTL		0x80000000u
#define SFAB_WIRE_CABLE_RING_WRAP	0xffffffffu
#define SFAB_CABLE_CTL_RING_OFFER	1
#define SFAB_CABLE_CTL_RING_ACCEPT	2
#define SFAB_CABLE_CTL_RING_REFUSE	3
#define SFAB_CABLE_CTL_RING_ON		4
#define SFAB_CABLE_RING_MAGIC		0x73666272u	/* "sfbr" */
#define SFAB_CABLE_RING_VERSION		1
#define SFAB_CABLE_RING_MIN		(64 * 1024)
#define SFAB_CABLE_RING_MAX		(16 * 1024 * 1024)
#define SFAB_CABLE_RING_ALIGN		8
/* ring 0's bytes start after the header's page; ring 1's follow */
#define SFAB_CABLE_RING_DATA_OFF	4096

struct sfab_wire_cable_ctl {
	__be16 type;		/* SFAB_CABLE_CTL_* */
	__be16 rsvd;
	__be32 arg;
};
SFAB_CHECK_SIZE(struct sfab_wire_cable_ctl, 8);

/* one ring's indices: the writer's and the reader's on cache lines of their own */
struct sfab_wire_cable_ring_idx {
	__u32 prod;		/* written by the writer */
	__u32 need_space;	/* the writer waits for space */
	__u8 rsvd0[56];
	__u32 cons;		/* written by the reader */
	__u32 need_kick;	/* the reader sleeps */
	__u8 rsvd1[56];
};
SFAB_CHECK_SIZE(struct sfab_wire_cable_ring_idx, 128);

/*
 * the start of the memfd; ring i's bytes at data (SFAB_CABLE_RING_DATA_OFF)
 * + i * size
 */
struct sfab_wire_cable_ring_hdr {
	__u32 magic;		/* SFAB_CABLE_RING_MAGIC */
	__u32 version;		/* SFAB_CABLE_RING_VERSION */
	__u32 size;		/* bytes of each ring: a power of two */
	__u32 data;		/* offset of ring 0's bytes */
	__u8 rsvd[48];
	struct sfab_wire_cable_ring_idx idx[2];
};
SFAB_CHECK_SIZE(struct sfab_wire_cable_ring_hdr, 320);

/* the bytes of a memfd with two rings of @size bytes each */
static inline __u64 sfab_cable_ring_map_len(__u32 size)
{
	return SFAB_CABLE_RING_DATA_OFF + 2 * (__u64)size;
}

/* a record's bytes in a ring: header and frame, padded */
static inline __u32 sfab_cable_ring_rec_len(__u32 frame_len)
{
	return (sizeof(struct sfab_wire_cable_hdr) + frame_len +
		SFAB_CABLE_RING_ALIGN - 1) & ~(__u32)(SFAB_CABLE_RING_ALIGN - 1);
}

/* --- CRCs (IBTA 7.8) -------------------------------------------------------
 *
 * ICRC: CRC-32 (the IEEE 802.3 polynomial, reflected, initial value and
 * final complement all ones) over the packet from the LRH to the end of the
 * payload, with the variant fields read as all ones: the LRH's VL, the
 * GRH's TClass, FlowLabel and HopLmt, and the BTH's Resv8a.  It is stored
 * least significant byte first, like an Ethernet FCS.
 *
 * VCRC and LPCRC: CRC-16, polynomial 0x100b (reflected 0xd008), initial
 * value all ones, final complement; over LRH through ICRC (VCRC) or the
 * first four bytes of a flow-control packet (LPCRC); stored big-endian.
 */
/*
 * Both CRCs run slice-by-8: eight table lookups per eight bytes.  The
 * tables (t[k][b]: byte b's CRC followed by k zero bytes) are built on
 * first use, per translation unit; a concurrent first use builds the same
 * values twice.
 */
struct sfab_wire_crc_tabs {
	__u32 c32[8][256];
	__u16 c16[8][256];
};

static inline const struct sfab_wire_crc_tabs *sfab_wire_crc_tabs(void)
{
	static struct sfab_wire_crc_tabs t;
	static int ready;
	unsigned int i, k;

	if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return &t;
	for (i = 0; i < 256; i++) {
		__u32 c = i;
		__u16 d = (__u16)i;

		for (k = 0; k < 8; k++) {
			c = (c >> 1) ^ (0xedb88320U & (0U - (c & 1U)));
			d = (__u16)((d >> 1) ^ (0xd008U & (0U - (d & 1U))));
		}
		t.c32[0][i] = c;
		t.c16[0][i] = d;
	}
	for (k = 1; k < 8; k++) {
		for (i = 0; i < 256; i++) {
			t.c32[k][i] = (t.c32[k - 1][i] >> 8) ^
				      t.c32[0][t.c32[k - 1][i] & 0xff];
			t.c16[k][i] = (__u16)((t.c16[k - 1][i] >> 8) ^
					      t.c16[0][t.c16[k - 1][i] & 0xff]);
		}
	}
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	return &t;
}

/*
 * The slice-by-8 steps with the CRC state in and out as it is (no
 * inversion): the link's fast CRC code (qemu-model/link/sfab_crc.c) runs
 * these for its table path, so there is one table implementation.
 */
static inline __u32 sfab_wire_crc32_raw(__u32 crc, const void *buf, size_t len)
{
	const struct sfab_wire_crc_tabs *tb = sfab_wire_crc_tabs();
	const __u32 (*t)[256] = tb->c32;
	const __u8 *p = buf;

	for (; len >= 8; len -= 8, p += 8) {
		__u32 lo = crc ^ ((__u32)p[0] | (__u32)p[1] << 8 |
				  (__u32)p[2] << 16 | (__u32)p[3] << 24);

		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		      t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		      t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return crc;
}

static inline __u16 sfab_wire_crc16_raw(__u16 crc, const void *buf, size_t len)
{
	const struct sfab_wire_crc_tabs *tb = sfab_wire_crc_tabs();
	const __u16 (*t)[256] = tb->c16;
	const __u8 *p = buf;

	for (; len >= 8; len -= 8, p += 8) {
		__u16 lo = crc ^ (__u16)(p[0] | p[1] << 8);

		crc = t[7][lo & 0xff] ^ t[6][lo >> 8] ^ t[5][p[2]] ^
		      t[4][p[3]] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^
		      t[0][p[7]];
	}
	while (len--)
		crc = (__u16)((crc >> 8) ^ t[0][(crc ^ *p++) & 0xff]);
	return crc;
}

static inline __u32 sfab_wire_crc32(__u32 crc, const void *buf, size_t len)
{
	return ~sfab_wire_crc32_raw(~crc, buf, len);
}

static inline __u16 sfab_wire_crc16(const void *buf, size_t len)
{
	return (__u16)~sfab_wire_crc16_raw(0xffff, buf, len);
}

/*
 * sfab_wire_icrc_hdr() - the headers the ICRC covers, variant fields set.
 * @pkt: the packet from the LRH; @len: bytes from the LRH to the end of the
 * payload; @hdr: room for the extended LRH + GRH + BTH.  Copies the LRH, the GRH the LNH
 * announces and the BTH (no more than @len bytes) to @hdr with the variant
 * fields read as all ones, and returns how many bytes it copied: the ICRC
 * is the CRC-32 of @hdr's bytes followed by @pkt's from there to @len.
 */
static inline size_t sfab_wire_icrc_hdr(const __u8 *pkt, size_t len,
					__u8 *hdr)
{
	size_t lrh = sfab_wire_lrh_len(pkt);
	size_t hlen = lrh + SFAB_WIRE_BTH_LEN;
	size_t bth = lrh;

	if ((pkt[1] & SFAB_LRH_LNH_MASK) == SFAB_LNH_IBA_GLOBAL) {
		hlen += SFAB_WIRE_GRH_LEN;
		bth += SFAB_WIRE_GRH_LEN;
	}
	if (len < hlen)
		hlen = len;
	memcpy(hdr, pkt, hlen);
	hdr[0] |= SFAB_LRH_VL_MASK;
	if (bth != lrh) {
		/* TClass and FlowLabel: the low 28 bits of the first word */
		hdr[lrh] |= 0x0f;
		hdr[lrh + 1] = 0xff;
		hdr[lrh + 2] = 0xff;
		hdr[lrh + 3] = 0xff;
		hdr[lrh + 7] = 0xff;	/* HopLmt */
	}
	if (hlen > bth + 4)
		hdr[bth + 4] = 0xff;	/* Resv8a */
	return hlen;
}

/*
 * sfab_wire_icrc() - the ICRC of a data packet.
 * @pkt: the packet from the LRH; @len: bytes from the LRH to the end of the
 * payload (PktLen * 4 - 4).  The caller has checked that the headers the
 * LNH announces fit in @len.
 */
static inline __u32 sfab_wire_icrc(const __u8 *pkt, size_t len)
{
	__u8 hdr[SFAB_WIRE_XLRH_LEN + SFAB_WIRE_GRH_LEN + SFAB_WIRE_BTH_LEN];
	size_t hlen = sfab_wire_icrc_hdr(pkt, len, hdr);

	return sfab_wire_crc32(sfab_wire_crc32(0, hdr, hlen), pkt + hlen,
			       len - hlen);
}

/* PktLen of a data packet, in bytes (LRH through ICRC) */
static inline size_t sfab_wire_pkt_len(const __u8 *pkt)
{
	const struct sfab_wire_lrh *lrh = (const struct sfab_wire_lrh *)pkt;

	return 4 * (sfab_be16_to_cpu(lrh->pkt_len) & SFAB_LRH_PKTLEN_MASK);
}

static inline int sfab_wire_has_icrc(const __u8 *pkt)
{
	return (pkt[1] & SFAB_LRH_LNH_MASK) >= SFAB_LNH_IBA_LOCAL;
}

/*
 * sfab_wire_seal() - fill the ICRC (for IBA transport packets) and the VCRC
 * of a data packet whose LRH PktLen is already set.  @frame_len is the
 * frame's size, PktLen * 4 + 2.
 */
static inline void sfab_wire_seal(__u8 *pkt, size_t frame_len)
{
	size_t n = frame_len - SFAB_WIRE_VCRC_LEN;
	__u16 vcrc;

	if (sfab_wire_has_icrc(pkt)) {
		__u32 icrc = sfab_wire_icrc(pkt, n - SFAB_WIRE_ICRC_LEN);

		pkt[n - 4] = icrc & 0xff;
		pkt[n - 3] = (icrc >> 8) & 0xff;
		pkt[n - 2] = (icrc >> 16) & 0xff;
		pkt[n - 1] = icrc >> 24;
	}
	vcrc = sfab_wire_crc16(pkt, n);
	pkt[n] = vcrc >> 8;
	pkt[n + 1] = vcrc & 0xff;
}

/* sfab_wire_reseal_vcrc() - after changing only a variant field (the VL) */
static inline void sfab_wire_reseal_vcrc(__u8 *pkt, size_t frame_len)
{
	size_t n = frame_len - SFAB_WIRE_VCRC_LEN;
	__u16 vcrc = sfab_wire_crc16(pkt, n);

	pkt[n] = vcrc >> 8;
	pkt[n + 1] = vcrc & 0xff;
}

static inline int sfab_wire_vcrc_ok(const __u8 *pkt, size_t frame_len)
{
	size_t n = frame_len - SFAB_WIRE_VCRC_LEN;

	return sfab_wire_crc16(pkt, n) == ((pkt[n] << 8) | pkt[n + 1]);
}

static inline int sfab_wire_icrc_ok(const __u8 *pkt, size_t frame_len)
{
	size_t n = frame_len - SFAB_WIRE_VCRC_LEN - SFAB_WIRE_ICRC_LEN;
	__u32 icrc = sfab_wire_icrc(pkt, n);

	return pkt[n] == (icrc & 0xff) && pkt[n + 1] == ((icrc >> 8) & 0xff) &&
	       pkt[n + 2] == ((icrc >> 16) & 0xff) && pkt[n + 3] == (icrc >> 24);
}

#endif /* _SFAB_WIRE_H_ */
