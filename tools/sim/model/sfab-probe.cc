/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sfab-probe.h"

#include "sfab-hca.h"

#include "ns3/simulator.h"

#include <cstdio>
#include <sys/resource.h>

namespace ns3
{

namespace
{
Time g_period;
uint64_t g_expected;
std::vector<std::pair<uint64_t, uint64_t>> g_samples;
} // namespace

void
SfabProbe::Start(Time period, uint64_t expected)
{
    g_period = period;
    g_expected = expected;
    g_samples.clear();
    g_samples.emplace_back(Simulator::Now().GetNanoSeconds(), SfabStats::Get().dataBytes);
    Simulator::Schedule(period, &SfabProbe::Sample);
}

void
SfabProbe::Sample()
{
    SfabStats& st = SfabStats::Get();

    g_samples.emplace_back(Simulator::Now().GetNanoSeconds(), st.dataBytes);
    if (g_expected && st.msgs.size() >= g_expected)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(g_period, &SfabProbe::Sample);
}

const std::vector<std::pair<uint64_t, uint64_t>>&
SfabProbe::Samples()
{
    return g_samples;
}

bool
SfabProbe::WriteSeries(const std::string& path, uint32_t nHcas)
{
    FILE* f = std::fopen(path.c_str(), "w");

    if (!f)
    {
        return false;
    }
    std::fprintf(f, "# t_us rx_payload_bytes gbps_per_hca (over the period before t)\n");
    for (size_t i = 1; i < g_samples.size(); i++)
    {
        uint64_t dt = g_samples[i].first - g_samples[i - 1].first;
        uint64_t db = g_samples[i].second - g_samples[i - 1].second;

        std::fprintf(f,
                     "%.3f %llu %.3f\n",
                     g_samples[i].first / 1000.0,
                     (unsigned long long)g_samples[i].second,
                     dt && nHcas ? db * 8.0 / dt / nHcas : 0.0);
    }
    return std::fclose(f) == 0;
}

bool
SfabProbe::WriteLatencies(const std::string& path)
{
    FILE* f = std::fopen(path.c_str(), "w");

    if (!f)
    {
        return false;
    }
    std::fprintf(f, "# src_lid dst_lid bytes latency_ns\n");
    for (const SfabMsgRecord& m : SfabStats::Get().msgs)
    {
        std::fprintf(f,
                     "%u %u %u %llu\n",
                     m.src,
                     m.dst,
                     m.bytes,
                     (unsigned long long)(m.doneNs - m.postedNs));
    }
    return std::fclose(f) == 0;
}

uint64_t
SfabProbe::MaxRssKib()
{
    struct rusage ru;

    return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_maxrss;
}

} // namespace ns3
