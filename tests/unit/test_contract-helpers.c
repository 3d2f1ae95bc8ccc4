/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit/contract-helpers: the hardware contract's shared helpers
 * (include/sfab/sfab_ring.h, sfab_queue.h) against hand-written cases:
 * doorbell values packed and decoded at the bit positions
 * Documentation/sfab/registers.rst gives, the phase bit and ring
 * arithmetic at the ring's and the 16-bit index's wrap, the send and
 * receive stride rule for each WQE kind (UD and GSI with room for a GRH,
 * the largest-stride fallback), send-queue retirement across a wrap, and
 * CQE decoding (an unknown opcode: GENERAL_ERR with the opcode in
 * vendor_err, whatever the CQE said; a send CQE's wqe_index and an EQE's
 * CQN from entries written byte by byte), the VLCap code of each data-VL
 * count, the fw_ver packing, and the port's speed, width and MTU codes.  The driver's KUnit suites and the
 * provider run the same code.  And sfab_accel.h: each command encoder's
 * 64 bytes written out by hand, the decoder's verdict on each kind of bad
 * command, the ring's slot addresses, room and configuration rule, the
 * device memory sizes.
 */
#include <string.h>

#include "harness.h"
#include "sfab/sfab_accel.h"
#include "sfab/sfab_admin.h"
#include "sfab/sfab_fw.h"
#include "sfab/sfab_queue.h"

/* ---- doorbells ---------------------------------------------------------- */

TEST(db_bit_positions)
{
	/* registers.rst: number 23:0, index 47:32, arm 63:62 */
	CHECK_EQ(SFAB_DB_QPN_MASK, 0x00ffffffULL);
	CHECK_EQ((uint64_t)SFAB_DB_IDX_MASK << 32, 0x0000ffff00000000ULL);
	CHECK_EQ((uint64_t)SFAB_DB_ARM_MASK << 32, 0xc000000000000000ULL);
	CHECK_EQ(SFAB_DB_ARM_NEXT, 1);
	CHECK_EQ(SFAB_DB_ARM_SOLICITED, 2);
}

TEST(db_pack)
{
	CHECK_EQ(sfab_db_val(0x123456, 0xabcd, SFAB_DB_ARM_SOLICITED),
		 0x8000abcd00123456ULL);
	CHECK_EQ(sfab_db_val(7, 0xffff, SFAB_DB_ARM_NEXT), 0x4000ffff00000007ULL);
	CHECK_EQ(sfab_db_val(1, 1, SFAB_DB_ARM_NONE), 0x0000000100000001ULL);
	/* a number beyond 24 bits loses its high bits, never the index's */
	CHECK_EQ(sfab_db_val(0x1000005, 2, 0), 0x0000000200000005ULL);
}

TEST(db_parse)
{
	struct sfab_db db;

	CHECK(sfab_db_parse(0x8000abcd00123456ULL, true, &db));
	CHECK_EQ(db.num, 0x123456);
	CHECK_EQ(db.idx, 0xabcd);
	CHECK_EQ(db.arm, SFAB_DB_ARM_SOLICITED);
	/* arm bits on an SQ, RQ, SRQ or EQ doorbell: malformed */
	CHECK(!sfab_db_parse(0x8000abcd00123456ULL, false, &db));
	CHECK_EQ(db.arm, 0);
	CHECK(sfab_db_parse(0x0000abcd00123456ULL, false, &db));
	CHECK_EQ(db.idx, 0xabcd);
	/* bits 31:24 and 61:48 are defined by no doorbell */
	CHECK(!sfab_db_parse(0x0000000001000005ULL, false, &db));
	CHECK(!sfab_db_parse(0x0001000000000005ULL, true, &db));
	CHECK(!sfab_db_parse(0x2000000000000005ULL, true, &db));
	/* arm 3 is well formed; what it means is the device's business */
	CHECK(sfab_db_parse(0xc000000000000001ULL, true, &db));
	CHECK_EQ(db.arm, 3);
}

/* ---- ring rules --------------------------------------------------------- */

TEST(ring_phase_at_wrap)
{
	/* 8 entries: 1 on the first pass, 0 on the second, 1 again */
	CHECK_EQ(sfab_ring_phase(0, 3), 1);
	CHECK_EQ(sfab_ring_phase(7, 3), 1);
	CHECK_EQ(sfab_ring_phase(8, 3), 0);
	CHECK_EQ(sfab_ring_phase(15, 3), 0);
	CHECK_EQ(sfab_ring_phase(16, 3), 1);
	/* the deepest ring: the 16-bit index wraps on an even pass */
	CHECK_EQ(sfab_ring_phase(0x7fff, 15), 1);
	CHECK_EQ(sfab_ring_phase(0x8000, 15), 0);
	CHECK_EQ(sfab_ring_phase(0xffff, 15), 0);
	CHECK_EQ(sfab_ring_phase((uint16_t)(0xffff + 1), 15), 1);
	CHECK_EQ(sfab_ring_phase(0xfff8, 2), 1);
	CHECK_EQ(sfab_ring_phase(0xfffc, 2), 0);
	CHECK_EQ(sfab_ring_phase(0xffff, 2), 0);

	/* the consumer at 8 (slot 0, second pass) sees last pass's 1 as old */
	CHECK(!sfab_ring_entry_is_new(1, 8, 3));
	CHECK(sfab_ring_entry_is_new(0, 8, 3));
	CHECK(sfab_ring_entry_is_new(1, 0, 3));
	CHECK(!sfab_ring_entry_is_new(0, 0, 3));
	/* only bit 0 is the phase */
	CHECK(sfab_ring_entry_is_new(0xfe, 8, 3));
	CHECK(!sfab_ring_entry_is_new(0xff, 8, 3));
}

