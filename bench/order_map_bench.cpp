// Order maps of OpenBLAS gemm/gemv (1 thread): what a multi-class reveal costs next to a
// single-class one. Counters: classes (of the map), value_classes (groups with equal outputs on
// random inputs), class_splits, probes (inputs placed on rows or columns), target_calls,
// target_fraction (time inside the target / reveal time), element_checks (element answers compared
// with their class tree).
//
// reveal_and_fingerprint: what `fprev-golden reveal` measures for a case, the map and every class's
// fingerprint, with the target calls of each part (reveal_calls, fingerprint_calls, total_calls) and
// the time of each (reveal_s, fingerprint_s), and the pair grid's calls (pair_grid_calls; the
// _no_pair_grid variant reveals without it); FPRev's own Python reveals one element of sgemm 512^3
// (numpy, X @ ones) in the time `python3 ../shared/anchors/fprev-py/time_fprev.py numpy gemm 512`
// prints, on the same machine.
//
// The kernel family decides the map. OPENBLAS_CORETYPE is honoured when set; otherwise this program
// asks for the Haswell kernels when the CPU has AVX2 and FMA (the family AMD Zen runners get),
// whose sgemm alternates two orders over 8 x 6 tiles and whose dgemm has one order:
//
//   build/bench/order_map_bench                      # Haswell kernels where the CPU allows
//   OPENBLAS_CORETYPE=SkylakeX build/bench/order_map_bench --benchmark_filter=sgemm_100
#include <cstdlib>
#include <fstream>
#include <string>

#include "fprev/fingerprint.hpp"
#include "openblas_bench.hpp"

namespace {

bool cpu_has(const std::string& flag) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

void reveal_map(benchmark::State& state, const fprev::Params& case_params) {
  const std::optional<fprev::RevealResult> result = fprev_bench::reveal_openblas(state, case_params);
  if (!result) return;
  const fprev::RevealStats& stats = result->stats;
  const auto& details = fprev_bench::openblas()->identity().details;
  const auto core = details.find("core");
  state.SetLabel("core " + (core == details.end() ? std::string("?") : core->second));
  state.counters["classes"] = static_cast<double>(stats.map_classes);
  state.counters["value_classes"] = static_cast<double>(stats.value_classes);
  state.counters["class_splits"] = static_cast<double>(stats.class_splits);
  state.counters["element_checks"] = static_cast<double>(stats.element_checks);
}

void reveal_and_fingerprint(benchmark::State& state, const fprev::Params& case_params, bool pair_grid) {
  const std::optional<fprev_bench::OpenblasCase> opened = fprev_bench::open_openblas_case(state, case_params);
  if (!opened) return;
  fprev::Target& target = *opened->target;
  std::optional<fprev::RevealResult> result;
  fprev::FingerprintStats fingerprint;
  for (auto _ : state) {
    fprev::RevealOptions options;
    options.pair_grid = pair_grid;
    result = fprev::reveal(target, options);
    std::vector<fprev::Fingerprint> fingerprints = fprev::measure_map_fingerprints(target, result->map, &fingerprint);
    benchmark::DoNotOptimize(fingerprints);
  }
  const auto& details = fprev_bench::openblas()->identity().details;
  const auto core = details.find("core");
  state.SetLabel("core " + (core == details.end() ? std::string("?") : core->second));
  state.counters["classes"] = static_cast<double>(result->stats.map_classes);
  state.counters["reveal_calls"] = static_cast<double>(result->stats.target_calls);
  state.counters["pair_grid_calls"] = static_cast<double>(result->stats.pair_grid_calls);
  state.counters["fingerprint_calls"] = static_cast<double>(fingerprint.target_calls);
  state.counters["total_calls"] = static_cast<double>(result->stats.target_calls + fingerprint.target_calls);
  state.counters["reveal_s"] = result->stats.total_seconds;
  state.counters["fingerprint_s"] = fingerprint.seconds;
}

fprev::Params gemm(const char* dtype, int size) {
  const std::string s = std::to_string(size);
  return {{"op", "gemm"}, {"dtype", dtype}, {"m", s}, {"n", s}, {"k", s}};
}

// Multi-class with the Haswell kernels (and sgemv 200 with every family), next to single-class
// shapes: dgemm of the same sizes, and a whole number of tiles.
BENCHMARK_CAPTURE(reveal_map, sgemm_100, gemm("float32", 100))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_map, dgemm_100, gemm("float64", 100))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_map, sgemm_96, gemm("float32", 96))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_map, sgemv_200,
                  fprev::Params{{"op", "gemv"}, {"m", "200"}, {"n", "200"}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_map, sgemv_192,
                  fprev::Params{{"op", "gemv"}, {"m", "192"}, {"n", "200"}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_and_fingerprint, sgemm_512, gemm("float32", 512), true)->Unit(benchmark::kMillisecond);
// The same without the pair grid (RevealOptions::pair_grid): FPRev's probes in rounds of one a line.
BENCHMARK_CAPTURE(reveal_and_fingerprint, sgemm_512_no_pair_grid, gemm("float32", 512), false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_map, sgemm_1000, gemm("float32", 1000))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(reveal_map, dgemm_1000, gemm("float64", 1000))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  // Before OpenBLAS loads (it reads OPENBLAS_CORETYPE once, when the backend opens it).
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr && cpu_has("avx2") && cpu_has("fma"))
    setenv("OPENBLAS_CORETYPE", "Haswell", 0);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
