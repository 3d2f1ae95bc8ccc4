/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-dup: duplicate requests at the responder.  A SEND whose ACK was
 * lost comes again: ACKed, not received twice.  A WRITE likewise: memory
 * changed after the first one stays changed.  A READ whose response was
 * lost is executed again (the retry returns what memory holds now).  An
 * atomic whose ACK was lost returns the saved original value and is not
 * executed twice.  A duplicate too old to be remembered is dropped.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS	1000000ULL

static unsigned int drop_resp;	/* ACK-class frames to node 0 to lose */

static bool lose_resp(unsigned int to, const uint8_t *f, size_t len)
{
	uint8_t op = rp_opcode(f);

	(void)len;
	if (to == 0 && drop_resp && op >= SFAB_OP_READ_RESP_FIRST &&
	    op <= SFAB_OP_ATOMIC_ACK) {
		drop_resp--;
		return true;
	}
	return false;
}

TEST(dup_send_write)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	rp_drop = lose_resp;
	rp_recv(1, 0x100, 65536, 256);
	rp_recv(1, 0x101, 65536 + 256, 256);
	drop_resp = 1;
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 64);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x100);
	rp_advance(70 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(!rp_poll(1, &cqe));
	CHECK_EQ(RP[1].h->e->stats.rc_dups, 1);
	CHECK_EQ(RP[1].h->e->stats.recvs, 1);

	/* WRITE: the far side changes the memory before the duplicate comes */
	rp_fill(0, 0, 300, 5);
	drop_resp = 1;
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x11, 0, 0, 300);
	s.raddr = RP[1].mem + 8192;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	CHECK(rp_same(0, 0, 1, 8192, 300));
	memset(rp_mem(1, 8192), 0x77, 300);
	rp_advance(70 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(*rp_mem(1, 8192), 0x77);
	CHECK_EQ(*rp_mem(1, 8192 + 299), 0x77);
	CHECK_EQ(RP[1].h->e->stats.rc_dups, 3);	/* 2 packets of 256 */
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);
	rp_down();
}

TEST(dup_read_reexecuted)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	rp_drop = lose_resp;
	rp_fill(1, 20000, 600, 1);
	drop_resp = 2;		/* the first two of three responses */
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x20, 0, 40000, 600);
	s.raddr = RP[1].mem + 20000;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	CHECK(!rp_poll(0, &cqe));
	/* the memory changes; the retried READ reads it again */
	rp_fill(1, 20000, 600, 99);
	rp_advance(70 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 600);
	CHECK(rp_same(1, 20000, 0, 40000, 600));
	CHECK_EQ(RP[1].h->e->stats.rc_dups, 1);

	rp_down();
}

static unsigned int resp_seen, req_seen;
static uint32_t req_psn[8];

/* lose the 2nd READ response only; note the READ requests */
static bool lose_middle(unsigned int to, const uint8_t *f, size_t len)
{
	(void)len;
	if (to == 1 && rp_opcode(f) == SFAB_OP_READ_REQ && req_seen < 8)
		req_psn[req_seen++] = rp_psn(f);
	if (to == 0 && rp_opcode(f) >= SFAB_OP_READ_RESP_FIRST &&
	    rp_opcode(f) <= SFAB_OP_READ_RESP_ONLY)
		return ++resp_seen == 2;
	return false;
}

TEST(read_resumes_at_lost_response)
{
	struct rp_cfg cfg = { .retry_cnt = 3, .psn0 = 1000 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	resp_seen = req_seen = 0;
	rp_drop = lose_middle;
	rp_fill(1, 20000, 600, 1);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x20, 0, 40000, 600);
	s.raddr = RP[1].mem + 20000;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	CHECK(!rp_poll(0, &cqe));
	rp_advance(70 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(1, 20000, 0, 40000, 600));
	/* the second request asks from the lost response's PSN on */
	REQUIRE(req_seen == 2);
	CHECK_EQ(req_psn[0], 1000);
	CHECK_EQ(req_psn[1], 1001);
	CHECK_EQ(resp_seen, 5);		/* 3, then the last 2 again */
	rp_down();
}

TEST(dup_atomic_saved)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t v = 10;

	rp_up(&cfg);
	rp_drop = lose_resp;
	memcpy(rp_mem(1, 4096), &v, 8);
	drop_resp = 1;
	s = rp_wqe(SFAB_WQE_ATOMIC_FA, 0x30, 0, 64, 8);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	s.swap_add = 1;
	rp_post(0, &s);
	rp_pump();
	memcpy(&v, rp_mem(1, 4096), 8);
	CHECK_EQ(v, 11);
	CHECK(!rp_poll(0, &cqe));
	rp_advance(70 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	memcpy(&v, rp_mem(0, 64), 8);
	CHECK_EQ(v, 10);		/* the saved original */
	memcpy(&v, rp_mem(1, 4096), 8);
	CHECK_EQ(v, 11);		/* executed once */
	CHECK_EQ(RP[1].h->e->stats.rc_dups, 1);
	rp_down();
}
