/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-switch: RC between two HCA engines through a switch from
 * qemu-model/switch (LID routed by its LFT, flow controlled on both
 * cables): SEND, WRITE and READ of many MTU-sized packets at 4 KiB MTU,
 * a UC send, and an atomic, the data checked at the far end.
 *
 *   HCA 0 (LID 0x11) --1[switch]2-- HCA 1 (LID 0x22)
 */
#include "harness.h"
#include "rc_switch.h"

TEST(rc_through_switch)
{
	struct rp_cfg cfg = { .mtu = 5, .psn0 = 0xffff00 };
	const uint32_t len = 200 * 1024;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint64_t v = 7;

	fabric_up(&cfg);
	rp_fill(0, 0, len, 3);
	rp_recv(1, 0x100, 0, len);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, len);
	rp_post(0, &s);
	pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), len);
	CHECK(rp_same(0, 0, 1, 0, len));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);

	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x11, 0, 0, len);
	s.raddr = RP[1].mem + 300000;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_fill(1, 600000, len, 9);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x12, 0, 600000, len);
	s.raddr = RP[1].mem + 600000;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	memcpy(rp_mem(1, 900000), &v, 8);
	s = rp_wqe(SFAB_WQE_ATOMIC_FA, 0x13, 0, 900000, 8);
	s.raddr = RP[1].mem + 900000;
	s.rkey = RP[1].key;
	s.swap_add = 35;
	rp_post(0, &s);
	pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x12);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x13);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 0, 1, 300000, len));
	CHECK(rp_same(1, 600000, 0, 600000, len));
	memcpy(&v, rp_mem(0, 900000), 8);
	CHECK_EQ(v, 7);
	memcpy(&v, rp_mem(1, 900000), 8);
	CHECK_EQ(v, 42);
	/* lossless: nothing was sent twice */
	CHECK_EQ(RP[0].h->e->stats.rc_retransmits, 0);
	fabric_down();
}

TEST(uc_through_switch)
{
	struct rp_cfg cfg = { .type = SFAB_QPT_UC, .mtu = 3 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	fabric_up(&cfg);
	rp_fill(0, 0, 10000, 5);
	rp_recv(1, 0x100, 0, 16384);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 10000);
	rp_post(0, &s);
	pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 10000);
	CHECK(rp_same(0, 0, 1, 0, 10000));
	fabric_down();
}
