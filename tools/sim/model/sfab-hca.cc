/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sfab-hca.h"

#include "../core/sfab_sim.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SfabHca");
NS_OBJECT_ENSURE_REGISTERED(SfabHca);

/* the smallest payload that carries the transport's message header */
static const uint32_t kMsgHdr = 16;
static const uint32_t kPsnMask = 0xffffff;
static const uint32_t kQpn = 0x11;

SfabStats&
SfabStats::Get()
{
    static SfabStats s;
    return s;
}

void
SfabStats::Reset()
{
    *this = SfabStats();
}

TypeId
SfabHca::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SfabHca")
            .SetParent<Object>()
            .SetGroupName("Sfab")
            .AddConstructor<SfabHca>()
            .AddAttribute("RateMbps",
                          "Port rate (400000: 400 Gb/s)",
                          UintegerValue(400000),
                          MakeUintegerAccessor(&SfabHca::m_rateMbps),
                          MakeUintegerChecker<uint64_t>(1000))
            .AddAttribute("TxProcessing",
                          "A message posted to its first bit on the wire",
                          TimeValue(NanoSeconds(50)),
                          MakeTimeAccessor(&SfabHca::m_txProc),
                          MakeTimeChecker())
            .AddAttribute("RxProcessing",
                          "A message's last bit in to its completion",
                          TimeValue(NanoSeconds(50)),
                          MakeTimeAccessor(&SfabHca::m_rxProc),
                          MakeTimeChecker())
            .AddAttribute("Mtu",
                          "Path MTU: 256, 512, 1024, 2048 or 4096",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SfabHca::m_mtu),
                          MakeUintegerChecker<uint32_t>(256, 4096))
            .AddAttribute("Window",
                          "RC packets unacknowledged at most, per connection",
                          UintegerValue(128),
                          MakeUintegerAccessor(&SfabHca::m_window),
                          MakeUintegerChecker<uint32_t>(1, 8388608))
            .AddAttribute("AckEvery",
                          "An ACK asked for every this many packets",
                          UintegerValue(16),
                          MakeUintegerAccessor(&SfabHca::m_ackEvery),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("VlBlocks",
                          "Receive buffer per data VL, 64-byte blocks",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&SfabHca::m_vlBlocks),
                          MakeUintegerChecker<uint32_t>(68, 1U << 20))
            .AddAttribute("FcPeriod",
                          "Periodic flow-control refresh",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&SfabHca::m_fcPeriod),
                          MakeTimeChecker())
            .AddAttribute("RxDrainMbps",
                          "The receive side takes frames off the port at this rate, "
                          "their credit held until then (0: at once, as they arrive)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SfabHca::m_rxDrainMbps),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("AckPsnAligned",
                          "Ask for an ACK on every PSN that is AckEvery - 1 modulo "
                          "AckEvery (the live HCA engine's rule), not every AckEvery "
                          "packets since the last one asked",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SfabHca::m_ackPsnAligned),
                          MakeBooleanChecker());
    return tid;
}

SfabHca::SfabHca()
    : m_link(nullptr),
      m_lid(0),
      m_nextMsg(1),
      m_txBusyNs(0),
      m_waitSince(0),
      m_txWaitNs(0),
      m_fcAt(SFAB_SIM_NO_TIME),
      m_rxDrainAt(0),
      m_rateMbps(400000),
      m_txProc(NanoSeconds(50)),
      m_rxProc(NanoSeconds(50)),
      m_mtu(4096),
      m_window(128),
      m_ackEvery(16),
      m_vlBlocks(2048),
      m_fcPeriod(MicroSeconds(100)),
      m_rxDrainMbps(0),
      m_ackPsnAligned(false)
{
}

SfabHca::~SfabHca()
{
    sfab_sim_link_free(m_link);
}

void
SfabHca::DoDispose()
{
    m_proc.Cancel();
    m_send.Cancel();
    m_fc.Cancel();
    m_in.clear();
    m_dev = nullptr;
    m_pfc = nullptr;
    m_node = nullptr;
    Object::DoDispose();
}

