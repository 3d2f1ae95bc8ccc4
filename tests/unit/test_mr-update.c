/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/mr-update: UPDATE_MR, the command behind MRs whose memory moves
 * (dma-buf MRs).  On two engines cabled back to back, node 1 registers
 * two pages ("old") as a plain MR; node 0 RDMA WRITEs and READs through
 * it.  INVALIDATE: the same WRITE and READ now fail with a remote access
 * NAK (REM_ACCESS_ERR at node 0, counted by both ends) and a gather from
 * the MR at node 1 with LOC_PROT_ERR, no byte of the old or new pages
 * changed; a WRITE in flight when the command runs stops at its next
 * packet.  REMAP to two other pages ("new"): the WRITE lands there, the
 * READ reads from there, the old pages stay as they were; the key is
 * the same throughout.  Every bad UPDATE_MR (no such key, wrong variant,
 * a destroyed MR, a fast-registration MR, another PD, op, reserved
 * bytes, a page list with INVALIDATE, npages or page_shift not the MR's,
 * no page list, a misaligned entry, a list the device cannot read) is
 * BAD_PARAM, said once under its site, and leaves the MR as it was:
 * still working through the old pages.  A REMAP counts its page list
 * twice against the admin work budget; INVALIDATE costs nothing.
 */
#include "harness.h"
#include "rc_pair.h"
#include "ge_check.h"

#define IOVA		0x7000000000ULL
#define OFF		0x123			/* a WRITE that crosses a page */
#define LEN		5000
#define DST_OFF		200000			/* node 0: where READs land */

struct upd {
	uint32_t key;		/* node 1's MR over old[] */
	uint64_t old[2], new[2];	/* pages of node 1, not adjacent */
	uint64_t pbl;		/* room for a page list on node 1 */
	struct qh_qp b[2];	/* a second pair, for after an error */
};

static struct upd U;

static uint8_t *page(uint64_t bus)
{
	return hp(RP[1].h, bus);
}

/* node 1's MR over the old pages, remote read/write; fills both sets */
static void upd_up(void)
{
	struct fake_host *h;
	uint64_t mem;
	unsigned int i;

	rp_up(&(struct rp_cfg){ 0 });
	h = RP[1].h;
	memset(&U, 0, sizeof(U));
	mem = host_alloc(h, 5 * 4096, 4096);
	U.old[0] = mem + 3 * 4096;	/* in the order 3, 0 */
	U.old[1] = mem;
	U.new[0] = mem + 4096;		/* and 2, 4 */
	U.new[1] = mem + 4 * 4096;
	memset(page(U.old[0]), 0x11, 4096);
	memset(page(U.old[1]), 0x22, 4096);
	memset(page(U.new[0]), 0x33, 4096);
	memset(page(U.new[1]), 0x44, 4096);
	U.pbl = host_alloc(h, 4096, 4096);
	REQUIRE(qh_mr_new(h, IOVA, 8192, U.old, 2, 12, RP_PD,
			  RP_ALL_ACCESS, &U.key) == 0);
	for (i = 0; i < 2; i++)
		CHECK(U.old[i] != U.new[i]);
	rp_fill(0, 0, LEN, 0x5a);
}

/* UPDATE_MR on node 1 with the page list @pages (NULL: none) */
static struct sfab_aq_cmd upd_cmd(uint8_t op, uint32_t key, uint32_t pdn,
				  const uint64_t *pages, uint32_t n,
				  uint8_t shift)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_UPDATE_MR);
	uint32_t i;

	c.u.update_mr.key = sfab_cpu_to_le32(key);
	c.u.update_mr.pdn = sfab_cpu_to_le32(pdn);
	c.u.update_mr.op = op;
	if (pages) {
		for (i = 0; i < n; i++) {
			uint64_t v = sfab_cpu_to_le64(pages[i]);

			memcpy(hp(RP[1].h, U.pbl + i * 8), &v, 8);
		}
		c.u.update_mr.pbl_addr = sfab_cpu_to_le64(U.pbl);
		c.u.update_mr.npages = sfab_cpu_to_le32(n);
		c.u.update_mr.page_shift = shift;
	}
	return c;
}

static int invalidate(void)
{
	struct sfab_aq_cmd c = upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key, RP_PD,
				       NULL, 0, 0);

	return host_cmd(RP[1].h, &c);
}

