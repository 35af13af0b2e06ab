// The report for people: what needs attention as it happens, then a table and the counts.
#include <algorithm>

#include "progress_text.hpp"
#include "reporter.hpp"

namespace fprev::cli {
namespace {

class TextReporter final : public Reporter {
 public:
  TextReporter(std::ostream& out, std::ostream& progress_out, bool progress, TableRows rows)
      : out_(out), progress_out_(progress_out), progress_(progress), rows_(rows) {}

  void run_started(const RunInfo& info) override {
    policy_ = info.policy;
    total_ = info.case_count;
  }

  // The running case on one terminal line, overwritten in place and cleared when it finishes.
  void case_started(std::size_t index, const std::string& test_name) override {
    running_ = "[" + std::to_string(index + 1) + "/" + std::to_string(total_) + "] " + test_name;
    if (progress_) progress_out_ << "\r\033[K" << running_ << std::flush;
  }

  // A long case shows its probes and an estimate of the time left on the same line.
  void case_progress(const Progress& p) override {
    if (progress_ && p.seconds >= 1.0) progress_out_ << "\r\033[K" << running_ << "  " << progress_text(p) << std::flush;
  }

  void case_finished(const CaseResult& result, const std::string& accept_command) override {
    if (progress_) progress_out_ << "\r\033[K" << std::flush;
    print_case_details(out_, result, policy_, accept_command);
  }

  void run_finished(const RunSummary& summary) override {
    out_ << "\n";
    const bool only_not_passed =
        rows_ == TableRows::not_passed || (rows_ == TableRows::not_passed_when_green && summary.counts.failed == 0);
    if (only_not_passed) {
      std::vector<CaseResult> shown;
      for (const CaseResult& r : summary.results)
        if (r.status != CaseStatus::passed) shown.push_back(r);
      print_summary_table(out_, shown);
      const std::size_t passed = summary.results.size() - shown.size();
      if (passed != 0)
        out_ << (shown.empty() ? "" : "\n") << passed << (passed == 1 ? " passed case" : " passed cases")
             << " not listed (--all-rows lists every case)\n";
    } else {
      print_summary_table(out_, summary.results);
    }
    out_ << "\n";
    print_obsolete(out_, summary.obsolete, summary.unreferenced);
    if (!summary.review_command.empty()) {
      const auto kept = std::count_if(summary.results.begin(), summary.results.end(),
                                      [](const CaseResult& r) { return !r.pending_path.empty(); });
      out_ << kept << " pending result(s) to review: " << summary.review_command << "\n";
    }
    // Backends that launch jobs (MPI): how many this run started for its cases.
    std::size_t jobs = 0;
    for (const CaseResult& r : summary.results) jobs += r.jobs_started;
    if (jobs > 0)
      out_ << jobs << (jobs == 1 ? " job" : " jobs") << " started for " << summary.results.size()
           << " cases (a running MPI job serves every case of its launch)\n";
    for (const std::string& why : summary.lost_ranks) out_ << "lost MPI rank (the run fails): " << why << "\n";
    out_ << closing_line(summary.counts, describe_overrides(summary.environment_overrides)) << "\n";  // last: scripts read the counts from it
  }

 private:
  std::ostream& out_;
  std::ostream& progress_out_;
  bool progress_;
  TableRows rows_;
  SkipPolicy policy_;
  std::size_t total_ = 0;
  std::string running_;  // the running case's progress prefix
};

}  // namespace

std::unique_ptr<Reporter> make_text_reporter(std::ostream& out, std::ostream& progress_out,
                                             bool progress, TableRows rows) {
  return std::make_unique<TextReporter>(out, progress_out, progress, rows);
}

}  // namespace fprev::cli
