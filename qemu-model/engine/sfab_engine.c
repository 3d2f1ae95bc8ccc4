/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab HCA engine: registers, admin queue, async events, firmware, EQs.
 *
 * Queue rules (the hardware contract, include/sfab/sfab_ring.h):
 *  - indices written to doorbells are free running 16-bit counters; a ring
 *    slot is index & (depth - 1);
 *  - the device writes admin completions and async events with a phase
 *    bit that is 1 on the first pass over the ring and flips every pass;
 *  - a queue the host programs badly (depth, alignment, vector), a DMA
 *    failure on a queue, or a doorbell that moves beyond the ring stops the
 *    device: DEV_STS_FATAL, ERR_INFO, and an AENQ FATAL event when the
 *    AENQ still works.  Only a function reset leaves that state.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfab_engine.h"
#include "sfab_engine_int.h"

#define AQ_ENTRY	sizeof(struct sfab_aq_cmd)
#define ACQ_ENTRY	sizeof(struct sfab_acq_entry)
#define AENQ_ENTRY	sizeof(struct sfab_aenq_entry)

static void eng_trace(struct sfab_engine *e, enum sfab_trace_ev ev,
		      uint64_t a, uint64_t b)
{
	if (e->ops->trace)
		e->ops->trace(e->opaque, ev, a, b);
}

