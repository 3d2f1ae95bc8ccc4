/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab switch management port (port 0): the SMA (IBTA 14), directed-route
 * SMP forwarding (IBTA 14.2.2) and the PMA (IBTA 16.1).
 *
 * M_Key (IBTA 14.2.4): the switch has one, port 0's.  The SMA checks it
 * on every Get and Set for itself (not on DR SMPs it forwards) with
 * sfab_mad_mkey_check(); a refused SMP gets no answer, counts in
 * M_KeyViolations and sends trap 256 to the SM.
 */
#include <string.h>

#include "sfab_sw.h"
#include "../link/sfab_pkt.h"
#include "../mad/sfab_mad.h"
#include "sfab/sfab_regs.h"

#define SW_DEVICE_ID	0x5346		/* "SF" */

int sfab_sw_mad_class(const uint8_t *frame, size_t len, const uint8_t **mad)
{
	struct sfab_pkt_ud u;

	if (!sfab_link_pkt_parse_ud(frame, len, &u) || u.dqpn != SFAB_QP0 ||
	    u.len < SFAB_WIRE_MAD_LEN)
		return -1;
	*mad = u.payload;
	return u.payload[1];
}

/*
 * Build a UD packet around the response @mad to a request that came in by
 * @in_port and hand it to the forwarding engine (which drops it, counted
 * at @in_port, when the queue towards the requester is full).
 */
static void send_mad(struct sfab_sw *sw, unsigned int in_port,
		     const struct sfab_pkt_ud *req, const void *mad,
		     uint16_t dlid, uint16_t slid, const uint8_t *outs,
		     unsigned int nout)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t n = sfab_mad_build_resp_pkt(buf, req, mad, dlid, slid);

	if (n)
		sfab_sw_inject(sw, in_port, buf, n, outs, nout);
}

/* --- the SMA's attributes ------------------------------------------------ */

/* VLCap / OperationalVLs encoding of the data VLs this switch has */
static uint8_t op_vls_cap(const struct sfab_sw *sw)
{
	return sfab_vl_cap(sw->cfg.num_data_vls);
}

static void get_node_info(struct sfab_sw *sw, unsigned int in_port, uint8_t *d)
{
	const struct sfab_mad_node n = {
		.node_type = SFAB_NODE_TYPE_SWITCH,
		.num_ports = sw->cfg.nports,
		.sys_image_guid = sw->cfg.node_guid,
		.node_guid = sw->cfg.node_guid,
		.port_guid = sw->cfg.node_guid,
		.partition_cap = SFAB_SW_PKEYS,
		.device_id = SW_DEVICE_ID,
		.revision = 1,
		.vendor_id = SFAB_VENDOR_OUI,
	};

	sfab_mad_enc_node_info(d, &n, in_port);
}

static void get_switch_info(struct sfab_sw *sw, uint8_t *d)
{
	struct sfab_wire_switch_info si;

	memset(&si, 0, sizeof(si));
	si.lin_cap = sfab_cpu_to_be16(SFAB_SW_LFT_CAP);
	si.mcast_cap = sfab_cpu_to_be16(SFAB_SW_MFT_CAP);
	si.lin_top = sfab_cpu_to_be16(sw->lft_top);
	si.def_port = sw->def_port;
	si.def_mcast_pri_port = sw->def_mcast_pri_port;
	si.def_mcast_not_port = sw->def_mcast_not_port;
	si.life_state = sw->life_state;
	si.lids_per_port = sfab_cpu_to_be16(0);
	si.enforce_cap = sfab_cpu_to_be16(SFAB_SW_PKEYS);
	si.flags = SFAB_SWINFO_INBOUND_ENF_CAP | SFAB_SWINFO_OUTBOUND_ENF_CAP |
		   SFAB_SWINFO_FILTER_RAW_IN_CAP | SFAB_SWINFO_FILTER_RAW_OUT_CAP;
	si.mcast_top = sfab_cpu_to_be16(sw->mft_top);
	memcpy(d, &si, sizeof(si));
}

