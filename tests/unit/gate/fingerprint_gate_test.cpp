// The gate with fingerprints, end to end through the Runner: a toy BLAS recorded with plain float32
// arithmetic, then "upgraded" to the same order with partial sums kept in double, additions rounded
// toward zero or products contracted into FMA. check must fail and name the changed fact; the
// unchanged library passes; a golden without a fingerprint still checks its tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fprev/runner.hpp"
#include "toy_blas_target.hpp"

namespace {

namespace fs = std::filesystem;
using fprev::CaseStatus;
using fprev::test::ToyArithmetic;

class ToyBlasInstance : public fprev::BackendInstance {
 public:
  explicit ToyBlasInstance(std::string arithmetic) : arithmetic_(std::move(arithmetic)) {}
  fprev::Identity identity() const override {
    return {"toyblas", arithmetic_ == "plain" ? "1.0" : "2.0", arithmetic_, "toy-t1", {}};
  }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::choice_param("op", {"dot"}, "routine").require(), fprev::integer_param("n", 1, 1 << 16, "summands")};
  }
  void validate_case(const fprev::Params&) const override {}
  std::unique_ptr<fprev::Target> make_target(const fprev::Params& p) const override {
    const std::size_t n = std::stoul(p.at("n"));
    const ToyArithmetic a = arithmetic_ == "double_tail" ? ToyArithmetic::double_tail
                            : arithmetic_ == "toward_zero" ? ToyArithmetic::toward_zero
                            : arithmetic_ == "fma"         ? ToyArithmetic::fma
                                                           : ToyArithmetic::plain;
    return std::make_unique<fprev::test::ToyDotTarget>(n, a, n - n % 32);  // OpenBLAS-like tail
  }

 private:
  std::string arithmetic_;
};

class ToyBlasBackend : public fprev::Backend {
 public:
  std::string_view name() const override { return "toyblas"; }
  std::string_view summary() const override { return "toy BLAS with a choice of arithmetic"; }
  std::vector<fprev::ParamSpec> instance_params() const override {
    return {fprev::choice_param("arithmetic", {"plain", "double_tail", "toward_zero", "fma"}, "")
                .defaults_to("plain")};
  }
  std::vector<fprev::ParamSpec> case_params() const override {
    return ToyBlasInstance("plain").case_params();
  }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params& p) const override {
    return std::make_unique<ToyBlasInstance>(p.at("arithmetic"));
  }
};

const fprev::BackendRegistry& registry() {
  static const fprev::BackendRegistry r = [] {
    fprev::BackendRegistry registry;
    registry.add(std::make_unique<ToyBlasBackend>());
    return registry;
  }();
  return r;
}

fprev::Suite suite(const std::string& arithmetic) {
  return fprev::parse_suite("suite: toys\n"
                            "description: toy BLAS\n"
                            "backends:\n"
                            "  - name: toy\n"
                            "    use: toyblas\n"
                            "    arithmetic: " + arithmetic + "\n"
                            "cases:\n"
                            "  - op: dot\n"
                            "    n: 40\n",
                            "toys.yaml", registry());
}

class FingerprintGate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("fprev-fingerprint-gate-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    const auto recorded = runner().update(suite("plain"), suite("plain").cases.at(0));
    ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  }
  void TearDown() override { fs::remove_all(root_); }

  fprev::Runner runner() const {
    fprev::RunnerOptions options;
    options.golden_root = root_;
    options.tool_version = "test";
    return fprev::Runner(registry(), options);
  }
  fprev::CaseResult check(const std::string& arithmetic) const {
    const fprev::Suite s = suite(arithmetic);
    return runner().check(s, s.cases.at(0));
  }

  fs::path root_;
};

TEST_F(FingerprintGate, TheUnchangedLibraryPasses) {
  const auto r = check("plain");
  EXPECT_EQ(r.status, CaseStatus::passed);
  ASSERT_TRUE(r.fingerprint_change);
  EXPECT_TRUE(r.fingerprint_change->same());
}

