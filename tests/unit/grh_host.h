/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GRH helpers for the unit tests, on top of rc_pair.h: distinct port GIDs
 * for the two nodes, RC/UC connections whose path has a GRH
 * (SFAB_QP_ATTR_GRH), UD QPs and UD send WQEs with a GRH segment
 * (SFAB_WQE_GRH).  Include after rc_pair.h.
 */
#ifndef SFAB_TEST_GRH_HOST_H
#define SFAB_TEST_GRH_HOST_H

#include "rc_pair.h"

#define GRH_GUID0	0x0002c90300001000ULL
#define GRH_GUID1	0x0002c90300002000ULL
#define GRH_QKEY	0x11110000U

/* give the nodes their own node GUIDs: their port GIDs differ */
static inline void grh_guids(void)
{
	RP[0].h->e->node_guid = GRH_GUID0;
	RP[1].h->e->node_guid = GRH_GUID1;
}

/* node @i's port GID 0, computed from first principles */
static inline void grh_gid(unsigned int i, uint8_t gid[16])
{
	uint64_t prefix = RP[i].h->e->port.gid_prefix;
	uint64_t guid = RP[i].h->e->node_guid + 1;
	unsigned int k;

	for (k = 0; k < 8; k++) {
		gid[k] = prefix >> (56 - 8 * k);
		gid[8 + k] = guid >> (56 - 8 * k);
	}
}

static inline struct sfab_wqe_grh grh_av(const uint8_t dgid[16], uint8_t tclass,
					 uint32_t flow, uint8_t hop)
{
	struct sfab_wqe_grh g;

	memset(&g, 0, sizeof(g));
	memcpy(g.dgid, dgid, 16);
	g.traffic_class = tclass;
	g.flow_label = sfab_cpu_to_le32(flow);
	g.hop_limit = hop;
	return g;
}

/*
 * Init -> RTR -> RTS of node @i's RC/UC QP towards the other node; with
 * @g the path is global.  The status of the first command that failed.
 */
static inline int grh_connect_one(unsigned int i, const struct rp_cfg *c,
				  const struct sfab_wqe_grh *g)
{
	struct fake_host *h = RP[i].h;
	const struct qh_qp *qp = &RP[i].qp;
	struct sfab_aq_cmd cmd = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_aq_modify_qp *m = &cmd.u.modify_qp;
	bool rc = qp->type == SFAB_QPT_RC;
	uint64_t ga = h->scratch + 1024;
	int st;

	m->qpn = sfab_cpu_to_le32(qp->qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_PKEY_INDEX |
					SFAB_QP_ATTR_PORT | SFAB_QP_ATTR_ACCESS);
	m->state = SFAB_QPS_INIT;
	m->port_num = 1;
	m->access_flags = sfab_cpu_to_le32(RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE);
	st = host_cmd(h, &cmd);
	if (st)
		return st;
	cmd = cmd_new(SFAB_AQ_MODIFY_QP);
	m->qpn = sfab_cpu_to_le32(qp->qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_AV |
					SFAB_QP_ATTR_PATH_MTU | SFAB_QP_ATTR_DEST_QPN |
					SFAB_QP_ATTR_RQ_PSN |
					(g ? SFAB_QP_ATTR_GRH : 0) |
					(rc ? SFAB_QP_ATTR_RD_ATOMIC |
					      SFAB_QP_ATTR_MIN_RNR_TIMER : 0));
	m->state = SFAB_QPS_RTR;
	m->dlid = sfab_cpu_to_le16(i ? RP_LID0 : RP_LID1);
	m->path_mtu = c->mtu ? c->mtu : 1;
	m->dest_qpn = sfab_cpu_to_le32(RP[!i].qp.qpn);
	m->rq_psn = sfab_cpu_to_le32(i ? c->psn0 : c->psn1);
	m->max_dest_rd_atomic = 4;
	if (g) {
		memcpy(hp(h, ga), g, sizeof(*g));
		cmd.u.modify_qp_grh.grh_addr = sfab_cpu_to_le64(ga);
	}
	st = host_cmd(h, &cmd);
	if (st)
		return st;
	cmd = cmd_new(SFAB_AQ_MODIFY_QP);
	m->qpn = sfab_cpu_to_le32(qp->qpn);
	m->attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_SQ_PSN |
					(rc ? SFAB_QP_ATTR_TIMEOUT | SFAB_QP_ATTR_RETRY |
					      SFAB_QP_ATTR_RD_ATOMIC : 0));
	m->state = SFAB_QPS_RTS;
	m->sq_psn = sfab_cpu_to_le32(i ? c->psn1 : c->psn0);
	m->timeout = c->timeout ? c->timeout : 14;
	m->retry_cnt = c->retry_cnt;
	m->rnr_retry = c->rnr_retry;
	m->max_rd_atomic = 4;
	return host_cmd(h, &cmd);
}

