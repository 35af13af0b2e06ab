// TreeBuilder validation and canonical form; Tree's basic queries on small hand-made trees.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "fprev/sexpr.hpp"
#include "fprev/tree.hpp"
#include "random_trees.hpp"
#include "tree_test_helpers.hpp"

namespace fprev {
namespace {

using tree_tests::brute_leaf_counts;
using tree_tests::expect_throw_with;

TEST(TreeBuilder, SingleLeafIsItsOwnRoot) {
  const Tree tree = TreeBuilder(1).build();
  EXPECT_EQ(tree.leaf_count(), 1u);
  EXPECT_EQ(tree.node_count(), 1u);
  EXPECT_EQ(tree.inner_count(), 0u);
  EXPECT_EQ(tree.root(), 0u);
  EXPECT_TRUE(tree.is_leaf(tree.root()));
  EXPECT_EQ(tree.parent(0), kNoNode);
  EXPECT_TRUE(tree.children(0).empty());
  EXPECT_EQ(tree.leaves_under(0), 1u);
  EXPECT_EQ(tree.depth(), 0u);
  EXPECT_EQ(tree.max_arity(), 0u);
  EXPECT_TRUE(tree.arity_histogram().empty());
  EXPECT_EQ(tree.lca(0, 0), 0u);
  EXPECT_EQ(to_sexpr(tree), "0");
}

TEST(TreeBuilder, EmptyTreeDefault) {
  const Tree tree;
  EXPECT_TRUE(tree.empty());
  EXPECT_EQ(tree.root(), kNoNode);
  EXPECT_EQ(tree.node_count(), 0u);
  EXPECT_EQ(to_sexpr(tree), "");
}

TEST(TreeBuilder, TwoPairsNumberedInPostOrder) {
  // ((0 1) (2 3)) built right pair first, children listed backwards.
  TreeBuilder builder(4);
  const NodeId right = builder.add_node({3, 2});
  const NodeId left = builder.add_node({1, 0});
  builder.add_node({right, left});
  const Tree tree = builder.build();
  ASSERT_EQ(tree.node_count(), 7u);
  // Post-order with children by smallest leaf: (0 1) is node 4, (2 3) node 5, the root node 6.
  EXPECT_EQ(tree.root(), 6u);
  EXPECT_EQ(tree.parent(0), 4u);
  EXPECT_EQ(tree.parent(1), 4u);
  EXPECT_EQ(tree.parent(2), 5u);
  EXPECT_EQ(tree.parent(3), 5u);
  EXPECT_EQ(tree.parent(4), 6u);
  EXPECT_EQ(tree.parent(5), 6u);
  EXPECT_EQ(tree.parent(6), kNoNode);
  EXPECT_EQ(std::vector<NodeId>(tree.children(6).begin(), tree.children(6).end()),
            (std::vector<NodeId>{4, 5}));
  EXPECT_EQ(std::vector<NodeId>(tree.children(5).begin(), tree.children(5).end()),
            (std::vector<NodeId>{2, 3}));
  EXPECT_EQ(tree.smallest_leaf(5), 2u);
  EXPECT_EQ(tree.smallest_leaf(6), 0u);
  EXPECT_EQ(tree.leaves_under(5), 2u);
  EXPECT_EQ(tree.leaves_under(6), 4u);
  EXPECT_EQ(tree.depth(), 2u);
  EXPECT_EQ(tree.node_depth(6), 0u);
  EXPECT_EQ(tree.node_depth(5), 1u);
  EXPECT_EQ(tree.node_depth(3), 2u);
  EXPECT_EQ(to_sexpr(tree), "((0 1) (2 3))");
}

TEST(TreeBuilder, InterleavedLeavesOrderChildrenBySmallestLeaf) {
  // (0 2) and (1 3): the part holding leaf 0 comes first, and inner ids follow that order.
  TreeBuilder builder(4);
  const NodeId odd = builder.add_node({3, 1});
  const NodeId even = builder.add_node({2, 0});
  builder.add_node({odd, even});
  const Tree tree = builder.build();
  EXPECT_EQ(to_sexpr(tree), "((0 2) (1 3))");
  EXPECT_EQ(tree.parent(0), 4u);
  EXPECT_EQ(tree.parent(1), 5u);
}

TEST(TreeBuilder, SameOrderBuiltDifferentlyComparesEqual) {
  TreeBuilder a(6);
  const NodeId a01 = a.add_node({0, 1});
  const NodeId a23 = a.add_node({2, 3});
  const NodeId a45 = a.add_node({4, 5});
  a.add_node({a01, a23, a45});

  TreeBuilder b(6);
  const NodeId b45 = b.add_node({5, 4});
  const NodeId b23 = b.add_node({3, 2});
  const NodeId top = b.add_node({b45, b23});  // grown to three children below
  const NodeId b01 = b.add_node({1, 0});
  b.add_child(top, b01);

  const Tree ta = a.build();
  const Tree tb = b.build();
  EXPECT_TRUE(ta == tb);
  EXPECT_EQ(to_sexpr(ta), "((0 1) (2 3) (4 5))");
  EXPECT_EQ(to_sexpr(tb), "((0 1) (2 3) (4 5))");
}

TEST(TreeBuilder, DifferentOrdersCompareUnequal) {
  TreeBuilder left(3);
  left.add_node({left.add_node({0, 1}), 2});
  TreeBuilder right(3);
  right.add_node({0, right.add_node({1, 2})});
  TreeBuilder fused(3);
  fused.add_node({0, 1, 2});
  TreeBuilder other(3);
  other.add_node({other.add_node({0, 2}), 1});
  const std::vector<Tree> trees{left.build(), right.build(), fused.build(), other.build()};
  for (std::size_t a = 0; a < trees.size(); ++a) {
    for (std::size_t b = 0; b < trees.size(); ++b) EXPECT_EQ(trees[a] == trees[b], a == b);
  }
  TreeBuilder pair(2);
  pair.add_node({0, 1});
  EXPECT_FALSE(TreeBuilder(1).build() == pair.build());
}

// Rebuilds `tree` from scratch in a random order: random ready nodes first, shuffled child lists,
// and sometimes a node made of two children grown with add_child.
Tree rebuild_shuffled(const Tree& tree, std::mt19937_64& rng) {
  const std::size_t n = tree.leaf_count();
  TreeBuilder builder(n);
  std::vector<NodeId> builder_id(tree.node_count(), kNoNode);
  for (NodeId leaf = 0; leaf < n; ++leaf) builder_id[leaf] = leaf;
  std::vector<std::size_t> missing(tree.node_count(), 0);
  std::vector<NodeId> ready;
  for (std::size_t v = n; v < tree.node_count(); ++v) {
    const NodeId node = static_cast<NodeId>(v);
    for (NodeId child : tree.children(node)) missing[v] += tree.is_leaf(child) ? 0 : 1;
    if (missing[v] == 0) ready.push_back(node);
  }
  while (!ready.empty()) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng);
    const NodeId node = ready[at];
    ready[at] = ready.back();
    ready.pop_back();
    std::vector<NodeId> kids;
    for (NodeId child : tree.children(node)) kids.push_back(builder_id[child]);
    std::shuffle(kids.begin(), kids.end(), rng);
    if (kids.size() > 2 && rng() % 2 == 0) {
      const NodeId made = builder.add_node({kids[0], kids[1]});
      for (std::size_t k = 2; k < kids.size(); ++k) builder.add_child(made, kids[k]);
      builder_id[node] = made;
    } else {
      builder_id[node] = builder.add_node(kids);
    }
    const NodeId up = tree.parent(node);
    if (up != kNoNode && --missing[up] == 0) ready.push_back(up);
  }
  return builder.build();
}

