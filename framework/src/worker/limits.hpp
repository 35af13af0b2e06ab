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

}  // namespace fprev::worker
