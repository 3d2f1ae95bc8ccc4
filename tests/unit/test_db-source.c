/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/db-source: doorbell writes counted by source.  The QEMU shell
 * tells a peer device's DMA write (an accelerator ringing a doorbell
 * page exported to it as a dma-buf) from a CPU's store; the engine
 * counts each in db_writes_cpu or db_writes_peer besides db_writes, and
 * QUERY_STATS reports both.  A peer doorbell works as a CPU's does (an
 * RC send goes out and completes); a malformed write counts in neither;
 * a peer doorbell on a page whose QP is gone (the context that exported
 * it was torn down and its export revoked) is ignored: db_ignored.
 */
#include "harness.h"
#include "rc_pair.h"

struct dbc {
	uint64_t all, cpu, peer, ignored;
};

static struct dbc dbc(unsigned int i)
{
	const struct sfab_engine_stats *st = &RP[i].h->e->stats;
	struct dbc c = { st->db_writes, st->db_writes_cpu, st->db_writes_peer,
			 st->db_ignored };

	/* every counted write has exactly one source */
	CHECK_EQ(c.all, c.cpu + c.peer);
	return c;
}

static void peer_db(unsigned int i, uint16_t page, uint64_t reg, uint64_t val,
		    unsigned int size)
{
	sfab_engine_db_write(RP[i].h->e, (uint64_t)page * SFAB_DB_PAGE_SIZE + reg,
			     val, size, SFAB_DB_SRC_PEER);
	host_run(RP[i].h);
}

TEST(peer_doorbell_counted_and_works)
{
	struct rp_cfg cfg = { 0 };
	struct sfab_port_stats ps;
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	struct dbc was, now;

	rp_up(&cfg);
	rp_recv(1, 0x100, 65536, 512);
	rp_fill(0, 0, 300, 7);
	was = dbc(0);
	/* the WQE by the host, its doorbell by the peer */
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 300);
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	peer_db(0, RP[0].qp.db_page, SFAB_DB_SQ,
		sfab_db_val(RP[0].qp.qpn, RP[0].qp.sq_pi, 0), 8);
	now = dbc(0);
	CHECK_EQ(now.all - was.all, 1);
	CHECK_EQ(now.peer - was.peer, 1);
	CHECK_EQ(now.cpu - was.cpu, 0);
	CHECK_EQ(now.ignored - was.ignored, 0);
	rp_pump();
	REQUIRE(rp_poll(1, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x100);
	CHECK_EQ(cqe.status, 0);
	CHECK(rp_same(0, 0, 1, 65536, 300));
	REQUIRE(rp_poll(0, &cqe));
	CHECK_EQ(sfab_le64_to_cpu(cqe.wr_id), 0x10);
	CHECK_EQ(cqe.status, 0);

	/* a CPU doorbell counts as a CPU's */
	was = dbc(1);
	rp_recv(1, 0x101, 65536, 512);
	now = dbc(1);
	CHECK_EQ(now.cpu - was.cpu, 1);
	CHECK_EQ(now.peer - was.peer, 0);

	/* malformed: neither counts (a guest error, as from a CPU) */
	was = dbc(0);
	peer_db(0, RP[0].qp.db_page, SFAB_DB_SQ, 1, 2);
	peer_db(0, RP[0].qp.db_page, SFAB_DB_SQ + 2, 1, 4);
	sfab_engine_db_write(RP[0].h->e, SFAB_DB_BAR_SIZE, 1, 4,
			     SFAB_DB_SRC_PEER);
	now = dbc(0);
	CHECK_EQ(now.all, was.all);
	CHECK_EQ(now.peer, was.peer);

	/* another context's page: counted, ignored */
	peer_db(0, RP[0].qp.db_page + 1, SFAB_DB_SQ,
		sfab_db_val(RP[0].qp.qpn, RP[0].qp.sq_pi, 0), 8);
	now = dbc(0);
	CHECK_EQ(now.peer - was.peer, 1);
	CHECK_EQ(now.ignored - was.ignored, 1);

	/* QUERY_STATS carries both, in the former reserved words */
	now = dbc(0);
	CHECK_EQ(host_query_stats(RP[0].h, &ps), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_le64_to_cpu(ps.db_writes_cpu), now.cpu);
	CHECK_EQ(sfab_le64_to_cpu(ps.db_writes_peer), now.peer);
	CHECK(now.cpu > 0 && now.peer > 0);
	CHECK(all_zero_bytes(ps.reserved, sizeof(ps.reserved)));
	rp_down();
}

TEST(peer_doorbell_after_revoke_ignored)
{
	struct rp_cfg cfg = { 0 };
	struct sfab_aq_cmd c;
	struct sfab_cqe cqe;
	struct qh_rc_send s;
	struct dbc was, now;
	uint64_t sent;

	rp_up(&cfg);
	rp_recv(1, 0x100, 65536, 512);
	/* a WQE sits in the ring; the context goes, its QP with it */
	s = rp_wqe(SFAB_WQE_SEND, 0x10, 0, 0, 64);
	qh_post_rc(RP[0].h, &RP[0].qp, &s);
	c = cmd_new(SFAB_AQ_DESTROY_QP);
	c.u.destroy_qp.qpn = sfab_cpu_to_le32(RP[0].qp.qpn);
	REQUIRE(host_cmd(RP[0].h, &c) == SFAB_AQ_STS_OK);
	sent = RP[0].h->e->stats.rc_pkts_tx;
	/* the importer had not stopped yet: its doorbells do nothing */
	was = dbc(0);
	peer_db(0, RP[0].qp.db_page, SFAB_DB_SQ,
		sfab_db_val(RP[0].qp.qpn, RP[0].qp.sq_pi, 0), 8);
	peer_db(0, RP[0].qp.db_page, SFAB_DB_CQ,
		sfab_db_val(RP[0].cq.cqn, 0, SFAB_DB_ARM_NEXT), 8);
	rp_pump();
	now = dbc(0);
	CHECK_EQ(now.peer - was.peer, 2);
	CHECK_EQ(now.ignored - was.ignored, 1);
	CHECK_EQ(RP[0].h->e->stats.rc_pkts_tx, sent);
	CHECK(!rp_poll(1, &cqe));
	CHECK(!dev_fatal(RP[0].h));
	rp_down();
}
