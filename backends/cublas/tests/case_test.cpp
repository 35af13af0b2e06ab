// Case validation and numeric traits: which combinations cuBLAS accepts (from the cuBLAS
// documentation: cublasGemmEx datatype table, cublasLtMatmul FP8 requirements) and what the engine
// must assume for them. No GPU needed.
#include <gtest/gtest.h>

#include "cuda_test_support.hpp"

namespace fprev::cublas {
namespace {

// The ConfigError of a case, or a test failure when it is accepted.
ConfigError rejection(const Params& params, const Params& instance = {}) {
  try {
    case_from(params, instance);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "case accepted";
  return ConfigError("", "");
}

bool mentions(const ConfigError& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

TEST(CublasCase, DotHasOnlyN) {
  const CaseConfig c = case_from({{"op", "dot"}, {"n", "1000"}});
  EXPECT_EQ(c.op, Op::dot);
  EXPECT_EQ(c.dtype, Format::float32);
  EXPECT_EQ(c.output, Format::float32);
  EXPECT_EQ(c.reduction(), 1000u);
  EXPECT_EQ(c.leaves(), 1000u);
  EXPECT_EQ(c.rows(), 1u);
  EXPECT_FALSE(c.compute.has_value());
  EXPECT_EQ(rejection({{"op", "dot"}, {"n", "8"}, {"k", "8"}}).parameter(), "k");
  EXPECT_EQ(rejection({{"op", "dot"}, {"n", "8"}, {"trans", "T"}}).parameter(), "trans");
  EXPECT_EQ(rejection({{"op", "dot"}, {"n", "8"}, {"beta", "1"}}).parameter(), "beta");
  EXPECT_EQ(rejection({{"op", "dot"}}).parameter(), "n");
}

TEST(CublasCase, GemvReducesOverTheColumnsOfOpA) {
  // BLAS convention: A is m x n; y = A x reduces over n, y = A^T x over m.
  const CaseConfig n = case_from({{"op", "gemv"}, {"m", "64"}, {"n", "100"}});
  EXPECT_EQ(n.reduction(), 100u);
  EXPECT_EQ(n.rows(), 64u);
  const CaseConfig t = case_from({{"op", "gemv"}, {"m", "64"}, {"n", "100"}, {"trans", "T"}});
  EXPECT_EQ(t.reduction(), 64u);
  EXPECT_EQ(t.rows(), 100u);
  EXPECT_EQ(t.columns(), 1u);
  const CaseConfig beta = case_from({{"op", "gemv"}, {"m", "4"}, {"n", "10"}, {"beta", "1"}});
  EXPECT_EQ(beta.leaves(), 11u);  // y is the last leaf
  EXPECT_EQ(rejection({{"op", "gemv"}, {"m", "4"}, {"n", "4"}, {"transb", "T"}}).parameter(),
            "transb");
  EXPECT_EQ(rejection({{"op", "gemv"}, {"m", "4"}}).parameter(), "n");
}

TEST(CublasCase, GemmShapes) {
  const CaseConfig c = case_from({{"op", "gemm"}, {"dtype", "float64"}, {"m", "64"}, {"n", "32"},
                                  {"k", "1024"}, {"trans", "T"}, {"transb", "T"}});
  EXPECT_EQ(c.reduction(), 1024u);
  EXPECT_EQ(c.rows(), 64u);
  EXPECT_EQ(c.columns(), 32u);
  EXPECT_TRUE(c.trans_a);
  EXPECT_TRUE(c.trans_b);
  EXPECT_EQ(c.output, Format::float64);
  EXPECT_EQ(rejection({{"op", "gemm"}, {"m", "4"}, {"n", "4"}}).parameter(), "k");
  // cublas<S|D>gemm computes in its dtype: no compute type, no other output.
  EXPECT_EQ(rejection({{"op", "gemm"}, {"m", "4"}, {"n", "4"}, {"k", "4"}, {"compute", "32F"}})
                .parameter(),
            "compute");
  EXPECT_EQ(rejection({{"op", "gemm"}, {"m", "4"}, {"n", "4"}, {"k", "4"}, {"output", "float16"}})
                .parameter(),
            "output");
}

TEST(CublasCase, MatricesAreBounded) {
  const ConfigError e =
      rejection({{"op", "gemm"}, {"m", "65536"}, {"n", "64"}, {"k", "65536"}});
  EXPECT_TRUE(mentions(e, "elements")) << e.what();
}

TEST(CublasCase, TensorCoreDtypesNeedGemmExOrLt) {
  for (const char* dtype : {"float16", "bfloat16", "tf32", "fp8_e4m3"}) {
    const ConfigError e = rejection({{"op", "gemm"}, {"dtype", dtype}, {"m", "8"}, {"n", "8"},
                                     {"k", "8"}});
    EXPECT_EQ(e.parameter(), "dtype") << dtype;
    EXPECT_TRUE(mentions(e, "allowed values: float32, float64")) << e.what();
  }
  // fp8 exists only in cuBLASLt.
  const ConfigError fp8 = rejection({{"op", "gemm_ex"}, {"dtype", "fp8_e4m3"}, {"m", "16"},
                                     {"n", "8"}, {"k", "16"}});
  EXPECT_TRUE(mentions(fp8, "lt_matmul")) << fp8.what();
}

TEST(CublasCase, GemmExDefaultsPerDtype) {
  const Params shape = {{"op", "gemm_ex"}, {"m", "64"}, {"n", "64"}, {"k", "32"}};
  auto with = [&shape](std::initializer_list<std::pair<const std::string, std::string>> extra) {
    Params p = shape;
    p.insert(extra);
    return case_from(p);
  };
  const CaseConfig half = with({{"dtype", "float16"}});
  EXPECT_EQ(half.compute, Compute::c32F);
  EXPECT_EQ(half.output, Format::float16);
  EXPECT_EQ(with({{"dtype", "float16"}, {"output", "float32"}}).output, Format::float32);
  EXPECT_EQ(with({{"dtype", "bfloat16"}}).output, Format::bfloat16);
  const CaseConfig tf32 = with({{"dtype", "tf32"}});
  EXPECT_EQ(tf32.compute, Compute::c32F_fast_tf32);
  EXPECT_EQ(tf32.a_format, Format::float32);  // stored as float
  EXPECT_EQ(tf32.output, Format::float32);
  EXPECT_EQ(with({{"dtype", "float64"}}).compute, Compute::c64F);
  EXPECT_EQ(with({{"dtype", "float32"}}).compute, Compute::c32F);
}

TEST(CublasCase, GemmExComputeAndOutputCombinations) {
  const Params shape = {{"op", "gemm_ex"}, {"m", "16"}, {"n", "16"}, {"k", "16"}};
  auto params = [&shape](std::initializer_list<std::pair<const std::string, std::string>> extra) {
    Params p = shape;
    p.insert(extra);
    return p;
  };
  // 16F compute: half in, half out only (cublasGemmEx table).
  EXPECT_EQ(case_from(params({{"dtype", "float16"}, {"compute", "16F"}})).output, Format::float16);
  const ConfigError e16 =
      rejection(params({{"dtype", "float16"}, {"compute", "16F"}, {"output", "float32"}}));
  EXPECT_EQ(e16.parameter(), "output");
  EXPECT_TRUE(mentions(e16, "allowed values: float16")) << e16.what();
  // bfloat16 has no 16-bit compute type.
  const ConfigError ebf = rejection(params({{"dtype", "bfloat16"}, {"compute", "16F"}}));
  EXPECT_EQ(ebf.parameter(), "compute");
  EXPECT_TRUE(mentions(ebf, "allowed values: 32F, 32F_PEDANTIC")) << ebf.what();
  // bfloat16 cannot produce float16.
  EXPECT_EQ(rejection(params({{"dtype", "bfloat16"}, {"output", "float16"}})).parameter(), "output");
  // The FAST compute types take float32 matrices.
  EXPECT_EQ(case_from(params({{"dtype", "float32"}, {"compute", "32F_FAST_16BF"}})).compute,
            Compute::c32F_fast_16BF);
  EXPECT_EQ(rejection(params({{"dtype", "float16"}, {"compute", "32F_FAST_TF32"}})).parameter(),
            "compute");
  EXPECT_EQ(rejection(params({{"dtype", "float64"}, {"compute", "32F"}})).parameter(), "compute");
  // tf32 is exactly compute 32F_FAST_TF32 with float32 out.
  EXPECT_EQ(rejection(params({{"dtype", "tf32"}, {"compute", "32F"}})).parameter(), "compute");
}

TEST(CublasCase, BetaOneNeedsAnOutputThatHoldsTheMask) {
  EXPECT_EQ(case_from({{"op", "gemm_ex"}, {"dtype", "float16"}, {"output", "float32"}, {"m", "8"},
                       {"n", "8"}, {"k", "8"}, {"beta", "1"}})
                .leaves(),
            9u);
  EXPECT_EQ(rejection({{"op", "gemm_ex"}, {"dtype", "float16"}, {"m", "8"}, {"n", "8"}, {"k", "8"},
                       {"beta", "1"}})
                .parameter(),
            "beta");
}

TEST(CublasCase, Fp8FollowsCublasLtRequirements) {
  const CaseConfig c = case_from({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "64"},
                                  {"n", "8"}, {"k", "32"}});
  EXPECT_TRUE(c.trans_a);  // "TN" is the default and the only layout
  EXPECT_FALSE(c.trans_b);
  EXPECT_EQ(c.compute, Compute::c32F);
  EXPECT_EQ(c.output, Format::float32);
  EXPECT_EQ(c.a_format, Format::fp8_e4m3);
  EXPECT_EQ(c.b_format, Format::fp8_e4m3);
  // No e5m2 x e5m2 kernels: B stays e4m3.
  const CaseConfig e5 = case_from({{"op", "lt_matmul"}, {"dtype", "fp8_e5m2"}, {"m", "16"},
                                   {"n", "8"}, {"k", "16"}, {"output", "bfloat16"}});
  EXPECT_EQ(e5.a_format, Format::fp8_e5m2);
  EXPECT_EQ(e5.b_format, Format::fp8_e4m3);
  EXPECT_EQ(e5.output, Format::bfloat16);

  EXPECT_EQ(rejection({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "16"}, {"n", "8"},
                       {"k", "16"}, {"trans", "N"}})
                .parameter(),
            "trans");
  EXPECT_EQ(rejection({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "16"}, {"n", "8"},
                       {"k", "16"}, {"transb", "T"}})
                .parameter(),
            "transb");
  EXPECT_EQ(rejection({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "16"}, {"n", "8"},
                       {"k", "24"}})
                .parameter(),
            "k");
  EXPECT_EQ(rejection({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "8"}, {"n", "8"},
                       {"k", "16"}})
                .parameter(),
            "m");
  EXPECT_EQ(rejection({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "16"}, {"n", "8"},
                       {"k", "16"}, {"output", "float64"}})
                .parameter(),
            "output");
  EXPECT_TRUE(case_from({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "16"}, {"n", "8"},
                         {"k", "16"}, {"fp8_fast_accum", "true"}})
                  .fp8_fast_accum);
  EXPECT_EQ(rejection({{"op", "lt_matmul"}, {"dtype", "float16"}, {"m", "16"}, {"n", "8"},
                       {"k", "16"}, {"fp8_fast_accum", "true"}})
                .parameter(),
            "fp8_fast_accum");
}

