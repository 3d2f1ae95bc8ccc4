/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/dbrec: doorbell records (SFAB_DEV_CAP_DBREC, sfab_ring.h).  A CQ
 * polled through its record alone (no CQ doorbell): the device reads the
 * record only when its own copy says full, and declares an overrun only
 * when the record agrees; receives posted through an RQ or SRQ record
 * with no doorbell; records the device cannot read (the queue goes to
 * error, the model goes on) or whose index is out of range (ignored);
 * misaligned records refused at create.
 */
#include "harness.h"
#include "rc_pair.h"
#include "ge_check.h"

/* ---- a CQ fed by UD sends that complete at once (no cable) ------------ */

struct rig {
	struct fake_host *h;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp;
	uint64_t buf, rec;
};

static void rig_up(struct rig *r, unsigned int cq_log, uint64_t rec)
{
	struct sfab_aq_cmd c;
	struct sfab_acq_entry cpl;

	r->h = qh_up();
	REQUIRE(qh_eq_new(r->h, &r->eq, 6, 2) == SFAB_AQ_STS_OK);
	memset(&r->cq, 0, sizeof(r->cq));
	r->cq.log = cq_log;
	r->cq.ring = host_alloc(r->h, sizeof(struct sfab_cqe) << cq_log, 4096);
	memset(hp(r->h, r->cq.ring), 0, sizeof(struct sfab_cqe) << cq_log);
	r->rec = rec ? rec : host_alloc(r->h, SFAB_DBREC_SIZE, SFAB_DBREC_ALIGN);
	if (!rec)
		memset(hp(r->h, r->rec), 0, SFAB_DBREC_SIZE);
	c = qh_create_cq_cmd(r->cq.ring, cq_log, r->eq.eqn, 0);
	c.u.create_cq.dbrec_addr = sfab_cpu_to_le64(r->rec);
	REQUIRE(host_cmd_full(r->h, &c, &cpl) == SFAB_AQ_STS_OK);
	r->cq.cqn = sfab_le32_to_cpu(cpl.result0);
	REQUIRE(qh_qp_new(r->h, &r->qp, SFAB_QPT_UD, 6, r->cq.cqn, r->cq.cqn) ==
		SFAB_AQ_STS_OK);
	REQUIRE(qh_qp_rts(r->h, &r->qp, 0x1234) == SFAB_AQ_STS_OK);
	r->buf = host_alloc(r->h, 4096, 4096);
}

static void rig_send(struct rig *r, uint64_t wr_id)
{
	struct qh_send s = {
		.wr_id = wr_id, .opcode = SFAB_WQE_SEND,
		.flags = SFAB_WQE_SIGNALED, .dqpn = 5, .qkey = 0x1234,
		.dlid = 7, .addr = r->buf, .len = 64, .lkey = QH_LKEY,
	};

	qh_post_send(r->h, &r->qp, &s);
	qh_qp_db(r->h, &r->qp, true);
}

/* poll one CQE the way a host with a record does: the record, no doorbell */
static bool rig_poll(struct rig *r, struct sfab_cqe *cqe)
{
	if (!qh_cq_peek(r->h, &r->cq, cqe))
		return false;
	r->cq.ci++;
	sfab_dbrec_set(hp(r->h, r->rec), r->cq.ci);
	return true;
}

static bool cq_error_event(struct fake_host *h, uint32_t cqn)
{
	struct sfab_aenq_entry ev;
	bool seen = false;

	while (host_aenq_poll(h, &ev))
		if (ev.type == SFAB_AENQ_CQ_ERROR &&
		    sfab_le32_to_cpu(ev.data0) == cqn)
			seen = true;
	return seen;
}

