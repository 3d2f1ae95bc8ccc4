/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sfab hardware contract: portable base types and field accessors.
 *
 * Every layer (kernel driver, QEMU model, rdma-core provider, host tools)
 * includes the contract headers in include/sfab/.  This file gives them
 * one vocabulary: explicitly little-endian (__le*) device structures,
 * big-endian (__be*) IBA wire fields, GENMASK-style field masks and
 * compile-time size checks.  Both worlds also get bool and the errno
 * values: the contract's helpers (static inlines, kernel style) return
 * -EINVAL where a request has no answer.
 */
#ifndef _SFAB_TYPES_H_
#define _SFAB_TYPES_H_

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/bits.h>
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#define SFAB_GENMASK(h, l)		GENMASK(h, l)
#define SFAB_FIELD_GET(mask, val)	FIELD_GET(mask, val)
#define SFAB_FIELD_PREP(mask, val)	FIELD_PREP(mask, val)
#define SFAB_STATIC_ASSERT(expr)	static_assert(expr)
#define SFAB_FORCE			__force

#define sfab_le16_to_cpu(x)	le16_to_cpu(x)
#define sfab_le32_to_cpu(x)	le32_to_cpu(x)
#define sfab_le64_to_cpu(x)	le64_to_cpu(x)
#define sfab_cpu_to_le16(x)	cpu_to_le16(x)
#define sfab_cpu_to_le32(x)	cpu_to_le32(x)
#define sfab_cpu_to_le64(x)	cpu_to_le64(x)
#define sfab_be16_to_cpu(x)	be16_to_cpu(x)
#define sfab_be32_to_cpu(x)	be32_to_cpu(x)
#define sfab_be64_to_cpu(x)	be64_to_cpu(x)
#define sfab_cpu_to_be16(x)	cpu_to_be16(x)
#define sfab_cpu_to_be32(x)	cpu_to_be32(x)
#define sfab_cpu_to_be64(x)	cpu_to_be64(x)

#elif defined(__CUDACC__)
/*
 * CUDA (nvcc, host and device passes): the provider's device-side header
 * (sfabdv_cuda.cuh) compiles the queue helpers for the GPU.  GPUs and the
 * hosts they sit in are little-endian; the byte swaps are written out, as
 * device code has no <endian.h>.
 */
#include <stdint.h>
#include <stddef.h>
#include <errno.h>
#include <string.h>
#include <linux/types.h>

static __host__ __device__ __forceinline__ unsigned int sfab_ctz32(uint32_t m)
{
	unsigned int n = 0;

	while (m && !(m & 1)) {
		m >>= 1;
		n++;
	}
	return n;
}

#define SFAB_GENMASK(h, l) \
	(((~0U) >> (31 - (h))) & ~((1U << (l)) - 1U))
#define SFAB_FIELD_GET(mask, val) \
	(((val) & (mask)) >> sfab_ctz32(mask))
#define SFAB_FIELD_PREP(mask, val) \
	(((uint32_t)(val) << sfab_ctz32(mask)) & (mask))
#define SFAB_STATIC_ASSERT(expr)	static_assert(expr, #expr)
#define SFAB_FORCE

#define sfab_bswap16(x)		((uint16_t)((uint16_t)(x) >> 8 | (uint16_t)(x) << 8))
#define sfab_bswap32(x)		((uint32_t)sfab_bswap16((uint32_t)(x) >> 16) | \
				 (uint32_t)sfab_bswap16(x) << 16)
#define sfab_bswap64(x)		((uint64_t)sfab_bswap32((uint64_t)(x) >> 32) | \
				 (uint64_t)sfab_bswap32(x) << 32)
#define sfab_le16_to_cpu(x)	((uint16_t)(x))
#define sfab_le32_to_cpu(x)	((uint32_t)(x))
#define sfab_le64_to_cpu(x)	((uint64_t)(x))
#define sfab_cpu_to_le16(x)	((__le16)(x))
#define sfab_cpu_to_le32(x)	((__le32)(x))
#define sfab_cpu_to_le64(x)	((__le64)(x))
#define sfab_be16_to_cpu(x)	sfab_bswap16(x)
#define sfab_be32_to_cpu(x)	sfab_bswap32(x)
#define sfab_be64_to_cpu(x)	sfab_bswap64(x)
#define sfab_cpu_to_be16(x)	((__be16)sfab_bswap16(x))
#define sfab_cpu_to_be32(x)	((__be32)sfab_bswap32(x))
#define sfab_cpu_to_be64(x)	((__be64)sfab_bswap64(x))

#else /* user space: QEMU model, provider, tools, host tests */
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <errno.h>
#include <string.h>
#include <endian.h>
#include <linux/types.h>

#define SFAB_GENMASK(h, l) \
	(((~0U) >> (31 - (h))) & ~((1U << (l)) - 1U))
#define SFAB_FIELD_GET(mask, val) \
	(((val) & (mask)) >> __builtin_ctz(mask))
#define SFAB_FIELD_PREP(mask, val) \
	(((uint32_t)(val) << __builtin_ctz(mask)) & (mask))
#define SFAB_STATIC_ASSERT(expr)	_Static_assert(expr, #expr)
#define SFAB_FORCE

#define sfab_le16_to_cpu(x)	le16toh((uint16_t)(x))
#define sfab_le32_to_cpu(x)	le32toh((uint32_t)(x))
#define sfab_le64_to_cpu(x)	le64toh((uint64_t)(x))
#define sfab_cpu_to_le16(x)	((__le16)htole16(x))
#define sfab_cpu_to_le32(x)	((__le32)htole32(x))
#define sfab_cpu_to_le64(x)	((__le64)htole64(x))
#define sfab_be16_to_cpu(x)	be16toh((uint16_t)(x))
#define sfab_be32_to_cpu(x)	be32toh((uint32_t)(x))
#define sfab_be64_to_cpu(x)	be64toh((uint64_t)(x))
#define sfab_cpu_to_be16(x)	((__be16)htobe16(x))
#define sfab_cpu_to_be32(x)	((__be32)htobe32(x))
#define sfab_cpu_to_be64(x)	((__be64)htobe64(x))
#endif

/* Check a structure's size against the contract's documented size. */
#define SFAB_CHECK_SIZE(type, size) \
	SFAB_STATIC_ASSERT(sizeof(type) == (size))

#endif /* _SFAB_TYPES_H_ */
