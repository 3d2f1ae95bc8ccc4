// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbs/xrc: XRC between three processes on two nodes, plain libibverbs.
 *
 *   xrc tgt DEV DIR    (node A) opens the XRC domain of the file
 *                      DIR/xrcd.$node with O_CREAT, makes XRC SRQ "a",
 *                      the XRC receive QP and an MR of its PD
 *   xrc peer DEV DIR   (node A) opens the same domain through the same
 *                      file (O_EXCL refused first), makes XRC SRQ "b" of
 *                      its own PD, opens the receive QP by its number
 *                      (ibv_open_qp) and follows its state
 *   xrc ini DEV DIR    (node B) an XRC send QP to that receive QP
 *   xrc hold DEV DIR   a domain of its own with an XRC SRQ, a receive QP
 *                      and a send QP; writes DIR/hold.ready and waits to
 *                      be killed (what it holds must go with it)
 *
 * The initiator sends NMSG messages of 1 B to 64 KiB, alternately to SRQ
 * a and SRQ b, half with ibv_post_send (wr.qp_type.xrc.remote_srqn), half
 * with ibv_wr_* and ibv_wr_set_xrc_srqn, some with immediate data: each
 * lands in the process whose SRQ it names, in order, byte for byte, with
 * the receive QP's number in the completion.  Then an RDMA WRITE and an
 * ATOMIC FETCH_ADD through SRQ b into peer's memory (its PD), an RDMA
 * READ through SRQ a from tgt's; last, a WRITE through SRQ b with tgt's
 * rkey (another PD) must fail with IBV_WC_REM_ACCESS_ERR and leave the
 * receive QP in Error for both processes that hold it.  The files in DIR
 * (shared by the nodes) carry the numbers: tgt.info, peer.info, ini.info
 * and the steps' *.ready, *.done.  Prints "ok: ..." per check; exit 1 on
 * the first failure.
 */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define NMSG		24
#define SLOT		(64 * 1024)
#define MEM		(2 * 1024 * 1024)	/* NMSG / 2 slots, then RDMA room */
#define RDMA_OFF	(1024 * 1024)
#define RDMA_LEN	8192
#define FA_OFF		(RDMA_OFF + 2 * RDMA_LEN)
#define PSN		0x1234
#define TIMEOUT_S	120

#define fail(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

static const char *dir;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *mem;
static uint16_t lid;

static const uint32_t sizes[] = { 1, 64, 1000, 4096, 9000, 65536, 257, 30000 };

static uint32_t msg_len(unsigned int i)
{
	return sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
}

static uint8_t pat(unsigned int i, uint32_t k)
{
	return (uint8_t)(i * 31 + k * 7 + (k >> 8));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void path_of(char *p, size_t n, const char *name)
{
	snprintf(p, n, "%s/%s", dir, name);
}

/* write DIR/name atomically (the other node reads it through the share) */
static void put(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(const char *name, const char *fmt, ...)
{
	char p[512], t[520];
	va_list ap;
	FILE *f;

	path_of(p, sizeof(p), name);
	snprintf(t, sizeof(t), "%s.tmp", p);
	f = fopen(t, "w");
	if (!f)
		fail("%s: %s", t, strerror(errno));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f) || rename(t, p))
		fail("%s: %s", p, strerror(errno));
}

/* wait for DIR/name; its first line into buf */
static void get(const char *name, char *buf, size_t n)
{
	double end = now() + TIMEOUT_S;
	char p[512];
	FILE *f;

	path_of(p, sizeof(p), name);
	while (!(f = fopen(p, "r"))) {
		if (now() > end)
			fail("%s did not appear in %d s", p, TIMEOUT_S);
		usleep(100000);
	}
	if (!fgets(buf, n, f))
		buf[0] = 0;
	fclose(f);
}

static void open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fail("no device %s", name);
	if (ibv_query_port(ctx, 1, &pa) || pa.state != IBV_PORT_ACTIVE)
		fail("port 1 not Active");
	lid = pa.lid;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	mem = aligned_alloc(4096, MEM);
	if (!pd || !cq || !mem)
		fail("pd, cq or memory: %s", strerror(errno));
	memset(mem, 0, MEM);
	mr = ibv_reg_mr(pd, mem, MEM, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		fail("reg_mr: %s", strerror(errno));
}

static const char *xrcd_tag = "";

