/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-qp: CREATE_QP / MODIFY_QP / QUERY_QP / DESTROY_QP, the IBA
 * QP state machine and its attribute rules, bad parameters, doorbells
 * from the wrong page, send WQE errors and the flush that follows.
 */
#include "harness.h"
#include "qp_host.h"

struct rig {
	struct fake_host *h;
	struct qh_eq eq;
	struct qh_cq cq;
	uint64_t buf;
};

static void rig_up(struct rig *r)
{
	r->h = qh_up();
	CHECK_EQ(qh_eq_new(r->h, &r->eq, 4, 2), SFAB_AQ_STS_OK);
	CHECK_EQ(qh_cq_new(r->h, &r->cq, 10, r->eq.eqn), SFAB_AQ_STS_OK);
	r->buf = host_alloc(r->h, 4096, 4096);
}

static uint8_t qp_state(struct fake_host *h, uint32_t qpn)
{
	struct sfab_qp_attr a;

	if (qh_query_qp(h, qpn, &a))
		return 0xff;
	return a.attr.state;
}

static int destroy_qp(struct fake_host *h, uint32_t qpn)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_QP);

	c.u.destroy_qp.qpn = sfab_cpu_to_le32(qpn);
	return host_cmd(h, &c);
}

static int destroy_cq(struct fake_host *h, uint32_t cqn)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_CQ);

	c.u.destroy_cq.cqn = sfab_cpu_to_le32(cqn);
	return host_cmd(h, &c);
}

#define M(x)	SFAB_QP_ATTR_##x

