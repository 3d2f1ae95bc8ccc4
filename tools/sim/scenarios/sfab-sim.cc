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
 *                 receiver's bandwidth against its line rate, credit waits
 *   alltoall      a two-level fat tree: every HCA sends COUNT messages of
 *                 BYTES to every other at once
 *   permutation   the same fat tree: every HCA sends COUNT messages of BYTES
 *                 to one partner, a random permutation of them (SEED) with
 *                 no HCA its own partner
 *   trace         the same fat tree, messages replayed from TRACE: lines
 *                 "TIME_NS SRC DST BYTES" (HCA indices from 0; # comments),
 *                 each posted at its time after the fabric is up
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
 */
#include "../model/sfab-fabric.h"
#include "../model/sfab-probe.h"

#include "../core/sfab_sim.h"

#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

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
};

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
    g_expected = expected;
    f.Route();
    f.BringUp(MakeCallback(&StartTraffic));
}

void
Out(const char* key, uint64_t v)
{
    std::printf("%s=%llu\n", key, (unsigned long long)v);
}

void
OutF(const char* key, double v)
{
    std::printf("%s=%.4f\n", key, v);
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
        rcvErr += f.GetHca(h)->GetRcvErrors();
        hcaWait += f.GetHca(h)->GetTxWaitNs();
    }
    for (const auto& m : st.msgs)
    {
        lat.push_back(m.doneNs - m.postedNs);
    }
    Out("all_active", f.AllActive());
    Out("up_ns", f.GetUpTime().GetNanoSeconds());
    Out("messages", st.msgs.size());
    Out("seq_errors", st.seqErrors);
    Out("bad_frames", st.badFrames);
    Out("xmit_discards", discards);
    Out("rcv_errors", rcvErr);
    Out("drops", st.seqErrors + discards + rcvErr);
    Out("switch_xmit_wait_ns", wait);
    Out("hca_credit_wait_ns", hcaWait);
    Out("switch_queued", queued);
    Out("lat_p50_ns", Pct(lat, 50));
    Out("lat_p99_ns", Pct(lat, 99));
    Out("lat_p999_ns", Pct(lat, 99.9));
    Out("lat_max_ns", lat.empty() ? 0 : *std::max_element(lat.begin(), lat.end()));
    uint64_t coreBytes = 0;
    for (uint32_t s = 0; s < f.GetNSwitches(); s++)
    {
        coreBytes += f.GetSwitch(s)->GetCoreBytes();
    }
    Out("nodes", f.GetNSwitches() + f.GetNHcas());
    Out("cables", f.GetNCables());
    Out("switch_core_bytes", coreBytes);
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
        if (byLen[n])
        {
            std::printf("path_switches_%u=%llu\n", n, (unsigned long long)byLen[n]);
        }
    }
    uint32_t idle = 0;
    for (uint32_t s = 0; s < f.GetNSwitches(); s++)
    {
        uint64_t pkts = 0;

        for (uint32_t p = 1; p <= f.GetSwitch(s)->GetNPorts(); p++)
        {
            struct sfab_sim_port_stats ps;

            f.GetSwitch(s)->GetPortStats(p, &ps);
            pkts += ps.xmit_pkts;
        }
        idle += !pkts;
    }
    Out("idle_switches", idle);
}

void
SetDefaults(const Opts& o)
{
    Config::SetDefault("ns3::SfabSwitch::HopLatency", TimeValue(NanoSeconds(o.hopNs)));
    Config::SetDefault("ns3::SfabSwitch::RateMbps", UintegerValue(o.swMbps));
    Config::SetDefault("ns3::SfabSwitch::VlBlocks", UintegerValue(o.vlBlocks));
    Config::SetDefault("ns3::SfabHca::RateMbps", UintegerValue(o.hcaMbps));
    Config::SetDefault("ns3::SfabHca::TxProcessing", TimeValue(NanoSeconds(o.hcaProcNs)));
    Config::SetDefault("ns3::SfabHca::RxProcessing", TimeValue(NanoSeconds(o.hcaProcNs)));
    Config::SetDefault("ns3::SfabHca::VlBlocks", UintegerValue(o.vlBlocks));
    Config::SetDefault("ns3::SfabHca::Mtu", UintegerValue(o.mtu));
}

void
Post(Ptr<SfabHca> h, uint16_t dlid, uint32_t bytes, uint32_t count)
{
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
    /* HCA n receives; 0..n-1 send */
    BringUp(f, [&f, n, bytes, count]() {
        for (uint32_t i = 0; i < n; i++)
        {
            Post(f.GetHca(i), f.GetHca(n)->GetLid(), bytes, count);
        }
    });
    Simulator::Stop(MilliSeconds(o.limitMs));
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
    Out("senders", n);
    Out("bytes", bytes);
    Out("count", count);
    Out("expected_messages", (uint64_t)n * count);
    Out("pending", pending);
    Out("rx_payload_bytes", st.dataBytes);
    Out("rx_span_ns", span);
    /* what the receiver's cable carried, LRH to ICRC, against its rate */
    OutF("rx_wire_gbps", toRx.xmit_bytes * 8.0 / span);
    OutF("rx_payload_gbps", st.dataBytes * 8.0 / span);
    OutF("line_gbps", o.hcaMbps / 1000.0);
    FabricReport(f);
    return st.msgs.size() == (uint64_t)n * count ? 0 : 1;
}

/*
 * what the fat-tree runs report: every HCA receives at once, so the mean
 * receive rate against one link's
 */
