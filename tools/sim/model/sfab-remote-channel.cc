/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifdef SFAB_SIM_MPI

#include "sfab-remote-channel.h"

#include "../core/sfab_sim.h"

#include "ns3/abort.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/simulator.h"

#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SfabRemoteChannel);

uint64_t SfabRemoteChannel::s_sent = 0;

TypeId
SfabRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SfabRemoteChannel")
                            .SetParent<SfabChannel>()
                            .SetGroupName("Sfab")
                            .AddConstructor<SfabRemoteChannel>();
    return tid;
}

SfabRemoteChannel::SfabRemoteChannel()
    : m_lookahead(0)
{
}

Time
SfabRemoteChannel::GetAttributeDelay() const
{
    return m_lookahead;
}

void
SfabRemoteChannel::SetLookahead(Time lookahead)
{
    NS_ABORT_MSG_IF(lookahead >= m_delay, "lookahead " << lookahead << " not under the delay");
    m_lookahead = lookahead;
}

void
SfabRemoteChannel::Transmit(Ptr<SfabNetDevice> from, Ptr<Packet> p, Time start)
{
    uint8_t buf[SFAB_SIM_MAX_FRAME + 8];
    uint64_t seq;
    Ptr<SfabNetDevice> to = Peer(from, &seq);
    uint32_t len = p->GetSize();

    NS_ABORT_MSG_IF(!to || len > SFAB_SIM_MAX_FRAME, "remote cable: no end, or a frame of " << len);
    p->CopyData(buf, len);
    std::memcpy(buf + len, &seq, 8);
    s_sent++;
    MpiInterface::SendPacket(Create<Packet>(buf, len + 8),
                             start + m_delay,
                             to->GetNode()->GetId(),
                             to->GetIfIndex());
}

void
SfabRemoteChannel::FromMpi(Ptr<SfabNetDevice> dev, Ptr<Packet> p)
{
    uint8_t tail[8];
    uint64_t seq;

    NS_ABORT_MSG_IF(p->GetSize() < 8, "remote cable: a frame without its place");
    Ptr<Packet> q = p->CreateFragment(p->GetSize() - 8, 8);
    q->CopyData(tail, 8);
    std::memcpy(&seq, tail, 8);
    p->RemoveAtEnd(8);
    dev->Receive(p, seq);
}

void
SfabRemoteChannel::Listen(Ptr<SfabNetDevice> dev)
{
    Ptr<MpiReceiver> rx = CreateObject<MpiReceiver>();

    rx->SetReceiveCallback(MakeBoundCallback(&SfabRemoteChannel::FromMpi, dev));
    dev->AggregateObject(rx);
}

uint64_t
SfabRemoteChannel::GetSent()
{
    return s_sent;
}

} // namespace ns3

#endif /* SFAB_SIM_MPI */
