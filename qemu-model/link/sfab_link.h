/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab link layer: IBA link-level flow control (IBTA Vol 1 7.9) and the
 * link's physical/logical state, for one end of one cable.
 *
 * Both ends of every cable run this code: a switch port in sfab-switchd and
 * the HCA port in the QEMU model.  It does no I/O and keeps no packets:
 *
 *  - the owner feeds every frame it reads from the cable to
 *    sfab_link_rx(); a data packet the link accepts occupies receive
 *    buffer blocks until the owner hands them back with sfab_link_rx_free();
 *  - before sending a data packet the owner asks sfab_link_tx_ok() and,
 *    when it sends, reports it with sfab_link_tx_sent();
 *  - the owner drains flow-control packets with sfab_link_fc_next() after
 *    each batch of work and when sfab_link_fc_deadline() passes.
 *
 * Time is whatever monotonic nanosecond clock the owner uses (real or
 * virtual); the link only compares and subtracts it.
 *
 * Invariants (Documentation/sfab/flow-control.rst):
 *  - a sender never has more than (FCCL - FCTBS) mod 4096 blocks
 *    outstanding on a data VL, so the receiver's buffer never overflows;
 *  - the receiver's ABR equals the sender's FCTBS after each FC packet, so
 *    blocks of packets dropped for a bad CRC are given back;
 *  - VL15 is never flow controlled: a full VL15 buffer drops and counts.
 */
#ifndef SFAB_LINK_H
#define SFAB_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sfab/sfab_wire.h"

#define SFAB_LINK_MAX_DATA_VLS		15
#define SFAB_LINK_MAX_FCCL_AHEAD	2048	/* IBTA 7.9.4.3 */
#define SFAB_LINK_FC_PERIOD_NS		163840	/* 65 536 symbols at 2.5 ns */
/*
 * The refresh period both ends of an emulated cable use.  Changes of credit
 * go out at once, so periodic packets only repair a lost one; at the IBA
 * period above every idle port would cost the host thousands of wake-ups a
 * second (DESIGN.md: respect the CPU budget).
 */
#define SFAB_LINK_FC_REFRESH_NS		100000000ULL	/* 100 ms */

/* what sfab_link_rx() made of a frame */
enum sfab_link_rx_result {
	SFAB_LINK_RX_FC,	/* a flow-control packet, consumed */
	SFAB_LINK_RX_DATA,	/* a data packet, buffered: the owner keeps it */
	SFAB_LINK_RX_DROP,	/* discarded and counted (bad CRC, length, VL...) */
	SFAB_LINK_RX_DOWN,	/* discarded and the link went down (overrun) */
};

struct sfab_link_cfg {
	unsigned int num_data_vls;	/* 1..15: VL0..VLn-1 carry data */
	unsigned int vl_blocks;		/* receive buffer per data VL, 64-byte blocks */
	unsigned int vl15_blocks;	/* VL15 receive buffer */
	uint64_t fc_period_ns;		/* resend FC packets at least this often */
	/*
	 * accept the extended LRH (LVer 1, 24-bit LIDs) as well as IBA's;
	 * false (the live HCA's and switch's links): LVer 1 is malformed
	 */
	bool ext_lrh;
};

/* PMA-visible counters, kept wide; the PMA saturates them */
struct sfab_link_counters {
	uint64_t xmit_data;		/* octets, LRH through ICRC (no VCRC) */
	uint64_t rcv_data;
	uint64_t xmit_pkts;
	uint64_t rcv_pkts;
	uint64_t xmit_ucast_pkts;
	uint64_t rcv_ucast_pkts;
	uint64_t xmit_mcast_pkts;
	uint64_t rcv_mcast_pkts;
	uint64_t symbol_errors;		/* frames that fail VCRC/LPCRC */
	uint64_t rcv_errors;		/* data packets discarded on receive */
	uint64_t vcrc_errors;		/* ... of which: bad VCRC */
	uint64_t icrc_errors;		/* ... bad ICRC */
	uint64_t malformed;		/* ... bad length or header */
	uint64_t vl15_dropped;
	uint64_t excessive_buffer_overrun;
	uint64_t link_downed;
	uint64_t fc_pkts_rx;
	uint64_t fc_pkts_tx;
	uint64_t bad_fc_pkts;
};

