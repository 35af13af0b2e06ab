// The alignment check (fprev/alignment.hpp) against the reference kernels, whose orders at every
// offset are known by construction: aligned_peel (peels until aligned, its order depends on the
// offset modulo its lanes) must give an order map over offsets with exactly the hand-derived trees;
// an aligned-only kernel (strided_pairwise) must give "independent" from proofs alone, no reveal.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "fprev/alignment.hpp"
#include "quick_options.hpp"
#include "fprev/backends/reference.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::reference {
namespace {

RevealOptions quick() { return ::fprev::testing::quick_reveal_options(); }

std::unique_ptr<Target> target(Order order, Format dtype, std::size_t n, std::size_t lanes) {
  ReferenceSpec spec;
  spec.order = order;
  spec.dtype = dtype;
  spec.n = n;
  spec.lanes = lanes;
  return make_reference_target(spec);
}

// aligned_peel with 4 lanes over 12 float64 summands, derived from its definition (reference.hpp):
// p = (4 - offset % 4) % 4 summands are peeled, x[p..11] go to lane (k - p) % 4, the lanes are
// combined pairwise ((l0 l1) (l2 l3)), then x[0], .., x[p-1] are added one at a time.
const char* const kPeelTrees[4] = {
    "((((0 4) 8) ((1 5) 9)) (((2 6) 10) ((3 7) 11)))",              // offsets 0, 4: p = 0
    "(((0 ((((3 7) 11) (4 8)) ((5 9) (6 10)))) 1) 2)",              // offsets 1, 5: p = 3
    "((0 ((((2 6) 10) ((3 7) 11)) ((4 8) (5 9)))) 1)",              // offsets 2, 6: p = 2
    "(0 ((((1 5) 9) ((2 6) 10)) (((3 7) 11) (4 8))))",              // offsets 3, 7: p = 1
};

TEST(AlignmentCheck, PeelingKernelGivesAnOrderMapOverOffsets) {
  const auto peel = target(Order::aligned_peel, Format::float64, 12, 4);
  const RevealResult at_zero = reveal(*peel, quick());
  ASSERT_EQ(at_zero.tree, parse_sexpr(kPeelTrees[0]));
  AlignmentStats stats;
  const AlignmentResult result = check_alignment(*peel, at_zero.map, quick(), &stats);
  EXPECT_EQ(result.verdict, AlignmentVerdict::dependent);
  EXPECT_EQ(result.offsets, 8u);  // float64: 8 elements in 64 bytes
  EXPECT_FALSE(result.padded);    // a single-output target has no leading dimension
  ASSERT_EQ(result.classes.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(result.classes[k].placements.offsets, (std::vector<std::size_t>{k, k + 4})) << k;
    ASSERT_TRUE(result.classes[k].map.single_class());
    EXPECT_EQ(result.classes[k].map.classes[0].tree, parse_sexpr(kPeelTrees[k])) << k;
  }
  EXPECT_EQ(result.summary(), "dependent (offsets 0-7 checked, 4 classes)");
  // A reveal only where no known class's proof held: offsets 1, 2, 3 (4..7 are proven).
  EXPECT_EQ(stats.placements, 7u);
  EXPECT_EQ(stats.reveals, 3u);
}

TEST(AlignmentCheck, AlignedOnlyKernelIsIndependentByProofsAlone) {
  const auto lanes = target(Order::strided_pairwise, Format::float32, 100, 8);
  const RevealResult at_zero = reveal(*lanes, quick());
  AlignmentStats stats;
  const AlignmentResult result = check_alignment(*lanes, at_zero.map, quick(), &stats);
  EXPECT_EQ(result.verdict, AlignmentVerdict::independent);
  EXPECT_TRUE(result.classes.empty());
  EXPECT_EQ(result.summary(), "independent (offsets 0-15 checked)");
  EXPECT_EQ(stats.placements, 15u);
  EXPECT_EQ(stats.proofs, 15u);
  EXPECT_EQ(stats.proofs_failed, 0u);
  EXPECT_EQ(stats.reveals, 0u);
  // Each offset gets the same proof, cheaper than the tree's n - 1 one-pair probes (the nodes of one
  // height share multi-pair probes, docs/alignment.md), and no reveal's worth of probes.
  EXPECT_EQ(stats.probes % 15u, 0u);
  EXPECT_LT(stats.probes, 15u * 99u);
  EXPECT_GT(stats.multi_pair_probes, 0u);
  EXPECT_LT(stats.multi_pair_probes, stats.probes);  // the root and narrow heights: one pair each
}

// The peeling kernel against a wrong tree at offset 0 is no "independent": a proof that fails
// everywhere makes the check reveal, and the revealed orders disagree with the given one.
TEST(AlignmentCheck, ProofsAreRealChecks) {
  const auto peel = target(Order::aligned_peel, Format::float64, 12, 4);
  const OrderMap wrong = OrderMap::uniform({1, 1}, parse_sexpr(kPeelTrees[1]));
  const AlignmentResult result = check_alignment(*peel, wrong, quick());
  ASSERT_EQ(result.verdict, AlignmentVerdict::dependent);
  EXPECT_EQ(result.classes[0].map.classes[0].tree, parse_sexpr(kPeelTrees[1]));
  EXPECT_EQ(result.classes[0].placements.offsets, (std::vector<std::size_t>{0, 1, 5}));
}

// The check has one time budget, however many placements it proves.
TEST(AlignmentCheck, StopsAtItsTimeBudget) {
  const auto lanes = target(Order::strided_pairwise, Format::float32, 4096, 8);
  const RevealResult at_zero = reveal(*lanes, quick());
  RevealOptions tight = quick();
  tight.max_seconds = 1e-6;
  EXPECT_THROW(check_alignment(*lanes, at_zero.map, tight), RevealOverBudget);
}

// A reference target that counts its calls, and fails every call placed at or beyond `fail_from`
// (as a kernel with a bug in one of its alignment paths would).
class Watched final : public Target {
 public:
  Watched(std::unique_ptr<Target> inner, std::shared_ptr<std::atomic<std::size_t>> calls, std::size_t fail_from)
      : inner_(std::move(inner)), calls_(std::move(calls)), fail_from_(fail_from) {}
  const TargetInfo& info() const override { return inner_->info(); }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    count(batch.offset);
    inner_->evaluate(batch, outputs);
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    count(batch.offset);
    inner_->evaluate(batch, outputs);
  }

