// A GEMM or GEMV target writes a batch of probes with every leaf active straight into its operand
// and, from the second such batch on, only puts back the previous batch's masks and zero lines
// (matrix_target.cpp, load_all_active_probes). What a call computes must not depend on the calls
// before it: every batch of a random sequence (masks anywhere, fewer probes than lines, both
// placements, value calls and other offsets in between) must give the outputs of the same batch on
// a target that made no call before, and the outputs of the same probes written the general way
// (a background that lists every leaf, staged and copied as before).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "blas_test_support.hpp"

namespace fprev::blas {
namespace {

using testing::open_blas;
using testing::resolved;

struct Shape {
  Params params;
  std::size_t rows, columns, n;
  bool columns_placement;
};

std::vector<double> run(Target& target, const ProbeBatch& batch) {
  std::vector<double> out(target.info().grid.size());
  target.evaluate(batch, out);
  return out;
}

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

TEST(BlasProbeLoading, ABatchGivesWhatItGivesOnAFreshTargetAndWrittenTheGeneralWay) {
  const auto blas = open_blas("openblas");
  const std::vector<Shape> shapes = {
      {{{"op", "gemv"}, {"m", "9"}, {"n", "13"}}, 9, 1, 13, true},
      {{{"op", "gemv"}, {"trans", "T"}, {"m", "13"}, {"n", "9"}}, 9, 1, 13, true},
      {{{"op", "gemm"}, {"m", "7"}, {"n", "5"}, {"k", "11"}}, 7, 5, 11, true},
      {{{"op", "gemm"}, {"m", "6"}, {"n", "8"}, {"k", "10"}, {"beta", "1"}, {"trans", "TN"}}, 6, 8, 11, true},
  };
  std::mt19937_64 rng(2024);
  ProbeValues values;
  values.unit = {1.0, 1.0};
  values.plus = {std::ldexp(1.0, 40), 1.0};
  values.minus = {-std::ldexp(1.0, 40), 1.0};
  Background all;
  all.id = Background::next_id();
  all.all_active = true;
  std::size_t compared = 0;
  for (const Shape& shape : shapes) {
    const Params params = resolved(*blas, shape.params);
    const auto target = blas->make_target(params);
    ASSERT_EQ(target->info().n, shape.n);
    Background listed;  // every leaf active, but listed: the general path
    listed.id = Background::next_id();
    listed.all_active = false;
    for (std::uint32_t k = 0; k < shape.n; ++k) listed.active.push_back(k);
    for (int step = 0; step < 40; ++step) {
      const bool by_rows = !shape.columns_placement || rng() % 3 != 0;
      const std::size_t lines = by_rows ? shape.rows : shape.columns;
      const std::size_t count = 1 + rng() % lines;
      std::vector<Probe> probes;
      for (std::size_t p = 0; p < count; ++p) {
        const auto i = static_cast<std::uint32_t>(rng() % shape.n);
        auto j = static_cast<std::uint32_t>(rng() % (shape.n - 1));
        if (j >= i) ++j;
        probes.push_back({i, j, 0});
      }
      const std::size_t offset = step % 7 == 6 ? rng() % 4 : 0;
      const Background* fast_list[1] = {&all};
      const Background* general_list[1] = {&listed};
      ProbeBatch batch;
      batch.values = &values;
      batch.probes = probes;
      batch.placement = by_rows ? Placement::rows : Placement::columns;
      batch.offset = offset;
      batch.backgrounds = fast_list;
      const std::vector<double> got = run(*target, batch);
      const auto fresh = blas->make_target(params);
      const std::vector<double> expected = run(*fresh, batch);
      ProbeBatch general = batch;
      general.backgrounds = general_list;
      const std::vector<double> written = run(*blas->make_target(params), general);
      ASSERT_TRUE(same_bits(got, expected)) << "step " << step << " of " << target->info().description;
      ASSERT_TRUE(same_bits(got, written)) << "step " << step << " of " << target->info().description;
      ++compared;
      if (step % 5 == 4) {  // a value call in between writes the operands its own way
        ValueBatch value;
        value.rows = shape.rows;
        std::vector<double> a(shape.rows * shape.n);
        for (double& v : a) v = static_cast<double>(rng() % 8);
        value.a = a;
        std::vector<double> out(target->info().grid.size());
        target->evaluate(value, out);
      }
    }
  }
  EXPECT_EQ(compared, 160u);
}

}  // namespace
}  // namespace fprev::blas
