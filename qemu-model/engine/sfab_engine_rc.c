/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab HCA engine: the RC and UC transport (IBTA vol 1 ch. 9).
 *
 * Requester: send WQEs become packets of at most the path MTU (first,
 * middle, last / only opcodes), 24-bit PSNs, at most SFAB_ENGINE_RC_WINDOW
 * unacknowledged packets and max_rd_atomic READs/atomics in flight.  RC
 * retransmits go-back-N from the oldest unacknowledged PSN on the local
 * ACK timeout (IBA 4.096 us * 2^timeout, at least
 * SFAB_ENGINE_RC_MIN_TIMEOUT_NS), on a PSN sequence NAK and on an implied
 * NAK (an ACK past a READ whose responses were lost); retry_cnt bounds the
 * retries (RETRY_EXC_ERR), rnr_retry the RNR NAKs (7: forever), each
 * waiting the timer the NAK names.  Every go-back that sends the same
 * oldest unacknowledged PSN again uses a retry.  WQEs complete in order.
 * UC WQEs complete once sent.  LOCAL_INV and REG_MR wait until every
 * earlier WQE has completed, then run.  WQEs are read from guest memory
 * again whenever needed: one the guest changed after it was begun is a
 * local error (sq_rewritten()), and no walk over the send queue reads more
 * than SFAB_RC_WALK_MAX of them.
 *
 * Responder: in-order PSNs; a PSN ahead is answered with one sequence NAK
 * until the expected one comes; a duplicate SEND or WRITE is ACKed again
 * and not executed, a duplicate READ executed again from its PSN, a
 * duplicate atomic answered with the saved result (the last
 * SFAB_ENGINE_MAX_RD_ATOM READs/atomics are kept).  ACKs are coalesced: one
 * ACK per burst the engine handles at once.  No receive WQE: an RNR NAK
 * with the QP's min_rnr_timer.  Invalid requests, rkey/bounds/access
 * violations and local errors are NAKed with the IBA codes and move the
 * responder to Error (with REQ_ERR or ACCESS_ERR events).  Atomics are
 * 8-byte, aligned, little-endian in memory, atomic with respect to this
 * engine (IB_ATOMIC_HCA).
 *
 * Every packet goes through the port (credit waits, loopback to the own
 * LID); nothing bypasses the link.  Data moves at most one MTU at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "sfab_engine.h"
#include "sfab_engine_int.h"
#include "../link/sfab_pkt.h"

#define MAX_SGE		(SFAB_WQE_MAX_SIZE / sizeof(struct sfab_sge))
#define PSN_MASK	SFAB_BTH_PSN_MASK

static uint32_t psn_add(uint32_t a, uint32_t n)
{
	return (a + n) & PSN_MASK;
}

/* a - b in the 24-bit PSN space, as a signed distance */
static int32_t psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & PSN_MASK;

	return d & 0x800000U ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/* the requester works: RTS, and SQD for the WQEs begun before it */
static bool sq_live(const struct sfab_engine_qp *qp)
{
	return qp->state == SFAB_QPS_RTS || qp->state == SFAB_QPS_SQD;
}

/* where sending stops: the producer index, in SQD the WQEs begun */
static uint16_t sq_end(const struct sfab_engine_qp *qp)
{
	return qp->state == SFAB_QPS_SQD ? qp->sqd_stop : qp->sq_pi;
}

static uint32_t qp_mtu(const struct sfab_engine_qp *qp)
{
	unsigned int code = qp->path_mtu;

	if (code < 1 || code > SFAB_PI_MTU_4096)
		code = SFAB_PI_MTU_4096;
	return 128U << code;
}

/*
 * The profile's limit, validated with the image; held to the PSN space
 * here too: a READ's PSN span past 2^23 leaves sq_psn "behind" una_psn,
 * with no ACK timer and nothing sent (found by fuzz/datapath).
 */
static uint32_t max_msg(const struct sfab_engine *e)
{
	uint32_t m = sfab_le32_to_cpu(e->profile.max_msg_size);

	return m < SFAB_FW_MAX_MSG_SIZE ? m : SFAB_FW_MAX_MSG_SIZE;
}

static uint32_t npsn_of(uint64_t len, uint32_t mtu)
{
	return len ? (uint32_t)((len + mtu - 1) / mtu) : 1;
}

/*
 * The byte offset of PSN @k of a message: where a go-back resumes it.
 * Past any message (UINT32_MAX) when it cannot be one; req_step() refuses
 * a send point that is not inside its WQE.
 */
static uint32_t psn_off(const struct sfab_engine_qp *qp, uint32_t k)
{
	uint64_t off = (uint64_t)k * qp_mtu(qp);

	return off > UINT32_MAX ? UINT32_MAX : (uint32_t)off;
}

static void timer_arm(struct sfab_engine *e, uint64_t at)
{
	if (!e->rc_timer_at || at < e->rc_timer_at)
		e->rc_timer_at = at;
}

static uint64_t ack_timeout_ns(const struct sfab_engine *e,
			       const struct sfab_engine_qp *qp)
{
	uint64_t t = 4096ULL << qp->timeout;

	return t < e->rc_min_timeout_ns ? e->rc_min_timeout_ns : t;
}

/* IBA table 45: the RNR NAK timer field, in microseconds */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * The local ACK timer runs while packets are unacknowledged (RC): armed
 * by the first request packet built, restarted (@progress) by every one
 * that leaves the port (sfab_rc_req_sent(), also when it waited there for
 * link credit) and by every ACK or response that acknowledges something;
 * it does not expire while request packets of the QP still wait in the
 * port for credit, nor while the QP waits for its turn to send (on the
 * run queue: the port's queue is full of other QPs' packets and ACKs, or
 * the work budget ran out; sfab_engine_qp_timer()).  So a message that
 * crosses a congested, lossless fabric one credit at a time is timed from
 * its newest packet on the wire, not its first, however many QPs share
 * the port; a loss is still seen by the responder's sequence NAK for any
 * later packet, or by the timer once the requester's last packet left
 * (its window or its send queue ends).
 */
static void ack_timer_update(struct sfab_engine *e, struct sfab_engine_qp *qp,
			     bool progress)
{
	bool outstanding = sfab_qp_reliable(qp) && qp->timeout &&
			   psn_diff(qp->sq_psn, qp->rc.una_psn) > 0 &&
			   !qp->rc.rnr_wait;

	if (!outstanding) {
		qp->rc.ack_at = 0;
		return;
	}
	if (progress || !qp->rc.ack_at) {
		qp->rc.ack_at = sfab_engine_now(e) + ack_timeout_ns(e, qp);
		timer_arm(e, qp->rc.ack_at);
	}
}

void sfab_rc_init_responder(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	(void)e;
	qp->rc.msn = 0;
	qp->rc.in_send = qp->rc.in_write = false;
	qp->rc.uc_drop = false;
	qp->rc.nak_sent = false;
	qp->rc.ack_owed = qp->rc.nak_owed = false;
	qp->rc.rd_head = qp->rc.rd_next = 0;
	memset(qp->rc.rd, 0, sizeof(qp->rc.rd));
}

void sfab_rc_init_requester(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	sfab_rc_wc_drop(e, qp);
	qp->rc.snd_idx = qp->sq_ci;
	qp->rc.snd_off = 0;
	qp->rc.ci_psn = qp->rc.una_psn = qp->rc.max_psn = qp->sq_psn;
	qp->rc.retry_left = qp->retry_cnt;
	qp->rc.rnr_left = qp->rnr_retry;
	qp->rc.sq_err = 0;
	qp->rc.err_ahead = false;
	qp->rc.rnr_wait = false;
	qp->rc.ack_at = 0;
}

/* -------------------------------------------------------------------- */
/* send WQEs */

struct swqe {
	struct sfab_wqe_ctrl ctrl;
	uint8_t op;
	uint32_t xrc_srqn;		/* XRC_INI: the XRCETH it sends */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add, compare;
	uint8_t awrite[8];		/* ATOMIC_WRITE: the bytes, as in memory */
	uint64_t flush_len;		/* FLUSH */
	uint32_t feth;			/* FLUSH: the FETH it sends */
	struct sfab_wqe_reg_mr reg;
	struct sfab_wqe_bind_mw bind;
	bool inl;
	size_t inl_at;
	unsigned int nsge;
	struct sfab_sge sges[MAX_SGE];
	uint64_t len;
	uint32_t npsn;			/* 0: a local operation */
	uint8_t wqe[SFAB_WQE_MAX_SIZE];
};

/* answered with a response, taking one of the responder's resources */
static bool is_rd_atomic(uint8_t op)
{
	return op == SFAB_WQE_RDMA_READ || op == SFAB_WQE_ATOMIC_CS ||
	       op == SFAB_WQE_ATOMIC_FA || op == SFAB_WQE_ATOMIC_WRITE ||
	       op == SFAB_WQE_FLUSH;
}

/* one packet, never resumed part way */
static bool is_one_pkt(uint8_t op)
{
	return op == SFAB_WQE_ATOMIC_CS || op == SFAB_WQE_ATOMIC_FA ||
	       op == SFAB_WQE_ATOMIC_WRITE || op == SFAB_WQE_FLUSH;
}

static bool is_local(uint8_t op)
{
	return op == SFAB_WQE_LOCAL_INV || op == SFAB_WQE_REG_MR ||
	       op == SFAB_WQE_BIND_MW;
}

/*
 * Read and check the send WQE at @idx.  0, or the CQE status it completes
 * with; -1 when it cannot be read at all.
 */
