/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/mad: the MAD code the switch and the HCA share
 * (qemu-model/mad/sfab_mad.c), fed what a malicious node can send.
 *
 * Input: one flag byte, then either a whole frame (flag bit 0: the UD
 * packet is parsed as it arrives off a cable) or a bare 256-byte MAD.
 * The MAD goes through every parser an SMA or PMA runs on it: the SMP
 * checks, a directed-route step at a switch and at an HCA on every
 * in-port, the response's hop pointer and return port, the response
 * packet built and parsed again, a PortInfo Set on each kind of port,
 * the attribute decoders, and the PMA.
 *
 * Invariants: whatever comes in, a directed-route step names a port that
 * exists or none; a response is a response (R bit, D bit for DR) that
 * parses again as the same MAD; a refused PortInfo Set changes nothing;
 * what the decoders produce encodes and decodes to itself.
 */
#include "fuzz.h"

#include "sfab_engine.h"
#include "../../qemu-model/link/sfab_pkt.h"
#include "../../qemu-model/mad/sfab_mad.h"
#include "../../qemu-model/switch/sfab_sw.h"

#define NPORTS	36

static struct sfab_mad_pma_cnt pma_cnt;

static bool pma_port_ok(void *opaque, unsigned int port_select)
{
	(void)opaque;
	return port_select <= NPORTS || port_select == SFAB_PMA_ALL_PORTS;
}

static void pma_read(void *opaque, unsigned int port_select,
		     struct sfab_mad_pma_cnt *c)
{
	(void)opaque;
	CHECK(pma_port_ok(NULL, port_select));
	*c = pma_cnt;
}

static void pma_clear(void *opaque, unsigned int port_select)
{
	(void)opaque;
	CHECK(pma_port_ok(NULL, port_select));
}

static const struct sfab_mad_pma_ops pma_ops = {
	.port_ok = pma_port_ok,
	.read = pma_read,
	.clear = pma_clear,
};

static void dr_steps(const struct sfab_wire_smp *in, uint8_t in_port)
{
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct sfab_wire_smp smp = *in;
		bool sw = k == 0;
		unsigned int nports = sw ? NPORTS : 1;
		unsigned int port = sw ? in_port % (NPORTS + 1) : 1;
		uint8_t out = 0xee;
		uint16_t dlid = 0;
		enum sfab_mad_dr_act act;

		act = sfab_mad_dr_step(&smp, port, nports, sw, &out, &dlid);
		switch (act) {
		case SFAB_MAD_DR_FORWARD:
		case SFAB_MAD_DR_FORWARD_PERM:
			/* only a switch forwards, out of a port it has */
			CHECK(sw);
			CHECK(out >= 1 && out <= nports);
			break;
		case SFAB_MAD_DR_SMA: {
			unsigned int rp;

			sfab_mad_smp_make_resp(&smp, SFAB_MAD_STS_OK);
			CHECK(smp.method & SFAB_MAD_METHOD_RESP);
			if (smp.mgmt_class == SFAB_MGMT_CLASS_SUBN_DR)
				CHECK(be16toh(smp.status) & SFAB_SMP_DIRECTION);
			rp = sfab_mad_dr_resp_port(&smp, port, nports);
			CHECK(rp <= nports);
			break;
		}
		case SFAB_MAD_DR_ROUTE:
		case SFAB_MAD_DR_RETURNED:
		case SFAB_MAD_DR_DROP:
			break;
		default:
			CHECK(!"unknown directed-route action");
		}
		/* the hop fields stay inside the paths */
		CHECK(smp.hop_cnt == in->hop_cnt);
	}
}

static void port_info_sets(const uint8_t *data)
{
	static const enum sfab_port_state cur[] = {
		SFAB_PORT_DOWN, SFAB_PORT_INIT, SFAB_PORT_ARMED, SFAB_PORT_ACTIVE,
	};
	unsigned int k;

	for (k = 0; k < 8; k++) {
		struct sfab_mad_port_set ps = {
			.cur = cur[k % 4],
			.vl_cap = (uint8_t)(1 + k % 5),
			.mgmt = k & 1,
		};
		struct sfab_mad_port_cfg cfg, before;
		struct sfab_mad_port_info pi;
		uint16_t st;

		sfab_mad_port_cfg_init(&cfg, ps.vl_cap);
		before = cfg;
		memset(&pi, 0, sizeof(pi));
		st = sfab_mad_port_info_set(data, &ps, &pi, k < 4 ? &cfg : NULL);
		CHECK(st == SFAB_MAD_STS_OK || st == SFAB_MAD_STS_INVALID_FIELD);
		if (st != SFAB_MAD_STS_OK) {
			CHECK(!memcmp(&cfg, &before, sizeof(cfg)));
			continue;
		}
		if (k < 4) {
			/* what was accepted is a configuration the port can run */
			CHECK(cfg.neighbor_mtu <= 5);
			CHECK(sfab_sw_op_vls_count(cfg.op_vls) <=
			      sfab_sw_op_vls_count(ps.vl_cap));
		}
	}
}

