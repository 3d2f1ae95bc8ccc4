/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A seeded pseudo-random generator for the fuzz tests (xorshift64*): the
 * same seed gives the same run, so a failure repeats.  Set rng_state
 * before the first rnd() to choose the seed.
 */
#ifndef SFAB_TEST_RNG_H
#define SFAB_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x5fab5fab12345678ULL;

static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static inline uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

#endif
