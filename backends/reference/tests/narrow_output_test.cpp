// With float16/bfloat16 output every partial sum is rounded to the output format (not just the
// result); summands enter their first addition unrounded.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference_test_support.hpp"

namespace fprev::reference {
namespace {

using testing::run_values;

double p2(int e) { return std::ldexp(1.0, e); }

ReferenceSpec narrow_spec(Order order, std::size_t n, Format output, Format dtype = Format::float32) {
  ReferenceSpec spec;
  spec.order = order;
  spec.n = n;
  spec.dtype = dtype;
  spec.output = output;
  return spec;
}

TEST(NarrowOutput, TraitsNameTheNarrowAccumulator) {
  for (Format output : {Format::float16, Format::bfloat16}) {
    for (Format dtype : {Format::float32, Format::float64}) {
      auto target = make_reference_target(narrow_spec(Order::sequential, 10, output, dtype));
      EXPECT_EQ(target->info().traits.input, dtype);
      EXPECT_EQ(target->info().traits.accumulator, output);
      EXPECT_EQ(target->info().traits.output, output);
    }
  }
  // Wider output: accumulate in dtype, widen the result.
  auto wide = make_reference_target(narrow_spec(Order::sequential, 10, Format::float64));
  EXPECT_EQ(wide->info().traits.accumulator, Format::float32);
  EXPECT_EQ(wide->info().traits.output, Format::float64);
}

TEST(NarrowOutput, EveryPartialSumIsRounded) {
  // 1 + h, where h is half an ulp of 1 in the output format: a tie, rounded to even (1). Repeated
  // 8 times the sum stays 1, whereas rounding only the final float32 sum 1 + 8h would give 1 + 8h.
  for (Format output : {Format::float16, Format::bfloat16}) {
    const int precision = format_info(output).precision;
    const double h = p2(-precision);  // half an ulp of 1
    std::vector<double> x(9, h);
    x[0] = 1.0;
    for (Format dtype : {Format::float32, Format::float64}) {
      for (Order order : {Order::sequential, Order::blocked, Order::nan}) {
        auto target = make_reference_target(narrow_spec(order, x.size(), output, dtype));
        EXPECT_EQ(run_values(*target, x), 1.0) << fprev::to_string(output) << " " << to_string(order);
      }
      auto wide = make_reference_target(narrow_spec(Order::sequential, x.size(), Format::float32, dtype));
      const double wide_sum = run_values(*wide, x);
      EXPECT_EQ(wide_sum, 1.0 + 8 * h);
      EXPECT_EQ(round_to_format(wide_sum, output), 1.0 + 8 * h);  // representable: only the
                                                                  // per-step rounding loses it
    }
  }
}

TEST(NarrowOutput, SummandsEnterTheFirstAdditionUnrounded) {
  // x0 = 1 + 2^-11 is a float16 tie on its own (it would round to 1). Added unrounded to 2^-12 the
  // exact sum lies above the tie and rounds up to 1 + 2^-10; rounding x0 first would give 1.
  auto target = make_reference_target(narrow_spec(Order::sequential, 2, Format::float16));
  EXPECT_EQ(run_values(*target, {1.0 + p2(-11), p2(-12)}), 1.0 + p2(-10));
  EXPECT_EQ(run_values(*target, {1.0 + p2(-20), 0.0}), 1.0);
  // A lone summand is rounded to the output.
  auto single = make_reference_target(narrow_spec(Order::sequential, 1, Format::float16));
  EXPECT_EQ(run_values(*single, {1.0 + p2(-11) + p2(-20)}), 1.0 + p2(-10));
  EXPECT_EQ(run_values(*single, {1.0 + p2(-11)}), 1.0);
}

TEST(NarrowOutput, OverflowGivesInfinity) {
  auto target = make_reference_target(narrow_spec(Order::sequential, 3, Format::float16));
  EXPECT_EQ(run_values(*target, {60000.0, 10000.0, -20000.0}), INFINITY);
  // bfloat16 shares float32's range.
  auto bf = make_reference_target(narrow_spec(Order::sequential, 3, Format::bfloat16));
  // Every addition rounds its exact result; the summands enter unrounded.
  const auto r = [](double v) { return round_to_format(v, Format::bfloat16); };
  const double want = r(r(60000.0 + 10000.0) - 20000.0);
  EXPECT_TRUE(std::isfinite(want));
  EXPECT_EQ(run_values(*bf, {60000.0, 10000.0, -20000.0}), want);
}

TEST(NarrowOutput, AdditionsRoundToNearestEven) {
  // float64 inputs, float32 accumulator: (1 + 2^-23) + 2^-24 is a tie (to even: up), 1 + 2^-24 a
  // tie (down), (1 + 2^-23) + (2^-24 + 2^-47) lies above the tie.
  auto target = make_reference_target(narrow_spec(Order::sequential, 2, Format::float32, Format::float64));
  EXPECT_EQ(run_values(*target, {1.0 + p2(-23), p2(-24)}), 1.0 + p2(-22));
  EXPECT_EQ(run_values(*target, {1.0, p2(-24)}), 1.0);
  EXPECT_EQ(run_values(*target, {1.0, p2(-24) + p2(-47)}), 1.0 + p2(-23));
  auto half = make_reference_target(narrow_spec(Order::sequential, 2, Format::float16));
  EXPECT_EQ(run_values(*half, {1.0 + p2(-10), p2(-11)}), 1.0 + p2(-9));
  EXPECT_EQ(run_values(*half, {1.0, p2(-11)}), 1.0);
  EXPECT_EQ(run_values(*half, {1.0, p2(-11) + p2(-21)}), 1.0 + p2(-10));
  // float64 summands into float16: 1 + (2^-11 + 2^-60) lies above the tie, but its double sum
  // (1 + 2^-11, the 2^-60 rounded away) is exactly the tie: rounding that again would give 1.
  auto from_double = make_reference_target(narrow_spec(Order::sequential, 2, Format::float16, Format::float64));
  ASSERT_EQ(1.0 + (p2(-11) + p2(-60)), 1.0 + p2(-11));  // the trap is real
  EXPECT_EQ(run_values(*from_double, {1.0, p2(-11) + p2(-60)}), 1.0 + p2(-10));
  EXPECT_EQ(run_values(*from_double, {1.0, p2(-11) - p2(-60)}), 1.0);
}

}  // namespace
}  // namespace fprev::reference
