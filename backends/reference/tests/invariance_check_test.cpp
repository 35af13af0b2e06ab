// The invariance check (fprev/invariance.hpp) against the reference gemv, whose order at every m is
// known by construction: with split_k_max_m = 4 a row splits its K in two halves at m <= 4 and adds
// them sequentially at m > 4. Every verdict is also checked against independent reveals of each
// variant: what the check says must be what the trees say.
#include <gtest/gtest.h>

#include "fprev/backends/reference.hpp"
#include "fprev/invariance.hpp"
#include "fprev/sexpr.hpp"
#include "quick_options.hpp"

namespace fprev {
namespace {

RevealOptions quick_invariance_options() { return ::fprev::testing::quick_reveal_options(); }

// Derived from the definition (reference.hpp), n = 8: the two halves of 4, each sequential.
const char* const kSplit = "((((0 1) 2) 3) (((4 5) 6) 7))";
const char* const kSequential = "(((((((0 1) 2) 3) 4) 5) 6) 7)";

class GemvVariants : public ::testing::Test {
 protected:
  GemvVariants() {
    register_reference_backend(registry_);
    backend_ = registry_.find("reference");
    instance_ = backend_->open({});
  }

  Params case_params(std::string m, std::string order = "sequential") const {
    return resolve_params(instance_->case_params(),
                          {{"op", "gemv"}, {"order", std::move(order)}, {"n", "8"}, {"m", std::move(m)},
                           {"split_k_max_m", "4"}},
                          "test");
  }

  // The check with the case at m = `known` and the listed values.
  InvarianceResult check(const std::string& known, const std::vector<std::string>& values,
                         InvarianceStats* stats = nullptr, const std::string& parameter = "m") {
    const Params params = case_params(known);
    known_target_ = instance_->make_target(params);
    known_map_ = reveal(*known_target_, quick_invariance_options()).map;
    const std::string known_value = invariance_known_value(*backend_, *instance_, {}, params, parameter);
    variants_ = make_invariance_variants(*backend_, *instance_, {}, params, parameter, values, known_value);
    return check_invariance(parameter, values, {known_value, known_target_->info(), &known_map_}, variants_, quick_invariance_options(),
                            stats);
  }

  // An independent reveal of the variant at m.
  OrderMap revealed_at(const std::string& m) { return reveal(*instance_->make_target(case_params(m)), quick_invariance_options()).map; }

