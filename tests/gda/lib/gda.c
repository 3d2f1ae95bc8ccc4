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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/sfabdv.h>

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

/* poll @cq for @n completions, each successful, within @secs */
static void drain(struct ibv_cq *cq, int n, double secs)
{
	double end = now() + secs;
	struct ibv_wc wc[16];
	int got = 0, k, i;

	while (got < n) {
		k = ibv_poll_cq(cq, 16, wc);
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

static int t_dmabuf_mr(const char *ibdev)
{
	const char *role = getenv("SFAB_GDA_ROLE") ?: "";
	bool init = !strcmp(role, "initiator");
	struct ibv_context *ctx = open_ibdev(ibdev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;
	struct rc_end me = {}, peer;
	struct sfab_accel_mem m;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char line[64];
	size_t i;

	if (!pd || !cq)
		die("alloc_pd/create_cq: %s", strerror(errno));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	if (!qp)
		die("create_qp: %s", strerror(errno));
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
		wait_file("dmr.done", line, sizeof(line), 300);
		/* n1 wrote pattern 1 at [off_i, off_i + len_i) */
		for (i = 0; i < DMR_N; i++) {
			uint64_t off = i * 262144 + i * 17;
			int64_t bad = check((uint8_t *)m.map + off, dmr_lens[i], 1 + i);

			if (bad >= 0)
				die("WRITE of %u bytes at %" PRIu64 ": byte %" PRId64
				    " wrong in accelerator memory", dmr_lens[i],
				    off, bad);
		}
		note("%zu RDMA WRITEs (1 B .. 1 MiB) landed in accelerator memory intact",
		     DMR_N);
		put_file("dmr.checked", "1\n");
	} else {
		wait_file("dmr.ready", NULL, 0, 300);
		for (i = 0; i < DMR_N; i++) {
			uint64_t off = i * 262144 + i * 17;
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
		for (i = 0; i < DMR_N; i++) {
			uint64_t roff = DMR_HALF + i * 131072 + 3 * i;
			uint64_t loff = DMR_HALF + i * 100000 + 5 * i;
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
		wait_file("dmr.checked", NULL, 0, 300);
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

static const struct {
	const char *name;
	int (*fn)(const char *ibdev);
} tests[] = {
	{ "db-mmap", t_db_mmap },
	{ "dmabuf-mr", t_dmabuf_mr },
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
