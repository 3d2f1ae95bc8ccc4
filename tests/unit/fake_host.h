/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake host for the sfab engine: a byte array as host memory (with
 * injectable DMA failures), an interrupt recorder, and a small "driver"
 * that programs the device only through its registers and rings, the way
 * the kernel driver does.
 */
#ifndef SFAB_TEST_FAKE_HOST_H
#define SFAB_TEST_FAKE_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfab_engine.h"
/*
 * The engine's private header too: the tests look at its internals
 * (h->e->qp[qpn].state, the MR pool, SFAB_ENGINE_* limits, the functions
 * engine files call in each other), which the QEMU shell never does.
 */
#include "sfab_engine_int.h"

#define HOST_MEM_BASE	0x10000000ULL	/* DMA address of host memory byte 0 */
#define HOST_MEM_SIZE	(4U << 20)
#define HOST_NODE_GUID	0x0002c90300a1b2c0ULL
#define HOST_NVEC	SFAB_MSIX_MAX_VECTORS

struct fake_host {
	struct sfab_engine *e;
	uint8_t *mem;
	bool mem_lent;			/* mem is the caller's (fh_lend_mem) */
	size_t brk;			/* bump allocator over mem */

	/* DMA to [fail_lo, fail_hi) fails; fail_all fails everything */
	uint64_t fail_lo, fail_hi;
	bool fail_all;
	unsigned long dma_reads, dma_writes;

	unsigned long irqs[64];
	unsigned long irq_total;
	unsigned long guest_errors;
	unsigned long guest_error_sites[SFAB_GE__COUNT];	/* per site */
	char last_error[256];
	uint64_t now;

	/* driver side */
	uint64_t aq, acq, aenq;		/* ring DMA addresses */
	unsigned int aq_log, acq_log, aenq_log;
	unsigned int aq_mem, acq_mem;	/* log2 entries the rings have room for */
	uint16_t aq_tail, acq_head, aenq_head;
	uint16_t cmd_id;
	uint64_t scratch;		/* 4 KiB response buffer */
};

static inline int fh_dma_ok(struct fake_host *h, uint64_t addr, size_t len)
{
	if (h->fail_all)
		return 0;
	if (addr < HOST_MEM_BASE || addr - HOST_MEM_BASE > HOST_MEM_SIZE ||
	    len > HOST_MEM_SIZE - (addr - HOST_MEM_BASE))
		return 0;
	if (addr < h->fail_hi && addr + len > h->fail_lo)
		return 0;
	return 1;
}

static inline int fh_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	struct fake_host *h = opaque;

	h->dma_reads++;
	if (!fh_dma_ok(h, addr, len))
		return -1;
	memcpy(buf, h->mem + (addr - HOST_MEM_BASE), len);
	return 0;
}

static inline int fh_dma_write(void *opaque, uint64_t addr, const void *buf, size_t len)
{
	struct fake_host *h = opaque;

	h->dma_writes++;
	if (!fh_dma_ok(h, addr, len))
		return -1;
	memcpy(h->mem + (addr - HOST_MEM_BASE), buf, len);
	return 0;
}

static inline void fh_irq(void *opaque, unsigned int vector)
{
	struct fake_host *h = opaque;

	if (vector < 64)
		h->irqs[vector]++;
	h->irq_total++;
}

static inline void fh_guest_error(void *opaque, enum sfab_guest_err site,
				  const char *msg)
{
	struct fake_host *h = opaque;

	h->guest_errors++;
	if ((unsigned int)site < SFAB_GE__COUNT)
		h->guest_error_sites[site]++;
	snprintf(h->last_error, sizeof(h->last_error), "%s", msg);
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "guest error [%s]: %s\n",
			sfab_engine_guest_error_site_name(site), msg);
}

static inline uint64_t fh_now(void *opaque)
{
	struct fake_host *h = opaque;

	return h->now += 1000;
}

static const struct sfab_engine_ops fh_ops = {
	.dma_read = fh_dma_read,
	.dma_write = fh_dma_write,
	.irq = fh_irq,
	.guest_error = fh_guest_error,
	.now_ns = fh_now,
};