static int swqe_parse(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      uint16_t idx, struct swqe *w)
{
	uint32_t stride = 1U << qp->sq.log_stride;
	size_t at = sizeof(struct sfab_wqe_ctrl);
	uint64_t addr;
	unsigned int i;

	if (sfab_qp_ring_entry(e, &qp->sq, idx, &addr) ||
	    sfab_engine_dma_read(e, addr, w->wqe, stride))
		return -1;
	memcpy(&w->ctrl, w->wqe, sizeof(w->ctrl));
	w->op = w->ctrl.opcode;
	w->xrc_srqn = 0;
	if (qp->type == SFAB_QPT_XRC_INI) {
		/* the far end's SRQ, then the WQE as on RC */
		struct sfab_wqe_xrc x;

		memcpy(&x, w->wqe + at, sizeof(x));
		w->xrc_srqn = sfab_le32_to_cpu(x.remote_srqn);
		at += sizeof(x);
		if (w->xrc_srqn > SFAB_XRCETH_SRQN_MASK || x.reserved[0] ||
		    x.reserved[1] || x.reserved[2])
			return SFAB_CQE_STS_LOC_QP_OP_ERR;
	}
	w->len = 0;
	w->nsge = 0;
	w->inl = false;
	switch (w->op) {
	case SFAB_WQE_SEND:
	case SFAB_WQE_SEND_IMM:
	case SFAB_WQE_RDMA_WRITE:
	case SFAB_WQE_RDMA_WRITE_IMM:
	case SFAB_WQE_LOCAL_INV:
	case SFAB_WQE_REG_MR:
	case SFAB_WQE_BIND_MW:
		break;
	case SFAB_WQE_SEND_INV:
	case SFAB_WQE_RDMA_READ:
	case SFAB_WQE_ATOMIC_CS:
	case SFAB_WQE_ATOMIC_FA:
	case SFAB_WQE_ATOMIC_WRITE:
	case SFAB_WQE_FLUSH:
		if (qp->type != SFAB_QPT_UC)
			break;
		return SFAB_CQE_STS_LOC_QP_OP_ERR;	/* not on UC */
	default:
		return SFAB_CQE_STS_LOC_QP_OP_ERR;
	}
	if (w->op == SFAB_WQE_REG_MR) {
		memcpy(&w->reg, w->wqe + at, sizeof(w->reg));
		w->npsn = 0;
		return 0;
	}
	if (w->op == SFAB_WQE_BIND_MW) {
		memcpy(&w->bind, w->wqe + at, sizeof(w->bind));
		w->npsn = 0;
		return 0;
	}
	if (w->op == SFAB_WQE_LOCAL_INV) {
		w->npsn = 0;
		return 0;
	}
	if (w->op >= SFAB_WQE_RDMA_WRITE) {
		struct sfab_wqe_raddr ra;

		memcpy(&ra, w->wqe + at, sizeof(ra));
		w->raddr = sfab_le64_to_cpu(ra.remote_addr);
		w->rkey = sfab_le32_to_cpu(ra.rkey);
		at += sizeof(ra);
	}
	if (w->op == SFAB_WQE_ATOMIC_CS || w->op == SFAB_WQE_ATOMIC_FA) {
		struct sfab_wqe_atomic a;

		memcpy(&a, w->wqe + at, sizeof(a));
		w->swap_add = sfab_le64_to_cpu(a.swap_add);
		w->compare = sfab_le64_to_cpu(a.compare);
		at += sizeof(a);
	}
	if (w->op == SFAB_WQE_ATOMIC_WRITE || w->op == SFAB_WQE_FLUSH) {
		/* no local data: nothing else in the WQE */
		if (w->ctrl.num_sge || (w->ctrl.flags & SFAB_WQE_INLINE))
			return SFAB_CQE_STS_LOC_LEN_ERR;
		if (w->op == SFAB_WQE_ATOMIC_WRITE) {
			struct sfab_wqe_atomic a;

			memcpy(&a, w->wqe + at, sizeof(a));
			memcpy(w->awrite, &a.swap_add, sizeof(w->awrite));
			if (a.compare)
				return SFAB_CQE_STS_LOC_QP_OP_ERR;
		} else {
			struct sfab_wqe_flush f;
			unsigned int i;

			memcpy(&f, w->wqe + at, sizeof(f));
			for (i = 0; i < sizeof(f.reserved); i++)
				if (f.reserved[i])
					return SFAB_CQE_STS_LOC_QP_OP_ERR;
			if (!f.type || (f.type & ~(SFAB_FLUSH_GLOBAL |
						   SFAB_FLUSH_PERSISTENT)) ||
			    f.level > SFAB_FLUSH_MR)
				return SFAB_CQE_STS_LOC_QP_OP_ERR;
			w->flush_len = sfab_le64_to_cpu(f.length);
			if (f.level == SFAB_FLUSH_RANGE &&
			    w->flush_len > UINT32_MAX)
				return SFAB_CQE_STS_LOC_LEN_ERR;
			w->feth = f.type | (uint32_t)f.level << SFAB_FETH_SEL_SHIFT;
		}
		w->npsn = 1;
		return 0;
	}
	if (w->ctrl.flags & SFAB_WQE_INLINE) {
		struct sfab_wqe_inline inl;
		uint32_t n;

		memcpy(&inl, w->wqe + at, sizeof(inl));
		n = sfab_le32_to_cpu(inl.byte_count);
		if (w->ctrl.num_sge || is_rd_atomic(w->op) ||
		    n > sfab_le32_to_cpu(e->profile.max_inline) ||
		    at + sizeof(inl) + n > stride)
			return SFAB_CQE_STS_LOC_LEN_ERR;
		w->inl = true;
		w->inl_at = at + sizeof(inl);
		w->len = n;
	} else {
		if (w->ctrl.num_sge > sfab_le32_to_cpu(e->profile.max_sge) ||
		    at + w->ctrl.num_sge * sizeof(struct sfab_sge) > stride)
			return SFAB_CQE_STS_LOC_LEN_ERR;
		w->nsge = w->ctrl.num_sge;
		memcpy(w->sges, w->wqe + at, w->nsge * sizeof(struct sfab_sge));
		for (i = 0; i < w->nsge; i++)
			w->len += sfab_le32_to_cpu(w->sges[i].length);
	}
	if (w->len > max_msg(e))
		return SFAB_CQE_STS_LOC_LEN_ERR;
	if ((w->op == SFAB_WQE_ATOMIC_CS || w->op == SFAB_WQE_ATOMIC_FA) &&
	    (w->nsge != 1 || w->len != 8))
		return SFAB_CQE_STS_LOC_LEN_ERR;
	w->npsn = w->op == SFAB_WQE_ATOMIC_CS || w->op == SFAB_WQE_ATOMIC_FA ?
		  1 : npsn_of(w->len, qp_mtu(qp));
	return 0;
}

/* one QP's send WQE kept for the rest of its message */
struct sfab_rc_wc {
	bool valid;
	uint32_t qpn;
	uint16_t idx;		/* the WQE */
	uint32_t off;		/* the send point it is good for */
	struct swqe w;
};

struct sfab_rc_wc *sfab_rc_wc_alloc(void)
{
	return calloc(SFAB_RC_WC_SLOTS, sizeof(struct sfab_rc_wc));
}

static struct sfab_rc_wc *wc_slot(struct sfab_engine *e, uint32_t qpn)
{
	return &e->rc_wc[qpn % SFAB_RC_WC_SLOTS];
}

void sfab_rc_wc_drop(struct sfab_engine *e, const struct sfab_engine_qp *qp)
{
	struct sfab_rc_wc *c;
	uint32_t qpn;
	unsigned int i;

	if (!e->rc_wc)
		return;
	if (!qp) {
		for (i = 0; i < SFAB_RC_WC_SLOTS; i++)
			e->rc_wc[i].valid = false;
		return;
	}
	qpn = (uint32_t)(qp - e->qp);
	c = wc_slot(e, qpn);
	if (c->qpn == qpn)
		c->valid = false;
}

/*
 * The send WQE at snd_idx for the packet at snd_off: the one kept since
 * the message's last packet when it is for this send point, else read
 * now into the QP's slot (*@fresh).  0, or what swqe_parse() returned.
 */
static int wc_get(struct sfab_engine *e, struct sfab_engine_qp *qp,
		  struct swqe **w, bool *fresh)
{
	uint32_t qpn = (uint32_t)(qp - e->qp);
	struct sfab_rc_wc *c = wc_slot(e, qpn);

	*w = &c->w;
	*fresh = !(qp->rc.snd_off && c->valid && c->qpn == qpn &&
		   c->idx == qp->rc.snd_idx && c->off == qp->rc.snd_off);
	if (!*fresh) {
		e->stats.rc_wqe_kept++;
		return 0;
	}
	c->valid = false;
	c->qpn = qpn;
	return swqe_parse(e, qp, qp->rc.snd_idx, &c->w);
}

/* the message goes on at the new send point: keep its WQE for it */
static void wc_keep(struct sfab_engine *e, const struct sfab_engine_qp *qp)
{
	struct sfab_rc_wc *c = wc_slot(e, (uint32_t)(qp - e->qp));

	c->valid = true;
	c->idx = qp->rc.snd_idx;
	c->off = qp->rc.snd_off;
}

static uint8_t cqe_opcode(uint8_t op)
{
	switch (op) {
	case SFAB_WQE_RDMA_WRITE:
	case SFAB_WQE_RDMA_WRITE_IMM:
		return SFAB_CQE_RDMA_WRITE;
	case SFAB_WQE_RDMA_READ:
		return SFAB_CQE_RDMA_READ;
	case SFAB_WQE_ATOMIC_CS:
		return SFAB_CQE_ATOMIC_CS;
	case SFAB_WQE_ATOMIC_FA:
		return SFAB_CQE_ATOMIC_FA;
	case SFAB_WQE_LOCAL_INV:
		return SFAB_CQE_LOCAL_INV;
	case SFAB_WQE_REG_MR:
		return SFAB_CQE_REG_MR;
	case SFAB_WQE_BIND_MW:
		return SFAB_CQE_BIND_MW;
	case SFAB_WQE_ATOMIC_WRITE:
		return SFAB_CQE_ATOMIC_WRITE;
	case SFAB_WQE_FLUSH:
		return SFAB_CQE_FLUSH;
	default:
		return SFAB_CQE_SEND;
	}
}

/* the oldest WQE is done: its CQE (signalled or an error), the ring moves */
static void head_done(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      const struct swqe *w, uint8_t status)
{
	uint16_t idx = qp->sq_ci;
	struct sfab_cqe cqe;

	qp->sq_ci++;
	qp->rc.ci_psn = psn_add(qp->rc.ci_psn, w->npsn);
	if (psn_diff(qp->rc.una_psn, qp->rc.ci_psn) < 0)
		qp->rc.una_psn = qp->rc.ci_psn;
	if (status)
		e->stats.send_errors++;
	else
		e->stats.sends++;
	if (status == SFAB_CQE_STS_RETRY_EXC_ERR)
		e->stats.rc_retry_exc++;
	else if (status == SFAB_CQE_STS_RNR_RETRY_EXC_ERR)
		e->stats.rc_rnr_retry_exc++;
	if (status || (w->ctrl.flags & SFAB_WQE_SIGNALED)) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.wr_id = w->ctrl.wr_id;
		cqe.status = status;
		cqe.byte_len = sfab_cpu_to_le32(status ? 0 : (uint32_t)w->len);
		cqe.qpn_opcode = sfab_cqe_qpn_opcode(sfab_qp_qpn(e, qp),
						     cqe_opcode(w->op));
		cqe.wqe_index = sfab_cpu_to_le16(idx);
		sfab_qp_cq_post(e, qp->send_cqn, &cqe, false);
	}
	if (status)
		sfab_qp_error(e, qp);
	else
		sfab_qp_sqd_check(e, qp);
}

/*
 * The oldest WQE completes with an error it could not be parsed into.
 * None is posted when PSNs are outstanding past the last WQE (the guest
 * rewrote sent WQEs into ones with fewer PSNs, and the ACKs completed
 * them early): the QP fails without a CQE, never for a WQE it was not
 * given (sq_ci past sq_pi would flush 65535 of them).
 */
static void head_fail(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      uint8_t status)
{
	struct swqe w;
	uint64_t addr;

	if (qp->sq_ci == qp->sq_pi) {
		sfab_engine_guest_error(e, SFAB_GE_RC_WQE_REWRITE,
					"QP %u: send queue empty with PSNs outstanding (CQE status %u): WQEs changed after they were sent",
					sfab_qp_qpn(e, qp), status);
		sfab_qp_event(e, qp, SFAB_QP_EV_FATAL);
		sfab_qp_error(e, qp);
		return;
	}
	memset(&w, 0, sizeof(w));
	if (!sfab_qp_ring_entry(e, &qp->sq, qp->sq_ci, &addr))
		sfab_engine_dma_read(e, addr, &w.ctrl, sizeof(w.ctrl));
	w.op = w.ctrl.opcode;
	head_done(e, qp, &w, status);
}

