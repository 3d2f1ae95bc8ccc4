/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SfabRemoteChannel: a cable whose ends are simulated by different MPI
 * ranks (sfab-sim-mpi only; SfabMpi).  The frame goes to the other end's
 * rank through ns-3's MpiInterface::SendPacket with the time its first
 * bit arrives (start + delay), and its place on the cable behind it (8
 * bytes, taken off again at the other end); there the device's
 * aggregated MpiReceiver hands it to the device as a frame of the cable.
 * A remote cable is never pulled.
 *
 * ns-3 derives the run's lookahead from the "Delay" attribute of the
 * cables that leave a rank: this cable's answers the fabric's lookahead,
 * one nanosecond less than its shortest cross-rank cable (SetLookahead),
 * so that every frame due at the end of a time window is known before
 * the window begins, and a node's instant sees all its frames
 * (SfabSwitch::RunSoon).
 */
#ifndef SFAB_REMOTE_CHANNEL_H
#define SFAB_REMOTE_CHANNEL_H

#ifdef SFAB_SIM_MPI

#include "sfab-net-device.h"

namespace ns3
{

class SfabRemoteChannel : public SfabChannel
{
  public:
    static TypeId GetTypeId();
    SfabRemoteChannel();

    void SetLookahead(Time lookahead);
    Time GetAttributeDelay() const override;
    void Transmit(Ptr<SfabNetDevice> from, Ptr<Packet> p, Time start) override;
    /* the receiving end: @dev takes frames from other ranks */
    static void Listen(Ptr<SfabNetDevice> dev);
    /* frames this rank sent to other ranks */
    static uint64_t GetSent();

  private:
    static void FromMpi(Ptr<SfabNetDevice> dev, Ptr<Packet> p);

    Time m_lookahead;
    static uint64_t s_sent;
};

} // namespace ns3

#endif /* SFAB_SIM_MPI */
#endif /* SFAB_REMOTE_CHANNEL_H */
