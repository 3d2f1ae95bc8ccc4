/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's port on an in-memory cable, for host unit tests: a fake
 * host (fake_host.h) whose engine sends its frames into an outbox, and a
 * peer that is a plain sfab_link (the other end of the cable) with an
 * inbox for the data packets it receives.  hc_pump() moves frames both
 * ways until the cable is quiet.  Include after harness.h.
 */
#ifndef SFAB_TEST_HCA_PORT_H
#define SFAB_TEST_HCA_PORT_H

#include "fake_host.h"
#include "../../qemu-model/link/sfab_pkt.h"

#define HC_MAX_FRAMES	1024
#define HC_PEER_BLOCKS	69	/* the smallest buffer a 4 KiB MTU allows */

struct hca_cable {
	struct fake_host *h;
	/* frames the engine sent, not yet delivered */
	unsigned int nout;
	uint8_t *out[HC_MAX_FRAMES];
	size_t out_len[HC_MAX_FRAMES];
	unsigned long fc_sent, data_sent;
	/* the peer */
	struct sfab_link peer;
	bool peer_on;			/* plugged in: frames reach it */
	bool auto_free;			/* the peer frees its buffers at once */
	unsigned int ninbox;
	uint8_t *inbox[HC_MAX_FRAMES];
	size_t inbox_len[HC_MAX_FRAMES];
	unsigned int inbox_vl[HC_MAX_FRAMES];
};

static struct hca_cable *hc_cur;
static struct sfab_engine_ops hc_ops;

static inline void hc_cable_tx(void *opaque, const uint8_t *f, size_t len)
{
	struct hca_cable *c = hc_cur;

	(void)opaque;
	if (len == SFAB_WIRE_FC_PKT_LEN)
		c->fc_sent++;
	else
		c->data_sent++;
	if (c->nout == HC_MAX_FRAMES) {
		fprintf(stderr, "hca cable: outbox full\n");
		abort();
	}
	c->out[c->nout] = malloc(len);
	memcpy(c->out[c->nout], f, len);
	c->out_len[c->nout++] = len;
}

static inline void hc_peer_cfg(struct sfab_link_cfg *lc)
{
	memset(lc, 0, sizeof(*lc));
	lc->num_data_vls = 4;
	lc->vl_blocks = HC_PEER_BLOCKS;
	lc->vl15_blocks = 40;
	lc->fc_period_ns = SFAB_LINK_FC_PERIOD_NS;
}

/* a host with firmware (and an AENQ), the HCA initialised when @init */
static inline struct hca_cable *hc_new(bool init)
{
	struct hca_cable *c = calloc(1, sizeof(*c));
	struct sfab_link_cfg lc;
	struct sfab_aq_cmd cmd;

	if (!c)
		abort();
	hc_cur = c;
	c->h = host_up(5);
	hc_ops = fh_ops;
	hc_ops.cable_tx = hc_cable_tx;
	c->h->e->ops = &hc_ops;
	host_setup_aenq(c->h, 6);
	if (host_fw_load(c->h) != SFAB_AQ_STS_OK)
		fprintf(stderr, "hca cable: firmware load failed\n");
	if (init) {
		cmd = cmd_init_hca(12);
		if (host_cmd(c->h, &cmd) != SFAB_AQ_STS_OK)
			fprintf(stderr, "hca cable: INIT_HCA failed\n");
	}
	hc_peer_cfg(&lc);
	sfab_link_init(&c->peer, &lc);
	c->auto_free = true;
	return c;
}

static inline void hc_drop_outbox(struct hca_cable *c)
{
	unsigned int i;

	for (i = 0; i < c->nout; i++)
		free(c->out[i]);
	c->nout = 0;
}

static inline void hc_free_inbox(struct hca_cable *c)
{
	unsigned int i;

	for (i = 0; i < c->ninbox; i++)
		free(c->inbox[i]);
	c->ninbox = 0;
}

static inline void hc_free(struct hca_cable *c)
{
	hc_drop_outbox(c);
	hc_free_inbox(c);
	host_free(c->h);
	free(c);
	hc_cur = NULL;
}

/* plug the cable in at both ends (the peer starts training) */
static inline void hc_plug(struct hca_cable *c)
{
	c->peer_on = true;
	sfab_link_phys_up(&c->peer, c->h->now);
	sfab_engine_cable_up(c->h->e);
}

