#include "case_spreader.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "fprev/distributed.hpp"

namespace fprev::cli {

std::size_t case_slots(const GateOptions& options, std::size_t cases) {
  if (cases < 2) return 0;
  if (const DistributedSession* session = active_distributed_session()) {
    if (session->ranks() < 2 || options.spread == "waves") return 0;
    const auto ranks = static_cast<std::size_t>(session->ranks());
    return options.spread == "cases" || cases > ranks ? ranks : 0;
  }
  const std::size_t jobs =
      options.jobs != 0 ? options.jobs : std::max<std::size_t>(1, std::thread::hardware_concurrency());
  const std::size_t slots = std::min(jobs, cases);
  return slots > 1 ? slots : 0;
}

std::size_t streams_per_case_slot(const GateOptions& options, std::size_t slots) {
  if (active_distributed_session() != nullptr)
    return options.engine.streams != 0 ? std::min(options.engine.streams, options.engine.streams_per_rank)
                                       : options.engine.streams_per_rank;
  if (options.engine.streams != 0) return options.engine.streams;
  const std::size_t cores = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  return std::max<std::size_t>(1, cores / std::max<std::size_t>(1, slots));
}

namespace {

// The instance each case opens in its slot's runner (Runner::open's key).
std::vector<std::string> instance_keys(const std::vector<SelectedCase>& cases) {
  std::vector<std::string> keys;
  keys.reserve(cases.size());
  for (const SelectedCase& sc : cases) keys.push_back(instance_key(builtin_backends(), *sc.suite, sc.c->backend_instance));
  return keys;
}

}  // namespace

CaseSpreader::CaseSpreader(const std::vector<SelectedCase>& cases, const RunnerOptions& options, bool update,
                           std::size_t slots)
    : cases_(cases), options_(options), update_(update), queue_(instance_keys(cases), std::max<std::size_t>(1, slots)),
      results_(cases.size()), errors_(cases.size()) {
  for (const SelectedCase& sc : cases)
    threads_of_case_.push_back(case_own_threads(builtin_backends(), *sc.suite, *sc.c));
  case_cores_.assign(slots, nullptr);
  for (std::size_t slot = 0; slot < slots; ++slot)
    threads_.emplace_back([this, slot] { run_slot(static_cast<int>(slot)); });
}

CaseSpreader::~CaseSpreader() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void CaseSpreader::run_slot(int slot) {
  // In a distributed run the slot is a rank: its workers start there. Made before the runner and
  // gone after it, whose workers count into it.
  std::optional<CaseSlot> on_rank;
  if (active_distributed_session() != nullptr) on_rank.emplace(slot);
  // The slot's case of the moment takes the cores for an invariance variant's calls of several
  // threads (its own calls share them).
  RunnerOptions options = options_;
  options.claim_cores = [this, slot]() -> std::shared_ptr<void> {
    CaseCores* cores = nullptr;
    {
      const std::lock_guard lock(mutex_);
      cores = case_cores_.at(static_cast<std::size_t>(slot));
    }
    return cores != nullptr ? cores->claim() : nullptr;
  };
  Runner runner(builtin_backends(), options);
  run_cases(runner, static_cast<std::size_t>(slot));
}

void CaseSpreader::run_cases(Runner& runner, std::size_t slot) {
  for (;;) {
    std::size_t k = 0;
    {
      const std::lock_guard lock(mutex_);
      if (stopping_) return;
      const std::optional<std::size_t> next = queue_.next(slot);
      if (!next) return;
      k = *next;
    }
    const SelectedCase& sc = cases_[k];
    std::optional<CaseResult> result;
    std::exception_ptr error;
    try {
      // A distributed run's slots are ranks, each on cores of its own: nothing to share there.
      const bool distributed = active_distributed_session() != nullptr;
      CaseCores cores(cores_, threads_of_case_[k] > 1 && !distributed);
      struct Published {  // the case's cores, for the runner's claims while the case runs
        CaseSpreader& spreader;
        std::size_t slot;
        ~Published() { spreader.publish_case_cores(slot, nullptr); }
      } published{*this, slot};
      if (!distributed) publish_case_cores(slot, &cores);
      result = update_ ? runner.update(*sc.suite, *sc.c) : runner.check(*sc.suite, *sc.c);
    } catch (...) {
      error = std::current_exception();
    }
    {
      const std::lock_guard lock(mutex_);
      results_[k] = std::move(result);
      errors_[k] = error;
    }
    done_.notify_all();
  }
}

void CaseSpreader::publish_case_cores(std::size_t slot, CaseCores* cores) {
  const std::lock_guard lock(mutex_);
  case_cores_.at(slot) = cores;
}

CaseResult CaseSpreader::result(std::size_t k) {
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return results_[k].has_value() || errors_[k] != nullptr; });
  if (errors_[k]) std::rethrow_exception(errors_[k]);
  return std::move(*results_[k]);
}

}  // namespace fprev::cli
