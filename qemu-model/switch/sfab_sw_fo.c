/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab switch core: fast failover below the subnet manager (struct
 * sfab_sw_fo in sfab_sw.h; Documentation/sfab/failover.rst).
 *
 * A port that leaves Active is seen by the next sfab_sw_run(), before it
 * forwards anything: each unicast LID whose route is that port moves to
 * an alternate in the same call, and the packets queued for it move too
 * (sfab_sw_fo_requeue()).  Nothing waits for a sweep.  The alternate is
 * the LID's backup entry when that port is Active, or, for a lost port of
 * the up-port group, another Active up-port: the (LID mod n)-th of the n
 * left, which spreads the moved destinations as D-mod-K routing spreads
 * them.  A LID with neither is unreachable through this switch: the
 * switch-facing ports are told so in fault routing notifications
 * (struct sfab_wire_frn), and a switch told so moves the LIDs it routes
 * through the teller the same way, or passes the news on.
 */
#include <stdlib.h>
#include <string.h>

#include "sfab_sw.h"
#include "../link/sfab_pkt.h"
#include "sfab/sfab_regs.h"

static bool bit_get(const uint64_t *m, unsigned int i)
{
	return (m[i / 64] >> (i % 64)) & 1;
}

static void bit_put(uint64_t *m, unsigned int i, bool on)
{
	if (on)
		m[i / 64] |= 1ULL << (i % 64);
	else
		m[i / 64] &= ~(1ULL << (i % 64));
}

static bool port_usable(const struct sfab_sw *sw, unsigned int p)
{
	return p && p <= sw->cfg.nports &&
	       sw->port[p].link.state == SFAB_PORT_ACTIVE;
}

/* the tables, allocated the first time failover is configured or used */
static int fo_tables(struct sfab_sw *sw)
{
	struct sfab_sw_fo *fo = &sw->fo;

	if (!fo->over) {
		fo->over = malloc(sw->lft_cap);
		if (!fo->over)
			return -1;
		memset(fo->over, SFAB_LFT_NO_PORT, sw->lft_cap);
	}
	if (!fo->unreach) {
		fo->unreach = calloc(sw->lft_cap / 64, sizeof(uint64_t));
		if (!fo->unreach)
			return -1;
	}
	return 0;
}

static bool fo_configured(const struct sfab_sw *sw)
{
	unsigned int w;

	if (sw->fo.alt)
		return true;
	for (w = 0; w < SFAB_SW_WANT_WORDS; w++)
		if (sw->fo.up[w] || sw->fo.peer[w])
			return true;
	return false;
}

int sfab_sw_alt_set(struct sfab_sw *sw, uint32_t lid, uint8_t port)
{
	if (lid >= sw->lft_cap ||
	    (port > sw->cfg.nports && port != SFAB_LFT_NO_PORT))
		return -1;
	if (!sw->fo.alt) {
		if (port == SFAB_LFT_NO_PORT)
			return 0;
		sw->fo.alt = malloc(sw->lft_cap);
		if (!sw->fo.alt)
			return -1;
		memset(sw->fo.alt, SFAB_LFT_NO_PORT, sw->lft_cap);
	}
	if (fo_tables(sw))
		return -1;
	sw->fo.alt[lid] = port;
	return 0;
}

uint8_t sfab_sw_alt_get(const struct sfab_sw *sw, uint32_t lid)
{
	return sw->fo.alt && lid < sw->lft_cap ? sw->fo.alt[lid] :
	       SFAB_LFT_NO_PORT;
}

static int group_set(struct sfab_sw *sw, uint64_t *m, unsigned int p,
		     bool member)
{
	if (!p || p > sw->cfg.nports || fo_tables(sw))
		return -1;
	bit_put(m, p, member);
	return 0;
}

int sfab_sw_fo_up_port(struct sfab_sw *sw, unsigned int p, bool member)
{
	return group_set(sw, sw->fo.up, p, member);
}

int sfab_sw_fo_peer_port(struct sfab_sw *sw, unsigned int p, bool member)
{
	return group_set(sw, sw->fo.peer, p, member);
}

uint8_t sfab_sw_route_port(const struct sfab_sw *sw, uint32_t lid)
{
	if (lid >= sw->lft_cap)
		return SFAB_LFT_NO_PORT;
	if (sw->fo.over && sw->fo.over[lid] != SFAB_LFT_NO_PORT)
		return sw->fo.over[lid];
	return sw->lft[lid];
}

