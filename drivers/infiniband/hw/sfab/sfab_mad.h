/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab management: which MADs process_mad hands to the device's SMA and
 * PMA, how port events map to ib_events, and how the PMA's PortCounters
 * and PortCountersExtended and the device's transport counters
 * (QUERY_STATS) become the driver's hardware counters.
 */
#ifndef _SFAB_MAD_H_
#define _SFAB_MAD_H_

#include <linux/types.h>

#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include <sfab/sfab_admin.h>

static_assert(sizeof(struct ib_mad) == SFAB_MAD_SIZE);
static_assert(sizeof(struct ib_pma_mad) == SFAB_MAD_SIZE);

/* the hardware counters, by index into struct rdma_hw_stats.value */
enum sfab_hw_stat {
	/* PortCounters */
	SFAB_STAT_SYMBOL_ERROR,
	SFAB_STAT_LINK_ERROR_RECOVERY,
	SFAB_STAT_LINK_DOWNED,
	SFAB_STAT_PORT_RCV_ERRORS,
	SFAB_STAT_PORT_RCV_REMOTE_PHYSICAL_ERRORS,
	SFAB_STAT_PORT_RCV_SWITCH_RELAY_ERRORS,
	SFAB_STAT_PORT_XMIT_DISCARDS,
	SFAB_STAT_PORT_XMIT_CONSTRAINT_ERRORS,
	SFAB_STAT_PORT_RCV_CONSTRAINT_ERRORS,
	SFAB_STAT_LOCAL_LINK_INTEGRITY_ERRORS,
	SFAB_STAT_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	SFAB_STAT_VL15_DROPPED,
	/* ticks the port had data to send and no credit for it */
	SFAB_STAT_PORT_XMIT_WAIT,
	/* PortCountersExtended; data in units of 4 octets, as the PMA counts */
	SFAB_STAT_PORT_XMIT_DATA,
	SFAB_STAT_PORT_RCV_DATA,
	SFAB_STAT_PORT_XMIT_PACKETS,
	SFAB_STAT_PORT_RCV_PACKETS,
	SFAB_STAT_PORT_UNICAST_XMIT_PACKETS,
	SFAB_STAT_PORT_UNICAST_RCV_PACKETS,
	SFAB_STAT_PORT_MULTICAST_XMIT_PACKETS,
	SFAB_STAT_PORT_MULTICAST_RCV_PACKETS,
	SFAB_NUM_PMA_STATS,
	/*
	 * QUERY_STATS, only from a device with SFAB_DEV_CAP_QUERY_STATS
	 * (struct sfab_port_stats, in its order)
	 */
	SFAB_STAT_RETRANSMITS = SFAB_NUM_PMA_STATS,
	SFAB_STAT_RETRANS_PKTS,
	SFAB_STAT_LOCAL_ACK_TIMEOUT_ERR,
	SFAB_STAT_PACKET_SEQ_ERR,
	SFAB_STAT_IMPLIED_NAK_SEQ_ERR,
	SFAB_STAT_RNR_NAK_RETRY_ERR,
	SFAB_STAT_OUT_OF_SEQUENCE,
	SFAB_STAT_DUPLICATE_REQUEST,
	SFAB_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED,
	SFAB_STAT_REQ_RNR_RETRIES_EXCEEDED,
	/* doorbell writes by source (device wide, on every port) */
	SFAB_STAT_DB_WRITES_CPU,
	SFAB_STAT_DB_WRITES_PEER,
	/* memory registration work (device wide): FRWR's REG_MR, LOCAL_INV */
	SFAB_STAT_FAST_REG_WQES,
	SFAB_STAT_LOCAL_INV_WQES,
	SFAB_STAT_REMOTE_INVS,
	SFAB_NUM_HW_STATS,
};

/* PortCounters: LocalLinkIntegrityErrors 7:4, ExcessiveBufferOverrun 3:0 */
#define SFAB_PMA_LOCAL_LINK_INTEGRITY_MASK	GENMASK(7, 4)
#define SFAB_PMA_BUFFER_OVERRUN_MASK		GENMASK(3, 0)

/*
 * sfab_mad.c's decisions, static without KUnit; the KUnit suite sfab_mad
 * reaches them through VISIBLE_IF_KUNIT and EXPORT_SYMBOL_IF_KUNIT.
 */
#if IS_ENABLED(CONFIG_KUNIT)
bool sfab_mad_for_device(const struct ib_mad_hdr *hdr);
bool sfab_port_state_event(u8 old_state, u8 new_state, enum ib_event_type *ev);
bool sfab_aenq_port_event(u8 type, enum ib_event_type *ev);
void sfab_pma_decode(const struct ib_pma_portcounters *pc, u64 *v);
void sfab_pma_decode_ext(const struct ib_pma_portcounters_ext *pc, u64 *v);
struct sfab_com_port_stats;
void sfab_stats_decode(const struct sfab_com_port_stats *s, u64 *v);
#endif

#endif /* _SFAB_MAD_H_ */
