/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab management datagrams: the one implementation of what every sfab
 * management agent shares, used by the switch's port 0 (sfab-switchd) and
 * by the HCA's firmware SMA/PMA (the engine):
 *
 *  - MAD header checks and response building (IBTA 13.4);
 *  - directed-route SMP handling: hop pointer, return path, the
 *    direction bit (IBTA 14.2.2);
 *  - encoders/decoders for the SMP attributes both kinds of node have
 *    (NodeInfo, NodeDescription, PortInfo, P_KeyTable, GUIDInfo,
 *    SLtoVLMappingTable), from host-order structures;
 *  - a PortInfo Set: decoding, validation and the port's link
 *    configuration (sfab_mad_port_info_set());
 *  - the PMA (IBTA 16.1): ClassPortInfo, PortCounters and
 *    PortCountersExtended, over counters the caller reads and clears.
 *
 * Plain C11, no I/O; the owner builds and sends the packets.
 */
#ifndef SFAB_MAD_H
#define SFAB_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfab/sfab_wire.h"
#include "../link/sfab_link.h"
#include "../link/sfab_pkt.h"

/* TrapRepress: a method an agent never answers */
#define SFAB_MAD_METHOD_TRAP_REPRESS	0x07

/* --- headers and responses ------------------------------------------------ */

/*
 * IBA 10.9.3: P_Keys @a and @b match when their partitions are the same
 * and valid (not 0), and at least one of the two is a full member
 */
static inline bool sfab_mad_pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) &&
	       ((a | b) & 0x8000);
}

/* the first index of @tbl (@n P_Keys) that matches @pkey, or -1 */
static inline int sfab_mad_pkey_find(const uint16_t *tbl, unsigned int n,
				     uint16_t pkey)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (sfab_mad_pkey_match(tbl[i], pkey))
			return (int)i;
	return -1;
}

/* true for a method an agent answers (Get/Set and other requests) */
static inline bool sfab_mad_is_request(uint8_t method)
{
	return !(method & SFAB_MAD_METHOD_RESP) &&
	       method != SFAB_MAD_METHOD_TRAP &&
	       method != SFAB_MAD_METHOD_TRAP_REPRESS;
}

/* version and method checks of an SMP: a MAD status (0: go on) */
uint16_t sfab_mad_smp_check(const struct sfab_wire_smp *smp);

/* turn the request @smp into its GetResp with @sts (D bit for DR) */
void sfab_mad_smp_make_resp(struct sfab_wire_smp *smp, uint16_t sts);

/* turn the GMP request in @mad into its GetResp with @sts */
void sfab_mad_gmp_make_resp(uint8_t *mad, uint16_t sts);

/*
 * Build the UD packet that carries the response @mad to the request @req
 * (QPs swapped, QP1's Q_Key, VL15 for QP0 and VL0 otherwise) from @slid to
 * @dlid into @buf (SFAB_WIRE_MAX_PKT_LEN).  Return its length, 0 on error.
 */
size_t sfab_mad_build_resp_pkt(uint8_t *buf, const struct sfab_pkt_ud *req,
			       const void *mad, uint16_t dlid, uint16_t slid);

/* parse a frame into its UD header and MAD; false if it carries none */
bool sfab_mad_parse(const uint8_t *frame, size_t len, struct sfab_pkt_ud *u,
		    void *mad);

/* --- directed route (IBTA 14.2.2) -------------------------------------- */

enum sfab_mad_dr_act {
	SFAB_MAD_DR_DROP,	/* invalid here: discard and count */
	SFAB_MAD_DR_SMA,	/* for this node's SMA */
	SFAB_MAD_DR_FORWARD,	/* out of *out, LRH LIDs unchanged */
	SFAB_MAD_DR_FORWARD_PERM, /* out of *out, LRH LIDs permissive */
	SFAB_MAD_DR_ROUTE,	/* LID-routed to *dlid (from the LRH's SLID) */
	SFAB_MAD_DR_RETURNED,	/* a returning SMP at its requester's node */
};

