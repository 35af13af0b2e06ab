// Drawings that scale (fprev/drawing.hpp): what a picture of a large tree costs before Graphviz
// sees it. Counters: drawn (nodes handed to Graphviz), tree_nodes, dot_bytes.
//
//   build/bench/drawing_bench
//   build/bench/drawing_bench --benchmark_filter=pairwise
// Graphviz's own layout of the drawn nodes (at most kMaxDrawnNodes) comes on top: the e2e test and
// `fprev-golden show --format svg` measure that end to end.
#include <benchmark/benchmark.h>

#include "fprev/drawing.hpp"
#include "fprev/render.hpp"
#include "fprev/summary.hpp"

namespace {

enum class Shape { sequential, pairwise, lanes };

fprev::Tree make(Shape shape, std::size_t n) {
  switch (shape) {
    case Shape::sequential: return fprev::patterns::sequential(n);
    case Shape::pairwise: return fprev::patterns::pairwise(n);
    case Shape::lanes: return fprev::patterns::strided(n, 16, fprev::patterns::LaneCombine::pairwise);
  }
  return {};
}

void draw(benchmark::State& state, Shape shape) {
  const fprev::Tree tree = make(shape, static_cast<std::size_t>(state.range(0)));
  std::size_t drawn = 0, bytes = 0;
  for (auto _ : state) {
    const std::string dot = fprev::render_dot(tree);
    bytes = dot.size();
    benchmark::DoNotOptimize(dot.data());
  }
  drawn = fprev::draw_tree(tree).nodes.size();
  state.counters["drawn"] = static_cast<double>(drawn);
  state.counters["tree_nodes"] = static_cast<double>(tree.node_count());
  state.counters["dot_bytes"] = static_cast<double>(bytes);
}

void diff_picture(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const fprev::Tree old_tree = fprev::patterns::sequential(n);
  const fprev::Tree new_tree = fprev::patterns::strided(n, 2, fprev::patterns::LaneCombine::pairwise);
  for (auto _ : state) {
    const std::string dot = fprev::render_diff_dot(old_tree, new_tree);
    benchmark::DoNotOptimize(dot.data());
  }
}

}  // namespace

BENCHMARK_CAPTURE(draw, sequential, Shape::sequential)->Arg(4096)->Arg(16384)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(draw, pairwise, Shape::pairwise)->Arg(4096)->Arg(16384)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(draw, lanes16, Shape::lanes)->Arg(4096)->Arg(16384)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(diff_picture)->Arg(4096)->Arg(16384)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
