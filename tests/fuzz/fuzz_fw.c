/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/fw: firmware images, as a malicious or broken flash would give them
 * to the device, and the device profiles in them that the engine and the
 * driver must then live with.
 *
 * Input: a flag byte, the 256-byte image header, a payload length and the
 * payload, the download chunk size, then a path MTU code, a message length
 * and an opcode for traffic.  The flags make parts of the header right so
 * that the checks go deeper: magic, format and header length; the image
 * length; NUL-terminated version and board strings; and (bit 3) a valid
 * CRC32 over the rest, so that every profile value, however extreme,
 * reaches the engine.
 *
 * Invariants:
 * - the device accepts exactly the images the driver's check accepts
 *   (sfab_fw_validate(), include/sfab/sfab_fw.h): "validated exactly as at
 *   probe", whatever chunks the image came in;
 * - with an accepted image the HCA initialises, and QUERY_DEVICE reports
 *   limits within the profile and within the engine's tables;
 * - the driver's queue geometry (sfab_sq_geometry() and the other contract
 *   helpers the driver and the provider size rings with) asked for the
 *   reported maxima either refuses or gives a WQE that holds what it says;
 * - two HCAs running the image, cabled back to back, carry an RC SEND or
 *   WRITE at the chosen MTU and length: it completes, successfully when
 *   the profile allows the message, and the data arrives intact; nothing
 *   hangs (bounded timer rounds).
 */
#include "fuzz.h"
#include "rc_pair.h"

#define MAX_PAYLOAD	4096
#define MS		1000000ULL

static const struct sfab_engine_config small = {
	.max_qp = 64, .max_cq = 64, .max_mr = 256, .max_srq = 16,
};
static uint8_t host_mem[2][HOST_MEM_SIZE];
static uint8_t img[SFAB_FW_HEADER_SIZE + MAX_PAYLOAD];

enum {
	F_HDR = 1 << 0,		/* magic, format, header length right */
	F_LEN = 1 << 1,		/* image length right */
	F_STR = 1 << 2,		/* strings terminated */
	F_CRC = 1 << 3,		/* CRC right */
	F_TRAFFIC = 1 << 4,	/* an accepted image also carries traffic */
};

static struct fake_host *host_fresh(unsigned int i)
{
	struct fake_host *h;

	fh_lend_mem = host_mem[i];
	h = host_new_cfg(&small);
	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	host_setup_aq(h, 5);
	host_setup_aenq(h, 6);
	return h;
}

static void check_geometry(const struct sfab_dev_attr *a)
{
	static const uint8_t types[] = {
		SFAB_QPT_RC, SFAB_QPT_UD, SFAB_QPT_XRC_INI,
	};
	uint32_t max_sge = sfab_le32_to_cpu(a->max_sge);
	uint32_t max_inline = sfab_le32_to_cpu(a->max_inline);
	uint32_t max_wr = sfab_le32_to_cpu(a->max_qp_wr);
	unsigned int k;
	int l;

	/* a consumer asking for everything the device reports */
	l = sfab_queue_log_depth(max_wr, max_wr);
	CHECK(l < 0 || (l <= SFAB_RING_MAX_LOG_DEPTH && (1U << l) <= max_wr));
	l = sfab_rq_log_stride(max_sge);
	if (l >= 0) {
		CHECK(l >= SFAB_RQ_MIN_LOG_STRIDE && l <= SFAB_RQ_MAX_LOG_STRIDE);
		CHECK(sfab_rq_max_sge(l) >= max_sge);
	}
	for (k = 0; k < sizeof(types); k++) {
		struct sfab_sq_geom g;

		if (sfab_sq_geometry(types[k], max_sge, max_inline, &g))
			continue;
		CHECK(g.log_stride >= SFAB_SQ_MIN_LOG_STRIDE &&
		      g.log_stride <= SFAB_SQ_MAX_LOG_STRIDE);
		CHECK(g.max_sge >= max_sge);
		CHECK(g.max_inline >= max_inline);
		CHECK(SFAB_UD_WQE_HDR_LEN + g.grh_room + g.xrc_room +
		      g.max_sge * sizeof(struct sfab_sge) <= 1U << g.log_stride);
		CHECK(SFAB_UD_WQE_HDR_LEN + g.grh_room + g.xrc_room +
		      sizeof(struct sfab_wqe_inline) + g.max_inline <=
		      1U << g.log_stride);
	}
}

