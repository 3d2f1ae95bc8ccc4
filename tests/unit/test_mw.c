/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/mw: memory windows in the HCA engine (SFAB_DEV_CAP_MW,
 * include/sfab/sfab_queue.h), between two engines of an RC pair.  Node 1
 * has an MR registered with MW_BIND and windows on it, bound by BIND_MW
 * WQEs on its QP; node 0 is the peer that uses them.  Type 1: a bound
 * window passes WRITEs and READs inside it and with its rights only, with
 * its current key only; rebinding with length 0 unbinds it (no MR
 * needed); the MR under it cannot be re-registered; invalidating it
 * fails.  Type 2: bound to one QP, which alone may use it; bound again
 * while bound is MW_BIND_ERR; LOCAL_INV and a received SEND_INV free it;
 * DESTROY_QP frees it.  Every IBA bind error is MW_BIND_ERR with the
 * window untouched; an MR with windows on it cannot be destroyed; a
 * window's key is no lkey; CREATE_MR and UPDATE_MR refuse what makes no
 * sense for a window; on a zero-based MR a window covers the MR's iova
 * range only.
 */
#include "harness.h"
#include "rc_pair.h"

#define MW_OFF		65536			/* node 1: the MR with MW_BIND */
#define MW_LEN		(8 * 4096)
#define ALL_MW		(RP_ALL_ACCESS | SFAB_ACCESS_MW_BIND)
#define REMOTE		(SFAB_ACCESS_REMOTE_WRITE | SFAB_ACCESS_REMOTE_READ)

static uint32_t mr_key;				/* node 1's MR with MW_BIND */

static uint64_t base(void)
{
	return RP[1].mem + MW_OFF;
}

static void mw_up(void)
{
	rp_up(&(struct rp_cfg){ 0 });
	REQUIRE(qh_mr_contig(RP[1].h, base(), MW_LEN, RP_PD, ALL_MW,
			     &mr_key) == 0);
	rp_fill(0, 0, 8192, 0x21);
}

static int window_new(unsigned int type, uint32_t pdn, uint32_t *key)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_MR);
	struct sfab_acq_entry cpl;
	int st;

	c.u.create_mr.flags = SFAB_MR_WINDOW |
			      (type == 2 ? SFAB_MR_WINDOW_TYPE2 : 0);
	c.u.create_mr.pdn = sfab_cpu_to_le32(pdn);
	st = host_cmd_full(RP[1].h, &c, &cpl);
	*key = sfab_le32_to_cpu(cpl.result0);
	return st;
}

/* one WQE on node 1's QP (or @qp) and its CQE status */
static int run1(struct qh_qp *qp, const struct qh_rc_send *s,
		struct sfab_cqe *cqe)
{
	qh_post_rc(RP[1].h, qp, s);
	qh_qp_db(RP[1].h, qp, true);
	rp_pump();
	if (!rp_poll(1, cqe)) {
		CHECK(!"node 1: no CQE");
		return -1;
	}
	return cqe->status;
}

static int bind(uint32_t mw, uint32_t mr, uint64_t addr, uint64_t len,
		uint32_t access)
{
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	int st;

	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_BIND_MW;
	s.wr_id = 0xb1;
	s.flags = SFAB_WQE_SIGNALED;
	s.bind.addr = sfab_cpu_to_le64(addr);
	s.bind.length = sfab_cpu_to_le64(len);
	s.bind.mw_key = sfab_cpu_to_le32(mw);
	s.bind.mr_key = sfab_cpu_to_le32(mr);
	s.bind.access = sfab_cpu_to_le32(access);
	st = run1(&RP[1].qp, &s, &cqe);
	if (!st)
		CHECK_EQ(cqe_op(&cqe), SFAB_CQE_BIND_MW);
	return st;
}

static int local_inv(uint32_t key)
{
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_LOCAL_INV;
	s.wr_id = 0x1f;
	s.flags = SFAB_WQE_SIGNALED;
	s.imm = key;
	return run1(&RP[1].qp, &s, &cqe);
}

/* node 0's WRITE, READ or FETCH_ADD (8 bytes) at @addr through @key */
static int peer(uint8_t op, uint32_t key, uint64_t addr, uint32_t len)
{
	uint64_t off = op == SFAB_WQE_RDMA_READ ? 16384 :
		       op == SFAB_WQE_ATOMIC_FA ? 20000 : 0;
	struct qh_rc_send s = rp_wqe(op, 0x77, 0, off, len);
	struct sfab_cqe cqe;
	int st;

	s.raddr = addr;
	s.rkey = key;
	s.swap_add = 1;
	rp_post(0, &s);
	rp_pump();
	if (!rp_poll(0, &cqe)) {
		CHECK(!"node 0: no CQE");
		return -1;
	}
	st = cqe.status;
	if (st)
		rp_reconnect();
	return st;
}

