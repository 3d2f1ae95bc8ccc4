/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab_sim: the project's switch core, link and framing behind the plain C
 * interface of sfab_sim.h, for the ns-3 module.  Nothing here decides
 * anything about forwarding or credit: it sets the clock, passes frames
 * and reads counters.
 */
#include <stdlib.h>
#include <string.h>

#include "sfab_sim.h"
#include "sfab/sfab_wire.h"
#include "../../../qemu-model/switch/sfab_sw.h"
#include "../../../qemu-model/link/sfab_link.h"
#include "../../../qemu-model/link/sfab_pkt.h"

_Static_assert(SFAB_SIM_MAX_FRAME == SFAB_WIRE_MAX_PKT_LEN, "frame size");
_Static_assert(SFAB_SIM_FC_LEN == SFAB_WIRE_FC_PKT_LEN, "FC packet size");
_Static_assert(SFAB_SIM_MAX_PORTS == SFAB_SW_MAX_PORTS, "switch ports");

/* --- a switch ----------------------------------------------------------- */

struct sfab_sim_sw {
	struct sfab_sw *sw;
	sfab_sim_xmit_fn xmit;
	void *opaque;
};

static int sim_xmit_at(void *opaque, unsigned int port, const uint8_t *frame,
		       size_t len, uint64_t start_ns)
{
	struct sfab_sim_sw *s = opaque;

	s->xmit(s->opaque, port, frame, len, start_ns);
	return 0;
}

static int sim_xmit(void *opaque, unsigned int port, const uint8_t *frame,
		    size_t len)
{
	struct sfab_sim_sw *s = opaque;

	return sim_xmit_at(opaque, port, frame, len, s->sw->now);
}

static const struct sfab_sw_ops sim_sw_ops = {
	.xmit = sim_xmit,
	.xmit_at = sim_xmit_at,
};

struct sfab_sim_sw *sfab_sim_sw_new(const struct sfab_sim_sw_cfg *cfg,
				    sfab_sim_xmit_fn xmit, void *opaque)
{
	struct sfab_sim_sw *s = calloc(1, sizeof(*s));
	struct sfab_sw_cfg c;

	if (!s)
		return NULL;
	sfab_sw_default_cfg(&c);
	c.nports = cfg->nports;
	c.num_data_vls = cfg->num_data_vls;
	c.vl_blocks = cfg->vl_blocks;
	c.rate_mbps = cfg->rate_mbps;
	c.hop_ns = cfg->hop_ns;
	c.fc_period_ns = cfg->fc_period_ns;
	c.lft_cap = cfg->lft_cap;
	if (cfg->guid)
		c.node_guid = cfg->guid;
	c.paced = true;
	s->xmit = xmit;
	s->opaque = opaque;
	s->sw = sfab_sw_create(&c, &sim_sw_ops, s);
	if (!s->sw) {
		free(s);
		return NULL;
	}
	return s;
}

void sfab_sim_sw_free(struct sfab_sim_sw *s)
{
	if (!s)
		return;
	sfab_sw_destroy(s->sw);
	free(s);
}

void sfab_sim_sw_connect(struct sfab_sim_sw *s, uint64_t now, unsigned int port)
{
	s->sw->now = now;
	sfab_sw_port_connect(s->sw, port);
}

void sfab_sim_sw_disconnect(struct sfab_sim_sw *s, uint64_t now,
			    unsigned int port)
{
	s->sw->now = now;
	sfab_sw_port_disconnect(s->sw, port);
}

void sfab_sim_sw_rx(struct sfab_sim_sw *s, uint64_t now, unsigned int port,
		    const uint8_t *frame, size_t len)
{
	s->sw->now = now;
	sfab_sw_port_rx(s->sw, port, frame, len);
}

unsigned int sfab_sim_sw_run(struct sfab_sim_sw *s, uint64_t now)
{
	s->sw->now = now;
	return sfab_sw_run(s->sw);
}

