/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SfabFabric's fabrics from parameters, for the scale runs: a three-level
 * fat tree and a dragonfly (sfab-fabric.h says what each is), and the
 * walk along the programmed LFTs that checks their routes.
 */
#include "sfab-fabric.h"

#include "sfab-mpi.h"

#include "../core/sfab_sim.h"

#include "ns3/abort.h"

namespace ns3
{

void
SfabFabric::SetRouteDivisor(uint32_t sw, uint32_t div)
{
    NS_ABORT_MSG_IF(!div, "a route divisor of 0");
    m_routeDiv.at(sw) = div;
}

void
SfabFabric::SetRouteFn(std::function<uint32_t(uint32_t, uint32_t)> fn)
{
    m_routeFn = fn;
}

void
SfabFabric::RouteByFn()
{
    for (uint32_t s = 0; s < m_sw.size(); s++)
    {
        for (uint32_t h = 0; h < m_hca.size(); h++)
        {
            uint32_t port = m_routeFn(s, h);

            if (port)
            {
                m_sw[s]->SetRoute(m_hca[h]->GetLid(), port);
            }
        }
    }
}

uint32_t
SfabFabric::GetNCables() const
{
    return m_cables.size();
}

void
SfabFabric::FatTree3(SfabFabric& f,
                     uint32_t pods,
                     uint32_t leaves,
                     uint32_t spines,
                     uint32_t cores,
                     uint32_t per,
                     Time delay)
{
    std::vector<uint32_t> leaf, agg, core;
    /*
     * over R MPI ranks: pod p (its leaves, aggregation switches and HCAs)
     * on rank p R / pods, core switch k on k R / (spines x cores)
     */
    uint32_t ranks = SfabMpi::Size();

    NS_ABORT_MSG_IF(!pods || !leaves || !spines || !cores || !per, "fat3: a size of 0");
    NS_ABORT_MSG_IF(per + spines > SFAB_SIM_MAX_PORTS || leaves + cores > SFAB_SIM_MAX_PORTS ||
                        pods > SFAB_SIM_MAX_PORTS,
                    "a switch has at most " << SFAB_SIM_MAX_PORTS << " ports");
    /* leaf: HCAs on 1..per, aggregation j on per+1+j */
    for (uint32_t i = 0; i < pods * leaves; i++)
    {
        f.Place((uint64_t)(i / leaves) * ranks / pods);
        leaf.push_back(f.AddSwitch(per + spines));
    }
    /* aggregation: leaves on 1..leaves, its core group's on leaves+1+c */
    for (uint32_t i = 0; i < pods * spines; i++)
    {
        f.Place((uint64_t)(i / spines) * ranks / pods);
        agg.push_back(f.AddSwitch(leaves + cores));
        f.SetRouteDivisor(agg.back(), spines);
    }
    /* core (j, c): pod p on port p+1 */
    for (uint32_t i = 0; i < spines * cores; i++)
    {
        f.Place((uint64_t)i * ranks / (spines * cores));
        core.push_back(f.AddSwitch(pods));
    }
    for (uint32_t p = 0; p < pods; p++)
    {
        f.Place((uint64_t)p * ranks / pods);
        for (uint32_t l = 0; l < leaves; l++)
        {
            uint32_t s = leaf[p * leaves + l];

            for (uint32_t h = 0; h < per; h++)
            {
                f.Link(Hca(f.AddHca()), SwPort(s, h + 1), delay);
            }
            for (uint32_t j = 0; j < spines; j++)
            {
                f.Link(SwPort(s, per + j + 1), SwPort(agg[p * spines + j], l + 1), delay);
            }
        }
        for (uint32_t j = 0; j < spines; j++)
        {
            for (uint32_t c = 0; c < cores; c++)
            {
                f.Link(SwPort(agg[p * spines + j], leaves + c + 1),
                       SwPort(core[j * cores + c], p + 1),
                       delay);
            }
        }
    }
    f.Place(0);
}

void
SfabFabric::Dragonfly(SfabFabric& f,
                      uint32_t groups,
                      uint32_t routers,
                      uint32_t per,
                      uint32_t globals,
                      Time delay)
{
    /* a switch: HCAs 1..per, local per+1..per+routers-1, global after */
    uint32_t firstLocal = per + 1;
    uint32_t firstGlobal = per + routers;
    uint32_t nports = per + routers - 1 + globals;
    uint32_t firstHca = f.GetNHcas();
    std::vector<uint32_t> sw;

    NS_ABORT_MSG_IF(groups < 2 || !routers || !per || !globals, "dragonfly: a size too small");
    NS_ABORT_MSG_IF(groups - 1 > routers * globals,
                    "dragonfly: " << groups << " groups need " << groups - 1
                                  << " global cables a group");
    NS_ABORT_MSG_IF(nports > SFAB_SIM_MAX_PORTS,
                    "a switch has at most " << SFAB_SIM_MAX_PORTS << " ports");
    for (uint32_t i = 0; i < groups * routers; i++)
    {
        sw.push_back(f.AddSwitch(nports));
    }
    for (uint32_t g = 0; g < groups; g++)
    {
        for (uint32_t r = 0; r < routers; r++)
        {
            uint32_t s = sw[g * routers + r];

            for (uint32_t h = 0; h < per; h++)
            {
                f.Link(Hca(f.AddHca()), SwPort(s, h + 1), delay);
            }
            /* router r's local port to router q: firstLocal + (q < r ? q : q - 1) */
            for (uint32_t q = r + 1; q < routers; q++)
            {
                f.Link(SwPort(s, firstLocal + q - 1),
                       SwPort(sw[g * routers + q], firstLocal + r),
                       delay);
            }
        }
    }
    /* group g's slot i to group (g + 1 + i) mod groups, each pair once */
    for (uint32_t g = 0; g < groups; g++)
    {
        for (uint32_t i = 0; i + 1 < groups; i++)
        {
            uint32_t h = (g + 1 + i) % groups;
            uint32_t back = (g + groups - h - 1) % groups; /* h's slot to g */

            if (h < g)
            {
                continue; /* cabled from h's side */
            }
            f.Link(SwPort(sw[g * routers + i / globals], firstGlobal + i % globals),
                   SwPort(sw[h * routers + back / globals], firstGlobal + back % globals),
                   delay);
        }
    }
    /*
     * Minimal routes: the local cable to the switch holding the group's
     * global cable to the destination group, that cable, the local cable
     * to the destination switch (each where needed)
     */
    uint32_t first = sw.empty() ? 0 : sw[0];
    f.SetRouteFn([=](uint32_t s, uint32_t h) -> uint32_t {
        uint32_t r, g, dr, dg, via;

        if (s < first || s - first >= groups * routers || h < firstHca ||
            h - firstHca >= groups * routers * per)
        {
            return 0;
        }
        h -= firstHca;
        dr = h / per % routers;
        dg = h / per / routers;
        r = (s - first) % routers;
        g = (s - first) / routers;
        if (g == dg && r == dr)
        {
            return h % per + 1;
        }
        /* the switch of this group to go to next: the destination's, or
         * the one with the global cable toward its group */
        via = g == dg ? dr : (dg + groups - g - 1) % groups / globals;
        if (via != r)
        {
            return firstLocal + (via < r ? via : via - 1);
        }
        return firstGlobal + (dg + groups - g - 1) % groups % globals;
    });
    /*
     * VL1 from the global hop into the destination group on: SL-to-VL of
     * every global port to every local port.  Minimal routes are local,
     * global, local at most, so a VL0 channel waits only on VL0 channels
     * nearer the global hop or on VL1 ones, and a VL1 channel only on an
     * HCA: no cycle.
     */
    for (uint32_t s : sw)
    {
        for (uint32_t in = firstGlobal; in <= nports; in++)
        {
            for (uint32_t out = firstLocal; out < firstGlobal; out++)
            {
                f.GetSwitch(s)->SetSl2Vl(in, out, 1);
            }
        }
    }
}

uint32_t
SfabFabric::PathSwitches(uint32_t src, uint32_t dst) const
{
    uint32_t dlid = m_hca.at(dst)->GetLid();
    End at = m_hcaPeer.at(src);
    uint32_t n = 0;

    while (at.sw >= 0 && n < 64)
    {
        uint32_t port = m_sw[at.sw]->GetRoute(dlid);

        n++;
        if (!port || port >= m_adj[at.sw].size())
        {
            return 0;
        }
        at = m_adj[at.sw][port];
    }
    return at.sw == -1 && at.hca == dst ? n : 0;
}

} // namespace ns3
