/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SfabProbe: what the scale runs measure beside the fabric's own counters.
 *
 * Sampling: every period of virtual time, the payload the HCAs have
 * received so far (a throughput-over-time series), and the run stopped
 * once every expected message is in, so that a run's virtual time and
 * event count are its traffic's, not the idle fabric's periodic credit
 * refresh up to the time limit.  Per-message latencies to a file (the
 * latency CDFs).  The process's cost: wall time, ns-3 events executed,
 * peak resident memory.
 */
#ifndef SFAB_PROBE_H
#define SFAB_PROBE_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class SfabProbe
{
  public:
    /*
     * every @period from now: a sample of the payload received; stop the
     * simulator once @expected messages are in (0: never)
     */
    static void Start(Time period, uint64_t expected);
    /* (virtual ns, payload bytes received by then), one per period */
    static const std::vector<std::pair<uint64_t, uint64_t>>& Samples();
    /*
     * "T_US RX_BYTES GBPS_PER_HCA" lines, the rate over each period,
     * averaged over @nHcas receivers; false when @path cannot be written
     */
    static bool WriteSeries(const std::string& path, uint32_t nHcas);
    /* "SRC_LID DST_LID BYTES LATENCY_NS" for every message delivered */
    static bool WriteLatencies(const std::string& path);
    /* the process's peak resident set (getrusage), KiB */
    static uint64_t MaxRssKib();

  private:
    static void Sample();
};

} // namespace ns3

#endif /* SFAB_PROBE_H */
