/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab link layer: IBA credit-based link-level flow control.
 * See sfab_link.h and Documentation/sfab/flow-control.rst.
 */
#include <string.h>

#include "sfab_crc.h"
#include "sfab_link.h"
#include "sfab_pkt.h"

#define MOD12(x)	((uint16_t)((x) & (SFAB_FC_MOD - 1)))

int sfab_link_init(struct sfab_link *l, const struct sfab_link_cfg *cfg)
{
	unsigned int mad_blocks = sfab_link_blocks(SFAB_WIRE_UD_MAD_PKT_LEN);

	if (cfg->num_data_vls < 1 || cfg->num_data_vls > SFAB_LINK_MAX_DATA_VLS ||
	    cfg->vl_blocks < sfab_link_blocks(SFAB_WIRE_MAX_PKT_LEN) ||
	    cfg->vl_blocks > 1U << 20 || cfg->vl15_blocks < mad_blocks ||
	    !cfg->fc_period_ns)
		return -1;
	memset(l, 0, sizeof(*l));
	l->cfg = *cfg;
	l->phys = SFAB_PHYS_POLLING;
	l->state = SFAB_PORT_DOWN;
	return 0;
}

/* the FCCL we may advertise now (IBTA 7.9.4.3) */
static uint16_t fccl_now(const struct sfab_link *l, unsigned int v)
{
	const struct sfab_link_vl *q = &l->vl[v];
	uint32_t free = q->used < l->cfg.vl_blocks ? l->cfg.vl_blocks - q->used : 0;

	if (free > SFAB_LINK_MAX_FCCL_AHEAD)
		free = SFAB_LINK_MAX_FCCL_AHEAD;
	return MOD12(q->abr + free);
}

/*
 * The credit the peer still holds from our last advertisement below which
 * a new FCCL goes out at once: seven eighths of the buffer (of at most the
 * 2048 blocks one may advertise ahead), never less than the largest
 * packet.  Above it the update waits for the next one (the periodic
 * refresh, IBTA 7.9.4.3: at least one FC packet per VL per period; those
 * in between are the receiver's choice), so a stream of 4 KiB packets
 * into a 2048-block buffer sends one FC packet every 4 instead of one per
 * packet.  With less than the mark left every change goes out, as before.
 * Half the buffer halved the FC packets again but doubled the time the
 * switch waited for credit toward a receiving HCA (PortXmitWait): every
 * hop here costs process wakeups, so the peer's window must stay nearly
 * whole (Documentation/sfab/benchmark.rst).
 */
static unsigned int fc_low_water(const struct sfab_link *l)
{
	unsigned int w = (l->cfg.vl_blocks < SFAB_LINK_MAX_FCCL_AHEAD ?
			  l->cfg.vl_blocks : SFAB_LINK_MAX_FCCL_AHEAD) * 7 / 8;
	unsigned int pkt = sfab_link_blocks(SFAB_WIRE_MAX_PKT_LEN);

	return w > pkt ? w : pkt;
}

/* @now: the update goes out at once whatever the peer's credit */
static void mark_fc_if_changed(struct sfab_link *l, unsigned int v, bool now)
{
	struct sfab_link_vl *q = &l->vl[v];

	if (!sfab_link_is_up(l) || fccl_now(l, v) == q->adv_fccl)
		return;
	/* the peer still holds enough credit: the update can wait */
	if (!now && MOD12(q->adv_fccl - q->abr) >= fc_low_water(l))
		return;
	q->fc_due = true;
}

/* forget everything both ends agreed on; buffer occupancy stays */
static void reset_credits(struct sfab_link *l)
{
	unsigned int v;

	for (v = 0; v < SFAB_LINK_MAX_DATA_VLS; v++) {
		struct sfab_link_vl *q = &l->vl[v];

		q->fctbs = q->fccl = q->abr = q->adv_fccl = 0;
		q->fc_due = false;
	}
	l->fc_cursor = 0;
}

