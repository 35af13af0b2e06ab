// The impact of a change (fprev/impact.hpp) against an independent evaluation: the S-expression
// evaluated recursively in C++'s own float or double, the exact sum as a 128-bit fixed-point
// integer, ulps counted through the bit patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fprev/impact.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

// ---- the independent evaluator ------------------------------------------------------------------

// Evaluates an S-expression ("((0 1) 2)") in T: every addition of two children rounded to T.
// Binary trees only (a fused node's arithmetic is the simulation's, tested in simulate_test).
template <typename T>
T evaluate(const std::string& text, std::size_t& at, const std::vector<T>& summands) {
  if (text[at] != '(') {
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) ++end;
    const T value = summands.at(std::stoul(text.substr(at, end - at)));
    at = end;
    return value;
  }
  ++at;  // '('
  const T left = evaluate(text, at, summands);
  ++at;  // ' '
  const T right = evaluate(text, at, summands);
  EXPECT_EQ(text[at], ')') << "binary trees only";
  ++at;
  return static_cast<T>(left + right);
}
template <typename T>
T evaluate(const std::string& text, const std::vector<T>& summands) {
  std::size_t at = 0;
  return evaluate(text, at, summands);
}

std::string sequential_sexpr(std::size_t n) {
  std::string text = std::string(n - 1, '(') + "0";
  for (std::size_t k = 1; k < n; ++k) text += " " + std::to_string(k) + ")";
  return text;
}
std::string pairwise_sexpr(std::size_t first, std::size_t count) {
  if (count == 1) return std::to_string(first);
  return "(" + pairwise_sexpr(first, count / 2) + " " + pairwise_sexpr(first + count / 2, count - count / 2) + ")";
}

// Ordinal of a float among the floats (monotone), so ulps are differences of ordinals.
std::int64_t ordinal(float x) {
  const auto bits = static_cast<std::int32_t>(std::bit_cast<std::uint32_t>(x));
  return bits < 0 ? -static_cast<std::int64_t>(bits & 0x7fffffff) : bits;
}

// The exact sum of float32 summands as an integer number of 2^-80 (a float32 value is a multiple of
// it unless below 2^-56 in magnitude; fixed() checks), rounded to the nearest float, ties to even,
// by comparing the integer with the neighbours of a first guess.
__extension__ using Int128 = __int128;
Int128 fixed(double x) {
  const double scaled = std::ldexp(x, 80);
  EXPECT_EQ(scaled, std::trunc(scaled)) << x << " is not a multiple of 2^-80";
  return static_cast<Int128>(scaled);
}
float exactly_rounded(const std::vector<double>& summands) {
  Int128 sum = 0;
  for (double x : summands) sum += fixed(x);
  const float guess = static_cast<float>(std::ldexp(static_cast<double>(sum), -80));
  float best = guess;
  for (float candidate : {std::nextafter(guess, -INFINITY), std::nextafter(guess, INFINITY)}) {
    const Int128 d_best = fixed(best) - sum, d_candidate = fixed(candidate) - sum;
    const Int128 a_best = d_best < 0 ? -d_best : d_best, a_candidate = d_candidate < 0 ? -d_candidate : d_candidate;
    if (a_candidate < a_best || (a_candidate == a_best && (std::bit_cast<std::uint32_t>(candidate) & 1) == 0))
      best = candidate;
  }
  return best;
}

double relative(double x, double reference) { return x == reference ? 0.0 : std::fabs(x - reference) / std::fabs(reference); }

// The figures of one set, computed independently.
struct Expected {
  std::size_t differing = 0;
  double max_ulp = 0, median_ulp = 0, old_error = 0, new_error = 0, difference = 0;
};
template <typename OldAccumulator, typename NewAccumulator>
Expected evaluate_set(const ImpactInputSet& set, std::size_t n, const std::string& old_sexpr,
                      const std::string& new_sexpr) {
  Expected e;
  std::vector<double> ulps;
  for (std::size_t r = 0; r < set.rows; ++r) {
    std::vector<double> summands(set.a.begin() + static_cast<std::ptrdiff_t>(r * n),
                                 set.a.begin() + static_cast<std::ptrdiff_t>((r + 1) * n));
    const float before = static_cast<float>(
        evaluate(old_sexpr, std::vector<OldAccumulator>(summands.begin(), summands.end())));
    const float after = static_cast<float>(
        evaluate(new_sexpr, std::vector<NewAccumulator>(summands.begin(), summands.end())));
    const float exact = exactly_rounded(summands);
    e.old_error = std::max(e.old_error, relative(before, exact));
    e.new_error = std::max(e.new_error, relative(after, exact));
    if (std::bit_cast<std::uint32_t>(before) == std::bit_cast<std::uint32_t>(after)) continue;
    ++e.differing;
    ulps.push_back(static_cast<double>(std::llabs(ordinal(before) - ordinal(after))));
    e.difference = std::max(e.difference, relative(after, before));
  }
  if (!ulps.empty()) {
    std::sort(ulps.begin(), ulps.end());
    e.max_ulp = ulps.back();
    const std::size_t m = ulps.size() / 2;
    e.median_ulp = ulps.size() % 2 == 1 ? ulps[m] : (ulps[m - 1] + ulps[m]) / 2;
  }
  return e;
}

