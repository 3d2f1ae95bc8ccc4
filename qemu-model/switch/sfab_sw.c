/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab switch core: ports, input buffers, forwarding, VL arbitration,
 * credit-gated transmission and the virtual-time account.
 */
#include <stdlib.h>
#include <string.h>

#include "sfab_sw.h"
#include "../link/sfab_crc.h"
#include "../link/sfab_pkt.h"

void sfab_sw_default_cfg(struct sfab_sw_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nports = SFAB_SW_DEF_PORTS;
	cfg->num_data_vls = SFAB_SW_DATA_VLS;
	cfg->vl_blocks = 256;		/* 16 KiB per port per VL */
	cfg->vl15_blocks = 64;
	cfg->fc_period_ns = SFAB_LINK_FC_REFRESH_NS;
	cfg->node_guid = 0x5346ab0000000100ULL;
	strcpy(cfg->desc, "sfab-switchd");
	cfg->rate_mbps = 400000;
	cfg->hop_ns = 200;
	cfg->seed = 1;
}

static void arb_defaults(struct sfab_sw_port *p, unsigned int nvl)
{
	unsigned int i;

	memset(&p->arb_high, 0, sizeof(p->arb_high));
	memset(&p->arb_low, 0, sizeof(p->arb_low));
	for (i = 0; i < nvl; i++) {
		p->arb_low.vl[i] = i;
		p->arb_low.weight[i] = 64;	/* 4 KiB each, round robin */
	}
	p->arb_low.left = p->arb_low.weight[0];
}

struct sfab_sw *sfab_sw_create(const struct sfab_sw_cfg *cfg,
			       const struct sfab_sw_ops *ops, void *opaque)
{
	struct sfab_link_cfg lc = {
		.num_data_vls = cfg->num_data_vls,
		.vl_blocks = cfg->vl_blocks,
		.vl15_blocks = cfg->vl15_blocks,
		.fc_period_ns = cfg->fc_period_ns,
		.ext_lrh = cfg->lft_cap > SFAB_SW_LFT_CAP,
	};
	unsigned int i, n = cfg->nports + 1;
	struct sfab_sw *sw;

	if (!cfg->nports || cfg->nports > SFAB_SW_MAX_PORTS ||
	    !cfg->num_data_vls || cfg->num_data_vls > SFAB_SW_DATA_VLS ||
	    !cfg->rate_mbps || cfg->lft_cap % 64 ||
	    (cfg->lft_cap && cfg->lft_cap < SFAB_SW_LFT_CAP) ||
	    cfg->lft_cap > SFAB_SW_XLFT_CAP)
		return NULL;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return NULL;
	sw->cfg = *cfg;
	sw->ops = ops;
	sw->opaque = opaque;
	sw->mft_chunks = (n + 15) / 16;
	sw->port = calloc(n, sizeof(*sw->port));
	sw->lft_cap = cfg->lft_cap ? cfg->lft_cap : SFAB_SW_LFT_CAP;
	sw->lft = malloc(sw->lft_cap);
	sw->mft = calloc((size_t)SFAB_SW_MFT_CAP * sw->mft_chunks, sizeof(uint16_t));
	sw->sl2vl = calloc((size_t)n * n, 16);
	if (!sw->port || !sw->lft || !sw->mft || !sw->sl2vl)
		goto fail;
	memset(sw->lft, SFAB_LFT_NO_PORT, sw->lft_cap);
	for (i = 0; i < n; i++) {
		struct sfab_sw_port *p = &sw->port[i];

		p->num = i;
		if (sfab_link_init(&p->link, &lc))
			goto fail;
		sfab_mad_port_cfg_init(&p->cfg,
				       sfab_vl_cap(cfg->num_data_vls));
		p->lat_min = UINT64_MAX;
		p->pkeys[0] = SFAB_PKEY_DEFAULT;
		p->seen_state = p->link.state;
		arb_defaults(p, cfg->num_data_vls);
	}
	/* SL-to-VL: identity on the data VLs, the rest to VL0 */
	for (i = 0; i < n * n; i++) {
		unsigned int sl;

		for (sl = 0; sl < 16; sl++)
			sw->sl2vl[i * 16 + sl] = sl < cfg->num_data_vls ? sl : 0;
	}
	sw->port0_state = SFAB_PORT_INIT;
	sw->def_mcast_pri_port = SFAB_LFT_NO_PORT;
	sw->def_mcast_not_port = SFAB_LFT_NO_PORT;
	sw->life_state = 0x12 << 3;	/* LifeTimeValue: 2^18 * 4.096 us */
	sw->subnet_timeout = 18;
	sw->gid_prefix = 0xfe80000000000000ULL;
	sfab_sw_seed(sw, cfg->seed);
	return sw;
fail:
	sfab_sw_destroy(sw);
	return NULL;
}

static void queue_flush(struct sfab_sw *sw, struct sfab_sw_queue *q)
{
	while (q->head) {
		struct sfab_sw_pkt *pkt = q->head;

		q->head = pkt->next;
		sw->queued--;
		free(pkt);
	}
	q->tail = NULL;
	q->count = 0;
}

void sfab_sw_destroy(struct sfab_sw *sw)
{
	unsigned int i, v;

	if (!sw)
		return;
	if (sw->port) {
		for (i = 0; i <= sw->cfg.nports; i++) {
			for (v = 0; v < 16; v++) {
				queue_flush(sw, &sw->port[i].inq[v]);
				queue_flush(sw, &sw->port[i].mgmt_q[v]);
			}
			sfab_sw_pcap_close(&sw->port[i]);
		}
	}
	free(sw->port);
	free(sw->lft);
	free(sw->fo.alt);
	free(sw->fo.over);
	free(sw->fo.unreach);
	free(sw->mft);
	free(sw->sl2vl);
	free(sw);
}

