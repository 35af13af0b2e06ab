// round_to_format against independent references: the hardware double -> float conversion for
// float32, values enumerated from each narrow format's definition (ReferenceGrid), and values
// checked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fprev/format.hpp"
#include "reference_grid.hpp"

namespace {

using fprev::Format;
using fprev::round_to_format;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Same value and, for zeros, the same sign; NaN matches NaN.
::testing::AssertionResult same_value(double expected, double actual) {
  if (std::isnan(expected) && std::isnan(actual)) return ::testing::AssertionSuccess();
  if (expected == actual && std::signbit(expected) == std::signbit(actual)) {
    return ::testing::AssertionSuccess();
  }
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, "expected %a, got %a", expected, actual);
  return ::testing::AssertionFailure() << buffer;
}

TEST(RoundToFormat, Float16HandCheckedValues) {
  const Format f = Format::float16;
  EXPECT_EQ(round_to_format(65504.0, f), 65504.0);                       // largest finite
  EXPECT_EQ(round_to_format(65519.99, f), 65504.0);                      // below max + half ulp
  EXPECT_EQ(round_to_format(65520.0, f), kInf);                          // max + half ulp: ties up
  EXPECT_EQ(round_to_format(-65520.0, f), -kInf);
  EXPECT_EQ(round_to_format(std::ldexp(1.0, -24), f), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_TRUE(same_value(0.0, round_to_format(std::ldexp(1.0, -25), f)));     // tie to even 0
  EXPECT_TRUE(same_value(-0.0, round_to_format(-std::ldexp(1.0, -25), f)));
  EXPECT_EQ(round_to_format(std::ldexp(1.0, -25) * 1.0000001, f), std::ldexp(1.0, -24));
  EXPECT_EQ(round_to_format(3 * std::ldexp(1.0, -25), f), std::ldexp(1.0, -23));  // tie to even 2
  EXPECT_EQ(round_to_format(1.0 + std::ldexp(1.0, -11), f), 1.0);       // tie to even 1
  EXPECT_EQ(round_to_format(1.0 + 3 * std::ldexp(1.0, -11), f), 1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(round_to_format(1.0 + std::ldexp(1.0, -10), f), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(round_to_format(2047.0, f), 2047.0);
  EXPECT_EQ(round_to_format(2049.0, f), 2048.0);  // 2049 is halfway between 2048 and 2050
  EXPECT_EQ(round_to_format(2051.0, f), 2052.0);
  EXPECT_EQ(round_to_format(0.1, f), 0x1.998p-4);  // 0.0999755859375
  // Subnormal spacing 2^-24 is kept below 2^-14 (gradual underflow).
  EXPECT_EQ(round_to_format(std::ldexp(1.0, -14) - std::ldexp(1.0, -24), f),
            std::ldexp(1023.0, -24));
}

TEST(RoundToFormat, SpecialValuesInEveryFormat) {
  for (Format f : fprev::all_formats()) {
    SCOPED_TRACE(std::string(fprev::to_string(f)));
    EXPECT_TRUE(same_value(0.0, round_to_format(0.0, f)));
    EXPECT_TRUE(same_value(-0.0, round_to_format(-0.0, f)));
    EXPECT_TRUE(std::isnan(round_to_format(std::numeric_limits<double>::quiet_NaN(), f)));
    const bool inf = fprev::format_info(f).has_infinity;
    EXPECT_TRUE(same_value(inf ? kInf : std::nan(""), round_to_format(kInf, f)));
    EXPECT_TRUE(same_value(inf ? -kInf : std::nan(""), round_to_format(-kInf, f)));
    EXPECT_EQ(round_to_format(1.0, f), 1.0);
    EXPECT_EQ(round_to_format(-0.5, f), -0.5);
    const double max = fprev::format_info(f).max_finite;
    EXPECT_EQ(round_to_format(max, f), max);
    EXPECT_EQ(round_to_format(-max, f), -max);
    // Far out of range in both directions.
    EXPECT_TRUE(same_value(f == Format::float64 ? 1e300 : (inf ? kInf : std::nan("")),
                           round_to_format(1e300, f)));
    EXPECT_TRUE(same_value(f == Format::float64 ? -1e-320 : -0.0, round_to_format(-1e-320, f)));
  }
}

TEST(RoundToFormat, Float64IsTheIdentity) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t bits = rng();
    double x = 0.0;
    std::memcpy(&x, &bits, sizeof x);
    if (std::isnan(x)) continue;
    EXPECT_TRUE(same_value(x, round_to_format(x, Format::float64)));
  }
}

// The double -> float conversion of the hardware is a single correct rounding (ties to even,
// gradual underflow, overflow to infinity): an independent reference for float32.
TEST(RoundToFormat, Float32MatchesHardwareConversion) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 400000; ++i) {
    // Random sign and significand; exponents from deep below the float32 subnormals to above max.
    const std::uint64_t exponent = 1023 - 160 + rng() % 300;
    const std::uint64_t bits = (rng() & 0x800fffffffffffffULL) | (exponent << 52);
    double x = 0.0;
    std::memcpy(&x, &bits, sizeof x);
    const double expected = static_cast<double>(static_cast<float>(x));
    ASSERT_TRUE(same_value(expected, round_to_format(x, Format::float32))) << std::hexfloat << x;
  }
  // Exact ties of float32 (including subnormal ones and the overflow threshold).
  const double ties[] = {1.0 + 0x1p-24, 1.0 + 0x3p-24, 0x1p-150, 0x3p-150, 0x1.fffffep127 + 0x1p103,
                         0x1.fffffep127 + 0x0.fffffp103};
  for (double x : ties) {
    EXPECT_TRUE(same_value(static_cast<double>(static_cast<float>(x)), round_to_format(x, Format::float32)))
        << std::hexfloat << x;
    EXPECT_TRUE(same_value(static_cast<double>(static_cast<float>(-x)), round_to_format(-x, Format::float32)))
        << std::hexfloat << x;
  }
}

