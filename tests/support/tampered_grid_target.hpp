// A 6 x 5 grid of one balanced tree of 16 leaves (GridOracleTarget) whose element (row, column)
// answers value calls one ulp up in the calls `tampered` picks (counted from 1); probes are answered
// as the tree says. For the checks that only value inputs can fail: an element whose arithmetic
// differs from its tree (every call), run-to-run non-determinism (calls that flip), an order that
// changes between calls (every call from some call on).
#pragma once

#include <cmath>
#include <functional>
#include <utility>

#include "grid_oracle_target.hpp"
#include "random_trees.hpp"

namespace fprev {

class TamperedGridTarget final : public Target {
 public:
  TamperedGridTarget(std::size_t row, std::size_t column, std::function<bool(std::size_t call)> tampered)
      : oracle_({6, 5}, {balanced_tree(16)}, [](std::size_t, std::size_t) { return std::size_t{0}; }),
        element_(row * 5 + column),
        tampered_(std::move(tampered)) {}
  const TargetInfo& info() const override { return oracle_.info(); }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override { oracle_.evaluate(batch, outputs); }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    oracle_.evaluate(batch, outputs);
    if (tampered_(++value_calls_)) outputs[element_] = std::nextafter(outputs[element_], 1e300);
  }
  OrderMap truth() const { return oracle_.truth(); }

 private:
  GridOracleTarget oracle_;
  std::size_t element_;
  std::function<bool(std::size_t)> tampered_;
  std::size_t value_calls_ = 0;
};

}  // namespace fprev
