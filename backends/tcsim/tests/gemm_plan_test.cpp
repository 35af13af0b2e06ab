// The GEMM schedule: k-loop over steps, residue tile, split-K slices of whole tiles.
#include <gtest/gtest.h>

#include "expected_schedule.hpp"
#include "fprev/backends/tcsim/gemm.hpp"

namespace {

using namespace fprev::tcsim;
using tcsim_test::Step;

std::vector<std::vector<Step>> as_steps(const GemmPlan& plan) {
  std::vector<std::vector<Step>> out;
  for (const auto& slice : plan.slices) {
    out.emplace_back();
    for (const KRange& r : slice) out.back().push_back({r.begin, r.end});
  }
  return out;
}

GemmConfig config(std::size_t k_tile, std::size_t split_k = 1, KResidue residue = KResidue::first) {
  GemmConfig c;
  c.k_tile = k_tile;
  c.split_k = split_k;
  c.residue = residue;
  return c;
}

TEST(GemmPlan, MultipleOfTheStepIsAPlainChain) {
  const GemmPlan p = plan_gemm(32, 4, config(32));
  EXPECT_EQ(as_steps(p), (std::vector<std::vector<Step>>{
                             {{0, 4}, {4, 8}, {8, 12}, {12, 16}, {16, 20}, {20, 24}, {24, 28}, {28, 32}}}));
}

// CUTLASS processes the partial k-tile first, right-aligned: the first step is the short one.
TEST(GemmPlan, ResidueFirst) {
  EXPECT_EQ(as_steps(plan_gemm(10, 4, config(8))),
            (std::vector<std::vector<Step>>{{{0, 2}, {2, 6}, {6, 10}}}));
  // k = 36, step 8, tile 32: the residue tile holds 4 elements.
  EXPECT_EQ(as_steps(plan_gemm(36, 8, config(32))),
            (std::vector<std::vector<Step>>{{{0, 4}, {4, 12}, {12, 20}, {20, 28}, {28, 36}}}));
  // k smaller than one step.
  EXPECT_EQ(as_steps(plan_gemm(3, 16, config(64))), (std::vector<std::vector<Step>>{{{0, 3}}}));
}

TEST(GemmPlan, ResidueLast) {
  EXPECT_EQ(as_steps(plan_gemm(10, 4, config(8, 1, KResidue::last))),
            (std::vector<std::vector<Step>>{{{0, 4}, {4, 8}, {8, 10}}}));
}

// Slices hold ceil(ceil(k / k_tile) / split_k) whole tiles; only the last is shorter.
TEST(GemmPlan, SplitKSlicesAreWholeTiles) {
  // k = 100, tile 32, 2 slices: ceil(4 / 2) = 2 tiles = 64.
  GemmPlan p = plan_gemm(100, 16, config(32, 2));
  EXPECT_EQ(p.slice_size, 64u);
  EXPECT_EQ(as_steps(p), (std::vector<std::vector<Step>>{{{0, 16}, {16, 32}, {32, 48}, {48, 64}},
                                                          {{64, 68}, {68, 84}, {84, 100}}}));
  // k = 80: tile 32 gives slices [0,64) [64,80); tile 16 gives [0,48) [48,80).
  p = plan_gemm(80, 8, config(32, 2));
  EXPECT_EQ(p.slice_size, 64u);
  EXPECT_EQ(p.slices.size(), 2u);
  EXPECT_EQ(p.slices[1].front().begin, 64u);
  p = plan_gemm(80, 8, config(16, 2));
  EXPECT_EQ(p.slice_size, 48u);
  EXPECT_EQ(p.slices[1].front().begin, 48u);
  // Fewer non-empty slices than split_k when k is short: k = 10, tile 4, 4 slices of 1 tile.
  p = plan_gemm(10, 4, config(4, 4));
  EXPECT_EQ(as_steps(p), (std::vector<std::vector<Step>>{{{0, 4}}, {{4, 8}}, {{8, 10}}}));
}

TEST(GemmPlan, RejectsBadConfigurations) {
  EXPECT_THROW(plan_gemm(0, 4, config(32)), std::invalid_argument);
  EXPECT_THROW(plan_gemm(8, 0, config(32)), std::invalid_argument);
  EXPECT_THROW(plan_gemm(8, 4, config(30)), std::invalid_argument);
  EXPECT_THROW(plan_gemm(8, 4, config(0)), std::invalid_argument);
  EXPECT_THROW(plan_gemm(8, 4, config(32, 0)), std::invalid_argument);
}

// Over many shapes: the steps cover [0, k) once, in order; no step is longer than the step size;
// slices start at multiples of the slice size, which is a whole number of tiles; steps are aligned
// to the slice start (residue last) or to the slice end (residue first), i.e. the same as the
// independent construction steps_over().
TEST(GemmPlan, PropertiesOverManyShapes) {
  for (std::size_t step : {1u, 4u, 8u, 16u}) {
    for (std::size_t tiles : {1u, 2u, 3u}) {
      const std::size_t k_tile = step * tiles * 2;
      for (std::size_t split : {1u, 2u, 3u, 5u}) {
        for (KResidue residue : {KResidue::first, KResidue::last}) {
          for (std::size_t k = 1; k <= 100; ++k) {
            const GemmPlan p = plan_gemm(k, step, config(k_tile, split, residue));
            ASSERT_EQ(p.slice_size % k_tile, 0u);
            ASSERT_LE(p.slices.size(), split);
            std::size_t next = 0;
            for (std::size_t s = 0; s < p.slices.size(); ++s) {
              const std::size_t lo = s * p.slice_size, hi = std::min(k, lo + p.slice_size);
              ASSERT_EQ(p.slices[s].front().begin, lo);
              std::vector<Step> got;
              for (const KRange& r : p.slices[s]) {
                ASSERT_EQ(r.begin, next);
                ASSERT_GT(r.end, r.begin);
                ASSERT_LE(r.end - r.begin, step);
                next = r.end;
                got.push_back({r.begin, r.end});
              }
              ASSERT_EQ(next, hi);
              ASSERT_EQ(got, tcsim_test::steps_over(lo, hi, step, residue == KResidue::first))
                  << "k=" << k << " step=" << step << " tile=" << k_tile << " split=" << split;
            }
            ASSERT_EQ(next, k);
          }
        }
      }
    }
  }
}

}  // namespace
