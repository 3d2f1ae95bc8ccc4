/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sfab-fabric.h"

#include "sfab-mpi.h"
#include "sfab-remote-channel.h"

#include "../core/sfab_sim.h"

#include "ns3/abort.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <deque>

namespace ns3
{

SfabFabric::End
SfabFabric::SwPort(uint32_t sw, uint32_t port)
{
    return End{(int)sw, port, 0};
}

SfabFabric::End
SfabFabric::Hca(uint32_t hca)
{
    return End{-1, 0, hca};
}

void
SfabFabric::Place(uint32_t rank)
{
    NS_ABORT_MSG_IF(rank >= SfabMpi::Size(), "no MPI rank " << rank);
    m_place = rank;
}

uint32_t SfabFabric::s_lidBase = 1;
uint32_t SfabFabric::s_lftCap = 0;

bool
SfabFabric::SetLidPlan(uint32_t base, uint64_t hcas)
{
    uint32_t last = sfab_sim_lid_at(base, hcas ? hcas - 1 : 0);

    if (!last)
    {
        return false;
    }
    s_lidBase = base;
    s_lftCap = sfab_sim_lft_cap(last);
    return true;
}

uint32_t
SfabFabric::GetLftCap()
{
    return s_lftCap;
}

uint32_t
SfabFabric::AddSwitch(uint32_t nports)
{
    Ptr<SfabSwitch> s = CreateObject<SfabSwitch>();

    s->Create(CreateObject<Node>(m_place), nports, s_lftCap);
    m_sw.push_back(s);
    m_adj.emplace_back(nports + 1, End{-2, 0, 0});
    m_routeDiv.push_back(1);
    return m_sw.size() - 1;
}

uint32_t
SfabFabric::AddHca()
{
    Ptr<SfabHca> h = CreateObject<SfabHca>();

    uint32_t lid = sfab_sim_lid_at(s_lidBase, m_hca.size());

    NS_ABORT_MSG_IF(!lid || lid >= (s_lftCap ? s_lftCap : 0xc000u),
                    "HCA " << m_hca.size() << ": past the LID plan (SetLidPlan)");
    h->Create(CreateObject<Node>(m_place), lid);
    m_hca.push_back(h);
    m_hcaPeer.push_back(End{-2, 0, 0});
    return m_hca.size() - 1;
}

static Ptr<SfabNetDevice>
DevOf(const std::vector<Ptr<SfabSwitch>>& sw,
      const std::vector<Ptr<SfabHca>>& hca,
      const SfabFabric::End& e)
{
    if (e.sw >= 0)
    {
        NS_ABORT_MSG_IF((uint32_t)e.sw >= sw.size(), "no switch " << e.sw);
        Ptr<SfabNetDevice> d = sw[e.sw]->GetPortDevice(e.port);
        NS_ABORT_MSG_IF(!d, "switch " << e.sw << " has no port " << e.port);
        return d;
    }
    NS_ABORT_MSG_IF(e.hca >= hca.size(), "no HCA " << e.hca);
    return hca[e.hca]->GetPortDevice();
}

bool
SfabFabric::IsLocal(const End& e) const
{
    return SfabMpi::Local(DevOf(m_sw, m_hca, e)->GetNode());
}

void
SfabFabric::Link(End a, End b, Time delay)
{
    Ptr<SfabChannel> ch;
    Ptr<SfabNetDevice> da = DevOf(m_sw, m_hca, a);
    Ptr<SfabNetDevice> db = DevOf(m_sw, m_hca, b);
    bool remote = da->GetNode()->GetSystemId() != db->GetNode()->GetSystemId();

    NS_ABORT_MSG_IF(da->GetChannel() || db->GetChannel(), "a cable end is taken");
#ifdef SFAB_SIM_MPI
    if (remote)
    {
        Ptr<SfabRemoteChannel> rc = CreateObject<SfabRemoteChannel>();

        NS_ABORT_MSG_IF(delay <= Time(0), "a cable between MPI ranks needs a delay");
        rc->SetDelay(delay);
        for (const Ptr<SfabNetDevice>& d : {da, db})
        {
            if (SfabMpi::Local(d->GetNode()))
            {
                SfabRemoteChannel::Listen(d);
            }
        }
        ch = rc;
    }
#else
    NS_ABORT_MSG_IF(remote, "a cable between MPI ranks: this is no MPI build");
#endif
    if (!ch)
    {
        ch = CreateObject<SfabChannel>();
        ch->SetAttribute("Delay", TimeValue(delay));
    }
    da->Attach(ch);
    db->Attach(ch);
    m_cables.push_back(Cable{a, b, ch, remote});
    /* a switch port cabled to an HCA runs at the slower end's rate */
    for (int k = 0; k < 2; k++)
    {
        const End& x = k ? b : a;
        const End& y = k ? a : b;

        if (x.sw >= 0 && y.sw < 0)
        {
            m_sw[x.sw]->SetPortRate(
                x.port,
                std::min(m_sw[x.sw]->GetRateMbps(), m_hca[y.hca]->GetRateMbps()));
        }
    }
    for (int k = 0; k < 2; k++)
    {
        const End& x = k ? b : a;
        const End& y = k ? a : b;

        if (x.sw >= 0)
        {
            m_adj[x.sw][x.port] = y;
        }
        else
        {
            m_hcaPeer[x.hca] = y;
        }
    }
}

SfabFabric::End
SfabFabric::HcaPeer(uint32_t hca) const
{
    return m_hcaPeer.at(hca);
}

void
SfabFabric::Route()
{
    uint32_t ns = m_sw.size();
    /* one breadth-first search per switch that has HCAs: their distances */
    std::vector<std::vector<uint32_t>> distFrom(ns);

    if (m_routeFn)
    {
        RouteByFn();
        return;
    }

    for (uint32_t h = 0; h < m_hca.size(); h++)
    {
        End at = m_hcaPeer[h];
        uint32_t lid = m_hca[h]->GetLid();

        if (at.sw < 0)
        {
            continue; /* not cabled, or HCA to HCA */
        }
        std::vector<uint32_t>& dist = distFrom[at.sw];
        if (dist.empty())
        {
            std::deque<uint32_t> q;

            dist.assign(ns, UINT32_MAX);
            dist[at.sw] = 0;
            q.push_back(at.sw);
            while (!q.empty())
            {
                uint32_t s = q.front();

                q.pop_front();
                for (const End& e : m_adj[s])
                {
                    if (e.sw >= 0 && dist[e.sw] == UINT32_MAX)
                    {
                        dist[e.sw] = dist[s] + 1;
                        q.push_back(e.sw);
                    }
                }
            }
        }
        for (uint32_t s = 0; s < ns; s++)
        {
            std::vector<uint32_t> cand;

            if ((int)s == at.sw)
            {
                m_sw[s]->SetRoute(lid, at.port);
                continue;
            }
            if (dist[s] == UINT32_MAX)
            {
                continue;
            }
            for (uint32_t p = 1; p < m_adj[s].size(); p++)
            {
                const End& e = m_adj[s][p];

                if (e.sw >= 0 && dist[e.sw] + 1 == dist[s])
                {
                    cand.push_back(p);
                }
            }
            if (!cand.empty())
            {
                m_sw[s]->SetRoute(lid, cand[lid / m_routeDiv[s] % cand.size()]);
            }
        }
    }
}

void
SfabFabric::BringUp(Callback<void> onUp, Time limit)
{
    m_onUp = onUp;
    m_upLimit = limit;
#ifdef SFAB_SIM_MPI
    /* the same lookahead on every rank: the shortest cross-rank cable's delay, less 1 ns */
    Time shortest = Time::Max();
    for (const Cable& c : m_cables)
    {
        if (c.remote && c.ch->GetDelay() < shortest)
        {
            shortest = c.ch->GetDelay();
        }
    }
    for (const Cable& c : m_cables)
    {
        if (c.remote)
        {
            DynamicCast<SfabRemoteChannel>(c.ch)->SetLookahead(shortest - NanoSeconds(1));
        }
    }
#endif
    for (const Cable& c : m_cables)
    {
        for (const End& e : {c.a, c.b})
        {
            if (!IsLocal(e))
            {
                continue;
            }
            if (e.sw >= 0)
            {
                m_sw[e.sw]->Connect(e.port);
            }
            else
            {
                m_hca[e.hca]->Connect();
            }
        }
    }
    Simulator::Schedule(MicroSeconds(1), &SfabFabric::PollUp, this);
}

/* every microsecond until every link has trained */
void
SfabFabric::PollUp()
{
    if (!AllUp())
    {
        NS_ABORT_MSG_IF(Simulator::Now() >= m_upLimit,
                        "sfab fabric: links not trained after " << m_upLimit.GetMicroSeconds()
                                                                << " us");
        Simulator::Schedule(MicroSeconds(1), &SfabFabric::PollUp, this);
        return;
    }
    Activate();
    NS_ABORT_MSG_IF(!AllActive(), "sfab fabric: a trained port did not become Active");
    m_upAt = Simulator::Now();
    if (!m_onUp.IsNull())
    {
        m_onUp();
    }
}

bool
SfabFabric::EveryEnd(bool active) const
{
    bool all = true;

    for (const Cable& c : m_cables)
    {
        for (const End& e : {c.a, c.b})
        {
            if (!all || !IsLocal(e))
            {
                continue;
            }
            bool ok = e.sw >= 0 ? (active ? m_sw[e.sw]->IsPortActive(e.port)
                                          : m_sw[e.sw]->IsPortUp(e.port))
                                : (active ? m_hca[e.hca]->IsActive() : m_hca[e.hca]->IsUp());
            all = all && ok;
        }
    }
    /* every rank answers for its own ends */
    return SfabMpi::All(all);
}

bool
SfabFabric::AllUp() const
{
    return EveryEnd(false);
}

Time
SfabFabric::GetUpTime() const
{
    return m_upAt;
}

void
SfabFabric::Activate()
{
    for (uint32_t s = 0; s < m_sw.size(); s++)
    {
        if (SfabMpi::Local(m_sw[s]->GetPortDevice(1)->GetNode()))
        {
            m_sw[s]->Activate();
        }
    }
    for (uint32_t h = 0; h < m_hca.size(); h++)
    {
        if (IsLocal(Hca(h)))
        {
            m_hca[h]->Activate();
        }
    }
}

bool
SfabFabric::AllActive() const
{
    return EveryEnd(true);
}

Ptr<SfabSwitch>
SfabFabric::GetSwitch(uint32_t i) const
{
    return m_sw.at(i);
}

Ptr<SfabHca>
SfabFabric::GetHca(uint32_t i) const
{
    return m_hca.at(i);
}

uint32_t
SfabFabric::GetNSwitches() const
{
    return m_sw.size();
}

uint32_t
SfabFabric::GetNHcas() const
{
    return m_hca.size();
}

void
SfabFabric::Star(SfabFabric& f, uint32_t n, Time delay)
{
    uint32_t s = f.AddSwitch(n);

    for (uint32_t i = 0; i < n; i++)
    {
        f.Link(Hca(f.AddHca()), SwPort(s, i + 1), delay);
    }
}

void
SfabFabric::Chain(SfabFabric& f, uint32_t k, Time delay)
{
    uint32_t first = f.GetNSwitches();

    for (uint32_t i = 0; i < k; i++)
    {
        f.AddSwitch(3);
    }
    f.Link(Hca(f.AddHca()), SwPort(first, 1), delay);
    for (uint32_t i = 0; i + 1 < k; i++)
    {
        f.Link(SwPort(first + i, 2), SwPort(first + i + 1, 1), delay);
    }
    f.Link(SwPort(first + k - 1, 2), Hca(f.AddHca()), delay);
}

void
SfabFabric::FatTree(SfabFabric& f, uint32_t leaves, uint32_t spines, uint32_t per, Time delay)
{
    std::vector<uint32_t> leaf, spine;

    /* over R MPI ranks: leaf i and its HCAs on rank i R / leaves, spine j on j R / spines */
    uint32_t ranks = SfabMpi::Size();

    NS_ABORT_MSG_IF(per + spines > SFAB_SIM_MAX_PORTS || leaves > SFAB_SIM_MAX_PORTS,
                    "a switch has at most " << SFAB_SIM_MAX_PORTS << " ports");
    for (uint32_t i = 0; i < leaves; i++)
    {
        f.Place((uint64_t)i * ranks / leaves);
        leaf.push_back(f.AddSwitch(per + spines));
    }
    for (uint32_t j = 0; j < spines; j++)
    {
        f.Place((uint64_t)j * ranks / spines);
        spine.push_back(f.AddSwitch(leaves));
    }
    for (uint32_t i = 0; i < leaves; i++)
    {
        f.Place((uint64_t)i * ranks / leaves);
        for (uint32_t h = 0; h < per; h++)
        {
            f.Link(Hca(f.AddHca()), SwPort(leaf[i], h + 1), delay);
        }
        for (uint32_t j = 0; j < spines; j++)
        {
            f.Link(SwPort(leaf[i], per + j + 1), SwPort(spine[j], i + 1), delay);
        }
    }
    f.Place(0);
}

SfabFabric::End
SfabFabric::SwPeer(uint32_t sw, uint32_t port) const
{
    return m_adj.at(sw).at(port);
}

void
SfabFabric::EnableFailover()
{
    for (uint32_t s = 0; s < m_sw.size(); s++)
    {
        bool leaf = false;

        for (const End& e : m_adj[s])
        {
            leaf = leaf || (e.sw == -1);
        }
        for (uint32_t p = 1; p < m_adj[s].size(); p++)
        {
            if (m_adj[s][p].sw >= 0)
            {
                m_sw[s]->SetFailoverPort(p, leaf, true);
            }
        }
    }
}

Ptr<SfabChannel>
SfabFabric::Pull(End a, Time detect)
{
    for (Cable& c : m_cables)
    {
        bool match = (c.a.sw == a.sw && (a.sw >= 0 ? c.a.port == a.port : c.a.hca == a.hca)) ||
                     (c.b.sw == a.sw && (a.sw >= 0 ? c.b.port == a.port : c.b.hca == a.hca));

        if (!match)
        {
            continue;
        }
        c.ch->SetUp(false);
        for (const End& e : {c.a, c.b})
        {
            if (e.sw >= 0)
            {
                Simulator::Schedule(detect, &SfabSwitch::Disconnect, m_sw[e.sw], e.port);
            }
        }
        return c.ch;
    }
    NS_ABORT_MSG("no cable at switch " << a.sw << " port " << a.port);
    return nullptr;
}

} // namespace ns3
