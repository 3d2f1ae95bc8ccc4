// SPDX-License-Identifier: GPL-2.0-only
/*
 * gda: the guest half of the gda tests (tests/gda/run-gda): GPU-initiated
 * posting and peer memory, with the test accelerator standing in for the
 * GPU.  One subcommand per test; exit 0 pass, 1 fail, with the reason on
 * stderr.  Built by run-gda against the project's rdma-core build.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/udmabuf.h>

#include <infiniband/verbs.h>
#include <infiniband/sfabdv.h>

#include <sfab/sfab_queue.h>

#include "accel.h"

static const char *prog_test = "gda";

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog_test);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", prog_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* ---- time, rendezvous through the lab share, data patterns ------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the lab share (SFAB_LAB_OUT) path of @name */
static const char *lab_path(const char *name)
{
	static char buf[4][512];
	static int k;
	const char *lab = getenv("SFAB_LAB_OUT");
	char *b = buf[k++ & 3];

	if (!lab)
		die("SFAB_LAB_OUT is not set (run in a tools/sfab-lab guest)");
	snprintf(b, sizeof(buf[0]), "%s/gda/%s", lab, name);
	return b;
}

/* write lab file @name whole at once: a temporary file renamed */
static void __attribute__((format(printf, 2, 3)))
put_file(const char *name, const char *fmt, ...)
{
	char tmp[600];
	const char *path = lab_path(name);
	va_list ap;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die("%s: %s", tmp, strerror(errno));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f) || rename(tmp, path))
		die("%s: %s", path, strerror(errno));
}

/* wait up to @secs for lab file @name; its first line into @buf */
static void wait_file(const char *name, char *buf, size_t len, double secs)
{
	const char *path = lab_path(name);
	double end = now() + secs;
	FILE *f;

	for (;;) {
		f = fopen(path, "r");
		if (f)
			break;
		if (now() > end)
			die("no %s after %.0f s", path, secs);
		usleep(100000);
	}
	if (buf) {
		if (!fgets(buf, len, f))
			die("%s: empty", path);
		buf[strcspn(buf, "\n")] = 0;
	}
	fclose(f);
}

/* the byte at offset @i of test pattern @seed: never constant */
static uint8_t pattern(uint32_t seed, uint64_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL ^ seed;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x >> 56;
}

static void fill(void *p, uint64_t len, uint32_t seed)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		((volatile uint8_t *)p)[i] = pattern(seed, i);
	/* write-combined stores (accelerator memory) are weakly ordered */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* the first offset where @p differs from pattern @seed, or -1 */
static int64_t check(const void *p, uint64_t len, uint32_t seed)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (((const volatile uint8_t *)p)[i] != pattern(seed, i))
			return i;
	return -1;
}

/* ---- RC queue pairs between two nodes ---------------------------------- */

struct rc_end {
	uint16_t lid;
	uint32_t qpn, psn;
	uint64_t addr;			/* a buffer the peer may write */
	uint32_t rkey, len;
};

static uint16_t port_lid(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(ctx, 1, &pa))
		die("ibv_query_port: %s", strerror(errno));
	if (pa.state != IBV_PORT_ACTIVE || !pa.lid)
		die("port 1 is not Active with a LID");
	return pa.lid;
}

/* publish this end as lab file @name */
static void rc_publish(const char *name, const struct rc_end *e)
{
	put_file(name, "%u %u %u %" PRIu64 " %u %u\n", e->lid, e->qpn, e->psn,
		 e->addr, e->rkey, e->len);
}

static void rc_lookup(const char *name, struct rc_end *e, double secs)
{
	char line[256];
	unsigned int lid;

	wait_file(name, line, sizeof(line), secs);
	if (sscanf(line, "%u %u %u %" SCNu64 " %u %u", &lid, &e->qpn, &e->psn,
		   &e->addr, &e->rkey, &e->len) != 6)
		die("%s: '%s'", name, line);
	e->lid = lid;
}

/* RESET -> INIT -> RTR -> RTS against @peer */
static void rc_connect(struct ibv_qp *qp, const struct rc_end *me,
		       const struct rc_end *peer)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = peer->lid;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = me->psn;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS: %s", strerror(errno));
}

/* an RC QP with one SGE each way on @cq, in host memory */
static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    uint32_t send_wr)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;

	if (!pd || !cq)
		die("alloc_pd/create_cq: %s", strerror(errno));
	qp = ibv_create_qp(pd, &qa);
	if (!qp)
		die("create_qp: %s", strerror(errno));
	return qp;
}

/* poll @cq for @n completions, each successful, within @secs */
static void drain(struct ibv_cq *cq, int n, double secs)
{
	double end = now() + secs;
	struct ibv_wc wc[16];
	int got = 0, k, i;

	while (got < n) {
		k = ibv_poll_cq(cq, n - got < 16 ? n - got : 16, wc);
		if (k < 0)
			die("ibv_poll_cq: %d", k);
		for (i = 0; i < k; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				die("completion %d: %s (wr_id %" PRIu64 ")",
				    got + i, ibv_wc_status_str(wc[i].status),
				    wc[i].wr_id);
		got += k;
		if (!k && now() > end)
			die("%d of %d completions after %.0f s", got, n, secs);
	}
}

/* ---- the HCA's PCI function and its doorbell BAR ---------------------- */

struct bar {
	uint64_t start, end;		/* inclusive, as sysfs "resource" says */
};

static struct bar hca_bar(const char *ibdev, int bar)
{
	char path[256], line[256];
	struct bar b = { 0, 0 };
	uint64_t flags;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/resource",
		 ibdev);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	for (i = 0; i <= bar; i++)
		if (!fgets(line, sizeof(line), f))
			die("%s: no line for BAR%d", path, bar);
	fclose(f);
	if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64, &b.start, &b.end,
		   &flags) != 3 || !b.start || b.end <= b.start)
		die("%s: BAR%d: '%s'", path, bar, line);
	return b;
}

/* PAT entries (x86 debugfs memtype list) that lie inside @b */
struct pat_entry {
	uint64_t start, end;		/* end exclusive */
	char type[32];
};

static int pat_entries(const struct bar *b, struct pat_entry *out, int max)
{
	const char *path = "/sys/kernel/debug/x86/pat_memtype_list";
	char line[256];
	int n = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		die("%s: %s (debugfs, CONFIG_X86_PAT)", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct pat_entry e;

		if (sscanf(line, "PAT: [mem 0x%" SCNx64 "-0x%" SCNx64 "] %31s",
			   &e.start, &e.end, e.type) != 3)
			continue;
		if (e.start < b->start || e.end > b->end + 1)
			continue;
		if (n < max)
			out[n] = e;
		n++;
	}
	fclose(f);
	return n;
}

static struct ibv_context *open_ibdev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die("cannot open %s", name);
	return ctx;
}

/* mappings of @ctx's uverbs file in this process, and their total size */
static int uverbs_maps(struct ibv_context *ctx, size_t *bytes)
{
	char fdpath[64], target[256], line[512];
	int n = 0;
	ssize_t l;
	FILE *f;

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", ctx->cmd_fd);
	l = readlink(fdpath, target, sizeof(target) - 1);
	if (l < 0)
		die("%s: %s", fdpath, strerror(errno));
	target[l] = 0;
	*bytes = 0;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		die("/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		char *p = strchr(line, '/');

		if (!p || sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (strcmp(p, target))
			continue;
		n++;
		*bytes += b - a;
	}
	fclose(f);
	return n;
}

/*
 * gda/db-mmap: each user context maps exactly one doorbell page of the
 * HCA's doorbell BAR, through rdma_user_mmap_entry: write-combining when
 * the device says its doorbell BAR is prefetchable, else uncached; two
 * contexts get two different pages; offsets the driver never handed out
 * are refused; closing the context removes the mapping.
 */
static int t_db_mmap(const char *ibdev)
{
	struct pat_entry before[64], mid[64], after[64], fresh[2];
	struct sfabdv_device_attr da = {};
	struct ibv_context *c1, *c2;
	struct bar db = hca_bar(ibdev, 2);
	int nb, nm, na, i, j, k = 0, nmaps;
	const char *want;
	size_t bytes;
	void *p;

	nb = pat_entries(&db, before, 64);
	c1 = open_ibdev(ibdev);
	c2 = open_ibdev(ibdev);
	if (sfabdv_query_device(c1, &da, sizeof(da)))
		die("sfabdv_query_device: %s", strerror(errno));
	want = da.device_caps & SFABDV_DEVICE_CAPS_DB_WC ? "write-combining" :
							    "uncached-minus";
	nm = pat_entries(&db, mid, 64);
	if (nm != nb + 2 || nm > 64)
		die("%d PAT entries in the doorbell BAR [0x%" PRIx64 "-0x%" PRIx64
		    "] with two contexts open, %d before: want one more each",
		    nm, db.start, db.end, nb);
	for (i = 0; i < nm; i++) {
		for (j = 0; j < nb; j++)
			if (mid[i].start == before[j].start)
				break;
		if (j < nb)
			continue;
		if (k == 2)
			die("more than two new PAT entries");
		fresh[k++] = mid[i];
	}
	if (k != 2)
		die("%d new PAT entries, want 2", k);
	for (i = 0; i < 2; i++) {
		if (fresh[i].end - fresh[i].start != 4096 ||
		    (fresh[i].start - db.start) % 4096)
			die("doorbell mapping [0x%" PRIx64 "-0x%" PRIx64
			    ") is not one page of the BAR", fresh[i].start,
			    fresh[i].end);
		if (strcmp(fresh[i].type, want))
			die("doorbell page mapped %s, want %s", fresh[i].type,
			    want);
		if (fresh[i].start < db.start + 4096)
			die("a user context got doorbell page 0 (the kernel's)");
	}
	if (fresh[0].start == fresh[1].start)
		die("two contexts share doorbell page 0x%" PRIx64,
		    fresh[0].start);
	nmaps = uverbs_maps(c1, &bytes);
	if (nmaps < 1 || bytes < 4096)
		die("no mapping of the uverbs file in /proc/self/maps");
	note("two contexts: doorbell pages 0x%" PRIx64 " and 0x%" PRIx64 ", %s",
	     fresh[0].start, fresh[1].start, want);

	/* an offset no mmap entry has: refused */
	p = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, c1->cmd_fd, 0x7654000);
	if (p != MAP_FAILED)
		die("mmap of an unknown offset of the uverbs file succeeded");
	if (errno != EINVAL)
		die("mmap of an unknown offset: %s, want EINVAL", strerror(errno));

	ibv_close_device(c2);
	ibv_close_device(c1);
	na = pat_entries(&db, after, 64);
	if (na != nb)
		die("%d PAT entries in the doorbell BAR after closing, %d before",
		    na, nb);
	note("closed: the doorbell mappings are gone (%d PAT entries, as before)",
	     na);
	return 0;
}

/* ---- the accelerator ----------------------------------------------------- */

static struct sfab_accel_dev accel;

