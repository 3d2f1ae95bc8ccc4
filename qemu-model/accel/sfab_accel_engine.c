/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab-accel engine: registers, the command ring, the commands.
 *
 * Ring rules (the hardware contract, include/sfab/sfab_accel.h):
 *  - PI and CI are free-running 32-bit indices; a command's slot is its
 *    index mod depth, its address sfab_accel_ring_cmd_addr();
 *  - setting CTL.ENABLE latches RING_BASE and RING_CFG
 *    (sfab_accel_ring_cfg_ok()); changing them while enabled, or a PI more
 *    than a ring ahead of CI, stops the ring;
 *  - every command is checked by sfab_accel_cmd_decode() before it runs;
 *    a command the decoder refuses, a failed DMA or a POLL that times out
 *    stops the ring at that command: STATUS.ERROR, ERR_CODE, ERR_INDEX,
 *    INTR_ERR.  No later command runs; only CTL.RESET leaves the state.
 *    The failing command may have done part of its work (a COPY whose
 *    write failed half way), none after it.
 *
 * Commands run in ring order and each DMA completes before the next one
 * starts, so the engine keeps every ordering a FENCE asks for without
 * doing anything at the FENCE itself.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sfab_accel_engine.h"

static void accel_trace(struct sfab_accel_engine *e,
			enum sfab_accel_trace_ev ev, uint64_t a, uint64_t b)
{
	if (e->ops->trace)
		e->ops->trace(e->opaque, ev, a, b);
}

static const char *const site_names[SFAB_ACCEL_GE__COUNT] = {
	[SFAB_ACCEL_GE_REG_READ] = "reg-read",
	[SFAB_ACCEL_GE_REG_WRITE] = "reg-write",
	[SFAB_ACCEL_GE_REG_RESERVED] = "reg-reserved",
	[SFAB_ACCEL_GE_RING_CONFIG] = "ring-config",
	[SFAB_ACCEL_GE_RING_OVERRUN] = "ring-overrun",
	[SFAB_ACCEL_GE_RING_DMA] = "ring-dma",
	[SFAB_ACCEL_GE_CMD_OPCODE] = "cmd-opcode",
	[SFAB_ACCEL_GE_CMD_RESERVED] = "cmd-reserved",
	[SFAB_ACCEL_GE_CMD_BOUNDS] = "cmd-bounds",
	[SFAB_ACCEL_GE_CMD_ALIGN] = "cmd-align",
	[SFAB_ACCEL_GE_CMD_DMA] = "cmd-dma",
	[SFAB_ACCEL_GE_POLL_TIMEOUT] = "poll-timeout",
};

const char *sfab_accel_engine_site_name(enum sfab_accel_ge site)
{
	if ((unsigned int)site >= SFAB_ACCEL_GE__COUNT)
		return "unknown";
	return site_names[site];
}

static void accel_guest_error_v(struct sfab_accel_engine *e,
				enum sfab_accel_ge site, const char *fmt,
				va_list ap)
	__attribute__((format(printf, 3, 0)));

static void accel_guest_error_v(struct sfab_accel_engine *e,
				enum sfab_accel_ge site, const char *fmt,
				va_list ap)
{
	char msg[160];

	e->stats.guest_errors++;
	if (!e->ops->guest_error)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	e->ops->guest_error(e->opaque, site, msg);
}

void sfab_accel_engine_guest_error(struct sfab_accel_engine *e,
				   enum sfab_accel_ge site, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	accel_guest_error_v(e, site, fmt, ap);
	va_end(ap);
}

/* ---- interrupts ----------------------------------------------------------- */

/* cause @vector: signal it now unless INTR_MASK holds it */
static void accel_raise(struct sfab_accel_engine *e, unsigned int vector)
{
	uint32_t bit = 1U << vector;

	e->intr_status |= bit;
	if (e->intr_mask & bit) {
		e->stats.irqs_masked++;
		accel_trace(e, SFAB_ACCEL_TRACE_IRQ_MASKED, vector, 0);
		return;
	}
	e->stats.irqs++;
	accel_trace(e, SFAB_ACCEL_TRACE_IRQ, vector, 0);
	e->ops->irq(e->opaque, vector);
}

