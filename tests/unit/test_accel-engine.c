/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/accel-engine: the sfab-accel command engine runs what the host
 * queues: its registers after reset; each opcode, with the bytes it must
 * leave in memory written out by hand (WRITE_IMM, COPY, an overlapping
 * COPY, STORE32 and STORE64 to memory and to a peer device's doorbell
 * page as one write of their width, COMPLETE's sequence in memory and in
 * SEQ_LO/HI); the completion interrupt, masked and unmasked; POLL matched
 * at once, matched after the retry timer fired N times with memory changed
 * in between (the retry times back off as the contract's defaults say),
 * and timed out; nothing after a POLL runs before it matched; the
 * per-kick budget of commands and of bytes; the ring wrapping at its
 * depth and the 32-bit index wrapping; disable and enable around a POLL;
 * reset leaving memory alone and the ring usable again.
 */
#include "harness.h"
#include "accel_host.h"

/* ---- registers ---------------------------------------------------------- */

TEST(regs_after_reset)
{
	struct accel_host *h = ah_new();

	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ID), 0x53464143);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_VERSION), 0x00010000);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_MEM_SIZE), 28);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_CTL), 0);
	CHECK_EQ(ah_status(h), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_CODE), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_RING_PI), 0);
	CHECK_EQ(ah_ci(h), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_SEQ_LO), 0);
	CHECK_EQ(h->guest_errors, 0);

	/* enabled ring: ENABLED, not busy; the latched registers read back */
	ah_ring_setup(h, 3);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_RING_BASE_LO), 0x10000000);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_RING_BASE_HI), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_RING_CFG), 3);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

TEST(mem_size_register_follows_config)
{
	struct sfab_accel_engine_config cfg = SFAB_ACCEL_ENGINE_CONFIG_DEFAULT;
	struct accel_host *h;

	cfg.mem_log_size = 20;
	h = ah_new_cfg(&cfg);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_MEM_SIZE), 20);
	ah_free(h);
	/* out of the contract's range: init refuses */
	cfg.mem_log_size = 19;
	CHECK(!sfab_accel_engine_config_valid(&cfg));
	cfg.mem_log_size = 35;
	CHECK(!sfab_accel_engine_config_valid(&cfg));
	cfg.mem_log_size = 34;
	CHECK(sfab_accel_engine_config_valid(&cfg));
	cfg.poll_interval_ns = 99;
	CHECK(!sfab_accel_engine_config_valid(&cfg));
}

/* ---- each opcode -------------------------------------------------------- */

