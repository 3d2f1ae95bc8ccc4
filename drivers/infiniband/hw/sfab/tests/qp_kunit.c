// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the QP state table as sfab_modify_qp() applies it.  For RC, UC
 * and UD, the transitions ib_core's table allows with the attributes the
 * device needs (ib_modify_qp_is_ok()) and the MODIFY_QP command each one
 * becomes (sfab_qp_cmd_build()): which contract attributes, with which
 * values, and the bytes the device reads (sfab_com_modify_qp_encode());
 * transitions the table refuses; attributes the device cannot take.
 * SQD: in and out, SQD -> SQD, and when SQ_DRAINED reaches the consumer;
 * on a live sfab_0 (skipped without one; the port may be down) an idle RC
 * QP through RTS -> SQD -> SQD -> RTS -> SQD with and without the
 * notification.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>

#include "../sfab_com_cmd.h"
#include "../sfab_wqe.h"
#include "kunit_rc.h"

struct qp_step {
	enum ib_qp_state cur, next;
	int mask;			/* ib_qp_attr_mask */
	u32 want;			/* SFAB_QP_ATTR_* */
};

#define A(x)	SFAB_QP_ATTR_##x

static const struct qp_step rc_steps[] = {
	{ IB_QPS_RESET, IB_QPS_INIT,
	  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
	  A(STATE) | A(PKEY_INDEX) | A(PORT) | A(ACCESS) },
	{ IB_QPS_INIT, IB_QPS_RTR,
	  IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
	  IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER,
	  A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
	  A(RD_ATOMIC) | A(MIN_RNR_TIMER) },
	{ IB_QPS_RTR, IB_QPS_RTS,
	  IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
	  IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC,
	  A(STATE) | A(SQ_PSN) | A(TIMEOUT) | A(RETRY) | A(RD_ATOMIC) },
	/* the notification is the driver's: no contract attribute */
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QP_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY,
	  A(STATE) },
	{ IB_QPS_SQD, IB_QPS_SQD,
	  IB_QP_STATE | IB_QP_AV | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
	  IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC |
	  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS |
	  IB_QP_MIN_RNR_TIMER,
	  A(STATE) | A(AV) | A(TIMEOUT) | A(RETRY) | A(RD_ATOMIC) |
	  A(PKEY_INDEX) | A(PORT) | A(ACCESS) | A(MIN_RNR_TIMER) },
	{ IB_QPS_SQD, IB_QPS_RTS,
	  IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_MIN_RNR_TIMER,
	  A(STATE) | A(ACCESS) | A(MIN_RNR_TIMER) },
	{ IB_QPS_SQD, IB_QPS_ERR, IB_QP_STATE, A(STATE) },
	{ IB_QPS_RTS, IB_QPS_ERR, IB_QP_STATE, A(STATE) },
	{ IB_QPS_ERR, IB_QPS_RESET, IB_QP_STATE, A(STATE) },
};

static const struct qp_step uc_steps[] = {
	{ IB_QPS_RESET, IB_QPS_INIT,
	  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
	  A(STATE) | A(PKEY_INDEX) | A(PORT) | A(ACCESS) },
	{ IB_QPS_INIT, IB_QPS_RTR,
	  IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
	  IB_QP_RQ_PSN,
	  A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE | IB_QP_SQ_PSN,
	  A(STATE) | A(SQ_PSN) },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QP_STATE, A(STATE) },
	{ IB_QPS_SQD, IB_QPS_SQD,
	  IB_QP_STATE | IB_QP_AV | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
	  A(STATE) | A(AV) | A(ACCESS) | A(PKEY_INDEX) },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QP_STATE | IB_QP_ACCESS_FLAGS,
	  A(STATE) | A(ACCESS) },
	{ IB_QPS_RTS, IB_QPS_ERR, IB_QP_STATE, A(STATE) },
};

static const struct qp_step ud_steps[] = {
	{ IB_QPS_RESET, IB_QPS_INIT,
	  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY,
	  A(STATE) | A(PKEY_INDEX) | A(PORT) | A(QKEY) },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QP_STATE, A(STATE) },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE | IB_QP_SQ_PSN,
	  A(STATE) | A(SQ_PSN) },
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QP_QKEY, A(QKEY) },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QP_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY,
	  A(STATE) },
	{ IB_QPS_SQD, IB_QPS_SQD, IB_QP_QKEY | IB_QP_PKEY_INDEX,
	  A(QKEY) | A(PKEY_INDEX) },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QP_STATE | IB_QP_QKEY,
	  A(STATE) | A(QKEY) },
	{ IB_QPS_SQD, IB_QPS_RESET, IB_QP_STATE, A(STATE) },
	{ IB_QPS_RTS, IB_QPS_RESET, IB_QP_STATE, A(STATE) },
};

