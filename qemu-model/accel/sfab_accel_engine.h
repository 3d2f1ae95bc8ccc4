/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab-accel engine: the test accelerator's command engine, independent
 * of QEMU.
 *
 * The engine owns the device's BAR0 registers and its command ring; the
 * device memory (BAR2) is the host's business (QEMU: a RAM region the
 * engine reaches, like any other memory, by DMA).  A host (the QEMU PCIe
 * shell in hw/sfab/sfab_accel.c, or a host unit test) gives it callbacks
 * for DMA, the clock, one timer, MSI-X, logging and tracing, forwards BAR0
 * accesses to it, and calls sfab_accel_engine_process() from a deferred
 * context (a QEMU bottom half) while sfab_accel_engine_work_pending() says
 * there is work.  A POLL whose word does not match yet arms the timer;
 * the host calls sfab_accel_engine_timer() when it fires.
 *
 * Each process() call runs at most a budget of commands and bytes (struct
 * sfab_accel_engine_config), so no guest makes one call run for ever; a
 * POLL waits for its timer instead of spinning.  Everything depends only
 * on what the ops return, so tests drive it with a byte array as memory
 * and a clock they move by hand.
 *
 * Plain C11; the register map and commands are the hardware contract,
 * include/sfab/sfab_accel.h (Documentation/sfab/accel.rst).
 */
#ifndef SFAB_ACCEL_ENGINE_H
#define SFAB_ACCEL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfab/sfab_accel.h"

/*
 * One process() call runs at most this many commands, and stops after the
 * command that moved this many bytes (a COPY moves at most
 * SFAB_ACCEL_COPY_MAX).
 */
#define SFAB_ACCEL_ENGINE_KICK_CMDS		64
#define SFAB_ACCEL_ENGINE_KICK_BYTES		(256U * 1024)

/*
 * A POLL that does not match is checked again after poll_interval_ns of
 * device time, then after twice that, and so on up to
 * poll_interval_max_ns (no retry goes past the POLL's deadline): a short
 * wait is seen quickly, a long one costs few wakeups.  Both are within
 * [MIN, MAX].
 */
#define SFAB_ACCEL_ENGINE_POLL_NS_MIN		100
#define SFAB_ACCEL_ENGINE_POLL_NS_MAX		1000000
#define SFAB_ACCEL_ENGINE_POLL_NS		2000
#define SFAB_ACCEL_ENGINE_POLL_MAX_NS		32000

struct sfab_accel_engine_config {
	unsigned int mem_log_size;	/* SFAB_ACCEL_REG_MEM_SIZE */
	uint32_t kick_cmds;		/* at least 1 */
	uint32_t kick_bytes;		/* at least 1 */
	uint64_t poll_interval_ns;
	uint64_t poll_interval_max_ns;	/* >= poll_interval_ns */
};

#define SFAB_ACCEL_ENGINE_CONFIG_DEFAULT {			\
	.mem_log_size = SFAB_ACCEL_MEM_LOG_DEFAULT,		\
	.kick_cmds = SFAB_ACCEL_ENGINE_KICK_CMDS,		\
	.kick_bytes = SFAB_ACCEL_ENGINE_KICK_BYTES,		\
	.poll_interval_ns = SFAB_ACCEL_ENGINE_POLL_NS,		\
	.poll_interval_max_ns = SFAB_ACCEL_ENGINE_POLL_MAX_NS,	\
}

/* what the engine reports through sfab_accel_engine_ops.trace */
enum sfab_accel_trace_ev {
	SFAB_ACCEL_TRACE_RESET,		/* - */
	SFAB_ACCEL_TRACE_ENABLE,	/* a: ring base, b: log2 depth */
	SFAB_ACCEL_TRACE_CMD,		/* a: ring index, b: opcode */
	SFAB_ACCEL_TRACE_POLL_WAIT,	/* a: ring index, b: retry time (ns) */
	SFAB_ACCEL_TRACE_COMPLETE,	/* a: sequence, b: irq flag */
	SFAB_ACCEL_TRACE_IRQ,		/* a: vector */
	SFAB_ACCEL_TRACE_IRQ_MASKED,	/* a: vector, held in INTR_STATUS */
	SFAB_ACCEL_TRACE_ERROR,		/* a: enum sfab_accel_err, b: index */
	SFAB_ACCEL_TRACE_YIELD,		/* a: CI, b: PI: budget spent */
};

/*
 * Where the engine found the guest at fault: each report names one site
 * (sfab_accel_engine_site_name() gives a short name), for QEMU's trace
 * event and the tests.  Register misuse is logged and ignored; every
 * other site stops the ring with the error code its name says.
 */
enum sfab_accel_ge {
	SFAB_ACCEL_GE_REG_READ,		/* read: unknown offset, bad size */
	SFAB_ACCEL_GE_REG_WRITE,	/* write: unknown, read-only, bad size */
	SFAB_ACCEL_GE_REG_RESERVED,	/* write: reserved bits set */
	SFAB_ACCEL_GE_RING_CONFIG,	/* SFAB_ACCEL_ERR_RING_CONFIG */
	SFAB_ACCEL_GE_RING_OVERRUN,	/* SFAB_ACCEL_ERR_RING_OVERRUN */
	SFAB_ACCEL_GE_RING_DMA,		/* SFAB_ACCEL_ERR_RING_DMA */
	SFAB_ACCEL_GE_CMD_OPCODE,	/* SFAB_ACCEL_ERR_OPCODE */
	SFAB_ACCEL_GE_CMD_RESERVED,	/* SFAB_ACCEL_ERR_RESERVED */
	SFAB_ACCEL_GE_CMD_BOUNDS,	/* SFAB_ACCEL_ERR_BOUNDS */
	SFAB_ACCEL_GE_CMD_ALIGN,	/* SFAB_ACCEL_ERR_ALIGN */
	SFAB_ACCEL_GE_CMD_DMA,		/* SFAB_ACCEL_ERR_DMA */
	SFAB_ACCEL_GE_POLL_TIMEOUT,	/* SFAB_ACCEL_ERR_POLL_TIMEOUT */
	SFAB_ACCEL_GE__COUNT
};

