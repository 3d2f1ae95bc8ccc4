/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab HCA engine: what only the engine's own files use.  Its internal
 * limits, the entries of its tables (struct sfab_engine holds pointers to
 * them), and the functions sfab_engine*.c call in each other.  The QEMU
 * shell uses sfab_engine.h alone; the unit tests, which look at the
 * engine's internals, include this too (tests/unit/fake_host.h).
 */
#ifndef SFAB_ENGINE_INT_H
#define SFAB_ENGINE_INT_H

#include "sfab_engine.h"

/* --- internal limits ---------------------------------------------------- */

/* the port's VL15 input buffer, in credit blocks */
#define SFAB_ENGINE_VL15_BLOCKS		40
/* PortInfo:CapabilityMask the SMA starts with */
#define SFAB_ENGINE_PORT_CAP		(SFAB_PI_CAP_HAS_SL_MAP |		\
					 SFAB_PI_CAP_HAS_SYS_IMAGE_GUID |	\
					 SFAB_PI_CAP_HAS_EXT_SPEEDS |		\
					 SFAB_PI_CAP_HAS_TRAP |			\
					 SFAB_PI_CAP_HAS_CAP_MASK_NOTICE |	\
					 SFAB_PI_CAP_HAS_CLIENT_REREG |	\
					 SFAB_PI_CAP_HAS_CM)
#define SFAB_ENGINE_SUBNET_PREFIX	0xfe80000000000000ULL
#define SFAB_ENGINE_MAX_MR_SIZE		(1ULL << 40)
/* MR page sizes: every one the contract allows, 4 KiB .. 1 GiB */
#define SFAB_ENGINE_PAGE_SIZE_CAP	((2ULL << SFAB_MR_MAX_PAGE_SHIFT) - \
					 (1ULL << SFAB_MR_MIN_PAGE_SHIFT))
#define SFAB_ENGINE_MIN_PAGE_SHIFT	12
#define SFAB_ENGINE_MAX_PAGE_SHIFT	16
#define SFAB_ENGINE_EQ_ALIGN		4096
/*
 * the lkey that names bus addresses; honoured on SFAB_QP_PRIV QPs only.
 * Its index (0xffffff) is outside the MR table, so no MR key equals it.
 */
#define SFAB_ENGINE_LOCAL_DMA_LKEY	0xffffff00U
/* page-list entries all MRs share (8 MiB: 4 GiB of 4 KiB pages) */
#define SFAB_ENGINE_MR_POOL		(1U << 20)
#define SFAB_ENGINE_MAX_FAST_REG_PAGES	16384
/* RDMA READ / atomic requests outstanding per QP, either side */
#define SFAB_ENGINE_MAX_RD_ATOM		8
/*
 * RC/UC: unacknowledged packets one QP may have on the wire: 2 MiB at a
 * 4 KiB MTU, so that a fabric whose ACKs take milliseconds to come back
 * (host threads on a loaded machine) still moves megabytes per round trip
 */
#define SFAB_ENGINE_RC_WINDOW		512
/*
 * The local ACK timeout: IBA's 4.096 us * 2^timeout, but at least
 * sfab_engine.rc_min_timeout_ns, by default this long, since an emulated
 * fabric is slower than wire: a peer guest's QEMU on a busy host can go
 * unscheduled for a good part of a second, and perftest's timeout 14
 * (67 ms) times its 7 retries gave up on RC connections that were merely
 * slow (verbs/perftest-smoke); with 500 ms the three 64 KiB pingpongs of
 * verbs/incast still timed out once or twice in 600 messages on a loaded
 * two-core host, the ACK of a message's last packet late behind the
 * receiver's other streams, though nothing was lost.
 */
#define SFAB_ENGINE_RC_MIN_TIMEOUT_NS	2000000000ULL
/* send WQEs one sfab_engine_process() (or port kick) handles at most */
#define SFAB_ENGINE_SEND_BUDGET		256
/* ... and of those, one QP's before the next QP's turn */
#define SFAB_ENGINE_QP_QUOTA		16
/*
 * Admin work one sfab_engine_process() call does before it leaves the
 * rest of the ring for the next call, so a ring full of large commands
 * cannot stall the host for long: firmware bytes downloaded or verified,
 * MR page-list bytes read, and 8 bytes for each word of the MR pool map
 * CREATE_MR examines to find room.  The command that crosses it finishes.
 */
