// What supervision costs (docs/worker-protocol.md): whole-process `fprev-golden reveal` runs of
// OpenBLAS cases, the library in a supervised worker process (the default) beside the same run
// with the library in the gate's own process (FPREV_WORKERS=off, as before workers), on the same
// machine in one benchmark run. Wall time of the whole process (start, library load, reveal,
// fingerprint, exit), real time, each case repeated. Counters:
//   in_worker    1 for the supervised run, 0 for the in-process one
// The cases: sdot 16384, sgemm 512^3, ddot 10^5 (1 library thread, 1 probe stream, so the
// two runs do the same work on one core).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_process.hpp"

namespace {

// Runs fprev-golden with `arguments`; false when it did not exit 0.
bool run_tool(const std::vector<std::string>& arguments, bool in_worker) {
  std::vector<std::string> command = {FPREV_GOLDEN_EXECUTABLE};
  command.insert(command.end(), arguments.begin(), arguments.end());
  return fprev::bench::run_program(command, {"FPREV_WORKERS"},
                                   in_worker ? std::vector<std::string>{} : std::vector<std::string>{"FPREV_WORKERS=off"});
}

void whole_process_reveal(benchmark::State& state, std::vector<std::string> case_arguments, bool in_worker) {
  std::vector<std::string> arguments = {"reveal", "--backend", "blas", "--library", "openblas",
                                        "--threads", "1", "--streams", "1"};
  arguments.insert(arguments.end(), case_arguments.begin(), case_arguments.end());
  for (auto _ : state)
    if (!run_tool(arguments, in_worker)) {
      state.SkipWithError("fprev-golden reveal failed (OpenBLAS missing?)");
      return;
    }
  state.counters["in_worker"] = in_worker ? 1 : 0;
}

const std::vector<std::string> kSdot16k = {"--op", "dot", "--dtype", "float32", "--n", "16384"};
const std::vector<std::string> kSgemm512 = {"--op", "gemm", "--dtype", "float32", "--m", "512", "--n", "512", "--k", "512"};
const std::vector<std::string> kDdot100k = {"--op", "dot", "--dtype", "float64", "--n", "100000"};

BENCHMARK_CAPTURE(whole_process_reveal, sdot_16384_in_process, kSdot16k, false)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK_CAPTURE(whole_process_reveal, sdot_16384_worker, kSdot16k, true)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK_CAPTURE(whole_process_reveal, sgemm_512_in_process, kSgemm512, false)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK_CAPTURE(whole_process_reveal, sgemm_512_worker, kSgemm512, true)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK_CAPTURE(whole_process_reveal, ddot_100000_in_process, kDdot100k, false)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK_CAPTURE(whole_process_reveal, ddot_100000_worker, kDdot100k, true)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
