// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_mad: what process_mad hands to the device's SMA and
 * PMA and what it leaves alone, which port changes are ib_events, and
 * how PortCounters / PortCountersExtended responses and the QUERY_STATS
 * block become the hardware counters (field positions, widths and the two
 * 4-bit counters that share a byte).
 */

#include <kunit/test.h>

#include "../sfab_com_cmd.h"
#include "../sfab_mad.h"

static struct ib_mad_hdr sfab_mad_hdr(u8 mgmt_class, u8 method, __be16 attr)
{
	struct ib_mad_hdr hdr = {
		.base_version = IB_MGMT_BASE_VERSION,
		.mgmt_class = mgmt_class,
		.class_version = 1,
		.method = method,
		.attr_id = attr,
	};

	return hdr;
}

static void sfab_mad_smp_to_device(struct kunit *test)
{
	static const u8 classes[] = {
		IB_MGMT_CLASS_SUBN_LID_ROUTED,
		IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE,
	};
	struct ib_mad_hdr h;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(classes); i++) {
		h = sfab_mad_hdr(classes[i], IB_MGMT_METHOD_GET,
				 IB_SMP_ATTR_PORT_INFO);
		KUNIT_EXPECT_TRUE(test, sfab_mad_for_device(&h));
		h.method = IB_MGMT_METHOD_SET;
		KUNIT_EXPECT_TRUE(test, sfab_mad_for_device(&h));
		h.method = IB_MGMT_METHOD_TRAP_REPRESS;
		KUNIT_EXPECT_TRUE(test, sfab_mad_for_device(&h));
		/* responses and traps are not requests for the agent */
		h.method = IB_MGMT_METHOD_GET_RESP;
		KUNIT_EXPECT_FALSE(test, sfab_mad_for_device(&h));
		h.method = IB_MGMT_METHOD_TRAP;
		KUNIT_EXPECT_FALSE(test, sfab_mad_for_device(&h));
		/* SMInfo is the subnet manager's */
		h = sfab_mad_hdr(classes[i], IB_MGMT_METHOD_GET,
				 IB_SMP_ATTR_SM_INFO);
		KUNIT_EXPECT_FALSE(test, sfab_mad_for_device(&h));
		h = sfab_mad_hdr(classes[i], IB_MGMT_METHOD_GET,
				 IB_SMP_ATTR_NODE_INFO);
		KUNIT_EXPECT_TRUE(test, sfab_mad_for_device(&h));
	}
}

static void sfab_mad_pma_to_device(struct kunit *test)
{
	struct ib_mad_hdr h = sfab_mad_hdr(IB_MGMT_CLASS_PERF_MGMT,
					   IB_MGMT_METHOD_GET,
					   IB_PMA_PORT_COUNTERS);

	KUNIT_EXPECT_TRUE(test, sfab_mad_for_device(&h));
	h.method = IB_MGMT_METHOD_SET;
	KUNIT_EXPECT_TRUE(test, sfab_mad_for_device(&h));
	h.method = IB_MGMT_METHOD_TRAP_REPRESS;
	KUNIT_EXPECT_FALSE(test, sfab_mad_for_device(&h));
	h.method = IB_MGMT_METHOD_GET_RESP;
	KUNIT_EXPECT_FALSE(test, sfab_mad_for_device(&h));
}

static void sfab_mad_other_classes(struct kunit *test)
{
	static const u8 classes[] = {
		IB_MGMT_CLASS_SUBN_ADM, IB_MGMT_CLASS_CM,
		IB_MGMT_CLASS_DEVICE_MGMT, IB_MGMT_CLASS_BM,
		IB_MGMT_CLASS_SNMP, IB_MGMT_CLASS_VENDOR_RANGE2_START,
	};
	struct ib_mad_hdr h;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(classes); i++) {
		h = sfab_mad_hdr(classes[i], IB_MGMT_METHOD_GET,
				 cpu_to_be16(0x0010));
		KUNIT_EXPECT_FALSE(test, sfab_mad_for_device(&h));
	}
}

