// The configured cuBLAS handle and the mapping of our settings to cuBLAS enum values.
#include <cstdlib>

#include "targets.hpp"

namespace fprev::cublas::detail {

Scalars::Scalars(Kind k, int beta_value) : kind(k) {
  f[1] = static_cast<float>(beta_value);
  d[1] = static_cast<double>(beta_value);
  h[1] = beta_value != 0 ? std::uint16_t{0x3c00} : std::uint16_t{0};
}

const void* Scalars::alpha() const {
  switch (kind) {
    case Kind::f64:
      return &d[0];
    case Kind::f16:
      return &h[0];
    case Kind::f32:
      break;
  }
  return &f[0];
}

const void* Scalars::beta() const {
  switch (kind) {
    case Kind::f64:
      return &d[1];
    case Kind::f16:
      return &h[1];
    case Kind::f32:
      break;
  }
  return &f[1];
}

cublasComputeType_t compute_type(Compute compute) {
  switch (compute) {
    case Compute::c16F:
      return CUBLAS_COMPUTE_16F;
    case Compute::c16F_pedantic:
      return CUBLAS_COMPUTE_16F_PEDANTIC;
    case Compute::c32F:
      return CUBLAS_COMPUTE_32F;
    case Compute::c32F_pedantic:
      return CUBLAS_COMPUTE_32F_PEDANTIC;
    case Compute::c32F_fast_16F:
      return CUBLAS_COMPUTE_32F_FAST_16F;
    case Compute::c32F_fast_16BF:
      return CUBLAS_COMPUTE_32F_FAST_16BF;
    case Compute::c32F_fast_tf32:
      return CUBLAS_COMPUTE_32F_FAST_TF32;
    case Compute::c64F:
      return CUBLAS_COMPUTE_64F;
    case Compute::c64F_pedantic:
      return CUBLAS_COMPUTE_64F_PEDANTIC;
  }
  return CUBLAS_COMPUTE_32F;
}

cublasMath_t math_mode_value(const InstanceSettings& settings) {
  int mode = CUBLAS_DEFAULT_MATH;
  switch (settings.math_mode) {
    case MathMode::default_math:
      mode = CUBLAS_DEFAULT_MATH;
      break;
    case MathMode::tensor_op:
      mode = CUBLAS_TENSOR_OP_MATH;
      break;
    case MathMode::pedantic:
      mode = CUBLAS_PEDANTIC_MATH;
      break;
    case MathMode::tf32:
      mode = CUBLAS_TF32_TENSOR_OP_MATH;
      break;
    case MathMode::bf16x9:
#if CUBLAS_VERSION >= 120900
      mode = CUBLAS_FP32_EMULATED_BF16X9_MATH;
#endif
      break;
    case MathMode::fp64_fixedpoint:
#if CUBLAS_VERSION >= 130100
      mode = CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH;
#endif
      break;
  }
  if (!settings.reduced_precision_reduction) mode |= CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
  return static_cast<cublasMath_t>(mode);
}

ConfiguredHandle::ConfiguredHandle(const InstanceSettings& settings, cudaStream_t stream,
                                   cublasPointerMode_t pointer_mode)
    : handle_(make_cublas_handle()) {
  cublasHandle_t h = handle_.get();
  check(cublasSetStream(h, stream), "cublasSetStream");
  if (settings.workspace_bytes) {
    workspace_ = DeviceMemory(*settings.workspace_bytes);
    check(cublasSetWorkspace(h, workspace_.get(), workspace_.bytes()), "cublasSetWorkspace");
  }
  check(cublasSetMathMode(h, math_mode_value(settings)), "cublasSetMathMode");
  check(cublasSetAtomicsMode(h, settings.atomics ? CUBLAS_ATOMICS_ALLOWED : CUBLAS_ATOMICS_NOT_ALLOWED),
        "cublasSetAtomicsMode");
  check(cublasSetPointerMode(h, pointer_mode), "cublasSetPointerMode");
#if CUBLAS_VERSION >= 120900
  if (settings.emulation != EmulationStrategy::library_default) {
    const cublasEmulationStrategy_t strategy = settings.emulation == EmulationStrategy::eager
                                                   ? CUBLAS_EMULATION_STRATEGY_EAGER
                                                   : CUBLAS_EMULATION_STRATEGY_PERFORMANT;
    check(cublasSetEmulationStrategy(h, strategy), "cublasSetEmulationStrategy");
  }
#endif
}

}  // namespace fprev::cublas::detail
