/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/accel-fuzz: the sfab-accel engine under thousands of random
 * register writes, doorbells, ring slots (valid commands aimed anywhere,
 * and random bytes), DMA failures and clock moves, with a fixed seed.
 * Nothing may crash (the sanitizers watch memory and undefined
 * behaviour); one process() call runs at most the per-kick command budget
 * and makes a bounded number of DMA accesses; the consumer index only
 * moves forward, and never past the producer index; pending work always
 * drains; and after a reset the device runs a program again.
 */
#include "harness.h"
#include "rng.h"
#include "accel_host.h"

/* an address a program might use: memory, the peer page, or anything */
static uint64_t rnd_addr(void)
{
	uint32_t r = rnd_below(20);

	if (r < 10)
		return AH_DATA + rnd_below(0x1000) * 8;
	if (r < 15)
		return AH_PEER_BASE + rnd_below(AH_PEER_SIZE / 8) * 8;
	if (r < 18)
		return AH_MEM_BASE + rnd_below(AH_MEM_SIZE + 64);
	return rnd();
}

/* a ring slot: a command the encoders accept, or random bytes */
static void rnd_cmd(struct sfab_accel_cmd *c)
{
	uint8_t data[SFAB_ACCEL_IMM_MAX];
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = rnd();
	switch (rnd_below(10)) {
	case 0:
		sfab_accel_cmd_nop(c);
		break;
	case 1:
		sfab_accel_cmd_fence(c);
		break;
	case 2:
		sfab_accel_cmd_write_imm(c, rnd_addr(), data,
					 rnd_below(SFAB_ACCEL_IMM_MAX) + 1);
		break;
	case 3:
		sfab_accel_cmd_copy(c, rnd_addr(), rnd_addr(),
				    rnd_below(SFAB_ACCEL_COPY_MAX) + 1);
		break;
	case 4:
		sfab_accel_cmd_store32(c, rnd_addr() & ~3ULL, rnd());
		break;
	case 5:
		sfab_accel_cmd_store64(c, rnd_addr() & ~7ULL, rnd());
		break;
	case 6:
		sfab_accel_cmd_poll32(c, rnd_addr() & ~3ULL, rnd(), rnd(),
				      rnd_below(3) ? rnd_below(100000) : rnd());
		break;
	case 7:
		sfab_accel_cmd_complete(c, rnd_below(2) ? 0 : rnd_addr(),
					rnd(), rnd_below(2));
		break;
	default:
		for (i = 0; i < sizeof(*c); i++)
			((uint8_t *)c)[i] = rnd();
		if (rnd_below(2))
			c->opcode = rnd_below(SFAB_ACCEL_OP_MAX + 2);
		break;
	}
}

static const uint32_t regs[] = {
	SFAB_ACCEL_REG_ID, SFAB_ACCEL_REG_VERSION, SFAB_ACCEL_REG_MEM_SIZE,
	SFAB_ACCEL_REG_CTL, SFAB_ACCEL_REG_STATUS, SFAB_ACCEL_REG_ERR_CODE,
	SFAB_ACCEL_REG_ERR_INDEX, SFAB_ACCEL_REG_INTR_STATUS,
	SFAB_ACCEL_REG_INTR_MASK, SFAB_ACCEL_REG_RING_CFG,
	SFAB_ACCEL_REG_RING_BASE_LO, SFAB_ACCEL_REG_RING_BASE_HI,
	SFAB_ACCEL_REG_RING_PI, SFAB_ACCEL_REG_RING_CI,
	SFAB_ACCEL_REG_SEQ_LO, SFAB_ACCEL_REG_SEQ_HI,
};

#define N_REGS	(sizeof(regs) / sizeof(regs[0]))

/* values a confused driver might write, now and then anything */
static uint32_t plausible(uint32_t reg)
{
	if (!rnd_below(4))
		return rnd();
	switch (reg) {
	case SFAB_ACCEL_REG_CTL:
		return rnd_below(4);
	case SFAB_ACCEL_REG_RING_CFG:
		return rnd_below(20);
	case SFAB_ACCEL_REG_RING_BASE_LO:
		return (uint32_t)AH_RING + rnd_below(4) * 64;
	case SFAB_ACCEL_REG_RING_BASE_HI:
		return rnd_below(8) ? 0 : rnd();
	case SFAB_ACCEL_REG_RING_PI:
		return rnd_below(64);
	default:
		return rnd_below(16);
	}
}

/*
 * Run the pending work one process() call at a time, as QEMU's bottom
 * half does, checking each call's bounds.
 */
static void drain(struct accel_host *h,
		  const struct sfab_accel_engine_config *cfg)
{
	unsigned int rounds = 0;

	while (sfab_accel_engine_work_pending(h->e)) {
		uint32_t ci = ah_ci(h);
		unsigned long dma = h->dma_reads + h->dma_writes;

		sfab_accel_engine_process(h->e);
		/* a command reads its slot, then at most a read and a write */
		CHECK(ah_ci(h) - ci <= cfg->kick_cmds);
		CHECK(h->dma_reads + h->dma_writes - dma <= 3 * cfg->kick_cmds);
		if (++rounds > 10000) {
			CHECK(!"pending work never drains");
			return;
		}
	}
}

