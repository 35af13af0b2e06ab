#include "termination.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <mutex>
#include <thread>

#include "fprev/processes.hpp"

namespace fprev::cli {
namespace {

std::mutex note_mutex;
std::string termination_note;

}  // namespace

void set_termination_note(std::string note) {
  const std::lock_guard lock(note_mutex);
  termination_note = std::move(note);
}

void end_descendants_on_termination() {
  sigset_t signals;
  sigemptyset(&signals);
  for (const int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, s);
  if (::pthread_sigmask(SIG_BLOCK, &signals, nullptr) != 0) return;
  std::thread([signals] {
    int received = 0;
    while (::sigwait(&signals, &received) != 0) {
    }
    {
      const std::lock_guard lock(note_mutex);
      if (!termination_note.empty()) {
        const std::string line = termination_note + "\n";
        [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
      }
    }
    kill_descendants(::getpid());
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    ::sigaction(received, &default_action, nullptr);
    ::pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);  // on this thread: the default action ends the process
    ::raise(received);
  }).detach();
}

}  // namespace fprev::cli
