// Arithmetic the kernels share: additions rounded into a narrower accumulator without double
// rounding, the fused multi-term node, and rounding of a scaled integer to a format. The hot
// paths are inline bit manipulation: a narrow-format kernel is probed millions of times.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "fprev/format.hpp"

namespace fprev::reference::detail {

inline std::uint64_t bits_of(double x) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

inline double from_bits(std::uint64_t bits) {
  double x = 0.0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// a + b rounded to odd in double: the nearest double if exact, else whichever neighbour of the
// exact sum has an odd last bit. Rounding that once more to a format with at most 51 bits of
// precision gives the correctly rounded sum (plain round(double(a + b)) can round twice).
inline double round_to_odd_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  const double error = (a - (s - bb)) + (b - bb);  // TwoSum: a + b == s + error exactly
  if (error == 0.0 || !std::isfinite(s)) return s;
  const std::uint64_t bits = bits_of(s);
  if ((bits & 1u) != 0) return s;  // already odd
  // The exact sum lies strictly between s and its neighbour towards `error` (same sign as s
  // unless s is zero, which is exact): step one unit of the last place in that direction.
  const bool away_from_zero = (error > 0) == (s > 0);
  return from_bits(away_from_zero ? bits + 1 : bits - 1);
}

// Rounds doubles to nearest-even into float32, float16 or bfloat16: the bits of a double in the
// format's normal range are rounded in place, zeros are kept; subnormals, overflow and non-finite
// values go through fprev::round_to_format.
class FormatRounder {
 public:
  explicit FormatRounder(Format format) : format_(format) {
    const FormatInfo& info = format_info(format);
    shift_ = 53 - info.precision;  // dropped significand bits
    lowest_biased_ = info.min_exponent + 1023;
    highest_biased_ = info.max_exponent + 1023;
  }

  Format format() const { return format_; }

  double round(double x) const {
    if (format_ == Format::float32) return static_cast<double>(static_cast<float>(x));
    // Zeros are exact in every format (and most of a probe's summands are zero beyond the exact
    // counting range, where each probe keeps only one node's leaves).
    if (x == 0.0) return x;
    const std::uint64_t bits = bits_of(x);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    if (biased < lowest_biased_ || biased > highest_biased_) return round_to_format(x, format_);
    const std::uint64_t unit = std::uint64_t{1} << shift_;
    const std::uint64_t kept_lsb = (bits >> shift_) & 1u;
    const std::uint64_t rounded = (bits + (unit / 2 - 1) + kept_lsb) & ~(unit - 1);
    if (static_cast<int>((rounded >> 52) & 0x7ff) > highest_biased_)  // carried past the top
      return std::copysign(std::numeric_limits<double>::infinity(), x);
    return from_bits(rounded);
  }

  double add(double a, double b) const { return round(round_to_odd_sum(a, b)); }

 private:
  Format format_;
  int shift_ = 0;
  int lowest_biased_ = 0;
  int highest_biased_ = 0;
};

// magnitude * 2^exponent rounded to nearest-even into `format` (gradual underflow, overflow to
// infinity), with the sign of `negative`. Exact (no intermediate rounding).
double round_scaled(std::uint64_t magnitude, int exponent, bool negative, Format format);

// One fused node over terms[0..count) (count >= 2): every term is aligned to the largest exponent
// among them, truncated toward zero to precision(accumulator) bits, the truncated terms are added
// exactly and the sum is rounded to nearest-even into the accumulator. Non-finite terms propagate
// as in IEEE arithmetic. count <= kMaxFusedWidth (64), so the integer sum stays below 2^59.
double fused_sum(const double* terms, std::size_t count, Format accumulator);

// fused_sum with the format's data looked up once: the fused kernel calls it for every node.
class FusedAdder {
 public:
  explicit FusedAdder(Format accumulator)
      : format_(accumulator), rounder_(accumulator == Format::float64 ? Format::float32 : accumulator),
        precision_(format_info(accumulator).precision) {}

  double sum(const double* terms, std::size_t count) const {
    std::uint64_t largest = 0;  // largest |term| as bits: finite doubles order like their bits
    for (std::size_t t = 0; t < count; ++t) {
      const std::uint64_t magnitude = bits_of(terms[t]) & ~(std::uint64_t{1} << 63);
      largest = magnitude > largest ? magnitude : largest;
    }
    const int biased = static_cast<int>(largest >> 52);
    const int grid = biased - 1023 - precision_ + 1;  // exponent of the last kept bit
    // Fast path: a normal largest term and a grid whose powers of two, and every sum of up to
    // 2^59 grid units, are normal doubles. Elsewhere (zeros, subnormals, NaN/infinity, the ends
    // of the double range) the general routine.
    if (biased == 0 || biased == 0x7ff || grid < -1000 || grid > 900)
      return fused_sum(terms, count, format_);
    const double scale = from_bits(static_cast<std::uint64_t>(1023 - grid) << 52);    // 2^-grid
    const double unscale = from_bits(static_cast<std::uint64_t>(1023 + grid) << 52);  // 2^grid
    std::int64_t units = 0;
    // Scaling by a power of two is exact; the conversion truncates toward zero.
    for (std::size_t t = 0; t < count; ++t) units += static_cast<std::int64_t>(terms[t] * scale);
    // units * 2^grid is exact in double for the narrow formats (|units| < 2^31), and for float64
    // converting units rounds once, to nearest even, which is the final rounding.
    const double exact = static_cast<double>(units) * unscale;
    return format_ == Format::float64 ? exact : rounder_.round(exact);
  }

 private:
  Format format_;
  FormatRounder rounder_;  // for the narrow formats (unused for float64, which rounds on conversion)
  int precision_;
};

}  // namespace fprev::reference::detail
