/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-tables: the engine's QP, CQ, MR and SRQ tables as struct
 * sfab_engine_config sizes them (sfab-hca's max-qps .. max-srqs): the
 * range init accepts, what QUERY_DEVICE reports, the create beyond a
 * table refused, numbers within it, lookups, walks and reset bounded by
 * it (ASan catches a step past a table's end).
 */
#include "harness.h"
#include "qp_host.h"

static const struct sfab_engine_config small = {
	.max_qp = 8, .max_cq = 4, .max_mr = 3, .max_srq = 2,
};

/* a host whose engine has @cfg's tables, firmware (@p) and INIT_HCA done */
static struct fake_host *tables_up(const struct sfab_engine_config *cfg,
				   const struct sfab_fw_profile *p)
{
	struct fake_host *h = host_new_cfg(cfg);
	struct sfab_aq_cmd c = cmd_init_hca(12);

	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	host_setup_aq(h, 5);
	host_setup_aenq(h, 6);
	CHECK_EQ(host_fw_load_kind(h, FW_GOOD, p), SFAB_AQ_STS_OK);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	return h;
}

/* a profile that allows more than any table */
static void profile_huge(struct sfab_fw_profile *p)
{
	fw_profile_default(p);
	p->max_qp = sfab_cpu_to_le32(100000);
	p->max_cq = sfab_cpu_to_le32(100000);
	p->max_mr = sfab_cpu_to_le32(100000);
	p->max_srq = sfab_cpu_to_le32(100000);
}

static int no_dma(void *opaque, uint64_t addr, void *buf, size_t len)
{
	(void)opaque, (void)addr, (void)buf, (void)len;
	return -1;
}

static int no_dma_write(void *opaque, uint64_t addr, const void *buf,
			size_t len)
{
	(void)opaque, (void)addr, (void)buf, (void)len;
	return -1;
}

/* an engine with no host at all: nothing runs but init and cleanup */
static const struct sfab_engine_ops bare_ops = {
	.dma_read = no_dma,
	.dma_write = no_dma_write,
};

static int init_with(uint32_t qp, uint32_t cq, uint32_t mr, uint32_t srq)
{
	struct sfab_engine_config cfg = {
		.max_qp = qp, .max_cq = cq, .max_mr = mr, .max_srq = srq,
	};
	struct sfab_engine *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		abort();
	ret = sfab_engine_init(e, &bare_ops, NULL, HOST_NODE_GUID, HOST_NVEC,
			       &cfg);
	/* a refused config leaves no table behind */
	if (ret)
		CHECK(!e->qp && !e->cq && !e->mr && !e->srq && !e->fw_buf);
	sfab_engine_cleanup(e);
	free(e);
	return ret;
}

TEST(config_range)
{
	/* the least and the most of each */
	CHECK_EQ(init_with(2, 1, 0, 0), 0);
	CHECK_EQ(init_with(16384, 16384, 65536, 1024), 0);
	/* one past either end */
	CHECK_EQ(init_with(1, 1, 0, 0), -1);
	CHECK_EQ(init_with(16385, 1, 0, 0), -1);
	CHECK_EQ(init_with(2, 0, 0, 0), -1);
	CHECK_EQ(init_with(2, 16385, 0, 0), -1);
	CHECK_EQ(init_with(2, 1, 65537, 0), -1);
	CHECK_EQ(init_with(2, 1, 0, 1025), -1);
	CHECK(!sfab_engine_config_valid(&(struct sfab_engine_config){
		.max_qp = 0, .max_cq = 16384, .max_mr = 1, .max_srq = 1 }));
	CHECK(sfab_engine_config_valid(&small));
}

TEST(default_tables)
{
	struct sfab_fw_profile p;
	struct sfab_dev_attr a;
	struct fake_host *h;

	/* NULL: the sizes the engine always had */
	profile_huge(&p);
	h = tables_up(NULL, &p);
	CHECK_EQ(h->e->cfg.max_qp, 16384);
	CHECK_EQ(h->e->cfg.max_cq, 16384);
	CHECK_EQ(h->e->cfg.max_mr, 65536);
	CHECK_EQ(h->e->cfg.max_srq, 1024);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp), 16384);
	CHECK_EQ(sfab_le32_to_cpu(a.max_cq), 16384);
	CHECK_EQ(sfab_le32_to_cpu(a.max_mr), 65536);
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq), 1024);
	host_free(h);
}

