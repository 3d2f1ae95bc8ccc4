/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab switch core: the behaviour of one IBA switch, without I/O.
 *
 * Ports 1..N are cable ends, each an sfab_link (flow control, state) with
 * per-VL input buffers; port 0 is the management port (SMA and PMA).  The
 * owner (sfab-switchd's event loop, or a unit test) feeds received frames
 * to sfab_sw_port_rx(), then calls sfab_sw_run() once per batch: it
 * forwards every packet that can go (LFT/MFT, SL-to-VL, VL arbitration,
 * credit for the whole packet on the egress VL), answers SMPs and PMA
 * queries and sends flow-control packets, all through ops->xmit.  Nothing
 * is dropped for lack of buffer: a packet without credit waits at the head
 * of its input VL queue and the wait is counted in PortXmitWait.  The one
 * bounded queue is port 0's own: what the management port builds (SMA and
 * PMA answers, directed-route SMPs it forwards) waits per egress port and
 * VL, at most SFAB_SW_MGMT_QUEUE_MAX packets; beyond that the request is
 * dropped (VL15Dropped for SMPs, PortRcvErrors for GMPs, on the port it
 * came in by), so a node that asks and never returns credit cannot make
 * the switch allocate without bound or hold up answers to other ports.
 *
 * Time: the owner sets sfab_sw.now (ns, monotonic).  The switch keeps a
 * virtual-time account on top of it: each packet is charged serialisation
 * at its port's rate and the per-hop latency.  A live switch (sfab-switchd)
 * sends each packet as soon as it may, and the account only reports what a
 * real switch's timing would have been.  A paced switch (cfg.paced: the
 * owner's clock is a simulator's, tools/sim) lives by the account: a port
 * starts a packet only when its previous one has left (now >= its
 * tx_busy_until), never before the hop latency after the packet's first
 * bit came in (cut-through), and hands it out with ops->xmit_at and that
 * start time; sfab_sw_deadline() says when a busy port with a packet
 * waiting frees.
 *
 * Link errors on purpose (sfab-switchctl "port P ber|drop|flap"): each
 * external port can corrupt what it sends (one bit flipped, so the peer's
 * VCRC or LPCRC check fails), discard data packets instead of sending them
 * (PortXmitDiscards) and take itself down and up on a schedule.  The
 * decisions come from a per-port PRNG seeded from sfab_sw_cfg.seed (or
 * sfab_sw_seed()), so a run is reproducible.
 *
 * Partitions (IBTA 10.9.4): every external port has a P_Key table of
 * SFAB_SW_PKEYS entries (SwitchInfo:PartitionEnforcementCap) and the
 * PortInfo enforcement bits, both set by the SM.  With inbound enforcement
 * a data packet whose P_Key is not in the table of the port it came in by
 * is dropped there (PortRcvConstraintErrors); with outbound enforcement,
 * at each egress port whose table lacks it (PortXmitConstraintErrors).
 * FilterRawInbound/Outbound drop raw packets (no BTH) the same way.
 * Only the partition is compared, not the membership: the SM copies a
 * limited member's limited P_Key into its switch port's table and limited
 * members still reach full ones; the endpoints keep two limited members
 * apart.  VL15 is never checked.  Port 0 (the switch's own SMA and PMA)
 * takes a GMP only with a P_Key that matches its table as an endpoint's
 * does (P_KeyViolations).
 */
#ifndef SFAB_SW_H
#define SFAB_SW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../link/sfab_link.h"
#include "../mad/sfab_mad.h"

#define SFAB_SW_MAX_PORTS	254
#define SFAB_SW_DEF_PORTS	64
#define SFAB_SW_DATA_VLS	8	/* VLCap: VL0-7 */
#define SFAB_SW_LFT_CAP		0xc000	/* every unicast LID (IBA's) */
/* the most an LFT may hold with extended LIDs (sfab_sw_cfg.lft_cap) */
#define SFAB_SW_XLFT_CAP	(SFAB_XLID_UCAST_MAX + 1)
#define SFAB_SW_MFT_CAP		1024	/* MLIDs 0xc000..0xc3ff */
#define SFAB_SW_VLARB_CAP	64
#define SFAB_SW_PKEYS		32
#define SFAB_SW_VLARB_ENTRIES	8	/* VLArbHighCap and VLArbLowCap */
#define SFAB_SW_MGMT_QUEUE_MAX	16	/* port 0's packets per egress port and VL */
#define SFAB_SW_WANT_WORDS	((SFAB_SW_MAX_PORTS + 1 + 63) / 64)

struct sfab_sw_cfg {
	unsigned int nports;		/* external ports, 1..254 */
	unsigned int num_data_vls;	/* 1..8 */
	unsigned int vl_blocks;		/* input buffer per port per data VL */
	unsigned int vl15_blocks;
	uint64_t fc_period_ns;
	uint64_t node_guid;
	char desc[64];
	uint64_t rate_mbps;		/* port rate, default 400000 (4x NDR) */
	uint64_t hop_ns;		/* per-hop latency, default 200 */
	uint64_t seed;			/* error injection PRNG, default 1 */
	bool paced;			/* virtual time: see "Time" above */
	/*
	 * LFT entries, LIDs 0..lft_cap - 1: 0 (the live switch) is
	 * SFAB_SW_LFT_CAP, IBA's unicast LIDs.  More (a multiple of 64, at
	 * most SFAB_SW_XLFT_CAP) routes extended LIDs
	 * (Documentation/sfab/addressing.rst): the links then take the
	 * extended LRH too.  The SMA's LFT blocks stay IBA's.
	 */
	uint32_t lft_cap;
};

struct sfab_sw_ops {
	/*
	 * send a frame out of external port @port: 0, or -1 (port unusable);
	 * the frame is the caller's again when it returns
	 */
	int (*xmit)(void *opaque, unsigned int port, const uint8_t *frame,
		    size_t len);
	/*
	 * optional, for a paced switch: as xmit, the frame's first bit
	 * leaving at virtual time @start_ns (>= sfab_sw.now)
	 */
	int (*xmit_at)(void *opaque, unsigned int port, const uint8_t *frame,
		       size_t len, uint64_t start_ns);
};

struct sfab_sw_pkt {
	struct sfab_sw_pkt *next;
	uint64_t t_first;	/* virtual ns: first bit in */
	uint64_t stall_since;	/* waiting for credit since (0: not) */
	uint16_t len;
	uint8_t in_port;
	uint8_t in_vl;
	uint8_t nout;		/* egress ports still to serve */
	bool lft_routed;	/* unicast by the LFT: failover may move it */
	uint32_t fo_epoch;	/* sfab_sw_fo.epoch its route was taken in */
	uint8_t *outs;		/* nout of them, 0 once served */
	uint8_t data[];
};

struct sfab_sw_queue {
	struct sfab_sw_pkt *head, *tail;
	unsigned int count;
};

/* PMA counters only the switch keeps (the link keeps the rest) */
struct sfab_sw_port_cnt {
	uint64_t xmit_wait;		/* ticks (ns of virtual time) */
	uint64_t xmit_discards;
	uint64_t rcv_switch_relay_errors;
	uint64_t rcv_constraint_errors;		/* inbound partition checks */
	uint64_t xmit_constraint_errors;	/* outbound partition checks */
};

/*
 * Link-error injection on one external port.  A rate is a probability per
 * frame: a frame is hit when the port's next pseudo-random number is below
 * its threshold (0: never, UINT64_MAX: always).
 */
struct sfab_sw_errinj {
	double ber, drop;		/* as set, 0..1 */
	uint64_t ber_thr, drop_thr;
	uint64_t rng;			/* splitmix64 state */
	uint64_t flap_period_ns;	/* 0: not flapping */
	uint64_t flap_down_ns;
	uint64_t flap_next;		/* sfab_sw.now of the next change */
	bool flap_is_down;		/* the flap holds the port down now */
	/* switch-private counters (a PMA clear leaves them) */
	uint64_t corrupted;		/* data packets sent with a bad bit */
	uint64_t fc_corrupted;		/* flow-control packets sent so */
	uint64_t dropped;		/* data packets discarded (also in
					 * PortXmitDiscards) */
	uint64_t flaps;			/* times the flap took it down */
};

struct sfab_sw_arb {
	uint8_t vl[SFAB_SW_VLARB_CAP];
	uint8_t weight[SFAB_SW_VLARB_CAP];
	unsigned int idx;
	int left;			/* 64-byte units left in entry idx */
};

struct sfab_sw_port {
	unsigned int num;
	struct sfab_link link;
	bool connected;
	struct sfab_sw_queue inq[16];	/* per input VL (port 0: unused) */
	/* what port 0 built for this egress port, per VL; bounded */
	struct sfab_sw_queue mgmt_q[16];
	/* SMA-managed */
	struct sfab_mad_port_cfg cfg;	/* what PortInfo Sets configure */
	uint8_t enforce;		/* SFAB_PI_ENF_*, SFAB_PI_FILTER_RAW_* */
	uint16_t pkeys[SFAB_SW_PKEYS];	/* port 0: the switch's own table */
	struct sfab_sw_arb arb_high, arb_low;
	unsigned int high_sent;		/* bytes since low priority last went */
	uint8_t rr_in[16];		/* round-robin start per input VL */
	/*
	 * The queues whose head packet waits for this port: bit i of
	 * want[v] is input port i's queue of VL v (i = 0: this port's own
	 * mgmt_q[v]); nwant of them in all.  The egress looks at those
	 * alone, not at every input's every queue.
	 */
	uint64_t want[16][SFAB_SW_WANT_WORDS];
	unsigned int nwant;
	/* counters */
	struct sfab_sw_port_cnt cnt;
	struct sfab_link_counters link_base;	/* PMA: value at last clear */
	struct sfab_sw_port_cnt cnt_base;
	uint64_t stall_since;		/* egress stalled on credit since */
	/*
	 * Data VLs the owner holds back on this egress port (bit v: VL v):
	 * a held VL waits as one without credit does.  Only the fabric
	 * simulation's PFC baseline sets it (tools/sim/model/sfab-pfc.h:
	 * the peer's PAUSE); 0 otherwise.
	 */
	uint16_t tx_held;
	uint8_t seen_state;		/* PortState at the last sfab_sw_run() */
	bool fo_active;			/* Active at the last failover scan */
	bool fo_lost;			/* went from Active to not: failed over */
	/* virtual time */
	uint64_t rate_mbps;		/* the link's rate (0: cfg.rate_mbps) */
	uint64_t rx_busy_until, tx_busy_until;
	uint64_t vt_first, vt_last, vt_bytes;
	uint64_t lat_sum, lat_count, lat_min, lat_max;
	/* link errors on purpose */
	struct sfab_sw_errinj inj;
	/* capture */
	FILE *pcap;
};

/*
 * Fast failover below the SM (sfab_sw_fo.c; Documentation/sfab/
 * failover.rst).  When an Active port stops being Active, every unicast
 * destination routed out of it moves, in the same sfab_sw_run(), to an
 * alternate port: its backup entry (alt, programmed like the LFT), or
 * else, when the lost port is in the up-port group, another live up-port
 * (LID mod their number).  Packets queued for the lost port move with it.
 * Destinations with no alternate are announced unreachable to the
 * switch-facing ports (a fault routing notification), whose switches move
 * them off this switch.  A switch with no group, no peers and no backup
 * entry behaves as before.  An LFT write by the SM replaces the moves for
 * its LIDs; a port Active again takes its destinations back.
 */
struct sfab_sw_fo {
	uint8_t *alt;			/* [lft_cap] backup port, or NULL */
	uint8_t *over;			/* [lft_cap] port in force instead
					 * of the LFT's, or NULL */
	uint64_t *unreach;		/* bit per LID: announced unreachable */
	uint64_t up[SFAB_SW_WANT_WORDS];	/* the up-port group */
	uint64_t peer[SFAB_SW_WANT_WORDS];	/* switch-facing ports */
	uint32_t epoch;			/* bumped by every change of routes */
	/* statistics */
	uint64_t last_ns;		/* sfab_sw.now of the last change */
	uint64_t first_tx_ns;		/* first packet out on an alternate
					 * after it (virtual start), 0: none */
	uint64_t events;		/* ports lost and notifications taken */
	uint64_t moved;			/* destinations moved to an alternate */
	uint64_t unreachable;		/* destinations announced unreachable */
	uint64_t requeued;		/* queued packets moved */
	uint64_t sent_alt;		/* packets sent on an alternate */
	uint64_t bounced;		/* sent back to the switch they came from */
	uint64_t frn_sent, frn_taken, frn_refused;
};

struct sfab_sw {
	struct sfab_sw_cfg cfg;
	const struct sfab_sw_ops *ops;
	void *opaque;
	uint64_t now;
	struct sfab_sw_port *port;	/* [0..nports] */
	unsigned int queued;		/* packets held, all ports */
	unsigned int rr_port;
	uint8_t *lft;			/* [lft_cap] */
	uint32_t lft_cap;		/* entries: cfg.lft_cap or IBA's */
	uint16_t lft_top;
	uint16_t *mft;			/* [SFAB_SW_MFT_CAP][mft_chunks] */
	unsigned int mft_chunks;
	uint16_t mft_top;
	uint8_t *sl2vl;			/* [(in * (N + 1) + out) * 16 + sl] */
	/* port 0 / node, SMA-managed */
	enum sfab_port_state port0_state;
	uint16_t lid;
	uint8_t lmc;
	struct sfab_mad_mkey mk;	/* M_Key, enforced by the SMA */
	uint16_t sm_lid;
	uint8_t sm_sl;
	uint64_t gid_prefix;
	uint8_t subnet_timeout;
	uint8_t life_state;
	uint8_t def_port, def_mcast_pri_port, def_mcast_not_port;
	uint16_t pkey_violations;	/* port 0: GMPs refused for their P_Key */
	/* statistics */
	uint64_t sma_mads, pma_mads, bad_mads, dr_forwarded, no_route;
	uint64_t mkey_refused;		/* SMPs refused for a wrong M_Key */
	uint64_t trap_tid;		/* the last trap's TransactionID */
	uint64_t mgmt_dropped;		/* port 0 packets over the queue bound */
	struct sfab_sw_fo fo;
};

void sfab_sw_default_cfg(struct sfab_sw_cfg *cfg);

/* ns a frame of @len bytes takes on a link of @rate_mbps, rounded up */
static inline uint64_t sfab_sw_ser_ns(uint64_t rate_mbps, size_t len)
{
	return ((uint64_t)len * 8 * 1000 + rate_mbps - 1) / rate_mbps;
}

struct sfab_sw *sfab_sw_create(const struct sfab_sw_cfg *cfg,
			       const struct sfab_sw_ops *ops, void *opaque);
void sfab_sw_destroy(struct sfab_sw *sw);

/* a cable was plugged into / pulled out of external port @p */
void sfab_sw_port_connect(struct sfab_sw *sw, unsigned int p);
void sfab_sw_port_disconnect(struct sfab_sw *sw, unsigned int p);
/* administrative down (disabled) / up (polling), from the control CLI */
int sfab_sw_port_admin(struct sfab_sw *sw, unsigned int p, bool up);

/*
 * Link errors on purpose on external port @p; 0, or -1 for a port the
 * switch does not have or a value out of range.
 *  - ber: each frame the port sends (data and flow-control packets) leaves
 *    with one bit flipped with probability @rate (0..1), past the LRH of a
 *    data packet, so the receiver's VCRC (LPCRC) check fails: it counts
 *    PortRcvErrors (SymbolErrorCounter) and discards it.  The port sends
 *    the VL's flow-control packet right after a corrupted data packet, so
 *    the receiver's ABR catches up with the lost blocks at once instead of
 *    at the next periodic refresh (when that packet itself gets through).
 *  - drop: each data packet (VL15 too) about to leave is discarded instead
 *    with probability @rate: PortXmitDiscards; it costs no credit on the
 *    egress link and its input buffer is freed.  Flow-control packets are
 *    never dropped.
 *  - flap: every @period_ns the port goes Disabled (sfab_sw_port_admin()),
 *    for @down_ns, 0 < @down_ns < @period_ns; the first time at the next
 *    sfab_sw_run().  @period_ns 0 stops it (and enables a port the flap
 *    holds down).  LinkDownedCounter counts each down of a LinkUp port.
 *  - clear: all three off; the counters stay.
 */
int sfab_sw_port_ber(struct sfab_sw *sw, unsigned int p, double rate);
int sfab_sw_port_drop(struct sfab_sw *sw, unsigned int p, double rate);
int sfab_sw_port_flap(struct sfab_sw *sw, unsigned int p, uint64_t period_ns,
		      uint64_t down_ns);
int sfab_sw_port_errors_clear(struct sfab_sw *sw, unsigned int p);
/*
 * The rate port @p's link runs at (the slower end's: an HCA's 400 Gb/s on
 * an 800 Gb/s switch port), Mb/s; 0 for the switch's.  0, or -1 for no
 * such port.
 */
int sfab_sw_port_rate(struct sfab_sw *sw, unsigned int p, uint64_t rate_mbps);
/* restart every port's injection PRNG from @seed */
void sfab_sw_seed(struct sfab_sw *sw, uint64_t seed);

void sfab_sw_port_rx(struct sfab_sw *sw, unsigned int p, const uint8_t *frame,
		     size_t len);
/* forward what can go, answer MADs, send FC packets; return packets sent */
unsigned int sfab_sw_run(struct sfab_sw *sw);
/* the earliest time sfab_sw_run() has periodic work (FC packets, flaps) */
uint64_t sfab_sw_deadline(const struct sfab_sw *sw);

/* forwarding tables */
int sfab_sw_lft_set(struct sfab_sw *sw, uint32_t lid, uint8_t port);
uint8_t sfab_sw_lft_get(const struct sfab_sw *sw, uint32_t lid);
int sfab_sw_lft_set_block(struct sfab_sw *sw, unsigned int block,
			  const struct sfab_wire_lft_block *b);
int sfab_sw_lft_get_block(const struct sfab_sw *sw, unsigned int block,
			  struct sfab_wire_lft_block *b);
int sfab_sw_mft_set_port(struct sfab_sw *sw, uint16_t mlid, unsigned int port,
			 bool member);
bool sfab_sw_mft_has_port(const struct sfab_sw *sw, uint16_t mlid,
			  unsigned int port);
/*
 * The egress ports for a packet from @in_port to @dlid, into @outs;
 * return how many (0: no route, counted by the caller).
 */
unsigned int sfab_sw_route(const struct sfab_sw *sw, unsigned int in_port,
			   uint32_t dlid, uint8_t *outs);

/*
 * Fast failover (struct sfab_sw_fo).  A backup entry, an up-port group
 * member, a switch-facing port: 0, or -1 for a LID or port out of range or
 * no memory.  sfab_sw_route_port() is the port a unicast LID goes out of
 * now (the LFT's, or the alternate in force).
 */
int sfab_sw_alt_set(struct sfab_sw *sw, uint32_t lid, uint8_t port);
uint8_t sfab_sw_alt_get(const struct sfab_sw *sw, uint32_t lid);
int sfab_sw_fo_up_port(struct sfab_sw *sw, unsigned int p, bool member);
int sfab_sw_fo_peer_port(struct sfab_sw *sw, unsigned int p, bool member);
uint8_t sfab_sw_route_port(const struct sfab_sw *sw, uint32_t lid);
/* the SM wrote LFT entries @first..@first + @n - 1 */
void sfab_sw_fo_lft_written(struct sfab_sw *sw, unsigned int first,
			    unsigned int n);
/* ports that left or entered Active since the last call (sfab_sw_run()) */
void sfab_sw_fo_scan(struct sfab_sw *sw);
/* a fault routing notification (@mad: its SFAB_WIRE_MAD_LEN bytes) came in by port @p */
void sfab_sw_frn_rx(struct sfab_sw *sw, unsigned int p, const uint8_t *mad);
/*
 * A packet from @in_port to @dlid, routed to @out: true if it goes back
 * out of @in_port instead.  That is when @out is a port this switch lost,
 * @dlid has no alternate (announced unreachable) and @in_port is an
 * Active switch-facing port: the switch behind it was told, before this
 * packet (the notification is on VL15, which goes first), and sends it
 * another way.  Once only: a switch bounces only for a port it lost
 * itself, and never back to where a packet came from twice.
 */
bool sfab_sw_fo_bounce(const struct sfab_sw *sw, unsigned int in_port,
		       uint32_t dlid, unsigned int out);
/* routes changed: move the queued packets whose route did (sfab_sw.c) */
void sfab_sw_fo_requeue(struct sfab_sw *sw);

static inline uint8_t *sfab_sw_sl2vl(struct sfab_sw *sw, unsigned int in,
				     unsigned int out)
{
	return &sw->sl2vl[(in * (sw->cfg.nports + 1) + out) * 16];
}

/* OperationalVLs encoding -> number of data VLs */
static inline unsigned int sfab_sw_op_vls_count(uint8_t op_vls)
{
	static const uint8_t n[] = { 0, 1, 2, 4, 8, 15 };

	return op_vls < 6 ? n[op_vls] : 0;
}

/* management (sfab_sw_mad.c) */
void sfab_sw_mad_rx(struct sfab_sw *sw, unsigned int in_port,
		    const uint8_t *frame, size_t len);
/*
 * The management class of a MAD to QP0 in @frame (a UD packet carrying a
 * whole MAD), *@mad its bytes; -1 for anything else
 */
int sfab_sw_mad_class(const uint8_t *frame, size_t len, const uint8_t **mad);
void sfab_sw_dr_forward(struct sfab_sw *sw, unsigned int in_port,
			const uint8_t *frame, size_t len);
void sfab_sw_pma_counters(const struct sfab_sw *sw, unsigned int p,
			  struct sfab_link_counters *lc,
			  struct sfab_sw_port_cnt *sc);
/*
 * Hand a packet built by port 0 to the forwarding engine, out of @outs
 * (NULL: routed by its DLID).  @in_port is the port the request that
 * caused it came in by: a copy over the queue bound is counted there.
 * Return the copies dropped for the bound.
 */
unsigned int sfab_sw_inject(struct sfab_sw *sw, unsigned int in_port,
			    const uint8_t *frame, size_t len,
			    const uint8_t *outs, unsigned int nout);

/* pcap (sfab_sw_pcap.c): one file per port, LINKTYPE_INFINIBAND */
int sfab_sw_pcap_open(struct sfab_sw *sw, unsigned int p, const char *path);
void sfab_sw_pcap_write(struct sfab_sw_port *port, const uint8_t *frame,
			size_t len);
void sfab_sw_pcap_close(struct sfab_sw_port *port);

#endif /* SFAB_SW_H */