static void check_attrs(struct fake_host *h, const struct sfab_fw_profile *p)
{
	struct sfab_dev_attr a;

	CHECK_EQ(host_query_device(h, &a), SFAB_AQ_STS_OK);
	CHECK(sfab_le32_to_cpu(a.max_qp) <= small.max_qp);
	CHECK(sfab_le32_to_cpu(a.max_qp) <= sfab_le32_to_cpu(p->max_qp));
	CHECK(sfab_le32_to_cpu(a.max_cq) <= small.max_cq);
	CHECK(sfab_le32_to_cpu(a.max_cq) <= sfab_le32_to_cpu(p->max_cq));
	CHECK(sfab_le32_to_cpu(a.max_mr) <= small.max_mr);
	CHECK(sfab_le32_to_cpu(a.max_srq) <= small.max_srq);
	CHECK(sfab_le32_to_cpu(a.max_eq) <= SFAB_ENGINE_MAX_EQ);
	CHECK(sfab_le32_to_cpu(a.max_eq) <= sfab_le32_to_cpu(p->max_eq));
	CHECK_EQ(a.num_vls, p->num_vls);
	CHECK_EQ(a.num_ports, p->num_ports);
	CHECK(memchr(a.fw_version, 0, sizeof(a.fw_version)));
	CHECK(memchr(a.board_id, 0, sizeof(a.board_id)));
	check_geometry(&a);
}

/* node @i of the pair with the profile @p; false if a resource is refused */
static bool node_up(unsigned int i, uint16_t lid,
		    const struct sfab_fw_profile *p)
{
	struct rp_node *n = &RP[i];
	uint32_t max_wr = sfab_le32_to_cpu(p->max_qp_wr);
	uint32_t max_cqe = sfab_le32_to_cpu(p->max_cqe);
	unsigned int sq_log = 6, cq_log = 10;
	struct sfab_aq_cmd c;

	memset(n, 0, sizeof(*n));
	n->h = host_fresh(i);
	CHECK_EQ(host_fw_load_kind(n->h, FW_GOOD, p), SFAB_AQ_STS_OK);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(n->h, &c), SFAB_AQ_STS_OK);
	rp_ops = fh_ops;
	rp_ops.cable_tx = rp_tx;
	n->h->e->ops = &rp_ops;
	n->h->e->port.lid = lid;
	/* rings as big as the profile allows, as the driver sizes them */
	while (sq_log && (1U << sq_log) > max_wr)
		sq_log--;
	while (cq_log && (1U << cq_log) > max_cqe)
		cq_log--;
	if (qh_eq_new(n->h, &n->eq, 8, 2) ||
	    qh_cq_new(n->h, &n->cq, cq_log, n->eq.eqn))
		return false;
	n->mem = host_alloc(n->h, RP_MEM, 4096);
	memset(hp(n->h, n->mem), 0, RP_MEM);
	if (qh_mr_contig(n->h, n->mem, RP_MEM, RP_PD, RP_ALL_ACCESS, &n->key))
		return false;
	return !qh_qp_new_ex(n->h, &n->qp, SFAB_QPT_RC, sq_log, 8, n->cq.cqn,
			     n->cq.cqn, 0, RP_PD, 0);
}

