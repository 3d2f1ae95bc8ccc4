/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/admin: the HCA engine's admin queue and registers
 * (qemu-model/engine) as a malicious guest driver drives them.
 *
 * Each input starts from a device that a driver brought up (admin queue,
 * AENQ, firmware loaded) and is a program of operations, one byte each
 * and then its operands:
 *	CMD	an admin command of any opcode, every byte of it chosen
 *	CMD_PTR	the same, with up to three of its 64-bit fields pointing
 *		into host memory (so DMA goes somewhere real)
 *	PROCESS	one sfab_engine_process() call: a single engine step
 *	MEM	bytes written anywhere in host memory: rings, page lists,
 *		firmware staging, what a command points at
 *	REG, DB	a BAR0 register or doorbell-BAR write, any offset and value
 *	DMA	DMA starts failing, everywhere or in a window
 *	POLL	the driver reaps admin completions
 *	AENQ	the driver reaps async events
 *	RESET	a function reset, and the driver brings the device up again
 *	CLOCK	time passes and the engine's timers run
 *
 * Invariants: every engine step does bounded work (a ring's worth of
 * commands, the admin byte budget plus one command's worth of DMA); while
 * the driver's view of the rings is intact, every completion names a
 * command that was posted and carries a status the contract defines; at
 * the end, pending work drains in a bounded number of steps, and a reset
 * brings back a device that answers QUERY_DEVICE and loads firmware.
 */
#include "fuzz.h"
#include "qp_host.h"

enum {
	OP_CMD,
	OP_CMD_PTR,
	OP_PROCESS,
	OP_MEM,
	OP_REG,
	OP_DB,
	OP_DMA,
	OP_POLL,
	OP_AENQ,
	OP_RESET,
	OP_CLOCK,
	OP__COUNT,
};

#define MAX_OPS		512
#define MAX_RESETS	4
#define AQ_LOG		5

static const uint8_t known_status[] = {
	SFAB_AQ_STS_OK, SFAB_AQ_STS_BAD_OPCODE, SFAB_AQ_STS_BAD_PARAM,
	SFAB_AQ_STS_BAD_STATE, SFAB_AQ_STS_NO_RESOURCES,
	SFAB_AQ_STS_DMA_ERROR, SFAB_AQ_STS_NO_FW, SFAB_AQ_STS_DEV_ERROR,
	SFAB_AQ_STS_FW_BAD_MAGIC, SFAB_AQ_STS_FW_BAD_FORMAT,
	SFAB_AQ_STS_FW_BAD_SIZE, SFAB_AQ_STS_FW_BAD_CRC,
	SFAB_AQ_STS_FW_BAD_PROFILE,
};

static struct fake_host *H;
static struct sfab_engine_ops ops;
static uint64_t dma_bytes;
/* the driver's view of the admin rings still matches the device's */
static bool in_sync;
/* commands posted since the rings were last set up: ids (first, last] */
static uint16_t id_first;

/*
 * Inside step(): the DMA bytes when it began and when the last admin
 * completion was written, and the completions written so far.
 */
static bool in_step;
static uint64_t step_from, cpl_at;
static unsigned int step_cpls;

/*
 * What one command may move besides what the engine charges to its
 * budget: the command, its completion, a response (QUERY_DEVICE: 256
 * bytes, a MAD: 256) and the events it queues.
 */
#define CMD_SLACK	(4096 + (SFAB_ENGINE_AENQ_BACKLOG + 2) * \
			 sizeof(struct sfab_aenq_entry))

static int count_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	dma_bytes += len;
	return fh_dma_read(opaque, addr, buf, len);
}

static int count_write(void *opaque, uint64_t addr, const void *buf,
		       size_t len)
{
	/*
	 * An admin completion: the command before it ended.  A command
	 * may start only while the step's work is under the admin budget
	 * (SFAB_ENGINE_WORK_BYTES), so everything read before the previous
	 * completion, when this command started, was under it.
	 */
	if (in_step && in_sync && addr >= H->acq &&
	    addr < H->acq + (sizeof(struct sfab_acq_entry) << H->acq_mem)) {
		if (step_cpls)
			CHECK(cpl_at - step_from <
			      SFAB_ENGINE_WORK_BYTES + step_cpls * CMD_SLACK);
		step_cpls++;
		cpl_at = dma_bytes;
	}
	dma_bytes += len;
	return fh_dma_write(opaque, addr, buf, len);
}

