// The targets of the blas backend (internal): a dot product (single-output), and gemv/gemm as
// grid targets (every element of y / C per call; see matrix_target.hpp).
#pragma once

#include <memory>
#include <string>

#include "fprev/blas/blas_case.hpp"
#include "fprev/blas/library.hpp"
#include "fprev/target.hpp"

namespace fprev::blas {

// `library` must export the case's symbol (checked by the caller). Each evaluate() call first sets
// the library to `threads` threads (instances of different thread counts may share one library).
std::unique_ptr<Target> make_target(std::shared_ptr<const Library> library, int threads,
                                    const BlasCase& blas_case, std::string description);

}  // namespace fprev::blas
