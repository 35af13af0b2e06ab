#include "case_spreader.hpp"

#include "fprev/distributed.hpp"

namespace fprev::cli {

bool spread_cases(const GateOptions& options, std::size_t cases) {
  const DistributedSession* session = active_distributed_session();
  if (session == nullptr || session->ranks() < 2 || cases < 2 || options.spread == "waves") return false;
  return options.spread == "cases" || cases > static_cast<std::size_t>(session->ranks());
}

CaseSpreader::CaseSpreader(const std::vector<SelectedCase>& cases, const RunnerOptions& options, bool update)
    : cases_(cases), options_(options), update_(update), results_(cases.size()), errors_(cases.size()) {
  const int ranks = active_distributed_session()->ranks();
  for (int rank = 0; rank < ranks; ++rank) threads_.emplace_back([this, rank] { run_slot(rank); });
}

CaseSpreader::~CaseSpreader() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void CaseSpreader::run_slot(int rank) {
  const CaseSlot slot(rank);  // outlives the runner below, whose workers count into it
  Runner runner(builtin_backends(), options_);
  for (;;) {
    std::size_t k = 0;
    {
      const std::lock_guard lock(mutex_);
      if (stopping_ || next_ >= cases_.size()) return;
      k = next_++;
    }
    const SelectedCase& sc = cases_[k];
    std::optional<CaseResult> result;
    std::exception_ptr error;
    try {
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

CaseResult CaseSpreader::result(std::size_t k) {
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return results_[k].has_value() || errors_[k] != nullptr; });
  if (errors_[k]) std::rethrow_exception(errors_[k]);
  return std::move(*results_[k]);
}

}  // namespace fprev::cli
