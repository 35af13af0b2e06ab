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

std::optional<OneInput> uniformity_input(const std::vector<FingerprintInputSet>& sets, std::size_t n) {
  if (sets.empty() || n == 0) return std::nullopt;
  // The "cancel" set's first input: random significands on both factors (inexact products) and sums
  // that cancel, so a wider accumulator or contracted products show in the last bits (tried: the
  // "normal" and "wide" sets' inputs missed a band of columns kept in float64 that this one sees).
  const auto cancel = std::find_if(sets.begin(), sets.end(), [](const FingerprintInputSet& s) { return s.name == "cancel"; });
  const FingerprintInputSet& set = cancel != sets.end() ? *cancel : sets.front();
  if (set.rows == 0 || set.a.size() < n) return std::nullopt;
  return OneInput{std::vector<double>(set.a.begin(), set.a.begin() + static_cast<std::ptrdiff_t>(n)), set.b};
}

std::optional<OneInputCall> one_input_call(const TargetInfo& info, const std::vector<FingerprintInputSet>& sets) {
  const std::size_t n = info.n, rows = info.is_grid() ? info.grid.rows : 1;
  std::optional<OneInput> input = uniformity_input(sets, n);
  if (!input) return std::nullopt;
  OneInputCall call;
  call.rows = rows;
  call.a.resize(rows * n);
  for (std::size_t r = 0; r < rows; ++r) std::copy_n(input->a.begin(), n, call.a.begin() + static_cast<std::ptrdiff_t>(r * n));
  call.b = std::move(input->b);
  return call;
}

std::vector<double> outputs_on_one_input(Target& target, const OneInputCall& call) {
  const TargetInfo& info = target.info();
  ValueBatch batch;
  batch.rows = call.rows;
  batch.a = call.a;
  batch.b = call.b;
  batch.placement = Placement::rows;
  std::vector<double> outputs(info.is_grid() ? info.grid.size() : 1, 0.0);
  target.evaluate(batch, outputs);
  return outputs;
}

std::vector<double> outputs_on_one_input(Target& target, const std::vector<FingerprintInputSet>& sets) {
  const std::optional<OneInputCall> call = one_input_call(target.info(), sets);
  return call ? outputs_on_one_input(target, *call) : std::vector<double>{};
}

Uniformity measure_uniformity(Target& target, const OrderMap& map,
                              const std::vector<std::pair<std::size_t, std::size_t>>& reference,
                              const std::vector<FingerprintInputSet>& sets, FingerprintStats& stats,
                              std::span<const double> measured) {
  const OutputGrid& grid = target.info().grid;
  Uniformity result;
  result.facts.resize(map.classes.size());
  result.differs.assign(grid.size(), false);
  if (grid.size() < 2) return result;
  std::vector<double> outputs(measured.begin(), measured.end());
  if (outputs.size() != grid.size()) {
    outputs = outputs_on_one_input(target, sets);
    if (outputs.empty()) return result;
    ++stats.target_calls;
  }
  const std::vector<std::uint32_t> element_class = classes_of_elements(map);
  for (std::size_t k = 0; k < map.classes.size(); ++k) {
    const auto [row, column] = reference.at(k);
    const std::uint64_t expected = bits_of(outputs[row * grid.columns + column]);
    std::vector<std::size_t> marked(grid.size(), 0);
    bool any = false;
    for (std::size_t e = 0; e < grid.size(); ++e)
      if (element_class[e] == k && bits_of(outputs[e]) != expected) {
        marked[e] = 1;
        result.differs[e] = true;
        any = true;
      }
    if (!any) continue;
    result.facts[k] = "differs at " + regions_text(grid, map.classes[k].tree, marked) + " (other bits than element (" +
                      std::to_string(row) + ", " + std::to_string(column) + ") on the same input)";
  }
  return result;
}

OrderMap reading_map(const OrderMap& map, const Uniformity& uniformity,
                     const std::vector<std::pair<std::size_t, std::size_t>>& reference) {
  if (!uniformity.any()) return map;
  const std::size_t classes = map.classes.size();
  const std::vector<std::uint32_t> element_class = classes_of_elements(map);
  std::vector<std::size_t> label(map.grid.size());
  for (std::size_t e = 0; e < label.size(); ++e) label[e] = element_class[e] + (uniformity.differs[e] ? classes : 0);
  std::vector<Tree> trees;
  for (int copy = 0; copy < 2; ++copy)
    for (const OrderClass& c : map.classes) trees.push_back(c.tree);
  const OrderMap split = map_of_elements(map.grid, label, std::move(trees));
  // Class k first, at index k (the part holding its reference element), then the others.
  OrderMap read = split;
  read.classes.clear();
  std::vector<bool> placed(split.classes.size(), false);
  for (std::size_t k = 0; k < classes; ++k) {
    const std::size_t at = split.class_index_at(reference[k].first, reference[k].second);
    read.classes.push_back(split.classes[at]);
    placed[at] = true;
  }
  for (std::size_t i = 0; i < split.classes.size(); ++i)
    if (!placed[i]) read.classes.push_back(split.classes[i]);
  return read;
}

}  // namespace fprev::detail
