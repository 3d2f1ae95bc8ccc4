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
#include "sw_fabric.h"
#include "grh_host.h"

static struct tf TF;

static void sw_tx(void *opaque, const uint8_t *f, size_t len)
{
	unsigned int i = opaque == RP[0].h ? 0 : 1;

	tf_send(&TF, (struct tf_end){ 0, i + 1 }, f, len);
}

static void sw_rx(void *opaque, unsigned int idx, const uint8_t *f, size_t len)
{
	(void)opaque;
	sfab_engine_cable_rx(RP[idx].h->e, f, len);
}

static void pump(void)
{
	unsigned int rounds = 0, i;
	bool busy;

	do {
		busy = tf_pump(&TF) != 0;
		for (i = 0; i < 2; i++)
			if (sfab_engine_work_pending(RP[i].h->e)) {
				host_run(RP[i].h);
				busy = true;
			}
		/* time passes: periodic flow control on every link */
		TF.now += 20000;
		for (i = 0; i < 2; i++) {
			RP[i].h->now += 20000;
			sfab_engine_timer(RP[i].h->e);
		}
		if (TF.head)
			busy = true;
	} while (busy && ++rounds < 200000);
}

static void fabric_up(const struct rp_cfg *c)
{
	struct sfab_sw_cfg cfg;
	unsigned int i;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.num_data_vls = 4;
	cfg.fc_period_ns = 100000;
	cfg.node_guid = 0xa0;
	tf_init(&TF);
	tf_add_sw(&TF, 0, &cfg);
	TF.ext_rx = sw_rx;
	rp_node_up(0, RP_LID0, c);
	rp_node_up(1, RP_LID1, c);
	grh_guids();
	rp_ops.cable_tx = sw_tx;
	tf_cable_ext(&TF, 0, 0, 1);
	tf_cable_ext(&TF, 1, 0, 2);
	for (i = 0; i < 2; i++)
		sfab_engine_cable_up(RP[i].h->e);
	pump();
	tf_activate(&TF);
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&RP[i].h->e->port.link, SFAB_PORT_ARMED);
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&RP[i].h->e->port.link, SFAB_PORT_ACTIVE);
	pump();
	for (i = 0; i < 2; i++)
		REQUIRE(RP[i].h->e->port.link.state == SFAB_PORT_ACTIVE);
	REQUIRE(sfab_sw_lft_set(TF.sw[0], RP_LID0, 1) == 0);
	REQUIRE(sfab_sw_lft_set(TF.sw[0], RP_LID1, 2) == 0);
}

static void fabric_down(void)
{
	unsigned int i;

	tf_fini(&TF);
	for (i = 0; i < 2; i++) {
		host_free(RP[i].h);
		RP[i].h = NULL;
	}
}

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