TEST(ring_arithmetic)
{
	CHECK_EQ(sfab_ring_slot(0xffff, 4), 15);
	CHECK_EQ(sfab_ring_slot(0x10, 4), 0);
	CHECK_EQ(sfab_ring_slot(0x8001, 15), 1);
	CHECK_EQ(sfab_ring_used(2, 0xfffe), 4);
	CHECK_EQ(sfab_ring_used(5, 5), 0);
	CHECK_EQ(sfab_ring_free(2, 0xfffe, 2), 0);
	CHECK_EQ(sfab_ring_free(1, 0xfffe, 2), 1);
	CHECK_EQ(sfab_ring_free(0xfffe, 0xfffe, 2), 4);
	/* producer behind the consumer: inconsistent, no room */
	CHECK_EQ(sfab_ring_free(0xfffd, 0xfffe, 2), 0);

	CHECK_EQ(sfab_queue_log_depth(1, 1024), 0);
	CHECK_EQ(sfab_queue_log_depth(3, 1024), 2);
	CHECK_EQ(sfab_queue_log_depth(1024, 1024), 10);
	CHECK_EQ(sfab_queue_log_depth(1025, 1024), -EINVAL);
	CHECK_EQ(sfab_queue_log_depth(600, 1000), -EINVAL);
	CHECK_EQ(sfab_queue_log_depth(0, 1024), -EINVAL);
	CHECK_EQ(sfab_queue_log_depth(32768, 1U << 20), 15);
	CHECK_EQ(sfab_queue_log_depth(32769, 1U << 20), -EINVAL);
	CHECK_EQ(SFAB_RING_MAX_LOG_DEPTH, 15);
}

/* ---- the stride rule ---------------------------------------------------- */

TEST(stride_constants)
{
	CHECK_EQ(SFAB_UD_WQE_HDR_LEN, 32);
	CHECK_EQ(SFAB_WQE_MAX_SIZE, 512);
	CHECK_EQ(SFAB_SQ_MAX_SGE, 30);
	CHECK_EQ(SFAB_CQE_LOG_STRIDE, 5);
	CHECK_EQ(SFAB_SQ_MIN_LOG_STRIDE, 6);
	CHECK_EQ(SFAB_RQ_MIN_LOG_STRIDE, 5);
	CHECK_EQ(SFAB_SQ_MAX_LOG_STRIDE, 9);
	CHECK_EQ(SFAB_RQ_MAX_LOG_STRIDE, 9);
}

/* the stride rule's cases: type, caps asked, what the QP gets */
static const struct {
	uint8_t type;
	uint32_t sge, inl;
	int rc;
	unsigned int log, grh;
	uint32_t max_sge, max_inline;
} stride_cases[] = {
	/* RC, UC and SMI: no GRH room; sges 32 + 16n, inline 48 + n */
	{ SFAB_QPT_RC, 1, 0, 0, 6, 0, 2, 16 },
	{ SFAB_QPT_UC, 3, 0, 0, 7, 0, 6, 80 },
	{ SFAB_QPT_RC, 1, 100, 0, 8, 0, 14, 208 },
	{ SFAB_QPT_SMI, 1, 0, 0, 6, 0, 2, 16 },
	{ SFAB_QPT_RC, 31, 0, -EINVAL, 0, 0, 0, 0 },
	{ SFAB_QPT_RC, 1, 465, -EINVAL, 0, 0, 0, 0 },
	/* UD and GSI: 32 bytes more, counted out of the caps */
	{ SFAB_QPT_UD, 1, 0, 0, 7, 32, 4, 48 },
	{ SFAB_QPT_GSI, 1, 0, 0, 7, 32, 4, 48 },
	{ SFAB_QPT_UD, 4, 0, 0, 7, 32, 4, 48 },
	{ SFAB_QPT_UD, 5, 0, 0, 8, 32, 12, 176 },
	{ SFAB_QPT_UD, 28, 0, 0, 9, 32, 28, 432 },
	{ SFAB_QPT_UD, 1, 432, 0, 9, 32, 28, 432 },
	/* caps and a GRH beyond 512 bytes: the largest stride, no room kept */
	{ SFAB_QPT_UD, 29, 0, 0, 9, 0, 30, 464 },
	{ SFAB_QPT_UD, 30, 0, 0, 9, 0, 30, 464 },
	{ SFAB_QPT_GSI, 1, 433, 0, 9, 0, 30, 464 },
	{ SFAB_QPT_UD, 31, 0, -EINVAL, 0, 0, 0, 0 },
	{ SFAB_QPT_UD, 1, 465, -EINVAL, 0, 0, 0, 0 },
};

TEST(stride_send)
{
	size_t i;

	CHECK_EQ(sfab_sq_log_stride(0, 0), 6);
	CHECK_EQ(sfab_sq_log_stride(2, 0), 6);
	CHECK_EQ(sfab_sq_log_stride(3, 0), 7);
	CHECK_EQ(sfab_sq_log_stride(30, 0), 9);
	CHECK_EQ(sfab_sq_log_stride(31, 0), -EINVAL);
	CHECK_EQ(sfab_sq_log_stride(1, 16), 6);
	CHECK_EQ(sfab_sq_log_stride(1, 17), 7);
	CHECK_EQ(sfab_sq_log_stride(1, 464), 9);
	CHECK_EQ(sfab_sq_log_stride(1, 465), -EINVAL);

	for (i = 0; i < sizeof(stride_cases) / sizeof(stride_cases[0]); i++) {
		struct sfab_sq_geom g;

		memset(&g, 0xa5, sizeof(g));
		CHECK_EQ(sfab_sq_geometry(stride_cases[i].type, stride_cases[i].sge,
					  stride_cases[i].inl, &g),
			 stride_cases[i].rc);
		if (stride_cases[i].rc)
			continue;
		CHECK_EQ(g.log_stride, stride_cases[i].log);
		CHECK_EQ(g.grh_room, stride_cases[i].grh);
		CHECK_EQ(g.max_sge, stride_cases[i].max_sge);
		CHECK_EQ(g.max_inline, stride_cases[i].max_inline);
	}
}

