/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-ops: the RC operations between two engines cabled back to back:
 * SEND (one packet and many: first/middle/last), SEND with immediate,
 * inline SEND, RDMA WRITE and WRITE with immediate (the receive CQE says
 * RECV_RDMA_IMM with the length), zero-length WRITE, COMM_EST on the first
 * packet in RTR, and the opcodes, PSNs and ACKs on the wire.  Also UC:
 * sends and writes complete once sent, a lost packet drops that message
 * only.
 */
#include "harness.h"
#include "rc_pair.h"

static uint8_t seen_ops[2][64];
static unsigned int nseen[2];
static uint32_t seen_psn[2][64];

static bool watch(unsigned int to, const uint8_t *f, size_t len)
{
	(void)len;
	if (nseen[to] < 64) {
		seen_psn[to][nseen[to]] = rp_psn(f);
		seen_ops[to][nseen[to]++] = rp_opcode(f);
	}
	return false;
}

TEST(send_one_and_many)
{
	struct rp_cfg cfg = { .psn0 = 100, .psn1 = 5000 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	struct sfab_aenq_entry ev;
	bool comm_est = false;

	rp_up(&cfg);
	memset(nseen, 0, sizeof(nseen));
	rp_drop = watch;
	rp_fill(0, 0, 1000, 1);
	rp_recv(1, 0x100, 65536, 2000);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 1000);	/* 4 packets of 256 */
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x100);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 1000);
	CHECK_EQ(cqe_qpn(&cqe), RP[1].qp.qpn);
	CHECK(rp_same(0, 0, 1, 65536, 1000));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_SEND);
	/* on the wire: FIRST, MIDDLE, MIDDLE, LAST with PSNs 100..103 */
	REQUIRE(nseen[1] == 4);
	CHECK_EQ(seen_ops[1][0], SFAB_OP_SEND_FIRST);
	CHECK_EQ(seen_ops[1][1], SFAB_OP_SEND_MIDDLE);
	CHECK_EQ(seen_ops[1][2], SFAB_OP_SEND_MIDDLE);
	CHECK_EQ(seen_ops[1][3], SFAB_OP_SEND_LAST);
	CHECK_EQ(seen_psn[1][0], 100);
	CHECK_EQ(seen_psn[1][3], 103);
	/* and one ACK back for PSN 103 */
	REQUIRE(nseen[0] >= 1);
	CHECK_EQ(seen_ops[0][nseen[0] - 1], SFAB_OP_ACK);
	CHECK_EQ(seen_psn[0][nseen[0] - 1], 103);
	/* the responder was in RTS already; a fresh RTR QP reports COMM_EST */
	while (host_aenq_poll(RP[1].h, &ev))
		if (ev.type == SFAB_AENQ_QP_EVENT && ev.data1 == SFAB_QP_EV_COMM_EST)
			comm_est = true;
	CHECK(!comm_est);

	/* a one-packet send with immediate: SEND_ONLY_IMM, solicited */
	nseen[1] = 0;
	rp_recv(1, 0x101, 65536, 2000);
	s = rp_wqe(SFAB_WQE_SEND_IMM, 0x11, 0, 0, 200);
	s.imm = 0xcafef00d;
	s.flags |= SFAB_WQE_SOLICITED;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x101);
	CHECK_EQ(cqe.flags & SFAB_CQE_IMM, SFAB_CQE_IMM);
	CHECK_EQ(sfab_be32_to_cpu(cqe.imm_data), 0xcafef00d);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 200);
	REQUIRE(nseen[1] == 1);
	CHECK_EQ(seen_ops[1][0], SFAB_OP_SEND_ONLY_IMM);
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x11);

	/* an unsignalled send: no CQE, but the next signalled one comes */
	rp_recv(1, 0x102, 65536, 2000);
	rp_recv(1, 0x103, 65536 + 4096, 2000);
	s = rp_wqe(SFAB_WQE_SEND, 0x12, 0, 0, 10);
	s.flags = 0;
	rp_post(0, &s);
	s = rp_wqe(SFAB_WQE_SEND, 0x13, 0, 0, 10);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x13);
	CHECK(!rp_poll(0, &cqe));
	REQUIRE(rp_poll(1, &cqe));
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x103);

	/* inline data */
	rp_recv(1, 0x104, 65536, 2000);
	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_SEND;
	s.wr_id = 0x14;
	s.flags = SFAB_WQE_SIGNALED | SFAB_WQE_INLINE;
	s.inl = "inline hello";
	s.inl_len = 12;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 12);
	CHECK(!memcmp(rp_mem(1, 65536), "inline hello", 12));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	rp_down();
}

