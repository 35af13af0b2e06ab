// No exit() during a command reads as success. Foreign code in the gate's own process (a library
// under FPREV_WORKERS=off, which keeps it out of the worker processes) may call exit(0) in the
// middle of a run: the process would end with the library's status and without the summary, and a
// CI job would read 0 as green. While an ExitGuard lives, any exit() or quick_exit() of this
// process ends it with kExitFailure and a message on stderr instead. (_exit() cannot be intercepted
// in-process; the workers are the protection against it, and CI refuses FPREV_WORKERS=off.)
#pragma once

#include <string>

namespace fprev::cli {

class ExitGuard {
 public:
  explicit ExitGuard(const std::string& command);  // "check", "update", ... (in the message)
  ~ExitGuard();
  ExitGuard(const ExitGuard&) = delete;
  ExitGuard& operator=(const ExitGuard&) = delete;
};

// FPREV_WORKERS=off under CI: a UsageError (the debugging aid never runs in a CI job).
void refuse_in_process_targets_in_ci();

}  // namespace fprev::cli