/* ---- the error state -------------------------------------------------------- */

static void accel_poll_stop(struct sfab_accel_engine *e)
{
	if (e->poll_wait)
		e->ops->timer_cancel(e->opaque);
	e->poll_started = false;
	e->poll_wait = false;
}

static const enum sfab_accel_ge err_site[SFAB_ACCEL_ERR_MAX + 1] = {
	[SFAB_ACCEL_ERR_RING_CONFIG] = SFAB_ACCEL_GE_RING_CONFIG,
	[SFAB_ACCEL_ERR_RING_OVERRUN] = SFAB_ACCEL_GE_RING_OVERRUN,
	[SFAB_ACCEL_ERR_RING_DMA] = SFAB_ACCEL_GE_RING_DMA,
	[SFAB_ACCEL_ERR_OPCODE] = SFAB_ACCEL_GE_CMD_OPCODE,
	[SFAB_ACCEL_ERR_RESERVED] = SFAB_ACCEL_GE_CMD_RESERVED,
	[SFAB_ACCEL_ERR_BOUNDS] = SFAB_ACCEL_GE_CMD_BOUNDS,
	[SFAB_ACCEL_ERR_ALIGN] = SFAB_ACCEL_GE_CMD_ALIGN,
	[SFAB_ACCEL_ERR_DMA] = SFAB_ACCEL_GE_CMD_DMA,
	[SFAB_ACCEL_ERR_POLL_TIMEOUT] = SFAB_ACCEL_GE_POLL_TIMEOUT,
};

/*
 * Stop the ring at command CI with @err: report it at the error's site,
 * latch the code and index, raise INTR_ERR.
 */
