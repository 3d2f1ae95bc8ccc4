/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab management datagrams shared by the switch and the HCA: see
 * sfab_mad.h.
 */
#include <string.h>

#include "sfab_mad.h"

/* --- headers and responses ------------------------------------------------ */

uint16_t sfab_mad_smp_check(const struct sfab_wire_smp *smp)
{
	if (smp->base_version != SFAB_MAD_BASE_VERSION ||
	    smp->class_version != SFAB_SMP_CLASS_VERSION)
		return SFAB_MAD_STS_BAD_VERSION;
	if (smp->method != SFAB_MAD_METHOD_GET &&
	    smp->method != SFAB_MAD_METHOD_SET)
		return SFAB_MAD_STS_UNSUP_METHOD;
	return SFAB_MAD_STS_OK;
}

void sfab_mad_smp_make_resp(struct sfab_wire_smp *smp, uint16_t sts)
{
	if (smp->mgmt_class == SFAB_MGMT_CLASS_SUBN_DR)
		sts |= SFAB_SMP_DIRECTION;
	smp->status = sfab_cpu_to_be16(sts);
	smp->method = SFAB_MAD_METHOD_GET_RESP;
}

void sfab_mad_gmp_make_resp(uint8_t *mad, uint16_t sts)
{
	struct sfab_wire_mad_hdr h;

	memcpy(&h, mad, sizeof(h));
	h.status = sfab_cpu_to_be16(sts);
	h.method = SFAB_MAD_METHOD_GET_RESP;
	memcpy(mad, &h, sizeof(h));
}

size_t sfab_mad_build_resp_pkt(uint8_t *buf, const struct sfab_pkt_ud *req,
			       const void *mad, uint16_t dlid, uint16_t slid)
{
	struct sfab_pkt_ud u = *req;

	u.dlid = dlid;
	u.slid = slid;
	u.dqpn = req->sqpn;
	u.sqpn = req->dqpn;
	if (req->dqpn == SFAB_QP1)
		u.qkey = SFAB_QP1_QKEY;
	u.vl = req->dqpn == SFAB_QP0 ? SFAB_VL15 : 0;
	return sfab_link_pkt_build_ud(buf, &u, mad, SFAB_WIRE_MAD_LEN);
}

bool sfab_mad_parse(const uint8_t *frame, size_t len, struct sfab_pkt_ud *u,
		    void *mad)
{
	if (!sfab_link_pkt_parse_ud(frame, len, u) || u->len < SFAB_WIRE_MAD_LEN)
		return false;
	memcpy(mad, u->payload, SFAB_WIRE_MAD_LEN);
	return true;
}

/* --- M_Key ----------------------------------------------------------------- */

#define NS_PER_S	1000000000ULL

enum sfab_mad_mkey_act sfab_mad_mkey_check(struct sfab_mad_mkey *m,
					   const struct sfab_wire_smp *smp,
					   uint64_t now_ns)
{
	bool get = smp->method == SFAB_MAD_METHOD_GET;
	bool right;

	/* a lease that ran out lifts the protection, not the key */
	if (m->lease_end && now_ns >= m->lease_end) {
		m->lease_end = 0;
		m->prot = 0;
	}
	right = !m->key || sfab_be64_to_cpu(smp->mkey) == m->key;
	if (right) {
		if (get || smp->method == SFAB_MAD_METHOD_SET ||
		    smp->method == SFAB_MAD_METHOD_TRAP_REPRESS)
			m->lease_end = 0;
		return SFAB_MAD_MKEY_OK;
	}
	if (get && m->prot < 2)
		return m->prot == 1 ? SFAB_MAD_MKEY_HIDE : SFAB_MAD_MKEY_OK;
	if (!get && smp->method != SFAB_MAD_METHOD_SET &&
	    smp->method != SFAB_MAD_METHOD_TRAP_REPRESS)
		return SFAB_MAD_MKEY_OK;	/* no request the key guards */
	if (m->violations != 0xffff)
		m->violations++;
	if (!m->lease_end && m->lease_period)
		m->lease_end = now_ns + m->lease_period * NS_PER_S;
	return SFAB_MAD_MKEY_BAD;
}

