// Revealing real BLAS routines end to end with the engine. The expected trees of the netlib
// reference BLAS are read from its Fortran source (LAPACK 3.x BLAS/SRC):
//   sdot/ddot, INCX = INCY = 1: a clean-up loop over the first MOD(N,5) products, then steps of 5
//     written STEMP = STEMP + SX(I)*SY(I) + ... + SX(I+4)*SY(I+4), which Fortran evaluates left to
//     right: one sequential sum over 0..n-1 (the unrolling does not change the order).
//   sgemv 'N': Y = BETA*Y, then for each column J: Y(I) = Y(I) + TEMP*A(I,J): the old y first,
//     then the columns in order. sgemv 'T': TEMP = sum over I in order, then Y(J) = Y(J) +
//     ALPHA*TEMP: the products in order, the old y last.
//   sgemm 'N','N': C(I,J) = C(I,J) + TEMP*A(I,L) for L = 1..K: the old C first. 'T','N':
//     TEMP summed over L, then C(I,J) = ALPHA*TEMP + BETA*C(I,J): the old C last.
// The toy BLAS sums its dot product backwards.
#include <gtest/gtest.h>

#include <algorithm>

#include "blas_test_support.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace fprev::blas {
namespace {

using testing::iota_order;
using testing::open_blas;
using testing::sequential_tree;

Params resolved(const BackendInstance& instance, const Params& params) {
  return resolve_params(instance.case_params(), params, "test case");
}

RevealResult reveal_case(const BackendInstance& instance, const Params& params) {
  const auto target = instance.make_target(resolved(instance, params));
  return reveal(*target);
}

std::vector<std::uint32_t> c_first(std::size_t reduction) {
  std::vector<std::uint32_t> order = iota_order(reduction);
  order.insert(order.begin(), static_cast<std::uint32_t>(reduction));
  return order;
}

TEST(BlasReveal, NetlibDotIsOneSequentialSum) {
  FPREV_OPEN_OR_SKIP(netlib, "netlib", 1);
  for (const char* dtype : {"float32", "float64"})
    for (std::size_t n : {2, 3, 5, 7, 13, 100}) {
      const RevealResult result =
          reveal_case(*netlib, {{"op", "dot"}, {"n", std::to_string(n)}, {"dtype", dtype}});
      EXPECT_EQ(result.tree, sequential_tree(iota_order(n)))
          << dtype << " n=" << n << ": " << to_sexpr(result.tree);
    }
}

TEST(BlasReveal, NetlibGemvAndGemmAddTheOldCWhereTheSourceSays) {
  FPREV_OPEN_OR_SKIP(netlib, "netlib", 1);
  struct Expected {
    Params params;
    std::vector<std::uint32_t> order;
  };
  const std::vector<Expected> cases = {
      {{{"op", "gemv"}, {"m", "6"}, {"n", "9"}}, iota_order(9)},
      {{{"op", "gemv"}, {"m", "6"}, {"n", "9"}, {"beta", "1"}}, c_first(9)},
      {{{"op", "gemv"}, {"m", "9"}, {"n", "6"}, {"trans", "T"}, {"beta", "1"}}, iota_order(10)},
      {{{"op", "gemm"}, {"m", "5"}, {"n", "3"}, {"k", "11"}, {"dtype", "float64"}}, iota_order(11)},
      {{{"op", "gemm"}, {"m", "5"}, {"n", "3"}, {"k", "11"}, {"beta", "1"}}, c_first(11)},
      {{{"op", "gemm"}, {"m", "5"}, {"n", "3"}, {"k", "11"}, {"trans", "TN"}, {"beta", "1"}},
       iota_order(12)},
  };
  for (const auto& [params, order] : cases) {
    const RevealResult result = reveal_case(*netlib, params);
    EXPECT_EQ(result.tree, sequential_tree(order)) << to_sexpr(result.tree);
  }
}

TEST(BlasReveal, ToyDotByPathIsRevealedBackwards) {
  const auto toy = open_blas(testing::toy_library());
  std::vector<std::uint32_t> backwards = iota_order(17);
  std::reverse(backwards.begin(), backwards.end());
  EXPECT_EQ(reveal_case(*toy, {{"op", "dot"}, {"n", "17"}}).tree, sequential_tree(backwards));
}

TEST(BlasReveal, PositionDependentOrderIsAMapNotATree) {
  const auto toy = open_blas(testing::toy_library());
  // The last 12 mod 8 = 4 rows of the toy's sgemv sum backwards.
  const RevealResult result = reveal_case(*toy, {{"op", "gemv"}, {"m", "12"}, {"n", "6"}});
  EXPECT_TRUE(result.tree.empty());
  ASSERT_EQ(result.map.classes.size(), 2u);
  EXPECT_EQ(result.map.class_at(0, 0).tree, sequential_tree(iota_order(6)));
  std::vector<std::uint32_t> backwards = iota_order(6);
  std::reverse(backwards.begin(), backwards.end());
  EXPECT_EQ(result.map.class_at(8, 0).tree, sequential_tree(backwards));
  EXPECT_EQ(result.map.classes[1].regions, (std::vector<Region>{{{{8, 11}}, {{0, 0}}}}));
}

// Forced to the Sandybridge kernels, whose sgemm follows one order in every element of a 64 x 64 C
// (the family OpenBLAS picks by itself depends on the CPU).
TEST(BlasReveal, OpenBlasGemmIsRevealedWithManyProbesPerCall) {
  const auto openblas = testing::open_openblas_family("Sandybridge");
  const auto target = openblas->make_target(
      resolved(*openblas, {{"op", "gemm"}, {"m", "64"}, {"n", "64"}, {"k", "257"}}));
  const RevealResult result = reveal(*target);
  EXPECT_EQ(result.tree.leaf_count(), 257u);
  // Many probes per call: the rows (and columns) of the grid carry them.
  EXPECT_GE(result.stats.probes, 10 * result.stats.target_calls) << result.stats.probes << " probes in "
                                                                   << result.stats.target_calls
                                                                   << " calls";
  EXPECT_NO_THROW(verify(*target, result.tree));
  // With beta = 1 the old C is one more leaf of the same kind of tree.
  const RevealResult with_c = reveal_case(
      *openblas, {{"op", "gemm"}, {"m", "64"}, {"n", "64"}, {"k", "257"}, {"beta", "1"}});
  EXPECT_EQ(with_c.tree.leaf_count(), 258u);
}

// n a multiple of 32: OpenBLAS's x86_64 sdot adds the n mod 32 tail products in double (its
// sdot.c declares `double dot`), which a float32 tree cannot reproduce bitwise; whole blocks of 32
// are summed in float32 vector registers and follow a tree exactly.
TEST(BlasReveal, OpenBlasDotIsRevealedAndVerified) {
  const auto openblas = open_blas("openblas");
  for (const char* dtype : {"float32", "float64"}) {
    const auto target = openblas->make_target(
        resolved(*openblas, {{"op", "dot"}, {"n", "1024"}, {"dtype", dtype}}));
    const RevealResult result = reveal(*target);
    EXPECT_EQ(result.tree.leaf_count(), 1024u);
    RevealOptions other_inputs;
    other_inputs.seed = 12345;
    EXPECT_NO_THROW(verify(*target, result.tree, other_inputs)) << dtype;
    // Not the reference order: OpenBLAS's kernels keep several partial sums.
    EXPECT_NE(result.tree, sequential_tree(iota_order(1024))) << dtype;
  }
}

}  // namespace
}  // namespace fprev::blas