NumericTraits float32_sum() {
  NumericTraits t;
  t.input = t.accumulator = t.output = Format::float32;
  t.summand = SummandKind::plain;
  return t;
}

void expect_matches(const ImpactSet& got, const Expected& want) {
  SCOPED_TRACE(got.name);
  EXPECT_EQ(got.differing, want.differing);
  EXPECT_EQ(got.max_ulp, want.max_ulp);
  EXPECT_EQ(got.median_ulp, want.median_ulp);
  EXPECT_DOUBLE_EQ(got.old_max_relative_error, want.old_error);
  EXPECT_DOUBLE_EQ(got.new_max_relative_error, want.new_error);
  EXPECT_DOUBLE_EQ(got.max_relative_difference, want.difference);
}

// ---- tests --------------------------------------------------------------------------------------

TEST(Impact, SequentialAgainstPairwiseAgreesWithADirectEvaluation) {
  constexpr std::size_t n = 1024;
  const std::string sequential = sequential_sexpr(n), pairwise = pairwise_sexpr(0, n);
  const ImpactArithmetic arithmetic{float32_sum(), {}};
  const ImpactOptions options;
  const TreeImpact impact =
      tree_impact(parse_sexpr(sequential), arithmetic, parse_sexpr(pairwise), arithmetic, options);
  // The standard bound: (n - 1) u for the sequential sum, log2(n) u for pairwise summation.
  EXPECT_EQ(impact.old_bound.h, 1023.0);
  EXPECT_EQ(impact.new_bound.h, 10.0);
  EXPECT_EQ(bound_text(impact.old_bound.h), "1023u");
  const auto sets = impact_input_sets(arithmetic.traits, n, impact_rows(n, options), options.seed);
  ASSERT_EQ(impact.sets.size(), 3u);
  ASSERT_EQ(sets.size(), 3u);
  double tolerance = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_EQ(impact.sets[k].name, sets[k].name);
    EXPECT_EQ(impact.sets[k].inputs, 100u);
    const Expected want = evaluate_set<float, float>(sets[k], n, sequential, pairwise);
    expect_matches(impact.sets[k], want);
    EXPECT_GT(want.differing, 0u) << sets[k].name << ": a sequential float32 sum of 1024 differs from pairwise";
    tolerance = std::max(tolerance, want.difference);
  }
  EXPECT_DOUBLE_EQ(impact.suggested_tolerance, tolerance);
  // The cancellation set is what it says: condition numbers around 10^6.
  EXPECT_GT(impact.sets[2].median_condition, 3e5);
  EXPECT_LT(impact.sets[2].median_condition, 3e6);
  // And pairwise is the more accurate on it.
  EXPECT_LT(impact.sets[2].new_max_relative_error, impact.sets[2].old_max_relative_error);
}

TEST(Impact, IdenticalTreesDifferNowhere) {
  const Tree tree = parse_sexpr(pairwise_sexpr(0, 100));
  const ImpactArithmetic arithmetic{float32_sum(), {}};
  const TreeImpact impact = tree_impact(tree, arithmetic, tree, arithmetic);
  for (const ImpactSet& s : impact.sets) {
    EXPECT_EQ(s.differing, 0u) << s.name;
    EXPECT_EQ(s.max_ulp, 0.0);
    EXPECT_EQ(s.old_max_relative_error, s.new_max_relative_error);
  }
  EXPECT_EQ(impact.suggested_tolerance, 0.0);
  EXPECT_EQ(impact.old_bound.h, impact.new_bound.h);
}

TEST(Impact, ArithmeticChangeUnderTheSameTreeIsEvaluatedToo) {
  // The fingerprint says the partial sums are kept in float64 now: the same sequential tree, the
  // additions in double, the result rounded to float once.
  constexpr std::size_t n = 300;
  const std::string sequential = sequential_sexpr(n);
  const Tree tree = parse_sexpr(sequential);
  const ImpactArithmetic before{float32_sum(), {{"partial-sums", "float32"}}};
  const ImpactArithmetic after{float32_sum(), {{"partial-sums", "float64"}}};
  const TreeImpact impact = tree_impact(tree, before, tree, after);
  const auto sets = impact_input_sets(before.traits, n, impact_rows(n, {}), ImpactOptions{}.seed);
  for (std::size_t k = 0; k < 3; ++k) expect_matches(impact.sets[k], evaluate_set<float, double>(sets[k], n, sequential, sequential));
  EXPECT_GT(impact.sets[1].differing, 0u);
  EXPECT_EQ(impact.old_bound.h, 299.0);
  EXPECT_LT(impact.new_bound.h, 1.0);  // float64 roundings, in float32's u
}

TEST(Impact, PartialSumsAtSomeLeavesFollowTheFact) {
  // "float32; float64 at leaves 2..3": the additions that add leaves 2 and 3 keep float64.
  const Tree tree = parse_sexpr("(((0 1) 2) 3)");
  const ImpactArithmetic mixed{float32_sum(), {{"partial-sums", "float32; float64 at leaves 2..3"}}};
  const ImpactBound bound = worst_case_bound(tree, mixed);
  EXPECT_NEAR(bound.h, 1.0 + 2 * std::ldexp(1.0, -29), 1e-12);
}

