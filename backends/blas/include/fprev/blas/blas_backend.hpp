// The `blas` backend: a CPU BLAS loaded at run time, its dot, gemv and gemm as targets.
//
// Instance settings: library (openblas | blis | netlib | atlas | /absolute/path.so, default
// openblas), threads (default 1) and kernel (a kernel family to force, e.g. Haswell; absent: the
// library's own choice). The environment variable FPREV_BLAS_LIBRARY, when set and not
// empty, replaces the library of every blas instance: a CI job points a whole suite at an upgrade
// candidate without editing it. See backends/blas/README.md.
#pragma once

#include <memory>

#include "fprev/backend.hpp"
#include "fprev/blas/platform.hpp"

namespace fprev {

void register_blas_backend(BackendRegistry& registry);

namespace blas {

inline constexpr const char* kLibraryEnvironmentVariable = "FPREV_BLAS_LIBRARY";

std::unique_ptr<Backend> make_backend();
// The same, on a CPU described by the caller instead of this machine's (tests): it decides which
// kernel families may be forced, limited to the features this machine has.
std::unique_ptr<Backend> make_backend(CpuDescription cpu);

}  // namespace blas
}  // namespace fprev
