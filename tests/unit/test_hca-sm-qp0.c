/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/hca-sm-qp0: a subnet manager on the HCA's host, the way opensm
 * works through ib_mad: directed-route SMPs posted on the host's QP0 go
 * out of the HCA's port on VL15, the switch (qemu-model/switch) answers,
 * and the responses come back to QP0's receive queue.  A GMP posted on
 * QP1 reaches the far node unchanged.
 *
 *   HCA (SM) --3[switch]1-- node0
 */
#include "harness.h"
#include "sw_fabric.h"
#include "hca_port.h"
#include "qp_host.h"

#define HCA_PORT	3

static struct tf *cur_tf;

static void hca_tx(void *opaque, const uint8_t *f, size_t len)
{
	(void)opaque;
	tf_send(cur_tf, (struct tf_end){ 0, HCA_PORT }, f, len);
}

static void hca_rx(void *opaque, unsigned int idx, const uint8_t *f, size_t len)
{
	struct hca_cable *c = opaque;

	(void)idx;
	sfab_engine_cable_rx(c->h->e, f, len);
}

struct sm {
	struct hca_cable *c;
	struct qh_eq eq;
	struct qh_cq cq;
	struct qh_qp qp0, qp1;
	uint64_t buf;
};

static void setup(struct tf *tf, struct sm *s)
{
	struct sfab_sw_cfg cfg;
	struct fake_host *h;

	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	cfg.num_data_vls = 4;
	cfg.fc_period_ns = 100000;
	cfg.node_guid = 0xa0;
	tf_init(tf);
	cur_tf = tf;
	tf_add_sw(tf, 0, &cfg);
	tf_add_node(tf, 0, &cfg);
	tf_cable_node(tf, 0, 0, 1);

	memset(s, 0, sizeof(*s));
	s->c = hc_new(true);
	hc_ops.cable_tx = hca_tx;
	tf->ext_rx = hca_rx;
	tf->ext_opaque = s->c;
	tf_cable_ext(tf, 0, 0, HCA_PORT);
	sfab_engine_cable_up(s->c->h->e);
	tf_pump(tf);

	h = s->c->h;
	CHECK_EQ(qh_eq_new(h, &s->eq, 4, 2), 0);
	CHECK_EQ(qh_cq_new(h, &s->cq, 6, s->eq.eqn), 0);
	CHECK_EQ(qh_qp_new(h, &s->qp0, SFAB_QPT_SMI, 4, s->cq.cqn, s->cq.cqn), 0);
	CHECK_EQ(qh_qp_new(h, &s->qp1, SFAB_QPT_GSI, 4, s->cq.cqn, s->cq.cqn), 0);
	CHECK_EQ(qh_qp_rts(h, &s->qp0, 0), 0);
	CHECK_EQ(qh_qp_rts(h, &s->qp1, SFAB_QP1_QKEY), 0);
	s->buf = host_alloc(h, 8192, 4096);
}

/*
 * Post @smp on QP0 (a receive buffer first), run the fabric; true when the
 * send completed and one response arrived, copied to @resp.
 */
static bool sm_query(struct tf *tf, struct sm *s, struct sfab_wire_smp *smp,
		     uint16_t dlid, struct sfab_wire_smp *resp)
{
	struct fake_host *h = s->c->h;
	struct sfab_cqe cqe;
	bool sent = false, got = false;
	struct qh_send snd = {
		.wr_id = 1, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.dqpn = 0, .dlid = dlid, .addr = s->buf, .len = SFAB_MAD_SIZE,
		.lkey = QH_LKEY,
	};

	memcpy(hp(h, s->buf), smp, sizeof(*smp));
	memset(hp(h, s->buf + 4096), 0, 296);
	qh_post_recv(h, &s->qp0, 2, s->buf + 4096, 296, QH_LKEY);
	qh_qp_db(h, &s->qp0, false);
	qh_post_send(h, &s->qp0, &snd);
	qh_qp_db(h, &s->qp0, true);
	tf_pump(tf);
	while (qh_cq_poll(h, &s->cq, &cqe)) {
		if (cqe.status)
			return false;
		if (cqe_op(&cqe) == SFAB_CQE_SEND)
			sent = true;
		else if (sfab_le64_to_cpu(cqe.wr_id) == 2 &&
			 sfab_le32_to_cpu(cqe.byte_len) == 296)
			got = true;
	}
	memcpy(resp, hp(h, s->buf + 4096 + SFAB_UD_GRH_LEN), sizeof(*resp));
	return sent && got;
}