static void accel_open(void)
{
	int err = sfab_accel_open(SFAB_ACCEL_DEFAULT_DEV, &accel);

	if (err)
		die("%s: %s", SFAB_ACCEL_DEFAULT_DEV, strerror(-err));
}

static void accel_alloc(uint64_t size, struct sfab_accel_mem *m)
{
	int err = sfab_accel_alloc(&accel, size, m);

	if (err)
		die("accelerator ALLOC of %" PRIu64 " bytes: %s", size,
		    strerror(-err));
}

/* an MR over [0, len) of accelerator buffer @m, through a dma-buf */
static struct ibv_mr *accel_mr(struct ibv_pd *pd, struct sfab_accel_mem *m,
			       uint64_t len, int access)
{
	struct ibv_mr *mr;
	int fd;

	fd = sfab_accel_export(&accel, m->handle, 0, len);
	if (fd < 0)
		die("accelerator EXPORT_DMABUF: %s", strerror(-fd));
	mr = ibv_reg_dmabuf_mr(pd, 0, len, 0, fd, access);
	if (!mr)
		die("ibv_reg_dmabuf_mr of accelerator memory: %s",
		    strerror(errno));
	/* the MR holds its own reference on the dma-buf */
	close(fd);
	return mr;
}

/*
 * gda/dmabuf-mr: accelerator memory registered through a dma-buf
 * (ibv_reg_dmabuf_mr, the accelerator driver exporting) is what the HCA
 * reads and writes peer-to-peer: n1 RDMA WRITEs from its accelerator's
 * memory into n2's, and RDMA READs n2's accelerator memory into its own,
 * at lengths 1 B to 1 MiB and unaligned offsets; the bytes are checked on
 * the side that got them, through the accelerator's mmap.  A dma-buf MR
 * beyond the dma-buf, and one over an fd that is no dma-buf, are refused.
 */
#define DMR_LEN		(4U << 20)
#define DMR_HALF	(DMR_LEN / 2)

static const uint32_t dmr_lens[] = { 1, 63, 4095, 4096, 4097, 65536, 1U << 20 };
#define DMR_N	(sizeof(dmr_lens) / sizeof(dmr_lens[0]))

/* transfer @i's offset in a half: after the ones before it, unaligned */
static uint64_t dmr_off(size_t i, uint64_t skew)
{
	uint64_t off = 0;
	size_t k;

	for (k = 0; k < i; k++)
		off += dmr_lens[k] + skew;
	return off + skew;
}

static int t_dmabuf_mr(const char *ibdev)
{
	const char *role = getenv("SFAB_GDA_ROLE") ?: "";
	bool init = !strcmp(role, "initiator");
	struct ibv_context *ctx = open_ibdev(ibdev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_qp *qp = rc_qp(pd, cq, 32);
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;
	struct rc_end me = {}, peer;
	struct sfab_accel_mem m;
	struct ibv_mr *mr;
	char line[64];
	size_t i;

	accel_open();
	accel_alloc(DMR_LEN, &m);
	memset(m.map, 0, DMR_LEN);

	/* the refusals: beyond the dma-buf, not a dma-buf */
	{
		int fd = sfab_accel_export(&accel, m.handle, 0, 4096);

		if (fd < 0)
			die("EXPORT_DMABUF: %s", strerror(-fd));
		mr = ibv_reg_dmabuf_mr(pd, 0, 8192, 0, fd, acc);
		if (mr)
			die("a dma-buf MR of 8 KiB over a 4 KiB dma-buf was registered");
		mr = ibv_reg_dmabuf_mr(pd, 4096, 4096, 0, fd, acc);
		if (mr)
			die("a dma-buf MR at offset 4 KiB of a 4 KiB dma-buf was registered");
		close(fd);
		mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, ctx->cmd_fd, acc);
		if (mr)
			die("a dma-buf MR over the uverbs fd (no dma-buf) was registered");
		note("refused: beyond the dma-buf (twice), an fd that is no dma-buf");
	}

	mr = accel_mr(pd, &m, DMR_LEN, acc);
	me.lid = port_lid(ctx);
	me.qpn = qp->qp_num;
	me.psn = init ? 0x1000 : 0x2000;
	me.addr = 0;
	me.rkey = mr->rkey;
	me.len = DMR_LEN;
	rc_publish(init ? "dmr.init" : "dmr.target", &me);
	rc_lookup(init ? "dmr.target" : "dmr.init", &peer, 120);
	rc_connect(qp, &me, &peer);

	if (!init) {
		/* what n1 will READ: the upper half, pattern 2 */
		fill((uint8_t *)m.map + DMR_HALF, DMR_HALF, 2);
		put_file("dmr.ready", "1\n");
		wait_file("dmr.written", line, sizeof(line), 300);
		/* n1 wrote pattern 1 at [off_i, off_i + len_i) */
		for (i = 0; i < DMR_N; i++) {
			uint64_t off = dmr_off(i, 17);
			int64_t bad = check((uint8_t *)m.map + off, dmr_lens[i], 1 + i);

			if (bad >= 0)
				die("WRITE of %u bytes at %" PRIu64 ": byte %" PRId64
				    " wrong in accelerator memory", dmr_lens[i],
				    off, bad);
		}
		note("%zu RDMA WRITEs (1 B .. 1 MiB) landed in accelerator memory intact",
		     DMR_N);
		put_file("dmr.checked", "1\n");
		wait_file("dmr.done", line, sizeof(line), 300);
	} else {
		wait_file("dmr.ready", NULL, 0, 300);
		for (i = 0; i < DMR_N; i++) {
			uint64_t off = dmr_off(i, 17);
			struct ibv_sge sge = {
				.addr = off, .length = dmr_lens[i], .lkey = mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = i, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { .remote_addr = off, .rkey = peer.rkey },
			}, *bad;

			/* the source: pattern 1 + i in our accelerator memory */
			fill((uint8_t *)m.map + off, dmr_lens[i], 1 + i);
			if (ibv_post_send(qp, &wr, &bad))
				die("post RDMA WRITE: %s", strerror(errno));
			drain(cq, 1, 60);
		}
		put_file("dmr.written", "1\n");
		wait_file("dmr.checked", NULL, 0, 300);
		for (i = 0; i < DMR_N; i++) {
			uint64_t roff = DMR_HALF + dmr_off(i, 3);
			uint64_t loff = DMR_HALF + dmr_off(i, 5);
			struct ibv_sge sge = {
				.addr = loff, .length = dmr_lens[i] / 2 + 1,
				.lkey = mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = 100 + i, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_READ,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { .remote_addr = roff, .rkey = peer.rkey },
			}, *bad;
			int64_t off;
			uint64_t j;

			if (ibv_post_send(qp, &wr, &bad))
				die("post RDMA READ: %s", strerror(errno));
			drain(cq, 1, 60);
			/* pattern 2 starts at DMR_HALF on n2 */
			for (j = 0; j < sge.length; j++)
				if (((volatile uint8_t *)m.map)[loff + j] !=
				    pattern(2, roff - DMR_HALF + j))
					break;
			off = j < sge.length ? (int64_t)j : -1;
			if (off >= 0)
				die("READ of %u bytes from %" PRIu64 ": byte %" PRId64
				    " wrong in our accelerator memory", sge.length,
				    roff, off);
		}
		note("%zu RDMA WRITEs from and %zu RDMA READs into accelerator memory",
		     DMR_N, DMR_N);
		put_file("dmr.done", "1\n");
	}
	ibv_destroy_qp(qp);
	if (ibv_dereg_mr(mr))
		die("dereg_mr: %s", strerror(errno));
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	sfab_accel_free(&accel, &m);
	sfab_accel_close(&accel);
	return 0;
}

/* ---- the HCA's counters ------------------------------------------------- */

/*
 * An HCA hardware counter.  ib_core keeps a read for the counters'
 * lifespan (10 ms): wait that long first, so that a read after a change
 * is a new one.
 */
static uint64_t hw_counter(const char *ibdev, const char *name)
{
	char path[256], line[64];
	FILE *f;

	usleep(50000);

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", ibdev, name);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	if (!fgets(line, sizeof(line), f))
		die("%s: empty", path);
	fclose(f);
	return strtoull(line, NULL, 0);
}

/* the context's doorbell page, imported by the accelerator */
struct db_import {
	struct sfabdv_db_attr attr;
	uint32_t handle;
	uint64_t bus;
	uint64_t len;
};

static int db_import(struct ibv_context *ctx, struct db_import *d)
{
	int fd, err;

	memset(d, 0, sizeof(*d));
	if (sfabdv_query_db(ctx, &d->attr, sizeof(d->attr)))
		die("sfabdv_query_db: %s", strerror(errno));
	err = sfabdv_export_db_dmabuf(ctx, &fd);
	if (err)
		return -err;
	err = sfab_accel_import(&accel, fd, &d->handle, &d->bus, &d->len);
	close(fd);
	return err;
}

/* run @n commands on the accelerator, to their end, within @ms */
static int accel_run(const struct sfab_accel_cmd *c, uint32_t n, uint32_t ms,
		     struct sfab_accel_ioc_wait *w)
{
	struct sfab_accel_ioc_wait dummy;

	return sfab_accel_run(&accel, c, n, ms, w ? w : &dummy);
}

/*
 * gda/db-dmabuf-export: a context's doorbell page exported as a dma-buf
 * (sfabdv_export_db_dmabuf) and imported by the accelerator's driver is
 * that page of the HCA's doorbell BAR, peer-to-peer (its bus address is
 * inside BAR2), and nothing more: one page, and a store past it is
 * refused (EPERM) before it reaches the ring.  The accelerator's stores
 * reach the HCA as a peer's doorbells (db_writes_peer counts each of
 * them; they name queues the page does not own, which the HCA ignores).  Closing the context revokes the export: the accelerator's
 * driver is told (move_notify), and a program that still names the page
 * is refused (ENODEV).
 */
