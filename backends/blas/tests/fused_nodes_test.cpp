// Fused multi-term nodes in a CPU library are revealed, not refused: the fused toy BLAS
// (tests/toy/toy_fused_blas.cpp) sums along a seeded random tree with fused 3- and 4-term nodes,
// which it also writes out itself (toy_fused_tree), so the expected tree does not come from the
// engine. No backend declares a maximum node width.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "blas_test_support.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"

namespace fprev::blas {
namespace {

using testing::open_blas;
using testing::resolved;

// The toy's own account of its tree for n summands.
Tree toy_tree(std::size_t n) {
  void* handle = dlopen(testing::toy_fused_library().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw std::runtime_error(dlerror());
  using TreeFn = int (*)(int, char*, int);
  const auto tree = reinterpret_cast<TreeFn>(dlsym(handle, "toy_fused_tree"));
  if (tree == nullptr) throw std::runtime_error("toy_fused_tree is missing");
  std::string text(64 * n + 64, '\0');
  const int length = tree(static_cast<int>(n), text.data(), static_cast<int>(text.size()));
  if (length < 0) throw std::runtime_error("toy_fused_tree: buffer too small");
  text.resize(static_cast<std::size_t>(length));
  return parse_sexpr(text);
}

TEST(BlasFusedNodes, TheToyTreesHaveFused3And4TermNodes) {
  for (std::size_t n : {40, 97}) {
    const auto arity = toy_tree(n).arity_histogram();
    EXPECT_GT(arity.count(3), 0u) << n;
    EXPECT_GT(arity.count(4), 0u) << n;
  }
}

TEST(BlasFusedNodes, DotIsRevealedExactlyInBothFormats) {
  const auto toy = open_blas(testing::toy_fused_library());
  for (const char* dtype : {"float32", "float64"}) {
    for (std::size_t n : {5, 40, 97}) {
      const auto target = toy->make_target(
          resolved(*toy, {{"op", "dot"}, {"n", std::to_string(n)}, {"dtype", dtype}}));
      const RevealResult result = reveal(*target);
      const Tree expected = toy_tree(n);
      EXPECT_EQ(result.tree, expected) << dtype << " n=" << n << "\n  revealed " << to_sexpr(result.tree)
                                       << "\n  expected " << to_sexpr(expected);
      if (expected.max_arity() > 2) {
        EXPECT_GT(result.stats.fused_node_tests, 0u);  // the fused nodes were tested, and passed
        EXPECT_NE(summarize(result.tree).description.find("fused"), std::string::npos)
            << summarize(result.tree).description;
      }
    }
  }
}

TEST(BlasFusedNodes, GemmIsOneClassFollowingTheTreeInBothFormats) {
  const auto toy = open_blas(testing::toy_fused_library());
  for (const char* dtype : {"float32", "float64"}) {
    for (const char* trans : {"NN", "TT"}) {
      const auto target = toy->make_target(resolved(
          *toy, {{"op", "gemm"}, {"m", "7"}, {"n", "5"}, {"k", "61"}, {"dtype", dtype}, {"trans", trans}}));
      const RevealResult result = reveal(*target);
      ASSERT_TRUE(result.map.single_class()) << dtype << " " << trans;
      EXPECT_EQ(result.tree, toy_tree(61)) << dtype << " " << trans << ": " << to_sexpr(result.tree);
      EXPECT_GT(result.stats.fused_node_tests, 0u);
    }
  }
}

}  // namespace
}  // namespace fprev::blas
