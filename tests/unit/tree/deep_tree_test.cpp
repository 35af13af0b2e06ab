// Trees 10^6 levels deep (a sequential sum of 10^6 summands): building, printing, parsing and
// l(i,j) must all work without recursion. Expected texts and l values come from the shapes'
// definitions.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "fprev/sexpr.hpp"
#include "fprev/tree.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

constexpr std::size_t kMillion = 1000000;

TEST(DeepTree, LeftDeepMillion) {
  const std::size_t n = kMillion;
  const Tree tree = left_deep_tree(n);
  ASSERT_EQ(tree.leaf_count(), n);
  EXPECT_EQ(tree.depth(), n - 1);
  EXPECT_EQ(tree.node_depth(0), n - 1);
  EXPECT_EQ(tree.node_depth(1), n - 1);
  EXPECT_EQ(tree.node_depth(static_cast<NodeId>(n - 1)), 1u);
  EXPECT_EQ(tree.arity_histogram(), (std::map<std::size_t, std::size_t>{{2, n - 1}}));

  // ((((0 1) 2) 3) ... n-1)
  std::string expected(n - 1, '(');
  expected += '0';
  for (std::size_t k = 1; k < n; ++k) expected += ' ' + std::to_string(k) + ')';
  const std::string text = to_sexpr(tree);
  ASSERT_EQ(text, expected);
  ASSERT_TRUE(parse_sexpr(text) == tree);

  // Leaves 0..m are added first: l(i, j) = max(i, j) + 1.
  const LcaIndex index(tree);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<NodeId> leaf(0, static_cast<NodeId>(n - 1));
  for (int k = 0; k < 20000; ++k) {
    const NodeId i = leaf(rng);
    const NodeId j = leaf(rng);
    if (i == j) continue;
    ASSERT_EQ(index.leaf_count(i, j), std::max(i, j) + 1) << i << "," << j;
  }
  EXPECT_EQ(index.leaf_count(0, 1), 2u);
  EXPECT_EQ(index.leaf_count(0, static_cast<NodeId>(n - 1)), n);
  // The O(depth) walk, on the deepest pairs.
  EXPECT_EQ(tree.lca_leaf_count(0, 1), 2u);
  EXPECT_EQ(tree.lca_leaf_count(1, static_cast<NodeId>(n - 2)), n - 1);
  EXPECT_EQ(tree.lca_leaf_count(static_cast<NodeId>(n - 1), 0), n);
}

TEST(DeepTree, RightDeepMillion) {
  const std::size_t n = kMillion;
  const Tree tree = right_deep_tree(n);
  ASSERT_EQ(tree.leaf_count(), n);
  EXPECT_EQ(tree.depth(), n - 1);
  EXPECT_EQ(tree.node_depth(0), 1u);
  EXPECT_EQ(tree.node_depth(static_cast<NodeId>(n - 1)), n - 1);

  // (0 (1 (2 ... (n-2 n-1))))
  std::string expected;
  for (std::size_t k = 0; k + 1 < n; ++k) expected += '(' + std::to_string(k) + ' ';
  expected += std::to_string(n - 1);
  expected += std::string(n - 1, ')');
  const std::string text = to_sexpr(tree);
  ASSERT_EQ(text, expected);
  ASSERT_TRUE(parse_sexpr(text) == tree);

  // Leaves m..n-1 are added first: l(i, j) = n - min(i, j).
  const LcaIndex index(tree);
  std::mt19937_64 rng(6);
  std::uniform_int_distribution<NodeId> leaf(0, static_cast<NodeId>(n - 1));
  for (int k = 0; k < 20000; ++k) {
    const NodeId i = leaf(rng);
    const NodeId j = leaf(rng);
    if (i == j) continue;
    ASSERT_EQ(index.leaf_count(i, j), n - std::min(i, j)) << i << "," << j;
  }
  EXPECT_EQ(tree.lca_leaf_count(static_cast<NodeId>(n - 2), static_cast<NodeId>(n - 1)), 2u);
  EXPECT_EQ(tree.lca_leaf_count(static_cast<NodeId>(n - 1), 0), n);
}

TEST(DeepTree, BalancedMillion) {
  const std::size_t n = kMillion;
  const Tree tree = balanced_tree(n);
  EXPECT_EQ(tree.depth(), 20u);  // ceil(log2(10^6))
  EXPECT_TRUE(parse_sexpr(to_sexpr(tree)) == tree);
  const LcaIndex index(tree);
  // Leaves 2k and 2k+1 are paired first; 0..2^19-1 form the left half of the root.
  EXPECT_EQ(index.leaf_count(6, 7), 2u);
  EXPECT_EQ(index.leaf_count(0, 3), 4u);
  EXPECT_EQ(index.leaf_count(0, (1u << 19) - 1), 1u << 19);
  EXPECT_EQ(index.leaf_count(0, 1u << 19), n);
}

TEST(DeepTree, RandomChainsOfHundredThousand) {
  // A random tree with a long chain: canonical numbering and the text stay consistent.
  const Tree tree = random_multiway_tree(100000, 3, std::uint64_t{99});
  const std::string text = to_sexpr(tree);
  const Tree parsed = parse_sexpr(text);
  EXPECT_TRUE(parsed == tree);
  EXPECT_EQ(to_sexpr(parsed), text);
}

}  // namespace
}  // namespace fprev
