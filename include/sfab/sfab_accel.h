/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sfab hardware contract v1: the test accelerator "sfab-accel", the device
 * that stands in for a GPU.
 *
 * It has device memory (BAR2, RAM that the host can map and that other
 * devices reach peer-to-peer) and a command engine that runs programs the
 * host queues on a ring: immediate writes, copies, 32- and 64-bit stores
 * (to any bus address: its own memory, host memory, another device's BAR
 * such as an HCA doorbell page), polls of a location until it holds a
 * value, fences and completion markers.  That is what a GPU kernel doing
 * GPU-initiated communication does: build WQEs in its memory, write the
 * doorbell record, ring the HCA's doorbell and poll for the CQE.
 *
 * Every address in a command is a bus address: the address the device's
 * DMA uses (the kernel's dma_addr_t, pci_bus_address() for a BAR).
 *
 * Documentation/sfab/accel.rst describes the registers and the commands in
 * words; the layouts, limits and rules are here once, as constants and
 * static inline helpers, for the driver, the QEMU model, user tools and
 * the tests.
 */
#ifndef _SFAB_ACCEL_H_
#define _SFAB_ACCEL_H_

#include "sfab_types.h"

/* PCI identity */
#define SFAB_ACCEL_PCI_VENDOR_ID	0x1af4
#define SFAB_ACCEL_PCI_DEVICE_ID	0x10f1
#define SFAB_ACCEL_PCI_CLASS		0x1200	/* processing accelerator */
#define SFAB_ACCEL_PCI_SUBSYS_ID	0x0001
#define SFAB_ACCEL_PCI_REVISION		0x01

/* BARs */
#define SFAB_ACCEL_BAR_REGS		0	/* BAR0: registers, 32-bit MMIO */
#define SFAB_ACCEL_BAR_MEM		2	/* BAR2/3: device memory, 64-bit prefetchable */
#define SFAB_ACCEL_BAR_MSIX		4	/* BAR4: MSI-X table and PBA */
#define SFAB_ACCEL_BAR_REGS_SIZE	0x1000

/*
 * Device memory (BAR2): RAM, a power of two from 1 MiB to 16 GiB, 256 MiB
 * unless the device was made with another size; SFAB_ACCEL_REG_MEM_SIZE
 * gives its log2.
 */
#define SFAB_ACCEL_MEM_LOG_MIN		20
#define SFAB_ACCEL_MEM_LOG_MAX		34
#define SFAB_ACCEL_MEM_LOG_DEFAULT	28
#define SFAB_ACCEL_MEM_SIZE_DEFAULT	(1ULL << SFAB_ACCEL_MEM_LOG_DEFAULT)

/*
 * MSI-X: vector 0 signals completions (a COMPLETE command with
 * SFAB_ACCEL_CMD_F_IRQ), vector 1 that the ring stopped on an error.
 */
#define SFAB_ACCEL_MSIX_CPL		0
#define SFAB_ACCEL_MSIX_ERR		1
#define SFAB_ACCEL_MSIX_VECTORS		2

/*
 * BAR0 registers.  All are 32 bits wide, little-endian, and must be
 * accessed with aligned 32-bit reads and writes; other sizes and unknown
 * offsets are ignored by the device (writes) or read as all ones (reads).
 */
#define SFAB_ACCEL_REG_ID		0x000	/* RO: SFAB_ACCEL_ID_MAGIC */
#define SFAB_ACCEL_REG_VERSION		0x004	/* RO: interface version */
#define SFAB_ACCEL_REG_MEM_SIZE		0x008	/* RO: log2 of BAR2's size in bytes */
#define SFAB_ACCEL_REG_CTL		0x00c	/* RW: SFAB_ACCEL_CTL_* */
#define SFAB_ACCEL_REG_STATUS		0x010	/* RO: SFAB_ACCEL_STS_* */
#define SFAB_ACCEL_REG_ERR_CODE		0x014	/* RO: enum sfab_accel_err of the stop */
#define SFAB_ACCEL_REG_ERR_INDEX	0x018	/* RO: ring index of the failing command */
#define SFAB_ACCEL_REG_INTR_STATUS	0x01c	/* RW1C: SFAB_ACCEL_INTR_* raised */
#define SFAB_ACCEL_REG_INTR_MASK	0x020	/* RW: SFAB_ACCEL_INTR_* masked */
#define SFAB_ACCEL_REG_RING_CFG		0x024	/* RW: log2 ring depth */
#define SFAB_ACCEL_REG_RING_BASE_LO	0x028	/* RW: ring base, low 32 bits */
#define SFAB_ACCEL_REG_RING_BASE_HI	0x02c	/* RW: ring base, high 32 bits */
#define SFAB_ACCEL_REG_RING_PI		0x030	/* RW: producer index: the doorbell */
#define SFAB_ACCEL_REG_RING_CI		0x034	/* RO: consumer index */
#define SFAB_ACCEL_REG_SEQ_LO		0x038	/* RO: last COMPLETE's sequence, low */
#define SFAB_ACCEL_REG_SEQ_HI		0x03c	/* RO: last COMPLETE's sequence, high */

#define SFAB_ACCEL_ID_MAGIC		0x53464143	/* "SFAC" */

#define SFAB_ACCEL_VERSION_MAJOR_MASK	SFAB_GENMASK(31, 16)
#define SFAB_ACCEL_VERSION_MINOR_MASK	SFAB_GENMASK(15, 0)
#define SFAB_ACCEL_IF_VERSION_MAJOR	1
#define SFAB_ACCEL_IF_VERSION_MINOR	0

/*
 * SFAB_ACCEL_REG_CTL.  ENABLE runs the ring: setting it checks and latches
 * RING_BASE and RING_CFG; clearing it stops the ring between two commands
 * (a POLL waiting is abandoned and starts again, with its whole timeout,
 * when the ring is enabled again).  RESET (write 1, reads 0) stops the
 * ring, leaves the error state and clears every register (the interrupt
 * mask too); device memory keeps its contents.  Other bits are reserved.
 */
#define SFAB_ACCEL_CTL_ENABLE		(1U << 0)
#define SFAB_ACCEL_CTL_RESET		(1U << 1)

/* SFAB_ACCEL_REG_STATUS */
#define SFAB_ACCEL_STS_ENABLED		(1U << 0)	/* CTL.ENABLE is set */
#define SFAB_ACCEL_STS_BUSY		(1U << 1)	/* running: CI != PI */
#define SFAB_ACCEL_STS_POLLING		(1U << 2)	/* a POLL waits for its retry */
#define SFAB_ACCEL_STS_ERROR		(1U << 31)	/* stopped: ERR_CODE, ERR_INDEX */

/*
 * SFAB_ACCEL_REG_INTR_STATUS and _MASK: bit n is MSI-X vector n's cause.
 * A cause raises its vector when it happens, unless masked; a masked
 * cause stays in INTR_STATUS and raises its vector when unmasked.
 */
#define SFAB_ACCEL_INTR_CPL		(1U << SFAB_ACCEL_MSIX_CPL)
#define SFAB_ACCEL_INTR_ERR		(1U << SFAB_ACCEL_MSIX_ERR)
#define SFAB_ACCEL_INTR_ALL		(SFAB_ACCEL_INTR_CPL | SFAB_ACCEL_INTR_ERR)

/* SFAB_ACCEL_REG_RING_CFG */
#define SFAB_ACCEL_RING_LOG_DEPTH_MASK	SFAB_GENMASK(4, 0)
#define SFAB_ACCEL_RING_MIN_LOG_DEPTH	2
#define SFAB_ACCEL_RING_MAX_LOG_DEPTH	16

/*
 * Why the ring stopped (SFAB_ACCEL_REG_ERR_CODE).  The ring stops at the
 * first error, with ERR_INDEX the free-running index of the command that
 * failed (or of the next one, for ring errors): no later command runs, and
 * only CTL.RESET leaves the state.
 */
enum sfab_accel_err {
	SFAB_ACCEL_ERR_NONE		= 0,
	SFAB_ACCEL_ERR_RING_CONFIG	= 1,	/* base, depth refused; changed while enabled */
	SFAB_ACCEL_ERR_RING_OVERRUN	= 2,	/* PI more than a ring ahead of CI */
	SFAB_ACCEL_ERR_RING_DMA		= 3,	/* the command could not be read */
	SFAB_ACCEL_ERR_OPCODE		= 4,	/* unknown opcode */
	SFAB_ACCEL_ERR_RESERVED		= 5,	/* a reserved field or flag is not zero */
	SFAB_ACCEL_ERR_BOUNDS		= 6,	/* length or timeout out of bounds */
	SFAB_ACCEL_ERR_ALIGN		= 7,	/* address not aligned to the access */
	SFAB_ACCEL_ERR_DMA		= 8,	/* a command's read or write failed */
	SFAB_ACCEL_ERR_POLL_TIMEOUT	= 9,	/* a POLL's value never matched */
};

#define SFAB_ACCEL_ERR_MAX		SFAB_ACCEL_ERR_POLL_TIMEOUT

/* a short name of each error code, for logs */
static inline const char *sfab_accel_err_str(unsigned int err)
{
	static const char *const names[] = {
		[SFAB_ACCEL_ERR_NONE] = "none",
		[SFAB_ACCEL_ERR_RING_CONFIG] = "ring-config",
		[SFAB_ACCEL_ERR_RING_OVERRUN] = "ring-overrun",
		[SFAB_ACCEL_ERR_RING_DMA] = "ring-dma",
		[SFAB_ACCEL_ERR_OPCODE] = "opcode",
		[SFAB_ACCEL_ERR_RESERVED] = "reserved",
		[SFAB_ACCEL_ERR_BOUNDS] = "bounds",
		[SFAB_ACCEL_ERR_ALIGN] = "align",
		[SFAB_ACCEL_ERR_DMA] = "dma",
		[SFAB_ACCEL_ERR_POLL_TIMEOUT] = "poll-timeout",
	};

	return err <= SFAB_ACCEL_ERR_MAX ? names[err] : "unknown";
}

/* ---- commands ----------------------------------------------------------- */

/*
 * Commands run one after the other, in ring order.  Stores (WRITE_IMM,
 * COPY's writes, STORE32, STORE64) may become visible to other agents in
 * any order until a FENCE, which is what a GPU's system-scope fence is:
 * every store before it is visible before any store after it.  A POLL
 * that matched is an acquire: nothing after it runs before it matched.
 * COMPLETE fences first, then writes its sequence.
 */
enum sfab_accel_opcode {
	SFAB_ACCEL_OP_NOP		= 0x01,
	SFAB_ACCEL_OP_WRITE_IMM		= 0x02,	/* len bytes of data to addr */
	SFAB_ACCEL_OP_COPY		= 0x03,	/* len bytes from src to addr */
	SFAB_ACCEL_OP_STORE32		= 0x04,	/* value to addr, one 4-byte write */
	SFAB_ACCEL_OP_STORE64		= 0x05,	/* value to addr, one 8-byte write */
	SFAB_ACCEL_OP_POLL32		= 0x06,	/* until (*addr & mask) == expect */
	SFAB_ACCEL_OP_POLL64		= 0x07,
	SFAB_ACCEL_OP_FENCE		= 0x08,
	SFAB_ACCEL_OP_COMPLETE		= 0x09,	/* sequence to SEQ (and addr), IRQ */
};

/* opcode 0 is never valid: a zeroed slot stops the ring */
#define SFAB_ACCEL_OP_MAX		SFAB_ACCEL_OP_COMPLETE

/* struct sfab_accel_cmd.flags */
#define SFAB_ACCEL_CMD_F_IRQ		(1U << 0)	/* COMPLETE: raise INTR_CPL */

#define SFAB_ACCEL_CMD_SIZE		64
#define SFAB_ACCEL_CMD_LOG_SIZE		6
/* bytes of data a WRITE_IMM carries */
#define SFAB_ACCEL_IMM_MAX		48
/* the longest COPY */
#define SFAB_ACCEL_COPY_MAX		(64U * 1024)
/* the longest POLL timeout: 10 s; a POLL with timeout 0 checks once */
#define SFAB_ACCEL_POLL_TIMEOUT_MAX_NS	10000000000ULL

/*
 * One command: 64 bytes, little-endian.  What a command does not use is
 * reserved and must be zero (a WRITE_IMM's data past len too).
 */
struct sfab_accel_cmd {
	__u8 opcode;			/* enum sfab_accel_opcode */
	__u8 flags;			/* SFAB_ACCEL_CMD_F_* (COMPLETE only) */
	__le16 reserved;
	__le32 len;			/* WRITE_IMM, COPY: bytes */
	__le64 addr;			/* destination; POLL: the polled word */
	union {
		__u8 data[SFAB_ACCEL_IMM_MAX];		/* WRITE_IMM */
		struct {
			__le64 src;
			__le64 reserved[5];
		} copy;
		struct {
			__le64 value;	/* STORE32: bits 63:32 reserved */
			__le64 reserved[5];
		} store;
		struct {
			__le64 mask;	/* POLL32: bits 63:32 reserved */
			__le64 expect;	/* POLL32: bits 63:32 reserved */
			__le64 timeout_ns;
			__le64 reserved[3];
		} poll;
		struct {
			__le64 seq;	/* to SEQ_LO/HI, and to addr unless 0 */
			__le64 reserved[5];
		} complete;
		__le64 raw[6];
	} u;
};

SFAB_CHECK_SIZE(struct sfab_accel_cmd, SFAB_ACCEL_CMD_SIZE);
SFAB_STATIC_ASSERT(SFAB_ACCEL_CMD_SIZE == 1 << SFAB_ACCEL_CMD_LOG_SIZE);

/* a command, decoded and checked (sfab_accel_cmd_decode()) */
struct sfab_accel_op {
	__u8 opcode;			/* enum sfab_accel_opcode */
	bool irq;			/* COMPLETE: SFAB_ACCEL_CMD_F_IRQ */
	__u32 len;			/* WRITE_IMM, COPY */
	__u64 addr;			/* destination, polled word; COMPLETE: 0 or seq's */
	__u64 src;			/* COPY */
	__u64 value;			/* STORE32/64; COMPLETE: the sequence */
	__u64 mask, expect, timeout_ns;	/* POLL32/64 */
	const __u8 *data;		/* WRITE_IMM: len bytes, in the command */
};

/* the size of the access a STORE or POLL makes, 0 for other opcodes */
static inline unsigned int sfab_accel_op_width(__u8 opcode)
{
	switch (opcode) {
	case SFAB_ACCEL_OP_STORE32:
	case SFAB_ACCEL_OP_POLL32:
		return 4;
	case SFAB_ACCEL_OP_STORE64:
	case SFAB_ACCEL_OP_POLL64:
		return 8;
	default:
		return 0;
	}
}

/* does a polled word's @val satisfy the POLL? */
static inline bool sfab_accel_poll_match(__u64 val, __u64 mask, __u64 expect)
{
	return (val & mask) == expect;
}

/**
 * sfab_accel_cmd_decode() - check a command and decode it
 * @c: the command as read from the ring
 * @op: filled with what the command says (also when it is refused)
 *
 * The checks come in this order: the opcode, the flags and reserved
 * header bytes, the bounds of len and timeout_ns, the reserved bytes of
 * the opcode's body, the alignment of addr.
 *
 * Return: SFAB_ACCEL_ERR_NONE, or the enum sfab_accel_err the device
 * stops the ring with.
 */
static inline int sfab_accel_cmd_decode(const struct sfab_accel_cmd *c,
					struct sfab_accel_op *op)
{
	unsigned int used = 0, i, width;
	__u32 flags_ok = 0;
	bool has_len = false, has_addr = true;

	memset(op, 0, sizeof(*op));
	op->opcode = c->opcode;
	op->len = sfab_le32_to_cpu(c->len);
	op->addr = sfab_le64_to_cpu(c->addr);
	op->irq = c->flags & SFAB_ACCEL_CMD_F_IRQ;

	switch (c->opcode) {
	case SFAB_ACCEL_OP_NOP:
	case SFAB_ACCEL_OP_FENCE:
		has_addr = false;
		break;
	case SFAB_ACCEL_OP_WRITE_IMM:
		has_len = true;
		op->data = c->u.data;
		break;
	case SFAB_ACCEL_OP_COPY:
		has_len = true;
		op->src = sfab_le64_to_cpu(c->u.copy.src);
		used = 1;
		break;
	case SFAB_ACCEL_OP_STORE32:
	case SFAB_ACCEL_OP_STORE64:
		op->value = sfab_le64_to_cpu(c->u.store.value);
		used = 1;
		break;
	case SFAB_ACCEL_OP_POLL32:
	case SFAB_ACCEL_OP_POLL64:
		op->mask = sfab_le64_to_cpu(c->u.poll.mask);
		op->expect = sfab_le64_to_cpu(c->u.poll.expect);
		op->timeout_ns = sfab_le64_to_cpu(c->u.poll.timeout_ns);
		used = 3;
		break;
	case SFAB_ACCEL_OP_COMPLETE:
		op->value = sfab_le64_to_cpu(c->u.complete.seq);
		flags_ok = SFAB_ACCEL_CMD_F_IRQ;
		used = 1;
		break;
	default:
		return SFAB_ACCEL_ERR_OPCODE;
	}

	if ((c->flags & ~flags_ok) || c->reserved ||
	    (!has_len && c->len) || (!has_addr && c->addr))
		return SFAB_ACCEL_ERR_RESERVED;

	if (c->opcode == SFAB_ACCEL_OP_WRITE_IMM &&
	    (!op->len || op->len > SFAB_ACCEL_IMM_MAX))
		return SFAB_ACCEL_ERR_BOUNDS;
	if (c->opcode == SFAB_ACCEL_OP_COPY &&
	    (!op->len || op->len > SFAB_ACCEL_COPY_MAX))
		return SFAB_ACCEL_ERR_BOUNDS;
	if (op->timeout_ns > SFAB_ACCEL_POLL_TIMEOUT_MAX_NS)
		return SFAB_ACCEL_ERR_BOUNDS;

	if (c->opcode == SFAB_ACCEL_OP_WRITE_IMM) {
		for (i = op->len; i < SFAB_ACCEL_IMM_MAX; i++)
			if (c->u.data[i])
				return SFAB_ACCEL_ERR_RESERVED;
	} else {
		for (i = used; i < 6; i++)
			if (c->u.raw[i])
				return SFAB_ACCEL_ERR_RESERVED;
	}
	if ((c->opcode == SFAB_ACCEL_OP_STORE32 && op->value >> 32) ||
	    (c->opcode == SFAB_ACCEL_OP_POLL32 &&
	     (op->mask >> 32 || op->expect >> 32)))
		return SFAB_ACCEL_ERR_RESERVED;

	width = sfab_accel_op_width(c->opcode);
	if (c->opcode == SFAB_ACCEL_OP_COMPLETE)
		width = 8;
	if (width && (op->addr & (width - 1)))
		return SFAB_ACCEL_ERR_ALIGN;
	return SFAB_ACCEL_ERR_NONE;
}

/*
 * Command encoders: each fills all 64 bytes of @c.  Those that take
 * arguments the device could refuse check them with the decoder and
 * return -EINVAL where it would stop the ring (the command is still
 * written, so a test can post it).
 */
static inline int sfab_accel_cmd_check(const struct sfab_accel_cmd *c)
{
	struct sfab_accel_op op;

	return sfab_accel_cmd_decode(c, &op) ? -EINVAL : 0;
}

static inline void sfab_accel_cmd_nop(struct sfab_accel_cmd *c)
{
	memset(c, 0, sizeof(*c));
	c->opcode = SFAB_ACCEL_OP_NOP;
}

static inline void sfab_accel_cmd_fence(struct sfab_accel_cmd *c)
{
	memset(c, 0, sizeof(*c));
	c->opcode = SFAB_ACCEL_OP_FENCE;
}

/* @len bytes of @data (at most SFAB_ACCEL_IMM_MAX are copied) to @dst */
static inline int sfab_accel_cmd_write_imm(struct sfab_accel_cmd *c, __u64 dst,
					   const void *data, __u32 len)
{
	memset(c, 0, sizeof(*c));
	c->opcode = SFAB_ACCEL_OP_WRITE_IMM;
	c->len = sfab_cpu_to_le32(len);
	c->addr = sfab_cpu_to_le64(dst);
	memcpy(c->u.data, data,
	       len < SFAB_ACCEL_IMM_MAX ? len : SFAB_ACCEL_IMM_MAX);
	return sfab_accel_cmd_check(c);
}

static inline int sfab_accel_cmd_copy(struct sfab_accel_cmd *c, __u64 dst,
				      __u64 src, __u32 len)
{
	memset(c, 0, sizeof(*c));
	c->opcode = SFAB_ACCEL_OP_COPY;
	c->len = sfab_cpu_to_le32(len);
	c->addr = sfab_cpu_to_le64(dst);
	c->u.copy.src = sfab_cpu_to_le64(src);
	return sfab_accel_cmd_check(c);
}

static inline int sfab_accel_cmd_store32(struct sfab_accel_cmd *c, __u64 dst,
					 __u32 value)
{
	memset(c, 0, sizeof(*c));
	c->opcode = SFAB_ACCEL_OP_STORE32;
	c->addr = sfab_cpu_to_le64(dst);
	c->u.store.value = sfab_cpu_to_le64(value);
	return sfab_accel_cmd_check(c);
}

static inline int sfab_accel_cmd_store64(struct sfab_accel_cmd *c, __u64 dst,
					 __u64 value)
{
	memset(c, 0, sizeof(*c));
	c->opcode = SFAB_ACCEL_OP_STORE64;
	c->addr = sfab_cpu_to_le64(dst);
	c->u.store.value = sfab_cpu_to_le64(value);
	return sfab_accel_cmd_check(c);
}

static inline int sfab_accel_cmd_poll(struct sfab_accel_cmd *c, __u8 opcode,
				      __u64 addr, __u64 mask, __u64 expect,
				      __u64 timeout_ns)
{
	memset(c, 0, sizeof(*c));
	c->opcode = opcode;
	c->addr = sfab_cpu_to_le64(addr);
	c->u.poll.mask = sfab_cpu_to_le64(mask);
	c->u.poll.expect = sfab_cpu_to_le64(expect);
	c->u.poll.timeout_ns = sfab_cpu_to_le64(timeout_ns);
	return sfab_accel_cmd_check(c);
}

/* until (the 32-bit word at @addr & @mask) == @expect, or @timeout_ns */
static inline int sfab_accel_cmd_poll32(struct sfab_accel_cmd *c, __u64 addr,
					__u32 mask, __u32 expect,
					__u64 timeout_ns)
{
	return sfab_accel_cmd_poll(c, SFAB_ACCEL_OP_POLL32, addr, mask, expect,
				   timeout_ns);
}

static inline int sfab_accel_cmd_poll64(struct sfab_accel_cmd *c, __u64 addr,
					__u64 mask, __u64 expect,
					__u64 timeout_ns)
{
	return sfab_accel_cmd_poll(c, SFAB_ACCEL_OP_POLL64, addr, mask, expect,
				   timeout_ns);
}

/* @seq to SEQ_LO/HI and, unless @addr is 0, to @addr; @irq: INTR_CPL */
static inline int sfab_accel_cmd_complete(struct sfab_accel_cmd *c, __u64 addr,
					  __u64 seq, bool irq)
{
	memset(c, 0, sizeof(*c));
	c->opcode = SFAB_ACCEL_OP_COMPLETE;
	c->flags = irq ? SFAB_ACCEL_CMD_F_IRQ : 0;
	c->addr = sfab_cpu_to_le64(addr);
	c->u.complete.seq = sfab_cpu_to_le64(seq);
	return sfab_accel_cmd_check(c);
}

/* ---- the ring ----------------------------------------------------------- */

/*
 * The ring is 2^log_depth commands at RING_BASE, a bus address aligned to
 * the command size.  PI and CI are free-running 32-bit indices; the
 * command an index names is in slot (index mod depth).  The host writes
 * commands, then the new PI; the device runs them and moves CI.  PI may be
 * at most a ring ahead of CI.
 */

/* can a ring of 2^@log_depth commands live at @base? */
static inline bool sfab_accel_ring_cfg_ok(__u64 base, unsigned int log_depth)
{
	__u64 bytes;

	if (log_depth < SFAB_ACCEL_RING_MIN_LOG_DEPTH ||
	    log_depth > SFAB_ACCEL_RING_MAX_LOG_DEPTH)
		return false;
	bytes = (__u64)SFAB_ACCEL_CMD_SIZE << log_depth;
	return base && !(base & (SFAB_ACCEL_CMD_SIZE - 1)) &&
	       base <= ~0ULL - bytes + 1;
}

/* the bus address of the command at free-running index @idx */
static inline __u64 sfab_accel_ring_cmd_addr(__u64 base, unsigned int log_depth,
					     __u32 idx)
{
	return base + ((__u64)(idx & ((1U << log_depth) - 1)) <<
		       SFAB_ACCEL_CMD_LOG_SIZE);
}

/* commands posted and not yet consumed; more than the depth is an overrun */
static inline __u32 sfab_accel_ring_used(__u32 pi, __u32 ci)
{
	return pi - ci;
}

/* room for this many more commands (0 when PI is inconsistent with CI) */
static inline __u32 sfab_accel_ring_free(__u32 pi, __u32 ci,
					 unsigned int log_depth)
{
	__u32 used = sfab_accel_ring_used(pi, ci);
	__u32 depth = 1U << log_depth;

	return used > depth ? 0 : depth - used;
}

/* can BAR2 be @size bytes? */
static inline bool sfab_accel_mem_size_ok(__u64 size)
{
	return size >= 1ULL << SFAB_ACCEL_MEM_LOG_MIN &&
	       size <= 1ULL << SFAB_ACCEL_MEM_LOG_MAX && !(size & (size - 1));
}

#endif /* _SFAB_ACCEL_H_ */
