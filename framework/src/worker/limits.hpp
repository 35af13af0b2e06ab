// The case deadline CaseDeadline sets, read by every worker's supervisor.
#pragma once

#include <chrono>
#include <optional>

namespace fprev::worker {

struct ActiveDeadline {
  std::chrono::steady_clock::time_point at;
  double budget_seconds;  // the case's max_seconds, for the message
};
std::optional<ActiveDeadline> active_case_deadline();

// The calling thread's deadline, in place of the process-wide one while it lives: a rank of a
// distributed run serves the workers of rank 0's streams on several threads, each call with the
// time rank 0's case had left (nullopt: none).
class ThreadDeadline {
 public:
  explicit ThreadDeadline(std::optional<ActiveDeadline> deadline);
  ~ThreadDeadline();
  ThreadDeadline(const ThreadDeadline&) = delete;
  ThreadDeadline& operator=(const ThreadDeadline&) = delete;
};

}  // namespace fprev::worker