static void accel_fail(struct sfab_accel_engine *e, enum sfab_accel_err err,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void accel_fail(struct sfab_accel_engine *e, enum sfab_accel_err err,
		       const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sfab_accel_engine_guest_error(e, err_site[err],
				      "ring stopped at command %u (%s): %s",
				      e->ci, sfab_accel_err_str(err), msg);

	accel_poll_stop(e);
	e->error = true;
	e->running = false;
	e->err_code = err;
	e->err_index = e->ci;
	e->stats.errors++;
	accel_trace(e, SFAB_ACCEL_TRACE_ERROR, err, e->ci);
	accel_raise(e, SFAB_ACCEL_MSIX_ERR);
}

/* ---- reset, init ------------------------------------------------------------ */

bool sfab_accel_engine_config_valid(const struct sfab_accel_engine_config *cfg)
{
	return cfg->mem_log_size >= SFAB_ACCEL_MEM_LOG_MIN &&
	       cfg->mem_log_size <= SFAB_ACCEL_MEM_LOG_MAX &&
	       cfg->kick_cmds && cfg->kick_bytes &&
	       cfg->poll_interval_ns >= SFAB_ACCEL_ENGINE_POLL_NS_MIN &&
	       cfg->poll_interval_max_ns <= SFAB_ACCEL_ENGINE_POLL_NS_MAX &&
	       cfg->poll_interval_ns <= cfg->poll_interval_max_ns;
}

void sfab_accel_engine_reset(struct sfab_accel_engine *e)
{
	accel_poll_stop(e);
	memset(&e->ctl, 0, sizeof(*e) - offsetof(struct sfab_accel_engine, ctl));
	accel_trace(e, SFAB_ACCEL_TRACE_RESET, 0, 0);
}

int sfab_accel_engine_init(struct sfab_accel_engine *e,
			   const struct sfab_accel_engine_ops *ops,
			   void *opaque,
			   const struct sfab_accel_engine_config *cfg)
{
	static const struct sfab_accel_engine_config dflt =
		SFAB_ACCEL_ENGINE_CONFIG_DEFAULT;

	memset(e, 0, sizeof(*e));
	if (!cfg)
		cfg = &dflt;
	if (!ops || !ops->dma_read || !ops->dma_write || !ops->now_ns ||
	    !ops->timer_arm || !ops->timer_cancel || !ops->irq ||
	    !sfab_accel_engine_config_valid(cfg))
		return -1;
	e->ops = ops;
	e->opaque = opaque;
	e->cfg = *cfg;
	sfab_accel_engine_reset(e);
	return 0;
}

/* ---- registers -------------------------------------------------------------- */

static uint64_t accel_ring_base(const struct sfab_accel_engine *e)
{
	return (uint64_t)e->ring_base_hi << 32 | e->ring_base_lo;
}

/* PI more than a ring ahead of CI: stop; false then */
static bool accel_check_pi(struct sfab_accel_engine *e)
{
	if (sfab_accel_ring_used(e->pi, e->ci) <= 1U << e->log_depth)
		return true;
	accel_fail(e, SFAB_ACCEL_ERR_RING_OVERRUN,
		   "PI %u is more than %u commands ahead", e->pi,
		   1U << e->log_depth);
	return false;
}

static void accel_enable(struct sfab_accel_engine *e)
{
	uint64_t base = accel_ring_base(e);
	unsigned int log = SFAB_FIELD_GET(SFAB_ACCEL_RING_LOG_DEPTH_MASK,
					  e->ring_cfg);

	if (!sfab_accel_ring_cfg_ok(base, log)) {
		accel_fail(e, SFAB_ACCEL_ERR_RING_CONFIG,
			   "ring of 2^%u commands at 0x%llx", log,
			   (unsigned long long)base);
		return;
	}
	e->base = base;
	e->log_depth = log;
	e->running = true;
	accel_trace(e, SFAB_ACCEL_TRACE_ENABLE, base, log);
	accel_check_pi(e);
}

static void accel_write_ctl(struct sfab_accel_engine *e, uint32_t val)
{
	const uint32_t known = SFAB_ACCEL_CTL_ENABLE | SFAB_ACCEL_CTL_RESET;

	if (val & ~known)
		sfab_accel_engine_guest_error(e, SFAB_ACCEL_GE_REG_RESERVED,
					      "CTL 0x%x: reserved bits ignored",
					      val);
	if (val & SFAB_ACCEL_CTL_RESET) {
		/* ENABLE in the same write is ignored: nothing is programmed */
		sfab_accel_engine_reset(e);
		return;
	}
	if ((val & SFAB_ACCEL_CTL_ENABLE) && !(e->ctl & SFAB_ACCEL_CTL_ENABLE)) {
		e->ctl |= SFAB_ACCEL_CTL_ENABLE;
		if (!e->error)
			accel_enable(e);
	} else if (!(val & SFAB_ACCEL_CTL_ENABLE)) {
		/* between two commands; a POLL under way starts again */
		e->ctl &= ~SFAB_ACCEL_CTL_ENABLE;
		e->running = false;
		accel_poll_stop(e);
	}
}

/* a ring register written: while enabled that stops the ring */
static void accel_write_ring_reg(struct sfab_accel_engine *e, uint32_t *reg,
				 uint32_t val, const char *name)
{
	*reg = val;
	if (e->running)
		accel_fail(e, SFAB_ACCEL_ERR_RING_CONFIG,
			   "%s written while the ring is enabled", name);
}

uint32_t sfab_accel_engine_reg_read(struct sfab_accel_engine *e, uint64_t off)
{
	uint32_t sts = 0;

	switch (off) {
	case SFAB_ACCEL_REG_ID:
		return SFAB_ACCEL_ID_MAGIC;
	case SFAB_ACCEL_REG_VERSION:
		return SFAB_FIELD_PREP(SFAB_ACCEL_VERSION_MAJOR_MASK,
				       SFAB_ACCEL_IF_VERSION_MAJOR) |
		       SFAB_FIELD_PREP(SFAB_ACCEL_VERSION_MINOR_MASK,
				       SFAB_ACCEL_IF_VERSION_MINOR);
	case SFAB_ACCEL_REG_MEM_SIZE:
		return e->cfg.mem_log_size;
	case SFAB_ACCEL_REG_CTL:
		return e->ctl;
	case SFAB_ACCEL_REG_STATUS:
		if (e->ctl & SFAB_ACCEL_CTL_ENABLE)
			sts |= SFAB_ACCEL_STS_ENABLED;
		if (e->running && e->pi != e->ci)
			sts |= SFAB_ACCEL_STS_BUSY;
		if (e->poll_wait)
			sts |= SFAB_ACCEL_STS_POLLING;
		if (e->error)
			sts |= SFAB_ACCEL_STS_ERROR;
		return sts;
	case SFAB_ACCEL_REG_ERR_CODE:
		return e->err_code;
	case SFAB_ACCEL_REG_ERR_INDEX:
		return e->err_index;
	case SFAB_ACCEL_REG_INTR_STATUS:
		return e->intr_status;
	case SFAB_ACCEL_REG_INTR_MASK:
		return e->intr_mask;
	case SFAB_ACCEL_REG_RING_CFG:
		return e->ring_cfg;
	case SFAB_ACCEL_REG_RING_BASE_LO:
		return e->ring_base_lo;
	case SFAB_ACCEL_REG_RING_BASE_HI:
		return e->ring_base_hi;
	case SFAB_ACCEL_REG_RING_PI:
		return e->pi;
	case SFAB_ACCEL_REG_RING_CI:
		return e->ci;
	case SFAB_ACCEL_REG_SEQ_LO:
		return (uint32_t)e->seq;
	case SFAB_ACCEL_REG_SEQ_HI:
		return (uint32_t)(e->seq >> 32);
	default:
		sfab_accel_engine_guest_error(e, SFAB_ACCEL_GE_REG_READ,
					      "read of unknown register 0x%llx",
					      (unsigned long long)off);
		return 0xffffffffU;
	}
}

bool sfab_accel_engine_reg_write(struct sfab_accel_engine *e, uint64_t off,
				 uint32_t val)
{
	uint32_t unmasked;

	switch (off) {
	case SFAB_ACCEL_REG_CTL:
		accel_write_ctl(e, val);
		break;
	case SFAB_ACCEL_REG_INTR_STATUS:
		if (val & ~SFAB_ACCEL_INTR_ALL)
			sfab_accel_engine_guest_error(e,
				SFAB_ACCEL_GE_REG_RESERVED,
				"INTR_STATUS 0x%x: reserved bits ignored", val);
		e->intr_status &= ~val;
		break;
	case SFAB_ACCEL_REG_INTR_MASK:
		if (val & ~SFAB_ACCEL_INTR_ALL)
			sfab_accel_engine_guest_error(e,
				SFAB_ACCEL_GE_REG_RESERVED,
				"INTR_MASK 0x%x: reserved bits ignored", val);
		unmasked = e->intr_mask & ~val & e->intr_status;
		e->intr_mask = val & SFAB_ACCEL_INTR_ALL;
		/* a cause held while masked is signalled now */
		if (unmasked & SFAB_ACCEL_INTR_CPL)
			accel_raise(e, SFAB_ACCEL_MSIX_CPL);
		if (unmasked & SFAB_ACCEL_INTR_ERR)
			accel_raise(e, SFAB_ACCEL_MSIX_ERR);
		break;
	case SFAB_ACCEL_REG_RING_CFG:
		if (val & ~SFAB_ACCEL_RING_LOG_DEPTH_MASK)
			sfab_accel_engine_guest_error(e,
				SFAB_ACCEL_GE_REG_RESERVED,
				"RING_CFG 0x%x: reserved bits ignored", val);
		accel_write_ring_reg(e, &e->ring_cfg,
				     val & SFAB_ACCEL_RING_LOG_DEPTH_MASK,
				     "RING_CFG");
		break;
	case SFAB_ACCEL_REG_RING_BASE_LO:
		accel_write_ring_reg(e, &e->ring_base_lo, val, "RING_BASE_LO");
		break;
	case SFAB_ACCEL_REG_RING_BASE_HI:
		accel_write_ring_reg(e, &e->ring_base_hi, val, "RING_BASE_HI");
		break;
	case SFAB_ACCEL_REG_RING_PI:
		e->pi = val;
		if (e->running)
			accel_check_pi(e);
		break;
	case SFAB_ACCEL_REG_ID:
	case SFAB_ACCEL_REG_VERSION:
	case SFAB_ACCEL_REG_MEM_SIZE:
	case SFAB_ACCEL_REG_STATUS:
	case SFAB_ACCEL_REG_ERR_CODE:
	case SFAB_ACCEL_REG_ERR_INDEX:
	case SFAB_ACCEL_REG_RING_CI:
	case SFAB_ACCEL_REG_SEQ_LO:
	case SFAB_ACCEL_REG_SEQ_HI:
		sfab_accel_engine_guest_error(e, SFAB_ACCEL_GE_REG_WRITE,
					      "write 0x%x to read-only register 0x%llx",
					      val, (unsigned long long)off);
		break;
	default:
		sfab_accel_engine_guest_error(e, SFAB_ACCEL_GE_REG_WRITE,
					      "write 0x%x to unknown register 0x%llx",
					      val, (unsigned long long)off);
		break;
	}
	return sfab_accel_engine_work_pending(e);
}

/* ---- commands --------------------------------------------------------------- */

bool sfab_accel_engine_work_pending(const struct sfab_accel_engine *e)
{
	return e->running && !e->poll_wait && e->pi != e->ci;
}

bool sfab_accel_engine_timer(struct sfab_accel_engine *e)
{
	if (e->poll_wait) {
		e->poll_wait = false;
		e->stats.poll_retries++;
	}
	return sfab_accel_engine_work_pending(e);
}

static bool accel_dma_write(struct sfab_accel_engine *e, uint64_t addr,
			    const void *buf, size_t len, const char *what)
{
	if (!e->ops->dma_write(e->opaque, addr, buf, len))
		return true;
	accel_fail(e, SFAB_ACCEL_ERR_DMA, "%s: write of %zu bytes at 0x%llx",
		   what, len, (unsigned long long)addr);
	return false;
}

static bool accel_dma_read(struct sfab_accel_engine *e, uint64_t addr,
			   void *buf, size_t len, const char *what)
{
	if (!e->ops->dma_read(e->opaque, addr, buf, len))
		return true;
	accel_fail(e, SFAB_ACCEL_ERR_DMA, "%s: read of %zu bytes at 0x%llx",
		   what, len, (unsigned long long)addr);
	return false;
}

static bool accel_store(struct sfab_accel_engine *e,
			const struct sfab_accel_op *op)
{
	__le32 v32 = sfab_cpu_to_le32((uint32_t)op->value);
	__le64 v64 = sfab_cpu_to_le64(op->value);

	if (op->opcode == SFAB_ACCEL_OP_STORE32)
		return accel_dma_write(e, op->addr, &v32, sizeof(v32), "STORE32");
	return accel_dma_write(e, op->addr, &v64, sizeof(v64), "STORE64");
}

/*
 * A POLL at CI: check the word once.  Matched: true.  Else it times out
 * (the ring stops) or waits for the timer; false either way.
 */
static bool accel_poll(struct sfab_accel_engine *e)
{
	const struct sfab_accel_op *op = &e->poll_op;
	unsigned int width = sfab_accel_op_width(op->opcode);
	uint64_t now = e->ops->now_ns(e->opaque), val, next;
	__le32 v32;
	__le64 v64;

	if (!e->poll_started) {
		e->poll_started = true;
		e->poll_deadline = now + op->timeout_ns < now ?
				   UINT64_MAX : now + op->timeout_ns;
		e->poll_interval = e->cfg.poll_interval_ns;
	}
	if (width == 4) {
		if (!accel_dma_read(e, op->addr, &v32, sizeof(v32), "POLL32"))
			return false;
		val = sfab_le32_to_cpu(v32);
	} else {
		if (!accel_dma_read(e, op->addr, &v64, sizeof(v64), "POLL64"))
			return false;
		val = sfab_le64_to_cpu(v64);
	}
	if (sfab_accel_poll_match(val, op->mask, op->expect)) {
		e->poll_started = false;
		e->stats.polls++;
		return true;
	}
	if (now >= e->poll_deadline) {
		e->stats.poll_timeouts++;
		accel_fail(e, SFAB_ACCEL_ERR_POLL_TIMEOUT,
			   "word at 0x%llx is 0x%llx after %llu ns: want 0x%llx under mask 0x%llx",
			   (unsigned long long)op->addr,
			   (unsigned long long)val,
			   (unsigned long long)op->timeout_ns,
			   (unsigned long long)op->expect,
			   (unsigned long long)op->mask);
		return false;
	}
	next = now + e->poll_interval;
	if (next > e->poll_deadline || next < now)
		next = e->poll_deadline;
	e->poll_interval *= 2;
	if (e->poll_interval > e->cfg.poll_interval_max_ns)
		e->poll_interval = e->cfg.poll_interval_max_ns;
	e->poll_wait = true;
	accel_trace(e, SFAB_ACCEL_TRACE_POLL_WAIT, e->ci, next);
	e->ops->timer_arm(e->opaque, next);
	return false;
}

/*
 * Fetch, check and run the command at CI, adding the bytes it moved to
 * *@bytes.  True when it completed and CI moved on; false when the ring
 * stopped or a POLL waits.
 */
static bool accel_run_one(struct sfab_accel_engine *e, uint32_t *bytes)
{
	struct sfab_accel_cmd cmd;
	struct sfab_accel_op op;
	uint64_t addr;
	__le64 seq;
	int err;

	if (!e->poll_started) {
		addr = sfab_accel_ring_cmd_addr(e->base, e->log_depth, e->ci);
		if (e->ops->dma_read(e->opaque, addr, &cmd, sizeof(cmd))) {
			accel_fail(e, SFAB_ACCEL_ERR_RING_DMA,
				   "command read at 0x%llx failed",
				   (unsigned long long)addr);
			return false;
		}
		err = sfab_accel_cmd_decode(&cmd, &op);
		if (err) {
			accel_fail(e, err, "opcode 0x%02x flags 0x%02x len %u addr 0x%llx",
				   cmd.opcode, cmd.flags, op.len,
				   (unsigned long long)op.addr);
			return false;
		}
		accel_trace(e, SFAB_ACCEL_TRACE_CMD, e->ci, op.opcode);
	} else {
		op = e->poll_op;
	}

	switch (op.opcode) {
	case SFAB_ACCEL_OP_NOP:
		break;
	case SFAB_ACCEL_OP_FENCE:
		/* every earlier DMA is complete already */
		e->stats.fences++;
		break;
	case SFAB_ACCEL_OP_WRITE_IMM:
		if (!accel_dma_write(e, op.addr, op.data, op.len, "WRITE_IMM"))
			return false;
		e->stats.imm_writes++;
		*bytes += op.len;
		break;
	case SFAB_ACCEL_OP_COPY:
		/* all read first: a failed read writes nothing, overlap is safe */
		if (!accel_dma_read(e, op.src, e->bounce, op.len, "COPY") ||
		    !accel_dma_write(e, op.addr, e->bounce, op.len, "COPY"))
			return false;
		e->stats.copies++;
		e->stats.copy_bytes += op.len;
		*bytes += op.len;
		break;
	case SFAB_ACCEL_OP_STORE32:
	case SFAB_ACCEL_OP_STORE64:
		if (!accel_store(e, &op))
			return false;
		e->stats.stores++;
		*bytes += sfab_accel_op_width(op.opcode);
		break;
	case SFAB_ACCEL_OP_POLL32:
	case SFAB_ACCEL_OP_POLL64:
		e->poll_op = op;
		if (!accel_poll(e))
			return false;
		break;
	case SFAB_ACCEL_OP_COMPLETE:
		seq = sfab_cpu_to_le64(op.value);
		if (op.addr &&
		    !accel_dma_write(e, op.addr, &seq, sizeof(seq), "COMPLETE"))
			return false;
		e->seq = op.value;
		e->stats.completions++;
		accel_trace(e, SFAB_ACCEL_TRACE_COMPLETE, op.value, op.irq);
		if (op.irq)
			accel_raise(e, SFAB_ACCEL_MSIX_CPL);
		break;
	}
	e->ci++;
	e->stats.cmds++;
	return true;
}

void sfab_accel_engine_process(struct sfab_accel_engine *e)
{
	uint32_t cmds = 0, bytes = 0;

	if (!sfab_accel_engine_work_pending(e))
		return;
	e->stats.kicks++;
	while (sfab_accel_engine_work_pending(e)) {
		if (cmds >= e->cfg.kick_cmds || bytes >= e->cfg.kick_bytes) {
			e->stats.yields++;
			accel_trace(e, SFAB_ACCEL_TRACE_YIELD, e->ci, e->pi);
			return;
		}
		if (!accel_run_one(e, &bytes))
			return;
		cmds++;
	}
}
