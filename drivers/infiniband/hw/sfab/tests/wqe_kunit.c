// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_wqe: WQE strides and ring depths for the caps kernel
 * consumers ask for, UD/SMI/GSI send WQEs and receive WQEs built from
 * ib_core work requests (every field at its place in the contract's
 * layout), inline data, what they refuse, and doorbell values; RC and
 * UC send, RDMA and atomic WQEs, REG_MR and LOCAL_INV.
 */

#include <kunit/test.h>

#include "../sfab_wqe.h"

#define SFAB_TEST_STRIDE	64

static void sfab_wqe_geometry(struct kunit *test)
{
	/* ctrl + ud = 32 bytes, then 16 per SGE; 64 at least, 512 at most */
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(0, 0), 6);
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(2, 0), 6);
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(3, 0), 7);
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(6, 0), 7);
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(30, 0), 9);
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(31, 0), -EINVAL);
	/* inline: ctrl + ud + 16-byte inline header + the data */
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(1, 16), 6);
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(1, 17), 7);
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(1, 464), 9);
	KUNIT_EXPECT_EQ(test, sfab_sq_log_stride(1, 465), -EINVAL);
	/* rwqe ctrl = 16 bytes, then 16 per SGE; 32 at least */
	KUNIT_EXPECT_EQ(test, sfab_rq_log_stride(1), 5);
	KUNIT_EXPECT_EQ(test, sfab_rq_log_stride(2), 6);
	KUNIT_EXPECT_EQ(test, sfab_rq_log_stride(31), 9);
	KUNIT_EXPECT_EQ(test, sfab_rq_log_stride(32), -EINVAL);

	KUNIT_EXPECT_EQ(test, sfab_queue_log_depth(1, 1024), 0);
	KUNIT_EXPECT_EQ(test, sfab_queue_log_depth(128, 1024), 7);
	KUNIT_EXPECT_EQ(test, sfab_queue_log_depth(129, 1024), 8);
	KUNIT_EXPECT_EQ(test, sfab_queue_log_depth(1024, 1024), 10);
	KUNIT_EXPECT_EQ(test, sfab_queue_log_depth(1025, 1024), -EINVAL);
	/* a power of two above a max that is none */
	KUNIT_EXPECT_EQ(test, sfab_queue_log_depth(600, 1000), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfab_queue_log_depth(0, 1024), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfab_queue_log_depth(1U << 16, U32_MAX), -EINVAL);
}

static void sfab_wqe_ud_send(struct kunit *test)
{
	struct ib_sge sg[2] = {
		{ .addr = 0x1122334455667788ULL, .length = 24, .lkey = 0xabcd },
		{ .addr = 0x1000, .length = 256, .lkey = 0xabcd },
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = 0x0102030405060708ULL,
			.sg_list = sg,
			.num_sge = 2,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_qpn = 0xff000001,	/* 24 bits reach the WQE */
		.remote_qkey = 0x80010000,
		.pkey_index = 3,
	};
	const struct sfab_ud_av av = {
		.dlid = 0xffff, .sl = 5, .src_path_bits = 2, .port_num = 1,
	};
	u8 buf[SFAB_TEST_STRIDE];
	struct sfab_wqe_ctrl *ctrl = (void *)buf;
	struct sfab_wqe_ud *ud = (void *)(buf + 16);
	struct sfab_sge *sge = (void *)(buf + 32);

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_ud(buf, sizeof(buf), &wr, &av, 0,
						true), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_SEND);
	KUNIT_EXPECT_EQ(test, ctrl->flags, SFAB_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 2);
	KUNIT_EXPECT_EQ(test, ctrl->reserved, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ctrl->imm_data), 0);
	/* little-endian on the ring, whatever the CPU */
	KUNIT_EXPECT_EQ(test, buf[8], 0x08);
	KUNIT_EXPECT_EQ(test, buf[15], 0x01);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ud->dest_qpn), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ud->qkey), 0x80010000);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(ud->dlid), 0xffff);
	KUNIT_EXPECT_EQ(test, ud->sl, 5);
	KUNIT_EXPECT_EQ(test, ud->src_path_bits, 2);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(ud->pkey_index), 3);
	KUNIT_EXPECT_EQ(test, ud->port_num, 1);
	KUNIT_EXPECT_EQ(test, ud->reserved, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sge[0].addr), 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge[0].length), 24);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge[0].lkey), 0xabcd);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sge[1].addr), 0x1000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge[1].length), 256);
}

