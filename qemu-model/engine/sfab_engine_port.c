/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab HCA engine: the IB port and the firmware's management agents.
 *
 * The port is an sfab_link (qemu-model/link), the IBA link layer both ends
 * of every cable run.  It trains only while firmware is active, the HCA is
 * initialised and a cable is connected; before that it stays Down/Polling
 * whatever the cable does.  Every change of the port's logical or physical
 * state is reported with an AENQ PORT_CHANGE event.
 *
 * The SMA (IBTA 14) and PMA (IBTA 16.1) live in the device's firmware part:
 * SMPs arriving on VL15 (LID-routed and directed-route) and PMA GMPs
 * arriving on QP1 are answered here, with the MAD code the switch's port 0
 * uses too (qemu-model/mad); the MAD_IFC admin command runs a MAD from the
 * host through the same agents.
 *
 * Whatever else is for the host goes to its QPs (sfab_engine_qp.c): SMP
 * responses and traps for an SM on this node, returning DR SMPs and SMInfo
 * requests while the host is an SM to QP0, GMPs the PMA does not answer to
 * QP1, other UD packets to their QP.  A packet for our own LID that a host
 * QP or the SMA sends is looped back to this receive path without the
 * wire.
 *
 * M_Key (IBTA 14.2.4): the SMA checks the M_Key of every Get and Set,
 * from the wire and through MAD_IFC alike (sfab_mad_mkey_check()); a
 * refused SMP gets no answer, counts in M_KeyViolations and sends trap 256
 * to the SM.  MAD_IFC with SFAB_MAD_IFC_IGNORE_MKEY skips the check.
 */
#include <string.h>

#include "sfab_engine.h"
#include "sfab_engine_int.h"

#define PORT_NUM	1

static struct sfab_engine_port *port_of(struct sfab_engine *e)
{
	return &e->port;
}

static bool hca_ready(const struct sfab_engine *e)
{
	return e->fw_active && (e->dev_sts & SFAB_DEV_STS_HCA_INIT) &&
	       !(e->dev_sts & SFAB_DEV_STS_FATAL);
}

static unsigned int num_vls(const struct sfab_engine *e)
{
	unsigned int n = e->profile.num_vls;

	if (n < 1)
		n = 1;
	return n > SFAB_LINK_MAX_DATA_VLS ? SFAB_LINK_MAX_DATA_VLS : n;
}

static void link_cfg(const struct sfab_engine *e, struct sfab_link_cfg *cfg)
{
	unsigned int blocks = sfab_le16_to_cpu(e->profile.vl_buf_blocks);
	unsigned int min = sfab_link_blocks(SFAB_WIRE_MAX_PKT_LEN);

	memset(cfg, 0, sizeof(*cfg));
	cfg->num_data_vls = num_vls(e);
	/* a VL buffer holds at least one packet of the largest MTU */
	cfg->vl_blocks = blocks < min ? min : blocks;
	cfg->vl15_blocks = SFAB_ENGINE_VL15_BLOCKS;
	cfg->fc_period_ns = SFAB_LINK_FC_REFRESH_NS;
}

void sfab_engine_port_reset(struct sfab_engine *e)
{
	struct sfab_engine_port *p = port_of(e);
	struct sfab_link_cfg cfg;

	memset(p, 0, sizeof(*p));
	link_cfg(e, &cfg);
	sfab_link_init(&p->link, &cfg);
	p->rep_state = SFAB_PORT_DOWN;
	p->rep_phys = SFAB_PHYS_POLLING;
	p->gid_prefix = SFAB_ENGINE_SUBNET_PREFIX;
	p->cap_mask = SFAB_ENGINE_PORT_CAP;
	sfab_mad_port_cfg_init(&p->cfg, sfab_vl_cap(cfg.num_data_vls));
	/* OperationalVLs: the profile's VLCap once the link runs */
	p->cfg.op_vls = 0;
	p->pkeys[0] = SFAB_PKEY_DEFAULT;
}

void sfab_engine_port_state(const struct sfab_engine *e,
			    enum sfab_port_state *st,
			    enum sfab_port_phys_state *phys)
{
	const struct sfab_engine_port *p = &e->port;

	if (p->running) {
		*st = p->link.state;
		*phys = p->link.phys;
		return;
	}
	*st = SFAB_PORT_DOWN;
	*phys = p->disabled ? SFAB_PHYS_DISABLED : SFAB_PHYS_POLLING;
}

static void txq_discard(struct sfab_engine_port *p)
{
	p->xmit_discards += p->txq_len + p->ackq_len;
	p->txq_len = 0;
	p->txq_head = 0;
	p->ackq_len = 0;
	p->ackq_head = 0;
}

static void stall_end(struct sfab_engine_port *p, uint64_t now)
{
	if (!p->stall_since)
		return;
	/* a stall always costs at least one tick */
	p->xmit_wait += now > p->stall_since ? now - p->stall_since : 1;
	p->stall_since = 0;
}

void sfab_engine_port_update(struct sfab_engine *e)
{
	struct sfab_engine_port *p = port_of(e);
	bool want = hca_ready(e) && e->cabled && e->ops->cable_tx && !p->disabled;
	struct sfab_link_counters keep;
	struct sfab_link_cfg cfg;

	if (want && !p->running) {
		/* the profile may have changed: the counters carry over */
		keep = p->link.cnt;
		link_cfg(e, &cfg);
		sfab_link_init(&p->link, &cfg);
		p->link.cnt = keep;
		if (!p->cfg.op_vls ||
		    p->cfg.op_vls > sfab_vl_cap(cfg.num_data_vls))
			p->cfg.op_vls = sfab_vl_cap(cfg.num_data_vls);
		p->running = true;
		sfab_link_phys_up(&p->link, sfab_engine_now(e));
	} else if (!want && p->running) {
		sfab_link_phys_down(&p->link, p->disabled);
		p->running = false;
		txq_discard(p);
		stall_end(p, sfab_engine_now(e));
	}
}

