// The Eigen routines the eigen backend calls, as a table of plain function pointers: the same
// source (eigen_kernels.cpp) is compiled once for the baseline ISA into the backend and once with
// -march=x86-64-v4 into a shared library of its own (loaded only on a host that can run it), whose
// Eigen code stays inside it (hidden visibility), so the two builds never mix.
#pragma once

#include <cstddef>

#include "fprev/blas/library.hpp"

namespace fprev::eigen {

struct Kernels {
  // Eigen::Map<const VectorX<T>>(x, n).sum() and .dot(Map(y, n)).
  float (*sum_f)(const float* x, std::size_t n);
  double (*sum_d)(const double* x, std::size_t n);
  float (*dot_f)(const float* x, const float* y, std::size_t n);
  double (*dot_d)(const double* x, const double* y, std::size_t n);
  // y = A x and C = A B of column-major Maps with outer strides lda, ldb, ldc (OuterStride<>), in
  // the BLAS calling convention the blas backend's matrix target uses; 'N' only, alpha 1, beta 0.
  blas::GemvFn<float> gemv_f;
  blas::GemvFn<double> gemv_d;
  blas::GemmFn<float> gemm_f;
  blas::GemmFn<double> gemm_d;
  const char* simd;     // Eigen::SimdInstructionSetsInUse()
  const char* version;  // "3.4.0"
};

// The baseline build, linked into the backend.
const Kernels& baseline_kernels();

}  // namespace fprev::eigen

// The entry point of the x86-64-v4 build (fprev_eigen_x86-64-v4.so).
#define FPREV_EIGEN_KERNELS_ENTRY "fprev_eigen_kernels_v1"