/* QP1: its port is fixed, so Reset -> Init takes no port */
static const struct qp_step gsi_steps[] = {
	{ IB_QPS_RESET, IB_QPS_INIT,
	  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_QKEY,
	  A(STATE) | A(PKEY_INDEX) | A(QKEY) },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QP_STATE, A(STATE) },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE | IB_QP_SQ_PSN,
	  A(STATE) | A(SQ_PSN) },
	{ IB_QPS_RTS, IB_QPS_ERR, IB_QP_STATE, A(STATE) },
};

static void sfab_qp_fill(struct ib_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qkey = 0x11111111;
	a->port_num = 1;
	a->qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			     IB_ACCESS_REMOTE_READ;
	a->path_mtu = IB_MTU_4096;
	a->dest_qp_num = 0xab123456;	/* 24 bits go to the device */
	a->rq_psn = 0x1fedcba;
	a->sq_psn = 0x2abcdef;
	a->max_dest_rd_atomic = 4;
	a->max_rd_atomic = 2;
	a->min_rnr_timer = 12;
	a->timeout = 14;
	a->retry_cnt = 6;
	a->rnr_retry = 7;
	a->ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&a->ah_attr, 0x22);
	rdma_ah_set_sl(&a->ah_attr, 3);
	rdma_ah_set_port_num(&a->ah_attr, 1);
}

static void sfab_qp_walk(struct kunit *test, enum ib_qp_type type,
			 const struct qp_step *steps, unsigned int n)
{
	struct sfab_com_qp_attr p;
	struct ib_qp_attr a;
	unsigned int i;
	u32 am;

	sfab_qp_fill(&a);
	for (i = 0; i < n; i++) {
		const struct qp_step *s = &steps[i];

		KUNIT_EXPECT_TRUE_MSG(test, ib_modify_qp_is_ok(s->cur, s->next,
							       type, s->mask),
				      "type %d step %u: %d -> %d", type, i,
				      s->cur, s->next);
		KUNIT_EXPECT_FALSE(test, s->mask & SFAB_QP_ATTR_UNSUPPORTED);
		am = sfab_qp_cmd_build(&p, 77, &a, s->mask, s->next, 1, 2);
		KUNIT_EXPECT_EQ_MSG(test, am, s->want, "type %d step %u", type, i);
		KUNIT_EXPECT_EQ(test, p.attr_mask, am);
		KUNIT_EXPECT_EQ(test, p.qpn, 77);
		if (am & A(STATE))
			KUNIT_EXPECT_EQ(test, p.state, (u8)s->next);
		if (am & A(DEST_QPN))
			KUNIT_EXPECT_EQ(test, p.dest_qpn, 0x123456);
		if (am & A(RQ_PSN))
			KUNIT_EXPECT_EQ(test, p.rq_psn, 0xfedcba);
		if (am & A(SQ_PSN))
			KUNIT_EXPECT_EQ(test, p.sq_psn, 0xabcdef);
		if (am & A(AV)) {
			KUNIT_EXPECT_EQ(test, p.dlid, 0x22);
			KUNIT_EXPECT_EQ(test, p.sl, 3);
		}
		if (am & A(PATH_MTU))
			KUNIT_EXPECT_EQ(test, p.path_mtu, (u8)IB_MTU_4096);
		if (am & A(ACCESS))
			/* remote rights only: local write is the MRs' business */
			KUNIT_EXPECT_EQ(test, p.access_flags,
					SFAB_ACCESS_REMOTE_WRITE |
					SFAB_ACCESS_REMOTE_READ);
		if (am & A(RETRY)) {
			KUNIT_EXPECT_EQ(test, p.retry_cnt, 6);
			KUNIT_EXPECT_EQ(test, p.rnr_retry, 7);
		}
		if (am & A(QKEY))
			KUNIT_EXPECT_EQ(test, p.qkey, 0x11111111);
	}
}