void sfab_link_phys_up(struct sfab_link *l, uint64_t now)
{
	if (l->phys == SFAB_PHYS_LINKUP)
		l->cnt.link_downed++;
	reset_credits(l);
	l->phys = SFAB_PHYS_POLLING;
	l->state = SFAB_PORT_DOWN;
	l->heard = false;
	l->ts_due = true;
	l->init_due = false;
	l->last_fc_ns = now;
}

void sfab_link_phys_down(struct sfab_link *l, bool disable)
{
	if (l->phys == SFAB_PHYS_LINKUP)
		l->cnt.link_downed++;
	reset_credits(l);
	l->phys = disable ? SFAB_PHYS_DISABLED : SFAB_PHYS_POLLING;
	l->state = SFAB_PORT_DOWN;
	l->heard = false;
	l->ts_due = false;
	l->init_due = false;
}

int sfab_link_set_state(struct sfab_link *l, enum sfab_port_state st)
{
	switch (st) {
	case SFAB_PORT_NOP:
		return 0;
	case SFAB_PORT_DOWN:
		/* Down: the link goes down and trains again (back to Init) */
		if (l->phys == SFAB_PHYS_DISABLED)
			return 0;
		sfab_link_phys_up(l, l->last_fc_ns);
		return 0;
	case SFAB_PORT_ARMED:
		if (l->state != SFAB_PORT_INIT && l->state != SFAB_PORT_ARMED)
			return -1;
		l->state = st;
		return 0;
	case SFAB_PORT_ACTIVE:
		if (l->state != SFAB_PORT_ARMED && l->state != SFAB_PORT_ACTIVE)
			return -1;
		l->state = st;
		return 0;
	default:
		return -1;
	}
}

void sfab_link_make_fc(uint8_t out[SFAB_WIRE_FC_PKT_LEN], unsigned int op,
		       unsigned int vl, unsigned int fctbs, unsigned int fccl)
{
	struct sfab_wire_fc_pkt p;

	p.op_fctbs = sfab_cpu_to_be16((op << 12) | (fctbs & SFAB_FC_FCTBS_MASK));
	p.vl_fccl = sfab_cpu_to_be16((vl << 12) | (fccl & SFAB_FC_FCCL_MASK));
	p.lpcrc = sfab_cpu_to_be16(sfab_crc16(0, &p, 4));
	memcpy(out, &p, sizeof(p));
}

/* training done: LinkUp, Init; one Init FC packet per data VL due */
static void link_up(struct sfab_link *l)
{
	l->phys = SFAB_PHYS_LINKUP;
	l->state = SFAB_PORT_INIT;
	l->heard = true;
	l->ts_due = false;
	l->init_due = true;
	l->fc_cursor = 0;
}

/*
 * A TS1 says the peer trains and has not heard us: while we are up, its
 * link went down, so ours does too (LinkDownedCounter), and either way
 * the answer is a TS2.  A TS2 says the peer has heard us: training is
 * done.  Only a port that has heard nothing sends TS1, and a TS2 never
 * makes a port train, so two ends cannot keep each other training.
 */
static void rx_training(struct sfab_link *l, unsigned int op)
{
	if (op == SFAB_FC_OP_TS1) {
		if (l->phys == SFAB_PHYS_LINKUP)
			sfab_link_phys_up(l, l->last_fc_ns);
		l->heard = true;
		l->ts_due = true;
		return;
	}
	if (l->phys == SFAB_PHYS_POLLING)
		link_up(l);
}

static enum sfab_link_rx_result rx_fc(struct sfab_link *l, const uint8_t *frame)
{
	struct sfab_wire_fc_pkt p;
	unsigned int op, vl, fctbs, fccl;
	struct sfab_link_vl *q;
	bool resync;

