// The seam between the two parts of the backend.
//
//   linked into every program (src/*.cpp, no CUDA library): parameter specs, settings and case
//     validation, the build facts, registration. Suites naming `use: cublas` load, validate and
//     list the same case ids on every machine, and `fprev-golden env` lists the backend with the
//     reason it is unusable.
//   the module fprev_backend_cublas.so (src/cuda/*.cpp, built when CMake finds the CUDA toolkit):
//     everything that links cudart, cuBLAS and cuBLASLt. It registers a complete `cublas` backend
//     (CudaBackend below) and is loaded by the linked part's open() and query_cuda_device(), so a
//     program maps the CUDA libraries only when a cuBLAS case runs (fprev/backend_module.hpp).
#pragma once

#include <memory>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/backends/cublas.hpp"

namespace fprev::cublas::detail {

// What both parts say about the backend: name, summary, instance and case parameters, suite
// validation. Defined in cublas_backend.cpp.
class CublasBackendBase : public Backend {
 public:
  std::string_view name() const override;
  std::string_view summary() const override;
  std::vector<ParamSpec> instance_params() const override;
  // Suites are validated without opening an instance (there may be no GPU, or no CUDA toolkit, on
  // the machine that checks them): the case parameters and their combinations do not depend on
  // the device.
  std::vector<ParamSpec> case_params() const override;
  void validate_case(const Params& resolved) const override;
};

// The backend the module registers under "cublas": open() talks to the GPU, and the device query
// answers query_cuda_device().
class CudaBackend : public CublasBackendBase {
 public:
  virtual DeviceQuery query_device(int ordinal) const = 0;
};

// The module's CudaBackend, loaded on first use. Throws BackendUnavailable saying why there is
// none: the build had no CUDA toolkit, or the module cannot be found or loaded (its message names
// the file and dlerror(), e.g. a missing libcudart).
const CudaBackend& cuda_part();

// CUBLAS_VERSION of the headers this build was compiled against (120901 = 12.9.1); 0 without the
// toolkit.
int cublas_build_version();

// Why nothing can run in a build made without the CUDA toolkit.
std::string no_toolkit_reason();

}  // namespace fprev::cublas::detail