/*
 * What a node does with the DR SMP @smp that arrived on @in_port; updates
 * the hop pointer and return path in @smp.  @nports is the node's highest
 * port number; @is_switch false for a channel adapter, which forwards
 * nothing (an SMP that would go on is dropped; a returning one is for the
 * requester on this node: SFAB_MAD_DR_RETURNED).
 */
enum sfab_mad_dr_act sfab_mad_dr_step(struct sfab_wire_smp *smp,
				      unsigned int in_port, unsigned int nports,
				      bool is_switch, uint8_t *out,
				      uint16_t *dlid);

/*
 * The SMA answered the DR SMP @smp (already a response): move its hop
 * pointer back (C14-13:1) and return the port the response leaves from,
 * 0 if that is not a valid port.
 */
unsigned int sfab_mad_dr_resp_port(struct sfab_wire_smp *smp,
				   unsigned int in_port, unsigned int nports);

/* --- M_Key (IBTA 14.2.4) ---------------------------------------------- */

struct sfab_mad_port_info;

/*
 * The M_Key state of a management port (an HCA port, a switch's port 0),
 * what PortInfo's M_Key, M_KeyLeasePeriod, M_KeyProtectBits and
 * M_KeyViolations say.
 */
struct sfab_mad_mkey {
	uint64_t key;			/* 0: no protection */
	uint64_t lease_end;		/* ns; 0: no lease running */
	uint16_t lease_period;		/* s; 0: the lease never ends */
	uint16_t violations;		/* stops at 0xffff */
	uint8_t prot;			/* M_KeyProtectBits, 0..3 */
};

enum sfab_mad_mkey_act {
	SFAB_MAD_MKEY_OK,		/* go on */
	SFAB_MAD_MKEY_HIDE,		/* go on: PortInfo answers show M_Key 0 */
	SFAB_MAD_MKEY_BAD,		/* refused: no answer; trap 256 to the SM */
};

/*
 * The M_Key check of the request @smp for this node's SMA at time
 * @now_ns (IBTA 14.2.4.1, 14.2.4.2).  A port without a key takes
 * everything.  A wrong key is refused (counted in m->violations, the
 * lease started) for a Set or TrapRepress, and for a Get at protection
 * level 2 and 3; below that a Get is answered, at level 1 with the M_Key
 * hidden.  A right key on a Get, Set or TrapRepress stops a running lease;
 * a lease that ran out clears the protection bits (the key stays).
 */
enum sfab_mad_mkey_act sfab_mad_mkey_check(struct sfab_mad_mkey *m,
					   const struct sfab_wire_smp *smp,
					   uint64_t now_ns);

/* a PortInfo Set on the management port took effect: its M_Key fields */
void sfab_mad_mkey_set(struct sfab_mad_mkey *m,
		       const struct sfab_mad_port_info *pi);

/* @trap: an empty LID-routed SMP Trap(Notice) with @mkey and TID @tid */
void sfab_mad_trap_init(struct sfab_wire_smp *trap, uint64_t mkey,
			uint64_t tid);

/*
 * The packet that carries @trap from the port with LID @slid to the SM
 * (@sm_lid, @sm_sl): VL15, QP0 to QP0, into @buf (SFAB_WIRE_MAX_PKT_LEN).
 * Return its length, 0 on error.
 */
size_t sfab_mad_trap_pkt(uint8_t *buf, const struct sfab_wire_smp *trap,
			 uint16_t slid, uint16_t sm_lid, uint8_t sm_sl);

/*
 * Trap 256 into @trap (a LID-routed SMP Trap) for the refused @bad,
 * issued by the port with LID @lid of a node of @producer
 * (SFAB_NOTICE_PROD_*), with @m's M_Key and transaction @tid.
 */
void sfab_mad_trap_bad_mkey(struct sfab_wire_smp *trap,
			    const struct sfab_wire_smp *bad, uint16_t lid,
			    uint8_t producer, uint64_t mkey, uint64_t tid);

