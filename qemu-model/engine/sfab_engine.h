/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab HCA engine: the device's behaviour, independent of QEMU.
 *
 * The engine owns every piece of device state (BAR0 registers, admin queue,
 * async event queue, firmware download and activation, event queues, the
 * port).  A host (the QEMU PCIe shell in hw/sfab/sfab_hca.c, or a host unit
 * test) gives it callbacks for DMA, MSI-X, logging and time, forwards BAR
 * accesses to it, and calls sfab_engine_process() from a deferred context
 * (a QEMU bottom half) when sfab_engine_reg_write() reports pending work.
 *
 * The port (port 1) is an sfab_link, the same IBA link layer and flow
 * control as every switch port: the shell connects it to a cable and
 * forwards frames both ways (sfab_engine_cable_*), and runs
 * sfab_engine_timer() when sfab_engine_timer_deadline() passes.  The port
 * trains only while firmware is active and the HCA initialised.  The
 * firmware's SMA and PMA (sfab_engine_port.c) answer SMPs and PMA queries
 * from the wire and through the MAD_IFC admin command, with the MAD code
 * the switch uses too (qemu-model/mad).
 *
 * Plain C11; the layouts come from the hardware contract in include/sfab/.
 *
 * This is the engine's interface, what a host (the QEMU shell) uses.
 * What only the engine's own files use (internal limits, the entries of
 * its tables, the functions they call in each other) is in
 * sfab_engine_int.h.
 */
#ifndef SFAB_ENGINE_H
#define SFAB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfab/sfab_regs.h"
#include "sfab/sfab_admin.h"
#include "sfab/sfab_fw.h"
/*
 * The engine's siblings, included relatively as the switch does: wherever
 * the model is built (QEMU's tree too), engine/, link/ and mad/ sit side by
 * side and link/sfab_link.c, link/sfab_pkt.c and mad/sfab_mad.c are
 * compiled with the engine.
 */
#include "../link/sfab_link.h"
#include "../mad/sfab_mad.h"

/* event queues the engine can hold, whatever the firmware profile asks */
#define SFAB_ENGINE_MAX_EQ		64
/* async events held while the host's AENQ is full or not yet enabled */
#define SFAB_ENGINE_AENQ_BACKLOG	16
/* NodeInfo, NodeDescription */
#define SFAB_ENGINE_NODE_DESC_LEN	64
/* the port: frames waiting for data-VL credit */
#define SFAB_ENGINE_TXQ_LEN		8
/*
 * ACKs and NAKs waiting for credit: their own queue, sent before the
 * data queued in txq (an ACK-class frame is at most LRH, GRH, BTH, AETH
 * and the CRCs: 70 bytes)
 */
#define SFAB_ENGINE_ACKQ_LEN		16
/* multicast groups, and QPs attached to one (SFAB_DEV_CAP_MCAST) */
#define SFAB_ENGINE_MAX_MCG		64
#define SFAB_ENGINE_MCG_QPS		16
#define SFAB_ENGINE_ACK_FRAME_MAX	80
/*
 * The engine's tables, sized at sfab_engine_init() (struct
 * sfab_engine_config): each count may be from its MIN to its MAX, and MAX
 * is the default.  QPNs 0 and 1 are QP0 and QP1, so an HCA has at least
 * two QPs; one without MRs or SRQs reports max_mr or max_srq 0, which a
 * driver takes for none.  The firmware profile may allow fewer.
 */
#define SFAB_ENGINE_MIN_QP		2
#define SFAB_ENGINE_MAX_QP		16384
#define SFAB_ENGINE_MIN_CQ		1
#define SFAB_ENGINE_MAX_CQ		16384
/* memory regions: MR indices 1..max (key index 0 is never valid) */
#define SFAB_ENGINE_MIN_MR		0
#define SFAB_ENGINE_MAX_MR		65536
/* shared receive queues */
#define SFAB_ENGINE_MIN_SRQ		0
#define SFAB_ENGINE_MAX_SRQ		1024