TEST(stride_recv)
{
	/* 16 + 16n bytes, at least 32 */
	CHECK_EQ(sfab_rq_log_stride(0), 5);
	CHECK_EQ(sfab_rq_log_stride(1), 5);
	CHECK_EQ(sfab_rq_log_stride(2), 6);
	CHECK_EQ(sfab_rq_log_stride(31), 9);
	CHECK_EQ(sfab_rq_log_stride(32), -EINVAL);
	CHECK_EQ(sfab_rq_max_sge(5), 1);
	CHECK_EQ(sfab_rq_max_sge(6), 3);
	CHECK_EQ(sfab_rq_max_sge(9), 31);
}

/* ---- send-queue retirement ---------------------------------------------- */

TEST(sq_retire_wrap)
{
	uint16_t ci = 0xfffe;

	/* 0xfffe, 0xffff, 0, 1 outstanding; a CQE for 0 retires three */
	CHECK(sfab_sq_retire(&ci, 2, 0));
	CHECK_EQ(ci, 1);
	CHECK(sfab_sq_retire(&ci, 2, 1));
	CHECK_EQ(ci, 2);
	/* nothing outstanding */
	CHECK(!sfab_sq_retire(&ci, 2, 2));
	CHECK(!sfab_sq_retire(&ci, 2, 1));
	CHECK_EQ(ci, 2);

	ci = 0xfffe;
	/* at the producer, or behind the consumer: refused, nothing moves */
	CHECK(!sfab_sq_retire(&ci, 2, 2));
	CHECK(!sfab_sq_retire(&ci, 2, 0xfffd));
	CHECK(!sfab_sq_retire(&ci, 2, 0x8000));
	CHECK_EQ(ci, 0xfffe);
	/* the last index before the wrap */
	CHECK(sfab_sq_retire(&ci, 2, 0xffff));
	CHECK_EQ(ci, 0);
}

/* ---- CQE decoding ------------------------------------------------------- */

static struct sfab_cqe cqe_of(uint8_t op, uint32_t qpn, uint8_t status,
			      uint8_t vendor_err)
{
	struct sfab_cqe c;

	memset(&c, 0, sizeof(c));
	c.qpn_opcode = sfab_cpu_to_le32((uint32_t)op << 24 | qpn);
	c.status = status;
	c.vendor_err = vendor_err;
	return c;
}

TEST(cqe_send)
{
	struct sfab_cqe c = cqe_of(SFAB_CQE_RDMA_READ, 0x123456, 0, 0);
	struct sfab_cqe_info ci;

	c.wr_id = sfab_cpu_to_le64(0x1122334455667788ULL);
	c.byte_len = sfab_cpu_to_le32(64);
	c.src_qp_sl = sfab_cpu_to_le32(0xffffffff);	/* not read for sends */
	CHECK(sfab_cqe_decode(&c, &ci));
	CHECK_EQ(ci.wr_id, 0x1122334455667788ULL);
	CHECK_EQ(ci.byte_len, 64);
	CHECK_EQ(ci.qpn, 0x123456);
	CHECK_EQ(ci.opcode, 0x02);
	CHECK(!ci.recv);
	CHECK_EQ(ci.status, 0);
	CHECK_EQ(ci.src_qp, 0);
	CHECK(sfab_cqe_opcode_known(SFAB_CQE_REG_MR));
	CHECK_EQ(sfab_cqe_qpn(&c), 0x123456);
	CHECK(!sfab_cqe_is_recv(&c));
}

TEST(cqe_recv)
{
	struct sfab_cqe c = cqe_of(SFAB_CQE_RECV_RDMA_IMM, 7, 0, 0);
	const uint8_t imm[4] = { 0xde, 0xad, 0xbe, 0xef };
	const uint8_t rkey[4] = { 0xef, 0xcd, 0xab, 0x00 };
	struct sfab_cqe_info ci;

	c.flags = SFAB_CQE_IMM | SFAB_CQE_GRH | SFAB_CQE_PHASE;
	memcpy(&c.imm_data, imm, 4);
	c.src_qp_sl = sfab_cpu_to_le32(0x0a00abcd);
	c.slid = sfab_cpu_to_le16(0x1234);
	c.pkey_index = sfab_cpu_to_le16(3);
	c.dlid_path_bits = 5;
	CHECK(sfab_cqe_decode(&c, &ci));
	CHECK(ci.recv);
	CHECK(ci.imm);
	CHECK(!ci.inv);
	CHECK(ci.grh);
	CHECK(!memcmp(&ci.imm_data, imm, 4));	/* as on the wire */
	CHECK_EQ(ci.src_qp, 0xabcd);
	CHECK_EQ(ci.sl, 10);
	CHECK_EQ(ci.slid, 0x1234);
	CHECK_EQ(ci.pkey_index, 3);
	CHECK_EQ(ci.dlid_path_bits, 5);

	/* SEND with invalidate: the rkey in the device's (LE) order */
	c = cqe_of(SFAB_CQE_RECV, 7, 0, 0);
	c.flags = SFAB_CQE_INV;
	memcpy(&c.imm_data, rkey, 4);
	CHECK(sfab_cqe_decode(&c, &ci));
	CHECK(ci.inv);
	CHECK(!ci.imm);
	CHECK_EQ(ci.inv_rkey, 0x00abcdef);

	/* a flushed receive keeps the device's status and vendor_err */
	c = cqe_of(SFAB_CQE_RECV, 7, SFAB_CQE_STS_WR_FLUSH_ERR, 0x12);
	CHECK(sfab_cqe_decode(&c, &ci));
	CHECK_EQ(ci.status, 5);
	CHECK_EQ(ci.vendor_err, 0x12);
}

