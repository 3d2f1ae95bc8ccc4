/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-eq: CREATE_EQ / DESTROY_EQ, their parameters and limits.
 */
#include "harness.h"
#include "fake_host.h"

static struct fake_host *host_ready(const struct sfab_fw_profile *p)
{
	struct fake_host *h = host_up(5);
	struct sfab_aq_cmd c = cmd_init_hca(12);

	/* the bring-up every case here starts from */
	CHECK_EQ(host_fw_load_kind(h, FW_GOOD, p), SFAB_AQ_STS_OK);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	return h;
}

/* create an EQ; returns the status, *eqn the number */
static int create_eq(struct fake_host *h, uint64_t ring, uint8_t log,
		     uint16_t vec, uint32_t *eqn)
{
	struct sfab_aq_cmd c = cmd_create_eq(ring, log, vec);
	struct sfab_acq_entry cpl;
	int st = host_cmd_full(h, &c, &cpl);

	if (eqn)
		*eqn = sfab_le32_to_cpu(cpl.result0);
	return st;
}

static int destroy_eq(struct fake_host *h, uint32_t eqn)
{
	struct sfab_aq_cmd c = cmd_destroy_eq(eqn);

	return host_cmd(h, &c);
}

TEST(create_and_destroy)
{
	struct fake_host *h = host_ready(NULL);
	uint64_t ring = host_alloc(h, 8 << 10, 4096);
	uint32_t a, b;

	CHECK_EQ(create_eq(h, ring, 10, SFAB_MSIX_FIRST_COMP, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 2, HOST_NVEC - 1, &b), SFAB_AQ_STS_OK);
	CHECK(a != b);
	CHECK(a < SFAB_ENGINE_MAX_EQ && b < SFAB_ENGINE_MAX_EQ);
	CHECK_EQ(h->e->num_eq, 2);
	CHECK(h->e->eq[a].valid);
	CHECK_EQ(h->e->eq[a].vector, SFAB_MSIX_FIRST_COMP);
	CHECK_EQ(h->e->eq[a].log_depth, 10);
	CHECK_EQ(destroy_eq(h, a), SFAB_AQ_STS_OK);
	CHECK_EQ(destroy_eq(h, a), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(destroy_eq(h, b), SFAB_AQ_STS_OK);
	CHECK_EQ(h->e->num_eq, 0);
	/* largest depth */
	CHECK_EQ(create_eq(h, ring, SFAB_EQ_MAX_LOG_DEPTH, 3, &a), SFAB_AQ_STS_OK);
	host_free(h);
}

TEST(create_bad_params)
{
	struct fake_host *h = host_ready(NULL);
	uint64_t ring = host_alloc(h, 4096, 4096);
	struct sfab_aq_cmd c;

	CHECK_EQ(create_eq(h, ring, SFAB_EQ_MIN_LOG_DEPTH - 1, 2, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring, SFAB_EQ_MAX_LOG_DEPTH + 1, 2, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring, 255, 2, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring + 64, 4, 2, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, 0, 4, 2, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, 0xfffffffffffff000ULL, 16, 2, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring, 4, SFAB_MSIX_ADMIN, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring, 4, SFAB_MSIX_AENQ, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring, 4, HOST_NVEC, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring, 4, 0xffff, NULL), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_create_eq(ring, 4, 2);
	c.u.create_eq.reserved0 = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_create_eq(ring, 4, 2);
	c.u.create_eq.reserved1 = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_create_eq(ring, 4, 2);
	c.u.raw[30] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(h->e->num_eq, 0);
	CHECK(!dev_fatal(h));
	host_free(h);
}

/*
 * An EQ is a ring like the others (sfab_ring.h): at most 2^15 entries,
 * since the EQ doorbell's 16-bit consumer index could not tell a full
 * ring of 2^16 from an empty one.
 */
TEST(depth_is_the_ring_rule)
{
	struct fake_host *h = host_ready(NULL);
	uint64_t ring = host_alloc(h, sizeof(struct sfab_eqe) << 15, 4096);
	uint32_t a, b;

	CHECK_EQ(SFAB_EQ_MIN_LOG_DEPTH, 2);
	CHECK_EQ(SFAB_EQ_MAX_LOG_DEPTH, 15);
	CHECK_EQ(SFAB_EQ_MAX_LOG_DEPTH, SFAB_RING_MAX_LOG_DEPTH);

	CHECK_EQ(create_eq(h, ring, 16, 2, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring, 1, 2, NULL), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(h->e->num_eq, 0);
	/* the deepest, at the top of the address space: it would wrap */
	CHECK_EQ(create_eq(h, 0xfffffffffffff000ULL, 15, 2, NULL),
		 SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(h->e->num_eq, 0);

	CHECK_EQ(create_eq(h, ring, 15, 2, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 2, 3, &b), SFAB_AQ_STS_OK);
	CHECK(a < SFAB_ENGINE_MAX_EQ && b < SFAB_ENGINE_MAX_EQ && a != b);
	CHECK_EQ(h->e->eq[a].log_depth, 15);
	CHECK_EQ(h->e->eq[b].log_depth, 2);
	CHECK_EQ(h->e->num_eq, 2);
	CHECK(!dev_fatal(h));
	host_free(h);
}

TEST(destroy_bad_params)
{
	struct fake_host *h = host_ready(NULL);
	uint64_t ring = host_alloc(h, 4096, 4096);
	struct sfab_aq_cmd c;
	uint32_t eqn;

	CHECK_EQ(destroy_eq(h, 0), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(destroy_eq(h, SFAB_ENGINE_MAX_EQ), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(destroy_eq(h, 0xffffffffU), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(create_eq(h, ring, 4, 2, &eqn), SFAB_AQ_STS_OK);
	c = cmd_destroy_eq(eqn);
	c.u.destroy_eq.reserved = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_destroy_eq(eqn);
	c.u.raw[9] = 1;
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(h->e->num_eq, 1);
	CHECK_EQ(destroy_eq(h, eqn), SFAB_AQ_STS_OK);
	host_free(h);
}

TEST(limit_from_profile)
{
	struct fake_host *h = host_ready(NULL);
	uint64_t ring = host_alloc(h, 4096, 4096);
	uint32_t eqn[FW_TEST_MAX_EQ], extra;
	unsigned int i;

	for (i = 0; i < FW_TEST_MAX_EQ; i++)
		CHECK_EQ(create_eq(h, ring, 4, 2 + i, &eqn[i]), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 4, 2, &extra), SFAB_AQ_STS_NO_RESOURCES);
	/* a freed number is handed out again */
	CHECK_EQ(destroy_eq(h, eqn[1]), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 4, 2, &extra), SFAB_AQ_STS_OK);
	CHECK_EQ(extra, eqn[1]);
	CHECK_EQ(create_eq(h, ring, 4, 2, NULL), SFAB_AQ_STS_NO_RESOURCES);
	host_free(h);
}

TEST(limit_capped_by_engine)
{
	struct sfab_fw_profile p;
	struct fake_host *h;
	struct sfab_dev_attr a;
	uint64_t ring;
	unsigned int i;

	fw_profile_default(&p);
	p.max_eq = sfab_cpu_to_le32(100000);
	h = host_ready(&p);
	ring = host_alloc(h, 4096, 4096);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_le32_to_cpu(a.max_eq), SFAB_ENGINE_MAX_EQ);
	for (i = 0; i < SFAB_ENGINE_MAX_EQ; i++)
		CHECK_EQ(create_eq(h, ring, 4, 2 + i % (HOST_NVEC - 2), NULL), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 4, 2, NULL), SFAB_AQ_STS_NO_RESOURCES);
	CHECK_EQ(h->e->num_eq, SFAB_ENGINE_MAX_EQ);
	host_free(h);
}

TEST(needs_init_hca_and_teardown_frees)
{
	struct fake_host *h = host_up(4);
	uint64_t ring = host_alloc(h, 4096, 4096);
	struct sfab_aq_cmd c;
	uint32_t eqn;

	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 4, 2, NULL), SFAB_AQ_STS_BAD_STATE);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 4, 2, &eqn), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 4, 3, NULL), SFAB_AQ_STS_OK);
	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(h->e->num_eq, 0);
	CHECK_EQ(destroy_eq(h, eqn), SFAB_AQ_STS_BAD_PARAM);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
	CHECK_EQ(create_eq(h, ring, 4, 2, NULL), SFAB_AQ_STS_OK);
	/* and a reset frees everything too */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(h->e->num_eq, 0);
	host_free(h);
}