/* --- forwarding tables ----------------------------------------------- */

int sfab_sw_lft_set(struct sfab_sw *sw, uint32_t lid, uint8_t port)
{
	if (lid >= sw->lft_cap ||
	    (port > sw->cfg.nports && port != SFAB_LFT_NO_PORT))
		return -1;
	sw->lft[lid] = port;
	sfab_sw_fo_lft_written(sw, lid, 1);
	return 0;
}

uint8_t sfab_sw_lft_get(const struct sfab_sw *sw, uint32_t lid)
{
	return lid < sw->lft_cap ? sw->lft[lid] : SFAB_LFT_NO_PORT;
}

int sfab_sw_lft_set_block(struct sfab_sw *sw, unsigned int block,
			  const struct sfab_wire_lft_block *b)
{
	unsigned int i;

	if (block >= SFAB_SW_LFT_CAP / 64)
		return -1;
	/* all or nothing: a bad port number rejects the whole block */
	for (i = 0; i < 64; i++)
		if (b->port[i] > sw->cfg.nports && b->port[i] != SFAB_LFT_NO_PORT)
			return -1;
	memcpy(&sw->lft[block * 64], b->port, 64);
	sfab_sw_fo_lft_written(sw, block * 64, 64);
	return 0;
}

int sfab_sw_lft_get_block(const struct sfab_sw *sw, unsigned int block,
			  struct sfab_wire_lft_block *b)
{
	if (block >= SFAB_SW_LFT_CAP / 64)
		return -1;
	memcpy(b->port, &sw->lft[block * 64], 64);
	return 0;
}

static uint16_t *mft_entry(const struct sfab_sw *sw, uint16_t mlid)
{
	if (mlid < SFAB_LID_MCAST_BASE ||
	    mlid >= SFAB_LID_MCAST_BASE + SFAB_SW_MFT_CAP)
		return NULL;
	return &sw->mft[(size_t)(mlid - SFAB_LID_MCAST_BASE) * sw->mft_chunks];
}

int sfab_sw_mft_set_port(struct sfab_sw *sw, uint16_t mlid, unsigned int port,
			 bool member)
{
	uint16_t *e = mft_entry(sw, mlid);

	if (!e || port > sw->cfg.nports)
		return -1;
	if (member)
		e[port / 16] |= 1U << (port % 16);
	else
		e[port / 16] &= ~(1U << (port % 16));
	return 0;
}

bool sfab_sw_mft_has_port(const struct sfab_sw *sw, uint16_t mlid,
			  unsigned int port)
{
	const uint16_t *e = mft_entry(sw, mlid);

	return e && port <= sw->cfg.nports && (e[port / 16] >> (port % 16)) & 1;
}

static bool lid_is_ours(const struct sfab_sw *sw, uint32_t dlid)
{
	return sw->lid && dlid >= sw->lid && dlid < sw->lid + (1U << sw->lmc);
}

unsigned int sfab_sw_route(const struct sfab_sw *sw, unsigned int in_port,
			   uint32_t dlid, uint8_t *outs)
{
	unsigned int n = 0, p;
	uint8_t out;

	/*
	 * IBA's multicast LIDs by the MFT; unicast ones, IBA's or extended,
	 * by the LFT; the rest (reserved, permissive, the extended range's
	 * reserved top) nowhere
	 */
	if (sfab_xlid_is_mcast(dlid)) {
		/* replicate to every member port but the one it came in on */
		for (p = 0; p <= sw->cfg.nports; p++)
			if (p != in_port && sfab_sw_mft_has_port(sw, dlid, p))
				outs[n++] = p;
		return n;
	}
	if (!sfab_xlid_is_ucast(dlid))
		return 0;
	if (lid_is_ours(sw, dlid)) {
		outs[0] = 0;
		return 1;
	}
	out = sfab_sw_route_port(sw, dlid);
	if (out == SFAB_LFT_NO_PORT || out > sw->cfg.nports ||
	    (out == in_port && in_port != 0))
		return 0;
	/* lost with our port, no way on: back to the switch that sent it */
	if (sfab_sw_fo_bounce(sw, in_port, dlid, out))
		out = in_port;
	outs[0] = out;
	return 1;
}

/* --- link errors on purpose ------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* splitmix64: small, fast, and the same sequence on every host */
static uint64_t inj_rand(struct sfab_sw_errinj *e)
{
	e->rng += 0x9e3779b97f4a7c15ULL;
	return mix64(e->rng);
}

/* is this frame hit?  Draws only when the rate is not 0 */
static bool inj_hit(struct sfab_sw_errinj *e, uint64_t thr)
{
	if (!thr)
		return false;
	return inj_rand(e) < thr || thr == UINT64_MAX;
}

/* flip one bit of @buf[@skip..@len) */
static void inj_flip(struct sfab_sw_errinj *e, uint8_t *buf, size_t len,
		     size_t skip)
{
	uint64_t r = inj_rand(e);

	buf[skip + (r >> 3) % (len - skip)] ^= 1U << (r & 7);
}

/* a probability 0..1 as a threshold for inj_hit() */
static int rate_thr(double rate, uint64_t *thr)
{
	double x;

	if (!(rate >= 0 && rate <= 1))		/* NaN fails too */
		return -1;
	x = rate * 18446744073709551616.0;	/* 2^64 */
	*thr = x >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)x;
	return 0;
}