TEST(query_device_reports_tables)
{
	struct sfab_fw_profile p;
	struct sfab_dev_attr a;
	struct fake_host *h;

	/* the profile allows 1024 QPs, 2048 CQs, 4096 MRs, 128 SRQs */
	h = tables_up(&small, NULL);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp), 8);
	CHECK_EQ(sfab_le32_to_cpu(a.max_cq), 4);
	CHECK_EQ(sfab_le32_to_cpu(a.max_mr), 3);
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq), 2);
	/* SRQs there: their depth and SGEs are the profile's */
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq_wr), 4096);
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq_sge), 16);
	host_free(h);

	/* a profile below the table wins */
	fw_profile_default(&p);
	p.max_qp = sfab_cpu_to_le32(5);
	p.max_cq = sfab_cpu_to_le32(2);
	h = tables_up(&small, &p);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp), 5);
	CHECK_EQ(sfab_le32_to_cpu(a.max_cq), 2);
	CHECK_EQ(sfab_le32_to_cpu(a.max_mr), 3);
	host_free(h);
}

TEST(ninth_qp_refused)
{
	struct fake_host *h = tables_up(&small, NULL);
	struct qh_qp qp[8], extra;
	unsigned int seen = 0, i;
	struct qh_eq eq;
	struct qh_cq cq;

	REQUIRE(qh_eq_new(h, &eq, 4, SFAB_MSIX_FIRST_COMP) == SFAB_AQ_STS_OK);
	REQUIRE(qh_cq_new(h, &cq, 6, eq.eqn) == SFAB_AQ_STS_OK);
	CHECK(cq.cqn < 4);
	/* QPNs 0 and 1 are QP0's and QP1's: six others fit in eight */
	for (i = 0; i < 6; i++) {
		CHECK_EQ(qh_qp_new(h, &qp[2 + i], SFAB_QPT_UD, 4, cq.cqn, cq.cqn),
			 SFAB_AQ_STS_OK);
		CHECK(qp[2 + i].qpn >= 2 && qp[2 + i].qpn < 8);
		seen |= 1U << (qp[2 + i].qpn & 31);
	}
	CHECK_EQ(seen, 0xfc);		/* 2..7, each once */
	CHECK_EQ(qh_qp_new(h, &extra, SFAB_QPT_UD, 4, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_NO_RESOURCES);
	CHECK_EQ(qh_qp_new(h, &qp[0], SFAB_QPT_SMI, 4, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_OK);
	CHECK_EQ(qp[0].qpn, 0);
	CHECK_EQ(qh_qp_new(h, &qp[1], SFAB_QPT_GSI, 4, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_OK);
	CHECK_EQ(qp[1].qpn, 1);
	CHECK_EQ(h->e->num_qp, 8);
	/* the ninth, of any type */
	CHECK_EQ(qh_qp_new(h, &extra, SFAB_QPT_UD, 4, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_NO_RESOURCES);
	CHECK_EQ(qh_qp_new(h, &extra, SFAB_QPT_RC, 4, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_NO_RESOURCES);
	/* a freed QPN is the only one to give */
	{
		struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_QP);

		c.u.destroy_qp.qpn = sfab_cpu_to_le32(5);
		CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	}
	CHECK_EQ(qh_qp_new(h, &extra, SFAB_QPT_UD, 4, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_OK);
	CHECK_EQ(extra.qpn, 5);
	host_free(h);
}

TEST(cq_mr_srq_tables)
{
	struct fake_host *h = tables_up(&small, NULL);
	uint64_t buf = host_alloc(h, 4096, 4096);
	uint32_t key[3], extra, i;
	struct qh_srq srq[3];
	struct qh_cq cq[5];
	struct qh_eq eq;

	REQUIRE(qh_eq_new(h, &eq, 4, SFAB_MSIX_FIRST_COMP) == SFAB_AQ_STS_OK);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(qh_cq_new(h, &cq[i], 2, eq.eqn), SFAB_AQ_STS_OK);
		CHECK_EQ(cq[i].cqn, i);
	}
	CHECK_EQ(qh_cq_new(h, &cq[4], 2, eq.eqn), SFAB_AQ_STS_NO_RESOURCES);

	/* MR key indices 1..3 */
	for (i = 0; i < 3; i++) {
		CHECK_EQ(qh_mr_contig(h, buf, 4096, 1, SFAB_ACCESS_LOCAL_WRITE,
				      &key[i]), SFAB_AQ_STS_OK);
		CHECK_EQ(key[i] >> SFAB_MR_KEY_INDEX_SHIFT, i + 1);
	}
	CHECK_EQ(qh_mr_contig(h, buf, 4096, 1, SFAB_ACCESS_LOCAL_WRITE, &extra),
		 SFAB_AQ_STS_NO_RESOURCES);
	CHECK_EQ(qh_mr_destroy(h, key[1]), SFAB_AQ_STS_OK);
	CHECK_EQ(qh_mr_contig(h, buf, 4096, 1, SFAB_ACCESS_LOCAL_WRITE, &extra),
		 SFAB_AQ_STS_OK);
	CHECK_EQ(extra >> SFAB_MR_KEY_INDEX_SHIFT, 2);
	/* a key whose index is past the table names no MR */
	CHECK_EQ(qh_mr_destroy(h, 4U << SFAB_MR_KEY_INDEX_SHIFT),
		 SFAB_AQ_STS_BAD_PARAM);

	for (i = 0; i < 2; i++) {
		CHECK_EQ(qh_srq_new(h, &srq[i], 4, 1, 0), SFAB_AQ_STS_OK);
		CHECK_EQ(srq[i].srqn, i);
	}
	CHECK_EQ(qh_srq_new(h, &srq[2], 4, 1, 0), SFAB_AQ_STS_NO_RESOURCES);
	host_free(h);
}

/* doorbells and commands that name numbers past the tables */
TEST(numbers_past_tables)
{
	struct fake_host *h = tables_up(&small, NULL);
	unsigned long ignored = h->e->stats.db_ignored;
	unsigned long sites = h->guest_error_sites[SFAB_GE_DB_OBJECT];
	struct sfab_aq_cmd c;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp;

	REQUIRE(qh_eq_new(h, &eq, 4, SFAB_MSIX_FIRST_COMP) == SFAB_AQ_STS_OK);
	REQUIRE(qh_cq_new(h, &cq, 4, eq.eqn) == SFAB_AQ_STS_OK);
	REQUIRE(qh_qp_new(h, &qp, SFAB_QPT_UD, 4, cq.cqn, cq.cqn) ==
		SFAB_AQ_STS_OK);
	sfab_engine_db_write(h->e, SFAB_DB_SQ, sfab_db_val(8, 1, 0), 8,
			     SFAB_DB_SRC_CPU);
	sfab_engine_db_write(h->e, SFAB_DB_RQ, sfab_db_val(16383, 1, 0), 8,
			     SFAB_DB_SRC_CPU);
	sfab_engine_db_write(h->e, SFAB_DB_CQ, sfab_db_val(4, 0, 0), 8,
			     SFAB_DB_SRC_CPU);
	sfab_engine_db_write(h->e, SFAB_DB_SRQ, sfab_db_val(2, 1, 0), 8,
			     SFAB_DB_SRC_CPU);
	host_run(h);
	CHECK_EQ(h->e->stats.db_ignored - ignored, 4);
	CHECK_EQ(h->guest_error_sites[SFAB_GE_DB_OBJECT] - sites, 4);

	c = cmd_new(SFAB_AQ_DESTROY_QP);
	c.u.destroy_qp.qpn = sfab_cpu_to_le32(8);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_new(SFAB_AQ_DESTROY_CQ);
	c.u.destroy_cq.cqn = sfab_cpu_to_le32(4);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_new(SFAB_AQ_DESTROY_SRQ);
	c.u.destroy_srq.srqn = sfab_cpu_to_le32(2);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);

	/* the walks over whole tables: the RC timer, DESTROY_EQ, teardown */
	h->e->rc_timer_at = 1;
	sfab_engine_qp_timer(h->e);
	CHECK_EQ(h->e->rc_timer_at, 0);
	c = cmd_destroy_eq(eq.eqn);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_STATE);	/* CQ on it */
	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(h->e->num_qp, 0);
	CHECK_EQ(h->e->num_cq, 0);
	host_free(h);
}

TEST(reset_empties_tables)
{
	struct fake_host *h = tables_up(&small, NULL);
	struct sfab_aq_cmd c;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp;
	unsigned int round, i;

	for (round = 0; round < 2; round++) {
		REQUIRE(qh_eq_new(h, &eq, 4, SFAB_MSIX_FIRST_COMP) ==
			SFAB_AQ_STS_OK);
		REQUIRE(qh_cq_new(h, &cq, 4, eq.eqn) == SFAB_AQ_STS_OK);
		for (i = 0; i < 6; i++) {
			CHECK_EQ(qh_qp_new(h, &qp, SFAB_QPT_UD, 2, cq.cqn,
					   cq.cqn), SFAB_AQ_STS_OK);
			CHECK(qp.qpn >= 2 && qp.qpn < 8);
		}
		CHECK_EQ(qh_qp_new(h, &qp, SFAB_QPT_UD, 2, cq.cqn, cq.cqn),
			 SFAB_AQ_STS_NO_RESOURCES);
		/* a function reset, and the bring-up again */
		wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
		CHECK_EQ(h->e->num_qp, 0);
		for (i = 0; i < 8; i++)
			CHECK(!h->e->qp[i].valid);
		for (i = 0; i < 4; i++)
			CHECK(!h->e->cq[i].valid);
		host_setup_aq(h, 5);
		host_setup_aenq(h, 6);
		CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
		c = cmd_init_hca(12);
		CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	}
	host_free(h);
}

TEST(smallest_device)
{
	static const struct sfab_engine_config least = {
		.max_qp = 2, .max_cq = 1, .max_mr = 0, .max_srq = 0,
	};
	struct fake_host *h = tables_up(&least, NULL);
	uint64_t buf = host_alloc(h, 4096, 4096);
	struct sfab_dev_attr a;
	struct qh_srq srq;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp;
	uint32_t key;

	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_le32_to_cpu(a.max_qp), 2);
	CHECK_EQ(sfab_le32_to_cpu(a.max_cq), 1);
	CHECK_EQ(sfab_le32_to_cpu(a.max_mr), 0);
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq), 0);
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq_wr), 0);
	CHECK_EQ(sfab_le32_to_cpu(a.max_srq_sge), 0);
	REQUIRE(qh_eq_new(h, &eq, 4, SFAB_MSIX_FIRST_COMP) == SFAB_AQ_STS_OK);
	REQUIRE(qh_cq_new(h, &cq, 4, eq.eqn) == SFAB_AQ_STS_OK);
	/* QP0 and QP1 on the one CQ, nothing else */
	CHECK_EQ(qh_qp_new(h, &qp, SFAB_QPT_UD, 2, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_NO_RESOURCES);
	CHECK_EQ(qh_qp_new(h, &qp, SFAB_QPT_SMI, 2, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_OK);
	CHECK_EQ(qh_qp_new(h, &qp, SFAB_QPT_GSI, 2, cq.cqn, cq.cqn),
		 SFAB_AQ_STS_OK);
	CHECK_EQ(qh_cq_new(h, &cq, 4, eq.eqn), SFAB_AQ_STS_NO_RESOURCES);
	CHECK_EQ(qh_mr_contig(h, buf, 4096, 1, SFAB_ACCESS_LOCAL_WRITE, &key),
		 SFAB_AQ_STS_NO_RESOURCES);
	CHECK_EQ(qh_srq_new(h, &srq, 4, 1, 0), SFAB_AQ_STS_NO_RESOURCES);
	host_free(h);
}
