/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-sma: the HCA firmware's SMA and PMA.  SMPs arrive from the
 * wire (a peer on the port's cable, LID-routed and directed-route on
 * VL15) and from the host through MAD_IFC: NodeInfo, NodeDescription,
 * PortInfo Get/Set (LID, SM LID, state transitions), P_KeyTable,
 * GUIDInfo, SLtoVLMappingTable; PMA counters; malformed MADs get the
 * right MAD status, bad MAD_IFC commands the right admin status.
 */
#include "harness.h"
#include "hca_port.h"

/* the peer sends @smp to the HCA; the one response it got back, if any */
static bool wire_smp(struct hca_cable *c, const struct sfab_wire_smp *smp,
		     uint16_t dlid, uint16_t slid, unsigned int vl,
		     struct sfab_wire_smp *resp, struct sfab_pkt_ud *u)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	unsigned int before = c->ninbox;
	size_t n = hc_mad_pkt(buf, smp, 0, dlid, slid);

	if (vl != SFAB_VL15) {
		buf[0] = (buf[0] & 0x0f) | (vl << 4);
		sfab_wire_reseal_vcrc(buf, n);
	}
	if (!hc_peer_send(c, buf, n))
		return false;
	hc_pump(c);
	if (c->ninbox != before + 1)
		return false;
	return hc_inbox_mad(c, before, resp, u);
}

/* a DR SMP from the directly attached peer: one hop, its port 1 */
static bool wire_dr(struct hca_cable *c, uint8_t method, uint16_t attr,
		    uint32_t mod, const void *data, struct sfab_wire_smp *resp)
{
	struct sfab_wire_smp smp;
	struct sfab_pkt_ud u;

	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, method, attr, mod);
	smp.hop_cnt = 1;
	smp.initial_path[1] = 1;
	smp.hop_ptr = 1;		/* C14-9:1: advanced by the sender */
	if (data)
		memcpy(smp.data, data, SFAB_SMP_DATA_LEN);
	if (!wire_smp(c, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE,
		      SFAB_VL15, resp, &u))
		return false;
	CHECK_EQ(u.vl, SFAB_VL15);
	CHECK_EQ(u.dlid, SFAB_LID_PERMISSIVE);
	CHECK_EQ(u.slid, SFAB_LID_PERMISSIVE);
	CHECK_EQ(u.dqpn, 0);
	return true;
}

/* a local SMP through MAD_IFC (DR, hop count 0); the MAD status or -1 */
static int ifc_smp(struct hca_cable *c, uint8_t cls, uint8_t method,
		   uint16_t attr, uint32_t mod, const void *data,
		   struct sfab_wire_smp *resp)
{
	struct sfab_wire_smp smp;
	uint32_t has = 0;

	hc_smp_init(&smp, cls, method, attr, mod);
	if (data)
		memcpy(smp.data, data, SFAB_SMP_DATA_LEN);
	if (hc_mad_ifc(c, &smp, resp, 1, 0, &has) != SFAB_AQ_STS_OK || has != 1)
		return -1;
	CHECK_EQ(resp->method, SFAB_MAD_METHOD_GET_RESP);
	return sfab_be16_to_cpu(resp->status) & ~SFAB_SMP_DIRECTION;
}

static void get_pi(struct hca_cable *c, struct sfab_wire_port_info *pi)
{
	struct sfab_wire_smp r;

	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_PORT_INFO, 1, NULL, &r), 0);
	memcpy(pi, r.data, sizeof(*pi));
}

TEST(node_info_from_wire)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_node_info ni;
	struct sfab_wire_smp r;

	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
			NULL, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	CHECK_EQ(sfab_be64_to_cpu(r.tid), 0x5678);
	CHECK_EQ(r.hop_cnt, 1);
	CHECK_EQ(r.hop_ptr, 1);		/* the requester decrements it to 0 */
	CHECK_EQ(r.return_path[1], 1);
	memcpy(&ni, r.data, sizeof(ni));
	CHECK_EQ(ni.base_version, 1);
	CHECK_EQ(ni.class_version, 1);
	CHECK_EQ(ni.node_type, SFAB_NODE_TYPE_CA);
	CHECK_EQ(ni.num_ports, 1);
	CHECK_EQ(sfab_be64_to_cpu(ni.node_guid), HOST_NODE_GUID);
	CHECK_EQ(sfab_be64_to_cpu(ni.sys_image_guid), HOST_NODE_GUID);
	CHECK_EQ(sfab_be64_to_cpu(ni.port_guid), HOST_NODE_GUID + 1);
	CHECK_EQ(sfab_be16_to_cpu(ni.partition_cap), SFAB_PORT_PKEY_TBL_LEN);
	CHECK_EQ(sfab_be16_to_cpu(ni.device_id), 0x10f0);
	CHECK_EQ(ni.vendor_id[0], 0x00);
	CHECK_EQ(ni.vendor_id[1], 0x1a);
	CHECK_EQ(ni.vendor_id[2], 0xf4);
	CHECK_EQ(ni.local_port_num, 1);
	CHECK_EQ(c->h->e->stats.sma_mads, 1);
	hc_free(c);
}

