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
      check_row_(blas_case.rows >= 2),
      rows_contiguous_(blas_case.trans_a == 'T'),
      a_(rows_ * reduction_),
      // Inputs go straight into A when its rows are contiguous and carry no C leaf.
      staging_storage_(rows_contiguous_ && blas_case.beta == 0 ? 0 : rows_ * leaves_),
      staging_(rows_contiguous_ && blas_case.beta == 0 ? a_.data() : staging_storage_.data()),
      b_(reduction_ * columns_),
      c_(rows_ * columns_),
      c_leaf_(rows_) {
  info_.description = std::move(description);
  info_.n = leaves_;
  info_.traits.input = blas_case.dtype;
  info_.traits.accumulator = blas_case.dtype;
  info_.traits.output = blas_case.dtype;
  info_.traits.summand = SummandKind::product_shared_rhs;
  info_.max_batch = check_row_ ? rows_ - 1 : 1;
}

template <class T>
void MatrixTarget<T>::check_sizes(std::size_t inputs, std::size_t outputs) const {
  if (inputs != outputs || inputs == 0 || inputs > info_.max_batch)
    throw TargetError(info_.description + ": evaluate() got " + std::to_string(inputs) +
                      " inputs for " + std::to_string(outputs) + " outputs (max batch " +
                      std::to_string(info_.max_batch) + ")");
}

template <class T>
void MatrixTarget<T>::stage_probe(const ProbeBatch& batch, std::size_t probe, std::size_t row) {
  T* dst = staged_row(row);
  write_probe_row<T>(batch, probe, leaves_, dst, nullptr);
  if (case_.beta != 0)
    c_leaf_[row] = static_cast<T>(batch.leaf(probe, static_cast<std::uint32_t>(reduction_)).value());
}

template <class T>
void MatrixTarget<T>::stage_values(const ValueBatch& batch, std::size_t input, std::size_t row) {
  T* dst = staged_row(row);
  const double* a = batch.a.data() + input * leaves_;
  for (std::size_t l = 0; l < reduction_; ++l) dst[l] = static_cast<T>(a[l]);
  if (case_.beta != 0) {
    const double b = batch.b.empty() ? 1.0 : batch.b[reduction_];
    c_leaf_[row] = static_cast<T>(a[reduction_] * b);
  }
}

template <class T>
void MatrixTarget<T>::fill_rhs(const double* factors) {
  // gemv: x[l]. gemm: column j of op(B) is the factor vector; B is k x n (N) or n x k (T).
  const bool b_transposed = case_.op == Op::gemm && case_.trans_b == 'T';
  for (std::size_t l = 0; l < reduction_; ++l) {
    const T value = static_cast<T>(factors != nullptr ? factors[l] : rhs_value_);
    for (std::size_t j = 0; j < columns_; ++j) {
      if (b_transposed)
        b_[j + l * columns_] = value;
      else
        b_[l + j * reduction_] = value;
    }
  }
}

template <class T>
void MatrixTarget<T>::pack_rows(std::size_t begin, std::size_t end) {
  if (staging_ == a_.data()) return;
  if (rows_contiguous_) {
    for (std::size_t r = begin; r < end; ++r)
      std::memcpy(a_.data() + r * reduction_, staged_row(r), reduction_ * sizeof(T));
    return;
  }
  // op(A) = A, column-major with lda = rows: a transpose, in tiles to stay in cache.
  constexpr std::size_t kTile = 32;
  for (std::size_t r0 = begin; r0 < end; r0 += kTile) {
    const std::size_t r1 = std::min(end, r0 + kTile);
    for (std::size_t l0 = 0; l0 < reduction_; l0 += kTile) {
      const std::size_t l1 = std::min(reduction_, l0 + kTile);
      for (std::size_t l = l0; l < l1; ++l)
        for (std::size_t r = r0; r < r1; ++r) a_[r + l * rows_] = staging_[r * leaves_ + l];
    }
  }
}

template <class T>
void MatrixTarget<T>::call_kernel() {
  const T alpha = 1, beta = static_cast<T>(case_.beta);
  const FortranInt one = 1;
  const auto m = static_cast<FortranInt>(case_.m), n = static_cast<FortranInt>(case_.n);
  if (case_.op == Op::gemv) {
    const FortranInt lda = std::max<FortranInt>(1, m);
    kernels_.gemv(&case_.trans_a, &m, &n, &alpha, a_.data(), &lda, b_.data(), &one, &beta,
                  c_.data(), &one, 1);
    return;
  }
  const auto k = static_cast<FortranInt>(case_.k);
  const FortranInt lda = case_.trans_a == 'N' ? m : k;
  const FortranInt ldb = case_.trans_b == 'N' ? k : n;
  const FortranInt ldc = m;
  kernels_.gemm(&case_.trans_a, &case_.trans_b, &m, &n, &k, &alpha, a_.data(), &lda, b_.data(),
                &ldb, &beta, c_.data(), &ldc, 1, 1);
}