static struct ibv_xrcd *open_xrcd(int oflags)
{
	char p[512];
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.oflags = oflags,
	};
	struct ibv_xrcd *x;
	char host[64];

	/* the domain lives in one node's kernel: its file is that node's */
	gethostname(host, sizeof(host));
	snprintf(p, sizeof(p), "/tmp/sfab-xrcd%s.%s", xrcd_tag, host);
	xa.fd = open(p, O_RDONLY | O_CREAT, 0600);
	if (xa.fd < 0)
		fail("%s: %s", p, strerror(errno));
	x = ibv_open_xrcd(ctx, &xa);
	close(xa.fd);
	return x;
}

static struct ibv_srq *xrc_srq(struct ibv_xrcd *xrcd, uint32_t *srqn)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 32, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = xrcd,
		.cq = cq,
	};
	struct ibv_srq *srq = ibv_create_srq_ex(ctx, &sa);
	unsigned int k;

	if (!srq)
		fail("ibv_create_srq_ex (XRC): %s", strerror(errno));
	if (ibv_get_srq_num(srq, srqn))
		fail("ibv_get_srq_num: %s", strerror(errno));
	/* one 64 KiB slot per message it gets */
	for (k = 0; k < NMSG / 2; k++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)mem + k * SLOT,
			.length = SLOT,
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = k, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_srq_recv(srq, &wr, &bad))
			fail("ibv_post_srq_recv: %s", strerror(errno));
	}
	return srq;
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   const char *what)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err)
		fail("modify_qp to %s: %s", what, strerror(err));
}

/* Reset -> Init -> RTR (-> RTS) of either half, to @dqpn at @dlid */
static void connect_qp(struct ibv_qp *qp, bool ini, uint32_t dqpn,
		       uint16_t dlid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "Init");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = PSN;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	       (ini ? 0 : IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
	       "RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = PSN;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       (ini ? IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		      IBV_QP_MAX_QP_RD_ATOMIC : 0), "RTS");
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		fail("ibv_query_qp: %s", strerror(errno));
	return a.qp_state;
}

static void poll_one(struct ibv_wc *wc)
{
	double end = now() + TIMEOUT_S;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)))
		if (now() > end)
			fail("no completion in %d s", TIMEOUT_S);
	if (n < 0)
		fail("ibv_poll_cq: %d", n);
}

/*
 * tgt and peer: the messages to their SRQ (@first, @first + 2, ...) in
 * order, each checked byte for byte
 */
static void receive(unsigned int first, uint32_t tgt_qpn, const char *who)
{
	unsigned int j, i;
	struct ibv_wc wc;
	uint32_t k;

	for (j = 0; j < NMSG / 2; j++) {
		i = first + 2 * j;
		poll_one(&wc);
		if (wc.status != IBV_WC_SUCCESS)
			fail("%s: message %u: %s", who, i,
			     ibv_wc_status_str(wc.status));
		if (wc.opcode != IBV_WC_RECV || wc.wr_id != j ||
		    wc.qp_num != tgt_qpn || wc.byte_len != msg_len(i))
			fail("%s: message %u: opcode %d wr_id %llu qp %u len %u, want wr_id %u qp %u len %u",
			     who, i, wc.opcode, (unsigned long long)wc.wr_id,
			     wc.qp_num, wc.byte_len, j, tgt_qpn, msg_len(i));
		if ((i % 4 == 1) != !!(wc.wc_flags & IBV_WC_WITH_IMM) ||
		    ((wc.wc_flags & IBV_WC_WITH_IMM) &&
		     be32toh(wc.imm_data) != 0xabc00000 + i))
			fail("%s: message %u: immediate wrong (flags %#x)", who,
			     i, wc.wc_flags);
		for (k = 0; k < msg_len(i); k++)
			if (mem[j * SLOT + k] != pat(i, k))
				fail("%s: message %u byte %u: %#x, want %#x", who,
				     i, k, mem[j * SLOT + k], pat(i, k));
	}
	printf("ok: %s: %u messages in its SRQ's order, byte for byte, completed for receive QP %u\n",
	       who, NMSG / 2, tgt_qpn);
}

