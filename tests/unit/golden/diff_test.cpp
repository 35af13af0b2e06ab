#include <gtest/gtest.h>

#include <set>
#include <string>

#include "fprev/diff.hpp"
#include "fprev/sexpr.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

TreeDiff diff(const char* old_text, const char* new_text) {
  return diff_trees(parse_sexpr(old_text), parse_sexpr(new_text));
}

TEST(Diff, EqualTrees) {
  const Tree tree = random_multiway_tree(300, 5, std::uint64_t{9});
  const TreeDiff d = diff_trees(tree, tree);
  EXPECT_TRUE(d.comparable);
  EXPECT_TRUE(d.equal);
  EXPECT_EQ(d.agreeing_inner_nodes, tree.inner_count());
  EXPECT_EQ(d.difference_count, 0u);
  EXPECT_TRUE(d.differences.empty());
  EXPECT_NE(render_diff_text(d).find("the trees are identical\n"), std::string::npos);
}

TEST(Diff, CrossedPairs) {
  // Clusters {0,1} {2,3} {0..3} against {0,2} {1,3} {0..3}: only the root's leaf set is shared.
  const TreeDiff d = diff("((0 1) (2 3))", "((0 2) (1 3))");
  EXPECT_FALSE(d.equal);
  EXPECT_EQ(d.agreeing_inner_nodes, 1u);
  EXPECT_EQ(d.old_inner, 3u);
  EXPECT_EQ(d.new_inner, 3u);
  ASSERT_EQ(d.difference_count, 1u);
  ASSERT_EQ(d.differences.size(), 1u);
  EXPECT_EQ(d.differences[0].leaves, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(d.differences[0].leaves_text, "{0..3}");
  EXPECT_EQ(d.differences[0].old_sexpr, "((0 1) (2 3))");
  EXPECT_EQ(d.differences[0].new_sexpr, "((0 2) (1 3))");
  EXPECT_FALSE(d.condensed);
}

TEST(Diff, LocalChangeIsTheSmallestRegion) {
  // Shared: {0,1} {0,1,2} {3,4,5} and the root; {4,5} became {3,4}.
  const TreeDiff d = diff("(((0 1) 2) (3 (4 5)))", "(((0 1) 2) ((3 4) 5))");
  EXPECT_EQ(d.agreeing_inner_nodes, 4u);
  ASSERT_EQ(d.difference_count, 1u);
  EXPECT_EQ(d.differences[0].leaves_text, "{3..5}");
  EXPECT_EQ(d.differences[0].old_sexpr, "(3 (4 5))");
  EXPECT_EQ(d.differences[0].new_sexpr, "((3 4) 5)");
}

TEST(Diff, SeparateAndNestedRegionsInOrder) {
  // Two independent changes: {1,2} -> {0,1} under {0,1,2}, {3,4} -> {4,5} under {3,4,5}.
  TreeDiff d = diff("((0 (1 2)) ((3 4) 5))", "(((0 1) 2) (3 (4 5)))");
  EXPECT_EQ(d.agreeing_inner_nodes, 3u);
  ASSERT_EQ(d.difference_count, 2u);
  EXPECT_EQ(d.differences[0].leaves_text, "{0..2}");
  EXPECT_EQ(d.differences[0].old_sexpr, "(0 (1 2))");
  EXPECT_EQ(d.differences[0].new_sexpr, "((0 1) 2)");
  EXPECT_EQ(d.differences[1].leaves_text, "{3..5}");

  // A change inside {0..3} and another between {0..3} and the rest: two regions, the inner first.
  // Old clusters {0,1} {2,3} {0..3} {0..4} root; new {0,2} {1,3} {0..3} {4,5} root.
  d = diff("((((0 1) (2 3)) 4) 5)", "(((0 2) (1 3)) (4 5))");
  EXPECT_EQ(d.agreeing_inner_nodes, 2u);
  ASSERT_EQ(d.difference_count, 2u);
  EXPECT_EQ(d.differences[0].leaves_text, "{0..3}");
  EXPECT_EQ(d.differences[0].old_sexpr, "((0 1) (2 3))");
  EXPECT_EQ(d.differences[1].leaves_text, "{0..5}");
  EXPECT_EQ(d.differences[1].old_sexpr, "((((0 1) (2 3)) 4) 5)");
  EXPECT_EQ(d.differences[1].new_sexpr, "(((0 2) (1 3)) (4 5))");
}

TEST(Diff, FusedAgainstBinary) {
  // A region can have disagreeing nodes on one side only: (0 1 2 3) has no node below the root.
  const TreeDiff d = diff("(0 1 2 3)", "(((0 1) 2) 3)");
  EXPECT_EQ(d.agreeing_inner_nodes, 1u);
  EXPECT_EQ(d.old_inner, 1u);
  EXPECT_EQ(d.new_inner, 3u);
  ASSERT_EQ(d.difference_count, 1u);
  EXPECT_EQ(d.differences[0].old_sexpr, "(0 1 2 3)");
  EXPECT_EQ(d.differences[0].new_sexpr, "(((0 1) 2) 3)");
  const std::string text = render_diff_text(d);
  EXPECT_NE(text.find("1 inner node still agrees (golden has 1, revealed has 3)\n"), std::string::npos)
      << text;
}

TEST(Diff, DifferentLeafCountsAreNotComparable) {
  const TreeDiff d = diff("((0 1) 2)", "(0 1)");
  EXPECT_FALSE(d.comparable);
  EXPECT_FALSE(d.equal);
  const std::string text = render_diff_text(d);
  EXPECT_NE(text.find("not comparable: golden has 3 leaves, revealed has 2\n"), std::string::npos) << text;
}

TEST(Diff, AgreementCountMatchesABruteForceCount) {
  // Against an independent count: clusters as sorted leaf lists, compared as sets.
  const auto clusters = [](const Tree& tree) {
    std::set<std::vector<std::uint32_t>> out;
    for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node) {
      std::vector<std::uint32_t> leaves;
      for (NodeId leaf = 0; leaf < tree.leaf_count(); ++leaf)
        for (NodeId up = leaf; up != kNoNode; up = tree.parent(up))
          if (up == node) leaves.push_back(leaf);
      out.insert(leaves);
    }
    return out;
  };
  std::mt19937_64 rng(21);
  for (int round = 0; round < 20; ++round) {
    const std::size_t n = 2 + static_cast<std::size_t>(round) * 3;
    const Tree a = random_multiway_tree(n, 2 + static_cast<std::size_t>(round % 3), rng);
    const Tree b = random_multiway_tree(n, 2 + static_cast<std::size_t>(round % 4), rng);
    const auto ca = clusters(a);
    const auto cb = clusters(b);
    std::size_t shared = 0;
    for (const auto& c : cb) shared += ca.count(c);
    const TreeDiff d = diff_trees(a, b);
    EXPECT_EQ(d.agreeing_inner_nodes, shared) << to_sexpr(a) << " vs " << to_sexpr(b);
    EXPECT_EQ(d.equal, a == b);
    EXPECT_EQ(d.difference_count == 0, a == b);
    for (const DiffItem& item : d.differences) {  // a region's subtrees cover the same leaves
      EXPECT_EQ(parse_sexpr("(" + item.old_sexpr + " " + std::to_string(n) + ")").leaf_count(),
                item.leaves.size() + 1);
    }
  }
}

