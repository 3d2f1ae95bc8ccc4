// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host side of gda/cuda-engine-cpu and gda/cuda-gpu-post: two model
 * engines cabled back to back (tests/unit's fake host and RC pair), node
 * 0's host memory the caller's (CUDA host-pinned and mapped, for a GPU),
 * and a pump thread that plays PCIe and the QEMU shell: it watches the
 * doorbell page the poster stores into and hands each new doorbell to
 * node 0's engine as sfab_hca_db_write() does, then moves the frames.
 *
 * Only the pump thread runs the engines once it is started; the poster
 * (a GPU kernel, or a host thread in --cpu mode) touches node 0's rings,
 * records and the doorbell page only, as a device's driver-less poster
 * would.  Built with gcc (the engine and these headers are C).
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <time.h>

/* rc_pair.h's set-up checks: remember the first failure, leave the step */
static char ce_why[1024];
#define REQUIRE(cond)							\
	do {								\
		if (!(cond)) {						\
			if (!ce_why[0])					\
				snprintf(ce_why, sizeof(ce_why),	\
					 "%s:%d: %s", __FILE__, __LINE__, #cond); \
			return;						\
		}							\
	} while (0)

#include "rc_pair.h"
#include "cuda_engine.h"

#define CE_SQ_LOG	6	/* 64 WQEs */
#define CE_SQ_SLOG	6	/* of 64 bytes: struct sfab_wqe_rdma_1sge fits */
#define CE_CQ_LOG	4	/* 16 CQEs: the engine reads the record often */

static struct sfab_engine_ops ce_ops0;
static uint64_t ce_sq_rec, ce_cq_rec;

static void ce_say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Node 0's DMA: memory a poster reads and writes concurrently.  A write's
 * last aligned 32-bit word is stored last, with release order: a CQE's
 * poll word (SFAB_CQE_POLL_OFFSET, its last) is seen only after the rest
 * of it, as a device's posted write is.  A 32-bit read (a doorbell
 * record) is one acquire load; the engine reads WQEs only after the pump
 * saw their doorbell with acquire order.
 */
static int ce_dma_write(void *opaque, uint64_t addr, const void *buf, size_t len)
{
	struct fake_host *h = opaque;
	uint8_t *d;
	uint32_t last;

	h->dma_writes++;
	if (!fh_dma_ok(h, addr, len))
		return -1;
	d = hp(h, addr);
	if (len >= 4 && !((uintptr_t)(d + len - 4) & 3)) {
		memcpy(d, buf, len - 4);
		memcpy(&last, (const uint8_t *)buf + len - 4, 4);
		__atomic_store_n((uint32_t *)(d + len - 4), last, __ATOMIC_RELEASE);
	} else {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		memcpy(d, buf, len);
	}
	return 0;
}

static int ce_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	struct fake_host *h = opaque;
	const uint8_t *s;
	uint32_t v;

	h->dma_reads++;
	if (!fh_dma_ok(h, addr, len))
		return -1;
	s = hp(h, addr);
	if (len == 4 && !((uintptr_t)s & 3)) {
		v = __atomic_load_n((const uint32_t *)s, __ATOMIC_ACQUIRE);
		memcpy(buf, &v, 4);
	} else {
		memcpy(buf, s, len);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	}
	return 0;
}

/*
 * Node 0 as rp_node_up() builds it, but with what a GPU poster needs:
 * its memory lent by the caller, a CQ and a QP with doorbell records,
 * an SQ of 64-byte WQEs.
 */