static uint64_t host_addr(struct fz *f)
{
	return HOST_MEM_BASE + (fz_u32(f) % HOST_MEM_SIZE & ~0x3fULL);
}

/* one engine step, bounded */
static void step(void)
{
	uint64_t before = dma_bytes;
	unsigned int n;

	in_step = true;
	step_from = dma_bytes;
	step_cpls = 0;
	n = sfab_engine_process(H->e);
	in_step = false;

	CHECK(n <= 1U << SFAB_AQ_MAX_LOG_DEPTH);
	/*
	 * The admin budget, and the command that crossed it (a firmware
	 * chunk, a 1 GiB MR's page list: at most 2 MiB), the ring entries
	 * and the event backlog.
	 */
	CHECK(dma_bytes - before <= 2ULL * SFAB_ENGINE_WORK_BYTES +
	      (uint64_t)n * 2 * sizeof(struct sfab_aq_cmd) +
	      (SFAB_ENGINE_AENQ_BACKLOG + 2) * sizeof(struct sfab_aenq_entry));
}

static void drain(void)
{
	unsigned int rounds = 0;

	while (sfab_engine_work_pending(H->e)) {
		step();
		CHECK(++rounds < 256);
	}
}

static void poll(void)
{
	struct sfab_acq_entry c;
	unsigned int n = 0;

	while (host_poll(H, &c) && n++ < 1U << SFAB_AQ_MAX_LOG_DEPTH) {
		uint16_t id = sfab_le16_to_cpu(c.cmd_id);

		if (!in_sync)
			continue;
		CHECK(memchr(known_status, c.status, sizeof(known_status)));
		/* an id posted since the rings were set up */
		CHECK((uint16_t)(id - id_first - 1) <
		      (uint16_t)(H->cmd_id - id_first));
	}
}

static void aenq(void)
{
	struct sfab_aenq_entry ev;
	unsigned int n = 0;

	while (n++ < 64 && host_aenq_poll(H, &ev))
		;
}

/* what a driver does after a reset: queues, firmware, the HCA */
static void bring_up(void)
{
	struct sfab_aq_cmd c;

	H->fail_all = false;
	H->fail_lo = H->fail_hi = 0;
	wr(H, SFAB_REG_DEV_CTL, SFAB_DEV_CTL_RESET);
	CHECK_EQ(rd(H, SFAB_REG_DEV_STS), SFAB_DEV_STS_READY);
	host_setup_aq(H, AQ_LOG);
	host_setup_aenq(H, 4);
	id_first = H->cmd_id;
	in_sync = true;
	CHECK_EQ(host_fw_load(H), SFAB_AQ_STS_OK);
	c = cmd_init_hca(12);
	CHECK_EQ(host_cmd(H, &c), SFAB_AQ_STS_OK);
	CHECK(!dev_fatal(H));
}

/*
 * Small tables (they fill up, and a reset clears them fast) and one host
 * memory for every input (no fresh 4 MiB to fault in each time).
 */
static const struct sfab_engine_config small = {
	.max_qp = 64, .max_cq = 64, .max_mr = 256, .max_srq = 16,
};
static uint8_t host_mem[HOST_MEM_SIZE];

static void setup(void)
{
	fh_lend_mem = host_mem;
	H = host_new_cfg(&small);
	ops = fh_ops;
	ops.dma_read = count_read;
	ops.dma_write = count_write;
	H->e->ops = &ops;
	dma_bytes = 0;
	bring_up();
}

static void cmd(struct fz *f, bool ptrs)
{
	struct sfab_aq_cmd c;
	uint8_t *b = (uint8_t *)&c;
	unsigned int k, n;

	fz_bytes(f, &c, sizeof(c));
	if (ptrs) {
		n = 1 + fz_below(f, 3);
		for (k = 0; k < n; k++) {
			unsigned int at = 8 + 8 * fz_below(f, 7);
			uint64_t a = host_addr(f);

			memcpy(b + at, &a, sizeof(a));
		}
	}
	host_post(H, &c);
	/* a doorbell for what was posted; the step is an op of its own */
	(void)sfab_engine_reg_write(H->e, SFAB_REG_AQ_DB, H->aq_tail);
}

