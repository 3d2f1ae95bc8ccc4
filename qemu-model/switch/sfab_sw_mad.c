/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab switch management port (port 0): the SMA (IBTA 14), directed-route
 * SMP forwarding (IBTA 14.2.2) and the PMA (IBTA 16.1).
 *
 * M_Key: the SMA stores the M_Key, lease and protection bits a subnet
 * manager sets but does not enforce them.
 */
#include <string.h>

#include "sfab_sw.h"
#include "../link/sfab_pkt.h"

#define SW_DEVICE_ID	0x5346		/* "SF" */
#define SW_VENDOR_ID	0x001af4	/* the HCA's PCI vendor */

bool sfab_sw_is_dr_smp(const uint8_t *frame, size_t len)
{
	struct sfab_pkt_ud u;

	return sfab_link_pkt_parse_ud(frame, len, &u) && u.dqpn == SFAB_QP0 &&
	       u.len >= SFAB_WIRE_MAD_LEN &&
	       u.payload[1] == SFAB_MGMT_CLASS_SUBN_DR;
}

/* build a UD packet around @mad and hand it to the forwarding engine */
static void send_mad(struct sfab_sw *sw, const struct sfab_pkt_ud *req,
		     const void *mad, uint16_t dlid, uint16_t slid,
		     const uint8_t *outs, unsigned int nout)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_pkt_ud u = *req;
	size_t n;

	u.dlid = dlid;
	u.slid = slid;
	u.dqpn = req->sqpn;
	u.sqpn = req->dqpn;
	if (req->dqpn == SFAB_QP1)
		u.qkey = SFAB_QP1_QKEY;
	u.vl = req->dqpn == SFAB_QP0 ? SFAB_VL15 : 0;
	n = sfab_link_pkt_build_ud(buf, &u, mad, SFAB_WIRE_MAD_LEN);
	if (n)
		sfab_sw_inject(sw, buf, n, outs, nout);
}

/* --- the SMA's attributes ------------------------------------------------ */

/* VLCap / OperationalVLs encoding of the data VLs this switch has */
static uint8_t op_vls_cap(const struct sfab_sw *sw)
{
	unsigned int n = sw->cfg.num_data_vls;

	return n >= 8 ? 4 : n >= 4 ? 3 : n >= 2 ? 2 : 1;
}