TEST(node_description)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_smp r;
	char want[64];

	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_DESC, 0,
			NULL, &r));
	snprintf(want, sizeof(want), "sfab HCA %016llx",
		 (unsigned long long)HOST_NODE_GUID);
	CHECK(!memcmp(r.data, want, strlen(want) + 1));
	sfab_engine_set_node_desc(c->h->e, "node7 HCA-1");
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_NODE_DESC, 0, NULL, &r), 0);
	CHECK(!memcmp(r.data, "node7 HCA-1", 12));
	CHECK(all_zero_bytes(r.data + 12, 52));
	/* read-only */
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_SET,
			 SFAB_SMP_ATTR_NODE_DESC, 0, NULL, &r),
		 SFAB_MAD_STS_UNSUP_METH_ATTR);
	hc_free(c);
}

TEST(port_info_get)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_port_info pi;

	get_pi(c, &pi);
	CHECK_EQ(sfab_be16_to_cpu(pi.lid), 0);
	CHECK_EQ(sfab_be64_to_cpu(pi.gid_prefix), SFAB_ENGINE_SUBNET_PREFIX);
	CHECK_EQ(pi.speed_supp_state & 15, SFAB_PORT_INIT);
	CHECK_EQ(pi.phys_state_down_def >> 4, SFAB_PHYS_LINKUP);
	CHECK_EQ(pi.local_port_num, 1);
	CHECK_EQ(pi.link_width_active, SFAB_PI_WIDTH_4X);
	CHECK_EQ(pi.link_width_supported, SFAB_PI_WIDTH_4X);
	CHECK_EQ(pi.speed_ext_active_supported >> 4, SFAB_PI_SPEED_EXT_NDR);
	CHECK_EQ(pi.inittypereply_mtucap & 15, SFAB_PI_MTU_4096);
	CHECK_EQ(pi.vlcap_inittype >> 4, 3);		/* 4 data VLs */
	CHECK_EQ(pi.guid_cap, 1);
	CHECK(sfab_be32_to_cpu(pi.cap_mask) & SFAB_PI_CAP_HAS_EXT_SPEEDS);
	CHECK(sfab_be32_to_cpu(pi.cap_mask) & SFAB_PI_CAP_HAS_SL_MAP);
	/* else an SM never sets ClientReregister (SFAB_AENQ_CLIENT_REREG below) */
	CHECK(sfab_be32_to_cpu(pi.cap_mask) & SFAB_PI_CAP_HAS_CLIENT_REREG);
	/* attribute modifier 0: the port the SMP came in on; 2: no such port */
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_PORT_INFO, 0, NULL,
			 &(struct sfab_wire_smp){ 0 }), 0);
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_PORT_INFO, 2, NULL,
			 &(struct sfab_wire_smp){ 0 }), SFAB_MAD_STS_INVALID_FIELD);
	/* bit 31: the SM supports extended speeds (opensm), not a port */
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_PORT_INFO, 0x80000001, NULL,
			 &(struct sfab_wire_smp){ 0 }), 0);
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_PORT_INFO, 0x80000002, NULL,
			 &(struct sfab_wire_smp){ 0 }), SFAB_MAD_STS_INVALID_FIELD);
	hc_free(c);
}