#define SFAB_ENGINE_WORK_BYTES		(4U << 20)

/* --- the entries of the tables (struct sfab_engine: qp, cq, mr, srq) -- */

/* a host ring of a CQ or QP, from its struct sfab_ring_desc */
struct sfab_engine_qring {
	uint64_t addr;			/* the ring, or its page list */
	uint32_t npages;
	uint8_t log_depth, log_stride, page_shift;
	bool contig;
};

struct sfab_engine_cq {
	bool valid;
	bool err;			/* overrun or DMA failure: no more CQEs */
	uint8_t arm;			/* SFAB_DB_ARM_* */
	uint16_t db_page;
	uint16_t pi;			/* next CQE the device writes, free running */
	uint16_t ci;			/* from the CQ doorbell or record */
	uint64_t dbrec;			/* doorbell record address; 0: none */
	uint32_t eqn;
	uint32_t users;			/* QP queues that complete here */
	struct sfab_engine_qring ring;
};

/*
 * a memory region (sfab_engine_mr.c); the page list is in mr_pool.  A
 * memory window (SFAB_MR_WINDOW) is an entry too: no pages of its own,
 * live while bound, its range and rights in iova, length and access.
 */
struct sfab_engine_mr {
	bool valid;
	bool fast_reg;			/* SFAB_MR_FAST_REG */
	uint8_t mw_type;		/* 0: an MR; 1, 2: a window of that type */
	uint32_t parent;		/* a bound window: its MR's index */
	uint32_t qpn;			/* a bound type 2 window: its QP */
	uint32_t windows;		/* an MR: windows bound to it */
	bool live;			/* usable: always, or fast-reg between REG_MR and LOCAL_INV */
	uint8_t variant;		/* the key's low byte */
	uint8_t page_shift;
	uint32_t pdn, access;
	uint64_t iova, length;
	uint32_t npages;		/* of the current list */
	uint32_t max_pages;		/* its extent in mr_pool */
	uint32_t pool_off;
};

/* a shared receive queue */
struct sfab_engine_srq {
	bool valid;
	bool err;			/* a DMA failure: unusable */
	uint16_t db_page;
	uint16_t pi, ci;
	uint64_t dbrec;			/* doorbell record address; 0: none */
	uint32_t pdn, limit;
	uint32_t users;			/* QPs that take receives from it */
	bool xrc;			/* SFAB_SRQ_XRC: of xrcdn, completes on cqn */
	uint32_t xrcdn, cqn;
	struct sfab_engine_qring ring;
};

/* a READ or atomic the responder executed (for duplicates) */
/* struct sfab_engine_rd_atom.kind: what a responder resource holds */
enum sfab_rd_kind {
	SFAB_RD_FREE		= 0,
	SFAB_RD_READ		= 1,	/* READ: answered from memory, again */
	SFAB_RD_ATOMIC		= 2,	/* atomic: the saved original value */
	SFAB_RD_PLACEMENT	= 3,	/* ATOMIC WRITE, FLUSH: an empty answer */
};

struct sfab_engine_rd_atom {
	uint8_t kind;			/* enum sfab_rd_kind */
	uint32_t psn;			/* its first PSN */
	uint32_t npsn;			/* PSNs it spans (READ: response packets) */
	uint32_t sent;			/* response packets sent so far */
	uint32_t rkey, len;
	uint64_t va;
	uint64_t orig;			/* atomic: the value it returned */
	uint32_t pdn;			/* the PD its rkey is checked against */
};