static void get_node_info(struct sfab_sw *sw, unsigned int in_port, uint8_t *d)
{
	struct sfab_wire_node_info ni;

	memset(&ni, 0, sizeof(ni));
	ni.base_version = SFAB_MAD_BASE_VERSION;
	ni.class_version = SFAB_SMP_CLASS_VERSION;
	ni.node_type = SFAB_NODE_TYPE_SWITCH;
	ni.num_ports = sw->cfg.nports;
	ni.sys_image_guid = sfab_cpu_to_be64(sw->cfg.node_guid);
	ni.node_guid = sfab_cpu_to_be64(sw->cfg.node_guid);
	ni.port_guid = sfab_cpu_to_be64(sw->cfg.node_guid);
	ni.partition_cap = sfab_cpu_to_be16(SFAB_SW_PKEYS);
	ni.device_id = sfab_cpu_to_be16(SW_DEVICE_ID);
	ni.revision = sfab_cpu_to_be32(1);
	ni.local_port_num = in_port;
	ni.vendor_id[0] = SW_VENDOR_ID >> 16;
	ni.vendor_id[1] = SW_VENDOR_ID >> 8;
	ni.vendor_id[2] = SW_VENDOR_ID & 0xff;
	memcpy(d, &ni, sizeof(ni));
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
	si.enforce_cap = sfab_cpu_to_be16(0);
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

static void get_port_info(struct sfab_sw *sw, unsigned int pn,
			  unsigned int in_port, uint8_t *d)
{
	struct sfab_sw_port *p = &sw->port[pn];
	struct sfab_wire_port_info pi;
	enum sfab_port_state st;
	enum sfab_port_phys_state phys;

	if (pn) {
		st = p->link.state;
		phys = p->link.phys;
	} else {
		st = sw->port0_state;
		phys = SFAB_PHYS_LINKUP;
	}
	memset(&pi, 0, sizeof(pi));
	pi.mkey = sfab_cpu_to_be64(sw->mkey);
	pi.gid_prefix = sfab_cpu_to_be64(sw->gid_prefix);
	pi.lid = sfab_cpu_to_be16(sw->lid);
	pi.sm_lid = sfab_cpu_to_be16(sw->sm_lid);
	pi.cap_mask = sfab_cpu_to_be32(pn ? 0 : SFAB_PI_CAP_HAS_SL_MAP |
				       SFAB_PI_CAP_HAS_EXT_SPEEDS);
	pi.local_port_num = in_port;
	pi.link_width_enabled = p->link_width_enabled;
	pi.link_width_supported = SFAB_PI_WIDTH_4X;
	pi.link_width_active = SFAB_PI_WIDTH_4X;
	pi.speed_supp_state = (SFAB_PI_SPEED_SDR << 4) | st;
	pi.phys_state_down_def = (phys << 4) | p->link_down_default;
	pi.mkeyprot_lmc = sw->lmc & 7;
	pi.speed_active_enabled = (SFAB_PI_SPEED_SDR << 4) | p->link_speed_enabled;
	pi.neighbor_mtu_smsl = (p->neighbor_mtu << 4) | (sw->sm_sl & 15);
	pi.vlcap_inittype = op_vls_cap(sw) << 4;
	pi.vl_high_limit = p->vl_high_limit;
	pi.vl_arb_high_cap = SFAB_SW_VLARB_ENTRIES;
	pi.vl_arb_low_cap = SFAB_SW_VLARB_ENTRIES;
	pi.inittypereply_mtucap = SFAB_PI_MTU_4096;
	pi.vlstall_hoqlife = (7 << 5) | 19;
	pi.opvls_enforce = p->op_vls << 4;
	pi.guid_cap = 1;
	pi.clientrereg_subnet_timeout = sw->subnet_timeout & 0x1f;
	pi.resp_time_value = 8;
	pi.local_phy_overrun_errors = p->overrun_thresholds;
	pi.max_credit_hint = sfab_cpu_to_be16(sw->cfg.vl_blocks);
	pi.speed_ext_active_supported = (SFAB_PI_SPEED_EXT_NDR << 4) | 0x0f;
	pi.speed_ext_enabled = p->link_speed_ext_enabled;
	memcpy(d, &pi, sizeof(pi));
}

static uint16_t set_port_info(struct sfab_sw *sw, unsigned int pn,
			      const uint8_t *d)
{
	struct sfab_sw_port *p = &sw->port[pn];
	struct sfab_wire_port_info pi;
	unsigned int st, phys, mtu, opvls;
	uint16_t lid;

	memcpy(&pi, d, sizeof(pi));
	st = pi.speed_supp_state & 15;
	phys = pi.phys_state_down_def >> 4;
	mtu = pi.neighbor_mtu_smsl >> 4;
	opvls = pi.opvls_enforce >> 4;
	lid = sfab_be16_to_cpu(pi.lid);

	/* validate everything first: an invalid Set changes nothing */
	if (st > SFAB_PORT_ACTIVE || st == SFAB_PORT_INIT)
		return SFAB_MAD_STS_INVALID_FIELD;
	if (phys && phys != SFAB_PHYS_POLLING && phys != SFAB_PHYS_DISABLED)
		return SFAB_MAD_STS_INVALID_FIELD;
	if (pn == 0 && lid > SFAB_LID_UCAST_MAX)
		return SFAB_MAD_STS_INVALID_FIELD;
	if (pn && mtu && (mtu < 1 || mtu > SFAB_PI_MTU_4096))
		return SFAB_MAD_STS_INVALID_FIELD;
	if (pn && opvls > op_vls_cap(sw))
		return SFAB_MAD_STS_INVALID_FIELD;
	if (st == SFAB_PORT_ARMED || st == SFAB_PORT_ACTIVE) {
		enum sfab_port_state cur = pn ? p->link.state : sw->port0_state;

		if (!(cur == st || cur == st - 1))
			return SFAB_MAD_STS_INVALID_FIELD;
	}

	if (pn == 0) {
		sw->mkey = sfab_be64_to_cpu(pi.mkey);
		sw->gid_prefix = sfab_be64_to_cpu(pi.gid_prefix);
		sw->lid = lid;
		sw->sm_lid = sfab_be16_to_cpu(pi.sm_lid);
		sw->lmc = pi.mkeyprot_lmc & 7;
		sw->sm_sl = pi.neighbor_mtu_smsl & 15;
		sw->subnet_timeout = pi.clientrereg_subnet_timeout & 0x1f;
		if (st && st != SFAB_PORT_DOWN)
			sw->port0_state = st;
		return SFAB_MAD_STS_OK;
	}
	if (pi.link_width_enabled)
		p->link_width_enabled = pi.link_width_enabled == 0xff ?
					SFAB_PI_WIDTH_4X : pi.link_width_enabled;
	if (pi.speed_active_enabled & 15)
		p->link_speed_enabled = (pi.speed_active_enabled & 15) == 15 ?
					SFAB_PI_SPEED_SDR :
					pi.speed_active_enabled & 15;
	if (pi.speed_ext_enabled & 0x1f)
		p->link_speed_ext_enabled = pi.speed_ext_enabled & 0x1f;
	if (pi.phys_state_down_def & 15)
		p->link_down_default = pi.phys_state_down_def & 15;
	if (mtu)
		p->neighbor_mtu = mtu;
	p->vl_high_limit = pi.vl_high_limit;
	if (opvls)
		p->op_vls = opvls;
	p->overrun_thresholds = pi.local_phy_overrun_errors;
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
			    struct sfab_wire_smp *smp)
{
	uint16_t attr = sfab_be16_to_cpu(smp->attr_id);
	uint32_t mod = sfab_be32_to_cpu(smp->attr_mod);
	bool set = smp->method == SFAB_MAD_METHOD_SET;
	unsigned int n = sw->cfg.nports;
	uint16_t sts = SFAB_MAD_STS_OK;
	uint8_t *d = smp->data;

	if (smp->base_version != SFAB_MAD_BASE_VERSION ||
	    smp->class_version != SFAB_SMP_CLASS_VERSION)
		return SFAB_MAD_STS_BAD_VERSION;
	if (smp->method != SFAB_MAD_METHOD_GET && !set)
		return SFAB_MAD_STS_UNSUP_METHOD;

	switch (attr) {
	case SFAB_SMP_ATTR_NODE_INFO:
		if (set)
			return SFAB_MAD_STS_UNSUP_METH_ATTR;
		memset(d, 0, SFAB_SMP_DATA_LEN);
		get_node_info(sw, in_port, d);
		return SFAB_MAD_STS_OK;
	case SFAB_SMP_ATTR_NODE_DESC:
		if (set)
			return SFAB_MAD_STS_UNSUP_METH_ATTR;
		memset(d, 0, SFAB_SMP_DATA_LEN);
		memcpy(d, sw->cfg.desc, strnlen(sw->cfg.desc, sizeof(sw->cfg.desc)));
		return SFAB_MAD_STS_OK;
	case SFAB_SMP_ATTR_SWITCH_INFO:
		if (mod)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set)
			sts = set_switch_info(sw, d);
		memset(d, 0, SFAB_SMP_DATA_LEN);
		get_switch_info(sw, d);
		return sts;
	case SFAB_SMP_ATTR_PORT_INFO:
		if (mod > n)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set)
			sts = set_port_info(sw, mod, d);
		memset(d, 0, SFAB_SMP_DATA_LEN);
		get_port_info(sw, mod, in_port, d);
		return sts;
	case SFAB_SMP_ATTR_PKEY_TABLE: {
		struct sfab_wire_pkey_table t;
		unsigned int i, block = mod & 0xffff, pn = mod >> 16;

		if (block != 0 || pn > n)
			return SFAB_MAD_STS_INVALID_FIELD;
		if (set) {
			memcpy(&t, d, sizeof(t));
			for (i = 0; i < SFAB_SW_PKEYS; i++)
				sw->pkeys[i] = sfab_be16_to_cpu(t.pkey[i]);
		}
		for (i = 0; i < SFAB_SW_PKEYS; i++)
			t.pkey[i] = sfab_cpu_to_be16(sw->pkeys[i]);
		memcpy(d, &t, sizeof(t));
		return SFAB_MAD_STS_OK;
	}
	case SFAB_SMP_ATTR_SL_TO_VL_TABLE: {
		unsigned int in = (mod >> 8) & 0xff, out = mod & 0xff, sl;
		uint8_t *map;

		if (in > n || out > n || (mod >> 16))
			return SFAB_MAD_STS_INVALID_FIELD;
		map = sfab_sw_sl2vl(sw, in, out);
		if (set)
			for (sl = 0; sl < 16; sl++)
				map[sl] = (d[sl / 2] >> (sl & 1 ? 0 : 4)) & 15;
		memset(d, 0, SFAB_SMP_DATA_LEN);
		for (sl = 0; sl < 16; sl++)
			d[sl / 2] |= map[sl] << (sl & 1 ? 0 : 4);
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
		struct sfab_wire_guid_info g;

		if (mod != 0)
			return SFAB_MAD_STS_INVALID_FIELD;
		/* one GUID (GUIDCap 1), the port GUID, read-only */
		memset(&g, 0, sizeof(g));
		g.guid[0] = sfab_cpu_to_be64(sw->cfg.node_guid);
		memcpy(d, &g, sizeof(g));
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
	if (!sfab_link_pkt_parse_ud(frame, len, u) || u->len < SFAB_WIRE_MAD_LEN)
		return false;
	memcpy(smp, u->payload, sizeof(*smp));
	return true;
}

/* a response (GetResp) to @smp with status @sts, D bit set for DR */
static void make_resp(struct sfab_wire_smp *smp, uint16_t sts)
{
	if (smp->mgmt_class == SFAB_MGMT_CLASS_SUBN_DR)
		sts |= SFAB_SMP_DIRECTION;
	smp->status = sfab_cpu_to_be16(sts);
	smp->method = SFAB_MAD_METHOD_GET_RESP;
}

/* the SMA answers; a DR response starts back along the return path */
static void sma_answer(struct sfab_sw *sw, unsigned int in_port,
		       const struct sfab_pkt_ud *u, struct sfab_wire_smp *smp)
{
	uint16_t sts;
	uint8_t out;

	if (smp->method & SFAB_MAD_METHOD_RESP) {
		sw->bad_mads++;		/* responses are not for us */
		return;
	}
	if (smp->method == SFAB_MAD_METHOD_TRAP || smp->method == 0x07) {
		sw->bad_mads++;		/* traps/TrapRepress: no response */
		return;
	}
	sw->sma_mads++;
	sts = sma_process(sw, in_port, smp);
	if (sts)
		sw->bad_mads++;
	make_resp(smp, sts);
	if (smp->mgmt_class == SFAB_MGMT_CLASS_SUBN_LID) {
		send_mad(sw, u, smp, u->slid, sw->lid, NULL, 0);
		return;
	}
	/* C14-13:1: hop_ptr = hop_cnt + 1 -> back out return_path[hop_cnt] */
	if (smp->hop_cnt) {
		smp->hop_ptr--;
		out = smp->return_path[smp->hop_ptr];
	} else {
		smp->hop_ptr = 0;
		out = in_port;
	}
	if (!out || out > sw->cfg.nports) {
		sw->bad_mads++;
		return;
	}
	send_mad(sw, u, smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE, &out, 1);
}

/* re-emit a DR SMP with its updated hop pointer / return path */
static void dr_emit(struct sfab_sw *sw, const struct sfab_pkt_ud *u,
		    const struct sfab_wire_smp *smp, uint16_t dlid, uint16_t slid,
		    uint8_t out)
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
	sfab_sw_inject(sw, buf, n, out ? &out : NULL, out ? 1 : 0);
}

