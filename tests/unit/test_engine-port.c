/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/engine-port: the HCA port on a cable.  The engine's port trains
 * against an sfab_link peer on an in-memory cable only once firmware is
 * active and the HCA initialised; flow-control credits flow both ways; a
 * credit stall shows in PortXmitWait; every state change raises an AENQ
 * PORT_CHANGE event and QUERY_PORT reports the same state; the cable's
 * loss takes the port down.
 */
#include "harness.h"
#include "hca_port.h"

static void check_port(struct hca_cable *c, enum sfab_port_state st,
		       enum sfab_port_phys_state phys)
{
	struct sfab_port_attr a;

	CHECK_EQ(hc_query_port(c, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(a.state, st);
	CHECK_EQ(a.phys_state, phys);
}

static bool next_port_change(struct hca_cable *c, uint64_t *data1)
{
	struct sfab_aenq_entry ev;

	if (!hc_event(c, SFAB_AENQ_PORT_CHANGE, &ev))
		return false;
	CHECK_EQ(sfab_le32_to_cpu(ev.data0), 1);
	*data1 = sfab_le64_to_cpu(ev.data1);
	return true;
}

TEST(no_cable_no_training)
{
	struct hca_cable *c = hc_new(true);

	check_port(c, SFAB_PORT_DOWN, SFAB_PHYS_POLLING);
	CHECK_EQ(sfab_engine_timer_deadline(c->h->e), UINT64_MAX);
	sfab_engine_timer(c->h->e);
	CHECK_EQ(c->fc_sent + c->data_sent, 0);
	/* frames without a cable go nowhere and break nothing */
	sfab_engine_cable_rx(c->h->e, (const uint8_t *)"\x10\x00\x00\x00\x00\x00", 6);
	CHECK(c->h->e->stats.rx_dropped >= 1);
	CHECK_EQ(hc_count_events(c, SFAB_AENQ_PORT_CHANGE), 0);
	hc_free(c);
}

TEST(cable_before_init_stays_down)
{
	struct hca_cable *c = hc_new(false);
	struct sfab_aq_cmd cmd;
	uint64_t d;

	hc_plug(c);
	hc_pump(c);
	/* firmware is there, the HCA is not initialised: no training */
	CHECK_EQ(c->fc_sent, 0);
	CHECK_EQ(c->peer.phys, SFAB_PHYS_POLLING);
	check_port(c, SFAB_PORT_DOWN, SFAB_PHYS_POLLING);
	CHECK_EQ(sfab_engine_timer_deadline(c->h->e), UINT64_MAX);

	cmd = cmd_init_hca(12);
	CHECK_EQ(host_cmd(c->h, &cmd), SFAB_AQ_STS_OK);
	/* INIT_HCA started training: a TS1 */
	CHECK_EQ(c->fc_sent, 1);
	/*
	 * The peer's TS1 went nowhere while the HCA was down; it answers
	 * the HCA's with a TS2, and both come up.
	 */
	hc_pump(c);
	CHECK_EQ(c->peer.phys, SFAB_PHYS_LINKUP);
	check_port(c, SFAB_PORT_INIT, SFAB_PHYS_LINKUP);
	CHECK_EQ(c->h->e->port.link.phys, SFAB_PHYS_LINKUP);
	REQUIRE(next_port_change(c, &d));
	CHECK_EQ(d, port_change_data(SFAB_PORT_INIT, SFAB_PHYS_LINKUP));
	hc_free(c);
}

TEST(train_events_and_query)
{
	struct hca_cable *c = hc_new(true);
	struct sfab_port_attr a;
	uint64_t d;

	hc_plug(c);
	CHECK_EQ(c->fc_sent, 1);	/* a TS1 at once */
	hc_pump(c);
	CHECK_EQ(c->fc_sent, 1 + 4);	/* then Init for VL0..3 */
	CHECK_EQ(c->peer.phys, SFAB_PHYS_LINKUP);
	CHECK_EQ(c->peer.state, SFAB_PORT_INIT);
	REQUIRE(next_port_change(c, &d));
	CHECK_EQ(SFAB_FIELD_GET(SFAB_AENQ_PORT_STATE_MASK, d), SFAB_PORT_INIT);
	CHECK_EQ(SFAB_FIELD_GET(SFAB_AENQ_PORT_PHYS_MASK, d), SFAB_PHYS_LINKUP);
	CHECK(!next_port_change(c, &d));

	CHECK_EQ(hc_query_port(c, &a), SFAB_AQ_STS_OK);
	CHECK_EQ(a.state, SFAB_PORT_INIT);
	CHECK_EQ(a.phys_state, SFAB_PHYS_LINKUP);
	CHECK_EQ(sfab_le16_to_cpu(a.lid), 0);
	CHECK_EQ(sfab_le16_to_cpu(a.sm_lid), 0);
	CHECK_EQ(a.max_vl_num, 3);
	CHECK_EQ(a.active_width, 2);
	CHECK_EQ(a.active_speed, 0x40);
	CHECK_EQ(sfab_be64_to_cpu(a.port_guid), HOST_NODE_GUID + 1);
	CHECK(sfab_le32_to_cpu(a.cap_flags) & SFAB_PI_CAP_HAS_SL_MAP);
	CHECK(!(sfab_le32_to_cpu(a.cap_flags) & SFAB_PI_CAP_IS_SM));

	/* the engine's credits: what the peer advertised for each VL */
	CHECK_EQ(sfab_link_tx_credits(&c->h->e->port.link, 0), HC_PEER_BLOCKS);
	CHECK_EQ(sfab_link_tx_credits(&c->h->e->port.link, 3), HC_PEER_BLOCKS);
	/* and the peer's: the profile's 256 blocks per VL */
	CHECK_EQ(sfab_link_tx_credits(&c->peer, 0), 256);
	hc_free(c);
}

TEST(periodic_fc_via_timer)
{
	struct hca_cable *c = hc_trained();
	uint64_t dl;
	unsigned long before;

	dl = sfab_engine_timer_deadline(c->h->e);
	CHECK(dl != UINT64_MAX);
	CHECK(dl > c->h->now);
	CHECK(dl <= c->h->now + SFAB_LINK_FC_REFRESH_NS + 1000);
	before = c->fc_sent;
	sfab_engine_timer(c->h->e);		/* not due: nothing */
	CHECK_EQ(c->fc_sent, before);
	c->h->now = dl;
	sfab_engine_timer(c->h->e);
	CHECK_EQ(c->fc_sent, before + 4);	/* one per data VL */
	CHECK(sfab_engine_timer_deadline(c->h->e) > c->h->now);
	hc_pump(c);
	hc_free(c);
}

/* MAD_IFC PortInfo Set of PortState */
static int set_state(struct hca_cable *c, enum sfab_port_state st)
{
	struct sfab_wire_smp smp, r;
	struct sfab_wire_port_info pi;
	uint32_t has = 0;

	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_PORT_INFO, 1);
	if (hc_mad_ifc(c, &smp, &r, 1, 0, &has) || !has)
		return -1;
	memcpy(&pi, r.data, sizeof(pi));
	pi.speed_supp_state = (pi.speed_supp_state & 0xf0) | st;
	pi.phys_state_down_def &= 0x0f;
	smp.method = SFAB_MAD_METHOD_SET;
	memcpy(smp.data, &pi, sizeof(pi));
	if (hc_mad_ifc(c, &smp, &r, 1, 0, &has) || !has)
		return -1;
	return sfab_be16_to_cpu(r.status);
}

TEST(armed_active_events)
{
	struct hca_cable *c = hc_trained();
	uint64_t d;

	CHECK_EQ(set_state(c, SFAB_PORT_ACTIVE), SFAB_MAD_STS_INVALID_FIELD);
	CHECK_EQ(set_state(c, SFAB_PORT_ARMED), 0);
	REQUIRE(next_port_change(c, &d));
	CHECK_EQ(d, port_change_data(SFAB_PORT_ARMED, SFAB_PHYS_LINKUP));
	check_port(c, SFAB_PORT_ARMED, SFAB_PHYS_LINKUP);
	CHECK_EQ(set_state(c, SFAB_PORT_ACTIVE), 0);
	REQUIRE(next_port_change(c, &d));
	CHECK_EQ(d, port_change_data(SFAB_PORT_ACTIVE, SFAB_PHYS_LINKUP));
	check_port(c, SFAB_PORT_ACTIVE, SFAB_PHYS_LINKUP);
	/* Active again: no change, no event */
	CHECK_EQ(set_state(c, SFAB_PORT_ACTIVE), 0);
	CHECK(!next_port_change(c, &d));
	hc_free(c);
}

TEST(cable_down_and_up)
{
	struct hca_cable *c = hc_trained();
	uint64_t d;

	CHECK_EQ(set_state(c, SFAB_PORT_ARMED), 0);
	CHECK_EQ(set_state(c, SFAB_PORT_ACTIVE), 0);
	hc_count_events(c, SFAB_AENQ_PORT_CHANGE);

	hc_unplug(c);
	REQUIRE(next_port_change(c, &d));
	CHECK_EQ(d, port_change_data(SFAB_PORT_DOWN, SFAB_PHYS_POLLING));
	check_port(c, SFAB_PORT_DOWN, SFAB_PHYS_POLLING);
	CHECK_EQ(sfab_engine_timer_deadline(c->h->e), UINT64_MAX);
	CHECK_EQ(c->h->e->port.link.cnt.link_downed, 1);

	hc_plug(c);
	hc_pump(c);
	REQUIRE(next_port_change(c, &d));
	CHECK_EQ(d, port_change_data(SFAB_PORT_INIT, SFAB_PHYS_LINKUP));
	check_port(c, SFAB_PORT_INIT, SFAB_PHYS_LINKUP);

	/* a silent peer: the cable is there but nobody trains */
	hc_unplug(c);
	hc_count_events(c, SFAB_AENQ_PORT_CHANGE);
	sfab_engine_cable_up(c->h->e);
	hc_drop_outbox(c);
	c->h->now += 3 * SFAB_LINK_FC_REFRESH_NS;
	sfab_engine_timer(c->h->e);
	CHECK(c->nout > 0);		/* Init sent again, nobody answers */
	hc_drop_outbox(c);
	check_port(c, SFAB_PORT_DOWN, SFAB_PHYS_POLLING);
	CHECK_EQ(hc_count_events(c, SFAB_AENQ_PORT_CHANGE), 0);
	hc_free(c);
}

TEST(teardown_takes_port_down)
{
	struct hca_cable *c = hc_trained();
	struct sfab_aq_cmd cmd = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	uint64_t d;

	CHECK_EQ(host_cmd(c->h, &cmd), SFAB_AQ_STS_OK);
	REQUIRE(next_port_change(c, &d));
	CHECK_EQ(d, port_change_data(SFAB_PORT_DOWN, SFAB_PHYS_POLLING));
	check_port(c, SFAB_PORT_DOWN, SFAB_PHYS_POLLING);
	/* frames now find the port down: dropped, nothing sent back */
	hc_drop_outbox(c);
	sfab_engine_cable_rx(c->h->e, (const uint8_t *)"\x10\x00\x00\x00\x00\x00", 6);
	CHECK_EQ(c->nout, 0);
	cmd = cmd_init_hca(12);
	CHECK_EQ(host_cmd(c->h, &cmd), SFAB_AQ_STS_OK);
	hc_pump(c);
	c->h->now += 2 * SFAB_LINK_FC_REFRESH_NS;
	sfab_engine_timer(c->h->e);
	hc_pump(c);
	check_port(c, SFAB_PORT_INIT, SFAB_PHYS_LINKUP);
	hc_free(c);
}

/* a PMA Get from the peer to the HCA's QP1 */
static bool peer_pma_get(struct hca_cable *c, uint16_t attr)
{
	uint8_t mad[SFAB_WIRE_MAD_LEN], buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t n;

	hc_pma_init(mad, SFAB_MAD_METHOD_GET, attr, 1);
	n = hc_mad_pkt(buf, mad, 1, SFAB_LID_PERMISSIVE, 1);
	return hc_peer_send(c, buf, n);
}

TEST(credits_flow_and_stall)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_port_counters pc;
	uint8_t mad[SFAB_WIRE_MAD_LEN], resp[SFAB_WIRE_MAD_LEN];
	unsigned int i, per = sfab_link_blocks(SFAB_WIRE_UD_MAD_PKT_LEN);
	unsigned int fit = HC_PEER_BLOCKS / per;
	uint32_t has;

