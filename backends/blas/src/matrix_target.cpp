#include "matrix_target.hpp"

#include <algorithm>
#include <cstdio>

#include "fprev/probe_inputs.hpp"

namespace fprev::blas {
namespace {

template <class T>
std::string show(T value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", static_cast<double>(value));
  return text;
}

template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

}  // namespace

template <class T>
MatrixTarget<T>::MatrixTarget(std::shared_ptr<const Library> library, int threads,
                              const BlasCase& blas_case, const Kernels<T>& kernels,
                              std::string description)
    : library_(std::move(library)),
      threads_(threads),
      case_(blas_case),
      kernels_(kernels),
      rows_(blas_case.rows),
      reduction_(blas_case.reduction),
      leaves_(blas_case.leaves()),
      columns_(blas_case.columns),
      a_(rows_ * reduction_),
      b_(reduction_ * columns_),
      c_(rows_ * columns_),
      staging_(std::max(rows_, columns_) * leaves_),
      c_leaf_(std::max(rows_, columns_)) {
  info_.description = std::move(description);
  info_.n = leaves_;
  info_.traits.input = blas_case.dtype;
  info_.traits.accumulator = blas_case.dtype;
  info_.traits.output = blas_case.dtype;
  info_.traits.summand = SummandKind::product_shared_rhs;
  // Edge kernels may keep part of a sum wider than dtype (OpenBLAS sdot: its tail in double).
  info_.traits.exact_arithmetic_model = false;
  info_.max_batch = 1;
  info_.grid = {rows_, columns_};
  info_.columns_placement = true;
  // op(B) of a GEMM is a whole matrix: each column may hold right factors of its own.
  info_.column_right_factors = case_.op == Op::gemm && columns_ > 1;

  info_.alignment = AlignmentSupport::honours_offsets;
  info_.leading_dimensions = true;
  lay_out(0, 0);
}

// op(A) is rows x reduction, op(B) reduction x columns, both column-major as BLAS reads them, each
// buffer starting `offset` elements after a 64-byte boundary, every leading dimension `pad` longer
// than the matrix's rows. The routine reads and writes them there (call_kernel).
template <class T>
void MatrixTarget<T>::lay_out(std::size_t offset, std::size_t pad) {
  if (offset > 63)
    throw TargetError(info_.description + ": offset " + std::to_string(offset) + " is beyond the 63 elements "
                      "a matrix is placed at");
  const auto m = static_cast<std::size_t>(case_.m), n = static_cast<std::size_t>(case_.n);
  const std::size_t k = reduction_;
  std::size_t a_columns, b_columns;
  if (case_.op == Op::gemv) {
    lda_ = m + pad;  // A is m x n
    a_columns = n;
    ldb_ = reduction_;  // x: one vector of the reduction's length
    b_columns = 1;
  } else {
    lda_ = (case_.trans_a == 'N' ? m : k) + pad;  // N: A is m x k; T: A is k x m
    a_columns = case_.trans_a == 'N' ? k : m;
    ldb_ = (case_.trans_b == 'N' ? k : n) + pad;  // N: B is k x n; T: B is n x k
    b_columns = case_.trans_b == 'N' ? n : k;
  }
  ldc_ = rows_ + (case_.op == Op::gemv ? 0 : pad);
  a_ = AlignedBuffer<T>(offset + lda_ * a_columns);
  b_ = AlignedBuffer<T>(offset + ldb_ * b_columns);
  c_ = AlignedBuffer<T>(offset + ldc_ * columns_);
  T* a = a_.data() + offset;
  T* b = b_.data() + offset;
  const std::size_t a_size = lda_ * a_columns, b_size = ldb_ * b_columns;
  c_data_ = c_.data() + offset;
  if (case_.op == Op::gemv) {
    // N: op(A)(r, l) = A[r + l lda]; T: op(A)(r, l) = A[l + r lda]. x: one line.
    op_a_ = case_.trans_a == 'N' ? Operand{a, rows_, 1, lda_, a_size} : Operand{a, rows_, lda_, 1, a_size};
    op_b_ = Operand{b, 1, 0, 1, b_size};
  } else {
    op_a_ = case_.trans_a == 'N' ? Operand{a, rows_, 1, lda_, a_size} : Operand{a, rows_, lda_, 1, a_size};
    op_b_ = case_.trans_b == 'N' ? Operand{b, columns_, ldb_, 1, b_size} : Operand{b, columns_, 1, ldb_, b_size};
  }
  a_constant_ = b_constant_ = false;
  unit_operand_.valid = false;
  offset_ = offset;
  pad_ = pad;
}

template <class T>
void MatrixTarget<T>::place(std::size_t offset, std::size_t pad) {
  if (offset != offset_ || pad != pad_) lay_out(offset, pad);
}

template <class T>
void MatrixTarget<T>::check_sizes(std::size_t inputs, std::size_t outputs,
                                  Placement placement) const {
  const std::size_t lines = placement == Placement::rows ? rows_ : columns_;
  const std::size_t expected = info_.grid.single() ? inputs : info_.grid.size();
  if (inputs == 0 || inputs > lines || outputs != expected)
    throw TargetError(info_.description + ": evaluate() got " + std::to_string(inputs) +
                      " inputs on " + std::to_string(lines) + " " + std::string(to_string(placement)) +
                      " and " + std::to_string(outputs) + " outputs (expected " +
                      std::to_string(expected) + ")");
}

template <class T>
void MatrixTarget<T>::fill_constant(const Operand& operand, T value, bool& is_constant, T& constant) {
  if (is_constant && same_bits(constant, value)) return;
  std::fill(operand.data, operand.data + operand.size, value);
  is_constant = true;
  constant = value;
}

template <class T>
void MatrixTarget<T>::load(Placement placement, std::size_t count, T shared) {
  const bool by_rows = placement == Placement::rows;
  const Operand& target = by_rows ? op_a_ : op_b_;
  (by_rows ? a_constant_ : b_constant_) = false;
  unit_operand_.valid = false;
  if (by_rows)
    fill_constant(op_b_, shared, b_constant_, b_value_);
  else
    fill_constant(op_a_, shared, a_constant_, a_value_);
  // Lines beyond the inputs are zero.
  for (std::size_t line = count; line < target.lines; ++line)
    std::fill(staged(line), staged(line) + reduction_, T{});
  if (target.element_stride == 1) {
    for (std::size_t line = 0; line < target.lines; ++line)
      std::memcpy(target.data + line * target.line_stride, staged(line), reduction_ * sizeof(T));
    return;
  }
  // A transpose, in tiles to stay in cache.
  constexpr std::size_t kTile = 32;
  for (std::size_t l0 = 0; l0 < target.lines; l0 += kTile) {
    const std::size_t l1 = std::min(target.lines, l0 + kTile);
    for (std::size_t e0 = 0; e0 < reduction_; e0 += kTile) {
      const std::size_t e1 = std::min(reduction_, e0 + kTile);
      for (std::size_t e = e0; e < e1; ++e)
        for (std::size_t line = l0; line < l1; ++line)
          target.data[line * target.line_stride + e * target.element_stride] = staged(line)[e];
    }
  }
}

// What load() makes of write_probe_row's rows when every probe has all leaves active, without the
// staging and the copy (a transpose for a GEMV's rows): the operand holds the unit everywhere, and
// a batch changes only the masks of its probes (a line each) and the lines without a probe (zero).
// The previous batch's masks and zero lines are put back to the unit first, so a call writes
// O(lines) elements instead of lines x n. The other operand holds the unit's factor b, as in load().
template <class T>
bool MatrixTarget<T>::load_all_active_probes(const ProbeBatch& batch, std::size_t count) {
  for (std::size_t p = 0; p < count; ++p)
    if (!batch.backgrounds[batch.probes[p].background]->all_active) return false;
  const bool by_rows = batch.placement == Placement::rows;
  const Operand& target = by_rows ? op_a_ : op_b_;
  const ProbeValues& values = *batch.values;
  const T unit = static_cast<T>(values.unit.a);
  (by_rows ? a_constant_ : b_constant_) = false;
  if (by_rows)
    fill_constant(op_b_, static_cast<T>(values.unit.b), b_constant_, b_value_);
  else
    fill_constant(op_a_, static_cast<T>(values.unit.b), a_constant_, a_value_);
  UnitOperand& state = unit_operand_;
  if (!state.valid || state.placement != batch.placement || !same_bits(state.unit, unit)) {
    std::fill(target.data, target.data + target.size, unit);
    state.valid = true;
    state.placement = batch.placement;
    state.unit = unit;
  } else {
    for (const auto& [line, l] : state.masks) element(target, line, l) = unit;
    for (const std::size_t line : state.zero_lines)
      for (std::size_t l = 0; l < reduction_; ++l) element(target, line, l) = unit;
  }
  state.masks.clear();
  state.zero_lines.clear();
  const auto mask = [&](std::size_t line, std::uint32_t leaf, double a) {
    if (leaf >= reduction_) return;  // beta's leaf: the old C value (c_leaf_, set_c)
    element(target, line, leaf) = static_cast<T>(a);
    state.masks.emplace_back(line, leaf);
  };
  for (std::size_t p = 0; p < count; ++p) {
    const Probe& probe = batch.probes[p];
    mask(p, probe.plus, values.plus.a);
    mask(p, probe.minus, values.minus.a);
    for (const ExtraMask& extra : batch.extras(p)) mask(p, extra.leaf, extra.value.a);
  }
  // Lines beyond the inputs are zero.
  for (std::size_t line = count; line < target.lines; ++line) {
    for (std::size_t l = 0; l < reduction_; ++l) element(target, line, l) = T{};
    state.zero_lines.push_back(line);
  }
  return true;
}

template <class T>
void MatrixTarget<T>::set_c(Placement placement, std::size_t count) {
  if (case_.beta == 0) return;
  // The routine overwrites C: every element gets the old value of the input on its line again.
  const bool by_rows = placement == Placement::rows;
  for (std::size_t c = 0; c < columns_; ++c)
    for (std::size_t r = 0; r < rows_; ++r) {
      const std::size_t line = by_rows ? r : c;
      c_data_[r + c * ldc_] = line < count ? c_leaf_[line] : T{};
    }
}

template <class T>
void MatrixTarget<T>::call_kernel() {
  if (library_) library_->use_threads(threads_);  // none: a library without threads (eigen)
  const T alpha = 1, beta = static_cast<T>(case_.beta);
  const FortranInt one = 1;
  const auto m = static_cast<FortranInt>(case_.m), n = static_cast<FortranInt>(case_.n);
  const auto lda = static_cast<FortranInt>(std::max<std::size_t>(1, lda_));
  if (case_.op == Op::gemv) {
    kernels_.gemv(&case_.trans_a, &m, &n, &alpha, op_a_.data, &lda, op_b_.data, &one, &beta, c_data_, &one, 1);
    return;
  }
  const auto k = static_cast<FortranInt>(case_.k);
  const auto ldb = static_cast<FortranInt>(ldb_), ldc = static_cast<FortranInt>(ldc_);
  kernels_.gemm(&case_.trans_a, &case_.trans_b, &m, &n, &k, &alpha, op_a_.data, &lda, op_b_.data, &ldb, &beta,
                c_data_, &ldc, 1, 1);
}

template <class T>
void MatrixTarget<T>::read_outputs(std::span<double> outputs) const {
  if (info_.grid.single()) {
    outputs[0] = static_cast<double>(c_data_[0]);
    return;
  }
  // C is column-major, the outputs row-major: a transpose, 8 rows at a time (a 4 KiB row stride
  // maps every written line to one cache set, so wider tiles thrash it).
  constexpr std::size_t kRows = 8;
  for (std::size_t r0 = 0; r0 < rows_; r0 += kRows) {
    const std::size_t r1 = std::min(rows_, r0 + kRows);
    for (std::size_t c = 0; c < columns_; ++c)
      for (std::size_t r = r0; r < r1; ++r) outputs[r * columns_ + c] = static_cast<double>(c_data_[r + c * ldc_]);
  }
}

template <class T>
void MatrixTarget<T>::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  const std::size_t count = batch.probes.size();
  check_sizes(count, outputs.size(), batch.placement);
  place(batch.offset, batch.leading_pad);
  const ProbeValues& values = *batch.values;
  // One shared factor for every leaf: the other operand holds it everywhere.
  if (values.plus.b != values.unit.b || values.minus.b != values.unit.b)
    throw TargetError(info_.description + ": the probe values have per-leaf right-hand factors "
                      "(unit b " + show(values.unit.b) + ", +M b " + show(values.plus.b) +
                      ", -M b " + show(values.minus.b) + "); a shared operand needs one");
  if (!load_all_active_probes(batch, count)) {
    for (std::size_t p = 0; p < count; ++p) write_probe_row<T>(batch, p, leaves_, staged(p), nullptr);
    load(batch.placement, count, static_cast<T>(values.unit.b));
  }
  if (case_.beta != 0)
    for (std::size_t p = 0; p < count; ++p)
      c_leaf_[p] = static_cast<T>(batch.leaf(p, static_cast<std::uint32_t>(reduction_)).value());
  set_c(batch.placement, count);
  call_kernel();
  read_outputs(outputs);
}