static void port_rx_packet(struct sfab_engine *e, const uint8_t *frame,
			   size_t len, unsigned int vl);
static bool lid_is_ours(const struct sfab_engine_port *p, uint16_t dlid);

/* a packet to our own (non-permissive) LID never leaves the HCA */
static bool is_loopback(const struct sfab_engine_port *p, uint16_t dlid)
{
	return dlid != SFAB_LID_PERMISSIVE && lid_is_ours(p, dlid);
}

static void stall_begin(struct sfab_engine *e, struct sfab_engine_port *p)
{
	if (!p->stall_since) {
		uint64_t now = sfab_engine_now(e);

		p->stall_since = now ? now : 1;
	}
}

/* a frame onto the wire if its VL has credit: 1 sent, 0 not yet, -1 link down */
static int frame_out(struct sfab_engine *e, const uint8_t *f, size_t len)
{
	struct sfab_engine_port *p = port_of(e);
	unsigned int vl = sfab_link_pkt_vl(f);

	if (!sfab_link_can_xmit(&p->link, vl))
		return -1;
	if (!sfab_link_tx_ok(&p->link, vl, len))
		return 0;
	sfab_link_tx_sent(&p->link, vl, f, len);
	e->ops->cable_tx(e->opaque, f, len);
	return 1;
}

/*
 * An ACK or NAK: on the wire now if the ACK queue is empty and the VL has
 * credit for it, whatever data waits in txq (other QPs' packets, which
 * may wait long on a congested port while the peer's ACK timer runs);
 * else behind the ACKs already queued.
 */
static void port_xmit_ack(struct sfab_engine *e, const uint8_t *frame,
			  size_t len)
{
	struct sfab_engine_port *p = port_of(e);
	unsigned int at;

	if (!p->ackq_len && frame_out(e, frame, len) > 0)
		return;
	if (p->ackq_len == SFAB_ENGINE_ACKQ_LEN ||
	    len > sizeof(p->ackq[0].data)) {
		p->xmit_discards++;
		return;
	}
	at = (p->ackq_head + p->ackq_len) % SFAB_ENGINE_ACKQ_LEN;
	memcpy(p->ackq[at].data, frame, len);
	p->ackq[at].len = (uint8_t)len;
	p->ackq_len++;
	stall_begin(e, p);
}

/*
 * send a frame now, or queue it until the peer gives credit; @qpn: the QP
 * of an RC frame (@kind says which), or SFAB_ENGINE_NO_QPN
 */
static void port_xmit(struct sfab_engine *e, const uint8_t *frame, size_t len,
		      uint32_t qpn, enum sfab_engine_rc_frame kind)
{
	struct sfab_engine_port *p = port_of(e);
	unsigned int vl = sfab_link_pkt_vl(frame);
	uint32_t req_qpn = kind == SFAB_RC_FRAME_REQ ? qpn : SFAB_ENGINE_NO_QPN;
	struct sfab_pkt_ud_ext x;
	struct sfab_pkt_ud u;
	unsigned int at;

	if (!len)
		return;
	if (p->rx_local) {
		/* the SMA's answer to a DR SMP the host sent to itself */
		if (sfab_link_pkt_parse_ud_ext(frame, len, &u, &x))
			sfab_engine_qp_rx(e, &u, &x);
		return;
	}
	if (is_loopback(p, sfab_link_pkt_dlid(frame))) {
		e->stats.loopback++;
		if (req_qpn != SFAB_ENGINE_NO_QPN)
			sfab_rc_req_sent(e, req_qpn);
		port_rx_packet(e, frame, len, vl);
		return;
	}
	if (!p->running || !sfab_link_can_xmit(&p->link, vl)) {
		p->xmit_discards++;
		return;
	}
	if (vl != SFAB_VL15 && kind == SFAB_RC_FRAME_ACK &&
	    qpn != SFAB_ENGINE_NO_QPN) {
		port_xmit_ack(e, frame, len);
		return;
	}
	if (vl != SFAB_VL15 && (p->txq_len || p->ackq_len ||
				!sfab_link_tx_ok(&p->link, vl, len))) {
		if (p->txq_len == SFAB_ENGINE_TXQ_LEN ||
		    len > sizeof(p->txq[0].data)) {
			p->xmit_discards++;
			return;
		}
		at = (p->txq_head + p->txq_len) % SFAB_ENGINE_TXQ_LEN;
		memcpy(p->txq[at].data, frame, len);
		p->txq[at].len = len;
		p->txq[at].req_qpn = req_qpn;
		p->txq[at].resp_qpn = kind == SFAB_RC_FRAME_REQ ?
				      SFAB_ENGINE_NO_QPN : qpn;
		p->txq_len++;
		stall_begin(e, p);
		return;
	}
	sfab_link_tx_sent(&p->link, vl, frame, len);
	e->ops->cable_tx(e->opaque, frame, len);
	if (req_qpn != SFAB_ENGINE_NO_QPN)
		sfab_rc_req_sent(e, req_qpn);
}