static int remap(const uint64_t *pages)
{
	struct sfab_aq_cmd c = upd_cmd(SFAB_MR_UPDATE_REMAP, U.key, RP_PD,
				       pages, 2, 12);

	return host_cmd(RP[1].h, &c);
}

/* the region's byte x, wherever its pages are now */
static uint8_t region_byte(const uint64_t *pages, uint64_t x)
{
	return *page(pages[x >> 12] + (x & 4095));
}

/* @len bytes of node 0's memory at @off are at region offset @at */
static bool region_holds(const uint64_t *pages, uint64_t at, uint64_t off,
			 uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (region_byte(pages, at + i) != *rp_mem(0, off + i))
			return false;
	return true;
}

/* node 0 posts one RDMA op on its QP through node 1's MR; its CQE status */
static int rdma(uint8_t opcode, uint64_t wr_id, uint64_t loff, uint32_t len)
{
	struct qh_rc_send s = rp_wqe(opcode, wr_id, 0, loff, len);
	struct sfab_cqe cqe;

	s.raddr = IOVA + OFF;
	s.rkey = U.key;
	rp_post(0, &s);
	rp_pump();
	if (!rp_poll(0, &cqe))
		return -1;
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), wr_id);
	return cqe.status;
}

/* the same on the second pair (after the first went to Error) */
static int rdma2(uint8_t opcode, uint64_t wr_id, uint64_t loff, uint32_t len)
{
	struct qh_rc_send s = rp_wqe(opcode, wr_id, 0, loff, len);
	struct sfab_cqe cqe;

	s.raddr = IOVA + OFF;
	s.rkey = U.key;
	qh_post_rc(RP[0].h, &U.b[0], &s);
	qh_qp_db(RP[0].h, &U.b[0], true);
	rp_pump();
	while (rp_poll(0, &cqe))
		if (cqe_qpn(&cqe) == U.b[0].qpn)
			return cqe.status;
	return -1;
}

static void snapshot(uint8_t *buf)
{
	memcpy(buf, page(U.old[0]), 4096);
	memcpy(buf + 4096, page(U.old[1]), 4096);
	memcpy(buf + 8192, page(U.new[0]), 4096);
	memcpy(buf + 12288, page(U.new[1]), 4096);
}

static bool unchanged(const uint8_t *buf)
{
	return !memcmp(buf, page(U.old[0]), 4096) &&
	       !memcmp(buf + 4096, page(U.old[1]), 4096) &&
	       !memcmp(buf + 8192, page(U.new[0]), 4096) &&
	       !memcmp(buf + 12288, page(U.new[1]), 4096);
}