static void decoders(const uint8_t *data)
{
	struct sfab_mad_port_info pi, pi2;
	uint8_t d[SFAB_SMP_DATA_LEN];
	uint16_t pk[32], pk2[32];
	uint8_t map[16], map2[16];

	memset(&pi, 0, sizeof(pi));
	memset(&pi2, 0, sizeof(pi2));
	sfab_mad_dec_port_info(data, &pi);
	sfab_mad_enc_port_info(d, &pi);
	sfab_mad_dec_port_info(d, &pi2);
	CHECK(!memcmp(&pi, &pi2, sizeof(pi)));

	sfab_mad_dec_pkeys(data, pk, 32);
	sfab_mad_enc_pkeys(d, pk, 32);
	sfab_mad_dec_pkeys(d, pk2, 32);
	CHECK(!memcmp(pk, pk2, sizeof(pk)));

	sfab_mad_dec_sl2vl(data, map);
	sfab_mad_enc_sl2vl(d, map);
	sfab_mad_dec_sl2vl(d, map2);
	CHECK(!memcmp(map, map2, sizeof(map)));
}

static void one_mad(const uint8_t *mad, const struct sfab_pkt_ud *req)
{
	struct sfab_wire_smp smp;
	uint8_t buf[SFAB_WIRE_MAX_PKT_LEN];
	uint8_t back[SFAB_WIRE_MAD_LEN];
	struct sfab_pkt_ud u;
	size_t len;
	uint16_t st;

	memcpy(&smp, mad, sizeof(smp));
	st = sfab_mad_smp_check(&smp);
	if (!st && (smp.mgmt_class == SFAB_MGMT_CLASS_SUBN_DR ||
		    smp.mgmt_class == SFAB_MGMT_CLASS_SUBN_LID))
		dr_steps(&smp, smp.reserved[0]);
	port_info_sets(smp.data);
	decoders(smp.data);

	/* a GMP response and the packet that carries it back */
	memcpy(back, mad, sizeof(back));
	sfab_mad_gmp_make_resp(back, SFAB_MAD_STS_INVALID_FIELD);
	CHECK(back[3] & SFAB_MAD_METHOD_RESP);
	len = sfab_mad_build_resp_pkt(buf, req, back, req->slid, req->dlid);
	if (len) {
		uint8_t again[SFAB_WIRE_MAD_LEN];

		CHECK(len <= SFAB_WIRE_MAX_PKT_LEN);
		CHECK(sfab_mad_parse(buf, len, &u, again));
		CHECK(!memcmp(again, back, sizeof(back)));
		CHECK(u.dqpn == req->sqpn && u.sqpn == req->dqpn);
	}

	/* the PMA */
	memcpy(back, mad, sizeof(back));
	st = sfab_mad_pma_process(back, &pma_ops, NULL);
	(void)st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	uint8_t mad[SFAB_WIRE_MAD_LEN];
	uint8_t flag = fz_u8(&f);
	struct sfab_pkt_ud u;

	memset(&pma_cnt, 0, sizeof(pma_cnt));
	if (flag & 1) {
		/* a frame off the cable */
		if (!sfab_mad_parse(f.p, f.n, &u, mad))
			return 0;
		CHECK(u.len <= f.n);
		CHECK(u.dqpn <= 0xffffff && u.sqpn <= 0xffffff);
	} else {
		memset(&u, 0, sizeof(u));
		u.dlid = fz_u16(&f);
		u.slid = fz_u16(&f);
		u.pkey = fz_u16(&f);
		u.sqpn = fz_u8(&f) & 1;
		u.dqpn = fz_u8(&f) & 1;
		u.qkey = fz_u32(&f);
		u.vl = fz_u8(&f) & 15;
		u.sl = fz_u8(&f) & 15;
		fz_bytes(&f, &pma_cnt, sizeof(pma_cnt));
		fz_bytes(&f, mad, sizeof(mad));
	}
	one_mad(mad, &u);
	return 0;
}

/* --- seeds ----------------------------------------------------------------- */

static void smp_base(struct sfab_wire_smp *s, uint8_t class, uint8_t method,
		     uint16_t attr, uint32_t mod)
{
	memset(s, 0, sizeof(*s));
	s->base_version = SFAB_MAD_BASE_VERSION;
	s->mgmt_class = class;
	s->class_version = SFAB_SMP_CLASS_VERSION;
	s->method = method;
	s->tid = htobe64(0x1234);
	s->attr_id = htobe16(attr);
	s->attr_mod = htobe32(mod);
}