static void txq_drain(struct sfab_engine *e, uint64_t now)
{
	struct sfab_engine_port *p = port_of(e);
	uint32_t req_qpn;
	int r;

	/* ACKs first: they do not wait behind data */
	while (p->ackq_len) {
		r = frame_out(e, p->ackq[p->ackq_head].data,
			       p->ackq[p->ackq_head].len);
		if (r < 0) {
			txq_discard(p);	/* the link went down under them */
			break;
		}
		if (!r)
			return;		/* still waiting for credit */
		p->ackq_len--;
		p->ackq_head = (p->ackq_head + 1) % SFAB_ENGINE_ACKQ_LEN;
	}
	while (p->txq_len) {
		req_qpn = p->txq[p->txq_head].req_qpn;
		r = frame_out(e, p->txq[p->txq_head].data,
			       p->txq[p->txq_head].len);
		if (r < 0) {
			txq_discard(p);
			break;
		}
		if (!r)
			return;
		p->txq_len--;
		p->txq_head = (p->txq_head + 1) % SFAB_ENGINE_TXQ_LEN;
		if (req_qpn != SFAB_ENGINE_NO_QPN)
			sfab_rc_req_sent(e, req_qpn);
	}
	stall_end(p, now);
}

static void port_report(struct sfab_engine *e)
{
	struct sfab_engine_port *p = port_of(e);
	enum sfab_port_phys_state phys;
	enum sfab_port_state st;

	sfab_engine_port_state(e, &st, &phys);
	if (st == p->rep_state && phys == p->rep_phys)
		return;
	p->rep_state = st;
	p->rep_phys = phys;
	sfab_engine_aenq_event(e, SFAB_AENQ_PORT_CHANGE, PORT_NUM,
			       SFAB_FIELD_PREP(SFAB_AENQ_PORT_STATE_MASK, st) |
			       SFAB_FIELD_PREP(SFAB_AENQ_PORT_PHYS_MASK, phys));
}

void sfab_engine_port_kick(struct sfab_engine *e)
{
	struct sfab_engine_port *p = port_of(e);
	uint8_t fc[SFAB_WIRE_FC_PKT_LEN];
	uint64_t now;

	if (p->running) {
		now = sfab_engine_now(e);
		txq_drain(e, now);
	}
	/* host sends waiting for the port, or for their turn */
	sfab_engine_qp_run(e);
	if (p->running) {
		now = sfab_engine_now(e);
		while (sfab_link_fc_next(&p->link, now, fc))
			e->ops->cable_tx(e->opaque, fc, sizeof(fc));
	}
	port_report(e);
}

enum sfab_engine_route sfab_engine_port_route(struct sfab_engine *e,
					      unsigned int vl, uint16_t dlid)
{
	struct sfab_engine_port *p = port_of(e);

	if (is_loopback(p, dlid))
		return SFAB_ROUTE_LOOPBACK;
	if (!p->running || !sfab_link_can_xmit(&p->link, vl))
		return SFAB_ROUTE_DROP;
	if (vl != SFAB_VL15 && p->txq_len >= SFAB_ENGINE_TXQ_LEN)
		return SFAB_ROUTE_WAIT;
	return SFAB_ROUTE_WIRE;
}

enum sfab_engine_route sfab_engine_port_route_ack(struct sfab_engine *e,
						  unsigned int vl,
						  uint16_t dlid)
{
	struct sfab_engine_port *p = port_of(e);

	if (is_loopback(p, dlid))
		return SFAB_ROUTE_LOOPBACK;
	if (!p->running || !sfab_link_can_xmit(&p->link, vl))
		return SFAB_ROUTE_DROP;
	if (p->ackq_len >= SFAB_ENGINE_ACKQ_LEN)
		return SFAB_ROUTE_WAIT;
	return SFAB_ROUTE_WIRE;
}

void sfab_engine_port_send(struct sfab_engine *e, const uint8_t *frame,
			   size_t len, bool local_dr)
{
	struct sfab_engine_port *p = port_of(e);

	if (local_dr) {
		/* a DR SMP with no hops: for this node's SMA (or host SM) */
		p->rx_local = true;
		e->stats.loopback++;
		port_rx_packet(e, frame, len, sfab_link_pkt_vl(frame));
		p->rx_local = false;
		return;
	}
	port_xmit(e, frame, len, SFAB_ENGINE_NO_QPN, SFAB_RC_FRAME_RESP);
}

void sfab_engine_port_send_rc(struct sfab_engine *e, const uint8_t *frame,
			      size_t len, uint32_t qpn,
			      enum sfab_engine_rc_frame kind)
{
	port_xmit(e, frame, len, qpn, kind);
}

bool sfab_engine_port_req_queued(const struct sfab_engine *e, uint32_t qpn)
{
	const struct sfab_engine_port *p = &e->port;
	unsigned int i;

	/* at most SFAB_ENGINE_TXQ_LEN entries */
	for (i = 0; i < p->txq_len; i++)
		if (p->txq[(p->txq_head + i) % SFAB_ENGINE_TXQ_LEN].req_qpn == qpn)
			return true;
	return false;
}

bool sfab_engine_port_resp_queued(const struct sfab_engine *e, uint32_t qpn)
{
	const struct sfab_engine_port *p = &e->port;
	unsigned int i;

	for (i = 0; i < p->txq_len; i++)
		if (p->txq[(p->txq_head + i) % SFAB_ENGINE_TXQ_LEN].resp_qpn == qpn)
			return true;
	return false;
}

