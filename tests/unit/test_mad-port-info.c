/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/mad-port-info: sfab_mad_port_info_set(), the PortInfo Set both
 * SMAs (the HCA's firmware, switch port 0) go through, from attribute
 * bytes written out by hand in IBA's layout (IBTA 14.2.5.6, table 155):
 * what a valid Set decodes to and applies to the port's link
 * configuration, and the fields whose bad values it refuses with status
 * 0x001c (bits 4:2 = 7, "invalid value in an attribute field"), changing
 * nothing.  Then the same bytes through a switch's SMA on port 0.
 */
#include <string.h>

#include "harness.h"
#include "sw_fabric.h"
#include "../../qemu-model/mad/sfab_mad.h"

#define STS_OK			0x0000
#define STS_INVALID_FIELD	0x001c

/*
 * A Set as an SM sends it to an HCA port it brings up: M_Key
 * 0x0102030405060708, GID prefix fe80::, LID 0x0012, MasterSMLID 0x0001,
 * M_KeyLeasePeriod 15, LinkWidthEnabled 0xff (all supported), PortState
 * Armed, PortPhysicalState NOP, M_KeyProtectBits 1, LMC 2,
 * LinkSpeedEnabled 15 (all supported), NeighborMTU 4 (2048),
 * MasterSMSL 3, VLHighLimit 4, OperationalVLs 2 (VL0-1),
 * ClientReregister, SubnetTimeOut 18, LocalPhyErrors 8, OverrunErrors 9.
 */
static const uint8_t set_armed[64] = {
	/* 0: M_Key */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	/* 8: GidPrefix */
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 16: LID, MasterSMLID */
	0x00, 0x12, 0x00, 0x01,
	/* 20: CapabilityMask */
	0x00, 0x00, 0x00, 0x00,
	/* 24: DiagCode, M_KeyLeasePeriod */
	0x00, 0x00, 0x00, 0x0f,
	/* 28: LocalPortNum, LinkWidthEnabled, -Supported, -Active */
	0x00, 0xff, 0x00, 0x00,
	/* 32: LinkSpeedSupported | PortState 3 (Armed) */
	0x03,
	/* 33: PortPhysicalState 0 | LinkDownDefaultState 0 */
	0x00,
	/* 34: M_KeyProtectBits 1 | LMC 2 */
	0x42,
	/* 35: LinkSpeedActive | LinkSpeedEnabled 15 */
	0x0f,
	/* 36: NeighborMTU 4 | MasterSMSL 3 */
	0x43,
	/* 37: VLCap | InitType, 38: VLHighLimit, 39-40: VLArb caps */
	0x00, 0x04, 0x00, 0x00,
	/* 41: InitTypeReply | MTUCap, 42: VLStallCount | HOQLife */
	0x00, 0x00,
	/* 43: OperationalVLs 2 | enforcement */
	0x20,
	/* 44: M_Key, P_Key, Q_Key violations */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 50: GUIDCap, 51: ClientReregister | SubnetTimeOut 18 */
	0x00, 0x92,
	/* 52: RespTimeValue, 53: LocalPhyErrors 8 | OverrunErrors 9 */
	0x00, 0x89,
	/* 54: MaxCreditHint, 56: LinkRoundTripLatency */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 60: CapabilityMask2, 62-63: LinkSpeedExt */
	0x00, 0x00, 0x00, 0x00,
};

/* a port with 4 data VLs (VLCap 3) after power-on: MTU 4096, 4X, SDR */
static void fresh(struct sfab_mad_port_cfg *c)
{
	sfab_mad_port_cfg_init(c, 3);
}

/* the HCA's port, or switch port 0: the node's management port */
static const struct sfab_mad_port_set hca_init = {
	.cur = SFAB_PORT_INIT, .vl_cap = 3, .mgmt = true,
};

/* @d with byte @off set to @v, through sfab_mad_port_info_set() */
static uint16_t set_with(const struct sfab_mad_port_set *ps, unsigned int off,
			 uint8_t v, struct sfab_mad_port_cfg *c)
{
	struct sfab_mad_port_info pi;
	uint8_t d[64];

	memcpy(d, set_armed, sizeof(d));
	d[off] = v;
	return sfab_mad_port_info_set(d, ps, &pi, c);
}

TEST(valid_set_decoded_and_applied)
{
	struct sfab_mad_port_info pi;
	struct sfab_mad_port_cfg c;

	fresh(&c);
	CHECK_EQ(c.neighbor_mtu, 5);
	CHECK_EQ(c.link_down_default, 2);
	CHECK_EQ(sfab_mad_port_info_set(set_armed, &hca_init, &pi, &c), STS_OK);

	/* what the caller applies itself, decoded */
	CHECK_EQ(pi.mkey, 0x0102030405060708ULL);
	CHECK_EQ(pi.gid_prefix, 0xfe80000000000000ULL);
	CHECK_EQ(pi.lid, 0x12);
	CHECK_EQ(pi.sm_lid, 1);
	CHECK_EQ(pi.mkey_lease_period, 15);
	CHECK_EQ(pi.port_state, 3);
	CHECK_EQ(pi.phys_state, 0);
	CHECK_EQ(pi.mkey_prot, 1);
	CHECK_EQ(pi.lmc, 2);
	CHECK_EQ(pi.master_sm_sl, 3);
	CHECK_EQ(pi.client_rereg, 1);
	CHECK_EQ(pi.subnet_timeout, 18);

	/* the link's part, applied: 0xff and 15 are "all supported" */
	CHECK_EQ(c.link_width_enabled, 0x02);	/* 4X */
	CHECK_EQ(c.link_speed_enabled, 0x01);	/* SDR */
	CHECK_EQ(c.neighbor_mtu, 4);
	CHECK_EQ(c.vl_high_limit, 4);
	CHECK_EQ(c.op_vls, 2);
	CHECK_EQ(c.phy_overrun, 0x89);
	/* LinkDownDefaultState 0 is "no change" */
	CHECK_EQ(c.link_down_default, 2);
}

TEST(port_state_transitions)
{
	struct sfab_mad_port_set ps = hca_init;
	struct sfab_mad_port_cfg c;

	fresh(&c);
	/* Active only from Armed or Active */
	CHECK_EQ(set_with(&ps, 32, 0x04, &c), STS_INVALID_FIELD);
	ps.cur = SFAB_PORT_ARMED;
	CHECK_EQ(set_with(&ps, 32, 0x04, &c), STS_OK);
	/* Armed only from Init or Armed */
	ps.cur = SFAB_PORT_ACTIVE;
	CHECK_EQ(set_with(&ps, 32, 0x03, &c), STS_INVALID_FIELD);
	/* Down and NOP from anywhere */
	CHECK_EQ(set_with(&ps, 32, 0x01, &c), STS_OK);
	CHECK_EQ(set_with(&ps, 32, 0x00, &c), STS_OK);
	/* an SM never sets Init, nor a state past Active */
	CHECK_EQ(set_with(&ps, 32, 0x02, &c), STS_INVALID_FIELD);
	CHECK_EQ(set_with(&ps, 32, 0x05, &c), STS_INVALID_FIELD);
}

TEST(bad_fields_refused_nothing_changes)
{
	static const struct {
		const char *what;
		unsigned int off;
		uint8_t v;
	} bad[] = {
		{ "PortPhysicalState LinkUp (5)", 33, 0x50 },
		{ "PortPhysicalState Sleep (1)", 33, 0x10 },
		{ "NeighborMTU 6", 36, 0x63 },
		{ "NeighborMTU 15", 36, 0xf3 },
		{ "OperationalVLs 3 (VL0-3) past VLCap 2", 43, 0x30 },
		{ "LID 0xc000 (multicast)", 16, 0xc0 },
		{ "MasterSMLID 0xff01", 18, 0xff },
	};
	struct sfab_mad_port_set ps = hca_init;
	struct sfab_mad_port_cfg c, before;
	unsigned int i;

	ps.vl_cap = 2;
	fresh(&c);
	before = c;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint16_t sts = set_with(&ps, bad[i].off, bad[i].v, &c);

		CHECK_EQ(sts, STS_INVALID_FIELD);
		CHECK(!memcmp(&c, &before, sizeof(c)));
		if (sts != STS_INVALID_FIELD)
			fprintf(stderr, "  %s: status 0x%04x\n", bad[i].what,
				sts);
	}
	/* PortPhysicalState Polling and Disabled are the ones an SM sets */
	CHECK_EQ(set_with(&ps, 33, 0x20, &c), STS_OK);
	fresh(&c);
	CHECK_EQ(set_with(&ps, 33, 0x30, &c), STS_OK);
}