// Rebuilds `tree` creating each inner node as soon as two of its children exist and attaching the
// later ones with add_child, so children often get larger builder ids than their parent.
Tree rebuild_parents_early(const Tree& tree, std::mt19937_64& rng) {
  const std::size_t n = tree.leaf_count();
  TreeBuilder builder(n);
  std::vector<NodeId> created(tree.node_count(), kNoNode);
  std::vector<std::vector<NodeId>> waiting(tree.node_count());  // builder ids of existing children
  std::vector<NodeId> events;  // leaves to announce and inner nodes ready to create
  for (NodeId leaf = 0; leaf < n; ++leaf) events.push_back(leaf);
  auto announce = [&](NodeId node, NodeId made) {
    const NodeId up = tree.parent(node);
    if (up == kNoNode) return;
    if (created[up] != kNoNode) {
      builder.add_child(created[up], made);
      return;
    }
    waiting[up].push_back(made);
    if (waiting[up].size() == 2) events.push_back(up);
  };
  while (!events.empty()) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, events.size() - 1)(rng);
    const NodeId node = events[at];
    events[at] = events.back();
    events.pop_back();
    if (tree.is_leaf(node)) {
      created[node] = node;
    } else {
      created[node] = builder.add_node(waiting[node]);
      waiting[node].clear();
    }
    announce(node, created[node]);
  }
  return builder.build();
}