const char *sfab_accel_engine_site_name(enum sfab_accel_ge site);

struct sfab_accel_engine_ops {
	/* bus-address memory access: 0 on success, -1 on failure */
	int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
			 size_t len);
	/* device time in ns (QEMU: QEMU_CLOCK_VIRTUAL) */
	uint64_t (*now_ns)(void *opaque);
	/*
	 * call sfab_accel_engine_timer() at @deadline_ns, replacing an
	 * earlier deadline; timer_cancel: no call
	 */
	void (*timer_arm)(void *opaque, uint64_t deadline_ns);
	void (*timer_cancel)(void *opaque);
	/* signal MSI-X vector SFAB_ACCEL_MSIX_* (INTR_MASK already applied) */
	void (*irq)(void *opaque, unsigned int vector);
	/* the guest did something wrong at @site; optional */
	void (*guest_error)(void *opaque, enum sfab_accel_ge site,
			    const char *msg);
	/* trace point; optional */
	void (*trace)(void *opaque, enum sfab_accel_trace_ev ev, uint64_t a,
		      uint64_t b);
};

/* counters; reset does not clear them (QEMU: read-only properties) */
struct sfab_accel_engine_stats {
	uint64_t cmds;			/* commands completed */
	uint64_t imm_writes;		/* WRITE_IMM completed */
	uint64_t copies;		/* COPY completed */
	uint64_t copy_bytes;
	uint64_t stores;		/* STORE32, STORE64 completed */
	uint64_t polls;			/* POLLs that matched */
	uint64_t poll_retries;		/* checks again after the timer */
	uint64_t poll_timeouts;
	uint64_t fences;
	uint64_t completions;		/* COMPLETE commands */
	uint64_t irqs;			/* interrupts signalled */
	uint64_t irqs_masked;		/* causes held by INTR_MASK */
	uint64_t errors;		/* times the ring stopped on an error */
	uint64_t guest_errors;		/* every report, register misuse too */
	uint64_t kicks;			/* process() calls that ran commands */
	uint64_t yields;		/* process() calls the budget ended */
};

struct sfab_accel_engine {
	const struct sfab_accel_engine_ops *ops;
	void *opaque;
	struct sfab_accel_engine_config cfg;
	struct sfab_accel_engine_stats stats;

	/* from here on, reset clears everything */
	uint32_t ctl;			/* SFAB_ACCEL_CTL_ENABLE as written */
	uint32_t intr_status, intr_mask;
	uint32_t ring_cfg, ring_base_lo, ring_base_hi;
	uint32_t pi, ci;		/* free-running */
	uint64_t seq;			/* SEQ_LO/HI */
	bool error;			/* stopped: err_code, err_index */
	uint32_t err_code, err_index;

	/* the ring as latched when enabled; running: enabled, no error */
	bool running;
	uint64_t base;
	unsigned int log_depth;

	/* a POLL under way at index ci */
	bool poll_started;		/* poll_op, poll_deadline are set */
	bool poll_wait;			/* the timer is armed for a retry */
	struct sfab_accel_op poll_op;
	uint64_t poll_deadline;
	uint64_t poll_interval;		/* the wait after the next miss */

	uint8_t bounce[SFAB_ACCEL_COPY_MAX];	/* COPY: read all, then write */
};

/*
 * @cfg NULL: the defaults.  -1 when a required op is missing or @cfg is
 * out of range (each limit above), else 0 with the engine reset.
 */
int sfab_accel_engine_init(struct sfab_accel_engine *e,
			   const struct sfab_accel_engine_ops *ops,
			   void *opaque,
			   const struct sfab_accel_engine_config *cfg);
bool sfab_accel_engine_config_valid(const struct sfab_accel_engine_config *cfg);
/* a function reset: CTL.RESET does the same */
void sfab_accel_engine_reset(struct sfab_accel_engine *e);

/*
 * BAR0: @off is the offset of an aligned 32-bit access (the host answers
 * other sizes itself: all ones, ignored).  reg_write() returns true when
 * the host must schedule process().
 */
uint32_t sfab_accel_engine_reg_read(struct sfab_accel_engine *e, uint64_t off);
bool sfab_accel_engine_reg_write(struct sfab_accel_engine *e, uint64_t off,
				 uint32_t val);

/* run commands, up to the budget; DMA happens only here */
void sfab_accel_engine_process(struct sfab_accel_engine *e);
/* commands are ready to run now (not waiting on a POLL's timer) */
bool sfab_accel_engine_work_pending(const struct sfab_accel_engine *e);
/* the timer fired: true when the host must schedule process() */
bool sfab_accel_engine_timer(struct sfab_accel_engine *e);

/* a guest error the host found (register access sizes) */
void sfab_accel_engine_guest_error(struct sfab_accel_engine *e,
				   enum sfab_accel_ge site, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* SFAB_ACCEL_ENGINE_H */
