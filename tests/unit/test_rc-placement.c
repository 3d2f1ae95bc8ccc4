/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-placement: IBA 1.5's memory placement extensions (Annex A19,
 * SFAB_DEV_CAP_FLUSH) between the engines of an RC pair.  ATOMIC WRITE:
 * the 8 bytes land at the target, answered by a zero-length READ
 * response; misaligned is REM_INV_REQ_ERR, without REMOTE_WRITE or with a
 * bad key REM_ACCESS_ERR, memory untouched either way; with an SGE it
 * fails locally; a duplicate whose response was lost is answered again,
 * not written twice.  FLUSH: of a range and of the whole region
 * (whatever the range says), through an MR with SFAB_ACCESS_FLUSH_GLOBAL;
 * without that right, asking for persistence, past the MR's end (range
 * level), with a bad key: REM_ACCESS_ERR; a zero-length range checks
 * nothing; a bad type or level fails locally; it waits for the peer's
 * answer like a READ and takes one of its read/atomic resources.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS	1000000ULL
#define FL_OFF	(256 * 1024)
#define FL_LEN	(16 * 4096)

static unsigned int resp_zero, drop_resp;

/* zero-length READ Response Only frames to node 0; @drop_resp lost */
static bool watch_resp(unsigned int to, const uint8_t *f, size_t len)
{
	struct sfab_pkt_rc p;

	if (to != 0 || rp_opcode(f) != SFAB_OP_READ_RESP_ONLY ||
	    !sfab_link_pkt_parse_rc(f, len, &p))
		return false;
	if (!p.len)
		resp_zero++;
	if (drop_resp) {
		drop_resp--;
		return true;
	}
	return false;
}

/* one WQE from node 0 and its completion status */
static int run0(struct qh_rc_send *s, struct sfab_cqe *cqe)
{
	rp_post(0, s);
	rp_pump();
	if (!rp_poll(0, cqe)) {
		CHECK(!"node 0: no CQE");
		return -1;
	}
	return cqe->status;
}

static struct qh_rc_send awrite(uint64_t raddr, uint32_t rkey, uint64_t v)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_ATOMIC_WRITE, 0xa1, 0, 0, 0);

	s.nsge = 0;
	s.raddr = raddr;
	s.rkey = rkey;
	s.swap_add = v;
	return s;
}

static struct qh_rc_send flush(uint64_t raddr, uint32_t rkey, uint64_t len,
			       uint8_t type, uint8_t level)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_FLUSH, 0xf1, 0, 0, 0);

	s.nsge = 0;
	s.raddr = raddr;
	s.rkey = rkey;
	s.flush_len = len;
	s.flush_type = type;
	s.flush_level = level;
	return s;
}

static uint64_t mem64(unsigned int i, uint64_t off)
{
	uint64_t v;

	memcpy(&v, rp_mem(i, off), 8);
	return sfab_le64_to_cpu(v);
}

TEST(atomic_write)
{
	struct rp_cfg cfg = { 0 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t before, after;
	uint32_t ro;

	rp_up(&cfg);
	rp_drop = watch_resp;
	resp_zero = drop_resp = 0;
	rp_fill(1, 4096, 64, 0x5a);
	before = mem64(1, 4096);
	after = mem64(1, 4096 + 16);
	s = awrite(RP[1].mem + 4096 + 8, RP[1].key, 0x1122334455667788ULL);
	CHECK_EQ(run0(&s, &cqe), 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_ATOMIC_WRITE);
	CHECK_EQ(mem64(1, 4096 + 8), 0x1122334455667788ULL);
	CHECK_EQ(mem64(1, 4096), before);
	CHECK_EQ(mem64(1, 4096 + 16), after);
	CHECK_EQ(resp_zero, 1);
	CHECK_EQ(RP[1].h->e->stats.atomic_writes, 1);

	/* misaligned: an invalid request, nothing written */
	s = awrite(RP[1].mem + 4096 + 20, RP[1].key, 1);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_INV_REQ_ERR);
	CHECK_EQ(mem64(1, 4096 + 16), after);
	rp_reconnect();
	/* a bad key; an MR without remote write */
	s = awrite(RP[1].mem + 4096, RP[1].key ^ 1, 1);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_ACCESS_ERR);
	rp_reconnect();
	REQUIRE(qh_mr_contig(RP[1].h, RP[1].mem + 8192, 4096, RP_PD,
			     SFAB_ACCESS_LOCAL_WRITE | SFAB_ACCESS_REMOTE_READ,
			     &ro) == 0);
	s = awrite(RP[1].mem + 8192, ro, 1);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK_EQ(mem64(1, 8192), 0);
	rp_reconnect();
	/* local data with it: the WQE is bad */
	s = awrite(RP[1].mem + 4096, RP[1].key, 1);
	s.nsge = 1;
	s.sge[0].addr = RP[0].mem;
	s.sge[0].len = 8;
	s.sge[0].lkey = RP[0].key;
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_LOC_LEN_ERR);
	rp_reconnect();
	CHECK_EQ(RP[1].h->e->stats.atomic_writes, 1);
	CHECK(!dev_fatal(RP[0].h) && !dev_fatal(RP[1].h));
	rp_down();
}