TEST(qpn_allocation)
{
	struct rig r;
	struct qh_qp smi, gsi, ud1, ud2, again;
	struct sfab_aq_cmd c;

	rig_up(&r);
	CHECK_EQ(qh_qp_new(r.h, &ud1, SFAB_QPT_UD, 4, r.cq.cqn, r.cq.cqn), 0);
	CHECK_EQ(ud1.qpn, 2);
	CHECK_EQ(qh_qp_new(r.h, &smi, SFAB_QPT_SMI, 4, r.cq.cqn, r.cq.cqn), 0);
	CHECK_EQ(smi.qpn, 0);
	CHECK_EQ(qh_qp_new(r.h, &gsi, SFAB_QPT_GSI, 4, r.cq.cqn, r.cq.cqn), 0);
	CHECK_EQ(gsi.qpn, 1);
	CHECK_EQ(qh_qp_new(r.h, &ud2, SFAB_QPT_UD, 4, r.cq.cqn, r.cq.cqn), 0);
	CHECK_EQ(ud2.qpn, 3);
	/* one QP0 and one QP1 per port */
	CHECK_EQ(qh_qp_new(r.h, &again, SFAB_QPT_SMI, 4, r.cq.cqn, r.cq.cqn),
		 SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(qh_qp_new(r.h, &again, SFAB_QPT_GSI, 4, r.cq.cqn, r.cq.cqn),
		 SFAB_AQ_STS_BAD_STATE);
	/* QP0 needs its port; a UD QP gets its port from MODIFY_QP */
	c = qh_create_qp_cmd(&smi, r.cq.cqn, r.cq.cqn, 0, SFAB_QP_PRIV);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_qp_cmd(&ud1, r.cq.cqn, r.cq.cqn, 1, SFAB_QP_PRIV);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(r.h->e->num_qp, 4);
	/* the CQ is in use until its QPs are gone */
	CHECK_EQ(destroy_cq(r.h, r.cq.cqn), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(destroy_qp(r.h, smi.qpn), 0);
	CHECK_EQ(destroy_qp(r.h, smi.qpn), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(destroy_qp(r.h, 999999), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_qp_new(r.h, &smi, SFAB_QPT_SMI, 4, r.cq.cqn, r.cq.cqn), 0);
	CHECK_EQ(smi.qpn, 0);
	/* a freed QPN is not handed out again at once */
	CHECK_EQ(destroy_qp(r.h, ud1.qpn), 0);
	CHECK_EQ(qh_qp_new(r.h, &ud1, SFAB_QPT_UD, 4, r.cq.cqn, r.cq.cqn), 0);
	CHECK_EQ(ud1.qpn, 4);
	CHECK_EQ(destroy_qp(r.h, 0), 0);
	CHECK_EQ(destroy_qp(r.h, 1), 0);
	CHECK_EQ(destroy_qp(r.h, 3), 0);
	CHECK_EQ(destroy_qp(r.h, 4), 0);
	CHECK_EQ(destroy_cq(r.h, r.cq.cqn), 0);
	CHECK_EQ(r.h->e->num_qp, 0);
	host_free(r.h);
}

TEST(create_bad_params)
{
	struct rig r;
	struct qh_qp qp;
	struct sfab_aq_cmd c, good;

	rig_up(&r);
	memset(&qp, 0, sizeof(qp));
	qp.type = SFAB_QPT_UD;
	qp.sq_log = qp.rq_log = 4;
	qp.sq_slog = 7;
	qp.rq_slog = 6;
	qp.sq = host_alloc(r.h, 4096, 4096);
	qp.rq = host_alloc(r.h, 4096, 4096);
	good = qh_create_qp_cmd(&qp, r.cq.cqn, r.cq.cqn, 0, SFAB_QP_PRIV);

	c = good;
	c.u.create_qp.qp_type = 5;
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.flags = sfab_cpu_to_le32(2);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.srqn = sfab_cpu_to_le32(1);	/* without SFAB_QP_SRQ */
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.sq.log_stride = 5;		/* send WQEs: 64..512 */
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.rq.log_stride = 10;
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.sq.log_depth = 13;		/* > max_qp_wr 4096 */
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.send_cqn = sfab_cpu_to_le32(r.cq.cqn + 1);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.recv_cqn = sfab_cpu_to_le32(5000);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.pdn = sfab_cpu_to_le32(256);	/* max_pd 256 */
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.db_page = sfab_cpu_to_le16(SFAB_DB_NUM_PAGES);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.db_page = sfab_cpu_to_le16(3);	/* PRIV: kernel pages */
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_qp.flags = 0;
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_OK);
	c = good;
	c.u.create_qp.rq.addr = sfab_cpu_to_le64(qp.rq + 8);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = good;
	c.u.create_qp.sq.flags = 0;	/* page list of 0 pages */
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(r.h->e->num_qp, 1);
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}

static int modify(struct fake_host *h, uint32_t qpn, uint32_t mask,
		  uint8_t state, void (*tweak)(struct sfab_aq_modify_qp *))
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_aq_modify_qp *m = &c.u.modify_qp;

	m->qpn = sfab_cpu_to_le32(qpn);
	m->attr_mask = sfab_cpu_to_le32(mask);
	m->state = state;
	m->qkey = sfab_cpu_to_le32(0x11111111);
	m->port_num = 1;
	m->path_mtu = 5;
	m->sq_psn = sfab_cpu_to_le32(0x123456);
	if (tweak)
		tweak(m);
	return host_cmd(h, &c);
}

static void bad_pkey_index(struct sfab_aq_modify_qp *m)
{
	m->pkey_index = sfab_cpu_to_le16(SFAB_PORT_PKEY_TBL_LEN);
}

static void bad_port(struct sfab_aq_modify_qp *m)
{
	m->port_num = 2;
}

static void bad_psn(struct sfab_aq_modify_qp *m)
{
	m->sq_psn = sfab_cpu_to_le32(0x1000000);
}

static void bad_reserved(struct sfab_aq_modify_qp *m)
{
	m->reserved0 = 1;
}

TEST(ud_state_machine)
{
	struct rig r;
	struct qh_qp qp;
	struct sfab_qp_attr a;
	uint32_t init = M(STATE) | M(PKEY_INDEX) | M(PORT) | M(QKEY);

	rig_up(&r);
	REQUIRE(qh_qp_new(r.h, &qp, SFAB_QPT_UD, 4, r.cq.cqn, r.cq.cqn) == 0);
	CHECK_EQ(qp_state(r.h, qp.qpn), SFAB_QPS_RESET);
	/* Reset goes only to Init, with its required attributes */
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_RTR, NULL), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(PKEY_INDEX) | M(PORT), SFAB_QPS_INIT, NULL),
		 SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, init | M(SQ_PSN), SFAB_QPS_INIT, NULL),
		 SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, init, SFAB_QPS_INIT, bad_pkey_index), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, init, SFAB_QPS_INIT, bad_port), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, init, SFAB_QPS_INIT, bad_reserved), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, init | (1U << 20), SFAB_QPS_INIT, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, init, 7, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qp_state(r.h, qp.qpn), SFAB_QPS_RESET);
	CHECK_EQ(modify(r.h, qp.qpn, init, SFAB_QPS_INIT, NULL), 0);
	CHECK_EQ(qp_state(r.h, qp.qpn), SFAB_QPS_INIT);
	/* Init -> Init changes the Q_Key; Init -> RTS is not a transition */
	CHECK_EQ(modify(r.h, qp.qpn, M(QKEY), 0, NULL), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(SQ_PSN), SFAB_QPS_RTS, NULL), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(SQ_PSN), SFAB_QPS_RTR, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_RTR, NULL), 0);
	/* RTR -> RTS needs the SQ PSN, 24 bits */
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_RTS, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(SQ_PSN), SFAB_QPS_RTS, bad_psn), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(SQ_PSN), SFAB_QPS_RTS, NULL), 0);
	CHECK_EQ(qh_query_qp(r.h, qp.qpn, &a), 0);
	CHECK_EQ(a.attr.state, SFAB_QPS_RTS);
	CHECK_EQ(sfab_le32_to_cpu(a.attr.qkey), 0x11111111);
	CHECK_EQ(sfab_le32_to_cpu(a.attr.sq_psn), 0x123456);
	CHECK_EQ(a.attr.port_num, 1);
	CHECK_EQ(sfab_le32_to_cpu(a.attr.qpn), qp.qpn);
	/* RTS -> RTS: Q_Key only; RTS -> SQD without attributes (unit/rc-sqd) */
	CHECK_EQ(modify(r.h, qp.qpn, M(QKEY), 0, NULL), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(PKEY_INDEX), 0, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(QKEY), SFAB_QPS_SQD, NULL),
		 SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_SQD, NULL), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(SQ_PSN), SFAB_QPS_RTR, NULL),
		 SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_RTS, NULL), 0);
	/* any -> Error; Error -> only Reset */
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_ERR, NULL), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(SQ_PSN), SFAB_QPS_RTS, NULL), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_RESET, NULL), 0);
	CHECK_EQ(qp_state(r.h, qp.qpn), SFAB_QPS_RESET);
	CHECK_EQ(modify(r.h, qp.qpn, init, SFAB_QPS_INIT, NULL), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_RESET, NULL), 0);
	/* QUERY_QP of a bad QPN or a short buffer */
	{
		struct sfab_aq_cmd c = cmd_new(SFAB_AQ_QUERY_QP);

		c.u.query_qp.resp_addr = sfab_cpu_to_le64(r.h->scratch);
		c.u.query_qp.resp_len = sfab_cpu_to_le32(sizeof(a) - 1);
		c.u.query_qp.qpn = sfab_cpu_to_le32(qp.qpn);
		CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
		c.u.query_qp.resp_len = sfab_cpu_to_le32(sizeof(a));
		c.u.query_qp.qpn = sfab_cpu_to_le32(qp.qpn + 1);
		CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	}
	host_free(r.h);
}

