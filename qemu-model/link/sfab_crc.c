/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab_crc: the wire CRCs by carry-less multiply folding.
 *
 * Both CRCs are reflected (least significant bit first).  Read 16 message
 * bytes as a 128-bit little-endian number V: bit i of V is the coefficient
 * of x^(127-i) of the block's polynomial, and the message is the sum of its
 * blocks, each times x^(128 * blocks after it).  Moving a block D bits
 * further on (multiplying by x^D) changes the CRC of nothing as long as
 * the result is only reduced modulo P, so a block is "folded" onto one D
 * bits later: with V = (v0, v1) in two 64-bit halves, v0 standing for
 * a0 * x^64 and v1 for a1,
 *
 *	V * x^D = a0 * x^(D + 64) + a1 * x^D
 *	       == a0 * (x^(D + 64) mod P) + a1 * (x^D mod P)	(mod P)
 *
 * and a 64 x 64 carry-less multiply of two reflected operands gives the
 * reflected product times x (bit m of the result carries x^(126 - m), read
 * as x^(127 - m)), so the two constants are x^(D + 63) mod P and
 * x^(D - 1) mod P, reflected into 64 bits (x^j at bit 63 - j).  The
 * products have degree below 64 + 32, so they fit the 128-bit block they
 * are added to.  Bytes after the last whole block are folded in with the
 * last 16 (tail_fold()); the 16 bytes left, congruent to the whole message,
 * give the CRC by a Barrett reduction (fin32(), fin16()).  The starting
 * state is added into the first block's first bytes, as the tables do.
 * Buffers shorter than a few blocks go through the tables, but for 4 to 16
 * bytes (one block, short_block()).
 *
 * Both CRCs of a packet come from one pass (sfab_crc_both(), *_fold2()):
 * each block is loaded once and folded into two sets of accumulators; the
 * ICRC's set reads the variant header fields as ones through a mask over
 * the first 64 bytes.
 *
 * The constants are computed when the program starts (fold_consts()); the
 * unit test wire-crc checks every implementation against a bit-at-a-time
 * reference.
 */
#include <stdlib.h>
#include <string.h>

#include "sfab_crc.h"
#include "sfab/sfab_wire.h"

/* the ICRC's variant fields lie in a packet's first 64 bytes */
#define SFAB_CRC_MASK_LEN	64
_Static_assert(SFAB_WIRE_XLRH_LEN + SFAB_WIRE_GRH_LEN + SFAB_WIRE_BTH_LEN <=
	       SFAB_CRC_MASK_LEN, "the ICRC's headers fit the mask");

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SFAB_CRC_X86 1
#include <immintrin.h>
#endif

/* --- tables: the reference's, with the state in and out raw ------------- */

static uint32_t tab32(uint32_t crc, const uint8_t *p, size_t len)
{
	return sfab_wire_crc32_raw(crc, p, len);
}

static uint16_t tab16(uint16_t crc, const uint8_t *p, size_t len)
{
	return sfab_wire_crc16_raw(crc, p, len);
}

/*
 * Both CRCs over the same @len bytes at @p, except that the CRC-32 reads
 * the first min(@len, 64) bytes XORed with @mask's (no mask: NULL); with
 * a @dst, the bytes are copied there as they are read (not overlapping).
 */
static void tab_both(uint32_t *c32, uint16_t *c16, const uint8_t *p,
		     size_t len, const uint8_t *mask, uint8_t *dst)
{
	uint8_t first[SFAB_CRC_MASK_LEN];
	size_t i, m = len < sizeof(first) ? len : sizeof(first);

	if (dst)
		memcpy(dst, p, len);
	if (mask) {
		for (i = 0; i < m; i++)
			first[i] = p[i] ^ mask[i];
		*c32 = tab32(tab32(*c32, first, m), p + m, len - m);
	} else {
		*c32 = tab32(*c32, p, len);
	}
	*c16 = tab16(*c16, p, len);
}

/* raw state in, raw state out (no complement) */
struct crc_ops {
	uint32_t (*c32)(uint32_t crc, const uint8_t *p, size_t len);
	uint16_t (*c16)(uint16_t crc, const uint8_t *p, size_t len);
	void (*both)(uint32_t *c32, uint16_t *c16, const uint8_t *p,
		     size_t len, const uint8_t *mask, uint8_t *dst);
};

static const struct crc_ops tab_ops = { tab32, tab16, tab_both };

#ifdef SFAB_CRC_X86

/* --- folding constants ---------------------------------------------------- */

#define FOLD_MAX	16	/* fold distances 1..16 blocks of 128 bits */

