// sdot_ / ddot_ as a target: summand k = x[k] * y[k], one input per call.
#pragma once

#include <memory>
#include <string>

#include "fprev/blas/library.hpp"
#include "fprev/probe_inputs.hpp"
#include "fprev/target.hpp"

namespace fprev::blas {

template <class T>
class DotTarget final : public Target {
 public:
  DotTarget(std::shared_ptr<const Library> library, int threads, DotFn<T> dot, std::size_t n,
            Format dtype, std::string description)
      : library_(std::move(library)), threads_(threads), dot_(dot), vectors_(n) {
    info_.description = std::move(description);
    info_.n = n;
    info_.traits.input = dtype;
    info_.traits.accumulator = dtype;  // FMA keeps exact products: the engine's model allows it
    info_.traits.output = dtype;
    info_.traits.summand = SummandKind::product;
    // Kernels may keep part of the sum wider than dtype (OpenBLAS sdot: its tail in double).
    info_.traits.exact_arithmetic_model = false;
    info_.max_batch = 1;
    info_.alignment = AlignmentSupport::honours_offsets;  // ProbeVectors places x and y at the offset
    info_.extra_masks = true;                              // and sets a probe's further masks
  }

  const TargetInfo& info() const override { return info_; }

  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    check_sizes(batch.probes.size(), outputs.size());
    library_->use_threads(threads_);
    for (std::size_t p = 0; p < outputs.size(); ++p) {
      vectors_.load(batch, p);
      outputs[p] = call();
    }
  }

  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    check_sizes(batch.rows, outputs.size());
    if (batch.a.size() < batch.rows * info_.n || (!batch.b.empty() && batch.b.size() < info_.n))
      throw TargetError(info_.description + ": value batch smaller than its rows x n");
    library_->use_threads(threads_);
    for (std::size_t row = 0; row < outputs.size(); ++row) {
      vectors_.load(batch, row);
      outputs[row] = call();
    }
  }

 private:
  double call() {
    const auto n = static_cast<FortranInt>(info_.n);
    const FortranInt one = 1;
    return static_cast<double>(dot_(&n, vectors_.a(), &one, vectors_.b(), &one));
  }

  void check_sizes(std::size_t inputs, std::size_t outputs) const {
    if (inputs != outputs || inputs > info_.max_batch)
      throw TargetError(info_.description + ": evaluate() got " + std::to_string(inputs) +
                        " inputs for " + std::to_string(outputs) + " outputs (max batch " +
                        std::to_string(info_.max_batch) + ")");
  }

  std::shared_ptr<const Library> library_;
  int threads_;
  DotFn<T> dot_;
  ProbeVectors<T> vectors_;
  TargetInfo info_;
};

}  // namespace fprev::blas
