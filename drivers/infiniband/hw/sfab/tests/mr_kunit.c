// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_mr: the page list an MR hands the device, built from a
 * DMA-mapped scatterlist the way a dma-buf umem has one after
 * ib_umem_dmabuf_map_pages() (trimmed to the pages of the region), with
 * segments of mixed sizes, discontiguous and contiguous runs, a region
 * that starts and ends inside a page; the page size chosen for a pinned
 * and for a movable (dma-buf that follows moves) MR; a layout no page
 * size fits; a scatterlist shorter than the region; and UPDATE_MR's wire
 * encoding down to its bytes.  No device needed.
 */

#include <kunit/test.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>

#include <rdma/ib_umem.h>

#include "../sfab.h"

/* every MR page size the device may have: 4 KiB .. 1 GiB */
#define SFAB_TEST_PGSZ_CAP	GENMASK_ULL(30, 12)

struct sfab_test_seg {
	u64 dma;
	unsigned int len;
};

struct sfab_test_umem {
	struct ib_umem umem;
	struct scatterlist sgl[8];
};

/*
 * A umem as a dma-buf's looks once mapped: @address is the region's
 * offset in the buffer, the scatterlist begins at the page that holds it
 */
static void sfab_test_umem_init(struct sfab_test_umem *t,
				const struct sfab_test_seg *segs,
				unsigned int n, unsigned long address,
				size_t length)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	sg_init_table(t->sgl, n);
	for (i = 0; i < n; i++) {
		sg_dma_address(&t->sgl[i]) = segs[i].dma;
		sg_dma_len(&t->sgl[i]) = segs[i].len;
	}
	t->umem.sgt_append.sgt.sgl = t->sgl;
	t->umem.sgt_append.sgt.nents = n;
	t->umem.sgt_append.sgt.orig_nents = n;
	t->umem.address = address;
	t->umem.length = length;
	t->umem.is_dmabuf = 1;
}

static void sfab_test_need_4k(struct kunit *test)
{
	if (PAGE_SIZE != SZ_4K)
		kunit_skip(test, "the expected lists are written for 4 KiB pages");
}

/*
 * Segments of 8, 4, 16 and 4 KiB, the first two contiguous, the others
 * apart; the region starts 0x800 into the first page and ends 0x100
 * before the last one's end.  Discontiguities on 4 KiB boundaries allow
 * 4 KiB pages and no larger: eight entries, one per page, the first
 * holding the region's first byte.
 */
static void sfab_mr_pbl_mixed_segments(struct kunit *test)
{
	static const struct sfab_test_seg segs[] = {
		{ 0x100003000ULL, SZ_8K },
		{ 0x100005000ULL, SZ_4K },
		{ 0x200200000ULL, SZ_16K },
		{ 0x300007000ULL, SZ_4K },
	};
	static const u64 want[] = {
		0x100003000ULL, 0x100004000ULL, 0x100005000ULL,
		0x200200000ULL, 0x200201000ULL, 0x200202000ULL, 0x200203000ULL,
		0x300007000ULL,
	};
	const u64 iova = 0x7f0000000800ULL;
	struct sfab_test_umem *t;
	__le64 buf[ARRAY_SIZE(want) + 1];
	unsigned long pgsz;
	unsigned int i;

	sfab_test_need_4k(test);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	sfab_test_umem_init(t, segs, ARRAY_SIZE(segs), 0x1800,
			    SZ_32K - 0x800 - 0x100);

	pgsz = sfab_mr_pgsz(&t->umem, SFAB_TEST_PGSZ_CAP, iova, false);
	KUNIT_ASSERT_EQ(test, pgsz, SZ_4K);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(&t->umem, pgsz),
			ARRAY_SIZE(want));
	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, sfab_pbl_fill(buf, ARRAY_SIZE(want), &t->umem, pgsz),
			ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, le64_to_cpu(buf[i]), want[i],
				    "entry %u", i);
	/* nothing past the room it was given */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[ARRAY_SIZE(want)]),
			0xa5a5a5a5a5a5a5a5ULL);
	/* a movable MR has the same 4 KiB list */
	KUNIT_EXPECT_EQ(test, sfab_mr_pgsz(&t->umem, SFAB_TEST_PGSZ_CAP, iova,
					   true), SZ_4K);
}

