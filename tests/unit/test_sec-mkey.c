/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/sec-mkey: M_Key (IBTA 14.2.4) on the HCA's SMA and the switch's.
 * The check itself (sfab_mad_mkey_check()): every protection level, Get,
 * Set and TrapRepress with the right and a wrong key, M_KeyViolations
 * stopping at 0xffff, the lease that lifts the protection when it runs
 * out and that a right key stops.  Then the agents: once an SM has set a
 * key at level 2, an SMP with a wrong one gets no answer, counts in
 * PortInfo's M_KeyViolations and sends trap 256 (Bad M_Key, with the
 * refused SMP's method, attribute and key) to the SM's LID; the right key
 * is answered; level 1 answers a wrong-key Get with the M_Key hidden;
 * MAD_IFC is checked too unless the host says IGNORE_MKEY (ib_core's own
 * queries).  A switch forwards DR SMPs for others whatever its own key.
 */
#include "harness.h"
#include "hca_port.h"
#include "sw_fabric.h"

#define KEY	0x1122334455667788ULL
#define S	1000000000ULL

static struct sfab_wire_smp smp_of(uint8_t method, uint64_t key)
{
	struct sfab_wire_smp s;

	memset(&s, 0, sizeof(s));
	s.base_version = SFAB_MAD_BASE_VERSION;
	s.mgmt_class = SFAB_MGMT_CLASS_SUBN_LID;
	s.class_version = SFAB_SMP_CLASS_VERSION;
	s.method = method;
	s.attr_id = sfab_cpu_to_be16(SFAB_SMP_ATTR_PORT_INFO);
	s.mkey = sfab_cpu_to_be64(key);
	return s;
}

TEST(check_levels)
{
	static const uint8_t methods[] = {
		SFAB_MAD_METHOD_GET, SFAB_MAD_METHOD_SET,
		SFAB_MAD_METHOD_TRAP_REPRESS,
	};
	unsigned int prot, k;

	for (prot = 0; prot < 4; prot++) {
		for (k = 0; k < 3; k++) {
			struct sfab_mad_mkey m = { .key = KEY, .prot = prot };
			struct sfab_wire_smp right = smp_of(methods[k], KEY);
			struct sfab_wire_smp wrong = smp_of(methods[k], KEY + 1);
			enum sfab_mad_mkey_act want;

			CHECK_EQ(sfab_mad_mkey_check(&m, &right, 0),
				 SFAB_MAD_MKEY_OK);
			if (methods[k] != SFAB_MAD_METHOD_GET || prot >= 2)
				want = SFAB_MAD_MKEY_BAD;
			else
				want = prot ? SFAB_MAD_MKEY_HIDE : SFAB_MAD_MKEY_OK;
			CHECK_EQ(sfab_mad_mkey_check(&m, &wrong, 0), want);
			CHECK_EQ(m.violations, want == SFAB_MAD_MKEY_BAD);
			/* no lease period: no lease */
			CHECK_EQ(m.lease_end, 0);
		}
	}
	/* no key: nothing is checked */
	{
		struct sfab_mad_mkey m = { .key = 0, .prot = 3 };
		struct sfab_wire_smp s = smp_of(SFAB_MAD_METHOD_SET, 99);

		CHECK_EQ(sfab_mad_mkey_check(&m, &s, 0), SFAB_MAD_MKEY_OK);
		CHECK_EQ(m.violations, 0);
	}
}

TEST(violations_saturate_and_lease)
{
	struct sfab_mad_mkey m = { .key = KEY, .prot = 3, .lease_period = 2 };
	struct sfab_wire_smp wrong = smp_of(SFAB_MAD_METHOD_GET, 0);
	struct sfab_wire_smp right = smp_of(SFAB_MAD_METHOD_GET, KEY);
	unsigned int i;

	CHECK_EQ(sfab_mad_mkey_check(&m, &wrong, 10 * S), SFAB_MAD_MKEY_BAD);
	CHECK_EQ(m.lease_end, 12 * S);
	/* a later violation does not restart a running lease */
	CHECK_EQ(sfab_mad_mkey_check(&m, &wrong, 11 * S), SFAB_MAD_MKEY_BAD);
	CHECK_EQ(m.lease_end, 12 * S);
	/* the lease ran out: protection lifted, the key stays */
	CHECK_EQ(sfab_mad_mkey_check(&m, &wrong, 12 * S), SFAB_MAD_MKEY_OK);
	CHECK_EQ(m.prot, 0);
	CHECK_EQ(m.key, KEY);
	CHECK_EQ(m.lease_end, 0);

	/* the right key stops a running lease */
	m.prot = 2;
	CHECK_EQ(sfab_mad_mkey_check(&m, &wrong, 20 * S), SFAB_MAD_MKEY_BAD);
	CHECK(m.lease_end);
	CHECK_EQ(sfab_mad_mkey_check(&m, &right, 21 * S), SFAB_MAD_MKEY_OK);
	CHECK_EQ(m.lease_end, 0);
	CHECK_EQ(sfab_mad_mkey_check(&m, &wrong, 30 * S), SFAB_MAD_MKEY_BAD);
	CHECK_EQ(m.prot, 2);

	for (i = 0; i < 70000; i++)
		sfab_mad_mkey_check(&m, &wrong, 30 * S);
	CHECK_EQ(m.violations, 0xffff);
}

