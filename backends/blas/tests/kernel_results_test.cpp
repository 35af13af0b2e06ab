// Each op computes what BLAS defines, on every installed library: random inputs through the
// target's ValueBatch path (on rows and on columns of the grid) against a naive double-precision
// reference, every element of a call independent of the other lines, and probe inputs against the
// counts a known sequential order must give.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "blas_test_support.hpp"

namespace fprev::blas {
namespace {

using testing::inputs_per_call;
using testing::open_blas;
using testing::run_probes;
using testing::run_values;

Params resolved(const BackendInstance& instance, const Params& params) {
  return resolve_params(instance.case_params(), params, "test case");
}

struct RandomInputs {
  std::vector<double> a, b;
};

// Values exactly representable in float (so in both dtypes): random significands of `bits` bits
// scaled into about [-1, 1].
RandomInputs random_inputs(std::size_t rows, std::size_t n, std::uint64_t seed, int bits = 24) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> significand(-(1 << (bits - 1)), (1 << (bits - 1)) - 1);
  std::uniform_int_distribution<int> exponent(-3, 0);
  const auto draw = [&] { return std::ldexp(significand(rng), exponent(rng) - bits + 1); };
  RandomInputs in;
  for (std::size_t i = 0; i < rows * n; ++i) in.a.push_back(draw());
  for (std::size_t i = 0; i < n; ++i) in.b.push_back(draw());
  return in;
}

// Per input, every output that adds it (the elements of its line on a grid target).
std::vector<std::vector<double>> evaluate(Target& target, const RandomInputs& in, std::size_t rows,
                                          Placement placement = Placement::rows) {
  return run_values(target, rows, in.a, in.b, placement);
}

const std::vector<Params>& cases() {
  static const std::vector<Params> all = [] {
    std::vector<Params> list;
    for (const char* dtype : {"float32", "float64"}) {
      for (const char* n : {"1", "7", "100"}) list.push_back({{"op", "dot"}, {"n", n}, {"dtype", dtype}});
      for (const char* trans : {"N", "T"})
        for (const char* beta : {"0", "1"})
          list.push_back({{"op", "gemv"}, {"m", "5"}, {"n", "7"}, {"trans", trans},
                          {"beta", beta}, {"dtype", dtype}});
      for (const char* trans : {"NN", "NT", "TN", "TT"})
        for (const char* beta : {"0", "1"})
          list.push_back({{"op", "gemm"}, {"m", "6"}, {"n", "3"}, {"k", "9"}, {"trans", trans},
                          {"beta", beta}, {"dtype", dtype}});
    }
    return list;
  }();
  return all;
}

std::string describe(const Params& p) {
  std::string text;
  for (const auto& [k, v] : p) text += k + "=" + v + " ";
  return text;
}

class BlasKernelResults : public ::testing::TestWithParam<std::string> {};

TEST_P(BlasKernelResults, MatchANaiveReferenceOnRandomInputs) {
  FPREV_OPEN_OR_SKIP(instance, GetParam(), 1);
  std::uint64_t seed = 1;
  for (const Params& p : cases()) {
    const auto target = instance->make_target(resolved(*instance, p));
    const std::size_t n = target->info().n;
    for (Placement placement : {Placement::rows, Placement::columns}) {
      if (placement == Placement::columns && !target->info().columns_placement) continue;
      const std::size_t rows = inputs_per_call(target->info(), placement);
      const RandomInputs in = random_inputs(rows, n, seed++);
      const auto out = evaluate(*target, in, rows, placement);
      const double tolerance = p.at("dtype") == "float32" ? 1e-5 : 1e-13;
      for (std::size_t r = 0; r < rows; ++r) {
        // Every summand is a[r][l] * b[l], the old C (beta = 1) included.
        double exact = 0.0, magnitude = 0.0;
        for (std::size_t l = 0; l < n; ++l) {
          exact += in.a[r * n + l] * in.b[l];
          magnitude += std::fabs(in.a[r * n + l] * in.b[l]);
        }
        ASSERT_FALSE(out[r].empty());
        for (double v : out[r])
          EXPECT_NEAR(v, exact, tolerance * std::max(1.0, magnitude))
              << GetParam() << " " << describe(p) << " input " << r << " on "
              << to_string(placement);
      }
    }
  }
}

TEST_P(BlasKernelResults, BetaOneAddsTheOldC) {
  FPREV_OPEN_OR_SKIP(instance, GetParam(), 1);
  for (const char* op : {"gemv", "gemm"}) {
    Params p = {{"op", op}, {"m", "4"}, {"n", "3"}, {"dtype", "float64"}};
    if (std::string(op) == "gemm") p["k"] = "5";
    const auto without = instance->make_target(resolved(*instance, p));
    p["beta"] = "1";
    const auto with = instance->make_target(resolved(*instance, p));
    const std::size_t reduction = without->info().n;
    ASSERT_EQ(with->info().n, reduction + 1);
    // Integers: every result is exact, so the old C must appear in full.
    RandomInputs in;
    for (std::size_t l = 0; l < reduction; ++l) {
      in.a.push_back(static_cast<double>(l + 1));
      in.b.push_back(2.0);
    }
    for (Placement placement : {Placement::rows, Placement::columns}) {
      RandomInputs base_in = in;
      const auto base = evaluate(*without, base_in, 1, placement);
      base_in.a.push_back(1000.0);  // the old C is 1000 * 0.5
      base_in.b.push_back(0.5);
      const auto added = evaluate(*with, base_in, 1, placement);
      ASSERT_EQ(added[0].size(), base[0].size());
      for (std::size_t e = 0; e < added[0].size(); ++e)
        EXPECT_EQ(added[0][e], base[0][e] + 500.0) << GetParam() << " " << op;
    }
  }
}

// Every element depends on its own line's input only: input r in line r of a full call gives the
// bits it gives when every other line holds zeros. Inputs have 8-bit significands, so every
// product is exact.
TEST_P(BlasKernelResults, EveryLineDependsOnItsOwnInputOnly) {
  FPREV_OPEN_OR_SKIP(instance, GetParam(), 1);
  for (const Params& p : std::vector<Params>{
           {{"op", "gemm"}, {"m", "19"}, {"n", "13"}, {"k", "37"}},
           {{"op", "gemm"}, {"m", "19"}, {"n", "13"}, {"k", "37"}, {"trans", "TN"}, {"beta", "1"}},
           {{"op", "gemm"}, {"m", "19"}, {"n", "13"}, {"k", "37"}, {"trans", "NT"}, {"dtype", "float64"}},
           {{"op", "gemv"}, {"m", "21"}, {"n", "41"}},
           {{"op", "gemv"}, {"m", "41"}, {"n", "21"}, {"trans", "T"}, {"dtype", "float64"}}}) {
    const auto target = instance->make_target(resolved(*instance, p));
    const std::size_t n = target->info().n;
    for (Placement placement : {Placement::rows, Placement::columns}) {
      const std::size_t rows = inputs_per_call(target->info(), placement);
      const RandomInputs all = random_inputs(rows, n, 42, 8);
      const auto batched = evaluate(*target, all, rows, placement);
      for (std::size_t r = 0; r < rows; r += 5) {
        RandomInputs alone;
        alone.a.assign(rows * n, 0.0);
        std::copy_n(all.a.begin() + static_cast<std::ptrdiff_t>(r * n), n,
                    alone.a.begin() + static_cast<std::ptrdiff_t>(r * n));
        alone.b = all.b;
        EXPECT_EQ(evaluate(*target, alone, rows, placement)[r], batched[r])
            << GetParam() << " " << describe(p) << " line " << r << " of " << to_string(placement);
      }
    }
  }
}

// A GEMM's columns may each take right factors of their own (TargetInfo::column_right_factors, the
// fingerprint's packed calls): element (r, c) gives the bits it gives in a call where every column
// holds column c's factors. GEMV (one column) does not offer it.
TEST_P(BlasKernelResults, EveryColumnWithRightFactorsOfItsOwnGivesWhatItGivesAlone) {
  FPREV_OPEN_OR_SKIP(instance, GetParam(), 1);
  const auto gemv = instance->make_target(resolved(*instance, {{"op", "gemv"}, {"m", "5"}, {"n", "7"}}));
  EXPECT_FALSE(gemv->info().column_right_factors);
  std::uint64_t seed = 7;
  for (const char* dtype : {"float32", "float64"})
    for (const char* trans : {"NN", "NT", "TN", "TT"})
      for (const char* beta : {"0", "1"}) {
        const Params p = {{"op", "gemm"}, {"m", "9"}, {"n", "5"}, {"k", "23"},
                          {"trans", trans}, {"beta", beta}, {"dtype", dtype}};
        const auto target = instance->make_target(resolved(*instance, p));
        const TargetInfo& info = target->info();
        ASSERT_TRUE(info.column_right_factors) << describe(p);
        const std::size_t n = info.n, rows = info.grid.rows, columns = info.grid.columns;
        const RandomInputs in = random_inputs(rows, n, seed++);
        // Three blocks of factors; column c names block (c * 2) mod 3.
        std::vector<double> blocks;
        for (std::size_t block = 0; block < 3; ++block) {
          const RandomInputs factors = random_inputs(0, n, seed++);
          blocks.insert(blocks.end(), factors.b.begin(), factors.b.end());
        }
        std::vector<std::uint32_t> named(columns);
        for (std::size_t c = 0; c < columns; ++c) named[c] = static_cast<std::uint32_t>((c * 2) % 3);
        ValueBatch packed;
        packed.rows = rows;
        packed.a = in.a;
        packed.b = blocks;
        packed.column_factors = named;
        std::vector<double> out(info.grid.size());
        target->evaluate(packed, out);
        for (std::size_t c = 0; c < columns; ++c) {
          const auto alone = run_values(*target, rows, in.a,
                                        std::span<const double>(blocks).subspan(named[c] * n, n));
          for (std::size_t r = 0; r < rows; ++r)
            EXPECT_EQ(out[r * columns + c], alone[r][c]) << GetParam() << " " << describe(p) << " element (" << r
                                                           << ", " << c << ")";
        }
      }
}

INSTANTIATE_TEST_SUITE_P(Libraries, BlasKernelResults,
                         ::testing::Values("openblas", "blis", "netlib"));

// ---- probes -----------------------------------------------------------------------------------

// Masked all-one probes with M = 2^80 (absorbs any partial sum of fewer than 2^26 units, in float
// and in double) and unit 1, all right-hand factors 1 (a shared right-hand side).
struct Probes {
  ProbeValues values{{1.0, 1.0}, {std::ldexp(1.0, 80), 1.0}, {-std::ldexp(1.0, 80), 1.0}};
  Background background;
  std::vector<const Background*> backgrounds{&background};
  std::vector<Probe> probes;