	CHECK_EQ(set_state(c, SFAB_PORT_ARMED), 0);
	CHECK_EQ(set_state(c, SFAB_PORT_ACTIVE), 0);
	hc_peer_activate(c);
	hc_pump(c);

	/* one request: its credit comes back, the response arrives */
	REQUIRE(peer_pma_get(c, SFAB_PMA_ATTR_PORT_COUNTERS));
	hc_pump(c);
	CHECK_EQ(c->ninbox, 1);
	/*
	 * the peer keeps most of its credit, so the HCA's update waits for
	 * the refresh (sfab_link.c, fc_low_water())
	 */
	CHECK_EQ(sfab_link_tx_credits(&c->peer, 0), 256 - per);
	c->h->now += SFAB_LINK_FC_REFRESH_NS;
	hc_pump(c);
	CHECK_EQ(sfab_link_tx_credits(&c->peer, 0), 256);
	CHECK_EQ(sfab_link_tx_credits(&c->h->e->port.link, 0), HC_PEER_BLOCKS);
	hc_free_inbox(c);

	/* the peer stops freeing its buffer: the HCA runs out of credit */
	c->auto_free = false;
	for (i = 0; i < fit + 3; i++) {
		REQUIRE(peer_pma_get(c, SFAB_PMA_ATTR_PORT_COUNTERS));
		hc_pump(c);
	}
	CHECK_EQ(c->ninbox, fit);		/* what the buffer holds */
	CHECK_EQ(c->h->e->port.txq_len, 3);	/* the rest waits, not dropped */
	CHECK(c->h->e->port.stall_since != 0);
	CHECK_EQ(c->peer.cnt.excessive_buffer_overrun, 0);
	c->h->now += 5000;