TEST(invalidate_then_remap)
{
	static uint8_t before[4 * 4096];
	struct sfab_aenq_entry ev;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t naks, errs0, errs1;
	bool seen = false;

	upd_up();
	/* through the old pages: WRITE lands there, READ reads it back */
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 1, 0, LEN), 0);
	CHECK(region_holds(U.old, OFF, 0, LEN));
	CHECK_EQ(rdma(SFAB_WQE_RDMA_READ, 2, DST_OFF, LEN), 0);
	CHECK(rp_same(0, 0, 0, DST_OFF, LEN));

	/* invalidate: same key, no access */
	CHECK_EQ(invalidate(), SFAB_AQ_STS_OK);
	CHECK_EQ(invalidate(), SFAB_AQ_STS_OK);	/* again: allowed */
	CHECK_EQ(RP[1].h->e->num_mr, 2);
	while (host_aenq_poll(RP[1].h, &ev))
		;
	rp_fill(0, 0, LEN, 0xc3);
	snapshot(before);
	naks = RP[1].h->e->stats.rc_naks_tx;
	errs0 = RP[0].h->e->stats.send_errors;
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 3, 0, LEN), SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK(unchanged(before));
	CHECK_EQ(RP[1].h->e->stats.rc_naks_tx, naks + 1);
	CHECK_EQ(RP[0].h->e->stats.send_errors, errs0 + 1);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK_EQ(rp_state(1), SFAB_QPS_ERR);
	while (host_aenq_poll(RP[1].h, &ev))
		if (ev.type == SFAB_AENQ_QP_EVENT && ev.data0 == RP[1].qp.qpn &&
		    ev.data1 == SFAB_QP_EV_ACCESS_ERR)
			seen = true;
	CHECK(seen);

	/* a READ on a fresh pair: NAKed too, nothing written at node 0 */
	rp_pair2(U.b);
	memset(rp_mem(0, DST_OFF), 0xee, LEN);
	naks = RP[1].h->e->stats.rc_naks_tx;
	CHECK_EQ(rdma2(SFAB_WQE_RDMA_READ, 4, DST_OFF, LEN),
		 SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK_EQ(RP[1].h->e->stats.rc_naks_tx, naks + 1);
	CHECK_EQ(*rp_mem(0, DST_OFF), 0xee);
	CHECK_EQ(*rp_mem(0, DST_OFF + LEN - 1), 0xee);

	/* a gather from the MR at node 1 itself: LOC_PROT_ERR, counted */
	errs1 = RP[1].h->e->stats.send_errors;
	qh_modify(RP[1].h, RP[1].qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0);
	qh_modify(RP[0].h, RP[0].qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0);
	RP[0].qp.sq_pi = RP[0].qp.rq_pi = RP[1].qp.sq_pi = RP[1].qp.rq_pi = 0;
	rp_connect(&(struct rp_cfg){ 0 });
	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_RDMA_WRITE;
	s.wr_id = 5;
	s.flags = SFAB_WQE_SIGNALED;
	s.nsge = 1;
	s.sge[0].addr = IOVA + OFF;
	s.sge[0].len = 64;
	s.sge[0].lkey = U.key;
	s.raddr = RP[0].mem + 300000;
	s.rkey = RP[0].key;
	rp_post(1, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_PROT_ERR);
	CHECK_EQ(RP[1].h->e->stats.send_errors, errs1 + 1);
	CHECK(unchanged(before));

	/* remap to the new pages: the key works again, on them */
	CHECK_EQ(remap(U.new), SFAB_AQ_STS_OK);
	CHECK_EQ(RP[1].h->e->num_mr, 2);
	qh_modify(RP[1].h, RP[1].qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0);
	qh_modify(RP[0].h, RP[0].qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RESET, 0);
	RP[0].qp.sq_pi = RP[0].qp.rq_pi = RP[1].qp.sq_pi = RP[1].qp.rq_pi = 0;
	rp_connect(&(struct rp_cfg){ 0 });
	while (rp_poll(0, &cqe))
		;
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 6, 0, LEN), 0);
	CHECK(region_holds(U.new, OFF, 0, LEN));
	/* the old pages kept what they had */
	CHECK(!memcmp(page(U.old[0]), before, 4096));
	CHECK(!memcmp(page(U.old[1]), before + 4096, 4096));
	/* bytes of the new pages outside the WRITE are untouched */
	CHECK_EQ(region_byte(U.new, OFF - 1), 0x33);
	CHECK_EQ(region_byte(U.new, OFF + LEN), 0x44);
	memset(rp_mem(0, DST_OFF), 0, LEN);
	CHECK_EQ(rdma(SFAB_WQE_RDMA_READ, 7, DST_OFF, LEN), 0);
	CHECK(rp_same(0, 0, 0, DST_OFF, LEN));
	CHECK_EQ(rp_state(0), SFAB_QPS_RTS);
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);

	/* a remap of a valid MR swaps the pages in place */
	CHECK_EQ(remap(U.old), SFAB_AQ_STS_OK);
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 8, 0, LEN), 0);
	CHECK(region_holds(U.old, OFF, 0, LEN));
	rp_down();
}

static int modify(uint32_t pdn, uint32_t new_pdn, uint32_t new_access)
{
	struct sfab_aq_cmd c = upd_cmd(SFAB_MR_UPDATE_MODIFY, U.key, pdn,
				       NULL, 0, 0);

	c.u.update_mr.new_pdn = sfab_cpu_to_le32(new_pdn);
	c.u.update_mr.new_access = sfab_cpu_to_le32(new_access);
	return host_cmd(RP[1].h, &c);
}

/*
 * MODIFY (rereg_mr of access or PD): the same key, pages and range; the
 * rights and the PD the device checks change at once, both ways.
 */
