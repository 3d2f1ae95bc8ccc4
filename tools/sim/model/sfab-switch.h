/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SfabSwitch: the live switch's core (qemu-model/switch/sfab_sw.c) on an
 * ns-3 node, one SfabNetDevice per external port.
 *
 * The simulator's clock is the core's: a frame is handed to the core when
 * its first bit arrives, the core runs (forwarding, VL arbitration, credit,
 * flow-control packets) in the same instant, and it runs again at its own
 * deadline (a busy transmitter freeing, a credit refresh).  The core runs
 * paced: a port starts its next packet when the previous one has left,
 * the hop latency after the packet's first bit came in (cut-through).
 *
 * An instant's work is done in one order whatever order the scheduler
 * ran its events in: the frames of the instant are kept as they come,
 * and one run at the end of the instant hands them to the core in port
 * order (a port's frames in the order they were put on the cable), then
 * lets the core run.  So a run split over MPI ranks, where a frame from
 * another rank is scheduled at another point than in a single process,
 * gives the same results (Documentation/sfab/simulation.rst).
 */
#ifndef SFAB_SWITCH_H
#define SFAB_SWITCH_H

#include "sfab-net-device.h"
#include "sfab-pfc.h"

#include "ns3/event-id.h"
#include "ns3/node.h"
#include "ns3/object.h"

#include <string>
#include <tuple>
#include <vector>

struct sfab_sim_sw;
struct sfab_sim_port_stats;
struct sfab_sim_fo_stats;

namespace ns3
{

class SfabSwitch : public Object
{
  public:
    static TypeId GetTypeId();
    SfabSwitch();
    ~SfabSwitch() override;

    /* @nports external ports on @node, the core configured from attributes */
    /* @lftCap: LFT entries (0: IBA's 0xc000; more: extended LIDs) */
    void Create(Ptr<Node> node, uint32_t nports, uint32_t lftCap = 0);
    Ptr<SfabNetDevice> GetPortDevice(uint32_t port) const;
    uint32_t GetNPorts() const;
    /* the cable on @port is in: the link trains */
    void Connect(uint32_t port);
    void Disconnect(uint32_t port);
    void SetRoute(uint32_t lid, uint32_t port);
    /* the LFT's port for @lid (255: none) */
    uint32_t GetRoute(uint32_t lid) const;
    /* SL-to-VL from port @in to port @out: every SL to @vl */
    void SetSl2Vl(uint32_t in, uint32_t out, uint32_t vl);
    /* what the core allocated for its tables and ports, bytes */
    uint64_t GetCoreBytes() const;
    /* the link on @port runs at @mbps (its slower end's rate) */
    void SetPortRate(uint32_t port, uint64_t mbps);
    uint64_t GetRateMbps() const;
    /* the SM's part: every trained port Active; how many are */
    uint32_t Activate();
    bool IsPortActive(uint32_t port) const;
    bool IsPortUp(uint32_t port) const;
    void GetPortStats(uint32_t port, struct sfab_sim_port_stats* st) const;
    /* capture @port to the pcap file @path (the live switch's capture); errno */
    int Capture(uint32_t port, const std::string& path);
    /* fast failover: @port in the up-port group, switch-facing */
    void SetFailoverPort(uint32_t port, bool up, bool peer);
    void SetAltRoute(uint32_t lid, uint32_t port);
    /* the port @lid goes out of now (the LFT's, or an alternate) */
    uint32_t GetRoutePort(uint32_t lid) const;
    void GetFailoverStats(struct sfab_sim_fo_stats* st) const;
    uint32_t GetQueued() const;
    /* the PFC baseline (sfab-pfc.h) on @port, and what it asks of the core */
    void SetPfc(uint32_t port, Ptr<SfabPfcPort> pfc);
    uint32_t PfcOccupancy(uint32_t port, uint32_t vl);
    void PfcHold(uint32_t port, uint32_t mask);

  protected:
    void DoDispose() override;

  private:
    static void XmitThunk(void* opaque,
                          unsigned int port,
                          const uint8_t* frame,
                          size_t len,
                          uint64_t start_ns);
    void Rx(Ptr<SfabNetDevice> dev, Ptr<const Packet> p);
    void RunSoon();
    void Run();
    void ArmDeadline();

    struct sfab_sim_sw* m_sw;
    Ptr<Node> m_node;
    std::vector<Ptr<SfabNetDevice>> m_ports; /* [0] unused */
    /* the instant's frames: (port, their place on the cable, frame) */
    std::vector<std::tuple<uint32_t, uint64_t, Ptr<const Packet>>> m_in;
    EventId m_run;
    EventId m_timer;
    uint64_t m_timerAt;
    std::vector<Ptr<SfabPfcPort>> m_pfc; /* [port]; empty: credit only */
    /* attributes */
    uint32_t m_vls;
    uint32_t m_vlBlocks;
    uint64_t m_rateMbps;
    Time m_hop;
    Time m_fcPeriod;
};

} // namespace ns3

#endif /* SFAB_SWITCH_H */
