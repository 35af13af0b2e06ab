// The orders without a summation tree do what they claim: nondeterministic differs between calls,
// sorted_magnitude is the sequential sum of the sorted summands, exact is the correctly rounded
// sum, nan breaks on large summands only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "reference_test_support.hpp"

namespace fprev::reference {
namespace {

using testing::random_values;
using testing::rounded_products;
using testing::run_values;
using testing::same_bits;

ReferenceSpec spec_of(Order order, std::size_t n, Format dtype = Format::float32,
                      std::optional<Format> output = std::nullopt, std::string op = "sum") {
  ReferenceSpec spec;
  spec.op = std::move(op);
  spec.order = order;
  spec.dtype = dtype;
  spec.output = output;
  spec.n = n;
  return spec;
}

double p2(int e) { return std::ldexp(1.0, e); }

TEST(Nondeterministic, DiffersBetweenCallsOnTheSameInput) {
  std::mt19937_64 rng(11);
  for (Format dtype : {Format::float32, Format::float64}) {
    auto target = make_reference_target(spec_of(Order::nondeterministic, 1000, dtype));
    const auto x = random_values(1000, dtype, -30, 30, rng);
    std::set<double> outputs;
    for (int call = 0; call < 20; ++call) outputs.insert(run_values(*target, x));
    EXPECT_GE(outputs.size(), 2u) << fprev::to_string(dtype);
  }
}

TEST(Nondeterministic, TwoTargetsShuffleDifferently) {
  // Seeded from std::random_device: the first call of two fresh targets differs too.
  std::mt19937_64 rng(12);
  const auto x = random_values(1000, Format::float32, -30, 30, rng);
  std::set<double> first_calls;
  for (int t = 0; t < 10; ++t) {
    auto target = make_reference_target(spec_of(Order::nondeterministic, 1000));
    first_calls.insert(run_values(*target, x));
  }
  EXPECT_GE(first_calls.size(), 2u);
}

TEST(SortedMagnitude, EqualsSequentialSumOfTheSortedSummands) {
  std::mt19937_64 rng(13);
  for (Format dtype : {Format::float32, Format::float64}) {
    for (const std::string op : {"sum", "dot"}) {
      for (std::size_t n : {1, 2, 7, 100, 1000}) {
        auto sorted_target = make_reference_target(spec_of(Order::sorted_magnitude, n, dtype, {}, op));
        auto sequential_target = make_reference_target(spec_of(Order::sequential, n, dtype));
        bool differs_from_unsorted = false;
        for (int input = 0; input < 3; ++input) {
          const auto a = random_values(n, dtype, -20, 20, rng);
          const auto b = op == "dot" ? random_values(n, dtype, -5, 5, rng) : std::vector<double>{};
          auto summands = op == "dot" ? rounded_products(a, b, dtype) : a;
          const double unsorted = run_values(*sequential_target, summands);
          std::sort(summands.begin(), summands.end(), [](double p, double q) {
            return std::fabs(p) < std::fabs(q) || (std::fabs(p) == std::fabs(q) && p < q);
          });
          const double want = run_values(*sequential_target, summands);
          const double got = run_values(*sorted_target, a, b);
          EXPECT_TRUE(same_bits(got, want)) << op << " n=" << n << ": " << got << " vs " << want;
          differs_from_unsorted = differs_from_unsorted || !same_bits(got, unsorted);
        }
        if (n >= 100) {
          EXPECT_TRUE(differs_from_unsorted) << "inputs do not discriminate";
        }
      }
    }
  }
}

TEST(SortedMagnitude, TiesInMagnitudeDoNotDependOnPositions) {
  // +1 and -1 swap places: the sorted order (and so the result) is the same.
  auto target = make_reference_target(spec_of(Order::sorted_magnitude, 4, Format::float64));
  const double big = p2(53);
  EXPECT_EQ(run_values(*target, {1.0, -1.0, big, 3.0}), run_values(*target, {-1.0, 1.0, 3.0, big}));
}

// ---- exact ------------------------------------------------------------------------------------

TEST(Exact, KnownCasesThatEveryIeeeOrderGetsWrong) {
  auto f64 = make_reference_target(spec_of(Order::exact, 4, Format::float64));
  // 2^100 + 1 - 2^100 + 2^-100 = 1 + 2^-100, which rounds to 1.
  EXPECT_EQ(run_values(*f64, {p2(100), 1.0, -p2(100), p2(-100)}), 1.0);
  auto f64_3 = make_reference_target(spec_of(Order::exact, 3, Format::float64));
  // 1 + 2^-53 + 2^-106 lies just above the tie between 1 and 1 + 2^-52: rounds up. Every IEEE
  // order gives 1 (each pairwise sum is a tie rounded to even).
  EXPECT_EQ(run_values(*f64_3, {1.0, p2(-53), p2(-106)}), 1.0 + p2(-52));
  EXPECT_EQ(run_values(*f64_3, {p2(-106), p2(-53), 1.0}), 1.0 + p2(-52));
  // An exact tie rounds to even.
  auto f64_2 = make_reference_target(spec_of(Order::exact, 2, Format::float64));
  EXPECT_EQ(run_values(*f64_2, {1.0, p2(-53)}), 1.0);
  EXPECT_EQ(run_values(*f64_2, {1.0 + p2(-52), p2(-53)}), 1.0 + p2(-51));
  // Cancellation to zero, negative results, the extremes of the double range.
  EXPECT_EQ(run_values(*f64_2, {3.5, -3.5}), 0.0);
  EXPECT_EQ(run_values(*f64_2, {-3.5, 1.25}), -2.25);
  EXPECT_EQ(run_values(*f64_2, {std::numeric_limits<double>::max(), -p2(-1074)}),
            std::numeric_limits<double>::max());
  EXPECT_EQ(run_values(*f64_2, {p2(-1074), p2(-1074)}), p2(-1073));
  EXPECT_EQ(run_values(*f64_2, {std::numeric_limits<double>::max(), std::numeric_limits<double>::max()}),
            INFINITY);
  // float32: no overflow in the middle of the sum.
  auto f32 = make_reference_target(spec_of(Order::exact, 3));
  EXPECT_EQ(run_values(*f32, {p2(127), p2(127), -p2(127)}), p2(127));
}

TEST(Exact, StickyBitsFarBelowTheRoundingPosition) {
  // float64 input, float32 output: 1 + 2^-24 is a tie; 2^-300 far below breaks it upwards.
  auto target = make_reference_target(spec_of(Order::exact, 3, Format::float64, Format::float32));
  EXPECT_EQ(run_values(*target, {1.0, p2(-24), 0.0}), 1.0);
  EXPECT_EQ(run_values(*target, {1.0, p2(-24), p2(-300)}), 1.0 + p2(-23));
  EXPECT_EQ(run_values(*target, {1.0, p2(-24), -p2(-300)}), 1.0);
  EXPECT_EQ(run_values(*target, {-1.0, -p2(-24), -p2(-300)}), -(1.0 + p2(-23)));
  // Subnormal float32 result: 1.5 * 2^-149 is a tie between 2^-149 and 2^-148 (even).
  EXPECT_EQ(run_values(*target, {1.5 * p2(-149), 0.0, 0.0}), p2(-148));
  EXPECT_EQ(run_values(*target, {p2(128), 0.0, 0.0}), INFINITY);
}

TEST(Exact, RandomSumsMatchTheCorrectlyRoundedValue) {
  // float32 summands with exponents in [-10, 10] span at most 44 bits, so any sum of fewer than
  // 512 of them is exact in double: the correctly rounded result is one rounding of that double.
  std::mt19937_64 rng(14);
  for (Format output : {Format::float32, Format::float16, Format::bfloat16, Format::float64}) {
    for (std::size_t n : {1, 2, 10, 200, 500}) {
      auto exact = make_reference_target(spec_of(Order::exact, n, Format::float32, output));
      auto sequential = make_reference_target(spec_of(Order::sequential, n, Format::float32, output));
      bool beats_sequential = false;
      for (int input = 0; input < 5; ++input) {
        auto x = random_values(n, Format::float32, -10, output == Format::float16 ? 4 : 10, rng);
        if (n >= 4) {  // a large cancelling pair makes rounding errors of ordinary orders visible
          x[0] = output == Format::float16 ? 2048.0 : 1024.0;
          x[n / 2] = -x[0];
        }
        double exact_sum = 0.0;
        for (double v : x) exact_sum += v;  // exact (see above)
        const double want = output == Format::float64 ? exact_sum : round_to_format(exact_sum, output);
        EXPECT_EQ(run_values(*exact, x), want) << "n=" << n << " output " << fprev::to_string(output);
        std::shuffle(x.begin(), x.end(), rng);
        EXPECT_EQ(run_values(*exact, x), want) << "permuted, n=" << n;
        beats_sequential = beats_sequential || run_values(*sequential, x) != want;
      }
      if (n >= 200 && output != Format::float64) {
        EXPECT_TRUE(beats_sequential) << "n=" << n;
      }
    }
  }
}

TEST(Exact, DotAddsTheRoundedProductsExactly) {
  std::mt19937_64 rng(15);
  const std::size_t n = 300;
  auto exact = make_reference_target(spec_of(Order::exact, n, Format::float32, {}, "dot"));
  for (int input = 0; input < 5; ++input) {
    const auto a = random_values(n, Format::float32, -5, 5, rng);
    const auto b = random_values(n, Format::float32, -5, 5, rng);
    double exact_sum = 0.0;  // products of exponents in [-10, 11]: 45 bits, 300 terms: exact
    for (double v : rounded_products(a, b, Format::float32)) exact_sum += v;
    EXPECT_EQ(run_values(*exact, a, b), static_cast<double>(static_cast<float>(exact_sum)));
  }
}

TEST(Exact, NonFiniteInputsPropagate) {
  auto target = make_reference_target(spec_of(Order::exact, 3, Format::float64));
  EXPECT_TRUE(std::isnan(run_values(*target, {1.0, NAN, 2.0})));
  EXPECT_EQ(run_values(*target, {1.0, INFINITY, 2.0}), INFINITY);
  EXPECT_TRUE(std::isnan(run_values(*target, {-INFINITY, INFINITY, 2.0})));
}

// ---- nan --------------------------------------------------------------------------------------

TEST(Nan, NanOnMaskedInputSequentialOtherwise) {
  std::mt19937_64 rng(16);
  for (Format dtype : {Format::float32, Format::float64}) {
    for (std::optional<Format> output : {std::optional<Format>{}, std::optional<Format>{Format::float16},
                                         std::optional<Format>{Format::bfloat16}}) {
      for (const std::string op : {"sum", "dot"}) {
        const std::size_t n = 64;
        auto spec = spec_of(Order::nan, n, dtype, output, op);
        auto broken = make_reference_target(spec);
        spec.order = Order::sequential;
        auto sequential = make_reference_target(spec);
        const Format acc = broken->info().traits.accumulator;
        const double threshold = nan_threshold(acc);
        EXPECT_LE(threshold, p2(40));
        EXPECT_LE(threshold, format_info(acc).max_finite / 16);
        // Ordinary inputs: exactly the sequential sum.
        auto a = random_values(n, dtype, -3, 3, rng);
        std::vector<double> b = op == "dot" ? random_values(n, dtype, -2, 2, rng) : std::vector<double>{};
        EXPECT_TRUE(same_bits(run_values(*broken, a, b), run_values(*sequential, a, b)));
        // A masked input (+M at one leaf, -M at another, M at the threshold): NaN, although the
        // correct sum is finite.
        std::vector<double> ones(n, 1.0);
        std::vector<double> mask_b = op == "dot" ? ones : std::vector<double>{};
        std::vector<double> masked = ones;
        masked[3] = threshold;
        masked[40] = -threshold;
        EXPECT_TRUE(std::isfinite(run_values(*sequential, masked, mask_b)));
        EXPECT_TRUE(std::isnan(run_values(*broken, masked, mask_b)));
        // Just below the threshold: correct again.
        masked[3] = threshold / 2;
        masked[40] = -threshold / 2;
        EXPECT_TRUE(same_bits(run_values(*broken, masked, mask_b), run_values(*sequential, masked, mask_b)));
      }
    }
  }
}

}  // namespace
}  // namespace fprev::reference
