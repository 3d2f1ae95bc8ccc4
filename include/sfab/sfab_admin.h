/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sfab hardware contract v1: admin queue command and completion formats,
 * async event entries, and the device/port attribute blocks that QUERY
 * commands DMA to the host.
 *
 * The admin submission queue (AQ) is a ring of struct sfab_aq_cmd; the
 * admin completion queue (ACQ) a ring of struct sfab_acq_entry.  The host
 * writes commands at its tail and then writes the free-running tail to
 * SFAB_REG_AQ_DB.  The device completes commands in order, writing one
 * ACQ entry each with the phase bit flipped on every pass over the ring,
 * and signals MSI-X vector SFAB_MSIX_ADMIN.
 */
#ifndef _SFAB_ADMIN_H_
#define _SFAB_ADMIN_H_

#include "sfab_types.h"
#include "sfab_wire.h"
#include "sfab_queue.h"

enum sfab_aq_opcode {
	SFAB_AQ_QUERY_DEVICE		= 0x01,
	SFAB_AQ_QUERY_PORT		= 0x02,
	SFAB_AQ_FW_DOWNLOAD		= 0x03,
	SFAB_AQ_FW_ACTIVATE		= 0x04,
	SFAB_AQ_INIT_HCA		= 0x05,
	SFAB_AQ_TEARDOWN_HCA		= 0x06,
	SFAB_AQ_CREATE_EQ		= 0x07,
	SFAB_AQ_DESTROY_EQ		= 0x08,
	SFAB_AQ_MAD_IFC			= 0x09,
	SFAB_AQ_CREATE_CQ		= 0x0a,	/* sfab_queue.h */
	SFAB_AQ_DESTROY_CQ		= 0x0b,
	SFAB_AQ_CREATE_QP		= 0x0c,
	SFAB_AQ_MODIFY_QP		= 0x0d,
	SFAB_AQ_QUERY_QP		= 0x0e,
	SFAB_AQ_DESTROY_QP		= 0x0f,
	SFAB_AQ_CREATE_MR		= 0x10,	/* sfab_queue.h */
	SFAB_AQ_DESTROY_MR		= 0x11,
	SFAB_AQ_CREATE_SRQ		= 0x12,
	SFAB_AQ_MODIFY_SRQ		= 0x13,
	SFAB_AQ_DESTROY_SRQ		= 0x14,
	SFAB_AQ_QUERY_STATS		= 0x15,	/* SFAB_DEV_CAP_QUERY_STATS */
	SFAB_AQ_UPDATE_MR		= 0x16,	/* sfab_queue.h, SFAB_DEV_CAP_MR_UPDATE */
	SFAB_AQ_SET_QP_DBREC		= 0x17,	/* sfab_queue.h, SFAB_DEV_CAP_DBREC */
	SFAB_AQ_ATTACH_MCAST		= 0x18,	/* sfab_queue.h, SFAB_DEV_CAP_MCAST */
	SFAB_AQ_DETACH_MCAST		= 0x19,	/* sfab_queue.h, SFAB_DEV_CAP_MCAST */
	SFAB_AQ_RESIZE_CQ		= 0x1a,	/* sfab_queue.h, SFAB_DEV_CAP_RESIZE_CQ */
	SFAB_AQ_RESIZE_SRQ		= 0x1b,	/* sfab_queue.h, SFAB_DEV_CAP_RESIZE_SRQ */
	SFAB_AQ_MAX_OPCODE		= SFAB_AQ_RESIZE_SRQ,
};

/* completion status (struct sfab_acq_entry.status) */
enum sfab_aq_status {
	SFAB_AQ_STS_OK			= 0x00,
	SFAB_AQ_STS_BAD_OPCODE		= 0x01,	/* opcode unknown */
	SFAB_AQ_STS_BAD_PARAM		= 0x02,	/* a field is out of range */
	SFAB_AQ_STS_BAD_STATE		= 0x03,	/* not allowed in this device state */
	SFAB_AQ_STS_NO_RESOURCES	= 0x04,	/* limit reached */
	SFAB_AQ_STS_DMA_ERROR		= 0x05,	/* host memory access failed */
	SFAB_AQ_STS_NO_FW		= 0x06,	/* command needs active firmware */
	SFAB_AQ_STS_DEV_ERROR		= 0x07,	/* the device failed it, not executed */
	SFAB_AQ_STS_FW_BAD_MAGIC	= 0x10,	/* image: wrong magic */
	SFAB_AQ_STS_FW_BAD_FORMAT	= 0x11,	/* image: unsupported format version */
	SFAB_AQ_STS_FW_BAD_SIZE		= 0x12,	/* image: length fields inconsistent */
	SFAB_AQ_STS_FW_BAD_CRC		= 0x13,	/* image: CRC32 mismatch */
	SFAB_AQ_STS_FW_BAD_PROFILE	= 0x14,	/* image: device profile out of range */
};

