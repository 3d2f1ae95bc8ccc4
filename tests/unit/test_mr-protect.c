/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/mr-protect: memory regions in the engine.  CREATE_MR / DESTROY_MR
 * parameters and keys; the page-list layout (first-byte offset, pages in
 * any order, copied at CREATE_MR) seen through UD sends and receives on a
 * user (non-privileged) QP looped back to the own LID; and the lkey
 * checks: unknown key, wrong variant, wrong PD, out of bounds, missing
 * local write, a destroyed MR, key 0, local_dma_lkey on a user QP - each
 * a LOC_PROT_ERR completion that moves the QP to Error.
 */
#include "harness.h"
#include "qp_host.h"

#define LID		0x11
#define QKEY		0x1234
#define PD		1

struct env {
	struct fake_host *h;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp a, b;		/* user UD QPs of PD 1 */
};

static void env_up(struct env *v)
{
	memset(v, 0, sizeof(*v));
	v->h = qh_up();
	v->h->e->port.lid = LID;
	REQUIRE(qh_eq_new(v->h, &v->eq, 6, 2) == 0);
	REQUIRE(qh_cq_new(v->h, &v->cq, 8, v->eq.eqn) == 0);
	REQUIRE(qh_qp_new_ex(v->h, &v->a, SFAB_QPT_UD, 4, 7, v->cq.cqn, v->cq.cqn,
			     0, PD, 0) == 0);
	REQUIRE(qh_qp_new_ex(v->h, &v->b, SFAB_QPT_UD, 4, 7, v->cq.cqn, v->cq.cqn,
			     0, PD, 0) == 0);
	REQUIRE(qh_qp_rts(v->h, &v->a, QKEY) == 0);
	REQUIRE(qh_qp_rts(v->h, &v->b, QKEY) == 0);
}

static void env_down(struct env *v)
{
	host_free(v->h);
}

static void qp_restart(struct env *v, struct qh_qp *qp)
{
	REQUIRE(qh_modify(v->h, qp->qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0) == 0);
	qp->sq_pi = qp->rq_pi = 0;
	REQUIRE(qh_qp_rts(v->h, qp, QKEY) == 0);
}

/* send @len bytes at @addr/@lkey from A to B; the send CQE's status */
static int send_one(struct env *v, uint64_t addr, uint32_t len, uint32_t lkey,
		    struct sfab_cqe *out)
{
	struct qh_send s = {
		.wr_id = 0x51, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.qkey = QKEY, .dlid = LID, .dqpn = v->b.qpn, .addr = addr,
		.len = len, .lkey = lkey,
	};
	struct sfab_cqe cqe;
	int st = -1;

	qh_post_send(v->h, &v->a, &s);
	qh_qp_db(v->h, &v->a, true);
	while (qh_cq_poll(v->h, &v->cq, &cqe)) {
		if (cqe_qpn(&cqe) == v->a.qpn) {
			st = cqe.status;
			if (out)
				*out = cqe;
		}
	}
	return st;
}

