/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two HCA engines of rc_pair.h cabled through one switch of
 * qemu-model/switch (sw_fabric.h), for the tests that run transport
 * through a switch:
 *
 *   HCA 0 (RP_LID0) --1[switch]2-- HCA 1 (RP_LID1)
 *
 *	fabric_up(cfg)	both nodes up, cabled, Active, LFT set, QPs connected;
 *			RC_SWITCH_NODES_HOOK(), when defined before this
 *			header, runs once both nodes are up; with
 *			RC_SWITCH_NO_CONNECT the test connects the QPs
 *	pump()		move frames and time until nothing is left to do
 *	fabric_down()
 */
#ifndef RC_SWITCH_H
#define RC_SWITCH_H

#include "sw_fabric.h"
#include "rc_pair.h"

static struct tf TF;

static void sw_tx(void *opaque, const uint8_t *f, size_t len)
{
	unsigned int i = opaque == RP[0].h ? 0 : 1;

	tf_send(&TF, (struct tf_end){ 0, i + 1 }, f, len);
}

static void sw_rx(void *opaque, unsigned int idx, const uint8_t *f, size_t len)
{
	(void)opaque;
	sfab_engine_cable_rx(RP[idx].h->e, f, len);
}

static void pump(void)
{
	unsigned int rounds = 0, i;
	bool busy;

	do {
		busy = tf_pump(&TF) != 0;
		for (i = 0; i < 2; i++)
			if (sfab_engine_work_pending(RP[i].h->e)) {
				host_run(RP[i].h);
				busy = true;
			}
		/* time passes: periodic flow control on every link */
		TF.now += 20000;
		for (i = 0; i < 2; i++) {
			RP[i].h->now += 20000;
			sfab_engine_timer(RP[i].h->e);
		}
		if (TF.head)
			busy = true;
	} while (busy && ++rounds < 200000);
}

static void fabric_up(const struct rp_cfg *c)
{
	struct sfab_sw_cfg cfg;
	unsigned int i;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.num_data_vls = 4;
	cfg.fc_period_ns = 100000;
	cfg.node_guid = 0xa0;
	tf_init(&TF);
	tf_add_sw(&TF, 0, &cfg);
	TF.ext_rx = sw_rx;
	rp_node_up(0, RP_LID0, c);
	rp_node_up(1, RP_LID1, c);
#ifdef RC_SWITCH_NODES_HOOK
	RC_SWITCH_NODES_HOOK();
#endif
	rp_ops.cable_tx = sw_tx;
	tf_cable_ext(&TF, 0, 0, 1);
	tf_cable_ext(&TF, 1, 0, 2);
	for (i = 0; i < 2; i++)
		sfab_engine_cable_up(RP[i].h->e);
	pump();
	tf_activate(&TF);
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&RP[i].h->e->port.link, SFAB_PORT_ARMED);
	for (i = 0; i < 2; i++)
		sfab_link_set_state(&RP[i].h->e->port.link, SFAB_PORT_ACTIVE);
	pump();
	for (i = 0; i < 2; i++)
		REQUIRE(RP[i].h->e->port.link.state == SFAB_PORT_ACTIVE);
	REQUIRE(sfab_sw_lft_set(TF.sw[0], RP_LID0, 1) == 0);
	REQUIRE(sfab_sw_lft_set(TF.sw[0], RP_LID1, 2) == 0);
#ifndef RC_SWITCH_NO_CONNECT
	rp_connect(c);
#endif
}

static void fabric_down(void)
{
	unsigned int i;

	tf_fini(&TF);
	for (i = 0; i < 2; i++) {
		host_free(RP[i].h);
		RP[i].h = NULL;
	}
}

#endif /* RC_SWITCH_H */
