// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * sfab-accel: command-line tool for the test accelerator's driver.
 *
 *   sfab-accel [-d /dev/sfab-accelN] info
 *   sfab-accel [-d /dev/sfab-accelN] selftest
 *   sfab-accel [-d /dev/sfab-accelN] unbind-check BDF
 *
 * selftest runs programs of every opcode on two device-memory buffers and
 * checks the results through their mappings, then the refusals: an
 * address outside the file's buffers (EPERM), a malformed command
 * (EINVAL), too long a program (E2BIG), and a POLL that times out (EIO
 * with POLL_TIMEOUT, after which the ring runs again).  Exit 0 when every
 * check passed.
 *
 * unbind-check (root) keeps the device open with a buffer mapped while it
 * unbinds the driver from PCI device BDF (0000:01:00.0): the ioctls must
 * then fail with ENODEV and the mapping raise SIGBUS; it binds the driver
 * again at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "accel.h"

#define BUF_SIZE	(128U * 1024)
#define TIMEOUT_MS	5000

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			printf("ok   ");				\
		} else {						\
			printf("FAIL ");				\
			failures++;					\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

static void print_info(const struct sfab_accel_ioc_info *i)
{
	const struct sfab_accel_ioc_counters *c = &i->counters;

	printf("uapi version     %u\n", i->uapi_version);
	printf("interface        %u.%u\n", i->if_version >> 16,
	       i->if_version & 0xffff);
	printf("device memory    %" PRIu64 " MiB%s\n", (uint64_t)(i->mem_size >> 20),
	       i->flags & SFAB_ACCEL_INFO_F_P2PDMA ? " (P2PDMA)" :
	       " (not usable: no P2PDMA)");
	printf("ring depth       %u (max %u per submit)\n", i->ring_depth,
	       i->max_submit);
	printf("submits          %" PRIu64 "\n", (uint64_t)c->submits);
	printf("commands         %" PRIu64 "\n", (uint64_t)c->cmds);
	printf("completed        %" PRIu64 "\n", (uint64_t)c->completed);
	printf("failed           %" PRIu64 "\n", (uint64_t)c->failed);
	printf("errors           %" PRIu64 " (last %s at index %u)\n",
	       (uint64_t)c->errors, sfab_accel_err_str(c->last_err_code),
	       c->last_err_index);
	printf("revoked_dropped  %" PRIu64 "\n", (uint64_t)c->revoked_dropped);
	printf("revokes          %" PRIu64 "\n", (uint64_t)c->revokes);
	printf("allocs           %" PRIu64 "\n", (uint64_t)c->allocs);
	printf("imports          %" PRIu64 "\n", (uint64_t)c->imports);
	printf("exports          %" PRIu64 "\n", (uint64_t)c->exports);
}

static int run(struct sfab_accel_dev *dev, const struct sfab_accel_cmd *cmds,
	       unsigned int n, struct sfab_accel_ioc_wait *w)
{
	return sfab_accel_run(dev, cmds, n, TIMEOUT_MS, w);
}

/* WRITE_IMM, STORE32, STORE64, FENCE, COPY, COMPLETE to memory */
static void test_stores(struct sfab_accel_dev *dev, struct sfab_accel_mem *a,
			struct sfab_accel_mem *b)
{
	volatile uint8_t *ma = a->map, *mb = b->map;
	struct sfab_accel_cmd c[6];
	struct sfab_accel_ioc_wait w;
	uint8_t pat[SFAB_ACCEL_IMM_MAX];
	uint32_t v32;
	uint64_t v64;
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(0xa0 + i);
	err = sfab_accel_cmd_write_imm(&c[0], a->bus_addr, pat, sizeof(pat));
	err |= sfab_accel_cmd_store32(&c[1], a->bus_addr + 64, 0xdeadbeef);
	err |= sfab_accel_cmd_store64(&c[2], a->bus_addr + 72,
				      0x0123456789abcdefULL);
	sfab_accel_cmd_fence(&c[3]);
	err |= sfab_accel_cmd_copy(&c[4], b->bus_addr + 256, a->bus_addr, 128);
	err |= sfab_accel_cmd_complete(&c[5], b->bus_addr + 1024, 77, false);
	CHECK(!err, "encoders accept the store program");
	err = run(dev, c, 6, &w);
	CHECK(!err && w.status == SFAB_ACCEL_WAIT_DONE,
	      "store program ran (%d, %s)", err, strerror(-err));

	CHECK(!memcmp((const void *)ma, pat, sizeof(pat)), "WRITE_IMM landed");
	memcpy(&v32, (const void *)(ma + 64), 4);
	CHECK(v32 == 0xdeadbeef, "STORE32 landed (0x%08x)", v32);
	memcpy(&v64, (const void *)(ma + 72), 8);
	CHECK(v64 == 0x0123456789abcdefULL, "STORE64 landed (0x%016" PRIx64 ")",
	      v64);
	CHECK(!memcmp((const void *)(mb + 256), (const void *)ma, 128),
	      "COPY landed");
	memcpy(&v64, (const void *)(mb + 1024), 8);
	CHECK(v64 == 77, "COMPLETE wrote its sequence (%" PRIu64 ")", v64);
}

/* a 64 KiB COPY of what the CPU wrote through the mapping */
static void test_copy(struct sfab_accel_dev *dev, struct sfab_accel_mem *a,
		      struct sfab_accel_mem *b)
{
	volatile uint32_t *wa = a->map;
	struct sfab_accel_cmd c;
	struct sfab_accel_ioc_wait w;
	unsigned int i, n = SFAB_ACCEL_COPY_MAX / 4;
	int err;

	for (i = 0; i < n; i++)
		wa[i] = i * 2654435761U;
	err = sfab_accel_cmd_copy(&c, b->bus_addr + BUF_SIZE - SFAB_ACCEL_COPY_MAX,
				  a->bus_addr, SFAB_ACCEL_COPY_MAX);
	err = err ? err : run(dev, &c, 1, &w);
	CHECK(!err, "64 KiB COPY ran (%d)", err);
	CHECK(!memcmp((const uint8_t *)b->map + BUF_SIZE - SFAB_ACCEL_COPY_MAX,
		      a->map, SFAB_ACCEL_COPY_MAX), "64 KiB COPY matches");
}

/* POLL32/POLL64 that match, then a store they gate */
static void test_polls(struct sfab_accel_dev *dev, struct sfab_accel_mem *a,
		       struct sfab_accel_mem *b)
{
	volatile uint32_t *flag = (volatile uint32_t *)((uint8_t *)a->map + 4096);
	volatile uint64_t *flag64 = (volatile uint64_t *)((uint8_t *)a->map + 4104);
	volatile uint32_t *out = (volatile uint32_t *)((uint8_t *)b->map + 2048);
	struct sfab_accel_cmd c[4];
	struct sfab_accel_ioc_wait w;
	int err;

	*flag = 0x1234;
	*flag64 = 0xfeed00000000cafeULL;
	*out = 0;
	err = sfab_accel_cmd_poll32(&c[0], a->bus_addr + 4096, 0xffff, 0x1234,
				    1000000);
	err |= sfab_accel_cmd_poll64(&c[1], a->bus_addr + 4104,
				     0xffff00000000ffffULL, 0xfeed00000000cafeULL,
				     1000000);
	sfab_accel_cmd_fence(&c[2]);
	err |= sfab_accel_cmd_store32(&c[3], b->bus_addr + 2048, 1);
	err = err ? err : run(dev, c, 4, &w);
	CHECK(!err && *out == 1, "POLL32/POLL64 matched and the store ran (%d)",
	      err);
}

/* the refusals, and a ring error the driver recovers from */
static void test_bad(struct sfab_accel_dev *dev, struct sfab_accel_mem *a,
		     struct sfab_accel_mem *b)
{
	struct sfab_accel_ioc_submit s;
	struct sfab_accel_ioc_wait w;
	struct sfab_accel_cmd c[2], *many;
	uint64_t seq;
	int err;
	uint64_t end_a = a->bus_addr + a->size, end_b = b->bus_addr + b->size;

	/* B may follow A in bus space: past both, and straddling A's end */
	sfab_accel_cmd_store32(&c[0], end_a > end_b ? end_a : end_b, 1);
	err = sfab_accel_submit(dev, c, 1, &seq);
	CHECK(err == -EPERM, "STORE32 just past the buffers: EPERM (%d)", err);
	sfab_accel_cmd_copy(&c[0], end_a - 64, b->bus_addr, 128);
	err = sfab_accel_submit(dev, c, 1, &seq);
	CHECK(err == -EPERM, "COPY destination leaving its buffer: EPERM (%d)",
	      err);
	sfab_accel_cmd_store64(&c[0], 0x1000, 1);
	err = sfab_accel_submit(dev, c, 1, &seq);
	CHECK(err == -EPERM, "STORE64 to a foreign address: EPERM (%d)", err);
	sfab_accel_cmd_copy(&c[0], b->bus_addr, a->bus_addr + a->size - 64, 128);
	err = sfab_accel_submit(dev, c, 1, &seq);
	CHECK(err == -EPERM, "COPY source leaving its buffer: EPERM (%d)", err);
	sfab_accel_cmd_complete(&c[0], 0x2000, 1, true);
	err = sfab_accel_submit(dev, c, 1, &seq);
	CHECK(err == -EPERM, "COMPLETE to a foreign address: EPERM (%d)", err);

	memset(&c[0], 0, sizeof(c[0]));
	c[0].opcode = 0x7f;
	err = sfab_accel_submit(dev, c, 1, &seq);
	CHECK(err == -EINVAL, "unknown opcode: EINVAL (%d)", err);
	sfab_accel_cmd_nop(&c[0]);
	c[0].reserved = 1;
	err = sfab_accel_submit(dev, c, 1, &seq);
	CHECK(err == -EINVAL, "reserved field set: EINVAL (%d)", err);
	sfab_accel_cmd_store32(&c[0], a->bus_addr + 2, 1);
	err = sfab_accel_submit(dev, c, 1, &seq);
	CHECK(err == -EINVAL, "misaligned STORE32: EINVAL (%d)", err);

	memset(&s, 0, sizeof(s));
	s.cmds = (uintptr_t)c;
	s.count = 1;
	s.flags = 1;
	err = ioctl(dev->fd, SFAB_ACCEL_IOCTL_SUBMIT, &s) ? -errno : 0;
	CHECK(err == -EINVAL, "SUBMIT flags != 0: EINVAL (%d)", err);

	many = calloc(dev->info.ring_depth, sizeof(*many));
	if (many) {
		err = sfab_accel_submit(dev, many, dev->info.ring_depth, &seq);
		CHECK(err == -E2BIG, "a program as long as the ring: E2BIG (%d)",
		      err);
		free(many);
	}

	/* a POLL that never matches: the ring stops, WAIT says why */
	*(volatile uint32_t *)((uint8_t *)a->map + 8192) = 0;
	sfab_accel_cmd_poll32(&c[0], a->bus_addr + 8192, ~0U, 1, 1000000);
	sfab_accel_cmd_store32(&c[1], b->bus_addr + 8192, 1);
	err = run(dev, c, 2, &w);
	CHECK(err == -EIO && w.status == SFAB_ACCEL_WAIT_ERROR &&
	      w.err_code == SFAB_ACCEL_ERR_POLL_TIMEOUT,
	      "POLL timeout: EIO, %s at index %u (%d)",
	      sfab_accel_err_str(w.err_code), w.err_index, err);
	CHECK(*(volatile uint32_t *)((uint8_t *)b->map + 8192) == 0,
	      "nothing after the failed POLL ran");

	sfab_accel_cmd_store32(&c[0], b->bus_addr + 8196, 0x600d);
	err = run(dev, c, 1, &w);
	CHECK(!err && *(volatile uint32_t *)((uint8_t *)b->map + 8196) == 0x600d,
	      "the ring runs again after the error (%d)", err);
}

/* the buffer exported as a dma-buf and imported back */
static void test_dmabuf(struct sfab_accel_dev *dev, struct sfab_accel_mem *b)
{
	struct sfab_accel_cmd c;
	struct sfab_accel_ioc_wait w;
	uint64_t bus, len;
	uint32_t handle;
	int fd, err;

	fd = sfab_accel_export(dev, b->handle, 16384, 16384);
	CHECK(fd >= 0, "EXPORT_DMABUF of 16 KiB (%d)", fd);
	if (fd < 0)
		return;
	err = sfab_accel_import(dev, fd, &handle, &bus, &len);
	CHECK(!err && len == 16384, "IMPORT_DMABUF of it (%d, %" PRIu64 " bytes)",
	      err, err ? 0 : len);
	if (!err) {
		sfab_accel_cmd_store32(&c, bus + 4, 0xabcd);
		err = run(dev, &c, 1, &w);
		CHECK(!err && *(volatile uint32_t *)((uint8_t *)b->map + 16388) == 0xabcd,
		      "a STORE32 through the import landed (%d)", err);
		err = sfab_accel_release_import(dev, handle);
		CHECK(!err, "RELEASE_IMPORT (%d)", err);
		err = sfab_accel_release_import(dev, handle);
		CHECK(err == -ENOENT, "RELEASE_IMPORT again: ENOENT (%d)", err);
	}
	close(fd);
}

static int selftest(struct sfab_accel_dev *dev)
{
	struct sfab_accel_mem a, b;
	int err;

	if (!(dev->info.flags & SFAB_ACCEL_INFO_F_P2PDMA)) {
		err = sfab_accel_alloc(dev, BUF_SIZE, &a);
		CHECK(err == -EOPNOTSUPP,
		      "no P2PDMA: ALLOC fails with EOPNOTSUPP (%d)", err);
		printf("SKIP: the kernel has no P2PDMA, nothing more to test\n");
		return failures ? 1 : 77;
	}
	err = sfab_accel_alloc(dev, BUF_SIZE, &a);
	CHECK(!err, "ALLOC + mmap of buffer A (%d)", err);
	if (err)
		return 1;
	err = sfab_accel_alloc(dev, BUF_SIZE, &b);
	CHECK(!err, "ALLOC + mmap of buffer B (%d)", err);
	if (err)
		return 1;
	printf("     A bus 0x%" PRIx64 ", B bus 0x%" PRIx64 "\n",
	       (uint64_t)a.bus_addr, (uint64_t)b.bus_addr);

	test_stores(dev, &a, &b);
	test_copy(dev, &a, &b);
	test_polls(dev, &a, &b);
	test_bad(dev, &a, &b);
	test_dmabuf(dev, &b);

	err = sfab_accel_free(dev, &a);
	CHECK(!err, "FREE A (%d)", err);
	err = sfab_accel_free(dev, &b);
	CHECK(!err, "FREE B (%d)", err);
	err = sfab_accel_free(dev, &b);
	CHECK(err == -ENOENT, "FREE B again: ENOENT (%d)", err);

	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}

static sigjmp_buf sigbus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(sigbus_jmp, 1);
}