void
SfabHca::Create(Ptr<Node> node, uint32_t lid)
{
    NS_ABORT_MSG_IF(m_link, "SfabHca::Create twice");
    NS_ABORT_MSG_IF(m_mtu & (m_mtu - 1), "MTU " << m_mtu << " is not a power of two");
    m_link = sfab_sim_link_new(1, m_vlBlocks, m_fcPeriod.GetNanoSeconds());
    NS_ABORT_MSG_IF(!m_link, "sfab link: bad configuration");
    m_node = node;
    m_lid = lid;
    m_dev = CreateObject<SfabNetDevice>();
    m_dev->SetPort(1);
    m_dev->SetRxCallback(MakeCallback(&SfabHca::Rx, this));
    node->AddDevice(m_dev);
}

Ptr<SfabNetDevice>
SfabHca::GetPortDevice() const
{
    return m_dev;
}

uint32_t
SfabHca::GetLid() const
{
    return m_lid;
}

void
SfabHca::Connect()
{
    sfab_sim_link_phys_up(m_link, Simulator::Now().GetNanoSeconds());
    FlushFc();
}

bool
SfabHca::Activate()
{
    bool up = sfab_sim_link_activate(m_link);

    Soon(); /* what was posted before */
    return up;
}

bool
SfabHca::IsActive() const
{
    return sfab_sim_link_active(m_link);
}

bool
SfabHca::IsUp() const
{
    return sfab_sim_link_up(m_link);
}

uint64_t
SfabHca::GetRcvErrors() const
{
    return sfab_sim_link_rcv_errors(m_link);
}

uint64_t
SfabHca::GetTxWaitNs() const
{
    return m_txWaitNs;
}

uint64_t
SfabHca::GetRateMbps() const
{
    return m_rateMbps;
}

uint32_t
SfabHca::GetPending() const
{
    uint32_t n = 0;

    for (const auto& kv : m_flows)
    {
        n += kv.second.msgs.size() + kv.second.inflight.size();
    }
    return n;
}

void
SfabHca::SetPfc(Ptr<SfabPfcPort> pfc)
{
    m_pfc = pfc;
}

void
SfabHca::PfcHold(uint32_t port, uint32_t mask)
{
    Soon();
}

uint64_t
SfabHca::SerNs(size_t len) const
{
    return sfab_sim_ser_ns(m_rateMbps, len);
}

void
SfabHca::SetFirstPsn(uint32_t lid, uint32_t psn)
{
    Flow& f = m_flows[lid];

    NS_ABORT_MSG_IF(f.dlid, "SfabHca::SetFirstPsn on a connection in use");
    f.dlid = lid;
    f.nextPsn = f.unaPsn = psn & kPsnMask;
    f.sinceAck = 0;
    f.ready = false;
}

void
SfabHca::SetPeerFirstPsn(uint32_t lid, uint32_t psn)
{
    m_peers[lid].expPsn = psn & kPsnMask;
}

void
SfabHca::Send(uint32_t dlid, uint32_t bytes, bool ud)
{
    Msg m;
    Flow& f = m_flows[dlid];

    if (!f.dlid)
    {
        f.dlid = dlid;
        f.nextPsn = f.unaPsn = f.sinceAck = 0;
        f.ready = false;
    }
    m.id = m_nextMsg++;
    m.bytes = bytes < kMsgHdr ? kMsgHdr : bytes;
    if (ud && m.bytes > m_mtu)
    {
        m.bytes = m_mtu;
    }
    m.sent = 0;
    m.endPsn = 0;
    m.postedNs = Simulator::Now().GetNanoSeconds();
    m.ud = ud;
    f.msgs.push_back(m);
    if (!f.ready)
    {
        f.ready = true;
        m_ready.push_back(dlid);
    }
    Soon();
}

/* --- out ------------------------------------------------------------------ */

