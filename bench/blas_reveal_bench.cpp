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
#include "openblas_bench.hpp"

namespace {

void reveal_openblas(benchmark::State& state, const fprev::Params& case_params) {
  fprev_bench::reveal_openblas(state, case_params);
}

BENCHMARK_CAPTURE(reveal_openblas, sdot_16384, fprev::Params{{"op", "dot"}, {"n", "16384"}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_openblas, sgemm_512,
                  fprev::Params{{"op", "gemm"}, {"m", "512"}, {"n", "512"}, {"k", "512"}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_openblas, sgemm_1024,
                  fprev::Params{{"op", "gemm"}, {"m", "1024"}, {"n", "1024"}, {"k", "1024"}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
