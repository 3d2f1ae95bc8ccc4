/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-read-atomic: RDMA READ (one and many response packets, zero
 * length, several in flight limited by max_rd_atomic, completions in order
 * with sends around them), ATOMIC fetch-and-add and compare-and-swap (the
 * original value lands in the local buffer, memory changes on the far
 * side), and the responder's checks: a READ through an MR without remote
 * read, an rkey of the wrong variant, out of bounds, a QP without remote
 * read access, and a misaligned atomic - each NAKed with the IBA code, the
 * requester's WQE failing with REM_ACCESS_ERR or REM_INV_REQ_ERR, both QPs
 * in Error, the responder reporting ACCESS_ERR or REQ_ERR.
 */
#include "harness.h"
#include "rc_pair.h"

static unsigned int reads_out, reads_max;

/* counts READ requests sent against responses seen (node 0 -> 1 and back) */
static bool count_reads(unsigned int to, const uint8_t *f, size_t len)
{
	uint8_t op = rp_opcode(f);

	(void)len;
	if (to == 1 && op == SFAB_OP_READ_REQ) {
		reads_out++;
		if (reads_out > reads_max)
			reads_max = reads_out;
	}
	if (to == 0 && (op == SFAB_OP_READ_RESP_LAST || op == SFAB_OP_READ_RESP_ONLY))
		reads_out--;
	return false;
}

TEST(read)
{
	struct rp_cfg cfg = { .rd_atomic = 2 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int i;

	rp_up(&cfg);
	rp_fill(1, 50000, 3000, 7);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x50, 0, 10000, 3000);
	s.raddr = RP[1].mem + 50000;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RDMA_READ);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 3000);
	CHECK(rp_same(1, 50000, 0, 10000, 3000));

	/* zero length */
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x51, 0, 0, 0);
	s.nsge = 0;
	s.rkey = 0x12345600;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);

	/* six READs and sends between them: two READs in flight at most */
	reads_out = reads_max = 0;
	rp_drop = count_reads;
	for (i = 0; i < 6; i++) {
		rp_fill(1, 100000 + i * 1000, 1000, (uint8_t)(20 + i));
		s = rp_wqe(SFAB_WQE_RDMA_READ, 0x60 + i, 0, 200000 + i * 1000, 1000);
		s.raddr = RP[1].mem + 100000 + i * 1000;
		s.rkey = RP[1].key;
		qh_post_rc(RP[0].h, &RP[0].qp, &s);
		rp_recv(1, 0x700 + i, 300000 + i * 64, 64);
		s = rp_wqe(SFAB_WQE_SEND, 0x70 + i, 0, 0, 64);
		qh_post_rc(RP[0].h, &RP[0].qp, &s);
	}
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	rp_pump();
	for (i = 0; i < 12; i++) {
		REQUIRE(rp_poll(0, &cqe));
		CHECK_EQ(cqe.status, 0);
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), (i & 1 ? 0x70 : 0x60) + i / 2);
	}
	CHECK(!rp_poll(0, &cqe));
	CHECK(rp_same(1, 100000, 0, 200000, 6000));
	CHECK_EQ(reads_max, 2);
	rp_down();
}

TEST(atomics)
{
	struct rp_cfg cfg = { 0 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t v;

	rp_up(&cfg);
	v = 100;
	memcpy(rp_mem(1, 4096), &v, 8);
	s = rp_wqe(SFAB_WQE_ATOMIC_FA, 0x80, 0, 64, 8);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	s.swap_add = 5;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_ATOMIC_FA);
	memcpy(&v, rp_mem(0, 64), 8);
	CHECK_EQ(v, 100);
	memcpy(&v, rp_mem(1, 4096), 8);
	CHECK_EQ(v, 105);

	/* compare-and-swap: a miss leaves memory alone, a hit swaps */
	s = rp_wqe(SFAB_WQE_ATOMIC_CS, 0x81, 0, 72, 8);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	s.compare = 7;
	s.swap_add = 0xabcdef;
	rp_post(0, &s);
	s.wr_id = 0x82;
	s.sge[0].addr = RP[0].mem + 80;
	s.compare = 105;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_ATOMIC_CS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x82);
	memcpy(&v, rp_mem(0, 72), 8);
	CHECK_EQ(v, 105);
	memcpy(&v, rp_mem(0, 80), 8);
	CHECK_EQ(v, 105);
	memcpy(&v, rp_mem(1, 4096), 8);
	CHECK_EQ(v, 0xabcdef);

	/* an atomic's local buffer must be one SGE of 8 bytes */
	s = rp_wqe(SFAB_WQE_ATOMIC_FA, 0x83, 0, 64, 4);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_LEN_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	rp_down();
}

