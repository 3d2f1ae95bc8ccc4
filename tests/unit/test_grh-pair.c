/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/grh-pair: global routing headers between two HCA engines cabled
 * back to back.  UD sends with a GRH segment arrive with the GRH in the
 * first 40 bytes of the receive buffer and SFAB_CQE_GRH; RC and UC QPs
 * whose path has a GRH send and answer with LNH IBA global; a GRH whose
 * DGID is not the port GID is dropped and counted; GMPs with a GRH reach
 * the host's QP1 while SMPs with one are dropped; MODIFY_QP checks the GRH
 * block and QUERY_QP returns it; the packet helpers build and parse GRHs
 * and refuse malformed ones; garbled GRH packets do no harm.
 */
#include "harness.h"
#include "grh_host.h"

/* the last data frame seen on its way to node 1 / node 0 */
static uint8_t seen[2][SFAB_WIRE_MAX_PKT_LEN];
static size_t seen_len[2];
static unsigned long seen_global[2], seen_local[2];

static bool watch(unsigned int to, const uint8_t *f, size_t len)
{
	memcpy(seen[to], f, len);
	seen_len[to] = len;
	if ((f[1] & SFAB_LRH_LNH_MASK) == SFAB_LNH_IBA_GLOBAL)
		seen_global[to]++;
	else
		seen_local[to]++;
	return false;
}

static void watch_reset(void)
{
	memset(seen_len, 0, sizeof(seen_len));
	memset(seen_global, 0, sizeof(seen_global));
	memset(seen_local, 0, sizeof(seen_local));
	rp_drop = watch;
}

/* two nodes, link up, RC (or UC) QPs not yet connected */
static void pair_up(const struct rp_cfg *c)
{
	memset(RPW, 0, sizeof(RPW));
	rp_drop = NULL;
	rp_node_up(0, RP_LID0, c);
	rp_node_up(1, RP_LID1, c);
	grh_guids();
	rp_link_up();
}

TEST(ud_send_with_grh)
{
	struct rp_cfg cfg = { .mtu = 3 };
	struct qh_qp ud[2];
	struct sfab_wqe_grh g;
	struct sfab_cqe cqe;
	uint8_t gid0[16], gid1[16], want[40];
	const uint32_t len = 700;

	pair_up(&cfg);
	grh_ud_new(0, &ud[0]);
	grh_ud_new(1, &ud[1]);
	grh_gid(0, gid0);
	grh_gid(1, gid1);
	CHECK(memcmp(gid0, gid1, 16) != 0);
	rp_fill(0, 0, len, 7);
	memset(rp_mem(1, 4096), 0xee, 4096);
	grh_ud_recv(1, &ud[1], 0x100, 4096, 2048);
	watch_reset();
	g = grh_av(gid1, 0xa5, 0xbcdef, 17);
	grh_ud_send(0, &ud[0], 0x10, ud[1].qpn, RP_LID1, &g, 0, len);
	rp_pump();

	/* on the wire: LNH IBA global, a valid GRH, the ICRC over it */
	CHECK_EQ(seen_global[1], 1);
	CHECK_EQ(seen_local[1], 0);
	REQUIRE(seen_len[1] > SFAB_WIRE_LRH_LEN + SFAB_WIRE_GRH_LEN);
	CHECK(sfab_wire_icrc_ok(seen[1], seen_len[1]));
	grh_expect(want, 0xa5, 0xbcdef,
		   seen_len[1] - SFAB_WIRE_VCRC_LEN - SFAB_WIRE_LRH_LEN -
		   SFAB_WIRE_GRH_LEN, 17, gid0, gid1);
	CHECK(!memcmp(seen[1] + SFAB_WIRE_LRH_LEN, want, 40));

	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV);
	CHECK_EQ(cqe_qpn(&cqe), ud[1].qpn);
	CHECK(cqe.flags & SFAB_CQE_GRH);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), SFAB_UD_GRH_LEN + len);
	CHECK_EQ(sfab_le16_to_cpu(cqe.slid), RP_LID0);
	/* the GRH in the first 40 bytes, the payload after it */
	CHECK(!memcmp(rp_mem(1, 4096), want, 40));
	CHECK(rp_same(0, 0, 1, 4096 + 40, len));
	CHECK_EQ(*rp_mem(1, 4096 + 40 + len), 0xee);

	/* without the segment: LID routed, the slot untouched, no flag */
	memset(rp_mem(1, 4096), 0xee, 4096);
	grh_ud_recv(1, &ud[1], 0x101, 4096, 2048);
	watch_reset();
	grh_ud_send(0, &ud[0], 0x11, ud[1].qpn, RP_LID1, NULL, 0, len);
	rp_pump();
	CHECK_EQ(seen_local[1], 1);
	CHECK_EQ(seen_global[1], 0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(!(cqe.flags & SFAB_CQE_GRH));
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), SFAB_UD_GRH_LEN + len);
	CHECK_EQ(*rp_mem(1, 4096), 0xee);
	CHECK_EQ(*rp_mem(1, 4096 + 39), 0xee);
	CHECK(rp_same(0, 0, 1, 4096 + 40, len));
	CHECK_EQ(RP[1].h->e->stats.rx_bad_grh, 0);
	rp_down();
}