TEST(port_info_set_lid_and_lid_routed)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_port_info pi;
	struct sfab_aenq_entry ev;
	struct sfab_port_attr a;
	struct sfab_wire_smp smp, r;
	struct sfab_pkt_ud u;

	get_pi(c, &pi);
	pi.lid = sfab_cpu_to_be16(5);
	pi.sm_lid = sfab_cpu_to_be16(1);
	pi.mkey = sfab_cpu_to_be64(0x1122334455667788ULL);
	pi.neighbor_mtu_smsl = (SFAB_PI_MTU_4096 << 4) | 3;
	pi.clientrereg_subnet_timeout = 0x80 | 18;
	pi.speed_supp_state &= 0xf0;			/* PortState NOP */
	pi.phys_state_down_def &= 0x0f;
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1,
			&pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	memcpy(&pi, r.data, sizeof(pi));
	CHECK_EQ(sfab_be16_to_cpu(pi.lid), 5);
	CHECK_EQ(sfab_be16_to_cpu(pi.sm_lid), 1);
	CHECK_EQ(sfab_be64_to_cpu(pi.mkey), 0x1122334455667788ULL);
	CHECK_EQ(pi.neighbor_mtu_smsl & 15, 3);
	CHECK_EQ(pi.clientrereg_subnet_timeout, 18);	/* the bit reads 0 */

	REQUIRE(hc_event(c, SFAB_AENQ_LID_CHANGE, &ev));
	CHECK_EQ(sfab_le32_to_cpu(ev.data0), 1);
	CHECK_EQ(sfab_le64_to_cpu(ev.data1), 5);
	REQUIRE(hc_event(c, SFAB_AENQ_SM_CHANGE, &ev));
	CHECK_EQ(sfab_le64_to_cpu(ev.data1), 1);
	REQUIRE(hc_event(c, SFAB_AENQ_CLIENT_REREG, &ev));
	CHECK_EQ(sfab_le32_to_cpu(ev.data0), 1);

	CHECK_EQ(hc_query_port(c, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_le16_to_cpu(a.lid), 5);
	CHECK_EQ(sfab_le16_to_cpu(a.sm_lid), 1);
	CHECK_EQ(a.sm_sl, 3);
	CHECK_EQ(a.subnet_timeout, 18);

	/* LID-routed now: to LID 5 answered from LID 5, to LID 7 ignored */
	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	REQUIRE(wire_smp(c, &smp, 5, 1, SFAB_VL15, &r, &u));
	CHECK_EQ(sfab_be16_to_cpu(r.status), 0);
	CHECK_EQ(u.dlid, 1);
	CHECK_EQ(u.slid, 5);
	CHECK_EQ(r.data[2], SFAB_NODE_TYPE_CA);
	CHECK(!wire_smp(c, &smp, 7, 1, SFAB_VL15, &r, &u));
	CHECK(c->h->e->stats.rx_dropped >= 1);
	/* QP0 traffic only on VL15 */
	CHECK(!wire_smp(c, &smp, 5, 1, 0, &r, &u));
	hc_free(c);
}

TEST(port_state_transitions)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_port_info pi, want;
	struct sfab_aenq_entry ev;
	struct sfab_wire_smp r;

	get_pi(c, &want);
	want.phys_state_down_def &= 0x0f;
	pi = want;
	pi.speed_supp_state = (pi.speed_supp_state & 0xf0) | SFAB_PORT_ACTIVE;
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status) & 0x7fff, SFAB_MAD_STS_INVALID_FIELD);
	pi.speed_supp_state = (pi.speed_supp_state & 0xf0) | SFAB_PORT_INIT;
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status) & 0x7fff, SFAB_MAD_STS_INVALID_FIELD);
	pi = want;
	pi.speed_supp_state &= 0xf0;
	pi.phys_state_down_def = (SFAB_PHYS_LINKUP << 4);	/* not settable */
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status) & 0x7fff, SFAB_MAD_STS_INVALID_FIELD);
	CHECK_EQ(hc_count_events(c, SFAB_AENQ_PORT_CHANGE), 0);

	pi = want;
	pi.speed_supp_state = (pi.speed_supp_state & 0xf0) | SFAB_PORT_ARMED;
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status) & 0x7fff, 0);
	memcpy(&pi, r.data, sizeof(pi));
	CHECK_EQ(pi.speed_supp_state & 15, SFAB_PORT_ARMED);
	REQUIRE(hc_event(c, SFAB_AENQ_PORT_CHANGE, &ev));
	CHECK_EQ(sfab_le64_to_cpu(ev.data1),
		 port_change_data(SFAB_PORT_ARMED, SFAB_PHYS_LINKUP));

	pi = want;
	pi.speed_supp_state = (pi.speed_supp_state & 0xf0) | SFAB_PORT_ACTIVE;
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status) & 0x7fff, 0);
	REQUIRE(hc_event(c, SFAB_AENQ_PORT_CHANGE, &ev));
	CHECK_EQ(sfab_le64_to_cpu(ev.data1),
		 port_change_data(SFAB_PORT_ACTIVE, SFAB_PHYS_LINKUP));
	CHECK_EQ(c->h->e->port.link.state, SFAB_PORT_ACTIVE);

	/* Down: the link retrains and comes back in Init */
	pi = want;
	pi.speed_supp_state = (pi.speed_supp_state & 0xf0) | SFAB_PORT_DOWN;
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
			 SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r), 0);
	hc_pump(c);
	CHECK_EQ(c->h->e->port.link.state, SFAB_PORT_INIT);
	CHECK_EQ(c->h->e->port.link.cnt.link_downed, 1);
	hc_free(c);
}

