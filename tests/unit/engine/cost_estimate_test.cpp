// The cost model against the real probe counts: a sequential sum, lanes combined pairwise (the
// shape of OpenBLAS's dot kernels) and a pairwise sum stay within the model's range; against its
// expectation (2n) a sequential sum takes half, a pairwise one log2(n)/4 + 1/2 times as many. The
// estimate's arithmetic is checked without timing it.
#include <gtest/gtest.h>

#include <cmath>

#include "engine_test_helpers.hpp"
#include "fprev/alignment.hpp"
#include "fprev/cost_estimate.hpp"
#include "fprev/summary.hpp"
#include "offset_oracle_target.hpp"
#include "quick_options.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

// `lanes` accumulators, lane r adding leaves r, r + lanes, ... in order; the lane sums combined
// pairwise (lane 0 + lane 1, lane 2 + lane 3, ..., then those pairs).
Tree lanes_tree(std::size_t n, std::size_t lanes) {
  TreeBuilder builder(n);
  std::vector<NodeId> sums;
  for (std::size_t r = 0; r < lanes && r < n; ++r) {
    NodeId acc = static_cast<NodeId>(r);
    for (std::size_t k = r + lanes; k < n; k += lanes) acc = builder.add_node({acc, static_cast<NodeId>(k)});
    sums.push_back(acc);
  }
  while (sums.size() > 1) {
    std::vector<NodeId> next;
    for (std::size_t k = 0; k + 1 < sums.size(); k += 2) next.push_back(builder.add_node({sums[k], sums[k + 1]}));
    if (sums.size() % 2 == 1) next.push_back(sums.back());
    sums = std::move(next);
  }
  return builder.build();
}

std::size_t probes_of(const Tree& truth) {
  TreeOracleTarget target(truth);
  RevealOptions options;
  options.verify_probes = 0;  // the model counts the reveal's probes, not the verification's
  const RevealResult result = reveal(target, options);
  EXPECT_EQ(result.tree, truth);
  return result.stats.probes;
}

TEST(CostEstimate, ModelBracketsSequentialLanesAndPairwise) {
  for (std::size_t n : {std::size_t{1000}, std::size_t{4096}, std::size_t{20000}}) {
    const ProbeCountModel model = model_probe_count(n, Algorithm::fprev);
    for (const Tree& truth : {left_deep_tree(n), lanes_tree(n, 16), lanes_tree(n, 8), balanced_tree(n)}) {
      const std::size_t probes = probes_of(truth);
      EXPECT_GE(probes, model.low) << "n=" << n << " " << summarize(truth).description;
      EXPECT_LE(probes, model.high) << "n=" << n << " " << summarize(truth).description;
      const double ratio = static_cast<double>(probes) / static_cast<double>(model.expected);
      EXPECT_GE(ratio, 0.49) << "n=" << n << " " << summarize(truth).description;
      EXPECT_LE(ratio, std::log2(static_cast<double>(n)) / 4 + 1) << "n=" << n << " " << summarize(truth).description;
    }
  }
}

TEST(CostEstimate, BasicMeasuresEveryPair) {
  const ProbeCountModel model = model_probe_count(100, Algorithm::basic);
  TreeOracleTarget target(random_binary_tree(100, 5));
  const RevealResult result = reveal(target, testing::options_with(Algorithm::basic));
  EXPECT_EQ(model.expected, 4950u);
  EXPECT_EQ(result.stats.probes - result.stats.verified_probes, model.expected);
}

TEST(CostEstimate, SecondsFollowCallsPerProbeAndStreams) {
  const Tree truth = left_deep_tree(5000);
  TreeOracleTarget target(truth, std::nullopt, 7);
  RevealOptions options;
  options.streams = 4;
  options.make_worker = [&] { return std::unique_ptr<Target>(std::make_unique<TreeOracleTarget>(truth)); };
  const CostEstimate e = estimate_cost(target, options);
  EXPECT_EQ(e.probes_per_call, 7u);
  EXPECT_EQ(e.streams, 4u);
  EXPECT_GT(e.seconds_per_call, 0.0);
  const double calls = std::ceil(static_cast<double>(e.probes.expected) / 7.0);
  EXPECT_DOUBLE_EQ(e.seconds, calls * e.seconds_per_call / 4.0);
  EXPECT_LE(e.seconds_low, e.seconds);
  EXPECT_LE(e.seconds, e.seconds_high);
  EXPECT_NE(e.describe().find("on 4 streams"), std::string::npos) << e.describe();
  // Without a factory only one stream can run.
  options.make_worker = nullptr;
  EXPECT_EQ(estimate_cost(target, options).streams, 1u);
}

