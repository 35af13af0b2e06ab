// A single-output sum or dot target around a function: what a backend for a kernel of one or two
// vectors needs, in one line (examples/module-template):
//
//   return fprev::make_sum_target<float>(n, "my sum, n=" + std::to_string(n), my_sum);
//   return fprev::make_dot_target<double>(n, "my dot", my_dot, {.exact_arithmetic_model = false});
//
// The function is called once per probe and per row of random values, with the vectors the
// engine built (ProbeVectors). The traits say the input, the accumulator and the output are T;
// SumTargetOptions changes what differs (see NumericTraits in fprev/target.hpp for every field).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "fprev/probe_inputs.hpp"
#include "fprev/target.hpp"

namespace fprev {

struct SumTargetOptions {
  // False when adding in the revealed order with plain IEEE additions in T does not reproduce
  // the kernel bitwise: a compensated (Kahan) sum, a wider accumulator for part of the sum, FMA.
  // The tree still rests on the probes; a mismatch in the bitwise check is then a note, not a
  // failure (NumericTraits::exact_arithmetic_model).
  bool exact_arithmetic_model = true;
  std::size_t max_batch = 64;  // probes per evaluate() call (the function is called per probe)
};

template <class T>
class FunctionTarget final : public Target {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");

 public:
  using Function = std::function<double(std::span<const T> a, std::span<const T> b)>;

  FunctionTarget(std::size_t n, std::string description, SummandKind summand, Function function,
                 SumTargetOptions options)
      : vectors_(n), function_(std::move(function)) {
    constexpr Format format = std::is_same_v<T, float> ? Format::float32 : Format::float64;
    info_.description = std::move(description);
    info_.n = n;
    info_.traits.input = info_.traits.accumulator = info_.traits.output = format;
    info_.traits.summand = summand;
    info_.traits.exact_arithmetic_model = options.exact_arithmetic_model;
    info_.max_batch = options.max_batch;
  }

  const TargetInfo& info() const override { return info_; }

  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    for (std::size_t p = 0; p < batch.probes.size(); ++p) {
      vectors_.load(batch, p);
      outputs[p] = call();
    }
  }

  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    for (std::size_t row = 0; row < batch.rows; ++row) {
      vectors_.load(batch, row);
      outputs[row] = call();
    }
  }

 private:
  double call() const {
    return function_(std::span<const T>(vectors_.a(), vectors_.size()),
                     std::span<const T>(vectors_.b(), vectors_.size()));
  }

  ProbeVectors<T> vectors_;
  Function function_;
  TargetInfo info_;
};

// A sum of the n values: sum(x) is called with x.size() == n.
template <class T, class Sum>
std::unique_ptr<Target> make_sum_target(std::size_t n, std::string description, Sum sum,
                                        SumTargetOptions options = {}) {
  return std::make_unique<FunctionTarget<T>>(
      n, std::move(description), SummandKind::plain,
      [sum = std::move(sum)](std::span<const T> a, std::span<const T> /*ones*/) {
        return static_cast<double>(sum(a));
      },
      options);
}

// A dot product of two vectors of n values: dot(x, y).
template <class T, class Dot>
std::unique_ptr<Target> make_dot_target(std::size_t n, std::string description, Dot dot,
                                        SumTargetOptions options = {}) {
  return std::make_unique<FunctionTarget<T>>(
      n, std::move(description), SummandKind::product,
      [dot = std::move(dot)](std::span<const T> a, std::span<const T> b) { return static_cast<double>(dot(a, b)); },
      options);
}

}  // namespace fprev