/* what the engine reports through sfab_engine_ops.trace */
enum sfab_trace_ev {
	SFAB_TRACE_RESET,		/* - */
	SFAB_TRACE_ADMIN_CMD,		/* a: cmd_id, b: opcode */
	SFAB_TRACE_ADMIN_CPL,		/* a: cmd_id, b: status */
	SFAB_TRACE_IRQ,			/* a: vector */
	SFAB_TRACE_IRQ_MASKED,		/* a: vector, held pending */
	SFAB_TRACE_FW_STATE,		/* a: enum sfab_fw_state, b: error */
	SFAB_TRACE_FATAL,		/* a: enum sfab_err */
	SFAB_TRACE_FAULT,		/* a: enum sfab_fault injected */
	SFAB_TRACE_AENQ,		/* a: enum sfab_aenq_type, b: data0 */
	SFAB_TRACE_EQ_CREATE,		/* a: eqn, b: vector */
	SFAB_TRACE_EQ_DESTROY,		/* a: eqn */
	SFAB_TRACE_PROCESS,		/* a: admin commands completed */
	SFAB_TRACE_DB_WRITE,		/* a: offset, b: value */
	SFAB_TRACE_CQ_CREATE,		/* a: cqn, b: eqn */
	SFAB_TRACE_CQ_DESTROY,		/* a: cqn */
	SFAB_TRACE_QP_CREATE,		/* a: qpn, b: type */
	SFAB_TRACE_QP_STATE,		/* a: qpn, b: new state */
	SFAB_TRACE_QP_DESTROY,		/* a: qpn */
	SFAB_TRACE_CQE,			/* a: cqn, b: status << 32 | qpn */
	SFAB_TRACE_CQ_RESIZE,		/* a: cqn, b: log_depth << 32 | CQEs moved */
};

/*
 * Where the engine found the guest at fault: every guest error report
 * names one site, so QEMU's trace event and the unit tests can tell them
 * apart (sfab_engine_guest_error_site_name() gives each a short name).
 * A site is a bad value the guest wrote (register, doorbell, admin
 * command field, WQE) or a DMA address it gave that failed, never a
 * protocol event from the peer.
 */
enum sfab_guest_err {
	/* sfab_engine.c: registers, admin queue, firmware */
	SFAB_GE_FATAL,			/* the device went fatal */
	SFAB_GE_REG_READ,		/* read: bad offset or size */
	SFAB_GE_REG_WRITE,		/* write: bad offset, size, read-only */
	SFAB_GE_REG_RESERVED,		/* write: reserved bits set */
	SFAB_GE_QUEUE_CFG,		/* AQ/ACQ/AENQ base, depth, vector */
	SFAB_GE_AQ_DB,			/* admin doorbell */
	SFAB_GE_AENQ_DB,		/* AENQ head doorbell */
	SFAB_GE_AQ_DMA,			/* admin command or completion DMA */
	SFAB_GE_ADMIN_CMD,		/* a command failed (no site of its own) */
	SFAB_GE_FW_IMAGE,		/* firmware image rejected */
	SFAB_GE_EQ_PARAM,		/* CREATE_EQ field, state or limit */
	/* sfab_engine_qp.c: doorbells, CQs, EQs, UD WQEs */
	SFAB_GE_DB_ACCESS,		/* doorbell: bad size or malformed */
	SFAB_GE_DB_OBJECT,		/* doorbell: no such object on that page */
	SFAB_GE_DB_QP_STATE,		/* doorbell: QP in RESET */
	SFAB_GE_DB_INDEX,		/* doorbell: index out of range */
	SFAB_GE_EQ_DMA,			/* event write to the EQ failed */
	SFAB_GE_CQ,			/* CQ overrun or CQE write failed */
	SFAB_GE_WQE_OPCODE,		/* UD/GSI/SMI send WQE: bad opcode */
	SFAB_GE_WQE,			/* UD/GSI/SMI send WQE: other field, DMA */
	SFAB_GE_RECV_WQE,		/* receive WQE (RQ, SRQ): SGEs, DMA */
	SFAB_GE_CQ_PARAM,		/* CREATE_CQ field or limit */
	SFAB_GE_QP_PARAM,		/* CREATE_QP, MODIFY_QP field or state */
	SFAB_GE_SRQ_PARAM,		/* CREATE_SRQ field or limit */
	/* sfab_engine_rc.c: RC/UC send WQEs */
	SFAB_GE_RC_WQE_OPCODE,		/* opcode unknown or not on this QP type */
	SFAB_GE_RC_WQE,			/* length, SGE, unreadable WQE */
	SFAB_GE_RC_WQE_REWRITE,		/* a begun WQE changed */
	/* sfab_engine_mr.c: memory registration */
	SFAB_GE_MR_PARAM,		/* CREATE_MR/DESTROY_MR/UPDATE_MR field */
	SFAB_GE_MR_PAGE_LIST,		/* page list: alignment, entry, DMA */
	SFAB_GE_MR_FAST_REG,		/* REG_MR WQE field */
	/* sfab_engine_port.c: the host's MADs */
	SFAB_GE_PORT_MAD,		/* MAD_IFC SMP answered with an error */
	/* sfab_engine_qp.c again: doorbell records */
	SFAB_GE_DBREC,			/* record unreadable or its index out of range */
	SFAB_GE__COUNT
};

