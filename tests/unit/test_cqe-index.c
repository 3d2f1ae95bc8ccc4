/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/cqe-index: SFAB_DEV_CAP_CQE_WQE_INDEX.  The device reports the cap;
 * a send CQE carries the SQ index its WQE was posted at (sfab_cqe.wqe_index)
 * and a successful send WQE without SFAB_WQE_SIGNALED writes no CQE: RC
 * WRITEs and UD SENDs posted unsignalled then one signalled give one CQE
 * with the last index; an error on an unsignalled WQE gives a CQE with its
 * index, and the WQEs flushed behind it carry theirs.  Receive CQEs keep
 * the SLID in the same place.
 */
#include "harness.h"
#include "rc_pair.h"

#define CI_QKEY		0x11110001U

static struct qh_rc_send write_wqe(uint64_t wr_id, uint64_t off, uint32_t len,
				   bool signaled)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_RDMA_WRITE, wr_id, 0, off, len);

	s.flags = signaled ? SFAB_WQE_SIGNALED : 0;
	s.raddr = RP[1].mem + 65536 + off;
	s.rkey = RP[1].key;
	return s;
}

TEST(device_cap)
{
	struct fake_host *h = qh_up();
	struct sfab_aq_cmd c = cmd_query_device(h->scratch, sizeof(struct sfab_dev_attr));
	struct sfab_dev_attr a;
	size_t i;

	REQUIRE(host_cmd(h, &c) == 0);
	memcpy(&a, hp(h, h->scratch), sizeof(a));
	CHECK(sfab_le32_to_cpu(a.dev_caps) & SFAB_DEV_CAP_CQE_WQE_INDEX);
	/* no cap but those the engine has, and the reserved tail stays zero */
	CHECK_EQ(sfab_le32_to_cpu(a.dev_caps),
		 SFAB_DEV_CAP_CQE_WQE_INDEX | SFAB_DEV_CAP_QUERY_STATS |
		 SFAB_DEV_CAP_QUEUES | SFAB_DEV_CAP_MR | SFAB_DEV_CAP_SRQ |
		 SFAB_DEV_CAP_MR_UPDATE | SFAB_DEV_CAP_DBREC |
		 SFAB_DEV_CAP_MCAST | SFAB_DEV_CAP_RESIZE_CQ |
		 SFAB_DEV_CAP_RESIZE_SRQ | SFAB_DEV_CAP_MW |
		 SFAB_DEV_CAP_FLUSH | SFAB_DEV_CAP_XRC);
	for (i = 0; i < sizeof(a.reserved); i++)
		CHECK_EQ(a.reserved[i], 0);
	host_free(h);
}

/* unsignalled WRITEs then a signalled one: one CQE, the last one's index */
TEST(rc_unsignaled_writes)
{
	struct rp_cfg cfg = { .psn0 = 10, .psn1 = 20 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int i;

	rp_up(&cfg);
	rp_fill(0, 0, 4096, 7);
	for (i = 0; i < 3; i++) {
		s = write_wqe(0x100 + i, i * 1024, 1024, false);
		rp_post(0, &s);
	}
	s = write_wqe(0x103, 3 * 1024, 1024, true);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x103);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RDMA_WRITE);
	CHECK_EQ(sfab_cqe_wqe_index(&cqe), 3);
	CHECK(!rp_poll(0, &cqe));
	CHECK(!rp_poll(1, &cqe));
	CHECK(rp_same(0, 0, 1, 65536, 4096));

	/* the indices run on: two more unsignalled, then a signalled SEND */
	for (i = 0; i < 2; i++) {
		s = write_wqe(0x200 + i, 0, 64, false);
		rp_post(0, &s);
	}
	rp_recv(1, 0x300, 131072, 256);
	s = rp_wqe(SFAB_WQE_SEND, 0x202, 0, 0, 200);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x202);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_SEND);
	CHECK_EQ(sfab_cqe_wqe_index(&cqe), 6);
	CHECK(!rp_poll(0, &cqe));
	/* the receive CQE: the SLID where a send has the index */
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x300);
	CHECK_EQ(RP[1].h->e->stats.sends, 0);
	CHECK_EQ(RP[0].h->e->stats.sends, 7);
	rp_down();
}

