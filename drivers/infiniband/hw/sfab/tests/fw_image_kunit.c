// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * KUnit suite sfab_fw_image: sfab_fw_validate() and the image CRC32 of
 * include/sfab/sfab_fw.h, the checks the driver runs before it downloads
 * an image, on a good image built here and on every kind of bad one.
 */

#include <kunit/test.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <sfab/sfab_fw.h>

#define SFAB_TEST_PAYLOAD	1000

static void sfab_fw_image_crc32_vectors(struct kunit *test)
{
	static const char fox[] = "The quick brown fox jumps over the lazy dog";
	u32 crc;

	KUNIT_EXPECT_EQ(test, sfab_crc32_update(0, "123456789", 9), 0xcbf43926U);
	KUNIT_EXPECT_EQ(test, sfab_crc32_update(0, "", 0), 0U);
	KUNIT_EXPECT_EQ(test, sfab_crc32_update(0, "a", 1), 0xe8b7be43U);
	KUNIT_EXPECT_EQ(test, sfab_crc32_update(0, fox, sizeof(fox) - 1),
			0x414fa339U);

	/* the CRC can be computed piecewise */
	crc = sfab_crc32_update(0, "1234", 4);
	crc = sfab_crc32_update(crc, "56789", 5);
	KUNIT_EXPECT_EQ(test, crc, 0xcbf43926U);
}

/* fill the header's CRC for the image as it now is */
static void sfab_fw_seal(void *image, size_t len)
{
	struct sfab_fw_header *h = image;

	h->crc32 = cpu_to_le32(sfab_fw_image_crc(image, len));
}

/* a valid image: header plus SFAB_TEST_PAYLOAD bytes of payload */
static void sfab_fw_build(void *image, size_t len)
{
	struct sfab_fw_header *h = image;
	struct sfab_fw_profile *p = &h->profile;
	u8 *payload = (u8 *)image + sizeof(*h);
	size_t i;

	memset(image, 0, len);
	h->magic = cpu_to_le32(SFAB_FW_MAGIC);
	h->format_version = cpu_to_le16(SFAB_FW_FORMAT_VERSION);
	h->header_len = cpu_to_le16(SFAB_FW_HEADER_SIZE);
	h->image_len = cpu_to_le32(len);
	strscpy(h->fw_version, "1.2.3", sizeof(h->fw_version));
	strscpy(h->board_id, "SFAB-TEST", sizeof(h->board_id));
	p->num_ports = 1;
	p->num_vls = 8;
	p->vl_buf_blocks = cpu_to_le16(512);
	p->max_qp = cpu_to_le32(16384);
	p->max_qp_wr = cpu_to_le32(16384);
	p->max_sge = cpu_to_le32(16);
	p->max_cq = cpu_to_le32(16384);
	p->max_cqe = cpu_to_le32(65536);
	p->max_mr = cpu_to_le32(65536);
	p->max_pd = cpu_to_le32(16384);
	p->max_srq = cpu_to_le32(4096);
	p->max_eq = cpu_to_le32(32);
	p->max_inline = cpu_to_le32(256);
	p->max_msg_size = cpu_to_le32(1U << 30);
	for (i = 0; i < len - sizeof(*h); i++)
		payload[i] = (u8)(i * 7 + 1);
	sfab_fw_seal(image, len);
}

static void *sfab_fw_alloc(struct kunit *test, size_t len)
{
	void *image = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, image);
	sfab_fw_build(image, len);
	return image;
}

static void sfab_fw_image_good(struct kunit *test)
{
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	void *image = sfab_fw_alloc(test, len);

	KUNIT_EXPECT_EQ(test, sfab_fw_validate(image, len), SFAB_AQ_STS_OK);
	/* a header-only image is valid too */
	sfab_fw_build(image, sizeof(struct sfab_fw_header));
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(image, sizeof(struct sfab_fw_header)),
			SFAB_AQ_STS_OK);
}

