// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbs/bad-wqe: garbage through a process's own send queue and doorbell.
 *
 * A process owns its rings and its doorbell page: nothing stops it from
 * writing any bytes there.  This program does what a buggy or hostile one
 * could: it reaches into libsfab's QP object (the provider's own header,
 * built against the checkout) for the send ring and the mapped doorbell
 * page, writes WQEs by hand and rings the doorbell itself.
 *
 *   bad_wqe victim FILE   register a 4 KiB MR with every remote right,
 *                         fill it with a pattern, write "addr lkey rkey"
 *                         to FILE, wait for SIGTERM, then exit 0 only if
 *                         the pattern is intact
 *   bad_wqe attack FILE   run the cases below against RC QP pairs looped
 *                         through the port's own LID; FILE is the
 *                         victim's
 *
 * Cases: an unknown opcode; an SGE with the victim's lkey and address
 * (another process, another PD); an RDMA WRITE to the victim's rkey; an
 * SGE past the end of the process's own MR; a doorbell index more than a
 * ring ahead; 63 random WQEs.  Each ends in error completions and the QP
 * in Error, the index case with an IBV_EVENT_QP_FATAL async event, and
 * never in a hang.  More completions than a CQ holds end in
 * IBV_EVENT_CQ_ERR.  Afterwards a fresh pair still moves data correctly.
 * Prints "ok: ..." per case; exit 1 on the first failure.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sfab.h"

#define BUF	4096
#define DEPTH	64

static struct ibv_context *ctx;
static int pair_cqe = 4 * DEPTH;	/* the CQ size pair_open() asks for */
static struct ibv_pd *pd;
static uint16_t lid;

#define fail(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
};

