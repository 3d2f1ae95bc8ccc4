/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab packet helpers: UD datagrams, RC and UC packets.
 */
#include <string.h>

#include "sfab_crc.h"
#include "sfab_pkt.h"

/*
 * The GRH at @p of a packet whose PktLen is @words: PayLen counts the bytes
 * after the GRH through the ICRC.
 */
static void grh_put(uint8_t *p, const struct sfab_pkt_grh *g, size_t words,
		    size_t lrh)
{
	struct sfab_wire_grh grh;

	grh.ver_tclass_flow = sfab_cpu_to_be32(6U << 28 |
					       (uint32_t)g->tclass << 20 |
					       (g->flow_label & SFAB_GRH_FLOW_MASK));
	grh.paylen = sfab_cpu_to_be16(words * 4 - lrh - SFAB_WIRE_GRH_LEN);
	grh.next_hdr = SFAB_GRH_NEXT_HDR_BTH;
	grh.hop_limit = g->hop_limit;
	memcpy(grh.sgid, g->sgid, sizeof(grh.sgid));
	memcpy(grh.dgid, g->dgid, sizeof(grh.dgid));
	memcpy(p, &grh, sizeof(grh));
}

/*
 * The GRH of a frame of @len bytes with LNH IBA global; false when it is
 * not an IPv6-style header announcing a BTH or PayLen disagrees with the
 * LRH.  The caller has checked that the GRH fits.
 */
static bool grh_get(const uint8_t *frame, size_t len, struct sfab_pkt_grh *g)
{
	size_t lrh = sfab_wire_lrh_len(frame);
	struct sfab_wire_grh grh;
	uint32_t v;

	memcpy(&grh, frame + lrh, sizeof(grh));
	v = sfab_be32_to_cpu(grh.ver_tclass_flow);
	if ((v & SFAB_GRH_IPVER_MASK) != 6U << 28 ||
	    grh.next_hdr != SFAB_GRH_NEXT_HDR_BTH ||
	    sfab_be16_to_cpu(grh.paylen) !=
	    len - SFAB_WIRE_VCRC_LEN - lrh - SFAB_WIRE_GRH_LEN)
		return false;
	g->tclass = (v & SFAB_GRH_TCLASS_MASK) >> 20;
	g->flow_label = v & SFAB_GRH_FLOW_MASK;
	g->hop_limit = grh.hop_limit;
	memcpy(g->sgid, grh.sgid, sizeof(g->sgid));
	memcpy(g->dgid, grh.dgid, sizeof(g->dgid));
	g->raw = frame + lrh;
	return true;
}

/*
 * The LRH at @buf, extended (LVer 1, 12 bytes) when a LID does not fit 16
 * bits, IBA's 8 bytes otherwise; its length
 */
static size_t lrh_put(uint8_t *buf, unsigned int vl, unsigned int sl,
		      bool global, uint32_t dlid, uint32_t slid, size_t words)
{
	bool ext = sfab_xlid_needs_ext(dlid) || sfab_xlid_needs_ext(slid);
	struct sfab_wire_lrh_ext xl;
	struct sfab_wire_lrh lrh;

	lrh.vl_lver = (vl & 15) << 4 | (ext ? SFAB_LRH_LVER_EXT : 0);
	lrh.sl_lnh = ((sl & 15) << 4) |
		     (global ? SFAB_LNH_IBA_GLOBAL : SFAB_LNH_IBA_LOCAL);
	lrh.dlid = sfab_cpu_to_be16((uint16_t)dlid);
	lrh.pkt_len = sfab_cpu_to_be16(words);
	lrh.slid = sfab_cpu_to_be16((uint16_t)slid);
	memcpy(buf, &lrh, sizeof(lrh));
	if (!ext)
		return SFAB_WIRE_LRH_LEN;
	xl.dlid_hi = (dlid >> 16) & 0xff;
	xl.slid_hi = (slid >> 16) & 0xff;
	xl.reserved = 0;
	memcpy(buf + SFAB_WIRE_LRH_LEN, &xl, sizeof(xl));
	return SFAB_WIRE_XLRH_LEN;
}

