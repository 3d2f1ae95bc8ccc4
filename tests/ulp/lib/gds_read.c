// SPDX-License-Identifier: GPL-2.0-only
/*
 * gds-read: read a block device into the test accelerator's memory
 * (sfab-accel, the stand-in for a GPU), the way GPUDirect Storage reads
 * into a GPU's, for ulp/gds-p2p (Documentation/sfab/ulp.rst).
 *
 *   gds-read DEV LEN p2p OUT      O_DIRECT reads straight into a buffer of
 *                                 the accelerator's memory (P2PDMA pages)
 *   gds-read DEV LEN bounce OUT   O_DIRECT reads into host memory, each
 *                                 chunk then copied into the buffer
 *
 * LEN bytes from offset 0, 128 KiB per read.  Prints "BYTES USEC COPY_USEC":
 * the time of the reads and, bouncing, the copies, and of the copies
 * alone (0 for p2p).  Then it writes what the buffer holds to OUT for the
 * caller to checksum.  A failed read prints "error NAME
 * (message) at OFFSET" and exits 1: EREMOTEIO is the block layer refusing
 * P2PDMA pages for a queue that does not take them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accel.h"

#define CHUNK (128 << 10)

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int usage(void)
{
	fprintf(stderr, "usage: gds-read DEV LEN p2p|bounce OUT\n"
		"  LEN: a multiple of %d bytes, at most the accelerator's memory\n",
		CHUNK);
	return 2;
}

int main(int argc, char **argv)
{
	struct sfab_accel_mem mem;
	struct sfab_accel_dev dev;
	char *ram = NULL, *end;
	unsigned long long len;
	double t0, t1, us, copy_us = 0;
	int fd, out, bounce;
	size_t off;
	ssize_t n;

	if (argc != 5)
		return usage();
	errno = 0;
	len = strtoull(argv[2], &end, 0);
	if (errno || *end || !len || len % CHUNK || len > (1ULL << 34))
		return usage();
	if (!strcmp(argv[3], "p2p"))
		bounce = 0;
	else if (!strcmp(argv[3], "bounce"))
		bounce = 1;
	else
		return usage();

	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "gds-read: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (sfab_accel_open(SFAB_ACCEL_DEFAULT_DEV, &dev) ||
	    sfab_accel_alloc(&dev, len, &mem)) {
		fprintf(stderr, "gds-read: %s: %llu bytes of device memory: %s\n",
			SFAB_ACCEL_DEFAULT_DEV, len, strerror(errno));
		return 1;
	}
	if (posix_memalign((void **)&ram, 4096, bounce ? len : CHUNK)) {
		fprintf(stderr, "gds-read: out of memory\n");
		return 1;
	}

	t0 = now_us();
	for (off = 0; off < len; off += CHUNK) {
		char *dst = bounce ? ram + off : (char *)mem.map + off;

		n = pread(fd, dst, CHUNK, off);
		if (n != CHUNK) {
			int e = n < 0 ? errno : EIO;

			printf("error %s (%s) at %zu\n", strerrorname_np(e),
			       n < 0 ? strerror(e) : "short read", off);
			return 1;
		}
		if (bounce) {
			t1 = now_us();
			memcpy((char *)mem.map + off, dst, CHUNK);
			copy_us += now_us() - t1;
		}
	}
	us = now_us() - t0;
	printf("%llu %.0f %.0f\n", len, us, copy_us);
	fflush(stdout);

	/* what the accelerator's memory holds, through host memory */
	out = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		fprintf(stderr, "gds-read: %s: %s\n", argv[4], strerror(errno));
		return 1;
	}
	for (off = 0; off < len; off += CHUNK) {
		memcpy(ram, (char *)mem.map + off, CHUNK);
		if (write(out, ram, CHUNK) != CHUNK) {
			fprintf(stderr, "gds-read: %s: %s\n", argv[4], strerror(errno));
			return 1;
		}
	}
	close(out);
	sfab_accel_free(&dev, &mem);
	sfab_accel_close(&dev);
	free(ram);
	close(fd);
	return 0;
}