TEST(capability_is_sm_from_host_only)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_port_info pi;
	struct sfab_port_attr a;
	struct sfab_wire_smp r;

	get_pi(c, &pi);
	pi.cap_mask = sfab_cpu_to_be32(sfab_be32_to_cpu(pi.cap_mask) |
				       SFAB_PI_CAP_IS_SM);
	pi.phys_state_down_def &= 0x0f;
	pi.speed_supp_state &= 0xf0;
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r));
	memcpy(&pi, r.data, sizeof(pi));
	CHECK(!(sfab_be32_to_cpu(pi.cap_mask) & SFAB_PI_CAP_IS_SM));
	pi.phys_state_down_def &= 0x0f;
	pi.speed_supp_state &= 0xf0;
	pi.cap_mask = sfab_cpu_to_be32(sfab_be32_to_cpu(pi.cap_mask) |
				       SFAB_PI_CAP_IS_SM);
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
			 SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r), 0);
	CHECK_EQ(hc_query_port(c, &a), SFAB_AQ_STS_OK);
	CHECK(sfab_le32_to_cpu(a.cap_flags) & SFAB_PI_CAP_IS_SM);
	hc_free(c);
}

/* the host sets CapabilityMask bit @bit (or clears it); the MAD status */
static int ifc_cap(struct hca_cable *c, uint32_t bit, bool on)
{
	struct sfab_wire_port_info pi;
	struct sfab_wire_smp r;
	uint32_t cap;

	get_pi(c, &pi);
	cap = sfab_be32_to_cpu(pi.cap_mask);
	pi.cap_mask = sfab_cpu_to_be32(on ? cap | bit : cap & ~bit);
	pi.phys_state_down_def &= 0x0f;
	pi.speed_supp_state &= 0xf0;
	return ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
		       SFAB_SMP_ATTR_PORT_INFO, 1, &pi, &r);
}

/*
 * The host's agents (here an SRP target's device management agent, as
 * ib_srpt sets it) change CapabilityMask; each change goes to the SM as
 * a Trap 144, LID-routed on VL15 to QP0 at the SM's LID, once the SM has
 * given the port a LID.  Bits the host does not own stay as they are.
 */
