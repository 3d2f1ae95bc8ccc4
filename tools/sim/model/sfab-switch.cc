/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sfab-switch.h"

#include "../core/sfab_sim.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SfabSwitch");
NS_OBJECT_ENSURE_REGISTERED(SfabSwitch);

TypeId
SfabSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SfabSwitch")
            .SetParent<Object>()
            .SetGroupName("Sfab")
            .AddConstructor<SfabSwitch>()
            .AddAttribute("DataVls",
                          "Data VLs per port (1..8)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&SfabSwitch::m_vls),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("VlBlocks",
                          "Input buffer per port and data VL, 64-byte blocks",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&SfabSwitch::m_vlBlocks),
                          MakeUintegerChecker<uint32_t>(68, 1U << 20))
            .AddAttribute("RateMbps",
                          "Port rate (800000: 800 Gb/s)",
                          UintegerValue(800000),
                          MakeUintegerAccessor(&SfabSwitch::m_rateMbps),
                          MakeUintegerChecker<uint64_t>(1000))
            .AddAttribute("HopLatency",
                          "First bit in to first bit out, uncontended (cut-through)",
                          TimeValue(NanoSeconds(260)),
                          MakeTimeAccessor(&SfabSwitch::m_hop),
                          MakeTimeChecker())
            .AddAttribute("FcPeriod",
                          "Periodic flow-control refresh",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&SfabSwitch::m_fcPeriod),
                          MakeTimeChecker());
    return tid;
}

SfabSwitch::SfabSwitch()
    : m_sw(nullptr),
      m_timerAt(SFAB_SIM_NO_TIME),
      m_vls(1),
      m_vlBlocks(2048),
      m_rateMbps(800000),
      m_hop(NanoSeconds(260)),
      m_fcPeriod(MicroSeconds(100))
{
}

SfabSwitch::~SfabSwitch()
{
    sfab_sim_sw_free(m_sw);
}

void
SfabSwitch::DoDispose()
{
    m_run.Cancel();
    m_timer.Cancel();
    m_in.clear();
    m_ports.clear();
    m_pfc.clear();
    m_node = nullptr;
    Object::DoDispose();
}

void
SfabSwitch::Create(Ptr<Node> node, uint32_t nports, uint32_t lftCap)
{
    struct sfab_sim_sw_cfg cfg = {};

    NS_ABORT_MSG_IF(m_sw, "SfabSwitch::Create twice");
    NS_ABORT_MSG_IF(!nports || nports > SFAB_SIM_MAX_PORTS, "ports: 1.." << SFAB_SIM_MAX_PORTS);
    cfg.nports = nports;
    cfg.num_data_vls = m_vls;
    cfg.vl_blocks = m_vlBlocks;
    cfg.rate_mbps = m_rateMbps;
    cfg.hop_ns = m_hop.GetNanoSeconds();
    cfg.fc_period_ns = m_fcPeriod.GetNanoSeconds();
    cfg.guid = 0x5346ab0000000000ULL | node->GetId();
    cfg.lft_cap = lftCap;
    m_sw = sfab_sim_sw_new(&cfg, &SfabSwitch::XmitThunk, this);
    NS_ABORT_MSG_IF(!m_sw, "sfab switch core: bad configuration");
    m_node = node;
    m_ports.resize(nports + 1);
    for (uint32_t p = 1; p <= nports; p++)
    {
        Ptr<SfabNetDevice> dev = CreateObject<SfabNetDevice>();

        dev->SetPort(p);
        dev->SetRxCallback(MakeCallback(&SfabSwitch::Rx, this));
        node->AddDevice(dev);
        m_ports[p] = dev;
    }
}

Ptr<SfabNetDevice>
SfabSwitch::GetPortDevice(uint32_t port) const
{
    return port && port < m_ports.size() ? m_ports[port] : nullptr;
}

uint32_t
SfabSwitch::GetNPorts() const
{
    return m_ports.empty() ? 0 : m_ports.size() - 1;
}

void
SfabSwitch::Connect(uint32_t port)
{
    sfab_sim_sw_connect(m_sw, Simulator::Now().GetNanoSeconds(), port);
    RunSoon();
}

void
SfabSwitch::Disconnect(uint32_t port)
{
    sfab_sim_sw_disconnect(m_sw, Simulator::Now().GetNanoSeconds(), port);
    RunSoon();
}

void
SfabSwitch::SetRoute(uint32_t lid, uint32_t port)
{
    NS_ABORT_MSG_IF(sfab_sim_sw_lft_set(m_sw, lid, port), "LFT: LID " << lid << " port " << port);
}

uint32_t
SfabSwitch::GetRoute(uint32_t lid) const
{
    return sfab_sim_sw_lft_get(m_sw, lid);
}

void
SfabSwitch::SetSl2Vl(uint32_t in, uint32_t out, uint32_t vl)
{
    NS_ABORT_MSG_IF(sfab_sim_sw_sl2vl_set(m_sw, in, out, vl),
                    "SL2VL: port " << in << " to " << out << " VL " << vl);
}

uint64_t
SfabSwitch::GetCoreBytes() const
{
    return sfab_sim_sw_core_bytes(m_sw);
}

void
SfabSwitch::SetPortRate(uint32_t port, uint64_t mbps)
{
    NS_ABORT_MSG_IF(sfab_sim_sw_port_rate(m_sw, port, mbps), "no port " << port);
}