static void sfab_qp_rc_states(struct kunit *test)
{
	sfab_qp_walk(test, IB_QPT_RC, rc_steps, ARRAY_SIZE(rc_steps));
}

static void sfab_qp_uc_states(struct kunit *test)
{
	sfab_qp_walk(test, IB_QPT_UC, uc_steps, ARRAY_SIZE(uc_steps));
}

static void sfab_qp_ud_states(struct kunit *test)
{
	sfab_qp_walk(test, IB_QPT_UD, ud_steps, ARRAY_SIZE(ud_steps));
	sfab_qp_walk(test, IB_QPT_GSI, gsi_steps, ARRAY_SIZE(gsi_steps));
}

/* what the table refuses never reaches the device */
static void sfab_qp_refused(struct kunit *test)
{
	int init = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS;

	/* skipping states */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_RTS,
						    IB_QPT_RC, IB_QP_STATE));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTS,
						    IB_QPT_RC, IB_QP_STATE));
	/* a required attribute missing: RTR without the path */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTR,
						    IB_QPT_RC, IB_QP_STATE));
	/* an attribute the transition does not take: RC with a Q_Key */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
						    IB_QPT_RC, init | IB_QP_QKEY));
	/* UD has no access flags */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
						    IB_QPT_UD, init));
	/* Error goes only to Reset (or stays) */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_ERR, IB_QPS_INIT,
						    IB_QPT_RC, init));
	/* SQD: only from RTS, out only to RTS (or Reset, Error) */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_SQD,
						    IB_QPT_RC, IB_QP_STATE));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RTR, IB_QPS_SQD,
						    IB_QPT_RC, IB_QP_STATE));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_SQD, IB_QPS_RTR,
						    IB_QPT_RC, IB_QP_STATE));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_SQE, IB_QPS_SQD,
						    IB_QPT_UD, IB_QP_STATE));
	/* RTS -> SQD takes no path; SQD -> SQD no PSN, UD no path */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RTS, IB_QPS_SQD,
						    IB_QPT_RC,
						    IB_QP_STATE | IB_QP_TIMEOUT));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_SQD, IB_QPS_SQD,
						    IB_QPT_RC, IB_QP_SQ_PSN));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_SQD, IB_QPS_SQD,
						    IB_QPT_UD, IB_QP_AV));
	/* alternate paths: -EOPNOTSUPP in the driver; SQD notify is taken */
	KUNIT_EXPECT_TRUE(test, IB_QP_ALT_PATH & SFAB_QP_ATTR_UNSUPPORTED);
	KUNIT_EXPECT_FALSE(test, IB_QP_EN_SQD_ASYNC_NOTIFY & SFAB_QP_ATTR_UNSUPPORTED);
	KUNIT_EXPECT_TRUE(test, IB_QP_PATH_MIG_STATE & SFAB_QP_ATTR_UNSUPPORTED);
}

/* retry_cnt and rnr_retry share one contract attribute */
static void sfab_qp_retry_kept(struct kunit *test)
{
	struct sfab_com_qp_attr p;
	struct ib_qp_attr a;

	sfab_qp_fill(&a);
	KUNIT_EXPECT_EQ(test, sfab_qp_cmd_build(&p, 5, &a, IB_QP_RETRY_CNT,
						IB_QPS_RTS, 3, 4), A(RETRY));
	KUNIT_EXPECT_EQ(test, p.retry_cnt, 6);
	KUNIT_EXPECT_EQ(test, p.rnr_retry, 4);	/* kept */
	KUNIT_EXPECT_EQ(test, sfab_qp_cmd_build(&p, 5, &a, IB_QP_RNR_RETRY,
						IB_QPS_RTS, 3, 4), A(RETRY));
	KUNIT_EXPECT_EQ(test, p.retry_cnt, 3);	/* kept */
	KUNIT_EXPECT_EQ(test, p.rnr_retry, 7);
}

