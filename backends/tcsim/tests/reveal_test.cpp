// FPRev (the engine) on the simulated accelerators: the trees Xie et al., USENIX ATC 2025 reports for V100, A100 and
// H100, the low-dynamic-range path (Alg. 5), and tilings that change the tree. Expected trees are
// built from literal step lists (expected_schedule.hpp), not from the driver's plan.
#include <gtest/gtest.h>

#include "expected_schedule.hpp"
#include "fprev/backends/tcsim.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "random_trees.hpp"

namespace {

using fprev::Format;
using fprev::Tree;
using namespace fprev::tcsim;
using tcsim_test::CLeaf;
using tcsim_test::Schedule;

GemmTargetSpec gemm(Arch arch, Format input, std::size_t k) {
  GemmTargetSpec s;
  s.model = arch_model(arch);
  s.config.k_tile = default_k_tile(arch);
  s.input = input;
  s.output = input == Format::float64 ? Format::float64 : Format::float32;
  s.k = k;
  return s;
}

fprev::RevealResult reveal(const GemmTargetSpec& spec) {
  auto target = make_tcsim_target(spec);
  return fprev::reveal(*target);
}

std::map<std::size_t, std::size_t> histogram(std::initializer_list<std::pair<const std::size_t, std::size_t>> h) {
  return h;
}

// Xie et al., USENIX ATC 2025 Sec. 7, Figure 4: float16 GEMM with k = 32 gives a 5-way tree on V100, a 9-way tree on
// A100 and a 17-way tree on H100 ((4+1)-, (8+1)-, (16+1)-term fused sums). Without C the first step
// adds only products: one node of 4 (8, 16) children, then nodes of 5 (9, 17).
TEST(TcsimReveal, Float16GemmK32HasTheFusedWidthsOfV100A100H100) {
  struct Case {
    Arch arch;
    std::size_t width;
    std::map<std::size_t, std::size_t> arity;
  };
  for (const Case& c : {Case{Arch::volta, 5, histogram({{4, 1}, {5, 7}})},
                        Case{Arch::turing, 5, histogram({{4, 1}, {5, 7}})},
                        Case{Arch::ampere, 9, histogram({{8, 1}, {9, 3}})},
                        Case{Arch::hopper, 17, histogram({{16, 1}, {17, 1}})}}) {
    const fprev::RevealResult r = reveal(gemm(c.arch, Format::float16, 32));
    EXPECT_EQ(r.tree.max_arity(), c.width) << to_string(c.arch);
    EXPECT_EQ(r.tree.arity_histogram(), c.arity) << to_string(c.arch);
    EXPECT_EQ(r.tree, tcsim_test::expected_tree(tcsim_test::chain(32, c.width - 1)))
        << to_string(c.arch) << ": " << fprev::to_sexpr(r.tree);
    EXPECT_FALSE(r.stats.low_range_mode);
    EXPECT_LE(r.stats.target_calls * 16, r.stats.probes + 16 * 64) << "probes are batched per row";
  }
}

// The "+1" of the papers is the accumulator: with C entering as the first accumulator, C (leaf k)
// is the fifth term of the first Volta step.
TEST(TcsimReveal, CAsAccumulatorJoinsTheFirstFusedStep) {
  GemmTargetSpec s = gemm(Arch::volta, Format::float16, 32);
  s.beta = true;
  s.config.c_placement = CPlacement::accumulator;
  Schedule want = tcsim_test::chain(32, 4);
  want.c = CLeaf::accumulator;
  const Tree tree = reveal(s).tree;
  EXPECT_EQ(tree, tcsim_test::expected_tree(want)) << fprev::to_sexpr(tree);
  EXPECT_EQ(tree.arity_histogram(), histogram({{5, 8}}));
  // In the epilogue, C is added last with an ordinary addition.
  s.config.c_placement = CPlacement::epilogue;
  want.c = CLeaf::epilogue;
  EXPECT_EQ(reveal(s).tree, tcsim_test::expected_tree(want));
}

// k not a multiple of the step: the partial step comes first (residue-first main loop) or last.
TEST(TcsimReveal, KNotAMultipleOfTheStep) {
  GemmTargetSpec s = gemm(Arch::ampere, Format::bfloat16, 100);
  Schedule want;
  want.k = 100;
  want.slices = {tcsim_test::steps_over(0, 100, 8, true)};
  ASSERT_EQ(want.slices[0].front(), (tcsim_test::Step{0, 4}));
  EXPECT_EQ(reveal(s).tree, tcsim_test::expected_tree(want));
  s.config.residue = KResidue::last;
  want.slices = {tcsim_test::steps_over(0, 100, 8, false)};
  ASSERT_EQ(want.slices[0].back(), (tcsim_test::Step{96, 100}));
  EXPECT_EQ(reveal(s).tree, tcsim_test::expected_tree(want));
}

// Split-K: slices of whole tiles accumulated on their own, then added. k = 100, Hopper, tile 32,
// 2 slices of ceil(4/2) = 2 tiles: [0,64) and [64,100).
TEST(TcsimReveal, SplitK) {
  GemmTargetSpec s = gemm(Arch::hopper, Format::float16, 100);
  s.config.k_tile = 32;
  s.config.split_k = 2;
  Schedule want;
  want.k = 100;
  want.slices = {{{0, 16}, {16, 32}, {32, 48}, {48, 64}}, {{64, 68}, {68, 84}, {84, 100}}};
  const Tree tree = reveal(s).tree;
  EXPECT_EQ(tree, tcsim_test::expected_tree(want)) << fprev::to_sexpr(tree);
  EXPECT_EQ(tree.children(tree.root()).size(), 2u);  // the two slices, added at the end
}

TEST(TcsimReveal, SplitKPairwiseReduction) {
  GemmTargetSpec s = gemm(Arch::volta, Format::float16, 64);
  s.config.k_tile = 16;
  s.config.split_k = 4;
  s.config.reduction = SplitKReduction::pairwise;
  Schedule want;
  want.k = 64;
  for (std::size_t lo = 0; lo < 64; lo += 16) want.slices.push_back(tcsim_test::steps_over(lo, lo + 16, 4, true));
  want.pairwise = true;
  EXPECT_EQ(reveal(s).tree, tcsim_test::expected_tree(want));
}

// The simulated "driver upgrade": a different k_tile or split_k gives a different tree.
TEST(TcsimReveal, ChangedTilingChangesTheTree) {
  GemmTargetSpec s = gemm(Arch::ampere, Format::float16, 80);
  s.config.split_k = 2;
  s.config.k_tile = 32;  // slices [0,64) [64,80)
  const Tree tile32 = reveal(s).tree;
  s.config.k_tile = 16;  // slices [0,48) [48,80)
  const Tree tile16 = reveal(s).tree;
  s.config.split_k = 1;
  const Tree unsplit = reveal(s).tree;
  EXPECT_NE(tile32, tile16);
  EXPECT_NE(tile16, unsplit);
  EXPECT_NE(tile32, unsplit);
  Schedule want;
  want.k = 80;
  want.slices = {tcsim_test::steps_over(0, 64, 8, true), tcsim_test::steps_over(64, 80, 8, true)};
  EXPECT_EQ(tile32, tcsim_test::expected_tree(want));
  want.slices = {tcsim_test::steps_over(0, 48, 8, true), tcsim_test::steps_over(48, 80, 8, true)};
  EXPECT_EQ(tile16, tcsim_test::expected_tree(want));
  EXPECT_EQ(unsplit, tcsim_test::expected_tree(tcsim_test::chain(80, 8)));
}

// Xie et al., USENIX ATC 2025 Alg. 5: counts beyond what the output format holds exactly (2048 for float16 output)
// switch the engine to the low-dynamic-range technique.
TEST(TcsimReveal, Float16OutputBeyond2048UsesAlgorithm5) {
  GemmTargetSpec s = gemm(Arch::hopper, Format::float16, 2100);
  s.output = Format::float16;
  const fprev::RevealResult r = reveal(s);
  EXPECT_TRUE(r.stats.low_range_mode);
  EXPECT_EQ(r.tree, tcsim_test::expected_tree(tcsim_test::chain(2100, 16)));
  EXPECT_EQ(r.tree.max_arity(), 17u);
}

// bfloat16 output counts exactly only below 256. (bfloat16 is not a Tensor Core output format: the
// model converts the float32 result in the epilogue, rounding to nearest, as GEMM libraries do.)
TEST(TcsimReveal, Bfloat16OutputBeyond256UsesAlgorithm5) {
  GemmTargetSpec s = gemm(Arch::ampere, Format::bfloat16, 300);
  s.output = Format::bfloat16;
  const fprev::RevealResult r = reveal(s);
  EXPECT_TRUE(r.stats.low_range_mode);
  EXPECT_EQ(r.tree, tcsim_test::expected_tree(tcsim_test::chain(300, 8)));
}

// Hopper's step is 8 products for tf32 and 32 for fp8 (as on an H200, tests/hardware_test.cpp).
TEST(TcsimReveal, OtherInputFormats) {
  struct Case {
    Arch arch;
    Format input;
    std::size_t k, step;
  };
  for (const Case& c : {Case{Arch::ampere, Format::tf32, 40, 8}, Case{Arch::hopper, Format::tf32, 50, 8},
                        Case{Arch::hopper, Format::fp8_e4m3, 64, 32},
                        Case{Arch::hopper, Format::fp8_e5m2, 100, 32},
                        Case{Arch::turing, Format::bfloat16, 37, 4}}) {
    const fprev::RevealResult r = reveal(gemm(c.arch, c.input, c.k));
    EXPECT_EQ(r.tree, tcsim_test::expected_tree(tcsim_test::chain(c.k, c.step)))
        << to_string(c.arch) << " " << fprev::to_string(c.input) << ": " << fprev::to_sexpr(r.tree);
  }
}

// float64: a chain of FMAs in k order, a left-deep binary tree; split-K adds the slices.
TEST(TcsimReveal, Float64IsASequentialFmaChain) {
  GemmTargetSpec s = gemm(Arch::ampere, Format::float64, 20);
  const fprev::RevealResult r = reveal(s);
  EXPECT_EQ(r.tree, fprev::left_deep_tree(20));
  EXPECT_GT(r.stats.simulated_inputs, 0u);  // binary: verified by simulation too
  s.config.k_tile = 8;
  s.config.split_k = 2;  // slices [0,16) [16,20)
  Schedule want;
  want.k = 20;
  want.slices = {tcsim_test::steps_over(0, 16, 1, true), tcsim_test::steps_over(16, 20, 1, true)};
  EXPECT_EQ(reveal(s).tree, tcsim_test::expected_tree(want));
}

}  // namespace

namespace {

// k = 2: one fused step of two products, a 2-child node that truncates like any fused sum. The
// engine must not verify it by simulating an IEEE (round-to-nearest) addition: with several
// seeds some random inputs would tell the two apart (seed 3 does).
TEST(TcsimReveal, TwoProductsAreOneFusedNodeForEverySeed) {
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    auto target = make_tcsim_target(gemm(Arch::volta, Format::float16, 2));
    fprev::RevealOptions options;
    options.seed = seed;
    EXPECT_EQ(fprev::to_sexpr(fprev::reveal(*target, options).tree), "(0 1)") << "seed " << seed;
  }
}

}  // namespace