	/* the peer frees: the FC update releases the waiting responses */
	hc_peer_free_all(c);
	hc_free_inbox(c);
	c->auto_free = true;
	hc_pump(c);
	CHECK_EQ(c->ninbox, 3);
	CHECK_EQ(c->h->e->port.txq_len, 0);
	CHECK_EQ(c->h->e->port.stall_since, 0);
	CHECK(c->h->e->port.xmit_wait >= 5000);

	/* PortXmitWait and the packet counts through MAD_IFC */
	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	CHECK_EQ(hc_mad_ifc(c, mad, resp, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 1);
	memcpy(&pc, resp + SFAB_PMA_DATA_OFFSET, sizeof(pc));
	CHECK(sfab_be32_to_cpu(pc.port_xmit_wait) >= 5000);
	CHECK_EQ(sfab_be32_to_cpu(pc.port_rcv_packets), fit + 4);
	CHECK_EQ(sfab_be32_to_cpu(pc.port_xmit_packets), fit + 4);
	CHECK_EQ(sfab_be16_to_cpu(pc.port_xmit_discards), 0);
	CHECK_EQ(sfab_be16_to_cpu(pc.port_rcv_errors), 0);
	hc_free_inbox(c);
	hc_free(c);
}

TEST(bad_frames_counted)
{
	struct hca_cable *c = hc_trained();
	uint8_t mad[SFAB_WIRE_MAD_LEN], buf[SFAB_WIRE_MAX_PKT_LEN];
	size_t n;

	hc_pma_init(mad, SFAB_MAD_METHOD_GET, SFAB_PMA_ATTR_PORT_COUNTERS, 1);
	n = hc_mad_pkt(buf, mad, 0, SFAB_LID_PERMISSIVE, 1);
	buf[n - 1] ^= 1;				/* VCRC */
	sfab_engine_cable_rx(c->h->e, buf, n);
	sfab_engine_cable_rx(c->h->e, buf, 3);		/* runt */
	CHECK_EQ(c->h->e->port.link.cnt.vcrc_errors, 1);
	CHECK_EQ(c->h->e->port.link.cnt.malformed, 1);
	hc_pump(c);
	CHECK_EQ(c->ninbox, 0);
	check_port(c, SFAB_PORT_INIT, SFAB_PHYS_LINKUP);
	hc_free(c);
}

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245U + 12345U;
	return rnd_state >> 8;
}