/* the contract helpers: the record word and the index rules */
TEST(helpers)
{
	struct sfab_dbrec rec = { 0 };

	sfab_dbrec_set(&rec, 0xbeef);
	CHECK_EQ(sfab_le32_to_cpu(rec.idx), 0xbeef);
	CHECK_EQ(sfab_dbrec_idx(&rec), 0xbeef);
	rec.idx = sfab_cpu_to_le32(0xffff0001);	/* high bits are not the index */
	CHECK_EQ(sfab_dbrec_idx(&rec), 1);
	CHECK(sfab_dbrec_addr_ok(0));
	CHECK(sfab_dbrec_addr_ok(0x1008));
	CHECK(!sfab_dbrec_addr_ok(0x1004));
	/* producer: forward, at most a ring ahead of the consumer */
	CHECK(sfab_dbrec_pi_ok(10, 12, 12, 2));
	CHECK(sfab_dbrec_pi_ok(10, 12, 14, 2));
	CHECK(!sfab_dbrec_pi_ok(10, 12, 15, 2));
	CHECK(!sfab_dbrec_pi_ok(10, 12, 11, 2));
	CHECK(sfab_dbrec_pi_ok(0xfffe, 0xffff, 2, 2));	/* wraps */
	/* consumer: within what was produced */
	CHECK(sfab_dbrec_ci_ok(10, 14, 14));
	CHECK(sfab_dbrec_ci_ok(10, 14, 10));
	CHECK(!sfab_dbrec_ci_ok(10, 14, 15));
	CHECK(!sfab_dbrec_ci_ok(10, 14, 9));
	CHECK_EQ(sfab_dbrec_ring_off(6, 5), 2048);
	CHECK_EQ(sfab_dbrec_buf_len(6, 5), 2048 + 8);
}