void sfab_sw_seed(struct sfab_sw *sw, uint64_t seed)
{
	unsigned int i;

	/* a stream per port: what one port draws never shifts another's */
	for (i = 0; i <= sw->cfg.nports; i++)
		sw->port[i].inj.rng = mix64(seed ^ mix64(i + 1));
}

/* a rate (0..1) and its threshold, for port @p's ber or drop */
static int port_rate_set(struct sfab_sw *sw, unsigned int p, double rate,
			 double *rate_out, uint64_t *thr_out)
{
	uint64_t thr;

	if (!p || p > sw->cfg.nports || rate_thr(rate, &thr))
		return -1;
	*rate_out = rate;
	*thr_out = thr;
	return 0;
}

int sfab_sw_port_ber(struct sfab_sw *sw, unsigned int p, double rate)
{
	struct sfab_sw_errinj *e = &sw->port[p <= sw->cfg.nports ? p : 0].inj;

	return port_rate_set(sw, p, rate, &e->ber, &e->ber_thr);
}

int sfab_sw_port_drop(struct sfab_sw *sw, unsigned int p, double rate)
{
	struct sfab_sw_errinj *e = &sw->port[p <= sw->cfg.nports ? p : 0].inj;

	return port_rate_set(sw, p, rate, &e->drop, &e->drop_thr);
}

int sfab_sw_port_flap(struct sfab_sw *sw, unsigned int p, uint64_t period_ns,
		      uint64_t down_ns)
{
	struct sfab_sw_errinj *e;
	bool was_down;

	if (!p || p > sw->cfg.nports ||
	    (period_ns && (!down_ns || down_ns >= period_ns)))
		return -1;
	e = &sw->port[p].inj;
	was_down = e->flap_is_down;
	e->flap_period_ns = period_ns;
	e->flap_down_ns = period_ns ? down_ns : 0;
	e->flap_next = sw->now;
	e->flap_is_down = false;
	/* the flap held the port down: give it back enabled */
	if (was_down)
		sfab_sw_port_admin(sw, p, true);
	return 0;
}

int sfab_sw_port_errors_clear(struct sfab_sw *sw, unsigned int p)
{
	if (sfab_sw_port_ber(sw, p, 0) || sfab_sw_port_drop(sw, p, 0))
		return -1;
	return sfab_sw_port_flap(sw, p, 0, 0);
}

/* at most one flap transition per call, on schedule (no drift) */
static void flap_tick(struct sfab_sw *sw, struct sfab_sw_port *p)
{
	struct sfab_sw_errinj *e = &p->inj;

	if (!e->flap_period_ns || sw->now < e->flap_next)
		return;
	if (e->flap_is_down) {
		e->flap_is_down = false;
		e->flap_next += e->flap_period_ns - e->flap_down_ns;
		sfab_sw_port_admin(sw, p->num, true);
		return;
	}
	/* a whole period late (the owner slept): the schedule starts now */
	if (sw->now - e->flap_next >= e->flap_period_ns)
		e->flap_next = sw->now;
	e->flap_is_down = true;
	e->flap_next += e->flap_down_ns;
	e->flaps++;
	sfab_sw_port_admin(sw, p->num, false);
}

/* --- partition enforcement (IBTA 10.9.4) ------------------------------- */

/*
 * May @frame, on VL @vl, pass port @p in the direction whose enforcement
 * bit is @enf and raw-filter bit is @raw (sfab_sw.h: what is compared)?
 */
static bool part_ok(const struct sfab_sw_port *p, uint8_t enf, uint8_t raw,
		    unsigned int vl, const uint8_t *frame)
{
	uint16_t part;
	unsigned int i;

	if (!(p->enforce & (enf | raw)) || vl == SFAB_VL15)
		return true;
	/* raw (LNH 0 or 1): no BTH, no P_Key */
	if ((frame[1] & SFAB_LRH_LNH_MASK) < SFAB_LNH_IBA_LOCAL)
		return !(p->enforce & raw);
	if (!(p->enforce & enf))
		return true;
	part = sfab_link_pkt_pkey(frame) & 0x7fff;
	for (i = 0; part && i < SFAB_SW_PKEYS; i++)
		if ((p->pkeys[i] & 0x7fff) == part)
			return true;
	return false;
}

/*
 * Take out of @outs the egress ports whose outbound checks refuse @frame,
 * counting each in its PortXmitConstraintErrors; return how many are left.
 */
static unsigned int part_outs(struct sfab_sw *sw, uint8_t *outs,
			      unsigned int nout, unsigned int vl,
			      const uint8_t *frame)
{
	unsigned int i, k = 0;

	for (i = 0; i < nout; i++) {
		struct sfab_sw_port *op = &sw->port[outs[i]];

		if (part_ok(op, SFAB_PI_ENF_OUT, SFAB_PI_FILTER_RAW_OUT, vl, frame))
			outs[k++] = outs[i];
		else
			op->cnt.xmit_constraint_errors++;
	}
	return k;
}

/* --- ports -------------------------------------------------------------- */

/* ns @len bytes take on port @p's link */
static uint64_t ser_ns(const struct sfab_sw *sw, const struct sfab_sw_port *p,
		       size_t len)
{
	return sfab_sw_ser_ns(p->rate_mbps ? p->rate_mbps : sw->cfg.rate_mbps,
			      len);
}