void sfab_mad_mkey_set(struct sfab_mad_mkey *m,
		       const struct sfab_mad_port_info *pi)
{
	m->key = pi->mkey;
	m->lease_period = pi->mkey_lease_period;
	m->prot = pi->mkey_prot & 3;
	m->lease_end = 0;
}

void sfab_mad_trap_init(struct sfab_wire_smp *trap, uint64_t mkey,
			uint64_t tid)
{
	memset(trap, 0, sizeof(*trap));
	trap->base_version = SFAB_MAD_BASE_VERSION;
	trap->mgmt_class = SFAB_MGMT_CLASS_SUBN_LID;
	trap->class_version = SFAB_SMP_CLASS_VERSION;
	trap->method = SFAB_MAD_METHOD_TRAP;
	trap->tid = sfab_cpu_to_be64(tid);
	trap->attr_id = sfab_cpu_to_be16(SFAB_SMP_ATTR_NOTICE);
	trap->mkey = sfab_cpu_to_be64(mkey);
}

size_t sfab_mad_trap_pkt(uint8_t *buf, const struct sfab_wire_smp *trap,
			 uint16_t slid, uint16_t sm_lid, uint8_t sm_sl)
{
	struct sfab_pkt_ud u;

	memset(&u, 0, sizeof(u));
	u.vl = SFAB_VL15;
	u.sl = sm_sl;
	u.dlid = sm_lid;
	u.slid = slid;
	u.pkey = SFAB_PKEY_DEFAULT;
	u.dqpn = SFAB_QP0;
	u.sqpn = SFAB_QP0;
	return sfab_link_pkt_build_ud(buf, &u, trap, sizeof(*trap));
}

void sfab_mad_trap_bad_mkey(struct sfab_wire_smp *trap,
			    const struct sfab_wire_smp *bad, uint16_t lid,
			    uint8_t producer, uint64_t mkey, uint64_t tid)
{
	struct sfab_wire_notice_bad_mkey n;

	sfab_mad_trap_init(trap, mkey, tid);

	memset(&n, 0, sizeof(n));
	n.generic_type = SFAB_NOTICE_GENERIC | SFAB_NOTICE_TYPE_SECURITY;
	n.producer_type[2] = producer;
	n.trap_num = sfab_cpu_to_be16(SFAB_TRAP_BAD_MKEY);
	n.issuer_lid = sfab_cpu_to_be16(lid);
	n.lid = n.issuer_lid;
	n.method = bad->method;
	n.attr_id = bad->attr_id;
	n.attr_mod = bad->attr_mod;
	n.mkey = bad->mkey;
	if (bad->mgmt_class == SFAB_MGMT_CLASS_SUBN_DR) {
		unsigned int hops = bad->hop_cnt & 0x3f;

		n.dr_slid = bad->dr_slid;
		n.dr_notice = SFAB_NOTICE_DR | hops;
		if (hops > sizeof(n.dr_return_path)) {
			hops = sizeof(n.dr_return_path);
			n.dr_notice |= SFAB_NOTICE_DR_TRUNC;
		}
		memcpy(n.dr_return_path, bad->return_path, hops);
	}
	memcpy(trap->data, &n, sizeof(n));
}

/* --- directed route ------------------------------------------------------ */

