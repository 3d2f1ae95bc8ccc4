/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/wire-crc: the wire CRCs of include/sfab/sfab_wire.h (slice-by-8)
 * against bit-at-a-time references written from IBTA 7.8's definitions:
 * ICRC CRC-32 (reflected 0xedb88320, all ones in and out), VCRC/LPCRC
 * CRC-16 (polynomial 0x100b, reflected 0xd008, all ones in and out).
 * Every length 0..600 at every alignment 0..7, chained CRC-32 calls,
 * long buffers, and packets sealed and checked.
 *
 * Then the model's fast CRCs (qemu-model/link/sfab_crc.c), each
 * implementation this CPU has (tables, PCLMULQDQ, VPCLMULQDQ): equal to
 * the references for every length 0..600 and random lengths to 9000 at
 * every alignment 0..15, chained from random states, both CRCs in one
 * pass, and sfab_crc_seal()/sfab_crc_check()/sfab_crc_reseal_vcrc()
 * against sfab_wire_seal(), sfab_wire_{v,i}crc_ok() and
 * sfab_wire_reseal_vcrc() on LRH-only, local and global packets, intact,
 * corrupted and with a new VL.  The fused forms: sfab_crc_copy_check()
 * copies exactly the frame and says what sfab_crc_check() says, and
 * sfab_crc_set_vl() leaves what a reseal after the new VL leaves.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sfab/sfab_wire.h"
#include "../../qemu-model/link/sfab_crc.h"

static uint32_t ref32(uint32_t crc, const uint8_t *p, size_t n)
{
	int k;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1U)));
	}
	return ~crc;
}

static uint16_t ref16(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffff;
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (uint16_t)((crc >> 1) ^ (0xd008U & (0U - (crc & 1U))));
	}
	return (uint16_t)~crc;
}

static uint8_t buf[70000];

static void fill(uint32_t seed)
{
	size_t i;

	for (i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245U + 12345U;
		buf[i] = (uint8_t)(seed >> 16);
	}
}

TEST(check_values)
{
	CHECK_EQ(sfab_wire_crc32(0, "123456789", 9), 0xcbf43926);
	CHECK_EQ(sfab_wire_crc16("123456789", 9),
		 ref16((const uint8_t *)"123456789", 9));
	CHECK_EQ(sfab_wire_crc32(0, "", 0), 0);
	CHECK_EQ(sfab_wire_crc16("", 0), 0);
}

TEST(every_length_and_alignment)
{
	unsigned int off, len, bad32 = 0, bad16 = 0;

	fill(1);
	for (off = 0; off < 8; off++) {
		for (len = 0; len <= 600; len++) {
			if (sfab_wire_crc32(0, buf + off, len) != ref32(0, buf + off, len))
				bad32++;
			if (sfab_wire_crc16(buf + off, len) != ref16(buf + off, len))
				bad16++;
		}
	}
	CHECK_EQ(bad32, 0);
	CHECK_EQ(bad16, 0);
}

TEST(chained_and_long)
{
	uint32_t c;
	size_t cut;

	fill(7);
	/* the ICRC chains two calls: header copy, then the rest */
	for (cut = 0; cut < 100; cut += 3) {
		c = sfab_wire_crc32(sfab_wire_crc32(0, buf, cut), buf + cut, 5000 - cut);
		CHECK_EQ(c, ref32(0, buf, 5000));
	}
	CHECK_EQ(sfab_wire_crc32(0x12345678, buf, 4099), ref32(0x12345678, buf, 4099));
	CHECK_EQ(sfab_wire_crc32(0, buf, sizeof(buf)), ref32(0, buf, sizeof(buf)));
	CHECK_EQ(sfab_wire_crc16(buf, sizeof(buf)), ref16(buf, sizeof(buf)));
}

