/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/rc-garbage: robustness.  Random RC/UC packets (any opcode, PSNs
 * near and far, random RETH/AtomicETH fields, lengths, P_Keys) thrown at
 * connected QPs, and send WQEs of random bytes posted on them, between
 * real traffic; QPs that end in Error are brought back.  Nothing may
 * crash, hang or touch memory outside the registered region (ASan), and
 * the engines must still carry a clean message at the end.
 */
#include "harness.h"
#include "rc_pair.h"

static uint64_t fz_state = 0x9e3779b97f4a7c15ULL;

static uint64_t fz(void)
{
	fz_state ^= fz_state << 13;
	fz_state ^= fz_state >> 7;
	fz_state ^= fz_state << 17;
	return fz_state;
}

static void back_to_rts(unsigned int i, const struct rp_cfg *cfg)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_MODIFY_QP);
	struct qh_conn k = {
		.dest_qpn = RP[!i].qp.qpn,
		.sq_psn = RP[!i].h->e->qp[RP[!i].qp.qpn].rq_psn,
		.rq_psn = RP[!i].h->e->qp[RP[!i].qp.qpn].sq_psn,
		.access = RP_ALL_ACCESS & ~SFAB_ACCESS_LOCAL_WRITE,
		.dlid = i ? RP_LID0 : RP_LID1, .mtu = 1, .timeout = 14,
		.retry_cnt = 2, .rnr_retry = 1, .max_rd_atomic = 4,
		.max_dest_rd_atomic = 4,
	};

	(void)cfg;
	c.u.modify_qp.qpn = sfab_cpu_to_le32(RP[i].qp.qpn);
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE);
	c.u.modify_qp.state = SFAB_QPS_RESET;
	REQUIRE(host_cmd(RP[i].h, &c) == 0);
	RP[i].qp.sq_pi = RP[i].qp.rq_pi = 0;
	REQUIRE(qh_qp_connect(RP[i].h, &RP[i].qp, &k) == 0);
}

