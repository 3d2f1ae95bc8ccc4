/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sfab admin queue transport: the admin submission/completion rings, the
 * asynchronous event queue and device reset.
 *
 * The ring rules (free-running 16-bit indices, slots, the phase bit) are
 * the contract's, include/sfab/sfab_ring.h: the KUnit suite sfab_aq_ring
 * tests the exact code the driver, the provider and the device model run.
 */
#ifndef _SFAB_COM_H_
#define _SFAB_COM_H_

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <sfab/sfab_admin.h>
#include <sfab/sfab_regs.h>
#include <sfab/sfab_ring.h>

/* admin queue and async event queue sizes this driver programs */
#define SFAB_AQ_LOG_DEPTH		5
#define SFAB_AQ_DEPTH			BIT(SFAB_AQ_LOG_DEPTH)
#define SFAB_AENQ_LOG_DEPTH		5
#define SFAB_AENQ_DEPTH			BIT(SFAB_AENQ_LOG_DEPTH)

/* how long the device gets to complete an admin command, and to reset */
#define SFAB_ADMIN_TIMEOUT_MS		10000
#define SFAB_RESET_TIMEOUT_MS		5000

/* the depths above are ones the device accepts and the helpers handle */
static_assert((SFAB_AQ_LOG_DEPTH) >= SFAB_AQ_MIN_LOG_DEPTH);
static_assert((SFAB_AQ_LOG_DEPTH) <= SFAB_AQ_MAX_LOG_DEPTH);
static_assert((SFAB_AENQ_LOG_DEPTH) >= SFAB_AQ_MIN_LOG_DEPTH);
static_assert((SFAB_AENQ_LOG_DEPTH) <= SFAB_AQ_MAX_LOG_DEPTH);

enum sfab_ctx_state {
	SFAB_CTX_FREE,
	SFAB_CTX_SUBMITTED,	/* on the ring, waiting for its completion */
	SFAB_CTX_COMPLETED,	/* completion copied into @comp */
	SFAB_CTX_ABORTED,	/* queue stopped before the completion came */
};

/* one waiter for one admin command in flight */
struct sfab_comp_ctx {
	struct completion done;		/* completed from the admin interrupt */
	struct sfab_acq_entry comp;	/* copy of the completion entry */
	enum sfab_ctx_state state;
	u16 cmd_id;
	u8 opcode;
};

struct sfab_com_aq {
	struct sfab_aq_cmd *sq;		/* AQ ring, coherent DMA */
	dma_addr_t sq_dma;
	struct sfab_acq_entry *cq;	/* ACQ ring, coherent DMA */
	dma_addr_t cq_dma;
	/*
	 * Protects both rings, the indices, the contexts' state and @dead;
	 * taken from the admin interrupt.
	 */
	spinlock_t lock;
	u16 sq_pc;			/* AQ producer (next free entry) */
	u16 cq_cc;			/* ACQ consumer (next entry to read) */
	bool dead;			/* commands fail with -ENODEV */
	/* one token per completion context: bounds the commands in flight */
	struct semaphore avail;
	DECLARE_BITMAP(ctx_busy, SFAB_AQ_DEPTH);
	struct sfab_comp_ctx ctx[SFAB_AQ_DEPTH];
};

/*
 * An async event in host byte order: sfab_com.c decodes each struct
 * sfab_aenq_entry once; what data0 and data1 mean depends on the type
 * (include/sfab/sfab_admin.h, enum sfab_aenq_type).
 */
struct sfab_com_event {
	u64 data1;
	u32 data0;
	u8 type;			/* enum sfab_aenq_type */
};

/* handlers the AENQ dispatches to, by enum sfab_aenq_type */
struct sfab_aenq_handlers {
	void (*handler[SFAB_AENQ_SRQ_EVENT + 1])(void *data,
						 const struct sfab_com_event *ev);
	void (*unknown)(void *data, const struct sfab_com_event *ev);
};

struct sfab_com_aenq {
	struct sfab_aenq_entry *ring;	/* coherent DMA */
	dma_addr_t dma;
	u16 cc;				/* consumer; only its interrupt uses it */
	const struct sfab_aenq_handlers *handlers;
	void *data;			/* handlers' argument */
};

struct sfab_com_dev {
	struct device *dmadev;		/* the PCI function */
	void __iomem *regs;		/* BAR0 */
	struct sfab_com_aq aq;
	struct sfab_com_aenq aenq;
	/* serialises device resets against each other */
	struct mutex reset_lock;
	bool enabled;			/* queues programmed since the last reset */
	/*
	 * called (process context) when an admin command timed out and when
	 * sfab_com_quiesce() stopped the device; may be NULL
	 */
	void (*lost)(struct sfab_com_dev *edev, const char *why);
};

int sfab_com_dev_reset(struct sfab_com_dev *edev);
int sfab_com_quiesce(struct sfab_com_dev *edev);
void sfab_com_kill(struct sfab_com_dev *edev);

int sfab_com_admin_init(struct sfab_com_dev *edev);
void sfab_com_admin_destroy(struct sfab_com_dev *edev);
void sfab_com_admin_intr(struct sfab_com_dev *edev);
int sfab_com_exec(struct sfab_com_dev *edev, struct sfab_aq_cmd *cmd,
		  struct sfab_acq_entry *comp);

int sfab_com_aenq_init(struct sfab_com_dev *edev,
		       const struct sfab_aenq_handlers *handlers, void *data);
void sfab_com_aenq_destroy(struct sfab_com_dev *edev);
void sfab_com_aenq_intr(struct sfab_com_dev *edev);

const char *sfab_com_opcode_str(u8 opcode);

/*
 * sfab_com.c's command-id arithmetic and async event decoding, static
 * without KUnit; the KUnit suite sfab_aq_ring reaches them through
 * VISIBLE_IF_KUNIT and EXPORT_SYMBOL_IF_KUNIT.
 */
#if IS_ENABLED(CONFIG_KUNIT)
u16 sfab_aq_cmd_id(u16 pc, u16 ctx, unsigned int log_depth);
u16 sfab_aq_cmd_ctx(u16 cmd_id, unsigned int log_depth);
void sfab_com_aenq_decode(struct sfab_com_event *ev,
			  const struct sfab_aenq_entry *e);
#endif

#endif /* _SFAB_COM_H_ */
