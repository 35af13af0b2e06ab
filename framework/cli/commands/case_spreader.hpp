// Whole cases side by side in a distributed run (check and update with --spread cases), as
// `ctest -j` runs tests across hosts: one thread per MPI rank, each with a runner of its own (its
// own instances and workers, all on that rank: fprev::CaseSlot) taking the next case in the
// selection's order. Results come back in that order, so reports and goldens are a serial run's.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "../options.hpp"
#include "../selection.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {

// Whether this run spreads whole cases: a distributed run of several ranks, --spread cases, or
// --spread auto with more cases than ranks.
bool spread_cases(const GateOptions& options, std::size_t cases);

class CaseSpreader {
 public:
  // Starts the threads; `cases` and `options` must outlive the spreader.
  CaseSpreader(const std::vector<SelectedCase>& cases, const RunnerOptions& options, bool update);
  ~CaseSpreader();  // waits for the cases in flight and stops the threads
  CaseSpreader(const CaseSpreader&) = delete;
  CaseSpreader& operator=(const CaseSpreader&) = delete;

  // Case k's result, once it is there (rethrows what its runner threw).
  CaseResult result(std::size_t k);

 private:
  void run_slot(int rank);

  const std::vector<SelectedCase>& cases_;
  const RunnerOptions& options_;
  bool update_;
  std::mutex mutex_;
  std::condition_variable done_;
  std::size_t next_ = 0;
  bool stopping_ = false;
  std::vector<std::optional<CaseResult>> results_;
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
};

}  // namespace fprev::cli
