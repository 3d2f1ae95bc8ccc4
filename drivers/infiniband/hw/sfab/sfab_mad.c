// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sfab management: process_mad (the device's firmware SMA and PMA through
 * the MAD_IFC admin command), the port's hardware counters (a PMA
 * PortCounters and PortCountersExtended query, and the transport counters
 * of QUERY_STATS where the device has them), and port events (async
 * events from the AENQ interrupt, reported to ib_core from a work item
 * once the port's cached attributes are refreshed).
 */

#include <linux/bitfield.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

#include "sfab.h"
#include "sfab_com_cmd.h"
#include "sfab_mad.h"

/* ---- decisions (the KUnit suite sfab_mad checks them) ---------------------- */

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
VISIBLE_IF_KUNIT bool sfab_mad_for_device(const struct ib_mad_hdr *hdr)
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
EXPORT_SYMBOL_IF_KUNIT(sfab_mad_for_device);

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
VISIBLE_IF_KUNIT bool sfab_port_state_event(u8 old_state, u8 new_state,
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
EXPORT_SYMBOL_IF_KUNIT(sfab_port_state_event);

/**
 * sfab_aenq_port_event() - the ib_event of a port attribute change event
 * @type: enum sfab_aenq_type
 * @ev: set to the event when there is one
 *
 * Return: true for the attribute changes ib_core hears of as such.
 */
VISIBLE_IF_KUNIT bool sfab_aenq_port_event(u8 type, enum ib_event_type *ev)
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
EXPORT_SYMBOL_IF_KUNIT(sfab_aenq_port_event);

/* fill @v's PortCounters entries from a PortCounters response's data */
VISIBLE_IF_KUNIT void sfab_pma_decode(const struct ib_pma_portcounters *pc, u64 *v)
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
EXPORT_SYMBOL_IF_KUNIT(sfab_pma_decode);

/* fill @v's PortCountersExtended entries */
VISIBLE_IF_KUNIT void sfab_pma_decode_ext(const struct ib_pma_portcounters_ext *pc,
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
EXPORT_SYMBOL_IF_KUNIT(sfab_pma_decode_ext);

/* fill @v's transport counter entries from a QUERY_STATS block */
VISIBLE_IF_KUNIT void sfab_stats_decode(const struct sfab_com_port_stats *s,
					u64 *v)
{
	v[SFAB_STAT_RETRANSMITS] = s->retransmits;
	v[SFAB_STAT_RETRANS_PKTS] = s->retrans_pkts;
	v[SFAB_STAT_LOCAL_ACK_TIMEOUT_ERR] = s->local_ack_timeout_err;
	v[SFAB_STAT_PACKET_SEQ_ERR] = s->packet_seq_err;
	v[SFAB_STAT_IMPLIED_NAK_SEQ_ERR] = s->implied_nak_seq_err;
	v[SFAB_STAT_RNR_NAK_RETRY_ERR] = s->rnr_nak_retry_err;
	v[SFAB_STAT_OUT_OF_SEQUENCE] = s->out_of_sequence;
	v[SFAB_STAT_DUPLICATE_REQUEST] = s->duplicate_request;
	v[SFAB_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED] =
		s->req_transport_retries_exceeded;
	v[SFAB_STAT_REQ_RNR_RETRIES_EXCEEDED] = s->req_rnr_retries_exceeded;
	v[SFAB_STAT_DB_WRITES_CPU] = s->db_writes_cpu;
	v[SFAB_STAT_DB_WRITES_PEER] = s->db_writes_peer;
	v[SFAB_STAT_FAST_REG_WQES] = s->fast_reg_wqes;
	v[SFAB_STAT_LOCAL_INV_WQES] = s->local_inv_wqes;
	v[SFAB_STAT_REMOTE_INVS] = s->remote_invs;
}
EXPORT_SYMBOL_IF_KUNIT(sfab_stats_decode);

/* ---- process_mad ---------------------------------------------------------- */

static int sfab_process_mad(struct ib_device *ibdev, int process_mad_flags,
			    u32 port_num, const struct ib_wc *in_wc,
			    const struct ib_grh *in_grh,
			    const struct ib_mad *in_mad, struct ib_mad *out_mad,
			    size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct sfab_dev *dev = to_sfab_dev(ibdev);
	const struct ib_mad_hdr *hdr = &in_mad->mad_hdr;
	u16 slid = in_wc ? ib_lid_cpu16(in_wc->slid) : 0;
	int ret;

	if (port_num != SFAB_PORT_NUM || *out_mad_size < sizeof(*out_mad))
		return IB_MAD_RESULT_FAILURE;
	if (!sfab_mad_for_device(hdr))
		return IB_MAD_RESULT_SUCCESS;

	ret = sfab_com_mad_ifc(&dev->edev, port_num, slid,
			       process_mad_flags & IB_MAD_IGNORE_MKEY ?
			       SFAB_MAD_IFC_IGNORE_MKEY : 0, in_mad, out_mad);
	if (ret < 0) {
		ibdev_dbg(ibdev, "MAD_IFC class %#x attr %#x failed: %d\n",
			  hdr->mgmt_class, be16_to_cpu(hdr->attr_id), ret);
		return IB_MAD_RESULT_FAILURE;
	}
	/* the agent consumed it (a TrapRepress, a response) */
	if (!ret || hdr->method == IB_MGMT_METHOD_TRAP_REPRESS)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;

	/* a directed-route response travels back: the direction bit is set */
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		out_mad->mad_hdr.status |= IB_SMP_DIRECTION;
	*out_mad_size = sizeof(*out_mad);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/* ---- hardware counters ------------------------------------------------------ */

static const struct rdma_stat_desc sfab_hw_stat_descs[SFAB_NUM_HW_STATS] = {
	[SFAB_STAT_SYMBOL_ERROR].name = "symbol_error",
	[SFAB_STAT_LINK_ERROR_RECOVERY].name = "link_error_recovery",
	[SFAB_STAT_LINK_DOWNED].name = "link_downed",
	[SFAB_STAT_PORT_RCV_ERRORS].name = "port_rcv_errors",
	[SFAB_STAT_PORT_RCV_REMOTE_PHYSICAL_ERRORS].name =
		"port_rcv_remote_physical_errors",
	[SFAB_STAT_PORT_RCV_SWITCH_RELAY_ERRORS].name =
		"port_rcv_switch_relay_errors",
	[SFAB_STAT_PORT_XMIT_DISCARDS].name = "port_xmit_discards",
	[SFAB_STAT_PORT_XMIT_CONSTRAINT_ERRORS].name =
		"port_xmit_constraint_errors",
	[SFAB_STAT_PORT_RCV_CONSTRAINT_ERRORS].name =
		"port_rcv_constraint_errors",
	[SFAB_STAT_LOCAL_LINK_INTEGRITY_ERRORS].name =
		"local_link_integrity_errors",
	[SFAB_STAT_EXCESSIVE_BUFFER_OVERRUN_ERRORS].name =
		"excessive_buffer_overrun_errors",
	[SFAB_STAT_VL15_DROPPED].name = "vl15_dropped",
	[SFAB_STAT_PORT_XMIT_WAIT].name = "port_xmit_wait",
	[SFAB_STAT_PORT_XMIT_DATA].name = "port_xmit_data",
	[SFAB_STAT_PORT_RCV_DATA].name = "port_rcv_data",
	[SFAB_STAT_PORT_XMIT_PACKETS].name = "port_xmit_packets",
	[SFAB_STAT_PORT_RCV_PACKETS].name = "port_rcv_packets",
	[SFAB_STAT_PORT_UNICAST_XMIT_PACKETS].name = "port_unicast_xmit_packets",
	[SFAB_STAT_PORT_UNICAST_RCV_PACKETS].name = "port_unicast_rcv_packets",
	[SFAB_STAT_PORT_MULTICAST_XMIT_PACKETS].name =
		"port_multicast_xmit_packets",
	[SFAB_STAT_PORT_MULTICAST_RCV_PACKETS].name =
		"port_multicast_rcv_packets",
	/*
	 * QUERY_STATS: mlx5's names where the meaning is the same (mlx5
	 * has none for retransmits and retrans_pkts)
	 */
	[SFAB_STAT_RETRANSMITS].name = "retransmits",
	[SFAB_STAT_RETRANS_PKTS].name = "retrans_pkts",
	[SFAB_STAT_LOCAL_ACK_TIMEOUT_ERR].name = "local_ack_timeout_err",
	[SFAB_STAT_PACKET_SEQ_ERR].name = "packet_seq_err",
	[SFAB_STAT_IMPLIED_NAK_SEQ_ERR].name = "implied_nak_seq_err",
	[SFAB_STAT_RNR_NAK_RETRY_ERR].name = "rnr_nak_retry_err",
	[SFAB_STAT_OUT_OF_SEQUENCE].name = "out_of_sequence",
	[SFAB_STAT_DUPLICATE_REQUEST].name = "duplicate_request",
	[SFAB_STAT_REQ_TRANSPORT_RETRIES_EXCEEDED].name =
		"req_transport_retries_exceeded",
	[SFAB_STAT_REQ_RNR_RETRIES_EXCEEDED].name = "req_rnr_retries_exceeded",
	/*
	 * doorbell writes by a CPU and by a peer device (an importer of an
	 * exported doorbell page, sfab_dbexport.c)
	 */
	[SFAB_STAT_DB_WRITES_CPU].name = "db_writes_cpu",
	[SFAB_STAT_DB_WRITES_PEER].name = "db_writes_peer",
	/*
	 * fast registration (IB_WR_REG_MR), local invalidation
	 * (IB_WR_LOCAL_INV) and invalidation by a received
	 * IB_WR_SEND_WITH_INV: what FRWR users (nvme-rdma, iSER, SRP,
	 * NFS/RDMA) do for every I/O
	 */
	[SFAB_STAT_FAST_REG_WQES].name = "fast_reg_wqes",
	[SFAB_STAT_LOCAL_INV_WQES].name = "local_inv_wqes",
	[SFAB_STAT_REMOTE_INVS].name = "remote_invs",
};

/* the PMA's counters, and the transport counters where the device has them */
static unsigned int sfab_num_hw_stats(const struct sfab_dev *dev)
{
	return sfab_dev_query_stats(dev) ? SFAB_NUM_HW_STATS :
					   SFAB_NUM_PMA_STATS;
}

static struct rdma_hw_stats *sfab_alloc_hw_port_stats(struct ib_device *ibdev,
						      u32 port_num)
{
	return rdma_alloc_hw_stats_struct(sfab_hw_stat_descs,
					  sfab_num_hw_stats(to_sfab_dev(ibdev)),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* one PMA Get of @attr_id for @port; 0 and the response's data, or -errno */
static int sfab_pma_get(struct sfab_dev *dev, u32 port, __be16 attr_id,
			struct ib_pma_mad *in, struct ib_pma_mad *out)
{
	u16 status;
	int ret;

	memset(in, 0, sizeof(*in));
	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	in->mad_hdr.class_version = 1;
	in->mad_hdr.method = IB_MGMT_METHOD_GET;
	in->mad_hdr.attr_id = attr_id;
	/* PortSelect sits at the same place in both attributes */
	((struct ib_pma_portcounters *)in->data)->port_select = port;

	ret = sfab_com_mad_ifc(&dev->edev, port, 0, 0, in, out);
	if (ret < 0)
		return ret;
	if (!ret) {
		ibdev_warn_ratelimited(&dev->ibdev,
				       "PMA attribute %#x: no response\n",
				       be16_to_cpu(attr_id));
		return -EIO;
	}
	status = be16_to_cpu(out->mad_hdr.status);
	if (status) {
		ibdev_warn_ratelimited(&dev->ibdev,
				       "PMA attribute %#x: MAD status %#x\n",
				       be16_to_cpu(attr_id), status);
		return -EIO;
	}
	return 0;
}

static int sfab_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	struct sfab_dev *dev = to_sfab_dev(ibdev);
	struct ib_pma_mad *in, *out;
	struct sfab_com_port_stats ps;
	int err;

	if (port != SFAB_PORT_NUM ||
	    stats->num_counters != sfab_num_hw_stats(dev))
		return -EINVAL;

	in = kmalloc(sizeof(*in), GFP_KERNEL);
	out = kmalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}

	err = sfab_pma_get(dev, port, IB_PMA_PORT_COUNTERS, in, out);
	if (err)
		goto out;
	sfab_pma_decode((const struct ib_pma_portcounters *)out->data,
			stats->value);

	err = sfab_pma_get(dev, port, IB_PMA_PORT_COUNTERS_EXT, in, out);
	if (err)
		goto out;
	sfab_pma_decode_ext((const struct ib_pma_portcounters_ext *)out->data,
			    stats->value);

	if (sfab_dev_query_stats(dev)) {
		err = sfab_com_query_stats(&dev->edev, port, &ps);
		if (err)
			goto out;
		sfab_stats_decode(&ps, stats->value);
	}
	err = stats->num_counters;
out:
	kfree(out);
	kfree(in);
	/*
	 * ib_core reads the counters once while it registers the device,
	 * and 6.12's setup_hw_port_stats() then leaks what it allocated for
	 * them if the read fails (found by fault/slab-probe): until sfab_0
	 * is registered a failed read gives zeros.  Every later read asks
	 * the device again.
	 */
	if (err < 0 && !READ_ONCE(dev->ib_registered)) {
		memset(stats->value, 0,
		       stats->num_counters * sizeof(*stats->value));
		err = stats->num_counters;
	}
	return err;
}

/**
 * sfab_mad_probe() - whether the firmware's management agents answer
 * @dev: the device, its HCA initialised
 *
 * ib_core reads the hardware counters when it registers the device, so
 * process_mad and the counters are offered only by firmware whose PMA
 * answers a PortCounters query through MAD_IFC.
 *
 * Return: 0, -EOPNOTSUPP when the firmware has no MAD interface, or
 * another negative errno.
 */
int sfab_mad_probe(struct sfab_dev *dev)
{
	struct ib_pma_mad *in, *out;
	int err;

	in = kmalloc(sizeof(*in), GFP_KERNEL);
	out = kmalloc(sizeof(*out), GFP_KERNEL);
	if (in && out)
		err = sfab_pma_get(dev, SFAB_PORT_NUM, IB_PMA_PORT_COUNTERS,
				   in, out);
	else
		err = -ENOMEM;
	kfree(out);
	kfree(in);
	return err;
}

/* what the device offers when its firmware has an SMA and a PMA */
const struct ib_device_ops sfab_mad_dev_ops = {
	.alloc_hw_port_stats = sfab_alloc_hw_port_stats,
	.get_hw_stats = sfab_get_hw_stats,
	.process_mad = sfab_process_mad,
};

/* ---- port events ------------------------------------------------------------ */

/* hand an event to ib_core, but only while the ib_device is registered */
void sfab_dispatch_event(struct sfab_dev *dev, enum ib_event_type type,
			 u32 port)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = type,
		.element.port_num = port,
	};
	unsigned long flags;

	/* no dispatch once sfab_remove() has begun unregistering */
	spin_lock_irqsave(&dev->event_lock, flags);
	if (dev->ib_registered)
		ib_dispatch_event(&ev);
	spin_unlock_irqrestore(&dev->event_lock, flags);
}

/**
 * sfab_port_event_queue() - note a port event for the port work
 * @dev: the device
 * @type: enum sfab_aenq_type
 * @data: the event's data1
 *
 * Called from the AENQ interrupt.  Events are kept while the ib_device
 * is registered; before that they only change what queries return.
 */
void sfab_port_event_queue(struct sfab_dev *dev, u8 type, u64 data)
{
	struct sfab_port_ev ev = { .type = type, .data = data };
	unsigned long flags;

	spin_lock_irqsave(&dev->event_lock, flags);
	if (dev->ib_registered) {
		/* a full queue: the work compares states instead */
		if (!kfifo_put(&dev->port_evq, ev))
			dev->port_ev_lost = true;
		queue_work(system_wq, &dev->port_work);
	}
	spin_unlock_irqrestore(&dev->event_lock, flags);
}

static const char *sfab_port_state_str(u8 state)
{
	switch (state) {
	case SFAB_PORT_DOWN:	return "Down";
	case SFAB_PORT_INIT:	return "Init";
	case SFAB_PORT_ARMED:	return "Armed";
	case SFAB_PORT_ACTIVE:	return "Active";
	default:		return "Nop";
	}
}

static const char *sfab_phys_state_str(u8 phys)
{
	switch (phys) {
	case SFAB_PHYS_SLEEP:		return "Sleep";
	case SFAB_PHYS_POLLING:		return "Polling";
	case SFAB_PHYS_DISABLED:	return "Disabled";
	case SFAB_PHYS_TRAINING:	return "Training";
	case SFAB_PHYS_LINKUP:		return "LinkUp";
	case SFAB_PHYS_ERROR_RECOVERY:	return "ErrorRecovery";
	default:			return "Nop";
	}
}

/* the logical state moved to @state: PORT_ACTIVE or PORT_ERR if it is one */
static void sfab_port_set_state(struct sfab_dev *dev, u8 state)
{
	enum ib_event_type type;

	lockdep_assert_held(&dev->port_lock);
	if (sfab_port_state_event(dev->port_state, state, &type))
		sfab_dispatch_event(dev, type, SFAB_PORT_NUM);
	dev->port_state = state;
}

static void sfab_port_handle(struct sfab_dev *dev,
			     const struct sfab_port_ev *ev)
{
	enum ib_event_type type;
	u8 state, phys;

	if (ev->type == SFAB_AENQ_PORT_CHANGE) {
		state = FIELD_GET(SFAB_AENQ_PORT_STATE_MASK, ev->data);
		phys = FIELD_GET(SFAB_AENQ_PORT_PHYS_MASK, ev->data);
		ibdev_info(&dev->ibdev, "port %u: %s, physical %s\n",
			   SFAB_PORT_NUM, sfab_port_state_str(state),
			   sfab_phys_state_str(phys));
		sfab_port_set_state(dev, state);
	} else if (sfab_aenq_port_event(ev->type, &type)) {
		ibdev_dbg(&dev->ibdev, "port %u: event %s (%#llx)\n",
			  SFAB_PORT_NUM, ib_event_msg(type), ev->data);
		sfab_dispatch_event(dev, type, SFAB_PORT_NUM);
	}
}

/*
 * Process context: refresh the cached port attributes, then report the
 * queued events in order, so whoever handles them (ib_core's cache, the
 * ULPs) already reads the new attributes.
 */
static void sfab_port_work(struct work_struct *work)
{
	struct sfab_dev *dev = container_of(work, struct sfab_dev, port_work);
	struct sfab_com_port_attr pa;
	struct sfab_port_ev ev;
	bool lost, got;
	int err;

	err = sfab_com_query_port(&dev->edev, SFAB_PORT_NUM, &pa);
	if (err)
		ibdev_warn_ratelimited(&dev->ibdev,
				       "cannot refresh port %u: %d\n",
				       SFAB_PORT_NUM, err);

	mutex_lock(&dev->port_lock);
	if (!err)
		dev->port_attr = pa;
	for (;;) {
		spin_lock_irq(&dev->event_lock);
		got = kfifo_get(&dev->port_evq, &ev);
		spin_unlock_irq(&dev->event_lock);
		if (!got)
			break;
		sfab_port_handle(dev, &ev);
	}

	spin_lock_irq(&dev->event_lock);
	lost = dev->port_ev_lost;
	dev->port_ev_lost = false;
	spin_unlock_irq(&dev->event_lock);
	/* events were lost: the state the device reports now decides */
	if (lost && !err)
		sfab_port_set_state(dev, pa.state);
	mutex_unlock(&dev->port_lock);
}

/* probe, before the AENQ runs */
void sfab_port_events_init(struct sfab_dev *dev)
{
	INIT_KFIFO(dev->port_evq);
	INIT_WORK(&dev->port_work, sfab_port_work);
	mutex_init(&dev->port_lock);
	mutex_init(&dev->pkey_lock);
}

/*
 * The ib_device was just registered: catch up with what changed between
 * the probe's query and now.
 */
void sfab_port_events_start(struct sfab_dev *dev)
{
	spin_lock_irq(&dev->event_lock);
	dev->port_ev_lost = true;
	queue_work(system_wq, &dev->port_work);
	spin_unlock_irq(&dev->event_lock);
}

/* the ib_device is no longer registered: nothing queues the work again */
void sfab_port_events_stop(struct sfab_dev *dev)
{
	cancel_work_sync(&dev->port_work);
}
