/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-mr-budget: what CREATE_MR costs the device counts against the
 * admin work budget of one sfab_engine_process() (SFAB_ENGINE_WORK_BYTES),
 * as firmware downloads do.  A ring of four 1 GiB registrations (2 MiB
 * page lists) is not read in one call: one call reads at most the budget
 * plus the command that crosses it.  Finding room in a pool the host has
 * fragmented (thousands of one-page holes, none fitting) is paid for the
 * same way: a ring of such commands takes several calls.  Every command
 * completes in the end, first fit (the lowest free offset that fits), the
 * page lists copied.
 */
#include "harness.h"
#include "qp_host.h"

#define PD		1
#define BIG_PAGES	(1U << 18)		/* 1 GiB of 4 KiB pages */
#define MAX_MR		16384

static uint64_t dma_read_bytes;

static int count_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	dma_read_bytes += len;
	return fh_dma_read(opaque, addr, buf, len);
}

static struct sfab_engine_ops counting_ops;

/* a host with an admin ring of 2^@aq_log, firmware allowing @max_mr MRs */
static struct fake_host *mr_host(unsigned int aq_log, uint32_t max_mr)
{
	struct fake_host *h = host_up(aq_log);
	struct sfab_fw_profile p;
	struct sfab_aq_cmd c;

	host_setup_aenq(h, 6);
	fw_profile_default(&p);
	p.max_mr = sfab_cpu_to_le32(max_mr);
	if (host_fw_load_kind(h, FW_GOOD, &p) != SFAB_AQ_STS_OK)
		fprintf(stderr, "mr host: firmware load failed\n");
	c = cmd_init_hca(12);
	if (host_cmd(h, &c) != SFAB_AQ_STS_OK)
		fprintf(stderr, "mr host: INIT_HCA failed\n");
	counting_ops = fh_ops;
	counting_ops.dma_read = count_dma_read;
	h->e->ops = &counting_ops;
	return h;
}

static struct sfab_aq_cmd create_cmd(uint64_t pbl, uint32_t npages)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_MR);

	c.u.create_mr.length = sfab_cpu_to_le64((uint64_t)npages << 12);
	c.u.create_mr.pbl_addr = sfab_cpu_to_le64(pbl);
	c.u.create_mr.npages = sfab_cpu_to_le32(npages);
	c.u.create_mr.pdn = sfab_cpu_to_le32(PD);
	c.u.create_mr.page_shift = 12;
	return c;
}

/* ring the AQ doorbell without the fake host's run-until-idle */
static void aq_ring(struct fake_host *h)
{
	sfab_engine_reg_write(h->e, SFAB_REG_AQ_DB, h->aq_tail);
}

/* run sfab_engine_process() until idle; the most commands one call did */
static unsigned int run_counting(struct fake_host *h, unsigned int *calls)
{
	unsigned int most = 0, done;

	*calls = 0;
	while (sfab_engine_work_pending(h->e) && *calls < 100000) {
		done = sfab_engine_process(h->e);
		if (done > most)
			most = done;
		(*calls)++;
	}
	return most;
}

/*
 * Four CREATE_MRs of 2^18 pages each (the pool holds exactly four): one
 * process() call reads at most SFAB_ENGINE_WORK_BYTES of page lists plus
 * the one command that crosses it.
 */
TEST(page_lists_per_process_call)
{
	struct fake_host *h = mr_host(5, 4096);
	uint64_t pbl, page, before;
	struct sfab_acq_entry cpl;
	struct sfab_aq_cmd c;
	unsigned int i, done, calls = 0, total = 0;

	page = host_alloc(h, 4096, 4096);
	pbl = host_alloc(h, (size_t)BIG_PAGES * 8, 4096);
	for (i = 0; i < BIG_PAGES; i++) {
		uint64_t v = sfab_cpu_to_le64(page);

		memcpy(hp(h, pbl + (uint64_t)i * 8), &v, 8);
	}
	for (i = 0; i < 4; i++) {
		c = create_cmd(pbl, BIG_PAGES);
		host_post(h, &c);
	}
	aq_ring(h);
	while (sfab_engine_work_pending(h->e) && calls < 100) {
		before = dma_read_bytes;
		done = sfab_engine_process(h->e);
		total += done;
		calls++;
		CHECK(dma_read_bytes - before <=
		      SFAB_ENGINE_WORK_BYTES + (uint64_t)BIG_PAGES * 8 + 4096);
		if (dma_read_bytes - before >
		    SFAB_ENGINE_WORK_BYTES + (uint64_t)BIG_PAGES * 8 + 4096)
			fprintf(stderr, "  one process() call read %llu bytes, %u commands\n",
				(unsigned long long)(dma_read_bytes - before), done);
	}
	CHECK_EQ(total, 4);
	CHECK(calls >= 2);
	for (i = 0; i < 4; i++) {
		struct sfab_engine_mr *mr;

		REQUIRE(host_poll(h, &cpl));
		CHECK_EQ(cpl.status, SFAB_AQ_STS_OK);
		mr = &h->e->mr[sfab_le32_to_cpu(cpl.result0) >> 8];
		CHECK_EQ(mr->pool_off, i * BIG_PAGES);
		CHECK_EQ(mr->npages, BIG_PAGES);
		CHECK_EQ(h->e->mr_pool[mr->pool_off + BIG_PAGES - 1], page);
	}
	/* the pool is full: one more page does not fit */
	c = create_cmd(pbl, 1);
	CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_NO_RESOURCES);
	host_free(h);
}