/* SFAB_AQ_QUERY_DEVICE: DMA a struct sfab_dev_attr to resp_addr */
struct sfab_aq_query_device {
	__le64 resp_addr;		/* host buffer for the attribute block */
	__le32 resp_len;		/* its size; >= sizeof(struct sfab_dev_attr) */
	__le32 reserved;
};

/* SFAB_AQ_QUERY_PORT: DMA a struct sfab_port_attr to resp_addr */
struct sfab_aq_query_port {
	__le64 resp_addr;		/* host buffer for the attribute block */
	__le32 resp_len;		/* its size; >= sizeof(struct sfab_port_attr) */
	__u8 port_num;			/* 1-based IB port number */
	__u8 reserved[3];
};

/*
 * SFAB_AQ_FW_DOWNLOAD: copy length bytes from host addr to image offset.
 * Chunks may come in any order; offset + length <= SFAB_FW_MAX_SIZE.
 * Offset 0 starts a new download and discards any earlier one.
 */
struct sfab_aq_fw_download {
	__le64 addr;			/* host buffer with the chunk */
	__le32 offset;			/* byte offset in the image */
	__le32 length;			/* bytes, 1..SFAB_FW_MAX_CHUNK */
};

/* SFAB_AQ_FW_ACTIVATE: verify the downloaded image and run it */
struct sfab_aq_fw_activate {
	__le32 image_len;		/* total bytes downloaded */
	__le32 reserved;
};

/* SFAB_AQ_INIT_HCA: bring the engine up with the active firmware */
struct sfab_aq_init_hca {
	__u8 host_page_shift;		/* log2 of the host page size, 12..16 */
	__u8 reserved[7];
};

/* SFAB_AQ_CREATE_EQ: result0 returns the EQ number */
struct sfab_aq_create_eq {
	__le64 ring_addr;		/* host ring of struct sfab_eqe, page aligned */
	__u8 log_depth;			/* entries, 2^log_depth: SFAB_EQ_*_LOG_DEPTH */
	__u8 reserved0;
	__le16 msix_vector;		/* >= SFAB_MSIX_FIRST_COMP */
	__le32 reserved1;
};

/* SFAB_AQ_DESTROY_EQ */
struct sfab_aq_destroy_eq {
	__le32 eqn;			/* from CREATE_EQ */
	__le32 reserved;
};

/*
 * SFAB_AQ_MAD_IFC: hand a MAD to the device's own management agents (the
 * firmware SMA and PMA), as if it had arrived on port_num from slid; the
 * driver's process_mad uses it for SMPs and PMA queries ib_mad handles
 * locally.  result0 is 1 when the agent produced a response (written to
 * out_addr), 0 when it consumed the MAD without one.
 */
struct sfab_aq_mad_ifc {
	__le64 in_addr;			/* host buffer: the request, SFAB_MAD_SIZE bytes */
	__le64 out_addr;		/* host buffer: the response, SFAB_MAD_SIZE bytes */
	__u8 port_num;			/* 1-based IB port the MAD arrived on */
	__u8 flags;			/* SFAB_MAD_IFC_* */
	__le16 slid;			/* its source LID; 0 for a local request */
	__le32 reserved1;
};

/*
 * struct sfab_aq_mad_ifc.flags: IGNORE_MKEY, the SMA skips its M_Key check
 * for this SMP (ib_core's IB_MAD_IGNORE_MKEY: the kernel's own queries).
 */
#define SFAB_MAD_IFC_IGNORE_MKEY	0x01

#define SFAB_MAD_SIZE			256

/*
 * SFAB_AQ_QUERY_STATS: DMA a struct sfab_port_stats, the port's transport
 * counters, to resp_addr.  Only a device with SFAB_DEV_CAP_QUERY_STATS
 * knows the opcode; it needs active firmware, not an initialised HCA.
 */
