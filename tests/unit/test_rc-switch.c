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
#include "sw_fabric.h"
#include "rc_pair.h"

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
	rp_connect(c);
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
