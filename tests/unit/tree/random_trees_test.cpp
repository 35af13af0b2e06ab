// The test-support tree generators: exact shapes for the named orders, and sane random trees.
#include <gtest/gtest.h>

#include <set>

#include "fprev/sexpr.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

TEST(Shapes, LeftDeep) {
  EXPECT_EQ(to_sexpr(left_deep_tree(1)), "0");
  EXPECT_EQ(to_sexpr(left_deep_tree(2)), "(0 1)");
  EXPECT_EQ(to_sexpr(left_deep_tree(4)), "(((0 1) 2) 3)");
}

TEST(Shapes, RightDeep) {
  EXPECT_EQ(to_sexpr(right_deep_tree(1)), "0");
  EXPECT_EQ(to_sexpr(right_deep_tree(2)), "(0 1)");
  EXPECT_EQ(to_sexpr(right_deep_tree(4)), "(0 (1 (2 3)))");
}

TEST(Shapes, BalancedPairwise) {
  EXPECT_EQ(to_sexpr(balanced_tree(1)), "0");
  EXPECT_EQ(to_sexpr(balanced_tree(3)), "((0 1) 2)");
  EXPECT_EQ(to_sexpr(balanced_tree(5)), "(((0 1) (2 3)) 4)");
  EXPECT_EQ(to_sexpr(balanced_tree(7)), "(((0 1) (2 3)) ((4 5) 6))");
  EXPECT_EQ(to_sexpr(balanced_tree(8)), "(((0 1) (2 3)) ((4 5) (6 7)))");
}

TEST(RandomTrees, SameSeedSameTree) {
  EXPECT_TRUE(random_binary_tree(300, std::uint64_t{5}) == random_binary_tree(300, std::uint64_t{5}));
  EXPECT_TRUE(random_multiway_tree(300, 7, std::uint64_t{5}) ==
              random_multiway_tree(300, 7, std::uint64_t{5}));
  EXPECT_FALSE(random_binary_tree(300, std::uint64_t{5}) == random_binary_tree(300, std::uint64_t{6}));
}

TEST(RandomTrees, BinaryTreesAreBinaryWithVariedDepth) {
  std::set<std::size_t> depths;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const Tree tree = random_binary_tree(200, seed);
    EXPECT_EQ(tree.leaf_count(), 200u);
    EXPECT_EQ(tree.arity_histogram(), (std::map<std::size_t, std::size_t>{{2, 199}}));
    depths.insert(tree.depth());
  }
  EXPECT_LT(*depths.begin(), 40u);   // some bushy trees
  EXPECT_GT(*depths.rbegin(), 150u);  // and some long chains
}

TEST(RandomTrees, MultiwayAritiesStayInRange) {
  std::map<std::size_t, std::size_t> seen;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Tree tree = random_multiway_tree(500, 6, seed);
    EXPECT_EQ(tree.leaf_count(), 500u);
    for (const auto& [arity, count] : tree.arity_histogram()) {
      EXPECT_GE(arity, 2u);
      EXPECT_LE(arity, 6u);
      seen[arity] += count;
    }
  }
  EXPECT_EQ(seen.size(), 5u);  // every arity 2..6 occurs
}

TEST(RandomTrees, SingleLeafAndBadArguments) {
  EXPECT_EQ(to_sexpr(random_binary_tree(1, std::uint64_t{1})), "0");
  EXPECT_THROW(random_binary_tree(0, std::uint64_t{1}), std::invalid_argument);
  EXPECT_THROW(random_multiway_tree(5, 1, std::uint64_t{1}), std::invalid_argument);
}

}  // namespace
}  // namespace fprev