/* IBTA 14.2.2.2 and 14.2.2.3 at a switch, for a DR SMP that came in */
void sfab_sw_dr_forward(struct sfab_sw *sw, unsigned int p,
			const uint8_t *frame, size_t len)
{
	struct sfab_wire_smp smp;
	struct sfab_pkt_ud u;
	unsigned int hp, hc, n = sw->cfg.nports;
	uint8_t out;

	if (!smp_of(frame, len, &u, &smp)) {
		sw->bad_mads++;
		return;
	}
	hp = smp.hop_ptr;
	hc = smp.hop_cnt;
	if (hc >= SFAB_SMP_MAX_HOPS) {
		sw->bad_mads++;
		return;
	}
	if (!(sfab_be16_to_cpu(smp.status) & SFAB_SMP_DIRECTION)) {
		/* outgoing */
		if (hc && hp == 0)
			goto drop;	/* C14-9:1: the sender did not advance */
		if (hp && hp < hc) {
			/* C14-9:2: an intermediate hop */
			out = smp.initial_path[hp + 1];
			if (!out || out > n)
				goto drop;
			smp.return_path[hp] = p;
			smp.hop_ptr = hp + 1;
			dr_emit(sw, &u, &smp, u.dlid, u.slid, out);
			return;
		}
		if (hp == hc) {
			/* C14-9:3: the end of the directed part */
			if (hc)
				smp.return_path[hp] = p;
			smp.hop_ptr = hp + 1;
			if (sfab_be16_to_cpu(smp.dr_dlid) == SFAB_LID_PERMISSIVE) {
				sma_answer(sw, p, &u, &smp);
				return;
			}
			/* then LID-routed to DrDLID */
			dr_emit(sw, &u, &smp, sfab_be16_to_cpu(smp.dr_dlid),
				u.slid, 0);
			return;
		}
		if (hp == hc + 1) {
			sma_answer(sw, p, &u, &smp);	/* C14-9:4 */
			return;
		}
		goto drop;			/* C14-9:5 */
	}
	/* returning */
	if (hp >= 2 && hp <= hc) {
		/* C14-13:2 */
		out = smp.return_path[hp - 1];
		if (!out || out > n)
			goto drop;
		smp.hop_ptr = hp - 1;
		dr_emit(sw, &u, &smp, u.dlid, u.slid, out);
		return;
	}
	if (hp == 1) {
		/* C14-13:3: the SM is behind this switch's port 0 (none here) */
		smp.hop_ptr = 0;
		if (sfab_be16_to_cpu(smp.dr_slid) == SFAB_LID_PERMISSIVE)
			goto drop;
		dr_emit(sw, &u, &smp, sfab_be16_to_cpu(smp.dr_slid), u.slid, 0);
		return;
	}
	if (hc && hp == hc + 1) {
		/* C14-13:1: came back LID-routed, the directed part starts here */
		out = smp.return_path[hc];
		if (!out || out > n)
			goto drop;
		smp.hop_ptr = hc;
		dr_emit(sw, &u, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE, out);
		return;
	}
drop:
	sw->bad_mads++;
}

