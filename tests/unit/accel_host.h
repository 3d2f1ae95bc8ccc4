/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake host for the sfab-accel engine: a byte array as memory (with
 * injectable DMA failures), a peer device's doorbell page that records
 * every write it gets (as an HCA's BAR2 would), a clock and a timer the
 * test moves by hand, an interrupt recorder, and a small "driver" that
 * programs the ring only through the registers, as the kernel driver
 * will.
 */
#ifndef SFAB_TEST_ACCEL_HOST_H
#define SFAB_TEST_ACCEL_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfab_accel_engine.h"

#define AH_MEM_BASE	0x10000000ULL	/* bus address of memory byte 0 */
#define AH_MEM_SIZE	(1U << 20)
#define AH_PEER_BASE	0xfe000000ULL	/* a peer device's doorbell page */
#define AH_PEER_SIZE	0x1000U
#define AH_PEER_LOG	64
#define AH_RING		AH_MEM_BASE	/* the ring, up to 2^12 commands */
#define AH_DATA		(AH_MEM_BASE + 0x40000)	/* where tests put data */
#define AH_T0		1000000ULL	/* the clock at the start */

struct ah_peer_write {
	uint64_t off;			/* in the peer page */
	size_t len;
	uint64_t val;			/* little-endian bytes as a number */
};

struct accel_host {
	struct sfab_accel_engine *e;
	uint8_t *mem;

	/* DMA to [fail_lo, fail_hi) fails */
	uint64_t fail_lo, fail_hi;
	unsigned long dma_reads, dma_writes;

	struct ah_peer_write peer[AH_PEER_LOG];
	unsigned int npeer;

	uint64_t now;
	bool timer_armed;
	uint64_t timer_deadline;
	unsigned long timer_arms, timer_cancels;

	unsigned long irqs[SFAB_ACCEL_MSIX_VECTORS];
	unsigned long ge_sites[SFAB_ACCEL_GE__COUNT];
	unsigned long guest_errors;
	char last_error[256];

	/* driver side */
	unsigned int log;		/* ring depth */
	uint32_t pi;			/* next index to write */
};

static inline bool ah_failing(struct accel_host *h, uint64_t addr, size_t len)
{
	return addr < h->fail_hi && addr + len > h->fail_lo;
}

static inline int ah_dma_read(void *opaque, uint64_t addr, void *buf,
			      size_t len)
{
	struct accel_host *h = opaque;

	h->dma_reads++;
	if (ah_failing(h, addr, len) || addr < AH_MEM_BASE ||
	    addr - AH_MEM_BASE > AH_MEM_SIZE ||
	    len > AH_MEM_SIZE - (addr - AH_MEM_BASE))
		return -1;
	memcpy(buf, h->mem + (addr - AH_MEM_BASE), len);
	return 0;
}

static inline int ah_dma_write(void *opaque, uint64_t addr, const void *buf,
			       size_t len)
{
	struct accel_host *h = opaque;
	const uint8_t *b = buf;
	size_t i;

	h->dma_writes++;
	if (ah_failing(h, addr, len))
		return -1;
	if (addr >= AH_PEER_BASE && addr - AH_PEER_BASE < AH_PEER_SIZE &&
	    len <= AH_PEER_SIZE - (addr - AH_PEER_BASE) && len <= 8) {
		struct ah_peer_write *w = &h->peer[h->npeer % AH_PEER_LOG];

		w->off = addr - AH_PEER_BASE;
		w->len = len;
		w->val = 0;
		for (i = 0; i < len; i++)
			w->val |= (uint64_t)b[i] << (8 * i);
		h->npeer++;
		return 0;
	}
	if (addr < AH_MEM_BASE || addr - AH_MEM_BASE > AH_MEM_SIZE ||
	    len > AH_MEM_SIZE - (addr - AH_MEM_BASE))
		return -1;
	memcpy(h->mem + (addr - AH_MEM_BASE), buf, len);
	return 0;
}

static inline uint64_t ah_now(void *opaque)
{
	return ((struct accel_host *)opaque)->now;
}

static inline void ah_timer_arm(void *opaque, uint64_t deadline)
{
	struct accel_host *h = opaque;

	h->timer_armed = true;
	h->timer_deadline = deadline;
	h->timer_arms++;
}

static inline void ah_timer_cancel(void *opaque)
{
	struct accel_host *h = opaque;

	h->timer_armed = false;
	h->timer_cancels++;
}

static inline void ah_irq(void *opaque, unsigned int vector)
{
	struct accel_host *h = opaque;

	if (vector >= SFAB_ACCEL_MSIX_VECTORS) {
		fprintf(stderr, "accel host: irq on vector %u\n", vector);
		abort();
	}
	h->irqs[vector]++;
}

static inline void ah_guest_error(void *opaque, enum sfab_accel_ge site,
				  const char *msg)
{
	struct accel_host *h = opaque;

	h->guest_errors++;
	if ((unsigned int)site < SFAB_ACCEL_GE__COUNT)
		h->ge_sites[site]++;
	snprintf(h->last_error, sizeof(h->last_error), "%s", msg);
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "guest error [%s]: %s\n",
			sfab_accel_engine_site_name(site), msg);
}

