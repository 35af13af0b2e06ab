// Where the ranks of an instance's jobs run when its settings place them (hostfile, hosts,
// ranks_per_node): `nodes` nodes, `ranks_per_node` consecutive ranks on each (ranks 0..K-1 on the
// first node, K..2K-1 on the second, ...).
//
// Open MPI and MPICH choose hierarchical and inter-node algorithms from this layout, so it is
// part of the platform key ("2x4"). The key is the instance's, and a golden must say what ran: so
// every case of such an instance has exactly nodes x ranks_per_node ranks (a case with fewer would
// run on fewer nodes than the key says), and every job checks, from the processor names its ranks
// report, that the launcher really put them there.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mpi_settings.hpp"

namespace fprev::mpi {

struct NodeLayout {
  int nodes = 1;
  int ranks_per_node = 1;

  int ranks() const { return nodes * ranks_per_node; }
  std::string key() const;       // "2x4", in the platform key
  std::string describe() const;  // "2 nodes x 4 ranks per node"
};

// The layout the settings ask for, or none when they do not place the ranks (this machine, as the
// launcher places them; the platform key is then the family and the tuning alone). The nodes are
// the hostfile's (read now) or the host list's; ranks_per_node alone means this machine, one
// node. Throws ConfigError when the hostfile cannot be used or the layout holds fewer than 2 or
// more than kMaxRanks ranks.
std::optional<NodeLayout> node_layout(Family family, const Settings& settings);

// Refuses (ConfigError "ranks") a case whose rank count is not the layout's.
void check_case_ranks(const NodeLayout& layout, int ranks, const std::string& platform_key);

// Whether a job ran as `layout` says, from the processor names its ranks reported
// (MPI_Get_processor_name, by rank): every block of ranks_per_node consecutive ranks on one node,
// and the blocks on `nodes` different nodes. Returns "" when it did, else where the ranks ran,
// e.g. "ranks 0-3 ran on node-a, 4-7 on node-a: 1 node, not the 2 nodes x 4 ranks per node of
// the platform key".
std::string check_node_layout(const NodeLayout& layout,
                              const std::vector<std::string>& processor_names);

}  // namespace fprev::mpi