enum sfab_mad_dr_act sfab_mad_dr_step(struct sfab_wire_smp *smp,
				      unsigned int p, unsigned int n,
				      bool is_switch, uint8_t *out,
				      uint16_t *dlid)
{
	unsigned int hp = smp->hop_ptr, hc = smp->hop_cnt;

	if (hc >= SFAB_SMP_MAX_HOPS)
		return SFAB_MAD_DR_DROP;
	if (!(sfab_be16_to_cpu(smp->status) & SFAB_SMP_DIRECTION)) {
		/* outgoing */
		if (hc && hp == 0)
			return SFAB_MAD_DR_DROP; /* C14-9:1: the sender did not advance */
		if (hp && hp < hc) {
			/* C14-9:2: an intermediate hop; only a switch has one */
			if (!is_switch)
				return SFAB_MAD_DR_DROP;
			*out = smp->initial_path[hp + 1];
			if (!*out || *out > n)
				return SFAB_MAD_DR_DROP;
			smp->return_path[hp] = p;
			smp->hop_ptr = hp + 1;
			return SFAB_MAD_DR_FORWARD;
		}
		if (hp == hc) {
			/* C14-9:3: the end of the directed part */
			if (hc)
				smp->return_path[hp] = p;
			smp->hop_ptr = hp + 1;
			if (sfab_be16_to_cpu(smp->dr_dlid) == SFAB_LID_PERMISSIVE)
				return SFAB_MAD_DR_SMA;
			/* then LID-routed to DrDLID: a switch's job */
			if (!is_switch)
				return SFAB_MAD_DR_DROP;
			*dlid = sfab_be16_to_cpu(smp->dr_dlid);
			return SFAB_MAD_DR_ROUTE;
		}
		if (hp == hc + 1)
			return SFAB_MAD_DR_SMA;	/* C14-9:4 */
		return SFAB_MAD_DR_DROP;	/* C14-9:5 */
	}
	/* returning */
	if (!is_switch)
		return SFAB_MAD_DR_RETURNED;
	if (hp >= 2 && hp <= hc) {
		/* C14-13:2 */
		*out = smp->return_path[hp - 1];
		if (!*out || *out > n)
			return SFAB_MAD_DR_DROP;
		smp->hop_ptr = hp - 1;
		return SFAB_MAD_DR_FORWARD;
	}
	if (hp == 1) {
		/* C14-13:3: the SM is behind this switch's port 0 (none here) */
		smp->hop_ptr = 0;
		if (sfab_be16_to_cpu(smp->dr_slid) == SFAB_LID_PERMISSIVE)
			return SFAB_MAD_DR_DROP;
		*dlid = sfab_be16_to_cpu(smp->dr_slid);
		return SFAB_MAD_DR_ROUTE;
	}
	if (hc && hp == hc + 1) {
		/* C14-13:1: came back LID-routed, the directed part starts here */
		*out = smp->return_path[hc];
		if (!*out || *out > n)
			return SFAB_MAD_DR_DROP;
		smp->hop_ptr = hc;
		return SFAB_MAD_DR_FORWARD_PERM;
	}
	return SFAB_MAD_DR_DROP;
}

unsigned int sfab_mad_dr_resp_port(struct sfab_wire_smp *smp,
				   unsigned int in_port, unsigned int nports)
{
	unsigned int out;

	/* C14-13:1: hop_ptr = hop_cnt + 1 -> back out return_path[hop_cnt] */
	if (smp->hop_cnt) {
		smp->hop_ptr--;
		out = smp->return_path[smp->hop_ptr];
	} else {
		smp->hop_ptr = 0;
		out = in_port;
	}
	return out && out <= nports ? out : 0;
}

/* --- SMP attributes --------------------------------------------------------- */

void sfab_mad_enc_node_info(uint8_t *d, const struct sfab_mad_node *n,
			    unsigned int local_port)
{
	struct sfab_wire_node_info ni;

	memset(d, 0, SFAB_SMP_DATA_LEN);
	memset(&ni, 0, sizeof(ni));
	ni.base_version = SFAB_MAD_BASE_VERSION;
	ni.class_version = SFAB_SMP_CLASS_VERSION;
	ni.node_type = n->node_type;
	ni.num_ports = n->num_ports;
	ni.sys_image_guid = sfab_cpu_to_be64(n->sys_image_guid);
	ni.node_guid = sfab_cpu_to_be64(n->node_guid);
	ni.port_guid = sfab_cpu_to_be64(n->port_guid);
	ni.partition_cap = sfab_cpu_to_be16(n->partition_cap);
	ni.device_id = sfab_cpu_to_be16(n->device_id);
	ni.revision = sfab_cpu_to_be32(n->revision);
	ni.local_port_num = local_port;
	ni.vendor_id[0] = (n->vendor_id >> 16) & 0xff;
	ni.vendor_id[1] = (n->vendor_id >> 8) & 0xff;
	ni.vendor_id[2] = n->vendor_id & 0xff;
	memcpy(d, &ni, sizeof(ni));
}