/* the response lost: answered again, not executed again */
TEST(atomic_write_dup)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	rp_drop = watch_resp;
	resp_zero = 0;
	drop_resp = 1;
	s = awrite(RP[1].mem + 4096 + 24, RP[1].key, 77);
	rp_post(0, &s);
	rp_pump();
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(mem64(1, 4096 + 24), 77);
	memset(rp_mem(1, 4096 + 24), 0, 8);	/* changed since */
	rp_advance(70 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(mem64(1, 4096 + 24), 0);
	CHECK_EQ(RP[1].h->e->stats.atomic_writes, 1);
	CHECK_EQ(RP[1].h->e->stats.rc_dups, 1);
	CHECK_EQ(resp_zero, 2);
	CHECK(!dev_fatal(RP[0].h) && !dev_fatal(RP[1].h));
	rp_down();
}

TEST(flush)
{
	struct rp_cfg cfg = { .rd_atomic = 1 };
	uint64_t base;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint32_t fk;

	rp_up(&cfg);
	rp_drop = watch_resp;
	resp_zero = drop_resp = 0;
	base = RP[1].mem + FL_OFF;
	REQUIRE(qh_mr_contig(RP[1].h, base, FL_LEN, RP_PD,
			     RP_ALL_ACCESS | SFAB_ACCESS_FLUSH_GLOBAL, &fk) == 0);
	/* RP[1].key has every right but FLUSH_GLOBAL */

	s = flush(base + 4096, fk, 8192, SFAB_FLUSH_GLOBAL, SFAB_FLUSH_RANGE);
	CHECK_EQ(run0(&s, &cqe), 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_FLUSH);
	/* the whole MR: the range is not looked at */
	s = flush(0, fk, 1ULL << 40, SFAB_FLUSH_GLOBAL, SFAB_FLUSH_MR);
	CHECK_EQ(run0(&s, &cqe), 0);
	/* zero length: nothing to check */
	s = flush(0, 0x12345600, 0, SFAB_FLUSH_GLOBAL, SFAB_FLUSH_RANGE);
	CHECK_EQ(run0(&s, &cqe), 0);
	CHECK_EQ(resp_zero, 3);
	CHECK_EQ(RP[1].h->e->stats.flushes, 3);

#define FLUSH_REFUSED(...) do {						\
		s = flush(__VA_ARGS__);					\
		CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_REM_ACCESS_ERR);	\
		rp_reconnect();						\
	} while (0)
	FLUSH_REFUSED(base, RP[1].key, 64, SFAB_FLUSH_GLOBAL, SFAB_FLUSH_RANGE);
	FLUSH_REFUSED(base, RP[1].key, 0, SFAB_FLUSH_GLOBAL, SFAB_FLUSH_MR);
	FLUSH_REFUSED(base, fk, 64, SFAB_FLUSH_PERSISTENT, SFAB_FLUSH_RANGE);
	FLUSH_REFUSED(base, fk, 64, SFAB_FLUSH_GLOBAL | SFAB_FLUSH_PERSISTENT,
		      SFAB_FLUSH_MR);
	FLUSH_REFUSED(base + FL_LEN - 32, fk, 64, SFAB_FLUSH_GLOBAL,
		      SFAB_FLUSH_RANGE);
	FLUSH_REFUSED(base, fk ^ 1, 64, SFAB_FLUSH_GLOBAL, SFAB_FLUSH_MR);
	CHECK_EQ(RP[1].h->e->stats.flushes, 3);

	/* a type or level the contract does not have: the WQE is bad */
	s = flush(base, fk, 64, 0, SFAB_FLUSH_RANGE);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_LOC_QP_OP_ERR);
	rp_reconnect();
	s = flush(base, fk, 64, SFAB_FLUSH_GLOBAL, 2);
	CHECK_EQ(run0(&s, &cqe), SFAB_CQE_STS_LOC_QP_OP_ERR);
	rp_reconnect();

	/* behind a WRITE, and one at a time with rd_atomic 1, in order */
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x77, 0, 0, 512);
	s.raddr = base;
	s.rkey = fk;
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	s = flush(base, fk, 512, SFAB_FLUSH_GLOBAL, SFAB_FLUSH_RANGE);
	s.wr_id = 0x78;
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	s.wr_id = 0x79;
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x77);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x78);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x79);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 0, 1, FL_OFF, 512));
	CHECK(!dev_fatal(RP[0].h) && !dev_fatal(RP[1].h));
	rp_down();
}