TEST(ud_grh_to_another_gid_is_dropped)
{
	struct rp_cfg cfg = { 0 };
	struct qh_qp ud[2];
	struct sfab_wqe_grh g;
	struct sfab_cqe cqe;
	uint8_t gid0[16], gid1[16];
	uint64_t recvs;

	pair_up(&cfg);
	grh_ud_new(0, &ud[0]);
	grh_ud_new(1, &ud[1]);
	grh_gid(0, gid0);
	grh_gid(1, gid1);
	grh_ud_recv(1, &ud[1], 0x100, 4096, 2048);
	recvs = RP[1].h->e->stats.recvs;
	/* right LID, wrong GID (node 0's own) */
	g = grh_av(gid0, 0, 0, 64);
	grh_ud_send(0, &ud[0], 0x10, ud[1].qpn, RP_LID1, &g, 0, 100);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);	/* UD: the sender cannot know */
	CHECK(!rp_poll(1, &cqe));
	CHECK_EQ(RP[1].h->e->stats.rx_bad_grh, 1);
	CHECK_EQ(RP[1].h->e->stats.recvs, recvs);
	/* the receive is still there for the right GID */
	g = grh_av(gid1, 0, 0, 64);
	grh_ud_send(0, &ud[0], 0x11, ud[1].qpn, RP_LID1, &g, 0, 100);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x100);
	CHECK(cqe.flags & SFAB_CQE_GRH);
	CHECK_EQ(RP[1].h->e->stats.rx_bad_grh, 1);
	rp_down();
}

TEST(ud_grh_segment_checked)
{
	struct rp_cfg cfg = { 0 };
	struct qh_qp ud[2];
	struct sfab_wqe_grh g;
	struct sfab_cqe cqe;
	uint8_t gid1[16];

	pair_up(&cfg);
	grh_ud_new(0, &ud[0]);
	grh_ud_new(1, &ud[1]);
	grh_gid(1, gid1);
	grh_ud_recv(1, &ud[1], 0x100, 4096, 2048);
	/* only GID index 0 exists */
	g = grh_av(gid1, 0, 0, 64);
	g.sgid_index = 1;
	grh_ud_send(0, &ud[0], 0x10, ud[1].qpn, RP_LID1, &g, 0, 100);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_QP_OP_ERR);
	CHECK(!rp_poll(1, &cqe));
	CHECK_EQ(RP[0].h->e->qp[ud[0].qpn].state, SFAB_QPS_ERR);
	rp_down();
}

