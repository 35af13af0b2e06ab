// The backend's arithmetic primitives against slow, obviously correct counterparts: the fast
// rounder against fprev::round_to_format, additions against exact sums, fused nodes against a
// long double evaluation, round_scaled at the edges of each format.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "../src/arithmetic.hpp"
#include "../src/exact_accumulator.hpp"

namespace fprev::reference::detail {
namespace {

double p2(int e) { return std::ldexp(1.0, e); }

double random_double(std::mt19937_64& rng, int lo, int hi) {
  std::uniform_int_distribution<int> exponent(lo, hi);
  const double significand = 1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52);
  return ((rng() & 1u) != 0 ? -1.0 : 1.0) * std::ldexp(significand, exponent(rng));
}

TEST(FormatRounder, AgreesWithRoundToFormat) {
  std::mt19937_64 rng(31);
  for (Format format : {Format::float32, Format::float16, Format::bfloat16}) {
    const FormatRounder rounder(format);
    const FormatInfo& info = format_info(format);
    for (int i = 0; i < 200000; ++i) {
      // Exponents across the whole range: subnormal, normal, overflow.
      double x = random_double(rng, info.min_exponent - info.precision - 2, info.max_exponent + 2);
      if (i % 4 == 0) {  // exact ties and their neighbours
        const double tie = round_to_format(x, format) + std::ldexp(1.0, std::ilogb(x) - info.precision);
        x = i % 8 == 0 ? tie : std::nextafter(tie, 0.0);
      }
      const double want = round_to_format(x, format);
      const double got = rounder.round(x);
      ASSERT_TRUE(got == want || (std::isnan(got) && std::isnan(want)))
          << fprev::to_string(format) << ": " << x << " -> " << got << " instead of " << want;
    }
    EXPECT_EQ(rounder.round(0.0), 0.0);
    EXPECT_TRUE(std::signbit(rounder.round(-0.0)));
    EXPECT_EQ(rounder.round(info.max_finite), info.max_finite);
    EXPECT_EQ(rounder.round(-2 * info.max_finite), -INFINITY);
    EXPECT_TRUE(std::isnan(rounder.round(NAN)));
  }
}

TEST(FormatRounder, AdditionsAreCorrectlyRounded) {
  // a + b exact in long double (spans below 64 bits), rounded once with round_to_format.
  std::mt19937_64 rng(32);
  for (Format format : {Format::float32, Format::float16, Format::bfloat16}) {
    const FormatRounder rounder(format);
    for (int i = 0; i < 100000; ++i) {
      const double a = random_double(rng, -5, 5);
      const double b = random_double(rng, -5 - (i % 12), -5 - (i % 12)) * (i % 3 == 0 ? 1 : p2(-1));
      const long double exact = static_cast<long double>(a) + static_cast<long double>(b);
      // Correct rounding from long double: round to the format through double only when the
      // long double is exact in double; otherwise nudge to odd first (as a reference).
      const double hi = static_cast<double>(exact);
      const long double rest = exact - static_cast<long double>(hi);
      double odd = hi;
      if (rest != 0 && (bits_of(hi) & 1u) == 0) odd = std::nextafter(hi, rest > 0 ? INFINITY : -INFINITY);
      ASSERT_EQ(rounder.add(a, b), round_to_format(odd, format)) << a << " + " << b;
    }
  }
}

TEST(RoundScaled, EdgesOfTheFormats) {
  // 2^53 + 1 -> a tie in float64, to even
  EXPECT_EQ(round_scaled((std::uint64_t{1} << 53) + 1, 0, false, Format::float64), p2(53));
  EXPECT_EQ(round_scaled((std::uint64_t{1} << 53) + 3, 0, false, Format::float64), p2(53) + 4);
  EXPECT_EQ(round_scaled(3, -1076, false, Format::float64), p2(-1074));  // 0.75 ulp -> 1 ulp
  EXPECT_EQ(round_scaled(3, -1075, false, Format::float64), p2(-1073));  // 1.5 ulp -> 2 (even)
  EXPECT_EQ(round_scaled(1, -1076, false, Format::float64), 0.0);        // a quarter ulp
  EXPECT_EQ(round_scaled(1, -200, true, Format::float64), -p2(-200));
  EXPECT_EQ(round_scaled(2047, 5, false, Format::float16), 65504.0);  // 65504 is 2047 * 2^5
  // 65520 = 65504 + half an ulp: the tie goes to the even 65536, which overflows.
  EXPECT_EQ(round_scaled(4095, 4, false, Format::float16), INFINITY);
  EXPECT_EQ(round_scaled(4094, 4, false, Format::float16), 65504.0);
  EXPECT_EQ(round_scaled(3, -26, false, Format::float16), p2(-24));  // 0.75 of the smallest
  EXPECT_EQ(round_scaled(1, -26, false, Format::float16), 0.0);
  EXPECT_EQ(round_scaled(~std::uint64_t{0}, 0, false, Format::float32), p2(64));
}

TEST(FusedSum, AgreesWithLongDoubleEvaluation) {
  static_assert(std::numeric_limits<long double>::digits >= 64);
  std::mt19937_64 rng(33);
  for (Format format : {Format::float64, Format::float32, Format::float16, Format::bfloat16}) {
    const FormatInfo& info = format_info(format);
    for (int i = 0; i < 20000; ++i) {
      const std::size_t count = 3 + rng() % 14;
      double terms[64];
      for (std::size_t t = 0; t < count; ++t)
        terms[t] = random_double(rng, -8 - static_cast<int>(t % 5) * 3, 8);
      double largest = 0;
      for (std::size_t t = 0; t < count; ++t) largest = std::fmax(largest, std::fabs(terms[t]));
      const double quantum = std::ldexp(1.0, std::ilogb(largest) - info.precision + 1);
      long double exact = 0;  // the truncated terms, summed exactly
      for (std::size_t t = 0; t < count; ++t)
        exact += static_cast<long double>(std::trunc(terms[t] / quantum)) * quantum;
      const double hi = static_cast<double>(exact);
      const long double rest = exact - static_cast<long double>(hi);
      double odd = hi;
      if (rest != 0 && (bits_of(hi) & 1u) == 0) odd = std::nextafter(hi, rest > 0 ? INFINITY : -INFINITY);
      const double want = format == Format::float64 ? hi : round_to_format(odd, format);
      ASSERT_EQ(fused_sum(terms, count, format), want) << fprev::to_string(format) << " i=" << i;
    }
  }
  // Truncation, not rounding: aligned to 2^1, float32 keeps bits down to 2^-22 only.
  const double terms[] = {2.0, -p2(-30), -p2(-30)};
  EXPECT_EQ(fused_sum(terms, 3, Format::float32), 2.0);  // both tiny terms truncate to 0
  const double cancel[] = {p2(40), -p2(40), 1.0};
  EXPECT_EQ(fused_sum(cancel, 3, Format::float32), 0.0);  // 1 is shifted out entirely
}

TEST(ExactAccumulator, LongRandomSumsOfIntegers) {
  // Integers below 2^40: the exact sum of 10^5 of them fits in int64, so it is known exactly.
  std::mt19937_64 rng(34);
  ExactAccumulator acc;
  acc.clear();
  std::int64_t exact = 0;
  for (int i = 0; i < 100000; ++i) {
    const std::int64_t v = static_cast<std::int64_t>(rng() >> 24) - (std::int64_t{1} << 39);
    exact += v;
    acc.add(static_cast<double>(v) * p2(-600));  // far down in the exponent range
  }
  const double want = std::ldexp(static_cast<double>(exact), -600);  // one rounding of exact
  EXPECT_EQ(acc.round(Format::float64), want);
  EXPECT_EQ(acc.round(Format::float32), 0.0);  // below float32's range
}

}  // namespace
}  // namespace fprev::reference::detail
