// The simulated GEMM as an fprev::Target: traits, batching, probe outputs, value batches, errors.
#include <gtest/gtest.h>

#include <random>

#include "expected_schedule.hpp"
#include "fprev/backends/tcsim.hpp"
#include "fprev/mask_scheme.hpp"

namespace {

using fprev::Format;
using fprev::SummandKind;
using namespace fprev::tcsim;

GemmTargetSpec spec(Arch arch, Format input, std::size_t k, std::size_t m = 16, std::size_t n = 16) {
  GemmTargetSpec s;
  s.model = arch_model(arch);
  s.config.k_tile = default_k_tile(arch);
  s.input = input;
  s.output = input == Format::float64 ? Format::float64 : Format::float32;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}

// Probes through the engine's own mask scheme; returns the decoded counts n - l(i,j).
std::vector<std::uint64_t> probe_counts(fprev::Target& target,
                                        const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  const fprev::TargetInfo& info = target.info();
  const fprev::MaskScheme scheme = fprev::choose_mask_scheme(info.traits, info.n);
  fprev::Background all;
  all.id = fprev::Background::next_id();
  const fprev::Background* backgrounds[] = {&all};
  std::vector<fprev::Probe> probes;
  for (const auto& [i, j] : pairs) probes.push_back({i, j, 0});
  fprev::ProbeBatch batch;
  batch.values = &scheme.values;
  batch.backgrounds = backgrounds;
  batch.probes = probes;
  std::vector<double> outputs(probes.size());
  target.evaluate(batch, outputs);
  std::vector<std::uint64_t> counts;
  for (double out : outputs) {
    const fprev::DecodedOutput d = fprev::decode_output(scheme, out);
    EXPECT_EQ(d.status, fprev::DecodeStatus::exact) << out;
    counts.push_back(d.count);
  }
  return counts;
}

TEST(GemmTarget, Traits) {
  auto t = make_tcsim_target(spec(Arch::ampere, Format::float16, 40, 8, 4));
  const fprev::TargetInfo& info = t->info();
  EXPECT_EQ(info.n, 40u);
  EXPECT_EQ(info.max_batch, 8u);  // one probe per row of A
  EXPECT_EQ(info.traits.input, Format::float16);
  EXPECT_EQ(info.traits.accumulator, Format::float32);
  EXPECT_EQ(info.traits.output, Format::float32);
  EXPECT_EQ(info.traits.summand, SummandKind::product_shared_rhs);
  EXPECT_EQ(info.traits.max_fused_width, 9u);
  EXPECT_EQ(info.traits.fused_extra_bits, 1);
  EXPECT_FALSE(info.traits.simulate_fused);

  GemmTargetSpec with_c = spec(Arch::hopper, Format::bfloat16, 40);
  with_c.beta = true;
  EXPECT_EQ(make_tcsim_target(with_c)->info().n, 41u);  // C is leaf k

  auto f64 = make_tcsim_target(spec(Arch::hopper, Format::float64, 40));
  EXPECT_EQ(f64->info().traits.accumulator, Format::float64);
  EXPECT_EQ(f64->info().traits.max_fused_width, 2u);
  EXPECT_EQ(f64->info().traits.fused_extra_bits, 0);
}

// fp8 has too little range for one shared b: each probe then gets its own row of A and column of
// B, read on the diagonal of D, and the mask splits over both factors (Xie et al., USENIX ATC 2025 Sec. 8.1).
TEST(GemmTarget, Fp8ProbesUseTheDiagonal) {
  auto t = make_tcsim_target(spec(Arch::hopper, Format::fp8_e4m3, 40, 16, 6));
  EXPECT_EQ(t->info().traits.summand, SummandKind::product);
  EXPECT_EQ(t->info().max_batch, 6u);  // min(m, n)
  const fprev::MaskScheme scheme = fprev::choose_mask_scheme(t->info().traits, 40);
  EXPECT_NE(scheme.values.plus.b, scheme.values.unit.b);  // b varies from leaf to leaf
  // float16 with one shared b masks 2^12 summands on Ampere (1 extra bit); beyond that the
  // target switches to the diagonal as well.
  EXPECT_EQ(make_tcsim_target(spec(Arch::ampere, Format::float16, 4096))->info().traits.summand,
            SummandKind::product_shared_rhs);
  EXPECT_EQ(make_tcsim_target(spec(Arch::ampere, Format::float16, 5000))->info().traits.summand,
            SummandKind::product);
}

// The probe outputs follow the definition: output / unit = n - l(i,j), where l(i,j) is the leaf
// count of the subtree at the lowest common ancestor. Volta, k = 10: steps {0,1} {2..5} {6..9}, so
// the nodes are (0 1), ((0 1) 2 3 4 5) and the root (... 6 7 8 9).
TEST(GemmTarget, ProbeOutputsFollowTheTree) {
  auto t = make_tcsim_target(spec(Arch::volta, Format::float16, 10, 4, 3));
  const auto counts = probe_counts(*t, {{0, 1}, {1, 0}, {0, 2}, {3, 5}});
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{10 - 2, 10 - 2, 10 - 6, 10 - 6}));
  const auto more = probe_counts(*t, {{5, 6}, {6, 9}, {2, 9}});
  EXPECT_EQ(more, (std::vector<std::uint64_t>{0, 0, 0}));
}

