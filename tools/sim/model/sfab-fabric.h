/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SfabFabric: builds a fabric of SfabSwitch and SfabHca nodes joined by
 * SfabChannel cables, routes it and brings it up.
 *
 * HCA i gets LID i + 1 (SetLidPlan: another base, extended LIDs).
 * Routing is what a subnet manager's min-hop engine programs: for every destination LID, each switch forwards on a
 * port that is one hop nearer to it; among equal ports the LID picks one
 * (LID mod their number, in port order), which spreads destinations over
 * a fat tree's up-links as D-mod-K routing does.  Bring-up plugs every
 * cable at time 0 (the links train through the project's link code) and,
 * the training time later, plays the SM's part: every trained port
 * Active.
 *
 * Split over MPI ranks (sfab-sim-mpi, SfabMpi), every rank builds the
 * whole fabric, each node placed on a rank (Place; the fat tree's leaves
 * with their HCAs in contiguous groups, one group per rank, and its
 * spines spread the same way); a cable between ranks is an
 * SfabRemoteChannel.  A rank plugs, polls and activates only its own
 * ends; whether every link trained is agreed by all ranks.
 */
#ifndef SFAB_FABRIC_H
#define SFAB_FABRIC_H

#include "sfab-hca.h"
#include "sfab-switch.h"

#include "ns3/nstime.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

class SfabFabric
{
  public:
    /* a cable end: switch @sw's port @port, or HCA @hca (sw < 0) */
    struct End
    {
        int sw;
        uint32_t port;
        uint32_t hca;
    };

    static End SwPort(uint32_t sw, uint32_t port);
    static End Hca(uint32_t hca);
    /*
     * LIDs (Documentation/sfab/addressing.rst): HCA i gets LidAt(@base, i),
     * @base, @base + 1, ... skipping IBA's multicast and permissive LIDs
     * (0xc000..0xffff): past 0xbfff they go on at 0x10000, the extended
     * LIDs only the extended LRH carries.  For every fabric made after it,
     * up to @hcas HCAs: its switches get an LFT that holds their LIDs.
     * false (nothing set) when @base is no unicast LID or the last LID is
     * past SFAB_XLID_UCAST_MAX.  Default: base 1, IBA's LFT.
     */
    static bool SetLidPlan(uint32_t base, uint64_t hcas);
    /* the LFT entries the plan gives a switch (0: IBA's 0xc000) */
    static uint32_t GetLftCap();

    /* the nodes added from now on are simulated by MPI rank @rank */
    void Place(uint32_t rank);
    uint32_t AddSwitch(uint32_t nports);
    uint32_t AddHca();
    /* the end's node is simulated by this rank */
    bool IsLocal(const End& e) const;
    void Link(End a, End b, Time delay);
    /* min-hop routes into every switch's LFT */
    void Route();
    /*
     * Plug every cable now; once every link has trained, the SM's part
     * (every port Active), then @onUp.  Aborts if the links have not
     * trained by @limit.
     */
    void BringUp(Callback<void> onUp, Time limit = MilliSeconds(10));
    /* when every port was Active (after BringUp) */
    Time GetUpTime() const;
    /* every port that has a cable Active */
    bool AllActive() const;

    Ptr<SfabSwitch> GetSwitch(uint32_t i) const;
    Ptr<SfabHca> GetHca(uint32_t i) const;
    uint32_t GetNSwitches() const;
    uint32_t GetNHcas() const;
    /* the switch port an HCA is cabled to */
    End HcaPeer(uint32_t hca) const;
    /* what switch @sw's port @port is cabled to (sw -2: nothing) */
    End SwPeer(uint32_t sw, uint32_t port) const;
    /*
     * Fast failover below the SM on every switch: its ports cabled to
     * switches are switch-facing (fault routing notifications); on a
     * switch that also has HCAs (a leaf) they are its up-port group.
     */
    void EnableFailover();
    /*
     * Pull the cable at @a now: what is on it is lost; each switch end
     * sees its port go down @detect later.  Returns the cable.
     */
    Ptr<SfabChannel> Pull(End a, Time detect);

    /* one switch, @n HCAs on ports 1..n */
    static void Star(SfabFabric& f, uint32_t n, Time delay);
    /* HCA 0 - switch 0 - ... - switch k-1 - HCA 1 */
    static void Chain(SfabFabric& f, uint32_t k, Time delay);
    /*
     * Two levels: @leaves leaf switches with @per HCAs each, every leaf
     * cabled to each of @spines spine switches
     */
    static void FatTree(SfabFabric& f, uint32_t leaves, uint32_t spines, uint32_t per,
                        Time delay);

    /* --- sfab-topo.cc: fabrics from parameters, at scale --- */

    /*
     * Three levels: @pods pods of @leaves leaf switches (@per HCAs each)
     * and @spines aggregation switches, every leaf of a pod cabled to
     * each of its aggregation switches; aggregation switch j of every pod
     * cabled to each of the @cores core switches of core group j
     * (@spines x @cores core switches).  Routes are D-mod-K: a leaf picks
     * its aggregation switch by LID mod @spines, an aggregation switch
     * its core by (LID / @spines) mod @cores.  A k-ary fat tree is
     * pods k, leaves, spines, cores and per k/2.
     */
    static void FatTree3(SfabFabric& f, uint32_t pods, uint32_t leaves, uint32_t spines,
                         uint32_t cores, uint32_t per, Time delay);
    /*
     * A dragonfly: @groups groups of @routers switches (@per HCAs each),
     * fully connected inside a group, @globals global ports a switch; the
     * groups pairwise joined by one global cable (group g's global slot i,
     * switch i / @globals, goes to group g + 1 + i mod @groups; needs
     * @groups - 1 <= @routers x @globals).  Minimal routes (local, global,
     * local), deadlock-free on two data VLs: every packet travels on VL0
     * until a global hop brings it into its destination group, and on VL1
     * from there (SL-to-VL: a global port to a local one, VL1).  The
     * routes are the dragonfly's minimal ones, not min-hop: min-hop would
     * take two global hops where they are shorter than local, global,
     * local, and that cycles across groups on any number of VLs.  The
     * switches need DataVls 2.
     */
    static void Dragonfly(SfabFabric& f, uint32_t groups, uint32_t routers, uint32_t per,
                          uint32_t globals, Time delay);
    /*
     * The switches a packet from HCA @src to HCA @dst crosses, following
     * the switches' LFTs as programmed; 0 when the walk does not reach
     * @dst (no route, a loop, the wrong HCA)
     */
    uint32_t PathSwitches(uint32_t src, uint32_t dst) const;
    uint32_t GetNCables() const;
    /*
     * Route(): among equal ports, switch @sw picks by (LID / @div) mod
     * their number (1 unless set: LID mod their number)
     */
    void SetRouteDivisor(uint32_t sw, uint32_t div);
    /*
     * A topology's own routes instead of min-hop: Route() programs switch
     * @sw to forward HCA @hca's LID on the port @fn returns (0: none)
     */
    void SetRouteFn(std::function<uint32_t(uint32_t sw, uint32_t hca)> fn);

  private:
    struct Cable
    {
        End a, b;
        Ptr<SfabChannel> ch;
        bool remote; /* its ends on different ranks */
    };

    void Activate();
    void RouteByFn();
    void PollUp();
    bool AllUp() const;
    /* every cabled end trained (or, @active, Active) */
    bool EveryEnd(bool active) const;

    uint32_t m_place = 0;
    Callback<void> m_onUp;
    Time m_upLimit;
    Time m_upAt;

    static uint32_t s_lidBase;
    static uint32_t s_lftCap;
    std::vector<Ptr<SfabSwitch>> m_sw;
    std::vector<Ptr<SfabHca>> m_hca;
    std::vector<Cable> m_cables;
    std::vector<End> m_hcaPeer;
    /* m_adj[sw][port]: what the port is cabled to */
    std::vector<std::vector<End>> m_adj;
    /* SetRouteDivisor(): per switch, 1 unless set */
    std::vector<uint32_t> m_routeDiv;
    std::function<uint32_t(uint32_t, uint32_t)> m_routeFn;
};

} // namespace ns3

#endif /* SFAB_FABRIC_H */