/* a send WQE swqe_parse() refused: the guest wrote it so */
static void swqe_bad(struct sfab_engine *e, struct sfab_engine_qp *qp,
		     uint16_t idx, const struct swqe *w, int st)
{
	if (st < 0)
		sfab_engine_guest_error(e, SFAB_GE_RC_WQE,
					"QP %u: send WQE %u unreadable (ring or SGE DMA)",
					sfab_qp_qpn(e, qp), idx);
	else if (st == SFAB_CQE_STS_LOC_QP_OP_ERR)
		sfab_engine_guest_error(e, SFAB_GE_RC_WQE_OPCODE,
					"QP %u type %u: send WQE %u opcode 0x%02x",
					sfab_qp_qpn(e, qp), qp->type, idx, w->op);
	else
		sfab_engine_guest_error(e, SFAB_GE_RC_WQE,
					"QP %u: send WQE %u opcode 0x%02x: CQE status %d",
					sfab_qp_qpn(e, qp), idx, w->op, st);
}

/*
 * The guest changed send WQEs the requester had begun (they stay in guest
 * memory and are read again for every packet, go-back and ACK): what they
 * say no longer matches what went out.  As for a begun WQE that can no
 * longer be read: the QP goes to Error, the oldest WQE completes with a
 * local error.
 */
static void sq_rewritten(struct sfab_engine *e, struct sfab_engine_qp *qp,
			 uint16_t idx)
{
	sfab_engine_guest_error(e, SFAB_GE_RC_WQE_REWRITE,
				"QP %u: send WQE %u changed after it was begun",
				sfab_qp_qpn(e, qp), idx);
	sfab_qp_event(e, qp, SFAB_QP_EV_FATAL);
	head_fail(e, qp, SFAB_CQE_STS_LOC_QP_OP_ERR);
}

/*
 * Complete what is done, oldest first: sends and writes the peer
 * acknowledged (una_psn passed them), UC WQEs that were sent, and a local
 * error at the send point once everything before it is done.
 */
static void req_complete(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	unsigned int k = 0;
	struct swqe w;
	uint32_t end;
	int st;

	while (qp->state != SFAB_QPS_ERR && qp->state != SFAB_QPS_RESET) {
		if (qp->sq_ci == qp->rc.snd_idx) {
			if (qp->rc.sq_err)
				head_fail(e, qp, qp->rc.sq_err);
			return;
		}
		/* more than a QP can have begun: WQEs were rewritten */
		if (k++ == SFAB_RC_WALK_MAX) {
			sq_rewritten(e, qp, qp->sq_ci);
			return;
		}
		st = swqe_parse(e, qp, qp->sq_ci, &w);
		if (st) {
			/* it was sent: it cannot be unreadable unless the host broke it */
			swqe_bad(e, qp, qp->sq_ci, &w, st);
			sfab_qp_event(e, qp, SFAB_QP_EV_FATAL);
			head_fail(e, qp, st < 0 ? SFAB_CQE_STS_LOC_PROT_ERR : st);
			return;
		}
		if (!w.npsn) {
			head_done(e, qp, &w, 0);	/* a local op, already run */
			continue;
		}
		if (qp->type == SFAB_QPT_UC) {
			head_done(e, qp, &w, 0);
			continue;
		}
		end = psn_add(qp->rc.ci_psn, w.npsn);
		/*
		 * It was sent whole (it is before the send point): PSNs past
		 * those sent say the guest rewrote it since.  No ACK could
		 * complete it, and once all that was sent is acknowledged no
		 * ACK timer runs either.
		 */
		if (psn_diff(end, qp->sq_psn) > 0) {
			sq_rewritten(e, qp, qp->sq_ci);
			return;
		}
		if (is_rd_atomic(w.op))
			return;		/* completes with its response */
		if (psn_diff(qp->rc.una_psn, end) < 0)
			return;
		head_done(e, qp, &w, 0);
	}
}

/* start again from the oldest unacknowledged PSN */
static void go_back(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	struct swqe w;
	int32_t done = psn_diff(qp->rc.una_psn, qp->rc.ci_psn);

	sfab_rc_wc_drop(e, qp);
	qp->rc.snd_idx = qp->sq_ci;
	qp->rc.snd_off = 0;
	qp->rc.sq_err = 0;
	qp->sq_psn = qp->rc.una_psn;
	/* the oldest WQE partly acknowledged (or READ partly answered) */
	if (done > 0 && qp->sq_ci != qp->sq_pi &&
	    !swqe_parse(e, qp, qp->sq_ci, &w) && !is_one_pkt(w.op))
		qp->rc.snd_off = psn_off(qp, (uint32_t)done);
	e->stats.rc_retransmits++;
	qp->rc.ack_at = 0;
	ack_timer_update(e, qp, true);
	sfab_qp_sched(e, qp, true);
}

/*
 * An ACK (or response) for PSNs sent before a go-back: the peer has them,
 * so the send point moves on to una_psn instead of sending them again.
 */
static void skip_to_una(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	uint32_t f = qp->rc.ci_psn;
	unsigned int k;
	struct swqe w;
	uint16_t i;

	if (psn_diff(qp->rc.una_psn, qp->sq_psn) <= 0)
		return;
	/*
	 * Not past where sending stops: in SQD the WQEs posted after the
	 * drain began were never sent, whatever PSNs WQEs the guest rewrote
	 * after sending them count now (the send point would run on past the
	 * producer index, through WQEs never posted)
	 */
	for (i = qp->sq_ci, k = 0; i != sq_end(qp) && k < SFAB_RC_WALK_MAX;
	     i++, k++) {
		/* stop in the WQE una_psn is in, or at a local op not run yet */
		if (swqe_parse(e, qp, i, &w) ||
		    psn_diff(psn_add(f, w.npsn), qp->rc.una_psn) > 0 ||
		    (!w.npsn && psn_diff(f, qp->rc.una_psn) >= 0))
			break;
		f = psn_add(f, w.npsn);
	}
	sfab_rc_wc_drop(e, qp);
	qp->rc.snd_idx = i;
	qp->rc.snd_off = psn_off(qp, (uint32_t)psn_diff(qp->rc.una_psn, f));
	qp->rc.sq_err = 0;
	qp->sq_psn = qp->rc.una_psn;
}

void sfab_rc_sqd_begin(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	uint16_t stop = qp->rc.snd_idx + (qp->rc.snd_off ? 1 : 0);
	uint32_t f = qp->rc.ci_psn;
	unsigned int k;
	struct swqe w;
	uint16_t i;

	/* after a go-back, WQEs past the send point were sent before */
	for (i = qp->sq_ci, k = 0; i != qp->sq_pi && k < SFAB_RC_WALK_MAX &&
	     psn_diff(f, qp->rc.max_psn) < 0; i++, k++) {
		if (swqe_parse(e, qp, i, &w))
			break;
		f = psn_add(f, w.npsn);
		if ((uint16_t)(i + 1 - qp->sq_ci) > (uint16_t)(stop - qp->sq_ci))
			stop = i + 1;
	}
	qp->sqd_stop = stop;
	/*
	 * Everything begun is out, but the last packet asked for no ACK (the
	 * responder coalesces): send again from the oldest unacknowledged PSN,
	 * the last packet now asking (ack_wanted at sq_end).  No retry is
	 * used up.
	 */
	if (sfab_qp_reliable(qp) && qp->rc.snd_idx == stop &&
	    !qp->rc.snd_off && !qp->rc.rnr_wait && !qp->rc.ackreq_last &&
	    psn_diff(qp->sq_psn, qp->rc.una_psn) > 0)
		go_back(e, qp);
}

/* -------------------------------------------------------------------- */
/* building and sending packets */

/* the BTH opcode's transport bits of a QP's packets */
static uint8_t qp_transport(const struct sfab_engine_qp *qp)
{
	switch (qp->type) {
	case SFAB_QPT_UC:
		return SFAB_BTH_OP_UC;
	case SFAB_QPT_XRC_INI:
	case SFAB_QPT_XRC_TGT:
		return SFAB_BTH_OP_XRC;
	default:
		return SFAB_BTH_OP_RC;
	}
}

static void pkt_init(struct sfab_engine *e, struct sfab_engine_qp *qp,
		     struct sfab_pkt_rc *p, uint8_t op, uint32_t psn)
{
	memset(p, 0, sizeof(*p));
	p->sl = qp->sl;
	p->dlid = qp->dlid;
	p->slid = e->port.lid | (qp->src_path_bits & ((1U << e->port.lmc) - 1));
	p->pkey = qp->pkey_index < SFAB_PORT_PKEY_TBL_LEN ?
		  e->port.pkeys[qp->pkey_index] : 0;
	p->dqpn = qp->dest_qpn;
	p->psn = psn;
	p->opcode = qp_transport(qp) | op;
	if (qp->grh) {
		p->has_grh = true;
		sfab_qp_path_grh(e, qp, &p->grh);
	}
}

/* the route for the QP's path; *vl its VL */
static enum sfab_engine_route rc_route(struct sfab_engine *e,
				       struct sfab_engine_qp *qp,
				       unsigned int *vl)
{
	*vl = sfab_engine_port_sl2vl(e, qp->sl);
	if (*vl == SFAB_VL15)
		return SFAB_ROUTE_DROP;
	return sfab_engine_port_route(e, *vl, qp->dlid);
}

/*
 * The route of an ACK or NAK of @qp; *vl its VL, *kind how the port
 * queues it: in the ACK queue, ahead of the data waiting for credit,
 * unless READ responses or atomic ACKs of the QP wait there (they come
 * first: a later ACK acknowledges them)
 */
static enum sfab_engine_route ack_route(struct sfab_engine *e,
					struct sfab_engine_qp *qp,
					unsigned int *vl,
					enum sfab_engine_rc_frame *kind)
{
	*vl = sfab_engine_port_sl2vl(e, qp->sl);
	if (*vl == SFAB_VL15)
		return SFAB_ROUTE_DROP;
	if (sfab_engine_port_resp_queued(e, sfab_qp_qpn(e, qp))) {
		*kind = SFAB_RC_FRAME_RESP;
		return sfab_engine_port_route(e, *vl, qp->dlid);
	}
	*kind = SFAB_RC_FRAME_ACK;
	return sfab_engine_port_route_ack(e, *vl, qp->dlid);
}

/* @qpn: the QP the frame belongs to (@kind: how), or SFAB_ENGINE_NO_QPN */
static void rc_xmit(struct sfab_engine *e, enum sfab_engine_route route,
		    const uint8_t *frame, size_t flen, uint32_t qpn,
		    enum sfab_engine_rc_frame kind)
{
	e->stats.rc_pkts_tx++;
	if (!flen)
		return;
	if (route == SFAB_ROUTE_DROP) {
		e->stats.send_dropped++;
		return;
	}
	sfab_engine_port_send_rc(e, frame, flen, qpn, kind);
}

