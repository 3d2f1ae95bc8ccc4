/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sfab-net-device.h"

#include "../core/sfab_sim.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SfabNetDevice");
NS_OBJECT_ENSURE_REGISTERED(SfabNetDevice);
NS_OBJECT_ENSURE_REGISTERED(SfabChannel);

TypeId
SfabNetDevice::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SfabNetDevice")
                            .SetParent<NetDevice>()
                            .SetGroupName("Sfab")
                            .AddConstructor<SfabNetDevice>();
    return tid;
}

SfabNetDevice::SfabNetDevice()
    : m_ifIndex(0),
      m_port(0),
      m_address(Mac48Address::Allocate()),
      m_txFrames(0),
      m_rxFrames(0),
      m_rxSeq(0)
{
}

void
SfabNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_rx = MakeNullCallback<void, Ptr<SfabNetDevice>, Ptr<const Packet>>();
    NetDevice::DoDispose();
}

void
SfabNetDevice::SetPort(uint32_t port)
{
    m_port = port;
}

uint32_t
SfabNetDevice::GetPort() const
{
    return m_port;
}

void
SfabNetDevice::SetRxCallback(RxCallback cb)
{
    m_rx = cb;
}

void
SfabNetDevice::Attach(Ptr<SfabChannel> ch)
{
    m_channel = ch;
    ch->Attach(this);
}

void
SfabNetDevice::Transmit(Ptr<Packet> p, Time start)
{
    m_txFrames++;
    if (m_channel)
    {
        m_channel->Transmit(this, p, start);
    }
}

void
SfabNetDevice::Receive(Ptr<const Packet> p, uint64_t seq)
{
    m_rxFrames++;
    m_rxSeq = seq;
    if (!m_rx.IsNull())
    {
        m_rx(this, p);
    }
}

uint64_t
SfabNetDevice::GetRxSeq() const
{
    return m_rxSeq;
}

uint64_t
SfabNetDevice::GetTxFrames() const
{
    return m_txFrames;
}

uint64_t
SfabNetDevice::GetRxFrames() const
{
    return m_rxFrames;
}

void
SfabNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
SfabNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
SfabNetDevice::GetChannel() const
{
    return m_channel;
}

void
SfabNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
SfabNetDevice::GetAddress() const
{
    return m_address;
}

bool
SfabNetDevice::SetMtu(const uint16_t mtu)
{
    return mtu == 4096;
}

uint16_t
SfabNetDevice::GetMtu() const
{
    return 4096;
}

bool
SfabNetDevice::IsLinkUp() const
{
    return m_channel && m_channel->IsUp();
}

void
SfabNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
}

bool
SfabNetDevice::IsBroadcast() const
{
    return false;
}

Address
SfabNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
SfabNetDevice::IsMulticast() const
{
    return false;
}

Address
SfabNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
SfabNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
SfabNetDevice::IsBridge() const
{
    return false;
}

bool
SfabNetDevice::IsPointToPoint() const
{
    return true;
}

/* IBA frames come from the owner (Transmit), not from an IP stack */
bool
SfabNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    return false;
}

bool
SfabNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    return false;
}

Ptr<Node>
SfabNetDevice::GetNode() const
{
    return m_node;
}

void
SfabNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
SfabNetDevice::NeedsArp() const
{
    return false;
}

void
SfabNetDevice::SetReceiveCallback(ReceiveCallback cb)
{
}

void
SfabNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
}

bool
SfabNetDevice::SupportsSendFrom() const
{
    return false;
}

/* --- the cable ------------------------------------------------------------ */

TypeId
SfabChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SfabChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Sfab")
                            .AddConstructor<SfabChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay, first bit out to first bit in",
                                          TimeValue(NanoSeconds(5)),
                                          MakeTimeAccessor(&SfabChannel::SetDelay,
                                                           &SfabChannel::GetAttributeDelay),
                                          MakeTimeChecker());
    return tid;
}

SfabChannel::SfabChannel()
    : m_seq{0, 0},
      m_n(0),
      m_up(true),
      m_gen(0),
      m_lost(0),
      m_lostData(0)
{
}

void
SfabChannel::Attach(Ptr<SfabNetDevice> dev)
{
    NS_ASSERT_MSG(m_n < 2, "an sfab cable has two ends");
    m_dev[m_n++] = dev;
}

Ptr<SfabNetDevice>
SfabChannel::Peer(Ptr<SfabNetDevice> from, uint64_t* seq)
{
    int k = from == m_dev[0] ? 0 : 1;

    *seq = m_seq[k]++;
    return m_dev[1 - k];
}

void
SfabChannel::Transmit(Ptr<SfabNetDevice> from, Ptr<Packet> p, Time start)
{
    uint64_t seq;
    Ptr<SfabNetDevice> to = Peer(from, &seq);

    if (!m_up || !to)
    {
        m_lost++;
        m_lostData += p->GetSize() > SFAB_SIM_FC_LEN;
        return;
    }
    Time at = start + m_delay - Simulator::Now();
    Simulator::ScheduleWithContext(to->GetNode()->GetId(),
                                   at,
                                   &SfabChannel::Deliver,
                                   this,
                                   to,
                                   p,
                                   m_gen,
                                   seq);
}

void
SfabChannel::Deliver(Ptr<SfabNetDevice> to, Ptr<const Packet> p, uint32_t gen, uint64_t seq)
{
    if (!m_up || gen != m_gen)
    {
        m_lost++;
        m_lostData += p->GetSize() > SFAB_SIM_FC_LEN;
        return;
    }
    to->Receive(p, seq);
}

Time
SfabChannel::GetDelay() const
{
    return m_delay;
}

void
SfabChannel::SetDelay(Time delay)
{
    m_delay = delay;
}

Time
SfabChannel::GetAttributeDelay() const
{
    return m_delay;
}

void
SfabChannel::SetUp(bool up)
{
    if (m_up && !up)
    {
        m_gen++;
    }
    m_up = up;
}

bool
SfabChannel::IsUp() const
{
    return m_up;
}

uint64_t
SfabChannel::GetLost() const
{
    return m_lost;
}

uint64_t
SfabChannel::GetLostData() const
{
    return m_lostData;
}

std::size_t
SfabChannel::GetNDevices() const
{
    return m_n;
}

Ptr<NetDevice>
SfabChannel::GetDevice(std::size_t i) const
{
    return i < m_n ? m_dev[i] : nullptr;
}

} // namespace ns3
