/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-fuzz: thousands of random register writes, doorbells,
 * garbage commands and DMA failures with a fixed seed.  Nothing may
 * crash (the sanitizers watch memory and undefined behaviour), every
 * process call does bounded work, pending work always drains, and a reset
 * always brings the device back.
 */
#include "harness.h"
#include "rng.h"
#include "fake_host.h"

/* most writes carry values a confused driver might plausibly write */
static uint32_t plausible(uint32_t reg)
{
	switch (reg) {
	case SFAB_REG_AQ_BASE_LO:
	case SFAB_REG_ACQ_BASE_LO:
	case SFAB_REG_AENQ_BASE_LO:
		return (uint32_t)HOST_MEM_BASE + (rnd_below(HOST_MEM_SIZE) & ~0x3fU);
	case SFAB_REG_AQ_BASE_HI:
	case SFAB_REG_ACQ_BASE_HI:
	case SFAB_REG_AENQ_BASE_HI:
		return rnd_below(8) ? 0 : (uint32_t)rnd();
	case SFAB_REG_AQ_CFG:
	case SFAB_REG_ACQ_CFG:
	case SFAB_REG_AENQ_CFG:
		return rnd_below(14) | (rnd_below(40) << 8) |
		       (rnd_below(3) ? SFAB_QCFG_ENABLE : 0);
	case SFAB_REG_AQ_DB:
	case SFAB_REG_AENQ_HEAD:
		return rnd_below(24);
	case SFAB_REG_DEV_CTL:
		return rnd_below(20) ? 0 : SFAB_DEV_CTL_RESET;
	case SFAB_REG_INTR_MASK:
		return (uint32_t)rnd();
	default:
		return (uint32_t)rnd();
	}
}

/* run what a bottom half would run, checking the bounds */
static void drain(struct fake_host *h)
{
	unsigned int rounds = 0;

	do {
		unsigned long dma0 = h->dma_reads + h->dma_writes;
		unsigned int n = sfab_engine_process(h->e);
		unsigned long dma = h->dma_reads + h->dma_writes - dma0;

		/* a ring's worth of commands, each two queue DMAs and one own */
		CHECK(n <= 1U << SFAB_AQ_MAX_LOG_DEPTH);
		CHECK(dma <= 3UL * n + SFAB_ENGINE_AENQ_BACKLOG + 2);
		rounds++;
	} while (sfab_engine_work_pending(h->e) && rounds < 64);
	CHECK(rounds < 64);
}

