// Whole cases side by side, as `ctest -j` runs tests: in a serial run with --jobs N, N threads; in a
// distributed run (check and update with --spread cases), one thread per MPI rank, whose workers
// all start on that rank (fprev::CaseSlot). Each thread has a runner of its own (its own backend
// instances and workers) and keeps to the cases of one backend instance at a time (CaseQueue:
// each instance opened in as few runners as the balance allows). Results come back in the
// selection's order, so reports and goldens are a serial run's.
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
#include "case_queue.hpp"
#include "core_shares.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {

// How many cases this run runs side by side (0: one after another): in a distributed run of
// several ranks with --spread cases, or --spread auto with more cases than ranks, one per rank; in
// a serial run, --jobs (0: one per core), at most one per case.
std::size_t case_slots(const GateOptions& options, std::size_t cases);

// The probe streams each case of a side-by-side run gets without --streams: the rank's
// --streams-per-rank in a distributed run, the cores shared among the slots in a serial one.
std::size_t streams_per_case_slot(const GateOptions& options, std::size_t slots);

class CaseSpreader {
 public:
  // Starts `slots` threads; `cases` and `options` must outlive the spreader.
  CaseSpreader(const std::vector<SelectedCase>& cases, const RunnerOptions& options, bool update, std::size_t slots);
  ~CaseSpreader();  // waits for the cases in flight and stops the threads
  CaseSpreader(const CaseSpreader&) = delete;
  CaseSpreader& operator=(const CaseSpreader&) = delete;

  // Case k's result, once it is there (rethrows what its runner threw).
  CaseResult result(std::size_t k);

 private:
  void run_slot(int slot);
  void run_cases(Runner& runner, std::size_t slot);
  void publish_case_cores(std::size_t slot, CaseCores* cores);

  const std::vector<SelectedCase>& cases_;
  const RunnerOptions& options_;
  bool update_;
  std::mutex mutex_;
  std::condition_variable done_;
  CaseQueue queue_;  // under mutex_
  // A case whose own library runs more than one thread (case_own_threads) runs alone: it holds the
  // cores exclusively, every other case shares them (CoreShares: it waits only for the cases in
  // flight). A sharing case's invariance variants of several threads take them alone for their
  // calls only (RunnerOptions::claim_cores, through the slot's CaseCores of the moment).
  std::vector<std::size_t> threads_of_case_;
  CoreShares cores_;
  std::vector<CaseCores*> case_cores_;  // under mutex_: each slot's case in flight, null between cases
  bool stopping_ = false;
  std::vector<std::optional<CaseResult>> results_;
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
};

}  // namespace fprev::cli