const char *sfab_engine_guest_error_site_name(enum sfab_guest_err site);

struct sfab_engine_ops {
	/* host memory access: 0 on success, -1 on failure */
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf, size_t len);
	/* signal MSI-X vector (already filtered by SFAB_REG_INTR_MASK) */
	void (*irq)(void *opaque, unsigned int vector);
	/*
	 * the guest did something wrong, at @site (QEMU: LOG_GUEST_ERROR
	 * and trace_sfab_guest_error); optional
	 */
	void (*guest_error)(void *opaque, enum sfab_guest_err site,
			    const char *msg);
	/* trace point; optional */
	void (*trace)(void *opaque, enum sfab_trace_ev ev, uint64_t a, uint64_t b);
	/* device time for event timestamps and the port's timers; optional */
	uint64_t (*now_ns)(void *opaque);
	/*
	 * Send one frame on the port's cable: a data packet (LRH..VCRC) or a
	 * 6-byte flow-control packet; the shell frames it (sfab_cable) and
	 * writes it.  Optional: without it the port never trains.
	 */
	void (*cable_tx)(void *opaque, const uint8_t *frame, size_t len);
};

/* a queue the host programmed: latched from the registers on enable */
struct sfab_engine_ring {
	uint64_t base;
	uint32_t log_depth;
	uint32_t vector;
	uint16_t head;			/* consumer, free running */
	uint16_t tail;			/* producer, free running */
};

struct sfab_engine_eq {
	bool valid;
	uint64_t ring_addr;
	uint8_t log_depth;
	uint16_t vector;
	uint32_t prod;			/* next entry the device writes */
	uint16_t cons;			/* consumer index from the EQ doorbell */
};