TEST(capability_change_traps_the_sm)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_port_info pi;
	struct sfab_wire_notice n;
	struct sfab_wire_smp r, t;
	struct sfab_pkt_ud u;
	unsigned int before;
	uint32_t cap0;

	get_pi(c, &pi);
	cap0 = sfab_be32_to_cpu(pi.cap_mask);
	CHECK(cap0 & SFAB_PI_CAP_HAS_TRAP);
	CHECK(cap0 & SFAB_PI_CAP_HAS_CAP_MASK_NOTICE);
	CHECK(!(cap0 & SFAB_PI_CAP_HAS_DEV_MGMT));

	/* no SM LID yet: the bit changes, no trap */
	before = c->ninbox;
	CHECK_EQ(ifc_cap(c, SFAB_PI_CAP_HAS_DEV_MGMT, true), 0);
	hc_pump(c);
	CHECK_EQ(c->ninbox, before);
	CHECK_EQ(c->h->e->port.trap_tid, 0);
	get_pi(c, &pi);
	CHECK(sfab_be32_to_cpu(pi.cap_mask) & SFAB_PI_CAP_HAS_DEV_MGMT);

	/* the SM (LID 1) gives the port LID 5, SL 3 */
	pi.lid = sfab_cpu_to_be16(5);
	pi.sm_lid = sfab_cpu_to_be16(1);
	pi.neighbor_mtu_smsl = (SFAB_PI_MTU_4096 << 4) | 3;
	pi.speed_supp_state &= 0xf0;
	pi.phys_state_down_def &= 0x0f;
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PORT_INFO, 1,
			&pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);

	/* the device management agent goes away: Trap 144 */
	before = c->ninbox;
	CHECK_EQ(ifc_cap(c, SFAB_PI_CAP_HAS_DEV_MGMT, false), 0);
	hc_pump(c);
	REQUIRE(c->ninbox == before + 1);
	REQUIRE(hc_inbox_mad(c, before, &t, &u));
	CHECK_EQ(u.vl, SFAB_VL15);
	CHECK_EQ(u.sl, 3);
	CHECK_EQ(u.dlid, 1);
	CHECK_EQ(u.slid, 5);
	CHECK_EQ(u.dqpn, SFAB_QP0);
	CHECK_EQ(u.sqpn, SFAB_QP0);
	CHECK_EQ(t.mgmt_class, SFAB_MGMT_CLASS_SUBN_LID);
	CHECK_EQ(t.method, SFAB_MAD_METHOD_TRAP);
	CHECK_EQ(sfab_be16_to_cpu(t.attr_id), SFAB_SMP_ATTR_NOTICE);
	memcpy(&n, t.data, sizeof(n));
	CHECK_EQ(n.generic_type, 0x84);
	CHECK_EQ(n.producer_type[2], SFAB_NOTICE_PROD_CA);
	CHECK_EQ(sfab_be16_to_cpu(n.trap_num), 144);
	CHECK_EQ(sfab_be16_to_cpu(n.issuer_lid), 5);
	CHECK_EQ(sfab_be16_to_cpu(n.lid), 5);
	CHECK_EQ(sfab_be32_to_cpu(n.new_cap_mask), cap0);
	/* 16 bytes in: CapabilityMask where opensm's ntc_144 has it */
	CHECK_EQ(sfab_be32_to_cpu(*(__be32 *)&t.data[16]), cap0);

	/* no change, no trap; a second change, a new TID */
	before = c->ninbox;
	CHECK_EQ(ifc_cap(c, SFAB_PI_CAP_HAS_DEV_MGMT, false), 0);
	hc_pump(c);
	CHECK_EQ(c->ninbox, before);
	CHECK_EQ(ifc_cap(c, SFAB_PI_CAP_HAS_DEV_MGMT, true), 0);
	hc_pump(c);
	REQUIRE(c->ninbox == before + 1);
	REQUIRE(hc_inbox_mad(c, before, &r, &u));
	CHECK(r.tid != t.tid);
	memcpy(&n, r.data, sizeof(n));
	CHECK_EQ(sfab_be32_to_cpu(n.new_cap_mask),
		 cap0 | SFAB_PI_CAP_HAS_DEV_MGMT);
	CHECK_EQ(c->h->e->port.trap_tid, 2);

	/* not the host's bits: SL mapping, trap support */
	before = c->ninbox;
	CHECK_EQ(ifc_cap(c, SFAB_PI_CAP_HAS_SL_MAP | SFAB_PI_CAP_HAS_TRAP,
			 false), 0);
	hc_pump(c);
	CHECK_EQ(c->ninbox, before);
	get_pi(c, &pi);
	CHECK_EQ(sfab_be32_to_cpu(pi.cap_mask), cap0 | SFAB_PI_CAP_HAS_DEV_MGMT);
	hc_free(c);
}

TEST(pkey_table)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_pkey_table t;
	struct sfab_aenq_entry ev;
	struct sfab_wire_smp r;

	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_PKEY_TABLE, 0,
			NULL, &r));
	memcpy(&t, r.data, sizeof(t));
	CHECK_EQ(sfab_be16_to_cpu(t.pkey[0]), 0xffff);
	CHECK_EQ(t.pkey[1], 0);
	t.pkey[0] = sfab_cpu_to_be16(0x8001);
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PKEY_TABLE, 0,
			&t, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	memcpy(&t, r.data, sizeof(t));
	CHECK_EQ(sfab_be16_to_cpu(t.pkey[0]), 0x8001);
	REQUIRE(hc_event(c, SFAB_AENQ_PKEY_CHANGE, &ev));
	CHECK_EQ(sfab_le32_to_cpu(ev.data0), 1);
	/* the same table again: no event */
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_PKEY_TABLE, 0,
			&t, &r));
	CHECK_EQ(hc_count_events(c, SFAB_AENQ_PKEY_CHANGE), 0);
	/* only block 0 exists */
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_PKEY_TABLE, 1, NULL, &r),
		 SFAB_MAD_STS_INVALID_FIELD);
	hc_free(c);
}

