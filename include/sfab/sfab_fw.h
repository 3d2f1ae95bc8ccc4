/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * sfab hardware contract v1: firmware image format and its validation.
 *
 * An image is a 256-byte little-endian header followed by a payload.  The
 * header's crc32 is the IEEE 802.3 CRC32 (as zlib's crc32()) of the whole
 * image with the crc32 field itself taken as zero.  The device verifies an
 * image on SFAB_AQ_FW_ACTIVATE; the driver checks it with the same code
 * before downloading.  Documentation/sfab/firmware.rst describes it.
 */
#ifndef _SFAB_FW_H_
#define _SFAB_FW_H_

#include "sfab_types.h"
#include "sfab_admin.h"

#define SFAB_FW_MAGIC			0x57464653	/* "SFFW" */
#define SFAB_FW_FORMAT_VERSION		1
#define SFAB_FW_HEADER_SIZE		256
#define SFAB_FW_MAX_SIZE		(1U << 20)
#define SFAB_FW_MAX_CHUNK		(1U << 16)
#define SFAB_FW_NAME			"sfab/sfab-hca.fw"

/* device profile limits an image may ask for */
#define SFAB_FW_MAX_PORTS		1
#define SFAB_FW_MAX_VLS			8
#define SFAB_FW_MIN_VL_BLOCKS		8	/* one 4 KiB-MTU packet needs 66 */
#define SFAB_FW_MAX_VL_BLOCKS		4096
/*
 * The largest message: 2^22 packets at the smallest MTU (256), so a READ's
 * responses never span the 2^23 PSNs that 24-bit PSN arithmetic can tell
 * apart (IBA 9.7.1).  IBA's own limit, 2^31 bytes, would span all of them.
 */
#define SFAB_FW_MAX_MSG_SIZE		(1U << 30)

/* the device profile: what the firmware configures the HCA as */
struct sfab_fw_profile {
	__u8 num_ports;			/* IB ports, 1..SFAB_FW_MAX_PORTS */
	__u8 num_vls;			/* data VLs, 1, 2, 4 or 8 */
	__le16 vl_buf_blocks;		/* per-VL input buffer, 64-byte blocks */
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_sge;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_srq;
	__le32 max_eq;
	__le32 max_inline;
	__le32 max_msg_size;		/* bytes, 1..SFAB_FW_MAX_MSG_SIZE */
	__u8 reserved[16];
};

struct sfab_fw_header {
	__le32 magic;			/* SFAB_FW_MAGIC */
	__le16 format_version;		/* SFAB_FW_FORMAT_VERSION */
	__le16 header_len;		/* SFAB_FW_HEADER_SIZE */
	__le32 image_len;		/* header + payload, bytes */
	__le32 crc32;			/* of the image, this field as zero */
	char fw_version[SFAB_FW_VERSION_LEN];	/* "major.minor.patch", NUL terminated */
	char board_id[SFAB_BOARD_ID_LEN];	/* NUL terminated */
	struct sfab_fw_profile profile;
	__u8 reserved[128];
};

SFAB_CHECK_SIZE(struct sfab_fw_profile, 64);
SFAB_CHECK_SIZE(struct sfab_fw_header, SFAB_FW_HEADER_SIZE);

/* CRC32 (IEEE 802.3, reflected 0xedb88320), bitwise: images are small */
static inline __u32 sfab_crc32_update(__u32 crc, const void *buf, size_t len)
{
	const __u8 *p = buf;
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1U)));
	}
	return ~crc;
}

/* the image CRC: everything, with the header's crc32 field read as zero */
static inline __u32 sfab_fw_image_crc(const void *image, size_t len)
{
	static const __u8 zero[4];
	const size_t off = offsetof(struct sfab_fw_header, crc32);
	const __u8 *p = image;
	__u32 crc;

	crc = sfab_crc32_update(0, p, off);
	crc = sfab_crc32_update(crc, zero, sizeof(zero));
	return sfab_crc32_update(crc, p + off + 4, len - off - 4);
}

static inline int sfab_fw_str_ok(const char *s, size_t n)
{
	return s[0] != '\0' && memchr(s, '\0', n) != NULL;
}