/* garbage and well-formed packets with random MADs: nothing breaks */
TEST(random_frames)
{
	static const uint8_t classes[] = { 0x01, 0x81, 0x04, 0x03, 0x07, 0x55 };
	struct hca_cable *c = hc_trained();
	uint8_t mad[SFAB_WIRE_MAD_LEN], buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp *smp = (struct sfab_wire_smp *)mad;
	struct sfab_wire_smp r;
	unsigned int i, j;
	uint32_t has;

	CHECK_EQ(set_state(c, SFAB_PORT_ARMED), 0);
	CHECK_EQ(set_state(c, SFAB_PORT_ACTIVE), 0);
	hc_peer_activate(c);
	hc_pump(c);
	for (i = 0; i < 3000; i++) {
		size_t n;

		for (j = 0; j < sizeof(mad); j++)
			mad[j] = rnd();
		mad[0] = rnd() % 4 ? 1 : mad[0];
		mad[1] = classes[rnd() % sizeof(classes)];
		mad[2] = rnd() % 4 ? 1 : mad[2];
		mad[3] = rnd() % 3 ? (rnd() % 2 ? 1 : 2) : mad[3];
		if (rnd() % 2) {
			smp->hop_cnt %= 4;
			smp->hop_ptr %= 5;
		}
		/* PortInfo Sets that would take the port away stay rare */
		if (sfab_be16_to_cpu(smp->attr_id) == SFAB_SMP_ATTR_PORT_INFO &&
		    mad[3] == 2 && rnd() % 8)
			mad[3] = 1;
		switch (rnd() % 4) {
		case 0:		/* bytes, any length */
			n = rnd() % 600;
			for (j = 0; j < n; j++)
				buf[j] = rnd();
			sfab_engine_cable_rx(c->h->e, buf, n);
			break;
		case 1:		/* a MAD from the host */
			hc_mad_ifc(c, mad, &r, 1, rnd(), &has);
			break;
		default:	/* a well-formed packet to QP0 or QP1 */
			n = hc_mad_pkt(buf, mad, rnd() % 2,
				       rnd() % 2 ? SFAB_LID_PERMISSIVE : rnd(),
				       rnd());
			if (rnd() % 8 == 0) {
				buf[rnd() % n] ^= 1 << (rnd() % 8);
			}
			hc_peer_send(c, buf, n);
			break;
		}
		hc_pump(c);
		hc_free_inbox(c);
		hc_count_events(c, 0);
	}
	CHECK(!dev_fatal(c->h));
	CHECK_EQ(c->peer.cnt.excessive_buffer_overrun, 0);
	CHECK_EQ(c->h->e->port.link.cnt.excessive_buffer_overrun, 0);
	CHECK(c->h->e->stats.sma_mads > 100);
	CHECK(c->h->e->stats.pma_mads > 10);
	/* the SMA still answers */
	hc_smp_init(&r, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	memcpy(mad, &r, sizeof(r));
	CHECK_EQ(hc_mad_ifc(c, mad, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 1);
	CHECK_EQ(r.data[2], SFAB_NODE_TYPE_CA);
	hc_free(c);
}
