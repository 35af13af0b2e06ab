// The placement (alignment) proof of a grid target (GEMM, GEMV). Every placement's proof is a
// confirmation of offset 0's map; they share one measurement of the simulation's random inputs,
// taken at offset 0 and simulated there, so that a placement costs its proof and one call of those
// inputs, which must give offset 0's bits at every element. Where they do not, the placement's full
// confirmation decides, with its own determinism check and simulation: a shortcut that only skips
// calls, never a check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>

#include "fprev/alignment.hpp"
#include "grid_oracle_target.hpp"
#include "quick_options.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

// A 12 x 9 grid of one tree at every offset (float64: 8 offsets in 64 bytes), whose value outputs
// may be tampered with at one offset, and which counts its calls by kind.
class PlacedGrid final : public Target {
 public:
  // `exact_model` false: a library's arithmetic, whose simulation mismatch is a note.
  explicit PlacedGrid(std::optional<std::size_t> tampered_offset = std::nullopt, bool exact_model = true)
      : oracle_({12, 9}, {lanes_tree(64, 4)}, [](std::size_t, std::size_t) { return std::size_t{0}; }),
        info_(oracle_.info()),
        tampered_offset_(tampered_offset) {
    info_.alignment = AlignmentSupport::honours_offsets;
    info_.leading_dimensions = false;
    info_.traits.exact_arithmetic_model = exact_model;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    ++probe_calls;
    oracle_.evaluate(batch, outputs);
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    ++value_calls;
    oracle_.evaluate(batch, outputs);
    if (tampered_offset_ && batch.offset == *tampered_offset_)
      outputs[4 * 9 + 1] = std::nextafter(outputs[4 * 9 + 1], 1e300);
  }
  OrderMap truth() const { return oracle_.truth(); }
  std::size_t probe_calls = 0, value_calls = 0;

 private:
  GridOracleTarget oracle_;
  TargetInfo info_;
  std::optional<std::size_t> tampered_offset_;
};

TEST(AlignmentGrid, EveryPlacementCostsItsProofAndTwoCallsOfTheSharedInputs) {
  PlacedGrid target;
  ASSERT_EQ(alignment_offsets(target.info().traits.input), 8u);
  AlignmentStats stats;
  const AlignmentResult result = check_alignment(target, target.truth(), testing::quick_reveal_options(), &stats);
  EXPECT_EQ(result.verdict, AlignmentVerdict::independent);
  EXPECT_EQ(stats.placements, 7u);
  EXPECT_EQ(stats.proofs, 7u);
  // One measurement at offset 0, then one call of those inputs per placement (a full confirmation
  // makes two), besides the proofs' probe calls; and as many of the input with inexact products.
  EXPECT_EQ(target.value_calls, (1u + 7u) * 2);
  EXPECT_EQ(stats.target_calls, target.value_calls + target.probe_calls);
}

// At offset 3 element (4, 1) adds one ulp in every value call: its probes agree with the map, its
// bits do not agree with offset 0's. The shortcut does not accept it; the full confirmation's
// simulation fails there, and so does the reveal that follows, naming the offset.
TEST(AlignmentGrid, APlacementWhoseBitsDifferIsDecidedByTheFullConfirmation) {
  PlacedGrid target(3);
  try {
    check_alignment(target, target.truth(), testing::quick_reveal_options());
    FAIL() << "offset 3 was accepted although element (4, 1) does not add as its tree says there";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find("offset 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(4, 1)"), std::string::npos) << e.what();
  }
}

// A 12 x 9 grid of one tree whose element (5, 2) follows `other` at `offset`: its probes answer as
// `other` does, and its sums differ from offset 0's by an ulp (so that its bits differ whatever the
// random inputs). The arithmetic is not modelled exactly (as a BLAS declares): a simulation that
// disagrees is a note, not a failure.
class DriftingPlacedGrid final : public Target {
 public:
  DriftingPlacedGrid(const Tree& tree, const Tree& other, std::size_t offset)
      : base_({12, 9}, {tree}, [](std::size_t, std::size_t) { return std::size_t{0}; }, inexact(tree)),
        drifted_({12, 9}, {tree, other},
                 [](std::size_t r, std::size_t c) { return std::size_t{r == 5 && c == 2 ? 1u : 0u}; }, inexact(tree)),
        info_(base_.info()),
        offset_(offset) {
    info_.alignment = AlignmentSupport::honours_offsets;
    info_.leading_dimensions = false;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    (batch.offset == offset_ ? drifted_ : base_).evaluate(batch, outputs);
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    base_.evaluate(batch, outputs);
    // Its sums there differ from offset 0's (one ulp: whatever the random inputs, the bits differ).
    if (batch.offset == offset_) outputs[5 * 9 + 2] = std::nextafter(outputs[5 * 9 + 2], 1e300);
  }
  OrderMap truth() const { return base_.truth(); }