/* a sealed packet checks out; any flipped bit is caught */
TEST(seal_and_check)
{
	static uint8_t pkt[SFAB_WIRE_MAX_PKT_LEN];
	size_t pay = 4096, frame = SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN + pay +
		     SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN;
	unsigned int words = (unsigned int)(frame - SFAB_WIRE_VCRC_LEN) / 4;
	unsigned int bit;

	fill(3);
	memcpy(pkt, buf, frame);
	pkt[0] = 0x00;				/* VL0, LVer 0 */
	pkt[1] = SFAB_LNH_IBA_LOCAL;		/* SL 0, LNH: BTH follows */
	pkt[2] = (uint8_t)(words >> 8) & 0x07;
	pkt[3] = (uint8_t)words;
	sfab_wire_seal(pkt, frame);
	CHECK(sfab_wire_vcrc_ok(pkt, frame));
	CHECK(sfab_wire_icrc_ok(pkt, frame));
	for (bit = 0; bit < 64; bit++) {
		size_t at = 40 + bit * 61;

		pkt[at] ^= 1U << (bit & 7);
		CHECK(!sfab_wire_vcrc_ok(pkt, frame));
		CHECK(!sfab_wire_icrc_ok(pkt, frame));
		pkt[at] ^= 1U << (bit & 7);
	}
	CHECK(sfab_wire_icrc_ok(pkt, frame));
}

/* --- the fast CRCs ------------------------------------------------------- */

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* the implementations this CPU has; the table one always */
static unsigned int impls(enum sfab_crc_impl *out)
{
	unsigned int i, n = 0;

	for (i = 0; i < SFAB_CRC_NR_IMPL; i++)
		if (sfab_crc_supported((enum sfab_crc_impl)i))
			out[n++] = (enum sfab_crc_impl)i;
	return n;
}

TEST(fast_dispatch)
{
	enum sfab_crc_impl best = SFAB_CRC_TABLE, im[SFAB_CRC_NR_IMPL];
	unsigned int i, n = impls(im);

	CHECK(n >= 1 && im[0] == SFAB_CRC_TABLE);
	for (i = 0; i < n; i++)
		best = im[i];
	/* a NOTE line: tests/run shows it beside the result */
	fprintf(stderr, "NOTE: CRC implementations tested:");
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", sfab_crc_name(im[i]));
	fprintf(stderr, "; not tested (this CPU or build lacks them):");
	for (i = 0; i < SFAB_CRC_NR_IMPL; i++)
		if (!sfab_crc_supported((enum sfab_crc_impl)i))
			fprintf(stderr, " %s", sfab_crc_name((enum sfab_crc_impl)i));
	fprintf(stderr, "%s\n", n == SFAB_CRC_NR_IMPL ? " none" : "");
	/* by default the best; SFAB_CRC asks for one, a bad name is ignored */
	unsetenv("SFAB_CRC");
	CHECK_EQ(sfab_crc_reset(), best);
	setenv("SFAB_CRC", "table", 1);
	CHECK_EQ(sfab_crc_reset(), SFAB_CRC_TABLE);
	CHECK_EQ(sfab_crc_current(), SFAB_CRC_TABLE);
	setenv("SFAB_CRC", "no-such-crc", 1);
	CHECK_EQ(sfab_crc_reset(), best);
	setenv("SFAB_CRC", "pclmul", 1);
	CHECK_EQ(sfab_crc_reset(), sfab_crc_supported(SFAB_CRC_PCLMUL) ?
		 SFAB_CRC_PCLMUL : best);
	unsetenv("SFAB_CRC");
	CHECK_EQ(sfab_crc_reset(), best);
	CHECK_EQ(sfab_crc_use(SFAB_CRC_NR_IMPL), -1);
	CHECK_EQ(sfab_crc_current(), best);
	for (i = 0; i < n; i++) {
		CHECK_EQ(sfab_crc_use(im[i]), 0);
		CHECK_EQ(sfab_crc_current(), im[i]);
	}
	CHECK(!strcmp(sfab_crc_name(SFAB_CRC_TABLE), "table"));
}

