// One input on every element, compared within each class (see fingerprint_uniformity.hpp).
#include "fingerprint_uniformity.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "checks.hpp"

namespace fprev::detail {
namespace {

// At most this many regions are named; the rest are counted.
constexpr std::size_t kNamedRegions = 4;

std::uint64_t bits_of(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// The regions of the elements marked in `differs` (row-major), as format_region writes them.
std::string regions_text(const OutputGrid& grid, const Tree& tree, const std::vector<std::size_t>& differs) {
  const OrderMap marked = map_of_elements(grid, differs, {tree, tree});
  const auto first = std::find(differs.begin(), differs.end(), std::size_t{1});
  const auto at = static_cast<std::size_t>(first - differs.begin());
  const OrderClass& region_class = marked.class_at(at / grid.columns, at % grid.columns);
  std::string text;
  for (std::size_t i = 0; i < region_class.regions.size() && i < kNamedRegions; ++i)
    text += (i == 0 ? "" : "; ") + format_region(region_class.regions[i], grid);
  if (region_class.regions.size() > kNamedRegions)
    text += " and " + std::to_string(region_class.regions.size() - kNamedRegions) + " more regions";
  return text;
}

}  // namespace

std::vector<std::string> measure_uniformity(Target& target, const OrderMap& map,
                                            const std::vector<std::pair<std::size_t, std::size_t>>& reference,
                                            const std::vector<FingerprintInputSet>& sets, FingerprintStats& stats) {
  const TargetInfo& info = target.info();
  const OutputGrid& grid = info.grid;
  const std::size_t n = info.n;
  std::vector<std::string> facts(map.classes.size());
  if (grid.size() < 2 || sets.empty() || n == 0) return facts;
  // The "cancel" set's first input: random significands on both factors (inexact products) and sums
  // that cancel, so a wider accumulator or contracted products show in the last bits (tried: the
  // "normal" and "wide" sets' inputs missed a band of columns kept in float64 that this one sees).
  const auto cancel = std::find_if(sets.begin(), sets.end(), [](const FingerprintInputSet& s) { return s.name == "cancel"; });
  const FingerprintInputSet& set = cancel != sets.end() ? *cancel : sets.front();
  if (set.rows == 0 || set.a.size() < n) return facts;
  std::vector<double> a(grid.rows * n);
  for (std::size_t r = 0; r < grid.rows; ++r)
    std::copy_n(set.a.begin(), n, a.begin() + static_cast<std::ptrdiff_t>(r * n));
  ValueBatch batch;
  batch.rows = grid.rows;
  batch.a = a;
  batch.b = set.b;
  batch.placement = Placement::rows;
  std::vector<double> outputs(grid.size(), 0.0);
  target.evaluate(batch, outputs);
  ++stats.target_calls;
  const std::vector<std::uint32_t> element_class = classes_of_elements(map);
  for (std::size_t k = 0; k < map.classes.size(); ++k) {
    const auto [row, column] = reference.at(k);
    const std::uint64_t expected = bits_of(outputs[row * grid.columns + column]);
    std::vector<std::size_t> differs(grid.size(), 0);
    bool any = false;
    for (std::size_t e = 0; e < grid.size(); ++e)
      if (element_class[e] == k && bits_of(outputs[e]) != expected) {
        differs[e] = 1;
        any = true;
      }
    if (!any) continue;
    facts[k] = "differs at " + regions_text(grid, map.classes[k].tree, differs) + " (other bits than element (" +
               std::to_string(row) + ", " + std::to_string(column) + ") on the same input)";
  }
  return facts;
}

}  // namespace fprev::detail