  BackendRegistry registry_;
  const Backend* backend_ = nullptr;
  std::unique_ptr<BackendInstance> instance_;
  std::unique_ptr<Target> known_target_;
  OrderMap known_map_;
  std::vector<InvarianceVariant> variants_;
};

TEST_F(GemvVariants, ReferenceGemvSplitsKOnlyForSmallBatches) {
  for (const char* m : {"1", "4"}) {
    const OrderMap map = revealed_at(m);
    ASSERT_TRUE(map.single_class()) << m;
    EXPECT_EQ(map.classes[0].tree, parse_sexpr(kSplit)) << m;
  }
  for (const char* m : {"5", "16"}) {
    const OrderMap map = revealed_at(m);
    ASSERT_TRUE(map.single_class()) << m;
    EXPECT_EQ(map.classes[0].tree, parse_sexpr(kSequential)) << m;
  }
}

TEST_F(GemvVariants, SplitAcrossTheBatchIsNotBatchInvariant) {
  InvarianceStats stats;
  const InvarianceResult r = check("16", {"1", "2", "16"}, &stats);
  EXPECT_FALSE(r.invariant);
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_EQ(r.counterexample->value, "1");  // the first listed value that differs
  EXPECT_EQ(r.counterexample->base_value, "16");
  EXPECT_EQ(r.counterexample->row, 0u);
  EXPECT_EQ(r.counterexample->column, 0u);
  EXPECT_EQ(r.counterexample->leaves, "{0..7}");
  EXPECT_EQ(r.counterexample->base_subtree, kSequential);
  EXPECT_EQ(r.counterexample->variant_subtree, kSplit);
  EXPECT_EQ(r.summary(), "not batch-invariant (m = 1, 2, 16): at m=1 element (0,0) adds its summands in another "
                         "order than at m=16");
  // One failed proof, one reveal for the counterexample, and it stopped there.
  EXPECT_EQ(stats.proofs, 1u);
  EXPECT_EQ(stats.proofs_failed, 1u);
  EXPECT_EQ(stats.reveals, 1u);
  // Independent reveals agree: row 0 differs between m = 1 and m = 16.
  EXPECT_NE(revealed_at("1").class_at(0, 0).tree, revealed_at("16").class_at(0, 0).tree);
}

TEST_F(GemvVariants, SameSideOfTheSplitIsBatchInvariantByProofsAlone) {
  InvarianceStats stats;
  const InvarianceResult r = check("16", {"5", "8", "16"}, &stats);
  EXPECT_TRUE(r.invariant);
  EXPECT_FALSE(r.counterexample.has_value());
  EXPECT_EQ(r.summary(), "batch-invariant (m = 5, 8, 16)");
  EXPECT_EQ(stats.variants, 2u);
  EXPECT_EQ(stats.proofs, 2u);
  EXPECT_EQ(stats.proofs_failed, 0u);
  EXPECT_EQ(stats.reveals, 0u);
  // Independent reveals agree, element by element over the rows both have.
  const OrderMap at16 = revealed_at("16");
  for (const char* m : {"5", "8"}) {
    const OrderMap map = revealed_at(m);
    for (std::size_t row = 0; row < map.grid.rows; ++row) EXPECT_EQ(map.class_at(row, 0).tree, at16.class_at(row, 0).tree);
  }
}

TEST_F(GemvVariants, SmallerKnownCaseIsComparedWithTheLargestVariant) {
  InvarianceStats stats;
  const InvarianceResult small = check("2", {"1", "2", "4"}, &stats);
  EXPECT_TRUE(small.invariant);  // all split: the known m = 2 against a revealed m = 4
  EXPECT_EQ(stats.reveals, 1u);
  const InvarianceResult mixed = check("2", {"2", "8"});
  EXPECT_FALSE(mixed.invariant);
  ASSERT_TRUE(mixed.counterexample.has_value());
  EXPECT_EQ(mixed.counterexample->value, "2");  // the known case differs from the larger m = 8
  EXPECT_EQ(mixed.counterexample->base_value, "8");
}

TEST_F(GemvVariants, DifferentNumbersOfSummandsAreNotComparable) {
  EXPECT_THROW(check("8", {"8", "16"}, nullptr, "n"), InvarianceError);
}

TEST_F(GemvVariants, MisbehavingVariantGivesADiagnosticNotAVerdict) {
  // The known case is sequential; at order=nondeterministic the variant has no order at all.
  const Params sum_params = resolve_params(instance_->case_params(), {{"order", "sequential"}, {"n", "8"}}, "test");
  const auto sum_target = instance_->make_target(sum_params);
  const OrderMap sum_map = reveal(*sum_target, quick_invariance_options()).map;
  const std::vector<std::string> values{"sequential", "nondeterministic"};
  variants_ = make_invariance_variants(*backend_, *instance_, {}, sum_params, "order", values, "sequential");
  try {
    check_invariance("order", values, {"sequential", sum_target->info(), &sum_map}, variants_, quick_invariance_options());
    FAIL() << "a nondeterministic variant gave a verdict";
  } catch (const RevealFailure& e) {
    // Caught by the determinism check, or by probes no tree can answer: a diagnostic either way.
    EXPECT_NE(e.diagnostic().finding, Finding::verification_failed);
    EXPECT_NE(e.diagnostic().message.find("at order=nondeterministic"), std::string::npos) << e.diagnostic().message;
  }
}

TEST_F(GemvVariants, RunsCompareFreshInstances) {
  const Params params = case_params("8");
  known_target_ = instance_->make_target(params);
  known_map_ = reveal(*known_target_, quick_invariance_options()).map;
  const std::vector<std::string> values = run_values(3);
  variants_ = make_invariance_variants(*backend_, *instance_, {}, params, "runs", values, "1");
  ASSERT_EQ(variants_.size(), 2u);
  const InvarianceResult r = check_invariance("runs", values, {"1", known_target_->info(), &known_map_}, variants_, quick_invariance_options());
  EXPECT_TRUE(r.invariant);
  EXPECT_EQ(r.summary(), "run-to-run (3 runs)");
}

TEST_F(GemvVariants, UnknownParameterNamesTheAllowedOnes) {
  try {
    invariance_parameter_kind(*backend_, *instance_, "batch");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("allowed values: runs, op, order"), std::string::npos) << e.what();
  }
}

TEST(InvarianceSummary, ReadsBackWhatItWrites) {
  InvarianceResult r;
  r.parameter = "threads";
  r.values = {"1", "2", "4"};
  r.invariant = false;
  r.counterexample = InvarianceCounterexample{"2", "1", 0, 0, true, "", "", ""};
  const std::string text = r.summary();
  EXPECT_EQ(text, "not thread-invariant (threads = 1, 2, 4): at threads=2 the output adds its summands in another "
                  "order than at threads=1");
  std::string error;
  const auto parsed = parse_invariance_summary("threads", text, error);
  ASSERT_TRUE(parsed.has_value()) << error;
  EXPECT_EQ(*parsed, r);
  r.invariant = true;
  r.counterexample.reset();
  r.parameter = "n";
  EXPECT_EQ(parse_invariance_summary("n", r.summary(), error), r);
  EXPECT_EQ(r.summary(), "invariant over n (n = 1, 2, 4)");
  for (const char* bad : {"invariant over n (n = 1)", "invariant over n (n = 1,2)", "invariant over n (n = 1, 2) ",
                          "thread-invariant (threads = 1, 2)",
                          "not invariant over n (n = 1, 2): at n=1 element (0,0) adds its summands in another order than at n=1"})
    EXPECT_FALSE(parse_invariance_summary("n", bad, error).has_value()) << bad;
  EXPECT_TRUE(parse_invariance_summary("runs", "run-to-run (3 runs)", error).has_value()) << error;
  EXPECT_FALSE(parse_invariance_summary("runs", "run-to-run (1 runs)", error).has_value());
}

}  // namespace
}  // namespace fprev