static int t_db_dmabuf_export(const char *ibdev)
{
	struct bar db = hca_bar(ibdev, 2);
	struct ibv_context *ctx = open_ibdev(ibdev);
	struct sfab_accel_ioc_info info;
	struct sfab_accel_cmd c[8];
	uint64_t peer0, peer1;
	struct db_import d;
	int err, i;

	accel_open();
	err = db_import(ctx, &d);
	if (err)
		die("export + import of the doorbell page: %s", strerror(-err));
	if (d.len != d.attr.page_size || d.attr.page_size != 4096)
		die("imported %" PRIu64 " bytes, page size %u: want one 4 KiB page",
		    d.len, d.attr.page_size);
	if (d.bus < db.start || d.bus + d.len - 1 > db.end || d.bus % 4096)
		die("the import's bus address 0x%" PRIx64 " is not a page of the "
		    "doorbell BAR [0x%" PRIx64 "-0x%" PRIx64 "]", d.bus, db.start,
		    db.end);
	if (d.bus != db.start + (uint64_t)d.attr.page_index * 4096)
		die("the import is page %" PRIu64 ", the context's is %u",
		    (d.bus - db.start) / 4096, d.attr.page_index);
	note("doorbell page %u exported and imported at bus 0x%" PRIx64
	     " (peer-to-peer: the BAR's own address)", d.attr.page_index, d.bus);

	/* past the page: refused before it reaches the ring */
	sfab_accel_cmd_store64(&c[0], d.bus + d.len, 0);
	err = sfab_accel_submit(&accel, c, 1, NULL);
	if (err != -EPERM)
		die("a store past the imported page: %s, want EPERM",
		    strerror(-err));
	sfab_accel_cmd_store64(&c[0], d.bus - 8, 0);
	err = sfab_accel_submit(&accel, c, 1, NULL);
	if (err != -EPERM)
		die("a store before the imported page: %s, want EPERM",
		    strerror(-err));

	/* four SQ doorbells for a QPN the page does not own: ignored, counted */
	peer0 = hw_counter(ibdev, "db_writes_peer");
	for (i = 0; i < 4; i++)
		sfab_accel_cmd_store64(&c[i], d.bus + d.attr.sq_offset,
				       sfab_db_val(0xfffff0 + i, 1, 0));
	err = accel_run(c, 4, 10000, NULL);
	if (err)
		die("four doorbell stores: %s", strerror(-err));
	peer1 = hw_counter(ibdev, "db_writes_peer");
	if (peer1 - peer0 != 4)
		die("db_writes_peer went %" PRIu64 " -> %" PRIu64 ", want +4",
		    peer0, peer1);
	note("4 doorbell stores from the accelerator (for QPNs the page does "
	     "not own: ignored): db_writes_peer +4");

	/* closing the context revokes the export */
	if (sfab_accel_info(&accel, &info))
		die("INFO: %s", strerror(errno));
	ibv_close_device(ctx);
	{
		struct sfab_accel_ioc_info after;

		if (sfab_accel_info(&accel, &after))
			die("INFO: %s", strerror(errno));
		if (after.counters.revokes != info.counters.revokes + 1)
			die("revokes %" PRIu64 " -> %" PRIu64
			    " after the context closed, want +1",
			    (uint64_t)info.counters.revokes,
			    (uint64_t)after.counters.revokes);
	}
	sfab_accel_cmd_store64(&c[0], d.bus + d.attr.sq_offset,
			       sfab_db_val(1, 1, 0));
	err = sfab_accel_submit(&accel, c, 1, NULL);
	if (err != -ENODEV)
		die("a store to the revoked import: %s, want ENODEV",
		    strerror(-err));
	if (sfab_accel_release_import(&accel, d.handle))
		die("RELEASE_IMPORT after the revocation failed");
	note("context closed: the import was revoked, a program naming it "
	     "is refused (ENODEV)");
	sfab_accel_close(&accel);
	return 0;
}

/*
 * gda/no-p2p-path: with the HCA and the accelerator on root ports of
 * their own (no common PCIe switch, a host bridge Linux does not know
 * as peer-to-peer capable), every peer-to-peer attachment is refused
 * with EOPNOTSUPP and a kernel message that says why: the doorbell page
 * import, and an MR over accelerator memory.  Nothing else breaks.
 */
