/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab-sim: the named scenarios of the fabric simulation
 * (Documentation/sfab/simulation.rst), each on a fabric of the live
 * switch core and link code in ns-3's virtual time.
 *
 *	sfab-sim --scenario=NAME [--option=value ...]
 *	sfab-sim --PrintHelp
 *
 * A run prints its parameters and results as "key=value" lines (what the
 * tests in tests/sim assert on), then "done".  Exit status 0 when the run
 * itself worked (every message delivered, the fabric came up); whether its
 * figures meet a claim is the test's call.
 *
 *   hop-latency   one switch, two HCAs, one small message: what a switch
 *                 hop adds (first bit in to first bit out) and the end
 *                 to end time
 *   three-hop     HCA, three switches in a row, HCA: one small message end
 *                 to end
 *   incast        one switch, N senders and a receiver: every sender
 *                 sends COUNT messages of BYTES at once; losses, the
 *                 receiver's bandwidth against its line rate, credit waits;
 *                 with --pingpong, the receiver sends every message back
 *                 and a sender posts its next once that is in (rdma-core's
 *                 ibv_rc_pingpong, sim/live-crosscheck); --pcap-dir
 *                 captures every switch port as sfab-switchd does
 *   alltoall      a two-level fat tree: every HCA sends COUNT messages of
 *                 BYTES to every other at once
 *   permutation   the same fat tree: every HCA sends COUNT messages of BYTES
 *                 to one partner, a random permutation of them (SEED) with
 *                 no HCA its own partner
 *   trace         the same fat tree, messages replayed from TRACE: lines
 *                 "TIME_NS SRC DST BYTES" (HCA indices from 0; # comments),
 *                 each posted at its time after the fabric is up
 *   victim        the same fat tree: SENDERS HCAs off HCA 0's leaf send it
 *                 COUNT messages of BYTES at once (the incast) while every
 *                 other HCA sends messages of 4 KiB, 64 KiB and 1 MiB to a
 *                 partner (SEED) at random times: their latency per size
 *   failover      the same fat tree: every HCA streams to the one a leaf on;
 *                 leaf 0's up-link to spine 0 is pulled FAIL_NS in (each
 *                 switch end sees it DETECT_NS later): when each side first
 *                 sent on an alternate, and where packets were lost
 *                 (--failover=0: the same without fast failover)
 *
 * Every scenario runs with --flow-control=credit (the product's links),
 * pfc or lossy (the lossy-Ethernet PFC baseline, model/sfab-pfc.h).
 *
 * alltoall, permutation and trace run on --topo: fat2 (the two-level fat
 * tree: --leaves, --spines, --per), fat3 (three levels: --pods of
 * --leaves leaf and --spines aggregation switches, --cores core switches
 * per aggregation index, --per HCAs a leaf) or dragonfly (--groups of
 * --routers switches, --per HCAs and --globals global ports each).  With
 * --sample-us, every that many us of virtual time the received payload is
 * sampled (--series writes it) and the run ends when every message is in;
 * --lat-file writes every message's latency.  Every run ends with its
 * cost: ns-3 events, events per wall second, peak RSS, RSS per HCA.
 *
 * sfab-sim-mpi is the same program on ns-3's distributed simulator:
 *
 *	mpirun -np R sfab-sim-mpi --scenario=alltoall|permutation|trace ...
 *
 * splits a fat tree over R ranks (SfabFabric::FatTree by leaf groups,
 * FatTree3 by pods), each
 * rank posting its own HCAs' messages; rank 0 prints the report, the
 * figures reduced over the ranks, the same lines as sfab-sim's, and then
 * what each rank did as mpi_* lines.
 */
#include "../model/sfab-fabric.h"
#include "../model/sfab-mpi.h"
#include "../model/sfab-pfc.h"
#include "../model/sfab-probe.h"
#include "../model/sfab-remote-channel.h"

#include "../core/sfab_sim.h"

#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/simulator.h"
#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <sys/stat.h>

using namespace ns3;

namespace
{

struct Opts
{
    std::string scenario;
    uint64_t hopNs = 260;
    uint64_t propNs = 5;
    uint64_t hcaProcNs = 50;
    uint64_t hcaMbps = 400000;
    uint64_t hcaRxMbps = 0;
    uint64_t swMbps = 800000;
    uint32_t bytes = 0;
    uint32_t count = 0;
    uint32_t senders = 8;
    uint32_t leaves = 4;
    uint32_t spines = 4;
    uint32_t per = 4;
    uint32_t vlBlocks = 2048;
    uint32_t mtu = 4096;
    double limitMs = 1000;
    uint32_t seed = 1;
    std::string trace;
    /* failover */
    bool failover = true;
    uint64_t failNs = 10000;
    uint64_t detectNs = 100;
    double victimLoad = 0.25;
    double windowUs = 0;
    std::string flowControl = "credit";
    uint64_t pfcBuffer = 0; /* 0: the credit fabric's, vl-blocks x 64 */
    int64_t pfcXoff = -1;
    int64_t pfcXon = -1;
    uint32_t pfcQuanta = 0xffff;
    uint64_t pfcResponseNs = 500;
    /* the fat-tree scenarios' fabric (sfab-topo.cc) */
    std::string topo = "fat2";
    uint32_t pods = 4;
    uint32_t cores = 2;
    uint32_t groups = 9;
    uint32_t routers = 4;
    uint32_t globals = 2;
    /* scale measurements (sfab-probe.h) */
    uint32_t sampleUs = 0;
    std::string series;
    std::string latFile;
    /* incast: echo every message (ibv_rc_pingpong), capture the switch */
    bool pingpong = false;
    std::string pcapDir;
    std::string firstPsns; /* sender i's to the receiver, then the receiver's to i */
    std::vector<uint32_t> firstPsn;
    bool ackPsnAligned = false;
    /* the first HCA's LID (Documentation/sfab/addressing.rst) */
    std::string lidBase = "1";
};

/* the PFC baseline's configuration, when the run is not on credit */
bool g_pfcOn;
SfabPfcConfig g_pfc;

/* the fabric's HCAs (FabricReport), for the cost per endpoint */
uint32_t g_nHcas;
/* SfabProbe: sample every this often from the traffic's start, stop when in */
uint32_t g_sampleUs;
uint64_t g_expected;
/* when the traffic started: wall clock and events executed by then */
std::chrono::steady_clock::time_point g_trafficWall;
uint64_t g_trafficEvents;

/* what a scenario posts once the fabric is up (every port Active) */
std::function<void()> g_start;

void
StartTraffic()
{
    g_trafficWall = std::chrono::steady_clock::now();
    g_trafficEvents = Simulator::GetEventCount();
    g_start();
    if (g_sampleUs)
    {
        SfabProbe::Start(MicroSeconds(g_sampleUs), g_expected);
    }
}

/* @expected: the messages the run delivers when it works (0: unknown) */
void
BringUp(SfabFabric& f, std::function<void()> start, uint64_t expected = 0)
{
    g_start = start;
    if (g_pfcOn)
    {
        SfabPfcInstall(f, g_pfc);
    }
    g_expected = expected;
    f.Route();
    f.BringUp(MakeCallback(&StartTraffic));
}

/* the report: rank 0's */
void
Out(const char* key, uint64_t v)
{
    if (SfabMpi::Rank() == 0)
    {
        std::printf("%s=%llu\n", key, (unsigned long long)v);
    }
}

void
OutF(const char* key, double v)
{
    if (SfabMpi::Rank() == 0)
    {
        std::printf("%s=%.4f\n", key, v);
    }
}

/* the first and the last data packet's last bit over all ranks (0: none) */
uint64_t
FirstRxNs()
{
    uint64_t first = SfabStats::Get().firstRxNs;

    first = SfabMpi::Min(first ? first : UINT64_MAX);
    return first == UINT64_MAX ? 0 : first;
}

uint64_t
LastRxNs()
{
    return SfabMpi::Max(SfabStats::Get().lastRxNs);
}

uint64_t
Pct(std::vector<uint64_t> v, double p)
{
    if (v.empty())
    {
        return 0;
    }
    std::sort(v.begin(), v.end());
    size_t i = (size_t)(p / 100.0 * (v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

/* what every scenario reports about the fabric after the run */
void
FabricReport(const SfabFabric& f)
{
    uint64_t discards = 0, rcvErr = 0, wait = 0, queued = 0, hcaWait = 0;
    SfabStats& st = SfabStats::Get();
    std::vector<uint64_t> lat;

    for (uint32_t s = 0; s < f.GetNSwitches(); s++)
    {
        Ptr<SfabSwitch> sw = f.GetSwitch(s);

        if (!SfabMpi::Local(sw->GetPortDevice(1)->GetNode()))
        {
            continue;
        }

        for (uint32_t p = 1; p <= sw->GetNPorts(); p++)
        {
            struct sfab_sim_port_stats ps;

            sw->GetPortStats(p, &ps);
            discards += ps.xmit_discards;
            if (getenv("SFAB_SIM_DEBUG") && (ps.state != 4 || ps.overruns || ps.xmit_discards || ps.queued))
            {
                std::printf("# switch %u port %u: state %u overruns %llu downed %llu "
                            "discards %llu rcv_errors %llu queued %llu\n",
                            s, p, ps.state, (unsigned long long)ps.overruns,
                            (unsigned long long)ps.link_downed,
                            (unsigned long long)ps.xmit_discards,
                            (unsigned long long)ps.rcv_errors, (unsigned long long)ps.queued);
            }
            rcvErr += ps.rcv_errors;
            wait += ps.xmit_wait_ns;
        }
        queued += sw->GetQueued();
    }
    for (uint32_t h = 0; h < f.GetNHcas(); h++)
    {
        if (!f.IsLocal(SfabFabric::Hca(h)))
        {
            continue;
        }
        rcvErr += f.GetHca(h)->GetRcvErrors();
        hcaWait += f.GetHca(h)->GetTxWaitNs();
    }
    for (const auto& m : st.msgs)
    {
        lat.push_back(m.doneNs - m.postedNs);
    }
    /* the whole fabric's: every rank's figures */
    lat = SfabMpi::Gather(lat);
    bool active = f.AllActive();
    uint64_t seqErrors = SfabMpi::Sum(st.seqErrors);
    discards = SfabMpi::Sum(discards);
    rcvErr = SfabMpi::Sum(rcvErr);
    wait = SfabMpi::Sum(wait);
    hcaWait = SfabMpi::Sum(hcaWait);
    queued = SfabMpi::Sum(queued);
    Out("all_active", active);
    Out("up_ns", f.GetUpTime().GetNanoSeconds());
    Out("messages", SfabMpi::Sum(st.msgs.size()));
    Out("seq_errors", seqErrors);
    Out("bad_frames", SfabMpi::Sum(st.badFrames));
    Out("xmit_discards", discards);
    Out("rcv_errors", rcvErr);
    SfabPfcStats pfc = SfabPfcGetStats();
    Out("drops", seqErrors + discards + rcvErr + SfabMpi::Sum(pfc.drops));
    Out("switch_xmit_wait_ns", wait);
    Out("hca_credit_wait_ns", hcaWait);
    Out("switch_queued", queued);
    Out("lat_p50_ns", Pct(lat, 50));
    Out("lat_p99_ns", Pct(lat, 99));
    Out("lat_p999_ns", Pct(lat, 99.9));
    Out("lat_max_ns", lat.empty() ? 0 : *std::max_element(lat.begin(), lat.end()));
    if (g_pfcOn)
    {
        Out("pfc_buffer_bytes", g_pfc.bufferBytes);
        Out("pfc_xoff_bytes", pfc.xoffMin);
        Out("pfc_xon_bytes", pfc.xonMin);
        Out("pfc_headroom_bytes", pfc.headroomMax);
        Out("pfc_pause_tx", pfc.pauseTx);
        Out("pfc_xon_tx", pfc.xonTx);
        Out("pfc_frames_rx", pfc.pfcRx);
        Out("pfc_held_ns", pfc.heldNs);
        Out("pfc_drops", pfc.drops);
        Out("pfc_peak_bytes", pfc.peakBytes);
    }
    uint64_t coreBytes = 0;
    for (uint32_t s = 0; s < f.GetNSwitches(); s++)
    {
        coreBytes += f.GetSwitch(s)->GetCoreBytes();
    }
    Out("nodes", f.GetNSwitches() + f.GetNHcas());
    Out("cables", f.GetNCables());
    Out("switch_core_bytes", coreBytes);
    /* addressing (Documentation/sfab/addressing.rst) */
    Out("lid_first", f.GetNHcas() ? f.GetHca(0)->GetLid() : 0);
    Out("lid_last", f.GetNHcas() ? f.GetHca(f.GetNHcas() - 1)->GetLid() : 0);
    Out("lft_entries", SfabFabric::GetLftCap() ? SfabFabric::GetLftCap() : 0xc000);
    /* collectives: every rank's endpoints */
    Out("rx_frames", SfabMpi::Sum(st.dataPkts + st.rxAcks));
    Out("ext_lrh_frames", SfabMpi::Sum(st.extFrames));
    g_nHcas = f.GetNHcas();
}

/* the fabric the fat-tree scenarios run on (options checked in main) */
void
BuildFabric(const Opts& o, SfabFabric& f)
{
    if (o.topo == "fat3")
    {
        SfabFabric::FatTree3(f, o.pods, o.leaves, o.spines, o.cores, o.per,
                             NanoSeconds(o.propNs));
    }
    else if (o.topo == "dragonfly")
    {
        SfabFabric::Dragonfly(f, o.groups, o.routers, o.per, o.globals, NanoSeconds(o.propNs));
    }
    else
    {
        SfabFabric::FatTree(f, o.leaves, o.spines, o.per, NanoSeconds(o.propNs));
    }
}

/*
 * the routes as programmed: switches crossed from every HCA to every
 * other (up to 2048 HCAs; beyond, to 64 others each), by length; and the
 * switches that forwarded no data packet
 */
void
PathReport(const SfabFabric& f)
{
    uint32_t h = f.GetNHcas();
    uint32_t per = h <= 2048 ? h - 1 : 64;
    std::vector<uint64_t> byLen(65);
    uint64_t pairs = 0;

    for (uint32_t i = 0; i < h; i++)
    {
        for (uint32_t k = 0; k < per; k++)
        {
            uint32_t j = (i + 1 + (uint64_t)k * (h - 1) / per) % h;

            byLen[std::min<uint32_t>(f.PathSwitches(i, j), 64)]++;
            pairs++;
        }
    }
    Out("path_pairs", pairs);
    Out("path_unrouted", byLen[0]);
    for (uint32_t n = 1; n < byLen.size(); n++)
    {
        if (byLen[n] && SfabMpi::Rank() == 0)
        {
            std::printf("path_switches_%u=%llu\n", n, (unsigned long long)byLen[n]);
        }
    }
    uint32_t idle = 0;
    for (uint32_t s = 0; s < f.GetNSwitches(); s++)
    {
        uint64_t pkts = 0;

        if (!SfabMpi::Local(f.GetSwitch(s)->GetPortDevice(1)->GetNode()))
        {
            continue; /* another rank's */
        }
        for (uint32_t p = 1; p <= f.GetSwitch(s)->GetNPorts(); p++)
        {
            struct sfab_sim_port_stats ps;

            f.GetSwitch(s)->GetPortStats(p, &ps);
            pkts += ps.xmit_pkts;
        }
        idle += !pkts;
    }
    Out("idle_switches", SfabMpi::Sum(idle));
}

void
SetDefaults(const Opts& o)
{
    Config::SetDefault("ns3::SfabSwitch::HopLatency", TimeValue(NanoSeconds(o.hopNs)));
    Config::SetDefault("ns3::SfabSwitch::RateMbps", UintegerValue(o.swMbps));
    /*
     * PFC or lossy: credit is not the gate.  The links advertise more than
     * the PFC buffer by the most IBA credit runs ahead, so a sender always
     * holds credit; the PFC buffer decides what fits.
     */
    uint32_t linkBlocks =
        g_pfcOn ? (uint32_t)((g_pfc.bufferBytes + 63) / 64) + 2048 + 68 : o.vlBlocks;
    Config::SetDefault("ns3::SfabSwitch::VlBlocks", UintegerValue(linkBlocks));
    Config::SetDefault("ns3::SfabHca::RateMbps", UintegerValue(o.hcaMbps));
    Config::SetDefault("ns3::SfabHca::RxDrainMbps", UintegerValue(o.hcaRxMbps));
    Config::SetDefault("ns3::SfabHca::AckPsnAligned", BooleanValue(o.ackPsnAligned));
    Config::SetDefault("ns3::SfabHca::TxProcessing", TimeValue(NanoSeconds(o.hcaProcNs)));
    Config::SetDefault("ns3::SfabHca::RxProcessing", TimeValue(NanoSeconds(o.hcaProcNs)));
    Config::SetDefault("ns3::SfabHca::VlBlocks", UintegerValue(linkBlocks));
    Config::SetDefault("ns3::SfabHca::Mtu", UintegerValue(o.mtu));
}

/* an HCA's messages are posted by the rank that simulates it */
bool
Local(Ptr<SfabHca> h)
{
    return SfabMpi::Local(h->GetPortDevice()->GetNode());
}

void
Post(Ptr<SfabHca> h, uint32_t dlid, uint32_t bytes, uint32_t count)
{
    if (!Local(h))
    {
        return;
    }
    for (uint32_t i = 0; i < count; i++)
    {
        h->Send(dlid, bytes);
    }
}

/* one small message, idle fabric: each switch's hop and the whole way */
int
OneMessage(const Opts& o, SfabFabric& f, uint32_t hops)
{
    uint32_t bytes = o.bytes ? o.bytes : 64;

    BringUp(f, [&f, bytes]() { Post(f.GetHca(0), f.GetHca(1)->GetLid(), bytes, 1); });
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();

    SfabStats& st = SfabStats::Get();
    uint64_t hopMin = UINT64_MAX, hopMax = 0;
    for (uint32_t s = 0; s < f.GetNSwitches(); s++)
    {
        /* the port toward HCA 1: the data packet's way out */
        for (uint32_t p = 1; p <= f.GetSwitch(s)->GetNPorts(); p++)
        {
            struct sfab_sim_port_stats ps;

            f.GetSwitch(s)->GetPortStats(p, &ps);
            if (ps.lat_count && ps.xmit_bytes > 64)
            {
                hopMin = std::min(hopMin, ps.lat_min_ns);
                hopMax = std::max(hopMax, ps.lat_max_ns);
            }
        }
    }
    Out("hops", hops);
    Out("bytes", bytes);
    Out("frame_bytes", sfab_sim_pkt_len(SFAB_SIM_RC_ONLY, bytes));
    Out("hop_ns_config", o.hopNs);
    Out("prop_ns", o.propNs);
    Out("hca_proc_ns", o.hcaProcNs);
    Out("hca_mbps", o.hcaMbps);
    Out("switch_hop_min_ns", hopMin == UINT64_MAX ? 0 : hopMin);
    Out("switch_hop_max_ns", hopMax);
    Out("e2e_ns", st.msgs.empty() ? 0 : st.msgs[0].doneNs - st.msgs[0].postedNs);
    FabricReport(f);
    return st.msgs.size() == 1 ? 0 : 1;
}

int
Incast(const Opts& o)
{
    SfabFabric f;
    uint32_t n = o.senders;
    uint32_t bytes = o.bytes ? o.bytes : 65536;
    uint32_t count = o.count ? o.count : 64;

    SfabFabric::Star(f, n + 1, NanoSeconds(o.propNs));
    for (uint32_t p = 1; !o.pcapDir.empty() && p <= n + 1; p++)
    {
        std::string path = o.pcapDir + "/port" + std::to_string(p) + ".pcap";
        int err = f.GetSwitch(0)->Capture(p, path);

        if (err)
        {
            std::fprintf(stderr, "sfab-sim: %s: %s\n", path.c_str(), std::strerror(err));
            return 2;
        }
    }
    /*
     * --pingpong: the receiver sends each message back as it is in, and a
     * sender posts its next once its echo is in: COUNT each way
     */
    for (uint32_t i = 0; i < o.firstPsn.size() / 2; i++)
    {
        uint32_t rxLid = f.GetHca(n)->GetLid(), txLid = f.GetHca(i)->GetLid();

        f.GetHca(i)->SetFirstPsn(rxLid, o.firstPsn[i]);
        f.GetHca(n)->SetPeerFirstPsn(txLid, o.firstPsn[i]);
        f.GetHca(n)->SetFirstPsn(txLid, o.firstPsn[n + i]);
        f.GetHca(i)->SetPeerFirstPsn(rxLid, o.firstPsn[n + i]);
    }
    std::vector<uint32_t> posted(n, 1);
    if (o.pingpong)
    {
        /* plain pointers: the fabric holds the HCAs, a callback must not */
        SfabHca* rx = PeekPointer(f.GetHca(n));
        rx->SetRecvCallback([rx](uint32_t src, uint32_t b) { rx->Send(src, b); });
        for (uint32_t i = 0; i < n; i++)
        {
            SfabHca* tx = PeekPointer(f.GetHca(i));
            uint32_t* sent = &posted[i];
            tx->SetRecvCallback([tx, sent, count, bytes](uint32_t src, uint32_t b) {
                if (*sent < count)
                {
                    (*sent)++;
                    tx->Send(src, bytes);
                }
            });
        }
    }
    /* HCA n receives; 0..n-1 send */
    BringUp(f, [&f, n, bytes, count, &o]() {
        for (uint32_t i = 0; i < n; i++)
        {
            Post(f.GetHca(i), f.GetHca(n)->GetLid(), bytes, o.pingpong ? 1 : count);
        }
    });
    Simulator::Stop(NanoSeconds((uint64_t)(o.limitMs * 1e6)));
    Simulator::Run();

    SfabStats& st = SfabStats::Get();
    struct sfab_sim_port_stats toRx;
    f.GetSwitch(0)->GetPortStats(n + 1, &toRx);
    uint64_t span = st.lastRxNs > st.firstRxNs ? st.lastRxNs - st.firstRxNs : 1;
    uint64_t pending = 0;
    for (uint32_t i = 0; i < n; i++)
    {
        pending += f.GetHca(i)->GetPending();
    }
    uint64_t expected = (uint64_t)n * count * (o.pingpong ? 2 : 1);
    Out("senders", n);
    Out("bytes", bytes);
    Out("count", count);
    Out("pingpong", o.pingpong);
    Out("expected_messages", expected);
    Out("pending", pending);
    Out("rx_payload_bytes", st.dataBytes);
    Out("rx_span_ns", span);
    /* what the receiver's cable carried, LRH to ICRC, against its rate */
    OutF("rx_wire_gbps", toRx.xmit_bytes * 8.0 / span);
    OutF("rx_payload_gbps", st.dataBytes * 8.0 / span);
    OutF("line_gbps", o.hcaMbps / 1000.0);
    Out("tx_data_pkts", st.txDataPkts);
    Out("rx_data_pkts", st.dataPkts);
    Out("tx_acks", st.txAcks);
    /* each HCA: its LID, its switch port, its port's credit wait */
    for (uint32_t i = 0; i <= n; i++)
    {
        struct sfab_sim_port_stats ps;

        f.GetSwitch(0)->GetPortStats(i + 1, &ps);
        std::printf("hca_%u=lid %u port %u credit_wait_ns %llu\n", i, f.GetHca(i)->GetLid(),
                    i + 1, (unsigned long long)f.GetHca(i)->GetTxWaitNs());
        std::printf("switch_port_%u=xmit_pkts %llu rcv_pkts %llu xmit_wait_ns %llu\n", i + 1,
                    (unsigned long long)ps.xmit_pkts, (unsigned long long)ps.rcv_pkts,
                    (unsigned long long)ps.xmit_wait_ns);
    }
    FabricReport(f);
    return st.msgs.size() == expected ? 0 : 1;
}

/*
 * what the fat-tree runs report: every HCA receives at once, so the mean
 * receive rate against one link's
 */
int
FatTreeReport(const Opts& o, SfabFabric& f, uint64_t expected)
{
    SfabStats& st = SfabStats::Get();
    uint64_t first = FirstRxNs(), last = LastRxNs();
    uint64_t span = last > first ? last - first : 1;
    uint64_t bytes = SfabMpi::Sum(st.dataBytes);

    Out("hcas", f.GetNHcas());
    Out("switches", f.GetNSwitches());
    Out("expected_messages", expected);
    Out("rx_payload_bytes", bytes);
    Out("rx_span_ns", span);
    OutF("rx_payload_gbps_per_hca", bytes * 8.0 / span / f.GetNHcas());
    OutF("line_gbps", o.hcaMbps / 1000.0);
    if (SfabMpi::Rank() == 0)
    {
        std::printf("topo=%s\n", o.topo.c_str());
    }
    FabricReport(f);
    PathReport(f);
    return SfabMpi::Sum(st.msgs.size()) == expected ? 0 : 1;
}

int
AllToAll(const Opts& o)
{
    SfabFabric f;
    uint32_t bytes = o.bytes ? o.bytes : 16384;
    uint32_t count = o.count ? o.count : 4;

    BuildFabric(o, f);
    uint32_t h = f.GetNHcas();
    BringUp(f, [&f, h, bytes, count]() {
        for (uint32_t i = 0; i < h; i++)
        {
            for (uint32_t k = 1; k < h; k++)
            {
                Post(f.GetHca(i), f.GetHca((i + k) % h)->GetLid(), bytes, count);
            }
        }
    }, (uint64_t)h * (h - 1) * count);
    Simulator::Stop(NanoSeconds((uint64_t)(o.limitMs * 1e6)));
    Simulator::Run();

    Out("bytes", bytes);
    Out("count", count);
    return FatTreeReport(o, f, (uint64_t)h * (h - 1) * count);
}

int
Permutation(const Opts& o)
{
    SfabFabric f;
    uint32_t bytes = o.bytes ? o.bytes : 65536;
    uint32_t count = o.count ? o.count : 16;

    BuildFabric(o, f);
    uint32_t h = f.GetNHcas();
    if (h < 2)
    {
        if (SfabMpi::Rank() == 0)
        {
            std::fprintf(stderr, "sfab-sim: a permutation needs 2 HCAs or more\n");
        }
        return 2;
    }
    /* a random derangement: shuffle until no HCA is its own partner */
    std::vector<uint32_t> to(h);
    std::mt19937 rng(o.seed);
    bool fixed;
    do
    {
        for (uint32_t i = 0; i < h; i++)
        {
            to[i] = i;
        }
        std::shuffle(to.begin(), to.end(), rng);
        fixed = false;
        for (uint32_t i = 0; i < h; i++)
        {
            fixed |= to[i] == i;
        }
    } while (fixed);
    BringUp(f, [&f, &to, h, bytes, count]() {
        for (uint32_t i = 0; i < h; i++)
        {
            Post(f.GetHca(i), f.GetHca(to[i])->GetLid(), bytes, count);
        }
    }, (uint64_t)h * count);
    Simulator::Stop(NanoSeconds((uint64_t)(o.limitMs * 1e6)));
    Simulator::Run();
    Out("bytes", bytes);
    Out("count", count);
    Out("seed", o.seed);
    return FatTreeReport(o, f, (uint64_t)h * count);
}

/*
 * A leaf's up-link to spine 0 pulled under load: every HCA streams to the
 * one a leaf on (i + per), so leaf 0 sends through the cable and another
 * leaf receives through it.  The leaf moves its destinations to its other
 * up-links as soon as it sees the port go; spine 0 has no other way down
 * to leaf 0 and tells the other leaves, which move off it.  Reports when
 * the first packet took an alternate, on either side, and where packets
 * were lost.
 */
int
Failover(const Opts& o)
{
    SfabFabric f;
    uint32_t bytes = o.bytes ? o.bytes : 65536;
    uint32_t count = o.count ? o.count : 32;
    uint64_t failAt = 0;
    Ptr<SfabChannel> cable;

    if (o.leaves < 2 || o.spines < 2)
    {
        std::fprintf(stderr, "sfab-sim: failover needs 2 leaves and 2 spines or more\n");
        return 2;
    }
    SfabFabric::FatTree(f, o.leaves, o.spines, o.per, NanoSeconds(o.propNs));
    if (o.failover)
    {
        f.EnableFailover();
    }
    uint32_t h = f.GetNHcas();
    /* leaf 0's first up-link: to spine 0 (FatTree's cabling) */
    SfabFabric::End up = SfabFabric::SwPort(0, o.per + 1);
    SfabFabric::End far = f.SwPeer(0, o.per + 1);
    uint32_t spine = far.sw;
    BringUp(f, [&f, &o, &failAt, &cable, up, h, bytes, count]() {
        for (uint32_t i = 0; i < h; i++)
        {
            Post(f.GetHca(i), f.GetHca((i + o.per) % h)->GetLid(), bytes, count);
        }
        failAt = Simulator::Now().GetNanoSeconds() + o.failNs;
        Simulator::Schedule(NanoSeconds(o.failNs), [&f, &cable, up, &o]() {
            cable = f.Pull(up, NanoSeconds(o.detectNs));
        });
    }, (uint64_t)h * count);
    Simulator::Stop(NanoSeconds((uint64_t)(o.limitMs * 1e6)));
    Simulator::Run();

    SfabStats& st = SfabStats::Get();
    struct sfab_sim_fo_stats leaf, sp;
    uint64_t remoteNs = 0, remoteMinNs = UINT64_MAX, remoteMovedNs = 0, frnTaken = 0, movedRemote = 0, leafDisc = 0, spineDisc = 0,
             otherDisc = 0, after = 0;

    f.GetSwitch(0)->GetFailoverStats(&leaf);
    f.GetSwitch(spine)->GetFailoverStats(&sp);
    for (uint32_t s = 0; s < f.GetNSwitches(); s++)
    {
        struct sfab_sim_fo_stats fs;
        uint64_t disc = 0;

        f.GetSwitch(s)->GetFailoverStats(&fs);
        if (s != 0 && s != spine && fs.frn_taken)
        {
            frnTaken += fs.frn_taken;
            remoteMovedNs = std::max(remoteMovedNs, fs.last_ns - failAt);
            movedRemote += fs.moved;
            if (fs.first_tx_ns)
            {
                remoteNs = std::max(remoteNs, fs.first_tx_ns - failAt);
                remoteMinNs = std::min(remoteMinNs, fs.first_tx_ns - failAt);
            }
        }
        for (uint32_t p = 1; p <= f.GetSwitch(s)->GetNPorts(); p++)
        {
            struct sfab_sim_port_stats ps;

            f.GetSwitch(s)->GetPortStats(p, &ps);
            disc += ps.xmit_discards;
        }
        (s == 0 ? leafDisc : s == spine ? spineDisc : otherDisc) += disc;
    }
    for (const auto& m : st.msgs)
    {
        /* messages through the pulled cable, either way, done after it */
        bool via = m.src <= o.per || m.dst <= o.per;
        after += via && m.doneNs > failAt + 1000;
    }
    uint64_t lost = cable ? cable->GetLostData() : 0;
    Out("bytes", bytes);
    Out("count", count);
    Out("failover", o.failover);
    Out("fail_ns", failAt);
    Out("detect_ns", o.detectNs);
    Out("leaf_moved", leaf.moved);
    Out("leaf_moved_ns", leaf.events ? leaf.last_ns - failAt : 0);
    Out("leaf_requeued", leaf.requeued);
    Out("leaf_sent_alt", leaf.sent_alt);
    Out("leaf_first_alt_ns", leaf.first_tx_ns ? leaf.first_tx_ns - failAt : 0);
    Out("spine_unreachable", sp.unreachable);
    Out("spine_frn_sent", sp.frn_sent);
    Out("spine_bounced", sp.bounced);
    Out("remote_frn_taken", frnTaken);
    Out("remote_moved", movedRemote);
    Out("remote_moved_ns", remoteMovedNs);
    /* the first packet any of them sent on an alternate, and the last
     * one's first (a leaf with no traffic there sends only ACKs) */
    Out("remote_first_alt_ns", remoteMinNs == UINT64_MAX ? 0 : remoteMinNs);
    Out("remote_first_alt_max_ns", remoteNs);
    Out("tx_data_pkts", st.txDataPkts);
    Out("rx_data_pkts", st.dataPkts);
    Out("tx_acks", st.txAcks);
    Out("rx_acks", st.rxAcks);
    /* frames the endpoints sent that no endpoint received */
    Out("lost_pkts", st.txDataPkts + st.txAcks - st.dataPkts - st.rxAcks);
    Out("lost_on_cable", lost);
    Out("leaf_discards", leafDisc);
    Out("spine_discards", spineDisc);
    Out("other_discards", otherDisc);
    Out("msgs_after_fail_via_cable", after);
    return FatTreeReport(o, f, (uint64_t)h * count) == 2 ? 2 : 0;
}

struct TraceMsg
{
    uint64_t t;
    uint32_t src, dst, bytes;
};

int
Trace(const Opts& o)
{
    SfabFabric f;
    std::vector<TraceMsg> msgs;
    std::ifstream in(o.trace);
    std::string line;
    unsigned int n = 0;

    if (!in)
    {
        if (SfabMpi::Rank() == 0)
        {
            std::fprintf(stderr, "sfab-sim: --trace=%s: cannot be read\n", o.trace.c_str());
        }
        return 2;
    }
    BuildFabric(o, f);
    while (std::getline(in, line))
    {
        std::istringstream ls(line);
        long long t, src, dst, bytes;
        std::string rest;

        n++;
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#')
        {
            continue;
        }
        if (!(ls >> t >> src >> dst >> bytes) || (ls >> rest) || t < 0 || src < 0 ||
            dst < 0 || src >= f.GetNHcas() || dst >= f.GetNHcas() || src == dst ||
            bytes < 1 || bytes > (1LL << 30))
        {
            if (SfabMpi::Rank() != 0)
            {
                return 2;
            }
            std::fprintf(stderr,
                         "sfab-sim: %s:%u: want \"TIME_NS SRC DST BYTES\" with SRC and DST "
                         "different HCAs 0..%u and BYTES 1..2^30: '%s'\n",
                         o.trace.c_str(), n, f.GetNHcas() - 1, line.c_str());
            return 2;
        }
        msgs.push_back({(uint64_t)t, (uint32_t)src, (uint32_t)dst, (uint32_t)bytes});
    }
    BringUp(f, [&f, &msgs]() {
        for (const TraceMsg& m : msgs)
        {
            Ptr<SfabHca> src = f.GetHca(m.src);

            if (Local(src))
            {
                Simulator::ScheduleWithContext(src->GetPortDevice()->GetNode()->GetId(),
                                               NanoSeconds(m.t), &Post, src,
                                               f.GetHca(m.dst)->GetLid(), m.bytes, 1);
            }
        }
    }, msgs.size());
    Simulator::Stop(NanoSeconds((uint64_t)(o.limitMs * 1e6)));
    Simulator::Run();
    Out("trace_messages", msgs.size());
    return FatTreeReport(o, f, msgs.size());
}

/*
 * Congestion and its victims, on the fat tree: HCA 0 is the hot spot.  The
 * HCAs off its leaf whose LID the leaves route by HCA 0's spine (D mod K:
 * LID mod spines) are the victims' destinations; of the other HCAs off its
 * leaf, the first SENDERS (round robin over the leaves) send HCA 0 COUNT
 * messages of BYTES at once, the incast, and the rest are the victims.
 * Victim i sends messages of one size, 4 KiB, 64 KiB or 1 MiB by turns, to
 * a destination on another leaf, at uniformly random times over the window
 * (the incast's time at HCA 0's line rate, or WINDOW_US), VICTIM_LOAD of
 * its line rate.  A victim shares no port with HCA 0, but its packets
 * share the spine's input queue from its leaf with the incast's: what the
 * flow control makes of that is its latency.
 */
int
Victim(const Opts& o)
{
    SfabFabric f;
    uint32_t bytes = o.bytes ? o.bytes : 65536;
    uint32_t count = o.count ? o.count : 48;
    std::vector<uint32_t> senders, victims, dests;
    static const uint32_t kSizes[3] = {4096, 65536, 1048576};
    static const char* const kNames[3] = {"4k", "64k", "1m"};

    SfabFabric::FatTree(f, o.leaves, o.spines, o.per, NanoSeconds(o.propNs));
    uint32_t hotSpine = f.GetHca(0)->GetLid() % o.spines;
    std::vector<uint32_t> others;
    for (uint32_t pos = 0; pos < o.per; pos++)
    {
        for (uint32_t l = 1; l < o.leaves; l++)
        {
            uint32_t i = l * o.per + pos;

            if (f.GetHca(i)->GetLid() % o.spines == hotSpine)
            {
                dests.push_back(i);
            }
            else
            {
                others.push_back(i);
            }
        }
    }
    for (uint32_t i : others)
    {
        (senders.size() < o.senders ? senders : victims).push_back(i);
    }
    if (senders.size() < o.senders || victims.size() < 3 || o.leaves < 3 ||
        o.victimLoad <= 0 || o.victimLoad > 1)
    {
        std::fprintf(stderr,
                     "sfab-sim: victim: %u senders and three victims off HCA 0's leaf, of "
                     "%zu HCAs there that the leaves do not route by HCA 0's spine, on 3 "
                     "leaves or more (--per=8), and a victim load in (0, 1]\n",
                     o.senders, others.size());
        return 2;
    }
    std::mt19937 rng(o.seed);
    uint64_t window = o.windowUs > 0 ? (uint64_t)(o.windowUs * 1000)
                                     : sfab_sim_ser_ns(o.hcaMbps, (uint64_t)bytes * count *
                                                                      std::max(o.senders, 1U));
    struct Posting
    {
        uint64_t t;
        uint32_t src, dst, bytes;
    };
    std::vector<Posting> posts;
    for (uint32_t v = 0; v < victims.size(); v++)
    {
        uint32_t size = kSizes[v % 3];
        uint32_t leaf = victims[v] / o.per;
        uint32_t dst = dests[(v + 1) % dests.size()];
        uint64_t n = std::max<uint64_t>(
            1, (uint64_t)(o.victimLoad * window * o.hcaMbps / 8000.0 / size));

        for (uint32_t k = 0; dst / o.per == leaf && k < dests.size(); k++)
        {
            dst = dests[(v + 1 + k) % dests.size()];
        }
        for (uint64_t i = 0; i < n; i++)
        {
            posts.push_back(
                {std::uniform_int_distribution<uint64_t>(0, window)(rng), victims[v], dst, size});
        }
    }
    BringUp(f, [&f, &senders, &posts, bytes, count]() {
        for (uint32_t s : senders)
        {
            Post(f.GetHca(s), f.GetHca(0)->GetLid(), bytes, count);
        }
        for (const Posting& p : posts)
        {
            Simulator::Schedule(NanoSeconds(p.t), &Post, f.GetHca(p.src),
                                f.GetHca(p.dst)->GetLid(), p.bytes, 1);
        }
    });
    Simulator::Stop(NanoSeconds((uint64_t)(o.limitMs * 1e6)));
    Simulator::Run();

    SfabStats& st = SfabStats::Get();
    uint32_t hot = f.GetHca(0)->GetLid();
    uint64_t upNs = f.GetUpTime().GetNanoSeconds();
    uint64_t incastMsgs = 0, incastBytes = 0, incastEnd = 0, victimMsgs = 0;
    std::vector<uint64_t> lat[3];
    for (const auto& m : st.msgs)
    {
        if (m.dst == hot)
        {
            incastMsgs++;
            incastBytes += m.bytes;
            incastEnd = std::max(incastEnd, m.doneNs);
            continue;
        }
        victimMsgs++;
        for (uint32_t k = 0; k < 3; k++)
        {
            if (m.bytes == kSizes[k])
            {
                lat[k].push_back(m.doneNs - m.postedNs);
            }
        }
    }
    Out("incast_senders", senders.size());
    Out("victims", victims.size());
    Out("bytes", bytes);
    Out("count", count);
    Out("seed", o.seed);
    Out("window_ns", window);
    Out("incast_expected", (uint64_t)senders.size() * count);
    Out("incast_messages", incastMsgs);
    OutF("incast_gbps", incastEnd > upNs ? incastBytes * 8.0 / (incastEnd - upNs) : 0);
    Out("victim_expected", posts.size());
    Out("victim_messages", victimMsgs);
    for (uint32_t k = 0; k < 3; k++)
    {
        std::string n = std::string("victim_") + kNames[k];
        Out((n + "_n").c_str(), lat[k].size());
        Out((n + "_p50_ns").c_str(), Pct(lat[k], 50));
        Out((n + "_p99_ns").c_str(), Pct(lat[k], 99));
        Out((n + "_p999_ns").c_str(), Pct(lat[k], 99.9));
        Out((n + "_max_ns").c_str(),
            lat[k].empty() ? 0 : *std::max_element(lat[k].begin(), lat[k].end()));
    }
    return FatTreeReport(o, f, (uint64_t)senders.size() * count + posts.size());
}

/* why the --topo options make no fabric, or nullptr */
const char*
TopoInvalid(const Opts& o)
{
    if (o.topo == "fat2")
    {
        return nullptr; /* main's checks */
    }
    if (o.topo == "fat3")
    {
        if (!o.pods || !o.cores || o.pods > SFAB_SIM_MAX_PORTS ||
            o.leaves + o.cores > SFAB_SIM_MAX_PORTS)
        {
            return "--pods and --cores 1 or more, a core switch's --pods and an "
                   "aggregation switch's --leaves + --cores at most 254 ports";
        }
        return nullptr;
    }
    if (o.topo == "dragonfly")
    {
        if (o.groups < 2 || !o.routers || !o.globals ||
            (uint64_t)o.per + o.routers - 1 + o.globals > SFAB_SIM_MAX_PORTS)
        {
            return "--groups 2 or more, --routers and --globals 1 or more, a switch's "
                   "--per + --routers - 1 + --globals at most 254 ports";
        }
        if (o.groups - 1 > (uint64_t)o.routers * o.globals)
        {
            return "every pair of groups needs a global cable: --groups - 1 at most "
                   "--routers x --globals";
        }
        return nullptr;
    }
    return "not fat2, fat3 or dragonfly";
}

/* the most HCAs a scenario's fabric has with these options */
uint64_t
MaxHcas(const Opts& o)
{
    uint64_t n = std::max<uint64_t>(2, (uint64_t)o.senders + 1);

    n = std::max<uint64_t>(n, (uint64_t)o.leaves * o.per);
    if (o.topo == "fat3")
    {
        n = std::max<uint64_t>(n, (uint64_t)o.pods * o.leaves * o.per);
    }
    if (o.topo == "dragonfly")
    {
        n = std::max<uint64_t>(n, (uint64_t)o.groups * o.routers * o.per);
    }
    return n;
}

} // namespace

/* what each rank did, rank 0 printing: mpi_rankR_KEY=value */
void
RankReport(const char* key, uint64_t v)
{
    std::vector<uint64_t> all = SfabMpi::Gather(std::vector<uint64_t>{v});

    for (uint32_t r = 0; r < all.size(); r++)
    {
        std::printf("mpi_rank%u_%s=%llu\n", r, key, (unsigned long long)all[r]);
    }
}

int
Main(int argc, char* argv[])
{
    Opts o;
    CommandLine cmd(__FILE__);
    int rc;
    bool tell = SfabMpi::Rank() == 0; /* one rank says what is wrong */

    cmd.AddValue("scenario", "hop-latency, three-hop, incast, alltoall", o.scenario);
    cmd.AddValue("hop-ns", "switch hop latency, cut-through (ns)", o.hopNs);
    cmd.AddValue("prop-ns", "cable propagation delay (ns)", o.propNs);
    cmd.AddValue("hca-proc-ns", "HCA processing, each way (ns)", o.hcaProcNs);
    cmd.AddValue("hca-mbps", "HCA port rate (Mb/s)", o.hcaMbps);
    cmd.AddValue("hca-rx-mbps",
                 "the rate an HCA takes frames off its port at, holding their credit "
                 "until then (Mb/s; 0: at once)",
                 o.hcaRxMbps);
    cmd.AddValue("switch-mbps", "switch port rate (Mb/s)", o.swMbps);
    cmd.AddValue("bytes", "message size (scenario's default: 0)", o.bytes);
    cmd.AddValue("count", "messages per sender and destination (default: 0)", o.count);
    cmd.AddValue("senders", "incast: senders", o.senders);
    cmd.AddValue("leaves", "alltoall: leaf switches", o.leaves);
    cmd.AddValue("spines", "alltoall: spine switches", o.spines);
    cmd.AddValue("per", "alltoall: HCAs per leaf", o.per);
    cmd.AddValue("vl-blocks", "input buffer per port and VL (64-byte blocks)", o.vlBlocks);
    cmd.AddValue("mtu", "path MTU", o.mtu);
    cmd.AddValue("limit-ms", "virtual time the run may take (ms)", o.limitMs);
    cmd.AddValue("seed", "permutation: its random seed", o.seed);
    cmd.AddValue("trace", "trace: the message trace file", o.trace);
    cmd.AddValue("failover", "failover: fast failover on the switches (0 or 1)", o.failover);
    cmd.AddValue("fail-ns", "failover: pull the cable this long after traffic starts (ns)",
                 o.failNs);
    cmd.AddValue("detect-ns", "failover: a switch sees its port go this long after (ns)",
                 o.detectNs);
    cmd.AddValue("victim-load", "victim: each victim's load, of its line rate", o.victimLoad);
    cmd.AddValue("window-us", "victim: victims post over this time (0: the incast's)", o.windowUs);
    cmd.AddValue("flow-control",
                 "credit (the product's links), pfc or lossy (the PFC baseline)",
                 o.flowControl);
    cmd.AddValue("pfc-buffer", "PFC: ingress buffer per port and priority, bytes "
                 "(0: vl-blocks x 64)", o.pfcBuffer);
    cmd.AddValue("pfc-xoff", "PFC: PAUSE at this many bytes held (-1: buffer less headroom)",
                 o.pfcXoff);
    cmd.AddValue("pfc-xon", "PFC: XON at this many bytes (-1: XOFF less two frames)", o.pfcXon);
    cmd.AddValue("pfc-quanta", "PFC: pause quanta a PAUSE asks (512 bit times each)", o.pfcQuanta);
    cmd.AddValue("pfc-response-ns", "PFC: PAUSE in to the transmitter held (ns)",
                 o.pfcResponseNs);
    cmd.AddValue("topo", "alltoall, permutation, trace: fat2, fat3 or dragonfly", o.topo);
    cmd.AddValue("pods", "fat3: pods", o.pods);
    cmd.AddValue("cores", "fat3: core switches per aggregation index", o.cores);
    cmd.AddValue("groups", "dragonfly: groups", o.groups);
    cmd.AddValue("routers", "dragonfly: switches per group", o.routers);
    cmd.AddValue("globals", "dragonfly: global ports per switch", o.globals);
    cmd.AddValue("sample-us",
                 "sample the received payload every this many us of virtual time and end "
                 "the run when every message is in (0: run to --limit-ms)",
                 o.sampleUs);
    cmd.AddValue("series", "with --sample-us: write the samples to this file", o.series);
    cmd.AddValue("lat-file", "write every message's latency to this file", o.latFile);
    cmd.AddValue("pingpong", "incast: the receiver echoes every message (0 or 1)", o.pingpong);
    cmd.AddValue("pcap-dir", "incast: capture every switch port to DIR/portP.pcap",
                 o.pcapDir);
    cmd.AddValue("first-psns",
                 "incast: the connections' first PSNs, 2 x SENDERS of them: each sender's "
                 "to the receiver, then the receiver's to each sender (default: all 0)",
                 o.firstPsns);
    cmd.AddValue("ack-psn-aligned",
                 "ask for an ACK on every PSN that is 15 modulo 16, as the live HCA "
                 "engine does, not every 16 packets (0 or 1)",
                 o.ackPsnAligned);
    cmd.AddValue("lid-base",
                 "the first HCA's LID, 1..0xbfff or 0x10000..0xefffff (the extended "
                 "LIDs, 24 bits); LIDs past 0xbfff go on at 0x10000",
                 o.lidBase);
    cmd.Parse(argc, argv);

    if ((o.senders < 1 && o.scenario != "victim") || o.senders > SFAB_SIM_MAX_PORTS - 1 || o.leaves < 1 || o.spines < 1 ||
        o.per < 1 || o.per + o.spines > SFAB_SIM_MAX_PORTS || o.leaves > SFAB_SIM_MAX_PORTS ||
        o.hcaMbps < 1000 || o.swMbps < 1000 ||
        (o.hcaRxMbps && o.hcaRxMbps < 1000) ||
        o.limitMs <= 0 || o.failNs > o.limitMs * 1e6 || o.detectNs > 1000000000 ||
        o.vlBlocks < 68 || o.vlBlocks > (1U << 20) ||
        (o.mtu != 256 && o.mtu != 512 && o.mtu != 1024 && o.mtu != 2048 && o.mtu != 4096))
    {
        if (tell)
        {
            std::fprintf(stderr, "sfab-sim: an option is out of range (--PrintHelp)\n");
        }
        return 2;
    }
    if (o.scenario != "hop-latency" && o.scenario != "three-hop" && o.scenario != "incast" &&
        o.scenario != "alltoall" && o.scenario != "permutation" && o.scenario != "trace" &&
        o.scenario != "failover" && o.scenario != "victim")
    {
        if (tell)
        {
            std::fprintf(stderr,
                         "sfab-sim: --scenario=hop-latency|three-hop|incast|alltoall|"
                         "permutation|trace|failover|victim, not '%s'\n",
                         o.scenario.c_str());
        }
        return 2;
    }
    /*
     * over MPI ranks: the two-level fat tree's scenarios with credit, a
     * rank for a leaf group at least; no sampling (it counts messages in
     * one process)
     */
    if (SfabMpi::Size() > 1 &&
        ((o.scenario != "alltoall" && o.scenario != "permutation" && o.scenario != "trace") ||
         (o.topo != "fat2" && o.topo != "fat3") || o.flowControl != "credit" || o.sampleUs ||
         !o.series.empty() || !o.latFile.empty() || o.propNs < 1 ||
         (o.topo == "fat2" ? o.leaves : o.pods) < SfabMpi::Size()))
    {
        if (tell)
        {
            std::fprintf(stderr,
                         "sfab-sim: on %u MPI ranks: --scenario=alltoall|permutation|trace "
                         "on --topo=fat2 (--leaves=%u or more) or fat3 (--pods=%u or more) "
                         "with --flow-control=credit, --prop-ns=1 or more, and no "
                         "--sample-us, --series or --lat-file\n",
                         SfabMpi::Size(), SfabMpi::Size(), SfabMpi::Size());
        }
        return 2;
    }
    struct stat sb;
    if ((o.pingpong || !o.pcapDir.empty() || !o.firstPsns.empty()) && o.scenario != "incast")
    {
        std::fprintf(stderr, "sfab-sim: --pingpong, --pcap-dir and --first-psns are incast's\n");
        return 2;
    }
    if (!o.firstPsns.empty())
    {
        std::istringstream in(o.firstPsns);
        std::string w;

        while (std::getline(in, w, ','))
        {
            char* end = nullptr;
            unsigned long v = std::strtoul(w.c_str(), &end, 0);

            if (w.empty() || *end || v > 0xffffff)
            {
                std::fprintf(stderr, "sfab-sim: --first-psns: '%s' is no PSN\n", w.c_str());
                return 2;
            }
            o.firstPsn.push_back(v);
        }
        if (o.firstPsn.size() != 2 * (size_t)o.senders)
        {
            std::fprintf(stderr, "sfab-sim: --first-psns: %zu PSNs for %u senders, not %u\n",
                         o.firstPsn.size(), o.senders, 2 * o.senders);
            return 2;
        }
    }
    if (!o.pcapDir.empty() && (stat(o.pcapDir.c_str(), &sb) || !S_ISDIR(sb.st_mode)))
    {
        std::fprintf(stderr, "sfab-sim: --pcap-dir=%s: not a directory\n", o.pcapDir.c_str());
        return 2;
    }
    if (o.flowControl != "credit" && o.flowControl != "pfc" && o.flowControl != "lossy")
    {
        std::fprintf(stderr, "sfab-sim: --flow-control=credit|pfc|lossy, not '%s'\n",
                     o.flowControl.c_str());
        return 2;
    }
    g_pfcOn = o.flowControl != "credit";
    g_pfc.pause = o.flowControl == "pfc";
    g_pfc.bufferBytes = o.pfcBuffer ? o.pfcBuffer : (uint64_t)o.vlBlocks * 64;
    g_pfc.xoffBytes = o.pfcXoff;
    g_pfc.xonBytes = o.pfcXon;
    g_pfc.quanta = o.pfcQuanta;
    g_pfc.responseNs = o.pfcResponseNs;
    g_pfc.propNs = o.propNs;
    if (!g_pfcOn && (o.pfcBuffer || o.pfcXoff != -1 || o.pfcXon != -1 || o.pfcQuanta != 0xffff ||
                     o.pfcResponseNs != 500))
    {
        std::fprintf(stderr, "sfab-sim: the --pfc-* options are for --flow-control=pfc|lossy\n");
        return 2;
    }
    if (g_pfcOn)
    {
        /* the fastest link's headroom: the switch ports' */
        uint64_t head = SfabPfcPort::Headroom(g_pfc, o.swMbps);
        uint64_t frame = sfab_sim_blocks(SFAB_SIM_MAX_FRAME) * 64;
        int64_t xoff = o.pfcXoff >= 0 ? o.pfcXoff : (int64_t)g_pfc.bufferBytes - (int64_t)head;
        int64_t xon = o.pfcXon >= 0 ? o.pfcXon : xoff - 2 * (int64_t)frame;

        if (g_pfc.bufferBytes < 2 * frame || g_pfc.bufferBytes > (32U << 20) ||
            o.pfcQuanta < 1 || o.pfcQuanta > 0xffff || o.pfcResponseNs > 1000000 ||
            o.pfcXoff < -1 || o.pfcXon < -1)
        {
            std::fprintf(stderr, "sfab-sim: a --pfc-* option is out of range (--PrintHelp)\n");
            return 2;
        }
        if (g_pfc.pause && (xoff < (int64_t)frame || xoff > (int64_t)g_pfc.bufferBytes ||
                            xon < 0 || xon >= xoff))
        {
            std::fprintf(stderr,
                         "sfab-sim: PFC: %llu bytes of buffer with %llu of headroom leave "
                         "XOFF %lld and XON %lld: want a frame (%llu) <= XOFF <= the buffer, "
                         "0 <= XON < XOFF\n",
                         (unsigned long long)g_pfc.bufferBytes, (unsigned long long)head,
                         (long long)xoff, (long long)xon, (unsigned long long)frame);
            return 2;
        }
    }
    if (const char* why = TopoInvalid(o))
    {
        std::fprintf(stderr, "sfab-sim: --topo=%s: %s\n", o.topo.c_str(), why);
        return 2;
    }
    {
        const char* s = o.lidBase.c_str();
        char* end = nullptr;
        unsigned long long base;

        errno = 0;
        base = std::strtoull(s, &end, 0);
        if (!*s || *s == '-' || *end || errno || base > 0xffffffffULL ||
            !sfab_sim_lid_at((uint32_t)base, 0))
        {
            std::fprintf(stderr,
                         "sfab-sim: --lid-base=%s: not a unicast LID (1..0xbfff, "
                         "0x10000..0xefffff)\n",
                         s);
            return 2;
        }
        if (!SfabFabric::SetLidPlan((uint32_t)base, MaxHcas(o)))
        {
            std::fprintf(stderr,
                         "sfab-sim: --lid-base=%s: up to %llu HCAs' LIDs run past 0xefffff, "
                         "the last extended unicast LID\n",
                         s, (unsigned long long)MaxHcas(o));
            return 2;
        }
    }
    if (!o.series.empty() && !o.sampleUs)
    {
        std::fprintf(stderr, "sfab-sim: --series needs --sample-us\n");
        return 2;
    }
    for (const std::string* path : {&o.series, &o.latFile})
    {
        if (!path->empty() && !std::ofstream(*path))
        {
            std::fprintf(stderr, "sfab-sim: %s cannot be written\n", path->c_str());
            return 2;
        }
    }
    SetDefaults(o);
    if (o.topo == "dragonfly")
    {
        /* VL0 up to the global hop into the destination group, VL1 after */
        Config::SetDefault("ns3::SfabSwitch::DataVls", UintegerValue(2));
    }
    g_sampleUs = o.sampleUs;
    SfabStats::Get().Reset();
    if (tell)
    {
        std::printf("scenario=%s\n", o.scenario.c_str());
        std::printf("flow_control=%s\n", o.flowControl.c_str());
    }
    auto t0 = std::chrono::steady_clock::now();
    if (o.scenario == "hop-latency")
    {
        SfabFabric f;
        SfabFabric::Star(f, 2, NanoSeconds(o.propNs));
        rc = OneMessage(o, f, 1);
    }
    else if (o.scenario == "three-hop")
    {
        SfabFabric f;
        SfabFabric::Chain(f, 3, NanoSeconds(o.propNs));
        rc = OneMessage(o, f, 3);
    }
    else if (o.scenario == "incast")
    {
        rc = Incast(o);
    }
    else if (o.scenario == "alltoall")
    {
        rc = AllToAll(o);
    }
    else if (o.scenario == "permutation")
    {
        rc = Permutation(o);
    }
    else if (o.scenario == "trace")
    {
        rc = Trace(o);
    }
    else if (o.scenario == "failover")
    {
        rc = Failover(o);
    }
    else if (o.scenario == "victim")
    {
        rc = Victim(o);
    }
    else
    {
        std::fprintf(stderr,
                     "sfab-sim: --scenario=hop-latency|three-hop|incast|alltoall, not '%s'\n",
                     o.scenario.c_str());
        return 2;
    }
    if (rc == 2)
    {
        Simulator::Destroy();
        return 2; /* the scenario refused its input, before any run */
    }
    auto wall = std::chrono::steady_clock::now() - t0;
    double wallS = std::chrono::duration<double>(wall).count();
    uint64_t rankEvents = Simulator::GetEventCount();
    uint64_t rankRss = SfabProbe::MaxRssKib();
    /* over MPI ranks: events summed, the slowest rank's time, the biggest rank's RSS */
    uint64_t events = SfabMpi::Sum(rankEvents);
    uint64_t rss = SfabMpi::Max(rankRss);
    uint64_t rssAll = SfabMpi::Sum(rankRss);
    wallS = (double)SfabMpi::Max((uint64_t)(wallS * 1e6)) / 1e6;
    Out("virtual_ns", SfabMpi::Max(Simulator::Now().GetNanoSeconds()));
    Out("wall_ms", (uint64_t)(wallS * 1000));
    /* the run's cost: ns-3 events executed, peak resident memory */
    Out("events", events);
    Out("events_per_s", wallS > 0 ? (uint64_t)(events / wallS) : 0);
    /* from the traffic's start: the simulation proper, not building the fabric */
    double trafficS = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                    g_trafficWall)
                          .count();
    trafficS = (double)SfabMpi::Max((uint64_t)(trafficS * 1e6)) / 1e6;
    uint64_t trafficEvents = SfabMpi::Sum(rankEvents - g_trafficEvents);
    Out("traffic_events", trafficEvents);
    Out("traffic_wall_ms", (uint64_t)(trafficS * 1000));
    Out("traffic_events_per_s",
        trafficS > 0 ? (uint64_t)(trafficEvents / trafficS) : 0);
    Out("max_rss_kib", rss);
    OutF("rss_per_hca_kib", g_nHcas ? (double)rssAll / g_nHcas : 0);
    if (!o.series.empty() && !SfabProbe::WriteSeries(o.series, g_nHcas))
    {
        std::fprintf(stderr, "sfab-sim: %s: writing failed\n", o.series.c_str());
        rc = rc ? rc : 1;
    }
    if (!o.latFile.empty() && !SfabProbe::WriteLatencies(o.latFile))
    {
        std::fprintf(stderr, "sfab-sim: %s: writing failed\n", o.latFile.c_str());
        rc = rc ? rc : 1;
    }
#ifdef SFAB_SIM_MPI
    Out("mpi_ranks", SfabMpi::Size());
    RankReport("events", rankEvents);
    RankReport("hca_rx_pkts", SfabStats::Get().dataPkts);
    RankReport("remote_frames", SfabRemoteChannel::GetSent());
#endif
    Simulator::Destroy();
    if (tell)
    {
        std::printf("done\n");
    }
    return rc;
}

int
main(int argc, char* argv[])
{
    int rc;

    SfabMpi::Enable(&argc, &argv);
    rc = Main(argc, argv);
    SfabMpi::Disable();
    return rc;
}