TEST(create_destroy)
{
	struct env v;
	uint64_t buf, pages[4];
	uint32_t k1, k2, key;
	struct sfab_aq_cmd c;

	env_up(&v);
	buf = host_alloc(v.h, 4 * 4096, 4096);
	pages[0] = buf;
	pages[1] = buf + 4096;
	REQUIRE(qh_mr_new(v.h, 0x1000, 8192, pages, 2, 12, PD,
			  SFAB_ACCESS_LOCAL_WRITE, &k1) == 0);
	REQUIRE(qh_mr_new(v.h, 0x1000, 8192, pages, 2, 12, PD, 0, &k2) == 0);
	/* index << 8 | variant 0; never index 0; never the local DMA lkey */
	CHECK_EQ(k1 & 0xff, 0);
	CHECK(k1 >> 8 != 0);
	CHECK(k2 != k1);
	CHECK(k1 != SFAB_ENGINE_LOCAL_DMA_LKEY && k2 != SFAB_ENGINE_LOCAL_DMA_LKEY);
	CHECK_EQ(v.h->e->num_mr, 2);

	/* bad parameters: each a BAD_PARAM, nothing created */
	CHECK_EQ(qh_mr_new(v.h, 0x1000, 8192, pages, 3, 12, PD, 0, &key),
		 SFAB_AQ_STS_BAD_PARAM);	/* npages: 2 needed */
	CHECK_EQ(qh_mr_new(v.h, 0x1000, 8192, pages, 1, 12, PD, 0, &key),
		 SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_mr_new(v.h, 0x1000, 0, pages, 0, 12, PD, 0, &key),
		 SFAB_AQ_STS_BAD_PARAM);	/* zero length */
	CHECK_EQ(qh_mr_new(v.h, 0x1000, 4096, pages, 1, 11, PD, 0, &key),
		 SFAB_AQ_STS_BAD_PARAM);	/* page shift */
	CHECK_EQ(qh_mr_new(v.h, 0x1000, 4096, pages, 1, 31, PD, 0, &key),
		 SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_mr_new(v.h, 0x1000, 4096, pages, 1, 12, 256, 0, &key),
		 SFAB_AQ_STS_BAD_PARAM);	/* max_pd 256 */
	CHECK_EQ(qh_mr_new(v.h, 0x1000, 4096, pages, 1, 12, PD, 0x20, &key),
		 SFAB_AQ_STS_BAD_PARAM);	/* unknown access bit */
	CHECK_EQ(qh_mr_new(v.h, 0x1000, 4096, pages, 1, 12, PD,
			   SFAB_ACCESS_REMOTE_WRITE, &key),
		 SFAB_AQ_STS_BAD_PARAM);	/* remote write needs local write */
	CHECK_EQ(qh_mr_new(v.h, ~0ULL - 10, 4096, pages, 2, 12, PD, 0, &key),
		 SFAB_AQ_STS_BAD_PARAM);	/* wraps */
	pages[2] = buf + 100;		/* not page aligned */
	CHECK_EQ(qh_mr_new(v.h, 0x3000, 4096, pages + 2, 1, 12, PD, 0, &key),
		 SFAB_AQ_STS_BAD_PARAM);
	/* more pages than the engine's page pool holds */
	CHECK_EQ(qh_mr_new(v.h, 0, (uint64_t)(SFAB_ENGINE_MR_POOL + 1) << 12,
			   NULL, SFAB_ENGINE_MR_POOL + 1, 12, PD, 0, &key),
		 SFAB_AQ_STS_NO_RESOURCES);
	c = cmd_new(SFAB_AQ_CREATE_MR);
	c.u.create_mr.flags = SFAB_MR_FAST_REG;
	c.u.create_mr.npages = sfab_cpu_to_le32(4);
	c.u.create_mr.iova = sfab_cpu_to_le64(0x1000);	/* must be zero */
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_mr.iova = 0;
	c.u.create_mr.flags = 0x80;
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_mr.flags = SFAB_MR_FAST_REG;
	c.u.create_mr.npages = sfab_cpu_to_le32(SFAB_ENGINE_MAX_FAST_REG_PAGES + 1);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(v.h->e->num_mr, 2);

	/* destroy: any variant names it; then it is gone */
	CHECK_EQ(qh_mr_destroy(v.h, k2 | 0x7f), 0);
	CHECK_EQ(qh_mr_destroy(v.h, k2), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_mr_destroy(v.h, 0), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_mr_destroy(v.h, SFAB_ENGINE_LOCAL_DMA_LKEY), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(qh_mr_destroy(v.h, k1), 0);
	CHECK_EQ(v.h->e->num_mr, 0);
	env_down(&v);
}

/* max_mr (4096 in the test profile) MRs; one more has no room; reuse */
TEST(table_full)
{
	struct env v;
	uint64_t page;
	uint32_t key, first = 0;
	unsigned int i;

	env_up(&v);
	page = host_alloc(v.h, 4096, 4096);
	for (i = 0; i < 4096; i++) {
		REQUIRE(qh_mr_new(v.h, 0, 4096, &page, 1, 12, PD, 0, &key) == 0);
		if (!i)
			first = key;
	}
	CHECK_EQ(qh_mr_new(v.h, 0, 4096, &page, 1, 12, PD, 0, &key),
		 SFAB_AQ_STS_NO_RESOURCES);
	CHECK_EQ(qh_mr_destroy(v.h, first), 0);
	CHECK_EQ(qh_mr_new(v.h, 0, 4096, &page, 1, 12, PD, 0, &key), 0);
	CHECK_EQ(key, first);
	env_down(&v);
}

/*
 * The layout: a region whose first byte is 0x123 into its first page and
 * whose pages lie in memory in the order 2, 0, 1; the receive region's
 * pages in the order 1, 0.  Data crosses page boundaries both ways.
 */
TEST(page_list_layout)
{
	struct env v;
	uint64_t mem, spages[3], rpages[2], siova = 0x7000000123ULL;
	uint64_t riova = 0x50000000ULL;
	uint32_t skey, rkey, i;
	uint8_t *p;

	env_up(&v);
	mem = host_alloc(v.h, 5 * 4096, 4096);
	spages[0] = mem + 2 * 4096;
	spages[1] = mem;
	spages[2] = mem + 4096;
	rpages[0] = mem + 4 * 4096;
	rpages[1] = mem + 3 * 4096;
	/* logical byte x of the send region: at pbl[(0x123 + x) >> 12] */
	for (i = 0; i < 3 * 4096 - 0x123; i++) {
		uint64_t pos = 0x123 + i;

		*(uint8_t *)hp(v.h, spages[pos >> 12] + (pos & 4095)) = (uint8_t)(i * 7 + 3);
	}
	memset(hp(v.h, rpages[0]), 0, 4096);
	memset(hp(v.h, rpages[1]), 0, 4096);
	REQUIRE(qh_mr_new(v.h, siova, 3 * 4096 - 0x123, spages, 3, 12, PD, 0,
			  &skey) == 0);
	REQUIRE(qh_mr_new(v.h, riova, 8192, rpages, 2, 12, PD,
			  SFAB_ACCESS_LOCAL_WRITE, &rkey) == 0);
	/* a receive that crosses from region page 0 to page 1 */
	qh_post_recv(v.h, &v.b, 0x77, riova + 100, 4096, rkey);
	qh_qp_db(v.h, &v.b, false);
	/* 2000 bytes from logical offset 3000: crosses 4096 - 0x123 = 3805 */
	CHECK_EQ(send_one(&v, siova + 3000, 2000, skey, NULL), 0);
	CHECK_EQ(v.h->e->stats.recvs, 1);
	/* received: GRH slot (40) then the data, at riova + 140 ... */
	for (i = 0; i < 2000; i++) {
		uint64_t pos = 140 + i;	/* riova has no first-byte offset */

		p = hp(v.h, rpages[pos >> 12] + (pos & 4095));
		if (*p != (uint8_t)((3000 + i) * 7 + 3)) {
			CHECK_EQ(*p, (uint8_t)((3000 + i) * 7 + 3));
			break;
		}
	}
	/* nothing before the receive buffer's data was touched */
	CHECK_EQ(*(uint8_t *)hp(v.h, rpages[0] + 139), 0);
	env_down(&v);
}

TEST(lkey_checks)
{
	struct env v;
	uint64_t buf;
	uint32_t key, key_pd2, key_dead, key_ro;
	struct sfab_cqe cqe;

	env_up(&v);
	buf = host_alloc(v.h, 16384, 4096);
	REQUIRE(qh_mr_contig(v.h, buf, 8192, PD, SFAB_ACCESS_LOCAL_WRITE, &key) == 0);
	REQUIRE(qh_mr_contig(v.h, buf, 8192, 2, SFAB_ACCESS_LOCAL_WRITE, &key_pd2) == 0);
	REQUIRE(qh_mr_contig(v.h, buf, 8192, PD, SFAB_ACCESS_LOCAL_WRITE, &key_dead) == 0);
	REQUIRE(qh_mr_contig(v.h, buf + 8192, 4096, PD, 0, &key_ro) == 0);
	REQUIRE(qh_mr_destroy(v.h, key_dead) == 0);

	/* a good one first: the loop works */
	qh_post_recv(v.h, &v.b, 1, buf + 4096, 1024, key);
	qh_qp_db(v.h, &v.b, false);
	CHECK_EQ(send_one(&v, buf, 100, key, NULL), 0);
	/* a send needs no access right: a read-only MR gathers */
	qh_post_recv(v.h, &v.b, 2, buf + 4096, 1024, key);
	qh_qp_db(v.h, &v.b, false);
	CHECK_EQ(send_one(&v, buf + 8192, 100, key_ro, NULL), 0);

	struct {
		uint64_t addr;
		uint32_t len, key;
	} bad[] = {
		{ buf, 100, key | 1 },			/* wrong variant */
		{ buf, 100, key + 0x100 * 50 },		/* no such index */
		{ buf, 100, 0 },			/* key 0 */
		{ buf, 100, key_pd2 },			/* another PD */
		{ buf, 100, key_dead },			/* destroyed */
		{ buf + 8100, 100, key },		/* runs past the end */
		{ buf - 1, 100, key },			/* starts before */
		{ buf, 100, SFAB_ENGINE_LOCAL_DMA_LKEY },	/* user QP */
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(send_one(&v, bad[i].addr, bad[i].len, bad[i].key, &cqe),
			 SFAB_CQE_STS_LOC_PROT_ERR);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x51);
		CHECK_EQ(v.h->e->qp[v.a.qpn].state, SFAB_QPS_ERR);
		qp_restart(&v, &v.a);
	}
	/* the receiver took nothing in all that */
	CHECK_EQ(v.h->e->stats.recvs, 2);
	env_down(&v);
}

