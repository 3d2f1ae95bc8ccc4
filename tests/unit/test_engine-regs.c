/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-regs: BAR0 registers, reset, queue programming, fatal
 * states, interrupt masking and the doorbell BAR.
 */
#include "harness.h"
#include "fake_host.h"

TEST(identity_after_reset)
{
	struct fake_host *h = host_new();

	CHECK_EQ(rd(h, SFAB_REG_ID), SFAB_ID_MAGIC);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_VERSION_MAJOR_MASK, rd(h, SFAB_REG_VERSION)),
		 SFAB_IF_VERSION_MAJOR);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_VERSION_MINOR_MASK, rd(h, SFAB_REG_VERSION)),
		 SFAB_IF_VERSION_MINOR);
	CHECK_EQ(rd(h, SFAB_REG_CAPS), SFAB_CAP_MSIX | SFAB_CAP_AENQ |
		 SFAB_CAP_FW_DOWNLOAD | SFAB_CAP_DB_WC | SFAB_CAP_HEARTBEAT);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_DB_LAYOUT_PAGE_SHIFT_MASK, rd(h, SFAB_REG_DB_LAYOUT)),
		 SFAB_DB_PAGE_SHIFT);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_DB_LAYOUT_KPAGES_MASK, rd(h, SFAB_REG_DB_LAYOUT)),
		 SFAB_DB_KERNEL_PAGES);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_DB_LAYOUT_NPAGES_MASK, rd(h, SFAB_REG_DB_LAYOUT)),
		 SFAB_DB_NUM_PAGES);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_MSIX_CFG_NVEC_MASK, rd(h, SFAB_REG_MSIX_CFG)),
		 HOST_NVEC);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	CHECK_EQ(rd(h, SFAB_REG_FW_STATE), SFAB_FW_STATE_NONE);
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_NONE);
	CHECK_EQ(rd(h, SFAB_REG_DEV_CTL), 0);
	CHECK_EQ(rd(h, SFAB_REG_INTR_MASK), 0);
	CHECK_EQ(rd(h, SFAB_REG_AQ_CFG), 0);
	CHECK_EQ(h->irq_total, 0);
	host_free(h);
}

TEST(read_only_and_unassigned)
{
	struct fake_host *h = host_new();
	unsigned long errs = h->guest_errors;

	wr(h, SFAB_REG_ID, 0);
	wr(h, SFAB_REG_CAPS, 0);
	wr(h, SFAB_REG_DEV_STS, SFAB_DEV_STS_FATAL);
	wr(h, SFAB_REG_FW_STATE, SFAB_FW_STATE_ACTIVE);
	wr(h, SFAB_REG_ERR_INFO, 7);
	wr(h, SFAB_REG_MSIX_CFG, 0);
	CHECK_EQ(rd(h, SFAB_REG_ID), SFAB_ID_MAGIC);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	CHECK_EQ(rd(h, SFAB_REG_FW_STATE), SFAB_FW_STATE_NONE);
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), 0);
	CHECK_EQ(rd(h, SFAB_REG_MSIX_CFG), HOST_NVEC);
	CHECK(h->guest_errors >= errs + 6);

	/* unassigned: reads zero, writes ignored */
	wr(h, 0x100, 0xdeadbeef);
	CHECK_EQ(rd(h, 0x100), 0);
	CHECK_EQ(rd(h, SFAB_BAR_REGS_SIZE - 4), 0);

	/* outside the BAR or unaligned: all ones, writes ignored */
	CHECK_EQ(rd(h, SFAB_BAR_REGS_SIZE), 0xffffffffU);
	CHECK_EQ(rd(h, 0x2), 0xffffffffU);
	CHECK_EQ(rd(h, SFAB_REG_ID + 1), 0xffffffffU);
	CHECK(!sfab_engine_reg_write(h->e, SFAB_REG_DEV_CTL + 2, SFAB_DEV_CTL_RESET));
	CHECK(!sfab_engine_reg_write(h->e, 0xffffffff0ULL, 1));
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	host_free(h);
}