/* every BAR0 register (sfab_regs.h), for tests that write them at random */
static const uint32_t fh_regs[] = {
	SFAB_REG_ID, SFAB_REG_VERSION, SFAB_REG_CAPS, SFAB_REG_DB_LAYOUT,
	SFAB_REG_DEV_CTL, SFAB_REG_DEV_STS, SFAB_REG_FW_STATE, SFAB_REG_MSIX_CFG,
	SFAB_REG_AQ_BASE_LO, SFAB_REG_AQ_BASE_HI, SFAB_REG_AQ_CFG, SFAB_REG_AQ_DB,
	SFAB_REG_ACQ_BASE_LO, SFAB_REG_ACQ_BASE_HI, SFAB_REG_ACQ_CFG,
	SFAB_REG_AENQ_BASE_LO, SFAB_REG_AENQ_BASE_HI, SFAB_REG_AENQ_CFG,
	SFAB_REG_AENQ_HEAD, SFAB_REG_INTR_MASK, SFAB_REG_ERR_INFO,
};
#define FH_NREGS	(sizeof(fh_regs) / sizeof(fh_regs[0]))

static inline bool all_zero_bytes(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

/* host memory: DMA address <-> pointer */
static inline void *hp(struct fake_host *h, uint64_t addr)
{
	return h->mem + (addr - HOST_MEM_BASE);
}

static inline uint64_t host_alloc(struct fake_host *h, size_t size, size_t align)
{
	size_t at = (h->brk + align - 1) & ~(align - 1);

	if (at + size > HOST_MEM_SIZE) {
		fprintf(stderr, "fake host: out of memory\n");
		abort();
	}
	h->brk = at + size;
	return HOST_MEM_BASE + at;
}

/*
 * Host memory for the next host_new*() instead of calloc(): HOST_MEM_SIZE
 * bytes the caller owns (zeroed here) and frees after host_free(), e.g.
 * pinned memory a GPU reaches (tests/gda/lib/cuda_engine_host.c).
 */
static void *fh_lend_mem;

/* a host whose engine has the tables @cfg sizes (NULL: the default) */
static inline struct fake_host *host_new_cfg(const struct sfab_engine_config *cfg)
{
	struct fake_host *h = calloc(1, sizeof(*h));

	if (!h)
		abort();
	h->e = calloc(1, sizeof(*h->e));
	if (fh_lend_mem) {
		h->mem = memset(fh_lend_mem, 0, HOST_MEM_SIZE);
		h->mem_lent = true;
		fh_lend_mem = NULL;
	} else {
		h->mem = calloc(1, HOST_MEM_SIZE);
	}
	if (!h->e || !h->mem)
		abort();
	if (sfab_engine_init(h->e, &fh_ops, h, HOST_NODE_GUID, HOST_NVEC, cfg)) {
		fprintf(stderr, "fake host: sfab_engine_init failed\n");
		abort();
	}
	/* IBA's ACK timeouts with an 8 ms floor: what the RC tests time */
	h->e->rc_min_timeout_ns = 8000000ULL;
	h->scratch = host_alloc(h, 4096, 4096);
	return h;
}

static inline struct fake_host *host_new(void)
{
	return host_new_cfg(NULL);
}

static inline void host_free(struct fake_host *h)
{
	sfab_engine_cleanup(h->e);
	free(h->e);
	if (!h->mem_lent)
		free(h->mem);
	free(h);
}

static inline uint32_t rd(struct fake_host *h, uint32_t off)
{
	return sfab_engine_reg_read(h->e, off);
}

/* a register write; pending work runs as the QEMU bottom half would */
static inline void host_run(struct fake_host *h)
{
	int rounds = 0;

	do {
		sfab_engine_process(h->e);
	} while (sfab_engine_work_pending(h->e) && ++rounds < 64);
	if (rounds >= 64) {
		fprintf(stderr, "fake host: engine keeps asking for work\n");
		abort();
	}
}

static inline void wr(struct fake_host *h, uint32_t off, uint32_t val)
{
	if (sfab_engine_reg_write(h->e, off, val))
		host_run(h);
}

/* program and enable the admin queue pair */
static inline void host_setup_aq_raw(struct fake_host *h, unsigned int aq_log,
			      unsigned int acq_log, unsigned int vector)
{
	/* rings for up to the largest valid depth; bad depths get that too */
	unsigned int aq_mem = aq_log > SFAB_AQ_MAX_LOG_DEPTH ? SFAB_AQ_MAX_LOG_DEPTH : aq_log;
	unsigned int acq_mem = acq_log > SFAB_AQ_MAX_LOG_DEPTH ? SFAB_AQ_MAX_LOG_DEPTH : acq_log;

	if (!h->aq || aq_mem > h->aq_mem)
		h->aq = host_alloc(h, sizeof(struct sfab_aq_cmd) << aq_mem, 4096);
	if (!h->acq || acq_mem > h->acq_mem)
		h->acq = host_alloc(h, sizeof(struct sfab_acq_entry) << acq_mem, 4096);
	if (aq_mem > h->aq_mem)
		h->aq_mem = aq_mem;
	if (acq_mem > h->acq_mem)
		h->acq_mem = acq_mem;
	memset(hp(h, h->aq), 0, sizeof(struct sfab_aq_cmd) << h->aq_mem);
	memset(hp(h, h->acq), 0, sizeof(struct sfab_acq_entry) << h->acq_mem);
	h->aq_log = aq_log;
	h->acq_log = acq_log;
	h->aq_tail = h->acq_head = 0;
	wr(h, SFAB_REG_AQ_BASE_LO, (uint32_t)h->aq);
	wr(h, SFAB_REG_AQ_BASE_HI, (uint32_t)(h->aq >> 32));
	wr(h, SFAB_REG_ACQ_BASE_LO, (uint32_t)h->acq);
	wr(h, SFAB_REG_ACQ_BASE_HI, (uint32_t)(h->acq >> 32));
	wr(h, SFAB_REG_ACQ_CFG, SFAB_FIELD_PREP(SFAB_QCFG_LOG_DEPTH_MASK, acq_log) |
				SFAB_FIELD_PREP(SFAB_QCFG_VECTOR_MASK, vector));
	wr(h, SFAB_REG_AQ_CFG, SFAB_FIELD_PREP(SFAB_QCFG_LOG_DEPTH_MASK, aq_log) |
			       SFAB_QCFG_ENABLE);
}

static inline void host_setup_aq(struct fake_host *h, unsigned int log)
{
	host_setup_aq_raw(h, log, log, SFAB_MSIX_ADMIN);
}

static inline void host_setup_aenq(struct fake_host *h, unsigned int log)
{
	if (!h->aenq || log > h->aenq_log)
		h->aenq = host_alloc(h, sizeof(struct sfab_aenq_entry) << log, 4096);
	memset(hp(h, h->aenq), 0, sizeof(struct sfab_aenq_entry) << log);
	h->aenq_log = log;
	h->aenq_head = 0;
	wr(h, SFAB_REG_AENQ_BASE_LO, (uint32_t)h->aenq);
	wr(h, SFAB_REG_AENQ_BASE_HI, (uint32_t)(h->aenq >> 32));
	wr(h, SFAB_REG_AENQ_CFG, SFAB_FIELD_PREP(SFAB_QCFG_LOG_DEPTH_MASK, log) |
				 SFAB_FIELD_PREP(SFAB_QCFG_VECTOR_MASK, SFAB_MSIX_AENQ) |
				 SFAB_QCFG_ENABLE);
}

/* reset and bring up the admin queue: what probe does first */
static inline struct fake_host *host_up(unsigned int aq_log)
{
	struct fake_host *h = host_new();

	wr(h, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	host_setup_aq(h, aq_log);
	return h;
}

/* place a command in the next AQ slot without ringing the doorbell */
static inline uint16_t host_post(struct fake_host *h, struct sfab_aq_cmd *c)
{
	uint32_t slot = h->aq_tail & ((1U << h->aq_log) - 1);

	c->cmd_id = sfab_cpu_to_le16(++h->cmd_id);
	memcpy(hp(h, h->aq + slot * sizeof(*c)), c, sizeof(*c));
	h->aq_tail++;
	return h->cmd_id;
}

static inline void host_ring(struct fake_host *h)
{
	wr(h, SFAB_REG_AQ_DB, h->aq_tail);
}

/* the next completion, if the device wrote one (phase matches this pass) */
static inline bool host_poll(struct fake_host *h, struct sfab_acq_entry *out)
{
	uint32_t slot = sfab_ring_slot(h->acq_head, h->acq_log);
	struct sfab_acq_entry *c = hp(h, h->acq + slot * sizeof(*c));

	if (!sfab_ring_entry_is_new(c->flags & SFAB_ACQ_FLAGS_PHASE, h->acq_head,
				    h->acq_log))
		return false;
	*out = *c;
	h->acq_head++;
	return true;
}

/* run one command; returns its status, or -1 when no completion came */
static inline int host_cmd_full(struct fake_host *h, struct sfab_aq_cmd *c,
			 struct sfab_acq_entry *cpl)
{
	struct sfab_acq_entry tmp;
	uint16_t id;

	if (!cpl)
		cpl = &tmp;
	/* no completion: a zero one (callers read result0 regardless) */
	memset(cpl, 0, sizeof(*cpl));
	id = host_post(h, c);
	host_ring(h);
	if (!host_poll(h, cpl))
		return -1;
	if (sfab_le16_to_cpu(cpl->cmd_id) != id)
		return -2;
	return cpl->status;
}

static inline int host_cmd(struct fake_host *h, struct sfab_aq_cmd *c)
{
	return host_cmd_full(h, c, NULL);
}

/* command builders */
static inline struct sfab_aq_cmd cmd_new(uint8_t opcode)
{
	struct sfab_aq_cmd c;

	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	return c;
}

static inline struct sfab_aq_cmd cmd_query_device(uint64_t addr, uint32_t len)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_QUERY_DEVICE);

	c.u.query_device.resp_addr = sfab_cpu_to_le64(addr);
	c.u.query_device.resp_len = sfab_cpu_to_le32(len);
	return c;
}