/* an address vector with a GRH carries it in the GRH block */
static void sfab_qp_grh(struct kunit *test)
{
	struct sfab_com_qp_attr p;
	struct ib_qp_attr a;
	union ib_gid dgid;
	u32 am;

	sfab_qp_fill(&a);
	memset(&dgid, 0, sizeof(dgid));
	dgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	dgid.global.interface_id = cpu_to_be64(0x5346ab0001000201ULL);
	rdma_ah_set_grh(&a.ah_attr, &dgid, 0x123456, 0, 64, 5);
	am = sfab_qp_cmd_build(&p, 9, &a, IB_QP_STATE | IB_QP_AV,
			       IB_QPS_RTR, 0, 0);
	KUNIT_EXPECT_EQ(test, am, A(STATE) | A(AV) | A(GRH));
	KUNIT_EXPECT_EQ(test, memcmp(p.grh.dgid, dgid.raw, 16), 0);
	/* 20 bits of flow label */
	KUNIT_EXPECT_EQ(test, p.grh.flow_label, 0x23456);
	KUNIT_EXPECT_EQ(test, p.grh.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, p.grh.traffic_class, 5);
	KUNIT_EXPECT_EQ(test, p.grh.sgid_index, 0);
}

/*
 * the command's bytes as the device reads them (contract offsets,
 * little-endian), and nothing left over from the buffer in the reserved
 * bytes
 */
static void sfab_qp_wire(struct kunit *test)
{
	static const u8 want[48] = {
		0x56, 0x34, 0x12, 0x00,		/* qpn */
		0x01, 0x40, 0x00, 0x00,		/* attr_mask: STATE | GRH */
		0x44, 0x33, 0x22, 0x11,		/* qkey */
		0xef, 0xcd, 0xab, 0x00,		/* sq_psn */
		0xba, 0xdc, 0xfe, 0x00,		/* rq_psn */
		0x03, 0x02, 0x01, 0x00,		/* dest_qpn */
		0x00, 0x00, 0x22, 0x01,		/* pkey_index, dlid */
		3, 1, 5, 7,			/* state, port, MTU, SL */
		1, 14, 6, 7,			/* path bits, timeout, retries */
		12, 2, 4, 0,			/* RNR timer, RD atomics */
		0x0a, 0x00, 0x00, 0x00,		/* access_flags */
		0, 0, 0, 0,			/* reserved */
	};
	struct sfab_com_qp_attr a = {
		.qpn = 0x123456, .qkey = 0x11223344,
		.attr_mask = SFAB_QP_ATTR_STATE | SFAB_QP_ATTR_GRH,
		.sq_psn = 0xabcdef, .rq_psn = 0xfedcba, .dest_qpn = 0x10203,
		.pkey_index = 0, .dlid = 0x0122, .state = 3, .port_num = 1,
		.path_mtu = 5, .sl = 7, .src_path_bits = 1, .timeout = 14,
		.retry_cnt = 6, .rnr_retry = 7, .min_rnr_timer = 12,
		.max_rd_atomic = 2, .max_dest_rd_atomic = 4,
		.access_flags = SFAB_ACCESS_REMOTE_WRITE |
				SFAB_ACCESS_REMOTE_ATOMIC,
		.grh = { .flow_label = 0x23456, .sgid_index = 0,
			 .hop_limit = 64, .traffic_class = 5 },
	};
	struct sfab_aq_modify_qp m;
	struct sfab_wqe_grh g;
	const u8 *b = (const u8 *)&g;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sizeof(m), sizeof(want));
	memset(&m, 0xff, sizeof(m));
	sfab_com_modify_qp_encode(&m, &a);
	KUNIT_EXPECT_EQ(test, memcmp(&m, want, sizeof(want)), 0);

	for (i = 0; i < sizeof(a.grh.dgid); i++)
		a.grh.dgid[i] = 0xf0 + i;
	memset(&g, 0xff, sizeof(g));
	sfab_com_grh_encode(&g, &a.grh);
	KUNIT_ASSERT_EQ(test, sizeof(g), 32);
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test, b[i], 0xf0 + i);
	/* flow label, little-endian, then SGID index, hop limit, class */
	KUNIT_EXPECT_EQ(test, b[16], 0x56);
	KUNIT_EXPECT_EQ(test, b[17], 0x34);
	KUNIT_EXPECT_EQ(test, b[18], 0x02);
	KUNIT_EXPECT_EQ(test, b[19], 0x00);
	KUNIT_EXPECT_EQ(test, b[20], 0);
	KUNIT_EXPECT_EQ(test, b[21], 64);
	KUNIT_EXPECT_EQ(test, b[22], 5);
	for (i = 23; i < 32; i++)
		KUNIT_EXPECT_EQ(test, b[i], 0);
}