static int peer_atomic(uint32_t key, uint64_t addr)
{
	return peer(SFAB_WQE_ATOMIC_FA, key, addr, 8);
}

/* UPDATE_MR MODIFY of node 1's MR @key in its PD to @access */
static int mr_modify(uint32_t key, uint32_t access)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_UPDATE_MR);

	c.u.update_mr.key = sfab_cpu_to_le32(key);
	c.u.update_mr.pdn = sfab_cpu_to_le32(RP_PD);
	c.u.update_mr.op = SFAB_MR_UPDATE_MODIFY;
	c.u.update_mr.new_pdn = sfab_cpu_to_le32(RP_PD);
	c.u.update_mr.new_access = sfab_cpu_to_le32(access);
	return host_cmd(RP[1].h, &c);
}

static uint32_t variant(uint32_t key, uint8_t v)
{
	return (key & ~SFAB_MR_KEY_VARIANT_MASK) | v;
}

TEST(type1)
{
	uint32_t w, k;
	uint8_t before[4096];

	mw_up();
	REQUIRE(window_new(1, RP_PD, &w) == 0);
	/* unbound: its key names nothing */
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, w, base(), 64),
		 SFAB_CQE_STS_REM_ACCESS_ERR);

	k = variant(w, 1);
	REQUIRE(bind(k, mr_key, base() + 4096, 4096, REMOTE) == 0);
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, k, base() + 4096 + 100, 200), 0);
	CHECK(rp_same(0, 0, 1, MW_OFF + 4096 + 100, 200));
	CHECK_EQ(peer(SFAB_WQE_RDMA_READ, k, base() + 4096, 4096), 0);
	CHECK(rp_same(0, 16384, 1, MW_OFF + 4096, 4096));

	/* outside the window, though inside the MR: refused, nothing moves */
	memcpy(before, rp_mem(1, MW_OFF), sizeof(before));
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, k, base(), 64),
		 SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, k, base() + 8192 - 32, 64),
		 SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK(!memcmp(before, rp_mem(1, MW_OFF), sizeof(before)));
	/* a right the window lacks; the old variant */
	CHECK_EQ(peer_atomic(k, base() + 4096), SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, w, base() + 4096, 64),
		 SFAB_CQE_STS_REM_ACCESS_ERR);

	/* rebound elsewhere with another variant: only the new key works */
	REQUIRE(bind(variant(w, 2), mr_key, base() + 3 * 4096, 4096,
		     SFAB_ACCESS_REMOTE_READ) == 0);
	CHECK_EQ(peer(SFAB_WQE_RDMA_READ, k, base() + 4096, 64),
		 SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK_EQ(peer(SFAB_WQE_RDMA_READ, variant(w, 2), base() + 3 * 4096, 64), 0);
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, variant(w, 2), base() + 3 * 4096, 64),
		 SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK_EQ(RP[1].h->e->mr[mr_key >> 8].windows, 1);

	/* a type 1 window is not invalidated by LOCAL_INV */
	CHECK_EQ(local_inv(variant(w, 2)), SFAB_CQE_STS_LOC_QP_OP_ERR);
	rp_reconnect();
	/* re-registering the MR under a bound window: refused */
	CHECK_EQ(mr_modify(mr_key, SFAB_ACCESS_LOCAL_WRITE),
		 SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(RP[1].h->e->mr[mr_key >> 8].access, ALL_MW);
	/* length 0: unbound, whatever mr_key and addr say; access still counts */
	CHECK_EQ(bind(variant(w, 3), 0, 0, 0, SFAB_ACCESS_LOCAL_WRITE),
		 SFAB_CQE_STS_MW_BIND_ERR);
	rp_reconnect();
	CHECK_EQ(RP[1].h->e->mr[mr_key >> 8].windows, 1);
	REQUIRE(bind(variant(w, 3), 0, 0, 0, 0) == 0);
	CHECK_EQ(RP[1].h->e->mr[mr_key >> 8].windows, 0);
	CHECK_EQ(mr_modify(mr_key, ALL_MW), SFAB_AQ_STS_OK);
	CHECK_EQ(peer(SFAB_WQE_RDMA_READ, variant(w, 3), base(), 1),
		 SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK(!dev_fatal(RP[1].h));
	rp_down();
}

/*
 * A zero-based MR (iova 0 over pages anywhere): a window covers its iova
 * range, not the buffer's addresses; a peer's address is one in the
 * window.
 */
TEST(zero_based)
{
	uint64_t pages[2];
	uint32_t zb, w;

	mw_up();
	pages[0] = RP[1].mem + 512 * 1024;
	pages[1] = pages[0] + 4096;
	REQUIRE(qh_mr_new(RP[1].h, 0, 8192, pages, 2, 12, RP_PD, ALL_MW,
			  &zb) == 0);
	REQUIRE(window_new(1, RP_PD, &w) == 0);
	/* the buffer's own address is not in the MR: MW_BIND_ERR */
	CHECK_EQ(bind(variant(w, 1), zb, pages[0], 4096, REMOTE),
		 SFAB_CQE_STS_MW_BIND_ERR);
	rp_reconnect();
	CHECK(!RP[1].h->e->mr[w >> 8].live);
	/* past its end */
	CHECK_EQ(bind(variant(w, 1), zb, 4096, 8192, REMOTE),
		 SFAB_CQE_STS_MW_BIND_ERR);
	rp_reconnect();
	REQUIRE(bind(variant(w, 1), zb, 4096, 4096, REMOTE) == 0);
	/* iova 4096 + 100 is the second page's byte 100 */
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, variant(w, 1), 4096 + 100, 200), 0);
	CHECK(rp_same(0, 0, 1, 516 * 1024 + 100, 200));
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, variant(w, 1), 100, 200),
		 SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK(!dev_fatal(RP[1].h));
	rp_down();
}

