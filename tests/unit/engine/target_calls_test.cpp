// Every call a case makes into its target is counted, part by part (fprev/target_calls.hpp): a
// target that counts the calls it receives is revealed, checked at every offset and fingerprinted,
// and after each part the calls it got since the last must be what that part's stats say.
#include <gtest/gtest.h>

#include <algorithm>

#include "fprev/alignment.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/invariance.hpp"
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

// A variant's target: when it ends, adds the calls it received to `total`.
class TotalledTarget final : public Target {
 public:
  TotalledTarget(const Tree& tree, std::shared_ptr<std::size_t> total)
      : inner_(tree, {}, 4), total_(std::move(total)) {}
  ~TotalledTarget() override { *total_ += inner_.calls(); }
  const TargetInfo& info() const override { return inner_.info(); }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override { inner_.evaluate(batch, outputs); }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override { inner_.evaluate(batch, outputs); }

 private:
  OffsetOracleTarget inner_;
  std::shared_ptr<std::size_t> total_;
};

// The invariance contracts' calls are their own part: every call the variants' targets received
// (the proof of the one that follows the order, the proof and reveal of the one that does not).
TEST(TargetCalls, TheInvariancePartIsEveryCallTheVariantsReceived) {
  const Tree tree = random_binary_tree(40, 7);
  OffsetOracleTarget known(tree, {}, 4);
  const RevealOptions options = testing::quick_reveal_options();
  const RevealResult revealed = reveal(known, options);
  const auto total = std::make_shared<std::size_t>(0);
  std::vector<InvarianceVariant> variants;
  variants.push_back({"same", [&tree, total] { return std::make_unique<TotalledTarget>(tree, total); }});
  variants.push_back({"other", [total] { return std::make_unique<TotalledTarget>(left_deep_tree(40), total); }});
  InvarianceStats stats;
  const InvarianceResult result =
      check_invariance("p", {"known", "same", "other"}, {"known", known.info(), &revealed.map}, variants, options, &stats);
  EXPECT_FALSE(result.invariant);
  EXPECT_EQ(stats.proofs, 2u);
  EXPECT_EQ(stats.reveals, 1u);
  EXPECT_GT(*total, 0u);
  EXPECT_EQ(stats.target_calls, *total);
  const InvarianceStats parts[] = {stats, stats};
  const TargetCalls calls = count_target_calls(revealed.stats, nullptr, nullptr, 0, parts);
  EXPECT_EQ(calls.invariance, 2 * *total);
  EXPECT_EQ(calls.total(), known.calls() + 2 * *total);
  EXPECT_EQ(describe_target_calls(calls),
            std::to_string(calls.total()) + " (reveal " + std::to_string(calls.reveal) + ", verification " +
                std::to_string(calls.verification) + ", placement proof 0, fingerprint 0, invariance " +
                std::to_string(2 * *total) + ")");
}

}  // namespace
}  // namespace fprev
