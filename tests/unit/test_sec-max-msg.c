/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-max-msg: a message's PSN span stays inside the half of the
 * 24-bit PSN space that can be ordered.  Found by fuzz/datapath.
 *
 * The profile allowed IBA's 2^31-byte message.  A READ of 2^31 bytes at
 * the 256-byte MTU spans 2^23 PSNs: sq_psn moved half the space ahead of
 * una_psn, which psn arithmetic reads as behind.  The request went out,
 * but no ACK timer was armed (nothing looked outstanding), the window
 * check never closed, and the QP sat in RTS with its WQE never
 * completed.  Now the largest message is 2^30 bytes (2^22 PSNs at the
 * smallest MTU): an image asking for more is refused, and the engine
 * holds a profile to it as well.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS		1000000ULL
#define MAX_MSG		SFAB_FW_MAX_MSG_SIZE

static uint32_t psn_ahead(uint32_t a, uint32_t b)
{
	return (a - b) & 0xffffff;
}

static int validate_with(uint32_t max_msg)
{
	static uint8_t img[SFAB_FW_HEADER_SIZE + 64];
	struct sfab_fw_profile p;
	uint32_t len;

	fw_profile_default(&p);
	p.max_msg_size = sfab_cpu_to_le32(max_msg);
	len = fw_build(img, 64, FW_GOOD, &p);
	return sfab_fw_validate(img, len);
}

TEST(image_holds_the_psn_space)
{
	CHECK_EQ(validate_with(1), SFAB_AQ_STS_OK);
	CHECK_EQ(validate_with(MAX_MSG), SFAB_AQ_STS_OK);
	CHECK_EQ(validate_with(MAX_MSG + 1), SFAB_AQ_STS_FW_BAD_PROFILE);
	CHECK_EQ(validate_with(1U << 31), SFAB_AQ_STS_FW_BAD_PROFILE);
	CHECK_EQ(validate_with(0xffffffffU), SFAB_AQ_STS_FW_BAD_PROFILE);
	CHECK_EQ(validate_with(0), SFAB_AQ_STS_FW_BAD_PROFILE);
}

/* node 0 READs @nsge SGEs of @len bytes each from node 1 */
static struct qh_rc_send read_wqe(unsigned int nsge, uint32_t len)
{
	struct qh_rc_send s = rp_wqe(SFAB_WQE_RDMA_READ, 0x77, 0, 0, len);
	unsigned int i;

	for (i = 1; i < nsge; i++)
		s.sge[i] = s.sge[0];
	s.nsge = nsge;
	s.raddr = RP[1].mem;
	s.rkey = RP[1].key;
	return s;
}

/*
 * The fuzzer's case: a profile of 2^31 (as if the image were not
 * checked) and a READ of 2^31 bytes at MTU 256.  It must end, here with
 * LOC_LEN_ERR before anything is sent.
 */
TEST(read_of_half_the_psn_space_refused)
{
	struct rp_cfg cfg = { .mtu = 1, .retry_cnt = 1 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	unsigned long sent;

	rp_up(&cfg);
	RP[0].h->e->profile.max_msg_size = sfab_cpu_to_le32(1U << 31);
	sent = rp_data_frames[1];
	s = read_wqe(2, 1U << 30);
	rp_post(0, &s);
	rp_pump();
	rp_advance(100 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x77);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_LEN_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	CHECK_EQ(rp_data_frames[1], sent);
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);
	rp_down();
}

static bool hold_reqs;

static bool net(unsigned int to, const uint8_t *f, size_t len)
{
	return to == 1 && hold_reqs && rp_hold(f, len);
}

/*
 * The largest READ allowed, 2^30 bytes at MTU 256: 2^22 PSNs ahead,
 * still ordered, so the ACK timer runs.  Node 1's MR is smaller, so it
 * answers with a NAK and the READ completes with REM_ACCESS_ERR.
 */
TEST(largest_read_stays_ordered)
{
	struct rp_cfg cfg = { .mtu = 1, .retry_cnt = 1 };
	struct sfab_engine_qp *qp;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint32_t psn0;

	rp_up(&cfg);
	rp_held_trim(0);
	hold_reqs = true;
	rp_drop = net;
	qp = &RP[0].h->e->qp[RP[0].qp.qpn];
	psn0 = qp->sq_psn;
	s = read_wqe(2, MAX_MSG / 2);
	rp_post(0, &s);
	rp_pump();
	/* the request is out, its answer not yet in */
	REQUIRE(rp_held.n == 1);
	CHECK_EQ(psn_ahead(qp->sq_psn, psn0), 1U << 22);
	CHECK_EQ(psn_ahead(qp->sq_psn, qp->rc.una_psn), 1U << 22);
	CHECK(qp->rc.ack_at != 0);
	CHECK(!rp_poll(0, &cqe));
	hold_reqs = false;
	rp_deliver_held(1);
	rp_advance(100 * MS);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x77);
	CHECK_EQ(cqe.status, SFAB_CQE_STS_REM_ACCESS_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	rp_drop = NULL;
	rp_down();
}
