// What the build found: the CUDA toolkit, and the cuBLAS version of its headers (which math modes
// and APIs this build can ask for). Compiled into both parts; the headers are read, nothing of CUDA
// is linked here.
#include <string>

#include "cuda_seam.hpp"
#include "fprev/backends/cublas.hpp"

#ifdef FPREV_CUBLAS_WITH_TOOLKIT
#include <cublas_api.h>
#endif

// What CMake found instead of a usable toolkit (backends/cublas/CMakeLists.txt).
#ifndef FPREV_CUBLAS_CONFIGURE_FINDING
#define FPREV_CUBLAS_CONFIGURE_FINDING "find_package(CUDAToolkit) failed"
#endif

namespace fprev::cublas {

#ifdef FPREV_CUBLAS_WITH_TOOLKIT
bool built_with_cuda_toolkit() { return true; }
int detail::cublas_build_version() { return CUBLAS_VERSION; }
#else
bool built_with_cuda_toolkit() { return false; }
int detail::cublas_build_version() { return 0; }
#endif

std::string detail::no_toolkit_reason() {
  return "fprev-golden was built without the CUDA toolkit (" FPREV_CUBLAS_CONFIGURE_FINDING
         " at configure time); rebuild on a machine with CUDA 12+ to test cuBLAS";
}

}  // namespace fprev::cublas
