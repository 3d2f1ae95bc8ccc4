/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SfabMpi: what the fabric and the scenarios need of a run split over MPI
 * ranks (ns-3's mpi module, DistributedSimulatorImpl), in one place.
 *
 * sfab-sim-mpi (tools/sim/Makefile, -DSFAB_SIM_MPI, against the ns-3 of
 * tools/setup/build-ns3-mpi.sh) is the simulation built with it; in
 * sfab-sim these are a single process's answers (rank 0 of 1, a sum of
 * one value).  The reductions are collectives: every rank calls them, in
 * the same order; their results count on rank 0.
 */
#ifndef SFAB_MPI_H
#define SFAB_MPI_H

#include "ns3/node.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class SfabMpi
{
  public:
    /* before anything of ns-3: MPI up, the distributed simulator chosen */
    static void Enable(int* argc, char*** argv);
    static void Disable();
    static uint32_t Rank();
    static uint32_t Size();
    /* @node is simulated by this rank */
    static bool Local(Ptr<Node> node);

    static uint64_t Sum(uint64_t v);
    static uint64_t Min(uint64_t v);
    static uint64_t Max(uint64_t v);
    static bool All(bool v);
    /* every rank's @v, one after the other (rank 0; empty elsewhere) */
    static std::vector<uint64_t> Gather(const std::vector<uint64_t>& v);
};

} // namespace ns3

#endif /* SFAB_MPI_H */
