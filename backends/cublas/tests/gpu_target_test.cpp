// Targets on a real GPU: layouts, transposes, encodings, beta and batching checked with inputs
// whose sum is exact in every order (small integers), so the expected outputs follow from the
// definition of the operation alone. Skipped (never passed) without a CUDA device.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_support.hpp"
#include "fprev/mask_scheme.hpp"

namespace fprev::cublas {
namespace {

struct TargetCase {
  const char* name;
  Params params;
};

std::ostream& operator<<(std::ostream& os, const TargetCase& c) { return os << c.name; }

class CublasGpuTarget : public ::testing::TestWithParam<TargetCase> {
 protected:
  void SetUp() override {
    if (!fprev_cuda_device_available()) GTEST_SKIP() << fprev_cuda_skip_reason();
    instance_ = cublas_backend().open({});
    const Params resolved = resolve_params(case_param_specs(), GetParam().params, "test");
    const CaseConfig config = parse_case(resolved, settings_from({}));
    if (auto reason = device_cannot_run(config, *fprev_cuda_query().device))
      GTEST_SKIP() << *reason;
    target_ = instance_->make_target(resolved);
  }

  std::unique_ptr<BackendInstance> instance_;
  std::unique_ptr<Target> target_;
};

// Small integers (-2..2) times powers of two (1, 2): exact in every input format, and every partial
// sum of up to 64 of them is exact in float16, bfloat16 and float32 alike.
double a_value(std::size_t row, std::size_t k) {
  return static_cast<double>(static_cast<int>((row * 5 + k * 3 + row * k) % 5) - 2);
}
double b_value(std::size_t k) { return k % 3 == 0 ? 2.0 : 1.0; }

TEST_P(CublasGpuTarget, ValueBatchGivesTheExactSumPerRow) {
  const TargetInfo& info = target_->info();
  const std::size_t n = info.n;
  const std::size_t rows = std::min<std::size_t>(info.max_batch, 64);
  std::vector<double> a(rows * n), b(n), expected(rows, 0.0);
  for (std::size_t k = 0; k < n; ++k) b[k] = b_value(k);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < n; ++k) {
      a[r * n + k] = a_value(r, k);
      expected[r] += a[r * n + k] * b[k];
    }
  }
  ValueBatch batch{rows, a, b};
  std::vector<double> outputs(rows, -999.0);
  target_->evaluate(batch, outputs);
  for (std::size_t r = 0; r < rows; ++r) EXPECT_EQ(outputs[r], expected[r]) << "row " << r;

  // A smaller batch afterwards: rows left over from the first call must not leak into it.
  const std::size_t fewer = std::max<std::size_t>(1, rows / 2);
  std::vector<double> a2(fewer * n), expected2(fewer, 0.0);
  for (std::size_t r = 0; r < fewer; ++r) {
    for (std::size_t k = 0; k < n; ++k) {
      a2[r * n + k] = -a_value(r + 1, k);
      expected2[r] += a2[r * n + k] * b[k];
    }
  }
  std::vector<double> outputs2(fewer, -999.0);
  target_->evaluate(ValueBatch{fewer, a2, b}, outputs2);
  for (std::size_t r = 0; r < fewer; ++r) EXPECT_EQ(outputs2[r], expected2[r]) << "row " << r;
}

TEST_P(CublasGpuTarget, ProbesOnAZeroBackgroundCancelToZero) {
  // +M and -M with every other leaf zero sum to exactly 0 in any order; a misplaced probe row or
  // mask leaves a +-M or a wrong value behind.
  const TargetInfo& info = target_->info();
  MaskScheme scheme;
  try {
    scheme = choose_mask_scheme(info.traits, info.n);
  } catch (const MaskSchemeError& e) {
    GTEST_SKIP() << "the engine cannot mask this target: " << e.what();
  }
  Background background;
  background.id = Background::next_id();
  background.all_active = false;
  const Background* backgrounds[] = {&background};
  std::vector<Probe> probes;
  const auto n = static_cast<std::uint32_t>(info.n);
  for (std::uint32_t p = 0; p < std::min<std::size_t>(info.max_batch, 16); ++p)
    probes.push_back({p % n, (p * 7 + 1) % n == p % n ? (p + 1) % n : (p * 7 + 1) % n, 0});
  ProbeBatch batch{&scheme.values, backgrounds, probes};
  std::vector<double> outputs(probes.size(), -999.0);
  target_->evaluate(batch, outputs);
  for (std::size_t p = 0; p < probes.size(); ++p) EXPECT_EQ(outputs[p], 0.0) << "probe " << p;
}