struct sfab_engine_stats {
	uint64_t admin_cmds;		/* commands completed */
	uint64_t irqs;			/* interrupts delivered */
	uint64_t irqs_masked;		/* interrupts held by INTR_MASK */
	uint64_t faults_injected;	/* sfab_engine_inject() calls taken */
	uint64_t irqs_lost;		/* interrupts SFAB_FAULT_MSIX_LOST ate */
	uint64_t aenq_events;		/* events written to the AENQ */
	uint64_t aenq_dropped;		/* events lost: backlog full */
	uint64_t db_writes;		/* doorbell BAR writes */
	uint64_t db_writes_cpu;		/* ... of them by a CPU */
	uint64_t db_writes_peer;	/* ... of them by a peer device */
	uint64_t guest_errors;
	uint64_t dma_ops;		/* dma_read + dma_write calls */
	/* management, the firmware's SMA and PMA */
	uint64_t sma_mads;		/* SMP requests the SMA answered */
	uint64_t mkey_refused;		/* SMPs the SMA refused: wrong M_Key */
	uint64_t pma_mads;		/* PMA requests answered */
	uint64_t bad_mads;		/* answered with an error status or dropped */
	uint64_t host_mads_dropped;	/* for the host's QP0/QP1: none yet */
	uint64_t rx_dropped;		/* frames while the port is down, not for us */
	uint64_t mad_ifc;		/* MAD_IFC commands */
	/* datapath */
	uint64_t db_ignored;		/* doorbells on a wrong page, bad id or index */
	uint64_t cqes;			/* completions written */
	uint64_t cqe_lost;		/* for a CQ in error (overrun, DMA) */
	uint64_t cq_overruns;
	uint64_t dbrec_reads;		/* doorbell record DMA reads */
	uint64_t eqes;			/* completion events written */
	uint64_t eq_overruns;		/* events lost: EQ full */
	uint64_t sends;			/* send WQEs completed successfully */
	uint64_t send_errors;		/* completed with an error (flush excluded) */
	uint64_t send_dropped;		/* sent while the port could not carry them */
	uint64_t loopback;		/* packets to our own LID, not on the wire */
	uint64_t recvs;			/* packets delivered to a host QP */
	uint64_t rx_no_qp;		/* for a host QP that is absent or not ready */
	uint64_t rx_no_wqe;		/* the QP's receive queue was empty */
	uint64_t rx_bad_grh;		/* a GRH whose DGID is not the port GID */
	uint64_t rx_mcast;		/* multicast copies delivered to host QPs */
	uint64_t rx_mcast_dropped;	/* multicast packets for no group here */
	/* RC/UC transport */
	uint64_t rc_pkts_tx, rc_pkts_rx;
	uint64_t rc_acks_tx, rc_naks_tx;
	uint64_t atomic_writes, flushes;	/* A19 requests executed, as responder */
	uint64_t xrc_bad_srq;		/* XRC requests naming no SRQ of the target's domain */
	/* QUERY_STATS reports these (struct sfab_port_stats) */
	uint64_t rc_retransmits;	/* go-back-N restarts (timeouts, NAKs) */
	uint64_t rc_retrans_pkts;	/* request packets sent again */
	/* request packets built from the WQE kept since the previous one */
	uint64_t rc_wqe_kept;
	uint64_t rc_ack_timeouts;	/* local ACK timeouts, retried */
	uint64_t rc_seq_naks_rx;	/* PSN sequence NAKs received, retried */
	uint64_t rc_implied_naks;	/* ACKs past a lost READ/atomic response */
	uint64_t rc_rnr_retries;	/* RNR NAKs received, retried */
	uint64_t rc_out_of_seq;		/* responder: RC PSN ahead, UC PSN gap */
	uint64_t rc_dups;		/* duplicate requests answered */
	uint64_t rc_retry_exc;		/* RETRY_EXC_ERR completions */
	uint64_t rc_rnr_retry_exc;	/* RNR_RETRY_EXC_ERR completions */
	uint64_t fast_reg_wqes;		/* REG_MR WQEs that registered an MR */
	uint64_t local_inv_wqes;	/* LOCAL_INV WQEs that invalidated one */
	uint64_t remote_invs;		/* MRs invalidated by a SEND with Invalidate */
	uint64_t rc_rnr_naks_rx;	/* RNR NAKs received, retried or not */
	uint64_t rc_dropped;		/* RC/UC packets dropped (bad, no QP, UC loss) */
};

/* the port: its link and what the SMA manages */
struct sfab_engine_port {
	struct sfab_link link;
	bool running;			/* the link is enabled (fw, HCA init, cable) */
	bool disabled;			/* PortPhysicalState Disabled set by the SM */
	uint8_t rep_state, rep_phys;	/* as last reported by PORT_CHANGE */
	bool rx_local;			/* answering a local DR SMP: replies go to QP0 */
	uint32_t qkey_viol, bad_pkey;	/* QUERY_PORT counters */
	/* PortInfo */
	struct sfab_mad_mkey mk;	/* M_Key, enforced by the SMA */
	uint64_t gid_prefix;
	uint16_t lid, sm_lid;
	uint8_t lmc, sm_sl;
	uint32_t cap_mask;
	uint8_t subnet_timeout;
	/* traps sent to the SM: the last one's TransactionID */
	uint64_t trap_tid;
	uint64_t key_trap_at;		/* now_ns of the last trap 257/258 */
	struct sfab_mad_port_cfg cfg;	/* what PortInfo Sets configure */
	uint16_t pkeys[SFAB_PORT_PKEY_TBL_LEN];
	uint8_t sl2vl[16];
	uint8_t vlarb[4][64];		/* VLArbitrationTable blocks 1..4, as set */
	/* PMA */
	uint64_t xmit_wait;		/* ns with a frame held for credit */
	uint64_t xmit_discards;
	uint64_t stall_since;		/* 0: not stalled */
	struct sfab_mad_pma_cnt pma_base;	/* at the last clear */
	/* frames waiting for credit on a data VL: a ring, oldest at txq_head */
	unsigned int txq_len, txq_head;
	struct {
		uint16_t len;
		uint32_t req_qpn;	/* an RC request of this QP, or SFAB_ENGINE_NO_QPN */
		uint32_t resp_qpn;	/* an RC response of this QP, or SFAB_ENGINE_NO_QPN */
		uint8_t data[SFAB_WIRE_MAX_PKT_LEN];	/* host QPs send up to the MTU */
	} txq[SFAB_ENGINE_TXQ_LEN];
	/* ACKs and NAKs waiting for credit, sent before txq: a ring */
	unsigned int ackq_len, ackq_head;
	struct {
		uint8_t len;
		uint8_t data[SFAB_ENGINE_ACK_FRAME_MAX];
	} ackq[SFAB_ENGINE_ACKQ_LEN];
};

