/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-flush-bound: a QP in Error completes its outstanding WQEs with
 * WR_FLUSH_ERR a few at a time, like sends, not all in the event that
 * asks for it.  A doorbell that posts 32768 send WQEs (or receive WQEs) to
 * a QP in Error, and a MODIFY_QP to Error with 32768 send WQEs posted,
 * write no CQE in the doorbell or the command itself and at most
 * SFAB_ENGINE_QP_QUOTA per sfab_engine_process(); every WQE is flushed in
 * the end, in order, with its wr_id and SQ index.
 */
#include "harness.h"
#include "qp_host.h"

#define LOG	15
#define N	(1U << LOG)

struct big {
	struct fake_host *h;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp;
};

/* a host whose firmware allows 2^15-entry work queues */
static bool big_up(struct big *b, unsigned int sq_log, unsigned int rq_log)
{
	struct sfab_fw_profile p;
	struct sfab_acq_entry cpl;
	struct sfab_aq_cmd c;

	memset(b, 0, sizeof(*b));
	b->h = host_up(5);
	host_setup_aenq(b->h, 6);
	fw_profile_default(&p);
	p.max_qp_wr = sfab_cpu_to_le32(N);
	if (host_fw_load_kind(b->h, FW_GOOD, &p) != SFAB_AQ_STS_OK)
		return false;
	c = cmd_init_hca(12);
	if (host_cmd(b->h, &c) != SFAB_AQ_STS_OK ||
	    qh_eq_new(b->h, &b->eq, 4, 2) ||
	    qh_cq_new(b->h, &b->cq, LOG, b->eq.eqn))
		return false;
	/* a UD QP: SQ stride 64, RQ stride 32 (the smallest) */
	b->qp.type = SFAB_QPT_UD;
	b->qp.sq_log = sq_log;
	b->qp.rq_log = rq_log;
	b->qp.sq_slog = 6;
	b->qp.rq_slog = 5;
	b->qp.sq = host_alloc(b->h, (size_t)64 << sq_log, 4096);
	b->qp.rq = host_alloc(b->h, (size_t)32 << rq_log, 4096);
	c = qh_create_qp_cmd(&b->qp, b->cq.cqn, b->cq.cqn, 0, SFAB_QP_PRIV);
	if (host_cmd_full(b->h, &c, &cpl) != SFAB_AQ_STS_OK)
		return false;
	b->qp.qpn = sfab_le32_to_cpu(cpl.result0);
	return true;
}

/* @n WQEs with wr_id 1..n in the SQ or RQ ring (no doorbell) */
static void fill(struct big *b, bool sq, unsigned int n)
{
	uint64_t ring = sq ? b->qp.sq : b->qp.rq;
	unsigned int slog = sq ? b->qp.sq_slog : b->qp.rq_slog;
	unsigned int i;

	memset(hp(b->h, ring), 0, (size_t)n << slog);
	for (i = 0; i < n; i++) {
		uint64_t id = sfab_cpu_to_le64(i + 1);

		if (sq) {
			struct sfab_wqe_ctrl *w = hp(b->h, ring + ((uint64_t)i << slog));

			w->opcode = SFAB_WQE_SEND;
			memcpy(&w->wr_id, &id, 8);
		} else {
			struct sfab_rwqe_ctrl *w = hp(b->h, ring + ((uint64_t)i << slog));

			memcpy(&w->wr_id, &id, 8);
		}
	}
}

static void db(struct big *b, bool sq, uint16_t idx)
{
	sfab_engine_db_write(b->h->e, b->qp.db_page * SFAB_DB_PAGE_SIZE +
			     (sq ? SFAB_DB_SQ : SFAB_DB_RQ),
			     (uint64_t)idx << 32 | b->qp.qpn, 8,
			     SFAB_DB_SRC_CPU);
}

/*
 * Run the engine one sfab_engine_process() at a time until it is idle:
 * no call may write more than the quota; then all @n CQEs are there,
 * flushed, in order.  @first: CQEs the event itself wrote.
 */
