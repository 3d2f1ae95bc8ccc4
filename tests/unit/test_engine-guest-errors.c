/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-guest-errors: every kind of guest mistake reaches the
 * guest_error hook once, under its own site (enum sfab_guest_err), the
 * way QEMU logs it (LOG_GUEST_ERROR) and traces it (sfab_guest_error):
 * doorbells (bad size, no such object, an RC QP in RESET, an index past the
 * ring), the admin doorbell, admin command fields (CREATE_MR's own site,
 * DESTROY_CQ's the generic one), a UD send WQE with a bad opcode, an RC
 * WQE with an opcode a UC QP does not have, a REG_MR WQE on a user QP,
 * a receive WQE with more SGEs than its stride holds and MR page lists
 * (a misaligned entry, a list DMA cannot read).  Each
 * case checks the per-site counts moved by exactly the expected amounts
 * and no other site moved.
 */
#include "harness.h"
#include "rc_pair.h"
#include "ge_check.h"

/*
 * Since ge_mark(): each site moved by exactly want[site].  A site that did
 * not report, or reported under another site, fails.
 */
static void ge_expect_v(struct fake_host *h, const unsigned long *want)
{
	unsigned int i;

	for (i = 0; i < SFAB_GE__COUNT; i++) {
		unsigned long d = h->guest_error_sites[i] - ge_before[i];

		CHECK_EQ(d, want[i]);
		if (d != want[i])
			fprintf(stderr, "  site %s: %lu reports, want %lu\n",
				sfab_engine_guest_error_site_name(i), d,
				want[i]);
	}
}

/* since ge_mark(): @n reports at @site, none elsewhere */
static void ge_expect(struct fake_host *h, enum sfab_guest_err site,
		      unsigned long n)
{
	unsigned long want[SFAB_GE__COUNT] = { 0 };

	want[site] = n;
	ge_expect_v(h, want);
}

static void db(struct fake_host *h, unsigned int page, unsigned int reg,
	       uint32_t num, uint16_t idx, unsigned int size)
{
	sfab_engine_db_write(h->e, (uint64_t)page * SFAB_DB_PAGE_SIZE + reg,
			     sfab_db_val(num, idx, 0), size, SFAB_DB_SRC_CPU);
	host_run(h);
}

TEST(site_names_distinct)
{
	unsigned int i, j;

	for (i = 0; i < SFAB_GE__COUNT; i++) {
		CHECK(strcmp(sfab_engine_guest_error_site_name(i), "unknown"));
		for (j = 0; j < i; j++)
			CHECK(strcmp(sfab_engine_guest_error_site_name(i),
				     sfab_engine_guest_error_site_name(j)));
	}
	CHECK(!strcmp(sfab_engine_guest_error_site_name(SFAB_GE__COUNT),
		      "unknown"));
	CHECK(!strcmp(sfab_engine_guest_error_site_name(SFAB_GE_MR_PAGE_LIST),
		      "mr-page-list"));
}

TEST(doorbells)
{
	struct fake_host *h = qh_up();
	struct qh_eq eq;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	struct qh_cq cq;
	struct qh_qp qp;

	REQUIRE(qh_eq_new(h, &eq, 6, 2) == 0);
	REQUIRE(qh_cq_new(h, &cq, 6, eq.eqn) == 0);
	REQUIRE(qh_qp_new_ex(h, &qp, SFAB_QPT_RC, 4, 7, cq.cqn, cq.cqn, 0, 1,
			     0) == 0);

	/* a 4-byte doorbell */
	ge_mark(h);
	db(h, 0, SFAB_DB_CQ, cq.cqn, 0, 4);
	ge_expect(h, SFAB_GE_DB_ACCESS, 1);

	/* a CQ that does not exist */
	ge_mark(h);
	db(h, 0, SFAB_DB_CQ, 999, 0, 8);
	ge_expect(h, SFAB_GE_DB_OBJECT, 1);
	CHECK(strstr(h->last_error, "CQ doorbell for 999 on page 0"));

	/* an RC WQE on a QP still in RESET: refused at its doorbell */
	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_SEND;
	s.flags = SFAB_WQE_SIGNALED;
	ge_mark(h);
	qh_post_rc(h, &qp, &s);
	db(h, qp.db_page, SFAB_DB_SQ, qp.qpn, qp.sq_pi, 8);
	ge_expect(h, SFAB_GE_DB_QP_STATE, 1);
	CHECK(strstr(h->last_error, "RESET"));
	CHECK(!qh_cq_peek(h, &cq, &cqe));	/* nothing of it ran */

	/* a CQ consumer index past what the device produced */
	ge_mark(h);
	db(h, cq.db_page, SFAB_DB_CQ, cq.cqn, 5, 8);
	ge_expect(h, SFAB_GE_DB_INDEX, 1);

	/* the admin doorbell two rings ahead of the device */
	ge_mark(h);
	wr(h, SFAB_REG_AQ_DB, (h->aq_tail + (2U << h->aq_log)) & 0xffff);
	{
		/* ... which also takes the device fatal, said once */
		unsigned long want[SFAB_GE__COUNT] = {
			[SFAB_GE_AQ_DB] = 1,
			[SFAB_GE_FATAL] = 1,
		};

		ge_expect_v(h, want);
	}
	CHECK(dev_fatal(h));
	host_free(h);
}

TEST(admin_command_fields)
{
	struct fake_host *h = qh_up();
	struct sfab_aq_cmd c;
	uint64_t page = host_alloc(h, 4096, 4096);

	/* CREATE_MR with an access bit that does not exist: its own site */
	ge_mark(h);
	CHECK_EQ(qh_mr_new(h, page, 4096, &page, 1, 12, 1, 1U << 30, NULL),
		 SFAB_AQ_STS_BAD_PARAM);
	ge_expect(h, SFAB_GE_MR_PARAM, 1);
	CHECK(strstr(h->last_error, "access 0x40000000"));

	/* DESTROY_CQ of a CQ never made: the generic admin site */
	ge_mark(h);
	c = cmd_new(SFAB_AQ_DESTROY_CQ);
	c.u.destroy_cq.cqn = sfab_cpu_to_le32(77);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_expect(h, SFAB_GE_ADMIN_CMD, 1);
	host_free(h);
}

TEST(mr_page_list)
{
	struct fake_host *h = qh_up();
	uint64_t pages[2];

	pages[0] = host_alloc(h, 2 * 4096, 4096);
	pages[1] = pages[0] + 4096 + 8;		/* not page aligned */
	ge_mark(h);
	CHECK_EQ(qh_mr_new(h, pages[0], 2 * 4096, pages, 2, 12, 1,
			   SFAB_ACCESS_LOCAL_WRITE, NULL),
		 SFAB_AQ_STS_BAD_PARAM);
	ge_expect(h, SFAB_GE_MR_PAGE_LIST, 1);
	CHECK(strstr(h->last_error, "entry 1"));

	/* a page list DMA cannot read */
	pages[1] = pages[0] + 4096;
	h->fail_lo = h->scratch + 2048;
	h->fail_hi = h->scratch + 4096;
	ge_mark(h);
	CHECK_EQ(qh_mr_new(h, pages[0], 2 * 4096, pages, 2, 12, 1,
			   SFAB_ACCESS_LOCAL_WRITE, NULL),
		 SFAB_AQ_STS_BAD_PARAM);
	ge_expect(h, SFAB_GE_MR_PAGE_LIST, 1);
	CHECK(strstr(h->last_error, "DMA read"));
	h->fail_lo = h->fail_hi = 0;
	host_free(h);
}

TEST(ud_wqe_opcode)
{
	struct fake_host *h = qh_up();
	struct qh_send s;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp;

	REQUIRE(qh_eq_new(h, &eq, 6, 2) == 0);
	REQUIRE(qh_cq_new(h, &cq, 6, eq.eqn) == 0);
	REQUIRE(qh_qp_new(h, &qp, SFAB_QPT_UD, 4, cq.cqn, cq.cqn) == 0);
	REQUIRE(qh_qp_rts(h, &qp, 0x1234) == 0);

	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_RDMA_WRITE;		/* not a UD opcode */
	s.flags = SFAB_WQE_SIGNALED;
	s.wr_id = 5;
	s.len = 0;
	s.lkey = QH_LKEY;
	ge_mark(h);
	qh_post_send(h, &qp, &s);
	qh_qp_db(h, &qp, true);
	ge_expect(h, SFAB_GE_WQE_OPCODE, 1);
	host_free(h);
}

TEST(rc_wqe_opcode_on_uc)
{
	struct rp_cfg cfg = { .type = SFAB_QPT_UC };
	struct qh_rc_send s;

	rp_up(&cfg);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 9, 0, 0, 64);	/* RC only */
	ge_mark(RP[0].h);
	rp_post(0, &s);
	rp_pump();
	ge_expect(RP[0].h, SFAB_GE_RC_WQE_OPCODE, 1);
	CHECK(strstr(RP[0].h->last_error, "opcode 0x"));
	rp_down();
}