struct sfab_aq_query_stats {
	__le64 resp_addr;		/* host buffer for the counter block */
	__le32 resp_len;		/* its size; >= sizeof(struct sfab_port_stats) */
	__u8 port_num;			/* 1-based IB port number */
	__u8 reserved[3];
};

/* one admin command: 64 bytes */
struct sfab_aq_cmd {
	__u8 opcode;			/* enum sfab_aq_opcode */
	__u8 flags;			/* reserved, zero */
	__le16 cmd_id;			/* echoed in the completion */
	__le32 reserved;
	union {
		struct sfab_aq_query_device query_device;
		struct sfab_aq_query_port query_port;
		struct sfab_aq_fw_download fw_download;
		struct sfab_aq_fw_activate fw_activate;
		struct sfab_aq_init_hca init_hca;
		struct sfab_aq_create_eq create_eq;
		struct sfab_aq_destroy_eq destroy_eq;
		struct sfab_aq_mad_ifc mad_ifc;
		struct sfab_aq_create_cq create_cq;
		struct sfab_aq_destroy_cq destroy_cq;
		struct sfab_aq_resize_cq resize_cq;
		struct sfab_aq_create_qp create_qp;
		struct sfab_aq_modify_qp modify_qp;
		struct sfab_aq_modify_qp_grh modify_qp_grh;
		struct sfab_aq_query_qp query_qp;
		struct sfab_aq_destroy_qp destroy_qp;
		struct sfab_aq_create_mr create_mr;
		struct sfab_aq_destroy_mr destroy_mr;
		struct sfab_aq_create_srq create_srq;
		struct sfab_aq_modify_srq modify_srq;
		struct sfab_aq_resize_srq resize_srq;
		struct sfab_aq_destroy_srq destroy_srq;
		struct sfab_aq_query_stats query_stats;
		struct sfab_aq_update_mr update_mr;
		struct sfab_aq_set_qp_dbrec set_qp_dbrec;
		struct sfab_aq_mcast mcast;
		__u8 raw[56];
	} u;
};

/* one admin completion: 16 bytes */
struct sfab_acq_entry {
	__le16 cmd_id;			/* from the command */
	__u8 status;			/* enum sfab_aq_status */
	__u8 flags;			/* SFAB_ACQ_FLAGS_* */
	__le32 result0;			/* command specific (CREATE_EQ: eqn) */
	__le32 result1;			/* command specific */
	__le32 reserved;
};

#define SFAB_ACQ_FLAGS_PHASE		(1U << 0)	/* flips each pass over the ring */

/*
 * Async event queue (AENQ): a ring of struct sfab_aenq_entry the device
 * writes with a phase bit, signalling MSI-X vector SFAB_MSIX_AENQ.  The host
 * returns entries by writing its free-running head to SFAB_REG_AENQ_HEAD.
 */
enum sfab_aenq_type {
	SFAB_AENQ_PORT_CHANGE		= 0x01,	/* data0: port, data1: SFAB_AENQ_PORT_* */
	SFAB_AENQ_FW_STATE		= 0x02,	/* data0: enum sfab_fw_state */
	SFAB_AENQ_FATAL			= 0x03,	/* data0: enum sfab_err */
	SFAB_AENQ_KEEP_ALIVE		= 0x04,
	SFAB_AENQ_LID_CHANGE		= 0x05,	/* data0: port, data1: new LID */
	SFAB_AENQ_PKEY_CHANGE		= 0x06,	/* data0: port */
	SFAB_AENQ_SM_CHANGE		= 0x07,	/* data0: port, data1: new SM LID */
	SFAB_AENQ_CLIENT_REREG		= 0x08,	/* data0: port (PortInfo ClientReregister) */
	SFAB_AENQ_CQ_ERROR		= 0x09,	/* data0: cqn (overrun or CQE DMA failure) */
	SFAB_AENQ_QP_EVENT		= 0x0a,	/* data0: qpn, data1: enum sfab_qp_event */
	SFAB_AENQ_SRQ_EVENT		= 0x0b,	/* data0: srqn, data1: enum sfab_srq_event */
};

