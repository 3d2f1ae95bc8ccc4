/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sfab hardware contract v1: the ring rules every queue follows (admin
 * queue and completion, async events, event queues, completion queues,
 * send, receive and shared receive queues) and the doorbell values that
 * move them.
 *
 * Ring indices are free-running 16-bit counters, as the doorbells carry
 * them.  The entry an index names lives in slot (index mod depth), and the
 * device writes an entry's phase bit as 1 on the first pass over a zeroed
 * ring, 0 on the second, and so on.  The driver, the provider, the device
 * model and the tests all use these helpers; none restates them.
 * Documentation/sfab/registers.rst ("Queues", "Doorbell BAR") describes
 * them in words.
 */
#ifndef _SFAB_RING_H_
#define _SFAB_RING_H_

#include "sfab_types.h"
#include "sfab_regs.h"

/*
 * The deepest ring: the phase rule needs a whole, even number of passes in
 * the 16-bit index space, and a ring of 2^16 would look empty when full.
 */
#define SFAB_RING_MAX_LOG_DEPTH		15

/* a paged ring's pages (struct sfab_ring_desc.page_shift): 4 KiB .. 2 MiB */
#define SFAB_RING_MIN_PAGE_SHIFT	12
#define SFAB_RING_MAX_PAGE_SHIFT	21

SFAB_STATIC_ASSERT(SFAB_AQ_MAX_LOG_DEPTH <= SFAB_RING_MAX_LOG_DEPTH);

/* log2 of the smallest power of two >= @n (0 for 0 and 1) */
static inline unsigned int sfab_log2_up(__u32 n)
{
	unsigned int log = 0;

	while (log < 32 && (1ULL << log) < n)
		log++;
	return log;
}

/**
 * sfab_ring_slot() - the ring slot a free-running index names
 * @idx: free-running 16-bit index
 * @log_depth: log2 of the ring depth
 *
 * Return: the slot, 0 .. depth - 1.
 */
static inline __u16 sfab_ring_slot(__u16 idx, unsigned int log_depth)
{
	return idx & (__u16)((1U << log_depth) - 1);
}

/**
 * sfab_ring_phase() - the phase bit the device writes at an index
 * @idx: free-running 16-bit index
 * @log_depth: log2 of the ring depth, at most %SFAB_RING_MAX_LOG_DEPTH
 *
 * Return: 1 on even passes over the ring (the first one included), 0 on
 * odd passes.
 */
static inline __u8 sfab_ring_phase(__u16 idx, unsigned int log_depth)
{
	return !((idx >> log_depth) & 1);
}

/**
 * sfab_ring_used() - entries produced but not yet consumed
 * @prod: producer's free-running index
 * @cons: consumer's free-running index
 *
 * Return: prod - cons, modulo 2^16.
 */
static inline __u16 sfab_ring_used(__u16 prod, __u16 cons)
{
	return (prod - cons) & SFAB_QIDX_MASK;
}

/**
 * sfab_ring_free() - entries the producer may still write
 * @prod: producer's free-running index
 * @cons: consumer's free-running index
 * @log_depth: log2 of the ring depth
 *
 * Return: depth - (prod - cons), or 0 when the indices are inconsistent
 * (the producer is more than a ring ahead, or behind the consumer).
 */
static inline __u32 sfab_ring_free(__u16 prod, __u16 cons,
				   unsigned int log_depth)
{
	__u32 used = sfab_ring_used(prod, cons);
	__u32 depth = 1U << log_depth;

	return used > depth ? 0 : depth - used;
}

/**
 * sfab_ring_entry_is_new() - has the device written the entry at @cons yet?
 * @phase: the entry's phase bit as read from the ring (only bit 0 counts)
 * @cons: the consumer's free-running index of the entry
 * @log_depth: log2 of the ring depth
 *
 * Return: true when the entry belongs to the current pass, that is the
 * device wrote it after the consumer last went past this slot.
 */
static inline bool sfab_ring_entry_is_new(__u8 phase, __u16 cons,
					  unsigned int log_depth)
{
	return (phase & 1) == sfab_ring_phase(cons, log_depth);
}

/**
 * sfab_queue_log_depth() - ring depth for a number of entries
 * @entries: entries the consumer asked for, at least 1
 * @max: the most the device allows
 *
 * Return: log2 of the smallest power of two >= @entries, or -EINVAL when
 * that is more than @max or than the 16-bit indices can tell apart.
 */
static inline int sfab_queue_log_depth(__u32 entries, __u32 max)
{
	unsigned int log;

	if (!entries || entries > max ||
	    entries > 1U << SFAB_RING_MAX_LOG_DEPTH)
		return -EINVAL;
	log = sfab_log2_up(entries);
	if ((1U << log) > max)
		return -EINVAL;
	return log;
}

/* ---- doorbell values (sfab_regs.h SFAB_DB_*) --------------------------- */

/**
 * sfab_db_val() - a doorbell value
 * @num: QPN, SRQN, CQN or EQN
 * @idx: the new producer or consumer index
 * @arm: SFAB_DB_ARM_* (CQ doorbells only; 0 otherwise)
 *
 * Return: the 64-bit value to write: @num in bits 23:0, @idx in bits
 * 47:32, @arm in bits 63:62.
 */
static inline __u64 sfab_db_val(__u32 num, __u16 idx, __u8 arm)
{
	__u32 hi = SFAB_FIELD_PREP(SFAB_DB_IDX_MASK, idx) |
		   SFAB_FIELD_PREP(SFAB_DB_ARM_MASK, arm);

	return (__u64)hi << 32 | (num & SFAB_DB_QPN_MASK);
}

/* a doorbell value, decoded */
struct sfab_db {
	__u32 num;			/* QPN, SRQN, CQN or EQN */
	__u16 idx;			/* producer or consumer index */
	__u8 arm;			/* SFAB_DB_ARM_* (CQ only) */
};

/**
 * sfab_db_parse() - decode a doorbell value
 * @val: the 64-bit value written
 * @cq: written at SFAB_DB_CQ: the arm bits are defined
 * @db: filled, also for a malformed value
 *
 * Return: false when @val sets a bit the doorbell does not define (the
 * device ignores and counts such a write).
 */
static inline bool sfab_db_parse(__u64 val, bool cq, struct sfab_db *db)
{
	__u32 lo = (__u32)val;
	__u32 hi = (__u32)(val >> 32);
	__u32 hi_ok = SFAB_DB_IDX_MASK | (cq ? SFAB_DB_ARM_MASK : 0);

	db->num = SFAB_FIELD_GET(SFAB_DB_QPN_MASK, lo);
	db->idx = SFAB_FIELD_GET(SFAB_DB_IDX_MASK, hi);
	db->arm = cq ? SFAB_FIELD_GET(SFAB_DB_ARM_MASK, hi) : 0;
	return !(lo & ~SFAB_DB_QPN_MASK) && !(hi & ~hi_ok);
}

#endif /* _SFAB_RING_H_ */