static void check_recovers(struct fake_host *h)
{
	struct sfab_dev_attr a;

	h->fail_all = false;
	h->fail_lo = h->fail_hi = 0;
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(rd(h, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	CHECK_EQ(rd(h, SFAB_REG_FW_STATE), 0);
	h->aq = h->acq = h->aenq = 0;
	h->aq_mem = h->acq_mem = 0;
	h->brk = HOST_MEM_SIZE / 2;	/* clean memory past the garbage */
	memset(hp(h, HOST_MEM_BASE + h->brk), 0, HOST_MEM_SIZE - h->brk);
	h->scratch = host_alloc(h, 4096, 4096);
	host_setup_aq(h, 4);
	host_setup_aenq(h, 4);
	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	CHECK(!dev_fatal(h));
}

TEST(random_register_writes)
{
	struct fake_host *h = host_new();
	unsigned long resets = 0, fatals = 0, i;

	for (i = 0; i < HOST_MEM_SIZE; i++)
		h->mem[i] = (uint8_t)rnd();
	for (i = 0; i < 20000; i++) {
		uint32_t r = rnd_below(100);
		uint64_t off;
		uint32_t val;

		if (r < 70) {
			off = fh_regs[rnd_below(FH_NREGS)];
			val = rnd_below(4) ? plausible((uint32_t)off) : (uint32_t)rnd();
		} else if (r < 80) {
			off = rnd_below(SFAB_BAR_REGS_SIZE + 64);
			val = (uint32_t)rnd();
		} else if (r < 88) {
			(void)rd(h, rnd_below(SFAB_BAR_REGS_SIZE + 64));
			continue;
		} else if (r < 94) {
			sfab_engine_db_write(h->e, rnd_below(SFAB_DB_BAR_SIZE + 64),
					     rnd(), 1U << rnd_below(4),
					     rnd_below(2) ? SFAB_DB_SRC_PEER :
							    SFAB_DB_SRC_CPU);
			continue;
		} else if (r < 97) {
			/* DMA starts or stops failing */
			h->fail_all = !rnd_below(4);
			h->fail_lo = HOST_MEM_BASE + rnd_below(HOST_MEM_SIZE);
			h->fail_hi = h->fail_lo + rnd_below(65536);
			continue;
		} else {
			/* garbage in the rings the device may be reading */
			uint32_t at = rnd_below(HOST_MEM_SIZE - 64);
			unsigned int k;

			for (k = 0; k < 64; k++)
				h->mem[at + k] = (uint8_t)rnd();
			continue;
		}
		if (off == SFAB_REG_DEV_CTL && (val & SFAB_DEV_CTL_RESET))
			resets++;
		if (sfab_engine_reg_write(h->e, off, val))
			drain(h);
		if (dev_fatal(h))
			fatals++;
		/* a stuck fatal device gets reset now and then, as a driver would */
		if (dev_fatal(h) && !rnd_below(50))
			wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
		CHECK(!sfab_engine_work_pending(h->e) || !dev_fatal(h) ||
		      h->e->aenq_backlog_len);
	}
	/* the run must have reached the interesting states */
	CHECK(resets > 10);
	CHECK(fatals > 10);
	CHECK(h->e->stats.guest_errors > 100);
	check_recovers(h);
	host_free(h);
}

/* a well-formed command of a random kind, with random but sane fields */
static struct sfab_aq_cmd template_cmd(struct fake_host *h)
{
	uint64_t mem = HOST_MEM_BASE + (rnd_below(HOST_MEM_SIZE / 2) & ~0xfffU);

	switch (rnd_below(9)) {
	case 0:
		return cmd_query_device(h->scratch, 256 + rnd_below(2) * 4000);
	case 1:
		return cmd_query_port(h->scratch, 64, 1);
	case 2:
		return cmd_fw_download(mem, rnd_below(3) ? 0 : rnd_below(SFAB_FW_MAX_SIZE),
				       1 + rnd_below(SFAB_FW_MAX_CHUNK));
	case 3:
		return cmd_fw_activate(1 + rnd_below(SFAB_FW_MAX_SIZE));
	case 4:
		return cmd_init_hca(12 + rnd_below(5));
	case 5:
		return cmd_new(SFAB_AQ_TEARDOWN_HCA);
	case 6:
		return cmd_create_eq(mem, 2 + rnd_below(15),
				     2 + rnd_below(HOST_NVEC - 2));
	case 7:
		return cmd_destroy_eq(rnd_below(8));
	default:
		return cmd_new((uint8_t)rnd());
	}
}

/* a correctly programmed queue full of commands, many of them garbage */
TEST(random_commands)
{
	static const uint8_t known[] = {
		SFAB_AQ_STS_OK, SFAB_AQ_STS_BAD_OPCODE, SFAB_AQ_STS_BAD_PARAM,
		SFAB_AQ_STS_BAD_STATE, SFAB_AQ_STS_NO_RESOURCES,
		SFAB_AQ_STS_DMA_ERROR, SFAB_AQ_STS_NO_FW,
		SFAB_AQ_STS_FW_BAD_MAGIC, SFAB_AQ_STS_FW_BAD_FORMAT,
		SFAB_AQ_STS_FW_BAD_SIZE, SFAB_AQ_STS_FW_BAD_CRC,
		SFAB_AQ_STS_FW_BAD_PROFILE,
	};
	struct fake_host *h = host_up(6);
	unsigned long i, answered = 0, ok = 0, before;

	host_setup_aenq(h, 3);
	CHECK_EQ(host_fw_load(h), SFAB_AQ_STS_OK);
	before = h->e->stats.admin_cmds;
	for (i = 0; i < 5000; i++) {
		struct sfab_aq_cmd c;
		struct sfab_acq_entry cpl;
		unsigned int k, n = 1 + rnd_below(8);
		unsigned int j;
		int st;

		for (j = 0; j < n; j++) {
			c = template_cmd(h);
			/* mutate a few bytes of a well-formed command, or none */
			for (k = rnd_below(4); k; k--)
				((uint8_t *)&c)[rnd_below(sizeof(c))] = (uint8_t)rnd();
			host_post(h, &c);
		}
		host_ring(h);
		while (host_poll(h, &cpl)) {
			st = cpl.status;
			answered++;
			ok += st == SFAB_AQ_STS_OK;
			CHECK(memchr(known, st, sizeof(known)) != NULL);
		}
		/* return async events so the queue keeps flowing */
		{
			struct sfab_aenq_entry ev;

			while (host_aenq_poll(h, &ev))
				;
		}
		/* a random image download may have started: keep going */
		if (dev_fatal(h))
			break;
	}
	CHECK(!dev_fatal(h));
	CHECK_EQ(answered, h->e->stats.admin_cmds - before);
	CHECK(answered > 20000);
	CHECK(ok > 100);
	check_recovers(h);
	host_free(h);
}
