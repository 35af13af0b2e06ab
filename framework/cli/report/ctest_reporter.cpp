// `check --ctest`: one case per process, run by a CTest test. A failure prints the case's block,
// whose first line ("FAILED <test>: <reason>") CTest's FAIL_REGULAR_EXPRESSION matches to fill the
// JUnit failure message (list --cmake-tests sets the expressions); a skip prints why and the
// command that creates the golden; a pass prints one line. No table, no closing line: CTest counts.
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

  void run_finished(const RunSummary& /*summary*/) override {}

 private:
  std::ostream& out_;
  SkipPolicy policy_;
};

}  // namespace

std::unique_ptr<Reporter> make_ctest_reporter(std::ostream& out) {
  return std::make_unique<CTestReporter>(out);
}

}  // namespace fprev::cli
