/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab_sim: the seam between the project's C code and the ns-3 module
 * (tools/sim/model).  The switch core (qemu-model/switch), the link's
 * credit flow control and state (qemu-model/link/sfab_link), the CRCs and
 * the IBA framing (sfab_crc, sfab_pkt) run here unchanged, driven by the
 * simulator's clock instead of the host's: every forwarding, arbitration,
 * flow-control and framing decision is theirs.  This header has plain C
 * types only, so that C++ includes it (the contract headers under
 * include/sfab are C, not C++).
 *
 * Time is virtual nanoseconds, passed in as @now.  A switch runs paced
 * (sfab_sw_cfg.paced): a port starts a packet only when its transmitter
 * is free, and hands it out with the virtual time its first bit leaves
 * (cut-through: the hop latency after the first bit came in).
 */
#ifndef SFAB_SIM_H
#define SFAB_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SFAB_SIM_MAX_FRAME	4352	/* SFAB_WIRE_MAX_PKT_LEN */
#define SFAB_SIM_FC_LEN		6	/* SFAB_WIRE_FC_PKT_LEN */
#define SFAB_SIM_NO_TIME	UINT64_MAX
#define SFAB_SIM_MAX_PORTS	254	/* SFAB_SW_MAX_PORTS */

/* --- a switch ----------------------------------------------------------- */

struct sfab_sim_sw;

struct sfab_sim_sw_cfg {
	unsigned int nports;		/* 1..SFAB_SIM_MAX_PORTS */
	unsigned int num_data_vls;	/* 1..8 */
	unsigned int vl_blocks;		/* input buffer per port and VL */
	uint64_t rate_mbps;		/* port rate */
	uint64_t hop_ns;		/* first bit in to first bit out */
	uint64_t fc_period_ns;		/* periodic credit refresh */
	uint64_t guid;
	/*
	 * LFT entries (LIDs 0..lft_cap - 1), a multiple of 64: 0 is IBA's
	 * 0xc000; more routes extended (24-bit) LIDs, and the switch's links
	 * take the extended LRH
	 */
	uint32_t lft_cap;
};

/*
 * A frame leaves @port of the switch @opaque names; its first bit at
 * virtual time @start_ns (>= the @now of the call that sent it).  The
 * frame is the caller's again when this returns.
 */
typedef void (*sfab_sim_xmit_fn)(void *opaque, unsigned int port,
				 const uint8_t *frame, size_t len,
				 uint64_t start_ns);

struct sfab_sim_sw *sfab_sim_sw_new(const struct sfab_sim_sw_cfg *cfg,
				    sfab_sim_xmit_fn xmit, void *opaque);
void sfab_sim_sw_free(struct sfab_sim_sw *s);
/* a cable plugged into @port: the link trains over it */
void sfab_sim_sw_connect(struct sfab_sim_sw *s, uint64_t now, unsigned int port);
void sfab_sim_sw_disconnect(struct sfab_sim_sw *s, uint64_t now,
			    unsigned int port);
/* a frame whose first bit arrived at @port at @now */
void sfab_sim_sw_rx(struct sfab_sim_sw *s, uint64_t now, unsigned int port,
		    const uint8_t *frame, size_t len);
/* forward what can go now, send flow control; packets sent */
unsigned int sfab_sim_sw_run(struct sfab_sim_sw *s, uint64_t now);
/* when sfab_sim_sw_run() next has work without a frame coming in */
uint64_t sfab_sim_sw_deadline(const struct sfab_sim_sw *s);
int sfab_sim_sw_lft_set(struct sfab_sim_sw *s, uint32_t lid, unsigned int port);
/*
 * Fast failover (qemu-model/switch/sfab_sw_fo.c): a backup LFT entry; port
 * @port in (or out of) the up-port group and the switch-facing ports; the
 * port a LID goes out of now.
 */
int sfab_sim_sw_alt_set(struct sfab_sim_sw *s, uint32_t lid, unsigned int port);
int sfab_sim_sw_fo_group(struct sfab_sim_sw *s, unsigned int port, bool up,
			 bool peer);
unsigned int sfab_sim_sw_route_port(const struct sfab_sim_sw *s, uint32_t lid);