uint64_t
SfabSwitch::GetRateMbps() const
{
    return m_rateMbps;
}

uint32_t
SfabSwitch::Activate()
{
    return sfab_sim_sw_activate(m_sw);
}

bool
SfabSwitch::IsPortActive(uint32_t port) const
{
    return sfab_sim_sw_port_active(m_sw, port);
}

bool
SfabSwitch::IsPortUp(uint32_t port) const
{
    return sfab_sim_sw_port_up(m_sw, port);
}

void
SfabSwitch::GetPortStats(uint32_t port, struct sfab_sim_port_stats* st) const
{
    sfab_sim_sw_port_stats(m_sw, port, st);
}

int
SfabSwitch::Capture(uint32_t port, const std::string& path)
{
    return -sfab_sim_sw_pcap(m_sw, port, path.c_str());
}

void
SfabSwitch::SetFailoverPort(uint32_t port, bool up, bool peer)
{
    NS_ABORT_MSG_IF(sfab_sim_sw_fo_group(m_sw, port, up, peer), "failover: no port " << port);
}

void
SfabSwitch::SetAltRoute(uint32_t lid, uint32_t port)
{
    NS_ABORT_MSG_IF(sfab_sim_sw_alt_set(m_sw, lid, port),
                    "backup LFT: LID " << lid << " port " << port);
}

uint32_t
SfabSwitch::GetRoutePort(uint32_t lid) const
{
    return sfab_sim_sw_route_port(m_sw, lid);
}

void
SfabSwitch::GetFailoverStats(struct sfab_sim_fo_stats* st) const
{
    sfab_sim_sw_fo_stats(m_sw, st);
}

uint32_t
SfabSwitch::GetQueued() const
{
    return sfab_sim_sw_queued(m_sw);
}

void
SfabSwitch::SetPfc(uint32_t port, Ptr<SfabPfcPort> pfc)
{
    m_pfc.resize(m_ports.size());
    m_pfc.at(port) = pfc;
}

uint32_t
SfabSwitch::PfcOccupancy(uint32_t port, uint32_t vl)
{
    return sfab_sim_sw_vl_used(m_sw, port, vl);
}

void
SfabSwitch::PfcHold(uint32_t port, uint32_t mask)
{
    sfab_sim_sw_hold(m_sw, port, mask);
    RunSoon();
}

void
SfabSwitch::XmitThunk(void* opaque,
                      unsigned int port,
                      const uint8_t* frame,
                      size_t len,
                      uint64_t start_ns)
{
    SfabSwitch* self = static_cast<SfabSwitch*>(opaque);
    Ptr<SfabNetDevice> dev = self->GetPortDevice(port);

    if (dev)
    {
        dev->Transmit(ns3::Create<Packet>(frame, len), NanoSeconds(start_ns));
    }
    if (len > SFAB_SIM_FC_LEN && port < self->m_pfc.size() && self->m_pfc[port])
    {
        self->m_pfc[port]->Sent(start_ns, len);
    }
}

void
SfabSwitch::Rx(Ptr<SfabNetDevice> dev, Ptr<const Packet> p)
{
    m_in.emplace_back(dev->GetPort(), dev->GetRxSeq(), p);
    RunSoon();
}

/*
 * once per instant, after every frame of the instant came in: every
 * frame due now was scheduled before the instant began (a cable's delay
 * is more than 0, and more than an MPI run's lookahead), so an event
 * scheduled now runs after all of them
 */
void
SfabSwitch::RunSoon()
{
    if (!m_run.IsRunning())
    {
        m_run = Simulator::ScheduleNow(&SfabSwitch::Run, this);
    }
}

void
SfabSwitch::Run()
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint8_t frame[SFAB_SIM_MAX_FRAME + 64];

    std::stable_sort(m_in.begin(), m_in.end(), [](const auto& a, const auto& b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                                : std::get<1>(a) < std::get<1>(b);
    });
    for (const auto& in : m_in)
    {
        const Ptr<const Packet>& p = std::get<2>(in);
        uint32_t port = std::get<0>(in);
        uint32_t len = p->GetSize();

        if (len > sizeof(frame))
        {
            len = sizeof(frame); /* the core refuses it as too long */
        }
        p->CopyData(frame, len);
        if (!m_pfc.empty() && m_pfc[port])
        {
            SfabPfcPort::Verdict r = m_pfc[port]->Receive(frame, len);

            if (r == SfabPfcPort::kTaken)
            {
                continue;
            }
            if (r == SfabPfcPort::kDrop)
            {
                sfab_sim_sw_rx_drop(m_sw, now, port, frame, len);
                continue;
            }
        }
        sfab_sim_sw_rx(m_sw, now, port, frame, len);
    }
    m_in.clear();
    sfab_sim_sw_run(m_sw, now);
    for (const auto& pfc : m_pfc)
    {
        if (pfc)
        {
            pfc->Update();
        }
    }
    ArmDeadline();
}

void
SfabSwitch::ArmDeadline()
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t d = sfab_sim_sw_deadline(m_sw);

    if (d == SFAB_SIM_NO_TIME)
    {
        return;
    }
    if (d <= now)
    {
        d = now + 1;
    }
    if (m_timer.IsRunning() && m_timerAt <= d)
    {
        return;
    }
    m_timer.Cancel();
    m_timerAt = d;
    m_timer = Simulator::Schedule(NanoSeconds(d - now), &SfabSwitch::RunSoon, this);
}

} // namespace ns3