static uint16_t set_switch_info(struct sfab_sw *sw, const uint8_t *d)
{
	struct sfab_wire_switch_info si;
	uint16_t top;

	memcpy(&si, d, sizeof(si));
	top = sfab_be16_to_cpu(si.lin_top);
	if (top >= SFAB_SW_LFT_CAP)
		return SFAB_MAD_STS_INVALID_FIELD;
	sw->lft_top = top;
	sw->def_port = si.def_port;
	sw->def_mcast_pri_port = si.def_mcast_pri_port;
	sw->def_mcast_not_port = si.def_mcast_not_port;
	/* PortStateChange is cleared by writing one */
	sw->life_state = (si.life_state & SFAB_SWINFO_LIFE_MASK) |
			 (sw->life_state & SFAB_SWINFO_PORT_STATE_CHANGE &
			  ~(si.life_state & SFAB_SWINFO_PORT_STATE_CHANGE));
	top = sfab_be16_to_cpu(si.mcast_top);
	if (top >= SFAB_LID_MCAST_BASE && top < SFAB_LID_MCAST_BASE + SFAB_SW_MFT_CAP)
		sw->mft_top = top;
	return SFAB_MAD_STS_OK;
}

/* PortInfo of port @pn; with @hide (protection level 1, a wrong key) M_Key 0 */
static void get_port_info(struct sfab_sw *sw, unsigned int pn,
			  unsigned int in_port, uint8_t *d, bool hide)
{
	struct sfab_sw_port *p = &sw->port[pn];
	struct sfab_mad_port_info pi;

	memset(&pi, 0, sizeof(pi));
	if (pn) {
		pi.port_state = p->link.state;
		pi.phys_state = p->link.phys;
	} else {
		pi.port_state = sw->port0_state;
		pi.phys_state = SFAB_PHYS_LINKUP;
	}
	pi.mkey = hide ? 0 : sw->mk.key;
	pi.mkey_lease_period = sw->mk.lease_period;
	pi.mkey_prot = sw->mk.prot;
	pi.mkey_violations = sw->mk.violations;
	pi.pkey_violations = pn ? 0 : sw->pkey_violations;
	pi.enforce = p->enforce;
	pi.gid_prefix = sw->gid_prefix;
	pi.lid = sw->lid;
	pi.sm_lid = sw->sm_lid;
	pi.cap_mask = pn ? 0 : SFAB_PI_CAP_HAS_SL_MAP | SFAB_PI_CAP_HAS_EXT_SPEEDS;
	pi.local_port_num = in_port;
	sfab_mad_port_cfg_get(&p->cfg, &pi);
	pi.link_width_supported = SFAB_PI_WIDTH_4X;
	pi.link_width_active = SFAB_PI_WIDTH_4X;
	pi.link_speed_supported = SFAB_PI_SPEED_SDR;
	pi.lmc = sw->lmc & 7;
	pi.link_speed_active = SFAB_PI_SPEED_SDR;
	pi.master_sm_sl = sw->sm_sl;
	pi.vl_cap = op_vls_cap(sw);
	pi.vl_arb_high_cap = SFAB_SW_VLARB_ENTRIES;
	pi.vl_arb_low_cap = SFAB_SW_VLARB_ENTRIES;
	pi.mtu_cap = SFAB_PI_MTU_4096;
	pi.vl_stall_count = 7;
	pi.hoq_life = 19;
	pi.guid_cap = 1;
	pi.subnet_timeout = sw->subnet_timeout;
	pi.resp_time_value = 8;
	pi.max_credit_hint = sw->cfg.vl_blocks;
	pi.link_speed_ext_active = SFAB_PI_SPEED_EXT_NDR;
	pi.link_speed_ext_supported = 0x0f;
	sfab_mad_enc_port_info(d, &pi);
}

static uint16_t set_port_info(struct sfab_sw *sw, unsigned int pn,
			      const uint8_t *d)
{
	struct sfab_sw_port *p = &sw->port[pn];
	/* port 0 is the switch's management port, the others have a link */
	struct sfab_mad_port_set ps = {
		.cur = pn ? p->link.state : sw->port0_state,
		.vl_cap = op_vls_cap(sw),
		.mgmt = pn == 0,
	};
	struct sfab_mad_port_info pi;
	unsigned int st, phys;
	uint16_t sts;

	/* decoded, checked and the link's part applied; an invalid Set: none */
	sts = sfab_mad_port_info_set(d, &ps, &pi, pn ? &p->cfg : NULL);
	if (sts)
		return sts;
	st = pi.port_state;
	phys = pi.phys_state;

	if (pn == 0) {
		sfab_mad_mkey_set(&sw->mk, &pi);
		sw->mk.violations = pi.mkey_violations;
		sw->gid_prefix = pi.gid_prefix;
		sw->lid = pi.lid;
		sw->sm_lid = pi.sm_lid;
		sw->lmc = pi.lmc;
		sw->sm_sl = pi.master_sm_sl;
		sw->subnet_timeout = pi.subnet_timeout;
		if (st && st != SFAB_PORT_DOWN)
			sw->port0_state = st;
		return SFAB_MAD_STS_OK;
	}
	p->enforce = pi.enforce;
	if (phys == SFAB_PHYS_DISABLED)
		sfab_sw_port_admin(sw, pn, false);
	else if (phys == SFAB_PHYS_POLLING)
		sfab_sw_port_admin(sw, pn, true);
	if (st)
		sfab_link_set_state(&p->link, st);
	return SFAB_MAD_STS_OK;
}

