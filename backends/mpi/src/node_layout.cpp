#include "node_layout.hpp"

#include <set>

#include "hostfile.hpp"
#include "mpi_case.hpp"

namespace fprev::mpi {
namespace {

std::string plural(int count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

// "ranks 0-3 ran on a, 4-7 on b": runs of consecutive ranks on one node.
std::string where_ranks_ran(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t first = 0; first < names.size();) {
    std::size_t last = first;
    while (last + 1 < names.size() && names[last + 1] == names[first]) ++last;
    const std::string range =
        first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
    out += out.empty() ? (first == last ? "rank " : "ranks ") + range + " ran on " + names[first]
                       : ", " + range + " on " + names[first];
    first = last + 1;
  }
  return out;
}

}  // namespace

std::string NodeLayout::key() const {
  return std::to_string(nodes) + "x" + std::to_string(ranks_per_node);
}

std::string NodeLayout::describe() const {
  return plural(nodes, "node") + " x " + plural(ranks_per_node, "rank") + " per node";
}

std::optional<NodeLayout> node_layout(Family family, const Settings& settings) {
  if (!settings.places_ranks()) return std::nullopt;
  std::size_t nodes = 1;
  if (!settings.hostfile.empty())
    nodes = hostfile_nodes(family, settings.hostfile).size();
  else if (!settings.hosts.empty())
    nodes = settings.hosts.size();
  const auto ranks = nodes * static_cast<std::size_t>(settings.ranks_per_node);
  if (ranks < 2 || ranks > static_cast<std::size_t>(kMaxRanks))
    throw ConfigError("ranks_per_node",
                      "mpi: " + std::to_string(nodes) + " node(s) x " +
                          std::to_string(settings.ranks_per_node) + " rank(s) per node make " +
                          std::to_string(ranks) + " ranks per job; a collective here runs 2 to " +
                          std::to_string(kMaxRanks) +
                          " ranks: change 'ranks_per_node' or the nodes");
  return NodeLayout{static_cast<int>(nodes), settings.ranks_per_node};
}

void check_case_ranks(const NodeLayout& layout, int ranks, const std::string& platform_key) {
  if (ranks == layout.ranks()) return;
  throw ConfigError("ranks", "mpi: this instance runs its ranks on " + layout.describe() +
                                 " (platform key " + platform_key + "), so its cases have " +
                                 "ranks: " + std::to_string(layout.ranks()) + ", not " +
                                 std::to_string(ranks) + " (a job of another size would not run "
                                 "as the key says: fewer ranks fill fewer nodes)");
}

std::string check_node_layout(const NodeLayout& layout,
                              const std::vector<std::string>& processor_names) {
  const auto per_node = static_cast<std::size_t>(layout.ranks_per_node);
  bool as_laid_out = processor_names.size() == static_cast<std::size_t>(layout.ranks());
  std::set<std::string> block_nodes;
  for (std::size_t r = 0; as_laid_out && r < processor_names.size(); ++r) {
    const std::string& block_node = processor_names[r - r % per_node];
    as_laid_out = processor_names[r] == block_node;
    block_nodes.insert(block_node);
  }
  as_laid_out = as_laid_out && block_nodes.size() == static_cast<std::size_t>(layout.nodes);
  if (as_laid_out) return "";
  const std::set<std::string> nodes(processor_names.begin(), processor_names.end());
  return where_ranks_ran(processor_names) + ": " + plural(static_cast<int>(nodes.size()), "node") +
         ", not the " + layout.describe() + " of the platform key (consecutive ranks together); "
         "check the hostfile or hosts (two names of one node?) and 'ranks_per_node'";
}

}  // namespace fprev::mpi