TEST(gsi_rules)
{
	struct rig r;
	struct qh_qp qp;

	rig_up(&r);
	REQUIRE(qh_qp_new(r.h, &qp, SFAB_QPT_GSI, 4, r.cq.cqn, r.cq.cqn) == 0);
	/* QP0/QP1 have their port: PORT is not an Init attribute for them */
	CHECK_EQ(modify(r.h, 1, M(STATE) | M(PKEY_INDEX) | M(QKEY) | M(PORT),
			SFAB_QPS_INIT, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_qp_rts(r.h, &qp, SFAB_QP1_QKEY), 0);
	CHECK_EQ(qp_state(r.h, 1), SFAB_QPS_RTS);
	host_free(r.h);
}

static void rc_rtr(struct sfab_aq_modify_qp *m)
{
	m->dlid = sfab_cpu_to_le16(5);
	m->dest_qpn = sfab_cpu_to_le32(77);
	m->max_dest_rd_atomic = 4;
	m->min_rnr_timer = 12;
}

static void rc_rts(struct sfab_aq_modify_qp *m)
{
	m->timeout = 14;
	m->retry_cnt = 7;
	m->rnr_retry = 7;
	m->max_rd_atomic = 4;
}

/*
 * RC: attributes stored; a send on a path the port cannot carry (no link)
 * is retried retry_cnt times at the local ACK timeout, then fails
 */
TEST(rc_dead_path)
{
	struct rig r;
	struct qh_qp qp;
	struct sfab_qp_attr a;
	struct sfab_cqe cqe;
	struct qh_send s = {
		.wr_id = 42, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.addr = 0, .len = 0, .lkey = QH_LKEY,
	};

	rig_up(&r);
	s.addr = r.buf;
	REQUIRE(qh_qp_new(r.h, &qp, SFAB_QPT_RC, 4, r.cq.cqn, r.cq.cqn) == 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(PKEY_INDEX) | M(PORT) | M(QKEY),
			SFAB_QPS_INIT, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(PKEY_INDEX) | M(PORT) | M(ACCESS),
			SFAB_QPS_INIT, NULL), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(AV) | M(PATH_MTU) | M(DEST_QPN) |
			M(RQ_PSN) | M(RD_ATOMIC), SFAB_QPS_RTR, rc_rtr),
		 SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(AV) | M(PATH_MTU) | M(DEST_QPN) |
			M(RQ_PSN) | M(RD_ATOMIC) | M(MIN_RNR_TIMER), SFAB_QPS_RTR,
			rc_rtr), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(SQ_PSN) | M(TIMEOUT) | M(RETRY) |
			M(RD_ATOMIC), SFAB_QPS_RTS, rc_rts), 0);
	CHECK_EQ(qh_query_qp(r.h, qp.qpn, &a), 0);
	CHECK_EQ(sfab_le32_to_cpu(a.attr.dest_qpn), 77);
	CHECK_EQ(sfab_le16_to_cpu(a.attr.dlid), 5);
	CHECK_EQ(a.attr.timeout, 14);
	CHECK_EQ(a.attr.max_rd_atomic, 4);
	CHECK_EQ(a.attr.max_dest_rd_atomic, 4);
	CHECK_EQ(a.attr.min_rnr_timer, 12);
	qh_post_send(r.h, &qp, &s);
	qh_qp_db(r.h, &qp, true);
	CHECK(!qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(r.h->e->stats.send_dropped, 1);
	/* timeout 14: 67 ms; retry_cnt 7: eight tries in all */
	for (int i = 0; i < 8; i++) {
		CHECK(!qh_cq_poll(r.h, &r.cq, &cqe));
		r.h->now += 70000000;
		sfab_engine_timer(r.h->e);
		host_run(r.h);
	}
	CHECK_EQ(r.h->e->stats.send_dropped, 8);
	REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_RETRY_EXC_ERR);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 42);
	CHECK_EQ(qp_state(r.h, qp.qpn), SFAB_QPS_ERR);
	host_free(r.h);
}

