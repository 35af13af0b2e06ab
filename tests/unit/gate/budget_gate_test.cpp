// Time budgets and cost estimates through the Runner: a case over its budget, or refused for its
// estimate, is reported over_budget with the reason (a skip without a golden, a failure in strict
// mode or with a golden to compare; never a pass), and probe streams give the serial result.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "fprev/runner.hpp"
#include "offset_oracle_target.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"

namespace {

namespace fs = std::filesystem;
using fprev::CaseStatus;

constexpr std::size_t kLeaves = 4000;
// Few enough leaves that the runner makes no estimate (under a thousand calls at the most).
constexpr std::size_t kFewLeaves = 100;

// A sequential sum whose probe calls take a few milliseconds each: a budget of a millisecond is
// spent by the first of them, whatever the machine. Over an OffsetOracleTarget its order could
// depend on where the data lies (float32, 16 offsets in 64 bytes); proven one pair a probe, the
// alignment check then costs 15 proofs of n - 1 probes.
class SlowTarget : public fprev::Target {
 public:
  explicit SlowTarget(std::unique_ptr<fprev::Target> oracle, bool one_pair_a_probe = false)
      : oracle_(std::move(oracle)), info_(oracle_->info()) {
    if (one_pair_a_probe) info_.extra_masks = false;
  }
  const fprev::TargetInfo& info() const override { return info_; }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    oracle_->evaluate(batch, outputs);
  }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override {
    oracle_->evaluate(batch, outputs);
  }

 private:
  std::unique_ptr<fprev::Target> oracle_;
  fprev::TargetInfo info_;
};

class Instance : public fprev::BackendInstance {
 public:
  Instance(bool slow, std::size_t leaves, bool offsets = false) : slow_(slow), offsets_(offsets), leaves_(leaves) {}
  fprev::Identity identity() const override { return {"oracle", "1.0", "", "here", {}}; }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::choice_param("op", {"sum"}, "routine").require()};
  }
  void validate_case(const fprev::Params&) const override {}
  std::unique_ptr<fprev::Target> make_target(const fprev::Params&) const override {
    if (slow_ && offsets_)
      return std::make_unique<SlowTarget>(
          std::make_unique<fprev::OffsetOracleTarget>(fprev::left_deep_tree(leaves_), std::map<std::size_t, fprev::Tree>{}),
          true);
    if (slow_) return std::make_unique<SlowTarget>(std::make_unique<fprev::TreeOracleTarget>(fprev::left_deep_tree(leaves_)));
    return std::make_unique<fprev::TreeOracleTarget>(fprev::random_binary_tree(leaves_, 3));
  }
  std::size_t concurrent_targets(const fprev::Params&) const override { return kUnboundedTargets; }

 private:
  bool slow_, offsets_;
  std::size_t leaves_;
};

class Backend : public fprev::Backend {
 public:
  std::string_view name() const override { return "timed"; }
  std::string_view summary() const override { return "oracle targets, slow or not"; }
  std::vector<fprev::ParamSpec> instance_params() const override {
    return {fprev::boolean_param("slow", "").defaults_to("false"),
            fprev::integer_param("leaves", 2, 100000, "").defaults_to(std::to_string(kLeaves)),
            fprev::boolean_param("offsets", "").defaults_to("false")};
  }
  std::vector<fprev::ParamSpec> case_params() const override { return Instance(false, 2).case_params(); }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params& p) const override {
    return std::make_unique<Instance>(p.at("slow") == "true", std::stoul(p.at("leaves")), p.at("offsets") == "true");
  }
};

const fprev::BackendRegistry& registry() {
  static const fprev::BackendRegistry r = [] {
    fprev::BackendRegistry registry;
    registry.add(std::make_unique<Backend>());
    return registry;
  }();
  return r;
}

fprev::Suite suite(bool slow, const std::string& case_keys = "", std::size_t leaves = kLeaves) {
  return fprev::parse_suite(std::string("suite: budgets\nbackends:\n  - name: target\n    use: timed\n    slow: ") +
                                (slow ? "true" : "false") + "\n    leaves: " + std::to_string(leaves) +
                                "\ncases:\n  - op: sum\n" + case_keys,
                            "budgets.yaml", registry());
}

