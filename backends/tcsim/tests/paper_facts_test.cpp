// The numerical facts Valpey et al. (NFM 2025) and Xie et al. (USENIX ATC 2025) report about Tensor
// Cores, reproduced by the fused-sum model. Expected values come from the papers' text and are
// re-derived here with independent arithmetic (exact doubles, round-to-zero by hand).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "expected_schedule.hpp"
#include "fprev/backends/tcsim/fused_sum.hpp"
#include "fprev/format.hpp"

namespace {

using fprev::Format;
using fprev::is_representable;
using namespace fprev::tcsim;

const ArchModel volta = arch_model(Arch::volta);
const ArchModel turing = arch_model(Arch::turing);
const ArchModel ampere = arch_model(Arch::ampere);

double step(const ArchModel& m, double acc, std::vector<double> a, std::vector<double> b) {
  return fused_step(m, acc, a, b);
}

// float32 round-to-zero of an exact double, built from round-to-nearest (independent of the model).
double float32_round_to_zero(double x) {
  float f = static_cast<float>(x);
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  return static_cast<double>(f);
}

// A sum that normalises (and truncates) after every addition, the behaviour Valpey et al., NFM 2025 Property 4
// rules out: the contrast for the no-normalisation tests.
double normalising_sum(const std::vector<double>& terms) {
  double s = 0.0;
  for (double t : terms) s = float32_round_to_zero(s + t);  // s + t is exact in double here
  return s;
}

// Valpey et al., NFM 2025 Sec. 4.1, Table 1: the products are computed in full precision. The table's factors
// have the significands 1.2587890625 and 1.3681640625; their extracted exponents do not give
// float16 numbers, so we keep the significands and use exponents -14 and -1 (both normal).
TEST(PaperFacts, ProductsAreExact_Table1) {
  const double a = 1.2587890625 * std::ldexp(1.0, -14);
  const double b = 1.3681640625 * std::ldexp(1.0, -1);
  ASSERT_TRUE(is_representable(a, Format::float16));
  ASSERT_TRUE(is_representable(b, Format::float16));
  const double exact = a * b;  // 1289 * 1401 * 2^-35 = 1805889 * 2^-35: exact in double
  ASSERT_EQ(exact, 1805889.0 * std::ldexp(1.0, -35));
  const double rounded_to_half = fprev::round_to_format(exact, Format::float16);
  ASSERT_NE(exact, rounded_to_half);  // a half-precision multiplier would have lost bits
  for (const ArchModel* m : {&volta, &turing, &ampere}) {
    EXPECT_EQ(step(*m, 0.0, {a}, {b}), exact) << m->name;
    EXPECT_EQ(step(*m, 0.0, {b}, {a}), exact) << m->name;
  }
}

// Valpey et al., NFM 2025 Sec. 4.2, Table 3: 2^1 + (-2^-40) gives 2^1 on the Tensor Cores. A properly rounded
// round-to-zero addition would give 2 - 2^-23: the hardware truncates the shifted-out bits of the
// aligned term, which is not round-to-zero.
TEST(PaperFacts, TruncationIsNotRoundToZero_Table3) {
  const double two = 2.0, tiny = -std::ldexp(1.0, -40);
  const double rtz = float32_round_to_zero(two + tiny);  // 2 - 2^-40 is exact in double
  ASSERT_EQ(rtz, 2.0 - std::ldexp(1.0, -23));            // the paper's "properly-rounded RTZ"
  for (const ArchModel* m : {&volta, &turing, &ampere}) {
    // a = 2^1, b = 1, c = -2^-40 (the accumulator holds c).
    EXPECT_EQ(step(*m, tiny, {two}, {1.0}), 2.0) << m->name;
    EXPECT_NE(step(*m, tiny, {two}, {1.0}), rtz) << m->name;
  }
}

// Valpey et al., NFM 2025 Sec. 4.2: "they truncate". 1 + 3*2^-24 is 1.5 float32 ulps above 1: round to nearest
// (ties to even) gives 1 + 2^-22, truncation 1 + 2^-23.
TEST(PaperFacts, AccumulationTruncatesRatherThanRoundsToNearest) {
  const double a = 3.0 * std::ldexp(1.0, -12), b = std::ldexp(1.0, -12);
  ASSERT_TRUE(is_representable(a, Format::float16));
  const double nearest = static_cast<double>(static_cast<float>(1.0 + a * b));
  ASSERT_EQ(nearest, 1.0 + std::ldexp(1.0, -22));
  EXPECT_EQ(step(volta, 1.0, {a}, {b}), 1.0 + std::ldexp(1.0, -23));
  EXPECT_EQ(step(ampere, 1.0, {a}, {b}), 1.0 + std::ldexp(1.0, -23));
}

// Valpey et al., NFM 2025 Sec. 4.3 and Sec. 5: all shifted bits are discarded on Volta and Turing, one is kept
// on Ampere. Two terms of 2^-24 next to 1: below Volta's alignment window (2^-23), inside Ampere's.
TEST(PaperFacts, ExtraAlignmentBits_VoltaNoneAmpereOne) {
  const double u = std::ldexp(1.0, -12);  // u * u = 2^-24
  EXPECT_EQ(step(volta, 1.0, {u, u}, {u, u}), 1.0);
  EXPECT_EQ(step(turing, 1.0, {u, u}, {u, u}), 1.0);
  EXPECT_EQ(step(ampere, 1.0, {u, u}, {u, u}), 1.0 + std::ldexp(1.0, -23));
}

// Hopper's extra bits are a parameter: 2^-25 terms survive with 2 extra bits, not with 1.
TEST(PaperFacts, HopperExtraBitsAreAParameter) {
  const double u = std::ldexp(1.0, -12), v = std::ldexp(1.0, -13);  // u * v = 2^-25
  const std::vector<double> a(4, u), b(4, v);
  EXPECT_EQ(step(arch_model(Arch::hopper, 0), 1.0, a, b), 1.0);
  EXPECT_EQ(step(arch_model(Arch::hopper, 1), 1.0, a, b), 1.0);
  EXPECT_EQ(step(arch_model(Arch::hopper, 2), 1.0, a, b), 1.0 + std::ldexp(1.0, -23));
}

// Valpey et al., NFM 2025 Sec. 6, the walk-through of Table 5 (Property 4): partial sums inside the 5-term
// accumulation are not normalised. Products p1 + p2 = 1 - 2^-24 (largest exponent -1), p3 = p4 =
// 2^-24, c = 2^-24:
//   * Markidis et al. (c accumulated inside the Tensor Core): 1 + 2^-23, the true value;
//   * Ootomo-Yokota (c = 0 inside, then c added outside with round to nearest): 1.0;
//   * normalising (and truncating) after every addition would also lose the low bits: 1.0.
TEST(PaperFacts, NoNormalisationOfPartialSums_Section6Walkthrough) {
  const double e12 = std::ldexp(1.0, -12);
  // p1 = (63/64)(65/64) = 1 - 2^-12, p2 = (63 * 2^-12)(65 * 2^-12) = 2^-12 - 2^-24: float16 factors.
  const std::vector<double> a{63.0 / 64, 63 * e12, e12, e12};
  const std::vector<double> b{65.0 / 64, 65 * e12, e12, e12};
  for (double x : a) ASSERT_TRUE(is_representable(x, Format::float16));
  for (double x : b) ASSERT_TRUE(is_representable(x, Format::float16));
  ASSERT_EQ(a[0] * b[0] + a[1] * b[1], 1.0 - std::ldexp(1.0, -24));
  const double c = std::ldexp(1.0, -24);
  const double truth = 1.0 + std::ldexp(1.0, -23);

  const double markidis = step(volta, c, a, b);
  EXPECT_EQ(markidis, truth);
  const double inside = step(volta, 0.0, a, b);  // 1 + 2^-24, normalised: the lowest bit is lost
  EXPECT_EQ(inside, 1.0);
  const double ootomo_yokota = static_cast<double>(static_cast<float>(inside) + static_cast<float>(c));
  EXPECT_EQ(ootomo_yokota, 1.0);

  std::vector<double> terms;
  for (std::size_t i = 0; i < a.size(); ++i) terms.push_back(a[i] * b[i]);
  terms.push_back(c);
  EXPECT_EQ(normalising_sum(terms), 1.0);
  EXPECT_NE(normalising_sum(terms), markidis);
}

// Valpey et al., NFM 2025 Sec. 6 (after Fasi et al. Sec. D-2): 1 - 2^-24 accumulated with four terms of 2^-24.
// Without normalisation none of the small terms is lost: 1 + 3 * 2^-24 truncated to 1 + 2^-23, an
// error of only 2^-24; normalising after every addition would give 1.
TEST(PaperFacts, NoNormalisation_FasiExperiment) {
  const double u = std::ldexp(1.0, -12);
  const double c = 1.0 - std::ldexp(1.0, -24);
  const double result = step(volta, c, {u, u, u, u}, {u, u, u, u});
  EXPECT_EQ(result, 1.0 + std::ldexp(1.0, -23));
  EXPECT_EQ(std::fabs(result - (c + 4 * u * u)), std::ldexp(1.0, -24));
  EXPECT_EQ(normalising_sum({c, u * u, u * u, u * u, u * u}), 1.0);
}

// Inputs for the carry-bit tests: four products (2 - 2^-10)^2 and c = 4 - 2^-22 are all just
// below 4 (largest exponent 1); their aligned sum is about 5 * 2^24 units, which needs 27 bits:
// 3 bits above the 24-bit significand.
struct CarryCase {
  std::vector<double> a = std::vector<double>(4, 2.0 - std::ldexp(1.0, -10));
  std::vector<double> b = a;
  double c = 4.0 - std::ldexp(1.0, -22);
  std::vector<double> terms() const {
    std::vector<double> t{c};
    for (std::size_t i = 0; i < a.size(); ++i) t.push_back(a[i] * b[i]);
    return t;
  }
  double exact() const {
    double s = 0.0;
    for (double t : terms()) s += t;  // all terms on a 2^-22 grid below 2^5: exact
    return s;
  }
};

// Valpey et al., NFM 2025 Sec. 4.3: 3 extra carry-out bits are needed for the 5-term accumulation...
TEST(PaperFacts, ThreeCarryBitsAreNeededForFiveTerms) {
  const CarryCase k;
  ASSERT_TRUE(is_representable(k.a[0], Format::float16));
  ASSERT_TRUE(is_representable(k.c, Format::float32));
  const double expected = float32_round_to_zero(k.exact());  // every term aligns exactly
  EXPECT_EQ(volta.carry_bits, 3);
  EXPECT_EQ(step(volta, k.c, k.a, k.b), expected);
  EXPECT_EQ(fused_sum(k.terms(), {24, 0, 3}), expected);
  // With 2 carry bits the register overflows and the result is wrong.
  EXPECT_NE(fused_sum(k.terms(), {24, 0, 2}), expected);
}

// ... and enough: Valpey et al., NFM 2025 proves by SMT that 4 carry bits give the same results as 3. Here: the
// same result with 3, 4 and 10 carry bits on random 5-term inputs (float16 products of all
// magnitudes and signs, float32 accumulators) and on the worst case above.
TEST(PaperFacts, ThreeCarryBitsAreEnoughForFiveTerms) {
  std::mt19937_64 rng(20240917);
  std::bernoulli_distribution near_top(0.5);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<double> terms;
    // Exponents near the top of the binade often, so carries actually happen.
    terms.push_back(tcsim_test::random_value(rng, Format::float32, near_top(rng) ? 1 : -30, 1));
    for (int i = 0; i < 4; ++i) {
      const double x = tcsim_test::random_value(rng, Format::float16, near_top(rng) ? 0 : -14, 0);
      const double y = tcsim_test::random_value(rng, Format::float16, near_top(rng) ? 0 : -14, 0);
      terms.push_back(x * y);
    }
    const double three = fused_sum(terms, {24, 0, 3});
    ASSERT_EQ(three, fused_sum(terms, {24, 0, 4})) << "trial " << trial;
    ASSERT_EQ(three, fused_sum(terms, {24, 0, 10})) << "trial " << trial;
  }
}

