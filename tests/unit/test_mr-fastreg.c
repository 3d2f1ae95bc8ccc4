/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/mr-fastreg: fast-register MRs.  CREATE_MR with SFAB_MR_FAST_REG
 * gives a free MR (no access through it); a REG_MR WQE gives it a page
 * list (read when the WQE runs), a new key variant, an iova and rights; a
 * peer WRITEs and READs through it (pages in any order, first-byte
 * offset); SEND_INV invalidates it remotely (the receive CQE carries the
 * key and SFAB_CQE_INV) and LOCAL_INV locally; afterwards, and with the
 * old variant, access fails.  Bad REG_MRs (on a live MR, too many pages,
 * another PD, a plain MR) complete with MW_BIND_ERR, a LOCAL_INV of a
 * free MR with LOC_QP_OP_ERR.  REG_MR makes the device read a page list
 * of bus addresses: only privileged (SFAB_QP_PRIV, kernel) QPs may post
 * it; on any other QP it completes with LOC_QP_OP_ERR and the MR stays
 * free, its list unread.
 */
#include "harness.h"
#include "rc_pair.h"

static uint32_t fr_key;
static uint64_t fr_pages[4], fr_pbl;

/* a fast-reg MR of 4 pages on node 1, and 4 scattered pages to map */
static void fr_setup(void)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_MR);
	struct sfab_acq_entry cpl;
	struct fake_host *h = RP[1].h;
	unsigned int i;

	c.u.create_mr.flags = SFAB_MR_FAST_REG;
	c.u.create_mr.npages = sfab_cpu_to_le32(4);
	c.u.create_mr.pdn = sfab_cpu_to_le32(RP_PD);
	REQUIRE(host_cmd_full(h, &c, &cpl) == 0);
	fr_key = sfab_le32_to_cpu(cpl.result0);
	CHECK_EQ(fr_key & 0xff, 0);
	/* pages 3, 1, 2, 0 of a 4-page block */
	fr_pages[0] = host_alloc(h, 4 * 4096, 4096);
	for (i = 1; i < 4; i++)
		fr_pages[i] = fr_pages[0] + i * 4096;
	{
		uint64_t t = fr_pages[0];

		fr_pages[0] = fr_pages[3];
		fr_pages[3] = t;
	}
	memset(hp(h, fr_pages[0] < fr_pages[3] ? fr_pages[0] : fr_pages[3]), 0, 4 * 4096);
	fr_pbl = host_alloc(h, 64, 64);
	for (i = 0; i < 4; i++) {
		uint64_t v = sfab_cpu_to_le64(fr_pages[i]);

		memcpy(hp(h, fr_pbl + i * 8), &v, 8);
	}
}

static struct qh_rc_send reg_wqe(uint64_t wr_id, uint32_t key, uint64_t iova,
				 uint64_t len, uint32_t npages, uint32_t access)
{
	struct qh_rc_send s;

	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_REG_MR;
	s.wr_id = wr_id;
	s.flags = SFAB_WQE_SIGNALED;
	s.reg.iova = sfab_cpu_to_le64(iova);
	s.reg.length = sfab_cpu_to_le64(len);
	s.reg.pbl_addr = sfab_cpu_to_le64(fr_pbl);
	s.reg.key = sfab_cpu_to_le32(key);
	s.reg.access = sfab_cpu_to_le32(access);
	s.reg.npages = sfab_cpu_to_le32(npages);
	s.reg.page_shift = 12;
	return s;
}

static int one_cqe(unsigned int i, struct sfab_cqe *cqe)
{
	rp_pump();
	return rp_poll(i, cqe) ? cqe->status : -1;
}

#define IOVA	0x40000100ULL	/* first-byte offset 0x100 */
#define RW	(SFAB_ACCESS_LOCAL_WRITE | SFAB_ACCESS_REMOTE_WRITE | \
		 SFAB_ACCESS_REMOTE_READ)