TEST(type2)
{
	struct qh_qp b[2];
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint32_t w, k, m;

	mw_up();
	REQUIRE(window_new(2, RP_PD, &w) == 0);
	k = variant(w, 5);
	REQUIRE(bind(k, mr_key, base(), MW_LEN, REMOTE |
		     SFAB_ACCESS_REMOTE_ATOMIC) == 0);
	CHECK_EQ(RP[1].h->e->mr[w >> 8].qpn, RP[1].qp.qpn);
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, k, base() + 8, 300), 0);
	CHECK(rp_same(0, 0, 1, MW_OFF + 8, 300));
	CHECK_EQ(peer_atomic(k, base() + 4096), 0);

	/* bound already: MW_BIND_ERR, still bound to the same range */
	CHECK_EQ(bind(variant(w, 6), mr_key, base(), 4096, REMOTE),
		 SFAB_CQE_STS_MW_BIND_ERR);
	rp_reconnect();
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, k, base() + MW_LEN - 64, 64), 0);

	/* another QP of node 1 may not use it */
	rp_pair2(b);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x79, 0, 0, 64);
	s.raddr = base();
	s.rkey = k;
	qh_post_rc(RP[0].h, &b[0], &s);
	qh_qp_db(RP[0].h, &b[0], true);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_REM_ACCESS_ERR);

	/* LOCAL_INV by its QP frees it */
	CHECK_EQ(local_inv(k), 0);
	CHECK_EQ(RP[1].h->e->mr[mr_key >> 8].windows, 0);
	CHECK_EQ(peer(SFAB_WQE_RDMA_WRITE, k, base(), 64),
		 SFAB_CQE_STS_REM_ACCESS_ERR);

	/* bound again; a SEND_INV node 1's QP receives frees it */
	m = variant(w, 7);
	REQUIRE(bind(m, mr_key, base(), 4096, REMOTE) == 0);
	rp_recv(1, 0x90, 200000, 256);
	s = rp_wqe(SFAB_WQE_SEND_INV, 0x91, 0, 0, 16);
	s.imm = m;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(cqe.flags & SFAB_CQE_INV);
	CHECK_EQ(peer(SFAB_WQE_RDMA_READ, m, base(), 64),
		 SFAB_CQE_STS_REM_ACCESS_ERR);

	/* bound, then its QP destroyed: freed with it */
	REQUIRE(bind(variant(w, 8), mr_key, base(), 4096, REMOTE) == 0);
	CHECK_EQ(RP[1].h->e->mr[mr_key >> 8].windows, 1);
	{
		struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_QP);

		c.u.destroy_qp.qpn = sfab_cpu_to_le32(RP[1].qp.qpn);
		CHECK_EQ(host_cmd(RP[1].h, &c), 0);
	}
	CHECK_EQ(RP[1].h->e->mr[mr_key >> 8].windows, 0);
	CHECK(!RP[1].h->e->mr[w >> 8].live);
	CHECK(!dev_fatal(RP[1].h));
	rp_down();
}

