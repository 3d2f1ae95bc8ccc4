/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An in-memory fabric for switch unit tests: sfab_sw switches and simple
 * end nodes (an sfab_link and an inbox), joined by cables that are frame
 * queues.  tf_pump() moves frames and runs the switches until all is quiet.
 * Include after harness.h.
 */
#ifndef SFAB_TEST_SW_FABRIC_H
#define SFAB_TEST_SW_FABRIC_H

#include <stdlib.h>
#include <string.h>

#include "../../qemu-model/switch/sfab_sw.h"
#include "../../qemu-model/link/sfab_pkt.h"

#define TF_MAX_SW	4
#define TF_MAX_NODES	8
#define TF_INBOX	4096
#define TF_EXT		(-3)	/* an end the test handles itself (an HCA) */

struct tf_end {			/* one end of a cable */
	int sw;			/* switch index, -1 for a node, TF_EXT for ext_rx */
	unsigned int idx;	/* port (switch) or node index */
};

struct tf_frame {
	struct tf_frame *next;
	struct tf_end to;
	size_t len;
	uint8_t data[];
};

struct tf_node {
	struct sfab_link link;
	struct tf_end peer;
	bool auto_free;		/* give credits back as soon as a packet lands */
	unsigned int ninbox;
	struct { size_t len; unsigned int vl; uint8_t *data; } inbox[TF_INBOX];
};

struct tf {
	struct sfab_sw *sw[TF_MAX_SW];
	struct tf_end sw_peer[TF_MAX_SW][SFAB_SW_MAX_PORTS + 1];
	struct tf_node node[TF_MAX_NODES];
	struct tf_frame *head, *tail;
	unsigned long frames;
	uint64_t now;
	/* frames for TF_EXT ends */
	void (*ext_rx)(void *opaque, unsigned int idx, const uint8_t *f,
		       size_t len);
	void *ext_opaque;
};

struct tf_ctx {
	struct tf *tf;
	int sw;
};

static struct tf_ctx tf_ctx[TF_MAX_SW];

static inline void tf_send(struct tf *tf, struct tf_end to, const uint8_t *f,
			   size_t len)
{
	struct tf_frame *fr = malloc(sizeof(*fr) + len);

	fr->next = NULL;
	fr->to = to;
	fr->len = len;
	memcpy(fr->data, f, len);
	if (tf->tail)
		tf->tail->next = fr;
	else
		tf->head = fr;
	tf->tail = fr;
	tf->frames++;
}

static inline int tf_sw_xmit(void *opaque, unsigned int port,
			     const uint8_t *frame, size_t len)
{
	struct tf_ctx *c = opaque;
	struct tf_end to = c->tf->sw_peer[c->sw][port];

	if (to.sw == -2)
		return 0;		/* nothing plugged in: lost in the air */
	tf_send(c->tf, to, frame, len);
	return 0;
}

static const struct sfab_sw_ops tf_sw_ops = { .xmit = tf_sw_xmit };

static inline void tf_init(struct tf *tf)
{
	unsigned int i, j;

	memset(tf, 0, sizeof(*tf));
	for (i = 0; i < TF_MAX_SW; i++)
		for (j = 0; j <= SFAB_SW_MAX_PORTS; j++)
			tf->sw_peer[i][j].sw = -2;
}

static inline struct sfab_sw *tf_add_sw(struct tf *tf, int i,
					const struct sfab_sw_cfg *cfg)
{
	tf_ctx[i].tf = tf;
	tf_ctx[i].sw = i;
	tf->sw[i] = sfab_sw_create(cfg, &tf_sw_ops, &tf_ctx[i]);
	return tf->sw[i];
}

static inline void tf_add_node(struct tf *tf, unsigned int n,
			       const struct sfab_sw_cfg *cfg)
{
	struct sfab_link_cfg lc = {
		.num_data_vls = cfg->num_data_vls, .vl_blocks = cfg->vl_blocks,
		.vl15_blocks = cfg->vl15_blocks, .fc_period_ns = cfg->fc_period_ns,
		/* the nodes know extended LIDs where the switch does */
		.ext_lrh = cfg->lft_cap > SFAB_SW_LFT_CAP,
	};

	sfab_link_init(&tf->node[n].link, &lc);
	tf->node[n].auto_free = true;
}

static inline void tf_node_flush_fc(struct tf *tf, unsigned int n)
{
	uint8_t fc[SFAB_WIRE_FC_PKT_LEN];

	while (sfab_link_fc_next(&tf->node[n].link, tf->now, fc))
		tf_send(tf, tf->node[n].peer, fc, sizeof(fc));
}

/* cable between switch @a port @pa and switch @b port @pb */
static inline void tf_cable_sw(struct tf *tf, int a, unsigned int pa, int b,
			       unsigned int pb)
{
	tf->sw_peer[a][pa] = (struct tf_end){ b, pb };
	tf->sw_peer[b][pb] = (struct tf_end){ a, pa };
	sfab_sw_port_connect(tf->sw[a], pa);
	sfab_sw_port_connect(tf->sw[b], pb);
}