void
SfabHca::Put(const uint8_t* frame, size_t len)
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t start = m_txBusyNs > now ? m_txBusyNs : now;

    sfab_sim_link_tx_sent(m_link, 0, frame, len);
    m_dev->Transmit(ns3::Create<Packet>(frame, len), NanoSeconds(start));
    m_txBusyNs = start + SerNs(len);
}

bool
SfabHca::SendAck()
{
    uint8_t frame[SFAB_SIM_MAX_FRAME];
    struct sfab_sim_pkt p = {};
    size_t len;

    if (m_acks.empty())
    {
        return false;
    }
    p.kind = SFAB_SIM_RC_ACK;
    p.dlid = m_acks.front().first;
    p.slid = m_lid;
    p.dqpn = kQpn;
    p.psn = m_acks.front().second;
    len = sfab_sim_pkt_build(frame, &p);
    if (!sfab_sim_link_tx_ok(m_link, 0, len))
    {
        return false;
    }
    m_acks.pop_front();
    SfabStats::Get().txAcks++;
    Put(frame, len);
    return true;
}

SfabHca::SendResult
SfabHca::SendFromFlow(Flow& f)
{
    uint8_t frame[SFAB_SIM_MAX_FRAME];
    struct sfab_sim_pkt p = {};
    uint64_t now = Simulator::Now().GetNanoSeconds();
    size_t len;

    if (f.msgs.empty())
    {
        return kWait;
    }
    Msg& m = f.msgs.front();
    if (m.postedNs + m_txProc.GetNanoSeconds() > now)
    {
        return kWait;
    }
    if (!m.ud && ((f.nextPsn - f.unaPsn) & kPsnMask) >= m_window)
    {
        return kWait;
    }
    uint32_t chunk = m.bytes - m.sent < m_mtu ? m.bytes - m.sent : m_mtu;
    bool first = m.sent == 0;
    bool last = m.sent + chunk == m.bytes;

    p.slid = m_lid;
    p.dlid = f.dlid;
    p.dqpn = kQpn;
    p.sqpn = kQpn;
    p.psn = f.nextPsn;
    p.len = chunk;
    p.msg = m.id;
    p.posted_ns = m.postedNs;
    if (m.ud)
    {
        p.kind = SFAB_SIM_UD;
    }
    else
    {
        p.kind = first && last ? SFAB_SIM_RC_ONLY
                 : first       ? SFAB_SIM_RC_FIRST
                 : last        ? SFAB_SIM_RC_LAST
                               : SFAB_SIM_RC_MIDDLE;
        p.ackreq = last || (m_ackPsnAligned ? f.nextPsn % m_ackEvery == m_ackEvery - 1
                                            : f.sinceAck + 1 >= m_ackEvery);
    }
    len = sfab_sim_pkt_build(frame, &p);
    NS_ABORT_MSG_IF(!len, "sfab_sim_pkt_build: " << chunk << " bytes");
    if (!sfab_sim_link_tx_ok(m_link, 0, len))
    {
        if (!m_waitSince)
        {
            m_waitSince = now ? now : 1;
        }
        return kNoCredit;
    }
    m.sent += chunk;
    SfabStats::Get().txDataPkts++;
    if (!m.ud)
    {
        f.nextPsn = (f.nextPsn + 1) & kPsnMask;
        f.sinceAck = p.ackreq ? 0 : f.sinceAck + 1;
        m.endPsn = f.nextPsn;
    }
    if (m.sent == m.bytes)
    {
        if (!m.ud)
        {
            f.inflight.push_back(m);
        }
        f.msgs.pop_front();
    }
    Put(frame, len);
    return kSent;
}

