// Checks shared by the fuzz harnesses (harness.hpp).
#include "harness.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <string>

namespace fprev::fuzz {
namespace {

bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2
                                     : lead >= 0xe0 && lead <= 0xef     ? 3
                                     : lead >= 0xf0 && lead <= 0xf4     ? 4
                                                                        : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    i += length;
  }
  return true;
}

int cpu_seconds_per_input = kMaxCpuSecondsPerInput;

void cpu_limit_reached(int /*signal*/) {
  static constexpr char kMessage[] = "fuzz harness: the input took more than its CPU time limit\n";
  [[maybe_unused]] const ssize_t n = ::write(2, kMessage, sizeof kMessage - 1);
  std::abort();
}

// One timer on the CPU clock of the thread that runs the inputs, made on first use.
timer_t& input_timer() {
  static timer_t timer = [] {
    struct sigaction action {};
    action.sa_handler = cpu_limit_reached;
    ::sigaction(SIGXCPU, &action, nullptr);
    sigevent event{};
    event.sigev_notify = SIGEV_SIGNAL;
    event.sigev_signo = SIGXCPU;
    timer_t made{};
    if (::timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &made) != 0) fail("timer_create on the thread's CPU clock failed");
    return made;
  }();
  return timer;
}

}  // namespace

void set_cpu_seconds_per_input(int seconds) {
  cpu_seconds_per_input = seconds > 0 ? seconds : kMaxCpuSecondsPerInput;
}

CpuLimit::CpuLimit() {
  itimerspec limit{};
  limit.it_value.tv_sec = cpu_seconds_per_input;
  ::timer_settime(input_timer(), 0, &limit, nullptr);
}

CpuLimit::~CpuLimit() {
  const itimerspec disarmed{};
  ::timer_settime(input_timer(), 0, &disarmed, nullptr);
}

void require_bounded_message(std::string_view message, std::size_t max_bytes) {
  require(message.size() <= max_bytes,
          "an error message is longer than " + std::to_string(max_bytes) + " bytes", message);
  require(valid_utf8(message), "an error message is not valid UTF-8", message);
}

}  // namespace fprev::fuzz