/*
 * struct sfab_engine_config - the sizes of the engine's tables, fixed at
 * sfab_engine_init() (the QEMU shell's properties max-qps .. max-srqs).
 * QUERY_DEVICE reports each count, or the firmware profile's where that
 * is lower; objects get numbers below the count it reports.
 */
struct sfab_engine_config {
	uint32_t max_qp;		/* QPNs 0 .. max_qp - 1 */
	uint32_t max_cq;		/* CQNs 0 .. max_cq - 1 */
	uint32_t max_mr;		/* MR key indices 1 .. max_mr */
	uint32_t max_srq;		/* SRQNs 0 .. max_srq - 1 */
};

/* the default: the largest tables */
#define SFAB_ENGINE_CONFIG_DEFAULT {		\
	.max_qp = SFAB_ENGINE_MAX_QP,		\
	.max_cq = SFAB_ENGINE_MAX_CQ,		\
	.max_mr = SFAB_ENGINE_MAX_MR,		\
	.max_srq = SFAB_ENGINE_MAX_SRQ,		\
}

/*
 * Faults a test injects into a running device (QEMU: the sfab-hca
 * device's "inject" property; Documentation/sfab/registers.rst, "Fault
 * injection").  Each lasts until it has happened once or, for the
 * lasting ones, until the device is reset.
 */
enum sfab_fault {
	SFAB_FAULT_AQ_STALL = 1,	/* admin commands are never executed (until reset) */
	SFAB_FAULT_AQ_ERROR,		/* the next admin command fails: DEV_ERROR, not executed */
	SFAB_FAULT_CQE_ERROR,		/* the next CQE written has status GENERAL_ERR */
	SFAB_FAULT_MSIX_LOST,		/* the next interrupt is not sent */
	SFAB_FAULT_FATAL,		/* the device stops: FATAL, SFAB_ERR_INJECTED */
	SFAB_FAULT_MMIO_DEAD,		/* BAR0 reads all ones, writes and doorbells are lost (until reset) */
};
struct sfab_engine;
/* the fault a name ("aq-stall", ... "mmio-dead") stands for; 0 for none */
enum sfab_fault sfab_engine_fault_parse(const char *name);
const char *sfab_engine_fault_name(enum sfab_fault f);
/* inject @f; false (nothing done) for a value that is no fault */
bool sfab_engine_inject(struct sfab_engine *e, enum sfab_fault f);

/* the entries of the engine's tables (sfab_engine_int.h) */
struct sfab_engine_qp;
struct sfab_engine_cq;
struct sfab_engine_mr;
struct sfab_engine_srq;
struct sfab_rc_wc;

struct sfab_engine {
	const struct sfab_engine_ops *ops;
	void *opaque;
	uint64_t node_guid;		/* per device */
	unsigned int nvec;		/* MSI-X vectors */
	uint32_t fw_buf_dirty;		/* fw_buf bytes that may be non-zero */
	struct sfab_engine_stats stats;	/* counts since init, not reset */
	bool cabled;			/* a cable is connected (kept across reset) */
	char node_desc[SFAB_ENGINE_NODE_DESC_LEN];	/* NodeDescription */
	/* floor of the RC local ACK timeout; set at init, kept across resets */
	uint64_t rc_min_timeout_ns;