static void garbage_round(uint8_t type)
{
	struct rp_cfg cfg = { .type = type, .retry_cnt = 2, .rnr_retry = 1 };
	struct sfab_cqe cqe;
	unsigned int round, i;

	rp_up(&cfg);
	for (round = 0; round < 6000; round++) {
		unsigned int to = fz() & 1;
		struct rp_node *n = &RP[to];
		struct sfab_engine_qp *qp = &n->h->e->qp[n->qp.qpn];
		uint64_t r = fz();

		switch (r % 5) {
		case 0: {	/* a random packet for the QP */
			uint8_t f[SFAB_WIRE_MAX_PKT_LEN];
			struct sfab_pkt_rc p;
			size_t len, k;
			uint8_t payload[600];

			memset(&p, 0, sizeof(p));
			/* up to FLUSH and ATOMIC WRITE (0x1c, 0x1d) */
			p.opcode = (type == SFAB_QPT_UC ? 0x20 : 0) | (fz() % 0x1e);
			if (fz() % 8 == 0)
				p.opcode = fz() & 0xff;
			p.dlid = to ? RP_LID1 : RP_LID0;
			p.slid = to ? RP_LID0 : RP_LID1;
			p.pkey = fz() % 4 ? 0xffff : (uint16_t)fz();
			p.dqpn = fz() % 16 ? n->qp.qpn : (uint32_t)fz() & 0xffffff;
			p.psn = fz() % 2 ? (qp->rq_psn + (fz() % 5) - 2) & 0xffffff :
				(uint32_t)fz() & 0xffffff;
			if (fz() % 2)
				p.psn = (qp->sq_psn + (fz() % 5) - 3) & 0xffffff;
			p.ackreq = fz() & 1;
			p.va = fz() % 2 ? n->mem + fz() % (RP_MEM + 4096) : fz();
			p.rkey = fz() % 3 ? n->key : (uint32_t)fz();
			p.dma_len = fz() % 3 ? fz() % 2000 : (uint32_t)fz();
			p.feth = fz() % 2 ? (uint32_t)(fz() % 0x40) : (uint32_t)fz();
			p.swap_add = fz();
			p.compare = fz();
			p.syndrome = fz();
			p.imm = fz() % 2 ? n->key : (uint32_t)fz();
			len = fz() % 2 ? 256 : fz() % sizeof(payload);
			for (k = 0; k < len; k++)
				payload[k] = (uint8_t)fz();
			len = sfab_link_pkt_build_rc(f, &p, payload, len);
			if (len) {
				if (fz() % 16 == 0)
					len = fz() % len;	/* truncated */
				sfab_engine_qp_rx_pkt(n->h->e, f, len);
			}
			host_run(n->h);
			break;
		}
		case 1: {	/* a send WQE of random bytes */
			uint8_t *w = hp(n->h, n->qp.sq + ((n->qp.sq_pi &
				((1U << n->qp.sq_log) - 1)) << n->qp.sq_slog));

			for (i = 0; i < (1U << n->qp.sq_slog); i++)
				w[i] = (uint8_t)fz();
			if (fz() % 2) {
				w[0] = fz() % 12;	/* a plausible opcode */
				w[2] = fz() % 3;	/* num_sge */
			}
			n->qp.sq_pi++;
			qh_qp_db(n->h, &n->qp, true);
			break;
		}
		case 2: {	/* a real operation */
			struct qh_rc_send s = rp_wqe(fz() % 2 ? SFAB_WQE_SEND :
						     SFAB_WQE_RDMA_WRITE,
						     round, to, fz() % 4096,
						     fz() % 1200);

			s.raddr = RP[!to].mem + fz() % 8192;
			s.rkey = RP[!to].key;
			rp_recv(!to, round, 65536, 4096);
			rp_post(to, &s);
			break;
		}
		case 3:
			rp_advance(fz() % 3 ? 1000000 : 100000000);
			break;
		default:
			rp_pump();
			break;
		}
		while (rp_poll(0, &cqe) || rp_poll(1, &cqe))
			;
		for (i = 0; i < 2; i++) {
			uint8_t st = RP[i].h->e->qp[RP[i].qp.qpn].state;

			if (st == SFAB_QPS_ERR || (fz() % 500 == 0))
				back_to_rts(i, &cfg);
		}
	}
	/* both sides cleanly reconnected: a message still goes through */
	rp_pump();
	rp_advance(1000000000ULL);
	while (rp_poll(0, &cqe) || rp_poll(1, &cqe))
		;
	back_to_rts(0, &cfg);
	back_to_rts(1, &cfg);
	{
		struct qh_rc_send s = rp_wqe(SFAB_WQE_SEND, 0x1234, 0, 0, 700);
		bool ok0 = false, ok1 = false;

		rp_fill(0, 0, 700, 77);
		rp_recv(1, 0x4321, 200000, 1024);
		rp_post(0, &s);
		rp_pump();
		while (rp_poll(0, &cqe))
			if (sfab_le64_to_cpu(cqe.wr_id) == 0x1234 && !cqe.status)
				ok0 = true;
		while (rp_poll(1, &cqe))
			if (sfab_le64_to_cpu(cqe.wr_id) == 0x4321 && !cqe.status)
				ok1 = true;
		CHECK(ok0);
		CHECK(ok1);
		CHECK(rp_same(0, 0, 1, 200000, 700));
	}
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "type %u: %llu pkts rx, %llu naks, %llu dups, %llu dropped\n",
			type, (unsigned long long)RP[1].h->e->stats.rc_pkts_rx,
			(unsigned long long)RP[1].h->e->stats.rc_naks_tx,
			(unsigned long long)RP[1].h->e->stats.rc_dups,
			(unsigned long long)RP[1].h->e->stats.rc_dropped);
	rp_down();
}

TEST(rc_garbage)
{
	garbage_round(SFAB_QPT_RC);
}

TEST(uc_garbage)
{
	garbage_round(SFAB_QPT_UC);
}
