// The `mpi` backend: MPI collectives (reduce, allreduce, reduce_scatter_block with MPI_SUM) of
// Open MPI and MPICH, run by the real launcher with P ranks on this machine; the leaves are the
// ranks. fprev-golden never links MPI: a probe program built with each MPI's compiler wrapper runs
// as the ranks and talks to the backend over a Unix socket. See backends/mpi/README.md.
#pragma once

#include <memory>

#include "fprev/backend.hpp"

namespace fprev {

void register_mpi_backend(BackendRegistry& registry);

namespace mpi {

std::unique_ptr<Backend> make_backend();

}  // namespace mpi
}  // namespace fprev