struct fold_k {
	uint64_t k[FOLD_MAX + 1][2];	/* [d]: {x^(128d+63), x^(128d-1)} */
	/* the last 128 bits to the CRC (fin_*()): x^(63+w) mod P, */
	uint64_t fin[2];
	/* floor(x^(64+w) / P) less its x^64, and P less its x^w */
	uint64_t mu[2], p[2];
};

static struct fold_k k32, k16;

/* x^n mod P, P = x^w + @poly (not reflected, w <= 32) */
static uint64_t xpow_mod(unsigned int n, uint64_t poly, unsigned int w)
{
	uint64_t r = 1;

	while (n--) {
		r <<= 1;
		if (r >> w & 1)
			r ^= (1ULL << w) | poly;
	}
	return r;
}

static uint64_t reflect64(uint64_t v)
{
	uint64_t r = 0;
	int i;

	for (i = 0; i < 64; i++, v >>= 1)
		r = r << 1 | (v & 1);
	return r;
}

/* floor(x^(64+w) / P) less its x^64 term: P's Barrett constant */
static uint64_t barrett_mu(uint64_t poly, unsigned int w)
{
	unsigned __int128 num = (unsigned __int128)1 << (64 + w);
	unsigned __int128 pf = ((unsigned __int128)1 << w) | poly;
	uint64_t q = 0;
	int d;

	for (d = 64 + w; d >= (int)w; d--) {
		if ((unsigned int)(num >> d) & 1) {
			num ^= pf << (d - w);
			if (d - (int)w < 64)
				q |= 1ULL << (d - w);
		}
	}
	return q;
}

static void fold_consts(struct fold_k *k, uint64_t poly, unsigned int w)
{
	unsigned int d;

	for (d = 1; d <= FOLD_MAX; d++) {
		k->k[d][0] = reflect64(xpow_mod(128 * d + 63, poly, w));
		k->k[d][1] = reflect64(xpow_mod(128 * d - 1, poly, w));
	}
	k->fin[0] = reflect64(xpow_mod(63 + w, poly, w));
	k->mu[0] = reflect64(barrett_mu(poly, w));
	k->p[0] = reflect64(poly);
}

/* --- PCLMULQDQ: 4 x 128 bits ---------------------------------------------- */

#define T_SSE __attribute__((target("pclmul,sse4.1")))
#define INLINE_SSE static inline __attribute__((always_inline)) T_SSE

INLINE_SSE __m128i kx(const struct fold_k *k, unsigned int d)
{
	return _mm_loadu_si128((const __m128i *)k->k[d]);
}

INLINE_SSE __m128i fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
			     _mm_clmulepi64_si128(x, k, 0x11));
}