TEST(fast_check_values)
{
	enum sfab_crc_impl im[SFAB_CRC_NR_IMPL];
	unsigned int i, n = impls(im);
	uint32_t c32;
	uint16_t c16;

	/* CRC-32/ISO-HDLC's check value; the VCRC's from ref16() */
	CHECK_EQ(ref16((const uint8_t *)"123456789", 9), 0x0a3d);
	for (i = 0; i < n; i++) {
		REQUIRE(sfab_crc_use(im[i]) == 0);
		CHECK_EQ(sfab_crc32(0, "123456789", 9), 0xcbf43926);
		CHECK_EQ(sfab_crc16(0, "123456789", 9), 0x0a3d);
		CHECK_EQ(sfab_crc32(0, "", 0), 0);
		CHECK_EQ(sfab_crc16(0, "", 0), 0);
		c32 = 0;
		c16 = 0;
		sfab_crc_both(&c32, &c16, "123456789", 9);
		CHECK_EQ(c32, 0xcbf43926);
		CHECK_EQ(c16, 0x0a3d);
		/* 64 KiB of 0xff, chained in two: long enough for every path */
		memset(buf, 0xff, 65536);
		c32 = sfab_crc32(sfab_crc32(0, buf, 1000), buf + 1000, 64536);
		CHECK_EQ(c32, ref32(0, buf, 65536));
		CHECK_EQ(sfab_crc16(0, buf, 65536), ref16(buf, 65536));
	}
}

/* one buffer, every implementation against the references */
static unsigned int cmp_all(const enum sfab_crc_impl *im, unsigned int n,
			    const uint8_t *p, size_t len)
{
	uint32_t s32 = rnd(), r32 = ref32(0, p, len), c32;
	uint16_t r16 = ref16(p, len), c16;
	uint32_t rs32 = ref32(s32, p, len);
	unsigned int i, bad = 0;

	for (i = 0; i < n; i++) {
		sfab_crc_use(im[i]);
		bad += sfab_crc32(0, p, len) != r32;
		bad += sfab_crc16(0, p, len) != r16;
		bad += sfab_crc32(s32, p, len) != rs32;
		c32 = s32;
		c16 = 0;
		sfab_crc_both(&c32, &c16, p, len);
		bad += c32 != rs32 || c16 != r16;
		/* a chained CRC-16: split anywhere, the same */
		c16 = sfab_crc16(0, p, len / 3);
		bad += sfab_crc16(c16, p + len / 3, len - len / 3) != r16;
		c32 = 0;
		c16 = 0;
		sfab_crc_both(&c32, &c16, p, len / 2);
		sfab_crc_both(&c32, &c16, p + len / 2, len - len / 2);
		bad += c32 != r32 || c16 != r16;
		if (bad) {
			fprintf(stderr, "wire-crc: %s wrong at length %zu\n",
				sfab_crc_name(im[i]), len);
			break;
		}
	}
	return bad;
}

TEST(fast_every_length_and_alignment)
{
	enum sfab_crc_impl im[SFAB_CRC_NR_IMPL];
	unsigned int n = impls(im), off, len, bad = 0;

	fill(11);
	for (off = 0; off < 16 && !bad; off++)
		for (len = 0; len <= 600 && !bad; len++)
			bad += cmp_all(im, n, buf + off, len);
	CHECK_EQ(bad, 0);
}

TEST(fast_random_lengths)
{
	enum sfab_crc_impl im[SFAB_CRC_NR_IMPL];
	unsigned int n = impls(im), off, k, bad = 0;

	for (k = 0; k < 40 && !bad; k++) {
		fill(rnd());
		for (off = 0; off < 16 && !bad; off++)
			bad += cmp_all(im, n, buf + off, rnd() % 9001);
	}
	/* the largest frames and a little past */
	for (k = 8190; k < 8200 && !bad; k++)
		bad += cmp_all(im, n, buf + (k & 15), k);
	CHECK_EQ(bad, 0);
}

