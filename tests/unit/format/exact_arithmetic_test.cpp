// The simulated arithmetic the mask scheme tests rely on, checked against hardware float32
// addition (a single correct rounding) and hand-worked fused sums.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "exact_arithmetic.hpp"

namespace {

using fprev::Format;
using fprev_test::add_in;
using fprev_test::fused_sum;

float random_float(std::mt19937_64& rng) {
  // Any sign, significand and exponent (subnormals included), never NaN / infinity.
  const auto bits = static_cast<std::uint32_t>(rng() % 0xff000000u);
  const std::uint32_t with_sign = (bits & 0x7fffffffu) % 0x7f800000u | (bits & 0x80000000u);
  float f = 0.0f;
  std::memcpy(&f, &with_sign, sizeof f);
  return f;
}

TEST(ExactArithmetic, AddInFloat32MatchesHardwareAddition) {
  std::mt19937_64 rng(17);
  for (int i = 0; i < 300000; ++i) {
    const float x = random_float(rng);
    // Half of the pairs close in magnitude, half far apart (where the double sum is inexact).
    const float y = i % 2 ? random_float(rng)
                          : std::ldexp(x, -static_cast<int>(rng() % 60)) * (rng() % 2 ? 1.0f : -1.0f) +
                                static_cast<float>(rng() % 7) * std::ldexp(x, -static_cast<int>(rng() % 40));
    if (!std::isfinite(y)) continue;
    const double expected = static_cast<double>(x + y);
    const double actual = add_in(x, y, Format::float32);
    ASSERT_EQ(actual, expected) << std::hexfloat << x << " + " << y;
  }
  // Sums that land exactly on a float32 tie only after rounding the double sum: 1 + 2^-24 + 2^-80
  // must round up although the double sum is the tie 1 + 2^-24.
  EXPECT_EQ(add_in(1.0 + 0x1p-24, 0x1p-80, Format::float32), 1.0 + 0x1p-23);
  EXPECT_EQ(add_in(1.0 + 0x1p-24, -0x1p-80, Format::float32), 1.0);
  EXPECT_EQ(add_in(1.0 + 0x3p-24, -0x1p-80, Format::float32), 1.0 + 0x1p-23);
}

TEST(ExactArithmetic, FusedSumAlignsAndTruncates) {
  // float32 keeps 24 bits below the leading one: 2^-23 survives next to 1, 2^-24 does not.
  fprev_test::FusedSum f = fused_sum({1.0, 0x1p-23}, Format::float32, 0);
  EXPECT_FALSE(f.every_small_term_vanished);
  EXPECT_EQ(f.result, 1.0 + 0x1p-23);
  f = fused_sum({1.0, 0x1.fp-24, 0x1.fp-24}, Format::float32, 0);
  EXPECT_TRUE(f.every_small_term_vanished);  // each term truncated on its own
  EXPECT_EQ(f.result, 1.0);
  // Three extra bits keep 2^-26 (the sum then rounds back to 1 in float32).
  f = fused_sum({1.0, 0x1p-26}, Format::float32, 3);
  EXPECT_FALSE(f.every_small_term_vanished);
  EXPECT_EQ(f.result, 1.0);
  f = fused_sum({-1.0, 0x1p-27}, Format::float32, 3);
  EXPECT_TRUE(f.every_small_term_vanished);
  EXPECT_EQ(f.result, -1.0);
  // Truncation is toward zero: 1 + 0x1.fp-23 keeps only 2^-23 of the second term.
  f = fused_sum({1.0, 0x1.fp-23}, Format::float32, 0);
  EXPECT_EQ(f.result, 1.0 + 0x1p-23);
}

}  // namespace