/* --- the PMA ----------------------------------------------------------------- */

void sfab_sw_pma_counters(const struct sfab_sw *sw, unsigned int p,
			  struct sfab_link_counters *lc,
			  struct sfab_sw_port_cnt *sc)
{
	const struct sfab_sw_port *port = &sw->port[p];
	const uint64_t *a = (const uint64_t *)&port->link.cnt;
	const uint64_t *b = (const uint64_t *)&port->link_base;
	uint64_t *o = (uint64_t *)lc;
	unsigned int i;

	for (i = 0; i < sizeof(*lc) / sizeof(uint64_t); i++)
		o[i] = a[i] - b[i];
	sc->xmit_wait = port->cnt.xmit_wait - port->cnt_base.xmit_wait;
	sc->xmit_discards = port->cnt.xmit_discards - port->cnt_base.xmit_discards;
	sc->rcv_switch_relay_errors = port->cnt.rcv_switch_relay_errors -
				      port->cnt_base.rcv_switch_relay_errors;
}

static uint16_t sat16(uint64_t v)
{
	return v > 0xffff ? 0xffff : v;
}

static uint32_t sat32(uint64_t v)
{
	return v > 0xffffffffULL ? 0xffffffffU : v;
}

static uint8_t sat8(uint64_t v, uint64_t max)
{
	return v > max ? max : v;
}

