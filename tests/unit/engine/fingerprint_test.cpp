// The arithmetic fingerprint: the portable generator gives pinned bytes, each fact is measured right
// on toy targets whose arithmetic is known, and a changed arithmetic under the same order is named.
#include <gtest/gtest.h>

#include <cmath>

#include "fprev/fingerprint.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "oracle_target.hpp"
#include "toy_blas_target.hpp"

namespace {

using fprev::Fingerprint;
using fprev::Format;
using fprev::test::ToyArithmetic;
using fprev::test::ToyDotTarget;

// SplitMix64 with seed 1234567: the reference outputs published with the algorithm (Rosetta Code,
// "Pseudo-random numbers/Splitmix64"), not computed by this implementation.
TEST(FingerprintGenerator, SplitMix64MatchesThePublishedReferenceOutputs) {
  fprev::SplitMix64 rng(1234567);
  EXPECT_EQ(rng.next(), 6457827717110365317ULL);
  EXPECT_EQ(rng.next(), 3203168211198807973ULL);
  EXPECT_EQ(rng.next(), 9817491932198370423ULL);
  EXPECT_EQ(rng.next(), 4593380528125082431ULL);
  EXPECT_EQ(rng.next(), 16408922859458223821ULL);
}

TEST(FingerprintGenerator, BelowStaysInRange) {
  fprev::SplitMix64 rng(7);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(rng.below(249), 249u);
  EXPECT_EQ(rng.below(1), 0u);
}

fprev::TargetInfo float32_sum(std::size_t n) {
  fprev::TargetInfo info;
  info.n = n;
  return info;  // float32 plain summands by default
}

// Values derived independently: a separate Python implementation of SplitMix64 and of the
// constructions described in fingerprint_inputs.cpp (exact rationals, rounded by hand to 24 bits).
TEST(FingerprintGenerator, InputSetsHavePinnedBytes) {
  const auto sets = fprev::fingerprint_inputs(float32_sum(4));
  ASSERT_EQ(sets.size(), 5u);
  EXPECT_EQ(sets[0].name, "cancel");
  EXPECT_EQ(sets[1].name, "normal");
  EXPECT_EQ(sets[4].name, "wide");
  ASSERT_EQ(sets[1].a.size(), 8u * 4u);
  EXPECT_EQ(sets[1].a[0], -0x1.81cf58p-1);
  EXPECT_EQ(sets[1].a[1], -0x1.667990p-3);
  EXPECT_EQ(sets[1].a[2], -0x1.10eb00p-1);
  EXPECT_EQ(sets[1].a[3], -0x1.0d24f6p+0);
  EXPECT_EQ(sets[4].a[0], -0x1.d597dap+102);
  EXPECT_EQ(sets[4].a[1], 0x1.b8eed8p-64);
  EXPECT_EQ(sets[4].a[2], -0x1.618eb4p-124);
  EXPECT_EQ(sets[4].a[3], 0x1.93b96p-18);
}

TEST(FingerprintGenerator, EveryValueIsExactInTheInputFormatAndSetsCoverTheirRanges) {
  for (Format input : {Format::float32, Format::float64, Format::float16, Format::bfloat16}) {
    fprev::TargetInfo info = float32_sum(50);
    info.traits.input = info.traits.accumulator = info.traits.output = input;
    info.traits.summand = fprev::SummandKind::product;
    bool subnormal = false, negative_zero = false;
    for (const auto& set : fprev::fingerprint_inputs(info)) {
      ASSERT_EQ(set.a.size(), set.rows * info.n);
      ASSERT_EQ(set.b.size(), info.n);
      for (double v : set.a) {
        ASSERT_TRUE(fprev::is_representable(v, input)) << set.name << " " << v;
        if (v != 0 && std::fabs(v) < std::ldexp(1.0, fprev::format_info(input).min_exponent)) subnormal = true;
        if (v == 0 && std::signbit(v)) negative_zero = true;
      }
      for (double v : set.b) ASSERT_TRUE(fprev::is_representable(v, input)) << set.name << " " << v;
    }
    EXPECT_TRUE(subnormal) << to_string(input);
    EXPECT_TRUE(negative_zero) << to_string(input);
  }
}

TEST(FingerprintText, HexDoublesAreCanonicalAndRoundTrip) {
  EXPECT_EQ(fprev::hex_double(12.0), "0x1.8p+3");
  EXPECT_EQ(fprev::hex_double(-0.0), "-0x0p+0");
  EXPECT_EQ(fprev::hex_double(0x1p-1074), "0x1p-1074");
  EXPECT_EQ(fprev::hex_double(-INFINITY), "-inf");
  EXPECT_EQ(fprev::hex_double(std::nan("")), "nan");
  for (double v : {1.0, -0x1.fffffep+127, 0x1.123456789abcdp-1030, 3.0e-310, -2.5})
    EXPECT_EQ(fprev::parse_hex_double(fprev::hex_double(v)), v);
  EXPECT_FALSE(fprev::parse_hex_double("0x1.80p+3"));  // not canonical
  EXPECT_FALSE(fprev::parse_hex_double("12"));
  EXPECT_FALSE(fprev::parse_hex_double("0x1.8p+3 "));
}

TEST(FingerprintText, UlpDistanceCountsValuesOfTheFormat) {
  EXPECT_EQ(fprev::ulp_distance(1.0, 1.0 + 0x1p-23, Format::float32), 1.0);
  EXPECT_EQ(fprev::ulp_distance(1.0, 1.0 - 0x1p-24, Format::float32), 1.0);  // across a binade
  EXPECT_EQ(fprev::ulp_distance(0x1p-149, -0x1p-149, Format::float32), 2.0);
  EXPECT_EQ(fprev::ulp_distance(1.0, 1.0 + 0x1p-10, Format::float16), 1.0);
  EXPECT_EQ(fprev::ulp_distance(1.0, 1.0 + 0x1p-52, Format::float64), 1.0);
  EXPECT_FALSE(fprev::ulp_distance(1.0, INFINITY, Format::float32));
}

// The toy's order, revealed on the plain variant: every variant adds in this order.
const fprev::Tree& toy_tree() {
  static const fprev::Tree tree = [] {
    ToyDotTarget plain(64, ToyArithmetic::plain);
    return fprev::reveal(plain).tree;
  }();
  return tree;
}

Fingerprint measure(ToyArithmetic arithmetic, std::size_t tail_start = 0) {
  ToyDotTarget target(64, arithmetic, tail_start);
  EXPECT_EQ(fprev::to_sexpr(toy_tree()).substr(0, 12), "((((((((((((");  // sequential
  return fprev::measure_fingerprint(target, toy_tree());
}

// The masked all-one construction needs -M + unit to round back to -M: rounding toward zero breaks
// it, and the engine says so instead of returning a tree. The gate then measures the fingerprint
// with the golden's tree (tests/unit/gate), which names the rounding.
TEST(FingerprintFacts, RoundingTowardZeroCannotBeRevealedButIsDiagnosed) {
  ToyDotTarget target(64, ToyArithmetic::toward_zero);
  EXPECT_THROW(fprev::reveal(target), fprev::RevealFailure);
}

TEST(FingerprintFacts, PlainFloat32DotIsDescribedAndReproduced) {
  const Fingerprint f = measure(ToyArithmetic::plain);
  EXPECT_EQ(f.facts.at("partial-sums"), "float32");
  EXPECT_EQ(f.facts.at("rounding"), "nearest-even");
  EXPECT_EQ(f.facts.at("products"), "rounded");
  EXPECT_EQ(f.facts.at("subnormal-inputs"), "kept");
  EXPECT_EQ(f.facts.at("subnormal-results"), "kept");
  EXPECT_EQ(f.model, "reproduced");
  EXPECT_EQ(f.input_count(), 32u);
  EXPECT_TRUE(fprev::compare_fingerprints(f, measure(ToyArithmetic::plain), Format::float32).same());
}

TEST(FingerprintFacts, DoubleTailIsLocatedByLeaves) {
  const Fingerprint plain = measure(ToyArithmetic::plain);
  const Fingerprint tail = measure(ToyArithmetic::double_tail, 56);
  // The addition of leaf 63 is the root: nothing above it can cancel, so it is not measured.
  EXPECT_EQ(tail.facts.at("partial-sums"), "float32; float64 at leaves 56..62");
  const auto change = fprev::compare_fingerprints(plain, tail, Format::float32);
  EXPECT_FALSE(change.same());
  EXPECT_GT(change.differing_outputs, 0u);
  ASSERT_EQ(change.changed_facts.size(), 1u);
  EXPECT_EQ(change.changed_facts[0], "partial-sums: float32 -> float32; float64 at leaves 56..62");
  EXPECT_NE(change.summary().find("outputs differ bitwise on "), std::string::npos) << change.summary();
  EXPECT_NE(change.summary().find(" of 32 inputs (first: "), std::string::npos) << change.summary();
}

TEST(FingerprintFacts, RoundingTowardZeroIsNamed) {
  const Fingerprint f = measure(ToyArithmetic::toward_zero);
  EXPECT_EQ(f.facts.at("rounding"), "toward-zero");
  EXPECT_EQ(f.facts.at("partial-sums"), "float32");
  EXPECT_EQ(f.model, "reproduced");  // the simulation rounds toward zero too
  const auto change = fprev::compare_fingerprints(measure(ToyArithmetic::plain), f, Format::float32);
  EXPECT_GT(change.differing_outputs, 0u);
  ASSERT_EQ(change.changed_facts.size(), 1u);
  EXPECT_EQ(change.changed_facts[0], "rounding: nearest-even -> toward-zero");
  ASSERT_TRUE(change.ulps);
  EXPECT_GE(*change.ulps, 1.0);
}

TEST(FingerprintFacts, ContractedProductsAreNamed) {
  const Fingerprint f = measure(ToyArithmetic::fma);
  EXPECT_EQ(f.facts.at("products"), "not rounded (contracted, FMA)");
  EXPECT_EQ(f.facts.at("partial-sums"), "float32");
  EXPECT_EQ(f.facts.at("rounding"), "nearest-even");
  EXPECT_EQ(f.model, "reproduced");
  const auto change = fprev::compare_fingerprints(measure(ToyArithmetic::plain), f, Format::float32);
  EXPECT_GT(change.differing_outputs, 0u);
  ASSERT_EQ(change.changed_facts.size(), 1u);
  EXPECT_EQ(change.changed_facts[0], "products: rounded -> not rounded (contracted, FMA)");
}

TEST(FingerprintFacts, OutputsChangedWithoutAFactAreUnexplained) {
  Fingerprint a = measure(ToyArithmetic::plain);
  Fingerprint b = a;
  b.outputs["normal"][2] = std::nextafter(static_cast<float>(b.outputs["normal"][2]), INFINITY);
  const auto change = fprev::compare_fingerprints(a, b, Format::float32);
  EXPECT_EQ(change.differing_outputs, 1u);
  EXPECT_EQ(change.first_set, "normal");
  EXPECT_EQ(change.first_row, 2u);
  EXPECT_EQ(change.ulps, 1.0);
  EXPECT_NE(change.summary().find("no measured arithmetic fact changed, so the measured facts do not explain the difference"), std::string::npos) << change.summary();
  EXPECT_NE(a.digest(), b.digest());
}

// The oracle follows simulate_sum exactly: a float64 tree of any shape is described and reproduced.
TEST(FingerprintFacts, OracleTargetsAreReproducedByTheModel) {
  for (const char* sexpr : {"((0 1) (2 3))", "(((0 1) 2) ((3 4) (5 (6 7))))", "(0 (1 (2 (3 4))))"}) {
    const fprev::Tree tree = fprev::parse_sexpr(sexpr);
    fprev::TreeOracleTarget target(tree);
    const Fingerprint f = fprev::measure_fingerprint(target, tree);
    EXPECT_EQ(f.facts.at("partial-sums"), "float64") << sexpr;
    EXPECT_EQ(f.facts.at("rounding"), "nearest-even") << sexpr;
    EXPECT_EQ(f.model, "reproduced") << sexpr;
  }
}


// A target in a worker process answers each evaluate_value_calls in one round trip: the fingerprint's
// experiments (a dot takes one input per call) must travel in a few such runs, not one each (a dot of
// 16384 leaves spent 0.35 s in 3,300 round trips). Counts the runs and the calls in them.
class CountingDot : public fprev::Target {
 public:
  explicit CountingDot(ToyArithmetic arithmetic) : toy_(64, arithmetic) {}
  const fprev::TargetInfo& info() const override { return toy_.info(); }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override { toy_.evaluate(batch, outputs); }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override { toy_.evaluate(batch, outputs); }
  void evaluate_value_calls(std::span<const fprev::ValueBatch> calls, std::span<double> outputs,
                            std::size_t& done) override {
    ++runs;
    value_calls += calls.size();
    fprev::Target::evaluate_value_calls(calls, outputs, done);
  }
  std::size_t runs = 0;
  std::size_t value_calls = 0;

 private:
  ToyDotTarget toy_;
};

TEST(FingerprintFacts, TheExperimentsTravelInAFewRunsAndGiveTheSameFacts) {
  CountingDot target(ToyArithmetic::fma);
  ASSERT_EQ(target.info().max_batch, 1u);
  fprev::FingerprintStats stats;
  const Fingerprint f = fprev::measure_fingerprint(target, toy_tree(), &stats);
  EXPECT_EQ(target.value_calls, stats.target_calls);
  EXPECT_GT(target.value_calls, 100u);  // one input per call: the facts alone need many
  // The five input sets (one run each) and the facts' rounds of experiments.
  EXPECT_LE(target.runs, 12u) << target.value_calls << " calls";
  // Shipped together, the experiments still measure the FMA (each call's right factors its own).
  EXPECT_EQ(f.facts.at("products"), "not rounded (contracted, FMA)");
  EXPECT_EQ(f.facts.at("partial-sums"), "float32");
  EXPECT_EQ(f.model, "reproduced");
}

}  // namespace