/* SQD -> SQD applies both RD_ATOMIC fields: the one not given is kept */
static void sfab_qp_rd_atomic_kept(struct kunit *test)
{
	struct sfab_com_qp_attr p;
	struct ib_qp_attr a;

	sfab_qp_fill(&a);
	KUNIT_EXPECT_EQ(test, sfab_qp_cmd_build(&p, 5, &a,
						IB_QP_MAX_DEST_RD_ATOMIC,
						IB_QPS_SQD, 0, 0), A(RD_ATOMIC));
	sfab_qp_keep_rd_atomic(&p, IB_QP_MAX_DEST_RD_ATOMIC, 3, 1);
	KUNIT_EXPECT_EQ(test, p.max_rd_atomic, 3);		/* kept */
	KUNIT_EXPECT_EQ(test, p.max_dest_rd_atomic, 4);
	sfab_qp_cmd_build(&p, 5, &a, IB_QP_MAX_QP_RD_ATOMIC, IB_QPS_SQD,
			  0, 0);
	sfab_qp_keep_rd_atomic(&p, IB_QP_MAX_QP_RD_ATOMIC, 3, 1);
	KUNIT_EXPECT_EQ(test, p.max_rd_atomic, 2);
	KUNIT_EXPECT_EQ(test, p.max_dest_rd_atomic, 1);	/* kept */
	/* without the attribute the command stays as it was */
	sfab_qp_cmd_build(&p, 5, &a, IB_QP_TIMEOUT, IB_QPS_SQD, 0, 0);
	sfab_qp_keep_rd_atomic(&p, IB_QP_TIMEOUT, 3, 1);
	KUNIT_EXPECT_EQ(test, p.max_rd_atomic, 0);
	KUNIT_EXPECT_EQ(test, p.max_dest_rd_atomic, 0);
}

/* SQ_DRAINED reaches the consumer only when RTS -> SQD asked for it */
static void sfab_qp_sqd_event(struct kunit *test)
{
	int m = IB_QP_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY;
	struct ib_qp_attr a;

	sfab_qp_fill(&a);
	a.en_sqd_async_notify = 1;
	KUNIT_EXPECT_TRUE(test, sfab_qp_sqd_notify(IB_QPS_RTS, IB_QPS_SQD, m,
						   &a, false));
	/* the mask bit says the field is valid; the field says yes or no */
	a.en_sqd_async_notify = 0;
	KUNIT_EXPECT_FALSE(test, sfab_qp_sqd_notify(IB_QPS_RTS, IB_QPS_SQD, m,
						    &a, false));
	a.en_sqd_async_notify = 1;
	KUNIT_EXPECT_FALSE(test, sfab_qp_sqd_notify(IB_QPS_RTS, IB_QPS_SQD,
						    IB_QP_STATE, &a, true));
	/* SQD -> SQD keeps it, any way out of SQD ends it */
	KUNIT_EXPECT_TRUE(test, sfab_qp_sqd_notify(IB_QPS_SQD, IB_QPS_SQD,
						   IB_QP_TIMEOUT, &a, true));
	KUNIT_EXPECT_FALSE(test, sfab_qp_sqd_notify(IB_QPS_SQD, IB_QPS_SQD,
						    IB_QP_TIMEOUT, &a, false));
	KUNIT_EXPECT_FALSE(test, sfab_qp_sqd_notify(IB_QPS_SQD, IB_QPS_RTS,
						    IB_QP_STATE, &a, true));
	KUNIT_EXPECT_FALSE(test, sfab_qp_sqd_notify(IB_QPS_SQD, IB_QPS_ERR,
						    IB_QP_STATE, &a, true));
}

/* ---- on a live sfab_0 ------------------------------------------------------ */

struct qp_live {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	atomic_t drained;		/* IB_EVENT_SQ_DRAINED seen */
	atomic_t other;			/* any other event */
	struct completion ev;
};

static void qp_live_event(struct ib_event *ev, void *ctx)
{
	struct qp_live *l = ctx;

	if (ev->event == IB_EVENT_SQ_DRAINED)
		atomic_inc(&l->drained);
	else
		atomic_inc(&l->other);
	complete(&l->ev);
}

static void qp_live_free(void *data)
{
	struct qp_live *l = data;

	if (l->qp)
		ib_destroy_qp(l->qp);
	if (l->cq)
		ib_free_cq(l->cq);
	if (l->pd)
		ib_dealloc_pd(l->pd);
	ib_device_put(l->dev);
}

