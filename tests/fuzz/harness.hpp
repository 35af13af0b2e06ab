// What every fuzz harness shares: the libFuzzer entry point's signature, a check that stops the
// run with a message (libFuzzer and the regression driver both report an abort as a failure and
// keep the input), and the properties of an error message about hostile input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fprev::fuzz {

// The harness's input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void fail(std::string_view what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz harness: %.*s\n", static_cast<int>(what.size()), what.data());
  if (!detail.empty())
    std::fprintf(stderr, "%.*s\n", static_cast<int>(detail.size() > 4000 ? 4000 : detail.size()),
                 detail.data());
  std::abort();
}

inline void require(bool condition, std::string_view what, std::string_view detail = {}) {
  if (!condition) fail(what, detail);
}

// The CPU time one input may take, measured on the thread that runs it: a fuzzing run on a busy
// machine must not stop on an input that is merely slow in wall-clock time (libFuzzer's -timeout,
// which scripts/fuzz sets generously as a last resort), and a runaway input still stops it. Past
// the limit the harness aborts with a message, so libFuzzer keeps the input as a crash.
inline constexpr int kMaxCpuSecondsPerInput = 10;

// The regression driver runs each input in a child under its own --max-cpu-seconds: the shipped
// goldens (a million-leaf tree under ASan takes about 10 s of CPU on a slow runner) get the room
// the driver gives them, not the fuzzing run's 10 s. 0 or less keeps kMaxCpuSecondsPerInput.
void set_cpu_seconds_per_input(int seconds);

// Arms the limit for the life of the object: one at the top of each LLVMFuzzerTestOneInput.
class CpuLimit {
 public:
  CpuLimit();
  ~CpuLimit();
  CpuLimit(const CpuLimit&) = delete;
  CpuLimit& operator=(const CpuLimit&) = delete;
};

// An error message about hostile input: short whatever the input (messages quote excerpts), and
// valid UTF-8 (messages never echo raw bytes of the input).
void require_bounded_message(std::string_view message, std::size_t max_bytes = 2048);

}  // namespace fprev::fuzz