TEST(modify_access_and_pd)
{
	static uint8_t before[4 * 4096];
	struct sfab_aq_cmd c;
	uint32_t key = U.key;

	upd_up();
	key = U.key;
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 1, 0, LEN), 0);
	CHECK(region_holds(U.old, OFF, 0, LEN));

	/* REMOTE_WRITE taken away: a WRITE is NAKed, the pages untouched */
	CHECK_EQ(modify(RP_PD, RP_PD, SFAB_ACCESS_LOCAL_WRITE |
			SFAB_ACCESS_REMOTE_READ), SFAB_AQ_STS_OK);
	rp_fill(0, 0, LEN, 0xa7);
	snapshot(before);
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 2, 0, LEN), SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK(unchanged(before));
	rp_reconnect();
	/* REMOTE_READ it still has */
	memset(rp_mem(0, DST_OFF), 0, LEN);
	CHECK_EQ(rdma(SFAB_WQE_RDMA_READ, 3, DST_OFF, LEN), 0);
	CHECK(!memcmp(rp_mem(0, DST_OFF), page(U.old[0]) + OFF, 4096 - OFF));

	/* given back: the same key writes again */
	CHECK_EQ(modify(RP_PD, RP_PD, RP_ALL_ACCESS), SFAB_AQ_STS_OK);
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 4, 0, LEN), 0);
	CHECK(region_holds(U.old, OFF, 0, LEN));
	CHECK_EQ(U.key, key);

	/* another PD: the responder's QP is in RP_PD, so NAKed */
	CHECK_EQ(modify(RP_PD, 2, RP_ALL_ACCESS), SFAB_AQ_STS_OK);
	CHECK_EQ(RP[1].h->e->mr[U.key >> 8].pdn, 2);
	snapshot(before);
	rp_fill(0, 0, LEN, 0x3c);
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 5, 0, LEN), SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK(unchanged(before));
	rp_reconnect();
	/* the PD named must be the MR's own, now 2 */
	CHECK_EQ(modify(RP_PD, RP_PD, RP_ALL_ACCESS), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(2, RP_PD, RP_ALL_ACCESS), SFAB_AQ_STS_OK);
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 6, 0, LEN), 0);
	CHECK(region_holds(U.old, OFF, 0, LEN));

	/* refused, the MR unchanged */
	CHECK_EQ(modify(RP_PD, RP_PD, SFAB_ACCESS_REMOTE_WRITE), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(RP_PD, RP_PD, 0x20), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(modify(RP_PD, 1U << 20, RP_ALL_ACCESS), SFAB_AQ_STS_BAD_PARAM);
	c = upd_cmd(SFAB_MR_UPDATE_MODIFY, U.key, RP_PD, U.new, 2, 12);
	c.u.update_mr.new_pdn = sfab_cpu_to_le32(RP_PD);
	c.u.update_mr.new_access = sfab_cpu_to_le32(RP_ALL_ACCESS);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key, RP_PD, NULL, 0, 0);
	c.u.update_mr.new_access = sfab_cpu_to_le32(RP_ALL_ACCESS);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(RP[1].h->e->mr[U.key >> 8].pdn, RP_PD);
	CHECK_EQ(RP[1].h->e->mr[U.key >> 8].access, RP_ALL_ACCESS);
	CHECK(RP[1].h->e->mr[U.key >> 8].live);
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 7, 0, LEN), 0);
	rp_down();
}

/* frames to node 1 are held while @hold_to1 */
static bool hold_to1;

static bool hold_hook(unsigned int to, const uint8_t *f, size_t len)
{
	return to == 1 && hold_to1 && rp_hold(f, len);
}

/*
 * A 20-packet WRITE (MTU 256): its first 8 packets land, then node 1
 * invalidates the MR, then the rest arrive.  The ninth packet is NAKed;
 * bytes from it on never reach the pages.
 */
TEST(write_in_flight)
{
	struct sfab_cqe cqe;
	struct qh_rc_send s;
	unsigned int i;

	upd_up();
	rp_drop = hold_hook;
	hold_to1 = true;
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 9, 0, 0, 20 * 256);
	s.raddr = IOVA;
	s.rkey = U.key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_held.n == 20);
	hold_to1 = false;
	for (i = 0; i < 8; i++) {
		sfab_engine_cable_rx(RP[1].h->e, rp_held.f[i], rp_held.len[i]);
		host_run(RP[1].h);
	}
	CHECK(region_holds(U.old, 0, 0, 8 * 256));
	CHECK_EQ(region_byte(U.old, 8 * 256), 0x11);
	CHECK_EQ(invalidate(), SFAB_AQ_STS_OK);
	for (i = 8; i < rp_held.n; i++) {
		sfab_engine_cable_rx(RP[1].h->e, rp_held.f[i], rp_held.len[i]);
		free(rp_held.f[i]);
	}
	for (i = 0; i < 8; i++)
		free(rp_held.f[i]);
	rp_held.n = 0;
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_REM_ACCESS_ERR);
	/* nothing of packet 9 on: the rest of page 0 and page 1 as they were */
	for (i = 8 * 256; i < 8192; i++)
		if (region_byte(U.old, i) != (i < 4096 ? 0x11 : 0x22)) {
			CHECK_EQ(region_byte(U.old, i), i < 4096 ? 0x11 : 0x22);
			break;
		}
	rp_down();
}

