/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/accel-errors: every way a guest can get the sfab-accel ring wrong
 * stops it in the error state with the right code and index, reports once
 * at its own site, raises the error interrupt once, and changes no memory
 * after the failing command: each bad command (a zeroed slot, an unknown
 * opcode, each reserved field, lengths and a timeout out of bounds,
 * misaligned STORE, POLL and COMPLETE addresses, DMA failures of each
 * command that does DMA) sits between a good STORE before it and one
 * after it, and all memory but the first STORE's word must be as it was.
 * Ring errors: a base or depth the contract refuses, ring registers
 * written while enabled, PI more than a ring ahead (written, or found on
 * enable), a ring DMA cannot read.  Register misuse (unknown offsets,
 * read-only registers, reserved bits) is reported and ignored, without
 * stopping the ring.  An error interrupt masked is held until unmasked.
 */
#include "harness.h"
#include "accel_host.h"

#define A_BEFORE	(AH_DATA + 0x0)		/* the good STORE before */
#define A_AFTER		(AH_DATA + 0x4)		/* the good STORE after */
#define A_BUF		(AH_DATA + 0x100)	/* targets of the bad one */
#define A_HOLE		(AH_MEM_BASE + 0x80000)	/* DMA fails here */

/* since the host was made: @n reports at @site, none elsewhere */
static void ge_expect(struct accel_host *h, enum sfab_accel_ge site,
		      unsigned long n)
{
	unsigned int i;

	for (i = 0; i < SFAB_ACCEL_GE__COUNT; i++) {
		unsigned long want = i == site ? n : 0;

		CHECK_EQ(h->ge_sites[i], want);
		if (h->ge_sites[i] != want)
			fprintf(stderr, "  site %s: %lu reports, want %lu\n",
				sfab_accel_engine_site_name(i), h->ge_sites[i],
				want);
	}
}

/* the ring stopped at @index with @err, reported at @site, once */
static void expect_stopped(struct accel_host *h, unsigned int err,
			   uint32_t index, enum sfab_accel_ge site)
{
	CHECK(ah_status(h) & SFAB_ACCEL_STS_ERROR);
	CHECK(!(ah_status(h) & (SFAB_ACCEL_STS_BUSY | SFAB_ACCEL_STS_POLLING)));
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_CODE), err);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ERR_INDEX), index);
	CHECK_EQ(ah_ci(h), index);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_ERR], 1);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_CPL], 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_STATUS) & SFAB_ACCEL_INTR_ERR,
		 SFAB_ACCEL_INTR_ERR);
	CHECK_EQ(h->e->stats.errors, 1);
	CHECK(!h->timer_armed);
	ge_expect(h, site, 1);
	CHECK(!sfab_accel_engine_work_pending(h->e));
}

enum bad {
	BAD_ZERO_SLOT, BAD_OPCODE_0A, BAD_OPCODE_FF,
	BAD_NOP_FLAGS, BAD_NOP_ADDR, BAD_NOP_LEN, BAD_HDR_RESERVED,
	BAD_FENCE_BODY, BAD_STORE32_HIGH, BAD_STORE64_LEN, BAD_STORE64_BODY,
	BAD_POLL32_MASK, BAD_POLL32_EXPECT, BAD_POLL64_BODY, BAD_IMM_TAIL,
	BAD_COPY_BODY, BAD_COMPLETE_FLAGS, BAD_COMPLETE_BODY,
	BAD_IMM_LEN_0, BAD_IMM_LEN_49, BAD_COPY_LEN_0, BAD_COPY_LEN_MAX1,
	BAD_POLL_TIMEOUT,
	BAD_STORE32_ALIGN, BAD_STORE64_ALIGN, BAD_POLL32_ALIGN,
	BAD_POLL64_ALIGN, BAD_COMPLETE_ALIGN,
	BAD_DMA_IMM, BAD_DMA_COPY_SRC, BAD_DMA_COPY_DST, BAD_DMA_STORE32,
	BAD_DMA_STORE64, BAD_DMA_POLL, BAD_DMA_COMPLETE, BAD_DMA_PEER,
	BAD__COUNT
};