static void mem(struct fz *f)
{
	uint32_t at = fz_u32(f) % HOST_MEM_SIZE;
	size_t len = fz_u8(f);
	uint64_t addr = HOST_MEM_BASE + at;

	if (len > HOST_MEM_SIZE - at)
		len = HOST_MEM_SIZE - at;
	/* writing over the admin rings leaves the driver's view behind */
	if ((addr < H->acq + (sizeof(struct sfab_acq_entry) << H->acq_mem) &&
	     addr + len > H->acq) ||
	    (addr < H->aq + (sizeof(struct sfab_aq_cmd) << H->aq_mem) &&
	     addr + len > H->aq))
		in_sync = false;
	fz_bytes(f, H->mem + at, len);
}

static void reg(struct fz *f)
{
	uint64_t off;
	uint32_t val;

	if (fz_u8(f) & 1)
		off = fh_regs[fz_below(f, FH_NREGS)];
	else
		off = fz_below(f, SFAB_BAR_REGS_SIZE + 64);
	val = fz_u32(f);
	/* a doorbell of the guest's own runs slots the driver did not fill */
	switch (off) {
	case SFAB_REG_AENQ_HEAD:
	case SFAB_REG_INTR_MASK:
	case SFAB_REG_ID:
	case SFAB_REG_VERSION:
	case SFAB_REG_CAPS:
		break;
	default:
		in_sync = false;
	}
	(void)sfab_engine_reg_write(H->e, off, val);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	unsigned int nops = 0, resets = 0;

	setup();
	while (fz_left(&f) && nops++ < MAX_OPS) {
		switch (fz_u8(&f) % OP__COUNT) {
		case OP_CMD:
			cmd(&f, false);
			break;
		case OP_CMD_PTR:
			cmd(&f, true);
			break;
		case OP_PROCESS:
			step();
			break;
		case OP_MEM:
			mem(&f);
			break;
		case OP_REG:
			reg(&f);
			break;
		case OP_DB: {
			uint64_t off = fz_below(&f, SFAB_DB_BAR_SIZE + 64);
			uint64_t val = fz_u64(&f);

			sfab_engine_db_write(H->e, off, val, 1U << fz_below(&f, 4),
					     fz_u8(&f) & 1 ? SFAB_DB_SRC_PEER :
							     SFAB_DB_SRC_CPU);
			break;
		}
		case OP_DMA:
			H->fail_all = !(fz_u8(&f) & 3);
			H->fail_lo = host_addr(&f);
			H->fail_hi = H->fail_lo + fz_u16(&f);
			break;
		case OP_POLL:
			poll();
			break;
		case OP_AENQ:
			aenq();
			break;
		case OP_RESET:
			if (resets++ < MAX_RESETS)
				bring_up();
			break;
		case OP_CLOCK:
			H->now += (uint64_t)fz_u32(&f) * 1000;
			sfab_engine_timer(H->e);
			break;
		}
	}
	/* the guest stops: what is pending drains, a reset recovers */
	H->fail_all = false;
	H->fail_lo = H->fail_hi = 0;
	drain();
	poll();
	bring_up();
	host_free(H);
	return 0;
}

/* --- seeds ----------------------------------------------------------------- */

/*
 * The seeds are the commands a driver sends at probe and for its first
 * verbs objects.  Each is run on a host set up as the harness sets one up
 * while it is recorded, so the addresses and object numbers in the later
 * commands are the ones the fuzzed run will see.
 */
static uint32_t op_cmd(struct fz_out *o, struct sfab_aq_cmd *c)
{
	struct sfab_acq_entry cpl;
	int st;

	fo_u8(o, OP_CMD);
	fo_bytes(o, c, sizeof(*c));
	fo_u8(o, OP_PROCESS);
	fo_u8(o, OP_POLL);
	st = host_cmd_full(H, c, &cpl);
	if (st != SFAB_AQ_STS_OK) {
		fprintf(stderr, "fuzz/admin: seed command 0x%x: status %d\n",
			c->opcode, st);
		exit(2);
	}
	return sfab_le32_to_cpu(cpl.result0);
}