static void vlarb_block(struct sfab_sw_port *p, unsigned int block,
			struct sfab_wire_vl_arb_table *t, bool set)
{
	struct sfab_sw_arb *arb = block >= SFAB_VLARB_HIGH_0_31 ? &p->arb_high :
				  &p->arb_low;
	unsigned int base = (block == SFAB_VLARB_LOW_32_63 ||
			     block == SFAB_VLARB_HIGH_32_63) ? 32 : 0;
	unsigned int i;

	for (i = 0; i < 32; i++) {
		if (set) {
			arb->vl[base + i] = t->entry[i].vl & 15;
			arb->weight[base + i] = t->entry[i].weight;
		} else {
			t->entry[i].vl = arb->vl[base + i];
			t->entry[i].weight = arb->weight[base + i];
		}
	}
	if (set) {
		arb->idx = 0;
		arb->left = arb->weight[0];
	}
}

/*
 * Process a Get/Set on the SMA; fill @smp->data and return the MAD status.
 */
static uint16_t sma_process(struct sfab_sw *sw, unsigned int in_port,
			    struct sfab_wire_smp *smp, bool hide)
{
	uint16_t attr = sfab_be16_to_cpu(smp->attr_id);
	uint32_t mod = sfab_be32_to_cpu(smp->attr_mod);
	bool set = smp->method == SFAB_MAD_METHOD_SET;
	unsigned int n = sw->cfg.nports;
	uint16_t sts = SFAB_MAD_STS_OK;
	uint8_t *d = smp->data;

	sts = sfab_mad_smp_check(smp);
	if (sts)
		return sts;