static int t_no_p2p_path(const char *ibdev)
{
	struct ibv_context *ctx = open_ibdev(ibdev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct sfab_accel_mem m;
	struct db_import d;
	struct ibv_mr *mr;
	int err, fd;

	if (!pd)
		die("alloc_pd: %s", strerror(errno));
	accel_open();
	err = db_import(ctx, &d);
	if (err != -EOPNOTSUPP)
		die("doorbell page import without a P2P path: %s, want EOPNOTSUPP",
		    err ? strerror(-err) : "success");
	note("doorbell page import refused: EOPNOTSUPP");

	accel_alloc(1 << 20, &m);
	fd = sfab_accel_export(&accel, m.handle, 0, 1 << 20);
	if (fd < 0)
		die("EXPORT_DMABUF: %s", strerror(-fd));
	mr = ibv_reg_dmabuf_mr(pd, 0, 1 << 20, 0, fd,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (mr)
		die("an MR over accelerator memory without a P2P path was registered");
	if (errno != EOPNOTSUPP)
		die("ibv_reg_dmabuf_mr without a P2P path: %s, want EOPNOTSUPP",
		    strerror(errno));
	close(fd);
	note("MR over accelerator memory refused: EOPNOTSUPP");
	/* the accelerator itself still works */
	{
		struct sfab_accel_cmd c;

		sfab_accel_cmd_store32(&c, m.bus_addr, 0x600dcafe);
		err = accel_run(&c, 1, 10000, NULL);
		if (err || *(volatile uint32_t *)m.map != 0x600dcafe)
			die("a store to the accelerator's own memory failed");
	}
	sfab_accel_free(&accel, &m);
	sfab_accel_close(&accel);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}

/* ---- the whole path: the accelerator posts, rings and polls ------------ */

#define E2E_N		1000		/* RDMA WRITEs */
#define E2E_LEN		1024		/* bytes each */
#define E2E_BATCH	16		/* WQEs per doorbell; the last signaled */
#define E2E_SQ_WR	64
#define E2E_CQE		64
#define E2E_BUF		(2U << 20)

struct e2e_end {
	struct rc_end peer;
	double secs;
};

/* the target: accelerator memory as an MR, a plain host QP; then checks */
static void e2e_target(struct ibv_context *ctx, const char *tag, uint32_t seed)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = rc_qp(pd, cq, 4);
	struct rc_end me = {}, peer;
	char name[64], line[64];
	struct sfab_accel_mem m;
	struct ibv_mr *mr;
	int64_t bad;

	accel_alloc(E2E_BUF, &m);
	memset(m.map, 0, E2E_BUF);
	mr = accel_mr(pd, &m, E2E_BUF, acc);
	me.lid = port_lid(ctx);
	me.qpn = qp->qp_num;
	me.psn = 0x3000;
	me.rkey = mr->rkey;
	me.len = E2E_BUF;
	snprintf(name, sizeof(name), "%s.target", tag);
	rc_publish(name, &me);
	snprintf(name, sizeof(name), "%s.init", tag);
	rc_lookup(name, &peer, 300);
	rc_connect(qp, &me, &peer);
	snprintf(name, sizeof(name), "%s.sent", tag);
	wait_file(name, line, sizeof(line), 600);
	bad = check(m.map, (uint64_t)E2E_N * E2E_LEN, seed);
	if (bad >= 0)
		die("%s: byte %" PRId64 " (WRITE %" PRId64 ") wrong in accelerator "
		    "memory", tag, bad, bad / E2E_LEN);
	note("%s: %u RDMA WRITEs of %u bytes landed in accelerator memory intact",
	     tag, E2E_N, E2E_LEN);
	snprintf(name, sizeof(name), "%s.checked", tag);
	put_file(name, "1\n");
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	sfab_accel_free(&accel, &m);
}

/*
 * Two commands that take the CQE at consumer index @ci: wait until it is
 * new and successful (its poll word), then publish @ci + 1 in the CQ's
 * record.  Returns the number of commands written.
 */
static uint32_t e2e_take_cqe(struct sfab_accel_cmd *c,
			     const struct sfabdv_cq_attr *ca, uint64_t qbus,
			     uint16_t ci)
{
	uint64_t cqe = qbus + ca->ring_offset +
		((uint64_t)sfab_ring_slot(ci, ca->log_depth) << ca->log_stride) +
		SFAB_CQE_POLL_OFFSET;

	sfab_accel_cmd_poll32(&c[0], cqe, SFAB_CQE_POLL_MASK,
			      sfab_cqe_poll_ok(ci, ca->log_depth), 5000000000ULL);
	sfab_accel_cmd_store32(&c[1], qbus + ca->dbrec_offset,
			       sfab_le32_to_cpu(sfab_dbrec_val(ci + 1)));
	return 2;
}

/*
 * Four commands that publish an SQ's WQEs up to producer index @pi and
 * ring its doorbell, in the order sfabdv_create_qp(3) requires: fence,
 * the SQ's record, fence, one 64-bit doorbell store.
 */
static uint32_t accel_ring_sq(struct sfab_accel_cmd *c,
			      const struct sfabdv_qp_attr *qa, uint64_t qbus,
			      uint64_t db_bus, uint16_t pi)
{
	sfab_accel_cmd_fence(&c[0]);
	sfab_accel_cmd_store32(&c[1], qbus + qa->sq_dbrec_offset,
			       sfab_le32_to_cpu(sfab_dbrec_val(pi)));
	sfab_accel_cmd_fence(&c[2]);
	sfab_accel_cmd_store64(&c[3], db_bus + qa->sq_db_offset,
			       sfab_db_val(qa->qpn, pi, 0));
	return 4;
}

/* the program that posts E2E_N WRITEs: WQEs, records, doorbells, polls */
static uint32_t e2e_program(struct sfab_accel_cmd *c, const struct sfabdv_qp_attr *qa,
			    const struct sfabdv_cq_attr *ca, uint64_t qbus,
			    uint64_t db_bus, uint64_t src_iova, uint32_t lkey,
			    const struct rc_end *peer)
{
	uint32_t n = 0, i, b, nb = (E2E_N + E2E_BATCH - 1) / E2E_BATCH;
	uint32_t inflight = (1U << qa->sq_log_depth) / E2E_BATCH;
	uint16_t pi = 0, ci = 0;

	for (b = 0; b < nb; b++) {
		uint32_t first = b * E2E_BATCH;
		uint32_t last = first + E2E_BATCH > E2E_N ? E2E_N : first + E2E_BATCH;

		/* the batch that used these slots completed: its CQE */
		if (b >= inflight)
			n += e2e_take_cqe(&c[n], ca, qbus, ci++);
		for (i = first; i < last; i++) {
			struct sfab_wqe_rdma_1sge w;
			uint64_t slot = qbus + qa->sq_offset +
				((uint64_t)sfab_ring_slot(pi, qa->sq_log_depth) <<
				 qa->sq_log_stride);

			sfab_wqe_rdma_1sge(&w, SFAB_WQE_RDMA_WRITE,
					   i == last - 1 ? SFAB_WQE_SIGNALED : 0, i,
					   peer->addr + (uint64_t)i * E2E_LEN,
					   peer->rkey,
					   src_iova + (uint64_t)i * E2E_LEN, E2E_LEN,
					   lkey);
			sfab_accel_cmd_write_imm(&c[n++], slot, &w, sizeof(w));
			pi++;
		}
		n += accel_ring_sq(&c[n], qa, qbus, db_bus, pi);
	}
	/* the batches still in flight */
	for (b = nb > inflight ? nb - inflight : 0; b < nb; b++)
		n += e2e_take_cqe(&c[n], ca, qbus, ci++);
	return n;
}

/*
 * The initiator: queues in accelerator memory (sfabdv_create_cq/qp over
 * a dma-buf of it), the doorbell page imported by the accelerator, the
 * source data in accelerator memory (an MR through a dma-buf); one
 * program posts every WRITE, rings every doorbell and polls every CQE.
 * Then the same work posted by a host thread (ibv_post_send on a QP in
 * host memory), for the rate.  Counts the CPU's and the peer's doorbells
 * around the accelerator's run.
 */
static void e2e_init(const char *ibdev, struct ibv_context *ctx,
		     const char *tag, uint32_t seed, const char *proxy_tag,
		     uint32_t proxy_seed)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct sfabdv_cq_init_attr cia = {};
	struct sfabdv_qp_init_attr qia = {};
	struct sfabdv_cq_attr ca = {};
	struct sfabdv_qp_attr qa = {};
	struct ibv_qp_init_attr_ex qx = {};
	struct sfab_accel_mem q, src;
	struct sfab_accel_ioc_wait w;
	struct sfab_accel_cmd *prog;
	uint64_t cpu0, cpu1, peer0, peer1;
	struct rc_end me = {}, peer;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct db_import d;
	char name[64];
	double t0, t_accel, t_host;
	uint32_t n;
	int qfd, err;

	if (!pd)
		die("alloc_pd: %s", strerror(errno));
	/* 64 KiB of accelerator memory for the rings and records */
	accel_alloc(65536, &q);
	memset(q.map, 0, 65536);
	qfd = sfab_accel_export(&accel, q.handle, 0, 65536);
	if (qfd < 0)
		die("EXPORT_DMABUF of the queue memory: %s", strerror(-qfd));
	cia.cqe = E2E_CQE;
	cia.dmabuf_fd = qfd;
	cia.ring_offset = 0;
	cq = sfabdv_create_cq(ctx, &cia);
	if (!cq)
		die("sfabdv_create_cq in accelerator memory: %s", strerror(errno));
	qx.comp_mask = IBV_QP_INIT_ATTR_PD;
	qx.pd = pd;
	qx.send_cq = cq;
	qx.recv_cq = cq;
	qx.qp_type = IBV_QPT_RC;
	qx.cap.max_send_wr = E2E_SQ_WR;
	qx.cap.max_recv_wr = 1;
	qx.cap.max_send_sge = 1;
	qx.cap.max_recv_sge = 1;
	qia.dmabuf_fd = qfd;
	qia.sq_offset = 16384;
	qia.rq_offset = 57344;
	qp = sfabdv_create_qp(ctx, &qx, &qia);
	if (!qp)
		die("sfabdv_create_qp in accelerator memory: %s", strerror(errno));
	close(qfd);
	if (sfabdv_query_cq(cq, &ca, sizeof(ca)) ||
	    sfabdv_query_qp(qp, &qa, sizeof(qa)))
		die("sfabdv_query_cq/qp: %s", strerror(errno));
	if (!(ca.flags & SFABDV_QUEUE_DBREC) || !(qa.flags & SFABDV_QUEUE_DBREC))
		die("queues in accelerator memory without doorbell records");
	note("CQ %u (2^%u CQEs at +0x%" PRIx64 ", record +0x%" PRIx64 "), "
	     "QP %u (SQ 2^%u x %u B at +0x%" PRIx64 ", record +0x%" PRIx64
	     ") in accelerator memory", ca.cqn, ca.log_depth, ca.ring_offset,
	     ca.dbrec_offset, qa.qpn, qa.sq_log_depth, 1U << qa.sq_log_stride,
	     qa.sq_offset, qa.sq_dbrec_offset);
	err = db_import(ctx, &d);
	if (err)
		die("doorbell page export + import: %s", strerror(-err));

	accel_alloc(E2E_BUF, &src);
	fill(src.map, (uint64_t)E2E_N * E2E_LEN, seed);
	mr = accel_mr(pd, &src, E2E_BUF, acc);

	me.lid = port_lid(ctx);
	me.qpn = qp->qp_num;
	me.psn = 0x4000;
	snprintf(name, sizeof(name), "%s.init", tag);
	rc_publish(name, &me);
	snprintf(name, sizeof(name), "%s.target", tag);
	rc_lookup(name, &peer, 300);
	rc_connect(qp, &me, &peer);

	prog = calloc(8192, sizeof(*prog));
	if (!prog)
		die("out of memory");
	n = e2e_program(prog, &qa, &ca, q.bus_addr, d.bus, 0, mr->lkey, &peer);
	if (n >= accel.info.max_submit)
		die("the program has %u commands, the ring takes %u", n,
		    accel.info.max_submit);

	cpu0 = hw_counter(ibdev, "db_writes_cpu");
	peer0 = hw_counter(ibdev, "db_writes_peer");
	t0 = now();
	err = accel_run(prog, n, 120000, &w);
	t_accel = now() - t0;
	cpu1 = hw_counter(ibdev, "db_writes_cpu");
	peer1 = hw_counter(ibdev, "db_writes_peer");
	if (err)
		die("the accelerator's program (%u commands): %s, error %s at "
		    "index %u", n, strerror(-err), sfab_accel_err_str(w.err_code),
		    w.err_index);
	note("the accelerator posted %u WRITEs of %u B in %.3f s: %.0f WRITEs/s "
	     "(%u commands)", E2E_N, E2E_LEN, t_accel, E2E_N / t_accel, n);
	if (peer1 - peer0 != (E2E_N + E2E_BATCH - 1) / E2E_BATCH)
		die("db_writes_peer went up by %" PRIu64 ", want %u (one per batch)",
		    peer1 - peer0, (E2E_N + E2E_BATCH - 1) / E2E_BATCH);
	put_file("e2e.cpu-doorbells", "%" PRIu64 " %" PRIu64 "\n", cpu1 - cpu0,
		 peer1 - peer0);
	note("doorbells during the run: CPU %" PRIu64 ", accelerator %" PRIu64,
	     cpu1 - cpu0, peer1 - peer0);
	snprintf(name, sizeof(name), "%s.sent", tag);
	put_file(name, "1\n");
	snprintf(name, sizeof(name), "%s.checked", tag);
	wait_file(name, NULL, 0, 300);

	/* the same work, posted by a host thread on a QP in host memory */
	{
		struct ibv_cq *hcq = ibv_create_cq(ctx, E2E_CQE, NULL, NULL, 0);
		struct ibv_qp *hqp = rc_qp(pd, hcq, E2E_SQ_WR);
		struct rc_end hme = {}, hpeer;
		uint32_t b, nb = (E2E_N + E2E_BATCH - 1) / E2E_BATCH, i;
		uint32_t inflight = E2E_SQ_WR / E2E_BATCH, done = 0;

		fill(src.map, (uint64_t)E2E_N * E2E_LEN, proxy_seed);
		hme.lid = me.lid;
		hme.qpn = hqp->qp_num;
		hme.psn = 0x5000;
		snprintf(name, sizeof(name), "%s.init", proxy_tag);
		rc_publish(name, &hme);
		snprintf(name, sizeof(name), "%s.target", proxy_tag);
		rc_lookup(name, &hpeer, 300);
		rc_connect(hqp, &hme, &hpeer);
		t0 = now();
		for (b = 0; b < nb; b++) {
			struct ibv_send_wr wr[E2E_BATCH], *bad;
			struct ibv_sge sge[E2E_BATCH];
			uint32_t first = b * E2E_BATCH, k = 0;

			if (b >= inflight + done) {
				drain(hcq, 1, 60);
				done++;
			}
			for (i = first; i < E2E_N && i < first + E2E_BATCH; i++, k++) {
				sge[k] = (struct ibv_sge){
					.addr = (uint64_t)i * E2E_LEN,
					.length = E2E_LEN, .lkey = mr->lkey,
				};
				wr[k] = (struct ibv_send_wr){
					.wr_id = i, .sg_list = &sge[k], .num_sge = 1,
					.opcode = IBV_WR_RDMA_WRITE,
					.next = &wr[k + 1],
					.wr.rdma = {
						.remote_addr = hpeer.addr +
							(uint64_t)i * E2E_LEN,
						.rkey = hpeer.rkey,
					},
				};
			}
			wr[k - 1].next = NULL;
			wr[k - 1].send_flags = IBV_SEND_SIGNALED;
			if (ibv_post_send(hqp, wr, &bad))
				die("ibv_post_send: %s", strerror(errno));
		}
		drain(hcq, nb - done, 60);
		t_host = now() - t0;
		note("a host thread posted the same %u WRITEs in %.3f s: %.0f "
		     "WRITEs/s", E2E_N, t_host, E2E_N / t_host);
		snprintf(name, sizeof(name), "%s.sent", proxy_tag);
		put_file(name, "1\n");
		snprintf(name, sizeof(name), "%s.checked", proxy_tag);
		wait_file(name, NULL, 0, 300);
		put_file("e2e.rates", "%.1f %.1f %.3f\n", E2E_N / t_accel,
			 E2E_N / t_host, t_host / t_accel);
		note("accelerator-initiated / host-posted message rate: %.2f",
		     t_host / t_accel);
		ibv_destroy_qp(hqp);
		ibv_destroy_cq(hcq);
	}
	free(prog);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	sfab_accel_release_import(&accel, d.handle);
	sfab_accel_free(&accel, &src);
	sfab_accel_free(&accel, &q);
	ibv_dealloc_pd(pd);
}

/*
 * gda/accel-rdma-write-e2e: the initiator's accelerator posts 1000 RDMA
 * WRITEs from its memory to the target's accelerator memory: it writes
 * every WQE into the SQ in its memory, publishes the doorbell record,
 * rings the HCA's doorbell peer-to-peer and polls the CQEs in its
 * memory, consuming them through the CQ's record; the target checks
 * every byte.  The same work posted by a host thread gives the
 * comparison.
 */
static int t_e2e(const char *ibdev)
{
	const char *role = getenv("SFAB_GDA_ROLE") ?: "";
	struct ibv_context *ctx = open_ibdev(ibdev);

	accel_open();
	if (!strcmp(role, "initiator")) {
		e2e_init(ibdev, ctx, "e2e", 7, "e2e-host", 8);
	} else {
		e2e_target(ctx, "e2e", 7);
		e2e_target(ctx, "e2e-host", 8);
	}
	ibv_close_device(ctx);
	sfab_accel_close(&accel);
	return 0;
}

/*
 * gda/zero-cpu-doorbells: during the accelerator's run of
 * gda/accel-rdma-write-e2e the initiator's CPU wrote no doorbell at all
 * (db_writes_cpu did not move), and the accelerator wrote one per batch
 * (db_writes_peer), read from the HCA's per-source counters.
 */
static int t_zero_cpu(const char *ibdev)
{
	char line[128];
	unsigned long long cpu, peer;

	(void)ibdev;
	wait_file("e2e.cpu-doorbells", line, sizeof(line), 5);
	if (sscanf(line, "%llu %llu", &cpu, &peer) != 2)
		die("e2e.cpu-doorbells: '%s'", line);
	if (peer != (E2E_N + E2E_BATCH - 1) / E2E_BATCH)
		die("the accelerator wrote %llu doorbells, want %u", peer,
		    (E2E_N + E2E_BATCH - 1) / E2E_BATCH);
	if (cpu)
		die("the CPU wrote %llu doorbells during the accelerator's run", cpu);
	note("CPU doorbells 0, accelerator doorbells %llu, for %u WRITEs", peer,
	     E2E_N);
	return 0;
}