static void run_tgt(void)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_qp *tgt;
	uint32_t srqn, iqpn;
	unsigned int ilid;
	char line[256];
	uint32_t k;

	xrcd = open_xrcd(O_CREAT);
	if (!xrcd)
		fail("ibv_open_xrcd(O_CREAT): %s", strerror(errno));
	srq = xrc_srq(xrcd, &srqn);
	qa.xrcd = xrcd;
	tgt = ibv_create_qp_ex(ctx, &qa);
	if (!tgt)
		fail("ibv_create_qp_ex(XRC_RECV): %s", strerror(errno));
	/* what the READ through SRQ a reads */
	for (k = 0; k < RDMA_LEN; k++)
		mem[RDMA_OFF + k] = pat(99, k);
	put("tgt.info", "%u %u %llu %u %u\n", tgt->qp_num, srqn,
	    (unsigned long long)(uintptr_t)mem, mr->rkey, lid);
	printf("ok: tgt: XRC domain (file), SRQ %u, receive QP %u\n", srqn,
	       tgt->qp_num);
	get("ini.info", line, sizeof(line));
	if (sscanf(line, "%u %u", &iqpn, &ilid) != 2)
		fail("ini.info: %s", line);
	connect_qp(tgt, false, iqpn, ilid);
	put("tgt.ready", "\n");
	receive(0, tgt->qp_num, "tgt");
	put("tgt.done", "\n");
	/* the WRITE with its rkey through the peer's SRQ broke the connection */
	get("ini.done", line, sizeof(line));
	if (qp_state(tgt) != IBV_QPS_ERR)
		fail("tgt: receive QP in state %d after the bad WRITE, not Error",
		     qp_state(tgt));
	for (k = 0; k < RDMA_LEN; k++)
		if (mem[RDMA_OFF + k] != pat(99, k))
			fail("tgt: its memory changed at %u", RDMA_OFF + k);
	printf("ok: tgt: the receive QP is in Error after a WRITE with another PD's rkey; its memory untouched\n");
	/* the peer's open of the QP does not keep it: it goes here */
	get("peer.done", line, sizeof(line));
	if (ibv_destroy_qp(tgt) || ibv_destroy_srq(srq) || ibv_close_xrcd(xrcd))
		fail("tgt: teardown: %s", strerror(errno));
	printf("ok: tgt: receive QP, SRQ and domain destroyed\n");
}

static void run_peer(void)
{
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	unsigned int tqpn, asrqn, arkey, tlid;
	unsigned long long aaddr;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	char line[256];
	uint32_t srqn, k;
	uint64_t v;

	get("tgt.info", line, sizeof(line));
	if (sscanf(line, "%u %u %llu %u %u", &tqpn, &asrqn, &aaddr, &arkey,
		   &tlid) != 5)
		fail("tgt.info: %s", line);
	/* the domain exists: O_EXCL is refused, opening it again is not */
	xrcd = open_xrcd(O_CREAT | O_EXCL);
	if (xrcd)
		fail("peer: ibv_open_xrcd(O_CREAT | O_EXCL) of an open domain succeeded");
	xrcd = open_xrcd(0);
	if (!xrcd)
		fail("peer: ibv_open_xrcd of tgt's domain: %s", strerror(errno));
	srq = xrc_srq(xrcd, &srqn);
	oa.qp_num = tqpn;
	oa.xrcd = xrcd;
	qp = ibv_open_qp(ctx, &oa);
	if (!qp)
		fail("peer: ibv_open_qp(%u): %s", tqpn, strerror(errno));
	memset(mem + FA_OFF, 0, 8);
	put("peer.info", "%u %llu %u\n", srqn, (unsigned long long)(uintptr_t)mem,
	    mr->rkey);
	printf("ok: peer: the same XRC domain through the file (O_EXCL refused), SRQ %u, receive QP %u opened\n",
	       srqn, tqpn);
	get("tgt.ready", line, sizeof(line));
	if (qp_state(qp) != IBV_QPS_RTS)
		fail("peer: the opened QP is in state %d, tgt made it RTS",
		     qp_state(qp));
	put("peer.ready", "\n");
	receive(1, tqpn, "peer");
	get("ini.done", line, sizeof(line));
	for (k = 0; k < RDMA_LEN; k++)
		if (mem[RDMA_OFF + k] != pat(77, k))
			fail("peer: RDMA WRITE through its SRQ: byte %u is %#x, want %#x",
			     k, mem[RDMA_OFF + k], pat(77, k));
	memcpy(&v, mem + FA_OFF, 8);
	if (v != 5)
		fail("peer: FETCH_ADD through its SRQ left %llu, want 5",
		     (unsigned long long)v);
	printf("ok: peer: the RDMA WRITE and FETCH_ADD through its SRQ landed in its memory (its PD)\n");
	if (qp_state(qp) != IBV_QPS_ERR)
		fail("peer: the opened QP is in state %d after the bad WRITE, not Error",
		     qp_state(qp));
	if (ibv_destroy_qp(qp) || ibv_destroy_srq(srq) || ibv_close_xrcd(xrcd))
		fail("peer: teardown: %s", strerror(errno));
	put("peer.done", "\n");
	printf("ok: peer: sees the receive QP in Error too; its open, SRQ and domain closed\n");
}

