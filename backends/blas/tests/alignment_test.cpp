// The blas backend places its operands where the alignment check asks (ProbeBatch::offset,
// leading_pad), so a BLAS whose order depends on where the data lies is reported as such. The toy
// BLAS of tests/toy/toy_peel_blas.cpp is the ground truth: its sdot peels until x is 32-byte
// aligned (8 offset classes for float32: the offset modulo 8), its sgemv adds in two lanes when lda
// is a multiple of 16 and sequentially otherwise (offsets do not matter, the padded leading
// dimension does).
#include <gtest/gtest.h>

#include "blas_test_support.hpp"
#include "fprev/alignment.hpp"
#include "quick_options.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::blas {
namespace {

using testing::open_blas;
using testing::sequential_tree;

RevealOptions quick() { return ::fprev::testing::quick_reveal_options(); }

TEST(BlasAlignment, APeelingDotIsAnOrderMapOverOffsets) {
  const auto toy = open_blas(testing::toy_peel_library());
  const auto target = toy->make_target(testing::resolved(*toy, {{"op", "dot"}, {"n", "10"}}));
  EXPECT_EQ(target->info().alignment, AlignmentSupport::honours_offsets);
  const RevealResult at_zero = reveal(*target, quick());
  // Offset 0: no peel; lanes 0 and 1 hold two products, the others one; lanes added in order.
  EXPECT_EQ(at_zero.tree, parse_sexpr("((((((((0 8) (1 9)) 2) 3) 4) 5) 6) 7)"));
  AlignmentStats stats;
  const AlignmentResult result = check_alignment(*target, at_zero.map, quick(), &stats);
  ASSERT_EQ(result.verdict, AlignmentVerdict::dependent);
  EXPECT_EQ(result.offsets, 16u);
  ASSERT_EQ(result.classes.size(), 8u);
  for (std::size_t k = 0; k < 8; ++k)
    EXPECT_EQ(result.classes[k].placements.offsets, (std::vector<std::size_t>{k, k + 8})) << k;
  // Offset 6: 24 bytes, 2 products peeled; the 8 others are one lane each, then x0 and x1.
  EXPECT_EQ(result.classes[6].map.classes[0].tree, sequential_tree({2, 3, 4, 5, 6, 7, 8, 9, 0, 1}));
  EXPECT_EQ(stats.reveals, 7u);
}

// The same gemv with its placements proven side by side on a second instance (a grid target with
// small operands): the same classes, and the second instance did part of the work.
TEST(BlasAlignment, AGemvsPlacementsSideBySideGiveWhatASerialCheckGives) {
  const auto toy = open_blas(testing::toy_peel_library());
  const Params c = testing::resolved(*toy, {{"op", "gemv"}, {"m", "16"}, {"n", "5"}});
  const auto target = toy->make_target(c);
  const RevealResult at_zero = reveal(*target, quick());
  const AlignmentResult serial = check_alignment(*target, at_zero.map, quick());
  RevealOptions side_by_side = quick();
  side_by_side.streams = 2;
  std::size_t made = 0;
  side_by_side.make_worker = [&] {
    ++made;
    return toy->make_target(c);
  };
  AlignmentStats stats;
  const AlignmentResult result = check_alignment(*target, at_zero.map, side_by_side, &stats);
  EXPECT_TRUE(same_alignment(result, serial));
  EXPECT_EQ(result.summary(), "dependent (offsets 0-15 and ld+1 checked, 2 classes)");
  EXPECT_EQ(made, 1u);
}

TEST(BlasAlignment, AGemvThatDependsOnTheLeadingDimensionIsCaughtByThePaddedPlacement) {
  const auto toy = open_blas(testing::toy_peel_library());
  const auto target = toy->make_target(testing::resolved(*toy, {{"op", "gemv"}, {"m", "16"}, {"n", "5"}}));
  EXPECT_TRUE(target->info().leading_dimensions);
  const RevealResult at_zero = reveal(*target, quick());
  ASSERT_TRUE(at_zero.map.single_class());
  EXPECT_EQ(at_zero.tree, parse_sexpr("(((0 2) 4) (1 3))"));  // lda 16: two lanes
  AlignmentStats stats;
  const AlignmentResult result = check_alignment(*target, at_zero.map, quick(), &stats);
  ASSERT_EQ(result.verdict, AlignmentVerdict::dependent);
  EXPECT_TRUE(result.padded);
  ASSERT_EQ(result.classes.size(), 2u);
  EXPECT_EQ(result.classes[0].placements.offsets.size(), 16u);  // every offset: the same order
  EXPECT_FALSE(result.classes[0].placements.padded);
  EXPECT_TRUE(result.classes[1].placements.offsets.empty());
  EXPECT_TRUE(result.classes[1].placements.padded);
  EXPECT_EQ(result.classes[1].map.classes[0].tree, sequential_tree({0, 1, 2, 3, 4}));
  EXPECT_EQ(result.summary(), "dependent (offsets 0-15 and ld+1 checked, 2 classes)");
}

// The placement moves the data, not the values: the same products at every offset and padding.
TEST(BlasAlignment, PlacedOperandsHoldTheSameValues) {
  const auto toy = open_blas(testing::toy_library());
  const auto target = toy->make_target(testing::resolved(*toy, {{"op", "gemv"}, {"m", "3"}, {"n", "4"}}));
  const std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<double> b = {1, 1, 1, 1};
  std::vector<std::vector<double>> outputs;
  for (const auto& [offset, pad] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {3, 0}, {5, 1}}) {
    ValueBatch batch;
    batch.rows = 3;
    batch.a = a;
    batch.b = b;
    batch.offset = offset;
    batch.leading_pad = pad;
    std::vector<double> out(3);
    target->evaluate(batch, out);
    outputs.push_back(out);
  }
  EXPECT_EQ(outputs[0], (std::vector<double>{10, 26, 42}));
  EXPECT_EQ(outputs[1], outputs[0]);
  EXPECT_EQ(outputs[2], outputs[0]);
}

}  // namespace
}  // namespace fprev::blas