static inline struct sfab_aq_cmd cmd_query_port(uint64_t addr, uint32_t len,
					 uint8_t port)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_QUERY_PORT);

	c.u.query_port.resp_addr = sfab_cpu_to_le64(addr);
	c.u.query_port.resp_len = sfab_cpu_to_le32(len);
	c.u.query_port.port_num = port;
	return c;
}

static inline struct sfab_aq_cmd cmd_query_stats(uint64_t addr, uint32_t len,
					  uint8_t port)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_QUERY_STATS);

	c.u.query_stats.resp_addr = sfab_cpu_to_le64(addr);
	c.u.query_stats.resp_len = sfab_cpu_to_le32(len);
	c.u.query_stats.port_num = port;
	return c;
}

static inline struct sfab_aq_cmd cmd_fw_download(uint64_t addr, uint32_t off,
					  uint32_t len)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_FW_DOWNLOAD);

	c.u.fw_download.addr = sfab_cpu_to_le64(addr);
	c.u.fw_download.offset = sfab_cpu_to_le32(off);
	c.u.fw_download.length = sfab_cpu_to_le32(len);
	return c;
}

static inline struct sfab_aq_cmd cmd_fw_activate(uint32_t len)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_FW_ACTIVATE);

	c.u.fw_activate.image_len = sfab_cpu_to_le32(len);
	return c;
}

