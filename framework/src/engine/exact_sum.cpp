// The superaccumulator: every double is an integer below 2^53 times a power of two of at least 2^-1074,
// so a long enough fixed-point number holds any sum of them exactly.
#include "exact_sum.hpp"

#include "fprev/impact.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace fprev::detail {
namespace {

__extension__ using UInt128 = unsigned __int128;

constexpr std::uint32_t kCarryInterval = 1u << 30;  // additions before an int64 digit could overflow

int exact_bit_length(UInt128 x) {
  int bits = 0;
  for (; x != 0; x >>= 1) ++bits;
  return bits;
}

}  // namespace

void ExactSum::add(double x) {
  if (x == 0.0) return;
  if (!std::isfinite(x)) {
    non_finite_ = true;
    return;
  }
  // x = +-significand * 2^exponent from its bits (no libm call: this runs once per summand).
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  const std::uint64_t significand = biased == 0 ? fraction : fraction | (std::uint64_t{1} << 52);
  const int exponent = biased == 0 ? -1074 : biased - 1075;
  const bool negative = (bits >> 63) != 0;
  const int offset = exponent - kLowestBit;
  const UInt128 shifted = static_cast<UInt128>(significand) << (offset % 32);
  const auto digit = static_cast<std::size_t>(offset / 32);
  for (std::size_t k = 0; k < 3; ++k) {
    const auto part = static_cast<std::int64_t>((shifted >> (32 * k)) & 0xffff'ffffu);
    digits_[digit + k] += negative ? -part : part;
  }
  if (++pending_ == kCarryInterval) normalize();
}

void ExactSum::add_product(double a, double b) {
  const double product = a * b;
  add(product);
  if (std::isfinite(product)) add(std::fma(a, b, -product));  // the product's rounding error, exact
}

void ExactSum::clear() {
  digits_.fill(0);
  pending_ = 0;
  non_finite_ = false;
}

void ExactSum::normalize() {
  // Every digit but the top one into [0, 2^32); the top one carries the sign.
  for (std::size_t k = 0; k + 1 < digits_.size(); ++k) {
    const std::int64_t carry = digits_[k] >> 32;  // floor division by 2^32
    digits_[k] &= 0xffff'ffff;
    digits_[k + 1] += carry;
  }
  pending_ = 0;
}

double ExactSum::rounded(Format format) const {
  if (non_finite_) return std::numeric_limits<double>::quiet_NaN();
  ExactSum sum = *this;
  sum.normalize();
  const bool negative = sum.digits_.back() < 0;
  if (negative) {
    for (std::int64_t& d : sum.digits_) d = -d;
    sum.normalize();
  }
  std::size_t top = sum.digits_.size();
  while (top > 0 && sum.digits_[top - 1] == 0) --top;
  if (top == 0) return 0.0;
  const std::size_t t = top - 1;  // the highest non-zero digit
  // The top three digits as one integer, the rest as a sticky bit (round half to even needs only
  // whether anything is left below).
  UInt128 magnitude = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    magnitude <<= 32;
    if (t >= k) magnitude |= static_cast<std::uint32_t>(sum.digits_[t - k]);
  }
  const int low_exponent = 32 * (static_cast<int>(t) - 2) + kLowestBit;
  bool sticky = false;
  for (std::size_t k = 0; k + 2 < t; ++k) sticky = sticky || sum.digits_[k] != 0;

  const FormatInfo& info = format_info(format);
  const int value_exponent = low_exponent + exact_bit_length(magnitude) - 1;
  const int quantum = std::max(value_exponent, info.min_exponent) - (info.precision - 1);
  const int shift = quantum - low_exponent;
  double result = 0.0;
  if (shift <= 0) {
    result = std::ldexp(static_cast<double>(magnitude), low_exponent);  // fits the format exactly
  } else if (shift < 128) {
    UInt128 kept = magnitude >> shift;
    const UInt128 rest = magnitude & ((UInt128{1} << shift) - 1);
    const UInt128 half = UInt128{1} << (shift - 1);
    if (rest > half || (rest == half && (sticky || (kept & 1) != 0))) ++kept;
    result = std::ldexp(static_cast<double>(kept), quantum);  // kept <= 2^precision: exact
  }
  // round_to_format leaves a value of the format as it is and turns an overflow into the
  // format's infinity (NaN for fp8_e4m3).
  return round_to_format(negative ? -result : result, format);
}

}  // namespace fprev::detail

namespace fprev {

double exactly_rounded_sum(std::span<const double> a, std::span<const double> b, Format format) {
  detail::ExactSum sum;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (b.empty()) sum.add(a[k]);
    else sum.add_product(a[k], b[k]);
  }
  return sum.rounded(format);
}

}  // namespace fprev
