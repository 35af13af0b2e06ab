// Revealing MPI collectives through their real launchers (mpi backend): the time of a whole reveal
// with one job kept alive (determinism check, probes, verification), the share spent inside the
// target (socket round trips and the collective), the cost of starting a job, and a run of the
// shipped suite's cases on one instance with a job per launch (reuse_jobs, the default) against a
// job per case (reuse_jobs: false), as the gate runs them before their fingerprints.
//
// The ranks share this machine's cores (oversubscribed), so the figures depend on its load and
// core count: Open MPI's ranks yield while they wait, MPICH's busy-poll, which makes each MPICH
// call cost about one scheduler time slice per step of the algorithm.
//
// Counters: probes, target_calls, target_fraction (time inside Target::evaluate / reveal time);
// for the runs of cases: cases and jobs (jobs started, TargetInfo::jobs_started).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/reveal.hpp"

namespace {

std::unique_ptr<fprev::BackendInstance> open_library(const std::string& library, bool reuse_jobs = true) {
  const fprev::Backend* backend = fprev::builtin_backends().find("mpi");
  if (backend == nullptr) return nullptr;
  try {
    return backend->open(fprev::resolve_params(
        backend->instance_params(),
        {{"library", library}, {"reuse_jobs", reuse_jobs ? "true" : "false"}}, "mpi bench"));
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

// Starting and ending a job (what a case paid before jobs were shared, on top of opening the
// instance; now the first case of each launch).
void start_job(benchmark::State& state, const std::string& library, fprev::Params c) {
  static const std::unique_ptr<fprev::BackendInstance> openmpi = open_library("openmpi", false);
  static const std::unique_ptr<fprev::BackendInstance> mpich = open_library("mpich", false);
  const fprev::BackendInstance* instance = library == "openmpi" ? openmpi.get() : mpich.get();
  if (instance == nullptr) {
    state.SkipWithError((library + " is not available").c_str());
    return;
  }
  const fprev::Params resolved = fprev::resolve_params(instance->case_params(), c, "mpi bench");
  for (auto _ : state) benchmark::DoNotOptimize(instance->make_target(resolved).get());
}

// The shipped suite's Open MPI default cases (suites/mpi.yaml, backend openmpi): 29 cases over 7
// rank counts.
std::vector<fprev::Params> suite_cases() {
  std::vector<fprev::Params> cases;
  const auto add = [&](const std::string& op, int ranks, int count, const std::string& dtype = "float64") {
    fprev::Params c = collective(op, ranks, count);
    c["dtype"] = dtype;
    cases.push_back(std::move(c));
  };
  for (int ranks : {2, 3, 5, 8, 12, 16}) add("allreduce", ranks, 1);
  add("allreduce", 16, 4096);
  add("allreduce", 3, 4096);
  for (int ranks : {3, 5, 8, 12, 16})
    for (int count : {1, 4096}) add("reduce", ranks, count);
  for (int ranks : {3, 5, 12, 16})
    for (int count : {1, 64}) add("reduce_scatter_block", ranks, count);
  add("allreduce", 6, 64, "float32");
  add("reduce", 6, 64, "float32");
  add("allreduce", 8, 65536);
  return cases;
}

// Every case revealed on one instance opened per iteration, as a gate run opens it: with a job
// per launch, or a job per case.
void suite_run(benchmark::State& state, bool reuse_jobs) {
  const std::vector<fprev::Params> cases = suite_cases();
  std::size_t jobs = 0;
  for (auto _ : state) {
    const auto instance = open_library("openmpi", reuse_jobs);
    if (instance == nullptr) {
      state.SkipWithError("openmpi is not available (mpi backend not built or MPI missing)");
      return;
    }
    jobs = 0;
    for (const fprev::Params& c : cases) {
      const auto target =
          instance->make_target(fprev::resolve_params(instance->case_params(), c, "mpi bench"));
      jobs += target->info().jobs_started;
      fprev::RevealResult result = fprev::reveal(*target);
      benchmark::DoNotOptimize(result.map.classes);
    }
  }
  state.counters["cases"] = static_cast<double>(cases.size());
  state.counters["jobs"] = static_cast<double>(jobs);
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
BENCHMARK_CAPTURE(suite_run, openmpi_job_per_launch, true)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(suite_run, openmpi_job_per_case, false)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(start_job, openmpi_8, "openmpi", collective("allreduce", 8, 1))
    ->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(start_job, mpich_8, "mpich", collective("allreduce", 8, 1))
    ->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
