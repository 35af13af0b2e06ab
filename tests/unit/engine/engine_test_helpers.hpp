// Helpers for the engine tests: targets wrapping the oracle, and reveal shortcuts.
#pragma once

#include <cmath>
#include <memory>

#include "fprev/format.hpp"
#include "fprev/probe_inputs.hpp"
#include "fprev/reveal.hpp"
#include "oracle_target.hpp"

namespace fprev::testing {

// A float32 kernel under test that reads its n inputs through ProbeVectors, as the blas and eigen
// targets do (further masks included): a subclass gives what the kernel returns for a().
class FloatKernelTarget : public Target {
 public:
  explicit FloatKernelTarget(std::size_t n) : inputs_(n) {
    info_.n = n;
    info_.traits.input = info_.traits.accumulator = info_.traits.output = Format::float32;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    for (std::size_t p = 0; p < batch.probes.size(); ++p) {
      inputs_.load(batch, p);
      outputs[p] = run(inputs_.a());
    }
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    for (std::size_t r = 0; r < batch.rows; ++r) {
      inputs_.load(batch, r);
      outputs[r] = run(inputs_.a());
    }
  }

 protected:
  virtual double run(const float* a) const = 0;
  TargetInfo info_;

 private:
  ProbeVectors<float> inputs_;
};

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