// The same bound for the wider steps (model assumption: ceil(log2(terms)) carry bits; Valpey et al., NFM 2025
// could not confirm Ampere's 4 by SMT): all terms just below 2^(e+1) need exactly that many.
TEST(PaperFacts, CarryBitsOfTheWiderSteps) {
  for (Arch arch : {Arch::ampere, Arch::hopper}) {
    const ArchModel m = arch_model(arch);
    const std::vector<double> a(static_cast<std::size_t>(m.products_per_step),
                                2.0 - std::ldexp(1.0, -10));
    const double c = 4.0 - std::ldexp(1.0, -22);
    double exact = c;
    for (double x : a) exact += x * x;
    const double expected = float32_round_to_zero(exact);
    EXPECT_EQ(fused_step(m, c, a, a), expected) << m.name;
    FusedSumParams fewer = fused_params(m);
    fewer.carry_bits -= 1;
    std::vector<double> terms{c};
    for (double x : a) terms.push_back(x * x);
    EXPECT_NE(fused_sum(terms, fewer), expected) << m.name;
  }
}

// Valpey et al., NFM 2025 Sec. 4.2, Property 2: float16 results are rounded to nearest. 1.75 * (1 + 2^-10) =
// 1.75 + 1.75 * 2^-10 lies between the float16 neighbours 1.75 + 2^-10 and 1.75 + 2^-9, nearer
// the latter; truncation would give the former.
TEST(PaperFacts, Float16OutputIsRoundedToNearest_Property2) {
  const double a = 1.75, b = 1.0 + std::ldexp(1.0, -10);
  const double float32_result = step(volta, 0.0, {a}, {b});
  ASSERT_EQ(float32_result, a * b);  // exact in float32
  EXPECT_EQ(convert_output(float32_result, Format::float16), 1.75 + std::ldexp(1.0, -9));
  EXPECT_EQ(convert_output(float32_result, Format::float32), float32_result);
}

