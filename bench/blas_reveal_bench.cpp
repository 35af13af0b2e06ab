// Revealing OpenBLAS routines (1 thread) with FPRev: the time of a whole reveal (determinism check,
// probes, verification) and how much of it is spent inside the BLAS.
//
// The published FPRev implementation needs about 0.36 s for an sdot of 16384, 2.0 s for a
// 512x512x512 sgemm and 37 s for 1024x1024x1024 (Xie et al., USENIX ATC 2025 Sec. 7). Targets for this one: under
// 90 ms with >= 90% of the time in OpenBLAS for the sdot, under 40 ms and 0.4 s for the sgemms
// (one probe per row of A, so one sgemm call evaluates up to m - 1 probes).
//
// Counters: probes, target_calls, target_fraction (time inside Target::evaluate / reveal time).
//
// The *_forced variants run the family OpenBLAS picks by itself here, forced through the `kernel`
// setting: the same kernels in a copy of the library in its own link-map namespace, so the
// difference is the cost of that copy (none expected: calls go through function pointers either
// way).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/reveal.hpp"

namespace {

std::unique_ptr<fprev::BackendInstance> open_openblas(const fprev::Params& extra) {
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

const fprev::BackendInstance* openblas(bool forced) {
  static const std::unique_ptr<fprev::BackendInstance> own = open_openblas({});
  static const std::unique_ptr<fprev::BackendInstance> forced_own = [] {
    return own ? open_openblas({{"kernel", own->identity().details.at("kernel_family")}}) : nullptr;
  }();
  return forced ? forced_own.get() : own.get();
}

void reveal_openblas(benchmark::State& state, const fprev::Params& case_params, bool forced) {
  const fprev::BackendInstance* instance = openblas(forced);
  if (instance == nullptr) {
    state.SkipWithError("OpenBLAS is not available (blas backend not built or library missing)");
    return;
  }
  const fprev::Params resolved =
      fprev::resolve_params(instance->case_params(), case_params, "blas_reveal_bench");
  const std::unique_ptr<fprev::Target> target = instance->make_target(resolved);
  fprev::RevealStats stats;
  for (auto _ : state) {
    fprev::RevealResult result = fprev::reveal(*target);
    stats = result.stats;
    benchmark::DoNotOptimize(result.tree.node_count());
  }
  state.SetLabel(target->info().description + ", " +
                 instance->identity().details.at("kernel_family") +
                 (forced ? " forced" : " (own choice)"));
  state.counters["leaves"] = static_cast<double>(target->info().n);
  state.counters["probes"] = static_cast<double>(stats.probes);
  state.counters["target_calls"] = static_cast<double>(stats.target_calls);
  state.counters["target_fraction"] =
      stats.total_seconds > 0 ? stats.target_seconds / stats.total_seconds : 0.0;
}

const fprev::Params kSdot{{"op", "dot"}, {"n", "16384"}};
const fprev::Params kSgemm512{{"op", "gemm"}, {"m", "512"}, {"n", "512"}, {"k", "512"}};
BENCHMARK_CAPTURE(reveal_openblas, sdot_16384, kSdot, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_openblas, sdot_16384_forced, kSdot, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_openblas, sgemm_512, kSgemm512, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_openblas, sgemm_512_forced, kSgemm512, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_openblas, sgemm_1024,
                  fprev::Params{{"op", "gemm"}, {"m", "1024"}, {"n", "1024"}, {"k", "1024"}}, false)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
