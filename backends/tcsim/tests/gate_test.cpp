// The simulated "driver upgrade" through the gate: goldens recorded with one tiling, checked with
// another k_tile or split_k, fail with a diff that shows the moved slice boundary.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "fprev/backend.hpp"
#include "fprev/diff.hpp"
#include "fprev/runner.hpp"
#include "fprev/suite.hpp"

namespace {

namespace fs = std::filesystem;

std::string suite_text(const std::string& settings) {
  return "suite: tcsim-gate\n"
         "backends:\n"
         "  - name: hopper-splitk\n"
         "    use: tcsim\n"
         "    arch: hopper\n" +
         settings +
         "cases:\n"
         "  - op: gemm\n"
         "    dtype: float16\n"
         "    k: 100\n";
}

class TcsimGate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tcsim-gate-" + std::to_string(std::random_device{}()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fprev::CaseResult run(const std::string& settings, bool update) {
    const fprev::Suite suite =
        fprev::parse_suite(suite_text(settings), "tcsim-gate.yaml", fprev::builtin_backends());
    EXPECT_EQ(suite.cases.size(), 1u);
    fprev::RunnerOptions options;
    options.golden_root = root_;
    options.tool_version = "test";
    fprev::Runner runner(fprev::builtin_backends(), options);
    return update ? runner.update(suite, suite.cases.at(0)) : runner.check(suite, suite.cases.at(0));
  }

  fs::path root_;
};

const std::string k_tile_32 = "    k_tile: 32\n    split_k: 2\n";  // slices [0,64) [64,100)

TEST_F(TcsimGate, SameTilingPasses) {
  EXPECT_EQ(run(k_tile_32, true).status, fprev::CaseStatus::created);
  EXPECT_EQ(run(k_tile_32, false).status, fprev::CaseStatus::passed);
  // k_tile 16 cuts the same slices for k = 100 (ceil(7/2) tiles of 16 = 64): still the same tree.
  EXPECT_EQ(run("    k_tile: 16\n    split_k: 2\n", false).status, fprev::CaseStatus::passed);
}

TEST_F(TcsimGate, ChangedKTileFailsWithTheMovedBoundary) {
  ASSERT_EQ(run(k_tile_32, true).status, fprev::CaseStatus::created);
  const fprev::CaseResult r = run("    k_tile: 48\n    split_k: 2\n", false);  // [0,96) [96,100)
  ASSERT_EQ(r.status, fprev::CaseStatus::differs);
  ASSERT_TRUE(r.golden.has_value() && r.revealed.has_value());
  const std::string report = fprev::render_diff_text(r.golden->tree(), *r.revealed_tree());
  // The old second slice starts with the 4-product step (64 65 66 67); the new one is (96 .. 99).
  EXPECT_NE(report.find("(64 65 66 67)"), std::string::npos) << report;
  EXPECT_NE(report.find("(96 97 98 99)"), std::string::npos) << report;
  EXPECT_NE(r.identity.configuration.find("k_tile 48"), std::string::npos);
  EXPECT_NE(r.golden->meta.library_configuration.find("k_tile 32"), std::string::npos);
}

TEST_F(TcsimGate, ChangedSplitKFails) {
  ASSERT_EQ(run(k_tile_32, true).status, fprev::CaseStatus::created);
  EXPECT_EQ(run("    k_tile: 32\n    split_k: 1\n", false).status, fprev::CaseStatus::differs);
  EXPECT_EQ(run("    k_tile: 32\n    split_k: 4\n", false).status, fprev::CaseStatus::differs);
  EXPECT_EQ(run(k_tile_32 + "    split_k_reduction: pairwise\n", false).status,
            fprev::CaseStatus::passed);  // two slices: pairwise is sequential
}

}  // namespace
