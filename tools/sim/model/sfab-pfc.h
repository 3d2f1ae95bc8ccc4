/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lossy-Ethernet PFC baseline: IEEE 802.1Qbb priority flow control on
 * the same fabric, for comparison with the product's credit-based links
 * (Documentation/sfab/simulation.rst, "Lossy-Ethernet PFC baseline").  It
 * is the comparison baseline, not the product.
 *
 * One SfabPfcPort per cable end.  The fabric, the switch core's forwarding
 * and input queues, the HCAs' transport and the traffic stay as they are;
 * what changes is the link-level gate:
 *
 *  - credit stops being the gate: the links advertise a buffer larger than
 *    the PFC buffer by the most IBA credit may run ahead (2048 blocks), so a
 *    sender always holds credit (sfab-sim sets VlBlocks so);
 *  - ingress (a switch port): each priority (VL) has a buffer of
 *    BufferBytes; a data frame that does not fit is dropped (the link takes
 *    and frees it: its CRCs and accounting as for any frame).  With PAUSE
 *    on, when what the buffer holds reaches XOFF the port sends a PFC frame
 *    for that priority with Quanta pause quanta (512 bit times each), again
 *    every half of that time while it stays above XON, and a PFC frame of 0
 *    quanta (XON) once it is at or below XON.  The frame leaves after the
 *    data frame on the wire of that port, if one is (a MAC control frame
 *    does not preempt one), ahead of any the port has not started yet, and
 *    crosses the cable like any frame.  HCAs take every frame at once and
 *    never pause;
 *  - egress (every end): a PFC frame received takes effect ResponseNs after
 *    it arrived (both kinds); from then the priority starts no new frame for
 *    the time asked (the frame in progress finishes), or until an XON;
 *  - headroom: XOFF defaults to the buffer less what may still arrive once
 *    XOFF is crossed: the frame on the wire on the way back, the PFC frame
 *    (84 bytes with preamble and gap), the cable both ways, the response
 *    delay, at the link's rate, plus three largest frames: the one that
 *    crosses XOFF, the last one the sender starts and the one its switch
 *    core may have handed out already to start later (a paced core picks a
 *    port's next packet when the port frees, to leave cut-through the hop
 *    latency after it came in), each counted whole at its first bit.  XON
 *    defaults to XOFF less two largest frames.
 *
 * With PAUSE off (lossy Ethernet, sfab-sim --flow-control=lossy) the same
 * buffers drop on overflow and nothing pauses.
 */
#ifndef SFAB_PFC_H
#define SFAB_PFC_H

#include "sfab-net-device.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

class SfabFabric;

struct SfabPfcConfig
{
    bool pause = true;             /* false: lossy, drops and never pauses */
    uint64_t bufferBytes = 131072; /* ingress, per port and priority */
    int64_t xoffBytes = -1;        /* -1: the buffer less the headroom */
    int64_t xonBytes = -1;         /* -1: XOFF less two largest frames */
    uint32_t quanta = 0xffff;      /* what a PAUSE asks, 512 bit times each */
    uint64_t responseNs = 500;     /* PFC frame in to the transmitter held */
    uint64_t propNs = 5;           /* the cable, for the headroom */
    uint32_t priorities = 1;       /* data VLs in use, one priority each */
};

/* summed over every cable end of a fabric */
struct SfabPfcStats
{
    uint64_t pauseTx = 0;  /* PFC frames with quanta (XOFF and refreshes) */
    uint64_t xonTx = 0;    /* PFC frames of 0 quanta */
    uint64_t pfcRx = 0;    /* PFC frames received */
    uint64_t heldNs = 0;   /* transmitter time held, over ends and priorities */
    uint64_t drops = 0;    /* data frames dropped for a full buffer */
    uint64_t peakBytes = 0; /* the most an ingress buffer held */
    uint64_t xoffMin = 0;  /* the lowest XOFF, XON and headroom in use */
    uint64_t xonMin = 0;
    uint64_t headroomMax = 0;
};

class SfabPfcPort : public Object
{
  public:
    static TypeId GetTypeId();
    SfabPfcPort();

    /* 64-byte blocks the owner's input buffer of (port, priority) holds */
    typedef Callback<uint32_t, uint32_t, uint32_t> OccupancyFn;
    /* the priorities held on (port) changed to (mask) */
    typedef Callback<void, uint32_t, uint32_t> HoldFn;

    /*
     * @occ null: the owner takes every frame at once (an HCA), it never
     * pauses or drops
     */
    void Setup(const SfabPfcConfig& c,
               Ptr<SfabNetDevice> dev,
               uint64_t rateMbps,
               OccupancyFn occ,
               HoldFn hold);

    enum Verdict
    {
        kPass,  /* the owner's */
        kTaken, /* a PFC frame, acted on */
        kDrop,  /* data that does not fit the buffer: the owner drops it */
    };

    /* a frame whose first bit arrived now */
    Verdict Receive(const uint8_t* frame, uint32_t len);
    /* after the owner's work of this instant: XOFF and XON */
    void Update();
    /* the owner sent a data frame of @len bytes, its first bit at @startNs */
    void Sent(uint64_t startNs, uint32_t len);
    /* the priorities the peer holds us on (bit p) */
    uint32_t GetHeld() const;
    void AddStats(SfabPfcStats& st) const;

    static uint64_t Headroom(const SfabPfcConfig& c, uint64_t rateMbps);
    static bool IsPfcFrame(const uint8_t* frame, uint32_t len);

  protected:
    void DoDispose() override;

  private:
    static const uint32_t kPrio = 8;

    void Send(uint32_t prio, uint16_t quanta);
    void Refresh(uint32_t prio);
    void Apply(uint32_t prio, uint16_t quanta);
    void Expire(uint32_t prio);
    void SetHeld(uint32_t prio, bool held);
    uint64_t QuantaNs(uint32_t quanta) const;

    SfabPfcConfig m_cfg;
    Ptr<SfabNetDevice> m_dev;
    uint64_t m_rateMbps;
    uint64_t m_xoff;
    uint64_t m_xon;
    uint64_t m_headroom;
    OccupancyFn m_occ;
    HoldFn m_hold;
    uint64_t m_lastStart; /* the owner's last data frame on the wire */
    uint64_t m_lastEnd;
    /* ingress: the peer paused on this priority */
    bool m_xoffSent[kPrio];
    EventId m_refresh[kPrio];
    /* egress */
    uint32_t m_held;
    uint64_t m_heldSince[kPrio];
    EventId m_expire[kPrio];
    /* counters */
    uint64_t m_pauseTx, m_xonTx, m_pfcRx, m_heldNs, m_drops, m_peak;
};

/*
 * The baseline on every cable end of @f, before BringUp: switch ports and
 * HCAs hand their frames to it, switch egress and HCA transmitters obey it
 */
void SfabPfcInstall(SfabFabric& f, const SfabPfcConfig& c);
SfabPfcStats SfabPfcGetStats();

} // namespace ns3

#endif /* SFAB_PFC_H */