	switch (attr) {
	case SFAB_SMP_ATTR_NODE_INFO:
		if (set)
			return SFAB_MAD_STS_UNSUP_METH_ATTR;
		get_node_info(sw, in_port, d);
		return SFAB_MAD_STS_OK;
	case SFAB_SMP_ATTR_NODE_DESC:
		if (set)
			return SFAB_MAD_STS_UNSUP_METH_ATTR;
		sfab_mad_enc_node_desc(d, sw->cfg.desc, sizeof(sw->cfg.desc));
		return SFAB_MAD_STS_OK;
	case SFAB_SMP_ATTR_SWITCH_INFO:
		if (mod)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set)
			sts = set_switch_info(sw, d);
		memset(d, 0, SFAB_SMP_DATA_LEN);
		get_switch_info(sw, d);
		return sts;
	case SFAB_SMP_ATTR_PORT_INFO: {
		unsigned int pn = sfab_mad_port_info_port(mod);

		if (pn > n)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set)
			sts = set_port_info(sw, pn, d);
		get_port_info(sw, pn, in_port, d, hide && !set);
		return sts;
	}
	case SFAB_SMP_ATTR_PKEY_TABLE: {
		unsigned int block = mod & 0xffff, pn = mod >> 16;

		/* port 0's table (PartitionCap), or an external port's */
		if (block != 0 || pn > n)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set)
			sfab_mad_dec_pkeys(d, sw->port[pn].pkeys, SFAB_SW_PKEYS);
		sfab_mad_enc_pkeys(d, sw->port[pn].pkeys, SFAB_SW_PKEYS);
		return SFAB_MAD_STS_OK;
	}
	case SFAB_SMP_ATTR_SL_TO_VL_TABLE: {
		unsigned int in = (mod >> 8) & 0xff, out = mod & 0xff;
		uint8_t *map;

		if (in > n || out > n || (mod >> 16))
			return SFAB_MAD_STS_INVALID_FIELD;
		map = sfab_sw_sl2vl(sw, in, out);
		if (set)
			sfab_mad_dec_sl2vl(d, map);
		sfab_mad_enc_sl2vl(d, map);
		return SFAB_MAD_STS_OK;
	}
	case SFAB_SMP_ATTR_VL_ARB_TABLE: {
		struct sfab_wire_vl_arb_table t;
		unsigned int block = mod >> 16, pn = mod & 0xffff;

		if (block < SFAB_VLARB_LOW_0_31 || block > SFAB_VLARB_HIGH_32_63 ||
		    pn < 1 || pn > n)
			return SFAB_MAD_STS_INVALID_FIELD;
		memcpy(&t, d, sizeof(t));
		if (set)
			vlarb_block(&sw->port[pn], block, &t, true);
		vlarb_block(&sw->port[pn], block, &t, false);
		memcpy(d, &t, sizeof(t));
		return SFAB_MAD_STS_OK;
	}
	case SFAB_SMP_ATTR_LINEAR_FWD_TABLE: {
		struct sfab_wire_lft_block b;

		if (mod >= SFAB_SW_LFT_CAP / 64)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set) {
			memcpy(&b, d, sizeof(b));
			if (sfab_sw_lft_set_block(sw, mod, &b))
				sts = SFAB_MAD_STS_INVALID_FIELD;
		}
		sfab_sw_lft_get_block(sw, mod, &b);
		memcpy(d, &b, sizeof(b));
		return sts;
	}
	case SFAB_SMP_ATTR_MCAST_FWD_TABLE: {
		struct sfab_wire_mft_block b;
		unsigned int pos = mod >> SFAB_MFT_POSITION_SHIFT;
		unsigned int block = mod & SFAB_MFT_BLOCK_MASK, i;

		if (pos >= sw->mft_chunks || block >= SFAB_SW_MFT_CAP / 32 ||
		    (mod & 0x0ffffe00))
			return SFAB_MAD_STS_INVALID_FIELD;
		memcpy(&b, d, sizeof(b));
		for (i = 0; i < 32; i++) {
			uint16_t *e = &sw->mft[(size_t)(block * 32 + i) * sw->mft_chunks];

			if (set)
				e[pos] = sfab_be16_to_cpu(b.mask[i]);
			b.mask[i] = sfab_cpu_to_be16(e[pos]);
		}
		memcpy(d, &b, sizeof(b));
		return SFAB_MAD_STS_OK;
	}
	case SFAB_SMP_ATTR_GUID_INFO: {
		if (mod != 0)
			return SFAB_MAD_STS_INVALID_FIELD;
		/* one GUID (GUIDCap 1), the port GUID, read-only */
		sfab_mad_enc_guid_info(d, &sw->cfg.node_guid, 1);
		return SFAB_MAD_STS_OK;
	}
	default:
		return SFAB_MAD_STS_UNSUP_METH_ATTR;
	}
}

/* --- SMPs: LID-routed and directed-route --------------------------------- */

static bool smp_of(const uint8_t *frame, size_t len, struct sfab_pkt_ud *u,
		   struct sfab_wire_smp *smp)
{
	return sfab_mad_parse(frame, len, u, smp);
}

/* trap 256 (Bad M_Key) from port 0 to the SM, once the SM has set LIDs */
static void trap_bad_mkey(struct sfab_sw *sw, const struct sfab_wire_smp *bad)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp trap;
	size_t n;

	if (!sw->sm_lid || !sw->lid)
		return;
	sfab_mad_trap_bad_mkey(&trap, bad, sw->lid, SFAB_NOTICE_PROD_SWITCH,
			       sw->mk.key, ++sw->trap_tid);
	n = sfab_mad_trap_pkt(buf, &trap, sw->lid, sw->sm_lid, sw->sm_sl);
	if (n)
		sfab_sw_inject(sw, 0, buf, n, NULL, 0);
}