/* @c is refused, said once under @site with @text; the MR as it was */
static void bad_one(struct fake_host *h, struct sfab_aq_cmd *c,
		    enum sfab_guest_err site, const char *text,
		    const struct sfab_engine_mr *saved, const uint64_t *pool)
{
	const struct sfab_engine_mr *mr = &h->e->mr[U.key >> 8];
	int st;

	ge_mark(h);
	st = host_cmd(h, c);
	if (st != SFAB_AQ_STS_BAD_PARAM)
		fprintf(stderr, "  case \"%s\": status %d\n", text, st);
	CHECK_EQ(st, SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, site, text);
	CHECK(!memcmp(mr, saved, sizeof(*saved)));
	CHECK(!memcmp(&h->e->mr_pool[mr->pool_off], pool, 2 * sizeof(*pool)));
}

/*
 * Every bad UPDATE_MR: BAD_PARAM, said once, and the MR exactly as it
 * was (its table entry and pool extent, and a WRITE still lands in the
 * old pages).
 */
TEST(bad_params)
{
	struct fake_host *h;
	struct sfab_engine_mr saved, *mr;
	uint64_t pool[2], bad_pages[2];
	uint32_t fr_key, dead_key, pd2_key;
	struct sfab_aq_cmd c;
	char text[96];

	upd_up();
	h = RP[1].h;
	mr = &h->e->mr[U.key >> 8];
	c = cmd_new(SFAB_AQ_CREATE_MR);
	c.u.create_mr.flags = SFAB_MR_FAST_REG;
	c.u.create_mr.npages = sfab_cpu_to_le32(2);
	c.u.create_mr.pdn = sfab_cpu_to_le32(RP_PD);
	{
		struct sfab_acq_entry cpl;

		REQUIRE(host_cmd_full(h, &c, &cpl) == 0);
		fr_key = sfab_le32_to_cpu(cpl.result0);
	}
	REQUIRE(qh_mr_new(h, IOVA, 8192, U.new, 2, 12, RP_PD, 0, &dead_key) == 0);
	REQUIRE(qh_mr_destroy(h, dead_key) == 0);
	REQUIRE(qh_mr_new(h, IOVA, 8192, U.new, 2, 12, 2, 0, &pd2_key) == 0);
	saved = *mr;
	memcpy(pool, &h->e->mr_pool[mr->pool_off], sizeof(pool));

	/* run each at once: the page list at U.pbl is the command's own */
#define BAD(cmd, s, ...) do {						\
		c = (cmd);						\
		snprintf(text, sizeof(text), __VA_ARGS__);		\
		bad_one(h, &c, (s), text, &saved, pool);		\
	} while (0)
	BAD(upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key + 0x100 * 40, RP_PD, NULL, 0, 0),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x%x: no such MR", U.key + 0x100 * 40);
	BAD(upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key | 1, RP_PD, NULL, 0, 0),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x%x: no such MR", U.key | 1);
	BAD(upd_cmd(SFAB_MR_UPDATE_INVALIDATE, 0, RP_PD, NULL, 0, 0),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x0: no such MR");
	BAD(upd_cmd(SFAB_MR_UPDATE_REMAP, dead_key, RP_PD, U.old, 2, 12),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x%x: no such MR", dead_key);
	BAD(upd_cmd(SFAB_MR_UPDATE_INVALIDATE, fr_key, RP_PD, NULL, 0, 0),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x%x: a fast-registration MR",
	    fr_key);
	BAD(upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key, 2, NULL, 0, 0),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x%x: pdn 2, the MR's is 1", U.key);
	BAD(upd_cmd(SFAB_MR_UPDATE_REMAP, pd2_key, RP_PD, U.old, 2, 12),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x%x: pdn 1, the MR's is 2",
	    pd2_key);
	BAD(upd_cmd(0, U.key, RP_PD, NULL, 0, 0), SFAB_GE_MR_PARAM,
	    "UPDATE_MR: op 0 is not INVALIDATE (1), REMAP (2) or MODIFY (3)");
	BAD(upd_cmd(4, U.key, RP_PD, U.old, 2, 12), SFAB_GE_MR_PARAM,
	    "UPDATE_MR: op 4 is not");
	BAD(upd_cmd(SFAB_MR_UPDATE_MODIFY, U.key, RP_PD, U.old, 2, 12),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: MODIFY with a page list");
	c = upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key, RP_PD, NULL, 0, 0);
	c.u.update_mr.reserved = sfab_cpu_to_le16(0x8000);
	BAD(c, SFAB_GE_MR_PARAM, "UPDATE_MR: reserved 0x8000 not zero");
	c = upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key, RP_PD, NULL, 0, 0);
	c.u.raw[55] = 1;
	BAD(c, SFAB_GE_MR_PARAM, "UPDATE_MR: bytes after the command not zero");
	c = upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key, RP_PD, U.new, 2, 12);
	c.u.update_mr.npages = 0;
	c.u.update_mr.page_shift = 0;
	BAD(c, SFAB_GE_MR_PARAM, "UPDATE_MR: INVALIDATE with pbl_addr 0x%llx",
	    (unsigned long long)U.pbl);
	c = upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key, RP_PD, NULL, 0, 0);
	c.u.update_mr.npages = sfab_cpu_to_le32(2);
	BAD(c, SFAB_GE_MR_PARAM, "UPDATE_MR: INVALIDATE with npages 2");
	c = upd_cmd(SFAB_MR_UPDATE_INVALIDATE, U.key, RP_PD, NULL, 0, 0);
	c.u.update_mr.page_shift = 12;
	BAD(c, SFAB_GE_MR_PARAM, "UPDATE_MR: INVALIDATE with page_shift 12");
	BAD(upd_cmd(SFAB_MR_UPDATE_REMAP, U.key, RP_PD, U.new, 3, 12),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x%x: npages 3, the MR has 2",
	    U.key);
	BAD(upd_cmd(SFAB_MR_UPDATE_REMAP, U.key, RP_PD, U.new, 1, 12),
	    SFAB_GE_MR_PARAM, "UPDATE_MR: key 0x%x: npages 1, the MR has 2",
	    U.key);
	BAD(upd_cmd(SFAB_MR_UPDATE_REMAP, U.key, RP_PD, U.new, 2, 13),
	    SFAB_GE_MR_PARAM,
	    "UPDATE_MR: key 0x%x: page_shift 13, the MR's is 12", U.key);
	c = upd_cmd(SFAB_MR_UPDATE_REMAP, U.key, RP_PD, U.new, 2, 12);
	c.u.update_mr.pbl_addr = 0;
	BAD(c, SFAB_GE_MR_PARAM,
	    "UPDATE_MR: key 0x%x: REMAP without a page list", U.key);
	/* the page list itself: its own site */
	bad_pages[0] = U.new[0];
	bad_pages[1] = U.new[1] + 8;
	BAD(upd_cmd(SFAB_MR_UPDATE_REMAP, U.key, RP_PD, bad_pages, 2, 12),
	    SFAB_GE_MR_PAGE_LIST, "MR page list entry 1: 0x%llx not aligned",
	    (unsigned long long)bad_pages[1]);
	c = upd_cmd(SFAB_MR_UPDATE_REMAP, U.key, RP_PD, U.new, 2, 12);
	c.u.update_mr.pbl_addr = sfab_cpu_to_le64(U.pbl + 4);
	BAD(c, SFAB_GE_MR_PAGE_LIST, "not 8-byte aligned");
	c = upd_cmd(SFAB_MR_UPDATE_REMAP, U.key, RP_PD, U.new, 2, 12);
	c.u.update_mr.pbl_addr = sfab_cpu_to_le64(0x1000);	/* not host memory */
	BAD(c, SFAB_GE_MR_PAGE_LIST, "DMA read of entries 0..1 failed");
