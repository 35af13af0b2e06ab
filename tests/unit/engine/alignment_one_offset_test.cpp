// The placement (alignment) proof must see an order that differs at a single offset by a single
// node: whatever makes the check cheaper has to keep this exact. The target answers with one tree
// at every offset but one, where one node of the tree is changed (a rotation: ((a b) c) -> (a (b c))),
// and the check must report exactly that offset as a class of its own, with the changed tree.
// The check proves the binary nodes of a height with probes carrying several +M/-M pairs
// (src/engine/multi_pair_proof.cpp): the lanes trees here have 8 to 16 nodes a height, so the
// changes below are caught by those probes, and the tests assert that they ran.
#include <gtest/gtest.h>

#include "fprev/alignment.hpp"
#include "offset_oracle_target.hpp"
#include "quick_options.hpp"
#include "random_trees.hpp"
#include "tree_mutations.hpp"

namespace fprev {
namespace {

void expect_only_offset_differs(const Tree& base, const Tree& changed, std::size_t offset) {
  ASSERT_NE(base, changed);
  OffsetOracleTarget target(base, {{offset, changed}}, 4);
  const OrderMap at_zero = OrderMap::uniform({1, 1}, base);
  AlignmentStats stats;
  const AlignmentResult result = check_alignment(target, at_zero, testing::quick_reveal_options(), &stats);
  ASSERT_EQ(result.verdict, AlignmentVerdict::dependent) << "offset " << offset;
  ASSERT_EQ(result.classes.size(), 2u);
  std::vector<std::size_t> others;
  for (std::size_t k = 0; k < 16; ++k)
    if (k != offset) others.push_back(k);
  EXPECT_EQ(result.classes[0].placements.offsets, others);
  EXPECT_EQ(result.classes[0].map.classes[0].tree, base);
  EXPECT_EQ(result.classes[1].placements.offsets, std::vector<std::size_t>{offset});
  EXPECT_EQ(result.classes[1].map.classes[0].tree, changed);
  EXPECT_EQ(stats.reveals, 1u);
  EXPECT_GT(stats.multi_pair_probes, 0u);
}

TEST(AlignmentOneOffset, ARotationAtOneNodeAtOneOffsetIsFound) {
  const Tree base = lanes_tree(64, 8);
  std::size_t tried = 0;
  // Every inner node that can be rotated, at an offset that moves with the node.
  for (NodeId v = static_cast<NodeId>(base.leaf_count()); v < base.node_count(); ++v) {
    testing::EditableTree edit(base);
    if (!edit.rotate(v)) continue;
    const Tree changed = edit.build();
    if (changed == base) continue;
    expect_only_offset_differs(base, changed, 1 + v % 15);
    ++tried;
  }
  EXPECT_GT(tried, 30u);
}

TEST(AlignmentOneOffset, OneInnerNodeMergedIntoItsParentAtOffset3IsFound) {
  const Tree base = lanes_tree(96, 8);
  std::size_t tried = 0;
  for (NodeId v = static_cast<NodeId>(base.leaf_count()); v < base.node_count(); v += 3) {
    testing::EditableTree edit(base);
    if (!edit.merge_into_parent(v)) continue;
    expect_only_offset_differs(base, edit.build(), 3);
    if (::testing::Test::HasFatalFailure()) return;
    ++tried;
  }
  EXPECT_GT(tried, 25u);
}

TEST(AlignmentOneOffset, TwoLeavesSwappedDeepInTheLanesAtOffset3AreFound) {
  const Tree base = lanes_tree(256, 16);
  // Leaves of one lane (k, k + 16) and of two lanes (k, k + 17), deep in the chains and near their
  // ends: the swapped tree differs at the nodes adding them.
  for (const auto& [a, b] : {std::pair<NodeId, NodeId>{32, 48}, {33, 50}, {200, 216}, {5, 250}, {17, 34}}) {
    testing::EditableTree edit(base);
    edit.swap_subtrees(a, b);
    expect_only_offset_differs(base, edit.build(), 3);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(AlignmentOneOffset, TwoLeavesSwappedAtTheLastOffsetAreFound) {
  const Tree base = random_binary_tree(200, 11);
  testing::EditableTree edit(base);
  edit.swap_subtrees(3, 150);
  expect_only_offset_differs(base, edit.build(), 15);
}

}  // namespace
}  // namespace fprev
