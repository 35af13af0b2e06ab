// Shared by the OpenBLAS benchmarks: the instance (1 thread) and a reveal per iteration.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/reveal.hpp"

namespace fprev_bench {

inline const fprev::BackendInstance* openblas() {
  static const std::unique_ptr<fprev::BackendInstance> instance = []() -> std::unique_ptr<fprev::BackendInstance> {
    const fprev::Backend* backend = fprev::builtin_backends().find("blas");
    if (backend == nullptr) return nullptr;
    try {
      return backend->open({{"library", "openblas"}, {"threads", "1"}});
    } catch (const std::exception&) {
      return nullptr;
    }
  }();
  return instance.get();
}

// Reveals the OpenBLAS case once per iteration; returns the last result (nullopt when OpenBLAS is
// missing: the benchmark is then marked as an error) and labels the state with the target.
inline std::optional<fprev::RevealResult> reveal_openblas(benchmark::State& state,
                                                          const fprev::Params& case_params) {
  const fprev::BackendInstance* instance = openblas();
  if (instance == nullptr) {
    state.SkipWithError("OpenBLAS is not available (blas backend not built or library missing)");
    return std::nullopt;
  }
  const fprev::Params resolved =
      fprev::resolve_params(instance->case_params(), case_params, "benchmark");
  const std::unique_ptr<fprev::Target> target = instance->make_target(resolved);
  std::optional<fprev::RevealResult> result;
  for (auto _ : state) {
    result = fprev::reveal(*target);
    benchmark::DoNotOptimize(result->map.classes.size());
  }
  state.SetLabel(target->info().description);
  state.counters["leaves"] = static_cast<double>(target->info().n);
  state.counters["probes"] = static_cast<double>(result->stats.probes);
  state.counters["target_calls"] = static_cast<double>(result->stats.target_calls);
  state.counters["target_fraction"] = result->stats.total_seconds > 0
                                          ? result->stats.target_seconds / result->stats.total_seconds
                                          : 0.0;
  return result;
}

}  // namespace fprev_bench
