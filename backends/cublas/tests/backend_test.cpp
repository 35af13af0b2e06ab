// The backend as the registry, the CLI and the runner see it. The tests here run with and without a
// GPU; each checks what must hold in the situation it finds and skips the other half.
#include <gtest/gtest.h>

#include "cuda_test_support.hpp"

namespace fprev::cublas {
namespace {

TEST(CublasBackend, IsRegisteredUnderItsName) {
  const Backend& backend = cublas_backend();
  EXPECT_EQ(backend.name(), "cublas");
  EXPECT_FALSE(backend.summary().empty());
  std::vector<std::string> names;
  for (const ParamSpec& spec : backend.instance_params()) names.push_back(spec.name);
  for (const char* expected : {"device", "math_mode", "workspace", "atomics"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}

TEST(CublasBackend, BadSettingsAreConfigErrorsEvenWithoutAGpu) {
  // Settings are checked before the device is looked for.
  EXPECT_THROW(cublas_backend().open({{"math_mode", "turbo"}}), ConfigError);
  EXPECT_THROW(cublas_backend().open({{"workspace", "lots"}}), ConfigError);
}

TEST(CublasBackend, SuitesAreValidatedWithoutOpeningAnInstance) {
  // Backend::case_params / validate_case must not need a GPU (the default implementation would
  // open an instance and fail here).
  const Backend& backend = cublas_backend();
  const std::vector<ParamSpec> specs = backend.case_params();
  ASSERT_FALSE(specs.empty());
  EXPECT_EQ(specs.front().name, "op");
  const Params good = resolve_params(specs, {{"op", "gemm_ex"}, {"dtype", "bfloat16"}, {"m", "8"},
                                             {"n", "8"}, {"k", "8"}},
                                     "test");
  EXPECT_NO_THROW(backend.validate_case(good));
  const Params bad = resolve_params(specs, {{"op", "gemm"}, {"dtype", "bfloat16"}, {"m", "8"},
                                            {"n", "8"}, {"k", "8"}},
                                    "test");
  EXPECT_THROW(backend.validate_case(bad), ConfigError);
}

TEST(CublasBackend, WithoutTheToolkitOpenSaysTheToolkitIsMissing) {
  if (built_with_cuda_toolkit()) GTEST_SKIP() << "built with the CUDA toolkit";
  // Every instance is unavailable, whatever its (valid) settings, and the reason tells the user
  // what is missing and what to do.
  for (const Params& settings : {Params{}, Params{{"math_mode", "tf32"}, {"device", "1"}}}) {
    try {
      cublas_backend().open(settings);
      FAIL() << "open() succeeded in a build without the CUDA toolkit";
    } catch (const BackendUnavailable& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("built without the CUDA toolkit"), std::string::npos) << message;
      EXPECT_NE(message.find("find_package(CUDAToolkit)"), std::string::npos) << message;
      EXPECT_NE(message.find("CUDA 12+"), std::string::npos) << message;
    }
  }
  // The device query (which the GPU tests skip on) gives the same reason.
  EXPECT_FALSE(fprev_cuda_device_available());
  EXPECT_NE(fprev_cuda_skip_reason().find("built without the CUDA toolkit"), std::string::npos)
      << fprev_cuda_skip_reason();
}

TEST(CublasBackend, WithoutTheToolkitEveryMathModeStillParses) {
  if (built_with_cuda_toolkit()) GTEST_SKIP() << "built with the CUDA toolkit";
  // No cuBLAS headers to compare against: a suite asking for the newest math modes must read the
  // same as anywhere else and be skipped as unavailable, not rejected as misconfigured.
  for (const char* mode : {"bf16x9", "fp64_fixedpoint"}) {
    EXPECT_NO_THROW(settings_from({{"math_mode", mode}})) << mode;
    EXPECT_THROW(cublas_backend().open({{"math_mode", mode}}), BackendUnavailable) << mode;
  }
  EXPECT_NO_THROW(settings_from({{"emulation_strategy", "eager"}}));
}

TEST(CublasBackend, WithoutADeviceOpenSaysNoCudaDevice) {
  if (!built_with_cuda_toolkit()) GTEST_SKIP() << "built without the CUDA toolkit";
  if (fprev_cuda_device_available()) GTEST_SKIP() << "a CUDA device is visible";
  // The runtime library loaded and answered without crashing; the reason names the CUDA error.
  const std::string reason = fprev_cuda_skip_reason();
  EXPECT_EQ(reason.rfind("no CUDA device", 0), 0u) << reason;
  EXPECT_NE(reason.find("cudaError"), std::string::npos) << reason;
  try {
    cublas_backend().open({});
    FAIL() << "open() succeeded without a CUDA device";
  } catch (const BackendUnavailable& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device", 0), 0u) << e.what();
  }
}

TEST(CublasBackend, AskingForAMissingDeviceOrdinalIsUnavailable) {
  // Whatever this machine has, ordinal 1023 is not there.
  const DeviceQuery query = query_cuda_device(1023);
  EXPECT_FALSE(query.device.has_value());
  if (built_with_cuda_toolkit()) {
    EXPECT_EQ(query.reason.rfind("no CUDA device", 0), 0u) << query.reason;
  } else {
    EXPECT_NE(query.reason.find("built without the CUDA toolkit"), std::string::npos)
        << query.reason;
  }
  EXPECT_THROW(cublas_backend().open({{"device", "1023"}}), BackendUnavailable);
}

TEST(CublasBackend, OpenOnAGpuGivesIdentityAndPlatformKey) {
  if (!fprev_cuda_device_available()) GTEST_SKIP() << fprev_cuda_skip_reason();
  const DeviceDescription& device = *fprev_cuda_query().device;
  auto instance = cublas_backend().open({});
  const Identity id = instance->identity();
  EXPECT_EQ(id.library, "cuBLAS");
  EXPECT_FALSE(id.version.empty());
  EXPECT_NE(id.configuration.find(device.name), std::string::npos) << id.configuration;
  const std::string expected_key = "sm" + std::to_string(device.cc_major) +
                                   std::to_string(device.cc_minor) + "-" +
                                   std::to_string(device.sm_count) + "sm-default";
  EXPECT_EQ(id.platform_key, expected_key);
  for (const char* detail : {"driver_cuda_version", "cuda_runtime", "cublas", "cublaslt",
                             "workspace", "atomics", "math_mode", "gpu"})
    EXPECT_TRUE(id.details.count(detail)) << detail;
  EXPECT_EQ(id.details.at("gpu"), device.name);
}

TEST(CublasBackend, ValidateCaseRejectsBadCombinationsOnAGpu) {
  if (!fprev_cuda_device_available()) GTEST_SKIP() << fprev_cuda_skip_reason();
  auto instance = cublas_backend().open({});
  EXPECT_THROW(instance->validate_case({{"op", "gemm"}, {"dtype", "float16"}, {"m", "8"},
                                        {"n", "8"}, {"k", "8"}}),
               ConfigError);
  EXPECT_NO_THROW(instance->validate_case({{"op", "dot"}, {"n", "8"}}));
}

}  // namespace
}  // namespace fprev::cublas