TEST(switch_external_port)
{
	/* a switch port other than 0: LID and MasterSMLID are port 0's */
	struct sfab_mad_port_set ps = {
		.cur = SFAB_PORT_INIT, .vl_cap = 3, .mgmt = false,
	};
	struct sfab_mad_port_cfg c;

	fresh(&c);
	CHECK_EQ(set_with(&ps, 16, 0xc0, &c), STS_OK);
	CHECK_EQ(c.neighbor_mtu, 4);
	/* its link fields are checked as any port's */
	fresh(&c);
	CHECK_EQ(set_with(&ps, 36, 0x63, &c), STS_INVALID_FIELD);
	CHECK_EQ(c.neighbor_mtu, 5);
}

/* the Set of @d to switch port 0, LID-routed from node0 (LID 1) */
static uint16_t sw_port0_set(struct tf *tf, uint16_t sw_lid, const uint8_t *d)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp, r;
	unsigned int before = tf->node[0].ninbox;
	size_t n;

	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
		    SFAB_SMP_ATTR_PORT_INFO, 0);
	memcpy(smp.data, d, 64);
	n = tf_smp(buf, &smp, sw_lid, 1);
	if (!tf_node_send(tf, 0, buf, n))
		return 0xffff;
	tf_pump(tf);
	if (tf->node[0].ninbox != before + 1 || !tf_last_mad(tf, 0, &r) ||
	    r.method != SFAB_MAD_METHOD_GET_RESP)
		return 0xffff;
	return sfab_be16_to_cpu(r.status);
}

