/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SfabHca: an endpoint on an ns-3 node: one HCA port and a message
 * transport above it.
 *
 * The port is the project's link end (qemu-model/link/sfab_link.c through
 * tools/sim/core/sfab_sim.h): link training, per-VL credit, the periodic
 * refresh, the CRCs checked on every frame in and sealed on every frame
 * out, the IBA framing.  It sends one frame at a time at its rate, and
 * only with the credit for all of it.
 *
 * Above it, the simulation's transport (not the HCA engine of the live
 * model, which needs guest memory and queues): RC-like messages, one
 * connection per destination LID, cut at the MTU into SEND FIRST, MIDDLE
 * and LAST (or ONLY) packets with consecutive PSNs, at most Window packets
 * unacknowledged, an ACK asked for every AckEvery packets (or, with
 * AckPsnAligned, on every PSN that is AckEvery - 1 modulo AckEvery, as the
 * live HCA engine does) and at a message's end; and UD datagrams (one packet each).  Losslessness is the
 * link's: nothing is retransmitted, and a PSN out of sequence at a
 * receiver is counted as a loss.  A message's latency is from the time it
 * was posted to the time its last bit arrived plus the receive processing.
 *
 * As the switch does (sfab-switch.h), the HCA does an instant's work once,
 * at the end of the instant, in one order: the frames that came in (in
 * the order they were put on the cable), then the flow-control packets,
 * then what can be sent.  Frames, timers and posted messages only ask for
 * that run.
 */
#ifndef SFAB_HCA_H
#define SFAB_HCA_H

#include "sfab-net-device.h"
#include "sfab-pfc.h"

#include "ns3/event-id.h"
#include "ns3/node.h"
#include "ns3/object.h"

#include <deque>
#include <functional>
#include <map>
#include <vector>

struct sfab_sim_link;

namespace ns3
{

/* what every endpoint of a run reports into */
struct SfabMsgRecord
{
    uint32_t src;
    uint32_t dst;
    uint32_t bytes;
    uint64_t postedNs;
    uint64_t doneNs;
};

class SfabStats
{
  public:
    static SfabStats& Get();
    void Reset();

    std::vector<SfabMsgRecord> msgs;
    uint64_t seqErrors = 0;    /* a PSN out of sequence: a packet lost */
    uint64_t badFrames = 0;    /* frames the transport could not parse */
    uint64_t dataPkts = 0;     /* data packets received by endpoints */
    uint64_t txDataPkts = 0;   /* data packets endpoints sent */
    uint64_t txAcks = 0;       /* ACKs endpoints sent, and received */
    uint64_t rxAcks = 0;
    uint64_t extFrames = 0;    /* frames endpoints took with an extended LRH */
    uint64_t dataBytes = 0;    /* their payload */
    uint64_t firstRxNs = 0;    /* first and last data packet's last bit */
    uint64_t lastRxNs = 0;
};

class SfabHca : public Object
{
  public:
    static TypeId GetTypeId();
    SfabHca();
    ~SfabHca() override;

    void Create(Ptr<Node> node, uint32_t lid);
    Ptr<SfabNetDevice> GetPortDevice() const;
    uint32_t GetLid() const;
    /* the cable is in: the link trains */
    void Connect();
    /* the SM's part: Active once trained */
    bool Activate();
    bool IsActive() const;
    bool IsUp() const; /* the link trained */
    /* a message to @dlid, posted now: RC (segmented) or one UD datagram */
    void Send(uint32_t dlid, uint32_t bytes, bool ud = false);
    /*
     * a connection's first PSN (0 unless set), before anything is sent on
     * it: on the sender (to @lid) and on the receiver (from @lid)
     */
    void SetFirstPsn(uint32_t lid, uint32_t psn);
    void SetPeerFirstPsn(uint32_t lid, uint32_t psn);
    /* called with the source LID and size of every RC message received whole */
    void SetRecvCallback(std::function<void(uint32_t, uint32_t)> cb);
    /* messages posted and not yet acknowledged (RC) or sent (UD) */
    uint32_t GetPending() const;
    uint64_t GetRcvErrors() const;
    uint64_t GetTxWaitNs() const; /* time with a frame ready and no credit */
    uint64_t GetRateMbps() const;
    /* the PFC baseline (sfab-pfc.h): PFC frames in, its hold on sending */
    void SetPfc(Ptr<SfabPfcPort> pfc);
    void PfcHold(uint32_t port, uint32_t mask);

  protected:
    void DoDispose() override;

  private:
    struct Msg
    {
        uint64_t id;
        uint32_t bytes;
        uint32_t sent;   /* bytes cut into packets so far */
        uint32_t endPsn; /* the PSN after its last packet, once cut */
        uint64_t postedNs;
        bool ud;
    };

    struct Flow /* the sending side of one connection */
    {
        uint32_t dlid;
        uint32_t nextPsn;
        uint32_t unaPsn;
        uint32_t sinceAck;
        bool ready;               /* in m_ready */
        std::deque<Msg> msgs;     /* posted, not yet cut whole */
        std::deque<Msg> inflight; /* cut whole, waiting for their ACK */
    };

    struct Peer /* the receiving side of one connection */
    {
        uint32_t expPsn = 0;
        uint64_t msg = 0;
        uint64_t postedNs = 0;
        uint32_t bytes = 0;
        bool broken = false; /* a packet of this message was lost */
    };

    void Rx(Ptr<SfabNetDevice> dev, Ptr<const Packet> p);
    void Soon();
    void Process();
    void RxDrain();
    void RxData(const uint8_t* frame, uint32_t len);
    void FlushFc();
    void ArmFcTimer();
    void FcTimer();
    void TrySend();
    bool SendAck();
    enum SendResult
    {
        kSent,
        kWait,     /* the flow's window, or its message not posted yet */
        kNoCredit, /* the link's: no other flow can go either */
    };
    SendResult SendFromFlow(Flow& f);
    void Put(const uint8_t* frame, size_t len);
    uint64_t SerNs(size_t len) const;

    struct sfab_sim_link* m_link;
    Ptr<Node> m_node;
    Ptr<SfabNetDevice> m_dev;
    Ptr<SfabPfcPort> m_pfc;
    uint32_t m_lid;
    uint64_t m_nextMsg;
    uint64_t m_txBusyNs;
    uint64_t m_waitSince;
    uint64_t m_txWaitNs;
    /* the instant's frames: (their place on the cable, frame) */
    std::vector<std::pair<uint64_t, Ptr<const Packet>>> m_in;
    EventId m_proc;
    EventId m_send;
    EventId m_fc;
    uint64_t m_fcAt;
    std::map<uint32_t, Flow> m_flows;
    std::map<uint32_t, Peer> m_peers;
    std::deque<std::pair<uint32_t, uint32_t>> m_acks; /* (dlid, psn) */
    std::function<void(uint32_t, uint32_t)> m_recvCb;
    /* RxDrainMbps: frames in, not yet taken (their credit held), FIFO */
    std::deque<std::pair<std::vector<uint8_t>, unsigned int>> m_rxq;
    uint64_t m_rxDrainAt;
    /* the flows with something to cut, in round-robin order */
    std::deque<uint32_t> m_ready;
    /* attributes */
    uint64_t m_rateMbps;
    Time m_txProc;
    Time m_rxProc;
    uint32_t m_mtu;
    uint32_t m_window;
    uint32_t m_ackEvery;
    uint32_t m_vlBlocks;
    Time m_fcPeriod;
    uint64_t m_rxDrainMbps;
    bool m_ackPsnAligned;
};

} // namespace ns3

#endif /* SFAB_HCA_H */