/* bytes the LRH for @dlid and @slid takes past IBA's 8 */
static size_t lrh_extra(uint32_t dlid, uint32_t slid)
{
	return sfab_xlid_needs_ext(dlid) || sfab_xlid_needs_ext(slid) ?
	       SFAB_WIRE_XLRH_LEN - SFAB_WIRE_LRH_LEN : 0;
}

size_t sfab_link_pkt_build_ud(uint8_t *buf, const struct sfab_pkt_ud *u,
			      const void *payload, size_t len)
{
	return sfab_link_pkt_build_ud_ext(buf, u, NULL, payload, len);
}

size_t sfab_link_pkt_build_ud_ext(uint8_t *buf, const struct sfab_pkt_ud *u,
				  const struct sfab_pkt_ud_ext *x,
				  const void *payload, size_t len)
{
	struct sfab_wire_bth bth;
	struct sfab_wire_deth deth;
	bool imm = x && x->has_imm;
	bool global = x && x->has_grh;
	size_t e = lrh_extra(u->dlid, u->slid);
	size_t g = (global ? SFAB_WIRE_GRH_LEN : 0) + e;
	size_t hdr = SFAB_PKT_UD_HDR_LEN + g + (imm ? SFAB_WIRE_IMMDT_LEN : 0);
	size_t pad = (4 - (len & 3)) & 3;
	size_t words = (hdr + len + pad + SFAB_WIRE_ICRC_LEN) / 4;
	size_t flen = words * 4 + SFAB_WIRE_VCRC_LEN;
	uint32_t immdt;

	if (len > SFAB_PKT_UD_MAX_PAYLOAD || flen > SFAB_WIRE_MAX_PKT_LEN)
		return 0;
	bth.opcode = imm ? SFAB_BTH_OP_UD_SEND_ONLY_IMM : SFAB_BTH_OP_UD_SEND_ONLY;
	bth.se_m_pad_tver = pad << 4;
	if (x && x->se)
		bth.se_m_pad_tver |= SFAB_BTH_SE;
	bth.pkey = sfab_cpu_to_be16(u->pkey);
	bth.dqpn = sfab_cpu_to_be32(u->dqpn & SFAB_BTH_QPN_MASK);
	bth.psn = sfab_cpu_to_be32(u->psn & SFAB_BTH_PSN_MASK);
	deth.qkey = sfab_cpu_to_be32(u->qkey);
	deth.sqpn = sfab_cpu_to_be32(u->sqpn & SFAB_BTH_QPN_MASK);
	/* g: what comes between IBA's 8-byte LRH and the BTH */
	lrh_put(buf, u->vl, u->sl, global, u->dlid, u->slid, words);
	if (global)
		grh_put(buf + SFAB_WIRE_LRH_LEN + e, &x->grh, words,
			SFAB_WIRE_LRH_LEN + e);
	memcpy(buf + SFAB_WIRE_LRH_LEN + g, &bth, sizeof(bth));
	memcpy(buf + SFAB_WIRE_LRH_LEN + g + SFAB_WIRE_BTH_LEN, &deth,
	       sizeof(deth));
	if (imm) {
		immdt = sfab_cpu_to_be32(x->imm);
		memcpy(buf + SFAB_PKT_UD_HDR_LEN + g, &immdt, sizeof(immdt));
	}
	memcpy(buf + hdr, payload, len);
	memset(buf + hdr + len, 0, pad);
	sfab_crc_seal(buf, flen);
	return flen;
}

bool sfab_link_pkt_parse_ud(const uint8_t *frame, size_t len,
			    struct sfab_pkt_ud *u)
{
	struct sfab_pkt_ud_ext x;

	return sfab_link_pkt_parse_ud_ext(frame, len, u, &x) && !x.has_imm &&
	       !x.has_grh;
}

bool sfab_link_pkt_parse_ud_ext(const uint8_t *frame, size_t len,
				struct sfab_pkt_ud *u, struct sfab_pkt_ud_ext *x)
{
	struct sfab_wire_bth bth;
	struct sfab_wire_deth deth;
	size_t pad, body, g, e, hdr;
	uint32_t immdt;

