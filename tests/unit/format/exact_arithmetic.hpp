// Simulated arithmetic in a format, built on round_to_format: one correctly rounded addition, and
// a fused multi-term sum per Valpey et al., NFM 2025 (align to the largest exponent, keep precision + extra
// bits, truncate each term).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "fprev/format.hpp"

namespace fprev_test {

// x + y rounded once into `format`. The double sum is first rounded to odd (TwoSum gives the exact
// error), which keeps enough information for the second rounding to be correct for every format
// with at most 51 bits of precision (Boldo & Melquiond, "Emulation of FMA and correctly rounded
// sums: proved algorithms using rounding to odd"); float64 is the hardware addition itself.
inline double add_in(double x, double y, fprev::Format format) {
  const double sum = x + y;
  if (format == fprev::Format::float64 || !std::isfinite(sum)) {
    return fprev::round_to_format(sum, format);
  }
  const double y_part = sum - x;
  const double error = (x - (sum - y_part)) + (y - y_part);
  double odd = sum;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &sum, sizeof bits);
  if (error != 0.0 && (bits & 1u) == 0) {
    odd = std::nextafter(sum, error > 0 ? std::numeric_limits<double>::infinity()
                                        : -std::numeric_limits<double>::infinity());
  }
  return fprev::round_to_format(odd, format);
}

struct FusedSum {
  double result = 0.0;
  bool every_small_term_vanished = true;  // each term below the largest truncated to exactly 0
};

// A w-term fused sum: every term aligned to the largest exponent and truncated (toward zero) to
// precision + extra_bits bits below it, the truncated terms added, the result rounded to `format`.
// Reports whether each term smaller than the largest one was truncated to zero.
inline FusedSum fused_sum(const std::vector<double>& terms, fprev::Format format, int extra_bits) {
  FusedSum fused;
  int largest = std::numeric_limits<int>::min();
  for (double t : terms) {
    if (t != 0.0) largest = std::max(largest, std::ilogb(t));
  }
  if (largest == std::numeric_limits<int>::min()) return fused;
  const int lowest_kept = largest - (fprev::format_info(format).precision - 1) - extra_bits;
  double exact = 0.0;
  for (double t : terms) {
    const double truncated = std::ldexp(std::trunc(std::ldexp(t, -lowest_kept)), lowest_kept);
    if (t != 0.0 && std::ilogb(t) < largest && truncated != 0.0) fused.every_small_term_vanished = false;
    exact = add_in(exact, truncated, fprev::Format::float64);
  }
  fused.result = fprev::round_to_format(exact, format);
  return fused;
}

}  // namespace fprev_test
