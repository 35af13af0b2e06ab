// End to end with the engine: fprev::reveal recovers expected_reference_tree for every order that
// has one, and the orders without one stop with the right finding, never with a tree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "expected_trees.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::reference {
namespace {

struct RevealConfig {
  Order order;
  std::size_t lanes = 8, block = 64, width = 5;
  std::uint64_t seed = 1;
};

const std::vector<RevealConfig>& tree_orders() {
  static const std::vector<RevealConfig> configs = {
      {Order::sequential},
      {Order::reverse},
      {Order::pairwise},
      {Order::strided_pairwise},
      {Order::strided_sequential},
      {Order::blocked, 8, 16},
      {Order::fused},
      {Order::random_tree},
  };
  return configs;
}

ReferenceSpec spec_of(const RevealConfig& config, std::size_t n, Format dtype = Format::float32,
                      std::optional<Format> output = std::nullopt, std::string op = "sum") {
  ReferenceSpec spec;
  spec.op = std::move(op);
  spec.order = config.order;
  spec.dtype = dtype;
  spec.output = output;
  spec.n = n;
  spec.lanes = config.lanes;
  spec.block = config.block;
  spec.width = config.width;
  spec.seed = config.seed;
  return spec;
}

void expect_revealed(const ReferenceSpec& spec) {
  SCOPED_TRACE(describe(spec));
  auto target = make_reference_target(spec);
  const Tree expected = expected_reference_tree(spec);
  try {
    const RevealResult result = reveal(*target);
    EXPECT_EQ(result.tree, expected) << "revealed " << to_sexpr(result.tree).substr(0, 300)
                                     << "\nexpected " << to_sexpr(expected).substr(0, 300);
  } catch (const RevealFailure& failure) {
    ADD_FAILURE() << failure.diagnostic().to_string();
  }
}

class RevealOrder : public ::testing::TestWithParam<RevealConfig> {};

TEST_P(RevealOrder, EveryNFrom1To70) {
  for (std::size_t n = 1; n <= 70; ++n) expect_revealed(spec_of(GetParam(), n));
}

TEST_P(RevealOrder, LargeN) {
  for (std::size_t n : {1000, 1023, 4097}) expect_revealed(spec_of(GetParam(), n));
}

TEST_P(RevealOrder, DotAndFloat64) {
  for (std::size_t n : {2, 9, 64, 257}) {
    expect_revealed(spec_of(GetParam(), n, Format::float64));
    expect_revealed(spec_of(GetParam(), n, Format::float32, std::nullopt, "dot"));
    expect_revealed(spec_of(GetParam(), n, Format::float64, std::nullopt, "dot"));
  }
}

TEST_P(RevealOrder, Float16OutputBeyondItsCountingRange) {
  expect_revealed(spec_of(GetParam(), 5000, Format::float32, Format::float16));
}

TEST_P(RevealOrder, Bfloat16OutputBeyondItsCountingRange) {
  expect_revealed(spec_of(GetParam(), 1000, Format::float32, Format::bfloat16));
}

std::string config_name(const ::testing::TestParamInfo<RevealConfig>& info) {
  return std::string(to_string(info.param.order));
}

INSTANTIATE_TEST_SUITE_P(TreeOrders, RevealOrder, ::testing::ValuesIn(tree_orders()), config_name);

TEST(RevealParameterVariants, LanesBlocksWidthsSeeds) {
  for (std::size_t n : {7, 33, 100}) {
    for (std::size_t lanes : {1, 3, 16}) {
      expect_revealed(spec_of({Order::strided_pairwise, lanes}, n));
      expect_revealed(spec_of({Order::strided_sequential, lanes}, n));
    }
    for (std::size_t block : {1, 5, 64}) expect_revealed(spec_of({Order::blocked, 8, block}, n));
    for (std::size_t width : {2, 3, 9, 17}) expect_revealed(spec_of({Order::fused, 8, 64, width}, n));
    for (std::uint64_t seed : {2, 3, 12345}) expect_revealed(spec_of({Order::random_tree, 8, 64, 5, seed}, n));
  }
}

// ---- orders without a tree --------------------------------------------------------------------

Finding failure_of(const ReferenceSpec& spec) {
  auto target = make_reference_target(spec);
  try {
    const RevealResult result = reveal(*target);
    ADD_FAILURE() << describe(spec) << ": revealed a tree " << to_sexpr(result.tree).substr(0, 200);
  } catch (const RevealFailure& failure) {
    return failure.diagnostic().finding;
  }
  return Finding::unsupported;
}

TEST(RevealMisbehaving, NondeterministicIsReportedAsSuch) {
  ReferenceSpec spec = spec_of({Order::nondeterministic}, 100);
  auto target = make_reference_target(spec);
  try {
    reveal(*target);
    ADD_FAILURE() << "revealed a tree";
  } catch (const RevealFailure& failure) {
    EXPECT_EQ(failure.diagnostic().finding, Finding::nondeterministic) << failure.diagnostic().to_string();
    ASSERT_TRUE(failure.diagnostic().variability.has_value());
    EXPECT_GT(failure.diagnostic().variability->count_variability, 0.0);
  }
}

TEST(RevealMisbehaving, SortedMagnitudeIsValueDependent) {
  for (std::size_t n : {8, 100}) {
    const Finding finding = failure_of(spec_of({Order::sorted_magnitude}, n));
    EXPECT_TRUE(finding == Finding::value_dependent || finding == Finding::inconsistent_structure ||
                finding == Finding::verification_failed)
        << "n=" << n << ": " << fprev::to_string(finding);
  }
}

TEST(RevealMisbehaving, ExactIsOrderIndependent) {
  for (std::size_t n : {8, 100}) {
    for (Format dtype : {Format::float32, Format::float64})
      EXPECT_EQ(failure_of(spec_of({Order::exact}, n, dtype)), Finding::order_independent)
          << "n=" << n;
  }
}

TEST(RevealMisbehaving, NanIsNonFiniteOutput) {
  for (std::size_t n : {8, 100}) {
    EXPECT_EQ(failure_of(spec_of({Order::nan}, n)), Finding::non_finite_output);
    EXPECT_EQ(failure_of(spec_of({Order::nan}, n, Format::float64)), Finding::non_finite_output);
    EXPECT_EQ(failure_of(spec_of({Order::nan}, n, Format::float32, Format::float16)),
              Finding::non_finite_output);
  }
}

}  // namespace
}  // namespace fprev::reference