/*
 * MAX_MR one-page MRs, every other one destroyed: MAX_MR / 2 holes of one
 * page.  CREATE_MRs of two pages fit in none of them; finding that out is
 * work, and a ring of 64 of them is not done in one call.  Each lands at
 * the first free offset that fits; a one-page MR afterwards takes the
 * first hole.
 */
TEST(fragmented_pool_per_process_call)
{
	struct fake_host *h = mr_host(12, MAX_MR);
	struct sfab_acq_entry cpl;
	struct sfab_aq_cmd c;
	uint32_t keys[MAX_MR];
	unsigned int i, j, n, most, calls;
	uint64_t pbl, page;

	page = host_alloc(h, 4096, 4096);
	pbl = host_alloc(h, 16, 8);
	for (i = 0; i < 2; i++) {
		uint64_t v = sfab_cpu_to_le64(page);

		memcpy(hp(h, pbl + i * 8), &v, 8);
	}
	/* MAX_MR one-page MRs, a ring's worth (4096) at a time */
	for (n = 0; n < MAX_MR; ) {
		for (j = 0; j < 4096 && n + j < MAX_MR; j++) {
			c = create_cmd(pbl, 1);
			host_post(h, &c);
		}
		aq_ring(h);
		run_counting(h, &calls);
		for (i = 0; i < j; i++) {
			REQUIRE(host_poll(h, &cpl));
			REQUIRE(cpl.status == SFAB_AQ_STS_OK);
			keys[n + i] = sfab_le32_to_cpu(cpl.result0);
		}
		n += j;
	}
	CHECK_EQ(h->e->num_mr, MAX_MR);
	/* destroy every other one: the holes are at offsets 0, 2, 4, ... */
	for (n = 0; n < MAX_MR; ) {
		for (j = 0; j < 4096 && n + 2 * j < MAX_MR; j++) {
			c = cmd_new(SFAB_AQ_DESTROY_MR);
			c.u.destroy_mr.key = sfab_cpu_to_le32(keys[n + 2 * j]);
			host_post(h, &c);
		}
		aq_ring(h);
		run_counting(h, &calls);
		for (i = 0; i < j; i++) {
			REQUIRE(host_poll(h, &cpl));
			REQUIRE(cpl.status == SFAB_AQ_STS_OK);
		}
		n += 2 * j;
	}
	CHECK_EQ(h->e->num_mr, MAX_MR / 2);
	/* 64 two-page MRs: none fits a hole */
	for (j = 0; j < 64; j++) {
		c = create_cmd(pbl, 2);
		host_post(h, &c);
	}
	aq_ring(h);
	most = run_counting(h, &calls);
	CHECK(most < 64);
	if (most >= 64)
		fprintf(stderr, "  one process() call ran all %u commands\n", most);
	CHECK(calls >= 2);
	for (j = 0; j < 64; j++) {
		REQUIRE(host_poll(h, &cpl));
		CHECK_EQ(cpl.status, SFAB_AQ_STS_OK);
		CHECK_EQ(h->e->mr[sfab_le32_to_cpu(cpl.result0) >> 8].pool_off,
			 MAX_MR + 2 * j);
	}
	/* a one-page MR takes the first hole */
	c = create_cmd(pbl, 1);
	REQUIRE(host_cmd_full(h, &c, &cpl) == SFAB_AQ_STS_OK);
	CHECK_EQ(h->e->mr[sfab_le32_to_cpu(cpl.result0) >> 8].pool_off, 0);
	host_free(h);
}