/* a receive scatters only into an MR with local write */
TEST(recv_needs_local_write)
{
	struct env v;
	uint64_t buf;
	uint32_t key, key_ro;
	struct sfab_cqe cqe;
	bool seen = false;

	env_up(&v);
	buf = host_alloc(v.h, 16384, 4096);
	REQUIRE(qh_mr_contig(v.h, buf, 8192, PD, SFAB_ACCESS_LOCAL_WRITE, &key) == 0);
	REQUIRE(qh_mr_contig(v.h, buf + 8192, 8192, PD, SFAB_ACCESS_REMOTE_READ,
			     &key_ro) == 0);
	memset(hp(v.h, buf + 8192), 0xee, 4096);
	qh_post_recv(v.h, &v.b, 9, buf + 8192, 1024, key_ro);
	qh_qp_db(v.h, &v.b, false);
	qh_post_send(v.h, &v.a, &(struct qh_send){
		.wr_id = 8, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.qkey = QKEY, .dlid = LID, .dqpn = v.b.qpn, .addr = buf,
		.len = 64, .lkey = key });
	qh_qp_db(v.h, &v.a, true);
	while (qh_cq_poll(v.h, &v.cq, &cqe)) {
		if (cqe_qpn(&cqe) != v.b.qpn)
			continue;
		seen = true;
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 9);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_PROT_ERR);
	}
	CHECK(seen);
	CHECK_EQ(v.h->e->qp[v.b.qpn].state, SFAB_QPS_ERR);
	/* nothing was written to the read-only region */
	CHECK_EQ(*(uint8_t *)hp(v.h, buf + 8192 + 40), 0xee);
	env_down(&v);
}

TEST(device_attrs)
{
	struct fake_host *h = qh_up();
	struct sfab_aq_cmd c = cmd_query_device(h->scratch, sizeof(struct sfab_dev_attr));
	struct sfab_dev_attr a;

	REQUIRE(host_cmd(h, &c) == 0);
	memcpy(&a, hp(h, h->scratch), sizeof(a));
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp_rd_atom), SFAB_ENGINE_MAX_RD_ATOM);
	CHECK_EQ(sfab_le32_to_cpu(a.max_fast_reg_pages), SFAB_ENGINE_MAX_FAST_REG_PAGES);
	CHECK_EQ(sfab_le32_to_cpu(a.atomic_cap), 1);
	CHECK(sfab_le32_to_cpu(a.max_srq_sge) > 0);
	/* the local DMA lkey's index is outside the MR table */
	CHECK(sfab_le32_to_cpu(a.local_dma_lkey) >> 8 > sfab_le32_to_cpu(a.max_mr));
	host_free(h);
}