/* a data packet of @pay payload bytes with LNH @lnh, random contents */
static size_t mk_pkt(uint8_t *pkt, unsigned int lnh, size_t pay)
{
	size_t hdr = SFAB_WIRE_LRH_LEN +
		     (lnh == SFAB_LNH_IBA_GLOBAL ? SFAB_WIRE_GRH_LEN : 0) +
		     (lnh >= SFAB_LNH_IBA_LOCAL ? SFAB_WIRE_BTH_LEN : 0);
	size_t icrc = lnh >= SFAB_LNH_IBA_LOCAL ? SFAB_WIRE_ICRC_LEN : 0;
	size_t words = (hdr + pay + icrc) / 4, i;

	for (i = 0; i < words * 4 + SFAB_WIRE_VCRC_LEN; i++)
		pkt[i] = (uint8_t)rnd();
	pkt[0] &= 0xf0;				/* LVer 0, VL random */
	pkt[1] = (uint8_t)((pkt[1] & 0xfc) | lnh);
	pkt[2] = (uint8_t)(words >> 8) & 0x07;
	pkt[3] = (uint8_t)words;
	return words * 4 + SFAB_WIRE_VCRC_LEN;
}

static unsigned int want_check(const uint8_t *p, size_t n)
{
	return (sfab_wire_vcrc_ok(p, n) ? SFAB_CRC_VCRC_OK : 0) |
	       (sfab_wire_has_icrc(p) && sfab_wire_icrc_ok(p, n) ?
		SFAB_CRC_ICRC_OK : 0);
}

TEST(fast_seal_and_check)
{
	static uint8_t a[SFAB_WIRE_MAX_PKT_LEN + 16], b[SFAB_WIRE_MAX_PKT_LEN + 16];
	static const unsigned int lnhs[] = {
		SFAB_LNH_RAW, SFAB_LNH_IBA_LOCAL, SFAB_LNH_IBA_GLOBAL,
	};
	enum sfab_crc_impl im[SFAB_CRC_NR_IMPL];
	unsigned int n = impls(im), i, l, k, bad = 0, flips = 0;
	size_t pay, len, at;

	for (i = 0; i < n; i++) {
		sfab_crc_use(im[i]);
		for (l = 0; l < 3; l++) {
			for (k = 0; k < 300; k++) {
				pay = k < 200 ? 4 * k : (rnd() % 1024) * 4;
				if (k == 299)
					pay = 4096;
				len = mk_pkt(a, lnhs[l], pay);
				if (len > SFAB_WIRE_MAX_PKT_LEN)
					continue;
				memcpy(b, a, len);
				sfab_wire_seal(a, len);
				sfab_crc_seal(b, len);
				bad += memcmp(a, b, len) != 0;
				bad += sfab_crc_check(b, len) !=
				       (SFAB_CRC_VCRC_OK |
					(l ? SFAB_CRC_ICRC_OK : 0));
				/* one bit flipped, or the VL (variant) */
				at = rnd() % len;
				b[at] ^= (uint8_t)(1U << (rnd() & 7));
				bad += sfab_crc_check(b, len) != want_check(b, len);
				flips += sfab_crc_check(b, len) == 0;
				memcpy(b, a, len);
				b[0] ^= 0x30;
				bad += sfab_crc_check(b, len) != want_check(b, len);
				bad += sfab_crc_check(b, len) !=
				       (l ? SFAB_CRC_ICRC_OK : 0);
				/* a new VL: resealed, both CRCs hold again */
				sfab_crc_reseal_vcrc(b, len);
				bad += sfab_crc_check(b, len) !=
				       (SFAB_CRC_VCRC_OK |
					(l ? SFAB_CRC_ICRC_OK : 0));
				sfab_wire_reseal_vcrc(a, len);
				a[0] ^= 0x30;
				sfab_wire_reseal_vcrc(a, len);
				bad += memcmp(a, b, len) != 0;
			}
		}
		/* too short to hold an ICRC, or anything */
		memset(a, 0, 16);
		a[1] = SFAB_LNH_IBA_LOCAL;
		bad += (sfab_crc_check(a, 10) & SFAB_CRC_ICRC_OK) !=
		       (want_check(a, 10) & SFAB_CRC_ICRC_OK);
		bad += sfab_crc_check(a, 1) != 0;
		bad += sfab_crc_check(a, 0) != 0;
	}
	CHECK_EQ(bad, 0);
	/* most flips hit both CRCs' bytes (the ICRC's only for LRH ones) */
	CHECK(flips > 0);
}