unsigned int sfab_engine_port_sl2vl(const struct sfab_engine *e,
				    unsigned int sl)
{
	const struct sfab_engine_port *p = &e->port;
	unsigned int vl = p->sl2vl[sl & 15] & 15;
	unsigned int ops = p->cfg.op_vls ? p->cfg.op_vls : sfab_vl_cap(num_vls(e));
	/* OperationalVLs: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7 */
	unsigned int nvl = ops >= 1 && ops <= 4 ? 1U << (ops - 1) : 1;

	return vl < nvl && vl < num_vls(e) ? vl : SFAB_VL15;
}

unsigned int sfab_engine_port_mtu(const struct sfab_engine *e)
{
	unsigned int code = e->port.cfg.neighbor_mtu;

	if (code < 1 || code > SFAB_PI_MTU_4096)
		code = SFAB_PI_MTU_4096;
	return 128U << code;
}

/* --- the SMA -------------------------------------------------------------- */

static void node_of(const struct sfab_engine *e, struct sfab_mad_node *n)
{
	memset(n, 0, sizeof(*n));
	n->node_type = SFAB_NODE_TYPE_CA;
	n->num_ports = 1;
	n->sys_image_guid = e->node_guid;
	n->node_guid = e->node_guid;
	n->port_guid = e->node_guid + 1;
	n->partition_cap = SFAB_PORT_PKEY_TBL_LEN;
	n->device_id = SFAB_PCI_DEVICE_ID;
	n->revision = SFAB_PCI_REVISION;
	n->vendor_id = SFAB_VENDOR_OUI;
}

/* PortInfo into @d; with @hide (protection level 1, a wrong key) M_Key 0 */
static void get_port_info(struct sfab_engine *e, unsigned int in_port,
			  uint8_t *d, bool hide)
{
	struct sfab_engine_port *p = port_of(e);
	struct sfab_mad_port_info pi;
	struct sfab_link_cfg cfg;
	enum sfab_port_phys_state phys;
	enum sfab_port_state st;

	sfab_engine_port_state(e, &st, &phys);
	link_cfg(e, &cfg);
	memset(&pi, 0, sizeof(pi));
	pi.mkey = hide ? 0 : p->mk.key;
	pi.gid_prefix = p->gid_prefix;
	pi.lid = p->lid;
	pi.sm_lid = p->sm_lid;
	pi.cap_mask = p->cap_mask;
	pi.mkey_lease_period = p->mk.lease_period;
	pi.mkey_violations = p->mk.violations;
	pi.pkey_violations = p->bad_pkey > 0xffff ? 0xffff : p->bad_pkey;
	pi.qkey_violations = p->qkey_viol > 0xffff ? 0xffff : p->qkey_viol;
	pi.local_port_num = in_port;
	sfab_mad_port_cfg_get(&p->cfg, &pi);
	pi.link_width_supported = SFAB_PI_WIDTH_4X;
	pi.link_width_active = SFAB_PI_WIDTH_4X;
	pi.link_speed_supported = SFAB_PI_SPEED_SDR;
	pi.port_state = st;
	pi.phys_state = phys;
	pi.mkey_prot = p->mk.prot;
	pi.lmc = p->lmc;
	pi.link_speed_active = SFAB_PI_SPEED_SDR;
	pi.master_sm_sl = p->sm_sl;
	pi.vl_cap = sfab_vl_cap(cfg.num_data_vls);
	pi.vl_arb_high_cap = 8;
	pi.vl_arb_low_cap = 8;
	pi.mtu_cap = SFAB_PI_MTU_4096;
	pi.vl_stall_count = 7;
	pi.hoq_life = 19;
	pi.guid_cap = 1;
	pi.subnet_timeout = p->subnet_timeout;
	pi.resp_time_value = 8;
	pi.max_credit_hint = cfg.vl_blocks;
	pi.link_speed_ext_active = SFAB_PI_SPEED_EXT_NDR;
	pi.link_speed_ext_supported = 0x0f;
	sfab_mad_enc_port_info(d, &pi);
}

/* a trap SMP from the SMA to the SM: LID-routed, VL15, QP0 to QP0 */
static void sma_send_trap(struct sfab_engine *e, const struct sfab_wire_smp *smp)
{
	struct sfab_engine_port *p = port_of(e);
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];

	port_xmit(e, buf, sfab_mad_trap_pkt(buf, smp, p->lid, p->sm_lid,
					    p->sm_sl),
		  SFAB_ENGINE_NO_QPN, SFAB_RC_FRAME_RESP);
}

/*
 * Trap 144 (LocalChangedAttribute: CapabilityMask) to the SM, once: an SM
 * that misses it finds the new mask at its next heavy sweep.  None before
 * the SM has set its LID.
 */
static void sma_trap_cap_mask(struct sfab_engine *e)
{
	struct sfab_engine_port *p = port_of(e);
	struct sfab_wire_notice *n;
	struct sfab_wire_smp smp;

	if (!p->sm_lid || !p->lid || !p->running)
		return;
	sfab_mad_trap_init(&smp, p->mk.key, ++p->trap_tid);
	n = (struct sfab_wire_notice *)smp.data;
	n->generic_type = SFAB_NOTICE_GENERIC | SFAB_NOTICE_TYPE_INFO;
	n->producer_type[2] = SFAB_NOTICE_PROD_CA;
	n->trap_num = sfab_cpu_to_be16(SFAB_TRAP_LOCAL_CHANGES);
	n->issuer_lid = sfab_cpu_to_be16(p->lid);
	n->lid = n->issuer_lid;
	n->new_cap_mask = sfab_cpu_to_be32(p->cap_mask);
	sma_send_trap(e, &smp);
}