TEST(comm_est_in_rtr)
{
	struct rp_cfg cfg = { 0 };
	struct qh_rc_send s;
	struct sfab_aenq_entry ev;
	struct sfab_cqe cqe;
	struct sfab_aq_cmd c;
	unsigned int n = 0;

	memset(RPW, 0, sizeof(RPW));
	rp_drop = NULL;
	rp_node_up(0, RP_LID0, &cfg);
	rp_node_up(1, RP_LID1, &cfg);
	rp_link_up();
	rp_connect(&cfg);
	/* node 1 back to RTR: Reset, Init, RTR */
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	c.u.modify_qp.qpn = sfab_cpu_to_le32(RP[1].qp.qpn);
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE);
	c.u.modify_qp.state = SFAB_QPS_RESET;
	REQUIRE(host_cmd(RP[1].h, &c) == 0);
	RP[1].qp.sq_pi = RP[1].qp.rq_pi = 0;
	c.u.modify_qp.state = SFAB_QPS_INIT;
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE |
		SFAB_QP_ATTR_PKEY_INDEX | SFAB_QP_ATTR_PORT | SFAB_QP_ATTR_ACCESS);
	c.u.modify_qp.port_num = 1;
	c.u.modify_qp.access_flags = sfab_cpu_to_le32(SFAB_ACCESS_REMOTE_WRITE);
	REQUIRE(host_cmd(RP[1].h, &c) == 0);
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	c.u.modify_qp.qpn = sfab_cpu_to_le32(RP[1].qp.qpn);
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE |
		SFAB_QP_ATTR_AV | SFAB_QP_ATTR_PATH_MTU | SFAB_QP_ATTR_DEST_QPN |
		SFAB_QP_ATTR_RQ_PSN | SFAB_QP_ATTR_RD_ATOMIC |
		SFAB_QP_ATTR_MIN_RNR_TIMER);
	c.u.modify_qp.state = SFAB_QPS_RTR;
	c.u.modify_qp.dlid = sfab_cpu_to_le16(RP_LID0);
	c.u.modify_qp.path_mtu = 1;
	c.u.modify_qp.dest_qpn = sfab_cpu_to_le32(RP[0].qp.qpn);
	c.u.modify_qp.max_dest_rd_atomic = 1;
	REQUIRE(host_cmd(RP[1].h, &c) == 0);
	while (host_aenq_poll(RP[1].h, &ev))
		;
	/* a WRITE from node 0 (PSN 0): node 1 in RTR takes and ACKs it */
	rp_fill(0, 0, 64, 9);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 1, 0, 0, 64);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RDMA_WRITE);
	CHECK(rp_same(0, 0, 1, 4096, 64));
	while (host_aenq_poll(RP[1].h, &ev))
		if (ev.type == SFAB_AENQ_QP_EVENT && ev.data0 == RP[1].qp.qpn &&
		    ev.data1 == SFAB_QP_EV_COMM_EST)
			n++;
	CHECK_EQ(n, 1);
	/* only once */
	rp_post(0, &s);
	rp_pump();
	n = 0;
	while (host_aenq_poll(RP[1].h, &ev))
		if (ev.type == SFAB_AENQ_QP_EVENT)
			n++;
	CHECK_EQ(n, 0);
	rp_down();
}