/* an Active port for @lid other than @bad, or SFAB_LFT_NO_PORT */
static uint8_t alternate(const struct sfab_sw *sw, uint32_t lid,
			 unsigned int bad)
{
	unsigned int p, n = 0, k;
	uint8_t a = sfab_sw_alt_get(sw, lid);

	if (a != bad && port_usable(sw, a))
		return a;
	if (!bit_get(sw->fo.up, bad))
		return SFAB_LFT_NO_PORT;
	for (p = 1; p <= sw->cfg.nports; p++)
		if (p != bad && bit_get(sw->fo.up, p) && port_usable(sw, p))
			n++;
	if (!n)
		return SFAB_LFT_NO_PORT;
	k = lid % n;
	for (p = 1; p <= sw->cfg.nports; p++) {
		if (p == bad || !bit_get(sw->fo.up, p) || !port_usable(sw, p))
			continue;
		if (!k--)
			return p;
	}
	return SFAB_LFT_NO_PORT;
}

bool sfab_sw_fo_bounce(const struct sfab_sw *sw, unsigned int in_port,
		       uint32_t dlid, unsigned int out)
{
	return sw->fo.unreach && in_port && dlid < sw->lft_cap &&
	       in_port != out && sw->port[out].fo_lost &&
	       bit_get(sw->fo.unreach, dlid) && bit_get(sw->fo.peer, in_port) &&
	       port_usable(sw, in_port);
}

/* --- fault routing notifications ------------------------------------------ */

struct frn_out {
	uint8_t kind;
	unsigned int count;
	struct sfab_wire_frn_range range[SFAB_FRN_MAX_RANGES];
};

static void frn_send(struct sfab_sw *sw, const struct frn_out *o,
		     unsigned int from)
{
	struct sfab_pkt_ud u = {
		.vl = SFAB_VL15,
		.dlid = SFAB_LID_PERMISSIVE,
		.slid = sw->lid ? sw->lid : SFAB_LID_PERMISSIVE,
		.pkey = SFAB_PKEY_DEFAULT,
		.dqpn = SFAB_QP0,
		.sqpn = SFAB_QP0,
	};
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_frn m;
	unsigned int p;
	uint8_t out;
	size_t n;

	if (!o->count)
		return;
	memset(&m, 0, sizeof(m));
	sfab_frn_hdr_set(&m, o->kind, ++sw->trap_tid);
	m.count = sfab_cpu_to_be16(o->count);
	memcpy(m.range, o->range, o->count * sizeof(o->range[0]));
	n = sfab_link_pkt_build_ud(buf, &u, &m, sizeof(m));
	if (!n)
		return;
	for (p = 1; p <= sw->cfg.nports; p++) {
		if (p == from || !bit_get(sw->fo.peer, p) || !port_usable(sw, p))
			continue;
		out = p;
		if (!sfab_sw_inject(sw, 0, buf, n, &out, 1))
			sw->fo.frn_sent++;
	}
}

/* @lid into the ranges of @o, sending a full notification first */
static void frn_add(struct sfab_sw *sw, struct frn_out *o, uint16_t lid,
		    unsigned int from)
{
	if (o->count &&
	    sfab_be16_to_cpu(o->range[o->count - 1].last) + 1 == lid) {
		o->range[o->count - 1].last = sfab_cpu_to_be16(lid);
		return;
	}
	if (o->count == SFAB_FRN_MAX_RANGES) {
		frn_send(sw, o, from);
		o->count = 0;
	}
	o->range[o->count].first = sfab_cpu_to_be16(lid);
	o->range[o->count].last = sfab_cpu_to_be16(lid);
	o->count++;
}

/* routes changed: the statistics' clock, the queues */
static void fo_changed(struct sfab_sw *sw)
{
	sw->fo.epoch++;
	sw->fo.last_ns = sw->now;
	sw->fo.first_tx_ns = 0;
	sfab_sw_fo_requeue(sw);
}

/*
 * Every LID routed out of @bad (lost, or announced unusable for those LIDs
 * by the switch behind it) to an alternate; with @announce, the ones with
 * none announced unreachable to the peers but @from (0: none).  @lid_ok
 * limits it to the LIDs a notification named.  Return the LIDs moved or
 * announced.
 */
static unsigned int move_off(struct sfab_sw *sw, unsigned int bad,
			     unsigned int from, const uint64_t *lid_ok,
			     bool announce)
{
	struct sfab_sw_fo *fo = &sw->fo;
	struct frn_out o = { .kind = SFAB_FRN_DOWN };
	unsigned int lid, n = 0;
	uint8_t a;

	for (lid = 1; lid < sw->lft_cap; lid++) {
		/* a notification names IBA's LIDs only */
		if (lid_ok && (lid >= SFAB_SW_LFT_CAP || !bit_get(lid_ok, lid)))
			continue;
		if (sfab_sw_route_port(sw, lid) != bad)
			continue;
		n++;
		a = alternate(sw, lid, bad);
		if (a != SFAB_LFT_NO_PORT) {
			fo->over[lid] = a;
			fo->moved++;
			continue;
		}
		/*
		 * the notification's ranges are 16 bits, IBA's LIDs only: an
		 * extended LID is not announced, so not marked either (a
		 * packet for it is never sent back to a switch not told)
		 */
		if (!announce || lid >= SFAB_SW_LFT_CAP ||
		    bit_get(fo->unreach, lid))
			continue;
		bit_put(fo->unreach, lid, true);
		fo->unreachable++;
		frn_add(sw, &o, lid, from);
	}
	frn_send(sw, &o, from);
	return n;
}