static inline void hc_unplug(struct hca_cable *c)
{
	c->peer_on = false;
	sfab_link_phys_down(&c->peer, false);
	sfab_engine_cable_down(c->h->e);
	hc_drop_outbox(c);
}

/* deliver frames both ways until nothing moves; return frames moved */
static inline unsigned long hc_pump(struct hca_cable *c)
{
	uint8_t fc[SFAB_WIRE_FC_PKT_LEN];
	unsigned long moved = 0;
	bool busy;

	do {
		unsigned int i, n = c->nout;
		uint8_t *out[HC_MAX_FRAMES];
		size_t len[HC_MAX_FRAMES];

		busy = false;
		memcpy(out, c->out, n * sizeof(out[0]));
		memcpy(len, c->out_len, n * sizeof(len[0]));
		c->nout = 0;
		for (i = 0; i < n; i++) {
			unsigned int vl;

			if (c->peer_on &&
			    sfab_link_rx(&c->peer, out[i], len[i], &vl) ==
			    SFAB_LINK_RX_DATA) {
				if (c->ninbox < HC_MAX_FRAMES) {
					c->inbox[c->ninbox] = malloc(len[i]);
					memcpy(c->inbox[c->ninbox], out[i], len[i]);
					c->inbox_len[c->ninbox] = len[i];
					c->inbox_vl[c->ninbox++] = vl;
				}
				if (c->auto_free)
					sfab_link_rx_free(&c->peer, vl, len[i]);
			}
			free(out[i]);
			moved++;
			busy = true;
		}
		while (c->peer_on && sfab_link_fc_next(&c->peer, c->h->now, fc)) {
			sfab_engine_cable_rx(c->h->e, fc, sizeof(fc));
			moved++;
			busy = true;
		}
	} while (busy);
	return moved;
}

/* the peer frees every buffer it holds (the inbox stays readable) */
static inline void hc_peer_free_all(struct hca_cable *c)
{
	unsigned int i;

	for (i = 0; i < c->ninbox; i++)
		sfab_link_rx_free(&c->peer, c->inbox_vl[i], c->inbox_len[i]);
}

/* the peer sends a frame, credit permitting */
static inline bool hc_peer_send(struct hca_cable *c, const uint8_t *f, size_t len)
{
	unsigned int vl = sfab_link_pkt_vl(f);

	if (!sfab_link_tx_ok(&c->peer, vl, len))
		return false;
	sfab_link_tx_sent(&c->peer, vl, f, len);
	sfab_engine_cable_rx(c->h->e, f, len);
	return true;
}

/* both ends Active, as a subnet manager would make them */
static inline void hc_peer_activate(struct hca_cable *c)
{
	sfab_link_set_state(&c->peer, SFAB_PORT_ARMED);
	sfab_link_set_state(&c->peer, SFAB_PORT_ACTIVE);
}

/* QUERY_PORT into *a; returns the status */
static inline int hc_query_port(struct hca_cable *c, struct sfab_port_attr *a)
{
	struct sfab_aq_cmd cmd = cmd_query_port(c->h->scratch, sizeof(*a), 1);
	int st;

	memset(hp(c->h, c->h->scratch), 0xee, sizeof(*a));
	st = host_cmd(c->h, &cmd);
	memcpy(a, hp(c->h, c->h->scratch), sizeof(*a));
	return st;
}

/* the next async event of @type, skipping others; false if none */
static inline bool hc_event(struct hca_cable *c, uint8_t type,
			    struct sfab_aenq_entry *ev)
{
	while (host_aenq_poll(c->h, ev))
		if (ev->type == type)
			return true;
	return false;
}

/* drain every pending async event; return how many of @type there were */
static inline unsigned int hc_count_events(struct hca_cable *c, uint8_t type)
{
	struct sfab_aenq_entry ev;
	unsigned int n = 0;

	while (host_aenq_poll(c->h, &ev))
		if (ev.type == type)
			n++;
	return n;
}

static inline uint64_t port_change_data(enum sfab_port_state st,
					enum sfab_port_phys_state phys)
{
	return SFAB_FIELD_PREP(SFAB_AENQ_PORT_STATE_MASK, st) |
	       SFAB_FIELD_PREP(SFAB_AENQ_PORT_PHYS_MASK, phys);
}