TEST(doorbell_pages)
{
	struct rig r;
	struct qh_qp qp;
	struct sfab_aq_cmd c;
	struct sfab_acq_entry cpl;
	struct sfab_qp_attr a;
	uint64_t before;

	rig_up(&r);
	memset(&qp, 0, sizeof(qp));
	qp.type = SFAB_QPT_UD;
	qp.sq_log = qp.rq_log = 4;
	qp.sq_slog = 7;
	qp.rq_slog = 6;
	qp.sq = host_alloc(r.h, 4096, 4096);
	qp.rq = host_alloc(r.h, 4096, 4096);
	qp.db_page = 3;
	c = qh_create_qp_cmd(&qp, r.cq.cqn, r.cq.cqn, 0, 0);
	REQUIRE(host_cmd_full(r.h, &c, &cpl) == 0);
	qp.qpn = sfab_le32_to_cpu(cpl.result0);
	CHECK_EQ(qh_qp_rts(r.h, &qp, 7), 0);

	before = r.h->e->stats.db_ignored;
	/* the RQ doorbell through page 0 (not this QP's): ignored */
	qp.rq_pi = 2;
	qp.db_page = 0;
	qh_qp_db(r.h, &qp, false);
	CHECK_EQ(r.h->e->stats.db_ignored, before + 1);
	CHECK_EQ(qh_query_qp(r.h, qp.qpn, &a), 0);
	CHECK_EQ(sfab_le16_to_cpu(a.rq_pi), 0);
	/* through its own page: taken */
	qp.db_page = 3;
	qh_qp_db(r.h, &qp, false);
	CHECK_EQ(qh_query_qp(r.h, qp.qpn, &a), 0);
	CHECK_EQ(sfab_le16_to_cpu(a.rq_pi), 2);
	CHECK_EQ(r.h->e->stats.db_ignored, before + 1);
	/* 32-bit, reserved bits, an unassigned offset: ignored */
	sfab_engine_db_write(r.h->e, 3 * SFAB_DB_PAGE_SIZE + SFAB_DB_RQ, qp.qpn, 4,
			     SFAB_DB_SRC_CPU);
	sfab_engine_db_write(r.h->e, 3 * SFAB_DB_PAGE_SIZE + SFAB_DB_RQ,
			     (uint64_t)2 << 32 | 1U << 28 | qp.qpn, 8,
			     SFAB_DB_SRC_CPU);
	sfab_engine_db_write(r.h->e, 3 * SFAB_DB_PAGE_SIZE + 0x100,
			     (uint64_t)2 << 32 | qp.qpn, 8, SFAB_DB_SRC_CPU);
	CHECK_EQ(r.h->e->stats.db_ignored, before + 4);
	CHECK_EQ(qh_query_qp(r.h, qp.qpn, &a), 0);
	CHECK_EQ(sfab_le16_to_cpu(a.rq_pi), 2);
	CHECK_EQ(a.attr.state, SFAB_QPS_RTS);
	/* the CQ doorbell on a page that is not the CQ's */
	sfab_engine_db_write(r.h->e, 3 * SFAB_DB_PAGE_SIZE + SFAB_DB_CQ,
			     r.cq.cqn, 8, SFAB_DB_SRC_CPU);
	CHECK_EQ(r.h->e->stats.db_ignored, before + 5);

	/* a user QP cannot use local_dma_lkey: protection error */
	{
		struct qh_send s = {
			.wr_id = 9, .opcode = SFAB_WQE_SEND, .dqpn = 4,
			.qkey = 7, .dlid = 3, .addr = r.buf, .len = 16,
			.lkey = QH_LKEY,
		};
		struct sfab_cqe cqe;

		qh_post_send(r.h, &qp, &s);
		qh_qp_db(r.h, &qp, true);
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_PROT_ERR);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 9);
		/* the two receives are flushed */
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
		CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV);
		CHECK(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK(!qh_cq_poll(r.h, &r.cq, &cqe));
	}

	/*
	 * An index more than a ring ahead, or backwards, through the QP's
	 * own page: the owner's error.  The QP goes to Error with a FATAL
	 * event; its receive ring is not read (the index stays).
	 */
	{
		struct sfab_aenq_entry ev;
		unsigned int i;

		for (i = 0; i < 2; i++) {
			/* from Error: Reset, then on to RTS, rings empty */
			CHECK_EQ(qh_modify(r.h, qp.qpn, SFAB_QP_ATTR_STATE,
					   SFAB_QPS_RESET, 0), 0);
			CHECK_EQ(qh_qp_rts(r.h, &qp, 7), 0);
			while (host_aenq_poll(r.h, &ev))
				;
			before = r.h->e->stats.db_ignored;
			qp.rq_pi = i ? (uint16_t)-1 : 17;
			qh_qp_db(r.h, &qp, false);
			CHECK_EQ(r.h->e->stats.db_ignored, before + 1);
			CHECK_EQ(qh_query_qp(r.h, qp.qpn, &a), 0);
			CHECK_EQ(a.attr.state, SFAB_QPS_ERR);
			CHECK_EQ(sfab_le16_to_cpu(a.rq_pi), 0);
			REQUIRE(host_aenq_poll(r.h, &ev));
			CHECK_EQ(ev.type, SFAB_AENQ_QP_EVENT);
			CHECK_EQ(sfab_le32_to_cpu(ev.data0), qp.qpn);
			CHECK_EQ(sfab_le64_to_cpu(ev.data1), SFAB_QP_EV_FATAL);
			qp.rq_pi = 0;
		}
	}
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}