static void traffic(const struct sfab_fw_profile *p, struct fz *f)
{
	uint8_t mtu = 1 + fz_below(f, 5);
	uint32_t len = fz_u32(f) % (RP_MEM / 2 + 1);
	bool write = fz_u8(f) & 1;
	uint32_t max_msg = sfab_le32_to_cpu(p->max_msg_size);
	struct rp_cfg cfg = { .mtu = mtu, .retry_cnt = 7, .rnr_retry = 7 };
	struct qh_rc_send s;
	struct sfab_cqe cqe;
	bool sent = false, recvd = write;
	unsigned int round, i;

	memset(RPW, 0, sizeof(RPW));
	memset(RP, 0, sizeof(RP));
	rp_drop = NULL;
	if (!node_up(0, RP_LID0, p) || !node_up(1, RP_LID1, p))
		goto out;
	rp_link_up();
	rp_connect(&cfg);

	rp_fill(0, 0, len, (uint8_t)len);
	if (write) {
		s = rp_wqe(SFAB_WQE_RDMA_WRITE, 1, 0, 0, len);
		s.raddr = RP[1].mem + RP_MEM / 2;
		s.rkey = RP[1].key;
	} else {
		rp_recv(1, 2, RP_MEM / 2, RP_MEM / 2);
		s = rp_wqe(SFAB_WQE_SEND, 1, 0, 0, len);
	}
	rp_post(0, &s);
	/* ACK timeouts of 67 ms, 7 retries: 50 rounds of 100 ms are plenty */
	for (round = 0; round < 50 && !(sent && recvd); round++) {
		rp_pump();
		while (rp_poll(0, &cqe)) {
			CHECK(!sent);
			sent = true;
			/* a message the profile allows goes through */
			if (len <= max_msg)
				CHECK_EQ(cqe.status, SFAB_CQE_STS_SUCCESS);
			else
				CHECK(cqe.status != SFAB_CQE_STS_SUCCESS);
		}
		while (rp_poll(1, &cqe)) {
			CHECK(!recvd);
			recvd = true;
			CHECK_EQ(cqe.status, SFAB_CQE_STS_SUCCESS);
			CHECK_EQ(sfab_le32_to_cpu(cqe.byte_len), len);
		}
		if (!(sent && recvd))
			rp_advance(100 * MS);
	}
	/* it completed, and what completed arrived intact */
	CHECK(sent);
	if (len <= max_msg) {
		CHECK(recvd);
		CHECK(rp_same(0, 0, 1, RP_MEM / 2, len));
	}
out:
	if (RP[0].h && RP[1].h) {
		rp_down();
		return;
	}
	/* a node refused a resource before any frame went out */
	for (i = 0; i < 2; i++)
		if (RP[i].h)
			host_free(RP[i].h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct sfab_fw_header *hd = (struct sfab_fw_header *)img;
	uint8_t flags = fz_u8(&f);
	uint32_t payload = fz_u16(&f) % (MAX_PAYLOAD + 1);
	uint32_t len = SFAB_FW_HEADER_SIZE + payload;
	uint32_t chunk;
	struct fake_host *h;
	int st_v, st_e;

	fz_bytes(&f, img, len);
	chunk = 1 + fz_u16(&f) % SFAB_FW_MAX_CHUNK;
	if (flags & F_HDR) {
		hd->magic = sfab_cpu_to_le32(SFAB_FW_MAGIC);
		hd->format_version = sfab_cpu_to_le16(SFAB_FW_FORMAT_VERSION);
		hd->header_len = sfab_cpu_to_le16(SFAB_FW_HEADER_SIZE);
	}
	if (flags & F_LEN)
		hd->image_len = sfab_cpu_to_le32(len);
	if (flags & F_STR) {
		hd->fw_version[sizeof(hd->fw_version) - 1] = 0;
		hd->board_id[sizeof(hd->board_id) - 1] = 0;
		if (!hd->fw_version[0])
			hd->fw_version[0] = '1';
		if (!hd->board_id[0])
			hd->board_id[0] = 'B';
	}
	if (flags & F_CRC)
		hd->crc32 = sfab_cpu_to_le32(sfab_fw_image_crc(img, len));

	st_v = sfab_fw_validate(img, len);
	h = host_fresh(0);
	/* the download itself only stages bytes: it takes any image */
	CHECK_EQ(host_fw_download(h, img, len, chunk), SFAB_AQ_STS_OK);
	st_e = host_fw_activate(h, len);
	CHECK_EQ(st_e, st_v);
	if (st_e == SFAB_AQ_STS_OK) {
		struct sfab_aq_cmd c = cmd_init_hca(12);

		CHECK_EQ(host_cmd(h, &c), SFAB_AQ_STS_OK);
		check_attrs(h, &hd->profile);
	} else {
		CHECK(!dev_fatal(h));
	}
	host_free(h);
	if (st_e == SFAB_AQ_STS_OK && (flags & F_TRAFFIC)) {
		struct sfab_fw_profile p = hd->profile;

		traffic(&p, &f);
	}
	return 0;
}

/* --- seeds ----------------------------------------------------------------- */

static void seed_image(const char *name, const struct sfab_fw_profile *p,
		       uint8_t flags, uint8_t mtu, uint32_t msg, uint8_t write,
		       bool corrupt)
{
	struct fz_out o = { .n = 0 };
	static uint8_t buf[SFAB_FW_HEADER_SIZE + 1000];
	uint32_t len = fw_build(buf, 1000, FW_GOOD, p);

	if (corrupt)
		buf[len - 1] ^= 0x5a;

	fo_u8(&o, flags);
	fo_u16(&o, (uint16_t)(len - SFAB_FW_HEADER_SIZE));
	fo_bytes(&o, buf, len);
	fo_u16(&o, 999);		/* chunk: 1000 bytes */
	fo_u8(&o, mtu - 1);
	fo_u32(&o, msg);
	fo_u8(&o, write);
	fz_seed_out(name, &o);
}

static void fuzz_seeds(void)
{
	struct sfab_fw_profile p;

	fw_profile_default(&p);
	seed_image("good-send", &p, F_TRAFFIC, 1, 1000, 0, false);
	seed_image("good-write-4k", &p, F_TRAFFIC, 5, 70000, 1, false);
	seed_image("good-crc-fixed", &p, F_TRAFFIC | F_CRC, 3, 5000, 0, false);
	/* extremes the validation takes: the CRC is resealed */
	p.vl_buf_blocks = sfab_cpu_to_le16(SFAB_FW_MIN_VL_BLOCKS);
	p.num_vls = 8;
	seed_image("min-buffers-4k", &p, F_TRAFFIC | F_CRC, 5, 20000, 1, false);
	fw_profile_default(&p);
	p.max_qp_wr = sfab_cpu_to_le32(1);
	p.max_cqe = sfab_cpu_to_le32(1);
	p.max_sge = sfab_cpu_to_le32(0xffffffff);
	p.max_inline = sfab_cpu_to_le32(0xffffffff);
	p.max_msg_size = sfab_cpu_to_le32(1);
	seed_image("tiny-queues-huge-sge", &p, F_TRAFFIC | F_CRC, 1, 4, 0, false);
	fw_profile_default(&p);
	p.max_qp = sfab_cpu_to_le32(0xffffffff);
	p.max_cq = sfab_cpu_to_le32(0xffffffff);
	p.max_eq = sfab_cpu_to_le32(0xffffffff);
	p.max_mr = sfab_cpu_to_le32(0xffffffff);
	p.max_srq = sfab_cpu_to_le32(0xffffffff);
	seed_image("huge-tables", &p, F_TRAFFIC | F_CRC, 2, 300, 1, false);
	fw_profile_default(&p);
	seed_image("bad-crc", &p, F_HDR | F_LEN, 1, 0, 0, true);
}