/* one frame at a time at the port's rate: ACKs first, then round robin */
void
SfabHca::TrySend()
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t next = SFAB_SIM_NO_TIME;

    if (!sfab_sim_link_active(m_link) || (m_pfc && (m_pfc->GetHeld() & 1)))
    {
        return; /* PFC: sending again when the hold ends */
    }
    if (m_txBusyNs > now)
    {
        if (!m_send.IsRunning())
        {
            m_send = Simulator::Schedule(NanoSeconds(m_txBusyNs - now), &SfabHca::Soon, this);
        }
        return;
    }
    bool sent = SendAck();
    for (size_t k = 0, n = m_ready.size(); !sent && k < n; k++)
    {
        uint32_t dlid = m_ready.front();
        Flow& f = m_flows[dlid];
        SendResult r = SendFromFlow(f);

        m_ready.pop_front();
        if (f.msgs.empty())
        {
            f.ready = false;
        }
        else
        {
            m_ready.push_back(dlid);
            uint64_t ready = f.msgs.front().postedNs + m_txProc.GetNanoSeconds();
            if (r == kWait && ready > now && ready < next)
            {
                next = ready;
            }
        }
        sent = r == kSent;
        if (r == kNoCredit)
        {
            break; /* one VL: credit comes back with an FC packet */
        }
    }
    if (sent)
    {
        if (m_waitSince)
        {
            m_txWaitNs += now - m_waitSince;
            m_waitSince = 0;
        }
        next = m_txBusyNs;
    }
    if (next != SFAB_SIM_NO_TIME && !m_send.IsRunning())
    {
        m_send = Simulator::Schedule(NanoSeconds(next - now), &SfabHca::Soon, this);
    }
}

/* --- flow control ---------------------------------------------------------- */

/* link packets go at once: 6 bytes, between data packets */
void
SfabHca::FlushFc()
{
    uint8_t fc[SFAB_SIM_FC_LEN];
    uint64_t now = Simulator::Now().GetNanoSeconds();

    while (sfab_sim_link_fc_next(m_link, now, fc))
    {
        m_dev->Transmit(ns3::Create<Packet>(fc, sizeof(fc)), NanoSeconds(now));
    }
    ArmFcTimer();
}

void
SfabHca::ArmFcTimer()
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t d = sfab_sim_link_fc_deadline(m_link);

    if (d == SFAB_SIM_NO_TIME || d == UINT64_MAX)
    {
        return;
    }
    if (d <= now)
    {
        d = now + 1;
    }
    if (m_fc.IsRunning() && m_fcAt <= d)
    {
        return;
    }
    m_fc.Cancel();
    m_fcAt = d;
    m_fc = Simulator::Schedule(NanoSeconds(d - now), &SfabHca::FcTimer, this);
}

void
SfabHca::FcTimer()
{
    Soon();
}

/* --- in ------------------------------------------------------------------- */

void
SfabHca::Rx(Ptr<SfabNetDevice> dev, Ptr<const Packet> p)
{
    m_in.emplace_back(dev->GetRxSeq(), p);
    Soon();
}

/* the instant's run, after every event of the instant (SfabSwitch::RunSoon) */
void
SfabHca::Soon()
{
    if (!m_proc.IsRunning())
    {
        m_proc = Simulator::ScheduleNow(&SfabHca::Process, this);
    }
}