/*
 * sfab_fw_validate() - check a complete image.
 * Return: SFAB_AQ_STS_OK or the SFAB_AQ_STS_FW_* code naming the first
 * problem found, in the order magic, format, size, CRC, profile.
 */
static inline int sfab_fw_validate(const void *image, size_t len)
{
	const struct sfab_fw_header *h = image;
	const struct sfab_fw_profile *p = &h->profile;
	__u32 blocks;

	if (len < sizeof(*h))
		return SFAB_AQ_STS_FW_BAD_SIZE;
	if (sfab_le32_to_cpu(h->magic) != SFAB_FW_MAGIC)
		return SFAB_AQ_STS_FW_BAD_MAGIC;
	if (sfab_le16_to_cpu(h->format_version) != SFAB_FW_FORMAT_VERSION)
		return SFAB_AQ_STS_FW_BAD_FORMAT;
	if (sfab_le16_to_cpu(h->header_len) != SFAB_FW_HEADER_SIZE ||
	    sfab_le32_to_cpu(h->image_len) != len || len > SFAB_FW_MAX_SIZE)
		return SFAB_AQ_STS_FW_BAD_SIZE;
	if (sfab_fw_image_crc(image, len) != sfab_le32_to_cpu(h->crc32))
		return SFAB_AQ_STS_FW_BAD_CRC;

	blocks = sfab_le16_to_cpu(p->vl_buf_blocks);
	if (!sfab_fw_str_ok(h->fw_version, sizeof(h->fw_version)) ||
	    !sfab_fw_str_ok(h->board_id, sizeof(h->board_id)) ||
	    p->num_ports < 1 || p->num_ports > SFAB_FW_MAX_PORTS ||
	    !(p->num_vls == 1 || p->num_vls == 2 || p->num_vls == 4 ||
	      p->num_vls == 8) ||
	    blocks < SFAB_FW_MIN_VL_BLOCKS || blocks > SFAB_FW_MAX_VL_BLOCKS ||
	    !sfab_le32_to_cpu(p->max_qp) || !sfab_le32_to_cpu(p->max_qp_wr) ||
	    !sfab_le32_to_cpu(p->max_sge) || !sfab_le32_to_cpu(p->max_cq) ||
	    !sfab_le32_to_cpu(p->max_cqe) || !sfab_le32_to_cpu(p->max_mr) ||
	    !sfab_le32_to_cpu(p->max_pd) || !sfab_le32_to_cpu(p->max_eq) ||
	    !sfab_le32_to_cpu(p->max_msg_size) ||
	    sfab_le32_to_cpu(p->max_msg_size) > SFAB_FW_MAX_MSG_SIZE)
		return SFAB_AQ_STS_FW_BAD_PROFILE;
	return SFAB_AQ_STS_OK;
}

/* a short human-readable reason for an SFAB_AQ_STS_* code */
static inline const char *sfab_aq_status_str(int status)
{
	switch (status) {
	case SFAB_AQ_STS_OK:		return "ok";
	case SFAB_AQ_STS_BAD_OPCODE:	return "unknown opcode";
	case SFAB_AQ_STS_BAD_PARAM:	return "bad parameter";
	case SFAB_AQ_STS_BAD_STATE:	return "wrong device state";
	case SFAB_AQ_STS_NO_RESOURCES:	return "no resources";
	case SFAB_AQ_STS_DMA_ERROR:	return "DMA error";
	case SFAB_AQ_STS_NO_FW:		return "no active firmware";
	case SFAB_AQ_STS_DEV_ERROR:	return "device error";
	case SFAB_AQ_STS_FW_BAD_MAGIC:	return "bad magic";
	case SFAB_AQ_STS_FW_BAD_FORMAT:	return "unsupported format version";
	case SFAB_AQ_STS_FW_BAD_SIZE:	return "inconsistent size";
	case SFAB_AQ_STS_FW_BAD_CRC:	return "CRC mismatch";
	case SFAB_AQ_STS_FW_BAD_PROFILE: return "bad device profile";
	default:			return "unknown status";
	}
}

#endif /* _SFAB_FW_H_ */