TEST(sm_sweeps_switch)
{
	struct sfab_wire_node_info ni;
	struct sfab_wire_port_info pi;
	struct sfab_wire_smp smp, r;
	struct tf tf;
	struct sm s;

	setup(&tf, &s);
	CHECK_EQ(s.c->h->e->port.link.state, SFAB_PORT_INIT);

	/* ib_mad sends a one-hop DR SMP with the hop pointer advanced */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_NODE_INFO, 0);
	smp.hop_cnt = 1;
	smp.hop_ptr = 1;
	smp.initial_path[1] = 1;
	REQUIRE(sm_query(&tf, &s, &smp, SFAB_LID_PERMISSIVE, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(r.mgmt_class, SFAB_MGMT_CLASS_SUBN_DR);
	CHECK(sfab_be16_to_cpu(r.status) & SFAB_SMP_DIRECTION);
	memcpy(&ni, r.data, sizeof(ni));
	CHECK_EQ(ni.node_type, SFAB_NODE_TYPE_SWITCH);
	CHECK_EQ(sfab_be64_to_cpu(ni.node_guid), 0xa0);
	CHECK_EQ(ni.local_port_num, HCA_PORT);

	/* the switch gets LID 2, its SM LID is ours */
	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_PORT_INFO, 0);
	smp.hop_cnt = 1;
	smp.hop_ptr = 1;
	smp.initial_path[1] = 1;
	REQUIRE(sm_query(&tf, &s, &smp, SFAB_LID_PERMISSIVE, &r));
	memcpy(&pi, r.data, sizeof(pi));
	pi.lid = sfab_cpu_to_be16(2);
	pi.sm_lid = sfab_cpu_to_be16(1);
	pi.speed_supp_state &= 0xf0;
	pi.phys_state_down_def &= 0x0f;
	smp.method = SFAB_MAD_METHOD_SET;
	memcpy(smp.data, &pi, sizeof(pi));
	REQUIRE(sm_query(&tf, &s, &smp, SFAB_LID_PERMISSIVE, &r));
	memcpy(&pi, r.data, sizeof(pi));
	CHECK_EQ(sfab_be16_to_cpu(r.status) & 0x7fff, 0);
	CHECK_EQ(sfab_be16_to_cpu(pi.lid), 2);

	/* nothing was lost or left in the host's queues */
	CHECK_EQ(s.c->h->e->stats.host_mads_dropped, 0);
	CHECK_EQ(s.c->h->e->port.xmit_discards, 0);
	tf_fini(&tf);
	hc_free(s.c);
}

/* a GMP on QP1 reaches node0 (VL0 once the link is Active) */
TEST(gmp_to_node)
{
	struct sfab_cqe cqe;
	struct fake_host *h;
	unsigned int before;
	uint8_t *mad;
	struct tf tf;
	struct sm s;
	struct qh_send snd = {
		.wr_id = 8, .opcode = SFAB_WQE_SEND, .flags = SFAB_WQE_SIGNALED,
		.dqpn = 1, .qkey = SFAB_QP1_QKEY, .dlid = 1, .len = SFAB_MAD_SIZE,
		.lkey = QH_LKEY,
	};

	setup(&tf, &s);
	h = s.c->h;
	/* LIDs and an LFT as an SM would set them, all ports Active */
	h->e->port.lid = 3;
	sfab_sw_lft_set(tf.sw[0], 1, 1);
	sfab_sw_lft_set(tf.sw[0], 3, HCA_PORT);
	tf_activate(&tf);
	sfab_link_set_state(&h->e->port.link, SFAB_PORT_ARMED);
	sfab_link_set_state(&h->e->port.link, SFAB_PORT_ACTIVE);
	tf_pump(&tf);

	mad = hp(h, s.buf);
	memset(mad, 0, SFAB_MAD_SIZE);
	mad[0] = 1;
	mad[1] = 0x03;
	mad[2] = 2;
	mad[3] = SFAB_MAD_METHOD_GET;
	snd.addr = s.buf;
	before = tf.node[0].ninbox;
	qh_post_send(h, &s.qp1, &snd);
	qh_qp_db(h, &s.qp1, true);
	tf_pump(&tf);
	REQUIRE(qh_cq_poll(h, &s.cq, &cqe));
	CHECK_EQ(cqe.status, 0);
	CHECK_EQ(tf.node[0].ninbox, before + 1);
	if (tf.node[0].ninbox == before + 1) {
		struct sfab_pkt_ud u;

		REQUIRE(sfab_link_pkt_parse_ud(tf.node[0].inbox[before].data,
					       tf.node[0].inbox[before].len, &u));
		CHECK_EQ(u.dqpn, 1);
		CHECK_EQ(u.sqpn, 1);
		CHECK_EQ(u.qkey, SFAB_QP1_QKEY);
		CHECK_EQ(u.slid, 3);
		CHECK_EQ(u.dlid, 1);
		CHECK_EQ(u.pkey, SFAB_PKEY_DEFAULT);
		CHECK_EQ(u.vl, 0);
		CHECK_EQ(u.len, SFAB_MAD_SIZE);
		CHECK(memcmp(u.payload, mad, SFAB_MAD_SIZE) == 0);
	}
	tf_fini(&tf);
	hc_free(s.c);
}