/* sum over the ports PortSelect names (0xff: all) */
static void pma_sum(const struct sfab_sw *sw, unsigned int ps,
		    struct sfab_link_counters *lc, struct sfab_sw_port_cnt *sc)
{
	unsigned int p, i, lo = ps, hi = ps;

	memset(lc, 0, sizeof(*lc));
	memset(sc, 0, sizeof(*sc));
	if (ps == SFAB_PMA_ALL_PORTS) {
		lo = 1;
		hi = sw->cfg.nports;
	}
	for (p = lo; p <= hi; p++) {
		struct sfab_link_counters l;
		struct sfab_sw_port_cnt s;
		uint64_t *o = (uint64_t *)lc;
		const uint64_t *x = (const uint64_t *)&l;

		sfab_sw_pma_counters(sw, p, &l, &s);
		for (i = 0; i < sizeof(l) / sizeof(uint64_t); i++)
			o[i] += x[i];
		sc->xmit_wait += s.xmit_wait;
		sc->xmit_discards += s.xmit_discards;
		sc->rcv_switch_relay_errors += s.rcv_switch_relay_errors;
	}
}

static void pma_clear(struct sfab_sw *sw, unsigned int ps)
{
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

static uint16_t pma_process(struct sfab_sw *sw, uint8_t *mad)
{
	struct sfab_wire_mad_hdr h;
	uint8_t *d = mad + SFAB_PMA_DATA_OFFSET;
	struct sfab_link_counters lc;
	struct sfab_sw_port_cnt sc;
	unsigned int ps;
	uint16_t attr;

	memcpy(&h, mad, sizeof(h));
	if (h.base_version != SFAB_MAD_BASE_VERSION ||
	    h.class_version != SFAB_PMA_CLASS_VERSION)
		return SFAB_MAD_STS_BAD_VERSION;
	if (h.method != SFAB_MAD_METHOD_GET && h.method != SFAB_MAD_METHOD_SET)
		return SFAB_MAD_STS_UNSUP_METHOD;
	attr = sfab_be16_to_cpu(h.attr_id);
	ps = d[1];

	switch (attr) {
	case SFAB_PMA_ATTR_CLASS_PORT_INFO: {
		struct sfab_wire_class_port_info c;

		if (h.method != SFAB_MAD_METHOD_GET)
			return SFAB_MAD_STS_UNSUP_METH_ATTR;
		memset(&c, 0, sizeof(c));
		c.base_version = SFAB_MAD_BASE_VERSION;
		c.class_version = SFAB_PMA_CLASS_VERSION;
		c.cap_mask = sfab_cpu_to_be16(SFAB_PMA_CAP_EXT_WIDTH |
					      SFAB_PMA_CAP_XMIT_WAIT);
		c.cap_mask2_resp_time = sfab_cpu_to_be32(18);
		memset(d, 0, SFAB_WIRE_MAD_LEN - SFAB_PMA_DATA_OFFSET);
		memcpy(d, &c, sizeof(c));
		return SFAB_MAD_STS_OK;
	}
	case SFAB_PMA_ATTR_PORT_COUNTERS: {
		struct sfab_wire_port_counters pc;

		if (ps > sw->cfg.nports && ps != SFAB_PMA_ALL_PORTS)
			return SFAB_MAD_STS_INVALID_FIELD;
		memcpy(&pc, d, sizeof(pc));
		if (h.method == SFAB_MAD_METHOD_SET && sfab_be16_to_cpu(pc.counter_select))
			pma_clear(sw, ps);
		pma_sum(sw, ps, &lc, &sc);
		memset(&pc, 0, sizeof(pc));
		pc.port_select = ps;
		pc.symbol_error_counter = sfab_cpu_to_be16(sat16(lc.symbol_errors));
		pc.link_downed_counter = sat8(lc.link_downed, 0xff);
		pc.port_rcv_errors = sfab_cpu_to_be16(sat16(lc.rcv_errors));
		pc.port_rcv_switch_relay_errors =
			sfab_cpu_to_be16(sat16(sc.rcv_switch_relay_errors));
		pc.port_xmit_discards = sfab_cpu_to_be16(sat16(sc.xmit_discards));
		pc.link_overrun_errors = sat8(lc.excessive_buffer_overrun, 15);
		pc.vl15_dropped = sfab_cpu_to_be16(sat16(lc.vl15_dropped));
		pc.port_xmit_data = sfab_cpu_to_be32(sat32(lc.xmit_data / 4));
		pc.port_rcv_data = sfab_cpu_to_be32(sat32(lc.rcv_data / 4));
		pc.port_xmit_packets = sfab_cpu_to_be32(sat32(lc.xmit_pkts));
		pc.port_rcv_packets = sfab_cpu_to_be32(sat32(lc.rcv_pkts));
		pc.port_xmit_wait = sfab_cpu_to_be32(sat32(sc.xmit_wait));
		memset(d, 0, SFAB_WIRE_MAD_LEN - SFAB_PMA_DATA_OFFSET);
		memcpy(d, &pc, sizeof(pc));
		return SFAB_MAD_STS_OK;
	}
	case SFAB_PMA_ATTR_PORT_COUNTERS_EXT: {
		struct sfab_wire_port_counters_ext pe;

		if (ps > sw->cfg.nports && ps != SFAB_PMA_ALL_PORTS)
			return SFAB_MAD_STS_INVALID_FIELD;
		memcpy(&pe, d, sizeof(pe));
		if (h.method == SFAB_MAD_METHOD_SET && sfab_be16_to_cpu(pe.counter_select))
			pma_clear(sw, ps);
		pma_sum(sw, ps, &lc, &sc);
		memset(&pe, 0, sizeof(pe));
		pe.port_select = ps;
		pe.port_xmit_data = sfab_cpu_to_be64(lc.xmit_data / 4);
		pe.port_rcv_data = sfab_cpu_to_be64(lc.rcv_data / 4);
		pe.port_xmit_packets = sfab_cpu_to_be64(lc.xmit_pkts);
		pe.port_rcv_packets = sfab_cpu_to_be64(lc.rcv_pkts);
		pe.port_ucast_xmit_packets = sfab_cpu_to_be64(lc.xmit_ucast_pkts);
		pe.port_ucast_rcv_packets = sfab_cpu_to_be64(lc.rcv_ucast_pkts);
		pe.port_mcast_xmit_packets = sfab_cpu_to_be64(lc.xmit_mcast_pkts);
		pe.port_mcast_rcv_packets = sfab_cpu_to_be64(lc.rcv_mcast_pkts);
		memset(d, 0, SFAB_WIRE_MAD_LEN - SFAB_PMA_DATA_OFFSET);
		memcpy(d, &pe, sizeof(pe));
		return SFAB_MAD_STS_OK;
	}
	default:
		return SFAB_MAD_STS_UNSUP_METH_ATTR;
	}
}

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
	memcpy(mad, u.payload, sizeof(mad));
	memcpy(&h, mad, sizeof(h));
	if (h.mgmt_class != SFAB_MGMT_CLASS_PERF || (h.method & SFAB_MAD_METHOD_RESP)) {
		sw->bad_mads++;
		return;
	}
	sw->pma_mads++;
	sts = pma_process(sw, mad);
	if (sts)
		sw->bad_mads++;
	h.status = sfab_cpu_to_be16(sts);
	h.method = SFAB_MAD_METHOD_GET_RESP;
	memcpy(mad, &h, sizeof(h));
	send_mad(sw, &u, mad, u.slid, sw->lid, NULL, 0);
}