/* write @val to sysfs file @path */
static void sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write '%s' to %s: %s", val, path, strerror(errno));
	close(fd);
}

/*
 * gda/revoke-on-unbind: the HCA's driver unbound while a process holds a
 * context whose doorbell page the accelerator imported, and while a
 * program that stores to that page waits in the accelerator's ring: the
 * export is revoked (the accelerator's driver is told, move_notify), the
 * waiting store is turned into a NOP and counted (revoked_dropped), it
 * never reaches the HCA (db_writes_peer unchanged after a rebind), the
 * rest of the program runs, and nothing oopses.  The HCA binds again.
 */
static int t_revoke_on_unbind(const char *ibdev)
{
	struct ibv_context *ctx = open_ibdev(ibdev);
	struct sfab_accel_ioc_info i0, i1;
	struct sfab_accel_ioc_wait w;
	struct sfab_accel_cmd c[4];
	struct sfab_accel_mem m;
	char dev[256], bdf[64], path[300];
	uint64_t peer0, peer1, seq;
	struct db_import d;
	ssize_t l;
	int err, i;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", ibdev);
	l = readlink(path, dev, sizeof(dev) - 1);
	if (l < 0)
		die("%s: %s", path, strerror(errno));
	dev[l] = 0;
	snprintf(bdf, sizeof(bdf), "%s", strrchr(dev, '/') + 1);

	accel_open();
	accel_alloc(4096, &m);
	err = db_import(ctx, &d);
	if (err)
		die("doorbell page export + import: %s", strerror(-err));
	peer0 = hw_counter(ibdev, "db_writes_peer");
	if (sfab_accel_info(&accel, &i0))
		die("INFO failed");

	/* wait for a word we set after the unbind, then ring the doorbell */
	*(volatile uint32_t *)m.map = 0;
	sfab_accel_cmd_poll32(&c[0], m.bus_addr, ~0U, 1, 60000000000ULL / 6);
	sfab_accel_cmd_store64(&c[1], d.bus + d.attr.sq_offset,
			       sfab_db_val(0xfffffe, 1, 0));
	sfab_accel_cmd_store32(&c[2], m.bus_addr + 4, 0xd0e);
	err = sfab_accel_submit(&accel, c, 3, &seq);
	if (err)
		die("SUBMIT: %s", strerror(-err));
	usleep(200000);

	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/sfab/unbind");
	sysfs_write(path, bdf);
	note("unbound %s from sfab with the context open", bdf);
	*(volatile uint32_t *)m.map = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	err = sfab_accel_wait(&accel, seq, 20000, &w);
	if (err)
		die("the program after the revocation: %s (%s at %u)",
		    strerror(-err), sfab_accel_err_str(w.err_code), w.err_index);
	if (*(volatile uint32_t *)((uint8_t *)m.map + 4) != 0xd0e)
		die("the program's last store did not run");
	if (sfab_accel_info(&accel, &i1))
		die("INFO failed");
	if (i1.counters.revokes != i0.counters.revokes + 1 ||
	    i1.counters.revoked_dropped != i0.counters.revoked_dropped + 1)
		die("revokes %llu -> %llu, revoked_dropped %llu -> %llu: want +1 each",
		    (unsigned long long)i0.counters.revokes,
		    (unsigned long long)i1.counters.revokes,
		    (unsigned long long)i0.counters.revoked_dropped,
		    (unsigned long long)i1.counters.revoked_dropped);
	note("revoked: the waiting doorbell store became a NOP (revoked_dropped +1)");
	/* the context is dead; its verbs fail, closing it works */
	if (ibv_alloc_pd(ctx))
		die("alloc_pd on a context of an unbound device succeeded");
	ibv_close_device(ctx);
	sfab_accel_release_import(&accel, d.handle);

	sysfs_write("/sys/bus/pci/drivers/sfab/bind", bdf);
	for (i = 0; i < 100; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/db_writes_peer",
			 ibdev);
		if (!access(path, R_OK))
			break;
		usleep(100000);
	}
	peer1 = hw_counter(ibdev, "db_writes_peer");
	if (peer1 != peer0)
		die("db_writes_peer %" PRIu64 " -> %" PRIu64 ": the revoked store "
		    "reached the HCA", peer0, peer1);
	note("bound again: db_writes_peer unchanged (%" PRIu64 ")", peer1);
	sfab_accel_free(&accel, &m);
	sfab_accel_close(&accel);
	return 0;
}

/*
 * gda/peermem-client: accelerator memory registered by its virtual
 * address (ibv_reg_mr on an mmap of an sfab-accel buffer), through sfab's
 * OFED-compatible peer-memory API and the accelerator's client module
 * sfab_accel_peermem.ko.  Without the client the registration fails (the
 * pages are no user memory that can be pinned); with it the target's MR
 * takes the initiator's RDMA WRITEs, checked byte for byte; then the
 * target frees the buffer under the live MR: the client invalidates it,
 * and the initiator's next WRITE fails with a remote access error
 * instead of reaching memory that is no longer the buffer's.  The
 * deregistration after that works.
 */
#define PM_LEN		(256U << 10)

static int t_peermem(const char *ibdev)
{
	const char *role = getenv("SFAB_GDA_ROLE") ?: "";
	bool init = !strcmp(role, "initiator");
	struct ibv_context *ctx = open_ibdev(ibdev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = rc_qp(pd, cq, 8);
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct rc_end me = {}, peer;
	struct ibv_mr *mr;
	char line[64];

	me.lid = port_lid(ctx);
	me.qpn = qp->qp_num;
	me.psn = init ? 0x6000 : 0x7000;

	if (!init) {
		struct sfab_accel_mem m;
		int64_t bad;

		accel_open();
		accel_alloc(PM_LEN, &m);
		memset(m.map, 0, PM_LEN);
		/* SFAB_PEERMEM_LOADED: the script loaded the client */
		if (!getenv("SFAB_PEERMEM_LOADED")) {
			mr = ibv_reg_mr(pd, m.map, PM_LEN, acc);
			if (mr)
				die("ibv_reg_mr of accelerator memory worked without "
				    "a peer-memory client");
			note("without the client: ibv_reg_mr refused (%s)",
			     strerror(errno));
			return 0;
		}
		mr = ibv_reg_mr(pd, m.map, PM_LEN, acc);
		if (!mr)
			die("ibv_reg_mr of accelerator memory through the "
			    "peer-memory client: %s", strerror(errno));
		me.addr = (uintptr_t)m.map;
		me.rkey = mr->rkey;
		me.len = PM_LEN;
		rc_publish("pm.target", &me);
		rc_lookup("pm.init", &peer, 120);
		rc_connect(qp, &me, &peer);
		wait_file("pm.written", line, sizeof(line), 300);
		bad = check(m.map, PM_LEN, 11);
		if (bad >= 0)
			die("byte %" PRId64 " of the WRITE wrong in accelerator memory",
			    bad);
		note("an RDMA WRITE of %u KiB landed in accelerator memory "
		     "registered through the peer-memory client", PM_LEN >> 10);
		/* free the memory under the MR: the client invalidates it */
		if (sfab_accel_free(&accel, &m))
			die("FREE of the registered buffer failed");
		put_file("pm.freed", "1\n");
		wait_file("pm.refused", line, sizeof(line), 300);
		if (ibv_dereg_mr(mr))
			die("dereg of the invalidated MR: %s", strerror(errno));
		note("the buffer freed under the MR: invalidated; dereg worked");
		sfab_accel_close(&accel);
	} else {
		uint8_t *buf = malloc(PM_LEN);
		struct ibv_send_wr wr = {
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED, .num_sge = 1,
		}, *badwr;
		struct ibv_sge sge;
		struct ibv_wc wc;
		double end;
		int n;

		if (!buf)
			die("out of memory");
		fill(buf, PM_LEN, 11);
		mr = ibv_reg_mr(pd, buf, PM_LEN, acc);
		if (!mr)
			die("reg_mr: %s", strerror(errno));
		rc_publish("pm.init", &me);
		rc_lookup("pm.target", &peer, 300);
		rc_connect(qp, &me, &peer);
		sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = PM_LEN,
					.lkey = mr->lkey };
		wr.sg_list = &sge;
		wr.wr.rdma.remote_addr = peer.addr;
		wr.wr.rdma.rkey = peer.rkey;
		if (ibv_post_send(qp, &wr, &badwr))
			die("post: %s", strerror(errno));
		drain(cq, 1, 60);
		put_file("pm.written", "1\n");
		wait_file("pm.freed", line, sizeof(line), 300);
		sge.length = 4096;
		if (ibv_post_send(qp, &wr, &badwr))
			die("post: %s", strerror(errno));
		end = now() + 60;
		while (!(n = ibv_poll_cq(cq, 1, &wc)) && now() < end)
			;
		if (n != 1)
			die("no completion for the WRITE to the freed buffer");
		if (wc.status != IBV_WC_REM_ACCESS_ERR)
			die("the WRITE to the invalidated MR completed with '%s', "
			    "want remote access error", ibv_wc_status_str(wc.status));
		note("a WRITE to the freed buffer's MR: remote access error");
		put_file("pm.refused", "1\n");
		ibv_dereg_mr(mr);
		free(buf);
	}
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}

/*
 * gda/dmabuf-mr-move: a dma-buf MR over memory that moves.  The target
 * registers accelerator memory through a dma-buf with sfab's dynamic
 * importer, and the accelerator's driver plays an exporter that moves the
 * buffer (SFAB_ACCEL_IOCTL_MOVE_DMABUF: move_notify, then a fence that
 * holds the next mapping until the move ends).  During the move the
 * initiator's RDMA WRITE is refused (remote access error) and nothing of
 * it lands; once the move ends the MR maps again with the same keys and
 * WRITEs land; after a move whose memory is gone for good the MR stays
 * invalid, refuses WRITEs, and deregisters.  A move of a buffer a pinned
 * importer holds (a CQ in a dma-buf) is refused with EBUSY.
 */
#define MV_LEN		(64U << 10)
#define MV_NQP		8

/* one RDMA WRITE of @len bytes from @lkey's 0 to @pe's buffer: its status */
static enum ibv_wc_status mv_write(struct ibv_qp *qp, struct ibv_cq *cq,
				   uint32_t lkey, const struct rc_end *pe)
{
	struct ibv_sge sge = { .addr = 0, .length = MV_LEN, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = pe->addr, .rkey = pe->rkey },
	}, *bad;
	double end = now() + 60;
	struct ibv_wc wc;
	int k;

	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send: %s", strerror(errno));
	while (!(k = ibv_poll_cq(cq, 1, &wc)))
		if (now() > end)
			die("no completion for the WRITE after 60 s");
	if (k < 0)
		die("ibv_poll_cq: %d", k);
	return wc.status;
}

/*
 * MV_NQP RC QPs on @cq connected one to one with the peer's: this side's
 * ends (@me's lid, rkey, len; psn @psn0 + i) go out as lab files
 * mv.@mine.i, the peer's come from mv.@theirs.i into @pe.
 */
