// Reading the nodes a hostfile names, to know how many the layout spans before any job runs.
//
// The two launchers read different formats, and each rejects the other's:
//   Open MPI   "host", "host slots=N", "host slots=N max_slots=M"
//   MPICH      "host", "host:N" (hydra's "token slots not supported at this time")
// Both take comments from '#' to the end of the line and blank lines. A node listed twice is one
// node (Open MPI adds up its slots).
#pragma once

#include <string>
#include <vector>

#include "mpi_settings.hpp"

namespace fprev::mpi {

// The distinct nodes of the hostfile at `path`, in the order they first appear. Throws ConfigError
// ("hostfile") when the file cannot be read, names no node, or is written in the other family's
// format (naming the file and the line).
std::vector<std::string> hostfile_nodes(Family family, const std::string& path);

}  // namespace fprev::mpi
