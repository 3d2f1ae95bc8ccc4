/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-cq: CREATE_CQ / DESTROY_CQ parameter checks, CQE phase over
 * several passes (contiguous and page-list rings), arming and completion
 * events, CQ overrun, a full EQ and RESIZE_CQ (outstanding CQEs moved to
 * the new ring's start, what it refuses leaving the CQ as it was).  CQEs
 * come from a UD QP whose sends
 * complete at once (the port has no cable: IBA UD drops them silently).
 */
#include "harness.h"
#include "qp_host.h"

struct rig {
	struct fake_host *h;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp;
	uint64_t buf;
};

static void rig_up(struct rig *r, unsigned int cq_log, unsigned int eq_log)
{
	r->h = qh_up();
	CHECK_EQ(qh_eq_new(r->h, &r->eq, eq_log, 2), SFAB_AQ_STS_OK);
	CHECK_EQ(qh_cq_new(r->h, &r->cq, cq_log, r->eq.eqn), SFAB_AQ_STS_OK);
	CHECK_EQ(qh_qp_new(r->h, &r->qp, SFAB_QPT_UD, 6, r->cq.cqn, r->cq.cqn),
		 SFAB_AQ_STS_OK);
	CHECK_EQ(qh_qp_rts(r->h, &r->qp, 0x1234), SFAB_AQ_STS_OK);
	r->buf = host_alloc(r->h, 4096, 4096);
}

/* one signaled send (@lkey: good or not); returns nothing */
static void rig_send(struct rig *r, uint64_t wr_id, uint32_t lkey)
{
	struct qh_send s = {
		.wr_id = wr_id, .opcode = SFAB_WQE_SEND,
		.flags = SFAB_WQE_SIGNALED, .dqpn = 5, .qkey = 0x1234,
		.dlid = 7, .addr = r->buf, .len = 64, .lkey = lkey,
	};

	qh_post_send(r->h, &r->qp, &s);
	qh_qp_db(r->h, &r->qp, true);
}

TEST(create_destroy_checks)
{
	struct fake_host *h = qh_up();
	struct qh_eq eq;
	struct sfab_aq_cmd c;
	uint64_t ring = host_alloc(h, 32 << 8, 4096);
	uint64_t list = host_alloc(h, 64, 64);
	uint64_t *pages = hp(h, list);
	struct sfab_acq_entry cpl;
	uint32_t cqn;

	CHECK_EQ(qh_eq_new(h, &eq, 4, 2), SFAB_AQ_STS_OK);

	c = qh_create_cq_cmd(ring, 8, eq.eqn, 0);
	c.u.create_cq.ring.log_stride = 6;		/* CQEs are 32 bytes */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(ring, 16, eq.eqn, 0);	/* beyond 2^15 */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(0, 8, eq.eqn, 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(ring + 16, 8, eq.eqn, 0);	/* misaligned */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(ring, 8, eq.eqn, 0);
	c.u.create_cq.ring.flags |= 0x80;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(ring, 8, eq.eqn, 0);
	c.u.create_cq.ring.npages = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(ring, 8, eq.eqn + 1, 0);	/* no such EQ */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(ring, 8, eq.eqn, SFAB_DB_NUM_PAGES);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(ring, 8, eq.eqn, 0);
	c.u.create_cq.reserved0 = sfab_cpu_to_le16(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = qh_create_cq_cmd(ring, 8, eq.eqn, 0);
	c.u.raw[40] = 1;				/* past the structure */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);

	/* page lists: page size range and exactly the pages needed */
	pages[0] = sfab_cpu_to_le64(ring);
	pages[1] = sfab_cpu_to_le64(ring + 4096);
	c = qh_create_cq_cmd(list, 8, eq.eqn, 0);
	c.u.create_cq.ring.flags = 0;
	c.u.create_cq.ring.page_shift = 12;
	c.u.create_cq.ring.npages = sfab_cpu_to_le32(3);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_cq.ring.npages = sfab_cpu_to_le32(2);
	c.u.create_cq.ring.page_shift = 11;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_cq.ring.page_shift = 12;
	CHECK_EQ(host_cmd_full(h, &c, &cpl), SFAB_AQ_STS_OK);
	cqn = sfab_le32_to_cpu(cpl.result0);
	CHECK_EQ(h->e->num_cq, 1);

	/* an EQ with a CQ on it stays */
	c = cmd_destroy_eq(eq.eqn);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);

	c = cmd_new(SFAB_AQ_DESTROY_CQ);
	c.u.destroy_cq.cqn = sfab_cpu_to_le32(cqn + 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.destroy_cq.cqn = sfab_cpu_to_le32(cqn);
	c.u.destroy_cq.reserved = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.destroy_cq.reserved = 0;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(h->e->num_cq, 0);
	c = cmd_destroy_eq(eq.eqn);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK(!dev_fatal(h));
	host_free(h);
}

TEST(needs_init_hca)
{
	struct fake_host *h = host_up(5);
	struct sfab_aq_cmd c;

	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	c = qh_create_cq_cmd(host_alloc(h, 4096, 4096), 4, 0, 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	c = cmd_new(SFAB_AQ_DESTROY_QP);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	host_free(h);
}

/* the phase bit: 1 on the first pass, flipping every pass */
TEST(phase_passes)
{
	struct rig r;
	struct sfab_cqe cqe;
	unsigned int i;

	rig_up(&r, 2, 4);
	for (i = 0; i < 4 * 3 + 1; i++) {
		rig_send(&r, 100 + i, QH_LKEY);
		REQUIRE(qh_cq_peek(r.h, &r.cq, &cqe));
		CHECK_EQ(cqe.flags & SFAB_CQE_PHASE, ((i / 4) & 1) ? 0 : 1);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 100 + i);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_SUCCESS);
		CHECK_EQ(cqe_op(&cqe), SFAB_CQE_SEND);
		CHECK_EQ(cqe_qpn(&cqe), r.qp.qpn);
		CHECK(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK(!qh_cq_peek(r.h, &r.cq, &cqe));
	}
	CHECK_EQ(r.h->e->stats.cqes, 13);
	CHECK_EQ(r.h->e->stats.send_dropped, 13);	/* no cable */
	host_free(r.h);
}

/* a page-listed CQ over non-adjacent pages */
TEST(phase_page_list)
{
	struct rig r;
	struct sfab_aq_cmd c;
	struct sfab_acq_entry cpl;
	struct sfab_cqe cqe;
	uint64_t p0, p1, list;
	uint64_t *pages;
	unsigned int i;

	rig_up(&r, 2, 4);
	p0 = host_alloc(r.h, 4096, 4096);
	host_alloc(r.h, 4096, 4096);
	p1 = host_alloc(r.h, 4096, 4096);
	list = host_alloc(r.h, 16, 8);
	pages = hp(r.h, list);
	pages[0] = sfab_cpu_to_le64(p1);
	pages[1] = sfab_cpu_to_le64(p0);
	c = qh_create_cq_cmd(list, 8, r.eq.eqn, 0);
	c.u.create_cq.ring.flags = 0;
	c.u.create_cq.ring.page_shift = 12;
	c.u.create_cq.ring.npages = sfab_cpu_to_le32(2);
	REQUIRE(host_cmd_full(r.h, &c, &cpl) == SFAB_AQ_STS_OK);
	/* a second QP completing into it */
	{
		struct qh_qp qp;
		struct qh_cq cq = { .cqn = sfab_le32_to_cpu(cpl.result0), .log = 8 };
		struct qh_send s = {
			.opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
			.dqpn = 5, .qkey = 1, .dlid = 7, .addr = r.buf,
			.len = 8, .lkey = QH_LKEY,
		};

		REQUIRE(qh_qp_new(r.h, &qp, SFAB_QPT_UD, 6, cq.cqn, cq.cqn) == 0);
		REQUIRE(qh_qp_rts(r.h, &qp, 1) == 0);
		for (i = 0; i < 256 + 200; i++) {
			struct sfab_cqe *slot;
			uint64_t at = (i & 255) * 32;

			s.wr_id = i;
			qh_post_send(r.h, &qp, &s);
			qh_qp_db(r.h, &qp, true);
			/* entries 0..127 in the list's first page (p1) */
			slot = hp(r.h, (at < 4096 ? p1 + at : p0 + at - 4096));
			CHECK_EQ(sfab_le64_to_cpu(slot->wr_id), i);
			CHECK_EQ(slot->flags & SFAB_CQE_PHASE, i < 256 ? 1 : 0);
			cq.ci++;
			qh_cq_db(r.h, &cq, SFAB_DB_ARM_NONE);
		}
	}
	CHECK(!qh_cq_peek(r.h, &r.cq, &cqe));
	CHECK_EQ(r.h->e->stats.cq_overruns, 0);
	host_free(r.h);
}

TEST(arm_and_events)
{
	struct rig r;
	struct sfab_cqe cqe;
	uint32_t cqn;

	rig_up(&r, 4, 4);
	/* not armed: no event */
	rig_send(&r, 1, QH_LKEY);
	CHECK_EQ(r.h->irqs[2], 0);
	CHECK(qh_cq_poll(r.h, &r.cq, &cqe));

	/* NEXT: one event, then disarmed */
	qh_cq_db(r.h, &r.cq, SFAB_DB_ARM_NEXT);
	CHECK_EQ(r.h->irqs[2], 0);
	rig_send(&r, 2, QH_LKEY);
	CHECK_EQ(r.h->irqs[2], 1);
	REQUIRE(qh_eq_poll(r.h, &r.eq, &cqn));
	CHECK_EQ(cqn, r.cq.cqn);
	rig_send(&r, 3, QH_LKEY);
	CHECK_EQ(r.h->irqs[2], 1);
	CHECK(!qh_eq_poll(r.h, &r.eq, &cqn));

	/* arming with unread CQEs signals at once */
	qh_cq_db(r.h, &r.cq, SFAB_DB_ARM_NEXT);
	CHECK_EQ(r.h->irqs[2], 2);
	CHECK(qh_eq_poll(r.h, &r.eq, &cqn));
	CHECK(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK(qh_cq_poll(r.h, &r.cq, &cqe));

	/* SOLICITED: a plain send completion does not signal, an error does */
	qh_cq_db(r.h, &r.cq, SFAB_DB_ARM_SOLICITED);
	rig_send(&r, 4, QH_LKEY);
	CHECK_EQ(r.h->irqs[2], 2);
	rig_send(&r, 5, 0x999);
	CHECK_EQ(r.h->irqs[2], 3);
	CHECK(qh_eq_poll(r.h, &r.eq, &cqn));
	CHECK(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_PROT_ERR);

	/* an arm value 3 and a consumer index beyond the producer: ignored */
	{
		uint64_t before = r.h->e->stats.db_ignored;

		sfab_engine_db_write(r.h->e, SFAB_DB_CQ,
				     (uint64_t)(0xc0000000U | r.cq.ci) << 32 | r.cq.cqn, 8,
				     SFAB_DB_SRC_CPU);
		sfab_engine_db_write(r.h->e, SFAB_DB_CQ,
				     (uint64_t)(r.cq.ci + 3) << 32 | r.cq.cqn, 8,
				     SFAB_DB_SRC_CPU);
		CHECK_EQ(r.h->e->stats.db_ignored, before + 2);
	}
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}

TEST(cq_overrun)
{
	struct rig r;
	struct sfab_aenq_entry ev;
	struct sfab_cqe cqe;
	unsigned int i, n = 0;
	bool seen = false;

	rig_up(&r, 2, 4);
	while (host_aenq_poll(r.h, &ev))
		;
	for (i = 0; i < 6; i++)
		rig_send(&r, i, QH_LKEY);
	CHECK_EQ(r.h->e->stats.cq_overruns, 1);
	CHECK_EQ(r.h->e->stats.cqe_lost, 2);
	CHECK(r.h->e->cq[r.cq.cqn].err);
	while (host_aenq_poll(r.h, &ev))
		if (ev.type == SFAB_AENQ_CQ_ERROR &&
		    sfab_le32_to_cpu(ev.data0) == r.cq.cqn)
			seen = true;
	CHECK(seen);
	/* the four entries the host had not consumed are intact */
	while (qh_cq_poll(r.h, &r.cq, &cqe))
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), n++);
	CHECK_EQ(n, 4);
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}

TEST(eq_full)
{
	struct rig r;
	struct sfab_cqe cqe;
	uint32_t cqn;
	unsigned int i;

	rig_up(&r, 6, 2);	/* an EQ of 4 entries */
	for (i = 0; i < 6; i++) {
		qh_cq_db(r.h, &r.cq, SFAB_DB_ARM_NEXT);
		rig_send(&r, i, QH_LKEY);
		CHECK(qh_cq_poll(r.h, &r.cq, &cqe));
	}
	CHECK_EQ(r.h->e->stats.eqes, 4);
	CHECK_EQ(r.h->e->stats.eq_overruns, 2);
	CHECK_EQ(r.h->irqs[2], 4);
	for (i = 0; i < 4; i++)
		CHECK(qh_eq_poll(r.h, &r.eq, &cqn));
	CHECK(!qh_eq_poll(r.h, &r.eq, &cqn));
	/* room again: the next event lands, with the second pass' phase */
	qh_cq_db(r.h, &r.cq, SFAB_DB_ARM_NEXT);
	rig_send(&r, 9, QH_LKEY);
	CHECK(qh_eq_poll(r.h, &r.eq, &cqn));
	CHECK_EQ(cqn, r.cq.cqn);
	/* an EQ doorbell beyond what the device wrote, or from a user page */
	{
		uint64_t before = r.h->e->stats.db_ignored;

		sfab_engine_db_write(r.h->e, SFAB_DB_EQ,
				     (uint64_t)(r.eq.head + 1) << 32 | r.eq.eqn, 8,
				     SFAB_DB_SRC_CPU);
		sfab_engine_db_write(r.h->e, SFAB_DB_PAGE_SIZE + SFAB_DB_EQ,
				     (uint64_t)r.eq.head << 32 | r.eq.eqn, 8,
				     SFAB_DB_SRC_CPU);
		CHECK_EQ(r.h->e->stats.db_ignored, before + 2);
	}
	host_free(r.h);
}

static struct sfab_aq_cmd resize_cmd(uint32_t cqn, uint64_t ring,
				     unsigned int log, uint16_t ci)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_RESIZE_CQ);

	qh_ring_desc(&c.u.resize_cq.ring, ring, log, SFAB_CQE_LOG_STRIDE);
	c.u.resize_cq.cqn = sfab_cpu_to_le32(cqn);
	c.u.resize_cq.ci = sfab_cpu_to_le16(ci);
	return c;
}