static void mv_qps(struct ibv_pd *pd, struct ibv_cq *cq, struct rc_end *me,
		   uint32_t psn0, const char *mine, const char *theirs,
		   struct ibv_qp **qp, struct rc_end *pe)
{
	char name[32];
	int i;

	for (i = 0; i < MV_NQP; i++) {
		qp[i] = rc_qp(pd, cq, 4);
		me->qpn = qp[i]->qp_num;
		me->psn = psn0 + i;
		snprintf(name, sizeof(name), "mv.%s.%d", mine, i);
		rc_publish(name, me);
	}
	for (i = 0; i < MV_NQP; i++) {
		snprintf(name, sizeof(name), "mv.%s.%d", theirs, i);
		rc_lookup(name, &pe[i], 300);
		me->qpn = qp[i]->qp_num;
		me->psn = psn0 + i;
		rc_connect(qp[i], me, &pe[i]);
	}
}

static void mv_initiator(struct ibv_context *ctx)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp[MV_NQP];
	struct rc_end me = {}, pe[MV_NQP];
	enum ibv_wc_status st;
	struct ibv_mr *mr;
	void *src;
	int q = 0, i;

	src = aligned_alloc(4096, MV_LEN);
	if (!src)
		die("out of memory");
	mr = ibv_reg_mr_iova(pd, src, MV_LEN, 0, acc);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	me.lid = port_lid(ctx);
	mv_qps(pd, cq, &me, 0x6000, "init", "target", qp, pe);

	/* before: a WRITE lands */
	wait_file("mv.ready", NULL, 0, 300);
	fill(src, MV_LEN, 31);
	st = mv_write(qp[q++], cq, mr->lkey, &pe[0]);
	if (st != IBV_WC_SUCCESS)
		die("WRITE before any move: %s", ibv_wc_status_str(st));
	put_file("mv.written", "1\n");

	/* during the move: refused */
	wait_file("mv.moving", NULL, 0, 300);
	fill(src, MV_LEN, 32);
	st = mv_write(qp[q], cq, mr->lkey, &pe[q]);
	q++;
	if (st != IBV_WC_REM_ACCESS_ERR)
		die("WRITE during the move: %s, want remote access error",
		    ibv_wc_status_str(st));
	note("during the move the WRITE was refused: %s", ibv_wc_status_str(st));
	put_file("mv.refused", "1\n");

	/* after: the MR maps again (the re-map runs after the fence, async) */
	wait_file("mv.moved", NULL, 0, 300);
	fill(src, MV_LEN, 33);
	for (;;) {
		if (q == MV_NQP - 1)
			die("the MR did not map again after the move");
		st = mv_write(qp[q], cq, mr->lkey, &pe[q]);
		q++;
		if (st == IBV_WC_SUCCESS)
			break;
		if (st != IBV_WC_REM_ACCESS_ERR)
			die("WRITE after the move: %s", ibv_wc_status_str(st));
		usleep(300000);
	}
	note("after the move a WRITE landed (attempt %d)", q - 2);
	put_file("mv.rewritten", "1\n");

	/* a move whose memory is gone: refused for good */
	wait_file("mv.gone", NULL, 0, 300);
	fill(src, MV_LEN, 34);
	st = mv_write(qp[MV_NQP - 1], cq, mr->lkey, &pe[MV_NQP - 1]);
	if (st != IBV_WC_REM_ACCESS_ERR)
		die("WRITE after the memory went: %s, want remote access error",
		    ibv_wc_status_str(st));
	put_file("mv.gone-refused", "1\n");
	wait_file("mv.done", NULL, 0, 300);

	for (i = 0; i < MV_NQP; i++)
		ibv_destroy_qp(qp[i]);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	free(src);
}

static void mv_expect(int err, int want, const char *what)
{
	if (err != want)
		die("%s: %s, want %s", what, strerror(-err), strerror(-want));
}

static void mv_target(struct ibv_context *ctx)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct sfabdv_cq_init_attr cia = {};
	struct ibv_qp *qp[MV_NQP];
	struct rc_end me = {}, pe[MV_NQP];
	struct sfab_accel_mem m, qm;
	struct ibv_cq *pcq;
	struct ibv_mr *mr;
	int fd, qfd, i;
	int64_t bad;

	accel_open();
	accel_alloc(MV_LEN, &m);
	memset(m.map, 0, MV_LEN);
	fd = sfab_accel_export(&accel, m.handle, 0, MV_LEN);
	if (fd < 0)
		die("EXPORT_DMABUF: %s", strerror(-fd));
	mr = ibv_reg_dmabuf_mr(pd, 0, MV_LEN, 0, fd, acc);
	if (!mr)
		die("ibv_reg_dmabuf_mr: %s", strerror(errno));

	/* a pinned importer (a CQ in a dma-buf) keeps its buffer in place */
	accel_alloc(65536, &qm);
	qfd = sfab_accel_export(&accel, qm.handle, 0, 65536);
	if (qfd < 0)
		die("EXPORT_DMABUF: %s", strerror(-qfd));
	cia.cqe = 16;
	cia.dmabuf_fd = qfd;
	pcq = sfabdv_create_cq(ctx, &cia);
	if (!pcq)
		die("sfabdv_create_cq: %s", strerror(errno));
	mv_expect(sfab_accel_move(&accel, qfd, SFAB_ACCEL_MOVE_BEGIN), -EBUSY,
		  "a move of a buffer a pinned importer holds");
	mv_expect(sfab_accel_move(&accel, fd, SFAB_ACCEL_MOVE_END), -EBUSY,
		  "END with no move under way");
	mv_expect(sfab_accel_move(&accel, fd, 0), -EINVAL, "an unknown op");
	mv_expect(sfab_accel_move(&accel, accel.fd, SFAB_ACCEL_MOVE_BEGIN),
		  -EINVAL, "a move of an fd that is no dma-buf");

	me.lid = port_lid(ctx);
	me.rkey = mr->rkey;
	me.len = MV_LEN;
	mv_qps(pd, cq, &me, 0x7000, "target", "init", qp, pe);
	put_file("mv.ready", "1\n");

	wait_file("mv.written", NULL, 0, 300);
	bad = check(m.map, MV_LEN, 31);
	if (bad >= 0)
		die("before the move: byte %" PRId64 " wrong", bad);

	mv_expect(sfab_accel_move(&accel, fd, SFAB_ACCEL_MOVE_BEGIN), 0,
		  "MOVE BEGIN");
	mv_expect(sfab_accel_move(&accel, fd, SFAB_ACCEL_MOVE_BEGIN), -EBUSY,
		  "a second BEGIN during the move");
	put_file("mv.moving", "1\n");
	wait_file("mv.refused", NULL, 0, 300);
	bad = check(m.map, MV_LEN, 31);
	if (bad >= 0)
		die("the WRITE refused during the move changed byte %" PRId64, bad);
	mv_expect(sfab_accel_move(&accel, fd, SFAB_ACCEL_MOVE_END), 0, "MOVE END");
	put_file("mv.moved", "1\n");

	wait_file("mv.rewritten", NULL, 0, 300);
	bad = check(m.map, MV_LEN, 33);
	if (bad >= 0)
		die("after the move: byte %" PRId64 " wrong", bad);
	note("the MR mapped again after the move: same rkey %#x, the WRITE "
	     "landed", mr->rkey);

	mv_expect(sfab_accel_move(&accel, fd, SFAB_ACCEL_MOVE_BEGIN), 0,
		  "MOVE BEGIN (the second)");
	mv_expect(sfab_accel_move(&accel, fd, SFAB_ACCEL_MOVE_END_GONE), 0,
		  "MOVE END_GONE");
	put_file("mv.gone", "1\n");
	wait_file("mv.gone-refused", NULL, 0, 300);
	bad = check(m.map, MV_LEN, 33);
	if (bad >= 0)
		die("a WRITE after the memory went changed byte %" PRId64, bad);
	mv_expect(sfab_accel_move(&accel, fd, SFAB_ACCEL_MOVE_BEGIN), -ENODEV,
		  "a move of an export whose memory is gone");
	if (ibv_dereg_mr(mr))
		die("dereg of the MR that stayed invalid: %s", strerror(errno));
	note("memory gone for good: the MR stayed invalid, refused the WRITE, "
	     "deregistered");
	put_file("mv.done", "1\n");

	for (i = 0; i < MV_NQP; i++)
		ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(pcq);
	close(qfd);
	close(fd);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	sfab_accel_free(&accel, &qm);
	sfab_accel_free(&accel, &m);
	sfab_accel_close(&accel);
}

static int t_dmabuf_mr_move(const char *ibdev)
{
	const char *role = getenv("SFAB_GDA_ROLE") ?: "";
	struct ibv_context *ctx = open_ibdev(ibdev);

	if (!strcmp(role, "initiator"))
		mv_initiator(ctx);
	else
		mv_target(ctx);
	ibv_close_device(ctx);
	return 0;
}

/*
 * gda/accel-alltoall: the exchange of expert-parallel training's MoE
 * dispatch and combine as DeepEP does it over IBGDA.  Every node's
 * accelerator RDMA WRITEs one block to every other node's accelerator
 * memory and a flag behind it on the same RC QP (the responder places
 * them in order), then waits until the flags of every block addressed to
 * it have landed in its memory; all posting (WQEs, records, doorbells)
 * and polling (flags, CQEs) by the accelerators.  A2A_ROUNDS timed
 * rounds follow an untimed one that lines the nodes up.
 *
 * Then the same exchange proxied by host threads, as a GPU without
 * IBGDA does it: for each round the accelerator's program writes a
 * request word into host memory (a udmabuf it imports), the host thread
 * sees it, posts the same WRITEs on QPs in host memory and reaps their
 * completions, and the accelerator waits for the flags itself.  Every
 * block is checked where it landed; each node's completion times go to
 * the lab share for run-gda.
 */
#define A2A_MAX_NODES	8
#define A2A_ROUNDS	8		/* timed; round 0 lines the nodes up */
#define A2A_NR		(A2A_ROUNDS + 1)
#define A2A_BLK		(16U << 10)
#define A2A_FLAGS	4096		/* flag words, ahead of the blocks */
#define A2A_QREGION	65536		/* one per QP; the CQ in the first */
#define A2A_SQ_WR	16
#define A2A_CQE		64

enum { A2A_ACCEL, A2A_PROXY, A2A_NVAR };
static const char *const a2a_var[A2A_NVAR] = { "accel", "proxy" };

struct a2a {
	int nn, me;			/* nodes, this node's index */
	char name[A2A_MAX_NODES][32];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct sfab_accel_mem q, snd, rcv;
	struct ibv_mr *smr, *rmr;
	struct ibv_cq *cq, *hcq;
	struct ibv_qp *qp[A2A_NVAR][A2A_MAX_NODES];
	struct rc_end peer[A2A_NVAR][A2A_MAX_NODES];
	struct sfabdv_cq_attr ca;
	struct sfabdv_qp_attr qa[A2A_MAX_NODES];
	uint16_t pi[A2A_MAX_NODES], ci;
	struct db_import d;
	/* the proxy's request words: host memory the accelerator imports */
	volatile uint32_t *req;
	int memfd, ubfd;
	uint32_t req_handle;
	uint64_t req_bus, req_len;
};