struct sfab_engine_qp {
	bool valid;
	bool priv;			/* SFAB_QP_PRIV: local_dma_lkey allowed */
	bool sched;			/* send WQEs waiting for processing */
	bool flushing;			/* Error: WQEs left to flush (also sched) */
	uint8_t type;			/* enum sfab_qp_type */
	uint8_t state;			/* enum sfab_qp_state */
	uint8_t port;			/* SMI/GSI: from create; else MODIFY_QP */
	uint16_t db_page;
	uint16_t sq_pi, sq_ci, rq_pi, rq_ci;
	uint64_t sq_dbrec, rq_dbrec;	/* SET_QP_DBREC; 0: none (SQ: never read) */
	bool rq_dbrec_failed;		/* unreadable: not read again until RESET */
	uint32_t send_cqn, recv_cqn, pdn;
	struct sfab_engine_qring sq, rq;
	/* MODIFY_QP attributes, host order */
	uint32_t qkey, sq_psn, rq_psn, dest_qpn, access;
	uint16_t pkey_index, dlid;
	uint8_t path_mtu, sl, src_path_bits, timeout, retry_cnt, rnr_retry;
	uint8_t min_rnr_timer, max_rd_atomic, max_dest_rd_atomic;
	/* SFAB_QP_ATTR_GRH: the path is global, packets carry a GRH */
	bool grh;
	struct sfab_wqe_grh grh_av;	/* as MODIFY_QP gave it */
	/*
	 * receives from an SRQ (SFAB_QP_SRQ).  An XRC_TGT QP takes each
	 * message's SRQ (and its CQ and PD) from the XRCETH: srqn, recv_cqn
	 * and pdn are those of the message it is in or was in last.
	 */
	bool use_srq;
	uint32_t srqn;
	uint32_t xrcdn;			/* XRC_TGT: its XRC domain */
	/* SQD: send WQEs before sqd_stop were begun and may go on */
	uint16_t sqd_stop;
	bool sqd_drained;		/* SQ_DRAINED raised for this entry */
	/* RC/UC transport (sfab_engine_rc.c) */
	struct {
		/* requester */
		uint16_t snd_idx;	/* the WQE being sent */
		uint32_t snd_off;	/* its bytes already sent */
		uint32_t ci_psn;	/* first PSN of the WQE at sq_ci */
		uint32_t una_psn;	/* oldest PSN not acknowledged */
		uint32_t max_psn;	/* past the newest PSN ever sent */
		uint8_t retry_left, rnr_left;
		uint8_t sq_err;		/* a local error at snd_idx: completes when it is oldest */
		bool rnr_wait;		/* paused by an RNR NAK until rnr_at */
		bool ackreq_last;	/* the last packet sent asked for an ACK */
		bool err_ahead;		/* err_idx fails locally: ask an ACK before it */
		uint16_t err_idx;
		uint64_t ack_at;	/* local ACK timeout; 0: not running */
		uint64_t rnr_at;
		/* responder */
		uint32_t msn;		/* messages completed, 24 bits */
		uint32_t rcv_off;	/* bytes of the current message */
		bool in_send, in_write;	/* a multi-packet message is open */
		bool rwqe_taken;	/* an SRQ WQE belongs to the open send */
		uint16_t srq_idx;	/* that WQE */
		bool comm_est;		/* COMM_EST reported */
		bool nak_sent;		/* a sequence NAK is out: no more until epsn arrives */
		bool uc_drop;		/* UC: drop until the next FIRST/ONLY */
		uint64_t wr_va;		/* the open WRITE: next address */
		uint32_t wr_rkey, wr_left;
		/* responder output: ACK / NAK owed */
		bool ack_owed, nak_owed;
		uint32_t ack_psn;
		uint8_t nak_syn;
		uint32_t nak_psn;
		uint8_t rd_head, rd_next;	/* rd[] ring: oldest, next to serve */
		struct sfab_engine_rd_atom rd[SFAB_ENGINE_MAX_RD_ATOM];
	} rc;
};

/* RC and both halves of XRC: acknowledged, retried, in order */
static inline bool sfab_qp_reliable(const struct sfab_engine_qp *qp)
{
	return qp->type == SFAB_QPT_RC || qp->type == SFAB_QPT_XRC_INI ||
	       qp->type == SFAB_QPT_XRC_TGT;
}

/* the types sfab_engine_rc.c runs: RC, UC, XRC */
static inline bool sfab_qp_connected(const struct sfab_engine_qp *qp)
{
	return sfab_qp_reliable(qp) || qp->type == SFAB_QPT_UC;
}

/* --- table sizes and limits --------------------------------------------- */

/* words of the MR pool's map (mr_pool entries in an MR's extent) */
#define SFAB_ENGINE_POOL_MAP_WORDS	(SFAB_ENGINE_MR_POOL / 64)

/* words of the MR index map: bits 0 .. cfg.max_mr */
static inline uint32_t sfab_engine_mr_map_words(const struct sfab_engine *e)
{
	return (e->cfg.max_mr + 1 + 63) / 64;
}

