// What check pays for an unchanged golden: confirm() (the proof probes of the golden's tree, n - 1
// for a binary tree) against reveal() of the same target, on the reference backend. Counters:
// probes, target calls, random inputs; the reveal's counts are reported beside confirm's
// (reveal_probes, reveal_calls) and as probe_ratio = reveal probes / confirm probes.
//
// Confirm/lowrange/*: float32 sums whose output is float16, beyond its exact counting range (n >
// 2048), so confirm() proves the tree with restricted backgrounds, every node once per block of the
// leaves outside it. target_share is the part of confirm's time spent inside the target; the rest is
// the engine's (building the probes' active sets, decoding).
//
//   build/bench/confirm_bench --benchmark_filter='Confirm/dot/strided_pairwise/4096'
#include <benchmark/benchmark.h>

#include <optional>

#include "fprev/backends/reference.hpp"
#include "fprev/confirm.hpp"
#include "fprev/reveal.hpp"

namespace {

using fprev::reference::Order;

void run(benchmark::State& state, Order order, const std::string& op, std::size_t lanes, std::size_t width,
         std::optional<fprev::Format> output) {
  fprev::reference::ReferenceSpec spec;
  spec.output = output;
  spec.op = op;
  spec.order = order;
  spec.n = static_cast<std::size_t>(state.range(0));
  spec.lanes = lanes;
  spec.width = width;
  auto target = fprev::reference::make_reference_target(spec);
  const fprev::RevealResult revealed = fprev::reveal(*target);  // the golden, and a reveal's cost
  fprev::RevealStats stats;
  for (auto _ : state) {
    stats = fprev::confirm(*target, revealed.tree);
    benchmark::DoNotOptimize(stats.probes);
  }
  state.counters["probes"] = static_cast<double>(stats.probes);
  state.counters["target_calls"] = static_cast<double>(stats.target_calls);
  state.counters["random_inputs"] = static_cast<double>(stats.value_inputs);
  state.counters["reveal_probes"] = static_cast<double>(revealed.stats.probes);
  state.counters["reveal_calls"] = static_cast<double>(revealed.stats.target_calls);
  if (stats.total_seconds > 0.0) state.counters["target_share"] = stats.target_seconds / stats.total_seconds;
  state.counters["probe_ratio"] =
      stats.probes > 0 ? static_cast<double>(revealed.stats.probes) / static_cast<double>(stats.probes) : 0.0;
}

void register_all() {
  struct Shape {
    const char* name;
    Order order;
    std::size_t lanes, width;
  };
  const Shape shapes[] = {{"sequential", Order::sequential, 8, 5},
                          {"reverse", Order::reverse, 8, 5},
                          {"pairwise", Order::pairwise, 8, 5},
                          {"strided_pairwise", Order::strided_pairwise, 8, 5},
                          {"strided_pairwise16", Order::strided_pairwise, 16, 5},
                          {"strided_sequential", Order::strided_sequential, 8, 5},
                          {"random_tree", Order::random_tree, 8, 5},
                          {"fused9", Order::fused, 8, 9},
                          {"fused17", Order::fused, 8, 17}};
  for (const Shape& s : shapes) {
    for (const char* op : {"sum", "dot"}) {
      benchmark::RegisterBenchmark((std::string("Confirm/") + op + "/" + s.name).c_str(), run, s.order, op,
                                   s.lanes, s.width, std::nullopt)
          ->RangeMultiplier(4)
          ->Range(64, 4096)
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (const Shape& s : {shapes[0], shapes[2], shapes[4]})
    benchmark::RegisterBenchmark((std::string("Confirm/lowrange/") + s.name).c_str(), run, s.order, "sum", s.lanes,
                                 s.width, std::optional<fprev::Format>(fprev::Format::float16))
        ->Arg(3000)
        ->Arg(6000)
        ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