TEST(register_use_invalidate)
{
	struct rp_cfg cfg = { .priv = true };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint32_t rkey;
	unsigned int k;

	rp_up(&cfg);
	fr_setup();
	rkey = fr_key | 0x2a;
	s = reg_wqe(0x1, rkey, IOVA, 3 * 4096, 4, RW);
	rp_post(1, &s);
	REQUIRE(one_cqe(1, &cqe) == 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_REG_MR);
	/* the list was read when the WQE ran: the host may reuse it now */
	memset(hp(RP[1].h, fr_pbl), 0xff, 32);
	for (k = 0; k < 4; k++) {
		uint64_t v = sfab_cpu_to_le64(fr_pages[k]);

		memcpy(hp(RP[1].h, fr_pbl + k * 8), &v, 8);
	}

	/* a WRITE of 5000 bytes at iova + 3000: crosses region pages 0-1-2 */
	rp_fill(0, 0, 5000, 17);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x10, 0, 0, 5000);
	s.raddr = IOVA + 3000;
	s.rkey = rkey;
	rp_post(0, &s);
	REQUIRE(one_cqe(0, &cqe) == 0);
	for (k = 0; k < 5000; k++) {
		uint64_t pos = 0x100 + 3000 + k;
		uint8_t *b = hp(RP[1].h, fr_pages[pos >> 12] + (pos & 4095));

		if (*b != *rp_mem(0, k)) {
			CHECK_EQ(*b, *rp_mem(0, k));
			break;
		}
	}
	/* and READ it back */
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x11, 0, 10000, 5000);
	s.raddr = IOVA + 3000;
	s.rkey = rkey;
	rp_post(0, &s);
	REQUIRE(one_cqe(0, &cqe) == 0);
	CHECK(!memcmp(rp_mem(0, 0), rp_mem(0, 10000), 5000));

	/* SEND with invalidate */
	rp_recv(1, 0x100, 65536, 256);
	s = rp_wqe(SFAB_WQE_SEND_INV, 0x12, 0, 0, 32);
	s.imm = rkey;
	rp_post(0, &s);
	REQUIRE(one_cqe(0, &cqe) == 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe.flags & SFAB_CQE_INV, SFAB_CQE_INV);
	{
		uint32_t got;

		memcpy(&got, &cqe.imm_data, 4);
		CHECK_EQ(sfab_le32_to_cpu(got), rkey);
	}
	CHECK(!RP[1].h->e->mr[fr_key >> 8].live);

	/* registered again with another variant, invalidated locally */
	s = reg_wqe(0x2, fr_key | 0x2b, IOVA, 3840, 1, RW);
	rp_post(1, &s);
	REQUIRE(one_cqe(1, &cqe) == 0);
	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_LOCAL_INV;
	s.wr_id = 0x3;
	s.flags = SFAB_WQE_SIGNALED;
	s.imm = fr_key | 0x2b;
	rp_post(1, &s);
	REQUIRE(one_cqe(1, &cqe) == 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_LOCAL_INV);
	/* again: the MR is free, that is an error */
	s.wr_id = 0x4;
	rp_post(1, &s);
	CHECK_EQ(one_cqe(1, &cqe), SFAB_CQE_STS_LOC_QP_OP_ERR);
	CHECK_EQ(rp_state(1), SFAB_QPS_ERR);

	/* QUERY_STATS counts what succeeded: 2 REG_MR, 1 LOCAL_INV, 1 SEND_INV */
	{
		struct sfab_port_stats ps;

		REQUIRE(host_query_stats(RP[1].h, &ps) == SFAB_AQ_STS_OK);
		CHECK_EQ(sfab_le64_to_cpu(ps.fast_reg_wqes), 2);
		CHECK_EQ(sfab_le64_to_cpu(ps.local_inv_wqes), 1);
		CHECK_EQ(sfab_le64_to_cpu(ps.remote_invs), 1);
		CHECK_EQ(ps.reserved[0], 0);
		REQUIRE(host_query_stats(RP[0].h, &ps) == SFAB_AQ_STS_OK);
		CHECK_EQ(sfab_le64_to_cpu(ps.fast_reg_wqes), 0);
		CHECK_EQ(sfab_le64_to_cpu(ps.remote_invs), 0);
	}
	rp_down();
}