/* SFAB_AENQ_QP_EVENT data1 */
enum sfab_qp_event {
	SFAB_QP_EV_FATAL		= 0x01,	/* local error: the QP went to ERR */
	SFAB_QP_EV_REQ_ERR		= 0x02,	/* invalid request from the peer (responder) */
	SFAB_QP_EV_ACCESS_ERR		= 0x03,	/* remote access violation (responder) */
	SFAB_QP_EV_COMM_EST		= 0x04,	/* first packet received in RTR */
	SFAB_QP_EV_SQ_DRAINED		= 0x05,	/* SQD: the sends begun are done */
	SFAB_QP_EV_LAST_WQE		= 0x06,	/* SRQ QP in ERR: no more receives */
};

/* SFAB_AENQ_SRQ_EVENT data1 */
enum sfab_srq_event {
	SFAB_SRQ_EV_LIMIT		= 0x01,	/* fewer WQEs than the armed limit; disarmed */
	SFAB_SRQ_EV_ERR			= 0x02,	/* DMA failure: the SRQ is unusable */
};

struct sfab_aenq_entry {
	__u8 type;			/* enum sfab_aenq_type */
	__u8 flags;			/* SFAB_AENQ_FLAGS_* */
	__le16 reserved;
	__le32 data0;
	__le64 data1;
	__le64 timestamp_ns;		/* device time of the event */
	__le64 reserved1;
};

#define SFAB_AENQ_FLAGS_PHASE		(1U << 0)

/* SFAB_AENQ_PORT_CHANGE data1: the port's new logical and physical state */
#define SFAB_AENQ_PORT_STATE_MASK	SFAB_GENMASK(3, 0)	/* enum sfab_port_state */
#define SFAB_AENQ_PORT_PHYS_MASK	SFAB_GENMASK(11, 8)	/* enum sfab_port_phys_state */

/* completion event queue entry (EQs made by CREATE_EQ) */
struct sfab_eqe {
	__le32 cqn;			/* CQ with new completions */
	__u8 type;			/* reserved for v1: zero */
	__u8 flags;			/* SFAB_EQE_FLAGS_PHASE */
	__le16 reserved;
};

#define SFAB_EQE_FLAGS_PHASE		(1U << 0)

/* the CQ an EQE names, for the host; read after its phase bit */
static inline __u32 sfab_eqe_cqn(const struct sfab_eqe *eqe)
{
	return sfab_le32_to_cpu(eqe->cqn);
}
/* an EQ is a ring like the others (sfab_ring.h): 2^2 .. 2^15 entries */
#define SFAB_EQ_MIN_LOG_DEPTH		2
#define SFAB_EQ_MAX_LOG_DEPTH		SFAB_RING_MAX_LOG_DEPTH

/* the attribute blocks carry IBA port states: sfab_wire.h */

#define SFAB_FW_VERSION_LEN		32
#define SFAB_BOARD_ID_LEN		16

/* SFAB_AQ_QUERY_DEVICE response: 256 bytes */
struct sfab_dev_attr {
	char fw_version[SFAB_FW_VERSION_LEN];	/* NUL terminated, from the image */
	char board_id[SFAB_BOARD_ID_LEN];	/* NUL terminated, from the image */
	__be64 node_guid;		/* IBA NodeGUID */
	__be64 sys_image_guid;		/* IBA SystemImageGUID */
	__le64 max_mr_size;		/* bytes */
	__le64 page_size_cap;		/* bit n: 2^n pages supported */
	__le32 vendor_id;		/* SFAB_VENDOR_OUI */
	__le32 vendor_part_id;		/* PCI device id */
	__le32 hw_rev;			/* PCI revision */
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_sge;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_eq;
	__le32 max_inline;		/* bytes of inline send data */
	__le32 num_db_pages;		/* doorbell BAR pages */
	__u8 num_ports;
	__u8 num_vls;			/* data VLs per port */
	__le16 vl_buf_blocks;		/* per-VL input buffer, 64-byte blocks */
	__le32 max_msg_size;		/* bytes */
	__le32 local_dma_lkey;		/* lkey for bus addresses, privileged QPs only */
	__le32 max_qp_rd_atom;		/* RDMA READ/atomic outstanding per QP, either side */
	__le32 max_fast_reg_pages;	/* page list entries of a fast-register MR */
	__le32 max_srq_sge;
	__le32 atomic_cap;		/* 0: none, 1: atomic w.r.t. this HCA (IB_ATOMIC_HCA) */
	__le32 dev_caps;		/* SFAB_DEV_CAP_* */
	__le32 max_mcast_grp;		/* SFAB_DEV_CAP_MCAST: groups */
	__le32 max_mcast_qp_attach;	/* ... QPs attached to one group */
	__le32 max_xrcd;		/* SFAB_DEV_CAP_XRC: XRC domain numbers */
	__u8 reserved[72];
};