static void ce_node0_up(void *mem0)
{
	struct rp_node *n = &RP[0];
	struct fake_host *h;
	struct sfab_aq_cmd c;
	struct sfab_acq_entry cpl;

	memset(n, 0, sizeof(*n));
	fh_lend_mem = mem0;
	n->h = h = qh_up();
	REQUIRE(h->mem == mem0);
	ce_ops0 = fh_ops;
	ce_ops0.cable_tx = rp_tx;
	ce_ops0.dma_read = ce_dma_read;
	ce_ops0.dma_write = ce_dma_write;
	h->e->ops = &ce_ops0;
	h->e->port.lid = RP_LID0;
	REQUIRE(!dev_fatal(h));
	REQUIRE(qh_eq_new(h, &n->eq, 8, 2) == SFAB_AQ_STS_OK);

	n->cq.log = CE_CQ_LOG;
	n->cq.ring = host_alloc(h, sizeof(struct sfab_cqe) << CE_CQ_LOG, 4096);
	ce_cq_rec = host_alloc(h, SFAB_DBREC_SIZE, SFAB_DBREC_ALIGN);
	c = qh_create_cq_cmd(n->cq.ring, CE_CQ_LOG, n->eq.eqn, 0);
	c.u.create_cq.dbrec_addr = sfab_cpu_to_le64(ce_cq_rec);
	REQUIRE(host_cmd_full(h, &c, &cpl) == SFAB_AQ_STS_OK);
	n->cq.cqn = sfab_le32_to_cpu(cpl.result0);

	n->mem = host_alloc(h, RP_MEM, 4096);
	REQUIRE(qh_mr_contig(h, n->mem, RP_MEM, RP_PD, RP_ALL_ACCESS,
			     &n->key) == SFAB_AQ_STS_OK);
	REQUIRE(qh_qp_new_ex(h, &n->qp, SFAB_QPT_RC, CE_SQ_LOG, CE_SQ_SLOG,
			     n->cq.cqn, n->cq.cqn, 0, RP_PD, 0) == SFAB_AQ_STS_OK);
	ce_sq_rec = host_alloc(h, SFAB_DBREC_SIZE, SFAB_DBREC_ALIGN);
	c = qh_set_qp_dbrec_cmd(n->qp.qpn, ce_sq_rec, 0);
	REQUIRE(host_cmd(h, &c) == SFAB_AQ_STS_OK);
}

/* the source data: a pattern that differs in every 1 KiB of 1 MiB */
static uint8_t ce_pattern(uint64_t k)
{
	return (uint8_t)(k * 7 + (k >> 10) * 31 + (k >> 18) * 101 + 1);
}

size_t ce_mem_size(void)
{
	return HOST_MEM_SIZE;
}

int ce_setup(void *mem0, unsigned int n, uint32_t len, struct ce_layout *l,
	     char *err, size_t errlen)
{
	static const struct rp_cfg cfg;	/* RC, MTU 256, PSNs 0 */
	uint8_t *src;
	uint64_t k;

	if (!mem0 || !n || !len || (uint64_t)n * len > RP_MEM) {
		ce_say(err, errlen, "bad set-up: %u WRITEs of %u bytes in %u", n,
		       len, RP_MEM);
		return -1;
	}
	ce_why[0] = 0;
	memset(RPW, 0, sizeof(RPW));
	memset(rp_data_frames, 0, sizeof(rp_data_frames));
	rp_drop = NULL;
	ce_node0_up(mem0);
	if (!ce_why[0])
		rp_node_up(1, RP_LID1, &cfg);
	if (!ce_why[0])
		rp_link_up();
	if (!ce_why[0])
		rp_connect(&cfg);
	if (ce_why[0]) {
		ce_say(err, errlen, "engine set-up failed: %s", ce_why);
		return -1;
	}
	src = rp_mem(0, 0);
	for (k = 0; k < (uint64_t)n * len; k++)
		src[k] = ce_pattern(k);

	memset(l, 0, sizeof(*l));
	l->sq_off = RP[0].qp.sq - HOST_MEM_BASE;
	l->sq_dbrec_off = ce_sq_rec - HOST_MEM_BASE;
	l->cq_off = RP[0].cq.ring - HOST_MEM_BASE;
	l->cq_dbrec_off = ce_cq_rec - HOST_MEM_BASE;
	l->src_off = RP[0].mem - HOST_MEM_BASE;
	l->laddr = RP[0].mem;
	l->raddr = RP[1].mem;
	l->db_off = SFAB_DB_SQ;
	l->qpn = RP[0].qp.qpn;
	l->lkey = RP[0].key;
	l->rkey = RP[1].key;
	l->sq_log = CE_SQ_LOG;
	l->sq_slog = CE_SQ_SLOG;
	l->cq_log = CE_CQ_LOG;
	return 0;
}

/* ---- the pump: PCIe and the QEMU shell ---------------------------------- */

/* the doorbells of a user doorbell page */
static const uint32_t ce_db_regs[] = { SFAB_DB_SQ, SFAB_DB_RQ, SFAB_DB_CQ };
#define CE_DB_WORDS	(sizeof(ce_db_regs) / sizeof(ce_db_regs[0]))

static pthread_t ce_pump_tid;
static bool ce_pump_running;
static int ce_pump_quit;		/* atomic */
static int ce_pump_done;		/* atomic: the thread is past its loop */
static volatile uint64_t *ce_db_page;
static unsigned long ce_doorbells;