TEST(cqe_unknown_opcode)
{
	struct sfab_cqe c = cqe_of(0x7f, 4, SFAB_CQE_STS_SUCCESS, 0);
	struct sfab_cqe_info ci;

	/* never a success: GENERAL_ERR (21), the opcode in vendor_err */
	CHECK(!sfab_cqe_decode(&c, &ci));
	CHECK_EQ(ci.status, 21);
	CHECK_EQ(ci.vendor_err, 0x7f);
	CHECK(!ci.recv);
	CHECK_EQ(ci.qpn, 4);

	/* whatever the CQE's status and vendor_err said */
	c = cqe_of(0x7f, 4, SFAB_CQE_STS_WR_FLUSH_ERR, 0x12);
	CHECK(!sfab_cqe_decode(&c, &ci));
	CHECK_EQ(ci.status, 21);
	CHECK_EQ(ci.vendor_err, 0x7f);

	/* an unknown receive opcode: a receive, its fields not read */
	c = cqe_of(0xfe, 4, 0, 0);
	c.flags = SFAB_CQE_IMM;
	c.src_qp_sl = sfab_cpu_to_le32(0x0a00abcd);
	CHECK(!sfab_cqe_decode(&c, &ci));
	CHECK(ci.recv);
	CHECK_EQ(ci.vendor_err, 0xfe);
	CHECK(!ci.imm);
	CHECK_EQ(ci.src_qp, 0);
	CHECK(sfab_cqe_opcode_known(SFAB_CQE_BIND_MW));
	CHECK(sfab_cqe_opcode_known(SFAB_CQE_FLUSH));
	CHECK(!sfab_cqe_opcode_known(0x0a));
	CHECK(!sfab_cqe_opcode_known(0x82));
}

/* a 32-byte CQE as the device writes it: little-endian, byte by byte */
static struct sfab_cqe cqe_bytes(const uint8_t raw[32])
{
	struct sfab_cqe c;

	memcpy(&c, raw, sizeof(c));
	return c;
}

TEST(cqe_wqe_index)
{
	/* QPN 0x123456 SEND; wqe_index (bytes 24, 25) 0xcafe; phase */
	uint8_t raw[32] = {
		[16] = 0x56, [17] = 0x34, [18] = 0x12, [19] = 0x00,
		[24] = 0xfe, [25] = 0xca, [26] = 0x77, [27] = 0x66,
		[31] = SFAB_CQE_PHASE,
	};
	struct sfab_cqe c = cqe_bytes(raw);
	struct sfab_cqe_info ci;
	uint16_t sq_ci = 0xfffe;

	CHECK_EQ(sfab_cqe_wqe_index(&c), 0xcafe);
	CHECK_EQ(sfab_cqe_qpn(&c), 0x123456);
	CHECK(!sfab_cqe_is_recv(&c));
	/* the high byte alone, and the low one: neither from pkey_index */
	raw[24] = 0x00;
	raw[25] = 0x80;
	c = cqe_bytes(raw);
	CHECK_EQ(sfab_cqe_wqe_index(&c), 0x8000);
	raw[24] = 0x01;
	raw[25] = 0x00;
	c = cqe_bytes(raw);
	CHECK_EQ(sfab_cqe_wqe_index(&c), 0x0001);
	/* the last index before the 16-bit wrap retires 0xfffe and 0xffff */
	raw[24] = 0xff;
	raw[25] = 0xff;
	c = cqe_bytes(raw);
	CHECK_EQ(sfab_cqe_wqe_index(&c), 0xffff);
	CHECK(sfab_sq_retire(&sq_ci, 2, sfab_cqe_wqe_index(&c)));
	CHECK_EQ(sq_ci, 0);

	/* a receive's slid is the same two bytes */
	raw[19] = SFAB_CQE_RECV;
	raw[24] = 0x34;
	raw[25] = 0x12;
	c = cqe_bytes(raw);
	CHECK(sfab_cqe_decode(&c, &ci));
	CHECK(ci.recv);
	CHECK_EQ(ci.slid, 0x1234);
	CHECK_EQ(ci.pkey_index, 0x6677);
	CHECK_EQ(sfab_cqe_wqe_index(&c), 0x1234);
}

TEST(eqe_cqn)
{
	/* CQN 0x12345678 (bytes 0..3), type 0, the phase flag */
	uint8_t raw[8] = { 0x78, 0x56, 0x34, 0x12, 0x00, SFAB_EQE_FLAGS_PHASE };
	struct sfab_eqe e;

	memcpy(&e, raw, sizeof(e));
	CHECK_EQ(sfab_eqe_cqn(&e), 0x12345678);
	CHECK_EQ(e.flags & SFAB_EQE_FLAGS_PHASE, 1);
	/* the top byte's high bit, and nothing from the bytes after it */
	raw[0] = 0x01;
	raw[1] = 0x00;
	raw[2] = 0x00;
	raw[3] = 0x80;
	raw[4] = 0xff;
	raw[5] = 0xff;
	raw[6] = 0xff;
	raw[7] = 0xff;
	memcpy(&e, raw, sizeof(e));
	CHECK_EQ(sfab_eqe_cqn(&e), 0x80000001U);
	/* CQN 2: the low byte only */
	memset(raw, 0, 4);
	raw[0] = 0x02;
	memcpy(&e, raw, sizeof(e));
	CHECK_EQ(sfab_eqe_cqn(&e), 2);
}

/* SFAB_WC_FILL: the fields ib_wc and ibv_wc name alike */
TEST(wc_fill)
{
	struct {
		uint64_t wr_id;
		int status;
		uint32_t vendor_err, byte_len, src_qp;
		uint8_t sl, dlid_path_bits;
		uint16_t slid, pkey_index;
	} wc;
	struct sfab_cqe c = cqe_of(SFAB_CQE_RECV, 9, SFAB_CQE_STS_LOC_LEN_ERR, 3);
	struct sfab_cqe_info ci;

	c.wr_id = sfab_cpu_to_le64(77);
	c.byte_len = sfab_cpu_to_le32(1500);
	c.src_qp_sl = sfab_cpu_to_le32(0x0f000042);
	c.slid = sfab_cpu_to_le16(0x0c);
	c.pkey_index = sfab_cpu_to_le16(1);
	c.dlid_path_bits = 2;
	CHECK(sfab_cqe_decode(&c, &ci));
	memset(&wc, 0xff, sizeof(wc));
	SFAB_WC_FILL(&wc, &ci);
	CHECK_EQ(wc.wr_id, 77);
	CHECK_EQ(wc.status, 1);
	CHECK_EQ(wc.vendor_err, 3);
	CHECK_EQ(wc.byte_len, 1500);
	CHECK_EQ(wc.src_qp, 0x42);
	CHECK_EQ(wc.sl, 15);
	CHECK_EQ(wc.slid, 0x0c);
	CHECK_EQ(wc.pkey_index, 1);
	CHECK_EQ(wc.dlid_path_bits, 2);
}