TEST(Diff, IdenticalSubtreesAreCondensedWhenTheTextIsLong) {
  // 8 lanes of 128 summands each, summed sequentially in both trees; the lanes are combined
  // pairwise in the old tree and sequentially in the new one.
  const auto lane_text = [](std::size_t lane) {
    std::string text = std::to_string(lane);
    for (std::size_t i = lane + 8; i < 1024; i += 8) text = "(" + text + " " + std::to_string(i) + ")";
    return text;
  };
  std::string lanes[8];
  for (std::size_t r = 0; r < 8; ++r) lanes[r] = lane_text(r);
  const std::string old_text = "(((" + lanes[0] + " " + lanes[1] + ") (" + lanes[2] + " " + lanes[3] +
                               ")) ((" + lanes[4] + " " + lanes[5] + ") (" + lanes[6] + " " +
                               lanes[7] + ")))";
  std::string new_text = lanes[0];
  for (std::size_t r = 1; r < 8; ++r) new_text = "(" + new_text + " " + lanes[r] + ")";
  const TreeDiff d = diff_trees(parse_sexpr(old_text), parse_sexpr(new_text));
  // Shared: the 8 lanes' 127 chain nodes each, {L0,L1}, {L0..L3} and the root. Regions: {L0..L3}
  // ({L2,L3} against {L0,L1,L2}) and the root (the rest).
  EXPECT_EQ(d.agreeing_inner_nodes, 8u * 127u + 3u);
  ASSERT_EQ(d.difference_count, 2u);
  EXPECT_TRUE(d.condensed);
  // Identical lanes are shown by their leaves; the identical {L0,L1} is not a progression, so it
  // is shown as the pair of lanes.
  EXPECT_EQ(d.differences[0].leaves_text, "{0,1,2,3,8,9,...,1019; 512 leaves}");
  EXPECT_EQ(d.differences[0].old_sexpr, "(({0,8..1016} {1,9..1017}) ({2,10..1018} {3,11..1019}))");
  EXPECT_EQ(d.differences[0].new_sexpr, "((({0,8..1016} {1,9..1017}) {2,10..1018}) {3,11..1019})");
  EXPECT_EQ(d.differences[1].leaves_text, "{0..1023}");
  EXPECT_EQ(d.differences[1].old_sexpr,
            "((({0,8..1016} {1,9..1017}) ({2,10..1018} {3,11..1019})) "
            "(({4,12..1020} {5,13..1021}) ({6,14..1022} {7,15..1023})))");
  EXPECT_EQ(d.differences[1].new_sexpr,
            "((((((({0,8..1016} {1,9..1017}) {2,10..1018}) {3,11..1019}) {4,12..1020}) "
            "{5,13..1021}) {6,14..1022}) {7,15..1023})");
  EXPECT_NE(render_diff_text(d).find("({...}: a subtree shown by its leaf set)"), std::string::npos);
}