TEST(registers_hold_values_and_reset_clears_them)
{
	struct fake_host *h = host_new();

	wr(h, SFAB_REG_AQ_BASE_LO, 0x12345000);
	wr(h, SFAB_REG_AQ_BASE_HI, 0x1);
	wr(h, SFAB_REG_ACQ_BASE_LO, 0xabcd000);
	wr(h, SFAB_REG_ACQ_CFG, 0x0305);
	wr(h, SFAB_REG_AENQ_BASE_LO, 0x7000);
	wr(h, SFAB_REG_AENQ_CFG, 0x0104);
	wr(h, SFAB_REG_INTR_MASK, 0x5);
	CHECK_EQ(rd(h, SFAB_REG_AQ_BASE_LO), 0x12345000);
	CHECK_EQ(rd(h, SFAB_REG_AQ_BASE_HI), 0x1);
	CHECK_EQ(rd(h, SFAB_REG_ACQ_BASE_LO), 0xabcd000);
	CHECK_EQ(rd(h, SFAB_REG_ACQ_CFG), 0x0305);
	CHECK_EQ(rd(h, SFAB_REG_AENQ_BASE_LO), 0x7000);
	CHECK_EQ(rd(h, SFAB_REG_AENQ_CFG), 0x0104);
	CHECK_EQ(rd(h, SFAB_REG_INTR_MASK), 0x5);
	/* reserved bits of the queue configuration do not stick */
	wr(h, SFAB_REG_ACQ_CFG, 0xffffffff);
	CHECK_EQ(rd(h, SFAB_REG_ACQ_CFG), SFAB_QCFG_LOG_DEPTH_MASK | SFAB_QCFG_VECTOR_MASK);

	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(rd(h, SFAB_REG_AQ_BASE_LO), 0);
	CHECK_EQ(rd(h, SFAB_REG_AQ_BASE_HI), 0);
	CHECK_EQ(rd(h, SFAB_REG_ACQ_BASE_LO), 0);
	CHECK_EQ(rd(h, SFAB_REG_ACQ_CFG), 0);
	CHECK_EQ(rd(h, SFAB_REG_AENQ_CFG), 0);
	CHECK_EQ(rd(h, SFAB_REG_INTR_MASK), 0);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	CHECK_EQ(rd(h, SFAB_REG_DEV_CTL), 0);
	host_free(h);
}

TEST(admin_queue_enable_and_disable)
{
	struct fake_host *h = host_up(4);
	struct sfab_dev_attr a;

	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY | SFAB_DEV_STS_AQ_ENABLED);
	CHECK_EQ(rd(h, SFAB_REG_AQ_CFG), 4 | SFAB_QCFG_ENABLE);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 1);

	/* disabled: doorbells are ignored, nothing completes */
	wr(h, SFAB_REG_AQ_CFG, 4);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_AQ_ENABLED, 0);
	CHECK_EQ(host_query_device(h, &a), -1);
	CHECK(!dev_fatal(h));

	/* enabling again starts from index 0 */
	host_setup_aq(h, 4);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK(!dev_fatal(h));
	host_free(h);
}

static void check_bad_aq(unsigned int aq_log, unsigned int acq_log,
			 unsigned int vec, uint64_t aq_base)
{
	struct fake_host *h = host_new();

	host_setup_aq_raw(h, aq_log, acq_log, vec);
	if (aq_base != ~0ULL) {
		/* re-program only the base, then enable again */
		wr(h, SFAB_REG_AQ_CFG, aq_log);
		wr(h, SFAB_REG_AQ_BASE_LO, (uint32_t)aq_base);
		wr(h, SFAB_REG_AQ_BASE_HI, (uint32_t)(aq_base >> 32));
		wr(h, SFAB_REG_AQ_CFG, aq_log | SFAB_QCFG_ENABLE);
	}
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AQ_CONFIG);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_AQ_ENABLED, 0);
	CHECK(h->guest_errors > 0);

	/* fatal: queues stay stopped until a reset */
	host_setup_aq(h, 3);
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_AQ_ENABLED, 0);

	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), 0);
	host_setup_aq(h, 3);
	{
		struct sfab_dev_attr a;

		CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	}
	host_free(h);
}

