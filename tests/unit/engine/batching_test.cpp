// Independent probes go to the target together: all l(i,j) of one sub-problem, and the probes of
// independent sub-problems in the same wave, up to the target's batch size.
#include <gtest/gtest.h>

#include "engine_test_helpers.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

TEST(Batching, SequentialSumNeedsOneProbeCallWhenTheBatchHoldsAllProbes) {
  const Tree truth = left_deep_tree(1000);
  TreeOracleTarget target(truth, std::nullopt, 4096);
  RevealOptions options;
  options.verify_probes = 0;
  const RevealResult result = reveal(target, options);
  EXPECT_EQ(result.tree, truth);
  // Every sub-problem after the first holds a prefix: with a random pivot there are a few waves,
  // but never more than one call per wave; the number of waves is logarithmic in expectation.
  EXPECT_LE(target.probe_calls, 40u);
  EXPECT_EQ(target.probes_evaluated, result.stats.probes);
}

TEST(Batching, IndependentSubProblemsShareCalls) {
  const Tree truth = balanced_tree(1024);
  TreeOracleTarget batched(truth, std::nullopt, 1024);
  TreeOracleTarget single(truth, std::nullopt, 1);
  RevealOptions options;
  options.verify_probes = 0;
  const RevealResult a = reveal(batched, options);
  const RevealResult b = reveal(single, options);
  EXPECT_EQ(a.tree, truth);
  EXPECT_EQ(b.tree, truth);
  EXPECT_EQ(a.stats.probes, b.stats.probes);  // same probes, same pivots
  EXPECT_EQ(single.probe_calls, b.stats.probes);
  // A balanced tree of depth 10 is revealed in at most ~one call per level.
  EXPECT_LE(batched.probe_calls, 2 * 11u);
}

TEST(Batching, StatisticsCountCallsProbesAndTime) {
  TreeOracleTarget target(random_binary_tree(500, 3), std::nullopt, 7);
  const RevealResult result = reveal(target);
  EXPECT_EQ(result.stats.target_calls, target.calls());
  EXPECT_EQ(result.stats.probes, target.probes_evaluated);
  EXPECT_EQ(result.stats.value_inputs, target.value_rows_evaluated);
  EXPECT_GT(result.stats.target_seconds, 0.0);
  EXPECT_GE(result.stats.total_seconds, result.stats.target_seconds);
}

}  // namespace
}  // namespace fprev