static inline struct sfab_aq_cmd cmd_init_hca(uint8_t page_shift)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_INIT_HCA);

	c.u.init_hca.host_page_shift = page_shift;
	return c;
}

static inline struct sfab_aq_cmd cmd_create_eq(uint64_t ring, uint8_t log_depth,
					uint16_t vector)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_CREATE_EQ);

	c.u.create_eq.ring_addr = sfab_cpu_to_le64(ring);
	c.u.create_eq.log_depth = log_depth;
	c.u.create_eq.msix_vector = sfab_cpu_to_le16(vector);
	return c;
}

static inline struct sfab_aq_cmd cmd_destroy_eq(uint32_t eqn)
{
	struct sfab_aq_cmd c = cmd_new(SFAB_AQ_DESTROY_EQ);

	c.u.destroy_eq.eqn = sfab_cpu_to_le32(eqn);
	return c;
}

/* firmware images, built with the contract's structures */
enum fw_kind {
	FW_GOOD,
	FW_BAD_MAGIC,
	FW_BAD_FORMAT,
	FW_BAD_SIZE,
	FW_BAD_CRC,
	FW_BAD_PROFILE,
	FW_TRUNCATED,
};

#define FW_TEST_PAYLOAD	5000
#define FW_TEST_MAX_EQ	4
#define FW_TEST_VERSION	"1.2.3"
#define FW_TEST_BOARD	"SFAB-TEST"