TEST(gsi_gmp_with_grh_and_smi_without)
{
	struct rp_cfg cfg = { .mtu = 1 };
	struct qh_qp gsi[2], smi;
	struct sfab_wqe_grh g;
	struct sfab_cqe cqe;
	uint8_t gid1[16];
	uint8_t *mad;
	uint64_t bad;

	pair_up(&cfg);
	grh_gid(1, gid1);
	REQUIRE(qh_qp_new(RP[0].h, &gsi[0], SFAB_QPT_GSI, 4, RP[0].cq.cqn,
			  RP[0].cq.cqn) == 0);
	REQUIRE(qh_qp_rts(RP[0].h, &gsi[0], SFAB_QP1_QKEY) == 0);
	REQUIRE(qh_qp_new(RP[1].h, &gsi[1], SFAB_QPT_GSI, 4, RP[1].cq.cqn,
			  RP[1].cq.cqn) == 0);
	REQUIRE(qh_qp_rts(RP[1].h, &gsi[1], SFAB_QP1_QKEY) == 0);
	REQUIRE(gsi[1].qpn == SFAB_QP1);
	/* a GMP (an SA class Get), not for the device's PMA */
	mad = rp_mem(0, 0);
	memset(mad, 0, SFAB_WIRE_MAD_LEN);
	mad[0] = SFAB_MAD_BASE_VERSION;
	mad[1] = 0x03;
	mad[2] = 2;
	mad[3] = SFAB_MAD_METHOD_GET;
	grh_ud_recv(1, &gsi[1], 0x100, 4096, 512);
	g = grh_av(gid1, 0, 0, 1);
	grh_ud_send_k(0, &gsi[0], 0x10, SFAB_QP1, SFAB_QP1_QKEY, RP_LID1, &g, 0,
		      SFAB_WIRE_MAD_LEN);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(cqe.flags & SFAB_CQE_GRH);
	CHECK_EQ(cqe_qpn(&cqe), SFAB_QP1);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), SFAB_UD_GRH_LEN + SFAB_WIRE_MAD_LEN);
	CHECK(!memcmp(rp_mem(1, 4096 + 24), gid1, 16));
	CHECK(rp_same(0, 0, 1, 4096 + 40, SFAB_WIRE_MAD_LEN));

	/* an SMI QP cannot send one; an SMP with a GRH is dropped */
	REQUIRE(qh_qp_new(RP[0].h, &smi, SFAB_QPT_SMI, 4, RP[0].cq.cqn,
			  RP[0].cq.cqn) == 0);
	REQUIRE(qh_qp_rts(RP[0].h, &smi, 0) == 0);
	mad[1] = SFAB_MGMT_CLASS_SUBN_LID;
	grh_ud_send_k(0, &smi, 0x11, SFAB_QP0, 0, RP_LID1, &g, 0,
		      SFAB_WIRE_MAD_LEN);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_QP_OP_ERR);
	{
		struct sfab_pkt_ud u = { .vl = SFAB_VL15, .dlid = RP_LID1,
					 .slid = RP_LID0, .pkey = 0xffff,
					 .dqpn = SFAB_QP0 };
		struct sfab_pkt_ud_ext x;
		uint8_t f[SFAB_WIRE_MAX_PKT_LEN];
		size_t n;

		memset(&x, 0, sizeof(x));
		x.has_grh = true;
		memcpy(x.grh.dgid, gid1, 16);
		n = sfab_link_pkt_build_ud_ext(f, &u, &x, mad, SFAB_WIRE_MAD_LEN);
		REQUIRE(n);
		bad = RP[1].h->e->stats.bad_mads;
		sfab_engine_cable_rx(RP[1].h->e, f, n);
		host_run(RP[1].h);
		CHECK_EQ(RP[1].h->e->stats.bad_mads, bad + 1);
		CHECK_EQ(RP[1].h->e->stats.sma_mads, 0);
	}
	rp_down();
}

