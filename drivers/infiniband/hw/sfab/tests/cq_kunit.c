// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_cq: CQE ownership by phase bit across ring passes and
 * the 16-bit wrap of the consumer index, and how a CQE becomes an ib_wc
 * (opcodes, status, UD receive fields, immediate and invalidate, GRH);
 * SFAB_DEV_CAP_CQE_WQE_INDEX: a send CQE retires the SQ slots up to its
 * wqe_index (16-bit wrap), unsignaled sends without a CQE; a lost
 * device's outstanding WQEs flushed in software, in order, across the
 * ring's and the index's wrap, and its own CQ events only on an armed CQ.
 */

#include <kunit/test.h>

#include "../sfab.h"
#include "../sfab_wqe.h"

/* the device's side: write entry @pi with its pass's phase */
static void sfab_cq_produce(struct sfab_cqe *ring, u16 pi, u8 log_depth)
{
	struct sfab_cqe *e = &ring[sfab_ring_slot(pi, log_depth)];

	e->wr_id = cpu_to_le64(pi);
	e->flags = sfab_ring_phase(pi, log_depth) ? SFAB_CQE_PHASE : 0;
}

static void sfab_cq_phase(struct kunit *test)
{
	const u8 log_depth = 2;
	struct sfab_cqe ring[4] = {};
	unsigned int i, n;
	u16 pi, cc;

	/* a zeroed ring holds nothing for the driver */
	for (cc = 0; cc < 4; cc++)
		KUNIT_EXPECT_FALSE(test, sfab_cqe_is_new(&ring[cc], cc, log_depth));

	/* the first pass writes phase 1 */
	sfab_cq_produce(ring, 0, log_depth);
	KUNIT_EXPECT_EQ(test, ring[0].flags, SFAB_CQE_PHASE);

	/* start just before the 16-bit wrap and run several passes */
	pi = 0xfff0;
	cc = 0xfff0;
	memset(ring, 0, sizeof(ring));
	/* entries of the previous pass (phase of cc - 4) are not new */
	for (i = 0; i < 4; i++) {
		u16 old = cc - 4 + i;

		ring[sfab_ring_slot(old, log_depth)].flags =
			sfab_ring_phase(old, log_depth) ? SFAB_CQE_PHASE : 0;
	}
	for (n = 0; n < 40; n++) {
		/* produce three, consume what is there */
		for (i = 0; i < 3; i++)
			sfab_cq_produce(ring, pi++, log_depth);
		for (i = 0; i < 3; i++) {
			struct sfab_cqe *e = &ring[sfab_ring_slot(cc, log_depth)];

			KUNIT_ASSERT_TRUE(test, sfab_cqe_is_new(e, cc, log_depth));
			KUNIT_EXPECT_EQ(test, le64_to_cpu(e->wr_id), cc);
			cc++;
		}
		KUNIT_ASSERT_FALSE(test,
				   sfab_cqe_is_new(&ring[sfab_ring_slot(cc, log_depth)],
						   cc, log_depth));
	}
	/* the indices wrapped */
	KUNIT_EXPECT_LT(test, cc, 0xfff0);
	KUNIT_EXPECT_EQ(test, sfab_ring_used(pi, cc), 0);
}

static void sfab_cq_send_wc(struct kunit *test)
{
	struct sfab_cqe cqe = {
		.wr_id = cpu_to_le64(0x1122334455667788ULL),
		.byte_len = cpu_to_le32(256),
		.qpn_opcode = cpu_to_le32(SFAB_CQE_SEND << 24 | 1),
		.src_qp_sl = cpu_to_le32(0x5abcdef),	/* ignored for sends */
		.status = SFAB_CQE_STS_SUCCESS,
		.flags = SFAB_CQE_PHASE | SFAB_CQE_GRH,
	};
	struct ib_wc wc;

	memset(&wc, 0xa5, sizeof(wc));
	sfab_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 256);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, 0);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 0);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, NULL);
	KUNIT_EXPECT_FALSE(test, sfab_cqe_is_recv(&cqe));
	KUNIT_EXPECT_EQ(test, sfab_cqe_qpn(&cqe), 1);

	cqe.qpn_opcode = cpu_to_le32(SFAB_CQE_RDMA_READ << 24 | 0x123456);
	sfab_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, sfab_cqe_qpn(&cqe), 0x123456);
}