static const struct sfab_accel_engine_ops ah_ops = {
	.dma_read = ah_dma_read,
	.dma_write = ah_dma_write,
	.now_ns = ah_now,
	.timer_arm = ah_timer_arm,
	.timer_cancel = ah_timer_cancel,
	.irq = ah_irq,
	.guest_error = ah_guest_error,
};

/* bus address <-> pointer */
static inline uint8_t *ah_p(struct accel_host *h, uint64_t addr)
{
	return h->mem + (addr - AH_MEM_BASE);
}

static inline uint32_t ah_get32(struct accel_host *h, uint64_t addr)
{
	const uint8_t *p = ah_p(h, addr);

	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void ah_put32(struct accel_host *h, uint64_t addr, uint32_t v)
{
	uint8_t *p = ah_p(h, addr);

	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline struct accel_host *ah_new_cfg(const struct sfab_accel_engine_config *cfg)
{
	struct accel_host *h = calloc(1, sizeof(*h));

	if (!h)
		abort();
	h->e = calloc(1, sizeof(*h->e));
	h->mem = calloc(1, AH_MEM_SIZE);
	if (!h->e || !h->mem)
		abort();
	h->now = AH_T0;
	if (sfab_accel_engine_init(h->e, &ah_ops, h, cfg)) {
		fprintf(stderr, "accel host: sfab_accel_engine_init failed\n");
		abort();
	}
	return h;
}

static inline struct accel_host *ah_new(void)
{
	return ah_new_cfg(NULL);
}

static inline void ah_free(struct accel_host *h)
{
	free(h->e);
	free(h->mem);
	free(h);
}

static inline uint32_t ah_rd(struct accel_host *h, uint32_t off)
{
	return sfab_accel_engine_reg_read(h->e, off);
}

/* what the QEMU bottom half does: process() until no work is pending */
static inline unsigned int ah_run(struct accel_host *h)
{
	unsigned int rounds = 0;

	while (sfab_accel_engine_work_pending(h->e)) {
		sfab_accel_engine_process(h->e);
		if (++rounds > 100000) {
			fprintf(stderr, "accel host: engine keeps asking for work\n");
			abort();
		}
	}
	return rounds;
}

/* a register write; work it schedules runs as the bottom half would */
static inline void ah_wr(struct accel_host *h, uint32_t off, uint32_t val)
{
	if (sfab_accel_engine_reg_write(h->e, off, val))
		ah_run(h);
}

/* a register write only: the test runs process() itself */
static inline bool ah_wr_norun(struct accel_host *h, uint32_t off, uint32_t val)
{
	return sfab_accel_engine_reg_write(h->e, off, val);
}

/* the retry timer fires at its deadline; its work runs */
static inline void ah_fire(struct accel_host *h)
{
	if (!h->timer_armed) {
		fprintf(stderr, "accel host: timer fired while not armed\n");
		abort();
	}
	h->timer_armed = false;
	h->now = h->timer_deadline;
	if (sfab_accel_engine_timer(h->e))
		ah_run(h);
}

/* program a ring of 2^@log commands at AH_RING and enable it */
static inline void ah_ring_setup(struct accel_host *h, unsigned int log)
{
	memset(ah_p(h, AH_RING), 0, (size_t)SFAB_ACCEL_CMD_SIZE << log);
	h->log = log;
	h->pi = 0;
	ah_wr(h, SFAB_ACCEL_REG_RING_BASE_LO, (uint32_t)AH_RING);
	ah_wr(h, SFAB_ACCEL_REG_RING_BASE_HI, (uint32_t)(AH_RING >> 32));
	ah_wr(h, SFAB_ACCEL_REG_RING_CFG, log);
	ah_wr(h, SFAB_ACCEL_REG_CTL, SFAB_ACCEL_CTL_ENABLE);
}

static inline struct accel_host *ah_up(unsigned int log)
{
	struct accel_host *h = ah_new();

	ah_ring_setup(h, log);
	return h;
}

/* write a command at the next ring slot, without the doorbell */
static inline void ah_post(struct accel_host *h, const struct sfab_accel_cmd *c)
{
	memcpy(ah_p(h, sfab_accel_ring_cmd_addr(AH_RING, h->log, h->pi)), c,
	       sizeof(*c));
	h->pi++;
}

/* the doorbell, and the work it schedules */
static inline void ah_ring(struct accel_host *h)
{
	ah_wr(h, SFAB_ACCEL_REG_RING_PI, h->pi);
}

static inline uint32_t ah_status(struct accel_host *h)
{
	return ah_rd(h, SFAB_ACCEL_REG_STATUS);
}

static inline uint32_t ah_ci(struct accel_host *h)
{
	return ah_rd(h, SFAB_ACCEL_REG_RING_CI);
}

#endif /* SFAB_TEST_ACCEL_HOST_H */