double exact(std::vector<double> a, Format format, std::vector<double> b = {}) {
  return exactly_rounded_sum(a, b, format);
}

TEST(ExactlyRoundedSum, KeepsWhatCancellationWouldLose) {
  const double big = 1e300, tiny = std::ldexp(1.0, -1000);
  EXPECT_EQ(exact({big, 1.0, -big}, Format::float64), 1.0);  // double and long double both give 0
  EXPECT_EQ(exact({1.0, tiny, -1.0}, Format::float64), tiny);
  EXPECT_EQ(exact({-big, -1.0, big, std::ldexp(1.0, -1074)}, Format::float64), -1.0);
  EXPECT_EQ(exact({std::ldexp(1.0, -1074), std::ldexp(1.0, -1074)}, Format::float64), std::ldexp(1.0, -1073));
  EXPECT_EQ(exact({}, Format::float64), 0.0);
  EXPECT_TRUE(std::isinf(exact({1.7e308, 1.7e308}, Format::float64)));
  EXPECT_TRUE(std::isnan(exact({1.0, INFINITY}, Format::float64)));
}

TEST(ExactlyRoundedSum, RoundsOnceToNearestEven) {
  const double half_ulp = std::ldexp(1.0, -53);
  EXPECT_EQ(exact({1.0, half_ulp}, Format::float64), 1.0);                               // tie: to even
  EXPECT_EQ(exact({1.0, half_ulp, std::ldexp(1.0, -900)}, Format::float64), 1.0 + 2 * half_ulp);  // just above
  EXPECT_EQ(exact({1.0 + 2 * half_ulp, half_ulp}, Format::float64), 1.0 + 4 * half_ulp);  // tie: odd rounds up
  EXPECT_EQ(exact({-1.0, -half_ulp, -std::ldexp(1.0, -900)}, Format::float64), -(1.0 + 2 * half_ulp));
  // float32: 1 + 2^-24 is a tie; a far smaller third summand breaks it (rounding to double first
  // would lose it and tie to 1).
  EXPECT_EQ(exact({1.0, std::ldexp(1.0, -24)}, Format::float32), 1.0);
  EXPECT_EQ(exact({1.0, std::ldexp(1.0, -24), std::ldexp(1.0, -80)}, Format::float32), 1.0 + std::ldexp(1.0, -23));
  // float32's subnormals: 1.5 quanta of 2^-149 is a tie between 1 and 2 quanta: even is 2.
  EXPECT_EQ(exact({1.5 * std::ldexp(1.0, -149)}, Format::float32), std::ldexp(1.0, -148));
  EXPECT_EQ(exact({1e39}, Format::float32), INFINITY);
}

TEST(ExactlyRoundedSum, ProductsEnterExactly) {
  // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: fl(a b) drops the 2^-60 the error-free product keeps.
  const double a = 1.0 + std::ldexp(1.0, -30);
  EXPECT_EQ(exact({a, -1.0}, Format::float64, {a, 1.0}), std::ldexp(1.0, -29) + std::ldexp(1.0, -60));
}

TEST(ExactlyRoundedSum, ManyTermsCancelToZero) {
  std::vector<double> values;
  double x = 0.1;
  for (int k = 0; k < 20000; ++k) {
    x = std::fmod(x * 7919.123 + 0.37, 1.0);
    values.push_back(std::ldexp(x, (k * 37) % 2000 - 1000));
  }
  std::vector<double> both = values;
  for (auto it = values.rbegin(); it != values.rend(); ++it) both.push_back(-*it);
  EXPECT_EQ(exact(both, Format::float64), 0.0);
  both.push_back(std::ldexp(1.0, -1070));
  EXPECT_EQ(exact(both, Format::float64), std::ldexp(1.0, -1070));
}

TEST(Impact, TheWorkIsBounded) {
  ImpactOptions options;
  EXPECT_EQ(impact_rows(1024, options), 100u);
  EXPECT_EQ(impact_rows(1'000'000, options), options.leaf_budget / 1'000'000);
  EXPECT_GE(impact_rows(100'000'000, options), 1u);
}

TEST(Impact, InputSetsAreReproducibleAndExactInTheInputFormat) {
  NumericTraits t = float32_sum();
  t.input = Format::float16;
  t.summand = SummandKind::product;
  const auto a = impact_input_sets(t, 50, 4, 7), b = impact_input_sets(t, 50, 4, 7);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(a[k].a, b[k].a);
    EXPECT_EQ(a[k].b, b[k].b);
    for (double v : a[k].a) EXPECT_TRUE(is_representable(v, Format::float16)) << v;
    for (double v : a[k].b) EXPECT_TRUE(is_representable(v, Format::float16)) << v;
  }
  for (double v : a[0].a) EXPECT_TRUE(v >= 0.0 && v < 1.0);
}

}  // namespace
}  // namespace fprev