static int sysfs_write(const char *path, const char *val)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* the driver goes away under an open file with a mapping */
static int unbind_check(struct sfab_accel_dev *dev, const char *bdf)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	volatile uint32_t *word;
	struct sfab_accel_ioc_info info;
	struct sfab_accel_cmd c;
	struct sfab_accel_mem m, m2;
	uint64_t seq;
	int err;

	err = sfab_accel_alloc(dev, 4096, &m);
	CHECK(!err, "ALLOC + mmap before the unbind (%d)", err);
	if (err)
		return 1;
	word = m.map;
	*word = 0x5a5a;
	CHECK(*word == 0x5a5a, "the mapping works");

	err = sysfs_write("/sys/bus/pci/drivers/sfab_accel/unbind", bdf);
	CHECK(!err, "unbind %s (%d)", bdf, err);
	if (err)
		return 1;
	err = sfab_accel_info(dev, &info);
	CHECK(err == -ENODEV, "INFO after the unbind: ENODEV (%d)", err);
	sfab_accel_cmd_nop(&c);
	err = sfab_accel_submit(dev, &c, 1, &seq);
	CHECK(err == -ENODEV, "SUBMIT after the unbind: ENODEV (%d)", err);
	err = sfab_accel_alloc(dev, 4096, &m2);
	CHECK(err == -ENODEV, "ALLOC after the unbind: ENODEV (%d)", err);

	sigaction(SIGBUS, &sa, NULL);
	if (!sigsetjmp(sigbus_jmp, 1)) {
		(void)*word;
		CHECK(0, "reading the zapped mapping raises SIGBUS");
	} else {
		CHECK(1, "reading the zapped mapping raises SIGBUS");
	}
	signal(SIGBUS, SIG_DFL);
	munmap(m.map, m.size);
	sfab_accel_close(dev);

	err = sysfs_write("/sys/bus/pci/drivers/sfab_accel/bind", bdf);
	CHECK(!err, "bind %s again (%d)", bdf, err);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sfab-accel [-d DEVICE] info|selftest|unbind-check BDF\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *path = SFAB_ACCEL_DEFAULT_DEV;
	struct sfab_accel_dev dev;
	int opt, err, rc;

	while ((opt = getopt(argc, argv, "d:h")) != -1) {
		if (opt == 'd')
			path = optarg;
		else
			usage();
	}
	if (optind >= argc ||
	    argc - optind != (strcmp(argv[optind], "unbind-check") ? 1 : 2))
		usage();
	err = sfab_accel_open(path, &dev);
	if (err) {
		fprintf(stderr, "sfab-accel: %s: %s\n", path, strerror(-err));
		return 1;
	}
	if (!strcmp(argv[optind], "info")) {
		print_info(&dev.info);
		rc = 0;
	} else if (!strcmp(argv[optind], "unbind-check")) {
		return unbind_check(&dev, argv[optind + 1]);
	} else if (!strcmp(argv[optind], "selftest")) {
		rc = selftest(&dev);
		if (!sfab_accel_info(&dev, &dev.info))
			print_info(&dev.info);
	} else {
		sfab_accel_close(&dev);
		usage();
		return 2;
	}
	sfab_accel_close(&dev);
	return rc;
}
