// Bitwise simulation of an order map on random inputs: every element that added an input is
// compared with its class's tree summing that input.
#include <cstring>
#include <map>
#include <sstream>

#include "checks.hpp"

namespace fprev::detail {

void compare_grid_simulation(const TargetInfo& info, const RandomInputs& inputs, std::size_t input_count,
                             const std::function<bool(std::size_t input, std::size_t row)>& reaches,
                             const std::function<double(std::size_t input, std::size_t element)>& output_at,
                             const std::vector<std::uint32_t>& element_class,
                             const std::function<const Tree&(std::uint32_t)>& tree_of, RevealStats& stats) {
  const NumericTraits& traits = info.traits;
  const std::size_t n = info.n, rows = info.grid.rows, columns = info.grid.columns;
  std::map<std::pair<std::size_t, std::uint32_t>, double> expected;  // (input, class) -> sum
  std::map<std::uint32_t, bool> simulated;  // class -> its tree has a model here
  std::vector<double> values(n);
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
        auto it = expected.find({input, id});
        if (it == expected.end()) {
          for (std::size_t k = 0; k < n; ++k) values[k] = inputs.summand(input, n, k);
          it = expected
                   .emplace(std::make_pair(input, id),
                            simulate_sum(tree, values, traits.accumulator, traits.output, traits.fused_extra_bits))
                   .first;
        }
        const double got = output_at(input, r * columns + c);
        if (std::memcmp(&it->second, &got, sizeof got) == 0) continue;
        std::ostringstream os;
        os.precision(17);
        os << "on random input #" << input << " output element (" << r << ", " << c << ") returned " << got
           << " but adding in the order of its class's tree (round to nearest in " << to_string(traits.accumulator)
           << ") gives " << it->second;
        const std::string probe = "random input #" + std::to_string(input) + " at output element (" +
                                  std::to_string(r) + ", " + std::to_string(c) + ")";
        if (simulation_mismatch(traits, os.str(), probe, got, stats)) return;
      }
    }
  stats.simulated_inputs += input_count;
}

namespace {
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
void fnv_mix(std::uint64_t& hash, std::uint64_t word) {
  for (int byte = 0; byte < 8; ++byte) hash = (hash ^ ((word >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
}
}  // namespace

void grid_signatures(const OutputGrid& grid, std::size_t inputs,
                     const std::function<std::size_t(std::size_t, std::size_t)>& input_of,
                     const std::function<double(std::size_t, std::size_t, std::size_t)>& output, RevealStats& stats) {
  stats.row_signatures.clear();
  stats.column_signatures.clear();
  if (inputs == 0) return;  // no evidence: no line is known to compute like another
  stats.row_signatures.assign(grid.rows, kFnvOffset);
  stats.column_signatures.assign(grid.columns, kFnvOffset);
  for (std::size_t input = 0; input < inputs; ++input)
    for (std::size_t r = 0; r < grid.rows; ++r) {
      fnv_mix(stats.row_signatures[r], input_of(input, r));
      for (std::size_t c = 0; c < grid.columns; ++c) {
        const double value = output(input, r, c);
        std::uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        fnv_mix(stats.row_signatures[r], bits);
        fnv_mix(stats.column_signatures[c], bits);
      }
    }
}

void grid_signatures(const OutputGrid& grid, const ValueRecord& record, RevealStats& stats) {
  if (record.outputs.size() != grid.size() || record.distinct == 0) {
    grid_signatures(grid, 0, {}, {}, stats);
    return;
  }
  grid_signatures(
      grid, 1, [&](std::size_t, std::size_t r) { return r % record.distinct; },
      [&](std::size_t, std::size_t r, std::size_t c) { return record.outputs[r * grid.columns + c]; }, stats);
}

void compare_recorded_grid_simulation(const TargetInfo& info, const SimulatedRecord& measured,
                                      const std::vector<std::uint32_t>& element_class,
                                      const std::function<const Tree&(std::uint32_t)>& tree_of, RevealStats& stats) {
  if (measured.count == 0) return;
  compare_grid_simulation(
      info, measured.simulation, measured.count,
      [&](std::size_t input, std::size_t r) { return r % measured.count == input; },
      [&](std::size_t, std::size_t element) { return measured.record.outputs[element]; }, element_class, tree_of,
      stats);
}

}  // namespace fprev::detail