TEST(CublasCase, ProbeLayoutDefaultsToDiagonalWhereTheRangeNeedsBothFactors) {
  const Params shape = {{"op", "gemm_ex"}, {"m", "64"}, {"n", "16"}, {"k", "32"}};
  auto with = [&shape](std::initializer_list<std::pair<const std::string, std::string>> extra) {
    Params p = shape;
    p.insert(extra);
    return p;
  };
  const CaseConfig half = case_from(with({{"dtype", "float16"}}));
  EXPECT_EQ(half.probes, ProbeLayout::diagonal);
  EXPECT_EQ(half.rows(), 16u);  // min(m, n): one probe per diagonal element of C
  const CaseConfig bf16 = case_from(with({{"dtype", "bfloat16"}}));
  EXPECT_EQ(bf16.probes, ProbeLayout::rows);
  EXPECT_EQ(bf16.rows(), 64u);
  EXPECT_EQ(case_from(with({{"dtype", "float16"}, {"probes", "rows"}})).rows(), 64u);
  EXPECT_EQ(case_from(with({{"probes", "diagonal"}})).probes, ProbeLayout::diagonal);
  EXPECT_EQ(case_from({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "16"}, {"n", "8"},
                       {"k", "16"}})
                .probes,
            ProbeLayout::diagonal);
  // e5m2 x e4m3 has two formats: the masks cannot be split over both factors.
  EXPECT_EQ(case_from({{"op", "lt_matmul"}, {"dtype", "fp8_e5m2"}, {"m", "16"}, {"n", "8"},
                       {"k", "16"}})
                .probes,
            ProbeLayout::rows);
  EXPECT_EQ(rejection({{"op", "lt_matmul"}, {"dtype", "fp8_e5m2"}, {"m", "16"}, {"n", "8"},
                       {"k", "16"}, {"probes", "diagonal"}})
                .parameter(),
            "probes");
  EXPECT_EQ(rejection({{"op", "gemv"}, {"m", "4"}, {"n", "4"}, {"probes", "diagonal"}}).parameter(),
            "probes");
}