/* the flag node @src writes in round @r of variant @v */
static uint32_t a2a_flag(int v, int r, int src)
{
	return 0x5a000000U | (uint32_t)v << 16 | (uint32_t)r << 8 | src;
}

static uint32_t a2a_seed(int r, int src, int dst)
{
	return 0xa2a00000U ^ (uint32_t)r << 16 ^ (uint32_t)src << 8 ^ dst;
}

/* offsets in the send buffer: flag sources, then blocks */
static uint64_t a2a_sflag(int v, int r, int dst)
{
	return ((uint64_t)(v * A2A_NR + r) * A2A_MAX_NODES + dst) * 8;
}

static uint64_t a2a_sblk(const struct a2a *a, int r, int dst)
{
	return A2A_FLAGS + ((uint64_t)r * a->nn + dst) * A2A_BLK;
}

/* offsets in the receive buffer: flags, then blocks */
static uint64_t a2a_rflag(int v, int r, int src)
{
	return a2a_sflag(v, r, src);
}

static uint64_t a2a_rblk(const struct a2a *a, int v, int r, int src)
{
	return A2A_FLAGS + ((uint64_t)(v * A2A_NR + r) * a->nn + src) * A2A_BLK;
}

/* every node writes lab file a2a.@what.NODE, then waits for the others' */
static void a2a_barrier(const struct a2a *a, const char *what, double secs)
{
	char f[96];
	int i;

	snprintf(f, sizeof(f), "a2a.%s.%s", what, a->name[a->me]);
	put_file(f, "1\n");
	for (i = 0; i < a->nn; i++) {
		snprintf(f, sizeof(f), "a2a.%s.%s", what, a->name[i]);
		wait_file(f, NULL, 0, secs);
	}
}

static void a2a_nodes(struct a2a *a)
{
	const char *nodes = getenv("SFAB_GDA_NODES");
	const char *me = getenv("SFAB_GDA_ME");
	char buf[512], *tok, *save;

	if (!nodes || !me)
		die("SFAB_GDA_NODES and SFAB_GDA_ME are not set");
	snprintf(buf, sizeof(buf), "%s", nodes);
	a->me = -1;
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (a->nn == A2A_MAX_NODES)
			die("more than %d nodes", A2A_MAX_NODES);
		snprintf(a->name[a->nn], sizeof(a->name[0]), "%s", tok);
		if (!strcmp(tok, me))
			a->me = a->nn;
		a->nn++;
	}
	if (a->me < 0 || a->nn < 2)
		die("'%s' is not one of %d nodes '%s'", me, a->nn, nodes);
}

/* the proxy's request page: a memfd page as a udmabuf, the accelerator imports it */
static void a2a_req_page(struct a2a *a)
{
	struct udmabuf_create uc = {};
	long pg = sysconf(_SC_PAGESIZE);
	int dev, err;
	void *p;

	a->memfd = memfd_create("a2a-req", MFD_ALLOW_SEALING);
	if (a->memfd < 0 || ftruncate(a->memfd, pg) ||
	    fcntl(a->memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		die("memfd for the proxy's requests: %s", strerror(errno));
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, a->memfd, 0);
	if (p == MAP_FAILED)
		die("mmap of the memfd: %s", strerror(errno));
	memset(p, 0, pg);
	a->req = p;
	dev = open("/dev/udmabuf", O_RDWR);
	if (dev < 0)
		die("/dev/udmabuf: %s", strerror(errno));
	uc.memfd = a->memfd;
	uc.offset = 0;
	uc.size = pg;
	a->ubfd = ioctl(dev, UDMABUF_CREATE, &uc);
	close(dev);
	if (a->ubfd < 0)
		die("UDMABUF_CREATE: %s", strerror(errno));
	err = sfab_accel_import(&accel, a->ubfd, &a->req_handle, &a->req_bus,
				&a->req_len);
	if (err)
		die("the accelerator's IMPORT_DMABUF of host memory: %s",
		    strerror(-err));
	if (a->req_len < (uint64_t)A2A_NR * 4)
		die("the imported request page has %" PRIu64 " bytes", a->req_len);
}

/* queues: a CQ and a QP per peer in accelerator memory, QPs in host memory */
static void a2a_queues(struct a2a *a)
{
	struct sfabdv_cq_init_attr cia = {};
	uint64_t qlen = (uint64_t)A2A_QREGION * (a->nn + 1);
	int qfd, p;

	accel_alloc(qlen, &a->q);
	memset(a->q.map, 0, qlen);
	qfd = sfab_accel_export(&accel, a->q.handle, 0, qlen);
	if (qfd < 0)
		die("EXPORT_DMABUF of the queue memory: %s", strerror(-qfd));
	cia.cqe = A2A_CQE;
	cia.dmabuf_fd = qfd;
	a->cq = sfabdv_create_cq(a->ctx, &cia);
	if (!a->cq)
		die("sfabdv_create_cq in accelerator memory: %s", strerror(errno));
	if (sfabdv_query_cq(a->cq, &a->ca, sizeof(a->ca)))
		die("sfabdv_query_cq: %s", strerror(errno));
	a->hcq = ibv_create_cq(a->ctx, A2A_CQE, NULL, NULL, 0);
	for (p = 0; p < a->nn; p++) {
		struct ibv_qp_init_attr_ex qx = {};
		struct sfabdv_qp_init_attr qia = {};

		if (p == a->me)
			continue;
		qx.comp_mask = IBV_QP_INIT_ATTR_PD;
		qx.pd = a->pd;
		qx.send_cq = a->cq;
		qx.recv_cq = a->cq;
		qx.qp_type = IBV_QPT_RC;
		qx.cap.max_send_wr = A2A_SQ_WR;
		qx.cap.max_recv_wr = 1;
		qx.cap.max_send_sge = 1;
		qx.cap.max_recv_sge = 1;
		qia.dmabuf_fd = qfd;
		qia.sq_offset = (uint64_t)A2A_QREGION * (p + 1);
		qia.rq_offset = qia.sq_offset + A2A_QREGION / 2;
		a->qp[A2A_ACCEL][p] = sfabdv_create_qp(a->ctx, &qx, &qia);
		if (!a->qp[A2A_ACCEL][p])
			die("sfabdv_create_qp %d in accelerator memory: %s", p,
			    strerror(errno));
		if (sfabdv_query_qp(a->qp[A2A_ACCEL][p], &a->qa[p], sizeof(a->qa[p])))
			die("sfabdv_query_qp: %s", strerror(errno));
		if (!(a->qa[p].flags & SFABDV_QUEUE_DBREC))
			die("a QP in accelerator memory without doorbell records");
		a->qp[A2A_PROXY][p] = rc_qp(a->pd, a->hcq, A2A_SQ_WR);
	}
	close(qfd);
	if (!(a->ca.flags & SFABDV_QUEUE_DBREC))
		die("a CQ in accelerator memory without a doorbell record");
}

/* publish every QP's end, look up the peers', connect */
static void a2a_connect(struct a2a *a)
{
	uint16_t lid = port_lid(a->ctx);
	char f[96];
	int v, p;

	for (v = 0; v < A2A_NVAR; v++)
		for (p = 0; p < a->nn; p++) {
			struct rc_end e = {
				.lid = lid, .addr = 0, .rkey = a->rmr->rkey,
				.len = a->rmr->length,
				.psn = 0x100 * (v + 1) + a->me,
			};

			if (p == a->me)
				continue;
			e.qpn = a->qp[v][p]->qp_num;
			snprintf(f, sizeof(f), "a2a.%s.%s-%s", a2a_var[v],
				 a->name[a->me], a->name[p]);
			rc_publish(f, &e);
		}
	for (v = 0; v < A2A_NVAR; v++)
		for (p = 0; p < a->nn; p++) {
			struct rc_end me = { .psn = 0x100 * (v + 1) + a->me };

			if (p == a->me)
				continue;
			snprintf(f, sizeof(f), "a2a.%s.%s-%s", a2a_var[v],
				 a->name[p], a->name[a->me]);
			rc_lookup(f, &a->peer[v][p], 900);
			rc_connect(a->qp[v][p], &me, &a->peer[v][p]);
		}
}

/* append to @c: node @a's WRITEs of round @r (block, then flag) to peer @p */
static uint32_t a2a_post(struct a2a *a, struct sfab_accel_cmd *c, int r, int p)
{
	const struct sfabdv_qp_attr *qa = &a->qa[p];
	const struct rc_end *pe = &a->peer[A2A_ACCEL][p];
	uint64_t qbus = a->q.bus_addr;
	uint32_t n = 0;
	int k;

	for (k = 0; k < 2; k++) {
		struct sfab_wqe_rdma_1sge w;
		uint64_t slot = qbus + qa->sq_offset +
			((uint64_t)sfab_ring_slot(a->pi[p], qa->sq_log_depth) <<
			 qa->sq_log_stride);

		if (!k)
			sfab_wqe_rdma_1sge(&w, SFAB_WQE_RDMA_WRITE, 0, r,
					   pe->addr + a2a_rblk(a, A2A_ACCEL, r, a->me),
					   pe->rkey, a2a_sblk(a, r, p), A2A_BLK,
					   a->smr->lkey);
		else
			sfab_wqe_rdma_1sge(&w, SFAB_WQE_RDMA_WRITE,
					   SFAB_WQE_SIGNALED, r,
					   pe->addr + a2a_rflag(A2A_ACCEL, r, a->me),
					   pe->rkey, a2a_sflag(A2A_ACCEL, r, p), 4,
					   a->smr->lkey);
		sfab_accel_cmd_write_imm(&c[n++], slot, &w, sizeof(w));
		a->pi[p]++;
	}
	return n + accel_ring_sq(&c[n], qa, qbus, a->d.bus, a->pi[p]);
}

/* append to @c: wait for every peer's flag of round @r of variant @v */
static uint32_t a2a_wait_flags(const struct a2a *a, struct sfab_accel_cmd *c,
			       int v, int r)
{
	uint32_t n = 0;
	int s;

	for (s = 0; s < a->nn; s++)
		if (s != a->me)
			sfab_accel_cmd_poll32(&c[n++], a->rcv.bus_addr +
					      a2a_rflag(v, r, s), 0xffffffffU,
					      a2a_flag(v, r, s),
					      SFAB_ACCEL_POLL_TIMEOUT_MAX_NS);
	return n;
}

/* the accelerator's program for rounds [r0, r1), posting itself */
static uint32_t a2a_program(struct a2a *a, struct sfab_accel_cmd *c, int r0,
			    int r1)
{
	uint32_t n = 0;
	int r, p;

	for (r = r0; r < r1; r++) {
		for (p = 0; p < a->nn; p++)
			if (p != a->me)
				n += a2a_post(a, &c[n], r, p);
		n += a2a_wait_flags(a, &c[n], A2A_ACCEL, r);
		for (p = 0; p < a->nn - 1; p++)
			n += e2e_take_cqe(&c[n], &a->ca, a->q.bus_addr, a->ci++);
	}
	return n;
}

/* the accelerator's program for rounds [r0, r1), its host posting */
static uint32_t a2a_proxy_program(const struct a2a *a, struct sfab_accel_cmd *c,
				  int r0, int r1)
{
	uint32_t n = 0;
	int r;

	for (r = r0; r < r1; r++) {
		sfab_accel_cmd_store32(&c[n++], a->req_bus + 4 * r,
				       a2a_flag(A2A_PROXY, r, a->me));
		n += a2a_wait_flags(a, &c[n], A2A_PROXY, r);
	}
	return n;
}

/* the host thread: post round @r for the accelerator once it asks */
static void a2a_proxy_round(struct a2a *a, int r)
{
	double end = now() + 30;
	int p;

	while (__atomic_load_n(&a->req[r], __ATOMIC_ACQUIRE) !=
	       a2a_flag(A2A_PROXY, r, a->me))
		if (now() > end)
			die("the accelerator did not ask for round %d", r);
	for (p = 0; p < a->nn; p++) {
		const struct rc_end *pe = &a->peer[A2A_PROXY][p];
		struct ibv_send_wr wr[2], *bad;
		struct ibv_sge sge[2];

		if (p == a->me)
			continue;
		sge[0] = (struct ibv_sge){ .addr = a2a_sblk(a, r, p),
					   .length = A2A_BLK, .lkey = a->smr->lkey };
		sge[1] = (struct ibv_sge){ .addr = a2a_sflag(A2A_PROXY, r, p),
					   .length = 4, .lkey = a->smr->lkey };
		wr[0] = (struct ibv_send_wr){
			.wr_id = r, .sg_list = &sge[0], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE, .next = &wr[1],
			.wr.rdma = { .remote_addr = pe->addr +
					a2a_rblk(a, A2A_PROXY, r, a->me),
				     .rkey = pe->rkey },
		};
		wr[1] = (struct ibv_send_wr){
			.wr_id = r, .sg_list = &sge[1], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = pe->addr +
					a2a_rflag(A2A_PROXY, r, a->me),
				     .rkey = pe->rkey },
		};
		if (ibv_post_send(a->qp[A2A_PROXY][p], wr, &bad))
			die("ibv_post_send: %s", strerror(errno));
	}
	drain(a->hcq, a->nn - 1, 30);
}