struct GridCase {
  Format format;
  fprev_test::ReferenceGrid grid;
};

std::vector<GridCase> grid_cases() {
  return {
      {Format::float16, fprev_test::ReferenceGrid(11, -14, 15, true)},
      {Format::bfloat16, fprev_test::ReferenceGrid(8, -126, 127, true)},
      {Format::tf32, fprev_test::ReferenceGrid(11, -126, 127, true)},
      {Format::fp8_e4m3, fprev_test::ReferenceGrid(4, -6, 8, false, 1)},
      {Format::fp8_e5m2, fprev_test::ReferenceGrid(3, -14, 15, true)},
  };
}

// Every value of the format, every midpoint between neighbours (the ties), the doubles right next
// to them, and the same negated: each is rounded by round_to_format and by the reference.
TEST(RoundToFormat, NarrowFormatsMatchEnumeratedReferenceAtAllTies) {
  for (const GridCase& c : grid_cases()) {
    SCOPED_TRACE(std::string(fprev::to_string(c.format)));
    const std::vector<double> values = c.grid.finite_values();
    EXPECT_EQ(c.grid.max_finite(), fprev::format_info(c.format).max_finite);
    std::vector<double> probes;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double next = i + 1 < values.size() ? values[i + 1] : 2 * values[i] - values[i - 1];
      const double mid = (values[i] + next) / 2;  // exact: the formats have < 52 bits
      for (double x : {values[i], mid, std::nextafter(mid, 0.0), std::nextafter(mid, kInf),
                       std::nextafter(values[i], kInf)}) {
        probes.push_back(x);
        probes.push_back(-x);
      }
    }
    int failures = 0;
    for (double x : probes) {
      const double expected = c.grid.round(x);
      const double actual = round_to_format(x, c.format);
      if (!same_value(expected, actual)) {
        ADD_FAILURE() << std::hexfloat << "x = " << x << ": " << same_value(expected, actual).message();
        if (++failures > 10) return;
      }
    }
  }
}