/* polling writes only the record; the device reads it only when full */
TEST(cq_overrun_through_record)
{
	struct rig r;
	struct sfab_cqe cqe;
	unsigned int i;

	rig_up(&r, 2, 0);
	/* fill the ring: the device's copy still says empty, no read */
	for (i = 0; i < 4; i++)
		rig_send(&r, 100 + i);
	CHECK_EQ(r.h->e->stats.dbrec_reads, 0);
	REQUIRE(rig_poll(&r, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 100);
	REQUIRE(rig_poll(&r, &cqe));
	/* two more: the first finds the ring full, reads the record (ci 2) */
	rig_send(&r, 104);
	CHECK_EQ(r.h->e->stats.dbrec_reads, 1);
	rig_send(&r, 105);
	CHECK_EQ(r.h->e->stats.dbrec_reads, 1);	/* its copy suffices */
	CHECK_EQ(r.h->e->stats.cq_overruns, 0);
	for (i = 2; i < 6; i++) {
		REQUIRE(rig_poll(&r, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 100 + i);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_SUCCESS);
	}
	CHECK(!rig_poll(&r, &cqe));
	/* 4 more fill it again; nothing consumed: the 5th is an overrun */
	for (i = 0; i < 4; i++)
		rig_send(&r, 200 + i);
	CHECK_EQ(r.h->e->stats.cq_overruns, 0);
	sfab_dbrec_set(hp(r.h, r.rec), r.cq.ci - 1);	/* not forward: ignored */
	ge_mark(r.h);
	rig_send(&r, 204);
	CHECK_EQ(r.h->e->stats.cq_overruns, 1);
	CHECK(r.h->e->cq[r.cq.cqn].err);
	CHECK(cq_error_event(r.h, r.cq.cqn));
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}

/* a record index past what was produced is ignored, with a report */
TEST(cq_record_bogus_index)
{
	struct rig r;
	unsigned int i;

	rig_up(&r, 2, 0);
	for (i = 0; i < 4; i++)
		rig_send(&r, i);
	sfab_dbrec_set(hp(r.h, r.rec), 5);
	ge_mark(r.h);
	rig_send(&r, 4);
	CHECK(r.h->guest_error_sites[SFAB_GE_DBREC] - ge_before[SFAB_GE_DBREC] == 1);
	CHECK_EQ(r.h->e->stats.cq_overruns, 1);
	CHECK_EQ(r.h->e->cq[r.cq.cqn].ci, 0);
	host_free(r.h);
}

/* a record the device cannot read: the CQ in error, the device goes on */
TEST(cq_record_unreadable)
{
	struct rig r;
	unsigned int i;

	rig_up(&r, 2, HOST_MEM_BASE + HOST_MEM_SIZE + 0x1000);
	for (i = 0; i < 4; i++)
		rig_send(&r, i);
	CHECK(!r.h->e->cq[r.cq.cqn].err);
	ge_mark(r.h);
	rig_send(&r, 4);
	ge_said(r.h, SFAB_GE_DBREC, "doorbell record unreadable");
	CHECK(r.h->e->cq[r.cq.cqn].err);
	CHECK_EQ(r.h->e->stats.cq_overruns, 0);
	CHECK(cq_error_event(r.h, r.cq.cqn));
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}

/* arming is a doorbell; one behind the record's index still arms */
TEST(cq_arm_stale_index)
{
	struct rig r;
	struct sfab_cqe cqe;
	unsigned int i;

	rig_up(&r, 2, 0);
	for (i = 0; i < 4; i++)
		rig_send(&r, i);
	for (i = 0; i < 3; i++)
		REQUIRE(rig_poll(&r, &cqe));
	rig_send(&r, 4);		/* full: the device takes ci 3 */
	CHECK_EQ(r.h->e->cq[r.cq.cqn].ci, 3);
	ge_mark(r.h);
	sfab_engine_db_write(r.h->e, SFAB_DB_CQ,
			     sfab_db_val(r.cq.cqn, 1, SFAB_DB_ARM_NEXT), 8,
			     SFAB_DB_SRC_CPU);
	host_run(r.h);
	CHECK_EQ(r.h->guest_error_sites[SFAB_GE_DB_INDEX],
		 ge_before[SFAB_GE_DB_INDEX]);
	CHECK_EQ(r.h->e->cq[r.cq.cqn].ci, 3);
	/* unseen completions at arming: the event at once */
	CHECK_EQ(r.h->e->cq[r.cq.cqn].arm, SFAB_DB_ARM_NONE);
	CHECK_EQ(r.h->e->stats.eqes, 1);
	host_free(r.h);
}

/* ---- create-time checks ------------------------------------------------- */

TEST(create_checks)
{
	struct fake_host *h = qh_up();
	uint64_t ring = host_alloc(h, 4096, 4096);
	uint64_t rec = host_alloc(h, 64, 64);
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp, sqp;
	struct qh_srq srq;
	struct sfab_aq_cmd c;

	REQUIRE(qh_eq_new(h, &eq, 4, 2) == SFAB_AQ_STS_OK);
	c = qh_create_cq_cmd(ring, 4, eq.eqn, 0);
	c.u.create_cq.dbrec_addr = sfab_cpu_to_le64(rec + 4);
	ge_mark(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, SFAB_GE_CQ_PARAM, "dbrec_addr");
	c.u.create_cq.dbrec_addr = sfab_cpu_to_le64(rec + 8);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);

	c = cmd_new(SFAB_AQ_CREATE_SRQ);
	qh_ring_desc(&c.u.create_srq.ring, ring, 4, 6);
	c.u.create_srq.pdn = sfab_cpu_to_le32(1);
	c.u.create_srq.dbrec_addr = sfab_cpu_to_le64(rec + 1);
	ge_mark(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, SFAB_GE_SRQ_PARAM, "dbrec_addr");
	c.u.create_srq.dbrec_addr = sfab_cpu_to_le64(rec + 16);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);

	REQUIRE(qh_cq_new(h, &cq, 6, eq.eqn) == SFAB_AQ_STS_OK);
	REQUIRE(qh_qp_new(h, &qp, SFAB_QPT_UD, 4, cq.cqn, cq.cqn) == 0);
	ge_mark(h);
	c = qh_set_qp_dbrec_cmd(qp.qpn, rec + 2, 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, SFAB_GE_QP_PARAM, "aligned");
	c = qh_set_qp_dbrec_cmd(qp.qpn, 0, rec + 12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_set_qp_dbrec_cmd(qp.qpn + 1, rec, rec + 8);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_set_qp_dbrec_cmd(qp.qpn, rec, rec + 8);
	c.u.set_qp_dbrec.reserved = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_set_qp_dbrec_cmd(qp.qpn, rec, rec + 8);
	c.u.raw[30] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_set_qp_dbrec_cmd(qp.qpn, rec, rec + 8);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(h->e->qp[qp.qpn].rq_dbrec, rec + 8);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);	/* again, in RESET */
	/* only in RESET */
	REQUIRE(qh_qp_rts(h, &qp, 0x1234) == 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	/* an SRQ QP has no RQ record */
	REQUIRE(qh_srq_new(h, &srq, 4, 1, 0) == 0);
	REQUIRE(qh_qp_new_ex(h, &sqp, SFAB_QPT_RC, 4, 6, cq.cqn, cq.cqn,
			     SFAB_QP_SRQ, 1, srq.srqn) == 0);
	c = qh_set_qp_dbrec_cmd(sqp.qpn, rec, rec + 8);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_set_qp_dbrec_cmd(sqp.qpn, rec, 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK(!dev_fatal(h));
	host_free(h);
}

/* ---- receives through the RQ / SRQ record -------------------------------- */

static struct sfab_cqe rcv;

static bool node1_recv_cqe(void)
{
	while (rp_poll(1, &rcv))
		if (sfab_cqe_is_recv(&rcv))
			return true;
	return false;
}

/* b[0] on node 0 -> b[1] on node 1, b[1] with an RQ record at @rec */
static void pair_with_rq_record(struct qh_qp b[2], uint64_t rec)
{
	struct sfab_aq_cmd c;
	unsigned int i;

	for (i = 0; i < 2; i++)
		REQUIRE(qh_qp_new_ex(RP[i].h, &b[i], SFAB_QPT_RC, 6, 8,
				     RP[i].cq.cqn, RP[i].cq.cqn, 0, RP_PD, 0) == 0);
	c = qh_set_qp_dbrec_cmd(b[1].qpn, 0, rec);
	REQUIRE(host_cmd(RP[1].h, &c) == SFAB_AQ_STS_OK);
	for (i = 0; i < 2; i++) {
		struct qh_conn k = {
			.dest_qpn = b[!i].qpn,
			.access = RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE,
			.dlid = i ? RP_LID0 : RP_LID1,
			.mtu = 1, .timeout = 14, .retry_cnt = 1, .rnr_retry = 1,
			.max_rd_atomic = 4, .max_dest_rd_atomic = 4,
		};

		REQUIRE(qh_qp_connect(RP[i].h, &b[i], &k) == 0);
	}
}

static void send_one(struct qh_qp *qp, uint64_t wr_id)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_SEND, wr_id, 0, 0, 100);

	qh_post_rc(RP[0].h, qp, &s);
	qh_qp_db(RP[0].h, qp, true);
	rp_pump();
}

