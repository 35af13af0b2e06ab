// The gate's alignment check (fprev/alignment.hpp) with the reference backend, whose aligned_peel
// kernel peels until aligned and whose strided_pairwise kernel does not:
//   * update records an order map over offsets for the peeling kernel, "independent" for the other;
//   * check passes while it holds, and fails when an independent golden's target became dependent
//     (the golden edited to say independent stands for the older library);
//   * a golden without the alignment line (written before the check) still passes, unchecked.
#include <gtest/gtest.h>

#include <filesystem>

#include "fprev/backends/reference.hpp"
#include "fprev/runner.hpp"

namespace {

namespace fs = std::filesystem;
using fprev::AlignmentVerdict;
using fprev::CaseStatus;

const fprev::BackendRegistry& registry() {
  static const fprev::BackendRegistry r = [] {
    fprev::BackendRegistry registry;
    fprev::register_reference_backend(registry);
    return registry;
  }();
  return r;
}

class AlignmentGate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("fprev-alignment-gate-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fprev::CaseResult run(const std::string& order, bool update) {
    suite_ = fprev::parse_suite("suite: placed\nbackends:\n  - name: reference\n    use: reference\n"
                                "cases:\n  - op: sum\n    dtype: float64\n    n: 12\n    lanes: 4\n    order: " +
                                    order + "\n",
                                "placed.yaml", registry());
    fprev::RunnerOptions options;
    options.golden_root = root_;
    options.tool_version = "test";
    fprev::Runner runner(registry(), options);
    return update ? runner.update(suite_, suite_.cases.at(0)) : runner.check(suite_, suite_.cases.at(0));
  }

  fprev::Suite suite_;
  fs::path root_;
};

TEST_F(AlignmentGate, APeelingKernelIsRecordedAsAnOrderMapOverOffsetsAndChecked) {
  const auto recorded = run("aligned_peel", true);
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  const fprev::Golden golden = fprev::read_golden(recorded.golden_path);
  ASSERT_TRUE(golden.alignment);
  EXPECT_EQ(golden.alignment->verdict, AlignmentVerdict::dependent);
  EXPECT_EQ(golden.alignment->classes.size(), 4u);  // the offset modulo 4 lanes
  const auto checked = run("aligned_peel", false);
  EXPECT_EQ(checked.status, CaseStatus::passed) << checked.message;
  ASSERT_TRUE(checked.alignment);
  EXPECT_FALSE(checked.alignment_differs);
  EXPECT_EQ(checked.alignment_stats.reveals, 3u);
}

TEST_F(AlignmentGate, AnAlignedOnlyKernelIsIndependentWithoutAnyReveal) {
  const auto recorded = run("strided_pairwise", true);
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  ASSERT_TRUE(recorded.alignment);
  EXPECT_EQ(recorded.alignment->summary(), "independent (offsets 0-7 checked)");
  const auto checked = run("strided_pairwise", false);
  EXPECT_EQ(checked.status, CaseStatus::passed) << checked.message;
  EXPECT_EQ(checked.alignment_stats.reveals, 0u);
  EXPECT_EQ(checked.alignment_stats.proofs_failed, 0u);
}

// The same tree at offset 0, but the order now depends on the offset: check fails, and says so.
TEST_F(AlignmentGate, AnIndependentOrderThatBecameDependentFails) {
  const auto recorded = run("aligned_peel", true);
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  fprev::Golden golden = fprev::read_golden(recorded.golden_path);
  golden.alignment = fprev::AlignmentResult{AlignmentVerdict::independent, 8, false, {}};
  fprev::write_golden_file(recorded.golden_path, golden);
  const auto checked = run("aligned_peel", false);
  EXPECT_EQ(checked.status, CaseStatus::differs);
  EXPECT_TRUE(checked.alignment_differs);
  ASSERT_TRUE(checked.alignment);
  EXPECT_EQ(checked.alignment->verdict, AlignmentVerdict::dependent);
}

TEST_F(AlignmentGate, AGoldenWrittenBeforeTheCheckPassesUnchecked) {
  const auto recorded = run("aligned_peel", true);
  ASSERT_EQ(recorded.status, CaseStatus::created) << recorded.message;
  fprev::Golden golden = fprev::read_golden(recorded.golden_path);
  golden.alignment.reset();
  fprev::write_golden_file(recorded.golden_path, golden);
  const auto checked = run("aligned_peel", false);
  EXPECT_EQ(checked.status, CaseStatus::passed) << checked.message;
  EXPECT_FALSE(checked.alignment);  // not recorded: not checked
  // update records it: the file changes.
  EXPECT_EQ(run("aligned_peel", true).status, CaseStatus::changed);
  EXPECT_TRUE(fprev::read_golden(recorded.golden_path).alignment);
}

}  // namespace