TEST(RoundToFormat, NarrowFormatsMatchEnumeratedReferenceOnRandomDoubles) {
  std::mt19937_64 rng(3);
  for (const GridCase& c : grid_cases()) {
    SCOPED_TRACE(std::string(fprev::to_string(c.format)));
    const int emin = fprev::format_info(c.format).min_exponent;
    const int emax = fprev::format_info(c.format).max_exponent;
    for (int i = 0; i < 100000; ++i) {
      const int exponent = emin - 20 + static_cast<int>(rng() % static_cast<std::uint64_t>(emax - emin + 24));
      const std::uint64_t biased = static_cast<std::uint64_t>(exponent + 1023);
      const std::uint64_t bits = (rng() & 0x800fffffffffffffULL) | (biased << 52);
      double x = 0.0;
      std::memcpy(&x, &bits, sizeof x);
      ASSERT_TRUE(same_value(c.grid.round(x), round_to_format(x, c.format))) << std::hexfloat << x;
    }
  }
}

TEST(RoundToFormat, Bfloat16AndTf32HandCheckedValues) {
  EXPECT_EQ(round_to_format(1.0 + 0x1p-8, Format::bfloat16), 1.0);  // tie to even
  EXPECT_EQ(round_to_format(1.0 + 0x3p-8, Format::bfloat16), 1.0 + 0x1p-6);
  EXPECT_EQ(round_to_format(257.0, Format::bfloat16), 256.0);
  EXPECT_EQ(round_to_format(259.0, Format::bfloat16), 260.0);
  EXPECT_EQ(round_to_format(0x1.fep127, Format::bfloat16), 0x1.fep127);
  EXPECT_EQ(round_to_format(0x1.ffp127, Format::bfloat16), kInf);  // max + half ulp
  EXPECT_EQ(round_to_format(0x1.fefffp127, Format::bfloat16), 0x1.fep127);
  EXPECT_EQ(round_to_format(0x1p-133, Format::bfloat16), 0x1p-133);  // smallest subnormal
  EXPECT_EQ(round_to_format(0x1p-134, Format::bfloat16), 0.0);
  EXPECT_EQ(round_to_format(0x1.8p-134, Format::bfloat16), 0x1p-133);
  EXPECT_EQ(round_to_format(3.14159265358979, Format::bfloat16), 3.140625);
  // bfloat16 is not "float32 rounded twice": 1 + 2^-8 + 2^-30 rounds up, although float32 would
  // first drop the 2^-30 and leave an exact tie.
  EXPECT_EQ(round_to_format(1.0 + 0x1p-8 + 0x1p-30, Format::bfloat16), 1.0 + 0x1p-7);

  EXPECT_EQ(round_to_format(1.0 + 0x1p-11, Format::tf32), 1.0);
  EXPECT_EQ(round_to_format(1.0 + 0x3p-11, Format::tf32), 1.0 + 0x1p-9);
  EXPECT_EQ(round_to_format(0x1.ffcp127, Format::tf32), 0x1.ffcp127);
  EXPECT_EQ(round_to_format(0x1.ffep127, Format::tf32), kInf);
  EXPECT_EQ(round_to_format(0x1p-136, Format::tf32), 0x1p-136);  // smallest subnormal 2^(-126-10)
  EXPECT_EQ(round_to_format(0x1p-137, Format::tf32), 0.0);
  EXPECT_EQ(round_to_format(0x3p-137, Format::tf32), 0x1p-135);
}