/* copied and checked in one pass: the same verdict, the same bytes */
TEST(fast_copy_check)
{
	static uint8_t a[SFAB_WIRE_MAX_PKT_LEN + 16];
	static uint8_t c[SFAB_WIRE_MAX_PKT_LEN + 64];
	static const unsigned int lnhs[] = {
		SFAB_LNH_RAW, SFAB_LNH_IBA_LOCAL, SFAB_LNH_IBA_GLOBAL,
	};
	enum sfab_crc_impl im[SFAB_CRC_NR_IMPL];
	unsigned int n = impls(im), i, l, k, off, bad = 0, good = 0;
	size_t pay, len;

	for (i = 0; i < n; i++) {
		sfab_crc_use(im[i]);
		for (l = 0; l < 3; l++) {
			for (k = 0; k < 200; k++) {
				pay = k < 100 ? 4 * k : (rnd() % 1025) * 4;
				len = mk_pkt(a, lnhs[l], pay);
				if (len > SFAB_WIRE_MAX_PKT_LEN)
					continue;
				sfab_crc_seal(a, len);
				if (k & 1)	/* a bit flipped somewhere */
					a[rnd() % len] ^= (uint8_t)(1U << (rnd() & 7));
				off = rnd() % 16;
				memset(c, 0xa5, sizeof(c));
				bad += sfab_crc_copy_check(c + off, a, len) !=
				       sfab_crc_check(a, len);
				good += sfab_crc_check(a, len) != 0;
				bad += memcmp(c + off, a, len) != 0;
				/* not a byte outside the frame */
				bad += off && c[off - 1] != 0xa5;
				bad += c[off + len] != 0xa5;
			}
		}
		/* shorter than a VCRC, and nothing at all */
		memset(c, 0xa5, 8);
		bad += sfab_crc_copy_check(c, a, 1) != 0 || c[0] != a[0] ||
		       c[1] != 0xa5;
		bad += sfab_crc_copy_check(c, a, 0) != 0 || c[0] != a[0];
	}
	CHECK_EQ(bad, 0);
	CHECK(good > 0);
}

/* a new VL, the VCRC mended without a pass: as a full reseal */
TEST(fast_set_vl)
{
	static uint8_t a[SFAB_WIRE_MAX_PKT_LEN + 16], b[SFAB_WIRE_MAX_PKT_LEN + 16];
	static const unsigned int lnhs[] = {
		SFAB_LNH_RAW, SFAB_LNH_IBA_LOCAL, SFAB_LNH_IBA_GLOBAL,
	};
	unsigned int l, k, vl, bad = 0, same = 0;
	size_t pay, len;

	for (l = 0; l < 3; l++) {
		for (k = 0; k < 300; k++) {
			pay = k < 150 ? 4 * k : (rnd() % 1025) * 4;
			len = mk_pkt(a, lnhs[l], pay);
			if (len > SFAB_WIRE_MAX_PKT_LEN)
				continue;
			sfab_crc_seal(a, len);
			vl = k < 16 ? k : rnd() % 16;
			memcpy(b, a, len);
			sfab_crc_set_vl(b, len, vl);
			a[0] = (uint8_t)((a[0] & 0x0f) | (vl << 4));
			sfab_crc_reseal_vcrc(a, len);
			bad += memcmp(a, b, len) != 0;
			same += (b[0] >> 4) == vl &&
				(sfab_crc_check(b, len) & SFAB_CRC_VCRC_OK);
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(same, 900);
}