TEST(rc_with_grh)
{
	struct rp_cfg cfg = { .mtu = 1 };
	const uint32_t len = 3000;
	struct sfab_qp_attr a;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint8_t gid0[16], gid1[16];

	pair_up(&cfg);
	grh_connect(&cfg);
	grh_gid(0, gid0);
	grh_gid(1, gid1);

	/* QUERY_QP returns the path's GRH */
	REQUIRE(qh_query_qp(RP[0].h, RP[0].qp.qpn, &a) == 0);
	CHECK(sfab_le32_to_cpu(a.attr.attr_mask) & SFAB_QP_ATTR_GRH);
	CHECK(!memcmp(a.grh.dgid, gid1, 16));
	CHECK_EQ(sfab_le32_to_cpu(a.grh.flow_label), 0x54321);
	CHECK_EQ(a.grh.traffic_class, 0x20);
	CHECK_EQ(a.grh.hop_limit, 63);
	CHECK_EQ(a.grh.sgid_index, 0);

	watch_reset();
	rp_fill(0, 0, len, 3);
	rp_recv(1, 0x100, 0, len);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, len);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), len);
	/* RC receives only validate the GRH */
	CHECK(!(cqe.flags & SFAB_CQE_GRH));
	CHECK(rp_same(0, 0, 1, 0, len));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	/* 12 packets of 256 bytes one way, ACKs the other: all global */
	CHECK_EQ(seen_global[1], 12);
	CHECK_EQ(seen_local[1], 0);
	CHECK(seen_global[0] >= 1);
	CHECK_EQ(seen_local[0], 0);
	/* an ACK from node 1: its GRH names node 1's path */
	{
		uint8_t want[40];

		grh_expect(want, 0x21, 0x54322,
			   seen_len[0] - SFAB_WIRE_VCRC_LEN - SFAB_WIRE_LRH_LEN -
			   SFAB_WIRE_GRH_LEN, 63, gid1, gid0);
		CHECK(!memcmp(seen[0] + SFAB_WIRE_LRH_LEN, want, 40));
		CHECK(sfab_wire_icrc_ok(seen[0], seen_len[0]));
	}

	/* WRITE and READ over the global path */
	rp_fill(0, 8192, len, 11);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x11, 0, 8192, len);
	s.raddr = RP[1].mem + 16384;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_fill(1, 32768, len, 21);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x12, 0, 32768, len);
	s.raddr = RP[1].mem + 32768;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x12);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 8192, 1, 16384, len));
	CHECK(rp_same(1, 32768, 0, 32768, len));
	CHECK_EQ(seen_local[0] + seen_local[1], 0);
	CHECK_EQ(RP[0].h->e->stats.rx_bad_grh + RP[1].h->e->stats.rx_bad_grh, 0);
	CHECK_EQ(RP[0].h->e->stats.rc_retransmits, 0);
	rp_down();
}

TEST(uc_with_grh)
{
	struct rp_cfg cfg = { .type = SFAB_QPT_UC, .mtu = 2 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	pair_up(&cfg);
	grh_connect(&cfg);
	watch_reset();
	rp_fill(0, 0, 1500, 5);
	rp_recv(1, 0x100, 0, 2048);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 1500);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 1500);
	CHECK(rp_same(0, 0, 1, 0, 1500));
	CHECK_EQ(seen_global[1], 3);
	CHECK_EQ(seen_local[1], 0);
	rp_down();
}

TEST(rc_grh_to_another_gid_is_dropped)
{
	struct rp_cfg cfg = { 0 };
	struct sfab_wqe_grh g;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	uint8_t gid0[16], gid1[16];

	pair_up(&cfg);
	grh_gid(0, gid0);
	grh_gid(1, gid1);
	/* node 0's path names its own GID as the destination */
	g = grh_av(gid0, 0, 0, 64);
	REQUIRE(grh_connect_one(0, &cfg, &g) == 0);
	g = grh_av(gid0, 0, 0, 64);
	REQUIRE(grh_connect_one(1, &cfg, &g) == 0);
	rp_fill(0, 0, 100, 5);
	rp_recv(1, 0x100, 0, 100);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	CHECK(!rp_poll(1, &cqe));
	CHECK(!rp_poll(0, &cqe));	/* no ACK: the requester waits */
	CHECK_EQ(RP[1].h->e->stats.rx_bad_grh, 1);
	CHECK_EQ(RP[1].h->e->stats.rc_pkts_rx, 0);
	rp_down();
}

static uint8_t modify_grh(unsigned int i, uint32_t mask,
			  const struct sfab_wqe_grh *g, uint64_t addr)
{
	struct fake_host *h = RP[i].h;
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_aq_modify_qp *m = &c.u.modify_qp;

	m->qpn = sfab_cpu_to_le32(RP[i].qp.qpn);
	m->attr_mask = sfab_cpu_to_le32(mask);
	m->state = SFAB_QPS_RTR;
	m->dlid = sfab_cpu_to_le16(RP_LID1);
	m->path_mtu = 1;
	m->dest_qpn = sfab_cpu_to_le32(RP[!i].qp.qpn);
	m->max_dest_rd_atomic = 4;
	if (g)
		memcpy(hp(h, h->scratch + 1024), g, sizeof(*g));
	c.u.modify_qp_grh.grh_addr = sfab_cpu_to_le64(addr ? addr :
						      h->scratch + 1024);
	if (!(mask & SFAB_QP_ATTR_GRH) && !g)
		c.u.modify_qp_grh.grh_addr = 0;
	return host_cmd(h, &c);
}

