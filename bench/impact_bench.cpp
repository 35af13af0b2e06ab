// What the impact of a change costs (fprev/impact.hpp): tree_impact() of a sequential against a
// pairwise float32 sum, both trees simulated on the three input sets against the exact sum, with
// the default work bound (at most 100 inputs per set, at most 2^21 leaves per set and tree).
// check pays it only for a case that changed; docs/impact.md quotes the figure for 10^6 summands.
// Counters: inputs per set, leaves evaluated (both trees, all sets).
//
//   build/bench/impact_bench --benchmark_filter='Impact/1000000'
#include <benchmark/benchmark.h>

#include <vector>

#include "fprev/impact.hpp"

namespace {

fprev::Tree sequential(std::size_t n) {
  fprev::TreeBuilder builder(n);
  fprev::NodeId running = 0;
  for (std::size_t k = 1; k < n; ++k) running = builder.add_node({running, static_cast<fprev::NodeId>(k)});
  return builder.build();
}

fprev::Tree pairwise(std::size_t n) {
  fprev::TreeBuilder builder(n);
  std::vector<fprev::NodeId> level(n);
  for (std::size_t k = 0; k < n; ++k) level[k] = static_cast<fprev::NodeId>(k);
  while (level.size() > 1) {
    std::vector<fprev::NodeId> next;
    for (std::size_t k = 0; k + 1 < level.size(); k += 2) next.push_back(builder.add_node({level[k], level[k + 1]}));
    if (level.size() % 2 == 1) next.push_back(level.back());
    level = std::move(next);
  }
  return builder.build();
}

void impact(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const fprev::Tree old_tree = sequential(n), new_tree = pairwise(n);
  fprev::ImpactArithmetic arithmetic;
  arithmetic.traits.input = arithmetic.traits.accumulator = arithmetic.traits.output = fprev::Format::float32;
  for (auto _ : state) {
    fprev::TreeImpact result = fprev::tree_impact(old_tree, arithmetic, new_tree, arithmetic);
    benchmark::DoNotOptimize(result.suggested_tolerance);
  }
  const std::size_t rows = fprev::impact_rows(n, {});
  state.counters["inputs_per_set"] = static_cast<double>(rows);
  state.counters["leaves_evaluated"] = static_cast<double>(2 * 3 * rows * n);
}

BENCHMARK(impact)->Name("Impact")->Arg(1024)->Arg(65536)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