int sfab_sw_port_rate(struct sfab_sw *sw, unsigned int p, uint64_t rate_mbps)
{
	if (!p || p > sw->cfg.nports)
		return -1;
	sw->port[p].rate_mbps = rate_mbps;
	return 0;
}

/* a frame out of port @p, its first bit at @start (paced) or now */
static int port_out(struct sfab_sw *sw, struct sfab_sw_port *p,
		    const uint8_t *frame, size_t len, uint64_t start)
{
	if (sw->ops->xmit_at)
		return sw->ops->xmit_at(sw->opaque, p->num, frame, len, start);
	return sw->ops->xmit(sw->opaque, p->num, frame, len);
}

static void port_flush_fc(struct sfab_sw *sw, struct sfab_sw_port *p)
{
	uint8_t fc[SFAB_WIRE_FC_PKT_LEN];

	if (!p->connected)
		return;
	while (sfab_link_fc_next(&p->link, sw->now, fc)) {
		/* a bad LPCRC: the peer counts SymbolErrorCounter */
		if (inj_hit(&p->inj, p->inj.ber_thr)) {
			inj_flip(&p->inj, fc, sizeof(fc), 0);
			p->inj.fc_corrupted++;
		}
		/*
		 * paced: after the data packet on its way out (its FCTBS
		 * counts that packet's blocks, so it must not overtake it)
		 */
		if (port_out(sw, p, fc, sizeof(fc),
			     sw->cfg.paced && p->tx_busy_until > sw->now ?
			     p->tx_busy_until : sw->now))
			break;
	}
}

void sfab_sw_port_connect(struct sfab_sw *sw, unsigned int p)
{
	struct sfab_sw_port *port;

	if (!p || p > sw->cfg.nports)
		return;
	port = &sw->port[p];
	port->connected = true;
	if (port->link.phys != SFAB_PHYS_DISABLED)
		sfab_link_phys_up(&port->link, sw->now);
	port_flush_fc(sw, port);
}

void sfab_sw_port_disconnect(struct sfab_sw *sw, unsigned int p)
{
	struct sfab_sw_port *port;

	if (!p || p > sw->cfg.nports)
		return;
	port = &sw->port[p];
	port->connected = false;
	sfab_link_phys_down(&port->link, port->link.phys == SFAB_PHYS_DISABLED);
}

int sfab_sw_port_admin(struct sfab_sw *sw, unsigned int p, bool up)
{
	struct sfab_sw_port *port;

	if (!p || p > sw->cfg.nports)
		return -1;
	port = &sw->port[p];
	if (!up) {
		sfab_link_phys_down(&port->link, true);
		return 0;
	}
	if (port->link.phys == SFAB_PHYS_DISABLED) {
		sfab_link_phys_down(&port->link, false);
		if (port->connected)
			sfab_link_phys_up(&port->link, sw->now);
	}
	port_flush_fc(sw, port);
	return 0;
}

/* serialisation time of @len bytes at the port rate, rounded up */

/*
 * Queue a packet on @q (an input queue, or port 0's queue for the one
 * egress port in @outs).  Every port in @outs must be one the scheduler
 * serves, 1..N: a port it never serves would hold the packet at the head
 * of @q, and the credits of its input VL, for ever.
 */
static void want_set(struct sfab_sw *sw, unsigned int o, unsigned int in,
		     unsigned int vl)
{
	struct sfab_sw_port *op = &sw->port[o];
	uint64_t bit = 1ULL << (in % 64);

	if (!(op->want[vl][in / 64] & bit)) {
		op->want[vl][in / 64] |= bit;
		op->nwant++;
	}
}

static void want_clear(struct sfab_sw *sw, unsigned int o, unsigned int in,
		       unsigned int vl)
{
	struct sfab_sw_port *op = &sw->port[o];
	uint64_t bit = 1ULL << (in % 64);

	if (op->want[vl][in / 64] & bit) {
		op->want[vl][in / 64] &= ~bit;
		op->nwant--;
	}
}

/*
 * Failover moved routes since @pkt's was taken: take it again.  true if
 * its egress port changed (its queue's want bits are the caller's).
 */
static bool fo_reroute(struct sfab_sw *sw, struct sfab_sw_pkt *pkt)
{
	uint8_t outs[SFAB_SW_MAX_PORTS + 1];

	pkt->fo_epoch = sw->fo.epoch;
	if (sfab_sw_route(sw, pkt->in_port, sfab_link_pkt_dlid(pkt->data),
			  outs) != 1 || !outs[0] || outs[0] == pkt->outs[0] ||
	    !part_outs(sw, outs, 1, pkt->in_vl, pkt->data))
		return false;
	pkt->outs[0] = outs[0];
	sw->fo.requeued++;
	return true;
}

void sfab_sw_fo_requeue(struct sfab_sw *sw)
{
	unsigned int i, v;

	for (i = 1; i <= sw->cfg.nports; i++) {
		for (v = 0; v < 16; v++) {
			struct sfab_sw_pkt *pkt = sw->port[i].inq[v].head;
			unsigned int old;

			if (!pkt || !pkt->lft_routed ||
			    pkt->fo_epoch == sw->fo.epoch)
				continue;
			old = pkt->outs[0];
			if (fo_reroute(sw, pkt)) {
				want_clear(sw, old, i, v);
				want_set(sw, pkt->outs[0], i, v);
			}
		}
	}
}

