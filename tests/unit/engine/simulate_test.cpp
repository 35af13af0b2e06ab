// The simulation model: IEEE additions in the accumulator, fused nodes truncated after alignment.
#include <gtest/gtest.h>

#include <cmath>

#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

TEST(Simulate, Float32AdditionsFollowTheTree) {
  // 2^24 + 1 + 1: sequential loses both ones, adding the ones first keeps them.
  const double v[] = {16777216.0, 1.0, 1.0};
  EXPECT_EQ(simulate_sum(parse_sexpr("((0 1) 2)"), v, Format::float32, Format::float32), 16777216.0);
  EXPECT_EQ(simulate_sum(parse_sexpr("(0 (1 2))"), v, Format::float32, Format::float32), 16777218.0);
  EXPECT_EQ(simulate_sum(parse_sexpr("((0 1) 2)"), v, Format::float64, Format::float64), 16777218.0);
}

TEST(Simulate, NoDoubleRoundingInNarrowAccumulators) {
  // 1 + 2^-11 + 2^-40 in float16: the exact sum is just above the midpoint, so it rounds up; a
  // naive double-then-half rounding of (1 + 2^-11) would tie to even and round down.
  const double v[] = {1.0, std::ldexp(1.0, -11) + std::ldexp(1.0, -40)};
  EXPECT_EQ(simulate_sum(parse_sexpr("(0 1)"), v, Format::float16, Format::float16),
            1.0 + std::ldexp(1.0, -10));
}

TEST(Simulate, FusedNodesTruncateAfterAlignment) {
  // Aligned to 2^0 with 24 bits kept (float32, no extra bits), 2^-30 is shifted out entirely in a
  // fused node, while a binary chain keeps nothing either; with 3 ones it shows truncation vs RN:
  // 1 + 3 * 2^-24 (three terms of 2^-24 each keep their bit: 2^-23 is the last kept bit).
  const double v[] = {1.0, std::ldexp(1.0, -24), std::ldexp(1.0, -24), std::ldexp(1.0, -24)};
  // Fused: each 2^-24 truncated to a multiple of 2^-23 is 0: the result is exactly 1.
  EXPECT_EQ(simulate_sum(parse_sexpr("(0 1 2 3)"), v, Format::float32, Format::float32, 0), 1.0);
  // With 3 extra bits the terms survive: 1 + 3 * 2^-24, rounded to float32 -> 1 + 2^-22.
  EXPECT_EQ(simulate_sum(parse_sexpr("(0 1 2 3)"), v, Format::float32, Format::float32, 3),
            1.0 + std::ldexp(1.0, -22));
  // Binary adds in float32: (1 + 2^-24) ties to 1 each time.
  EXPECT_EQ(simulate_sum(parse_sexpr("(((0 1) 2) 3)"), v, Format::float32, Format::float32), 1.0);
}

TEST(Simulate, OutputRoundingAndSingleSummand) {
  const double one[] = {1.0 + std::ldexp(1.0, -30)};
  EXPECT_EQ(simulate_sum(parse_sexpr("0"), one, Format::float64, Format::float32), 1.0);
}

}  // namespace
}  // namespace fprev