	memcpy(&p, frame, sizeof(p));
	if (sfab_crc16(0, &p, 4) != sfab_be16_to_cpu(p.lpcrc)) {
		l->cnt.symbol_errors++;
		l->cnt.bad_fc_pkts++;
		return SFAB_LINK_RX_DROP;
	}
	op = sfab_be16_to_cpu(p.op_fctbs) >> 12;
	fctbs = sfab_be16_to_cpu(p.op_fctbs) & SFAB_FC_FCTBS_MASK;
	vl = sfab_be16_to_cpu(p.vl_fccl) >> 12;
	fccl = sfab_be16_to_cpu(p.vl_fccl) & SFAB_FC_FCCL_MASK;
	if (op > SFAB_FC_OP_TS2 || vl == SFAB_VL15) {
		l->cnt.bad_fc_pkts++;
		return SFAB_LINK_RX_DROP;
	}
	l->cnt.fc_pkts_rx++;
	if (l->phys == SFAB_PHYS_DISABLED)
		return SFAB_LINK_RX_FC;
	if (op >= SFAB_FC_OP_TS1) {
		rx_training(l, op);
		return SFAB_LINK_RX_FC;
	}
	/* an Init or Normal packet: the peer is up, so it has heard us */
	if (l->phys == SFAB_PHYS_POLLING)
		link_up(l);
	if (vl >= l->cfg.num_data_vls)
		return SFAB_LINK_RX_FC;	/* the peer has more VLs than we use */
	q = &l->vl[vl];
	q->fccl = fccl;
	/*
	 * Init sets ABR; a Normal resynchronises it: blocks we dropped are
	 * ours again, and the peer has them back at once (a loss is no time
	 * to wait for the refresh)
	 */
	resync = q->abr != fctbs;
	q->abr = fctbs;
	mark_fc_if_changed(l, vl, resync);
	return SFAB_LINK_RX_FC;
}

/*
 * PortXmitData and PortRcvData count a data packet's octets from the LRH
 * through the ICRC, without the VCRC (IBTA 16.1.3.5): whole 4-byte words
 */
static size_t data_octets(size_t len)
{
	return len > SFAB_WIRE_VCRC_LEN ? len - SFAB_WIRE_VCRC_LEN : 0;
}

/* IBA's multicast LIDs (the extended LRH has no multicast range yet) */
static bool is_mcast(const uint8_t *pkt)
{
	uint32_t dlid = sfab_link_pkt_dlid(pkt);

	return sfab_xlid_is_mcast(dlid);
}

/* the LRH's version is one this link takes: IBA's, or the extended one */
static bool lver_ok(const struct sfab_link *l, const uint8_t *frame)
{
	unsigned int lver = frame[0] & SFAB_LRH_LVER_MASK;

	return lver == SFAB_LRH_LVER_IBA ||
	       (lver == SFAB_LRH_LVER_EXT && l->cfg.ext_lrh);
}