static void eng_guest_error(struct sfab_engine *e, enum sfab_guest_err site,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void eng_guest_error_v(struct sfab_engine *e, enum sfab_guest_err site,
			      const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void eng_guest_error_v(struct sfab_engine *e, enum sfab_guest_err site,
			      const char *fmt, va_list ap)
{
	char msg[160];

	e->stats.guest_errors++;
	if (!e->ops->guest_error)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	e->ops->guest_error(e->opaque, site, msg);
}

static void eng_guest_error(struct sfab_engine *e, enum sfab_guest_err site,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_guest_error_v(e, site, fmt, ap);
	va_end(ap);
}

static const char *const guest_err_names[SFAB_GE__COUNT] = {
	[SFAB_GE_FATAL] = "fatal",
	[SFAB_GE_REG_READ] = "reg-read",
	[SFAB_GE_REG_WRITE] = "reg-write",
	[SFAB_GE_REG_RESERVED] = "reg-reserved",
	[SFAB_GE_QUEUE_CFG] = "queue-cfg",
	[SFAB_GE_AQ_DB] = "aq-db",
	[SFAB_GE_AENQ_DB] = "aenq-db",
	[SFAB_GE_AQ_DMA] = "aq-dma",
	[SFAB_GE_ADMIN_CMD] = "admin-cmd",
	[SFAB_GE_FW_IMAGE] = "fw-image",
	[SFAB_GE_EQ_PARAM] = "eq-param",
	[SFAB_GE_DB_ACCESS] = "db-access",
	[SFAB_GE_DB_OBJECT] = "db-object",
	[SFAB_GE_DB_QP_STATE] = "db-qp-state",
	[SFAB_GE_DB_INDEX] = "db-index",
	[SFAB_GE_EQ_DMA] = "eq-dma",
	[SFAB_GE_CQ] = "cq",
	[SFAB_GE_WQE_OPCODE] = "wqe-opcode",
	[SFAB_GE_WQE] = "wqe",
	[SFAB_GE_RECV_WQE] = "recv-wqe",
	[SFAB_GE_CQ_PARAM] = "cq-param",
	[SFAB_GE_QP_PARAM] = "qp-param",
	[SFAB_GE_SRQ_PARAM] = "srq-param",
	[SFAB_GE_RC_WQE_OPCODE] = "rc-wqe-opcode",
	[SFAB_GE_RC_WQE] = "rc-wqe",
	[SFAB_GE_RC_WQE_REWRITE] = "rc-wqe-rewrite",
	[SFAB_GE_MR_PARAM] = "mr-param",
	[SFAB_GE_MR_PAGE_LIST] = "mr-page-list",
	[SFAB_GE_MR_FAST_REG] = "mr-fast-reg",
	[SFAB_GE_PORT_MAD] = "port-mad",
	[SFAB_GE_DBREC] = "dbrec",
};

const char *sfab_engine_guest_error_site_name(enum sfab_guest_err site)
{
	if ((unsigned int)site >= SFAB_GE__COUNT || !guest_err_names[site])
		return "unknown";
	return guest_err_names[site];
}

static int eng_dma_read(struct sfab_engine *e, uint64_t addr, void *buf,
			size_t len)
{
	e->stats.dma_ops++;
	/* an address range that wraps past 2^64 is never valid */
	if (addr + len < addr)
		return -1;
	return e->ops->dma_read(e->opaque, addr, buf, len) ? -1 : 0;
}

static int eng_dma_write(struct sfab_engine *e, uint64_t addr,
			 const void *buf, size_t len)
{
	e->stats.dma_ops++;
	if (addr + len < addr)
		return -1;
	return e->ops->dma_write(e->opaque, addr, buf, len) ? -1 : 0;
}

static uint64_t eng_now(struct sfab_engine *e)
{
	return e->ops->now_ns ? e->ops->now_ns(e->opaque) : 0;
}

uint64_t sfab_engine_now(struct sfab_engine *e)
{
	return eng_now(e);
}

int sfab_engine_dma_read(struct sfab_engine *e, uint64_t addr, void *buf,
			 size_t len)
{
	return eng_dma_read(e, addr, buf, len);
}

int sfab_engine_dma_write(struct sfab_engine *e, uint64_t addr,
			  const void *buf, size_t len)
{
	return eng_dma_write(e, addr, buf, len);
}

/* -------------------------------------------------------------------- */
/* interrupts */

static void eng_irq(struct sfab_engine *e, unsigned int vector)
{
	if (vector >= e->nvec)
		return;
	if (e->fault_msix_lost) {
		e->fault_msix_lost = false;
		e->stats.irqs_lost++;
		return;
	}
	if (vector < 32 && (e->intr_mask & (1U << vector))) {
		e->intr_pending |= 1ULL << vector;
		e->stats.irqs_masked++;
		eng_trace(e, SFAB_TRACE_IRQ_MASKED, vector, 0);
		return;
	}
	e->stats.irqs++;
	eng_trace(e, SFAB_TRACE_IRQ, vector, 0);
	if (e->ops->irq)
		e->ops->irq(e->opaque, vector);
}

static void eng_set_intr_mask(struct sfab_engine *e, uint32_t mask)
{
	uint64_t release;
	unsigned int v;

	e->intr_mask = mask;
	release = e->intr_pending & ~(uint64_t)mask & 0xffffffffULL;
	e->intr_pending &= ~release;
	for (v = 0; v < 32; v++)
		if (release & (1ULL << v))
			eng_irq(e, v);
}

void sfab_engine_irq(struct sfab_engine *e, unsigned int vector)
{
	eng_irq(e, vector);
}

void sfab_engine_guest_error(struct sfab_engine *e, enum sfab_guest_err site,
			     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_guest_error_v(e, site, fmt, ap);
	va_end(ap);
}

void sfab_engine_trace(struct sfab_engine *e, enum sfab_trace_ev ev,
		       uint64_t a, uint64_t b)
{
	eng_trace(e, ev, a, b);
}

/* -------------------------------------------------------------------- */
/* async events and the fatal state */

static bool fatal(const struct sfab_engine *e)
{
	return (e->dev_sts & SFAB_DEV_STS_FATAL) != 0;
}

static bool aenq_running(const struct sfab_engine *e)
{
	return (e->dev_sts & SFAB_DEV_STS_AENQ_ENABLED) != 0;
}

static void aenq_queue(struct sfab_engine *e, uint8_t type, uint32_t data0,
		       uint64_t data1)
{
	struct sfab_aenq_entry *ev;

	eng_trace(e, SFAB_TRACE_AENQ, type, data0);
	if (e->aenq_backlog_len >= SFAB_ENGINE_AENQ_BACKLOG) {
		e->stats.aenq_dropped++;
		return;
	}
	ev = &e->aenq_backlog[e->aenq_backlog_len++];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->data0 = sfab_cpu_to_le32(data0);
	ev->data1 = sfab_cpu_to_le64(data1);
	ev->timestamp_ns = sfab_cpu_to_le64(eng_now(e));
}

/* SFAB_REG_HEARTBEAT: milliseconds of device time, standing once stopped */
static uint32_t heartbeat(struct sfab_engine *e)
{
	return (uint32_t)(eng_now(e) / 1000000);
}

/* the device stops: FATAL, the heartbeat stands (the caller takes the port down) */
static void eng_stop(struct sfab_engine *e)
{
	e->heartbeat_stop = heartbeat(e);
	e->dev_sts |= SFAB_DEV_STS_FATAL;
}

static void eng_fatal(struct sfab_engine *e, enum sfab_err err)
{
	if (fatal(e))
		return;
	eng_stop(e);
	e->err_info = err;
	eng_trace(e, SFAB_TRACE_FATAL, err, 0);
	eng_guest_error(e, SFAB_GE_FATAL, "device fatal error %u", err);
	/* the event goes out only while the AENQ itself still works */
	if (err != SFAB_ERR_AENQ_DMA && err != SFAB_ERR_AENQ_CONFIG &&
	    aenq_running(e))
		aenq_queue(e, SFAB_AENQ_FATAL, err, 0);
	/* a stopped device takes its port down */
	sfab_engine_port_update(e);
}

/* write as many backlogged events as the host's AENQ has room for */
static void aenq_flush(struct sfab_engine *e)
{
	struct sfab_engine_ring *q = &e->aenq;
	uint32_t depth = 1U << q->log_depth;
	unsigned int n = 0, i;

	if (!aenq_running(e))
		return;
	while (n < e->aenq_backlog_len &&
	       (uint16_t)(q->tail - q->head) < depth) {
		struct sfab_aenq_entry ev = e->aenq_backlog[n];
		uint32_t slot = q->tail & (depth - 1);

		if (sfab_ring_phase(q->tail, q->log_depth))
			ev.flags |= SFAB_AENQ_FLAGS_PHASE;
		if (eng_dma_write(e, q->base + (uint64_t)slot * AENQ_ENTRY,
				  &ev, sizeof(ev))) {
			e->dev_sts &= ~SFAB_DEV_STS_AENQ_ENABLED;
			eng_fatal(e, SFAB_ERR_AENQ_DMA);
			break;
		}
		q->tail++;
		n++;
		e->stats.aenq_events++;
	}
	for (i = n; i < e->aenq_backlog_len; i++)
		e->aenq_backlog[i - n] = e->aenq_backlog[i];
	e->aenq_backlog_len -= n;
	if (n && aenq_running(e))
		eng_irq(e, q->vector);
}

void sfab_engine_aenq_event(struct sfab_engine *e, uint8_t type,
			    uint32_t data0, uint64_t data1)
{
	aenq_queue(e, type, data0, data1);
}

void sfab_engine_aenq_flush(struct sfab_engine *e)
{
	aenq_flush(e);
}

/* -------------------------------------------------------------------- */
/* tables, reset and registers */

static bool in_range(uint32_t v, uint32_t min, uint32_t max)
{
	return v >= min && v <= max;
}

bool sfab_engine_config_valid(const struct sfab_engine_config *cfg)
{
	return in_range(cfg->max_qp, SFAB_ENGINE_MIN_QP, SFAB_ENGINE_MAX_QP) &&
	       in_range(cfg->max_cq, SFAB_ENGINE_MIN_CQ, SFAB_ENGINE_MAX_CQ) &&
	       in_range(cfg->max_mr, SFAB_ENGINE_MIN_MR, SFAB_ENGINE_MAX_MR) &&
	       in_range(cfg->max_srq, SFAB_ENGINE_MIN_SRQ, SFAB_ENGINE_MAX_SRQ);
}

void sfab_engine_cleanup(struct sfab_engine *e)
{
	free(e->qp);
	free(e->runq);
	free(e->runq_in);
	free(e->cq);
	free(e->mr);
	free(e->mr_map);
	free(e->srq);
	free(e->rc_wc);
	free(e->mr_pool);
	free(e->pool_map);
	free(e->fw_buf);
	e->qp = NULL;
	e->runq = NULL;
	e->runq_in = NULL;
	e->cq = NULL;
	e->mr = NULL;
	e->mr_map = NULL;
	e->srq = NULL;
	e->rc_wc = NULL;
	e->mr_pool = NULL;
	e->pool_map = NULL;
	e->fw_buf = NULL;
	memset(&e->cfg, 0, sizeof(e->cfg));
}

/* zeroed, as a reset leaves them; false when one cannot be had */
static bool tables_alloc(struct sfab_engine *e)
{
	const struct sfab_engine_config *c = &e->cfg;

	e->qp = calloc(c->max_qp, sizeof(*e->qp));
	e->runq = calloc(c->max_qp, sizeof(*e->runq));
	e->runq_in = calloc(c->max_qp, sizeof(*e->runq_in));
	e->cq = calloc(c->max_cq, sizeof(*e->cq));
	e->mr = calloc((size_t)c->max_mr + 1, sizeof(*e->mr));
	e->mr_map = calloc(sfab_engine_mr_map_words(e), sizeof(*e->mr_map));
	/* calloc(0, n) may give NULL: keep at least one SRQ slot */
	e->srq = calloc(c->max_srq ? c->max_srq : 1, sizeof(*e->srq));
	e->rc_wc = sfab_rc_wc_alloc();
	e->mr_pool = calloc(SFAB_ENGINE_MR_POOL, sizeof(*e->mr_pool));
	e->pool_map = calloc(SFAB_ENGINE_POOL_MAP_WORDS, sizeof(*e->pool_map));
	e->fw_buf = calloc(1, SFAB_FW_MAX_SIZE);
	return e->qp && e->runq && e->runq_in && e->cq && e->mr && e->mr_map &&
	       e->srq && e->rc_wc && e->mr_pool && e->pool_map && e->fw_buf;
}

/* every table entry invalid (the MR pool keeps its stale entries) */
static void tables_clear(struct sfab_engine *e)
{
	const struct sfab_engine_config *c = &e->cfg;

	memset(e->qp, 0, c->max_qp * sizeof(*e->qp));
	memset(e->runq, 0, c->max_qp * sizeof(*e->runq));
	memset(e->runq_in, 0, c->max_qp * sizeof(*e->runq_in));
	memset(e->cq, 0, c->max_cq * sizeof(*e->cq));
	memset(e->srq, 0, c->max_srq * sizeof(*e->srq));
	sfab_rc_wc_drop(e, NULL);
	sfab_engine_mr_teardown(e);
}

static uint8_t fw_flash_load(struct sfab_engine *e);

void sfab_engine_reset(struct sfab_engine *e)
{
	/* the download buffer is not cleared: fw_hwm = 0 makes it empty */
	memset(&e->dev_sts, 0, sizeof(*e) - offsetof(struct sfab_engine, dev_sts));
	tables_clear(e);
	e->fw_state = SFAB_FW_STATE_NONE;
	e->dev_sts = SFAB_DEV_STS_READY;
	/* the port goes down with the firmware; the cable stays */
	sfab_engine_port_reset(e);
	eng_trace(e, SFAB_TRACE_RESET, 0, 0);
	/* firmware in flash runs at once, the host need not download */
	if (e->flash)
		fw_flash_load(e);
}

int sfab_engine_init(struct sfab_engine *e, const struct sfab_engine_ops *ops,
		     void *opaque, uint64_t node_guid, unsigned int nvec,
		     const struct sfab_engine_config *cfg)
{
	static const struct sfab_engine_config dflt = SFAB_ENGINE_CONFIG_DEFAULT;

	memset(e, 0, sizeof(*e));
	if (!cfg)
		cfg = &dflt;
	if (!sfab_engine_config_valid(cfg))
		return -1;
	e->cfg = *cfg;
	if (!tables_alloc(e)) {
		sfab_engine_cleanup(e);
		return -1;
	}
	/* whatever the buffer holds is cleared before the first download */
	e->fw_buf_dirty = SFAB_FW_MAX_SIZE;
	e->ops = ops;
	e->opaque = opaque;
	e->node_guid = node_guid;
	e->nvec = nvec > 64 ? 64 : nvec;
	e->rc_min_timeout_ns = SFAB_ENGINE_RC_MIN_TIMEOUT_NS;
	snprintf(e->node_desc, sizeof(e->node_desc), "sfab HCA %016llx",
		 (unsigned long long)node_guid);
	sfab_engine_reset(e);
	return 0;
}

static uint32_t qcfg_read(uint32_t cfg, bool running)
{
	cfg &= ~SFAB_QCFG_ENABLE;
	return running ? cfg | SFAB_QCFG_ENABLE : cfg;
}

uint32_t sfab_engine_reg_read(struct sfab_engine *e, uint64_t off)
{
	/* a device that no longer answers: what a PCIe read gets then */
	if (e->mmio_dead)
		return 0xffffffffU;
	if (off & 3 || off >= SFAB_BAR_REGS_SIZE) {
		eng_guest_error(e, SFAB_GE_REG_READ,
				"bad register read at 0x%llx",
				(unsigned long long)off);
		return 0xffffffffU;
	}
	switch (off) {
	case SFAB_REG_ID:
		return SFAB_ID_MAGIC;
	case SFAB_REG_VERSION:
		return SFAB_FIELD_PREP(SFAB_VERSION_MAJOR_MASK, SFAB_IF_VERSION_MAJOR) |
		       SFAB_FIELD_PREP(SFAB_VERSION_MINOR_MASK, SFAB_IF_VERSION_MINOR);
	case SFAB_REG_CAPS:
		return SFAB_CAP_MSIX | SFAB_CAP_AENQ | SFAB_CAP_FW_DOWNLOAD |
		       SFAB_CAP_DB_WC | SFAB_CAP_HEARTBEAT;
	case SFAB_REG_DB_LAYOUT:
		return SFAB_FIELD_PREP(SFAB_DB_LAYOUT_PAGE_SHIFT_MASK, SFAB_DB_PAGE_SHIFT) |
		       SFAB_FIELD_PREP(SFAB_DB_LAYOUT_KPAGES_MASK, SFAB_DB_KERNEL_PAGES) |
		       SFAB_FIELD_PREP(SFAB_DB_LAYOUT_NPAGES_MASK, SFAB_DB_NUM_PAGES);
	case SFAB_REG_DEV_CTL:
		return 0;
	case SFAB_REG_DEV_STS:
		return e->dev_sts;
	case SFAB_REG_FW_STATE:
		return SFAB_FIELD_PREP(SFAB_FW_STATE_MASK, e->fw_state) |
		       SFAB_FIELD_PREP(SFAB_FW_STATE_ERR_MASK, e->fw_err);
	case SFAB_REG_MSIX_CFG:
		return SFAB_FIELD_PREP(SFAB_MSIX_CFG_NVEC_MASK, e->nvec);
	case SFAB_REG_AQ_BASE_LO:
		return e->aq_base_lo;
	case SFAB_REG_AQ_BASE_HI:
		return e->aq_base_hi;
	case SFAB_REG_AQ_CFG:
		return qcfg_read(e->aq_cfg, e->dev_sts & SFAB_DEV_STS_AQ_ENABLED);
	case SFAB_REG_ACQ_BASE_LO:
		return e->acq_base_lo;
	case SFAB_REG_ACQ_BASE_HI:
		return e->acq_base_hi;
	case SFAB_REG_ACQ_CFG:
		return e->acq_cfg;
	case SFAB_REG_AENQ_BASE_LO:
		return e->aenq_base_lo;
	case SFAB_REG_AENQ_BASE_HI:
		return e->aenq_base_hi;
	case SFAB_REG_AENQ_CFG:
		return qcfg_read(e->aenq_cfg, aenq_running(e));
	case SFAB_REG_INTR_MASK:
		return e->intr_mask;
	case SFAB_REG_ERR_INFO:
		return e->err_info;
	case SFAB_REG_HEARTBEAT:
		return fatal(e) ? e->heartbeat_stop : heartbeat(e);
	case SFAB_REG_AQ_DB:
	case SFAB_REG_AENQ_HEAD:
		return 0;		/* write-only */
	default:
		return 0;		/* unassigned */
	}
}

static bool ring_cfg_ok(uint64_t base, uint32_t log_depth, size_t entry)
{
	return log_depth >= SFAB_AQ_MIN_LOG_DEPTH &&
	       log_depth <= SFAB_AQ_MAX_LOG_DEPTH &&
	       base != 0 && !(base & (entry - 1)) &&
	       base + ((uint64_t)entry << log_depth) > base;
}

static void aq_enable(struct sfab_engine *e)
{
	uint64_t aq_base = (uint64_t)e->aq_base_hi << 32 | e->aq_base_lo;
	uint64_t acq_base = (uint64_t)e->acq_base_hi << 32 | e->acq_base_lo;
	uint32_t aq_log = SFAB_FIELD_GET(SFAB_QCFG_LOG_DEPTH_MASK, e->aq_cfg);
	uint32_t acq_log = SFAB_FIELD_GET(SFAB_QCFG_LOG_DEPTH_MASK, e->acq_cfg);
	uint32_t vec = SFAB_FIELD_GET(SFAB_QCFG_VECTOR_MASK, e->acq_cfg);

	/* the ACQ must hold a completion for every command the AQ can hold */
	if (!ring_cfg_ok(aq_base, aq_log, AQ_ENTRY) ||
	    !ring_cfg_ok(acq_base, acq_log, ACQ_ENTRY) ||
	    acq_log < aq_log || vec >= e->nvec) {
		eng_guest_error(e, SFAB_GE_QUEUE_CFG,
				"admin queue misprogrammed: aq 0x%llx/%u acq 0x%llx/%u vector %u",
				(unsigned long long)aq_base, aq_log,
				(unsigned long long)acq_base, acq_log, vec);
		eng_fatal(e, SFAB_ERR_AQ_CONFIG);
		return;
	}
	memset(&e->aq, 0, sizeof(e->aq));
	memset(&e->acq, 0, sizeof(e->acq));
	e->aq.base = aq_base;
	e->aq.log_depth = aq_log;
	e->acq.base = acq_base;
	e->acq.log_depth = acq_log;
	e->acq.vector = vec;
	e->dev_sts |= SFAB_DEV_STS_AQ_ENABLED;
}

static void aenq_enable(struct sfab_engine *e)
{
	uint64_t base = (uint64_t)e->aenq_base_hi << 32 | e->aenq_base_lo;
	uint32_t log = SFAB_FIELD_GET(SFAB_QCFG_LOG_DEPTH_MASK, e->aenq_cfg);
	uint32_t vec = SFAB_FIELD_GET(SFAB_QCFG_VECTOR_MASK, e->aenq_cfg);

	if (!ring_cfg_ok(base, log, AENQ_ENTRY) || vec >= e->nvec) {
		eng_guest_error(e, SFAB_GE_QUEUE_CFG,
				"async event queue misprogrammed: 0x%llx/%u vector %u",
				(unsigned long long)base, log, vec);
		eng_fatal(e, SFAB_ERR_AENQ_CONFIG);
		return;
	}
	memset(&e->aenq, 0, sizeof(e->aenq));
	e->aenq.base = base;
	e->aenq.log_depth = log;
	e->aenq.vector = vec;
	e->dev_sts |= SFAB_DEV_STS_AENQ_ENABLED;
}

static void aq_doorbell(struct sfab_engine *e, uint32_t val)
{
	uint16_t tail = SFAB_FIELD_GET(SFAB_QIDX_MASK, val);

	if (fatal(e) || !(e->dev_sts & SFAB_DEV_STS_AQ_ENABLED)) {
		eng_guest_error(e, SFAB_GE_AQ_DB,
				"admin doorbell %u with the queue stopped", tail);
		return;
	}
	if (val & ~SFAB_QIDX_MASK)
		eng_guest_error(e, SFAB_GE_AQ_DB,
				"admin doorbell 0x%x: reserved bits set", val);
	/* the host may post at most a ring's worth ahead of the device */
	if ((uint16_t)(tail - e->aq.head) > (1U << e->aq.log_depth) ||
	    (uint16_t)(tail - e->aq.head) < (uint16_t)(e->aq.tail - e->aq.head)) {
		eng_guest_error(e, SFAB_GE_AQ_DB,
				"admin doorbell %u beyond the ring (head %u, tail %u, depth %u)",
				tail, e->aq.head, e->aq.tail,
				1U << e->aq.log_depth);
		eng_fatal(e, SFAB_ERR_AQ_OVERRUN);
		return;
	}
	e->aq.tail = tail;
}

static void aenq_head_write(struct sfab_engine *e, uint32_t val)
{
	uint16_t head = SFAB_FIELD_GET(SFAB_QIDX_MASK, val);

	if (!aenq_running(e)) {
		eng_guest_error(e, SFAB_GE_AENQ_DB,
				"AENQ head %u with the queue disabled", head);
		return;
	}
	/* the head may only move forward, up to what the device produced */
	if ((uint16_t)(head - e->aenq.head) > (uint16_t)(e->aenq.tail - e->aenq.head)) {
		eng_guest_error(e, SFAB_GE_AENQ_DB,
				"AENQ head %u beyond the ring (head %u, tail %u)",
				head, e->aenq.head, e->aenq.tail);
		e->dev_sts &= ~SFAB_DEV_STS_AENQ_ENABLED;
		eng_fatal(e, SFAB_ERR_AENQ_CONFIG);
		return;
	}
	e->aenq.head = head;
}

bool sfab_engine_reg_write(struct sfab_engine *e, uint64_t off, uint32_t val)
{
	bool was;

	if (e->mmio_dead)
		return false;
	if (off & 3 || off >= SFAB_BAR_REGS_SIZE) {
		eng_guest_error(e, SFAB_GE_REG_WRITE,
				"bad register write at 0x%llx",
				(unsigned long long)off);
		return false;
	}
	if (off == SFAB_REG_DEV_CTL) {
		if (val & ~SFAB_DEV_CTL_RESET)
			eng_guest_error(e, SFAB_GE_REG_RESERVED,
					"DEV_CTL 0x%x: reserved bits set", val);
		if (val & SFAB_DEV_CTL_RESET)
			sfab_engine_reset(e);
		return false;
	}
	switch (off) {
	case SFAB_REG_AQ_BASE_LO:
		e->aq_base_lo = val;
		break;
	case SFAB_REG_AQ_BASE_HI:
		e->aq_base_hi = val;
		break;
	case SFAB_REG_AQ_CFG:
		was = e->dev_sts & SFAB_DEV_STS_AQ_ENABLED;
		e->aq_cfg = val & (SFAB_QCFG_LOG_DEPTH_MASK | SFAB_QCFG_ENABLE);
		if (val & ~(SFAB_QCFG_LOG_DEPTH_MASK | SFAB_QCFG_ENABLE))
			eng_guest_error(e, SFAB_GE_REG_RESERVED,
					"AQ_CFG 0x%x: reserved bits set", val);
		if (!(val & SFAB_QCFG_ENABLE))
			e->dev_sts &= ~SFAB_DEV_STS_AQ_ENABLED;
		else if (!was && !fatal(e))
			aq_enable(e);
		break;
	case SFAB_REG_AQ_DB:
		aq_doorbell(e, val);
		break;
	case SFAB_REG_ACQ_BASE_LO:
		e->acq_base_lo = val;
		break;
	case SFAB_REG_ACQ_BASE_HI:
		e->acq_base_hi = val;
		break;
	case SFAB_REG_ACQ_CFG:
		e->acq_cfg = val & (SFAB_QCFG_LOG_DEPTH_MASK | SFAB_QCFG_VECTOR_MASK);
		if (val & ~(SFAB_QCFG_LOG_DEPTH_MASK | SFAB_QCFG_VECTOR_MASK))
			eng_guest_error(e, SFAB_GE_REG_RESERVED,
					"ACQ_CFG 0x%x: reserved bits set", val);
		break;
	case SFAB_REG_AENQ_BASE_LO:
		e->aenq_base_lo = val;
		break;
	case SFAB_REG_AENQ_BASE_HI:
		e->aenq_base_hi = val;
		break;
	case SFAB_REG_AENQ_CFG:
		was = aenq_running(e);
		e->aenq_cfg = val & (SFAB_QCFG_LOG_DEPTH_MASK | SFAB_QCFG_VECTOR_MASK |
				     SFAB_QCFG_ENABLE);
		if (val & ~(SFAB_QCFG_LOG_DEPTH_MASK | SFAB_QCFG_VECTOR_MASK |
			    SFAB_QCFG_ENABLE))
			eng_guest_error(e, SFAB_GE_REG_RESERVED,
					"AENQ_CFG 0x%x: reserved bits set", val);
		if (!(val & SFAB_QCFG_ENABLE))
			e->dev_sts &= ~SFAB_DEV_STS_AENQ_ENABLED;
		else if (!was && !fatal(e))
			aenq_enable(e);
		break;
	case SFAB_REG_AENQ_HEAD:
		aenq_head_write(e, val);
		break;
	case SFAB_REG_INTR_MASK:
		eng_set_intr_mask(e, val);
		break;
	case SFAB_REG_ID:
	case SFAB_REG_VERSION:
	case SFAB_REG_CAPS:
	case SFAB_REG_DB_LAYOUT:
	case SFAB_REG_DEV_STS:
	case SFAB_REG_FW_STATE:
	case SFAB_REG_MSIX_CFG:
	case SFAB_REG_ERR_INFO:
		eng_guest_error(e, SFAB_GE_REG_WRITE,
				"write 0x%x to read-only register 0x%llx",
				val, (unsigned long long)off);
		break;
	default:
		eng_guest_error(e, SFAB_GE_REG_WRITE,
				"write 0x%x to unassigned register 0x%llx",
				val, (unsigned long long)off);
		break;
	}
	return sfab_engine_work_pending(e);
}

void sfab_engine_db_write(struct sfab_engine *e, uint64_t off, uint64_t val,
			  unsigned int size, enum sfab_db_source src)
{
	if (e->mmio_dead)
		return;
	if (off >= SFAB_DB_BAR_SIZE || (size != 4 && size != 8) ||
	    (off & (size - 1))) {
		eng_guest_error(e, SFAB_GE_DB_ACCESS,
				"bad doorbell write at 0x%llx size %u",
				(unsigned long long)off, size);
		return;
	}
	e->stats.db_writes++;
	if (src == SFAB_DB_SRC_PEER)
		e->stats.db_writes_peer++;
	else
		e->stats.db_writes_cpu++;
	eng_trace(e, SFAB_TRACE_DB_WRITE, off, val);
	sfab_engine_qp_db(e, off, val, size);
}

bool sfab_engine_work_pending(const struct sfab_engine *e)
{
	if (e->aenq_backlog_len && aenq_running(e) &&
	    (uint16_t)(e->aenq.tail - e->aenq.head) < (1U << e->aenq.log_depth))
		return true;
	if (sfab_engine_qp_pending(e))
		return true;
	return !fatal(e) && (e->dev_sts & SFAB_DEV_STS_AQ_ENABLED) &&
	       !e->fault_aq_stall && e->aq.head != e->aq.tail;
}

/* -------------------------------------------------------------------- */
/* fault injection */

static const char *const fault_names[] = {
	[SFAB_FAULT_AQ_STALL] = "aq-stall",
	[SFAB_FAULT_AQ_ERROR] = "aq-error",
	[SFAB_FAULT_CQE_ERROR] = "cqe-error",
	[SFAB_FAULT_MSIX_LOST] = "msix-lost",
	[SFAB_FAULT_FATAL] = "fatal",
	[SFAB_FAULT_MMIO_DEAD] = "mmio-dead",
};

#define NUM_FAULTS	(sizeof(fault_names) / sizeof(fault_names[0]))

enum sfab_fault sfab_engine_fault_parse(const char *name)
{
	unsigned int f;

	for (f = 1; name && f < NUM_FAULTS; f++)
		if (!strcmp(name, fault_names[f]))
			return (enum sfab_fault)f;
	return (enum sfab_fault)0;
}

const char *sfab_engine_fault_name(enum sfab_fault f)
{
	return (unsigned int)f && (unsigned int)f < NUM_FAULTS ?
	       fault_names[f] : "none";
}

bool sfab_engine_inject(struct sfab_engine *e, enum sfab_fault f)
{
	switch (f) {
	case SFAB_FAULT_AQ_STALL:
		e->fault_aq_stall = true;
		break;
	case SFAB_FAULT_AQ_ERROR:
		e->fault_aq_error = true;
		break;
	case SFAB_FAULT_CQE_ERROR:
		e->fault_cqe_error = true;
		break;
	case SFAB_FAULT_MSIX_LOST:
		e->fault_msix_lost = true;
		break;
	case SFAB_FAULT_FATAL:
		eng_fatal(e, SFAB_ERR_INJECTED);
		aenq_flush(e);
		break;
	case SFAB_FAULT_MMIO_DEAD:
		/* it stops as a fatal one does, and says nothing */
		e->mmio_dead = true;
		if (!fatal(e))
			eng_stop(e);
		sfab_engine_port_update(e);
		break;
	default:
		return false;
	}
	e->stats.faults_injected++;
	eng_trace(e, SFAB_TRACE_FAULT, f, 0);
	return true;
}

/* -------------------------------------------------------------------- */
/* admin commands */

struct cmd_result {
	uint8_t status;
	uint32_t result0;
	uint32_t result1;
};

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

/* bytes of the command union past the opcode's own structure are reserved */
static bool tail_zero(const struct sfab_aq_cmd *c, size_t used)
{
	return all_zero(c->u.raw + used, sizeof(c->u.raw) - used);
}

static void fw_set_state(struct sfab_engine *e, enum sfab_fw_state st,
			 uint8_t err)
{
	e->fw_state = st;
	e->fw_err = err;
	eng_trace(e, SFAB_TRACE_FW_STATE, st, err);
}

static uint8_t cmd_query_device(struct sfab_engine *e,
				const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_query_device *q = &c->u.query_device;
	const struct sfab_fw_profile *p = &e->profile;
	struct sfab_dev_attr a;
	uint32_t max_eq, max_srq;

	if (sfab_le32_to_cpu(q->resp_len) < sizeof(a) || q->reserved ||
	    !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;

	memset(&a, 0, sizeof(a));
	a.node_guid = sfab_cpu_to_be64(e->node_guid);
	a.sys_image_guid = sfab_cpu_to_be64(e->node_guid);
	a.max_mr_size = sfab_cpu_to_le64(SFAB_ENGINE_MAX_MR_SIZE);
	a.page_size_cap = sfab_cpu_to_le64(SFAB_ENGINE_PAGE_SIZE_CAP);
	a.vendor_id = sfab_cpu_to_le32(SFAB_VENDOR_OUI);
	a.vendor_part_id = sfab_cpu_to_le32(SFAB_PCI_DEVICE_ID);
	a.hw_rev = sfab_cpu_to_le32(SFAB_PCI_REVISION);
	a.num_db_pages = sfab_cpu_to_le32(SFAB_DB_NUM_PAGES);
	/* the datapath's, firmware or not */
	a.dev_caps = sfab_cpu_to_le32(SFAB_DEV_CAP_CQE_WQE_INDEX |
				      SFAB_DEV_CAP_QUERY_STATS |
				      SFAB_DEV_CAP_QUEUES | SFAB_DEV_CAP_MR |
				      SFAB_DEV_CAP_SRQ | SFAB_DEV_CAP_MR_UPDATE |
				      SFAB_DEV_CAP_DBREC | SFAB_DEV_CAP_MCAST |
				      SFAB_DEV_CAP_RESIZE_CQ |
				      SFAB_DEV_CAP_RESIZE_SRQ | SFAB_DEV_CAP_MW |
				      SFAB_DEV_CAP_FLUSH | SFAB_DEV_CAP_XRC);
	if (e->fw_active) {
		memcpy(a.fw_version, e->fw_version, sizeof(a.fw_version));
		memcpy(a.board_id, e->board_id, sizeof(a.board_id));
		max_eq = sfab_le32_to_cpu(p->max_eq);
		if (max_eq > SFAB_ENGINE_MAX_EQ)
			max_eq = SFAB_ENGINE_MAX_EQ;
		/* the profile's counts, within the tables this engine has */
		max_srq = sfab_engine_srq_limit(e);
		a.max_qp = sfab_cpu_to_le32(sfab_engine_qp_limit(e));
		a.max_qp_wr = p->max_qp_wr;
		a.max_sge = p->max_sge;
		a.max_cq = sfab_cpu_to_le32(sfab_engine_cq_limit(e));
		a.max_cqe = p->max_cqe;
		a.max_mr = sfab_cpu_to_le32(sfab_engine_mr_limit(e));
		a.max_pd = p->max_pd;
		/* XRC domains are numbered as PDs are, the host's numbers */
		a.max_xrcd = p->max_pd;
		a.max_srq = sfab_cpu_to_le32(max_srq);
		a.max_srq_wr = max_srq ? p->max_qp_wr : 0;
		a.max_eq = sfab_cpu_to_le32(max_eq);
		a.max_inline = p->max_inline;
		a.num_ports = p->num_ports;
		a.num_vls = p->num_vls;
		a.vl_buf_blocks = p->vl_buf_blocks;
		a.max_msg_size = p->max_msg_size;
		a.local_dma_lkey = sfab_cpu_to_le32(SFAB_ENGINE_LOCAL_DMA_LKEY);
		a.max_qp_rd_atom = sfab_cpu_to_le32(SFAB_ENGINE_MAX_RD_ATOM);
		a.max_fast_reg_pages =
			sfab_cpu_to_le32(SFAB_ENGINE_MAX_FAST_REG_PAGES);
		a.max_srq_sge = max_srq ? p->max_sge : 0;
		a.atomic_cap = sfab_cpu_to_le32(1);
		a.max_mcast_grp = sfab_cpu_to_le32(SFAB_ENGINE_MAX_MCG);
		a.max_mcast_qp_attach = sfab_cpu_to_le32(SFAB_ENGINE_MCG_QPS);
	}
	if (eng_dma_write(e, sfab_le64_to_cpu(q->resp_addr), &a, sizeof(a)))
		return SFAB_AQ_STS_DMA_ERROR;
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_query_port(struct sfab_engine *e,
			      const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_query_port *q = &c->u.query_port;
	const struct sfab_engine_port *port = &e->port;
	enum sfab_port_phys_state phys;
	enum sfab_port_state st;
	struct sfab_port_attr a;

	if (sfab_le32_to_cpu(q->resp_len) < sizeof(a) ||
	    q->port_num < 1 || q->port_num > e->profile.num_ports ||
	    !all_zero(q->reserved, sizeof(q->reserved)) ||
	    !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;

	/* without a cable (or a peer) the port polls for a link partner */
	sfab_engine_port_state(e, &st, &phys);
	memset(&a, 0, sizeof(a));
	a.subnet_prefix = sfab_cpu_to_be64(port->gid_prefix);
	a.port_guid = sfab_cpu_to_be64(e->node_guid + 1);
	a.cap_flags = sfab_cpu_to_le32(port->cap_mask);
	a.lid = sfab_cpu_to_le16(port->lid);
	a.sm_lid = sfab_cpu_to_le16(port->sm_lid);
	a.lmc = port->lmc;
	a.sm_sl = port->sm_sl;
	a.state = st;
	a.phys_state = phys;
	a.max_mtu = SFAB_PI_MTU_4096;
	a.active_mtu = port->cfg.neighbor_mtu ? port->cfg.neighbor_mtu :
						SFAB_PI_MTU_4096;
	a.active_width = SFAB_PI_WIDTH_4X;
	a.active_speed = SFAB_PORT_SPEED_NDR;
	a.max_vl_num = sfab_vl_cap(e->profile.num_vls);
	a.gid_tbl_len = sfab_cpu_to_le16(SFAB_PORT_GID_TBL_LEN);
	a.pkey_tbl_len = sfab_cpu_to_le16(SFAB_PORT_PKEY_TBL_LEN);
	a.qkey_viol_cntr = sfab_cpu_to_le32(port->qkey_viol);
	a.bad_pkey_cntr = sfab_cpu_to_le32(port->bad_pkey);
	a.subnet_timeout = port->subnet_timeout;
	if (eng_dma_write(e, sfab_le64_to_cpu(q->resp_addr), &a, sizeof(a)))
		return SFAB_AQ_STS_DMA_ERROR;
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_fw_download(struct sfab_engine *e,
			       const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_fw_download *q = &c->u.fw_download;
	uint32_t off = sfab_le32_to_cpu(q->offset);
	uint32_t len = sfab_le32_to_cpu(q->length);

	if (len < 1 || len > SFAB_FW_MAX_CHUNK ||
	    (uint64_t)off + len > SFAB_FW_MAX_SIZE || !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	if (e->dev_sts & SFAB_DEV_STS_HCA_INIT)
		return SFAB_AQ_STS_BAD_STATE;
	if (off == 0) {
		/* a new download: what an earlier one left reads as zero */
		memset(e->fw_buf, 0, e->fw_buf_dirty);
		e->fw_buf_dirty = 0;
		e->fw_hwm = 0;
		e->fw_loading = true;
		fw_set_state(e, SFAB_FW_STATE_LOADING, e->fw_err);
	} else if (!e->fw_loading) {
		return SFAB_AQ_STS_BAD_STATE;
	}
	e->work_bytes += len;
	if (off + len > e->fw_buf_dirty)
		e->fw_buf_dirty = off + len;
	if (eng_dma_read(e, sfab_le64_to_cpu(q->addr), e->fw_buf + off, len))
		return SFAB_AQ_STS_DMA_ERROR;
	if (off + len > e->fw_hwm)
		e->fw_hwm = off + len;
	return SFAB_AQ_STS_OK;
}

/*
 * Check the @len bytes downloaded and run them: FW_ACTIVATE (@notify: an
 * AENQ event says what happened), or the flash image at reset (none).
 */
static uint8_t fw_activate(struct sfab_engine *e, uint32_t len, bool notify)
{
	const struct sfab_fw_header *h = (const void *)e->fw_buf;
	uint8_t st;

	/* fewer bytes arrived than the host says it sent: a truncated image */
	st = len > e->fw_hwm ? SFAB_AQ_STS_FW_BAD_SIZE :
			       (uint8_t)sfab_fw_validate(e->fw_buf, len);
	e->fw_loading = false;
	if (st != SFAB_AQ_STS_OK) {
		/* a running image keeps running; the register shows the failure */
		eng_guest_error(e, SFAB_GE_FW_IMAGE,
				"firmware image rejected: %s",
				sfab_aq_status_str(st));
		fw_set_state(e, SFAB_FW_STATE_FAILED, st);
		if (notify)
			aenq_queue(e, SFAB_AENQ_FW_STATE, SFAB_FW_STATE_FAILED, st);
		return st;
	}
	memcpy(e->fw_version, h->fw_version, sizeof(e->fw_version));
	memcpy(e->board_id, h->board_id, sizeof(e->board_id));
	e->profile = h->profile;
	e->fw_active = true;
	fw_set_state(e, SFAB_FW_STATE_ACTIVE, SFAB_AQ_STS_OK);
	if (notify)
		aenq_queue(e, SFAB_AENQ_FW_STATE, SFAB_FW_STATE_ACTIVE, 0);
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_fw_activate(struct sfab_engine *e,
			       const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_fw_activate *q = &c->u.fw_activate;
	uint32_t len = sfab_le32_to_cpu(q->image_len);

	if (len < 1 || len > SFAB_FW_MAX_SIZE || q->reserved ||
	    !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	if (e->dev_sts & SFAB_DEV_STS_HCA_INIT || !e->fw_loading)
		return SFAB_AQ_STS_BAD_STATE;

	e->work_bytes += len;
	return fw_activate(e, len, true);
}

/* the flash image into the download buffer, run as if downloaded */
static uint8_t fw_flash_load(struct sfab_engine *e)
{
	memset(e->fw_buf, 0, e->fw_buf_dirty);
	memcpy(e->fw_buf, e->flash, e->flash_len);
	e->fw_buf_dirty = e->flash_len;
	e->fw_hwm = e->flash_len;
	e->fw_loading = true;
	return fw_activate(e, e->flash_len, false);
}

uint8_t sfab_engine_set_flash(struct sfab_engine *e, const void *img,
			      size_t len)
{
	uint8_t st;

	e->flash = NULL;
	e->flash_len = 0;
	if (img && (!len || len > SFAB_FW_MAX_SIZE))
		return SFAB_AQ_STS_FW_BAD_SIZE;
	e->flash = img;
	e->flash_len = img ? len : 0;
	sfab_engine_reset(e);
	if (!img)
		return SFAB_AQ_STS_OK;
	st = e->fw_active ? SFAB_AQ_STS_OK : e->fw_err;
	if (st != SFAB_AQ_STS_OK) {
		e->flash = NULL;
		e->flash_len = 0;
	}
	return st;
}

static uint8_t cmd_init_hca(struct sfab_engine *e, const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_init_hca *q = &c->u.init_hca;

	if (q->host_page_shift < SFAB_ENGINE_MIN_PAGE_SHIFT ||
	    q->host_page_shift > SFAB_ENGINE_MAX_PAGE_SHIFT ||
	    !all_zero(q->reserved, sizeof(q->reserved)) ||
	    !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	if (e->dev_sts & SFAB_DEV_STS_HCA_INIT)
		return SFAB_AQ_STS_BAD_STATE;
	e->host_page_shift = q->host_page_shift;
	e->dev_sts |= SFAB_DEV_STS_HCA_INIT;
	/* with a cable there, the port starts training */
	sfab_engine_port_update(e);
	return SFAB_AQ_STS_OK;
}

static void eq_destroy(struct sfab_engine *e, uint32_t eqn)
{
	memset(&e->eq[eqn], 0, sizeof(e->eq[eqn]));
	e->num_eq--;
	eng_trace(e, SFAB_TRACE_EQ_DESTROY, eqn, 0);
}

static uint8_t cmd_teardown_hca(struct sfab_engine *e,
				const struct sfab_aq_cmd *c)
{
	uint32_t i;

	if (!tail_zero(c, 0))
		return SFAB_AQ_STS_BAD_PARAM;
	if (!(e->dev_sts & SFAB_DEV_STS_HCA_INIT))
		return SFAB_AQ_STS_BAD_STATE;
	/* teardown releases every resource the HCA still holds */
	sfab_engine_qp_teardown(e);
	for (i = 0; i < SFAB_ENGINE_MAX_EQ; i++)
		if (e->eq[i].valid)
			eq_destroy(e, i);
	e->host_page_shift = 0;
	e->dev_sts &= ~SFAB_DEV_STS_HCA_INIT;
	sfab_engine_port_update(e);
	return SFAB_AQ_STS_OK;
}

static uint32_t eq_limit(const struct sfab_engine *e)
{
	uint32_t max_eq = sfab_le32_to_cpu(e->profile.max_eq);

	return max_eq > SFAB_ENGINE_MAX_EQ ? SFAB_ENGINE_MAX_EQ : max_eq;
}

/* CREATE_EQ refused: why, under its own site, and the status */
#define eq_refuse(e, sts, ...)						\
	(eng_guest_error((e), SFAB_GE_EQ_PARAM, "CREATE_EQ: " __VA_ARGS__), \
	 (uint8_t)(sts))

static uint8_t cmd_create_eq(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			     struct cmd_result *r)
{
	const struct sfab_aq_create_eq *q = &c->u.create_eq;
	uint64_t ring = sfab_le64_to_cpu(q->ring_addr);
	uint16_t vec = sfab_le16_to_cpu(q->msix_vector);
	uint32_t i;

	if (q->log_depth < SFAB_EQ_MIN_LOG_DEPTH ||
	    q->log_depth > SFAB_EQ_MAX_LOG_DEPTH)
		return eq_refuse(e, SFAB_AQ_STS_BAD_PARAM,
				 "log_depth %u not in %u..%u", q->log_depth,
				 SFAB_EQ_MIN_LOG_DEPTH, SFAB_EQ_MAX_LOG_DEPTH);
	if (!ring)
		return eq_refuse(e, SFAB_AQ_STS_BAD_PARAM, "ring_addr 0");
	if (ring & (SFAB_ENGINE_EQ_ALIGN - 1))
		return eq_refuse(e, SFAB_AQ_STS_BAD_PARAM,
				 "ring_addr 0x%llx not %u-byte aligned",
				 (unsigned long long)ring, SFAB_ENGINE_EQ_ALIGN);
	if (ring + (sizeof(struct sfab_eqe) << q->log_depth) < ring)
		return eq_refuse(e, SFAB_AQ_STS_BAD_PARAM,
				 "ring_addr 0x%llx: 2^%u entries wrap",
				 (unsigned long long)ring, q->log_depth);
	if (vec < SFAB_MSIX_FIRST_COMP || vec >= e->nvec)
		return eq_refuse(e, SFAB_AQ_STS_BAD_PARAM,
				 "msix_vector %u not in %u..%u", vec,
				 SFAB_MSIX_FIRST_COMP, e->nvec - 1);
	if (q->reserved0 || q->reserved1 || !tail_zero(c, sizeof(*q)))
		return eq_refuse(e, SFAB_AQ_STS_BAD_PARAM,
				 "reserved bytes not zero");
	if (!(e->dev_sts & SFAB_DEV_STS_HCA_INIT))
		return eq_refuse(e, SFAB_AQ_STS_BAD_STATE,
				 "HCA not initialised (INIT_HCA)");
	if (e->num_eq >= eq_limit(e))
		return eq_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				 "%u EQs exist, max_eq %u", e->num_eq,
				 eq_limit(e));
	for (i = 0; i < SFAB_ENGINE_MAX_EQ; i++)
		if (!e->eq[i].valid)
			break;
	if (i == SFAB_ENGINE_MAX_EQ)
		return eq_refuse(e, SFAB_AQ_STS_NO_RESOURCES,
				 "no free EQ slot of %u", SFAB_ENGINE_MAX_EQ);
	e->eq[i].valid = true;
	e->eq[i].ring_addr = ring;
	e->eq[i].log_depth = q->log_depth;
	e->eq[i].vector = vec;
	e->eq[i].prod = 0;
	e->eq[i].cons = 0;
	e->num_eq++;
	r->result0 = i;
	eng_trace(e, SFAB_TRACE_EQ_CREATE, i, vec);
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_destroy_eq(struct sfab_engine *e,
			      const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_destroy_eq *q = &c->u.destroy_eq;
	uint32_t eqn = sfab_le32_to_cpu(q->eqn);

	if (eqn >= SFAB_ENGINE_MAX_EQ || !e->eq[eqn].valid || q->reserved ||
	    !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	if (sfab_engine_eq_busy(e, eqn))
		return SFAB_AQ_STS_BAD_STATE;	/* a CQ still signals it */
	eq_destroy(e, eqn);
	return SFAB_AQ_STS_OK;
}

static uint8_t cmd_mad_ifc(struct sfab_engine *e, const struct sfab_aq_cmd *c,
			   struct cmd_result *r)
{
	const struct sfab_aq_mad_ifc *q = &c->u.mad_ifc;
	uint8_t mad[SFAB_MAD_SIZE];

	if (q->port_num < 1 || q->port_num > e->profile.num_ports ||
	    (q->flags & ~SFAB_MAD_IFC_IGNORE_MKEY) || q->reserved1 ||
	    !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;
	e->stats.mad_ifc++;
	if (eng_dma_read(e, sfab_le64_to_cpu(q->in_addr), mad, sizeof(mad)))
		return SFAB_AQ_STS_DMA_ERROR;
	if (!sfab_engine_mad_local(e, mad, q->port_num,
				   sfab_le16_to_cpu(q->slid),
				   q->flags & SFAB_MAD_IFC_IGNORE_MKEY))
		return SFAB_AQ_STS_OK;
	if (eng_dma_write(e, sfab_le64_to_cpu(q->out_addr), mad, sizeof(mad)))
		return SFAB_AQ_STS_DMA_ERROR;
	r->result0 = 1;
	return SFAB_AQ_STS_OK;
}

/* the port's transport counters (the engine has one port: they are its) */
static uint8_t cmd_query_stats(struct sfab_engine *e,
			       const struct sfab_aq_cmd *c)
{
	const struct sfab_aq_query_stats *q = &c->u.query_stats;
	const struct sfab_engine_stats *st = &e->stats;
	struct sfab_port_stats a;

	if (sfab_le32_to_cpu(q->resp_len) < sizeof(a) ||
	    q->port_num < 1 || q->port_num > e->profile.num_ports ||
	    !all_zero(q->reserved, sizeof(q->reserved)) ||
	    !tail_zero(c, sizeof(*q)))
		return SFAB_AQ_STS_BAD_PARAM;

	memset(&a, 0, sizeof(a));
	a.retransmits = sfab_cpu_to_le64(st->rc_retransmits);
	a.retrans_pkts = sfab_cpu_to_le64(st->rc_retrans_pkts);
	a.local_ack_timeout_err = sfab_cpu_to_le64(st->rc_ack_timeouts);
	a.packet_seq_err = sfab_cpu_to_le64(st->rc_seq_naks_rx);
	a.implied_nak_seq_err = sfab_cpu_to_le64(st->rc_implied_naks);
	a.rnr_nak_retry_err = sfab_cpu_to_le64(st->rc_rnr_retries);
	a.out_of_sequence = sfab_cpu_to_le64(st->rc_out_of_seq);
	a.duplicate_request = sfab_cpu_to_le64(st->rc_dups);
	a.req_transport_retries_exceeded = sfab_cpu_to_le64(st->rc_retry_exc);
	a.req_rnr_retries_exceeded = sfab_cpu_to_le64(st->rc_rnr_retry_exc);
	a.db_writes_cpu = sfab_cpu_to_le64(st->db_writes_cpu);
	a.db_writes_peer = sfab_cpu_to_le64(st->db_writes_peer);
	a.fast_reg_wqes = sfab_cpu_to_le64(st->fast_reg_wqes);
	a.local_inv_wqes = sfab_cpu_to_le64(st->local_inv_wqes);
	a.remote_invs = sfab_cpu_to_le64(st->remote_invs);
	if (eng_dma_write(e, sfab_le64_to_cpu(q->resp_addr), &a, sizeof(a)))
		return SFAB_AQ_STS_DMA_ERROR;
	return SFAB_AQ_STS_OK;
}

static void exec_cmd(struct sfab_engine *e, const struct sfab_aq_cmd *c,
		     struct cmd_result *r)
{
	memset(r, 0, sizeof(*r));
	if (c->opcode < SFAB_AQ_QUERY_DEVICE || c->opcode > SFAB_AQ_MAX_OPCODE) {
		r->status = SFAB_AQ_STS_BAD_OPCODE;
		return;
	}
	if (c->flags || c->reserved) {
		r->status = SFAB_AQ_STS_BAD_PARAM;
		return;
	}
	/* without firmware only the device query and the download work */
	if (!e->fw_active && c->opcode != SFAB_AQ_QUERY_DEVICE &&
	    c->opcode != SFAB_AQ_FW_DOWNLOAD && c->opcode != SFAB_AQ_FW_ACTIVATE) {
		r->status = SFAB_AQ_STS_NO_FW;
		return;
	}
	switch (c->opcode) {
	case SFAB_AQ_QUERY_DEVICE:
		r->status = cmd_query_device(e, c);
		break;
	case SFAB_AQ_QUERY_PORT:
		r->status = cmd_query_port(e, c);
		break;
	case SFAB_AQ_FW_DOWNLOAD:
		r->status = cmd_fw_download(e, c);
		break;
	case SFAB_AQ_FW_ACTIVATE:
		r->status = cmd_fw_activate(e, c);
		break;
	case SFAB_AQ_INIT_HCA:
		r->status = cmd_init_hca(e, c);
		break;
	case SFAB_AQ_TEARDOWN_HCA:
		r->status = cmd_teardown_hca(e, c);
		break;
	case SFAB_AQ_CREATE_EQ:
		r->status = cmd_create_eq(e, c, r);
		break;
	case SFAB_AQ_DESTROY_EQ:
		r->status = cmd_destroy_eq(e, c);
		break;
	case SFAB_AQ_MAD_IFC:
		r->status = cmd_mad_ifc(e, c, r);
		break;
	case SFAB_AQ_QUERY_STATS:
		r->status = cmd_query_stats(e, c);
		break;
	case SFAB_AQ_CREATE_CQ:
	case SFAB_AQ_DESTROY_CQ:
	case SFAB_AQ_RESIZE_CQ:
	case SFAB_AQ_CREATE_QP:
	case SFAB_AQ_MODIFY_QP:
	case SFAB_AQ_QUERY_QP:
	case SFAB_AQ_DESTROY_QP:
	case SFAB_AQ_CREATE_MR:
	case SFAB_AQ_DESTROY_MR:
	case SFAB_AQ_UPDATE_MR:
	case SFAB_AQ_CREATE_SRQ:
	case SFAB_AQ_MODIFY_SRQ:
	case SFAB_AQ_RESIZE_SRQ:
	case SFAB_AQ_DESTROY_SRQ:
	case SFAB_AQ_SET_QP_DBREC:
	case SFAB_AQ_ATTACH_MCAST:
	case SFAB_AQ_DETACH_MCAST:
		r->status = sfab_engine_qp_cmd(e, c, &r->result0);
		break;
	default:
		r->status = SFAB_AQ_STS_BAD_OPCODE;
		break;
	}
}

/* execute one command and post its completion; false when fatal */
static bool aq_step(struct sfab_engine *e)
{
	struct sfab_engine_ring *aq = &e->aq, *acq = &e->acq;
	uint32_t aq_slot = aq->head & ((1U << aq->log_depth) - 1);
	uint32_t acq_slot = acq->tail & ((1U << acq->log_depth) - 1);
	struct sfab_acq_entry cpl;
	struct sfab_aq_cmd cmd;
	struct cmd_result r;
	uint64_t reported;

	if (eng_dma_read(e, aq->base + (uint64_t)aq_slot * AQ_ENTRY,
			 &cmd, sizeof(cmd))) {
		eng_guest_error(e, SFAB_GE_AQ_DMA,
				"admin command DMA read failed at slot %u", aq_slot);
		eng_fatal(e, SFAB_ERR_AQ_DMA);
		return false;
	}
	eng_trace(e, SFAB_TRACE_ADMIN_CMD, sfab_le16_to_cpu(cmd.cmd_id), cmd.opcode);
	reported = e->stats.guest_errors;
	if (e->fault_aq_error) {
		/* injected: the command fails without being run */
		e->fault_aq_error = false;
		memset(&r, 0, sizeof(r));
		r.status = SFAB_AQ_STS_DEV_ERROR;
		reported++;
	} else {
		exec_cmd(e, &cmd, &r);
	}
	if (r.status != SFAB_AQ_STS_OK && e->stats.guest_errors == reported)
		eng_guest_error(e, SFAB_GE_ADMIN_CMD,
				"admin command %u opcode 0x%02x: %s",
				sfab_le16_to_cpu(cmd.cmd_id), cmd.opcode,
				sfab_aq_status_str(r.status));

	memset(&cpl, 0, sizeof(cpl));
	cpl.cmd_id = cmd.cmd_id;
	cpl.status = r.status;
	cpl.result0 = sfab_cpu_to_le32(r.result0);
	cpl.result1 = sfab_cpu_to_le32(r.result1);
	if (sfab_ring_phase(acq->tail, acq->log_depth))
		cpl.flags = SFAB_ACQ_FLAGS_PHASE;
	if (eng_dma_write(e, acq->base + (uint64_t)acq_slot * ACQ_ENTRY,
			  &cpl, sizeof(cpl))) {
		eng_guest_error(e, SFAB_GE_AQ_DMA,
				"admin completion DMA write failed at slot %u",
				acq_slot);
		eng_fatal(e, SFAB_ERR_AQ_DMA);
		return false;
	}
	eng_trace(e, SFAB_TRACE_ADMIN_CPL, sfab_le16_to_cpu(cmd.cmd_id), r.status);
	aq->head++;
	acq->tail++;
	e->stats.admin_cmds++;
	return true;
}

unsigned int sfab_engine_process(struct sfab_engine *e)
{
	unsigned int done = 0, budget;

	if (!fatal(e) && (e->dev_sts & SFAB_DEV_STS_AQ_ENABLED) &&
	    !e->fault_aq_stall) {
		/* at most one ring's worth: the doorbell check bounds tail - head */
		budget = 1U << e->aq.log_depth;
		e->work_bytes = 0;
		while (e->aq.head != e->aq.tail && done < budget &&
		       e->work_bytes < SFAB_ENGINE_WORK_BYTES) {
			if (!aq_step(e))
				break;
			done++;
		}
		if (done)
			eng_irq(e, e->acq.vector);
	}
	/* FC packets, SMA answers and events that commands caused */
	sfab_engine_port_kick(e);
	aenq_flush(e);
	if (done)
		eng_trace(e, SFAB_TRACE_PROCESS, done, 0);
	return done;
}
