/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-counters: the port's transport counters, read the way the
 * driver reads them (QUERY_STATS, SFAB_DEV_CAP_QUERY_STATS), each moving
 * by exactly what happened on the wire.  Lossless traffic of every kind
 * moves none of them on either end.  A lost request packet: one local ACK
 * timeout, one go-back, one packet sent again.  A lost ACK: the same, and
 * one duplicate request at the responder.  A packet lost in the middle of
 * a message: the responder counts every later packet out of sequence and
 * NAKs once, the requester one sequence NAK and the packets from the gap
 * on sent again.  A lost READ response: an implied NAK.  RNR NAKs until
 * rnr_retry is used up, a dead link until retry_cnt is: the retries, then
 * one retry-exceeded completion.  A message paced by link credit for
 * longer than the ACK timeout is not timed out (the timer runs from the
 * newest packet that left the port, and not while packets wait there for
 * credit).  UC counts its gaps.  The command's parameters are
 * checked and it needs firmware.
 */
#include "harness.h"
#include "rc_pair.h"

#define MS	1000000ULL

/* struct sfab_port_stats in host order, named as `rdma statistic` shows them */
struct cnt {
	uint64_t retransmits, retrans_pkts, local_ack_timeout_err, packet_seq_err;
	uint64_t implied_nak_seq_err, rnr_nak_retry_err, out_of_sequence;
	uint64_t duplicate_request, req_transport_retries_exceeded;
	uint64_t req_rnr_retries_exceeded;
};

static struct cnt counters(unsigned int i)
{
	struct sfab_port_stats s;
	struct cnt c;

	memset(&c, 0, sizeof(c));
	CHECK_EQ(host_query_stats(RP[i].h, &s), SFAB_AQ_STS_OK);
	CHECK(all_zero_bytes(s.reserved, sizeof(s.reserved)));
	c.retransmits = sfab_le64_to_cpu(s.retransmits);
	c.retrans_pkts = sfab_le64_to_cpu(s.retrans_pkts);
	c.local_ack_timeout_err = sfab_le64_to_cpu(s.local_ack_timeout_err);
	c.packet_seq_err = sfab_le64_to_cpu(s.packet_seq_err);
	c.implied_nak_seq_err = sfab_le64_to_cpu(s.implied_nak_seq_err);
	c.rnr_nak_retry_err = sfab_le64_to_cpu(s.rnr_nak_retry_err);
	c.out_of_sequence = sfab_le64_to_cpu(s.out_of_sequence);
	c.duplicate_request = sfab_le64_to_cpu(s.duplicate_request);
	c.req_transport_retries_exceeded =
		sfab_le64_to_cpu(s.req_transport_retries_exceeded);
	c.req_rnr_retries_exceeded = sfab_le64_to_cpu(s.req_rnr_retries_exceeded);
	return c;
}

#define MOVED(f)	CHECK_EQ(now.f - was->f, want.f)

/*
 * node @i's counters moved by exactly @want since @was (every counter
 * @want does not name stayed), and @was becomes now
 */
static void moved(unsigned int i, struct cnt *was, struct cnt want,
		  const char *what)
{
	unsigned long fails = harness_failures;
	struct cnt now = counters(i);

	MOVED(retransmits);
	MOVED(retrans_pkts);
	MOVED(local_ack_timeout_err);
	MOVED(packet_seq_err);
	MOVED(implied_nak_seq_err);
	MOVED(rnr_nak_retry_err);
	MOVED(out_of_sequence);
	MOVED(duplicate_request);
	MOVED(req_transport_retries_exceeded);
	MOVED(req_rnr_retries_exceeded);
	if (harness_failures != fails)
		fprintf(stderr, "  ... node %u, %s\n", i, what);
	*was = now;
}

static const struct cnt NONE;

/* what the lossy tests drop: chosen frames, or everything to node 1 */
static unsigned int drop_to1, drop_to0, sent_to1, drop_psn_n, drop_rresp;
static uint32_t drop_psn;
static bool drop_all;