/* ---- port and identity -------------------------------------------------- */

TEST(vl_cap)
{
	/* IBTA 14.2.5.6: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14 */
	static const uint8_t want[16] = {
		1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 5,
	};
	unsigned int n;

	for (n = 0; n < 16; n++)
		CHECK_EQ(sfab_vl_cap(n), want[n]);
	CHECK_EQ(sfab_vl_cap(SFAB_FW_MAX_VLS), 4);
}

TEST(fw_ver)
{
	uint16_t maj, min, pat;

	CHECK_EQ(sfab_fw_ver_pack(1, 2, 3), 0x0000000100020003ULL);
	/* 16 bits each: the rest is cut */
	CHECK_EQ(sfab_fw_ver_pack(0x12345, 0xffff, 0x10001),
		 0x00002345ffff0001ULL);
	CHECK_EQ(sfab_fw_ver_parse("1.2.3"), 0x0000000100020003ULL);
	CHECK_EQ(sfab_fw_ver_parse("10.0.42"), 0x0000000a0000002aULL);
	CHECK_EQ(sfab_fw_ver_parse("7"), 0x0000000700000000ULL);
	CHECK_EQ(sfab_fw_ver_parse("7.5"), 0x0000000700050000ULL);
	CHECK_EQ(sfab_fw_ver_parse("1.2.3-rc1"), 0x0000000100020003ULL);
	CHECK_EQ(sfab_fw_ver_parse("1.2.3.4"), 0x0000000100020003ULL);
	CHECK_EQ(sfab_fw_ver_parse("v1.2"), 0);
	CHECK_EQ(sfab_fw_ver_parse(""), 0);
	sfab_fw_ver_unpack(0x0000000a0000002aULL, &maj, &min, &pat);
	CHECK_EQ(maj, 10);
	CHECK_EQ(min, 0);
	CHECK_EQ(pat, 42);
	sfab_fw_ver_unpack(0xffff0001fffe0003ULL, &maj, &min, &pat);
	CHECK_EQ(maj, 1);
	CHECK_EQ(min, 0xfffe);
	CHECK_EQ(pat, 3);
}

TEST(port_codes)
{
	/* IBA MTU and width codes (enum ib_mtu, enum ib_port_width) */
	CHECK_EQ(SFAB_PI_MTU_256, 1);
	CHECK_EQ(SFAB_PI_MTU_2048, 4);
	CHECK_EQ(SFAB_PI_MTU_4096, 5);
	CHECK_EQ(SFAB_PI_WIDTH_1X, 1);
	CHECK_EQ(SFAB_PI_WIDTH_4X, 2);
	CHECK_EQ(SFAB_PI_WIDTH_8X, 4);
	CHECK_EQ(SFAB_PI_WIDTH_12X, 8);
	CHECK_EQ(SFAB_PI_WIDTH_2X, 16);
	/* port_attr speed: a bit per speed, in order, no FDR10 */
	CHECK_EQ(SFAB_PORT_SPEED_SDR, 0x01);
	CHECK_EQ(SFAB_PORT_SPEED_FDR, 0x08);
	CHECK_EQ(SFAB_PORT_SPEED_NDR, 0x40);
	CHECK_EQ(SFAB_PORT_SPEED_XDR, 0x80);
	/* PortInfo:CapabilityMask bits (IBTA 14.2.5.6) */
	CHECK_EQ(SFAB_PI_CAP_IS_SM, 0x2);
	CHECK_EQ(SFAB_PI_CAP_HAS_TRAP, 0x8);
	CHECK_EQ(SFAB_PI_CAP_HAS_SL_MAP, 0x40);
	CHECK_EQ(SFAB_PI_CAP_HAS_SYS_IMAGE_GUID, 0x800);
	CHECK_EQ(SFAB_PI_CAP_HAS_EXT_SPEEDS, 0x4000);
	CHECK_EQ(SFAB_PI_CAP_HAS_CM, 0x10000);
	CHECK_EQ(SFAB_PI_CAP_HAS_DEV_MGMT, 0x80000);
	CHECK_EQ(SFAB_PI_CAP_HAS_VENDOR_CLASS, 0x100000);
	CHECK_EQ(SFAB_PI_CAP_HAS_CAP_MASK_NOTICE, 0x400000);
	CHECK_EQ(SFAB_VENDOR_OUI, 0x001af4);
	CHECK_EQ(SFAB_VENDOR_OUI, SFAB_PCI_VENDOR_ID);
	CHECK_EQ(SFAB_PORT_GID_TBL_LEN, 1);
	CHECK_EQ(SFAB_PORT_PKEY_TBL_LEN, 32);
}

/* the device packs qpn_opcode and src_qp_sl; a destroyed QP's CQEs */
TEST(cqe_pack_disown)
{
	struct sfab_cqe c;
	const uint8_t want[4] = { 0x56, 0x34, 0x12, 0x81 };
	const uint8_t ss[4] = { 0xcd, 0xab, 0x00, 0x0a };

	memset(&c, 0, sizeof(c));
	c.qpn_opcode = sfab_cqe_qpn_opcode(0x123456, SFAB_CQE_RECV_RDMA_IMM);
	CHECK(!memcmp(&c.qpn_opcode, want, 4));
	c.src_qp_sl = sfab_cqe_src_qp_sl(0xabcd, 10);
	CHECK(!memcmp(&c.src_qp_sl, ss, 4));
	/* another QP's: untouched */
	sfab_cqe_disown(&c, 0x123457);
	CHECK_EQ(sfab_cqe_qpn(&c), 0x123456);
	/* this QP's: no QP's, the opcode kept */
	sfab_cqe_disown(&c, 0x123456);
	CHECK_EQ(sfab_cqe_qpn(&c), 0xffffff);
	CHECK_EQ(sfab_cqe_opcode(&c), 0x81);
}