void sfab_mad_enc_node_desc(uint8_t *d, const char *desc, size_t max)
{
	size_t n = strnlen(desc, max);

	memset(d, 0, SFAB_SMP_DATA_LEN);
	memcpy(d, desc, n < SFAB_SMP_DATA_LEN ? n : SFAB_SMP_DATA_LEN);
}

void sfab_mad_enc_port_info(uint8_t *d, const struct sfab_mad_port_info *p)
{
	struct sfab_wire_port_info pi;

	memset(d, 0, SFAB_SMP_DATA_LEN);
	memset(&pi, 0, sizeof(pi));
	pi.mkey = sfab_cpu_to_be64(p->mkey);
	pi.gid_prefix = sfab_cpu_to_be64(p->gid_prefix);
	pi.lid = sfab_cpu_to_be16(p->lid);
	pi.sm_lid = sfab_cpu_to_be16(p->sm_lid);
	pi.cap_mask = sfab_cpu_to_be32(p->cap_mask);
	pi.diag_code = sfab_cpu_to_be16(p->diag_code);
	pi.mkey_lease_period = sfab_cpu_to_be16(p->mkey_lease_period);
	pi.local_port_num = p->local_port_num;
	pi.link_width_enabled = p->link_width_enabled;
	pi.link_width_supported = p->link_width_supported;
	pi.link_width_active = p->link_width_active;
	pi.speed_supp_state = (p->link_speed_supported << 4) | (p->port_state & 15);
	pi.phys_state_down_def = (p->phys_state << 4) | (p->link_down_default & 15);
	pi.mkeyprot_lmc = (p->mkey_prot << 6) | (p->lmc & 7);
	pi.speed_active_enabled = (p->link_speed_active << 4) |
				  (p->link_speed_enabled & 15);
	pi.neighbor_mtu_smsl = (p->neighbor_mtu << 4) | (p->master_sm_sl & 15);
	pi.vlcap_inittype = (p->vl_cap << 4) | (p->init_type & 15);
	pi.vl_high_limit = p->vl_high_limit;
	pi.vl_arb_high_cap = p->vl_arb_high_cap;
	pi.vl_arb_low_cap = p->vl_arb_low_cap;
	pi.inittypereply_mtucap = (p->init_type_reply << 4) | (p->mtu_cap & 15);
	pi.vlstall_hoqlife = (p->vl_stall_count << 5) | (p->hoq_life & 0x1f);
	pi.opvls_enforce = (p->op_vls << 4) | (p->enforce & 15);
	pi.mkey_violations = sfab_cpu_to_be16(p->mkey_violations);
	pi.pkey_violations = sfab_cpu_to_be16(p->pkey_violations);
	pi.qkey_violations = sfab_cpu_to_be16(p->qkey_violations);
	pi.guid_cap = p->guid_cap;
	pi.clientrereg_subnet_timeout = (p->client_rereg ? 0x80 : 0) |
					(p->subnet_timeout & 0x1f);
	pi.resp_time_value = p->resp_time_value & 0x1f;
	pi.local_phy_overrun_errors = (p->local_phy_errors << 4) |
				      (p->overrun_errors & 15);
	pi.max_credit_hint = sfab_cpu_to_be16(p->max_credit_hint);
	pi.link_roundtrip_latency =
		sfab_cpu_to_be32(p->link_roundtrip_latency & 0xffffff);
	pi.cap_mask2 = sfab_cpu_to_be16(p->cap_mask2);
	pi.speed_ext_active_supported = (p->link_speed_ext_active << 4) |
					(p->link_speed_ext_supported & 15);
	pi.speed_ext_enabled = p->link_speed_ext_enabled & 0x1f;
	memcpy(d, &pi, sizeof(pi));
}

