/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SfabNetDevice and SfabChannel: one end of an sfab cable and the cable.
 *
 * The device belongs to a switch port or an HCA port (its owner, which
 * runs the project's C code through tools/sim/core/sfab_sim.h); the
 * channel carries a frame from one end to the other, its first bit
 * arriving the propagation delay after it left.  Serialisation is the
 * sender's business (the switch core accounts it, the HCA paces itself):
 * the channel only delays.  Frames are whole IBA packets (LRH to VCRC) or
 * 6-byte flow-control packets, as on the live cable.
 */
#ifndef SFAB_NET_DEVICE_H
#define SFAB_NET_DEVICE_H

#include "ns3/callback.h"
#include "ns3/channel.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

class SfabChannel;

class SfabNetDevice : public NetDevice
{
  public:
    static TypeId GetTypeId();
    SfabNetDevice();

    /* what the owner does with a frame whose first bit arrived now */
    typedef Callback<void, Ptr<SfabNetDevice>, Ptr<const Packet>> RxCallback;

    void SetPort(uint32_t port);
    uint32_t GetPort() const;
    void SetRxCallback(RxCallback cb);
    void Attach(Ptr<SfabChannel> ch);
    /* the frame's first bit leaves at @start (>= now) */
    void Transmit(Ptr<Packet> p, Time start);
    /*
     * from the channel: the frame and its place among the frames its
     * sender put on the cable (the owner orders a port's frames of one
     * instant by it; see SfabSwitch::Run)
     */
    void Receive(Ptr<const Packet> p, uint64_t seq);
    /* the place of the frame being received (during the RxCallback) */
    uint64_t GetRxSeq() const;

    uint64_t GetTxFrames() const;
    uint64_t GetRxFrames() const;

    /* NetDevice */
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override;
    bool IsPointToPoint() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    Ptr<Node> m_node;
    Ptr<SfabChannel> m_channel;
    RxCallback m_rx;
    uint32_t m_ifIndex;
    uint32_t m_port;
    Mac48Address m_address;
    uint64_t m_txFrames;
    uint64_t m_rxFrames;
    uint64_t m_rxSeq;
};

class SfabChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    SfabChannel();

    void Attach(Ptr<SfabNetDevice> dev);
    /* the frame's first bit arrives at the other end at @start + delay */
    virtual void Transmit(Ptr<SfabNetDevice> from, Ptr<Packet> p, Time start);
    Time GetDelay() const;
    void SetDelay(Time delay);
    /*
     * what the "Delay" attribute answers, which ns-3's distributed
     * simulator reads for its lookahead: the delay (SfabRemoteChannel
     * answers less)
     */
    virtual Time GetAttributeDelay() const;
    /* a pulled cable: what is on it arrives nowhere (counted) */
    void SetUp(bool up);
    bool IsUp() const;
    uint64_t GetLost() const;
    uint64_t GetLostData() const; /* of them, data packets */

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    /* the end that is not @from, and the number of @from's next frame */
    Ptr<SfabNetDevice> Peer(Ptr<SfabNetDevice> from, uint64_t* seq);

    Time m_delay;
    uint64_t m_seq[2]; /* frames put on the cable, per end */

  private:
    void Deliver(Ptr<SfabNetDevice> to, Ptr<const Packet> p, uint32_t gen, uint64_t seq);

    Ptr<SfabNetDevice> m_dev[2];
    std::size_t m_n;
    bool m_up;
    uint32_t m_gen; /* frames sent before a pull never arrive */
    uint64_t m_lost;
    uint64_t m_lostData;
};

} // namespace ns3

#endif /* SFAB_NET_DEVICE_H */
