/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab packet helpers: UD datagrams.
 */
#include <string.h>

#include "sfab_pkt.h"

size_t sfab_link_pkt_build_ud(uint8_t *buf, const struct sfab_pkt_ud *u,
			      const void *payload, size_t len)
{
	return sfab_link_pkt_build_ud_ext(buf, u, NULL, payload, len);
}

size_t sfab_link_pkt_build_ud_ext(uint8_t *buf, const struct sfab_pkt_ud *u,
				  const struct sfab_pkt_ud_ext *x,
				  const void *payload, size_t len)
{
	struct sfab_wire_lrh lrh;
	struct sfab_wire_bth bth;
	struct sfab_wire_deth deth;
	bool imm = x && x->has_imm;
	size_t hdr = SFAB_PKT_UD_HDR_LEN + (imm ? SFAB_WIRE_IMMDT_LEN : 0);
	size_t pad = (4 - (len & 3)) & 3;
	size_t words = (hdr + len + pad + SFAB_WIRE_ICRC_LEN) / 4;
	size_t flen = words * 4 + SFAB_WIRE_VCRC_LEN;
	uint32_t immdt;

	if (len > SFAB_PKT_UD_MAX_PAYLOAD || flen > SFAB_WIRE_MAX_PKT_LEN)
		return 0;
	lrh.vl_lver = (u->vl & 15) << 4;
	lrh.sl_lnh = ((u->sl & 15) << 4) | SFAB_LNH_IBA_LOCAL;
	lrh.dlid = sfab_cpu_to_be16(u->dlid);
	lrh.pkt_len = sfab_cpu_to_be16(words);
	lrh.slid = sfab_cpu_to_be16(u->slid);
	bth.opcode = imm ? SFAB_BTH_OP_UD_SEND_ONLY_IMM : SFAB_BTH_OP_UD_SEND_ONLY;
	bth.se_m_pad_tver = pad << 4;
	if (x && x->se)
		bth.se_m_pad_tver |= SFAB_BTH_SE;
	bth.pkey = sfab_cpu_to_be16(u->pkey);
	bth.dqpn = sfab_cpu_to_be32(u->dqpn & SFAB_BTH_QPN_MASK);
	bth.psn = sfab_cpu_to_be32(u->psn & SFAB_BTH_PSN_MASK);
	deth.qkey = sfab_cpu_to_be32(u->qkey);
	deth.sqpn = sfab_cpu_to_be32(u->sqpn & SFAB_BTH_QPN_MASK);
	memcpy(buf, &lrh, sizeof(lrh));
	memcpy(buf + SFAB_WIRE_LRH_LEN, &bth, sizeof(bth));
	memcpy(buf + SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN, &deth, sizeof(deth));
	if (imm) {
		immdt = sfab_cpu_to_be32(x->imm);
		memcpy(buf + SFAB_PKT_UD_HDR_LEN, &immdt, sizeof(immdt));
	}
	memcpy(buf + hdr, payload, len);
	memset(buf + hdr + len, 0, pad);
	sfab_wire_seal(buf, flen);
	return flen;
}

bool sfab_link_pkt_parse_ud(const uint8_t *frame, size_t len,
			    struct sfab_pkt_ud *u)
{
	struct sfab_pkt_ud_ext x;

	return sfab_link_pkt_parse_ud_ext(frame, len, u, &x) && !x.has_imm;
}

bool sfab_link_pkt_parse_ud_ext(const uint8_t *frame, size_t len,
				struct sfab_pkt_ud *u, struct sfab_pkt_ud_ext *x)
{
	struct sfab_wire_bth bth;
	struct sfab_wire_deth deth;
	size_t pad, body, hdr = SFAB_PKT_UD_HDR_LEN;
	uint32_t immdt;

	if (len < SFAB_PKT_UD_HDR_LEN + SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN ||
	    (frame[1] & SFAB_LRH_LNH_MASK) != SFAB_LNH_IBA_LOCAL)
		return false;
	memcpy(&bth, frame + SFAB_WIRE_LRH_LEN, sizeof(bth));
	memcpy(&deth, frame + SFAB_WIRE_LRH_LEN + SFAB_WIRE_BTH_LEN, sizeof(deth));
	memset(x, 0, sizeof(*x));
	if (bth.opcode == SFAB_BTH_OP_UD_SEND_ONLY_IMM) {
		hdr += SFAB_WIRE_IMMDT_LEN;
		if (len < hdr + SFAB_WIRE_ICRC_LEN + SFAB_WIRE_VCRC_LEN)
			return false;
		memcpy(&immdt, frame + SFAB_PKT_UD_HDR_LEN, sizeof(immdt));
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
