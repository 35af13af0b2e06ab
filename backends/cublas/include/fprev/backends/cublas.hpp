// The cuBLAS backend: reveals the accumulation orders of cuBLAS and cuBLASLt on an NVIDIA GPU
// (dot, gemv, gemm, cublasGemmEx and cublasLtMatmul with float32/float64 and the Tensor Core
// formats float16, bfloat16, tf32, fp8).
//
// This header is free of CUDA types on purpose: it is the part of the backend that can be used and
// tested without a GPU, and without the CUDA toolkit (settings, case validation, numeric traits,
// platform keys). Everything that talks to the GPU lives in src/cuda/, built into the backend
// module fprev_backend_cublas.so that open() loads on demand (programs do not link CUDA). The
// backend is registered in every build; one made without the CUDA toolkit validates suites and
// lists their cases as usual, and its open() throws BackendUnavailable saying that the toolkit was
// missing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/format.hpp"
#include "fprev/target.hpp"

namespace fprev {

void register_cublas_backend(BackendRegistry& registry);

namespace cublas {

// ---- the build ---------------------------------------------------------------------------------

// Whether CMake found a usable CUDA toolkit (12.0+, with cudart, cuBLAS and cuBLASLt) when this
// build was configured. Without it there is no device query and open() always throws
// BackendUnavailable with the reason.
bool built_with_cuda_toolkit();

// ---- the device --------------------------------------------------------------------------------

// What goldens care about of one CUDA device, and the versions around it.
struct DeviceDescription {
  int ordinal = 0;
  std::string name;          // "NVIDIA H100 80GB HBM3"
  int cc_major = 0;          // compute capability 9.0 -> 9, 0
  int cc_minor = 0;
  int sm_count = 0;          // multiprocessors visible (a MIG slice shows its own count)
  int driver_version = 0;    // cudaDriverGetVersion: 12040 = CUDA 12.4 driver API
  int runtime_version = 0;   // cudaRuntimeGetVersion
};

// Either a usable device or the reason there is none ("no CUDA device: ...").
struct DeviceQuery {
  std::optional<DeviceDescription> device;
  std::string reason;  // empty when `device` is set
};

// Asks the CUDA runtime for device `ordinal`, loading the backend module on first use. Never throws
// and never crashes without a driver: the runtime reports cudaErrorInsufficientDriver /
// cudaErrorNoDevice, which end up in `reason`. In a build without the CUDA toolkit, or when the
// module cannot be loaded (its file and dlerror()), the reason says so.
DeviceQuery query_cuda_device(int ordinal = 0);

// 12040 -> "12.4", 13000 -> "13.0"; 0 (no driver) -> "none".
std::string format_cuda_version(int version);

// ---- instance settings -------------------------------------------------------------------------

// cuBLAS handle math modes (cublasMath_t), named as in suites.
enum class MathMode : std::uint8_t {
  default_math,     // CUBLAS_DEFAULT_MATH
  tensor_op,        // CUBLAS_TENSOR_OP_MATH (deprecated; same as COMPUTE_32F_FAST_16F)
  pedantic,         // CUBLAS_PEDANTIC_MATH
  tf32,             // CUBLAS_TF32_TENSOR_OP_MATH
  bf16x9,           // CUBLAS_FP32_EMULATED_BF16X9_MATH (cuBLAS >= 12.9, used on Blackwell)
  fp64_fixedpoint,  // CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH (cuBLAS >= 13.1)
};
std::string_view to_string(MathMode mode);  // "default", "tensor_op", ...

enum class EmulationStrategy : std::uint8_t { library_default, performant, eager };
std::string_view to_string(EmulationStrategy strategy);  // "default", "performant", "eager"

struct InstanceSettings {
  int device = 0;
  MathMode math_mode = MathMode::default_math;
  bool reduced_precision_reduction = true;  // false: CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
  bool atomics = false;                     // cublasSetAtomicsMode(CUBLAS_ATOMICS_ALLOWED)
  std::optional<std::size_t> workspace_bytes;  // cublasSetWorkspace; nullopt = cuBLAS's own pool
  EmulationStrategy emulation = EmulationStrategy::library_default;
};

// The workspace cuBLASLt gets when the instance leaves `workspace` at "default" (cuBLASLt has no
// pool of its own; 32 MiB is what NVIDIA recommends for Hopper and newer).
inline constexpr std::size_t kDefaultLtWorkspaceBytes = std::size_t{32} << 20;

std::vector<ParamSpec> instance_param_specs();
// `resolved` has gone through resolve_params(instance_param_specs(), ...). Throws ConfigError.
InstanceSettings parse_instance_settings(const Params& resolved);
// "default", "4096", "32MiB", "1GiB" -> bytes (nullopt for "default"). Throws ConfigError.
std::optional<std::size_t> parse_workspace(const std::string& text);

// Whether the cuBLAS headers this backend was compiled against know a math mode / the emulation
// strategy API. True in a build without the toolkit: there open() reports the missing toolkit.
bool math_mode_supported_by_build(MathMode mode);
bool emulation_strategy_supported_by_build();

// File-name safe key under which goldens stay valid: GPU architecture, SM count and math mode,
// plus the settings that change results ("-norpr": reduced-precision reduction disallowed,
// "-atomics": atomics allowed, "-emu_eager"...). Example: "sm90-132sm-default".
std::string format_platform_key(const DeviceDescription& device, const InstanceSettings& settings);

// ---- cases -------------------------------------------------------------------------------------

enum class Op : std::uint8_t { dot, gemv, gemm, gemm_ex, lt_matmul };
std::string_view to_string(Op op);

// cublasComputeType_t, named as in suites (without the CUBLAS_COMPUTE_ prefix).
enum class Compute : std::uint8_t {
  c16F,
  c16F_pedantic,
  c32F,
  c32F_pedantic,
  c32F_fast_16F,
  c32F_fast_16BF,
  c32F_fast_tf32,
  c64F,
  c64F_pedantic,
};
std::string_view to_string(Compute compute);  // "16F", "32F_FAST_TF32", ...

// How probes are laid out in one gemm-family call:
//   rows      one probe per row of op(A); every column of op(B) holds the same right-hand factors
//             (SummandKind::product_shared_rhs). m probes per call, and every column of C must
//             agree, which checks that the order does not depend on the output column.
//   diagonal  probe p in row p of op(A) and column p of op(B); its output is C(p,p)
//             (SummandKind::product). min(m, n) probes per call, and both factors carry part of
//             the mask, which doubles the usable exponent range: float16 and fp8_e4m3 need it.
enum class ProbeLayout : std::uint8_t { rows, diagonal };

// One resolved and validated case. The reduction runs over `reduction()` products; `rows()`
// independent outputs (one probe each) come out of one library call.
struct CaseConfig {
  Op op = Op::dot;
  Format dtype = Format::float32;   // the case's dtype: what the matrices hold
  Format a_format = Format::float32;  // storage format of A / x (fp8_e5m2 cases: e5m2)
  Format b_format = Format::float32;  // storage format of B / y (fp8_e5m2 cases: e4m3)
  Format output = Format::float32;  // storage format of C / the result
  std::optional<Compute> compute;   // gemm_ex and lt_matmul only
  std::int64_t m = 0, n = 0, k = 0;  // as the routine names them (dot: n only; gemv: m, n)
  bool trans_a = false;              // gemv: trans; gemm family: transa
  bool trans_b = false;              // gemm family only
  int beta = 0;                      // 0 or 1; 1 adds C (or y) as the last leaf
  bool fp8_fast_accum = false;       // lt_matmul with fp8: CUBLASLT_MATMUL_DESC_FAST_ACCUM
  ProbeLayout probes = ProbeLayout::rows;  // gemm family only