TEST(nop_and_fence)
{
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;
	unsigned long writes;

	sfab_accel_cmd_nop(&c);
	ah_post(h, &c);
	sfab_accel_cmd_fence(&c);
	ah_post(h, &c);
	sfab_accel_cmd_nop(&c);
	ah_post(h, &c);
	writes = h->dma_writes;
	ah_ring(h);
	CHECK_EQ(ah_ci(h), 3);
	CHECK_EQ(h->dma_writes, writes);	/* they write nothing */
	CHECK_EQ(h->e->stats.cmds, 3);
	CHECK_EQ(h->e->stats.fences, 1);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

TEST(write_imm)
{
	static const uint8_t want[] = {
		0xaa, 0x01, 0x02, 0x03, 0x04, 0x05, 0xaa, 0xaa,
	};
	static const uint8_t data[5] = { 1, 2, 3, 4, 5 };
	uint8_t full[48], want_full[50];
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;
	unsigned int i;

	memset(ah_p(h, AH_DATA), 0xaa, 256);
	CHECK_EQ(sfab_accel_cmd_write_imm(&c, AH_DATA + 1, data, 5), 0);
	ah_post(h, &c);
	/* the largest: 48 bytes, at an odd address */
	for (i = 0; i < 48; i++)
		full[i] = 0x80 + i;
	CHECK_EQ(sfab_accel_cmd_write_imm(&c, AH_DATA + 0x41, full, 48), 0);
	ah_post(h, &c);
	ah_ring(h);

	CHECK_EQ(ah_ci(h), 2);
	CHECK(!memcmp(ah_p(h, AH_DATA), want, sizeof(want)));
	want_full[0] = 0xaa;
	for (i = 0; i < 48; i++)
		want_full[1 + i] = 0x80 + i;
	want_full[49] = 0xaa;
	CHECK(!memcmp(ah_p(h, AH_DATA + 0x40), want_full, sizeof(want_full)));
	CHECK_EQ(h->e->stats.imm_writes, 2);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

TEST(copy)
{
	struct accel_host *h = ah_up(3);
	uint64_t src = AH_DATA, dst = AH_DATA + 0x20000;
	struct sfab_accel_cmd c;
	uint32_t i;

	for (i = 0; i < SFAB_ACCEL_COPY_MAX; i++)
		ah_p(h, src)[i] = (uint8_t)(i * 13 + 7);
	memset(ah_p(h, dst - 16), 0x5c, SFAB_ACCEL_COPY_MAX + 32);
	/* 3 bytes, then the longest */
	CHECK_EQ(sfab_accel_cmd_copy(&c, dst - 8, src + 1, 3), 0);
	ah_post(h, &c);
	CHECK_EQ(sfab_accel_cmd_copy(&c, dst, src, SFAB_ACCEL_COPY_MAX), 0);
	ah_post(h, &c);
	ah_ring(h);

	CHECK_EQ(ah_ci(h), 2);
	/* src[1..3] = 1*13+7, 2*13+7, 3*13+7 */
	CHECK_EQ(ah_p(h, dst - 9)[0], 0x5c);
	CHECK_EQ(ah_p(h, dst - 8)[0], 20);
	CHECK_EQ(ah_p(h, dst - 8)[1], 33);
	CHECK_EQ(ah_p(h, dst - 8)[2], 46);
	CHECK_EQ(ah_p(h, dst - 8)[3], 0x5c);
	CHECK(!memcmp(ah_p(h, dst), ah_p(h, src), SFAB_ACCEL_COPY_MAX));
	CHECK_EQ(ah_p(h, dst + SFAB_ACCEL_COPY_MAX)[0], 0x5c);
	CHECK_EQ(h->e->stats.copies, 2);
	CHECK_EQ(h->e->stats.copy_bytes, 3 + SFAB_ACCEL_COPY_MAX);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

/* source and destination overlap: the bytes as they were before the COPY */
TEST(copy_overlapping)
{
	static const uint8_t before[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t fwd[] = { 1, 2, 1, 2, 3, 4, 5, 6 };
	static const uint8_t back[] = { 3, 4, 5, 6, 7, 8, 7, 8 };
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	memcpy(ah_p(h, AH_DATA), before, 8);
	sfab_accel_cmd_copy(&c, AH_DATA + 2, AH_DATA, 6);
	ah_post(h, &c);
	ah_ring(h);
	CHECK(!memcmp(ah_p(h, AH_DATA), fwd, 8));

	memcpy(ah_p(h, AH_DATA), before, 8);
	sfab_accel_cmd_copy(&c, AH_DATA, AH_DATA + 2, 6);
	ah_post(h, &c);
	ah_ring(h);
	CHECK(!memcmp(ah_p(h, AH_DATA), back, 8));
	ah_free(h);
}

TEST(stores_to_memory)
{
	static const uint8_t want[16] = {
		0x44, 0x33, 0x22, 0x11, 0xee, 0xee, 0xee, 0xee,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	};
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	memset(ah_p(h, AH_DATA), 0xee, 16);
	CHECK_EQ(sfab_accel_cmd_store32(&c, AH_DATA, 0x11223344), 0);
	ah_post(h, &c);
	CHECK_EQ(sfab_accel_cmd_store64(&c, AH_DATA + 8, 0x0102030405060708ULL), 0);
	ah_post(h, &c);
	ah_ring(h);
	CHECK(!memcmp(ah_p(h, AH_DATA), want, 16));
	CHECK_EQ(h->e->stats.stores, 2);
	ah_free(h);
}

/*
 * A peer device's doorbell: each STORE is one write of its own width, in
 * ring order (an HCA doorbell takes a 64-bit write as one doorbell).
 */
TEST(stores_to_peer_doorbell)
{
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	/* an SQ doorbell of QP 5, producer index 3 (sfab_db_val()) */
	sfab_accel_cmd_store64(&c, AH_PEER_BASE + 0x000, 0x0000000300000005ULL);
	ah_post(h, &c);
	sfab_accel_cmd_store32(&c, AH_PEER_BASE + 0x010, 0x00000007);
	ah_post(h, &c);
	ah_ring(h);
	REQUIRE(h->npeer == 2);
	CHECK_EQ(h->peer[0].off, 0x000);
	CHECK_EQ(h->peer[0].len, 8);
	CHECK_EQ(h->peer[0].val, 0x0000000300000005ULL);
	CHECK_EQ(h->peer[1].off, 0x010);
	CHECK_EQ(h->peer[1].len, 4);
	CHECK_EQ(h->peer[1].val, 7);
	ah_free(h);
}

TEST(complete_writes_sequence_and_raises_irq)
{
	static const uint8_t want[8] = {
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
	};
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	CHECK_EQ(sfab_accel_cmd_complete(&c, AH_DATA, 0x0123456789abcdefULL, true), 0);
	ah_post(h, &c);
	ah_ring(h);
	CHECK(!memcmp(ah_p(h, AH_DATA), want, 8));
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_SEQ_LO), 0x89abcdef);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_SEQ_HI), 0x01234567);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_CPL], 1);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_ERR], 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_STATUS), SFAB_ACCEL_INTR_CPL);
	/* write 1 to clear */
	ah_wr(h, SFAB_ACCEL_REG_INTR_STATUS, SFAB_ACCEL_INTR_CPL);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_STATUS), 0);

	/* no IRQ flag, no address: the register only, no interrupt */
	sfab_accel_cmd_complete(&c, 0, 2, false);
	ah_post(h, &c);
	ah_ring(h);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_SEQ_LO), 2);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_SEQ_HI), 0);
	CHECK(!memcmp(ah_p(h, AH_DATA), want, 8));
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_CPL], 1);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_STATUS), 0);
	CHECK_EQ(h->e->stats.completions, 2);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