	if (len < SFAB_WIRE_LRH_LEN)
		return false;
	memset(x, 0, sizeof(*x));
	/* g: what comes between IBA's 8-byte LRH and the BTH */
	e = sfab_wire_lrh_len(frame) - SFAB_WIRE_LRH_LEN;
	switch (frame[1] & SFAB_LRH_LNH_MASK) {
	case SFAB_LNH_IBA_LOCAL:
		g = e;
		break;
	case SFAB_LNH_IBA_GLOBAL:
		g = e + SFAB_WIRE_GRH_LEN;
		break;
	default:
		return false;
	}
	hdr = SFAB_PKT_UD_HDR_LEN + g;
	if (len < hdr + SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN)
		return false;
	if (g > e) {
		if (!grh_get(frame, len, &x->grh))
			return false;
		x->has_grh = true;
	}
	memcpy(&bth, frame + SFAB_WIRE_LRH_LEN + g, sizeof(bth));
	memcpy(&deth, frame + SFAB_WIRE_LRH_LEN + g + SFAB_WIRE_BTH_LEN,
	       sizeof(deth));
	if (bth.opcode == SFAB_BTH_OP_UD_SEND_ONLY_IMM) {
		hdr += SFAB_WIRE_IMMDT_LEN;
		if (len < hdr + SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN)
			return false;
		memcpy(&immdt, frame + SFAB_PKT_UD_HDR_LEN + g, sizeof(immdt));
		x->has_imm = true;
		x->imm = sfab_be32_to_cpu(immdt);
	} else if (bth.opcode != SFAB_BTH_OP_UD_SEND_ONLY) {
		return false;
	}
	x->se = bth.se_m_pad_tver & SFAB_BTH_SE;
	pad = (bth.se_m_pad_tver & SFAB_BTH_PAD_MASK) >> 4;
	body = len - hdr - SFAB_WIRE_ICRC_LEN - SFAB_WIRE_VCRC_LEN;
	if (pad > body)
		return false;
	u->vl = sfab_link_pkt_vl(frame);
	u->sl = sfab_link_pkt_sl(frame);
	u->dlid = sfab_link_pkt_dlid(frame);
	u->slid = sfab_link_pkt_slid(frame);
	u->pkey = sfab_be16_to_cpu(bth.pkey);
	u->dqpn = sfab_be32_to_cpu(bth.dqpn) & SFAB_BTH_QPN_MASK;
	u->psn = sfab_be32_to_cpu(bth.psn) & SFAB_BTH_PSN_MASK;
	u->qkey = sfab_be32_to_cpu(deth.qkey);
	u->sqpn = sfab_be32_to_cpu(deth.sqpn) & SFAB_BTH_QPN_MASK;
	u->payload = frame + hdr;
	u->len = body - pad;
	return true;
}

/* --- RC and UC ------------------------------------------------------------ */

