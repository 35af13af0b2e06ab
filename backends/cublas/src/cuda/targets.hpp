// The cuBLAS targets and what they share: the factory, the configured cuBLAS handle, and the
// library calls ("launchers") the matrix target drives.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "cuda_support.hpp"
#include "fprev/backends/cublas.hpp"
#include "fprev/target.hpp"

namespace fprev::cublas::detail {

// Everything a target needs to know about its case and where it runs.
struct TargetSetup {
  CaseConfig config;
  NumericTraits traits;
  InstanceSettings settings;
  DeviceDescription device;
};

std::unique_ptr<Target> make_target(const TargetSetup& setup);
std::unique_ptr<Target> make_dot_target(const TargetSetup& setup);
std::unique_ptr<Target> make_matrix_target(const TargetSetup& setup);

// The value a scaling factor (alpha, beta) must be handed over as for a compute type.
struct Scalars {
  float f[2] = {1.0f, 0.0f};
  double d[2] = {1.0, 0.0};
  std::uint16_t h[2] = {0x3c00, 0x0000};  // float16 1.0 and 0.0
  enum class Kind : std::uint8_t { f32, f64, f16 } kind = Kind::f32;

  Scalars(Kind k, int beta);
  const void* alpha() const;
  const void* beta() const;
};

// A cuBLAS handle on `stream` with the instance's math mode, atomics mode, workspace and
// emulation strategy. cublasSetStream resets the workspace, so the stream is set first.
class ConfiguredHandle {
 public:
  ConfiguredHandle(const InstanceSettings& settings, cudaStream_t stream,
                   cublasPointerMode_t pointer_mode);
  cublasHandle_t get() const { return handle_.get(); }

 private:
  DeviceMemory workspace_;  // declared first: destroyed after the handle that uses it
  CublasHandle handle_;
};

// One library call computing C from A and B on the target's stream. The matrix target owns the
// buffers and the staging; a launcher owns the library state of one call (handle, descriptors,
// chosen algorithm, workspace).
class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual void run(const void* a, const void* b, void* c) = 0;
  // What was configured (and for cuBLASLt which algorithm was chosen), for TargetInfo.
  virtual std::string describe() const = 0;
};

std::unique_ptr<Launcher> make_launcher(const TargetSetup& setup, cudaStream_t stream);

// cuBLAS's enum values for our settings.
cublasComputeType_t compute_type(Compute compute);
cublasMath_t math_mode_value(const InstanceSettings& settings);

}  // namespace fprev::cublas::detail
