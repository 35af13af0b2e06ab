// Helpers for the engine tests: targets wrapping the oracle, and reveal shortcuts.
#pragma once

#include <cmath>
#include <memory>

#include "fprev/format.hpp"
#include "fprev/reveal.hpp"
#include "oracle_target.hpp"

namespace fprev::testing {

// The oracle with its outputs rounded to `output`, like an implementation whose output format
// counts exactly only up to 2^precision (Xie et al., USENIX ATC 2025 Sec. 8.1.2).
class RoundedOracle : public Target {
 public:
  RoundedOracle(Tree tree, Format output, std::size_t max_batch = 1)
      : oracle_(tree, traits_for(output, tree), max_batch) {}
  const TargetInfo& info() const override { return oracle_.info(); }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    oracle_.evaluate(batch, outputs);
    for (double& v : outputs) v = round_to_format(v, oracle_.info().traits.output);
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    oracle_.evaluate(batch, outputs);
  }
  TreeOracleTarget& oracle() { return oracle_; }

 private:
  static NumericTraits traits_for(Format output, const Tree& tree) {
    NumericTraits t;
    t.max_fused_width = std::max<std::size_t>(2, tree.max_arity());
    t.input = Format::float32;
    t.accumulator = Format::float32;
    t.output = output;
    return t;
  }
  TreeOracleTarget oracle_;
};

inline RevealOptions options_with(Algorithm algorithm, std::uint64_t seed = 1) {
  RevealOptions o;
  o.algorithm = algorithm;
  o.seed = seed;
  return o;
}

}  // namespace fprev::testing