static bool lossy(unsigned int to, const uint8_t *f, size_t len)
{
	(void)len;
	if (to == 1)
		sent_to1++;
	if (to == 1 && (drop_all || (drop_to1 && drop_to1--)))
		return true;
	if (to == 0 && drop_to0) {
		drop_to0--;
		return true;
	}
	if (to == 1 && drop_psn_n && rp_psn(f) == drop_psn) {
		drop_psn_n--;
		return true;
	}
	if (to == 0 && drop_rresp &&
	    (rp_opcode(f) & SFAB_BTH_OP_MASK) == SFAB_OP_READ_RESP_ONLY) {
		drop_rresp--;
		return true;
	}
	return false;
}

static void lossy_up(const struct rp_cfg *cfg)
{
	rp_up(cfg);
	drop_to1 = drop_to0 = sent_to1 = drop_psn_n = drop_rresp = 0;
	drop_all = false;
	rp_drop = lossy;
}

static void complete(unsigned int i, uint64_t wr_id, uint8_t status)
{
	struct sfab_cqe cqe;

	REQUIRE(rp_poll(i, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), wr_id);
	CHECK_EQ(cqe.status, status);
}

/* completions on node @i's CQ, all of them successful */
static unsigned int good_cqes(unsigned int i)
{
	struct sfab_cqe cqe;
	unsigned int n = 0;

	while (rp_poll(i, &cqe)) {
		CHECK_EQ(cqe.status, 0);
		n++;
	}
	return n;
}

TEST(cap_and_command)
{
	struct fake_host *h = host_up(3);
	struct sfab_port_stats s;
	struct sfab_dev_attr a;
	struct sfab_aq_cmd c;

	/* offered with or without firmware; answered only with it */
	REQUIRE(host_query_device(h, &a) == SFAB_AQ_STS_OK);
	CHECK(sfab_le32_to_cpu(a.dev_caps) & SFAB_DEV_CAP_QUERY_STATS);
	CHECK_EQ(host_query_stats(h, &s), SFAB_AQ_STS_NO_FW);
	REQUIRE(host_fw_load(h) == SFAB_AQ_STS_OK);
	/* no INIT_HCA needed; everything zero on a new device */
	REQUIRE(host_query_stats(h, &s) == SFAB_AQ_STS_OK);
	CHECK(all_zero_bytes(&s, sizeof(s)));

	c = cmd_query_stats(h->scratch, sizeof(s) - 1, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_stats(h->scratch, sizeof(s), 0);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_stats(h->scratch, sizeof(s), 2);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_stats(h->scratch, sizeof(s), 1);
	c.u.query_stats.reserved[2] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_stats(h->scratch, sizeof(s), 1);
	c.u.raw[55] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_query_stats(0x1000, sizeof(s), 1);	/* outside host memory */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_DMA_ERROR);
	c = cmd_query_stats(h->scratch, 4096, 1);	/* bigger is fine */
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK(!dev_fatal(h));
	host_free(h);
}

TEST(lossless_moves_nothing)
{
	struct rp_cfg cfg = { .retry_cnt = 3, .rnr_retry = 3 };
	struct cnt c0, c1;
	struct qh_rc_send s;
	uint64_t v = 5;
	unsigned int k;

	lossy_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	moved(0, &c0, NONE, "new");
	moved(1, &c1, NONE, "new");
	CHECK(all_zero_bytes(&c0, sizeof(c0)) && all_zero_bytes(&c1, sizeof(c1)));
	/* sends of 1..9 packets both ways, a WRITE, a READ, an atomic */
	rp_fill(0, 0, 4096, 3);
	rp_fill(1, 0, 4096, 4);
	for (k = 0; k < 8; k++) {
		rp_recv(1, 0x100 + k, 65536, 4096);
		rp_recv(0, 0x200 + k, 65536, 4096);
		s = rp_wqe(SFAB_WQE_SEND, 0x10 + k, 0, 0, 1 + k * 300);
		rp_post(0, &s);
		s = rp_wqe(SFAB_WQE_SEND, 0x20 + k, 1, 0, 2200 - k * 250);
		rp_post(1, &s);
	}
	s = rp_wqe(SFAB_WQE_RDMA_WRITE, 0x30, 0, 0, 3000);
	s.raddr = RP[1].mem + 131072;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x31, 0, 8192, 1500);
	s.raddr = RP[1].mem + 131072;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	memcpy(rp_mem(1, 200000), &v, 8);
	s = rp_wqe(SFAB_WQE_ATOMIC_FA, 0x32, 0, 16384, 8);
	s.raddr = RP[1].mem + 200000;
	s.rkey = RP[1].key;
	s.swap_add = 2;
	rp_post(0, &s);
	rp_pump();
	rp_advance(2000 * MS);		/* well past every timer */
	/* node 0: 8 sends, 8 receives, 3 more; node 1: 8 and 8 */
	CHECK_EQ(good_cqes(0), 19);
	CHECK_EQ(good_cqes(1), 16);
	CHECK(rp_same(0, 8192, 1, 131072, 1500));
	memcpy(&v, rp_mem(0, 16384), 8);
	CHECK_EQ(v, 5);
	CHECK_EQ(rp_dropped, 0);
	CHECK(rp_data_frames[1] > 40);
	moved(0, &c0, NONE, "lossless traffic");
	moved(1, &c1, NONE, "lossless traffic");
	rp_down();
}