/* a packet came to the head of its queue: its egress ports want it */
static void head_arm(struct sfab_sw *sw, struct sfab_sw_pkt *pkt)
{
	unsigned int i;

	if (pkt->lft_routed && pkt->fo_epoch != sw->fo.epoch)
		fo_reroute(sw, pkt);
	for (i = 0; i < pkt->nout; i++)
		if (pkt->outs[i] != SFAB_LFT_NO_PORT)
			want_set(sw, pkt->outs[i], pkt->in_port, pkt->in_vl);
}

/* a packet's buffer: the frame, then room for every egress port */
static struct sfab_sw_pkt *pkt_alloc(size_t len)
{
	return malloc(sizeof(struct sfab_sw_pkt) + len + SFAB_SW_MAX_PORTS + 1);
}

/* @pkt (its frame in place) to the tail of @q, for @nout ports */
static void enqueue(struct sfab_sw *sw, struct sfab_sw_queue *q,
		    struct sfab_sw_pkt *pkt, size_t len, unsigned int in_port,
		    unsigned int in_vl, const uint8_t *outs, unsigned int nout,
		    uint64_t t_first)
{
	pkt->next = NULL;
	pkt->t_first = t_first;
	pkt->stall_since = 0;
	pkt->len = len;
	pkt->in_port = in_port;
	pkt->in_vl = in_vl;
	pkt->nout = nout;
	pkt->outs = pkt->data + len;
	memcpy(pkt->outs, outs, nout);
	if (q->tail) {
		q->tail->next = pkt;
	} else {
		q->head = pkt;
		head_arm(sw, pkt);
	}
	q->tail = pkt;
	q->count++;
	sw->queued++;
}

/*
 * Take port 0 and any port the switch does not have out of @outs; return
 * how many ports are left and set *@mgmt when port 0 was among them.
 */
static unsigned int external_outs(const struct sfab_sw *sw, uint8_t *outs,
				  unsigned int nout, bool *mgmt)
{
	unsigned int i, k = 0;

	*mgmt = false;
	for (i = 0; i < nout; i++) {
		if (!outs[i])
			*mgmt = true;
		else if (outs[i] <= sw->cfg.nports)
			outs[k++] = outs[i];
	}
	return k;
}

/*
 * A data packet, now in @pkt's buffer, that the input link accepted:
 * routed into an input queue, or taken here.  false: nothing kept it.
 */
static bool port_rx_data(struct sfab_sw *sw, struct sfab_sw_port *port,
			 struct sfab_sw_pkt *pkt, size_t len, unsigned int vl)
{
	const uint8_t *frame = pkt->data;
	uint8_t outs[SFAB_SW_MAX_PORTS + 1];
	unsigned int p = port->num, nout, routed;
	uint32_t dlid;
	uint64_t t_first;
	bool mgmt;

	/* the input link serialises packets one after the other */
	t_first = sw->now > port->rx_busy_until ? sw->now : port->rx_busy_until;
	port->rx_busy_until = t_first + ser_ns(sw, port, len);

	/* a directed-route SMP, or a fault notification: one parse */
	if (vl == SFAB_VL15 &&
	    sfab_link_pkt_dlid(frame) == SFAB_LID_PERMISSIVE) {
		const uint8_t *mad;
		int cls = sfab_sw_mad_class(frame, len, &mad);

		if (cls == SFAB_MGMT_CLASS_SUBN_DR) {
			sfab_sw_dr_forward(sw, p, frame, len);
			return false;
		}
		if (cls == SFAB_MGMT_CLASS_SFAB_FRN) {
			sfab_sw_frn_rx(sw, p, mad);
			return false;
		}
	}
	if (!part_ok(port, SFAB_PI_ENF_IN, SFAB_PI_FILTER_RAW_IN, vl, frame)) {
		port->cnt.rcv_constraint_errors++;
		return false;
	}
	dlid = sfab_link_pkt_dlid(frame);
	nout = sfab_sw_route(sw, p, dlid, outs);
	/*
	 * Port 0 (the switch's own LID, or a forwarding-table entry naming
	 * it, also among the members of a multicast group) takes its copy
	 * here: the scheduler serves only ports 1..N.  A unicast packet goes
	 * to the SMA or the PMA.  A multicast one ends at port 0: a multicast
	 * packet is for QP 0xFFFFFF and QP0/QP1 are never attached to a
	 * group, so no MAD agent takes it; it is counted with the bad MADs.
	 */
	nout = external_outs(sw, outs, nout, &mgmt);
	if (mgmt) {
		if (sfab_xlid_is_mcast(dlid))
			sw->bad_mads++;
		else
			sfab_sw_mad_rx(sw, p, frame, len);
	}
	routed = nout;
	nout = part_outs(sw, outs, nout, vl, frame);
	if (!nout) {
		if (!mgmt && !routed) {
			port->cnt.rcv_switch_relay_errors++;
			sw->no_route++;
		}
		return false;
	}
	/* one unicast egress port by the LFT: failover may move it */
	pkt->lft_routed = nout == 1 && !mgmt && sfab_xlid_is_ucast(dlid);
	pkt->fo_epoch = sw->fo.epoch;
	enqueue(sw, &port->inq[vl], pkt, len, p, vl, outs, nout, t_first);
	return true;
}

