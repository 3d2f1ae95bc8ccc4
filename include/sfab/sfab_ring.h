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

/* ---- doorbell records (SFAB_DEV_CAP_DBREC) ----------------------------- */

/*
 * A doorbell record: 8 bytes in host (or peer) memory, SFAB_DBREC_ALIGN
 * aligned, that the device reads with DMA.  A queue created with one
 * (CREATE_CQ/CREATE_SRQ dbrec_addr, SET_QP_DBREC; 0: none) publishes its
 * free-running 16-bit index there:
 *
 *  CQ:  the consumer index.  The host writes it after it has finished
 *       reading every CQE before it (release: the CQE loads are ordered
 *       before the record store).  Polling rings no doorbell; the device
 *       reads the record only when its own copy of the index says the
 *       ring is full, just before it would declare an overrun.  Arming
 *       stays an SFAB_DB_CQ doorbell and carries the index, as without a
 *       record.
 *  SQ:  the producer index.  The host writes it after the WQEs it covers
 *       (release: WQE stores before the record store), and then rings
 *       SFAB_DB_SQ with the same index: the doorbell is the trigger and
 *       its index is authoritative.  The device may read an SQ record but
 *       never takes an index from it (the sfab model does not read it).
 *  RQ, SRQ: the producer index, written as the SQ's.  The RQ and SRQ
 *       doorbells become optional: the device reads the record whenever
 *       it needs a receive WQE and its copy of the index says the queue
 *       is empty, when a QP in Error flushes, and (SRQ) before it raises
 *       a limit event.  A doorbell still works as without a record; an
 *       index that does not move the device's copy forward is stale and
 *       ignored.  WQEs posted to a QP in Error are flushed at its next
 *       doorbell (RQ or SQ) or at its next entry into Error: a host that
 *       wants them flushed at once rings SFAB_DB_RQ.
 *
 * The device takes a record's index only when sfab_dbrec_pi_ok() (a
 * producer) or sfab_dbrec_ci_ok() (a consumer) allows it; any other value
 * is ignored and reported as a guest error.  A record the device cannot
 * read puts its queue in error: the CQ (SFAB_AENQ_CQ_ERROR), the QP (to
 * Error, SFAB_QP_EV_FATAL), the SRQ (SFAB_SRQ_EV_ERR).  A QP moved to
 * RESET starts its indices over at 0: the host writes 0 to its records
 * before it posts again.
 */
#define SFAB_DBREC_SIZE			8
#define SFAB_DBREC_ALIGN		8
#define SFAB_DBREC_IDX_MASK		SFAB_GENMASK(15, 0)	/* struct sfab_dbrec.idx */

struct sfab_dbrec {
	__le32 idx;			/* SFAB_DBREC_IDX_MASK; bits 31:16 zero */
	__le32 reserved;		/* zero */
};

SFAB_CHECK_SIZE(struct sfab_dbrec, SFAB_DBREC_SIZE);

/* a record address the device accepts: 0 (none) or SFAB_DBREC_ALIGN aligned */
static inline bool sfab_dbrec_addr_ok(__u64 addr)
{
	return !(addr & (SFAB_DBREC_ALIGN - 1));
}

/* the record's word for index @idx */
static inline __le32 sfab_dbrec_val(__u16 idx)
{
	return sfab_cpu_to_le32(SFAB_FIELD_PREP(SFAB_DBREC_IDX_MASK, idx));
}

/*
 * sfab_dbrec_set() - publish @idx in @rec: one 32-bit store, no barrier.
 * The caller orders what the index covers before it (see above).
 */
static inline void sfab_dbrec_set(struct sfab_dbrec *rec, __u16 idx)
{
	*(volatile __le32 *)&rec->idx = sfab_dbrec_val(idx);
}

/* the device's side: the index a record read carries */
static inline __u16 sfab_dbrec_idx(const struct sfab_dbrec *rec)
{
	return SFAB_FIELD_GET(SFAB_DBREC_IDX_MASK, sfab_le32_to_cpu(rec->idx));
}

/*
 * A producer index @idx for a ring of 2^@log_depth whose consumer is at
 * @ci and whose last known producer index is @pi: true when it moves
 * forward (or stays) and stays at most a ring ahead of @ci.
 */
static inline bool sfab_dbrec_pi_ok(__u16 ci, __u16 pi, __u16 idx,
				    unsigned int log_depth)
{
	__u16 ahead = sfab_ring_used(idx, ci);

	return ahead <= (1U << log_depth) && ahead >= sfab_ring_used(pi, ci);
}

/*
 * A consumer index @idx for a ring whose consumer was at @ci and whose
 * producer is at @pi: true when it stays within what was produced.
 */
static inline bool sfab_dbrec_ci_ok(__u16 ci, __u16 pi, __u16 idx)
{
	return sfab_ring_used(idx, ci) <= sfab_ring_used(pi, ci);
}

/*
 * Where a queue's record goes in a buffer of its own ring (user queues,
 * sfab-abi.h; queues in caller memory, sfabdv.h): right after the ring,
 * whose size is a power of two >= 32 and so SFAB_DBREC_ALIGN aligned.
 * The buffer is sfab_dbrec_buf_len() bytes, rounded up to pages by the
 * caller.
 */
static inline __u64 sfab_dbrec_ring_off(unsigned int log_depth,
					unsigned int log_stride)
{
	return 1ULL << (log_depth + log_stride);
}

static inline __u64 sfab_dbrec_buf_len(unsigned int log_depth,
				       unsigned int log_stride)
{
	return sfab_dbrec_ring_off(log_depth, log_stride) + SFAB_DBREC_SIZE;
}

/*
 * sfab_ring_dbrec_off_ok() - where a ring's buffer may hold its record:
 * @dbrec_off bytes from the ring's first byte, past the ring of @size
 * bytes, SFAB_DBREC_ALIGN aligned, and within the ring and a record
 * rounded up to pages of @page_size (a power of two) bytes, so that one
 * buffer of at most one page more than the ring holds both
 * (sfab_dbrec_ring_off() is such a place).  0 means no record and is
 * allowed.  The kernel refuses any other offset; libsfab checks first.
 */
static inline bool sfab_ring_dbrec_off_ok(__u64 size, __u64 dbrec_off,
					  __u64 page_size)
{
	__u64 end;

	if (!dbrec_off)
		return true;
	if (!size || !page_size || (page_size & (page_size - 1)) ||
	    size > ~0ULL - SFAB_DBREC_SIZE - page_size)
		return false;
	end = (size + SFAB_DBREC_SIZE + page_size - 1) & ~(page_size - 1);
	return dbrec_off >= size && sfab_dbrec_addr_ok(dbrec_off) &&
	       dbrec_off <= end - SFAB_DBREC_SIZE;
}

#endif /* _SFAB_RING_H_ */
