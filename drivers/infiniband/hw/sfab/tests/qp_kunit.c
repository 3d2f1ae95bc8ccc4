// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the QP state table as sfab_modify_qp() applies it.  For RC, UC
 * and UD, the transitions ib_core's table allows with the attributes the
 * device needs (ib_modify_qp_is_ok()) and the MODIFY_QP command each one
 * becomes (sfab_qp_cmd_build()): which contract attributes, with which
 * values; transitions the table refuses; attributes the device cannot
 * take.
 */
#include <kunit/test.h>

#include "../sfab_wqe.h"

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
	struct sfab_aq_modify_qp p;
	struct sfab_wqe_grh grh;
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
		am = sfab_qp_cmd_build(&p, &grh, 77, &a, s->mask, s->next, 1, 2);
		KUNIT_EXPECT_EQ_MSG(test, am, s->want, "type %d step %u", type, i);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(p.attr_mask), am);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(p.qpn), 77);
		if (am & A(STATE))
			KUNIT_EXPECT_EQ(test, p.state, (u8)s->next);
		if (am & A(DEST_QPN))
			KUNIT_EXPECT_EQ(test, le32_to_cpu(p.dest_qpn), 0x123456);
		if (am & A(RQ_PSN))
			KUNIT_EXPECT_EQ(test, le32_to_cpu(p.rq_psn), 0xfedcba);
		if (am & A(SQ_PSN))
			KUNIT_EXPECT_EQ(test, le32_to_cpu(p.sq_psn), 0xabcdef);
		if (am & A(AV)) {
			KUNIT_EXPECT_EQ(test, le16_to_cpu(p.dlid), 0x22);
			KUNIT_EXPECT_EQ(test, p.sl, 3);
		}
		if (am & A(PATH_MTU))
			KUNIT_EXPECT_EQ(test, p.path_mtu, (u8)IB_MTU_4096);
		if (am & A(ACCESS))
			/* remote rights only: local write is the MRs' business */
			KUNIT_EXPECT_EQ(test, le32_to_cpu(p.access_flags),
					SFAB_ACCESS_REMOTE_WRITE |
					SFAB_ACCESS_REMOTE_READ);
		if (am & A(RETRY)) {
			KUNIT_EXPECT_EQ(test, p.retry_cnt, 6);
			KUNIT_EXPECT_EQ(test, p.rnr_retry, 7);
		}
		if (am & A(QKEY))
			KUNIT_EXPECT_EQ(test, le32_to_cpu(p.qkey), 0x11111111);
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
	/* alternate paths and SQD notification: -EOPNOTSUPP in the driver */
	KUNIT_EXPECT_TRUE(test, IB_QP_ALT_PATH & SFAB_QP_ATTR_UNSUPPORTED);
	KUNIT_EXPECT_TRUE(test, IB_QP_EN_SQD_ASYNC_NOTIFY & SFAB_QP_ATTR_UNSUPPORTED);
	KUNIT_EXPECT_TRUE(test, IB_QP_PATH_MIG_STATE & SFAB_QP_ATTR_UNSUPPORTED);
}

/* retry_cnt and rnr_retry share one contract attribute */
static void sfab_qp_retry_kept(struct kunit *test)
{
	struct sfab_aq_modify_qp p;
	struct sfab_wqe_grh grh;
	struct ib_qp_attr a;

	sfab_qp_fill(&a);
	KUNIT_EXPECT_EQ(test, sfab_qp_cmd_build(&p, &grh, 5, &a, IB_QP_RETRY_CNT,
						IB_QPS_RTS, 3, 4), A(RETRY));
	KUNIT_EXPECT_EQ(test, p.retry_cnt, 6);
	KUNIT_EXPECT_EQ(test, p.rnr_retry, 4);	/* kept */
	KUNIT_EXPECT_EQ(test, sfab_qp_cmd_build(&p, &grh, 5, &a, IB_QP_RNR_RETRY,
						IB_QPS_RTS, 3, 4), A(RETRY));
	KUNIT_EXPECT_EQ(test, p.retry_cnt, 3);	/* kept */
	KUNIT_EXPECT_EQ(test, p.rnr_retry, 7);
}

/* an address vector with a GRH carries it in the GRH block */
static void sfab_qp_grh(struct kunit *test)
{
	struct sfab_aq_modify_qp p;
	struct sfab_wqe_grh grh;
	struct ib_qp_attr a;
	union ib_gid dgid;
	u32 am;

	sfab_qp_fill(&a);
	memset(&dgid, 0, sizeof(dgid));
	dgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	dgid.global.interface_id = cpu_to_be64(0x5346ab0001000201ULL);
	rdma_ah_set_grh(&a.ah_attr, &dgid, 0x123456, 0, 64, 5);
	am = sfab_qp_cmd_build(&p, &grh, 9, &a, IB_QP_STATE | IB_QP_AV,
			       IB_QPS_RTR, 0, 0);
	KUNIT_EXPECT_EQ(test, am, A(STATE) | A(AV) | A(GRH));
	KUNIT_EXPECT_EQ(test, memcmp(grh.dgid, dgid.raw, 16), 0);
	/* 20 bits of flow label */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(grh.flow_label), 0x23456);
	KUNIT_EXPECT_EQ(test, grh.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, grh.traffic_class, 5);
	KUNIT_EXPECT_EQ(test, grh.sgid_index, 0);
}

static struct kunit_case sfab_qp_cases[] = {
	KUNIT_CASE(sfab_qp_rc_states),
	KUNIT_CASE(sfab_qp_uc_states),
	KUNIT_CASE(sfab_qp_ud_states),
	KUNIT_CASE(sfab_qp_refused),
	KUNIT_CASE(sfab_qp_retry_kept),
	KUNIT_CASE(sfab_qp_grh),
	{}
};

static struct kunit_suite sfab_qp_suite = {
	.name = "sfab_qp",
	.test_cases = sfab_qp_cases,
};

kunit_test_suite(sfab_qp_suite);