/* an ACK-class packet (ACK, NAK) on the route ack_route() gave */
static void ack_xmit(struct sfab_engine *e, struct sfab_engine_qp *qp,
		     enum sfab_engine_route route, unsigned int vl,
		     enum sfab_engine_rc_frame kind, uint8_t syndrome,
		     uint32_t psn)
{
	uint8_t frame[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_pkt_rc p;
	size_t flen;

	pkt_init(e, qp, &p, SFAB_OP_ACK, psn);
	p.vl = vl;
	p.syndrome = syndrome;
	p.msn = qp->rc.msn;
	flen = sfab_link_pkt_build_rc(frame, &p, NULL, 0);
	if ((syndrome & SFAB_AETH_KIND_MASK) == SFAB_AETH_ACK)
		e->stats.rc_acks_tx++;
	else
		e->stats.rc_naks_tx++;
	rc_xmit(e, route, frame, flen, sfab_qp_qpn(e, qp), kind);
}

/* an ACK-class packet now, whatever the queue says (full: it is lost) */
static void send_ack(struct sfab_engine *e, struct sfab_engine_qp *qp,
		     uint8_t syndrome, uint32_t psn)
{
	enum sfab_engine_rc_frame kind;
	enum sfab_engine_route route;
	unsigned int vl;

	route = ack_route(e, qp, &vl, &kind);
	if (route == SFAB_ROUTE_WAIT) {
		e->stats.send_dropped++;	/* a lost ACK: the peer retries */
		return;
	}
	ack_xmit(e, qp, route, vl, kind, syndrome, psn);
}

/* -------------------------------------------------------------------- */
/* requester: sending */

/* READs and atomics in flight (sent, not completed) */
static unsigned int rd_in_flight(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	unsigned int n = 0, k;
	uint16_t i;
	struct swqe w;

	for (i = qp->sq_ci, k = 0; i != qp->rc.snd_idx && k < SFAB_RC_WALK_MAX;
	     i++, k++)
		if (!swqe_parse(e, qp, i, &w) && is_rd_atomic(w.op))
			n++;
	return n;
}

/*
 * AckReq: the responder ACKs only what asks for it (and duplicates), so
 * ACKs coalesce: the last packet before the requester runs dry or has to
 * wait for completions, and every 16th PSN.
 */
static bool ack_wanted(struct sfab_engine *e, struct sfab_engine_qp *qp,
		       uint32_t psn, bool last)
{
	uint16_t next = qp->rc.snd_idx + 1;
	struct swqe w;

	/* the window (512) always holds some that ask: no stall */
	if ((psn & 15) == 15)
		return true;
	if (!last)
		return false;
	if (next == sq_end(qp) || swqe_parse(e, qp, next, &w) ||
	    (qp->rc.err_ahead && next == qp->rc.err_idx))
		return true;
	return is_local(w.op) || (w.ctrl.flags & SFAB_WQE_FENCE);
}

static uint8_t send_opcode(const struct swqe *w, bool first, bool last)
{
	bool write = w->op == SFAB_WQE_RDMA_WRITE || w->op == SFAB_WQE_RDMA_WRITE_IMM;
	bool imm = w->op == SFAB_WQE_SEND_IMM || w->op == SFAB_WQE_RDMA_WRITE_IMM;

	if (first && last) {
		if (w->op == SFAB_WQE_SEND_INV)
			return SFAB_OP_SEND_ONLY_INV;
		if (write)
			return imm ? SFAB_OP_WRITE_ONLY_IMM : SFAB_OP_WRITE_ONLY;
		return imm ? SFAB_OP_SEND_ONLY_IMM : SFAB_OP_SEND_ONLY;
	}
	if (first)
		return write ? SFAB_OP_WRITE_FIRST : SFAB_OP_SEND_FIRST;
	if (!last)
		return write ? SFAB_OP_WRITE_MIDDLE : SFAB_OP_SEND_MIDDLE;
	if (w->op == SFAB_WQE_SEND_INV)
		return SFAB_OP_SEND_LAST_INV;
	if (write)
		return imm ? SFAB_OP_WRITE_LAST_IMM : SFAB_OP_WRITE_LAST;
	return imm ? SFAB_OP_SEND_LAST_IMM : SFAB_OP_SEND_LAST;
}

/* a local operation at the send point, run once all before it completed */
static void run_local(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      struct swqe *w)
{
	uint8_t st = SFAB_CQE_STS_SUCCESS;

	if (w->op == SFAB_WQE_REG_MR) {
		st = sfab_engine_mr_fast_reg(e, qp, &w->reg);
		if (st == SFAB_CQE_STS_SUCCESS)
			e->stats.fast_reg_wqes++;
	} else if (w->op == SFAB_WQE_BIND_MW) {
		st = sfab_engine_mw_bind(e, qp, &w->bind);
	} else {
		uint32_t key;

		memcpy(&key, &w->ctrl.imm_data, sizeof(key));
		if (sfab_engine_mr_invalidate(e, qp->pdn, sfab_qp_qpn(e, qp),
					      sfab_le32_to_cpu(key)))
			e->stats.local_inv_wqes++;
		else
			st = SFAB_CQE_STS_LOC_QP_OP_ERR;
	}
	qp->rc.snd_idx++;
	head_done(e, qp, w, st);
}

/* one requester packet; false when there is nothing to send now */
static bool req_step(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	uint8_t frame[SFAB_WIRE_MAX_PKT_LEN];
	uint8_t *data = frame;	/* the payload, read into its place in the frame */
	uint32_t mtu = qp_mtu(qp), chunk = 0, psn;
	enum sfab_engine_route route;
	struct sfab_pkt_rc p;
	struct swqe *w;
	unsigned int vl;
	bool first, last, fresh;
	size_t flen;
	int st;

	if (!sq_live(qp) || qp->rc.rnr_wait || qp->rc.sq_err ||
	    qp->rc.snd_idx == sq_end(qp))
		return false;
	if (sfab_qp_reliable(qp) &&
	    psn_diff(qp->sq_psn, qp->rc.una_psn) >= SFAB_ENGINE_RC_WINDOW)
		return false;	/* the window is full: wait for ACKs */
	st = wc_get(e, qp, &w, &fresh);
	if (st) {
		swqe_bad(e, qp, qp->rc.snd_idx, w, st);
		if (st < 0)
			sfab_qp_event(e, qp, SFAB_QP_EV_FATAL);
		qp->rc.sq_err = st < 0 ? SFAB_CQE_STS_LOC_PROT_ERR : st;
		req_complete(e, qp);
		return sq_live(qp);
	}
	/*
	 * Resumed part way by a go-back (or read again, its slot taken): the
	 * WQE as read now must still hold the send point, else the guest
	 * rewrote it and the rest of it would come from past its end.
	 */
	if (fresh && qp->rc.snd_off &&
	    (!w->npsn || is_one_pkt(w->op) || qp->rc.snd_off >= w->len)) {
		sq_rewritten(e, qp, qp->rc.snd_idx);
		return false;
	}
	if (qp->rc.snd_off == 0 && qp->sq_ci != qp->rc.snd_idx &&
	    (is_local(w->op) || (w->ctrl.flags & SFAB_WQE_FENCE)))
		return false;	/* waits for everything before it */
	if (is_local(w->op)) {
		run_local(e, qp, w);
		return sq_live(qp);
	}
	if (is_rd_atomic(w->op) && qp->rc.snd_off == 0 &&
	    rd_in_flight(e, qp) >= (qp->max_rd_atomic ? qp->max_rd_atomic : 1U))
		return false;
	route = rc_route(e, qp, &vl);
	if (route == SFAB_ROUTE_WAIT) {
		e->sq_blocked = true;
		return false;
	}

	psn = qp->sq_psn;
	first = qp->rc.snd_off == 0;
	switch (w->op) {
	case SFAB_WQE_RDMA_READ:
		pkt_init(e, qp, &p, SFAB_OP_READ_REQ, psn);
		p.va = w->raddr + qp->rc.snd_off;
		p.rkey = w->rkey;
		p.dma_len = (uint32_t)(w->len - qp->rc.snd_off);
		p.ackreq = true;
		qp->sq_psn = psn_add(psn, npsn_of(p.dma_len, mtu));
		qp->rc.snd_off = (uint32_t)w->len;
		last = true;
		break;
	case SFAB_WQE_ATOMIC_CS:
	case SFAB_WQE_ATOMIC_FA:
	case SFAB_WQE_ATOMIC_WRITE:
	case SFAB_WQE_FLUSH:
		/* one packet, answered by a response (is_one_pkt()) */
		pkt_init(e, qp, &p, w->op == SFAB_WQE_ATOMIC_CS ? SFAB_OP_CMP_SWAP :
				    w->op == SFAB_WQE_ATOMIC_FA ? SFAB_OP_FETCH_ADD :
				    w->op == SFAB_WQE_FLUSH ? SFAB_OP_FLUSH :
				    SFAB_OP_ATOMIC_WRITE, psn);
		p.va = w->raddr;
		p.rkey = w->rkey;
		p.ackreq = true;
		if (w->op == SFAB_WQE_ATOMIC_WRITE) {
			p.dma_len = sizeof(w->awrite);
			data = w->awrite;
			chunk = sizeof(w->awrite);
		} else if (w->op == SFAB_WQE_FLUSH) {
			p.dma_len = (uint32_t)w->flush_len;
			p.feth = w->feth;
		} else {
			p.swap_add = w->swap_add;
			p.compare = w->compare;
		}
		qp->sq_psn = psn_add(psn, 1);
		last = true;
		break;
	default:
		chunk = w->len - qp->rc.snd_off < mtu ?
			(uint32_t)(w->len - qp->rc.snd_off) : mtu;
		last = qp->rc.snd_off + chunk >= w->len;
		pkt_init(e, qp, &p, send_opcode(w, first, last), psn);
		data = frame + sfab_link_pkt_rc_hdr_len(p.opcode) +
		       (p.has_grh ? SFAB_WIRE_GRH_LEN : 0);
		if (w->inl) {
			memcpy(data, w->wqe + w->inl_at + qp->rc.snd_off, chunk);
		} else {
			st = sfab_qp_sge_dma(e, qp, w->sges, w->nsge, qp->rc.snd_off,
					     data, chunk, false);
			if (st) {
				qp->rc.sq_err = (uint8_t)st;
				/*
				 * What went before it may still wait for an
				 * ACK its last packet did not ask for: send
				 * again from the oldest unacknowledged PSN,
				 * asking this time (ack_wanted), rather than
				 * wait for the ACK timeout.  No retry is used.
				 */
				if (sfab_qp_reliable(qp) &&
				    !qp->rc.ackreq_last && !qp->rc.err_ahead &&
				    psn_diff(qp->sq_psn, qp->rc.una_psn) > 0) {
					qp->rc.err_ahead = true;
					qp->rc.err_idx = qp->rc.snd_idx;
					go_back(e, qp);
					return sq_live(qp);
				}
				req_complete(e, qp);
				return sq_live(qp);
			}
		}
		if (first && (w->op == SFAB_WQE_RDMA_WRITE ||
			      w->op == SFAB_WQE_RDMA_WRITE_IMM)) {
			p.va = w->raddr;
			p.rkey = w->rkey;
			p.dma_len = (uint32_t)w->len;
		}
		if (last && w->op == SFAB_WQE_SEND_INV) {
			uint32_t key;

			memcpy(&key, &w->ctrl.imm_data, sizeof(key));
			p.imm = sfab_le32_to_cpu(key);
		} else if (last) {
			p.imm = sfab_be32_to_cpu(w->ctrl.imm_data);
		}
		p.se = last && (w->ctrl.flags & SFAB_WQE_SOLICITED);
		p.ackreq = ack_wanted(e, qp, psn, last);
		qp->sq_psn = psn_add(psn, 1);
		qp->rc.snd_off += chunk;
		break;
	}
	p.vl = vl;
	p.xrc_srqn = w->xrc_srqn;
	qp->rc.ackreq_last = p.ackreq;
	flen = sfab_link_pkt_build_rc(frame, &p, data, chunk);
	if (last) {
		qp->rc.snd_idx++;
		qp->rc.snd_off = 0;
	} else {
		wc_keep(e, qp);
	}
	/* a PSN sent before: a go-back sends it again */
	if (psn_diff(psn, qp->rc.max_psn) < 0)
		e->stats.rc_retrans_pkts++;
	if (psn_diff(qp->sq_psn, qp->rc.max_psn) > 0)
		qp->rc.max_psn = qp->sq_psn;
	if (qp->type == SFAB_QPT_UC) {
		qp->rc.una_psn = qp->sq_psn;
		req_complete(e, qp);
	} else {
		ack_timer_update(e, qp, false);
	}
	/* last: a loopback may come straight back into this QP */
	rc_xmit(e, route, frame, flen,
		sfab_qp_reliable(qp) ? sfab_qp_qpn(e, qp) : SFAB_ENGINE_NO_QPN,
		SFAB_RC_FRAME_REQ);
	return true;
}

/* -------------------------------------------------------------------- */
/* requester: ACKs, NAKs and responses */

/*
 * The peer acknowledged every PSN before @psn.  A READ or atomic the ACK
 * goes past without its response means the response was lost: only the
 * PSNs before it count, and the requester goes back to it.
 */
static void req_acked_to(struct sfab_engine *e, struct sfab_engine_qp *qp,
			 uint32_t psn)
{
	uint32_t f = qp->rc.ci_psn, una = qp->rc.una_psn;
	bool implied_nak = false, progress;
	unsigned int k;
	struct swqe w;
	uint16_t i;

	if (psn_diff(psn, qp->rc.una_psn) <= 0)
		return;
	/* after a go-back sq_psn is behind what was sent and may be ACKed */
	if (psn_diff(psn, qp->rc.max_psn) > 0)
		return;		/* for PSNs never sent: ignore */
	for (i = qp->sq_ci, k = 0; i != qp->sq_pi && k < SFAB_RC_WALK_MAX;
	     i++, k++) {
		if (psn_diff(f, psn) >= 0)
			break;
		if (swqe_parse(e, qp, i, &w))
			break;
		if (!w.npsn)
			continue;
		if (is_rd_atomic(w.op)) {
			if (psn_diff(qp->rc.una_psn, f) < 0)
				qp->rc.una_psn = f;
			implied_nak = true;
			break;
		}
		f = psn_add(f, w.npsn);
	}
	if (!implied_nak)
		qp->rc.una_psn = psn;
	progress = psn_diff(qp->rc.una_psn, una) > 0;
	/*
	 * An implied NAK that acknowledges nothing new, for PSNs the send
	 * point has not reached again since it went back: that go-back is
	 * under way and answers it.
	 */
	if (implied_nak && !progress && psn_diff(psn, qp->sq_psn) > 0)
		return;
	if (progress) {
		qp->rc.retry_left = qp->retry_cnt;
		qp->rc.rnr_left = qp->rnr_retry;
	}
	skip_to_una(e, qp);
	req_complete(e, qp);
	if (!sq_live(qp))
		return;
	if (implied_nak) {
		/*
		 * Going back to the same oldest PSN again uses a retry, as a
		 * sequence NAK does: a peer that ACKs past a READ it never
		 * answers gets RETRY_EXC_ERR, not the window for ever.
		 */
		if (!progress) {
			if (!qp->rc.retry_left) {
				head_fail(e, qp, SFAB_CQE_STS_RETRY_EXC_ERR);
				return;
			}
			qp->rc.retry_left--;
		}
		e->stats.rc_implied_naks++;
		go_back(e, qp);
	}
	ack_timer_update(e, qp, progress);
	sfab_qp_sched(e, qp, true);
}

/* a READ response or atomic ACK for the oldest READ/atomic */
static void req_response(struct sfab_engine *e, struct sfab_engine_qp *qp,
			 const struct sfab_pkt_rc *p)
{
	uint8_t op = p->opcode & SFAB_BTH_OP_MASK;
	uint32_t mtu = qp_mtu(qp), k;
	struct swqe w;
	uint16_t i;
	uint32_t f = qp->rc.ci_psn;
	unsigned int n = 0;
	uint8_t st;

	/* the first READ/atomic outstanding; what is before it is implied ACKed */
	for (i = qp->sq_ci; i != qp->rc.snd_idx; i++) {
		if (n++ == SFAB_RC_WALK_MAX || swqe_parse(e, qp, i, &w))
			return;
		if (is_rd_atomic(w.op))
			break;
		f = psn_add(f, w.npsn);
	}
	if (i == qp->rc.snd_idx || psn_diff(p->psn, f) < 0 ||
	    psn_diff(p->psn, psn_add(f, w.npsn)) >= 0)
		return;		/* not for the oldest one: stale or bogus */
	if (i != qp->sq_ci) {
		qp->rc.una_psn = f;
		req_complete(e, qp);
		if (!sq_live(qp) || qp->sq_ci != i)
			return;
	}
	if (p->psn != qp->rc.una_psn)
		return;		/* a response went missing: the timer retries */
	k = (uint32_t)psn_diff(p->psn, f);
	if (w.op == SFAB_WQE_RDMA_READ) {
		bool last = k == w.npsn - 1;
		uint64_t off = (uint64_t)k * mtu;
		uint64_t want = last ? w.len - off : mtu;

		if ((op == SFAB_OP_ATOMIC_ACK) || (w.len && p->len != want) ||
		    (!w.len && p->len)) {
			head_done(e, qp, &w, SFAB_CQE_STS_BAD_RESP_ERR);
			return;
		}
		st = sfab_qp_sge_dma(e, qp, w.sges, w.nsge, off, (void *)p->payload,
				     p->len, true);
		if (st) {
			head_done(e, qp, &w, st);
			return;
		}
		qp->rc.una_psn = psn_add(p->psn, 1);
		if (last)
			head_done(e, qp, &w, 0);
	} else if (w.op == SFAB_WQE_ATOMIC_WRITE || w.op == SFAB_WQE_FLUSH) {
		/* a zero-length READ response (IBA A19) */
		if (op != SFAB_OP_READ_RESP_ONLY || p->len) {
			head_done(e, qp, &w, SFAB_CQE_STS_BAD_RESP_ERR);
			return;
		}
		qp->rc.una_psn = psn_add(p->psn, 1);
		head_done(e, qp, &w, 0);
	} else {
		uint64_t v = sfab_cpu_to_le64(p->orig);

		if (op != SFAB_OP_ATOMIC_ACK) {
			head_done(e, qp, &w, SFAB_CQE_STS_BAD_RESP_ERR);
			return;
		}
		st = sfab_qp_sge_dma(e, qp, w.sges, 1, 0, &v, 8, true);
		if (st) {
			head_done(e, qp, &w, st);
			return;
		}
		qp->rc.una_psn = psn_add(p->psn, 1);
		head_done(e, qp, &w, 0);
	}
	if (!sq_live(qp))
		return;
	qp->rc.retry_left = qp->retry_cnt;
	qp->rc.rnr_left = qp->rnr_retry;
	req_complete(e, qp);
	ack_timer_update(e, qp, true);
	sfab_qp_sched(e, qp, true);
}

static void req_rx(struct sfab_engine *e, struct sfab_engine_qp *qp,
		   const struct sfab_pkt_rc *p)
{
	uint8_t op = p->opcode & SFAB_BTH_OP_MASK;
	uint8_t kind = p->syndrome & SFAB_AETH_KIND_MASK;
	uint8_t val = p->syndrome & SFAB_AETH_VAL_MASK;
	uint8_t st;

	if (qp->state != SFAB_QPS_RTS && qp->state != SFAB_QPS_SQD &&
	    qp->state != SFAB_QPS_SQE)
		return;
	if (op != SFAB_OP_ACK || kind == SFAB_AETH_ACK) {
		if (op == SFAB_OP_ACK) {
			req_acked_to(e, qp, psn_add(p->psn, 1));
			return;
		}
		if (op != SFAB_OP_READ_RESP_MIDDLE && kind != SFAB_AETH_ACK)
			return;
		req_response(e, qp, p);
		return;
	}
	/* a NAK for p->psn: everything before it is acknowledged */
	if (psn_diff(p->psn, qp->rc.una_psn) < 0 ||
	    psn_diff(p->psn, qp->rc.max_psn) >= 0)
		return;		/* stale */
	req_acked_to(e, qp, p->psn);
	if (!sq_live(qp) || psn_diff(p->psn, qp->rc.una_psn) != 0)
		return;
	if (kind == SFAB_AETH_RNR_NAK) {
		e->stats.rc_rnr_naks_rx++;
		if (qp->rnr_retry != 7) {
			if (!qp->rc.rnr_left) {
				head_fail(e, qp, SFAB_CQE_STS_RNR_RETRY_EXC_ERR);
				return;
			}
			qp->rc.rnr_left--;
		}
		e->stats.rc_rnr_retries++;
		go_back(e, qp);
		qp->rc.rnr_wait = true;
		qp->rc.ack_at = 0;
		qp->rc.rnr_at = sfab_engine_now(e) + rnr_us[val] * 1000ULL;
		timer_arm(e, qp->rc.rnr_at);
		return;
	}
	if (kind != SFAB_AETH_NAK)
		return;
	switch (val) {
	case SFAB_NAK_PSN_SEQ:
		if (!qp->rc.retry_left) {
			head_fail(e, qp, SFAB_CQE_STS_RETRY_EXC_ERR);
			return;
		}
		qp->rc.retry_left--;
		e->stats.rc_seq_naks_rx++;
		go_back(e, qp);
		return;
	case SFAB_NAK_INVALID_REQ:
		st = SFAB_CQE_STS_REM_INV_REQ_ERR;
		break;
	case SFAB_NAK_REMOTE_ACCESS:
		st = SFAB_CQE_STS_REM_ACCESS_ERR;
		break;
	case SFAB_NAK_REMOTE_OP:
		st = SFAB_CQE_STS_REM_OP_ERR;
		break;
	default:
		st = SFAB_CQE_STS_REM_INV_REQ_ERR;
		break;
	}
	head_fail(e, qp, st);
}

/* -------------------------------------------------------------------- */
/* responder */

static void resp_fatal(struct sfab_engine *e, struct sfab_engine_qp *qp,
		       uint32_t psn, uint8_t nak, uint8_t ev)
{
	if (sfab_qp_reliable(qp))
		send_ack(e, qp, SFAB_AETH_NAK | nak, psn);
	if (ev)
		sfab_qp_event(e, qp, ev);
	sfab_qp_error(e, qp);
}

/* complete the receive WQE of the open send (or WRITE with immediate) */
static void recv_done(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      uint64_t wr_id, uint8_t status, uint8_t opcode,
		      uint32_t len, const struct sfab_pkt_rc *p, uint8_t flags)
{
	struct sfab_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.wr_id = sfab_cpu_to_le64(wr_id);
	cqe.status = status;
	cqe.qpn_opcode = sfab_cqe_qpn_opcode(sfab_qp_qpn(e, qp), opcode);
	if (!status) {
		cqe.byte_len = sfab_cpu_to_le32(len);
		cqe.src_qp_sl = sfab_cqe_src_qp_sl(qp->dest_qpn, p->sl);
		cqe.slid = sfab_cpu_to_le16(p->slid);
		cqe.flags = flags;
		if (flags & SFAB_CQE_INV)
			cqe.imm_data = (__be32)sfab_cpu_to_le32(p->imm);
		else if (flags & SFAB_CQE_IMM)
			cqe.imm_data = sfab_cpu_to_be32(p->imm);
		e->stats.recvs++;
	}
	/* the host finds an XRC SRQ's WQE by the SRQ: the QP is not its own */
	if (qp->type == SFAB_QPT_XRC_TGT) {
		cqe.flags |= SFAB_CQE_XRC;
		cqe.src_qp_sl = sfab_cqe_src_qp_sl(qp->srqn, status ? 0 : p->sl);
	}
	/* an RQ WQE is consumed now, an SRQ one was when the send began */
	if (qp->use_srq)
		qp->rc.rwqe_taken = false;
	else
		qp->rq_ci++;
	sfab_qp_cq_post(e, qp->recv_cqn, &cqe, p->se);
}

/* the receive WQE a send or WRITE with immediate lands in: 0, 1 none, -1 bad */
static int rwqe_get(struct sfab_engine *e, struct sfab_engine_qp *qp,
		    uint8_t *wqe, struct sfab_sge *sges, unsigned int *n,
		    uint64_t *room, uint64_t *wr_id)
{
	uint16_t idx;
	int got;

	if (qp->use_srq && qp->rc.rwqe_taken) {
		if (!sfab_qp_rwqe_read(e, qp, qp->rc.srq_idx, wqe))
			return -1;
	} else {
		got = sfab_qp_rwqe_peek(e, qp, wqe, &idx);
		if (got)
			return got;
		if (qp->use_srq) {
			/* claimed now: other QPs must not take it */
			sfab_qp_rwqe_consume(e, qp);
			qp->rc.rwqe_taken = true;
			qp->rc.srq_idx = idx;
		}
	}
	return sfab_qp_rwqe_sges(e, qp, wqe, sges, n, room, wr_id) ? 0 : -1;
}

/*
 * Where a READ or atomic is kept; the oldest one goes when all are used,
 * unless it is still being answered: NULL, the peer exceeded the
 * responder's resources.
 */
static struct sfab_engine_rd_atom *rd_alloc(struct sfab_engine_qp *qp)
{
	struct sfab_engine_rd_atom *r;

	if (qp->rc.rd_next == SFAB_ENGINE_MAX_RD_ATOM) {
		r = &qp->rc.rd[qp->rc.rd_head];
		if (r->sent < r->npsn)
			return NULL;
		qp->rc.rd_head = (qp->rc.rd_head + 1) % SFAB_ENGINE_MAX_RD_ATOM;
		qp->rc.rd_next--;
	}
	r = &qp->rc.rd[(qp->rc.rd_head + qp->rc.rd_next) % SFAB_ENGINE_MAX_RD_ATOM];
	qp->rc.rd_next++;
	memset(r, 0, sizeof(*r));
	return r;
}

/* rd_alloc() will succeed */
static bool rd_pending_room(const struct sfab_engine_qp *qp)
{
	const struct sfab_engine_rd_atom *r = &qp->rc.rd[qp->rc.rd_head];

	return qp->rc.rd_next < SFAB_ENGINE_MAX_RD_ATOM || r->sent >= r->npsn;
}

static struct sfab_engine_rd_atom *rd_find(struct sfab_engine_qp *qp,
					   uint32_t psn)
{
	unsigned int k;

	for (k = 0; k < qp->rc.rd_next; k++) {
		struct sfab_engine_rd_atom *r =
			&qp->rc.rd[(qp->rc.rd_head + k) % SFAB_ENGINE_MAX_RD_ATOM];

		if (psn_diff(psn, r->psn) >= 0 &&
		    psn_diff(psn, psn_add(r->psn, r->npsn)) < 0)
			return r;
	}
	return NULL;
}

static struct sfab_engine_rd_atom *rd_pending(struct sfab_engine_qp *qp)
{
	unsigned int k;

	for (k = 0; k < qp->rc.rd_next; k++) {
		struct sfab_engine_rd_atom *r =
			&qp->rc.rd[(qp->rc.rd_head + k) % SFAB_ENGINE_MAX_RD_ATOM];

		if (r->sent < r->npsn)
			return r;
	}
	return NULL;
}

/*
 * An ACK owed for the requests up to @psn: out now, not on the QP's turn
 * on the run queue, which comes after every other QP's send work (on a
 * congested port verbs/incast's sink once held an ACK 1.2 s so, while the
 * requester's ACK timer ran).  A NAK or READ responses of the QP that come
 * first, a full ACK queue or a loopback (not from inside a receive): the
 * turn sends it.
 */
static void ack_owe(struct sfab_engine *e, struct sfab_engine_qp *qp,
		    uint32_t psn)
{
	enum sfab_engine_rc_frame kind;
	unsigned int vl;

	qp->rc.ack_owed = true;
	qp->rc.ack_psn = psn;
	if (!qp->rc.nak_owed && !rd_pending(qp) &&
	    ack_route(e, qp, &vl, &kind) == SFAB_ROUTE_WIRE) {
		qp->rc.ack_owed = false;
		ack_xmit(e, qp, SFAB_ROUTE_WIRE, vl, kind,
			 SFAB_AETH_ACK | SFAB_AETH_CREDIT_INVALID, psn);
		return;
	}
	sfab_qp_sched(e, qp, true);
}

/*
 * The responder resource a request opcode takes (enum sfab_rd_kind):
 * SFAB_RD_FREE for a SEND or WRITE, which takes none
 */
static uint8_t rd_kind_of(uint8_t op)
{
	switch (op) {
	case SFAB_OP_READ_REQ:
		return SFAB_RD_READ;
	case SFAB_OP_CMP_SWAP:
	case SFAB_OP_FETCH_ADD:
		return SFAB_RD_ATOMIC;
	case SFAB_OP_ATOMIC_WRITE:
	case SFAB_OP_FLUSH:
		return SFAB_RD_PLACEMENT;
	default:
		return SFAB_RD_FREE;
	}
}

/* a request PSN the responder already executed */
static void resp_dup(struct sfab_engine *e, struct sfab_engine_qp *qp,
		     const struct sfab_pkt_rc *p)
{
	uint8_t op = p->opcode & SFAB_BTH_OP_MASK;
	struct sfab_engine_rd_atom *r;

	e->stats.rc_dups++;
	if (rd_kind_of(op) != SFAB_RD_FREE) {
		r = rd_find(qp, p->psn);
		if (!r || r->kind != rd_kind_of(op))
			return;		/* too old: the requester times out */
		/* again, from that PSN on: READ data from memory, atomics saved */
		r->sent = (uint32_t)psn_diff(p->psn, r->psn);
		sfab_qp_sched(e, qp, true);
		return;
	}
	/* a SEND or WRITE: acknowledged again, not executed */
	ack_owe(e, qp, psn_add(qp->rq_psn, PSN_MASK));	/* rq_psn - 1 */
}

static bool remote_ok(struct sfab_engine *e, struct sfab_engine_qp *qp,
		      uint32_t rkey, uint64_t va, uint64_t len, uint32_t access,
		      struct sfab_engine_mr **mr)
{
	enum sfab_mr_err err;

	*mr = NULL;
	if (!len)
		return true;
	if ((qp->access & access) != access)
		return false;
	*mr = sfab_engine_rkey_find(e, qp, rkey, va, len, access, &err);
	return *mr != NULL;
}

/*
 * IBA A19's ATOMIC WRITE (8 bytes, 8-byte aligned, REMOTE_WRITE; written
 * in one piece) and FLUSH (global visibility of a range or of the whole
 * region: every write the device made is in host memory already, so only
 * the key and rights are checked; persistence is a right no sfab MR
 * has).  false when done: the caller answers with a zero-length READ
 * response (saved as SFAB_RD_PLACEMENT, for a duplicate); true after
 * the NAK.
 */
static bool resp_placement(struct sfab_engine *e, struct sfab_engine_qp *qp,
			   const struct sfab_pkt_rc *p)
{
	uint8_t op = p->opcode & SFAB_BTH_OP_MASK;
	struct sfab_engine_mr *mr;
	enum sfab_mr_err err;
	uint64_t va, len;
	uint32_t plt, sel;

	if (!rd_pending_room(qp)) {
		resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ, SFAB_QP_EV_REQ_ERR);
		return true;
	}
	if (op == SFAB_OP_ATOMIC_WRITE) {
		if (p->dma_len != 8 || p->len != 8 || (p->va & 7)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
				   SFAB_QP_EV_REQ_ERR);
			return true;
		}
		if (!remote_ok(e, qp, p->rkey, p->va, 8, SFAB_ACCESS_REMOTE_WRITE,
			       &mr)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_ACCESS,
				   SFAB_QP_EV_ACCESS_ERR);
			return true;
		}
		/* from the packet's own bytes: one copy of 8 aligned bytes */
		if (sfab_engine_mr_dma(e, mr, p->va, (void *)p->payload, 8, true)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_OP, 0);
			return true;
		}
		e->stats.atomic_writes++;
		return false;
	}
	plt = p->feth & SFAB_FETH_PLT_MASK;
	sel = (p->feth & SFAB_FETH_SEL_MASK) >> SFAB_FETH_SEL_SHIFT;
	if (!plt || (plt & ~(SFAB_FLUSH_GLOBAL | SFAB_FLUSH_PERSISTENT)) ||
	    sel > SFAB_FLUSH_MR ||
	    (p->feth & ~(SFAB_FETH_PLT_MASK | SFAB_FETH_SEL_MASK))) {
		resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ, SFAB_QP_EV_REQ_ERR);
		return true;
	}
	va = p->va;
	len = p->dma_len;
	if (sel == SFAB_FLUSH_MR &&
	    !sfab_engine_rkey_extent(e, p->rkey, &va, &len))
		len = 1;	/* no such region: refused below */
	if ((plt & SFAB_FLUSH_PERSISTENT) ||
	    (len && !sfab_engine_rkey_find(e, qp, p->rkey, va, len,
					   SFAB_ACCESS_FLUSH_GLOBAL, &err))) {
		resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_ACCESS,
			   SFAB_QP_EV_ACCESS_ERR);
		return true;
	}
	e->stats.flushes++;
	return false;
}