struct sfab_sim_fo_stats {
	uint64_t events;		/* ports lost, notifications taken */
	uint64_t moved, unreachable;	/* destinations */
	uint64_t requeued;		/* queued packets moved */
	uint64_t sent_alt;		/* packets sent on an alternate */
	uint64_t bounced;		/* sent back to the switch they came from */
	uint64_t frn_sent, frn_taken, frn_refused;
	uint64_t last_ns;		/* the last change of routes */
	uint64_t first_tx_ns;		/* first packet out on an alternate
					 * after it (its first bit), 0: none */
};

void sfab_sim_sw_fo_stats(const struct sfab_sim_sw *s,
			  struct sfab_sim_fo_stats *st);

/* the LFT's port for @lid (255: none) */
unsigned int sfab_sim_sw_lft_get(const struct sfab_sim_sw *s, uint32_t lid);
/* SL-to-VL from port @in to port @out: every SL to @vl */
int sfab_sim_sw_sl2vl_set(struct sfab_sim_sw *s, unsigned int in,
			  unsigned int out, unsigned int vl);
/* what the switch core allocated for its tables and ports, bytes */
size_t sfab_sim_sw_core_bytes(const struct sfab_sim_sw *s);
/* the rate of the link on @port (the slower end's), Mb/s */
int sfab_sim_sw_port_rate(struct sfab_sim_sw *s, unsigned int port,
			  uint64_t rate_mbps);
/* ns a frame of @len bytes takes at @rate_mbps, as the switch charges it */
uint64_t sfab_sim_ser_ns(uint64_t rate_mbps, size_t len);
/* the subnet manager's part: every port whose link is up made Active */
unsigned int sfab_sim_sw_activate(struct sfab_sim_sw *s);
bool sfab_sim_sw_port_active(const struct sfab_sim_sw *s, unsigned int port);
/* the link on @port has trained (LinkUp) */
bool sfab_sim_sw_port_up(const struct sfab_sim_sw *s, unsigned int port);

struct sfab_sim_port_stats {
	uint64_t xmit_pkts, rcv_pkts;
	uint64_t xmit_bytes;		/* LRH through ICRC */
	uint64_t xmit_wait_ns;		/* PortXmitWait, in virtual ns */
	uint64_t xmit_discards;		/* PortXmitDiscards */
	uint64_t rcv_errors;		/* PortRcvErrors */
	uint64_t fc_pkts_tx, fc_pkts_rx;
	uint64_t queued;		/* packets waiting in this port's inputs */
	uint64_t overruns;		/* ExcessiveBufferOverrunErrors */
	uint64_t link_downed;		/* LinkDownedCounter */
	unsigned int state;		/* PortState: 4 Active */
	/* first bit in to first bit out, over the packets this port sent */
	uint64_t lat_min_ns, lat_max_ns, lat_sum_ns, lat_count;
};

void sfab_sim_sw_port_stats(const struct sfab_sim_sw *s, unsigned int port,
			    struct sfab_sim_port_stats *st);
/* packets held in the switch, all ports */
unsigned int sfab_sim_sw_queued(const struct sfab_sim_sw *s);
/*
 * capture every frame in and out of @port but flow control to the pcap
 * file @path, as sfab-switchd --pcap-dir does (sfab_sw_pcap_open()); 0 or
 * a negative errno
 */
int sfab_sim_sw_pcap(struct sfab_sim_sw *s, unsigned int port, const char *path);

/*
 * For the PFC baseline (tools/sim/model/sfab-pfc.h), which replaces the
 * credit gate by PAUSE frames and an ingress buffer limit:
 *  - the data VLs @port must not start a packet on (bit v: VL v);
 *  - the 64-byte blocks the input buffer of @port and @vl holds;
 *  - a data frame in at @port and dropped there (a full buffer): the link
 *    takes it (CRCs, its credit accounting) and frees it at once.
 */
void sfab_sim_sw_hold(struct sfab_sim_sw *s, unsigned int port,
		      unsigned int vl_mask);
unsigned int sfab_sim_sw_vl_used(const struct sfab_sim_sw *s,
				 unsigned int port, unsigned int vl);
void sfab_sim_sw_rx_drop(struct sfab_sim_sw *s, uint64_t now,
			 unsigned int port, const uint8_t *frame, size_t len);
