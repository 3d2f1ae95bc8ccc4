/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/mcast: multicast in the HCA engine (SFAB_DEV_CAP_MCAST,
 * include/sfab/sfab_queue.h).  ATTACH_MCAST/DETACH_MCAST refuse what the
 * contract says they refuse (not UD, not a multicast GID or LID, reserved
 * bytes, a detach of a QP not attached, a full group or table); a packet
 * to a group reaches every QP attached to it on the receiving node (each
 * with its own receive, its own QPN in the CQE, its Q_Key checked), and
 * on the sending node the members there too; a packet whose MGID, MLID or
 * destination QP does not name a group reaches nobody and is counted;
 * detaching, and destroying a QP, stop the delivery.  Through a switch
 * (qemu-model/switch) whose MFT has both HCA ports, the group's members on
 * both nodes take one copy each: the switch sends none back to the sender.
 */
#include "harness.h"
#define RC_SWITCH_NO_CONNECT
#include "rc_switch.h"
#include "grh_host.h"

#define MLID		0xc001
#define MLID2		0xc002

static const uint8_t MGID[16] = {
	0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff
};

static int destroy_qp(unsigned int i, uint32_t qpn)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_QP);

	c.u.destroy_qp.qpn = sfab_cpu_to_le32(qpn);
	return host_cmd(RP[i].h, &c);
}

static int mcast_cmd(unsigned int i, uint8_t op, uint32_t qpn,
		     const uint8_t mgid[16], uint16_t mlid)
{
	struct sfab_aq_cmd c = cmd_new(op);

	c.u.mcast.qpn = sfab_cpu_to_le32(qpn);
	c.u.mcast.mlid = sfab_cpu_to_be16(mlid);
	memcpy(c.u.mcast.mgid, mgid, 16);
	return host_cmd(RP[i].h, &c);
}

static int attach(unsigned int i, uint32_t qpn, const uint8_t mgid[16],
		  uint16_t mlid)
{
	return mcast_cmd(i, SFAB_AQ_ATTACH_MCAST, qpn, mgid, mlid);
}

static int detach(unsigned int i, uint32_t qpn, const uint8_t mgid[16],
		  uint16_t mlid)
{
	return mcast_cmd(i, SFAB_AQ_DETACH_MCAST, qpn, mgid, mlid);
}

static void pair_up(void)
{
	struct rp_cfg cfg = { .mtu = 3 };

	memset(RPW, 0, sizeof(RPW));
	rp_drop = NULL;
	rp_node_up(0, RP_LID0, &cfg);
	rp_node_up(1, RP_LID1, &cfg);
	grh_guids();
	rp_link_up();
}

/* every CQE of node @i's CQ, the receives' QPNs counted in @got[] */
static unsigned int poll_all(unsigned int i, const struct qh_qp *qps,
			     unsigned int nqp, unsigned int got[],
			     uint32_t want_len)
{
	struct sfab_cqe cqe;
	unsigned int k, n = 0;

	memset(got, 0, nqp * sizeof(got[0]));
	while (rp_poll(i, &cqe)) {
		n++;
		CHECK_EQ(cqe.status, 0);
		if (cqe_op(&cqe) != SFAB_CQE_RECV)
			continue;
		CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), SFAB_UD_GRH_LEN + want_len);
		CHECK_EQ(cqe.dlid_path_bits, 0);
		for (k = 0; k < nqp; k++)
			if (cqe_qpn(&cqe) == qps[k].qpn)
				got[k]++;
	}
	return n;
}