static void sfab_cq_recv_wc(struct kunit *test)
{
	struct sfab_cqe cqe = {
		.wr_id = cpu_to_le64(9),
		.byte_len = cpu_to_le32(40 + 256),
		.imm_data = cpu_to_be32(0xcafef00d),
		.qpn_opcode = cpu_to_le32(SFAB_CQE_RECV << 24 | 1),
		.src_qp_sl = cpu_to_le32(7 << 24 | 0x000001),
		.slid = cpu_to_le16(0x0203),
		.pkey_index = cpu_to_le16(0),
		.dlid_path_bits = 3,
		.flags = SFAB_CQE_GRH | SFAB_CQE_IMM,
	};
	struct ib_wc wc;

	sfab_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_TRUE(test, sfab_cqe_is_recv(&cqe));
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 296);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_GRH | IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xcafef00d);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 1);
	KUNIT_EXPECT_EQ(test, wc.sl, 7);
	KUNIT_EXPECT_EQ(test, wc.slid, 0x0203);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 0);
	KUNIT_EXPECT_EQ(test, wc.dlid_path_bits, 3);

	/* no GRH, pkey index of a GSI receive, RDMA WRITE with immediate */
	cqe.flags = SFAB_CQE_IMM;
	cqe.pkey_index = cpu_to_le16(5);
	cqe.qpn_opcode = cpu_to_le32(SFAB_CQE_RECV_RDMA_IMM << 24 | 2);
	sfab_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 5);

	/* SEND with invalidate: the rkey in the device's byte order */
	cqe.flags = SFAB_CQE_INV;
	cqe.qpn_opcode = cpu_to_le32(SFAB_CQE_RECV << 24 | 2);
	cqe.imm_data = (__force __be32)cpu_to_le32(0x00abcdef);
	sfab_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0x00abcdef);
}

static void sfab_cq_errors(struct kunit *test)
{
	struct sfab_cqe cqe = {
		.qpn_opcode = cpu_to_le32(SFAB_CQE_RECV << 24 | 4),
		.status = SFAB_CQE_STS_WR_FLUSH_ERR,
		.vendor_err = 0x12,
	};
	struct ib_wc wc;

	/* the contract's status codes are ib_wc_status's values */
	KUNIT_EXPECT_EQ(test, (int)SFAB_CQE_STS_LOC_LEN_ERR, (int)IB_WC_LOC_LEN_ERR);
	KUNIT_EXPECT_EQ(test, (int)SFAB_CQE_STS_LOC_PROT_ERR, (int)IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, (int)SFAB_CQE_STS_WR_FLUSH_ERR, (int)IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, (int)SFAB_CQE_STS_REM_ACCESS_ERR, (int)IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, (int)SFAB_CQE_STS_RETRY_EXC_ERR, (int)IB_WC_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, (int)SFAB_CQE_STS_RNR_RETRY_EXC_ERR, (int)IB_WC_RNR_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, (int)SFAB_CQE_STS_REM_ABORT_ERR, (int)IB_WC_REM_ABORT_ERR);
	KUNIT_EXPECT_EQ(test, (int)SFAB_CQE_STS_GENERAL_ERR, (int)IB_WC_GENERAL_ERR);

	sfab_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wc.vendor_err, 0x12);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);

	/* an opcode this driver does not know is an error, never a success */
	cqe.status = SFAB_CQE_STS_SUCCESS;
	cqe.qpn_opcode = cpu_to_le32(0x7f << 24 | 4);
	sfab_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, wc.vendor_err, 0x7f);
	cqe.qpn_opcode = cpu_to_le32(0xfe << 24 | 4);
	sfab_cqe_to_wc(&cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_GENERAL_ERR);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
}