static inline void tf_cable_node(struct tf *tf, unsigned int n, int s,
				 unsigned int p)
{
	tf->sw_peer[s][p] = (struct tf_end){ -1, n };
	tf->node[n].peer = (struct tf_end){ s, p };
	sfab_link_phys_up(&tf->node[n].link, tf->now);
	tf_node_flush_fc(tf, n);
	sfab_sw_port_connect(tf->sw[s], p);
}

/* cable between a TF_EXT end @idx and switch @s port @p */
static inline void tf_cable_ext(struct tf *tf, unsigned int idx, int s,
				unsigned int p)
{
	tf->sw_peer[s][p] = (struct tf_end){ TF_EXT, idx };
	sfab_sw_port_connect(tf->sw[s], p);
}

static inline void tf_deliver(struct tf *tf, struct tf_frame *fr)
{
	if (fr->to.sw == TF_EXT) {
		if (tf->ext_rx)
			tf->ext_rx(tf->ext_opaque, fr->to.idx, fr->data, fr->len);
	} else if (fr->to.sw >= 0) {
		tf->sw[fr->to.sw]->now = tf->now;
		sfab_sw_port_rx(tf->sw[fr->to.sw], fr->to.idx, fr->data, fr->len);
	} else {
		struct tf_node *nd = &tf->node[fr->to.idx];
		unsigned int vl;

		if (sfab_link_rx(&nd->link, fr->data, fr->len, &vl) ==
		    SFAB_LINK_RX_DATA) {
			if (nd->ninbox < TF_INBOX) {
				nd->inbox[nd->ninbox].len = fr->len;
				nd->inbox[nd->ninbox].vl = vl;
				nd->inbox[nd->ninbox].data = malloc(fr->len);
				memcpy(nd->inbox[nd->ninbox].data, fr->data, fr->len);
				nd->ninbox++;
			}
			if (nd->auto_free)
				sfab_link_rx_free(&nd->link, vl, fr->len);
		}
		tf_node_flush_fc(tf, fr->to.idx);
	}
}

/* deliver at most @budget frames (0: until quiet); return frames moved */
static inline unsigned long tf_pump_n(struct tf *tf, unsigned long budget)
{
	unsigned long moved = 0;
	int i;

	for (;;) {
		while (tf->head && (!budget || moved < budget)) {
			struct tf_frame *fr = tf->head;

			tf->head = fr->next;
			if (!tf->head)
				tf->tail = NULL;
			tf_deliver(tf, fr);
			free(fr);
			moved++;
		}
		for (i = 0; i < TF_MAX_SW; i++)
			if (tf->sw[i]) {
				tf->sw[i]->now = tf->now;
				sfab_sw_run(tf->sw[i]);
			}
		/* the nodes' timers: a periodic FC refresh that is due */
		for (i = 0; i < TF_MAX_NODES; i++)
			if (tf->node[i].link.cfg.fc_period_ns)
				tf_node_flush_fc(tf, i);
		if (!tf->head || (budget && moved >= budget))
			return moved;
	}
}

static inline unsigned long tf_pump(struct tf *tf)
{
	return tf_pump_n(tf, 0);
}

/*
 * One flow-control refresh period later, everything quiet again: the
 * credit updates a receiver held back while its peer had credit left
 * (fc_low_water() in qemu-model/link/sfab_link.c) have gone out.
 */
static inline void tf_refresh(struct tf *tf)
{
	uint64_t period = 0;
	int i;

	for (i = 0; i < TF_MAX_SW; i++)
		if (tf->sw[i] && tf->sw[i]->cfg.fc_period_ns > period)
			period = tf->sw[i]->cfg.fc_period_ns;
	for (i = 0; i < TF_MAX_NODES; i++)
		if (tf->node[i].link.cfg.fc_period_ns > period)
			period = tf->node[i].link.cfg.fc_period_ns;
	tf->now += period;
	tf_pump(tf);
}

static inline void tf_node_free_all(struct tf *tf, unsigned int n)
{
	struct tf_node *nd = &tf->node[n];
	unsigned int i;

	for (i = 0; i < nd->ninbox; i++)
		free(nd->inbox[i].data);
	nd->ninbox = 0;
}

static inline void tf_fini(struct tf *tf)
{
	unsigned int i;

	while (tf->head) {
		struct tf_frame *fr = tf->head;

		tf->head = fr->next;
		free(fr);
	}
	for (i = 0; i < TF_MAX_NODES; i++)
		tf_node_free_all(tf, i);
	for (i = 0; i < TF_MAX_SW; i++)
		sfab_sw_destroy(tf->sw[i]);
}