static void pair_open(struct pair *p)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 4,
			 .max_send_sge = 2, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp *q[2];
	int i;

	p->cq = ibv_create_cq(ctx, pair_cqe, NULL, NULL, 0);
	if (!p->cq)
		fail("ibv_create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = p->cq;
	for (i = 0; i < 2; i++) {
		q[i] = ibv_create_qp(pd, &ia);
		if (!q[i])
			fail("ibv_create_qp: %s", strerror(errno));
	}
	for (i = 0; i < 2; i++) {
		struct ibv_qp_attr at = {
			.qp_state = IBV_QPS_INIT, .port_num = 1,
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ,
		};

		if (ibv_modify_qp(q[i], &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			fail("to INIT: %s", strerror(errno));
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_RTR;
		at.path_mtu = IBV_MTU_1024;
		at.dest_qp_num = q[!i]->qp_num;
		at.max_dest_rd_atomic = 1;
		at.min_rnr_timer = 12;
		at.ah_attr.dlid = lid;
		at.ah_attr.port_num = 1;
		if (ibv_modify_qp(q[i], &at, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
			fail("to RTR: %s", strerror(errno));
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_RTS;
		/* few retries: random WQEs may be SENDs nobody receives */
		at.timeout = 14;
		at.retry_cnt = 1;
		at.rnr_retry = 1;
		at.max_rd_atomic = 1;
		if (ibv_modify_qp(q[i], &at, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
			fail("to RTS: %s", strerror(errno));
	}
	p->a = q[0];
	p->b = q[1];
}

static void pair_close(struct pair *p)
{
	if (ibv_destroy_qp(p->a) || ibv_destroy_qp(p->b) ||
	    ibv_destroy_cq(p->cq))
		fail("destroy: %s", strerror(errno));
}

/* write @len bytes of WQE into the next send slot, by hand */
static void raw_wqe(struct ibv_qp *ibqp, const void *wqe, size_t len)
{
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	unsigned int slot = qp->sq.pi & ((1U << qp->sq.log_depth) - 1);
	size_t stride = (size_t)1 << qp->sq.log_stride;
	uint8_t *dst = qp->sq.ring + slot * stride;

	memset(dst, 0, stride);
	memcpy(dst, wqe, len < stride ? len : stride);
	if (qp->sq.unsignaled)
		qp->sq.unsignaled[slot] = 0;
	qp->sq.pi++;
}

/* ring the SQ doorbell of @ibqp with producer index @pi, by hand */
static void raw_db(struct ibv_qp *ibqp, uint16_t pi)
{
	struct sfab_context *c = to_sfab_context(ibqp->context);
	struct sfab_qp *qp = to_sfab_qp(ibqp);
	uint64_t v = sfab_db_val(qp->qpn, pi, 0);

	__sync_synchronize();
	*(volatile uint64_t *)(c->db + SFAB_DB_SQ) = htole64(v);
	__sync_synchronize();
}

/* completions until @want arrived or @secs passed; returns how many */
static int drain(struct ibv_cq *cq, struct ibv_wc *wc, int want, double secs)
{
	double end = now() + secs;
	int n = 0;

	while (n < want && now() < end) {
		int r = ibv_poll_cq(cq, want - n, wc + n);

		if (r < 0)
			fail("ibv_poll_cq: %d", r);
		n += r;
		if (!r)
			usleep(1000);
	}
	return n;
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at;

	if (ibv_query_qp(qp, &at, IBV_QP_STATE, &ia))
		fail("ibv_query_qp: %s", strerror(errno));
	return at.qp_state;
}

/* the next async event of type @type for @qp (or @cq) within @secs */
static int async_event2(struct ibv_qp *qp, struct ibv_cq *cq,
			enum ibv_event_type type, double secs)
{
	double end = now() + secs;

	while (now() < end) {
		struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
		struct ibv_async_event ev;
		int match;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		match = ev.event_type == type &&
			(cq ? ev.element.cq == cq : ev.element.qp == qp);
		ibv_ack_async_event(&ev);
		if (match)
			return 1;
	}
	return 0;
}

static int async_event(struct ibv_qp *qp, enum ibv_event_type type, double secs)
{
	return async_event2(qp, NULL, type, secs);
}

struct wqe_rdma {
	struct sfab_wqe_ctrl ctrl;
	struct sfab_wqe_raddr raddr;
	struct sfab_sge sge;
};

static struct wqe_rdma rdma_write(uint64_t wr_id, uint64_t laddr, uint32_t lkey,
				  uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct wqe_rdma w;

	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = SFAB_WQE_RDMA_WRITE;
	w.ctrl.flags = SFAB_WQE_SIGNALED;
	w.ctrl.num_sge = 1;
	w.ctrl.wr_id = htole64(wr_id);
	w.raddr.remote_addr = htole64(raddr);
	w.raddr.rkey = htole32(rkey);
	w.sge.addr = htole64(laddr);
	w.sge.length = htole32(len);
	w.sge.lkey = htole32(lkey);
	return w;
}

/* one WQE by hand: an error completion for @wr_id, the QP in Error */
static void expect_error(const char *name, struct pair *p, const void *wqe,
			 size_t len, uint64_t wr_id, enum ibv_wc_status want)
{
	struct ibv_wc wc;

	raw_wqe(p->a, wqe, len);
	raw_db(p->a, to_sfab_qp(p->a)->sq.pi);
	if (drain(p->cq, &wc, 1, 20) != 1)
		fail("%s: no completion within 20 s", name);
	if (wc.wr_id != wr_id || wc.status == IBV_WC_SUCCESS)
		fail("%s: completion wr_id %#llx status %d (%s)", name,
		     (unsigned long long)wc.wr_id, wc.status,
		     ibv_wc_status_str(wc.status));
	if (want != IBV_WC_GENERAL_ERR && wc.status != want)
		fail("%s: status %s, want %s", name, ibv_wc_status_str(wc.status),
		     ibv_wc_status_str(want));
	if (qp_state(p->a) != IBV_QPS_ERR)
		fail("%s: the QP is in state %d, not Error", name, qp_state(p->a));
	printf("ok: %s: %s, QP in Error\n", name, ibv_wc_status_str(wc.status));
}

static int victim(const char *file)
{
	struct ibv_mr *mr;
	sigset_t set;
	uint8_t *buf;
	FILE *f;
	int sig, i;

	buf = aligned_alloc(4096, BUF);
	for (i = 0; i < BUF; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		fail("victim: ibv_reg_mr: %s", strerror(errno));
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	f = fopen(file, "w");
	if (!f || fprintf(f, "%llu %u %u\n", (unsigned long long)(uintptr_t)buf,
			  mr->lkey, mr->rkey) < 0 || fclose(f))
		fail("victim: %s: %s", file, strerror(errno));
	sigwait(&set, &sig);
	for (i = 0; i < BUF; i++)
		if (buf[i] != (uint8_t)(i * 7 + 3))
			fail("victim: byte %d of its MR changed", i);
	printf("ok: victim: its MR is intact\n");
	ibv_dereg_mr(mr);
	return 0;
}

static int attack(const char *file)
{
	unsigned long long vaddr;
	unsigned int vlkey, vrkey, i;
	struct ibv_mr *mr;
	struct ibv_wc wc[DEPTH];
	struct pair p;
	struct wqe_rdma w;
	uint8_t *buf;
	FILE *f;
	int n;

	f = fopen(file, "r");
	if (!f || fscanf(f, "%llu %u %u", &vaddr, &vlkey, &vrkey) != 3)
		fail("attack: cannot read the victim's %s", file);
	fclose(f);
	buf = aligned_alloc(4096, 2 * BUF);
	memset(buf, 0x5a, 2 * BUF);
	mr = ibv_reg_mr(pd, buf, 2 * BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		fail("ibv_reg_mr: %s", strerror(errno));

	/* an opcode the device does not know */
	pair_open(&p);
	memset(&w, 0, sizeof(w));
	w.ctrl.opcode = 0x7f;
	w.ctrl.flags = SFAB_WQE_SIGNALED;
	w.ctrl.wr_id = htole64(0x101);
	expect_error("unknown opcode 0x7f", &p, &w, sizeof(w.ctrl), 0x101,
		     IBV_WC_GENERAL_ERR);
	pair_close(&p);

	/* reading the victim's memory through its lkey */
	pair_open(&p);
	w = rdma_write(0x102, vaddr, vlkey, 64, (uintptr_t)buf + BUF, mr->rkey);
	expect_error("SGE with another process's lkey", &p, &w, sizeof(w), 0x102,
		     IBV_WC_LOC_PROT_ERR);
	pair_close(&p);

	/* writing into the victim's memory through its rkey */
	pair_open(&p);
	w = rdma_write(0x103, (uintptr_t)buf, mr->lkey, 64, vaddr, vrkey);
	expect_error("RDMA WRITE to another process's rkey", &p, &w, sizeof(w),
		     0x103, IBV_WC_REM_ACCESS_ERR);
	pair_close(&p);

	/* an SGE past the end of the process's own MR */
	pair_open(&p);
	w = rdma_write(0x104, (uintptr_t)buf + 2 * BUF - 32, mr->lkey, 64,
		       (uintptr_t)buf, mr->rkey);
	expect_error("SGE past the end of its MR", &p, &w, sizeof(w), 0x104,
		     IBV_WC_LOC_PROT_ERR);
	pair_close(&p);

	/* a doorbell index more than a ring ahead: QP error, async event */
	pair_open(&p);
	raw_db(p.a, to_sfab_qp(p.a)->sq.pi + (1U << to_sfab_qp(p.a)->sq.log_depth) + 3);
	if (!async_event(p.a, IBV_EVENT_QP_FATAL, 20))
		fail("doorbell index out of range: no IBV_EVENT_QP_FATAL within 20 s");
	if (qp_state(p.a) != IBV_QPS_ERR)
		fail("doorbell index out of range: QP not in Error");
	printf("ok: doorbell index a ring ahead: IBV_EVENT_QP_FATAL, QP in Error\n");
	pair_close(&p);

	/* random bytes for WQEs: every one completes, nothing hangs */
	pair_open(&p);
	srand(4711);
	for (i = 0; i < DEPTH - 1; i++) {
		uint8_t junk[64];
		unsigned int k;

		for (k = 0; k < sizeof(junk); k++)
			junk[k] = (uint8_t)rand();
		/* always signalled, with a wr_id of ours */
		junk[1] |= SFAB_WQE_SIGNALED;
		memcpy(junk + 8, &(uint64_t){ htole64(0x1000 + i) }, 8);
		raw_wqe(p.a, junk, sizeof(junk));
	}
	raw_db(p.a, to_sfab_qp(p.a)->sq.pi);
	n = drain(p.cq, wc, DEPTH - 1, 30);
	if (n != DEPTH - 1)
		fail("random WQEs: %d of %d completed within 30 s", n, DEPTH - 1);
	/*
	 * one completion per WQE, in order, all of this QP: successes (a
	 * random WQE may be a valid one), then one error, then only flushes,
	 * and the QP in Error
	 */
	{
		unsigned int err_at = n;

		for (i = 0; i < (unsigned int)n; i++) {
			if (wc[i].wr_id != 0x1000 + i)
				fail("random WQEs: completion %u has wr_id %#llx", i,
				     (unsigned long long)wc[i].wr_id);
			if (wc[i].qp_num != p.a->qp_num)
				fail("random WQEs: completion %u for QP %#x, not %#x", i,
				     wc[i].qp_num, p.a->qp_num);
			if (err_at == (unsigned int)n) {
				if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
					fail("random WQEs: completion %u flushed before any error", i);
				if (wc[i].status != IBV_WC_SUCCESS)
					err_at = i;
			} else if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
				fail("random WQEs: completion %u after the error at %u: %s, not a flush",
				     i, err_at, ibv_wc_status_str(wc[i].status));
			}
		}
		if (err_at == (unsigned int)n)
			fail("random WQEs: all %d completed successfully", n);
		if (qp_state(p.a) != IBV_QPS_ERR)
			fail("random WQEs: the QP is in state %d, not Error", qp_state(p.a));
		if (drain(p.cq, wc, 1, 1))
			fail("random WQEs: an extra completion, wr_id %#llx",
			     (unsigned long long)wc[0].wr_id);
		/* garbage keys and addresses wrote nothing into the process's MR */
		for (i = 0; i < 2 * BUF; i++)
			if (buf[i] != 0x5a)
				fail("random WQEs: byte %u of the process's own MR changed", i);
		printf("ok: %d random WQEs: %d completions in order, %u succeeded, then %s, "
		       "then %d flushed; QP in Error; its MR untouched\n",
		       DEPTH - 1, n, err_at, ibv_wc_status_str(wc[err_at].status),
		       n - 1 - (int)err_at);
	}
	pair_close(&p);

	/*
	 * more completions than the CQ holds, none polled: the device stops
	 * writing CQEs and says so with IBV_EVENT_CQ_ERR
	 */
	pair_cqe = 8;
	pair_open(&p);
	pair_cqe = 4 * DEPTH;
	{
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 8,
				       .lkey = mr->lkey };
		struct ibv_send_wr wr = {
			.sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = (uintptr_t)buf + BUF,
				     .rkey = mr->rkey },
		}, *bad;
		int k, posted = 0;

		/* the CQ holds p.cq->cqe; the send queue more than that */
		for (k = 0; k < DEPTH - 1 && posted <= p.cq->cqe + 4; k++) {
			wr.wr_id = 0x300 + k;
			if (ibv_post_send(p.a, &wr, &bad))
				break;
			posted++;
		}
		if (posted <= p.cq->cqe)
			fail("CQ overflow: only %d sends posted for a CQ of %d",
			     posted, p.cq->cqe);
		if (!async_event2(NULL, p.cq, IBV_EVENT_CQ_ERR, 30))
			fail("CQ overflow: %d completions for a CQ of %d, no IBV_EVENT_CQ_ERR",
			     posted, p.cq->cqe);
		printf("ok: %d completions for a CQ of %d: IBV_EVENT_CQ_ERR\n",
		       posted, p.cq->cqe);
	}
	if (ibv_destroy_qp(p.a) || ibv_destroy_qp(p.b) || ibv_destroy_cq(p.cq))
		fail("destroying the overflowed CQ's pair: %s", strerror(errno));

	/* and the device still works for this process */
	pair_open(&p);
	{
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 256,
				       .lkey = mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 0x200, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = (uintptr_t)buf + BUF,
				     .rkey = mr->rkey },
		}, *bad;

		memset(buf, 0xc3, 256);
		if (ibv_post_send(p.a, &wr, &bad))
			fail("ibv_post_send: %s", strerror(errno));
		if (drain(p.cq, wc, 1, 20) != 1 || wc[0].status != IBV_WC_SUCCESS)
			fail("a correct RDMA WRITE afterwards did not complete");
		for (i = 0; i < 256; i++)
			if (buf[BUF + i] != 0xc3)
				fail("a correct RDMA WRITE afterwards: byte %u wrong", i);
		printf("ok: a correct RDMA WRITE afterwards moves the right bytes\n");
	}
	pair_close(&p);
	ibv_dereg_mr(mr);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	int i, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 || (strcmp(argv[1], "victim") && strcmp(argv[1], "attack"))) {
		fprintf(stderr, "usage: bad_wqe victim|attack FILE\n");
		return 2;
	}
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "sfab_0"))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		fail("cannot open sfab_0");
	if (ibv_query_port(ctx, 1, &pa) || !pa.lid)
		fail("port 1 has no LID");
	lid = pa.lid;
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		fail("ibv_alloc_pd: %s", strerror(errno));
	ret = !strcmp(argv[1], "victim") ? victim(argv[2]) : attack(argv[2]);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return ret;
}