/* Reset -> Init -> RTR -> RTS, connected to itself (nothing is sent) */
static int qp_live_rts(struct qp_live *l)
{
	return sfab_kunit_rc_rts(l->qp, l->qp->qp_num, 1,
				 IB_ACCESS_REMOTE_WRITE, 0, 0);
}

static void sfab_qp_sqd_live(struct kunit *test)
{
	struct ib_qp_init_attr init = {};
	struct qp_live *l;
	struct ib_qp_attr a;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	init_completion(&l->ev);
	l->dev = ib_device_get_by_name("sfab_0", RDMA_DRIVER_UNKNOWN);
	if (!l->dev)
		kunit_skip(test, "no sfab_0");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qp_live_free, l), 0);
	l->pd = ib_alloc_pd(l->dev, 0);
	if (IS_ERR(l->pd)) {
		KUNIT_FAIL(test, "ib_alloc_pd: %ld", PTR_ERR(l->pd));
		l->pd = NULL;
		return;
	}
	l->cq = ib_alloc_cq(l->dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(l->cq)) {
		KUNIT_FAIL(test, "ib_alloc_cq: %ld", PTR_ERR(l->cq));
		l->cq = NULL;
		return;
	}
	init.event_handler = qp_live_event;
	init.qp_context = l;
	init.send_cq = l->cq;
	init.recv_cq = l->cq;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 4;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	l->qp = ib_create_qp(l->pd, &init);
	if (IS_ERR(l->qp)) {
		KUNIT_FAIL(test, "ib_create_qp: %ld", PTR_ERR(l->qp));
		l->qp = NULL;
		return;
	}
	KUNIT_ASSERT_EQ(test, qp_live_rts(l), 0);

	/* RTS -> SQD with the notification: idle, so drained at once */
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_SQD;
	a.en_sqd_async_notify = 1;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(l->qp, &a, IB_QP_STATE |
					   IB_QP_EN_SQD_ASYNC_NOTIFY), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&l->ev, 5 * HZ), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->drained), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->other), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(l->qp, &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, a.sq_draining, 0);
	KUNIT_EXPECT_EQ(test, a.en_sqd_async_notify, 1);

	/* drained: SQD -> SQD may change the path; no second event */
	memset(&a, 0, sizeof(a));
	a.timeout = 16;
	a.max_dest_rd_atomic = 2;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(l->qp, &a, IB_QP_TIMEOUT |
					   IB_QP_MAX_DEST_RD_ATOMIC), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(l->qp, &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, a.timeout, 16);
	KUNIT_EXPECT_EQ(test, a.max_dest_rd_atomic, 2);
	KUNIT_EXPECT_EQ(test, a.max_rd_atomic, 1);	/* kept */
	/* SQD -> RTR is no transition */
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(l->qp, &a, IB_QP_STATE), -EINVAL);

	/* back to RTS, then SQD without the notification: none comes */
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(l->qp, &a, IB_QP_STATE), 0);
	a.qp_state = IB_QPS_SQD;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(l->qp, &a, IB_QP_STATE), 0);
	msleep(200);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->drained), 1);
	KUNIT_ASSERT_EQ(test, ib_query_qp(l->qp, &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, a.en_sqd_async_notify, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->other), 0);
}

static struct kunit_case sfab_qp_cases[] = {
	KUNIT_CASE(sfab_qp_rc_states),
	KUNIT_CASE(sfab_qp_uc_states),
	KUNIT_CASE(sfab_qp_ud_states),
	KUNIT_CASE(sfab_qp_refused),
	KUNIT_CASE(sfab_qp_retry_kept),
	KUNIT_CASE(sfab_qp_grh),
	KUNIT_CASE(sfab_qp_wire),
	KUNIT_CASE(sfab_qp_rd_atomic_kept),
	KUNIT_CASE(sfab_qp_sqd_event),
	KUNIT_CASE(sfab_qp_sqd_live),
	{}
};

static struct kunit_suite sfab_qp_suite = {
	.name = "sfab_qp",
	.test_cases = sfab_qp_cases,
};

kunit_test_suite(sfab_qp_suite);

/* the MODIFY_QP decisions are sfab.ko's, reached through VISIBLE_IF_KUNIT */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
