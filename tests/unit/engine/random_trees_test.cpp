// FPRev, BasicFPRev and the naive search recover seeded random trees exactly (binary and multiway),
// through an oracle target that answers probes from the known tree.
#include <gtest/gtest.h>

#include "engine_test_helpers.hpp"
#include "fprev/sexpr.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

using testing::options_with;

Tree reveal_tree(const Tree& truth, Algorithm algorithm, std::uint64_t seed, std::size_t batch = 1) {
  TreeOracleTarget target(truth, std::nullopt, batch);
  return reveal(target, options_with(algorithm, seed)).tree;
}

TEST(RandomTrees, ThousandSmallTreesRecoveredByFprevAndBasic) {
  std::size_t checked = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const std::size_t n = 1 + (seed * 7919) % 120;
    const bool multiway = seed % 2 == 0;
    const Tree truth = multiway ? random_multiway_tree(n, 2 + seed % 17, seed)
                                : random_binary_tree(n, seed);
    ASSERT_EQ(reveal_tree(truth, Algorithm::fprev, seed), truth)
        << "seed " << seed << " truth " << to_sexpr(truth);
    ASSERT_EQ(reveal_tree(truth, Algorithm::basic, seed), truth)
        << "seed " << seed << " truth " << to_sexpr(truth);
    ++checked;
  }
  EXPECT_EQ(checked, 1000u);
}

TEST(RandomTrees, LargeTreesUpTo2000Leaves) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const std::size_t n = 500 + seed * 125;  // 625 .. 2000
    const Tree truth = seed % 2 == 0 ? random_multiway_tree(n, 17, seed) : random_binary_tree(n, seed);
    EXPECT_EQ(reveal_tree(truth, Algorithm::fprev, seed), truth) << "seed " << seed;
    if (seed % 4 == 0) {
      EXPECT_EQ(reveal_tree(truth, Algorithm::basic, seed, 256), truth) << "seed " << seed;
    }
  }
}

TEST(RandomTrees, SmallestPivotAsInAlgorithm4AlsoRecovers) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const Tree truth = random_multiway_tree(1 + seed % 90, 9, seed);
    TreeOracleTarget target(truth);
    RevealOptions options;
    options.pivot = Pivot::smallest;
    EXPECT_EQ(reveal(target, options).tree, truth) << "seed " << seed;
  }
}

TEST(RandomTrees, NaiveBasicAndFprevAgreeForAllSmallN) {
  for (std::size_t n = 1; n <= 7; ++n) {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      const Tree truth = seed % 3 == 0 ? random_multiway_tree(n, 4, seed) : random_binary_tree(n, seed);
      NumericTraits traits;  // float32 adds, with the fused model for multiway nodes
      traits.max_fused_width = std::max<std::size_t>(2, truth.max_arity());
      traits.simulate_fused = true;
      TreeOracleTarget target(truth, traits);
      const Tree naive = reveal(target, options_with(Algorithm::naive, seed)).tree;
      const Tree basic = reveal(target, options_with(Algorithm::basic, seed)).tree;
      const Tree fast = reveal(target, options_with(Algorithm::fprev, seed)).tree;
      EXPECT_EQ(naive, truth) << "n " << n << " seed " << seed << " truth " << to_sexpr(truth)
                              << " naive " << to_sexpr(naive);
      EXPECT_EQ(basic, truth) << "n " << n << " seed " << seed;
      EXPECT_EQ(fast, truth) << "n " << n << " seed " << seed;
    }
  }
}

TEST(RandomTrees, SexprRoundTripOfEveryRevealedTree) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const Tree truth = random_multiway_tree(1 + seed % 300, 2 + seed % 7, seed);
    const Tree revealed = reveal_tree(truth, Algorithm::fprev, seed);
    EXPECT_EQ(parse_sexpr(to_sexpr(revealed)), revealed);
  }
}

}  // namespace
}  // namespace fprev