// The alignment check that follows a reveal proves the order at every other placement: at least
// n - 1 probes each with one pair a probe (every tree of n leaves has n - 1 = sum(children - 1)
// over its inner nodes, one probe a node), (n - 1) / max_pairs with several pairs a probe.
TEST(CostEstimate, ThePlacementProofsOfAFloat32TargetAreFifteenProofs) {
  OffsetOracleTarget target(left_deep_tree(1000), {}, 4);  // float32: 16 offsets in 64 bytes
  TargetInfo info = target.info();
  info.extra_masks = false;  // one pair a probe
  CostEstimate e;
  e.probes_per_call = 4;
  e.seconds_per_call = 0.002;
  add_placement_proofs(e, info);
  EXPECT_EQ(e.placements, 15u);
  EXPECT_EQ(e.placement_probes, 999u);
  EXPECT_DOUBLE_EQ(e.placement_seconds, 15 * 250 * 0.002);  // 999 probes in 250 calls of 4
  EXPECT_DOUBLE_EQ(e.total_seconds_low(), e.seconds_low + e.placement_seconds);
  EXPECT_NE(e.describe().find("; then the placement proof at 15 placements, at least 999 probes each: at least 8 s"),
            std::string::npos)
      << e.describe();
  // Side by side on streams, one placement a stream.
  e.streams = 4;
  add_placement_proofs(e, info);
  EXPECT_DOUBLE_EQ(e.placement_seconds, 15 * 250 * 0.002 / 4);
}

TEST(CostEstimate, ATargetWhoseOrderCannotDependOnItsPlacementHasNoPlacementProofs) {
  TreeOracleTarget target(left_deep_tree(1000));
  ASSERT_NE(target.info().alignment, AlignmentSupport::honours_offsets);
  CostEstimate e;
  e.seconds_per_call = 0.002;
  add_placement_proofs(e, target.info());
  EXPECT_EQ(e.placements, 0u);
  EXPECT_EQ(e.placement_seconds, 0.0);
  EXPECT_EQ(e.describe().find("placement"), std::string::npos);
}

// A target that takes further masks is proven with several pairs a probe: fewer probes, and the
// estimate stays below what the alignment check really measures on such targets.
TEST(CostEstimate, SeveralPairsAProbeBoundTheProofFromBelow) {
  for (const Tree& tree : {left_deep_tree(1000), random_binary_tree(1000, 11), random_binary_tree(777, 3)}) {
    OffsetOracleTarget target(tree, {}, 4);
    ASSERT_TRUE(target.info().extra_masks);
    CostEstimate e;
    e.probes_per_call = 4;
    e.seconds_per_call = 0.002;
    add_placement_proofs(e, target.info());
    EXPECT_LT(e.placement_probes, tree.leaf_count() - 1);
    const RevealResult revealed = reveal(target, testing::quick_reveal_options());
    AlignmentStats stats;
    check_alignment(target, revealed.map, testing::quick_reveal_options(), &stats);
    EXPECT_EQ(stats.placements, e.placements);
    EXPECT_GE(stats.probes, e.placements * e.placement_probes);
  }
}

TEST(CostEstimate, DurationsReadAsPeopleWriteThem) {
  EXPECT_EQ(format_duration(0.000012), "12 us");
  EXPECT_EQ(format_duration(0.85), "850 ms");
  EXPECT_EQ(format_duration(42), "42 s");
  EXPECT_EQ(format_duration(414), "6.9 min");
  EXPECT_EQ(format_duration(3 * 3600), "3 h");
}

}  // namespace
}  // namespace fprev
