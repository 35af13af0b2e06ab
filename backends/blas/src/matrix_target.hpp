// gemv and gemm as one target with one input per output row.
//
// Row r of op(A) carries the a-factors of input r; x (gemv) or every column of B (gemm) holds the
// shared b-factors (SummandKind::product_shared_rhs), so output (r, j) is input r's sum for every
// column j. With beta = 1 the old y / C of row r is input r's last summand.
//
// Because the routine computes all rows and columns, the target checks on every probe call that
// they agree: the last row repeats the first row's input (so a call takes at most rows - 1 inputs),
// and the first and last columns of each used row must be equal (B's columns are equal). A
// difference means the order depends on the output position; it is thrown as BatchInconsistent,
// never averaged away. (Probe products are exact, so only the order can make them differ; random
// inputs are not compared, see evaluate(ValueBatch).)
#pragma once

#include <cstring>
#include <memory>
#include <string>

#include "aligned_buffer.hpp"
#include "fprev/blas/blas_case.hpp"
#include "fprev/blas/library.hpp"
#include "fprev/target.hpp"

namespace fprev::blas {

template <class T>
class MatrixTarget final : public Target {
 public:
  MatrixTarget(std::shared_ptr<const Library> library, int threads, const BlasCase& blas_case,
               const Kernels<T>& kernels, std::string description);

  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;

 private:
  // Row-major inputs, `leaves_` values per row: a-factors of the reduction, then the C leaf.
  T* staged_row(std::size_t row) { return staging_ + row * leaves_; }
  void stage_probe(const ProbeBatch& batch, std::size_t probe, std::size_t row);
  void stage_values(const ValueBatch& batch, std::size_t input, std::size_t row);
  void fill_rhs(const double* factors);  // nullptr: the constant rhs_value_
  void pack_rows(std::size_t begin, std::size_t end);
  void run(std::size_t used, std::span<double> outputs, bool compare_positions);
  void call_kernel();
  void check_consistency(std::size_t used) const;
  void check_sizes(std::size_t inputs, std::size_t outputs) const;
  T out(std::size_t row, std::size_t col) const { return c_[row + col * rows_]; }

  std::shared_ptr<const Library> library_;
  int threads_;
  BlasCase case_;
  Kernels<T> kernels_;
  TargetInfo info_;

  std::size_t rows_, reduction_, leaves_, columns_;
  bool check_row_;        // the last row repeats input 0
  bool rows_contiguous_;  // a row of op(A) is contiguous in A (A transposed)
  AlignedBuffer<T> a_;    // A as the routine reads it
  AlignedBuffer<T> staging_storage_;  // row-major inputs, unless they are written into a_ directly
  T* staging_;
  AlignedBuffer<T> b_;  // x (gemv) or B (gemm)
  AlignedBuffer<T> c_;  // y or C, column-major rows_ x columns_
  AlignedBuffer<T> c_leaf_;  // per row: the old C value (beta = 1)
  bool rhs_constant_ = false;
  double rhs_value_ = 0.0;
};

}  // namespace fprev::blas