/* MAD_IFC: the status; *resp (when not NULL) the response, *has result0 */
static inline int hc_mad_ifc(struct hca_cable *c, const void *req, void *resp,
			     uint8_t port, uint16_t slid, uint32_t *has)
{
	struct fake_host *h = c->h;
	uint64_t in = h->scratch + 1024, out = h->scratch + 2048;
	struct sfab_aq_cmd cmd = cmd_new(SFAB_AQ_MAD_IFC);
	struct sfab_acq_entry cpl;
	int st;

	memcpy(hp(h, in), req, SFAB_MAD_SIZE);
	memset(hp(h, out), 0xee, SFAB_MAD_SIZE);
	cmd.u.mad_ifc.in_addr = sfab_cpu_to_le64(in);
	cmd.u.mad_ifc.out_addr = sfab_cpu_to_le64(out);
	cmd.u.mad_ifc.port_num = port;
	cmd.u.mad_ifc.slid = sfab_cpu_to_le16(slid);
	st = host_cmd_full(h, &cmd, &cpl);
	if (has)
		*has = sfab_le32_to_cpu(cpl.result0);
	if (resp)
		memcpy(resp, hp(h, out), SFAB_MAD_SIZE);
	return st;
}

/* an SMP with the fields every request has */
static inline void hc_smp_init(struct sfab_wire_smp *smp, uint8_t cls,
			       uint8_t method, uint16_t attr, uint32_t mod)
{
	memset(smp, 0, sizeof(*smp));
	smp->base_version = 1;
	smp->mgmt_class = cls;
	smp->class_version = 1;
	smp->method = method;
	smp->tid = sfab_cpu_to_be64(0x5678);
	smp->attr_id = sfab_cpu_to_be16(attr);
	smp->attr_mod = sfab_cpu_to_be32(mod);
	smp->dr_slid = sfab_cpu_to_be16(SFAB_LID_PERMISSIVE);
	smp->dr_dlid = sfab_cpu_to_be16(SFAB_LID_PERMISSIVE);
}

/* a PMA request (class 0x04) for PortSelect @ps */
static inline void hc_pma_init(uint8_t *mad, uint8_t method, uint16_t attr,
			       uint8_t ps)
{
	struct sfab_wire_mad_hdr h;

	memset(mad, 0, SFAB_WIRE_MAD_LEN);
	memset(&h, 0, sizeof(h));
	h.base_version = 1;
	h.mgmt_class = SFAB_MGMT_CLASS_PERF;
	h.class_version = 1;
	h.method = method;
	h.tid = sfab_cpu_to_be64(0x9abc);
	h.attr_id = sfab_cpu_to_be16(attr);
	memcpy(mad, &h, sizeof(h));
	mad[SFAB_PMA_DATA_OFFSET + 1] = ps;
}

/* a UD packet carrying a MAD to QP0 (VL15) or QP1 (VL0) */
static inline size_t hc_mad_pkt(uint8_t *buf, const void *mad, unsigned int qp,
				uint16_t dlid, uint16_t slid)
{
	struct sfab_pkt_ud u = {
		.vl = qp == 0 ? SFAB_VL15 : 0, .sl = 0, .dlid = dlid,
		.slid = slid, .pkey = 0xffff, .dqpn = qp, .sqpn = qp,
		.qkey = qp == 0 ? 0 : SFAB_QP1_QKEY, .psn = 0,
	};

	return sfab_link_pkt_build_ud(buf, &u, mad, SFAB_WIRE_MAD_LEN);
}

/* the MAD in the peer's inbox entry @i; false if it carries none */
static inline bool hc_inbox_mad(struct hca_cable *c, unsigned int i, void *mad,
				struct sfab_pkt_ud *u)
{
	struct sfab_pkt_ud x;

	if (!u)
		u = &x;
	if (i >= c->ninbox ||
	    !sfab_link_pkt_parse_ud(c->inbox[i], c->inbox_len[i], u) ||
	    u->len < SFAB_WIRE_MAD_LEN)
		return false;
	memcpy(mad, u->payload, SFAB_WIRE_MAD_LEN);
	return true;
}

/* cable plugged, link trained (Init), AENQ drained */
static inline struct hca_cable *hc_trained(void)
{
	struct hca_cable *c = hc_new(true);
	struct sfab_aenq_entry ev;

	hc_plug(c);
	hc_pump(c);
	while (host_aenq_poll(c->h, &ev))
		;
	return c;
}

#endif /* SFAB_TEST_HCA_PORT_H */
