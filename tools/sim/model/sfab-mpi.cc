/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sfab-mpi.h"

#ifdef SFAB_SIM_MPI
#include "ns3/global-value.h"
#include "ns3/mpi-interface.h"
#include "ns3/string.h"

#include <mpi.h>
#endif

namespace ns3
{

#ifdef SFAB_SIM_MPI

void
SfabMpi::Enable(int* argc, char*** argv)
{
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue("ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
}

void
SfabMpi::Disable()
{
    MpiInterface::Disable();
}

uint32_t
SfabMpi::Rank()
{
    return MpiInterface::GetSystemId();
}

uint32_t
SfabMpi::Size()
{
    return MpiInterface::GetSize();
}

static uint64_t
Reduce(uint64_t v, MPI_Op op)
{
    unsigned long long in = v, out = 0;

    MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, op, MpiInterface::GetCommunicator());
    return out;
}

uint64_t
SfabMpi::Sum(uint64_t v)
{
    return Reduce(v, MPI_SUM);
}

uint64_t
SfabMpi::Min(uint64_t v)
{
    return Reduce(v, MPI_MIN);
}

uint64_t
SfabMpi::Max(uint64_t v)
{
    return Reduce(v, MPI_MAX);
}

std::vector<uint64_t>
SfabMpi::Gather(const std::vector<uint64_t>& v)
{
    MPI_Comm comm = MpiInterface::GetCommunicator();
    uint32_t n = Size();
    int mine = (int)v.size();
    std::vector<int> counts(n), offs(n);
    std::vector<uint64_t> all;

    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    if (Rank() == 0)
    {
        int total = 0;

        for (uint32_t r = 0; r < n; r++)
        {
            offs[r] = total;
            total += counts[r];
        }
        all.resize(total);
    }
    MPI_Gatherv(v.data(),
                mine,
                MPI_UNSIGNED_LONG_LONG,
                all.data(),
                counts.data(),
                offs.data(),
                MPI_UNSIGNED_LONG_LONG,
                0,
                comm);
    return all;
}

#else /* one process */

void
SfabMpi::Enable(int* argc, char*** argv)
{
}

void
SfabMpi::Disable()
{
}

uint32_t
SfabMpi::Rank()
{
    return 0;
}

uint32_t
SfabMpi::Size()
{
    return 1;
}

uint64_t
SfabMpi::Sum(uint64_t v)
{
    return v;
}

uint64_t
SfabMpi::Min(uint64_t v)
{
    return v;
}

uint64_t
SfabMpi::Max(uint64_t v)
{
    return v;
}

std::vector<uint64_t>
SfabMpi::Gather(const std::vector<uint64_t>& v)
{
    return v;
}

#endif

bool
SfabMpi::Local(Ptr<Node> node)
{
    return node->GetSystemId() == Rank();
}

bool
SfabMpi::All(bool v)
{
    return Min(v) != 0;
}

} // namespace ns3