/*
 * struct sfab_dev_attr.dev_caps
 *
 * CQE_WQE_INDEX: a send CQE carries the SQ index of its WQE in
 * sfab_cqe.wqe_index and a successful send WQE without SFAB_WQE_SIGNALED
 * writes no CQE (its slot is retired by the next CQE of a later WQE).
 * Without it a driver must ask for a CQE for every send WQE.
 */
#define SFAB_DEV_CAP_CQE_WQE_INDEX	(1U << 0)
/*
 * QUERY_STATS: the device answers SFAB_AQ_QUERY_STATS with the port's
 * transport counters (struct sfab_port_stats).  Without it the opcode is
 * unknown (BAD_OPCODE) and a driver offers no transport counters.
 */
#define SFAB_DEV_CAP_QUERY_STATS	(1U << 1)
/*
 * QUEUES: the device runs completion queues and queue pairs
 * (SFAB_AQ_CREATE_CQ .. SFAB_AQ_DESTROY_QP, sfab_queue.h).  Without it
 * those opcodes are unknown (BAD_OPCODE) and a driver offers no queues.
 */
#define SFAB_DEV_CAP_QUEUES		(1U << 2)
/*
 * MR: the device runs SFAB_AQ_CREATE_MR and SFAB_AQ_DESTROY_MR, and REG_MR
 * WQEs on privileged QPs.  Without it the opcodes are unknown.
 */
#define SFAB_DEV_CAP_MR			(1U << 3)
/*
 * SRQ: the device runs SFAB_AQ_CREATE_SRQ .. SFAB_AQ_DESTROY_SRQ.  Without
 * it the opcodes are unknown.
 */
#define SFAB_DEV_CAP_SRQ		(1U << 4)
/*
 * MR_UPDATE: the device runs SFAB_AQ_UPDATE_MR, which invalidates or
 * remaps a CREATE_MR region in place (sfab_queue.h); only with
 * SFAB_DEV_CAP_MR.  Without it the opcode is unknown and a driver
 * offers no MR whose memory may move (dma-buf MRs).
 */
#define SFAB_DEV_CAP_MR_UPDATE		(1U << 5)
/*
 * DBREC: queues may have doorbell records (sfab_ring.h): CREATE_CQ and
 * CREATE_SRQ take a dbrec_addr, SFAB_AQ_SET_QP_DBREC gives a QP's.  A CQ
 * with one is polled without a doorbell; an RQ or SRQ with one needs no
 * doorbell to post.  Without it dbrec_addr must be 0 and the opcode is
 * unknown.
 */
#define SFAB_DEV_CAP_DBREC		(1U << 6)
/*
 * MCAST: the device runs SFAB_AQ_ATTACH_MCAST and SFAB_AQ_DETACH_MCAST
 * and delivers multicast datagrams to the UD QPs attached to their group
 * (sfab_queue.h); max_mcast_grp and max_mcast_qp_attach say how many.
 * Without it the opcodes are unknown and a driver offers no multicast.
 */
#define SFAB_DEV_CAP_MCAST		(1U << 7)
/*
 * RESIZE_CQ: the device runs SFAB_AQ_RESIZE_CQ, which moves a CQ to a
 * ring of another depth with its outstanding CQEs (sfab_queue.h).
 * Without it the opcode is unknown and a driver cannot resize CQs.
 */
#define SFAB_DEV_CAP_RESIZE_CQ		(1U << 8)
/*
 * RESIZE_SRQ: the device runs SFAB_AQ_RESIZE_SRQ, which moves an SRQ to a
 * ring of another depth with its posted WQEs (sfab_queue.h).  Without it
 * the opcode is unknown and a driver cannot resize SRQs.
 */
