#include "exit_guard.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "environment.hpp"
#include "exit_status.hpp"

namespace fprev::cli {
namespace {

// Set while a guard lives: the process that armed it (a child forked meanwhile exits as it likes)
// and the message, prepared beforehand so that the handler only writes.
std::atomic<pid_t> armed_by{0};
char message[256];
std::size_t message_length = 0;

void on_exit() {
  if (armed_by.load() != ::getpid()) return;
  ssize_t written = ::write(STDERR_FILENO, message, message_length);
  (void)written;
  ::_exit(kExitFailure);
}

void register_handlers() {
  static const bool registered = [] {
    std::atexit(on_exit);
    std::at_quick_exit(on_exit);
    return true;
  }();
  (void)registered;
}

}  // namespace

ExitGuard::ExitGuard(const std::string& command) {
  register_handlers();
  const std::string text = "\nfprev-golden " + command +
                           ": error: something in this process called exit() during the run (a library "
                           "loaded in the gate's own process, as under FPREV_WORKERS=off?); the run did "
                           "not finish, nothing after this point was checked\n";
  message_length = std::min(text.size(), sizeof message);
  std::memcpy(message, text.data(), message_length);
  armed_by.store(::getpid());
}

ExitGuard::~ExitGuard() { armed_by.store(0); }

void refuse_in_process_targets_in_ci() {
  const std::optional<std::string> workers = environment_value("FPREV_WORKERS");
  if (workers && *workers == "off" && environment_flag("CI"))
    throw UsageError("FPREV_WORKERS=off runs every library in the gate's own process, a debugging aid with no "
                     "protection against a library that crashes or exits; it is refused in CI (the environment "
                     "variable CI is set): unset FPREV_WORKERS");
}

}  // namespace fprev::cli