/* a send CQE with wqe_index k retires every slot up to k, across the wrap */
static void sfab_cq_sq_retire(struct kunit *test)
{
	u16 ci = 0;

	/* WQEs 0..3 outstanding, 3 completes: 0..2 went without a CQE */
	KUNIT_EXPECT_TRUE(test, sfab_sq_retire(&ci, 4, 3));
	KUNIT_EXPECT_EQ(test, ci, 4);
	/* nothing outstanding: no index is valid */
	KUNIT_EXPECT_FALSE(test, sfab_sq_retire(&ci, 4, 4));
	KUNIT_EXPECT_FALSE(test, sfab_sq_retire(&ci, 4, 3));
	KUNIT_EXPECT_EQ(test, ci, 4);
	/* one at a time */
	KUNIT_EXPECT_TRUE(test, sfab_sq_retire(&ci, 6, 4));
	KUNIT_EXPECT_EQ(test, ci, 5);
	/* at or past the producer, or behind the consumer: refused */
	KUNIT_EXPECT_FALSE(test, sfab_sq_retire(&ci, 6, 6));
	KUNIT_EXPECT_FALSE(test, sfab_sq_retire(&ci, 6, 0x8000));
	KUNIT_EXPECT_FALSE(test, sfab_sq_retire(&ci, 6, 4));
	KUNIT_EXPECT_EQ(test, ci, 5);

	/* the 16-bit wrap: WQEs 0xfffd .. 0x0002 outstanding */
	ci = 0xfffd;
	KUNIT_EXPECT_TRUE(test, sfab_sq_retire(&ci, 0x0003, 0xffff));
	KUNIT_EXPECT_EQ(test, ci, 0);
	KUNIT_EXPECT_FALSE(test, sfab_sq_retire(&ci, 0x0003, 0xfffe));
	KUNIT_EXPECT_TRUE(test, sfab_sq_retire(&ci, 0x0003, 0x0002));
	KUNIT_EXPECT_EQ(test, ci, 3);
	ci = 0xfff0;
	KUNIT_EXPECT_TRUE(test, sfab_sq_retire(&ci, 0x0010, 0x000f));
	KUNIT_EXPECT_EQ(test, ci, 0x0010);
}

/*
 * A device with SFAB_DEV_CAP_CQE_WQE_INDEX on a 16-entry SQ: of 40 sends
 * (wrapping the 16-bit index) only the signaled ones and a failed
 * unsignaled one write a CQE; each CQE gives one completion and retires
 * the slots before it, so the SQ never fills and ends empty.
 */
static void sfab_cq_unsignaled(struct kunit *test)
{
	const u8 log_depth = 4;
	u16 pi = 0xffe8, ci = 0xffe8;
	unsigned int i, wcs = 0, errs = 0;
	struct sfab_cqe cqe = {};
	struct ib_wc wc;

	for (i = 0; i < 40; i++) {
		bool signaled = i % 7 == 6;
		bool fails = i == 39;

		KUNIT_ASSERT_GT(test, sfab_ring_free(pi, ci, log_depth), 0);
		cqe.wr_id = cpu_to_le64(i);
		cqe.qpn_opcode = cpu_to_le32(SFAB_CQE_RDMA_WRITE << 24 | 9);
		cqe.status = fails ? SFAB_CQE_STS_LOC_PROT_ERR :
				     SFAB_CQE_STS_SUCCESS;
		cqe.wqe_index = cpu_to_le16(pi);
		pi++;
		/* the device: a CQE for signaled or failed WQEs only */
		if (!signaled && !fails)
			continue;
		KUNIT_ASSERT_TRUE(test, sfab_sq_retire(&ci, pi,
						       sfab_cqe_wqe_index(&cqe)));
		KUNIT_EXPECT_EQ(test, ci, pi);
		sfab_cqe_to_wc(&cqe, &wc);
		KUNIT_EXPECT_EQ(test, wc.wr_id, i);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
		wcs++;
		if (wc.status != IB_WC_SUCCESS) {
			/* an unsignaled WQE's error shows */
			KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
			KUNIT_EXPECT_EQ(test, i, 39);
			errs++;
		}
	}
	/* 5 signaled (6, 13, 20, 27, 34) and the failed one */
	KUNIT_EXPECT_EQ(test, wcs, 6);
	KUNIT_EXPECT_EQ(test, errs, 1);
	KUNIT_EXPECT_EQ(test, pi, 0x0010);
	KUNIT_EXPECT_EQ(test, sfab_ring_used(pi, ci), 0);

	/* a send CQE's wqe_index shares its place with a receive's slid */
	cqe.wqe_index = cpu_to_le16(0x1234);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cqe.slid), 0x1234);
}

/*
 * A lost device (sfab_cq_flush_lost()): of a kernel QP's 16-entry SQ with
 * 11 WQEs outstanding across the ring's and the 16-bit index's wrap, and
 * its RQ with 3, every WQE completes with IB_WC_WR_FLUSH_ERR and its own
 * wr_id, oldest first, no more than asked for at a time; then none is left.
 */