static enum sfab_link_rx_result rx(struct sfab_link *l, const uint8_t *frame,
				   size_t len, uint8_t *dst, unsigned int *vlp)
{
	unsigned int vl, n, crc_ok;
	struct sfab_link_vl *q;

	if (len == SFAB_WIRE_FC_PKT_LEN)
		return rx_fc(l, frame);

	if (len < SFAB_WIRE_LRH_LEN + SFAB_WIRE_VCRC_LEN ||
	    len > SFAB_WIRE_MAX_PKT_LEN ||
	    sfab_wire_pkt_len(frame) + SFAB_WIRE_VCRC_LEN != len) {
		l->cnt.rcv_errors++;
		l->cnt.malformed++;
		return SFAB_LINK_RX_DROP;
	}
	/* the one pass over the frame: the CRCs, and the copy if asked for */
	crc_ok = dst ? sfab_crc_copy_check(dst, frame, len) :
		       sfab_crc_check(frame, len);
	if (!(crc_ok & SFAB_CRC_VCRC_OK)) {
		l->cnt.rcv_errors++;
		l->cnt.vcrc_errors++;
		return SFAB_LINK_RX_DROP;
	}
	if (!lver_ok(l, frame) ||
	    len < sfab_wire_lrh_len(frame) + SFAB_WIRE_VCRC_LEN ||
	    (sfab_wire_has_icrc(frame) &&
	     len < sfab_wire_lrh_len(frame) + SFAB_WIRE_BTH_LEN +
		   SFAB_WIRE_ICRC_LEN +
		   SFAB_WIRE_VCRC_LEN +
		   ((frame[1] & 3) == SFAB_LNH_IBA_GLOBAL ? SFAB_WIRE_GRH_LEN : 0))) {
		l->cnt.rcv_errors++;
		l->cnt.malformed++;
		return SFAB_LINK_RX_DROP;
	}
	if (sfab_wire_has_icrc(frame) && !(crc_ok & SFAB_CRC_ICRC_OK)) {
		l->cnt.rcv_errors++;
		l->cnt.icrc_errors++;
		return SFAB_LINK_RX_DROP;
	}
	if (!sfab_link_is_up(l)) {
		l->cnt.rcv_errors++;
		return SFAB_LINK_RX_DROP;
	}

	vl = frame[0] >> 4;
	n = sfab_link_blocks(len);
	if (vl == SFAB_VL15) {
		if (l->vl15_used + n > l->cfg.vl15_blocks) {
			l->cnt.vl15_dropped++;
			return SFAB_LINK_RX_DROP;
		}
		l->vl15_used += n;
		goto accepted;
	}
	if (vl >= l->cfg.num_data_vls || l->state < SFAB_PORT_ARMED) {
		/* not an operational VL, or data before Armed: discard */
		l->cnt.rcv_errors++;
		return SFAB_LINK_RX_DROP;
	}
	q = &l->vl[vl];
	/* beyond the credit we advertised, or beyond the buffer itself */
	if (MOD12(q->adv_fccl - (q->abr + n)) > SFAB_LINK_MAX_FCCL_AHEAD ||
	    q->used + n > l->cfg.vl_blocks) {
		l->cnt.excessive_buffer_overrun++;
		l->cnt.rcv_errors++;
		sfab_link_phys_down(l, false);
		return SFAB_LINK_RX_DOWN;
	}
	q->abr = MOD12(q->abr + n);
	q->used += n;
	/* with more than 2048 blocks free the advertisable FCCL moves on */
	mark_fc_if_changed(l, vl, false);

accepted:
	l->cnt.rcv_data += data_octets(len);
	l->cnt.rcv_pkts++;
	if (is_mcast(frame))
		l->cnt.rcv_mcast_pkts++;
	else
		l->cnt.rcv_ucast_pkts++;
	*vlp = vl;
	return SFAB_LINK_RX_DATA;
}

enum sfab_link_rx_result sfab_link_rx(struct sfab_link *l, const uint8_t *frame,
				      size_t len, unsigned int *vlp)
{
	return rx(l, frame, len, NULL, vlp);
}

enum sfab_link_rx_result sfab_link_rx_copy(struct sfab_link *l, uint8_t *dst,
					   const uint8_t *frame, size_t len,
					   unsigned int *vlp)
{
	return rx(l, frame, len, dst, vlp);
}

void sfab_link_rx_free(struct sfab_link *l, unsigned int vl, size_t len)
{
	unsigned int n = sfab_link_blocks(len);

	if (vl == SFAB_VL15) {
		l->vl15_used -= n < l->vl15_used ? n : l->vl15_used;
		return;
	}
	if (vl >= l->cfg.num_data_vls)
		return;
	l->vl[vl].used -= n < l->vl[vl].used ? n : l->vl[vl].used;
	mark_fc_if_changed(l, vl, false);
}

unsigned int sfab_link_tx_credits(const struct sfab_link *l, unsigned int vl)
{
	unsigned int c;

	if (vl >= l->cfg.num_data_vls || !sfab_link_is_up(l))
		return 0;
	c = MOD12(l->vl[vl].fccl - l->vl[vl].fctbs);
	return c > SFAB_LINK_MAX_FCCL_AHEAD ? 0 : c;
}

bool sfab_link_tx_ok(const struct sfab_link *l, unsigned int vl, size_t len)
{
	const struct sfab_link_vl *q;

	if (!sfab_link_can_xmit(l, vl))
		return false;
	if (vl == SFAB_VL15)
		return true;
	if (vl >= l->cfg.num_data_vls)
		return false;
	q = &l->vl[vl];
	/* IBTA 7.9.4.2: (FCCL - (FCTBS + blocks)) mod 4096 <= 2048 */
	return MOD12(q->fccl - (q->fctbs + sfab_link_blocks(len))) <=
	       SFAB_LINK_MAX_FCCL_AHEAD;
}