static const char *const bad_names[BAD__COUNT] = {
	"zero slot", "opcode 0x0a", "opcode 0xff",
	"NOP flags", "NOP addr", "NOP len", "header reserved",
	"FENCE body", "STORE32 value 63:32", "STORE64 len", "STORE64 body",
	"POLL32 mask 63:32", "POLL32 expect 63:32", "POLL64 body",
	"WRITE_IMM data past len", "COPY body", "COMPLETE flags",
	"COMPLETE body",
	"WRITE_IMM len 0", "WRITE_IMM len 49", "COPY len 0",
	"COPY len max + 1", "POLL timeout 10 s + 1",
	"STORE32 align", "STORE64 align", "POLL32 align", "POLL64 align",
	"COMPLETE align",
	"WRITE_IMM DMA", "COPY source DMA", "COPY destination DMA",
	"STORE32 DMA", "STORE64 DMA", "POLL DMA", "COMPLETE DMA",
	"STORE64 to a peer DMA",
};

/* the bad command of each kind, and the error it must stop the ring with */
static unsigned int bad_cmd(enum bad b, struct sfab_accel_cmd *c)
{
	static const uint8_t imm[48] = { 1, 2, 3 };
	uint8_t *raw = (uint8_t *)c;

	switch (b) {
	case BAD_ZERO_SLOT:
		memset(c, 0, sizeof(*c));
		return SFAB_ACCEL_ERR_OPCODE;
	case BAD_OPCODE_0A:
		sfab_accel_cmd_nop(c);
		c->opcode = 0x0a;
		return SFAB_ACCEL_ERR_OPCODE;
	case BAD_OPCODE_FF:
		sfab_accel_cmd_nop(c);
		c->opcode = 0xff;
		return SFAB_ACCEL_ERR_OPCODE;
	case BAD_NOP_FLAGS:
		sfab_accel_cmd_nop(c);
		c->flags = SFAB_ACCEL_CMD_F_IRQ;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_NOP_ADDR:
		sfab_accel_cmd_nop(c);
		raw[15] = 0x80;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_NOP_LEN:
		sfab_accel_cmd_nop(c);
		raw[4] = 1;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_HDR_RESERVED:
		sfab_accel_cmd_store32(c, A_BUF, 1);
		raw[3] = 0x01;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_FENCE_BODY:
		sfab_accel_cmd_fence(c);
		raw[63] = 1;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_STORE32_HIGH:
		sfab_accel_cmd_store64(c, A_BUF, 0x100000001ULL);
		c->opcode = SFAB_ACCEL_OP_STORE32;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_STORE64_LEN:
		sfab_accel_cmd_store64(c, A_BUF, 1);
		raw[7] = 1;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_STORE64_BODY:
		sfab_accel_cmd_store64(c, A_BUF, 1);
		raw[24] = 1;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_POLL32_MASK:
		sfab_accel_cmd_poll64(c, A_BUF, 1ULL << 32, 0, 0);
		c->opcode = SFAB_ACCEL_OP_POLL32;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_POLL32_EXPECT:
		sfab_accel_cmd_poll64(c, A_BUF, 0xff, 1ULL << 63, 0);
		c->opcode = SFAB_ACCEL_OP_POLL32;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_POLL64_BODY:
		sfab_accel_cmd_poll64(c, A_BUF, 0, 0, 0);
		raw[40] = 1;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_IMM_TAIL:
		sfab_accel_cmd_write_imm(c, A_BUF, imm, 3);
		raw[16 + 3] = 0x44;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_COPY_BODY:
		sfab_accel_cmd_copy(c, A_BUF, AH_DATA + 0x200, 8);
		raw[32] = 1;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_COMPLETE_FLAGS:
		sfab_accel_cmd_complete(c, 0, 1, true);
		c->flags |= 0x80;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_COMPLETE_BODY:
		sfab_accel_cmd_complete(c, A_BUF, 1, true);
		raw[56] = 1;
		return SFAB_ACCEL_ERR_RESERVED;
	case BAD_IMM_LEN_0:
		CHECK_EQ(sfab_accel_cmd_write_imm(c, A_BUF, imm, 0), -EINVAL);
		return SFAB_ACCEL_ERR_BOUNDS;
	case BAD_IMM_LEN_49:
		CHECK_EQ(sfab_accel_cmd_write_imm(c, A_BUF, imm, 48), 0);
		c->len = sfab_cpu_to_le32(49);
		return SFAB_ACCEL_ERR_BOUNDS;
	case BAD_COPY_LEN_0:
		CHECK_EQ(sfab_accel_cmd_copy(c, A_BUF, AH_DATA + 0x200, 0), -EINVAL);
		return SFAB_ACCEL_ERR_BOUNDS;
	case BAD_COPY_LEN_MAX1:
		CHECK_EQ(sfab_accel_cmd_copy(c, A_BUF, AH_DATA + 0x200,
					     SFAB_ACCEL_COPY_MAX + 1), -EINVAL);
		return SFAB_ACCEL_ERR_BOUNDS;
	case BAD_POLL_TIMEOUT:
		CHECK_EQ(sfab_accel_cmd_poll32(c, A_BUF, 1, 0,
					       10000000001ULL), -EINVAL);
		return SFAB_ACCEL_ERR_BOUNDS;
	case BAD_STORE32_ALIGN:
		CHECK_EQ(sfab_accel_cmd_store32(c, A_BUF + 2, 1), -EINVAL);
		return SFAB_ACCEL_ERR_ALIGN;
	case BAD_STORE64_ALIGN:
		CHECK_EQ(sfab_accel_cmd_store64(c, A_BUF + 4, 1), -EINVAL);
		return SFAB_ACCEL_ERR_ALIGN;
	case BAD_POLL32_ALIGN:
		CHECK_EQ(sfab_accel_cmd_poll32(c, A_BUF + 1, 0, 0, 0), -EINVAL);
		return SFAB_ACCEL_ERR_ALIGN;
	case BAD_POLL64_ALIGN:
		CHECK_EQ(sfab_accel_cmd_poll64(c, A_BUF + 4, 0, 0, 0), -EINVAL);
		return SFAB_ACCEL_ERR_ALIGN;
	case BAD_COMPLETE_ALIGN:
		CHECK_EQ(sfab_accel_cmd_complete(c, A_BUF + 4, 1, true), -EINVAL);
		return SFAB_ACCEL_ERR_ALIGN;
	case BAD_DMA_IMM:
		sfab_accel_cmd_write_imm(c, A_HOLE, imm, 3);
		return SFAB_ACCEL_ERR_DMA;
	case BAD_DMA_COPY_SRC:
		sfab_accel_cmd_copy(c, A_BUF, A_HOLE, 64);
		return SFAB_ACCEL_ERR_DMA;
	case BAD_DMA_COPY_DST:
		sfab_accel_cmd_copy(c, A_HOLE, AH_DATA + 0x200, 64);
		return SFAB_ACCEL_ERR_DMA;
	case BAD_DMA_STORE32:
		sfab_accel_cmd_store32(c, A_HOLE, 1);
		return SFAB_ACCEL_ERR_DMA;
	case BAD_DMA_STORE64:
		sfab_accel_cmd_store64(c, A_HOLE, 1);
		return SFAB_ACCEL_ERR_DMA;
	case BAD_DMA_POLL:
		sfab_accel_cmd_poll32(c, A_HOLE, 0, 0, 1000);
		return SFAB_ACCEL_ERR_DMA;
	case BAD_DMA_COMPLETE:
		sfab_accel_cmd_complete(c, A_HOLE, 7, true);
		return SFAB_ACCEL_ERR_DMA;
	case BAD_DMA_PEER:
		/* the peer's page fails (a device gone, bus mastering off) */
		sfab_accel_cmd_store64(c, AH_PEER_BASE + 8, 1);
		return SFAB_ACCEL_ERR_DMA;
	case BAD__COUNT:
		break;
	}
	abort();
}