TEST(modify_qp_grh_checked)
{
	struct rp_cfg cfg = { 0 };
	const uint32_t rtr = SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_AV |
			     SFAB_QP_ATTR_PATH_MTU | SFAB_QP_ATTR_DEST_QPN |
			     SFAB_QP_ATTR_RQ_PSN | SFAB_QP_ATTR_RD_ATOMIC |
			     SFAB_QP_ATTR_MIN_RNR_TIMER;
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct sfab_qp_attr a;
	struct sfab_wqe_grh g;
	uint8_t gid1[16];

	pair_up(&cfg);
	grh_gid(1, gid1);
	c.u.modify_qp.qpn = sfab_cpu_to_le32(RP[0].qp.qpn);
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE |
						   SFAB_QP_ATTR_PKEY_INDEX |
						   SFAB_QP_ATTR_PORT |
						   SFAB_QP_ATTR_ACCESS);
	c.u.modify_qp.state = SFAB_QPS_INIT;
	c.u.modify_qp.port_num = 1;
	REQUIRE(host_cmd(RP[0].h, &c) == 0);

	g = grh_av(gid1, 1, 2, 3);
	/* GRH without the address vector */
	CHECK_EQ(modify_grh(0, (rtr & ~SFAB_QP_ATTR_AV) | SFAB_QP_ATTR_GRH, &g, 0),
		 SFAB_AQ_STS_BAD_PARAM);
	/* a GID index that does not exist */
	g.sgid_index = 1;
	CHECK_EQ(modify_grh(0, rtr | SFAB_QP_ATTR_GRH, &g, 0), SFAB_AQ_STS_BAD_PARAM);
	/* a flow label wider than 20 bits, reserved bytes */
	g = grh_av(gid1, 1, 0x100000, 3);
	CHECK_EQ(modify_grh(0, rtr | SFAB_QP_ATTR_GRH, &g, 0), SFAB_AQ_STS_BAD_PARAM);
	g = grh_av(gid1, 1, 2, 3);
	g.reserved0 = 1;
	CHECK_EQ(modify_grh(0, rtr | SFAB_QP_ATTR_GRH, &g, 0), SFAB_AQ_STS_BAD_PARAM);
	/* a block the device cannot read */
	g = grh_av(gid1, 1, 2, 3);
	CHECK_EQ(modify_grh(0, rtr | SFAB_QP_ATTR_GRH, &g, 0x1000),
		 SFAB_AQ_STS_DMA_ERROR);
	/* the address without the bit: the tail must be zero */
	CHECK_EQ(modify_grh(0, rtr, &g, 0), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(RP[0].h->e->qp[RP[0].qp.qpn].state, SFAB_QPS_INIT);
	/* and a good one */
	CHECK_EQ(modify_grh(0, rtr | SFAB_QP_ATTR_GRH, &g, 0), SFAB_AQ_STS_OK);
	REQUIRE(qh_query_qp(RP[0].h, RP[0].qp.qpn, &a) == 0);
	CHECK(sfab_le32_to_cpu(a.attr.attr_mask) & SFAB_QP_ATTR_GRH);
	CHECK(!memcmp(a.grh.dgid, gid1, 16));
	CHECK_EQ(a.grh.traffic_class, 1);
	CHECK_EQ(sfab_le32_to_cpu(a.grh.flow_label), 2);
	CHECK_EQ(a.grh.hop_limit, 3);
	/* Reset, and a path without GRH: none reported */
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	c.u.modify_qp.qpn = sfab_cpu_to_le32(RP[0].qp.qpn);
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE);
	c.u.modify_qp.state = SFAB_QPS_RESET;
	REQUIRE(host_cmd(RP[0].h, &c) == 0);
	REQUIRE(grh_connect_one(0, &cfg, NULL) == 0);
	REQUIRE(qh_query_qp(RP[0].h, RP[0].qp.qpn, &a) == 0);
	CHECK(!(sfab_le32_to_cpu(a.attr.attr_mask) & SFAB_QP_ATTR_GRH));
	CHECK(all_zero_bytes(&a.grh, sizeof(a.grh)));
	rp_down();
}