struct sfab_link_vl {
	/* sender side: what we may send to the peer */
	uint16_t fctbs;		/* total blocks sent, mod 4096 */
	uint16_t fccl;		/* credit limit the peer advertised */
	/* receiver side: the peer's packets in our buffer */
	uint16_t abr;		/* adjusted blocks received, mod 4096 */
	uint16_t adv_fccl;	/* FCCL last advertised */
	uint32_t used;		/* blocks occupied */
	bool fc_due;		/* an FC packet must go out for this VL */
};

struct sfab_link {
	struct sfab_link_cfg cfg;
	enum sfab_port_phys_state phys;
	enum sfab_port_state state;
	bool heard;		/* Polling: the peer's training was seen */
	bool ts_due;		/* Polling: a TS1/TS2 to send now */
	struct sfab_link_vl vl[SFAB_LINK_MAX_DATA_VLS];
	uint32_t vl15_used;
	bool init_due;		/* Init FC packets still to send */
	unsigned int fc_cursor;	/* next VL sfab_link_fc_next() looks at */
	uint64_t last_fc_ns;
	struct sfab_link_counters cnt;
};

int sfab_link_init(struct sfab_link *l, const struct sfab_link_cfg *cfg);

/*
 * The cable connected, or the link must train again: Polling, TS1 due.
 * Up from LinkUp counts LinkDownedCounter.
 */
void sfab_link_phys_up(struct sfab_link *l, uint64_t now);
/* the cable went away or the port was disabled: Down, credits forgotten */
void sfab_link_phys_down(struct sfab_link *l, bool disable);
/* Set PortInfo:PortState: 0 on success, -1 for a transition IBA forbids */
int sfab_link_set_state(struct sfab_link *l, enum sfab_port_state st);

enum sfab_link_rx_result sfab_link_rx(struct sfab_link *l, const uint8_t *frame,
				      size_t len, unsigned int *vl);
/*
 * sfab_link_rx(), the frame copied to @dst (room for @len bytes, not
 * overlapping it) in the same pass that checks its CRCs; @dst holds the
 * frame when the result is SFAB_LINK_RX_DATA, anything otherwise.
 */
enum sfab_link_rx_result sfab_link_rx_copy(struct sfab_link *l, uint8_t *dst,
					   const uint8_t *frame, size_t len,
					   unsigned int *vl);
void sfab_link_rx_free(struct sfab_link *l, unsigned int vl, size_t len);

bool sfab_link_tx_ok(const struct sfab_link *l, unsigned int vl, size_t len);
void sfab_link_tx_sent(struct sfab_link *l, unsigned int vl,
		       const uint8_t *frame, size_t len);
/* blocks the peer will still take on a data VL */
unsigned int sfab_link_tx_credits(const struct sfab_link *l, unsigned int vl);

bool sfab_link_fc_pending(const struct sfab_link *l, uint64_t now);
bool sfab_link_fc_next(struct sfab_link *l, uint64_t now,
		       uint8_t out[SFAB_WIRE_FC_PKT_LEN]);
uint64_t sfab_link_fc_deadline(const struct sfab_link *l);

/* helpers */
static inline unsigned int sfab_link_blocks(size_t len)
{
	return (len + SFAB_WIRE_BLOCK_LEN - 1) / SFAB_WIRE_BLOCK_LEN;
}

static inline bool sfab_link_is_up(const struct sfab_link *l)
{
	return l->phys == SFAB_PHYS_LINKUP;
}

/* data VLs carry data only in Active; VL15 from Init on */
static inline bool sfab_link_can_xmit(const struct sfab_link *l, unsigned int vl)
{
	if (!sfab_link_is_up(l))
		return false;
	return vl == SFAB_VL15 ? l->state >= SFAB_PORT_INIT :
	       l->state == SFAB_PORT_ACTIVE;
}

void sfab_link_make_fc(uint8_t out[SFAB_WIRE_FC_PKT_LEN], unsigned int op,
		       unsigned int vl, unsigned int fctbs, unsigned int fccl);

const char *sfab_link_state_name(enum sfab_port_state st);
const char *sfab_link_phys_name(enum sfab_port_phys_state st);

#endif /* SFAB_LINK_H */
