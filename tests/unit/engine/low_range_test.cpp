// Alg. 5 territory: outputs that count exactly only below 2^11 (float16) or 2^8 (bfloat16). The
// engine must notice saturated counts and still recover the exact tree.
#include <gtest/gtest.h>

#include "engine_test_helpers.hpp"
#include "fprev/sexpr.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

using testing::RoundedOracle;

void expect_recovered(const Tree& truth, Format output, std::size_t batch = 1) {
  RoundedOracle target(truth, output, batch);
  const RevealResult result = reveal(target);
  EXPECT_EQ(result.tree, truth);
  EXPECT_TRUE(result.stats.low_range_mode);
  EXPECT_EQ(result.scheme.exact_count_limit, output == Format::float16 ? 2048u : 256u);
}

TEST(LowRange, Float16OutputWith5000Summands) {
  expect_recovered(left_deep_tree(5000), Format::float16);
  expect_recovered(right_deep_tree(5000), Format::float16);
  expect_recovered(balanced_tree(5000), Format::float16);
  expect_recovered(random_binary_tree(5000, 7), Format::float16);
  expect_recovered(random_multiway_tree(5000, 17, 8), Format::float16, 64);
}

TEST(LowRange, Bfloat16OutputWith1000Summands) {
  expect_recovered(left_deep_tree(1000), Format::bfloat16);
  expect_recovered(right_deep_tree(1000), Format::bfloat16);
  expect_recovered(balanced_tree(1000), Format::bfloat16);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    expect_recovered(random_binary_tree(1000, seed), Format::bfloat16);
    expect_recovered(random_multiway_tree(1000, 9, seed), Format::bfloat16, 32);
  }
}

TEST(LowRange, NotUsedWhenTheOutputCountsEverything) {
  RoundedOracle target(left_deep_tree(2049), Format::float16);  // n - 2 = 2047 < 2048
  const RevealResult result = reveal(target);
  EXPECT_FALSE(result.stats.low_range_mode);
  EXPECT_EQ(result.tree, left_deep_tree(2049));
}

TEST(LowRange, BasicRefusesBeyondTheExactRange) {
  RoundedOracle target(left_deep_tree(300), Format::bfloat16);
  RevealOptions options;
  options.algorithm = Algorithm::basic;
  try {
    reveal(target, options);
    FAIL() << "expected a refusal";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::unsupported);
  }
}

}  // namespace
}  // namespace fprev
