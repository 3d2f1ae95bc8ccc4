/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared code of the libFuzzer targets (tests/fuzz/fuzz_*.c).
 *
 * A target reads its input as a little program (struct fz: take bytes off
 * the front; past the end everything reads as zero), drives the model code
 * with it and checks its invariants with CHECK(), which aborts, so that
 * libFuzzer keeps the input that broke one.  The unit tests' host helpers
 * (tests/unit/fake_host.h, rc_pair.h, sw_fabric.h, ...) work here too:
 * their CHECK and REQUIRE are these.
 *
 * Seeds: every target defines fuzz_seeds(), which writes its seed inputs
 * with fz_seed(); SFAB_FUZZ_SEEDS=<dir> ./fuzz_<name> writes them into
 * <dir> and exits (tests/fuzz/run does it before each run).
 */
#ifndef SFAB_FUZZ_H
#define SFAB_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the unit harness' check macros, aborting: a broken invariant is a crash */
#define SFAB_TEST_HARNESS_H

static inline void fz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "FUZZ INVARIANT %s:%d: %s\n", file, line, what);
	abort();
}

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			fz_fail(__FILE__, __LINE__, #cond);		\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long a_ = (unsigned long long)(a);	\
		unsigned long long b_ = (unsigned long long)(b);	\
		if (a_ != b_) {						\
			fprintf(stderr, "FUZZ INVARIANT %s:%d: %s == %s "\
				"(0x%llx != 0x%llx)\n", __FILE__, __LINE__, \
				#a, #b, a_, b_);			\
			abort();					\
		}							\
	} while (0)

#define REQUIRE(cond) CHECK(cond)

/* --- the input ----------------------------------------------------------- */

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline size_t fz_left(const struct fz *f)
{
	return f->n;
}

static inline uint8_t fz_u8(struct fz *f)
{
	if (!f->n)
		return 0;
	f->n--;
	return *f->p++;
}

static inline uint16_t fz_u16(struct fz *f)
{
	return (uint16_t)(fz_u8(f) | fz_u8(f) << 8);
}

static inline uint32_t fz_u32(struct fz *f)
{
	uint32_t lo = fz_u16(f);

	return lo | (uint32_t)fz_u16(f) << 16;
}

static inline uint64_t fz_u64(struct fz *f)
{
	uint64_t lo = fz_u32(f);

	return lo | (uint64_t)fz_u32(f) << 32;
}

/* a value below @n (n > 0) */
static inline uint32_t fz_below(struct fz *f, uint32_t n)
{
	return n <= 256 ? fz_u8(f) % n : fz_u32(f) % n;
}

/* @len bytes into @buf, zeros past the input's end; returns those taken */
static inline size_t fz_bytes(struct fz *f, void *buf, size_t len)
{
	size_t k = len < f->n ? len : f->n;

	memcpy(buf, f->p, k);
	memset((uint8_t *)buf + k, 0, len - k);
	f->p += k;
	f->n -= k;
	return k;
}

/* --- seeds --------------------------------------------------------------- */

/* a program being written as a seed */
struct fz_out {
	uint8_t buf[1 << 16];
	size_t n;
};

static inline void fo_bytes(struct fz_out *o, const void *p, size_t len)
{
	if (len > sizeof(o->buf) - o->n) {
		fprintf(stderr, "fuzz: seed too long\n");
		exit(2);
	}
	memcpy(o->buf + o->n, p, len);
	o->n += len;
}

static inline void fo_u8(struct fz_out *o, uint8_t v)
{
	fo_bytes(o, &v, 1);
}

static inline void fo_u16(struct fz_out *o, uint16_t v)
{
	fo_u8(o, (uint8_t)v);
	fo_u8(o, (uint8_t)(v >> 8));
}

static inline void fo_u32(struct fz_out *o, uint32_t v)
{
	fo_u16(o, (uint16_t)v);
	fo_u16(o, (uint16_t)(v >> 16));
}

static inline void fo_u64(struct fz_out *o, uint64_t v)
{
	fo_u32(o, (uint32_t)v);
	fo_u32(o, (uint32_t)(v >> 32));
}

static const char *fz_seed_dir;

static inline void fz_seed(const char *name, const void *p, size_t len)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", fz_seed_dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(p, 1, len, fp) != len || fclose(fp)) {
		perror(path);
		exit(2);
	}
}

static inline void fz_seed_out(const char *name, const struct fz_out *o)
{
	fz_seed(name, o->buf, o->n);
}

static void fuzz_seeds(void);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_seed_dir = getenv("SFAB_FUZZ_SEEDS");
	if (fz_seed_dir) {
		fuzz_seeds();
		exit(0);
	}
	return 0;
}

#endif /* SFAB_FUZZ_H */