/* --- SMP attributes --------------------------------------------------------- */

struct sfab_mad_node {
	uint8_t node_type;		/* SFAB_NODE_TYPE_* */
	uint8_t num_ports;
	uint64_t sys_image_guid, node_guid, port_guid;
	uint16_t partition_cap;
	uint16_t device_id;
	uint32_t revision;
	uint32_t vendor_id;		/* 24-bit OUI */
};

/* @d: the SMP's 64-byte data field; the encoders clear what they don't set */
void sfab_mad_enc_node_info(uint8_t *d, const struct sfab_mad_node *n,
			    unsigned int local_port);
void sfab_mad_enc_node_desc(uint8_t *d, const char *desc, size_t max);

/* PortInfo (IBTA 14.2.5.6), every field in host order */
struct sfab_mad_port_info {
	uint64_t mkey;
	uint64_t gid_prefix;
	uint16_t lid, sm_lid;
	uint32_t cap_mask;
	uint16_t diag_code, mkey_lease_period;
	uint8_t local_port_num;
	uint8_t link_width_enabled, link_width_supported, link_width_active;
	uint8_t link_speed_supported, port_state;
	uint8_t phys_state, link_down_default;
	uint8_t mkey_prot, lmc;
	uint8_t link_speed_active, link_speed_enabled;
	uint8_t neighbor_mtu, master_sm_sl;
	uint8_t vl_cap, init_type;
	uint8_t vl_high_limit, vl_arb_high_cap, vl_arb_low_cap;
	uint8_t init_type_reply, mtu_cap;
	uint8_t vl_stall_count, hoq_life;
	uint8_t op_vls, enforce;
	uint16_t mkey_violations, pkey_violations, qkey_violations;
	uint8_t guid_cap;
	uint8_t client_rereg, subnet_timeout;
	uint8_t resp_time_value;
	uint8_t local_phy_errors, overrun_errors;
	uint16_t max_credit_hint;
	uint32_t link_roundtrip_latency;
	uint16_t cap_mask2;
	uint8_t link_speed_ext_active, link_speed_ext_supported;
	uint8_t link_speed_ext_enabled;
};

void sfab_mad_enc_port_info(uint8_t *d, const struct sfab_mad_port_info *pi);
void sfab_mad_dec_port_info(const uint8_t *d, struct sfab_mad_port_info *pi);

/*
 * PortInfo attribute modifier: the port in bits 7:0.  Bit 31 says the SM
 * supports extended link speeds (opensm sets it on every Set); the other
 * bits are ignored.
 */
#define SFAB_MAD_PI_MOD_PORT		0xffU
#define SFAB_MAD_PI_MOD_EXT_SPEEDS	(1U << 31)

static inline unsigned int sfab_mad_port_info_port(uint32_t attr_mod)
{
	return attr_mod & SFAB_MAD_PI_MOD_PORT;
}

/*
 * What a PortInfo Set configures on a physical port, the same for a switch
 * port and the HCA's port: sfab_mad_port_info_set() applies a Set to it,
 * sfab_mad_port_cfg_get() fills a Get's fields from it.
 */
struct sfab_mad_port_cfg {
	uint8_t link_width_enabled;
	uint8_t link_speed_enabled;
	uint8_t link_speed_ext_enabled;
	uint8_t link_down_default;
	uint8_t neighbor_mtu;		/* IBA MTU code */
	uint8_t vl_high_limit;
	uint8_t op_vls;			/* OperationalVLs encoding */
	uint8_t phy_overrun;		/* LocalPhyErrors << 4 | OverrunErrors */
};

/* power-on values for a port with @vl_cap (VLCap encoding) */
void sfab_mad_port_cfg_init(struct sfab_mad_port_cfg *c, uint8_t vl_cap);
void sfab_mad_port_cfg_get(const struct sfab_mad_port_cfg *c,
			   struct sfab_mad_port_info *pi);