void sfab_engine_key_violation(struct sfab_engine *e, uint16_t trap,
			       uint16_t slid, uint16_t dlid, uint32_t key,
			       uint8_t sl, uint32_t sqpn, uint32_t dqpn)
{
	struct sfab_engine_port *p = port_of(e);
	struct sfab_wire_notice_bad_key n;
	struct sfab_wire_smp smp;
	uint64_t now = sfab_engine_now(e);

	if (trap == SFAB_TRAP_BAD_PKEY)
		p->bad_pkey++;
	else
		p->qkey_viol++;
	if (!p->sm_lid || !p->lid || !p->running ||
	    (p->key_trap_at && now - p->key_trap_at < SFAB_ENGINE_KEY_TRAP_NS))
		return;
	p->key_trap_at = now ? now : 1;
	sfab_mad_trap_init(&smp, p->mk.key, ++p->trap_tid);
	memset(&n, 0, sizeof(n));
	n.generic_type = SFAB_NOTICE_GENERIC | SFAB_NOTICE_TYPE_SECURITY;
	n.producer_type[2] = SFAB_NOTICE_PROD_CA;
	n.trap_num = sfab_cpu_to_be16(trap);
	n.issuer_lid = sfab_cpu_to_be16(p->lid);
	n.lid1 = sfab_cpu_to_be16(slid);
	n.lid2 = sfab_cpu_to_be16(dlid);
	n.key = sfab_cpu_to_be32(key);
	n.sl_qp1 = sfab_cpu_to_be32((uint32_t)(sl & 15) << 28 | (sqpn & 0xffffff));
	n.qp2 = sfab_cpu_to_be32(dqpn & 0xffffff);
	memcpy(smp.data, &n, sizeof(n));
	sma_send_trap(e, &smp);
}

/*
 * The M_Key check of an SMP for the SMA; a refused one sends trap 256
 * (Bad M_Key) to the SM, once the SM has set the LIDs.
 */
static enum sfab_mad_mkey_act sma_mkey(struct sfab_engine *e,
				       const struct sfab_wire_smp *smp)
{
	struct sfab_engine_port *p = port_of(e);
	enum sfab_mad_mkey_act act;
	struct sfab_wire_smp trap;

	act = sfab_mad_mkey_check(&p->mk, smp, sfab_engine_now(e));
	if (act != SFAB_MAD_MKEY_BAD)
		return act;
	e->stats.mkey_refused++;
	if (p->sm_lid && p->lid && p->running) {
		sfab_mad_trap_bad_mkey(&trap, smp, p->lid, SFAB_NOTICE_PROD_CA,
				       p->mk.key, ++p->trap_tid);
		sma_send_trap(e, &trap);
	}
	return act;
}

static uint16_t set_port_info(struct sfab_engine *e, const uint8_t *d,
			      bool local)
{
	struct sfab_engine_port *p = port_of(e);
	struct sfab_mad_port_set ps = { .mgmt = true };
	struct sfab_mad_port_info pi;
	enum sfab_port_phys_state phys;
	struct sfab_link_cfg cfg;
	uint16_t old_lid = p->lid, old_sm = p->sm_lid, sts;
	uint8_t old_lmc = p->lmc;

	sfab_engine_port_state(e, &ps.cur, &phys);
	link_cfg(e, &cfg);
	ps.vl_cap = sfab_vl_cap(cfg.num_data_vls);
	/* decoded, checked and the link's part applied; an invalid Set: none */
	sts = sfab_mad_port_info_set(d, &ps, &pi, &p->cfg);
	if (sts)
		return sts;

	sfab_mad_mkey_set(&p->mk, &pi);
	p->mk.violations = pi.mkey_violations;
	p->gid_prefix = pi.gid_prefix;
	p->lid = pi.lid;
	p->sm_lid = pi.sm_lid;
	p->lmc = pi.lmc;
	p->sm_sl = pi.master_sm_sl;
	p->subnet_timeout = pi.subnet_timeout;
	/*
	 * CapabilityMask is the port's own: only the host changes it, and
	 * only the bits that say which agents it runs; the SM hears of a
	 * change through Trap 144
	 */
	if (local && ((p->cap_mask ^ pi.cap_mask) & SFAB_PI_CAP_HOST_OWNED)) {
		p->cap_mask = (p->cap_mask & ~SFAB_PI_CAP_HOST_OWNED) |
			      (pi.cap_mask & SFAB_PI_CAP_HOST_OWNED);
		sma_trap_cap_mask(e);
	}

	if (p->lid != old_lid || p->lmc != old_lmc)
		sfab_engine_aenq_event(e, SFAB_AENQ_LID_CHANGE, PORT_NUM, p->lid);
	if (p->sm_lid != old_sm)
		sfab_engine_aenq_event(e, SFAB_AENQ_SM_CHANGE, PORT_NUM, p->sm_lid);
	if (pi.client_rereg)
		sfab_engine_aenq_event(e, SFAB_AENQ_CLIENT_REREG, PORT_NUM, 0);

	if (pi.phys_state == SFAB_PHYS_DISABLED && !p->disabled) {
		p->disabled = true;
		sfab_engine_port_update(e);
	} else if (pi.phys_state == SFAB_PHYS_POLLING && p->disabled) {
		p->disabled = false;
		sfab_engine_port_update(e);
	}
	if (pi.port_state && p->running)
		sfab_link_set_state(&p->link, pi.port_state);
	return SFAB_MAD_STS_OK;
}

/*
 * A Get/Set for the SMA: fill @smp->data, return the MAD status.  @local:
 * from the host (MAD_IFC), which may set what the SM may not.
 */