/* bad WQEs complete with the IBA status, the QP errs, the rest flushes */
TEST(send_errors_flush)
{
	struct rig r;
	struct qh_qp qp;
	struct sfab_cqe cqe;
	struct qh_send s = {
		.opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.dqpn = 4, .qkey = 7, .dlid = 3, .len = 16, .lkey = QH_LKEY,
	};
	static const struct {
		uint8_t opcode, flags;
		unsigned int num_sge;
		uint32_t len, lkey;
		uint8_t status;
	} cases[] = {
		{ SFAB_WQE_RDMA_WRITE, SFAB_WQE_SIGNALED, 0, 16, QH_LKEY, SFAB_CQE_STS_LOC_QP_OP_ERR },
		{ SFAB_WQE_ATOMIC_FA, SFAB_WQE_SIGNALED, 0, 16, QH_LKEY, SFAB_CQE_STS_LOC_QP_OP_ERR },
		{ 0x77, 0, 0, 16, QH_LKEY, SFAB_CQE_STS_LOC_QP_OP_ERR },
		{ SFAB_WQE_SEND, 0, 0, 16, 0x1234, SFAB_CQE_STS_LOC_PROT_ERR },
		{ SFAB_WQE_SEND, 0, 0, 5000, QH_LKEY, SFAB_CQE_STS_LOC_LEN_ERR },
		{ SFAB_WQE_SEND, 0, 17, 64, QH_LKEY, SFAB_CQE_STS_LOC_LEN_ERR },
		{ SFAB_WQE_SEND, 0, 7, 64, QH_LKEY, SFAB_CQE_STS_LOC_LEN_ERR },
		{ SFAB_WQE_SEND, SFAB_WQE_INLINE, 0, 300, QH_LKEY, SFAB_CQE_STS_LOC_LEN_ERR },
		{ SFAB_WQE_SEND, SFAB_WQE_SIGNALED, 0, 16, QH_LKEY, SFAB_CQE_STS_LOC_PROT_ERR },
	};
	unsigned int i;

	rig_up(&r);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		REQUIRE(qh_qp_new(r.h, &qp, SFAB_QPT_UD, 4, r.cq.cqn, r.cq.cqn) == 0);
		REQUIRE(qh_qp_rts(r.h, &qp, 7) == 0);
		s.addr = r.buf;
		if (i == 8) {
			/* a DMA failure reading the data */
			r.h->fail_lo = r.buf;
			r.h->fail_hi = r.buf + 16;
		}
		s.wr_id = 1000 + i;
		s.opcode = cases[i].opcode;
		s.flags = cases[i].flags;
		s.num_sge = cases[i].num_sge;
		s.len = cases[i].len;
		s.lkey = cases[i].lkey;
		qh_post_send(r.h, &qp, &s);
		/* two good WQEs behind it, and a receive */
		s.opcode = SFAB_WQE_SEND;
		s.flags = 0;
		s.num_sge = 0;
		s.len = 8;
		s.lkey = QH_LKEY;
		s.wr_id = 2000 + i;
		qh_post_send(r.h, &qp, &s);
		s.wr_id = 3000 + i;
		qh_post_send(r.h, &qp, &s);
		qh_post_recv(r.h, &qp, 4000 + i, r.buf + 1024, 256, QH_LKEY);
		qh_qp_db(r.h, &qp, false);
		qh_qp_db(r.h, &qp, true);
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 1000 + i);
		CHECK_EQ(cqe.status, cases[i].status);
		CHECK_EQ(cqe_qpn(&cqe), qp.qpn);
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 2000 + i);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 3000 + i);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 4000 + i);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
		CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV);
		CHECK(!qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(qp_state(r.h, qp.qpn), SFAB_QPS_ERR);
		/* in Error, new WQEs flush at once */
		s.wr_id = 5000 + i;
		qh_post_send(r.h, &qp, &s);
		qh_qp_db(r.h, &qp, true);
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 5000 + i);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
		r.h->fail_lo = r.h->fail_hi = 0;
		CHECK_EQ(destroy_qp(r.h, qp.qpn), 0);
	}
	CHECK_EQ(r.h->e->stats.send_errors, 9);
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}