/* a global address: the GRH segment between the address and the SGEs */
static void sfab_wqe_ud_grh(struct kunit *test)
{
	struct ib_sge sg = { .addr = 0x3000, .length = 64, .lkey = 9 };
	struct ib_ud_wr wr = {
		.wr = {
			.sg_list = &sg,
			.num_sge = 1,
			.opcode = IB_WR_SEND,
		},
		.remote_qpn = 5,
	};
	struct sfab_ud_av av = { .dlid = 0x21, .port_num = 1, .global = true };
	u8 buf[128];
	struct sfab_wqe_ctrl *ctrl = (void *)buf;
	struct sfab_wqe_grh *grh = (void *)(buf + 32);
	struct sfab_sge *sge = (void *)(buf + 64);

	memset(av.grh.dgid, 0xfe, sizeof(av.grh.dgid));
	av.grh.flow_label = cpu_to_le32(0x12345);
	av.grh.hop_limit = 9;
	av.grh.traffic_class = 0x40;
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_ud(buf, sizeof(buf), &wr, &av, 0,
						true), 0);
	KUNIT_EXPECT_EQ(test, ctrl->flags, SFAB_WQE_SIGNALED | SFAB_WQE_GRH);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 1);
	KUNIT_EXPECT_EQ(test, grh->dgid[15], 0xfe);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(grh->flow_label), 0x12345);
	KUNIT_EXPECT_EQ(test, grh->hop_limit, 9);
	KUNIT_EXPECT_EQ(test, grh->traffic_class, 0x40);
	KUNIT_EXPECT_EQ(test, grh->sgid_index, 0);
	KUNIT_EXPECT_EQ(test, grh->reserved0, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sge->addr), 0x3000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge->length), 64);
	/* a 64-byte stride has no room for the SGE after the GRH */
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_ud(buf, 64, &wr, &av, 0, true),
			-EINVAL);
}

static void sfab_wqe_send_imm(struct kunit *test)
{
	struct ib_sge sg = { .addr = 0x2000, .length = 8, .lkey = 7 };
	struct ib_ud_wr wr = {
		.wr = {
			.sg_list = &sg,
			.num_sge = 1,
			.opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SOLICITED | IB_SEND_FENCE,
			.ex.imm_data = cpu_to_be32(0xdeadbeef),
		},
		.remote_qpn = 0x123456,
	};
	const struct sfab_ud_av av = { .dlid = 0x12 };
	u8 buf[SFAB_TEST_STRIDE];
	struct sfab_wqe_ctrl *ctrl = (void *)buf;

	KUNIT_ASSERT_EQ(test, sfab_wqe_build_ud(buf, sizeof(buf), &wr, &av, 0,
						false), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_SEND_IMM);
	KUNIT_EXPECT_EQ(test, ctrl->flags,
			SFAB_WQE_SOLICITED | SFAB_WQE_FENCE);
	/* immediate data as on the wire: big-endian bytes */
	KUNIT_EXPECT_EQ(test, buf[4], 0xde);
	KUNIT_EXPECT_EQ(test, buf[7], 0xef);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(((struct sfab_wqe_ud *)(buf + 16))->dest_qpn),
			0x123456);
}

static void sfab_wqe_refused(struct kunit *test)
{
	struct ib_sge sg[3] = { { .length = 8 } };
	struct ib_ud_wr wr = {
		.wr = { .sg_list = sg, .num_sge = 1, .opcode = IB_WR_RDMA_WRITE },
	};
	const struct sfab_ud_av av = {};
	u8 buf[SFAB_TEST_STRIDE];

	KUNIT_EXPECT_EQ(test, sfab_wqe_build_ud(buf, sizeof(buf), &wr, &av, 0,
						true), -EINVAL);
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_ud(buf, sizeof(buf), &wr, &av, 0,
						true), -EINVAL);
	/* three SGEs need 80 bytes */
	wr.wr.send_flags = 0;
	wr.wr.num_sge = 3;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_ud(buf, sizeof(buf), &wr, &av, 0,
						true), -EINVAL);
	wr.wr.num_sge = -1;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_ud(buf, sizeof(buf), &wr, &av, 0,
						true), -EINVAL);
	wr.wr.num_sge = 0;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_ud(buf, sizeof(buf), &wr, &av, 0,
						true), 0);
}

static void sfab_wqe_inline(struct kunit *test)
{
	static const char a[] = "0123456789", b[] = "abcdefghijklmnopqrstuvwxyz";
	struct ib_sge sg[2] = {
		{ .addr = (uintptr_t)a, .length = 10 },
		{ .addr = (uintptr_t)b, .length = 26 },
	};
	struct ib_ud_wr wr = {
		.wr = {
			.sg_list = sg,
			.num_sge = 2,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_INLINE,
		},
	};
	const struct sfab_ud_av av = { .dlid = 1 };
	u8 buf[128];
	struct sfab_wqe_ctrl *ctrl = (void *)buf;
	struct sfab_wqe_inline *inl = (void *)(buf + 32);

	memset(buf, 0xa5, sizeof(buf));
	/* 32 + 16 + 36 bytes do not fit a 64-byte stride */
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_ud(buf, 64, &wr, &av, 64, true),
			-EINVAL);
	/* nor more than the QP's inline limit */
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_ud(buf, 128, &wr, &av, 35, true),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_ud(buf, 128, &wr, &av, 36, true),
			0);
	KUNIT_EXPECT_EQ(test, ctrl->flags, SFAB_WQE_SIGNALED | SFAB_WQE_INLINE);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(inl->byte_count), 36);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(inl->reserved[0]), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 48, a, 10), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 58, b, 26), 0);
}

