// Drawings that scale (fprev/drawing.hpp): small trees node for node, large trees by their
// structure within the budget, and in every drawing each addition and each summand of the tree
// accounted for exactly once.
#include "fprev/drawing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

std::size_t count_kind(const Drawing& d, DrawnKind kind) {
  return static_cast<std::size_t>(
      std::count_if(d.nodes.begin(), d.nodes.end(), [&](const DrawnNode& n) { return n.kind == kind; }));
}

std::string label(const DrawnNode& node) {
  std::string text;
  for (const std::string& line : node.lines) text += line + "\n";
  return text;
}

// What every drawing must satisfy, whatever was collapsed: the nodes stand for disjoint parts of
// the tree that add up to all of it; every node but the root is consumed exactly once, by an
// addition or collapsed chain steps; the budget holds.
void expect_consistent(const Tree& tree, const Drawing& d, std::size_t budget) {
  EXPECT_LE(d.nodes.size(), std::min(budget, kMaxDrawnNodes));
  EXPECT_EQ(d.tree_nodes, tree.node_count());
  std::size_t additions = 0, summands = 0;
  for (const DrawnNode& node : d.nodes) {
    additions += node.additions;
    if (node.kind != DrawnKind::addition && node.kind != DrawnKind::chain_steps) summands += node.leaves;
    EXPECT_FALSE(node.lines.empty());
  }
  EXPECT_EQ(additions, tree.inner_count());
  EXPECT_EQ(summands, tree.leaf_count());
  std::vector<std::size_t> consumed(d.nodes.size(), 0), operands(d.nodes.size(), 0);
  for (const DrawnEdge& edge : d.edges) {
    ASSERT_LT(edge.from, d.nodes.size());
    ASSERT_LT(edge.to, d.nodes.size());
    ++consumed[edge.from];
    operands[edge.to] += edge.count;
    const DrawnKind to = d.nodes[edge.to].kind;
    EXPECT_TRUE(to == DrawnKind::addition || to == DrawnKind::chain_steps) << to_string(to);
  }
  for (std::size_t i = 0; i < d.nodes.size(); ++i) {
    EXPECT_EQ(consumed[i], i == d.root ? 0u : 1u) << "node " << i << ": " << label(d.nodes[i]);
    // A drawn addition has exactly its tree node's operands.
    if (d.nodes[i].kind == DrawnKind::addition) {
      EXPECT_EQ(operands[i], tree.children(d.nodes[i].node).size()) << label(d.nodes[i]);
    }
  }
  EXPECT_EQ(d.complete, d.nodes.size() == tree.node_count());
}

TEST(Drawing, ASmallTreeIsDrawnNodeForNodeWithEdgesFromOperandToSum) {
  const Tree tree = parse_sexpr("((0 1) 2 (3 4))");  // a fused 3-term root
  const Drawing d = draw_tree(tree);
  expect_consistent(tree, d, kDefaultDrawnNodes);
  EXPECT_TRUE(d.complete);
  EXPECT_EQ(d.note, "every node drawn");
  ASSERT_EQ(d.nodes.size(), 8u);
  for (NodeId leaf = 0; leaf < 5; ++leaf) EXPECT_EQ(d.nodes[leaf].lines, std::vector<std::string>{"x" + std::to_string(leaf)});
  EXPECT_EQ(d.nodes[d.root].lines, std::vector<std::string>{"+ fused 3"});
  EXPECT_EQ(d.nodes[d.root].width, 3u);
  // Operands in order: (0 1) first, then x2, then (3 4); each edge points into its sum.
  std::vector<std::size_t> into_root;
  for (const DrawnEdge& e : d.edges)
    if (e.to == d.root) into_root.push_back(e.from);
  ASSERT_EQ(into_root.size(), 3u);
  EXPECT_EQ(d.nodes[into_root[0]].lines, std::vector<std::string>{"+"});
  EXPECT_EQ(d.nodes[into_root[0]].leaves, 2u);
  EXPECT_EQ(into_root[1], 2u);
  EXPECT_EQ(tree.smallest_leaf(d.nodes[into_root[2]].node), 3u);
}

TEST(Drawing, ASingleLeafAndTheEmptyTree) {
  TreeBuilder one(1);
  const Drawing d = draw_tree(one.build());
  ASSERT_EQ(d.nodes.size(), 1u);
  EXPECT_EQ(d.nodes[0].lines, std::vector<std::string>{"x0"});
  EXPECT_THROW(draw_tree(Tree()), std::invalid_argument);
}