TEST(TreeBuilder, RebuildsWithLateChildrenAreCanonicallyEqual) {
  std::mt19937_64 rng(43);
  for (int round = 0; round < 60; ++round) {
    const std::size_t n = 1 + rng() % 300;
    const Tree tree = round % 2 == 0 ? random_binary_tree(n, rng) : random_multiway_tree(n, 6, rng);
    const Tree again = rebuild_parents_early(tree, rng);
    EXPECT_TRUE(again == tree) << to_sexpr(tree) << "\nvs\n" << to_sexpr(again);
  }
}

TEST(TreeBuilder, RandomRebuildsAreCanonicallyEqual) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 60; ++round) {
    const std::size_t n = 1 + rng() % 300;
    const Tree tree = round % 2 == 0 ? random_binary_tree(n, rng) : random_multiway_tree(n, 6, rng);
    const Tree again = rebuild_shuffled(tree, rng);
    EXPECT_TRUE(again == tree) << to_sexpr(tree) << "\nvs\n" << to_sexpr(again);
    EXPECT_EQ(to_sexpr(again), to_sexpr(tree));
  }
}

// The canonical invariants, checked from the definition on random trees.
TEST(TreeBuilder, CanonicalInvariantsHoldOnRandomTrees) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const std::size_t n = 1 + rng() % 500;
    const Tree tree = round % 2 == 0 ? random_binary_tree(n, rng) : random_multiway_tree(n, 5, rng);
    ASSERT_EQ(tree.leaf_count(), n);
    const std::vector<std::uint32_t> counts = brute_leaf_counts(tree);
    std::size_t deepest = 0;
    for (NodeId leaf = 0; leaf < n; ++leaf) {
      std::size_t depth = 0;
      for (NodeId v = leaf; tree.parent(v) != kNoNode; v = tree.parent(v)) ++depth;
      EXPECT_EQ(tree.node_depth(leaf), depth);
      deepest = std::max(deepest, depth);
    }
    EXPECT_EQ(tree.depth(), deepest);
    EXPECT_EQ(tree.parent(tree.root()), kNoNode);
    EXPECT_EQ(counts[tree.root()], n);
    std::size_t edges = 0;
    for (std::size_t v = 0; v < tree.node_count(); ++v) {
      const NodeId node = static_cast<NodeId>(v);
      EXPECT_EQ(tree.leaves_under(node), counts[v]);
      if (node != tree.root()) {
        EXPECT_GT(tree.parent(node), node);  // post-order: a parent comes after its children
      }
      const auto kids = tree.children(node);
      edges += kids.size();
      if (tree.is_leaf(node)) continue;
      EXPECT_GE(kids.size(), 2u);
      for (std::size_t k = 0; k < kids.size(); ++k) {
        EXPECT_EQ(tree.parent(kids[k]), node);
        if (k > 0) {
          EXPECT_LT(tree.smallest_leaf(kids[k - 1]), tree.smallest_leaf(kids[k]));
        }
      }
      // Post-order: an inner last child is the inner node finished right before its parent.
      if (!tree.is_leaf(kids.back())) {
        EXPECT_EQ(kids.back() + 1, node);
      }
    }
    EXPECT_EQ(edges, tree.node_count() - 1);
  }
}

TEST(TreeBuilder, ArityHistogramAndDepth) {
  TreeBuilder builder(6);
  const NodeId fused = builder.add_node({0, 1, 2, 3});
  builder.add_node({fused, 4, 5});
  const Tree tree = builder.build();
  EXPECT_EQ(to_sexpr(tree), "((0 1 2 3) 4 5)");
  EXPECT_EQ(tree.arity_histogram(), (std::map<std::size_t, std::size_t>{{3, 1}, {4, 1}}));
  EXPECT_EQ(tree.max_arity(), 4u);
  EXPECT_EQ(tree.depth(), 2u);
  EXPECT_EQ(tree.inner_count(), 2u);
  EXPECT_EQ(tree.leaves_under(tree.root()), 6u);
}