uint64_t sfab_sim_sw_deadline(const struct sfab_sim_sw *s)
{
	return sfab_sw_deadline(s->sw);
}

int sfab_sim_sw_lft_set(struct sfab_sim_sw *s, uint32_t lid, unsigned int port)
{
	return sfab_sw_lft_set(s->sw, lid, (uint8_t)port);
}

int sfab_sim_sw_alt_set(struct sfab_sim_sw *s, uint32_t lid, unsigned int port)
{
	return sfab_sw_alt_set(s->sw, lid, (uint8_t)port);
}

int sfab_sim_sw_fo_group(struct sfab_sim_sw *s, unsigned int port, bool up,
			 bool peer)
{
	if (sfab_sw_fo_up_port(s->sw, port, up))
		return -1;
	return sfab_sw_fo_peer_port(s->sw, port, peer);
}

unsigned int sfab_sim_sw_route_port(const struct sfab_sim_sw *s, uint32_t lid)
{
	return sfab_sw_route_port(s->sw, lid);
}

void sfab_sim_sw_fo_stats(const struct sfab_sim_sw *s,
			  struct sfab_sim_fo_stats *st)
{
	const struct sfab_sw_fo *fo = &s->sw->fo;

	st->events = fo->events;
	st->moved = fo->moved;
	st->unreachable = fo->unreachable;
	st->requeued = fo->requeued;
	st->sent_alt = fo->sent_alt;
	st->bounced = fo->bounced;
	st->frn_sent = fo->frn_sent;
	st->frn_taken = fo->frn_taken;
	st->frn_refused = fo->frn_refused;
	st->last_ns = fo->last_ns;
	st->first_tx_ns = fo->first_tx_ns;
}

unsigned int sfab_sim_sw_lft_get(const struct sfab_sim_sw *s, uint32_t lid)
{
	return sfab_sw_lft_get(s->sw, lid);
}

int sfab_sim_sw_sl2vl_set(struct sfab_sim_sw *s, unsigned int in,
			  unsigned int out, unsigned int vl)
{
	if (in > s->sw->cfg.nports || out > s->sw->cfg.nports ||
	    vl >= s->sw->cfg.num_data_vls)
		return -1;
	memset(sfab_sw_sl2vl(s->sw, in, out), vl, 16);
	return 0;
}

size_t sfab_sim_sw_core_bytes(const struct sfab_sim_sw *s)
{
	size_t n = s->sw->cfg.nports + 1;

	size_t lft = s->sw->lft_cap;

	return sizeof(*s->sw) + n * sizeof(*s->sw->port) + lft +
	       (size_t)SFAB_SW_MFT_CAP * s->sw->mft_chunks * sizeof(uint16_t) +
	       n * n * 16 +
	       /* fast failover's tables, once used */
	       (s->sw->fo.alt ? lft : 0) +
	       (s->sw->fo.over ? lft : 0) +
	       (s->sw->fo.unreach ? lft / 8 : 0);
}

int sfab_sim_sw_port_rate(struct sfab_sim_sw *s, unsigned int port,
			  uint64_t rate_mbps)
{
	return sfab_sw_port_rate(s->sw, port, rate_mbps);
}

uint64_t sfab_sim_ser_ns(uint64_t rate_mbps, size_t len)
{
	return sfab_sw_ser_ns(rate_mbps, len);
}

unsigned int sfab_sim_sw_activate(struct sfab_sim_sw *s)
{
	unsigned int p, n = 0;

	for (p = 1; p <= s->sw->cfg.nports; p++) {
		struct sfab_link *l = &s->sw->port[p].link;

		if (!sfab_link_is_up(l))
			continue;
		if (l->state < SFAB_PORT_ARMED)
			sfab_link_set_state(l, SFAB_PORT_ARMED);
		if (l->state == SFAB_PORT_ARMED)
			sfab_link_set_state(l, SFAB_PORT_ACTIVE);
		n += l->state == SFAB_PORT_ACTIVE;
	}
	return n;
}

