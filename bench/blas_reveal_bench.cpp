// Revealing OpenBLAS routines (1 thread) with FPRev: the time of a whole reveal (determinism check,
// probes, verification) and how much of it is spent inside the BLAS.
//
// The published FPRev implementation needs about 0.36 s for an sdot of 16384, 2.0 s for a
// 512x512x512 sgemm and 37 s for 1024x1024x1024 (Xie et al., USENIX ATC 2025 Sec. 7). Targets for this one: under
// 90 ms with >= 90% of the time in OpenBLAS for the sdot, under 40 ms and 0.4 s for the sgemms
// (a grid target: one sgemm call evaluates a probe on every row or every column of C, and every
// element of C is read; see order_map_bench.cpp for maps of several classes).
//
// Counters: probes, target_calls, target_fraction (time inside Target::evaluate / reveal time).
//
// The *_forced variants run the family OpenBLAS picks by itself here, forced through the `kernel`
// setting: the same kernels in a copy of the library in its own link-map namespace, so the
// difference is the cost of that copy (none expected: calls go through function pointers either
// way).
#include "openblas_bench.hpp"

namespace {

void reveal_openblas(benchmark::State& state, const fprev::Params& case_params, bool forced) {
  fprev_bench::reveal_openblas(state, case_params, forced);
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