INLINE_SSE __m128i ld(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/*
 * The raw CRC of the 16 bytes at @res from a zero state (what the tables
 * give): with R = a0 * x^64 + a1 (a0 the first 8 bytes), the CRC is
 * R * x^w mod P.  First S = a0 * (x^(64+w) mod P) + a1 * x^w, of degree
 * below 64 + w; then Barrett: with S = Sh * x^w + Sl, the quotient is
 * q = floor(Sh * mu / x^64), mu = floor(x^(64+w) / P) (exact for
 * polynomials), and S mod P = Sl + (q * (P - x^w) mod x^w).  In reflected
 * 128-bit form S's coefficient of x^j is bit 127 - j: Sl is the top w
 * bits, Sh the 64 bits below them; a product read from PCLMULQDQ is one
 * bit short (the factor x), hence the shifts by one.
 */
#define FIN(name, w, get)						\
INLINE_SSE uint32_t name(const struct fold_k *k, const uint8_t *res)	\
{									\
	__m128i r = ld(res), z = _mm_setzero_si128(), s, sh, q, d;	\
									\
	s = _mm_xor_si128(_mm_clmulepi64_si128(r, kx1(k->fin), 0x00),	\
			  _mm_srli_si128(_mm_unpackhi_epi64(z, r), (w) / 8)); \
	sh = _mm_srli_si128(s, (64 - (w)) / 8);				\
	q = _mm_xor_si128(sh, _mm_slli_epi64(				\
		_mm_clmulepi64_si128(sh, kx1(k->mu), 0x00), 1));	\
	d = _mm_clmulepi64_si128(q, kx1(k->p), 0x00);			\
	d = _mm_or_si128(_mm_slli_epi64(d, 1),				\
			 _mm_srli_epi64(_mm_slli_si128(d, 8), 63));	\
	return (uint32_t)get(_mm_xor_si128(s, d));			\
}

INLINE_SSE __m128i kx1(const uint64_t *k)
{
	return _mm_loadu_si128((const __m128i *)k);
}

/*
 * The 16 bytes at @res followed by the @t < 16 bytes at @tail, folded back
 * into 16 bytes at @res: zeros(16 - t) + res[0..t) is one block (leading
 * zeros change nothing), res[t..16) + tail the next; the first folds onto
 * the second.
 */
INLINE_SSE void tail_fold(const struct fold_k *k, uint8_t *res,
			  const uint8_t *tail, size_t t)
{
	uint8_t b[48] = { 0 };

	if (!t)
		return;
	memcpy(b + 16, res, 16);
	memcpy(b + 32, tail, t);
	_mm_storeu_si128((__m128i *)res,
			 _mm_xor_si128(fold(ld(b + t), kx(k, 1)),
				       ld(b + 16 + t)));
}

#define TOP32(v) _mm_extract_epi32(v, 3)
#define TOP16(v) _mm_extract_epi16(v, 7)
FIN(fin32, 32, TOP32)
FIN(fin16, 16, TOP16)

/*
 * Fold @len >= 64 bytes at @p to 16 bytes at @res (the state @init added
 * into the first); returns how many bytes it consumed (a multiple of 16,
 * what is left is under 16).
 */
INLINE_SSE size_t sse_fold(const struct fold_k *k, uint32_t init,
			   const uint8_t *p, size_t len, uint8_t *res)
{
	__m128i x0, x1, x2, x3, k4 = kx(k, 4), k1 = kx(k, 1);
	size_t n = 64;

	x0 = _mm_xor_si128(ld(p), _mm_cvtsi32_si128((int)init));
	x1 = ld(p + 16);
	x2 = ld(p + 32);
	x3 = ld(p + 48);
	for (; len - n >= 64; n += 64) {
		x0 = _mm_xor_si128(fold(x0, k4), ld(p + n));
		x1 = _mm_xor_si128(fold(x1, k4), ld(p + n + 16));
		x2 = _mm_xor_si128(fold(x2, k4), ld(p + n + 32));
		x3 = _mm_xor_si128(fold(x3, k4), ld(p + n + 48));
	}
	x0 = _mm_xor_si128(_mm_xor_si128(fold(x0, kx(k, 3)), fold(x1, kx(k, 2))),
			   _mm_xor_si128(fold(x2, k1), x3));
	for (; len - n >= 16; n += 16)
		x0 = _mm_xor_si128(fold(x0, k1), ld(p + n));
	_mm_storeu_si128((__m128i *)res, x0);
	return n;
}

INLINE_SSE void st(uint8_t *dst, size_t at, __m128i v)
{
	if (dst)
		_mm_storeu_si128((__m128i *)(dst + at), v);
}

/*
 * Both CRCs over the same bytes: each block loaded once, and stored at
 * @dst when there is one (the copy costs no second pass over the bytes).
 */
INLINE_SSE size_t sse_fold2(uint32_t i32, uint16_t i16, const uint8_t *p,
			    size_t len, const uint8_t *m, uint8_t *r32,
			    uint8_t *r16, uint8_t *dst)
{
	__m128i a0, a1, a2, a3, b0, b1, b2, b3, d;
	__m128i ka4 = kx(&k32, 4), kb4 = kx(&k16, 4);
	__m128i ka1 = kx(&k32, 1), kb1 = kx(&k16, 1);
	size_t n = 64;

	a0 = b0 = ld(p);
	a1 = b1 = ld(p + 16);
	a2 = b2 = ld(p + 32);
	a3 = b3 = ld(p + 48);
	st(dst, 0, a0);
	st(dst, 16, a1);
	st(dst, 32, a2);
	st(dst, 48, a3);
	if (m) {
		a0 = _mm_xor_si128(a0, ld(m));
		a1 = _mm_xor_si128(a1, ld(m + 16));
		a2 = _mm_xor_si128(a2, ld(m + 32));
		a3 = _mm_xor_si128(a3, ld(m + 48));
	}
	b0 = _mm_xor_si128(b0, _mm_cvtsi32_si128(i16));
	a0 = _mm_xor_si128(a0, _mm_cvtsi32_si128((int)i32));
	for (; len - n >= 64; n += 64) {
		d = ld(p + n);
		st(dst, n, d);
		a0 = _mm_xor_si128(fold(a0, ka4), d);
		b0 = _mm_xor_si128(fold(b0, kb4), d);
		d = ld(p + n + 16);
		st(dst, n + 16, d);
		a1 = _mm_xor_si128(fold(a1, ka4), d);
		b1 = _mm_xor_si128(fold(b1, kb4), d);
		d = ld(p + n + 32);
		st(dst, n + 32, d);
		a2 = _mm_xor_si128(fold(a2, ka4), d);
		b2 = _mm_xor_si128(fold(b2, kb4), d);
		d = ld(p + n + 48);
		st(dst, n + 48, d);
		a3 = _mm_xor_si128(fold(a3, ka4), d);
		b3 = _mm_xor_si128(fold(b3, kb4), d);
	}
	a0 = _mm_xor_si128(_mm_xor_si128(fold(a0, kx(&k32, 3)),
					 fold(a1, kx(&k32, 2))),
			   _mm_xor_si128(fold(a2, ka1), a3));
	b0 = _mm_xor_si128(_mm_xor_si128(fold(b0, kx(&k16, 3)),
					 fold(b1, kx(&k16, 2))),
			   _mm_xor_si128(fold(b2, kb1), b3));
	for (; len - n >= 16; n += 16) {
		d = ld(p + n);
		st(dst, n, d);
		a0 = _mm_xor_si128(fold(a0, ka1), d);
		b0 = _mm_xor_si128(fold(b0, kb1), d);
	}
	_mm_storeu_si128((__m128i *)r32, a0);
	_mm_storeu_si128((__m128i *)r16, b0);
	if (dst)
		memcpy(dst + n, p + n, len - n);
	return n;
}

/*
 * 4 to 16 bytes (@w / 8 to 16 for the CRC-16): one block, zeros ahead of
 * them, the state added into their first bytes, straight to fin_*().
 */
INLINE_SSE const uint8_t *short_block(uint8_t *b, uint32_t crc,
				      unsigned int w, const uint8_t *p,
				      size_t len)
{
	unsigned int i;

	memset(b, 0, 16);
	memcpy(b + 16, p, len);
	for (i = 0; i < w / 8; i++)
		b[16 + i] ^= (uint8_t)(crc >> (8 * i));
	return b + len;
}

static T_SSE uint32_t sse32(uint32_t crc, const uint8_t *p, size_t len)
{
	uint8_t r[32];
	size_t n;

	if (len >= 4 && len <= 16)
		return fin32(&k32, short_block(r, crc, 32, p, len));
	if (len < 64)
		return tab32(crc, p, len);
	n = sse_fold(&k32, crc, p, len, r);
	tail_fold(&k32, r, p + n, len - n);
	return fin32(&k32, r);
}

static T_SSE uint16_t sse16(uint16_t crc, const uint8_t *p, size_t len)
{
	uint8_t r[32];
	size_t n;

	if (len >= 2 && len <= 16)
		return (uint16_t)fin16(&k16, short_block(r, crc, 16, p, len));
	if (len < 64)
		return tab16(crc, p, len);
	n = sse_fold(&k16, crc, p, len, r);
	tail_fold(&k16, r, p + n, len - n);
	return (uint16_t)fin16(&k16, r);
}

static T_SSE void sse_both(uint32_t *c32, uint16_t *c16, const uint8_t *p,
			   size_t len, const uint8_t *m, uint8_t *dst)
{
	uint8_t r32[16], r16[16];
	size_t n;

	if (len < 64) {
		tab_both(c32, c16, p, len, m, dst);
		return;
	}
	/* two bodies: the one without a copy has no stores in its loops */
	if (dst)
		n = sse_fold2(*c32, *c16, p, len, m, r32, r16, dst);
	else
		n = sse_fold2(*c32, *c16, p, len, m, r32, r16, NULL);
	tail_fold(&k32, r32, p + n, len - n);
	*c32 = fin32(&k32, r32);
	tail_fold(&k16, r16, p + n, len - n);
	*c16 = (uint16_t)fin16(&k16, r16);
}

static const struct crc_ops sse_ops = { sse32, sse16, sse_both };

/* --- VPCLMULQDQ + AVX-512: 4 x 512 bits ----------------------------------- */

#define T_AVX512 \
	__attribute__((target("pclmul,sse4.1,avx512f,avx512vl,vpclmulqdq")))
#define INLINE_AVX512 static inline __attribute__((always_inline)) T_AVX512

INLINE_AVX512 __m512i zk(const struct fold_k *k, unsigned int d)
{
	return _mm512_broadcast_i32x4(kx(k, d));
}

INLINE_AVX512 __m512i zfold_xor(__m512i x, __m512i k, __m512i d)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
					 _mm512_clmulepi64_epi128(x, k, 0x11),
					 d, 0x96);
}