/* a masked completion is held in INTR_STATUS and signalled on unmask */
TEST(complete_irq_masked)
{
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	ah_wr(h, SFAB_ACCEL_REG_INTR_MASK, SFAB_ACCEL_INTR_CPL);
	sfab_accel_cmd_complete(&c, 0, 1, true);
	ah_post(h, &c);
	ah_ring(h);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_CPL], 0);
	CHECK_EQ(h->e->stats.irqs_masked, 1);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_STATUS), SFAB_ACCEL_INTR_CPL);
	ah_wr(h, SFAB_ACCEL_REG_INTR_MASK, 0);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_CPL], 1);
	/* unmasking again with nothing new pending: nothing */
	ah_wr(h, SFAB_ACCEL_REG_INTR_MASK, SFAB_ACCEL_INTR_CPL);
	ah_wr(h, SFAB_ACCEL_REG_INTR_STATUS, SFAB_ACCEL_INTR_CPL);
	ah_wr(h, SFAB_ACCEL_REG_INTR_MASK, 0);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_CPL], 1);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_ERR], 0);
	ah_free(h);
}

/* ---- POLL --------------------------------------------------------------- */

TEST(poll_matched_at_once)
{
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	/* 0x12345678 & 0x0000ff00 == 0x5600 */
	ah_put32(h, AH_DATA, 0x12345678);
	CHECK_EQ(sfab_accel_cmd_poll32(&c, AH_DATA, 0xff00, 0x5600, 1000), 0);
	ah_post(h, &c);
	/* the 64-bit word at AH_DATA + 8: 0x00000000_12345678 */
	ah_put32(h, AH_DATA + 8, 0x12345678);
	CHECK_EQ(sfab_accel_cmd_poll64(&c, AH_DATA + 8, ~0ULL, 0x12345678, 0), 0);
	ah_post(h, &c);
	ah_ring(h);
	CHECK_EQ(ah_ci(h), 2);
	CHECK_EQ(h->timer_arms, 0);
	CHECK_EQ(h->e->stats.polls, 2);
	CHECK_EQ(h->e->stats.poll_retries, 0);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	ah_free(h);
}

/*
 * Not matched: the timer is armed 2 us later, then 4, 8, 16, 32, 32 us
 * (the defaults: 2 us doubling up to 32 us); the word changes after the
 * fifth retry and the sixth sees it.  The STORE after the POLL runs only
 * then.
 */