/*
 * The limits CREATE_* enforce and QUERY_DEVICE reports: the firmware
 * profile's count (0 before firmware), within the engine's table.
 */
static inline uint32_t sfab_engine_limit(uint32_t prof_le, uint32_t table)
{
	uint32_t v = sfab_le32_to_cpu(prof_le);

	return v < table ? v : table;
}

static inline uint32_t sfab_engine_qp_limit(const struct sfab_engine *e)
{
	return sfab_engine_limit(e->profile.max_qp, e->cfg.max_qp);
}

static inline uint32_t sfab_engine_cq_limit(const struct sfab_engine *e)
{
	return sfab_engine_limit(e->profile.max_cq, e->cfg.max_cq);
}

static inline uint32_t sfab_engine_mr_limit(const struct sfab_engine *e)
{
	return sfab_engine_limit(e->profile.max_mr, e->cfg.max_mr);
}

static inline uint32_t sfab_engine_srq_limit(const struct sfab_engine *e)
{
	return sfab_engine_limit(e->profile.max_srq, e->cfg.max_srq);
}

/* --- inside the engine: sfab_engine.c <-> sfab_engine_port.c ------------ */

/* queue an async event; written to the host's AENQ by the next flush */
void sfab_engine_aenq_event(struct sfab_engine *e, uint8_t type,
			    uint32_t data0, uint64_t data1);
/* write queued async events the host's AENQ has room for */
void sfab_engine_aenq_flush(struct sfab_engine *e);
uint64_t sfab_engine_now(struct sfab_engine *e);
int sfab_engine_dma_read(struct sfab_engine *e, uint64_t addr, void *buf,
			 size_t len);
int sfab_engine_dma_write(struct sfab_engine *e, uint64_t addr,
			  const void *buf, size_t len);

/* port and SMA state (sfab_engine_port.c) */
void sfab_engine_port_reset(struct sfab_engine *e);
/* start or stop the link as firmware, HCA init and the cable allow */
void sfab_engine_port_update(struct sfab_engine *e);
/* send due FC packets and waiting frames, report state changes */
void sfab_engine_port_kick(struct sfab_engine *e);
/* the state QUERY_PORT and PORT_CHANGE report */
void sfab_engine_port_state(const struct sfab_engine *e,
			    enum sfab_port_state *st,
			    enum sfab_port_phys_state *phys);
/*
 * MAD_IFC: run the MAD in @mad (SFAB_MAD_SIZE bytes) through the SMA/PMA
 * as if it had arrived on @port from @slid (without the M_Key check with
 * @ignore_mkey); true when @mad now holds a response.
 */
bool sfab_engine_mad_local(struct sfab_engine *e, uint8_t *mad,
			   unsigned int port, uint16_t slid, bool ignore_mkey);

/*
 * A packet dropped for its P_Key or Q_Key: counted (QUERY_PORT, PortInfo
 * P_KeyViolations / Q_KeyViolations) and reported to the SM as trap 257
 * or 258 (at most one every SFAB_ENGINE_KEY_TRAP_NS: a flood of bad
 * packets is not a flood of traps).
 */
#define SFAB_ENGINE_KEY_TRAP_NS		(10ULL * 1000 * 1000)
void sfab_engine_key_violation(struct sfab_engine *e, uint16_t trap,
			       uint16_t slid, uint16_t dlid, uint32_t key,
			       uint8_t sl, uint32_t sqpn, uint32_t dqpn);