/* SFAB_WQE_INLINE_FILL: the header, then the SGEs' bytes */
TEST(wqe_inline_fill)
{
	static const char a[] = "abc", b[] = "defgh";
	struct { uint64_t addr; uint32_t length, lkey; } sgl[2] = {
		{ (uintptr_t)a, 3, 0 }, { (uintptr_t)b, 5, 0 },
	};
	const uint8_t hdr[16] = { 8 };
	uint8_t seg[64];
	int err;

	memset(seg, 0xee, sizeof(seg));
	SFAB_WQE_INLINE_FILL(seg, sizeof(seg), sgl, 2, 8, err);
	CHECK_EQ(err, 0);
	CHECK(!memcmp(seg, hdr, 16));
	CHECK(!memcmp(seg + 16, "abcdefgh", 8));
	CHECK_EQ(seg[24], 0xee);
	/* over the inline limit, or the room after the 16-byte header */
	memset(seg, 0xee, sizeof(seg));
	SFAB_WQE_INLINE_FILL(seg, sizeof(seg), sgl, 2, 7, err);
	CHECK_EQ(err, -EINVAL);
	SFAB_WQE_INLINE_FILL(seg, 23, sgl, 2, 64, err);
	CHECK_EQ(err, -EINVAL);
	CHECK_EQ(seg[0], 0xee);
	SFAB_WQE_INLINE_FILL(seg, 24, sgl, 2, 64, err);
	CHECK_EQ(err, 0);
	/* nothing: a header with a zero count */
	SFAB_WQE_INLINE_FILL(seg, 16, sgl, 0, 0, err);
	CHECK_EQ(err, 0);
	CHECK(!memcmp(seg, (uint8_t[16]){ 0 }, 16));
}

/* ---- sfab-accel (sfab_accel.h) ------------------------------------------ */

/* accel.rst's register map and command layout */
TEST(accel_layout)
{
	CHECK_EQ(SFAB_ACCEL_REG_CTL, 0x00c);
	CHECK_EQ(SFAB_ACCEL_REG_ERR_INDEX, 0x018);
	CHECK_EQ(SFAB_ACCEL_REG_RING_BASE_LO, 0x028);
	CHECK_EQ(SFAB_ACCEL_REG_RING_PI, 0x030);
	CHECK_EQ(SFAB_ACCEL_REG_SEQ_HI, 0x03c);
	CHECK_EQ(SFAB_ACCEL_STS_ERROR, 0x80000000U);
	CHECK_EQ(SFAB_ACCEL_INTR_ERR, 0x2);
	CHECK_EQ(SFAB_ACCEL_RING_LOG_DEPTH_MASK, 0x1f);
	CHECK_EQ(SFAB_ACCEL_MEM_SIZE_DEFAULT, 256ULL << 20);
	CHECK_EQ(offsetof(struct sfab_accel_cmd, len), 4);
	CHECK_EQ(offsetof(struct sfab_accel_cmd, addr), 8);
	CHECK_EQ(offsetof(struct sfab_accel_cmd, u.copy.src), 16);
	CHECK_EQ(offsetof(struct sfab_accel_cmd, u.poll.expect), 24);
	CHECK_EQ(offsetof(struct sfab_accel_cmd, u.poll.timeout_ns), 32);
	CHECK_EQ(offsetof(struct sfab_accel_cmd, u.data[47]), 63);
}

