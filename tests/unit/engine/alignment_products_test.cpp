// The placement (alignment) proof of a dot product whose order is the same at every placement but
// whose products are computed otherwise at one of them. The proof's random inputs have powers of
// two on the right (exact products), so their bits cannot show it; one input with random
// significands on both factors, compared with offset 0's outputs, does, but only once offset 0 is
// seen to follow the map the check was handed (a map that offset 0 does not follow is no reference).
#include <gtest/gtest.h>

#include <optional>

#include "fprev/alignment.hpp"
#include "oracle_target.hpp"
#include "quick_options.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

// One tree at every offset; at `otherwise` the right factors are rounded to bfloat16 before they
// are multiplied (an unaligned path that converts y alone).
class DotWithProductsOtherwiseAt final : public Target {
 public:
  DotWithProductsOtherwiseAt(const Tree& tree, std::optional<std::size_t> otherwise)
      : oracle_(tree, float32_product_traits(), 8), info_(oracle_.info()), otherwise_(otherwise) {
    info_.alignment = AlignmentSupport::honours_offsets;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override { oracle_.evaluate(batch, outputs); }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    if (!otherwise_ || batch.offset != *otherwise_) {
      oracle_.evaluate(batch, outputs);
      return;
    }
    std::vector<double> rounded;
    for (double v : batch.b) rounded.push_back(round_to_format(v, Format::bfloat16));
    ValueBatch changed = batch;
    changed.b = rounded;
    oracle_.evaluate(changed, outputs);
  }

 private:
  TreeOracleTarget oracle_;
  TargetInfo info_;
  std::optional<std::size_t> otherwise_;
};

TEST(AlignmentProducts, ADotWhoseProductsAreRoundedOtherwiseAtOnePlacementFails) {
  const Tree tree = lanes_tree(64, 4);
  DotWithProductsOtherwiseAt target(tree, 5);
  try {
    check_alignment(target, OrderMap::uniform({1, 1}, tree), testing::quick_reveal_options());
    FAIL() << "offset 5 computes its products otherwise and was accepted";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find("offset 5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("differ bitwise from offset 0"), std::string::npos) << e.what();
  }
}

// The same dot at every placement: the comparison finds nothing, every proof holds, nothing is
// revealed.
TEST(AlignmentProducts, TheSameDotEverywhereIsIndependent) {
  const Tree tree = lanes_tree(64, 4);
  DotWithProductsOtherwiseAt target(tree, std::nullopt);
  AlignmentStats stats;
  const AlignmentResult result =
      check_alignment(target, OrderMap::uniform({1, 1}, tree), testing::quick_reveal_options(), &stats);
  EXPECT_EQ(result.verdict, AlignmentVerdict::independent);
  EXPECT_EQ(stats.proofs, 15u);
  EXPECT_EQ(stats.proofs_failed, 0u);
  EXPECT_EQ(stats.reveals, 0u);
}

}  // namespace
}  // namespace fprev