// Valpey et al., NFM 2025 Algorithm 1 step 2b: NaN in, or infinities of both signs, give NaN.
TEST(PaperFacts, SpecialValues_Algorithm1Step2b) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(step(volta, 0.0, {inf, 1.0}, {1.0, std::nan("")})));
  EXPECT_TRUE(std::isnan(step(volta, 0.0, {inf, -inf}, {1.0, 1.0})));
  EXPECT_TRUE(std::isnan(step(volta, 0.0, {inf}, {0.0})));  // inf * 0
  EXPECT_EQ(step(volta, 1.0, {inf, 2.0}, {1.0, 1.0}), inf);
  EXPECT_EQ(step(volta, -inf, {2.0}, {1.0}), -inf);
}

// Valpey et al., NFM 2025 Sec. 5: "the Volta and Turing tensor cores possess identical numerical behavior".
TEST(PaperFacts, VoltaAndTuringAreIdentical) {
  EXPECT_EQ(volta.products_per_step, turing.products_per_step);
  EXPECT_EQ(volta.extra_bits, turing.extra_bits);
  EXPECT_EQ(volta.carry_bits, turing.carry_bits);
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<double> a, b;
    for (int i = 0; i < 4; ++i) {
      a.push_back(tcsim_test::random_value(rng, Format::float16, -10, 10));
      b.push_back(tcsim_test::random_value(rng, Format::float16, -10, 10));
    }
    const double c = tcsim_test::random_value(rng, Format::float32, -20, 20);
    ASSERT_EQ(step(volta, c, a, b), step(turing, c, a, b));
  }
}

}  // namespace