TEST(poll_matched_after_retries)
{
	static const uint64_t waits[] = { 2000, 4000, 8000, 16000, 32000, 32000 };
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;
	uint64_t t = AH_T0;
	unsigned int i;

	ah_put32(h, AH_DATA, 0);
	sfab_accel_cmd_poll32(&c, AH_DATA, 0xffffffff, 0xc0ffee, 1000000);
	ah_post(h, &c);
	sfab_accel_cmd_store32(&c, AH_DATA + 4, 0x600d);
	ah_post(h, &c);
	ah_ring(h);

	for (i = 0; i < 6; i++) {
		REQUIRE(h->timer_armed);
		t += waits[i];
		CHECK_EQ(h->timer_deadline, t);
		CHECK_EQ(ah_ci(h), 0);
		CHECK_EQ(ah_get32(h, AH_DATA + 4), 0);
		CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED |
				       SFAB_ACCEL_STS_BUSY |
				       SFAB_ACCEL_STS_POLLING);
		/* nothing runs while the POLL waits, doorbell or not */
		ah_ring(h);
		sfab_accel_engine_process(h->e);
		CHECK_EQ(ah_ci(h), 0);
		if (i == 5)
			ah_put32(h, AH_DATA, 0xc0ffee);
		ah_fire(h);
	}
	CHECK(!h->timer_armed);
	CHECK_EQ(ah_ci(h), 2);
	CHECK_EQ(ah_get32(h, AH_DATA + 4), 0x600d);
	CHECK_EQ(h->e->stats.poll_retries, 6);
	CHECK_EQ(h->e->stats.polls, 1);
	CHECK_EQ(h->timer_arms, 6);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

/*
 * A 10 us timeout: checks at 0, 2, 6 us and at the deadline (10 us, not
 * 14), then the ring stops at the POLL with POLL_TIMEOUT; the STORE
 * after it never runs.
 */
TEST(poll_timeout)
{
	static const uint64_t at[] = { 2000, 6000, 10000 };
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;
	unsigned int i;

	sfab_accel_cmd_nop(&c);
	ah_post(h, &c);
	sfab_accel_cmd_poll64(&c, AH_DATA, 1, 1, 10000);
	ah_post(h, &c);
	sfab_accel_cmd_store32(&c, AH_DATA + 8, 0xbad);
	ah_post(h, &c);
	ah_ring(h);
	for (i = 0; i < 3; i++) {
		REQUIRE(h->timer_armed);
		CHECK_EQ(h->timer_deadline, AH_T0 + at[i]);
		ah_fire(h);
	}
	CHECK(!h->timer_armed);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED | SFAB_ACCEL_STS_ERROR);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_CODE), SFAB_ACCEL_ERR_POLL_TIMEOUT);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_INDEX), 1);
	CHECK_EQ(ah_ci(h), 1);
	CHECK_EQ(ah_get32(h, AH_DATA + 8), 0);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_ERR], 1);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_STATUS), SFAB_ACCEL_INTR_ERR);
	CHECK_EQ(h->e->stats.poll_timeouts, 1);
	CHECK_EQ(h->e->stats.errors, 1);
	CHECK_EQ(h->ge_sites[SFAB_ACCEL_GE_POLL_TIMEOUT], 1);
	CHECK_EQ(h->guest_errors, 1);
	/* the doorbell does not restart a stopped ring */
	ah_ring(h);
	CHECK_EQ(ah_ci(h), 1);
	ah_free(h);
}

/* timeout 0: one check; a miss stops the ring there and then */
TEST(poll_timeout_zero_checks_once)
{
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	ah_put32(h, AH_DATA, 5);
	sfab_accel_cmd_poll32(&c, AH_DATA, 0xf, 5, 0);
	ah_post(h, &c);
	sfab_accel_cmd_poll32(&c, AH_DATA, 0xf, 6, 0);
	ah_post(h, &c);
	ah_ring(h);
	CHECK_EQ(h->timer_arms, 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_CODE), SFAB_ACCEL_ERR_POLL_TIMEOUT);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_INDEX), 1);
	CHECK_EQ(h->e->stats.polls, 1);
	ah_free(h);
}