/* the port a PortInfo Set is for, as sfab_mad_port_info_set() checks it */
struct sfab_mad_port_set {
	enum sfab_port_state cur;	/* its PortState now */
	uint8_t vl_cap;			/* its VLCap: OperationalVLs at most */
	bool mgmt;			/* the node's management port (an HCA
					 * port, switch port 0): LID and
					 * MasterSMLID are its own */
};

/*
 * A PortInfo Set, the part every sfab SMA takes alike (IBTA 14.2.5.6):
 * decode the attribute data @d into @pi, validate it for the port @ps
 * and, when valid, apply the link configuration to @cfg, the port's (NULL
 * for a switch's port 0, which has no link).  Validated: PortState NOP,
 * Down, Armed (from Init or Armed) or Active (from Armed or Active);
 * PortPhysicalState NOP, Polling or Disabled; with @cfg, NeighborMTU at
 * most 4096 and OperationalVLs at most @ps->vl_cap; on the management
 * port, LID and MasterSMLID unicast.
 *
 * Return: SFAB_MAD_STS_OK, or SFAB_MAD_STS_INVALID_FIELD (status bits
 * 4:2 = 7, 0x001c) and then nothing changed.  What else the Set does is
 * the caller's, from @pi: the LID, M_Key and SM fields of its management
 * port, and the PortState and PortPhysicalState transitions.
 */
uint16_t sfab_mad_port_info_set(const uint8_t *d,
				const struct sfab_mad_port_set *ps,
				struct sfab_mad_port_info *pi,
				struct sfab_mad_port_cfg *cfg);

/* P_KeyTable block 0: @n entries (at most 32) of @pkeys, the rest zero */
void sfab_mad_enc_pkeys(uint8_t *d, const uint16_t *pkeys, unsigned int n);
void sfab_mad_dec_pkeys(const uint8_t *d, uint16_t *pkeys, unsigned int n);

/* GUIDInfo block 0: @n GUIDs (at most 8) */
void sfab_mad_enc_guid_info(uint8_t *d, const uint64_t *guids, unsigned int n);

/* SLtoVLMappingTable: @map[sl] for the 16 SLs */
void sfab_mad_enc_sl2vl(uint8_t *d, const uint8_t map[16]);
void sfab_mad_dec_sl2vl(const uint8_t *d, uint8_t map[16]);

/* --- PMA (IBTA 16.1) ---------------------------------------------------- */

/* a port's PMA counters: the link's and those only its owner keeps */
struct sfab_mad_pma_cnt {
	struct sfab_link_counters l;
	uint64_t xmit_wait;		/* ticks stalled without credit */
	uint64_t xmit_discards;
	uint64_t rcv_switch_relay_errors;
	uint64_t rcv_constraint_errors;
	uint64_t xmit_constraint_errors;
};

struct sfab_mad_pma_ops {
	/* a valid PortSelect (SFAB_PMA_ALL_PORTS included if supported) */
	bool (*port_ok)(void *opaque, unsigned int port_select);
	/* counters since the last clear, summed over what PortSelect names */
	void (*read)(void *opaque, unsigned int port_select,
		     struct sfab_mad_pma_cnt *c);
	void (*clear)(void *opaque, unsigned int port_select);
};

/* counters since a base: c = now - base, field by field */
void sfab_mad_pma_delta(struct sfab_mad_pma_cnt *c,
			const struct sfab_mad_pma_cnt *now,
			const struct sfab_mad_pma_cnt *base);
/* c += x, field by field */
void sfab_mad_pma_add(struct sfab_mad_pma_cnt *c,
		      const struct sfab_mad_pma_cnt *x);

/*
 * Process the PMA request in @mad (256 bytes), writing the attribute into
 * its data; return the MAD status for the response.
 */
uint16_t sfab_mad_pma_process(uint8_t *mad, const struct sfab_mad_pma_ops *ops,
			      void *opaque);

#endif /* SFAB_MAD_H */
