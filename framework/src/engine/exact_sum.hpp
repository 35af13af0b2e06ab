// An exact accumulator for sums of doubles (and of products of two doubles), rounded once at the
// end: the reference against which the impact of a change measures relative errors (impact.cpp).
// long double is not enough (a float64 sum with cancellation loses every bit it has); this is a
// fixed-point superaccumulator covering every double's bit, from 2^-1074 up past the largest
// finite value, in the manner of Kulisch's long accumulator (Kulisch, "Computer Arithmetic and
// Validity", de Gruyter 2013) and of ExBLAS's (Collange et al., "Numerical reproducibility for the
// parallel reduction on multi- and many-core architectures", Parallel Computing 2015).
#pragma once

#include <array>
#include <cstdint>

#include "fprev/format.hpp"

namespace fprev::detail {

class ExactSum {
 public:
  // Adds a finite double exactly (a non-finite one makes the sum non-finite: NaN).
  void add(double x);
  // Adds a * b exactly: the product split by an error-free transformation (a * b == p + e with
  // p = fl(a * b), e = fma(a, b, -p); exact unless e underflows, far below the sets' values).
  void add_product(double a, double b);
  // The exact sum rounded once to `format` (to nearest, ties to even; overflow gives infinity).
  double rounded(Format format) const;
  void clear();

 private:
  // Digit k holds a signed multiple of 2^(32 k + kLowestBit); carries are propagated lazily.
  static constexpr int kLowestBit = -1074;
  static constexpr int kDigits = 68;  // 32 x 68 = 2176 bits: above 2^1024 with room for carries
  void normalize();
  std::array<std::int64_t, kDigits> digits_{};
  std::uint32_t pending_ = 0;  // additions since the last carry propagation
  bool non_finite_ = false;
};

}  // namespace fprev::detail