/* disabling abandons a waiting POLL; enabling runs it with a new timeout */
TEST(poll_disable_enable)
{
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	sfab_accel_cmd_poll32(&c, AH_DATA, 1, 1, 5000);
	ah_post(h, &c);
	ah_ring(h);
	REQUIRE(h->timer_armed);
	ah_wr(h, SFAB_ACCEL_REG_CTL, 0);
	CHECK(!h->timer_armed);
	CHECK_EQ(h->timer_cancels, 1);
	CHECK_EQ(ah_status(h), 0);
	/* much later: the POLL starts again and has its whole 5 us */
	h->now += 1000000;
	ah_wr(h, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_ENABLE);
	REQUIRE(h->timer_armed);
	CHECK_EQ(h->timer_deadline, h->now + 2000);
	ah_put32(h, AH_DATA, 1);
	ah_fire(h);
	CHECK_EQ(ah_ci(h), 1);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_CODE), 0);
	ah_free(h);
}

/* ---- budget ------------------------------------------------------------- */

/* one process() call runs at most 64 commands */
TEST(budget_commands)
{
	struct accel_host *h = ah_up(8);
	struct sfab_accel_cmd c;
	unsigned int i;

	sfab_accel_cmd_nop(&c);
	for (i = 0; i < 200; i++)
		ah_post(h, &c);
	CHECK(ah_wr_norun(h, SFAB_ACCEL_REG_RING_PI, h->pi));
	sfab_accel_engine_process(h->e);
	CHECK_EQ(ah_ci(h), 64);
	CHECK(sfab_accel_engine_work_pending(h->e));
	CHECK_EQ(h->e->stats.yields, 1);
	sfab_accel_engine_process(h->e);
	CHECK_EQ(ah_ci(h), 128);
	sfab_accel_engine_process(h->e);
	CHECK_EQ(ah_ci(h), 192);
	sfab_accel_engine_process(h->e);
	CHECK_EQ(ah_ci(h), 200);
	CHECK(!sfab_accel_engine_work_pending(h->e));
	CHECK_EQ(h->e->stats.kicks, 4);
	CHECK_EQ(h->e->stats.yields, 3);
	/* nothing to do: the call returns at once */
	sfab_accel_engine_process(h->e);
	CHECK_EQ(h->e->stats.kicks, 4);
	ah_free(h);
}

/* ... and stops after the command that moved 256 KiB */
TEST(budget_bytes)
{
	struct accel_host *h = ah_up(4);
	struct sfab_accel_cmd c;
	unsigned int i;

	for (i = 0; i < 6; i++) {
		sfab_accel_cmd_copy(&c, AH_DATA + 0x10000, AH_DATA,
				    SFAB_ACCEL_COPY_MAX);
		ah_post(h, &c);
	}
	sfab_accel_cmd_copy(&c, AH_DATA + 0x10000, AH_DATA, 100);
	ah_post(h, &c);
	CHECK(ah_wr_norun(h, SFAB_ACCEL_REG_RING_PI, h->pi));
	sfab_accel_engine_process(h->e);
	CHECK_EQ(ah_ci(h), 4);
	sfab_accel_engine_process(h->e);
	CHECK_EQ(ah_ci(h), 7);
	CHECK(!sfab_accel_engine_work_pending(h->e));
	ah_free(h);
}

/* the budget comes from the config: 1 command per call */
TEST(budget_config)
{
	struct sfab_accel_engine_config cfg = SFAB_ACCEL_ENGINE_CONFIG_DEFAULT;
	struct accel_host *h;
	struct sfab_accel_cmd c;

	cfg.kick_cmds = 1;
	h = ah_new_cfg(&cfg);
	ah_ring_setup(h, 2);
	sfab_accel_cmd_nop(&c);
	ah_post(h, &c);
	ah_post(h, &c);
	ah_post(h, &c);
	CHECK(ah_wr_norun(h, SFAB_ACCEL_REG_RING_PI, h->pi));
	CHECK_EQ(ah_run(h), 3);
	CHECK_EQ(ah_ci(h), 3);
	ah_free(h);
}

/* ---- the ring ----------------------------------------------------------- */

/*
 * A ring of 4: 11 STORE32s in batches of 3, 4 and 4, each storing its own
 * index to word [index]; the slots are reused in order.
 */
