/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab management: which MADs process_mad hands to the device's SMA and
 * PMA, how port events map to ib_events, and how the PMA's PortCounters
 * and PortCountersExtended and the device's transport counters
 * (QUERY_STATS) become the driver's hardware counters.  The decisions are
 * inline so the KUnit suite sfab_mad checks them as they are.
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
	SFAB_NUM_HW_STATS,
};

/* PortCounters: LocalLinkIntegrityErrors 7:4, ExcessiveBufferOverrun 3:0 */
#define SFAB_PMA_LOCAL_LINK_INTEGRITY_MASK	GENMASK(7, 4)
#define SFAB_PMA_BUFFER_OVERRUN_MASK		GENMASK(3, 0)

/**
 * sfab_mad_for_device() - whether process_mad hands a MAD to the device
 * @hdr: the MAD's header
 *
 * The device's SMA takes Get, Set and TrapRepress SMPs (LID-routed and
 * directed-route) except SMInfo, which belongs to the subnet manager; its
 * PMA takes Get and Set.  Anything else is not the device's business:
 * process_mad returns IB_MAD_RESULT_SUCCESS without a reply and ib_mad
 * goes on with the MAD.
 */
static inline bool sfab_mad_for_device(const struct ib_mad_hdr *hdr)
{
	switch (hdr->mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		if (hdr->method != IB_MGMT_METHOD_GET &&
		    hdr->method != IB_MGMT_METHOD_SET &&
		    hdr->method != IB_MGMT_METHOD_TRAP_REPRESS)
			return false;
		return hdr->attr_id != IB_SMP_ATTR_SM_INFO;
	case IB_MGMT_CLASS_PERF_MGMT:
		return hdr->method == IB_MGMT_METHOD_GET ||
		       hdr->method == IB_MGMT_METHOD_SET;
	default:
		return false;
	}
}

/**
 * sfab_port_state_event() - the ib_event a logical port state change is
 * @old_state: the state last reported (enum sfab_port_state)
 * @new_state: the port's new state
 * @ev: set to the event when there is one
 *
 * Return: true when the change is an event: entering ACTIVE is
 * IB_EVENT_PORT_ACTIVE, leaving it IB_EVENT_PORT_ERR; Down, Init and
 * Armed among themselves are not events.
 */
static inline bool sfab_port_state_event(u8 old_state, u8 new_state,
					 enum ib_event_type *ev)
{
	if (old_state != SFAB_PORT_ACTIVE && new_state == SFAB_PORT_ACTIVE) {
		*ev = IB_EVENT_PORT_ACTIVE;
		return true;
	}
	if (old_state == SFAB_PORT_ACTIVE && new_state != SFAB_PORT_ACTIVE) {
		*ev = IB_EVENT_PORT_ERR;
		return true;
	}
	return false;
}

/**
 * sfab_aenq_port_event() - the ib_event of a port attribute change event
 * @type: enum sfab_aenq_type
 * @ev: set to the event when there is one
 *
 * Return: true for the attribute changes ib_core hears of as such.
 */
static inline bool sfab_aenq_port_event(u8 type, enum ib_event_type *ev)
{
	switch (type) {
	case SFAB_AENQ_LID_CHANGE:
		*ev = IB_EVENT_LID_CHANGE;
		return true;
	case SFAB_AENQ_PKEY_CHANGE:
		*ev = IB_EVENT_PKEY_CHANGE;
		return true;
	case SFAB_AENQ_SM_CHANGE:
		*ev = IB_EVENT_SM_CHANGE;
		return true;
	case SFAB_AENQ_CLIENT_REREG:
		*ev = IB_EVENT_CLIENT_REREGISTER;
		return true;
	default:
		return false;
	}
}