static void sfab_mad_port_state_events(struct kunit *test)
{
	static const u8 inactive[] = {
		SFAB_PORT_NOP, SFAB_PORT_DOWN, SFAB_PORT_INIT, SFAB_PORT_ARMED,
	};
	enum ib_event_type ev;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(inactive); i++) {
		ev = IB_EVENT_DEVICE_FATAL;
		KUNIT_EXPECT_TRUE(test, sfab_port_state_event(inactive[i],
							      SFAB_PORT_ACTIVE,
							      &ev));
		KUNIT_EXPECT_EQ(test, ev, IB_EVENT_PORT_ACTIVE);
		ev = IB_EVENT_DEVICE_FATAL;
		KUNIT_EXPECT_TRUE(test, sfab_port_state_event(SFAB_PORT_ACTIVE,
							      inactive[i],
							      &ev));
		KUNIT_EXPECT_EQ(test, ev, IB_EVENT_PORT_ERR);
		for (j = 0; j < ARRAY_SIZE(inactive); j++)
			KUNIT_EXPECT_FALSE(test,
					   sfab_port_state_event(inactive[i],
								 inactive[j],
								 &ev));
	}
	KUNIT_EXPECT_FALSE(test, sfab_port_state_event(SFAB_PORT_ACTIVE,
						       SFAB_PORT_ACTIVE, &ev));
}

static void sfab_mad_attr_events(struct kunit *test)
{
	enum ib_event_type ev;

	KUNIT_EXPECT_TRUE(test, sfab_aenq_port_event(SFAB_AENQ_LID_CHANGE, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_LID_CHANGE);
	KUNIT_EXPECT_TRUE(test, sfab_aenq_port_event(SFAB_AENQ_PKEY_CHANGE, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_PKEY_CHANGE);
	KUNIT_EXPECT_TRUE(test, sfab_aenq_port_event(SFAB_AENQ_SM_CHANGE, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_SM_CHANGE);
	KUNIT_EXPECT_TRUE(test, sfab_aenq_port_event(SFAB_AENQ_CLIENT_REREG, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_CLIENT_REREGISTER);
	/* PORT_CHANGE goes by its state; the others are not port events */
	KUNIT_EXPECT_FALSE(test, sfab_aenq_port_event(SFAB_AENQ_PORT_CHANGE, &ev));
	KUNIT_EXPECT_FALSE(test, sfab_aenq_port_event(SFAB_AENQ_FATAL, &ev));
	KUNIT_EXPECT_FALSE(test, sfab_aenq_port_event(SFAB_AENQ_KEEP_ALIVE, &ev));
	KUNIT_EXPECT_FALSE(test, sfab_aenq_port_event(0xff, &ev));
}

/* a PortCounters response's data, built by byte offset (IBA 16.1.3.5) */
static void sfab_mad_decode_counters(struct kunit *test)
{
	u8 data[sizeof(struct ib_pma_portcounters)] = {};
	u64 v[SFAB_NUM_HW_STATS];

	KUNIT_ASSERT_EQ(test, sizeof(data), 44);
	memset(v, 0xaa, sizeof(v));
	data[4] = 0x12; data[5] = 0x34;		/* SymbolErrorCounter */
	data[6] = 0x05;				/* LinkErrorRecovery */
	data[7] = 0x06;				/* LinkDowned */
	data[8] = 0xff; data[9] = 0xff;		/* PortRcvErrors */
	data[10] = 0x00; data[11] = 0x07;	/* PortRcvRemotePhysicalErrors */
	data[12] = 0x00; data[13] = 0x08;	/* PortRcvSwitchRelayErrors */
	data[14] = 0x01; data[15] = 0x00;	/* PortXmitDiscards */
	data[16] = 0x09;			/* PortXmitConstraintErrors */
	data[17] = 0x0a;			/* PortRcvConstraintErrors */
	data[19] = 0xc3;			/* LocalLinkIntegrity 0xc, Overrun 3 */
	data[22] = 0x00; data[23] = 0x0b;	/* VL15Dropped */
	data[24] = 0x7f;			/* PortXmitData: not decoded here */
	data[40] = 0x80; data[41] = 0x00;	/* PortXmitWait */
	data[42] = 0x00; data[43] = 0x01;

	sfab_pma_decode((const struct ib_pma_portcounters *)data, v);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_SYMBOL_ERROR], 0x1234);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_LINK_ERROR_RECOVERY], 5);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_LINK_DOWNED], 6);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_RCV_ERRORS], 0xffff);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_RCV_REMOTE_PHYSICAL_ERRORS], 7);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_RCV_SWITCH_RELAY_ERRORS], 8);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_XMIT_DISCARDS], 0x100);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_XMIT_CONSTRAINT_ERRORS], 9);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_RCV_CONSTRAINT_ERRORS], 10);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_LOCAL_LINK_INTEGRITY_ERRORS], 0xc);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_EXCESSIVE_BUFFER_OVERRUN_ERRORS], 3);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_VL15_DROPPED], 11);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_XMIT_WAIT], 0x80000001);
	/* the extended counters are not this attribute's */
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_XMIT_DATA], 0xaaaaaaaaaaaaaaaaULL);
}