TEST(ring_wraps)
{
	static const unsigned int batch[] = { 3, 4, 4 };
	struct accel_host *h = ah_up(2);
	struct sfab_accel_cmd c;
	unsigned int b, i, n = 0;

	for (b = 0; b < 3; b++) {
		for (i = 0; i < batch[b]; i++, n++) {
			sfab_accel_cmd_store32(&c, AH_DATA + 4 * n, 0x100 + n);
			ah_post(h, &c);
		}
		ah_ring(h);
		CHECK_EQ(ah_ci(h), n);
	}
	for (i = 0; i < 11; i++)
		CHECK_EQ(ah_get32(h, AH_DATA + 4 * i), 0x100 + i);
	CHECK_EQ(ah_get32(h, AH_DATA + 44), 0);
	/* the last command was index 10, slot 2 */
	CHECK_EQ(((struct sfab_accel_cmd *)ah_p(h, AH_RING + 2 * 64))->u.store.value,
		 sfab_cpu_to_le64(0x10a));
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

/* the free-running 32-bit indices wrap: 0xfffffffe .. 0x00000002 */
TEST(ring_index_wraps)
{
	struct accel_host *h = ah_up(2);
	struct sfab_accel_cmd c;
	unsigned int i;

	/* where a long-running ring would be */
	h->e->ci = 0xfffffffe;
	h->e->pi = 0xfffffffe;
	h->pi = 0xfffffffe;
	for (i = 0; i < 4; i++) {
		sfab_accel_cmd_store32(&c, AH_DATA + 4 * i, 0xa0 + i);
		ah_post(h, &c);
	}
	CHECK_EQ(h->pi, 2);
	ah_ring(h);
	CHECK_EQ(ah_ci(h), 2);
	for (i = 0; i < 4; i++)
		CHECK_EQ(ah_get32(h, AH_DATA + 4 * i), 0xa0 + i);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_CODE), 0);
	ah_free(h);
}

/* a full ring (PI - CI == depth) is fine */
TEST(ring_full)
{
	struct accel_host *h = ah_up(2);
	struct sfab_accel_cmd c;
	unsigned int i;

	sfab_accel_cmd_nop(&c);
	for (i = 0; i < 4; i++)
		ah_post(h, &c);
	ah_ring(h);
	CHECK_EQ(ah_ci(h), 4);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

/* ---- reset -------------------------------------------------------------- */

/*
 * After an error, RESET clears the registers (the mask too) and the error,
 * keeps memory and the counters; the ring, programmed again, runs.
 */
TEST(reset_recovers)
{
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	ah_wr(h, SFAB_ACCEL_REG_INTR_MASK, SFAB_ACCEL_INTR_CPL);
	sfab_accel_cmd_store32(&c, AH_DATA, 0x1234);
	ah_post(h, &c);
	memset(&c, 0, sizeof(c));		/* opcode 0 */
	ah_post(h, &c);
	ah_ring(h);
	REQUIRE(ah_status(h) & SFAB_ACCEL_STS_ERROR);

	ah_wr(h, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_RESET);
	CHECK_EQ(ah_status(h), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_CTL), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_CODE), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_INDEX), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_STATUS), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_MASK), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_RING_BASE_LO), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_RING_CFG), 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_RING_PI), 0);
	CHECK_EQ(ah_ci(h), 0);
	CHECK_EQ(ah_get32(h, AH_DATA), 0x1234);
	CHECK_EQ(h->e->stats.errors, 1);
	CHECK_EQ(h->e->stats.cmds, 1);

	ah_ring_setup(h, 3);
	sfab_accel_cmd_store32(&c, AH_DATA + 4, 0x5678);
	ah_post(h, &c);
	sfab_accel_cmd_complete(&c, 0, 9, true);
	ah_post(h, &c);
	ah_ring(h);
	CHECK_EQ(ah_ci(h), 2);
	CHECK_EQ(ah_get32(h, AH_DATA + 4), 0x5678);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_SEQ_LO), 9);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_CPL], 1);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	ah_free(h);
}

/* a reset while a POLL waits cancels its timer; nothing runs after */
TEST(reset_while_polling)
{
	struct accel_host *h = ah_up(3);
	struct sfab_accel_cmd c;

	sfab_accel_cmd_poll32(&c, AH_DATA, 1, 1, 5000);
	ah_post(h, &c);
	ah_ring(h);
	REQUIRE(h->timer_armed);
	ah_wr(h, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_RESET | SFAB_ACCEL_CTL_ENABLE);
	CHECK(!h->timer_armed);
	/* ENABLE in the RESET write is ignored */
	CHECK_EQ(ah_status(h), 0);
	/* a late timer call finds nothing to do */
	CHECK(!sfab_accel_engine_timer(h->e));
	CHECK_EQ(h->e->stats.poll_retries, 0);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}