const TargetCase kCases[] = {
    {"sdot", {{"op", "dot"}, {"n", "100"}}},
    {"ddot", {{"op", "dot"}, {"dtype", "float64"}, {"n", "37"}}},
    {"sgemv_N", {{"op", "gemv"}, {"m", "24"}, {"n", "40"}}},
    {"dgemv_T_beta", {{"op", "gemv"}, {"dtype", "float64"}, {"m", "40"}, {"n", "24"},
                      {"trans", "T"}, {"beta", "1"}}},
    {"sgemm_NN", {{"op", "gemm"}, {"m", "24"}, {"n", "8"}, {"k", "40"}}},
    {"sgemm_TN_beta", {{"op", "gemm"}, {"m", "24"}, {"n", "8"}, {"k", "40"}, {"trans", "T"},
                       {"beta", "1"}}},
    {"dgemm_NT", {{"op", "gemm"}, {"dtype", "float64"}, {"m", "24"}, {"n", "8"}, {"k", "40"},
                  {"transb", "T"}}},
    {"dgemm_TT", {{"op", "gemm"}, {"dtype", "float64"}, {"m", "24"}, {"n", "8"}, {"k", "40"},
                  {"trans", "T"}, {"transb", "T"}}},
    {"gemm_ex_f16_f16", {{"op", "gemm_ex"}, {"dtype", "float16"}, {"m", "24"}, {"n", "8"},
                         {"k", "40"}}},
    {"gemm_ex_f16_f32_beta", {{"op", "gemm_ex"}, {"dtype", "float16"}, {"output", "float32"},
                              {"m", "24"}, {"n", "8"}, {"k", "40"}, {"beta", "1"}}},
    {"gemm_ex_f16_diagonal_wide", {{"op", "gemm_ex"}, {"dtype", "float16"}, {"output", "float32"},
                                   {"m", "8"}, {"n", "24"}, {"k", "40"}, {"transb", "T"}}},
    {"sgemm_diagonal_beta", {{"op", "gemm"}, {"m", "16"}, {"n", "12"}, {"k", "40"},
                             {"trans", "T"}, {"beta", "1"}, {"probes", "diagonal"}}},
    {"gemm_ex_f16_compute16F", {{"op", "gemm_ex"}, {"dtype", "float16"}, {"compute", "16F"},
                                {"m", "24"}, {"n", "8"}, {"k", "40"}, {"trans", "T"}}},
    {"gemm_ex_bf16_bf16", {{"op", "gemm_ex"}, {"dtype", "bfloat16"}, {"m", "24"}, {"n", "8"},
                           {"k", "40"}}},
    {"gemm_ex_bf16_f32", {{"op", "gemm_ex"}, {"dtype", "bfloat16"}, {"output", "float32"},
                          {"m", "24"}, {"n", "8"}, {"k", "40"}, {"transb", "T"}}},
    {"gemm_ex_tf32", {{"op", "gemm_ex"}, {"dtype", "tf32"}, {"m", "24"}, {"n", "8"}, {"k", "40"}}},
    {"gemm_ex_f32_fast16bf", {{"op", "gemm_ex"}, {"compute", "32F_FAST_16BF"}, {"m", "24"},
                              {"n", "8"}, {"k", "40"}}},
    {"gemm_ex_f64", {{"op", "gemm_ex"}, {"dtype", "float64"}, {"m", "24"}, {"n", "8"},
                     {"k", "40"}, {"beta", "1"}}},
    {"lt_f32", {{"op", "lt_matmul"}, {"m", "24"}, {"n", "8"}, {"k", "40"}, {"trans", "T"}}},
    {"lt_f16_f32", {{"op", "lt_matmul"}, {"dtype", "float16"}, {"output", "float32"}, {"m", "24"},
                    {"n", "8"}, {"k", "40"}}},
    {"lt_bf16_bf16_beta", {{"op", "lt_matmul"}, {"dtype", "bfloat16"}, {"m", "24"}, {"n", "8"},
                           {"k", "40"}, {"beta", "1"}}},
    // k = 32: the most summands e4m3 masks cover (with k = 48 the probe test could only skip).
    {"lt_fp8_e4m3_f32", {{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "32"}, {"n", "8"},
                         {"k", "32"}}},
    {"lt_fp8_e4m3_bf16", {{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"output", "bfloat16"},
                          {"m", "32"}, {"n", "8"}, {"k", "48"}, {"fp8_fast_accum", "true"}}},
    {"lt_fp8_e5m2_f16", {{"op", "lt_matmul"}, {"dtype", "fp8_e5m2"}, {"output", "float16"},
                         {"m", "32"}, {"n", "8"}, {"k", "48"}}},
};

INSTANTIATE_TEST_SUITE_P(Ops, CublasGpuTarget, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<TargetCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

}  // namespace
}  // namespace fprev::cublas
