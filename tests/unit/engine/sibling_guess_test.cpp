// FPRev with sibling guesses (src/engine/sibling_guess.hpp): a sub-problem as large as the subtree
// built so far is guessed to repeat its shape and proven with the guess's proof probes. The tree
// must never depend on a guess: every edit of repetitive trees (where guesses are tried and some
// fail) is revealed exactly, with and without guesses. Lanes and pairwise sums, the shapes real
// kernels have, cost about 2n probes instead of Alg. 4's n (1 + log2(L) / 2) and (n/2) log2 n.
#include <gtest/gtest.h>

#include <set>

#include "engine_test_helpers.hpp"
#include "fprev/sexpr.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"
#include "tree_mutations.hpp"

namespace fprev {
namespace {

using testing::EditableTree;

RevealOptions quick_options(bool guesses) {
  RevealOptions o;
  o.determinism_runs = 2;
  o.determinism_inputs = 1;
  o.verify_inputs = 1;
  o.guess_siblings = guesses;
  return o;
}

RevealResult reveal_tree(const Tree& tree, bool guesses) {
  TreeOracleTarget target(tree, TreeOracleTarget::default_traits(tree), 64);
  return reveal(target, quick_options(guesses));
}

// The probes of the reveal itself: all of them less the sampled verification after it.
std::size_t reveal_probes(const RevealResult& r) { return r.stats.probes - r.stats.verified_probes; }

TEST(SiblingGuess, LanesAndPairwiseSumsCostAboutTwoNProbes) {
  struct Case {
    const char* name;
    Tree tree;
  };
  for (const std::size_t n : {1024, 4096}) {
    for (const Case& c : {Case{"lanes8", lanes_tree(n, 8)}, Case{"lanes16", lanes_tree(n, 16)},
                          Case{"lanes32", lanes_tree(n, 32)}, Case{"pairwise", balanced_tree(n)}}) {
      const RevealResult guessed = reveal_tree(c.tree, true);
      const RevealResult plain = reveal_tree(c.tree, false);
      ASSERT_EQ(guessed.tree, c.tree) << c.name;
      ASSERT_EQ(plain.tree, c.tree) << c.name;
      EXPECT_GT(guessed.stats.guesses_proven, 0u) << c.name;
      EXPECT_EQ(guessed.stats.guesses_failed, 0u) << c.name;
      EXPECT_EQ(plain.stats.guesses_proven + plain.stats.guesses_failed, 0u) << c.name;
      // n - 1 for the pivot's probes, at most n - 1 more for the proofs of the guessed groups.
      EXPECT_LE(reveal_probes(guessed), 2 * (n - 1)) << c.name << " n = " << n;
      EXPECT_LT(reveal_probes(guessed), reveal_probes(plain)) << c.name << " n = " << n;
    }
  }
}

TEST(SiblingGuess, ASequentialSumIsNotGuessedAndCostsNMinusOne) {
  const Tree chain = left_deep_tree(2000);
  const RevealResult r = reveal_tree(chain, true);
  ASSERT_EQ(r.tree, chain);
  EXPECT_EQ(r.stats.guesses_proven + r.stats.guesses_failed, 0u);
  EXPECT_EQ(reveal_probes(r), 1999u);
}

// Root = fused(A, B, C), |B| + |C| == |A|: the group B + C is as large as r = A and is guessed as
// A's shape, but it is no subtree (part of the fused root), so its proof must fail.
TEST(SiblingGuess, APartOfAFusedNodeAsLargeAsTheSubtreeIsNeverTakenForOne) {
  const Tree tree = parse_sexpr("(((0 1) (2 3)) (4 5) (6 7))");
  const RevealResult r = reveal_tree(tree, true);
  EXPECT_EQ(r.tree, tree);
  EXPECT_EQ(r.stats.guesses_failed, 1u);
  // A wider example: lanes whose last combination is one fused step of three groups.
  const Tree wide = parse_sexpr("((((0 4) 8) ((1 5) 9)) (((2 6) 10) (3 7 11)) ((12 13) (14 15)) (16 17 18 19))");
  EXPECT_EQ(reveal_tree(wide, true).tree, wide);
}

// Every edit at every inner node of repetitive trees (lanes, pairwise, nested blocks): the guesses
// meet a sibling that looks alike but is not, and the reveal must still return the edited tree.
TEST(SiblingGuess, EveryEditOfARepetitiveTreeIsRevealedExactly) {
  const std::vector<Tree> bases = {lanes_tree(64, 4), lanes_tree(48, 8), balanced_tree(64),
                                   parse_sexpr("((((0 1) (2 3)) ((4 5) (6 7))) (((8 9) (10 11)) "
                                               "((12 13) (14 15))))")};
  std::size_t trees = 0, failed_guesses = 0;
  for (const Tree& base : bases) {
    std::set<std::string> seen;
    const auto check = [&](const Tree& edited) {
      if (!seen.insert(to_sexpr(edited)).second) return;
      ++trees;
      const RevealResult r = reveal_tree(edited, true);
      ASSERT_EQ(r.tree, edited) << to_sexpr(edited);
      failed_guesses += r.stats.guesses_failed;
    };
    check(base);
    const EditableTree original(base);
    for (NodeId v = static_cast<NodeId>(base.leaf_count()); v < base.node_count(); ++v) {
      {
        EditableTree t = original;
        if (t.rotate(v)) check(t.build());
      }
      {
        EditableTree t = original;
        if (t.merge_into_parent(v)) check(t.build());
      }
      for (NodeId u = 0; u < base.node_count(); u += 3) {
        if (original.inside(u, v) || original.inside(v, u)) continue;
        EditableTree t = original;
        t.swap_subtrees(u, v);
        check(t.build());
      }
      for (NodeId x = 0; x < base.leaf_count(); x += 5) {
        if (original.inside(x, v)) continue;
        EditableTree t = original;
        t.move_leaf(x, v);
        check(t.build());
      }
    }
  }
  EXPECT_GT(trees, 500u);
  EXPECT_GT(failed_guesses, 50u);  // the edits did meet the guesses
}

TEST(SiblingGuess, RandomTreesAreRevealedAlikeWithAndWithoutGuesses) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const Tree tree = seed % 2 == 0 ? random_binary_tree(200, seed) : random_multiway_tree(200, 5, seed);
    EXPECT_EQ(reveal_tree(tree, true).tree, tree) << seed;
  }
}

}  // namespace
}  // namespace fprev