INLINE_AVX512 __m512i zld(const uint8_t *p)
{
	return _mm512_loadu_si512((const void *)p);
}

/* the four 128-bit lanes of @z, the first the earliest, folded into one */
INLINE_AVX512 __m128i zreduce(const struct fold_k *k, __m512i z)
{
	__m128i l0 = _mm512_extracti32x4_epi32(z, 0);
	__m128i l1 = _mm512_extracti32x4_epi32(z, 1);
	__m128i l2 = _mm512_extracti32x4_epi32(z, 2);
	__m128i l3 = _mm512_extracti32x4_epi32(z, 3);

	return _mm_xor_si128(_mm_xor_si128(fold(l0, kx(k, 3)),
					   fold(l1, kx(k, 2))),
			     _mm_xor_si128(fold(l2, kx(k, 1)), l3));
}

/* as sse_fold(), @len >= 256 */
INLINE_AVX512 size_t z_fold(const struct fold_k *k, uint32_t init,
			    const uint8_t *p, size_t len, uint8_t *res)
{
	__m512i z0, z1, z2, z3, k16 = zk(k, 16), k4 = zk(k, 4);
	__m128i x, k1 = kx(k, 1);
	size_t n = 256;

	z0 = _mm512_xor_si512(zld(p), _mm512_zextsi128_si512(
				      _mm_cvtsi32_si128((int)init)));
	z1 = zld(p + 64);
	z2 = zld(p + 128);
	z3 = zld(p + 192);
	for (; len - n >= 256; n += 256) {
		z0 = zfold_xor(z0, k16, zld(p + n));
		z1 = zfold_xor(z1, k16, zld(p + n + 64));
		z2 = zfold_xor(z2, k16, zld(p + n + 128));
		z3 = zfold_xor(z3, k16, zld(p + n + 192));
	}
	z0 = zfold_xor(z0, zk(k, 12), zfold_xor(z1, zk(k, 8),
						zfold_xor(z2, k4, z3)));
	for (; len - n >= 64; n += 64)
		z0 = zfold_xor(z0, k4, zld(p + n));
	x = zreduce(k, z0);
	for (; len - n >= 16; n += 16)
		x = _mm_xor_si128(fold(x, k1), ld(p + n));
	_mm_storeu_si128((__m128i *)res, x);
	/* the SSE code after this must not pay for dirty upper halves */
	_mm256_zeroupper();
	return n;
}