/* inline data and several SGEs are accepted; unsignaled success is silent */
TEST(send_good_forms)
{
	struct rig r;
	struct qh_qp qp;
	struct sfab_cqe cqe;
	struct qh_send s = {
		.opcode = SFAB_WQE_SEND, .dqpn = 4, .qkey = 7, .dlid = 3,
		.lkey = QH_LKEY,
	};

	rig_up(&r);
	REQUIRE(qh_qp_new(r.h, &qp, SFAB_QPT_UD, 4, r.cq.cqn, r.cq.cqn) == 0);
	REQUIRE(qh_qp_rts(r.h, &qp, 7) == 0);
	s.addr = r.buf;
	s.len = 64;
	qh_post_send(r.h, &qp, &s);			/* unsignaled */
	s.flags = SFAB_WQE_SIGNALED | SFAB_WQE_INLINE;
	s.len = 80;					/* fits 128 - 48 */
	s.wr_id = 7;
	qh_post_send(r.h, &qp, &s);
	s.flags = SFAB_WQE_SIGNALED;
	s.num_sge = 6;					/* 32 + 6 * 16 = 128 */
	s.len = 600;
	s.wr_id = 8;
	qh_post_send(r.h, &qp, &s);
	qh_qp_db(r.h, &qp, true);
	REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 7);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 8);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 600);
	CHECK(!qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(qp_state(r.h, qp.qpn), SFAB_QPS_RTS);
	CHECK_EQ(r.h->e->stats.sends, 3);
	/* posted before RTS: held until the QP gets there */
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_RESET, NULL), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(PKEY_INDEX) | M(PORT) | M(QKEY),
			SFAB_QPS_INIT, NULL), 0);
	qp.sq_pi = 0;
	s.num_sge = 0;
	s.len = 8;
	s.wr_id = 11;
	qh_post_send(r.h, &qp, &s);
	qh_qp_db(r.h, &qp, true);
	CHECK(!qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE), SFAB_QPS_RTR, NULL), 0);
	CHECK_EQ(modify(r.h, qp.qpn, M(STATE) | M(SQ_PSN), SFAB_QPS_RTS, NULL), 0);
	host_run(r.h);
	REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 11);
	host_free(r.h);
}