void sfab_sw_port_rx(struct sfab_sw *sw, unsigned int p, const uint8_t *frame,
		     size_t len)
{
	struct sfab_sw_port *port;
	struct sfab_sw_pkt *pkt;
	unsigned int vl;

	if (!p || p > sw->cfg.nports)
		return;
	port = &sw->port[p];
	if (len != SFAB_WIRE_FC_PKT_LEN && port->pcap)
		sfab_sw_pcap_write(port, frame, len);
	/*
	 * A data packet is copied into its buffer as its CRCs are checked,
	 * one pass over it (flow control and malformed frames need none).
	 */
	pkt = len != SFAB_WIRE_FC_PKT_LEN && len <= SFAB_WIRE_MAX_PKT_LEN ?
	      pkt_alloc(len) : NULL;
	if (!pkt) {
		if (sfab_link_rx(&port->link, frame, len, &vl) !=
		    SFAB_LINK_RX_DATA)
			return;
		/* out of host memory: a discard, credits kept right */
		port->cnt.xmit_discards++;
		sfab_link_rx_free(&port->link, vl, len);
		return;
	}
	if (sfab_link_rx_copy(&port->link, pkt->data, frame, len, &vl) !=
	    SFAB_LINK_RX_DATA) {
		free(pkt);
		return;
	}
	if (!port_rx_data(sw, port, pkt, len, vl)) {
		sfab_link_rx_free(&port->link, vl, len);
		free(pkt);
	}
}

unsigned int sfab_sw_inject(struct sfab_sw *sw, unsigned int in_port,
			    const uint8_t *frame, size_t len,
			    const uint8_t *outs, unsigned int nout)
{
	uint8_t routed[SFAB_SW_MAX_PORTS + 1];
	unsigned int vl = sfab_link_pkt_vl(frame), i, dropped = 0;
	struct sfab_sw_pkt *pkt;
	bool mgmt;

	if (outs) {
		if (nout > sizeof(routed))
			nout = sizeof(routed);
		memcpy(routed, outs, nout);
	} else {
		nout = sfab_sw_route(sw, 0, sfab_link_pkt_dlid(frame), routed);
	}
	/* port 0 to itself: nowhere to go */
	nout = external_outs(sw, routed, nout, &mgmt);
	if (!nout) {
		sw->no_route++;
		return 0;
	}
	nout = part_outs(sw, routed, nout, vl, frame);
	/* one copy per egress port, each in that port's bounded queue */
	for (i = 0; i < nout; i++) {
		struct sfab_sw_queue *q = &sw->port[routed[i]].mgmt_q[vl];

		if (q->count >= SFAB_SW_MGMT_QUEUE_MAX) {
			dropped++;
			continue;
		}
		pkt = pkt_alloc(len);
		if (!pkt) {
			dropped++;
			continue;
		}
		memcpy(pkt->data, frame, len);
		pkt->lft_routed = false;
		enqueue(sw, q, pkt, len, 0, vl, &routed[i], 1, sw->now);
	}
	if (dropped) {
		sw->mgmt_dropped += dropped;
		/*
		 * The request is dropped for lack of resources at the port it
		 * came in by: VL15Dropped for an SMP, PortRcvErrors for a GMP.
		 */
		if (in_port && in_port <= sw->cfg.nports) {
			if (vl == SFAB_VL15)
				sw->port[in_port].link.cnt.vl15_dropped++;
			else
				sw->port[in_port].link.cnt.rcv_errors++;
		}
	}
	return dropped;
}

/* --- egress ------------------------------------------------------------- */

struct cand {
	struct sfab_sw_pkt *pkt;
	unsigned int slot;	/* index into pkt->outs */
};

static int find_out(const struct sfab_sw_pkt *pkt, unsigned int o)
{
	unsigned int i;

	for (i = 0; i < pkt->nout; i++)
		if (pkt->outs[i] == o)
			return i;
	return -1;
}

/* the egress VL of a packet from port @in to port @o (15: VL15) */
static unsigned int egress_vl(struct sfab_sw *sw, const struct sfab_sw_pkt *pkt,
			      unsigned int o)
{
	if (pkt->in_vl == SFAB_VL15)
		return SFAB_VL15;
	return sfab_sw_sl2vl(sw, pkt->in_port, o)[sfab_link_pkt_sl(pkt->data)];
}

/* the queue @pkt waits in, @o one of its egress ports */
static struct sfab_sw_queue *pkt_queue(struct sfab_sw *sw,
				       const struct sfab_sw_pkt *pkt,
				       unsigned int o)
{
	if (!pkt->in_port)
		return &sw->port[o].mgmt_q[pkt->in_vl];
	return &sw->port[pkt->in_port].inq[pkt->in_vl];
}

/* one egress port is done with a packet; free it when all are */
static void served(struct sfab_sw *sw, struct sfab_sw_pkt *pkt, unsigned int slot)
{
	struct sfab_sw_port *ip = &sw->port[pkt->in_port];
	struct sfab_sw_queue *q = pkt_queue(sw, pkt, pkt->outs[slot]);
	unsigned int i;

	want_clear(sw, pkt->outs[slot], pkt->in_port, pkt->in_vl);
	pkt->outs[slot] = SFAB_LFT_NO_PORT;
	for (i = 0; i < pkt->nout; i++)
		if (pkt->outs[i] != SFAB_LFT_NO_PORT)
			return;
	/* only heads are ever served */
	q->head = pkt->next;
	if (q->head)
		head_arm(sw, q->head);
	else
		q->tail = NULL;
	q->count--;
	sw->queued--;
	if (pkt->in_port)
		sfab_link_rx_free(&ip->link, pkt->in_vl, pkt->len);
	free(pkt);
}

static void stall_end(struct sfab_sw *sw, struct sfab_sw_port *op)
{
	if (!op->stall_since)
		return;
	/* a stall always costs at least one tick */
	op->cnt.xmit_wait += sw->now > op->stall_since ?
			     sw->now - op->stall_since : 1;
	op->stall_since = 0;
}