void sfab_mad_dec_port_info(const uint8_t *d, struct sfab_mad_port_info *p)
{
	struct sfab_wire_port_info pi;

	memcpy(&pi, d, sizeof(pi));
	memset(p, 0, sizeof(*p));
	p->mkey = sfab_be64_to_cpu(pi.mkey);
	p->gid_prefix = sfab_be64_to_cpu(pi.gid_prefix);
	p->lid = sfab_be16_to_cpu(pi.lid);
	p->sm_lid = sfab_be16_to_cpu(pi.sm_lid);
	p->cap_mask = sfab_be32_to_cpu(pi.cap_mask);
	p->diag_code = sfab_be16_to_cpu(pi.diag_code);
	p->mkey_lease_period = sfab_be16_to_cpu(pi.mkey_lease_period);
	p->local_port_num = pi.local_port_num;
	p->link_width_enabled = pi.link_width_enabled;
	p->link_width_supported = pi.link_width_supported;
	p->link_width_active = pi.link_width_active;
	p->link_speed_supported = pi.speed_supp_state >> 4;
	p->port_state = pi.speed_supp_state & 15;
	p->phys_state = pi.phys_state_down_def >> 4;
	p->link_down_default = pi.phys_state_down_def & 15;
	p->mkey_prot = pi.mkeyprot_lmc >> 6;
	p->lmc = pi.mkeyprot_lmc & 7;
	p->link_speed_active = pi.speed_active_enabled >> 4;
	p->link_speed_enabled = pi.speed_active_enabled & 15;
	p->neighbor_mtu = pi.neighbor_mtu_smsl >> 4;
	p->master_sm_sl = pi.neighbor_mtu_smsl & 15;
	p->vl_cap = pi.vlcap_inittype >> 4;
	p->init_type = pi.vlcap_inittype & 15;
	p->vl_high_limit = pi.vl_high_limit;
	p->vl_arb_high_cap = pi.vl_arb_high_cap;
	p->vl_arb_low_cap = pi.vl_arb_low_cap;
	p->init_type_reply = pi.inittypereply_mtucap >> 4;
	p->mtu_cap = pi.inittypereply_mtucap & 15;
	p->vl_stall_count = pi.vlstall_hoqlife >> 5;
	p->hoq_life = pi.vlstall_hoqlife & 0x1f;
	p->op_vls = pi.opvls_enforce >> 4;
	p->enforce = pi.opvls_enforce & 15;
	p->mkey_violations = sfab_be16_to_cpu(pi.mkey_violations);
	p->pkey_violations = sfab_be16_to_cpu(pi.pkey_violations);
	p->qkey_violations = sfab_be16_to_cpu(pi.qkey_violations);
	p->guid_cap = pi.guid_cap;
	p->client_rereg = pi.clientrereg_subnet_timeout >> 7;
	p->subnet_timeout = pi.clientrereg_subnet_timeout & 0x1f;
	p->resp_time_value = pi.resp_time_value & 0x1f;
	p->local_phy_errors = pi.local_phy_overrun_errors >> 4;
	p->overrun_errors = pi.local_phy_overrun_errors & 15;
	p->max_credit_hint = sfab_be16_to_cpu(pi.max_credit_hint);
	p->link_roundtrip_latency =
		sfab_be32_to_cpu(pi.link_roundtrip_latency) & 0xffffff;
	p->cap_mask2 = sfab_be16_to_cpu(pi.cap_mask2);
	p->link_speed_ext_active = pi.speed_ext_active_supported >> 4;
	p->link_speed_ext_supported = pi.speed_ext_active_supported & 15;
	p->link_speed_ext_enabled = pi.speed_ext_enabled & 0x1f;
}

/* the state fields of a Set; @cur is the port's current PortState */
static uint16_t port_info_check_state(const struct sfab_mad_port_info *pi,
				      enum sfab_port_state cur)
{
	unsigned int st = pi->port_state, phys = pi->phys_state;

