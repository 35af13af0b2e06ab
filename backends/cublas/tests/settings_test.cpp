// Instance settings, workspace sizes, version formatting and platform keys: no GPU needed.
#include <gtest/gtest.h>

#include "cuda_test_support.hpp"

namespace fprev::cublas {
namespace {

TEST(CublasSettings, DefaultsAreDeviceZeroDefaultMathNoAtomicsLibraryWorkspace) {
  const InstanceSettings s = settings_from({});
  EXPECT_EQ(s.device, 0);
  EXPECT_EQ(s.math_mode, MathMode::default_math);
  EXPECT_TRUE(s.reduced_precision_reduction);
  EXPECT_FALSE(s.atomics);
  EXPECT_FALSE(s.workspace_bytes.has_value());
  EXPECT_EQ(s.emulation, EmulationStrategy::library_default);
}

TEST(CublasSettings, ParsesEveryMathModeName) {
  const std::pair<const char*, MathMode> modes[] = {
      {"default", MathMode::default_math}, {"tensor_op", MathMode::tensor_op},
      {"pedantic", MathMode::pedantic},    {"tf32", MathMode::tf32},
      {"bf16x9", MathMode::bf16x9},        {"fp64_fixedpoint", MathMode::fp64_fixedpoint}};
  for (const auto& [name, mode] : modes) {
    if (!math_mode_supported_by_build(mode)) continue;  // older cuBLAS headers
    EXPECT_EQ(settings_from({{"math_mode", name}}).math_mode, mode) << name;
    EXPECT_EQ(to_string(mode), name);
  }
}

TEST(CublasSettings, UnknownMathModeListsTheAllowedValues) {
  try {
    settings_from({{"math_mode", "fast"}});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "math_mode");
    const std::string message = e.what();
    for (const char* allowed : {"default", "tensor_op", "pedantic", "tf32"})
      EXPECT_NE(message.find(allowed), std::string::npos) << message;
  }
}

TEST(CublasSettings, UnknownParameterIsRejected) {
  EXPECT_THROW(settings_from({{"threads", "4"}}), ConfigError);
}

TEST(CublasSettings, FlagsAndDevice) {
  const InstanceSettings s = settings_from({{"device", "3"},
                                            {"reduced_precision_reduction", "false"},
                                            {"atomics", "true"}});
  EXPECT_EQ(s.device, 3);
  EXPECT_FALSE(s.reduced_precision_reduction);
  EXPECT_TRUE(s.atomics);
  EXPECT_THROW(settings_from({{"device", "-1"}}), ConfigError);
  EXPECT_THROW(settings_from({{"atomics", "yes"}}), ConfigError);
}

TEST(CublasWorkspace, BytesAndBinarySuffixes) {
  EXPECT_FALSE(parse_workspace("default").has_value());
  EXPECT_EQ(parse_workspace("0"), std::size_t{0});
  EXPECT_EQ(parse_workspace("4096"), std::size_t{4096});
  EXPECT_EQ(parse_workspace("4KiB"), std::size_t{4096});
  EXPECT_EQ(parse_workspace("32MiB"), std::size_t{32} * 1024 * 1024);
  EXPECT_EQ(parse_workspace("1GiB"), std::size_t{1} << 30);
  EXPECT_EQ(settings_from({{"workspace", "8MiB"}}).workspace_bytes, std::size_t{8} << 20);
}

TEST(CublasWorkspace, RejectsGarbageNegativeAndHuge) {
  for (const char* bad : {"", "abc", "-1", "12MB", "1.5MiB", "MiB", "2048GiB"}) {
    try {
      parse_workspace(bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "workspace") << bad;
    }
  }
}

TEST(CublasVersions, CudaVersionNumbersAsMajorDotMinor) {
  // cudaDriverGetVersion / cudaRuntimeGetVersion encode 1000 * major + 10 * minor.
  EXPECT_EQ(format_cuda_version(12040), "12.4");
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(11080), "11.8");
  EXPECT_EQ(format_cuda_version(0), "none");
}

DeviceDescription h100() {
  DeviceDescription d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  return d;
}

TEST(CublasPlatformKey, ArchitectureSmCountAndMathMode) {
  EXPECT_EQ(format_platform_key(h100(), settings_from({})), "sm90-132sm-default");
  DeviceDescription a100;
  a100.cc_major = 8;
  a100.cc_minor = 0;
  a100.sm_count = 108;
  EXPECT_EQ(format_platform_key(a100, settings_from({{"math_mode", "tf32"}})), "sm80-108sm-tf32");
  DeviceDescription ada;
  ada.cc_major = 8;
  ada.cc_minor = 9;
  ada.sm_count = 128;
  EXPECT_EQ(format_platform_key(ada, settings_from({{"math_mode", "pedantic"}})),
            "sm89-128sm-pedantic");
}

TEST(CublasPlatformKey, SettingsThatChangeResultsAreInTheKey) {
  EXPECT_EQ(format_platform_key(h100(), settings_from({{"reduced_precision_reduction", "false"},
                                                       {"atomics", "true"}})),
            "sm90-132sm-default-norpr-atomics");
  if (emulation_strategy_supported_by_build()) {
    EXPECT_EQ(format_platform_key(h100(), settings_from({{"emulation_strategy", "eager"}})),
              "sm90-132sm-default-emu_eager");
  }
  // The workspace is metadata, not part of the key.
  EXPECT_EQ(format_platform_key(h100(), settings_from({{"workspace", "0"}})), "sm90-132sm-default");
}

TEST(CublasPlatformKey, IsFileNameSafe) {
  DeviceDescription blackwell;
  blackwell.name = "NVIDIA B200 / test";  // the name never enters the key
  blackwell.cc_major = 10;
  blackwell.cc_minor = 0;
  blackwell.sm_count = 148;
  const std::string key =
      format_platform_key(blackwell, settings_from({{"math_mode", "pedantic"}, {"atomics", "true"}}));
  EXPECT_EQ(key, "sm100-148sm-pedantic-atomics");
  for (char ch : key)
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') << key;
}

}  // namespace
}  // namespace fprev::cublas
