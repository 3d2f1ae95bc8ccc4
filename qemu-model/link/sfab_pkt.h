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
	uint32_t dlid, slid;		/* above 0xffff: an extended LRH */
	uint16_t pkey;
	uint32_t dqpn, sqpn, qkey, psn;
	const uint8_t *payload;		/* parse: points into the packet */
	size_t len;			/* payload bytes, pad excluded */
};

/*
 * A GRH (IBTA 8.3): LNH IBA global, between the LRH and the BTH.  Build
 * fills IPVer 6, PayLen and NxtHdr itself.
 */
struct sfab_pkt_grh {
	uint8_t tclass;
	uint32_t flow_label;		/* 20 bits */
	uint8_t hop_limit;
	uint8_t sgid[16], dgid[16];
	const uint8_t *raw;		/* parse: the 40 bytes in the packet */
};

/* what a host QP's datagram may carry besides struct sfab_pkt_ud */
struct sfab_pkt_ud_ext {
	bool se;			/* BTH solicited event */
	bool has_imm;			/* SEND only with immediate */
	uint32_t imm;			/* ImmDt, host order of the wire value */
	bool has_grh;			/* a GRH: build adds it, parse found it */
	struct sfab_pkt_grh grh;
};

/* build into @buf (SFAB_WIRE_MAX_PKT_LEN bytes); return the frame length, 0 if too big */
size_t sfab_link_pkt_build_ud(uint8_t *buf, const struct sfab_pkt_ud *u,
			      const void *payload, size_t len);
/* the same with the solicited bit and an immediate (@x may be NULL) */
size_t sfab_link_pkt_build_ud_ext(uint8_t *buf, const struct sfab_pkt_ud *u,
				  const struct sfab_pkt_ud_ext *x,
				  const void *payload, size_t len);
/*
 * parse a frame the link accepted; false if it is not a UD SEND-only packet
 * or has a GRH
 */
bool sfab_link_pkt_parse_ud(const uint8_t *frame, size_t len,
			    struct sfab_pkt_ud *u);
/* also accepts SEND-only with immediate and a GRH; fills @x */
bool sfab_link_pkt_parse_ud_ext(const uint8_t *frame, size_t len,
				struct sfab_pkt_ud *u, struct sfab_pkt_ud_ext *x);

/*
 * RC and UC packets (IBTA 9.2-9.3, GRH optional): the extension headers
 * each opcode carries, in wire order after the BTH.
 */
#define SFAB_PKT_RETH		(1U << 0)
#define SFAB_PKT_ATOMIC_ETH	(1U << 1)
#define SFAB_PKT_AETH		(1U << 2)
#define SFAB_PKT_ATOMIC_ACK	(1U << 3)
#define SFAB_PKT_IMM		(1U << 4)	/* ImmDt */
#define SFAB_PKT_IETH		(1U << 5)
#define SFAB_PKT_PAYLOAD	(1U << 6)	/* may carry data */
#define SFAB_PKT_VALID		(1U << 7)	/* a known RC/UC opcode */
#define SFAB_PKT_FETH		(1U << 8)	/* FLUSH: before the RETH */
#define SFAB_PKT_XRCETH		(1U << 9)	/* XRC requests: first of all */

struct sfab_pkt_rc {
	unsigned int vl, sl;
	uint32_t dlid, slid;		/* above 0xffff: an extended LRH */
	uint16_t pkey;
	uint8_t opcode;			/* the full BTH opcode */
	bool se, ackreq;
	uint32_t dqpn, psn;
	uint64_t va;			/* RETH, AtomicETH */
	uint32_t rkey, dma_len;		/* RETH (AtomicETH: rkey) */
	uint64_t swap_add, compare;	/* AtomicETH */
	uint8_t syndrome;		/* AETH */
	uint32_t msn;
	uint64_t orig;			/* AtomicAckETH */
	uint32_t feth;			/* FETH: SFAB_FETH_* */
	uint32_t xrc_srqn;		/* XRCETH */
	uint32_t imm;			/* ImmDt (host order of the wire value), IETH */
	const uint8_t *payload;		/* parse: points into the packet */
	size_t len;			/* payload bytes, pad excluded */
	bool has_grh;			/* a GRH: build adds it, parse found it */
	struct sfab_pkt_grh grh;
};

/* SFAB_PKT_* of an RC, UC or XRC BTH opcode; 0 when it is none of them */
unsigned int sfab_link_pkt_rc_hdrs(uint8_t opcode);
/* bytes of LRH, BTH and extension headers @opcode has (no GRH) */
size_t sfab_link_pkt_rc_hdr_len(uint8_t opcode);
/*
 * build into @buf (SFAB_WIRE_MAX_PKT_LEN bytes); the frame length, 0 if bad.
 * @payload may already be in place, at @buf + sfab_link_pkt_rc_hdr_len()
 * (+ the GRH): then it is not copied.
 */
size_t sfab_link_pkt_build_rc(uint8_t *buf, const struct sfab_pkt_rc *p,
			      const void *payload, size_t len);
/* parse an RC/UC packet; false if it is not one or is malformed */
bool sfab_link_pkt_parse_rc(const uint8_t *frame, size_t len,
			    struct sfab_pkt_rc *p);

/*
 * The DLID and SLID: 16 bits from IBA's LRH, 24 from the extended one
 * (LVer 1: the caller has checked that its 12 bytes are there)
 */
static inline uint32_t sfab_link_pkt_dlid(const uint8_t *frame)
{
	uint32_t lid = (frame[2] << 8) | frame[3];

	if ((frame[0] & SFAB_LRH_LVER_MASK) == SFAB_LRH_LVER_EXT)
		lid |= (uint32_t)frame[SFAB_WIRE_LRH_LEN] << 16;
	return lid;
}

static inline uint32_t sfab_link_pkt_slid(const uint8_t *frame)
{
	uint32_t lid = (frame[6] << 8) | frame[7];

	if ((frame[0] & SFAB_LRH_LVER_MASK) == SFAB_LRH_LVER_EXT)
		lid |= (uint32_t)frame[SFAB_WIRE_LRH_LEN + 1] << 16;
	return lid;
}

/* the frame's LRH says a GRH follows */
static inline bool sfab_link_pkt_has_grh(const uint8_t *frame)
{
	return (frame[1] & SFAB_LRH_LNH_MASK) == SFAB_LNH_IBA_GLOBAL;
}

/* bytes before the BTH: the LRH, and the GRH if there is one */
static inline size_t sfab_link_pkt_bth_off(const uint8_t *frame)
{
	return sfab_wire_lrh_len(frame) +
	       (sfab_link_pkt_has_grh(frame) ? SFAB_WIRE_GRH_LEN : 0);
}

/* the BTH's P_Key; only for an IBA transport packet sfab_link_rx() took */
static inline uint16_t sfab_link_pkt_pkey(const uint8_t *frame)
{
	const uint8_t *bth = frame + sfab_link_pkt_bth_off(frame);

	return (bth[2] << 8) | bth[3];
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