/* send a UD packet from node @n (credit permitting); false if no credit */
static inline bool tf_node_send(struct tf *tf, unsigned int n, const uint8_t *f,
				size_t len)
{
	struct tf_node *nd = &tf->node[n];
	unsigned int vl = sfab_link_pkt_vl(f);

	if (!sfab_link_tx_ok(&nd->link, vl, len))
		return false;
	sfab_link_tx_sent(&nd->link, vl, f, len);
	tf_send(tf, nd->peer, f, len);
	return true;
}

/* all switch ports and nodes to Active (what opensm would do) */
static inline void tf_activate(struct tf *tf)
{
	unsigned int i, p;

	for (i = 0; i < TF_MAX_SW; i++)
		for (p = 1; tf->sw[i] && p <= tf->sw[i]->cfg.nports; p++)
			if (sfab_link_is_up(&tf->sw[i]->port[p].link)) {
				sfab_link_set_state(&tf->sw[i]->port[p].link, SFAB_PORT_ARMED);
				sfab_link_set_state(&tf->sw[i]->port[p].link, SFAB_PORT_ACTIVE);
			}
	for (i = 0; i < TF_MAX_NODES; i++)
		if (sfab_link_is_up(&tf->node[i].link)) {
			sfab_link_set_state(&tf->node[i].link, SFAB_PORT_ARMED);
			sfab_link_set_state(&tf->node[i].link, SFAB_PORT_ACTIVE);
		}
}

/* a UD data packet of 200 bytes of @fill on SL @sl (and VL @sl) */
static inline size_t tf_data_pkt(uint8_t *buf, uint32_t dlid, uint32_t slid,
				 unsigned int sl, uint8_t fill)
{
	struct sfab_pkt_ud u = {
		.vl = sl, .sl = sl, .dlid = dlid, .slid = slid, .pkey = 0xffff,
		.dqpn = 9, .sqpn = 9, .qkey = 1,
	};
	uint8_t pl[200];

	memset(pl, fill, sizeof(pl));
	return sfab_link_pkt_build_ud(buf, &u, pl, sizeof(pl));
}

/* build an SMP (LID-routed or DR) from a node's QP0 */
static inline size_t tf_smp(uint8_t *buf, struct sfab_wire_smp *smp,
			    uint16_t dlid, uint16_t slid)
{
	struct sfab_pkt_ud u = {
		.vl = SFAB_VL15, .sl = 0, .dlid = dlid, .slid = slid,
		.pkey = 0xffff, .dqpn = 0, .sqpn = 0, .qkey = 0, .psn = 0,
	};

	return sfab_link_pkt_build_ud(buf, &u, smp, sizeof(*smp));
}

static inline void tf_smp_init(struct sfab_wire_smp *smp, uint8_t cls,
			       uint8_t method, uint16_t attr, uint32_t mod)
{
	memset(smp, 0, sizeof(*smp));
	smp->base_version = 1;
	smp->mgmt_class = cls;
	smp->class_version = 1;
	smp->method = method;
	smp->tid = sfab_cpu_to_be64(0x1234);
	smp->attr_id = sfab_cpu_to_be16(attr);
	smp->attr_mod = sfab_cpu_to_be32(mod);
	smp->dr_slid = sfab_cpu_to_be16(SFAB_LID_PERMISSIVE);
	smp->dr_dlid = sfab_cpu_to_be16(SFAB_LID_PERMISSIVE);
}

/* copy out the last MAD node @n received; false if none */
static inline bool tf_last_mad(struct tf *tf, unsigned int n,
			       struct sfab_wire_smp *out)
{
	struct tf_node *nd = &tf->node[n];
	struct sfab_pkt_ud u;

	if (!nd->ninbox ||
	    !sfab_link_pkt_parse_ud(nd->inbox[nd->ninbox - 1].data,
				    nd->inbox[nd->ninbox - 1].len, &u) ||
	    u.len < sizeof(*out))
		return false;
	memcpy(out, u.payload, sizeof(*out));
	return true;
}

/*
 * node 0 -- sw0:1, sw0:2 -- node 1, every port Active, @src routed to
 * port 1 and @dst to port 2 (@cfg: the switch's and nodes' config)
 */
static inline void tf_one_switch(struct tf *tf, const struct sfab_sw_cfg *cfg,
				 uint16_t src, uint16_t dst)
{
	tf_init(tf);
	tf->now = 1000;
	tf_add_sw(tf, 0, cfg);
	tf_add_node(tf, 0, cfg);
	tf_add_node(tf, 1, cfg);
	tf_cable_node(tf, 0, 0, 1);
	tf_cable_node(tf, 1, 0, 2);
	tf_pump(tf);
	tf_activate(tf);
	sfab_sw_lft_set(tf->sw[0], dst, 2);
	sfab_sw_lft_set(tf->sw[0], src, 1);
}

#endif /* SFAB_TEST_SW_FABRIC_H */
