// Trees hundreds of thousands of levels deep: no recursion may follow the depth.
#include <gtest/gtest.h>

#include "engine_test_helpers.hpp"
#include "fprev/sexpr.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

TEST(DeepTrees, SequentialSumOf300000Summands) {
  const Tree truth = left_deep_tree(300000);
  ASSERT_EQ(truth.depth(), 299999u);
  TreeOracleTarget target(truth);
  RevealOptions options;
  options.pivot = Pivot::smallest;  // Alg. 4's best case: one pass of n - 1 probes
  const RevealResult result = reveal(target, options);
  EXPECT_EQ(result.tree, truth);
  EXPECT_EQ(parse_sexpr(to_sexpr(result.tree)), truth);
}

TEST(DeepTrees, ReversedSumBuildsALongChainOfSubProblems) {
  // With the smallest pivot every sub-problem is the previous one minus one leaf: a chain of
  // n - 1 pending frames, and n(n-1)/2 probes (Xie et al., USENIX ATC 2025 Sec. 5.1.3's worst case).
  const Tree truth = right_deep_tree(2000);
  TreeOracleTarget target(truth);
  RevealOptions options;
  options.pivot = Pivot::smallest;
  const RevealResult result = reveal(target, options);
  EXPECT_EQ(result.tree, truth);
  EXPECT_GE(result.stats.probes, 2000u * 1999u / 2);
}

TEST(DeepTrees, RandomPivotMakesTheReversedSumLinear) {
  const Tree truth = right_deep_tree(100000);
  TreeOracleTarget target(truth);
  const RevealResult result = reveal(target);
  EXPECT_EQ(result.tree, truth);
  // Expected about 2n probes (each sub-problem keeps a random fraction); far below n^2 / 2.
  EXPECT_LT(result.stats.probes, 20u * 100000u);
}

}  // namespace
}  // namespace fprev