/* the SMA answers; a DR response starts back along the return path */
static void sma_answer(struct sfab_sw *sw, unsigned int in_port,
		       const struct sfab_pkt_ud *u, struct sfab_wire_smp *smp)
{
	enum sfab_mad_mkey_act act;
	uint16_t sts;
	uint8_t out;

	if (!sfab_mad_is_request(smp->method)) {
		sw->bad_mads++;		/* responses, traps, TrapRepress: no response */
		return;
	}
	sw->sma_mads++;
	act = sfab_mad_mkey_check(&sw->mk, smp, sw->now);
	if (act == SFAB_MAD_MKEY_BAD) {
		sw->mkey_refused++;
		trap_bad_mkey(sw, smp);
		return;
	}
	sts = sma_process(sw, in_port, smp, act == SFAB_MAD_MKEY_HIDE);
	if (sts)
		sw->bad_mads++;
	sfab_mad_smp_make_resp(smp, sts);
	if (smp->mgmt_class == SFAB_MGMT_CLASS_SUBN_LID) {
		send_mad(sw, in_port, u, smp, u->slid, sw->lid, NULL, 0);
		return;
	}
	out = sfab_mad_dr_resp_port(smp, in_port, sw->cfg.nports);
	if (!out) {
		sw->bad_mads++;
		return;
	}
	send_mad(sw, in_port, u, smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE,
		 &out, 1);
}

/* re-emit a DR SMP with its updated hop pointer / return path */
static void dr_emit(struct sfab_sw *sw, unsigned int in_port,
		    const struct sfab_pkt_ud *u, const struct sfab_wire_smp *smp,
		    uint16_t dlid, uint16_t slid, uint8_t out)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_pkt_ud v = *u;
	size_t n;

	v.dlid = dlid;
	v.slid = slid;
	n = sfab_link_pkt_build_ud(buf, &v, smp, SFAB_WIRE_MAD_LEN);
	if (!n)
		return;
	sw->dr_forwarded++;
	sfab_sw_inject(sw, in_port, buf, n, out ? &out : NULL, out ? 1 : 0);
}

/* IBTA 14.2.2.2 and 14.2.2.3 at a switch, for a DR SMP that came in */
void sfab_sw_dr_forward(struct sfab_sw *sw, unsigned int p,
			const uint8_t *frame, size_t len)
{
	struct sfab_wire_smp smp;
	struct sfab_pkt_ud u;
	uint16_t dlid = 0;
	uint8_t out = 0;

	if (!smp_of(frame, len, &u, &smp)) {
		sw->bad_mads++;
		return;
	}
	switch (sfab_mad_dr_step(&smp, p, sw->cfg.nports, true, &out, &dlid)) {
	case SFAB_MAD_DR_SMA:
		sma_answer(sw, p, &u, &smp);
		return;
	case SFAB_MAD_DR_FORWARD:
		dr_emit(sw, p, &u, &smp, u.dlid, u.slid, out);
		return;
	case SFAB_MAD_DR_FORWARD_PERM:
		dr_emit(sw, p, &u, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE,
			out);
		return;
	case SFAB_MAD_DR_ROUTE:
		dr_emit(sw, p, &u, &smp, dlid, u.slid, 0);
		return;
	case SFAB_MAD_DR_DROP:
	case SFAB_MAD_DR_RETURNED:
		break;
	}
	sw->bad_mads++;
}

/* --- the PMA ----------------------------------------------------------------- */

/* a port's counters as the PMA reports them */
static void pma_cnt_of(struct sfab_mad_pma_cnt *c,
		       const struct sfab_link_counters *l,
		       const struct sfab_sw_port_cnt *sc)
{
	memset(c, 0, sizeof(*c));
	c->l = *l;
	c->xmit_wait = sc->xmit_wait;
	c->xmit_discards = sc->xmit_discards;
	c->rcv_switch_relay_errors = sc->rcv_switch_relay_errors;
	c->rcv_constraint_errors = sc->rcv_constraint_errors;
	c->xmit_constraint_errors = sc->xmit_constraint_errors;
}

static void port_cnt(const struct sfab_sw *sw, unsigned int p,
		     struct sfab_mad_pma_cnt *c)
{
	const struct sfab_sw_port *port = &sw->port[p];
	struct sfab_mad_pma_cnt now, base;

	pma_cnt_of(&now, &port->link.cnt, &port->cnt);
	pma_cnt_of(&base, &port->link_base, &port->cnt_base);
	sfab_mad_pma_delta(c, &now, &base);
}

void sfab_sw_pma_counters(const struct sfab_sw *sw, unsigned int p,
			  struct sfab_link_counters *lc,
			  struct sfab_sw_port_cnt *sc)
{
	struct sfab_mad_pma_cnt c;