/*
 * An XRC target: the SRQ the request's XRCETH names gives the message its
 * receive WQE, CQ and PD.  False for an SRQ that is not an XRC SRQ of the
 * target's domain, or not the one of the message open (sfab_queue.h).
 */
static bool xrc_target_bind(struct sfab_engine *e, struct sfab_engine_qp *qp,
			    const struct sfab_pkt_rc *p)
{
	struct sfab_engine_srq *srq = sfab_qp_srq_get(e, p->xrc_srqn);

	if (!srq || !srq->xrc || srq->xrcdn != qp->xrcdn)
		return false;
	if ((qp->rc.in_send || qp->rc.in_write) && p->xrc_srqn != qp->srqn)
		return false;
	qp->srqn = p->xrc_srqn;
	qp->recv_cqn = srq->cqn;
	qp->pdn = srq->pdn;
	return true;
}

/* the requests of the message in order; false when the packet is dropped */
static void resp_rx(struct sfab_engine *e, struct sfab_engine_qp *qp,
		    const struct sfab_pkt_rc *p)
{
	uint8_t op = p->opcode & SFAB_BTH_OP_MASK;
	bool uc = qp->type == SFAB_QPT_UC;
	uint32_t mtu = qp_mtu(qp);
	int32_t d = psn_diff(p->psn, qp->rq_psn);
	struct sfab_sge sges[MAX_SGE];
	uint8_t wqe[SFAB_WQE_MAX_SIZE];
	struct sfab_engine_mr *mr;
	struct sfab_engine_rd_atom *r;
	unsigned int nsge;
	uint64_t room, wr_id;
	bool first, last, send;
	uint8_t st;
	int got;

	if (uc) {
		if (d) {
			/* packets were lost: the open message is dropped */
			e->stats.rc_dropped++;
			e->stats.rc_out_of_seq++;
			qp->rc.in_send = qp->rc.in_write = false;
			qp->rc.uc_drop = true;
		}
		qp->rq_psn = psn_add(p->psn, 1);
	} else {
		if (d < 0) {
			resp_dup(e, qp, p);
			return;
		}
		if (d > 0) {
			/* one NAK per gap; after an RNR NAK the rest waits too */
			e->stats.rc_dropped++;
			e->stats.rc_out_of_seq++;
			if (!qp->rc.nak_sent) {
				qp->rc.nak_sent = true;
				qp->rc.nak_owed = true;
				qp->rc.nak_syn = SFAB_AETH_NAK | SFAB_NAK_PSN_SEQ;
				qp->rc.nak_psn = qp->rq_psn;
				sfab_qp_sched(e, qp, true);
			}
			return;
		}
		qp->rc.nak_sent = false;
		if (qp->type == SFAB_QPT_XRC_TGT && !xrc_target_bind(e, qp, p)) {
			e->stats.xrc_bad_srq++;
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
				   SFAB_QP_EV_REQ_ERR);
			return;
		}
	}

	switch (op) {
	case SFAB_OP_SEND_FIRST:
	case SFAB_OP_SEND_MIDDLE:
	case SFAB_OP_SEND_LAST:
	case SFAB_OP_SEND_LAST_IMM:
	case SFAB_OP_SEND_ONLY:
	case SFAB_OP_SEND_ONLY_IMM:
	case SFAB_OP_SEND_LAST_INV:
	case SFAB_OP_SEND_ONLY_INV:
		send = true;
		first = op == SFAB_OP_SEND_FIRST || op == SFAB_OP_SEND_ONLY ||
			op == SFAB_OP_SEND_ONLY_IMM || op == SFAB_OP_SEND_ONLY_INV;
		last = op != SFAB_OP_SEND_FIRST && op != SFAB_OP_SEND_MIDDLE;
		break;
	case SFAB_OP_WRITE_FIRST:
	case SFAB_OP_WRITE_MIDDLE:
	case SFAB_OP_WRITE_LAST:
	case SFAB_OP_WRITE_LAST_IMM:
	case SFAB_OP_WRITE_ONLY:
	case SFAB_OP_WRITE_ONLY_IMM:
		send = false;
		first = op == SFAB_OP_WRITE_FIRST || op == SFAB_OP_WRITE_ONLY ||
			op == SFAB_OP_WRITE_ONLY_IMM;
		last = op != SFAB_OP_WRITE_FIRST && op != SFAB_OP_WRITE_MIDDLE;
		break;
	default:
		send = first = last = false;
		break;
	}

	if (uc) {
		if (first) {
			qp->rc.uc_drop = false;
			qp->rc.in_send = qp->rc.in_write = false;
		}
		if (qp->rc.uc_drop || (!first && !(send ? qp->rc.in_send :
							 qp->rc.in_write))) {
			qp->rc.uc_drop = true;
			e->stats.rc_dropped++;
			return;
		}
	} else if (rd_kind_of(op) != SFAB_RD_FREE) {
		if (qp->rc.in_send || qp->rc.in_write) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
				   SFAB_QP_EV_REQ_ERR);
			return;
		}
	} else if (first ? (qp->rc.in_send || qp->rc.in_write) :
			   !(send ? qp->rc.in_send : qp->rc.in_write)) {
		/* out of sequence opcodes */
		resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ, SFAB_QP_EV_REQ_ERR);
		return;
	}
	/* FIRST and MIDDLE carry exactly an MTU, LAST and ONLY at most one */
	if ((op <= SFAB_OP_WRITE_ONLY_IMM || op == SFAB_OP_SEND_LAST_INV ||
	     op == SFAB_OP_SEND_ONLY_INV) &&
	    (last ? p->len > mtu : p->len != mtu)) {
		if (uc) {
			qp->rc.uc_drop = true;
			qp->rc.in_send = qp->rc.in_write = false;
			e->stats.rc_dropped++;
			return;
		}
		resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ, SFAB_QP_EV_REQ_ERR);
		return;
	}

	switch (op) {
	case SFAB_OP_READ_REQ:
		if (!remote_ok(e, qp, p->rkey, p->va, p->dma_len,
			       SFAB_ACCESS_REMOTE_READ, &mr)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_ACCESS,
				   SFAB_QP_EV_ACCESS_ERR);
			return;
		}
		if (p->dma_len > max_msg(e)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
				   SFAB_QP_EV_REQ_ERR);
			return;
		}
		r = rd_alloc(qp);
		if (!r) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
				   SFAB_QP_EV_REQ_ERR);
			return;
		}
		r->kind = SFAB_RD_READ;
		r->pdn = qp->pdn;
		r->psn = p->psn;
		r->npsn = npsn_of(p->dma_len, mtu);
		r->va = p->va;
		r->rkey = p->rkey;
		r->len = p->dma_len;
		qp->rq_psn = psn_add(p->psn, r->npsn);
		qp->rc.msn = (qp->rc.msn + 1) & SFAB_AETH_MSN_MASK;
		sfab_qp_sched(e, qp, true);
		return;
	case SFAB_OP_CMP_SWAP:
	case SFAB_OP_FETCH_ADD: {
		uint64_t v, nv;

		if (p->va & 7) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
				   SFAB_QP_EV_REQ_ERR);
			return;
		}
		if (!remote_ok(e, qp, p->rkey, p->va, 8, SFAB_ACCESS_REMOTE_ATOMIC,
			       &mr)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_ACCESS,
				   SFAB_QP_EV_ACCESS_ERR);
			return;
		}
		if (!rd_pending_room(qp)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
				   SFAB_QP_EV_REQ_ERR);
			return;
		}
		if (sfab_engine_mr_dma(e, mr, p->va, &v, 8, false)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_OP, 0);
			return;
		}
		v = sfab_le64_to_cpu(v);
		if (op == SFAB_OP_FETCH_ADD)
			nv = v + p->swap_add;
		else
			nv = v == p->compare ? p->swap_add : v;
		r = rd_alloc(qp);
		r->kind = SFAB_RD_ATOMIC;
		r->psn = p->psn;
		r->npsn = 1;
		r->orig = v;
		nv = sfab_cpu_to_le64(nv);
		if (sfab_engine_mr_dma(e, mr, p->va, &nv, 8, true)) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_OP, 0);
			return;
		}
		qp->rq_psn = psn_add(p->psn, 1);
		qp->rc.msn = (qp->rc.msn + 1) & SFAB_AETH_MSN_MASK;
		sfab_qp_sched(e, qp, true);
		return;
	}
	case SFAB_OP_ATOMIC_WRITE:
	case SFAB_OP_FLUSH:
		if (resp_placement(e, qp, p))
			return;
		r = rd_alloc(qp);
		r->kind = SFAB_RD_PLACEMENT;
		r->psn = p->psn;
		r->npsn = 1;
		qp->rq_psn = psn_add(p->psn, 1);
		qp->rc.msn = (qp->rc.msn + 1) & SFAB_AETH_MSN_MASK;
		sfab_qp_sched(e, qp, true);
		return;
	default:
		break;
	}

	if (send || op == SFAB_OP_WRITE_LAST_IMM || op == SFAB_OP_WRITE_ONLY_IMM) {
		/* the receive WQE (checked before any data of this packet moves) */
		got = rwqe_get(e, qp, wqe, sges, &nsge, &room, &wr_id);
		if (got > 0) {
			e->stats.rx_no_wqe++;
			if (uc) {
				qp->rc.uc_drop = true;
				return;
			}
			/* RNR NAK: nothing of this packet happened */
			qp->rc.nak_sent = true;
			qp->rc.nak_owed = true;
			qp->rc.nak_syn = SFAB_AETH_RNR_NAK |
					 (qp->min_rnr_timer & SFAB_AETH_VAL_MASK);
			qp->rc.nak_psn = p->psn;
			sfab_qp_sched(e, qp, true);
			return;
		}
		if (got < 0) {
			resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_OP, 0);
			return;
		}
	}
	if (send) {
		if (first)
			qp->rc.rcv_off = 0;
		if (qp->rc.rcv_off + p->len > room) {
			recv_done(e, qp, wr_id, SFAB_CQE_STS_LOC_LEN_ERR,
				  SFAB_CQE_RECV, 0, p, 0);
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ, 0);
			return;
		}
		st = sfab_qp_sge_dma(e, qp, sges, nsge, qp->rc.rcv_off,
				     (void *)p->payload, p->len, true);
		if (st) {
			recv_done(e, qp, wr_id, st, SFAB_CQE_RECV, 0, p, 0);
			resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_OP, 0);
			return;
		}
		qp->rc.rcv_off += p->len;
		qp->rc.in_send = !last;
		if (last) {
			uint8_t flags = 0;

			if (op == SFAB_OP_SEND_LAST_IMM || op == SFAB_OP_SEND_ONLY_IMM)
				flags = SFAB_CQE_IMM;
			if (op == SFAB_OP_SEND_LAST_INV || op == SFAB_OP_SEND_ONLY_INV) {
				if (!sfab_engine_mr_invalidate(e, qp->pdn,
							       sfab_qp_qpn(e, qp),
							       p->imm)) {
					recv_done(e, qp, wr_id,
						  SFAB_CQE_STS_LOC_PROT_ERR,
						  SFAB_CQE_RECV, 0, p, 0);
					resp_fatal(e, qp, p->psn,
						   SFAB_NAK_REMOTE_ACCESS,
						   SFAB_QP_EV_ACCESS_ERR);
					return;
				}
				e->stats.remote_invs++;
				flags = SFAB_CQE_INV;
			}
			recv_done(e, qp, wr_id, 0, SFAB_CQE_RECV, qp->rc.rcv_off,
				  p, flags);
			qp->rc.msn = (qp->rc.msn + 1) & SFAB_AETH_MSN_MASK;
		}
	} else {
		if (first) {
			if (!remote_ok(e, qp, p->rkey, p->va, p->dma_len,
				       SFAB_ACCESS_REMOTE_WRITE, &mr)) {
				if (uc) {
					qp->rc.uc_drop = true;
					e->stats.rc_dropped++;
					return;
				}
				resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_ACCESS,
					   SFAB_QP_EV_ACCESS_ERR);
				return;
			}
			if (p->dma_len > max_msg(e)) {
				resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
					   SFAB_QP_EV_REQ_ERR);
				return;
			}
			qp->rc.wr_va = p->va;
			qp->rc.wr_rkey = p->rkey;
			qp->rc.wr_left = p->dma_len;
			qp->rc.rcv_off = 0;
		}
		/* the data must fit the RETH's length exactly */
		if (p->len > qp->rc.wr_left || (last && p->len != qp->rc.wr_left)) {
			if (uc) {
				qp->rc.uc_drop = true;
				qp->rc.in_write = false;
				e->stats.rc_dropped++;
				return;
			}
			resp_fatal(e, qp, p->psn, SFAB_NAK_INVALID_REQ,
				   SFAB_QP_EV_REQ_ERR);
			return;
		}
		if (p->len) {
			if (!remote_ok(e, qp, qp->rc.wr_rkey, qp->rc.wr_va, p->len,
				       SFAB_ACCESS_REMOTE_WRITE, &mr) ||
			    sfab_engine_mr_dma(e, mr, qp->rc.wr_va, (void *)p->payload,
					       p->len, true)) {
				if (uc) {
					qp->rc.uc_drop = true;
					qp->rc.in_write = false;
					return;
				}
				resp_fatal(e, qp, p->psn, SFAB_NAK_REMOTE_ACCESS,
					   SFAB_QP_EV_ACCESS_ERR);
				return;
			}
		}
		qp->rc.wr_va += p->len;
		qp->rc.wr_left -= p->len;
		qp->rc.rcv_off += p->len;
		qp->rc.in_write = !last;
		if (last) {
			if (op == SFAB_OP_WRITE_LAST_IMM || op == SFAB_OP_WRITE_ONLY_IMM)
				recv_done(e, qp, wr_id, 0, SFAB_CQE_RECV_RDMA_IMM,
					  qp->rc.rcv_off, p, SFAB_CQE_IMM);
			qp->rc.msn = (qp->rc.msn + 1) & SFAB_AETH_MSN_MASK;
		}
	}
	if (!uc)
		qp->rq_psn = psn_add(p->psn, 1);
	if (!uc && p->ackreq)
		ack_owe(e, qp, p->psn);
}