static inline void fw_profile_default(struct sfab_fw_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->num_ports = 1;
	p->num_vls = 4;
	p->vl_buf_blocks = sfab_cpu_to_le16(256);
	p->max_qp = sfab_cpu_to_le32(1024);
	p->max_qp_wr = sfab_cpu_to_le32(4096);
	p->max_sge = sfab_cpu_to_le32(16);
	p->max_cq = sfab_cpu_to_le32(2048);
	p->max_cqe = sfab_cpu_to_le32(65536);
	p->max_mr = sfab_cpu_to_le32(4096);
	p->max_pd = sfab_cpu_to_le32(256);
	p->max_srq = sfab_cpu_to_le32(128);
	p->max_eq = sfab_cpu_to_le32(FW_TEST_MAX_EQ);
	p->max_inline = sfab_cpu_to_le32(256);
	p->max_msg_size = sfab_cpu_to_le32(SFAB_FW_MAX_MSG_SIZE);
}

/*
 * Build an image of @payload bytes of payload into @buf; returns the
 * number of bytes to download (shorter than the header says for
 * FW_TRUNCATED).  @p overrides the profile when not NULL.
 */
static inline uint32_t fw_build(uint8_t *buf, uint32_t payload, enum fw_kind kind,
			 const struct sfab_fw_profile *p)
{
	struct sfab_fw_header *hd = (struct sfab_fw_header *)buf;
	uint32_t len = SFAB_FW_HEADER_SIZE + payload, i;

	memset(hd, 0, sizeof(*hd));
	hd->magic = sfab_cpu_to_le32(SFAB_FW_MAGIC);
	hd->format_version = sfab_cpu_to_le16(SFAB_FW_FORMAT_VERSION);
	hd->header_len = sfab_cpu_to_le16(SFAB_FW_HEADER_SIZE);
	hd->image_len = sfab_cpu_to_le32(len);
	snprintf(hd->fw_version, sizeof(hd->fw_version), "%s", FW_TEST_VERSION);
	snprintf(hd->board_id, sizeof(hd->board_id), "%s", FW_TEST_BOARD);
	if (p)
		hd->profile = *p;
	else
		fw_profile_default(&hd->profile);
	for (i = 0; i < payload; i++)
		buf[SFAB_FW_HEADER_SIZE + i] = (uint8_t)(i * 7 + 3);

	switch (kind) {
	case FW_BAD_MAGIC:
		hd->magic = sfab_cpu_to_le32(0x12345678);
		break;
	case FW_BAD_FORMAT:
		hd->format_version = sfab_cpu_to_le16(SFAB_FW_FORMAT_VERSION + 1);
		break;
	case FW_BAD_SIZE:
		hd->header_len = sfab_cpu_to_le16(SFAB_FW_HEADER_SIZE + 16);
		break;
	case FW_BAD_PROFILE:
		hd->profile.num_vls = 3;
		break;
	default:
		break;
	}
	hd->crc32 = sfab_cpu_to_le32(sfab_fw_image_crc(buf, len));
	if (kind == FW_BAD_CRC)
		buf[len - 1] ^= 0x5a;
	if (kind == FW_TRUNCATED)
		return len - 100;
	return len;
}