#define SFAB_DEV_CAP_RESIZE_SRQ		(1U << 9)
/*
 * MW: memory windows, type 1 and 2: CREATE_MR with SFAB_MR_WINDOW, the
 * BIND_MW WQE, SFAB_ACCESS_MW_BIND, invalidation of type 2 windows
 * (sfab_queue.h).  Without it those are refused (BAD_PARAM,
 * LOC_QP_OP_ERR) and a driver offers no windows.
 */
#define SFAB_DEV_CAP_MW			(1U << 10)
/*
 * FLUSH: IBA 1.5's memory placement extensions on RC QPs: the
 * ATOMIC_WRITE and FLUSH WQEs (sfab_queue.h), their packets answered as
 * a responder, SFAB_ACCESS_FLUSH_GLOBAL.  Global visibility only: the
 * device has no persistent memory to flush to.
 */
#define SFAB_DEV_CAP_FLUSH		(1U << 11)
/*
 * XRC: IBA's extended reliable connected transport (sfab_queue.h, "XRC").
 * QP types SFAB_QPT_XRC_INI and SFAB_QPT_XRC_TGT, CREATE_SRQ with
 * SFAB_SRQ_XRC, the XRC WQE segment, SFAB_CQE_XRC receive completions,
 * and the XRC packets (BTH transport 101b, an XRCETH after the BTH of
 * every request).  XRC domain numbers are the host's, below max_xrcd.
 */
#define SFAB_DEV_CAP_XRC		(1U << 12)

/* the rules of an ATTACH_MCAST/DETACH_MCAST command the device checks */
static inline bool sfab_aq_mcast_ok(const struct sfab_aq_mcast *m)
{
	return !m->reserved && sfab_gid_is_mcast(m->mgid) &&
	       sfab_lid_is_mcast(sfab_be16_to_cpu(m->mlid));
}

/*
 * ib_device_attr.fw_ver, from the image's "major.minor.patch": major in
 * bits 47:32, minor in 31:16, patch in 15:0 (16 bits each).
 */
static inline __u64 sfab_fw_ver_pack(__u32 major, __u32 minor, __u32 patch)
{
	return (__u64)(major & 0xffff) << 32 | (__u64)(minor & 0xffff) << 16 |
	       (patch & 0xffff);
}

static inline void sfab_fw_ver_unpack(__u64 ver, __u16 *major, __u16 *minor,
				      __u16 *patch)
{
	*major = (ver >> 32) & 0xffff;
	*minor = (ver >> 16) & 0xffff;
	*patch = ver & 0xffff;
}

/*
 * sfab_fw_ver_parse() - pack a "major.minor.patch" version string
 * @s: NUL terminated; missing parts count as 0, anything after the third
 *     number is ignored
 *
 * Return: the packed version, 0 when @s does not start with a digit.
 */
static inline __u64 sfab_fw_ver_parse(const char *s)
{
	__u32 v[3] = { 0, 0, 0 };
	unsigned int i = 0;

	if (*s < '0' || *s > '9')
		return 0;
	for (; *s && i < 3; s++) {
		if (*s >= '0' && *s <= '9')
			v[i] = v[i] * 10 + (__u32)(*s - '0');
		else if (*s == '.' && s[1] >= '0' && s[1] <= '9')
			i++;
		else
			break;
	}
	return sfab_fw_ver_pack(v[0], v[1], v[2]);
}

/* struct sfab_port_attr.active_speed: one bit per IBA speed, no FDR10 */
#define SFAB_PORT_SPEED_SDR		0x01
#define SFAB_PORT_SPEED_DDR		0x02
#define SFAB_PORT_SPEED_QDR		0x04
#define SFAB_PORT_SPEED_FDR		0x08
#define SFAB_PORT_SPEED_EDR		0x10
#define SFAB_PORT_SPEED_HDR		0x20
#define SFAB_PORT_SPEED_NDR		0x40
#define SFAB_PORT_SPEED_XDR		0x80

/*
 * Every port's tables: one GID (the subnet prefix and the port GUID) and
 * one block of 32 P_Keys (the SM's P_KeyTable, block 0; after reset
 * SFAB_PKEY_DEFAULT at index 0, the rest 0).  QUERY_PORT reports them
 * (gid_tbl_len, pkey_tbl_len), NodeInfo's PartitionCap too; a host uses
 * what it reports.
 */
#define SFAB_PORT_GID_TBL_LEN		1
#define SFAB_PORT_PKEY_TBL_LEN		32

