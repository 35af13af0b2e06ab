// A toy BLAS dot product (float32, sequential order) whose arithmetic can be changed without
// changing its order, for the fingerprint's tests: the upgrades the order alone does not see.
//   plain        products rounded to float32, then added in float32 (round to nearest even)
//   double_tail  as plain, but the additions of leaves >= tail_start are kept in float64 (as
//                OpenBLAS's sdot keeps its n mod 32 tail), rounded to float32 at the end
//   toward_zero  every addition rounded toward zero
//   fma          every product contracted into its addition (fmaf)
#pragma once

#include <cstddef>
#include <string>

#include "fprev/target.hpp"

namespace fprev::test {

enum class ToyArithmetic { plain, double_tail, toward_zero, fma };

class ToyDotTarget : public Target {
 public:
  ToyDotTarget(std::size_t n, ToyArithmetic arithmetic, std::size_t tail_start = 0);
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;

 private:
  template <class Leaf>
  double dot(Leaf leaf) const;

  TargetInfo info_;
  ToyArithmetic arithmetic_;
  std::size_t tail_start_;
};

}  // namespace fprev::test
