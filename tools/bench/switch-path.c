/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * switch-path: what one switch hop costs the host per packet.
 *
 * One sfab switch core (qemu-model/switch) with PORTS external ports, two
 * of them cabled to end nodes (an sfab_link each, as in the unit tests'
 * tests/unit/sw_fabric.h), trained and Active.  Node 1 streams 4 KiB UD
 * packets to node 2 through the switch as fast as credit allows; node 2
 * checks each (VCRC, ICRC) and gives its credit back at once.  What is
 * timed is the switch alone: sfab_sw_port_rx() for every frame in (its
 * checks, its buffer) and sfab_sw_run() (routing, arbitration, the egress
 * VL, the frame handed to the cable, FC packets), the cable being a copy
 * of each frame into a buffer, as the ring is.  Against it: memcpy of the
 * same bytes.  The best of REPS batches counts.
 *
 *	switch-path [REPS [PORTS]]	prints
 *	switch-path: PORTS ports, X ns per 4 KiB packet (Y MiB/s), memcpy Z ns
 *
 * Exit status 0 when every packet arrived intact and in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REQUIRE(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "switch-path: %s:%d: %s failed\n",\
				__FILE__, __LINE__, #cond);		\
			exit(1);					\
		}							\
	} while (0)
#define CHECK(cond)	REQUIRE(cond)

#include "sw_fabric.h"

#define PAYLOAD		4096
#define BATCH		20000		/* packets per timed batch */
#define WIRE_MAX	256		/* frames one sfab_sw_run() may send */

/* what the switch sent in one sfab_sw_run(), per port, in order */
struct wire {
	unsigned int n;
	size_t len[WIRE_MAX];
	uint8_t buf[WIRE_MAX][SFAB_WIRE_MAX_PKT_LEN];
};

static struct wire out[3];	/* ports 1 and 2 */

static int bench_xmit(void *opaque, unsigned int port, const uint8_t *frame,
		      size_t len)
{
	struct wire *w;

	(void)opaque;
	REQUIRE(port == 1 || port == 2);
	w = &out[port];
	REQUIRE(w->n < WIRE_MAX && len <= SFAB_WIRE_MAX_PKT_LEN);
	memcpy(w->buf[w->n], frame, len);	/* the cable's copy */
	w->len[w->n++] = len;
	return 0;
}

static const struct sfab_sw_ops bench_ops = { .xmit = bench_xmit };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static size_t data_pkt(uint8_t *buf, uint32_t seq)
{
	static uint8_t pl[PAYLOAD];
	struct sfab_pkt_ud u = {
		.vl = 0, .sl = 0, .dlid = 2, .slid = 1, .pkey = 0xffff,
		.dqpn = 9, .sqpn = 9, .qkey = 1, .psn = seq & 0xffffff,
	};

	memset(pl, (uint8_t)seq, sizeof(pl));
	return sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl));
}

int main(int argc, char **argv)
{
	static uint8_t frame[SFAB_WIRE_MAX_PKT_LEN], fc[SFAB_WIRE_FC_PKT_LEN];
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	int ports = argc > 2 ? atoi(argv[2]) : 36;
	struct sfab_sw_cfg cfg;
	struct sfab_link *n1, *n2;
	double best = 1e18, best_mcpy = 1e18, t, t_sw;
	uint32_t seq_tx = 0, seq_rx = 0;
	struct sfab_sw *sw;
	struct tf tf;
	size_t len;
	int r, i;

	if (reps < 1 || reps > 1000 || ports < 2 || ports > SFAB_SW_MAX_PORTS) {
		fprintf(stderr, "usage: switch-path [REPS 1..1000 [PORTS 2..%d]]\n",
			SFAB_SW_MAX_PORTS);
		return 2;
	}
	sfab_sw_default_cfg(&cfg);
	cfg.nports = ports;
	tf_init(&tf);
	sw = tf_add_sw(&tf, 0, &cfg);
	tf_add_node(&tf, 0, &cfg);
	tf_add_node(&tf, 1, &cfg);
	tf_cable_node(&tf, 0, 0, 1);
	tf_cable_node(&tf, 1, 0, 2);
	tf_pump(&tf);
	tf_activate(&tf);
	REQUIRE(sfab_sw_lft_set(sw, 2, 2) == 0);
	/* from here on the benchmark is the cable */
	sw->ops = &bench_ops;
	n1 = &tf.node[0].link;
	n2 = &tf.node[1].link;
	len = data_pkt(frame, 0);

	for (r = 0; r < reps; r++) {
		t_sw = 0;
		for (i = 0; i < BATCH;) {
			unsigned int k, vl;

			/* node 1 sends what its credit allows */
			t = now_ns();
			while (i < BATCH && sfab_link_tx_ok(n1, 0, len)) {
				len = data_pkt(frame, seq_tx++);
				sfab_link_tx_sent(n1, 0, frame, len);
				sfab_sw_port_rx(sw, 1, frame, len);
				i++;
			}
			sfab_sw_run(sw);
			t_sw += now_ns() - t;
			/* node 2 takes and checks each packet, credit back */
			for (k = 0; k < out[2].n; k++) {
				struct sfab_pkt_ud u;

				if (out[2].len[k] == SFAB_WIRE_FC_PKT_LEN) {
					sfab_link_rx(n2, out[2].buf[k],
						     out[2].len[k], &vl);
					continue;
				}
				REQUIRE(sfab_link_rx(n2, out[2].buf[k],
						     out[2].len[k], &vl) ==
					SFAB_LINK_RX_DATA);
				REQUIRE(sfab_link_pkt_parse_ud(out[2].buf[k],
							       out[2].len[k], &u));
				REQUIRE(u.psn == (seq_rx & 0xffffff));
				REQUIRE(u.payload[PAYLOAD - 1] == (uint8_t)seq_rx);
				seq_rx++;
				sfab_link_rx_free(n2, vl, out[2].len[k]);
			}
			for (k = 0; k < out[1].n; k++)
				sfab_link_rx(n1, out[1].buf[k], out[1].len[k], &vl);
			out[1].n = out[2].n = 0;
			t = now_ns();
			while (sfab_link_fc_next(n2, tf.now, fc))
				sfab_sw_port_rx(sw, 2, fc, sizeof(fc));
			sfab_sw_run(sw);
			t_sw += now_ns() - t;
			for (k = 0; k < out[1].n; k++)
				sfab_link_rx(n1, out[1].buf[k], out[1].len[k], &vl);
			REQUIRE(!out[2].n);
			out[1].n = 0;
		}
		if (t_sw < best)
			best = t_sw;

		t = now_ns();
		for (i = 0; i < BATCH; i++) {
			memcpy(out[2].buf[i % WIRE_MAX], frame, len);
			__asm__ __volatile__("" : : "r"(out[2].buf) : "memory");
		}
		t = now_ns() - t;
		if (t < best_mcpy)
			best_mcpy = t;
	}
	REQUIRE(seq_rx == seq_tx);
	REQUIRE(sw->queued == 0);
	REQUIRE(sw->port[2].cnt.xmit_discards == 0);
	printf("switch-path: %d ports, %.0f ns per 4 KiB packet (%.0f MiB/s), memcpy %.0f ns\n",
	       ports, best / BATCH, (double)len * BATCH / best * 1e9 / (1 << 20),
	       best_mcpy / BATCH);
	tf_fini(&tf);
	return 0;
}