TEST(Drawing, ALongSequentialSumShowsItsEndsAndCountsTheMiddle) {
  const Tree tree = patterns::sequential(4096);
  const Drawing d = draw_tree(tree);
  expect_consistent(tree, d, kDefaultDrawnNodes);
  EXPECT_FALSE(d.complete);
  // Steps 1, 2 and 4095 drawn (x0 + x1, + x2, ..., + x4095), the 4092 between as one node fed by
  // one node of the 4092 summands x3 .. x4094.
  EXPECT_EQ(count_kind(d, DrawnKind::addition), 3u);
  ASSERT_EQ(count_kind(d, DrawnKind::chain_steps), 1u);
  ASSERT_EQ(count_kind(d, DrawnKind::leaves), 1u);
  for (const DrawnNode& node : d.nodes) {
    if (node.kind == DrawnKind::chain_steps) {
      EXPECT_EQ(node.additions, 4092u);
    }
    if (node.kind == DrawnKind::leaves) {
      EXPECT_EQ(node.leaves, 4092u);
      EXPECT_EQ(node.lines.front(), "x3, x4, …, x4094");
    }
  }
  std::vector<std::string> leaves;
  for (const DrawnNode& node : d.nodes)
    if (node.kind == DrawnKind::leaf) leaves.push_back(node.lines.front());
  std::sort(leaves.begin(), leaves.end());
  EXPECT_EQ(leaves, (std::vector<std::string>{"x0", "x1", "x2", "x4095"}));
  EXPECT_NE(d.note.find("4092 additions in collapsed chain steps"), std::string::npos) << d.note;
}

TEST(Drawing, APairwiseSumIsDrawnOnceAndItsHalvesAsShiftedCopies) {
  const Tree tree = patterns::pairwise(4096);
  const Drawing d = draw_tree(tree);
  expect_consistent(tree, d, kDefaultDrawnNodes);
  // One addition per level (12), the right half of each as a copy of the left (11; the lowest
  // level adds x0 and x1).
  EXPECT_EQ(count_kind(d, DrawnKind::addition), 12u);
  EXPECT_EQ(count_kind(d, DrawnKind::copies), 11u);
  EXPECT_EQ(count_kind(d, DrawnKind::leaf), 2u);
  bool top_copy = false;
  for (const DrawnNode& node : d.nodes)
    if (node.kind == DrawnKind::copies && node.leaves == 2048) {
      top_copy = true;
      EXPECT_EQ(node.lines, (std::vector<std::string>{"{2048..4095}", "same shape as {0..2047}", "shifted by 2048"}));
    }
  EXPECT_TRUE(top_copy);
}

TEST(Drawing, LanesAreDrawnOnceWithTheirCopiesCounted) {
  // 8 lanes, each a sequential chain, combined sequentially: the root chain's operands are the
  // lanes; lane 0 is opened, lanes 1..7 are copies of it.
  const Tree tree = patterns::strided(1024, 8, patterns::LaneCombine::sequential);
  const Drawing d = draw_tree(tree);
  expect_consistent(tree, d, kDefaultDrawnNodes);
  std::size_t copied_lanes = 0;
  bool middle_lanes = false;
  for (const DrawnNode& node : d.nodes) {
    if (node.kind != DrawnKind::copies) continue;
    copied_lanes += node.leaves / 128;
    // The root chain's middle steps add lanes 3..6: lane 0 shifted by 3, 4, 5 and 6.
    if (node.leaves == 4 * 128) {
      middle_lanes = true;
      EXPECT_EQ(node.lines, (std::vector<std::string>{"4 subtrees {3,11..1019}, …, {6,14..1022}",
                                                      "same shape as {0,8..1016}", "shifted by 3, 4, …, 6"}));
    }
  }
  EXPECT_EQ(copied_lanes, 7u);
  EXPECT_TRUE(middle_lanes);
}

TEST(Drawing, FusedSumsAreMarkedAsSuch) {
  const Tree tree = patterns::fused_groups(257, 5);
  const Drawing d = draw_tree(tree);
  expect_consistent(tree, d, kDefaultDrawnNodes);
  bool fused_addition = false, fused_steps = false;
  for (const DrawnNode& node : d.nodes) {
    if (node.kind == DrawnKind::addition && node.width == 5) fused_addition = node.lines.front() == "+ fused 5";
    if (node.kind == DrawnKind::chain_steps) fused_steps = label(node).find("fused 5-term sums") != std::string::npos;
  }
  EXPECT_TRUE(fused_addition);
  EXPECT_TRUE(fused_steps);
}

