#include "reporter.hpp"

namespace fprev::cli {

void ReporterList::run_started(const RunInfo& info) {
  for (auto& r : reporters_) r->run_started(info);
}

void ReporterList::case_started(std::size_t index, const std::string& test_name) {
  for (auto& r : reporters_) r->case_started(index, test_name);
}

void ReporterList::case_progress(const Progress& progress) {
  for (auto& r : reporters_) r->case_progress(progress);
}

void ReporterList::case_finished(const CaseResult& result, const std::string& accept_command) {
  for (auto& r : reporters_) r->case_finished(result, accept_command);
}

void ReporterList::run_finished(const RunSummary& summary) {
  for (auto& r : reporters_) r->run_finished(summary);
}

}  // namespace fprev::cli
