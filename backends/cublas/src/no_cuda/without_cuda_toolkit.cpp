// The CUDA half of cuda_seam.hpp for a build made without the CUDA toolkit: the backend stays
// registered (suites validate and list the same case ids as anywhere else), but nothing can run,
// and every way in says why: open() throws BackendUnavailable (the runner skips the cases,
// `fprev-golden env` shows the reason, `fprev-golden reveal` exits 1 with it) and the device query
// reports the same reason, so the GPU tests skip with it.
#include <string>

#include "cuda_seam.hpp"
#include "fprev/backends/cublas.hpp"

// What CMake found instead of a usable toolkit (backends/cublas/CMakeLists.txt).
#ifndef FPREV_CUBLAS_CONFIGURE_FINDING
#define FPREV_CUBLAS_CONFIGURE_FINDING "find_package(CUDAToolkit) failed"
#endif

namespace fprev::cublas {
namespace {

std::string no_toolkit_reason() {
  return "fprev-golden was built without the CUDA toolkit (" FPREV_CUBLAS_CONFIGURE_FINDING
         " at configure time); rebuild on a machine with CUDA 12+ to test cuBLAS";
}

}  // namespace

bool built_with_cuda_toolkit() { return false; }

DeviceQuery query_cuda_device(int /*ordinal*/) {
  DeviceQuery query;
  query.reason = no_toolkit_reason();
  return query;
}

namespace detail {

int cublas_build_version() { return 0; }

std::unique_ptr<BackendInstance> open_instance(const InstanceSettings& /*settings*/) {
  throw BackendUnavailable(no_toolkit_reason());
}

}  // namespace detail
}  // namespace fprev::cublas
