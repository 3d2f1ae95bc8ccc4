/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sfab-pfc.h"

#include "sfab-fabric.h"

#include "../core/sfab_sim.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <map>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SfabPfcPort);

/* a MAC control frame: 64 bytes, and preamble, SFD and gap on the wire */
static const uint32_t kPfcLen = 64;
static const uint32_t kPfcWire = kPfcLen + 20;
static const uint8_t kPfcDst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

/* every end the baseline runs on, for the run's figures */
static std::vector<Ptr<SfabPfcPort>> g_ports;

TypeId
SfabPfcPort::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SfabPfcPort")
                            .SetParent<Object>()
                            .SetGroupName("Sfab")
                            .AddConstructor<SfabPfcPort>();
    return tid;
}

SfabPfcPort::SfabPfcPort()
    : m_rateMbps(0),
      m_xoff(0),
      m_xon(0),
      m_headroom(0),
      m_lastStart(0),
      m_lastEnd(0),
      m_held(0),
      m_pauseTx(0),
      m_xonTx(0),
      m_pfcRx(0),
      m_heldNs(0),
      m_drops(0),
      m_peak(0)
{
    for (uint32_t p = 0; p < kPrio; p++)
    {
        m_xoffSent[p] = false;
        m_heldSince[p] = 0;
    }
}

void
SfabPfcPort::DoDispose()
{
    for (uint32_t p = 0; p < kPrio; p++)
    {
        m_refresh[p].Cancel();
        m_expire[p].Cancel();
    }
    m_dev = nullptr;
    m_occ = OccupancyFn();
    m_hold = HoldFn();
    Object::DoDispose();
}

uint64_t
SfabPfcPort::Headroom(const SfabPfcConfig& c, uint64_t rateMbps)
{
    /*
     * the frame that crosses XOFF (counted whole at its first bit, it may
     * end a frame past it); then the frame on the wire on the way back, the
     * PFC frame, the cable to the sender, its response, the cable back;
     * then the last frame it started and the one its core handed out to
     * start later, each counted whole at its first bit
     */
    uint64_t ns = sfab_sim_ser_ns(rateMbps, SFAB_SIM_MAX_FRAME) +
                  sfab_sim_ser_ns(rateMbps, kPfcWire) + 2 * c.propNs + c.responseNs;

    return (ns * rateMbps + 7999) / 8000 + 3 * sfab_sim_blocks(SFAB_SIM_MAX_FRAME) * 64;
}

bool
SfabPfcPort::IsPfcFrame(const uint8_t* frame, uint32_t len)
{
    return len == kPfcLen && std::equal(kPfcDst, kPfcDst + 6, frame) &&
           frame[12] == 0x88 && frame[13] == 0x08 && frame[14] == 0x01 && frame[15] == 0x01;
}

void
SfabPfcPort::Setup(const SfabPfcConfig& c,
                   Ptr<SfabNetDevice> dev,
                   uint64_t rateMbps,
                   OccupancyFn occ,
                   HoldFn hold)
{
    uint64_t frame2 = 2 * sfab_sim_blocks(SFAB_SIM_MAX_FRAME) * 64;

    m_cfg = c;
    m_cfg.priorities = std::min(std::max(c.priorities, 1U), kPrio);
    m_dev = dev;
    m_rateMbps = rateMbps;
    m_occ = occ;
    m_hold = hold;
    m_headroom = Headroom(c, rateMbps);
    m_xoff = c.xoffBytes >= 0                   ? (uint64_t)c.xoffBytes
             : c.bufferBytes > m_headroom       ? c.bufferBytes - m_headroom
                                                : 0;
    m_xon = c.xonBytes >= 0 ? (uint64_t)c.xonBytes : m_xoff > frame2 ? m_xoff - frame2 : 0;
}

uint64_t
SfabPfcPort::QuantaNs(uint32_t quanta) const
{
    return ((uint64_t)quanta * 512 * 1000 + m_rateMbps - 1) / m_rateMbps;
}