	/*
	 * The tables, allocated by sfab_engine_init() as the config sizes
	 * them and freed by sfab_engine_cleanup(); a reset empties them.
	 */
	struct sfab_engine_config cfg;
	struct sfab_engine_qp *qp;	/* cfg.max_qp; index: QPN */
	/* QPNs with send work, oldest first; at most one entry per QPN */
	uint32_t *runq;			/* cfg.max_qp */
	bool *runq_in;			/* cfg.max_qp: the QPN has an entry */
	struct sfab_engine_cq *cq;	/* cfg.max_cq; index: CQN */
	struct sfab_engine_mr *mr;	/* cfg.max_mr + 1; index 0 unused */
	uint64_t *mr_map;		/* bit n: mr[n].valid */
	struct sfab_engine_srq *srq;	/* cfg.max_srq; index: SRQN */
	/* send WQEs parsed for the packets of their message still to go */
	struct sfab_rc_wc *rc_wc;	/* SFAB_RC_WC_SLOTS */
	/*
	 * MR page lists (bus addresses), SFAB_ENGINE_MR_POOL entries, extents
	 * named by sfab_engine_mr; not cleared by reset: an entry is written
	 * before it is read.
	 */
	uint64_t *mr_pool;
	/* bit i: mr_pool[i] is in an MR's extent (pool_off, max_pages) */
	uint64_t *pool_map;
	/*
	 * the download buffer, SFAB_FW_MAX_SIZE bytes: the image as the host
	 * sent it; not cleared by reset (fw_buf_dirty)
	 */
	uint8_t *fw_buf;
	const void *flash;		/* sfab_engine_set_flash()'s image */
	size_t flash_len;

	/* from here on, a reset clears everything */

	/* BAR0 register file, as the host programmed it */
	uint32_t dev_sts;
	/* injected faults (sfab_engine_inject()): a reset ends each */
	bool fault_aq_stall, fault_aq_error, fault_cqe_error, fault_msix_lost;
	bool mmio_dead;
	uint32_t heartbeat_stop;	/* HEARTBEAT's value since it stopped */
	uint32_t err_info;
	uint32_t aq_base_lo, aq_base_hi, aq_cfg;
	uint32_t acq_base_lo, acq_base_hi, acq_cfg;
	uint32_t aenq_base_lo, aenq_base_hi, aenq_cfg;
	uint32_t intr_mask;
	uint64_t intr_pending;		/* masked vectors waiting for unmask */

	/* running queues */
	struct sfab_engine_ring aq;	/* head: next command to execute */
	struct sfab_engine_ring acq;	/* tail: next completion slot */
	struct sfab_engine_ring aenq;	/* tail: next event slot, head: host */

	/* async events not yet written to the host */
	struct sfab_aenq_entry aenq_backlog[SFAB_ENGINE_AENQ_BACKLOG];
	unsigned int aenq_backlog_len;

	/* firmware */
	enum sfab_fw_state fw_state;	/* as SFAB_REG_FW_STATE shows it */
	uint8_t fw_err;			/* status of the last FW_ACTIVATE */
	bool fw_active;			/* a verified image is running */
	bool fw_loading;		/* a download was started at offset 0 */
	uint32_t fw_hwm;		/* highest byte downloaded + 1 */
	char fw_version[SFAB_FW_VERSION_LEN];
	char board_id[SFAB_BOARD_ID_LEN];
	struct sfab_fw_profile profile;	/* of the active image */

	/* HCA resources */
	struct sfab_engine_eq eq[SFAB_ENGINE_MAX_EQ];
	unsigned int num_eq;
	uint8_t host_page_shift;
	unsigned int num_cq;
	unsigned int num_qp;
	uint32_t qp_next;		/* where QPN allocation looks first */
	unsigned int sq_sched;		/* QPs with sched set */
	unsigned int qp_flushing;	/* QPs with flushing set */
	uint32_t runq_head, runq_len;	/* of runq[], a ring */
	bool sq_blocked;		/* a send waits for link credit */
	uint64_t rc_timer_at;		/* earliest RC timer (may be early); 0: none */
	/* multicast groups: an entry with nqp 0 is free */
	struct sfab_engine_mcg {
		uint8_t mgid[16];
		uint16_t mlid;
		uint8_t nqp;
		uint32_t qpn[SFAB_ENGINE_MCG_QPS];
	} mcg[SFAB_ENGINE_MAX_MCG];

	/* memory regions (sfab_engine_mr.c) and shared receive queues */
	unsigned int num_mr;
	unsigned int num_mw2_bound;	/* type 2 windows bound (DESTROY_QP looks) */
	uint32_t mr_next;		/* where index allocation looks first */
	unsigned int num_srq;

	uint32_t work_bytes;		/* admin work in this process call */

	struct sfab_engine_port port;	/* IB port 1 */
};

/* true when every count of @cfg is within its SFAB_ENGINE_MIN_* .. MAX_* */
bool sfab_engine_config_valid(const struct sfab_engine_config *cfg);

