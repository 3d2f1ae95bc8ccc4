/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit/wire-crc: the wire CRCs of include/sfab/sfab_wire.h (slice-by-8)
 * against bit-at-a-time references written from IBTA 7.8's definitions:
 * ICRC CRC-32 (reflected 0xedb88320, all ones in and out), VCRC/LPCRC
 * CRC-16 (polynomial 0x100b, reflected 0xd008, all ones in and out).
 * Every length 0..600 at every alignment 0..7, chained CRC-32 calls,
 * long buffers, and packets sealed and checked.
 */
#include <string.h>

#include "harness.h"
#include "sfab/sfab_wire.h"

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