/* an unsignalled WQE that fails shows, with its index; the rest flush */
TEST(rc_error_and_flush)
{
	/* no retries: the error must not cost WQE 0 its completion */
	struct rp_cfg cfg = { .psn0 = 1, .psn1 = 2, .retry_cnt = 0 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned int i;

	rp_up(&cfg);
	s = write_wqe(0x10, 0, 64, false);
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	s = write_wqe(0x11, 64, 64, false);
	s.sge[0].lkey = 0xbad00;		/* no such MR */
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	for (i = 0; i < 2; i++) {
		s = write_wqe(0x12 + i, 128, 64, i == 1);
		qh_post_rc(RP[0].h, &RP[0].qp, &s);
	}
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	rp_pump();
	/*
	 * WQE 0's packet asked for no ACK (the next WQE looked sendable):
	 * when WQE 1's data cannot be read, WQE 0 goes again asking for one,
	 * at once and without using a retry, so the error completes without
	 * the ACK timeout (no clock moves here) and WQE 0 succeeds.
	 */
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_PROT_ERR);
	CHECK_EQ(sfab_cqe_wqe_index(&cqe), 1);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	/* both flushed, unsignalled or not, each with its index */
	for (i = 0; i < 2; i++) {
		REQUIRE(rp_poll(0, &cqe));
		CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x12 + i);
		CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
		CHECK_EQ(sfab_cqe_wqe_index(&cqe), 2 + i);
	}
	CHECK(!rp_poll(0, &cqe));
	CHECK_EQ(RP[0].h->e->stats.sends, 1);
	rp_down();
}

/* UD: the same, an unsignalled error, and the indices wrap at 16 bits */
TEST(ud_unsignaled_sends)
{
	struct rp_cfg cfg = { 0 };
	struct qh_qp ud[2];
	struct qh_send s;
	struct sfab_cqe cqe;
	struct sfab_engine_qp *eqp;
	unsigned int i, got = 0;

	rp_up(&cfg);
	for (i = 0; i < 2; i++) {
		REQUIRE(qh_qp_new(RP[i].h, &ud[i], SFAB_QPT_UD, 4, RP[i].cq.cqn,
				  RP[i].cq.cqn) == 0);
		REQUIRE(qh_qp_rts(RP[i].h, &ud[i], CI_QKEY) == 0);
	}
	for (i = 0; i < 4; i++)
		qh_post_recv(RP[1].h, &ud[1], 0x50 + i, RP[1].mem + i * 512, 512,
			     QH_LKEY);
	qh_qp_db(RP[1].h, &ud[1], false);
	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_SEND;
	s.qkey = CI_QKEY;
	s.dlid = RP_LID1;
	s.dqpn = ud[1].qpn;
	s.addr = RP[0].mem;
	s.len = 100;
	s.lkey = QH_LKEY;
	for (i = 0; i < 4; i++) {
		s.wr_id = 0x40 + i;
		s.flags = i == 3 ? SFAB_WQE_SIGNALED : 0;
		qh_post_send(RP[0].h, &ud[0], &s);
	}
	qh_qp_db(RP[0].h, &ud[0], true);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x43);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_cqe_wqe_index(&cqe), 3);
	CHECK(!rp_poll(0, &cqe));
	while (rp_poll(1, &cqe)) {
		CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV);
		CHECK_EQ(sfab_le16_to_cpu(cqe.slid), RP_LID0);
		got++;
	}
	CHECK_EQ(got, 4);

	/*
	 * Move both ends of the empty SQ to just below the 16-bit wrap (the
	 * ring slot follows the index), then: unsignalled sends across the
	 * wrap, a signalled one after it.
	 */
	eqp = &RP[0].h->e->qp[ud[0].qpn];
	REQUIRE(eqp->sq_ci == eqp->sq_pi && eqp->sq_pi == 4);
	eqp->sq_ci = eqp->sq_pi = 0xfffe;
	ud[0].sq_pi = 0xfffe;
	for (i = 0; i < 4; i++)
		qh_post_recv(RP[1].h, &ud[1], 0x60 + i, RP[1].mem + i * 512, 512,
			     QH_LKEY);
	qh_qp_db(RP[1].h, &ud[1], false);
	for (i = 0; i < 4; i++) {
		s.wr_id = 0x70 + i;
		s.flags = i == 3 ? SFAB_WQE_SIGNALED : 0;
		qh_post_send(RP[0].h, &ud[0], &s);
	}
	qh_qp_db(RP[0].h, &ud[0], true);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x73);
	CHECK_EQ(sfab_cqe_wqe_index(&cqe), 1);
	CHECK(!rp_poll(0, &cqe));
	for (got = 0; rp_poll(1, &cqe); got++)
		CHECK_EQ(cqe.status, 0);
	CHECK_EQ(got, 4);

	/* an unsignalled send with a bad lkey: its CQE, then the flush */
	s.wr_id = 0x80;
	s.flags = 0;
	s.lkey = 0xbad00;
	qh_post_send(RP[0].h, &ud[0], &s);
	s.wr_id = 0x81;
	s.lkey = QH_LKEY;
	qh_post_send(RP[0].h, &ud[0], &s);
	qh_qp_db(RP[0].h, &ud[0], true);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x80);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_PROT_ERR);
	CHECK_EQ(sfab_cqe_wqe_index(&cqe), 2);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x81);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_WR_FLUSH_ERR);
	CHECK_EQ(sfab_cqe_wqe_index(&cqe), 3);
	CHECK(!rp_poll(0, &cqe));
	rp_down();
}