template <class T>
void MatrixTarget<T>::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t count = batch.rows;
  check_sizes(count, outputs.size(), batch.placement);
  place(batch.offset, batch.leading_pad);
  if (batch.a.size() < count * leaves_ || (!batch.b.empty() && batch.b.size() < leaves_))
    throw TargetError(info_.description + ": value batch smaller than its rows x n");
  // Several blocks of factors without a name for each column: a caller (or a transport) lost them.
  if (batch.column_factors.empty() && batch.b.size() > leaves_)
    throw TargetError(info_.description + ": " + std::to_string(batch.b.size()) + " right factors for " +
                      std::to_string(leaves_) + " leaves and no column naming its block");
  if (!batch.column_factors.empty()) {
    evaluate_column_factors(batch, outputs);
    return;
  }
  for (std::size_t p = 0; p < count; ++p) {
    const double* a = batch.a.data() + p * leaves_;
    for (std::size_t l = 0; l < reduction_; ++l) staged(p)[l] = static_cast<T>(a[l]);
    if (case_.beta != 0)
      c_leaf_[p] = static_cast<T>(a[reduction_] * (batch.b.empty() ? 1.0 : batch.b[reduction_]));
  }
  if (batch.b.empty()) {
    load(batch.placement, count, T{1});
  } else {
    // Per-leaf shared factors: write the inputs, then the other operand leaf by leaf.
    load(batch.placement, count, T{1});
    const bool by_rows = batch.placement == Placement::rows;
    const Operand& other = by_rows ? op_b_ : op_a_;
    (by_rows ? b_constant_ : a_constant_) = false;
    for (std::size_t line = 0; line < other.lines; ++line)
      for (std::size_t l = 0; l < reduction_; ++l)
        other.data[line * other.line_stride + l * other.element_stride] = static_cast<T>(batch.b[l]);
  }
  set_c(batch.placement, count);
  call_kernel();
  read_outputs(outputs);
}