TEST(guid_info_and_sl2vl)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_guid_info g;
	struct sfab_wire_smp r;
	uint8_t map[SFAB_SMP_DATA_LEN] = { 0x01, 0x23, 0x30, 0x21 };

	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_GUID_INFO, 0,
			NULL, &r));
	memcpy(&g, r.data, sizeof(g));
	CHECK_EQ(sfab_be64_to_cpu(g.guid[0]), HOST_NODE_GUID + 1);
	CHECK_EQ(g.guid[1], 0);
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_GUID_INFO, 1, NULL, &r),
		 SFAB_MAD_STS_INVALID_FIELD);

	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_SL_TO_VL_TABLE, 0,
			NULL, &r));
	CHECK(all_zero_bytes(r.data, 8));
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_SET, SFAB_SMP_ATTR_SL_TO_VL_TABLE, 0,
			map, &r));
	CHECK(!memcmp(r.data, map, 8));
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_SL_TO_VL_TABLE, 0, NULL, &r), 0);
	CHECK(!memcmp(r.data, map, 8));
	CHECK_EQ(c->h->e->port.sl2vl[3], 3);
	CHECK_EQ(c->h->e->port.sl2vl[4], 3);
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 SFAB_SMP_ATTR_SL_TO_VL_TABLE, 0x10000, NULL, &r),
		 SFAB_MAD_STS_INVALID_FIELD);
	hc_free(c);
}

TEST(bad_mads_status)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_smp smp, r;
	uint32_t has;

	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	smp.base_version = 2;
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 1);
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_MAD_STS_BAD_VERSION);
	smp.base_version = 1;
	smp.class_version = 7;
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_MAD_STS_BAD_VERSION);
	smp.class_version = 1;
	smp.method = 0x03;			/* Send */
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_MAD_STS_UNSUP_METHOD);
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
			 0x00ff, 0, NULL, &r), SFAB_MAD_STS_UNSUP_METH_ATTR);
	CHECK_EQ(ifc_smp(c, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
			 SFAB_SMP_ATTR_NODE_INFO, 0, NULL, &r),
		 SFAB_MAD_STS_UNSUP_METH_ATTR);
	/* the same from the wire, DR: the status carries the D bit */
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_GET, 0x00ff, 0, NULL, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status),
		 SFAB_SMP_DIRECTION | SFAB_MAD_STS_UNSUP_METH_ATTR);
	CHECK(c->h->e->stats.bad_mads >= 6);

	/* responses, traps and other classes: no answer */
	smp.method = SFAB_MAD_METHOD_GET_RESP;
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 0);
	CHECK_EQ(r.base_version, 0xee);		/* nothing written */
	smp.method = SFAB_MAD_METHOD_TRAP;
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 0);
	smp.method = SFAB_MAD_METHOD_GET;
	smp.mgmt_class = 0x03;			/* SA */
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 0);
	/* a DR SMP beyond the end of its path is not for this SMA */
	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	smp.hop_cnt = 2;
	smp.hop_ptr = 1;
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 0);
	hc_free(c);
}

TEST(wire_traffic_for_the_host)
{
	struct hca_cable *c = hc_trained();
	uint8_t mad[SFAB_WIRE_MAD_LEN], buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp, r;
	uint64_t before;

	before = c->h->e->stats.host_mads_dropped;
	/* an SMP response and a trap: the SM's, on the host (no QP0 yet) */
	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET_RESP,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	CHECK(!wire_smp(c, &smp, SFAB_LID_PERMISSIVE, 1, SFAB_VL15, &r, NULL));
	smp.method = SFAB_MAD_METHOD_TRAP;
	CHECK(!wire_smp(c, &smp, SFAB_LID_PERMISSIVE, 1, SFAB_VL15, &r, NULL));
	/* a returning DR SMP: for a requester on this node */
	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET_RESP,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	smp.status = sfab_cpu_to_be16(SFAB_SMP_DIRECTION);
	smp.hop_cnt = 1;
	smp.hop_ptr = 1;
	CHECK(!wire_smp(c, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE,
			SFAB_VL15, &r, NULL));
	CHECK_EQ(c->h->e->stats.host_mads_dropped, before + 3);

	/* a GMP of another class on QP1 (Active needed for VL0) */
	hc_peer_activate(c);
	c->h->e->port.link.state = SFAB_PORT_ACTIVE;
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, 0x0001, 1);
	mad[1] = 0x03;				/* SA */
	REQUIRE(hc_peer_send(c, buf, hc_mad_pkt(buf, mad, 1, SFAB_LID_PERMISSIVE, 1)));
	hc_pump(c);
	CHECK_EQ(c->ninbox, 0);
	CHECK_EQ(c->h->e->stats.host_mads_dropped, before + 4);
	hc_free(c);
}