static void sfab_mad_decode_counters_ext(struct kunit *test)
{
	u8 data[sizeof(struct ib_pma_portcounters_ext)] = {};
	u64 v[SFAB_NUM_HW_STATS];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sizeof(data), 72);
	memset(v, 0, sizeof(v));
	/* counter i (from byte 8) holds 0x0100000000000000 + i + 1 */
	for (i = 0; i < 8; i++) {
		data[8 + 8 * i] = 0x01;
		data[8 + 8 * i + 7] = i + 1;
	}
	sfab_pma_decode_ext((const struct ib_pma_portcounters_ext *)data, v);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_XMIT_DATA + i],
				0x0100000000000000ULL + i + 1);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_XMIT_WAIT], 0);
}

/* a QUERY_STATS block, built by byte offset: little-endian 64-bit counters */
static void sfab_mad_decode_stats(struct kunit *test)
{
	u8 blk[sizeof(struct sfab_port_stats)] = {};
	struct sfab_com_port_stats h;
	u64 v[SFAB_NUM_HW_STATS];
	unsigned int i, n = SFAB_NUM_HW_STATS - SFAB_NUM_PMA_STATS;

	KUNIT_ASSERT_EQ(test, sizeof(blk), 128);
	KUNIT_ASSERT_EQ(test, n, 15);
	memset(v, 0xaa, sizeof(v));
	/* counter i holds 0x0100000000000000 + i + 1; the reserved tail 0xff */
	for (i = 0; i < n; i++) {
		blk[8 * i] = i + 1;
		blk[8 * i + 7] = 0x01;
	}
	memset(blk + 8 * n, 0xff, sizeof(blk) - 8 * n);
	sfab_com_port_stats_decode(&h, (const struct sfab_port_stats *)blk);
	sfab_stats_decode(&h, v);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, v[SFAB_STAT_RETRANSMITS + i],
				0x0100000000000000ULL + i + 1);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_LOCAL_ACK_TIMEOUT_ERR],
			0x0100000000000003ULL);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_REQ_RNR_RETRIES_EXCEEDED],
			0x010000000000000aULL);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_DB_WRITES_CPU], 0x010000000000000bULL);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_DB_WRITES_PEER], 0x010000000000000cULL);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_FAST_REG_WQES], 0x010000000000000dULL);
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_REMOTE_INVS], 0x010000000000000fULL);
	/* the PMA's counters are not this block's */
	KUNIT_EXPECT_EQ(test, v[SFAB_STAT_PORT_XMIT_WAIT], 0xaaaaaaaaaaaaaaaaULL);
	KUNIT_EXPECT_EQ(test, v[SFAB_NUM_PMA_STATS - 1], 0xaaaaaaaaaaaaaaaaULL);
}

static struct kunit_case sfab_mad_cases[] = {
	KUNIT_CASE(sfab_mad_smp_to_device),
	KUNIT_CASE(sfab_mad_pma_to_device),
	KUNIT_CASE(sfab_mad_other_classes),
	KUNIT_CASE(sfab_mad_port_state_events),
	KUNIT_CASE(sfab_mad_attr_events),
	KUNIT_CASE(sfab_mad_decode_counters),
	KUNIT_CASE(sfab_mad_decode_counters_ext),
	KUNIT_CASE(sfab_mad_decode_stats),
	{}
};

static struct kunit_suite sfab_mad_suite = {
	.name = "sfab_mad",
	.test_cases = sfab_mad_cases,
};

kunit_test_suite(sfab_mad_suite);

/* the decisions are sfab.ko's, reached through VISIBLE_IF_KUNIT */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