	if (st > SFAB_PORT_ACTIVE || st == SFAB_PORT_INIT)
		return SFAB_MAD_STS_INVALID_FIELD;
	if (phys && phys != SFAB_PHYS_POLLING && phys != SFAB_PHYS_DISABLED)
		return SFAB_MAD_STS_INVALID_FIELD;
	if ((st == SFAB_PORT_ARMED || st == SFAB_PORT_ACTIVE) &&
	    !((unsigned int)cur == st || (unsigned int)cur == st - 1))
		return SFAB_MAD_STS_INVALID_FIELD;
	return SFAB_MAD_STS_OK;
}

void sfab_mad_port_cfg_init(struct sfab_mad_port_cfg *c, uint8_t vl_cap)
{
	memset(c, 0, sizeof(*c));
	c->link_width_enabled = SFAB_PI_WIDTH_4X;
	c->link_speed_enabled = SFAB_PI_SPEED_SDR;
	c->link_speed_ext_enabled = SFAB_PI_SPEED_EXT_NDR;
	c->link_down_default = SFAB_PHYS_POLLING;
	c->neighbor_mtu = SFAB_PI_MTU_4096;
	c->op_vls = vl_cap;
}

/* zero in a Set leaves a field as it is (NOP); 0xff / 15: all supported */
static void port_cfg_set(struct sfab_mad_port_cfg *c,
			 const struct sfab_mad_port_info *pi)
{
	if (pi->link_width_enabled)
		c->link_width_enabled = pi->link_width_enabled == 0xff ?
					SFAB_PI_WIDTH_4X : pi->link_width_enabled;
	if (pi->link_speed_enabled)
		c->link_speed_enabled = pi->link_speed_enabled == 15 ?
					SFAB_PI_SPEED_SDR : pi->link_speed_enabled;
	if (pi->link_speed_ext_enabled)
		c->link_speed_ext_enabled = pi->link_speed_ext_enabled;
	if (pi->link_down_default)
		c->link_down_default = pi->link_down_default;
	if (pi->neighbor_mtu)
		c->neighbor_mtu = pi->neighbor_mtu;
	c->vl_high_limit = pi->vl_high_limit;
	if (pi->op_vls)
		c->op_vls = pi->op_vls;
	c->phy_overrun = (pi->local_phy_errors << 4) | (pi->overrun_errors & 15);
}

void sfab_mad_port_cfg_get(const struct sfab_mad_port_cfg *c,
			   struct sfab_mad_port_info *pi)
{
	pi->link_width_enabled = c->link_width_enabled;
	pi->link_speed_enabled = c->link_speed_enabled;
	pi->link_speed_ext_enabled = c->link_speed_ext_enabled;
	pi->link_down_default = c->link_down_default;
	pi->neighbor_mtu = c->neighbor_mtu;
	pi->vl_high_limit = c->vl_high_limit;
	pi->op_vls = c->op_vls;
	pi->local_phy_errors = c->phy_overrun >> 4;
	pi->overrun_errors = c->phy_overrun & 15;
}

uint16_t sfab_mad_port_info_set(const uint8_t *d,
				const struct sfab_mad_port_set *ps,
				struct sfab_mad_port_info *pi,
				struct sfab_mad_port_cfg *cfg)
{
	uint16_t sts;

	sfab_mad_dec_port_info(d, pi);
	/* validate everything first: an invalid Set changes nothing */
	sts = port_info_check_state(pi, ps->cur);
	if (sts)
		return sts;
	if (cfg && (pi->neighbor_mtu > SFAB_PI_MTU_4096 ||
		    pi->op_vls > ps->vl_cap))
		return SFAB_MAD_STS_INVALID_FIELD;
	if (ps->mgmt && (pi->lid > SFAB_LID_UCAST_MAX ||
			 pi->sm_lid > SFAB_LID_UCAST_MAX))
		return SFAB_MAD_STS_INVALID_FIELD;
	if (cfg)
		port_cfg_set(cfg, pi);
	return SFAB_MAD_STS_OK;
}

