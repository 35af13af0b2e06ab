// `check --ctest`: one case per process, run by a CTest test. A failure prints the case's block,
// whose first line ("FAILED <test>: <reason>") CTest's FAIL_REGULAR_EXPRESSION matches to fill the
// JUnit failure message (list --cmake-tests sets the expressions); a skip prints why and the
// command that creates the golden; a pass prints one line. No table, no closing line: CTest counts
// (but the environment overrides in effect are named).
#include "reporter.hpp"

namespace fprev::cli {
namespace {

class CTestReporter final : public Reporter {
 public:
  explicit CTestReporter(std::ostream& out) : out_(out) {}

  void run_started(const RunInfo& info) override { policy_ = info.policy; }

  void case_finished(const CaseResult& result, const std::string& accept_command) override {
    if (result.status == CaseStatus::passed)
      out_ << "passed: " << result.target_description << " matches " << result.golden_path.string()
           << "\n";
    else
      print_case_details(out_, result, policy_, accept_command);
  }

  // The one summary of this mode: the environment overrides in effect, if any (a CTest skip or pass
  // under FPREV_BLAS_KERNEL is not the gate's verdict on the suite as written).
  void run_finished(const RunSummary& summary) override {
    if (!summary.environment_overrides.empty())
      out_ << "environment overrides: " << describe_overrides(summary.environment_overrides) << "\n";
  }

 private:
  std::ostream& out_;
  SkipPolicy policy_;
};

}  // namespace

std::unique_ptr<Reporter> make_ctest_reporter(std::ostream& out) {
  return std::make_unique<CTestReporter>(out);
}

}  // namespace fprev::cli
