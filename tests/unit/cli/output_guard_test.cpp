// An output file is never an input of the same run (issue 34): the one check show/diff --output
// and check --html share, whatever the spelling of the path.
#include "output_guard.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "exit_status.hpp"

namespace fprev::cli {
namespace {

namespace fs = std::filesystem;

class OutputGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fprev_output_guard_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "golden" / "any");
    std::ofstream(dir_ / "suite.yaml") << "suite: s\n";
    std::ofstream(dir_ / "golden" / "any" / "x.golden") << "golden\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  RunInputs inputs() const { return {{dir_ / "suite.yaml"}, {dir_ / "golden"}}; }
  bool refused(const fs::path& output) const {
    try {
      refuse_output_over_inputs("--html", output, inputs());
    } catch (const UsageError&) {
      return true;
    }
    return false;
  }

  fs::path dir_;
};

TEST_F(OutputGuard, RefusesAnInputHoweverSpelt) {
  EXPECT_TRUE(refused(dir_ / "suite.yaml"));
  EXPECT_TRUE(refused(dir_ / "golden" / ".." / "suite.yaml"));
  fs::create_symlink(dir_ / "suite.yaml", dir_ / "link.yaml");
  EXPECT_TRUE(refused(dir_ / "link.yaml"));
  fs::create_hard_link(dir_ / "suite.yaml", dir_ / "hard.yaml");
  EXPECT_TRUE(refused(dir_ / "hard.yaml"));
}

TEST_F(OutputGuard, RefusesAnythingInsideAnInputDirectory) {
  EXPECT_TRUE(refused(dir_ / "golden" / "any" / "x.golden"));
  EXPECT_TRUE(refused(dir_ / "golden" / "new" / "report.html"));  // not there yet
  EXPECT_TRUE(refused(dir_ / "golden"));
}

TEST_F(OutputGuard, AllowsAFileElsewhere) {
  EXPECT_FALSE(refused(dir_ / "report.html"));
  EXPECT_FALSE(refused(dir_ / "golden-report.html"));  // a sibling whose name starts alike
}

}  // namespace
}  // namespace fprev::cli