/* run one variant's rounds [r0, r1); returns the seconds they took */
static double a2a_run(struct a2a *a, struct sfab_accel_cmd *prog, int v,
		      int r0, int r1)
{
	struct sfab_accel_ioc_wait w;
	uint64_t seq;
	uint32_t n;
	double t0;
	int err, r;

	if (v == A2A_ACCEL)
		n = a2a_program(a, prog, r0, r1);
	else
		n = a2a_proxy_program(a, prog, r0, r1);
	if (n > accel.info.max_submit)
		die("the program has %u commands, the ring takes %u", n,
		    accel.info.max_submit);
	t0 = now();
	err = sfab_accel_submit(&accel, prog, n, &seq);
	if (err)
		die("SUBMIT of %u commands: %s", n, strerror(-err));
	if (v == A2A_PROXY)
		for (r = r0; r < r1; r++)
			a2a_proxy_round(a, r);
	err = sfab_accel_wait(&accel, seq, 120000, &w);
	if (err)
		die("%s rounds %d-%d: %s, error %s at command %u", a2a_var[v],
		    r0, r1 - 1, strerror(-err), sfab_accel_err_str(w.err_code),
		    w.err_index);
	return now() - t0;
}

static int t_alltoall(const char *ibdev)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	const char *sm = getenv("SFAB_GDA_SM") ?: "";
	uint64_t slen, rlen, cpu0, cpu1, peer0, peer1, want;
	struct sfab_accel_cmd *prog;
	double t[A2A_NVAR];
	struct a2a *a;
	int v, r, p, err;
	char f[96];

	a = calloc(1, sizeof(*a));
	if (!a)
		die("out of memory");
	a2a_nodes(a);
	accel_open();
	prog = calloc(accel.info.max_submit, sizeof(*prog));
	if (!prog)
		die("out of memory");
	a->ctx = open_ibdev(ibdev);
	a->pd = ibv_alloc_pd(a->ctx);
	if (!a->pd)
		die("alloc_pd: %s", strerror(errno));

	/* the blocks this node sends, and the flags behind them */
	slen = a2a_sblk(a, A2A_NR, 0);
	accel_alloc(slen, &a->snd);
	for (r = 0; r < A2A_NR; r++)
		for (p = 0; p < a->nn; p++) {
			fill((uint8_t *)a->snd.map + a2a_sblk(a, r, p), A2A_BLK,
			     a2a_seed(r, a->me, p));
			for (v = 0; v < A2A_NVAR; v++)
				*(volatile uint32_t *)((uint8_t *)a->snd.map +
					a2a_sflag(v, r, p)) = a2a_flag(v, r, a->me);
		}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	rlen = a2a_rblk(a, A2A_NVAR, 0, 0);
	accel_alloc(rlen, &a->rcv);
	memset(a->rcv.map, 0, rlen);
	a->smr = accel_mr(a->pd, &a->snd, slen, acc);
	a->rmr = accel_mr(a->pd, &a->rcv, rlen, acc);
	a2a_queues(a);
	err = db_import(a->ctx, &a->d);
	if (err)
		die("doorbell page export + import: %s", strerror(-err));
	a2a_req_page(a);
	a2a_connect(a);
	note("%d nodes, this one %s: %d QPs in accelerator memory, %d in host "
	     "memory; blocks of %u bytes, 1 + %d rounds", a->nn,
	     a->name[a->me], a->nn - 1, a->nn - 1, A2A_BLK, A2A_ROUNDS);
	a2a_barrier(a, "connected", 900);

	/* the accelerators post: round 0 lines the nodes up, then timed */
	cpu0 = hw_counter(ibdev, "db_writes_cpu");
	peer0 = hw_counter(ibdev, "db_writes_peer");
	a2a_run(a, prog, A2A_ACCEL, 0, 1);
	t[A2A_ACCEL] = a2a_run(a, prog, A2A_ACCEL, 1, A2A_NR);
	cpu1 = hw_counter(ibdev, "db_writes_cpu");
	peer1 = hw_counter(ibdev, "db_writes_peer");
	want = (uint64_t)(a->nn - 1) * A2A_NR;
	if (peer1 - peer0 != want)
		die("db_writes_peer went up by %" PRIu64 ", want %" PRIu64
		    " (one per peer per round)", peer1 - peer0, want);
	note("accelerator-initiated: %d rounds in %.3f s, %.1f ms a round; "
	     "doorbells CPU %" PRIu64 ", accelerator %" PRIu64, A2A_ROUNDS,
	     t[A2A_ACCEL], 1e3 * t[A2A_ACCEL] / A2A_ROUNDS, cpu1 - cpu0,
	     peer1 - peer0);
	/* the SM's node rings for its MADs; every other CPU rang none */
	if (strcmp(sm, a->name[a->me]) && cpu1 != cpu0)
		die("the CPU wrote %" PRIu64 " doorbells while the accelerator "
		    "posted", cpu1 - cpu0);
	a2a_barrier(a, "accel-done", 300);

	/* host threads post on the accelerators' behalf */
	a2a_run(a, prog, A2A_PROXY, 0, 1);
	t[A2A_PROXY] = a2a_run(a, prog, A2A_PROXY, 1, A2A_NR);
	note("host-proxied: %d rounds in %.3f s, %.1f ms a round",
	     A2A_ROUNDS, t[A2A_PROXY], 1e3 * t[A2A_PROXY] / A2A_ROUNDS);

	/* every block addressed to this node, from every peer, both ways */
	for (v = 0; v < A2A_NVAR; v++)
		for (r = 0; r < A2A_NR; r++)
			for (p = 0; p < a->nn; p++) {
				const uint8_t *b = (const uint8_t *)a->rcv.map;
				uint32_t fl;
				int64_t bad;

				if (p == a->me)
					continue;
				fl = *(const volatile uint32_t *)(b + a2a_rflag(v, r, p));
				if (fl != a2a_flag(v, r, p))
					die("%s round %d: flag from %s is %#x, want %#x",
					    a2a_var[v], r, a->name[p], fl,
					    a2a_flag(v, r, p));
				bad = check(b + a2a_rblk(a, v, r, p), A2A_BLK,
					    a2a_seed(r, p, a->me));
				if (bad >= 0)
					die("%s round %d: byte %" PRId64 " of the "
					    "block from %s is wrong", a2a_var[v], r,
					    bad, a->name[p]);
			}
	note("all %d blocks from %d peers landed intact, both ways",
	     2 * A2A_NR * (a->nn - 1), a->nn - 1);
	snprintf(f, sizeof(f), "a2a.times.%s", a->name[a->me]);
	put_file(f, "%.6f %.6f %d %u\n", t[A2A_ACCEL], t[A2A_PROXY],
		 A2A_ROUNDS, A2A_BLK);
	a2a_barrier(a, "checked", 300);

	for (v = 0; v < A2A_NVAR; v++)
		for (p = 0; p < a->nn; p++)
			if (p != a->me)
				ibv_destroy_qp(a->qp[v][p]);
	ibv_destroy_cq(a->cq);
	ibv_destroy_cq(a->hcq);
	ibv_dereg_mr(a->smr);
	ibv_dereg_mr(a->rmr);
	sfab_accel_release_import(&accel, a->req_handle);
	sfab_accel_release_import(&accel, a->d.handle);
	close(a->ubfd);
	munmap((void *)a->req, sysconf(_SC_PAGESIZE));
	close(a->memfd);
	sfab_accel_free(&accel, &a->q);
	sfab_accel_free(&accel, &a->snd);
	sfab_accel_free(&accel, &a->rcv);
	ibv_dealloc_pd(a->pd);
	ibv_close_device(a->ctx);
	sfab_accel_close(&accel);
	free(prog);
	free(a);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(const char *ibdev);
} tests[] = {
	{ "db-mmap", t_db_mmap },
	{ "dmabuf-mr", t_dmabuf_mr },
	{ "dmabuf-mr-move", t_dmabuf_mr_move },
	{ "db-dmabuf-export", t_db_dmabuf_export },
	{ "no-p2p-path", t_no_p2p_path },
	{ "accel-rdma-write-e2e", t_e2e },
	{ "zero-cpu-doorbells", t_zero_cpu },
	{ "revoke-on-unbind", t_revoke_on_unbind },
	{ "peermem-client", t_peermem },
	{ "accel-alltoall", t_alltoall },
};

int main(int argc, char **argv)
{
	const char *ibdev = getenv("SFAB_IBDEV") ?: "sfab_0";
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: gda TEST\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(argv[1], tests[i].name))
			continue;
		prog_test = tests[i].name;
		return tests[i].fn(ibdev);
	}
	fprintf(stderr, "gda: unknown test '%s'\n", argv[1]);
	return 2;
}
