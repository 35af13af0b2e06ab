// Bitwise simulation of an order map on random inputs: every element that added an input is
// compared with its class's tree summing that input; and the class of every element of a map.
#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>
#include <sstream>

#include "checks.hpp"

namespace fprev::detail {

std::vector<std::uint32_t> classes_of_elements(const OrderMap& map) {
  constexpr std::uint32_t kNone = 0xffffffffu;
  const std::size_t C = map.grid.columns;
  std::vector<std::uint32_t> element_class(map.grid.size(), kNone);
  const auto malformed = [] {
    fail(Finding::verification_failed, "the order map does not partition its grid", {}, std::nullopt,
         "a malformed map: every element belongs to exactly one class");
  };
  for (std::size_t id = 0; id < map.classes.size(); ++id)
    for (const Region& region : map.classes[id].regions)
      for (const IndexRange& rows : region.rows)
        for (std::size_t r = rows.first; r <= rows.last; ++r)
          for (const IndexRange& columns : region.columns)
            for (std::size_t c = columns.first; c <= columns.last; ++c) {
              if (r >= map.grid.rows || c >= C || element_class[r * C + c] != kNone) malformed();
              element_class[r * C + c] = static_cast<std::uint32_t>(id);
            }
  if (std::find(element_class.begin(), element_class.end(), kNone) != element_class.end()) malformed();
  return element_class;
}

void compare_grid_simulation(const TargetInfo& info, const RandomInputs& inputs, std::size_t input_count,
                             const std::function<bool(std::size_t input, std::size_t row)>& reaches,
                             const std::function<double(std::size_t input, std::size_t element)>& output_at,
                             const std::vector<std::uint32_t>& element_class,
                             const std::function<const Tree&(std::uint32_t)>& tree_of, RevealStats& stats,
                             std::span<const double> column_b, std::vector<bool>* matched) {
  const NumericTraits& traits = info.traits;
  const std::size_t n = info.n, rows = info.grid.rows, columns = info.grid.columns;
  const std::size_t factor_sets = column_b.empty() ? 1 : column_b.size() / n;
  std::map<std::tuple<std::size_t, std::size_t, std::uint32_t>, double> expected;  // (input, factors, class) -> sum
  std::map<std::uint32_t, bool> simulated;  // class -> its tree has a model here
  std::vector<double> values(n);
  // Per element: 0 not compared, 1 every input it added reproduced, 2 one did not.
  std::vector<std::uint8_t> verdict(matched != nullptr ? info.grid.size() : 0, 0);
  bool noted = false;  // a mismatch was noted (an arithmetic without an exact model): no more notes
  for (std::size_t input = 0; input < input_count; ++input)
    for (std::size_t r = 0; r < rows; ++r) {
      if (!reaches(input, r)) continue;
      for (std::size_t c = 0; c < columns; ++c) {
        const std::uint32_t id = element_class[r * columns + c];
        const Tree& tree = tree_of(id);
        auto model = simulated.find(id);
        if (model == simulated.end()) {
          // No model for a fused step of unknown arithmetic (see check_simulation in tree_checks.cpp).
          const bool may_fuse = tree.max_arity() > 2 || traits.max_fused_width > 2;
          model = simulated.emplace(id, !may_fuse || traits.simulate_fused).first;
        }
        if (!model->second) continue;
        const std::size_t factors = c % factor_sets;
        auto it = expected.find({input, factors, id});
        if (it == expected.end()) {
          for (std::size_t k = 0; k < n; ++k)
            values[k] = column_b.empty() ? inputs.summand(input, n, k) : inputs.a[input * n + k] * column_b[factors * n + k];
          it = expected
                   .emplace(std::make_tuple(input, factors, id),
                            simulate_sum(tree, values, traits.accumulator, traits.output, traits.fused_extra_bits))
                   .first;
        }
        const double got = output_at(input, r * columns + c);
        if (std::memcmp(&it->second, &got, sizeof got) == 0) {
          if (matched != nullptr && verdict[r * columns + c] == 0) verdict[r * columns + c] = 1;
          continue;
        }
        if (matched != nullptr) verdict[r * columns + c] = 2;
        if (noted) continue;
        std::ostringstream os;
        os.precision(17);
        os << "on random input #" << input << " output element (" << r << ", " << c << ") returned " << got
           << " but adding in the order of its class's tree (round to nearest in " << to_string(traits.accumulator)
           << ") gives " << it->second;
        const std::string probe = "random input #" + std::to_string(input) + " at output element (" +
                                  std::to_string(r) + ", " + std::to_string(c) + ")";
        if (simulation_mismatch(traits, os.str(), probe, got, stats)) {
          noted = true;
          if (matched == nullptr) return;
        }
      }
    }
  if (matched != nullptr) {
    matched->assign(verdict.size(), false);
    for (std::size_t e = 0; e < verdict.size(); ++e) (*matched)[e] = verdict[e] == 1;
  }
  if (!noted) stats.simulated_inputs += input_count;
}

namespace {
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
// A whole word at a time (FNV-1a's step on 64 bits, then a shift to spread the high bits back):
// a hash of millions of outputs that only has to tell lines apart, never stored.
void fnv_mix(std::uint64_t& hash, std::uint64_t word) {
  hash = (hash ^ word) * 0x100000001b3ull;
  hash ^= hash >> 31;
}
}  // namespace

void grid_signatures(const OutputGrid& grid, std::size_t inputs,
                     const std::function<double(std::size_t, std::size_t, std::size_t)>& output, RevealStats& stats) {
  stats.row_signatures.clear();
  stats.column_signatures.clear();
  if (inputs < 2) return;  // one input is too little to call two lines alike
  stats.row_signatures.assign(grid.rows, kFnvOffset);
  stats.column_signatures.assign(grid.columns, kFnvOffset);
  for (std::size_t input = 0; input < inputs; ++input)
    for (std::size_t r = 0; r < grid.rows; ++r)
      for (std::size_t c = 0; c < grid.columns; ++c) {
        const double value = output(input, r, c);
        std::uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        fnv_mix(stats.row_signatures[r], bits);
        fnv_mix(stats.column_signatures[c], bits);
      }
}

void grid_signatures(const OutputGrid& grid, const SimulatedRecord& measured, RevealStats& stats,
                     const std::vector<bool>& reproduced) {
  stats.row_signatures.clear();
  stats.column_signatures.clear();
  const ValueRecord& record = measured.record;
  if (record.outputs.size() != grid.size() || record.distinct == 0) return;
  const std::size_t n = record.a.size() / std::max<std::size_t>(1, record.inputs);
  const std::size_t factor_sets = measured.column_b.empty() || n == 0 ? 1 : measured.column_b.size() / n;
  const bool any_reproduced = reproduced.size() == grid.size();
  // Each element's inputs go into the hash before its bits, so lines that added other inputs never
  // match there. An element whose output is its class's tree's sum (bitwise, on exactly modelled
  // arithmetic) computed as the model does: such elements are alike whatever inputs they added.
  constexpr std::uint64_t kReproduced = 0x5eedf00dc0ffee11ull;
  std::vector<std::uint64_t> rows(grid.rows, kFnvOffset), columns(grid.columns, kFnvOffset);
  for (std::size_t r = 0; r < grid.rows; ++r)
    for (std::size_t c = 0; c < grid.columns; ++c) {
      if (any_reproduced && reproduced[r * grid.columns + c]) {
        fnv_mix(rows[r], kReproduced);
        fnv_mix(columns[c], kReproduced);
        continue;
      }
      std::uint64_t bits = 0;
      std::memcpy(&bits, &record.outputs[r * grid.columns + c], sizeof bits);
      for (std::uint64_t word : {std::uint64_t{r % record.distinct}, std::uint64_t{c % factor_sets}, bits}) {
        fnv_mix(rows[r], word);
        fnv_mix(columns[c], word);
      }
    }
  // A line is compared on the inputs the other axis gave it: kept where those are two or more.
  if (factor_sets >= 2) stats.row_signatures = std::move(rows);
  if (record.distinct >= 2) stats.column_signatures = std::move(columns);
}

std::vector<bool> compare_recorded_grid_simulation(const TargetInfo& info, const SimulatedRecord& measured,
                                                   const std::vector<std::uint32_t>& element_class,
                                                   const std::function<const Tree&(std::uint32_t)>& tree_of,
                                                   RevealStats& stats) {
  std::vector<bool> reproduced;
  if (measured.count == 0) return reproduced;
  compare_grid_simulation(
      info, measured.simulation, measured.count,
      [&](std::size_t input, std::size_t r) { return r % measured.count == input; },
      [&](std::size_t, std::size_t element) { return measured.record.outputs[element]; }, element_class, tree_of,
      stats, measured.column_b, &reproduced);
  return reproduced;
}

}  // namespace fprev::detail
