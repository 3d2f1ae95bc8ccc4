/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-admin-errors: a CREATE_EQ, CREATE_CQ, CREATE_QP, MODIFY_QP
 * or CREATE_SRQ the engine refuses keeps its status and is said once,
 * under the command's own guest-error site, in words that name the
 * command, the field, the value and the limit (what QEMU logs with
 * -d guest_errors).
 *
 * The expected texts are written out by hand from the test firmware's
 * profile (fake_host.h: max_qp_wr 4096, max_pd 256, max_eq 4).
 */
#include "harness.h"
#include "qp_host.h"
#include "ge_check.h"

/* a host with an EQ and a CQ to build QPs on */
struct ae_env {
	struct fake_host *h;
	struct qh_eq eq;
	struct qh_cq cq;
};

static bool ae_up(struct ae_env *v)
{
	v->h = qh_up();
	return qh_eq_new(v->h, &v->eq, 6, 2) == SFAB_AQ_STS_OK &&
	       qh_cq_new(v->h, &v->cq, 6, v->eq.eqn) == SFAB_AQ_STS_OK;
}

static struct sfab_aq_cmd ae_qp_cmd(struct ae_env *v, struct qh_qp *qp,
				    uint8_t type)
{
	memset(qp, 0, sizeof(*qp));
	qp->type = type;
	qp->sq_log = qp->rq_log = 4;
	qp->sq_slog = 7;
	qp->rq_slog = 6;
	qp->sq = host_alloc(v->h, 128U << 4, 4096);
	qp->rq = host_alloc(v->h, 64U << 4, 4096);
	return qh_create_qp_cmd(qp, v->cq.cqn, v->cq.cqn, 0, SFAB_QP_PRIV);
}

TEST(site_names)
{
	CHECK(!strcmp(sfab_engine_guest_error_site_name(SFAB_GE_EQ_PARAM),
		      "eq-param"));
	CHECK(!strcmp(sfab_engine_guest_error_site_name(SFAB_GE_CQ_PARAM),
		      "cq-param"));
	CHECK(!strcmp(sfab_engine_guest_error_site_name(SFAB_GE_QP_PARAM),
		      "qp-param"));
	CHECK(!strcmp(sfab_engine_guest_error_site_name(SFAB_GE_SRQ_PARAM),
		      "srq-param"));
}

TEST(create_qp)
{
	struct ae_env v;
	struct sfab_aq_cmd c;
	struct qh_qp qp;

	REQUIRE(ae_up(&v));

	/* deeper than any ring */
	c = ae_qp_cmd(&v, &qp, SFAB_QPT_UD);
	c.u.create_qp.sq.log_depth = 16;
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_QP_PARAM, "CREATE_QP: sq.log_depth 16 > 15");

	/* deeper than the firmware's max_qp_wr */
	c = ae_qp_cmd(&v, &qp, SFAB_QPT_UD);
	c.u.create_qp.rq.log_depth = 13;
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_QP_PARAM,
		"CREATE_QP: rq.log_depth 13: 8192 entries > 4096");

	/* a send WQE stride the contract does not have */
	c = ae_qp_cmd(&v, &qp, SFAB_QPT_UD);
	c.u.create_qp.sq.log_stride = 10;
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_QP_PARAM, "CREATE_QP: sq.log_stride 10 not in 6..9");

	c = ae_qp_cmd(&v, &qp, SFAB_QPT_UD);
	c.u.create_qp.pdn = sfab_cpu_to_le32(256);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_QP_PARAM, "CREATE_QP: pdn 256 >= max_pd 256");

	c = ae_qp_cmd(&v, &qp, SFAB_QPT_UD);
	c.u.create_qp.send_cqn = sfab_cpu_to_le32(999);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_QP_PARAM, "CREATE_QP: send_cqn 999: no such CQ");

	/* a kernel QP on a user doorbell page */
	c = ae_qp_cmd(&v, &qp, SFAB_QPT_UD);
	c.u.create_qp.db_page = sfab_cpu_to_le16(3);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_QP_PARAM, "CREATE_QP: flag PRIV with db_page 3 >= 1");

	/* a second QP0: a state refusal, said the same way */
	c = ae_qp_cmd(&v, &qp, SFAB_QPT_SMI);
	c.u.create_qp.port_num = 1;
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_OK);
	c = ae_qp_cmd(&v, &qp, SFAB_QPT_SMI);
	c.u.create_qp.port_num = 1;
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_STATE);
	ge_said(v.h, SFAB_GE_QP_PARAM, "CREATE_QP: qp_type 0: QP0 exists");
	CHECK(!dev_fatal(v.h));
	host_free(v.h);
}