/* SFAB_AQ_QUERY_PORT response: 64 bytes */
struct sfab_port_attr {
	__be64 subnet_prefix;		/* GID prefix */
	__be64 port_guid;		/* GID interface id */
	__le32 cap_flags;		/* IBA PortInfo:CapabilityMask */
	__le16 lid;
	__le16 sm_lid;
	__u8 state;			/* enum sfab_port_state */
	__u8 phys_state;		/* enum sfab_port_phys_state */
	__u8 lmc;
	__u8 sm_sl;
	__u8 max_mtu;			/* SFAB_PI_MTU_* */
	__u8 active_mtu;
	__u8 active_width;		/* SFAB_PI_WIDTH_* */
	__u8 active_speed;		/* SFAB_PORT_SPEED_* */
	__u8 max_vl_num;		/* VLCap: sfab_vl_cap() */
	__u8 init_type_reply;
	__le16 gid_tbl_len;
	__le16 pkey_tbl_len;
	__le16 reserved0;
	__le32 qkey_viol_cntr;
	__le32 bad_pkey_cntr;
	__u8 subnet_timeout;		/* PortInfo:SubnetTimeOut, as the SM set it */
	__u8 reserved[15];
};

/*
 * SFAB_AQ_QUERY_STATS response: 128 bytes.  The RC/UC transport counters
 * of a port, counted since the device powered on (a function reset keeps
 * them), 64-bit and free running.  The requester counts a retry only
 * while the QP's retry budget (retry_cnt, rnr_retry) allows one; the
 * event that finds it used up completes the WQE with an error and counts
 * in the *_retries_exceeded counters instead.  A lossless fabric whose
 * peers answer in time moves none of them.
 */
struct sfab_port_stats {
	/*
	 * requester: go-back-N restarts, from the oldest unacknowledged
	 * PSN (ACK timeout, sequence NAK, implied NAK, RNR NAK, or to ask
	 * again for a coalesced ACK)
	 */
	__le64 retransmits;
	__le64 retrans_pkts;		/* request packets sent again */
	__le64 local_ack_timeout_err;	/* local ACK timeouts, retried */
	__le64 packet_seq_err;		/* PSN sequence error NAKs received, retried */
	/* ACKs past a READ or atomic whose response was lost, retried */
	__le64 implied_nak_seq_err;
	__le64 rnr_nak_retry_err;	/* RNR NAKs received, retried */
	/*
	 * responder: request packets with a PSN past the expected one (RC;
	 * UC: any other PSN), dropped
	 */
	__le64 out_of_sequence;
	/* responder: RC requests with a PSN already executed, answered again */
	__le64 duplicate_request;
	__le64 req_transport_retries_exceeded;	/* RETRY_EXC_ERR completions */
	__le64 req_rnr_retries_exceeded;	/* RNR_RETRY_EXC_ERR completions */
	/*
	 * doorbell BAR writes the device took (any page, any register),
	 * by source: a CPU's store, or a peer device's posted write (an
	 * accelerator ringing a doorbell page exported to it).  Device
	 * wide, reported on every port.  A device that counts neither
	 * reports zero in both, as the reserved fields they replace.
	 */
	__le64 db_writes_cpu;
	__le64 db_writes_peer;
	/*
	 * memory registration work requests the device ran, device wide
	 * (on every port): REG_MR and LOCAL_INV WQEs that succeeded, and
	 * MRs invalidated by a SEND with Invalidate received
	 */
	__le64 fast_reg_wqes;
	__le64 local_inv_wqes;
	__le64 remote_invs;
	__le64 reserved[1];		/* zero */
};

SFAB_CHECK_SIZE(struct sfab_aq_cmd, 64);
SFAB_CHECK_SIZE(struct sfab_acq_entry, 16);
SFAB_CHECK_SIZE(struct sfab_aenq_entry, 32);
SFAB_CHECK_SIZE(struct sfab_eqe, 8);
SFAB_CHECK_SIZE(struct sfab_dev_attr, 256);
SFAB_CHECK_SIZE(struct sfab_port_attr, 64);
SFAB_CHECK_SIZE(struct sfab_aq_query_stats, 16);
SFAB_CHECK_SIZE(struct sfab_port_stats, 128);

#endif /* _SFAB_ADMIN_H_ */