static void sfab_wqe_recv(struct kunit *test)
{
	struct ib_sge sg[2] = {
		{ .addr = 0xfeed0000, .length = 40 + 256, .lkey = 0x55 },
		{ .addr = 0xbeef0000, .length = 4, .lkey = 0x66 },
	};
	struct ib_recv_wr wr = { .wr_id = 42, .sg_list = sg, .num_sge = 1 };
	u8 buf[64];
	struct sfab_rwqe_ctrl *ctrl = (void *)buf;
	struct sfab_sge *sge = (void *)(buf + 16);

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sfab_rwqe_build(buf, 32, &wr), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ctrl->wr_id), 42);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 1);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(ctrl->reserved, 0,
					    sizeof(ctrl->reserved)));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sge[0].addr), 0xfeed0000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge[0].length), 296);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge[0].lkey), 0x55);

	wr.num_sge = 2;
	KUNIT_EXPECT_EQ(test, sfab_rwqe_build(buf, 32, &wr), -EINVAL);
	KUNIT_EXPECT_EQ(test, sfab_rwqe_build(buf, 64, &wr), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge[1].lkey), 0x66);
}

static void sfab_wqe_doorbell(struct kunit *test)
{
	/* low word the queue number, high word index and arm request */
	KUNIT_EXPECT_EQ(test, sfab_db_val(0x123456, 0xbeef, SFAB_DB_ARM_NONE),
			0x0000beef00123456ULL);
	KUNIT_EXPECT_EQ(test, sfab_db_val(7, 3, SFAB_DB_ARM_NEXT),
			0x4000000300000007ULL);
	KUNIT_EXPECT_EQ(test, sfab_db_val(7, 3, SFAB_DB_ARM_SOLICITED),
			0x8000000300000007ULL);
	/* a number wider than 24 bits does not spill into the high word */
	KUNIT_EXPECT_EQ(test, sfab_db_val(0xff000001, 0, 0), 1ULL);
}

/* RC and UC: RDMA WRITE with immediate, READ, atomics, SEND_WITH_INV */
static void sfab_wqe_rc_rdma(struct kunit *test)
{
	struct ib_sge sg = { .addr = 0x2000, .length = 100, .lkey = 0x1200 };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 7,
			.sg_list = &sg,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IB_SEND_FENCE,
			.ex.imm_data = cpu_to_be32(0xa1b2c3d4),
		},
		.remote_addr = 0x1122334455667788ULL,
		.rkey = 0x3401,
	};
	u8 buf[SFAB_TEST_STRIDE];
	struct sfab_wqe_ctrl *ctrl = (void *)buf;
	struct sfab_wqe_raddr *ra = (void *)(buf + 16);
	struct sfab_sge *sge = (void *)(buf + 32);

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						0, true), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_RDMA_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, ctrl->flags, SFAB_WQE_SIGNALED | SFAB_WQE_FENCE);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ctrl->imm_data), 0xa1b2c3d4);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ctrl->wr_id), 7);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ra->remote_addr), 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ra->rkey), 0x3401);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ra->reserved), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sge->addr), 0x2000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge->length), 100);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge->lkey), 0x1200);

	/* READ: on RC only, never inline */
	wr.wr.opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						0, false), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_RDMA_READ);
	KUNIT_EXPECT_EQ(test, ctrl->flags, SFAB_WQE_FENCE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ctrl->imm_data), 0);
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, true,
						0, true), -EINVAL);
	wr.wr.send_flags = IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						128, true), -EINVAL);

	/* plain SEND: the SGEs right after the control segment */
	wr.wr.opcode = IB_WR_SEND_WITH_INV;
	wr.wr.send_flags = 0;
	wr.wr.ex.invalidate_rkey = 0x5502;
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						0, true), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_SEND_INV);
	KUNIT_EXPECT_EQ(test, le32_to_cpu((__force __le32)ctrl->imm_data), 0x5502);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(((struct sfab_sge *)(buf + 16))->addr),
			0x2000);
	/* no SEND_WITH_INV on UC */
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, true,
						0, true), -EINVAL);
	/* UC may WRITE */
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, true,
						0, true), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_RDMA_WRITE);
}