/* the CRC field does not take part in its own CRC */
static void sfab_fw_image_crc_field_excluded(struct kunit *test)
{
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	struct sfab_fw_header *h = sfab_fw_alloc(test, len);
	u32 crc = sfab_fw_image_crc(h, len);

	h->crc32 = cpu_to_le32(0x12345678);
	KUNIT_EXPECT_EQ(test, sfab_fw_image_crc(h, len), crc);
	h->crc32 = cpu_to_le32(crc);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_OK);
}

static void sfab_fw_image_bad_magic(struct kunit *test)
{
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	struct sfab_fw_header *h = sfab_fw_alloc(test, len);

	h->magic = cpu_to_le32(SFAB_FW_MAGIC ^ 1);
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_MAGIC);
	/* the magic is checked first: a bad CRC does not change the verdict */
	h->crc32 = 0;
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_MAGIC);
	/* nor does the magic's byte order */
	h->magic = (__force __le32)cpu_to_be32(SFAB_FW_MAGIC);
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_MAGIC);
}

static void sfab_fw_image_bad_format(struct kunit *test)
{
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	struct sfab_fw_header *h = sfab_fw_alloc(test, len);

	h->format_version = cpu_to_le16(SFAB_FW_FORMAT_VERSION + 1);
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_FORMAT);
	h->format_version = 0;
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_FORMAT);
}

static void sfab_fw_image_bad_header_len(struct kunit *test)
{
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	struct sfab_fw_header *h = sfab_fw_alloc(test, len);

	h->header_len = cpu_to_le16(SFAB_FW_HEADER_SIZE - 4);
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_SIZE);
	h->header_len = cpu_to_le16(SFAB_FW_HEADER_SIZE + 4);
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_SIZE);
}

static void sfab_fw_image_bad_image_len(struct kunit *test)
{
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	struct sfab_fw_header *h = sfab_fw_alloc(test, len);

	h->image_len = cpu_to_le32(len + 1);
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_SIZE);
	h->image_len = cpu_to_le32(len - 1);
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_SIZE);
}

static void sfab_fw_image_truncated(struct kunit *test)
{
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	struct sfab_fw_header *h = sfab_fw_alloc(test, len);

	/* the file ends before image_len says */
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len - 1), SFAB_AQ_STS_FW_BAD_SIZE);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, sizeof(*h)), SFAB_AQ_STS_FW_BAD_SIZE);
	/* shorter than a header: no field may be read */
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, sizeof(*h) - 1),
			SFAB_AQ_STS_FW_BAD_SIZE);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, 0), SFAB_AQ_STS_FW_BAD_SIZE);
}

KUNIT_DEFINE_ACTION_WRAPPER(sfab_vfree, vfree, const void *);

static void sfab_fw_image_too_large(struct kunit *test)
{
	const size_t len = SFAB_FW_MAX_SIZE + 4;
	void *image = vmalloc(len);

	KUNIT_ASSERT_NOT_NULL(test, image);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, sfab_vfree, image), 0);

	/* consistent in itself, but over the limit */
	sfab_fw_build(image, len);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(image, len), SFAB_AQ_STS_FW_BAD_SIZE);
	/* exactly at the limit is fine */
	sfab_fw_build(image, SFAB_FW_MAX_SIZE);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(image, SFAB_FW_MAX_SIZE),
			SFAB_AQ_STS_OK);
}

static void sfab_fw_image_bad_crc(struct kunit *test)
{
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	struct sfab_fw_header *h = sfab_fw_alloc(test, len);
	u8 *b = (u8 *)h;

	b[len - 1] ^= 0x80;
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_CRC);
	b[len - 1] ^= 0x80;
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_OK);

	h->fw_version[0] ^= 1;
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_CRC);
	h->fw_version[0] ^= 1;
	h->crc32 = cpu_to_le32(le32_to_cpu(h->crc32) + 1);
	KUNIT_EXPECT_EQ(test, sfab_fw_validate(h, len), SFAB_AQ_STS_FW_BAD_CRC);
}