static void drain_and_check(struct big *b, bool sq, unsigned int n,
			    uint64_t first)
{
	struct sfab_engine *e = b->h->e;
	uint64_t before, most = first, calls = 0;
	struct sfab_cqe cqe;
	unsigned int i;

	while (sfab_engine_work_pending(e) && calls < 4 * N) {
		before = e->stats.cqes;
		sfab_engine_process(e);
		if (e->stats.cqes - before > most)
			most = e->stats.cqes - before;
		calls++;
	}
	CHECK(!sfab_engine_work_pending(e));
	CHECK_EQ(first, 0);
	CHECK(most <= SFAB_ENGINE_QP_QUOTA);
	if (most > SFAB_ENGINE_QP_QUOTA)
		fprintf(stderr, "  one event or step wrote %llu CQEs\n",
			(unsigned long long)most);
	CHECK(calls >= n / SFAB_ENGINE_QP_QUOTA);
	CHECK_EQ(e->stats.cqes, n);
	CHECK_EQ(e->stats.cqe_lost, 0);
	for (i = 0; i < n; i++) {
		if (!qh_cq_peek(b->h, &b->cq, &cqe)) {
			CHECK_EQ(i, n);
			break;
		}
		b->cq.ci++;
		if (cqe.status != SFAB_CQE_STS_WR_FLUSH_ERR ||
		    sfab_le64_to_cpu(cqe.wr_id) != i + 1 ||
		    cqe_op(&cqe) != (sq ? SFAB_CQE_SEND : SFAB_CQE_RECV) ||
		    (sq && sfab_cqe_wqe_index(&cqe) != (uint16_t)i)) {
			CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
			CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), i + 1);
			CHECK_EQ(cqe_op(&cqe), sq ? SFAB_CQE_SEND : SFAB_CQE_RECV);
			if (sq)
				CHECK_EQ(sfab_cqe_wqe_index(&cqe), (uint16_t)i);
			break;
		}
	}
	CHECK(!qh_cq_peek(b->h, &b->cq, &cqe));
}

static void to_error(struct big *b)
{
	REQUIRE(qh_qp_rts(b->h, &b->qp, 0x11111111) == 0);
	REQUIRE(qh_modify(b->h, b->qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_ERR, 0) == 0);
}

TEST(sq_doorbell_in_error)
{
	struct big b;
	uint64_t before;

	REQUIRE(big_up(&b, LOG, 2));
	to_error(&b);
	REQUIRE(b.h->e->stats.cqes == 0);
	fill(&b, true, N);
	before = b.h->e->stats.cqes;
	db(&b, true, (uint16_t)N);
	drain_and_check(&b, true, N, b.h->e->stats.cqes - before);
	host_free(b.h);
}

TEST(rq_doorbell_in_error)
{
	struct big b;
	uint64_t before;

	REQUIRE(big_up(&b, 2, LOG));
	to_error(&b);
	REQUIRE(b.h->e->stats.cqes == 0);
	fill(&b, false, N);
	before = b.h->e->stats.cqes;
	db(&b, false, (uint16_t)N);
	drain_and_check(&b, false, N, b.h->e->stats.cqes - before);
	host_free(b.h);
}

/*
 * Sends posted in Init wait for RTS; MODIFY_QP to Error flushes them.
 * The command runs in one sfab_engine_process(), which may write the
 * quota and no more.
 */
TEST(modify_to_error)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_acq_entry cpl;
	struct big b;
	uint64_t before;

	REQUIRE(big_up(&b, LOG, 2));
	REQUIRE(qh_modify(b.h, b.qp.qpn, SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_PKEY_INDEX |
			  SFAB_QP_ATTR_QKEY | SFAB_QP_ATTR_PORT, SFAB_QPS_INIT, 1) == 0);
	fill(&b, true, N);
	db(&b, true, (uint16_t)N);
	REQUIRE(b.h->e->stats.cqes == 0);
	c.u.modify_qp.qpn = sfab_cpu_to_le32(b.qp.qpn);
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE);
	c.u.modify_qp.state = SFAB_QPS_ERR;
	host_post(b.h, &c);
	/* the AQ doorbell, without the fake host's run-until-idle */
	sfab_engine_reg_write(b.h->e, SFAB_REG_AQ_DB, b.h->aq_tail);
	before = b.h->e->stats.cqes;
	CHECK_EQ(sfab_engine_process(b.h->e), 1);
	REQUIRE(host_poll(b.h, &cpl));
	CHECK_EQ(cpl.status, SFAB_AQ_STS_OK);
	/* the command's own process() call counts as a step */
	CHECK(b.h->e->stats.cqes - before <= SFAB_ENGINE_QP_QUOTA);
	drain_and_check(&b, true, N, 0);
	host_free(b.h);
}
