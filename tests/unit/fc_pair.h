/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two sfab_link ends joined by an in-memory cable, for unit/fc-* tests.
 * Include after harness.h.
 */
#ifndef SFAB_TEST_FC_PAIR_H
#define SFAB_TEST_FC_PAIR_H

#include <string.h>

#include "rng.h"

#include "../../qemu-model/link/sfab_link.h"
#include "../../qemu-model/link/sfab_pkt.h"

static const struct sfab_link_cfg fc_cfg = {
	.num_data_vls = 2,
	.vl_blocks = 80,		/* small: a few packets fill it */
	.vl15_blocks = 10,
	.fc_period_ns = 1000,
};

/* deliver every due FC packet from @a to @b; return how many */
static inline int fc_pump(struct sfab_link *a, struct sfab_link *b, uint64_t now)
{
	uint8_t fc[SFAB_WIRE_FC_PKT_LEN];
	unsigned int vl;
	int n = 0;

	while (sfab_link_fc_next(a, now, fc)) {
		CHECK_EQ(sfab_link_rx(b, fc, sizeof(fc), &vl), SFAB_LINK_RX_FC);
		n++;
	}
	return n;
}

static inline void fc_settle(struct sfab_link *a, struct sfab_link *b, uint64_t now)
{
	int i;

	for (i = 0; i < 8; i++)
		if (!fc_pump(a, b, now) + !fc_pump(b, a, now) == 2)
			break;
}

static inline void fc_pair_up(struct sfab_link *a, struct sfab_link *b,
			      const struct sfab_link_cfg *cfg)
{
	CHECK_EQ(sfab_link_init(a, cfg), 0);
	CHECK_EQ(sfab_link_init(b, cfg), 0);
	sfab_link_phys_up(a, 0);
	sfab_link_phys_up(b, 0);
	fc_settle(a, b, 0);
	CHECK_EQ(sfab_link_set_state(a, SFAB_PORT_ARMED), 0);
	CHECK_EQ(sfab_link_set_state(b, SFAB_PORT_ARMED), 0);
	CHECK_EQ(sfab_link_set_state(a, SFAB_PORT_ACTIVE), 0);
	CHECK_EQ(sfab_link_set_state(b, SFAB_PORT_ACTIVE), 0);
}

/*
 * A cable with a delay: what one end sends arrives @delay ns later, in
 * order.  fc_slow_run() steps time by @step up to @until, each end sending
 * what it has due and taking what has arrived.  Frames other than FC
 * packets never enter it.
 */
#define FC_SLOW_MAX	4096

struct fc_slow_dir {
	uint8_t frame[FC_SLOW_MAX][SFAB_WIRE_FC_PKT_LEN];
	uint64_t at[FC_SLOW_MAX];
	unsigned int head, tail;
};

struct fc_slow {
	struct sfab_link *end[2];
	struct fc_slow_dir dir[2];	/* dir[i]: from end[i] to the other */
	uint64_t delay, now;
	unsigned int lose_pct;		/* frames lost in flight, percent */
	unsigned long lost;
};

static inline void fc_slow_send(struct fc_slow *c, unsigned int i)
{
	struct fc_slow_dir *d = &c->dir[i];

	while (d->tail - d->head < FC_SLOW_MAX &&
	       sfab_link_fc_next(c->end[i], c->now, d->frame[d->tail % FC_SLOW_MAX]))
		d->at[d->tail++ % FC_SLOW_MAX] = c->now + c->delay;
}

static inline void fc_slow_deliver(struct fc_slow *c, unsigned int i)
{
	struct fc_slow_dir *d = &c->dir[i];
	unsigned int vl;

	while (d->head != d->tail && d->at[d->head % FC_SLOW_MAX] <= c->now) {
		if (c->lose_pct && rnd_below(100) < c->lose_pct)
			c->lost++;
		else
			CHECK(sfab_link_rx(c->end[!i], d->frame[d->head % FC_SLOW_MAX],
					   SFAB_WIRE_FC_PKT_LEN, &vl) != SFAB_LINK_RX_DATA);
		d->head++;
	}
}

static inline void fc_slow_run(struct fc_slow *c, uint64_t step, uint64_t until)
{
	while (c->now < until) {
		fc_slow_send(c, 0);
		fc_slow_send(c, 1);
		c->now += step;
		fc_slow_deliver(c, 0);
		fc_slow_deliver(c, 1);
	}
}

/* a UD test packet with @len payload bytes on @vl */
static inline size_t fc_make_pkt(uint8_t *buf, unsigned int vl, size_t len,
				 uint8_t fill)
{
	struct sfab_pkt_ud u = {
		.vl = vl, .sl = vl, .dlid = 2, .slid = 1, .pkey = 0xffff,
		.dqpn = 5, .sqpn = 6, .qkey = 7, .psn = 0,
	};
	uint8_t payload[SFAB_PKT_UD_MAX_PAYLOAD];

	memset(payload, fill, len);
	return sfab_link_pkt_build_ud(buf, &u, payload, len);
}

#endif /* SFAB_TEST_FC_PAIR_H */