TEST(rq_through_record)
{
	struct rp_cfg cfg = { 0 };
	struct qh_qp b[2];
	uint64_t rec;
	uint64_t db_before;

	rp_up(&cfg);
	rec = host_alloc(RP[1].h, SFAB_DBREC_SIZE, SFAB_DBREC_ALIGN);
	memset(hp(RP[1].h, rec), 0, SFAB_DBREC_SIZE);
	pair_with_rq_record(b, rec);
	/* posted through the record only: no RQ doorbell */
	db_before = RP[1].h->e->stats.db_writes;
	qh_post_recv(RP[1].h, &b[1], 77, RP[1].mem + 4096, 200, RP[1].key);
	sfab_dbrec_set(hp(RP[1].h, rec), b[1].rq_pi);
	CHECK_EQ(RP[1].h->e->stats.dbrec_reads, 0);
	send_one(&b[0], 1);
	CHECK_EQ(RP[1].h->e->stats.db_writes, db_before);
	REQUIRE(node1_recv_cqe());
	CHECK_EQ(sfab_le64_to_cpu(rcv.wr_id), 77);
	CHECK_EQ(rcv.status, SFAB_CQE_STS_SUCCESS);
	CHECK_EQ(sfab_le32_to_cpu(rcv.byte_len), 100);
	CHECK_EQ(RP[1].h->e->stats.dbrec_reads, 1);
	/* two posted, the record says so: the second is read from the copy */
	qh_post_recv(RP[1].h, &b[1], 78, RP[1].mem + 4096, 200, RP[1].key);
	qh_post_recv(RP[1].h, &b[1], 79, RP[1].mem + 4096, 200, RP[1].key);
	sfab_dbrec_set(hp(RP[1].h, rec), b[1].rq_pi);
	send_one(&b[0], 2);
	send_one(&b[0], 3);
	REQUIRE(node1_recv_cqe());
	CHECK_EQ(sfab_le64_to_cpu(rcv.wr_id), 78);
	REQUIRE(node1_recv_cqe());
	CHECK_EQ(sfab_le64_to_cpu(rcv.wr_id), 79);
	CHECK_EQ(RP[1].h->e->stats.dbrec_reads, 2);
	/* a doorbell behind the device's copy is stale, not an error */
	ge_mark(RP[1].h);
	sfab_engine_db_write(RP[1].h->e, SFAB_DB_RQ,
			     sfab_db_val(b[1].qpn, b[1].rq_pi - 1, 0), 8,
			     SFAB_DB_SRC_CPU);
	host_run(RP[1].h);
	CHECK_EQ(RP[1].h->e->qp[b[1].qpn].state, SFAB_QPS_RTS);
	CHECK_EQ(RP[1].h->guest_error_sites[SFAB_GE_DB_INDEX],
		 ge_before[SFAB_GE_DB_INDEX]);
	/* an index more than a ring ahead: ignored, reported; nothing taken */
	sfab_dbrec_set(hp(RP[1].h, rec), b[1].rq_pi + 300);
	ge_mark(RP[1].h);
	send_one(&b[0], 4);
	CHECK(RP[1].h->guest_error_sites[SFAB_GE_DBREC] > ge_before[SFAB_GE_DBREC]);
	CHECK_EQ(RP[1].h->e->qp[b[1].qpn].rq_pi, b[1].rq_pi);
	CHECK(!node1_recv_cqe());
	rp_down();
}

