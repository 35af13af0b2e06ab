#include "arithmetic.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace fprev::reference::detail {

double round_scaled(std::uint64_t magnitude, int exponent, bool negative, Format format) {
  if (magnitude == 0) return negative ? -0.0 : 0.0;
  const FormatInfo& info = format_info(format);
  const int bit_length = static_cast<int>(std::bit_width(magnitude));
  const int leading_exponent = exponent + bit_length - 1;
  // Exponent of the last kept bit: precision bits below the leading one, or the subnormal grid.
  int ulp_exponent = leading_exponent - info.precision + 1;
  const int subnormal_ulp = info.min_exponent - info.precision + 1;
  if (ulp_exponent < subnormal_ulp) ulp_exponent = subnormal_ulp;
  const int shift = ulp_exponent - exponent;
  std::uint64_t kept = magnitude;
  if (shift > 0) {
    if (shift > 64) {
      kept = 0;  // far below half an ulp
    } else {
      kept = shift == 64 ? 0 : magnitude >> shift;
      const std::uint64_t rest = shift == 64 ? magnitude : magnitude & ((std::uint64_t{1} << shift) - 1);
      const std::uint64_t half = std::uint64_t{1} << (shift - 1);
      if (rest > half || (rest == half && (kept & 1u) != 0)) ++kept;
    }
  } else {
    ulp_exponent = exponent;  // exact: bit_length <= precision here
  }
  double value = std::ldexp(static_cast<double>(kept), ulp_exponent);
  if (value > info.max_finite)
    value = info.has_infinity ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  return negative ? -value : value;
}

double fused_sum(const double* terms, std::size_t count, Format accumulator) {
  double largest = 0.0;
  bool finite = true;
  for (std::size_t t = 0; t < count; ++t) {
    finite = finite && std::isfinite(terms[t]);
    largest = std::fmax(largest, std::fabs(terms[t]));
  }
  if (!finite || largest == 0.0) {
    double plain = 0.0;  // NaN/infinity propagate; all zeros give zero
    for (std::size_t t = 0; t < count; ++t) plain += terms[t];
    return plain;
  }
  const FormatInfo& info = format_info(accumulator);
  // Aligned to the largest term's own exponent even when it is subnormal in the accumulator, as
  // fprev::simulate_sum models fused nodes; the final rounding then applies the subnormal grid.
  const int top = std::ilogb(largest);
  // Every term becomes a whole multiple of 2^grid with at most `precision` bits: |k| < 2^53, and
  // the sum of kMaxFusedWidth of them fits in 60 bits.
  const int grid = top - info.precision + 1;
  std::int64_t sum = 0;
  if (-grid <= 1023 && -grid >= -1022) {
    // Scaling by the power of two 2^-grid is exact here (the scaled terms are below 2^53, and a
    // scaled term that underflows is below 1 and truncates to 0 anyway); the conversion truncates.
    const double scale = from_bits(static_cast<std::uint64_t>(1023 - grid) << 52);
    for (std::size_t t = 0; t < count; ++t) sum += static_cast<std::int64_t>(terms[t] * scale);
  } else {  // terms at the very ends of the double range
    for (std::size_t t = 0; t < count; ++t)
      sum += static_cast<std::int64_t>(std::trunc(std::ldexp(terms[t], -grid)));
  }
  const bool negative = sum < 0;
  const std::uint64_t magnitude =
      negative ? static_cast<std::uint64_t>(-sum) : static_cast<std::uint64_t>(sum);
  return round_scaled(magnitude, grid, negative, accumulator);
}

}  // namespace fprev::reference::detail
