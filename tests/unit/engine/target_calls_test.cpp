// Every call a case makes into its target is counted, part by part (fprev/target_calls.hpp): a
// target that counts the calls it receives is revealed, checked at every offset and fingerprinted,
// and after each part the calls it got since the last must be what that part's stats say.
#include <gtest/gtest.h>

#include <algorithm>

#include "fprev/alignment.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/target_calls.hpp"
#include "offset_oracle_target.hpp"
#include "quick_options.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

void expect_parts_sum_to_the_calls_received(OffsetOracleTarget& target, std::size_t expected_classes) {
  const RevealOptions options = testing::quick_reveal_options();
  const RevealResult revealed = reveal(target, options);
  const std::size_t after_reveal = target.calls();
  EXPECT_EQ(revealed.stats.target_calls, after_reveal);
  AlignmentStats alignment_stats;
  const AlignmentResult alignment = check_alignment(target, revealed.map, options, &alignment_stats);
  EXPECT_EQ(alignment.checked() ? std::max<std::size_t>(1, alignment.classes.size()) : 0, expected_classes);
  const std::size_t after_alignment = target.calls();
  FingerprintStats fingerprint_stats;
  measure_map_fingerprints(target, revealed.map, &fingerprint_stats);
  const TargetCalls calls = count_target_calls(revealed.stats, &alignment_stats, &fingerprint_stats);
  // Each part is real work, and each is what the target received while that part ran.
  EXPECT_GT(calls.reveal, 0u);
  EXPECT_GT(calls.verification, 0u);
  EXPECT_GT(calls.placement_proof, 0u);
  EXPECT_GT(calls.fingerprint, 0u);
  EXPECT_EQ(calls.reveal + calls.verification, after_reveal);
  EXPECT_EQ(calls.placement_proof, after_alignment - after_reveal);
  EXPECT_EQ(calls.fingerprint, target.calls() - after_alignment);
  EXPECT_EQ(calls.total(), target.calls());
  // The fingerprint evaluates value inputs only: every probe is the reveal's or the proof's.
  EXPECT_EQ(revealed.stats.probes + alignment_stats.probes, target.probes_evaluated);
  EXPECT_EQ(describe_target_calls(calls),
            std::to_string(target.calls()) + " (reveal " + std::to_string(calls.reveal) + ", verification " +
                std::to_string(calls.verification) + ", placement proof " +
                std::to_string(calls.placement_proof) + ", fingerprint " + std::to_string(calls.fingerprint) + ")");
}

TEST(TargetCalls, PartsSumToTheCallsAnIndependentTargetReceived) {
  OffsetOracleTarget target(random_binary_tree(40, 7), {}, 4);
  expect_parts_sum_to_the_calls_received(target, 1);
}

// At an offset with another order the proof fails and a reveal follows: its calls are the
// placement proof's too.
TEST(TargetCalls, PartsSumToTheCallsADependentTargetReceived) {
  OffsetOracleTarget target(random_binary_tree(40, 7), {{5, left_deep_tree(40)}}, 4);
  expect_parts_sum_to_the_calls_received(target, 2);
}

}  // namespace
}  // namespace fprev