TEST(CublasCase, DescribeNamesTheCall) {
  EXPECT_EQ(case_from({{"op", "gemm_ex"}, {"dtype", "float16"}, {"output", "float32"},
                       {"m", "64"}, {"n", "64"}, {"k", "32"}})
                .describe(),
            "gemm_ex float16 -> float32 compute 32F m=64 n=64 k=32 trans=NN probes=diagonal");
  EXPECT_EQ(case_from({{"op", "dot"}, {"dtype", "float64"}, {"n", "10"}}).describe(),
            "dot float64 -> float64 n=10");
}

// ---- numeric traits ------------------------------------------------------------------------------

NumericTraits traits_of(const Params& params, const Params& instance = {}) {
  return numeric_traits(case_from(params, instance), settings_from(instance));
}

TEST(CublasTraits, CudaCoreRoutinesAreBinaryIeee) {
  const NumericTraits dot = traits_of({{"op", "dot"}, {"n", "100"}});
  EXPECT_EQ(dot.input, Format::float32);
  EXPECT_EQ(dot.accumulator, Format::float32);
  EXPECT_EQ(dot.output, Format::float32);
  EXPECT_EQ(dot.summand, SummandKind::product);  // x and y differ per probe
  EXPECT_EQ(dot.max_fused_width, 2u);
  const NumericTraits sgemm = traits_of({{"op", "gemm"}, {"m", "8"}, {"n", "8"}, {"k", "8"}});
  EXPECT_EQ(sgemm.summand, SummandKind::product_shared_rhs);  // one probe per row of A
  EXPECT_EQ(sgemm.max_fused_width, 2u);
  EXPECT_EQ(sgemm.fused_extra_bits, 0);
  const NumericTraits dgemv =
      traits_of({{"op", "gemv"}, {"dtype", "float64"}, {"m", "8"}, {"n", "8"}});
  EXPECT_EQ(dgemv.accumulator, Format::float64);
  EXPECT_EQ(dgemv.max_fused_width, 2u);
}