unsigned int sfab_link_pkt_rc_hdrs(uint8_t opcode)
{
	static const uint16_t hdrs[32] = {
		[SFAB_OP_SEND_FIRST] = SFAB_PKT_PAYLOAD,
		[SFAB_OP_SEND_MIDDLE] = SFAB_PKT_PAYLOAD,
		[SFAB_OP_SEND_LAST] = SFAB_PKT_PAYLOAD,
		[SFAB_OP_SEND_LAST_IMM] = SFAB_PKT_IMM | SFAB_PKT_PAYLOAD,
		[SFAB_OP_SEND_ONLY] = SFAB_PKT_PAYLOAD,
		[SFAB_OP_SEND_ONLY_IMM] = SFAB_PKT_IMM | SFAB_PKT_PAYLOAD,
		[SFAB_OP_WRITE_FIRST] = SFAB_PKT_RETH | SFAB_PKT_PAYLOAD,
		[SFAB_OP_WRITE_MIDDLE] = SFAB_PKT_PAYLOAD,
		[SFAB_OP_WRITE_LAST] = SFAB_PKT_PAYLOAD,
		[SFAB_OP_WRITE_LAST_IMM] = SFAB_PKT_IMM | SFAB_PKT_PAYLOAD,
		[SFAB_OP_WRITE_ONLY] = SFAB_PKT_RETH | SFAB_PKT_PAYLOAD,
		[SFAB_OP_WRITE_ONLY_IMM] = SFAB_PKT_RETH | SFAB_PKT_IMM |
					   SFAB_PKT_PAYLOAD,
		[SFAB_OP_READ_REQ] = SFAB_PKT_RETH,
		[SFAB_OP_READ_RESP_FIRST] = SFAB_PKT_AETH | SFAB_PKT_PAYLOAD,
		[SFAB_OP_READ_RESP_MIDDLE] = SFAB_PKT_PAYLOAD,
		[SFAB_OP_READ_RESP_LAST] = SFAB_PKT_AETH | SFAB_PKT_PAYLOAD,
		[SFAB_OP_READ_RESP_ONLY] = SFAB_PKT_AETH | SFAB_PKT_PAYLOAD,
		[SFAB_OP_ACK] = SFAB_PKT_AETH,
		[SFAB_OP_ATOMIC_ACK] = SFAB_PKT_AETH | SFAB_PKT_ATOMIC_ACK,
		[SFAB_OP_CMP_SWAP] = SFAB_PKT_ATOMIC_ETH,
		[SFAB_OP_FETCH_ADD] = SFAB_PKT_ATOMIC_ETH,
		[SFAB_OP_SEND_LAST_INV] = SFAB_PKT_IETH | SFAB_PKT_PAYLOAD,
		[SFAB_OP_SEND_ONLY_INV] = SFAB_PKT_IETH | SFAB_PKT_PAYLOAD,
		[SFAB_OP_FLUSH] = SFAB_PKT_FETH | SFAB_PKT_RETH,
		[SFAB_OP_ATOMIC_WRITE] = SFAB_PKT_RETH | SFAB_PKT_PAYLOAD,
	};
	uint8_t op = opcode & SFAB_BTH_OP_MASK;

	switch (opcode & SFAB_BTH_OP_TRANSPORT_MASK) {
	case SFAB_BTH_OP_RC:
		/* 0x15 and 0x18..0x1b are reserved */
		if (!hdrs[op])
			return 0;
		return hdrs[op] | SFAB_PKT_VALID;
	case SFAB_BTH_OP_UC:
		/* sends and writes only */
		if (op > SFAB_OP_WRITE_ONLY_IMM)
			return 0;
		return hdrs[op] | SFAB_PKT_VALID;
	case SFAB_BTH_OP_XRC:
		/* as RC; every request names the target's SRQ */
		if (!hdrs[op])
			return 0;
		if (hdrs[op] & (SFAB_PKT_AETH | SFAB_PKT_ATOMIC_ACK) ||
		    op == SFAB_OP_READ_RESP_MIDDLE)
			return hdrs[op] | SFAB_PKT_VALID;
		return hdrs[op] | SFAB_PKT_XRCETH | SFAB_PKT_VALID;
	default:
		return 0;
	}
}

size_t sfab_link_pkt_rc_hdr_len(uint8_t opcode)
{
	unsigned int h = sfab_link_pkt_rc_hdrs(opcode);

	return SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN +
	       (h & SFAB_PKT_XRCETH ? SFAB_WIRE_XRCETH_LEN : 0) +
	       (h & SFAB_PKT_FETH ? SFAB_WIRE_FETH_LEN : 0) +
	       (h & SFAB_PKT_RETH ? SFAB_WIRE_RETH_LEN : 0) +
	       (h & SFAB_PKT_ATOMIC_ETH ? SFAB_WIRE_ATOMIC_ETH_LEN : 0) +
	       (h & SFAB_PKT_AETH ? SFAB_WIRE_AETH_LEN : 0) +
	       (h & SFAB_PKT_ATOMIC_ACK ? SFAB_WIRE_ATOMIC_ACK_ETH_LEN : 0) +
	       (h & SFAB_PKT_IMM ? SFAB_WIRE_IMMDT_LEN : 0) +
	       (h & SFAB_PKT_IETH ? SFAB_WIRE_IETH_LEN : 0);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, (uint32_t)v);
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