TEST(grh_packets_parse_and_reject)
{
	struct sfab_pkt_ud u = { .dlid = 5, .slid = 6, .pkey = 0xffff,
				 .dqpn = 9, .sqpn = 10, .qkey = 11 };
	struct sfab_pkt_ud_ext x, y;
	struct sfab_pkt_ud v;
	struct sfab_pkt_rc p, q;
	uint8_t f[SFAB_WIRE_MAX_PKT_LEN], pl[64];
	size_t n;
	unsigned int k;

	for (k = 0; k < sizeof(pl); k++)
		pl[k] = k;
	memset(&x, 0, sizeof(x));
	x.has_grh = true;
	x.grh.tclass = 3;
	x.grh.flow_label = 0xfffff;
	x.grh.hop_limit = 255;
	memset(x.grh.sgid, 1, 16);
	memset(x.grh.dgid, 2, 16);
	n = sfab_link_pkt_build_ud_ext(f, &u, &x, pl, 61);
	REQUIRE(n == SFAB_PKT_UD_HDR_LEN + SFAB_WIRE_GRH_LEN + 64 +
		     SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN);
	REQUIRE(sfab_link_pkt_parse_ud_ext(f, n, &v, &y));
	CHECK(y.has_grh);
	CHECK_EQ(y.grh.tclass, 3);
	CHECK_EQ(y.grh.flow_label, 0xfffff);
	CHECK_EQ(y.grh.hop_limit, 255);
	CHECK(!memcmp(y.grh.dgid, x.grh.dgid, 16));
	CHECK(y.grh.raw == f + SFAB_WIRE_LRH_LEN);
	CHECK_EQ(v.len, 61);
	CHECK(!memcmp(v.payload, pl, 61));
	CHECK_EQ(v.dqpn, 9);
	CHECK_EQ(v.sqpn, 10);
	/* the MAD parser wants no GRH */
	CHECK(!sfab_link_pkt_parse_ud(f, n, &v));
	/* a GRH that is not IPv6-like, announces another header or a wrong length */
	f[SFAB_WIRE_LRH_LEN] = 0x40;
	CHECK(!sfab_link_pkt_parse_ud_ext(f, n, &v, &y));
	f[SFAB_WIRE_LRH_LEN] = 0x60;
	CHECK(sfab_link_pkt_parse_ud_ext(f, n, &v, &y));
	f[SFAB_WIRE_LRH_LEN + 6] = 0x11;
	CHECK(!sfab_link_pkt_parse_ud_ext(f, n, &v, &y));
	f[SFAB_WIRE_LRH_LEN + 6] = SFAB_GRH_NEXT_HDR_BTH;
	f[SFAB_WIRE_LRH_LEN + 5]++;
	CHECK(!sfab_link_pkt_parse_ud_ext(f, n, &v, &y));
	f[SFAB_WIRE_LRH_LEN + 5]--;
	/* too short for the GRH it announces */
	CHECK(!sfab_link_pkt_parse_ud_ext(f, SFAB_WIRE_LRH_LEN + 30, &v, &y));

	/* RC: the same GRH, every extension header after it */
	memset(&p, 0, sizeof(p));
	p.opcode = SFAB_OP_WRITE_ONLY_IMM;
	p.dlid = 1;
	p.slid = 2;
	p.va = 0x1122334455667788ULL;
	p.rkey = 0x99;
	p.dma_len = 40;
	p.imm = 0xabcdef01;
	p.psn = 77;
	p.has_grh = true;
	p.grh = x.grh;
	n = sfab_link_pkt_build_rc(f, &p, pl, 40);
	REQUIRE(n);
	CHECK_EQ(f[1] & SFAB_LRH_LNH_MASK, SFAB_LNH_IBA_GLOBAL);
	CHECK(sfab_wire_icrc_ok(f, n));
	REQUIRE(sfab_link_pkt_parse_rc(f, n, &q));
	CHECK(q.has_grh);
	CHECK_EQ(q.va, p.va);
	CHECK_EQ(q.rkey, 0x99);
	CHECK_EQ(q.imm, 0xabcdef01);
	CHECK_EQ(q.psn, 77);
	CHECK_EQ(q.len, 40);
	CHECK(!memcmp(q.payload, pl, 40));
	CHECK(!memcmp(q.grh.sgid, x.grh.sgid, 16));
	/* the variant fields are outside the ICRC; the GIDs are not */
	f[SFAB_WIRE_LRH_LEN + 7] = 1;
	CHECK(sfab_wire_icrc_ok(f, n));
	f[SFAB_WIRE_LRH_LEN + 30] ^= 1;
	CHECK(!sfab_wire_icrc_ok(f, n));
}