/* a zeroed ring of 2^@log CQEs */
static uint64_t new_ring(struct fake_host *h, unsigned int log)
{
	uint64_t ring = host_alloc(h, sizeof(struct sfab_cqe) << log, 4096);

	memset(hp(h, ring), 0, sizeof(struct sfab_cqe) << log);
	return ring;
}

/*
 * RESIZE_CQ: the unconsumed CQEs, in order, at the new ring's start with
 * first-pass phase bits; indices start over; arm kept; grow and shrink.
 */
TEST(resize_moves_outstanding)
{
	struct rig r;
	struct sfab_cqe cqe;
	struct sfab_aq_cmd c;
	uint64_t ring;
	uint32_t cqn;
	unsigned int i;

	rig_up(&r, 2, 4);
	/* wrap the 4-entry ring once so the old phase is 0 */
	for (i = 0; i < 5; i++) {
		rig_send(&r, i, QH_LKEY);
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
	}
	for (i = 0; i < 3; i++)
		rig_send(&r, 100 + i, QH_LKEY);
	REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));		/* 100 */
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 100);

	/* grow to 8 with 101 and 102 outstanding */
	ring = new_ring(r.h, 3);
	c = resize_cmd(r.cq.cqn, ring, 3, r.cq.ci);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_OK);
	r.cq.ring = ring;
	r.cq.log = 3;
	r.cq.ci = 0;
	CHECK_EQ(qh_cqe_at(r.h, &r.cq, 0)->flags & SFAB_CQE_PHASE, 1);
	CHECK_EQ(qh_cqe_at(r.h, &r.cq, 2)->flags, 0);
	for (i = 0; i < 2; i++) {
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 101 + i);
		CHECK_EQ(cqe_qpn(&cqe), r.qp.qpn);
	}
	CHECK(!qh_cq_peek(r.h, &r.cq, &cqe));

	/* the new ring over two passes: 8 entries fit, phase flips */
	for (i = 0; i < 8; i++)
		rig_send(&r, 200 + i, QH_LKEY);
	CHECK_EQ(r.h->e->stats.cq_overruns, 0);
	for (i = 0; i < 8; i++) {
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 200 + i);
	}
	rig_send(&r, 300, QH_LKEY);
	REQUIRE(qh_cq_peek(r.h, &r.cq, &cqe));
	CHECK_EQ(cqe.flags & SFAB_CQE_PHASE, 0);	/* index 10: second pass */
	CHECK_EQ(r.cq.ci, 10);

	/* armed, shrink to 2 with one outstanding: the arm stays */
	qh_cq_db(r.h, &r.cq, SFAB_DB_ARM_SOLICITED);
	ring = new_ring(r.h, 1);
	c = resize_cmd(r.cq.cqn, ring, 1, r.cq.ci);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_OK);
	r.cq.ring = ring;
	r.cq.log = 1;
	r.cq.ci = 0;
	CHECK_EQ(r.h->irqs[2], 0);
	rig_send(&r, 301, 0x999);			/* an error: solicited */
	CHECK_EQ(r.h->irqs[2], 1);
	REQUIRE(qh_eq_poll(r.h, &r.eq, &cqn));
	CHECK_EQ(cqn, r.cq.cqn);
	REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 300);
	REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 301);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_PROT_ERR);
	CHECK(!qh_cq_peek(r.h, &r.cq, &cqe));
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}