TEST(writes)
{
	struct rp_cfg cfg = { .mtu = 2 };	/* 512 bytes */
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	rp_fill(0, 0, 5000, 3);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x20, 0, 0, 5000);	/* 10 packets */
	s.raddr = RP[1].mem + 100000;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RDMA_WRITE);
	CHECK(rp_same(0, 0, 1, 100000, 5000));
	CHECK(!rp_poll(1, &cqe));	/* a plain WRITE takes no receive */

	/* WRITE with immediate: consumes a receive WQE, byte_len = length */
	rp_fill(0, 8192, 700, 4);
	rp_recv(1, 0x200, 0, 16);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE_IMM, 0x21, 0, 8192, 700);
	s.raddr = RP[1].mem + 200000;
	s.rkey = RP[1].key;
	s.imm = 0x01020304;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(cqe_op(&cqe), SFAB_CQE_RECV_RDMA_IMM);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 700);
	CHECK_EQ(sfab_be32_to_cpu(cqe.imm_data), 0x01020304);
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x200);
	CHECK(rp_same(0, 8192, 1, 200000, 700));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x21);

	/* zero length WRITE: no rkey check at all */
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x22, 0, 0, 0);
	s.nsge = 0;
	s.raddr = 0;
	s.rkey = 0xdead00;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);
	rp_down();
}

TEST(uc_send_write)
{
	struct rp_cfg cfg = { .type = SFAB_QPT_UC, .psn0 = 0xfffffe };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	rp_fill(0, 0, 3000, 5);
	rp_recv(1, 0x300, 65536, 4096);
	s = rp_wqe(SFAB_WQE_SEND, 0x30, 0, 0, 1000);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 1000);
	CHECK(rp_same(0, 0, 1, 65536, 1000));
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x31, 0, 0, 3000);
	s.raddr = RP[1].mem + 300000;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 0, 1, 300000, 3000));
	/* no ACKs on UC */
	CHECK_EQ(RP[1].h->e->stats.rc_acks_tx, 0);
	/* READ is not a UC operation */
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x32, 0, 0, 8);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, SFAB_CQE_STS_LOC_QP_OP_ERR);
	rp_down();
}

static unsigned int uc_drop_n;

static bool drop_second_data(unsigned int to, const uint8_t *f, size_t len)
{
	(void)len;
	return to == 1 && (rp_opcode(f) & 0xe0) == SFAB_BTH_OP_UC &&
	       ++uc_drop_n == 2;
}

TEST(uc_loss_drops_one_message)
{
	struct rp_cfg cfg = { .type = SFAB_QPT_UC };
	struct qh_rc_send s;
	struct sfab_cqe cqe;

	rp_up(&cfg);
	rp_fill(0, 0, 1000, 6);
	rp_recv(1, 0x400, 65536, 4096);
	uc_drop_n = 0;
	rp_drop = drop_second_data;
	s = rp_wqe(SFAB_WQE_SEND, 0x40, 0, 0, 1000);	/* its 2nd packet is lost */
	rp_post(0, &s);
	rp_pump();
	s = rp_wqe(SFAB_WQE_SEND, 0x41, 0, 0, 300);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x40);
	CHECK_EQ(cqe.status, 0);	/* UC: complete once sent */
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x41);
	/* the receive WQE went to the second message */
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x400);
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), 300);
	CHECK(!rp_poll(1, &cqe));
	CHECK_EQ(rp_state(1), SFAB_QPS_RTS);
	rp_down();
}

