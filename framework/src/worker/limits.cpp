// WorkerLimits and CaseDeadline (fprev/worker.hpp).
#include <unistd.h>

#include <cstdlib>
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

// The deadline of the case the calling thread runs: seconds on the steady clock (0: none), and the
// budget it came from. Per thread, because `check` in a distributed run runs several cases at once;
// a case's targets capture it when they are made (on the case's thread) and carry it to the probe
// streams' threads (worker::ThreadDeadline).
thread_local double deadline_at = 0.0;
thread_local double deadline_budget = 0.0;

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

namespace {

// The ranks of this MPI job on this node (1 outside one): the processes that share its memory.
std::size_t ranks_on_this_node() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    char* end = nullptr;
    const unsigned long ranks = std::strtoul(value, &end, 10);
    if (end != value && *end == '\0' && ranks >= 1 && ranks <= 1u << 20) return ranks;
  }
  return 1;
}

}  // namespace

// A total across the workers of the run (worker_process.cpp keeps the ledger); the ranks of a
// distributed run that share a node share it.
std::size_t worker_memory_limit() {
  std::size_t total = worker_limits().memory_bytes;
  if (total == 0) {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    total = pages <= 0 || page <= 0 ? std::size_t{8} << 30
                                    : static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2;
  }
  return total / ranks_on_this_node();
}

CaseDeadline::CaseDeadline(double seconds) : previous_(deadline_at), previous_budget_(deadline_budget) {
  deadline_at = seconds > 0.0 ? steady_now() + seconds : 0.0;
  deadline_budget = seconds > 0.0 ? seconds : 0.0;
}

CaseDeadline::~CaseDeadline() {
  deadline_at = previous_;
  deadline_budget = previous_budget_;
}

namespace worker {

ThreadDeadline::ThreadDeadline(std::optional<ActiveDeadline> deadline)
    : previous_at_(deadline_at), previous_budget_(deadline_budget) {
  deadline_at = deadline ? std::chrono::duration<double>(deadline->at.time_since_epoch()).count() : 0.0;
  deadline_budget = deadline ? deadline->budget_seconds : 0.0;
}

ThreadDeadline::~ThreadDeadline() {
  deadline_at = previous_at_;
  deadline_budget = previous_budget_;
}

std::optional<ActiveDeadline> active_case_deadline() {
  const double at = deadline_at;
  if (at <= 0.0) return std::nullopt;
  const auto time_point = std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(at)));
  return ActiveDeadline{time_point, deadline_budget};
}

}  // namespace worker
}  // namespace fprev
