// The example's kernel and its backend, tested directly (without fprev-golden's executable).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "kahan/kahan_backend.hpp"
#include "kahan/kahan_dot.hpp"

namespace {

TEST(BlockedKahanDot, CompensationKeepsWhatAPlainSumLoses) {
  // 1 followed by 4096 terms of 2^-25: each alone is below half an ulp of 1 in float32, so a plain
  // left-to-right float sum stays at 1; the exact sum 1 + 2^-13 is a float, and the compensated
  // sum of one block finds it.
  const std::size_t n = 4097;
  std::vector<float> x(n, std::ldexp(1.0f, -25)), y(n, 1.0f);
  x[0] = 1.0f;
  float plain = 0.0f;
  for (std::size_t k = 0; k < n; ++k) plain += x[k] * y[k];
  EXPECT_EQ(plain, 1.0f);
  EXPECT_EQ(kahan::blocked_kahan_dot(x, y, n), 1.0f + std::ldexp(1.0f, -13));
}

TEST(BlockedKahanDot, BlocksAreAddedPlainly) {
  // 1 and eight terms of 2^-54 (a quarter of an ulp of 1): in blocks of one, each block sum is
  // added plainly and vanishes against 1; in one block of nine, the compensation keeps them.
  std::vector<double> x(9, std::ldexp(1.0, -54)), y(9, 1.0);
  x[0] = 1.0;
  EXPECT_EQ(kahan::blocked_kahan_dot(std::span<const double>(x), y, 1), 1.0);
  EXPECT_EQ(kahan::blocked_kahan_dot(std::span<const double>(x), y, 9), 1.0 + std::ldexp(1.0, -51));
}

std::string revealed_tree(const std::string& dtype, int n, int block) {
  const auto backend = kahan::make_backend();
  const auto instance = backend->open({});
  const fprev::Params params = fprev::resolve_params(
      backend->case_params(), {{"dtype", dtype}, {"n", std::to_string(n)}, {"block", std::to_string(block)}},
      "test");
  const auto target = instance->make_target(params);
  return fprev::to_sexpr(fprev::reveal(*target).tree);
}

TEST(KahanBackend, RevealsBlocksOfSequentialAdditionsAddedInOrder) {
  // From the kernel's definition: each block adds its products left to right, the block sums are
  // added left to right. The compensation does not show in the probes (it is lost when the two
  // masks cancel), so the tree is that of the additions.
  EXPECT_EQ(revealed_tree("float32", 10, 4), "(((((0 1) 2) 3) (((4 5) 6) 7)) (8 9))");
  EXPECT_EQ(revealed_tree("float64", 7, 3), "((((0 1) 2) ((3 4) 5)) 6)");
  EXPECT_EQ(revealed_tree("float32", 5, 8), "((((0 1) 2) 3) 4)");
}

}  // namespace