/*
 * 4 MiB in two contiguous 2 MiB segments starting on an odd 2 MiB
 * boundary, mapped at a 4 MiB-aligned iova: a pinned MR gets two 2 MiB
 * pages; a movable one 4 KiB pages (1024), whatever its placement now,
 * so that a later placement fits the same list.
 */
static void sfab_mr_pbl_movable_page_size(struct kunit *test)
{
	static const struct sfab_test_seg segs[] = {
		{ 0x4000200000ULL, SZ_2M },
		{ 0x4000400000ULL, SZ_2M },
	};
	const u64 iova = 0x100000000000ULL;
	struct sfab_test_umem *t;
	unsigned long pgsz;
	__le64 *buf;
	size_t n;

	sfab_test_need_4k(test);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	buf = kunit_kcalloc(test, 1024, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	sfab_test_umem_init(t, segs, ARRAY_SIZE(segs), 0, SZ_4M);

	pgsz = sfab_mr_pgsz(&t->umem, SFAB_TEST_PGSZ_CAP, iova, false);
	KUNIT_ASSERT_EQ(test, pgsz, SZ_2M);
	n = ib_umem_num_dma_blocks(&t->umem, pgsz);
	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_ASSERT_EQ(test, sfab_pbl_fill(buf, n, &t->umem, pgsz), 2);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[0]), 0x4000200000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[1]), 0x4000400000ULL);
	/* a device without 2 MiB pages: the next size down that fits */
	KUNIT_EXPECT_EQ(test, sfab_mr_pgsz(&t->umem, SZ_4K | SZ_64K | SZ_1G,
					   iova, false), SZ_64K);

	pgsz = sfab_mr_pgsz(&t->umem, SFAB_TEST_PGSZ_CAP, iova, true);
	KUNIT_ASSERT_EQ(test, pgsz, SZ_4K);
	n = ib_umem_num_dma_blocks(&t->umem, pgsz);
	KUNIT_ASSERT_EQ(test, n, 1024);
	KUNIT_ASSERT_EQ(test, sfab_pbl_fill(buf, n, &t->umem, pgsz), 1024);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[0]), 0x4000200000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[511]), 0x40003ff000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[512]), 0x4000400000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(buf[1023]), 0x40005ff000ULL);
}

/*
 * A segment that ends inside a page, the next elsewhere: no page size
 * of the device maps it, pinned or not (reg_user_mr_dmabuf: -EINVAL; a
 * re-map after a move: the MR stays invalid).
 */
static void sfab_mr_pbl_no_page_size(struct kunit *test)
{
	static const struct sfab_test_seg segs[] = {
		{ 0x100000000ULL, SZ_4K + 0x200 },
		{ 0x200000000ULL, SZ_4K },
	};
	struct sfab_test_umem *t;

	sfab_test_need_4k(test);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	sfab_test_umem_init(t, segs, ARRAY_SIZE(segs), 0, SZ_8K + 0x200);
	KUNIT_EXPECT_EQ(test, sfab_mr_pgsz(&t->umem, SFAB_TEST_PGSZ_CAP,
					   0x10000, false), 0);
	KUNIT_EXPECT_EQ(test, sfab_mr_pgsz(&t->umem, SFAB_TEST_PGSZ_CAP,
					   0x10000, true), 0);
}

