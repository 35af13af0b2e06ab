// The seam between the two halves of the backend. The CUDA-free half (src/*.cpp: parameter specs,
// settings and case validation, registration) is built on every machine, so the backend is always
// registered and suites validate, and list the same case ids, everywhere. The half that talks to
// CUDA comes in two versions with the functions below: src/cuda/ when CMake found the CUDA toolkit,
// src/no_cuda/ when it did not (there open_instance() says why the backend is unavailable).
#pragma once

#include <memory>

#include "fprev/backend.hpp"
#include "fprev/backends/cublas.hpp"

namespace fprev::cublas::detail {

// Opens an instance with settings that passed parse_instance_settings(), or throws
// BackendUnavailable naming what is missing (the toolkit at build time, the GPU, cuBLAS itself).
std::unique_ptr<BackendInstance> open_instance(const InstanceSettings& settings);

// CUBLAS_VERSION of the headers this build was compiled against (120901 = 12.9.1); 0 without the
// toolkit.
int cublas_build_version();

}  // namespace fprev::cublas::detail