	port_cnt(sw, p, &c);
	*lc = c.l;
	sc->xmit_wait = c.xmit_wait;
	sc->xmit_discards = c.xmit_discards;
	sc->rcv_switch_relay_errors = c.rcv_switch_relay_errors;
	sc->rcv_constraint_errors = c.rcv_constraint_errors;
	sc->xmit_constraint_errors = c.xmit_constraint_errors;
}

static bool pma_port_ok(void *opaque, unsigned int ps)
{
	const struct sfab_sw *sw = opaque;

	return ps <= sw->cfg.nports || ps == SFAB_PMA_ALL_PORTS;
}

/* sum over the ports PortSelect names (0xff: all) */
static void pma_read(void *opaque, unsigned int ps, struct sfab_mad_pma_cnt *c)
{
	const struct sfab_sw *sw = opaque;
	unsigned int p, lo = ps, hi = ps;

	memset(c, 0, sizeof(*c));
	if (ps == SFAB_PMA_ALL_PORTS) {
		lo = 1;
		hi = sw->cfg.nports;
	}
	for (p = lo; p <= hi; p++) {
		struct sfab_mad_pma_cnt x;

		port_cnt(sw, p, &x);
		sfab_mad_pma_add(c, &x);
	}
}

static void pma_clear(void *opaque, unsigned int ps)
{
	struct sfab_sw *sw = opaque;
	unsigned int p, lo = ps, hi = ps;

	if (ps == SFAB_PMA_ALL_PORTS) {
		lo = 1;
		hi = sw->cfg.nports;
	}
	for (p = lo; p <= hi; p++) {
		sw->port[p].link_base = sw->port[p].link.cnt;
		sw->port[p].cnt_base = sw->port[p].cnt;
	}
}

static const struct sfab_mad_pma_ops sw_pma_ops = {
	.port_ok = pma_port_ok,
	.read = pma_read,
	.clear = pma_clear,
};

/* a packet for port 0 (LID-routed): an SMP for the SMA or a GMP for the PMA */
void sfab_sw_mad_rx(struct sfab_sw *sw, unsigned int in_port,
		    const uint8_t *frame, size_t len)
{
	uint8_t mad[SFAB_WIRE_MAD_LEN];
	struct sfab_wire_mad_hdr h;
	struct sfab_wire_smp smp;
	struct sfab_pkt_ud u;
	uint16_t sts;

	if (!smp_of(frame, len, &u, &smp)) {
		sw->bad_mads++;
		return;
	}
	if (u.dqpn == SFAB_QP0) {
		if (sfab_link_pkt_vl(frame) != SFAB_VL15) {
			sw->bad_mads++;		/* QP0 traffic only on VL15 */
			return;
		}
		if (smp.mgmt_class == SFAB_MGMT_CLASS_SUBN_DR) {
			sfab_sw_dr_forward(sw, in_port, frame, len);
			return;
		}
		if (smp.mgmt_class != SFAB_MGMT_CLASS_SUBN_LID) {
			sw->bad_mads++;
			return;
		}
		sma_answer(sw, in_port, &u, &smp);
		return;
	}
	if (u.dqpn != SFAB_QP1 || u.qkey != SFAB_QP1_QKEY) {
		sw->bad_mads++;
		return;
	}
	/* port 0's table, matched as an endpoint's QP1 matches */
	if (sfab_mad_pkey_find(sw->port[0].pkeys, SFAB_SW_PKEYS, u.pkey) < 0) {
		/* P_KeyViolations saturates (IBTA 14.2.5.6) */
		if (sw->pkey_violations != 0xffff)
			sw->pkey_violations++;
		sw->bad_mads++;
		return;
	}
	memcpy(mad, u.payload, sizeof(mad));
	memcpy(&h, mad, sizeof(h));
	if (h.mgmt_class != SFAB_MGMT_CLASS_PERF || (h.method & SFAB_MAD_METHOD_RESP)) {
		sw->bad_mads++;
		return;
	}
	sw->pma_mads++;
	sts = sfab_mad_pma_process(mad, &sw_pma_ops, sw);
	if (sts)
		sw->bad_mads++;
	sfab_mad_gmp_make_resp(mad, sts);
	send_mad(sw, in_port, &u, mad, u.slid, sw->lid, NULL, 0);
}