void sfab_link_tx_sent(struct sfab_link *l, unsigned int vl,
		       const uint8_t *frame, size_t len)
{
	if (vl < l->cfg.num_data_vls)
		l->vl[vl].fctbs = MOD12(l->vl[vl].fctbs + sfab_link_blocks(len));
	l->cnt.xmit_data += data_octets(len);
	l->cnt.xmit_pkts++;
	if (is_mcast(frame))
		l->cnt.xmit_mcast_pkts++;
	else
		l->cnt.xmit_ucast_pkts++;
}

static bool period_over(const struct sfab_link *l, uint64_t now)
{
	return now - l->last_fc_ns >= l->cfg.fc_period_ns;
}

bool sfab_link_fc_pending(const struct sfab_link *l, uint64_t now)
{
	unsigned int v;

	if (l->phys == SFAB_PHYS_DISABLED)
		return false;
	if (l->ts_due || l->init_due)
		return true;
	if (l->phys != SFAB_PHYS_LINKUP)
		return false;
	if (period_over(l, now))
		return true;
	for (v = 0; v < l->cfg.num_data_vls; v++)
		if (l->vl[v].fc_due)
			return true;
	return false;
}

uint64_t sfab_link_fc_deadline(const struct sfab_link *l)
{
	return l->last_fc_ns + l->cfg.fc_period_ns;
}

bool sfab_link_fc_next(struct sfab_link *l, uint64_t now,
		       uint8_t out[SFAB_WIRE_FC_PKT_LEN])
{
	unsigned int n = l->cfg.num_data_vls, i, v;

	if (l->phys == SFAB_PHYS_DISABLED)
		return false;
	if (l->phys == SFAB_PHYS_POLLING) {
		if (!l->ts_due && period_over(l, now))
			l->ts_due = true;	/* nobody answered: again */
		if (!l->ts_due)
			return false;
		l->ts_due = false;
		l->last_fc_ns = now;
		sfab_link_make_fc(out, l->heard ? SFAB_FC_OP_TS2 : SFAB_FC_OP_TS1,
				  0, 0, 0);
		l->cnt.fc_pkts_tx++;
		return true;
	}
	if (l->init_due) {
		v = l->fc_cursor;
		l->vl[v].adv_fccl = fccl_now(l, v);
		l->vl[v].fc_due = false;
		sfab_link_make_fc(out, SFAB_FC_OP_INIT, v, 0, l->vl[v].adv_fccl);
		if (++l->fc_cursor == n) {
			l->fc_cursor = 0;
			l->init_due = false;
			l->last_fc_ns = now;
		}
		l->cnt.fc_pkts_tx++;
		return true;
	}
	if (l->phys != SFAB_PHYS_LINKUP)
		return false;
	if (period_over(l, now)) {
		for (v = 0; v < n; v++)
			l->vl[v].fc_due = true;
		l->last_fc_ns = now;
	}
	for (i = 0; i < n; i++) {
		v = (l->fc_cursor + i) % n;
		if (!l->vl[v].fc_due)
			continue;
		l->vl[v].fc_due = false;
		l->vl[v].adv_fccl = fccl_now(l, v);
		sfab_link_make_fc(out, SFAB_FC_OP_NORMAL, v, l->vl[v].fctbs,
				  l->vl[v].adv_fccl);
		l->fc_cursor = (v + 1) % n;
		l->cnt.fc_pkts_tx++;
		return true;
	}
	return false;
}

const char *sfab_link_state_name(enum sfab_port_state st)
{
	static const char *const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
	};

	return (unsigned int)st < 5 ? names[st] : "?";
}

const char *sfab_link_phys_name(enum sfab_port_phys_state st)
{
	static const char *const names[] = {
		"NOP", "Sleep", "Polling", "Disabled", "PortConfigurationTraining",
		"LinkUp", "LinkErrorRecovery",
	};

	return (unsigned int)st < 7 ? names[st] : "?";
}