/* both nodes connected with global paths to each other's port GID */
static inline void grh_connect(const struct rp_cfg *c)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		uint8_t dgid[16];
		struct sfab_wqe_grh g;

		grh_gid(!i, dgid);
		g = grh_av(dgid, 0x20 + i, 0x54321 + i, 63);
		REQUIRE(grh_connect_one(i, c, &g) == 0);
	}
}

/* a UD QP on node @i (SQ stride 128: room for the GRH segment), in RTS */
static inline void grh_ud_new(unsigned int i, struct qh_qp *qp)
{
	REQUIRE(qh_qp_new(RP[i].h, qp, SFAB_QPT_UD, 4, RP[i].cq.cqn,
			  RP[i].cq.cqn) == 0);
	REQUIRE(qh_qp_rts(RP[i].h, qp, GRH_QKEY) == 0);
}

/*
 * A UD SEND from node @i's @qp to @dqpn at LID @dlid of @len bytes at
 * offset @off of its memory; with @g a GRH segment.  Doorbell rung.
 */
static inline void grh_ud_send_k(unsigned int i, struct qh_qp *qp,
				 uint64_t wr_id, uint32_t dqpn, uint32_t qkey,
				 uint16_t dlid, const struct sfab_wqe_grh *g,
				 uint64_t off, uint32_t len)
{
	struct fake_host *h = RP[i].h;
	uint8_t *w = hp(h, qp->sq + ((qp->sq_pi & ((1U << qp->sq_log) - 1))
				     << qp->sq_slog));
	struct sfab_wqe_ctrl ctrl;
	struct sfab_wqe_ud ud;
	struct sfab_sge sge;
	size_t at = sizeof(ctrl) + sizeof(ud);

	memset(w, 0, 1U << qp->sq_slog);
	memset(&ctrl, 0, sizeof(ctrl));
	ctrl.opcode = SFAB_WQE_SEND;
	ctrl.flags = SFAB_WQE_SIGNALED | (g ? SFAB_WQE_GRH : 0);
	ctrl.num_sge = 1;
	ctrl.wr_id = sfab_cpu_to_le64(wr_id);
	memset(&ud, 0, sizeof(ud));
	ud.dest_qpn = sfab_cpu_to_le32(dqpn);
	ud.qkey = sfab_cpu_to_le32(qkey);
	ud.dlid = sfab_cpu_to_le16(dlid);
	ud.port_num = 1;
	if (g) {
		memcpy(w + at, g, sizeof(*g));
		at += sizeof(*g);
	}
	sge.addr = sfab_cpu_to_le64(RP[i].mem + off);
	sge.length = sfab_cpu_to_le32(len);
	sge.lkey = sfab_cpu_to_le32(RP[i].key);
	memcpy(w + at, &sge, sizeof(sge));
	memcpy(w + sizeof(ctrl), &ud, sizeof(ud));
	memcpy(w, &ctrl, sizeof(ctrl));
	qp->sq_pi++;
	qh_qp_db(h, qp, true);
}

static inline void grh_ud_send(unsigned int i, struct qh_qp *qp, uint64_t wr_id,
			       uint32_t dqpn, uint16_t dlid,
			       const struct sfab_wqe_grh *g, uint64_t off,
			       uint32_t len)
{
	grh_ud_send_k(i, qp, wr_id, dqpn, GRH_QKEY, dlid, g, off, len);
}

/* a receive for node @i's UD @qp: @len bytes at offset @off */
static inline void grh_ud_recv(unsigned int i, struct qh_qp *qp, uint64_t wr_id,
			       uint64_t off, uint32_t len)
{
	qh_post_recv(RP[i].h, qp, wr_id, RP[i].mem + off, len, RP[i].key);
	qh_qp_db(RP[i].h, qp, false);
}

/* the 40 bytes of a GRH as the IBTA lays them out */
static inline void grh_expect(uint8_t out[40], uint8_t tclass, uint32_t flow,
			      uint16_t paylen, uint8_t hop,
			      const uint8_t sgid[16], const uint8_t dgid[16])
{
	uint32_t v = 6U << 28 | (uint32_t)tclass << 20 | flow;

	out[0] = v >> 24;
	out[1] = v >> 16;
	out[2] = v >> 8;
	out[3] = v;
	out[4] = paylen >> 8;
	out[5] = paylen & 0xff;
	out[6] = SFAB_GRH_NEXT_HDR_BTH;
	out[7] = hop;
	memcpy(out + 8, sgid, 16);
	memcpy(out + 24, dgid, 16);
}

#endif /* SFAB_TEST_GRH_HOST_H */