class BudgetGate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("fprev-budget-gate-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fprev::RunnerOptions options() const {
    fprev::RunnerOptions o;
    o.golden_root = root_;
    o.tool_version = "test";
    return o;
  }
  fs::path root_;
};

TEST_F(BudgetGate, ACaseOverItsSuiteBudgetStopsAndIsNeverGreen) {
  const fprev::Suite s = suite(true, "    max_seconds: 0.001\n", kFewLeaves);
  fprev::Runner runner(registry(), options());
  const fprev::CaseResult result = runner.update(s, s.cases.at(0));
  EXPECT_EQ(result.status, CaseStatus::over_budget);
  EXPECT_NE(result.message.find("past its time budget of 0.001 s"), std::string::npos) << result.message;
  EXPECT_FALSE(fs::exists(result.golden_path));  // nothing recorded
  // No golden on this platform: a skip, a failure in strict mode.
  EXPECT_TRUE(fprev::is_skip(result, {}));
  EXPECT_FALSE(fprev::is_failure(result, {}));
  EXPECT_TRUE(fprev::is_failure(result, {.strict = true}));
}

// A pull request cannot switch a check off with a tiny budget: a case whose golden exists on this
// platform and that reaches no verdict fails, strict or not.
TEST_F(BudgetGate, ACaseWithAGoldenThatReachesNoVerdictFails) {
  const fprev::Suite fast = suite(false, "", kFewLeaves);
  ASSERT_EQ(fprev::Runner(registry(), options()).update(fast, fast.cases.at(0)).status, CaseStatus::created);
  const fprev::Suite s = suite(true, "    max_seconds: 0.000001\n", kFewLeaves);
  const fprev::CaseResult result = fprev::Runner(registry(), options()).check(s, s.cases.at(0));
  EXPECT_EQ(result.status, CaseStatus::over_budget) << result.message;
  EXPECT_TRUE(fprev::is_failure(result, {}));
  EXPECT_FALSE(fprev::is_skip(result, {}));
}

// A larger case is estimated first: at 3 ms a call, its fewest probes already exceed the budget.
TEST_F(BudgetGate, ACaseEstimatedBeyondItsBudgetIsRefusedBeforeRunning) {
  const fprev::Suite s = suite(true, "    max_seconds: 1\n");
  fprev::Runner runner(registry(), options());
  const fprev::CaseResult result = runner.check(s, s.cases.at(0));
  EXPECT_EQ(result.status, CaseStatus::over_budget);
  EXPECT_NE(result.message.find("which exceeds the case's time budget of 1 s"), std::string::npos)
      << result.message;
  EXPECT_EQ(result.stats.probes, 0u);
}

TEST_F(BudgetGate, TheSmallerOfTheCommandLineAndTheCaseBudgetApplies) {
  const fprev::Suite s = suite(true, "    max_seconds: 3600\n", kFewLeaves);
  fprev::RunnerOptions o = options();
  o.max_seconds = 0.001;
  fprev::Runner runner(registry(), o);
  const fprev::CaseResult result = runner.check(s, s.cases.at(0));
  EXPECT_EQ(result.status, CaseStatus::over_budget) << result.message;
  EXPECT_DOUBLE_EQ(result.budget_seconds, 0.001);
}

TEST_F(BudgetGate, AnAbsurdEstimateIsRefusedBeforeRunning) {
  const fprev::Suite s = suite(true);
  fprev::RunnerOptions o = options();
  o.max_estimated_seconds = 1.0;  // 4000 probe calls of 3 ms at the fewest: 12 s
  o.streams = 1;
  fprev::Runner runner(registry(), o);
  const fprev::CaseResult result = runner.check(s, s.cases.at(0));
  EXPECT_EQ(result.status, CaseStatus::over_budget);
  EXPECT_NE(result.message.find("refused before running: estimated about 8000 probes (3999 to"),
            std::string::npos)
      << result.message;
  EXPECT_NE(result.message.find("exceeds the cap of 1 s"), std::string::npos) << result.message;
  EXPECT_EQ(result.stats.probes, 0u);
  ASSERT_TRUE(result.estimate);
  EXPECT_EQ(result.estimate->probes.low, kLeaves - 1);
}

