// The gate on order maps and recorded findings, end to end through the Runner with targets whose
// orders (or misbehaviour) are known by construction: oracle targets that follow given trees.
//   * a target whose outputs follow two trees is recorded as a map golden and passes; moving one
//     element to the other tree fails naming the region;
//   * a misbehaving target is recorded as a finding golden: check passes while the same finding
//     persists, and fails when it changes or a tree appears;
//   * without a golden, a misbehaving target fails (never a skip); a well-behaved one is a skip that
//     names the platform keys that do have a golden.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fprev/result_diff.hpp"
#include "fprev/runner.hpp"
#include "fprev/summary.hpp"
#include "grid_oracle_target.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"

namespace {

namespace fs = std::filesystem;
using fprev::CaseStatus;
using fprev::Finding;

constexpr std::size_t kLeaves = 12;

// Adds one unit in the last place to every value output of its second and later calls: the same
// input gives other bits later (run-to-run non-determinism, as with atomics).
class DriftingTarget : public fprev::Target {
 public:
  explicit DriftingTarget(fprev::Tree tree) : oracle_(std::move(tree)) {}
  const fprev::TargetInfo& info() const override { return oracle_.info(); }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override {
    oracle_.evaluate(batch, outputs);
  }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override {
    oracle_.evaluate(batch, outputs);
    if (calls_++ > 0)
      for (double& v : outputs) v = std::nextafter(v, 1e300);
  }

 private:
  fprev::TreeOracleTarget oracle_;
  std::size_t calls_ = 0;
};

// The orders a test can ask for (instance setting `order`), all over kLeaves summands.
std::unique_ptr<fprev::Target> make_target(const std::string& order) {
  using fprev::Tree;
  const Tree forward = fprev::left_deep_tree(kLeaves);
  const Tree backward = fprev::right_deep_tree(kLeaves);
  if (order == "forward") return std::make_unique<fprev::TreeOracleTarget>(forward);
  if (order == "backward") return std::make_unique<fprev::TreeOracleTarget>(backward);
  if (order == "drifting") return std::make_unique<DriftingTarget>(forward);
  if (order == "nan") {
    auto target = std::make_unique<fprev::TreeOracleTarget>(forward);
    target->set_nan_probes(true);
    return target;
  }
  // Two classes over a 4 x 1 grid (a GEMV's y): the last rows follow the backward sum.
  const std::size_t backward_from = order == "two-classes" ? 2 : 3;
  return std::make_unique<fprev::GridOracleTarget>(
      fprev::OutputGrid{4, 1}, std::vector<Tree>{forward, backward},
      [backward_from](std::size_t row, std::size_t) { return row >= backward_from ? 1u : 0u; });
}

class OracleInstance : public fprev::BackendInstance {
 public:
  OracleInstance(std::string order, std::string key) : order_(std::move(order)), key_(std::move(key)) {}
  fprev::Identity identity() const override { return {"oracle", "1.0", order_, key_, {}}; }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::choice_param("op", {"sum"}, "routine").require()};
  }
  void validate_case(const fprev::Params&) const override {}
  std::unique_ptr<fprev::Target> make_target(const fprev::Params&) const override { return ::make_target(order_); }

 private:
  std::string order_, key_;
};

