// The eigen backend's targets: sum and dot read ProbeVectors (placed at the batch's offset); gemv
// and gemm are the blas backend's matrix target driving Eigen's products through the BLAS calling
// convention (operands at the offset, leading dimensions padded as the batch asks).
#pragma once

#include <memory>
#include <string>

#include "eigen_kernels.hpp"
#include "fprev/target.hpp"

namespace fprev::eigen {

struct EigenCase {
  std::string op;  // sum, dot, gemv, gemm
  Format dtype = Format::float32;
  std::size_t n = 0, m = 0, k = 0;
};

std::unique_ptr<Target> make_eigen_target(const EigenCase& c, const Kernels& kernels, const std::string& isa);

}  // namespace fprev::eigen