/* the 64 bytes of each encoder's command, little-endian, written out */
TEST(accel_encoders)
{
	static const uint8_t store64[64] = {
		0x05, 0, 0, 0, 0, 0, 0, 0,
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	};
	static const uint8_t store32[64] = {
		0x04, 0, 0, 0, 0, 0, 0, 0,
		0x04, 0x10, 0, 0, 0, 0, 0, 0,
		0xef, 0xbe, 0xad, 0xde, 0, 0, 0, 0,
	};
	static const uint8_t imm[64] = {
		0x02, 0, 0, 0, 0x03, 0, 0, 0,
		0x01, 0x20, 0, 0, 0, 0, 0, 0,
		'a', 'b', 'c',
	};
	static const uint8_t copy[64] = {
		0x03, 0, 0, 0, 0x00, 0x00, 0x01, 0,
		0x00, 0x30, 0, 0, 0x01, 0, 0, 0,
		0x00, 0x40, 0, 0, 0x02, 0, 0, 0,
	};
	static const uint8_t poll32[64] = {
		0x06, 0, 0, 0, 0, 0, 0, 0,
		0x08, 0x50, 0, 0, 0, 0, 0, 0,
		0x00, 0xff, 0, 0, 0, 0, 0, 0,
		0x00, 0x12, 0, 0, 0, 0, 0, 0,
		0x00, 0xca, 0x9a, 0x3b, 0, 0, 0, 0,
	};
	static const uint8_t poll64[64] = {
		0x07, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x60, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01, 0, 0, 0, 0, 0, 0, 0x80,
		0x10, 0x27, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t complete[64] = {
		0x09, 0x01, 0, 0, 0, 0, 0, 0,
		0x40, 0x70, 0, 0, 0, 0, 0, 0,
		0x2a, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t nop[64] = { 0x01 };
	static const uint8_t fence[64] = { 0x08 };
	struct sfab_accel_cmd c;

	memset(&c, 0xee, sizeof(c));
	CHECK_EQ(sfab_accel_cmd_store64(&c, 0x1122334455667788ULL,
					0x0102030405060708ULL), 0);
	CHECK(!memcmp(&c, store64, 64));
	CHECK_EQ(sfab_accel_cmd_store32(&c, 0x1004, 0xdeadbeef), 0);
	CHECK(!memcmp(&c, store32, 64));
	CHECK_EQ(sfab_accel_cmd_write_imm(&c, 0x2001, "abc", 3), 0);
	CHECK(!memcmp(&c, imm, 64));
	CHECK_EQ(sfab_accel_cmd_copy(&c, 0x100003000ULL, 0x200004000ULL,
				     0x10000), 0);
	CHECK(!memcmp(&c, copy, 64));
	CHECK_EQ(sfab_accel_cmd_poll32(&c, 0x5008, 0xff00, 0x1200,
				       1000000000), 0);
	CHECK(!memcmp(&c, poll32, 64));
	CHECK_EQ(sfab_accel_cmd_poll64(&c, 0x6000, ~0ULL,
				       0x8000000000000001ULL, 10000), 0);
	CHECK(!memcmp(&c, poll64, 64));
	CHECK_EQ(sfab_accel_cmd_complete(&c, 0x7040, 42, true), 0);
	CHECK(!memcmp(&c, complete, 64));
	memset(&c, 0xee, sizeof(c));
	sfab_accel_cmd_nop(&c);
	CHECK(!memcmp(&c, nop, 64));
	memset(&c, 0xee, sizeof(c));
	sfab_accel_cmd_fence(&c);
	CHECK(!memcmp(&c, fence, 64));
}

/* what the encoders refuse: lengths, alignment, the timeout, STORE32 */
TEST(accel_encoders_refuse)
{
	uint8_t data[64] = { 0 };
	struct sfab_accel_cmd c;

	CHECK_EQ(sfab_accel_cmd_write_imm(&c, 0x1000, data, 48), 0);
	CHECK_EQ(sfab_accel_cmd_write_imm(&c, 0x1000, data, 49), -EINVAL);
	CHECK_EQ(sfab_accel_cmd_write_imm(&c, 0x1000, data, 0), -EINVAL);
	CHECK_EQ(sfab_accel_cmd_copy(&c, 1, 3, 65536), 0);
	CHECK_EQ(sfab_accel_cmd_copy(&c, 1, 3, 65537), -EINVAL);
	CHECK_EQ(sfab_accel_cmd_copy(&c, 1, 3, 0), -EINVAL);
	CHECK_EQ(sfab_accel_cmd_store32(&c, 0x1002, 1), -EINVAL);
	CHECK_EQ(sfab_accel_cmd_store64(&c, 0x1004, 1), -EINVAL);
	CHECK_EQ(sfab_accel_cmd_store64(&c, 0x1008, 1), 0);
	CHECK_EQ(sfab_accel_cmd_poll32(&c, 0x1004, 1, 1, 10000000000ULL), 0);
	CHECK_EQ(sfab_accel_cmd_poll32(&c, 0x1004, 1, 1, 10000000001ULL),
		 -EINVAL);
	CHECK_EQ(sfab_accel_cmd_poll64(&c, 0x1004, 1, 1, 0), -EINVAL);
	CHECK_EQ(sfab_accel_cmd_complete(&c, 0, 1, false), 0);
	CHECK_EQ(sfab_accel_cmd_complete(&c, 0x1004, 1, false), -EINVAL);
}

/* the decoder's verdicts, and its checks' order */
TEST(accel_decode)
{
	struct sfab_accel_op op;
	struct sfab_accel_cmd c;
	uint8_t *raw = (uint8_t *)&c;

	sfab_accel_cmd_poll64(&c, 0x6000, 0xf0, 0x30, 77);
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_NONE);
	CHECK_EQ(op.opcode, SFAB_ACCEL_OP_POLL64);
	CHECK_EQ(op.addr, 0x6000);
	CHECK_EQ(op.mask, 0xf0);
	CHECK_EQ(op.expect, 0x30);
	CHECK_EQ(op.timeout_ns, 77);
	sfab_accel_cmd_write_imm(&c, 0x10, "xy", 2);
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_NONE);
	CHECK_EQ(op.len, 2);
	CHECK(op.data == c.u.data);
	sfab_accel_cmd_complete(&c, 0, 5, true);
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_NONE);
	CHECK(op.irq);
	CHECK_EQ(op.value, 5);

	/* opcode 0 and past the last */
	memset(&c, 0, sizeof(c));
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_OPCODE);
	c.opcode = 0x0a;
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_OPCODE);
	/* the IRQ flag on anything but COMPLETE; bytes 2-3; addr on a FENCE */
	sfab_accel_cmd_store64(&c, 0x1000, 1);
	c.flags = SFAB_ACCEL_CMD_F_IRQ;
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_RESERVED);
	sfab_accel_cmd_store64(&c, 0x1000, 1);
	raw[2] = 1;
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_RESERVED);
	sfab_accel_cmd_fence(&c);
	raw[8] = 8;
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_RESERVED);
	/* a WRITE_IMM byte past len; STORE32's high word */
	sfab_accel_cmd_write_imm(&c, 0x10, "xy", 2);
	raw[16 + 47] = 1;
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_RESERVED);
	sfab_accel_cmd_store32(&c, 0x1000, 1);
	raw[20] = 1;
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_RESERVED);
	/* bounds come before the body's reserved bytes and alignment */
	sfab_accel_cmd_copy(&c, 0x1001, 0x2000, 0x10001);
	raw[63] = 1;
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_BOUNDS);
	/* reserved before alignment */
	sfab_accel_cmd_store64(&c, 0x1004, 1);
	raw[40] = 1;
	CHECK_EQ(sfab_accel_cmd_decode(&c, &op), SFAB_ACCEL_ERR_RESERVED);
	CHECK_EQ(op.addr, 0x1004);	/* filled also when refused */
}