TEST(teardown_releases)
{
	struct rig r;
	struct qh_qp qp;
	struct sfab_aq_cmd c;

	rig_up(&r);
	REQUIRE(qh_qp_new(r.h, &qp, SFAB_QPT_SMI, 4, r.cq.cqn, r.cq.cqn) == 0);
	REQUIRE(qh_qp_new(r.h, &qp, SFAB_QPT_UD, 4, r.cq.cqn, r.cq.cqn) == 0);
	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	CHECK_EQ(host_cmd(r.h, &c), 0);
	CHECK_EQ(r.h->e->num_qp, 0);
	CHECK_EQ(r.h->e->num_cq, 0);
	CHECK_EQ(r.h->e->num_eq, 0);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(r.h, &c), 0);
	CHECK_EQ(qh_eq_new(r.h, &r.eq, 4, 2), 0);
	CHECK_EQ(qh_cq_new(r.h, &r.cq, 4, r.eq.eqn), 0);
	CHECK_EQ(qh_qp_new(r.h, &qp, SFAB_QPT_SMI, 4, r.cq.cqn, r.cq.cqn), 0);
	CHECK_EQ(qp.qpn, 0);
	host_free(r.h);
}

static uint64_t fz_state = 0x9e3779b97f4a7c15ULL;

static uint64_t fz(void)
{
	fz_state ^= fz_state << 13;
	fz_state ^= fz_state >> 7;
	fz_state ^= fz_state << 17;
	return fz_state;
}