TEST_F(FingerprintGate, PartialSumsKeptInDoubleFailWithTheFactNamed) {
  const auto r = check("double_tail");
  EXPECT_EQ(r.status, CaseStatus::differs);
  ASSERT_TRUE(r.revealed && r.golden);
  EXPECT_EQ(*r.revealed_tree(), r.golden->tree());  // the same order
  ASSERT_TRUE(r.fingerprint_change);
  ASSERT_EQ(r.fingerprint_change->changed_facts.size(), 1u);
  EXPECT_EQ(r.fingerprint_change->changed_facts[0], "partial-sums: float32 -> float32; float64 at leaves 32..38");
  EXPECT_GT(r.fingerprint_change->differing_outputs, 0u);
  // What it costs: each side simulated with its own facts; the additions of leaves 32..38 in
  // float64 no longer count as float32 roundings in the bound.
  ASSERT_TRUE(r.impact);
  ASSERT_EQ(r.impact->changes.size(), 1u);
  const fprev::TreeImpact& impact = r.impact->changes[0].impact;
  EXPECT_LT(impact.new_bound.h, impact.old_bound.h);
  std::size_t differing = 0;
  for (const fprev::ImpactSet& set : impact.sets) differing += set.differing;
  EXPECT_GT(differing, 0u);
  EXPECT_NE(r.impact->arithmetic.find("the case's target: float32 inputs"), std::string::npos) << r.impact->arithmetic;
}

TEST_F(FingerprintGate, ContractedProductsFailWithTheFactNamed) {
  const auto r = check("fma");
  EXPECT_EQ(r.status, CaseStatus::differs);
  ASSERT_TRUE(r.fingerprint_change);
  ASSERT_EQ(r.fingerprint_change->changed_facts.size(), 1u);
  EXPECT_EQ(r.fingerprint_change->changed_facts[0], "products: rounded -> not rounded (contracted, FMA)");
  // Contracted products are not rounded on their own: one rounding less on every leaf's path.
  ASSERT_TRUE(r.impact);
  const fprev::TreeImpact& impact = r.impact->changes.at(0).impact;
  EXPECT_EQ(impact.new_bound.h, impact.old_bound.h - 1);
  EXPECT_GT(impact.sets.at(1).differing, 0u) << "normal inputs: inexact products, contracted or not";
}

// Rounding toward zero breaks the probes' masks, so no tree is revealed; the fingerprint measured
// with the golden's tree names the change.
TEST_F(FingerprintGate, RoundingTowardZeroFailsWithTheFactNamed) {
  const auto r = check("toward_zero");
  EXPECT_EQ(r.status, CaseStatus::misbehaves);
  ASSERT_TRUE(r.fingerprint_change);
  ASSERT_EQ(r.fingerprint_change->changed_facts.size(), 1u);
  EXPECT_EQ(r.fingerprint_change->changed_facts[0], "rounding: nearest-even -> toward-zero");
  // The golden's tree with the arithmetic measured now: every rounding counts twice in the bound.
  ASSERT_TRUE(r.impact);
  const fprev::TreeImpact& impact = r.impact->changes.at(0).impact;
  EXPECT_EQ(impact.new_bound.h, 2 * impact.old_bound.h);
  EXPECT_GT(impact.sets.at(0).differing, 0u);
}

TEST_F(FingerprintGate, AnUnchangedCaseHasNoImpact) { EXPECT_FALSE(check("plain").impact); }

TEST_F(FingerprintGate, AGoldenWithoutFingerprintStillChecksItsTree) {
  const fs::path path = fprev::golden_path(root_, "toys", "toy", "toy-t1", "dot-n40");
  ASSERT_TRUE(fs::exists(path)) << path;
  fprev::Golden old = fprev::read_golden(path);
  ASSERT_TRUE(old.fingerprint());
  old.fingerprints.clear();
  fprev::write_golden_file(path, old);
  const auto r = check("fma");  // the arithmetic changed, but nothing records the old one
  EXPECT_EQ(r.status, CaseStatus::passed);
  EXPECT_FALSE(r.fingerprint_change);
  // update adds the fingerprint without touching the tree
  const fprev::Suite s = suite("plain");
  EXPECT_EQ(runner().update(s, s.cases.at(0)).status, CaseStatus::changed);
  EXPECT_TRUE(fprev::read_golden(path).fingerprint());
}

}  // namespace