bool sfab_sim_sw_port_active(const struct sfab_sim_sw *s, unsigned int port)
{
	return port && port <= s->sw->cfg.nports &&
	       s->sw->port[port].link.state == SFAB_PORT_ACTIVE;
}

bool sfab_sim_sw_port_up(const struct sfab_sim_sw *s, unsigned int port)
{
	return port && port <= s->sw->cfg.nports &&
	       sfab_link_is_up(&s->sw->port[port].link);
}

int sfab_sim_sw_pcap(struct sfab_sim_sw *s, unsigned int port, const char *path)
{
	return sfab_sw_pcap_open(s->sw, port, path);
}

void sfab_sim_sw_port_stats(const struct sfab_sim_sw *s, unsigned int port,
			    struct sfab_sim_port_stats *st)
{
	const struct sfab_sw_port *p;
	unsigned int v;

	memset(st, 0, sizeof(*st));
	if (!port || port > s->sw->cfg.nports)
		return;
	p = &s->sw->port[port];
	st->xmit_pkts = p->link.cnt.xmit_pkts;
	st->rcv_pkts = p->link.cnt.rcv_pkts;
	st->xmit_bytes = p->link.cnt.xmit_data;
	st->xmit_wait_ns = p->cnt.xmit_wait;
	st->xmit_discards = p->cnt.xmit_discards;
	st->rcv_errors = p->link.cnt.rcv_errors;
	st->fc_pkts_tx = p->link.cnt.fc_pkts_tx;
	st->fc_pkts_rx = p->link.cnt.fc_pkts_rx;
	for (v = 0; v < 16; v++)
		st->queued += p->inq[v].count;
	st->overruns = p->link.cnt.excessive_buffer_overrun;
	st->link_downed = p->link.cnt.link_downed;
	st->state = p->link.state;
	st->lat_min_ns = p->lat_count ? p->lat_min : 0;
	st->lat_max_ns = p->lat_max;
	st->lat_sum_ns = p->lat_sum;
	st->lat_count = p->lat_count;
}

unsigned int sfab_sim_sw_queued(const struct sfab_sim_sw *s)
{
	return s->sw->queued;
}

void sfab_sim_sw_hold(struct sfab_sim_sw *s, unsigned int port,
		      unsigned int vl_mask)
{
	if (port && port <= s->sw->cfg.nports)
		s->sw->port[port].tx_held = (uint16_t)vl_mask;
}

unsigned int sfab_sim_sw_vl_used(const struct sfab_sim_sw *s,
				 unsigned int port, unsigned int vl)
{
	if (!port || port > s->sw->cfg.nports || vl >= SFAB_LINK_MAX_DATA_VLS)
		return 0;
	return s->sw->port[port].link.vl[vl].used;
}

void sfab_sim_sw_rx_drop(struct sfab_sim_sw *s, uint64_t now,
			 unsigned int port, const uint8_t *frame, size_t len)
{
	unsigned int vl;

	if (!port || port > s->sw->cfg.nports)
		return;
	s->sw->now = now;
	if (sfab_link_rx(&s->sw->port[port].link, frame, len, &vl) ==
	    SFAB_LINK_RX_DATA)
		sfab_link_rx_free(&s->sw->port[port].link, vl, len);
}

unsigned int sfab_sim_blocks(size_t len)
{
	return sfab_link_blocks(len);
}

/* --- an HCA's port ------------------------------------------------------ */

struct sfab_sim_link {
	struct sfab_link link;
};

struct sfab_sim_link *sfab_sim_link_new(unsigned int num_data_vls,
					unsigned int vl_blocks,
					uint64_t fc_period_ns)
{
	struct sfab_sim_link *l = calloc(1, sizeof(*l));
	struct sfab_link_cfg c = {
		.num_data_vls = num_data_vls,
		.vl_blocks = vl_blocks,
		.vl15_blocks = 2 * SFAB_WIRE_MAX_PKT_LEN / 64,
		.fc_period_ns = fc_period_ns,
		.ext_lrh = true,	/* the simulation's HCAs know 24-bit LIDs */
	};

	if (!l)
		return NULL;
	if (sfab_link_init(&l->link, &c)) {
		free(l);
		return NULL;
	}
	return l;
}

