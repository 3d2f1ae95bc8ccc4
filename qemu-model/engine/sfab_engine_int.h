/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab HCA engine: what its files share (sfab_engine_qp.c's queues and
 * UD, sfab_engine_rc.c's RC/UC transport, the table limits).  Private to
 * the engine.
 */
#ifndef SFAB_ENGINE_INT_H
#define SFAB_ENGINE_INT_H

#include "sfab_engine.h"

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
 * RTS -> SQD of an RC/UC QP: sqd_stop, the end of the WQEs begun; RC asks
 * again for the ACK the last packet sent did not request
 */
void sfab_rc_sqd_begin(struct sfab_engine *e, struct sfab_engine_qp *qp);
/* one step of an RC/UC QP's output; false when it has to stop */
bool sfab_rc_step(struct sfab_engine *e, struct sfab_engine_qp *qp);
/* an RC request packet of QP @qpn left the port: its ACK timer restarts */
void sfab_rc_req_sent(struct sfab_engine *e, uint32_t qpn);

#endif /* SFAB_ENGINE_INT_H */