TEST(pma_local)
{
	struct hca_cable *c = hc_trained();
	uint8_t mad[SFAB_WIRE_MAD_LEN], resp[SFAB_WIRE_MAD_LEN];
	struct sfab_wire_class_port_info cpi;
	struct sfab_wire_port_counters_ext pe;
	struct sfab_wire_port_counters pc;
	uint32_t has;

	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_CLASS_PORT_INFO, 0);
	CHECK_EQ(hc_mad_ifc(c, mad, resp, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 1);
	CHECK_EQ(resp[3], SFAB_MAD_METHOD_GET_RESP);
	memcpy(&cpi, resp + SFAB_PMA_DATA_OFFSET, sizeof(cpi));
	CHECK(sfab_be16_to_cpu(cpi.cap_mask) & SFAB_PMA_CAP_XMIT_WAIT);

	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS_EXT, 1);
	CHECK_EQ(hc_mad_ifc(c, mad, resp, 1, 0, &has), SFAB_AQ_STS_OK);
	memcpy(&pe, resp + SFAB_PMA_DATA_OFFSET, sizeof(pe));
	CHECK_EQ(pe.port_select, 1);
	CHECK_EQ(resp[4] | resp[5], 0);
	CHECK_EQ(sfab_be64_to_cpu(pe.port_xmit_packets), 0);

	/* a DR SMP from the wire: one packet in, one out */
	REQUIRE(wire_dr(c, SFAB_MAD_METHOD_GET, SFAB_SMP_ATTR_NODE_INFO, 0,
			NULL, (struct sfab_wire_smp *)resp));
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS_EXT, 1);
	CHECK_EQ(hc_mad_ifc(c, mad, resp, 1, 0, &has), SFAB_AQ_STS_OK);
	memcpy(&pe, resp + SFAB_PMA_DATA_OFFSET, sizeof(pe));
	CHECK_EQ(sfab_be64_to_cpu(pe.port_xmit_packets), 1);
	CHECK_EQ(sfab_be64_to_cpu(pe.port_rcv_packets), 1);
	/* LRH through ICRC, in words: the VCRC is not counted */
	CHECK_EQ(sfab_be64_to_cpu(pe.port_xmit_data),
		 (SFAB_WIRE_UD_MAD_PKT_LEN - SFAB_WIRE_VCRC_LEN) / 4);

	/* Set with CounterSelect clears */
	hc_pma_init(mad, SFAB_MAD_METHOD_SET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	mad[SFAB_PMA_DATA_OFFSET + 2] = 0xff;
	mad[SFAB_PMA_DATA_OFFSET + 3] = 0xff;
	CHECK_EQ(hc_mad_ifc(c, mad, resp, 1, 0, &has), SFAB_AQ_STS_OK);
	memcpy(&pc, resp + SFAB_PMA_DATA_OFFSET, sizeof(pc));
	CHECK_EQ(sfab_be32_to_cpu(pc.port_xmit_packets), 0);
	CHECK_EQ(sfab_be32_to_cpu(pc.port_rcv_packets), 0);

	/* PortSelect 2: no such port; class version 2: bad version */
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 2);
	CHECK_EQ(hc_mad_ifc(c, mad, resp, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 1);
	CHECK_EQ(resp[4] << 8 | resp[5], SFAB_MAD_STS_INVALID_FIELD);
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	mad[2] = 2;
	CHECK_EQ(hc_mad_ifc(c, mad, resp, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(resp[4] << 8 | resp[5], SFAB_MAD_STS_BAD_VERSION);
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, 0x0077, 1);
	CHECK_EQ(hc_mad_ifc(c, mad, resp, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(resp[4] << 8 | resp[5], SFAB_MAD_STS_UNSUP_METH_ATTR);
	hc_free(c);
}

TEST(pma_from_wire)
{
	struct hca_cable *c = hc_trained();
	uint8_t mad[SFAB_WIRE_MAD_LEN], buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_port_counters pc;
	struct sfab_pkt_ud u;

	hc_peer_activate(c);
	REQUIRE(sfab_link_set_state(&c->h->e->port.link, SFAB_PORT_ARMED) == 0);
	REQUIRE(sfab_link_set_state(&c->h->e->port.link, SFAB_PORT_ACTIVE) == 0);
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	REQUIRE(hc_peer_send(c, buf, hc_mad_pkt(buf, mad, 1, SFAB_LID_PERMISSIVE, 9)));
	hc_pump(c);
	REQUIRE(c->ninbox == 1);
	REQUIRE(hc_inbox_mad(c, 0, mad, &u));
	CHECK_EQ(u.vl, 0);
	CHECK_EQ(u.dqpn, 1);
	CHECK_EQ(u.sqpn, 1);
	CHECK_EQ(u.qkey, SFAB_QP1_QKEY);
	CHECK_EQ(u.dlid, 9);
	CHECK_EQ(mad[3], SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(mad[4] | mad[5], 0);
	memcpy(&pc, mad + SFAB_PMA_DATA_OFFSET, sizeof(pc));
	CHECK_EQ(pc.port_select, 1);
	CHECK_EQ(sfab_be32_to_cpu(pc.port_rcv_packets), 1);
	CHECK_EQ(c->h->e->stats.pma_mads, 1);
	/* a wrong Q_Key: dropped */
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	hc_mad_pkt(buf, mad, 1, SFAB_LID_PERMISSIVE, 9);
	{
		size_t n = hc_mad_pkt(buf, mad, 1, SFAB_LID_PERMISSIVE, 9);

		buf[SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN] ^= 0x40;
		sfab_wire_seal(buf, n);
		REQUIRE(hc_peer_send(c, buf, n));
	}
	hc_pump(c);
	CHECK_EQ(c->ninbox, 1);
	hc_free(c);
}

TEST(mad_ifc_admin_errors)
{
	struct hca_cable *c = hc_new(true);
	struct sfab_wire_smp smp, r;
	struct sfab_aq_cmd cmd;
	struct fake_host *h;
	uint32_t has = 7;

	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	/* no cable: the SMA still answers a local SMP */
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 1);
	CHECK_EQ(r.data[2], SFAB_NODE_TYPE_CA);
	CHECK_EQ(r.hop_ptr, 0);
	CHECK_EQ(sfab_be16_to_cpu(r.status), SFAB_SMP_DIRECTION);
	/* as ib_mad hands a local DR SMP over: hop pointer already advanced */
	smp.hop_ptr = 1;
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 1);
	CHECK_EQ(r.hop_ptr, 0);
	CHECK_EQ(r.data[2], SFAB_NODE_TYPE_CA);
	smp.hop_ptr = 0;
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 0, 0, &has), SFAB_AQ_STS_BAD_PARAM);
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 2, 0, &has), SFAB_AQ_STS_BAD_PARAM);

	h = c->h;
	cmd = cmd_new(SFAB_AQ_MAD_IFC);
	cmd.u.mad_ifc.in_addr = sfab_cpu_to_le64(h->scratch);
	cmd.u.mad_ifc.out_addr = sfab_cpu_to_le64(h->scratch + 1024);
	cmd.u.mad_ifc.port_num = 1;
	memcpy(hp(h, h->scratch), &smp, sizeof(smp));
	cmd.u.mad_ifc.reserved1 = sfab_cpu_to_le32(1);
	CHECK_EQ(host_cmd(h, &cmd), SFAB_AQ_STS_BAD_PARAM);
	cmd.u.mad_ifc.reserved1 = 0;
	cmd.u.raw[40] = 1;
	CHECK_EQ(host_cmd(h, &cmd), SFAB_AQ_STS_BAD_PARAM);
	cmd.u.raw[40] = 0;
	CHECK_EQ(host_cmd(h, &cmd), SFAB_AQ_STS_OK);
	/* DMA failures on either buffer */
	cmd.u.mad_ifc.in_addr = sfab_cpu_to_le64(0x1000);
	CHECK_EQ(host_cmd(h, &cmd), SFAB_AQ_STS_DMA_ERROR);
	cmd.u.mad_ifc.in_addr = sfab_cpu_to_le64(h->scratch);
	cmd.u.mad_ifc.out_addr = sfab_cpu_to_le64(~0ULL - 16);
	CHECK_EQ(host_cmd(h, &cmd), SFAB_AQ_STS_DMA_ERROR);
	CHECK(!dev_fatal(h));
	hc_free(c);

	/* before firmware */
	h = host_up(5);
	cmd = cmd_new(SFAB_AQ_MAD_IFC);
	cmd.u.mad_ifc.in_addr = sfab_cpu_to_le64(h->scratch);
	cmd.u.mad_ifc.out_addr = sfab_cpu_to_le64(h->scratch + 1024);
	cmd.u.mad_ifc.port_num = 1;
	CHECK_EQ(host_cmd(h, &cmd), SFAB_AQ_STS_NO_FW);
	host_free(h);
}