static const enum sfab_accel_ge site_of[] = {
	[SFAB_ACCEL_ERR_RING_CONFIG] = SFAB_ACCEL_GE_RING_CONFIG,
	[SFAB_ACCEL_ERR_RING_OVERRUN] = SFAB_ACCEL_GE_RING_OVERRUN,
	[SFAB_ACCEL_ERR_RING_DMA] = SFAB_ACCEL_GE_RING_DMA,
	[SFAB_ACCEL_ERR_OPCODE] = SFAB_ACCEL_GE_CMD_OPCODE,
	[SFAB_ACCEL_ERR_RESERVED] = SFAB_ACCEL_GE_CMD_RESERVED,
	[SFAB_ACCEL_ERR_BOUNDS] = SFAB_ACCEL_GE_CMD_BOUNDS,
	[SFAB_ACCEL_ERR_ALIGN] = SFAB_ACCEL_GE_CMD_ALIGN,
	[SFAB_ACCEL_ERR_DMA] = SFAB_ACCEL_GE_CMD_DMA,
	[SFAB_ACCEL_ERR_POLL_TIMEOUT] = SFAB_ACCEL_GE_POLL_TIMEOUT,
};

/*
 * [NOP, STORE32 A_BEFORE, bad, STORE32 A_AFTER, COMPLETE]: the ring stops
 * at index 2; memory is as before but for A_BEFORE's word.
 */