/* one responder packet (NAK, READ response, atomic ACK, ACK); false: none */
static bool resp_step(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	uint8_t frame[SFAB_WIRE_MAX_PKT_LEN];
	uint8_t data[4096];
	uint32_t mtu = qp_mtu(qp), chunk = 0;
	struct sfab_engine_rd_atom *r = rd_pending(qp);
	enum sfab_engine_rc_frame kind;
	enum sfab_engine_route route;
	struct sfab_engine_mr *mr;
	struct sfab_pkt_rc p;
	unsigned int vl;
	size_t flen;
	bool nak;

	if (qp->type != SFAB_QPT_RC && qp->type != SFAB_QPT_XRC_TGT)
		return false;
	if (!r && !qp->rc.ack_owed && !(qp->rc.nak_owed))
		return false;
	/* an RNR NAK first; a sequence NAK only after the responses before it */
	nak = qp->rc.nak_owed &&
	      (!r || (qp->rc.nak_syn & SFAB_AETH_KIND_MASK) == SFAB_AETH_RNR_NAK);
	if (nak || !r)
		route = ack_route(e, qp, &vl, &kind);
	else
		route = rc_route(e, qp, &vl);
	if (route == SFAB_ROUTE_WAIT) {
		e->sq_blocked = true;
		return false;
	}
	if (nak) {
		qp->rc.nak_owed = false;
		qp->rc.ack_owed = false;
		ack_xmit(e, qp, route, vl, kind, qp->rc.nak_syn,
			 qp->rc.nak_psn);
		return true;
	}
	if (!r) {
		qp->rc.ack_owed = false;
		ack_xmit(e, qp, route, vl, kind,
			 SFAB_AETH_ACK | SFAB_AETH_CREDIT_INVALID,
			 qp->rc.ack_psn);
		return true;
	}
	if (r->kind == SFAB_RD_ATOMIC) {
		pkt_init(e, qp, &p, SFAB_OP_ATOMIC_ACK, r->psn);
		p.orig = r->orig;
	} else {
		uint32_t k = r->sent;
		uint64_t off = (uint64_t)k * mtu;
		uint8_t op;

		chunk = r->len - off < mtu ? (uint32_t)(r->len - off) : mtu;
		if (!r->len)
			chunk = 0;
		/* an XRC target reads with the PD of the SRQ the READ named */
		if (qp->type == SFAB_QPT_XRC_TGT)
			qp->pdn = r->pdn;
		if (chunk && (!remote_ok(e, qp, r->rkey, r->va + off, chunk,
					 SFAB_ACCESS_REMOTE_READ, &mr) ||
			      sfab_engine_mr_dma(e, mr, r->va + off, data, chunk,
						 false))) {
			/* the MR went away under the READ */
			r->sent = r->npsn;
			resp_fatal(e, qp, psn_add(r->psn, k), SFAB_NAK_REMOTE_ACCESS,
				   SFAB_QP_EV_ACCESS_ERR);
			return false;
		}
		if (r->npsn == 1)
			op = SFAB_OP_READ_RESP_ONLY;
		else if (k == 0)
			op = SFAB_OP_READ_RESP_FIRST;
		else if (k == r->npsn - 1)
			op = SFAB_OP_READ_RESP_LAST;
		else
			op = SFAB_OP_READ_RESP_MIDDLE;
		pkt_init(e, qp, &p, op, psn_add(r->psn, k));
	}
	p.vl = vl;
	p.syndrome = SFAB_AETH_ACK | SFAB_AETH_CREDIT_INVALID;
	p.msn = qp->rc.msn;
	r->sent++;
	/* a response acknowledges every request before it */
	if (qp->rc.ack_owed && psn_diff(qp->rc.ack_psn, p.psn) <= 0)
		qp->rc.ack_owed = false;
	flen = sfab_link_pkt_build_rc(frame, &p, data, chunk);
	rc_xmit(e, route, frame, flen, sfab_qp_qpn(e, qp), SFAB_RC_FRAME_RESP);
	return true;
}