  std::size_t reduction() const;  // products per output: dot n, gemv n (N) / m (T), gemm k
  // Probes per call: dot 1, gemv m (N) / n (T), gemm m (rows layout) / min(m, n) (diagonal).
  std::size_t rows() const;
  std::size_t columns() const;    // columns of C: gemm n, else 1
  std::size_t leaves() const { return reduction() + (beta != 0 ? 1 : 0); }
  std::string describe() const;   // "gemm_ex float16 -> float32 compute 32F m=64 n=64 k=32 trans=NN"
};

std::vector<ParamSpec> case_param_specs();
// `resolved` has gone through resolve_params(case_param_specs(), ...). Checks every combination
// (which dtypes, outputs, compute types, transposes and shapes an op accepts) and throws
// ConfigError listing the allowed values.
CaseConfig parse_case(const Params& resolved, const InstanceSettings& settings);

// The formats and fused-sum bounds the engine must assume for a case (see README.md):
// input = the narrowest format the library may convert the inputs to (tf32 math or compute type,
// FAST_16F/16BF), accumulator = float32 for Tensor Core paths (float16 for compute 16F, float64
// for double), max_fused_width an upper bound (33 for Tensor Core paths, 65 for fp8).
NumericTraits numeric_traits(const CaseConfig& config, const InstanceSettings& settings);

// Whether `device` can run `config` at all (fp8 needs compute capability 8.9, bfloat16 8.0).
// Returns the reason when it cannot; such cases are unavailable here, not misconfigured.
std::optional<std::string> device_cannot_run(const CaseConfig& config,
                                             const DeviceDescription& device);

}  // namespace cublas
}  // namespace fprev