/* one request from the initiator and its completion */
static enum ibv_wc_status ini_post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, wr, &bad))
		fail("ini: ibv_post_send: %s", strerror(errno));
	poll_one(&wc);
	if (wc.wr_id != wr->wr_id)
		fail("ini: completion for %llu, want %llu",
		     (unsigned long long)wc.wr_id,
		     (unsigned long long)wr->wr_id);
	return wc.status;
}

static void run_ini(void)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 64, .max_send_sge = 2 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
	};
	unsigned int tqpn, asrqn, arkey, tlid, bsrqn, brkey;
	unsigned long long aaddr, baddr;
	struct ibv_send_wr wr;
	struct ibv_qp_ex *qpx;
	struct ibv_sge sge;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	char line[256];
	unsigned int i;
	uint32_t k, srqn;
	int st;

	qa.pd = pd;
	qp = ibv_create_qp_ex(ctx, &qa);
	if (!qp)
		fail("ini: ibv_create_qp_ex(XRC_SEND): %s", strerror(errno));
	qpx = ibv_qp_to_qp_ex(qp);
	put("ini.info", "%u %u\n", qp->qp_num, lid);
	get("tgt.info", line, sizeof(line));
	if (sscanf(line, "%u %u %llu %u %u", &tqpn, &asrqn, &aaddr, &arkey,
		   &tlid) != 5)
		fail("tgt.info: %s", line);
	get("peer.info", line, sizeof(line));
	if (sscanf(line, "%u %llu %u", &bsrqn, &baddr, &brkey) != 3)
		fail("peer.info: %s", line);
	connect_qp(qp, true, tqpn, tlid);
	get("tgt.ready", line, sizeof(line));
	get("peer.ready", line, sizeof(line));
	printf("ok: ini: XRC send QP %u connected to receive QP %u (LID %u)\n",
	       qp->qp_num, tqpn, tlid);

	for (i = 0; i < NMSG; i++) {
		srqn = i % 2 ? bsrqn : asrqn;
		for (k = 0; k < msg_len(i); k++)
			mem[k] = pat(i, k);
		sge = (struct ibv_sge){ (uintptr_t)mem, msg_len(i), mr->lkey };
		if (i % 3 == 2) {
			/* the extended post API */
			ibv_wr_start(qpx);
			qpx->wr_id = 1000 + i;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			if (i % 4 == 1)
				ibv_wr_send_imm(qpx, htobe32(0xabc00000 + i));
			else
				ibv_wr_send(qpx);
			ibv_wr_set_xrc_srqn(qpx, srqn);
			ibv_wr_set_sge(qpx, sge.lkey, sge.addr, sge.length);
			if (ibv_wr_complete(qpx))
				fail("ini: ibv_wr_complete: %s", strerror(errno));
			poll_one(&wc);
			st = wc.status;
		} else {
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = 1000 + i;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = i % 4 == 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
			wr.imm_data = htobe32(0xabc00000 + i);
			wr.qp_type.xrc.remote_srqn = srqn;
			st = ini_post(qp, &wr);
		}
		if (st != IBV_WC_SUCCESS)
			fail("ini: message %u (%u bytes to SRQ %u): %s", i,
			     msg_len(i), srqn, ibv_wc_status_str(st));
	}
	printf("ok: ini: %u sends of 1 B to 64 KiB to SRQs %u and %u (ibv_post_send and ibv_wr_*) completed\n",
	       NMSG, asrqn, bsrqn);
	get("tgt.done", line, sizeof(line));

	/* one-sided, through the peer's SRQ: its PD, its memory */
	for (k = 0; k < RDMA_LEN; k++)
		mem[k] = pat(77, k);
	memset(&wr, 0, sizeof(wr));
	sge = (struct ibv_sge){ (uintptr_t)mem, RDMA_LEN, mr->lkey };
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = baddr + RDMA_OFF;
	wr.wr.rdma.rkey = brkey;
	wr.qp_type.xrc.remote_srqn = bsrqn;
	st = ini_post(qp, &wr);
	if (st != IBV_WC_SUCCESS)
		fail("ini: RDMA WRITE through SRQ %u: %s", bsrqn,
		     ibv_wc_status_str(st));
	memset(mem + 65536, 0xee, 8);
	sge = (struct ibv_sge){ (uintptr_t)mem + 65536, 8, mr->lkey };
	wr.wr_id = 2;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = baddr + FA_OFF;
	wr.wr.atomic.rkey = brkey;
	wr.wr.atomic.compare_add = 5;
	st = ini_post(qp, &wr);
	if (st != IBV_WC_SUCCESS || *(uint64_t *)(mem + 65536) != 0)
		fail("ini: FETCH_ADD through SRQ %u: %s, original %llu",
		     bsrqn, ibv_wc_status_str(st),
		     (unsigned long long)*(uint64_t *)(mem + 65536));
	/* and through tgt's SRQ, tgt's memory */
	memset(mem + 131072, 0, RDMA_LEN);
	sge = (struct ibv_sge){ (uintptr_t)mem + 131072, RDMA_LEN, mr->lkey };
	wr.wr_id = 3;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = aaddr + RDMA_OFF;
	wr.wr.rdma.rkey = arkey;
	wr.qp_type.xrc.remote_srqn = asrqn;
	st = ini_post(qp, &wr);
	if (st != IBV_WC_SUCCESS)
		fail("ini: RDMA READ through SRQ %u: %s", asrqn,
		     ibv_wc_status_str(st));
	for (k = 0; k < RDMA_LEN; k++)
		if (mem[131072 + k] != pat(99, k))
			fail("ini: RDMA READ byte %u: %#x, want %#x", k,
			     mem[131072 + k], pat(99, k));
	printf("ok: ini: RDMA WRITE, FETCH_ADD through SRQ %u and RDMA READ through SRQ %u, byte for byte\n",
	       bsrqn, asrqn);
	/* tgt's rkey through the peer's SRQ: the peer's PD knows no such key */
	sge = (struct ibv_sge){ (uintptr_t)mem, 64, mr->lkey };
	wr.wr_id = 4;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = aaddr + RDMA_OFF;
	wr.wr.rdma.rkey = arkey;
	wr.qp_type.xrc.remote_srqn = bsrqn;
	st = ini_post(qp, &wr);
	if (st != IBV_WC_REM_ACCESS_ERR)
		fail("ini: WRITE with SRQ %u's PD and another PD's rkey: %s, want %s",
		     bsrqn, ibv_wc_status_str(st),
		     ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	printf("ok: ini: a WRITE through SRQ %u with an rkey of another PD: IBV_WC_REM_ACCESS_ERR\n",
	       bsrqn);
	put("ini.done", "\n");
	if (ibv_destroy_qp(qp))
		fail("ini: destroy_qp: %s", strerror(errno));
}

static void run_hold(void)
{
	struct ibv_qp_init_attr_ex ra = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_qp_init_attr_ex sa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.send_cq = cq,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	struct ibv_xrcd *xrcd;
	uint32_t srqn;

	xrcd_tag = "-hold";
	xrcd = open_xrcd(O_CREAT);
	if (!xrcd)
		fail("hold: ibv_open_xrcd: %s", strerror(errno));
	xrc_srq(xrcd, &srqn);
	ra.xrcd = xrcd;
	sa.pd = pd;
	if (!ibv_create_qp_ex(ctx, &ra) || !ibv_create_qp_ex(ctx, &sa))
		fail("hold: XRC QPs: %s", strerror(errno));
	put("hold.ready", "\n");
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4)
		fail("usage: xrc tgt|peer|ini|hold DEV DIR");
	dir = argv[3];
	open_dev(argv[2]);
	if (!strcmp(argv[1], "tgt"))
		run_tgt();
	else if (!strcmp(argv[1], "peer"))
		run_peer();
	else if (!strcmp(argv[1], "ini"))
		run_ini();
	else if (!strcmp(argv[1], "hold"))
		run_hold();
	else
		fail("usage: xrc tgt|peer|ini DEV DIR");
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