// Rows of op(A) from the inputs and every column of op(B) from the block of b it names
// (TargetInfo::column_right_factors); with beta 1, element (r, c) starts from the product of the
// last leaf k, the old value of C.
template <class T>
void MatrixTarget<T>::evaluate_column_factors(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t count = batch.rows;
  const std::size_t blocks = batch.b.size() / leaves_;
  const bool indices_fit = std::all_of(batch.column_factors.begin(), batch.column_factors.end(),
                                       [&](std::uint32_t block) { return block < blocks; });
  if (!info_.column_right_factors || batch.placement != Placement::rows || batch.column_factors.size() != columns_ ||
      batch.b.size() % leaves_ != 0 || !indices_fit)
    throw TargetError(info_.description + ": right factors for every column need a GEMM, rows placement, one "
                      "block of b (" + std::to_string(leaves_) + " factors) named for each of the " +
                      std::to_string(columns_) + " columns (got " + std::to_string(batch.column_factors.size()) +
                      " names, " + std::to_string(batch.b.size()) + " factors)");
  for (std::size_t p = 0; p < count; ++p) {
    const double* a = batch.a.data() + p * leaves_;
    for (std::size_t l = 0; l < reduction_; ++l) staged(p)[l] = static_cast<T>(a[l]);
  }
  load(Placement::rows, count, T{1});
  b_constant_ = false;
  for (std::size_t column = 0; column < op_b_.lines; ++column) {
    const double* b = batch.b.data() + batch.column_factors[column] * leaves_;
    for (std::size_t l = 0; l < reduction_; ++l)
      op_b_.data[column * op_b_.line_stride + l * op_b_.element_stride] = static_cast<T>(b[l]);
  }
  if (case_.beta != 0)
    for (std::size_t c = 0; c < columns_; ++c)
      for (std::size_t r = 0; r < rows_; ++r)
        c_data_[r + c * ldc_] =
            r < count ? static_cast<T>(batch.a[r * leaves_ + reduction_] *
                                       batch.b[batch.column_factors[c] * leaves_ + reduction_])
                      : T{};
  call_kernel();
  read_outputs(outputs);
}

template class MatrixTarget<float>;
template class MatrixTarget<double>;

}  // namespace fprev::blas