TEST(bad_commands)
{
	static uint8_t snap[AH_MEM_SIZE];
	unsigned int b;

	for (b = 0; b < BAD__COUNT; b++) {
		struct accel_host *h = ah_up(3);
		struct sfab_accel_cmd c;
		unsigned int err, i;
		unsigned long fails_before = harness_failures;

		for (i = 0; i < 0x400; i++)
			ah_p(h, AH_DATA)[i] = (uint8_t)(i * 3 + 1);
		h->fail_lo = A_HOLE;
		h->fail_hi = A_HOLE + 0x1000;
		if (b == BAD_DMA_PEER) {
			h->fail_lo = AH_PEER_BASE;
			h->fail_hi = AH_PEER_BASE + AH_PEER_SIZE;
		}

		sfab_accel_cmd_nop(&c);
		ah_post(h, &c);
		sfab_accel_cmd_store32(&c, A_BEFORE, 0xb4);
		ah_post(h, &c);
		err = bad_cmd(b, &c);
		ah_post(h, &c);
		sfab_accel_cmd_store32(&c, A_AFTER, 0xaf);
		ah_post(h, &c);
		sfab_accel_cmd_complete(&c, AH_DATA + 0x300, 1, true);
		ah_post(h, &c);

		memcpy(snap, h->mem, AH_MEM_SIZE);
		snap[A_BEFORE - AH_MEM_BASE] = 0xb4;
		snap[A_BEFORE - AH_MEM_BASE + 1] = 0;
		snap[A_BEFORE - AH_MEM_BASE + 2] = 0;
		snap[A_BEFORE - AH_MEM_BASE + 3] = 0;
		ah_ring(h);

		expect_stopped(h, err, 2, site_of[err]);
		CHECK(!memcmp(h->mem, snap, AH_MEM_SIZE));
		CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_SEQ_LO), 0);
		CHECK_EQ(h->npeer, 0);
		CHECK_EQ(h->e->stats.cmds, 2);
		/* the doorbell again: still stopped, nothing more runs */
		ah_ring(h);
		CHECK_EQ(ah_ci(h), 2);
		CHECK(!memcmp(h->mem, snap, AH_MEM_SIZE));
		if (harness_failures != fails_before)
			fprintf(stderr, "  ... with the bad command \"%s\"\n",
				bad_names[b]);
		ah_free(h);
	}
}

/* ---- ring errors -------------------------------------------------------- */