/* a PFC frame for @prio: @quanta, 0 for XON */
void
SfabPfcPort::Send(uint32_t prio, uint16_t quanta)
{
    uint8_t f[kPfcLen] = {};
    uint64_t now = Simulator::Now().GetNanoSeconds();
    /* after the frame on the wire, ahead of one not started yet */
    uint64_t at = m_lastStart <= now && now < m_lastEnd ? m_lastEnd : now;

    std::copy(kPfcDst, kPfcDst + 6, f);
    m_dev->GetAddress().CopyTo(f + 6);
    f[12] = 0x88; /* MAC control */
    f[13] = 0x08;
    f[14] = 0x01; /* PFC */
    f[15] = 0x01;
    f[17] = 1 << prio; /* class-enable vector */
    f[18 + 2 * prio] = quanta >> 8;
    f[19 + 2 * prio] = quanta & 0xff;
    /* the FCS (bytes 60..63) is not computed: the cable does not corrupt */
    m_dev->Transmit(ns3::Create<Packet>(f, sizeof(f)), NanoSeconds(at));
    if (quanta)
    {
        m_pauseTx++;
    }
    else
    {
        m_xonTx++;
    }
}

void
SfabPfcPort::Sent(uint64_t startNs, uint32_t len)
{
    m_lastStart = startNs;
    m_lastEnd = startNs + sfab_sim_ser_ns(m_rateMbps, len);
}

SfabPfcPort::Verdict
SfabPfcPort::Receive(const uint8_t* frame, uint32_t len)
{
    if (IsPfcFrame(frame, len))
    {
        uint32_t vec = frame[17];

        m_pfcRx++;
        for (uint32_t p = 0; p < kPrio; p++)
        {
            if (vec >> p & 1)
            {
                uint16_t q = (uint16_t)(frame[18 + 2 * p] << 8 | frame[19 + 2 * p]);

                Simulator::Schedule(NanoSeconds(m_cfg.responseNs), &SfabPfcPort::Apply, this, p,
                                    q);
            }
        }
        return kTaken;
    }
    if (m_occ.IsNull() || len <= SFAB_SIM_FC_LEN)
    {
        return kPass;
    }
    uint32_t vl = frame[0] >> 4;
    if (vl >= kPrio)
    {
        return kPass; /* VL15: management, never flow controlled */
    }
    uint64_t after = ((uint64_t)m_occ(m_dev->GetPort(), vl) + sfab_sim_blocks(len)) * 64;
    if (after > m_cfg.bufferBytes)
    {
        m_drops++;
        return kDrop;
    }
    m_peak = std::max(m_peak, after);
    return kPass;
}

void
SfabPfcPort::Update()
{
    if (m_occ.IsNull() || !m_cfg.pause)
    {
        return;
    }
    for (uint32_t p = 0; p < m_cfg.priorities; p++)
    {
        uint64_t occ = (uint64_t)m_occ(m_dev->GetPort(), p) * 64;

        if (!m_xoffSent[p] && occ >= m_xoff)
        {
            m_xoffSent[p] = true;
            Send(p, m_cfg.quanta);
            m_refresh[p].Cancel();
            m_refresh[p] = Simulator::Schedule(NanoSeconds(QuantaNs(m_cfg.quanta) / 2 + 1),
                                               &SfabPfcPort::Refresh, this, p);
        }
        else if (m_xoffSent[p] && occ <= m_xon)
        {
            m_xoffSent[p] = false;
            m_refresh[p].Cancel();
            Send(p, 0);
        }
    }
}

/* still above XON half the pause time later: pause again */
void
SfabPfcPort::Refresh(uint32_t prio)
{
    if (!m_xoffSent[prio])
    {
        return;
    }
    Send(prio, m_cfg.quanta);
    m_refresh[prio] = Simulator::Schedule(NanoSeconds(QuantaNs(m_cfg.quanta) / 2 + 1),
                                          &SfabPfcPort::Refresh, this, prio);
}

/* the response delay after a PFC frame came in */
void
SfabPfcPort::Apply(uint32_t prio, uint16_t quanta)
{
    m_expire[prio].Cancel();
    if (!quanta)
    {
        SetHeld(prio, false);
        return;
    }
    SetHeld(prio, true);
    m_expire[prio] =
        Simulator::Schedule(NanoSeconds(QuantaNs(quanta)), &SfabPfcPort::Expire, this, prio);
}

