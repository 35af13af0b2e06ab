// The GEMM driver's numbers against independently written schedules (literal step lists),
// evaluated with the fused-sum model on random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "expected_schedule.hpp"
#include "fprev/backends/tcsim/gemm.hpp"

namespace {

using fprev::Format;
using namespace fprev::tcsim;
using tcsim_test::CLeaf;
using tcsim_test::Schedule;

struct Inputs {
  std::vector<double> a, b;
  double c = 0.0;
};

Inputs random_inputs(std::mt19937_64& rng, std::size_t k, Format input) {
  Inputs in;
  const int range = input == Format::fp8_e4m3 ? 4 : 8;
  for (std::size_t i = 0; i < k; ++i) {
    in.a.push_back(tcsim_test::random_value(rng, input, -range, range));
    in.b.push_back(tcsim_test::random_value(rng, input, -range, range));
  }
  in.c = tcsim_test::random_value(rng, Format::float32, -8, 8);
  return in;
}

bool same(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// Runs `trials` random inputs through the kernel and the schedule; returns how many agree.
int agreements(const GemmKernel& kernel, const Schedule& s, int trials, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int agree = 0;
  for (int t = 0; t < trials; ++t) {
    const Inputs in = random_inputs(rng, s.k, kernel.input());
    const double* c = s.c == CLeaf::none ? nullptr : &in.c;
    const double got = kernel.element(in.a.data(), in.b.data(), 1, c);
    const double want =
        tcsim_test::expected_value(s, kernel.model(), in.a, in.b, in.c, kernel.output());
    agree += same(got, want) ? 1 : 0;
  }
  return agree;
}

GemmConfig config(std::size_t k_tile, std::size_t split_k = 1,
                  SplitKReduction reduction = SplitKReduction::sequential) {
  GemmConfig c;
  c.k_tile = k_tile;
  c.split_k = split_k;
  c.reduction = reduction;
  return c;
}

constexpr int kTrials = 300;

TEST(GemmKernel, VoltaChainWithPartialFirstStep) {
  const GemmKernel kernel(arch_model(Arch::volta), Format::float16, Format::float32, 10, config(8));
  Schedule s;
  s.k = 10;
  s.slices = {{{0, 2}, {2, 6}, {6, 10}}};
  EXPECT_EQ(agreements(kernel, s, kTrials, 1), kTrials);
  // The comparison can fail: the residue-last schedule is a different order.
  Schedule last = s;
  last.slices = {{{0, 4}, {4, 8}, {8, 10}}};
  EXPECT_LT(agreements(kernel, last, kTrials, 1), kTrials * 9 / 10);
}

TEST(GemmKernel, ResidueLast) {
  GemmConfig c = config(8);
  c.residue = KResidue::last;
  const GemmKernel kernel(arch_model(Arch::volta), Format::bfloat16, Format::float32, 10, c);
  Schedule s;
  s.k = 10;
  s.slices = {{{0, 4}, {4, 8}, {8, 10}}};
  EXPECT_EQ(agreements(kernel, s, kTrials, 2), kTrials);
}

TEST(GemmKernel, AmpereSplitKSequential) {
  // k = 40, tile 16, 2 slices: ceil(ceil(40/16)/2) = 2 tiles = 32 per slice.
  const GemmKernel kernel(arch_model(Arch::ampere), Format::float16, Format::float32, 40,
                          config(16, 2));
  Schedule s;
  s.k = 40;
  s.slices = {{{0, 8}, {8, 16}, {16, 24}, {24, 32}}, {{32, 40}}};
  EXPECT_EQ(agreements(kernel, s, kTrials, 3), kTrials);
  Schedule unsplit = tcsim_test::chain(40, 8);
  EXPECT_LT(agreements(kernel, unsplit, kTrials, 3), kTrials * 9 / 10);
}

TEST(GemmKernel, HopperSplitKPairwiseWithEpilogueC) {
  // k = 100, tile 16, 4 slices of ceil(7/4) = 2 tiles: [0,32) [32,64) [64,96) [96,100).
  GemmConfig c = config(16, 4, SplitKReduction::pairwise);
  const GemmKernel kernel(arch_model(Arch::hopper), Format::float16, Format::float32, 100, c);
  Schedule s;
  s.k = 100;
  s.slices = {{{0, 16}, {16, 32}}, {{32, 48}, {48, 64}}, {{64, 80}, {80, 96}}, {{96, 100}}};
  s.pairwise = true;
  s.c = CLeaf::epilogue;
  EXPECT_EQ(agreements(kernel, s, kTrials, 4), kTrials);
  Schedule sequential = s;
  sequential.pairwise = false;
  EXPECT_LT(agreements(kernel, sequential, kTrials, 4), kTrials * 9 / 10);
}

TEST(GemmKernel, PairwiseOfFourSlices) {
  const GemmKernel kernel(arch_model(Arch::volta), Format::float16, Format::float32, 16,
                          config(4, 4, SplitKReduction::pairwise));
  Schedule s;
  s.k = 16;
  s.slices = {{{0, 4}}, {{4, 8}}, {{8, 12}}, {{12, 16}}};
  s.pairwise = true;
  EXPECT_EQ(agreements(kernel, s, kTrials, 5), kTrials);
}

TEST(GemmKernel, CAsTheFirstAccumulator) {
  GemmConfig c = config(32);
  c.c_placement = CPlacement::accumulator;
  const GemmKernel kernel(arch_model(Arch::volta), Format::float16, Format::float32, 9, c);
  Schedule s;
  s.k = 9;
  s.slices = {{{0, 1}, {1, 5}, {5, 9}}};
  s.c = CLeaf::accumulator;
  EXPECT_EQ(agreements(kernel, s, kTrials, 6), kTrials);
  Schedule epilogue = s;
  epilogue.c = CLeaf::epilogue;
  EXPECT_LT(agreements(kernel, epilogue, kTrials, 6), kTrials * 9 / 10);
}

TEST(GemmKernel, OutputFormatsAndInputFormats) {
  struct Case {
    Arch arch;
    Format input, output;
    std::size_t step;
  };
  for (const Case& c : {Case{Arch::volta, Format::float16, Format::float16, 4},
                        Case{Arch::turing, Format::bfloat16, Format::bfloat16, 4},
                        Case{Arch::ampere, Format::tf32, Format::float32, 8},
                        Case{Arch::ampere, Format::bfloat16, Format::float16, 8},
                        Case{Arch::hopper, Format::fp8_e4m3, Format::float32, 16},
                        Case{Arch::hopper, Format::fp8_e5m2, Format::float16, 16}}) {
    const GemmKernel kernel(arch_model(c.arch), c.input, c.output, 37, config(64 / c.step * c.step));
    EXPECT_EQ(agreements(kernel, tcsim_test::chain(37, c.step), 100, 7), 100)
        << to_string(c.arch) << " " << fprev::to_string(c.input);
  }
}

// float64: a chain of IEEE FMAs in k order (Xie et al., USENIX ATC 2025 Sec. 5.2.1), not a fused sum.
TEST(GemmKernel, Float64IsAChainOfFmas) {
  const GemmKernel kernel(arch_model(Arch::ampere), Format::float64, Format::float64, 3, config(4));
  EXPECT_TRUE(kernel.fma_chain());
  EXPECT_EQ(kernel.accumulator(), Format::float64);
  // a0 * b0 = 1 - 2^-60 rounds to 1; a1 * b1 = -(1 + 2^-29 + 2^-60) keeps its 2^-60 only inside an
  // FMA, where it survives the cancellation against the accumulator.
  const std::vector<double> a{1.0 + 0x1p-30, -(1.0 + 0x1p-30), 0.5};
  const std::vector<double> b{1.0 - 0x1p-30, 1.0 + 0x1p-30, 0x1p-40};
  double want = a[0] * b[0];
  for (std::size_t i = 1; i < a.size(); ++i) want = std::fma(a[i], b[i], want);
  double naive = a[0] * b[0];
  for (std::size_t i = 1; i < a.size(); ++i) naive += a[i] * b[i];
  ASSERT_NE(want, naive);  // the inputs tell an FMA chain from multiply-then-add
  EXPECT_EQ(kernel.element(a.data(), b.data(), 1, nullptr), want);
}

TEST(GemmKernel, RunComputesEveryElement) {
  const std::size_t m = 3, n = 4, k = 21;
  GemmConfig c = config(16, 2);
  const GemmKernel kernel(arch_model(Arch::ampere), Format::float16, Format::float32, k, c);
  std::mt19937_64 rng(8);
  std::vector<double> a(m * k), b(k * n), cm(m * n), d(m * n);
  for (double& x : a) x = tcsim_test::random_value(rng, Format::float16, -6, 6);
  for (double& x : b) x = tcsim_test::random_value(rng, Format::float16, -6, 6);
  for (double& x : cm) x = tcsim_test::random_value(rng, Format::float32, -6, 6);
  kernel.run(m, n, a, b, cm, d);
  Schedule s;
  s.k = k;
  s.slices = {{{0, 8}, {8, 16}}, {{16, 21}}};
  s.c = CLeaf::epilogue;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> row(a.begin() + static_cast<std::ptrdiff_t>(i * k),
                              a.begin() + static_cast<std::ptrdiff_t>((i + 1) * k));
      std::vector<double> col;
      for (std::size_t l = 0; l < k; ++l) col.push_back(b[l * n + j]);
      EXPECT_EQ(d[i * n + j], tcsim_test::expected_value(s, kernel.model(), row, col, cm[i * n + j],
                                                         Format::float32));
    }
  }
  EXPECT_THROW(kernel.run(m, n, a, b, {}, std::span<double>(d.data(), 3)), std::invalid_argument);
}

TEST(GemmKernel, RejectsFormatsTheArchitectureLacks) {
  EXPECT_THROW(GemmKernel(arch_model(Arch::volta), Format::tf32, Format::float32, 8, config(32)),
               std::invalid_argument);
  EXPECT_THROW(GemmKernel(arch_model(Arch::ampere), Format::fp8_e4m3, Format::float32, 8, config(32)),
               std::invalid_argument);
  EXPECT_THROW(GemmKernel(arch_model(Arch::volta), Format::float64, Format::float64, 8, config(32)),
               std::invalid_argument);
  EXPECT_THROW(GemmKernel(arch_model(Arch::ampere), Format::float64, Format::float32, 8, config(32)),
               std::invalid_argument);
  EXPECT_THROW(GemmKernel(arch_model(Arch::ampere), Format::float16, Format::fp8_e4m3, 8, config(32)),
               std::invalid_argument);
}

}  // namespace