// The alignment check that follows the reveal is counted against the cap: 399 probe calls of 3 ms
// (about 1.2 s) fit a cap of 10 s, the 15 placements' proofs of 399 probes each (18 s) do not.
TEST_F(BudgetGate, ThePlacementProofsCountAgainstTheCap) {
  const fprev::Suite s = fprev::parse_suite(
      "suite: budgets\nbackends:\n  - name: target\n    use: timed\n    slow: true\n    leaves: 400\n"
      "    offsets: true\ncases:\n  - op: sum\n",
      "budgets.yaml", registry());
  fprev::RunnerOptions o = options();
  o.max_estimated_seconds = 10.0;
  o.streams = 1;
  const fprev::CaseResult result = fprev::Runner(registry(), o).check(s, s.cases.at(0));
  EXPECT_EQ(result.status, CaseStatus::over_budget) << result.message;
  EXPECT_NE(result.message.find("; then the placement proof at 15 placements, at least 399 probes each: at least"),
            std::string::npos)
      << result.message;
  EXPECT_NE(result.message.find("exceeds the cap of 10 s"), std::string::npos) << result.message;
  EXPECT_EQ(result.stats.probes, 0u);
  ASSERT_TRUE(result.estimate);
  EXPECT_LT(result.estimate->seconds_low, 10.0);  // the reveal alone would have run
  EXPECT_GT(result.estimate->total_seconds_low(), 10.0);
}

// With a golden to confirm, the estimate is the golden's proof (n - 1 probes for a binary tree),
// not a reveal's expected 2n.
TEST_F(BudgetGate, TheEstimateOfACheckIsTheGoldensProof) {
  const fprev::Suite fast = suite(false);
  ASSERT_EQ(fprev::Runner(registry(), options()).update(fast, fast.cases.at(0)).status, CaseStatus::created);
  const fprev::Suite s = suite(true);
  fprev::RunnerOptions o = options();
  o.max_estimated_seconds = 1.0;
  o.streams = 1;
  const fprev::CaseResult result = fprev::Runner(registry(), o).check(s, s.cases.at(0));
  EXPECT_EQ(result.status, CaseStatus::over_budget);
  EXPECT_NE(result.message.find("refused before running: estimated (confirming the golden) about 3999 probes x"),
            std::string::npos)
      << result.message;
  ASSERT_TRUE(result.estimate);
  EXPECT_EQ(result.estimate->probes.expected, kLeaves - 1);
}

TEST_F(BudgetGate, StreamsGiveTheSerialGolden) {
  const fprev::Suite s = suite(false);
  fprev::RunnerOptions serial = options();
  serial.streams = 1;
  const fprev::CaseResult recorded = fprev::Runner(registry(), serial).update(s, s.cases.at(0));
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  EXPECT_EQ(recorded.stats.streams, 1u);
  fprev::RunnerOptions parallel = options();
  parallel.streams = 3;
  // A reveal on three streams: the same golden, probes and calls as the serial one.
  const fprev::CaseResult revealed = fprev::Runner(registry(), parallel).update(s, s.cases.at(0));
  EXPECT_EQ(revealed.status, CaseStatus::unchanged) << revealed.message;
  EXPECT_EQ(revealed.stats.streams, 3u);
  EXPECT_EQ(revealed.stats.probes, recorded.stats.probes);
  EXPECT_EQ(revealed.stats.target_calls, recorded.stats.target_calls);
  // The check confirms the golden on the streams too, every stream's probes counted.
  const fprev::CaseResult checked = fprev::Runner(registry(), parallel).check(s, s.cases.at(0));
  EXPECT_EQ(checked.status, CaseStatus::passed) << checked.message;
  EXPECT_TRUE(checked.stats.confirmed);
  EXPECT_EQ(checked.stats.streams, 3u);
  EXPECT_EQ(checked.stats.confirm_probes, checked.stats.probes);
  EXPECT_LT(checked.stats.probes, recorded.stats.probes);
}

}  // namespace
