// gemv and gemm as grid targets: one call evaluates the whole output (C is m x n, y is rows x 1),
// and the engine reveals which elements follow which tree (an order map).
//
// Placement::rows: input p goes into row p of op(A) (its a-factors), and every element of op(B)
// (or x) holds the shared b-factor, so every element of row p of C adds input p's summands.
// Placement::columns: input p goes into column p of op(B) (or x, which has one column), and every
// element of op(A) holds the shared factor, so every element of column p of C adds input p's
// summands. (SummandKind::product_shared_rhs: the engine's probes keep all their range in one
// factor and a common power of two in the other; which matrix carries which is the target's
// choice, products being exact.) With beta = 1 the old y / C of each element is its last summand,
// the product of the input's two factors at leaf <reduction>.
//
// The buffers lie where the batch asks (ProbeBatch::offset, leading_pad: the alignment check).
// Lines without an input are zero. The target compares nothing itself: every element is returned.
#pragma once

#include <utility>
#include <vector>

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
  void evaluate_column_factors(const ValueBatch& batch, std::span<double> outputs);
  // Lines of op(A) (its rows) or of op(B) (its columns) in the column-major buffers: element
  // (line, l) of the operand lies at data[line * line_stride + l * element_stride].
  struct Operand {
    T* data;
    std::size_t lines;
    std::size_t line_stride;
    std::size_t element_stride;
    std::size_t size;  // elements of the buffer
  };

  // Places A, B (x) and C (y) `offset` elements after a 64-byte boundary, with leading dimensions
  // `pad` elements longer than needed (ProbeBatch::offset, leading_pad); lay_out() always rebuilds.
  void place(std::size_t offset, std::size_t pad);
  void lay_out(std::size_t offset, std::size_t pad);
  void check_sizes(std::size_t inputs, std::size_t outputs, Placement placement) const;
  // Writes the staged inputs 0..count-1 into the lines of `operand` (the rest zero) and makes the
  // other operand hold `shared` everywhere (rewritten only when it changed).
  void load(Placement placement, std::size_t count, T shared);
  void fill_constant(const Operand& operand, T value, bool& is_constant, T& constant);
  void fill_shared_factors(Placement placement, const double* factors);  // nullptr: constant
  void set_c(Placement placement, std::size_t count);
  void call_kernel();
  void read_outputs(std::span<double> outputs) const;
  T* staged(std::size_t line) { return staging_.data() + line * leaves_; }
  // A probe batch whose every probe has all leaves active, written straight into its operand.
  bool load_all_active_probes(const ProbeBatch& batch, std::size_t count);
  T& element(const Operand& operand, std::size_t line, std::size_t l) {
    return operand.data[line * operand.line_stride + l * operand.element_stride];
  }

  std::shared_ptr<const Library> library_;
  int threads_;
  BlasCase case_;
  Kernels<T> kernels_;
  TargetInfo info_;

  std::size_t rows_, reduction_, leaves_, columns_;
  AlignedBuffer<T> a_;        // A as the routine reads it
  AlignedBuffer<T> b_;        // x (gemv) or B (gemm)
  AlignedBuffer<T> c_;        // y or C, column-major rows_ x columns_
  AlignedBuffer<T> staging_;  // inputs, row-major: max(rows, columns) lines x leaves
  AlignedBuffer<T> c_leaf_;   // per line: the old C value of its input (beta = 1)
  Operand op_a_{}, op_b_{};
  std::size_t offset_ = 0, pad_ = 0;
  std::size_t lda_ = 0, ldb_ = 0, ldc_ = 0;  // leading dimensions (x: its length)
  T* c_data_ = nullptr;                      // C (y) at the offset
  bool a_constant_ = false, b_constant_ = false;  // the operand holds one value everywhere
  T a_value_{}, b_value_{};
  // What load_all_active_probes left in its operand: the unit everywhere but at `masks` (line,
  // leaf) and on the lines in `zero_lines`. Any other write to the operands (load, lay_out) ends
  // it, and the next such batch fills the operand again.
  struct UnitOperand {
    bool valid = false;
    Placement placement = Placement::rows;
    T unit{};
    std::vector<std::pair<std::size_t, std::size_t>> masks;
    std::vector<std::size_t> zero_lines;
  } unit_operand_;
};

}  // namespace fprev::blas