static uint16_t sma_process(struct sfab_engine *e, struct sfab_wire_smp *smp,
			    unsigned int in_port, bool local, bool hide)
{
	struct sfab_engine_port *p = port_of(e);
	uint16_t attr = sfab_be16_to_cpu(smp->attr_id);
	uint32_t mod = sfab_be32_to_cpu(smp->attr_mod);
	bool set = smp->method == SFAB_MAD_METHOD_SET;
	uint8_t *d = smp->data;
	struct sfab_mad_node n;
	uint16_t sts;

	sts = sfab_mad_smp_check(smp);
	if (sts)
		return sts;
	switch (attr) {
	case SFAB_SMP_ATTR_NODE_INFO:
		if (set)
			return SFAB_MAD_STS_UNSUP_METH_ATTR;
		node_of(e, &n);
		sfab_mad_enc_node_info(d, &n, in_port);
		return SFAB_MAD_STS_OK;
	case SFAB_SMP_ATTR_NODE_DESC:
		if (set)
			return SFAB_MAD_STS_UNSUP_METH_ATTR;
		sfab_mad_enc_node_desc(d, e->node_desc, sizeof(e->node_desc));
		return SFAB_MAD_STS_OK;
	case SFAB_SMP_ATTR_PORT_INFO:
		/* a CA's port number, or 0: the port the SMP came in on */
		if (sfab_mad_port_info_port(mod) > PORT_NUM)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set) {
			sts = set_port_info(e, d, local);
			hide = false;	/* the key was right */
		}
		get_port_info(e, in_port, d, hide);
		return sts;
	case SFAB_SMP_ATTR_PKEY_TABLE: {
		uint16_t pk[SFAB_PORT_PKEY_TBL_LEN];

		/* block 0 holds the whole table */
		if (mod & 0xffff)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set) {
			sfab_mad_dec_pkeys(d, pk, SFAB_PORT_PKEY_TBL_LEN);
			if (memcmp(pk, p->pkeys, sizeof(pk))) {
				memcpy(p->pkeys, pk, sizeof(pk));
				sfab_engine_aenq_event(e, SFAB_AENQ_PKEY_CHANGE,
						       PORT_NUM, 0);
			}
		}
		sfab_mad_enc_pkeys(d, p->pkeys, SFAB_PORT_PKEY_TBL_LEN);
		return SFAB_MAD_STS_OK;
	}
	case SFAB_SMP_ATTR_SL_TO_VL_TABLE:
		/* a CA has one mapping: in/out port 0 or this port */
		if ((mod >> 16) || ((mod >> 8) & 0xff) > PORT_NUM ||
		    (mod & 0xff) > PORT_NUM)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set)
			sfab_mad_dec_sl2vl(d, p->sl2vl);
		sfab_mad_enc_sl2vl(d, p->sl2vl);
		return SFAB_MAD_STS_OK;
	case SFAB_SMP_ATTR_VL_ARB_TABLE: {
		unsigned int block = mod >> 16;

		if (block < SFAB_VLARB_LOW_0_31 || block > SFAB_VLARB_HIGH_32_63 ||
		    (mod & 0xffff) > PORT_NUM)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set)
			memcpy(p->vlarb[block - 1], d, SFAB_SMP_DATA_LEN);
		memcpy(d, p->vlarb[block - 1], SFAB_SMP_DATA_LEN);
		return SFAB_MAD_STS_OK;
	}
	case SFAB_SMP_ATTR_GUID_INFO: {
		uint64_t guid = e->node_guid + 1;

		if (mod != 0)
			return SFAB_MAD_STS_INVALID_FIELD;
		/* one GUID (GUIDCap 1), the port GUID, read-only */
		sfab_mad_enc_guid_info(d, &guid, 1);
		return SFAB_MAD_STS_OK;
	}
	default:
		return SFAB_MAD_STS_UNSUP_METH_ATTR;
	}
}

/* an SMP request for the SM on this node rather than for the SMA */
static bool for_host_sm(const struct sfab_engine *e,
			const struct sfab_wire_smp *smp)
{
	return sfab_be16_to_cpu(smp->attr_id) == SFAB_SMP_ATTR_SM_INFO &&
	       (e->port.cap_mask & SFAB_PI_CAP_IS_SM);
}

/* the SMA answers an SMP from the wire */
static void sma_wire(struct sfab_engine *e, const struct sfab_pkt_ud *u,
		     struct sfab_wire_smp *smp, const struct sfab_pkt_ud_ext *x)
{
	struct sfab_engine_port *p = port_of(e);
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	enum sfab_mad_mkey_act act;
	uint16_t sts;
	size_t n;

	if (for_host_sm(e, smp)) {
		sfab_engine_qp_rx(e, u, x);	/* the SM on this node */
		return;
	}
	e->stats.sma_mads++;
	act = sma_mkey(e, smp);
	if (act == SFAB_MAD_MKEY_BAD)
		return;
	sts = sma_process(e, smp, PORT_NUM, false, act == SFAB_MAD_MKEY_HIDE);
	if (sts)
		e->stats.bad_mads++;
	sfab_mad_smp_make_resp(smp, sts);
	if (smp->mgmt_class == SFAB_MGMT_CLASS_SUBN_LID) {
		n = sfab_mad_build_resp_pkt(buf, u, smp, u->slid, p->lid);
	} else {
		if (!sfab_mad_dr_resp_port(smp, PORT_NUM, PORT_NUM)) {
			e->stats.bad_mads++;
			return;
		}
		n = sfab_mad_build_resp_pkt(buf, u, smp, SFAB_LID_PERMISSIVE,
					    SFAB_LID_PERMISSIVE);
	}
	port_xmit(e, buf, n, SFAB_ENGINE_NO_QPN, SFAB_RC_FRAME_RESP);
}