/* --- the HCA's SMA ------------------------------------------------------- */

/* PortInfo as the SM sets it: LID 5, SM LID 1, @key at @prot, @lease s */
static void hca_set_key(struct hca_cable *c, uint64_t old, uint64_t key,
			uint8_t prot, uint16_t lease)
{
	struct sfab_wire_smp smp, r;
	struct sfab_wire_port_info pi;
	uint32_t has = 0;

	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_PORT_INFO, 1);
	smp.mkey = sfab_cpu_to_be64(old);
	REQUIRE(hc_mad_ifc(c, &smp, &r, 1, 0, &has) == SFAB_AQ_STS_OK && has);
	memcpy(&pi, r.data, sizeof(pi));
	pi.lid = sfab_cpu_to_be16(5);
	pi.sm_lid = sfab_cpu_to_be16(1);
	pi.mkey = sfab_cpu_to_be64(key);
	pi.mkey_lease_period = sfab_cpu_to_be16(lease);
	pi.mkeyprot_lmc = (uint8_t)(prot << 6);
	pi.speed_supp_state &= 0xf0;
	pi.phys_state_down_def &= 0x0f;
	smp.method = SFAB_MAD_METHOD_SET;
	memcpy(smp.data, &pi, sizeof(pi));
	REQUIRE(hc_mad_ifc(c, &smp, &r, 1, 0, &has) == SFAB_AQ_STS_OK && has);
	CHECK_EQ(sfab_be16_to_cpu(r.status), 0);
}

/*
 * The peer sends a LID-routed Get(PortInfo) with @key to LID 5.  Returns
 * true with its answer, false when none came; *trap: a trap 256 came.
 */
static bool hca_get(struct hca_cable *c, uint64_t key,
		    struct sfab_wire_port_info *pi,
		    struct sfab_wire_notice_bad_mkey *trap)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp, r;
	struct sfab_pkt_ud u;
	unsigned int before = c->ninbox, i;
	bool answered = false;
	size_t n;

	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_GET,
		    SFAB_SMP_ATTR_PORT_INFO, 1);
	smp.mkey = sfab_cpu_to_be64(key);
	n = hc_mad_pkt(buf, &smp, 0, 5, 1);
	if (!hc_peer_send(c, buf, n)) {
		CHECK(!"the peer could not send");
		return false;
	}
	hc_pump(c);
	memset(trap, 0, sizeof(*trap));
	for (i = before; i < c->ninbox; i++) {
		if (!hc_inbox_mad(c, i, &r, &u)) {
			CHECK(!"a frame that is no MAD");
			continue;
		}
		CHECK_EQ(u.vl, SFAB_VL15);
		CHECK_EQ(u.dlid, 1);
		CHECK_EQ(u.slid, 5);
		if (r.method == SFAB_MAD_METHOD_TRAP) {
			CHECK_EQ(sfab_be16_to_cpu(r.attr_id), SFAB_SMP_ATTR_NOTICE);
			memcpy(trap, r.data, sizeof(*trap));
		} else {
			CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
			memcpy(pi, r.data, sizeof(*pi));
			answered = true;
		}
	}
	CHECK(c->ninbox - before == 1);
	return answered;
}

