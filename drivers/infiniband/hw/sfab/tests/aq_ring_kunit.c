// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_aq_ring: the ring arithmetic of include/sfab/sfab_ring.h
 * that the admin queue, the async event queue and the event queues run
 * on: free-running 16-bit indices, slots, phase bits across passes and
 * across the 16-bit wrap, free space; and sfab_com.c's command ids and
 * async event decoding.
 */

#include <kunit/test.h>

#include "../sfab_com.h"

static void sfab_aq_ring_slot(struct kunit *test)
{
	u16 wrapped = 0xffff;

	wrapped++;
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(0, 5), 0);
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(31, 5), 31);
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(32, 5), 0);
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(33, 5), 1);
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(0xffff, 5), 31);
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(wrapped, 5), 0);
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(0xffff, 2), 3);
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(0xffff, 15), 0x7fff);
	KUNIT_EXPECT_EQ(test, sfab_ring_slot(0x8000, 15), 0);
}

static void sfab_aq_ring_phase_first_passes(struct kunit *test)
{
	/* the device writes 1 on the first pass over the zeroed ring */
	KUNIT_EXPECT_EQ(test, sfab_ring_phase(0, 5), 1);
	KUNIT_EXPECT_EQ(test, sfab_ring_phase(31, 5), 1);
	KUNIT_EXPECT_EQ(test, sfab_ring_phase(32, 5), 0);
	KUNIT_EXPECT_EQ(test, sfab_ring_phase(63, 5), 0);
	KUNIT_EXPECT_EQ(test, sfab_ring_phase(64, 5), 1);
}

/* 2^16 / depth passes is even, so the phase alternates across the wrap */
static void sfab_aq_ring_phase_wrap(struct kunit *test)
{
	unsigned int log_depth;
	u16 wrapped = 0xffff;
	u32 idx;

	KUNIT_EXPECT_EQ(test, sfab_ring_phase(wrapped, 5), 0);
	wrapped++;
	KUNIT_EXPECT_EQ(test, sfab_ring_phase(wrapped, 5), 1);

	for (log_depth = SFAB_AQ_MIN_LOG_DEPTH;
	     log_depth <= SFAB_RING_MAX_LOG_DEPTH; log_depth++) {
		u32 depth = 1U << log_depth;

		for (idx = 0; idx <= 0xffff; idx++) {
			u16 next = (u16)(idx + depth);

			if (sfab_ring_phase(next, log_depth) ==
			    sfab_ring_phase(idx, log_depth)) {
				KUNIT_FAIL(test, "log_depth %u: phase(%u) == phase(%u)",
					   log_depth, idx, next);
				return;
			}
			if (sfab_ring_slot(next, log_depth) !=
			    sfab_ring_slot(idx, log_depth)) {
				KUNIT_FAIL(test, "log_depth %u: slot(%u) != slot(%u)",
					   log_depth, idx, next);
				return;
			}
		}
	}
}

static void sfab_aq_ring_used_free(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sfab_ring_used(0, 0), 0);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(0, 0, 5), 32U);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(31, 0, 5), 1U);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(32, 0, 5), 0U);
	/* producer wrapped, consumer not yet */
	KUNIT_EXPECT_EQ(test, sfab_ring_used(3, 0xfffe), 5);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(3, 0xfffe, 5), 27U);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(0x1e, 0xfffe, 5), 0U);
	/* inconsistent: more than a ring ahead, or behind the consumer */
	KUNIT_EXPECT_EQ(test, sfab_ring_free(33, 0, 5), 0U);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(0, 1, 5), 0U);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(0xffff, 0, 15), 0U);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(0x8000, 0, 15), 0U);
	KUNIT_EXPECT_EQ(test, sfab_ring_free(0x7fff, 0, 15), 1U);
}

static void sfab_aq_ring_entry_is_new(struct kunit *test)
{
	/* a zeroed ring holds nothing new on the first pass */
	KUNIT_EXPECT_FALSE(test, sfab_ring_entry_is_new(0, 0, 5));
	KUNIT_EXPECT_TRUE(test, sfab_ring_entry_is_new(1, 0, 5));
	/* second pass: entries left from the first pass carry 1 */
	KUNIT_EXPECT_FALSE(test, sfab_ring_entry_is_new(1, 32, 5));
	KUNIT_EXPECT_TRUE(test, sfab_ring_entry_is_new(0, 32, 5));
	/* only bit 0 counts */
	KUNIT_EXPECT_TRUE(test, sfab_ring_entry_is_new(0xff, 0, 5));
	KUNIT_EXPECT_FALSE(test, sfab_ring_entry_is_new(0xfe, 0, 5));
}