TEST(Drawing, TheBudgetHoldsForEveryTreeAndEveryBudget) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const Tree tree = seed % 2 ? random_binary_tree(300 * seed, seed) : random_multiway_tree(300 * seed, 6, seed);
    for (std::size_t budget : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{40}, kDefaultDrawnNodes}) {
      DrawingOptions options;
      options.max_nodes = budget;
      SCOPED_TRACE("seed " + std::to_string(seed) + ", budget " + std::to_string(budget));
      expect_consistent(tree, draw_tree(tree, options), budget);
    }
  }
}

TEST(Drawing, NoBudgetPassesTheFixedLimit) {
  const Tree tree = random_binary_tree(5000, std::uint64_t{3});
  DrawingOptions options;
  options.max_nodes = 1000000;
  const Drawing d = draw_tree(tree, options);
  expect_consistent(tree, d, kMaxDrawnNodes);
  EXPECT_FALSE(d.complete);
  options.max_nodes = 0;  // clamped to 1: the whole tree as one collapsed subtree
  const Drawing one = draw_tree(tree, options);
  ASSERT_EQ(one.nodes.size(), 1u);
  EXPECT_EQ(one.nodes[0].kind, DrawnKind::subtree);
  EXPECT_EQ(one.nodes[0].lines.front(), "{0..4999}");
}

TEST(Drawing, AMillionLeavesStayWithinTheBudget) {
  for (const Tree& tree : {patterns::sequential(1000000), patterns::pairwise(1000000),
                           patterns::strided(1000000, 16, patterns::LaneCombine::pairwise)}) {
    const Drawing d = draw_tree(tree);
    expect_consistent(tree, d, kDefaultDrawnNodes);
  }
}

TEST(Drawing, MarkedStepsInsideALongChainAreShown) {
  const Tree tree = patterns::sequential(4096);
  DrawingOptions options;
  options.marked.assign(tree.node_count(), false);
  // The steps adding x2000 and x2001 (inner node ids: the step adding x_k is n + k - 1).
  const NodeId a = static_cast<NodeId>(4096 + 2000 - 1), b = a + 1;
  ASSERT_EQ(tree.children(a)[1], 2000u);
  options.marked[a] = options.marked[b] = true;
  const Drawing d = draw_tree(tree, options);
  expect_consistent(tree, d, kDefaultDrawnNodes);
  std::size_t marked_additions = 0, marked_total = 0;
  for (const DrawnNode& node : d.nodes) {
    if (node.kind == DrawnKind::addition && node.marked == 1) {
      ++marked_additions;
      EXPECT_TRUE(node.node == a || node.node == b);
    }
    marked_total += node.marked;
  }
  EXPECT_EQ(marked_additions, 2u);
  EXPECT_EQ(marked_total, 2u);
}

TEST(Drawing, AMarkedSubtreeIsOpenedEvenWhereItsShapeWasDrawnBefore) {
  // Pairwise: the right half is a copy of the left, unless the right half holds marks the left
  // does not.
  const Tree tree = patterns::pairwise(64);
  DrawingOptions options;
  options.max_nodes = 40;
  options.marked.assign(tree.node_count(), false);
  const NodeId deep_right = tree.parent(63);  // (62 63)
  options.marked[deep_right] = true;
  const Drawing d = draw_tree(tree, options);
  expect_consistent(tree, d, 40);
  bool drawn = false;
  for (const DrawnNode& node : d.nodes) drawn = drawn || (node.kind == DrawnKind::addition && node.node == deep_right);
  EXPECT_TRUE(drawn);
}

TEST(Drawing, RejectsFlagsOfTheWrongSize) {
  DrawingOptions options;
  options.marked.assign(3, false);
  EXPECT_THROW(draw_tree(parse_sexpr("((0 1) 2)"), options), std::invalid_argument);
}

TEST(Drawing, IsDeterministic) {
  const Tree tree = random_multiway_tree(3000, 5, std::uint64_t{9});
  const Drawing a = draw_tree(tree), b = draw_tree(parse_sexpr(to_sexpr(tree)));
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) EXPECT_EQ(a.nodes[i].lines, b.nodes[i].lines);
  EXPECT_EQ(a.note, b.note);
}

}  // namespace
}  // namespace fprev