/* -------------------------------------------------------------------- */
/* entry points */

bool sfab_rc_step(struct sfab_engine *e, struct sfab_engine_qp *qp)
{
	if (qp->state == SFAB_QPS_RESET || qp->state == SFAB_QPS_INIT ||
	    qp->state == SFAB_QPS_ERR) {
		sfab_qp_sched(e, qp, false);
		return false;
	}
	if (resp_step(e, qp))
		return true;
	if (e->sq_blocked)
		return false;
	if (req_step(e, qp))
		return true;
	if (!e->sq_blocked)
		sfab_qp_sched(e, qp, false);
	return false;
}

static bool lid_ours(const struct sfab_engine *e, uint16_t dlid)
{
	const struct sfab_engine_port *pt = &e->port;

	return pt->lid && dlid <= SFAB_LID_UCAST_MAX &&
	       (dlid >> pt->lmc) == (pt->lid >> pt->lmc);
}

static bool pkey_ok(const struct sfab_engine *e, const struct sfab_engine_qp *qp,
		    uint16_t pkey)
{
	uint16_t mine = qp->pkey_index < SFAB_PORT_PKEY_TBL_LEN ?
			e->port.pkeys[qp->pkey_index] : 0;

	return (mine & 0x7fff) && (mine & 0x7fff) == (pkey & 0x7fff) &&
	       ((mine | pkey) & 0x8000);
}