/* download @len bytes of @img in @chunk-sized pieces; first bad status */
static inline int host_fw_download(struct fake_host *h, const uint8_t *img,
			    uint32_t len, uint32_t chunk)
{
	uint64_t buf = host_alloc(h, len, 4096);
	uint32_t off;
	int st;

	memcpy(hp(h, buf), img, len);
	for (off = 0; off < len; off += chunk) {
		uint32_t n = len - off < chunk ? len - off : chunk;
		struct sfab_aq_cmd c = cmd_fw_download(buf + off, off, n);

		st = host_cmd(h, &c);
		if (st)
			return st;
	}
	/* the staging buffer is only needed during the download */
	h->brk = buf - HOST_MEM_BASE;
	return 0;
}

static inline int host_fw_activate(struct fake_host *h, uint32_t len)
{
	struct sfab_aq_cmd c = cmd_fw_activate(len);

	return host_cmd(h, &c);
}

/* download and activate an image of the given kind */
static inline int host_fw_load_kind(struct fake_host *h, enum fw_kind kind,
			     const struct sfab_fw_profile *p)
{
	static uint8_t img[SFAB_FW_HEADER_SIZE + FW_TEST_PAYLOAD];
	uint32_t len = fw_build(img, FW_TEST_PAYLOAD, kind, p);
	int st = host_fw_download(h, img, len, 1024);

	return st ? st : host_fw_activate(h, len);
}

static inline int host_fw_load(struct fake_host *h)
{
	return host_fw_load_kind(h, FW_GOOD, NULL);
}

static inline uint32_t fw_state(struct fake_host *h)
{
	return SFAB_FIELD_GET(SFAB_FW_STATE_MASK, rd(h, SFAB_REG_FW_STATE));
}

static inline uint32_t fw_err(struct fake_host *h)
{
	return SFAB_FIELD_GET(SFAB_FW_STATE_ERR_MASK, rd(h, SFAB_REG_FW_STATE));
}

/* QUERY_DEVICE into *a; returns the status */
static inline int host_query_device(struct fake_host *h, struct sfab_dev_attr *a)
{
	struct sfab_aq_cmd c = cmd_query_device(h->scratch, sizeof(*a));
	int st;

	memset(hp(h, h->scratch), 0xee, sizeof(*a));
	st = host_cmd(h, &c);
	memcpy(a, hp(h, h->scratch), sizeof(*a));
	return st;
}

/* port 1's transport counters (QUERY_STATS); the admin status */
static inline int host_query_stats(struct fake_host *h, struct sfab_port_stats *s)
{
	struct sfab_aq_cmd c = cmd_query_stats(h->scratch, sizeof(*s), 1);
	int st;

	memset(hp(h, h->scratch), 0xee, sizeof(*s));
	st = host_cmd(h, &c);
	memcpy(s, hp(h, h->scratch), sizeof(*s));
	return st;
}

/* the next async event, if the device wrote one */
static inline bool host_aenq_poll(struct fake_host *h, struct sfab_aenq_entry *out)
{
	uint32_t slot = sfab_ring_slot(h->aenq_head, h->aenq_log);
	struct sfab_aenq_entry *ev = hp(h, h->aenq + slot * sizeof(*ev));

	if (!sfab_ring_entry_is_new(ev->flags & SFAB_AENQ_FLAGS_PHASE,
				    h->aenq_head, h->aenq_log))
		return false;
	*out = *ev;
	h->aenq_head++;
	wr(h, SFAB_REG_AENQ_HEAD, h->aenq_head);
	return true;
}

static inline bool dev_fatal(struct fake_host *h)
{
	return (rd(h, SFAB_REG_DEV_STS) & SFAB_DEV_STS_FATAL) != 0;
}

#endif /* SFAB_TEST_FAKE_HOST_H */