static void *ce_pump(void *arg)
{
	uint64_t last[CE_DB_WORDS] = { 0 };
	uint64_t page = RP[0].qp.db_page * (uint64_t)SFAB_DB_PAGE_SIZE;
	unsigned long idle = 0;
	unsigned int i;

	(void)arg;
	while (!__atomic_load_n(&ce_pump_quit, __ATOMIC_ACQUIRE)) {
		bool rang = false;

		for (i = 0; i < CE_DB_WORDS; i++) {
			/* acquire: the WQEs and record before it are visible */
			uint64_t v = __atomic_load_n(&ce_db_page[ce_db_regs[i] / 8],
						     __ATOMIC_ACQUIRE);

			if (v == last[i])
				continue;
			last[i] = v;
			ce_doorbells++;
			rang = true;
			/* sfab_hca_db_write(): a peer device's 64-bit write */
			sfab_engine_db_write(RP[0].h->e, page + ce_db_regs[i], v, 8,
					     SFAB_DB_SRC_PEER);
		}
		if (rang) {
			/* its send work, then the cable and the bottom halves */
			if (sfab_engine_work_pending(RP[0].h->e))
				host_run(RP[0].h);
			rp_pump();
			idle = 0;
		} else if (++idle % 64 == 0) {
			/* the engines' timers run on (10 us of their clocks) */
			rp_advance(10000);
			sched_yield();
		}
	}
	__atomic_store_n(&ce_pump_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int ce_pump_start(volatile void *db_page)
{
	ce_db_page = db_page;
	ce_doorbells = 0;
	__atomic_store_n(&ce_pump_quit, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ce_pump_done, 0, __ATOMIC_RELEASE);
	if (pthread_create(&ce_pump_tid, NULL, ce_pump, NULL))
		return -1;
	ce_pump_running = true;
	return 0;
}

int ce_pump_stop(struct ce_pump_stats *st, char *err, size_t errlen)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int i, waited;

	memset(st, 0, sizeof(*st));
	if (!ce_pump_running) {
		ce_say(err, errlen, "the pump is not running");
		return -1;
	}
	__atomic_store_n(&ce_pump_quit, 1, __ATOMIC_RELEASE);
	/* a rp_pump() is bounded; give it 5 s before giving up on it */
	for (waited = 0; !__atomic_load_n(&ce_pump_done, __ATOMIC_ACQUIRE); waited++) {
		if (waited == 5000) {
			ce_say(err, errlen, "the pump thread did not stop in 5 s");
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	pthread_join(ce_pump_tid, NULL);
	ce_pump_running = false;
	st->doorbells = ce_doorbells;
	st->dbrec_reads = RP[0].h->e->stats.dbrec_reads;
	st->frames = rp_data_frames[1];
	for (i = 0; i < 2; i++) {
		if (RP[i].h->guest_errors) {
			ce_say(err, errlen, "node %u: %lu guest errors, the last: %s",
			       i, RP[i].h->guest_errors, RP[i].h->last_error);
			return -1;
		}
		if (dev_fatal(RP[i].h)) {
			ce_say(err, errlen, "node %u: device fatal", i);
			return -1;
		}
		if (rp_state(i) != SFAB_QPS_RTS) {
			ce_say(err, errlen, "node %u: QP %u in state %u, not RTS",
			       i, RP[i].qp.qpn, rp_state(i));
			return -1;
		}
	}
	return 0;
}

int ce_verify(unsigned int n, uint32_t len, char *err, size_t errlen)
{
	const uint8_t *dst = rp_mem(1, 0);
	uint64_t k, total = (uint64_t)n * len;

	for (k = 0; k < total; k++)
		if (dst[k] != ce_pattern(k)) {
			ce_say(err, errlen,
			       "node 1 byte %llu (WRITE %llu, offset %llu): 0x%02x, not 0x%02x",
			       (unsigned long long)k, (unsigned long long)(k / len),
			       (unsigned long long)(k % len), dst[k], ce_pattern(k));
			return -1;
		}
	for (; k < RP_MEM; k++)
		if (dst[k]) {
			ce_say(err, errlen, "node 1 byte %llu past the WRITEs changed",
			       (unsigned long long)k);
			return -1;
		}
	return 0;
}

void ce_teardown(void)
{
	if (ce_pump_running)
		return;		/* still running: leave it its memory */
	if (RP[0].h && RP[1].h)
		rp_down();
}