/* a WRITE through @rkey from node 0: its status */
static int write_through(uint32_t rkey)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x20, 0, 0, 64);
	struct sfab_cqe cqe;

	s.raddr = IOVA;
	s.rkey = rkey;
	rp_post(0, &s);
	return one_cqe(0, &cqe);
}

TEST(no_access_when_free_or_old_variant)
{
	struct rp_cfg cfg = { .priv = true };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	fr_setup();
	CHECK_EQ(write_through(fr_key), SFAB_CQE_STS_REM_ACCESS_ERR);
	rp_down();

	rp_up(&cfg);
	fr_setup();
	s = reg_wqe(0x1, fr_key | 7, IOVA, 3840, 1, RW);
	rp_post(1, &s);
	REQUIRE(one_cqe(1, &cqe) == 0);
	CHECK_EQ(write_through(fr_key | 7), 0);
	CHECK_EQ(write_through(fr_key | 6), SFAB_CQE_STS_REM_ACCESS_ERR);
	rp_down();
}

TEST(bad_reg_mr)
{
	struct rp_cfg cfg = { .priv = true };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint32_t plain;
	unsigned int i;
	struct {
		uint32_t key_or;
		uint32_t npages;
		uint64_t len;
		int plain;
		bool twice;
	} bad[] = {
		{ 1, 5, 3840, 0, false },		/* more pages than it has */
		{ 1, 1, 2 * 4096, 0, false },		/* fewer than the length needs */
		{ 1, 1, 3840, 1, false },		/* not a fast-reg MR */
		{ 1, 1, 3840, 0, true },		/* already registered */
	};

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rp_up(&cfg);
		fr_setup();
		REQUIRE(qh_mr_contig(RP[1].h, RP[1].mem, 4096, RP_PD, 0, &plain) == 0);
		if (bad[i].twice) {
			s = reg_wqe(0x1, fr_key | 1, IOVA, 3840, 1, RW);
			rp_post(1, &s);
			REQUIRE(one_cqe(1, &cqe) == 0);
		}
		s = reg_wqe(0x2, (bad[i].plain ? plain : fr_key) | bad[i].key_or, IOVA,
			    bad[i].len, bad[i].npages, RW);
		rp_post(1, &s);
		CHECK_EQ(one_cqe(1, &cqe), SFAB_CQE_STS_MW_BIND_ERR);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x2);
		CHECK_EQ(rp_state(1), SFAB_QPS_ERR);
		rp_down();
	}
}

/*
 * A user QP (no SFAB_QP_PRIV) in the MR's PD posts a REG_MR that would
 * otherwise be valid: refused, the MR untouched, the list never read.
 */
TEST(unprivileged_qp_refused)
{
	struct rp_cfg cfg = { 0 };
	struct sfab_engine_mr *mr;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t sentinel;

	rp_up(&cfg);
	fr_setup();
	REQUIRE(!RP[1].h->e->qp[RP[1].qp.qpn].priv);
	mr = &RP[1].h->e->mr[fr_key >> 8];
	/* what the MR's pool extent holds now: a read of the list changes it */
	sentinel = RP[1].h->e->mr_pool[mr->pool_off];
	REQUIRE(sentinel != fr_pages[0]);
	s = reg_wqe(0x5, fr_key | 0x2a, IOVA, 3 * 4096, 4, RW);
	rp_post(1, &s);
	CHECK_EQ(one_cqe(1, &cqe), SFAB_CQE_STS_LOC_QP_OP_ERR);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x5);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_REG_MR);
	CHECK_EQ(rp_state(1), SFAB_QPS_ERR);
	CHECK(!mr->live);
	CHECK_EQ(mr->variant, 0);
	CHECK_EQ(mr->npages, 0);
	CHECK_EQ(mr->iova, 0);
	CHECK_EQ(mr->access, 0);
	CHECK_EQ(RP[1].h->e->mr_pool[mr->pool_off], sentinel);
	rp_down();
}
