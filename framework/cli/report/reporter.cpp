#include "reporter.hpp"

#include <iostream>

namespace fprev::cli {

std::mutex& report_output_mutex() {
  static std::mutex mutex;
  return mutex;
}

namespace {
// Writes what the reporters buffered, so that nothing of a report waits in a buffer for a later
// write that another thread's line could precede.
void flush_reports() {
  std::cout.flush();
  std::cerr.flush();
}
}  // namespace

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
  const std::lock_guard lock(report_output_mutex());
  for (auto& r : reporters_) r->case_finished(result, accept_command);
  flush_reports();
}

void ReporterList::run_finished(const RunSummary& summary) {
  const std::lock_guard lock(report_output_mutex());
  for (auto& r : reporters_) r->run_finished(summary);
  flush_reports();
}

}  // namespace fprev::cli