/* the 64-byte blocks a frame of @len bytes occupies */
unsigned int sfab_sim_blocks(size_t len);

/* --- an HCA's port: a link end ------------------------------------------- */

struct sfab_sim_link;

struct sfab_sim_link *sfab_sim_link_new(unsigned int num_data_vls,
					unsigned int vl_blocks,
					uint64_t fc_period_ns);
void sfab_sim_link_free(struct sfab_sim_link *l);
void sfab_sim_link_phys_up(struct sfab_sim_link *l, uint64_t now);
/* LinkUp made Active (the SM's part); false when the link is not up */
bool sfab_sim_link_activate(struct sfab_sim_link *l);
bool sfab_sim_link_active(const struct sfab_sim_link *l);
bool sfab_sim_link_up(const struct sfab_sim_link *l);

#define SFAB_SIM_RX_NONE	0	/* a link packet, or dropped */
#define SFAB_SIM_RX_DATA	1	/* a data packet, in the buffer */
/* a frame in; for data, *@vl its VL (free it with sfab_sim_link_rx_free) */
int sfab_sim_link_rx(struct sfab_sim_link *l, uint64_t now,
		     const uint8_t *frame, size_t len, unsigned int *vl);
void sfab_sim_link_rx_free(struct sfab_sim_link *l, unsigned int vl,
			   size_t len);
bool sfab_sim_link_tx_ok(const struct sfab_sim_link *l, unsigned int vl,
			 size_t len);
void sfab_sim_link_tx_sent(struct sfab_sim_link *l, unsigned int vl,
			   const uint8_t *frame, size_t len);
/* the next flow-control or training packet to send now, if any */
bool sfab_sim_link_fc_next(struct sfab_sim_link *l, uint64_t now,
			   uint8_t out[SFAB_SIM_FC_LEN]);
uint64_t sfab_sim_link_fc_deadline(const struct sfab_sim_link *l);
uint64_t sfab_sim_link_rcv_errors(const struct sfab_sim_link *l);

/* --- packets ---------------------------------------------------------------- */

enum sfab_sim_kind {
	SFAB_SIM_RC_FIRST,		/* RC SEND: first, middle, last, only */
	SFAB_SIM_RC_MIDDLE,
	SFAB_SIM_RC_LAST,
	SFAB_SIM_RC_ONLY,
	SFAB_SIM_RC_ACK,		/* an ACK up to and with psn */
	SFAB_SIM_UD,			/* a UD SEND only */
};

struct sfab_sim_pkt {
	enum sfab_sim_kind kind;
	unsigned int sl, vl;
	uint32_t dlid, slid;		/* above 0xffff: an extended LRH */
	bool ext_lrh;			/* parse: it came with one */
	uint32_t dqpn, sqpn;		/* sqpn: UD only (RC: the connection) */
	uint32_t psn;
	bool ackreq;
	uint32_t len;			/* payload bytes */
	/*
	 * The first payload bytes carry what the simulation's transport
	 * needs: a message number and the virtual time it was posted.
	 */
	uint64_t msg, posted_ns;
};

/* the frame, sealed (ICRC, VCRC); its length */
/*
 * LIDs (Documentation/sfab/addressing.rst): the @i-th LID from @base,
 * @base, @base + 1, ..., IBA's multicast and permissive LIDs
 * (0xc000..0xffff) skipped: past 0xbfff they go on at 0x10000, the extended
 * LIDs.  0 when @base is no unicast LID or the LID would be past the
 * extended unicast range (0xefffff).
 */
uint32_t sfab_sim_lid_at(uint32_t base, uint64_t i);
/* the LFT entries a switch needs for LIDs up to @last: 0 for IBA's */
uint32_t sfab_sim_lft_cap(uint32_t last);

size_t sfab_sim_pkt_build(uint8_t *buf, const struct sfab_sim_pkt *p);
bool sfab_sim_pkt_parse(const uint8_t *frame, size_t len,
			struct sfab_sim_pkt *p);
/* the length of a frame carrying @payload bytes of @kind */
size_t sfab_sim_pkt_len(enum sfab_sim_kind kind, uint32_t payload);

#ifdef __cplusplus
}
#endif

#endif /* SFAB_SIM_H */