struct bad_case {
	const char *what;
	uint8_t opcode;
	uint32_t qp_access;	/* 0: all */
	int mr;			/* 0: the node's MR, 1: a local-write-only MR */
	uint32_t key_xor;
	uint64_t off;
	uint32_t len;
	uint8_t status, event;
};

static void bad_remote(const struct bad_case *b)
{
	struct rp_cfg cfg = { .access = b->qp_access };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	struct sfab_aenq_entry ev;
	uint32_t key_ro;
	bool seen = false;

	rp_up(&cfg);
	REQUIRE(qh_mr_contig(RP[1].h, RP[1].mem + 8192, 4096, RP_PD,
			     SFAB_ACCESS_LOCAL_WRITE, &key_ro) == 0);
	while (host_aenq_poll(RP[1].h, &ev))
		;
	s = rp_wqe(b->opcode, 0x90, 0, 0, b->len);
	s.raddr = RP[1].mem + b->off;
	s.rkey = (b->mr ? key_ro : RP[1].key) ^ b->key_xor;
	s.swap_add = 1;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	if (cqe.status != b->status)
		fprintf(stderr, "case %s\n", b->what);
	CHECK_EQ(cqe.status, b->status);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x90);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK_EQ(rp_state(1), SFAB_QPS_ERR);
	while (host_aenq_poll(RP[1].h, &ev))
		if (ev.type == SFAB_AENQ_QP_EVENT && ev.data0 == RP[1].qp.qpn &&
		    ev.data1 == b->event)
			seen = true;
	if (!seen)
		fprintf(stderr, "case %s: no event %u\n", b->what, b->event);
	CHECK(seen);
	rp_down();
}

TEST(responder_checks)
{
	static const struct bad_case cases[] = {
		{ "read, MR without remote read", SFAB_WQE_RDMA_READ, 0, 1, 0, 8192, 64,
		  SFAB_CQE_STS_REM_ACCESS_ERR, SFAB_QP_EV_ACCESS_ERR },
		{ "read, wrong variant", SFAB_WQE_RDMA_READ, 0, 0, 3, 0, 64,
		  SFAB_CQE_STS_REM_ACCESS_ERR, SFAB_QP_EV_ACCESS_ERR },
		{ "read, out of bounds", SFAB_WQE_RDMA_READ, 0, 0, 0, RP_MEM - 32, 64,
		  SFAB_CQE_STS_REM_ACCESS_ERR, SFAB_QP_EV_ACCESS_ERR },
		{ "read, QP without remote read", SFAB_WQE_RDMA_READ,
		  SFAB_ACCESS_REMOTE_WRITE, 0, 0, 0, 64,
		  SFAB_CQE_STS_REM_ACCESS_ERR, SFAB_QP_EV_ACCESS_ERR },
		{ "write, MR without remote write", SFAB_WQE_RDMA_WRITE, 0, 1, 0, 8192, 64,
		  SFAB_CQE_STS_REM_ACCESS_ERR, SFAB_QP_EV_ACCESS_ERR },
		{ "write, no such key", SFAB_WQE_RDMA_WRITE, 0, 0, 0x4400, 0, 64,
		  SFAB_CQE_STS_REM_ACCESS_ERR, SFAB_QP_EV_ACCESS_ERR },
		{ "atomic, misaligned", SFAB_WQE_ATOMIC_FA, 0, 0, 0, 4, 8,
		  SFAB_CQE_STS_REM_INV_REQ_ERR, SFAB_QP_EV_REQ_ERR },
		{ "atomic, QP without remote atomic", SFAB_WQE_ATOMIC_FA,
		  SFAB_ACCESS_REMOTE_READ, 0, 0, 0, 8,
		  SFAB_CQE_STS_REM_ACCESS_ERR, SFAB_QP_EV_ACCESS_ERR },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		bad_remote(&cases[i]);
}