/*
 * @p is usable again (Active, or its switch said so for the LIDs in
 * @lid_ok, NULL: all): the LIDs the LFT gives it back to it, and news of
 * those announced unreachable to the peers but @p (the switch behind @p
 * lost the link too, or is the one that told us)
 */
static void take_back(struct sfab_sw *sw, unsigned int p,
		      const uint64_t *lid_ok)
{
	struct sfab_sw_fo *fo = &sw->fo;
	struct frn_out o = { .kind = SFAB_FRN_UP };
	unsigned int lid;

	for (lid = 1; lid < sw->lft_cap; lid++) {
		/* a notification names IBA's LIDs only */
		if (sw->lft[lid] != p ||
		    (lid_ok && (lid >= SFAB_SW_LFT_CAP || !bit_get(lid_ok, lid))))
			continue;
		fo->over[lid] = SFAB_LFT_NO_PORT;
		if (bit_get(fo->unreach, lid)) {
			bit_put(fo->unreach, lid, false);
			frn_add(sw, &o, lid, p);
		}
	}
	frn_send(sw, &o, p);
}

void sfab_sw_fo_scan(struct sfab_sw *sw)
{
	unsigned int p;
	bool changed = false;

	for (p = 1; p <= sw->cfg.nports; p++) {
		struct sfab_sw_port *port = &sw->port[p];
		bool active = port->link.state == SFAB_PORT_ACTIVE;

		if (active == port->fo_active)
			continue;
		port->fo_active = active;
		if (!fo_configured(sw) || fo_tables(sw))
			continue;
		if (!active) {
			port->fo_lost = true;
			sw->fo.events++;
			/*
			 * an endpoint's port lost: its LIDs are nowhere else,
			 * and nobody is told (only backup entries move)
			 */
			move_off(sw, p, p, NULL, bit_get(sw->fo.peer, p));
			changed = true;
		} else if (port->fo_lost) {
			port->fo_lost = false;
			take_back(sw, p, NULL);
			changed = true;
		}
	}
	if (changed)
		fo_changed(sw);
}

void sfab_sw_fo_lft_written(struct sfab_sw *sw, unsigned int first,
			    unsigned int n)
{
	struct sfab_sw_fo *fo = &sw->fo;
	unsigned int lid;
	uint8_t a;

	if (!fo->over)
		return;
	/* the SM's word replaces the moves; a lost port keeps its LIDs off */
	for (lid = first; lid < first + n && lid < sw->lft_cap; lid++) {
		uint8_t p = sw->lft[lid];

		fo->over[lid] = SFAB_LFT_NO_PORT;
		bit_put(fo->unreach, lid, false);
		if (p && p <= sw->cfg.nports && sw->port[p].fo_lost) {
			a = alternate(sw, lid, p);
			if (a != SFAB_LFT_NO_PORT)
				fo->over[lid] = a;
		}
	}
	fo->epoch++;
	sfab_sw_fo_requeue(sw);
}

void sfab_sw_frn_rx(struct sfab_sw *sw, unsigned int p, const uint8_t *mad)
{
	struct sfab_sw_fo *fo = &sw->fo;
	uint64_t lids[SFAB_SW_LFT_CAP / 64];
	struct sfab_wire_frn m;
	unsigned int i, count, lid, first, last, prev = 0;

	memcpy(&m, mad, sizeof(m));
	count = sfab_be16_to_cpu(m.count);
	/* only a switch beside us may move our routes */
	if (!p || p > sw->cfg.nports || !bit_get(fo->peer, p) ||
	    !sfab_frn_hdr_ok(&m) || !count || count > SFAB_FRN_MAX_RANGES ||
	    fo_tables(sw)) {
		fo->frn_refused++;
		return;
	}
	/* ranges ascending and apart: each LID once, a bounded walk */
	memset(lids, 0, sizeof(lids));
	for (i = 0; i < count; i++) {
		first = sfab_be16_to_cpu(m.range[i].first);
		last = sfab_be16_to_cpu(m.range[i].last);
		if (!first || first > last || last >= SFAB_SW_LFT_CAP ||
		    (i && first <= prev + 1)) {
			fo->frn_refused++;
			return;
		}
		for (lid = first; lid <= last; lid++)
			bit_put(lids, lid, true);
		prev = last;
	}
	fo->frn_taken++;
	fo->events++;
	if (m.kind == SFAB_FRN_DOWN)
		move_off(sw, p, p, lids, true);
	else if (port_usable(sw, p))
		take_back(sw, p, lids);
	fo_changed(sw);
}