TEST(GemmTarget, ProbeOutputsOnTheDiagonal) {
  auto t = make_tcsim_target(spec(Arch::hopper, Format::fp8_e5m2, 72, 16, 4));
  ASSERT_EQ(t->info().traits.summand, SummandKind::product);
  // Hopper fp8 (32 products per step), k = 72, tile 64, residue first: steps {0..7} {8..39}
  // {40..71}.
  const auto counts = probe_counts(*t, {{0, 7}, {0, 8}, {9, 39}, {50, 1}});
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{72 - 8, 72 - 40, 72 - 40, 0}));
}

TEST(GemmTarget, RejectsTooManyProbesAndBadValues) {
  auto t = make_tcsim_target(spec(Arch::volta, Format::float16, 8, 2, 2));
  EXPECT_THROW(probe_counts(*t, {{0, 1}, {1, 2}, {2, 3}}), fprev::TargetError);

  // A factor that float16 cannot hold is an engine bug: refused, never rounded.
  fprev::ProbeValues values;
  values.unit = {1.0 + std::ldexp(1.0, -12), 1.0};
  values.plus = {1024.0, 1.0};
  values.minus = {-1024.0, 1.0};
  fprev::Background all;
  all.id = fprev::Background::next_id();
  const fprev::Background* backgrounds[] = {&all};
  const fprev::Probe probes[] = {{0, 1, 0}};
  fprev::ProbeBatch batch{&values, backgrounds, probes};
  std::vector<double> out(1);
  EXPECT_THROW(t->evaluate(batch, out), fprev::TargetError);

  // Probes of one batch with different B columns cannot share B.
  values.unit = {std::ldexp(1.0, -10), 1.0};
  values.plus = {1024.0, 2.0};
  const fprev::Probe two[] = {{0, 1, 0}, {1, 0, 0}};
  fprev::ProbeBatch mixed{&values, backgrounds, two};
  out.resize(2);
  EXPECT_THROW(t->evaluate(mixed, out), fprev::TargetError);
}

// Value batches run the same kernel: each row equals GemmKernel::element on that row.
TEST(GemmTarget, ValueBatchMatchesTheKernel) {
  for (bool beta : {false, true}) {
    GemmTargetSpec s = spec(Arch::ampere, Format::bfloat16, 37, 5, 3);
    s.config.split_k = 2;
    s.config.k_tile = 16;
    s.beta = beta;
    auto t = make_tcsim_target(s);
    const std::size_t n = t->info().n, rows = 5;
    std::mt19937_64 rng(11);
    std::vector<double> a(rows * n), b(n);
    for (double& x : a) x = tcsim_test::random_value(rng, Format::bfloat16, -5, 5);
    for (double& x : b) x = tcsim_test::random_value(rng, Format::bfloat16, -2, 2);
    fprev::ValueBatch batch{rows, a, b};
    std::vector<double> out(rows);
    t->evaluate(batch, out);
    const GemmKernel kernel(s.model, s.input, s.output, s.k, s.config);
    for (std::size_t r = 0; r < rows; ++r) {
      const double c = beta ? a[r * n + 37] * b[37] : 0.0;
      EXPECT_EQ(out[r], kernel.element(&a[r * n], b.data(), 1, beta ? &c : nullptr)) << r;
    }
    // A value that bfloat16 cannot hold is refused.
    a[3] = 1.0 + std::ldexp(1.0, -10);
    fprev::ValueBatch bad{rows, a, b};
    EXPECT_THROW(t->evaluate(bad, out), fprev::TargetError);
  }
}

TEST(GemmTarget, ValidateNamesTheParameter) {
  const auto parameter_of = [](const GemmTargetSpec& s) {
    try {
      validate(s);
    } catch (const fprev::ConfigError& e) {
      return e.parameter() + ": " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(parameter_of(spec(Arch::hopper, Format::fp8_e4m3, 32)), "accepted");
  const std::string tf32 = parameter_of(spec(Arch::volta, Format::tf32, 32));
  EXPECT_EQ(tf32.rfind("dtype: ", 0), 0u) << tf32;
  EXPECT_NE(tf32.find("allowed values: float16, bfloat16"), std::string::npos) << tf32;
  EXPECT_EQ(parameter_of(spec(Arch::ampere, Format::fp8_e5m2, 32)).rfind("dtype", 0), 0u);

  GemmTargetSpec s = spec(Arch::ampere, Format::float16, 32);
  s.output = Format::float64;
  EXPECT_EQ(parameter_of(s).rfind("output", 0), 0u);
  s = spec(Arch::ampere, Format::float64, 32);
  s.output = Format::float32;
  EXPECT_EQ(parameter_of(s).rfind("output", 0), 0u);
  s = spec(Arch::ampere, Format::float16, 32);
  s.output = Format::float16;
  s.beta = true;
  EXPECT_EQ(parameter_of(s).rfind("beta", 0), 0u);
  s = spec(Arch::ampere, Format::float16, 32);
  s.config.k_tile = 20;
  EXPECT_EQ(parameter_of(s).rfind("k_tile", 0), 0u);
  s = spec(Arch::ampere, Format::float16, 0);
  EXPECT_EQ(parameter_of(s).rfind("k: ", 0), 0u);
  EXPECT_THROW(make_tcsim_target(s), fprev::ConfigError);
}

}  // namespace
