// What distributed mode costs and gives (fprev/distributed.hpp, README "Bigger than one machine"):
// whole-process `fprev-golden reveal` of OpenBLAS ddot on the same cores, as
//   1 rank x 2 streams   (serial mode, two probe streams: two workers on this machine)
//   2 ranks x 1 stream   (mpirun -np 2: rank 0's worker and rank 1's, the probes of every wave
//                         split between them, the second half crossing MPI)
// and, for the transport's cost per wave, a small ddot whose waves are many and short (n = 4096,
// about 260 waves of a few microseconds of work each) run both ways: the difference over the
// waves is what MPI adds to a wave (a message to every rank and back, the polling of the waits),
// once the cost of starting the job (n = 1: no waves) is taken off.
// Counters: ranks, streams. Needs Open MPI's mpirun and the transport plugin; skipped otherwise.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_process.hpp"

namespace {

std::vector<std::string> reveal_ddot(const std::string& n) {
  return {FPREV_GOLDEN_EXECUTABLE, "reveal", "--backend", "blas", "--library", "openblas", "--kernel", "Prescott",
          "--threads", "1", "--op", "dot", "--dtype", "float64", "--n", n, "--no-alignment-check"};
}

void ddot(benchmark::State& state, std::string n, int ranks) {
  std::vector<std::string> command;
  if (ranks > 1) command = {"mpirun.openmpi", "-np", std::to_string(ranks), "--oversubscribe"};
  std::vector<std::string> reveal = reveal_ddot(n);
  command.insert(command.end(), reveal.begin(), reveal.end());
  if (ranks == 1) command.insert(command.end(), {"--streams", "2"});
  const std::vector<std::string> add = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
  for (auto _ : state)
    if (!fprev::bench::run_program(command, {}, add)) {
      state.SkipWithError("the reveal failed (OpenBLAS, Open MPI or the transport plugin missing?)");
      return;
    }
  state.counters["ranks"] = ranks;
  state.counters["streams"] = 2;
}

BENCHMARK_CAPTURE(ddot, n100000_1rank_x_2streams, "100000", 1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK_CAPTURE(ddot, n100000_2ranks_x_1stream, "100000", 2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
// n = 1: no wave at all; what is left is starting the job (mpirun, MPI_Init, the hello of every rank).
BENCHMARK_CAPTURE(ddot, n1_1rank_x_2streams, "1", 1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK_CAPTURE(ddot, n1_2ranks_x_1stream, "1", 2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK_CAPTURE(ddot, n4096_1rank_x_2streams, "4096", 1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK_CAPTURE(ddot, n4096_2ranks_x_1stream, "4096", 2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);

}  // namespace

BENCHMARK_MAIN();