void
SfabPfcPort::Expire(uint32_t prio)
{
    SetHeld(prio, false);
}

void
SfabPfcPort::SetHeld(uint32_t prio, bool held)
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint32_t mask = held ? m_held | 1U << prio : m_held & ~(1U << prio);

    if (mask == m_held)
    {
        return;
    }
    if (held)
    {
        m_heldSince[prio] = now;
    }
    else
    {
        m_heldNs += now - m_heldSince[prio];
    }
    m_held = mask;
    if (!m_hold.IsNull())
    {
        m_hold(m_dev->GetPort(), m_held);
    }
}

uint32_t
SfabPfcPort::GetHeld() const
{
    return m_held;
}

void
SfabPfcPort::AddStats(SfabPfcStats& st) const
{
    uint64_t now = Simulator::Now().GetNanoSeconds();

    st.pauseTx += m_pauseTx;
    st.xonTx += m_xonTx;
    st.pfcRx += m_pfcRx;
    st.heldNs += m_heldNs;
    for (uint32_t p = 0; p < kPrio; p++)
    {
        if (m_held >> p & 1)
        {
            st.heldNs += now - m_heldSince[p];
        }
    }
    st.drops += m_drops;
    st.peakBytes = std::max(st.peakBytes, m_peak);
    if (!m_occ.IsNull())
    {
        st.xoffMin = st.xoffMin ? std::min(st.xoffMin, m_xoff) : m_xoff;
        st.xonMin = st.xonMin ? std::min(st.xonMin, m_xon) : m_xon;
        st.headroomMax = std::max(st.headroomMax, m_headroom);
    }
}

void
SfabPfcInstall(SfabFabric& f, const SfabPfcConfig& c)
{
    std::map<SfabNetDevice*, Ptr<SfabHca>> hcaOf;

    for (uint32_t h = 0; h < f.GetNHcas(); h++)
    {
        hcaOf[PeekPointer(f.GetHca(h)->GetPortDevice())] = f.GetHca(h);
    }
    for (uint32_t s = 0; s < f.GetNSwitches(); s++)
    {
        Ptr<SfabSwitch> sw = f.GetSwitch(s);

        for (uint32_t p = 1; p <= sw->GetNPorts(); p++)
        {
            Ptr<SfabNetDevice> dev = sw->GetPortDevice(p);
            Ptr<Channel> ch = dev->GetChannel();
            uint64_t rate = sw->GetRateMbps();

            if (!ch)
            {
                continue;
            }
            for (std::size_t i = 0; i < ch->GetNDevices(); i++)
            {
                auto it = hcaOf.find(PeekPointer(DynamicCast<SfabNetDevice>(ch->GetDevice(i))));

                if (it != hcaOf.end())
                {
                    rate = std::min(rate, it->second->GetRateMbps());
                }
            }
            Ptr<SfabPfcPort> pp = CreateObject<SfabPfcPort>();
            pp->Setup(c,
                      dev,
                      rate,
                      MakeCallback(&SfabSwitch::PfcOccupancy, PeekPointer(sw)),
                      MakeCallback(&SfabSwitch::PfcHold, PeekPointer(sw)));
            sw->SetPfc(p, pp);
            g_ports.push_back(pp);
        }
    }
    for (uint32_t h = 0; h < f.GetNHcas(); h++)
    {
        Ptr<SfabHca> hca = f.GetHca(h);
        Ptr<SfabPfcPort> pp = CreateObject<SfabPfcPort>();
        uint64_t rate = hca->GetRateMbps();

        if (f.HcaPeer(h).sw >= 0)
        {
            rate = std::min(rate, f.GetSwitch(f.HcaPeer(h).sw)->GetRateMbps());
        }
        pp->Setup(c,
                  hca->GetPortDevice(),
                  rate,
                  SfabPfcPort::OccupancyFn(),
                  MakeCallback(&SfabHca::PfcHold, PeekPointer(hca)));
        hca->SetPfc(pp);
        g_ports.push_back(pp);
    }
}

SfabPfcStats
SfabPfcGetStats()
{
    SfabPfcStats st;

    for (const auto& p : g_ports)
    {
        p->AddStats(st);
    }
    return st;
}

} // namespace ns3
