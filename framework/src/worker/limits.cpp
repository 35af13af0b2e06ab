// WorkerLimits and CaseDeadline (fprev/worker.hpp).
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "fprev/worker.hpp"
#include "worker/limits.hpp"

namespace fprev {
namespace {

std::mutex& limits_mutex() {
  static std::mutex mutex;
  return mutex;
}

WorkerLimits& limits_storage() {
  static WorkerLimits limits;
  return limits;
}

// Seconds on the steady clock (0: no deadline), and the budget it came from.
std::atomic<double> deadline_at{0.0};
std::atomic<double> deadline_budget{0.0};

double steady_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void set_worker_limits(const WorkerLimits& limits) {
  const std::lock_guard lock(limits_mutex());
  limits_storage() = limits;
}

WorkerLimits worker_limits() {
  const std::lock_guard lock(limits_mutex());
  return limits_storage();
}

std::size_t worker_memory_limit() {
  const std::size_t set = worker_limits().memory_bytes;
  if (set != 0) return set;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::size_t{8} << 30;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2;
}

CaseDeadline::CaseDeadline(double seconds)
    : previous_(deadline_at.load()), previous_budget_(deadline_budget.load()) {
  deadline_at = seconds > 0.0 ? steady_now() + seconds : 0.0;
  deadline_budget = seconds > 0.0 ? seconds : 0.0;
}

CaseDeadline::~CaseDeadline() {
  deadline_at = previous_;
  deadline_budget = previous_budget_;
}

namespace worker {
namespace {
thread_local bool thread_deadline_set = false;
thread_local std::optional<ActiveDeadline> thread_deadline;
}  // namespace

ThreadDeadline::ThreadDeadline(std::optional<ActiveDeadline> deadline) {
  thread_deadline = deadline;
  thread_deadline_set = true;
}

ThreadDeadline::~ThreadDeadline() {
  thread_deadline.reset();
  thread_deadline_set = false;
}

std::optional<ActiveDeadline> active_case_deadline() {
  if (thread_deadline_set) return thread_deadline;
  const double at = deadline_at.load();
  if (at <= 0.0) return std::nullopt;
  const auto time_point = std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(at)));
  return ActiveDeadline{time_point, deadline_budget.load()};
}

}  // namespace worker
}  // namespace fprev
