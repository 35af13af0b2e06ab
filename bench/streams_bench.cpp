// Big reductions with probe streams (issue 13), side by side with the FPRev paper's published
// Python figures as quoted in the issue: sdot 16384 0.32 s, sdot 65536 3.4 s, sgemm 512^3 1.3 s,
// sgemm 1024^3 32.5 s (Xie et al., USENIX ATC 2025). Each benchmark reveals one OpenBLAS case
// (1 library thread) and reports:
//   target_s     time inside the target (added up over the streams)
//   total_s      the whole reveal (determinism check, probes, verification)
//   target_calls, probes, streams
//   paper_s      the published figure for the same case, where there is one
//   guesses      FPRev's sub-problems guessed from a sibling and proven (the *_alg4 runs turn the
//                guesses off: FPRev's Alg. 4 as published, for comparison)
// ddot 10^6 (about 2 million calls of a million products: about 5 minutes on two cores) runs only
// when FPREV_BENCH_LONG=1 is set, and once.
#include <cstdlib>
#include <thread>

#include "fprev/probe_streams.hpp"
#include "openblas_bench.hpp"

namespace {

void reveal_with_streams(benchmark::State& state, const fprev::Params& case_params, std::size_t streams,
                         double paper_seconds, bool guesses = true) {
  const std::optional<fprev_bench::OpenblasCase> opened = fprev_bench::open_openblas_case(state, case_params);
  if (!opened) return;
  const fprev::BackendInstance* instance = opened->instance;
  const fprev::Params& resolved = opened->params;
  const std::unique_ptr<fprev::Target>& target = opened->target;
  fprev::RevealOptions options;
  options.guess_siblings = guesses;
  fprev::use_probe_streams(options, streams, *instance, resolved);
  std::optional<fprev::RevealResult> result;
  for (auto _ : state) {
    result = fprev::reveal(*target, options);
    benchmark::DoNotOptimize(result->map.classes.size());
  }
  state.SetLabel(target->info().description);
  const fprev::RevealStats& s = result->stats;
  state.counters["target_s"] = s.target_seconds;
  state.counters["total_s"] = s.total_seconds;
  state.counters["target_calls"] = static_cast<double>(s.target_calls);
  state.counters["probes"] = static_cast<double>(s.probes);
  state.counters["streams"] = static_cast<double>(s.streams);
  state.counters["guesses"] = static_cast<double>(s.guesses_proven);
  if (paper_seconds > 0) state.counters["paper_s"] = paper_seconds;
}

const fprev::Params kSdot16k{{"op", "dot"}, {"n", "16384"}};
const fprev::Params kSdot64k{{"op", "dot"}, {"n", "65536"}};
const fprev::Params kSgemm512{{"op", "gemm"}, {"m", "512"}, {"n", "512"}, {"k", "512"}};
const fprev::Params kSgemm1024{{"op", "gemm"}, {"m", "1024"}, {"n", "1024"}, {"k", "1024"}};
const fprev::Params kDdot1m{{"op", "dot"}, {"dtype", "float64"}, {"n", "1000000"}};

BENCHMARK_CAPTURE(reveal_with_streams, sdot_16384_alg4, kSdot16k, 1, 0.32, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_with_streams, sdot_16384_serial, kSdot16k, 1, 0.32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_with_streams, sdot_16384_streams, kSdot16k, 0, 0.32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_with_streams, sdot_65536_alg4, kSdot64k, 1, 3.4, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_with_streams, sdot_65536_serial, kSdot64k, 1, 3.4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_with_streams, sdot_65536_streams, kSdot64k, 0, 3.4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_with_streams, sgemm_512, kSgemm512, 0, 1.3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_with_streams, sgemm_1024, kSgemm1024, 0, 32.5)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

// Registered at run time: only with FPREV_BENCH_LONG=1.
const bool kLongRegistered = [] {
  const char* flag = std::getenv("FPREV_BENCH_LONG");
  if (flag == nullptr || std::string(flag) != "1") return false;
  benchmark::RegisterBenchmark("reveal_with_streams/ddot_1000000_streams",
                               [](benchmark::State& state) { reveal_with_streams(state, kDdot1m, 0, 0.0); })
      ->Unit(benchmark::kSecond)
      ->Iterations(1);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
