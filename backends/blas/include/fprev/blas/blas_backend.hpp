// The `blas` backend: a CPU BLAS loaded at run time, its dot, gemv and gemm as targets.
//
// Instance settings: library (openblas | blis | netlib | atlas | /absolute/path.so, default
// openblas) and threads (default 1). The environment variable FPREV_BLAS_LIBRARY, when set and not
// empty, replaces the library of every blas instance: a CI job points a whole suite at an upgrade
// candidate without editing it. See backends/blas/README.md.
#pragma once

#include <memory>

#include "fprev/backend.hpp"

namespace fprev {

void register_blas_backend(BackendRegistry& registry);

namespace blas {

inline constexpr const char* kLibraryEnvironmentVariable = "FPREV_BLAS_LIBRARY";

std::unique_ptr<Backend> make_backend();

}  // namespace blas
}  // namespace fprev