  explicit Probes(std::vector<std::uint32_t> active = {}) {
    background.id = Background::next_id();
    background.all_active = active.empty();
    background.active = std::move(active);
  }
  // Per probe, every output that added it.
  std::vector<std::vector<double>> run(Target& target, Placement placement = Placement::rows) {
    return run_probes(target, values, backgrounds, probes, placement);
  }
};

// Under a sequential order, the output of probe (i, j) counts the active units added after both
// masks are in (units before them are absorbed by M, M - M is exactly 0).
double sequential_count(const std::vector<std::uint32_t>& order, const Probe& probe,
                        const Background& background) {
  std::size_t last_mask = 0;
  for (std::size_t pos = 0; pos < order.size(); ++pos)
    if (order[pos] == probe.plus || order[pos] == probe.minus) last_mask = pos;
  double count = 0;
  for (std::size_t pos = last_mask + 1; pos < order.size(); ++pos) {
    const std::uint32_t leaf = order[pos];
    if (background.all_active ||
        std::binary_search(background.active.begin(), background.active.end(), leaf))
      ++count;
  }
  return count;
}

struct SequentialCase {
  Params params;
  bool c_first;  // the reference routine adds the old C before the products (else after them)
};

// The netlib reference BLAS, read from its Fortran source: sdot, sgemv and sgemm add the products
// in order of the reduction index; sgemv N and sgemm NN update C (or y) in place, so the old C
// comes first, while sgemv T and sgemm TN sum into TEMP and add the old C last.
TEST(BlasProbes, NetlibProbeOutputsFollowItsSequentialOrders) {
  FPREV_OPEN_OR_SKIP(netlib, "netlib", 1);
  const std::vector<SequentialCase> cases = {
      {{{"op", "dot"}, {"n", "13"}}, false},
      {{{"op", "dot"}, {"n", "13"}, {"dtype", "float64"}}, false},
      {{{"op", "gemv"}, {"m", "9"}, {"n", "11"}}, false},
      {{{"op", "gemv"}, {"m", "9"}, {"n", "11"}, {"beta", "1"}}, true},
      {{{"op", "gemv"}, {"m", "11"}, {"n", "9"}, {"trans", "T"}, {"beta", "1"}}, false},
      {{{"op", "gemm"}, {"m", "9"}, {"n", "4"}, {"k", "11"}, {"beta", "1"}}, true},
      {{{"op", "gemm"}, {"m", "9"}, {"n", "4"}, {"k", "11"}, {"trans", "TN"}, {"beta", "1"}}, false},
  };
  for (const auto& [params, c_first] : cases) {
    const auto target = netlib->make_target(resolved(*netlib, params));
    const std::size_t n = target->info().n;
    const bool has_c = params.count("beta") != 0;
    std::vector<std::uint32_t> order;
    if (has_c && c_first) order.push_back(static_cast<std::uint32_t>(n - 1));
    for (std::uint32_t l = 0; l + (has_c ? 1 : 0) < n; ++l) order.push_back(l);
    if (has_c && !c_first) order.push_back(static_cast<std::uint32_t>(n - 1));

    for (const std::vector<std::uint32_t>& active :
         {std::vector<std::uint32_t>{}, std::vector<std::uint32_t>{0, 2, 3, 5, 8, 9, 10}}) {
      Probes probes(active);
      // Every pair, as many per call as the target takes, on rows and on columns.
      std::vector<Probe> all;
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = i + 1; j < n; ++j) all.push_back({i, j, 0});
      for (Placement placement : {Placement::rows, Placement::columns}) {
        const std::size_t batch = inputs_per_call(target->info(), placement);
        for (std::size_t begin = 0; begin < all.size(); begin += batch) {
          probes.probes.assign(all.begin() + static_cast<std::ptrdiff_t>(begin),
                               all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), begin + batch)));
          const auto out = probes.run(*target, placement);
          for (std::size_t p = 0; p < out.size(); ++p)
            for (double v : out[p])
              ASSERT_EQ(v, sequential_count(order, probes.probes[p], probes.background))
                  << describe(params) << " probe (" << probes.probes[p].plus << ", "
                  << probes.probes[p].minus << ") on " << to_string(placement);
        }
      }
    }
  }
}

TEST(BlasProbes, ToyReverseDotCountsTheLeavesBeforeTheFirstMask) {
  const auto toy = open_blas(testing::toy_library());
  const auto target = toy->make_target(resolved(*toy, {{"op", "dot"}, {"n", "10"}}));
  std::vector<std::uint32_t> reversed = testing::iota_order(10);
  std::reverse(reversed.begin(), reversed.end());
  Probes probes;
  for (std::uint32_t i = 0; i < 10; ++i)
    for (std::uint32_t j = 0; j < 10; ++j) {
      if (i == j) continue;
      probes.probes = {{i, j, 0}};
      EXPECT_EQ(probes.run(*target)[0][0], std::min(i, j));
      EXPECT_EQ(probes.run(*target)[0][0],
                sequential_count(reversed, probes.probes[0], probes.background));
    }
}

}  // namespace
}  // namespace fprev::blas
