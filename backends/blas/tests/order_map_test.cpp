// gemv and gemm are grid targets: every output element gets the order it follows. The toy BLAS
// (tests/toy/toy_blas.cpp) has an edge kernel like a real BLAS's 8 x 4 register tiles: whole tiles
// add sequentially, the last m mod 8 rows backwards, the last n mod 4 columns in two lanes, and the
// corner pairwise. The expected maps are built here from that description, independently of the
// engine, for every transposition, beta 0 and 1, and shapes from 1 x 1 up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "blas_test_support.hpp"
#include "fprev/confirm.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/order_map.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::blas {
namespace {

using testing::iota_order;
using testing::open_blas;
using testing::resolved;
using testing::sequential_tree;

enum class Kind { sequential, reversed, two_lanes, pairwise };

NodeId chain(TreeBuilder& builder, const std::vector<std::uint32_t>& leaves) {
  NodeId acc = leaves.front();
  for (std::size_t i = 1; i < leaves.size(); ++i) acc = builder.add_node({acc, leaves[i]});
  return acc;
}

NodeId halves(TreeBuilder& builder, std::uint32_t begin, std::uint32_t end) {
  if (end - begin == 1) return begin;
  const std::uint32_t middle = begin + (end - begin) / 2;
  const NodeId left = halves(builder, begin, middle);
  return builder.add_node({left, halves(builder, middle, end)});
}

// The toy's tree over k products, and the old C (leaf k) added last when beta = 1.
Tree toy_tree(Kind kind, std::size_t k, bool beta) {
  TreeBuilder builder(k + (beta ? 1 : 0));
  std::vector<std::uint32_t> order = iota_order(k);
  NodeId root = 0;
  switch (kind) {
    case Kind::sequential:
      root = chain(builder, order);
      break;
    case Kind::reversed:
      std::reverse(order.begin(), order.end());
      root = chain(builder, order);
      break;
    case Kind::two_lanes: {
      std::vector<std::uint32_t> even, odd;
      for (std::uint32_t l = 0; l < k; ++l) (l % 2 == 0 ? even : odd).push_back(l);
      root = chain(builder, even);
      if (!odd.empty()) root = builder.add_node({root, chain(builder, odd)});
      break;
    }
    case Kind::pairwise:
      root = halves(builder, 0, static_cast<std::uint32_t>(k));
      break;
  }
  if (beta) builder.add_node({root, static_cast<NodeId>(k)});
  return builder.build();
}

OrderMap expected_gemm(std::size_t m, std::size_t n, std::size_t k, bool beta) {
  std::vector<Tree> trees;
  for (Kind kind : {Kind::sequential, Kind::reversed, Kind::two_lanes, Kind::pairwise})
    trees.push_back(toy_tree(kind, k, beta));
  std::vector<std::size_t> element(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const bool edge_row = i >= m - m % 8, edge_column = j >= n - n % 4;
      element[i * n + j] = edge_row ? (edge_column ? 3 : 1) : (edge_column ? 2 : 0);
    }
  return map_of_elements({m, n}, element, std::move(trees));
}

OrderMap expected_gemv(std::size_t outputs, std::size_t reduction, bool beta) {
  std::vector<Tree> trees = {toy_tree(Kind::sequential, reduction, beta),
                             toy_tree(Kind::reversed, reduction, beta)};
  std::vector<std::size_t> element(outputs);
  for (std::size_t r = 0; r < outputs; ++r) element[r] = r >= outputs - outputs % 8 ? 1 : 0;
  return map_of_elements({outputs, 1}, element, std::move(trees));
}

std::string text(const OrderMap& map) {
  std::string out;
  for (const std::string& line : describe_map(map)) out += "\n  " + line;
  return out;
}

// Equal trees in two classes of the expected map (e.g. all four kinds coincide for k = 1) are
// one class in a revealed map.
std::size_t distinct_trees(const OrderMap& map) {
  std::vector<const Tree*> seen;
  for (const OrderClass& c : map.classes)
    if (std::none_of(seen.begin(), seen.end(), [&](const Tree* t) { return *t == c.tree; }))
      seen.push_back(&c.tree);
  return seen.size();
}

TEST(BlasOrderMap, ToyGemmEdgeKernelsGiveTheRightMap) {
  const auto toy = open_blas(testing::toy_library());
  struct Shape {
    std::size_t m, n, k;
  };
  for (const Shape& s : std::vector<Shape>{{20, 10, 9}, {13, 6, 5}, {16, 8, 7}, {3, 2, 4},
                                           {1, 1, 1}, {1, 5, 3}, {17, 1, 6}, {9, 5, 1}}) {
    for (const char* trans : {"NN", "NT", "TN", "TT"}) {
      for (int beta : {0, 1}) {
        const Params p = {{"op", "gemm"}, {"m", std::to_string(s.m)}, {"n", std::to_string(s.n)},
                          {"k", std::to_string(s.k)}, {"trans", trans}, {"beta", std::to_string(beta)}};
        const auto target = toy->make_target(resolved(*toy, p));
        const RevealResult result = reveal(*target);
        const OrderMap expected = expected_gemm(s.m, s.n, s.k, beta != 0);
        EXPECT_TRUE(same_orders(result.map, expected))
            << target->info().description << "\nrevealed:" << text(result.map)
            << "\nexpected:" << text(expected);
        EXPECT_EQ(result.map.classes.size(), distinct_trees(expected)) << target->info().description;
        EXPECT_EQ(result.tree.empty(), distinct_trees(expected) > 1);
      }
    }
  }
}

TEST(BlasOrderMap, ToyGemvEdgeRowsGiveTheRightMap) {
  const auto toy = open_blas(testing::toy_library());
  for (const auto& [m, n] : std::vector<std::pair<std::size_t, std::size_t>>{
           {19, 11}, {11, 19}, {8, 5}, {5, 3}, {1, 4}, {9, 1}}) {
    for (const char* trans : {"N", "T"}) {
      for (int beta : {0, 1}) {
        const Params p = {{"op", "gemv"}, {"m", std::to_string(m)}, {"n", std::to_string(n)},
                          {"trans", trans}, {"beta", std::to_string(beta)}};
        const auto target = toy->make_target(resolved(*toy, p));
        const RevealResult result = reveal(*target);
        const bool t = std::string(trans) == "T";
        const OrderMap expected = expected_gemv(t ? n : m, t ? m : n, beta != 0);
        EXPECT_TRUE(same_orders(result.map, expected))
            << target->info().description << "\nrevealed:" << text(result.map)
            << "\nexpected:" << text(expected);
      }
    }
  }
}

// The map's classes share calls: sgemm 20 x 10 x 9 with four classes (a 4 x 2 corner) costs a
// few dozen calls, not one reveal per element.
TEST(BlasOrderMap, ToyMapCostStaysNearOneReveal) {
  const auto toy = open_blas(testing::toy_library());
  const auto one = toy->make_target(resolved(*toy, {{"op", "gemm"}, {"m", "16"}, {"n", "8"}, {"k", "33"}}));
  const auto four = toy->make_target(resolved(*toy, {{"op", "gemm"}, {"m", "20"}, {"n", "10"}, {"k", "33"}}));
  const RevealResult a = reveal(*one), b = reveal(*four);
  ASSERT_EQ(a.map.classes.size(), 1u);
  ASSERT_EQ(b.map.classes.size(), 4u);
  EXPECT_EQ(b.stats.value_classes, 4u);  // random inputs already tell the four orders apart
  EXPECT_LE(b.stats.target_calls, 4 * a.stats.target_calls)
      << a.stats.target_calls << " calls for one class, " << b.stats.target_calls << " for four";
}

// Probes on every row (and column) of one call, over all pairs, on shapes that are whole register
// tiles: OpenBLAS's Sandybridge kernels follow one order in every element there. (Other families
// need not: the Haswell sgemm alternates two orders over its 8 x 6 tiles, see docs/order-maps.md.)
TEST(BlasOrderMap, OpenBlasWholeTilesAreOneClass) {
  const auto openblas = testing::open_openblas_family("Sandybridge");
  for (const Params& p : std::vector<Params>{
           {{"op", "gemm"}, {"m", "32"}, {"n", "16"}, {"k", "21"}},
           {{"op", "gemm"}, {"m", "32"}, {"n", "16"}, {"k", "21"}, {"trans", "TN"}, {"beta", "1"}},
           {{"op", "gemm"}, {"m", "32"}, {"n", "16"}, {"k", "21"}, {"dtype", "float64"}},
           {{"op", "gemv"}, {"m", "32"}, {"n", "24"}, {"trans", "T"}}}) {
    const auto target = openblas->make_target(resolved(*openblas, p));
    const RevealResult result = reveal(*target);
    EXPECT_TRUE(result.map.single_class()) << target->info().description << text(result.map);
  }
}

// The fingerprint of a GEMM in packed calls (src/engine/fingerprint_packing.hpp): the digest and
// facts the class's view gives, which every golden recorded, in as few calls as the grid's rows
// and columns allow (every input takes a row, or turned around a column), with the evidence of a
// reveal (`update`) and of a confirmation (`check`). OpenBLAS's products commute: no twin
// disagrees. sgemm 512^3 with the Sandybridge kernels: one class, 1248 inputs, 2 calls against 8
// (and the uniformity call after a confirmation; a reveal measured it).
TEST(BlasOrderMap, PackedFingerprintsAreTheViewsInAsFewCallsAsTheRowsAndColumnsAllow) {
  const auto openblas = testing::open_openblas_family("Sandybridge");
  const auto target =
      openblas->make_target(resolved(*openblas, {{"op", "gemm"}, {"m", "512"}, {"n", "512"}, {"k", "512"}}));
  const RevealResult revealed = reveal(*target);
  ASSERT_TRUE(revealed.map.single_class());
  FingerprintStats view_stats;
  const std::vector<Fingerprint> view = measure_map_fingerprints(*target, revealed.map, &view_stats);
  const RevealStats confirmed = confirm(*target, revealed.map);
  for (const RevealStats* evidence : {&revealed.stats, &confirmed}) {
    const char* what = evidence == &confirmed ? "confirmation" : "reveal";
    FingerprintStats stats;
    const std::vector<Fingerprint> packed = measure_map_fingerprints(*target, revealed.map, &stats, evidence);
    ASSERT_EQ(packed.size(), 1u);
    EXPECT_EQ(packed[0].digest(), view[0].digest()) << what;
    EXPECT_EQ(packed[0].facts, view[0].facts) << what;
    EXPECT_EQ(stats.inputs, view_stats.inputs);
    // A reveal's value partition measured the input comparing every element (one call of the
    // reveal's); a confirmation did not, so the fingerprint makes that call itself.
    EXPECT_EQ(stats.target_calls, (stats.inputs + 1023) / 1024 + (evidence == &confirmed ? 1 : 0))
        << "evidence of the " << what;
    EXPECT_FALSE(packed[0].facts.contains("uniformity")) << "every element computes alike";
    EXPECT_GT(stats.turned_inputs, 0u) << what;
    EXPECT_EQ(stats.read_again, 0u) << what;
    EXPECT_LT(stats.target_calls, view_stats.target_calls);
  }
}

}  // namespace
}  // namespace fprev::blas
