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

// A case's deadline on another thread while it lives: the probe streams' threads call the targets
// a case made (each target keeps the deadline that was in effect when it was made), and a serving
// rank of a distributed run calls its workers with the time rank 0's case had left (nullopt: none).
class ThreadDeadline {
 public:
  explicit ThreadDeadline(std::optional<ActiveDeadline> deadline);
  ~ThreadDeadline();
  ThreadDeadline(const ThreadDeadline&) = delete;
  ThreadDeadline& operator=(const ThreadDeadline&) = delete;

 private:
  double previous_at_;
  double previous_budget_;
};

}  // namespace fprev::worker