bool sfab_engine_qp_rx_pkt(struct sfab_engine *e, const uint8_t *frame,
			   size_t len)
{
	struct sfab_engine_qp *qp;
	struct sfab_pkt_rc p;
	uint8_t op;
	bool resp;

	if (len < SFAB_WIRE_LRH_LEN ||
	    ((frame[1] & SFAB_LRH_LNH_MASK) != SFAB_LNH_IBA_LOCAL &&
	     (frame[1] & SFAB_LRH_LNH_MASK) != SFAB_LNH_IBA_GLOBAL) ||
	    len < sfab_link_pkt_bth_off(frame) + SFAB_WIRE_BTH_LEN ||
	    !sfab_link_pkt_rc_hdrs(frame[sfab_link_pkt_bth_off(frame)]))
		return false;
	if (!sfab_link_pkt_parse_rc(frame, len, &p) || !lid_ours(e, p.dlid)) {
		e->stats.rc_dropped++;
		return true;
	}
	if (p.has_grh && !sfab_qp_dgid_ok(e, &p.grh))
		return true;		/* not for this port: counted */
	qp = sfab_qp_get(e, p.dqpn);
	op = p.opcode & SFAB_BTH_OP_MASK;
	resp = op >= SFAB_OP_READ_RESP_FIRST && op <= SFAB_OP_ATOMIC_ACK;
	if (!qp || !sfab_qp_connected(qp) ||
	    qp_transport(qp) != (p.opcode & SFAB_BTH_OP_TRANSPORT_MASK) ||
	    /* an XRC initiator takes responses only, a target requests */
	    (qp->type == SFAB_QPT_XRC_INI && !resp) ||
	    (qp->type == SFAB_QPT_XRC_TGT && resp) ||
	    qp->state < SFAB_QPS_RTR || qp->state == SFAB_QPS_ERR ||
	    p.slid != qp->dlid) {
		e->stats.rx_no_qp++;
		return true;
	}
	if (!pkey_ok(e, qp, p.pkey)) {
		sfab_engine_key_violation(e, SFAB_TRAP_BAD_PKEY, p.slid, p.dlid,
					  p.pkey, p.sl, qp->dest_qpn, p.dqpn);
		return true;
	}
	e->stats.rc_pkts_rx++;
	if (qp->state == SFAB_QPS_RTR && !qp->rc.comm_est) {
		qp->rc.comm_est = true;
		sfab_qp_event(e, qp, SFAB_QP_EV_COMM_EST);
	}
	if (resp)
		req_rx(e, qp, &p);
	else
		resp_rx(e, qp, &p);
	return true;
}

void sfab_rc_req_sent(struct sfab_engine *e, uint32_t qpn)
{
	struct sfab_engine_qp *qp = sfab_qp_get(e, qpn);

	/* gone, reset or in error since it was queued: nothing to time */
	if (qp && sfab_qp_reliable(qp) && sq_live(qp) && qp->rc.ack_at)
		ack_timer_update(e, qp, true);
}

uint64_t sfab_engine_qp_deadline(const struct sfab_engine *e)
{
	return e->rc_timer_at ? e->rc_timer_at : UINT64_MAX;
}

void sfab_engine_qp_timer(struct sfab_engine *e)
{
	uint64_t now = sfab_engine_now(e), next = 0;
	uint32_t i;

	e->rc_timer_at = 0;
	for (i = 0; i < e->cfg.max_qp; i++) {
		struct sfab_engine_qp *qp = &e->qp[i];

		if (!qp->valid || !sfab_qp_reliable(qp) || !sq_live(qp))
			continue;
		if (qp->rc.rnr_wait && now >= qp->rc.rnr_at) {
			qp->rc.rnr_wait = false;
			ack_timer_update(e, qp, true);
			sfab_qp_sched(e, qp, true);
		}
		/*
		 * Its packets still wait in the port for link credit, or it
		 * waits for its turn to send (sched: the port is full or the
		 * budget ran out): held back here, not late.  The timer starts
		 * again as its packets leave.
		 */
		if (qp->rc.ack_at && now >= qp->rc.ack_at &&
		    (qp->sched || sfab_engine_port_req_queued(e, i)))
			qp->rc.ack_at = now + ack_timeout_ns(e, qp);
		if (qp->rc.ack_at && now >= qp->rc.ack_at) {
			qp->rc.ack_at = 0;
			if (!qp->rc.retry_left) {
				head_fail(e, qp, SFAB_CQE_STS_RETRY_EXC_ERR);
				continue;
			}
			qp->rc.retry_left--;
			e->stats.rc_ack_timeouts++;
			go_back(e, qp);
		}
		if (qp->rc.rnr_wait && (!next || qp->rc.rnr_at < next))
			next = qp->rc.rnr_at;
		if (qp->rc.ack_at && (!next || qp->rc.ack_at < next))
			next = qp->rc.ack_at;
	}
	if (next)
		timer_arm(e, next);
}