void sfab_sim_link_free(struct sfab_sim_link *l)
{
	free(l);
}

void sfab_sim_link_phys_up(struct sfab_sim_link *l, uint64_t now)
{
	sfab_link_phys_up(&l->link, now);
}

bool sfab_sim_link_activate(struct sfab_sim_link *l)
{
	if (!sfab_link_is_up(&l->link))
		return false;
	if (l->link.state < SFAB_PORT_ARMED)
		sfab_link_set_state(&l->link, SFAB_PORT_ARMED);
	if (l->link.state == SFAB_PORT_ARMED)
		sfab_link_set_state(&l->link, SFAB_PORT_ACTIVE);
	return l->link.state == SFAB_PORT_ACTIVE;
}

bool sfab_sim_link_active(const struct sfab_sim_link *l)
{
	return l->link.state == SFAB_PORT_ACTIVE;
}

bool sfab_sim_link_up(const struct sfab_sim_link *l)
{
	return sfab_link_is_up(&l->link);
}

int sfab_sim_link_rx(struct sfab_sim_link *l, uint64_t now,
		     const uint8_t *frame, size_t len, unsigned int *vl)
{
	(void)now;
	return sfab_link_rx(&l->link, frame, len, vl) == SFAB_LINK_RX_DATA ?
	       SFAB_SIM_RX_DATA : SFAB_SIM_RX_NONE;
}

void sfab_sim_link_rx_free(struct sfab_sim_link *l, unsigned int vl,
			   size_t len)
{
	sfab_link_rx_free(&l->link, vl, len);
}

bool sfab_sim_link_tx_ok(const struct sfab_sim_link *l, unsigned int vl,
			 size_t len)
{
	return sfab_link_can_xmit(&l->link, vl) &&
	       sfab_link_tx_ok(&l->link, vl, len);
}

void sfab_sim_link_tx_sent(struct sfab_sim_link *l, unsigned int vl,
			   const uint8_t *frame, size_t len)
{
	sfab_link_tx_sent(&l->link, vl, frame, len);
}

bool sfab_sim_link_fc_next(struct sfab_sim_link *l, uint64_t now,
			   uint8_t out[SFAB_SIM_FC_LEN])
{
	return sfab_link_fc_next(&l->link, now, out);
}

uint64_t sfab_sim_link_fc_deadline(const struct sfab_sim_link *l)
{
	return sfab_link_fc_deadline(&l->link);
}

uint64_t sfab_sim_link_rcv_errors(const struct sfab_sim_link *l)
{
	return l->link.cnt.rcv_errors;
}

/* --- packets ---------------------------------------------------------------- */

/* the transport's header in the payload: message number, posting time */
#define SIM_HDR		16

static const uint8_t rc_opcode[] = {
	[SFAB_SIM_RC_FIRST] = SFAB_OP_SEND_FIRST,
	[SFAB_SIM_RC_MIDDLE] = SFAB_OP_SEND_MIDDLE,
	[SFAB_SIM_RC_LAST] = SFAB_OP_SEND_LAST,
	[SFAB_SIM_RC_ONLY] = SFAB_OP_SEND_ONLY,
	[SFAB_SIM_RC_ACK] = SFAB_OP_ACK,
};

