// A routine whose order depends on the output position is a finding, never a silent assumption:
// the toy BLAS reverses the order of its last gemv row and its last gemm column, and the targets
// must throw BatchInconsistent on the first call that shows it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "blas_test_support.hpp"

namespace fprev::blas {
namespace {

using testing::open_blas;

Params resolved(const BackendInstance& instance, const Params& params) {
  return resolve_params(instance.case_params(), params, "test case");
}

// Three summands whose float sum depends on the order: forwards (2^24 + 1) - 2^24 = 0 (the 1 is
// lost to rounding), backwards (-2^24 + 1) + 2^24 = 1.
const std::vector<double> kOrderSensitive = {std::ldexp(1.0, 24), 1.0, -std::ldexp(1.0, 24)};

std::vector<double> evaluate_values(Target& target, const std::vector<double>& a) {
  ValueBatch batch;
  batch.rows = a.size() / target.info().n;
  batch.a = a;
  const std::vector<double> b(target.info().n, 1.0);
  batch.b = b;
  std::vector<double> out(batch.rows);
  target.evaluate(batch, out);
  return out;
}

// One probe per call: +M at leaf 0, -M at leaf 1, the unit elsewhere. Forwards the masks cancel
// first and the units count (n - 2); backwards the units are absorbed by -M (0).
std::vector<double> evaluate_probe(Target& target) {
  static const ProbeValues values{
      {1.0, 1.0}, {std::ldexp(1.0, 40), 1.0}, {-std::ldexp(1.0, 40), 1.0}};
  Background background;
  background.id = Background::next_id();
  const Background* backgrounds[] = {&background};
  const Probe probes[] = {{0, 1, 0}};
  ProbeBatch batch{&values, backgrounds, probes};
  std::vector<double> out(1);
  target.evaluate(batch, out);
  return out;
}

void expect_inconsistent(const std::function<void()>& call, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "no BatchInconsistent";
  } catch (const BatchInconsistent& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("batch_inconsistent: ", 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

TEST(BlasBatchConsistency, GemvWhoseLastRowSumsBackwardsIsFound) {
  const auto toy = open_blas(testing::toy_library());
  const auto target = toy->make_target(resolved(*toy, {{"op", "gemv"}, {"m", "3"}, {"n", "4"}}));
  ASSERT_EQ(target->info().max_batch, 2u);
  // Row 0 sums forwards (2 units after the masks cancel), row 2 backwards (0).
  expect_inconsistent([&] { evaluate_probe(*target); }, "rows 0 and 2 of one call hold the same "
                                                        "input but returned 2 and 0");
}

TEST(BlasBatchConsistency, GemmWhoseLastColumnSumsBackwardsIsFound) {
  const auto toy = open_blas(testing::toy_library());
  // One row: no row check, only the column check can see it.
  const auto target =
      toy->make_target(resolved(*toy, {{"op", "gemm"}, {"m", "1"}, {"n", "4"}, {"k", "3"}}));
  ASSERT_EQ(target->info().max_batch, 1u);
  expect_inconsistent([&] { evaluate_probe(*target); },
                      "columns 0 and 3 of row 0 hold the same input (B's columns are equal) but "
                      "returned 1 and 0");
  // Random inputs that tell the orders apart are computed, not compared (see below).
  EXPECT_EQ(evaluate_values(*target, kOrderSensitive), (std::vector<double>{0.0}));
}

TEST(BlasBatchConsistency, ConsistentToyShapesPass) {
  const auto toy = open_blas(testing::toy_library());
  // A single column and a single row: nothing to compare, the reversed order is the order.
  const auto gemm =
      toy->make_target(resolved(*toy, {{"op", "gemm"}, {"m", "1"}, {"n", "1"}, {"k", "3"}}));
  EXPECT_EQ(evaluate_values(*gemm, kOrderSensitive), (std::vector<double>{1.0}));
  EXPECT_EQ(evaluate_probe(*gemm), (std::vector<double>{0.0}));
  const auto gemv = toy->make_target(resolved(*toy, {{"op", "gemv"}, {"m", "1"}, {"n", "3"}}));
  EXPECT_EQ(evaluate_values(*gemv, kOrderSensitive), (std::vector<double>{1.0}));
  EXPECT_EQ(evaluate_probe(*gemv), (std::vector<double>{0.0}));
  // Harmless inputs in several rows of a toy call: every order gives the same sums.
  const auto wide = toy->make_target(resolved(*toy, {{"op", "gemv"}, {"m", "3"}, {"n", "3"}}));
  EXPECT_EQ(evaluate_values(*wide, {1, 2, 3, 4, 5, 6}), (std::vector<double>{6, 15}));
}

// Random inputs are not compared across rows: an edge kernel without FMA rounds products that the
// main kernel keeps exact, which differs in the last bit without any difference in order.
TEST(BlasBatchConsistency, RandomInputsAreNotComparedAcrossRows) {
  const auto toy = open_blas(testing::toy_library());
  const auto target = toy->make_target(resolved(*toy, {{"op", "gemv"}, {"m", "3"}, {"n", "3"}}));
  // Row 0 forwards: 0. Row 1 (the last row is row 2) forwards too.
  std::vector<double> a = kOrderSensitive;
  a.insert(a.end(), kOrderSensitive.begin(), kOrderSensitive.end());
  EXPECT_EQ(evaluate_values(*target, a), (std::vector<double>{0.0, 0.0}));
}

// Probes in every row of one call, over all pairs, on shapes that are whole register tiles:
// OpenBLAS follows one order in every row and column there.
TEST(BlasBatchConsistency, OpenBlasWholeTilesAgreeOnEveryProbe) {
  const auto openblas = open_blas("openblas");
  for (const Params& p : std::vector<Params>{
           {{"op", "gemm"}, {"m", "32"}, {"n", "16"}, {"k", "21"}},
           {{"op", "gemm"}, {"m", "32"}, {"n", "16"}, {"k", "21"}, {"trans", "TN"}, {"beta", "1"}},
           {{"op", "gemm"}, {"m", "32"}, {"n", "16"}, {"k", "21"}, {"dtype", "float64"}},
           {{"op", "gemv"}, {"m", "32"}, {"n", "21"}},
           {{"op", "gemv"}, {"m", "21"}, {"n", "32"}, {"trans", "T"}}}) {
    const auto target = openblas->make_target(resolved(*openblas, p));
    const auto n = static_cast<std::uint32_t>(target->info().n);
    const ProbeValues values{{1.0, 1.0}, {std::ldexp(1.0, 80), 1.0}, {-std::ldexp(1.0, 80), 1.0}};
    Background background;
    background.id = Background::next_id();
    const Background* backgrounds[] = {&background};
    std::vector<Probe> all;
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = i + 1; j < n; ++j) all.push_back({i, j, 0});
    const std::size_t batch = target->info().max_batch;
    for (std::size_t begin = 0; begin < all.size(); begin += batch) {
      const std::size_t count = std::min(batch, all.size() - begin);
      ProbeBatch probes{&values, backgrounds, std::span<const Probe>(all).subspan(begin, count)};
      std::vector<double> out(count);
      ASSERT_NO_THROW(target->evaluate(probes, out)) << target->info().description;
    }
  }
}

}  // namespace
}  // namespace fprev::blas
