/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/grh-switch: packets with a GRH (LNH IBA global) through a switch
 * from qemu-model/switch, which forwards by DLID whatever follows the LRH:
 * a UD datagram with a GRH arrives with the GRH placed and SFAB_CQE_GRH,
 * an RC SEND and READ over a global path complete, and a GRH for another
 * port's GID is dropped at the receiving HCA, not in the switch.
 *
 *   HCA 0 (LID 0x11) --1[switch]2-- HCA 1 (LID 0x22)
 */
#include "harness.h"
#include "grh_host.h"
#define RC_SWITCH_NODES_HOOK grh_guids
#define RC_SWITCH_NO_CONNECT
#include "rc_switch.h"

TEST(ud_grh_through_switch)
{
	struct rp_cfg cfg = { .mtu = 5 };
	struct qh_qp ud[2];
	struct sfab_wqe_grh g;
	struct sfab_cqe cqe;
	uint8_t gid0[16], gid1[16], want[40];
	const uint32_t len = 4000;

	fabric_up(&cfg);
	grh_ud_new(0, &ud[0]);
	grh_ud_new(1, &ud[1]);
	grh_gid(0, gid0);
	grh_gid(1, gid1);
	rp_fill(0, 0, len, 9);
	grh_ud_recv(1, &ud[1], 0x100, 8192, 8192);
	g = grh_av(gid1, 0x7e, 0x1234, 2);
	grh_ud_send(0, &ud[0], 0x10, ud[1].qpn, RP_LID1, &g, 0, len);
	pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(cqe.flags & SFAB_CQE_GRH);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), SFAB_UD_GRH_LEN + len);
	/* PayLen: BTH + DETH + payload + ICRC */
	grh_expect(want, 0x7e, 0x1234,
		   SFAB_WIRE_BTH_LEN + SFAB_WIRE_DETH_LEN + len + SFAB_WIRE_ICRC_LEN,
		   2, gid0, gid1);
	CHECK(!memcmp(rp_mem(1, 8192), want, 40));
	CHECK(rp_same(0, 0, 1, 8192 + 40, len));

	/* the switch delivers a GRH for another GID; the HCA drops it */
	grh_ud_recv(1, &ud[1], 0x101, 8192, 8192);
	g = grh_av(gid0, 0, 0, 2);
	grh_ud_send(0, &ud[0], 0x11, ud[1].qpn, RP_LID1, &g, 0, 64);
	pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(!rp_poll(1, &cqe));
	CHECK_EQ(RP[1].h->e->stats.rx_bad_grh, 1);
	fabric_down();
}

TEST(rc_grh_through_switch)
{
	struct rp_cfg cfg = { .mtu = 5, .psn0 = 0xfffff0 };
	const uint32_t len = 64 * 1024;
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	fabric_up(&cfg);
	grh_connect(&cfg);
	rp_fill(0, 0, len, 3);
	rp_recv(1, 0x100, 0, len);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, len);
	rp_post(0, &s);
	rp_fill(1, 200000, len, 13);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x11, 0, 200000, len);
	s.raddr = RP[1].mem + 200000;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), len);
	CHECK(rp_same(0, 0, 1, 0, len));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(1, 200000, 0, 200000, len));
	CHECK_EQ(RP[0].h->e->stats.rc_retransmits, 0);
	CHECK_EQ(RP[0].h->e->stats.rx_bad_grh + RP[1].h->e->stats.rx_bad_grh, 0);
	/* 16 SENDs of 4 KiB and the READ one way, 16 READ responses back */
	CHECK(RP[1].h->e->stats.rc_pkts_rx >= 17);
	CHECK(RP[0].h->e->stats.rc_pkts_rx >= 16);
	fabric_down();
}