INLINE_AVX512 void zst(uint8_t *dst, size_t at, __m512i v)
{
	if (dst)
		_mm512_storeu_si512((void *)(dst + at), v);
}

/* as sse_fold2(), @len >= 256 */
INLINE_AVX512 size_t z_fold2(uint32_t i32, uint16_t i16, const uint8_t *p,
			     size_t len, const uint8_t *m, uint8_t *r32,
			     uint8_t *r16, uint8_t *dst)
{
	__m512i a0, a1, a2, a3, b0, b1, b2, b3, d;
	__m512i ka = zk(&k32, 16), kb = zk(&k16, 16);
	__m512i ka4 = zk(&k32, 4), kb4 = zk(&k16, 4);
	__m128i x, y, ka1 = kx(&k32, 1), kb1 = kx(&k16, 1), e;
	size_t n = 256;

	d = zld(p);
	zst(dst, 0, d);
	a0 = _mm512_xor_si512(m ? _mm512_xor_si512(d, zld(m)) : d,
			      _mm512_zextsi128_si512(
				      _mm_cvtsi32_si128((int)i32)));
	b0 = _mm512_xor_si512(d, _mm512_zextsi128_si512(
				     _mm_cvtsi32_si128(i16)));
	a1 = b1 = zld(p + 64);
	a2 = b2 = zld(p + 128);
	a3 = b3 = zld(p + 192);
	zst(dst, 64, a1);
	zst(dst, 128, a2);
	zst(dst, 192, a3);
	for (; len - n >= 256; n += 256) {
		d = zld(p + n);
		zst(dst, n, d);
		a0 = zfold_xor(a0, ka, d);
		b0 = zfold_xor(b0, kb, d);
		d = zld(p + n + 64);
		zst(dst, n + 64, d);
		a1 = zfold_xor(a1, ka, d);
		b1 = zfold_xor(b1, kb, d);
		d = zld(p + n + 128);
		zst(dst, n + 128, d);
		a2 = zfold_xor(a2, ka, d);
		b2 = zfold_xor(b2, kb, d);
		d = zld(p + n + 192);
		zst(dst, n + 192, d);
		a3 = zfold_xor(a3, ka, d);
		b3 = zfold_xor(b3, kb, d);
	}
	a0 = zfold_xor(a0, zk(&k32, 12), zfold_xor(a1, zk(&k32, 8),
						   zfold_xor(a2, ka4, a3)));
	b0 = zfold_xor(b0, zk(&k16, 12), zfold_xor(b1, zk(&k16, 8),
						   zfold_xor(b2, kb4, b3)));
	for (; len - n >= 64; n += 64) {
		d = zld(p + n);
		zst(dst, n, d);
		a0 = zfold_xor(a0, ka4, d);
		b0 = zfold_xor(b0, kb4, d);
	}
	x = zreduce(&k32, a0);
	y = zreduce(&k16, b0);
	for (; len - n >= 16; n += 16) {
		e = ld(p + n);
		st(dst, n, e);
		x = _mm_xor_si128(fold(x, ka1), e);
		y = _mm_xor_si128(fold(y, kb1), e);
	}
	_mm_storeu_si128((__m128i *)r32, x);
	_mm_storeu_si128((__m128i *)r16, y);
	_mm256_zeroupper();
	if (dst)
		memcpy(dst + n, p + n, len - n);
	return n;
}

