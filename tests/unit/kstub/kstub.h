/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit/contract-headers: a kernel-like world for compiling the contract
 * headers alone with -D__KERNEL__ -nostdinc -ffreestanding: what
 * <linux/types.h>, <linux/bits.h>, <linux/bitfield.h>, <linux/errno.h>,
 * <linux/build_bug.h>, <linux/string.h> and <asm/byteorder.h> give the
 * kernel's sfab_types.h branch, defined the way the kernel defines them
 * (no libc header is reachable), so a contract header that needs anything
 * else does not compile here.
 */
#ifndef _SFAB_KSTUB_H_
#define _SFAB_KSTUB_H_

#ifndef __KERNEL__
#error "kstub is the kernel-like world only"
#endif

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT8_TYPE__ s8;
typedef __INT16_TYPE__ s16;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s8 __s8;
typedef s16 __s16;
typedef s32 __s32;
typedef s64 __s64;
typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef __SIZE_TYPE__ size_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef _Bool bool;
enum { false = 0, true = 1 };
#define NULL ((void *)0)
#define offsetof(t, m) __builtin_offsetof(t, m)
#define __force

#define EINVAL 22
#define ENOMEM 12

#define BITS_PER_LONG (8 * (int)sizeof(long))
#define GENMASK(h, l) \
	(((~0UL) - (1UL << (l)) + 1) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define FIELD_GET(mask, val) \
	((__typeof__(mask))(((val) & (mask)) >> __builtin_ctzll(mask)))
#define FIELD_PREP(mask, val) \
	((((__typeof__(mask))(val)) << __builtin_ctzll(mask)) & (mask))
#define static_assert(expr) _Static_assert(expr, #expr)

#define memset(d, c, n) __builtin_memset(d, c, n)
#define memcpy(d, s, n) __builtin_memcpy(d, s, n)
#define memchr(s, c, n) __builtin_memchr(s, c, n)
#define memcmp(a, b, n) __builtin_memcmp(a, b, n)

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define le16_to_cpu(x) ((u16)(x))
#define le32_to_cpu(x) ((u32)(x))
#define le64_to_cpu(x) ((u64)(x))
#define be16_to_cpu(x) __builtin_bswap16(x)
#define be32_to_cpu(x) __builtin_bswap32(x)
#define be64_to_cpu(x) __builtin_bswap64(x)
#else
#define le16_to_cpu(x) __builtin_bswap16(x)
#define le32_to_cpu(x) __builtin_bswap32(x)
#define le64_to_cpu(x) __builtin_bswap64(x)
#define be16_to_cpu(x) ((u16)(x))
#define be32_to_cpu(x) ((u32)(x))
#define be64_to_cpu(x) ((u64)(x))
#endif
#define cpu_to_le16(x) le16_to_cpu(x)
#define cpu_to_le32(x) le32_to_cpu(x)
#define cpu_to_le64(x) le64_to_cpu(x)
#define cpu_to_be16(x) be16_to_cpu(x)
#define cpu_to_be32(x) be32_to_cpu(x)
#define cpu_to_be64(x) be64_to_cpu(x)

#endif /* _SFAB_KSTUB_H_ */