void
SfabHca::Process()
{
    uint8_t frame[SFAB_SIM_MAX_FRAME + 64];
    uint64_t now = Simulator::Now().GetNanoSeconds();

    std::stable_sort(m_in.begin(), m_in.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    for (const auto& in : m_in)
    {
        uint32_t len = in.second->GetSize();
        unsigned int vl;

        if (len > sizeof(frame))
        {
            len = sizeof(frame);
        }
        in.second->CopyData(frame, len);
        if (m_pfc && m_pfc->Receive(frame, len) == SfabPfcPort::kTaken)
        {
            continue;
        }
        if (sfab_sim_link_rx(m_link, now, frame, len, &vl) != SFAB_SIM_RX_DATA)
        {
            FlushFc();
            continue;
        }
        if (m_rxDrainMbps)
        {
            /* a receive side slower than the link: taken in turn, at its rate */
            uint64_t start = std::max(now, m_rxDrainAt);

            m_rxDrainAt = start + ((uint64_t)len * 8000 + m_rxDrainMbps - 1) / m_rxDrainMbps;
            m_rxq.emplace_back(std::vector<uint8_t>(frame, frame + len), vl);
            Simulator::Schedule(NanoSeconds(m_rxDrainAt - now), &SfabHca::RxDrain, this);
            continue;
        }
        RxData(frame, len);
        /* the transport takes it at once: its credit goes back */
        sfab_sim_link_rx_free(m_link, vl, len);
        FlushFc();
    }
    m_in.clear();
    FlushFc();
    TrySend();
}

/* RxDrainMbps: the oldest frame in is taken now, and its credit goes back */
void
SfabHca::RxDrain()
{
    std::vector<uint8_t> frame = std::move(m_rxq.front().first);
    unsigned int vl = m_rxq.front().second;

    m_rxq.pop_front();
    RxData(frame.data(), frame.size());
    sfab_sim_link_rx_free(m_link, vl, frame.size());
    FlushFc();
    TrySend();
}

void
SfabHca::RxData(const uint8_t* frame, uint32_t len)
{
    struct sfab_sim_pkt p;
    SfabStats& st = SfabStats::Get();
    uint64_t lastBit = Simulator::Now().GetNanoSeconds() + SerNs(len);

    if (!sfab_sim_pkt_parse(frame, len, &p) || p.dlid != m_lid)
    {
        st.badFrames++;
        return;
    }
    if (p.ext_lrh)
    {
        st.extFrames++;
    }
    if (p.kind == SFAB_SIM_RC_ACK)
    {
        st.rxAcks++;
        auto it = m_flows.find(p.slid);

        if (it == m_flows.end())
        {
            return;
        }
        Flow& f = it->second;
        uint32_t acked = (p.psn + 1) & kPsnMask;

        f.unaPsn = acked;
        /* the messages wholly acknowledged are done on this side */
        while (!f.inflight.empty() &&
               ((acked - f.inflight.front().endPsn) & kPsnMask) < (kPsnMask >> 1))
        {
            f.inflight.pop_front();
        }
        return;
    }
    st.dataPkts++;
    st.dataBytes += p.len;
    if (!st.firstRxNs)
    {
        st.firstRxNs = lastBit;
    }
    st.lastRxNs = lastBit;
    if (p.kind == SFAB_SIM_UD)
    {
        st.msgs.push_back({p.slid,
                           m_lid,
                           p.len,
                           p.posted_ns,
                           lastBit + (uint64_t)m_rxProc.GetNanoSeconds()});
        return;
    }
    Peer& peer = m_peers[p.slid];
    bool starts = p.kind == SFAB_SIM_RC_FIRST || p.kind == SFAB_SIM_RC_ONLY;
    bool gap = p.psn != peer.expPsn;
    if (gap)
    {
        st.seqErrors++;
    }
    peer.expPsn = (p.psn + 1) & kPsnMask;
    if (starts)
    {
        peer.msg = p.msg;
        peer.postedNs = p.posted_ns;
        peer.bytes = 0;
        peer.broken = false;
    }
    else if (gap)
    {
        peer.broken = true; /* lost a packet (lossy baseline): not delivered */
    }
    peer.bytes += p.len;
    if ((p.kind == SFAB_SIM_RC_LAST || p.kind == SFAB_SIM_RC_ONLY) && !peer.broken)
    {
        st.msgs.push_back({p.slid,
                           m_lid,
                           peer.bytes,
                           peer.postedNs,
                           lastBit + (uint64_t)m_rxProc.GetNanoSeconds()});
    }
    if (p.ackreq)
    {
        m_acks.emplace_back(p.slid, p.psn);
    }
    if ((p.kind == SFAB_SIM_RC_LAST || p.kind == SFAB_SIM_RC_ONLY) && !peer.broken && m_recvCb)
    {
        m_recvCb(p.slid, peer.bytes);
    }
}

void
SfabHca::SetRecvCallback(std::function<void(uint32_t, uint32_t)> cb)
{
    m_recvCb = cb;
}

} // namespace ns3