/* a small xorshift: the same run every time */
static uint64_t fz_state = 0x9e3779b97f4a7c15ULL;

static uint64_t fz(void)
{
	fz_state ^= fz_state << 13;
	fz_state ^= fz_state >> 7;
	fz_state ^= fz_state << 17;
	return fz_state;
}

TEST(garbled_grh_packets_are_harmless)
{
	struct rp_cfg cfg = { .mtu = 1 };
	struct qh_qp ud[2];
	struct sfab_cqe cqe;
	uint8_t gid1[16];
	unsigned int k, delivered = 0;

	pair_up(&cfg);
	grh_connect(&cfg);
	grh_ud_new(0, &ud[0]);
	grh_ud_new(1, &ud[1]);
	grh_gid(1, gid1);
	for (k = 0; k < 20000; k++) {
		uint8_t f[SFAB_WIRE_MAX_PKT_LEN], pl[600];
		size_t n, len = fz() % sizeof(pl), i;

		for (i = 0; i < len; i++)
			pl[i] = (uint8_t)fz();
		if (k % 2) {
			struct sfab_pkt_ud u = { .dlid = RP_LID1, .slid = RP_LID0,
						 .pkey = 0xffff, .qkey = GRH_QKEY,
						 .dqpn = ud[1].qpn, .sqpn = ud[0].qpn };
			struct sfab_pkt_ud_ext x;

			memset(&x, 0, sizeof(x));
			x.has_grh = true;
			memcpy(x.grh.dgid, gid1, 16);
			x.has_imm = fz() & 1;
			n = sfab_link_pkt_build_ud_ext(f, &u, &x, pl, len);
		} else {
			struct sfab_pkt_rc p;

			memset(&p, 0, sizeof(p));
			p.opcode = fz() % 0x18;
			p.dlid = RP_LID1;
			p.slid = RP_LID0;
			p.pkey = 0xffff;
			p.dqpn = RP[1].qp.qpn;
			p.psn = fz() & 0xffffff;
			p.va = RP[1].mem + fz() % 4096;
			p.rkey = RP[1].key;
			p.dma_len = fz() % 1024;
			p.has_grh = true;
			memcpy(p.grh.dgid, gid1, 16);
			n = sfab_link_pkt_build_rc(f, &p, pl, len > 256 ? 256 : len);
			if (!n)
				continue;
		}
		REQUIRE(n);
		/* garble a few bytes of the GRH and the headers, or cut it */
		for (i = fz() % 4; i; i--)
			f[fz() % (SFAB_WIRE_LRH_LEN + SFAB_WIRE_GRH_LEN + 24)] ^=
				(uint8_t)(1U << (fz() % 8));
		if (fz() % 8 == 0)
			n = SFAB_WIRE_LRH_LEN + fz() % (n - SFAB_WIRE_LRH_LEN);
		if (n > SFAB_WIRE_LRH_LEN + SFAB_WIRE_VCRC_LEN) {
			uint16_t words = (n - SFAB_WIRE_VCRC_LEN) / 4;

			n = words * 4 + SFAB_WIRE_VCRC_LEN;
			f[4] = (f[4] & 0xf8) | (words >> 8);
			f[5] = words & 0xff;
			sfab_wire_seal(f, n);
		}
		f[0] &= 0x0f;	/* VL 0: a data VL */
		sfab_wire_reseal_vcrc(f, n);
		if (fz() % 2)
			grh_ud_recv(1, &ud[1], k, 8192, 2048);
		sfab_engine_cable_rx(RP[1].h->e, f, n);
		host_run(RP[1].h);
		rp_pump();
		while (rp_poll(1, &cqe))
			delivered++;
		while (rp_poll(0, &cqe))
			;
	}
	/* well-formed ones got through, the rest were counted and dropped */
	CHECK(delivered > 0);
	CHECK(RP[1].h->e->stats.rx_bad_grh > 0);
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "garbled: %u delivered, %llu bad GRH, %llu RC packets, %llu dropped\n",
			delivered,
			(unsigned long long)RP[1].h->e->stats.rx_bad_grh,
			(unsigned long long)RP[1].h->e->stats.rc_pkts_rx,
			(unsigned long long)RP[1].h->e->stats.rx_dropped);
	rp_down();
}