TEST(bind_errors)
{
	struct sfab_engine_mr saved;
	uint32_t w, w2, plain, other_pd, ro;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	mw_up();
	REQUIRE(window_new(1, RP_PD, &w) == 0);
	REQUIRE(window_new(1, 2, &other_pd) == 0);
	REQUIRE(window_new(2, RP_PD, &w2) == 0);
	REQUIRE(qh_mr_contig(RP[1].h, RP[1].mem + 300000, 8192, RP_PD,
			     RP_ALL_ACCESS, &plain) == 0);
	REQUIRE(qh_mr_contig(RP[1].h, RP[1].mem + 400000, 8192, RP_PD,
			     SFAB_ACCESS_REMOTE_READ | SFAB_ACCESS_MW_BIND,
			     &ro) == 0);
	saved = RP[1].h->e->mr[w >> 8];

#define BIND_BAD(...) do {						\
		CHECK_EQ(bind(__VA_ARGS__), SFAB_CQE_STS_MW_BIND_ERR);	\
		rp_reconnect();						\
		CHECK(!memcmp(&saved, &RP[1].h->e->mr[w >> 8],		\
			      sizeof(saved)));				\
	} while (0)
	BIND_BAD(variant(w, 1), plain, RP[1].mem + 300000, 4096, REMOTE);
	BIND_BAD(variant(w, 1), mr_key, base() - 4096, 4096, REMOTE);
	BIND_BAD(variant(w, 1), mr_key, base() + MW_LEN - 4096, 8192, REMOTE);
	BIND_BAD(variant(w, 1), mr_key, base(), 4096, SFAB_ACCESS_LOCAL_WRITE);
	BIND_BAD(variant(w, 1), mr_key | 3, base(), 4096, REMOTE);
	BIND_BAD(variant(w, 1), w2, base(), 4096, REMOTE);
	BIND_BAD(variant(w, 1), ro, RP[1].mem + 400000, 4096,
		 SFAB_ACCESS_REMOTE_WRITE);
	BIND_BAD(plain, mr_key, base(), 4096, REMOTE);
	CHECK_EQ(bind(variant(other_pd, 1), mr_key, base(), 4096, REMOTE),
		 SFAB_CQE_STS_MW_BIND_ERR);
	rp_reconnect();
	CHECK(!RP[1].h->e->mr[other_pd >> 8].live);
	/* a read-only window on a read-only MR is fine */
	CHECK_EQ(bind(variant(w, 1), ro, RP[1].mem + 400000, 4096,
		      SFAB_ACCESS_REMOTE_READ), 0);

	/* a window's key as an lkey: LOC_PROT_ERR */
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x80, 1, 400000, 64);
	s.sge[0].lkey = variant(w, 1);
	s.raddr = RP[0].mem;
	s.rkey = RP[0].key;
	CHECK_EQ(run1(&RP[1].qp, &s, &cqe), SFAB_CQE_STS_LOC_PROT_ERR);
	rp_reconnect();

	/* an MR with a window on it stays; without, it goes */
	CHECK_EQ(qh_mr_destroy(RP[1].h, ro), SFAB_AQ_STS_BAD_STATE);
	CHECK_EQ(qh_mr_destroy(RP[1].h, w), 0);
	CHECK_EQ(RP[1].h->e->mr[ro >> 8].windows, 0);
	CHECK_EQ(qh_mr_destroy(RP[1].h, ro), 0);
	CHECK(!dev_fatal(RP[1].h));
	rp_down();
}

TEST(commands)
{
	struct sfab_aq_cmd c;
	uint32_t w;

	mw_up();
	c = cmd_new(SFAB_AQ_CREATE_MR);
	c.u.create_mr.flags = SFAB_MR_WINDOW_TYPE2;	/* without WINDOW */
	c.u.create_mr.pdn = sfab_cpu_to_le32(RP_PD);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_mr.flags = SFAB_MR_WINDOW | SFAB_MR_FAST_REG;
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_mr.flags = SFAB_MR_WINDOW;
	c.u.create_mr.length = sfab_cpu_to_le64(4096);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_mr.length = 0;
	c.u.create_mr.access = sfab_cpu_to_le32(SFAB_ACCESS_REMOTE_READ);
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.create_mr.access = 0;
	c.u.create_mr.pdn = sfab_cpu_to_le32(256);	/* max_pd */
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);

	/* UPDATE_MR has nothing to do with a window */
	REQUIRE(window_new(2, RP_PD, &w) == 0);
	c = cmd_new(SFAB_AQ_UPDATE_MR);
	c.u.update_mr.key = sfab_cpu_to_le32(w);
	c.u.update_mr.pdn = sfab_cpu_to_le32(RP_PD);
	c.u.update_mr.op = SFAB_MR_UPDATE_INVALIDATE;
	CHECK_EQ(host_cmd(RP[1].h, &c), SFAB_AQ_STS_BAD_PARAM);
	/* node 1: the pair's MR, the MW_BIND one, the window */
	CHECK_EQ(RP[1].h->e->num_mr, 3);
	CHECK_EQ(qh_mr_destroy(RP[1].h, w), 0);
	CHECK_EQ(qh_mr_destroy(RP[1].h, w), SFAB_AQ_STS_BAD_PARAM);
	rp_down();
}