/*
 * A device and a consumer over a small ring for more than two trips
 * around the 16-bit index space: the consumer must see exactly the
 * entries the device wrote, in order, and nothing else.
 */
static void sfab_aq_ring_producer_consumer(struct kunit *test)
{
	const unsigned int log_depth = 2;
	const u32 depth = 1U << log_depth;
	u8 phase[4] = {};
	u16 tag[4] = {};
	u16 prod = 0, cons = 0;
	u32 step, k, total = 0;

	for (step = 0; total < 2 * 0x10000 + 3 * depth; step++) {
		u32 burst = 1 + step % depth;

		/* device: write up to burst entries where there is room */
		burst = min(burst, sfab_ring_free(prod, cons, log_depth));
		for (k = 0; k < burst; k++, prod++) {
			tag[sfab_ring_slot(prod, log_depth)] = prod;
			phase[sfab_ring_slot(prod, log_depth)] =
				sfab_ring_phase(prod, log_depth);
		}
		/* consumer: take every new entry */
		while (sfab_ring_entry_is_new(phase[sfab_ring_slot(cons, log_depth)],
					      cons, log_depth)) {
			if (tag[sfab_ring_slot(cons, log_depth)] != cons) {
				KUNIT_FAIL(test, "step %u: read entry %u at index %u",
					   step, tag[sfab_ring_slot(cons, log_depth)],
					   cons);
				return;
			}
			cons++;
			total++;
		}
		if (cons != prod) {
			KUNIT_FAIL(test, "step %u: consumer at %u, producer at %u",
				   step, cons, prod);
			return;
		}
	}
	KUNIT_EXPECT_GE(test, total, 2U * 0x10000);
}

static void sfab_aq_ring_cmd_id(struct kunit *test)
{
	u16 pc, ctx;

	KUNIT_EXPECT_EQ(test, sfab_aq_cmd_id(0, 0, 5), 0);
	KUNIT_EXPECT_EQ(test, sfab_aq_cmd_id(0x1234, 7, 5), 0x1227);
	KUNIT_EXPECT_EQ(test, sfab_aq_cmd_id(0xffff, 31, 5), 0xffff);
	KUNIT_EXPECT_EQ(test, sfab_aq_cmd_ctx(0x1227, 5), 7);

	for (pc = 0; pc < 4 * SFAB_AQ_DEPTH; pc++) {
		for (ctx = 0; ctx < SFAB_AQ_DEPTH; ctx++) {
			u16 id = sfab_aq_cmd_id(pc, ctx, SFAB_AQ_LOG_DEPTH);

			KUNIT_ASSERT_EQ(test, sfab_aq_cmd_ctx(id, SFAB_AQ_LOG_DEPTH),
					ctx);
			/* another pass over the ring gives another id */
			KUNIT_ASSERT_NE(test, id,
					sfab_aq_cmd_id(pc + SFAB_AQ_DEPTH, ctx,
						       SFAB_AQ_LOG_DEPTH));
		}
	}
}

/* an async event entry, byte by byte as the device writes it */
static void sfab_aq_ring_aenq_decode(struct kunit *test)
{
	static const u8 raw[32] = {
		0x0a, 0x01, 0xee, 0xee,			/* type, flags, reserved */
		0x78, 0x56, 0x34, 0x12,			/* data0 */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x81, /* data1 */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* timestamp */
	};
	struct sfab_aenq_entry e;
	struct sfab_com_event ev;

	memcpy(&e, raw, sizeof(e));
	memset(&ev, 0x5a, sizeof(ev));
	sfab_com_aenq_decode(&ev, &e);
	KUNIT_EXPECT_EQ(test, ev.type, 0x0a);
	KUNIT_EXPECT_EQ(test, ev.data0, 0x12345678);
	KUNIT_EXPECT_EQ(test, ev.data1, 0x8102030405060708ULL);
}

static struct kunit_case sfab_aq_ring_cases[] = {
	KUNIT_CASE(sfab_aq_ring_slot),
	KUNIT_CASE(sfab_aq_ring_phase_first_passes),
	KUNIT_CASE(sfab_aq_ring_phase_wrap),
	KUNIT_CASE(sfab_aq_ring_used_free),
	KUNIT_CASE(sfab_aq_ring_entry_is_new),
	KUNIT_CASE(sfab_aq_ring_producer_consumer),
	KUNIT_CASE(sfab_aq_ring_cmd_id),
	KUNIT_CASE(sfab_aq_ring_aenq_decode),
	{}
};

static struct kunit_suite sfab_aq_ring_suite = {
	.name = "sfab_aq_ring",
	.test_cases = sfab_aq_ring_cases,
};

kunit_test_suite(sfab_aq_ring_suite);

/* command ids and event decoding are sfab.ko's, through VISIBLE_IF_KUNIT */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