int
FatTreeReport(const Opts& o, SfabFabric& f, uint64_t expected)
{
    SfabStats& st = SfabStats::Get();
    uint64_t span = st.lastRxNs > st.firstRxNs ? st.lastRxNs - st.firstRxNs : 1;

    Out("hcas", f.GetNHcas());
    Out("switches", f.GetNSwitches());
    Out("expected_messages", expected);
    Out("rx_payload_bytes", st.dataBytes);
    Out("rx_span_ns", span);
    OutF("rx_payload_gbps_per_hca", st.dataBytes * 8.0 / span / f.GetNHcas());
    OutF("line_gbps", o.hcaMbps / 1000.0);
    std::printf("topo=%s\n", o.topo.c_str());
    FabricReport(f);
    PathReport(f);
    return st.msgs.size() == expected ? 0 : 1;
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
    Simulator::Stop(MilliSeconds(o.limitMs));
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
        std::fprintf(stderr, "sfab-sim: a permutation needs 2 HCAs or more\n");
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
    Simulator::Stop(MilliSeconds(o.limitMs));
    Simulator::Run();
    Out("bytes", bytes);
    Out("count", count);
    Out("seed", o.seed);
    return FatTreeReport(o, f, (uint64_t)h * count);
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
        std::fprintf(stderr, "sfab-sim: --trace=%s: cannot be read\n", o.trace.c_str());
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
            Simulator::Schedule(NanoSeconds(m.t), &Post, f.GetHca(m.src),
                                f.GetHca(m.dst)->GetLid(), m.bytes, 1);
        }
    }, msgs.size());
    Simulator::Stop(MilliSeconds(o.limitMs));
    Simulator::Run();
    Out("trace_messages", msgs.size());
    return FatTreeReport(o, f, msgs.size());
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
        if ((uint64_t)o.pods * o.leaves * o.per > 0xbfff)
        {
            return "more HCAs (--pods x --leaves x --per) than IBA's 49151 unicast LIDs";
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
        if ((uint64_t)o.groups * o.routers * o.per > 0xbfff)
        {
            return "more HCAs (--groups x --routers x --per) than IBA's 49151 unicast LIDs";
        }
        return nullptr;
    }
    return "not fat2, fat3 or dragonfly";
}

} // namespace

int
main(int argc, char* argv[])
{
    Opts o;
    CommandLine cmd(__FILE__);
    int rc;

    cmd.AddValue("scenario", "hop-latency, three-hop, incast, alltoall", o.scenario);
    cmd.AddValue("hop-ns", "switch hop latency, cut-through (ns)", o.hopNs);
    cmd.AddValue("prop-ns", "cable propagation delay (ns)", o.propNs);
    cmd.AddValue("hca-proc-ns", "HCA processing, each way (ns)", o.hcaProcNs);
    cmd.AddValue("hca-mbps", "HCA port rate (Mb/s)", o.hcaMbps);
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
    cmd.Parse(argc, argv);

    if (o.senders < 1 || o.senders > SFAB_SIM_MAX_PORTS - 1 || o.leaves < 1 || o.spines < 1 ||
        o.per < 1 || o.per + o.spines > SFAB_SIM_MAX_PORTS || o.leaves > SFAB_SIM_MAX_PORTS ||
        (uint64_t)o.leaves * o.per > 0xbfff || o.hcaMbps < 1000 || o.swMbps < 1000 ||
        o.limitMs <= 0 || o.vlBlocks < 68 || o.vlBlocks > (1U << 20) ||
        (o.mtu != 256 && o.mtu != 512 && o.mtu != 1024 && o.mtu != 2048 && o.mtu != 4096))
    {
        std::fprintf(stderr, "sfab-sim: an option is out of range (--PrintHelp)\n");
        return 2;
    }
    if (o.scenario != "hop-latency" && o.scenario != "three-hop" && o.scenario != "incast" &&
        o.scenario != "alltoall" && o.scenario != "permutation" && o.scenario != "trace")
    {
        std::fprintf(stderr,
                     "sfab-sim: --scenario=hop-latency|three-hop|incast|alltoall|permutation|"
                     "trace, not '%s'\n",
                     o.scenario.c_str());
        return 2;
    }
    if (const char* why = TopoInvalid(o))
    {
        std::fprintf(stderr, "sfab-sim: --topo=%s: %s\n", o.topo.c_str(), why);
        return 2;
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
    std::printf("scenario=%s\n", o.scenario.c_str());
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
    uint64_t events = Simulator::GetEventCount();
    uint64_t rss = SfabProbe::MaxRssKib();
    Out("virtual_ns", Simulator::Now().GetNanoSeconds());
    Out("wall_ms", std::chrono::duration_cast<std::chrono::milliseconds>(wall).count());
    /* the run's cost: ns-3 events executed, peak resident memory */
    Out("events", events);
    Out("events_per_s", wallS > 0 ? (uint64_t)(events / wallS) : 0);
    /* from the traffic's start: the simulation proper, not building the fabric */
    double trafficS = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                    g_trafficWall)
                          .count();
    Out("traffic_events", events - g_trafficEvents);
    Out("traffic_wall_ms", (uint64_t)(trafficS * 1000));
    Out("traffic_events_per_s",
        trafficS > 0 ? (uint64_t)((events - g_trafficEvents) / trafficS) : 0);
    Out("max_rss_kib", rss);
    OutF("rss_per_hca_kib", g_nHcas ? (double)rss / g_nHcas : 0);
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
    Simulator::Destroy();
    std::printf("done\n");
    return rc;
}