/* an RQ record the device cannot read: the QP to Error, a FATAL event */
TEST(rq_record_unreadable)
{
	struct rp_cfg cfg = { 0 };
	struct sfab_aenq_entry ev;
	struct qh_qp b[2];
	bool fatal = false;

	rp_up(&cfg);
	pair_with_rq_record(b, HOST_MEM_BASE + HOST_MEM_SIZE + 0x2000);
	while (host_aenq_poll(RP[1].h, &ev))
		;
	ge_mark(RP[1].h);
	send_one(&b[0], 1);
	/* once, though the move to Error flushes and would read it again */
	ge_said(RP[1].h, SFAB_GE_DBREC, "RQ doorbell record unreadable");
	CHECK_EQ(RP[1].h->e->qp[b[1].qpn].state, SFAB_QPS_ERR);
	while (host_aenq_poll(RP[1].h, &ev))
		if (ev.type == SFAB_AENQ_QP_EVENT &&
		    sfab_le32_to_cpu(ev.data0) == b[1].qpn &&
		    sfab_le64_to_cpu(ev.data1) == SFAB_QP_EV_FATAL)
			fatal = true;
	CHECK(fatal);
	CHECK(!dev_fatal(RP[1].h));
	rp_down();
}

/* an SRQ record: receives without the SRQ doorbell; unreadable: SRQ error */
static uint64_t srq_rec;