TEST(modify_qp)
{
	struct ae_env v;
	struct sfab_aq_cmd c;
	struct qh_qp qp;
	char want[80];

	REQUIRE(ae_up(&v));
	REQUIRE(qh_qp_new(v.h, &qp, SFAB_QPT_UD, 4, v.cq.cqn, v.cq.cqn) ==
		SFAB_AQ_STS_OK);

	/* Reset -> RTR is no transition */
	ge_mark(v.h);
	CHECK_EQ(qh_modify(v.h, qp.qpn, SFAB_QP_ATTR_STATE, SFAB_QPS_RTR, 0),
		 SFAB_AQ_STS_BAD_STATE);
	snprintf(want, sizeof(want), "MODIFY_QP: QP %u: state 0 -> 2 is no transition",
		 qp.qpn);
	ge_said(v.h, SFAB_GE_QP_PARAM, want);

	/* Reset -> Init of a UD QP without its Q_Key (0x2) */
	ge_mark(v.h);
	CHECK_EQ(qh_modify(v.h, qp.qpn, SFAB_QP_ATTR_STATE |
			   SFAB_QP_ATTR_PKEY_INDEX | SFAB_QP_ATTR_PORT,
			   SFAB_QPS_INIT, 0),
		 SFAB_AQ_STS_BAD_PARAM);
	snprintf(want, sizeof(want), "attr_mask 0xc lacks 0x2");
	ge_said(v.h, SFAB_GE_QP_PARAM, want);

	/* a P_Key index past the table (one block of 32) */
	c = cmd_new(SFAB_AQ_MODIFY_QP);
	c.u.modify_qp.qpn = sfab_cpu_to_le32(qp.qpn);
	c.u.modify_qp.attr_mask = sfab_cpu_to_le32(SFAB_QP_ATTR_STATE |
						   SFAB_QP_ATTR_PKEY_INDEX |
						   SFAB_QP_ATTR_PORT |
						   SFAB_QP_ATTR_QKEY);
	c.u.modify_qp.state = SFAB_QPS_INIT;
	c.u.modify_qp.port_num = 1;
	c.u.modify_qp.pkey_index = sfab_cpu_to_le16(SFAB_PORT_PKEY_TBL_LEN);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	snprintf(want, sizeof(want), "MODIFY_QP: QP %u: pkey_index %u >= %u",
		 qp.qpn, SFAB_PORT_PKEY_TBL_LEN, SFAB_PORT_PKEY_TBL_LEN);
	ge_said(v.h, SFAB_GE_QP_PARAM, want);

	/* and a QP that does not exist */
	ge_mark(v.h);
	CHECK_EQ(qh_modify(v.h, 777, SFAB_QP_ATTR_STATE, SFAB_QPS_INIT, 0),
		 SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_QP_PARAM, "MODIFY_QP: qpn 777: no such QP");
	host_free(v.h);
}