void sfab_mad_enc_pkeys(uint8_t *d, const uint16_t *pkeys, unsigned int n)
{
	struct sfab_wire_pkey_table t;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < n && i < 32; i++)
		t.pkey[i] = sfab_cpu_to_be16(pkeys[i]);
	memcpy(d, &t, sizeof(t));
}

void sfab_mad_dec_pkeys(const uint8_t *d, uint16_t *pkeys, unsigned int n)
{
	struct sfab_wire_pkey_table t;
	unsigned int i;

	memcpy(&t, d, sizeof(t));
	for (i = 0; i < n && i < 32; i++)
		pkeys[i] = sfab_be16_to_cpu(t.pkey[i]);
}

void sfab_mad_enc_guid_info(uint8_t *d, const uint64_t *guids, unsigned int n)
{
	struct sfab_wire_guid_info g;
	unsigned int i;

	memset(&g, 0, sizeof(g));
	for (i = 0; i < n && i < 8; i++)
		g.guid[i] = sfab_cpu_to_be64(guids[i]);
	memcpy(d, &g, sizeof(g));
}

void sfab_mad_enc_sl2vl(uint8_t *d, const uint8_t map[16])
{
	unsigned int sl;

	memset(d, 0, SFAB_SMP_DATA_LEN);
	for (sl = 0; sl < 16; sl++)
		d[sl / 2] |= (map[sl] & 15) << (sl & 1 ? 0 : 4);
}

void sfab_mad_dec_sl2vl(const uint8_t *d, uint8_t map[16])
{
	unsigned int sl;

	for (sl = 0; sl < 16; sl++)
		map[sl] = (d[sl / 2] >> (sl & 1 ? 0 : 4)) & 15;
}

/* --- PMA ------------------------------------------------------------------ */

#define PMA_NCNT	(sizeof(struct sfab_mad_pma_cnt) / sizeof(uint64_t))

void sfab_mad_pma_delta(struct sfab_mad_pma_cnt *c,
			const struct sfab_mad_pma_cnt *now,
			const struct sfab_mad_pma_cnt *base)
{
	const uint64_t *a = (const uint64_t *)now, *b = (const uint64_t *)base;
	uint64_t *o = (uint64_t *)c;
	unsigned int i;

	for (i = 0; i < PMA_NCNT; i++)
		o[i] = a[i] - b[i];
}

