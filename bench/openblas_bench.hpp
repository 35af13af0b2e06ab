// Shared by the OpenBLAS benchmarks: the instance (1 thread) and a reveal per iteration.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/reveal.hpp"

namespace fprev_bench {

inline std::unique_ptr<fprev::BackendInstance> open_openblas(const fprev::Params& extra) {
  const fprev::Backend* backend = fprev::builtin_backends().find("blas");
  if (backend == nullptr) return nullptr;
  fprev::Params settings{{"library", "openblas"}, {"threads", "1"}};
  settings.insert(extra.begin(), extra.end());
  try {
    return backend->open(settings);
  } catch (const std::exception&) {
    return nullptr;
  }
}

// OpenBLAS with the kernel family it picks by itself, or (forced) that same family forced through
// the `kernel` setting: a copy of the library in a link-map namespace of its own.
inline const fprev::BackendInstance* openblas(bool forced = false) {
  static const std::unique_ptr<fprev::BackendInstance> own = open_openblas({});
  static const std::unique_ptr<fprev::BackendInstance> forced_own = [] {
    return own ? open_openblas({{"kernel", own->identity().details.at("kernel_family")}}) : nullptr;
  }();
  return forced ? forced_own.get() : own.get();
}

// A case of the OpenBLAS instance: its resolved parameters and a target. nullopt when OpenBLAS is
// missing: the benchmark is then marked as an error.
struct OpenblasCase {
  const fprev::BackendInstance* instance = nullptr;
  fprev::Params params;
  std::unique_ptr<fprev::Target> target;
};

inline std::optional<OpenblasCase> open_openblas_case(benchmark::State& state, const fprev::Params& case_params,
                                                      bool forced = false) {
  const fprev::BackendInstance* instance = openblas(forced);
  if (instance == nullptr) {
    state.SkipWithError("OpenBLAS is not available (blas backend not built or library missing)");
    return std::nullopt;
  }
  OpenblasCase opened;
  opened.instance = instance;
  opened.params = fprev::resolve_params(instance->case_params(), case_params, "benchmark");
  opened.target = instance->make_target(opened.params);
  return opened;
}

// Reveals the OpenBLAS case once per iteration; returns the last result (nullopt when OpenBLAS is
// missing: the benchmark is then marked as an error) and labels the state with the target.
inline std::optional<fprev::RevealResult> reveal_openblas(benchmark::State& state,
                                                          const fprev::Params& case_params,
                                                          bool forced = false) {
  const std::optional<OpenblasCase> opened = open_openblas_case(state, case_params, forced);
  if (!opened) return std::nullopt;
  const fprev::BackendInstance* instance = opened->instance;
  const std::unique_ptr<fprev::Target>& target = opened->target;
  std::optional<fprev::RevealResult> result;
  for (auto _ : state) {
    result = fprev::reveal(*target);
    benchmark::DoNotOptimize(result->map.classes.size());
  }
  state.SetLabel(target->info().description + ", " +
                 instance->identity().details.at("kernel_family") +
                 (forced ? " forced" : " (own choice)"));
  state.counters["leaves"] = static_cast<double>(target->info().n);
  state.counters["probes"] = static_cast<double>(result->stats.probes);
  state.counters["target_calls"] = static_cast<double>(result->stats.target_calls);
  state.counters["target_fraction"] = result->stats.total_seconds > 0
                                          ? result->stats.target_seconds / result->stats.total_seconds
                                          : 0.0;
  return result;
}

}  // namespace fprev_bench
