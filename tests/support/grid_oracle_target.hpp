// A grid target whose elements follow known trees, for testing order maps without numerics.
//
// Element (r, c) of the rows x columns grid follows trees[tree_of(r, c)] and answers like a
// TreeOracleTarget of that tree: a probe on its row (Placement::rows) or column (Placement::columns)
// returns the count of active units outside the LCA of the masks, a value input the tree's
// simulated sum. Idle lines return 0. For engine tests it can misbehave on request: from a given
// probe call on, one element follows another tree (an order that changes between calls).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "fprev/order_map.hpp"
#include "oracle_target.hpp"

namespace fprev {

class GridOracleTarget : public Target {
 public:
  using TreeOf = std::function<std::size_t(std::size_t row, std::size_t column)>;
  GridOracleTarget(OutputGrid grid, std::vector<Tree> trees, TreeOf tree_of,
                   std::optional<NumericTraits> traits = std::nullopt, bool columns_placement = true);

  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;

  // The map the target follows (canonical), to compare a revealed map with.
  OrderMap truth() const;

  // From probe call number `call` (0-based) on, element (row, column) follows trees[tree].
  void switch_element_after(std::size_t call, std::size_t row, std::size_t column, std::size_t tree);
  // Every element answers value inputs as trees[tree] does, whatever its order (an arithmetic
  // that hides the order from random inputs): only probes can tell the classes apart.
  void answer_values_with(std::size_t tree) { values_tree_ = tree; }
  // Value calls with rows placement may carry right factors per column
  // (TargetInfo::column_right_factors); element (r, c) adds row r's inputs times column c's factors.
  void take_column_factors() { info_.column_right_factors = true; }
  // Elements where `wider(row, column)` holds add value inputs with a float64 accumulator, rounded
  // to the output format at the end: the same tree, another arithmetic (a kernel keeping its sums
  // wider). Probes are unaffected.
  void widen_arithmetic(std::function<bool(std::size_t, std::size_t)> wider);
  // Value calls round every right factor to `format` before multiplying and keep the left ones
  // (a kernel that converts op(B) alone): a product then depends on which factor is on which side.
  void round_right_factors(Format format) { right_format_ = format; }

  std::size_t probe_calls = 0;
  std::size_t value_calls = 0;
  std::size_t calls() const { return probe_calls + value_calls; }

 private:
  std::size_t tree_at(std::size_t row, std::size_t column) const;
  template <class Batch, class Answer>
  void answer(const Batch& batch, std::size_t inputs, Placement placement, std::span<double> outputs,
              Answer one);

  TargetInfo info_;
  std::vector<Tree> trees_;
  TreeOf tree_of_;
  std::vector<std::unique_ptr<TreeOracleTarget>> oracles_;
  std::vector<std::unique_ptr<TreeOracleTarget>> wide_oracles_;  // float64 accumulators
  std::function<bool(std::size_t, std::size_t)> wider_;
  // Value calls answered element by element (column factors, or a wider arithmetic somewhere).
  void evaluate_elements(const ValueBatch& batch, std::span<double> outputs);
  struct Switch {
    std::size_t call, row, column, tree;
  };
  std::optional<Switch> switch_;
  std::optional<std::size_t> values_tree_;
  std::optional<Format> right_format_;
};

}  // namespace fprev