/* interrupts (filtered by SFAB_REG_INTR_MASK) */
void sfab_engine_irq(struct sfab_engine *e, unsigned int vector);
void sfab_engine_guest_error(struct sfab_engine *e, enum sfab_guest_err site,
			     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sfab_engine_trace(struct sfab_engine *e, enum sfab_trace_ev ev,
		       uint64_t a, uint64_t b);

/* --- queues and datapath (sfab_engine_qp.c) ------------------------------ */

/* CREATE_CQ .. DESTROY_SRQ: the AQ status, *result0 for the creates */
uint8_t sfab_engine_qp_cmd(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			   uint32_t *result0);
/* TEARDOWN_HCA: destroy every QP, SRQ, CQ and MR */
void sfab_engine_qp_teardown(struct sfab_engine *e);
/* true when an EQ has a CQ attached (DESTROY_EQ refuses it) */
bool sfab_engine_eq_busy(const struct sfab_engine *e, uint32_t eqn);
/* a doorbell BAR write, already checked for range and alignment */
void sfab_engine_qp_db(struct sfab_engine *e, uint64_t off, uint64_t val,
		       unsigned int size);
/* process send WQEs (bounded); true when runnable work is left */
void sfab_engine_qp_run(struct sfab_engine *e);
bool sfab_engine_qp_pending(const struct sfab_engine *e);
/*
 * a UD packet (SEND only, with or without immediate: @u, @x) for host QP
 * @u->dqpn: checks keys, takes a receive WQE, scatters, completes.
 */
void sfab_engine_qp_rx(struct sfab_engine *e, const struct sfab_pkt_ud *u,
		       const struct sfab_pkt_ud_ext *x);
/*
 * a UD packet to multicast LID @u->dlid: a copy for every QP attached to
 * its group (SFAB_AQ_ATTACH_MCAST), each as sfab_engine_qp_rx() would
 */
void sfab_engine_mcast_rx(struct sfab_engine *e, const struct sfab_pkt_ud *u,
			  const struct sfab_pkt_ud_ext *x);

/*
 * an RC or UC packet from the port (after the link accepted it, or looped
 * back): true when it was one (handled or dropped), false for anything
 * else (UD, raw), which the port handles as before.
 */
bool sfab_engine_qp_rx_pkt(struct sfab_engine *e, const uint8_t *frame,
			   size_t len);
/* when an RC timer (local ACK timeout, RNR wait) is due; UINT64_MAX: none */
uint64_t sfab_engine_qp_deadline(const struct sfab_engine *e);
/* run due RC timers (sfab_engine_qp_run() also does) */
void sfab_engine_qp_timer(struct sfab_engine *e);

/* --- memory regions (sfab_engine_mr.c) ----------------------------------- */

/* why an access was refused */
enum sfab_mr_err {
	SFAB_MR_OK = 0,
	SFAB_MR_BAD_KEY,		/* no such MR, wrong variant, not registered */
	SFAB_MR_BAD_PD,
	SFAB_MR_BOUNDS,
	SFAB_MR_ACCESS,
};
uint8_t sfab_engine_mr_cmd(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			   uint32_t *result0);
/* TEARDOWN_HCA: every MR goes */
void sfab_engine_mr_teardown(struct sfab_engine *e);
/*
 * the MR @key names, if [addr, addr + len) lies in it, it belongs to @pdn
 * and allows @access (SFAB_ACCESS_*); NULL and *err otherwise
 */
struct sfab_engine_mr *sfab_engine_mr_find(struct sfab_engine *e, uint32_t key,
					   uint32_t pdn, uint64_t addr,
					   uint64_t len, uint32_t access,
					   enum sfab_mr_err *err);
/* DMA through an MR's page list (checked by sfab_engine_mr_find): 0 or -1 */
int sfab_engine_mr_dma(struct sfab_engine *e, const struct sfab_engine_mr *mr,
		       uint64_t addr, void *buf, size_t len, bool write);
/*
 * REG_MR WQE posted on @qp: the CQE status.  The device reads the page
 * list from bus addresses, so only a privileged (SFAB_QP_PRIV) QP may
 * post one: any other gets LOC_QP_OP_ERR and the MR is untouched.
 */
uint8_t sfab_engine_mr_fast_reg(struct sfab_engine *e,
				const struct sfab_engine_qp *qp,
				const struct sfab_wqe_reg_mr *w);
/*
 * LOCAL_INV (posted on @qpn) or SEND_INV (received on @qpn): invalidate a
 * fast-reg MR of @pdn, or free a type 2 window bound to @qpn; true when done
 */
bool sfab_engine_mr_invalidate(struct sfab_engine *e, uint32_t pdn,
			       uint32_t qpn, uint32_t key);
/* DESTROY_QP: the type 2 windows bound to @qpn are freed */
void sfab_engine_mw_qp_gone(struct sfab_engine *e, uint32_t qpn);
/* BIND_MW WQE posted on @qp: the CQE status (sfab_queue.h) */
uint8_t sfab_engine_mw_bind(struct sfab_engine *e,
			    const struct sfab_engine_qp *qp,
			    const struct sfab_wqe_bind_mw *w);
/*
 * a peer's access through @key on the responder @qp: an MR of its PD (as
 * sfab_engine_mr_find()) or a bound window (sfab_queue.h); the MR whose
 * pages to use, or NULL and *err
 */
/*
 * The range a valid rkey (an MR's or a bound window's, its current
 * variant) covers, for a FLUSH of the whole region; false for any other
 * key.  sfab_engine_rkey_find() then checks PD, rights and range.
 */
bool sfab_engine_rkey_extent(struct sfab_engine *e, uint32_t key,
			     uint64_t *iova, uint64_t *length);
struct sfab_engine_mr *sfab_engine_rkey_find(struct sfab_engine *e,
					     const struct sfab_engine_qp *qp,
					     uint32_t key, uint64_t addr,
					     uint64_t len, uint32_t access,
					     enum sfab_mr_err *err);

/* the port, for host sends (sfab_engine_port.c) */
/* the route a frame from a host QP takes */
enum sfab_engine_route {
	SFAB_ROUTE_WIRE,		/* the port can take it now */
	SFAB_ROUTE_WAIT,		/* a data VL without room: try again later */
	SFAB_ROUTE_LOOPBACK,		/* for our own LID */
	SFAB_ROUTE_DROP,		/* the port cannot carry it */
};
enum sfab_engine_route sfab_engine_port_route(struct sfab_engine *e,
					      unsigned int vl, uint16_t dlid);
/* send a frame a host QP built (after sfab_engine_port_route) */
void sfab_engine_port_send(struct sfab_engine *e, const uint8_t *frame,
			   size_t len, bool local_dr);
/* what an RC frame of a QP is to the port's queues */
enum sfab_engine_rc_frame {
	/* a request: sfab_rc_req_sent() once it leaves the port */
	SFAB_RC_FRAME_REQ,
	/* a READ response or atomic ACK: in order with the QP's ACKs */
	SFAB_RC_FRAME_RESP,
	/* an ACK or NAK: the ACK queue, ahead of the data waiting for credit */
	SFAB_RC_FRAME_ACK,
};
/*
 * the same for an RC frame of QP @qpn (after sfab_engine_port_route, or
 * sfab_engine_port_route_ack for SFAB_RC_FRAME_ACK): sent now, or queued
 * until credit lets it out
 */
#define SFAB_ENGINE_NO_QPN		UINT32_MAX
void sfab_engine_port_send_rc(struct sfab_engine *e, const uint8_t *frame,
			      size_t len, uint32_t qpn,
			      enum sfab_engine_rc_frame kind);
/* the route of an ACK-class frame: WAIT only when the ACK queue is full */
enum sfab_engine_route sfab_engine_port_route_ack(struct sfab_engine *e,
						  unsigned int vl,
						  uint16_t dlid);
/* RC request packets of QP @qpn wait in the port for link credit */
bool sfab_engine_port_req_queued(const struct sfab_engine *e, uint32_t qpn);
/* RC responses of QP @qpn wait there (its ACKs must queue behind them) */
bool sfab_engine_port_resp_queued(const struct sfab_engine *e, uint32_t qpn);
/* the VL that SL maps to on the port; SFAB_VL15 when it is not usable */
unsigned int sfab_engine_port_sl2vl(const struct sfab_engine *e, unsigned int sl);
/* bytes of the port's active MTU */
unsigned int sfab_engine_port_mtu(const struct sfab_engine *e);

/* --- what sfab_engine_qp.c and sfab_engine_rc.c share ------------------- */

/* sfab_engine_qp.c */
int sfab_qp_ring_entry(struct sfab_engine *e, const struct sfab_engine_qring *r,
		       uint32_t idx, uint64_t *out);
void sfab_qp_cq_post(struct sfab_engine *e, uint32_t cqn, struct sfab_cqe *cqe,
		     bool solicited);
uint32_t sfab_qp_qpn(const struct sfab_engine *e, const struct sfab_engine_qp *qp);
void sfab_qp_sched(struct sfab_engine *e, struct sfab_engine_qp *qp, bool on);
struct sfab_engine_qp *sfab_qp_get(struct sfab_engine *e, uint32_t qpn);
struct sfab_engine_srq *sfab_qp_srq_get(struct sfab_engine *e, uint32_t srqn);
/* move to Error (flushing) unless there already */
void sfab_qp_error(struct sfab_engine *e, struct sfab_engine_qp *qp);
/* SQD: SQ_DRAINED once every send WQE begun has completed */
void sfab_qp_sqd_check(struct sfab_engine *e, struct sfab_engine_qp *qp);
/* an SFAB_AENQ_QP_EVENT */
void sfab_qp_event(struct sfab_engine *e, struct sfab_engine_qp *qp,
		   uint8_t ev);
uint8_t sfab_qp_local_dma(struct sfab_engine *e, struct sfab_engine_qp *qp,
			  uint32_t lkey, uint64_t addr, void *buf, size_t len,
			  bool write);
uint8_t sfab_qp_sge_dma(struct sfab_engine *e, struct sfab_engine_qp *qp,
			const struct sfab_sge *sges, unsigned int n, size_t at,
			void *buf, size_t len, bool write);
int sfab_qp_rwqe_peek(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      uint8_t *wqe, uint16_t *idx);
void sfab_qp_rwqe_consume(struct sfab_engine *e, struct sfab_engine_qp *qp);
bool sfab_qp_rwqe_read(struct sfab_engine *e, struct sfab_engine_qp *qp,
		       uint16_t idx, uint8_t *wqe);
bool sfab_qp_rwqe_sges(struct sfab_engine *e, struct sfab_engine_qp *qp,
		       const uint8_t *wqe, struct sfab_sge *sges,
		       unsigned int *n, uint64_t *room, uint64_t *wr_id);

/* the port's GID 0 (its only one): subnet prefix and port GUID */
void sfab_qp_port_gid(const struct sfab_engine *e, uint8_t gid[16]);
/* a received GRH's DGID is the port GID (else dropped, rx_bad_grh) */
bool sfab_qp_dgid_ok(struct sfab_engine *e, const struct sfab_pkt_grh *g);
/* the GRH of the QP's path (SFAB_QP_ATTR_GRH) for a packet it sends */
void sfab_qp_path_grh(const struct sfab_engine *e,
		      const struct sfab_engine_qp *qp, struct sfab_pkt_grh *g);

/* sfab_engine_rc.c */
/*
 * The most send WQEs one walk over an RC/UC send queue reads (for an ACK,
 * a response, a packet, a timeout, SQD).  Sent WQEs not yet completed
 * each hold PSNs of the window (local operations run only once all before
 * them completed), so a QP has at most SFAB_ENGINE_RC_WINDOW and a few
 * READs begun and not done; a walk that would go further only finds WQEs
 * the guest rewrote after they were sent.
 */
#define SFAB_RC_WALK_MAX	(2 * SFAB_ENGINE_RC_WINDOW)
void sfab_rc_init_responder(struct sfab_engine *e, struct sfab_engine_qp *qp);
void sfab_rc_init_requester(struct sfab_engine *e, struct sfab_engine_qp *qp);
/*
 * The requester reads a send WQE from the guest when it starts its message
 * and keeps what it parsed for the message's other packets, in one of
 * SFAB_RC_WC_SLOTS slots (chosen by QPN; a QP that finds its slot taken
 * reads the WQE again).  A go-back, or any other move of the send point
 * than the next packet's, reads the WQE again.
 */
#define SFAB_RC_WC_SLOTS	16
struct sfab_rc_wc *sfab_rc_wc_alloc(void);
/* forget what the requester of @qp keeps (NULL: of every QP) */
void sfab_rc_wc_drop(struct sfab_engine *e, const struct sfab_engine_qp *qp);
/*
 * RTS -> SQD of an RC/UC QP: sqd_stop, the end of the WQEs begun; RC asks
 * again for the ACK the last packet sent did not request
 */
void sfab_rc_sqd_begin(struct sfab_engine *e, struct sfab_engine_qp *qp);
/* one step of an RC/UC QP's output; false when it has to stop */
bool sfab_rc_step(struct sfab_engine *e, struct sfab_engine_qp *qp);
/* an RC request packet of QP @qpn left the port: its ACK timer restarts */
void sfab_rc_req_sent(struct sfab_engine *e, uint32_t qpn);

#endif /* SFAB_ENGINE_INT_H */
