// Revealing MPI collectives through their real launchers (mpi backend): the time of a whole reveal
// with one job kept alive (determinism check, probes, verification), the share spent inside the
// target (socket round trips and the collective), and the cost of starting a job.
//
// The ranks share this machine's cores (oversubscribed), so the figures depend on its load and
// core count: Open MPI's ranks yield while they wait, MPICH's busy-poll, which makes each MPICH
// call cost about one scheduler time slice per step of the algorithm.
//
// Counters: probes, target_calls, target_fraction (time inside Target::evaluate / reveal time).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/reveal.hpp"

namespace {

std::unique_ptr<fprev::BackendInstance> open_library(const std::string& library) {
  const fprev::Backend* backend = fprev::builtin_backends().find("mpi");
  if (backend == nullptr) return nullptr;
  try {
    return backend->open(
        fprev::resolve_params(backend->instance_params(), {{"library", library}}, "mpi bench"));
  } catch (const std::exception&) {
    return nullptr;
  }
}

const fprev::BackendInstance* instance_of(const std::string& library) {
  static const std::unique_ptr<fprev::BackendInstance> openmpi = open_library("openmpi");
  static const std::unique_ptr<fprev::BackendInstance> mpich = open_library("mpich");
  return library == "openmpi" ? openmpi.get() : mpich.get();
}

fprev::Params collective(const std::string& op, int ranks, int count) {
  return {{"op", op}, {"ranks", std::to_string(ranks)}, {"count", std::to_string(count)}};
}

// One job for all iterations: what a reveal costs once the ranks are up.
void reveal_collective(benchmark::State& state, const std::string& library, fprev::Params c) {
  const fprev::BackendInstance* instance = instance_of(library);
  if (instance == nullptr) {
    state.SkipWithError((library + " is not available (mpi backend not built or MPI missing)").c_str());
    return;
  }
  const auto target =
      instance->make_target(fprev::resolve_params(instance->case_params(), c, "mpi bench"));
  fprev::RevealStats stats;
  for (auto _ : state) {
    fprev::RevealResult result = fprev::reveal(*target);
    stats = result.stats;
    benchmark::DoNotOptimize(result.tree.node_count());
  }
  state.SetLabel(target->info().description);
  state.counters["probes"] = static_cast<double>(stats.probes);
  state.counters["target_calls"] = static_cast<double>(stats.target_calls);
  state.counters["target_fraction"] =
      stats.total_seconds > 0 ? stats.target_seconds / stats.total_seconds : 0.0;
}

// Starting and ending a job (what every case pays once, on top of opening the instance).
void start_job(benchmark::State& state, const std::string& library, fprev::Params c) {
  const fprev::BackendInstance* instance = instance_of(library);
  if (instance == nullptr) {
    state.SkipWithError((library + " is not available").c_str());
    return;
  }
  const fprev::Params resolved = fprev::resolve_params(instance->case_params(), c, "mpi bench");
  for (auto _ : state) benchmark::DoNotOptimize(instance->make_target(resolved).get());
}

BENCHMARK_CAPTURE(reveal_collective, openmpi_allreduce_8x1, "openmpi", collective("allreduce", 8, 1))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_collective, openmpi_allreduce_16x4096, "openmpi",
                  collective("allreduce", 16, 4096))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_collective, mpich_allreduce_8x1, "mpich", collective("allreduce", 8, 1))
    ->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(reveal_collective, mpich_reduce_6x64, "mpich", collective("reduce", 6, 64))
    ->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(start_job, openmpi_8, "openmpi", collective("allreduce", 8, 1))
    ->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(start_job, mpich_8, "mpich", collective("allreduce", 8, 1))
    ->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