static void transmit(struct sfab_sw *sw, struct sfab_sw_port *op,
		     struct sfab_sw_pkt *pkt, unsigned int slot, unsigned int evl)
{
	uint8_t copy[SFAB_WIRE_MAX_PKT_LEN], *buf = pkt->data;
	uint64_t start, ser = ser_ns(sw, op, pkt->len);
	unsigned int i;

	/* discarded on purpose: no egress credit spent, input buffer freed */
	if (inj_hit(&op->inj, op->inj.drop_thr)) {
		op->cnt.xmit_discards++;
		op->inj.dropped++;
		served(sw, pkt, slot);
		return;
	}
	/*
	 * The buffer itself goes out (the cable copies it), its VL set for
	 * this port: the VCRC is mended without another pass over the packet,
	 * and the next port of a multicast sets its own.
	 */
	sfab_crc_set_vl(buf, pkt->len, evl);
	/*
	 * Corrupted on purpose, past the LRH (whose length the receiver checks
	 * first): its VCRC fails and it discards the packet without giving
	 * credit back.  The FC packet sent after this batch carries our FCTBS,
	 * which makes the receiver's ABR cover the lost blocks (as the
	 * periodic refresh would, later).
	 */
	if (inj_hit(&op->inj, op->inj.ber_thr)) {
		/* a multicast's other ports send it intact */
		for (i = 0; i < pkt->nout && buf == pkt->data; i++) {
			if (i != slot && pkt->outs[i] != SFAB_LFT_NO_PORT) {
				memcpy(copy, pkt->data, pkt->len);
				buf = copy;
			}
		}
		inj_flip(&op->inj, buf, pkt->len, SFAB_WIRE_LRH_LEN);
		op->inj.corrupted++;
		if (evl < op->link.cfg.num_data_vls)
			op->link.vl[evl].fc_due = true;
	}
	/* virtual time: cut-through after the hop latency, port permitting */
	start = pkt->t_first + sw->cfg.hop_ns;
	if (start < op->tx_busy_until)
		start = op->tx_busy_until;
	if ((pkt->stall_since || sw->cfg.paced) && start < sw->now)
		start = sw->now;
	op->tx_busy_until = start + ser;
	if (!op->vt_bytes)
		op->vt_first = start;
	op->vt_last = start + ser;
	op->vt_bytes += pkt->len;
	if (sw->fo.over && pkt->lft_routed) {
		uint32_t dlid = sfab_link_pkt_dlid(buf);

		if (op->num == pkt->in_port)
			sw->fo.bounced++;
		if (dlid < sw->lft_cap && sw->fo.over[dlid] == op->num) {
			sw->fo.sent_alt++;
			if (!sw->fo.first_tx_ns)
				sw->fo.first_tx_ns = start ? start : 1;
		}
	}
	op->lat_sum += start - pkt->t_first;
	op->lat_count++;
	if (start - pkt->t_first < op->lat_min)
		op->lat_min = start - pkt->t_first;
	if (start - pkt->t_first > op->lat_max)
		op->lat_max = start - pkt->t_first;

	if (op->pcap)
		sfab_sw_pcap_write(op, buf, pkt->len);
	sfab_link_tx_sent(&op->link, evl, buf, pkt->len);
	if (port_out(sw, op, buf, pkt->len, start))
		sfab_sw_port_disconnect(sw, op->num);
	served(sw, pkt, slot);
}

/* serve one entry of an arbitration table; the bytes sent, 0 if none */
static size_t arb_serve(struct sfab_sw *sw, struct sfab_sw_port *op,
		      struct sfab_sw_arb *arb, struct cand *best, bool *elig)
{
	unsigned int tries;

	for (tries = 0; tries <= SFAB_SW_VLARB_CAP; tries++) {
		unsigned int vl = arb->vl[arb->idx] & 15;

		if (arb->weight[arb->idx] && arb->left > 0 && vl < 15 && elig[vl]) {
			struct cand *c = &best[vl];
			size_t len = c->pkt->len;

			arb->left -= sfab_link_blocks(len);
			/* round robin among the inputs feeding this VL */
			op->rr_in[c->pkt->in_vl] = (c->pkt->in_port + 1) %
						   (sw->cfg.nports + 1);
			transmit(sw, op, c->pkt, c->slot, vl);
			return len;
		}
		arb->idx = (arb->idx + 1) % SFAB_SW_VLARB_CAP;
		arb->left = arb->weight[arb->idx];
	}
	return 0;
}

static bool table_has(const struct sfab_sw_arb *arb, const bool *elig)
{
	unsigned int i;

	for (i = 0; i < SFAB_SW_VLARB_CAP; i++)
		if (arb->weight[i] && (arb->vl[i] & 15) < 15 && elig[arb->vl[i] & 15])
			return true;
	return false;
}