size_t sfab_link_pkt_build_rc(uint8_t *buf, const struct sfab_pkt_rc *p,
			      const void *payload, size_t len)
{
	unsigned int h = sfab_link_pkt_rc_hdrs(p->opcode);
	size_t e = lrh_extra(p->dlid, p->slid);
	size_t g = (p->has_grh ? SFAB_WIRE_GRH_LEN : 0) + e;
	size_t hdr = sfab_link_pkt_rc_hdr_len(p->opcode) + g;
	size_t pad = (4 - (len & 3)) & 3;
	size_t words = (hdr + len + pad + SFAB_WIRE_ICRC_LEN) / 4;
	size_t flen = words * 4 + SFAB_WIRE_VCRC_LEN;
	struct sfab_wire_bth bth;
	uint8_t *x;

	if (!h || (len && !(h & SFAB_PKT_PAYLOAD)) ||
	    flen > SFAB_WIRE_MAX_PKT_LEN)
		return 0;
	bth.opcode = p->opcode;
	bth.se_m_pad_tver = pad << 4;
	if (p->se)
		bth.se_m_pad_tver |= SFAB_BTH_SE;
	bth.pkey = sfab_cpu_to_be16(p->pkey);
	bth.dqpn = sfab_cpu_to_be32(p->dqpn & SFAB_BTH_QPN_MASK);
	bth.psn = sfab_cpu_to_be32((p->psn & SFAB_BTH_PSN_MASK) |
				   (p->ackreq ? SFAB_BTH_ACKREQ : 0));
	lrh_put(buf, p->vl, p->sl, p->has_grh, p->dlid, p->slid, words);
	if (p->has_grh)
		grh_put(buf + SFAB_WIRE_LRH_LEN + e, &p->grh, words,
			SFAB_WIRE_LRH_LEN + e);
	memcpy(buf + SFAB_WIRE_LRH_LEN + g, &bth, sizeof(bth));
	x = buf + SFAB_WIRE_LRH_LEN + g + SFAB_WIRE_BTH_LEN;
	if (h & SFAB_PKT_XRCETH) {
		put_be32(x, p->xrc_srqn & SFAB_XRCETH_SRQN_MASK);
		x += SFAB_WIRE_XRCETH_LEN;
	}
	if (h & SFAB_PKT_FETH) {
		put_be32(x, p->feth);
		x += SFAB_WIRE_FETH_LEN;
	}
	if (h & SFAB_PKT_RETH) {
		put_be64(x, p->va);
		put_be32(x + 8, p->rkey);
		put_be32(x + 12, p->dma_len);
		x += SFAB_WIRE_RETH_LEN;
	}
	if (h & SFAB_PKT_ATOMIC_ETH) {
		put_be64(x, p->va);
		put_be32(x + 8, p->rkey);
		put_be64(x + 12, p->swap_add);
		put_be64(x + 20, p->compare);
		x += SFAB_WIRE_ATOMIC_ETH_LEN;
	}
	if (h & SFAB_PKT_AETH) {
		put_be32(x, (uint32_t)p->syndrome << SFAB_AETH_SYN_SHIFT |
			 (p->msn & SFAB_AETH_MSN_MASK));
		x += SFAB_WIRE_AETH_LEN;
	}
	if (h & SFAB_PKT_ATOMIC_ACK) {
		put_be64(x, p->orig);
		x += SFAB_WIRE_ATOMIC_ACK_ETH_LEN;
	}
	if (h & (SFAB_PKT_IMM | SFAB_PKT_IETH)) {
		put_be32(x, p->imm);
		x += 4;
	}
	/* the payload may be in place already (read straight into @buf) */
	if (len && payload != x)
		memmove(x, payload, len);
	memset(x + len, 0, pad);
	sfab_crc_seal(buf, flen);
	return flen;
}

bool sfab_link_pkt_parse_rc(const uint8_t *frame, size_t len,
			    struct sfab_pkt_rc *p)
{
	struct sfab_wire_bth bth;
	struct sfab_pkt_grh grh;
	unsigned int h;
	size_t hdr, pad, body, g, e;
	const uint8_t *x;
	uint32_t v;