TEST(admin_queue_misprogrammed_is_fatal)
{
	check_bad_aq(1, 4, 0, ~0ULL);		/* AQ depth too small */
	check_bad_aq(13, 13, 0, ~0ULL);		/* AQ depth too large */
	check_bad_aq(4, 1, 0, ~0ULL);		/* ACQ depth too small */
	check_bad_aq(4, 31, 0, ~0ULL);		/* ACQ depth too large */
	check_bad_aq(5, 4, 0, ~0ULL);		/* ACQ smaller than AQ */
	check_bad_aq(4, 4, HOST_NVEC, ~0ULL);	/* no such vector */
	check_bad_aq(4, 4, 0, 0);		/* no base */
	check_bad_aq(4, 4, 0, HOST_MEM_BASE + 8);	/* misaligned */
	check_bad_aq(4, 4, 0, 0xffffffffffffffc0ULL);	/* wraps */
}

TEST(aenq_misprogrammed_is_fatal)
{
	struct fake_host *h = host_up(3);

	wr(h, SFAB_REG_AENQ_BASE_LO, (uint32_t)HOST_MEM_BASE + 16);
	wr(h, SFAB_REG_AENQ_BASE_HI, 0);
	wr(h, SFAB_REG_AENQ_CFG, 4 | SFAB_QCFG_ENABLE);
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AENQ_CONFIG);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_AENQ_ENABLED, 0);
	host_free(h);

	h = host_up(3);
	host_setup_aenq(h, 4);
	wr(h, SFAB_REG_AENQ_CFG, 0);
	wr(h, SFAB_REG_AENQ_CFG, 0x3f00 | 4 | SFAB_QCFG_ENABLE);	/* vector 63 */
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AENQ_CONFIG);
	host_free(h);

	h = host_up(3);
	host_setup_aenq(h, 4);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_AENQ_ENABLED,
		 SFAB_DEV_STS_AENQ_ENABLED);
	CHECK_EQ(rd(h, SFAB_REG_AENQ_CFG) & SFAB_QCFG_ENABLE, SFAB_QCFG_ENABLE);
	/* the head may not pass what the device produced */
	wr(h, SFAB_REG_AENQ_HEAD, 1);
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AENQ_CONFIG);
	host_free(h);
}

TEST(doorbell_beyond_ring_is_fatal)
{
	struct fake_host *h = host_up(3);
	struct sfab_aenq_entry ev;
	struct sfab_dev_attr a;
	unsigned int n;

	host_setup_aenq(h, 3);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	/* head is 1: a tail of 1 + 8 + 1 is more than the ring holds */
	wr(h, SFAB_REG_AQ_DB, 10);
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AQ_OVERRUN);
	/* the async event says so */
	CHECK(host_aenq_poll(h, &ev));
	CHECK_EQ(ev.type, SFAB_AENQ_FATAL);
	CHECK_EQ(sfab_le32_to_cpu(ev.data0), SFAB_ERR_AQ_OVERRUN);
	CHECK_EQ(h->irqs[SFAB_MSIX_AENQ], 1);
	/* nothing runs any more, and nothing spins */
	n = sfab_engine_process(h->e);
	CHECK_EQ(n, 0);
	CHECK(!sfab_engine_work_pending(h->e));
	CHECK_EQ(host_query_device(h, &a), -1);

	/* the doorbell may not go backwards either */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	host_setup_aq(h, 3);
	wr(h, SFAB_REG_AQ_DB, 0xffff);
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AQ_OVERRUN);

	/* a full ring is fine: exactly depth commands at once */
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	host_setup_aq(h, 3);
	h->irqs[SFAB_MSIX_ADMIN] = 0;
	for (n = 0; n < 8; n++) {
		struct sfab_aq_cmd c = cmd_query_device(h->scratch, 256);

		host_post(h, &c);
	}
	host_ring(h);
	CHECK(!dev_fatal(h));
	for (n = 0; n < 8; n++) {
		struct sfab_acq_entry cpl;

		CHECK(host_poll(h, &cpl));
		CHECK_EQ(cpl.status, SFAB_AQ_STS_OK);
	}
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 1);	/* one interrupt per batch */
	host_free(h);
}