TEST(hca_sma_level2)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_notice_bad_mkey t;
	struct sfab_wire_port_info pi;
	struct sfab_wire_smp smp, r;
	uint32_t has = 7;

	hc_peer_activate(c);
	hca_set_key(c, 0, KEY, 2, 0);
	/* the right key: answered, the key shown */
	REQUIRE(hca_get(c, KEY, &pi, &t));
	CHECK_EQ(sfab_be64_to_cpu(pi.mkey), KEY);
	CHECK_EQ(pi.mkeyprot_lmc >> 6, 2);
	CHECK_EQ(sfab_be16_to_cpu(pi.mkey_violations), 0);

	/* a wrong key: no answer, trap 256 to the SM */
	CHECK(!hca_get(c, 0xbad, &pi, &t));
	CHECK_EQ(t.generic_type, SFAB_NOTICE_GENERIC | SFAB_NOTICE_TYPE_SECURITY);
	CHECK_EQ(t.producer_type[2], SFAB_NOTICE_PROD_CA);
	CHECK_EQ(sfab_be16_to_cpu(t.trap_num), SFAB_TRAP_BAD_MKEY);
	CHECK_EQ(sfab_be16_to_cpu(t.issuer_lid), 5);
	CHECK_EQ(sfab_be16_to_cpu(t.lid), 5);
	CHECK_EQ(t.method, SFAB_MAD_METHOD_GET);
	CHECK_EQ(sfab_be16_to_cpu(t.attr_id), SFAB_SMP_ATTR_PORT_INFO);
	CHECK_EQ(sfab_be64_to_cpu(t.mkey), 0xbad);
	CHECK_EQ(c->h->e->stats.mkey_refused, 1);

	REQUIRE(hca_get(c, KEY, &pi, &t));
	CHECK_EQ(sfab_be16_to_cpu(pi.mkey_violations), 1);

	/* MAD_IFC: checked, unless the host asks for IGNORE_MKEY */
	hc_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
		    SFAB_SMP_ATTR_PORT_INFO, 1);
	memcpy(smp.data, &pi, sizeof(pi));
	CHECK_EQ(hc_mad_ifc(c, &smp, &r, 1, 0, &has), SFAB_AQ_STS_OK);
	CHECK_EQ(has, 0);
	CHECK_EQ(c->h->e->stats.mkey_refused, 2);
	{
		struct sfab_aq_cmd cmd = cmd_new(SFAB_AQ_MAD_IFC);
		struct sfab_acq_entry cpl;
		struct fake_host *h = c->h;

		smp.method = SFAB_MAD_METHOD_GET;
		memcpy(hp(h, h->scratch + 1024), &smp, sizeof(smp));
		cmd.u.mad_ifc.in_addr = sfab_cpu_to_le64(h->scratch + 1024);
		cmd.u.mad_ifc.out_addr = sfab_cpu_to_le64(h->scratch + 2048);
		cmd.u.mad_ifc.port_num = 1;
		cmd.u.mad_ifc.flags = SFAB_MAD_IFC_IGNORE_MKEY;
		CHECK_EQ(host_cmd_full(h, &cmd, &cpl), SFAB_AQ_STS_OK);
		CHECK_EQ(sfab_le32_to_cpu(cpl.result0), 1);
		cmd.u.mad_ifc.flags = 0x80;
		CHECK_EQ(host_cmd_full(h, &cmd, &cpl), SFAB_AQ_STS_BAD_PARAM);
	}
	hc_free(c);
}

TEST(hca_sma_level1_and_lease)
{
	struct hca_cable *c = hc_trained();
	struct sfab_wire_notice_bad_mkey t;
	struct sfab_wire_port_info pi;

	hc_peer_activate(c);
	hca_set_key(c, 0, KEY, 1, 0);
	/* level 1: a wrong-key Get is answered, the key hidden */
	REQUIRE(hca_get(c, 0xbad, &pi, &t));
	CHECK_EQ(sfab_be64_to_cpu(pi.mkey), 0);
	CHECK_EQ(sfab_be16_to_cpu(pi.mkey_violations), 0);

	/* level 3, a 2 s lease: refused until the lease runs out */
	hca_set_key(c, KEY, KEY, 3, 2);
	CHECK(!hca_get(c, 0xbad, &pi, &t));
	CHECK_EQ(sfab_be16_to_cpu(t.trap_num), SFAB_TRAP_BAD_MKEY);
	c->h->now += S;
	CHECK(!hca_get(c, 0xbad, &pi, &t));
	c->h->now += 2 * S;
	REQUIRE(hca_get(c, 0xbad, &pi, &t));
	/* protection lifted: the key is shown to anyone */
	CHECK_EQ(sfab_be64_to_cpu(pi.mkey), KEY);
	CHECK_EQ(pi.mkeyprot_lmc >> 6, 0);
	CHECK_EQ(sfab_be16_to_cpu(pi.mkey_violations), 2);
	hc_free(c);
}

/* --- the switch's SMA ---------------------------------------------------- */

static bool sw_dr(struct tf *tf, uint8_t method, const uint8_t *path,
		  unsigned int hc, uint64_t key, const void *data,
		  struct sfab_wire_smp *resp)
{
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	struct sfab_wire_smp smp;
	unsigned int before = tf->node[0].ninbox, i;
	size_t n;