TEST(TreeBuilder, BuilderTracksLeafCountsThroughAddChild) {
  TreeBuilder builder(5);
  const NodeId low = builder.add_node({0, 1});
  EXPECT_EQ(builder.leaves_under(low), 2u);
  const NodeId top = builder.add_node({low, 2});
  EXPECT_EQ(builder.leaves_under(top), 3u);
  builder.add_child(low, 3);  // grows a node that already has a parent
  EXPECT_EQ(builder.leaves_under(low), 3u);
  EXPECT_EQ(builder.leaves_under(top), 4u);
  EXPECT_TRUE(builder.has_parent(3));
  EXPECT_FALSE(builder.has_parent(4));
  builder.add_child(top, 4);
  EXPECT_EQ(to_sexpr(builder.build()), "((0 1 3) 2 4)");
}

TEST(TreeBuilderErrors, AddNodeRejectsUnknownChild) {
  TreeBuilder builder(3);
  expect_throw_with<TreeError>([&] { builder.add_node({0, 3}); }, "child 3 does not exist");
  EXPECT_FALSE(builder.has_parent(0));  // nothing was attached by the failed call
}

TEST(TreeBuilderErrors, AddNodeRejectsChildWithParent) {
  TreeBuilder builder(3);
  builder.add_node({0, 1});
  expect_throw_with<TreeError>([&] { builder.add_node({2, 1}); }, "leaf 1 already has the parent");
  EXPECT_FALSE(builder.has_parent(2));
}

TEST(TreeBuilderErrors, AddNodeRejectsDuplicateChild) {
  TreeBuilder builder(3);
  expect_throw_with<TreeError>([&] { builder.add_node({2, 0, 2}); }, "leaf 2 is listed twice");
  EXPECT_FALSE(builder.has_parent(2));
  EXPECT_FALSE(builder.has_parent(0));
}

TEST(TreeBuilderErrors, AddChildRejectsBadParentOrChild) {
  TreeBuilder builder(4);
  const NodeId pair = builder.add_node({0, 1});
  expect_throw_with<TreeError>([&] { builder.add_child(2, 3); }, "must be an existing inner node");
  expect_throw_with<TreeError>([&] { builder.add_child(9, 3); }, "must be an existing inner node");
  expect_throw_with<TreeError>([&] { builder.add_child(pair, 7); }, "child 7 does not exist");
  expect_throw_with<TreeError>([&] { builder.add_child(pair, 0); }, "already has the parent");
  expect_throw_with<TreeError>([&] { builder.add_child(pair, pair); }, "cycle");
}

TEST(TreeBuilderErrors, AddChildRejectsCycle) {
  TreeBuilder builder(3);
  const NodeId low = builder.add_node({0, 1});
  const NodeId top = builder.add_node({low, 2});
  expect_throw_with<TreeError>([&] { builder.add_child(low, top); }, "would create a cycle");
  EXPECT_FALSE(builder.has_parent(top));
  EXPECT_EQ(to_sexpr(builder.build()), "((0 1) 2)");
}

TEST(TreeBuilderErrors, BuildRejectsNodeWithOneChild) {
  TreeBuilder builder(2);
  const NodeId single = builder.add_node({0});
  builder.add_node({single, 1});
  expect_throw_with<TreeError>([&] { builder.build(); }, "inner node 2 has 1 child");
}

TEST(TreeBuilderErrors, BuildRejectsNodeWithoutChildren) {
  TreeBuilder builder(2);
  builder.add_node({0, 1});
  builder.add_node(std::span<const NodeId>{});
  expect_throw_with<TreeError>([&] { builder.build(); }, "inner node 3 has 0 children");
}

TEST(TreeBuilderErrors, BuildRejectsSeveralRoots) {
  TreeBuilder builder(4);
  builder.add_node({0, 1});
  expect_throw_with<TreeError>([&] { builder.build(); }, "3 nodes have no parent (leaf 2, leaf 3");
  EXPECT_THROW(TreeBuilder(2).build(), TreeError);  // two leaves, nothing adds them
}

TEST(TreeBuilderErrors, BuildRejectsNoLeaves) {
  expect_throw_with<TreeError>([] { TreeBuilder(0).build(); }, "at least one leaf");
}

}  // namespace
}  // namespace fprev