static void seed_mad(const char *name, const void *mad, uint8_t qp)
{
	struct fz_out o = { .n = 0 };
	struct sfab_mad_pma_cnt c;

	fo_u8(&o, 0);
	fo_u16(&o, 0xffff);	/* dlid: permissive */
	fo_u16(&o, 1);
	fo_u16(&o, 0xffff);
	fo_u8(&o, qp);
	fo_u8(&o, qp);
	fo_u32(&o, qp ? SFAB_QP1_QKEY : 0);
	fo_u8(&o, qp ? 0 : 15);
	fo_u8(&o, 0);
	memset(&c, 0x11, sizeof(c));
	fo_bytes(&o, &c, sizeof(c));
	fo_bytes(&o, mad, SFAB_WIRE_MAD_LEN);
	fz_seed_out(name, &o);
}

static void seed_frame(const char *name, const void *mad, uint8_t qp)
{
	struct sfab_pkt_ud u = {
		.vl = qp ? 0 : 15, .dlid = 0xffff, .slid = 1, .pkey = 0xffff,
		.dqpn = qp, .sqpn = qp, .qkey = qp ? SFAB_QP1_QKEY : 0,
	};
	uint8_t buf[1 + SFAB_WIRE_MAX_PKT_LEN];
	size_t len = sfab_link_pkt_build_ud(buf + 1, &u, mad,
					    SFAB_WIRE_MAD_LEN);

	buf[0] = 1;
	if (!len) {
		fprintf(stderr, "fuzz/mad: seed %s does not build\n", name);
		exit(2);
	}
	fz_seed(name, buf, len + 1);
}

static void fuzz_seeds(void)
{
	struct sfab_wire_smp s;
	struct sfab_mad_port_info pi;
	uint8_t pma[SFAB_WIRE_MAD_LEN];

	smp_base(&s, SFAB_MGMT_CLASS_SUBN_DR, SFAB_MAD_METHOD_GET,
		 SFAB_SMP_ATTR_NODE_INFO, 0);
	s.hop_cnt = 2;
	s.hop_ptr = 0;
	s.initial_path[1] = 3;
	s.initial_path[2] = 5;
	s.dr_slid = htobe16(0xffff);
	s.dr_dlid = htobe16(0xffff);
	seed_mad("dr-nodeinfo", &s, 0);
	seed_frame("frame-dr-nodeinfo", &s, 0);

	s.hop_ptr = 2;
	s.method = SFAB_MAD_METHOD_GET_RESP;
	s.status = htobe16(SFAB_SMP_DIRECTION);
	s.return_path[2] = 7;
	s.return_path[1] = 1;
	seed_mad("dr-returning", &s, 0);

	smp_base(&s, SFAB_MGMT_CLASS_SUBN_LID, SFAB_MAD_METHOD_SET,
		 SFAB_SMP_ATTR_PORT_INFO, 1 | SFAB_MAD_PI_MOD_EXT_SPEEDS);
	memset(&pi, 0, sizeof(pi));
	pi.lid = 5;
	pi.sm_lid = 1;
	pi.port_state = SFAB_PORT_ARMED;
	pi.neighbor_mtu = 5;
	pi.op_vls = 2;
	pi.vl_cap = 4;
	sfab_mad_enc_port_info(s.data, &pi);
	seed_mad("lid-portinfo-set", &s, 0);
	seed_frame("frame-lid-portinfo-set", &s, 0);

	memset(pma, 0, sizeof(pma));
	pma[0] = SFAB_MAD_BASE_VERSION;
	pma[1] = SFAB_MGMT_CLASS_PERF;
	pma[2] = SFAB_PMA_CLASS_VERSION;
	pma[3] = SFAB_MAD_METHOD_GET;
	pma[16] = SFAB_PMA_ATTR_PORT_COUNTERS >> 8;
	pma[17] = SFAB_PMA_ATTR_PORT_COUNTERS & 0xff;
	pma[SFAB_PMA_DATA_OFFSET + 1] = 1;
	seed_mad("pma-portcounters", pma, 1);
	seed_frame("frame-pma-portcounters", pma, 1);
	pma[17] = SFAB_PMA_ATTR_PORT_COUNTERS_EXT;
	pma[3] = SFAB_MAD_METHOD_SET;
	pma[SFAB_PMA_DATA_OFFSET + 1] = SFAB_PMA_ALL_PORTS;
	seed_mad("pma-ext-set-all", pma, 1);
}