/*
 * Garbage in the rings, random doorbells and random admin commands on
 * live queues: every bad WQE completes or is ignored, nothing crashes
 * (the sanitizers watch), the device never goes fatal.
 */
TEST(garbage_rings)
{
	struct rig r;
	struct qh_qp qp[3];
	unsigned int i, k;

	rig_up(&r);
	REQUIRE(qh_qp_new(r.h, &qp[0], SFAB_QPT_UD, 4, r.cq.cqn, r.cq.cqn) == 0);
	REQUIRE(qh_qp_new(r.h, &qp[1], SFAB_QPT_GSI, 4, r.cq.cqn, r.cq.cqn) == 0);
	REQUIRE(qh_qp_new(r.h, &qp[2], SFAB_QPT_SMI, 4, r.cq.cqn, r.cq.cqn) == 0);
	for (k = 0; k < 3; k++)
		REQUIRE(qh_qp_rts(r.h, &qp[k], 7) == 0);
	for (i = 0; i < 3000; i++) {
		struct qh_qp *q = &qp[fz() % 3];
		uint8_t *sq = hp(r.h, q->sq), *rq = hp(r.h, q->rq);
		unsigned int what = fz() % 8;

		for (k = 0; k < 64; k++) {
			uint64_t v = fz();

			/* plausible addresses and lkeys now and then */
			if (!(v & 3))
				v = (v & 0xffff00000000ULL) | QH_LKEY;
			if ((v & 7) == 1)
				v = r.buf + (v >> 52);
			memcpy(sq + ((fz() % (16 * 128 / 8)) * 8), &v, 8);
			memcpy(rq + ((fz() % (16 * 64 / 8)) * 8), &v, 8);
		}
		switch (what) {
		case 0:
		case 1:
		case 2:
			q->sq_pi += fz() % 20;
			qh_qp_db(r.h, q, true);
			break;
		case 3:
			q->rq_pi += fz() % 20;
			qh_qp_db(r.h, q, false);
			break;
		case 4:
			sfab_engine_db_write(r.h->e, fz() % (2 * SFAB_DB_PAGE_SIZE) & ~7ULL,
					     fz(), 8, SFAB_DB_SRC_CPU);
			host_run(r.h);
			break;
		case 5: {
			struct sfab_cqe cqe;

			while (qh_cq_poll(r.h, &r.cq, &cqe))
				;
			break;
		}
		case 6: {
			struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_CQ + fz() % 6);

			for (k = 0; k < sizeof(c.u.raw); k++)
				c.u.raw[k] = fz() % 4 ? 0 : (uint8_t)fz();
			host_cmd(r.h, &c);
			break;
		}
		case 7:
			/* back to RTS after an error (or not, if it went away) */
			if (qh_modify(r.h, q->qpn, M(STATE), SFAB_QPS_RESET, 0) == 0) {
				q->sq_pi = q->rq_pi = 0;
				qh_qp_rts(r.h, q, 7);
			}
			break;
		}
		if (i % 4 == 0) {
			struct sfab_cqe cqe;

			while (qh_cq_poll(r.h, &r.cq, &cqe))
				;
		}
	}
	CHECK(!dev_fatal(r.h));
	CHECK(r.h->e->stats.cqes > 100);
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "garbage: %llu cqes, %llu send errors, %llu ignored doorbells, %llu lost\n",
			(unsigned long long)r.h->e->stats.cqes,
			(unsigned long long)r.h->e->stats.send_errors,
			(unsigned long long)r.h->e->stats.db_ignored,
			(unsigned long long)r.h->e->stats.cqe_lost);
	host_free(r.h);
}