static void fuzz_seeds(void)
{
	struct fz_out o = { .n = 0 };
	struct sfab_aq_cmd c;
	struct qh_qp qp;
	uint64_t ring;
	uint32_t eqn, cqn, qpn, key;

	setup();
	c = cmd_query_device(H->scratch, sizeof(struct sfab_dev_attr));
	op_cmd(&o, &c);
	c = cmd_query_port(H->scratch, 64, 1);
	op_cmd(&o, &c);
	c = cmd_query_stats(H->scratch, sizeof(struct sfab_port_stats), 1);
	op_cmd(&o, &c);
	fz_seed_out("queries", &o);

	ring = host_alloc(H, sizeof(struct sfab_eqe) << 6, 4096);
	c = cmd_create_eq(ring, 6, 2);
	eqn = op_cmd(&o, &c);
	ring = host_alloc(H, sizeof(struct sfab_cqe) << 6, 4096);
	c = qh_create_cq_cmd(ring, 6, eqn, 0);
	cqn = op_cmd(&o, &c);
	fz_seed_out("eq-cq", &o);

	memset(&qp, 0, sizeof(qp));
	qp.type = SFAB_QPT_RC;
	qp.sq_log = qp.rq_log = 6;
	qp.sq_slog = 7;
	qp.rq_slog = 6;
	qp.sq = host_alloc(H, 128U << 6, 4096);
	qp.rq = host_alloc(H, 64U << 6, 4096);
	c = qh_create_qp_cmd(&qp, cqn, cqn, 0, SFAB_QP_PRIV);
	qpn = op_cmd(&o, &c);
	fz_seed_out("eq-cq-qp", &o);

	o.n = 0;
	ring = host_alloc(H, 65536, 4096);
	if (qh_mr_contig(H, ring, 65536, 1, SFAB_ACCESS_LOCAL_WRITE, &key)) {
		fprintf(stderr, "fuzz/admin: seed MR failed\n");
		exit(2);
	}
	c = cmd_new(SFAB_AQ_DESTROY_QP);
	c.u.destroy_qp.qpn = sfab_cpu_to_le32(qpn);
	op_cmd(&o, &c);
	c = cmd_new(SFAB_AQ_DESTROY_MR);
	c.u.destroy_mr.key = sfab_cpu_to_le32(key);
	op_cmd(&o, &c);
	c = cmd_new(SFAB_AQ_TEARDOWN_HCA);
	op_cmd(&o, &c);
	fo_u8(&o, OP_RESET);
	fz_seed_out("destroy-teardown-reset", &o);
	host_free(H);

	/*
	 * Registrations of 0.9 GiB of 4 KiB pages (1.8 MiB page lists, all
	 * reading the same host memory) posted together: one step may read
	 * the lists of the ones that start under the admin budget only
	 */
	o.n = 0;
	for (int k = 0; k < 4; k++) {
		struct sfab_aq_create_mr *m = &c.u.create_mr;
		uint32_t np = 235930;

		c = cmd_new(SFAB_AQ_CREATE_MR);
		m->iova = sfab_cpu_to_le64((uint64_t)k << 30);
		m->length = sfab_cpu_to_le64((uint64_t)np << 12);
		m->pbl_addr = sfab_cpu_to_le64(HOST_MEM_BASE + (1U << 20));
		m->npages = sfab_cpu_to_le32(np);
		m->pdn = sfab_cpu_to_le32(1);
		m->access = sfab_cpu_to_le32(SFAB_ACCESS_LOCAL_WRITE);
		m->page_shift = 12;
		fo_u8(&o, OP_CMD);
		fo_bytes(&o, &c, sizeof(c));
	}
	fo_u8(&o, OP_PROCESS);
	fo_u8(&o, OP_POLL);
	fz_seed_out("mr-budget", &o);

	o.n = 0;
	fo_u8(&o, OP_DMA);
	fo_u8(&o, 1);
	fo_u32(&o, 0);
	fo_u16(&o, 0xffff);
	fo_u8(&o, OP_CMD);
	c = cmd_query_device(HOST_MEM_BASE, 256);
	fo_bytes(&o, &c, sizeof(c));
	fo_u8(&o, OP_PROCESS);
	fo_u8(&o, OP_POLL);
	fo_u8(&o, OP_REG);
	fo_u8(&o, 1);
	fo_u8(&o, 4);		/* fh_regs[4]: DEV_CTL */
	fo_u32(&o, SFAB_DEV_CTL_RESET);
	fz_seed_out("dma-fail-reset", &o);
}
