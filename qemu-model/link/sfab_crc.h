/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab_crc: the wire CRCs of include/sfab/sfab_wire.h (ICRC CRC-32, VCRC
 * CRC-16), fast, for the model's packet path.
 *
 * The same values as sfab_wire_crc32()/sfab_wire_crc16(), the reference;
 * computed by carry-less multiply folding (PCLMULQDQ, or VPCLMULQDQ with
 * AVX-512) where the CPU has it, chosen when the program starts, and by the
 * reference's slice-by-8 tables otherwise.  The environment variable
 * SFAB_CRC=table|pclmul|vpclmul asks for one implementation (one the CPU
 * lacks falls back to the best it has); sfab_crc_use() picks one in a
 * program (the unit tests test each).  Changing the choice while another
 * thread computes a CRC is safe (each call uses one implementation).
 */
#ifndef SFAB_CRC_H
#define SFAB_CRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sfab_crc_impl {
	SFAB_CRC_TABLE,		/* slice-by-8 tables: every CPU */
	SFAB_CRC_PCLMUL,	/* PCLMULQDQ, 4 x 128-bit folding */
	SFAB_CRC_VPCLMUL,	/* VPCLMULQDQ + AVX-512, 4 x 512-bit folding */
	SFAB_CRC_NR_IMPL
};

bool sfab_crc_supported(enum sfab_crc_impl impl);
/* 0, or -1 (nothing changed) when this CPU or build lacks @impl */
int sfab_crc_use(enum sfab_crc_impl impl);
enum sfab_crc_impl sfab_crc_current(void);
/* choose again as the first call does: SFAB_CRC's if there, else the best */
enum sfab_crc_impl sfab_crc_reset(void);
const char *sfab_crc_name(enum sfab_crc_impl impl);

/* sfab_wire_crc32(): chainable, 0 to start */
uint32_t sfab_crc32(uint32_t crc, const void *buf, size_t len);
/* sfab_wire_crc16() is sfab_crc16(0, ...); chainable the same way */
uint16_t sfab_crc16(uint16_t crc, const void *buf, size_t len);
/* both over the same bytes in one pass; each chainable as above */
void sfab_crc_both(uint32_t *crc32, uint16_t *crc16, const void *buf,
		   size_t len);

/*
 * sfab_wire_seal(), sfab_wire_vcrc_ok() and sfab_wire_icrc_ok() with one
 * pass over the packet for both CRCs.  sfab_crc_check() returns
 * SFAB_CRC_VCRC_OK | SFAB_CRC_ICRC_OK as they hold (ICRC_OK only for a
 * packet that has an ICRC and room for it).
 */
#define SFAB_CRC_VCRC_OK	1U
#define SFAB_CRC_ICRC_OK	2U
void sfab_crc_seal(uint8_t *pkt, size_t frame_len);
/* sfab_wire_reseal_vcrc(): the VCRC again, after a VL change */
void sfab_crc_reseal_vcrc(uint8_t *pkt, size_t frame_len);
unsigned int sfab_crc_check(const uint8_t *pkt, size_t frame_len);
/*
 * sfab_crc_check() while copying the frame to @dst (not overlapping it):
 * each byte is read once, for the copy and both CRCs.
 */
unsigned int sfab_crc_copy_check(uint8_t *dst, const uint8_t *pkt,
				 size_t frame_len);
/*
 * The LRH's VL set to @vl and the VCRC mended to match without a pass over
 * the packet (the ICRC does not cover the VL): only its first byte and
 * its VCRC are read.
 */
void sfab_crc_set_vl(uint8_t *pkt, size_t frame_len, unsigned int vl);

#endif /* SFAB_CRC_H */
