// Reporters of check and update: each turns the same case results into one form of report (text
// for people, JSON for tools, the one-case CTest mode). `check`/`update` run the cases and tell
// every reporter; a new form of report is one new Reporter class added to the list that
// make_reporters() returns.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "../environment_overrides.hpp"
#include "../options.hpp"
#include "case_text.hpp"
#include "fprev/golden.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {

struct RunInfo {
  std::string command;     // "check" or "update"
  SkipPolicy policy;  // strict mode, CI: which cases that reached no verdict fail
  std::size_t case_count = 0;
  // Cases that matched the filters but carry a label given to --exclude-label: not run, not in the
  // counts, and said in every report so that no summary looks complete when it is not.
  std::size_t excluded_by_label = 0;
  std::vector<std::string> excluded_labels;
};

struct RunSummary {
  const std::vector<CaseResult>& results;
  const std::vector<ObsoleteGolden>& obsolete;  // goldens no case refers to (case_text.hpp)
  CaseCounts counts;
  UnreferencedPolicy unreferenced = UnreferencedPolicy::warn;  // what check did with them
  std::string review_command;  // reviews the pending results the run kept; "" when it kept none
  // Environment variables in effect that change which cases run or where goldens are looked up:
  // named in every summary (environment_overrides.hpp).
  std::vector<EnvironmentOverride> environment_overrides = {};
  // Distributed mode: why each MPI rank lost during the run was lost ("rank 2 (host node07) was
  // lost: ..."). A lost rank fails the run, even with no case in flight on it.
  std::vector<std::string> lost_ranks = {};
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void run_started(const RunInfo& /*info*/) {}
  // Before case `index` (0-based) runs; `test_name` is reproducibility/<suite>/<backend>/<case>.
  virtual void case_started(std::size_t /*index*/, const std::string& /*test_name*/) {}
  // Now and then while the running case reveals (probes done, the model's expectation).
  virtual void case_progress(const Progress& /*progress*/) {}
  // `accept_command` accepts or creates the case's golden ("" when the case needs none).
  virtual void case_finished(const CaseResult& result, const std::string& accept_command) = 0;
  virtual void run_finished(const RunSummary& summary) = 0;
};

// Held while reports are written to stdout/stderr (a case's block, the closing table), which are
// then flushed: the log progress thread (make_log_progress_reporter) writes its line under it, so
// in a log where both streams meet (2>&1) its line never lands inside a report's line.
std::mutex& report_output_mutex();

// Forwards every event to each reporter, in order; what finishes a case or the run is written
// and flushed under report_output_mutex().
class ReporterList final : public Reporter {
 public:
  void add(std::unique_ptr<Reporter> reporter) { reporters_.push_back(std::move(reporter)); }
  void run_started(const RunInfo& info) override;
  void case_started(std::size_t index, const std::string& test_name) override;
  void case_progress(const Progress& progress) override;
  void case_finished(const CaseResult& result, const std::string& accept_command) override;
  void run_finished(const RunSummary& summary) override;

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

// For people: a block per case that needs attention as it finishes, then the summary table,
// obsolete goldens and the closing line. `progress` shows the running case on `progress_out`
// (a terminal), overwritten in place.
// Which rows the summary table has: every case; only those that did not pass (with a line counting
// the passed ones); or only those when no case failed (a terminal's default: 514 rows of "passed"
// bury the one skip worth reading).
enum class TableRows { all, not_passed, not_passed_when_green };
std::unique_ptr<Reporter> make_text_reporter(std::ostream& out, std::ostream& progress_out,
                                             bool progress, TableRows rows = TableRows::all);
// For a log (stderr not a terminal, CI): a line on file descriptor `fd` whenever `interval` passed
// without one (cases done, the running case, its probes), written by a thread of its own so that a
// case that runs for minutes never leaves the log silent; `command` is "check" or "update".
std::unique_ptr<Reporter> make_log_progress_reporter(int fd, std::chrono::milliseconds interval,
                                                     const std::string& command);
// One JSON document (docs/json.md) at the end of the run.
std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);
// `check --ctest`, one case per process: the case's block (or one "passed" line) and, on failure,
// a line CTest's FAIL_REGULAR_EXPRESSION picks up for the JUnit failure message.
std::unique_ptr<Reporter> make_ctest_reporter(std::ostream& out);
// For people who would rather look than read: one self-contained HTML page (docs/pictures.md)
// written to `out` at the end of the run: the summary table; per failing case its identities, the
// diff and its picture (trees drawn with at most `max_nodes` nodes each; the picture needs
// Graphviz, else its DOT text is shown), the diagnostics and the accept command; the skips and
// why; notes; obsolete goldens.
std::unique_ptr<Reporter> make_html_reporter(std::ostream& out, std::size_t max_nodes);
// Graphviz's SVG document without its XML prologue and doctype, to sit inside a page, every id
// (and reference to one) prefixed with `id_prefix` so that several pictures in one page never
// share an id.
std::string inline_svg(const std::string& svg, const std::string& id_prefix);
// The same, written to the file `path` (created or truncated now, so a path that cannot be
// written stops the run before it starts: UsageError).
std::unique_ptr<Reporter> make_html_file_reporter(const std::string& path, std::size_t max_nodes);

// The pictures of a case that needs attention, as Graphviz DOT: today the golden's tree against
// the revealed one when the tree changed. A golden holding several trees (an order map) gives one
// picture per class whose tree changed; a recorded finding none (its diagnostic is in the text).
struct CasePicture {
  std::string caption;
  std::string dot;
};
std::vector<CasePicture> case_pictures(const CaseResult& result, std::size_t max_nodes);

}  // namespace fprev::cli