TEST(lost_packet_and_lost_ack)
{
	struct rp_cfg cfg = { .timeout = 12, .retry_cnt = 3 };	/* 16.8 ms */
	struct cnt c0, c1;
	struct qh_rc_send s;

	lossy_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	/* the only packet of a send is lost: nothing until the timeout */
	drop_to1 = 1;
	rp_recv(1, 0x100, 65536, 256);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	rp_advance(10 * MS);
	moved(0, &c0, NONE, "before the ACK timeout");
	rp_advance(10 * MS);
	complete(1, 0x100, 0);
	complete(0, 0x10, 0);
	CHECK_EQ(sent_to1, 2);
	moved(0, &c0, (struct cnt){ .retransmits = 1, .retrans_pkts = 1,
				    .local_ack_timeout_err = 1 }, "lost packet");
	moved(1, &c1, NONE, "lost packet");

	/* its ACK is lost: sent again, a duplicate for the responder */
	drop_to0 = 1;
	rp_recv(1, 0x101, 65536, 256);
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	complete(1, 0x101, 0);
	rp_advance(20 * MS);
	complete(0, 0x11, 0);
	moved(0, &c0, (struct cnt){ .retransmits = 1, .retrans_pkts = 1,
				    .local_ack_timeout_err = 1 }, "lost ACK");
	moved(1, &c1, (struct cnt){ .duplicate_request = 1 }, "lost ACK");
	rp_down();
}

TEST(sequence_nak)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct cnt c0, c1;
	struct qh_rc_send s;

	lossy_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	/* PSN 2 of 8: five packets behind it are out of sequence, one NAK */
	drop_psn = 2;
	drop_psn_n = 1;
	rp_recv(1, 0x100, 65536, 4096);
	rp_fill(0, 0, 2048, 7);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 2048);
	rp_post(0, &s);
	rp_pump();
	complete(1, 0x100, 0);
	complete(0, 0x10, 0);
	CHECK(rp_same(0, 0, 1, 65536, 2048));
	CHECK_EQ(sent_to1, 14);
	CHECK_EQ(RP[1].h->e->stats.rc_naks_tx, 1);
	moved(0, &c0, (struct cnt){ .retransmits = 1, .retrans_pkts = 6,
				    .packet_seq_err = 1 }, "sequence NAK");
	moved(1, &c1, (struct cnt){ .out_of_sequence = 5 }, "sequence NAK");
	rp_down();

	/* retry_cnt 0: the NAK is not retried, the send fails */
	cfg.retry_cnt = 0;
	lossy_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	drop_psn = 2;
	drop_psn_n = 1;
	rp_recv(1, 0x100, 65536, 4096);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 2048);
	rp_post(0, &s);
	rp_pump();
	complete(0, 0x10, SFAB_CQE_STS_RETRY_EXC_ERR);
	CHECK_EQ(rp_state(0), SFAB_QPS_ERR);
	moved(0, &c0, (struct cnt){ .req_transport_retries_exceeded = 1 },
	      "sequence NAK, no retry left");
	moved(1, &c1, (struct cnt){ .out_of_sequence = 5 },
	      "sequence NAK, no retry left");
	rp_down();
}