/* --- the PMA ----------------------------------------------------------------- */

static void pma_now(struct sfab_engine *e, struct sfab_mad_pma_cnt *c)
{
	struct sfab_engine_port *p = port_of(e);
	uint64_t now;

	memset(c, 0, sizeof(*c));
	c->l = p->link.cnt;
	c->xmit_wait = p->xmit_wait;
	c->xmit_discards = p->xmit_discards;
	if (p->stall_since) {
		now = sfab_engine_now(e);
		c->xmit_wait += now > p->stall_since ? now - p->stall_since : 1;
	}
}

static bool pma_port_ok(void *opaque, unsigned int ps)
{
	(void)opaque;
	return ps == PORT_NUM || ps == SFAB_PMA_ALL_PORTS;
}

static void pma_read(void *opaque, unsigned int ps, struct sfab_mad_pma_cnt *c)
{
	struct sfab_engine *e = opaque;
	struct sfab_mad_pma_cnt now;

	(void)ps;
	pma_now(e, &now);
	sfab_mad_pma_delta(c, &now, &e->port.pma_base);
}

static void pma_clear(void *opaque, unsigned int ps)
{
	struct sfab_engine *e = opaque;

	(void)ps;
	pma_now(e, &e->port.pma_base);
}

static const struct sfab_mad_pma_ops eng_pma_ops = {
	.port_ok = pma_port_ok,
	.read = pma_read,
	.clear = pma_clear,
};

static uint16_t pma_answer(struct sfab_engine *e, uint8_t *mad)
{
	uint16_t sts;

	e->stats.pma_mads++;
	sts = sfab_mad_pma_process(mad, &eng_pma_ops, e);
	if (sts)
		e->stats.bad_mads++;
	sfab_mad_gmp_make_resp(mad, sts);
	return sts;
}

/* --- packets from the wire -------------------------------------------------- */

static bool lid_is_ours(const struct sfab_engine_port *p, uint16_t dlid)
{
	if (dlid == SFAB_LID_PERMISSIVE)
		return true;
	return p->lid && dlid <= SFAB_LID_UCAST_MAX &&
	       (dlid >> p->lmc) == (p->lid >> p->lmc);
}

static void port_rx_packet(struct sfab_engine *e, const uint8_t *frame,
			   size_t len, unsigned int vl)
{
	struct sfab_engine_port *p = port_of(e);
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	union {
		uint8_t raw[SFAB_WIRE_MAD_LEN];
		struct sfab_wire_smp smp;
		struct sfab_wire_mad_hdr h;
	} m;
	struct sfab_pkt_ud_ext x;
	struct sfab_pkt_ud u;
	uint16_t dlid = 0;
	uint8_t out = 0;
	size_t n;

	if (sfab_engine_qp_rx_pkt(e, frame, len))
		return;			/* RC/UC: the QP datapath */
	if (!sfab_link_pkt_parse_ud_ext(frame, len, &u, &x)) {
		e->stats.rx_dropped++;	/* not UD SEND */
		return;
	}
	if (sfab_lid_is_mcast(u.dlid)) {
		sfab_engine_mcast_rx(e, &u, &x);
		return;
	}
	if (!lid_is_ours(p, u.dlid)) {
		e->stats.rx_dropped++;	/* not for us */
		return;
	}
	if (x.has_grh && !sfab_qp_dgid_ok(e, &x.grh))
		return;			/* a GRH for another port: counted */
	if (u.dqpn != SFAB_QP0 && u.dqpn != SFAB_QP1) {
		sfab_engine_qp_rx(e, &u, &x);
		return;
	}
	if (x.has_grh) {
		/* SMPs never have a GRH; GMPs with one go to the host's QP1 */
		if (u.dqpn == SFAB_QP0 || x.has_imm || u.qkey != SFAB_QP1_QKEY ||
		    u.len < SFAB_WIRE_MAD_LEN) {
			e->stats.bad_mads++;
			return;
		}
		sfab_engine_qp_rx(e, &u, &x);
		return;
	}
	if (x.has_imm || !sfab_mad_parse(frame, len, &u, m.raw)) {
		e->stats.bad_mads++;	/* QP0/QP1 carry MADs only */
		return;
	}
	if (u.dqpn == SFAB_QP0) {
		if (vl != SFAB_VL15) {
			e->stats.bad_mads++;	/* QP0 traffic only on VL15 */
			return;
		}
		if (m.smp.mgmt_class == SFAB_MGMT_CLASS_SUBN_DR) {
			switch (sfab_mad_dr_step(&m.smp, PORT_NUM, PORT_NUM, false,
						 &out, &dlid)) {
			case SFAB_MAD_DR_SMA:
				break;
			case SFAB_MAD_DR_RETURNED:
				/* a response for an SM on this node */
				sfab_engine_qp_rx(e, &u, &x);
				return;
			default:
				e->stats.bad_mads++;
				return;
			}
		} else if (m.smp.mgmt_class != SFAB_MGMT_CLASS_SUBN_LID) {
			e->stats.bad_mads++;
			return;
		}
		if (!sfab_mad_is_request(m.smp.method)) {
			/* responses and traps are for the SM: host QP0 */
			sfab_engine_qp_rx(e, &u, &x);
			return;
		}
		sma_wire(e, &u, &m.smp, &x);
		return;
	}
	if (u.qkey != SFAB_QP1_QKEY) {
		e->stats.bad_mads++;
		return;
	}
	if (m.h.mgmt_class != SFAB_MGMT_CLASS_PERF ||
	    !sfab_mad_is_request(m.h.method)) {
		/* other GMP classes and responses: host QP1 */
		sfab_engine_qp_rx(e, &u, &x);
		return;
	}
	pma_answer(e, m.raw);
	n = sfab_mad_build_resp_pkt(buf, &u, m.raw, u.slid, p->lid);
	port_xmit(e, buf, n, SFAB_ENGINE_NO_QPN, SFAB_RC_FRAME_RESP);
}