	tf_smp_init(&smp, SFAB_MGMT_CLASS_SUBN_DR, method,
		    SFAB_SMP_ATTR_PORT_INFO, 0);
	smp.mkey = sfab_cpu_to_be64(key);
	smp.hop_cnt = hc;
	for (i = 1; i <= hc; i++)
		smp.initial_path[i] = path[i];
	if (data)
		memcpy(smp.data, data, SFAB_SMP_DATA_LEN);
	smp.hop_ptr = 1;
	n = tf_smp(buf, &smp, SFAB_LID_PERMISSIVE, SFAB_LID_PERMISSIVE);
	if (!tf_node_send(tf, 0, buf, n))
		return false;
	tf_pump(tf);
	if (tf->node[0].ninbox != before + 1)
		return false;
	return tf_last_mad(tf, 0, resp);
}

TEST(switch_sma)
{
	static const uint8_t path[] = { 0, 1, 2 };
	struct sfab_wire_port_info pi;
	struct sfab_sw_cfg cfg;
	struct sfab_wire_smp r;
	struct tf tf;

	/* node0 --1[A]2-- 3[B] */
	sfab_sw_default_cfg(&cfg);
	cfg.nports = 4;
	tf_init(&tf);
	cfg.node_guid = 0xa0;
	tf_add_sw(&tf, 0, &cfg);
	cfg.node_guid = 0xb0;
	tf_add_sw(&tf, 1, &cfg);
	tf_add_node(&tf, 0, &cfg);
	tf_cable_node(&tf, 0, 0, 1);
	tf_cable_sw(&tf, 0, 2, 1, 3);
	tf_pump(&tf);

	/* A gets a key at level 2, and LIDs: A is 2, the SM (node0) 1 */
	REQUIRE(sw_dr(&tf, SFAB_MAD_METHOD_GET, path, 1, 0, NULL, &r));
	memcpy(&pi, r.data, sizeof(pi));
	pi.lid = sfab_cpu_to_be16(2);
	pi.sm_lid = sfab_cpu_to_be16(1);
	pi.mkey = sfab_cpu_to_be64(KEY);
	pi.mkeyprot_lmc = 2 << 6;
	pi.speed_supp_state &= 0xf0;
	pi.phys_state_down_def &= 0x0f;
	REQUIRE(sw_dr(&tf, SFAB_MAD_METHOD_SET, path, 1, 0, &pi, &r));
	CHECK_EQ(sfab_be16_to_cpu(r.status) & ~SFAB_SMP_DIRECTION, 0);
	CHECK_EQ(tf.sw[0]->mk.key, KEY);
	REQUIRE(!sfab_sw_lft_set(tf.sw[0], 1, 1));

	/* the wrong key: no answer; trap 256 to LID 1 (node0) instead */
	REQUIRE(sw_dr(&tf, SFAB_MAD_METHOD_GET, path, 1, 0xbad, NULL, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_TRAP);
	CHECK_EQ(r.mgmt_class, SFAB_MGMT_CLASS_SUBN_LID);
	{
		struct sfab_wire_notice_bad_mkey t;

		memcpy(&t, r.data, sizeof(t));
		CHECK_EQ(sfab_be16_to_cpu(t.trap_num), SFAB_TRAP_BAD_MKEY);
		CHECK_EQ(t.producer_type[2], SFAB_NOTICE_PROD_SWITCH);
		CHECK_EQ(sfab_be16_to_cpu(t.lid), 2);
		CHECK_EQ(sfab_be64_to_cpu(t.mkey), 0xbad);
		CHECK_EQ(t.dr_notice, SFAB_NOTICE_DR | 1);
		CHECK_EQ(sfab_be16_to_cpu(t.dr_slid), SFAB_LID_PERMISSIVE);
	}
	CHECK_EQ(tf.sw[0]->mkey_refused, 1);

	/* B behind A is reached with B's key (none), whatever A's is */
	REQUIRE(sw_dr(&tf, SFAB_MAD_METHOD_GET, path, 2, 0xbad, NULL, &r));
	CHECK_EQ(r.method, SFAB_MAD_METHOD_GET_RESP);
	CHECK_EQ(tf.sw[0]->mkey_refused, 1);

	/* the right key: answered, one violation counted */
	REQUIRE(sw_dr(&tf, SFAB_MAD_METHOD_GET, path, 1, KEY, NULL, &r));
	memcpy(&pi, r.data, sizeof(pi));
	CHECK_EQ(sfab_be16_to_cpu(pi.mkey_violations), 1);
	CHECK_EQ(sfab_be64_to_cpu(pi.mkey), KEY);
	tf_fini(&tf);
}