TEST(attach_rules)
{
	struct sfab_aq_cmd c;
	struct qh_qp ud[SFAB_ENGINE_MCG_QPS + 1];
	uint8_t gid[16], ucast[16];
	unsigned int k;

	pair_up();
	for (k = 0; k < SFAB_ENGINE_MCG_QPS + 1; k++)
		grh_ud_new(0, &ud[k]);
	grh_gid(0, ucast);

	/* the capability and its limits */
	{
		struct sfab_dev_attr a;

		REQUIRE(host_query_device(RP[0].h, &a) == 0);
		CHECK(sfab_le32_to_cpu(a.dev_caps) & SFAB_DEV_CAP_MCAST);
		CHECK_EQ(sfab_le32_to_cpu(a.max_mcast_grp), SFAB_ENGINE_MAX_MCG);
		CHECK_EQ(sfab_le32_to_cpu(a.max_mcast_qp_attach),
			 SFAB_ENGINE_MCG_QPS);
	}

	/* not UD: the RC QP, QP1, no QP */
	CHECK_EQ(attach(0, RP[0].qp.qpn, MGID, MLID), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(attach(0, SFAB_QP1, MGID, MLID), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(attach(0, 999999, MGID, MLID), SFAB_AQ_STS_BAD_PARAM);
	/* not multicast: a unicast GID, unicast and permissive LIDs */
	CHECK_EQ(attach(0, ud[0].qpn, ucast, MLID), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(attach(0, ud[0].qpn, MGID, 0xbfff), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(attach(0, ud[0].qpn, MGID, SFAB_LID_PERMISSIVE),
		 SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(attach(0, ud[0].qpn, MGID, 0), SFAB_AQ_STS_BAD_PARAM);
	/* reserved bytes, inside the block and after it */
	c = cmd_new(SFAB_AQ_ATTACH_MCAST);
	c.u.mcast.qpn = sfab_cpu_to_le32(ud[0].qpn);
	c.u.mcast.mlid = sfab_cpu_to_be16(MLID);
	memcpy(c.u.mcast.mgid, MGID, 16);
	c.u.mcast.reserved = sfab_cpu_to_le16(1);
	CHECK_EQ(host_cmd(RP[0].h, &c), SFAB_AQ_STS_BAD_PARAM);
	c.u.mcast.reserved = 0;
	((uint8_t *)&c)[8 + sizeof(c.u.mcast)] = 1;
	CHECK_EQ(host_cmd(RP[0].h, &c), SFAB_AQ_STS_BAD_PARAM);
	/* a detach of a QP that is not attached */
	CHECK_EQ(detach(0, ud[0].qpn, MGID, MLID), SFAB_AQ_STS_BAD_PARAM);

	/* twice is once; the limits of a group */
	CHECK_EQ(attach(0, ud[0].qpn, MGID, MLID), 0);
	CHECK_EQ(attach(0, ud[0].qpn, MGID, MLID), 0);
	for (k = 1; k < SFAB_ENGINE_MCG_QPS; k++)
		CHECK_EQ(attach(0, ud[k].qpn, MGID, MLID), 0);
	CHECK_EQ(attach(0, ud[SFAB_ENGINE_MCG_QPS].qpn, MGID, MLID),
		 SFAB_AQ_STS_NO_RESOURCES);
	/* the same MGID with another MLID is another group */
	CHECK_EQ(attach(0, ud[SFAB_ENGINE_MCG_QPS].qpn, MGID, MLID2), 0);
	CHECK_EQ(detach(0, ud[0].qpn, MGID, MLID2), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(detach(0, ud[0].qpn, MGID, MLID), 0);
	CHECK_EQ(detach(0, ud[0].qpn, MGID, MLID), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(attach(0, ud[SFAB_ENGINE_MCG_QPS].qpn, MGID, MLID), 0);

	/* the table: two groups exist, fill it, then one more is refused */
	memcpy(gid, MGID, 16);
	for (k = 2; k < SFAB_ENGINE_MAX_MCG; k++) {
		gid[15] = (uint8_t)k;
		CHECK_EQ(attach(0, ud[0].qpn, gid, MLID), 0);
	}
	gid[15] = 0xaa;
	CHECK_EQ(attach(0, ud[0].qpn, gid, MLID), SFAB_AQ_STS_NO_RESOURCES);
	/* destroying a QP detaches it: its groups (only it in them) go */
	REQUIRE(destroy_qp(0, ud[0].qpn) == 0);
	CHECK_EQ(attach(0, ud[1].qpn, gid, MLID), 0);
	CHECK_EQ(detach(0, ud[1].qpn, gid, MLID), 0);
	gid[15] = 2;
	CHECK_EQ(detach(0, ud[1].qpn, gid, MLID), SFAB_AQ_STS_BAD_PARAM);
	rp_down();
}

TEST(delivery_to_every_member)
{
	struct qh_qp tx[2], rx[3];	/* node 0: tx[0] sends, tx[1] a member */
	struct sfab_wqe_grh g = grh_av(MGID, 0, 0, 1);
	unsigned int got[3], k;
	uint64_t dropped;
	const uint32_t len = 1000;

	pair_up();
	grh_ud_new(0, &tx[0]);
	grh_ud_new(0, &tx[1]);
	for (k = 0; k < 3; k++)
		grh_ud_new(1, &rx[k]);
	/* rx[0] and rx[1] are members, rx[2] is not */
	CHECK_EQ(attach(1, rx[0].qpn, MGID, MLID), 0);
	CHECK_EQ(attach(1, rx[1].qpn, MGID, MLID), 0);
	CHECK_EQ(attach(0, tx[1].qpn, MGID, MLID), 0);
	rp_fill(0, 0, len, 3);
	for (k = 0; k < 3; k++) {
		memset(rp_mem(1, 8192 * (k + 1)), 0xee, 8192);
		grh_ud_recv(1, &rx[k], 0x100 + k, 8192 * (k + 1), 4096);
	}
	grh_ud_recv(0, &tx[1], 0x200, 65536, 4096);

	grh_ud_send(0, &tx[0], 0x10, SFAB_MCAST_QPN, MLID, &g, 0, len);
	rp_pump();
	/* node 1: one copy in each member, with its own QPN; none in rx[2] */
	CHECK_EQ(poll_all(1, rx, 3, got, len), 2);
	CHECK_EQ(got[0], 1);
	CHECK_EQ(got[1], 1);
	CHECK_EQ(got[2], 0);
	CHECK(rp_same(0, 0, 1, 8192 + 40, len));
	CHECK(rp_same(0, 0, 1, 2 * 8192 + 40, len));
	CHECK_EQ(rp_mem(1, 8192)[0] >> 4, 6);	/* the GRH: IPVer 6 */
	CHECK(!memcmp(rp_mem(1, 8192) + 24, MGID, 16));	/* its DGID */
	CHECK_EQ(*rp_mem(1, 3 * 8192), 0xee);
	CHECK_EQ(RP[1].h->e->stats.rx_mcast, 2);
	/* node 0: the send's CQE, and the member's local copy */
	CHECK_EQ(poll_all(0, tx, 2, got, len), 2);
	CHECK_EQ(got[1], 1);
	CHECK(rp_same(0, 0, 0, 65536 + 40, len));
	CHECK_EQ(RP[0].h->e->stats.rx_mcast, 1);

	/* without a GRH the MLID alone names the group */
	for (k = 0; k < 2; k++)
		grh_ud_recv(1, &rx[k], 0x110 + k, 8192 * (k + 1), 4096);
	grh_ud_send(0, &tx[0], 0x11, SFAB_MCAST_QPN, MLID, NULL, 0, len);
	rp_pump();
	CHECK_EQ(poll_all(1, rx, 3, got, len), 2);
	CHECK_EQ(got[0] + got[1], 2);
	CHECK_EQ(poll_all(0, tx, 2, got, len), 1);	/* the send only: no receive posted */

	/* reaching nobody: another MGID, another MLID, a unicast DQPN */
	dropped = RP[1].h->e->stats.rx_mcast_dropped;
	{
		uint8_t other[16];
		struct sfab_wqe_grh g2;

		memcpy(other, MGID, 16);
		other[15] = 0x01;
		g2 = grh_av(other, 0, 0, 1);
		grh_ud_send(0, &tx[0], 0x12, SFAB_MCAST_QPN, MLID, &g2, 0, len);
	}
	grh_ud_send(0, &tx[0], 0x13, SFAB_MCAST_QPN, MLID2, &g, 0, len);
	grh_ud_send(0, &tx[0], 0x14, rx[0].qpn, MLID, &g, 0, len);
	rp_pump();
	CHECK_EQ(poll_all(1, rx, 3, got, len), 0);
	CHECK_EQ(RP[1].h->e->stats.rx_mcast_dropped, dropped + 3);
	CHECK_EQ(poll_all(0, tx, 2, got, len), 3);

	/* a member with another Q_Key does not take it */
	for (k = 0; k < 2; k++)
		grh_ud_recv(1, &rx[k], 0x120 + k, 8192 * (k + 1), 4096);
	grh_ud_send_k(0, &tx[0], 0x15, SFAB_MCAST_QPN, GRH_QKEY + 1, MLID, &g,
		      0, len);
	rp_pump();
	CHECK_EQ(poll_all(1, rx, 3, got, len), 0);
	CHECK_EQ(poll_all(0, tx, 2, got, len), 1);

	/* detached: no more copies for rx[0]; destroyed: none for rx[1] */
	CHECK_EQ(detach(1, rx[0].qpn, MGID, MLID), 0);
	grh_ud_send(0, &tx[0], 0x16, SFAB_MCAST_QPN, MLID, &g, 0, len);
	rp_pump();
	CHECK_EQ(poll_all(1, rx, 3, got, len), 1);
	CHECK_EQ(got[0], 0);
	CHECK_EQ(got[1], 1);
	CHECK_EQ(poll_all(0, tx, 2, got, len), 1);
	REQUIRE(destroy_qp(1, rx[1].qpn) == 0);
	dropped = RP[1].h->e->stats.rx_mcast_dropped;
	grh_ud_send(0, &tx[0], 0x17, SFAB_MCAST_QPN, MLID, &g, 0, len);
	rp_pump();
	CHECK_EQ(poll_all(1, rx, 3, got, len), 0);
	CHECK_EQ(RP[1].h->e->stats.rx_mcast_dropped, dropped + 1);
	CHECK_EQ(poll_all(0, tx, 2, got, len), 1);
	rp_down();
}

TEST(through_a_switch)
{
	struct rp_cfg cfg = { .mtu = 3 };
	struct sfab_wqe_grh g = grh_av(MGID, 0, 0, 1);
	struct qh_qp q[2][2];	/* per node: [0] sends, [1] is a member */
	unsigned int got[2], i;
	const uint32_t len = 2000;

	fabric_up(&cfg);
	grh_guids();
	REQUIRE(sfab_sw_mft_set_port(TF.sw[0], MLID, 1, true) == 0);
	REQUIRE(sfab_sw_mft_set_port(TF.sw[0], MLID, 2, true) == 0);
	for (i = 0; i < 2; i++) {
		grh_ud_new(i, &q[i][0]);
		grh_ud_new(i, &q[i][1]);
		CHECK_EQ(attach(i, q[i][1].qpn, MGID, MLID), 0);
		/* two receives each: a second copy would find one */
		grh_ud_recv(i, &q[i][1], 0x100, 8192, 4096);
		grh_ud_recv(i, &q[i][1], 0x101, 16384, 4096);
	}
	rp_fill(0, 0, len, 9);
	grh_ud_send(0, &q[0][0], 0x10, SFAB_MCAST_QPN, MLID, &g, 0, len);
	pump();
	/* node 1 over the switch, node 0 from its own HCA: one copy each */
	CHECK_EQ(poll_all(1, q[1], 2, got, len), 1);
	CHECK_EQ(got[1], 1);
	CHECK(rp_same(0, 0, 1, 8192 + 40, len));
	CHECK_EQ(poll_all(0, q[0], 2, got, len), 2);
	CHECK_EQ(got[1], 1);
	CHECK_EQ(RP[0].h->e->stats.rx_mcast_dropped, 0);
	CHECK_EQ(RP[1].h->e->stats.rx_mcast, 1);
	fabric_down();
}