TEST(reg_mr_on_user_qp)
{
	struct rp_cfg cfg = { 0 };
	struct qh_rc_send s;

	rp_up(&cfg);
	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_REG_MR;
	s.flags = SFAB_WQE_SIGNALED;
	s.reg.key = sfab_cpu_to_le32(RP[0].key);
	s.reg.npages = sfab_cpu_to_le32(1);
	s.reg.page_shift = 12;
	s.reg.length = sfab_cpu_to_le64(4096);
	ge_mark(RP[0].h);
	rp_post(0, &s);
	rp_pump();
	ge_expect(RP[0].h, SFAB_GE_MR_FAST_REG, 1);
	CHECK(strstr(RP[0].h->last_error, "user QP"));
	rp_down();
}

TEST(recv_wqe_too_many_sges)
{
	struct rp_cfg cfg = { 0 };
	struct qh_rc_send s;
	struct qh_qp *qp;
	uint8_t *w;

	rp_up(&cfg);
	qp = &RP[1].qp;
	/* a receive whose SGE count does not fit its 64-byte stride */
	w = hp(RP[1].h, qp->rq + ((qp->rq_pi & ((1U << qp->rq_log) - 1))
				  << qp->rq_slog));
	qh_post_recv(RP[1].h, qp, 3, RP[1].mem, 64, RP[1].key);
	w[offsetof(struct sfab_rwqe_ctrl, num_sge)] = 200;
	qh_qp_db(RP[1].h, qp, false);
	s = rp_wqe(SFAB_WQE_SEND, 4, 0, 0, 64);
	ge_mark(RP[1].h);
	rp_post(0, &s);
	rp_pump();
	ge_expect(RP[1].h, SFAB_GE_RECV_WQE, 1);
	CHECK(strstr(RP[1].h->last_error, "num_sge 200"));
	rp_down();
}