// OCP e4m3 ("fn"): no infinity; 0x7f / 0xff are NaN, so 480 is not a value. Our choice: round on
// the unbounded grid, ties to even; 464 (halfway between 448 = 1.110b x 2^8, even, and 480,
// odd) ties to 448; anything above 464 overflows to NaN (no saturation mode).
TEST(RoundToFormat, Fp8E4m3HandCheckedValues) {
  const Format f = Format::fp8_e4m3;
  EXPECT_EQ(round_to_format(448.0, f), 448.0);
  EXPECT_EQ(round_to_format(464.0, f), 448.0);
  EXPECT_EQ(round_to_format(-464.0, f), -448.0);
  EXPECT_TRUE(std::isnan(round_to_format(464.001, f)));
  EXPECT_TRUE(std::isnan(round_to_format(480.0, f)));
  EXPECT_TRUE(std::isnan(round_to_format(1e6, f)));
  EXPECT_TRUE(std::isnan(round_to_format(-kInf, f)));
  EXPECT_EQ(round_to_format(432.0, f), 448.0);  // halfway 416 (odd) / 448 (even)
  EXPECT_EQ(round_to_format(400.0, f), 384.0);  // halfway 384 (even) / 416 (odd)
  EXPECT_EQ(round_to_format(0x1p-9, f), 0x1p-9);  // smallest subnormal
  EXPECT_EQ(round_to_format(0x1p-10, f), 0.0);
  EXPECT_EQ(round_to_format(0x1.0001p-10, f), 0x1p-9);
  EXPECT_EQ(round_to_format(0x7p-9, f), 0x7p-9);  // largest subnormal
  EXPECT_EQ(round_to_format(1.0625, f), 1.0);   // 1 + 2^-4 ties to 1
  EXPECT_EQ(round_to_format(1.1875, f), 1.25);  // 1 + 3 * 2^-4 ties up to 1.25
}

TEST(RoundToFormat, Fp8E5m2HandCheckedValues) {
  const Format f = Format::fp8_e5m2;
  EXPECT_EQ(round_to_format(57344.0, f), 57344.0);
  EXPECT_EQ(round_to_format(61439.0, f), 57344.0);
  EXPECT_EQ(round_to_format(61440.0, f), kInf);  // max + half ulp (4096) ties to 2^16
  EXPECT_EQ(round_to_format(0x1p-16, f), 0x1p-16);
  EXPECT_EQ(round_to_format(0x1p-17, f), 0.0);
  EXPECT_EQ(round_to_format(0x3p-17, f), 0x1p-15);
  EXPECT_EQ(round_to_format(1.125, f), 1.0);   // 1 + 2^-3 ties to 1
  EXPECT_EQ(round_to_format(1.375, f), 1.5);   // 1 + 3 * 2^-3 ties to 1.5
  EXPECT_EQ(round_to_format(5.0, f), 5.0);
  EXPECT_EQ(round_to_format(4.5, f), 4.0);
}

TEST(IsRepresentable, AgreesWithTheFormats) {
  EXPECT_TRUE(fprev::is_representable(65504.0, Format::float16));
  EXPECT_FALSE(fprev::is_representable(65505.0, Format::float16));
  EXPECT_TRUE(fprev::is_representable(0x1p-24, Format::float16));
  EXPECT_FALSE(fprev::is_representable(0x1p-25, Format::float16));
  EXPECT_TRUE(fprev::is_representable(kInf, Format::float16));
  EXPECT_FALSE(fprev::is_representable(kInf, Format::fp8_e4m3));
  EXPECT_TRUE(fprev::is_representable(-448.0, Format::fp8_e4m3));
  EXPECT_FALSE(fprev::is_representable(480.0, Format::fp8_e4m3));
  EXPECT_FALSE(fprev::is_representable(std::nan(""), Format::float64));
  EXPECT_TRUE(fprev::is_representable(-0.0, Format::fp8_e5m2));
  EXPECT_TRUE(fprev::is_representable(0x1p-1074, Format::float64));
  EXPECT_FALSE(fprev::is_representable(1.0 + 0x1p-24, Format::float32));
  EXPECT_TRUE(fprev::is_representable(1.0 + 0x1p-23, Format::float32));
  EXPECT_FALSE(fprev::is_representable(1.0 + 0x1p-11, Format::tf32));
}

}  // namespace
