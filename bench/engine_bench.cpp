// The papers' evaluation on the reference backend (Xie et al., USENIX ATC 2025 Sec. 7): naive vs BasicFPRev vs
// FPRev over n, for several orders. Counters: probes, target calls, and the share of the wall time
// spent inside the target (the engine's overhead is the rest; for a sequential float32 sum of 16384
// summands the target must take at least 90%).
//
//   build/bench/engine_bench --benchmark_filter='FPRev/sequential/16384'
#include <benchmark/benchmark.h>

#include "fprev/backends/reference.hpp"
#include "fprev/reveal.hpp"

namespace {

using fprev::Algorithm;
using fprev::reference::Order;

void run(benchmark::State& state, Algorithm algorithm, Order order, const std::string& op) {
  fprev::reference::ReferenceSpec spec;
  spec.op = op;
  spec.order = order;
  spec.n = static_cast<std::size_t>(state.range(0));
  auto target = fprev::reference::make_reference_target(spec);
  fprev::RevealOptions options;
  options.algorithm = algorithm;
  fprev::RevealStats stats;
  for (auto _ : state) {
    const auto result = fprev::reveal(*target, options);
    stats = result.stats;
    benchmark::DoNotOptimize(result.tree.depth());
  }
  state.counters["probes"] = static_cast<double>(stats.probes);
  state.counters["target_calls"] = static_cast<double>(stats.target_calls);
  state.counters["target_share"] =
      stats.total_seconds > 0 ? stats.target_seconds / stats.total_seconds : 1.0;
  state.counters["target_s"] = stats.target_seconds;
}

void register_all() {
  const std::pair<const char*, Order> orders[] = {{"sequential", Order::sequential},
                                                   {"reverse", Order::reverse},
                                                   {"pairwise", Order::pairwise},
                                                   {"strided_pairwise", Order::strided_pairwise}};
  for (const auto& [name, order] : orders) {
    for (const char* op : {"sum", "dot"}) {
      const std::string suffix = std::string("/") + op + "/" + name;
      benchmark::RegisterBenchmark(("Naive" + suffix).c_str(), run, Algorithm::naive, order, op)
          ->DenseRange(4, 7, 1)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BasicFPRev" + suffix).c_str(), run, Algorithm::basic, order, op)
          ->RangeMultiplier(4)
          ->Range(16, 1024)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("FPRev" + suffix).c_str(), run, Algorithm::fprev, order, op)
          ->RangeMultiplier(4)
          ->Range(16, 16384)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