/* fill @v's PortCounters entries from a PortCounters response's data */
static inline void sfab_pma_decode(const struct ib_pma_portcounters *pc, u64 *v)
{
	v[SFAB_STAT_SYMBOL_ERROR] = be16_to_cpu(pc->symbol_error_counter);
	v[SFAB_STAT_LINK_ERROR_RECOVERY] = pc->link_error_recovery_counter;
	v[SFAB_STAT_LINK_DOWNED] = pc->link_downed_counter;
	v[SFAB_STAT_PORT_RCV_ERRORS] = be16_to_cpu(pc->port_rcv_errors);
	v[SFAB_STAT_PORT_RCV_REMOTE_PHYSICAL_ERRORS] =
		be16_to_cpu(pc->port_rcv_remphys_errors);
	v[SFAB_STAT_PORT_RCV_SWITCH_RELAY_ERRORS] =
		be16_to_cpu(pc->port_rcv_switch_relay_errors);
	v[SFAB_STAT_PORT_XMIT_DISCARDS] = be16_to_cpu(pc->port_xmit_discards);
	v[SFAB_STAT_PORT_XMIT_CONSTRAINT_ERRORS] =
		pc->port_xmit_constraint_errors;
	v[SFAB_STAT_PORT_RCV_CONSTRAINT_ERRORS] =
		pc->port_rcv_constraint_errors;
	v[SFAB_STAT_LOCAL_LINK_INTEGRITY_ERRORS] =
		FIELD_GET(SFAB_PMA_LOCAL_LINK_INTEGRITY_MASK,
			  pc->link_overrun_errors);
	v[SFAB_STAT_EXCESSIVE_BUFFER_OVERRUN_ERRORS] =
		FIELD_GET(SFAB_PMA_BUFFER_OVERRUN_MASK, pc->link_overrun_errors);
	v[SFAB_STAT_VL15_DROPPED] = be16_to_cpu(pc->vl15_dropped);
	v[SFAB_STAT_PORT_XMIT_WAIT] = be32_to_cpu(pc->port_xmit_wait);
}

/* fill @v's PortCountersExtended entries */
static inline void sfab_pma_decode_ext(const struct ib_pma_portcounters_ext *pc,
				       u64 *v)
{
	v[SFAB_STAT_PORT_XMIT_DATA] = be64_to_cpu(pc->port_xmit_data);
	v[SFAB_STAT_PORT_RCV_DATA] = be64_to_cpu(pc->port_rcv_data);
	v[SFAB_STAT_PORT_XMIT_PACKETS] = be64_to_cpu(pc->port_xmit_packets);
	v[SFAB_STAT_PORT_RCV_PACKETS] = be64_to_cpu(pc->port_rcv_packets);
	v[SFAB_STAT_PORT_UNICAST_XMIT_PACKETS] =
		be64_to_cpu(pc->port_unicast_xmit_packets);
	v[SFAB_STAT_PORT_UNICAST_RCV_PACKETS] =
		be64_to_cpu(pc->port_unicast_rcv_packets);
	v[SFAB_STAT_PORT_MULTICAST_XMIT_PACKETS] =
		be64_to_cpu(pc->port_multicast_xmit_packets);
	v[SFAB_STAT_PORT_MULTICAST_RCV_PACKETS] =
		be64_to_cpu(pc->port_multicast_rcv_packets);
}

/* fill @v's transport counter entries from a QUERY_STATS block */
static inline void sfab_stats_decode(const struct sfab_port_stats *s, u64 *v)
{
	v[SFAB_STAT_RETRANSMITS] = le64_to_cpu(s->retransmits);
	v[SFAB_STAT_RETRANS_PKTS] = le64_to_cpu(s->retrans_pkts);
	v[SFAB_STAT_LOCAL_ACK_TIMEOUT_ERR] =
		le64_to_cpu(s->local_ack_timeout_err);
	v[SFAB_STAT_PACKET_SEQ_ERR] = le64_to_cpu(s->packet_seq_err);
	v[SFAB_STAT_IMPLIED_NAK_SEQ_ERR] = le64_to_cpu(s->implied_nak_seq_err);
	v[SFAB_STAT_RNR_NAK_RETRY_ERR] = le64_to_cpu(s->rnr_nak_retry_err);
	v[SFAB_STAT_OUT_OF_SEQUENCE] = le64_to_cpu(s->out_of_sequence);
	v[SFAB_STAT_DUPLICATE_REQUEST] = le64_to_cpu(s->duplicate_request);
	v[SFAB_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED] =
		le64_to_cpu(s->req_transport_retries_exceeded);
	v[SFAB_STAT_REQ_RNR_RETRIES_EXCEEDED] =
		le64_to_cpu(s->req_rnr_retries_exceeded);
}

#endif /* _SFAB_MAD_H_ */