#undef BAD

	CHECK(!dev_fatal(h));
	CHECK_EQ(h->e->mr[fr_key >> 8].live, false);
	/* the MR still works, through the old pages */
	CHECK_EQ(rdma(SFAB_WQE_RDMA_WRITE, 10, 0, LEN), 0);
	CHECK(region_holds(U.old, OFF, 0, LEN));
	/* and the fast-reg and other-PD MRs are as they were too */
	CHECK_EQ(h->e->mr[pd2_key >> 8].live, true);
	CHECK_EQ(h->e->mr[pd2_key >> 8].pdn, 2);
	rp_down();
}

/* ring a command without the fake host's run-until-idle */
static void aq_ring(struct fake_host *h)
{
	sfab_engine_reg_write(h->e, SFAB_REG_AQ_DB, h->aq_tail);
}

/*
 * A REMAP reads its list twice (checked, then loaded), both counted:
 * four REMAPs of a 2^18-page MR (2 MiB lists) take one
 * sfab_engine_process() call each; four INVALIDATEs one call in all.
 */
TEST(work_budget)
{
	struct fake_host *h = qh_up();
	struct sfab_acq_entry cpl;
	struct sfab_aq_cmd c;
	uint64_t pbl, pg;
	uint32_t key, i, n = 1U << 18;
	unsigned int calls = 0, done, total = 0;

	pg = host_alloc(h, 4096, 4096);
	pbl = host_alloc(h, (size_t)n * 8, 4096);
	for (i = 0; i < n; i++) {
		uint64_t v = sfab_cpu_to_le64(pg);

		memcpy(hp(h, pbl + (uint64_t)i * 8), &v, 8);
	}
	c = cmd_new(SFAB_AQ_CREATE_MR);
	c.u.create_mr.length = sfab_cpu_to_le64((uint64_t)n << 12);
	c.u.create_mr.pbl_addr = sfab_cpu_to_le64(pbl);
	c.u.create_mr.npages = sfab_cpu_to_le32(n);
	c.u.create_mr.pdn = sfab_cpu_to_le32(1);
	c.u.create_mr.page_shift = 12;
	REQUIRE(host_cmd_full(h, &c, &cpl) == 0);
	key = sfab_le32_to_cpu(cpl.result0);

	for (i = 0; i < 4; i++) {
		c = cmd_new(SFAB_AQ_UPDATE_MR);
		c.u.update_mr.key = sfab_cpu_to_le32(key);
		c.u.update_mr.pdn = sfab_cpu_to_le32(1);
		c.u.update_mr.op = SFAB_MR_UPDATE_REMAP;
		c.u.update_mr.pbl_addr = sfab_cpu_to_le64(pbl);
		c.u.update_mr.npages = sfab_cpu_to_le32(n);
		c.u.update_mr.page_shift = 12;
		host_post(h, &c);
	}
	aq_ring(h);
	while (sfab_engine_work_pending(h->e) && calls < 100) {
		done = sfab_engine_process(h->e);
		CHECK(done <= 1);
		total += done;
		calls++;
	}
	CHECK_EQ(total, 4);
	CHECK_EQ(calls, 4);
	for (i = 0; i < 4; i++) {
		REQUIRE(host_poll(h, &cpl));
		CHECK_EQ(cpl.status, SFAB_AQ_STS_OK);
	}

	for (i = 0; i < 4; i++) {
		c = cmd_new(SFAB_AQ_UPDATE_MR);
		c.u.update_mr.key = sfab_cpu_to_le32(key);
		c.u.update_mr.pdn = sfab_cpu_to_le32(1);
		c.u.update_mr.op = SFAB_MR_UPDATE_INVALIDATE;
		host_post(h, &c);
	}
	aq_ring(h);
	CHECK_EQ(sfab_engine_process(h->e), 4);
	for (i = 0; i < 4; i++) {
		REQUIRE(host_poll(h, &cpl));
		CHECK_EQ(cpl.status, SFAB_AQ_STS_OK);
	}
	CHECK(!h->e->mr[key >> 8].live);
	host_free(h);
}

/* before INIT_HCA (and after TEARDOWN_HCA) there is no MR to update */
TEST(needs_hca)
{
	struct fake_host *h = host_up(4);
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_UPDATE_MR);

	host_setup_aenq(h, 3);
	REQUIRE(host_fw_load(h) == SFAB_AQ_STS_OK);
	c.u.update_mr.op = SFAB_MR_UPDATE_INVALIDATE;
	c.u.update_mr.key = sfab_cpu_to_le32(0x100);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);
	CHECK(!dev_fatal(h));
	host_free(h);
}