TEST(implied_nak)
{
	struct rp_cfg cfg = { .retry_cnt = 3 };
	struct cnt c0, c1;
	struct qh_rc_send s;

	lossy_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	/*
	 * a READ's only response is lost; the ACK of the send after it says
	 * the responder has both: the requester goes back to the READ and
	 * sends the READ and the send again, both duplicates there
	 */
	drop_rresp = 1;
	rp_fill(1, 4096, 100, 9);
	rp_recv(1, 0x100, 65536, 256);
	s = rp_wqe(SFAB_WQE_RDMA_READ, 0x10, 0, 8192, 100);
	s.raddr = RP[1].mem + 4096;
	s.rkey = RP[1].key;
	rp_post(0, &s);
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	complete(1, 0x100, 0);
	complete(0, 0x10, 0);
	complete(0, 0x11, 0);
	CHECK(rp_same(1, 4096, 0, 8192, 100));
	moved(0, &c0, (struct cnt){ .retransmits = 1, .retrans_pkts = 2,
				    .implied_nak_seq_err = 1 }, "implied NAK");
	moved(1, &c1, (struct cnt){ .duplicate_request = 2 }, "implied NAK");
	rp_down();
}

TEST(rnr_retries_exceeded)
{
	/* min_rnr_timer 18: 5.12 ms */
	struct rp_cfg cfg = { .rnr_retry = 1, .min_rnr_timer = 18, .retry_cnt = 3 };
	struct cnt c0, c1;
	struct qh_rc_send s;

	lossy_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	/* no receive posted: RNR NAK, retried once, then again RNR: failed */
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 100);
	rp_post(0, &s);
	rp_pump();
	moved(0, &c0, (struct cnt){ .retransmits = 1, .rnr_nak_retry_err = 1 },
	      "first RNR NAK");
	rp_advance(6 * MS);
	complete(0, 0x10, SFAB_CQE_STS_RNR_RETRY_EXC_ERR);
	CHECK_EQ(RP[0].h->e->stats.rc_rnr_naks_rx, 2);
	moved(0, &c0, (struct cnt){ .retrans_pkts = 1,
				    .req_rnr_retries_exceeded = 1 },
	      "second RNR NAK");
	moved(1, &c1, NONE, "RNR NAKs");
	rp_down();
}

TEST(retry_exceeded)
{
	struct rp_cfg cfg = { .timeout = 14, .retry_cnt = 2 };	/* 67 ms */
	struct cnt c0, c1;
	struct qh_rc_send s;
	unsigned int i;

	lossy_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	drop_all = true;
	for (i = 0; i < 3; i++) {
		s = rp_wqe(SFAB_WQE_SEND, 0x10 + i, 0, 0, 600);	/* 3 packets each */
		qh_post_rc(RP[0].h, &RP[0].qp, &s);
	}
	qh_qp_db(RP[0].h, &RP[0].qp, true);
	rp_pump();
	rp_advance(70 * MS);
	moved(0, &c0, (struct cnt){ .retransmits = 1, .retrans_pkts = 9,
				    .local_ack_timeout_err = 1 }, "first timeout");
	rp_advance(70 * MS);
	rp_advance(70 * MS);
	CHECK_EQ(sent_to1, 27);
	complete(0, 0x10, SFAB_CQE_STS_RETRY_EXC_ERR);
	complete(0, 0x11, SFAB_CQE_STS_WR_FLUSH_ERR);
	complete(0, 0x12, SFAB_CQE_STS_WR_FLUSH_ERR);
	/* the third timeout found no retry left: no go-back for it */
	moved(0, &c0, (struct cnt){ .retransmits = 1, .retrans_pkts = 9,
				    .local_ack_timeout_err = 1,
				    .req_transport_retries_exceeded = 1 },
	      "retries used up");
	moved(1, &c1, NONE, "dead link");
	rp_down();
}