static void srq_wqe(struct qh_srq *srq, uint64_t wr_id)
{
	uint8_t *w = hp(RP[1].h, srq->ring + ((srq->pi & ((1U << srq->log) - 1)) << 6));
	struct sfab_rwqe_ctrl rc;
	struct sfab_sge sge;

	memset(&rc, 0, sizeof(rc));
	rc.wr_id = sfab_cpu_to_le64(wr_id);
	rc.num_sge = 1;
	sge.addr = sfab_cpu_to_le64(RP[1].mem + 8192);
	sge.length = sfab_cpu_to_le32(200);
	sge.lkey = sfab_cpu_to_le32(RP[1].key);
	memcpy(w, &rc, sizeof(rc));
	memcpy(w + 16, &sge, sizeof(sge));
	srq->pi++;
	sfab_dbrec_set(hp(RP[1].h, srq_rec), srq->pi);
}

static void srq_pair(struct qh_srq *srq, struct qh_qp b[2], uint64_t rec)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_SRQ);
	struct sfab_acq_entry cpl;
	unsigned int i;

	memset(srq, 0, sizeof(*srq));
	srq->log = 4;
	srq->ring = host_alloc(RP[1].h, 64U << 4, 4096);
	qh_ring_desc(&c.u.create_srq.ring, srq->ring, 4, 6);
	c.u.create_srq.pdn = sfab_cpu_to_le32(RP_PD);
	c.u.create_srq.dbrec_addr = sfab_cpu_to_le64(rec);
	REQUIRE(host_cmd_full(RP[1].h, &c, &cpl) == SFAB_AQ_STS_OK);
	srq->srqn = sfab_le32_to_cpu(cpl.result0);
	for (i = 0; i < 2; i++)
		REQUIRE(qh_qp_new_ex(RP[i].h, &b[i], SFAB_QPT_RC, 6, 8,
				     RP[i].cq.cqn, RP[i].cq.cqn,
				     i ? SFAB_QP_SRQ : 0, RP_PD,
				     i ? srq->srqn : 0) == 0);
	for (i = 0; i < 2; i++) {
		struct qh_conn k = {
			.dest_qpn = b[!i].qpn,
			.access = RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE,
			.dlid = i ? RP_LID0 : RP_LID1,
			.mtu = 1, .timeout = 14, .retry_cnt = 1, .rnr_retry = 1,
			.max_rd_atomic = 4, .max_dest_rd_atomic = 4,
		};

		REQUIRE(qh_qp_connect(RP[i].h, &b[i], &k) == 0);
	}
}

TEST(srq_through_record)
{
	struct rp_cfg cfg = { 0 };
	struct qh_srq srq;
	struct qh_qp b[2];

	rp_up(&cfg);
	srq_rec = host_alloc(RP[1].h, SFAB_DBREC_SIZE, SFAB_DBREC_ALIGN);
	memset(hp(RP[1].h, srq_rec), 0, SFAB_DBREC_SIZE);
	srq_pair(&srq, b, srq_rec);
	srq_wqe(&srq, 55);
	send_one(&b[0], 1);
	REQUIRE(node1_recv_cqe());
	CHECK_EQ(sfab_le64_to_cpu(rcv.wr_id), 55);
	CHECK_EQ(rcv.status, SFAB_CQE_STS_SUCCESS);
	CHECK_EQ(RP[1].h->e->srq[srq.srqn].pi, 1);
	rp_down();
}

TEST(srq_record_unreadable)
{
	struct rp_cfg cfg = { 0 };
	struct sfab_aenq_entry ev;
	struct qh_srq srq;
	struct qh_qp b[2];
	bool err = false;

	rp_up(&cfg);
	srq_pair(&srq, b, HOST_MEM_BASE + HOST_MEM_SIZE + 0x3000);
	ge_mark(RP[1].h);
	send_one(&b[0], 1);
	ge_said(RP[1].h, SFAB_GE_DBREC, "doorbell record unreadable");
	CHECK(RP[1].h->e->srq[srq.srqn].err);
	while (host_aenq_poll(RP[1].h, &ev))
		if (ev.type == SFAB_AENQ_SRQ_EVENT &&
		    sfab_le32_to_cpu(ev.data0) == srq.srqn &&
		    sfab_le64_to_cpu(ev.data1) == SFAB_SRQ_EV_ERR)
			err = true;
	CHECK(err);
	CHECK(!dev_fatal(RP[1].h));
	rp_down();
}