static T_AVX512 uint32_t z32(uint32_t crc, const uint8_t *p, size_t len)
{
	uint8_t r[16];
	size_t n;

	if (len < 256)
		return sse32(crc, p, len);
	n = z_fold(&k32, crc, p, len, r);
	tail_fold(&k32, r, p + n, len - n);
	return fin32(&k32, r);
}

static T_AVX512 uint16_t z16(uint16_t crc, const uint8_t *p, size_t len)
{
	uint8_t r[16];
	size_t n;

	if (len < 256)
		return sse16(crc, p, len);
	n = z_fold(&k16, crc, p, len, r);
	tail_fold(&k16, r, p + n, len - n);
	return (uint16_t)fin16(&k16, r);
}

static T_AVX512 void z_both(uint32_t *c32, uint16_t *c16, const uint8_t *p,
			    size_t len, const uint8_t *m, uint8_t *dst)
{
	uint8_t r32[16], r16[16];
	size_t n;

	if (len < 256) {
		sse_both(c32, c16, p, len, m, dst);
		return;
	}
	if (dst)
		n = z_fold2(*c32, *c16, p, len, m, r32, r16, dst);
	else
		n = z_fold2(*c32, *c16, p, len, m, r32, r16, NULL);
	tail_fold(&k32, r32, p + n, len - n);
	*c32 = fin32(&k32, r32);
	tail_fold(&k16, r16, p + n, len - n);
	*c16 = (uint16_t)fin16(&k16, r16);
}

static const struct crc_ops z_ops = { z32, z16, z_both };

#endif /* SFAB_CRC_X86 */

/* --- dispatch ------------------------------------------------------------- */

static const struct crc_ops *cur_ops;
static int cur_impl;

static const char *const impl_names[SFAB_CRC_NR_IMPL] = {
	[SFAB_CRC_TABLE] = "table",
	[SFAB_CRC_PCLMUL] = "pclmul",
	[SFAB_CRC_VPCLMUL] = "vpclmul",
};

const char *sfab_crc_name(enum sfab_crc_impl impl)
{
	return (unsigned int)impl < SFAB_CRC_NR_IMPL ? impl_names[impl] : "?";
}

bool sfab_crc_supported(enum sfab_crc_impl impl)
{
	switch (impl) {
	case SFAB_CRC_TABLE:
		return true;
#ifdef SFAB_CRC_X86
	case SFAB_CRC_PCLMUL:
		__builtin_cpu_init();
		return __builtin_cpu_supports("pclmul") &&
		       __builtin_cpu_supports("sse4.1");
	case SFAB_CRC_VPCLMUL:
		return sfab_crc_supported(SFAB_CRC_PCLMUL) &&
		       __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl") &&
		       __builtin_cpu_supports("vpclmulqdq");
#endif
	default:
		return false;
	}
}

static const struct crc_ops *impl_ops(enum sfab_crc_impl impl)
{
	switch (impl) {
#ifdef SFAB_CRC_X86
	case SFAB_CRC_PCLMUL:
		return &sse_ops;
	case SFAB_CRC_VPCLMUL:
		return &z_ops;
#endif
	default:
		return &tab_ops;
	}
}

static void consts_once(void)
{
#ifdef SFAB_CRC_X86
	static int done;

	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
	fold_consts(&k32, 0x04c11db7, 32);
	fold_consts(&k16, 0x100b, 16);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
#endif
}