 private:
  void count(std::size_t offset) {
    ++*calls_;
    if (offset >= fail_from_) throw TargetError("a broken path for data at offset " + std::to_string(offset));
  }
  std::unique_ptr<Target> inner_;
  std::shared_ptr<std::atomic<std::size_t>> calls_;
  std::size_t fail_from_;
};

// Placements proven side by side on instances from make_worker (the probe streams' condition):
// the same classes, placements, trees and counts as one after another, and the instances did work.
TEST(AlignmentCheck, PlacementsProvenSideBySideGiveWhatASerialCheckGives) {
  for (const Order order : {Order::aligned_peel, Order::strided_pairwise}) {
    SCOPED_TRACE(static_cast<int>(order));
    const auto serial_target = target(order, Format::float64, 12, 4);
    const RevealResult at_zero = reveal(*serial_target, quick());
    AlignmentStats serial_stats;
    const AlignmentResult serial = check_alignment(*serial_target, at_zero.map, quick(), &serial_stats);

    auto made_calls = std::make_shared<std::atomic<std::size_t>>(0);
    std::size_t made = 0;
    RevealOptions side_by_side = quick();
    side_by_side.streams = 3;
    side_by_side.make_worker = [&made, made_calls, order] {
      ++made;
      return std::make_unique<Watched>(target(order, Format::float64, 12, 4), made_calls, SIZE_MAX);
    };
    const auto lane_zero = target(order, Format::float64, 12, 4);
    AlignmentStats stats;
    const AlignmentResult result = check_alignment(*lane_zero, at_zero.map, side_by_side, &stats);
    EXPECT_TRUE(same_alignment(result, serial));
    EXPECT_EQ(result.summary(), serial.summary());
    EXPECT_EQ(stats.placements, serial_stats.placements);
    EXPECT_EQ(stats.proofs, serial_stats.proofs);
    EXPECT_EQ(stats.proofs_failed, serial_stats.proofs_failed);
    EXPECT_EQ(stats.reveals, serial_stats.reveals);
    EXPECT_EQ(stats.probes, serial_stats.probes);
    EXPECT_EQ(stats.target_calls, serial_stats.target_calls);
    EXPECT_EQ(made, 2u);          // lanes 1 and 2; lane 0 is the caller's target
    EXPECT_GT(made_calls->load(), 0u);
  }
}

