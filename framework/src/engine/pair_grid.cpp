// The pair grid's layouts and inputs (see pair_grid.hpp).
#include "pair_grid.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace fprev::detail {
namespace {

std::vector<std::uint32_t> leaves_of_lines(std::size_t n, std::size_t lines, PairGridTurn turn,
                                           std::mt19937_64& shuffle) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  if (turn == PairGridTurn::shuffled) std::shuffle(order.begin(), order.end(), shuffle);
  if (turn == PairGridTurn::half_way) std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n / 2), order.end());
  std::vector<std::uint32_t> leaves(lines);
  for (std::size_t line = 0; line < lines; ++line) leaves[line] = order[line % n];
  return leaves;
}

}  // namespace

PairGridLayout pair_grid_layout(std::size_t n, std::size_t rows, std::size_t columns, PairGridTurn turn,
                                std::uint64_t seed) {
  std::mt19937_64 shuffle(seed ^ 0x9a1c9e5d3b7f4a21ull);
  PairGridLayout layout;
  layout.row_leaf = leaves_of_lines(n, rows, turn, shuffle);
  layout.column_leaf = leaves_of_lines(n, columns, turn, shuffle);
  return layout;
}

PairGridInputs pair_grid_inputs(const MaskScheme& crossed, std::size_t n, const PairGridLayout& layout) {
  const ProbeValues& v = crossed.values;
  PairGridInputs inputs;
  inputs.a.assign(layout.row_leaf.size() * n, v.unit.a);
  for (std::size_t r = 0; r < layout.row_leaf.size(); ++r) inputs.a[r * n + layout.row_leaf[r]] = v.plus.a;
  inputs.b.assign(n * n, v.unit.b);
  for (std::size_t j = 0; j < n; ++j) inputs.b[j * n + j] = v.minus.b;
  inputs.column_factors = layout.column_leaf;
  return inputs;
}

std::optional<MaskScheme> pair_grid_scheme(const TargetInfo& info, const RevealOptions& options,
                                           bool low_range_mode) {
  const std::size_t n = info.n;
  if (!options.pair_grid || low_range_mode || !info.column_right_factors) return std::nullopt;
  if (options.algorithm != Algorithm::fprev && options.algorithm != Algorithm::basic) return std::nullopt;
  if (n < 3 || n > kPairGridMaxLeaves || info.grid.rows < n || info.grid.columns < n) return std::nullopt;
  std::optional<MaskScheme> scheme = choose_crossed_mask_scheme(info.traits, n);
  // Every count below n must come back exactly (the exact range, where FPRev reads whole counts).
  if (scheme && scheme->exact_count_limit <= n) return std::nullopt;
  return scheme;
}

}  // namespace fprev::detail