/*
 * sfab_engine_init() - set up an engine in its power-on state.
 * @nvec: MSI-X vectors the host gives the device (at most 64; at least
 * SFAB_MSIX_FIRST_COMP + 1 for completion event queues to be usable).
 * @cfg: the sizes of its tables; NULL: SFAB_ENGINE_CONFIG_DEFAULT.
 *
 * Allocates the tables (sfab_engine_cleanup() frees them).
 * Return: 0, or -1 when @cfg is not valid or the tables cannot be
 * allocated (then nothing is left allocated).
 */
int sfab_engine_init(struct sfab_engine *e, const struct sfab_engine_ops *ops,
		     void *opaque, uint64_t node_guid, unsigned int nvec,
		     const struct sfab_engine_config *cfg);

/* free the tables; the engine is unusable until sfab_engine_init() again */
void sfab_engine_cleanup(struct sfab_engine *e);

/* full function reset: everything back to the power-on state */
void sfab_engine_reset(struct sfab_engine *e);
/*
 * Firmware in flash: @img (@len bytes, the owner's until the engine is
 * cleaned up or the next call) runs after this reset and every later one
 * (sfab_engine_reset(): the reset register, FLR, the owner's) as if the
 * host had downloaded and activated it, without an AENQ event; the host
 * can still download another.  Returns the SFAB_AQ_STS_* of the check, as
 * FW_ACTIVATE checks a download; a bad image is forgotten (the device is
 * left without firmware, FW_STATE FAILED).  NULL: no flash image.
 */
uint8_t sfab_engine_set_flash(struct sfab_engine *e, const void *img,
			      size_t len);

/* BAR0 access, aligned 32-bit only; anything else reads as all ones */
uint32_t sfab_engine_reg_read(struct sfab_engine *e, uint64_t off);

/*
 * sfab_engine_reg_write() - a BAR0 write.
 * Return: true when work is pending: call sfab_engine_process() soon.
 */
bool sfab_engine_reg_write(struct sfab_engine *e, uint64_t off, uint32_t val);

/* who wrote a doorbell: the shell tells it from the bus transaction */
enum sfab_db_source {
	SFAB_DB_SRC_CPU,		/* a CPU's store (also: source unknown) */
	SFAB_DB_SRC_PEER,		/* a peer device's DMA write */
};

/*
 * doorbell BAR write: SQ/RQ/CQ/EQ doorbells (sfab_regs.h, sfab_queue.h).
 * @src counts the write in stats.db_writes_cpu or db_writes_peer (a
 * doorbell works the same from either).  Send work it starts runs in
 * sfab_engine_process(): the host checks sfab_engine_work_pending()
 * afterwards as after a register write.
 */
void sfab_engine_db_write(struct sfab_engine *e, uint64_t off, uint64_t val,
			  unsigned int size, enum sfab_db_source src);

/*
 * sfab_engine_process() - run pending admin commands and async events.
 * Does a bounded amount of work: at most one admin ring's worth of
 * commands (fewer once SFAB_ENGINE_WORK_BYTES of admin work, firmware
 * and MR page lists and pool search, were done; sfab_engine_work_pending()
 * then says to call again) and the event backlog.
 * Return: admin commands completed.
 */
unsigned int sfab_engine_process(struct sfab_engine *e);

/* true when sfab_engine_process() has something to do */
bool sfab_engine_work_pending(const struct sfab_engine *e);

/*
 * The port's cable.  These run the port's work at once (flow-control
 * packets through ops->cable_tx, SMA/PMA answers, async events written to
 * the AENQ), so the caller needs no sfab_engine_process() after them.
 */
void sfab_engine_cable_up(struct sfab_engine *e);	/* the cable connected */
void sfab_engine_cable_down(struct sfab_engine *e);	/* the cable is gone */
/* one frame read from the cable: a data packet or a flow-control packet */
void sfab_engine_cable_rx(struct sfab_engine *e, const uint8_t *frame,
			  size_t len);
/* when sfab_engine_timer() has work (ops->now_ns clock); UINT64_MAX: none */
uint64_t sfab_engine_timer_deadline(struct sfab_engine *e);
/* run due timer work (periodic flow-control packets, link training) */
void sfab_engine_timer(struct sfab_engine *e);

/* NodeDescription (NUL-terminated, at most 63 bytes used); default
 * "sfab HCA <node GUID>" */
void sfab_engine_set_node_desc(struct sfab_engine *e, const char *desc);

#endif /* SFAB_ENGINE_H */