class OracleBackend : public fprev::Backend {
 public:
  std::string_view name() const override { return "oracle"; }
  std::string_view summary() const override { return "targets with known orders or misbehaviour"; }
  std::vector<fprev::ParamSpec> instance_params() const override {
    return {fprev::choice_param("order", {"forward", "backward", "drifting", "nan", "two-classes", "three-one"}, "")
                .require(),
            fprev::choice_param("key", {"here", "elsewhere"}, "").defaults_to("here")};
  }
  std::vector<fprev::ParamSpec> case_params() const override { return OracleInstance("", "").case_params(); }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params& p) const override {
    return std::make_unique<OracleInstance>(p.at("order"), p.at("key"));
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

fprev::Suite suite(const std::string& order, const std::string& key = "here") {
  return fprev::parse_suite("suite: oracles\n"
                            "backends:\n"
                            "  - name: target\n"
                            "    use: oracle\n"
                            "    order: " + order + "\n"
                            "    key: " + key + "\n"
                            "cases:\n"
                            "  - op: sum\n",
                            "oracles.yaml", registry());
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ResultGate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("fprev-result-gate-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fprev::Runner runner() const {
    fprev::RunnerOptions options;
    options.golden_root = root_;
    options.tool_version = "test";
    return fprev::Runner(registry(), options);
  }
  fprev::CaseResult update(const std::string& order, const std::string& key = "here") const {
    const fprev::Suite s = suite(order, key);
    return runner().update(s, s.cases.at(0));
  }
  fprev::CaseResult check(const std::string& order) const {
    const fprev::Suite s = suite(order);
    return runner().check(s, s.cases.at(0));
  }

  fs::path root_;
};

TEST_F(ResultGate, AnOrderMapIsRecordedAndPasses) {
  const auto recorded = update("two-classes");
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  const std::string text = file_text(recorded.golden_path);
  // The oracle cannot place its data: its alignment is "not checked" (docs/alignment.md).
  EXPECT_NE(text.find("\nresult: map\ngrid: 4 x 1\nalignment: not checked\nclasses: 2\n# class 0\n"
                      "region: rows 0-1 x columns 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n# class 1\nregion: rows 2-3 x columns 0\n"), std::string::npos) << text;
  const fprev::Golden golden = fprev::read_golden(recorded.golden_path);
  ASSERT_EQ(golden.map.classes.size(), 2u);
  EXPECT_EQ(golden.map.classes[0].tree, fprev::left_deep_tree(kLeaves));
  EXPECT_EQ(golden.map.classes[1].tree, fprev::right_deep_tree(kLeaves));
  EXPECT_EQ(golden.fingerprints.size(), 2u);  // one per class

  const auto again = check("two-classes");
  EXPECT_EQ(again.status, CaseStatus::passed) << again.message;
  EXPECT_EQ(update("two-classes").status, CaseStatus::unchanged);
}

TEST_F(ResultGate, AnElementThatChangesItsTreeFailsNamingItsRegion) {
  ASSERT_EQ(update("two-classes").status, CaseStatus::created);
  const auto r = check("three-one");
  ASSERT_EQ(r.status, CaseStatus::differs);
  const fprev::Golden now = *fprev::golden_of(r, "test");
  const std::string report = fprev::render_result_diff(*r.golden, now);
  // Row 2 moved from the backward class to the forward one; nothing else changed.
  EXPECT_NE(report.find("  row 2: " + fprev::summarize(fprev::right_deep_tree(kLeaves)).description + " -> " +
                        fprev::summarize(fprev::left_deep_tree(kLeaves)).description + "\n"),
            std::string::npos)
      << report;
  EXPECT_EQ(fprev::result_diff_summary(*r.golden, now), "1 of 4 elements follow another tree; now 2 class(es)");
}

TEST_F(ResultGate, AMapAgainstASingleTreeFails) {
  ASSERT_EQ(update("forward").status, CaseStatus::created);
  EXPECT_EQ(check("two-classes").status, CaseStatus::differs);
}

TEST_F(ResultGate, AFindingIsRecordedAndPassesWhileItPersists) {
  const auto recorded = update("nan");
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  ASSERT_TRUE(recorded.diagnostic);
  EXPECT_EQ(recorded.diagnostic->finding, Finding::non_finite_output);
  const std::string text = file_text(recorded.golden_path);
  EXPECT_NE(text.find("\nresult: finding\nfinding: non_finite_output\nfinding.message: "), std::string::npos) << text;
  const fprev::Golden golden = fprev::read_golden(recorded.golden_path);
  ASSERT_TRUE(golden.finding);
  EXPECT_EQ(golden.finding->finding, Finding::non_finite_output);

  EXPECT_EQ(check("nan").status, CaseStatus::passed);
  EXPECT_EQ(update("nan").status, CaseStatus::unchanged);
}

TEST_F(ResultGate, AChangedFindingFails) {
  ASSERT_EQ(update("nan").status, CaseStatus::created);
  const auto r = check("drifting");
  EXPECT_EQ(r.status, CaseStatus::differs);
  ASSERT_TRUE(r.diagnostic);
  EXPECT_EQ(r.diagnostic->finding, Finding::nondeterministic);
  EXPECT_EQ(fprev::result_diff_summary(*r.golden, *fprev::golden_of(r, "test")),
            "finding non_finite_output -> finding nondeterministic");
}

TEST_F(ResultGate, ATreeWhereAFindingWasRecordedFails) {
  ASSERT_EQ(update("drifting").status, CaseStatus::created);
  const auto r = check("forward");
  EXPECT_EQ(r.status, CaseStatus::differs);
  ASSERT_TRUE(r.revealed_tree());
  EXPECT_EQ(*r.revealed_tree(), fprev::left_deep_tree(kLeaves));
}

TEST_F(ResultGate, AMisbehavingTargetWithoutAGoldenFails) {
  const auto r = check("drifting");
  EXPECT_EQ(r.status, CaseStatus::misbehaves);
  EXPECT_TRUE(fprev::is_failure(r, {}));
  EXPECT_FALSE(fprev::is_skip(r, {}));
  EXPECT_FALSE(fs::exists(r.golden_path));  // check never writes a golden
}

TEST_F(ResultGate, AMissingGoldenNamesThePlatformsThatHaveOne) {
  ASSERT_EQ(update("forward", "elsewhere").status, CaseStatus::created);
  const auto r = check("forward");
  EXPECT_EQ(r.status, CaseStatus::missing_golden);
  EXPECT_TRUE(fprev::is_skip(r, {}));
  EXPECT_TRUE(fprev::is_failure(r, {.strict = true}));
  EXPECT_TRUE(fprev::is_failure(r, {.ci = true}));  // under CI a missing golden fails, as Jest's --ci
  EXPECT_EQ(r.other_platforms, std::vector<std::string>{"elsewhere"});
  ASSERT_TRUE(r.revealed_tree());  // revealed anyway: what a reviewer would accept
}

TEST_F(ResultGate, ATreeGoldenWhoseTargetNowMisbehavesFails) {
  ASSERT_EQ(update("forward").status, CaseStatus::created);
  const auto r = check("nan");
  EXPECT_EQ(r.status, CaseStatus::misbehaves);
  ASSERT_TRUE(r.diagnostic);
  EXPECT_EQ(r.diagnostic->finding, Finding::non_finite_output);
}

}  // namespace
