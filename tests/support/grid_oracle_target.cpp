#include "grid_oracle_target.hpp"

#include <stdexcept>
#include <string>

#include "fprev/format.hpp"

namespace fprev {

GridOracleTarget::GridOracleTarget(OutputGrid grid, std::vector<Tree> trees, TreeOf tree_of,
                                   std::optional<NumericTraits> traits, bool columns_placement)
    : trees_(std::move(trees)), tree_of_(std::move(tree_of)) {
  if (trees_.empty()) throw std::invalid_argument("GridOracleTarget: no trees");
  std::size_t widest = 2;
  for (const Tree& t : trees_) {
    if (t.leaf_count() != trees_.front().leaf_count())
      throw std::invalid_argument("GridOracleTarget: trees of different sizes");
    widest = std::max(widest, t.max_arity());
  }
  NumericTraits t = traits ? *traits : TreeOracleTarget::default_traits(trees_.front());
  if (!traits) t.max_fused_width = widest;
  for (const Tree& tree : trees_) oracles_.push_back(std::make_unique<TreeOracleTarget>(tree, t, 1));
  info_.n = trees_.front().leaf_count();
  info_.traits = t;
  info_.grid = grid;
  info_.columns_placement = columns_placement;
  info_.description = "grid oracle " + std::to_string(grid.rows) + " x " +
                      std::to_string(grid.columns) + ", " + std::to_string(trees_.size()) +
                      " trees, n=" + std::to_string(info_.n);
}

std::size_t GridOracleTarget::tree_at(std::size_t row, std::size_t column) const {
  if (switch_ && probe_calls > switch_->call && row == switch_->row && column == switch_->column)
    return switch_->tree;
  return tree_of_(row, column);
}

void GridOracleTarget::switch_element_after(std::size_t call, std::size_t row, std::size_t column,
                                            std::size_t tree) {
  switch_ = Switch{call, row, column, tree};
}

template <class Batch, class Answer>
void GridOracleTarget::answer(const Batch& batch, std::size_t inputs, Placement placement,
                              std::span<double> outputs, Answer one) {
  (void)batch;
  const std::size_t rows = info_.grid.rows, columns = info_.grid.columns;
  const std::size_t lines = placement == Placement::rows ? rows : columns;
  if (outputs.size() != info_.grid.size() || inputs == 0 || inputs > lines ||
      (placement == Placement::columns && !info_.columns_placement))
    throw std::logic_error("GridOracleTarget: " + std::to_string(inputs) + " inputs on " +
                           std::string(to_string(placement)) + " with " +
                           std::to_string(outputs.size()) + " outputs");
  // Each tree answers each line once.
  std::vector<std::vector<double>> cache(lines, std::vector<double>(trees_.size(), 0.0));
  std::vector<std::vector<bool>> known(lines, std::vector<bool>(trees_.size(), false));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < columns; ++c) {
      const std::size_t line = placement == Placement::rows ? r : c;
      if (line >= inputs) {
        outputs[r * columns + c] = 0.0;
        continue;
      }
      const std::size_t t = tree_at(r, c);
      if (!known[line][t]) {
        cache[line][t] = one(*oracles_[t], line);
        known[line][t] = true;
      }
      outputs[r * columns + c] = cache[line][t];
    }
}

void GridOracleTarget::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  answer(batch, batch.probes.size(), batch.placement, outputs,
         [&](TreeOracleTarget& oracle, std::size_t line) {
           ProbeBatch single = batch;
           single.probes = batch.probes.subspan(line, 1);
           double out = 0.0;
           oracle.evaluate(single, std::span<double>(&out, 1));
           return out;
         });
  ++probe_calls;
}

void GridOracleTarget::widen_arithmetic(std::function<bool(std::size_t, std::size_t)> wider) {
  NumericTraits wide = info_.traits;
  wide.accumulator = Format::float64;
  wide_oracles_.clear();
  for (const Tree& tree : trees_) wide_oracles_.push_back(std::make_unique<TreeOracleTarget>(tree, wide, 1));
  wider_ = std::move(wider);
}

void GridOracleTarget::evaluate_elements(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t n = info_.n, rows = info_.grid.rows, columns = info_.grid.columns;
  const bool per_column = !batch.column_factors.empty();
  const std::size_t lines = batch.placement == Placement::rows ? rows : columns;
  if (outputs.size() != info_.grid.size() || batch.rows == 0 || batch.rows > lines ||
      (per_column && (!info_.column_right_factors || batch.placement != Placement::rows ||
                      batch.column_factors.size() != columns)))
    throw std::logic_error("GridOracleTarget: a value call it cannot answer");
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < columns; ++c) {
      const std::size_t line = batch.placement == Placement::rows ? r : c;
      double& out = outputs[r * columns + c];
      out = 0.0;
      if (line >= batch.rows) continue;
      const std::size_t t = values_tree_ ? *values_tree_ : tree_at(r, c);
      TreeOracleTarget& oracle = wider_ && wider_(r, c) ? *wide_oracles_[t] : *oracles_[t];
      ValueBatch single;
      single.rows = 1;
      single.a = batch.a.subspan(line * n, n);
      single.b = per_column ? batch.b.subspan(batch.column_factors[c] * n, n) : batch.b;
      std::vector<double> rounded;
      if (right_format_) {
        for (double v : single.b) rounded.push_back(round_to_format(v, *right_format_));
        single.b = rounded;
      }
      oracle.evaluate(single, std::span<double>(&out, 1));
    }
  ++value_calls;
}

void GridOracleTarget::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t n = info_.n;
  if (wider_ || right_format_ || !batch.column_factors.empty()) {
    evaluate_elements(batch, outputs);
    return;
  }
  answer(batch, batch.rows, batch.placement, outputs, [&](TreeOracleTarget& own, std::size_t line) {
    TreeOracleTarget& oracle = values_tree_ ? *oracles_[*values_tree_] : own;
    ValueBatch single;
    single.rows = 1;
    single.a = batch.a.subspan(line * n, n);
    single.b = batch.b;
    double out = 0.0;
    oracle.evaluate(single, std::span<double>(&out, 1));
    return out;
  });
  ++value_calls;
}

OrderMap GridOracleTarget::truth() const {
  std::vector<std::size_t> element(info_.grid.size());
  for (std::size_t r = 0; r < info_.grid.rows; ++r)
    for (std::size_t c = 0; c < info_.grid.columns; ++c)
      element[r * info_.grid.columns + c] = tree_of_(r, c);
  return map_of_elements(info_.grid, element, trees_);
}

}  // namespace fprev