	if (len < SFAB_WIRE_LRH_LEN)
		return false;
	/* g: what comes between IBA's 8-byte LRH and the BTH */
	e = sfab_wire_lrh_len(frame) - SFAB_WIRE_LRH_LEN;
	switch (frame[1] & SFAB_LRH_LNH_MASK) {
	case SFAB_LNH_IBA_LOCAL:
		g = e;
		break;
	case SFAB_LNH_IBA_GLOBAL:
		g = e + SFAB_WIRE_GRH_LEN;
		break;
	default:
		return false;
	}
	if (len < SFAB_WIRE_LRH_LEN + g + SFAB_WIRE_BTH_LEN +
		  SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN)
		return false;
	if (g > e && !grh_get(frame, len, &grh))
		return false;
	memcpy(&bth, frame + SFAB_WIRE_LRH_LEN + g, sizeof(bth));
	h = sfab_link_pkt_rc_hdrs(bth.opcode);
	hdr = sfab_link_pkt_rc_hdr_len(bth.opcode) + g;
	if (!h || len < hdr + SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN)
		return false;
	body = len - hdr - SFAB_WIRE_ICRC_LEN - SFAB_WIRE_VCRC_LEN;
	pad = (bth.se_m_pad_tver & SFAB_BTH_PAD_MASK) >> 4;
	if (pad > body || (body && !(h & SFAB_PKT_PAYLOAD)))
		return false;
	memset(p, 0, sizeof(*p));
	if (g > e) {
		p->has_grh = true;
		p->grh = grh;
	}
	p->vl = sfab_link_pkt_vl(frame);
	p->sl = sfab_link_pkt_sl(frame);
	p->dlid = sfab_link_pkt_dlid(frame);
	p->slid = sfab_link_pkt_slid(frame);
	p->opcode = bth.opcode;
	p->se = bth.se_m_pad_tver & SFAB_BTH_SE;
	p->pkey = sfab_be16_to_cpu(bth.pkey);
	p->dqpn = sfab_be32_to_cpu(bth.dqpn) & SFAB_BTH_QPN_MASK;
	v = sfab_be32_to_cpu(bth.psn);
	p->psn = v & SFAB_BTH_PSN_MASK;
	p->ackreq = v & SFAB_BTH_ACKREQ;
	x = frame + SFAB_WIRE_LRH_LEN + g + SFAB_WIRE_BTH_LEN;
	if (h & SFAB_PKT_XRCETH) {
		p->xrc_srqn = get_be32(x) & SFAB_XRCETH_SRQN_MASK;
		x += SFAB_WIRE_XRCETH_LEN;
	}
	if (h & SFAB_PKT_FETH) {
		p->feth = get_be32(x);
		x += SFAB_WIRE_FETH_LEN;
	}
	if (h & SFAB_PKT_RETH) {
		p->va = get_be64(x);
		p->rkey = get_be32(x + 8);
		p->dma_len = get_be32(x + 12);
		x += SFAB_WIRE_RETH_LEN;
	}
	if (h & SFAB_PKT_ATOMIC_ETH) {
		p->va = get_be64(x);
		p->rkey = get_be32(x + 8);
		p->swap_add = get_be64(x + 12);
		p->compare = get_be64(x + 20);
		x += SFAB_WIRE_ATOMIC_ETH_LEN;
	}
	if (h & SFAB_PKT_AETH) {
		v = get_be32(x);
		p->syndrome = v >> SFAB_AETH_SYN_SHIFT;
		p->msn = v & SFAB_AETH_MSN_MASK;
		x += SFAB_WIRE_AETH_LEN;
	}
	if (h & SFAB_PKT_ATOMIC_ACK) {
		p->orig = get_be64(x);
		x += SFAB_WIRE_ATOMIC_ACK_ETH_LEN;
	}
	if (h & (SFAB_PKT_IMM | SFAB_PKT_IETH)) {
		p->imm = get_be32(x);
		x += 4;
	}
	p->payload = x;
	p->len = body - pad;
	return true;
}