template <class T>
void MatrixTarget<T>::run(std::size_t used, std::span<double> outputs, bool compare_positions) {
  pack_rows(0, used);
  if (check_row_) pack_rows(rows_ - 1, rows_);
  if (case_.beta != 0) {
    // The routine overwrites C: give every row its old value again (unused rows: zero).
    std::fill(c_leaf_.data() + used, c_leaf_.data() + (check_row_ ? rows_ - 1 : rows_), T{});
    for (std::size_t j = 0; j < columns_; ++j)
      std::copy(c_leaf_.data(), c_leaf_.data() + rows_, c_.data() + j * rows_);
  }
  library_->use_threads(threads_);
  call_kernel();
  if (compare_positions) check_consistency(used);
  for (std::size_t p = 0; p < used; ++p) outputs[p] = static_cast<double>(out(p, 0));
}

template <class T>
void MatrixTarget<T>::check_consistency(std::size_t used) const {
  const std::string prefix = "batch_inconsistent: " + info_.description + ": ";
  const std::string cause =
      ": the accumulation order depends on the output position (e.g. another kernel for edge "
      "rows or columns), so no single summation tree describes this routine";
  if (check_row_ && !same_bits(out(0, 0), out(rows_ - 1, 0)))
    throw BatchInconsistent(prefix + "rows 0 and " + std::to_string(rows_ - 1) +
                            " of one call hold the same input but returned " + show(out(0, 0)) +
                            " and " + show(out(rows_ - 1, 0)) + cause);
  if (columns_ < 2) return;
  const std::size_t last = columns_ - 1;
  for (std::size_t r = 0; r < rows_; ++r) {
    if (r >= used && !(check_row_ && r == rows_ - 1)) continue;
    if (!same_bits(out(r, 0), out(r, last)))
      throw BatchInconsistent(prefix + "columns 0 and " + std::to_string(last) + " of row " +
                              std::to_string(r) + " hold the same input (B's columns are equal) "
                              "but returned " + show(out(r, 0)) + " and " + show(out(r, last)) +
                              cause);
  }
}

template <class T>
void MatrixTarget<T>::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  const std::size_t used = batch.probes.size();
  check_sizes(used, outputs.size());
  const ProbeValues& values = *batch.values;
  // One B for every row needs one right-hand factor for every leaf and probe.
  if (values.plus.b != values.unit.b || values.minus.b != values.unit.b)
    throw TargetError(info_.description + ": the probe values have per-leaf right-hand factors "
                      "(unit b " + show(values.unit.b) + ", +M b " + show(values.plus.b) +
                      ", -M b " + show(values.minus.b) + "); a shared right-hand side needs one");
  if (!rhs_constant_ || rhs_value_ != values.unit.b) {
    rhs_value_ = values.unit.b;
    fill_rhs(nullptr);
    rhs_constant_ = true;
  }
  for (std::size_t p = 0; p < used; ++p) stage_probe(batch, p, p);
  if (check_row_) stage_probe(batch, 0, rows_ - 1);
  run(used, outputs, true);
}

template <class T>
void MatrixTarget<T>::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t used = batch.rows;
  check_sizes(used, outputs.size());
  if (batch.a.size() < used * leaves_ || (!batch.b.empty() && batch.b.size() < leaves_))
    throw TargetError(info_.description + ": value batch smaller than its rows x n");
  if (batch.b.empty()) {
    rhs_value_ = 1.0;
    fill_rhs(nullptr);
  } else {
    fill_rhs(batch.b.data());
  }
  rhs_constant_ = batch.b.empty();
  for (std::size_t row = 0; row < used; ++row) stage_values(batch, row, row);
  if (check_row_) stage_values(batch, 0, rows_ - 1);
  // Random inputs are not compared: an edge kernel without FMA rounds the products that the main
  // kernel keeps exact, a last-bit difference without any difference in order. Probe products are
  // exact powers of two, so there a difference can only come from the order.
  run(used, outputs, false);
}

template class MatrixTarget<float>;
template class MatrixTarget<double>;

}  // namespace fprev::blas