/* what RESIZE_CQ refuses leaves the CQ on its old ring, CQEs intact */
TEST(resize_refused)
{
	struct rig r;
	struct sfab_cqe cqe;
	struct sfab_aq_cmd c;
	struct sfab_aenq_entry ev;
	uint64_t ring;
	unsigned int i;

	rig_up(&r, 3, 4);
	for (i = 0; i < 3; i++)
		rig_send(&r, i, QH_LKEY);
	ring = new_ring(r.h, 3);

	/* more outstanding than the new ring holds */
	c = resize_cmd(r.cq.cqn, ring, 1, r.cq.ci);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	/* a consumer index past the producer, or a ring's depth behind */
	c = resize_cmd(r.cq.cqn, ring, 3, r.cq.ci + 4);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(r.cq.cqn, ring, 3, (uint16_t)(r.cq.ci - 6));
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	/* no such CQ, bad fields */
	c = resize_cmd(r.cq.cqn + 1, ring, 3, r.cq.ci);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(r.cq.cqn, ring, 3, r.cq.ci);
	c.u.resize_cq.ring.log_stride = 6;
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(r.cq.cqn, ring, 16, r.cq.ci);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(r.cq.cqn, ring, 3, r.cq.ci);
	c.u.resize_cq.reserved0 = sfab_cpu_to_le16(1);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(r.cq.cqn, ring, 3, r.cq.ci);
	c.u.resize_cq.dbrec_addr = sfab_cpu_to_le64(ring + 4);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = resize_cmd(r.cq.cqn, ring, 3, r.cq.ci);
	c.u.raw[40] = 1;
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_PARAM);
	/* a new ring the device cannot write */
	c = resize_cmd(r.cq.cqn, HOST_MEM_BASE + HOST_MEM_SIZE, 3, r.cq.ci);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_DMA_ERROR);
	CHECK(!r.h->e->cq[r.cq.cqn].err);

	/* the old ring still takes CQEs and has them all, in order */
	rig_send(&r, 3, QH_LKEY);
	for (i = 0; i < 4; i++) {
		REQUIRE(qh_cq_poll(r.h, &r.cq, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), i);
	}
	CHECK(!qh_cq_peek(r.h, &r.cq, &cqe));
	CHECK_EQ(r.h->e->stats.cqe_lost, 0);

	/* a CQ in error (overrun) cannot be resized */
	for (i = 0; i < 9; i++)
		rig_send(&r, 10 + i, QH_LKEY);
	REQUIRE(r.h->e->cq[r.cq.cqn].err);
	while (host_aenq_poll(r.h, &ev))
		;
	c = resize_cmd(r.cq.cqn, ring, 3, r.cq.ci);
	CHECK_EQ(host_cmd(r.h, &c), SFAB_AQ_STS_BAD_STATE);
	CHECK(!dev_fatal(r.h));
	host_free(r.h);
}
