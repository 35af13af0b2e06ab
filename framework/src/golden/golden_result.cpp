// What a golden records (fprev/golden.hpp): a tree, an order map or a finding, and when two
// goldens record the same.
#include <stdexcept>

#include "fprev/golden.hpp"

namespace fprev {

bool is_recordable(Finding finding) {
  // Not findings about the target's order: the case cannot run here, its settings are wrong, or
  // its process crashed, exited or hung (a crash is never the expected baseline).
  return finding != Finding::unsupported && finding != Finding::target_error &&
         finding != Finding::target_fault;
}

RecordedFinding record_finding(const Diagnostic& diagnostic) {
  return {diagnostic.finding, diagnostic.message, diagnostic.probe, diagnostic.likely_cause};
}

const Tree& Golden::tree() const {
  if (!is_single_tree())
    throw std::logic_error(finding ? "Golden::tree(): the golden records a finding, not a tree"
                                   : "Golden::tree(): the golden holds an order map of several trees");
  return map.classes.front().tree;
}

Golden Golden::of_tree(GoldenMetadata meta, Tree tree, std::optional<Fingerprint> fingerprint, OutputGrid grid) {
  Golden golden;
  golden.meta = std::move(meta);
  golden.map = OrderMap::uniform(grid, std::move(tree));
  if (fingerprint) golden.fingerprints.push_back(std::move(*fingerprint));
  return golden;
}

bool same_orders(const Golden& a, const Golden& b) {
  if (a.finding || b.finding) return a.finding && b.finding && a.finding->finding == b.finding->finding;
  if (a.is_single_tree() && b.is_single_tree()) return a.tree() == b.tree();
  if (a.map.grid == b.map.grid) return same_orders(a.map, b.map);
  if (a.is_single_tree()) return same_orders(OrderMap::uniform(b.map.grid, a.tree()), b.map);
  if (b.is_single_tree()) return same_orders(a.map, OrderMap::uniform(a.map.grid, b.tree()));
  return false;
}

bool same_result(const Golden& a, const Golden& b) {
  // Canonical maps whose classes hold distinct trees: the same orders at every element means the
  // same classes in the same order, so the fingerprints compare class by class. The grid is part
  // of what a golden records (a version 1 golden read as 1 x 1 is rewritten with its real grid).
  if (a.finding || b.finding) return same_orders(a, b);
  if (a.alignment.has_value() != b.alignment.has_value()) return false;
  if (a.alignment && !same_alignment(*a.alignment, *b.alignment)) return false;
  if (a.invariance != b.invariance) return false;
  return same_orders(a, b) && a.map.grid == b.map.grid && a.fingerprints == b.fingerprints;
}

}  // namespace fprev