TEST(CublasTraits, TensorCoreFormatsAccumulateInFloat32WithFusedSums) {
  const NumericTraits half = traits_of({{"op", "gemm_ex"}, {"dtype", "float16"},
                                        {"output", "float32"}, {"m", "8"}, {"n", "8"}, {"k", "32"}});
  EXPECT_EQ(half.input, Format::float16);
  EXPECT_EQ(half.summand, SummandKind::product);  // diagonal probes: both factors per probe
  EXPECT_EQ(half.accumulator, Format::float32);
  EXPECT_EQ(half.output, Format::float32);
  EXPECT_GE(half.max_fused_width, 17u);  // Hopper adds 16 products and the accumulator at once
  EXPECT_EQ(half.fused_extra_bits, 3);
  const NumericTraits h16 = traits_of({{"op", "gemm_ex"}, {"dtype", "float16"}, {"compute", "16F"},
                                       {"m", "8"}, {"n", "8"}, {"k", "32"}});
  EXPECT_EQ(h16.accumulator, Format::float16);
  EXPECT_EQ(h16.output, Format::float16);
  const NumericTraits fp8 = traits_of({{"op", "lt_matmul"}, {"dtype", "fp8_e5m2"}, {"m", "16"},
                                       {"n", "8"}, {"k", "32"}});
  EXPECT_EQ(fp8.input, Format::fp8_e5m2);
  EXPECT_EQ(fp8.summand, SummandKind::product_shared_rhs);  // B is e4m3: rows layout
  EXPECT_EQ(fp8.accumulator, Format::float32);
  EXPECT_GE(fp8.max_fused_width, 33u);
}