void sfab_mad_pma_add(struct sfab_mad_pma_cnt *c,
		      const struct sfab_mad_pma_cnt *x)
{
	const uint64_t *a = (const uint64_t *)x;
	uint64_t *o = (uint64_t *)c;
	unsigned int i;

	for (i = 0; i < PMA_NCNT; i++)
		o[i] += a[i];
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

uint16_t sfab_mad_pma_process(uint8_t *mad, const struct sfab_mad_pma_ops *ops,
			      void *opaque)
{
	struct sfab_wire_mad_hdr h;
	uint8_t *d = mad + SFAB_PMA_DATA_OFFSET;
	struct sfab_mad_pma_cnt c;
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
		struct sfab_wire_class_port_info cpi;

		if (h.method != SFAB_MAD_METHOD_GET)
			return SFAB_MAD_STS_UNSUP_METH_ATTR;
		memset(&cpi, 0, sizeof(cpi));
		cpi.base_version = SFAB_MAD_BASE_VERSION;
		cpi.class_version = SFAB_PMA_CLASS_VERSION;
		cpi.cap_mask = sfab_cpu_to_be16(SFAB_PMA_CAP_EXT_WIDTH |
						SFAB_PMA_CAP_XMIT_WAIT);
		cpi.cap_mask2_resp_time = sfab_cpu_to_be32(18);
		memset(d, 0, SFAB_WIRE_MAD_LEN - SFAB_PMA_DATA_OFFSET);
		memcpy(d, &cpi, sizeof(cpi));
		return SFAB_MAD_STS_OK;
	}
	case SFAB_PMA_ATTR_PORT_COUNTERS: {
		struct sfab_wire_port_counters pc;

		if (!ops->port_ok(opaque, ps))
			return SFAB_MAD_STS_INVALID_FIELD;
		memcpy(&pc, d, sizeof(pc));
		if (h.method == SFAB_MAD_METHOD_SET &&
		    sfab_be16_to_cpu(pc.counter_select))
			ops->clear(opaque, ps);
		ops->read(opaque, ps, &c);
		memset(&pc, 0, sizeof(pc));
		pc.port_select = ps;
		pc.symbol_error_counter = sfab_cpu_to_be16(sat16(c.l.symbol_errors));
		pc.link_downed_counter = sat8(c.l.link_downed, 0xff);
		pc.port_rcv_errors = sfab_cpu_to_be16(sat16(c.l.rcv_errors));
		pc.port_rcv_switch_relay_errors =
			sfab_cpu_to_be16(sat16(c.rcv_switch_relay_errors));
		pc.port_xmit_discards = sfab_cpu_to_be16(sat16(c.xmit_discards));
		pc.port_xmit_constraint_errors = sat8(c.xmit_constraint_errors, 0xff);
		pc.port_rcv_constraint_errors = sat8(c.rcv_constraint_errors, 0xff);
		pc.link_overrun_errors = sat8(c.l.excessive_buffer_overrun, 15);
		pc.vl15_dropped = sfab_cpu_to_be16(sat16(c.l.vl15_dropped));
		pc.port_xmit_data = sfab_cpu_to_be32(sat32(c.l.xmit_data / 4));
		pc.port_rcv_data = sfab_cpu_to_be32(sat32(c.l.rcv_data / 4));
		pc.port_xmit_packets = sfab_cpu_to_be32(sat32(c.l.xmit_pkts));
		pc.port_rcv_packets = sfab_cpu_to_be32(sat32(c.l.rcv_pkts));
		pc.port_xmit_wait = sfab_cpu_to_be32(sat32(c.xmit_wait));
		memset(d, 0, SFAB_WIRE_MAD_LEN - SFAB_PMA_DATA_OFFSET);
		memcpy(d, &pc, sizeof(pc));
		return SFAB_MAD_STS_OK;
	}
	case SFAB_PMA_ATTR_PORT_COUNTERS_EXT: {
		struct sfab_wire_port_counters_ext pe;

		if (!ops->port_ok(opaque, ps))
			return SFAB_MAD_STS_INVALID_FIELD;
		memcpy(&pe, d, sizeof(pe));
		if (h.method == SFAB_MAD_METHOD_SET &&
		    sfab_be16_to_cpu(pe.counter_select))
			ops->clear(opaque, ps);
		ops->read(opaque, ps, &c);
		memset(&pe, 0, sizeof(pe));
		pe.port_select = ps;
		pe.port_xmit_data = sfab_cpu_to_be64(c.l.xmit_data / 4);
		pe.port_rcv_data = sfab_cpu_to_be64(c.l.rcv_data / 4);
		pe.port_xmit_packets = sfab_cpu_to_be64(c.l.xmit_pkts);
		pe.port_rcv_packets = sfab_cpu_to_be64(c.l.rcv_pkts);
		pe.port_ucast_xmit_packets = sfab_cpu_to_be64(c.l.xmit_ucast_pkts);
		pe.port_ucast_rcv_packets = sfab_cpu_to_be64(c.l.rcv_ucast_pkts);
		pe.port_mcast_xmit_packets = sfab_cpu_to_be64(c.l.xmit_mcast_pkts);
		pe.port_mcast_rcv_packets = sfab_cpu_to_be64(c.l.rcv_mcast_pkts);
		memset(d, 0, SFAB_WIRE_MAD_LEN - SFAB_PMA_DATA_OFFSET);
		memcpy(d, &pe, sizeof(pe));
		return SFAB_MAD_STS_OK;
	}
	default:
		return SFAB_MAD_STS_UNSUP_METH_ATTR;
	}
}