TEST(admin_dma_failure_is_fatal)
{
	struct fake_host *h = host_up(3);
	struct sfab_dev_attr a;

	host_setup_aenq(h, 3);
	/* command fetch fails */
	h->fail_lo = h->aq;
	h->fail_hi = h->aq + 64 * 8;
	CHECK_EQ(host_query_device(h, &a), -1);
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AQ_DMA);
	host_free(h);

	/* completion write fails */
	h = host_up(3);
	h->fail_lo = h->acq;
	h->fail_hi = h->acq + 16 * 8;
	CHECK_EQ(host_query_device(h, &a), -1);
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AQ_DMA);
	/* reset and a working queue bring it back */
	h->fail_lo = h->fail_hi = 0;
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	host_setup_aq(h, 3);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	host_free(h);

	/* the async event write fails: fatal without an event */
	h = host_up(3);
	host_setup_aenq(h, 3);
	h->fail_lo = h->aenq;
	h->fail_hi = h->aenq + 32 * 8;
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);	/* FW_STATE event */
	CHECK(dev_fatal(h));
	CHECK_EQ(rd(h, SFAB_REG_ERR_INFO), SFAB_ERR_AENQ_DMA);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_AENQ_ENABLED, 0);
	CHECK(!sfab_engine_work_pending(h->e));
	host_free(h);
}

TEST(interrupt_masking)
{
	struct fake_host *h = host_up(3);
	struct sfab_dev_attr a;

	wr(h, SFAB_REG_INTR_MASK, 1U << SFAB_MSIX_ADMIN);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 0);
	CHECK_EQ(h->e->stats.irqs_masked, 2);
	/* masking other vectors does not release it */
	wr(h, SFAB_REG_INTR_MASK, (1U << SFAB_MSIX_ADMIN) | (1U << 5));
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 0);
	/* unmask: one pending notification is delivered */
	wr(h, SFAB_REG_INTR_MASK, 0);
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 1);
	wr(h, SFAB_REG_INTR_MASK, 0);
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 1);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 2);
	/* a reset forgets pending notifications */
	wr(h, SFAB_REG_INTR_MASK, 1U << SFAB_MSIX_ADMIN);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	wr(h, SFAB_REG_INTR_MASK, 0);
	CHECK_EQ(h->irqs[SFAB_MSIX_ADMIN], 2);
	host_free(h);

	/* the admin completion vector is the one the ACQ names */
	h = host_new();
	host_setup_aq_raw(h, 2, 3, 7);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(h->irqs[7], 1);
	CHECK_EQ(h->irq_total, 1);
	host_free(h);
}

TEST(doorbell_bar)
{
	struct fake_host *h = host_up(3);
	unsigned long errs = h->guest_errors;

	/* well-formed writes, but no HCA and no such queues: ignored, counted */
	sfab_engine_db_write(h->e, SFAB_DB_SQ, 0x12345678, 4, SFAB_DB_SRC_CPU);
	sfab_engine_db_write(h->e, SFAB_DB_PAGE_SIZE + SFAB_DB_CQ, 1, 8,
			     SFAB_DB_SRC_CPU);
	CHECK_EQ(h->e->stats.db_writes, 2);
	CHECK_EQ(h->e->stats.db_ignored, 2);
	CHECK_EQ(h->guest_errors, errs + 2);
	sfab_engine_db_write(h->e, SFAB_DB_BAR_SIZE, 1, 4, SFAB_DB_SRC_CPU);
	sfab_engine_db_write(h->e, 2, 1, 4, SFAB_DB_SRC_CPU);
	sfab_engine_db_write(h->e, 0, 1, 2, SFAB_DB_SRC_CPU);
	CHECK_EQ(h->e->stats.db_writes, 2);
	CHECK_EQ(h->guest_errors, errs + 5);
	CHECK(!dev_fatal(h));
	host_free(h);
}
