// The cases the blas backend builds: which BLAS routine, with which shape, and which of its
// numbers are summands.
//
//   dot   n           sum_k x[k] * y[k], k < n                       (sdot_, ddot_)
//   gemv  m, n, trans A is m x n (BLAS's M, N arguments);           (sgemv_, dgemv_)
//                     trans N: y = A x,   m outputs, each a sum over n products
//                     trans T: y = A^T x, n outputs, each a sum over m products
//   gemm  m, n, k     C (m x n) = op(A) (m x k) * op(B) (k x n), each output a sum over k products;
//         trans       NN (default), NT, TN, TT: op of A, then of B   (sgemm_, dgemm_)
//   beta  0 (default) or 1 for gemv and gemm: with 1 the previous y / C is one more summand, the
//         last leaf (index = the reduction length).
//
// Leaf l of gemv/gemm is the l-th product of the reduction, leaf <reduction> the old C. gemv and
// gemm are grid targets of rows x columns outputs: one call takes an input on every row of op(A)
// or on every column of op(B) and returns every element, and the engine reveals which elements
// follow which order (an order map).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/format.hpp"

namespace fprev::blas {

enum class Op : std::uint8_t { dot, gemv, gemm };

struct BlasCase {
  Op op = Op::dot;
  Format dtype = Format::float32;
  std::int64_t m = 0, n = 0, k = 0;  // as passed to the BLAS routine (dot: n only)
  char trans_a = 'N', trans_b = 'N';
  int beta = 0;

  std::size_t rows = 1;       // output rows (dot: 1; gemv/gemm: rows of op(A))
  std::size_t reduction = 0;  // products summed per output (dot: n; gemv: columns of op(A); gemm: k)
  std::size_t columns = 1;    // output columns (gemm: n; dot, gemv: 1)
  std::size_t leaves() const { return reduction + static_cast<std::size_t>(beta); }

  std::string symbol() const;    // the Fortran symbol called, e.g. "sgemm_"
  std::string describe() const;  // "sgemm TN m=64 n=64 k=257 beta=1"
};

// The case parameters: op, dtype, n, m, k, trans, beta (see above).
std::vector<ParamSpec> case_param_specs();

// Interprets resolved case parameters. Throws ConfigError for a parameter that the op needs but
// lacks, one that does not apply to the op, a transposition the op does not have, or a shape whose
// buffers would be too large for 32-bit BLAS indexing.
BlasCase parse_case(const Params& resolved);

}  // namespace fprev::blas
