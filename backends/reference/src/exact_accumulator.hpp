// A long fixed-point accumulator (a superaccumulator, Collange et al., Parallel Computing 2015) covering every finite double
// exactly: the sum of any number of doubles is kept without error and rounded once, correctly, to
// the requested format. Used by the `exact` order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "fprev/format.hpp"

namespace fprev::reference::detail {

class ExactAccumulator {
 public:
  void clear();
  void add(double x);
  // The exact sum rounded to nearest-even into `format`; NaN/infinity as IEEE addition would give
  // when a non-finite value was added.
  double round(Format format) const;

 private:
  // Digit i (radix 2^32) weighs 2^(32 i - 1074). A double's significand shifted into place spans
  // at most three digits; digits are signed 64-bit and normalised before they could overflow.
  static constexpr int kBias = 1074;
  static constexpr std::size_t kDigits = 68;  // (2045 + 85) / 32 rounded up, plus carry room
  void normalise(std::array<std::int64_t, kDigits>& digits) const;
  std::array<std::int64_t, kDigits> digits_{};
  std::uint64_t pending_ = 0;  // additions since the last normalisation
  bool non_finite_ = false;
  double non_finite_sum_ = 0.0;
};

}  // namespace fprev::reference::detail
