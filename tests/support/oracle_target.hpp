// An ideal target that follows a known summation tree, for testing the engine without numerics.
//
// For a probe (+M at `plus`, -M at `minus`, units at the background's active leaves) it returns
// what an implementation of the tree returns for the masked all-one input: every active unit below
// LCA(plus, minus) is absorbed by a mask, every other one survives, so the output is
//   (active leaves not under LCA(plus, minus)) * unit.
// Each probe costs O(log n) (LcaIndex, and a binary search over the active leaves' positions in
// depth-first leaf order, cached per background id). Counts are not rounded to the output format:
// the oracle is exact at any n. Value batches, and probes with further masks (several +M/-M pairs,
// ProbeBatch::extra_masks), are answered by simulate_sum under the traits.
//
// Misuse by the engine (plus == minus, leaf or background index out of range, a batch larger than
// max_batch, a malformed background) throws std::logic_error. For engine tests it can misbehave on
// request: a wrong count for one leaf pair, or NaN for every probe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "fprev/target.hpp"
#include "fprev/tree.hpp"

namespace fprev {

// float32 inputs, accumulator and output, product summands: a sdot's, sgemv's or sgemm's traits.
NumericTraits float32_product_traits();

class TreeOracleTarget : public Target {
 public:
  // Without traits: float64 plain summands, max_fused_width = max(2, tree.max_arity()).
  explicit TreeOracleTarget(Tree tree, std::optional<NumericTraits> traits = std::nullopt,
                            std::size_t max_batch = 1);
  // The LCA index points into the tree held here, so the target stays where it was made.
  TreeOracleTarget(const TreeOracleTarget&) = delete;
  TreeOracleTarget& operator=(const TreeOracleTarget&) = delete;

  static NumericTraits default_traits(const Tree& tree);

  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;

  const Tree& tree() const { return tree_; }

  // Misbehaviour. Probes on the pair {plus, minus} (either order) return the count + offset.
  void set_wrong_count(std::uint32_t plus, std::uint32_t minus, std::int64_t offset = 1);
  void clear_wrong_count() { wrong_pair_.reset(); }
  // Every probe returns NaN (value batches are unaffected).
  void set_nan_probes(bool nan) { nan_probes_ = nan; }

  // Counters, for tests of batching and of the engine's statistics.
  std::size_t probes_evaluated = 0;  // probes answered
  std::size_t probe_calls = 0;       // evaluate(ProbeBatch) calls
  std::size_t value_rows_evaluated = 0;
  std::size_t value_calls = 0;       // evaluate(ValueBatch) calls
  std::size_t calls() const { return probe_calls + value_calls; }

 private:
  struct WrongPair {
    std::uint32_t a, b;
    std::int64_t offset;
  };

  std::uint64_t unmasked_count(const Probe& probe, const Background& background,
                               const std::vector<std::uint32_t>* active_ranks) const;
  std::vector<std::uint32_t> active_ranks(const Background& background) const;

  Tree tree_;
  LcaIndex lca_;
  TargetInfo info_;
  std::vector<std::uint32_t> first_rank_;  // node -> rank of its first leaf in depth-first order
  // Sorted depth-first ranks of a background's active leaves, by background id (bounded cache).
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> ranks_by_background_;
  std::size_t cached_ranks_ = 0;  // total size of the cached vectors
  std::optional<WrongPair> wrong_pair_;
  bool nan_probes_ = false;
};

}  // namespace fprev