/*
 * One way to spoil a valid profile: a statement on the image's header h,
 * and the verdict expected.
 */
struct sfab_fw_profile_case {
	const char *name;
	void (*spoil)(struct sfab_fw_header *h);
	int status;
};

#define SFAB_SPOIL(_name, _stmt)					\
	static void sfab_fw_spoil_##_name(struct sfab_fw_header *h)	\
	{								\
		_stmt;							\
	}

#define SFAB_PROFILE_CASE(_name, _status) \
	{ #_name, sfab_fw_spoil_##_name, SFAB_AQ_STS_##_status }

SFAB_SPOIL(no_ports, h->profile.num_ports = 0)
SFAB_SPOIL(two_ports, h->profile.num_ports = SFAB_FW_MAX_PORTS + 1)
SFAB_SPOIL(no_vls, h->profile.num_vls = 0)
SFAB_SPOIL(three_vls, h->profile.num_vls = 3)
SFAB_SPOIL(sixteen_vls, h->profile.num_vls = 16)
SFAB_SPOIL(one_vl, h->profile.num_vls = 1)
SFAB_SPOIL(vl_blocks_low,
	   h->profile.vl_buf_blocks = cpu_to_le16(SFAB_FW_MIN_VL_BLOCKS - 1))
SFAB_SPOIL(vl_blocks_min,
	   h->profile.vl_buf_blocks = cpu_to_le16(SFAB_FW_MIN_VL_BLOCKS))
SFAB_SPOIL(vl_blocks_max,
	   h->profile.vl_buf_blocks = cpu_to_le16(SFAB_FW_MAX_VL_BLOCKS))
SFAB_SPOIL(vl_blocks_high,
	   h->profile.vl_buf_blocks = cpu_to_le16(SFAB_FW_MAX_VL_BLOCKS + 1))
SFAB_SPOIL(no_qp, h->profile.max_qp = 0)
SFAB_SPOIL(no_qp_wr, h->profile.max_qp_wr = 0)
SFAB_SPOIL(no_sge, h->profile.max_sge = 0)
SFAB_SPOIL(no_cq, h->profile.max_cq = 0)
SFAB_SPOIL(no_cqe, h->profile.max_cqe = 0)
SFAB_SPOIL(no_mr, h->profile.max_mr = 0)
SFAB_SPOIL(no_pd, h->profile.max_pd = 0)
SFAB_SPOIL(no_eq, h->profile.max_eq = 0)
SFAB_SPOIL(no_msg_size, h->profile.max_msg_size = 0)
SFAB_SPOIL(msg_size_max,
	   h->profile.max_msg_size = cpu_to_le32(SFAB_FW_MAX_MSG_SIZE))
SFAB_SPOIL(msg_size_high,
	   h->profile.max_msg_size = cpu_to_le32(SFAB_FW_MAX_MSG_SIZE + 1))
SFAB_SPOIL(msg_size_iba, h->profile.max_msg_size = cpu_to_le32(1U << 31))
SFAB_SPOIL(no_srq, h->profile.max_srq = 0)
SFAB_SPOIL(no_inline, h->profile.max_inline = 0)
SFAB_SPOIL(empty_fw_version, h->fw_version[0] = '\0')
SFAB_SPOIL(unterminated_fw_version,
	   memset(h->fw_version, '1', sizeof(h->fw_version)))
SFAB_SPOIL(empty_board_id, h->board_id[0] = '\0')
SFAB_SPOIL(unterminated_board_id,
	   memset(h->board_id, 'B', sizeof(h->board_id)))

static const struct sfab_fw_profile_case sfab_fw_profile_cases[] = {
	SFAB_PROFILE_CASE(no_ports, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(two_ports, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_vls, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(three_vls, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(sixteen_vls, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(one_vl, OK),
	SFAB_PROFILE_CASE(vl_blocks_low, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(vl_blocks_min, OK),
	SFAB_PROFILE_CASE(vl_blocks_max, OK),
	SFAB_PROFILE_CASE(vl_blocks_high, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_qp, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_qp_wr, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_sge, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_cq, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_cqe, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_mr, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_pd, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_eq, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_msg_size, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(msg_size_max, OK),
	SFAB_PROFILE_CASE(msg_size_high, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(msg_size_iba, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(no_srq, OK),
	SFAB_PROFILE_CASE(no_inline, OK),
	SFAB_PROFILE_CASE(empty_fw_version, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(unterminated_fw_version, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(empty_board_id, FW_BAD_PROFILE),
	SFAB_PROFILE_CASE(unterminated_board_id, FW_BAD_PROFILE),
};

static void sfab_fw_profile_case_desc(const struct sfab_fw_profile_case *c,
				      char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sfab_fw_profile, sfab_fw_profile_cases,
		  sfab_fw_profile_case_desc);

/* each profile limit, with the CRC resealed so that only the limit trips */
static void sfab_fw_image_profile_limits(struct kunit *test)
{
	const struct sfab_fw_profile_case *c = test->param_value;
	const size_t len = sizeof(struct sfab_fw_header) + SFAB_TEST_PAYLOAD;
	struct sfab_fw_header *h = sfab_fw_alloc(test, len);

	c->spoil(h);
	sfab_fw_seal(h, len);
	KUNIT_EXPECT_EQ_MSG(test, sfab_fw_validate(h, len), c->status,
			    "profile case %s", c->name);
}

/* the reasons the driver prints for a rejected image */
static void sfab_fw_image_status_str(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, sfab_aq_status_str(SFAB_AQ_STS_OK), "ok");
	KUNIT_EXPECT_STREQ(test, sfab_aq_status_str(SFAB_AQ_STS_FW_BAD_MAGIC),
			   "bad magic");
	KUNIT_EXPECT_STREQ(test, sfab_aq_status_str(SFAB_AQ_STS_FW_BAD_FORMAT),
			   "unsupported format version");
	KUNIT_EXPECT_STREQ(test, sfab_aq_status_str(SFAB_AQ_STS_FW_BAD_SIZE),
			   "inconsistent size");
	KUNIT_EXPECT_STREQ(test, sfab_aq_status_str(SFAB_AQ_STS_FW_BAD_CRC),
			   "CRC mismatch");
	KUNIT_EXPECT_STREQ(test, sfab_aq_status_str(SFAB_AQ_STS_FW_BAD_PROFILE),
			   "bad device profile");
	KUNIT_EXPECT_STREQ(test, sfab_aq_status_str(0xee), "unknown status");
}

static struct kunit_case sfab_fw_image_cases[] = {
	KUNIT_CASE(sfab_fw_image_crc32_vectors),
	KUNIT_CASE(sfab_fw_image_good),
	KUNIT_CASE(sfab_fw_image_crc_field_excluded),
	KUNIT_CASE(sfab_fw_image_bad_magic),
	KUNIT_CASE(sfab_fw_image_bad_format),
	KUNIT_CASE(sfab_fw_image_bad_header_len),
	KUNIT_CASE(sfab_fw_image_bad_image_len),
	KUNIT_CASE(sfab_fw_image_truncated),
	KUNIT_CASE(sfab_fw_image_too_large),
	KUNIT_CASE(sfab_fw_image_bad_crc),
	KUNIT_CASE_PARAM(sfab_fw_image_profile_limits, sfab_fw_profile_gen_params),
	KUNIT_CASE(sfab_fw_image_status_str),
	{}
};

static struct kunit_suite sfab_fw_image_suite = {
	.name = "sfab_fw_image",
	.test_cases = sfab_fw_image_cases,
};

kunit_test_suite(sfab_fw_image_suite);