int sfab_crc_use(enum sfab_crc_impl impl)
{
	if (!sfab_crc_supported(impl))
		return -1;
	consts_once();
	__atomic_store_n(&cur_impl, (int)impl, __ATOMIC_RELAXED);
	__atomic_store_n(&cur_ops, impl_ops(impl), __ATOMIC_RELEASE);
	return 0;
}

/* the first call: SFAB_CRC's choice if this CPU has it, else the best */
static const struct crc_ops *pick(void)
{
	const char *want = getenv("SFAB_CRC");
	int i;

	if (want) {
		for (i = 0; i < SFAB_CRC_NR_IMPL; i++)
			if (!strcmp(want, impl_names[i]) &&
			    sfab_crc_use((enum sfab_crc_impl)i) == 0)
				return cur_ops;
	}
	for (i = SFAB_CRC_NR_IMPL - 1; i >= 0; i--)
		if (sfab_crc_use((enum sfab_crc_impl)i) == 0)
			break;
	return cur_ops;
}

static inline const struct crc_ops *ops(void)
{
	const struct crc_ops *o = __atomic_load_n(&cur_ops, __ATOMIC_ACQUIRE);

	return o ? o : pick();
}

/*
 * Choose at load time, while the process has one thread, so that the
 * constants are never written while another thread reads them.
 */
__attribute__((constructor)) static void sfab_crc_init(void)
{
	consts_once();
	ops();
}

enum sfab_crc_impl sfab_crc_reset(void)
{
	pick();
	return sfab_crc_current();
}

enum sfab_crc_impl sfab_crc_current(void)
{
	ops();
	return (enum sfab_crc_impl)__atomic_load_n(&cur_impl, __ATOMIC_RELAXED);
}

/* --- the API -------------------------------------------------------------- */

uint32_t sfab_crc32(uint32_t crc, const void *buf, size_t len)
{
	return ~ops()->c32(~crc, buf, len);
}

uint16_t sfab_crc16(uint16_t crc, const void *buf, size_t len)
{
	return (uint16_t)~ops()->c16((uint16_t)~crc, buf, len);
}

void sfab_crc_both(uint32_t *crc32, uint16_t *crc16, const void *buf,
		   size_t len)
{
	uint32_t a = ~*crc32;
	uint16_t b = (uint16_t)~*crc16;

	ops()->both(&a, &b, buf, len, NULL, NULL);
	*crc32 = ~a;
	*crc16 = (uint16_t)~b;
}

/*
 * The ICRC of the @len bytes at @pkt (LRH through payload) and, in @vcrc,
 * the raw CRC-16 state over the same bytes as they are; copied to @dst as
 * they are read when there is one.
 */
static uint32_t icrc_vcrc(const struct crc_ops *o, const uint8_t *pkt,
			  size_t len, uint16_t *vcrc, uint8_t *dst)
{
	uint8_t hdr[SFAB_WIRE_XLRH_LEN + SFAB_WIRE_GRH_LEN + SFAB_WIRE_BTH_LEN];
	uint8_t mask[SFAB_CRC_MASK_LEN] = { 0 };
	size_t i, hlen = sfab_wire_icrc_hdr(pkt, len, hdr);
	uint32_t c32 = 0xffffffffU;
	uint16_t c16 = 0xffff;

	/* the CRC-32 reads the headers as sfab_wire_icrc_hdr() leaves them */
	for (i = 0; i < hlen; i++)
		mask[i] = hdr[i] ^ pkt[i];
	o->both(&c32, &c16, pkt, len, mask, dst);
	*vcrc = c16;
	return ~c32;
}

static void put_icrc(uint8_t *at, uint32_t icrc)
{
	at[0] = icrc & 0xff;
	at[1] = (icrc >> 8) & 0xff;
	at[2] = (icrc >> 16) & 0xff;
	at[3] = icrc >> 24;
}

static void put_vcrc(uint8_t *at, uint16_t vcrc)
{
	at[0] = vcrc >> 8;
	at[1] = vcrc & 0xff;
}

void sfab_crc_seal(uint8_t *pkt, size_t frame_len)
{
	const struct crc_ops *o = ops();
	size_t n = frame_len - SFAB_WIRE_VCRC_LEN;
	uint16_t vcrc;

	if (sfab_wire_has_icrc(pkt)) {
		put_icrc(pkt + n - 4,
			 icrc_vcrc(o, pkt, n - SFAB_WIRE_ICRC_LEN, &vcrc, NULL));
		vcrc = o->c16(vcrc, pkt + n - 4, 4);
	} else {
		vcrc = o->c16(0xffff, pkt, n);
	}
	put_vcrc(pkt + n, (uint16_t)~vcrc);
}

