// check confirms an unchanged golden with its proof probes (fprev/confirm.hpp) instead of
// revealing again, and still reveals, to show the diff, when the target's order changed:
//   * an unchanged binary golden passes with n - 1 probes, at most a third of what update's reveal
//     took, and the result says it was confirmed;
//   * a changed target still reports differs with the revealed tree (the full diff), after a
//     confirmation that failed;
//   * an order map (two classes of a grid target) is confirmed too; a misbehaving target still
//     gives its diagnostic, never a tree;
//   * proof probes that refute the golden while the reveal after them finds it again mean a target
//     that answers inconsistently: a diagnostic, not a pass.
#include <gtest/gtest.h>

#include <filesystem>

#include "fprev/result_diff.hpp"
#include "fprev/runner.hpp"
#include "fprev/target_calls.hpp"
#include "grid_oracle_target.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"

namespace {

namespace fs = std::filesystem;
using fprev::CaseStatus;

constexpr std::size_t kLeaves = 1024;

// Follows the pairwise tree, but its first probe call answers one probe wrong (one unit too few:
// the masks met higher up): the proof probes refute the golden, the reveal after them finds it.
class FlakyTarget : public fprev::Target {
 public:
  FlakyTarget() : oracle_(fprev::balanced_tree(kLeaves), std::nullopt, 64) {}
  const fprev::TargetInfo& info() const override { return oracle_.info(); }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override {
    oracle_.evaluate(batch, outputs);
    if (first_) outputs[0] -= batch.values->unit.value();
    first_ = false;
  }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override {
    oracle_.evaluate(batch, outputs);
  }

 private:
  fprev::TreeOracleTarget oracle_;
  bool first_ = true;
};

// Every call of every target the "counted-lanes" instance makes, for the gate's call count.
std::size_t counted_calls = 0;

class CountedTarget : public fprev::Target {
 public:
  explicit CountedTarget(std::unique_ptr<fprev::Target> inner) : inner_(std::move(inner)) {}
  const fprev::TargetInfo& info() const override { return inner_->info(); }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override {
    ++counted_calls;
    inner_->evaluate(batch, outputs);
  }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override {
    ++counted_calls;
    inner_->evaluate(batch, outputs);
  }

 private:
  std::unique_ptr<fprev::Target> inner_;
};

std::unique_ptr<fprev::Target> make_target(const std::string& order) {
  if (order == "flaky") return std::make_unique<FlakyTarget>();
  if (order == "counted-lanes") return std::make_unique<CountedTarget>(make_target("lanes"));
  if (order == "pairwise") return std::make_unique<fprev::TreeOracleTarget>(fprev::balanced_tree(kLeaves), std::nullopt, 64);
  if (order == "lanes") return std::make_unique<fprev::TreeOracleTarget>(fprev::lanes_tree(kLeaves, 8), std::nullopt, 64);
  if (order == "nan") {
    auto target = std::make_unique<fprev::TreeOracleTarget>(fprev::balanced_tree(kLeaves), std::nullopt, 64);
    target->set_nan_probes(true);
    return target;
  }
  // A 16 x 4 grid: the last four rows follow another tree (edge tiles of a GEMM); "map-changed"
  // moves one more row to it.
  const std::size_t other_from = order == "map" ? 12 : 11;
  return std::make_unique<fprev::GridOracleTarget>(
      fprev::OutputGrid{16, 4}, std::vector<fprev::Tree>{fprev::lanes_tree(256, 16), fprev::balanced_tree(256)},
      [other_from](std::size_t row, std::size_t) { return row >= other_from ? 1u : 0u; });
}

class OracleInstance : public fprev::BackendInstance {
 public:
  explicit OracleInstance(std::string order) : order_(std::move(order)) {}
  fprev::Identity identity() const override { return {"oracle", "1.0", order_, "here", {}}; }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::choice_param("op", {"sum"}, "routine").require()};
  }
  void validate_case(const fprev::Params&) const override {}
  std::unique_ptr<fprev::Target> make_target(const fprev::Params&) const override { return ::make_target(order_); }

 private:
  std::string order_;
};

class OracleBackend : public fprev::Backend {
 public:
  std::string_view name() const override { return "oracle"; }
  std::string_view summary() const override { return "targets with known orders"; }
  std::vector<fprev::ParamSpec> instance_params() const override {
    return {fprev::choice_param("order", {"pairwise", "lanes", "counted-lanes", "nan", "flaky", "map", "map-changed"}, "").require()};
  }
  std::vector<fprev::ParamSpec> case_params() const override { return OracleInstance("").case_params(); }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params& p) const override {
    return std::make_unique<OracleInstance>(p.at("order"));
  }
};

const fprev::BackendRegistry& registry() {
  static const fprev::BackendRegistry r = [] {
    fprev::BackendRegistry registry;
    registry.add(std::make_unique<OracleBackend>());
    return registry;
  }();
  return r;
}