// A misbehaving placement is reported as a serial check reports it: at the first such placement,
// whichever lane met its failure first.
TEST(AlignmentCheck, AMisbehavingPlacementSideBySideIsNamedAsInASerialCheck) {
  const auto good = target(Order::strided_pairwise, Format::float64, 12, 4);
  const RevealResult at_zero = reveal(*good, quick());
  auto calls = std::make_shared<std::atomic<std::size_t>>(0);
  RevealOptions side_by_side = quick();
  side_by_side.streams = 2;
  // Lane 1 gets offsets 2, 4, 6 and fails at 6 first; lane 0 gets 1, 3, 5, 7 and fails at 5.
  side_by_side.make_worker = [calls] {
    return std::make_unique<Watched>(target(Order::strided_pairwise, Format::float64, 12, 4), calls, 5);
  };
  Watched lane_zero(target(Order::strided_pairwise, Format::float64, 12, 4), calls, 5);
  try {
    check_alignment(lane_zero, at_zero.map, side_by_side);
    FAIL() << "a target failing at offsets 5-7 passed the check";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::target_error) << e.what();
    EXPECT_NE(e.diagnostic().message.find("at offset 5 from a 64-byte boundary"), std::string::npos)
        << e.diagnostic().message;
  }
}

// A target that ignores offsets is not checked, one whose library places the data gets "not
// applicable": no probe either way.
class Declares final : public Target {
 public:
  Declares(std::unique_ptr<Target> inner, AlignmentSupport support) : inner_(std::move(inner)), info_(inner_->info()) {
    info_.alignment = support;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch&, std::span<double>) override { ++calls; }
  void evaluate(const ValueBatch&, std::span<double>) override { ++calls; }
  std::size_t calls = 0;

 private:
  std::unique_ptr<Target> inner_;
  TargetInfo info_;
};

TEST(AlignmentCheck, TargetsThatCannotBePlacedAreNotChecked) {
  const OrderMap any = OrderMap::uniform({1, 1}, parse_sexpr(kPeelTrees[0]));
  Declares ignores(target(Order::aligned_peel, Format::float64, 12, 4), AlignmentSupport::ignores);
  EXPECT_EQ(check_alignment(ignores, any).verdict, AlignmentVerdict::not_checked);
  Declares placed_by_library(target(Order::aligned_peel, Format::float64, 12, 4), AlignmentSupport::not_applicable);
  const AlignmentResult result = check_alignment(placed_by_library, any);
  EXPECT_EQ(result.verdict, AlignmentVerdict::not_applicable);
  EXPECT_EQ(result.summary(), "not applicable");
  EXPECT_EQ(ignores.calls + placed_by_library.calls, 0u);
}

// The offset reaches the kernel through ProbeVectors: values placed at offset 2 are read back the
// same, and only the order changes.
TEST(AlignmentCheck, PlacedTargetMovesTheDataNotTheValues) {
  const auto peel = target(Order::sequential, Format::float32, 5, 4);
  PlacedTarget placed(*peel, 2);
  const std::vector<double> a = {1, 2, 3, 4, 5};
  ValueBatch batch;
  batch.rows = 1;
  batch.a = a;
  double out = 0;
  placed.evaluate(batch, std::span<double>(&out, 1));
  EXPECT_EQ(out, 15.0);
}

}  // namespace
}  // namespace fprev::reference