/* send at most one packet out of port @o; true if one went (or was discarded) */
static bool egress_one(struct sfab_sw *sw, unsigned int o)
{
	struct sfab_sw_port *op = &sw->port[o];
	/* bit k * 16 + v: input (rr_in[v] + k) % n's queue of VL v wants @o */
	uint64_t order[((SFAB_SW_MAX_PORTS + 1) * 16 + 63) / 64];
	struct cand best[16];
	bool elig[16] = { false }, waiting = false;
	unsigned int n = sw->cfg.nports + 1, k, v, w, ndata;
	bool hi, lo;

	/* paced: the transmitter is still busy with the last packet */
	if (!op->nwant || (sw->cfg.paced && op->tx_busy_until > sw->now))
		return false;
	memset(best, 0, sizeof(best));
	ndata = sfab_sw_op_vls_count(op->cfg.op_vls);
	if (ndata > sw->cfg.num_data_vls)
		ndata = sw->cfg.num_data_vls;
	/*
	 * The candidates in round-robin order, the input first and the VL
	 * next, from the queues that want this port only.
	 */
	memset(order, 0, ((n * 16 + 63) / 64) * sizeof(order[0]));
	for (v = 0; v < 16; v++) {
		for (w = 0; w < SFAB_SW_WANT_WORDS; w++) {
			uint64_t m;

			for (m = op->want[v][w]; m; m &= m - 1) {
				unsigned int in = w * 64 + __builtin_ctzll(m);

				k = in >= op->rr_in[v] ? in - op->rr_in[v] :
					in + n - op->rr_in[v];
				order[(k * 16 + v) / 64] |= 1ULL << ((k * 16 + v) % 64);
			}
		}
	}
	for (w = 0; w < (n * 16 + 63) / 64; w++) {
		for (; order[w]; order[w] &= order[w] - 1) {
			unsigned int key = w * 64 + __builtin_ctzll(order[w]);
			struct sfab_sw_pkt *pkt;
			unsigned int evl, in;
			int slot;

			k = key / 16;
			v = key % 16;
			/* (rr_in[v] + k) % n, rr_in[v] < n */
			in = op->rr_in[v] + k;
			if (in >= n)
				in -= n;
			/* port 0's packets wait per egress port */
			pkt = in ? sw->port[in].inq[v].head : op->mgmt_q[v].head;
			if (!pkt || (slot = find_out(pkt, o)) < 0)
				continue;
			evl = egress_vl(sw, pkt, o);
			if (!sfab_link_can_xmit(&op->link, evl) ||
			    (evl != SFAB_VL15 && evl >= ndata) ||
			    (evl == SFAB_VL15 && pkt->in_vl != SFAB_VL15)) {
				/*
				 * port not up/active, or VL not operational, or
				 * a data packet whose SL maps to VL15 (IBA:
				 * dropped; VL15 is never flow controlled)
				 */
				op->cnt.xmit_discards++;
				served(sw, pkt, slot);
				return true;
			}
			if (evl == SFAB_VL15) {
				/* management first, never flow controlled */
				transmit(sw, op, pkt, slot, evl);
				return true;
			}
			if (elig[evl])
				continue;
			if (!sfab_link_tx_ok(&op->link, evl, pkt->len) ||
			    (op->tx_held >> evl & 1)) {
				if (!pkt->stall_since)
					pkt->stall_since = sw->now ? sw->now : 1;
				waiting = true;
				continue;
			}
			elig[evl] = true;
			best[evl].pkt = pkt;
			best[evl].slot = slot;
		}
	}
	hi = table_has(&op->arb_high, elig);
	lo = table_has(&op->arb_low, elig);
	if (!hi && !lo) {
		/* data to send and no credit for any of it: PortXmitWait */
		if (waiting && !op->stall_since)
			op->stall_since = sw->now ? sw->now : 1;
		return false;
	}
	stall_end(sw, op);
	/* high priority until VLHighLimit * 4 KiB went while low waited */
	if (hi && (!lo || op->cfg.vl_high_limit == 255 ||
		   op->high_sent < op->cfg.vl_high_limit * 4096U)) {
		size_t len = arb_serve(sw, op, &op->arb_high, best, elig);

		if (len) {
			if (lo)
				op->high_sent += len;
			goto sent;
		}
	}
	if (lo && arb_serve(sw, op, &op->arb_low, best, elig)) {
		op->high_sent = 0;
		goto sent;
	}
	return false;
sent:
	return true;
}

unsigned int sfab_sw_run(struct sfab_sw *sw)
{
	unsigned int n = sw->cfg.nports, sent = 0, i;
	bool progress = true;

	/* ports lost since the last call fail over before anything goes */
	sfab_sw_fo_scan(sw);
	while (progress && sw->queued) {
		progress = false;
		for (i = 0; i <= n; i++) {
			unsigned int o = (sw->rr_port + i) % (n + 1);

			if (o && egress_one(sw, o)) {
				progress = true;
				sent++;
			}
		}
		sw->rr_port = (sw->rr_port + 1) % (n + 1);
	}
	for (i = 1; i <= n; i++) {
		struct sfab_sw_port *p = &sw->port[i];

		flap_tick(sw, p);
		port_flush_fc(sw, p);
		/* SwitchInfo:PortStateChange tells the SM to sweep again */
		if (p->link.state != p->seen_state) {
			p->seen_state = p->link.state;
			sw->life_state |= SFAB_SWINFO_PORT_STATE_CHANGE;
		}
	}
	return sent;
}

uint64_t sfab_sw_deadline(const struct sfab_sw *sw)
{
	uint64_t d = UINT64_MAX;
	unsigned int i;

	for (i = 1; i <= sw->cfg.nports; i++) {
		const struct sfab_sw_port *p = &sw->port[i];

		if (p->connected && p->link.phys != SFAB_PHYS_DISABLED &&
		    sfab_link_fc_deadline(&p->link) < d)
			d = sfab_link_fc_deadline(&p->link);
		if (p->inj.flap_period_ns && p->inj.flap_next < d)
			d = p->inj.flap_next;
		/* paced: a packet waits for its transmitter */
		if (sw->cfg.paced && p->nwant && p->tx_busy_until > sw->now &&
		    p->tx_busy_until < d)
			d = p->tx_busy_until;
	}
	return d;
}
