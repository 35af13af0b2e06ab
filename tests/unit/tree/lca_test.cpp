// l(i,j) = leaves under LCA(i, j): Tree::lca_leaf_count and LcaIndex against the definition and
// against the worked example of Xie et al., USENIX ATC 2025 (Table 1).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "fprev/sexpr.hpp"
#include "fprev/tree.hpp"
#include "random_trees.hpp"
#include "tree_test_helpers.hpp"

namespace fprev {
namespace {

using tree_tests::brute_l;
using tree_tests::brute_leaf_counts;

// Xie et al., USENIX ATC 2025 Algorithm 1: for (i = 0; i < n; i += 2) sum += a[i] + a[i+1]; with n = 8.
Tree paper_algorithm_1_tree() {
  TreeBuilder builder(8);
  NodeId sum = builder.add_node({0, 1});
  for (NodeId i = 2; i < 8; i += 2) sum = builder.add_node({sum, builder.add_node({i, i + 1})});
  return builder.build();
}

TEST(LeafCountOfLca, PaperTable1) {
  const Tree tree = paper_algorithm_1_tree();
  EXPECT_EQ(to_sexpr(tree), "((((0 1) (2 3)) (4 5)) (6 7))");
  struct Row {
    NodeId i, j;
    std::uint32_t l;
  };
  // Xie et al., USENIX ATC 2025 Table 1 (the l^{i,j} column).
  const Row table[] = {{0, 1, 2}, {0, 2, 4}, {0, 3, 4}, {0, 4, 6}, {0, 5, 6},
                       {0, 6, 8}, {0, 7, 8}, {2, 3, 2}, {2, 4, 6}};
  const LcaIndex index(tree);
  for (const Row& row : table) {
    EXPECT_EQ(tree.lca_leaf_count(row.i, row.j), row.l) << row.i << "," << row.j;
    EXPECT_EQ(tree.lca_leaf_count(row.j, row.i), row.l) << row.j << "," << row.i;
    EXPECT_EQ(index.leaf_count(row.i, row.j), row.l) << row.i << "," << row.j;
    EXPECT_EQ(index.leaf_count(row.j, row.i), row.l) << row.j << "," << row.i;
  }
}

void check_all_pairs(const Tree& tree) {
  const std::vector<std::uint32_t> counts = brute_leaf_counts(tree);
  const LcaIndex index(tree);
  const NodeId n = static_cast<NodeId>(tree.leaf_count());
  for (NodeId i = 0; i < n; ++i) {
    for (NodeId j = 0; j < n; ++j) {
      if (i == j) continue;
      const std::uint32_t expected = brute_l(tree, counts, i, j);
      ASSERT_EQ(tree.lca_leaf_count(i, j), expected) << to_sexpr(tree) << " l(" << i << "," << j << ")";
      ASSERT_EQ(index.leaf_count(i, j), expected) << to_sexpr(tree) << " l(" << i << "," << j << ")";
    }
  }
}

TEST(LeafCountOfLca, AllPairsOnSmallRandomTrees) {
  std::mt19937_64 rng(1);
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = 2 + rng() % 40;
    check_all_pairs(round % 2 == 0 ? random_binary_tree(n, rng) : random_multiway_tree(n, 5, rng));
  }
}

TEST(LeafCountOfLca, SampledPairsOnLargeRandomTrees) {
  std::mt19937_64 rng(2);
  for (int round = 0; round < 12; ++round) {
    const std::size_t n = 1000 + rng() % 3000;
    const Tree tree =
        round % 2 == 0 ? random_binary_tree(n, rng) : random_multiway_tree(n, 2 + rng() % 15, rng);
    const std::vector<std::uint32_t> counts = brute_leaf_counts(tree);
    const LcaIndex index(tree);
    std::uniform_int_distribution<NodeId> leaf(0, static_cast<NodeId>(n - 1));
    for (int k = 0; k < 2000; ++k) {
      const NodeId i = leaf(rng);
      const NodeId j = leaf(rng);
      if (i == j) continue;
      const std::uint32_t expected = brute_l(tree, counts, i, j);
      ASSERT_EQ(tree.lca_leaf_count(i, j), expected);
      ASSERT_EQ(index.leaf_count(i, j), expected);
    }
  }
}

TEST(LcaIndex, AgreesWithTreeLcaOnAllNodePairs) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 16; ++round) {
    // Up to ~260 nodes: several of the index's 64-position blocks, so whole blocks in between too.
    const std::size_t n = 2 + rng() % 130;
    const Tree tree = round % 3 == 0 ? random_multiway_tree(n, 4, rng) : random_binary_tree(n, rng);
    const LcaIndex index(tree);
    const NodeId count = static_cast<NodeId>(tree.node_count());
    for (NodeId a = 0; a < count; ++a) {
      for (NodeId b = 0; b < count; ++b) ASSERT_EQ(index.lca(a, b), tree.lca(a, b)) << a << "," << b;
    }
  }
}

TEST(LcaIndex, LcaIsAnAncestorOfBothAndNoChildOfItIs) {
  // From the definition, without Tree::lca.
  std::mt19937_64 rng(4);
  const Tree tree = random_multiway_tree(2000, 8, rng);
  const LcaIndex index(tree);
  auto is_ancestor = [&](NodeId above, NodeId v) {
    for (; v != kNoNode; v = tree.parent(v)) {
      if (v == above) return true;
    }
    return false;
  };
  std::uniform_int_distribution<NodeId> node(0, static_cast<NodeId>(tree.node_count() - 1));
  for (int k = 0; k < 3000; ++k) {
    const NodeId a = node(rng);
    const NodeId b = node(rng);
    const NodeId l = index.lca(a, b);
    ASSERT_TRUE(is_ancestor(l, a) && is_ancestor(l, b));
    for (NodeId child : tree.children(l)) ASSERT_FALSE(is_ancestor(child, a) && is_ancestor(child, b));
  }
}

TEST(LcaIndex, PreorderPositionsFollowCanonicalChildOrder) {
  const Tree tree = paper_algorithm_1_tree();  // ((((0 1) (2 3)) (4 5)) (6 7))
  const LcaIndex index(tree);
  std::vector<NodeId> leaves_by_position;
  for (NodeId leaf = 0; leaf < 8; ++leaf) {
    EXPECT_GT(index.preorder_position(leaf), index.preorder_position(tree.parent(leaf)));
  }
  for (NodeId leaf = 1; leaf < 8; ++leaf) {
    EXPECT_GT(index.preorder_position(leaf), index.preorder_position(leaf - 1));
  }
  EXPECT_EQ(index.preorder_position(tree.root()), 0u);
}

TEST(LcaIndex, SingleLeafAndBadIds) {
  const Tree single = TreeBuilder(1).build();
  const LcaIndex index(single);
  EXPECT_EQ(index.lca(0, 0), 0u);
  EXPECT_EQ(index.leaf_count(0, 0), 1u);
  EXPECT_THROW(index.lca(0, 1), std::out_of_range);
  EXPECT_THROW(single.lca(1, 0), std::out_of_range);
}

}  // namespace
}  // namespace fprev