/* two RC QPs of one HCA connected through its own LID: loopback */
TEST(loopback_own_lid)
{
	struct fake_host *h = qh_up();
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp a, b;
	struct sfab_cqe cqe;
	struct qh_rc_send s;
	uint64_t mem;
	uint32_t key;
	unsigned int got = 0;

	h->e->port.lid = 0x33;
	REQUIRE(qh_eq_new(h, &eq, 6, 2) == 0);
	REQUIRE(qh_cq_new(h, &cq, 8, eq.eqn) == 0);
	mem = host_alloc(h, 65536, 4096);
	REQUIRE(qh_mr_contig(h, mem, 65536, RP_PD, RP_ALL_ACCESS, &key) == 0);
	REQUIRE(qh_qp_new_ex(h, &a, SFAB_QPT_RC, 5, 8, cq.cqn, cq.cqn, 0, RP_PD, 0) == 0);
	REQUIRE(qh_qp_new_ex(h, &b, SFAB_QPT_RC, 5, 8, cq.cqn, cq.cqn, 0, RP_PD, 0) == 0);
	REQUIRE(qh_qp_connect(h, &a, &(struct qh_conn){ .dest_qpn = b.qpn,
		.dlid = 0x33, .mtu = 3, .timeout = 14, .retry_cnt = 1,
		.access = RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE,
		.max_rd_atomic = 2, .max_dest_rd_atomic = 2 }) == 0);
	REQUIRE(qh_qp_connect(h, &b, &(struct qh_conn){ .dest_qpn = a.qpn,
		.dlid = 0x33, .mtu = 3, .timeout = 14, .retry_cnt = 1,
		.access = RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE,
		.max_rd_atomic = 2, .max_dest_rd_atomic = 2 }) == 0);
	memset(hp(h, mem), 0x5a, 5000);
	qh_post_recv(h, &b, 0x100, mem + 16384, 8192, key);
	qh_qp_db(h, &b, false);
	memset(&s, 0, sizeof(s));
	s.opcode = SFAB_WQE_SEND;
	s.wr_id = 0x10;
	s.flags = SFAB_WQE_SIGNALED;
	s.nsge = 1;
	s.sge[0].addr = mem;
	s.sge[0].len = 5000;
	s.sge[0].lkey = key;
	qh_post_rc(h, &a, &s);
	s.opcode = SFAB_WQE_RDMA_READ;
	s.wr_id = 0x11;
	s.sge[0].addr = mem + 32768;
	s.raddr = mem;
	s.rkey = key;
	qh_post_rc(h, &a, &s);
	qh_qp_db(h, &a, true);
	host_run(h);
	while (qh_cq_poll(h, &cq, &cqe)) {
		CHECK_EQ(cqe.status, 0);
		got++;
	}
	CHECK_EQ(got, 3);
	CHECK(!memcmp(hp(h, mem), hp(h, mem + 16384), 5000));
	CHECK(!memcmp(hp(h, mem), hp(h, mem + 32768), 5000));
	CHECK(h->e->stats.loopback >= 4);
	host_free(h);
}

/* 512 KiB WRITE, READ and SEND at 4 KiB MTU: 128 packets, twice the window */
TEST(big_messages)
{
	struct rp_cfg cfg = { .mtu = 5 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	const uint32_t len = 512 * 1024;

	rp_up(&cfg);
	rp_fill(0, 0, len, 21);
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x1, 0, 0, len);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 0, 1, 4096, len));
	/* never more than the window unacknowledged */
	CHECK(RP[0].h->e->stats.rc_pkts_tx >= 128);
	CHECK_EQ(RP[0].h->e->stats.rc_retransmits, 0);

	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x2, 0, len, len - 8192);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), len - 8192);
	CHECK(rp_same(1, 4096, 0, len, len - 8192));

	rp_recv(1, 0x100, len, len - 4096);
	s = rp_wqe(SFAB_WQE_SEND, 0x3, 0, 0, len - 4096);
	rp_post(0, &s);
	rp_pump();
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(cqe.status, 0);
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), len - 4096);
	CHECK(rp_same(0, 0, 1, len, len - 4096));
	rp_down();
}

/* max_rd_atomic and max_dest_rd_atomic: at most max_qp_rd_atom */
TEST(rd_atomic_limit)
{
	struct fake_host *h = qh_up();
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp a;
	struct qh_conn k = { .dest_qpn = 5, .dlid = 3, .mtu = 1, .timeout = 14,
			     .max_rd_atomic = 1,
			     .max_dest_rd_atomic = SFAB_ENGINE_MAX_RD_ATOM + 1 };

	REQUIRE(qh_eq_new(h, &eq, 6, 2) == 0);
	REQUIRE(qh_cq_new(h, &cq, 8, eq.eqn) == 0);
	REQUIRE(qh_qp_new_ex(h, &a, SFAB_QPT_RC, 4, 8, cq.cqn, cq.cqn, 0, RP_PD, 0) == 0);
	CHECK_EQ(qh_qp_connect(h, &a, &k), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(h->e->qp[a.qpn].state, SFAB_QPS_INIT);
	k.max_dest_rd_atomic = SFAB_ENGINE_MAX_RD_ATOM;
	k.max_rd_atomic = SFAB_ENGINE_MAX_RD_ATOM + 1;
	/* Init -> Init -> RTR work, RTR -> RTS does not */
	CHECK_EQ(qh_qp_connect(h, &a, &k), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(h->e->qp[a.qpn].state, SFAB_QPS_RTR);
	host_free(h);
}