TEST(accel_fuzz)
{
	/* small budgets, so that rings of up to 64 commands overrun them */
	struct sfab_accel_engine_config cfg = SFAB_ACCEL_ENGINE_CONFIG_DEFAULT;
	unsigned long ran = 0, peer = 0, polls = 0;
	unsigned int round, step, errs = 0;

	rng_state = 0x5fabacce1f00d123ULL;
	cfg.kick_cmds = 5;
	cfg.kick_bytes = 4096;
	for (round = 0; round < 30; round++) {
		struct accel_host *h = ah_new_cfg(&cfg);
		struct sfab_accel_cmd c;
		uint32_t ci = 0, pi, st;

		ah_ring_setup(h, 2 + rnd_below(5));
		for (step = 0; step < 1500; step++) {
			uint32_t reg = regs[rnd_below(N_REGS)];

			switch (rnd_below(8)) {
			case 0:
				sfab_accel_engine_reg_write(h->e, reg,
							    plausible(reg));
				break;
			case 1:
				/* an unaligned, unknown or odd offset */
				sfab_accel_engine_reg_write(h->e,
							    rnd_below(0x1100),
							    rnd());
				break;
			case 2:
				rnd_cmd(&c);
				memcpy(ah_p(h, sfab_accel_ring_cmd_addr(
					AH_RING, h->log, rnd_below(1U << h->log))),
				       &c, sizeof(c));
				break;
			case 3:
				/* the doorbell: mostly a few commands on */
				pi = ah_ci(h) + rnd_below((1U << h->log) + 2);
				sfab_accel_engine_reg_write(h->e,
							    SFAB_ACCEL_REG_RING_PI,
							    pi);
				break;
			case 4:
				if (rnd_below(3)) {
					h->fail_lo = h->fail_hi = 0;
				} else {
					h->fail_lo = rnd_addr();
					h->fail_hi = h->fail_lo +
						     rnd_below(0x10000);
				}
				break;
			case 5:
				if (h->timer_armed && rnd_below(2)) {
					h->timer_armed = false;
					h->now = h->timer_deadline;
					sfab_accel_engine_timer(h->e);
				} else {
					h->now += rnd_below(2000000);
				}
				break;
			case 6:
				/* as a driver does after an error, mostly */
				if (rnd_below(20) &&
				    !(ah_status(h) & SFAB_ACCEL_STS_ERROR))
					break;
				sfab_accel_engine_reg_write(h->e,
					SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_RESET);
				if (rnd_below(4)) {
					ah_ring_setup(h, 2 + rnd_below(5));
					/* slots of valid commands to run */
					for (pi = 0; pi < 1U << h->log; pi++) {
						do {
							rnd_cmd(&c);
						} while (sfab_accel_cmd_check(&c));
						memcpy(ah_p(h, sfab_accel_ring_cmd_addr(
							AH_RING, h->log, pi)),
						       &c, sizeof(c));
					}
				}
				break;
			default:
				(void)sfab_accel_engine_reg_read(h->e, reg);
				break;
			}
			drain(h, &cfg);
			/* CI moves forward only (a reset sets it to 0) */
			if (ah_ci(h)) {
				CHECK(ah_ci(h) - ci <= 0x7fffffffU);
				ran += ah_ci(h) - ci;
			}
			ci = ah_ci(h);
			/*
			 * a running ring never consumes past the doorbell nor
			 * holds more than its depth (a disabled one may hold
			 * any PI: it is checked when the ring is enabled)
			 */
			st = ah_status(h);
			if (st & SFAB_ACCEL_STS_ERROR)
				errs |= 1U << ah_rd(h, SFAB_ACCEL_REG_ERR_CODE);
			if (st & SFAB_ACCEL_STS_POLLING)
				polls++;
			if ((st & SFAB_ACCEL_STS_ENABLED) &&
			    !(st & SFAB_ACCEL_STS_ERROR))
				CHECK(sfab_accel_ring_used(
					ah_rd(h, SFAB_ACCEL_REG_RING_PI),
					ah_ci(h)) <=
				      1U << (ah_rd(h, SFAB_ACCEL_REG_RING_CFG) &
					     SFAB_ACCEL_RING_LOG_DEPTH_MASK));
		}

		/* a reset brings it back: NOP, COMPLETE(42) run */
		h->fail_lo = h->fail_hi = 0;
		ah_wr(h, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_RESET);
		CHECK_EQ(ah_status(h), 0);
		ah_ring_setup(h, 3);
		sfab_accel_cmd_nop(&c);
		ah_post(h, &c);
		CHECK_EQ(sfab_accel_cmd_complete(&c, 0, 42, false), 0);
		ah_post(h, &c);
		ah_ring(h);
		CHECK_EQ(ah_ci(h), 2);
		CHECK_EQ(ah_rd(h, SFAB_ACCEL_REG_SEQ_LO), 42);
		CHECK_EQ(ah_status(h), SFAB_ACCEL_STS_ENABLED);
		peer += h->npeer;
		ah_free(h);
	}
	/* the run reached what it is meant to shake: commands that ran,
	 * peer stores, waiting polls, and the ring stopped for most reasons
	 */
	CHECK(ran >= 1000);
	CHECK(peer >= 10);
	CHECK(polls >= 10);
	CHECK(__builtin_popcount(errs) >= 6);
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "ran %lu, peer stores %lu, polling %lu, error codes 0x%x\n",
			ran, peer, polls, errs);
}