static void sfab_wqe_rc_atomic(struct kunit *test)
{
	struct ib_sge sg = { .addr = 0x3000, .length = 8, .lkey = 0x1200 };
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = 9,
			.sg_list = &sg,
			.num_sge = 1,
			.opcode = IB_WR_ATOMIC_CMP_AND_SWP,
		},
		.remote_addr = 0x8000,
		.compare_add = 0x1111,
		.swap = 0x2222,
		.rkey = 0x4401,
	};
	u8 buf[SFAB_TEST_STRIDE];
	struct sfab_wqe_ctrl *ctrl = (void *)buf;
	struct sfab_wqe_raddr *ra = (void *)(buf + 16);
	struct sfab_wqe_atomic *at = (void *)(buf + 32);
	struct sfab_sge *sge = (void *)(buf + 48);

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						0, true), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_ATOMIC_CS);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ra->remote_addr), 0x8000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ra->rkey), 0x4401);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->swap_add), 0x2222);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->compare), 0x1111);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sge->addr), 0x3000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sge->length), 8);

	wr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						0, true), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_ATOMIC_FA);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->swap_add), 0x1111);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(at->compare), 0);

	/* exactly one 8-byte SGE, not on UC, not inline */
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, true,
						0, true), -EINVAL);
	sg.length = 4;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						0, true), -EINVAL);
	sg.length = 8;
	wr.wr.num_sge = 2;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						0, true), -EINVAL);
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						64, true), -EINVAL);
	/* a UD-only or unknown opcode */
	wr.wr.send_flags = 0;
	wr.wr.opcode = IB_WR_LSO;
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_rc(buf, sizeof(buf), &wr.wr, false,
						0, true), -EINVAL);
}

static void sfab_wqe_fast_reg(struct kunit *test)
{
	const struct sfab_fast_reg fr = {
		.iova = 0x7f0000001000ULL, .length = 3 * 4096 + 5,
		.pbl_dma = 0xfeed000, .key = 0x1234, .npages = 4,
		.access = SFAB_ACCESS_LOCAL_WRITE | SFAB_ACCESS_REMOTE_READ,
		.page_shift = 12,
	};
	struct ib_send_wr wr = {
		.wr_id = 0x55, .opcode = IB_WR_REG_MR,
		.send_flags = IB_SEND_SIGNALED,
	};
	u8 buf[SFAB_TEST_STRIDE];
	struct sfab_wqe_ctrl *ctrl = (void *)buf;
	struct sfab_wqe_reg_mr *r = (void *)(buf + 16);

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_reg_mr(buf, sizeof(buf), &wr, &fr,
						    true), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_REG_MR);
	KUNIT_EXPECT_EQ(test, ctrl->flags, SFAB_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, ctrl->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ctrl->wr_id), 0x55);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(r->iova), 0x7f0000001000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(r->length), 3 * 4096 + 5);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(r->pbl_addr), 0xfeed000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(r->key), 0x1234);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(r->access),
			SFAB_ACCESS_LOCAL_WRITE | SFAB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(r->npages), 4);
	KUNIT_EXPECT_EQ(test, r->page_shift, 12);
	KUNIT_EXPECT_EQ(test, r->reserved0[0], 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(r->reserved1), 0);
	KUNIT_EXPECT_EQ(test, sfab_wqe_build_reg_mr(buf, 32, &wr, &fr, true),
			-EINVAL);

	wr.opcode = IB_WR_LOCAL_INV;
	wr.ex.invalidate_rkey = 0x1235;
	KUNIT_ASSERT_EQ(test, sfab_wqe_build_local_inv(buf, sizeof(buf), &wr,
						       false), 0);
	KUNIT_EXPECT_EQ(test, ctrl->opcode, SFAB_WQE_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, ctrl->flags, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu((__force __le32)ctrl->imm_data), 0x1235);
}

static struct kunit_case sfab_wqe_cases[] = {
	KUNIT_CASE(sfab_wqe_geometry),
	KUNIT_CASE(sfab_wqe_ud_send),
	KUNIT_CASE(sfab_wqe_ud_grh),
	KUNIT_CASE(sfab_wqe_send_imm),
	KUNIT_CASE(sfab_wqe_refused),
	KUNIT_CASE(sfab_wqe_inline),
	KUNIT_CASE(sfab_wqe_recv),
	KUNIT_CASE(sfab_wqe_doorbell),
	KUNIT_CASE(sfab_wqe_rc_rdma),
	KUNIT_CASE(sfab_wqe_rc_atomic),
	KUNIT_CASE(sfab_wqe_fast_reg),
	{}
};

static struct kunit_suite sfab_wqe_suite = {
	.name = "sfab_wqe",
	.test_cases = sfab_wqe_cases,
};

kunit_test_suite(sfab_wqe_suite);

/* the WQE builders are sfab.ko's, reached through VISIBLE_IF_KUNIT */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