TEST(Diff, DeepTreesAreShownToTheDepthThatFits) {
  // Sequential against reverse over 1000 leaves: nothing but the root agrees, and the plain
  // S-expressions would start with hundreds of parentheses.
  const TreeDiff d = diff_trees(left_deep_tree(1000), right_deep_tree(1000));
  EXPECT_EQ(d.agreeing_inner_nodes, 1u);
  ASSERT_EQ(d.differences.size(), 1u);
  // Expected: the subtrees at depth `limit` below the region's root shown by their leaf set, with
  // the largest limit whose text fits in the default 300 characters.
  const auto sequential_text = [](std::size_t limit) {
    std::string text(limit, '(');
    text += "{0.." + std::to_string(999 - limit) + "}";
    for (std::size_t i = 1000 - limit; i < 1000; ++i) text += " " + std::to_string(i) + ")";
    return text;
  };
  const auto reverse_text = [](std::size_t limit) {
    std::string text;
    for (std::size_t k = 0; k < limit; ++k) text += "(" + std::to_string(k) + " ";
    text += "{" + std::to_string(limit) + "..999}";
    return text + std::string(limit, ')');
  };
  const auto largest_fitting = [](const auto& text_for) {
    std::size_t limit = 1;
    while (text_for(limit + 1).size() <= 300) ++limit;
    return text_for(limit);
  };
  EXPECT_EQ(d.differences[0].old_sexpr, largest_fitting(sequential_text));
  EXPECT_EQ(d.differences[0].new_sexpr, largest_fitting(reverse_text));
  EXPECT_TRUE(d.condensed);
}

TEST(Diff, LeafSetFormats) {
  EXPECT_EQ(format_leaf_set({}), "{}");
  EXPECT_EQ(format_leaf_set({7}), "{7}");
  EXPECT_EQ(format_leaf_set({3, 4, 5}), "{3..5}");
  EXPECT_EQ(format_leaf_set({2, 9}), "{2,9}");
  EXPECT_EQ(format_leaf_set({1, 9, 17, 25}), "{1,9..25}");
  EXPECT_EQ(format_leaf_set({1, 4, 9}), "{1,4,9}");
  EXPECT_EQ(format_leaf_set({1, 2, 4, 8, 16, 32, 64, 128}), "{1,2,4,8,16,32,...,128; 8 leaves}");
}

TEST(Diff, TextReportNamesEverything) {
  DiffLabels labels;
  labels.case_id = "dot-float32-n4";
  labels.platform_key = "haswell-t1";
  labels.old_identity = "OpenBLAS 0.3.21 (Haswell)";
  labels.new_identity = "OpenBLAS 0.3.26 (Haswell)";
  const std::string text =
      render_diff_text(parse_sexpr("((0 1) (2 3))"), parse_sexpr("(((0 1) 2) 3)"), labels);
  EXPECT_EQ(text,
            "case dot-float32-n4 on platform haswell-t1\n"
            "golden:   OpenBLAS 0.3.21 (Haswell)\n"
            "revealed: OpenBLAS 0.3.26 (Haswell)\n"
            "golden tree:   4 leaves, depth 2, arity {2: 3}, pairwise\n"
            "revealed tree: 4 leaves, depth 3, arity {2: 3}, sequential\n"
            "first difference, over leaves {0..3}:\n"
            "  golden:   ((0 1) (2 3))\n"
            "  revealed: (((0 1) 2) 3)\n"
            "2 of 3 inner nodes still agree\n");
}

TEST(Diff, TextReportListsFurtherRegions) {
  const std::string text = render_diff_text(parse_sexpr("((0 (1 2)) ((3 4) 5))"),
                                            parse_sexpr("(((0 1) 2) (3 (4 5)))"));
  EXPECT_NE(text.find("1 more differing region, over leaves {3..5}\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace fprev
