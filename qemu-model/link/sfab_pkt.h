/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab packet helpers: build and parse the UD datagrams that carry MADs
 * (QP0/QP1) and test traffic, LRH + BTH + DETH + payload + ICRC + VCRC.
 */
#ifndef SFAB_PKT_H
#define SFAB_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfab/sfab_wire.h"

#define SFAB_PKT_UD_HDR_LEN	(SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN + \
				 SFAB_WIRE_DETH_LEN)
#define SFAB_PKT_UD_MAX_PAYLOAD	(SFAB_WIRE_MAX_PKT_LEN - SFAB_PKT_UD_HDR_LEN - \
				 SFAB_WIRE_ICRC_LEN - SFAB_WIRE_VCRC_LEN)

struct sfab_pkt_ud {
	unsigned int vl, sl;
	uint16_t dlid, slid;
	uint16_t pkey;
	uint32_t dqpn, sqpn, qkey, psn;
	const uint8_t *payload;		/* parse: points into the packet */
	size_t len;			/* payload bytes, pad excluded */
};

/* what a host QP's datagram may carry besides struct sfab_pkt_ud */
struct sfab_pkt_ud_ext {
	bool se;			/* BTH solicited event */
	bool has_imm;			/* SEND only with immediate */
	uint32_t imm;			/* ImmDt, host order of the wire value */
};

/* build into @buf (SFAB_WIRE_MAX_PKT_LEN bytes); return the frame length, 0 if too big */
size_t sfab_link_pkt_build_ud(uint8_t *buf, const struct sfab_pkt_ud *u,
			      const void *payload, size_t len);
/* the same with the solicited bit and an immediate (@x may be NULL) */
size_t sfab_link_pkt_build_ud_ext(uint8_t *buf, const struct sfab_pkt_ud *u,
				  const struct sfab_pkt_ud_ext *x,
				  const void *payload, size_t len);
/* parse a frame the link accepted; false if it is not a UD SEND-only packet */
bool sfab_link_pkt_parse_ud(const uint8_t *frame, size_t len,
			    struct sfab_pkt_ud *u);
/* also accepts SEND-only with immediate; fills @x */
bool sfab_link_pkt_parse_ud_ext(const uint8_t *frame, size_t len,
				struct sfab_pkt_ud *u, struct sfab_pkt_ud_ext *x);

static inline uint16_t sfab_link_pkt_dlid(const uint8_t *frame)
{
	return (frame[2] << 8) | frame[3];
}

static inline uint16_t sfab_link_pkt_slid(const uint8_t *frame)
{
	return (frame[6] << 8) | frame[7];
}

static inline unsigned int sfab_link_pkt_vl(const uint8_t *frame)
{
	return frame[0] >> 4;
}

static inline unsigned int sfab_link_pkt_sl(const uint8_t *frame)
{
	return frame[1] >> 4;
}

#endif /* SFAB_PKT_H */
