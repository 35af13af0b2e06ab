// Runs test code in a child process under resource limits, so that a test of hostile input can
// assert "finishes, within this much memory and CPU time" without measuring wall-clock time and
// without a runaway taking the test runner (or the machine) down with it.
//
// The child gets RLIMIT_CPU (it is killed by SIGXCPU past the limit) and, except under
// AddressSanitizer (which reserves terabytes of address space up front), RLIMIT_AS. Its peak
// resident memory above what it shared with the parent at the fork is measured from wait4's
// rusage in every build, so the memory bound is checked under the sanitizers too. A binary that
// uses this under AddressSanitizer keeps 16 MB of freed memory in ASan's quarantine instead of
// 256 MB, so that freed memory does not count as the child's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace fprev::test_support {

struct ChildLimits {
  std::size_t max_memory_mb = 256;  // peak resident memory above the parent's, and address space
  int max_cpu_seconds = 10;
};

struct ChildOutcome {
  bool finished = false;         // exited with status 0 after the body returned
  int exit_status = -1;          // when it exited
  int signal = 0;                // when a signal ended it (SIGXCPU: the CPU limit)
  std::size_t extra_memory_kb = 0;  // peak RSS above the parent's RSS at the fork
  double cpu_seconds = 0;
  std::string output;            // what the body returned
  ChildLimits limits;

  // Finished within both limits.
  bool within_limits() const;
  // "finished: 3.1 MB, 0.02 s CPU" or "killed by SIGXCPU (more than 10 s of CPU) ..." for test
  // failure messages.
  std::string describe() const;
};

// Runs `body` in a forked child under `limits` and returns what it returned with the child's
// resource use. The body must not rely on threads started before the fork.
ChildOutcome run_bounded(const std::function<std::string()>& body, ChildLimits limits = {});

// A file in the temporary directory that starts with `head` and is `size` bytes long (sparse:
// a large one takes no disk space), removed when this goes out of scope.
class LargeTemporaryFile {
 public:
  LargeTemporaryFile(std::string_view name, std::string_view head, std::uintmax_t size);
  ~LargeTemporaryFile();
  LargeTemporaryFile(const LargeTemporaryFile&) = delete;
  LargeTemporaryFile& operator=(const LargeTemporaryFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace fprev::test_support