static void put64(uint8_t *p, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

uint32_t sfab_sim_lid_at(uint32_t base, uint64_t i)
{
	uint64_t lid = (uint64_t)base + i;

	if (!sfab_xlid_is_ucast(base) || i > SFAB_XLID_MAX)
		return 0;
	if (base <= SFAB_LID_UCAST_MAX && lid > SFAB_LID_UCAST_MAX)
		lid += SFAB_XLID_UCAST_BASE - (SFAB_LID_UCAST_MAX + 1);
	return lid <= SFAB_XLID_UCAST_MAX ? (uint32_t)lid : 0;
}

uint32_t sfab_sim_lft_cap(uint32_t last)
{
	if (last < SFAB_SW_LFT_CAP)
		return 0;
	return (last + 64) / 64 * 64;
}

size_t sfab_sim_pkt_build(uint8_t *buf, const struct sfab_sim_pkt *p)
{
	static uint8_t pl[SFAB_WIRE_MAX_PKT_LEN];
	uint32_t len = p->len;

	if (len > SFAB_WIRE_MAX_PKT_LEN - 128)
		return 0;
	if (len >= SIM_HDR) {
		put64(pl, p->msg);
		put64(pl + 8, p->posted_ns);
	}
	if (p->kind == SFAB_SIM_UD) {
		struct sfab_pkt_ud u = {
			.vl = p->vl, .sl = p->sl, .dlid = p->dlid,
			.slid = p->slid, .pkey = 0xffff, .dqpn = p->dqpn,
			.sqpn = p->sqpn, .qkey = 1, .psn = p->psn,
		};

		return sfab_link_pkt_build_ud(buf, &u, pl, len);
	}
	if ((unsigned int)p->kind > SFAB_SIM_RC_ACK)
		return 0;
	{
		struct sfab_pkt_rc r = {
			.vl = p->vl, .sl = p->sl, .dlid = p->dlid,
			.slid = p->slid, .pkey = 0xffff,
			.opcode = rc_opcode[p->kind], .ackreq = p->ackreq,
			.dqpn = p->dqpn, .psn = p->psn,
		};

		if (p->kind == SFAB_SIM_RC_ACK) {
			r.msn = (uint32_t)p->msg & 0xffffff;
			len = 0;
		}
		return sfab_link_pkt_build_rc(buf, &r, pl, len);
	}
}

/* the transport's header, when the payload holds one */
static void take_hdr(struct sfab_sim_pkt *p, const uint8_t *payload,
		     size_t len)
{
	if (len >= SIM_HDR) {
		p->msg = get64(payload);
		p->posted_ns = get64(payload + 8);
	}
}

bool sfab_sim_pkt_parse(const uint8_t *frame, size_t len,
			struct sfab_sim_pkt *p)
{
	struct sfab_pkt_rc r;
	struct sfab_pkt_ud u;
	unsigned int k;

	memset(p, 0, sizeof(*p));
	if (len >= SFAB_WIRE_LRH_LEN)
		p->ext_lrh = sfab_wire_lrh_len(frame) == SFAB_WIRE_XLRH_LEN;
	if (sfab_link_pkt_parse_ud(frame, len, &u)) {
		p->kind = SFAB_SIM_UD;
		p->vl = u.vl;
		p->sl = u.sl;
		p->dlid = u.dlid;
		p->slid = u.slid;
		p->dqpn = u.dqpn;
		p->sqpn = u.sqpn;
		p->psn = u.psn;
		p->len = (uint32_t)u.len;
		take_hdr(p, u.payload, u.len);
		return true;
	}
	if (!sfab_link_pkt_parse_rc(frame, len, &r))
		return false;
	for (k = 0; k <= SFAB_SIM_RC_ACK; k++)
		if (rc_opcode[k] == r.opcode)
			break;
	if (k > SFAB_SIM_RC_ACK)
		return false;
	p->kind = (enum sfab_sim_kind)k;
	p->vl = r.vl;
	p->sl = r.sl;
	p->dlid = r.dlid;
	p->slid = r.slid;
	p->dqpn = r.dqpn;
	p->psn = r.psn;
	p->ackreq = r.ackreq;
	p->len = (uint32_t)r.len;
	if (p->kind == SFAB_SIM_RC_ACK)
		p->msg = r.msn;
	else
		take_hdr(p, r.payload, r.len);
	return true;
}

size_t sfab_sim_pkt_len(enum sfab_sim_kind kind, uint32_t payload)
{
	static uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_sim_pkt p = { .kind = kind, .len = payload };

	return sfab_sim_pkt_build(buf, &p);
}