 private:
  static NumericTraits inexact(const Tree& tree) {
    NumericTraits traits = TreeOracleTarget::default_traits(tree);
    traits.exact_arithmetic_model = false;
    return traits;
  }
  GridOracleTarget base_, drifted_;
  TargetInfo info_;
  std::size_t offset_;
};

// At offset 3 one element of a sequential sum adds summand 41 where the others add summand 20, and
// the other way round: a change in the middle of its tree, which neither its share of the proof
// (two of its 63 pairs would tell) nor its edge pairs look at. Its bits on the shared random inputs
// differ from offset 0's, and that is evidence enough: the placement is not taken as proven (the
// confirmation there holds, and the simulation only notes the difference for a library whose
// arithmetic is not modelled), the reveal there finds the element's order, and the order depends
// on where the data lies. (Taken as proven before: independent.)
TEST(AlignmentGrid, AnElementWhoseOrderChangesWhereNoProbeLooksIsFoundByItsBits) {
  const Tree tree = left_deep_tree(64);
  DriftingPlacedGrid target(tree, with_leaves_swapped(tree, 20, 41), 3);
  const AlignmentResult result = check_alignment(target, target.truth(), testing::quick_reveal_options());
  ASSERT_EQ(result.verdict, AlignmentVerdict::dependent);
  ASSERT_EQ(result.classes.size(), 2u);
  EXPECT_EQ(result.classes[1].placements.offsets, std::vector<std::size_t>{3});
}

// At offset 3 element (4, 1) adds one ulp to every value output and answers every probe as its tree
// says, and the arithmetic is not modelled exactly: the proof holds, the reveal finds offset 0's
// map, yet the same inputs give other bits. That is no independence: a named failure.
TEST(AlignmentGrid, BitsThatDifferUnderOffsetZerosOrderAreAFailureNotAPass) {
  PlacedGrid target(3, /*exact_model=*/false);
  try {
    check_alignment(target, target.truth(), testing::quick_reveal_options());
    FAIL() << "offset 3 gives other bits than offset 0 and was accepted";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find("offset 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("differ bitwise from offset 0"), std::string::npos) << e.what();
  }
}

// A GEMM-like grid (float32 products) whose every placement follows one tree, and which at offset
// 5 rounds its right factors to bfloat16 before multiplying (an unaligned path that computes its
// products otherwise). The random inputs behind the proof have powers of two on the right, exact
// in bfloat16: their bits are offset 0's. One input with random significands on both factors is
// not: the placement is not taken as proven, and the reveal finds offset 0's order, so the check
// fails naming offset 5. (Before that input, the check passed: checked.)
class ProductsOtherwiseAtOneOffset final : public Target {
 public:
  ProductsOtherwiseAtOneOffset()
      : plain_({12, 9}, {lanes_tree(48, 4)}, [](std::size_t, std::size_t) { return std::size_t{0}; }, float32_product_traits()),
        rounded_({12, 9}, {lanes_tree(48, 4)}, [](std::size_t, std::size_t) { return std::size_t{0}; }, float32_product_traits()),
        info_(plain_.info()) {
    rounded_.round_right_factors(Format::bfloat16);
    info_.alignment = AlignmentSupport::honours_offsets;
    info_.leading_dimensions = false;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override { plain_.evaluate(batch, outputs); }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    (batch.offset == 5 ? rounded_ : plain_).evaluate(batch, outputs);
  }
  OrderMap truth() const { return plain_.truth(); }

 private:
  GridOracleTarget plain_, rounded_;
  TargetInfo info_;
};

TEST(AlignmentGrid, ProductsRoundedOtherwiseAtOnePlacementAreAFailure) {
  ProductsOtherwiseAtOneOffset target;
  ASSERT_EQ(alignment_offsets(target.info().traits.input), 16u);
  try {
    check_alignment(target, target.truth(), testing::quick_reveal_options());
    FAIL() << "offset 5 computes its products otherwise and was accepted";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find("offset 5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("differ bitwise from offset 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fprev
