// Instance settings of the cuBLAS backend (device, math mode, workspace, ...) and the platform key.
// Pure C++ without CUDA headers: built and unit-tested on every machine, toolkit or not (what the
// cuBLAS headers of the build support is asked through cuda_seam.hpp).
#include <charconv>
#include <limits>
#include <string>

#include "cuda_seam.hpp"
#include "fprev/backends/cublas.hpp"

namespace fprev::cublas {
namespace {

struct MathModeName {
  MathMode mode;
  std::string_view name;
};
constexpr MathModeName kMathModes[] = {
    {MathMode::default_math, "default"}, {MathMode::tensor_op, "tensor_op"},
    {MathMode::pedantic, "pedantic"},    {MathMode::tf32, "tf32"},
    {MathMode::bf16x9, "bf16x9"},        {MathMode::fp64_fixedpoint, "fp64_fixedpoint"},
};

struct StrategyName {
  EmulationStrategy strategy;
  std::string_view name;
};
constexpr StrategyName kStrategies[] = {
    {EmulationStrategy::library_default, "default"},
    {EmulationStrategy::performant, "performant"},
    {EmulationStrategy::eager, "eager"},
};

}  // namespace

std::string_view to_string(MathMode mode) {
  for (const auto& entry : kMathModes)
    if (entry.mode == mode) return entry.name;
  return "?";
}

std::string_view to_string(EmulationStrategy strategy) {
  for (const auto& entry : kStrategies)
    if (entry.strategy == strategy) return entry.name;
  return "?";
}

bool math_mode_supported_by_build(MathMode mode) {
  // Without the toolkit no cuBLAS headers constrain the settings; open() reports the missing
  // toolkit instead, so a suite reads the same (and is skipped the same) on every such machine.
  if (!built_with_cuda_toolkit()) return true;
  switch (mode) {
    case MathMode::bf16x9:  // CUBLAS_FP32_EMULATED_BF16X9_MATH appeared in cuBLAS 12.9
      return detail::cublas_build_version() >= 120900;
    case MathMode::fp64_fixedpoint:  // CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH in cuBLAS 13.1
      return detail::cublas_build_version() >= 130100;
    default:
      return true;
  }
}

bool emulation_strategy_supported_by_build() {
  // cublasSetEmulationStrategy appeared in cuBLAS 12.9.
  return !built_with_cuda_toolkit() || detail::cublas_build_version() >= 120900;
}

std::string format_cuda_version(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::vector<ParamSpec> instance_param_specs() {
  std::vector<std::string> modes;
  for (const auto& entry : kMathModes) modes.emplace_back(entry.name);
  std::vector<std::string> strategies;
  for (const auto& entry : kStrategies) strategies.emplace_back(entry.name);
  return {
      integer_param("device", 0, 1023, "CUDA device ordinal").defaults_to("0"),
      choice_param("math_mode", modes,
                   "cublasSetMathMode: default (CUBLAS_DEFAULT_MATH), tensor_op (CUBLAS_TENSOR_OP_MATH, "
                   "deprecated: float32 inputs may be rounded to float16), pedantic (CUBLAS_PEDANTIC_MATH), "
                   "tf32 (CUBLAS_TF32_TENSOR_OP_MATH), bf16x9 (CUBLAS_FP32_EMULATED_BF16X9_MATH), "
                   "fp64_fixedpoint (CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH); ignored by lt_matmul")
          .defaults_to("default"),
      boolean_param("reduced_precision_reduction",
                    "false adds CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION to the math mode")
          .defaults_to("true"),
      boolean_param("atomics",
                    "cublasSetAtomicsMode: true allows routines that use atomics (non-deterministic)")
          .defaults_to("false"),
      string_param("workspace",
                   "cublasSetWorkspace size in bytes (suffixes KiB, MiB, GiB), or default (cuBLAS's own "
                   "pool, sized by CUBLAS_WORKSPACE_CONFIG); also the cuBLASLt workspace (default 32MiB)")
          .defaults_to("default"),
      choice_param("emulation_strategy", strategies,
                   "cublasSetEmulationStrategy for the bf16x9 and fp64_fixedpoint math modes")
          .defaults_to("default"),
  };
}

std::optional<std::size_t> parse_workspace(const std::string& text) {
  if (text == "default") return std::nullopt;
  const auto fail = [&text]() -> ConfigError {
    return ConfigError("workspace", "cublas: 'workspace' must be 'default' or a size in bytes "
                                    "(optionally with KiB, MiB or GiB), got '" + text + "'");
  };
  std::uint64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) throw fail();
  const std::string_view suffix(ptr, static_cast<std::size_t>(end - ptr));
  unsigned shift = 0;
  if (suffix == "KiB") {
    shift = 10;
  } else if (suffix == "MiB") {
    shift = 20;
  } else if (suffix == "GiB") {
    shift = 30;
  } else if (!suffix.empty()) {
    throw fail();
  }
  if (value > (std::uint64_t{1} << 40) >> shift)
    throw ConfigError("workspace", "cublas: 'workspace' " + text + " is larger than 1TiB");
  return static_cast<std::size_t>(value << shift);
}

InstanceSettings parse_instance_settings(const Params& resolved) {
  InstanceSettings settings;
  settings.device = static_cast<int>(param_int(resolved, "device"));
  const std::string mode = param_str(resolved, "math_mode");
  for (const auto& entry : kMathModes)
    if (entry.name == mode) settings.math_mode = entry.mode;
  if (!math_mode_supported_by_build(settings.math_mode))
    throw ConfigError("math_mode", "cublas: math_mode '" + mode +
                                       "' needs a newer cuBLAS than this build's " +
                                       std::to_string(detail::cublas_build_version()));
  settings.reduced_precision_reduction = param_str(resolved, "reduced_precision_reduction") == "true";
  settings.atomics = param_str(resolved, "atomics") == "true";
  settings.workspace_bytes = parse_workspace(param_str(resolved, "workspace"));
  const std::string strategy = param_str(resolved, "emulation_strategy");
  for (const auto& entry : kStrategies)
    if (entry.name == strategy) settings.emulation = entry.strategy;
  if (settings.emulation != EmulationStrategy::library_default &&
      !emulation_strategy_supported_by_build())
    throw ConfigError("emulation_strategy",
                      "cublas: 'emulation_strategy' needs cuBLAS 12.9 or newer");
  return settings;
}

std::string format_platform_key(const DeviceDescription& device, const InstanceSettings& settings) {
  std::string key = "sm" + std::to_string(device.cc_major) + std::to_string(device.cc_minor) + "-" +
                    std::to_string(device.sm_count) + "sm-" + std::string(to_string(settings.math_mode));
  if (!settings.reduced_precision_reduction) key += "-norpr";
  if (settings.atomics) key += "-atomics";
  if (settings.emulation != EmulationStrategy::library_default)
    key += "-emu_" + std::string(to_string(settings.emulation));
  return key;
}

}  // namespace fprev::cublas