TEST(switch_port0_through_the_sma)
{
	struct sfab_sw_cfg cfg;
	struct sfab_sw *sw;
	struct tf tf;
	uint8_t d[64];

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 2;
	tf_init(&tf);
	sw = tf_add_sw(&tf, 0, &cfg);
	tf_add_node(&tf, 0, &cfg);
	tf_cable_node(&tf, 0, 0, 1);
	sfab_sw_lft_set(sw, 1, 1);
	sw->lid = 10;
	tf_pump(&tf);
	tf_activate(&tf);

	/* MasterSMLID 0xff01 is no unicast LID: refused, nothing set */
	memcpy(d, set_armed, sizeof(d));
	d[18] = 0xff;
	CHECK_EQ(sw_port0_set(&tf, 10, d), STS_INVALID_FIELD);
	CHECK_EQ(sw->lid, 10);
	CHECK_EQ(sw->sm_lid, 0);
	CHECK_EQ(sw->mk.key, 0);
	CHECK_EQ(sw->port0_state, SFAB_PORT_INIT);

	/* the valid Set: port 0 takes the management fields and Armed */
	CHECK_EQ(sw_port0_set(&tf, 10, set_armed), STS_OK);
	CHECK_EQ(sw->lid, 0x12);
	CHECK_EQ(sw->sm_lid, 1);
	CHECK_EQ(sw->mk.key, 0x0102030405060708ULL);
	CHECK_EQ(sw->gid_prefix, 0xfe80000000000000ULL);
	CHECK_EQ(sw->lmc, 2);
	CHECK_EQ(sw->sm_sl, 3);
	CHECK_EQ(sw->subnet_timeout, 18);
	CHECK_EQ(sw->port0_state, SFAB_PORT_ARMED);
	tf_fini(&tf);
}