/* program the ring registers as given and enable */
static void enable_ring(struct accel_host *h, uint64_t base, uint32_t cfg)
{
	ah_wr(h, SFAB_ACCEL_REG_RING_BASE_LO, (uint32_t)base);
	ah_wr(h, SFAB_ACCEL_REG_RING_BASE_HI, (uint32_t)(base >> 32));
	ah_wr(h, SFAB_ACCEL_REG_RING_CFG, cfg);
	ah_wr(h, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_ENABLE);
}

TEST(ring_config_refused)
{
	static const struct {
		uint64_t base;
		uint32_t log;
	} bad[] = {
		{ 0, 4 },			/* no base */
		{ AH_RING + 0x20, 4 },		/* not command aligned */
		{ AH_RING, 1 },			/* below the least depth */
		{ AH_RING, 17 },		/* beyond the deepest */
		{ 0xffffffffffffff00ULL, 3 },	/* wraps the address space */
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct accel_host *h = ah_new();

		enable_ring(h, bad[i].base, bad[i].log);
		expect_stopped(h, SFAB_ACCEL_ERR_RING_CONFIG, 0,
			       SFAB_ACCEL_GE_RING_CONFIG);
		CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED |
				       SFAB_ACCEL_STS_ERROR);
		CHECK_EQ(h->dma_reads + h->dma_writes, 0);
		ah_free(h);
	}
}

/* the limits themselves are fine: 4 and 65536 commands */
TEST(ring_config_limits)
{
	struct accel_host *h = ah_new();

	enable_ring(h, AH_RING, SFAB_ACCEL_RING_MIN_LOG_DEPTH);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	ah_wr(h, SFAB_ACCEL_REG_CTL, 0);
	enable_ring(h, AH_RING, SFAB_ACCEL_RING_MAX_LOG_DEPTH);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	CHECK_EQ(h->guest_errors, 0);
	ah_free(h);
}

/* each ring register written while enabled stops the ring at CI */
TEST(ring_reprogrammed_while_enabled)
{
	static const uint32_t regs[] = {
		SFAB_ACCEL_REG_RING_BASE_LO, SFAB_ACCEL_REG_RING_BASE_HI,
		SFAB_ACCEL_REG_RING_CFG,
	};
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct accel_host *h = ah_up(3);
		struct sfab_accel_cmd c;

		sfab_accel_cmd_nop(&c);
		ah_post(h, &c);
		ah_ring(h);
		ah_wr(h, regs[i], 0);
		expect_stopped(h, SFAB_ACCEL_ERR_RING_CONFIG, 1,
			       SFAB_ACCEL_GE_RING_CONFIG);
		ah_free(h);
	}
	/* disabled, they may change */
	{
		struct accel_host *h = ah_up(3);

		ah_wr(h, SFAB_ACCEL_REG_CTL, 0);
		ah_wr(h, SFAB_ACCEL_REG_RING_CFG, 4);
		ah_wr(h, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_ENABLE);
		CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
		CHECK_EQ(h->guest_errors, 0);
		ah_free(h);
	}
}

/* PI more than a ring ahead: on the doorbell, and found on enable */
TEST(ring_overrun)
{
	struct accel_host *h = ah_up(2);
	struct sfab_accel_cmd c;

	sfab_accel_cmd_store32(&c, AH_DATA, 1);
	ah_post(h, &c);
	ah_ring(h);
	ah_wr(h, SFAB_ACCEL_REG_RING_PI, 1 + 5);
	expect_stopped(h, SFAB_ACCEL_ERR_RING_OVERRUN, 1,
		       SFAB_ACCEL_GE_RING_OVERRUN);
	ah_free(h);

	/* behind CI is as far ahead as it gets */
	h = ah_up(2);
	ah_wr(h, SFAB_ACCEL_REG_RING_PI, 0xffffffff);
	expect_stopped(h, SFAB_ACCEL_ERR_RING_OVERRUN, 0,
		       SFAB_ACCEL_GE_RING_OVERRUN);
	CHECK_EQ(h->dma_reads, 0);
	ah_free(h);

	h = ah_new();
	ah_wr(h, SFAB_ACCEL_REG_RING_PI, 5);
	CHECK_EQ(h->guest_errors, 0);		/* disabled: no ring to check */
	enable_ring(h, AH_RING, 2);
	expect_stopped(h, SFAB_ACCEL_ERR_RING_OVERRUN, 0,
		       SFAB_ACCEL_GE_RING_OVERRUN);
	CHECK_EQ(h->dma_reads, 0);
	ah_free(h);
}