class ConfirmGate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("fprev-confirm-gate-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fprev::CaseResult run(const std::string& order, bool update) const {
    const fprev::Suite s = fprev::parse_suite("suite: oracles\nbackends:\n  - name: target\n    use: oracle\n"
                                              "    order: " + order + "\ncases:\n  - op: sum\n",
                                              "oracles.yaml", registry());
    fprev::RunnerOptions options;
    options.golden_root = root_;
    options.tool_version = "test";
    fprev::Runner runner(registry(), options);
    return update ? runner.update(s, s.cases.at(0)) : runner.check(s, s.cases.at(0));
  }

  fs::path root_;
};

// n - 1 probes; a third of FPRev's Alg. 4 is asserted in confirm_test.cpp. The update's reveal
// guesses the pairwise halves from each other (about 2n probes), and confirm is still cheaper.
TEST_F(ConfirmGate, AnUnchangedGoldenIsConfirmedWithFewerProbesThanAReveal) {
  const auto recorded = run("pairwise", true);
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  EXPECT_FALSE(recorded.stats.confirmed);  // update always reveals
  const auto checked = run("pairwise", false);
  ASSERT_EQ(checked.status, CaseStatus::passed) << checked.message;
  EXPECT_TRUE(checked.stats.confirmed);
  EXPECT_EQ(checked.stats.probes, kLeaves - 1);
  EXPECT_EQ(checked.stats.confirm_probes, kLeaves - 1);
  EXPECT_LT(checked.stats.probes, recorded.stats.probes)
      << "confirm " << checked.stats.probes << " probes, reveal " << recorded.stats.probes;
  ASSERT_TRUE(checked.revealed_tree());
  EXPECT_EQ(*checked.revealed_tree(), fprev::balanced_tree(kLeaves));
  ASSERT_TRUE(checked.fingerprint_change);  // the fingerprint is still measured and compared
  EXPECT_TRUE(checked.fingerprint_change->same());
}

TEST_F(ConfirmGate, AChangedTargetStillReportsDiffersWithTheFullDiff) {
  ASSERT_EQ(run("pairwise", true).status, CaseStatus::created);
  const auto r = run("lanes", false);
  ASSERT_EQ(r.status, CaseStatus::differs);
  EXPECT_FALSE(r.stats.confirmed);
  EXPECT_GT(r.stats.confirm_probes, 0u);  // the confirmation ran, failed, and the reveal followed
  ASSERT_TRUE(r.revealed_tree());
  EXPECT_EQ(*r.revealed_tree(), fprev::lanes_tree(kLeaves, 8));
  const std::string report = fprev::render_result_diff(*r.golden, *fprev::golden_of(r, "test"));
  EXPECT_FALSE(report.empty());
}

// The parts of the case's target calls (fprev/target_calls.hpp) add up to every call the target
// received, the failed confirmation's included (TargetCalls::other).
TEST_F(ConfirmGate, EveryCallOfAChangedTargetIsCounted) {
  ASSERT_EQ(run("pairwise", true).status, CaseStatus::created);
  counted_calls = 0;
  const auto r = run("counted-lanes", false);
  ASSERT_EQ(r.status, CaseStatus::differs);
  EXPECT_GT(r.other_target_calls, 0u);  // the confirmation that failed
  const fprev::TargetCalls calls =
      fprev::count_target_calls(r.stats, nullptr, &r.fingerprint_stats, r.other_target_calls);
  EXPECT_GT(calls.fingerprint, 0u);
  EXPECT_EQ(calls.total(), counted_calls);
}

TEST_F(ConfirmGate, AnOrderMapIsConfirmedAndAMovedRowStillNamed) {
  const auto recorded = run("map", true);
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  const auto checked = run("map", false);
  ASSERT_EQ(checked.status, CaseStatus::passed) << checked.message;
  EXPECT_TRUE(checked.stats.confirmed);
  EXPECT_LT(checked.stats.probes, recorded.stats.probes);
  const auto changed = run("map-changed", false);
  ASSERT_EQ(changed.status, CaseStatus::differs);
  EXPECT_FALSE(changed.stats.confirmed);
  EXPECT_EQ(fprev::result_diff_summary(*changed.golden, *fprev::golden_of(changed, "test")),
            "4 of 64 elements follow another tree; now 2 class(es)");
}

TEST_F(ConfirmGate, AMisbehavingTargetGivesItsDiagnosticNeverATree) {
  ASSERT_EQ(run("pairwise", true).status, CaseStatus::created);
  const auto r = run("nan", false);
  EXPECT_EQ(r.status, CaseStatus::misbehaves);
  ASSERT_TRUE(r.diagnostic);
  EXPECT_EQ(r.diagnostic->finding, fprev::Finding::non_finite_output);
  EXPECT_FALSE(r.revealed);
}

TEST_F(ConfirmGate, ProofProbesThatRefuteAGoldenTheRevealFindsAreAnInconsistency) {
  ASSERT_EQ(run("pairwise", true).status, CaseStatus::created);
  const auto r = run("flaky", false);
  EXPECT_EQ(r.status, CaseStatus::misbehaves);
  ASSERT_TRUE(r.diagnostic);
  EXPECT_EQ(r.diagnostic->finding, fprev::Finding::batch_inconsistent);
  EXPECT_NE(r.diagnostic->message.find("but the reveal that followed found the golden's order"), std::string::npos)
      << r.diagnostic->message;
  EXPECT_FALSE(r.revealed);
}

}  // namespace