/*
 * A slow wire from node 0 to node 1: every frame (data and flow control)
 * queued in order, let through one data frame at a time, so node 0 sends
 * only as the credit node 1 returns allows.
 */
#define SLOW_MAX	1024
static uint8_t *slow_f[SLOW_MAX];
static size_t slow_len[SLOW_MAX];
static unsigned int slow_head, slow_n;

static void slow_tx(void *opaque, const uint8_t *f, size_t len)
{
	if (opaque != RP[0].h) {
		rp_tx(opaque, f, len);
		return;
	}
	if (slow_n == SLOW_MAX || !(slow_f[slow_n] = malloc(len))) {
		fprintf(stderr, "rc-counters: slow wire full\n");
		abort();
	}
	memcpy(slow_f[slow_n], f, len);
	slow_len[slow_n++] = len;
}

/* data frames on the slow wire */
static unsigned int slow_data(void)
{
	unsigned int i, n = 0;

	for (i = slow_head; i < slow_n; i++)
		n += slow_len[i] != SFAB_WIRE_FC_PKT_LEN;
	return n;
}

/* deliver the slow wire's frames up to and with the next data frame */
static void slow_step(void)
{
	while (slow_head < slow_n) {
		size_t len = slow_len[slow_head];

		sfab_engine_cable_rx(RP[1].h->e, slow_f[slow_head], len);
		free(slow_f[slow_head++]);
		if (len != SFAB_WIRE_FC_PKT_LEN)
			break;
	}
}

TEST(congested_lossless)
{
	/* 16.8 ms; 4 KiB packets, 256 credit blocks: 3 packets on the wire */
	struct rp_cfg cfg = { .mtu = 5, .timeout = 12, .retry_cnt = 1 };
	unsigned int steps = 0, most = 0;
	struct cnt c0, c1;
	struct qh_rc_send s;

	rp_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	slow_head = slow_n = 0;
	rp_ops.cable_tx = slow_tx;
	/*
	 * a 64 KiB send (16 packets, one ACK asked for, at the end) crosses a
	 * wire that passes a packet every 5 ms and once none for 30 ms: 110
	 * ms, far more than the ACK timeout, and the port held packets for
	 * credit longer than it; nothing is lost, nothing times out
	 */
	rp_fill(0, 0, 65536, 5);
	rp_recv(1, 0x100, 131072, 65536);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 65536);
	rp_post(0, &s);
	rp_pump();
	while (slow_data() && steps++ < 100) {
		if (slow_data() > most)
			most = slow_data();
		slow_step();
		rp_advance(5 * MS);
		/* halfway the wire stands still for 30 ms, node 0's port full */
		if (steps == 8) {
			CHECK(RP[0].h->e->port.txq_len > 0);
			rp_advance(30 * MS);
		}
	}
	while (slow_head < slow_n)
		slow_step();
	rp_pump();
	rp_ops.cable_tx = rp_tx;
	CHECK(steps >= 16);
	CHECK(most <= 4);		/* credit paced the sender */
	complete(1, 0x100, 0);
	complete(0, 0x10, 0);
	CHECK(rp_same(0, 0, 1, 131072, 65536));
	moved(0, &c0, NONE, "congested requester");
	moved(1, &c1, NONE, "congested responder");
	rp_down();
}

TEST(uc_gap)
{
	struct rp_cfg cfg = { .type = SFAB_QPT_UC };
	struct cnt c0, c1;
	struct qh_rc_send s;

	lossy_up(&cfg);
	c0 = counters(0);
	c1 = counters(1);
	/* the middle packet of three: the rest of the message is dropped */
	drop_psn = 1;
	drop_psn_n = 1;
	rp_recv(1, 0x100, 65536, 4096);
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 700);
	rp_post(0, &s);
	s = rp_wqe(SFAB_WQE_SEND, 0x11, 0, 0, 200);
	rp_post(0, &s);
	rp_pump();
	complete(0, 0x10, 0);
	complete(0, 0x11, 0);
	complete(1, 0x100, 0);		/* the second message */
	moved(0, &c0, NONE, "UC sender");
	moved(1, &c1, (struct cnt){ .out_of_sequence = 1 }, "UC gap");
	rp_down();
}
