// Test code in a resource-limited child process (bounded_child.hpp).
#include "bounded_child.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <string_view>

// Whether AddressSanitizer instruments this build (GCC or clang).
#if defined(__SANITIZE_ADDRESS__)
#define FPREV_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FPREV_UNDER_ASAN 1
#endif
#endif

#ifdef FPREV_UNDER_ASAN
// Freed memory waits in ASan's quarantine (256 MB by default) and would count as the child's.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=16"; }
#endif

namespace fprev::test_support {
namespace {

// Virtual size and resident set of this process in bytes, from /proc/self/statm.
struct MemoryUse {
  std::size_t virtual_bytes = 0;
  std::size_t resident_bytes = 0;
};

MemoryUse memory_use() {
  MemoryUse use;
  std::ifstream statm("/proc/self/statm");
  std::size_t size_pages = 0;
  std::size_t resident_pages = 0;
  statm >> size_pages >> resident_pages;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  use.virtual_bytes = size_pages * page;
  use.resident_bytes = resident_pages * page;
  return use;
}

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(written));
  }
}

[[noreturn]] void run_child(const std::function<std::string()>& body, const ChildLimits& limits,
                            const MemoryUse& parent, int out_fd) {
  const auto cpu = static_cast<rlim_t>(limits.max_cpu_seconds);
  const rlimit cpu_limit{cpu, cpu + 1};
  ::setrlimit(RLIMIT_CPU, &cpu_limit);
#ifndef FPREV_UNDER_ASAN
  const auto bytes = static_cast<rlim_t>(parent.virtual_bytes + (limits.max_memory_mb << 20));
  const rlimit memory_limit{bytes, bytes};
  ::setrlimit(RLIMIT_AS, &memory_limit);
#else
  (void)parent;
#endif
  int status = 0;
  std::string output;
  try {
    output = body();
  } catch (const std::exception& error) {
    output = std::string("uncaught exception: ") + error.what();
    status = 3;
  } catch (...) {
    output = "uncaught exception of an unknown type";
    status = 3;
  }
  write_all(out_fd, output);
  ::close(out_fd);
  ::_exit(status);
}

}  // namespace

bool ChildOutcome::within_limits() const {
  return finished && extra_memory_kb <= limits.max_memory_mb * 1024 &&
         cpu_seconds <= limits.max_cpu_seconds;
}

std::string ChildOutcome::describe() const {
  std::ostringstream out;
  if (finished) {
    out << "finished";
  } else if (signal != 0) {
    out << "killed by signal " << signal << " (" << ::strsignal(signal) << ")";
    if (signal == SIGXCPU) out << ": more than " << limits.max_cpu_seconds << " s of CPU";
  } else {
    out << "exited with status " << exit_status;
  }
  out << "; peak memory " << static_cast<double>(extra_memory_kb) / 1024.0
      << " MB above the parent's (limit " << limits.max_memory_mb << " MB), " << cpu_seconds
      << " s of CPU (limit " << limits.max_cpu_seconds << " s)";
  if (!finished && !output.empty()) out << "; output: " << output.substr(0, 500);
  return out.str();
}

ChildOutcome run_bounded(const std::function<std::string()>& body, ChildLimits limits) {
  ChildOutcome outcome;
  outcome.limits = limits;
  int fds[2];
  if (::pipe(fds) != 0) {
    outcome.output = std::string("pipe failed: ") + std::strerror(errno);
    return outcome;
  }
  std::fflush(nullptr);  // nothing buffered is written twice
  const MemoryUse parent = memory_use();
  const pid_t pid = ::fork();
  if (pid < 0) {
    outcome.output = std::string("fork failed: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return outcome;
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(body, limits, parent, fds[1]);
  }
  ::close(fds[1]);
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    outcome.output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  outcome.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                        static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  const auto peak_kb = static_cast<std::size_t>(usage.ru_maxrss);
  const std::size_t parent_kb = parent.resident_bytes / 1024;
  outcome.extra_memory_kb = peak_kb > parent_kb ? peak_kb - parent_kb : 0;
  if (WIFEXITED(status)) {
    outcome.exit_status = WEXITSTATUS(status);
    outcome.finished = outcome.exit_status == 0;
  } else if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
  }
  return outcome;
}

LargeTemporaryFile::LargeTemporaryFile(std::string_view name, std::string_view head,
                                       std::uintmax_t size)
    : path_(std::filesystem::temp_directory_path() /
            (std::to_string(::getpid()) + "-" + std::string(name))) {
  {
    std::ofstream out(path_, std::ios::binary);
    out << head;
  }
  std::filesystem::resize_file(path_, size);
}

LargeTemporaryFile::~LargeTemporaryFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace fprev::test_support