/* --- MAD_IFC ------------------------------------------------------------------ */

bool sfab_engine_mad_local(struct sfab_engine *e, uint8_t *mad,
			   unsigned int port, uint16_t slid, bool ignore_mkey)
{
	enum sfab_mad_mkey_act act = SFAB_MAD_MKEY_OK;
	struct sfab_wire_smp smp;
	uint16_t dlid = 0, sts;
	uint8_t out = 0;

	(void)slid;	/* the agents answer every requester alike */
	memcpy(&smp, mad, sizeof(smp));
	switch (smp.mgmt_class) {
	case SFAB_MGMT_CLASS_SUBN_DR:
	case SFAB_MGMT_CLASS_SUBN_LID:
		if (!sfab_mad_is_request(smp.method))
			return false;
		if (smp.mgmt_class == SFAB_MGMT_CLASS_SUBN_DR &&
		    sfab_mad_dr_step(&smp, port, PORT_NUM, false, &out, &dlid) !=
		    SFAB_MAD_DR_SMA)
			return false;	/* not for this node's SMA */
		if (sfab_be16_to_cpu(smp.attr_id) == SFAB_SMP_ATTR_SM_INFO &&
		    smp.base_version == SFAB_MAD_BASE_VERSION)
			return false;	/* SMInfo is the SM's, on the host */
		e->stats.sma_mads++;
		if (!ignore_mkey)
			act = sma_mkey(e, &smp);
		if (act == SFAB_MAD_MKEY_BAD)
			return false;	/* consumed, no answer */
		sts = sma_process(e, &smp, port, true,
				  act == SFAB_MAD_MKEY_HIDE);
		if (sts)
			e->stats.bad_mads++;
		/* a value the host set wrong; unsupported attributes are not */
		if ((sts & (7 << 2)) == SFAB_MAD_STS_INVALID_FIELD)
			sfab_engine_guest_error(e, SFAB_GE_PORT_MAD,
						"port %u: MAD_IFC SMP method 0x%02x attr 0x%04x mod 0x%x: invalid field",
						port, smp.method,
						sfab_be16_to_cpu(smp.attr_id),
						sfab_be32_to_cpu(smp.attr_mod));
		sfab_mad_smp_make_resp(&smp, sts);
		if (smp.mgmt_class == SFAB_MGMT_CLASS_SUBN_DR)
			sfab_mad_dr_resp_port(&smp, port, PORT_NUM);
		memcpy(mad, &smp, sizeof(smp));
		return true;
	case SFAB_MGMT_CLASS_PERF:
		if (!sfab_mad_is_request(mad[3]))
			return false;
		pma_answer(e, mad);
		return true;
	default:
		return false;
	}
}

/* --- the cable ------------------------------------------------------------------ */

void sfab_engine_cable_up(struct sfab_engine *e)
{
	e->cabled = true;
	sfab_engine_port_update(e);
	sfab_engine_port_kick(e);
	sfab_engine_aenq_flush(e);
}

void sfab_engine_cable_down(struct sfab_engine *e)
{
	e->cabled = false;
	sfab_engine_port_update(e);
	sfab_engine_port_kick(e);
	sfab_engine_aenq_flush(e);
}

void sfab_engine_cable_rx(struct sfab_engine *e, const uint8_t *frame,
			  size_t len)
{
	struct sfab_engine_port *p = port_of(e);
	unsigned int vl;

	if (!p->running) {
		e->stats.rx_dropped++;	/* the port is down: the frame is lost */
		return;
	}
	if (sfab_link_rx(&p->link, frame, len, &vl) == SFAB_LINK_RX_DATA) {
		/* the firmware handles a packet at once and frees its buffer */
		port_rx_packet(e, frame, len, vl);
		sfab_link_rx_free(&p->link, vl, len);
	}
	sfab_engine_port_kick(e);
	sfab_engine_aenq_flush(e);
}

uint64_t sfab_engine_timer_deadline(struct sfab_engine *e)
{
	struct sfab_engine_port *p = port_of(e);
	uint64_t now, qp = sfab_engine_qp_deadline(e), fc;

	if (!p->running || p->link.phys == SFAB_PHYS_DISABLED)
		return qp;		/* RC timers (loopback works without a link) */
	now = sfab_engine_now(e);
	if (sfab_link_fc_pending(&p->link, now))
		return now;
	fc = sfab_link_fc_deadline(&p->link);
	return fc < qp ? fc : qp;
}

void sfab_engine_timer(struct sfab_engine *e)
{
	sfab_engine_port_kick(e);
	sfab_engine_aenq_flush(e);
}

void sfab_engine_set_node_desc(struct sfab_engine *e, const char *desc)
{
	size_t n = strnlen(desc, sizeof(e->node_desc) - 1);

	memset(e->node_desc, 0, sizeof(e->node_desc));
	memcpy(e->node_desc, desc, n);
}