static void sfab_cq_flush_lost(struct kunit *test)
{
	const u8 log_depth = 4, sq_stride = 6, rq_stride = 5;
	struct sfab_qp *qp;
	struct ib_wc *wc;
	unsigned int i;
	u16 idx;
	int n;

	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	wc = kunit_kcalloc(test, 16, sizeof(*wc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_NOT_NULL(test, wc);
	qp->port_num = 1;
	qp->sq.log_depth = log_depth;
	qp->sq.log_stride = sq_stride;
	qp->rq.log_depth = log_depth;
	qp->rq.log_stride = rq_stride;
	qp->sq.ring = kunit_kzalloc(test, 16 << sq_stride, GFP_KERNEL);
	qp->rq.ring = kunit_kzalloc(test, 16 << rq_stride, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->sq.ring);
	KUNIT_ASSERT_NOT_NULL(test, qp->rq.ring);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);

	/* posted: SQ 0xfffa..0x0004 (11), RQ 7..9 (3); wr_id 1000 + index */
	qp->sq.ci = 0xfffa;
	for (qp->sq.pi = qp->sq.ci; qp->sq.pi != 0x0005; qp->sq.pi++) {
		struct sfab_wqe_ctrl *c = qp->sq.ring +
			((size_t)sfab_ring_slot(qp->sq.pi, log_depth) << sq_stride);

		c->wr_id = cpu_to_le64(1000 + qp->sq.pi);
	}
	qp->rq.ci = 7;
	for (qp->rq.pi = qp->rq.ci; qp->rq.pi != 10; qp->rq.pi++) {
		struct sfab_rwqe_ctrl *c = qp->rq.ring +
			((size_t)sfab_ring_slot(qp->rq.pi, log_depth) << rq_stride);

		c->wr_id = cpu_to_le64(2000 + qp->rq.pi);
	}

	/* 4 at a time, then the other 7: in order, each once */
	idx = 0xfffa;
	n = sfab_wq_flush_lost(qp, &qp->sq, false, wc, 4);
	KUNIT_ASSERT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, qp->sq.ci, 0xfffe);
	n += sfab_wq_flush_lost(qp, &qp->sq, false, wc + 4, 16 - 4);
	KUNIT_ASSERT_EQ(test, n, 11);
	for (i = 0; i < 11; i++, idx++) {
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, 1000 + idx);
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_SEND);
		KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, &qp->ibqp);
		KUNIT_EXPECT_EQ(test, wc[i].port_num, 1);
	}
	KUNIT_EXPECT_EQ(test, qp->sq.ci, qp->sq.pi);
	KUNIT_EXPECT_EQ(test, sfab_wq_flush_lost(qp, &qp->sq, false, wc, 16), 0);

	n = sfab_wq_flush_lost(qp, &qp->rq, true, wc, 16);
	KUNIT_ASSERT_EQ(test, n, 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, 2007 + i);
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_RECV);
	}
	KUNIT_EXPECT_EQ(test, qp->rq.ci, 10);
	KUNIT_EXPECT_EQ(test, sfab_wq_flush_lost(qp, &qp->rq, true, wc, 16), 0);
}

static void sfab_cq_count_event(struct ib_cq *ibcq, void *ctx)
{
	(*(unsigned int *)ctx)++;
}

/*
 * A lost device's own events (sfab_cq_kick_one()): one per arm, none for
 * a CQ never armed (an IB_POLL_DIRECT CQ's handler warns of any)
 */
static void sfab_cq_kick_lost(struct kunit *test)
{
	unsigned int events = 0;
	struct sfab_cq *cq;

	cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	spin_lock_init(&cq->lock);
	cq->ibcq.comp_handler = sfab_cq_count_event;
	cq->ibcq.cq_context = &events;

	sfab_cq_kick_one(&cq->ibcq);
	KUNIT_EXPECT_EQ(test, events, 0);
	cq->armed = true;
	sfab_cq_kick_one(&cq->ibcq);
	KUNIT_EXPECT_EQ(test, events, 1);
	KUNIT_EXPECT_FALSE(test, cq->armed);
	sfab_cq_kick_one(&cq->ibcq);
	KUNIT_EXPECT_EQ(test, events, 1);
	sfab_cq_kick_one(NULL);
}

static struct kunit_case sfab_cq_cases[] = {
	KUNIT_CASE(sfab_cq_phase),
	KUNIT_CASE(sfab_cq_send_wc),
	KUNIT_CASE(sfab_cq_recv_wc),
	KUNIT_CASE(sfab_cq_errors),
	KUNIT_CASE(sfab_cq_sq_retire),
	KUNIT_CASE(sfab_cq_unsignaled),
	KUNIT_CASE(sfab_cq_flush_lost),
	KUNIT_CASE(sfab_cq_kick_lost),
	{}
};

static struct kunit_suite sfab_cq_suite = {
	.name = "sfab_cq",
	.test_cases = sfab_cq_cases,
};

kunit_test_suite(sfab_cq_suite);

/* the CQE functions are sfab.ko's, reached through VISIBLE_IF_KUNIT */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