TEST(accel_ring)
{
	/* 4 commands at 0x1000: index 5 is slot 1, 0xffffffff slot 3 */
	CHECK_EQ(sfab_accel_ring_cmd_addr(0x1000, 2, 5), 0x1040);
	CHECK_EQ(sfab_accel_ring_cmd_addr(0x1000, 2, 0xffffffff), 0x10c0);
	CHECK_EQ(sfab_accel_ring_cmd_addr(0x100000000ULL, 16, 0x12345),
		 0x100000000ULL + 0x2345 * 64);
	CHECK_EQ(sfab_accel_ring_used(2, 0xfffffffe), 4);
	CHECK_EQ(sfab_accel_ring_free(4, 1, 2), 1);
	CHECK_EQ(sfab_accel_ring_free(5, 1, 2), 0);
	CHECK_EQ(sfab_accel_ring_free(6, 1, 2), 0);
	CHECK_EQ(sfab_accel_ring_free(0, 1, 2), 0);	/* PI behind CI */
	CHECK_EQ(sfab_accel_ring_free(1, 1, 16), 65536);

	CHECK(sfab_accel_ring_cfg_ok(0x40, 2));
	CHECK(!sfab_accel_ring_cfg_ok(0, 2));
	CHECK(!sfab_accel_ring_cfg_ok(0x20, 2));
	CHECK(!sfab_accel_ring_cfg_ok(0x1000, 1));
	CHECK(sfab_accel_ring_cfg_ok(0x1000, 16));
	CHECK(!sfab_accel_ring_cfg_ok(0x1000, 17));
	/* the last 256 bytes of the address space hold 4 commands, not 8 */
	CHECK(sfab_accel_ring_cfg_ok(0xffffffffffffff00ULL, 2));
	CHECK(!sfab_accel_ring_cfg_ok(0xffffffffffffff00ULL, 3));

	CHECK(sfab_accel_poll_match(0x12345678, 0xff00, 0x5600));
	CHECK(!sfab_accel_poll_match(0x12345678, 0xff00, 0x5678));
	CHECK(sfab_accel_poll_match(0xdead, 0, 0));
}

TEST(accel_mem_size_and_names)
{
	CHECK(sfab_accel_mem_size_ok(1ULL << 20));
	CHECK(sfab_accel_mem_size_ok(256ULL << 20));
	CHECK(sfab_accel_mem_size_ok(16ULL << 30));
	CHECK(!sfab_accel_mem_size_ok(1ULL << 19));
	CHECK(!sfab_accel_mem_size_ok(32ULL << 30));
	CHECK(!sfab_accel_mem_size_ok(3ULL << 20));
	CHECK(!sfab_accel_mem_size_ok(0));

	CHECK(!strcmp(sfab_accel_err_str(SFAB_ACCEL_ERR_NONE), "none"));
	CHECK(!strcmp(sfab_accel_err_str(9), "poll-timeout"));
	CHECK(!strcmp(sfab_accel_err_str(10), "unknown"));
	CHECK_EQ(sfab_accel_op_width(SFAB_ACCEL_OP_POLL32), 4);
	CHECK_EQ(sfab_accel_op_width(SFAB_ACCEL_OP_STORE64), 8);
	CHECK_EQ(sfab_accel_op_width(SFAB_ACCEL_OP_COPY), 0);
}

TEST(ring_dbrec_off)
{
	/* none */
	CHECK(sfab_ring_dbrec_off_ok(4096, 0, 4096));
	/* right after the ring (sfab_dbrec_ring_off()), and up to the page's end */
	CHECK(sfab_ring_dbrec_off_ok(4096, sfab_dbrec_ring_off(6, 6), 4096));
	CHECK(sfab_ring_dbrec_off_ok(4096, 8192 - SFAB_DBREC_SIZE, 4096));
	CHECK(sfab_ring_dbrec_off_ok(512, 4096 - SFAB_DBREC_SIZE, 4096));
	/* inside the ring, misaligned, past the page after it */
	CHECK(!sfab_ring_dbrec_off_ok(4096, 4088, 4096));
	CHECK(!sfab_ring_dbrec_off_ok(4096, 4100, 4096));
	CHECK(!sfab_ring_dbrec_off_ok(4096, 8192, 4096));
	CHECK(!sfab_ring_dbrec_off_ok(512, 4096, 4096));
	/* a bigger page allows more */
	CHECK(sfab_ring_dbrec_off_ok(4096, 65536 - SFAB_DBREC_SIZE, 65536));
	/* nonsense page sizes and sizes that wrap */
	CHECK(!sfab_ring_dbrec_off_ok(4096, 4096, 0));
	CHECK(!sfab_ring_dbrec_off_ok(4096, 4096, 3000));
	CHECK(!sfab_ring_dbrec_off_ok(0, 8, 4096));
	CHECK(!sfab_ring_dbrec_off_ok(~0ULL - 8, ~0ULL - 7, 4096));
}

TEST(mcast_rules)
{
	struct sfab_aq_mcast m;

	/* the multicast LIDs: 0xc000..0xfffe, not the permissive LID */
	CHECK(!sfab_lid_is_mcast(0));
	CHECK(!sfab_lid_is_mcast(SFAB_LID_UCAST_MAX));
	CHECK(sfab_lid_is_mcast(0xc000));
	CHECK(sfab_lid_is_mcast(0xfffe));
	CHECK(!sfab_lid_is_mcast(SFAB_LID_PERMISSIVE));
	memset(&m, 0, sizeof(m));
	CHECK(!sfab_gid_is_mcast(m.mgid));
	m.mgid[0] = 0xfe;
	CHECK(!sfab_gid_is_mcast(m.mgid));
	m.mgid[0] = 0xff;
	CHECK(sfab_gid_is_mcast(m.mgid));
	/* a command: both multicast, the reserved field zero */
	m.mlid = sfab_cpu_to_be16(0xc004);
	CHECK(sfab_aq_mcast_ok(&m));
	m.reserved = sfab_cpu_to_le16(0x100);
	CHECK(!sfab_aq_mcast_ok(&m));
	m.reserved = 0;
	m.mlid = sfab_cpu_to_be16(0x0004);
	CHECK(!sfab_aq_mcast_ok(&m));
	m.mlid = sfab_cpu_to_be16(0xc004);
	m.mgid[0] = 0xfe;
	CHECK(!sfab_aq_mcast_ok(&m));
}