/* a ring where DMA cannot read: RING_DMA, not DMA */
TEST(ring_dma)
{
	struct accel_host *h = ah_new();

	enable_ring(h, AH_MEM_BASE + AH_MEM_SIZE, 2);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	ah_wr(h, SFAB_ACCEL_REG_RING_PI, 1);
	expect_stopped(h, SFAB_ACCEL_ERR_RING_DMA, 0, SFAB_ACCEL_GE_RING_DMA);
	CHECK_EQ(h->dma_writes, 0);
	ah_free(h);
}

/* ---- interrupts --------------------------------------------------------- */

TEST(error_irq_masked)
{
	struct accel_host *h = ah_up(2);
	struct sfab_accel_cmd c;

	ah_wr(h, SFAB_ACCEL_REG_INTR_MASK, SFAB_ACCEL_INTR_ERR);
	memset(&c, 0, sizeof(c));
	ah_post(h, &c);
	ah_ring(h);
	CHECK(ah_status(h) & SFAB_ACCEL_STS_ERROR);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_ERR], 0);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_STATUS), SFAB_ACCEL_INTR_ERR);
	ah_wr(h, SFAB_ACCEL_REG_INTR_MASK, 0);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_ERR], 1);
	ah_free(h);
}

/* ---- register misuse: reported, ignored, the ring runs on ---------------- */

TEST(register_misuse)
{
	struct accel_host *h = ah_up(2);
	struct sfab_accel_cmd c;

	CHECK_EQ(ah_rd(h, 0x040), 0xffffffff);
	CHECK_EQ(ah_rd(h, 0xffc), 0xffffffff);
	CHECK_EQ(h->ge_sites[SFAB_ACCEL_GE_REG_READ], 2);

	ah_wr(h, SFAB_ACCEL_REG_ID, 0);
	ah_wr(h, SFAB_ACCEL_REG_RING_CI, 3);
	ah_wr(h, SFAB_ACCEL_REG_STATUS, 0);
	ah_wr(h, 0x800, 1);
	CHECK_EQ(h->ge_sites[SFAB_ACCEL_GE_REG_WRITE], 4);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_ID), SFAB_ACCEL_ID_MAGIC);
	CHECK_EQ(ah_ci(h), 0);

	/* reserved bits: reported, the defined ones still act */
	ah_wr(h, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_ENABLE | 0x100);
	ah_wr(h, SFAB_ACCEL_REG_INTR_MASK, 0x10 | SFAB_ACCEL_INTR_CPL);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_INTR_MASK), SFAB_ACCEL_INTR_CPL);
	ah_wr(h, SFAB_ACCEL_REG_INTR_STATUS, 0x80000000);
	CHECK_EQ(h->ge_sites[SFAB_ACCEL_GE_REG_RESERVED], 3);

	CHECK_EQ(h->e->stats.errors, 0);
	CHECK_EQ(h->irqs[SFAB_ACCEL_MSIX_ERR], 0);
	sfab_accel_cmd_store32(&c, AH_DATA, 0x77);
	ah_post(h, &c);
	ah_ring(h);
	CHECK_EQ(ah_ci(h), 1);
	CHECK_EQ(ah_get32(h, AH_DATA), 0x77);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	ah_free(h);
}

/* RING_CFG's reserved bits while disabled: reported, the depth kept */
TEST(ring_cfg_reserved_bits)
{
	struct accel_host *h = ah_new();

	enable_ring(h, AH_RING, 0x100 | 3);
	CHECK_EQ(h->ge_sites[SFAB_ACCEL_GE_REG_RESERVED], 1);
	CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_RING_CFG), 3);
	CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
	ah_free(h);
}