TEST(create_cq)
{
	struct ae_env v;
	struct sfab_aq_cmd c;
	uint64_t ring;

	REQUIRE(ae_up(&v));
	ring = host_alloc(v.h, 32U << 6, 4096);

	c = qh_create_cq_cmd(ring, 6, 63, 0);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_CQ_PARAM, "CREATE_CQ: eqn 63: no such EQ");

	c = qh_create_cq_cmd(ring, 6, v.eq.eqn, 0);
	c.u.create_cq.ring.log_stride = 6;
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_CQ_PARAM, "CREATE_CQ: ring.log_stride 6 not in 5..5");

	c = qh_create_cq_cmd(ring, 6, v.eq.eqn, 512);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_CQ_PARAM, "CREATE_CQ: db_page 512 >= 512");

	/* a contiguous ring not aligned to its entries */
	c = qh_create_cq_cmd(ring + 16, 6, v.eq.eqn, 0);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_CQ_PARAM, "not 32-byte aligned");

	/* a page list of the wrong length: 2^7 CQEs fill one 4 KiB page */
	c = qh_create_cq_cmd(ring, 7, v.eq.eqn, 0);
	c.u.create_cq.ring.flags = 0;
	c.u.create_cq.ring.page_shift = 12;
	c.u.create_cq.ring.npages = sfab_cpu_to_le32(3);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_CQ_PARAM, "CREATE_CQ: ring.npages 3, the ring needs 1");
	host_free(v.h);
}

TEST(create_srq)
{
	struct ae_env v;
	struct sfab_aq_cmd c;
	uint64_t ring;

	REQUIRE(ae_up(&v));
	ring = host_alloc(v.h, 64U << 4, 4096);

	/* the limit event past the ring's 16 entries */
	c = cmd_new(SFAB_AQ_CREATE_SRQ);
	qh_ring_desc(&c.u.create_srq.ring, ring, 4, 6);
	c.u.create_srq.pdn = sfab_cpu_to_le32(1);
	c.u.create_srq.limit = sfab_cpu_to_le32(17);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_SRQ_PARAM, "CREATE_SRQ: limit 17 > 16 entries");

	c.u.create_srq.limit = 0;
	c.u.create_srq.pdn = sfab_cpu_to_le32(300);
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_SRQ_PARAM, "CREATE_SRQ: pdn 300 >= max_pd 256");

	c.u.create_srq.pdn = sfab_cpu_to_le32(1);
	c.u.create_srq.ring.log_stride = 4;
	ge_mark(v.h);
	CHECK_EQ(host_cmd(v.h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(v.h, SFAB_GE_SRQ_PARAM, "CREATE_SRQ: ring.log_stride 4 not in 5..9");
	host_free(v.h);
}

TEST(create_eq)
{
	struct fake_host *h = qh_up();
	uint64_t ring = host_alloc(h, 4096, 4096);
	struct sfab_aq_cmd c;
	struct qh_eq eq;
	unsigned int i;

	c = cmd_create_eq(ring, 1, 2);
	ge_mark(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, SFAB_GE_EQ_PARAM, "CREATE_EQ: log_depth 1 not in 2..15");

	/* deeper than a ring (sfab_ring.h): refused, since EQs are rings */
	c = cmd_create_eq(ring, 16, 2);
	ge_mark(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, SFAB_GE_EQ_PARAM, "CREATE_EQ: log_depth 16 not in 2..15");

	c = cmd_create_eq(0xfffffffffffff000ULL, 15, 2);
	ge_mark(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, SFAB_GE_EQ_PARAM,
		"CREATE_EQ: ring_addr 0xfffffffffffff000: 2^15 entries wrap");

	c = cmd_create_eq(ring + 64, 4, 2);
	ge_mark(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, SFAB_GE_EQ_PARAM, "CREATE_EQ: ring_addr 0x");
	CHECK(strstr(h->last_error, "not 4096-byte aligned"));

	/* vectors 0 and 1 are the admin queue's and the AENQ's; the host has 34 */
	c = cmd_create_eq(ring, 4, 1);
	ge_mark(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	ge_said(h, SFAB_GE_EQ_PARAM, "CREATE_EQ: msix_vector 1 not in 2..33");

	/* the firmware's max_eq is 4 */
	for (i = 0; i < 4; i++)
		REQUIRE(qh_eq_new(h, &eq, 2, 2) == SFAB_AQ_STS_OK);
	c = cmd_create_eq(ring, 4, 2);
	ge_mark(h);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_RESOURCES);
	ge_said(h, SFAB_GE_EQ_PARAM, "CREATE_EQ: 4 EQs exist, max_eq 4");
	host_free(h);
}