void sfab_crc_reseal_vcrc(uint8_t *pkt, size_t frame_len)
{
	size_t n = frame_len - SFAB_WIRE_VCRC_LEN;

	put_vcrc(pkt + n, sfab_crc16(0, pkt, n));
}

/* a * b mod P for the VCRC's P = x^16 + 0x100b, not reflected */
static uint16_t mulmod16(uint16_t a, uint16_t b)
{
	uint32_t r = 0;
	int i;

	for (i = 0; i < 16; i++)
		if (b >> i & 1)
			r ^= (uint32_t)a << i;
	for (i = 30; i >= 16; i--)
		if (r >> i & 1)
			r ^= 0x1100bU << (i - 16);
	return (uint16_t)r;
}

static uint16_t reflect16(uint16_t v)
{
	uint16_t r = 0;
	int i;

	for (i = 0; i < 16; i++, v >>= 1)
		r = (uint16_t)(r << 1 | (v & 1));
	return r;
}

/*
 * A new VL in the LRH's first byte, and the VCRC mended without reading
 * the packet again: a CRC is linear in the message, so changing one byte
 * by D changes the CRC by the CRC (zero state in, none out) of D followed
 * by as many zero bytes as came after it, that is the CRC of D times
 * x^(8 * (n - 1)) mod P, which takes a few square-and-multiply steps.
 */
void sfab_crc_set_vl(uint8_t *pkt, size_t frame_len, unsigned int vl)
{
	uint8_t b0 = (uint8_t)((pkt[0] & 0x0f) | (vl << 4)), d = pkt[0] ^ b0;
	size_t n = frame_len - SFAB_WIRE_VCRC_LEN, k = n - 1;
	uint16_t x8k = 1, sq = 0x100, s;

	if (!d || frame_len < SFAB_WIRE_VCRC_LEN + 1)
		return;
	for (; k; k >>= 1) {
		if (k & 1)
			x8k = mulmod16(x8k, sq);
		sq = mulmod16(sq, sq);
	}
	/* the raw state after D alone, times x^(8k), back to raw form */
	s = reflect16(mulmod16(reflect16(sfab_wire_crc16_raw(0, &d, 1)), x8k));
	pkt[0] = b0;
	put_vcrc(pkt + n, (uint16_t)(((pkt[n] << 8) | pkt[n + 1]) ^ s));
}

static unsigned int check(uint8_t *dst, const uint8_t *pkt, size_t frame_len)
{
	const struct crc_ops *o = ops();
	unsigned int ok = 0;
	uint16_t vcrc;
	size_t n;

	if (frame_len < SFAB_WIRE_VCRC_LEN) {
		if (dst)
			memcpy(dst, pkt, frame_len);
		return 0;
	}
	n = frame_len - SFAB_WIRE_VCRC_LEN;
	if (frame_len >= SFAB_WIRE_LRH_LEN + SFAB_WIRE_VCRC_LEN &&
	    sfab_wire_has_icrc(pkt) && n >= SFAB_WIRE_ICRC_LEN) {
		size_t m = n - SFAB_WIRE_ICRC_LEN;
		uint32_t icrc = icrc_vcrc(o, pkt, m, &vcrc, dst);

		if (pkt[m] == (icrc & 0xff) &&
		    pkt[m + 1] == ((icrc >> 8) & 0xff) &&
		    pkt[m + 2] == ((icrc >> 16) & 0xff) &&
		    pkt[m + 3] == (icrc >> 24))
			ok |= SFAB_CRC_ICRC_OK;
		vcrc = o->c16(vcrc, pkt + m, SFAB_WIRE_ICRC_LEN);
		if (dst)
			memcpy(dst + m, pkt + m, frame_len - m);
	} else {
		if (dst)
			memcpy(dst, pkt, frame_len);
		vcrc = o->c16(0xffff, pkt, n);
	}
	if ((uint16_t)~vcrc == ((pkt[n] << 8) | pkt[n + 1]))
		ok |= SFAB_CRC_VCRC_OK;
	return ok;
}

unsigned int sfab_crc_check(const uint8_t *pkt, size_t frame_len)
{
	return check(NULL, pkt, frame_len);
}

unsigned int sfab_crc_copy_check(uint8_t *dst, const uint8_t *pkt,
				 size_t frame_len)
{
	return check(dst, pkt, frame_len);
}