/* a scatterlist shorter than the region: fewer entries, never more */
static void sfab_mr_pbl_short_list(struct kunit *test)
{
	static const struct sfab_test_seg segs[] = {
		{ 0x100000000ULL, SZ_8K },
	};
	struct sfab_test_umem *t;
	__le64 buf[4];

	sfab_test_need_4k(test);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	sfab_test_umem_init(t, segs, ARRAY_SIZE(segs), 0, SZ_16K);
	/* one 8 KiB run at a 16 KiB-aligned iova: pinned, 16 KiB pages */
	KUNIT_EXPECT_EQ(test, sfab_mr_pgsz(&t->umem, SFAB_TEST_PGSZ_CAP,
					   0x40000, false), SZ_16K);
	KUNIT_ASSERT_EQ(test, sfab_mr_pgsz(&t->umem, SFAB_TEST_PGSZ_CAP,
					   0x40000, true), SZ_4K);
	KUNIT_EXPECT_EQ(test, ib_umem_num_dma_blocks(&t->umem, SZ_4K), 4);
	KUNIT_EXPECT_EQ(test, sfab_pbl_fill(buf, 4, &t->umem, SZ_4K), 2);
}

/* UPDATE_MR's command body, byte by byte (little-endian) */
static void sfab_mr_update_encode(struct kunit *test)
{
	static const u8 want[32] = {
		0x00, 0x45, 0x23, 0x01,		/* key */
		0x07, 0x00, 0x00, 0x00,		/* pdn */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* pbl_addr */
		0x03, 0x02, 0x01, 0x00,		/* npages */
		SFAB_MR_UPDATE_REMAP,		/* op */
		12,				/* page_shift */
		0x00, 0x00,			/* reserved */
		0x00, 0x00, 0x00, 0x00,		/* new_pdn */
		0x00, 0x00, 0x00, 0x00,		/* new_access */
	};
	struct sfab_com_update_mr p = {
		.key = 0x01234500,
		.pdn = 7,
		.pbl_addr = 0x1122334455667788ULL,
		.npages = 0x10203,
		.op = SFAB_MR_UPDATE_REMAP,
		.page_shift = 12,
	};
	struct sfab_aq_update_mr w;

	memset(&w, 0xff, sizeof(w));
	sfab_com_update_mr_encode(&w, &p);
	KUNIT_EXPECT_MEMEQ(test, &w, want, sizeof(want));

	/* INVALIDATE: no list, no shift */
	p = (struct sfab_com_update_mr){
		.key = 0x300, .pdn = 1, .op = SFAB_MR_UPDATE_INVALIDATE,
	};
	sfab_com_update_mr_encode(&w, &p);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(w.key), 0x300);
	KUNIT_EXPECT_EQ(test, w.op, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(w.pbl_addr), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(w.npages), 0);
	KUNIT_EXPECT_EQ(test, w.page_shift, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(w.reserved), 0);

	/* MODIFY: the new PD and rights, no list */
	p = (struct sfab_com_update_mr){
		.key = 0x300, .pdn = 1, .op = SFAB_MR_UPDATE_MODIFY,
		.new_pdn = 0x20304, .new_access = SFAB_ACCESS_LOCAL_WRITE |
						  SFAB_ACCESS_REMOTE_READ,
	};
	sfab_com_update_mr_encode(&w, &p);
	KUNIT_EXPECT_EQ(test, w.op, 3);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(w.pdn), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(w.new_pdn), 0x20304);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(w.new_access), 0x5);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(w.pbl_addr), 0);
}

static struct kunit_case sfab_mr_cases[] = {
	KUNIT_CASE(sfab_mr_pbl_mixed_segments),
	KUNIT_CASE(sfab_mr_pbl_movable_page_size),
	KUNIT_CASE(sfab_mr_pbl_no_page_size),
	KUNIT_CASE(sfab_mr_pbl_short_list),
	KUNIT_CASE(sfab_mr_update_encode),
	{}
};

static struct kunit_suite sfab_mr_suite = {
	.name = "sfab_mr",
	.test_cases = sfab_mr_cases,
};

kunit_test_suite(sfab_mr_suite);

/* the page list and the encoding are sfab.ko's, through VISIBLE_IF_KUNIT */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
