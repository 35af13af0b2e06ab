// Reporters of check and update: each turns the same case results into one form of report (text
// for people, JSON for tools, the one-case CTest mode). `check`/`update` run the cases and tell
// every reporter; a new form of report (HTML, pending files) is one new Reporter class added to
// the list that make_reporters() returns.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "case_text.hpp"
#include "fprev/golden.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {

struct RunInfo {
  std::string command;     // "check" or "update"
  bool strict = false;
  std::size_t case_count = 0;
};

struct RunSummary {
  const std::vector<CaseResult>& results;
  const std::vector<GoldenLocation>& obsolete;  // goldens no case refers to
  CaseCounts counts;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void run_started(const RunInfo& /*info*/) {}
  // Before case `index` (0-based) runs; `test_name` is reproducibility/<suite>/<backend>/<case>.
  virtual void case_started(std::size_t /*index*/, const std::string& /*test_name*/) {}
  // `accept_command` accepts or creates the case's golden ("" when the case needs none).
  virtual void case_finished(const CaseResult& result, const std::string& accept_command) = 0;
  virtual void run_finished(const RunSummary& summary) = 0;
};

// Forwards every event to each reporter, in order.
class ReporterList final : public Reporter {
 public:
  void add(std::unique_ptr<Reporter> reporter) { reporters_.push_back(std::move(reporter)); }
  void run_started(const RunInfo& info) override;
  void case_started(std::size_t index, const std::string& test_name) override;
  void case_finished(const CaseResult& result, const std::string& accept_command) override;
  void run_finished(const RunSummary& summary) override;

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

// For people: a block per case that needs attention as it finishes, then the summary table,
// obsolete goldens and the closing line. `progress` shows the running case on `progress_out`
// (a terminal), overwritten in place.
std::unique_ptr<Reporter> make_text_reporter(std::ostream& out, std::ostream& progress_out,
                                             bool progress);
// One JSON document (docs/json.md) at the end of the run.
std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);
// `check --ctest`, one case per process: the case's block (or one "passed" line) and, on failure,
// a line CTest's FAIL_REGULAR_EXPRESSION picks up for the JUnit failure message.
std::unique_ptr<Reporter> make_ctest_reporter(std::ostream& out);

}  // namespace fprev::cli