TEST(CublasTraits, InputIsTheNarrowestFormatTheLibraryMayConvertTo) {
  const Params sgemm = {{"op", "gemm"}, {"m", "8"}, {"n", "8"}, {"k", "8"}};
  // CUBLAS_TF32_TENSOR_OP_MATH lets cuBLAS round float32 inputs to tf32.
  const NumericTraits tf32 = traits_of(sgemm, {{"math_mode", "tf32"}});
  EXPECT_EQ(tf32.input, Format::tf32);
  EXPECT_GE(tf32.max_fused_width, 5u);
  // CUBLAS_TENSOR_OP_MATH is documented as COMPUTE_32F_FAST_16F: float16 inputs.
  EXPECT_EQ(traits_of(sgemm, {{"math_mode", "tensor_op"}}).input, Format::float16);
  EXPECT_EQ(traits_of(sgemm, {{"math_mode", "pedantic"}}).input, Format::float32);
  EXPECT_EQ(traits_of(sgemm, {{"math_mode", "pedantic"}}).max_fused_width, 2u);

  const Params ex = {{"op", "gemm_ex"}, {"m", "8"}, {"n", "8"}, {"k", "8"}};
  auto with = [&ex](const char* compute) {
    Params p = ex;
    p["compute"] = compute;
    return p;
  };
  EXPECT_EQ(traits_of(with("32F_FAST_16F")).input, Format::float16);
  EXPECT_EQ(traits_of(with("32F_FAST_16BF")).input, Format::bfloat16);
  EXPECT_EQ(traits_of(with("32F_FAST_TF32")).input, Format::tf32);
  // A pedantic compute type overrides the handle's tf32 math mode.
  EXPECT_EQ(traits_of(with("32F_PEDANTIC"), {{"math_mode", "tf32"}}).input, Format::float32);
  // cuBLASLt ignores the handle's math mode.
  EXPECT_EQ(traits_of({{"op", "lt_matmul"}, {"m", "8"}, {"n", "8"}, {"k", "8"}},
                      {{"math_mode", "tf32"}})
                .input,
            Format::float32);
}

TEST(CublasTraits, DeviceRequirements) {
  DeviceDescription volta;
  volta.name = "Tesla V100";
  volta.cc_major = 7;
  volta.cc_minor = 0;
  DeviceDescription ampere = volta;
  ampere.cc_major = 8;
  DeviceDescription ada = ampere;
  ada.cc_minor = 9;
  const CaseConfig fp8 = case_from({{"op", "lt_matmul"}, {"dtype", "fp8_e4m3"}, {"m", "16"},
                                    {"n", "8"}, {"k", "16"}});
  const CaseConfig bf16 = case_from({{"op", "gemm_ex"}, {"dtype", "bfloat16"}, {"m", "16"},
                                     {"n", "8"}, {"k", "16"}});
  const CaseConfig half = case_from({{"op", "gemm_ex"}, {"dtype", "float16"}, {"m", "16"},
                                     {"n", "8"}, {"k", "16"}});
  ASSERT_TRUE(device_cannot_run(fp8, ampere).has_value());
  EXPECT_NE(device_cannot_run(fp8, ampere)->find("8.9"), std::string::npos);
  EXPECT_FALSE(device_cannot_run(fp8, ada).has_value());
  EXPECT_TRUE(device_cannot_run(bf16, volta).has_value());
  EXPECT_FALSE(device_cannot_run(bf16, ampere).has_value());
  EXPECT_FALSE(device_cannot_run(half, volta).has_value());
}

TEST(CublasCaseParams, EveryChoiceOfTheSpecsIsAccepted) {
  // The specs advertise exactly what parse_case understands.
  for (const ParamSpec& spec : case_param_specs()) {
    if (spec.name == "compute") {
      for (const std::string& compute : spec.choices) {
        bool accepted = false;
        for (const char* dtype : {"float32", "float64", "float16", "bfloat16", "tf32"}) {
          try {
            case_from({{"op", "gemm_ex"}, {"dtype", dtype}, {"compute", compute}, {"m", "8"},
                       {"n", "8"}, {"k", "8"}});
            accepted = true;
          } catch (const ConfigError&) {
          }
        }
        EXPECT_TRUE(accepted) << "compute " << compute << " is accepted by no dtype";
      }
    }
  }
}

}  // namespace
}  // namespace fprev::cublas
